package io.jrunc.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.testsupport.Requirements;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * containerd 1.6 driving containerd-shim-jrunc-v2 with its VM back end: `ctr run --runtime
 * io.containerd.jrunc.v2 --runtime-config-path F` where F says {@code backend = "vm"}, with a private
 * containerd (as {@link ShimTest}) and a private jrunc-vm state root. Two boots: containers grouped by
 * {@code io.containerd.runc.v2.group} share one shim and one pod VM (the first boots it), which carries
 * the output, exit codes, signals, an exec, pause/resume and, at the end, a shim killed with SIGKILL
 * whose pod containerd's `shim delete` removes; then a plain `ctr run --rm` with a pod of its own that
 * goes with its container. Every VM boot of the machine runs under {@code flock /work/vm.lock}: run
 * this class under it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ShimVmCtrTest {
    static final String GROUP_ANNOTATION = "io.containerd.runc.v2.group";
    static final String GROUP = "vmgroup1";
    static final Path VIRTIOFSD = Path.of("/usr/lib/qemu/virtiofsd");
    /** A boot under emulation takes about a minute; on a loaded machine, more. */
    static final int BOOT_SECONDS = 300;

    private Path work;
    private Path socket;
    private Path fifoDir;
    private Path vmRoot;
    private Path options;
    private Path jruncVm;
    private String namespace;
    private Process containerd;
    private Command cmd;
    private CtrClient ctrs;
    private final List<String> ids = new ArrayList<>();

    @BeforeAll
    void startContainerd() throws Exception {
        E2eHost.requireRootAndCommands("containerd", "containerd", "ctr", "tar");
        Requirements.requireCommands("qemu-system-x86", "qemu-system-x86_64");
        Requirements.require(Files.isExecutable(VIRTIOFSD), VIRTIOFSD + ": qemu's virtiofsd (qemu-system-common)");
        Path image = Path.of(System.getProperty("jrunc.vm.image", E2eHost.jrunc().getParent().resolveSibling("vm-image").toString()))
                .toAbsolutePath().normalize();
        for (String file : List.of("vmlinuz", "initrd.cpio")) {
            Requirements.require(Files.isRegularFile(image.resolve(file)), "the pod VM image (" + image.resolve(file)
                    + "): `make vm-image` builds it, or -Djrunc.vm.image names another");
        }
        Path shim = E2eHost.jrunc().resolveSibling(ShimTest.SHIM);
        assertTrue(Files.isExecutable(shim), shim + " is missing: run `make build` first");
        jruncVm = E2eHost.jrunc().resolveSibling("jrunc-vm");
        work = Files.createTempDirectory("jrunc-e2e-shimvm-");
        cmd = new Command(work.resolve("out"), Map.of());
        socket = work.resolve("containerd.sock");
        fifoDir = work.resolve("fifo");
        vmRoot = work.resolve("vm");
        namespace = work.getFileName().toString();
        ctrs = new CtrClient(socket, namespace, fifoDir, work, cmd);
        options = work.resolve("shim-vm.toml");
        Files.writeString(options, """
                backend = "vm"

                [vm]
                image = "%s"
                root = "%s"
                boot_timeout = %d
                """.formatted(image, vmRoot, BOOT_SECONDS));
        containerd = E2eHost.startContainerd(work, socket, work.resolve("config.toml"), work.resolve("containerd.log"), null,
                Map.of("PATH", shim.getParent() + ":" + System.getenv("PATH")));
        assertTrue(E2eHost.eventually(30, () -> containerd.isAlive() && cmd.run(ctr("version")).exitCode() == 0),
                "containerd did not come up: " + Command.read(work.resolve("containerd.log")));
        Path tar = E2eHost.busyboxRootfsTar(work, cmd);
        Path archive = E2eHost.ociArchive(work, tar, cmd);
        Command.Result imported = cmd.run(ctr("image", "import", archive.toString()));
        assertEquals(0, imported.exitCode(), imported.describe());
    }

    @AfterAll
    void stopContainerd() throws Exception {
        if (work == null) {
            return;
        }
        try {
            E2eHost.removeTasks(cmd, this::ctr, ids);
        } finally {
            // monitors, qemu and virtiofsd name the state root under work: found and ended there
            E2eHost.stopPrivateContainerd(containerd, work, namespace, cmd, this::ctr, 30);
        }
    }

    private List<String> ctr(String... args) {
        return ctrs.ctr(args);
    }

    /** `ctr run` with the VM back end's options; {@code flags} before the image. */
    private List<String> ctrRun(String id, List<String> flags, String... command) {
        ids.add(id);
        List<String> f = new ArrayList<>(List.of("--runtime-config-path", options.toString()));
        f.addAll(flags);
        return ctrs.run(ShimTest.RUNTIME, id, f, command);
    }

    /** As {@link #ctrRun}, in the group's pod. */
    private List<String> ctrRunInGroup(String id, List<String> flags, String... command) {
        List<String> f = new ArrayList<>(List.of("--annotation", GROUP_ANNOTATION + "=" + GROUP));
        f.addAll(flags);
        return ctrRun(id, f, command);
    }

    private List<String> exec(String id, String execId, String... command) {
        return ctrs.exec(id, execId, List.of(), command);
    }

    /** A command that may boot a VM: more time than {@link Command}'s, its output to files. */
    private Command.Result runBooting(List<String> command) throws Exception {
        String name = "boot-" + System.nanoTime();
        Process p = background(command, name);
        if (!p.waitFor(BOOT_SECONDS + 30, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("timed out: " + command + "\n" + Command.read(work.resolve(name + ".err")));
        }
        return new Command.Result(command, p.exitValue(), Command.read(work.resolve(name + ".out")),
                Command.read(work.resolve(name + ".err")));
    }

    private Process background(List<String> command, String name) throws IOException {
        return ctrs.background(command, name);
    }

    private String taskStatus(String id) {
        return ctrs.taskStatus(id);
    }

    /** The name the VM back end gives what containerd knows by namespace and id: prefix + 24 hex digits. */
    private String vmName(String prefix, String id) throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest((namespace + "/" + id).getBytes(StandardCharsets.UTF_8));
        return prefix + HexFormat.of().formatHex(digest, 0, 12);
    }

    /** The socket of the shim of group {@code group}, by containerd's rule. */
    private Path shimSocket(String group) throws Exception {
        return ctrs.shimSocket(group);
    }

    /** Processes of this class's pods whose command name contains {@code command}: qemu, virtiofsd, java (monitors). */
    private List<Long> podProcesses(String command) {
        return E2eHost.processesMentioning(vmRoot.toString()).entrySet().stream()
                .filter(e -> ProcessHandle.of(e.getKey()).flatMap(h -> h.info().command()).map(c -> c.contains(command)).orElse(false))
                .map(Map.Entry::getKey).toList();
    }

    private List<String> pods() throws IOException {
        Path dir = vmRoot.resolve("pods");
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private String jruncVmState(String container) throws Exception {
        Command.Result r = cmd.run(List.of(jruncVm.toString(), "--root", vmRoot.toString(), "inspect", container));
        assertEquals(0, r.exitCode(), r.describe());
        var m = java.util.regex.Pattern.compile("\"state\"\\s*:\\s*\"([a-z]+)\"").matcher(r.out());
        assertTrue(m.find(), r.describe());
        return m.group(1);
    }

    /** What the looping container last wrote to /ticks, read on the host in its rootfs (shared by virtio-fs). */
    private long ticks(String id) throws IOException {
        Path file = work.resolve("state/io.containerd.runtime.v2.task").resolve(namespace).resolve(id).resolve("rootfs/ticks");
        String text = Files.exists(file) ? Files.readString(file).strip() : "";
        return text.isEmpty() ? -1 : Long.parseLong(text);
    }

    private long qemuPid;

    // ---- a group's pod: output, exit codes, signals, exec -----------------------------------------

    @Test
    @Order(1)
    void aGroupsFirstContainerBootsItsPodAndTheOthersJoinIt() throws Exception {
        Command.Result a = runBooting(ctrRunInGroup("vma", List.of("--detach", "--null-io"), "sh", "-c",
                "i=0; while true; do i=$((i+1)); echo $i > /ticks; usleep 100000; done"));
        assertEquals(0, a.exitCode(), a.describe() + "\n" + Command.read(work.resolve("containerd.log")));
        assertEquals("RUNNING", taskStatus("vma"));
        List<Long> qemus = podProcesses("qemu-system");
        assertEquals(1, qemus.size(), "one qemu for the group: " + qemus);
        qemuPid = qemus.getFirst();
        assertEquals(List.of(vmName("p", GROUP)), pods(), "the group's pod, named by namespace and group");
        assertTrue(E2eHost.eventually(30, () -> {
            try {
                return ticks("vma") > 0;
            } catch (IOException e) {
                return false;
            }
        }), "the loop writes /ticks into its rootfs on the host");

        Command.Result hi = cmd.run(ctrRunInGroup("hi1", List.of("--rm"), "echo", "hi"));
        assertEquals(0, hi.exitCode(), hi.describe());
        assertEquals("hi\n", hi.out(), hi.describe());
        Command.Result seven = cmd.run(ctrRunInGroup("seven1", List.of("--rm"), "sh", "-c", "exit 7"));
        assertEquals(7, seven.exitCode(), seven.describe());
        ids.removeAll(List.of("hi1", "seven1"));
        assertEquals(List.of(qemuPid), podProcesses("qemu-system"), "both ran in the group's one qemu, which stays");
        assertEquals(List.of(vmName("p", GROUP)), pods());
    }

    /**
     * SIGKILL to a task gives 137, SIGTERM to an exec's process 143 (a task's init is PID 1 of its
     * namespace in the guest, which ignores TERM without a handler, as under runc).
     */
    @Test
    @Order(2)
    void killedProcessesExitWith137And143() throws Exception {
        Process run = background(ctrRunInGroup("vmkill", List.of("--rm"), "sleep", "1000"), "vmkill");
        assertTrue(E2eHost.eventually(60, () -> taskStatus("vmkill").equals("RUNNING")), "task did not start: "
                + Command.read(work.resolve("vmkill.err")));
        Process execed = background(exec("vmkill", "term1", "sleep", "1000"), "term1");
        assertTrue(E2eHost.eventually(60, () -> cmd.run(ctr("task", "ps", "vmkill")).out().lines().count() >= 3),
                "exec did not start: " + cmd.run(ctr("task", "ps", "vmkill")).describe());
        Command.Result term = cmd.run(ctr("task", "kill", "--exec-id", "term1", "--signal", "SIGTERM", "vmkill"));
        assertEquals(0, term.exitCode(), term.describe());
        assertTrue(execed.waitFor(60, TimeUnit.SECONDS), "exec did not end after TERM");
        assertEquals(143, execed.exitValue(), Command.read(work.resolve("term1.err")));

        Command.Result kill = cmd.run(ctr("task", "kill", "--signal", "SIGKILL", "vmkill"));
        assertEquals(0, kill.exitCode(), kill.describe());
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "ctr run did not end after KILL");
        assertEquals(137, run.exitValue(), Command.read(work.resolve("vmkill.err")));
        ids.remove("vmkill");
        assertEquals(List.of(qemuPid), podProcesses("qemu-system"));
    }

    @Test
    @Order(3)
    void anExecsOutputAndExitCode() throws Exception {
        Command.Result six = cmd.run(exec("vma", "e1", "sh", "-c", "echo from exec; exit 6"));
        assertEquals(6, six.exitCode(), six.describe());
        assertEquals("from exec\n", six.out(), six.describe());
    }

    // ---- pause and resume --------------------------------------------------------------------------

    /**
     * `ctr task pause` freezes the container's cgroup in the guest: the agent says frozen (jrunc-vm
     * inspect's "paused", from cgroup.events), the loop writes nothing while paused, and an exec is
     * refused; `ctr task resume` thaws it and the loop goes on. Then `jrunc-vm pause`/`unpause` on
     * the same container, and an unpause of a running one refused (125, one line).
     */
    @Test
    @Order(4)
    void pauseFreezesTheContainerInTheGuestAndResumeThawsIt() throws Exception {
        String container = vmName("t", "vma");
        assertEquals("running", jruncVmState(container));
        Command.Result pause = cmd.run(ctr("task", "pause", "vma"));
        assertEquals(0, pause.exitCode(), pause.describe());
        assertEquals("PAUSED", taskStatus("vma"));
        assertEquals("paused", jruncVmState(container), "the guest's cgroup.events says frozen");
        long frozenAt = ticks("vma");
        Thread.sleep(2000);
        assertEquals(frozenAt, ticks("vma"), "nothing written while frozen");
        Command.Result refused = cmd.run(exec("vma", "e2", "true"));
        assertNotEquals(0, refused.exitCode(), refused.describe());
        assertTrue(refused.err().contains("paused"), refused.describe());

        Command.Result resume = cmd.run(ctr("task", "resume", "vma"));
        assertEquals(0, resume.exitCode(), resume.describe());
        assertEquals("RUNNING", taskStatus("vma"));
        assertEquals("running", jruncVmState(container));
        assertTrue(E2eHost.eventually(10, () -> {
            try {
                return ticks("vma") > frozenAt;
            } catch (IOException e) {
                return false;
            }
        }), "the loop goes on after resume");
        Command.Result after = cmd.run(exec("vma", "e3", "cat", "/proc/self/cgroup"));
        assertEquals(0, after.exitCode(), after.describe());

        // jrunc-vm's own verbs (podman's) on the same container in the shim's pod
        List<String> vm = List.of(jruncVm.toString(), "--root", vmRoot.toString());
        Command.Result vmPause = cmd.run(Command.list(vm, "pause", container));
        assertEquals(0, vmPause.exitCode(), vmPause.describe());
        assertEquals(container + "\n", vmPause.out());
        assertEquals("paused", jruncVmState(container));
        Command.Result vmUnpause = cmd.run(Command.list(vm, "unpause", container));
        assertEquals(0, vmUnpause.exitCode(), vmUnpause.describe());
        assertEquals("running", jruncVmState(container));
        Command.Result notPaused = cmd.run(Command.list(vm, "unpause", container));
        assertEquals(125, notPaused.exitCode(), notPaused.describe());
        assertEquals(1, notPaused.err().lines().count(), notPaused.describe());
        assertTrue(notPaused.err().startsWith("jrunc-vm: unpause " + container), notPaused.describe());
    }

    // ---- a dead shim ---------------------------------------------------------------------------------

    /**
     * The group's shim killed with SIGKILL while its pod runs: containerd runs the shim's `delete` for
     * the task, which ends the pod as `jrunc-vm pod rm -f` does: no qemu, monitor or virtiofsd, no
     * mount, no socket, no pod state left.
     */
    @Test
    @Order(5)
    void aKilledShimsPodIsRemovedByDelete() throws Exception {
        Map<Long, String> shims = E2eHost.processesMentioning("-id vma ");
        assertEquals(1, shims.size(), shims.toString());
        assertFalse(podProcesses("virtiofsd").isEmpty(), "the running container's share has its virtiofsd");
        ProcessHandle.of(shims.keySet().iterator().next()).orElseThrow().destroyForcibly();
        assertTrue(E2eHost.eventually(30, () -> E2eHost.processesMentioning("-id vma ").isEmpty()), "shim still there");
        cmd.run(ctr("task", "delete", "--force", "vma"));
        assertTrue(E2eHost.eventually(60, () -> taskStatus("vma").equals("absent")), "task still listed");
        assertEquals(0, cmd.run(ctr("container", "delete", "vma")).exitCode());
        ids.remove("vma");
        // containerd runs the shim's delete on its own once the shim's connection closes: wait for its end
        assertTrue(E2eHost.eventually(60, () -> {
            try {
                return pods().isEmpty();
            } catch (IOException e) {
                return false;
            }
        }), "pod state left: " + pods());
        assertEquals(Map.of(), E2eHost.processesMentioning(vmRoot.toString()), "qemu, monitor or virtiofsd left");
        assertFalse(Files.exists(vmRoot.resolve("shim-bundles").resolve(vmName("t", "vma"))), "the rewritten config left");
        assertTrue(E2eHost.eventually(30, () -> E2eHost.mountsUnder(work.resolve("state")).isEmpty()),
                "mounts left behind: " + E2eHost.mountsUnder(work.resolve("state")));
        Path groupSocket = shimSocket(GROUP);
        assertTrue(E2eHost.eventually(15, () -> !Files.exists(groupSocket)), "shim socket left");
    }

    // ---- a plain ctr run: a pod of its own ------------------------------------------------------------

    @Test
    @Order(6)
    void aPlainRunBootsAPodOfItsOwnThatGoesWithIt() throws Exception {
        Command.Result hi = runBooting(ctrRun("plain1", List.of("--rm"), "echo", "hi"));
        assertEquals(0, hi.exitCode(), hi.describe());
        assertEquals("hi\n", hi.out(), hi.describe());
        ids.remove("plain1");
        assertTrue(E2eHost.eventually(30, () -> E2eHost.processesMentioning(vmRoot.toString()).isEmpty()),
                "qemu, monitor or virtiofsd left: " + E2eHost.processesMentioning(vmRoot.toString()));
        assertEquals(List.of(), pods(), "the pod went with its one container");
        assertEquals(List.of(), E2eHost.mountsUnder(work.resolve("state")), "mounts left behind");
        Path plainSocket = shimSocket("plain1");
        assertTrue(E2eHost.eventually(15, () -> !Files.exists(plainSocket)), "shim socket left");
    }
}
