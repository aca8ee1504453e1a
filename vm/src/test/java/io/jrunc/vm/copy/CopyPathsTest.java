package io.jrunc.vm.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.vm.VmException;
import io.jrunc.vm.copy.CopyPaths.InContainer;
import io.jrunc.vm.copy.CopyPaths.Kind;
import io.jrunc.vm.copy.CopyPaths.Local;
import io.jrunc.vm.copy.CopyPaths.Target;
import org.junit.jupiter.api.Test;

/** docker cp's rules: which argument is a container's, and where each kind of source lands. */
class CopyPathsTest {
    @Test
    void sides() throws VmException {
        assertEquals(new InContainer("c1", "/tmp/x"), CopyPaths.side("c1:/tmp/x"));
        assertEquals(new InContainer("c1", "tmp/x"), CopyPaths.side("c1:tmp/x"));
        assertEquals("/tmp/x", CopyPaths.containerPath("tmp/x"));
        assertInstanceOf(Local.class, CopyPaths.side("/abs/c1:x"));
        assertInstanceOf(Local.class, CopyPaths.side("./c1:x"));
        assertInstanceOf(Local.class, CopyPaths.side("dir/c1:x"));
        assertInstanceOf(Local.class, CopyPaths.side("plain"));
        assertThrows(VmException.class, () -> CopyPaths.containerPath(""));
    }

    @Test
    void aFileLands() throws VmException {
        assertEquals(new Target("/d", "f"), CopyPaths.target("/src/f", false, "/d", Kind.DIRECTORY));
        assertEquals(new Target("/d", "g"), CopyPaths.target("/src/f", false, "/d/g", Kind.ABSENT));
        assertEquals(new Target("/d", "g"), CopyPaths.target("/src/f", false, "/d/g", Kind.FILE));
        assertEquals(new Target(".", "g"), CopyPaths.target("f", false, "g", Kind.ABSENT));
        VmException mustExist = assertThrows(VmException.class, () -> CopyPaths.target("/src/f", false, "/d/g/", Kind.ABSENT));
        assertTrue(mustExist.getMessage().contains("must exist"), mustExist.getMessage());
    }

    @Test
    void aDirectoryLands() throws VmException {
        assertEquals(new Target("/d", "src"), CopyPaths.target("/x/src", true, "/d", Kind.DIRECTORY));
        assertEquals(new Target("/d", "src"), CopyPaths.target("/x/src/", true, "/d", Kind.DIRECTORY));
        assertEquals(new Target("/d", ""), CopyPaths.target("/x/src/.", true, "/d", Kind.DIRECTORY));
        assertEquals(new Target("/", "new"), CopyPaths.target("/x/src", true, "/new", Kind.ABSENT));
        assertEquals(new Target("/", "new"), CopyPaths.target("/x/src/.", true, "/new/", Kind.ABSENT));
        VmException toFile = assertThrows(VmException.class, () -> CopyPaths.target("/x/src", true, "/f", Kind.FILE));
        assertTrue(toFile.getMessage().contains("cannot copy a directory"), toFile.getMessage());
    }
}
