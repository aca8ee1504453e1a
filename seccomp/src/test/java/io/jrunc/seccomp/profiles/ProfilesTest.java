package io.jrunc.seccomp.profiles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrunc.spec.Json;
import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.LinuxSeccompArg;
import io.jrunc.spec.LinuxSyscall;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The fixtures load, and say what their sources say (README.md beside them has the numbers' origin). */
class ProfilesTest {

    private static final List<String> X86_ARCHS = List.of("SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32");
    /** clone flags a default container may not pass: CLONE_NEWNS|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWCGROUP. */
    private static final long CLONE_NAMESPACE_FLAGS = 0x7E020000L;
    private static final int EPERM = 1;
    private static final int EINVAL = 22;
    private static final int ENOSYS = 38;

    static List<Profiles.NamedProfile> all() {
        return Profiles.all();
    }

    @ParameterizedTest
    @MethodSource("all")
    void everyProfileIsAnErrnoAllowListForX86(Profiles.NamedProfile p) {
        LinuxSeccomp s = p.seccomp();
        assertEquals("SCMP_ACT_ERRNO", s.defaultAction(), p.name());
        assertEquals(X86_ARCHS, s.architectures(), p.name());
        assertNull(s.flags(), p.name());
        assertNull(s.listenerPath(), p.name());
        assertNull(s.listenerMetadata(), p.name());
        assertTrue(names(s).size() > 300, p.name() + ": " + names(s).size() + " names");
        for (LinuxSyscall rule : s.syscalls()) {
            assertFalse(rule.names() == null || rule.names().isEmpty(), p.name() + ": a rule without names");
            assertTrue(Set.of("SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO").contains(rule.action()), rule.action());
        }
        assertTrue(allowed(s, "read") && allowed(s, "execve") && allowed(s, "exit_group"), p.name());
        assertTrue(rules(s, "kexec_load").stream().noneMatch(r -> r.action().equals("SCMP_ACT_ALLOW")), p.name());
    }

    /** jrunc's config.json reader and the databind reference read the captured objects alike. */
    @Test
    void capturedObjectsReadAlikeByBothReaders() throws Exception {
        for (String file : List.of("podman-default.json", "podman-sys-admin.json", "containerd-default.json")) {
            assertEquals(Json.read(Profiles.resource(file), LinuxSeccomp.class), Profiles.readOci(file), file);
        }
    }

    @Test
    void podmanDefault() {
        LinuxSeccomp s = Profiles.podmanDefault();
        // podman keeps containers/common's defaultErrnoRet: unknown syscalls fail with ENOSYS, not EPERM;
        // the syscalls it means to refuse are listed with errnoRet 1.
        assertEquals(ENOSYS, s.defaultErrnoRet());
        assertEquals(22, s.syscalls().size());
        assertEquals(437, names(s).size());
        assertEquals(429, Set.copyOf(names(s)).size());
        // containers/common allows namespace syscalls outright (no clone flag mask, clone3 allowed).
        assertUnconditionalAllow(s, "clone");
        assertUnconditionalAllow(s, "clone3");
        assertUnconditionalAllow(s, "mount");
        assertUnconditionalAllow(s, "unshare");
        assertTrue(rules(s, "bpf").stream().allMatch(r -> r.action().equals("SCMP_ACT_ERRNO") && r.errnoRet() == EPERM));
        // setns is both in the big allow list and in the EPERM list of CAP_SYS_ADMIN syscalls.
        assertEquals(Set.of("SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO"),
                rules(s, "setns").stream().map(LinuxSyscall::action).collect(Collectors.toSet()));
        // Without CAP_AUDIT_WRITE: socket(AF_NETLINK, *, NETLINK_AUDIT) fails with EINVAL, two-argument rule.
        List<LinuxSyscall> socket = rules(s, "socket");
        assertEquals(4, socket.size());
        LinuxSyscall audit = socket.getFirst();
        assertEquals("SCMP_ACT_ERRNO", audit.action());
        assertEquals(EINVAL, audit.errnoRet());
        assertEquals(List.of(new LinuxSeccompArg(0, 16L, null, "SCMP_CMP_EQ"), new LinuxSeccompArg(2, 9L, null, "SCMP_CMP_EQ")),
                audit.args());
        assertEquals(5, rules(s, "personality").size());
    }

    @Test
    void podmanSysAdminAllowsWhatDefaultRefusesWithEperm() {
        LinuxSeccomp def = Profiles.podmanDefault();
        LinuxSeccomp admin = Profiles.podmanSysAdmin();
        assertEquals(def.defaultErrnoRet(), admin.defaultErrnoRet());
        assertEquals(def.syscalls().size(), admin.syscalls().size());
        List<LinuxSyscall> changed = new java.util.ArrayList<>();
        for (int i = 0; i < def.syscalls().size(); i++) {
            if (!def.syscalls().get(i).equals(admin.syscalls().get(i))) {
                changed.add(admin.syscalls().get(i));
            }
        }
        assertEquals(1, changed.size(), changed.toString());
        assertEquals("SCMP_ACT_ALLOW", changed.getFirst().action());
        assertEquals(List.of("bpf", "fanotify_init", "lookup_dcookie", "perf_event_open", "quotactl",
                "setdomainname", "sethostname", "setns"), changed.getFirst().names());
    }

    @Test
    void containerdDefault() {
        LinuxSeccomp s = Profiles.containerdDefault();
        assertNull(s.defaultErrnoRet()); // EPERM
        assertEquals(11, s.syscalls().size());
        assertEquals(360, names(s).size());
        assertEquals(356, Set.copyOf(names(s)).size());
        assertCloneMasked(s);
        assertClone3Enosys(s);
        assertTrue(rules(s, "mount").isEmpty());
        assertUnconditionalAllow(s, "ptrace"); // contrib/seccomp: kernel >= 4.8, decided on this host
        assertUnconditionalAllow(s, "chroot");
    }

    @Test
    void mobyDefaultConverted() {
        LinuxSeccomp s = Profiles.mobyDefault();
        assertNull(s.defaultErrnoRet());
        assertEquals(12, s.syscalls().size());
        assertEquals(357, names(s).size());
        assertEquals(353, Set.copyOf(names(s)).size());
        assertCloneMasked(s);
        assertClone3Enosys(s);
        assertTrue(rules(s, "mount").isEmpty() && rules(s, "umount2").isEmpty() && rules(s, "unshare").isEmpty());
        assertUnconditionalAllow(s, "ptrace"); // includes minKernel 4.8
        assertUnconditionalAllow(s, "arch_prctl"); // includes arches amd64, x32
        assertUnconditionalAllow(s, "modify_ldt");
        assertUnconditionalAllow(s, "chroot"); // includes CAP_SYS_CHROOT
        for (String absent : List.of("s390_runtime_instr", "arm_fadvise64_64", "reboot", "syslog", "acct",
                "open_by_handle_at", "init_module", "settimeofday")) {
            assertTrue(rules(s, absent).isEmpty(), absent);
        }
        // The source's comments, includes and excludes are gone; empty args are absent.
        assertTrue(s.syscalls().stream().filter(r -> r.args() != null).allMatch(r -> !r.args().isEmpty()));
    }

    /** containerd's contrib/seccomp is a port of moby's profile: the same names, plus the pkey syscalls. */
    @Test
    void mobyAndContainerdAllowNearlyTheSameNames() {
        Set<String> moby = Set.copyOf(names(Profiles.mobyDefault()));
        Set<String> containerd = new HashSet<>(names(Profiles.containerdDefault()));
        assertTrue(containerd.containsAll(moby));
        containerd.removeAll(moby);
        assertEquals(Set.of("pkey_alloc", "pkey_free", "pkey_mprotect"), containerd);
    }

    @Test
    void mobyWithSysAdmin() {
        LinuxSeccomp s = Profiles.mobySysAdmin();
        assertEquals(11, s.syscalls().size());
        assertEquals(379, names(s).size());
        assertUnconditionalAllow(s, "mount");
        assertUnconditionalAllow(s, "clone");
        assertUnconditionalAllow(s, "clone3");
        assertUnconditionalAllow(s, "setns");
    }

    // ---- the converter's rules on small profiles ---------------------------------------------------

    private static final DockerProfile.Target AMD64 = DockerProfile.Target.DOCKER_AMD64_LINUX_6_18;

    @Test
    void minKernelComparesKernelAndMajorOnly() {
        String profile = """
                {"defaultAction":"SCMP_ACT_ERRNO","syscalls":[
                 {"names":["a"],"action":"SCMP_ACT_ALLOW","includes":{"minKernel":"6.18"}},
                 {"names":["b"],"action":"SCMP_ACT_ALLOW","includes":{"minKernel":"6.19"}},
                 {"names":["c"],"action":"SCMP_ACT_ALLOW","excludes":{"minKernel":"4.8"}},
                 {"names":["d"],"action":"SCMP_ACT_ALLOW","excludes":{"minKernel":"10.0"}}]}""";
        assertEquals(List.of("a", "d"), names(DockerProfile.convert(profile, AMD64)));
        DockerProfile.Target old = new DockerProfile.Target("amd64", DockerProfile.DOCKER_CAPABILITIES, 4, 4);
        assertEquals(List.of("c", "d"), names(DockerProfile.convert(profile, old)));
        assertThrows(IllegalArgumentException.class, () -> DockerProfile.convert(
                "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":[\"a\"],\"includes\":{\"minKernel\":\"6.18.1\"}}]}",
                AMD64));
    }

    @Test
    void capabilitiesAndArches() {
        String profile = """
                {"defaultAction":"SCMP_ACT_ERRNO","defaultErrnoRet":38,
                 "archMap":[{"architecture":"SCMP_ARCH_AARCH64","subArchitectures":["SCMP_ARCH_ARM"]},
                            {"architecture":"SCMP_ARCH_X86_64","subArchitectures":["SCMP_ARCH_X86"]}],
                 "syscalls":[
                 {"names":["all-caps"],"action":"SCMP_ACT_ALLOW","includes":{"caps":["CAP_KILL","CAP_SYS_ADMIN"]}},
                 {"names":["any-cap-excludes"],"action":"SCMP_ACT_ALLOW","excludes":{"caps":["CAP_SYS_ADMIN","CAP_KILL"]}},
                 {"names":["not-arm"],"action":"SCMP_ACT_ALLOW","excludes":{"arches":["arm64"]}},
                 {"name":"one","action":"SCMP_ACT_ERRNO","errnoRet":1,"args":[],"comment":"x"},
                 {"names":["arg"],"action":"SCMP_ACT_ALLOW","args":[{"index":1,"value":18446744073709551615,"valueTwo":0,"op":"SCMP_CMP_EQ"}]}]}""";
        LinuxSeccomp s = DockerProfile.convert(profile, AMD64);
        assertEquals(List.of("SCMP_ARCH_X86_64", "SCMP_ARCH_X86"), s.architectures());
        assertEquals(38, s.defaultErrnoRet());
        assertEquals(List.of(new LinuxSyscall(List.of("not-arm"), "SCMP_ACT_ALLOW", null, null),
                new LinuxSyscall(List.of("one"), "SCMP_ACT_ERRNO", 1, null),
                new LinuxSyscall(List.of("arg"), "SCMP_ACT_ALLOW", null, List.of(new LinuxSeccompArg(1, -1L, null, "SCMP_CMP_EQ")))),
                s.syscalls());
        assertEquals(List.of("all-caps", "not-arm", "one", "arg"),
                names(DockerProfile.convert(profile, AMD64.withCapabilities("CAP_SYS_ADMIN"))));
        assertEquals(List.of("SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"), DockerProfile.convert(profile,
                new DockerProfile.Target("arm64", Set.of(), 6, 18)).architectures());
    }

    @Test
    void mobysErrors() {
        assertNull(DockerProfile.convert("{}", AMD64));
        assertThrows(IllegalArgumentException.class, () -> DockerProfile.convert(
                "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"architectures\":[\"SCMP_ARCH_X86\"],"
                        + "\"archMap\":[{\"architecture\":\"SCMP_ARCH_X86_64\"}]}", AMD64));
        assertThrows(IllegalArgumentException.class, () -> DockerProfile.convert(
                "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"name\":\"a\",\"names\":[\"b\"]}]}", AMD64));
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private static List<String> names(LinuxSeccomp s) {
        return s.syscalls().stream().flatMap(r -> r.names().stream()).toList();
    }

    private static List<LinuxSyscall> rules(LinuxSeccomp s, String name) {
        return s.syscalls().stream().filter(r -> r.names().contains(name)).toList();
    }

    private static boolean allowed(LinuxSeccomp s, String name) {
        return rules(s, name).stream().anyMatch(r -> r.action().equals("SCMP_ACT_ALLOW") && r.args() == null);
    }

    private static void assertUnconditionalAllow(LinuxSeccomp s, String name) {
        List<LinuxSyscall> rules = rules(s, name);
        assertEquals(1, rules.size(), name + ": " + rules);
        assertEquals("SCMP_ACT_ALLOW", rules.getFirst().action(), name);
        assertNull(rules.getFirst().args(), name);
    }

    private static void assertCloneMasked(LinuxSeccomp s) {
        assertEquals(List.of(new LinuxSyscall(List.of("clone"), "SCMP_ACT_ALLOW", null,
                List.of(new LinuxSeccompArg(0, CLONE_NAMESPACE_FLAGS, null, "SCMP_CMP_MASKED_EQ")))), rules(s, "clone"));
    }

    private static void assertClone3Enosys(LinuxSeccomp s) {
        assertEquals(List.of(new LinuxSyscall(List.of("clone3"), "SCMP_ACT_ERRNO", ENOSYS, null)), rules(s, "clone3"));
    }
}
