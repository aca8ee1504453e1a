package io.jrunc.runtime.init;

import io.jrunc.bindings.FileDescriptors;
import io.jrunc.bindings.Mounts;
import io.jrunc.bindings.Terminals;
import io.jrunc.bindings.UnixSockets;
import io.jrunc.spec.Box;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A container process's terminal, made by the spawning thread once its root is the container's: a pty
 * from the container's /dev/ptmx (so it belongs to the container's devpts), sized as
 * process.consoleSize says, its master sent to the caller's console socket in one message (the pty
 * name as data, the descriptor as SCM_RIGHTS: go-runc's protocol) and closed here. Returns the slave's
 * path, which the process opens as its controlling terminal.
 *
 * <p>The kernel gives the slave the opener's uid, here the runtime's. With a user namespace that uid
 * is none of the container's (the container would see the overflow id), so the slave is given to the
 * container's root, as it is when a runtime opens it from inside the namespace (runc); its group
 * stays the devpts gid= option's.
 */
final class PtyHandoff {
    private PtyHandoff() {}

    /** {@code bindConsole}: also bind the slave on /dev/console, as runc does for a container's init. */
    static String handOver(int consoleSocket, Box size, boolean bindConsole, HostIds hostIds) {
        Terminals.Pty pty = Terminals.open();
        try {
            if (!hostIds.identity()) {
                FileDescriptors.chown(pty.slavePath(), hostIds.uid(0), -1);
            }
            if (size != null) {
                Terminals.setSize(pty.master(), size.height() == null ? 0 : size.height(),
                        size.width() == null ? 0 : size.width());
            }
            if (bindConsole && Files.isDirectory(Path.of("/dev"))) {
                Path console = Path.of("/dev/console");
                if (!Files.exists(console)) {
                    Files.createFile(console);
                }
                Mounts.mount(pty.slavePath(), console.toString(), null, Mounts.MS_BIND, null);
            }
            UnixSockets.sendWithFd(consoleSocket, pty.slavePath().getBytes(StandardCharsets.UTF_8), pty.master());
            return pty.slavePath();
        } catch (IOException e) {
            throw new UncheckedIOException("/dev/console", e);
        } finally {
            FileDescriptors.closeQuietly(pty.master());
        }
    }
}
