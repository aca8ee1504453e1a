package io.jrunc.runtime.init;

import io.jrunc.seccomp.Arch;
import io.jrunc.seccomp.CompiledFilter;
import io.jrunc.seccomp.FilterEvaluator;
import io.jrunc.seccomp.SeccompData;
import io.jrunc.seccomp.SeccompException;
import io.jrunc.seccomp.SyscallTable;
import java.util.List;

/**
 * Runs the compiled filter over exactly the syscalls the child makes between loading it and execve
 * ({@link ChainSpawn#afterLoad()}), with their real arguments, before anything is spawned. Each must be
 * allowed (or logged): a denied one would leave the container half made, and a notified one would wait
 * for an agent that has not received the listener yet. runc makes calls of its own there too and fails
 * on such profiles later, in the middle of its init; jrunc refuses them up front, naming the call.
 */
public final class PreExecCheck {
    private static final int ACTION_FULL = 0xffff0000, ALLOW = 0x7fff0000, LOG = 0x7ffc0000, USER_NOTIF = 0x7fc00000;

    private PreExecCheck() {}

    public static void check(CompiledFilter filter, List<ChainSpawn.Call> calls) {
        Arch arch = Arch.nativeArch();
        SyscallTable table = arch.table();
        for (ChainSpawn.Call call : calls) {
            int ret = FilterEvaluator.evaluate(filter.program(), SeccompData.of(arch, table.number(call.name()), call.args()));
            int action = ret & ACTION_FULL;
            if (action == ALLOW || action == LOG) {
                continue;
            }
            String why = action == USER_NOTIF
                    ? "a notified call before execve would wait for a listener that has no descriptor yet"
                    : "the container could not be started";
            throw new SeccompException("linux.seccomp: the profile gives " + call.name() + " " + describe(ret)
                    + ", but jrunc makes that call after loading the filter and before execve (" + why + ")");
        }
    }

    static String describe(int ret) {
        int action = ret & ACTION_FULL;
        int data = ret & 0xffff;
        return switch (action) {
            case 0x80000000 -> "SCMP_ACT_KILL_PROCESS";
            case 0x00000000 -> "SCMP_ACT_KILL_THREAD";
            case 0x00030000 -> "SCMP_ACT_TRAP";
            case 0x00050000 -> "SCMP_ACT_ERRNO(" + data + ")";
            case USER_NOTIF -> "SCMP_ACT_NOTIFY";
            case 0x7ff00000 -> "SCMP_ACT_TRACE(" + data + ")";
            default -> String.format("action 0x%08x", ret);
        };
    }
}
