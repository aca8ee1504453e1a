package io.jrunc.vm.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.jrunc.vm.VmException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spec builder's swap cap: swap alone on the command line, the OCI memory+swap total in the spec
 * (the guest's conversion back to memory.swap.max is SwapVmTest's, read from the guest kernel).
 */
class SwapCapTest {
    @TempDir
    java.nio.file.Path dir;

    JsonNode memory(String config, long memoryFlag, long cap) throws Exception {
        return SpecBuilder.build(Bundle.load(SpecBuilderTest.bundle(dir, config)),
                new SpecBuilder.Overrides(memoryFlag, 0, List.of(), null, cap)).path("linux").path("resources").path("memory");
    }

    static final String NO_LIMIT = "{\"root\":{\"path\":\"rootfs\"},\"process\":{\"args\":[\"sh\"]}}";

    @Test
    void theCapIsWrittenAsMemoryPlusCap() throws Exception {
        JsonNode m = memory(NO_LIMIT, 32L << 20, 64L << 20);
        assertEquals(32L << 20, m.path("limit").asLong());
        assertEquals(96L << 20, m.path("swap").asLong());
    }

    @Test
    void aCapOfZeroMeansNoSwapForTheContainer() throws Exception {
        assertEquals(32L << 20, memory(NO_LIMIT, 32L << 20, 0).path("swap").asLong());
    }

    @Test
    void theBundlesLimitServesWhenNoFlag() throws Exception {
        JsonNode m = memory(SpecBuilderTest.CONFIG, 0, 1000);
        assertEquals(1000000, m.path("limit").asLong());
        assertEquals(1001000, m.path("swap").asLong());
    }

    @Test
    void noCapLeavesTheBundlesSwapAsItIs() throws Exception {
        JsonNode m = memory(SpecBuilderTest.CONFIG, 32L << 20, -1);
        assertTrue(m.path("swap").isMissingNode(), m.toString());
    }

    @Test
    void aCapWithoutAMemoryLimitIsRefused() {
        VmException e = assertThrows(VmException.class, () -> memory(NO_LIMIT, 0, 64L << 20));
        assertTrue(e.getMessage().contains("--swap needs a memory limit"), e.getMessage());
    }
}
