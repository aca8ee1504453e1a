package io.jrunc.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.bindings.c.Libc;
import io.jrunc.bindings.c.__user_cap_data_struct;
import io.jrunc.bindings.c.__user_cap_header_struct;
import io.jrunc.bindings.c.cmsghdr;
import io.jrunc.bindings.c.iovec;
import io.jrunc.bindings.c.mount_attr;
import io.jrunc.bindings.c.msghdr;
import io.jrunc.bindings.c.pollfd;
import io.jrunc.bindings.c.rand_pool_info;
import io.jrunc.bindings.c.timespec;
import io.jrunc.bindings.c.posix_spawn_file_actions_t;
import io.jrunc.bindings.c.posix_spawnattr_t;
import io.jrunc.bindings.c.rlimit;
import io.jrunc.bindings.c.sigset_t;
import io.jrunc.bindings.c.sockaddr_un;
import io.jrunc.bindings.c.statfs;
import io.jrunc.bindings.c.termios;
import io.jrunc.bindings.c.winsize;
import io.jrunc.testsupport.HostLimitation;
import io.jrunc.testsupport.Requirements;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.UnionLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The facade does not use the generated package at run time (loading {@code Libc} and its function
 * holders costs start-up time: docs/bindings.md, "Start-up"), so its constants, struct offsets and
 * function signatures are literals. This test makes the generated code their source of truth: every
 * literal must equal what jextract produced from the system headers. The x86-64 values are what the
 * generated code describes; on another architecture the checks that depend on it are skipped.
 */
class FacadeMatchesGeneratedTest {

    private static final boolean X86_64 = SyscallNumbers.ARCH.equals("amd64") || SyscallNumbers.ARCH.equals("x86_64");

    private static final List<Class<?>> FACADE = List.of(Mounts.class, MountApi.class, Namespaces.class,
            FileDescriptors.class, FsContext.class, Processes.class, Prctl.class, ThreadCredentials.class,
            Capabilities.class, PosixSpawn.class, UnixSockets.class, Terminals.class, Uts.class, StatFs.class,
            Errno.class, Syscalls.class, Bpf.class, EventFds.class, Clocks.class, RandomPool.class);

    /** Facade constant name -> generated constant name, where they differ. */
    private static final Map<String, String> ALIASES = Map.of(
            "Capabilities.VERSION_3", "_LINUX_CAPABILITY_VERSION_3",
            "Processes.RLIM_NLIMITS", "RLIMIT_NLIMITS");

    /**
     * Facade constants with no generated counterpart: they are checked against generated layouts
     * below (sizes/offsets), or the header defining them is not in headers.h (ST_* is sys/statvfs.h),
     * or, for siginfo_t's si_pid (a union member jextract is not asked for), a real waitid shows it
     * (FacadeKernelTest).
     */
    private static final Set<String> NOT_GENERATED = Set.of(
            "StatFs.ST_RDONLY", "StatFs.ST_NOSUID", "StatFs.ST_NODEV", "StatFs.ST_NOEXEC",
            "StatFs.ST_SYNCHRONOUS", "StatFs.ST_MANDLOCK", "StatFs.ST_NOATIME", "StatFs.ST_NODIRATIME",
            "StatFs.ST_RELATIME",
            "UnixSockets.SUN_PATH_MAX", "Capabilities.DATA_COUNT",
            "FileDescriptors.AARCH64", "Bpf.LOAD_RETRIES", "Processes.SI_PID");

    private static boolean isLayoutLiteral(String name) {
        return name.matches(".*_SIZE|SUN_.*|IOV_.*|MSG_IOV.*|MSG_CONTROL.*|CMSG_.*|F_TYPE|F_FLAGS|WS_.*"
                + "|HEADER_.*|DATA_.*|TERMIOS_.*|RLIM_CUR|RLIM_MAX|POLL_FD|POLL_EVENTS|POLL_REVENTS|ATTR_.*|PROG_INFO_.*"
                + "|TV_SEC|TV_NSEC|POOL_INFO_.*");
    }

    private static Number generated(String name) throws ReflectiveOperationException {
        Method m = Libc.class.getMethod(name);
        return (Number) m.invoke(null);
    }

    private static boolean hasGenerated(String name) {
        try {
            Method m = Libc.class.getMethod(name);
            return m.getParameterCount() == 0 && Number.class.isAssignableFrom(box(m.getReturnType()));
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private static Class<?> box(Class<?> c) {
        return c == int.class ? Integer.class : c == long.class ? Long.class : c == short.class ? Short.class : c;
    }

    private static boolean sameValue(Number facade, Number generated) {
        long f = facade.longValue();
        long g = generated.longValue();
        // unsigned C values keep their bit pattern in a Java int
        return f == g || (generated instanceof Integer && f == Integer.toUnsignedLong(generated.intValue()));
    }

    @Test
    void everyFacadeConstantEqualsTheGeneratedOne() throws Exception {
        List<String> mismatches = new ArrayList<>();
        List<String> unchecked = new ArrayList<>();
        int checked = 0;
        for (Class<?> c : FACADE) {
            for (Field f : c.getDeclaredFields()) {
                int mod = f.getModifiers();
                if (!Modifier.isStatic(mod) || !Modifier.isFinal(mod) || !f.getType().isPrimitive()
                        || f.getType() == boolean.class) {
                    continue;
                }
                String key = c.getSimpleName() + "." + f.getName();
                String cName = ALIASES.getOrDefault(key, f.getName());
                if (NOT_GENERATED.contains(key) || isLayoutLiteral(f.getName()) && !hasGenerated(cName)) {
                    continue;
                }
                if (!hasGenerated(cName)) {
                    unchecked.add(key);
                    continue;
                }
                f.setAccessible(true);
                Number facade = (Number) f.get(null);
                Number gen = generated(cName);
                checked++;
                if (!sameValue(facade, gen)) {
                    mismatches.add(key + " = " + facade + " but Libc." + cName + "() = " + gen);
                }
            }
        }
        assertEquals(List.of(), mismatches);
        assertEquals(List.of(), unchecked, "facade constants with no generated counterpart: add them to "
                + "select.txt, ALIASES or NOT_GENERATED");
        assertTrue(checked > 100, "only " + checked + " constants checked");
    }

    @Test
    void syscallNumbersMatchTheGeneratedX86Table() throws Exception {
        HostLimitation.skipUnless(X86_64, "the generated SYS_* constants are x86-64's");
        List<String> mismatches = new ArrayList<>();
        for (Field f : SyscallNumbers.class.getFields()) {
            if (f.getType() != long.class) {
                continue;
            }
            String cName = "SYS_" + f.getName().toLowerCase();
            assertTrue(hasGenerated(cName), cName + " is not generated: add it to select.txt");
            long facade = f.getLong(null);
            long gen = generated(cName).longValue();
            if (facade != gen) {
                mismatches.add(f.getName() + " = " + facade + " but Libc." + cName + "() = " + gen);
            }
        }
        assertEquals(List.of(), mismatches);
    }

    /**
     * The aarch64 column cannot be checked against generated code (there is none); the kernel's
     * asm-generic/unistd.h, which linux-libc-dev installs on every architecture, is the table aarch64
     * uses.
     */
    @Test
    void aarch64SyscallNumbersMatchAsmGenericUnistd() throws Exception {
        Path header = Path.of("/usr/include/asm-generic/unistd.h");
        Requirements.require(Files.isRegularFile(header), header + ": install the Debian package linux-libc-dev"
                + " (`make deps` does)");
        Map<String, String> defines = new HashMap<>();
        Matcher m = Pattern.compile("(?m)^#define\\s+(__NR(?:3264)?_\\w+)\\s+(\\S+)").matcher(Files.readString(header));
        while (m.find()) {
            defines.putIfAbsent(m.group(1), m.group(2));
        }
        Map<String, Long> aarch64 = Map.ofEntries(Map.entry("PIVOT_ROOT", 41L), Map.entry("SETRESUID", 147L),
                Map.entry("SETRESGID", 149L), Map.entry("SETGROUPS", 159L), Map.entry("CAPGET", 90L),
                Map.entry("CAPSET", 91L), Map.entry("GETTID", 178L), Map.entry("IOCTL", 29L),
                Map.entry("FCNTL", 25L), Map.entry("SECCOMP", 277L), Map.entry("BPF", 280L),
                Map.entry("OPENAT", 56L), Map.entry("PRCTL", 167L), Map.entry("KEYCTL", 219L),
                Map.entry("MKDIRAT", 34L), Map.entry("FCHOWNAT", 54L), Map.entry("UNLINKAT", 35L),
                Map.entry("SYMLINKAT", 36L), Map.entry("READLINKAT", 78L), Map.entry("FCHMOD", 52L),
                Map.entry("UTIMENSAT", 88L), Map.entry("RENAMEAT2", 276L), Map.entry("STATX", 291L));
        List<String> mismatches = new ArrayList<>();
        for (Field f : SyscallNumbers.class.getFields()) {
            if (f.getType() != long.class) {
                continue;
            }
            String value = defines.get("__NR_" + f.getName().toLowerCase());
            while (value != null && value.startsWith("__NR")) {
                value = defines.get(value);
            }
            assertTrue(value != null, f.getName() + " not in " + header);
            long expected = Long.parseLong(value);
            long declared = SyscallNumbers.ARCH.equals("aarch64") ? f.getLong(null)
                    : aarch64.getOrDefault(f.getName(), f.getLong(null));
            if (declared != expected) {
                mismatches.add(f.getName() + " aarch64 = " + declared + " but asm-generic says " + expected);
            }
        }
        assertEquals(List.of(), mismatches);
        // the aarch64 literals in SyscallNumbers are the ones listed above
        String source = Files.readString(sourceOf(SyscallNumbers.class));
        for (var e : aarch64.entrySet()) {
            assertTrue(Pattern.compile("\\b" + e.getKey() + " = X86_64 \\? \\d+ : " + e.getValue() + ";")
                    .matcher(source).find(), e.getKey() + " aarch64 literal is not " + e.getValue());
        }
    }

    private static Path sourceOf(Class<?> c) {
        String rel = "src/main/java/" + c.getName().replace('.', '/') + ".java";
        String basedir = System.getProperty("basedir");
        for (Path p : List.of(Path.of(basedir == null ? "." : basedir, rel), Path.of(rel), Path.of("bindings", rel))) {
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        throw new AssertionError("cannot find " + rel);
    }

    @Test
    void errnoNamesMatchTheGeneratedValues() throws Exception {
        List<String> mismatches = new ArrayList<>();
        int named = 0;
        for (int e = 1; e < 256; e++) {
            String name = Errno.name(e);
            if (name.startsWith("errno ")) {
                continue;
            }
            named++;
            if (hasGenerated(name) && generated(name).intValue() != e) {
                mismatches.add(e + " is named " + name + " but Libc." + name + "() = " + generated(name));
            }
            if (!hasGenerated(name)) {
                mismatches.add(e + " is named " + name + ", which errno.h does not define");
            }
        }
        assertEquals(List.of(), mismatches);
        assertEquals(131, named, "errno 1-133 without the unused 41 and 58");
    }

    @Test
    void capabilityNamesAreInNumberOrder() throws Exception {
        for (int i = 0; i < Capabilities.NAMES.size(); i++) {
            assertEquals(i, generated(Capabilities.NAMES.get(i)).intValue(), Capabilities.NAMES.get(i));
        }
        assertEquals(Capabilities.NAMES.size() - 1, Libc.CAP_LAST_CAP());
    }

    private static long offset(GroupLayout layout, String field) {
        return layout.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }

    @Test
    void structLiteralsMatchTheGeneratedLayouts() {
        HostLimitation.skipUnless(X86_64 || SyscallNumbers.ARCH.equals("aarch64"), "the layouts checked are LP64's");
        // sockets
        assertEquals(sockaddr_un.sizeof(), UnixSockets.SOCKADDR_UN_SIZE);
        assertEquals(sockaddr_un.sun_family$offset(), UnixSockets.SUN_FAMILY);
        assertEquals(sockaddr_un.sun_path$offset(), UnixSockets.SUN_PATH);
        assertEquals(sockaddr_un.sun_path$layout().byteSize(), 108);
        assertEquals(iovec.sizeof(), UnixSockets.IOVEC_SIZE);
        assertEquals(iovec.iov_base$offset(), UnixSockets.IOV_BASE);
        assertEquals(iovec.iov_len$offset(), UnixSockets.IOV_LEN);
        assertEquals(msghdr.sizeof(), UnixSockets.MSGHDR_SIZE);
        assertEquals(msghdr.msg_iov$offset(), UnixSockets.MSG_IOV);
        assertEquals(msghdr.msg_iovlen$offset(), UnixSockets.MSG_IOVLEN);
        assertEquals(msghdr.msg_control$offset(), UnixSockets.MSG_CONTROL);
        assertEquals(msghdr.msg_controllen$offset(), UnixSockets.MSG_CONTROLLEN);
        assertEquals(cmsghdr.sizeof(), UnixSockets.CMSGHDR_SIZE);
        assertEquals(cmsghdr.cmsg_len$offset(), UnixSockets.CMSG_LEN);
        assertEquals(cmsghdr.cmsg_level$offset(), UnixSockets.CMSG_LEVEL);
        assertEquals(cmsghdr.cmsg_type$offset(), UnixSockets.CMSG_TYPE);
        // CMSG_ALIGN(x) rounds up to sizeof(size_t)
        long align = Libc.C_LONG.byteSize();
        assertEquals(cmsghdr.sizeof() + ((Integer.BYTES + align - 1) / align) * align, UnixSockets.CMSG_SPACE_ONE_FD);
        assertEquals(cmsghdr.sizeof() + Integer.BYTES, UnixSockets.CMSG_LEN_ONE_FD);
        // statfs, winsize, rlimit, pollfd
        assertEquals(statfs.sizeof(), StatFs.STATFS_SIZE);
        assertEquals(statfs.f_type$offset(), StatFs.F_TYPE);
        assertEquals(statfs.f_flags$offset(), StatFs.F_FLAGS);
        assertEquals(8, statfs.f_type$layout().byteSize());
        assertEquals(8, statfs.f_flags$layout().byteSize());
        // timespec, rand_pool_info
        assertEquals(timespec.sizeof(), Clocks.TIMESPEC_SIZE);
        assertEquals(timespec.tv_sec$offset(), Clocks.TV_SEC);
        assertEquals(timespec.tv_nsec$offset(), Clocks.TV_NSEC);
        assertEquals(rand_pool_info.entropy_count$offset(), RandomPool.POOL_INFO_ENTROPY_COUNT);
        assertEquals(rand_pool_info.buf_size$offset(), RandomPool.POOL_INFO_BUF_SIZE);
        assertEquals(rand_pool_info.buf$offset(), RandomPool.POOL_INFO_BUF);
        assertEquals(winsize.sizeof(), Terminals.WINSIZE_SIZE);
        assertEquals(winsize.ws_row$offset(), Terminals.WS_ROW);
        assertEquals(winsize.ws_col$offset(), Terminals.WS_COL);
        assertEquals(termios.sizeof(), Terminals.TERMIOS_SIZE);
        assertEquals(termios.c_iflag$offset(), Terminals.TERMIOS_IFLAG);
        assertEquals(termios.c_oflag$offset(), Terminals.TERMIOS_OFLAG);
        assertEquals(termios.c_cflag$offset(), Terminals.TERMIOS_CFLAG);
        assertEquals(termios.c_lflag$offset(), Terminals.TERMIOS_LFLAG);
        assertEquals(termios.c_cc$offset(), Terminals.TERMIOS_CC);
        assertEquals(rlimit.sizeof(), Processes.RLIMIT_SIZE);
        assertEquals(rlimit.rlim_cur$offset(), Processes.RLIM_CUR);
        assertEquals(rlimit.rlim_max$offset(), Processes.RLIM_MAX);
        assertEquals(pollfd.sizeof(), FileDescriptors.POLLFD_SIZE);
        assertEquals(pollfd.fd$offset(), FileDescriptors.POLL_FD);
        assertEquals(pollfd.events$offset(), FileDescriptors.POLL_EVENTS);
        assertEquals(pollfd.revents$offset(), FileDescriptors.POLL_REVENTS);
        // mount_setattr's struct mount_attr
        assertEquals(mount_attr.sizeof(), MountApi.ATTR_SIZE);
        assertEquals(mount_attr.attr_set$offset(), MountApi.ATTR_SET);
        assertEquals(mount_attr.attr_clr$offset(), MountApi.ATTR_CLR);
        assertEquals(mount_attr.propagation$offset(), MountApi.ATTR_PROPAGATION);
        assertEquals(mount_attr.userns_fd$offset(), MountApi.ATTR_USERNS_FD);
        // posix_spawn's opaque types and sigset_t
        assertEquals(posix_spawn_file_actions_t.sizeof(), PosixSpawn.FILE_ACTIONS_SIZE);
        assertEquals(posix_spawnattr_t.sizeof(), PosixSpawn.ATTR_SIZE);
        assertEquals(sigset_t.sizeof(), PosixSpawn.SIGSET_SIZE);
        // capabilities
        assertEquals(__user_cap_header_struct.sizeof(), Capabilities.HEADER_SIZE);
        assertEquals(__user_cap_header_struct.version$offset(), Capabilities.HEADER_VERSION);
        assertEquals(__user_cap_header_struct.pid$offset(), Capabilities.HEADER_PID);
        assertEquals(__user_cap_data_struct.sizeof(), Capabilities.DATA_SIZE);
        assertEquals(__user_cap_data_struct.effective$offset(), Capabilities.DATA_EFFECTIVE);
        assertEquals(__user_cap_data_struct.permitted$offset(), Capabilities.DATA_PERMITTED);
        assertEquals(__user_cap_data_struct.inheritable$offset(), Capabilities.DATA_INHERITABLE);
        assertEquals(Libc._LINUX_CAPABILITY_U32S_3(), Capabilities.DATA_COUNT);
    }

    /** facade class, handle field, C function, whether the handle captures errno. */
    private record Fn(Class<?> owner, String field, String function, boolean capturing) {}

    private static final List<Fn> FUNCTIONS = List.of(
            new Fn(Mounts.class, "MOUNT", "mount", true),
            new Fn(Mounts.class, "UMOUNT2", "umount2", true),
            new Fn(Namespaces.class, "UNSHARE", "unshare", true),
            new Fn(Namespaces.class, "SETNS", "setns", true),
            new Fn(FsContext.class, "CHDIR", "chdir", true),
            new Fn(FsContext.class, "FCHDIR", "fchdir", true),
            new Fn(FsContext.class, "CHROOT", "chroot", true),
            new Fn(FsContext.class, "UMASK", "umask", false),
            new Fn(FileDescriptors.class, "CLOSE", "close", true),
            new Fn(FileDescriptors.class, "READ", "read", true),
            new Fn(FileDescriptors.class, "WRITE", "write", true),
            new Fn(FileDescriptors.class, "DUP3", "dup3", true),
            new Fn(FileDescriptors.class, "PIPE2", "pipe2", true),
            new Fn(FileDescriptors.class, "MKNOD", "mknod", true),
            new Fn(FileDescriptors.class, "MKDIRAT", "mkdirat", true),
            new Fn(FileDescriptors.class, "FCHOWN", "fchown", true),
            new Fn(FileDescriptors.class, "CHOWN", "chown", true),
            new Fn(FileDescriptors.class, "POLL", "poll", true),
            new Fn(EventFds.class, "EVENTFD", "eventfd", true),
            new Fn(Processes.class, "GETPID", "getpid", false),
            new Fn(Processes.class, "KILL", "kill", true),
            new Fn(Processes.class, "WAITPID", "waitpid", true),
            new Fn(Processes.class, "WAITID", "waitid", true),
            new Fn(Processes.class, "PRLIMIT", "prlimit", true),
            new Fn(Processes.class, "SETSID", "setsid", true),
            new Fn(Processes.class, "EXIT", "_exit", true),
            new Fn(Syscalls.class, "SYSCALL", "syscall", true),
            new Fn(UnixSockets.class, "SOCKET", "socket", true),
            new Fn(UnixSockets.class, "CONNECT", "connect", true),
            new Fn(UnixSockets.class, "BIND", "bind", true),
            new Fn(UnixSockets.class, "LISTEN", "listen", true),
            new Fn(UnixSockets.class, "ACCEPT4", "accept4", true),
            new Fn(UnixSockets.class, "SENDMSG", "sendmsg", true),
            new Fn(UnixSockets.class, "RECVMSG", "recvmsg", true),
            new Fn(UnixSockets.class, "SOCKETPAIR", "socketpair", true),
            new Fn(Uts.class, "SETHOSTNAME", "sethostname", true),
            new Fn(Uts.class, "SETDOMAINNAME", "setdomainname", true),
            new Fn(StatFs.class, "STATFS", "statfs", true),
            new Fn(Clocks.class, "CLOCK_SETTIME", "clock_settime", true),
            new Fn(PosixSpawn.Handles.class, "SPAWN", "posix_spawn", false),
            new Fn(PosixSpawn.Handles.class, "FA_INIT", "posix_spawn_file_actions_init", false),
            new Fn(PosixSpawn.Handles.class, "FA_DESTROY", "posix_spawn_file_actions_destroy", false),
            new Fn(PosixSpawn.Handles.class, "FA_DUP2", "posix_spawn_file_actions_adddup2", false),
            new Fn(PosixSpawn.Handles.class, "FA_OPEN", "posix_spawn_file_actions_addopen", false),
            new Fn(PosixSpawn.Handles.class, "FA_CLOSE", "posix_spawn_file_actions_addclose", false),
            new Fn(PosixSpawn.Handles.class, "FA_CHDIR", "posix_spawn_file_actions_addchdir_np", false),
            new Fn(PosixSpawn.Handles.class, "FA_CLOSEFROM", "posix_spawn_file_actions_addclosefrom_np", false),
            new Fn(PosixSpawn.Handles.class, "ATTR_INIT", "posix_spawnattr_init", false),
            new Fn(PosixSpawn.Handles.class, "ATTR_DESTROY", "posix_spawnattr_destroy", false),
            new Fn(PosixSpawn.Handles.class, "ATTR_FLAGS", "posix_spawnattr_setflags", false),
            new Fn(PosixSpawn.Handles.class, "ATTR_SIGMASK", "posix_spawnattr_setsigmask", false),
            new Fn(PosixSpawn.Handles.class, "ATTR_SIGDEFAULT", "posix_spawnattr_setsigdefault", false),
            new Fn(PosixSpawn.Handles.class, "SIGEMPTYSET", "sigemptyset", false),
            new Fn(PosixSpawn.Handles.class, "SIGFILLSET", "sigfillset", false));

    /** glibc declares these with a transparent union for the address, which C passes as a pointer. */
    private static final Set<String> TRANSPARENT_UNION_ARG1 = Set.of("bind", "connect", "accept4");

    /** The generated descriptor: {@code f$descriptor()}, or for a variadic f its fixed part. */
    private static FunctionDescriptor generatedDescriptor(String function) throws ReflectiveOperationException {
        try {
            return (FunctionDescriptor) Libc.class.getMethod(function + "$descriptor").invoke(null);
        } catch (NoSuchMethodException variadic) {
            Class<?> invoker = Class.forName(Libc.class.getName() + "$" + function);
            Object inv = invoker.getMethod("makeInvoker", MemoryLayout[].class).invoke(null, (Object) new MemoryLayout[0]);
            return (FunctionDescriptor) invoker.getMethod("descriptor").invoke(inv);
        }
    }

    /**
     * The Java carrier types of a downcall handle fix the C types here (int, long and pointer have
     * distinct carriers; no float or struct-by-value parameters are used), so comparing the handle's
     * type with the generated descriptor's method type checks the hand-written descriptor.
     */
    @Test
    void everyHandleHasTheGeneratedSignature() throws Exception {
        HostLimitation.skipUnless(X86_64 || SyscallNumbers.ARCH.equals("aarch64"), "the C types checked are LP64's");
        List<String> mismatches = new ArrayList<>();
        Set<String> listed = new TreeSet<>();
        for (Fn fn : FUNCTIONS) {
            listed.add(fn.owner().getName() + "." + fn.field());
            Field f = fn.owner().getDeclaredField(fn.field());
            f.setAccessible(true);
            Object value = f.get(null);
            // A NativeFunction is linked through the shared shape; what must match the header is the
            // C signature it declares (and which decides how its result is narrowed).
            MethodType actual = value instanceof NativeFunction nf ? nf.declared.toMethodType()
                    : ((MethodHandle) value).type();
            if (fn.capturing() && value instanceof MethodHandle) {
                assertEquals(MemorySegment.class, actual.parameterType(0), fn + " does not capture errno");
                actual = actual.dropParameterTypes(0, 1);
            }
            FunctionDescriptor gen = generatedDescriptor(fn.function());
            if (TRANSPARENT_UNION_ARG1.contains(fn.function())) {
                MemoryLayout arg1 = gen.argumentLayouts().get(1);
                assertInstanceOf(UnionLayout.class, arg1, fn.function() + ": jextract's transparent union");
                assertEquals(8, arg1.byteSize());
                List<MemoryLayout> args = new ArrayList<>(gen.argumentLayouts());
                args.set(1, Libc.C_POINTER);
                gen = FunctionDescriptor.of(gen.returnLayout().orElseThrow(), args.toArray(MemoryLayout[]::new));
            }
            MethodType expected = gen.toMethodType();
            boolean variadic = expected.parameterCount() < actual.parameterCount()
                    || !hasMethod(fn.function() + "$descriptor");
            MethodType comparable = variadic ? actual.dropParameterTypes(expected.parameterCount(),
                    actual.parameterCount()) : actual;
            if (!comparable.equals(expected)) {
                mismatches.add(fn.function() + ": facade " + actual + ", generated " + expected);
            }
        }
        // every handle of the facade is in the list above
        Set<String> declared = new TreeSet<>();
        List<Class<?>> owners = new ArrayList<>(FACADE);
        owners.add(PosixSpawn.Handles.class);
        for (Class<?> c : owners) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())
                        && (f.getType() == MethodHandle.class || f.getType() == NativeFunction.class)) {
                    declared.add(c.getName() + "." + f.getName());
                }
            }
        }
        assertEquals(declared, listed, "handles missing from FUNCTIONS");
        assertEquals(List.of(), mismatches);
    }

    private static boolean hasMethod(String name) {
        try {
            Libc.class.getMethod(name);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
