package io.jrunc.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrunc.spec.DefaultSpec;
import io.jrunc.spec.Linux;
import io.jrunc.spec.LinuxIDMapping;
import io.jrunc.spec.LinuxNamespace;
import io.jrunc.spec.Mount;
import io.jrunc.spec.Spec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** runc's rootless validation, one line each, and the config as the stage uses it. */
class RootlessConfigTest {
    private static final Spec ROOTLESS = DefaultSpec.rootless(false, 1000, 1000);

    private static Spec withLinux(Spec s, List<LinuxNamespace> namespaces, List<LinuxIDMapping> uids,
            List<LinuxIDMapping> gids) {
        Linux l = s.linux();
        return new Spec(s.ociVersion(), s.process(), s.root(), s.hostname(), s.domainname(), s.mounts(), s.hooks(),
                s.annotations(), new Linux(uids, gids, l.sysctl(), l.resources(), l.cgroupsPath(), namespaces,
                        l.devices(), l.netDevices(), l.seccomp(), l.rootfsPropagation(), l.maskedPaths(),
                        l.readonlyPaths(), l.mountLabel(), l.intelRdt(), l.memoryPolicy(), l.personality(),
                        l.timeOffsets()));
    }

    private static Spec withMount(Spec s, Mount m) {
        List<Mount> mounts = new ArrayList<>(s.mounts());
        mounts.add(m);
        return new Spec(s.ociVersion(), s.process(), s.root(), s.hostname(), s.domainname(), mounts, s.hooks(),
                s.annotations(), s.linux());
    }

    private static String refusal(Spec s) {
        return assertThrows(ContainerException.class, () -> RootlessConfig.validate(s)).getMessage();
    }

    @Test
    void specRootlessPasses() {
        RootlessConfig.validate(ROOTLESS);
    }

    @Test
    void eachMissingPieceIsOneLineNamingTheField() {
        List<LinuxNamespace> noUser = ROOTLESS.linux().namespaces().stream().filter(n -> !n.type().equals("user")).toList();
        assertEquals("linux.namespaces: rootless container requires user namespaces (jrunc runs as an unprivileged"
                + " user; add a \"user\" namespace with uid and gid mappings)", refusal(withLinux(ROOTLESS, noUser, null, null)));
        assertEquals("linux.uidMappings: rootless container requires at least one UID mapping",
                refusal(withLinux(ROOTLESS, ROOTLESS.linux().namespaces(), List.of(), ROOTLESS.linux().gidMappings())));
        assertEquals("linux.gidMappings: rootless container requires at least one GID mapping",
                refusal(withLinux(ROOTLESS, ROOTLESS.linux().namespaces(), ROOTLESS.linux().uidMappings(), null)));
        int last = ROOTLESS.mounts().size();
        assertEquals("mounts[" + last + "].options: cannot specify uid=5 mount option for rootless container: uid 5 is"
                + " not mapped by linux.uidMappings", refusal(withMount(ROOTLESS,
                new Mount("/t", "tmpfs", "tmpfs", List.of("uid=5"), null, null))));
        assertEquals("mounts[" + last + "].options: cannot specify gid=7 mount option for rootless container: gid 7 is"
                + " not mapped by linux.gidMappings", refusal(withMount(ROOTLESS,
                new Mount("/t", "tmpfs", "tmpfs", List.of("uid=0", "gid=7"), null, null))));
        List<LinuxIDMapping> one = List.of(new LinuxIDMapping(0L, 1000L, 1L));
        assertEquals("mounts[" + last + "].uidMappings: idmapped mounts are not supported for rootless containers"
                + " (mapping a mount needs privilege in the initial user namespace)", refusal(withMount(ROOTLESS,
                new Mount("/t", "bind", "/tmp", List.of("bind"), one, one))));
    }

    @Test
    void joiningByPathNeedsNoMappings() {
        List<LinuxNamespace> join = new ArrayList<>();
        for (LinuxNamespace n : ROOTLESS.linux().namespaces()) {
            join.add(n.type().equals("user") ? new LinuxNamespace("user", "/proc/1/ns/user") : n);
        }
        RootlessConfig.validate(withLinux(ROOTLESS, join, null, null));
    }

    @Test
    void theStageSeesTheUserNamespaceAsEntered() {
        Spec entered = RootlessConfig.withUserNamespaceEntered(ROOTLESS);
        assertNull(RootlessConfig.userNamespace(entered));
        assertEquals(ROOTLESS.linux().namespaces().size() - 1, entered.linux().namespaces().size());
        assertEquals(List.of(), entered.linux().uidMappings() == null ? List.of() : entered.linux().uidMappings());
        assertEquals(ROOTLESS.mounts(), entered.mounts());
        assertEquals(ROOTLESS.process(), entered.process());
    }

    @Test
    void rootlessFlagTakesGosBooleansAndAuto() {
        assertNull(Rootless.parseBoolOrAuto(""));
        assertNull(Rootless.parseBoolOrAuto("AUTO"));
        assertEquals(Boolean.TRUE, Rootless.parseBoolOrAuto("true"));
        assertEquals(Boolean.TRUE, Rootless.parseBoolOrAuto("1"));
        assertEquals(Boolean.FALSE, Rootless.parseBoolOrAuto("F"));
        assertEquals("invalid value \"maybe\" for flag -rootless: parse error (want true, false or auto)",
                assertThrows(ContainerException.class, () -> Rootless.parseBoolOrAuto("maybe")).getMessage());
    }
}
