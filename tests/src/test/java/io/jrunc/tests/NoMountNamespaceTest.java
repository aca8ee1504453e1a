package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A config whose linux.namespaces has no "mount" (runtime-tools' linux_ns_itype removes them all):
 * the process is in the runtime's mount namespace, as asked, with its own root, working directory,
 * identity, seccomp filter and exec gate, and the host's mount table is the same before, during and
 * after, also when create fails.
 */
@ExtendWith(JruncExtension.class)
class NoMountNamespaceTest {

    @Test
    void runsInTheRuntimesMountNamespaceAndLeavesTheMountTableAsItWas(Sandbox sb) throws Exception {
        List<String> before = Host.mountinfo();
        Bundle b = withoutMountNamespace(sb.bundle());
        Files.writeString(b.rootfs().resolve("marker"), "from-rootfs\n");
        b.cwd("/tmp").user(1000, 1000).sh("cat /marker; readlink /proc/self/ns/mnt; pwd; id -u; echo x > /probe"
                + " 2>/dev/null || echo cannot-write-root; cat /proc/self/mountinfo | wc -l; exit 3");
        Result r = sb.jrunc().in(b.dir(), "run", sb.id("nomnt"));
        assertEquals(3, r.exitCode(), r.describe("the process's status"));
        assertEquals(List.of("from-rootfs", Host.namespace(ProcessHandle.current().pid(), "mnt"), "/tmp", "1000",
                "cannot-write-root", "0"), r.stdout().lines().map(String::strip).toList(), r.describe("inside"));
        assertMountTableAsBefore(sb, before, "the host's mount table after run");
        assertEquals(List.of(), sb.leftovers());
    }

    @Test
    void createExecAndSeccompWithoutAMountNamespace(Sandbox sb) throws Exception {
        List<String> before = Host.mountinfo();
        Bundle b = withoutMountNamespace(sb.bundle()).args("sleep", "1000");
        // without no_new_privs the filter is loaded before the credentials, so after the root is handed over
        b.seccomp(Bundle.capturedProfile("podman-default")).noNewPrivileges(false);
        Files.writeString(b.rootfs().resolve("marker"), "from-rootfs\n");
        String id = sb.id("nomnt-exec");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "create", id).ok();
        assertMountTableAsBefore(sb, before, "the host's mount table while created");
        long pid = j.state(id).get("pid").asLong();
        sb.sawPid(pid);
        assertEquals(Host.namespace(ProcessHandle.current().pid(), "mnt"), Host.namespace(pid, "mnt"));
        j.run("start", id).ok();
        Result exec = j.run("exec", id, "sh", "-c", "cat /marker; readlink /proc/self/ns/mnt; grep Seccomp: /proc/self/status");
        exec.ok();
        List<String> lines = exec.stdout().lines().map(String::strip).toList();
        assertEquals("from-rootfs", lines.get(0), exec.describe("exec sees the container's root"));
        assertEquals(Host.namespace(pid, "mnt"), lines.get(1));
        assertTrue(lines.get(2).endsWith("2"), exec.describe("filtered"));
        assertTrue(Host.read(Path.of("/proc", Long.toString(pid), "status")).contains("Seccomp:\t2"), "init filtered");
        assertMountTableAsBefore(sb, before, "the host's mount table while running");
        j.run("delete", "--force", id).ok();
        assertMountTableAsBefore(sb, before, "the host's mount table after delete");
        assertEquals(List.of(), sb.leftovers());
    }

    @Test
    void aFailedCreateLeavesTheMountTableAsItWas(Sandbox sb) throws Exception {
        List<String> before = Host.mountinfo();
        // fails once the root is built: the program is not in it
        Bundle missing = withoutMountNamespace(sb.bundle()).args("/no/such/program");
        Result r = sb.jrunc().in(missing.dir(), "create", sb.id("nomnt-fail"));
        assertEquals(1, r.exitCode(), r.describe("refused"));
        assertTrue(r.stderr().contains("no such file or directory"), r.describe("why"));
        // fails while the config's mounts are made: a later bind's source is missing
        Bundle badMount = withoutMountNamespace(sb.bundle()).args("true");
        badMount.mount("/data", "bind", sb.file("nosuch").toString(), "rbind");
        r = sb.jrunc().in(badMount.dir(), "create", sb.id("nomnt-fail"));
        assertEquals(1, r.exitCode(), r.describe("refused"));
        // an unbindable root cannot be handed over
        Bundle unbindable = withoutMountNamespace(sb.bundle()).args("true");
        unbindable.config().withObjectProperty("linux").put("rootfsPropagation", "unbindable");
        unbindable.write();
        r = sb.jrunc().in(unbindable.dir(), "create", sb.id("nomnt-fail"));
        assertEquals(1, r.exitCode(), r.describe("refused"));
        assertTrue(r.stderr().contains("linux.rootfsPropagation: unbindable needs a mount namespace"), r.describe("why"));
        Bundle masked = withoutMountNamespace(sb.bundle()).args("true").addMaskedPath("/proc/kcore");
        r = sb.jrunc().in(masked.dir(), "create", sb.id("nomnt-fail"));
        assertEquals(1, r.exitCode(), r.describe("refused"));
        assertTrue(r.stderr().contains("linux.maskedPaths: requires a mount namespace"), r.describe("why"));
        assertMountTableAsBefore(sb, before, "the host's mount table after failed creates");
        assertEquals(List.of(), sb.leftovers());
    }

    /**
     * The host's mount table is as it was: every mount still there is listed exactly as before (no
     * propagation or flag changed), and no mount was added in this test's sandbox, where the bundles'
     * roots are. Other programs on the machine may mount and unmount their own meanwhile, so a mount
     * gone or added elsewhere is not this test's business.
     */
    private static void assertMountTableAsBefore(Sandbox sb, List<String> before, String when) {
        List<String> after = Host.mountinfo();
        java.util.Map<String, String> beforeById = new java.util.HashMap<>();
        before.forEach(line -> beforeById.put(line.split(" ")[0], line));
        for (String line : after) {
            String was = beforeById.get(line.split(" ")[0]);
            if (was != null) {
                assertEquals(was, line, when + ": a mount changed");
            } else {
                assertTrue(!line.contains(sb.dir().toString()), when + ": mounted on the host: " + line);
            }
        }
    }

    private static Bundle withoutMountNamespace(Bundle b) {
        ArrayNode namespaces = (ArrayNode) b.config().withObjectProperty("linux").get("namespaces");
        for (Iterator<JsonNode> it = namespaces.elements(); it.hasNext(); ) {
            if ("mount".equals(it.next().get("type").asText())) {
                it.remove();
            }
        }
        // runc's rule, which the validator keeps: masked and read-only paths need a mount namespace
        ObjectNode linux = b.config().withObjectProperty("linux");
        linux.remove("maskedPaths");
        linux.remove("readonlyPaths");
        return b.write();
    }
}
