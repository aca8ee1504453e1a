package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.testsupport.Requirements;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compares with the real runc: what `runc spec` and `runc features` write. */
class RuncCompatibilityTest {

    @TempDir
    Path bundle;

    private RuncBinary runc;

    @BeforeEach
    void findRunc() {
        runc = RuncBinary.find().orElse(null);
        Requirements.require(runc != null, RuncBinary.MISSING);
    }

    @Test
    void defaultSpecIsWhatRuncSpecWrites() throws Exception {
        assertEquals(runcSpec(List.of()), tree(DefaultSpec.forThisHost(false)));
    }

    @Test
    void rootlessDefaultSpecIsWhatRuncSpecRootlessWrites() throws Exception {
        assertEquals(runcSpec(List.of("--rootless")), tree(DefaultSpec.forThisHost(true)));
    }

    @Test
    void runcSpecOutputRoundTripsByteForByte() throws Exception {
        for (List<String> flags : List.of(List.<String>of(), List.of("--rootless"))) {
            String written = runcSpecText(flags);
            Spec spec = Json.read(written, Spec.class);
            assertEquals(written, Json.writeIndented(spec, Json.SPEC_INDENT), "runc spec " + flags);
            Files.delete(bundle.resolve("config.json"));
        }
    }

    @Test
    void runcFeaturesOutputRoundTripsByteForByte() throws Exception {
        String printed = runc.run(List.of("features"), null);
        Features features = Json.read(printed, Features.class);
        assertEquals(Fixtures.tree(printed), Fixtures.tree(Json.write(features)));
        assertEquals(printed, Json.writeFeatures(features));
    }

    private String runcSpecText(List<String> flags) throws Exception {
        runc.run(concat(List.of("spec", "--bundle", bundle.toString()), flags), null);
        return Files.readString(bundle.resolve("config.json"), StandardCharsets.UTF_8);
    }

    /**
     * runc's output with the two documented version differences taken out: the spec version it was built
     * with, and (runc 1.1 and older) the ambient capability set.
     */
    private JsonNode runcSpec(List<String> flags) throws Exception {
        JsonNode written = Fixtures.tree(runcSpecText(flags));
        ((ObjectNode) written).put("ociVersion", SpecVersion.CURRENT);
        if (runc.writesAmbientCapabilities()) {
            ((ObjectNode) written.path("process").path("capabilities")).remove("ambient");
        }
        return written;
    }

    private static JsonNode tree(Spec spec) {
        return Fixtures.tree(Json.writeIndented(spec, Json.SPEC_INDENT));
    }

    private static List<String> concat(List<String> first, List<String> second) {
        return java.util.stream.Stream.concat(first.stream(), second.stream()).toList();
    }
}
