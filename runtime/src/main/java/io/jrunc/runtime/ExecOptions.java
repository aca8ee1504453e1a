package io.jrunc.runtime;

import io.jrunc.spec.Process;
import java.nio.file.Path;

/** `exec`: the process to run (already merged with the container's defaults) and runc's exec flags. */
public record ExecOptions(Process process, Path pidFile, Path consoleSocket, boolean detach, int preserveFds,
        boolean ignorePaused) {}
