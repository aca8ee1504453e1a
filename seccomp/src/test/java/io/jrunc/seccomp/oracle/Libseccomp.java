package io.jrunc.seccomp.oracle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jrunc.seccomp.Arch;
import io.jrunc.seccomp.Instruction;
import io.jrunc.seccomp.Program;
import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.LinuxSeccompArg;
import io.jrunc.spec.LinuxSyscall;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Debian's libseccomp 2.5.4 through FFM, driven the way runc 1.1.5 drives it (libcontainer/specconv
 * SetupSeccomp, libcontainer/seccomp/seccomp_linux.go InitSeccomp and matchCall, through the
 * libseccomp-golang revision runc vendors): the test oracle for the compiler. Only the program libseccomp
 * exports is produced here; runc's -ENOSYS stub, which runc puts in front of it, is {@link RuncEnosysStub}.
 *
 * <p>What runc 1.1.5 does, step by step, and what {@link #build} repeats:
 * <ol>
 *   <li>{@code flags} present: runc 1.1.5 refuses the profile ("seccomp flags are not yet supported");
 *       jrunc accepts them, and they change how the program is loaded, never the program, so here they
 *       only set the libseccomp attributes later runc versions set (LOG, SSB) and an unknown flag refuses.
 *   <li>Unknown action, operator or architecture name anywhere: refused (before libseccomp is called).
 *   <li>SCMP_ACT_NOTIFY: refused as the default action, and for the syscall {@code write}.
 *   <li>{@code seccomp_init(default action)}: the default's errno (ERRNO and TRACE only) is
 *       {@code errnoRet & 0xffff}, EPERM when absent (TRACE too). KILL and KILL_THREAD are both
 *       SCMP_ACT_KILL_THREAD. A NULL context (e.g. ERRNO errno of 4096 or more) refuses.
 *   <li>{@code SCMP_FLTATR_CTL_TSYNC} = 1 (libseccomp-golang's NewFilter; errors ignored here as
 *       ENOTSUP is there).
 *   <li>{@code seccomp_arch_add} for each listed architecture in order, EEXIST ignored; the native
 *       architecture, which seccomp_init put in, is never removed. The bad-architecture action is left
 *       at libseccomp's default, SCMP_ACT_KILL_THREAD.
 *   <li>{@code SCMP_FLTATR_CTL_NNP} = 0.
 *   <li>Each name of each rule, in order, as its own rule: skipped when its action equals the default
 *       action (errno included); skipped when {@code seccomp_syscall_resolve_name} (native architecture)
 *       does not know it; otherwise {@code seccomp_rule_add_array} (not the _exact form) with all the
 *       conditions, unless two conditions name the same argument index, in which case one rule per
 *       condition. Any failure refuses the profile.
 *   <li>{@code seccomp_export_bpf}.
 * </ol>
 *
 * <p>Another native architecture ({@link #build(LinuxSeccomp, Arch)}: runc on an aarch64 or arm host, from
 * this x86-64 one). libseccomp depends on its compiled-in native architecture in two places only:
 * seccomp_init puts it in the filter, and arch_syscall_translate (arch.c) reads every rule's number in
 * the native numbering, whatever the filter holds, and carries it to each filter's architecture by name
 * (native number to name, then the name on that architecture, real or pseudo). So: seccomp_init, then
 * {@code seccomp_arch_remove(SCMP_ARCH_NATIVE)} and {@code seccomp_arch_add(target)} (the target first,
 * as seccomp_init would have put it), then the listed ones; matchCall's lookup (libseccomp-golang's
 * GetSyscallFromName, seccomp_syscall_resolve_name on the host) is {@code seccomp_syscall_resolve_name_arch
 * (target, name)}, and the number handed to seccomp_rule_add_array is the name's x86-64 number (real or
 * pseudo), which libseccomp translates back to the target's own, exactly the number runc on the target
 * would pass untranslated. That holds because x86-64's table maps every name libseccomp knows to a number
 * that maps back to that name ({@link #x8664RoundTripFailures}, checked by the test).
 */
public final class Libseccomp {
    private Libseccomp() {}

    // Actions and the other constants, from include/seccomp.h.in (2.5.4).
    public static final int ACT_KILL_PROCESS = 0x80000000, ACT_KILL_THREAD = 0x00000000, ACT_TRAP = 0x00030000,
            ACT_NOTIFY = 0x7fc00000, ACT_ERRNO = 0x00050000, ACT_TRACE = 0x7ff00000, ACT_LOG = 0x7ffc0000,
            ACT_ALLOW = 0x7fff0000;
    static final int FLTATR_CTL_NNP = 3, FLTATR_CTL_TSYNC = 4, FLTATR_CTL_LOG = 6, FLTATR_CTL_SSB = 7;
    /** __NR_SCMP_ERROR. */
    static final int NR_SCMP_ERROR = -1;
    static final int EEXIST = 17;

    /** SCMP_CMP_* by the runtime-spec's names. */
    static final Map<String, Integer> OPERATORS = Map.of("SCMP_CMP_NE", 1, "SCMP_CMP_LT", 2, "SCMP_CMP_LE", 3,
            "SCMP_CMP_EQ", 4, "SCMP_CMP_GE", 5, "SCMP_CMP_GT", 6, "SCMP_CMP_MASKED_EQ", 7);

    /** The architectures runc 1.1.5 knows (libcontainer/seccomp/config.go) and their SCMP_ARCH_* tokens. */
    public static final Map<String, Integer> ARCHES = Map.ofEntries(
            Map.entry("SCMP_ARCH_X86", 0x40000003),
            Map.entry("SCMP_ARCH_X86_64", 0xC000003E),
            Map.entry("SCMP_ARCH_X32", 0x4000003E),
            Map.entry("SCMP_ARCH_ARM", 0x40000028),
            Map.entry("SCMP_ARCH_AARCH64", 0xC00000B7),
            Map.entry("SCMP_ARCH_MIPS", 0x00000008),
            Map.entry("SCMP_ARCH_MIPS64", 0x80000008),
            Map.entry("SCMP_ARCH_MIPS64N32", 0xA0000008),
            Map.entry("SCMP_ARCH_MIPSEL", 0x40000008),
            Map.entry("SCMP_ARCH_MIPSEL64", 0xC0000008),
            Map.entry("SCMP_ARCH_MIPSEL64N32", 0xE0000008),
            Map.entry("SCMP_ARCH_PPC", 0x00000014),
            Map.entry("SCMP_ARCH_PPC64", 0x80000015),
            Map.entry("SCMP_ARCH_PPC64LE", 0xC0000015),
            Map.entry("SCMP_ARCH_S390", 0x00000016),
            Map.entry("SCMP_ARCH_S390X", 0x80000016));

    /** The nine actions the runtime-spec names. */
    public static final List<String> ACTIONS = List.of("SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS",
            "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP", "SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW",
            "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY");

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIB = SymbolLookup.libraryLookup("libseccomp.so.2", Arena.global());
    private static final SymbolLookup LIBC = LINKER.defaultLookup();

    private static MethodHandle lib(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LIB.findOrThrow(name), descriptor);
    }

    private static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LIBC.findOrThrow(name), descriptor);
    }

    private static final MethodHandle INIT = lib("seccomp_init", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    private static final MethodHandle RELEASE = lib("seccomp_release", FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle ARCH_ADD =
            lib("seccomp_arch_add", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle ARCH_REMOVE =
            lib("seccomp_arch_remove", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle ATTR_SET =
            lib("seccomp_attr_set", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    private static final MethodHandle API_GET = lib("seccomp_api_get", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle RESOLVE_NAME =
            lib("seccomp_syscall_resolve_name", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle RESOLVE_NAME_ARCH =
            lib("seccomp_syscall_resolve_name_arch", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle RESOLVE_NUM_ARCH =
            lib("seccomp_syscall_resolve_num_arch", FunctionDescriptor.of(ADDRESS, JAVA_INT, JAVA_INT));
    private static final MethodHandle RULE_ADD_ARRAY = lib("seccomp_rule_add_array",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle EXPORT_BPF =
            lib("seccomp_export_bpf", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle EXPORT_PFC =
            lib("seccomp_export_pfc", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle MEMFD_CREATE =
            libc("memfd_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle CLOSE = libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FREE = libc("free", FunctionDescriptor.ofVoid(ADDRESS));

    /** sizeof(struct scmp_arg_cmp): unsigned arg, enum op, two uint64 data. */
    private static final int ARG_CMP_SIZE = 24;

    /**
     * What runc 1.1.5 makes of a profile: the program libseccomp exports (without runc's stub), or why
     * runc refuses the profile.
     */
    public record Result(Program program, String refusal) {
        public boolean refused() {
            return refusal != null;
        }
    }

    /** A list the spec left out, as empty (oci-spec keeps absent lists null). */
    static <T> List<T> list(List<T> list) {
        return list == null ? List.of() : list;
    }

    /** libseccomp's API level (seccomp_api_get): runc wants 6 for SCMP_ACT_NOTIFY. */
    public static int apiLevel() {
        try {
            return (int) API_GET.invokeExact();
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /** The filter runc 1.1.5 builds from the profile on this (x86-64) host, as a program. */
    public static Result build(LinuxSeccomp profile) {
        return build(profile, Arch.X86_64);
    }

    /** The filter runc 1.1.5 builds from the profile on a host whose native architecture is {@code host}. */
    public static Result build(LinuxSeccomp profile, Arch host) {
        return build(profile, host, false).result;
    }

    /** seccomp_export_pfc of the filter runc 1.1.5 builds, or why it refuses the profile. */
    public static String pfc(LinuxSeccomp profile) {
        return pfc(profile, Arch.X86_64);
    }

    /** seccomp_export_pfc of the filter runc 1.1.5 builds on a {@code host} host, or why it refuses the profile. */
    public static String pfc(LinuxSeccomp profile, Arch host) {
        Built built = build(profile, host, true);
        return built.result.refused() ? "refused: " + built.result.refusal : built.pfc;
    }

    private record Built(Result result, String pfc) {}

    private static Built refuse(String why) {
        return new Built(new Result(null, why), null);
    }

    /** runc's getAction: the libseccomp action for a spec action and errnoRet, or null for an unknown one. */
    public static Integer action(String name, Integer errnoRet) {
        if (name == null) {
            return null;
        }
        int errno = errnoRet == null ? 1 : errnoRet & 0xffff; // int16(*errnoRet), EPERM when absent
        return switch (name) {
            case "SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD" -> ACT_KILL_THREAD;
            case "SCMP_ACT_KILL_PROCESS" -> ACT_KILL_PROCESS;
            case "SCMP_ACT_TRAP" -> ACT_TRAP;
            case "SCMP_ACT_ERRNO" -> ACT_ERRNO | errno;
            case "SCMP_ACT_TRACE" -> ACT_TRACE | errno;
            case "SCMP_ACT_ALLOW" -> ACT_ALLOW;
            case "SCMP_ACT_LOG" -> ACT_LOG;
            case "SCMP_ACT_NOTIFY" -> ACT_NOTIFY;
            default -> null;
        };
    }

    private static Built build(LinuxSeccomp profile, Arch host, boolean withPfc) {
        if (host != Arch.X86_64 && !"amd64".equals(System.getProperty("os.arch"))) {
            throw new IllegalStateException("the oracle emulates other hosts from an x86-64 one only");
        }
        // specconv.SetupSeccomp
        if (profile.defaultAction() == null && list(profile.syscalls()).isEmpty()) {
            return refuse("no filter: runc disables seccomp without a default action and syscalls");
        }
        List<Integer> flagAttrs = new ArrayList<>();
        for (String flag : list(profile.flags())) {
            switch (flag) {
                case "SECCOMP_FILTER_FLAG_TSYNC" -> { } // runc sets TSYNC anyway
                case "SECCOMP_FILTER_FLAG_LOG" -> flagAttrs.add(FLTATR_CTL_LOG);
                case "SECCOMP_FILTER_FLAG_SPEC_ALLOW" -> flagAttrs.add(FLTATR_CTL_SSB);
                default -> {
                    return refuse("unknown seccomp flag " + flag);
                }
            }
        }
        for (String arch : list(profile.architectures())) {
            if (!ARCHES.containsKey(arch)) {
                return refuse("unknown architecture " + arch);
            }
        }
        Integer defaultAction = action(profile.defaultAction(), profile.defaultErrnoRet());
        if (defaultAction == null) {
            return refuse("unknown default action " + profile.defaultAction());
        }
        for (LinuxSyscall call : list(profile.syscalls())) {
            if (action(call.action(), call.errnoRet()) == null) {
                return refuse("unknown action " + call.action());
            }
            for (LinuxSeccompArg arg : list(call.args())) {
                if (!OPERATORS.containsKey(arg.op())) {
                    return refuse("unknown operator " + arg.op());
                }
            }
        }
        // seccomp.InitSeccomp
        int api = apiLevel();
        for (LinuxSyscall call : list(profile.syscalls())) {
            if ("SCMP_ACT_NOTIFY".equals(call.action())) {
                if (api < 6) {
                    return refuse("SCMP_ACT_NOTIFY needs libseccomp API level 6, have " + api);
                }
                if (list(call.names()).contains("write")) {
                    return refuse("SCMP_ACT_NOTIFY cannot be used for the write syscall");
                }
            }
        }
        if (defaultAction == ACT_NOTIFY) {
            return refuse("SCMP_ACT_NOTIFY cannot be used as default action");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ctx = (MemorySegment) INIT.invokeExact((int) defaultAction);
            if (ctx.equals(MemorySegment.NULL)) {
                return refuse(String.format("seccomp_init(0x%08x) failed", defaultAction));
            }
            try {
                int unusedTsync = (int) ATTR_SET.invokeExact(ctx, FLTATR_CTL_TSYNC, 1);
                if (host != Arch.X86_64) {
                    int rc = (int) ARCH_REMOVE.invokeExact(ctx, 0);
                    if (rc == 0) {
                        rc = (int) ARCH_ADD.invokeExact(ctx, (int) ARCHES.get(host.specName()));
                    }
                    if (rc != 0) {
                        throw new IllegalStateException("cannot make " + host + " the filter's native arch: " + rc);
                    }
                }
                for (String arch : list(profile.architectures())) {
                    int rc = (int) ARCH_ADD.invokeExact(ctx, (int) ARCHES.get(arch));
                    if (rc != 0 && rc != -EEXIST) {
                        return refuse("seccomp_arch_add(" + arch + "): " + rc);
                    }
                }
                int rc = (int) ATTR_SET.invokeExact(ctx, FLTATR_CTL_NNP, 0);
                if (rc != 0) {
                    return refuse("seccomp_attr_set(NNP, 0): " + rc);
                }
                for (int attr : flagAttrs) {
                    rc = (int) ATTR_SET.invokeExact(ctx, attr, 1);
                    if (rc != 0) {
                        return refuse("seccomp_attr_set(" + attr + ", 1): " + rc);
                    }
                }
                for (int i = 0; i < list(profile.syscalls()).size(); i++) {
                    LinuxSyscall call = list(profile.syscalls()).get(i);
                    for (String name : list(call.names())) {
                        String why = matchCall(arena, ctx, host, name, call, defaultAction);
                        if (why != null) {
                            return refuse("syscalls[" + i + "] " + name + ": " + why);
                        }
                    }
                }
                Program program = parse(export(ctx, EXPORT_BPF));
                String pfc = withPfc ? new String(export(ctx, EXPORT_PFC), StandardCharsets.UTF_8) : null;
                return new Built(new Result(program, null), pfc);
            } finally {
                RELEASE.invokeExact(ctx);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /** runc's matchCall for one name: null when added or skipped, else why the profile is refused. */
    private static String matchCall(Arena arena, MemorySegment ctx, Arch host, String name, LinuxSyscall call,
            int defaultAction) throws Throwable {
        if (name == null || name.isEmpty()) {
            return "empty string is not a valid syscall";
        }
        int action = action(call.action(), call.errnoRet());
        if (action == defaultAction) {
            return null; // redundant, silently skipped
        }
        int nr = host == Arch.X86_64 ? resolveName(name) : resolveName(host.specName(), name);
        if (nr == NR_SCMP_ERROR) {
            return null; // unknown to libseccomp: runc ignores it
        }
        if (host != Arch.X86_64) {
            nr = resolveName("SCMP_ARCH_X86_64", name); // translated back to host's nr by libseccomp
        }
        List<LinuxSeccompArg> args = list(call.args());
        for (LinuxSeccompArg arg : args) {
            if (arg.index() == null || arg.index() < 0 || arg.index() > 5) {
                return "syscalls only have up to 6 arguments (" + arg.index() + " given)";
            }
        }
        if (args.isEmpty()) {
            int rc = (int) RULE_ADD_ARRAY.invokeExact(ctx, action, nr, 0, MemorySegment.NULL);
            return rc == 0 ? null : "seccomp_rule_add_array: " + rc;
        }
        int[] perIndex = new int[6];
        boolean shared = false;
        for (LinuxSeccompArg arg : args) {
            shared |= ++perIndex[arg.index()] > 1;
        }
        List<List<LinuxSeccompArg>> rules = shared ? args.stream().map(List::of).toList() : List.of(args);
        for (List<LinuxSeccompArg> conditions : rules) {
            MemorySegment array = arena.allocate((long) ARG_CMP_SIZE * conditions.size(), 8);
            for (int i = 0; i < conditions.size(); i++) {
                LinuxSeccompArg arg = conditions.get(i);
                long base = (long) i * ARG_CMP_SIZE;
                array.set(JAVA_INT, base, arg.index());
                array.set(JAVA_INT, base + 4, OPERATORS.get(arg.op()));
                array.set(JAVA_LONG, base + 8, arg.value() == null ? 0 : arg.value());
                array.set(JAVA_LONG, base + 16, arg.valueTwo() == null ? 0 : arg.valueTwo());
            }
            int rc = (int) RULE_ADD_ARRAY.invokeExact(ctx, action, nr, conditions.size(), array);
            if (rc != 0) {
                return "seccomp_rule_add_array(" + conditions + "): " + rc;
            }
        }
        return null;
    }

    /** seccomp_syscall_resolve_name: the native number, a negative pseudo-number, or -1 when unknown. */
    public static int resolveName(String name) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) RESOLVE_NAME.invokeExact(arena.allocateFrom(name));
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /** seccomp_syscall_resolve_name_arch, e.g. x32 numbers with the x32 bit. */
    public static int resolveName(String archSpecName, String name) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) RESOLVE_NAME_ARCH.invokeExact((int) ARCHES.get(archSpecName), arena.allocateFrom(name));
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The names for which x86-64's number does not lead back to the name (seccomp_syscall_resolve_num_arch
     * of seccomp_syscall_resolve_name_arch), out of {@code names}: where emulating another host through
     * x86-64's numbering would add the rule to another syscall. Empty in 2.5.4.
     */
    public static List<String> x8664RoundTripFailures(Iterable<String> names) {
        List<String> out = new ArrayList<>();
        int token = ARCHES.get("SCMP_ARCH_X86_64");
        try {
            for (String name : names) {
                int nr = resolveName("SCMP_ARCH_X86_64", name);
                MemorySegment back = (MemorySegment) RESOLVE_NUM_ARCH.invokeExact(token, nr);
                String backName = back.equals(MemorySegment.NULL) ? null : back.reinterpret(256).getString(0);
                if (!back.equals(MemorySegment.NULL)) {
                    FREE.invokeExact(back);
                }
                if (!name.equals(backName)) {
                    out.add(name + " -> " + nr + " -> " + backName);
                }
            }
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
        return out;
    }

    /** The names libseccomp has for numbers {@code from} to {@code to} on the architecture (no pseudo-syscalls). */
    public static List<String> names(String archSpecName, int from, int to) {
        List<String> names = new ArrayList<>();
        try {
            for (int nr = from; nr <= to; nr++) {
                MemorySegment name = (MemorySegment) RESOLVE_NUM_ARCH.invokeExact((int) ARCHES.get(archSpecName), nr);
                if (!name.equals(MemorySegment.NULL)) {
                    names.add(name.reinterpret(256).getString(0));
                    FREE.invokeExact(name);
                }
            }
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
        return names;
    }

    private static byte[] export(MemorySegment ctx, MethodHandle exporter) throws Throwable {
        int fd;
        try (Arena arena = Arena.ofConfined()) {
            fd = (int) MEMFD_CREATE.invokeExact(arena.allocateFrom("jrunc-libseccomp-oracle"), 0);
        }
        if (fd < 0) {
            throw new IllegalStateException("memfd_create failed");
        }
        try {
            int rc = (int) exporter.invokeExact(ctx, fd);
            if (rc != 0) {
                throw new IllegalStateException("seccomp export failed: " + rc);
            }
            return Files.readAllBytes(Path.of("/proc/self/fd/" + fd));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            int unused = (int) CLOSE.invokeExact(fd);
        }
    }

    /** An array of struct sock_filter in native byte order, as seccomp_export_bpf writes it. */
    public static Program parse(byte[] bytes) {
        if (bytes.length % 8 != 0) {
            throw new IllegalArgumentException("not a whole number of sock_filter: " + bytes.length + " bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        List<Instruction> insns = new ArrayList<>(bytes.length / 8);
        while (in.hasRemaining()) {
            int code = Short.toUnsignedInt(in.getShort());
            int jt = Byte.toUnsignedInt(in.get());
            int jf = Byte.toUnsignedInt(in.get());
            insns.add(new Instruction(code, jt, jf, in.getInt()));
        }
        return new Program(insns);
    }
}
