package io.jrunc.vm.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.vm.VolumeFlag;
import io.jrunc.vm.state.HostShare;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `-v HOSTDIR:CTRPATH[:ro]` read, and turned into the spec's virtiofs mounts. */
class ShareMountsTest {
    @TempDir
    Path tmp;

    @Test
    void aHostDirectoryIsReadByItsRealPathAndTheContainerPathNormalised() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("real/dir"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), tmp.resolve("real"));
        assertTrue(VolumeFlag.isHostDirectory(link + "/dir:/x"));
        assertFalse(VolumeFlag.isHostDirectory("name:/x"));
        VolumeFlag.HostDirectory d = VolumeFlag.hostDirectory(link + "/dir:/data/./sub/:ro");
        assertEquals(dir.toRealPath(), d.hostPath());
        assertEquals("/data/sub", d.containerPath());
        assertTrue(d.readOnly());
        assertFalse(VolumeFlag.hostDirectory(dir + ":/x:rw").readOnly());
        assertFalse(VolumeFlag.hostDirectory(dir + ":/x").readOnly());
    }

    @Test
    void eachShareIsAVirtiofsMountOfItsTagAfterTheBundlesMounts() throws Exception {
        ObjectNode config = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        config.putArray("mounts").addObject().put("destination", "/proc").put("type", "proc").put("source", "proc");
        ShareMounts.add(config, List.of(new HostShare("fs0123456789ab", "/srv/a", "/data", false),
                new HostShare("fs0123456789cd", "/srv/b", "/ro", true)));
        assertEquals(3, config.get("mounts").size());
        assertEquals("""
                {"destination":"/data","type":"virtiofs","source":"fs0123456789ab","options":["nosuid","nodev","rw"]}""",
                config.get("mounts").get(1).toString());
        assertEquals("""
                {"destination":"/ro","type":"virtiofs","source":"fs0123456789cd","options":["nosuid","nodev","ro"]}""",
                config.get("mounts").get(2).toString());
        assertFalse(config.toString().contains("/srv/"), "the host's paths stay on the host");

        ObjectNode none = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        ShareMounts.add(none, List.of());
        assertFalse(none.has("mounts"), "nothing added without shares");
    }
}
