package io.jrunc.runtime;

import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Processes;
import io.jrunc.bindings.Signals;
import io.jrunc.bindings.UnixSockets;
import io.jrunc.cgroups.ChildPlacement;
import io.jrunc.runtime.init.ChainSpawn;
import io.jrunc.runtime.init.ChildStatus;
import io.jrunc.runtime.init.ChildCgroupEntry;
import io.jrunc.runtime.init.ChildReport;
import io.jrunc.runtime.init.ChildWaits;
import io.jrunc.runtime.init.ExecFailure;
import io.jrunc.runtime.init.ExecInit;
import io.jrunc.runtime.init.FilterCompilation;
import io.jrunc.runtime.init.HostIds;
import io.jrunc.runtime.init.SpawnThread;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * `exec`: a new process in a running container, created like the container's own (spawning thread,
 * gate), so it is in the container's cgroup, with its rlimits, before it runs a single instruction.
 */
public final class ContainerExec {
    private ContainerExec() {}

    /** Runs the exec; returns the exit status for a foreground exec, 0 for a detached one. */
    public static int exec(Container container, ExecOptions options) throws Exception {
        io.jrunc.runtime.init.SetgroupsDenial.read();
        Status status = container.status();
        if (status == Status.STOPPED) {
            throw new ContainerException("cannot exec in a stopped container");
        }
        if (status == Status.PAUSED && !options.ignorePaused()) {
            throw new ContainerException("cannot exec in a paused container (use --ignore-paused to override)");
        }
        boolean terminal = Boolean.TRUE.equals(options.process().terminal());
        if (terminal && options.consoleSocket() == null && options.detach()) {
            throw new ContainerException("cannot allocate tty if runc will detach without setting console socket");
        }
        if (terminal && options.consoleSocket() == null) {
            throw new ContainerException("exec --tty without --console-socket is not supported by jrunc yet");
        }
        // runc applies the container's profile to every exec'd process. Started on a thread of its own
        // (its program mostly comes from the root's cache, made by create) beside FFM's first link below.
        FilterCompilation filter = ContainerSeccomp.startCompile(container.config(),
                container.stateDirectory().getParent());
        // The new process waits at the gate in the container's pid namespace, beside the container's
        // own processes, while it still shares this JVM's address space: make that non-dumpable first.
        io.jrunc.bindings.Prctl.setDumpable(false);
        Path fifo = container.stateDirectory().resolve("exec-" + UUID.randomUUID() + ".fifo");
        int gateFd = -1;
        int consoleFd = -1;
        int pid = -1;
        // A long-lived creator (the guest agent) moves the child into the cgroup, not itself.
        int[] cgroupGate = null;
        ChildReport report = new ChildReport();
        try {
            if (options.cgroupEntry() == ChildCgroupEntry.CHILD_MOVED
                    && container.cgroup().mode() == io.jrunc.cgroups.CgroupMode.UNIFIED) {
                cgroupGate = FileDescriptors.pipe(FileDescriptors.O_CLOEXEC);
            }
            // The process's ids as the host sees them (through the container's user namespace, if any):
            // the FIFO's owner, the ids its rlimits are set with and /proc/PID/status shows.
            HostIds hostIds = HostIds.read(container.state().pid());
            try {
                hostIds.requireMapped(options.process().user(), "process");
            } catch (IllegalArgumentException e) {
                throw new ContainerException(e.getMessage());
            }
            int hostUid = hostIds.uid(Integer.toUnsignedLong(uid(options)));
            int hostGid = hostIds.gid(Integer.toUnsignedLong(gid(options)));
            FileDescriptors.mkfifo(fifo.toString(), 0622);
            FileDescriptors.chown(fifo.toString(), hostUid, hostGid);
            Files.setPosixFilePermissions(fifo, java.nio.file.attribute.PosixFilePermissions.fromString("rw--w--w-"));
            gateFd = FileDescriptors.open(fifo.toString(), FileDescriptors.O_PATH | FileDescriptors.O_CLOEXEC);
            if (options.consoleSocket() != null) {
                consoleFd = UnixSockets.connect(options.consoleSocket().toString());
            }
            ExecInit init = new ExecInit(container.state().pid(), options.process(), container.cgroup(), gateFd,
                    consoleFd, options.preserveFds(), filter, options.stdio(),
                    cgroupGate == null ? -1 : cgroupGate[0], report, hostIds);
            SpawnThread thread = new SpawnThread("jrunc-exec", init).start();
            try {
                pid = thread.awaitChild(60_000);
                if (cgroupGate != null) {
                    // the child waits on the pipe: into the container's cgroup, then on its way
                    container.cgroup().addProcess(pid);
                    FileDescriptors.write(cgroupGate[1], new byte[] {1});
                }
                thread.awaitGate(pid, 60_000);
                int chdir = report.chdirError();
                if (chdir != 0) {
                    throw new ContainerException("unable to start container process: error during container init: "
                            + ChildReport.chdirMessage(options.process().cwd(), chdir));
                }
                ChildStatus.verify(pid, init.expected());
            } finally {
                ChildPlacement placement = init.placement();
                if (placement != null) {
                    placement.close();
                }
            }
            if (filter != null && filter.usesNotify()) {
                ContainerSeccomp.sendListener(container.config().linux().seccomp(), pid,
                        ChainSpawn.listenerFd(options.preserveFds(), true), container.ociState());
            }
            Rlimits.apply(pid, hostUid, hostGid, options.process().rlimits());
            if (cgroupGate != null) {
                // A long-lived creator (the guest agent, at -999 so that the OOM killer spares PID 1) must
                // not hand its own protection down: the process gets its own value, else the kernel's 0.
                Integer oomScoreAdj = options.process().oomScoreAdj();
                Files.writeString(Path.of("/proc", Integer.toString(pid), "oom_score_adj"),
                        Integer.toString(oomScoreAdj == null ? 0 : oomScoreAdj));
            }
            if (options.pidFile() != null) {
                PidFile.write(options.pidFile(), pid);
            }
            ForegroundProcess foreground = options.detach() ? null : ForegroundProcess.forwardSignalsTo(pid);
            ExecFailure failed = release(fifo, pid);
            if (failed != null) {
                Log.error(failed.logMessage());
            }
            if (foreground == null) {
                return 0;
            }
            // Waiting may take as long as the command runs: give up the container's lock first, as runc
            // holds none, so that state, kill, delete and other execs are not stuck behind this one.
            Files.deleteIfExists(fifo);
            container.close();
            return foreground.waitForExit();
        } catch (Exception | Error e) {
            if (pid > 0) {
                try {
                    Processes.kill(pid, Signals.SIGKILL);
                    ChildWaits.waitpid(pid, 0);
                } catch (ErrnoException ignored) {
                    // gone
                }
            }
            throw ContainerCreator.failure(e);
        } finally {
            if (filter != null) {
                filter.finish(); // a program this root did not have, kept whole before the JVM exits
            }
            FileDescriptors.closeQuietly(gateFd);
            FileDescriptors.closeQuietly(consoleFd);
            if (cgroupGate != null) {
                FileDescriptors.closeQuietly(cgroupGate[0]);
                FileDescriptors.closeQuietly(cgroupGate[1]);
            }
            // the child has exec'd or died (release), or was killed and waited for above
            report.close();
            try {
                Files.deleteIfExists(fifo);
            } catch (IOException ignored) {
                // the state directory goes with delete
            }
        }
    }

    /**
     * Opens the gate and waits until the process exec'd or died (EOF); what the child wrote to the gate
     * before EOF says its execve failed, and why ({@link ExecFailure}), or null.
     */
    private static ExecFailure release(Path fifo, int pid) {
        int fd = FileDescriptors.open(fifo.toString(),
                FileDescriptors.O_RDONLY | FileDescriptors.O_NONBLOCK | FileDescriptors.O_CLOEXEC);
        try {
            java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();
            byte[] chunk = new byte[512];
            while (true) {
                short ev = FileDescriptors.poll(fd, FileDescriptors.POLLIN, 100);
                if ((ev & FileDescriptors.POLLIN) != 0) {
                    int n = FileDescriptors.read(fd, chunk, chunk.length);
                    if (n == 0) {
                        break;
                    }
                    written.write(chunk, 0, n);
                } else if ((ev & FileDescriptors.POLLHUP) != 0) {
                    break;
                } else {
                    ProcStat stat = ProcStat.read(pid);
                    if (stat == null || !stat.alive()) {
                        break;
                    }
                }
            }
            return ExecFailure.of(written.toByteArray(), written.size());
        } finally {
            FileDescriptors.close(fd);
        }
    }

    private static int uid(ExecOptions o) {
        return o.process().user() == null || o.process().user().uid() == null ? 0 : o.process().user().uid().intValue();
    }

    private static int gid(ExecOptions o) {
        return o.process().user() == null || o.process().user().gid() == null ? 0 : o.process().user().gid().intValue();
    }
}
