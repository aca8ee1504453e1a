package io.jrunc.spec;

import java.util.List;

/** Validation of {@code mounts} (config.md, Mounts and POSIX-platform Mounts). */
final class MountRules {

    private MountRules() {
    }

    static void check(List<Mount> mounts, JsonPath path, Problems problems) {
        if (mounts == null) {
            return;
        }
        for (int i = 0; i < mounts.size(); i++) {
            Mount mount = mounts.get(i);
            JsonPath at = path.index(i);
            // Spec 1.2 still tolerates relative destinations (as relative to "/"); runc only warns.
            // jrunc rejects them: every caller writes absolute paths, and guessing is how mounts escape.
            problems.requireAbsolutePath(at.field("destination"), mount.destination());
            boolean hasUid = mount.uidMappings() != null;
            boolean hasGid = mount.gidMappings() != null;
            if (hasUid && !hasGid) {
                problems.add(at.field("gidMappings"), "must be set together with uidMappings");
            } else if (hasGid && !hasUid) {
                problems.add(at.field("uidMappings"), "must be set together with gidMappings");
            }
            LinuxRules.checkIdMappings(mount.uidMappings(), at.field("uidMappings"), problems);
            LinuxRules.checkIdMappings(mount.gidMappings(), at.field("gidMappings"), problems);
        }
    }
}
