package io.jrunc.seccomp;

import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.LinuxSyscall;
import java.util.ArrayList;
import java.util.List;

/** The names of a profile that libseccomp 2.5.4 does not know on any architecture: runc skips them, logging each at debug level. */
public final class SyscallNames {
    private SyscallNames() {}

    public static List<String> unknown(LinuxSeccomp seccomp) {
        List<String> unknown = new ArrayList<>();
        if (seccomp.syscalls() != null) {
            for (LinuxSyscall rule : seccomp.syscalls()) {
                if (rule.names() != null) {
                    for (String name : rule.names()) {
                        if (name != null && !SyscallTables.known(name) && !unknown.contains(name)) {
                            unknown.add(name);
                        }
                    }
                }
            }
        }
        return unknown;
    }
}
