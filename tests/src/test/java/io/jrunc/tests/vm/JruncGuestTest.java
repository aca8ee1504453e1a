package io.jrunc.tests.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jrunc.testsupport.HostLimitation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The jrunc binary itself on the guest's pure cgroup v2 kernel: containers with limits, observed from
 * inside: the same checks as the host's container tests, on cgroup v2. The initramfs root cannot be
 * pivoted away from, so containers run with --no-pivot. The guest's kernel (Debian 12's 6.1) has no
 * procfs "pidns" parameter, so this also exercises the runtime's fallback for kernels before 6.18,
 * with a user namespace and rootless too.
 * The binary is system property {@code jrunc.vm.binary} (scripts/vm-test.sh writes /bin/jrunc).
 */
class JruncGuestTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long M = 1024 * 1024;
    private Path binary;
    private static int count;

    @BeforeEach
    void setUp() throws IOException {
        binary = Path.of(System.getProperty("jrunc.vm.binary", "/bin/jrunc"));
        HostLimitation.skipUnless(Boolean.getBoolean("jrunc.vm"), "runs in the test VM (make test-vm) only");
        assertTrue(Files.isExecutable(binary), binary + " is missing in the guest: scripts/vm-test.sh makes it from"
                + " the lib directory's jrunc-runtime-*.jar");
    }

    private record Run(int exit, String output) {
    }

    private Run jrunc(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "--root", "/tmp/jrunc-state"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "jrunc " + String.join(" ", args));
        return new Run(p.exitValue(), out);
    }

    /**
     * Runs {@code command} in a mount namespace of its own whose root is a recursive bind of the
     * initramfs root, moved over / and entered as switch_root does: the initramfs root itself cannot
     * be pivoted away from, a bind of it can, so containers started so pivot_root as on any host. (A
     * plain chroot into the bind would not do: the kernel refuses a new user namespace to a chrooted
     * task, EPERM.) That matters for procfs in a user
     * namespace: after pivot_root the container's mount namespace holds no procfs, and the kernel
     * mounts a new one there only where one is fully visible. First, unless {@code cgroupProcs} is
     * null, the command's process moves into that cgroup; with a {@code user} it runs as that user
     * (su), with XDG_RUNTIME_DIR=/tmp/xdg-USER. Output in {@link Run#output}.
     */
    private static Run pivotable(String cgroupProcs, String user, List<String> command) throws Exception {
        Path script = Path.of("/tmp/pivotable.sh");
        if (!Files.exists(script)) {
            Files.writeString(script, """
                    #!/bin/sh
                    cg=$1 user=$2; shift 2
                    [ "$cg" = - ] || echo $$ > "$cg" || exit 1
                    exec unshare -m sh -c '
                      mount --make-rprivate / && mkdir -p /tmp/pivot-root && mount --rbind / /tmp/pivot-root || exit 1
                      cd /tmp/pivot-root && mount --move . / || exit 1
                      user=$1; shift
                      [ "$user" = - ] && exec chroot . "$@"
                      exec chroot . su -s /bin/sh -c "export XDG_RUNTIME_DIR=/tmp/xdg-$user; exec \\"\\$@\\"" -- "$user" sh "$@"
                    ' sh "$user" "$@"
                    """);
        }
        List<String> cmd = new ArrayList<>(List.of("/bin/sh", script.toString(), cgroupProcs == null ? "-" : cgroupProcs,
                user == null ? "-" : user));
        cmd.addAll(command);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", command));
        return new Run(p.exitValue(), out);
    }

    /**
     * A user namespace on Linux 6.1 (procfs without "pidns="), jrunc as root with pivot_root: uid 0
     * inside is 100000 outside (the maps read back), and /proc is the container's own: the process is
     * PID 1, the only processes listed are the container's, and PID 1's pid namespace is the one the
     * process is in.
     */
    @Test
    void aUserNamespaceGetsItsOwnProcfsOnAKernelWithoutPidns() throws Exception {
        Path dir = bundle("id -u; cat /proc/self/uid_map /proc/self/gid_map; echo pid $$; echo /proc/[0-9]*;"
                + " [ \"$(readlink /proc/1/ns/pid)\" = \"$(readlink /proc/self/ns/pid)\" ] && echo same-pidns", "{}");
        for (String applet : List.of("id", "readlink")) {
            Files.createSymbolicLink(dir.resolve("rootfs/bin").resolve(applet), Path.of("busybox"));
        }
        ObjectNode config = (ObjectNode) JSON.readTree(dir.resolve("config.json").toFile());
        ObjectNode linux = (ObjectNode) config.get("linux");
        ((com.fasterxml.jackson.databind.node.ArrayNode) linux.get("namespaces")).addObject().put("type", "user");
        linux.set("uidMappings", JSON.readTree("[{\"containerID\":0,\"hostID\":100000,\"size\":65536}]"));
        linux.set("gidMappings", JSON.readTree("[{\"containerID\":0,\"hostID\":100000,\"size\":65536}]"));
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
        Run run = pivotable(null, null, List.of(binary.toString(), "--root", "/tmp/jrunc-state", "run", "--bundle",
                dir.toString(), "userns"));
        assertEquals(0, run.exit(), run.output());
        List<String> lines = run.output().lines().toList();
        assertEquals("0", lines.get(0), run.output());
        assertEquals(List.of("0", "100000", "65536"), List.of(lines.get(1).trim().split("\\s+")), run.output());
        assertEquals(List.of("0", "100000", "65536"), List.of(lines.get(2).trim().split("\\s+")), run.output());
        assertEquals("pid 1", lines.get(3), run.output());
        // the shell alone (echo is its builtin): nothing of the guest's
        assertEquals("/proc/1", lines.get(4), run.output());
        assertEquals("same-pidns", lines.get(5), run.output());
    }

    private static final String USER = "jrunc-rootless";
    private static final int USER_ID = 1000;

    /**
     * Rootless jrunc on Linux 6.1: an unprivileged user runs a config as `jrunc spec --rootless` writes
     * it (its uid alone mapped, setgroups "deny") with a memory limit, in a cgroup v2 subtree delegated
     * to it as systemd's Delegate=yes does (the directory and its cgroup.procs, cgroup.subtree_control
     * and cgroup.threads chowned to the user), from which jrunc is launched: the container's cgroup
     * below it reads the limit, a process under it runs, and a hog over it is OOM-killed (137).
     */
    @Test
    void rootlessJruncWithADelegatedCgroupAndAMemoryLimit() throws Exception {
        if (!Files.readString(Path.of("/etc/passwd")).contains(USER + ":")) {
            Files.writeString(Path.of("/etc/passwd"), USER + ":x:" + USER_ID + ":" + USER_ID + "::/tmp:/bin/sh\n",
                    java.nio.file.StandardOpenOption.APPEND);
            Files.writeString(Path.of("/etc/group"), USER + ":x:" + USER_ID + ":\n", java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        }
        Path runtimeDir = Files.createDirectories(Path.of("/tmp/xdg-" + USER));
        Files.setPosixFilePermissions(runtimeDir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        chown(runtimeDir);
        Path cgroups = Path.of("/sys/fs/cgroup");
        Files.writeString(cgroups.resolve("cgroup.subtree_control"), "+memory +pids");
        Path delegated = Files.createDirectories(cgroups.resolve("jrunc-delegated"));
        chown(delegated);
        for (String file : List.of("cgroup.procs", "cgroup.subtree_control", "cgroup.threads")) {
            chown(delegated.resolve(file));
        }
        // the launcher's own cgroup is in the delegated subtree and the user's too, as the processes of a
        // Delegate=yes unit are
        Path launcher = Files.createDirectories(delegated.resolve("launcher"));
        chown(launcher);
        for (String file : List.of("cgroup.procs", "cgroup.subtree_control", "cgroup.threads")) {
            chown(launcher.resolve(file));
        }

        Path dir = Files.createDirectories(Path.of("/tmp/bundle-" + ++count));
        rootfs(dir);
        chown(dir);
        Process spec = new ProcessBuilder("su", "-s", "/bin/sh", USER, "-c", "cd " + dir + " && exec " + binary + " spec --rootless")
                .redirectErrorStream(true).start();
        String specOutput = new String(spec.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, spec.waitFor(), specOutput);
        ObjectNode config = (ObjectNode) JSON.readTree(dir.resolve("config.json").toFile());
        assertEquals(JSON.readTree("[{\"containerID\":0,\"hostID\":" + USER_ID + ",\"size\":1}]"),
                config.get("linux").get("uidMappings"), config.toString());
        ObjectNode process = (ObjectNode) config.get("process");
        process.put("terminal", false);
        ObjectNode linux = (ObjectNode) config.get("linux");
        linux.set("resources", JSON.readTree("{\"memory\":{\"limit\":" + 32 * M + ",\"swap\":" + 32 * M + "}}"));

        process.set("args", JSON.valueToTree(List.of("sh", "-c", "cat /sys/fs/cgroup/memory.max /proc/self/cgroup"
                + " /proc/self/setgroups; dd if=/dev/zero of=/dev/null bs=4M count=1 2>/dev/null && echo ran")));
        linux.put("cgroupsPath", "/jrunc-delegated/under");
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
        List<String> run = List.of(binary.toString(), "run", "--bundle", dir.toString());
        String procs = launcher.resolve("cgroup.procs").toString();
        Run under = pivotable(procs, USER, concat(run, "under"));
        assertEquals(0, under.exit(), under.output());
        // the container's cgroup: its path as the host names it, or "/" in a cgroup namespace of its own
        assertTrue(under.output().contains(32 * M + "\n0::/jrunc-delegated/under\ndeny\nran\n")
                || under.output().contains(32 * M + "\n0::/\ndeny\nran\n"), under.output());

        process.set("args", JSON.valueToTree(List.of("sh", "-c", "exec dd if=/dev/zero of=/dev/null bs=64M count=1")));
        linux.put("cgroupsPath", "/jrunc-delegated/over");
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
        Run over = pivotable(procs, USER, concat(run, "over"));
        assertEquals(128 + 9, over.exit(), over.output());
        // nothing left: the state and the containers' cgroups
        assertEquals(List.of(), list(runtimeDir.resolve("jrunc")), "state left");
        assertFalse(Files.exists(delegated.resolve("under")) || Files.exists(delegated.resolve("over")), "cgroups left");
    }

    private static List<String> concat(List<String> list, String last) {
        List<String> all = new ArrayList<>(list);
        all.add(last);
        return all;
    }

    private static List<String> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (var files = Files.list(dir)) {
            return files.map(Path::toString).toList();
        }
    }

    private static void chown(Path path) throws IOException {
        Files.setAttribute(path, "unix:uid", USER_ID);
        Files.setAttribute(path, "unix:gid", USER_ID);
    }

    /** A busybox bundle running {@code script} with {@code resources}; the config starts as jrunc spec's. */
    private Path bundle(String script, String resources) throws Exception {
        Path dir = Files.createDirectories(Path.of("/tmp/bundle-" + ++count));
        rootfs(dir);
        Run spec = jrunc(dir, "spec");
        assertEquals(0, spec.exit(), spec.output());
        ObjectNode config = (ObjectNode) JSON.readTree(dir.resolve("config.json").toFile());
        ObjectNode process = (ObjectNode) config.get("process");
        process.put("terminal", false);
        process.set("args", JSON.valueToTree(List.of("sh", "-c", script)));
        ((ObjectNode) config.get("root")).put("readonly", false);
        ObjectNode linux = (ObjectNode) config.get("linux");
        linux.set("resources", JSON.readTree(resources));
        linux.put("cgroupsPath", "/jrunc-vm-containers/c" + count);
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
        return dir;
    }

    /** A busybox rootfs in {@code dir}/rootfs. */
    private static void rootfs(Path dir) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("rootfs/bin"));
        for (String d : List.of("proc", "sys", "dev", "tmp", "etc")) {
            Files.createDirectories(dir.resolve("rootfs").resolve(d));
        }
        Files.copy(Path.of("/bin/busybox"), bin.resolve("busybox"));
        Files.setPosixFilePermissions(bin.resolve("busybox"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        for (String applet : List.of("sh", "cat", "dd", "sleep", "head", "echo")) {
            Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
        }
    }

    @Test
    void aContainerSeesItsLimitsInItsOwnCgroup() throws Exception {
        Path dir = bundle("cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory.swap.max /sys/fs/cgroup/pids.max"
                        + " /sys/fs/cgroup/cpu.weight /proc/self/cgroup",
                "{\"memory\":{\"limit\":" + 32 * M + ",\"swap\":" + 96 * M + "},\"pids\":{\"limit\":10},"
                        + "\"cpu\":{\"shares\":512}}");
        Run run = jrunc(dir, "run", "--no-pivot", "limits");
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains(32 * M + "\n" + 64 * M + "\n10\n59\n0::/\n"), run.output());
    }

    @Test
    void aForkBombStopsAtPidsMax() throws Exception {
        Path dir = bundle("i=0; while [ $i -lt 8 ]; do sleep 30 & i=$((i+1)); done; echo forked-all",
                "{\"pids\":{\"limit\":5}}");
        Run run = jrunc(dir, "run", "--no-pivot", "pids");
        assertTrue(run.output().matches("(?s).*(?i:can.t|cannot) fork.*") && !run.output().contains("forked-all"), run.output());
    }

    @Test
    void aMemoryHogIsOomKilled() throws Exception {
        Path dir = bundle("exec dd if=/dev/zero of=/dev/null bs=64M count=1",
                "{\"memory\":{\"limit\":" + 16 * M + ",\"swap\":" + 16 * M + "}}");
        Run run = jrunc(dir, "run", "--no-pivot", "oom");
        assertEquals(128 + 9, run.exit(), run.output());
    }

    /**
     * Mounts in the config's order on Linux 6.1 (the procfs fallback, where mountinfo lists mounts in
     * the order they were attached): /proc first as runc's default spec has it, and a file bound over
     * /proc/meminfo after it is what the container reads.
     */
    @Test
    void mountsKeepTheConfigsOrderWithTheProcfsFallback() throws Exception {
        Path dir = bundle("head -1 /proc/meminfo; cat /proc/self/mountinfo", "{}");
        Files.writeString(dir.resolve("meminfo"), "MemTotal:         123456 kB\n");
        ObjectNode config = (ObjectNode) JSON.readTree(dir.resolve("config.json").toFile());
        ObjectNode bind = ((com.fasterxml.jackson.databind.node.ArrayNode) config.get("mounts")).addObject();
        bind.put("destination", "/proc/meminfo").put("type", "bind").put("source", dir.resolve("meminfo").toString());
        bind.set("options", JSON.valueToTree(List.of("bind", "ro")));
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
        List<String> wanted = new ArrayList<>();
        config.get("mounts").forEach(m -> wanted.add(m.get("destination").asText()));
        Run run = jrunc(dir, "run", "--no-pivot", "order");
        assertEquals(0, run.exit(), run.output());
        List<String> lines = run.output().lines().toList();
        assertEquals("MemTotal:         123456 kB", lines.getFirst(), run.output());
        java.util.LinkedHashSet<String> seen = new java.util.LinkedHashSet<>();
        for (String line : lines.subList(1, lines.size())) {
            String mountPoint = line.split(" ")[4];
            if (wanted.contains(mountPoint)) {
                seen.add(mountPoint);
            }
        }
        assertEquals(List.copyOf(new java.util.LinkedHashSet<>(wanted)), List.copyOf(seen), run.output());
    }

    /**
     * A 32-bit syscall (int 0x80, i386 numbers) is decided by the profile's x86 section, here
     * because the host's kernel makes no 32-bit syscall at all (SeccompTest skips there): mkdir denied
     * with EACCES for x86 and EPERM for x86-64; without x86 in the filter, the 32-bit call is a foreign
     * architecture and the process dies of SIGSYS (the shell reports 128+31). The program is the static
     * i386 ELF that io.jrunc.tests.I386 writes byte by byte.
     */
    @Test
    void a32BitSyscallIsDecidedByTheX86Rules() throws Exception {
        String script = "/mkdir32; echo \"i386 $?\"; mkdir /x64; echo \"x86-64 $?\"";
        Path dir = bundle(script, "{}");
        Files.write(dir.resolve("rootfs/mkdir32"), io.jrunc.tests.I386.mkdirProgram("/x32"));
        Files.setPosixFilePermissions(dir.resolve("rootfs/mkdir32"),
                java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(dir.resolve("rootfs/bin"));
        Files.createSymbolicLink(dir.resolve("rootfs/bin/mkdir"), Path.of("busybox"));
        withSeccomp(dir, List.of("SCMP_ARCH_X86_64", "SCMP_ARCH_X86"));
        Run both = jrunc(dir, "run", "--no-pivot", "i386");
        assertEquals(0, both.exit(), both.output());
        assertTrue(both.output().contains("i386 13\n") && both.output().contains("x86-64 1\n"), both.output());
        withSeccomp(dir, List.of("SCMP_ARCH_X86_64"));
        Run foreign = jrunc(dir, "run", "--no-pivot", "i386-bad");
        assertTrue(foreign.output().contains("i386 159\n"), foreign.output());
    }

    /** linux.seccomp: everything allowed but mkdir, refused with EACCES (13), for these architectures. */
    private static void withSeccomp(Path dir, List<String> architectures) throws IOException {
        ObjectNode config = (ObjectNode) JSON.readTree(dir.resolve("config.json").toFile());
        ObjectNode seccomp = ((ObjectNode) config.get("linux")).putObject("seccomp");
        seccomp.put("defaultAction", "SCMP_ACT_ALLOW");
        seccomp.set("architectures", JSON.valueToTree(architectures));
        ObjectNode rule = seccomp.putArray("syscalls").addObject();
        rule.set("names", JSON.valueToTree(List.of("mkdir", "mkdirat")));
        rule.put("action", "SCMP_ACT_ERRNO").put("errnoRet", 13);
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
    }
}
