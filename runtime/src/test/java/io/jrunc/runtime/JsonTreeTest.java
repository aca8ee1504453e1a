package io.jrunc.runtime;

import io.jrunc.cgroups.CgroupLocation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrunc.cgroups.CgroupMode;
import io.jrunc.spec.JsonTree;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class JsonTreeTest {
    private static Object parse(String json) {
        return JsonTree.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void valuesOfEveryKind() {
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("s", "a\"b\\c/\n\t\u00e9\u2603");
        expected.put("n", -12L);
        expected.put("big", 9007199254740993L);
        expected.put("f", 1.5e3);
        expected.put("t", true);
        expected.put("no", false);
        expected.put("z", null);
        expected.put("a", Arrays.asList(1L, "x", List.of(), Map.of()));
        assertEquals(expected, parse(" {\"s\":\"a\\\"b\\\\c\\/\\n\\t\u00e9\\u2603\", \"n\" : -12, \"big\":9007199254740993,"
                + "\"f\":1.5e3,\"t\":true,\"no\":false,\"z\":null,\"a\":[1,\"x\",[],{}]}\n"));
    }

    @Test
    void malformedInputIsRefused() {
        for (String bad : List.of("", "{", "{\"a\"}", "{\"a\":1,}", "[1 2]", "\"x", "\"\\q\"", "tru", "{} x", "\"a\nb\"")) {
            assertThrows(IllegalArgumentException.class, () -> parse(bad), bad);
        }
    }

    @Test
    void stateFileRoundTrips() {
        Map<String, String> dirs = new TreeMap<>(Map.of("memory", "/sys/fs/cgroup/memory/x", "pids", "/p \"q\""));
        String awkward = "q\" b\\ \n\t\r \u0001\u001f \u00e9\u2603 \ud83d\ude00 </>";
        Map<String, String> annotations = new java.util.LinkedHashMap<>();
        annotations.put("k", "v\u00e9");
        annotations.put(awkward, awkward);
        annotations.put("", "");
        ContainerState state = new ContainerState("id-1", 4242, 123456789012L, "1.2.1", "/b " + awkward, "/b/rootfs",
                "2026-12-01T08:00:00.123456789Z", "root", annotations, List.of("poststop", "prestart"),
                new CgroupLocation(CgroupMode.HYBRID, dirs));
        assertEquals(state, ContainerState.fromJson(state.toJson()));
        ContainerState bare = new ContainerState("b", 0, 0, "1.2.1", "/b", "/r", "t", "", null, List.of(),
                new CgroupLocation(CgroupMode.UNIFIED, new TreeMap<>(Map.of("", "/sys/fs/cgroup/b"))));
        assertEquals(bare, ContainerState.fromJson(bare.toJson()));
    }

    @Test
    void containerIdsAreRuncs() {
        for (String ok : List.of("a", "web-1", "A.b_c+d", "x".repeat(255), "..a", "a..")) {
            assertEquals(ok, ContainerId.validate(ok));
        }
        for (String bad : List.of(".", "..", "a/b", "a b", "\u00e9", "x".repeat(256), "x".repeat(1025), "a\n", "a:b")) {
            assertThrows(ContainerException.class, () -> ContainerId.validate(bad), bad);
        }
        assertEquals("container id cannot be empty",
                assertThrows(ContainerException.class, () -> ContainerId.validate("")).getMessage());
    }

    @Test
    void aCorruptStateFileSaysSo() {
        var e = assertThrows(ContainerException.class, () -> ContainerState.fromJson("{\"pid\":".getBytes()));
        assertEquals("corrupt container state: unexpected end of input at offset 7", e.getMessage());
    }
}
