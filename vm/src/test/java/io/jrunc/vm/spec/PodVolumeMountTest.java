package io.jrunc.vm.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.vm.VmException;
import org.junit.jupiter.api.Test;

/** `-v NAME:CTRPATH[:ro|:rw]` naming a pod volume; bad values refused naming the flag. */
class PodVolumeMountTest {
    @Test
    void aNameAndAnAbsoluteContainerPath() throws Exception {
        assertEquals(new PodVolumeMount("data", "/srv/data", false), PodVolumeMount.parse("data:/srv/data"));
        assertEquals(new PodVolumeMount("data", "/srv/data", true), PodVolumeMount.parse("data:/srv/data:ro"));
        assertEquals(new PodVolumeMount("d.1_x-y", "/x", false), PodVolumeMount.parse("d.1_x-y:/x:rw"));
    }

    @Test
    void badValuesAreRefusedNamingTheFlag() {
        for (String bad : new String[] {"data", "data:", "data:relative", "data:/", "data:/x:rx", "data:/x:ro:z",
                "dir/sub:/x", "./dir:/x", "..:/x", ".hidden:/x", ":/x", "a b:/x"}) {
            VmException e = assertThrows(VmException.class, () -> PodVolumeMount.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("invalid --volume \"" + bad + "\""), e.getMessage());
        }
    }
}
