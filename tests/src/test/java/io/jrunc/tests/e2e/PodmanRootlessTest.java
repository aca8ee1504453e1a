package io.jrunc.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.testsupport.Requirements;
import io.jrunc.tests.Host;
import io.jrunc.tests.Result;
import io.jrunc.tests.TestUser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * podman 4.3 run by an unprivileged user (rootless), with jrunc as its runtime: podman makes the user
 * namespace itself (the user's id as 0, its subordinate ids from 1, through newuidmap/newgidmap), keeps
 * it with a pause process, and runs conmon and jrunc inside it as euid 0; jrunc keeps its state under
 * the user's XDG_RUNTIME_DIR. The user is {@link TestUser}'s. Storage (native overlay), the run root,
 * podman's tmpdir (the events log, the pause process's pid file) and containers.conf are in one
 * directory in the user's home, shared by the cases; no network (`--network none`), cgroupfs, events
 * to a file. The image is the busybox rootfs tar `podman import`ed by the user (no registry).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class PodmanRootlessTest {
    private static final Pattern CREATED = Pattern.compile(
            "\\{\"ID\":\"([0-9a-f]{64})\".*\"Status\":\"create\".*\"Type\":\"container\"");
    private TestUser user;
    private Path work;
    private Path jrunc;
    /** Where the runtime keeps its state when run rootless: XDG_RUNTIME_DIR/NAME (runc's rule). */
    private Path runtimeRoot;
    private Map<String, String> env;
    private List<String> podman;
    private final List<String> names = new ArrayList<>();

    @BeforeAll
    void userStore() throws Exception {
        E2eHost.requireRootAndCommands("podman (with conmon), uidmap", "podman", "conmon", "tar", "newuidmap",
                "newgidmap");
        jrunc = E2eHost.jrunc();
        user = TestUser.ensure();
        Result version = user.run(jrunc.toString(), "--version");
        Requirements.require(version.exitCode() == 0, "the unprivileged user " + TestUser.NAME + " cannot run "
                + jrunc + " (every directory above the build must be searchable by others): "
                + version.describe("jrunc --version"));
        runtimeRoot = user.runtimeDir().resolve(jrunc.getFileName().toString());

        // The tar is made by root elsewhere (its files are root's, as an image's are) and handed over.
        Path scratch = Files.createTempDirectory("jrunc-e2e-podman-rootless-");
        try {
            Path tar = E2eHost.busyboxRootfsTar(scratch, new Command(scratch.resolve("out"), Map.of()));
            // podman refuses a run root path longer than 50 characters: a short name
            work = Files.createDirectory(user.home().resolve("e2e-" + Long.toHexString(System.nanoTime() & 0xffffffL)));
            Files.copy(tar, work.resolve("busybox-rootfs.tar"));
        } finally {
            E2eHost.deleteTree(scratch);
        }
        Path conf = work.resolve("containers.conf");
        // No systemd or journald for the user (cgroupfs, events to a file); no network for tests.
        Files.writeString(conf, """
                [containers]
                netns = "none"

                [engine]
                cgroup_manager = "cgroupfs"
                events_logger = "file"
                runtime_supports_json = ["jrunc"]
                """);
        Files.createDirectories(work.resolve("volume"));
        chownToUser(work);
        env = Map.of("CONTAINERS_CONF", conf.toString());
        podman = List.of("podman", "--root", work.resolve("storage").toString(),
                "--runroot", work.resolve("runroot").toString(), "--tmpdir", work.resolve("tmp").toString(),
                "--storage-driver", "overlay", "--runtime", jrunc.toString());
        Result imported = asUser(podman("import", "--change", "ENV " + E2eHost.PATH_ENV,
                work.resolve("busybox-rootfs.tar").toString(), E2eHost.IMAGE));
        assertEquals(0, imported.exitCode(), imported.describe("podman import as " + TestUser.NAME));
        Result rootless = asUser(podman("info", "--format", "{{.Host.Security.Rootless}} {{.Store.GraphDriverName}}"));
        assertEquals("true overlay\n", rootless.stdout(), rootless.describe("podman info"));
    }

    private void chownToUser(Path dir) throws Exception {
        Command.Result r = new Command(Path.of(System.getProperty("java.io.tmpdir")), Map.of())
                .run(List.of("chown", "-R", user.uid() + ":" + user.gid(), dir.toString()));
        assertEquals(0, r.exitCode(), r.describe());
    }

    @AfterEach
    void removeContainers() {
        for (String name : names) {
            asUser(podman("rm", "--force", "--time", "0", name));
        }
        names.clear();
    }

    /**
     * The containers and the image removed, podman's pause process ended (`podman system migrate` stops
     * it; SIGKILL if it is still there), then whatever is left (processes naming the directory, runtime
     * state of this class's containers) removed and reported.
     */
    @AfterAll
    void removeStore() throws Exception {
        if (work == null) {
            return;
        }
        List<String> states = List.of();
        List<String> leftovers = new ArrayList<>();
        try {
            asUser(podman("rm", "--all", "--force", "--time", "0"));
            asUser(podman("rmi", "--all", "--force"));
            String pausePid = Command.read(work.resolve("tmp/pause.pid")).strip();
            asUser(podman("system", "migrate"));
            if (!pausePid.isEmpty() && !E2eHost.eventually(10,
                    () -> ProcessHandle.of(Long.parseLong(pausePid)).map(h -> !h.isAlive()).orElse(true))) {
                ProcessHandle.of(Long.parseLong(pausePid)).ifPresent(ProcessHandle::destroyForcibly);
                leftovers.add("podman's pause process " + pausePid);
            }
        } finally {
            states = createdIdsWithRuntimeState();
            for (String id : states) {
                user.run(jrunc.toString(), "--root", runtimeRoot.toString(), "delete", "--force", id);
            }
            leftovers.addAll(E2eHost.killProcessesMentioning(work.toString()));
            E2eHost.deleteTree(work);
            // what podman and the runtime made in XDG_RUNTIME_DIR, once empty (a directory still in
            // use by someone else's run of the user is not)
            for (Path dir : List.of(user.runtimeDir().resolve("libpod/tmp"), user.runtimeDir().resolve("libpod"),
                    user.runtimeDir().resolve("containers"), runtimeRoot)) {
                try {
                    Files.deleteIfExists(dir);
                } catch (IOException notEmpty) {
                    // in use
                }
            }
            assertEquals(List.of(), leftovers, "processes left behind");
            assertEquals(List.of(), states, "runtime state left behind in " + runtimeRoot);
        }
    }

    private List<String> podman(String... args) {
        return Command.list(podman, args);
    }

    private Result asUser(List<String> command) {
        return user.run(env, null, command);
    }

    /** `podman run --network none` as the user; {@code flags} go before the image. */
    private List<String> run(List<String> flags, String... command) {
        List<String> c = podman("run", "--network", "none");
        c.addAll(flags);
        c.add(E2eHost.IMAGE);
        c.addAll(List.of(command));
        return c;
    }

    private String named(String name) {
        names.add(name);
        return "--name=" + name;
    }

    /** This class's containers (from podman's event log) whose state is still in the runtime's root. */
    private List<String> createdIdsWithRuntimeState() {
        List<String> left = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(work.resolve("tmp/events/events.log"))) {
                Matcher m = CREATED.matcher(line);
                if (m.find() && Files.exists(runtimeRoot.resolve(m.group(1)))) {
                    left.add(m.group(1));
                }
            }
        } catch (IOException e) {
            // no event log: no container was created
        }
        return left;
    }

    private void assertNoRuntimeState() {
        assertEquals(List.of(), createdIdsWithRuntimeState(), "runtime state left behind in " + runtimeRoot);
    }

    /** A volume directory of the user's, emptied. */
    private Path volume(String name) throws Exception {
        Path dir = work.resolve("volume").resolve(name);
        Files.createDirectories(dir);
        chownToUser(dir);
        return dir;
    }

    /**
     * The container's root is the user: inside, uid and gid 0 with podman's map (0 to the user's id,
     * 1-65536 to its subordinate ids); on the host, a file root writes to a volume belongs to the user,
     * and one it chowns to 5:7 to the subordinate ids 200004:200006.
     */
    @Test
    void runAsTheUserIsRootInsideAndTheUserOutside() throws Exception {
        Path volume = volume("run");
        Result r = asUser(run(List.of("--rm", "--volume", volume + ":/data"), "sh", "-c",
                "id -u; id -g; cat /proc/self/uid_map; echo --; cat /proc/self/gid_map; "
                        + "touch /data/by-root; touch /data/by-5 && chown 5:7 /data/by-5"));
        assertEquals(0, r.exitCode(), r.describe("podman run"));
        String[] parts = r.stdout().split("--\n");
        assertEquals(2, parts.length, r.describe("podman run"));
        String sub = "1 " + TestUser.SUB_START + " " + TestUser.SUB_COUNT;
        assertEquals(List.of("0", "0", "0 " + user.uid() + " 1", sub), E2eHost.idMap(parts[0]), r.describe("maps"));
        assertEquals(List.of("0 " + user.gid() + " 1", sub), E2eHost.idMap(parts[1]), r.describe("maps"));
        assertEquals(user.uid() + ":" + user.gid(), E2eHost.owner(volume.resolve("by-root")));
        assertEquals((TestUser.SUB_START + 4) + ":" + (TestUser.SUB_START + 6), E2eHost.owner(volume.resolve("by-5")));
        assertNoRuntimeState();
    }

    /**
     * --userns=keep-id: podman's spec asks the runtime for a user namespace of its own inside podman's,
     * where the user's id is itself (0-UID-1 on podman's 1.., UID on podman's 0, the rest identical).
     * The process runs as the user's id; what it writes belongs to the user on the host.
     */
    @Test
    void keepIdRunsAsTheUsersOwnId() throws Exception {
        Path volume = volume("keep-id");
        int uid = user.uid();
        Result r = asUser(run(List.of("--rm", "--userns=keep-id", "--volume", volume + ":/data"), "sh", "-c",
                "id -u; cat /proc/self/uid_map; touch /data/kept"));
        assertEquals(0, r.exitCode(), r.describe("podman run --userns=keep-id"));
        assertEquals(List.of(Integer.toString(uid), "0 1 " + uid, uid + " 0 1",
                (uid + 1) + " " + (uid + 1) + " " + (TestUser.SUB_COUNT - uid)), E2eHost.idMap(r.stdout()),
                r.describe("keep-id's map"));
        assertEquals(uid + ":" + user.gid(), E2eHost.owner(volume.resolve("kept")));
        assertNoRuntimeState();
    }

    /**
     * A detached rootless container: `podman exec` joins its user namespace (the same map, root inside),
     * `podman stop` reaches its SIGTERM trap (exit 7), and `podman rm` leaves no runtime state.
     */
    @Test
    void detachedContainerTakesAnExecAndStops() {
        Result run = asUser(run(List.of("--detach", named("rootless1")), "sh", "-c",
                "echo started; trap 'exit 7' TERM; while true; do sleep 0.2; done"));
        assertEquals(0, run.exitCode(), run.describe("podman run --detach"));
        assertTrue(E2eHost.eventually(30, () -> asUser(podman("logs", "rootless1")).stdout().contains("started")),
                asUser(podman("logs", "rootless1")).describe("podman logs"));

        Result exec = asUser(podman("exec", "rootless1", "sh", "-c",
                "id -u; readlink /proc/self/ns/user; readlink /proc/1/ns/user; cat /proc/self/uid_map; exit 4"));
        assertEquals(4, exec.exitCode(), exec.describe("podman exec"));
        List<String> lines = exec.stdout().lines().toList();
        assertEquals(5, lines.size(), exec.describe("podman exec"));
        assertEquals("0", lines.get(0), exec.describe("podman exec"));
        assertEquals(lines.get(1), lines.get(2), exec.describe("exec joins the container's user namespace"));
        assertNotEquals(Host.namespace(ProcessHandle.current().pid(), "user"), lines.get(1), exec.describe("not the host's"));
        assertEquals(List.of("0 " + user.uid() + " 1", "1 " + TestUser.SUB_START + " " + TestUser.SUB_COUNT),
                E2eHost.idMap(String.join("\n", lines.subList(3, 5))), exec.describe("podman exec"));

        Result stop = asUser(podman("stop", "--time", "20", "rootless1"));
        assertEquals(0, stop.exitCode(), stop.describe("podman stop"));
        Result state = asUser(podman("inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}", "rootless1"));
        assertEquals("exited 7\n", state.stdout(), state.describe("podman inspect"));
        Result rm = asUser(podman("rm", "rootless1"));
        assertEquals(0, rm.exitCode(), rm.describe("podman rm"));
        assertNoRuntimeState();
    }
}
