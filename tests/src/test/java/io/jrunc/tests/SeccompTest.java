package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.UnixSockets;
import io.jrunc.testsupport.HostLimitation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * linux.seccomp through the binary, asserted from inside the container: what a denied, killed, 32-bit
 * or notified syscall does there, and that exec'd processes are filtered too.
 */
@ExtendWith(JruncExtension.class)
class SeccompTest {

    /** A profile: {@code defaultAction} and rules of {@code {names..., action, errnoRet}}. */
    static ObjectNode profile(String defaultAction, String... architectures) {
        ObjectNode p = Jrunc.JSON.createObjectNode();
        p.put("defaultAction", defaultAction);
        ArrayNode archs = p.putArray("architectures");
        for (String a : architectures) {
            archs.add(a);
        }
        p.putArray("syscalls");
        return p;
    }

    static ObjectNode rule(ObjectNode profile, String action, String... names) {
        ObjectNode r = ((ArrayNode) profile.get("syscalls")).addObject();
        ArrayNode n = r.putArray("names");
        for (String name : names) {
            n.add(name);
        }
        r.put("action", action);
        return r;
    }

    @Test
    void aDeniedMkdirFailsWithEpermAndEverythingElseWorks(Sandbox sb) {
        ObjectNode p = profile("SCMP_ACT_ALLOW", "SCMP_ARCH_X86_64");
        rule(p, "SCMP_ACT_ERRNO", "mkdir", "mkdirat").put("errnoRet", 1);
        Bundle b = sb.bundle().seccomp(p).sh("mkdir /tmp/x; echo \"mkdir $?\"; touch /tmp/y && echo touched; "
                + "grep -E '^Seccomp' /proc/self/status | sed 's/^/status /'");
        Result r = sb.jrunc().in(b.dir(), "run", sb.id("mkdir")).ok();
        Facts f = new Facts(r.stdout());
        assertEquals("1", f.one("mkdir"), r.describe("mkdir must fail"));
        assertTrue(r.stderr().contains("Operation not permitted"), r.describe("EPERM's message"));
        assertTrue(r.stdout().contains("touched"), r.describe("other syscalls work"));
        assertEquals("2", f.status().get("Seccomp"));
        assertEquals("1", f.status().get("Seccomp_filters"));
    }

    /** A name libseccomp does not know is skipped, as runc skips it, with a debug line saying so. */
    @Test
    void anUnknownNameIsSkippedWithADebugLine(Sandbox sb) {
        ObjectNode p = profile("SCMP_ACT_ALLOW");
        rule(p, "SCMP_ACT_ERRNO", "no_such_syscall", "mkdir", "mkdirat");
        Bundle b = sb.bundle().seccomp(p).sh("mkdir /tmp/u 2>/dev/null; echo \"mkdir $?\"");
        Result r = sb.jrunc().in(b.dir(), "--debug", "run", sb.id("unknown")).ok();
        assertEquals("1", new Facts(r.stdout()).one("mkdir"), r.describe("the known names still apply"));
        assertTrue(r.stderr().contains("unknown seccomp syscall \\\"no_such_syscall\\\" ignored"), r.describe("debug line"));
    }

    @Test
    void killProcessEndsTheContainerWithSigsys(Sandbox sb) {
        ObjectNode p = profile("SCMP_ACT_ALLOW");
        rule(p, "SCMP_ACT_KILL_PROCESS", "mkdir", "mkdirat");
        Bundle b = sb.bundle().seccomp(p).sh("echo before; exec mkdir /tmp/k");
        Result r = sb.jrunc().in(b.dir(), "run", sb.id("kill")).exit(128 + 31);
        assertTrue(r.stdout().contains("before"), r.describe("ran until mkdir"));
        assertFalse(Files.exists(b.rootfs().resolve("tmp/k")), "mkdir never ran");
    }

    @Test
    void execdProcessesAreFilteredToo(Sandbox sb) {
        ObjectNode p = profile("SCMP_ACT_ALLOW");
        rule(p, "SCMP_ACT_ERRNO", "mkdir", "mkdirat").put("errnoRet", 13);
        Bundle b = sb.bundle().seccomp(p).args("sleep", "1000");
        String id = sb.id("exec");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "run", "--detach", id).ok();
        Result r = j.run("exec", id, "sh", "-c", "mkdir /tmp/z; echo \"mkdir $?\"; "
                + "grep -E '^(Seccomp|NoNewPrivs)' /proc/self/status | sed 's/^/status /'").ok();
        Facts f = new Facts(r.stdout());
        assertEquals("1", f.one("mkdir"));
        assertTrue(r.stderr().contains("Permission denied"), r.describe("the profile's errno, EACCES"));
        assertEquals("2", f.status().get("Seccomp"));
        assertEquals("1", f.status().get("Seccomp_filters"));
        j.run("delete", "--force", id).ok();
    }

    /**
     * Default deny, allowing only what busybox's shell and the applets below need: the container runs,
     * and a call outside the list fails with the default errno.
     */
    @Test
    void aStrictDefaultDenyProfileRunsABusyboxShell(Sandbox sb) {
        ObjectNode p = profile("SCMP_ACT_ERRNO", "SCMP_ARCH_X86_64");
        p.put("defaultErrnoRet", 1);
        // syscall names, one list (the shell, its forks and the applets run below)
        rule(p, "SCMP_ACT_ALLOW", ("read write writev openat open close fstat newfstatat stat lstat statx lseek"
                + " mmap munmap mprotect brk rt_sigaction rt_sigprocmask rt_sigreturn ioctl access faccessat"
                + " faccessat2 execve exit exit_group wait4 clone fork vfork getpid getppid getuid geteuid getgid"
                + " getegid getpgrp setpgid dup2 dup3 fcntl getcwd chdir uname getdents64 arch_prctl set_tid_address"
                + " prlimit64 readlink readlinkat pipe pipe2 poll futex getrandom sysinfo kill tgkill gettid"
                + " nanosleep clock_nanosleep").split(" "));
        Bundle b = sb.bundle().seccomp(p).sh("echo \"hello $(echo nested)\"; ls / >/dev/null && echo listed; "
                + "hostname x 2>/dev/null; echo \"sethostname $?\"");
        Result r = sb.jrunc().in(b.dir(), "run", sb.id("strict")).ok();
        Facts f = new Facts(r.stdout());
        assertEquals("nested", f.one("hello"), r.describe("the shell runs"));
        assertTrue(r.stdout().contains("listed"), r.describe("ls runs"));
        assertEquals("1", f.one("sethostname"), r.describe("sethostname is not in the list"));
    }

    /** A profile that denies a call the child makes after loading the filter is refused up front. */
    @Test
    void aProfileDenyingTheChildsOwnCallsIsRefused(Sandbox sb) {
        ObjectNode p = profile("SCMP_ACT_ALLOW");
        rule(p, "SCMP_ACT_ERRNO", "execve");
        Bundle b = sb.bundle().seccomp(p).args("true");
        Result r = sb.jrunc().in(b.dir(), "run", sb.id("execve")).exit(1);
        assertTrue(r.stderr().contains("linux.seccomp: the profile gives execve SCMP_ACT_ERRNO(1)"), r.describe("names the call"));
        assertFalse(r.stderr().contains("Exception"), r.describe("no stack trace"));
        assertEquals(List.of(), sb.leftovers());
    }

    /** LOG and SPEC_ALLOW are passed to seccomp(2), TSYNC accepted; WAIT_KILLABLE_RECV without a listener refused. */
    @Test
    void filterFlags(Sandbox sb) {
        ObjectNode p = profile("SCMP_ACT_ALLOW");
        rule(p, "SCMP_ACT_ERRNO", "mkdir", "mkdirat");
        p.putArray("flags").add("SECCOMP_FILTER_FLAG_LOG").add("SECCOMP_FILTER_FLAG_SPEC_ALLOW")
                .add("SECCOMP_FILTER_FLAG_TSYNC");
        Bundle b = sb.bundle().seccomp(p).sh("grep -E '^Seccomp:' /proc/self/status | sed 's/^/status /'");
        Result r = sb.jrunc().in(b.dir(), "run", sb.id("flags")).ok();
        assertEquals("2", new Facts(r.stdout()).status().get("Seccomp"), r.describe("filtered"));

        p.putArray("flags").add("SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV");
        b.seccomp(p);
        r = sb.jrunc().in(b.dir(), "run", sb.id("killable")).exit(1);
        assertTrue(r.stderr().contains("linux.seccomp.flags: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs an"
                + " SCMP_ACT_NOTIFY rule"), r.describe("refused by name"));
        assertEquals(List.of(), sb.leftovers());
    }

    /**
     * features says what the compiler takes: runc's actions and operators, the architectures jrunc has
     * tables for (each of them among runc's, and each usable in a profile), the flags.
     */
    @Test
    void featuresReportWhatIsCompiled(Sandbox sb) throws Exception {
        JsonNode ours = Jrunc.JSON.readTree(sb.jrunc().run("features").ok().stdout()).get("linux").get("seccomp");
        JsonNode runc = Jrunc.JSON.readTree(sb.runc().run("features").ok().stdout()).get("linux").get("seccomp");
        assertTrue(ours.get("enabled").asBoolean());
        assertEquals(runc.get("actions"), ours.get("actions"));
        assertEquals(runc.get("operators"), ours.get("operators"));
        List<String> archs = new java.util.ArrayList<>();
        ours.get("archs").forEach(a -> archs.add(a.asText()));
        assertEquals(List.of("SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM", "SCMP_ARCH_X32", "SCMP_ARCH_X86", "SCMP_ARCH_X86_64"), archs);
        List<String> runcArchs = new java.util.ArrayList<>();
        runc.get("archs").forEach(a -> runcArchs.add(a.asText()));
        assertTrue(runcArchs.containsAll(archs), runcArchs.toString());
        List<String> supported = new java.util.ArrayList<>();
        ours.get("supportedFlags").forEach(f -> supported.add(f.asText()));
        assertTrue(supported.containsAll(List.of("SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
                "SECCOMP_FILTER_FLAG_LOG")), supported.toString());
        String[] v = System.getProperty("os.version").split("[.-]");
        boolean killable = Integer.parseInt(v[0]) > 5 || Integer.parseInt(v[0]) == 5 && Integer.parseInt(v[1]) >= 19;
        assertEquals(killable, supported.contains("SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"), "Linux 5.19's flag");

        ObjectNode p = profile("SCMP_ACT_ALLOW", archs.toArray(String[]::new));
        rule(p, "SCMP_ACT_ERRNO", "mkdir", "mkdirat");
        Bundle b = sb.bundle().seccomp(p).sh("mkdir /tmp/a 2>/dev/null; echo \"mkdir $?\"");
        assertEquals("1", new Facts(sb.jrunc().in(b.dir(), "run", sb.id("archs")).ok().stdout()).one("mkdir"),
                "a profile naming every reported architecture");
        // an architecture runc knows and jrunc has no table for is refused by name
        ObjectNode mips = profile("SCMP_ACT_ALLOW", "SCMP_ARCH_MIPS");
        b.seccomp(mips);
        Result r = sb.jrunc().in(b.dir(), "run", sb.id("mips")).exit(1);
        assertTrue(r.stderr().contains("linux.seccomp.architectures[0]: SCMP_ARCH_MIPS is not supported by jrunc"),
                r.describe("refused by name"));
        assertEquals(List.of(), sb.leftovers());
    }

    @Test
    void anInvalidProfileGetsOneErrorLineNamingTheField(Sandbox sb) {
        ObjectNode p = profile("SCMP_ACT_ALLOW");
        rule(p, "SCMP_ACT_FOO", "mkdir");
        Bundle b = sb.bundle().seccomp(p).args("true");
        Result r = sb.jrunc().in(b.dir(), "run", sb.id("invalid")).exit(1);
        assertTrue(r.stderr().contains("linux.seccomp.syscalls[0].action"), r.describe("names the path"));
        assertEquals(1, r.stderr().strip().lines().count(), r.describe("one line"));
        assertEquals(List.of(), sb.leftovers());
    }

    /**
     * A 32-bit syscall (int 0x80, i386 numbers) is decided by the profile's x86 section: mkdir denied
     * with EACCES for x86 and with EPERM for x86-64. The test program is a static i386 ELF of a few
     * instructions that the test writes out byte by byte (no C, no assembler: the bytes are listed
     * below with their meaning); it exits with the errno of its mkdir.
     */
    @Test
    void a32BitSyscallIsDecidedByTheX86Rules(Sandbox sb) throws Exception {
        HostLimitation.skipUnless(Files.exists(Path.of("/proc/sys/abi/vsyscall32")), "kernel without IA-32 emulation");
        // This session's host kernel (6.18 in a VM) has IA-32 emulation configured but off: a 32-bit
        // program gets ENOEXEC and an int 0x80 from a 64-bit one SIGSEGV, so no 32-bit syscall can be
        // made at all. The same case then runs in the qemu guest (JruncGuestTest).
        HostLimitation.skipUnless(runs32BitPrograms(sb), "this kernel has IA-32 emulation configured but refuses to run a 32-bit"
                + " program (execve: Exec format error), as some VM hosts' kernels do; JruncGuestTest runs this case");
        ObjectNode p = profile("SCMP_ACT_ALLOW", "SCMP_ARCH_X86_64", "SCMP_ARCH_X86");
        rule(p, "SCMP_ACT_ERRNO", "mkdir").put("errnoRet", 13);
        Bundle b = sb.bundle().seccomp(p).sh("/mkdir32; echo \"i386 $?\"; mkdir /x64; echo \"x86-64 $?\"");
        Path elf = b.rootfs().resolve("mkdir32");
        Files.write(elf, I386.mkdirProgram("/x32"));
        Files.setPosixFilePermissions(elf, PosixFilePermissions.fromString("rwxr-xr-x"));
        Result r = sb.jrunc().in(b.dir(), "run", sb.id("i386")).ok();
        Facts f = new Facts(r.stdout());
        assertEquals("13", f.one("i386"), r.describe("the x86 rule's errno"));
        assertEquals("1", f.one("x86-64"), r.describe("x86-64 mkdir (83) is denied too; i386 39 would be getpid on x86-64"));

        // without x86 in the filter, a 32-bit syscall is a foreign architecture: libseccomp's bad-arch
        // action, which kills the process (SIGSYS; the shell reports 128+31)
        p = profile("SCMP_ACT_ALLOW", "SCMP_ARCH_X86_64");
        b.seccomp(p);
        r = sb.jrunc().in(b.dir(), "run", sb.id("i386-bad")).ok();
        assertEquals("159", new Facts(r.stdout()).one("i386"), r.describe("bad architecture"));
    }

    /** The same program run on the host, unfiltered: it makes its directory and exits 0 where 32-bit programs run. */
    private static boolean runs32BitPrograms(Sandbox sb) throws Exception {
        Path probe = sb.file("probe32");
        Files.write(probe, I386.mkdirProgram(sb.file("probe32.d").toString()));
        Files.setPosixFilePermissions(probe, PosixFilePermissions.fromString("rwx------"));
        try {
            Process p = new ProcessBuilder(probe.toString()).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0 && Files.isDirectory(sb.file("probe32.d"));
        } catch (java.io.IOException e) {
            if (String.valueOf(e.getMessage()).contains("Exec format error")) {
                return false;
            }
            throw e;
        }
    }

    /**
     * A profile is compiled once per state root and later creates load its program from
     * ROOT/@cache/seccomp (what makes a profile cheap for podman's, containerd's and Docker's creates, all
     * of which send the same one): the program taken from the cache is the one the kernel enforces, the
     * cache is root's alone, and an entry that is not exactly this profile's (torn, or another file) is
     * never used: the profile is compiled again.
     */
    @Test
    void aProfileIsCompiledOnceAndItsProgramComesFromTheCacheAfter(Sandbox sb) throws Exception {
        ObjectNode p = profile("SCMP_ACT_ALLOW", "SCMP_ARCH_X86_64");
        rule(p, "SCMP_ACT_ERRNO", "mkdir", "mkdirat");
        Bundle b = sb.bundle().seccomp(p).sh("mkdir /x; echo \"mkdir $?\"");
        Path cache = sb.jrunc().root().resolve("@cache/seccomp");
        Result first = sb.jrunc().in(b.dir(), "--debug", "run", sb.id("cache1")).ok();
        Result second = sb.jrunc().in(b.dir(), "--debug", "run", sb.id("cache2")).ok();
        List<Path> entries;
        try (var list = Files.list(cache)) {
            entries = list.toList();
        }
        assertEquals(1, entries.size(), "one entry: " + entries);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cache)));
        Files.write(entries.getFirst(), new byte[] {1, 2, 3});
        Result third = sb.jrunc().in(b.dir(), "--debug", "run", sb.id("cache3")).ok();
        assertAll(
                () -> assertTrue(first.stderr().contains("profile compiled, kept in"), first.describe("compiled")),
                () -> assertTrue(second.stderr().contains("profile's program from"), second.describe("from the cache")),
                () -> assertTrue(third.stderr().contains("profile compiled, kept in"), third.describe("a torn entry")),
                () -> assertEquals("1", new Facts(first.stdout()).one("mkdir")),
                () -> assertEquals("1", new Facts(second.stdout()).one("mkdir"), second.describe("the cached program")),
                () -> assertEquals("1", new Facts(third.stdout()).one("mkdir")));
    }

    /** SCMP_ACT_NOTIFY: the listener fd reaches listenerPath with the state, and an agent answers. */
    @Test
    void aNotifiedSyscallIsAnsweredByTheAgent(Sandbox sb) throws Exception {
        Path socket = sb.file("agent.sock");
        int listener = UnixSockets.listen(socket.toString());
        ObjectNode p = profile("SCMP_ACT_ALLOW");
        p.put("listenerPath", socket.toString());
        p.put("listenerMetadata", "test-metadata");
        // a killable wait for the agent's answer (Linux 5.19): the flag needs the listener
        p.putArray("flags").add("SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV");
        rule(p, "SCMP_ACT_NOTIFY", "mkdir", "mkdirat");
        Bundle b = sb.bundle().seccomp(p).sh("mkdir /tmp/n; echo \"mkdir $?\" > /result");
        String id = sb.id("notify");
        Jrunc j = sb.jrunc();
        Jrunc.Background create = j.start(b.dir(), "create", id);
        int conn = UnixSockets.accept(listener);
        UnixSockets.Received got = UnixSockets.receiveWithFd(conn, 64 * 1024);
        FileDescriptors.close(conn);
        FileDescriptors.close(listener);
        create.await(Jrunc.TIMEOUT).ok();
        try {
            JsonNode state = Jrunc.JSON.readTree(new String(got.data(), StandardCharsets.UTF_8));
            assertEquals("seccompFd", state.get("fds").get(0).asText());
            assertEquals("test-metadata", state.get("metadata").asText());
            assertEquals(id, state.get("state").get("id").asText());
            assertEquals("creating", state.get("state").get("status").asText());
            assertTrue(got.fd() >= 0, "an fd came with the state");
            Jrunc.Background start = j.start(null, "start", id);
            start.await(Jrunc.TIMEOUT).ok();
            // answer the one notification: mkdir fails with EROFS (30), as the agent decides
            Notifications.answerOne(got.fd(), -30);
            Wait.until(Jrunc.TIMEOUT, "the container ends", () -> j.state(id).get("status").asText().equals("stopped"));
        } finally {
            FileDescriptors.closeQuietly(got.fd());
        }
        assertEquals("mkdir 1\n", Files.readString(b.rootfs().resolve("result")), "the agent's answer: mkdir failed");
        assertFalse(Files.exists(b.rootfs().resolve("tmp/n")), "the agent said no");
        j.run("delete", id).ok();
    }
}
