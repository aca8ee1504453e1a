package io.jrunc.tests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The runtime-spec MUSTs the runtime-tools validation suite found broken, asserted from
 * inside the container or from the kernel's cgroup files, each compared with runc where runc is right.
 */
@ExtendWith(JruncExtension.class)
class ConformanceTest {

    /**
     * Docker sends sysctls for every container with its own network namespace and lists /proc/sys
     * among the read-only paths: the sysctls are written first (as runc writes them), and /proc/sys is
     * read-only for the process afterwards.
     */
    @Test
    void sysctlsAreWrittenBeforeProcSysIsMadeReadOnly(Sandbox sb) throws Exception {
        Bundle b = sb.bundle();
        assertTrue(b.readonlyPaths().contains("/proc/sys"), "runc's spec lists /proc/sys as read-only");
        ObjectNode sysctl = b.config().withObjectProperty("linux").withObjectProperty("sysctl");
        sysctl.put("net.ipv4.ip_unprivileged_port_start", "0");
        sysctl.put("net.ipv4.ping_group_range", "0 2147483647");
        b.write();
        b.sh("echo \"port $(cat /proc/sys/net/ipv4/ip_unprivileged_port_start)\";"
                + "echo \"ping $(cat /proc/sys/net/ipv4/ping_group_range)\";"
                + "(echo 1 > /proc/sys/net/ipv4/ip_unprivileged_port_start) 2>/dev/null; echo \"write $?\"");
        for (Jrunc runtime : List.of(sb.jrunc(), sb.runc())) {
            Facts f = new Facts(runtime.in(b.dir(), "run", sb.id("sysctl")).ok().stdout());
            assertAll(runtime.binary() + ": " + f.raw(),
                    () -> assertEquals("0", f.one("port")),
                    () -> assertEquals("0\t2147483647", f.one("ping")),
                    () -> assertEquals("1", f.one("write"), "/proc/sys is writable"));
        }
    }

    /**
     * linux.rootfsPropagation "unbindable" is applied to the container's own root after pivot_root:
     * mountinfo marks / unbindable, and a bind mount of / fails even with CAP_SYS_ADMIN. (runc 1.1.5
     * cannot create this container here: it makes the host tree's / unbindable first and then fails to
     * bind the rootfs onto itself, EINVAL, so there is no runc run to compare with.)
     */
    @Test
    void unbindableRootfsPropagationRefusesABindOfTheRoot(Sandbox sb) throws Exception {
        Bundle b = sb.bundle();
        Files.createDirectories(b.rootfs().resolve("mnt"));
        List<String> caps = new ArrayList<>(List.of("CAP_SYS_ADMIN", "CAP_AUDIT_WRITE", "CAP_KILL",
                "CAP_NET_BIND_SERVICE"));
        b.capabilities(caps, caps, caps, List.of(), List.of());
        b.config().withObjectProperty("linux").put("rootfsPropagation", "unbindable");
        b.write();
        b.sh("echo \"root $(grep -E '^[0-9]+ [0-9]+ [^ ]+ [^ ]+ / ' /proc/self/mountinfo | sed 's/ - .*//')\";"
                + "mount -o bind / /mnt 2>/dev/null; echo \"bind $?\"");
        Facts f = new Facts(sb.jrunc().in(b.dir(), "run", sb.id("unbind")).ok().stdout());
        assertAll(f.raw(),
                () -> assertTrue(f.one("root").contains("unbindable"), "/ is not unbindable: " + f.one("root")),
                () -> assertFalse(f.one("bind").equals("0"), "a bind mount of / succeeded"));
    }

    /**
     * A net_cls or net_prio value this host cannot apply (it has no such v1 hierarchy) fails create with
     * the field and the controller, exit 1 and nothing left; runc fails too ("cannot set net_cls limit").
     */
    @Test
    void networkLimitsWithoutTheirHierarchyAreRefused(Sandbox sb) throws Exception {
        assertFalse(Host.read(Path.of("/proc/self/mountinfo")).contains("net_cls"),
                "this test expects a host without a net_cls hierarchy");
        Bundle classId = sb.bundle().args("true");
        classId.config().withObjectProperty("linux").withObjectProperty("resources").withObjectProperty("network")
                .put("classID", 0x100001);
        classId.write();
        Result r = sb.jrunc().in(classId.dir(), "run", sb.id("netcls")).exit(1);
        assertEquals(1, r.stderr().strip().lines().count(), r.describe("one error line"));
        assertTrue(r.stderr().contains("linux.resources.network.classID") && r.stderr().contains("net_cls"),
                r.describe("names the field and the controller"));
        Result runc = sb.runc().in(classId.dir(), "run", sb.id("netcls-runc"));
        assertTrue(runc.exitCode() != 0 && runc.stderr().contains("cannot set net_cls limit"), runc.describe("runc"));

        Bundle prio = sb.bundle().args("true");
        prio.config().withObjectProperty("linux").withObjectProperty("resources").withObjectProperty("network")
                .withArrayProperty("priorities").addObject().put("name", "lo").put("priority", 7);
        prio.write();
        Result p = sb.jrunc().in(prio.dir(), "run", sb.id("netprio")).exit(1);
        assertTrue(p.stderr().contains("linux.resources.network.priorities") && p.stderr().contains("net_prio"),
                p.describe("names the field and the controller"));
        assertEquals(List.of(), sb.leftovers());
    }

    /**
     * With the hierarchies mounted (in a private mount namespace, so the host is untouched) the values
     * reach the kernel: net_cls.classid and net_prio.ifpriomap of the container's cgroup.
     */
    @Test
    void networkLimitsAreWrittenWhereTheHierarchyExists(Sandbox sb) throws Exception {
        Bundle b = LifecycleTest.waitingBundle(sb);
        String id = sb.id("netok");
        ObjectNode linux = b.config().withObjectProperty("linux");
        linux.put("cgroupsPath", "/" + id);
        ObjectNode network = linux.withObjectProperty("resources").withObjectProperty("network");
        network.put("classID", 0x100001);
        network.withArrayProperty("priorities").addObject().put("name", "lo").put("priority", 7);
        b.write();
        Path hierarchy = Files.createDirectories(sb.file("net-hierarchy"));
        String jrunc = String.join(" ", sb.jrunc().command());
        String script = "set -e; mount --make-rprivate /; mount -t cgroup -o net_cls,net_prio none " + hierarchy + ";"
                + jrunc + " create --bundle " + b.dir() + " " + id + " </dev/null >/dev/null 2>&1;"
                + "echo \"classid $(cat " + hierarchy + "/" + id + "/net_cls.classid)\";"
                + "echo \"prio $(grep '^lo ' " + hierarchy + "/" + id + "/net_prio.ifpriomap)\";"
                + jrunc + " delete --force " + id + ";"
                + "[ ! -e " + hierarchy + "/" + id + " ] && echo removed";
        Process proc = new ProcessBuilder("unshare", "-m", "/bin/sh", "-c", script).redirectErrorStream(true).start();
        String out = new String(proc.getInputStream().readAllBytes());
        assertEquals(0, proc.waitFor(), out);
        Facts f = new Facts(out);
        assertAll(out,
                () -> assertEquals(Long.toString(0x100001), f.one("classid")),
                () -> assertEquals("lo 7", f.one("prio")),
                () -> assertTrue(out.lines().anyMatch("removed"::equals), "the cgroup outlived delete"));
    }
}
