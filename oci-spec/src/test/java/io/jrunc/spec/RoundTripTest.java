package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Parse, write, compare: nothing the model knows about may be lost or changed. */
class RoundTripTest {

    private static final String EVERY_FIELD = Fixtures.text("every-field.json");

    @Test
    void fixtureSettingEveryFieldRoundTripsLosslessly() throws SpecException {
        Spec spec = Json.read(EVERY_FIELD, Spec.class);
        assertEquals(Fixtures.tree(EVERY_FIELD), Fixtures.tree(Json.write(spec)));
        assertEquals(Fixtures.tree(EVERY_FIELD), Fixtures.tree(Json.writeIndented(spec, Json.SPEC_INDENT)));
        assertEquals(spec, Json.read(Json.write(spec), Spec.class), "records compare equal after a round trip");
    }

    /** Guards the fixture itself: if a record gains a component, the fixture must set it. */
    @Test
    void fixtureSetsEveryComponentOfEveryRecordReachableFromSpec() throws SpecException {
        Map<Class<?>, Set<String>> seen = new HashMap<>();
        collectSetComponents(Json.read(EVERY_FIELD, Spec.class), seen);
        Set<String> missing = new TreeSet<>();
        for (Class<?> type : recordTypesReachableFrom(Spec.class)) {
            for (RecordComponent component : type.getRecordComponents()) {
                if (!seen.getOrDefault(type, Set.of()).contains(component.getName())) {
                    missing.add(type.getSimpleName() + "." + component.getName());
                }
            }
        }
        assertEquals(Set.of(), missing);
    }

    /** Go writes members in struct order; the records declare them in that order. */
    @Test
    void everyRecordIsWrittenInComponentOrder() throws SpecException {
        Spec spec = Json.read(EVERY_FIELD, Spec.class);
        assertMemberOrder(spec, Fixtures.tree(Json.write(spec)), "");
    }

    @Test
    void memorySwapAbsentAndZeroStayDistinct() throws SpecException {
        String zero = "{\"ociVersion\":\"1.2.1\",\"linux\":{\"resources\":{\"memory\":{\"limit\":1048576,\"swap\":0}}}}";
        String absent = "{\"ociVersion\":\"1.2.1\",\"linux\":{\"resources\":{\"memory\":{\"limit\":1048576}}}}";

        Spec withZero = Json.read(zero, Spec.class);
        Spec withoutSwap = Json.read(absent, Spec.class);

        assertEquals(0L, withZero.linux().resources().memory().swap());
        assertNull(withoutSwap.linux().resources().memory().swap());
        assertEquals(zero, Json.write(withZero));
        assertEquals(absent, Json.write(withoutSwap));
    }

    @Test
    void absentAndEmptyCollectionsStayDistinct() throws SpecException {
        String json = "{\"ociVersion\":\"1.2.1\",\"process\":{\"env\":[],\"cwd\":\"/\"},\"annotations\":{}}";
        Spec spec = Json.read(json, Spec.class);

        assertEquals(List.of(), spec.process().env());
        assertNull(spec.process().args());
        assertEquals(Map.of(), spec.annotations());
        assertEquals(json, Json.write(spec));
    }

    @Test
    void unsignedValuesAboveLongMaxAreKeptExactly() throws SpecException {
        String json = "{\"type\":\"RLIMIT_CORE\",\"hard\":18446744073709551615,\"soft\":9223372036854775808}";
        POSIXRlimit rlimit = Json.read(json, POSIXRlimit.class);

        assertEquals(-1L, rlimit.hard(), "RLIM_INFINITY is all ones");
        assertEquals(Long.MIN_VALUE, rlimit.soft());
        assertEquals(json, Json.write(rlimit));
    }

    @Test
    void unknownMembersAreIgnoredAtEveryLevel() throws SpecException {
        String json = """
                {"ociVersion": "1.2.1", "futureTopLevel": {"x": [1, 2]},
                 "process": {"args": ["sh"], "cwd": "/", "futureProcessField": true,
                             "user": {"uid": 5, "sid": "S-1-5"}},
                 "root": {"path": "rootfs", "mode": "overlay"},
                 "windows": {"layerFolders": ["C:\\\\layers"]}, "vm": {"kernel": {"path": "/vmlinuz"}},
                 "solaris": {"milestone": "svc:/milestone/container:default"},
                 "linux": {"namespaces": [{"type": "pid", "flags": 3}], "resources": {"memory": {"limit": 1, "soft": 2}}}}
                """;
        Spec spec = Json.read(json, Spec.class);

        assertEquals(List.of("sh"), spec.process().args());
        assertEquals(5L, spec.process().user().uid());
        assertEquals("rootfs", spec.root().path());
        assertEquals("pid", spec.linux().namespaces().getFirst().type());
        assertEquals(1L, spec.linux().resources().memory().limit());
        assertEquals("{\"ociVersion\":\"1.2.1\",\"process\":{\"user\":{\"uid\":5},\"args\":[\"sh\"],\"cwd\":\"/\"},"
                + "\"root\":{\"path\":\"rootfs\"},\"linux\":{\"resources\":{\"memory\":{\"limit\":1}},"
                + "\"namespaces\":[{\"type\":\"pid\"}]}}", Json.write(spec));
    }

    @Test
    void aRepeatedMemberKeepsTheLastValueAsInGo() throws SpecException {
        Spec spec = Json.read("{\"ociVersion\":\"1.0.0\",\"hostname\":\"a\",\"ociVersion\":\"1.2.1\","
                + "\"linux\":{\"sysctl\":{\"k\":\"1\",\"k\":\"2\"}}}", Spec.class);
        assertEquals("1.2.1", spec.ociVersion());
        assertEquals(Map.of("k", "2"), spec.linux().sysctl());
    }

    @Test
    void membersAreWrittenInTheSpecsOrderAndMapKeysSorted() throws SpecException {
        Spec spec = Json.read("""
                {"linux": {"sysctl": {"b": "2", "a": "1"}}, "root": {"readonly": true, "path": "r"},
                 "process": {"cwd": "/", "args": ["x"], "terminal": true}, "ociVersion": "1.2.1"}
                """, Spec.class);
        assertEquals("{\"ociVersion\":\"1.2.1\",\"process\":{\"terminal\":true,\"args\":[\"x\"],\"cwd\":\"/\"},"
                + "\"root\":{\"path\":\"r\",\"readonly\":true},\"linux\":{\"sysctl\":{\"a\":\"1\",\"b\":\"2\"}}}",
                Json.write(spec));
    }

    @Test
    void stringsAreEscapedAsGoEscapesThem() {
        Hook hook = new Hook("/bin/x", List.of("<a&b>", "line\nbreak\ttab", "\u0001", "\u2028", "é\"\\/"), null, null);
        assertEquals("{\"path\":\"/bin/x\",\"args\":[\"\\u003ca\\u0026b\\u003e\",\"line\\nbreak\\ttab\","
                + "\"\\u0001\",\"\\u2028\",\"é\\\"\\\\/\"]}", Json.write(hook));
    }

    @Test
    void indentedOutputIsLaidOutLikeGoMarshalIndent() {
        Spec spec = new Spec("1.2.1", null, new Root("rootfs", null), null, null, List.of(), null,
                Map.of(), null);
        assertEquals("{\n\t\"ociVersion\": \"1.2.1\",\n\t\"root\": {\n\t\t\"path\": \"rootfs\"\n\t},\n"
                + "\t\"mounts\": [],\n\t\"annotations\": {}\n}", Json.writeIndented(spec, "\t"));
    }

    private static void assertMemberOrder(Object value, JsonNode node, String where) {
        if (value instanceof List<?> items) {
            for (int i = 0; i < items.size(); i++) {
                assertMemberOrder(items.get(i), node.get(i), where + "[" + i + "]");
            }
        } else if (value instanceof Map<?, ?> map) {
            map.forEach((key, item) -> assertMemberOrder(item, node.get((String) key), where + "." + key));
        } else if (value instanceof Record record) {
            List<String> expected = new ArrayList<>();
            for (RecordComponent component : record.getClass().getRecordComponents()) {
                Object componentValue = read(component, record);
                if (componentValue != null) {
                    JsonProperty renamed = component.getAccessor().getAnnotation(JsonProperty.class);
                    String name = renamed != null ? renamed.value() : component.getName();
                    expected.add(name);
                    assertMemberOrder(componentValue, node.get(name), where + "." + name);
                }
            }
            List<String> written = new ArrayList<>();
            node.fieldNames().forEachRemaining(written::add);
            assertEquals(expected, written, "member order of " + where);
        }
    }

    private static void collectSetComponents(Object value, Map<Class<?>, Set<String>> seen) {
        if (value instanceof Collection<?> items) {
            items.forEach(item -> collectSetComponents(item, seen));
        } else if (value instanceof Map<?, ?> map) {
            map.values().forEach(item -> collectSetComponents(item, seen));
        } else if (value instanceof Record record) {
            for (RecordComponent component : record.getClass().getRecordComponents()) {
                Object componentValue = read(component, record);
                if (componentValue != null) {
                    seen.computeIfAbsent(record.getClass(), k -> new HashSet<>()).add(component.getName());
                    collectSetComponents(componentValue, seen);
                }
            }
        }
    }

    private static Object read(RecordComponent component, Record record) {
        try {
            return component.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Set<Class<?>> recordTypesReachableFrom(Class<?> root) {
        Set<Class<?>> found = new LinkedHashSet<>();
        Deque<Type> pending = new ArrayDeque<>(List.of(root));
        while (!pending.isEmpty()) {
            Type type = pending.pop();
            if (type instanceof ParameterizedType parameterized) {
                pending.addAll(List.of(parameterized.getActualTypeArguments()));
            } else if (type instanceof Class<?> cls && cls.isRecord() && found.add(cls)) {
                for (RecordComponent component : cls.getRecordComponents()) {
                    pending.push(component.getGenericType());
                }
            }
        }
        assertTrue(found.size() > 30, "walked the model: " + found);
        return found;
    }
}
