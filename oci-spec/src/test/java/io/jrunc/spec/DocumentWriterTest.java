package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hand-written writers against databind's (still reachable through {@link Json#writer()}): byte for
 * byte the same text, compact and with each indent, for values that exercise every member, absent and
 * empty members, map ordering, and Go's escaping of unicode and control characters.
 */
class DocumentWriterTest {

    /** Text that needs escaping or is outside ASCII: HTML characters, separators, controls, surrogates. */
    private static final String AWKWARD = "<a&b> \"q\" \\ / \u2028\u2029 \u0000\u0001\u001f\u007f\t\n\r\b\f"
            + " é ü 中文 \ud83d\ude00 \ufeff";

    private static final Instant CREATED = Instant.parse("2024-05-01T10:00:00.123456789Z");

    private static final List<String> INDENTS = List.of(Json.STATE_INDENT, Json.FEATURES_INDENT, Json.SPEC_INDENT);

    @Test
    void runcStatesAreWrittenAsDatabindWritesThem() throws Exception {
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put("z.last", "1");
        annotations.put("a.first", AWKWARD);
        annotations.put("", "empty key");
        annotations.put("B-upper", "");
        annotations.put("é", "non-ascii key");
        annotations.put(AWKWARD, "awkward key");
        List<RuncState> states = List.of(
                new RuncState("1.2.1", "web", 4242, ContainerStatus.RUNNING, "/run/bundles/web", "/run/bundles/web/rootfs",
                        CREATED, annotations, "root"),
                new RuncState("1.2.1", "web", 0, ContainerStatus.STOPPED, "/b", "/b/rootfs",
                        Instant.parse("2024-05-01T10:00:00Z"), Map.of(), null),
                new RuncState(null, null, -1, ContainerStatus.CREATING, null, null, Instant.EPOCH, null, null),
                new RuncState(AWKWARD, AWKWARD, Integer.MAX_VALUE, ContainerStatus.PAUSED, AWKWARD, AWKWARD,
                        Instant.parse("1999-12-31T23:59:59.5Z"), Map.of("k", AWKWARD), AWKWARD),
                new RuncState("1.0.2", "c", 7, ContainerStatus.CREATED, "/b", "/r", CREATED, Map.of("one", "1"), "u"));
        for (RuncState state : states) {
            assertSameAsDatabind(state);
        }
        assertSameAsDatabind(states);
        assertSameAsDatabind(states.subList(0, 1));
    }

    @Test
    void ociStatesAreWrittenAsDatabindWritesThem() throws Exception {
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put("org.opencontainers.image.title", AWKWARD);
        annotations.put("com.example", "x");
        for (State state : List.of(
                new State("1.2.1", "web", ContainerStatus.CREATED, 4242, "/run/bundles/web", annotations),
                new State("1.2.1", "web", ContainerStatus.STOPPED, null, "/b", null),
                new State("1.2.1", "web", ContainerStatus.RUNNING, 1, "/b", Map.of()),
                new State(null, null, null, null, null, null),
                new State(AWKWARD, AWKWARD, ContainerStatus.CREATING, 0, AWKWARD, Map.of(AWKWARD, AWKWARD)))) {
            assertSameAsDatabind(state);
        }
    }

    @Test
    void featuresAreWrittenAsDatabindWritesThem() throws Exception {
        Features full = new Features(SpecVersion.MINIMUM, SpecVersion.CURRENT,
                List.of("prestart", "createRuntime", "poststop"), List.of("rbind", "ro", AWKWARD),
                new Features.Linux(List.of("pid", "user"), List.of("CAP_CHOWN", "CAP_KILL"),
                        new Features.Cgroup(true, true, true, false, true),
                        new Features.Seccomp(true, List.of("SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO"), List.of("SCMP_CMP_EQ"),
                                List.of("SCMP_ARCH_X86_64"), List.of("SECCOMP_FILTER_FLAG_LOG"), List.of()),
                        new Features.Apparmor(true), new Features.Selinux(false),
                        new Features.IntelRdt(true, true, false),
                        new Features.MemoryPolicy(List.of("MPOL_BIND"), List.of("MPOL_F_STATIC_NODES")),
                        new Features.MountExtensions(new Features.IDMap(true)),
                        new Features.NetDevices(true)),
                Map.of("org.opencontainers.runc.version", "1.2.1", "io.github.seccomp.libseccomp.version", "2.5.5",
                        "x", AWKWARD),
                List.of("bundle", "org.systemd.property."));
        Features sparse = new Features(null, "1.2.1", List.of(), null,
                new Features.Linux(null, List.of(), new Features.Cgroup(null, null, null, null, null),
                        new Features.Seccomp(null, null, null, null, null, null), new Features.Apparmor(null), null,
                        new Features.IntelRdt(null, null, null), new Features.MemoryPolicy(null, null),
                        new Features.MountExtensions(null), new Features.NetDevices(null)),
                Map.of(), List.of());
        Features empty = new Features(null, null, null, null,
                new Features.Linux(null, null, null, null, null, null, null, null, null, null), null, null);
        for (Features features : List.of(full, sparse, empty,
                new Features(null, null, null, null, null, null, null))) {
            assertSameAsDatabind(features);
            assertEquals(Json.writer().with(new GoIndentPrinter(Json.FEATURES_INDENT)).writeValueAsString(features)
                    + "\n", Json.writeFeatures(features));
        }
        RuncBinary runc = RuncBinary.find().orElse(null);
        if (runc != null) {
            Features printed = Json.read(runc.run(List.of("features"), null), Features.class);
            assertSameAsDatabind(printed);
        }
    }

    @Test
    void otherValuesStayWithDatabind() {
        RuncState state = new RuncState("1", "x", 1, ContainerStatus.RUNNING, "/b", "/r", CREATED, null, "");
        assertTrue(DocumentWriter.writes(state));
        assertTrue(DocumentWriter.writes(List.of(state, state)));
        assertFalse(DocumentWriter.writes(List.of()));
        assertFalse(DocumentWriter.writes(List.of(state, "x")));
        assertFalse(DocumentWriter.writes(DefaultSpec.example(true)));
        assertFalse(DocumentWriter.writes(List.of(1, 2)));
        assertEquals("[1,2]", Json.write(List.of(1, 2)));
        assertEquals("[]", Json.write(List.of()));
    }

    /** Compact and with every indent, through {@link Json} and against databind. */
    @Test
    void resourcesAreWrittenAsDatabindWritesThemAndReadBack() throws Exception {
        String everyField = java.nio.file.Files.readString(java.nio.file.Path.of(
                DocumentWriterTest.class.getResource("every-field.json").toURI()));
        LinuxResources full = Json.read(everyField, Spec.class).linux().resources();
        LinuxResources unsigned = new LinuxResources(null, new LinuxMemory(1L, null, -1L, null, null, -1L, true, null, null),
                new LinuxCPU(-1L, -1L, -2L, -3L, null, -4L, "0-1", "", null), new LinuxPids(-1L),
                new LinuxBlockIO(null, null, null, List.of(new LinuxThrottleDevice(8L, 0L, -1L)), null, null, null),
                List.of(new LinuxHugepageLimit("2MB", -1L)), null, Map.of("mlx", new LinuxRdma(1L, null)),
                Map.of("memory.high", AWKWARD));
        for (LinuxResources r : List.of(full, unsigned, new LinuxResources(null, null, null, null, null, null, null,
                null, null))) {
            assertSameAsDatabind(r);
            assertEquals(r, SpecReader.readResources(DocumentWriter.write(r, null)));
        }
    }

    private static void assertSameAsDatabind(Object value) throws JsonProcessingException {
        assertEquals(Json.writer().writeValueAsString(value), Json.write(value));
        assertEquals(Json.writer().writeValueAsString(value), DocumentWriter.write(value, null));
        for (String indent : INDENTS) {
            String expected = Json.writer().with(new GoIndentPrinter(indent)).writeValueAsString(value);
            assertEquals(expected, Json.writeIndented(value, indent));
        }
        List<Object> inList = new ArrayList<>();
        inList.add(value);
        if (value instanceof RuncState) {
            assertEquals(Json.writer().writeValueAsString(inList), Json.write(inList));
        }
    }
}
