package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the kernel shows a container's process: each test runs one container whose shell prints
 * everything at once, then runs the same bundle under runc and expects the same facts.
 */
@ExtendWith(JruncExtension.class)
class InsideContainerTest {

    static final String PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    /** Prints pid, hostname, cwd, fds, ids, limits, the status lines, mounts, masked/readonly probes, env. */
    static String factsScript(List<String> masked) {
        StringBuilder s = new StringBuilder();
        s.append("echo \"pid $$\"; echo \"hostname $(hostname)\"; echo \"cwd $(pwd)\";");
        // no pipe or redirection: while one is set up the shell (pid 1) holds descriptors of its own
        s.append("echo fds-begin; ls /proc/1/fd; echo fds-long; ls -l /proc/1/fd; echo fds-end;");
        s.append("[ -e /proc/1/fd/3 ] && echo \"fd3 $(cat <&3)\";");
        s.append("echo \"id $(id)\"; echo \"umask $(umask)\"; echo \"nofile $(ulimit -n) $(ulimit -Hn)\";");
        s.append("grep -E '^(Cap|NoNewPrivs|SigBlk|SigIgn|Seccomp)' /proc/self/status | sed 's/^/status /';");
        s.append("sed 's/^/mountinfo /' /proc/self/mountinfo;");
        s.append("for p in ").append(String.join(" ", masked)).append("; do ");
        s.append("if [ -d $p ]; then echo \"masked $p $(ls -A $p | wc -l)\"; ");
        s.append("elif [ -e $p ]; then echo \"masked $p $(head -c 16 $p 2>/dev/null | wc -c)\"; fi; done;");
        s.append("(touch /rodir/x) 2>/dev/null; echo \"rodir-touch $?\";");
        s.append("(echo evil > /proc/sys/kernel/hostname) 2>/dev/null; echo \"procsys-write $?\";");
        s.append("echo \"hostname-after $(hostname)\";");
        s.append("env | sort | sed 's/^/env /'");
        return s.toString();
    }

    /**
     * Root with differing capability sets, NNP on, a low RLIMIT_NOFILE, a missing cwd, a preserved fd;
     * and the same under podman's seccomp profile, whose process a libc chain makes instead of
     * posix_spawn (docs/seccomp.md): both must give what runc gives.
     */
    @ParameterizedTest(name = "podman seccomp profile: {0}")
    @ValueSource(booleans = {false, true})
    void rootProcessSeesItsConfig(boolean seccomp, Sandbox sb) throws Exception {
        Bundle b = sb.bundle().seccomp(seccomp ? Bundle.capturedProfile("podman-default") : null);
        Files.createDirectories(b.rootfs().resolve("rodir"));
        Files.writeString(b.rootfs().resolve("secret"), "top secret\n");
        b.addMaskedPath("/secret").addReadonlyPath("/rodir");
        List<String> bounding = List.of("CAP_CHOWN", "CAP_KILL", "CAP_NET_RAW", "CAP_SYS_CHROOT", "CAP_SETUID");
        List<String> permitted = List.of("CAP_CHOWN", "CAP_KILL", "CAP_NET_RAW");
        List<String> inheritable = List.of("CAP_KILL");
        b.capabilities(bounding, List.of("CAP_KILL", "CAP_NET_RAW"), permitted, inheritable, List.of())
                .noNewPrivileges(true)
                .rlimit("RLIMIT_NOFILE", 512, 256)
                .hostname("jt-inside")
                .cwd("/work/new/dir")
                .env(PATH, "FOO=bar baz", "EMPTY=")
                .sh(factsScript(b.maskedPaths()));
        Path fd3 = Files.writeString(sb.file("fd3.txt"), "fd3-payload\n");

        Result r = sb.jrunc().withFd3(fd3, b.dir(), "run", "--preserve-fds", "1", sb.id("inside")).ok();
        Facts f = new Facts(r.stdout());

        // every check reports, so that one run shows everything that is wrong
        assertAll(f.raw(),
                () -> assertEquals("1", f.one("pid")),
                () -> assertEquals("jt-inside", f.one("hostname")),
                () -> assertEquals("/work/new/dir", f.one("cwd")),
                () -> assertTrue(Files.isDirectory(b.rootfs().resolve("work/new/dir")), "cwd created in the rootfs"),
                () -> assertEquals(List.of("0", "1", "2", "3"), f.between("fds-begin", "fds-long"), "open fds"),
                () -> assertEquals("fd3-payload", f.one("fd3")),
                () -> assertEquals("uid=0 gid=0", f.one("id")),
                () -> assertEquals("256 512", f.one("nofile"), "RLIMIT_NOFILE soft and hard"),
                () -> assertEquals(Caps.hex(bounding), f.status().get("CapBnd"), "CapBnd"),
                () -> assertEquals(Caps.hex(permitted), f.status().get("CapPrm"), "CapPrm"),
                // root's effective set after execve is its permitted set (the file counts as fully privileged)
                () -> assertEquals(Caps.hex(permitted), f.status().get("CapEff"), "CapEff"),
                () -> assertEquals(Caps.hex(inheritable), f.status().get("CapInh"), "CapInh"),
                () -> assertEquals(Caps.hex(List.of()), f.status().get("CapAmb"), "CapAmb"),
                () -> assertEquals("1", f.status().get("NoNewPrivs"), "NoNewPrivs"),
                () -> assertEquals(seccomp ? "2" : "0", f.status().get("Seccomp"), "Seccomp"),
                () -> assertEquals("0000000000000000", f.status().get("SigBlk"), "SigBlk"),
                () -> assertEquals("0000000000000000", f.status().get("SigIgn"), "SigIgn"),
                () -> checkMountinfo(sb, b, f.all("mountinfo")),
                () -> checkMasked(b, f),
                () -> assertEquals("1", f.one("rodir-touch"), "readonlyPaths entry is writable"),
                () -> assertFalse(Files.exists(b.rootfs().resolve("rodir/x")), "readonlyPaths entry is writable"),
                () -> assertEquals("1", f.one("procsys-write"), "/proc/sys is writable"),
                () -> assertEquals("jt-inside", f.one("hostname-after")),
                () -> assertTrue(f.all("env").containsAll(List.of(PATH, "FOO=bar baz", "EMPTY=", "HOME=/")), "env"));

        Facts runc = new Facts(sb.runc().withFd3(fd3, b.dir(), "run", "--preserve-fds", "1", sb.id("runc")).ok()
                .stdout());
        sameAsRunc(f, runc, "pid", "hostname", "cwd", "fd3", "id", "umask", "nofile", "masked", "rodir-touch",
                "procsys-write", "env");
        assertEquals(runc.between("fds-begin", "fds-long"), f.between("fds-begin", "fds-long"));
        sameCapabilitiesAsRunc(f, runc);
    }

    /**
     * A non-root user with ambient capabilities, extra groups, a umask, and NNP off; with a seccomp
     * profile the child loads the filter before it drops its credentials (no NNP needs CAP_SYS_ADMIN).
     */
    @ParameterizedTest(name = "podman seccomp profile: {0}")
    @ValueSource(booleans = {false, true})
    void nonRootUserGetsItsIdsAndCapabilities(boolean seccomp, Sandbox sb) throws Exception {
        Bundle b = sb.bundle().seccomp(seccomp ? Bundle.capturedProfile("podman-default") : null);
        Files.writeString(b.rootfs().resolve("etc/passwd"), "root:x:0:0::/root:/bin/sh\nu:x:1000:1000::/home/u:/bin/sh\n");
        List<String> bounding = List.of("CAP_CHOWN", "CAP_KILL", "CAP_NET_RAW", "CAP_SETUID");
        List<String> set = List.of("CAP_KILL", "CAP_NET_RAW");
        List<String> ambient = List.of("CAP_NET_RAW");
        b.user(1000, 1000, 10, 20).capabilities(bounding, set, set, set, ambient).noNewPrivileges(false)
                .sh(factsScript(List.of()));
        b.process().withObjectProperty("user").put("umask", 0027);
        b.write();

        Facts f = new Facts(sb.jrunc().in(b.dir(), "run", sb.id("user")).ok().stdout());
        // a non-root process keeps only its ambient set across execve (busybox has no file capabilities)
        assertAll(f.raw(),
                () -> assertEquals("uid=1000(u) gid=1000 groups=10,20", f.one("id")),
                () -> assertEquals("0027", f.one("umask")),
                () -> assertTrue(f.all("env").contains("HOME=/home/u"), "HOME from the container's /etc/passwd"),
                () -> assertEquals(Caps.hex(bounding), f.status().get("CapBnd"), "CapBnd"),
                () -> assertEquals(Caps.hex(set), f.status().get("CapInh"), "CapInh"),
                () -> assertEquals(Caps.hex(ambient), f.status().get("CapAmb"), "CapAmb"),
                () -> assertEquals(Caps.hex(ambient), f.status().get("CapPrm"), "CapPrm"),
                () -> assertEquals(Caps.hex(ambient), f.status().get("CapEff"), "CapEff"),
                () -> assertEquals("0", f.status().get("NoNewPrivs"), "NoNewPrivs"),
                () -> assertEquals(seccomp ? "2" : "0", f.status().get("Seccomp"), "Seccomp"),
                () -> assertEquals("0000000000000000", f.status().get("SigBlk"), "SigBlk"),
                () -> assertEquals("0000000000000000", f.status().get("SigIgn"), "SigIgn"),
                () -> assertEquals(List.of("0", "1", "2"), f.between("fds-begin", "fds-long"), "open fds"));

        Facts runc = new Facts(sb.runc().in(b.dir(), "run", sb.id("runc")).ok().stdout());
        sameAsRunc(f, runc, "id", "umask", "nofile", "cwd", "env");
        assertEquals(runc.between("fds-begin", "fds-long"), f.between("fds-begin", "fds-long"));
        sameCapabilitiesAsRunc(f, runc);
    }

    static void sameAsRunc(Facts jrunc, Facts runc, String... keys) {
        for (String key : keys) {
            assertEquals(runc.all(key), jrunc.all(key), "'" + key + "' differs from runc's\n--- jrunc ---\n"
                    + jrunc.raw() + "\n--- runc ---\n" + runc.raw());
        }
    }

    /** runc 1.1 leaves signal 32 ignored (Go's runtime), so only the capability sets and NNP are compared. */
    static void sameCapabilitiesAsRunc(Facts jrunc, Facts runc) {
        for (String key : List.of("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs")) {
            assertEquals(runc.status().get(key), jrunc.status().get(key), key + " differs from runc's\n--- jrunc ---\n"
                    + jrunc.raw() + "\n--- runc ---\n" + runc.raw());
        }
    }

    /**
     * The rootfs is the one mount at /, and no mount reveals a host path: a mount's root may lie inside
     * the rootfs (a readonly path is a bind of the rootfs's own directory) but nowhere else under the
     * test's directory, and nothing mentions /work (where the tests run).
     */
    static void checkMountinfo(Sandbox sb, Bundle b, List<String> lines) {
        assertFalse(lines.isEmpty());
        Set<String> allowed = new HashSet<>(List.of("/"));
        b.config().get("mounts").forEach(m -> allowed.add(m.get("destination").asText()));
        allowed.addAll(b.maskedPaths());
        allowed.addAll(b.readonlyPaths());
        List<String> roots = lines.stream().filter(l -> l.split(" ")[4].equals("/")).toList();
        assertEquals(1, roots.size(), "one mount at /: " + roots);
        String rootfsRoot = roots.getFirst().split(" ")[3];
        assertTrue(b.rootfs().toString().endsWith(rootfsRoot), "/ is not the rootfs: " + roots);
        for (String line : lines) {
            String[] fields = line.split(" ");
            String root = fields[3];
            String mountPoint = fields[4];
            // a cgroup mount at /sys/fs/cgroup is one mount per hierarchy on cgroup v1
            assertTrue(allowed.contains(mountPoint) || mountPoint.startsWith("/sys/fs/cgroup/"),
                    "unexpected mount point " + mountPoint + ": " + line);
            assertFalse(line.contains("/work"), "host path in container mountinfo: " + line);
            if (!root.equals(rootfsRoot) && !root.startsWith(rootfsRoot + "/")) {
                assertFalse(line.contains(sb.dir().toString()), "host path in container mountinfo: " + line);
            }
        }
    }

    /** Every masked path that exists reads as empty; /secret and /proc/timer_list must have been probed. */
    static void checkMasked(Bundle b, Facts f) {
        Set<String> probed = new HashSet<>();
        for (String line : f.all("masked")) {
            String[] kv = line.split(" ");
            probed.add(kv[0]);
            assertEquals("0", kv[1], "masked path readable: " + line);
        }
        assertTrue(probed.contains("/secret"), f.raw());
        if (Host.read(Path.of("/proc/timer_list")) != null && !Host.read(Path.of("/proc/timer_list")).isEmpty()) {
            assertTrue(probed.contains("/proc/timer_list"), f.raw());
        }
    }
}
