package io.jrunc.cgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The enabling decisions, on plain files laid out like cgroupfs (a regular file keeps what was last
 * written to it, so the test reads the request back). The kernel's side is tested on a unified host.
 */
class SubtreeControlTest {

    @TempDir
    Path root;

    private static Path cgroup(Path dir, String controllers, String subtreeControl, String procs, boolean isRoot)
            throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("cgroup.controllers"), controllers + "\n");
        Files.writeString(dir.resolve("cgroup.subtree_control"), subtreeControl + "\n");
        Files.writeString(dir.resolve("cgroup.procs"), procs);
        if (!isRoot) {
            Files.writeString(dir.resolve("cgroup.type"), "domain\n");
        }
        return dir;
    }

    private static String subtreeControl(Path dir) throws IOException {
        return Files.readString(dir.resolve("cgroup.subtree_control")).trim();
    }

    @Test
    void enablesWhatIsAvailableButNotYetEnabled() throws Exception {
        Path dir = cgroup(root.resolve("a"), "cpuset cpu io memory pids", "cpu memory", "", false);
        new SubtreeControl(dir).enableAvailable();
        assertEquals("+cpuset +io +pids", subtreeControl(dir));
    }

    @Test
    void leavesACgroupWithItsOwnProcessesAlone() throws Exception {
        Path dir = cgroup(root.resolve("busy"), "cpu memory", "", "4242\n", false);
        new SubtreeControl(dir).enableAvailable();
        assertEquals("", subtreeControl(dir));
    }

    @Test
    void theRootIsExemptFromTheNoInternalProcessRule() throws Exception {
        Path dir = cgroup(root, "cpu memory", "", "1\n2\n", true);
        new SubtreeControl(dir).enableAvailable();
        assertEquals("+cpu +memory", subtreeControl(dir));
    }

    @Test
    void nothingToEnableWritesNothing() throws Exception {
        Path dir = cgroup(root.resolve("done"), "cpu", "cpu", "", false);
        new SubtreeControl(dir).enableAvailable();
        assertEquals("cpu", subtreeControl(dir));
    }

    @Test
    void aNewV2CgroupGetsControllersEnabledInEveryAncestorButNotInItself() throws Exception {
        cgroup(root, "cpu memory", "", "1\n", true);
        Path middle = cgroup(root.resolve("middle"), "cpu memory", "", "", false);
        Hierarchy unified = new Hierarchy("", root, "/", true);

        new CgroupDirectoryBuilder().build(unified, middle.resolve("ctr"), true);

        assertEquals("+cpu +memory", subtreeControl(root));
        assertEquals("+cpu +memory", subtreeControl(middle));
        assertEquals(true, Files.isDirectory(middle.resolve("ctr")));
    }

    @Test
    void onAHybridHostTheV2HierarchyIsOnlyJoined() throws Exception {
        cgroup(root, "hugetlb", "", "1\n", true);
        new CgroupDirectoryBuilder().build(new Hierarchy("", root, "/", false), root.resolve("ctr"), false);
        assertEquals("", subtreeControl(root));
        assertEquals(true, Files.isDirectory(root.resolve("ctr")));
    }
}
