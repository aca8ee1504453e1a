package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(JruncExtension.class)
class ConcurrencyTest {

    /** Two creates of one id at once: exactly one wins, the other gets runc's message. */
    @Test
    void concurrentCreatesOfOneId(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().args("sleep", "1000");
        String id = sb.id("race");
        Jrunc j = sb.jrunc();
        List<Result> results = Wait.parallel(() -> j.in(b.dir(), "create", id), () -> j.in(b.dir(), "create", id));
        List<Result> won = results.stream().filter(r -> r.exitCode() == 0).toList();
        List<Result> lost = results.stream().filter(r -> r.exitCode() != 0).toList();
        assertEquals(1, won.size(), results.toString());
        assertEquals(1, lost.size(), results.toString());
        assertEquals(1, lost.getFirst().exitCode(), lost.getFirst().describe("exit 1"));
        assertTrue(lost.getFirst().stderr().contains("container with given ID already exists"),
                lost.getFirst().describe("runc's wording"));

        JsonNode list = Jrunc.JSON.readTree(j.run("list", "--format", "json").ok().stdout());
        assertEquals(1, list.size(), list.toString());
        assertEquals("created", list.get(0).get("status").asText());
        sb.sawPid(list.get(0).get("pid").asLong());
        j.run("delete", id).ok();
    }
}
