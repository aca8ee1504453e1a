package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContainerSpecsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode rewrite(String config, String hostname) throws Exception {
        return JSON.readTree(ContainerSpecs.rewrite(config.getBytes(StandardCharsets.UTF_8), "c1", hostname).json());
    }

    @Test
    void theAgentChoosesRootCgroupNamespacesAndHostname() throws Exception {
        JsonNode spec = rewrite("""
                {"root":{"path":"/somewhere","readonly":true},"hostname":"mine","process":{"args":["sh"]},
                 "linux":{"cgroupsPath":"/elsewhere","namespaces":[{"type":"network","path":"/proc/1/ns/net"},
                   {"type":"pid","path":"/proc/9/ns/pid"},{"type":"user"}]}}""", "podhost");
        assertEquals("rootfs", spec.at("/root/path").asText());
        assertEquals("/containers/c1", spec.at("/linux/cgroupsPath").asText());
        assertEquals("podhost", spec.get("hostname").asText());
        List<String> types = new ArrayList<>();
        spec.at("/linux/namespaces").forEach(ns -> {
            types.add(ns.get("type").asText());
            if (!ns.get("type").asText().equals("user")) {
                assertFalse(ns.has("path"), "a namespace of its own, never joined: " + ns);
            }
        });
        assertEquals(List.of("pid", "user", "mount", "ipc", "uts", "cgroup"), types);
    }

    @Test
    void aReadOnlyRootIsMountedAsIsAndAnyOtherGetsAnOverlay() throws Exception {
        assertFalse(ContainerSpecs.rewrite("{\"root\":{\"readonly\":true}}".getBytes(), "c", "").writable());
        assertFalse(ContainerSpecs.rewrite("{\"root\":{\"readonly\":true}}".getBytes(), "c", "").upperLayer());
        assertTrue(ContainerSpecs.rewrite("{\"root\":{\"readonly\":false}}".getBytes(), "c", "").writable());
        assertTrue(ContainerSpecs.rewrite("{\"root\":{\"readonly\":false}}".getBytes(), "c", "").upperLayer());
        assertTrue(ContainerSpecs.rewrite("{}".getBytes(), "c", "").writable());
    }

    @Test
    void thePodsFilesAreBoundReadOnlyWhereTheConfigMountsNothingAndGetTheirMountPointsInAnUpperLayer() throws Exception {
        List<String> files = List.of("/etc/hostname", "/etc/resolv.conf", "/etc/hosts");
        ContainerSpecs.Rewritten r = ContainerSpecs.rewrite("""
                {"root":{"readonly":true},"mounts":[{"destination":"/proc","type":"proc","source":"proc"},
                 {"destination":"/etc//hosts/","type":"bind","source":"/mine","options":["bind"]}]}"""
                .getBytes(StandardCharsets.UTF_8), "c", "", files);
        List<String> mounts = new ArrayList<>();
        JSON.readTree(r.json()).get("mounts").forEach(m -> mounts.add(m.get("destination").asText() + " "
                + m.get("source").asText() + " " + m.path("options")));
        assertEquals(List.of("/proc proc ", "/etc//hosts/ /mine [\"bind\"]",
                "/etc/hostname /etc/hostname [\"bind\",\"ro\",\"nosuid\",\"nodev\",\"noexec\"]",
                "/etc/resolv.conf /etc/resolv.conf [\"bind\",\"ro\",\"nosuid\",\"nodev\",\"noexec\"]"), mounts,
                "the config's own /etc/hosts kept, the pod's other files added after the config's mounts");
        assertFalse(r.writable(), "the root stays read-only (the runtime remounts it so)");
        assertTrue(r.upperLayer(), "an image without /etc/resolv.conf still gets it bound");

        ContainerSpecs.Rewritten none = ContainerSpecs.rewrite("{\"root\":{\"readonly\":true}}".getBytes(), "c", "", List.of());
        assertFalse(JSON.readTree(none.json()).has("mounts"), "no pod files (no Configure yet): nothing added");
        assertFalse(none.upperLayer());
    }

    @Test
    void withoutAPodHostnameTheConfigsIsKept() throws Exception {
        assertEquals("mine", rewrite("{\"hostname\":\"mine\"}", "").get("hostname").asText());
    }

    @Test
    void sysctlAndJunkAreRefusedNamingTheField() {
        RpcException e = assertThrows(RpcException.class, () -> rewrite(
                "{\"linux\":{\"sysctl\":{\"net.ipv4.ip_forward\":\"1\"}}}", ""));
        assertEquals(Code.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("linux.sysctl"), e.getMessage());
        e = assertThrows(RpcException.class, () -> rewrite("{nope", ""));
        assertTrue(e.getMessage().startsWith("oci_config: not JSON"), e.getMessage());
        e = assertThrows(RpcException.class, () -> rewrite("[1]", ""));
        assertEquals(Code.INVALID_ARGUMENT, e.code());
    }
}
