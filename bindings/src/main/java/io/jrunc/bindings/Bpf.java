package io.jrunc.bindings;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * bpf(2) for what cgroup v2 device control needs: load a BPF_PROG_TYPE_CGROUP_DEVICE program, attach
 * it to a cgroup directory, find the programs attached there, detach them. The instructions are built
 * by the caller (the cgroups module); this class only moves bytes in and out of {@code union bpf_attr}.
 *
 * <p><b>Layouts.</b> jextract cannot generate {@code union bpf_attr} (its structs use bitfields and
 * anonymous unions; docs/bindings.md), so the offsets used here are literals, from
 * include/uapi/linux/bpf.h. They were checked once with gcc's {@code offsetof} on the headers the
 * generated package comes from (linux-libc-dev 6.1, x86-64), in a scratch program that is not part of
 * the repository; {@code BpfLayoutTest} pins them to those values. The fields are fixed-width
 * ({@code __u32}, {@code __aligned_u64}), so the offsets are the same on every architecture. The
 * constants are compile-time literals checked against the generated ones
 * ({@code FacadeMatchesGeneratedTest}).
 *
 * <p><b>Size passed to the kernel.</b> Every call passes a zeroed buffer of the whole union (144 bytes
 * in the 6.1 headers). A newer kernel zero-fills the part of its larger union that was not passed; an
 * older one accepts a longer buffer when the tail it does not know is zero. The full-size buffer also
 * covers a kernel bug runc works around: kernels 6.17 and later write {@code query.revision} (offset 56)
 * whatever size was passed.
 *
 * <p>Descriptors returned here (programs) are close-on-exec, as the kernel makes every bpf descriptor.
 */
public final class Bpf {
    private Bpf() {}

    // enum bpf_cmd
    public static final int BPF_PROG_LOAD = 5, BPF_PROG_ATTACH = 8, BPF_PROG_DETACH = 9,
            BPF_PROG_GET_FD_BY_ID = 13, BPF_OBJ_GET_INFO_BY_FD = 15, BPF_PROG_QUERY = 16;
    // enum bpf_prog_type, enum bpf_attach_type
    public static final int BPF_PROG_TYPE_CGROUP_DEVICE = 15;
    public static final int BPF_CGROUP_DEVICE = 6;
    // attach flags
    public static final int BPF_F_ALLOW_OVERRIDE = 1, BPF_F_ALLOW_MULTI = 2, BPF_F_REPLACE = 4;
    // struct bpf_cgroup_dev_ctx: access_type = (access << 16) | type
    public static final int BPF_DEVCG_ACC_MKNOD = 1, BPF_DEVCG_ACC_READ = 2, BPF_DEVCG_ACC_WRITE = 4;
    public static final int BPF_DEVCG_DEV_BLOCK = 1, BPF_DEVCG_DEV_CHAR = 2;
    public static final int BPF_OBJ_NAME_LEN = 16;

    // Instruction opcode fields (linux/bpf_common.h, linux/bpf.h): class | size/op | mode/source.
    public static final int BPF_LDX = 0x01, BPF_ALU = 0x04, BPF_JMP = 0x05, BPF_JMP32 = 0x06, BPF_ALU64 = 0x07;
    public static final int BPF_W = 0x00, BPF_MEM = 0x60;
    public static final int BPF_AND = 0x50, BPF_RSH = 0x70, BPF_MOV = 0xb0;
    public static final int BPF_JEQ = 0x10, BPF_JNE = 0x50, BPF_EXIT = 0x90;
    public static final int BPF_K = 0x00, BPF_X = 0x08;
    /** sizeof(struct bpf_insn): opcode u8, dst_reg:4 and src_reg:4, off s16, imm s32. */
    public static final int BPF_INSN_SIZE = 8;

    private static final int F_DUPFD_CLOEXEC = 1030;
    private static final int RLIMIT_MEMLOCK = 8;

    // union bpf_attr, include/uapi/linux/bpf.h (6.1). Offsets verified with gcc offsetof (see above).
    static final long ATTR_SIZE = 144;
    // BPF_PROG_LOAD
    static final long ATTR_PROG_TYPE = 0, ATTR_INSN_CNT = 4, ATTR_INSNS = 8, ATTR_LICENSE = 16,
            ATTR_LOG_LEVEL = 24, ATTR_LOG_SIZE = 28, ATTR_LOG_BUF = 32, ATTR_PROG_NAME = 48;
    // BPF_PROG_ATTACH, BPF_PROG_DETACH
    static final long ATTR_TARGET_FD = 0, ATTR_ATTACH_BPF_FD = 4, ATTR_ATTACH_TYPE = 8, ATTR_ATTACH_FLAGS = 12,
            ATTR_REPLACE_BPF_FD = 16;
    // BPF_PROG_QUERY (query.*)
    static final long ATTR_QUERY_TARGET_FD = 0, ATTR_QUERY_ATTACH_TYPE = 4, ATTR_QUERY_FLAGS = 8,
            ATTR_QUERY_ATTACH_FLAGS = 12, ATTR_QUERY_PROG_IDS = 16, ATTR_QUERY_PROG_CNT = 24;
    // BPF_PROG_GET_FD_BY_ID
    static final long ATTR_PROG_ID = 0;
    // BPF_OBJ_GET_INFO_BY_FD (info.*)
    static final long ATTR_INFO_BPF_FD = 0, ATTR_INFO_LEN = 4, ATTR_INFO = 8;
    // struct bpf_prog_info (6.1: 232 bytes): type u32, id u32, ..., name[16] at 64
    static final long PROG_INFO_SIZE = 232, PROG_INFO_TYPE = 0, PROG_INFO_ID = 4, PROG_INFO_NAME = 64;

    /** The verifier may be interrupted by a signal (EAGAIN, kernel 4.20+); runc retries 30 times. */
    private static final int LOAD_RETRIES = 30;
    private static final int MIN_LOG_SIZE = 64 * 1024;
    /** Kernels before 5.2 refuse a log_size above UINT_MAX >> 8. */
    private static final int MAX_LOG_SIZE = 16 * 1024 * 1024 - 1;

    /** A program load the kernel refused; {@link #log()} is the verifier's log (may be empty). */
    public static final class LoadException extends RuntimeException {
        private final int errno;
        private final String log;

        LoadException(ErrnoException cause, String log) {
            super(cause.getMessage() + (log.isEmpty() ? "" : "; verifier log:\n" + log), cause);
            this.errno = cause.errno();
            this.log = log;
        }

        public int errno() { return errno; }

        public String log() { return log; }
    }

    /** What {@link #progQuery} found: the flags the programs were attached with and their ids. */
    public record Attached(int attachFlags, List<Integer> programIds) {}

    /** The parts of {@code struct bpf_prog_info} this project looks at. */
    public record ProgramInfo(int type, int id, String name) {}

    private static long bpf(int cmd, String what, MemorySegment attr) {
        return Syscalls.call("bpf", what, SyscallNumbers.BPF, cmd, attr.address(), ATTR_SIZE);
    }

    /** bpf(2) treats descriptor 0 as "none" in later calls: move a program that landed there. */
    private static int notZero(int fd) {
        if (fd != 0) {
            return fd;
        }
        try {
            return FileDescriptors.fcntl(fd, F_DUPFD_CLOEXEC, 1);
        } finally {
            FileDescriptors.closeQuietly(fd);
        }
    }

    /**
     * BPF_PROG_LOAD: loads {@code instructions} (whole {@code struct bpf_insn}s, native byte order) as a
     * program of {@code progType} and returns its descriptor. {@code license} only matters to the kernel
     * for helpers restricted to GPL-compatible programs; {@code name} (at most 15 characters of
     * [A-Za-z0-9_.]) shows in bpftool and /proc/PID/fdinfo. The first attempt runs without a verifier
     * log (the fast path); a failure is repeated with one, so that the exception says why. If the kernel
     * refuses with EPERM and RLIMIT_MEMLOCK is finite, the limit is raised to infinity and the load tried
     * once more: kernels before 5.11 charge programs to locked memory (runc raises it before every load).
     */
    public static int progLoad(int progType, byte[] instructions, String license, String name) {
        if (instructions.length == 0 || instructions.length % BPF_INSN_SIZE != 0) {
            throw new IllegalArgumentException("not a whole number of instructions: " + instructions.length + " bytes");
        }
        byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        if (nameBytes.length >= BPF_OBJ_NAME_LEN) {
            throw new IllegalArgumentException("program name longer than " + (BPF_OBJ_NAME_LEN - 1) + ": " + name);
        }
        String what = "BPF_PROG_LOAD " + name + " (" + instructions.length / BPF_INSN_SIZE + " instructions)";
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment insns = arena.allocate(instructions.length, 8);
            MemorySegment.copy(instructions, 0, insns, JAVA_BYTE, 0, instructions.length);
            MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
            attr.set(JAVA_INT, ATTR_PROG_TYPE, progType);
            attr.set(JAVA_INT, ATTR_INSN_CNT, instructions.length / BPF_INSN_SIZE);
            attr.set(JAVA_LONG, ATTR_INSNS, insns.address());
            attr.set(JAVA_LONG, ATTR_LICENSE, arena.allocateFrom(license).address());
            MemorySegment.copy(nameBytes, 0, attr, JAVA_BYTE, ATTR_PROG_NAME, nameBytes.length);
            ErrnoException first;
            try {
                return load(attr, what);
            } catch (ErrnoException e) {
                first = e;
            }
            if (first.is(Errno.EPERM) && raiseMemlock()) {
                try {
                    return load(attr, what);
                } catch (ErrnoException e) {
                    first = e;
                }
            }
            // Again with the verifier log; a log that does not fit is ENOSPC: grow it.
            attr.set(JAVA_INT, ATTR_LOG_LEVEL, 1);
            for (int size = MIN_LOG_SIZE; ; size = Math.min(size * 8, MAX_LOG_SIZE)) {
                MemorySegment log = arena.allocate(size);
                attr.set(JAVA_INT, ATTR_LOG_SIZE, size);
                attr.set(JAVA_LONG, ATTR_LOG_BUF, log.address());
                try {
                    return load(attr, what); // refused once, accepted now: take it
                } catch (ErrnoException e) {
                    if (e.is(Errno.ENOSPC) && size < MAX_LOG_SIZE) {
                        continue;
                    }
                    String text = log.getString(0, StandardCharsets.UTF_8).stripTrailing();
                    throw new LoadException(first, text);
                }
            }
        }
    }

    private static int load(MemorySegment attr, String what) {
        for (int attempt = 0; ; attempt++) {
            try {
                return notZero((int) bpf(BPF_PROG_LOAD, what, attr));
            } catch (ErrnoException e) {
                if (!e.is(Errno.EAGAIN) || attempt >= LOAD_RETRIES) {
                    throw e;
                }
            }
        }
    }

    /** Raises this process's RLIMIT_MEMLOCK to infinity; false if it already was (or cannot be). */
    private static boolean raiseMemlock() {
        try {
            int self = Processes.getpid();
            long[] limit = Processes.getrlimit(self, RLIMIT_MEMLOCK);
            if (limit[0] == Processes.RLIM_INFINITY) {
                return false;
            }
            Processes.prlimit(self, RLIMIT_MEMLOCK, Processes.RLIM_INFINITY, Processes.RLIM_INFINITY);
            return true;
        } catch (ErrnoException e) {
            return false;
        }
    }

    /**
     * BPF_PROG_ATTACH: attaches program {@code progFd} to the cgroup directory {@code targetFd} at
     * {@code attachType}. With {@link #BPF_F_REPLACE} (kernel 5.6+, together with
     * {@link #BPF_F_ALLOW_MULTI}) the attached program {@code replaceFd} is swapped for it atomically;
     * otherwise pass {@code replaceFd} 0.
     */
    public static void progAttach(int targetFd, int progFd, int attachType, int flags, int replaceFd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
            attr.set(JAVA_INT, ATTR_TARGET_FD, targetFd);
            attr.set(JAVA_INT, ATTR_ATTACH_BPF_FD, progFd);
            attr.set(JAVA_INT, ATTR_ATTACH_TYPE, attachType);
            attr.set(JAVA_INT, ATTR_ATTACH_FLAGS, flags);
            attr.set(JAVA_INT, ATTR_REPLACE_BPF_FD, replaceFd);
            bpf(BPF_PROG_ATTACH, "BPF_PROG_ATTACH prog fd " + progFd + " to fd " + targetFd, attr);
        }
    }

    /** BPF_PROG_DETACH: detaches program {@code progFd} from {@code targetFd} at {@code attachType}. */
    public static void progDetach(int targetFd, int progFd, int attachType) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
            attr.set(JAVA_INT, ATTR_TARGET_FD, targetFd);
            attr.set(JAVA_INT, ATTR_ATTACH_BPF_FD, progFd);
            attr.set(JAVA_INT, ATTR_ATTACH_TYPE, attachType);
            bpf(BPF_PROG_DETACH, "BPF_PROG_DETACH prog fd " + progFd + " from fd " + targetFd, attr);
        }
    }

    /**
     * BPF_PROG_QUERY: the programs attached to {@code targetFd} itself at {@code attachType} (not the
     * effective ones inherited from ancestors), in the order the kernel runs them. A cgroup holds at
     * most 64 per attach type; if more appear while asking (ENOSPC), the query is repeated.
     */
    public static Attached progQuery(int targetFd, int attachType) {
        int capacity = 64;
        try (Arena arena = Arena.ofConfined()) {
            for (int attempt = 0; ; attempt++) {
                MemorySegment ids = arena.allocate(JAVA_INT, capacity);
                MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
                attr.set(JAVA_INT, ATTR_QUERY_TARGET_FD, targetFd);
                attr.set(JAVA_INT, ATTR_QUERY_ATTACH_TYPE, attachType);
                attr.set(JAVA_LONG, ATTR_QUERY_PROG_IDS, ids.address());
                attr.set(JAVA_INT, ATTR_QUERY_PROG_CNT, capacity);
                try {
                    bpf(BPF_PROG_QUERY, "BPF_PROG_QUERY fd " + targetFd, attr);
                } catch (ErrnoException e) {
                    // prog_cnt now holds the number attached
                    if (e.is(Errno.ENOSPC) && attempt < 10) {
                        capacity = Math.max(capacity, attr.get(JAVA_INT, ATTR_QUERY_PROG_CNT));
                        continue;
                    }
                    throw e;
                }
                int count = attr.get(JAVA_INT, ATTR_QUERY_PROG_CNT);
                List<Integer> list = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    list.add(ids.getAtIndex(JAVA_INT, i));
                }
                return new Attached(attr.get(JAVA_INT, ATTR_QUERY_ATTACH_FLAGS), List.copyOf(list));
            }
        }
    }

    /** BPF_PROG_GET_FD_BY_ID: a descriptor for the loaded program {@code id} (CAP_SYS_ADMIN). */
    public static int progGetFdById(int id) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
            attr.set(JAVA_INT, ATTR_PROG_ID, id);
            return notZero((int) bpf(BPF_PROG_GET_FD_BY_ID, "BPF_PROG_GET_FD_BY_ID " + Integer.toUnsignedString(id), attr));
        }
    }

    /** BPF_OBJ_GET_INFO_BY_FD for a program: its type, id and name. */
    public static ProgramInfo progInfo(int progFd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = arena.allocate(PROG_INFO_SIZE, 8);
            MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
            attr.set(JAVA_INT, ATTR_INFO_BPF_FD, progFd);
            attr.set(JAVA_INT, ATTR_INFO_LEN, (int) PROG_INFO_SIZE);
            attr.set(JAVA_LONG, ATTR_INFO, info.address());
            bpf(BPF_OBJ_GET_INFO_BY_FD, "BPF_OBJ_GET_INFO_BY_FD fd " + progFd, attr);
            String name = info.asSlice(PROG_INFO_NAME, BPF_OBJ_NAME_LEN).getString(0, StandardCharsets.US_ASCII);
            return new ProgramInfo(info.get(JAVA_INT, PROG_INFO_TYPE), info.get(JAVA_INT, PROG_INFO_ID), name);
        }
    }
}
