package io.jrunc.vm.monitor;

import io.jrunc.agent.api.AgentClient;
import io.jrunc.agent.api.IncompatibleAgentException;
import io.jrunc.ttrpc.ByteStream;
import io.jrunc.ttrpc.ClientOptions;
import io.jrunc.ttrpc.RpcException;
import io.jrunc.vm.VmException;
import io.jrunc.vm.state.StateRoot;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The CLI's way to its pod's monitor: connect to monitor.sock, and when no monitor answers and none
 * holds monitor.lock, start one (`jrunc-vm monitor POD`, a separate JVM, detached) and wait for it. A
 * monitor that holds the lock but does not answer yet is booting the VM: the CLI waits for it. The
 * connection speaks the agent's protocol plus the monitor's service (docs/vm.md). A link made
 * {@link #sharing} keeps each pod's connection once made and hands out leases of it: one CLI command
 * makes several calls (run: add, start, attach, wait, remove), and each new connection costs a socket,
 * a reader thread and the Version round trip (5-12 ms each after the first).
 */
public final class MonitorLink implements AutoCloseable {
    /** How a monitor process is started; tests start one in-process instead. */
    public interface Starter {
        /** Starts a monitor for the pod; returns its process, or null when it runs in this JVM. */
        Process start(StateRoot root, String pod) throws IOException;
    }

    /**
     * How often a command waiting for a booting pod's monitor looks for its socket: a look is a stat
     * of a file that is not there yet (and a lock probe), and the command's own wait after the socket
     * appears is half of this on average. At 100 ms, the monitor's bind to the command's connect took
     * 67-125 ms (three anonymous runs, strace).
     */
    static final long POLL_MILLIS = 20;

    /**
     * A connection to a monitor is a fresh Unix socket, with nothing of another client's in it, so it
     * sends no sync preamble (docs/protocol.md, "Resynchronisation": that round trip is for the
     * guest's port); the connect's Version call waits up to 10 s.
     */
    static final ClientOptions CLIENT_OPTIONS = ClientOptions.DEFAULTS
            .withSync(Duration.ofSeconds(10), Duration.ofSeconds(3)).withoutSync();

    private final StateRoot root;
    private final Starter starter;
    private final Duration bootTimeout;
    /** Each pod's kept connection, when sharing (else null). */
    private final java.util.Map<String, AgentClient> kept;

    public MonitorLink(StateRoot root, Starter starter, Duration bootTimeout) {
        this(root, starter, bootTimeout, false);
    }

    private MonitorLink(StateRoot root, Starter starter, Duration bootTimeout, boolean share) {
        this.root = root;
        this.starter = starter;
        this.bootTimeout = bootTimeout;
        this.kept = share ? new java.util.HashMap<>() : null;
    }

    /** A link that keeps one connection per pod for its users until {@link #close}. */
    public static MonitorLink sharing(StateRoot root, Starter starter, Duration bootTimeout) {
        return new MonitorLink(root, starter, bootTimeout, true);
    }

    /** Closes the kept connections (a link that does not share keeps none). */
    @Override
    public void close() {
        if (kept != null) {
            synchronized (kept) {
                kept.values().forEach(AgentClient::close);
                kept.clear();
            }
        }
    }

    /** Connects to the pod's monitor, starting one if none lives. */
    public AgentClient connect(String pod) throws VmException {
        return connect(pod, null);
    }

    /**
     * Starts the pod's monitor, when none lives, without waiting for it: the caller goes on with its
     * own work while the monitor's JVM starts and qemu boots, and then passes the process to
     * {@link #connect(String, Process)}. Null when a monitor lives already.
     */
    public Process launch(String pod) throws VmException {
        if (monitorAlive(root, pod)) {
            return null;
        }
        try {
            return starter.start(root, pod);
        } catch (IOException e) {
            throw new VmException("pod " + pod + ": cannot start its monitor: " + e.getMessage(), e);
        }
    }

    /** {@link #connect(String)}, with the monitor {@link #launch} started (null: none was). */
    public AgentClient connect(String pod, Process launched) throws VmException {
        AgentClient client = tryConnect(pod);
        if (client != null) {
            return client;
        }
        Process started = launched;
        if (started == null && !monitorAlive(root, pod)) {
            try {
                started = starter.start(root, pod);
            } catch (IOException e) {
                throw new VmException("pod " + pod + ": cannot start its monitor: " + e.getMessage(), e);
            }
        }
        readyFirstConnection(); // while the monitor starts, not after its socket appears
        long deadline = System.nanoTime() + bootTimeout.toNanos();
        while (System.nanoTime() < deadline) {
            client = tryConnect(pod);
            if (client != null) {
                return client;
            }
            if (started != null && !started.isAlive() && started.exitValue() == 0 && monitorAlive(root, pod)) {
                started = null; // it found another monitor starting (a concurrent call): wait for that one
            }
            if (started != null && !started.isAlive()) {
                throw new VmException("pod " + pod + ": its monitor exited " + started.exitValue() + ": "
                        + lastLine(root.podDir(pod).resolve("monitor.log")));
            }
            if (started == null && !monitorAlive(root, pod) && tryConnect(pod) == null) {
                throw new VmException("pod " + pod + ": its monitor exited: " + lastLine(root.podDir(pod).resolve("monitor.log")));
            }
            sleep(POLL_MILLIS);
        }
        // the guest's own account of a boot that stalls is on its console: its last line says how far it got
        throw new VmException("pod " + pod + ": its monitor did not answer within " + bootTimeout.toSeconds() + " s; the VM's console"
                + " last said: " + lastLine(root.podDir(pod).resolve("console.log")) + " (see " + root.podDir(pod).resolve("monitor.log") + ")");
    }

    /**
     * The pod's monitor if one answers now, else null: no monitor is started and none is waited for
     * (one still booting the VM has no socket yet).
     */
    public AgentClient connectIfServing(String pod) throws VmException {
        return tryConnect(pod);
    }

    private AgentClient tryConnect(String pod) throws VmException {
        if (kept == null) {
            return connectNow(pod);
        }
        synchronized (kept) {
            AgentClient client = kept.get(pod);
            if (client == null || !client.isOpen()) {
                client = connectNow(pod);
                if (client == null) {
                    return null;
                }
                kept.put(pod, client);
            }
            return client.lease();
        }
    }

    /** Whether this JVM has readied itself for its first connection ({@link #readyFirstConnection}). */
    private static final java.util.concurrent.atomic.AtomicBoolean READIED = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Before a JVM's first connection, two pieces of cold start-up side by side: the JDK's Unix socket
     * set-up on a thread of its own (a SecureRandom for the sockets' temporary names; the launcher names
     * the selector provider, else its look-up as a service would open every jar of the class path), and
     * protobuf's runtime on this one (its logger, whose back end is looked up as a service, its version
     * check, the ttRPC and Version messages). Each is some 15 ms of a CLI call's new JVM, one after the
     * other otherwise.
     */
    private static void readyFirstConnection() {
        if (!READIED.compareAndSet(false, true)) {
            return;
        }
        Thread socketSetUp = Thread.ofPlatform().name("socket-set-up").start(() -> {
            try {
                SocketChannel.open(StandardProtocolFamily.UNIX).close();
            } catch (IOException e) {
                // the connection's own open says
            }
        });
        io.jrunc.ttrpc.pb.Request.getDefaultInstance();
        io.jrunc.agent.api.pb.GetVersionResponse.getDefaultInstance();
        try {
            socketSetUp.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private AgentClient connectNow(String pod) throws VmException {
        Path socket = PodMonitor.socket(root, pod);
        if (!Files.exists(socket)) {
            return null;
        }
        readyFirstConnection();
        SocketChannel channel;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            return null;
        }
        try {
            // the connect's Version call is answered by the monitor itself: that round trip is the proof
            // that it serves, and a call that wants qemu's own status asks for it (Status: a QMP query)
            return AgentClient.connect(ByteStream.of(channel), CLIENT_OPTIONS);
        } catch (RpcException e) {
            throw new VmException("pod " + pod + ": its monitor does not answer: " + e.getMessage(), e);
        } catch (IncompatibleAgentException e) {
            throw new VmException("pod " + pod + ": " + e.getMessage(), e);
        }
    }

    /** Whether a monitor holds the pod's monitor.lock (it does for its whole life). */
    public static boolean monitorAlive(StateRoot root, String pod) throws VmException {
        Path lockPath = root.podDir(pod).resolve("monitor.lock");
        if (!Files.exists(lockPath)) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(lockPath, StandardOpenOption.WRITE)) {
            FileLock lock = ch.tryLock();
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (java.nio.channels.OverlappingFileLockException e) {
            return true; // held in this JVM (a test's in-process monitor)
        } catch (IOException e) {
            throw new VmException("cannot check the monitor lock " + lockPath + ": " + e.getMessage(), e);
        }
    }

    /**
     * The last line of a log that is not blank, or "(no log)". Bytes that are not UTF-8 (a guest's
     * serial console writes whatever the kernel and programs wrote) become U+FFFD rather than hide
     * every line.
     */
    public static String lastLine(Path log) {
        return last(lines(log), line -> !line.isBlank()).orElse("(no log)");
    }

    /**
     * What a guest's console says of a boot that did not come up: the image's own account, the last
     * line of its initramfs's init ({@code jrunc-init: ...}, from the marker on) or of the agent
     * ({@code boot failed: ...}), else the kernel's panic line, else the console's last line
     * ({@link #lastLine}). The lines that follow a panic (its trace, the kernel's offset) say nothing a
     * user can act on.
     */
    public static String bootFailure(Path console) {
        List<String> lines = lines(console);
        Optional<String> init = last(lines, line -> line.contains(INIT_MARKER));
        if (init.isPresent()) {
            return init.get().substring(init.get().indexOf(INIT_MARKER));
        }
        return last(lines, line -> line.contains("boot failed: "))
                .or(() -> last(lines, line -> line.contains("Kernel panic - not syncing")))
                .or(() -> last(lines, line -> !line.isBlank()))
                .orElse("(no log)");
    }

    private static final String INIT_MARKER = "jrunc-init: ";

    /** A log's lines, read as UTF-8 (see {@link #lastLine}); none when it cannot be read. */
    private static List<String> lines(Path log) {
        try {
            return new String(Files.readAllBytes(log), java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The last of {@code lines} that {@code which} accepts, stripped. */
    private static Optional<String> last(List<String> lines, java.util.function.Predicate<String> which) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (which.test(lines.get(i))) {
                return Optional.of(lines.get(i).strip());
            }
        }
        return Optional.empty();
    }

    /** The launcher's AOT cache for run and create, beside jrunc-vm.jar (make launcher-vm). */
    static final String RUN_CACHE = "jrunc-vm-run.aot";

    /** {@link #RUN_CACHE} in the directory of the class path's jrunc-vm.jar, or null: none there. */
    static Path runCache(String classPath) {
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            Path jar = Path.of(entry);
            if (jar.getFileName() != null && jar.getFileName().toString().equals("jrunc-vm.jar") && jar.getParent() != null) {
                Path cache = jar.getParent().resolve(RUN_CACHE);
                return Files.isReadable(cache) ? cache : null;
            }
        }
        return null;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The real starter: this JVM's java with its class path, as `jrunc-vm --root ROOT monitor POD`,
     * stdin from /dev/null and output appended to the pod's monitor.log. ProcessBuilder spawns (the CLI
     * JVM never forks itself), through setsid(1) when there is one, so that the monitor starts in a
     * session of its own ({@link Session}). With the launcher's AOT cache of run and
     * create beside the jars ({@link #RUN_CACHE}), the monitor starts from it too: that training runs
     * a stand-in monitor, and the monitor's start to qemu's exec took 280-290 ms with it against
     * 370-430 ms without (four pod starts each). A JVM that refuses the cache starts without it.
     */
    public static Process startProcess(StateRoot root, String pod) throws IOException {
        Path log;
        try {
            log = root.podDir(pod).resolve("monitor.log");
        } catch (VmException e) {
            throw new IOException(e.getMessage(), e);
        }
        return startCli(List.of("--root", root.path().toString(), "monitor", pod), log);
    }

    /**
     * Starts {@code jrunc-vm ARGS} in a JVM of its own as {@link #startProcess} starts a monitor (this
     * JVM's java and class path, the run cache when there is one, a session of its own when setsid(1)
     * is there), stdin from /dev/null, output appended to {@code log}; not waited for. The command calls
     * {@link Session#lead} for the case setsid(1) was not.
     */
    public static Process startCli(List<String> args, Path log) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        String classPath = System.getProperty("java.class.path");
        List<String> cmd = new ArrayList<>(Session.launcher());
        cmd.addAll(List.of(java, "--sun-misc-unsafe-memory-access=allow",
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx96m", "-Xlog:disable",
                "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData"));
        Path cache = runCache(classPath);
        if (cache != null) {
            cmd.add("-XX:AOTCache=" + cache);
        }
        cmd.addAll(List.of("-cp", classPath, "io.jrunc.vm.cli.Main"));
        cmd.addAll(args);
        return new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectErrorStream(true)
                .start();
    }
}
