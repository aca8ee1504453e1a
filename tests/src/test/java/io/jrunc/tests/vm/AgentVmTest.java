package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.*;

import com.google.protobuf.ByteString;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.pb.v1.*;
import io.jrunc.testsupport.Requirements;
import io.jrunc.ttrpc.ByteStream;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.Code;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.qemu.QemuCommand;
import io.jrunc.vm.qemu.VmImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * jrunc-vminit in a real VM (make test-agent; docs/guest-init.md): ONE boot of the image that
 * `make vm-image` built, shared by every case in order, driven from the host with the protocol's
 * AgentClient over qemu's virtio-serial chardev socket. Containers' root filesystem: a busybox ext4
 * image made here with mkfs.ext4 -d, attached read-only as virtio-blk with serial "rootfs0".
 * The image: -Djrunc.vm.image, else build/vm-image (VmHost); without it, qemu, busybox-static or
 * e2fsprogs the class fails under CI=true and skips elsewhere, naming what is missing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AgentVmTest {
    private static final String SERIAL = "rootfs0";
    private static final String HOSTNAME = "podhost";
    private static final Duration BOOT_TIMEOUT = Duration.ofMinutes(5);

    private Path work;
    private Process qemu;
    private AgentClient agent;
    private String agentCgroupAtBoot;
    private long bootStart;

    @BeforeAll
    void boot() throws Exception {
        VmHost.requireImage();
        VmHost.requireQemu();
        VmHost.requireBusybox();
        Requirements.requireCommands("e2fsprogs", "mkfs.ext4");
        Path dir = VmHost.IMAGE;
        work = Files.createTempDirectory("agent-vm");
        Path rootfs = work.resolve("rootfs");
        run(List.of(Path.of(System.getProperty("user.dir")).getParent().resolve("scripts/busybox-rootfs.sh")
                .toString(), rootfs.toString()));
        for (String mountPoint : List.of("proc", "sys", "dev", "tmp", "etc", "run", "root")) {
            Files.createDirectories(rootfs.resolve(mountPoint)); // the image is mounted read-only
        }
        Path disk = work.resolve("rootfs.img");
        run(List.of("mkfs.ext4", "-q", "-F", "-d", rootfs.toString(), disk.toString(), "32M"));
        Path socket = work.resolve("ctl.sock");
        List<String> cmd = new ArrayList<>(List.of("qemu-system-x86_64", "-nodefaults", "-no-user-config",
                "-display", "none", "-no-reboot", "-accel", "tcg", "-cpu", "max", "-smp", "1",
                "-kernel", dir.resolve("vmlinuz").toString(), "-initrd", dir.resolve("initrd.cpio").toString(),
                "-append", "console=ttyS0 panic=-1 jrunc.vsock_check " + Files.readString(dir.resolve("kernel.cmdline")).trim(),
                "-serial", "file:" + work.resolve("console.log"),
                "-device", "virtio-serial-pci",
                "-chardev", "socket,id=ctl,path=" + socket + ",server=on,wait=off",
                "-device", "virtserialport,chardev=ctl,name=jrunc.agent",
                "-drive", "file=" + disk + ",if=none,id=d0,format=raw,readonly=on",
                "-device", "virtio-blk-pci,drive=d0,serial=" + SERIAL));
        // 1 GiB of RAM and the image's agent root, as a pod's VM has it
        cmd.addAll(QemuCommand.memory(1024, VmImage.locate(dir.resolve("vmlinuz"), dir.resolve("initrd.cpio")).agentRoot()));
        bootStart = System.nanoTime();
        qemu = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(work.resolve("qemu.out").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(socket)) {
            assertTrue(qemu.isAlive(), "qemu exited: " + Files.readString(work.resolve("qemu.out")));
            assertTrue(System.nanoTime() < deadline, "qemu made no control socket");
            Thread.sleep(50);
        }
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(socket));
        // the agent answers once it is up: the client's synchronisation resends until then
        agent = AgentClient.connect(ByteStream.of(channel), ClientOptions.DEFAULTS
                .withSync(BOOT_TIMEOUT, Duration.ofSeconds(2)).withCallTimeout(Duration.ofMinutes(2)));
        System.out.printf("agent-vm: connected %.1f s after qemu started%n", (System.nanoTime() - bootStart) / 1e9);
    }

    @AfterAll
    void tearDown() throws Exception {
        if (agent != null) {
            agent.close();
        }
        if (qemu != null && qemu.isAlive()) {
            qemu.destroyForcibly().waitFor();
        }
        if (work != null) {
            System.out.println("agent-vm: console log:\n" + Files.readString(work.resolve("console.log")));
            run(List.of("rm", "-rf", work.toString()));
        }
    }

    @Test
    @Order(1)
    void bootsToReadyAndPrintsItsTime() throws Exception {
        // the console is a file qemu writes as the guest prints: the line may trail the first answer
        Pattern readyLine = Pattern.compile("ready for requests ([0-9.]+) s after kernel start");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String console = console();
        while (!readyLine.matcher(console).find() && System.nanoTime() < deadline) {
            Thread.sleep(200);
            console = console();
        }
        Matcher ready = readyLine.matcher(console);
        assertTrue(ready.find(), "no ready line in the console:\n" + console);
        System.out.println("agent-vm: kernel start to ready: " + ready.group(1) + " s");
        // the image's archive of the agent's classes: a JVM that rejects it boots anyway, only slower
        assertTrue(console.contains("class data archive /jrunc/agent.aot used"),
                "the JVM did not use the agent's class data archive:\n" + console);
        // ...trained on a container's create and delete, which the build runs only as root in namespaces
        // of the training's own (a training that skipped it would leave the first Create cold)
        Path training = VmHost.IMAGE.resolve("cds-training.log");
        assertTrue(Files.readString(training).contains("a container created and deleted"),
                "the image's cache training made no container:\n" + Files.readString(training));
        // the agent calls itself over AF_VSOCK just after its ready line
        while (!console.contains("vsock loopback: ") && System.nanoTime() < deadline) {
            Thread.sleep(200);
            console = console();
        }
        assertTrue(console.contains("vsock loopback: jrunc-vminit answered major 1"),
                "the AF_VSOCK path was not exercised:\n" + console);
        assertEquals(1, agent.agentVersion().getMajor());
        agentCgroupAtBoot = podStats().getAgentCgroup();
        assertEquals("0::/agent", agentCgroupAtBoot);
    }

    @Test
    @Order(2)
    void configuresThePod() throws Exception {
        agent.call(AgentMethods.Pod.CONFIGURE, ConfigurePodRequest.newBuilder().setHostname(HOSTNAME)
                .setDns(Dns.newBuilder().addNameservers("10.0.2.3"))
                .addSysctls(Sysctl.newBuilder().setName("vm.overcommit_memory").setValue("1")).build());
        RpcException bad = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Pod.CONFIGURE,
                ConfigurePodRequest.newBuilder().addSysctls(Sysctl.newBuilder().setName("no.such.parameter").setValue("1")).build()));
        assertEquals(Code.INVALID_ARGUMENT, bad.code());
    }

    @Test
    @Order(3)
    void twoContainersCreatedAtOnceEachSeeTheirOwnPid1AndThePodsHostname() throws Exception {
        String show = "echo pid=$$ host=$(hostname) cgroup=$(cat /proc/self/cgroup); exec sleep 1000";
        CompletableFuture<Integer> a = CompletableFuture.supplyAsync(() -> create("one", List.of("sh", "-c", show), null));
        // "two" has a writable root: an overlay on the read-only disk with a tmpfs upper layer
        CreateContainerRequest writable = createRequest("two", List.of("sh", "-c", show), null);
        CreateContainerRequest twoRequest = writable.toBuilder().setOciConfig(ByteString.copyFromUtf8(writable
                .getOciConfig().toStringUtf8().replace("\"readonly\":true", "\"readonly\":false"))).build();
        CompletableFuture<Integer> b = CompletableFuture.supplyAsync(() -> {
            try {
                return agent.call(AgentMethods.Containers.CREATE, twoRequest).getPid();
            } catch (RpcException e) {
                throw new AssertionError("create two: " + e, e);
            }
        });
        // the agent's own cgroup, sampled all the while both creates run: it never moves into theirs
        java.util.Set<String> seen = new java.util.TreeSet<>();
        int samples = 0;
        while (!(a.isDone() && b.isDone())) {
            seen.add(podStats().getAgentCgroup());
            samples++;
        }
        assertTrue(a.get() > 1 && b.get() > 1 && !a.get().equals(b.get()));
        System.out.println("agent-vm: agent cgroup sampled " + samples + " times during two creates: " + seen);
        assertEquals(java.util.Set.of(agentCgroupAtBoot), seen, "the agent's cgroup changed during create");
        for (String id : List.of("one", "two")) {
            agent.call(AgentMethods.Containers.START, StartContainerRequest.newBuilder().setId(id).build());
            // its own pid 1, the pod's hostname, and a cgroup namespace rooted at its own cgroup
            assertEquals("pid=1 host=" + HOSTNAME + " cgroup=0::/\n",
                    readUntil(ref(id, ""), OutputStream.OUTPUT_STREAM_STDOUT, "\n"));
            assertEquals(ContainerState.CONTAINER_STATE_RUNNING, inspect(id).getState());
        }
        assertEquals(agentCgroupAtBoot, podStats().getAgentCgroup(), "the agent's cgroup changed");
    }

    @Test
    @Order(4)
    void execReturnsOutputAndExitStatus() throws Exception {
        agent.call(AgentMethods.Processes.EXEC, ExecRequest.newBuilder().setContainerId("one").setExecId("e1")
                .setProcess(ProcessSpec.newBuilder().addAllArgs(List.of("sh", "-c",
                        "read line; echo got $line $(cat /proc/self/cgroup); echo oops >&2; exit 3"))).build());
        ProcessRef e1 = ref("one", "e1");
        agent.call(AgentMethods.Processes.WRITE_STDIN, WriteStdinRequest.newBuilder().setProcess(e1)
                .setData(ByteString.copyFromUtf8("hello\n")).build());
        agent.call(AgentMethods.Processes.CLOSE_STDIN, CloseStdinRequest.newBuilder().setProcess(e1).build());
        assertEquals("got hello 0::/\n", readAll(e1, OutputStream.OUTPUT_STREAM_STDOUT));
        assertEquals("oops\n", readAll(e1, OutputStream.OUTPUT_STREAM_STDERR));
        ExitStatus status = wait(e1);
        assertEquals(3, status.getCode());
        assertEquals(0, status.getSignal());

        // the writable root takes a write; the read-only one refuses it
        for (String id : List.of("two", "one")) {
            agent.call(AgentMethods.Processes.EXEC, ExecRequest.newBuilder().setContainerId(id).setExecId("w")
                    .setProcess(ProcessSpec.newBuilder().addAllArgs(List.of("sh", "-c",
                            "echo written > /file && cat /file"))).build());
            ProcessRef w = ref(id, "w");
            String out = readAll(w, OutputStream.OUTPUT_STREAM_STDOUT);
            int code = wait(w).getCode();
            if (id.equals("two")) {
                assertEquals("written\n", out);
                assertEquals(0, code);
            } else {
                assertNotEquals(0, code, "a read-only root took a write");
            }
        }
    }

    @Test
    @Order(4)
    void execsWhosePidsCameRoundAgainEachGetTheirOwnStatus() throws Exception {
        // pids are reused once pid_max of them went by: a long-lived pod gets there (a build in a
        // container), this test at once, with pid_max at its least (new pids from 300 up to 400)
        ProcessRef max = ref("one", "pidmax");
        agent.call(AgentMethods.Processes.EXEC, ExecRequest.newBuilder().setContainerId("one").setExecId("pidmax")
                .setProcess(ProcessSpec.newBuilder().addAllArgs(List.of("cat", "/proc/sys/kernel/pid_max"))).build());
        String pidMax = readAll(max, OutputStream.OUTPUT_STREAM_STDOUT).strip();
        assertEquals(0, wait(max).getCode());
        agent.call(AgentMethods.Pod.CONFIGURE, ConfigurePodRequest.newBuilder().setHostname(HOSTNAME)
                .setDns(Dns.newBuilder().addNameservers("10.0.2.3")).addSysctls(Sysctl.newBuilder().setName("kernel.pid_max").setValue("400")).build());
        try {
            java.util.Map<Integer, Integer> seen = new java.util.HashMap<>();
            int repeated = 0;
            for (int i = 0; i < 160; i++) {
                String id = "wrap" + i;
                int pid = agent.call(AgentMethods.Processes.EXEC, ExecRequest.newBuilder().setContainerId("one").setExecId(id)
                        .setProcess(ProcessSpec.newBuilder().addAllArgs(List.of("sh", "-c", "exit " + (i % 200)))).build()).getPid();
                if (seen.put(pid, i) != null) {
                    repeated++;
                }
                assertEquals(i % 200, wait(ref("one", id)).getCode(), "exec " + i + " (pid " + pid + ")");
            }
            System.out.println("agent-vm: 160 execs with pid_max 400, " + repeated + " of them on a pid used before");
            assertTrue(repeated > 0, "the pids never came round: the test showed nothing");
        } finally {
            agent.call(AgentMethods.Pod.CONFIGURE, ConfigurePodRequest.newBuilder().setHostname(HOSTNAME)
                    .setDns(Dns.newBuilder().addNameservers("10.0.2.3")).addSysctls(Sysctl.newBuilder().setName("kernel.pid_max").setValue(pidMax)).build());
        }
    }

    @Test
    @Order(5)
    void aSignalKilledProcessReports128PlusN() throws Exception {
        agent.call(AgentMethods.Processes.EXEC, ExecRequest.newBuilder().setContainerId("two").setExecId("sleeper")
                .setProcess(ProcessSpec.newBuilder().addAllArgs(List.of("sleep", "1000"))).build());
        ProcessRef p = ref("two", "sleeper");
        agent.call(AgentMethods.Processes.SIGNAL, SignalRequest.newBuilder().setProcess(p).setSignal(15).build());
        ExitStatus status = wait(p);
        assertEquals(128 + 15, status.getCode());
        assertEquals(15, status.getSignal());
    }

    /**
     * Pause freezes the container's cgroup (Inspect's frozen is cgroup.events' word) and Resume thaws
     * it; a second Pause, a Resume of a running container and an unknown id are refused.
     */
    @Test
    @Order(5)
    void pauseFreezesTheContainersCgroupAndResumeThawsIt() throws Exception {
        assertFalse(inspect("one").getFrozen());
        agent.call(AgentMethods.Containers.PAUSE, PauseContainerRequest.newBuilder().setId("one").build());
        assertTrue(inspect("one").getFrozen(), "cgroup.events says frozen");
        assertEquals(ContainerState.CONTAINER_STATE_RUNNING, inspect("one").getState());
        RpcException again = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Containers.PAUSE,
                PauseContainerRequest.newBuilder().setId("one").build()));
        assertEquals(Code.FAILED_PRECONDITION, again.code(), again.getMessage());
        agent.call(AgentMethods.Containers.RESUME, ResumeContainerRequest.newBuilder().setId("one").build());
        assertFalse(inspect("one").getFrozen());
        RpcException notPaused = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Containers.RESUME,
                ResumeContainerRequest.newBuilder().setId("one").build()));
        assertEquals(Code.FAILED_PRECONDITION, notPaused.code(), notPaused.getMessage());
        RpcException unknown = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Containers.PAUSE,
                PauseContainerRequest.newBuilder().setId("nosuch").build()));
        assertEquals(Code.NOT_FOUND, unknown.code(), unknown.getMessage());
    }

    @Test
    @Order(6)
    void terminalsForAContainerAndAnExecWithResize() throws Exception {
        CreateContainerRequest base = createRequest("tty", List.of("sh", "-c", "stty size; read x; stty size"), null);
        String config = base.getOciConfig().toStringUtf8().replace("\"process\":{",
                "\"process\":{\"terminal\":true,\"consoleSize\":{\"height\":24,\"width\":80},");
        CreateContainerRequest tty = base.toBuilder().setOciConfig(ByteString.copyFromUtf8(config)).build();
        agent.call(AgentMethods.Containers.CREATE, tty);
        agent.call(AgentMethods.Containers.START, StartContainerRequest.newBuilder().setId("tty").build());
        ProcessRef p = ref("tty", "");
        assertTrue(readUntil(p, OutputStream.OUTPUT_STREAM_STDOUT, "24 80").contains("24 80"));
        agent.call(AgentMethods.Processes.RESIZE_TERMINAL, ResizeTerminalRequest.newBuilder().setProcess(p)
                .setSize(ConsoleSize.newBuilder().setRows(40).setColumns(100)).build());
        agent.call(AgentMethods.Processes.WRITE_STDIN, WriteStdinRequest.newBuilder().setProcess(p)
                .setData(ByteString.copyFromUtf8("go\n")).build());
        assertTrue(readUntil(p, OutputStream.OUTPUT_STREAM_STDOUT, "40 100").contains("40 100"));
        assertEquals(0, wait(p).getCode());
        agent.call(AgentMethods.Containers.REMOVE, RemoveContainerRequest.newBuilder().setId("tty").build());

        agent.call(AgentMethods.Processes.EXEC, ExecRequest.newBuilder().setContainerId("one").setExecId("t1")
                .setProcess(ProcessSpec.newBuilder().addAllArgs(List.of("sh", "-c", "tty; stty size"))
                        .setTerminal(true).setConsoleSize(ConsoleSize.newBuilder().setRows(30).setColumns(90)))
                .build());
        ProcessRef t1 = ref("one", "t1");
        String out = readAll(t1, OutputStream.OUTPUT_STREAM_STDOUT);
        assertTrue(out.contains("/dev/pts/") && out.contains("30 90"), out);
        assertEquals(0, wait(t1).getCode());
        RpcException e = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Processes.RESIZE_TERMINAL,
                ResizeTerminalRequest.newBuilder().setProcess(ref("one", "e1"))
                        .setSize(ConsoleSize.newBuilder().setRows(1).setColumns(1)).build()));
        assertEquals(Code.FAILED_PRECONDITION, e.code());
    }

    @Test
    @Order(7)
    void anOomShowsInStatsWhileTheAgentAndTheOtherContainerRun() throws Exception {
        create("hog", List.of("sh", "-c", "x=$(head -c 200000000 /dev/zero | tr '\\000' x); echo survived"),
                "\"resources\":{\"memory\":{\"limit\":16777216,\"swap\":16777216}},");
        agent.call(AgentMethods.Containers.START, StartContainerRequest.newBuilder().setId("hog").build());
        ExitStatus status = wait(ref("hog", ""));
        ContainerStatsResponse stats = agent.call(AgentMethods.Containers.STATS,
                ContainerStatsRequest.newBuilder().setId("hog").build());
        System.out.println("agent-vm: hog exited " + status.getCode() + "; memory.events " + stats.getMemory().getEvents()
                .toString().replace('\n', ' '));
        assertEquals(16777216L, stats.getMemory().getLimit());
        assertTrue(stats.getMemory().getEvents().getOomKill() >= 1, "no oom_kill in " + stats);
        assertEquals(ContainerState.CONTAINER_STATE_RUNNING, inspect("two").getState());
        assertTrue(podStats().getMemTotalBytes() > 0);
        assertEquals(agentCgroupAtBoot, podStats().getAgentCgroup(), "the agent's cgroup changed");
    }

    @Test
    @Order(8)
    void badInputGetsOneClearErrorAndLeavesNothing() throws Exception {
        RpcException e = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Containers.CREATE,
                CreateContainerRequest.newBuilder().setId("bad").setOciConfig(ByteString.copyFromUtf8("{not json"))
                        .setRootfs(RootFilesystem.newBuilder().setSerial(SERIAL)).build()));
        assertEquals(Code.INVALID_ARGUMENT, e.code());
        e = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Containers.CREATE,
                createRequest("bad", List.of("true"), "\"sysctl\":{\"net.ipv4.ip_forward\":\"1\"},")));
        assertEquals(Code.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("linux.sysctl"), e.getMessage());
        e = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Containers.CREATE,
                createRequest("one", List.of("true"), null)));
        assertEquals(Code.ALREADY_EXISTS, e.code());
        e = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Containers.CREATE,
                createRequest("bad", List.of("no-such-program"), null)));
        assertEquals(Code.FAILED_PRECONDITION, e.code(), e.toString());
        e = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Containers.CREATE,
                createRequest("bad", List.of("true"), null).toBuilder()
                        .setRootfs(RootFilesystem.newBuilder().setSerial("no-such-disk")).build()));
        assertEquals(Code.NOT_FOUND, e.code(), e.toString());
        // nothing of the failed creates is left: the id, its cgroup and its mounts take a new container
        agent.call(AgentMethods.Containers.CREATE, createRequest("bad", List.of("true"), null));
        agent.call(AgentMethods.Containers.REMOVE, RemoveContainerRequest.newBuilder().setId("bad").setForce(true)
                .build());
        List<String> ids = agent.call(AgentMethods.Containers.LIST, ListContainersRequest.getDefaultInstance())
                .getContainersList().stream().map(ContainerInfo::getId).sorted().toList();
        assertEquals(List.of("hog", "one", "two"), ids);
    }

    @Test
    @Order(9)
    void stopAndRemove() throws Exception {
        StopContainerResponse stopped = agent.call(AgentMethods.Containers.STOP, StopContainerRequest.newBuilder()
                .setId("two").setGraceNanos(TimeUnit.SECONDS.toNanos(5)).build());
        // sleep is the container's PID 1, which the kernel shields from signals it has no handler for
        // (SIGKILL aside): SIGTERM does nothing, the grace period runs out, SIGKILL ends it
        assertEquals(128 + 9, stopped.getStatus().getCode());
        assertTrue(stopped.getKilled());
        RpcException e = assertThrows(RpcException.class, () -> agent.call(AgentMethods.Containers.REMOVE,
                RemoveContainerRequest.newBuilder().setId("one").build()));
        assertEquals(Code.FAILED_PRECONDITION, e.code());
        agent.call(AgentMethods.Containers.REMOVE, RemoveContainerRequest.newBuilder().setId("two").build());
        agent.call(AgentMethods.Containers.REMOVE, RemoveContainerRequest.newBuilder().setId("hog").build());
        assertEquals(List.of("one"), agent.call(AgentMethods.Containers.LIST, ListContainersRequest.getDefaultInstance())
                .getContainersList().stream().map(ContainerInfo::getId).toList());
        assertEquals(agentCgroupAtBoot, podStats().getAgentCgroup(), "the agent's cgroup changed");
    }

    @Test
    @Order(10)
    void aSignalForAnExecStillStartingIsRefusedAndNeverReachesTheContainersOwnProcess() throws Exception {
        // the container's own process is a sleep that a SIGKILL from the agent (outside its pid
        // namespace) would end: if a signal meant for the starting exec reached it, it would be stopped
        create("target", List.of("sleep", "1000"), null);
        agent.call(AgentMethods.Containers.START, StartContainerRequest.newBuilder().setId("target").build());
        ProcessRef exec = ref("target", "late");
        CompletableFuture<ExecResponse> started = CompletableFuture.supplyAsync(() -> {
            try {
                return agent.call(AgentMethods.Processes.EXEC, ExecRequest.newBuilder().setContainerId("target")
                        .setExecId("late").setProcess(ProcessSpec.newBuilder().addAllArgs(List.of("sleep", "1000"))).build());
            } catch (RpcException e) {
                throw new AssertionError("exec: " + e, e);
            }
        });
        java.util.Map<String, Integer> answers = new java.util.TreeMap<>();
        while (!started.isDone()) {
            String answer;
            try {
                agent.call(AgentMethods.Processes.SIGNAL, SignalRequest.newBuilder().setProcess(exec).setSignal(9).build());
                answer = "delivered";
            } catch (RpcException e) {
                answer = e.code() + ": " + e.getMessage().replaceAll("[0-9]+", "N");
            }
            answers.merge(answer, 1, Integer::sum);
        }
        started.get();
        System.out.println("agent-vm: signals sent while the exec started: " + answers);
        assertTrue(answers.keySet().stream().anyMatch(a -> a.startsWith("FAILED_PRECONDITION")
                && a.contains("exec late is still starting")), "no signal was sent while the exec started: " + answers);
        for (String a : answers.keySet()) {
            assertTrue(a.equals("delivered") || a.startsWith("NOT_FOUND") || a.startsWith("FAILED_PRECONDITION"), a);
        }
        assertEquals(ContainerState.CONTAINER_STATE_RUNNING, inspect("target").getState(),
                "a signal for the starting exec reached the container's own process");
        agent.call(AgentMethods.Containers.REMOVE, RemoveContainerRequest.newBuilder().setId("target").setForce(true).build());
    }

    @Test
    @Order(11)
    void aCreateThatAsksForNoPivotIsMadeWithMoveAndChroot() throws Exception {
        // runc's --no-pivot, only when asked (every other create here is pivot_root'ed): the root moved
        // over / and chrooted into; the process runs as in any container
        CreateContainerRequest request = createRequest("chrooted", List.of("sh", "-c", "echo pid=$$ root=$(ls /)"), null)
                .toBuilder().setNoPivot(true).build();
        agent.call(AgentMethods.Containers.CREATE, request);
        agent.call(AgentMethods.Containers.START, StartContainerRequest.newBuilder().setId("chrooted").build());
        String out = readAll(ref("chrooted", ""), OutputStream.OUTPUT_STREAM_STDOUT);
        assertTrue(out.startsWith("pid=1 root=") && out.contains("bin"), out);
        assertEquals(0, wait(ref("chrooted", "")).getCode());
        agent.call(AgentMethods.Containers.REMOVE, RemoveContainerRequest.newBuilder().setId("chrooted").build());
        assertTrue(console().contains(", bind-mounted over itself;"), "the boot's root switch was done");
    }

    @Test
    @Order(12)
    void execsWhoseIdsJoinToTheSameNameEachGetTheirOwnTerminal() throws Exception {
        // "a" + "b.c" and "a.b" + "c": the agent once named each exec's console socket and pid file
        // after the two ids joined with a dot, and these two execs then took each other's terminal or
        // pid, or failed to bind; each now has names of its own
        for (String id : List.of("a", "a.b")) {
            create(id, List.of("sleep", "1000"), null);
            agent.call(AgentMethods.Containers.START, StartContainerRequest.newBuilder().setId(id).build());
        }
        for (int round = 0; round < 3; round++) {
            ProcessRef first = ref("a", "b.c" + round);
            ProcessRef second = ref("a.b", "c" + round);
            CompletableFuture<String> one = CompletableFuture.supplyAsync(() -> terminalExec(first));
            CompletableFuture<String> two = CompletableFuture.supplyAsync(() -> terminalExec(second));
            assertEquals("exec a/b.c" + round, one.get().strip(), "round " + round);
            assertEquals("exec a.b/c" + round, two.get().strip(), "round " + round);
        }
        for (String id : List.of("a", "a.b")) {
            agent.call(AgentMethods.Containers.REMOVE, RemoveContainerRequest.newBuilder().setId(id).setForce(true).build());
        }
    }

    /** Runs an exec with a terminal that prints its own ref, and returns what its terminal showed. */
    private String terminalExec(ProcessRef p) {
        try {
            agent.call(AgentMethods.Processes.EXEC, ExecRequest.newBuilder().setContainerId(p.getContainerId())
                    .setExecId(p.getExecId()).setProcess(ProcessSpec.newBuilder().setTerminal(true)
                            .addAllArgs(List.of("echo", "exec " + p.getContainerId() + "/" + p.getExecId()))).build());
            String out = readAll(p, OutputStream.OUTPUT_STREAM_STDOUT);
            assertEquals(0, wait(p).getCode());
            return out;
        } catch (RpcException | IOException e) {
            throw new AssertionError(p.getContainerId() + "/" + p.getExecId() + ": " + e, e);
        }
    }

    @Test
    @Order(13)
    void shutdownPowersOffAndQemuExitsZero() throws Exception {
        agent.call(AgentMethods.Pod.SHUTDOWN, ShutdownRequest.newBuilder()
                .setGraceNanos(TimeUnit.SECONDS.toNanos(2)).build());
        assertTrue(qemu.waitFor(3, TimeUnit.MINUTES), "qemu still running after Shutdown");
        assertEquals(0, qemu.exitValue());
        assertTrue(console().contains("powering off"));
        System.out.printf("agent-vm: whole boot %.1f s%n", (System.nanoTime() - bootStart) / 1e9);
    }

    // ---------------------------------------------------------------------------------------------------

    private int create(String id, List<String> args, String resources) {
        try {
            return agent.call(AgentMethods.Containers.CREATE, createRequest(id, args, resources)).getPid();
        } catch (RpcException e) {
            throw new AssertionError("create " + id + ": " + e, e);
        }
    }

    /** A minimal busybox config; {@code linuxExtra} is spliced into "linux" (ending with a comma). */
    private static CreateContainerRequest createRequest(String id, List<String> args, String linuxExtra) {
        StringBuilder json = new StringBuilder();
        for (String a : args) {
            json.append(json.isEmpty() ? "" : ",").append('"').append(a.replace("\\", "\\\\").replace("\"", "\\\""))
                    .append('"');
        }
        String config = """
                {"ociVersion":"1.0.2","root":{"path":"ignored","readonly":true},
                 "process":{"args":[%s],"env":["PATH=/bin:/sbin:/usr/bin:/usr/sbin"],"cwd":"/",
                   "user":{"uid":0,"gid":0},"noNewPrivileges":true},
                 "mounts":[{"destination":"/proc","type":"proc","source":"proc"},
                   {"destination":"/dev","type":"tmpfs","source":"tmpfs","options":["nosuid","mode=755"]},
                   {"destination":"/dev/pts","type":"devpts","source":"devpts",
                     "options":["nosuid","noexec","newinstance","ptmxmode=0666","mode=0620"]},
                   {"destination":"/tmp","type":"tmpfs","source":"tmpfs"}],
                 "linux":{%s"namespaces":[{"type":"pid"},{"type":"mount"},{"type":"ipc"},{"type":"uts"},
                   {"type":"cgroup"},{"type":"network"}]}}
                """.formatted(json, linuxExtra == null ? "" : linuxExtra);
        return CreateContainerRequest.newBuilder().setId(id).setOciConfig(ByteString.copyFromUtf8(config))
                .setRootfs(RootFilesystem.newBuilder().setSerial(SERIAL)).build();
    }

    private static ProcessRef ref(String container, String exec) {
        return ProcessRef.newBuilder().setContainerId(container).setExecId(exec).build();
    }

    private ContainerInfo inspect(String id) throws RpcException {
        return agent.call(AgentMethods.Containers.INSPECT, InspectContainerRequest.newBuilder().setId(id).build())
                .getContainer();
    }

    private PodStatsResponse podStats() throws RpcException {
        return agent.call(AgentMethods.Pod.STATS, PodStatsRequest.getDefaultInstance());
    }

    private ExitStatus wait(ProcessRef p) throws RpcException {
        return agent.call(AgentMethods.Processes.WAIT, WaitRequest.newBuilder().setProcess(p).build()).getStatus();
    }

    /** Output of {@code stream} until it contains {@code wanted} (or ends). */
    private String readUntil(ProcessRef p, OutputStream stream, String wanted) throws RpcException, IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (!out.toString(StandardCharsets.UTF_8).contains(wanted)) {
            ReadOutputResponse r = agent.call(AgentMethods.Processes.READ_OUTPUT, ReadOutputRequest.newBuilder()
                    .setProcess(p).setStream(stream).build());
            if (r.getEof()) {
                break;
            }
            r.getData().writeTo(out);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private String readAll(ProcessRef p, OutputStream stream) throws RpcException, IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            ReadOutputResponse r = agent.call(AgentMethods.Processes.READ_OUTPUT, ReadOutputRequest.newBuilder()
                    .setProcess(p).setStream(stream).build());
            if (r.getEof()) {
                return out.toString(StandardCharsets.UTF_8);
            }
            r.getData().writeTo(out);
        }
    }

    private String console() throws IOException {
        return Files.readString(work.resolve("console.log"), StandardCharsets.ISO_8859_1);
    }

    private static void run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), cmd + ": " + out);
    }
}
