package io.jrunc.runtime;

import io.jrunc.bindings.Capabilities;
import io.jrunc.cgroups.CgroupMode;
import io.jrunc.spec.Features;
import io.jrunc.spec.SpecVersion;
import java.util.List;
import java.util.Map;

/**
 * The `features` document (runtime-spec features.md), telling the truth about this build: no
 * AppArmor/SELinux yet, the cgroup versions this host offers, and what the seccomp
 * compiler handles (the architectures it has tables for, the flags this kernel takes).
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
                List.of("async", "atime", "bind", "defaults", "dev", "diratime", "dirsync", "exec", "idmap", "lazytime", "mand",
                        "noatime", "nodev", "nodiratime", "noexec", "nolazytime", "nomand", "norelatime",
                        "nostrictatime", "nosuid", "nosymfollow", "private", "rbind", "relatime", "remount", "ridmap", "ro",
                        "rprivate", "rshared", "rslave", "runbindable", "rw", "shared", "slave", "strictatime",
                        "suid", "sync", "unbindable"),
                new Features.Linux(List.of("cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts"), caps,
                        new Features.Cgroup(v1, v2, false, false, false),
                        seccomp(),
                        new Features.Apparmor(false), new Features.Selinux(false), new Features.IntelRdt(false, null, null),
                        null, new Features.MountExtensions(new Features.IDMap(true)), null),
                Map.of("io.jrunc.version", version, "io.jrunc.cgroup.mode", mode.name().toLowerCase()),
                List.of("bundle"));
    }

    private static Features.Seccomp seccomp() {
        List<String> archs = new java.util.ArrayList<>();
        for (io.jrunc.seccomp.Arch arch : io.jrunc.seccomp.Arch.values()) {
            archs.add(arch.specName());
        }
        java.util.Collections.sort(archs);
        List<String> known = List.of("SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
                "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV");
        // TSYNC is accepted and has nothing to do (the filtered process is single-threaded);
        // WAIT_KILLABLE_RECV needs Linux 5.19.
        List<String> supported = ContainerSeccomp.killableRecvSupported() ? known : known.subList(0, 3);
        return new Features.Seccomp(true,
                List.of("SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO", "SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS",
                        "SCMP_ACT_KILL_THREAD", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY", "SCMP_ACT_TRACE", "SCMP_ACT_TRAP"),
                List.of("SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_LE", "SCMP_CMP_LT",
                        "SCMP_CMP_MASKED_EQ", "SCMP_CMP_NE"),
                archs, known, supported);
    }
}
