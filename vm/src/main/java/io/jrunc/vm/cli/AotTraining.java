package io.jrunc.vm.cli;

import com.google.protobuf.ByteString;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.AgentProtocol;
import io.jrunc.agent.api.pb.v1.CloseStdinResponse;
import io.jrunc.agent.api.pb.v1.ContainerInfo;
import io.jrunc.agent.api.pb.v1.ContainerState;
import io.jrunc.agent.api.pb.v1.ContainerStatsResponse;
import io.jrunc.agent.api.pb.v1.CpuStats;
import io.jrunc.agent.api.pb.v1.ExitStatus;
import io.jrunc.agent.api.pb.v1.InspectContainerResponse;
import io.jrunc.agent.api.pb.v1.IoDeviceStats;
import io.jrunc.agent.api.pb.v1.ListContainersResponse;
import io.jrunc.agent.api.pb.v1.MemoryEvents;
import io.jrunc.agent.api.pb.v1.MemoryStats;
import io.jrunc.agent.api.pb.v1.PidsStats;
import io.jrunc.agent.api.pb.v1.PodStatsResponse;
import io.jrunc.agent.api.pb.v1.ReadOutputResponse;
import io.jrunc.agent.api.pb.v1.WaitResponse;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import io.jrunc.vm.monitor.MonitorMethods;
import io.jrunc.vm.monitor.PodMonitor;
import io.jrunc.vm.monitor.pb.AddContainerResponse;
import io.jrunc.vm.monitor.pb.AwaitOutputResponse;
import io.jrunc.vm.monitor.pb.RemoveContainerResponse;
import io.jrunc.vm.monitor.pb.StartContainerResponse;
import io.jrunc.vm.monitor.pb.StatusResponse;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The workloads the build trains jrunc-vm's three AOT caches on (`make launcher-vm`, each under
 * -XX:AOTCacheOutput with the launcher's flags and class path), in this one JVM, through
 * {@link Main#run} as the launcher runs them: "read", the calls that ask a running pod's monitor for
 * the guest's figures (stats, pod inspect) on a root with a pod that never booted and a running pod;
 * "run", the calls that make and remove a container in a running pod (run --rm, create, start, rm).
 * No VM boots at build time: the pod's monitor is a stand-in, served on the pod's monitor.sock by a
 * JVM this one starts, answering the monitor's and the agent's methods as a pod with its containers
 * would, and the pod's recorded "qemu" is a live process, so the CLI takes the pod for running. A third,
 * "files", the calls that read state files only (ls, inspect, pod ls, logs: no monitor answers in
 * it, though the running pod's monitor lock is held, as a live monitor holds it), on a state "prepare-files" wrote
 * in a JVM of its own before, as "prepare-read" writes the state of "read". Not a test:
 * what it asserts is nothing; what matters is which classes the calls load and link. Three caches, not
 * one, because a JVM loads every class of its cache at start: a call that reads files needs fewer than
 * one that asks the monitor, which needs fewer than a run. Usage: AotTraining [read|run|files] WORKDIR
 * (made, then removed), after AotTraining prepare-read|prepare-files WORKDIR for the first and the last;
 * AotTraining serve SOCKET [CONTAINER...] is the stand-in monitor's JVM.
 */
public final class AotTraining {
    private AotTraining() {
    }

    public static void main(String[] args) throws Exception {
        String workload = args.length > 1 ? args[0] : "read";
        if (workload.equals("serve")) {
            StandInMonitor.serve(Path.of(args[1]), List.of(args).subList(2, args.length));
            return;
        }
        Path work = Path.of(args[args.length - 1]).toAbsolutePath();
        Files.createDirectories(work);
        if (workload.startsWith("prepare-")) {
            switch (workload) {
                case "prepare-files" -> prepareFiles(work);
                case "prepare-read" -> prepareReading(work);
                default -> throw new IllegalArgumentException("workload " + workload + ": prepare-read or prepare-files");
            }
            System.exit(0);
        }
        try {
            switch (workload) {
                case "read" -> trainReading(work);
                case "run" -> trainRunning(work);
                case "files" -> trainFiles(work);
                default -> throw new IllegalArgumentException("workload " + workload + ": read, run or files");
            }
        } finally {
            StateRoot.removeTree(work);
        }
        System.exit(0);
    }

    /**
     * The calls that ask a running pod's monitor, with a pod that never booted and a running pod with its containers, on the
     * state {@link #prepareReading} wrote in a JVM of its own (so that neither creating code nor the
     * object mapper that writing records takes lands in this cache: a JVM loads every class of its
     * cache at start). The running pod's monitor is a stand-in served by a JVM of its own.
     */
    private static void trainReading(Path work) throws Exception {
        String root = work.resolve("root").toString();
        StateRoot state = new StateRoot(Path.of(root));
        try (StandInMonitor.Served monitor = StandInMonitor.start(PodMonitor.socket(state, "train"), "c1", "c2")) {
            for (int i = 0; i < 3; i++) {
                reads(root);
            }
        }
    }

    /**
     * The calls that read state files and ask no monitor: `ls` and `pod ls` on an empty root, `ls`,
     * `pod ls`, `logs` and `inspect` with a pod that runs (its monitor's lock held here, as a live
     * monitor holds it, so the CLI reads the records that monitor keeps) and one that never booted, and
     * `pod inspect` of what does not run, on the state {@link #prepareFiles} wrote. No monitor answers
     * here, so none of protobuf's or ttRPC's classes land in this cache, nor, since the state was written
     * by another JVM, the object mapper's that writing records takes: a call that loads it starts that
     * much sooner.
     */
    private static void trainFiles(Path work) throws IOException {
        String empty = work.resolve("empty").toString();
        String root = work.resolve("root").toString();
        try (java.nio.channels.FileChannel lock = java.nio.channels.FileChannel.open(
                work.resolve("root/pods/train/monitor.lock"), java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE)) {
            lock.lock();
            filesCalls(empty, root);
        }
    }

    private static void filesCalls(String empty, String root) {
        for (int i = 0; i < 3; i++) {
            cli("--root", empty, "ls");
            cli("--root", empty, "ls", "--format", "json");
            cli("--root", empty, "pod", "ls");
            cli("--root", empty, "pod", "ls", "--format", "json");
            cli("--root", empty, "inspect", "none");
            cli("--root", root, "pod", "ls");
            cli("--root", root, "pod", "ls", "--format", "json");
            cli("--root", root, "logs", "c-train");
            cli("--root", root, "logs", "c-idle");
            cli("--root", root, "inspect", "c-idle");
            cli("--root", root, "ls");
            cli("--root", root, "ls", "--format", "json");
            cli("--root", root, "inspect", "c-train");
            cli("--root", root, "pod", "inspect", "idle");
        }
    }

    /**
     * The state {@link #trainReading} reads: the pod "idle" that never booted, and "train", running,
     * with the containers c1 and c2 and their output. Its "qemu" is this JVM's parent, as in
     * {@link #prepareFiles}.
     */
    private static void prepareReading(Path work) throws Exception {
        StateRoot state = new StateRoot(work.resolve("root"));
        state.write(PodRecord.created("idle", false, PodRecord.Config.of(1, 512L << 20, "idle")));
        state.write(runningAs(PodRecord.created("train", false, PodRecord.Config.of(1, 512L << 20, "train")), buildShell()));
        for (String c : new String[] {"c1", "c2"}) {
            state.write(new ContainerRecord(c, "train", work.toString(), "jr0000000000000000", List.of("sleep", "1"),
                    System.currentTimeMillis(), "running", 0));
            Files.writeString(state.containerDir("train", c).resolve("stdout.log"), "hello\n");
        }
    }

    /**
     * The state {@link #trainFiles} reads, written by a JVM of its own before the training one: an
     * empty root, and a root with a pod that never booted and one that runs, each with a container and
     * its output. The running pod's "qemu" is this JVM's parent (the build's shell, which runs the
     * training JVM next and outlives it).
     */
    private static void prepareFiles(Path work) throws Exception {
        Files.createDirectories(work.resolve("empty"));
        StateRoot state = new StateRoot(work.resolve("root"));
        state.write(PodRecord.created("idle", false, PodRecord.Config.of(1, 512L << 20, "idle")));
        state.write(runningAs(PodRecord.created("train", false, PodRecord.Config.of(1, 512L << 20, "train")), buildShell()));
        for (String pod : new String[] {"idle", "train"}) {
            String c = "c-" + pod;
            state.write(new ContainerRecord(c, pod, work.toString(), "jr0000000000000000", List.of("sleep", "1"),
                    System.currentTimeMillis(), pod.equals("idle") ? "stopped" : "running", 0));
            Files.writeString(state.containerDir(pod, c).resolve("stdout.log"), "hello\n");
        }
    }

    /**
     * Containers made and removed in the running pod "train" as a user's calls would: `run --rm` (a
     * read-only root, and a writable one with its layer), `create` + `start` + `rm -f`. Their images
     * are made with mkfs.ext4 as in a real call (e2fsprogs is a build dependency where the build trains).
     */
    private static void trainRunning(Path work) throws Exception {
        String root = work.resolve("root").toString();
        StateRoot state = new StateRoot(Path.of(root));
        state.write(running(PodRecord.created("train", false, PodRecord.Config.of(1, 512L << 20, "train"))));
        String readOnly = bundle(work.resolve("bundle-ro"), true).toString();
        String writable = bundle(work.resolve("bundle-rw"), false).toString();
        try (StandInMonitor.Served monitor = StandInMonitor.start(PodMonitor.socket(state, "train"))) {
            for (int i = 0; i < 3; i++) {
                cli("--root", root, "run", "--rm", "--pod", "train", readOnly, "echo", "hi");
                cli("--root", root, "run", "--rm", "--pod", "train", "-m", "64m", writable, "true");
                cli("--root", root, "create", "--pod", "train", "--name", "c" + i, writable);
                cli("--root", root, "start", "c" + i);
                cli("--root", root, "rm", "-f", "c" + i);
            }
        }
    }

    /** A bundle of one file, its root read-only or writable. */
    private static Path bundle(Path dir, boolean readOnly) throws IOException {
        Files.createDirectories(dir.resolve("rootfs/bin"));
        Files.writeString(dir.resolve("rootfs/bin/hello"), "hello\n");
        Files.writeString(dir.resolve("config.json"), """
                {"ociVersion": "1.0.2", "process": {"args": ["sh"], "cwd": "/", "env": ["PATH=/bin"]},
                 "root": {"path": "rootfs", "readonly": %s},
                 "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
                 "linux": {"namespaces": [{"type": "pid"}, {"type": "mount"}]}}""".formatted(readOnly));
        return dir;
    }

    /** The calls that ask the running pod's monitor, on a root with the pods "idle" (never booted) and "train" (running, c1 in it). */
    private static void reads(String root) {
        cli("--root", root, "pod", "inspect", "train");
        cli("--root", root, "pod", "inspect", "idle");
        cli("--root", root, "stats", "c1");
    }

    /** The pod as running, its "qemu" this JVM (the CLI checks the pid and its start time). */
    private static PodRecord running(PodRecord pod) {
        return runningAs(pod, ProcessHandle.current());
    }

    /** The pod as running, its "qemu" {@code process}. */
    private static PodRecord runningAs(PodRecord pod, ProcessHandle process) {
        return pod.withVm(new PodRecord.Vm(process.pid(), process.info().startInstant().orElseThrow().toEpochMilli(), "sha256:training"));
    }

    /** This JVM's parent: the build's shell, which runs the training JVM next and outlives it. */
    private static ProcessHandle buildShell() {
        return ProcessHandle.current().parent().orElseThrow();
    }

    /** One call as the launcher makes it, its output dropped; its exit code and error in the build's log. */
    private static void cli(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true);
        int code = Main.run(args, sink, new PrintStream(err, true), null);
        System.out.println(code + " " + String.join(" ", args).replaceAll("--root \\S+ ", "") + " " + err.toString().strip());
    }

    /**
     * The pod's monitor as the CLI sees it: the monitor's service and the agent's methods the CLI's
     * calls use, each answered as a running pod would (a container created, then running; its output
     * at end of file; its process ended with 0; its cgroup's figures, every field the guest fills).
     * It serves from a JVM of its own ({@link #start}), so that none of the server's classes (the
     * ttRPC server, its virtual threads, the handlers) land in the cache the CLI's calls load at start.
     */
    private static final class StandInMonitor {
        private final Map<String, ContainerState> containers = new ConcurrentHashMap<>();
        private final Set<String> stdinClosed = ConcurrentHashMap.newKeySet();

        /** The stand-in's JVM, this one's java and class path; closing it ends that JVM. */
        record Served(Process process) implements AutoCloseable {
            @Override
            public void close() throws InterruptedException {
                process.destroy();
                process.waitFor();
            }
        }

        /** Starts the stand-in on {@code socket}, {@code running} its running containers, and waits until it serves. */
        static Served start(Path socket, String... running) throws IOException {
            List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"),
                    AotTraining.class.getName(), "serve", socket.toString()));
            cmd.addAll(List.of(running));
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine();
            if (!"serving".equals(line)) {
                p.destroy();
                throw new IOException("the stand-in monitor did not start: " + line);
            }
            return new Served(p);
        }

        /** The stand-in's JVM: serves {@code socket} until its standard input ends (the training JVM's close or end). */
        static void serve(Path socket, List<String> running) throws IOException {
            StandInMonitor monitor = new StandInMonitor();
            for (String c : running) {
                monitor.containers.put(c, ContainerState.CONTAINER_STATE_RUNNING);
            }
            ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener.bind(UnixDomainSocketAddress.of(socket));
            TtrpcServer server = new TtrpcServer(monitor.dispatcher(), ServerOptions.DEFAULTS);
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    server.serveConnections(listener);
                } catch (IOException e) {
                    // closed
                }
            });
            System.out.println("serving");
            System.out.flush();
            while (System.in.read() >= 0) {
                // the training JVM writes nothing: its end, or its close, ends this one
            }
            System.exit(0);
        }

        private ContainerInfo info(String id) throws RpcException {
            ContainerState s = containers.get(id);
            if (s == null) {
                throw new RpcException(Code.NOT_FOUND, "container \"" + id + "\" does not exist");
            }
            ContainerInfo.Builder b = ContainerInfo.newBuilder().setId(id).setState(s).setPid(7);
            if (s == ContainerState.CONTAINER_STATE_STOPPED) {
                b.setExit(ExitStatus.newBuilder().setCode(0));
            }
            return b.build();
        }

        private Dispatcher dispatcher() {
            return new Dispatcher()
                    .register(AgentMethods.VERSION, AgentProtocol.versionHandler("training"))
                    .register(MonitorMethods.STATUS, (ctx, q) -> StatusResponse.newBuilder().setPod("train")
                            .setMonitorPid(ProcessHandle.current().pid()).setQemuPid(ProcessHandle.current().pid())
                            .setVmStatus("running").setAgent("training").setBootedDigest("sha256:training").build())
                    .register(MonitorMethods.ADD_CONTAINER, (ctx, q) -> {
                        containers.put(q.getId(), ContainerState.CONTAINER_STATE_CREATED);
                        return AddContainerResponse.newBuilder().setPid(7).build();
                    })
                    .register(MonitorMethods.START_CONTAINER, (ctx, q) -> {
                        containers.put(q.getId(), ContainerState.CONTAINER_STATE_RUNNING);
                        return StartContainerResponse.getDefaultInstance();
                    })
                    .register(MonitorMethods.AWAIT_OUTPUT, (ctx, q) -> AwaitOutputResponse.newBuilder().setEnded(true).build())
                    .register(MonitorMethods.REMOVE_CONTAINER, (ctx, q) -> {
                        containers.remove(q.getId());
                        return RemoveContainerResponse.getDefaultInstance();
                    })
                    .register(AgentMethods.Containers.LIST, (ctx, q) -> {
                        ListContainersResponse.Builder b = ListContainersResponse.newBuilder();
                        for (String id : containers.keySet()) {
                            b.addContainers(info(id));
                        }
                        return b.build();
                    })
                    .register(AgentMethods.Containers.INSPECT, (ctx, q) ->
                            InspectContainerResponse.newBuilder().setContainer(info(q.getId())).build())
                    .register(AgentMethods.Containers.STATS, (ctx, q) -> ContainerStatsResponse.newBuilder()
                            .setMemory(MemoryStats.newBuilder().setCurrent(1 << 20).setLimit(64 << 20).setSwapCurrent(1)
                                    .setSwapLimit(32 << 20).setEvents(MemoryEvents.newBuilder().setHigh(1).setMax(1).setOom(1)))
                            .setCpu(CpuStats.newBuilder().setUsageUsec(1000).setUserUsec(600).setSystemUsec(400))
                            .setPids(PidsStats.newBuilder().setCurrent(1).setLimit(100))
                            .addIo(IoDeviceStats.newBuilder().setMajor(8).setMinor(16).setRbytes(4096).setRios(1)).build())
                    .register(AgentMethods.Pod.STATS, (ctx, q) -> PodStatsResponse.newBuilder()
                            .setMemTotalBytes(500L << 20).setMemAvailableBytes(300L << 20).setAgentCgroup("0::/agent").build())
                    .register(AgentMethods.Processes.CLOSE_STDIN, (ctx, q) -> {
                        stdinClosed.add(q.getProcess().getContainerId());
                        return CloseStdinResponse.getDefaultInstance();
                    })
                    .register(AgentMethods.Processes.READ_OUTPUT, (ctx, q) ->
                            ReadOutputResponse.newBuilder().setEof(true).setData(ByteString.EMPTY).build())
                    .register(AgentMethods.Processes.WAIT, (ctx, q) -> {
                        containers.computeIfPresent(q.getProcess().getContainerId(), (k, v) -> ContainerState.CONTAINER_STATE_STOPPED);
                        return WaitResponse.newBuilder().setStatus(ExitStatus.newBuilder().setCode(0)).build();
                    });
        }

    }
}
