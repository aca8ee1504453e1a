package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every hook kind runs at its point of the lifecycle, in order, with the state on stdin. The hook
 * script lives in a host directory that is also bind-mounted at the same path in the container, so
 * its path resolves in the runtime's namespace and in the container's alike; each line it logs says
 * which mount namespace it ran in.
 */
@ExtendWith(JruncExtension.class)
class HooksTest {
    static final List<String> KINDS = List.of("prestart", "createRuntime", "createContainer", "startContainer",
            "poststart", "poststop");

    /** A /bin/sh script (no busybox needed) appending "KIND MNTNS STATE" to the file named by $2. */
    static Path hookScript(Path dir) throws Exception {
        Files.createDirectories(dir);
        Path script = dir.resolve("hook.sh");
        Files.writeString(script, """
                #!/bin/sh
                state=$(cat)
                echo "$1 $(readlink /proc/self/ns/mnt) $state" >> "$2"
                """);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    record Call(String kind, String mntns, JsonNode state) {}

    static List<Call> calls(Path log) throws Exception {
        List<Call> calls = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            String[] parts = line.split(" ", 3);
            calls.add(new Call(parts[0], parts[1], Jrunc.JSON.readTree(parts[2])));
        }
        return calls;
    }

    @Test
    void hooksRunInOrderWithTheState(Sandbox sb) throws Exception {
        hooksInOrder(sb, LifecycleTest.waitingBundle(sb));
    }

    /** With a user namespace the hooks run as without one (its mapped root may write the log). */
    @Test
    void hooksRunInOrderWithAUserNamespace(Sandbox sb) throws Exception {
        hooksInOrder(sb, UserNamespaceTest.withUserNamespace(LifecycleTest.waitingBundle(sb), 0, 100000, 65536));
    }

    private static void hooksInOrder(Sandbox sb, Bundle b) throws Exception {
        Path hooks = sb.file("hooks");
        Path script = hookScript(hooks);
        Files.setPosixFilePermissions(hooks, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(b.shared(), PosixFilePermissions.fromString("rwxrwxrwx"));
        Path log = hooks.resolve("jrunc.log");
        b.bind(hooks, hooks.toString());
        for (String kind : KINDS) {
            b.hook(kind, script, 10, kind, log.toString());
        }
        String id = sb.id("hooks");
        Jrunc j = sb.jrunc();
        Path pidFile = sb.file("init.pid");
        j.in(b.dir(), "create", "--pid-file", pidFile.toString(), id).ok();
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        sb.sawPid(pid);
        String containerMnt = Host.namespace(pid, "mnt");
        j.run("start", id).ok();
        Files.writeString(b.dir().resolve("shared/go"), "");
        Wait.forExit(pid);
        j.run("delete", id).ok();

        List<Call> calls = calls(log);
        assertEquals(KINDS, calls.stream().map(Call::kind).toList(), Files.readString(log));
        String hostMnt = Host.namespace(ProcessHandle.current().pid(), "mnt");
        for (Call c : calls) {
            assertEquals(id, c.state().get("id").asText(), c.toString());
            assertEquals(b.dir().toString(), c.state().get("bundle").asText(), c.toString());
            boolean inContainer = c.kind().equals("createContainer") || c.kind().equals("startContainer");
            assertEquals(inContainer ? containerMnt : hostMnt, c.mntns(), c.kind() + " ran in the wrong mount namespace");
            if (c.kind().equals("poststop")) {
                assertEquals("stopped", c.state().get("status").asText(), c.toString());
                assertTrue(!c.state().has("pid") || c.state().get("pid").asLong() == 0, c.toString());
            } else {
                assertEquals(pid, c.state().get("pid").asLong(), c.toString());
            }
        }
        // runc 1.1 runs startContainer after the exec gate opens, racing poststart; the spec orders them
        assertEquals("created", calls.get(3).state().get("status").asText(), "startContainer: " + calls.get(3));
        assertEquals("running", calls.get(4).state().get("status").asText(), "poststart: " + calls.get(4));
    }

    @Test
    void failingOrSlowHooksFailCreateAndLeaveNothing(Sandbox sb) throws Exception {
        Path dir = Files.createDirectories(sb.file("hooks"));
        Path fails = dir.resolve("fails.sh");
        Files.writeString(fails, "#!/bin/sh\necho broken\nexit 3\n");
        String sleepArg = "37." + ProcessHandle.current().pid();
        Path slow = dir.resolve("slow.sh");
        Files.writeString(slow, "#!/bin/sh\nexec sleep " + sleepArg + "\n");
        for (Path p : List.of(fails, slow)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Bundle failing = sb.bundle().args("true").hook("createRuntime", fails, null);
        Bundle sleeping = sb.bundle().args("true").hook("createRuntime", slow, 1);
        Jrunc j = sb.jrunc();
        long start = System.nanoTime();
        List<Result> results = Wait.parallel(() -> j.in(failing.dir(), "create", sb.id("hookfail")),
                () -> j.in(sleeping.dir(), "create", sb.id("hookslow")));
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;

        Result failed = results.get(0).exit(1);
        assertTrue(failed.stderr().contains("createRuntime") && failed.stderr().contains("exit status 3"),
                failed.describe("names the hook kind and its status"));
        Result timedOut = results.get(1).exit(1);
        assertTrue(timedOut.stderr().contains("createRuntime") && timedOut.stderr().contains("timeout"),
                timedOut.describe("names the hook kind and the timeout"));
        assertTrue(seconds < 30, "the slow hook was not killed at its timeout: " + seconds + " s");
        for (long p : Host.pids()) {
            String cmdline = Host.read(Path.of("/proc", Long.toString(p), "cmdline"));
            assertTrue(cmdline == null || !cmdline.contains(sleepArg), "timed-out hook still running: " + p);
        }
        assertEquals(List.of(), sb.leftovers());
    }

    /**
     * The runtime-spec resolves a startContainer hook's path in the container and runs it in the
     * container's namespaces before the program: what it writes lands in the container's root, as with
     * runc (which runs it from the container's init after pivot_root), never on the host. A createContainer
     * hook's path still resolves on the host.
     */
    @Test
    void startContainerHookRunsBehindTheContainersRoot(Sandbox sb) throws Exception {
        String proof = "/hookproof-" + ProcessHandle.current().pid();
        Path createScript = Files.createDirectories(sb.file("host-hooks")).resolve("create.sh");
        Files.writeString(createScript, "#!/bin/sh\necho created > \"$1\"\n");
        Files.setPosixFilePermissions(createScript, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path createdMark = sb.file("host-hooks").resolve("created");
        for (Jrunc runtime : List.of(sb.jrunc(), sb.runc())) {
            // /bin/sh here is the container's busybox: the host's path would be /bin/sh too, so the
            // file it writes is what tells the roots apart
            Bundle b = sb.bundle().args("true")
                    .hook("startContainer", Path.of("/bin/sh"), 10, "-c", "echo started > " + proof)
                    .hook("createContainer", createScript, 10, createdMark.toString());
            String id = sb.id("starthook");
            runtime.in(b.dir(), "run", id).ok();
            assertEquals("started\n", Files.readString(b.rootfs().resolve(proof.substring(1))),
                    runtime.binary() + ": the startContainer hook's file is not in the container's root");
            assertFalse(Files.exists(Path.of(proof)), runtime.binary() + ": the startContainer hook wrote on the host");
            assertEquals("created\n", Files.readString(createdMark), runtime.binary() + ": createContainer hook");
            Files.delete(createdMark);
        }
    }
}
