package io.jrunc.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.testsupport.Requirements;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Docker 20.10 (Debian's docker.io) with jrunc as its default runtime: dockerd hands each container to
 * containerd, whose containerd-shim-runc-v2 calls `jrunc --root EXEC/runtime-runc/NAMESPACE --log
 * B/log.json --log-format json` with create/start/exec/pause/resume/update/kill/delete, as it does
 * for runc. Docker's own choices reach jrunc unchanged: its default seccomp profile, its 14 default
 * capabilities, the sysctls it sets in a container's private network namespace
 * (net.ipv4.ip_unprivileged_port_start, ping_group_range) and its libnetwork-setkey prestart hook.
 *
 * Everything is private to this class: a containerd of its own (config, root, state, sockets and the
 * opt plugin's directory, which dockerd's embedded containerd would put in /opt/containerd), and a
 * dockerd with its own data root, exec root, socket, pid file, daemon.json (the trust key there, not in
 * /etc/docker), cgroup parent and containerd namespace, no bridge and no iptables rules: containers run
 * with `--network none` (a network namespace of their own holding only lo) or `--network host`. The
 * client is Debian's /usr/bin/docker, named explicitly since a newer CLI may come first on PATH, with
 * its own DOCKER_CONFIG. No registry is reachable: the busybox rootfs tar is `docker import`ed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DockerTest {
    /** Debian's client, matching dockerd's API version. */
    private static final Path DOCKER = Path.of("/usr/bin/docker");
    /** The only directory dockerd 20.10 makes outside its roots (pkg/plugins' socket directory). */
    private static final Path PLUGIN_SOCKETS = Path.of("/run/docker/plugins");
    /** docker's 14 default capabilities (oci/caps/defaults.go) as the kernel prints a capability set. */
    private static final String DOCKER_DEFAULT_CAPS = "00000000a80425fb";
    private Path work;
    private Path socket;
    /** Also dockerd's containerd namespace and the containers' cgroup parent (cgroupfs: /PARENT/ID). */
    private String name;
    private String cgroupParent;
    /** Where the shim keeps jrunc's state: dockerd's exec root, runtime-runc, the containerd namespace. */
    private Path runtimeRoot;
    private boolean pluginSocketsExisted;
    private Process containerd;
    private Path containerdSocket;
    private Path rootfsTar;
    private Process dockerd;
    private Command cmd;
    private Path jrunc;
    private final List<String> names = new ArrayList<>();

    @BeforeAll
    void startDockerd() throws Exception {
        E2eHost.requireRootAndCommands("docker.io (with containerd)", "dockerd", "containerd",
                "containerd-shim-runc-v2", "tar");
        Requirements.require(Files.isExecutable(DOCKER), DOCKER + ": install the Debian package docker.io (`make deps` does)");
        jrunc = E2eHost.jrunc();
        pluginSocketsExisted = Files.exists(PLUGIN_SOCKETS);
        work = Files.createTempDirectory("jt-docker-");
        name = work.getFileName().toString();
        cgroupParent = "/" + name;
        socket = work.resolve("docker.sock");
        Path exec = work.resolve("exec");
        runtimeRoot = exec.resolve("runtime-runc").resolve(name);
        cmd = new Command(work.resolve("out"), Map.of("DOCKER_CONFIG", work.resolve("client").toString()));

        containerdSocket = work.resolve("containerd.sock");
        containerd = E2eHost.startContainerd(work.resolve("containerd"), containerdSocket, work.resolve("containerd.toml"),
                work.resolve("containerd.log"));
        assertTrue(E2eHost.eventually(30, () -> Files.exists(containerdSocket) || !containerd.isAlive()),
                "containerd did not come up: " + Command.read(work.resolve("containerd.log")));

        dockerd = startDockerd(work, name, containerdSocket, List.of());
        Command.Result info = cmd.run(docker("info", "--format", "{{.DefaultRuntime}} {{.CgroupDriver}}"));
        assertEquals("jrunc cgroupfs\n", info.out(), info.describe());

        rootfsTar = E2eHost.busyboxRootfsTar(work, cmd);
        Command.Result imported = cmd.run(docker("import", "--change", "ENV " + E2eHost.PATH_ENV,
                "--change", "CMD [\"sh\"]", rootfsTar.toString(), E2eHost.IMAGE));
        assertEquals(0, imported.exitCode(), imported.describe());
    }

    /** Whatever a test left (it failed half-way): its containers removed, running or not. */
    @AfterEach
    void removeContainers() {
        for (String n : names) {
            cmd.run(docker("rm", "--force", n));
        }
        names.clear();
    }

    @AfterAll
    void stopDockerd() throws Exception {
        if (work == null) {
            return;
        }
        List<String> states = List.of();
        try {
            if (dockerd != null) {
                Command.Result all = cmd.run(docker("ps", "--all", "--quiet"));
                for (String id : all.out().split("\n")) {
                    if (!id.isBlank()) {
                        cmd.run(docker("rm", "--force", id.strip()));
                    }
                }
                cmd.run(docker("rmi", "--force", E2eHost.IMAGE));
                stop(dockerd);
            }
            states = runtimeStates();
            if (containerd != null) {
                stop(containerd);
            }
        } finally {
            // Shims mention containerd's socket, in work: any left means a container was not deleted.
            List<String> leftovers = E2eHost.killProcessesMentioning(work.toString());
            List<String> mounts = E2eHost.unmountUnder(work, cmd);
            E2eHost.removeCgroupTree(cgroupParent);
            E2eHost.deleteTree(work);
            if (!pluginSocketsExisted) {
                for (Path dir : List.of(PLUGIN_SOCKETS, PLUGIN_SOCKETS.getParent())) {
                    try {
                        Files.deleteIfExists(dir);
                    } catch (IOException notEmpty) {
                        break; // someone else's dockerd uses it now
                    }
                }
            }
            assertTrue(leftovers.isEmpty(), "processes left behind: " + leftovers);
            assertEquals(List.of(), states, "jrunc state left behind in " + runtimeRoot);
            // dockerd leaves its handle on the host's network namespace mounted (libnetwork's
            // netns/default): dockerd's, not a container's.
            assertTrue(mounts.stream().allMatch(m -> m.equals(work.resolve("exec/netns/default").toString())),
                    "mounts left behind: " + mounts);
        }
    }

    /** SIGTERM (dockerd then stops its containers itself), SIGKILL after 20 s. */
    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
        }
    }

    /**
     * A dockerd on this class's containerd with everything of its own under {@code dir}: data root, exec
     * root, socket, pid file, daemon.json (dockerd writes its trust key to /etc/docker/key.json unless
     * that says otherwise), log; containerd namespace {@code namespace}; jrunc as the default runtime;
     * {@code flags} added. Returns once it answers on its socket.
     */
    private Process startDockerd(Path dir, String namespace, Path containerdSocket, List<String> flags)
            throws IOException {
        Path daemonJson = dir.resolve("daemon.json");
        Files.writeString(daemonJson, "{\"deprecated-key-path\": \"" + dir.resolve("key.json") + "\"}\n");
        List<String> command = new ArrayList<>(List.of("dockerd", "--config-file", daemonJson.toString(),
                "--containerd", containerdSocket.toString(), "--containerd-namespace", namespace,
                "--containerd-plugins-namespace", namespace + "-plugins",
                "--data-root", dir.resolve("data").toString(), "--exec-root", dir.resolve("exec").toString(),
                "--host", "unix://" + dir.resolve("docker.sock"), "--pidfile", dir.resolve("docker.pid").toString(),
                "--bridge", "none", "--iptables=false", "--ip6tables=false", "--ip-masq=false",
                "--storage-driver", "overlay2", "--exec-opt", "native.cgroupdriver=cgroupfs",
                "--cgroup-parent", cgroupParent,
                "--add-runtime", "jrunc=" + jrunc, "--default-runtime", "jrunc"));
        command.addAll(flags);
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(dir.resolve("dockerd.log").toFile())
                .redirectInput(Path.of("/dev/null").toFile()).start();
        assertTrue(E2eHost.eventually(30, () -> !p.isAlive()
                        || cmd.run(docker(dir.resolve("docker.sock"), "version")).exitCode() == 0) && p.isAlive(),
                "dockerd did not come up: " + Command.read(dir.resolve("dockerd.log")));
        return p;
    }

    private List<String> docker(String... args) {
        return docker(socket, args);
    }

    private static List<String> docker(Path socket, String... args) {
        return Command.list(List.of(DOCKER.toString(), "--host", "unix://" + socket), args);
    }

    /** `docker run --network none` with {@code flags} before the image. */
    private List<String> run(List<String> flags, String... command) {
        return runOn("none", flags, command);
    }

    private List<String> runOn(String network, List<String> flags, String... command) {
        List<String> c = docker("run", "--network", network);
        c.addAll(flags);
        c.add(E2eHost.IMAGE);
        c.addAll(List.of(command));
        return c;
    }

    /** --name and a --cidfile (so that {@link #id} knows even a --rm container's ID), removed after the test. */
    private List<String> container(String shortName) {
        String n = "jt-docker-" + shortName;
        names.add(n);
        return List.of("--name", n, "--cidfile", work.resolve("cid-" + n).toString());
    }

    private String id(String shortName) {
        return Command.read(work.resolve("cid-jt-docker-" + shortName)).strip();
    }

    private String inspect(String shortName, String format) {
        Command.Result r = cmd.run(docker("inspect", "--format", format, "jt-docker-" + shortName));
        assertEquals(0, r.exitCode(), r.describe());
        return r.out().strip();
    }

    private long pid(String shortName) {
        return Long.parseLong(inspect(shortName, "{{.State.Pid}}"));
    }

    /** Waits for docker's log of the container to contain {@code text}. */
    private void awaitLog(String shortName, String text) {
        assertTrue(E2eHost.eventually(30, () -> cmd.run(docker("logs", "jt-docker-" + shortName)).out().contains(text)),
                cmd.run(docker("logs", "jt-docker-" + shortName)).describe());
    }

    /**
     * The container's cgroup file as the host's kernel shows it: {@code v1} in whichever v1 hierarchy
     * has it (this hybrid host), else {@code v2} in the unified tree.
     */
    private String cgroupFile(String id, String v1, String v2) {
        List<Path> dirs = E2eHost.cgroupDirs(cgroupParent + "/" + id);
        for (String file : List.of(v1, v2)) {
            for (Path dir : dirs) {
                if (Files.exists(dir.resolve(file))) {
                    return Command.read(dir.resolve(file)).strip();
                }
            }
        }
        throw new AssertionError("no " + v1 + " or " + v2 + " in " + dirs);
    }

    /** Container IDs with jrunc state left under the shim's runtime root. */
    private List<String> runtimeStates() {
        if (!Files.isDirectory(runtimeRoot)) {
            return List.of();
        }
        try (Stream<Path> states = Files.list(runtimeRoot)) {
            // @cache: compiled seccomp programs (SeccompCache), not a container's state
            return states.map(p -> p.getFileName().toString()).filter(n -> !n.equals("@cache")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * After `docker rm` (or --rm): no jrunc state, no cgroup, no shim for the ID, the container's process
     * gone (when {@code pid} > 0), and of everything docker mounts per container (the overlay rootfs,
     * the network namespace's handle) nothing left.
     */
    private void assertNothingLeft(String id, long pid) {
        assertFalse(id.isEmpty(), "no container ID");
        assertTrue(E2eHost.eventually(10, () -> E2eHost.processesMentioning(id).isEmpty()),
                "shim left behind: " + E2eHost.processesMentioning(id));
        if (pid > 0) {
            assertTrue(E2eHost.eventually(10, () -> ProcessHandle.of(pid).isEmpty()),
                    "process " + pid + " of " + id + " left behind");
        }
        assertFalse(Files.exists(runtimeRoot.resolve(id)), "jrunc state of " + id + " left in " + runtimeRoot);
        assertEquals(List.of(), E2eHost.cgroupDirs(cgroupParent + "/" + id), "cgroup of " + id + " left behind");
        assertEquals(List.of(), E2eHost.mountsUnder(work.resolve("data/overlay2")), "overlay mounts left behind");
        // netns/default is dockerd's handle on the host's namespace, made for the first --network host.
        assertEquals(List.of(), E2eHost.mountsUnder(work.resolve("exec/netns")).stream()
                .filter(m -> !m.endsWith("/netns/default")).toList(), "network namespace handles left behind");
    }

    @Test
    void runPrintsTheContainersOutputAndExitsWithItsStatus() {
        Command.Result r = cmd.run(run(Command.list(container("run1"), "--rm"),
                "sh", "-c", "echo hello from jrunc; echo pid=$$; exit 7"));
        assertEquals(7, r.exitCode(), r.describe());
        assertEquals("hello from jrunc\npid=1\n", r.out(), r.describe());
        assertNothingLeft(id("run1"), 0);
    }

    /** docker maps the runtime's "executable file not found" to 127, and shows jrunc's message. */
    @Test
    void missingExecutableExits127WithJruncsMessage() {
        Command.Result r = cmd.run(run(Command.list(container("missing1"), "--rm"), "no-such-program"));
        assertEquals(127, r.exitCode(), r.describe());
        assertTrue(r.err().contains("OCI runtime create failed: jrunc create failed: unable to start container "
                + "process: exec: \"no-such-program\": executable file not found in $PATH"), r.describe());
        assertNothingLeft(id("missing1"), 0);
    }

    /**
     * Docker's default seccomp profile (no --security-opt): one filter, and it is docker's, since it
     * refuses unshare(2) to a container without CAP_SYS_ADMIN (the kernel alone lets root unshare a
     * user namespace, as ContainerdTest shows). The capability sets are docker's 14 defaults.
     */
    @Test
    void runIsFilteredByDockersDefaultProfileWithDockersCapabilities() {
        Command.Result r = cmd.run(run(Command.list(container("seccomp1"), "--rm"), "sh", "-c",
                "grep -E '^(Seccomp|CapEff|CapBnd)' /proc/self/status; unshare -U true 2>&1; echo unshare=$?"));
        assertEquals(0, r.exitCode(), r.describe());
        assertEquals("CapEff:\t" + DOCKER_DEFAULT_CAPS + "\nCapBnd:\t" + DOCKER_DEFAULT_CAPS
                + "\nSeccomp:\t2\nSeccomp_filters:\t1\nunshare: unshare(0x10000000): Operation not permitted\n"
                + "unshare=1\n", r.out(), r.describe());
        assertNothingLeft(id("seccomp1"), 0);
    }

    @Test
    void capDropAllLeavesNoCapability() {
        Command.Result r = cmd.run(run(Command.list(container("nocaps1"), "--rm", "--cap-drop", "ALL"), "sh", "-c",
                "grep -E '^Cap' /proc/self/status; touch /tmp/f; chown 1 /tmp/f 2>&1; echo chown=$?"));
        assertEquals(0, r.exitCode(), r.describe());
        assertEquals("CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
                + "CapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\n"
                + "chown: /tmp/f: Operation not permitted\nchown=1\n", r.out(), r.describe());
        assertNothingLeft(id("nocaps1"), 0);
    }

    /** --read-only: the root is mounted read-only; docker's /dev/shm stays writable. */
    @Test
    void readOnlyRootRefusesWrites() {
        Command.Result r = cmd.run(run(Command.list(container("ro1"), "--rm", "--read-only"), "sh", "-c",
                "touch /x 2>&1; echo touch=$?; touch /dev/shm/ok && echo shm ok; "
                        + "awk '$2 == \"/\" { split($4, o, \",\"); print o[1] }' /proc/self/mounts"));
        assertEquals(0, r.exitCode(), r.describe());
        assertEquals("touch: /x: Read-only file system\ntouch=1\nshm ok\nro\n", r.out(), r.describe());
        assertNothingLeft(id("ro1"), 0);
    }

    /** -t: the shim passes --console-socket and relays the pty master jrunc sends over it. */
    @Test
    void ttyRunGetsAPseudoTerminal() {
        Command.Result r = cmd.run(run(Command.list(container("tty1"), "--rm", "--tty"), "sh", "-c",
                "tty; [ -t 0 ] && [ -t 1 ] && echo stdin and stdout are terminals; exit 3"));
        assertEquals(3, r.exitCode(), r.describe());
        assertEquals("/dev/pts/0\r\nstdin and stdout are terminals\r\n", r.out(), r.describe());
        assertNothingLeft(id("tty1"), 0);
    }

    /** `docker logs` keeps what the container wrote to stdout and to stderr apart. */
    @Test
    void logsKeepStdoutAndStderrApart() {
        Command.Result run = cmd.run(run(Command.list(container("logs1"), "--detach"), "sh", "-c",
                "echo to stdout; echo to stderr >&2; exit 5"));
        assertEquals(0, run.exitCode(), run.describe());
        Command.Result wait = cmd.run(docker("wait", "jt-docker-logs1"));
        assertEquals("5\n", wait.out(), wait.describe());
        Command.Result logs = cmd.run(docker("logs", "jt-docker-logs1"));
        assertEquals(0, logs.exitCode(), logs.describe());
        assertEquals("to stdout\n", logs.out(), logs.describe());
        assertEquals("to stderr\n", logs.err(), logs.describe());
        Command.Result rm = cmd.run(docker("rm", "jt-docker-logs1"));
        assertEquals(0, rm.exitCode(), rm.describe());
        assertNothingLeft(id("logs1"), 0);
    }

    /**
     * --memory and --pids-limit land in the container's cgroup (read on the host), and `docker update`
     * (the shim's `jrunc update --resources -`) changes them in place.
     */
    @Test
    void limitsAreSetOnTheContainersCgroupAndUpdated() {
        Command.Result run = cmd.run(run(Command.list(container("limits1"), "--detach", "--memory", "64m",
                "--pids-limit", "50"), "sleep", "1000"));
        assertEquals(0, run.exitCode(), run.describe());
        String id = id("limits1");
        long pid = pid("limits1");
        assertTrue(Command.read(Path.of("/proc/" + pid + "/cgroup")).contains(":" + cgroupParent + "/" + id + "\n"),
                Command.read(Path.of("/proc/" + pid + "/cgroup")));
        assertEquals("67108864", cgroupFile(id, "memory.limit_in_bytes", "memory.max"));
        assertEquals("50", cgroupFile(id, "pids.max", "pids.max"));

        Command.Result update = cmd.run(docker("update", "--memory", "32m", "--memory-swap", "64m",
                "--pids-limit", "20", "jt-docker-limits1"));
        assertEquals(0, update.exitCode(), update.describe());
        assertEquals("33554432", cgroupFile(id, "memory.limit_in_bytes", "memory.max"));
        assertEquals("20", cgroupFile(id, "pids.max", "pids.max"));
        assertEquals("running", inspect("limits1", "{{.State.Status}}"));

        Command.Result rm = cmd.run(docker("rm", "--force", "jt-docker-limits1"));
        assertEquals(0, rm.exitCode(), rm.describe());
        assertNothingLeft(id, pid);
    }

    @Test
    void detachedContainerTakesExecsPausesAndStopsOnSigterm() {
        Command.Result run = cmd.run(run(Command.list(container("detached1"), "--detach"), "sh", "-c",
                "echo started; trap 'echo got TERM; exit 7' TERM; while true; do sleep 0.2; done"));
        assertEquals(0, run.exitCode(), run.describe());
        String id = id("detached1");
        awaitLog("detached1", "started");
        assertEquals("running", inspect("detached1", "{{.State.Status}}"));
        long pid = pid("detached1");
        // The shim keeps jrunc's state where this class looks for leftovers.
        Command.Result state = cmd.run(List.of(jrunc.toString(), "--root", runtimeRoot.toString(), "state", id));
        assertEquals(0, state.exitCode(), state.describe());
        assertTrue(state.out().contains("\"pid\": " + pid + ",") && state.out().contains("\"status\": \"running\""),
                state.describe());

        Command.Result exec = cmd.run(docker("exec", "jt-docker-detached1", "sh", "-c",
                "echo from exec; echo ppid=$PPID; grep -E '^Seccomp:' /proc/self/status; exit 4"));
        assertEquals(4, exec.exitCode(), exec.describe());
        assertEquals("from exec\nppid=0\nSeccomp:\t2\n", exec.out(), exec.describe());

        Command.Result stdin = cmd.run(docker("exec", "--interactive", "jt-docker-detached1",
                "sh", "-c", "cat; echo done"), "piped data\n");
        assertEquals(0, stdin.exitCode(), stdin.describe());
        assertEquals("piped data\ndone\n", stdin.out(), stdin.describe());

        Command.Result tty = cmd.run(docker("exec", "--tty", "jt-docker-detached1",
                "sh", "-c", "tty; [ -t 0 ] && echo terminal"));
        assertEquals(0, tty.exitCode(), tty.describe());
        assertTrue(tty.out().matches("/dev/pts/\\d+\r\nterminal\r\n"), tty.describe());

        // docker 20.10's CLI prints an exec's start error on stdout.
        Command.Result missing = cmd.run(docker("exec", "jt-docker-detached1", "/nonexistent"));
        assertEquals(126, missing.exitCode(), missing.describe());
        assertTrue(missing.out().contains("OCI runtime exec failed: jrunc exec failed: unable to start container "
                + "process: exec: \"/nonexistent\": stat /nonexistent: no such file or directory"), missing.describe());

        Command.Result pause = cmd.run(docker("pause", "jt-docker-detached1"));
        assertEquals(0, pause.exitCode(), pause.describe());
        assertEquals("paused true", inspect("detached1", "{{.State.Status}} {{.State.Paused}}"));
        String frozen = cgroupFile(id, "freezer.state", "cgroup.freeze");
        assertTrue(frozen.equals("FROZEN") || frozen.equals("1"), frozen);
        Command.Result unpause = cmd.run(docker("unpause", "jt-docker-detached1"));
        assertEquals(0, unpause.exitCode(), unpause.describe());
        assertEquals("running false", inspect("detached1", "{{.State.Status}} {{.State.Paused}}"));
        String thawed = cgroupFile(id, "freezer.state", "cgroup.freeze");
        assertTrue(thawed.equals("THAWED") || thawed.equals("0"), thawed);

        Command.Result stop = cmd.run(docker("stop", "--time", "20", "jt-docker-detached1"));
        assertEquals(0, stop.exitCode(), stop.describe());
        assertEquals("exited 7", inspect("detached1", "{{.State.Status}} {{.State.ExitCode}}"));
        Command.Result logs = cmd.run(docker("logs", "jt-docker-detached1"));
        assertEquals("started\ngot TERM\n", logs.out(), logs.describe());
        Command.Result rm = cmd.run(docker("rm", "jt-docker-detached1"));
        assertEquals(0, rm.exitCode(), rm.describe());
        assertNothingLeft(id, pid);
    }

    /** A sleeping pid 1 has no SIGTERM handler, so the kernel drops docker's SIGTERM: SIGKILL follows. */
    @Test
    void stopOfASleepingContainerEndsInSigkill() {
        Command.Result run = cmd.run(run(Command.list(container("sleeper1"), "--detach"), "sleep", "1000"));
        assertEquals(0, run.exitCode(), run.describe());
        String id = id("sleeper1");
        long pid = pid("sleeper1");
        long start = System.nanoTime();
        Command.Result stop = cmd.run(docker("stop", "--time", "1", "jt-docker-sleeper1"));
        assertEquals(0, stop.exitCode(), stop.describe());
        assertTrue(System.nanoTime() - start >= 1_000_000_000L, "stopped before its SIGTERM grace period ended");
        assertEquals("exited 137", inspect("sleeper1", "{{.State.Status}} {{.State.ExitCode}}"));
        Command.Result rm = cmd.run(docker("rm", "jt-docker-sleeper1"));
        assertEquals(0, rm.exitCode(), rm.describe());
        assertNothingLeft(id, pid);
    }

    /**
     * --restart on-failure:2 makes dockerd start the same container twice more (create, start and
     * delete through jrunc each time); `docker restart` stops a running one and starts it again.
     */
    @Test
    void restartPolicyAndDockerRestartStartTheContainerAgain() {
        Command.Result run = cmd.run(run(Command.list(container("restart1"), "--detach", "--restart", "on-failure:2"),
                "sh", "-c", "echo run; exit 3"));
        assertEquals(0, run.exitCode(), run.describe());
        assertTrue(E2eHost.eventually(30, () -> inspect("restart1", "{{.State.Status}} {{.RestartCount}}")
                .equals("exited 2")), inspect("restart1", "{{.State.Status}} {{.RestartCount}}"));
        assertEquals("3", inspect("restart1", "{{.State.ExitCode}}"));
        Command.Result logs = cmd.run(docker("logs", "jt-docker-restart1"));
        assertEquals("run\nrun\nrun\n", logs.out(), logs.describe());
        Command.Result rm = cmd.run(docker("rm", "jt-docker-restart1"));
        assertEquals(0, rm.exitCode(), rm.describe());
        assertNothingLeft(id("restart1"), 0);

        Command.Result up = cmd.run(run(Command.list(container("restart2"), "--detach"), "sh", "-c",
                "echo up; trap 'exit 0' TERM; while true; do sleep 0.2; done"));
        assertEquals(0, up.exitCode(), up.describe());
        awaitLog("restart2", "up");
        long first = pid("restart2");
        Command.Result restart = cmd.run(docker("restart", "--time", "20", "jt-docker-restart2"));
        assertEquals(0, restart.exitCode(), restart.describe());
        assertEquals("running", inspect("restart2", "{{.State.Status}}"));
        long second = pid("restart2");
        assertNotEquals(first, second);
        assertTrue(E2eHost.eventually(10, () -> ProcessHandle.of(first).isEmpty()), "first process " + first + " left");
        assertTrue(E2eHost.eventually(30, () -> cmd.run(docker("logs", "jt-docker-restart2")).out().equals("up\nup\n")),
                cmd.run(docker("logs", "jt-docker-restart2")).describe());
        Command.Result rm2 = cmd.run(docker("rm", "--force", "jt-docker-restart2"));
        assertEquals(0, rm2.exitCode(), rm2.describe());
        assertNothingLeft(id("restart2"), second);
    }

    /**
     * --network none: the spec asks for a new network namespace (no path) plus docker's two sysctls,
     * which jrunc must write inside that namespace (the host's stay as they are), and docker's
     * libnetwork-setkey prestart hook, which brings lo up. --network host: no namespace of its own.
     */
    @Test
    void networkNoneIsAPrivateNamespaceAndHostIsDockerds() throws IOException {
        Path portStart = Path.of("/proc/sys/net/ipv4/ip_unprivileged_port_start");
        Path pingRange = Path.of("/proc/sys/net/ipv4/ping_group_range");
        String hostPortStart = Files.readString(portStart);
        String hostPingRange = Files.readString(pingRange);
        String dockerdNet = Files.readSymbolicLink(Path.of("/proc/" + dockerd.pid() + "/ns/net")).toString();
        String probe = "readlink /proc/self/ns/net; ip -o link | cut -d' ' -f1-3; "
                + "cat /proc/sys/net/ipv4/ip_unprivileged_port_start /proc/sys/net/ipv4/ping_group_range";

        Command.Result none = cmd.run(run(Command.list(container("netnone1"), "--rm"), "sh", "-c", probe));
        assertEquals(0, none.exitCode(), none.describe());
        String[] lines = none.out().split("\n");
        assertEquals(4, lines.length, none.describe());
        assertTrue(lines[0].matches("net:\\[\\d+\\]") && !lines[0].equals(dockerdNet), none.describe());
        assertEquals("1: lo: <LOOPBACK,UP,LOWER_UP>", lines[1], none.describe());
        assertEquals("0", lines[2], none.describe());
        assertEquals("0\t2147483647", lines[3], none.describe());
        assertEquals(hostPortStart, Files.readString(portStart), "the host's sysctl changed");
        assertEquals(hostPingRange, Files.readString(pingRange), "the host's sysctl changed");
        assertNothingLeft(id("netnone1"), 0);

        Command.Result host = cmd.run(runOn("host", Command.list(container("nethost1"), "--rm"),
                "readlink", "/proc/self/ns/net"));
        assertEquals(0, host.exitCode(), host.describe());
        assertEquals(dockerdNet + "\n", host.out(), host.describe());
        assertNothingLeft(id("nethost1"), 0);
    }

    /**
     * dockerd with --userns-remap=default (a second daemon on this class's containerd, with its own roots
     * and containerd namespace, stopped at the end): dockerd makes the user dockremap with a subordinate
     * range (/etc/subuid, /etc/subgid) and every container gets a user namespace mapping 0-65535 onto it.
     * Inside, root with that map; on the host, the container's process runs as the range's first id and
     * what it writes to a volume belongs to it (5:7 to the range's 5 and 7). dockerd refuses a data root
     * whose parents the remapped root cannot search, so the class's directory gets o+x.
     */
    @Test
    void usernsRemapRunsContainersOnDockremapsSubordinateIds() throws Exception {
        Path dir = Files.createDirectories(work.resolve("remap"));
        Files.setPosixFilePermissions(work, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        Path remapSocket = dir.resolve("docker.sock");
        String namespace = name + "-remap";
        Path remapRuntimeRoot = dir.resolve("exec/runtime-runc").resolve(namespace);
        Process remap = startDockerd(dir, namespace, containerdSocket, List.of("--userns-remap=default"));
        try {
            long uid = subordinateStart(Path.of("/etc/subuid"), "dockremap");
            long gid = subordinateStart(Path.of("/etc/subgid"), "dockremap");
            Command.Result imported = cmd.run(docker(remapSocket, "import", "--change", "ENV " + E2eHost.PATH_ENV,
                    "--change", "CMD [\"sh\"]", rootfsTar.toString(), E2eHost.IMAGE));
            assertEquals(0, imported.exitCode(), imported.describe());
            Path volume = E2eHost.sharedDirectory(dir, "volume");
            Path cid = dir.resolve("remap1.cid");
            Command.Result r = cmd.run(docker(remapSocket, "run", "--rm", "--network", "none", "--cidfile", cid.toString(),
                    "--volume", volume + ":/data", E2eHost.IMAGE, "sh", "-c", "id -u; id -g; cat /proc/self/uid_map; "
                            + "echo --; cat /proc/self/gid_map; touch /data/by-root; "
                            + "touch /data/by-5 && chown 5:7 /data/by-5"));
            assertEquals(0, r.exitCode(), r.describe());
            String[] parts = r.out().split("--\n");
            assertEquals(2, parts.length, r.describe());
            assertEquals(List.of("0", "0", "0 " + uid + " 65536"), E2eHost.idMap(parts[0]), r.describe());
            assertEquals(List.of("0 " + gid + " 65536"), E2eHost.idMap(parts[1]), r.describe());
            assertEquals(uid + ":" + gid, E2eHost.owner(volume.resolve("by-root")));
            assertEquals((uid + 5) + ":" + (gid + 7), E2eHost.owner(volume.resolve("by-5")));

            String id = Command.read(cid).strip();
            assertFalse(id.isEmpty(), "no container ID");
            assertTrue(E2eHost.eventually(10, () -> E2eHost.processesMentioning(id).isEmpty()),
                    "shim left behind: " + E2eHost.processesMentioning(id));
            assertFalse(Files.exists(remapRuntimeRoot.resolve(id)), "jrunc state of " + id + " left in " + remapRuntimeRoot);
            assertEquals(List.of(), E2eHost.cgroupDirs(cgroupParent + "/" + id), "cgroup of " + id + " left behind");
            assertEquals(List.of(), E2eHost.mountsUnder(dir.resolve("data")).stream()
                    .filter(m -> m.contains("/overlay2/")).toList(), "overlay mounts left behind");
        } finally {
            Command.Result all = cmd.run(docker(remapSocket, "ps", "--all", "--quiet"));
            for (String id : all.out().split("\n")) {
                if (!id.isBlank()) {
                    cmd.run(docker(remapSocket, "rm", "--force", id.strip()));
                }
            }
            cmd.run(docker(remapSocket, "rmi", "--force", E2eHost.IMAGE));
            stop(remap);
        }
    }

    /** The first id of {@code user}'s first range in /etc/subuid or /etc/subgid. */
    private static long subordinateStart(Path file, String user) throws IOException {
        return Files.readAllLines(file).stream().filter(l -> l.startsWith(user + ":"))
                .map(l -> Long.parseLong(l.split(":")[1])).findFirst()
                .orElseThrow(() -> new AssertionError("no range of " + user + " in " + file));
    }
}
