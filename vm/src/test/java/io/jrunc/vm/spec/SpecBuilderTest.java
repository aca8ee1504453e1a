package io.jrunc.vm.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.vm.VmException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host-side spec builder, field by field. */
class SpecBuilderTest {
    static final String CONFIG = """
            {"ociVersion": "1.0.2",
             "process": {"args": ["sh"], "cwd": "/", "env": ["PATH=/bin"], "terminal": false,
                         "capabilities": {"bounding": ["CAP_KILL"]}},
             "root": {"path": "rootfs", "readonly": true},
             "hostname": "bundle-host",
             "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
             "annotations": {"keep": "me"},
             "linux": {"namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "mount"}, {"type": "uts"}],
                       "resources": {"memory": {"limit": 1000000, "reservation": 500000},
                                     "cpu": {"shares": 512, "quota": 1, "period": 2},
                                     "pids": {"limit": 100}},
                       "maskedPaths": ["/proc/kcore"]}}
            """;

    @TempDir
    Path dir;

    static Path bundle(Path dir, String config) throws IOException {
        Files.createDirectories(dir.resolve("rootfs/bin"));
        Files.writeString(dir.resolve("config.json"), config);
        return dir;
    }

    ObjectNode build(String config, SpecBuilder.Overrides o) throws Exception {
        return SpecBuilder.build(Bundle.load(bundle(dir, config)), o);
    }

    static SpecBuilder.Overrides none() {
        return new SpecBuilder.Overrides(0, 0, List.of(), null);
    }

    @Test
    void resourcesComeFromTheBundleWhenNoFlag() throws Exception {
        JsonNode r = build(CONFIG, none()).path("linux").path("resources");
        assertEquals(1000000, r.path("memory").path("limit").asLong());
        assertEquals(1, r.path("cpu").path("quota").asLong());
        assertEquals(100, r.path("pids").path("limit").asLong());
    }

    @Test
    void memoryAndCpusFlagsOverrideAndKeepTheRest() throws Exception {
        JsonNode r = build(CONFIG, new SpecBuilder.Overrides(64L << 20, 1.5, List.of(), null)).path("linux").path("resources");
        assertEquals(64L << 20, r.path("memory").path("limit").asLong());
        assertEquals(500000, r.path("memory").path("reservation").asLong(), "other memory fields pass through");
        assertEquals(150000, r.path("cpu").path("quota").asLong());
        assertEquals(100000, r.path("cpu").path("period").asLong());
        assertEquals(512, r.path("cpu").path("shares").asLong());
        assertEquals(100, r.path("pids").path("limit").asLong());
    }

    @Test
    void flagsCreateResourcesWhenTheBundleHasNone() throws Exception {
        JsonNode r = build("{\"root\":{\"path\":\"rootfs\"},\"process\":{\"args\":[\"sh\"]}}",
                new SpecBuilder.Overrides(32L << 20, 0, List.of(), null)).path("linux").path("resources");
        assertEquals(32L << 20, r.path("memory").path("limit").asLong());
        assertTrue(r.path("cpu").isMissingNode());
    }

    @Test
    void networkNamespaceIsThePods() throws Exception {
        JsonNode ns = build(CONFIG, none()).path("linux").path("namespaces");
        assertEquals(List.of("pid", "mount", "uts"), ns.findValuesAsText("type"));
    }

    @Test
    void hostnameIsThePods() throws Exception {
        assertEquals("bundle-host", build(CONFIG, none()).path("hostname").asText());
        assertEquals("podhost", build(CONFIG, new SpecBuilder.Overrides(0, 0, List.of(), "podhost")).path("hostname").asText());
    }

    @Test
    void sysctlIsRefusedNamingTheField() throws Exception {
        String withSysctl = CONFIG.replace("\"maskedPaths\"", "\"sysctl\": {\"net.ipv4.ip_forward\": \"1\"}, \"maskedPaths\"");
        VmException e = assertThrows(VmException.class, () -> build(withSysctl, none()));
        assertTrue(e.getMessage().contains("linux.sysctl") && e.getMessage().contains("config.json"), e.getMessage());
        // an empty map asks for nothing
        build(CONFIG.replace("\"maskedPaths\"", "\"sysctl\": {}, \"maskedPaths\""), none());
    }

    @Test
    void rootIsReadOnlyAsTheBundleSaysOrWithReadOnly() throws Exception {
        ObjectNode ro = build(CONFIG, none());
        assertTrue(ro.path("root").path("readonly").asBoolean());
        assertFalse(SpecBuilder.writable(ro));
        ObjectNode rw = build(CONFIG.replace("\"readonly\": true", "\"readonly\": false"), none());
        assertTrue(SpecBuilder.writable(rw));
        assertEquals("me", rw.path("annotations").path("keep").asText());
        assertEquals(1, rw.path("annotations").size(), "no annotation of jrunc-vm's own: " + rw.path("annotations"));
        ObjectNode absent = build(CONFIG.replace("\"readonly\": true", "\"x\": 1"), none());
        assertTrue(SpecBuilder.writable(absent), "absent readonly is false");
        assertEquals("rootfs", rw.path("root").path("path").asText());
        ObjectNode forced = build(CONFIG.replace("\"readonly\": true", "\"readonly\": false"),
                new SpecBuilder.Overrides(0, 0, List.of(), null, -1, true, List.of()));
        assertTrue(forced.path("root").path("readonly").asBoolean(), "--read-only");
    }

    @Test
    void podVolumesAreBoundFromWhereTheAgentMountsThem() throws Exception {
        ObjectNode built = build(CONFIG, new SpecBuilder.Overrides(0, 0, List.of(), null, -1, false,
                List.of(new PodVolumeMount("data", "/srv/data", false), new PodVolumeMount("conf", "/etc/app", true))));
        JsonNode mounts = built.path("mounts");
        JsonNode data = mounts.get(mounts.size() - 2);
        assertEquals("/srv/data", data.path("destination").asText());
        assertEquals("bind", data.path("type").asText());
        assertEquals("/run/jrunc/volumes/data", data.path("source").asText());
        assertEquals("[\"rbind\",\"rw\"]", data.path("options").toString());
        assertEquals("[\"rbind\",\"ro\"]", mounts.get(mounts.size() - 1).path("options").toString());
    }

    @Test
    void commandReplacesArgs() throws Exception {
        assertEquals("[\"sh\"]", build(CONFIG, none()).path("process").path("args").toString());
        JsonNode args = build(CONFIG, new SpecBuilder.Overrides(0, 0, List.of("echo", "hi"), null)).path("process").path("args");
        assertEquals(2, args.size());
        assertEquals("hi", args.get(1).asText());
    }

    @Test
    void everythingElsePassesThrough() throws Exception {
        ObjectNode original = (ObjectNode) new ObjectMapper().readTree(CONFIG);
        ObjectNode built = build(CONFIG, new SpecBuilder.Overrides(1 << 20, 1, List.of(), "h"));
        for (String field : List.of("ociVersion", "mounts")) {
            assertEquals(original.get(field), built.get(field), field);
        }
        assertEquals(original.path("process").path("env"), built.path("process").path("env"));
        assertEquals(original.path("process").path("capabilities"), built.path("process").path("capabilities"));
        assertEquals(original.path("linux").path("maskedPaths"), built.path("linux").path("maskedPaths"));
        assertTrue(Bundle.load(dir).config().path("linux").path("namespaces").size() == 4, "the bundle itself is untouched");
    }

    @Test
    void badBundlesNameTheFile() throws Exception {
        VmException missing = assertThrows(VmException.class, () -> Bundle.load(dir.resolve("nope")));
        assertTrue(missing.getMessage().contains("nope"), missing.getMessage());
        Files.writeString(dir.resolve("config.json"), "{\"root\": ");
        VmException parse = assertThrows(VmException.class, () -> Bundle.load(dir));
        assertTrue(parse.getMessage().contains("config.json does not parse") && !parse.getMessage().contains("\n"), parse.getMessage());
        Files.writeString(dir.resolve("config.json"), "{\"root\": {\"path\": \"rootfs\"}}");
        VmException noRootfs = assertThrows(VmException.class, () -> Bundle.load(dir));
        assertTrue(noRootfs.getMessage().contains("root.path"), noRootfs.getMessage());
    }
}
