package io.jrunc.vm.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.vm.VmException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** `-v|--volume`: an absolute source is a host directory, a name without '/' a pod volume; the rest refused. */
class VolumeSpecTest {
    @Test
    void aNameIsAPodVolumeAndAnAbsolutePathAHostDirectory() throws Exception {
        assertEquals(new VolumeSpec.PodVolume("data", "/srv/data", false), VolumeSpec.parse("data:/srv/data"));
        assertEquals(new VolumeSpec.PodVolume("data", "/srv/data", true), VolumeSpec.parse("data:/srv/data:ro"));
        assertEquals(new VolumeSpec.PodVolume("d.1_x-y", "/x", false), VolumeSpec.parse("d.1_x-y:/x:rw"));
        assertEquals(new VolumeSpec.HostDirectory(Path.of("/home/me/src"), "/src", false), VolumeSpec.parse("/home/me/src:/src"));
        assertEquals(new VolumeSpec.HostDirectory(Path.of("/home/me/src"), "/src", true), VolumeSpec.parse("/home/me/src:/src:ro"));
    }

    @Test
    void badValuesAreRefusedNamingTheFlag() {
        for (String bad : new String[] {"data", "data:", "data:relative", "data:/", "data:/x:rx", "data:/x:ro:z",
                "dir/sub:/x", "./dir:/x", "..:/x", ".hidden:/x", ":/x", "a b:/x"}) {
            VmException e = assertThrows(VmException.class, () -> VolumeSpec.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("invalid --volume \"" + bad + "\""), e.getMessage());
        }
    }
}
