package io.jrunc.shim.host;

import io.jrunc.shim.ProcessExit;
import io.jrunc.shim.TaskEvents;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** What a back end reported, in order. */
final class RecordedEvents implements TaskEvents {
    record Exit(String id, String execId, ProcessExit exit) {
    }

    final List<Exit> exits = new CopyOnWriteArrayList<>();
    final List<String> ooms = new CopyOnWriteArrayList<>();
    /** Every event as "exit ID/EXEC" or "oom ID", in the order the back end reported them. */
    final List<String> order = new CopyOnWriteArrayList<>();

    /** How long the sink takes over an exit before it records it (a slow task service). */
    volatile long exitDelayMillis;

    @Override
    public void exited(String id, String execId, ProcessExit exit) {
        if (exitDelayMillis > 0) {
            try {
                Thread.sleep(exitDelayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        exits.add(new Exit(id, execId, exit));
        order.add("exit " + id + "/" + execId);
    }

    @Override
    public void oom(String id) {
        ooms.add(id);
        order.add("oom " + id);
    }

    List<Exit> exitsOf(String id, String execId) {
        return exits.stream().filter(e -> e.id().equals(id) && e.execId().equals(execId)).toList();
    }
}
