package io.jrunc.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Grouping by annotation, and the small reader that finds the annotations in config.json. */
class GroupingTest {
    @Test
    void groupLabelThenSandboxIdThenOwnId() {
        assertEquals("c1", Grouping.groupId("c1", Map.of()));
        assertEquals("pod", Grouping.groupId("c1", Map.of(Grouping.SANDBOX_ID_ANNOTATION, "pod")));
        assertEquals("g", Grouping.groupId("c1", Map.of(Grouping.SANDBOX_ID_ANNOTATION, "pod",
                Grouping.GROUP_ANNOTATION, "g")));
        assertEquals("c1", Grouping.groupId("c1", Map.of(Grouping.GROUP_ANNOTATION, "")));
    }

    @Test
    void annotationsAreReadFromAnyPlaceInTheConfig() {
        String config = """
                {"ociVersion":"1.0.2","process":{"args":["sh","-c","echo \\"}\\""],"env":[],"terminal":false,
                 "user":{"uid":0,"gid":0},"rlimits":[{"type":"RLIMIT_NOFILE","hard":1024,"soft":1024}]},
                 "root":{"path":"rootfs","readonly":true},"hostname":null,"n":-1.5e3,
                 "annotations":{"io.kubernetes.cri.sandbox-id":"abc\\u0041","io.kubernetes.cri.container-type":"container"},
                 "linux":{"namespaces":[{"type":"pid"}]}}
                """;
        Map<String, String> a = BundleAnnotations.parse(config);
        assertEquals("abcA", a.get(Grouping.SANDBOX_ID_ANNOTATION));
        assertEquals("container", a.get("io.kubernetes.cri.container-type"));
        assertEquals("abcA", Grouping.groupId("c2", a));
    }

    @Test
    void noAnnotationsIsEmpty() {
        assertTrue(BundleAnnotations.parse("{\"ociVersion\":\"1.0.2\",\"annotations\":{}}").isEmpty());
        assertTrue(BundleAnnotations.parse(" { } ").isEmpty());
    }

    @Test
    void badJsonIsRefusedWithWhere() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BundleAnnotations.parse("{\"annotations\":{\"a\":1}}"));
        assertEquals("config.json: annotation a is not a string", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BundleAnnotations.parse("{\"a\":tru}"));
        assertThrows(IllegalArgumentException.class, () -> BundleAnnotations.parse("{\"a\":1} x"));
        assertThrows(IllegalArgumentException.class, () -> BundleAnnotations.parse("{\"a\":\"x"));
        assertThrows(IllegalArgumentException.class, () -> BundleAnnotations.parse("[]"));
    }
}
