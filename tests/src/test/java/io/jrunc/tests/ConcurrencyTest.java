package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(JruncExtension.class)
class ConcurrencyTest {

    /** Ten creates of one id at once: exactly one wins, the others get runc's message. */
    @Test
    void concurrentCreatesOfOneId(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().args("sleep", "1000");
        String id = sb.id("race");
        Jrunc j = sb.jrunc();
        List<Callable<Result>> creates = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            creates.add(() -> j.in(b.dir(), "create", id));
        }
        @SuppressWarnings("unchecked")
        List<Result> results = Wait.parallel(creates.toArray(Callable[]::new));
        List<Result> won = results.stream().filter(r -> r.exitCode() == 0).toList();
        List<Result> lost = results.stream().filter(r -> r.exitCode() != 0).toList();
        assertEquals(1, won.size(), results.toString());
        assertEquals(9, lost.size(), results.toString());
        for (Result r : lost) {
            assertEquals(1, r.exitCode(), r.describe("exit 1"));
            assertTrue(r.stderr().contains("container with given ID already exists"), r.describe("runc's wording"));
        }

        JsonNode list = Jrunc.JSON.readTree(j.run("list", "--format", "json").ok().stdout());
        assertEquals(1, list.size(), list.toString());
        assertEquals("created", list.get(0).get("status").asText());
        sb.sawPid(list.get(0).get("pid").asLong());
        j.run("delete", id).ok();
    }

    /** Twenty whole create, start, wait, delete cycles with distinct ids at once: all succeed, nothing left. */
    @Test
    void twentyParallelLifecycles(Sandbox sb) throws Exception {
        Bundle b = sb.bundle().args("true");
        Jrunc j = sb.jrunc();
        List<Callable<String>> cycles = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = sb.id("par" + i);
            cycles.add(() -> {
                j.in(b.dir(), "create", id).ok();
                j.run("start", id).ok();
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (!Jrunc.JSON.readTree(j.run("state", id).ok().stdout()).get("status").asText().equals("stopped")) {
                    assertTrue(System.nanoTime() < deadline, id + " never stopped");
                    Thread.sleep(20);
                }
                j.run("delete", id).ok();
                return id;
            });
        }
        @SuppressWarnings("unchecked")
        List<String> done = Wait.parallel(cycles.toArray(Callable[]::new));
        assertEquals(20, done.size());
        assertEquals(List.of(), sb.leftovers());
    }
}
