package io.jrunc.vminit;

import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.AgentProtocol;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.jrunc.agent.api.pb.v1.AddSwapRequest;
import io.jrunc.agent.api.pb.v1.ConfigurePodRequest;
import io.jrunc.agent.api.pb.v1.ContainerStatsRequest;
import io.jrunc.agent.api.pb.v1.CreateContainerRequest;
import io.jrunc.agent.api.pb.v1.Dns;
import io.jrunc.agent.api.pb.v1.HostEntry;
import io.jrunc.agent.api.pb.v1.InterfaceConfig;
import io.jrunc.agent.api.pb.v1.InspectContainerRequest;
import io.jrunc.agent.api.pb.v1.ListContainersRequest;
import io.jrunc.agent.api.pb.v1.NetworkConfig;
import io.jrunc.agent.api.pb.v1.ProcessRef;
import io.jrunc.agent.api.pb.v1.RootFilesystem;
import io.jrunc.agent.api.pb.v1.RouteConfig;
import io.jrunc.agent.api.pb.v1.Sysctl;
import io.jrunc.agent.api.pb.v1.WaitRequest;
import io.jrunc.bindings.ErrnoException;
import io.jrunc.bindings.Mounts;
import io.jrunc.bindings.Namespaces;
import io.jrunc.bindings.UnixSockets;
import io.jrunc.cgroups.BpfDeviceFilter;
import io.jrunc.cgroups.CgroupException;
import io.jrunc.runtime.Container;
import io.jrunc.runtime.ContainerCreator;
import io.jrunc.runtime.CreateOptions;
import io.jrunc.runtime.DeviceRules;
import io.jrunc.runtime.init.ChildCgroupEntry;
import io.jrunc.spec.DefaultSpec;
import io.jrunc.spec.Json;
import io.jrunc.spec.JsonNodes;
import io.jrunc.spec.Spec;
import io.jrunc.spec.SpecLoader;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The training run behind the image's AOT cache of the agent's classes (docs/guest-init.md, "The image"): the
 * image build runs it once, on the host, with the image's own java and -XX:AOTCacheOutput, its root the
 * staging tree moved over / of a mount namespace of its own, so the cache's class path is the guest's. It
 * loads the classes the agent loads and runs the agent's steps where they can run without changing the
 * machine: the protocol over a socketpair, the set-up requests parsed and not dispatched, a network in a
 * network namespace of a thread's own, and a container made and deleted in the build's namespaces
 * ({@link #exerciseCreate}). It never calls Configure, AddSwap or Shutdown, loads no module and touches no
 * device.
 */
final class CdsTraining {
    private CdsTraining() {}

    /**
     * VmInit's argument for this run: the training goes through the agent's own entry (-jar
     * /jrunc/vminit.jar, whose manifest also carries Enable-Native-Access), so its command line
     * differs from the guest's only by this and -XX:AOTCacheOutput.
     */
    static final String ARGUMENT = "--cds-training";

    static void run() throws Exception {
        int loaded = loadAgentClasses(Path.of("/jrunc/lib"));
        int jdk = loadJdkClasses();
        exerciseBoot();
        Reaper reaper = Reaper.start();
        int calls = exerciseProtocol(reaper);
        int requests = exerciseRequests();
        boolean network = exerciseNetwork();
        int specs = exerciseSpecs();
        String container = exerciseCreate(reaper);
        System.out.printf("cds-training: %d classes of the agent's jars and %d of the JDK's list loaded, %d calls served,"
                + " %d requests parsed, %s, %d specs read, %s%n", loaded, jdk, calls, requests,
                network ? "a network configured in a namespace of its own" : "no network namespace (not root: skipped)", specs,
                container);
        // a normal exit: the JVM records the training in its exit path (Runtime.halt would skip it)
        System.exit(0);
    }

    /**
     * Every class of the project's own jars, loaded but not initialized (no static initializer runs,
     * so nothing touches the machine): the handlers' and the runtime library's create path included,
     * which a training run that is not PID 1 cannot reach by calling them.
     */
    private static int loadAgentClasses(Path lib) throws IOException {
        ClassLoader loader = CdsTraining.class.getClassLoader();
        int loaded = 0;
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(lib, "jrunc-*.jar")) {
            for (Path jar : jars) {
                try (JarFile file = new JarFile(jar.toFile())) {
                    for (JarEntry entry : file.stream().toList()) {
                        String name = entry.getName();
                        if (!name.endsWith(".class") || name.endsWith("module-info.class")) {
                            continue;
                        }
                        try {
                            Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false, loader);
                            loaded++;
                        } catch (ClassNotFoundException | LinkageError e) {
                            // a class whose optional dependency the image does not carry: the agent never loads it
                        }
                    }
                }
            }
        }
        return loaded;
    }

    /** The list of {@link #loadJdkClasses}, a resource of this package. */
    static final String JDK_CLASSES = "jdk-classes.txt";

    /**
     * The JDK classes of {@value #JDK_CLASSES}, loaded but not initialized: those a pod's agent loads
     * from its boot to its first container's removal that the steps below do not reach (the runtime
     * library's create path, which only PID 1 can run, uses most of them). Otherwise each came from the
     * runtime's compressed module image in the guest, read, inflated and parsed under emulation. The
     * list is the JDK's own technique for its default archive (a class list from a run); a name the
     * JDK no longer has is skipped. Returns how many were loaded.
     */
    static int loadJdkClasses() throws IOException {
        int loaded = 0;
        try (var in = CdsTraining.class.getResourceAsStream(JDK_CLASSES)) {
            if (in == null) {
                return 0;
            }
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList()) {
                String name = line.strip();
                if (name.isEmpty() || name.startsWith("#")) {
                    continue;
                }
                try {
                    Class.forName(name, false, null);
                    loaded++;
                } catch (ClassNotFoundException | LinkageError e) {
                    // a class of another JDK's: nothing to load
                }
            }
        }
        return loaded;
    }

    /**
     * The Java side of the boot up to the ready line, without its system calls: the AOT log read as
     * lines, the watchdog's latch and thread, the modules' task on a thread of its own (listing and
     * ordering the image's modules, loading none), a console line with its numbers formatted, the
     * process handle (whose class starts the JDK's process reaper pool), a sleep, a file written and a
     * virtual thread. Some 45 of the JDK's classes the boot uses are loaded then; without this they came
     * from the runtime's compressed module image in the guest, each read, inflated and parsed under
     * emulation between main() and ready.
     */
    static void exerciseBoot() throws Exception {
        ClassDataArchive.status(KernelModules.DIR.resolve(KernelModules.DEPENDS_FILE)); // its reading, of any file of lines
        BootWatchdog.start(Duration.ofMinutes(1)).ready();
        FutureTask<List<String>> modules = new FutureTask<>(() -> KernelModules.loadOnly(Set.of()));
        Thread.ofPlatform().name("training modules").start(modules);
        Console.log("cds-training: the boot's steps at %.3f s: %d modules loaded, pid %d, resident %s",
                Console.uptime(), modules.get().size(), ProcessHandle.current().pid(), Console.resident());
        Thread.sleep(1);
        Path written = Files.createTempFile("training", ".txt");
        Files.writeString(written, "training");
        Files.delete(written);
        Thread.ofVirtual().start(() -> { }).join();
    }

    /**
     * One ttRPC session over a socketpair, served by the agent's own dispatcher and services, with
     * the calls that only read: protobuf's runtime, the framing, FdStream's FFM reads and writes, and
     * the error path (an unknown container) run as in the guest.
     */
    private static int exerciseProtocol(Reaper reaper) throws Exception {
        ContainerStore store = new ContainerStore();
        PodConfig pod = new PodConfig();
        Dispatcher dispatcher = new Dispatcher();
        dispatcher.register(AgentMethods.VERSION, AgentProtocol.versionHandler(VmInit.AGENT));
        new PodService(pod, new PowerOff(store)).register(dispatcher);
        new ContainerService(store, reaper, pod).register(dispatcher);
        new ProcessService(store, reaper).register(dispatcher);
        new FileService(store).register(dispatcher);
        TtrpcServer server = new TtrpcServer(dispatcher, ServerOptions.DEFAULTS);

        int[] pair = UnixSockets.pair(UnixSockets.SOCK_STREAM);
        FdStream agentEnd = new FdStream(pair[0], true);
        Thread serving = Thread.ofPlatform().name("training server").daemon(true)
                .start(() -> server.servePort(agentEnd));
        int calls = 0;
        try (AgentClient client = AgentClient.connect(new FdStream(pair[1], true),
                ClientOptions.DEFAULTS.withCallTimeout(Duration.ofSeconds(60)))) {
            client.agentVersion();
            calls++;
            client.call(AgentMethods.Containers.LIST, ListContainersRequest.getDefaultInstance());
            calls++;
            calls += expectError(() -> client.call(AgentMethods.Containers.INSPECT,
                    InspectContainerRequest.newBuilder().setId("training").build()));
            calls += expectError(() -> client.call(AgentMethods.Containers.STATS,
                    ContainerStatsRequest.newBuilder().setId("training").build()));
            calls += expectError(() -> client.call(AgentMethods.Processes.WAIT, WaitRequest.newBuilder()
                    .setProcess(ProcessRef.newBuilder().setContainerId("training")).build()));
        }
        serving.join(1000);
        return calls;
    }

    /**
     * The host's requests that set a pod up and make its first container (Configure with a resolver,
     * hosts, a kernel parameter and a network; AddSwap; Create with its root and layer disks), encoded
     * and parsed as the agent parses them, and not dispatched: this run must not configure the machine.
     * The read-only calls above carry no repeated string, so protobuf's string list classes came from its
     * jar in the guest otherwise, the jar opened and read under emulation in the pod's first Configure.
     * Returns how many were parsed.
     */
    static int exerciseRequests() throws IOException {
        List<Message> requests = List.of(
                ConfigurePodRequest.newBuilder().setHostname("training")
                        .setDns(Dns.newBuilder().addNameservers("10.0.2.3").addSearches("training").addOptions("ndots:1"))
                        .addHosts(HostEntry.newBuilder().setIp("10.0.2.15").addNames("training"))
                        .addSysctls(Sysctl.newBuilder().setName("net.ipv4.ip_forward").setValue("1"))
                        .setNetwork(NetworkConfig.newBuilder()
                                .addInterfaces(InterfaceConfig.newBuilder().setMac("52:54:00:12:34:56").setName("eth0")
                                        .addAddresses("10.0.2.15/24").setMtu(1500))
                                .addRoutes(RouteConfig.newBuilder().setDestination("0.0.0.0/0").setGateway("10.0.2.2")
                                        .setInterface("eth0")))
                        .setContainerCpus(1).build(),
                AddSwapRequest.newBuilder().setSerial("training").build(),
                CreateContainerRequest.newBuilder().setId("training").setOciConfig(ByteString.copyFromUtf8("{}"))
                        .setRootfs(RootFilesystem.newBuilder().setSerial("training").setFsType("ext4"))
                        .setLayer(RootFilesystem.newBuilder().setSerial("training-layer").setFsType("ext4")).build());
        for (Message request : requests) {
            Message parsed = request.getParserForType().parseFrom(request.toByteArray());
            if (!parsed.equals(request)) {
                throw new IOException("a request parsed differently: " + request.getClass().getSimpleName());
            }
        }
        return requests.size();
    }

    /**
     * The pod's network as Configure sets it, in a network namespace that only a thread of this run
     * has, so the machine's own network is untouched and the namespace ends with the thread: lo found
     * by its hardware address, brought up, given the address it already has (the EEXIST path) and a
     * route. Otherwise the netlink binding's messages and replies, and the lambdas around them, ran
     * cold in the pod's first Configure, which spent most of its time (400-550 ms under emulation) on
     * the network. A run that may not make a namespace (not root) skips it and says so; false then.
     */
    static boolean exerciseNetwork() throws Exception {
        CompletableFuture<Boolean> outcome = new CompletableFuture<>();
        Thread.ofPlatform().name("training network").start(() -> {
            try {
                Namespaces.unshare(Namespaces.CLONE_NEWNET);
            } catch (ErrnoException e) {
                outcome.complete(false);
                return;
            }
            try {
                PodNetwork.apply(NetworkConfig.newBuilder()
                        .addInterfaces(InterfaceConfig.newBuilder().setMac("00:00:00:00:00:00").setName("lo")
                                .addAddresses("127.0.0.1/8").setMtu(65536))
                        .addRoutes(RouteConfig.newBuilder().setDestination("10.255.255.0/24").setInterface("lo"))
                        .build());
                outcome.complete(true);
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        }).join();
        return outcome.get();
    }

    /**
     * A container's config as Create reads it: rewritten for the pod (ContainerSpecs, a jackson tree)
     * and loaded as the runtime loads a bundle's (records bound by jackson's databind, then checked).
     * Only bytes in memory: nothing is written. Without it the first Create in a pod loaded some 350
     * of jackson's classes from the jars (and the JDK's reflection on the spec's records), parsed and
     * verified under emulation. Returns how many specs were read.
     */
    static int exerciseSpecs() throws Exception {
        byte[] example = Json.write(DefaultSpec.example(true)).getBytes(StandardCharsets.UTF_8);
        ContainerSpecs.Rewritten rewritten = ContainerSpecs.rewrite(example, "training", "training",
                List.of("/etc/hostname", "/etc/hosts", "/etc/resolv.conf"));
        Spec spec = SpecLoader.parse(rewritten.json());
        exerciseDeviceRules(spec);
        return 1;
    }

    /**
     * The container's device rules as Create installs them in its cgroup: composed, checked and
     * compiled to the eBPF program, whose attaching then fails on a directory that is no cgroup (its
     * BPF_PROG_QUERY fails before anything is loaded). Under emulation the first Create spent some
     * 450 ms here making the lambdas, comparators and record methods this code uses; made once in the
     * training, they are in the cache.
     */
    private static void exerciseDeviceRules(Spec spec) throws IOException {
        Path notACgroup = Files.createTempDirectory("training");
        try {
            BpfDeviceFilter.INSTANCE.install(notACgroup, DeviceRules.resourcesOf(spec).devices());
        } catch (CgroupException expected) {
            // the query's failure: what the training wants is the program made before it
        } finally {
            Files.delete(notACgroup);
        }
    }

    /** The training's cgroup2 mount and where its container's files go; both the image build's own (tmpfs, its namespaces). */
    static final Path CGROUP = CgroupSetup.ROOT, RUN = Path.of("/run"), ETC = Path.of("/etc");

    /**
     * A container made and deleted by the runtime library as Create and Remove make and delete one in a
     * pod: its config rewritten for the pod and loaded from a bundle, the process spawned into its
     * namespaces with pipes for its stdio, its root pivoted, the pod's files bound into it, its cgroup
     * (cgroup v2, the guest's kind) with the device program attached; then killed before it ever runs,
     * and deleted. The image build runs the training as PID 1 of namespaces of its own (mount, PID,
     * cgroup, UTS, IPC) with a tmpfs on /run and a cgroup2 file system on /sys/fs/cgroup (scripts/vm-image.sh),
     * so the container, its mounts and its cgroup are the build's alone and end with it. Without this the
     * first Create in a pod ran the runtime's create path cold: some 60 classes spun (lambdas, string
     * concatenations, method handle forms), constant pools resolved, under emulation 1.1 s more than a
     * second Create's. Run anywhere else it does nothing and says so.
     */
    static String exerciseCreate(Reaper reaper) throws Exception {
        if (ProcessHandle.current().pid() != 1 || !Files.exists(CGROUP.resolve("cgroup.controllers"))
                || !isTmpfs(RUN)) {
            return "no container (not PID 1 of the image build's namespaces: skipped)";
        }
        String id = "training";
        Path containers = CGROUP.resolve(CgroupSetup.CONTAINERS);
        int pid;
        try {
            // the pod's files where Configure writes them, on a tmpfs over the training's /etc (its passwd copied)
            byte[] passwd = Files.readAllBytes(ETC.resolve("passwd"));
            Mounts.mount("training", ETC.toString(), "tmpfs", 0, "mode=755");
            Files.write(ETC.resolve("passwd"), passwd);
            List<String> podFiles = new ArrayList<>();
            for (Path file : List.of(PodService.HOSTNAME, PodService.HOSTS, PodService.RESOLV_CONF)) {
                Files.writeString(file, "training\n");
                podFiles.add(file.toString());
            }
            // runc's example with a pod's process: no terminal (the example has one), a program of the root's
            ObjectNode example = (ObjectNode) JsonNodes.read(Json.write(DefaultSpec.example(true)).getBytes(StandardCharsets.UTF_8));
            ObjectNode process = (ObjectNode) example.get("process");
            process.put("terminal", false);
            process.putArray("args").add("/training");
            ContainerSpecs.Rewritten config = ContainerSpecs.rewrite(JsonNodes.write(example), id, "training", podFiles);
            Path bundle = ContainerStore.BUNDLES.resolve(id);
            Path rootfs = Files.createDirectories(bundle.resolve("rootfs"));
            // a file system of its own, as a pod's root is (its disk's, or the overlay over it)
            Mounts.mount("training", rootfs.toString(), "tmpfs", 0, "mode=755");
            // the program is looked up at create and never run: the container is killed before its start
            Files.writeString(rootfs.resolve("training"), "#!/training\n");
            Files.setPosixFilePermissions(rootfs.resolve("training"), PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.write(bundle.resolve("config.json"), config.json());
            Spec spec = ContainerCreator.loadBundle(id, bundle);
            ProcessIo io = ProcessIo.pipes(id);
            // as Create makes it: pivot_root (the build moved the training's root over /, as the guest's
            // initramfs does the agent's), the child entering its cgroup itself
            try (Container container = ContainerCreator.create(ContainerStore.STATE_ROOT, new CreateOptions(id, bundle,
                    null, null, false, false, 0, -1, io.childStdio(), ChildCgroupEntry.CHILD_MOVED), false, spec)) {
                pid = container.state().pid();
            } finally {
                io.closeChildEnds();
            }
            // as Remove deletes a container that never ran: SIGKILL, its cgroup and state, its status reaped
            try (Container container = Container.load(ContainerStore.STATE_ROOT, id)) {
                container.delete(true);
            }
            reaper.claim(pid);
            io.close();
            Mounts.umount(rootfs.toString(), Mounts.MNT_DETACH);
            Mounts.umount(ETC.toString(), Mounts.MNT_DETACH);
        } finally {
            // the cgroups are the one thing of this run the machine keeps (below the build's own cgroup, the
            // namespace's root): none is left, even when the create failed
            for (Path dir : List.of(containers.resolve(id), containers)) {
                try {
                    Files.deleteIfExists(dir);
                } catch (IOException e) {
                    System.err.println("cds-training: " + dir + " left: " + e.getMessage());
                }
            }
        }
        return "a container created and deleted (pid " + pid + ")";
    }

    private static boolean isTmpfs(Path dir) throws IOException {
        return "tmpfs".equals(Files.getFileStore(dir).type());
    }

    private interface Call {
        void run() throws RpcException;
    }

    private static int expectError(Call call) {
        try {
            call.run();
        } catch (RpcException expected) {
            // an unknown container: the error's classes are what this call is for
        }
        return 1;
    }
}
