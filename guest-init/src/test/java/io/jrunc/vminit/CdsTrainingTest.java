package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CdsTrainingTest {
    /**
     * The training reads every map field of the agent's API through its generated class (what makes the
     * guest build the descriptors): each message type's class name is derived from its descriptor, so a
     * type whose class is not found, or a map left out, fails here rather than silently leaving
     * protobuf's descriptor classes out of the image's archive.
     */
    @Test
    void readsEveryMapFieldOfTheAgentApi() throws Exception {
        assertEquals(mapFieldsIn(Path.of("../agent-api/src/main/proto/jrunc/agent/v1/agent.proto")),
                CdsTraining.exerciseDescriptors());
    }

    private static long mapFieldsIn(Path proto) throws IOException {
        return Pattern.compile("^\\s*map<", Pattern.MULTILINE).matcher(Files.readString(proto)).results().count();
    }
}
