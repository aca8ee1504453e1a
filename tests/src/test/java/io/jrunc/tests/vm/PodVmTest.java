package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Terminals;
import io.jrunc.tests.Host;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Pods in a real VM, through the jrunc-vm binary as a user drives it: containers with their own pid 1,
 * exec, stdin and terminals, hot-plug and unplug, the monitor replaced, the memory rule (at ready the
 * guest has the pod's memory less 3% available), signals and OOM, sysctls, stop and restart, and what
 * the pod's containers see of its options: resolver, hosts, hostname, cpus, exec's environment and
 * workdir, refused creates; then jrunc-vm under misuse (calls killed part-way, created containers,
 * forced removals). The ordered cases share one pod boot (booting under software emulation takes
 * 10-40 s) until `pod stop`; `pod start` boots it again. One more boot, an anonymous pod's, is `pod
 * prune`'s case, which needs pods running beside stopped ones, and the misuse cases boot a pod of
 * their own (the anonymous pod of `run --rm` is SwapVmTest's last case, on the boot it needs anyway).
 * While the VM image (build/vm-image/, made by `make vm-image` with the guest agent),
 * build/bin/jrunc-vm, qemu, busybox-static or e2fsprogs is missing, the class fails under CI=true and
 * skips, saying why, elsewhere (VmHost).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PodVmTest {
    static final ObjectMapper JSON = JruncVm.JSON;
    static final Path BIN = JruncVm.BIN;
    static final Path IMAGE = VmHost.IMAGE;
    static final String POD = "e2e-pod";
    static final long POD_MEMORY = 256L << 20;
    /** The pod's memory less 3%: what the guest must have available at ready. */
    static final long POD_MEMORY_FLOOR = POD_MEMORY * 97 / 100;
    /** The agent's cgroup, which no create, exec or OOM may change. */
    static final String AGENT_CGROUP = "0::/agent";

    static Path work;
    static Path root;
    static Path bundle;
    static JruncVm vm;

    @BeforeAll
    static void setUp() throws IOException {
        VmHost.requirePods();
        work = Files.createTempDirectory("jrunc-vm-e2e");
        vm = new JruncVm(work);
        root = vm.root();
        bundle = busyboxBundle(work.resolve("bundle"));
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (root != null && Files.exists(root)) {
            for (JsonNode p : JSON.readTree(jrunc("pod", "ls", "--format", "json").out())) {
                jrunc("pod", "rm", "-f", p.path("name").asText());
            }
        }
        if (work != null) {
            io.jrunc.bindings.FileTrees.delete(work); // the bundles, the calls' output files, the state root
        }
    }

    /** A rootfs of busybox-static and its applets, a config.json shaped like `runc spec`'s. */
    static Path busyboxBundle(Path dir) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("rootfs/bin"));
        for (String d : List.of("proc", "sys", "dev", "tmp", "etc")) {
            Files.createDirectories(dir.resolve("rootfs").resolve(d));
        }
        Files.copy(Path.of("/bin/busybox"), bin.resolve("busybox"), StandardCopyOption.COPY_ATTRIBUTES);
        for (String applet : List.of("sh", "echo", "cat", "sleep", "hostname", "ls", "stty", "true", "wc", "yes", "head", "kill", "rm")) {
            Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
        }
        Files.writeString(dir.resolve("config.json"), """
                {"ociVersion": "1.0.2",
                 "process": {"terminal": false, "user": {"uid": 0, "gid": 0}, "args": ["sh"],
                             "env": ["PATH=/bin", "TERM=xterm"], "cwd": "/",
                             "capabilities": {"bounding": ["CAP_KILL", "CAP_NET_BIND_SERVICE", "CAP_AUDIT_WRITE"],
                                              "effective": ["CAP_KILL", "CAP_NET_BIND_SERVICE", "CAP_AUDIT_WRITE"],
                                              "permitted": ["CAP_KILL", "CAP_NET_BIND_SERVICE", "CAP_AUDIT_WRITE"]},
                             "noNewPrivileges": true},
                 "root": {"path": "rootfs", "readonly": true},
                 "hostname": "bundle",
                 "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
                            {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
                            {"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
                            {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
                            {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["size=1g"]}],
                 "linux": {"namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}, {"type": "cgroup"}],
                           "maskedPaths": ["/proc/kcore"], "readonlyPaths": ["/proc/sys"]}}
                """);
        return dir;
    }

    static JruncVm.Result jrunc(String... args) throws IOException, InterruptedException {
        return vm.run(args);
    }

    static JruncVm.Result jrunc(String stdin, Map<String, String> env, String... args) throws IOException, InterruptedException {
        return vm.run(stdin, env, args);
    }

    static JruncVm.Result ok(String... args) throws Exception {
        return vm.ok(args);
    }

    static JsonNode json(String... args) throws Exception {
        return vm.json(args);
    }

    /** A call started as given (its own stdin, say), its output kept: exit 0 required. */
    static String ok(ProcessBuilder call) throws Exception {
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        Process p = call.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), String.join(" ", call.command()) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", call.command()) + "\n" + Files.readString(err));
        return Files.readString(out);
    }

    /** Waits up to 30 s for a container's log to contain {@code text} (the monitor copies it as it comes). */
    static void waitForLog(String container, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!ok("logs", container).out().contains(text) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
    }

    /** The guest's disks: the containers' (SCSI, sdX) and the pod's (virtio-blk, vdX). */
    static long guestDisks() throws Exception {
        return Stream.of(ok("exec", "a", "ls", "/sys/block").out().split("\\s+")).filter(s -> s.startsWith("vd") || s.startsWith("sd")).count();
    }

    /** The guest's view in `pod inspect` (the agent's Pod Stats): memTotal, memAvailable, agentCgroup. */
    static JsonNode guest() throws Exception {
        JsonNode g = json("pod", "inspect", POD).path("guest");
        assertTrue(g.isObject(), "pod inspect has the guest's figures");
        return g;
    }

    static long memAvailableAtReady;

    @Test
    @Order(1)
    void twoContainersEachWithItsOwnPid1AndThePodsHostname() throws Exception {
        assertEquals(POD + "\n", ok("pod", "create", "--name", POD, "--hostname", "podhost", "--memory", "256m",
                "--sysctl", "vm.overcommit_ratio=63", "--sysctl", "net.ipv4.ip_forward=1",
                "--dns", "10.0.0.53", "--dns", "fd00::53", "--add-host", "n1:10.1.2.3", "--add-host", "n2:fd00::1234").out());
        ok("pod", "start", POD);
        JsonNode ready = guest();
        memAvailableAtReady = ready.path("memAvailable").asLong();
        System.out.println("pod-vm: at ready MemTotal " + ready.path("memTotal").asLong() + ", MemAvailable "
                + memAvailableAtReady + " for a pod of " + POD_MEMORY + " (VM " + json("pod", "inspect", POD).path("vmMemoryMiB") + " MiB)");
        assertEquals(AGENT_CGROUP, ready.path("agentCgroup").asText());
        ok("create", "--pod", POD, "--name", "a", bundle.toString(), "sh", "-c", "echo started-a; exec sleep 1001");
        ok("create", "--pod", POD, "--name", "b", bundle.toString(), "sleep", "1002");
        ok("start", "a");
        ok("start", "b");
        assertTrue(ok("exec", "a", "cat", "/proc/1/cmdline").out().contains("1001"), "a's pid 1 is its own");
        assertTrue(ok("exec", "b", "cat", "/proc/1/cmdline").out().contains("1002"), "b's pid 1 is its own");
        // the agent runs at -999 (the OOM killer must spare PID 1); its containers and execs must not inherit that
        assertEquals(List.of("0", "0"), ok("exec", "a", "cat", "/proc/1/oom_score_adj", "/proc/self/oom_score_adj")
                .out().lines().toList(), "the container's and the exec's oom_score_adj");
        assertEquals("podhost", ok("exec", "a", "hostname").out().strip());
        assertEquals("podhost", ok("exec", "b", "hostname").out().strip());

        JruncVm.Result status = jrunc("exec", "a", "sh", "-c", "echo out; echo err >&2; exit 7");
        assertEquals(7, status.code(), status.all());
        assertEquals("out\n", status.out());
        assertEquals("err\n", status.err());

        JruncVm.Result echo = jrunc("ping\npong\n", Map.of(), "exec", "-i", "a", "cat");
        assertEquals(0, echo.code(), echo.all());
        assertEquals("ping\npong\n", echo.out());

        JruncVm.Result size = jrunc(null, Map.of("LINES", "33", "COLUMNS", "99"), "exec", "-t", "a", "stty", "size");
        assertEquals(0, size.code(), size.all());
        assertEquals("33 99", size.out().strip());

        JruncVm.Result missing = jrunc("exec", "a", "/bin/no-such-program");
        assertEquals(127, missing.code(), missing.all());

        // the balloon's driver is bound (loaded 15 s after ready) with free page reporting negotiated: the
        // features file has one character per feature bit, VIRTIO_BALLOON_F_REPORTING is bit 5
        String features = "";
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (features.isEmpty() && System.nanoTime() < until) {
            features = jrunc("exec", "a", "sh", "-c", "cat /sys/bus/virtio/drivers/virtio_balloon/virtio*/features").out().strip();
            if (features.isEmpty()) {
                Thread.sleep(2000);
            }
        }
        assertTrue(features.length() > 5 && features.charAt(5) == '1', "free page reporting not negotiated: \"" + features
                + "\"\n" + consoleTail());

        // a pod's kernel command line does not ask for the vsock loopback call (AgentVmTest's does), so the
        // agent spends no time of its vCPU on it after the ready line
        String console = Files.readString(root.resolve("pods").resolve(POD).resolve("console.log"));
        assertTrue(console.contains("ready for requests"), consoleTail());
        assertFalse(console.contains("vsock loopback"), consoleTail());
        // nor has its VM a virtio-vsock device (the host talks over the virtio-serial port), so the agent
        // loads no vsock module and serves no vsock socket
        assertTrue(console.contains("vsock: not served (no virtio-vsock device)"), consoleTail());
        Matcher modulesLine = Pattern.compile("loaded \\d+ kernel modules in \\d+ ms: ([^\n]*)").matcher(console);
        assertTrue(modulesLine.find(), consoleTail());
        assertFalse(modulesLine.group(1).contains("vsock"), modulesLine.group());
        // the agent's root is the image's ext4 on the virtio-pmem device, mounted with DAX: its files are
        // read in place from the host's mapping of agent-root.img, not copied into the guest's RAM
        Matcher rootLine = Pattern.compile("; root ext4 /dev/pmem0 \\(([^)]*)\\)").matcher(console);
        assertTrue(rootLine.find(), "no pmem root in the agent's main() line\n" + consoleTail());
        assertTrue(List.of(rootLine.group(1).split(",")).contains("dax=always"), rootLine.group());
    }

    @Test
    @Order(2)
    void aContainerAddedToTheRunningPodIsHotPluggedAndUnpluggedOnRm() throws Exception {
        long before = guestDisks();
        ok("create", "--pod", POD, "--name", "c", bundle.toString(), "sh", "-c", "echo hotplugged");
        assertEquals(before + 1, guestDisks(), "c's image is a new disk");
        ok("start", "c");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!ok("logs", "c").out().contains("hotplugged") && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertEquals("hotplugged\n", ok("logs", "c").out());
        ok("rm", "-f", "c");
        assertEquals(before, guestDisks(), "rm unplugged c's disk");
    }

    @Test
    @Order(3)
    void killingTheMonitorLeavesThePodRunningAndTheNextCommandReconnects() throws Exception {
        JsonNode pod = json("pod", "inspect", POD);
        long monitorPid = pod.path("monitorPid").asLong();
        long qemuPid = pod.path("qemuPid").asLong();
        assertTrue(monitorPid > 0 && qemuPid > 0, pod.toString());
        ProcessHandle monitor = ProcessHandle.of(monitorPid).orElseThrow();
        monitor.destroyForcibly();
        monitor.onExit().get(30, TimeUnit.SECONDS);
        assertTrue(ProcessHandle.of(qemuPid).map(ProcessHandle::isAlive).orElse(false), "qemu outlives its monitor");

        JsonNode list = json("ls", "--format", "json");
        for (JsonNode c : list) {
            assertEquals("running", c.path("state").asText(), c.toString());
        }
        assertEquals(2, list.size(), list.toString());
        assertEquals("alive\n", ok("exec", "b", "echo", "alive").out());
        assertTrue(ok("logs", "a").out().contains("started-a"), "logs keep the earlier output");
        long newMonitor = json("pod", "inspect", POD).path("monitorPid").asLong();
        assertNotEquals(monitorPid, newMonitor, "a new monitor serves the pod");
    }

    @Test
    @Order(4)
    void thePodsMemoryIsItsContainers() throws Exception {
        // at ready the guest has at least the pod's memory less 3% available, and a
        // container can take that much (non-zero data: a kernel may keep zero-filled pages apart)
        assertTrue(memAvailableAtReady >= POD_MEMORY_FLOOR, "MemAvailable at ready " + memAvailableAtReady
                + " < " + POD_MEMORY_FLOOR + " (the pod's 256 MiB less 3%)");
        // a 1 MiB chunk copied whole MiBs, then the rest: 19 s here, where `yes | head -c` took 50 s
        long mibs = POD_MEMORY_FLOOR >> 20;
        JruncVm.Result fill = jrunc("exec", "a", "sh", "-c", "yes 0123456789abcdef | head -c 1048576 > /tmp/c; i=0; "
                + "while [ $i -lt " + mibs + " ]; do cat /tmp/c; i=$((i+1)); done > /tmp/fill; "
                + "head -c " + (POD_MEMORY_FLOOR - (mibs << 20)) + " /tmp/c >> /tmp/fill; wc -c < /tmp/fill; rm -f /tmp/fill /tmp/c");
        assertEquals(0, fill.code(), fill.all());
        assertEquals(Long.toString(POD_MEMORY_FLOOR), fill.out().strip(), "the container held it all");
        assertEquals("alive\n", ok("exec", "b", "echo", "alive").out());
    }

    @Test
    @Order(5)
    void aSignalKilledProcessReports128PlusN() throws Exception {
        // an exec killed by SIGUSR1 (10): jrunc-vm exec exits 138
        JruncVm.Result usr1 = jrunc("exec", "a", "sh", "-c", "kill -USR1 $$; sleep 5");
        assertEquals(128 + 10, usr1.code(), usr1.all());
        // a container's process killed by SIGKILL (9) from the host: jrunc-vm run exits 137
        Path runErr = Files.createTempFile(work, "run-sig", ".err");
        Process run = vm.builder("run", "--pod", POD, "--name", "sig", bundle.toString(), "sleep", "1005")
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(runErr.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!"running".equals(state("sig")) && System.nanoTime() < deadline) {
            if (!run.isAlive()) {
                fail("run ended (exit " + run.exitValue() + ") before its container ran: " + Files.readString(runErr)
                        + "\nthe pod's console, last lines:\n" + consoleTail());
            }
            Thread.sleep(300);
        }
        assertEquals("running", state("sig"), () -> "not running after 120 s; the pod's console, last lines:\n" + consoleTail());
        // pause and unpause: what ls and inspect say comes from the record the monitor keeps
        ok("pause", "sig");
        assertEquals("paused", state("sig"));
        ok("unpause", "sig");
        assertEquals("running", state("sig"));
        ok("kill", "-s", "KILL", "sig");
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "run ended when its container was killed");
        assertEquals(128 + 9, run.exitValue());
        ok("rm", "sig");

        // a container that ends by itself with no caller waiting for it (create, start): the monitor's
        // Wait in the guest records it stopped with its code
        ok("create", "--pod", POD, "--name", "ends", bundle.toString(), "sh", "-c", "exit 3");
        ok("start", "ends");
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!"stopped".equals(state("ends")) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        JsonNode ends = JSON.readTree(ok("inspect", "ends").out());
        assertEquals("stopped", ends.path("state").asText(), ends.toString());
        assertEquals(3, ends.path("exitCode").asInt(), ends.toString());
        assertEquals(0, ends.path("pid").asInt(), ends.toString());
        ok("rm", "ends");
    }

    /** The last 30 lines of the pod's console (the agent's log), for a failure's message. */
    static String consoleTail() {
        try {
            List<String> lines = Files.readAllLines(root.resolve("pods").resolve(POD).resolve("console.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(no console: " + e + ")";
        }
    }

    static String state(String container) throws Exception {
        JruncVm.Result r = jrunc("inspect", container);
        return r.code() == 0 ? JSON.readTree(r.out()).path("state").asText() : "";
    }

    @Test
    @Order(6)
    void anOomInAMemoryLimitedContainerShowsInStatsWhileTheAgentAndTheOthersRun() throws Exception {
        // the shell's variable grows past 16 MiB (non-zero data)
        JruncVm.Result hog = jrunc("run", "--pod", POD, "--name", "hog", "--memory", "16m", bundle.toString(),
                "sh", "-c", "x=$(yes 0123456789abcdef | head -c 100000000); echo survived");
        assertEquals(137, hog.code(), hog.all());
        assertFalse(hog.out().contains("survived"), hog.all());
        JsonNode stats = json("stats", "hog");
        System.out.println("pod-vm: hog's stats " + stats);
        assertEquals(16L << 20, stats.path("memory").path("max").asLong(), stats.toString());
        assertTrue(stats.path("memory").path("events").path("oomKill").asLong() >= 1, "no oom_kill in " + stats);
        assertEquals("alive\n", ok("exec", "a", "echo", "alive").out());
        assertEquals("alive\n", ok("exec", "b", "echo", "alive").out());
        assertEquals(AGENT_CGROUP, guest().path("agentCgroup").asText(), "the agent never joined a container's cgroup");
        ok("rm", "hog");
    }

    @Test
    @Order(7)
    void thePodsSysctlsAreAppliedAndAContainerAskingForOneIsRefused() throws Exception {
        // vm.* is the machine's; net.* is the pod's network namespace, which the containers share
        assertEquals("63", ok("exec", "a", "cat", "/proc/sys/vm/overcommit_ratio").out().strip());
        assertEquals("1", ok("exec", "b", "cat", "/proc/sys/net/ipv4/ip_forward").out().strip());

        Path asks = Files.createDirectories(work.resolve("sysctl-bundle"));
        JsonNode config = JSON.readTree(bundle.resolve("config.json").toFile());
        ((ObjectNode) config.path("root")).put("path", bundle.resolve("rootfs").toString());
        ((ObjectNode) config.path("linux")).putObject("sysctl").put("vm.swappiness", "10");
        JSON.writeValue(asks.resolve("config.json").toFile(), config);
        long before = json("ls", "--format", "json").size();
        JruncVm.Result refused = jrunc("create", "--pod", POD, "--name", "asks", asks.toString());
        assertEquals(125, refused.code(), refused.all());
        assertEquals(1, refused.err().strip().lines().count(), refused.err());
        assertTrue(refused.err().contains("linux.sysctl"), refused.err());
        assertEquals(before, json("ls", "--format", "json").size(), "nothing was created");
        assertFalse(Files.exists(root.resolve("pods").resolve(POD).resolve("containers").resolve("asks")), "no state left");
        assertEquals("alive\n", ok("exec", "a", "echo", "alive").out(), "the pod is untouched");
    }

    /** The pod's files as a container reads them: resolv.conf, hosts and hostname, in one exec. */
    static List<String> podFiles(String container) throws Exception {
        String out = ok("exec", container, "sh", "-c", "cat /etc/resolv.conf; echo --; cat /etc/hosts; echo --; cat /etc/hostname").out();
        return List.of(out.split("--\n", -1));
    }

    @Test
    @Order(8)
    void thePodsResolverHostsAndHostnameAreEveryContainersFiles() throws Exception {
        // pod create --dns 10.0.0.53 --dns fd00::53 --add-host n1:10.1.2.3 --add-host n2:fd00::1234 --hostname podhost
        List<String> a = podFiles("a");
        assertEquals("nameserver 10.0.0.53\nnameserver fd00::53\n", a.get(0), "resolv.conf, nameservers in order");
        List<String> hosts = a.get(1).lines().map(l -> l.trim().replaceAll("\\s+", " ")).toList();
        assertTrue(hosts.contains("10.1.2.3 n1") && hosts.contains("fd00::1234 n2"), "hosts: " + hosts);
        assertTrue(hosts.contains("127.0.0.1 localhost") && hosts.contains("::1 localhost"), "hosts: " + hosts);
        assertEquals("podhost\n", a.get(2), "/etc/hostname");
        assertEquals(a, podFiles("b"), "every container of the pod has the pod's files");
        // the pod's, not the container's: a container cannot change them for its neighbours
        JruncVm.Result write = jrunc("exec", "a", "sh", "-c", "echo 10.9.9.9 intruder >> /etc/hosts");
        assertNotEquals(0, write.code(), write.all());
        assertEquals(a, podFiles("b"));
    }

    @Test
    @Order(9)
    void cpusIsTheContainersCpuMaxAndTheAgentsCpuIsNoContainers() throws Exception {
        // the bundle with its own cgroup at /sys/fs/cgroup (SwapVmTest's), and a writable root
        Path cgroupBundle = SwapVmTest.bundle(work.resolve("cgroup-bundle"));
        JsonNode config = JSON.readTree(cgroupBundle.resolve("config.json").toFile());
        ((ObjectNode) config.path("root")).put("readonly", false);
        JSON.writeValue(cgroupBundle.resolve("config.json").toFile(), config);
        ok("create", "--pod", POD, "--name", "cpu", "--cpus", "0.5", cgroupBundle.toString(), "sleep", "1004");
        ok("start", "cpu");
        // quota = cpus x the 100 ms period, as podman writes it
        assertEquals("50000 100000", ok("exec", "cpu", "cat", "/sys/fs/cgroup/cpu.max").out().strip());
        // the pod has one CPU (the default); under KVM its VM one more for the agent while the host has
        // more, which no container gets: the containers' parent holds the first CPU alone; under
        // emulation the VM has the pod's CPU alone. KVM is used exactly where the image's kernel boots
        // under it (a /dev/kvm that opens is not enough: this machine kind's is a software KVM, kvm_pvm,
        // on which qemu cannot set up the vCPU)
        JsonNode inspected = json("pod", "inspect", POD);
        int vmCpus = inspected.path("vmCpus").asInt();
        boolean kvmUsed = VmHost.kvmBoots();
        assertEquals(kvmUsed ? "kvm" : "tcg", inspected.path("accelerator").asText(), inspected.toString());
        assertTrue(String.join(" ", qemuCommandLine()).contains("-machine q35,accel=" + (kvmUsed ? "kvm," : "tcg,")),
                qemuCommandLine().toString());
        assertEquals(kvmUsed && Runtime.getRuntime().availableProcessors() > 1 ? 2 : 1, vmCpus);
        assertEquals(vmCpus == 1 ? "0" : "0-" + (vmCpus - 1),
                ok("exec", "cpu", "cat", "/sys/devices/system/cpu/online").out().strip(), "the VM's CPUs");
        assertEquals("0", ok("exec", "cpu", "cat", "/sys/fs/cgroup/cpuset.cpus.effective").out().strip(), "the container's");
        assertTrue(ok("exec", "cpu", "cat", "/proc/self/status").out().lines().anyMatch(l -> l.matches("Cpus_allowed_list:\\s+0")),
                "an exec runs on the containers' CPU alone");
        // the agent's JIT compiler thread runs at nice 10, and under ThreadPriorityPolicy=1 the JVM's
        // own threads at other values; none of it reaches a container: its first process and an exec
        // run at nice 0
        for (String pid : List.of("1", "self")) {
            String stat = ok("exec", "cpu", "cat", "/proc/" + pid + "/stat").out().strip();
            assertEquals("0", Host.statFields(stat)[16], "the nice value of /proc/" + pid);
        }
    }

    /** The container's processes (numeric /proc entries), the listing ls among them. */
    static long processes(String container) throws Exception {
        return Stream.of(ok("exec", container, "ls", "/proc").out().split("\\s+")).filter(s -> s.matches("\\d+")).count();
    }

    @Test
    @Order(10)
    void execAddsToTheEnvironmentRunsInItsWorkdirAndRefusesOneThatIsNoDirectory() throws Exception {
        try {
            // -e adds to the container's environment (PATH=/bin, TERM=xterm), a name given again replaced
            JruncVm.Result r = jrunc("exec", "-e", "K=V", "-e", "TERM=dumb", "-w", "/tmp", "cpu", "sh", "-c", "echo $K $TERM $PATH; pwd");
            assertEquals(0, r.code(), r.all());
            assertEquals("V dumb /bin\n/tmp\n", r.out());
            refusedWorkdirs();
        } finally {
            jrunc("rm", "-f", "cpu"); // the later cases count the pod's containers
        }
    }

    static void refusedWorkdirs() throws Exception {
        long before = processes("cpu");
        // podman's codes: a workdir that does not exist is the runtime's "no such file or directory", 127,
        // and exec does not create it (runc's exec changes into it; only a container's own process gets
        // its cwd made); a file is any other refusal, 125
        JruncVm.Result missing = jrunc("exec", "-w", "/no/such/dir", "cpu", "pwd");
        assertEquals(127, missing.code(), missing.all());
        assertEquals("", missing.out());
        assertEquals(1, missing.err().strip().lines().count(), missing.err());
        assertTrue(missing.err().contains("/no/such/dir") && missing.err().contains("no such file or directory"), missing.err());
        JruncVm.Result file = jrunc("exec", "-w", "/bin/busybox", "cpu", "pwd");
        assertEquals(125, file.code(), file.all());
        assertEquals("", file.out());
        assertEquals(1, file.err().strip().lines().count(), file.err());
        assertTrue(file.err().contains("/bin/busybox") && file.err().contains("not a directory"), file.err());
        assertEquals(1, jrunc("exec", "cpu", "ls", "-d", "/no").code(), "the writable root got no directory");
        assertEquals(before, processes("cpu"), "no process left behind");
    }

    @Test
    @Order(11)
    void runWithStdinPassesItThroughAndItsEndClosesIt() throws Exception {
        JruncVm.Result r = jrunc("hello\n", Map.of(), "run", "-i", "--rm", "--pod", POD, "--name", "in", bundle.toString(),
                "sh", "-c", "cat; echo after-eof");
        assertEquals(0, r.code(), r.all());
        assertEquals("hello\nafter-eof\n", r.out());
        assertFalse(Files.exists(root.resolve("pods").resolve(POD).resolve("containers").resolve("in")), "--rm removed it");

        // without -i a process reads end of file at once (podman's /dev/null), so a cat ends: run, a
        // created container's start, and exec
        JruncVm.Result noStdin = jrunc("run", "--rm", "--pod", POD, "--name", "in", bundle.toString(), "sh", "-c", "cat; echo eof");
        assertEquals(0, noStdin.code(), noStdin.all());
        assertEquals("eof\n", noStdin.out());
        assertEquals(0, jrunc("create", "--pod", POD, "--name", "in", bundle.toString(), "sh", "-c", "cat; echo eof").code());
        assertEquals(0, jrunc("start", "in").code());
        waitForLog("in", "eof\n");
        JruncVm.Result exec = jrunc("exec", "a", "sh", "-c", "cat; echo exec-eof");
        assertEquals(0, exec.code(), exec.all());
        assertEquals("exec-eof\n", exec.out());
        assertEquals(0, jrunc("rm", "-f", "in").code());
    }

    @Test
    @Order(12)
    void aTerminalHasItsCallersSizeFromTheStartAndFollowsItsChanges() throws Exception {
        // The JDK cannot open a pseudo-terminal; the bindings module can. jrunc-vm's stdin is the pty's
        // slave, as in a user's shell (it reads the size there, TIOCGWINSZ, and polls it every 200 ms);
        // its output goes to a file. The test changes the size on the master, as a terminal emulator does.
        Terminals.Pty pty = Terminals.open();
        Path out = work.resolve("tty.out");
        Path err = work.resolve("tty.err");
        Process run = null;
        try {
            Terminals.setSize(pty.master(), 30, 100);
            // create -t takes the caller's size into the spec (process.consoleSize): the process has it
            // from its first instruction, with no resize sent at all (create and start attach nothing)
            ok(vm.builder("create", "-t", "--pod", POD, "--name", "tty", bundle.toString(), "stty", "size")
                    .redirectInput(ProcessBuilder.Redirect.from(new File(pty.slavePath()))));
            ok("start", "tty");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!"stopped".equals(state("tty")) && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            waitForLog("tty", "\n");
            assertEquals("30 100\r\n", ok("logs", "tty").out(), "the terminal's size at start");
            ok("rm", "tty"); // the name is run's below

            run = vm.builder("run", "-t", "--rm", "--pod", POD, "--name", "tty", bundle.toString(),
                    "sh", "-c", "stty size; i=0; until [ \"$(stty size)\" = '41 121' ] || [ $i -ge 600 ]; do sleep 0.2; i=$((i+1)); done; stty size")
                    .redirectInput(ProcessBuilder.Redirect.from(new File(pty.slavePath())))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!Files.readString(out).contains("\n") && run.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            Terminals.setSize(pty.master(), 41, 121);
            assertTrue(run.waitFor(120, TimeUnit.SECONDS), "run -t did not end: " + Files.readString(out));
            // the guest's terminal turns \n into \r\n
            assertEquals(List.of("30 100", "41 121"), Files.readString(out).replace("\r", "").lines().toList(),
                    "the size at start, then the new one; stderr: " + Files.readString(err));
            assertEquals(0, run.exitValue(), Files.readString(err));
        } finally {
            if (run != null) {
                run.destroyForcibly();
            }
            FileDescriptors.closeQuietly(pty.master());
            jrunc("rm", "-f", "tty");
        }
    }

    /**
     * The serials of the guest's SCSI disks (what the hot-plugged images are known by): each disk's unit
     * serial number page after its 4-byte header, read in one read (a second read of it fails).
     */
    static Set<String> diskSerials() throws Exception {
        return Set.copyOf(ok("exec", "a", "sh", "-c", "for d in /sys/block/sd*; do dd if=$d/device/vpd_pg80 bs=256 count=1 2>/dev/null"
                + " | tail -c +5; echo; done").out().lines().map(String::strip).toList());
    }

    @Test
    @Order(13)
    void aCreateTheGuestRefusesLeavesNothingAndThePodGoesOn() throws Exception {
        Set<String> serials = diskSerials();
        assertEquals(Set.of(json("inspect", "a").path("serial").asText(), json("inspect", "b").path("serial").asText()), serials);
        Path badMount = Files.createDirectories(work.resolve("bad-mount-bundle"));
        JsonNode config = JSON.readTree(bundle.resolve("config.json").toFile());
        ((ObjectNode) config.path("root")).put("path", bundle.resolve("rootfs").toString());
        ((ArrayNode) config.path("mounts")).addObject().put("destination", "/data")
                .put("type", "bind").put("source", "/no/such/source").putArray("options").add("rbind");
        JSON.writeValue(badMount.resolve("config.json").toFile(), config);
        Path state = root.resolve("pods").resolve(POD).resolve("containers").resolve("refused");
        // the guest's runtime refuses each: a program that is not there (podman's 127), a bind mount
        // whose source the guest has not (125). The monitor unplugs the disk, the CLI removes the rest.
        for (var refusal : List.of(Map.entry(127, List.of("create", "--pod", POD, "--name", "refused", bundle.toString(), "/bin/no-such-program")),
                Map.entry(125, List.of("create", "--pod", POD, "--name", "refused", badMount.toString())))) {
            JruncVm.Result r = jrunc(refusal.getValue().toArray(String[]::new));
            assertEquals(refusal.getKey(), r.code(), r.all());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().contains("refused") && (r.err().contains("/bin/no-such-program") || r.err().contains("/no/such/source")), r.err());
            assertFalse(Files.exists(state), "no state or image file left: " + state);
            assertEquals(serials, diskSerials(), "the refused container's disk is unplugged");
            assertEquals(List.of("a", "b"), containerNames());
        }
        // the pod runs on, and the name is free again
        JruncVm.Result fine = jrunc("run", "--rm", "--pod", POD, "--name", "refused", bundle.toString(), "echo", "fine");
        assertEquals(0, fine.code(), fine.all());
        assertEquals("fine\n", fine.out());
    }

    @Test
    @Order(14)
    void prunePassesOverRunningPodsAndRemovesStoppedOnesAnonymousOnlyUnlessAll() throws Exception {
        ok("pod", "create", "--name", "idle"); // named, never booted
        try {
            pruning();
        } finally {
            // whatever failed, the cases after this one need the pod alone again
            jrunc("rm", "-f", "lone");
            jrunc("pod", "rm", "-f", "idle");
        }
    }

    static void pruning() throws Exception {
        ok("create", "--name", "lone", "--memory", "64m", bundle.toString(), "sleep", "1006"); // its anonymous pod boots
        String anonymous = json("inspect", "lone").path("pod").asText();
        assertTrue(anonymous.startsWith("anon-"), anonymous);
        // a pod given no resolver, hosts or hostname: the default network's resolver (user-mode's
        // forwarder), localhost and the pod's own address in hosts, and an anonymous pod's hostname is
        // its container's name
        ok("start", "lone");
        assertEquals(List.of("nameserver 10.0.2.3\n", "127.0.0.1 localhost\n::1 localhost\n10.0.2.15 lone " + anonymous + "\n",
                "lone\n"), podFiles("lone"));

        assertEquals("", ok("pod", "prune").out(), "running pods and named ones stay");
        assertEquals("idle\n", ok("pod", "prune", "--all").out(), "--all: the named pod that does not run");
        assertEquals(Map.of(POD, "running", anonymous, "running"), podStates());

        ok("pod", "stop", "-t", "0", anonymous);
        assertEquals(anonymous + "\n", ok("pod", "prune").out(), "a stopped anonymous pod goes, with its container");
        assertEquals(Map.of(POD, "running"), podStates());
        assertFalse(Files.exists(root.resolve("pods").resolve(anonymous)));
        assertEquals(125, jrunc("inspect", "lone").code(), "lone went with its pod");
        assertEquals("", ok("pod", "prune").out(), "nothing more to prune");
    }

    static List<String> containerNames() throws Exception {
        List<String> names = new ArrayList<>();
        json("ls", "--format", "json").forEach(c -> names.add(c.path("name").asText()));
        return names.stream().sorted().toList();
    }

    static Map<String, String> podStates() throws Exception {
        Map<String, String> states = new TreeMap<>();
        json("pod", "ls", "--format", "json").forEach(p -> states.put(p.path("name").asText(), p.path("state").asText()));
        return states;
    }

    @Test
    @Order(20)
    void stopKeepsTheNameAndRmFreesIt() throws Exception {
        ok("stop", "-t", "1", "b");
        JruncVm.Result taken = jrunc("create", "--pod", POD, "--name", "b", bundle.toString());
        assertEquals(125, taken.code(), taken.all());
        assertTrue(taken.err().contains("\"b\""), taken.err());
        ok("rm", "b");
        ok("create", "--pod", POD, "--name", "b", bundle.toString(), "sleep", "1003");
    }

    @Test
    @Order(21)
    void podStopPowersOffAndLeavesOnlyThePodsState() throws Exception {
        JsonNode pod = json("pod", "inspect", POD);
        long qemuPid = pod.path("qemuPid").asLong();
        long monitorPid = pod.path("monitorPid").asLong();
        ok("pod", "stop", POD);
        assertFalse(ProcessHandle.of(qemuPid).map(ProcessHandle::isAlive).orElse(false), "qemu exited");
        ProcessHandle.of(monitorPid).ifPresent(h -> h.onExit().join());
        Path podDir = root.resolve("pods").resolve(POD);
        // qemu powered off by itself (no QMP quit). Its status is known to the monitor that launched it
        // (0); after the monitor was replaced in the case before, qemu is no monitor's child and the log
        // says its status is unknown.
        String log = Files.readString(podDir.resolve("monitor.log"));
        assertFalse(log.contains("QMP quit"), log);
        assertTrue(log.contains("qemu exited 0") || log.contains("qemu exited (not this monitor's child"), log);
        for (String gone : List.of("monitor.sock", "qmp.sock", "agent.sock")) {
            assertFalse(Files.exists(podDir.resolve(gone)), gone + " removed");
        }
        assertTrue(Files.exists(podDir.resolve("pod.json")));
        assertTrue(ok("logs", "a").out().contains("started-a"), "logs kept across pod stop");
        assertEquals("stopped", json("pod", "inspect", POD).path("state").asText());
        for (JsonNode c : json("ls", "--format", "json")) {
            assertEquals("stopped", c.path("state").asText(), c.toString());
        }
    }

    @Test
    @Order(22)
    void podStartBringsItsContainersBackThenPodRmRemovesIt() throws Exception {
        // podman's pod start: the stopped pod's containers start again under their names. The VM is new:
        // each is created again from its recorded spec and image, then started.
        ok("pod", "start", POD);
        JsonNode list = json("ls", "--format", "json");
        assertEquals(2, list.size(), list.toString());
        for (JsonNode c : list) {
            assertEquals("running", c.path("state").asText(), c.toString());
        }
        assertTrue(ok("exec", "a", "cat", "/proc/1/cmdline").out().contains("1001"), "a runs its own command again");
        assertTrue(ok("exec", "b", "cat", "/proc/1/cmdline").out().contains("1003"), "b runs its own command");
        assertEquals("podhost", ok("exec", "b", "hostname").out().strip());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!ok("logs", "a").out().equals("started-a\nstarted-a\n") && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertEquals("started-a\nstarted-a\n", ok("logs", "a").out(), "the log goes on across the restart");
        assertEquals("63", ok("exec", "a", "cat", "/proc/sys/vm/overcommit_ratio").out().strip(), "the pod's sysctl again");
        assertEquals(AGENT_CGROUP, guest().path("agentCgroup").asText());

        Path podDir = root.resolve("pods").resolve(POD);
        ok("pod", "rm", "-f", POD);
        assertFalse(Files.exists(podDir), "pod rm removed the pod's state");
        assertEquals(0, json("ls", "--format", "json").size(), "pod rm -f took its containers");
    }

    // ------------------------------------------------------------------------------------------------
    // jrunc-vm under misuse, on a pod of its own (one more boot): created containers removed and
    // stopped, CLI calls killed with SIGKILL part-way and what they leave cleared at once by rm -f and
    // pod rm -f, and pod rm -f of a pod whose container ignores SIGTERM.

    static final String MISUSE_POD = "misuse-pod";
    /** How long rm -f or pod rm -f may take on what a killed call left (a disk that was attached is unplugged: about 3 s). */
    static final long MISUSE_RM_BOUND_MS = 8000;
    static final long MISUSE_AT_ONCE_MS = 5000;

    /** The pod's qemu command line, its arguments from /proc/PID/cmdline. */
    private static List<String> qemuCommandLine() throws Exception {
        long qemuPid = json("pod", "inspect", POD).path("qemuPid").asLong();
        byte[] raw = Files.readAllBytes(Path.of("/proc/" + qemuPid + "/cmdline"));
        return List.of(new String(raw, java.nio.charset.StandardCharsets.UTF_8).split("\0"));
    }

    /** The command lines of live processes that name this test's state root (/proc/PID/cmdline). */
    static List<String> misuseProcessesOfRoot() throws IOException {
        List<String> found = new java.util.ArrayList<>();
        try (Stream<Path> pids = Files.list(Path.of("/proc"))) {
            for (Path p : pids.filter(d -> d.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), java.nio.charset.StandardCharsets.UTF_8)
                            .replace('\0', ' ').strip();
                    if (cmdline.contains(root.toString()) && !cmdline.isEmpty()) {
                        found.add(p.getFileName() + ": " + cmdline);
                    }
                } catch (IOException gone) {
                    // it ended while listed
                }
            }
        }
        return found;
    }

    /** Processes of the root that are not the misuse pod's own monitor and qemu. */
    static List<String> misuseStrays() throws IOException {
        return misuseProcessesOfRoot().stream().filter(c -> !c.contains("/pods/" + MISUSE_POD + "/")
                && !c.endsWith(" monitor " + MISUSE_POD)).toList();
    }

    /**
     * No monitor and no qemu of any other pod lives, and within a few seconds no other process naming
     * the root either (a killed create's mkfs child finishes on its own).
     */
    static void misuseAssertNothingElseRuns(String after) throws Exception {
        List<String> vms = misuseStrays().stream().filter(c -> c.contains("qemu-system") || c.contains(" monitor ")).toList();
        assertEquals(List.of(), vms, "no qemu and no monitor left after " + after);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!misuseStrays().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertEquals(List.of(), misuseStrays(), "nothing else of the root runs after " + after);
    }

    /** Image and swap files anywhere under the root but in the misuse pod's own directory (and its containers but those named). */
    static List<Path> misuseImages(String... keep) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".img"))
                    .filter(p -> !p.equals(root.resolve("pods").resolve(MISUSE_POD).resolve("swap.img")))
                    .filter(p -> Stream.of(keep).noneMatch(k -> p.startsWith(root.resolve("pods").resolve(MISUSE_POD)
                            .resolve("containers").resolve(k))))
                    .toList();
        }
    }

    static long misuseDisks() throws Exception {
        return Stream.of(ok("exec", "keeper", "ls", "/sys/block").out().split("\\s+")).filter(s -> s.startsWith("vd") || s.startsWith("sd")).count();
    }

    static long misuseTimed(JruncVm.Result[] result, String... args) throws Exception {
        long t0 = System.nanoTime();
        result[0] = jrunc(args);
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    @Order(101)
    void misuseACreatedContainerIsRemovedWithoutForceAndStoppedAtOnce() throws Exception {
        ok("pod", "create", "--name", MISUSE_POD, "--memory", "256m", "--swap", "64m");
        ok("pod", "start", MISUSE_POD);
        ok("create", "--pod", MISUSE_POD, "--name", "keeper", bundle.toString(), "sleep", "1000");
        ok("start", "keeper");
        long disks = misuseDisks();

        // rm of a created container: removed as a stopped one is (runc's delete), its waiting process killed
        ok("create", "--pod", MISUSE_POD, "--name", "made1", bundle.toString(), "sleep", "1001");
        assertEquals("created", state("made1"));
        JruncVm.Result rm = jrunc("rm", "made1");
        assertEquals(0, rm.code(), rm.all());
        assertEquals("", state("made1"), "made1 is gone");
        assertEquals(disks, misuseDisks(), "its disk was unplugged");

        // stop of a created container: its process only waits to be started and, as PID 1 of its
        // namespace, ignores SIGTERM: killed at once rather than after the 10 s grace
        ok("create", "--pod", MISUSE_POD, "--name", "made2", bundle.toString(), "sleep", "1002");
        JruncVm.Result[] stop = new JruncVm.Result[1];
        long ms = misuseTimed(stop, "stop", "made2");
        System.out.println("pod-vm misuse: stop of a created container " + ms + " ms");
        assertEquals(0, stop[0].code(), stop[0].all());
        assertTrue(ms < 8000, "stop of a created container took " + ms + " ms");
        assertEquals("stopped", state("made2"));
        ok("rm", "made2");
        assertEquals(disks, misuseDisks());
    }

    @Test
    @Order(102)
    void misuseACreateKilledAtAnyMomentIsClearedByRmForceAtOnce() throws Exception {
        long disks = misuseDisks();
        // a create through the CLI takes 1.5-2 s here (the JVM, mkfs, the hot-plug, the agent's Create):
        // the delays cover it densely, and one is after it ended
        long[] delays = {5, 100, 250, 400, 550, 700, 850, 1000, 1150, 1300, 1450, 1600, 1800, 3000};
        StringBuilder timings = new StringBuilder();
        for (int i = 0; i < delays.length; i++) {
            String name = "killed" + i;
            Process create = vm.start("create", "--pod", MISUSE_POD, "--name", name, bundle.toString(), "sleep", "1000");
            Thread.sleep(delays[i]);
            create.destroyForcibly(); // SIGKILL
            assertTrue(create.waitFor(10, TimeUnit.SECONDS));
            JruncVm.Result[] rm = new JruncVm.Result[1];
            long ms = misuseTimed(rm, "rm", "-f", name);
            timings.append(' ').append(delays[i]).append("ms:").append(create.exitValue() == 137 ? "" : "(done)").append(ms);
            assertTrue(rm[0].code() == 0 || rm[0].err().contains("does not exist"), "rm -f " + name + " after " + delays[i] + " ms: " + rm[0].all());
            assertTrue(ms < MISUSE_RM_BOUND_MS, "rm -f of a create killed after " + delays[i] + " ms took " + ms + " ms");
            assertEquals("", state(name), name + " is gone");
            assertFalse(Files.exists(root.resolve("pods").resolve(MISUSE_POD).resolve("containers").resolve(name)), name + "'s state");
        }
        System.out.println("pod-vm misuse: create killed after (ms), then rm -f took (ms):" + timings);
        List<String> left = new java.util.ArrayList<>();
        json("ls", "--format", "json").forEach(c -> left.add(c.path("name").asText()));
        assertEquals(List.of("keeper"), left, "ls shows no container of a killed create");
        assertEquals(disks, misuseDisks(), "no disk of a killed create stays plugged (no container the host does not know)");
        assertEquals(List.of(), misuseImages("keeper"), "no image file left");
        misuseAssertNothingElseRuns("the killed creates");
    }

    @Test
    @Order(103)
    void misuseARunOrPodStartKilledDuringTheBootIsClearedAtOnce() throws Exception {
        // run without --pod: an anonymous pod booted for it, killed at any moment of that
        StringBuilder timings = new StringBuilder();
        long[] delays = {5, 300, 1000, 2500, 6000, 15000};
        for (int i = 0; i < delays.length; i++) {
            String name = "anon" + i;
            Process run = vm.start("run", "--name", name, bundle.toString(), "true");
            Thread.sleep(delays[i]);
            run.destroyForcibly();
            assertTrue(run.waitFor(10, TimeUnit.SECONDS));
            JruncVm.Result[] rm = new JruncVm.Result[1];
            long ms = misuseTimed(rm, "rm", "-f", name);
            assertTrue(rm[0].code() == 0 || rm[0].err().contains("does not exist"), rm[0].all());
            assertTrue(ms < MISUSE_AT_ONCE_MS, "rm -f of a run killed after " + delays[i] + " ms took " + ms + " ms");
            timings.append(' ').append(delays[i]).append("ms:").append(ms);
            // killed between its anonymous pod's state and its container's: pod rm -f clears that pod
            for (JsonNode p : json("pod", "ls", "--format", "json")) {
                if (!p.path("name").asText().equals(MISUSE_POD)) {
                    ok("pod", "rm", "-f", p.path("name").asText());
                }
            }
            assertEquals(1, json("pod", "ls", "--format", "json").size(), "only the misuse pod is left");
            misuseAssertNothingElseRuns("a run killed after " + delays[i] + " ms");
        }
        // pod start killed during the boot: pod rm -f ends its monitor and qemu and takes the swap area
        for (long delay : new long[] {400, 3000, 9000}) {
            ok("pod", "create", "--name", "bootkill", "--swap", "64m");
            Process start = vm.start("pod", "start", "bootkill");
            Thread.sleep(delay);
            start.destroyForcibly();
            assertTrue(start.waitFor(10, TimeUnit.SECONDS));
            JruncVm.Result[] rm = new JruncVm.Result[1];
            long ms = misuseTimed(rm, "pod", "rm", "-f", "bootkill");
            assertEquals(0, rm[0].code(), rm[0].all());
            assertTrue(ms < MISUSE_AT_ONCE_MS, "pod rm -f of a pod start killed after " + delay + " ms took " + ms + " ms");
            timings.append(" pod-start-").append(delay).append("ms:").append(ms);
            assertFalse(Files.exists(root.resolve("pods").resolve("bootkill")), "no state directory, no swap.img");
            misuseAssertNothingElseRuns("a pod start killed after " + delay + " ms");
        }
        System.out.println("pod-vm misuse: killed after (ms), then rm -f / pod rm -f took (ms):" + timings);
        assertEquals(List.of(), misuseImages("keeper"), "no image or swap file left");
    }

    @Test
    @Order(104)
    void misusePodRmForceDoesNotWaitForAContainerThatIgnoresSigterm() throws Exception {
        // a shell as PID 1 that ignores SIGTERM: the agent's Shutdown would wait out the grace period
        ok("create", "--pod", MISUSE_POD, "--name", "stubborn", bundle.toString(), "sh", "-c", "trap '' TERM; sleep 1000");
        ok("start", "stubborn");
        assertEquals("running", state("stubborn"));
        JruncVm.Result[] rm = new JruncVm.Result[1];
        long ms = misuseTimed(rm, "pod", "rm", "-f", MISUSE_POD);
        System.out.println("pod-vm misuse: pod rm -f of a pod whose container ignores SIGTERM " + ms + " ms");
        assertEquals(0, rm[0].code(), rm[0].all());
        assertTrue(ms < MISUSE_AT_ONCE_MS, "pod rm -f took " + ms + " ms");
        assertFalse(Files.exists(root.resolve("pods").resolve(MISUSE_POD)), "its state, images and swap area are gone");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!misuseProcessesOfRoot().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertEquals(List.of(), misuseProcessesOfRoot(), "no qemu, no monitor, nothing of the root runs");
    }
}
