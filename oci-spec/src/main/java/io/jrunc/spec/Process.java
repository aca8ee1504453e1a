package io.jrunc.spec;

import java.util.List;

/**
 * The container process (config.md, Process). Only its Linux/POSIX fields are acted on; {@code
 * commandLine} is Windows-only and kept for round trips.
 * Named after the Go type, so it shadows {@code java.lang.Process} wherever it is imported: import it by
 * name, not with a wildcard.
 *
 * @param consoleSize ignored unless terminal is true.
 * @param args argv; the first entry is looked up like execvp's file. Must not be empty.
 * @param cwd absolute path inside the container.
 * @param oomScoreAdj absent means leave oom_score_adj alone, unlike 0.
 * @param execCPUAffinity applies to exec'd processes, not to the init process.
 */
public record Process(
        Boolean terminal,
        Box consoleSize,
        User user,
        List<String> args,
        String commandLine,
        List<String> env,
        String cwd,
        LinuxCapabilities capabilities,
        List<POSIXRlimit> rlimits,
        Boolean noNewPrivileges,
        String apparmorProfile,
        Integer oomScoreAdj,
        Scheduler scheduler,
        String selinuxLabel,
        LinuxIOPriority ioPriority,
        CPUAffinity execCPUAffinity) {

    public Process {
        args = Frozen.list(args);
        env = Frozen.list(env);
        rlimits = Frozen.list(rlimits);
    }
}
