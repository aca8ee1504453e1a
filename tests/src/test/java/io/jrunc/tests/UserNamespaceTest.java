package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Containers with a user namespace, made by jrunc as root: a new one with the config's maps, or one
 * joined by path. What the container sees inside (its ids, its maps, the owners of what the runtime
 * made for it) and what the host sees (the mapped ids of its processes and files), exec joining it,
 * and the configs create refuses, each leaving nothing behind.
 */
@ExtendWith(JruncExtension.class)
class UserNamespaceTest {
    private static final long HOST_BASE = 100000;

    /** A new user namespace mapping {@code ranges} (containerID, hostID, size triples) for uids and gids. */
    static Bundle withUserNamespace(Bundle b, long... ranges) {
        ObjectNode linux = b.config().withObjectProperty("linux");
        linux.withArrayProperty("namespaces").addObject().put("type", "user");
        for (String field : List.of("uidMappings", "gidMappings")) {
            ArrayNode maps = linux.putArray(field);
            for (int i = 0; i < ranges.length; i += 3) {
                maps.addObject().put("containerID", ranges[i]).put("hostID", ranges[i + 1]).put("size", ranges[i + 2]);
            }
        }
        return b.write();
    }

    /** A host directory bound read-write at /shared that any id may write (the mapped root is nobody to the host). */
    static Path openShared(Bundle b) throws Exception {
        Path shared = b.shared();
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        return shared;
    }

    /** Processes (not zombies) in the container's cgroup. */
    static List<Long> processesOf(String id) {
        List<Long> found = new ArrayList<>();
        for (long pid : Host.pids()) {
            String cgroup = Host.read(Path.of("/proc", Long.toString(pid), "cgroup"));
            if (cgroup != null && !Host.isZombieOrGone(pid)
                    && (cgroup.contains("/" + id + "\n") || cgroup.contains("/" + id + "/"))) {
                found.add(pid);
            }
        }
        return found;
    }

    /** The pids in the container's pids cgroup (v1 or v2), read from one file: quick enough to sample a create. */
    static List<Long> cgroupProcs(String id) {
        for (Path procs : List.of(Path.of("/sys/fs/cgroup/pids", id, "cgroup.procs"), Path.of("/sys/fs/cgroup", id, "cgroup.procs"))) {
            String text = Host.read(procs);
            if (text != null) {
                return text.lines().filter(l -> !l.isBlank()).map(Long::parseLong).toList();
            }
        }
        return List.of();
    }

    static String statusLine(long pid, String field) {
        return Host.read(Path.of("/proc", Long.toString(pid), "status")).lines()
                .filter(l -> l.startsWith(field + ":")).findFirst().orElseThrow().substring(field.length() + 1).strip();
    }

    @Test
    void rootInsideIsTheMappedIdOutside(Sandbox sb) throws Exception {
        Bundle b = withUserNamespace(sb.bundle().args("sleep", "1000"), 0, HOST_BASE, 65536);
        Path shared = openShared(b);
        // ids the config gives are the container's: a tmpfs's uid=/gid= and a device's owner
        b.mount("/owned", "tmpfs", "tmpfs", "uid=1000", "gid=1001", "mode=755");
        b.config().withObjectProperty("linux").withArrayProperty("devices").addObject().put("path", "/dev/owned")
                .put("type", "c").put("major", 1).put("minor", 3).put("fileMode", 438).put("uid", 1000).put("gid", 1001);
        b.write();
        String id = sb.id("userns");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "create", id).ok();
        long init = j.state(id).path("pid").asLong();
        sb.sawPid(init);

        // the host sees the mapped ids; the holder of the namespace is gone once create returns
        assertEquals(HOST_BASE + "\t" + HOST_BASE + "\t" + HOST_BASE + "\t" + HOST_BASE, statusLine(init, "Uid"));
        assertEquals(HOST_BASE + "\t" + HOST_BASE + "\t" + HOST_BASE + "\t" + HOST_BASE, statusLine(init, "Gid"));
        assertEquals(List.of(init), processesOf(id), "only the container's process is in its cgroup after create");
        String userns = Host.namespace(init, "user");
        assertNotEquals(Host.namespace(1, "user"), userns);
        for (String kind : List.of("mnt", "uts", "ipc", "net", "pid")) {
            assertNotEquals(Host.namespace(1, kind), Host.namespace(init, kind), kind);
        }
        j.run("start", id).ok();

        // exec joins the user namespace and runs as the process's ids inside
        Facts inside = new Facts(j.run("exec", id, "sh", "-c", "echo \"uid $(id -u)\"; echo \"gid $(id -g)\"; "
                + "echo \"userns $(readlink /proc/self/ns/user)\"; sed 's/^/uidmap /' /proc/self/uid_map; "
                + "sed 's/^/gidmap /' /proc/self/gid_map; echo \"setgroups $(cat /proc/self/setgroups)\"; "
                + "touch /shared/made; mkdir /dev/made; "
                + "for p in /dev /dev/shm /dev/null /dev/made /owned /dev/owned; do echo \"owner$p $(stat -c %u:%g $p)\"; done")
                .ok().stdout());
        assertEquals("0", inside.one("uid"));
        assertEquals("0", inside.one("gid"));
        assertEquals(userns, inside.one("userns"));
        assertEquals(List.of("0 " + HOST_BASE + " 65536"), inside.all("uidmap").stream().map(l -> l.strip().replaceAll("\\s+", " ")).toList());
        assertEquals(List.of("0 " + HOST_BASE + " 65536"), inside.all("gidmap").stream().map(l -> l.strip().replaceAll("\\s+", " ")).toList());
        assertEquals("allow", inside.one("setgroups"));
        // a tmpfs (/dev, /dev/shm) and the devices the runtime made belong to the container's root
        assertEquals("0:0", inside.one("owner/dev"), inside.raw());
        assertEquals("0:0", inside.one("owner/dev/shm"), inside.raw());
        assertEquals("0:0", inside.one("owner/dev/null"), inside.raw());
        assertEquals("0:0", inside.one("owner/dev/made"), inside.raw());
        assertEquals("1000:1001", inside.one("owner/owned"), inside.raw());
        assertEquals("1000:1001", inside.one("owner/dev/owned"), inside.raw());
        assertEquals(HOST_BASE, ((Number) Files.getAttribute(shared.resolve("made"), "unix:uid")).longValue());
        assertEquals(HOST_BASE, ((Number) Files.getAttribute(shared.resolve("made"), "unix:gid")).longValue());

        Facts user = new Facts(j.run("exec", "--user", "1000:1000", id, "sh", "-c",
                "echo \"id $(id -u):$(id -g)\"; echo \"userns $(readlink /proc/self/ns/user)\"; touch /shared/by-1000").ok().stdout());
        assertEquals("1000:1000", user.one("id"));
        assertEquals(userns, user.one("userns"));
        assertEquals(HOST_BASE + 1000, ((Number) Files.getAttribute(shared.resolve("by-1000"), "unix:uid")).longValue());
        j.run("exec", "--user", "70000", id, "true").exit(1);

        // the other commands behave as without a user namespace
        assertTrue(j.run("ps", id).ok().stdout().contains("sleep"));
        j.run("pause", id).ok();
        assertEquals("paused", j.state(id).path("status").asText());
        j.run("resume", id).ok();
        assertTrue(j.run("events", "--stats", id).ok().stdout().contains("\"pids\""));
        j.run("update", "--pids-limit", "123", id).ok();
        assertTrue(j.run("events", "--stats", id).ok().stdout().contains("\"limit\":123"), "update's limit");
        j.run("kill", id, "KILL").ok();
        Wait.forExit(init);
        j.run("delete", id).ok();
        assertEquals(List.of(), sb.leftovers());
    }

    @Test
    void severalRangesAndAnUnprivilegedProcess(Sandbox sb) throws Exception {
        // three lines in each map; the process's ids come from the second and third
        Bundle b = withUserNamespace(sb.bundle(), 0, HOST_BASE, 1000, 1000, 2 * HOST_BASE + 1000, 1000,
                5000, 3 * HOST_BASE, 10);
        b.user(1000, 1001, 5003).args("sh", "-c", "echo \"id $(id -u):$(id -g):$(id -G)\"; "
                + "sed 's/^/uidmap /' /proc/self/uid_map; grep -E '^(Uid|Gid|Groups)' /proc/self/status | sed 's/^/status /'; "
                + "touch /shared/by-process; sleep 1000");
        Path shared = openShared(b);
        String id = sb.id("ranges");
        Jrunc j = sb.jrunc();
        j.in(b.dir(), "run", "--detach", id).ok();
        long init = j.state(id).path("pid").asLong();
        sb.sawPid(init);
        long hostUid = 2 * HOST_BASE + 1000;
        assertTrue(statusLine(init, "Uid").startsWith(hostUid + "\t"), statusLine(init, "Uid"));
        assertTrue(statusLine(init, "Gid").startsWith((hostUid + 1) + "\t"), statusLine(init, "Gid"));
        assertEquals(Long.toString(3 * HOST_BASE + 3), statusLine(init, "Groups"));
        Wait.until(java.time.Duration.ofSeconds(30), "the process wrote its file", () -> Files.exists(shared.resolve("by-process")));
        assertEquals(hostUid, ((Number) Files.getAttribute(shared.resolve("by-process"), "unix:uid")).longValue());
        assertEquals(hostUid + 1, ((Number) Files.getAttribute(shared.resolve("by-process"), "unix:gid")).longValue());
        j.run("delete", "--force", id).ok();
        assertEquals(List.of(), sb.leftovers());
    }

    @Test
    void aUserNamespaceJoinedByPath(Sandbox sb) throws Exception {
        Bundle first = withUserNamespace(sb.bundle().args("sleep", "1000"), 0, HOST_BASE, 65536);
        String owner = sb.id("owner");
        Jrunc j = sb.jrunc();
        j.in(first.dir(), "run", "--detach", owner).ok();
        long ownerPid = j.state(owner).path("pid").asLong();
        sb.sawPid(ownerPid);

        Bundle second = sb.bundle().args("sh", "-c", "echo \"uid $(id -u)\"; echo \"userns $(readlink /proc/self/ns/user)\"; "
                + "echo \"mntns $(readlink /proc/self/ns/mnt)\"");
        second.config().withObjectProperty("linux").withArrayProperty("namespaces").addObject().put("type", "user")
                .put("path", "/proc/" + ownerPid + "/ns/user");
        second.write();
        String joined = sb.id("joined");
        Facts inside = new Facts(j.in(second.dir(), "run", joined).ok().stdout());
        assertEquals("0", inside.one("uid"));
        assertEquals(Host.namespace(ownerPid, "user"), inside.one("userns"));
        assertNotEquals(Host.namespace(ownerPid, "mnt"), inside.one("mntns"), "a mount namespace of its own");
        j.run("delete", "--force", owner).ok();
        j.run("delete", "--force", joined);
        assertEquals(List.of(), sb.leftovers());
    }

    /**
     * The holder of the user namespace exits by itself when the JVM that made it dies (its release
     * pipe's only write end closes): a create killed while the holder lives leaves no holder, even
     * before delete. The holder is the container's only process outside its pid namespace.
     */
    @Test
    void aKilledCreateLeavesNoHolder(Sandbox sb) throws Exception {
        Bundle b = withUserNamespace(sb.bundle().args("sleep", "1000"), 0, HOST_BASE, 65536);
        // a tmpfs that starts with a copy of 2000 files: the holder lives while the rootfs is built
        Path data = Files.createDirectories(b.rootfs().resolve("data"));
        for (int i = 0; i < 2000; i++) {
            Files.writeString(data.resolve("f" + i), "x");
        }
        b.mount("/data", "tmpfs", "tmpfs", "tmpcopyup");
        Jrunc j = sb.jrunc();
        String hostPidns = Host.namespace(ProcessHandle.current().pid(), "pid");
        int sawHolder = 0;
        for (int delay = 50; delay <= 1000; delay += 50) {
            String id = sb.id("killed");
            Jrunc.Background create = j.start(b.dir(), "create", id);
            Thread.sleep(delay);
            boolean holderAlive = cgroupProcs(id).stream().anyMatch(p -> hostPidns.equals(Host.namespace(p, "pid")));
            create.process().destroyForcibly();
            create.process().waitFor();
            if (holderAlive) {
                sawHolder++;
            }
            Wait.until(java.time.Duration.ofSeconds(10), "no holder of " + id + " after its create was killed",
                    () -> processesOf(id).stream().noneMatch(p -> hostPidns.equals(Host.namespace(p, "pid"))));
            j.run("delete", "--force", id).ok();
            assertEquals(List.of(), sb.leftovers(), "create killed at " + delay + " ms");
        }
        assertTrue(sawHolder >= 2, "the kills must land while a holder lives, only " + sawHolder + " did");
    }

    @Test
    void badUserNamespaceConfigsAreRefusedAtCreate(Sandbox sb) throws Exception {
        String netns = "/proc/" + ProcessHandle.current().pid() + "/ns/net";
        Path notANamespace = sb.file("not-a-namespace");
        Files.writeString(notANamespace, "");
        record Case(String hint, Consumer<Bundle> edit, String message) {}
        List<Case> cases = List.of(
                new Case("nouserns", b -> {
                    b.config().withObjectProperty("linux").putArray("uidMappings").addObject()
                            .put("containerID", 0).put("hostID", HOST_BASE).put("size", 10);
                    b.write();
                }, "linux.uidMappings: requires a user namespace"),
                new Case("nomaps", b -> {
                    b.config().withObjectProperty("linux").withArrayProperty("namespaces").addObject().put("type", "user");
                    b.write();
                }, "linux.uidMappings: must be set when creating a user namespace"),
                new Case("nogidmaps", b -> {
                    withUserNamespace(b, 0, HOST_BASE, 10);
                    b.config().withObjectProperty("linux").remove("gidMappings");
                    b.write();
                }, "linux.gidMappings: must be set when creating a user namespace"),
                new Case("overlap", b -> withUserNamespace(b, 0, HOST_BASE, 100, 50, 2 * HOST_BASE, 100),
                        "linux.uidMappings[1].containerID: overlaps linux.uidMappings[0]"),
                new Case("hostoverlap", b -> withUserNamespace(b, 0, HOST_BASE, 100, 1000, HOST_BASE + 50, 100),
                        "linux.uidMappings[1].hostID: overlaps linux.uidMappings[0]"),
                new Case("beyond", b -> withUserNamespace(b, 0, 4294967295L - 10, 65536),
                        "linux.uidMappings[0]: range goes beyond id 4294967294"),
                new Case("toomany", b -> {
                    long[] ranges = new long[3 * 341];
                    for (int i = 0; i < 341; i++) {
                        ranges[3 * i] = i;
                        ranges[3 * i + 1] = HOST_BASE + i;
                        ranges[3 * i + 2] = 1;
                    }
                    withUserNamespace(b, ranges);
                }, "linux.gidMappings: the kernel refused the map: invalid argument"),
                new Case("unmappeduid", b -> withUserNamespace(b, 0, HOST_BASE, 65536).user(70000, 0),
                        "process.user.uid: 70000 is not mapped in the container's user namespace"),
                new Case("unmappedgroup", b -> withUserNamespace(b, 0, HOST_BASE, 65536).user(0, 0, 10, 70000),
                        "process.user.additionalGids[1]: 70000 is not mapped in the container's user namespace"),
                new Case("unmappedtmpfs", b -> withUserNamespace(b, 0, HOST_BASE, 65536)
                        .mount("/owned", "tmpfs", "tmpfs", "uid=70000"),
                        "uid=70000 is not mapped in the container's user namespace"),
                new Case("notuserns", b -> {
                    b.config().withObjectProperty("linux").withArrayProperty("namespaces").addObject().put("type", "user")
                            .put("path", netns);
                    b.write();
                }, netns + " is not a user namespace"),
                new Case("afile", b -> {
                    b.config().withObjectProperty("linux").withArrayProperty("namespaces").addObject().put("type", "user")
                            .put("path", notANamespace.toString());
                    b.write();
                }, notANamespace + " is not a user namespace"),
                new Case("pathandmaps", b -> {
                    b.config().withObjectProperty("linux").withArrayProperty("namespaces").addObject().put("type", "user")
                            .put("path", "/proc/1/ns/user");
                    b.config().withObjectProperty("linux").putArray("uidMappings").addObject()
                            .put("containerID", 0).put("hostID", HOST_BASE).put("size", 10);
                    b.write();
                }, "linux.uidMappings: cannot be set when joining a user namespace by path"),
                new Case("nomountns", b -> {
                    withUserNamespace(b, 0, HOST_BASE, 65536);
                    b.config().withObjectProperty("linux").withArrayProperty("namespaces")
                            .removeIf(n -> n.path("type").asText().equals("mount"));
                    b.config().withObjectProperty("linux").remove(List.of("maskedPaths", "readonlyPaths"));
                    b.write();
                }, "linux.namespaces: a user namespace without a mount namespace is not supported by jrunc"));
        Jrunc j = sb.jrunc();
        for (Case c : cases) {
            Bundle b = sb.bundle().args("true");
            c.edit().accept(b);
            String id = sb.id(c.hint());
            Path log = sb.file(c.hint() + ".json");
            Result r = j.withJsonLog(log).in(b.dir(), "create", id).exit(1);
            FailedCreateTest.assertMessage(r, log, c.message());
            assertTrue(!r.stderr().contains("Exception") && r.stderr().strip().lines().count() == 1, r.describe("one line"));
            assertEquals(List.of(), sb.leftovers(), c.hint());
        }
    }
}
