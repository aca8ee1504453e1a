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

    /** A process built field by field: every field absent (null) until set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this process's fields, to change some and keep the rest. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.terminal = terminal;
        b.consoleSize = consoleSize;
        b.user = user;
        b.args = args;
        b.commandLine = commandLine;
        b.env = env;
        b.cwd = cwd;
        b.capabilities = capabilities;
        b.rlimits = rlimits;
        b.noNewPrivileges = noNewPrivileges;
        b.apparmorProfile = apparmorProfile;
        b.oomScoreAdj = oomScoreAdj;
        b.scheduler = scheduler;
        b.selinuxLabel = selinuxLabel;
        b.ioPriority = ioPriority;
        b.execCPUAffinity = execCPUAffinity;
        return b;
    }

    /**
     * Names each of the sixteen fields where it is set, so that a process is never built from a row of
     * positional arguments (half of them null) whose order only the record's declaration tells.
     */
    public static final class Builder {
        private Boolean terminal;
        private Box consoleSize;
        private User user;
        private List<String> args;
        private String commandLine;
        private List<String> env;
        private String cwd;
        private LinuxCapabilities capabilities;
        private List<POSIXRlimit> rlimits;
        private Boolean noNewPrivileges;
        private String apparmorProfile;
        private Integer oomScoreAdj;
        private Scheduler scheduler;
        private String selinuxLabel;
        private LinuxIOPriority ioPriority;
        private CPUAffinity execCPUAffinity;

        private Builder() {
        }

        public Builder terminal(Boolean terminal) {
            this.terminal = terminal;
            return this;
        }

        public Builder consoleSize(Box consoleSize) {
            this.consoleSize = consoleSize;
            return this;
        }

        public Builder user(User user) {
            this.user = user;
            return this;
        }

        public Builder args(List<String> args) {
            this.args = args;
            return this;
        }

        public Builder commandLine(String commandLine) {
            this.commandLine = commandLine;
            return this;
        }

        public Builder env(List<String> env) {
            this.env = env;
            return this;
        }

        public Builder cwd(String cwd) {
            this.cwd = cwd;
            return this;
        }

        public Builder capabilities(LinuxCapabilities capabilities) {
            this.capabilities = capabilities;
            return this;
        }

        public Builder rlimits(List<POSIXRlimit> rlimits) {
            this.rlimits = rlimits;
            return this;
        }

        public Builder noNewPrivileges(Boolean noNewPrivileges) {
            this.noNewPrivileges = noNewPrivileges;
            return this;
        }

        public Builder apparmorProfile(String apparmorProfile) {
            this.apparmorProfile = apparmorProfile;
            return this;
        }

        public Builder oomScoreAdj(Integer oomScoreAdj) {
            this.oomScoreAdj = oomScoreAdj;
            return this;
        }

        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        public Builder selinuxLabel(String selinuxLabel) {
            this.selinuxLabel = selinuxLabel;
            return this;
        }

        public Builder ioPriority(LinuxIOPriority ioPriority) {
            this.ioPriority = ioPriority;
            return this;
        }

        public Builder execCPUAffinity(CPUAffinity execCPUAffinity) {
            this.execCPUAffinity = execCPUAffinity;
            return this;
        }

        public Process build() {
            return new Process(terminal, consoleSize, user, args, commandLine, env, cwd, capabilities, rlimits,
                    noNewPrivileges, apparmorProfile, oomScoreAdj, scheduler, selinuxLabel, ioPriority,
                    execCPUAffinity);
        }
    }
}
