package io.jrunc.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.bindings.c.Libc;
import io.jrunc.testsupport.Requirements;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The facade against the running kernel (run as root). Anything that changes per-thread state
 * (fs context, mount namespace, credentials) runs on a dedicated platform thread that ends with the
 * test, so the JVM's other threads, including JUnit's, keep the host's view.
 */
class FacadeKernelTest {

    @BeforeAll
    static void root() {
        Requirements.requireRoot("namespaces, mounts and credentials");
    }

    private static String read(String path) {
        try {
            return Files.readString(Path.of(path));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The value of a "Name:\tvalue" line of a /proc status file. */
    private static String status(String file, String name) {
        return read(file).lines().filter(l -> l.startsWith(name + ":")).findFirst()
                .map(l -> l.substring(name.length() + 1).strip()).orElseThrow(() -> new AssertionError(name));
    }

    /** Mount points (field 5) of a mountinfo file. */
    private static List<String> mountPoints(String mountinfo) {
        return mountinfo.lines().map(l -> l.split(" ")[4]).toList();
    }

    /** The calling thread gets its own fs context and mount namespace, with / made rprivate. */
    private static void privateMountNamespace() {
        FsContext.unshare();
        Namespaces.unshare(Namespaces.CLONE_NEWNS);
        Mounts.mount(null, "/", null, Mounts.MS_REC | Mounts.MS_PRIVATE, null);
    }

    @Test
    void tmpfsMountedInAThreadsNamespaceIsInvisibleToTheRestOfTheJvm(@TempDir Path dir) throws Exception {
        String target = dir.toRealPath().toString();
        String threadView = onThread(() -> {
            privateMountNamespace();
            Mounts.mount("tmpfs", target, "tmpfs", Mounts.MS_NOSUID | Mounts.MS_NODEV, "size=1m");
            return read("/proc/thread-self/mountinfo");
        });
        assertTrue(mountPoints(threadView).contains(target), threadView);
        assertFalse(mountPoints(read("/proc/self/mountinfo")).contains(target));
        assertFalse(mountPoints(read("/proc/thread-self/mountinfo")).contains(target));
    }

    @Test
    void failingCallCarriesErrnoNameAndPath(@TempDir Path dir) {
        String missing = dir.resolve("does-not-exist").toString();
        ErrnoException e = assertThrows(ErrnoException.class,
                () -> Mounts.mount("tmpfs", missing, "tmpfs", 0, null));
        assertEquals(Errno.ENOENT, e.errno());
        assertEquals("ENOENT", e.errnoName());
        assertEquals("mount", e.call());
        assertTrue(e.getMessage().contains(missing), e.getMessage());
        assertTrue(e.getMessage().contains("no such file or directory"), e.getMessage());
        assertTrue(e.goStyle().endsWith(missing + ": no such file or directory"), e.goStyle());

        ErrnoException open = assertThrows(ErrnoException.class,
                () -> FileDescriptors.open(missing, FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC));
        assertTrue(open.is(Errno.ENOENT));
        assertEquals(missing, open.subject());
    }

    @Test
    void posixSpawnReportsTheExitCode() {
        int pid;
        try (PosixSpawn spawn = new PosixSpawn()) {
            pid = spawn.cleanSignals().spawn("/bin/sh", List.of("sh", "-c", "exit 7"), List.of());
        }
        Processes.WaitStatus status = Processes.waitpid(pid, 0);
        assertEquals(pid, status.pid());
        assertTrue(status.exited());
        assertEquals(7, status.exitCode());
        assertEquals(7, status.shellStatus());
    }

    @Test
    void waitEndedLeavesTheChildToBeReaped() throws Exception {
        int pid;
        try (PosixSpawn spawn = new PosixSpawn()) {
            pid = spawn.cleanSignals().spawn("/bin/sh", List.of("sh", "-c", "exit 5"), List.of());
        }
        assertEquals(pid, Processes.waitEnded(Processes.P_PID, pid, 0));
        // still a zombie: its /proc entry is there until waitpid reaps it, which then has its status
        assertTrue(java.nio.file.Files.exists(java.nio.file.Path.of("/proc/" + pid)));
        assertEquals(pid, Processes.waitEnded(Processes.P_PID, pid, Processes.WNOHANG), "a second look sees it again");
        Processes.WaitStatus status = Processes.waitpid(pid, 0);
        assertEquals(5, status.exitCode());
        assertTrue(java.nio.file.Files.notExists(java.nio.file.Path.of("/proc/" + pid)));
        assertEquals(Errno.ECHILD, assertThrows(ErrnoException.class, () -> Processes.waitEnded(Processes.P_PID, pid, 0)).errno());
    }

    @Test
    void spawnFailureIsAnErrnoException() {
        try (PosixSpawn spawn = new PosixSpawn()) {
            ErrnoException e = assertThrows(ErrnoException.class,
                    () -> spawn.spawn("/nonexistent/program", List.of("x"), List.of()));
            assertEquals(Errno.ENOENT, e.errno());
            assertEquals("/nonexistent/program", e.subject());
        }
    }

    /** Spawns {@code argv} with stdout on a pipe and returns what it printed. */
    private static String output(java.util.function.Consumer<PosixSpawn> setUp, String... argv) {
        int[] pipe = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        int pid;
        try (PosixSpawn spawn = new PosixSpawn()) {
            spawn.dup2(pipe[1], 1);
            setUp.accept(spawn);
            pid = spawn.spawn(argv[0], List.of(argv), List.of());
        } finally {
            FileDescriptors.close(pipe[1]);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = FileDescriptors.read(pipe[0], buffer, buffer.length)) > 0; ) {
                out.write(buffer, 0, n);
            }
        } finally {
            FileDescriptors.close(pipe[0]);
        }
        assertEquals(0, Processes.waitpid(pid, 0).shellStatus(), String.join(" ", argv));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void cleanSignalsLeavesNothingBlockedOrIgnored() {
        String status = output(PosixSpawn::cleanSignals, "/bin/cat", "/proc/self/status");
        assertEquals("0000000000000000", field(status, "SigBlk"), status);
        assertEquals("0000000000000000", field(status, "SigIgn"), status);
    }

    private static String field(String status, String name) {
        return status.lines().filter(l -> l.startsWith(name + ":")).findFirst()
                .map(l -> l.substring(name.length() + 1).strip()).orElseThrow();
    }

    @Test
    void closeFromLeavesOnlyTheStandardDescriptors() {
        // a descriptor without FD_CLOEXEC would be inherited if closeFrom did nothing
        int inherited = FileDescriptors.open("/dev/null", FileDescriptors.O_RDONLY);
        try {
            String withoutCloseFrom = output(spawn -> {}, "/bin/ls", "/proc/self/fd");
            assertTrue(fds(withoutCloseFrom).contains(Integer.toString(inherited)), withoutCloseFrom);
            String listing = output(spawn -> spawn.closeFrom(3), "/bin/ls", "/proc/self/fd");
            // ls itself holds one more descriptor, the /proc/self/fd directory it reads: the lowest free
            // one, so 3 exactly when nothing from 3 up was inherited
            assertEquals(List.of("0", "1", "2", "3"), fds(listing), listing);
        } finally {
            FileDescriptors.close(inherited);
        }
    }

    private static List<String> fds(String listing) {
        return Arrays.stream(listing.split("\\s+")).filter(s -> !s.isEmpty())
                .sorted((a, b) -> Integer.compare(Integer.parseInt(a), Integer.parseInt(b))).toList();
    }

    @Test
    void socketPairPassesADescriptor(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("payload");
        Files.writeString(file, "through the passed fd");
        int[] pair = UnixSockets.pair(UnixSockets.SOCK_STREAM);
        int fd = FileDescriptors.open(file.toString(), FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
        try {
            UnixSockets.sendWithFd(pair[0], "/dev/pts/7".getBytes(StandardCharsets.UTF_8), fd);
            FileDescriptors.close(fd);
            UnixSockets.Received received = UnixSockets.receiveWithFd(pair[1], 4096);
            assertEquals("/dev/pts/7", new String(received.data(), StandardCharsets.UTF_8));
            assertTrue(received.fd() >= 0);
            try {
                byte[] buffer = new byte[100];
                int n = FileDescriptors.read(received.fd(), buffer, buffer.length);
                assertEquals("through the passed fd", new String(buffer, 0, n, StandardCharsets.UTF_8));
                // received with MSG_CMSG_CLOEXEC
                assertEquals(FileDescriptors.FD_CLOEXEC,
                        FileDescriptors.fcntl(received.fd(), FileDescriptors.F_GETFD, 0) & FileDescriptors.FD_CLOEXEC);
            } finally {
                FileDescriptors.close(received.fd());
            }
        } finally {
            FileDescriptors.closeQuietly(pair[0]);
            FileDescriptors.closeQuietly(pair[1]);
        }
    }

    @Test
    void aDescriptorThatNeverComesTimesOut(@TempDir Path dir) {
        int[] pair = UnixSockets.pair(UnixSockets.SOCK_STREAM);
        int listener = UnixSockets.listen(dir.resolve("l.sock").toString());
        try {
            long t0 = System.nanoTime();
            ErrnoException e = assertThrows(ErrnoException.class, () -> UnixSockets.receiveWithFd(pair[1], 4096, 200));
            assertTrue(e.is(Errno.ETIMEDOUT), e.getMessage());
            e = assertThrows(ErrnoException.class, () -> UnixSockets.accept(listener, 200));
            assertTrue(e.is(Errno.ETIMEDOUT), e.getMessage());
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(millis >= 400 && millis < 5_000, millis + " ms");
            // what does come within the limit is received as without one
            UnixSockets.sendWithFd(pair[0], "x".getBytes(StandardCharsets.UTF_8), pair[0]);
            UnixSockets.Received received = UnixSockets.receiveWithFd(pair[1], 4096, 200);
            assertTrue(received.fd() >= 0);
            FileDescriptors.close(received.fd());
        } finally {
            FileDescriptors.closeQuietly(listener);
            FileDescriptors.closeQuietly(pair[0]);
            FileDescriptors.closeQuietly(pair[1]);
        }
    }

    @Test
    void capabilitiesAreTheThreadsSets() throws Exception {
        Capabilities.Sets sets = onThread(Capabilities::get);
        Capabilities.Sets here = Capabilities.get();
        assertEquals(sets, here);
        assertEquals(Long.parseUnsignedLong(status("/proc/thread-self/status", "CapEff"), 16), here.effective());
        assertEquals(Long.parseUnsignedLong(status("/proc/thread-self/status", "CapPrm"), 16), here.permitted());
        assertEquals(Long.parseUnsignedLong(status("/proc/thread-self/status", "CapInh"), 16), here.inheritable());
        // a thread that drops its effective set: only that thread changes
        Capabilities.Sets dropped = onThread(() -> {
            Capabilities.Sets mine = Capabilities.get();
            Capabilities.set(new Capabilities.Sets(0, mine.permitted(), mine.inheritable()));
            assertEquals("0000000000000000", status("/proc/thread-self/status", "CapEff"));
            return Capabilities.get();
        });
        assertEquals(0, dropped.effective());
        assertEquals(here, Capabilities.get());
    }

    @Test
    void setresuidChangesOnlyTheCallingThread() throws Exception {
        String uids = onThread(() -> {
            ThreadCredentials.setresuid(65534, 65534, 65534);
            return status("/proc/thread-self/status", "Uid");
        });
        assertEquals(List.of("65534", "65534", "65534", "65534"), List.of(uids.split("\\s+")));
        assertEquals(List.of("0", "0", "0", "0"), List.of(status("/proc/thread-self/status", "Uid").split("\\s+")));
        assertEquals(List.of("0", "0", "0", "0"), List.of(status("/proc/self/status", "Uid").split("\\s+")));
    }

    @Test
    void detachedTmpfsIsAttachedInTheThreadsMountNamespace(@TempDir Path dir) throws Exception {
        String target = dir.toRealPath().toString();
        String[] seen = onThread(() -> {
            privateMountNamespace();
            int mountFd = MountApi.create("tmpfs", Map.of(), 0);
            try {
                MountApi.moveMount(mountFd, target);
            } finally {
                FileDescriptors.close(mountFd);
            }
            return new String[] {read("/proc/thread-self/mountinfo"), Long.toString(StatFs.of(target).type())};
        });
        String line = seen[0].lines().filter(l -> l.split(" ")[4].equals(target)).findFirst().orElseThrow();
        assertTrue(line.contains(" - tmpfs "), line);
        assertEquals(StatFs.TMPFS_MAGIC, Long.parseLong(seen[1]));
        assertFalse(mountPoints(read("/proc/self/mountinfo")).contains(target));
        assertNotEquals(StatFs.TMPFS_MAGIC, StatFs.of(target).type());
    }

    @Test
    void statfsOfProcIsProcfs() {
        assertEquals(Libc.PROC_SUPER_MAGIC(), StatFs.of("/proc").type());
        assertEquals(StatFs.CGROUP2_SUPER_MAGIC == StatFs.of("/sys/fs/cgroup").type(),
                read("/proc/self/mountinfo").lines().anyMatch(l -> l.split(" ")[4].equals("/sys/fs/cgroup")
                        && l.contains(" - cgroup2 ")));
    }

    @Test
    void ptyMasterAndSlavePath() throws Exception {
        Terminals.Pty pty = Terminals.open();
        try {
            assertTrue(pty.master() >= 0);
            assertTrue(pty.slavePath().matches("/dev/pts/\\d+"), pty.slavePath());
            assertTrue(Files.exists(Path.of(pty.slavePath())), pty.slavePath());
            Terminals.setSize(pty.master(), 40, 132);
            int slave = FileDescriptors.open(pty.slavePath(), FileDescriptors.O_RDWR | FileDescriptors.O_NOCTTY
                    | FileDescriptors.O_CLOEXEC);
            FileDescriptors.close(slave);
        } finally {
            FileDescriptors.close(pty.master());
        }
    }

    @Test
    void gettidIsTheThreadsId() throws Exception {
        int tid = onThread(Syscalls::gettid);
        assertNotEquals(Processes.getpid(), tid);
        assertEquals(Path.of("/proc/thread-self").toRealPath().getFileName().toString(),
                Integer.toString(Syscalls.gettid()));
    }

    private static <T> T onThread(Callable<T> body) throws Exception {
        return TestThreads.onThread("facade-test", body);
    }
}
