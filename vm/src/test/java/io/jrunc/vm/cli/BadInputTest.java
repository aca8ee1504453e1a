package io.jrunc.vm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.vm.monitor.MonitorLink;
import io.jrunc.vm.state.ContainerRecord;
import io.jrunc.vm.state.StateRoot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI's bad input: one error line naming the flag, file or name at fault, exit
 * 125, nothing left in the state root, and no monitor (so no qemu) ever started: the starter here
 * fails the test if it is called. The CLI runs in-process through {@link Main#run}.
 */
class BadInputTest {
    @TempDir
    Path tmp;
    Path root;
    Path bundle;
    boolean monitorStarted;

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void setUp() throws IOException {
        root = tmp.resolve("state");
        bundle = tmp.resolve("bundle");
        Files.createDirectories(bundle.resolve("rootfs/bin"));
        Files.writeString(bundle.resolve("config.json"), """
                {"ociVersion": "1.0.2", "process": {"args": ["sh"], "cwd": "/"}, "root": {"path": "rootfs"}}""");
    }

    Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] all = Stream.concat(Stream.of("--root", root.toString()), Stream.of(args)).toArray(String[]::new);
        MonitorLink.Starter starter = (r, pod) -> {
            monitorStarted = true;
            throw new IOException("this test starts no monitor");
        };
        int code = Main.run(all, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), starter);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    Set<String> stateFiles() throws IOException {
        if (!Files.exists(root)) {
            return Set.of();
        }
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> !p.equals(root) && !p.getFileName().toString().equals("lock"))
                    .map(p -> root.relativize(p).toString()).collect(Collectors.toSet());
        }
    }

    /** Runs a bad command: 125, one line naming {@code named}, the state root as it was, no monitor. */
    void refused(String named, String... args) throws IOException {
        Set<String> before = stateFiles();
        Result r = run(args);
        assertEquals(125, r.code(), String.join(" ", args) + ": " + r.err());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertTrue(r.err().startsWith("jrunc-vm: ") && r.err().contains(named), "names " + named + ": " + r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "no stack trace: " + r.err());
        assertEquals(before, stateFiles(), "nothing left behind by " + String.join(" ", args));
        assertFalse(monitorStarted, "no monitor (and so no qemu) started");
        try (Stream<Path> s = Files.walk(tmp)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().endsWith(".img")), "no image file left");
        }
    }

    @Test
    void missingBundle() throws IOException {
        refused("nope", "create", "--name", "c1", tmp.resolve("nope").toString());
        refused("nope", "run", tmp.resolve("nope").toString());
    }

    @Test
    void configThatDoesNotParse() throws IOException {
        Files.writeString(bundle.resolve("config.json"), "{\"process\": [1,");
        refused("config.json", "create", "--name", "c1", bundle.toString());
    }

    @Test
    void missingConfig() throws IOException {
        Files.delete(bundle.resolve("config.json"));
        refused("config.json", "create", bundle.toString());
    }

    @Test
    void sysctlInTheBundleIsRefused() throws IOException {
        Files.writeString(bundle.resolve("config.json"), """
                {"process": {"args": ["sh"]}, "root": {"path": "rootfs"}, "linux": {"sysctl": {"kernel.shmmax": "1"}}}""");
        refused("linux.sysctl", "create", bundle.toString());
    }

    @Test
    void aSwapCapWithoutAMemoryLimitMakesNothing() throws Exception {
        refused("--swap", "create", "--name", "c1", "--swap", "64m", bundle.toString());
        refused("--swap", "run", "--swap", "64m", bundle.toString());
        assertEquals(0, run("pod", "create", "--name", "p1").code());
        refused("--swap", "create", "--pod", "p1", "--name", "c1", "--swap", "64m", bundle.toString());
        refused("nocontainer", "update", "--swap", "64m", "nocontainer");
        refused("nothing to change", "update", "nocontainer");
    }

    @Test
    void badSwapSizes() throws IOException {
        refused("--swap", "pod", "create", "--name", "p1", "--swap", "lots");
        refused("--swap", "pod", "create", "--name", "p1", "--swap", "4k");
        refused("--swap", "create", "--memory", "32m", "--swap", "4k", bundle.toString());
    }

    @Test
    void aConfigFileThatDoesNotParseOrHasAnUnknownKey() throws IOException {
        Path bad = Files.writeString(tmp.resolve("bad.toml"), "[pod\n");
        refused("bad.toml", "--config", bad.toString(), "pod", "create", "--name", "p1");
        Path unknown = Files.writeString(tmp.resolve("unknown.toml"), "[container]\nswapp = \"1g\"\n");
        refused("container.swapp", "--config", unknown.toString(), "create", "--memory", "32m", bundle.toString());
        refused("absent.toml", "--config", tmp.resolve("absent.toml").toString(), "pod", "create");
        // the file's [container] swap with no memory limit anywhere is refused as the flag is
        Path swapOnly = Files.writeString(tmp.resolve("swap.toml"), "[container]\nswap = \"64m\"\n");
        refused("--swap", "--config", swapOnly.toString(), "create", bundle.toString());
    }

    @Test
    void aRootfsShareWithALayerSizeOrAPathVirtiofsdCannotTakeMakesNothing() throws IOException {
        refused("--layer-size", "create", "--rootfs-share", "--layer-size", "2g", bundle.toString());
        refused("--layer-size", "run", "--rootfs-share", "--layer-size", "2g", bundle.toString());
        Path comma = tmp.resolve("a,b/bundle");
        Files.createDirectories(comma.resolve("rootfs"));
        Files.copy(bundle.resolve("config.json"), comma.resolve("config.json"));
        refused("--rootfs-share", "create", "--name", "c1", "--rootfs-share", comma.toString());
    }

    @Test
    void unknownPod() throws IOException {
        refused("nopod", "create", "--pod", "nopod", "--name", "c1", bundle.toString());
        refused("nopod", "pod", "start", "nopod");
        refused("nopod", "pod", "inspect", "nopod");
        refused("nopod", "pod", "rm", "nopod");
        refused("nocontainer", "start", "nocontainer");
        refused("nocontainer", "logs", "nocontainer");
    }

    @Test
    void duplicateNames() throws Exception {
        Result first = run("pod", "create", "--name", "p1");
        assertEquals(0, first.code(), first.err());
        assertEquals("p1\n", first.out());
        refused("p1", "pod", "create", "--name", "p1");
        // a container of that name in p1 (written directly: making one needs a VM)
        new StateRoot(root).write(new ContainerRecord("c1", "p1", bundle.toString(), "jr00", List.of(), 0, "stopped", 0));
        refused("c1", "create", "--pod", "p1", "--name", "c1", bundle.toString());
        refused("c1", "create", "--name", "c1", bundle.toString()); // no anonymous pod left behind either
    }

    /** Every file and directory under the state root, with the files' bytes. */
    java.util.Map<String, String> snapshot() throws IOException {
        java.util.Map<String, String> all = new java.util.TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.toList()) {
                all.put(root.relativize(p).toString(), Files.isDirectory(p) ? "dir"
                        : java.util.HexFormat.of().formatHex(Files.readAllBytes(p)));
            }
        }
        return all;
    }

    @Test
    void aNameThatBreaksTheRuleIsRefusedByEveryVerbBeforeItTouchesAPath() throws Exception {
        // Another pod's container, reachable through ".." if a name were used as a path unchecked.
        assertEquals(0, run("pod", "create", "--name", "p1").code());
        assertEquals(0, run("pod", "create", "--name", "other").code());
        StateRoot state = new StateRoot(root);
        for (String[] c : new String[][] {{"c1", "p1"}, {"victim", "other"}}) {
            state.write(new ContainerRecord(c[0], c[1], bundle.toString(), "jr0" + c[0], List.of("sh"), 0, "stopped", 0));
            Files.writeString(state.containerDir(c[1], c[0]).resolve("config.json"), "{}");
            Files.writeString(state.containerDir(c[1], c[0]).resolve("stdout.log"), "out of " + c[0] + "\n");
        }
        List<String> containerNames = List.of("../../pods/other/containers/victim", "../other/containers/victim", "..", ".",
                "c1/..", "../../pods/p1/containers/c1");
        List<String> podNames = List.of("../pods/other", "../other", "..", ".", "p1/../other", "other/.");
        java.util.Map<String, String> before = snapshot();
        List<String[]> calls = new java.util.ArrayList<>();
        for (String c : containerNames) {
            for (String[] verb : new String[][] {{"start"}, {"stop"}, {"stop", "-t", "0"}, {"kill"}, {"kill", "-s", "TERM"},
                    {"rm"}, {"rm", "-f"}, {"inspect"}, {"logs"}, {"stats"}, {"update", "--memory", "64m"}}) {
                calls.add(Stream.concat(Stream.of(verb), Stream.of(c)).toArray(String[]::new));
            }
            calls.add(new String[] {"exec", c, "true"});
            calls.add(new String[] {"create", "--pod", "p1", "--name", c, bundle.toString()});
            calls.add(new String[] {"run", "--name", c, bundle.toString()});
        }
        for (String p : podNames) {
            for (String[] verb : new String[][] {{"pod", "start"}, {"pod", "stop"}, {"pod", "stop", "-t", "0"}, {"pod", "rm"},
                    {"pod", "rm", "-f"}, {"pod", "rm", "-f", "-t", "0"}, {"pod", "inspect"}}) {
                calls.add(Stream.concat(Stream.of(verb), Stream.of(p)).toArray(String[]::new));
            }
            calls.add(new String[] {"pod", "create", "--name", p});
            calls.add(new String[] {"create", "--pod", p, "--name", "c9", bundle.toString()});
            calls.add(new String[] {"run", "--pod", p, bundle.toString()});
        }
        for (String[] args : calls) {
            Result r = run(args);
            String line = String.join(" ", args);
            assertEquals(125, r.code(), line + ": " + r.err());
            assertEquals(1, r.err().lines().count(), line + ": one line: " + r.err());
            assertTrue(r.err().startsWith("jrunc-vm: invalid ") && r.err().contains(" name \""), line + ": " + r.err());
            assertEquals("", r.out(), line);
            assertEquals(before, snapshot(), line + " changed the state root");
        }
        assertFalse(monitorStarted);
    }

    @Test
    void sizesThatDoNotParse() throws IOException {
        refused("--memory", "pod", "create", "--name", "p2", "--memory", "12x");
        refused("--memory", "create", "--name", "c2", "--memory", "lots", bundle.toString());
        refused("--memory", "run", "-m", "1.2.3g", bundle.toString());
    }

    @Test
    void otherBadFlags() throws IOException {
        refused("--add-host", "pod", "create", "--add-host", "nocolon");
        refused("--dns", "pod", "create", "--dns", "not-an-ip");
        refused("--sysctl", "pod", "create", "--sysctl", "novalue");
        refused("pod name", "pod", "create", "--name", "bad/name");
        refused("--kernel", "pod", "create", "--kernel", tmp.resolve("nokernel").toString(), "--initrd", tmp.resolve("x").toString());
        refused("--bogus", "pod", "create", "--bogus");
        refused("--format", "ls", "--format", "yaml");
        refused("--signal", "kill", "-s", "NOTASIG", "c");
    }

    @Test
    void aCreateThatFailsLateLeavesNothingEither() throws IOException {
        // An image that exists (so the early checks pass) and a monitor that cannot start: the container's
        // image file, its directory, and the anonymous pod made for it must all go again.
        Path kernel = Files.writeString(tmp.resolve("vmlinuz"), "not a kernel");
        Path initrd = Files.writeString(tmp.resolve("initramfs.cpio"), "not an initramfs");
        assertEquals(0, run("pod", "create", "--name", "p4", "--kernel", kernel.toString(), "--initrd", initrd.toString()).code());
        Set<String> before = stateFiles();
        Result named = run("create", "--pod", "p4", "--name", "c4", bundle.toString());
        assertEquals(125, named.code(), named.err());
        assertTrue(named.err().contains("monitor") && named.err().contains("p4"), named.err());
        assertTrue(monitorStarted, "this create got as far as starting the VM");
        assertEquals(before, stateFiles(), "the container's directory and image are gone");
        try (Stream<Path> s = Files.walk(tmp)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().endsWith(".img")), "no image file left");
        }
        assertEquals(0, run("pod", "rm", "p4").code());
        assertEquals(Set.of("pods"), stateFiles());
    }

    @Test
    void podRulesThatNeedNoVm() throws Exception {
        StateRoot state = new StateRoot(root);
        assertEquals(0, run("pod", "create", "--name", "named").code());
        state.write(io.jrunc.vm.state.PodRecord.created("anon-1", true, io.jrunc.vm.state.PodRecord.Config.of(1, 1 << 29, "h")));
        state.write(new ContainerRecord("kept", "named", bundle.toString(), "jr01", List.of(), 0, "stopped", 0));

        // a pod with a container is refused without -f, naming it
        Result refusedRm = run("pod", "rm", "named");
        assertEquals(125, refusedRm.code());
        assertTrue(refusedRm.err().contains("\"named\"") && refusedRm.err().contains("-f"), refusedRm.err());
        assertTrue(state.container("kept").isPresent());

        // a pod a create is filling (an anonymous pod exists before its VM does) is not pruned
        try (StateRoot.Held creating = state.creating("anon-1")) {
            Result busy = run("pod", "prune");
            assertEquals("", busy.out(), busy.err());
            assertTrue(state.pod("anon-1").isPresent(), "pruned from under its create");
        }

        // prune takes anonymous pods only, unless --all
        Result prune = run("pod", "prune");
        assertEquals("anon-1\n", prune.out(), prune.err());
        assertTrue(state.pod("named").isPresent());
        assertTrue(state.pod("anon-1").isEmpty());

        // a stopped container keeps its name; rm frees it
        refused("kept", "create", "--pod", "named", "--name", "kept", bundle.toString());
        assertEquals(0, run("rm", "kept").code());
        assertTrue(state.container("kept").isEmpty());

        assertEquals("named\n", run("pod", "prune", "--all").out());
        assertEquals(Set.of("pods"), stateFiles());
        assertFalse(monitorStarted);
    }

    @Test
    void whatACallKilledWhileItWroteAFirstRecordLeftIsRemovedByRmAndPrune() throws Exception {
        // a call SIGKILLed between a new record's .tmp and its rename leaves a directory with no record:
        // no listing shows it, so rm NAME and pod prune must still take it
        assertEquals(0, run("pod", "create", "--name", "named").code());
        Path halfContainer = root.resolve("pods/named/containers/half");
        Files.createDirectories(halfContainer);
        Files.writeString(halfContainer.resolve("container.json.tmp"), "{\"name\": \"ha");
        Path halfPod = root.resolve("pods/anon-2");
        Files.createDirectories(halfPod);
        Files.writeString(halfPod.resolve("pod.json.tmp"), "");
        Path halfNamedPod = root.resolve("pods/halfpod");
        Files.createDirectories(halfNamedPod);
        Files.writeString(halfNamedPod.resolve("pod.json.tmp"), "");
        assertEquals("NAME  POD  STATUS  COMMAND  BUNDLE", run("ls").out().strip());

        Result rm = run("rm", "-f", "half");
        assertEquals(125, rm.code(), rm.err());
        assertTrue(rm.err().contains("\"half\" does not exist"), rm.err());
        assertFalse(Files.exists(halfContainer), "the half-made container's directory");
        assertFalse(Files.exists(root.resolve("pods/named/containers")), "the pod's containers/ with its last one");

        Result podRm = run("pod", "rm", "halfpod");
        assertEquals(125, podRm.code(), podRm.err());
        assertFalse(Files.exists(halfNamedPod), "the half-made pod's directory");

        Result prune = run("pod", "prune");
        assertEquals("anon-2\n", prune.out(), prune.err());
        assertFalse(Files.exists(halfPod), "the half-made anonymous pod's directory");
        assertTrue(new StateRoot(root).pod("named").isPresent(), "a pod with its record stays");
        assertEquals(0, run("pod", "rm", "named").code());
        assertEquals(Set.of("pods"), stateFiles());
    }

    @Test
    void helpOnEveryCommand() {
        for (String[] cmd : new String[][] {{}, {"pod"}, {"pod", "create"}, {"pod", "start"}, {"pod", "stop"}, {"pod", "rm"},
                {"pod", "inspect"}, {"pod", "ls"}, {"pod", "prune"}, {"create"}, {"start"}, {"stop"}, {"kill"}, {"rm"},
                {"ls"}, {"inspect"}, {"logs"}, {"stats"}, {"exec"}, {"run"}, {"cp"}}) {
            String[] args = Stream.concat(Stream.of(cmd), Stream.of("--help")).toArray(String[]::new);
            Result r = run(args);
            assertEquals(0, r.code(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: jrunc-vm"), r.out());
        }
    }

    @Test
    void emptyStateListsNothing() {
        Result pods = run("pod", "ls", "--format", "json");
        assertEquals(0, pods.code(), pods.err());
        assertEquals("[ ]", pods.out().strip());
        Result containers = run("ls");
        assertEquals(0, containers.code(), containers.err());
        assertEquals("NAME  POD  STATUS  COMMAND  BUNDLE", containers.out().strip());
    }

    @Test
    void aPodWithoutAVmIsCreatedThenRemoved() throws IOException {
        assertEquals(0, run("pod", "create", "--name", "p3", "--memory", "256m", "--cpus", "2", "--dns", "10.0.0.1",
                "--add-host", "db:10.0.0.2", "--sysctl", "net.ipv4.ip_forward=1").code());
        Result inspect = run("pod", "inspect", "p3");
        assertEquals(0, inspect.code(), inspect.err());
        assertTrue(inspect.out().contains("\"state\" : \"created\"") && inspect.out().contains("\"memory\" : \"256m\""), inspect.out());
        Result ls = run("pod", "ls");
        assertTrue(ls.out().contains("p3") && ls.out().contains("created"), ls.out());
        assertEquals(0, run("pod", "rm", "p3").code());
        assertEquals(Set.of("pods"), stateFiles());
        assertFalse(monitorStarted);
    }

    /** `cp` refused before any VM is asked: the sides, the container, the paths, a pod that is not running. */
    @Test
    void cpBadInputThatNeedsNoVm() throws Exception {
        assertEquals(0, run("pod", "create", "--name", "p1").code());
        new StateRoot(root).write(new ContainerRecord("c1", "p1", bundle.toString(), "jr0c1", List.of("sh"), 0, "stopped", 0));
        Path file = Files.writeString(tmp.resolve("file"), "x");
        Path dest = Files.createDirectories(tmp.resolve("dest"));
        refused("CONTAINER:PATH", "cp", file.toString(), tmp.resolve("other").toString());
        refused("between containers", "cp", "c1:/x", "c2:/y");
        refused("nosuch", "cp", file.toString(), "nosuch:/x");
        refused("nosuch", "cp", "nosuch:/x", dest.toString());
        refused("bad name", "cp", file.toString(), "bad name:/x");
        refused("empty", "cp", file.toString(), "c1:");
        refused("/no/such/file", "cp", "/no/such/file", "c1:/x");
        refused("not running", "cp", file.toString(), "c1:/x");
        refused("not running", "cp", "c1:/etc", dest.toString());
        try (Stream<Path> left = Files.list(dest)) {
            assertEquals(0, left.count());
        }
    }

    @Test
    void badLayerSizes() throws IOException {
        refused("invalid size for --layer-size: \"12Q\"", "create", "--name", "c1", "--layer-size", "12Q", bundle.toString());
        refused("invalid size for --layer-size: \"12Q\"", "run", "--layer-size", "12Q", bundle.toString());
        refused("invalid --layer-size 1m: a writable layer is 8m to", "create", "--name", "c1", "--layer-size", "1m", bundle.toString());
        refused("--layer-size", "create", "--name", "c1", "--layer-size", "-1g", bundle.toString());
    }

    @Test
    void badPodVolumes() throws IOException {
        for (String bad : new String[] {"../x", "a/b", ".hidden", "", "a b"}) {
            refused("invalid --volume \"" + bad + "\": \"" + bad + "\" is not a volume name", "pod", "create", "--name", "p1", "--volume", bad);
        }
        refused("invalid size for --volume data:12Q", "pod", "create", "--name", "p1", "--volume", "data:12Q");
        refused("invalid size for --volume data:", "pod", "create", "--name", "p1", "--volume", "data:");
        refused("invalid --volume \"data:1k\": a volume is 8m to", "pod", "create", "--name", "p1", "--volume", "data:1k");
        refused("volume data is given twice", "pod", "create", "--name", "p1", "--volume", "data", "--volume", "data:2g");
    }

    @Test
    void aPodVolumeIsMadeWithThePodAndGoesWithIt() throws IOException {
        Result made = run("pod", "create", "--name", "p1", "--volume", "data:16m", "--volume", "logs");
        assertEquals(0, made.code(), made.err());
        Path volumes = root.resolve("pods/p1/volumes");
        assertEquals(16L << 20, Files.size(volumes.resolve("data.img")));
        assertEquals(1L << 30, Files.size(volumes.resolve("logs.img")), "the default size");
        Result inspect = run("pod", "inspect", "p1");
        assertTrue(inspect.out().contains("\"name\" : \"data\",\n    \"size\" : \"16m\"")
                && inspect.out().contains("\"name\" : \"logs\",\n    \"size\" : \"1g\""), inspect.out());
        assertEquals(0, run("pod", "rm", "p1").code());
        assertEquals(Set.of("pods"), stateFiles());
        assertFalse(monitorStarted);
    }

    @Test
    void aContainersVolumeMustBeOneOfItsPods() throws IOException {
        assertEquals(0, run("pod", "create", "--name", "p1", "--volume", "data:8m").code());
        assertEquals(0, run("pod", "create", "--name", "p2").code());
        for (String[] args : new String[][] {
                {"create", "--pod", "p1", "--name", "c1", "--volume", "nope:/x", bundle.toString()},
                {"create", "--pod", "p2", "--name", "c1", "-v", "data:/x", bundle.toString()},
                {"run", "--pod", "p1", "-v", "nope:/x", bundle.toString()},
                {"create", "--name", "c1", "-v", "data:/x", bundle.toString()},
                {"run", "-v", "data:/x", bundle.toString()},
                {"create", "--pod", "p1", "--name", "c1", "-v", "data:relative", bundle.toString()},
                {"create", "--pod", "p1", "--name", "c1", "-v", "dir/sub:/x", bundle.toString()},
                {"create", "--pod", "p1", "--name", "c1", "-v", "../data:/x", bundle.toString()},
                {"create", "--pod", "p1", "--name", "c1", "-v", "data:/x:rx", bundle.toString()}}) {
            Set<String> before = stateFiles();
            Result r = run(args);
            assertEquals(125, r.code(), String.join(" ", args) + ": " + r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().startsWith("jrunc-vm: invalid --volume "), r.err());
            assertEquals(before, stateFiles(), "nothing left by " + String.join(" ", args));
        }
        assertTrue(run("create", "--pod", "p1", "--name", "c1", "-v", "nope:/x", bundle.toString()).err().contains("pod p1 has no volume nope"));
        assertTrue(run("create", "--name", "c1", "-v", "data:/x", bundle.toString()).err().contains("needs --pod"));
        assertFalse(monitorStarted);
    }

    @Test
    void readOnlyRefusesAMountPointTheImageLacks() throws IOException {
        Files.createDirectories(bundle.resolve("rootfs/proc"));
        Files.writeString(bundle.resolve("config.json"), """
                {"ociVersion": "1.0.2", "process": {"args": ["sh"], "cwd": "/"}, "root": {"path": "rootfs"},
                 "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
                            {"destination": "/scratch", "type": "tmpfs", "source": "tmpfs"}]}""");
        refused("/scratch", "create", "--name", "c1", "--read-only", bundle.toString());
        refused("/scratch", "run", "--read-only", bundle.toString());
    }

    @Test
    void badPublishedPortsAndNetworks() throws Exception {
        refused("--publish \"70000:80\"", "pod", "create", "--name", "p1", "-p", "70000:80");
        refused("host port 70000", "run", "-p", "70000:80", bundle.toString());
        refused("container port 0", "pod", "create", "-p", "8080:0");
        refused("a host port is required", "pod", "create", "--name", "p1", "-p", "80");
        refused("a host port is required", "create", "--publish", "80/udp", bundle.toString());
        refused("--publish \"x:80:80\"", "pod", "create", "-p", "x:80:80");
        refused("not an IPv4 address", "pod", "create", "-p", "300.1.1.1:8080:80");
        refused("--network \"bogus\"", "pod", "create", "--network", "bogus");
        refused("--network ns:/not/a/netns", "pod", "create", "--name", "p1", "--network", "ns:/not/a/netns");
        refused("--network ns:/not/a/netns", "run", "--network", "ns:/not/a/netns", bundle.toString());
        refused("--network ns:relative", "pod", "create", "--network", "ns:relative");
        // a file that is no namespace, and a namespace of another kind
        refused("--network ns:" + bundle.resolve("config.json"), "pod", "create", "--network", "ns:" + bundle.resolve("config.json"));
        if (Files.exists(Path.of("/proc/self/ns/uts"))) {
            refused("--network ns:/proc/self/ns/uts", "pod", "create", "--network", "ns:/proc/self/ns/uts");
        }
        refused("--publish needs --network user", "pod", "create", "--network", "none", "-p", "8080:80");
        refused("--dns-search", "pod", "create", "--dns-search", "bad domain");
        refused("--dns-option", "pod", "create", "--dns-option", "a;b");
        // the network is the pod's: a container joining a named pod cannot bring its own
        assertEquals(0, run("pod", "create", "--name", "p1").code());
        refused("--network and --publish are the pod's", "create", "--pod", "p1", "-p", "8080:80", bundle.toString());
        refused("--network and --publish are the pod's", "run", "--pod", "p1", "--network", "none", bundle.toString());
    }

    @Test
    void aHostPortInUseIsRefusedAtCreateWithThePort() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            int port = taken.getLocalPort();
            refused("host port " + port + "/tcp is already in use", "pod", "create", "--name", "p1", "-p", port + ":80");
            refused("host port " + port + "/tcp is already in use", "run", "-p", port + ":80", bundle.toString());
            refused("host port " + port + "/tcp is already in use", "create", "--name", "c1", "-p", "127.0.0.1:" + port + ":80",
                    bundle.toString());
        }
        try (java.net.DatagramSocket taken = new java.net.DatagramSocket(0)) {
            int port = taken.getLocalPort();
            refused("host port " + port + "/udp is already in use", "pod", "create", "-p", port + ":53/udp");
        }
        // the same host port twice in one pod
        int free;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            free = probe.getLocalPort();
        }
        refused("published twice", "pod", "create", "-p", free + ":80", "-p", free + ":81");
    }

    @Test
    void badHostDirectoryVolumes() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("shared"));
        Path file = Files.writeString(tmp.resolve("afile"), "x");
        refused("--volume /does/not/exist:/x", "create", "--name", "c1", "-v", "/does/not/exist:/x", bundle.toString());
        refused("--volume /does/not/exist:/x", "run", "--volume", "/does/not/exist:/x", bundle.toString());
        refused("--volume relative/dir:/x", "create", "-v", "relative/dir:/x", bundle.toString());
        refused("--volume ./x:/x", "run", "-v", "./x:/x", bundle.toString());
        refused("--volume " + dir + ":x", "create", "-v", dir + ":x", bundle.toString());
        refused("--volume " + dir + ":/x:bogus", "create", "-v", dir + ":/x:bogus", bundle.toString());
        refused("--volume " + dir + ":/x:ro:z", "create", "-v", dir + ":/x:ro:z", bundle.toString());
        refused("--volume " + dir, "create", "-v", dir.toString(), bundle.toString());
        refused("--volume " + file + ":/x", "create", "-v", file + ":/x", bundle.toString());
        refused("--volume " + dir + ":/", "create", "-v", dir + ":/", bundle.toString());
        // named pods too: nothing made in the pod
        assertEquals(0, run("pod", "create", "--name", "pv").code());
        refused("--volume /does/not/exist:/x", "create", "--pod", "pv", "--name", "c1", "-v", "/does/not/exist:/x", bundle.toString());
        refused("--volume " + dir + ":/x:bogus", "create", "--pod", "pv", "-v", "/tmp:/y", "-v", dir + ":/x:bogus", bundle.toString());
        // virtiofsd's socket in the pod's directory would not fit a Unix socket's path
        String longName = "p".repeat(63);
        assertEquals(0, run("pod", "create", "--name", longName).code());
        refused("longer than 107 bytes", "create", "--pod", longName, "-v", dir + ":/x", bundle.toString());
    }
}
