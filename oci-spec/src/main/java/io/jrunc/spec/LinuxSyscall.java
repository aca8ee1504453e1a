package io.jrunc.spec;

import java.util.List;

/**
 * A seccomp rule for a set of syscalls (config-linux.md, Seccomp syscalls).
 *
 * @param errnoRet absent means EPERM.
 */
public record LinuxSyscall(
        List<String> names,
        String action,
        Integer errnoRet,
        List<LinuxSeccompArg> args) {

    public LinuxSyscall {
        names = Frozen.list(names);
        args = Frozen.list(args);
    }
}
