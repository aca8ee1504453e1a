package io.jrunc.tests;

import java.util.Collection;
import java.util.List;

/** Capability numbers from linux/capability.h, independent of the runtime's own table. */
public final class Caps {
    private Caps() {}

    private static final List<String> NAMES = List.of("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH",
            "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP",
            "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
            "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
            "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
            "CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
            "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN",
            "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
            "CAP_CHECKPOINT_RESTORE");

    /** The mask /proc/PID/status prints for {@code names}, as 16 hex digits. */
    public static String hex(Collection<String> names) {
        long mask = 0;
        for (String n : names) {
            int bit = NAMES.indexOf(n);
            if (bit < 0) {
                throw new IllegalArgumentException("unknown capability " + n);
            }
            mask |= 1L << bit;
        }
        return String.format("%016x", mask);
    }
}
