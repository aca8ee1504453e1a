package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.reflect.RecordComponent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Process's builder: each named setter fills its own field, and a copy keeps what it does not change. */
class ProcessBuilderTest {
    static final Process FULL = new Process(true, new Box(24, 80), new User(1000L, 1000L, 18L, List.of(10L), "u"),
            List.of("sh", "-c", "true"), "sh -c true", List.of("A=1"), "/work",
            new LinuxCapabilities(List.of("CAP_KILL"), List.of("CAP_KILL"), List.of(), List.of("CAP_KILL"), List.of()),
            List.of(new POSIXRlimit("RLIMIT_NOFILE", 64L, 64L)), true, "profile", -500,
            new Scheduler("SCHED_OTHER", 1, 0, List.of(), null, null, null), "label",
            new LinuxIOPriority("IOPRIO_CLASS_BE", 4), new CPUAffinity("0", "0-1"));

    @Test
    void eachSetterFillsTheFieldItNames() {
        Process built = Process.builder().terminal(true).consoleSize(FULL.consoleSize()).user(FULL.user())
                .args(FULL.args()).commandLine(FULL.commandLine()).env(FULL.env()).cwd(FULL.cwd())
                .capabilities(FULL.capabilities()).rlimits(FULL.rlimits()).noNewPrivileges(true)
                .apparmorProfile(FULL.apparmorProfile()).oomScoreAdj(FULL.oomScoreAdj()).scheduler(FULL.scheduler())
                .selinuxLabel(FULL.selinuxLabel()).ioPriority(FULL.ioPriority())
                .execCPUAffinity(FULL.execCPUAffinity()).build();
        assertEquals(FULL, built);
    }

    @Test
    void anEmptyBuilderLeavesEveryFieldAbsent() throws Exception {
        Process empty = Process.builder().build();
        for (RecordComponent c : Process.class.getRecordComponents()) {
            assertNull(c.getAccessor().invoke(empty), c.getName());
        }
    }

    @Test
    void aCopyChangesOnlyWhatItSets() {
        assertEquals(FULL, FULL.toBuilder().build());
        Process changed = FULL.toBuilder().args(List.of("id")).cwd("/").terminal(false).build();
        assertEquals(new Process(false, FULL.consoleSize(), FULL.user(), List.of("id"), FULL.commandLine(), FULL.env(),
                "/", FULL.capabilities(), FULL.rlimits(), FULL.noNewPrivileges(), FULL.apparmorProfile(),
                FULL.oomScoreAdj(), FULL.scheduler(), FULL.selinuxLabel(), FULL.ioPriority(), FULL.execCPUAffinity()),
                changed);
    }
}
