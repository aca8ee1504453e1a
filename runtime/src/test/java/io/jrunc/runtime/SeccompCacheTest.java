package io.jrunc.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.jrunc.seccomp.Arch;
import io.jrunc.seccomp.CompiledFilter;
import io.jrunc.seccomp.SeccompCompiler;
import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.LinuxSeccompArg;
import io.jrunc.spec.LinuxSyscall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cache of compiled programs (SeccompCache); what the kernel enforces from it is in SeccompTest. */
class SeccompCacheTest {
    private static LinuxSeccomp profile(String action, Long value) {
        return new LinuxSeccomp("SCMP_ACT_ALLOW", null, List.of("SCMP_ARCH_X86_64"), List.of(), null, null,
                List.of(new LinuxSyscall(List.of("mkdir", "no-such-call"), action, null,
                        value == null ? List.of() : List.of(new LinuxSeccompArg(1, value, null, "SCMP_CMP_EQ")))));
    }

    @Test
    void anEntryGivesBackTheProgramItWasStoredWith(@TempDir Path root) {
        LinuxSeccomp p = profile("SCMP_ACT_ERRNO", 0755L);
        CompiledFilter compiled = SeccompCompiler.compile(p, Arch.nativeArch());
        SeccompCache cache = new SeccompCache(root);
        byte[] key = SeccompCache.key(p, Arch.nativeArch());
        assertNull(cache.load(key));
        assertEquals(List.of("no-such-call"), compiled.unknownNames());
        cache.store(key, compiled);
        CompiledFilter back = cache.load(key);
        assertNotNull(back);
        assertArrayEquals(compiled.program().toBytes(), back.program().toBytes());
        assertEquals(compiled.flags(), back.flags());
        assertEquals(compiled.usesNotify(), back.usesNotify());
        assertEquals(List.of("no-such-call"), back.unknownNames());
    }

    @Test
    void profilesThatDifferAnywhereHaveDifferentKeys() {
        List<byte[]> keys = List.of(
                SeccompCache.key(profile("SCMP_ACT_ERRNO", null), Arch.nativeArch()),
                SeccompCache.key(profile("SCMP_ACT_KILL", null), Arch.nativeArch()),
                SeccompCache.key(profile("SCMP_ACT_ERRNO", 0L), Arch.nativeArch()),
                SeccompCache.key(profile("SCMP_ACT_ERRNO", 1L), Arch.nativeArch()));
        for (int i = 0; i < keys.size(); i++) {
            for (int j = i + 1; j < keys.size(); j++) {
                assertFalse(Arrays.equals(keys.get(i), keys.get(j)), i + " and " + j);
            }
        }
        assertArrayEquals(keys.get(0), SeccompCache.key(profile("SCMP_ACT_ERRNO", null), Arch.nativeArch()));
    }

    /** A file under the key's name that holds another key (a hash collision, or a planted file) is a miss. */
    @Test
    void anEntryForAnotherKeyOrATornOneIsAMiss(@TempDir Path root) throws Exception {
        LinuxSeccomp a = profile("SCMP_ACT_ERRNO", null);
        LinuxSeccomp b = profile("SCMP_ACT_KILL", null);
        SeccompCache cache = new SeccompCache(root);
        byte[] keyA = SeccompCache.key(a, Arch.nativeArch());
        byte[] keyB = SeccompCache.key(b, Arch.nativeArch());
        cache.store(keyB, SeccompCompiler.compile(b, Arch.nativeArch()));
        Path dir = root.resolve(SeccompCache.DIRECTORY);
        Files.move(dir.resolve(SeccompCache.fileName(keyB)), dir.resolve(SeccompCache.fileName(keyA)));
        assertNull(cache.load(keyA));
        cache.store(keyA, SeccompCompiler.compile(a, Arch.nativeArch()));
        byte[] whole = Files.readAllBytes(dir.resolve(SeccompCache.fileName(keyA)));
        Files.write(dir.resolve(SeccompCache.fileName(keyA)), Arrays.copyOf(whole, whole.length - 3));
        assertNull(cache.load(keyA));
    }
}
