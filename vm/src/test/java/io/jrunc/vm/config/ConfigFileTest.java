package io.jrunc.vm.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.vm.VmException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** jrunc-vm's TOML configuration: what it sets, and the precedence flag > file > built-in. */
class ConfigFileTest {
    @TempDir
    Path dir;

    Path file(String toml) throws Exception {
        return Files.writeString(dir.resolve("config.toml"), toml);
    }

    @Test
    void everyKeyAndThePrecedenceOfFlagsFileAndBuiltIn() throws Exception {
        ConfigFile.Defaults d = ConfigFile.load(file("""
                [pod]
                swap = "1g"
                [container]
                memory = "256m"
                cpus = 1.5
                swap = 134217728
                [pool]
                size = 2
                """));
        assertEquals(1L << 30, d.podSwap(null));
        assertEquals(2L << 30, d.podSwap(2L << 30), "the flag wins");
        assertEquals(256L << 20, d.containerMemory(null));
        assertEquals(1.5, d.containerCpus(null));
        assertEquals(0.5, d.containerCpus(0.5));
        assertEquals(128L << 20, d.containerSwap(null));
        assertEquals(0, d.containerSwap(0L), "a flag of 0 is a cap of 0, not unset");
        assertEquals(2, d.pool());

        ConfigFile.Defaults builtIn = ConfigFile.Defaults.BUILT_IN;
        assertEquals(0, builtIn.podSwap(null), "no area unless asked for");
        assertEquals(-1, builtIn.containerSwap(null), "no cap");
        assertEquals(0, builtIn.containerMemory(null));
        assertEquals(0, builtIn.pool(), "no pool unless asked for");
    }

    @Test
    void aPartialFileLeavesTheRestBuiltIn() throws Exception {
        ConfigFile.Defaults d = ConfigFile.load(file("[container]\nmemory = \"64m\"\n"));
        assertNull(d.podSwapBytes());
        assertEquals(0, d.podSwap(null));
        assertEquals(64L << 20, d.containerMemory(null));
    }

    @Test
    void badFilesAreOneErrorNamingFileAndKey() throws Exception {
        Path f = file("[container]\nmemroy = \"64m\"\n");
        VmException e = assertThrows(VmException.class, () -> ConfigFile.load(f));
        assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains("container.memroy"), e.getMessage());

        Path table = file("[pods]\nswap = \"1g\"\n");
        e = assertThrows(VmException.class, () -> ConfigFile.load(table));
        assertTrue(e.getMessage().contains("unknown key pods"), e.getMessage());

        Path broken = file("[pod\nswap = ");
        e = assertThrows(VmException.class, () -> ConfigFile.load(broken));
        assertTrue(e.getMessage().contains(broken.toString()) && e.getMessage().contains("does not parse"), e.getMessage());

        Path size = file("[pod]\nswap = \"lots\"\n");
        e = assertThrows(VmException.class, () -> ConfigFile.load(size));
        assertTrue(e.getMessage().contains("pod.swap"), e.getMessage());

        Path tiny = file("[pod]\nswap = \"4k\"\n");
        e = assertThrows(VmException.class, () -> ConfigFile.load(tiny));
        assertTrue(e.getMessage().contains("pod.swap"), e.getMessage());

        for (String bad : new String[] {"-1", "9", "\"1\"", "1.5"}) {
            Path pool = file("[pool]\nsize = " + bad + "\n");
            e = assertThrows(VmException.class, () -> ConfigFile.load(pool), bad);
            assertTrue(e.getMessage().contains("pool.size") && e.getMessage().contains("0 to 8"), e.getMessage());
        }
        Path poolKey = file("[pool]\nsiez = 1\n");
        e = assertThrows(VmException.class, () -> ConfigFile.load(poolKey));
        assertTrue(e.getMessage().contains("pool.siez") && e.getMessage().contains("[pool] size"), e.getMessage());

        e = assertThrows(VmException.class, () -> ConfigFile.load(dir.resolve("absent.toml")));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }
}
