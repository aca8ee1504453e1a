package io.jrunc.seccomp;

/**
 * What a seccomp filter sees of a syscall, {@code struct seccomp_data} (linux/seccomp.h): number,
 * AUDIT_ARCH value, instruction pointer and six arguments as 64-bit values.
 */
public record SeccompData(int nr, int arch, long instructionPointer, long[] args) {
    public SeccompData {
        if (args.length != 6) {
            throw new IllegalArgumentException("seccomp_data has six arguments");
        }
        args = args.clone();
    }

    public static SeccompData of(Arch arch, int nr, long... args) {
        long[] all = new long[6];
        System.arraycopy(args, 0, all, 0, args.length);
        return new SeccompData(nr, arch.auditArch(), 0, all);
    }

    /** The 32-bit word at byte {@code offset} of the structure, as BPF_LD|BPF_W|BPF_ABS loads it. */
    public int word(int offset) {
        if (offset == 0) {
            return nr;
        }
        if (offset == 4) {
            return arch;
        }
        long value;
        if (offset == 8 || offset == 12) {
            value = instructionPointer;
            offset -= 8;
        } else if (offset >= 16 && offset < 64 && offset % 4 == 0) {
            value = args[(offset - 16) / 8];
            offset = (offset - 16) % 8;
        } else {
            throw new IllegalArgumentException("no word at seccomp_data offset " + offset);
        }
        // Little-endian: the low half first.
        return (int) (offset == 0 ? value : value >>> 32);
    }
}
