package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A create killed with SIGKILL at any moment leaves nothing once {@code delete --force ID} has run: no
 * cgroup in any hierarchy, mount, process, FIFO or state directory. SIGKILL runs no undo, so
 * this is what create's journal (ROOT/ID/creating.json) and delete make true.
 */
@ExtendWith(JruncExtension.class)
class KilledCreateTest {

    @Test
    void aCreateKilledAtAnyMomentIsUndoneByDeleteForce(Sandbox sb) throws Exception {
        Bundle b = LifecycleTest.waitingBundle(sb);
        // a limit, so that create writes into the cgroup too
        b.config().withObjectProperty("linux").withObjectProperty("resources").withObjectProperty("pids")
                .put("limit", 64);
        b.write();
        Jrunc j = sb.jrunc();
        List<String> seen = new ArrayList<>();
        int killedBeforeTheEnd = 0;
        List<Integer> delays = new ArrayList<>();
        for (int d = 5; d <= 150; d += 5) {
            delays.add(d); // a create takes ~110 ms here: most of these land inside it
        }
        delays.addAll(List.of(5, 30, 60, 90, 120, 200, 400, 1000));
        for (int delay : delays) {
            {
                String id = sb.id("killed");
                Jrunc.Background create = j.start(b.dir(), "create", id);
                Thread.sleep(delay);
                boolean finished = !create.process().isAlive();
                create.process().destroyForcibly(); // SIGKILL
                create.process().waitFor();
                if (!finished) {
                    killedBeforeTheEnd++;
                }
                Result delete = j.run("delete", "--force", id);
                assertEquals(0, delete.exitCode(), delete.describe("delete --force after a create killed at " + delay + " ms"));
                List<String> left = sb.leftovers();
                assertEquals(List.of(), left, "create killed at " + delay + " ms (" + (finished ? "it had finished" : "mid-way") + ")");
                seen.add(delay + (finished ? "=done" : "=killed"));
            }
        }
        // the kills must land inside create, not only after it (else this test could not fail)
        assertTrue(killedBeforeTheEnd >= 20, "only " + killedBeforeTheEnd + " creates were killed mid-way: " + seen);
        Result last = j.in(b.dir(), "create", sb.id("after")).ok();
        assertTrue(last.stderr().isEmpty(), last.describe("a create after all that works"));
    }
}
