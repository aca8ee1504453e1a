package io.jrunc.cgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.testsupport.HostLimitation;
import io.jrunc.testsupport.Requirements;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Against the real kernel of this machine (as root): cgroups under a test-unique name, real
 * processes, and the kernel's own view (/proc/[pid]/cgroup) as the judge.
 */
class CgroupKernelTest {

    private KernelCgroupFixture fixture;

    @BeforeEach
    void setUp() throws Exception {
        Requirements.requireRoot("creating cgroups");
        fixture = new KernelCgroupFixture();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    private Cgroup createAbsolute(String sub) throws CgroupException {
        return Cgroup.create(CgroupsPath.of("/" + fixture.name + "/" + sub, "unused"));
    }

    private static Set<String> hierarchiesShowing(long pid, String path) throws Exception {
        return hierarchiesShowing(Path.of("/proc/" + pid + "/cgroup"), path);
    }

    private static Set<String> hierarchiesShowing(Path procCgroupFile, String path) throws Exception {
        return KernelCgroupFixture.cgroupsOf(procCgroupFile).entrySet().stream()
                .filter(e -> e.getValue().equals(path))
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());
    }

    private static void assertAllDirectories(Cgroup cgroup, boolean exist) {
        for (String dir : cgroup.location().directories().values()) {
            assertEquals(exist, Files.isDirectory(Path.of(dir)), dir);
        }
    }

    @Test
    void aProcessAddedToTheCgroupIsInItInEveryHierarchyAndDestroyWaitsForItToGo() throws Exception {
        Cgroup cgroup = createAbsolute("ctr");
        String path = "/" + fixture.name + "/ctr";

        Set<String> expectedKeys = fixture.hierarchies.hierarchies().stream().map(Hierarchy::key).collect(Collectors.toSet());
        assertEquals(expectedKeys, cgroup.location().directories().keySet());
        assertEquals(CgroupMode.detect(), cgroup.mode());
        assertAllDirectories(cgroup, true);
        assertTrue(cgroup.isEmpty());

        Process sleep = fixture.start("sleep", "30");
        cgroup.addProcess(sleep.pid());

        assertEquals(cgroup.location().directories().keySet(), hierarchiesShowing(sleep.pid(), path));
        assertEquals(List.of(sleep.pid()), cgroup.processes());
        assertFalse(cgroup.isEmpty());

        CgroupException busy = assertThrows(CgroupException.class, cgroup::destroy);
        assertTrue(busy.getMessage().startsWith("failed to remove cgroup"), busy.getMessage());
        assertAllDirectories(cgroup, true);
        assertTrue(sleep.isAlive());

        sleep.destroyForcibly();
        sleep.waitFor();
        assertTrue(cgroup.isEmpty());
        cgroup.destroy();
        assertAllDirectories(cgroup, false);
        cgroup.destroy(); // already gone is fine
    }

    @Test
    void removeIfEmptyTakesAnEmptyCgroupAtOnceAndLeavesABusyOneToDestroy() throws Exception {
        Cgroup empty = createAbsolute("idle");
        assertTrue(empty.removeIfEmpty());
        assertAllDirectories(empty, false);
        assertTrue(empty.removeIfEmpty(), "already gone counts as removed");

        Cgroup busy = createAbsolute("busy");
        Process sleep = fixture.start("sleep", "30");
        busy.addProcess(sleep.pid());
        assertFalse(busy.removeIfEmpty());
        assertTrue(sleep.isAlive());
        assertEquals(List.of(sleep.pid()), busy.processes(), "what stayed still lists its process");
        sleep.destroyForcibly();
        sleep.waitFor();
        busy.destroy();
        assertAllDirectories(busy, false);

        Cgroup nested = createAbsolute("nested");
        for (String dir : nested.location().directories().values()) {
            Files.createDirectories(Path.of(dir, "inner"));
        }
        assertFalse(nested.removeIfEmpty(), "a cgroup below it is left to destroy");
        nested.destroy();
        assertAllDirectories(nested, false);
    }

    @Test
    void destroyRemovesCgroupsTheContainerMadeBelowItsOwn() throws Exception {
        Cgroup cgroup = createAbsolute("ctr");
        for (String dir : cgroup.location().directories().values()) {
            Files.createDirectories(Path.of(dir, "inner", "deeper"));
        }
        cgroup.destroy();
        assertAllDirectories(cgroup, false);
    }

    @Test
    void aNewCpusetCgroupInheritsCpusAndMemsOnEveryLevel() throws Exception {
        Cgroup cgroup = createAbsolute("ctr");
        Path leaf = cgroup.location().directory("cpuset");
        HostLimitation.skipUnless(leaf != null, "no cgroup v1 cpuset hierarchy on this host");
        Path root = fixture.hierarchies.byKey("cpuset").orElseThrow().mountPoint();
        for (String file : List.of("cpuset.cpus", "cpuset.mems")) {
            String expected = Files.readString(root.resolve(file)).trim();
            assertFalse(expected.isEmpty());
            assertEquals(expected, Files.readString(leaf.getParent().resolve(file)).trim(), file);
            assertEquals(expected, Files.readString(leaf.resolve(file)).trim(), file);
        }
    }

    @Test
    void aThreadPlacedForChildrenSpawnsThemInsideAndGoesBackHome() throws Exception {
        Cgroup cgroup = createAbsolute("ctr");
        long tid = KernelCgroupFixture.currentThreadId();
        Path threadCgroups = Path.of("/proc/self/task/" + tid + "/cgroup");
        Map<String, String> threadBefore = KernelCgroupFixture.cgroupsOf(threadCgroups);
        Map<String, String> processBefore = KernelCgroupFixture.cgroupsOf(Path.of("/proc/self/cgroup"));

        Process child;
        try (ChildPlacement placement = cgroup.placeForChildren(tid)) {
            assertEquals(cgroup.placementMovesWholeProcess(), placement.movesWholeProcess());
            assertEquals(cgroup.location().directories().keySet(), hierarchiesShowing(threadCgroups, "/" + fixture.name + "/ctr"),
                    "while placed, the thread is inside in every hierarchy");
            child = fixture.start("sleep", "30");
        }

        assertEquals(cgroup.location().directories().keySet(), hierarchiesShowing(child.pid(), "/" + fixture.name + "/ctr"));
        assertEquals(in(cgroup, threadBefore), in(cgroup, KernelCgroupFixture.cgroupsOf(threadCgroups)));
        assertEquals(in(cgroup, processBefore), in(cgroup, ownNow()));
        assertEquals(List.of(child.pid()), cgroup.processes());
    }

    /**
     * create's split placement: begun by one thread (the process move on a helper), completed by the
     * spawning thread, closed by the first; and closed without ever being completed, as when create
     * fails before its spawning thread runs: the JVM must be back where it was either way.
     */
    @Test
    void aPlacementBegunHereAndCompletedOnAnotherThreadGoesBackHome() throws Exception {
        Map<String, String> processBefore = KernelCgroupFixture.cgroupsOf(Path.of("/proc/self/cgroup"));

        Cgroup abandoned = createAbsolute("abandoned");
        abandoned.beginPlacement().close();
        assertEquals(in(abandoned, processBefore), in(abandoned, ownNow()), "closed unfinished");
        abandoned.destroy();

        Cgroup cgroup = createAbsolute("split");
        String inside = "/" + fixture.name + "/split";
        Map<String, Set<String>> seen = new java.util.concurrent.ConcurrentHashMap<>();
        try (ChildPlacement placement = cgroup.beginPlacement()) {
            Thread spawner = Thread.ofPlatform().start(() -> {
                try {
                    long tid = KernelCgroupFixture.currentThreadId();
                    placement.placeThread(tid);
                    seen.put("thread", hierarchiesShowing(Path.of("/proc/self/task/" + tid + "/cgroup"), inside));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            spawner.join();
        }
        assertEquals(cgroup.location().directories().keySet(), seen.get("thread"),
                "once placeThread returned, the spawning thread was inside in every hierarchy");
        assertEquals(in(cgroup, processBefore), in(cgroup, ownNow()), "back home");
        cgroup.destroy();
        assertAllDirectories(cgroup, false);
    }

    @Test
    void aCgroupNamespaceMadeOnAPlacedThreadIsRootedAtTheContainersCgroup() throws Exception {
        Cgroup cgroup = createAbsolute("ctr");
        AtomicReference<ChildPlacement> placement = new AtomicReference<>();
        AtomicReference<String> seenInside = new AtomicReference<>();
        AtomicReference<Process> sibling = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();

        // The spawning thread is spent afterwards (it stays in the new namespace): it just ends.
        Thread spawner = Thread.ofPlatform().start(() -> {
            try {
                placement.set(cgroup.placeForChildren(KernelCgroupFixture.currentThreadId()));
                CgroupNamespace.unshareOnThisThread();
                Process cat = fixture.start("cat", "/proc/self/cgroup");
                seenInside.set(new String(cat.getInputStream().readAllBytes()));
                cat.waitFor();
                sibling.set(fixture.start("sleep", "30"));
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        spawner.join();
        if (placement.get() != null) {
            placement.get().close(); // from this thread, still in the original cgroup namespace
        }
        if (failure.get() != null) {
            throw new AssertionError("spawning thread failed", failure.get());
        }

        Map<String, String> inside = new HashMap<>();
        for (CgroupMembership membership : CgroupMembership.parse(seenInside.get())) {
            inside.put(membership.hierarchyKey(), membership.path());
        }
        for (String key : cgroup.location().directories().keySet()) {
            assertEquals("/", inside.get(key), "hierarchy \"" + key + "\" as seen inside: " + seenInside.get());
        }
        // "/" inside could also mean a namespace rooted at the runtime's own cgroup: check from outside.
        assertEquals(cgroup.location().directories().keySet(), hierarchiesShowing(sibling.get().pid(), "/" + fixture.name + "/ctr"));
        assertEquals(in(cgroup, fixture.hierarchies.ownCgroups()), in(cgroup, ownNow()), "the JVM is back in its own cgroups");
    }

    private static Map<String, String> ownNow() throws Exception {
        return KernelCgroupFixture.cgroupsOf(Path.of("/proc/self/cgroup"));
    }

    /**
     * {@code memberships} in the hierarchies {@code cgroup} is in. /proc/self/cgroup also lists
     * hierarchies mounted nowhere, and one of those (a net_cls hierarchy a test mounted in a private
     * mount namespace, which the kernel destroys lazily) may vanish between two reads.
     */
    private static Map<String, String> in(Cgroup cgroup, Map<String, String> memberships) {
        Map<String, String> kept = new HashMap<>(memberships);
        kept.keySet().retainAll(cgroup.location().directories().keySet());
        return kept;
    }

    @Test
    void aSavedLocationReopensTheSameCgroup() throws Exception {
        Cgroup created = createAbsolute("ctr");
        CgroupLocation saved = new CgroupLocation(created.location().mode(), new HashMap<>(created.location().directories()));
        Cgroup reopened = Cgroup.open(saved);
        assertEquals(created.getClass(), reopened.getClass());
        assertEquals(created.location(), reopened.location());

        Process sleep = fixture.start("sleep", "30");
        reopened.addProcess(sleep.pid());
        assertEquals(List.of(sleep.pid()), created.processes());
        sleep.destroyForcibly();
        sleep.waitFor();
        reopened.destroy();
        assertAllDirectories(created, false);
    }

    @Test
    void aCgroupThatAlreadyHasProcessesIsNotTakenOver() throws Exception {
        Cgroup first = createAbsolute("ctr");
        Process sleep = fixture.start("sleep", "30");
        first.addProcess(sleep.pid());

        CgroupException e = assertThrows(CgroupException.class, () -> createAbsolute("ctr"));
        assertEquals("container's cgroup is not empty: 1 process(es) found", e.getMessage());
        assertAllDirectories(first, true);
        assertEquals(List.of(sleep.pid()), first.processes());
    }

    @Test
    void aRelativePathLandsBelowTheRuntimesOwnCgroupsAsRuncPutsIt() throws Exception {
        Cgroup cgroup = Cgroup.create(CgroupsPath.of("", fixture.name)); // empty: named after the container
        fixture.track(cgroup.location());
        Process sleep = fixture.start("sleep", "30");
        cgroup.addProcess(sleep.pid());

        Map<String, String> own = KernelCgroupFixture.cgroupsOf(Path.of("/proc/self/cgroup"));
        Map<String, String> child = KernelCgroupFixture.cgroupsOf(Path.of("/proc/" + sleep.pid() + "/cgroup"));
        for (String key : cgroup.location().directories().keySet()) {
            String base = switch (cgroup.mode()) {
                case HYBRID, LEGACY -> key.isEmpty() ? "/" : own.get(key); // hybrid v2: from its root (runc)
                case UNIFIED -> Path.of(own.get(key)).getParent() == null ? "/" : Path.of(own.get(key)).getParent().toString();
            };
            assertEquals(Path.of(base, fixture.name).toString(), child.get(key), "hierarchy \"" + key + "\"");
        }
        sleep.destroyForcibly();
        sleep.waitFor();
        cgroup.destroy();
        assertAllDirectories(cgroup, false);
    }
}
