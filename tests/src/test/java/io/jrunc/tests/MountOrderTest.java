package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * runtime-spec config.md: mounts MUST be made in the listed order. Seen from inside the container in
 * /proc/self/mountinfo (which Linux 6.8 and later list by mount ID, the order mount objects were made,
 * and older kernels by the order they were attached), and by what a later mount shadows: a bind over
 * /proc/meminfo listed after /proc is what the container reads (lxcfs's use, with podman and Kubernetes).
 */
@ExtendWith(JruncExtension.class)
public class MountOrderTest {

    /** The config's destinations in the order mountinfo first shows each (other mounts left out). */
    public static List<String> configOrderSeen(List<String> mountinfo, List<String> destinations) {
        Set<String> wanted = new LinkedHashSet<>(destinations);
        Set<String> seen = new LinkedHashSet<>();
        for (String line : mountinfo) {
            String mountPoint = line.split(" ")[4];
            if (wanted.contains(mountPoint)) {
                seen.add(mountPoint);
            }
        }
        return List.copyOf(seen);
    }

    static List<String> destinations(Bundle b) {
        List<String> d = new ArrayList<>();
        for (JsonNode m : b.config().get("mounts")) {
            d.add(m.get("destination").asText());
        }
        return d;
    }

    /** runc's default spec: /proc first, then /dev and its submounts, /sys, /sys/fs/cgroup. */
    @Test
    void mountinfoListsTheDefaultSpecsMountsInTheConfigsOrder(Sandbox sb) throws Exception {
        Bundle b = sb.bundle();
        b.sh("sed 's/^/mi /' /proc/self/mountinfo");
        List<String> config = List.copyOf(new LinkedHashSet<>(destinations(b)));
        assertEquals("/proc", config.getFirst(), "runc's default spec lists /proc first");
        for (Jrunc runtime : List.of(sb.jrunc(), sb.runc())) {
            Facts f = new Facts(runtime.in(b.dir(), "run", sb.id("order")).ok().stdout());
            assertEquals(config, configOrderSeen(f.all("mi"), config), runtime.binary() + ":\n" + f.raw());
        }
    }

    /**
     * lxcfs's binds: a file bound over /proc/meminfo and /proc/uptime, listed after /proc, is what the
     * container reads; before the redesign the later procfs shadowed them.
     */
    @Test
    void aBindOverProcMeminfoListedAfterProcIsWhatTheContainerReads(Sandbox sb) throws Exception {
        Path meminfo = sb.file("meminfo");
        Files.writeString(meminfo, "MemTotal:         123456 kB\nMemFree:           65432 kB\n");
        Path uptime = sb.file("uptime");
        Files.writeString(uptime, "4242.00 1234.00\n");
        Bundle b = sb.bundle();
        b.mount("/proc/meminfo", "bind", meminfo.toString(), "bind", "ro");
        b.mount("/proc/uptime", "bind", uptime.toString(), "bind", "ro");
        b.sh("echo \"mem $(head -1 /proc/meminfo)\"; echo \"up $(cat /proc/uptime)\";"
                + "echo \"pid1 $(cat /proc/1/comm)\"; sed 's/^/mi /' /proc/self/mountinfo");
        for (Jrunc runtime : List.of(sb.jrunc(), sb.runc())) {
            Facts f = new Facts(runtime.in(b.dir(), "run", sb.id("lxcfs")).ok().stdout());
            assertAll(runtime.binary() + ":\n" + f.raw(),
                    () -> assertEquals("MemTotal:         123456 kB", f.one("mem")),
                    () -> assertEquals("4242.00 1234.00", f.one("up")),
                    () -> assertEquals("sh", f.one("pid1"), "/proc is the container's"),
                    () -> assertEquals(List.of("/proc", "/proc/meminfo", "/proc/uptime"),
                            configOrderSeen(f.all("mi"), List.of("/proc", "/proc/meminfo", "/proc/uptime"))));
        }
    }

    /**
     * Two entries with one destination after /proc: the second covers the first, mountinfo lists both
     * in the config's order, and a working directory inside them is the mount that is there (entered
     * once the mounts are made again, not the copy made before).
     */
    @Test
    void stackedMountsAfterProcKeepTheirOrderAndTheWorkingDirectoryIsTheVisibleOne(Sandbox sb) throws Exception {
        Path lower = sb.file("lower");
        Path upper = sb.file("upper");
        Files.createDirectories(lower);
        Files.createDirectories(upper);
        Files.writeString(lower.resolve("which"), "lower\n");
        Files.writeString(upper.resolve("which"), "upper\n");
        Bundle b = sb.bundle();
        Files.createDirectories(b.rootfs().resolve("data"));
        b.bind(lower, "/data");
        b.mount("/data", "tmpfs", "tmpfs", "mode=755");
        b.bind(upper, "/data");
        b.cwd("/data");
        b.sh("echo \"which $(cat which)\"; echo \"cwd $(readlink /proc/self/cwd)\"; echo \"pwd $(pwd -P)\";"
                + "echo written > out; sed 's/^/mi /' /proc/self/mountinfo");
        for (Jrunc runtime : List.of(sb.jrunc(), sb.runc())) {
            Files.deleteIfExists(upper.resolve("out"));
            Facts f = new Facts(runtime.in(b.dir(), "run", sb.id("stack")).ok().stdout());
            // mountinfo's fourth field, the root of the mount in its filesystem, tells the binds apart
            List<String> data = f.all("mi").stream().filter(l -> l.split(" ")[4].equals("/data"))
                    .map(l -> Path.of(l.split(" ")[3]).getFileName()).map(n -> n == null ? "/" : n.toString()).toList();
            assertAll(runtime.binary() + ":\n" + f.raw(),
                    () -> assertEquals("upper", f.one("which")),
                    () -> assertEquals("/data", f.one("cwd")),
                    () -> assertEquals("/data", f.one("pwd")),
                    () -> assertEquals(List.of("lower", "/", "upper"), data, "the /data mounts in order"),
                    () -> assertEquals("written\n", Files.readString(upper.resolve("out"))));
        }
    }
}
