package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A pod's shared swap area and per-container swap caps, on one real boot, read back from the guest
 * kernel: /proc/swaps, /sys/block/DEV/queue/rotational, the containers' cgroup
 * files (their bundle mounts cgroup2 at /sys/fs/cgroup, which in their cgroup namespace is their own
 * cgroup), and the host file's allocated blocks (stat -c %b: st_blocks, which java.nio does not show).
 * The hogs write /dev/urandom into the container's /tmp (a tmpfs: its pages are charged to the
 * container's memory cgroup and can go to swap); random data, because newer kernels keep zero-filled
 * pages out of swap. The figures of docs/PERFORMANCE.md are printed with the prefix "swap-figure:".
 * Needs what PodVmTest needs (VmHost).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SwapVmTest {
    static final Path IMAGE = PodVmTest.IMAGE;
    static final String POD = "swap-pod";
    static final long MIB = 1 << 20;
    static final long CAP = 64 * MIB;

    static Path work;
    static Path root;
    static Path bundle;
    static Path swapFile;
    /** The configuration file given with `--config` to the pod's create and to two containers' (jrunc-vm's TOML file). */
    static Path config;
    static JruncVm vm;
    static long peakBlocks;

    @BeforeAll
    static void setUp() throws IOException {
        VmHost.requirePods();
        work = Files.createTempDirectory("jrunc-vm-swap");
        vm = new JruncVm(work);
        root = vm.root();
        bundle = bundle(work.resolve("bundle"));
        swapFile = root.resolve("pods").resolve(POD).resolve("swap.img");
        config = Files.writeString(work.resolve("config.toml"), """
                [pod]
                swap = "256m"
                [container]
                memory = "48m"
                cpus = 0.5
                swap = "16m"
                """);
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (root != null && Files.exists(root)) {
            for (JsonNode p : JruncVm.JSON.readTree(vm.run("pod", "ls", "--format", "json").out())) {
                vm.run("pod", "rm", "-f", p.path("name").asText());
            }
        }
        if (work != null) {
            io.jrunc.bindings.FileTrees.delete(work); // the bundles, the calls' output files, the state root
        }
    }

    /** PodVmTest's busybox bundle with dd and rm, and the container's own cgroup at /sys/fs/cgroup. */
    static Path bundle(Path dir) throws IOException {
        PodVmTest.busyboxBundle(dir);
        Path bin = dir.resolve("rootfs/bin");
        for (String applet : List.of("dd", "rm", "head")) {
            if (!Files.exists(bin.resolve(applet), java.nio.file.LinkOption.NOFOLLOW_LINKS)) { // PodVmTest's may have it
                Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
            }
        }
        Files.createDirectories(dir.resolve("rootfs/sys/fs/cgroup"));
        String config = Files.readString(dir.resolve("config.json")).replace(
                "{\"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": [\"size=1g\"]}",
                "{\"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": [\"size=1g\"]},\n"
                        + " {\"destination\": \"/sys/fs/cgroup\", \"type\": \"cgroup2\", \"source\": \"cgroup\", \"options\": [\"nosuid\", \"noexec\", \"nodev\"]}");
        assertTrue(config.contains("cgroup2"));
        Files.writeString(dir.resolve("config.json"), config);
        return dir;
    }

    static JruncVm.Result ok(String... args) throws Exception {
        return vm.ok(args);
    }

    static long cgroup(String container, String file) throws Exception {
        return Long.parseLong(read(container, "/sys/fs/cgroup/" + file));
    }

    /** memory.max and memory.swap.max of the container, in one exec (each CLI call is a JVM start). */
    static List<String> limits(String container) throws Exception {
        return read(container, "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.swap.max").lines().toList();
    }

    static String read(String container, String... files) throws Exception {
        List<String> args = new ArrayList<>(List.of("exec", container, "cat"));
        args.addAll(List.of(files));
        return ok(args.toArray(String[]::new)).out().strip();
    }

    static long eventCount(String container, String event) throws Exception {
        for (String line : read(container, "/sys/fs/cgroup/memory.events").split("\n")) {
            if (line.startsWith(event + " ")) {
                return Long.parseLong(line.substring(event.length() + 1).strip());
            }
        }
        throw new AssertionError("no " + event + " in memory.events");
    }

    /** The guest's /proc/swaps data lines. */
    static List<String[]> swaps() throws Exception {
        List<String[]> lines = new ArrayList<>();
        for (String line : read("capped", "/proc/swaps").split("\n")) {
            if (!line.startsWith("Filename")) {
                lines.add(line.trim().split("\\s+"));
            }
        }
        return lines;
    }

    /** st_blocks of the host's swap file (512-byte units). */
    static long blocks() throws Exception {
        Process p = new ProcessBuilder("stat", "-c", "%b", swapFile.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return Long.parseLong(out);
    }

    /** Runs a hog by exec; samples the host file's allocated size while it runs. */
    static JruncVm.Result hog(String container, int mib, List<String> samples) throws Exception {
        AtomicBoolean done = new AtomicBoolean();
        long t0 = System.nanoTime();
        Thread sampler = Thread.ofVirtual().start(() -> {
            while (!done.get()) {
                try {
                    samples.add(String.format("| %.1f | %d |", (System.nanoTime() - t0) / 1e9, blocks() * 512 / MIB));
                    Thread.sleep(500);
                } catch (Exception e) {
                    return;
                }
            }
        });
        // the guest's /proc/uptime before and after (on stderr) times the hog itself, without the CLI's JVM
        JruncVm.Result r = vm.run("exec", container, "sh", "-c", "read a x < /proc/uptime; dd if=/dev/urandom of=/tmp/hog bs=1M count="
                + mib + " 2>/dev/null && read b x < /proc/uptime && echo $a $b >&2 && cat /sys/fs/cgroup/memory.swap.current");
        done.set(true);
        sampler.join();
        String[] uptimes = r.err().strip().split("\\s+");
        String inGuest = uptimes.length == 2 ? String.format("%.2f s", Double.parseDouble(uptimes[1]) - Double.parseDouble(uptimes[0])) : "?";
        System.out.printf("swap-figure: hog of %d MiB in %s: %s in the guest, %.1f s through exec (exit %d)%n", mib, container,
                inGuest, (System.nanoTime() - t0) / 1e9, r.code());
        return r;
    }

    @Test
    @Order(1)
    void thePodsAreaIsListedOnceAndNonRotational() throws Exception {
        // the area's size from the configuration file's [pod] swap (no --swap)
        assertEquals(POD + "\n", ok("--config", config.toString(), "pod", "create", "--name", POD).out());
        ok("create", "--pod", POD, "--name", "capped", "--memory", "32m", "--swap", "64m", bundle.toString(), "sleep", "100000");
        ok("create", "--pod", POD, "--name", "free", "--memory", "32m", bundle.toString(), "sleep", "100001");
        ok("start", "capped");
        ok("start", "free");

        List<String[]> areas = swaps();
        assertEquals(1, areas.size(), "one area: " + read("capped", "/proc/swaps"));
        String device = areas.get(0)[0];
        // 256 MiB less the header page, in KiB
        assertEquals(256 * 1024 - 4, Long.parseLong(areas.get(0)[2]), String.join(" ", areas.get(0)));
        String dev = device.substring("/dev/".length());
        assertEquals("0", read("capped", "/sys/block/" + dev + "/queue/rotational"));
        assertEquals("jrunc-swap", read("capped", "/sys/block/" + dev + "/serial"));

        JsonNode swap = vm.json("pod", "inspect", POD).path("swap");
        assertEquals(device, swap.path("device").asText(), swap.toString());
        assertEquals(256 * MIB, swap.path("sizeBytes").asLong(), swap.toString());
        assertEquals(256 * MIB, Files.size(swapFile), "the host file is the area's size");
        assertTrue(blocks() * 512 < MIB, "the host file is sparse: " + blocks() + " blocks");
        String console = Files.readString(root.resolve("pods").resolve(POD).resolve("console.log"));
        console.lines().filter(l -> l.contains("swap area")).forEach(l -> System.out.println("swap-figure: " + l.strip()));
    }

    @Test
    @Order(2)
    void capsReadBackFromTheGuestsCgroupsAndACapWithoutMemoryIsRefused() throws Exception {
        assertEquals(List.of("33554432", "67108864"), limits("capped"));
        assertEquals(List.of("33554432", "max"), limits("free"));

        JruncVm.Result refused = vm.run("create", "--pod", POD, "--name", "nomem", "--swap", "64m", bundle.toString());
        assertEquals(125, refused.code(), refused.all());
        assertEquals(1, refused.err().strip().lines().count(), refused.err());
        assertTrue(refused.err().contains("--swap") && refused.err().contains("memory limit"), refused.err());
        assertFalse(Files.exists(root.resolve("pods").resolve(POD).resolve("containers").resolve("nomem")));
        JruncVm.Result anonymous = vm.run("create", "--name", "nomem", "--swap", "64m", bundle.toString());
        assertEquals(125, anonymous.code(), anonymous.all());
        assertEquals(1, vm.json("pod", "ls", "--format", "json").size(), "no anonymous pod was made");
        assertEquals(2, vm.json("ls", "--format", "json").size());

        ok("update", "--swap", "96m", "capped");
        assertEquals(List.of("33554432", "100663296"), limits("capped"), "a swap-only update keeps the memory limit");
        ok("update", "--memory", "48m", "capped");
        assertEquals(List.of("50331648", "100663296"), limits("capped"), "a memory-only update keeps the cap");
        ok("update", "--memory", "32m", "--swap", "64m", "capped");
        assertEquals(List.of("33554432", "67108864"), limits("capped"));
    }

    @Test
    @Order(3)
    void theConfigFileGivesWhatNoFlagGivesAndABadOneMakesNothing() throws Exception {
        Path bad = Files.writeString(work.resolve("bad.toml"), "[container]\nmemroy = \"1g\"\n");
        for (List<String> call : List.of(List.of("pod", "create", "--name", "never"),
                List.of("create", "--pod", POD, "--name", "never", bundle.toString(), "true"))) {
            List<String> args = new ArrayList<>(List.of("--config", bad.toString()));
            args.addAll(call);
            JruncVm.Result r = vm.run(args.toArray(String[]::new));
            assertEquals(125, r.code(), r.all());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().contains(bad.toString()) && r.err().contains("container.memroy"), r.err());
        }
        assertFalse(Files.exists(root.resolve("pods").resolve("never")), "no pod made");
        assertFalse(Files.exists(root.resolve("pods").resolve(POD).resolve("containers").resolve("never")), "no container made");
        assertEquals(1, vm.json("pod", "ls", "--format", "json").size());

        // [container] memory 48m, cpus 0.5, swap 16m where no flag says otherwise; flags win
        String c = config.toString();
        ok("--config", c, "create", "--pod", POD, "--name", "fromfile", bundle.toString(), "sleep", "100003");
        ok("--config", c, "create", "--pod", POD, "--name", "flags", "--memory", "40m", "--cpus", "1.5", "--swap", "8m",
                bundle.toString(), "sleep", "100004");
        ok("start", "fromfile");
        ok("start", "flags");
        List<String> files = List.of("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.swap.max", "/sys/fs/cgroup/cpu.max");
        assertEquals(List.of("50331648", "16777216", "50000 100000"), read("fromfile", files.toArray(String[]::new)).lines().toList());
        assertEquals(List.of("41943040", "8388608", "150000 100000"), read("flags", files.toArray(String[]::new)).lines().toList());
        ok("rm", "-f", "fromfile");
        ok("rm", "-f", "flags");
        // and a pod's --swap over the file's [pod] swap (its state: it is never booted)
        ok("--config", c, "pod", "create", "--name", "flagged", "--swap", "128m");
        assertEquals(128 * MIB, vm.json("pod", "inspect", "flagged").path("swap").path("sizeBytes").asLong());
        ok("pod", "rm", "flagged");
    }

    @Test
    @Order(4)
    void aCappedHogOverItsMemorySwapsInsteadOfBeingKilled() throws Exception {
        // the figure's baseline: the same hog in a container with enough memory
        ok("create", "--pod", POD, "--name", "roomy", "--memory", "200m", bundle.toString(), "sleep", "100002");
        ok("start", "roomy");
        JruncVm.Result baseline = hog("roomy", 80, new ArrayList<>());
        assertEquals(0, baseline.code(), baseline.all());
        assertEquals(0, Long.parseLong(baseline.out().strip()), "with enough memory nothing is swapped");
        ok("rm", "-f", "roomy");

        List<String> samples = new ArrayList<>();
        JruncVm.Result r = hog("capped", 80, samples);
        assertEquals(0, r.code(), "the hog finished: " + r.all());
        long swapped = Long.parseLong(r.out().strip());
        System.out.println("swap-figure: capped hog's memory.swap.current " + swapped / MIB + " MiB; host file (s, MiB allocated):");
        samples.forEach(s -> System.out.println("swap-figure: " + s));
        assertTrue(swapped > 40 * MIB, "80 MiB in 32 MiB of memory: most of it in swap, " + swapped);
        assertTrue(swapped <= CAP, "within the cap: " + swapped);
        assertEquals(0, eventCount("capped", "oom_kill"));
    }

    @Test
    @Order(5)
    void aHogOverMemoryAndCapIsOomKilledAndTheRestRuns() throws Exception {
        ok("create", "--pod", POD, "--name", "oom", "--memory", "32m", "--swap", "64m", bundle.toString(),
                "dd", "if=/dev/urandom", "of=/tmp/x", "bs=1M", "count=128");
        ok("start", "oom");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        JsonNode c;
        while (!(c = vm.json("inspect", "oom")).path("state").asText().equals("stopped")) {
            assertTrue(System.nanoTime() < deadline, "the hog still runs: " + c);
            Thread.sleep(500);
        }
        assertEquals(137, c.path("exitCode").asInt(), c.toString());
        JsonNode stats = vm.json("stats", "oom").path("memory");
        assertTrue(stats.path("events").path("oomKill").asLong() >= 1, stats.toString());
        assertEquals(CAP, stats.path("swapMax").asLong(), stats.toString());
        assertEquals("alive\n", ok("exec", "capped", "echo", "alive").out());
        assertEquals("alive\n", ok("exec", "free", "echo", "alive").out());
        assertEquals(0, eventCount("capped", "oom_kill"));
        ok("rm", "-f", "oom");
    }

    @Test
    @Order(6)
    void twoContainersShareTheAreaAndTheCapHoldsOneToItsShare() throws Exception {
        JruncVm.Result r = hog("free", 120, new ArrayList<>());
        assertEquals(0, r.code(), r.all());
        long free = Long.parseLong(r.out().strip());
        long capped = cgroup("capped", "memory.swap.current");
        assertTrue(free > CAP, "the uncapped container uses more than the other's cap: " + free);
        assertTrue(capped <= CAP, "the capped one stays within its cap: " + capped);
        long used = Long.parseLong(swaps().get(0)[3]) * 1024;
        // /proc/swaps counts slots in use, the cgroups the swap they are charged: equal but for pages
        // in flight (swap cache being written, freed slots in per-CPU caches). 8 MiB or 10%.
        long sum = free + capped;
        assertTrue(Math.abs(used - sum) <= Math.max(8 * MIB, sum / 10), "area use " + used + " vs sum " + sum);
        peakBlocks = blocks();
        System.out.printf("swap-figure: area use %d MiB, containers %d + %d MiB, host file %d MiB allocated%n",
                used / MIB, capped / MIB, free / MIB, peakBlocks * 512 / MIB);
        assertTrue(peakBlocks * 512 >= used * 8 / 10, "the host file holds what was swapped: " + peakBlocks);
    }

    @Test
    @Order(7)
    void discardGivesTheHostFilesBlocksBackAndNotWithRotationalLeftAt1() throws Exception {
        ok("exec", "capped", "rm", "/tmp/hog");
        ok("exec", "free", "rm", "/tmp/hog");
        long t0 = System.nanoTime();
        long after = waitForBlocksAtMost(peakBlocks / 2, 60);
        System.out.printf("swap-figure: host file after the hogs: %d MiB (peak %d MiB), %.1f s after the second rm%n",
                after * 512 / MIB, peakBlocks * 512 / MIB, (System.nanoTime() - t0) / 1e9);
        assertTrue(after <= peakBlocks / 2, "discards reached the host: " + after + " blocks of " + peakBlocks);

        // the contrast, once: the same area enabled again with rotational left at 1, by a container
        // allowed to (CAP_SYS_ADMIN, the device, the disk's queue directory), with the agent's own
        // discard flags; the agent's protocol has no way to do this, and needs none
        String dev = swaps().get(0)[0].substring("/dev/".length());
        ok("create", "--pod", POD, "--name", "swapadmin", adminBundle(work.resolve("admin"), dev).toString(),
                "sleep", "100003");
        ok("start", "swapadmin");
        ok("exec", "swapadmin", "sh", "-c", "swapoff /dev/" + dev + " && echo 1 > /swapqueue/rotational && swapon -dpages /dev/"
                + dev);
        // swapadmin runs on to the pod's stop: /proc/swaps names the area by the path it was enabled
        // under, in swapadmin's mount namespace, and shows "/" once that namespace is gone
        assertEquals(List.of("/dev/" + dev), swaps().stream().map(a -> a[0]).toList(), "the same area, enabled again");
        assertEquals("1", read("capped", "/sys/block/" + dev + "/queue/rotational"));
        JruncVm.Result r = hog("free", 100, new ArrayList<>());
        assertEquals(0, r.code(), r.all());
        long peak = blocks();
        ok("exec", "free", "rm", "/tmp/hog");
        // with rotational 0 the file had fallen by the time the rm call returned (docs/PERFORMANCE.md):
        // 5 s more is ample for discards that would come
        long kept = waitForBlocksAtMost(peak / 2, 5);
        System.out.printf("swap-figure: rotational 1: host file %d MiB at the peak, %d MiB after%n", peak * 512 / MIB, kept * 512 / MIB);
        assertTrue(peak * 512 > 40 * MIB, "the hog swapped: " + peak);
        assertTrue(kept > peak * 9 / 10, "without clusters no discard: " + kept + " of " + peak);
    }

    /**
     * The bundle of a container that may switch the pod's area off and on: CAP_SYS_ADMIN (swapoff and
     * swapon), the device bound in at its guest path with the device cgroup letting it through, the disk's sysfs queue
     * directory bound writable at /swapqueue, and busybox's swapoff and swapon.
     */
    static Path adminBundle(Path dir, String dev) throws IOException {
        bundle(dir);
        Path rootfs = dir.resolve("rootfs");
        for (String applet : List.of("swapon", "swapoff")) {
            Files.createSymbolicLink(rootfs.resolve("bin").resolve(applet), Path.of("busybox"));
        }
        Files.createDirectories(rootfs.resolve("swapqueue"));
        String caps = "[\"CAP_KILL\", \"CAP_NET_BIND_SERVICE\", \"CAP_AUDIT_WRITE\"]";
        String config = Files.readString(dir.resolve("config.json"))
                .replace(caps, "[\"CAP_KILL\", \"CAP_NET_BIND_SERVICE\", \"CAP_AUDIT_WRITE\", \"CAP_SYS_ADMIN\"]")
                .replace("\"mounts\": [", "\"mounts\": [{\"destination\": \"/swapqueue\", \"type\": \"bind\", \"source\": \"/sys/block/"
                        + dev + "/queue\", \"options\": [\"bind\", \"rw\"]},\n")
                .replace("\"linux\": {", "\"linux\": {\"resources\": {\"devices\": [{\"allow\": true, \"access\": \"rwm\"}]},\n");
        // after /dev's tmpfs, so the device's mount point is made in it
        config = config.replace("\"options\": [\"nosuid\", \"strictatime\", \"mode=755\", \"size=65536k\"]},",
                "\"options\": [\"nosuid\", \"strictatime\", \"mode=755\", \"size=65536k\"]},\n {\"destination\": \"/dev/" + dev
                        + "\", \"type\": \"bind\", \"source\": \"/dev/" + dev + "\", \"options\": [\"bind\"]},");
        for (String wanted : List.of("CAP_SYS_ADMIN", "/swapqueue", "\"destination\": \"/dev/" + dev, "\"allow\": true")) {
            assertTrue(config.contains(wanted), wanted + " in " + config);
        }
        Files.writeString(dir.resolve("config.json"), config);
        return dir;
    }

    static long waitForBlocksAtMost(long limit, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long b;
        while ((b = blocks()) > limit && System.nanoTime() < deadline) {
            Thread.sleep(500);
        }
        return b;
    }


    @Test
    @Order(8)
    void thePodRemovedTakesTheSwapFile() throws Exception {
        assertTrue(Files.exists(swapFile));
        long monitorPid = vm.json("pod", "inspect", POD).path("monitorPid").asLong();
        ok("pod", "stop", "-t", "0", POD); // the containers' sleeps ignore SIGTERM: no grace to wait out
        ProcessHandle.of(monitorPid).ifPresent(h -> h.onExit().join()); // it deletes the file as it ends
        assertFalse(Files.exists(swapFile), "scratch: deleted when the VM ends, made afresh at the next boot");
        ok("pod", "rm", "-f", POD);
        assertFalse(Files.exists(swapFile.getParent()), "the pod's state is gone");
    }

    /**
     * A container without --pod (a second boot): its anonymous pod exists while the container does,
     * and its area is the container's --swap, all of which it may use; `run --rm` takes the pod with
     * it and leaves nothing in the state root. The anonymous pod's rule and its swap area's, on one boot.
     */
    @Test
    @Order(9)
    void anAnonymousPodsAreaIsTheContainersSwapAndGoesWithIt() throws Exception {
        Path out = work.resolve("lone.out");
        Path err = work.resolve("lone.err");
        Process run = new ProcessBuilder(JruncVm.BIN.toString(), "--root", root.toString(), "run", "--rm", "--name",
                "lone", "--memory", "32m", "--swap", "16m", bundle.toString(),
                "sh", "-c", "cat /proc/swaps /sys/fs/cgroup/memory.swap.max; sleep 2")
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            JsonNode pods = vm.json("pod", "ls", "--format", "json");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (pods.isEmpty() && run.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(200);
                pods = vm.json("pod", "ls", "--format", "json");
            }
            assertEquals(1, pods.size(), pods.toString());
            assertTrue(pods.get(0).path("anonymous").asBoolean(), "the container's pod is anonymous: " + pods);
            assertTrue(run.waitFor(5, TimeUnit.MINUTES), "run --rm did not end");
        } finally {
            run.destroyForcibly();
        }
        String text = Files.readString(out);
        assertEquals(0, run.exitValue(), text + Files.readString(err));
        List<String> lines = text.strip().lines().toList();
        assertEquals(3, lines.size(), text);
        assertEquals(Long.toString(16 * 1024 - 4), lines.get(1).trim().split("\\s+")[2], "a 16 MiB area: " + text);
        assertEquals(Long.toString(16 * MIB), lines.get(2), "capped at all of it");
        assertEquals(0, vm.json("pod", "ls", "--format", "json").size(), "the anonymous pod went with the container");
        try (java.util.stream.Stream<Path> left = Files.list(root.resolve("pods"))) {
            assertEquals(List.of(), left.toList(), "nothing left of the anonymous pod");
        }
    }
}
