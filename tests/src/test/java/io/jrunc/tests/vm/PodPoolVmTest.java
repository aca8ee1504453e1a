package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The warm pool (`[pool] size` in the configuration file): `pod pool` boots the pool's pod and waits
 * for it; a `run` without --pod takes that pod (its VM already up) instead of booting one, with the
 * container's name as the pod's hostname, and the pod goes with the container; the command then
 * fills the pool again in the background; `pod pool --drain` ends the pool's pods and leaves no
 * process. Bad configurations are refused in one line with nothing made. Two boots (the pool's pod
 * and its replacement). Needs what PodVmTest needs (VmHost).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PodPoolVmTest {
    static Path work;
    static Path bundle;
    static Path config;
    static JruncVm vm;
    /** The pod `pod pool` booted, which the run takes. */
    static String first;
    /** The pod the background fill booted after the run. */
    static String second;

    @BeforeAll
    static void setUp() throws IOException {
        VmHost.requirePods();
        work = Files.createTempDirectory("jrunc-vm-pool");
        vm = new JruncVm(work);
        bundle = PodVmTest.busyboxBundle(work.resolve("bundle"));
        config = Files.writeString(work.resolve("config.toml"), "[pool]\nsize = 1\n");
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (vm != null) {
            // a fill the run started may still be making its pod: the drain waits for it
            vm.run("--config", config.toString(), "pod", "pool", "--drain");
            vm.removePodsAndWork();
        }
    }

    static JsonNode pods() throws Exception {
        return vm.json("pod", "ls", "--format", "json");
    }

    static JruncVm.Result withConfig(Path file, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--config", file.toString()));
        all.addAll(List.of(args));
        return vm.run(all.toArray(String[]::new));
    }

    @Test
    @Order(1)
    void aConfigurationWithoutAPoolFillsNothing() throws Exception {
        Path none = Files.writeString(work.resolve("none.toml"), "[container]\nmemory = \"64m\"\n");
        JruncVm.Result r = withConfig(none, "pod", "pool");
        assertEquals(125, r.code(), r.all());
        assertTrue(r.err().strip().startsWith("jrunc-vm: no pool to fill") && r.err().strip().lines().count() == 1, r.all());

        Path tooMany = Files.writeString(work.resolve("many.toml"), "[pool]\nsize = 100\n");
        r = withConfig(tooMany, "pod", "pool");
        assertEquals(125, r.code(), r.all());
        assertTrue(r.err().contains("pool.size") && r.err().contains(tooMany.toString()), r.all());
        // a run refused on its configuration file makes nothing either
        r = withConfig(tooMany, "run", "--rm", bundle.toString(), "true");
        assertEquals(125, r.code(), r.all());
        assertEquals(0, pods().size(), "no pod made");
    }

    @Test
    @Order(2)
    void poolBootsItsPodAndWaitsForIt() throws Exception {
        JruncVm.Result r = withConfig(config, "pod", "pool");
        assertEquals(0, r.code(), r.all() + "\n" + vm.vmLogs());
        first = r.out().strip();
        assertTrue(first.startsWith("anon-") && first.lines().count() == 1, r.all());
        JsonNode pods = pods();
        assertEquals(1, pods.size(), pods.toString());
        assertEquals(first, pods.get(0).path("name").asText());
        assertEquals("running", pods.get(0).path("state").asText(), "it returns once the pod serves");
        assertTrue(pods.get(0).path("pooled").asBoolean() && pods.get(0).path("anonymous").asBoolean(), pods.toString());
        // the table says so too: a pooled pod is no user's yet
        List<String> table = vm.ok("pod", "ls").out().lines().toList();
        assertTrue(table.get(1).matches(first + " +running \\(pooled\\) +1 +512m +0"), String.join("\n", table));
        // a full pool is left as it is
        r = withConfig(config, "pod", "pool");
        assertEquals(first, r.out().strip(), r.all());
        assertEquals(1, pods().size());
    }

    @Test
    @Order(3)
    void aRunWithoutPodTakesThePooledPodAndTheCommandFillsThePoolAgain() throws Exception {
        JruncVm.Result r = withConfig(config, "run", "--rm", "--name", "c1", bundle.toString(), "sh", "-c",
                "hostname; cat /etc/hostname; cat /etc/hosts");
        assertEquals(0, r.code(), r.all() + "\n" + vm.vmLogs());
        List<String> lines = r.out().lines().toList();
        assertEquals("c1", lines.get(0), "the pod's hostname is the container's name: " + r.out());
        assertEquals("c1", lines.get(1), r.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("\\S+\\s+c1(\\s.*)?")), "c1 in the pod's hosts file: " + r.out());
        // the pooled pod was the run's: it went with its container (a pod booted for the run would have
        // left the pooled one as it was)
        List<String> names = new ArrayList<>();
        long deadline = System.nanoTime() + 60_000_000_000L;
        JsonNode pods;
        while (true) {
            pods = pods();
            names.clear();
            pods.forEach(p -> names.add(p.path("name").asText()));
            if (!names.isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            Thread.sleep(200);
        }
        assertFalse(names.contains(first), "the pooled pod " + first + " went with c1: " + pods);
        // the background fill made its replacement
        assertEquals(1, pods.size(), "the pool filled again: " + pods + "\n" + log());
        second = names.getFirst();
        assertNotEquals(first, second);
        assertTrue(pods.get(0).path("pooled").asBoolean(), pods.toString());
    }

    @Test
    @Order(4)
    void drainEndsThePoolsPodsAndLeavesNothing() throws Exception {
        // waits for the background fill's boot (a pod still booting is drained the same way)
        JruncVm.Result r = withConfig(config, "pod", "pool");
        assertEquals(second, r.out().strip(), r.all() + "\n" + vm.vmLogs());
        assertEquals("running", pods().get(0).path("state").asText());
        // the background fill printed the pod it made, once it held the pool's lock no longer
        assertTrue(log().contains(second), "the fill's log names the pod it made: " + log());
        r = withConfig(config, "pod", "pool", "--drain");
        assertEquals(0, r.code(), r.all());
        assertEquals(second, r.out().strip());
        assertEquals(0, pods().size());
        assertEquals(List.of(), ShimVmBackendTest.processes("qemu-system", vm.root().toString()), "no qemu");
        assertEquals(List.of(), ShimVmBackendTest.processes("java", vm.root().toString()), "no monitor, no fill");
        try (Stream<Path> left = Files.list(vm.root().resolve("pods"))) {
            assertEquals(List.of(), left.toList(), "no pod directory");
        }
    }

    static String log() throws IOException {
        Path log = vm.root().resolve("pool.log");
        return Files.exists(log) ? Files.readString(log) : "(no pool.log)";
    }
}
