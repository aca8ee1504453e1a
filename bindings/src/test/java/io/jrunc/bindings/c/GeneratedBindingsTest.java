package io.jrunc.bindings.c;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

/**
 * Checks the committed jextract output against the committed include list.
 *
 * <p>jextract drops an {@code --include-*} it cannot match without an error, so every symbol named
 * in {@code bindings/jextract/includes.txt} is looked up here by reflection. Struct sizes are the
 * x86-64 glibc 2.36 values ({@code sizeof} from the same headers).
 */
class GeneratedBindingsTest {

    private static final String PKG = "io.jrunc.bindings.c.";

    /** kind ("function", "constant", ...) to the symbol names of that kind, in file order. */
    private static Map<String, List<String>> includes() throws IOException {
        Path file = Optional.ofNullable(System.getProperty("basedir"))
                .map(dir -> Path.of(dir, "jextract", "includes.txt"))
                .filter(Files::isRegularFile)
                .or(() -> Optional.of(Path.of("jextract", "includes.txt")).filter(Files::isRegularFile))
                .orElse(Path.of("bindings", "jextract", "includes.txt"));
        Map<String, List<String>> byKind = new TreeMap<>();
        for (String line : Files.readAllLines(file)) {
            String s = line.strip();
            if (!s.startsWith("--include-")) {
                continue;
            }
            String[] words = s.split("\\s+");
            byKind.computeIfAbsent(words[0].substring("--include-".length()), k -> new ArrayList<>())
                    .add(words[1]);
        }
        assertTrue(byKind.getOrDefault("function", List.of()).size() > 50, "includes.txt not read: " + file);
        return byKind;
    }

    private static Optional<Class<?>> type(String binaryName) {
        try {
            return Optional.of(Class.forName(PKG + binaryName));
        } catch (ClassNotFoundException e) {
            return Optional.empty();
        }
    }

    private static Optional<Method> staticMethod(Class<?> owner, String name) {
        try {
            Method m = owner.getMethod(name);
            return Modifier.isStatic(m.getModifiers()) ? Optional.of(m) : Optional.empty();
        } catch (NoSuchMethodException e) {
            return Optional.empty();
        }
    }

    /**
     * A plain function is {@code Libc.name$address()}; a variadic one is the invoker class
     * {@code Libc.name} with a static {@code address()}.
     */
    private static MemorySegment functionAddress(String name) throws ReflectiveOperationException {
        Optional<Method> plain = staticMethod(Libc.class, name + "$address");
        if (plain.isPresent()) {
            return (MemorySegment) plain.get().invoke(null);
        }
        Optional<Class<?>> invoker = type("Libc$" + name).filter(c -> Modifier.isPublic(c.getModifiers()));
        if (invoker.isPresent()) {
            return (MemorySegment) invoker.get().getMethod("address").invoke(null);
        }
        return null;
    }

    @Test
    void everyIncludedFunctionHasAnAddress() throws Exception {
        List<String> missing = new ArrayList<>();
        for (String name : includes().get("function")) {
            MemorySegment address = functionAddress(name);
            if (address == null || address.equals(MemorySegment.NULL)) {
                missing.add(name);
            }
        }
        assertEquals(List.of(), missing, "functions in includes.txt without a generated address");
    }

    @Test
    void everyIncludedConstantIsGenerated() throws Exception {
        List<String> missing = new ArrayList<>();
        for (String name : includes().get("constant")) {
            Optional<Method> m = staticMethod(Libc.class, name);
            if (m.isEmpty()) {
                missing.add(name);
            } else {
                assertNotNull(m.get().invoke(null), name);
            }
        }
        assertEquals(List.of(), missing, "constants in includes.txt not generated");
    }

    @Test
    void everyIncludedTypeIsGenerated() throws Exception {
        List<String> missing = new ArrayList<>();
        Map<String, List<String>> byKind = includes();
        for (String kind : List.of("struct", "union", "typedef")) {
            for (String name : byKind.getOrDefault(kind, List.of())) {
                // structs, unions and typedefs of them are classes with layout(); typedefs of
                // scalars are layout fields on Libc
                Optional<Method> layout = type(name).flatMap(c -> staticMethod(c, "layout"));
                if (layout.isPresent()) {
                    assertTrue(((MemoryLayout) layout.get().invoke(null)).byteSize() > 0, name);
                    continue;
                }
                Field field;
                try {
                    field = Libc.class.getField(name);
                } catch (NoSuchFieldException e) {
                    missing.add(kind + " " + name);
                    continue;
                }
                assertTrue(field.get(null) instanceof MemoryLayout, name);
            }
        }
        assertEquals(List.of(), missing, "types in includes.txt not generated");
    }

    @Test
    void structSizesMatchX8664Glibc() {
        // sizeof(...) on x86-64, glibc 2.36, Linux 6.1 UAPI headers
        assertEquals(80, posix_spawn_file_actions_t.layout().byteSize());
        assertEquals(336, posix_spawnattr_t.layout().byteSize());
        assertEquals(128, sigset_t.layout().byteSize());
        assertEquals(56, msghdr.layout().byteSize());
        assertEquals(16, cmsghdr.layout().byteSize());
        assertEquals(16, iovec.layout().byteSize());
        assertEquals(110, sockaddr_un.layout().byteSize());
        assertEquals(16, sockaddr_vm.layout().byteSize());
        assertEquals(8, pollfd.layout().byteSize());
        assertEquals(16, rlimit.layout().byteSize());
        assertEquals(8, winsize.layout().byteSize());
        assertEquals(60, termios.layout().byteSize());
        assertEquals(120, statfs.layout().byteSize());
        assertEquals(390, utsname.layout().byteSize());
        assertEquals(24, open_how.layout().byteSize());
        assertEquals(88, clone_args.layout().byteSize());
        assertEquals(32, mount_attr.layout().byteSize());
        assertEquals(8, __user_cap_header_struct.layout().byteSize());
        assertEquals(12, __user_cap_data_struct.layout().byteSize());
        assertEquals(8, sock_filter.layout().byteSize());
        assertEquals(16, sock_fprog.layout().byteSize());
        assertEquals(64, seccomp_data.layout().byteSize());
        assertEquals(968, ucontext_t.layout().byteSize());
        assertEquals(24, stack_t.layout().byteSize());
        assertEquals(128, siginfo_t.layout().byteSize());
        assertEquals(128, cpu_set_t.layout().byteSize());
    }

    @Test
    void fieldOffsetsMatchX8664Glibc() {
        assertEquals(32, msghdr.msg_control$offset());
        assertEquals(16, siginfo_t._sifields$offset() + siginfo_t._sifields._sigchld.si_pid$offset());
        assertEquals(24, siginfo_t._sifields$offset() + siginfo_t._sifields._sigchld.si_status$offset());
        assertEquals(40, ucontext_t.uc_mcontext$offset());
        assertEquals(296, ucontext_t.uc_sigmask$offset());
        assertEquals(424, ucontext_t.__fpregs_mem$offset());
        assertEquals(52, termios.c_ispeed$offset());
        assertEquals(80, statfs.f_flags$offset());
    }

    @Test
    void plainAndVariadicDowncallsWork() {
        assertEquals(ProcessHandle.current().pid(), Libc.getpid());
        long tid = Libc.syscall.makeInvoker().apply(Libc.SYS_gettid());
        assertTrue(tid > 0, "gettid returned " + tid);
        assertNotEquals(MemorySegment.NULL, Libc.mount$address());
        assertEquals(Libc.C_INT, Libc.mount$descriptor().returnLayout().orElseThrow());
    }

    /**
     * With _GNU_SOURCE glibc declares bind/connect/accept4 with a transparent union
     * (__CONST_SOCKADDR_ARG/__SOCKADDR_ARG) that C callers pass as a plain pointer; jextract
     * turns it into an 8-byte union passed by value. Swapping that slot for C_POINTER gives the
     * descriptor callers want, and the call works with the sockaddr segment itself.
     */
    @Test
    void bindWithThePointerDescriptor() throws Throwable {
        FunctionDescriptor generated = Libc.bind$descriptor();
        assertEquals(__CONST_SOCKADDR_ARG.layout(), generated.argumentLayouts().get(1));
        List<MemoryLayout> args = new ArrayList<>(generated.argumentLayouts());
        args.set(1, Libc.C_POINTER);
        MethodHandle bind = Linker.nativeLinker().downcallHandle(Libc.bind$address(),
                FunctionDescriptor.of(generated.returnLayout().orElseThrow(), args.toArray(MemoryLayout[]::new)));
        int fd = Libc.socket(Libc.AF_UNIX(), Libc.SOCK_STREAM() | Libc.SOCK_CLOEXEC(), 0);
        assertTrue(fd >= 0, "socket");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment addr = sockaddr_un.allocate(arena);
            sockaddr_un.sun_family(addr, (short) Libc.AF_UNIX());
            // abstract name: sun_path[0] == 0, then the name; no file is created
            byte[] name = ("jrunc-bindings-test-" + ProcessHandle.current().pid()).getBytes();
            MemorySegment.copy(name, 0, sockaddr_un.sun_path(addr), ValueLayout.JAVA_BYTE, 1,
                    name.length);
            int len = (int) sockaddr_un.sun_path$offset() + 1 + name.length;
            assertEquals(0, (int) bind.invokeExact(fd, addr, len));
        } finally {
            Libc.close(fd);
        }
    }
}
