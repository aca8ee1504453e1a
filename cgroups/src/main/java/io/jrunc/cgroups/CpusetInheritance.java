package io.jrunc.cgroups;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A new cgroup v1 cpuset cgroup starts with empty cpuset.cpus and cpuset.mems (unless the hierarchy
 * has cgroup.clone_children set), and the kernel refuses tasks into it (ENOSPC). runc copies both from
 * the parent, level by level from the mount point down, and so does this. Only empty values are
 * filled: what an ancestor already narrowed stays as it is.
 *
 * @param cgroup the cpuset cgroup to fill
 */
record CpusetInheritance(Path cgroup) {

    void copyFromParentIfEmpty() throws CgroupException {
        Path parent = cgroup.getParent();
        copyIfEmpty(parent, "cpus");
        copyIfEmpty(parent, "mems");
    }

    private void copyIfEmpty(Path parent, String setting) throws CgroupException {
        // A cpuset hierarchy may be mounted with "noprefix" (Android): then the files lack "cpuset.".
        String file = Files.exists(cgroup.resolve("cpuset." + setting)) ? "cpuset." + setting : setting;
        if (!read(cgroup.resolve(file)).isBlank()) {
            return;
        }
        String inherited = read(parent.resolve(file)).trim();
        try {
            Files.writeString(cgroup.resolve(file), inherited, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new CgroupException("failed to write \"" + inherited + "\" to " + cgroup.resolve(file) + ": "
                    + CgroupDirectory.reason(e), e);
        }
    }

    private static String read(Path file) throws CgroupException {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new CgroupException(file.getParent() + " is not a cpuset cgroup: no " + file.getFileName(), e);
        } catch (IOException e) {
            throw new CgroupException("cannot read " + file + ": " + CgroupDirectory.reason(e), e);
        }
    }
}
