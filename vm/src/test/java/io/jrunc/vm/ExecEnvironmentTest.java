package io.jrunc.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecEnvironmentTest {
    @TempDir
    Path dir;

    Path config() throws Exception {
        return Files.writeString(dir.resolve("config.json"), """
                {"process": {"args": ["sh"], "env": ["PATH=/bin", "TERM=xterm", "HOME=/root"]}}""");
    }

    @Test
    void addedValuesJoinTheContainersAndANameGivenAgainReplacesItInPlace() throws Exception {
        assertEquals(List.of("PATH=/bin", "TERM=dumb", "HOME=/root", "K=V=W", "EMPTY="),
                ExecEnvironment.of(config(), List.of("K=V=W", "TERM=dumb", "EMPTY="), Map.of()));
    }

    @Test
    void aNameAloneTakesTheCallersValueOrNothing() throws Exception {
        assertEquals(List.of("PATH=/bin", "TERM=xterm", "HOME=/root", "EDITOR=vi"),
                ExecEnvironment.of(config(), List.of("EDITOR", "UNSET"), Map.of("EDITOR", "vi")));
    }

    @Test
    void nothingAddedSendsNothingAndNeedsNoConfig() throws Exception {
        assertEquals(List.of(), ExecEnvironment.of(dir.resolve("absent.json"), List.of(), Map.of()));
    }

    @Test
    void anEmptyNameOrAnUnreadableConfigIsOneErrorNamingIt() throws Exception {
        VmException e = assertThrows(VmException.class, () -> ExecEnvironment.of(config(), List.of("=x"), Map.of()));
        assertTrue(e.getMessage().contains("--env \"=x\""), e.getMessage());
        e = assertThrows(VmException.class, () -> ExecEnvironment.of(dir.resolve("absent.json"), List.of("K=V"), Map.of()));
        assertTrue(e.getMessage().contains("absent.json"), e.getMessage());
    }
}
