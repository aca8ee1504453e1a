package io.jrunc.cgroups;

import static io.jrunc.cgroups.DeviceFilterProgramTest.allow;
import static io.jrunc.cgroups.DeviceFilterProgramTest.deny;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.bindings.Bpf;
import io.jrunc.bindings.FileDescriptors;
import io.jrunc.spec.LinuxDeviceCgroup;
import io.jrunc.spec.LinuxResources;
import io.jrunc.testsupport.HostLimitation;
import io.jrunc.testsupport.Requirements;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device program on this machine's kernel. A device program attaches to any cgroup2 directory, so
 * this runs on a hybrid host too (cgroup2 at /sys/fs/cgroup/unified, no controllers needed): a
 * directory is made there, the program attached, a shell moved into it, and what the shell may do
 * with /dev/zero (c 1:5) and /dev/null (c 1:3) is observed. The v1 devices cgroup of the shell is the
 * root one, which allows everything, so what is refused is refused by the program.
 */
class BpfDeviceFilterKernelTest {
    private KernelCgroupFixture fixture;
    private Path dir;

    @TempDir
    Path tmp;

    @BeforeEach
    void setUp() throws Exception {
        Requirements.requireRoot("bpf(2) and cgroups");
        fixture = new KernelCgroupFixture();
        Hierarchy unified = fixture.hierarchies.hierarchies().stream().filter(Hierarchy::isUnified).findFirst()
                .orElse(null);
        HostLimitation.skipUnless(unified != null, "no cgroup2 hierarchy (a cgroup v1-only host)");
        dir = unified.mountPoint().resolve(fixture.name);
        Files.createDirectory(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (fixture != null) {
            fixture.close(); // removing the cgroup also releases whatever is still attached
        }
    }

    /** The cgroup as a v2 cgroup of its own, whatever this host's mode (only its directory is used). */
    private Cgroup cgroup() {
        return Cgroup.open(CgroupLocation.of(CgroupMode.UNIFIED, Map.of("", dir)));
    }

    private static LinuxResources devices(List<LinuxDeviceCgroup> rules) {
        return new LinuxResources(rules, null, null, null, null, null, null, null, null);
    }

    /** Runs the probes in a shell inside the cgroup: each line "name=exit status", stderr merged. */
    private Map<String, String> probe() throws Exception {
        String script = """
                head -c1 /dev/zero > "$T/zero.out"; echo zero-read=$?
                echo x > /dev/zero; echo zero-write=$?
                head -c1 /dev/null; echo null-read=$?
                echo x > /dev/null; echo null-write=$?
                rm -f "$T/z" "$T/n"
                mknod "$T/z" c 1 5; echo mknod-zero=$?
                mknod "$T/n" c 1 3; echo mknod-null=$?
                """;
        Process sh = fixture.start("env", "T=" + tmp, "sh", "-c", "read go; " + script);
        cgroup().addProcess(sh.pid());
        sh.getOutputStream().write("go\n".getBytes(StandardCharsets.US_ASCII));
        sh.getOutputStream().flush();
        assertTrue(sh.waitFor(20, TimeUnit.SECONDS), "probe shell did not finish");
        String output = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Map<String, String> results = new LinkedHashMap<>();
        for (String line : output.lines().toList()) {
            int eq = line.indexOf('=');
            if (eq > 0 && line.substring(0, eq).matches("[a-z-]+")) {
                // a failed redirection is status 2 in dash, a failed command 1: both are "1" here
                results.put(line.substring(0, eq), line.substring(eq + 1).equals("0") ? "0" : "1");
            }
        }
        results.put("output", output);
        return results;
    }

    private static void expect(Map<String, String> results, String... nameAndStatus) {
        Map<String, String> expected = new LinkedHashMap<>();
        for (int i = 0; i < nameAndStatus.length; i += 2) {
            expected.put(nameAndStatus[i], nameAndStatus[i + 1]);
        }
        Map<String, String> actual = new LinkedHashMap<>(results);
        String output = actual.remove("output");
        assertEquals(expected, actual, output);
        // every failure is EPERM, which is what the kernel returns when the program says no
        long failures = expected.values().stream().filter("1"::equals).count();
        assertEquals(failures, output.lines().filter(l -> l.contains("Operation not permitted")).count(), output);
    }

    /** The device programs attached to the directory: their names, in the kernel's order. */
    private List<Bpf.ProgramInfo> attached() {
        int fd = FileDescriptors.open(dir.toString(), FileDescriptors.O_DIRECTORY | FileDescriptors.O_RDONLY
                | FileDescriptors.O_CLOEXEC);
        try {
            List<Bpf.ProgramInfo> infos = new ArrayList<>();
            for (int id : Bpf.progQuery(fd, Bpf.BPF_CGROUP_DEVICE).programIds()) {
                int prog = Bpf.progGetFdById(id);
                try {
                    infos.add(Bpf.progInfo(prog));
                } finally {
                    FileDescriptors.close(prog);
                }
            }
            return infos;
        } finally {
            FileDescriptors.close(fd);
        }
    }

    @Test
    void theProgramDecidesAndIsReplacedWithoutAGap() throws Exception {
        // nothing attached: everything allowed
        expect(probe(), "zero-read", "0", "zero-write", "0", "null-read", "0", "null-write", "0",
                "mknod-zero", "0", "mknod-null", "0");

        // deny all, allow /dev/null, through Cgroup.apply's default filter
        cgroup().apply(devices(List.of(deny("a", null, null, "rwm"), allow("c", 1L, 3L, "rwm"))));
        List<Bpf.ProgramInfo> first = attached();
        assertEquals(1, first.size());
        assertEquals(DeviceFilterProgram.NAME, first.getFirst().name());
        assertEquals(Bpf.BPF_PROG_TYPE_CGROUP_DEVICE, first.getFirst().type());
        expect(probe(), "zero-read", "1", "zero-write", "1", "null-read", "0", "null-write", "0",
                "mknod-zero", "1", "mknod-null", "0");

        // again (update): allow all but writes to /dev/zero; the one program is replaced (BPF_F_REPLACE)
        cgroup().apply(devices(List.of(allow("a", null, null, "rwm"), deny("c", 1L, 5L, "w"))));
        List<Bpf.ProgramInfo> second = attached();
        assertEquals(1, second.size());
        assertNotEquals(first.getFirst().id(), second.getFirst().id());
        expect(probe(), "zero-read", "0", "zero-write", "1", "null-read", "0", "null-write", "0",
                "mknod-zero", "0", "mknod-null", "0");

        // two attached (another allow-all next to ours): attach the new one, detach both old ones
        int cg = FileDescriptors.open(dir.toString(), FileDescriptors.O_DIRECTORY | FileDescriptors.O_RDONLY
                | FileDescriptors.O_CLOEXEC);
        int extra = Bpf.progLoad(Bpf.BPF_PROG_TYPE_CGROUP_DEVICE,
                DeviceFilterProgram.of(List.of(allow("a", null, null, "rwm"))).bytes(), "Apache", "jrunc_extra");
        try {
            Bpf.progAttach(cg, extra, Bpf.BPF_CGROUP_DEVICE, Bpf.BPF_F_ALLOW_MULTI, 0);
        } finally {
            FileDescriptors.close(extra);
            FileDescriptors.close(cg);
        }
        assertEquals(2, attached().size());
        cgroup().apply(devices(List.of(deny("a", null, null, "rwm"), allow("c", 1L, 5L, "r"))));
        List<Bpf.ProgramInfo> third = attached();
        assertEquals(1, third.size());
        assertEquals(DeviceFilterProgram.NAME, third.getFirst().name());
        expect(probe(), "zero-read", "0", "zero-write", "1", "null-read", "1", "null-write", "1",
                "mknod-zero", "1", "mknod-null", "1");

        // an invalid rule changes nothing and names the rule
        CgroupException e = assertThrows(CgroupException.class, () -> cgroup().apply(devices(List.of(
                deny("a", null, null, "rwm"), allow("c", 1L, 3L, "rwm"), allow("c", 1L, 5L, "rwq")))));
        assertEquals("device rule 2 (c 1:5 rwq, allow): unknown device access 'q' (only r, w and m)", e.getMessage());
        assertEquals(third, attached());
    }

    @Test
    void bpfFailuresAreErrorsUnlessNothingWouldBeDenied() throws Exception {
        // a directory that is not a cgroup: the kernel refuses the query
        List<LinuxDeviceCgroup> restrictive = List.of(deny("a", null, null, "rwm"), allow("c", 1L, 3L, "rwm"));
        CgroupException e = assertThrows(CgroupException.class,
                () -> BpfDeviceFilter.INSTANCE.install(tmp, restrictive));
        assertTrue(e.getMessage().startsWith("device filter for " + tmp + ": BPF_PROG_QUERY failed: "), e.getMessage());
        // every rule allows rwm: runc ignores the failure, so do we
        BpfDeviceFilter.INSTANCE.install(tmp, List.of(allow("a", null, null, "rwm"), allow("c", 1L, 5L, "rwm")));
        // a missing cgroup
        CgroupException missing = assertThrows(CgroupException.class,
                () -> BpfDeviceFilter.INSTANCE.install(tmp.resolve("gone"), restrictive));
        assertEquals("cannot open cgroup " + tmp.resolve("gone") + " for the device filter: no such file or directory",
                missing.getMessage());
    }
}
