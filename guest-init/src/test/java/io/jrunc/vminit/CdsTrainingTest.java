package io.jrunc.vminit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CdsTrainingTest {
    /** The pod's set-up requests and a Create's parse back as they were encoded (a mismatch would end the training). */
    @Test
    void parsesTheHostsSetUpRequests() throws Exception {
        assertEquals(3, CdsTraining.exerciseRequests());
    }

    /**
     * The network is configured in a namespace of the training's own (this suite runs as root, as the
     * image build does), and the machine's own network is left as it was.
     */
    @Test
    void configuresANetworkInANamespaceOfItsOwn() throws Exception {
        Path routes = Path.of("/proc/net/route");
        String before = Files.readString(routes);
        assertTrue(CdsTraining.exerciseNetwork());
        assertEquals(before, Files.readString(routes));
    }

    /** The example spec, rewritten for a pod, is one the runtime loads (a refusal would end the image build's training). */
    @Test
    void readsTheExampleSpecAsCreateDoes() throws Exception {
        assertEquals(1, CdsTraining.exerciseSpecs());
    }

    /**
     * A container is made only as PID 1 of the image build's namespaces: run in this suite's JVM, whose
     * mounts and cgroups are the machine's, the step does nothing and says so.
     */
    @Test
    void makesNoContainerOutsideTheBuildsNamespaces() throws Exception {
        String cgroupDir = "/sys/fs/cgroup/" + CgroupSetup.CONTAINERS;
        boolean before = Files.exists(Path.of(cgroupDir));
        assertEquals("no container (not PID 1 of the image build's namespaces: skipped)", CdsTraining.exerciseCreate(null));
        assertEquals(before, Files.exists(Path.of(cgroupDir)));
    }
}
