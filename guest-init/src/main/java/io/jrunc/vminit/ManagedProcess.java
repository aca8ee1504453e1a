package io.jrunc.vminit;

import io.jrunc.agent.api.pb.v1.ExitStatus;
import io.jrunc.bindings.Processes;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** A process the agent started and will report on: a container's own (execId "") or an exec. */
final class ManagedProcess implements ExecEntry {
    final String containerId;
    final String execId;
    final int pid;
    final ProcessIo io;
    final CompletableFuture<ExitStatus> exit;

    ManagedProcess(String containerId, String execId, int pid, ProcessIo io, Reaper reaper) {
        this.containerId = containerId;
        this.execId = execId;
        this.pid = pid;
        this.io = io;
        this.exit = reaper.exitOf(pid).thenApply(new ToStatus());
    }

    /** {@link #status} as a function: a class, not a method reference, which the first Create would spin at run time. */
    private static final class ToStatus implements Function<Processes.WaitStatus, ExitStatus> {
        @Override
        public ExitStatus apply(Processes.WaitStatus w) {
            return status(w);
        }
    }

    static ExitStatus status(Processes.WaitStatus w) {
        ExitStatus.Builder b = ExitStatus.newBuilder().setExitedAtNanos(nowNanos());
        if (w.exited()) {
            b.setCode(w.exitCode());
        } else {
            b.setCode(128 + w.signal()).setSignal(w.signal()).setCoreDumped((w.raw() & 0x80) != 0);
        }
        return b.build();
    }

    static long nowNanos() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
