package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.jrunc.agent.api.pb.v1.ConsoleSize;
import io.jrunc.agent.api.pb.v1.ProcessSpec;
import io.jrunc.spec.Box;
import io.jrunc.spec.LinuxCapabilities;
import io.jrunc.spec.POSIXRlimit;
import io.jrunc.spec.Process;
import io.jrunc.spec.User;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An exec's process: the container's own, with what the request sets in its place. */
class ExecProcessTest {
    static final Process BASE = Process.builder().terminal(true).consoleSize(new Box(24, 80))
            .user(new User(1000L, 1000L, 18L, List.of(5L), null)).args(List.of("init")).commandLine("init")
            .env(List.of("PATH=/bin")).cwd("/srv").capabilities(new LinuxCapabilities(List.of("CAP_KILL"), null, null, null, null))
            .rlimits(List.of(new POSIXRlimit("RLIMIT_NOFILE", 64L, 64L))).noNewPrivileges(true).oomScoreAdj(300).build();

    @Test
    void theRequestsFieldsReplaceTheContainersAndTheRestIsKept() {
        Process p = ProcessService.execProcess(BASE, ProcessSpec.newBuilder().addAllArgs(List.of("sh", "-c", "id"))
                .setTerminal(false).addEnv("A=1").setCwd("/tmp")
                .setUser(io.jrunc.agent.api.pb.v1.User.newBuilder().setUid(7).setGid(8).addAdditionalGids(9)).build());
        assertEquals(BASE.toBuilder().terminal(false).consoleSize(null).args(List.of("sh", "-c", "id")).commandLine(null)
                .env(List.of("A=1")).cwd("/tmp").user(new User(7L, 8L, null, List.of(9L), null)).build(), p);
    }

    @Test
    void whatTheRequestLeavesOutIsTheContainers() {
        Process p = ProcessService.execProcess(BASE, ProcessSpec.newBuilder().addArgs("true").setTerminal(true)
                .setConsoleSize(ConsoleSize.newBuilder().setRows(30).setColumns(90)).build());
        assertEquals(BASE.user(), p.user());
        assertEquals(BASE.env(), p.env());
        assertEquals("/srv", p.cwd());
        assertEquals(new Box(30, 90), p.consoleSize());
        assertEquals(BASE.capabilities(), p.capabilities());
        assertEquals(BASE.rlimits(), p.rlimits());
        assertEquals(300, p.oomScoreAdj());
        assertNull(p.commandLine());
    }
}
