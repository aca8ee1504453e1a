package io.jrunc.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.vm.config.ConfigFile;
import io.jrunc.vm.qemu.QemuCommand;
import io.jrunc.vm.state.PodRecord;
import io.jrunc.vm.state.StateRoot;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which anonymous pods the warm pool's pods stand for, and what they are made as. */
class PodPoolTest {
    @TempDir
    Path dir;

    private PodPool pool(ConfigFile.Defaults d) {
        return new PodPool(new Pods(new StateRoot(dir), null), d);
    }

    @Test
    void aPooledPodIsWhatAContainerWithoutFlagsGets() throws Exception {
        PodRecord.Config plain = pool(new ConfigFile.Defaults(null, null, null, null, 1)).template("c1");
        assertEquals(1, plain.cpus());
        assertEquals(QemuCommand.DEFAULT_POD_MEMORY, plain.memoryBytes());
        assertEquals(0, plain.swapBytes());
        assertEquals("user", plain.network().mode());
        assertEquals("c1", plain.hostname());
        assertEquals(plain, Containers.anonymousConfig(0, 0, 0, "c1", plain.network()),
                "the same configuration create gives a container with no flags");

        // the file's container defaults size the pool's pods as they size every anonymous pod
        PodRecord.Config sized = pool(new ConfigFile.Defaults(null, 256L << 20, 1.5, 64L << 20, 1)).template("c1");
        assertEquals(2, sized.cpus());
        assertEquals(256L << 20, sized.memoryBytes());
        assertEquals(64L << 20, sized.swapBytes());
    }

    @Test
    void onlyAnEqualPodStandsForAnAnonymousOne() throws Exception {
        PodRecord.Config pooled = pool(new ConfigFile.Defaults(null, null, null, null, 1)).template("anon-1");
        PodRecord.Network other = Pods.NetworkSpec.DEFAULT.resolve();
        PodRecord.Config wanted = Containers.anonymousConfig(0, 0, 0, "c1", other);
        assertTrue(PodPool.same(pooled, wanted), "hostname and the interface's address are the pod's own");
        assertTrue(PodPool.same(pooled, Containers.anonymousConfig(0.5, 0, 0, "c1", other)), "half a CPU is a one-CPU pod");
        assertFalse(PodPool.same(pooled, Containers.anonymousConfig(2, 0, 0, "c1", other)));
        assertFalse(PodPool.same(pooled, Containers.anonymousConfig(0, 300L << 20, 0, "c1", other)));
        assertFalse(PodPool.same(pooled, Containers.anonymousConfig(0, 0, 64L << 20, "c1", other)));
        assertFalse(PodPool.same(pooled, Containers.anonymousConfig(0, 0, 0, "c1", PodRecord.Network.NONE)));
        assertFalse(PodPool.same(pooled, Containers.anonymousConfig(0, 0, 0, "c1",
                new PodRecord.Network("user", List.of("127.0.0.1:18080:80/tcp"), List.of(), List.of(), "", List.of(), "", 0))));
        assertFalse(PodPool.same(pooled, wanted.withImage("/k", "/i")));
        assertFalse(PodPool.same(pooled, new PodRecord.Config(1, wanted.memoryBytes(), "c1", List.of(), List.of(),
                Map.of("net.ipv4.ip_forward", "1"), null, null, 0, other)));
    }

    @Test
    void noPoolTakesNothing() throws Exception {
        PodPool none = pool(ConfigFile.Defaults.BUILT_IN);
        assertFalse(none.enabled());
        assertTrue(none.take(none.template("c1"), "c1").isEmpty());
    }
}
