package io.jrunc.cgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CgroupsPathTest {

    @Test
    void emptyOrAbsentPathDefaultsToTheContainerIdAsARelativePath() throws CgroupException {
        assertEquals(new CgroupsPath("ctr1"), CgroupsPath.of("", "ctr1"));
        assertEquals(new CgroupsPath("ctr1"), CgroupsPath.of(null, "ctr1"));
        assertFalse(CgroupsPath.of(null, "ctr1").isAbsolute());
    }

    @Test
    void absolutePathsAreCleanedAndStayAbsolute() throws CgroupException {
        assertEquals("/a/b", CgroupsPath.of("/a/b", "id").path());
        assertEquals("/a/b", CgroupsPath.of("//a/./b/", "id").path());
        assertEquals("/b", CgroupsPath.of("/a/../b", "id").path());
        assertEquals("/etc", CgroupsPath.of("/../../etc", "id").path());
        assertTrue(CgroupsPath.of("/a", "id").isAbsolute());
    }

    @Test
    void relativePathsCannotClimbAboveTheirStartingPoint() throws CgroupException {
        assertEquals("etc", CgroupsPath.of("../../etc", "id").path());
        assertEquals("a/c", CgroupsPath.of("a/b/../c", "id").path());
        assertEquals("x", CgroupsPath.of("a/../../x", "id").path());
        assertEquals("ctr", CgroupsPath.of("", "../ctr").path());
    }

    @Test
    void lexicalCleaningMatchesRunc() {
        assertEquals("", CgroupsPath.lexicallyClean(""));
        assertEquals("/", CgroupsPath.lexicallyClean("/"));
        assertEquals("/", CgroupsPath.lexicallyClean("/.."));
        assertEquals(".", CgroupsPath.lexicallyClean(".."));
        assertEquals(".", CgroupsPath.lexicallyClean("./"));
        assertEquals("a/b", CgroupsPath.lexicallyClean("a//b/"));
    }

    @Test
    void theRootOrTheRuntimesOwnCgroupIsRefused() {
        CgroupException root = assertThrows(CgroupException.class, () -> CgroupsPath.of("/../", "id"));
        assertTrue(root.getMessage().contains("root cgroup"), root.getMessage());
        CgroupException own = assertThrows(CgroupException.class, () -> CgroupsPath.of("a/..", "id"));
        assertTrue(own.getMessage().contains("runtime's own cgroup"), own.getMessage());
        assertThrows(CgroupException.class, () -> CgroupsPath.of("", ""));
    }

    @Test
    void theRecordOnlyHoldsCleanUsablePaths() {
        assertThrows(IllegalArgumentException.class, () -> new CgroupsPath("a/../b"));
        assertThrows(IllegalArgumentException.class, () -> new CgroupsPath("/"));
        assertThrows(IllegalArgumentException.class, () -> new CgroupsPath(""));
    }

    @Test
    void systemdFormIsExplainedNotSupported() {
        CgroupException scope = assertThrows(CgroupException.class,
                () -> CgroupsPath.of("system.slice:docker:1234", "id", true));
        assertEquals("the systemd cgroup driver is not supported yet (cgroupsPath \"system.slice:docker:1234\" asks for "
                + "unit docker-1234.scope in system.slice); run without --systemd-cgroup to use cgroupfs", scope.getMessage());

        CgroupException slice = assertThrows(CgroupException.class,
                () -> CgroupsPath.of(":p:machine.slice", "id", true));
        assertTrue(slice.getMessage().contains("unit machine.slice in system.slice"), slice.getMessage());

        CgroupException defaulted = assertThrows(CgroupException.class, () -> CgroupsPath.of("", "ctr1", true));
        assertTrue(defaulted.getMessage().contains("unit runc-ctr1.scope in system.slice"), defaulted.getMessage());
    }

    @Test
    void malformedSystemdFormGetsRuncsMessage() {
        CgroupException e = assertThrows(CgroupException.class, () -> CgroupsPath.of("/a/b", "id", true));
        assertEquals("expected cgroupsPath to be of format \"slice:prefix:name\" for systemd cgroups, got \"/a/b\" instead",
                e.getMessage());
        assertThrows(CgroupException.class, () -> CgroupsPath.of("a:b:c:d", "id", true));
    }
}
