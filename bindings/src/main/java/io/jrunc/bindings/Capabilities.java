package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Capability sets of the calling thread via capget(2)/capset(2) with _LINUX_CAPABILITY_VERSION_3
 * (two 32-bit words per set). Names and numbers from include/uapi/linux/capability.h.
 */
public final class Capabilities {
    private Capabilities() {}

    private static final int VERSION_3 = 0x20080522;
    // struct __user_cap_header_struct {version, pid}; struct __user_cap_data_struct
    // {effective, permitted, inheritable}, two of them for version 3
    static final long HEADER_SIZE = 8, HEADER_VERSION = 0, HEADER_PID = 4;
    static final long DATA_SIZE = 12, DATA_EFFECTIVE = 0, DATA_PERMITTED = 4, DATA_INHERITABLE = 8;
    static final int DATA_COUNT = 2;

    /** Capability names in number order (CAP_CHOWN = 0 ... CAP_CHECKPOINT_RESTORE = 40). */
    public static final List<String> NAMES = List.of(
            "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
            "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE",
            "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
            "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT",
            "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME",
            "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL",
            "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
            "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE");

    /** The number of a capability name, or -1 if this kernel table does not know it. */
    public static int number(String name) {
        return NAMES.indexOf(name);
    }

    private static volatile int lastCap = -1;

    /**
     * The highest capability the running kernel knows (/proc/sys/kernel/cap_last_cap), read once. One
     * read(2) of a buffer: a sysctl file answers only a read at offset 0, and JDK 25's Files.readString
     * of a file whose size is 0 reads one byte first and then gets EOF at offset 1, which gave "4" for
     * 40 (exec then left capabilities 5 to 40 in the bounding set).
     */
    public static int lastCap() {
        int last = lastCap;
        if (last < 0) {
            last = NAMES.size() - 1;
            try (java.io.InputStream in = java.nio.file.Files.newInputStream(
                    java.nio.file.Path.of("/proc/sys/kernel/cap_last_cap"))) {
                byte[] buf = new byte[32];
                int n = in.read(buf);
                if (n > 0) {
                    last = Integer.parseInt(new String(buf, 0, n, java.nio.charset.StandardCharsets.US_ASCII).trim());
                }
            } catch (java.io.IOException | NumberFormatException e) {
                // no procfs: the table's own last capability
            }
            lastCap = last;
        }
        return last;
    }

    /** The three sets of one thread as bit masks. */
    public record Sets(long effective, long permitted, long inheritable) {}

    public static Sets get() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = header(arena);
            MemorySegment data = arena.allocate(DATA_SIZE * DATA_COUNT, 4);
            Syscalls.call("capget", null, SyscallNumbers.CAPGET, header.address(), data.address());
            return new Sets(word(data, DATA_EFFECTIVE), word(data, DATA_PERMITTED), word(data, DATA_INHERITABLE));
        }
    }

    public static void set(Sets sets) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = header(arena);
            MemorySegment data = arena.allocate(DATA_SIZE * DATA_COUNT, 4);
            put(data, DATA_EFFECTIVE, sets.effective());
            put(data, DATA_PERMITTED, sets.permitted());
            put(data, DATA_INHERITABLE, sets.inheritable());
            Syscalls.call("capset", null, SyscallNumbers.CAPSET, header.address(), data.address());
        }
    }

    /**
     * capset(2)'s two arguments as bytes, {@code [header, data]}, for a caller that makes the call in
     * another task (a libc chain): the header names the calling task (pid 0).
     */
    public static byte[][] capsetArguments(Sets sets) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(DATA_SIZE * DATA_COUNT, 4);
            put(data, DATA_EFFECTIVE, sets.effective());
            put(data, DATA_PERMITTED, sets.permitted());
            put(data, DATA_INHERITABLE, sets.inheritable());
            return new byte[][] {header(arena).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                    data.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)};
        }
    }

    private static MemorySegment header(Arena arena) {
        MemorySegment header = arena.allocate(HEADER_SIZE, 4);
        header.set(JAVA_INT, HEADER_VERSION, VERSION_3);
        header.set(JAVA_INT, HEADER_PID, 0); // 0 = the calling thread
        return header;
    }

    // data[0] holds bits 0-31 of each set, data[1] (DATA_SIZE bytes later) bits 32-63.
    private static long word(MemorySegment data, long offset) {
        return Integer.toUnsignedLong(data.get(JAVA_INT, offset))
                | Integer.toUnsignedLong(data.get(JAVA_INT, offset + DATA_SIZE)) << 32;
    }

    private static void put(MemorySegment data, long offset, long mask) {
        data.set(JAVA_INT, offset, (int) mask);
        data.set(JAVA_INT, offset + DATA_SIZE, (int) (mask >>> 32));
    }
}
