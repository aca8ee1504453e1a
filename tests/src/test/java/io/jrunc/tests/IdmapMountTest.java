package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Idmapped bind mounts (a mount's uidMappings/gidMappings, made with mount_setattr's
 * MOUNT_ATTR_IDMAP): a file owned on the host by a mapping's containerID shows inside as its hostID,
 * and one the container makes as a hostID is stored as the containerID. What the runtime refuses
 * about them is refused at create with one line, leaving nothing, not even the short-lived process
 * whose user namespace lends the mapping.
 */
@ExtendWith(JruncExtension.class)
class IdmapMountTest {
    /** Host ids 100000-165535 show in the mount as 0-65535 (the container has no user namespace). */
    private static final long HOST_BASE = 100000, SIZE = 65536;
    private static final String MAP_LINE = HOST_BASE + " 0 " + SIZE;

    @Test
    void hostIdsShowAsTheMappedIdsAndFilesMadeInsideBelongToTheHostIds(Sandbox sb) throws Exception {
        Path data = Files.createDirectories(sb.file("data"));
        Path owned = Files.writeString(data.resolve("owned"), "x");
        Files.setAttribute(owned, "unix:uid", (int) HOST_BASE + 1000);
        Files.setAttribute(owned, "unix:gid", (int) HOST_BASE + 2000);
        Files.writeString(data.resolve("host-root"), "x");
        Files.setAttribute(data, "unix:uid", (int) HOST_BASE);
        Files.setAttribute(data, "unix:gid", (int) HOST_BASE);
        Bundle b = sb.bundle();
        idmappedBind(b, data, "/data", "bind");
        b.sh("stat -c %u:%g /data/owned /data/host-root /data; touch /data/made-inside; mkdir /data/dir-inside;"
                + " stat -c %u:%g /data/made-inside");

        Result r = sb.jrunc().in(b.dir(), "run", sb.id("idmap"));
        r.ok();
        int overflow = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/kernel/overflowuid")).getFirst().strip());
        assertEquals(List.of("1000:2000", overflow + ":" + overflow, "0:0", "0:0"), r.stdout().lines().toList(),
                r.describe("owners as the container sees them"));
        for (String made : List.of("made-inside", "dir-inside")) {
            assertEquals((int) HOST_BASE, Files.getAttribute(data.resolve(made), "unix:uid"), made);
            assertEquals((int) HOST_BASE, Files.getAttribute(data.resolve(made), "unix:gid"), made);
        }
        assertEquals(List.of(), mappingHolders(), "the mapping's user namespace process is gone");
        assertEquals(List.of(), sb.leftovers());
    }

    @Test
    void ridmapOverAnRbindMapsTheSubmountsToo(Sandbox sb) throws Exception {
        Path data = Files.createDirectories(sb.file("tree"));
        Path sub = Files.createDirectories(data.resolve("sub"));
        Path inner = Files.createDirectories(sb.file("inner"));
        Files.writeString(inner.resolve("f"), "x");
        Files.setAttribute(inner.resolve("f"), "unix:uid", (int) HOST_BASE + 7);
        Files.setAttribute(inner.resolve("f"), "unix:gid", (int) HOST_BASE + 7);
        Bundle b = sb.bundle();
        // a submount of the source, in a mount namespace of its own so the host never sees it
        b.sh("stat -c %u:%g /data/sub/f");
        idmappedBind(b, data, "/data", "rbind", "ridmap");
        Process p = new ProcessBuilder("unshare", "-m", "--propagation", "private", "sh", "-c",
                "mount --bind " + inner + " " + sub + " && exec " + String.join(" ",
                        sb.jrunc().command("run", sb.id("ridmap"))))
                .directory(b.dir().toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.endsWith("7:7"), out);
        assertEquals(List.of(), mappingHolders());
    }

    @Test
    void refusalsAreOneLineAndLeaveNothing(Sandbox sb) throws Exception {
        Path data = Files.createDirectories(sb.file("data"));
        List<String> lines = new ArrayList<>();
        lines.add(refused(sb, b -> {
            ObjectNode m = idmappedBind(b, data, "/data", "bind");
            m.put("type", "tmpfs").put("source", "tmpfs");
            m.remove("options");
        }, "mounts[N]: id-mapped mounts are only supported for bind-mounts"));
        lines.add(refused(sb, b -> idmappedBind(b, data, "/data", "bind").remove("gidMappings"),
                "mounts[N].gidMappings: must be set together with uidMappings"));
        lines.add(refused(sb, b -> {
            ObjectNode m = idmappedBind(b, data, "/data", "bind", "idmap");
            m.remove("uidMappings");
            m.remove("gidMappings");
        }, "mounts[N]: id-mapped mounts must have both uid and gid mappings specified"));
        // the kernel refuses overlapping ranges when the mapping's user namespace is made
        lines.add(refused(sb, b -> ((ArrayNode) idmappedBind(b, data, "/data", "bind").get("uidMappings")).addObject()
                .put("containerID", HOST_BASE + 10).put("hostID", 70000).put("size", 10),
                "mounts[N]: failed to create userns for " + data + " id-mapping:"));
        // procfs cannot be idmapped
        lines.add(refused(sb, b -> idmappedBind(b, Path.of("/proc/sys"), "/data", "bind"),
                "mounts[N]: failed to set MOUNT_ATTR_IDMAP on /proc/sys: invalid argument (maybe the filesystem"));
        assertEquals(List.of(), mappingHolders(), "no process left holding a mapping's user namespace: " + lines);
        assertEquals(List.of(), sb.leftovers());
    }

    private interface Edit {
        void apply(Bundle b) throws Exception;
    }

    private static String refused(Sandbox sb, Edit edit, String expected) throws Exception {
        Bundle b = sb.bundle().args("true");
        edit.apply(b);
        b.write();
        Result r = sb.jrunc().in(b.dir(), "create", sb.id("refused"));
        HostileInputTest.noStackTrace(r);
        assertEquals(1, r.exitCode(), r.describe("refused"));
        List<String> lines = r.stderr().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.size(), r.describe("one error line"));
        String index = String.valueOf(((ArrayNode) b.config().get("mounts")).size() - 1);
        assertTrue(lines.getFirst().contains(expected.replace("[N]", "[" + index + "]")), r.describe(expected));
        return lines.getFirst();
    }

    /** Appends a bind of {@code source} at {@code destination} with host ids 100000+ mapped to 0+. */
    private static ObjectNode idmappedBind(Bundle b, Path source, String destination, String... options) {
        ObjectNode m = ((ArrayNode) b.config().get("mounts")).addObject();
        m.put("destination", destination).put("type", "bind").put("source", source.toString());
        ArrayNode opts = m.putArray("options");
        for (String o : options) {
            opts.add(o);
        }
        for (String field : List.of("uidMappings", "gidMappings")) {
            m.putArray(field).addObject().put("containerID", HOST_BASE).put("hostID", 0).put("size", SIZE);
        }
        b.write();
        return m;
    }

    /** Processes whose user namespace has this test's mapping (the short-lived helper, if left). */
    private static List<Long> mappingHolders() {
        List<Long> found = new ArrayList<>();
        for (long pid : Host.pids()) {
            String map = Host.read(Path.of("/proc", Long.toString(pid), "uid_map"));
            if (map != null && map.strip().replaceAll("\\s+", " ").startsWith(MAP_LINE)) {
                found.add(pid);
            }
        }
        return found;
    }
}
