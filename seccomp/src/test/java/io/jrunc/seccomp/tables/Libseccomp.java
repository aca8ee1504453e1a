package io.jrunc.seccomp.tables;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The installed libseccomp (Debian's libseccomp2), reached through FFM: the oracle the generator dumps
 * and the tests compare against. Test code only: the product never links libseccomp.
 */
final class Libseccomp {
    /** __NR_SCMP_ERROR: what seccomp_syscall_resolve_name_arch returns for a name it does not know. */
    static final int NR_SCMP_ERROR = -1;

    /**
     * Every architecture token libseccomp 2.5.4 accepts (SCMP_ARCH_* in seccomp.h.in, which are the
     * AUDIT_ARCH_* values of linux/audit.h except x32's). The ones beyond jrunc's five only widen the
     * universe of names. Insertion order is kept so the generator's output is stable.
     */
    static final Map<String, Integer> ARCH_TOKENS = new LinkedHashMap<>();

    static {
        ARCH_TOKENS.put("x86", 0x40000003);
        ARCH_TOKENS.put("x86_64", 0xC000003E);
        // SCMP_ARCH_X32 is EM_X86_64|__AUDIT_ARCH_LE, without __AUDIT_ARCH_64BIT: libseccomp's own
        // token. The kernel reports x32 tasks as AUDIT_ARCH_X86_64 (arch_def_x32.token_bpf).
        ARCH_TOKENS.put("x32", 0x4000003E);
        ARCH_TOKENS.put("arm", 0x40000028);
        ARCH_TOKENS.put("aarch64", 0xC00000B7);
        ARCH_TOKENS.put("mips", 0x00000008);
        ARCH_TOKENS.put("mipsel", 0x40000008);
        ARCH_TOKENS.put("mips64", 0x80000008);
        ARCH_TOKENS.put("mipsel64", 0xC0000008);
        ARCH_TOKENS.put("mips64n32", 0xA0000008);
        ARCH_TOKENS.put("mipsel64n32", 0xE0000008);
        ARCH_TOKENS.put("ppc", 0x00000014);
        ARCH_TOKENS.put("ppc64", 0x80000015);
        ARCH_TOKENS.put("ppc64le", 0xC0000015);
        ARCH_TOKENS.put("s390", 0x00000016);
        ARCH_TOKENS.put("s390x", 0x80000016);
        ARCH_TOKENS.put("parisc", 0x0000000F);
        ARCH_TOKENS.put("parisc64", 0x8000000F);
        ARCH_TOKENS.put("riscv64", 0xC00000F3);
    }

    private static final MethodHandle RESOLVE_NUM;
    private static final MethodHandle RESOLVE_NAME;
    private static final MethodHandle VERSION;
    private static final MethodHandle FREE;

    static {
        Linker linker = Linker.nativeLinker();
        // By soname, through the dynamic loader's search path, so the tests work wherever libseccomp2
        // is installed (Debian puts it in /usr/lib/x86_64-linux-gnu).
        SymbolLookup lib = SymbolLookup.libraryLookup("libseccomp.so.2", Arena.global());
        // char *seccomp_syscall_resolve_num_arch(uint32_t arch_token, int num): strdup'd, or NULL
        RESOLVE_NUM = linker.downcallHandle(lib.findOrThrow("seccomp_syscall_resolve_num_arch"),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        // int seccomp_syscall_resolve_name_arch(uint32_t arch_token, const char *name)
        RESOLVE_NAME = linker.downcallHandle(lib.findOrThrow("seccomp_syscall_resolve_name_arch"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        // const struct scmp_version *seccomp_version(void): { unsigned int major, minor, micro }
        VERSION = linker.downcallHandle(lib.findOrThrow("seccomp_version"),
                FunctionDescriptor.of(ValueLayout.ADDRESS));
        FREE = linker.downcallHandle(linker.defaultLookup().findOrThrow("free"),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
    }

    private Libseccomp() {}

    /** The library's version, "major.minor.micro". */
    static String version() {
        try {
            MemorySegment v = ((MemorySegment) VERSION.invokeExact()).reinterpret(12);
            return v.get(ValueLayout.JAVA_INT, 0) + "." + v.get(ValueLayout.JAVA_INT, 4) + "."
                    + v.get(ValueLayout.JAVA_INT, 8);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /** seccomp_syscall_resolve_num_arch: the name of {@code num} on the arch, if libseccomp has one. */
    static Optional<String> name(int archToken, int num) {
        try {
            MemorySegment p = (MemorySegment) RESOLVE_NUM.invokeExact(archToken, num);
            if (p.equals(MemorySegment.NULL)) {
                return Optional.empty();
            }
            try {
                return Optional.of(p.reinterpret(Long.MAX_VALUE).getString(0));
            } finally {
                FREE.invokeExact(p);
            }
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /**
     * seccomp_syscall_resolve_name_arch: the number, {@link #NR_SCMP_ERROR} for an unknown name, or a
     * negative pseudo number (__PNR_*) for a name libseccomp knows but the arch lacks or multiplexes.
     */
    static int number(int archToken, String name) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) RESOLVE_NAME.invokeExact(archToken, arena.allocateFrom(name));
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }
}
