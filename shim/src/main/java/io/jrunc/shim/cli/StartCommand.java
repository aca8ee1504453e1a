package io.jrunc.shim.cli;

import io.jrunc.shim.BundleAnnotations;
import io.jrunc.shim.ShimAddress;
import io.jrunc.shim.ShimOptions;
import io.jrunc.shim.ShimSharing;
import io.jrunc.shim.ShimSockets;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code start}: containerd runs it for every container, in the bundle, with the runtime options on
 * stdin, and reads stdout and stderr together for the address. For a member of a group whose shim is
 * alive it only reads the bundle's annotations, hashes and prints (no protobuf, no JSON library, no
 * native call: this path is what containerd pays per container). Otherwise it checks the options,
 * spawns the long-lived shim in a session of its own with every standard stream away from containerd's
 * pipe (so containerd's read ends when this process does), waits until the shim listens, and prints
 * the address. Either way the address is also written to the bundle's {@code address} file, where
 * containerd looks for it when it restarts, and the options to {@code shim-options.pb}, for
 * {@code delete}.
 */
final class StartCommand {
    private StartCommand() {
    }

    static final Path SETSID = Path.of("/usr/bin/setsid");
    /** The serving shim writes why it could not start here, for start to report. */
    static final String ERROR_FILE = "shim-start.err";
    /** The runtime options as start received them (protobuf Any), in the bundle. */
    static final String OPTIONS_FILE = "shim-options.pb";
    private static final long READY_TIMEOUT_MS = 20_000;
    /** How long a live shim takes at most to answer the probe (it answers from its accept loop). */
    private static final long PROBE_TIMEOUT_MS = 5_000;

    static int run(ShimFlags flags, Path bundle, PrintStream out) throws ShimFlags.UsageException, IOException,
            ShimOptions.OptionsException {
        flags.require("namespace", "address", "id");
        Map<String, String> annotations;
        try {
            annotations = BundleAnnotations.read(bundle);
        } catch (NoSuchFileException e) {
            throw new IOException("bundle " + bundle + " has no config.json");
        } catch (IllegalArgumentException e) {
            throw new IOException(bundle.resolve("config.json") + ": " + e.getMessage().replaceFirst("^config.json: ", ""));
        }
        byte[] options = System.in.readAllBytes();
        // No options (ctr run without --runtime-config-path) are the defaults: nothing to parse.
        ShimOptions parsed = options.length == 0 ? ShimOptions.DEFAULTS : ShimOptions.fromAnyBytes(options);
        ShimSharing sharing = ShimSharing.of(parsed);
        String group = sharing.group(flags.id(), annotations);
        Path socket = ShimAddress.socketPath(flags.address(), flags.namespace(), group);
        String address = "unix://" + socket;
        if (!ShimSockets.answers(socket, PROBE_TIMEOUT_MS)) {
            spawn(flags, bundle, socket, options, sharing.shared() ? group : flags.id(),
                    sharing.shared() ? ShimSharing.Files.of(parsed, socket).log() : null);
        }
        // for `delete` after a dead shim, which containerd gives no options
        Files.write(bundle.resolve(OPTIONS_FILE), options);
        Files.writeString(bundle.resolve("address"), address, StandardCharsets.UTF_8);
        out.print(address);
        out.flush();
        return 0;
    }

    private static void spawn(ShimFlags flags, Path bundle, Path socket, byte[] options, String shimId, Path log)
            throws IOException {
        // A socket file no shim answers on is a dead shim's: the new one binds anew.
        Files.deleteIfExists(socket);
        Path errorFile = bundle.resolve(ERROR_FILE);
        Files.deleteIfExists(errorFile);
        List<String> command = new ArrayList<>();
        command.add(SETSID.toString());
        command.addAll(selfCommand());
        command.addAll(List.of("-namespace", flags.namespace(), "-address", flags.address(),
                "-publish-binary", flags.publishBinary(), "-id", shimId));
        if (flags.debug()) {
            command.add("-debug");
        }
        ProcessBuilder pb = new ProcessBuilder(command).directory(new File("/"))
                .redirectInput(new File("/dev/null")).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(log == null ? logTarget(bundle) : ProcessBuilder.Redirect.to(openLog(log)));
        pb.environment().put(Main.SOCKET_ENV, socket.toString());
        pb.environment().put(Main.OPTIONS_ENV, Base64.getEncoder().encodeToString(options));
        pb.environment().put(Main.ERROR_FILE_ENV, errorFile.toString());
        Process shim = pb.start();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MS);
        while (!ShimSockets.alive(socket)) {
            if (!shim.isAlive() && !ShimSockets.alive(socket)) {
                String why = Files.exists(errorFile) ? Files.readString(errorFile).strip() : "";
                Files.deleteIfExists(errorFile);
                throw new IOException(why.isEmpty()
                        ? "the shim exited with status " + shim.exitValue() + " before it listened on " + socket
                        : why);
            }
            if (System.nanoTime() > deadline) {
                shim.destroyForcibly();
                throw new IOException("the shim did not listen on " + socket + " within " + READY_TIMEOUT_MS + " ms");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the shim");
            }
        }
    }

    private static File openLog(Path log) throws IOException {
        Files.createDirectories(log.getParent());
        return log.toFile();
    }

    /**
     * The shim's log: the bundle's {@code log} fifo, which containerd opens before start and copies to
     * its own log, when it is there; nowhere otherwise (never a pipe containerd reads as the answer).
     */
    private static ProcessBuilder.Redirect logTarget(Path bundle) {
        Path log = bundle.resolve("log");
        try {
            PosixFileAttributes a = Files.readAttributes(log, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (a.isOther()) {
                return ProcessBuilder.Redirect.appendTo(log.toFile());
            }
        } catch (IOException e) {
            // no fifo
        }
        return ProcessBuilder.Redirect.DISCARD;
    }

    /**
     * How to run this shim again: the launcher ({@code jrunc.shim.launcher}, set by
     * build/bin/containerd-shim-jrunc-v2), or this JVM's java and class path (tests).
     */
    static List<String> selfCommand() {
        String launcher = System.getProperty("jrunc.shim.launcher");
        if (launcher != null && !launcher.isEmpty()) {
            return List.of(launcher);
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        return List.of(java, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-Xlog:disable", "-Xlog:all=off", "-cp", System.getProperty("java.class.path"), Main.class.getName());
    }
}
