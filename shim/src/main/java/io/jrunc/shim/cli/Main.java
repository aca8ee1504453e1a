package io.jrunc.shim.cli;

import io.jrunc.shim.Backends;
import io.jrunc.shim.ShimOptions;
import io.jrunc.shim.ShimServer;
import io.jrunc.shim.ShimSharing;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Properties;

/**
 * containerd-shim-jrunc-v2 (docs/shim.md): {@code start} prints the address of the group's shim,
 * starting one when there is none; {@code delete} cleans up after a shim that died; no subcommand
 * serves (the process {@code start} spawns). Errors are one line on stderr and exit status 1: containerd
 * shows the line to its user.
 */
public final class Main {
    private Main() {
    }

    /** What {@code start} hands the process it spawns (an environment variable each). */
    static final String SOCKET_ENV = "JRUNC_SHIM_SOCKET", OPTIONS_ENV = "JRUNC_SHIM_OPTIONS",
            ERROR_FILE_ENV = "JRUNC_SHIM_ERROR_FILE";
    static final String NAME = "containerd-shim-jrunc-v2";

    public static void main(String[] args) {
        System.exit(run(List.of(args), System.out, System.err));
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        try {
            ShimFlags flags = ShimFlags.parse(args);
            if (flags.version()) {
                out.print(NAME + ":\n  Version:  " + property("version") + "\n  Revision: " + property("commit") + "\n");
                return 0;
            }
            return switch (flags.command()) {
                case "start" -> StartCommand.run(flags, Path.of("").toAbsolutePath(), out);
                case "delete" -> DeleteCommand.run(flags, out);
                default -> serveReportingErrors(flags, err);
            };
        } catch (ShimFlags.UsageException | ShimOptions.OptionsException e) {
            err.println(NAME + ": " + e.getMessage());
            return 1;
        } catch (IOException | RuntimeException e) {
            err.println(NAME + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return 1;
        }
    }

    /** Serves; a failure to start is also written where {@code start} reads it, for containerd's user. */
    private static int serveReportingErrors(ShimFlags flags, PrintStream err) {
        try {
            return serve(flags);
        } catch (Exception e) {
            String line = e.getMessage() == null ? e.toString() : e.getMessage();
            err.println(NAME + ": " + line);
            String errorFile = System.getenv(ERROR_FILE_ENV);
            if (errorFile != null && !errorFile.isEmpty()) {
                try {
                    java.nio.file.Files.writeString(Path.of(errorFile), line + "\n");
                } catch (IOException ignored) {
                    // start reports the exit status instead
                }
            }
            return 1;
        }
    }

    private static int serve(ShimFlags flags) throws ShimFlags.UsageException, ShimOptions.OptionsException,
            IOException, Backends.BackendException, InterruptedException {
        flags.require("namespace", "address", "id");
        logDebug(flags.debug());
        String socket = System.getenv(SOCKET_ENV);
        if (socket == null || socket.isEmpty()) {
            throw new ShimFlags.UsageException(NAME + " serves only when started by its own start command ("
                    + SOCKET_ENV + " is not set)");
        }
        String encoded = System.getenv(OPTIONS_ENV);
        ShimOptions options = ShimOptions.fromAnyBytes(encoded == null ? new byte[0] : Base64.getDecoder().decode(encoded));
        String events = System.getenv("TTRPC_ADDRESS");
        if (events == null || events.isEmpty()) {
            events = flags.address() + ".ttrpc";
        }
        new ShimServer(Path.of(socket), flags.namespace(), events, options, ShimSharing.of(options)).serve();
        return 0;
    }

    /**
     * containerd passes -debug when its own log level is debug (as to its runc shim, which then logs at
     * debug level): the serving shim's debug lines (each task call) go to its stderr, the shim's log.
     */
    static void logDebug(boolean debug) {
        if (!debug) {
            return;
        }
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        root.setLevel(java.util.logging.Level.FINE);
        for (java.util.logging.Handler h : root.getHandlers()) {
            h.setLevel(java.util.logging.Level.FINE);
        }
    }

    private static String property(String key) {
        Properties p = new Properties();
        try (var in = Main.class.getResourceAsStream("/jrunc.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException ignored) {
            // "unknown" below
        }
        return p.getProperty(key, key.equals("version") ? "0.1.0" : "unknown");
    }
}
