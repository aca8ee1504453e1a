package io.jrunc.spec;

import java.util.List;

/**
 * Who the process runs as, in the container's user namespace (config.md, POSIX-platform User).
 * Ids are uint32 in the spec, held in {@code Long} so the whole range fits.
 *
 * @param umask absent means keep the caller's umask, unlike 0.
 * @param username Windows only; kept for round trips.
 */
public record User(
        Long uid,
        Long gid,
        Long umask,
        List<Long> additionalGids,
        String username) {

    public User {
        additionalGids = Frozen.list(additionalGids);
    }
}
