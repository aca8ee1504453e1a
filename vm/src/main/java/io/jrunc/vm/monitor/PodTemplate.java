package io.jrunc.vm.monitor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.IncompatibleAgentException;
import io.jrunc.agent.api.pb.v1.ConfigurePodRequest;
import io.jrunc.agent.api.pb.v1.RemoveContainerRequest;
import io.jrunc.spec.DefaultSpec;
import io.jrunc.spec.Json;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.Names;
import io.jrunc.vm.PodVolumes;
import io.jrunc.vm.VmException;
import io.jrunc.vm.monitor.pb.AddContainerRequest;
import io.jrunc.vm.network.PodNetworks;
import io.jrunc.vm.qemu.Kvm;
import io.jrunc.vm.qemu.QemuCommand;
import io.jrunc.vm.qemu.SwapDisk;
import io.jrunc.vm.qemu.VmImage;
import io.jrunc.vm.spec.RootfsImage;
import io.jrunc.vm.spec.SpecBuilder;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pod template: a pod's VM saved once at ready, from which new pods are restored instead of
 * booted (what kata calls VM templating). `jrunc-vm pod template` makes it in ROOT/template (the VM
 * booted, configured as its pods will be, a container made and removed, then saved): the VM's
 * RAM and a copy of the image's agent root, each a file the template's VM wrote through a shared
 * mapping, its devices' state ({@code state}, a migration that left the shared memory out) and
 * {@value #RECORD}: the image's digest, the guest's hardware address and the command line a pod
 * restored from it has. A monitor restores a pod from it when the pod is anonymous, its containers
 * share no host directory (a restored VM's RAM is a private mapping of the template's file, which
 * virtiofsd cannot share) and its VM would have the same command line (the same CPUs, memory, swap
 * area, network mode with no published port, image, accelerator): qemu then starts with
 * {@code -incoming}, maps the two files private and loads the state, and the guest runs on from the
 * template's ready, with the template's hardware address (the pod's record takes it). The host's
 * clock and fresh entropy reach the guest with the pod's first Configure.
 *
 * <p>The files never change once the template is made (QemuCommand.TemplateMemory): a new template is
 * made beside the old one and renamed over it, and a removed one's files stay mapped by the VMs
 * restored from it until they end. Every VM restored from one template shares its kernel's address
 * layout and the agent's: the documented price of the speed, as in kata, and why it is a choice.
 */
public final class PodTemplate {
    /** ROOT/template. */
    public static final String DIR = "template";
    static final String RAM = "ram", AGENT_ROOT = "agent-root.img", STATE = "state", RECORD = "template.json";
    private static final String POD_DIR = "{pod}", MAC = "{mac}";
    private static final Duration SAVE_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration LOAD_TIMEOUT = Duration.ofSeconds(60);
    /** How long the template's guest must leave its console alone (its work after ready done) before it is saved. */
    private static final Duration QUIET = Duration.ofSeconds(1), QUIET_AT_MOST = Duration.ofSeconds(30);

    /** A made template, as {@value #RECORD} holds it. */
    record Saved(Path dir, String digest, String mac, List<String> line) {
        Path state() {
            return dir.resolve(STATE);
        }
    }

    private PodTemplate() {
    }

    public static Path dir(StateRoot root) {
        return root.path().resolve(DIR);
    }

    /**
     * Makes the template for pods of {@code config} (the pool's kind: PodPool.template) from the
     * installed image, replacing the one there: boots its VM, waits until the agent answers and the
     * guest's console is quiet, saves it and ends it. Whatever fails leaves no qemu and no new file;
     * the old template stays. The caller holds the root's pool lock. Returns the template's directory.
     */
    public static Path make(StateRoot root, PodRecord.Config config) throws VmException {
        PodRecord.Network network = config.network();
        if (!network.publish().isEmpty() || network.mode().startsWith(PodNetworks.NS_PREFIX)) {
            throw new VmException("a pod template has no published port and no network namespace");
        }
        VmImage image = VmImage.locate(null, null);
        Path made = root.path().resolve(DIR + ".new");
        StateRoot.removeTree(made);
        try {
            Path boot = made.resolve("boot");
            Files.createDirectories(boot);
            if (image.agentRoot() != null) {
                Files.copy(image.agentRoot().file(), made.resolve(AGENT_ROOT));
            }
            boolean kvm = Kvm.verdict(root.path()).kvm();
            if (config.swapBytes() > 0) {
                SwapDisk.makeFresh(boot, config.swapBytes());
            }
            // setpriv (util-linux) gives the template's qemu a parent-death signal, as Mkfs does mkfs: a
            // `pod template` killed part-way takes its VM with it (the next one, or --rm, removes the files)
            List<String> command = new ArrayList<>(List.of("setpriv", "--pdeathsig", "KILL", "--"));
            command.addAll(line(image, config, boot, made, kvm, true));
            QemuVm vm = QemuVm.launch(command, boot, boot.resolve("qemu.log"));
            try {
                prepare(vm, boot.resolve("console.log"), PodMonitor.configure(PodRecord.created("template", true, config))
                        .toBuilder().setEntropy(ByteString.copyFrom(PodMonitor.entropy())).build(), boot);
                vm.saveState(made.resolve(STATE), SAVE_TIMEOUT);
                vm.quit();
                vm.awaitExit(PodMonitor.QUIT_GRACE);
            } finally {
                if (vm.isAlive()) {
                    vm.kill();
                    vm.awaitExit(PodMonitor.QUIT_GRACE);
                }
                vm.close();
            }
            ObjectMapper json = new ObjectMapper();
            ObjectNode record = json.createObjectNode().put("digest", image.digest()).put("mac", network.mac())
                    .put("madeAt", System.currentTimeMillis());
            List<String> clone = line(image, config, boot, dir(root), kvm, false);
            record.putPOJO("line", normalized(clone, boot, network.mac()));
            Files.writeString(made.resolve(RECORD), json.writeValueAsString(record));
            StateRoot.removeTree(boot);
            StateRoot.removeTree(dir(root)); // the old one: VMs restored from it keep its files
            Files.move(made, dir(root), StandardCopyOption.ATOMIC_MOVE);
            return dir(root);
        } catch (VmException e) {
            StateRoot.removeTree(made);
            throw e;
        } catch (IOException | RpcException | RuntimeException e) {
            StateRoot.removeTree(made);
            throw new VmException("cannot make the pod template: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            StateRoot.removeTree(made);
            throw new VmException("cannot make the pod template: interrupted", e);
        }
    }

    /**
     * Removes the template, and what a killed `pod template` left; VMs restored from it keep its files
     * mapped until they end. Whether there was one.
     */
    public static boolean remove(StateRoot root) throws VmException {
        StateRoot.removeTree(root.path().resolve(DIR + ".new"));
        Path dir = dir(root);
        if (!Files.exists(dir)) {
            return false;
        }
        StateRoot.removeTree(dir);
        return true;
    }

    /**
     * Waits for the template's agent, configures the pod as every pod restored from it will be (the
     * network of the pool's kind is the same for all: the template's address, slirp's addresses), runs
     * the create path once ({@link #exerciseCreate}), and waits until the guest writes nothing on its
     * console for a while. The Configure carries entropy (the guest mixes in what every Configure
     * brings, so a restored pod's adds its own; this one runs that path once) and no clock, so a
     * restored pod's first Configure still sets it; that Configure's network is the one the agent
     * applied here, which it leaves in place.
     */
    private static void prepare(QemuVm vm, Path console, ConfigurePodRequest configure, Path scratch)
            throws IOException, RpcException, InterruptedException {
        try (AgentClient agent = AgentClient.connect(vm.connectAgent(),
                ClientOptions.DEFAULTS.withSync(PodMonitor.BOOT_TIMEOUT, Duration.ofSeconds(3)))) {
            agent.call(AgentMethods.Pod.CONFIGURE, configure);
            exerciseCreate(vm, agent, scratch);
        } catch (IncompatibleAgentException | VmException e) {
            throw new IOException(e.getMessage(), e);
        }
        long deadline = System.nanoTime() + QUIET_AT_MOST.toNanos();
        long size = -1;
        long since = System.nanoTime();
        while (System.nanoTime() < deadline) {
            long now = Files.size(console);
            if (now != size) {
                size = now;
                since = System.nanoTime();
            } else if (System.nanoTime() - since >= QUIET.toNanos()) {
                return;
            }
            Thread.sleep(100);
        }
    }

    /**
     * Makes one container in the template's guest and removes it, never started, so that every pod
     * restored from the template makes its first container on a create path that has run once (its
     * classes linked, its lambdas spun, its code compiled, all in the saved memory): runc's example
     * spec without the network namespace (a pod's containers share the VM's), its root an ext4 image
     * of an empty /bin/sh attached and detached as a container's is.
     */
    private static void exerciseCreate(QemuVm vm, AgentClient agent, Path scratch) throws IOException, RpcException, VmException {
        Path rootfs = Files.createDirectories(scratch.resolve("exercise-rootfs"));
        // the spec's process, looked up at create as a real one is; empty, since it never starts
        Path sh = Files.createFile(Files.createDirectories(rootfs.resolve("bin")).resolve("sh"));
        Files.setPosixFilePermissions(sh, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path image = scratch.resolve("exercise.img");
        RootfsImage.make(rootfs, image);
        ObjectNode spec = (ObjectNode) new ObjectMapper().readTree(Json.write(DefaultSpec.example(true)));
        ((ObjectNode) spec.path("process")).put("terminal", false);
        ((ObjectNode) spec.path("root")).put("readonly", true);
        SpecBuilder.dropNetworkNamespace(spec);
        String serial = Names.serial();
        vm.attachDisk(serial, image);
        try {
            // the agent's Create as a monitor's AddContainer makes it
            agent.call(AgentMethods.Containers.CREATE, PodMonitor.guestCreate(AddContainerRequest.newBuilder()
                    .setId("template").setOciConfig(ByteString.copyFrom(SpecBuilder.toBytes(spec))).setSerial(serial).build()));
            agent.call(AgentMethods.Containers.REMOVE,
                    RemoveContainerRequest.newBuilder().setId("template").setForce(true).build());
        } finally {
            vm.detachDisks(List.of(serial));
        }
    }

    /**
     * The template a pod's VM can be restored from, if there is one: the pod anonymous, its containers
     * sharing no host directory, no volume, and its VM's command line the template's.
     */
    static Optional<Saved> matching(StateRoot root, PodRecord pod, VmImage image, boolean kvm, Path podDir) throws VmException {
        Path dir = dir(root);
        if (!pod.anonymous() || !Files.isRegularFile(dir.resolve(RECORD)) || pod.config().kernel() != null
                || pod.config().initrd() != null) {
            return Optional.empty();
        }
        for (ContainerRecord c : root.containers(pod.name())) {
            if (!c.shares().isEmpty() || c.serial().isEmpty()) {
                return Optional.empty(); // shared directories, or a root shared by virtio-fs
            }
        }
        if (!PodVolumes.list(podDir).isEmpty()) {
            return Optional.empty();
        }
        try {
            // a mapper only when there is a template: a boot without one loads no jackson before qemu's start
            JsonNode record = new ObjectMapper().readTree(dir.resolve(RECORD).toFile());
            List<String> line = new ArrayList<>();
            record.path("line").forEach(a -> line.add(a.asText()));
            Saved saved = new Saved(dir, record.path("digest").asText(), record.path("mac").asText(), line);
            if (!saved.digest().equals(image.digest()) || VmImage.UNKNOWN_DIGEST.equals(image.digest())) {
                return Optional.empty();
            }
            PodRecord.Network network = pod.config().network();
            if (network.mode().startsWith(PodNetworks.NS_PREFIX) || !network.publish().isEmpty()) {
                return Optional.empty();
            }
            List<String> wanted = normalized(line(image, pod.config(), podDir, dir, kvm, false), podDir, network.mac());
            return wanted.equals(line) ? Optional.of(saved) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty(); // a template being replaced, or a damaged one: the pod boots
        }
    }

    /** The pod with the template's hardware address, which its guest has. */
    static PodRecord withTemplateMac(PodRecord pod, Saved saved) {
        PodRecord.Network n = pod.config().network();
        if (n.mac().isEmpty()) {
            return pod;
        }
        return pod.withConfig(pod.config().withNetwork(n.withInterface(saved.mac(), n.addresses(), n.gateway(), n.mtu())));
    }

    /**
     * Starts qemu on the template and loads its state: the guest runs on from the template's ready.
     * When it fails, no qemu and none of the boot's files are left.
     */
    static QemuVm restore(PodRecord pod, VmImage image, boolean kvm, Path podDir, Saved saved) throws IOException, VmException {
        List<String> command = line(image, pod.config(), podDir, saved.dir(), kvm, false);
        command.addAll(List.of("-incoming", "defer"));
        if (pod.config().swapBytes() > 0) {
            SwapDisk.makeFresh(podDir, pod.config().swapBytes());
        }
        System.err.println("monitor " + ProcessHandle.current().pid() + ": restoring from the template: " + String.join(" ", command));
        QemuVm vm = QemuVm.launch(command, podDir, podDir.resolve("monitor.log"));
        try {
            vm.loadState(saved.state(), LOAD_TIMEOUT);
            return vm;
        } catch (IOException | RuntimeException e) {
            vm.kill();
            try {
                vm.awaitExit(PodMonitor.QUIT_GRACE);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            vm.close();
            QemuVm.removeBootFiles(podDir);
            throw e;
        }
    }

    /** The VM's command line on the template's files ({@code making}: the template's own boot, mapping them shared). */
    static List<String> line(VmImage image, PodRecord.Config config, Path podDir, Path templateDir, boolean kvm,
            boolean making) throws VmException {
        List<String> command = new ArrayList<>(QemuCommand.build(image, config.cpus(), config.memoryBytes(), podDir, kvm,
                new QemuCommand.TemplateMemory(templateDir.resolve(RAM), templateDir.resolve(AGENT_ROOT), making)));
        if (config.swapBytes() > 0) {
            command.addAll(SwapDisk.qemuArgs(SwapDisk.file(podDir)));
        }
        command.addAll(PodNetworks.qemuArgs(config.network(), null));
        return command;
    }

    /** A line with the pod's directory and hardware address as placeholders, to compare with another pod's. */
    static List<String> normalized(List<String> line, Path podDir, String mac) {
        List<String> out = new ArrayList<>(line.size());
        for (String arg : line) {
            String a = arg.replace(podDir.toString(), POD_DIR);
            out.add(mac.isEmpty() ? a : a.replace(mac, MAC));
        }
        return out;
    }
}
