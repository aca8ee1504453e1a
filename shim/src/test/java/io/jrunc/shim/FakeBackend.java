package io.jrunc.shim;

import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A back end of processes that exist only as records: each started process "exits" with status 7 on a
 * thread of its own after 0-2 ms, or before its start has even returned, so exits race starts as they
 * do with a container that runs {@code true}. The task service and the event order are what is tested.
 */
final class FakeBackend implements TaskBackend {
    private record Proc(int pid, CompletableFuture<ProcessExit> exit) {
    }

    private final TaskEvents events;
    private final Map<String, Proc> procs = new ConcurrentHashMap<>();
    private final AtomicInteger pids = new AtomicInteger(1000);

    FakeBackend(TaskEvents events) {
        this.events = events;
    }

    private static String key(String id, String execId) {
        return id + "/" + execId;
    }

    private Proc proc(String id, String execId) throws RpcException {
        Proc p = procs.get(key(id, execId));
        if (p == null) {
            throw new RpcException(Code.NOT_FOUND, (execId.isEmpty() ? "task " + id : "exec " + execId + " of task " + id)
                    + " not found");
        }
        return p;
    }

    @Override
    public int create(TaskRequests.Create request) throws RpcException {
        Proc p = new Proc(pids.incrementAndGet(), new CompletableFuture<>());
        if (procs.putIfAbsent(key(request.id(), ""), p) != null) {
            throw new RpcException(Code.ALREADY_EXISTS, "task " + request.id() + " already exists");
        }
        return p.pid();
    }

    @Override
    public int start(String id, String execId) throws RpcException {
        Proc p = proc(id, execId);
        if (ThreadLocalRandom.current().nextBoolean()) {
            exit(id, execId, p); // before start returns
        } else {
            Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                } catch (InterruptedException ignored) {
                    // exit now
                }
                exit(id, execId, p);
            });
        }
        return p.pid();
    }

    private void exit(String id, String execId, Proc p) {
        ProcessExit exit = new ProcessExit(p.pid(), 7, Instant.now());
        if (p.exit().complete(exit)) {
            events.exited(id, execId, exit);
        }
    }

    @Override
    public void exec(TaskRequests.Exec request) throws RpcException {
        Proc init = proc(request.id(), "");
        if (init.exit().isDone()) {
            throw new RpcException(Code.FAILED_PRECONDITION, "task " + request.id() + " is stopped");
        }
        procs.put(key(request.id(), request.execId()), new Proc(pids.incrementAndGet(), new CompletableFuture<>()));
    }

    @Override
    public TaskStatus state(String id, String execId) throws RpcException {
        Proc p = proc(id, execId);
        ProcessExit exit = p.exit().getNow(null);
        return new TaskStatus(id, execId, p.pid(), exit == null ? TaskStatus.Phase.RUNNING : TaskStatus.Phase.STOPPED,
                new TaskRequests.Stdio("", "", "", false), exit);
    }

    @Override
    public ProcessExit delete(String id, String execId) throws RpcException {
        Proc p = proc(id, execId);
        ProcessExit exit = p.exit().getNow(null);
        if (exit == null) {
            throw new RpcException(Code.FAILED_PRECONDITION, "process " + key(id, execId) + " is running");
        }
        procs.remove(key(id, execId));
        return exit;
    }

    @Override
    public void kill(String id, String execId, int signal, boolean all) throws RpcException {
        Proc p = proc(id, execId);
        ProcessExit exit = new ProcessExit(p.pid(), 128 + signal, Instant.now());
        if (p.exit().complete(exit)) {
            events.exited(id, execId, exit);
        }
    }

    @Override
    public ProcessExit await(String id, String execId) throws RpcException {
        try {
            return proc(id, execId).exit().get();
        } catch (InterruptedException | ExecutionException e) {
            throw new RpcException(Code.CANCELLED, "interrupted");
        }
    }

    @Override
    public List<TaskStatus.ProcessPid> pids(String id) throws RpcException {
        return List.of(new TaskStatus.ProcessPid(proc(id, "").pid(), ""));
    }

    @Override
    public void pause(String id) throws RpcException {
        proc(id, "");
    }

    @Override
    public void resume(String id) throws RpcException {
        proc(id, "");
    }

    @Override
    public void update(String id, byte[] linuxResourcesJson) throws RpcException {
        proc(id, "");
    }

    @Override
    public TaskStats stats(String id) throws RpcException {
        proc(id, "");
        return new TaskStats(true, 5_000_000, 3_000_000, 2_000_000, 4096, -1, 0, -1, 1, 100, 1);
    }

    @Override
    public void resizePty(String id, String execId, int width, int height) throws RpcException {
        proc(id, execId);
    }

    @Override
    public void closeStdin(String id, String execId) throws RpcException {
        proc(id, execId);
    }

    @Override
    public int taskPid(String id) throws RpcException {
        return proc(id, "").pid();
    }

    @Override
    public boolean empty() {
        return procs.isEmpty();
    }

    @Override
    public void close() {
    }
}
