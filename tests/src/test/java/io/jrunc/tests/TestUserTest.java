package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** What the rootless tests rely on {@link TestUser} for, checked against the kernel and the files. */
class TestUserTest {

    @Test
    void ensureIsIdempotentAndGivesOneRangeEach() throws Exception {
        TestUser first = TestUser.ensure();
        TestUser again = TestUser.ensure();
        assertEquals(first.uid(), again.uid());
        String line = TestUser.NAME + ":" + TestUser.SUB_START + ":" + TestUser.SUB_COUNT;
        for (Path file : List.of(Path.of("/etc/subuid"), Path.of("/etc/subgid"))) {
            assertEquals(List.of(line), Files.readAllLines(file).stream()
                    .filter(l -> l.startsWith(TestUser.NAME + ":")).toList(), file.toString());
        }
        Path run = first.runtimeDir();
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(run)));
        assertEquals(first.uid(), (int) Files.getAttribute(run, "unix:uid"));
        assertTrue(first.uid() >= 1000, "uid " + first.uid());
    }

    /** The user's ids, no capability, no_new_privs off (newuidmap must keep its privileges), a clean environment. */
    @Test
    void runsAsTheUserWithNothingOfRootsAndACleanEnvironment() {
        TestUser user = TestUser.ensure();
        Result r = user.run(Map.of("EXTRA", "1"), null, List.of("sh", "-c",
                "id -u; id -g; pwd; grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status; env")).ok();
        List<String> lines = r.stdout().lines().toList();
        assertEquals(List.of(Integer.toString(user.uid()), Integer.toString(user.gid()), user.home().toString(),
                "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000", "NoNewPrivs:\t0"), lines.subList(0, 6),
                r.describe("ids"));
        TreeSet<String> names = new TreeSet<>();
        lines.subList(6, lines.size()).forEach(l -> names.add(l.substring(0, l.indexOf('='))));
        // sh adds PWD (and SHLVL); nothing of the JVM's environment comes through
        names.removeAll(List.of("PWD", "SHLVL", "OLDPWD"));
        assertEquals(new TreeSet<>(List.of("EXTRA", "HOME", "LOGNAME", "PATH", "USER", "XDG_RUNTIME_DIR")), names,
                r.stdout());
    }

    /** newuidmap/newgidmap accept the user's subordinate range: a user namespace with two uid ranges. */
    @Test
    void subordinateRangesWorkThroughNewuidmap() {
        TestUser user = TestUser.ensure();
        Result r = user.run("unshare", "--user", "--map-root-user",
                "--map-users=" + TestUser.SUB_START + ",1," + TestUser.SUB_COUNT,
                "--map-groups=" + TestUser.SUB_START + ",1," + TestUser.SUB_COUNT,
                "sh", "-c", "cat /proc/self/uid_map; echo --; cat /proc/self/gid_map").ok();
        String[] maps = r.stdout().split("--\n");
        assertEquals(2, maps.length, r.stdout());
        String sub = "1 " + TestUser.SUB_START + " " + TestUser.SUB_COUNT;
        assertEquals(new TreeSet<>(List.of("0 " + user.uid() + " 1", sub)), lines(maps[0]), r.stdout());
        assertEquals(new TreeSet<>(List.of("0 " + user.gid() + " 1", sub)), lines(maps[1]), r.stdout());
    }

    private static TreeSet<String> lines(String map) {
        TreeSet<String> set = new TreeSet<>();
        map.lines().forEach(l -> set.add(l.strip().replaceAll("\\s+", " ")));
        return set;
    }
}
