package io.jrunc.spec;

import java.util.List;

/**
 * A seccomp filter (config-linux.md, Seccomp). Actions, architectures, flags and operators are
 * libseccomp's
 * names, e.g. {@code SCMP_ACT_ERRNO}, kept as text so unknown ones reach the validator.
 *
 * @param defaultErrnoRet errno for an ERRNO/TRACE default action; absent means EPERM.
 * @param listenerPath unix socket that receives the notify fd (SCMP_ACT_NOTIFY).
 */
public record LinuxSeccomp(
        String defaultAction,
        Integer defaultErrnoRet,
        List<String> architectures,
        List<String> flags,
        String listenerPath,
        String listenerMetadata,
        List<LinuxSyscall> syscalls) {

    public LinuxSeccomp {
        architectures = Frozen.list(architectures);
        flags = Frozen.list(flags);
        syscalls = Frozen.list(syscalls);
    }
}
