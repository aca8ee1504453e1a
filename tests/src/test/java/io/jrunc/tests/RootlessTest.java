package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * jrunc run by an unprivileged user ({@link TestUser}) on bundles that user made with
 * {@code jrunc spec --rootless}: the user namespace jrunc makes for itself (one id without helpers,
 * several ranges through newuidmap), devices, locked mount flags, cgroups on this host's v1
 * controllers, the state under $XDG_RUNTIME_DIR/jrunc, and nothing left behind by any case.
 */
class RootlessTest {
    private static final List<String> APPLETS = List.of("sh", "id", "cat", "grep", "test", "echo", "head", "wc",
            "sleep", "touch", "stat", "ls", "true", "readlink");

    private TestUser user;
    private Path work;
    private int seq;

    @BeforeEach
    void setUp() throws IOException {
        user = TestUser.ensure();
        work = user.home().resolve("rootless-test");
        root("rm", "-rf", work.toString());
        Files.createDirectories(work);
        root("chown", user.uid() + ":" + user.gid(), work.toString());
    }

    @AfterEach
    void nothingLeft() throws IOException {
        try {
            // a killed container's process is re-parented to this host's init, which reaps it soon after
            try {
                Wait.until(java.time.Duration.ofSeconds(10), "the user's processes to end", () -> user.processes().isEmpty());
            } catch (AssertionError e) {
                assertEquals(List.of(), user.processes(), "the user's processes after the case");
            }
            Path state = stateRoot();
            if (Files.isDirectory(state)) {
                try (Stream<Path> s = Files.list(state)) {
                    // @cache holds compiled seccomp programs, the runtime's, no container's
                    assertEquals(List.of(), s.filter(p -> !p.getFileName().toString().equals("@cache")).toList(),
                            "state directories left in " + state);
                }
            }
        } finally {
            root("rm", "-rf", work.toString());
        }
    }

    private Path stateRoot() {
        return user.runtimeDir().resolve("jrunc");
    }

    /** A bundle the user owns: a busybox rootfs and `jrunc spec --rootless`'s config, as the user wrote it. */
    private Path bundle() throws IOException {
        Path dir = work.resolve("b" + (++seq));
        Path bin = Files.createDirectories(dir.resolve("rootfs/bin"));
        for (String d : List.of("proc", "sys", "dev", "tmp", "etc", "data")) {
            Files.createDirectories(dir.resolve("rootfs").resolve(d));
        }
        Files.setPosixFilePermissions(dir.resolve("rootfs/tmp"),
                java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.copy(Bundle.BUSYBOX, bin.resolve("busybox"));
        for (String applet : APPLETS) {
            Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
        }
        root("chown", "-R", user.uid() + ":" + user.gid(), dir.toString());
        user.run(Map.of(), null, List.of("sh", "-c", "cd " + dir + " && " + jrunc() + " spec --rootless")).ok();
        return dir;
    }

    private static String jrunc() {
        return Jrunc.defaultBinary().toString();
    }

    private ObjectNode config(Path bundle) throws IOException {
        return (ObjectNode) Jrunc.JSON.readTree(bundle.resolve("config.json").toFile());
    }

    private void write(Path bundle, ObjectNode config) throws IOException {
        Files.writeString(bundle.resolve("config.json"), Jrunc.JSON.writeValueAsString(config));
    }

    /** The config with a non-terminal process running {@code script}; nothing else changed. */
    private void script(Path bundle, String script) throws IOException {
        script(bundle, script, false);
    }

    /** The config with the process running {@code script}; {@code asWritten}: its terminal as spec wrote it. */
    private void script(Path bundle, String script, boolean asWritten) throws IOException {
        ObjectNode c = config(bundle);
        ObjectNode process = (ObjectNode) c.get("process");
        if (!asWritten) {
            process.put("terminal", false);
        }
        ArrayNode args = process.putArray("args");
        args.add("sh").add("-c").add(script);
        write(bundle, c);
    }

    private Result jruncAsUser(Path dir, String... args) {
        List<String> command = new ArrayList<>();
        command.add("sh");
        command.add("-c");
        StringBuilder line = new StringBuilder("cd '" + dir + "' && exec " + jrunc());
        for (String a : args) {
            line.append(" '").append(a.replace("'", "'\\''")).append('\'');
        }
        command.add(line.toString());
        return user.run(Map.of(), null, command);
    }

    @Test
    void specRootlessRunsAsWrittenWithTheUsersOwnIdAndSetgroupsDenied() throws IOException {
        Path b = bundle();
        script(b, "id -u; id -g; cat /proc/self/setgroups; cat /proc/self/uid_map; "
                + "test -c /dev/null && echo x > /dev/null && echo null-ok; "
                + "test -c /dev/zero && head -c 4 /dev/zero | wc -c; test -c /dev/tty && echo tty-ok; "
                + "grep -c ' / ' /proc/self/mountinfo; echo fds; ls -1 /proc/1/fd; tty", true);
        assertTrue(config(b).get("process").get("terminal").asBoolean(), "spec --rootless's process has a terminal");
        Result r = jruncAsUser(b, "run", "rl-one").ok();
        List<String> out = r.stdout().lines().map(String::strip).toList();
        assertEquals("0", out.get(0), r.describe("uid inside"));
        assertEquals("0", out.get(1), r.describe("gid inside"));
        assertEquals("deny", out.get(2), r.describe("setgroups"));
        assertEquals("0 " + user.uid() + " 1", out.get(3).replaceAll("\\s+", " "), r.describe("uid_map"));
        assertEquals(List.of("null-ok", "4", "tty-ok"), out.subList(4, 7), r.describe("devices"));
        // the container's process holds its stdio and nothing of the runtime's (the stage's or the JVM's)
        // (`; tty` keeps sh as PID 1: it would exec its last command in its place)
        assertEquals(List.of("fds", "0", "1", "2"), out.subList(8, 12), r.describe("descriptors of PID 1"));
        assertTrue(out.get(12).matches("/dev/pts/\\d+"), r.describe("the terminal is the container's devpts's"));
        assertTrue(Files.isDirectory(stateRoot()), "state root " + stateRoot());
    }

    @Test
    void severalRangesGoThroughNewuidmapAndKeepSetgroups() throws IOException {
        Path b = bundle();
        script(b, "cat /proc/self/uid_map; echo --; cat /proc/self/gid_map; echo --; cat /proc/self/setgroups;"
                + " touch /tmp/by-root; stat -c %u /tmp/by-root");
        ObjectNode c = config(b);
        mapOwnIdAnd(c, TestUser.SUB_START, TestUser.SUB_COUNT);
        // a process uid from the subordinate range: its file belongs to SUB_START + 999 on the host
        ((ObjectNode) ((ObjectNode) c.get("process")).get("user")).put("uid", 1000).put("gid", 1000);
        ((ObjectNode) c.get("root")).put("readonly", false);
        write(b, c);
        Result r = jruncAsUser(b, "run", "rl-ranges").ok();
        String[] parts = r.stdout().split("--\n");
        String ranges = "0 " + user.uid() + " 1|1 " + TestUser.SUB_START + " " + TestUser.SUB_COUNT;
        assertEquals(ranges, normal(parts[0]), r.describe("uid_map"));
        assertEquals(ranges.replaceFirst("0 " + user.uid(), "0 " + user.gid()), normal(parts[1]), r.describe("gid_map"));
        List<String> rest = parts[2].lines().toList();
        assertEquals("allow", rest.get(0), r.describe("setgroups"));
        assertEquals("1000", rest.get(1), r.describe("owner inside"));
        assertEquals(TestUser.SUB_START + 999, (int) Files.getAttribute(b.resolve("rootfs/tmp/by-root"), "unix:uid"));
    }

    /** A range past the user's /etc/subuid allowance: newuidmap refuses it, create says so and leaves nothing. */
    @Test
    void aRangeOutsideTheUsersAllowanceIsRefused() throws IOException {
        Path b = bundle();
        script(b, "true");
        ObjectNode c = config(b);
        mapOwnIdAnd(c, TestUser.SUB_START + TestUser.SUB_COUNT, 10);
        write(b, c);
        Result r = jruncAsUser(b, "run", "rl-beyond");
        assertEquals(1, r.exitCode(), r.describe("beyond the allowance"));
        // newgidmap runs first (as runc runs them) and refuses the gid range
        assertTrue(r.stderr().contains("linux.gidMappings: newgidmap refused the map"), r.describe("the field named"));
        assertEquals(1, r.stderr().strip().lines().count(), r.describe("one line"));
        assertFalse(Files.exists(stateRoot().resolve("rl-beyond")), "no state left");
    }

    /** uid and gid maps of the user's own id at 0 and {@code size} ids from {@code hostStart} at 1. */
    private void mapOwnIdAnd(ObjectNode config, long hostStart, long size) {
        ObjectNode linux = (ObjectNode) config.get("linux");
        for (String field : List.of("uidMappings", "gidMappings")) {
            long own = field.startsWith("uid") ? user.uid() : user.gid();
            ArrayNode maps = linux.putArray(field);
            maps.addObject().put("containerID", 0).put("hostID", own).put("size", 1);
            maps.addObject().put("containerID", 1).put("hostID", hostStart).put("size", size);
        }
    }

    private static String normal(String map) {
        return String.join("|", map.lines().map(l -> l.strip().replaceAll("\\s+", " ")).sorted().toList());
    }

    @Test
    void aDetachedContainerIsManagedByTheUserWithItsStateUnderXdgRuntimeDir() throws IOException {
        Path b = bundle();
        script(b, "sleep 300");
        jruncAsUser(b, "run", "--detach", "rl-bg").ok();
        assertTrue(Files.exists(stateRoot().resolve("rl-bg/state.json")), "state under " + stateRoot());
        Result state = jruncAsUser(b, "state", "rl-bg").ok();
        assertTrue(state.stdout().contains("\"status\": \"running\""), state.stdout());
        Result exec = jruncAsUser(b, "exec", "rl-bg", "sh", "-c", "id -u; cat /proc/self/uid_map; cat /proc/1/cmdline").ok();
        List<String> lines = exec.stdout().lines().map(String::strip).toList();
        assertEquals("0", lines.get(0), exec.describe("exec's uid"));
        assertEquals("0 " + user.uid() + " 1", lines.get(1).replaceAll("\\s+", " "), exec.describe("exec's uid_map"));
        assertTrue(lines.get(2).startsWith("sleep"), exec.describe("exec sees the container's pid 1"));
        jruncAsUser(b, "kill", "rl-bg", "KILL").ok();
        Wait.until(java.time.Duration.ofSeconds(10), "the container stops", () -> jruncAsUser(b, "state", "rl-bg").stdout().contains("stopped"));
        jruncAsUser(b, "delete", "rl-bg").ok();
        assertFalse(Files.exists(stateRoot().resolve("rl-bg")));
    }

    /** SIGTERM to the user's `jrunc run` reaches the container's process through the re-executed jrunc. */
    @Test
    void runForwardsSignalsThroughTheStage() throws Exception {
        Path b = bundle();
        script(b, "trap 'echo got-term; exit 7' TERM; echo ready; sleep 100 & wait");
        Path out = work.resolve("sig.out");
        List<String> command = List.of("setpriv", "--reuid=" + user.uid(), "--regid=" + user.gid(), "--init-groups",
                "--", "sh", "-c", "cd '" + b + "' && exec " + jrunc() + " run rl-sig");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(user.environment());
        Process run = pb.start();
        try {
            Wait.until(java.time.Duration.ofSeconds(30), "the container to be ready",
                    () -> Files.exists(out) && readQuietly(out).contains("ready"));
            root("kill", "-TERM", Long.toString(run.pid()));
            assertTrue(run.waitFor(20, java.util.concurrent.TimeUnit.SECONDS), "jrunc run ended");
            assertEquals(7, run.exitValue(), readQuietly(out));
            assertTrue(readQuietly(out).contains("got-term"), readQuietly(out));
        } finally {
            run.destroyForcibly();
        }
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * A bind of a nosuid,nodev source keeps both flags read-only (inside the user namespace the kernel
     * locks them), and a config that asks to clear one is refused with the mount named.
     */
    @Test
    void lockedMountFlagsAreKeptAndClearingOneIsRefused() throws IOException {
        Path source = work.resolve("locked");
        Files.createDirectories(source);
        root("mount", "-t", "tmpfs", "-o", "nosuid,nodev,mode=0755,uid=" + user.uid(), "rl-locked", source.toString());
        try {
            Path b = bundle();
            script(b, "grep ' /data ' /proc/self/mountinfo");
            ObjectNode c = config(b);
            ObjectNode m = ((ArrayNode) c.get("mounts")).addObject();
            m.put("destination", "/data").put("type", "bind").put("source", source.toString());
            m.putArray("options").add("bind").add("ro");
            write(b, c);
            Result r = jruncAsUser(b, "run", "rl-locked").ok();
            String options = r.stdout().strip().split(" ")[5];
            assertTrue(List.of(options.split(",")).containsAll(List.of("ro", "nosuid", "nodev")), r.describe(options));

            ((ArrayNode) m.get("options")).add("dev");
            write(b, c);
            Result refused = jruncAsUser(b, "run", "rl-clear");
            assertEquals(1, refused.exitCode(), refused.describe("clearing nodev"));
            int index = ((ArrayNode) c.get("mounts")).size() - 1;
            assertTrue(refused.stderr().contains("mounts[" + index + "]: cannot clear locked flags nodev"),
                    refused.describe("the refusal"));
        } finally {
            root("umount", source.toString());
        }
    }

    /** On this host's cgroup v1 controllers: a limit is refused, saying why; no cgroup directory is made. */
    @Test
    void aLimitIsRefusedOnCgroupV1AndNoCgroupIsMade() throws IOException {
        Path memory = Path.of("/sys/fs/cgroup/memory");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(memory), "a cgroup v1 memory hierarchy");
        Path b = bundle();
        script(b, "true");
        ObjectNode c = config(b);
        ((ObjectNode) c.get("linux")).putObject("resources").putObject("memory").put("limit", 64L << 20);
        write(b, c);
        Result r = jruncAsUser(b, "run", "rl-limit");
        assertEquals(1, r.exitCode(), r.describe("a memory limit"));
        assertTrue(r.stderr().contains("cannot set memory limit") && r.stderr().contains("cgroup v1"),
                r.describe("the reason"));
        assertFalse(Files.exists(memory.resolve("rl-limit")));
        assertFalse(Files.exists(Path.of("/sys/fs/cgroup/pids/rl-limit")));
    }

    /**
     * uid 0 in a user namespace someone else made (podman run by a user runs its runtime so, with no
     * "user" namespace in config.json): devices bound, procfs made, setgroups denied, no cgroup, exec.
     */
    @Test
    void rootInAUserNamespaceMadeByAnotherRunsAConfigWithoutOne() throws IOException {
        Path b = bundle();
        script(b, "id -u; cat /proc/self/uid_map; test -c /dev/null && echo x > /dev/null && echo null-ok;"
                + " grep -c '^' /proc/1/status >/dev/null && echo proc-ok");
        ObjectNode c = config(b);
        ObjectNode linux = (ObjectNode) c.get("linux");
        ArrayNode kept = Jrunc.JSON.createArrayNode();
        linux.get("namespaces").forEach(ns -> {
            if (!ns.get("type").asText().equals("user")) {
                kept.add(ns);
            }
        });
        linux.set("namespaces", kept);
        linux.remove(List.of("uidMappings", "gidMappings"));
        write(b, c);
        Result r = user.run(Map.of(), null, List.of("unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                "cd '" + b + "' && " + jrunc() + " run rl-inside")).ok();
        List<String> out = r.stdout().lines().map(String::strip).toList();
        assertEquals(List.of("0", "0 " + user.uid() + " 1", "null-ok", "proc-ok"),
                List.of(out.get(0), out.get(1).replaceAll("\\s+", " "), out.get(2), out.get(3)), r.describe("inside"));
    }

    /**
     * A fresh sysfs at /sys, as a root config asks: without a network namespace (the host's network) the
     * kernel refuses it to the user, and /sys becomes a read-only bind of the host's, showing the host's
     * interfaces; with a new network namespace it is mounted, and the namespace has only lo.
     */
    @Test
    void sysfsFallsBackToTheHostsWithoutANetworkNamespaceAndANewOneHasOnlyLo() throws IOException {
        Path b = bundle();
        script(b, "readlink /proc/self/ns/net; ls /sys/class/net | grep -c .; grep ' / /sys ' /proc/self/mountinfo; "
                + "grep -c : /proc/net/dev; grep -q '^ *lo:' /proc/net/dev && echo lo-ok");
        ObjectNode c = config(b);
        for (var m : c.get("mounts")) {
            if (m.get("destination").asText().equals("/sys")) {
                ((ObjectNode) m).put("type", "sysfs").put("source", "sysfs");
                ((ObjectNode) m).putArray("options").add("nosuid").add("noexec").add("nodev").add("ro");
            }
        }
        write(b, c);
        long hostInterfaces;
        try (var names = Files.list(Path.of("/sys/class/net"))) {
            hostInterfaces = names.count();
        }
        Result shared = jruncAsUser(b, "run", "rl-hostnet").ok();
        List<String> out = shared.stdout().lines().map(String::strip).toList();
        assertEquals(Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString(), out.get(0), shared.describe("the host's network"));
        assertEquals(Long.toString(hostInterfaces), out.get(1), shared.describe("the host's interfaces in /sys"));
        String[] sys = out.get(2).split(" ");
        assertTrue(List.of(sys[5].split(",")).contains("ro"), shared.describe("/sys read-only"));
        assertTrue(out.get(2).contains(" - sysfs "), shared.describe("/sys a bind of a sysfs"));

        ((ArrayNode) c.get("linux").get("namespaces")).addObject().put("type", "network");
        write(b, c);
        Result own = jruncAsUser(b, "run", "rl-ownnet").ok();
        out = own.stdout().lines().map(String::strip).toList();
        assertTrue(!out.get(0).equals(Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString()), own.describe("a new network namespace"));
        assertEquals("1", out.get(1), own.describe("only lo in /sys/class/net"));
        assertEquals("1", out.get(3), own.describe("one interface in /proc/net/dev"));
        assertEquals("lo-ok", out.get(4), own.describe("lo"));
    }

    @Test
    void aConfigWithoutAUserNamespaceIsRefused() throws IOException {
        Path b = bundle();
        script(b, "true");
        ObjectNode c = config(b);
        ArrayNode kept = Jrunc.JSON.createArrayNode();
        c.get("linux").get("namespaces").forEach(ns -> {
            if (!ns.get("type").asText().equals("user")) {
                kept.add(ns);
            }
        });
        ((ObjectNode) c.get("linux")).set("namespaces", kept);
        ((ObjectNode) c.get("linux")).remove(List.of("uidMappings", "gidMappings"));
        write(b, c);
        Result r = jruncAsUser(b, "run", "rl-nouserns");
        assertEquals(1, r.exitCode(), r.describe("no user namespace"));
        assertTrue(r.stderr().contains("rootless container requires user namespaces"), r.describe("the refusal"));
        assertEquals(1, r.stderr().strip().lines().count(), r.describe("one line"));
    }

    private static void root(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new AssertionError(String.join(" ", command) + ": " + out);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
