package io.jrunc.shim;

import com.google.protobuf.Timestamp;
import io.jrunc.containerd.api.events.TaskCreate;
import io.jrunc.containerd.api.events.TaskDelete;
import io.jrunc.containerd.api.events.TaskExecAdded;
import io.jrunc.containerd.api.events.TaskExecStarted;
import io.jrunc.containerd.api.events.TaskExit;
import io.jrunc.containerd.api.events.TaskOOM;
import io.jrunc.containerd.api.events.TaskPaused;
import io.jrunc.containerd.api.events.TaskResumed;
import io.jrunc.containerd.api.events.TaskStart;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Puts a shim's events in the order containerd relies on: create, start, exit, delete for a task;
 * exec-added, exec-started, exit for an exec; each exit once. A process can exit before the Start
 * that started it has returned (a container that runs {@code true}): the back end reports that exit
 * at once, but containerd, seeing an exit before the start, waits for ever (CRI leaves the container
 * "running"). So an exit that arrives while its process's Start is in flight is held and published
 * right after the start event; an exit that never arrived by the time of a Delete is published from
 * Delete's answer, before the delete event; one reported before its process's create (or exec-added)
 * event goes right after that event; one reported after the process was deleted is stale and dropped.
 * Everything is decided under one lock and handed to the sink in that order.
 *
 * <p>Topics and payloads are containerd's: /tasks/create (TaskCreate), /tasks/start, /tasks/exit,
 * /tasks/delete, /tasks/exec-added, /tasks/exec-started, /tasks/oom, /tasks/paused, /tasks/resumed.
 */
public final class EventOrder {
    public static final String CREATE = "/tasks/create", START = "/tasks/start", EXIT = "/tasks/exit",
            DELETE = "/tasks/delete", EXEC_ADDED = "/tasks/exec-added", EXEC_STARTED = "/tasks/exec-started",
            OOM = "/tasks/oom", PAUSED = "/tasks/paused", RESUMED = "/tasks/resumed";

    private record Key(String id, String execId) {
    }

    private static final class Process {
        boolean startInFlight;
        ProcessExit heldExit;
        boolean exitPublished;
    }

    private final EventSink sink;
    private final Map<Key, Process> processes = new HashMap<>();
    /** Exits of processes whose create (or exec-added) event has not gone yet. */
    private final Map<Key, ProcessExit> early = new HashMap<>();
    /** Processes deleted: an exit reported after that is stale and dropped. Cleared by a new create. */
    private final java.util.Set<Key> deleted = new java.util.HashSet<>();
    private final Map<String, String> namespaces = new HashMap<>();

    public EventOrder(EventSink sink) {
        this.sink = sink;
    }

    private Process process(String id, String execId) {
        return processes.computeIfAbsent(new Key(id, execId), k -> new Process());
    }

    private String namespace(String id) {
        return namespaces.getOrDefault(id, "");
    }

    /** The task was created (its init waits to be started). */
    public synchronized void created(String namespace, TaskCreate event) {
        String id = event.getContainerId();
        namespaces.put(id, namespace);
        deleted.removeIf(k -> k.id().equals(id));
        Process p = process(id, "");
        sink.publish(namespace, CREATE, event);
        publishEarlyExit(id, "", p);
    }

    /** An exec was added to task {@code id}. */
    public synchronized void execAdded(String id, String execId) {
        deleted.remove(new Key(id, execId));
        Process p = process(id, execId);
        sink.publish(namespace(id), EXEC_ADDED, TaskExecAdded.newBuilder().setContainerId(id).setExecId(execId).build());
        publishEarlyExit(id, execId, p);
    }

    private void publishEarlyExit(String id, String execId, Process p) {
        ProcessExit exit = early.remove(new Key(id, execId));
        if (exit != null) {
            publishExit(id, execId, p, exit);
        }
    }

    /** A Start is about to run: an exit of this process is held until {@link #started} or {@link #startFailed}. */
    public synchronized void starting(String id, String execId) {
        Process p = process(id, execId);
        p.startInFlight = true;
    }

    /** The Start returned {@code pid}: the start event, then an exit that came meanwhile. */
    public synchronized void started(String id, String execId, int pid) {
        Process p = process(id, execId);
        p.startInFlight = false;
        if (execId.isEmpty()) {
            sink.publish(namespace(id), START, TaskStart.newBuilder().setContainerId(id).setPid(pid).build());
        } else {
            sink.publish(namespace(id), EXEC_STARTED,
                    TaskExecStarted.newBuilder().setContainerId(id).setExecId(execId).setPid(pid).build());
        }
        if (p.heldExit != null) {
            publishExit(id, execId, p, p.heldExit);
        }
    }

    /**
     * The Start failed: no start event, and an exit it caused is not published either (the caller
     * learned of the failure from Start's answer; containerd's runc shim does the same).
     */
    public synchronized void startFailed(String id, String execId) {
        Process p = process(id, execId);
        p.startInFlight = false;
        if (p.heldExit != null) {
            p.heldExit = null;
            p.exitPublished = true;
        }
    }

    /** The back end saw the process end. */
    public synchronized void exited(String id, String execId, ProcessExit exit) {
        Key key = new Key(id, execId);
        if (deleted.contains(key)) {
            return;
        }
        Process p = processes.get(key);
        if (p == null) {
            // before the create (or exec-added) event: published right after it
            early.putIfAbsent(key, exit);
            return;
        }
        if (p.exitPublished || p.heldExit != null) {
            return;
        }
        if (p.startInFlight) {
            p.heldExit = exit;
            return;
        }
        publishExit(id, execId, p, exit);
    }

    /**
     * The process was deleted, having ended as {@code exit}: its exit event if none went yet, then (for
     * the task's init) the delete event; the task's records go with its init.
     */
    public synchronized void deleted(String id, String execId, ProcessExit exit) {
        Process p = process(id, execId);
        if (!p.exitPublished && exit != null && exit.exitedAt() != null) {
            publishExit(id, execId, p, p.heldExit != null ? p.heldExit : exit);
        }
        if (execId.isEmpty()) {
            TaskDelete.Builder delete = TaskDelete.newBuilder().setContainerId(id);
            if (exit != null) {
                delete.setPid(exit.pid()).setExitStatus(exit.status());
                if (exit.exitedAt() != null) {
                    delete.setExitedAt(timestamp(exit.exitedAt()));
                }
            }
            sink.publish(namespace(id), DELETE, delete.build());
            for (Key k : processes.keySet()) {
                if (k.id().equals(id)) {
                    deleted.add(k);
                }
            }
            deleted.add(new Key(id, execId));
            processes.keySet().removeIf(k -> k.id().equals(id));
            early.keySet().removeIf(k -> k.id().equals(id));
            namespaces.remove(id);
        } else {
            deleted.add(new Key(id, execId));
            processes.remove(new Key(id, execId));
        }
    }

    public synchronized void oom(String id) {
        sink.publish(namespace(id), OOM, TaskOOM.newBuilder().setContainerId(id).build());
    }

    public synchronized void paused(String id) {
        sink.publish(namespace(id), PAUSED, TaskPaused.newBuilder().setContainerId(id).build());
    }

    public synchronized void resumed(String id) {
        sink.publish(namespace(id), RESUMED, TaskResumed.newBuilder().setContainerId(id).build());
    }

    private void publishExit(String id, String execId, Process p, ProcessExit exit) {
        p.heldExit = null;
        p.exitPublished = true;
        TaskExit.Builder event = TaskExit.newBuilder().setContainerId(id)
                // containerd's runc shim names the init by the container id
                .setId(execId.isEmpty() ? id : execId).setPid(exit.pid()).setExitStatus(exit.status());
        if (exit.exitedAt() != null) {
            event.setExitedAt(timestamp(exit.exitedAt()));
        }
        sink.publish(namespace(id), EXIT, event.build());
    }

    public static Timestamp timestamp(Instant t) {
        return Timestamp.newBuilder().setSeconds(t.getEpochSecond()).setNanos(t.getNano()).build();
    }
}
