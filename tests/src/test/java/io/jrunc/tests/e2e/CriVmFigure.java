package io.jrunc.tests.e2e;

import io.jrunc.tests.cri.v1.ContainerConfig;
import io.jrunc.tests.cri.v1.ContainerMetadata;
import io.jrunc.tests.cri.v1.CreateContainerRequest;
import io.jrunc.tests.cri.v1.ExecSyncRequest;
import io.jrunc.tests.cri.v1.ImageSpec;
import io.jrunc.tests.cri.v1.LinuxPodSandboxConfig;
import io.jrunc.tests.cri.v1.PodSandboxConfig;
import io.jrunc.tests.cri.v1.PodSandboxMetadata;
import io.jrunc.tests.cri.v1.RemovePodSandboxRequest;
import io.jrunc.tests.cri.v1.RunPodSandboxRequest;
import io.jrunc.tests.cri.v1.StartContainerRequest;
import io.jrunc.tests.cri.v1.StopPodSandboxRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The VM back end's figure: a pod VM with one busybox container made through containerd's CRI plugin
 * with the {@code jrunc-vm} handler (the kubelet's RunPodSandbox, CreateContainer, StartContainer), against
 * the same pod made with the {@code jrunc-vm} CLI ({@code pod create} with the same memory and
 * processors, {@code create --rootfs-share} of a bundle holding the same image's root, {@code start}),
 * ROUNDS rounds of each, interleaved, on one private containerd ({@link CriContainerd}). Each is timed
 * from its first call to three points: the container started (StartContainer or {@code start}
 * returned), its first output ({@code ready}, in the CRI plugin's container log or the pod's
 * stdout.log), and an exec of {@code true} answered (ExecSync or {@code jrunc-vm exec}). Each pod is
 * removed after its round, untimed. Prints every round, then the medians and their ratios.
 *
 * <p>Not a test: a benchmark run by scripts/bench-shim-vm.sh ({@code make bench-shim-vm}), which boots
 * 2 x ROUNDS VMs. Needs root, containerd, the CNI plugins, qemu, build/bin and the VM image
 * ({@code -Djrunc.binary}, {@code -Djrunc.vm.image}).
 */
final class CriVmFigure {
    /** The pod VM's memory and processors, the same for both ways. */
    static final String POD_MEMORY = "512m";
    static final int POD_CPUS = 1;
    static final String SCRIPT = "echo ready; exec sleep 3600";

    /**
     * Milliseconds from a pod's first call to its container started, its first output, an exec answered;
     * and the VM's shape as its qemu was told ({@code -smp N -m SIZE}), the same for both ways.
     */
    record Round(long started, long output, long exec, String vm) {}

    private CriVmFigure() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        Path jruncVm = CriContainerd.binDir().resolve("jrunc-vm");
        CriContainerd.Handler.JRUNC_VM.require();
        List<Round> cri = new ArrayList<>();
        List<Round> cli = new ArrayList<>();
        try (CriContainerd host = CriContainerd.start()) {
            Path bundle = bundle(host);
            Path cliRoot = host.work.resolve("jrunc-vm-cli");
            System.out.printf("round  %-9s %10s %10s %10s%n", "way", "started", "output", "exec");
            for (int r = 0; r < rounds; r++) {
                // alternate which way goes first, so neither always follows the other's teardown
                for (boolean viaCri : r % 2 == 0 ? new boolean[] {true, false} : new boolean[] {false, true}) {
                    Round round = viaCri ? criRound(host, r) : cliRound(host, jruncVm, cliRoot, bundle, r);
                    (viaCri ? cri : cli).add(round);
                    System.out.printf("%5d  %-9s %8d ms %8d ms %8d ms   qemu %s%n", r + 1, viaCri ? "cri" : "jrunc-vm",
                            round.started(), round.output(), round.exec(), round.vm());
                }
            }
        }
        Round a = median(cri);
        Round b = median(cli);
        System.out.printf("median cri (RunPodSandbox..StartContainer, jrunc-vm handler): started %d ms, output %d ms, exec %d ms; qemu %s%n",
                a.started(), a.output(), a.exec(), a.vm());
        System.out.printf("median jrunc-vm (pod create, create --rootfs-share, start):  started %d ms, output %d ms, exec %d ms; qemu %s%n",
                b.started(), b.output(), b.exec(), b.vm());
        System.out.printf("ratio cri/jrunc-vm: started %.2f, output %.2f, exec %.2f (%d rounds each)%n",
                (double) a.started() / b.started(), (double) a.output() / b.output(), (double) a.exec() / b.exec(), rounds);
    }

    /** RunPodSandbox, CreateContainer, StartContainer, the log's first line, ExecSync; then the pod removed. */
    static Round criRound(CriContainerd host, int round) throws Exception {
        CriClient cri = host.cri();
        String name = "bench-" + round;
        Path logs = host.work.resolve("logs").resolve(name);
        PodSandboxConfig podConfig = PodSandboxConfig.newBuilder()
                .setMetadata(PodSandboxMetadata.newBuilder().setName(name).setNamespace("jrunc-bench")
                        .setUid(UUID.randomUUID().toString()))
                .setHostname(name)
                .putAnnotations("io.jrunc.pod.memory", POD_MEMORY)
                .putAnnotations("io.jrunc.pod.cpus", Integer.toString(POD_CPUS))
                .setLogDirectory(logs.toString())
                .setLinux(LinuxPodSandboxConfig.newBuilder().setCgroupParent(host.cgroupParent))
                .build();
        long t0 = System.nanoTime();
        String pod = cri.call(CriMethods.RUN_POD_SANDBOX, RunPodSandboxRequest.newBuilder().setConfig(podConfig)
                .setRuntimeHandler(CriContainerd.Handler.JRUNC_VM.handlerName).build()).getPodSandboxId();
        try {
            ContainerConfig config = ContainerConfig.newBuilder()
                    .setMetadata(ContainerMetadata.newBuilder().setName("c"))
                    .setImage(ImageSpec.newBuilder().setImage(E2eHost.IMAGE))
                    .addAllCommand(List.of("sh", "-c", SCRIPT))
                    .setLogPath("c.log")
                    .build();
            String id = cri.call(CriMethods.CREATE_CONTAINER, CreateContainerRequest.newBuilder().setPodSandboxId(pod)
                    .setConfig(config).setSandboxConfig(podConfig).build()).getContainerId();
            cri.call(CriMethods.START_CONTAINER, StartContainerRequest.newBuilder().setContainerId(id).build());
            long started = System.nanoTime();
            String vm = qemuShape(host.vmStateRoot());
            awaitLine(logs.resolve("c.log"), " stdout F ready");
            long output = System.nanoTime();
            var exec = cri.call(CriMethods.EXEC_SYNC, ExecSyncRequest.newBuilder().setContainerId(id)
                    .addCmd("true").setTimeout(60).build());
            long answered = System.nanoTime();
            if (exec.getExitCode() != 0) {
                throw new IllegalStateException("ExecSync true: " + exec);
            }
            return new Round(ms(started - t0), ms(output - t0), ms(answered - t0), vm);
        } finally {
            cri.call(CriMethods.STOP_POD_SANDBOX, StopPodSandboxRequest.newBuilder().setPodSandboxId(pod).build());
            cri.call(CriMethods.REMOVE_POD_SANDBOX, RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod).build());
        }
    }

    /** jrunc-vm's pod create, create --rootfs-share, start, the stdout log's first line, exec; then pod rm -f. */
    static Round cliRound(CriContainerd host, Path jruncVm, Path root, Path bundle, int round) throws InterruptedException {
        String pod = "bench-pod-" + round;
        String container = "bench-c-" + round;
        Function<List<String>, String> jv = args -> {
            List<String> command = new ArrayList<>(List.of(jruncVm.toString(), "--root", root.toString()));
            command.addAll(args);
            Command.Result r = host.cmd.run(command);
            if (r.exitCode() != 0) {
                throw new IllegalStateException(r.describe());
            }
            return r.out();
        };
        long t0 = System.nanoTime();
        try {
            jv.apply(List.of("pod", "create", "--name", pod, "--memory", POD_MEMORY, "--cpus", Integer.toString(POD_CPUS)));
            jv.apply(List.of("create", "--pod", pod, "--name", container, "--rootfs-share", bundle.toString(),
                    "sh", "-c", SCRIPT));
            jv.apply(List.of("start", container));
            long started = System.nanoTime();
            String vm = qemuShape(root);
            awaitLine(root.resolve("pods").resolve(pod).resolve("containers").resolve(container).resolve("stdout.log"), "ready");
            long output = System.nanoTime();
            jv.apply(List.of("exec", container, "true"));
            long answered = System.nanoTime();
            return new Round(ms(started - t0), ms(output - t0), ms(answered - t0), vm);
        } finally {
            host.cmd.run(List.of(jruncVm.toString(), "--root", root.toString(), "pod", "rm", "-f", pod));
        }
    }

    /** A bundle whose root is the containers' image's (the busybox tree CriContainerd imported), writable. */
    static Path bundle(CriContainerd host) throws Exception {
        Path bundle = host.work.resolve("bench-bundle");
        Files.createDirectories(bundle.resolve("rootfs"));
        Command.Result untar = host.cmd.run(List.of("tar", "--numeric-owner", "-C", bundle.resolve("rootfs").toString(),
                "-xf", host.work.resolve("busybox-rootfs.tar").toString()));
        if (untar.exitCode() != 0) {
            throw new IllegalStateException(untar.describe());
        }
        Files.writeString(bundle.resolve("config.json"), """
                {"ociVersion": "1.0.2",
                 "process": {"terminal": false, "user": {"uid": 0, "gid": 0}, "args": ["sh"],
                             "env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"], "cwd": "/"},
                 "root": {"path": "rootfs", "readonly": false},
                 "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
                            {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
                            {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]}],
                 "linux": {"namespaces": [{"type": "pid"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}]}}
                """);
        return bundle;
    }

    /** Waits (at most 60 s, polling every 5 ms) until {@code file} holds a line containing {@code text}. */
    static void awaitLine(Path file, String text) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (Files.exists(file) && Command.read(file).contains(text)) {
                return;
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("no line with '" + text + "' in " + file + " after 60 s");
    }

    /** The processors and memory of the one qemu whose command line names a pod under {@code stateRoot}. */
    static String qemuShape(Path stateRoot) {
        List<String> found = new ArrayList<>();
        E2eHost.processesMentioning(stateRoot.toString()).values().stream().filter(c -> c.startsWith("qemu-system"))
                .forEach(c -> {
                    Matcher m = Pattern.compile("-smp (\\S+) .*?-m (\\S+)").matcher(c);
                    found.add(m.find() ? "-smp " + m.group(1) + " -m " + m.group(2) : "?");
                });
        if (found.size() != 1) {
            throw new IllegalStateException("not one qemu under " + stateRoot + ": " + found);
        }
        return found.getFirst();
    }

    static Round median(List<Round> rounds) {
        return new Round(median(rounds, Round::started), median(rounds, Round::output), median(rounds, Round::exec),
                rounds.getFirst().vm());
    }

    private static long median(List<Round> rounds, java.util.function.ToLongFunction<Round> field) {
        long[] v = rounds.stream().mapToLong(field).toArray();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }
}
