package io.jrunc.runtime;

import io.jrunc.bindings.Capabilities;
import io.jrunc.cgroups.CgroupMode;
import io.jrunc.spec.Features;
import io.jrunc.spec.SpecVersion;
import java.util.List;
import java.util.Map;

/**
 * The `features` document (runtime-spec features.md), telling the truth about this build: no user
 * namespaces, no seccomp, no AppArmor/SELinux yet, and the cgroup versions this host offers.
 */
public final class RuntimeFeatures {
    private RuntimeFeatures() {}

    public static Features of(String version) {
        CgroupMode mode = CgroupMode.detect();
        boolean v1 = mode != CgroupMode.UNIFIED;
        boolean v2 = mode != CgroupMode.LEGACY;
        List<String> caps = Capabilities.NAMES.subList(0, Math.min(Capabilities.NAMES.size(), Capabilities.lastCap() + 1));
        return new Features(SpecVersion.MINIMUM, SpecVersion.CURRENT,
                List.of("prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"),
                List.of("async", "atime", "bind", "defaults", "dev", "diratime", "dirsync", "exec", "lazytime", "mand",
                        "noatime", "nodev", "nodiratime", "noexec", "nolazytime", "nomand", "norelatime",
                        "nostrictatime", "nosuid", "nosymfollow", "private", "rbind", "relatime", "remount", "ro",
                        "rprivate", "rshared", "rslave", "runbindable", "rw", "shared", "slave", "strictatime",
                        "suid", "sync", "unbindable"),
                new Features.Linux(List.of("cgroup", "ipc", "mount", "network", "pid", "time", "uts"), caps,
                        new Features.Cgroup(v1, v2, false, false, false),
                        new Features.Seccomp(false, null, null, null, null, null),
                        new Features.Apparmor(false), new Features.Selinux(false), new Features.IntelRdt(false, null, null),
                        null, null, null),
                Map.of("io.jrunc.version", version, "io.jrunc.cgroup.mode", mode.name().toLowerCase()),
                List.of("bundle"));
    }
}
