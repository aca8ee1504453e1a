package io.jrunc.cli;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.LibcChain;
import io.jrunc.bindings.Namespaces;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.runtime.ContainerException;
import io.jrunc.runtime.ForegroundProcess;
import io.jrunc.runtime.Rootless;
import io.jrunc.runtime.RootlessConfig;
import io.jrunc.runtime.init.ChildWaits;
import io.jrunc.runtime.init.IdMaps;
import io.jrunc.spec.LinuxIDMapping;
import io.jrunc.spec.LinuxNamespace;
import io.jrunc.spec.Spec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * jrunc run by an unprivileged user: create, run and exec need namespaces that such a user can make
 * only inside a user namespace of its own, and a JVM (always multithreaded) can neither unshare nor
 * join a user namespace. So jrunc runs its own command line again (the same JVM binary, arguments and
 * environment, from /proc/self/exe and /proc/self/cmdline, plus {@value #MARKER}) in a child that a
 * chain of libc calls makes ({@link LibcChain}, no Java in it):
 *
 * <ul>
 *   <li>create and run: the child is cloned into a new user namespace (and a mount namespace it owns,
 *       where procfs can later be made), blocks reading a pipe while this JVM writes its maps from
 *       outside ({@link IdMaps#writeUnprivileged}), then executes the stage. A config that joins a
 *       user namespace by path gets a child that setns-es into it instead.
 *   <li>exec: the child setns-es into the container's user namespace (/proc/PID/ns/user; the user
 *       owns it), then executes the stage.
 * </ul>
 *
 * <p>The stage, a fresh JVM, checks before anything else that it is where it was meant to be ({@link
 * #verifyCreate}, {@link #verifyExec}: a user namespace other than the initial one, euid 0, exactly
 * the config's maps, or the container's namespace) and refuses otherwise; then it runs the command as
 * root in a user namespace does, with the config's user namespace taken as entered
 * ({@link RootlessConfig#withUserNamespaceEntered}). This JVM passes its stdio through, forwards the
 * signals it gets to the stage (which forwards them to the container's process for run and exec) and
 * exits with the stage's status.
 */
final class UserNamespaceStage {
    private UserNamespaceStage() {}

    /** Environment variable that marks the re-executed jrunc; its value says what it must check. */
    static final String MARKER = "_JRUNC_USERNS_STAGE";
    private static final String NEW = "new", JOIN = "join:", EXEC = "exec:";

    /** Whether an unprivileged jrunc must run this command in a user namespace first. */
    static boolean needed() {
        return System.getenv(MARKER) == null && Rootless.unprivileged();
    }

    /** Whether this JVM is the re-executed stage. */
    static boolean isStage() {
        return System.getenv(MARKER) != null;
    }

    /** create and run: validates the config for a rootless container and runs the stage; its exit status. */
    static int createOrRun(Spec spec, boolean foreground) throws IOException {
        RootlessConfig.validate(spec);
        LinuxNamespace userns = RootlessConfig.userNamespace(spec);
        if (userns.path() != null && !userns.path().isEmpty()) {
            int fd = openNamespace(userns.path(), "linux.namespaces: user namespace path");
            try {
                return run(fd, 0, JOIN + link(Path.of("/proc/self/fd/" + fd)), null, foreground);
            } finally {
                FileDescriptors.closeQuietly(fd);
            }
        }
        return run(-1, Namespaces.CLONE_NEWUSER | Namespaces.CLONE_NEWNS, NEW, spec, foreground);
    }

    /** exec into a container whose process is {@code pid}: the stage joins its user namespace. */
    static int exec(int pid, boolean foreground) throws IOException {
        Path ns = Path.of("/proc", Integer.toString(pid), "ns", "user");
        int fd = openNamespace(ns.toString(), "the container's user namespace");
        try {
            return run(fd, 0, EXEC + pid, null, foreground);
        } finally {
            FileDescriptors.closeQuietly(fd);
        }
    }

    private static int openNamespace(String path, String what) {
        try {
            return FileDescriptors.open(path, FileDescriptors.O_RDONLY | FileDescriptors.O_CLOEXEC);
        } catch (ErrnoException e) {
            throw new ContainerException(what + ": " + e.goStyle());
        }
    }

    /**
     * Clones the child ({@code cloneFlags}; setns into {@code userNsFd} first when it is not -1), writes
     * the maps of a new namespace ({@code spec} non-null), releases the child and waits for it.
     */
    private static int run(int userNsFd, int cloneFlags, String marker, Spec spec, boolean foreground) throws IOException {
        String exe = link(Path.of("/proc/self/exe"));
        List<String> argv = commandLine();
        List<String> env = new ArrayList<>();
        for (Map.Entry<String, String> e : System.getenv().entrySet()) {
            env.add(e.getKey() + "=" + e.getValue());
        }
        env.add(MARKER + "=" + marker);
        int[] gate = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
        int pid;
        try {
            try (LibcChain chain = new LibcChain()) {
                long buffer = chain.zeroed(8);
                if (userNsFd >= 0) {
                    chain.call("setns", userNsFd, Namespaces.CLONE_NEWUSER);
                }
                chain.call("read", gate[0], buffer, 1);
                chain.unblockSignals();
                chain.call("execve", chain.string(exe), chain.strings(argv), chain.strings(env));
                // A copy of this JVM's memory, not a share (no CLONE_VM): the child may wait at the gate
                // while this thread goes on, and the chain's memory is freed.
                pid = chain.run(cloneFlags, 127);
            }
        } catch (RuntimeException e) {
            FileDescriptors.closeQuietly(gate[0]);
            FileDescriptors.closeQuietly(gate[1]);
            throw e;
        }
        FileDescriptors.closeQuietly(gate[0]);
        try {
            if (spec != null) {
                IdMaps.writeUnprivileged(pid, spec.linux().uidMappings(), spec.linux().gidMappings(),
                        Rootless.effectiveUid(), effectiveGid());
            }
            FileDescriptors.write(gate[1], new byte[] {1});
        } catch (IOException | RuntimeException e) {
            try {
                Processes.kill(pid, Signals.SIGKILL);
            } catch (ErrnoException ignored) {
                // gone already
            }
            ChildWaits.waitpid(pid, 0);
            throw new ContainerException("writing the user namespace's id maps: " + e.getMessage(), e);
        } finally {
            FileDescriptors.closeQuietly(gate[1]);
        }
        if (foreground) {
            return ForegroundProcess.forwardSignalsTo(pid).waitForExit();
        }
        return ChildWaits.waitpid(pid, 0).shellStatus();
    }

    /** This JVM's command line as the kernel has it: the launcher's java, its flags, -jar, the arguments. */
    private static List<String> commandLine() throws IOException {
        byte[] raw = Files.readAllBytes(Path.of("/proc/self/cmdline"));
        List<String> argv = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] == 0) {
                argv.add(new String(raw, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        return argv;
    }

    private static long effectiveGid() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Gid:")) {
                return Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
            }
        }
        throw new IOException("/proc/self/status has no Gid line");
    }

    private static String link(Path path) throws IOException {
        return Files.readSymbolicLink(path).toString();
    }

    /**
     * In the stage of create or run: refuses unless this process is euid 0 in a user namespace other
     * than the initial one whose maps are exactly the config's (or, for a config that joins one by
     * path, that namespace).
     */
    static void verifyCreate(Spec spec) throws IOException {
        String marker = System.getenv(MARKER);
        requireRootInUserNamespace();
        if (marker.startsWith(JOIN)) {
            expectNamespace(marker.substring(JOIN.length()));
            return;
        }
        if (!marker.equals(NEW)) {
            throw refused("it was started for \"" + marker + "\", not for create");
        }
        expectMap("uid_map", spec.linux().uidMappings());
        expectMap("gid_map", spec.linux().gidMappings());
    }

    /** In the stage of exec: refuses unless this process is in the user namespace of the container's {@code pid}. */
    static void verifyExec(int pid) throws IOException {
        String marker = System.getenv(MARKER);
        requireRootInUserNamespace();
        if (!marker.equals(EXEC + pid)) {
            throw refused("it was started for \"" + marker + "\", not to exec into the process " + pid);
        }
        expectNamespace(link(Path.of("/proc", Integer.toString(pid), "ns", "user")));
    }

    private static void requireRootInUserNamespace() {
        if (!Rootless.inUserNamespace()) {
            throw refused("it is in the initial user namespace");
        }
        if (Rootless.effectiveUid() != 0) {
            throw refused("its effective uid is " + Rootless.effectiveUid() + " there, not 0");
        }
    }

    private static void expectNamespace(String expected) throws IOException {
        String seen = link(Path.of("/proc/self/ns/user"));
        if (!seen.equals(expected)) {
            throw refused("it is in " + seen + ", not " + expected);
        }
    }

    private static void expectMap(String file, List<LinuxIDMapping> expected) throws IOException {
        List<String> seen = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/self", file))) {
            if (!line.isBlank()) {
                seen.add(String.join(" ", line.trim().split("\\s+")));
            }
        }
        List<String> wanted = new ArrayList<>();
        for (LinuxIDMapping m : expected) {
            wanted.add(m.containerID() + " " + m.hostID() + " " + m.size());
        }
        java.util.Collections.sort(seen);
        java.util.Collections.sort(wanted);
        if (!seen.equals(wanted)) {
            throw refused("its " + file + " is " + seen + ", not the config's " + wanted);
        }
    }

    private static ContainerException refused(String why) {
        return new ContainerException("the re-executed jrunc is not in the user namespace made for it: " + why);
    }
}
