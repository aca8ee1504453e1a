package io.jrunc.runtime.init;

import static io.jrunc.bindings.Mounts.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.spec.LinuxIDMapping;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure parts of the rootless paths: which maps need newuidmap, its arguments, cleared mount flags. */
class RootlessPiecesTest {
    private static LinuxIDMapping map(long c, long h, long s) {
        return new LinuxIDMapping(c, h, s);
    }

    @Test
    void onlyTheCallersOwnSingleIdIsWrittenWithoutHelpers() {
        assertTrue(IdMaps.isOwnId(List.of(map(0, 1000, 1)), 1000));
        assertFalse(IdMaps.isOwnId(List.of(map(0, 1000, 2)), 1000));
        assertFalse(IdMaps.isOwnId(List.of(map(0, 1001, 1)), 1000));
        assertFalse(IdMaps.isOwnId(List.of(map(0, 1000, 1), map(1, 200000, 65536)), 1000));
    }

    @Test
    void theHelpersGetTheWholeMapAsArguments() {
        assertEquals(List.of("newuidmap", "42", "0", "1000", "1", "1", "200000", "65536"),
                IdMaps.helperArguments("newuidmap", 42, List.of(map(0, 1000, 1), map(1, 200000, 65536))));
    }

    @Test
    void clearedFlagsAreWhatTheOptionsClearLastToFirst() {
        assertEquals(MS_NODEV | MS_RDONLY, MountOptions.clearedFlags(List.of("bind", "dev", "rw")));
        assertEquals(0, MountOptions.clearedFlags(List.of("rw", "ro", "nosuid")));
        assertEquals(MS_NOSUID, MountOptions.clearedFlags(List.of("nosuid", "suid")));
        assertEquals(0, MountOptions.clearedFlags(null));
        assertEquals("ro,nosuid,nodev", LockedFlags.names(MS_RDONLY | MS_NOSUID | MS_NODEV));
    }
}
