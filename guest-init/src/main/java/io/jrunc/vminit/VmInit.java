package io.jrunc.vminit;

import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.AgentMethods;
import io.jrunc.agent.api.AgentProtocol;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Machine;
import io.jrunc.bindings.Vsock;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.Dispatcher;
import io.jrunc.ttrpc.ServerOptions;
import io.jrunc.ttrpc.TtrpcServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * jrunc-vminit, PID 1 of a pod VM (docs/guest-init.md). In order: the early mounts, the reaper (before
 * any child can exist), the kernel modules beside the cgroup tree and the services, then the protocol on the virtio-serial
 * port and AF_VSOCK; it then prints its time from kernel start to ready, calls itself once over
 * AF_VSOCK when the kernel's command line has {@value #VSOCK_CHECK}, and serves until Shutdown powers the machine off. PID 1 must never exit (the kernel would panic): a failed boot is logged and
 * the machine powered off.
 */
public final class VmInit {
    private VmInit() {}

    static final String AGENT = "jrunc-vminit";
    /** Well within the host's wait for a boot (minutes), well beyond a slow boot here (15 s). */
    private static final Duration WATCHDOG = Duration.ofSeconds(60);
    /** How long after the ready line the balloon's driver loads. */
    private static final Duration BALLOON_DELAY = Duration.ofSeconds(15);
    /** The kernel parameter that asks for the vsock loopback call after the ready line. */
    static final String VSOCK_CHECK = "jrunc.vsock_check";

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals(CdsTraining.ARGUMENT)) {
            CdsTraining.run(); // the image build's training (scripts/vm-image.sh), PID 1 of the build's namespaces
            return;
        }
        try {
            boot();
        } catch (Throwable t) {
            Console.log("boot failed: %s", t);
            for (StackTraceElement e : t.getStackTrace()) {
                Console.log("    at %s", e);
            }
            try {
                Machine.sync();
                Machine.reboot(Machine.RB_POWER_OFF);
            } catch (Throwable ignored) {
                // nothing is left to try; returning would panic the kernel, which also ends the VM
            }
        }
        while (true) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException ignored) {
                // PID 1 never returns
            }
        }
    }

    private static void boot() throws Exception {
        long entered = System.nanoTime();
        String archive = ClassDataArchive.status(); // before RootSwitch and the tmpfs on /tmp
        RootSwitch.Outcome rootSwitch = RootSwitch.run();
        EarlyMounts.mountAll();
        Console.log("main() at %.3f s after kernel start (the JVM's creation began at %.2f s); early mounts done (%d ms in main);"
                + " root %s%s; class data archive %s %s", Console.uptime(), Console.threadStart(),
                (System.nanoTime() - entered) / 1_000_000, RootSwitch.describe(),
                rootSwitch.switched() ? ", bind-mounted over itself" : "", ClassDataArchive.PATH, archive);
        if (!rootSwitch.switched()) {
            Console.log("root switch failed: %s; the root stays the initramfs, which pivot_root refuses: a create"
                    + " that does not ask for no_pivot will be refused", rootSwitch.failure());
        }
        BootWatchdog watchdog = BootWatchdog.start(WATCHDOG);
        Reaper reaper = Reaper.start();
        // The modules load on a thread of their own while this one sets up the cgroups and builds the
        // services, which need none of them; the transports are served once they are in. The host
        // boots a pod with a CPU for the agent beside the containers', so the two overlap there.
        // vsock only where the host can reach the guest that way (a virtio-vsock device) or the kernel's
        // command line asks for the loopback check; a pod's host talks over the virtio-serial port
        boolean vsockWanted = Transports.hasVsockDevice() || kernelParameter(VSOCK_CHECK);
        FutureTask<Void> modules = new FutureTask<>(new BootModules(vsockWanted));
        Thread.ofPlatform().name("modules").start(modules);
        String controllers = CgroupSetup.setUp();
        Console.log("cgroups: controllers %s enabled down to /%s; agent in /%s", controllers,
                CgroupSetup.CONTAINERS, CgroupSetup.AGENT);

        ContainerStore store = new ContainerStore();
        PodConfig pod = new PodConfig();
        PowerOff powerOff = new PowerOff(store);
        Dispatcher dispatcher = new Dispatcher();
        dispatcher.register(AgentMethods.VERSION, AgentProtocol.versionHandler(AGENT));
        new PodService(pod, powerOff).register(dispatcher);
        new ContainerService(store, reaper, pod).register(dispatcher);
        new ProcessService(store, reaper).register(dispatcher);
        new FileService(store).register(dispatcher);
        TtrpcServer server = new TtrpcServer(dispatcher, ServerOptions.DEFAULTS);
        try {
            modules.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }

        // Both transports before the ready line; the port last, because the host's first call is
        // answered from the moment the port is served, so that moment is the one reported as ready.
        boolean vsock = vsockWanted && serveVsock(server);
        if (!vsockWanted) {
            Console.log("vsock: not served (no virtio-vsock device)");
        }
        Path port = Transports.findPort(Transports.PORT_NAME, 10_000);
        if (port != null) {
            Transports.servePort(server, port);
            Console.log("ready for requests %.3f s after kernel start (virtio-serial port %s, %s); resident %s",
                    Console.uptime(), port, Transports.PORT_NAME, Console.resident());
        } else {
            Console.log("ready for requests %.3f s after kernel start (vsock only: no virtio-serial port named %s)",
                    Console.uptime(), Transports.PORT_NAME);
        }
        watchdog.ready();
        Thread.ofPlatform().name("late-modules").start(new LateModules());
        // Only when the kernel's command line asks (the boot tests do), and after the ready line: the
        // call costs 0.5-1.4 s of the vCPU under emulation (the client's classes, a virtual-thread
        // reader), which the host's first calls would otherwise share.
        if (vsock && kernelParameter(VSOCK_CHECK)) {
            vsockLoopbackCheck();
        }
    }

    /*
     * The boot's threads run classes of their own, not lambdas: the image's cache training never runs
     * boot(), so a lambda here would be linked by a class spun at run time, on the way to the ready line.
     */

    /** The modules of the boot, on a thread of its own beside the main thread's set-up. */
    private record BootModules(boolean vsock) implements Callable<Void> {
        @Override
        public Void call() throws IOException {
            long start = System.nanoTime();
            List<String> loaded = KernelModules.loadAll(vsock);
            Console.log("loaded %d kernel modules in %d ms: %s", loaded.size(),
                    (System.nanoTime() - start) / 1_000_000, String.join(" ", loaded));
            return null;
        }
    }

    /** The containers' disk bus after the ready line, then the balloon's driver. */
    private static final class LateModules implements Runnable {
        @Override
        public void run() {
            loadLateModules();
            loadBalloonLater();
        }
    }

    /** The containers' disk bus, after the ready line (KernelModules.AFTER_READY says why). */
    private static void loadLateModules() {
        loadModules(KernelModules.AFTER_READY, "after ready");
    }

    /**
     * The balloon's driver {@link #BALLOON_DELAY} after the ready line (KernelModules.IDLE says why): by
     * then a pod's first container has started, and a pooled pod still waits.
     */
    private static void loadBalloonLater() {
        try {
            Thread.sleep(BALLOON_DELAY);
        } catch (InterruptedException e) {
            return; // nothing interrupts this thread; were it to, the pod would only keep its free pages
        }
        loadModules(KernelModules.IDLE, BALLOON_DELAY.toSeconds() + " s after ready");
    }

    /** Loads {@code modules}; the console says which, {@code when}, and how long it took, or why it failed. */
    private static void loadModules(Set<String> modules, String when) {
        long start = System.nanoTime();
        try {
            List<String> loaded = KernelModules.loadOnly(modules);
            Console.log("loaded %d kernel modules %s in %d ms: %s", loaded.size(), when,
                    (System.nanoTime() - start) / 1_000_000, String.join(" ", loaded));
        } catch (IOException | RuntimeException e) {
            Console.log("kernel modules %s: failed: %s", when, e);
        }
    }

    /** Serves AF_VSOCK; false (logged) where the kernel has no vsock transport. */
    private static boolean serveVsock(TtrpcServer server) {
        try {
            Transports.serveVsock(server);
        } catch (RuntimeException e) {
            Console.log("vsock: not served: %s", e.getMessage());
            return false;
        }
        Console.log("serving on vsock port %d", Transports.VSOCK_PORT);
        return true;
    }

    /**
     * Whether the kernel's command line has {@code name}, alone or as {@code name=1}. /proc is mounted
     * by then (the early mounts); an unreadable command line has none.
     */
    private static boolean kernelParameter(String name) {
        try {
            // words apart by single spaces, as the kernel writes them; no regular expression (cold
            // under emulation)
            String line = " " + Files.readString(Path.of("/proc/cmdline")).trim() + " ";
            return line.contains(" " + name + " ") || line.contains(" " + name + "=1 ");
        } catch (IOException e) {
            Console.log("kernel command line: not read: %s", e);
        }
        return false;
    }

    /** One call to itself over the vsock loopback transport, so that the AF_VSOCK path is exercised. */
    private static void vsockLoopbackCheck() {
        try (AgentClient self = AgentClient.connect(new FdStream(Vsock.connect(Vsock.CID_LOCAL,
                Transports.VSOCK_PORT), true), ClientOptions.DEFAULTS.withoutSync().withCallTimeout(Duration.ofSeconds(30)))) {
            Console.log("vsock loopback: %s answered major %d minor %d", self.agentVersion().getAgent(),
                    self.agentVersion().getMajor(), self.agentVersion().getMinor());
        } catch (Exception e) {
            Console.log("vsock loopback: failed: %s", e);
        }
    }
}
