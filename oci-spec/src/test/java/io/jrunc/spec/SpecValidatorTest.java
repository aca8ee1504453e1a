package io.jrunc.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every validation message, asserted exactly. Each case edits runc's default config (valid on its own)
 * with JSON-pointer edits ({@code /pointer=json}, or {@code !/pointer} to remove) and expects exactly
 * the listed problems, separated by " | ".
 */
class SpecValidatorTest {

    static Stream<Arguments> cases() {
        return Stream.of(
                // top level
                c("ociVersion: must be set", "/ociVersion=\"\""),
                c("ociVersion: must be set", "!/ociVersion"),
                c("ociVersion: \"garbage\" is not a SemVer 2.0.0 version (MAJOR.MINOR.PATCH, as the runtime-spec"
                        + " requires)", "/ociVersion=\"garbage\""),
                c("ociVersion: \"1.0\" is not a SemVer 2.0.0 version (MAJOR.MINOR.PATCH, as the runtime-spec"
                        + " requires)", "/ociVersion=\"1.0\""),
                c("ociVersion: \"01.0.0\" is not a SemVer 2.0.0 version (MAJOR.MINOR.PATCH, as the runtime-spec"
                        + " requires)", "/ociVersion=\"01.0.0\""),
                c("ociVersion: \"1.0.2-\" is not a SemVer 2.0.0 version (MAJOR.MINOR.PATCH, as the runtime-spec"
                        + " requires)", "/ociVersion=\"1.0.2-\""),
                c("ociVersion: major version 2 is not supported (jrunc reads 1.x, up to 1.2.1)", "/ociVersion=\"2.0.0\""),
                c("process: must be set", "!/process"),
                c("root: must be set", "!/root"),
                c("root.path: must be set", "/root/path=\"\""),
                c("hostname: requires a private UTS namespace",
                        "/linux/namespaces=[{\"type\":\"pid\"},{\"type\":\"mount\"}]"),
                c("domainname: requires a private UTS namespace",
                        "!/hostname", "/domainname=\"example.org\"", "/linux/namespaces=[{\"type\":\"mount\"}]"),
                c("annotations: keys must not be empty", "/annotations={\"\":\"x\"}"),
                // process
                c("process.args: must not be empty", "/process/args=[]"),
                c("process.args: must not be empty", "!/process/args"),
                c("process.cwd: must be set", "/process/cwd=\"\""),
                c("process.cwd: must be an absolute path", "/process/cwd=\"srv\""),
                c("process.consoleSize.height: must not be negative",
                        "/process/consoleSize={\"height\":-1,\"width\":80}"),
                c("process.consoleSize.width: must not be negative",
                        "/process/consoleSize={\"height\":1,\"width\":-80}"),
                c("process.user.uid: must be between 0 and 4294967295", "/process/user/uid=4294967296"),
                c("process.user.gid: must be between 0 and 4294967295", "/process/user/gid=-1"),
                c("process.user.umask: must be between 0 and 4294967295", "/process/user/umask=-18"),
                c("process.user.additionalGids[1]: must be between 0 and 4294967295",
                        "/process/user/additionalGids=[1,-2]"),
                c("process.rlimits[0].type: unknown rlimit type \"RLIMIT_FOO\"", "/process/rlimits/0/type=\"RLIMIT_FOO\""),
                c("process.rlimits[0].type: must be set", "/process/rlimits/0/type=\"\""),
                c("process.rlimits[1].type: duplicate rlimit type \"RLIMIT_NOFILE\"",
                        "/process/rlimits/1={\"type\":\"RLIMIT_NOFILE\",\"hard\":1,\"soft\":1}"),
                c("process.rlimits[0].hard: must be set", "!/process/rlimits/0/hard"),
                c("process.rlimits[0].soft: must be set", "!/process/rlimits/0/soft"),
                c("process.oomScoreAdj: must be between -1000 and 1000", "/process/oomScoreAdj=1001"),
                c("process.oomScoreAdj: must be between -1000 and 1000", "/process/oomScoreAdj=-1001"),
                c("process.scheduler.policy: must be set", "/process/scheduler={\"nice\":0}"),
                c("process.scheduler.policy: unknown scheduler policy \"SCHED_FAST\"",
                        "/process/scheduler={\"policy\":\"SCHED_FAST\"}"),
                c("process.scheduler.nice: must be between -20 and 19",
                        "/process/scheduler={\"policy\":\"SCHED_OTHER\",\"nice\":20}"),
                c("process.scheduler.priority: must be between 0 and 99",
                        "/process/scheduler={\"policy\":\"SCHED_FIFO\",\"priority\":100}"),
                c("process.scheduler.flags[0]: unknown scheduler flag \"SCHED_FLAG_FAST\"",
                        "/process/scheduler={\"policy\":\"SCHED_OTHER\",\"flags\":[\"SCHED_FLAG_FAST\"]}"),
                c("process.ioPriority.class: must be set", "/process/ioPriority={\"priority\":1}"),
                c("process.ioPriority.class: unknown I/O priority class \"IOPRIO_CLASS_NONE\"",
                        "/process/ioPriority={\"class\":\"IOPRIO_CLASS_NONE\",\"priority\":1}"),
                c("process.ioPriority.priority: must be between 0 and 7",
                        "/process/ioPriority={\"class\":\"IOPRIO_CLASS_BE\",\"priority\":8}"),
                c("process.execCPUAffinity.initial: invalid CPU list \"3-1\"",
                        "/process/execCPUAffinity={\"initial\":\"3-1\"}"),
                c("process.execCPUAffinity.final: invalid CPU list \"0,,1\"",
                        "/process/execCPUAffinity={\"final\":\"0,,1\"}"),
                // mounts and hooks
                c("mounts[3].destination: must be an absolute path", "/mounts/3/destination=\"dev/mqueue\""),
                c("mounts[0].destination: must be set", "!/mounts/0/destination"),
                c("mounts[0].gidMappings: must be set together with uidMappings",
                        "/mounts/0/uidMappings=[{\"containerID\":0,\"hostID\":1000,\"size\":1}]"),
                c("mounts[0].uidMappings: must be set together with gidMappings",
                        "/mounts/0/gidMappings=[{\"containerID\":0,\"hostID\":1000,\"size\":1}]"),
                c("mounts[0].uidMappings[0].size: must be greater than zero",
                        "/mounts/0/uidMappings=[{\"containerID\":0,\"hostID\":1000,\"size\":0}]",
                        "/mounts/0/gidMappings=[{\"containerID\":0,\"hostID\":1000,\"size\":1}]"),
                c("hooks.prestart[0].path: must be an absolute path", "/hooks={\"prestart\":[{\"path\":\"hook\"}]}"),
                c("hooks.poststop[0].path: must be set", "/hooks={\"poststop\":[{\"args\":[\"x\"]}]}"),
                c("hooks.createRuntime[0].timeout: must be greater than zero",
                        "/hooks={\"createRuntime\":[{\"path\":\"/bin/true\",\"timeout\":0}]}"),
                c("hooks.startContainer[1].timeout: must be greater than zero",
                        "/hooks={\"startContainer\":[{\"path\":\"/a\"},{\"path\":\"/b\",\"timeout\":-5}]}"),
                // linux: namespaces and ids
                c("linux.namespaces[2].type: unknown namespace type \"foo\"", "/linux/namespaces/2/type=\"foo\""),
                c("linux.namespaces[1].type: duplicate namespace type \"pid\"", "/linux/namespaces/1/type=\"pid\""),
                c("linux.namespaces[0].type: must be set", "!/linux/namespaces/0/type"),
                c("linux.namespaces[0].path: must be an absolute path", "/linux/namespaces/0/path=\"proc/1/ns/pid\""),
                c("linux.uidMappings: requires a user namespace",
                        "/linux/uidMappings=[{\"containerID\":0,\"hostID\":1000,\"size\":1}]"),
                c("linux.gidMappings: requires a user namespace",
                        "/linux/gidMappings=[{\"containerID\":0,\"hostID\":1000,\"size\":1}]"),
                c("linux.uidMappings: must be set when creating a user namespace",
                        "/linux/namespaces/5={\"type\":\"user\"}"),
                c("linux.uidMappings[0].hostID: must be set",
                        "/linux/namespaces/5={\"type\":\"user\"}", "/linux/uidMappings=[{\"containerID\":0,\"size\":1}]",
                        "/linux/gidMappings=[{\"containerID\":0,\"hostID\":0,\"size\":1}]"),
                c("linux.uidMappings[0].containerID: must be set",
                        "/linux/namespaces/5={\"type\":\"user\"}", "/linux/uidMappings=[{\"hostID\":0,\"size\":1}]",
                        "/linux/gidMappings=[{\"containerID\":0,\"hostID\":0,\"size\":1}]"),
                c("linux.gidMappings[0].size: must be set",
                        "/linux/namespaces/5={\"type\":\"user\"}", "/linux/gidMappings=[{\"containerID\":0,\"hostID\":0}]",
                        "/linux/uidMappings=[{\"containerID\":0,\"hostID\":0,\"size\":1}]"),
                c("linux.gidMappings[0].hostID: must be between 0 and 4294967295",
                        "/linux/namespaces/5={\"type\":\"user\"}",
                        "/linux/gidMappings=[{\"containerID\":0,\"hostID\":4294967296,\"size\":1}]", "/linux/uidMappings=[{\"containerID\":0,\"hostID\":0,\"size\":1}]"),
                c("linux.gidMappings: must be set when creating a user namespace",
                        "/linux/namespaces/5={\"type\":\"user\"}", "/linux/uidMappings=[{\"containerID\":0,\"hostID\":0,\"size\":1}]"),
                c("linux.uidMappings: cannot be set when joining a user namespace by path",
                        "/linux/namespaces/5={\"type\":\"user\",\"path\":\"/proc/7/ns/user\"}", "/linux/uidMappings=[{\"containerID\":0,\"hostID\":0,\"size\":1}]"),
                c("linux.uidMappings[1].containerID: overlaps linux.uidMappings[0]",
                        "/linux/namespaces/5={\"type\":\"user\"}", "/linux/gidMappings=[{\"containerID\":0,\"hostID\":0,\"size\":1}]",
                        "/linux/uidMappings=[{\"containerID\":0,\"hostID\":1000,\"size\":10},{\"containerID\":9,\"hostID\":5000,\"size\":1}]"),
                c("linux.gidMappings[1].hostID: overlaps linux.gidMappings[0]",
                        "/linux/namespaces/5={\"type\":\"user\"}", "/linux/uidMappings=[{\"containerID\":0,\"hostID\":0,\"size\":1}]",
                        "/linux/gidMappings=[{\"containerID\":0,\"hostID\":1000,\"size\":10},{\"containerID\":10,\"hostID\":1009,\"size\":1}]"),
                c("linux.uidMappings[0]: range goes beyond id 4294967294",
                        "/linux/namespaces/5={\"type\":\"user\"}", "/linux/gidMappings=[{\"containerID\":0,\"hostID\":0,\"size\":1}]",
                        "/linux/uidMappings=[{\"containerID\":4294967295,\"hostID\":0,\"size\":1}]"),
                c("linux.timeOffsets: requires a time namespace", "/linux/timeOffsets={\"monotonic\":{\"secs\":1}}"),
                c("linux.timeOffsets: cannot be set when joining a time namespace by path",
                        "/linux/namespaces/5={\"type\":\"time\",\"path\":\"/proc/7/ns/time\"}",
                        "/linux/timeOffsets={\"monotonic\":{\"secs\":1}}"),
                c("linux.timeOffsets.realtime: unknown clock \"realtime\"",
                        "/linux/namespaces/5={\"type\":\"time\"}", "/linux/timeOffsets={\"realtime\":{\"secs\":1}}"),
                c("linux.timeOffsets.boottime.nanosecs: must be between 0 and 999999999",
                        "/linux/namespaces/5={\"type\":\"time\"}",
                        "/linux/timeOffsets={\"boottime\":{\"nanosecs\":1000000000}}"),
                // linux: devices, paths, other sections
                c("linux.sysctl: keys must not be empty", "/linux/sysctl={\"\":\"1\"}"),
                c("linux.devices[0].path: must be an absolute path",
                        "/linux/devices=[{\"path\":\"dev/null\",\"type\":\"c\",\"major\":1,\"minor\":3}]"),
                c("linux.devices[0].path: must be set", "/linux/devices=[{\"type\":\"p\"}]"),
                c("linux.devices[0].type: unknown device type \"x\"",
                        "/linux/devices=[{\"path\":\"/dev/x\",\"type\":\"x\",\"major\":1,\"minor\":3}]"),
                c("linux.devices[0].type: must be set", "/linux/devices=[{\"path\":\"/dev/x\",\"major\":1,\"minor\":3}]"),
                c("linux.devices[0].major: must be set", "/linux/devices=[{\"path\":\"/dev/x\",\"type\":\"c\",\"minor\":3}]"),
                c("linux.devices[0].minor: must be set", "/linux/devices=[{\"path\":\"/dev/x\",\"type\":\"u\",\"major\":3}]"),
                c("linux.devices[0].fileMode: must be between 0 and 4294967295",
                        "/linux/devices=[{\"path\":\"/dev/x\",\"type\":\"b\",\"major\":1,\"minor\":3,\"fileMode\":-1}]"),
                c("linux.devices[0].gid: must be between 0 and 4294967295",
                        "/linux/devices=[{\"path\":\"/run/f\",\"type\":\"p\",\"gid\":4294967296}]"),
                c("linux.netDevices: requires a network namespace",
                        "/linux/namespaces/1/type=\"cgroup\"", "/linux/netDevices={\"eth0\":{}}"),
                c("linux.netDevices[\"eth/0\"]: invalid network device name \"eth/0\"", "/linux/netDevices={\"eth/0\":{}}"),
                c("linux.netDevices.eth0.name: invalid network device name \"a-very-long-name0\"",
                        "/linux/netDevices={\"eth0\":{\"name\":\"a-very-long-name0\"}}"),
                c("linux.rootfsPropagation: unknown rootfs propagation \"shard\"", "/linux/rootfsPropagation=\"shard\""),
                c("linux.maskedPaths[0]: must be an absolute path", "/linux/maskedPaths/0=\"proc/acpi\""),
                c("linux.readonlyPaths[4]: must be set", "/linux/readonlyPaths/4=\"\""),
                c("linux.maskedPaths: requires a mount namespace | linux.readonlyPaths: requires a mount namespace",
                        "/linux/namespaces=[{\"type\":\"pid\"},{\"type\":\"uts\"}]"),
                c("linux.intelRdt.memBwSchema: must start with \"MB:\"", "/linux/intelRdt={\"memBwSchema\":\"L3:0=1\"}"),
                c("linux.intelRdt.memBwSchema: must not contain newlines",
                        "/linux/intelRdt={\"memBwSchema\":\"MB:0=1\\nMB:1=2\"}"),
                c("linux.intelRdt.schemata[1]: must not contain newlines",
                        "/linux/intelRdt={\"schemata\":[\"L3:0=f\",\"MB:0=1\\n\"]}"),
                c("linux.memoryPolicy.mode: must be set", "/linux/memoryPolicy={\"nodes\":\"0\"}"),
                c("linux.memoryPolicy.mode: unknown memory policy mode \"MPOL_FAST\"",
                        "/linux/memoryPolicy={\"mode\":\"MPOL_FAST\"}"),
                c("linux.memoryPolicy.nodes: must be set for MPOL_BIND", "/linux/memoryPolicy={\"mode\":\"MPOL_BIND\"}"),
                c("linux.memoryPolicy.nodes: must be empty for MPOL_LOCAL",
                        "/linux/memoryPolicy={\"mode\":\"MPOL_LOCAL\",\"nodes\":\"1\"}"),
                c("linux.memoryPolicy.nodes: invalid node list \"a\"",
                        "/linux/memoryPolicy={\"mode\":\"MPOL_PREFERRED\",\"nodes\":\"a\"}"),
                c("linux.memoryPolicy.flags[0]: unknown memory policy flag \"MPOL_F_FAST\"",
                        "/linux/memoryPolicy={\"mode\":\"MPOL_DEFAULT\",\"flags\":[\"MPOL_F_FAST\"]}"),
                c("linux.personality.domain: must be set", "/linux/personality={\"flags\":[]}"),
                c("linux.personality.domain: unknown personality domain \"LINUX64\"",
                        "/linux/personality={\"domain\":\"LINUX64\"}"),
                // linux.resources
                c("linux.resources.devices[0].type: unknown device type \"x\"", "/linux/resources/devices/0/type=\"x\""),
                c("linux.resources.devices[0].access: invalid access \"rwx\"", "/linux/resources/devices/0/access=\"rwx\""),
                c("linux.resources.memory.limit: must be -1 (unlimited) or a number of bytes",
                        "/linux/resources/memory={\"limit\":-2}"),
                c("linux.resources.memory.reservation: must be -1 (unlimited) or a number of bytes",
                        "/linux/resources/memory={\"reservation\":-5}"),
                c("linux.resources.memory.swap: must be -1 (unlimited) or a number of bytes",
                        "/linux/resources/memory={\"limit\":1048576,\"swap\":-2}"),
                c("linux.resources.memory.kernel: must be -1 (unlimited) or a number of bytes",
                        "/linux/resources/memory={\"kernel\":-3}"),
                c("linux.resources.memory.kernelTCP: must be -1 (unlimited) or a number of bytes",
                        "/linux/resources/memory={\"kernelTCP\":-3}"),
                c("linux.resources.memory.swappiness: must be between 0 and 100",
                        "/linux/resources/memory={\"swappiness\":101}"),
                c("linux.resources.cpu.cpus: invalid CPU list \"0-\"", "/linux/resources/cpu={\"cpus\":\"0-\"}"),
                c("linux.resources.cpu.mems: invalid node list \"x\"", "/linux/resources/cpu={\"mems\":\"x\"}"),
                c("linux.resources.cpu.idle: must be between 0 and 1", "/linux/resources/cpu={\"idle\":2}"),
                c("linux.resources.blockIO.weight: must be between 0 and 65535",
                        "/linux/resources/blockIO={\"weight\":65536}"),
                c("linux.resources.blockIO.leafWeight: must be between 0 and 65535",
                        "/linux/resources/blockIO={\"leafWeight\":-1}"),
                c("linux.resources.blockIO.weightDevice[0]: weight or leafWeight must be set",
                        "/linux/resources/blockIO={\"weightDevice\":[{\"major\":8,\"minor\":0}]}"),
                c("linux.resources.blockIO.weightDevice[0].major: must be set",
                        "/linux/resources/blockIO={\"weightDevice\":[{\"minor\":0,\"weight\":10}]}"),
                c("linux.resources.blockIO.throttleReadBpsDevice[0].rate: must be set",
                        "/linux/resources/blockIO={\"throttleReadBpsDevice\":[{\"major\":8,\"minor\":0}]}"),
                c("linux.resources.blockIO.throttleWriteIOPSDevice[0].minor: must be set",
                        "/linux/resources/blockIO={\"throttleWriteIOPSDevice\":[{\"major\":8,\"rate\":5}]}"),
                c("linux.resources.hugepageLimits[0].pageSize: must be set",
                        "/linux/resources/hugepageLimits=[{\"limit\":1}]"),
                c("linux.resources.hugepageLimits[0].limit: must be set",
                        "/linux/resources/hugepageLimits=[{\"pageSize\":\"2MB\"}]"),
                c("linux.resources.network.classID: must be between 0 and 4294967295",
                        "/linux/resources/network={\"classID\":-1}"),
                c("linux.resources.network.priorities[0].name: must be set",
                        "/linux/resources/network={\"priorities\":[{\"priority\":1}]}"),
                c("linux.resources.network.priorities[0].priority: must be set",
                        "/linux/resources/network={\"priorities\":[{\"name\":\"eth0\"}]}"),
                c("linux.resources.rdma.mlx5_0: hcaHandles or hcaObjects must be set",
                        "/linux/resources/rdma={\"mlx5_0\":{}}"),
                c("linux.resources.rdma.mlx5_0.hcaObjects: must be between 0 and 4294967295",
                        "/linux/resources/rdma={\"mlx5_0\":{\"hcaObjects\":-1}}"),
                c("linux.resources.unified[\"../memory.max\"]: must be a file name, not a path",
                        "/linux/resources/unified={\"../memory.max\":\"1\"}"),
                c("linux.resources.unified: keys must not be empty", "/linux/resources/unified={\"\":\"1\"}"),
                // linux.seccomp
                c("linux.seccomp.defaultAction: must be set", "/linux/seccomp={}"),
                c("linux.seccomp.defaultAction: unknown seccomp action \"SCMP_ACT_PANIC\"",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_PANIC\"}"),
                c("linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default action",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_NOTIFY\",\"listenerPath\":\"/run/a.sock\"}"),
                c("linux.seccomp.defaultErrnoRet: only allowed with SCMP_ACT_ERRNO or SCMP_ACT_TRACE",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\",\"defaultErrnoRet\":1}"),
                c("linux.seccomp.defaultErrnoRet: must not be negative",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ERRNO\",\"defaultErrnoRet\":-1}"),
                c("linux.seccomp.architectures[1]: unknown seccomp architecture \"SCMP_ARCH_Z80\"",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\","
                                + "\"architectures\":[\"SCMP_ARCH_X86_64\",\"SCMP_ARCH_Z80\"]}"),
                c("linux.seccomp.flags[0]: unknown seccomp flag \"SECCOMP_FILTER_FLAG_FAST\"",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\",\"flags\":[\"SECCOMP_FILTER_FLAG_FAST\"]}"),
                c("linux.seccomp.listenerPath: must be set when SCMP_ACT_NOTIFY is used",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\","
                                + "\"syscalls\":[{\"names\":[\"mkdir\"],\"action\":\"SCMP_ACT_NOTIFY\"}]}"),
                c("linux.seccomp.listenerMetadata: must not be set without listenerPath",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\",\"listenerMetadata\":\"x\"}"),
                c("linux.seccomp.syscalls[0].names: must not be empty",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\","
                                + "\"syscalls\":[{\"names\":[],\"action\":\"SCMP_ACT_ERRNO\"}]}"),
                c("linux.seccomp.syscalls[0].names[1]: must be set",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\","
                                + "\"syscalls\":[{\"names\":[\"read\",\"\"],\"action\":\"SCMP_ACT_ERRNO\"}]}"),
                c("linux.seccomp.syscalls[0].action: must be set",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"]}]}"),
                c("linux.seccomp.syscalls[0].action: unknown seccomp action \"SCMP_ACT_DENY\"",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\","
                                + "\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_DENY\"}]}"),
                c("linux.seccomp.syscalls[0].errnoRet: only allowed with SCMP_ACT_ERRNO or SCMP_ACT_TRACE",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ERRNO\","
                                + "\"syscalls\":[{\"names\":[\"read\"],\"action\":\"SCMP_ACT_ALLOW\",\"errnoRet\":1}]}"),
                c("linux.seccomp.syscalls[0].args[0].index: must be between 0 and 5",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"],"
                                + "\"action\":\"SCMP_ACT_ERRNO\",\"args\":[{\"index\":6,\"value\":1,\"op\":\"SCMP_CMP_EQ\"}]}]}"),
                c("linux.seccomp.syscalls[0].args[0].op: must be set",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"],"
                                + "\"action\":\"SCMP_ACT_ERRNO\",\"args\":[{\"index\":0,\"value\":1}]}]}"),
                c("linux.seccomp.syscalls[0].args[1].op: unknown seccomp operator \"SCMP_CMP_XX\"",
                        "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"],"
                                + "\"action\":\"SCMP_ACT_ERRNO\",\"args\":[{\"index\":0,\"value\":1,\"op\":\"SCMP_CMP_EQ\"},"
                                + "{\"index\":1,\"value\":1,\"op\":\"SCMP_CMP_XX\"}]}]}"));
    }

    private static Arguments c(String expected, String... edits) {
        return Arguments.of(expected, List.of(edits));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void reportsExactlyTheExpectedProblems(String expected, List<String> edits) throws SpecException {
        Spec spec = Json.read(Json.write(edited(edits)), Spec.class);

        List<String> problems = SpecValidator.problems(spec).stream().map(SpecProblem::toString).toList();

        assertEquals(Arrays.asList(expected.split(" \\| ")), problems);
        SpecException thrown = assertThrows(SpecException.class, () -> SpecValidator.validate(spec));
        assertEquals(problems.getFirst(), thrown.getMessage());
    }

    @Test
    void runcDefaultsAreValid() {
        assertEquals(List.of(), SpecValidator.problems(DefaultSpec.example(false)));
        assertEquals(List.of(), SpecValidator.problems(DefaultSpec.example(true)));
        assertEquals(List.of(), SpecValidator.problems(DefaultSpec.rootless(true, 1000, 1000)));
    }

    @Test
    void fixtureSettingEveryFieldIsValid() throws SpecException {
        assertEquals(List.of(), SpecValidator.problems(Json.read(Fixtures.text("every-field.json"), Spec.class)));
    }

    @Test
    void absentRequiredMembersWithAUsableGoDefaultAreAccepted() throws SpecException {
        Spec spec = Json.read(Json.write(edited(List.of(
                "!/process/user",
                "/linux/resources/devices/0={\"access\":\"rwm\"}",
                "/linux/resources/memory={\"swappiness\":18446744073709551615}",
                "/linux/seccomp={\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"kill\"],"
                        + "\"action\":\"SCMP_ACT_ERRNO\",\"args\":[{\"index\":1,\"op\":\"SCMP_CMP_EQ\"}]}]}"))), Spec.class);
        assertEquals(List.of(), SpecValidator.problems(spec));
    }

    @Test
    void reportsEveryProblemInDocumentOrderAndThrowsTheFirst() throws SpecException {
        Spec spec = Json.read(Json.write(edited(List.of(
                "/linux/namespaces/2/type=\"foo\"", "/process/cwd=\"rel\"", "!/ociVersion",
                "/mounts/1/destination=\"dev\""))), Spec.class);

        SpecException thrown = assertThrows(SpecException.class, () -> SpecValidator.validate(spec));

        assertEquals("ociVersion: must be set", thrown.getMessage());
        assertEquals("ociVersion", thrown.path());
        assertEquals("must be set", thrown.problem());
        assertEquals(List.of(
                new SpecProblem("ociVersion", "must be set"),
                new SpecProblem("process.cwd", "must be an absolute path"),
                new SpecProblem("mounts[1].destination", "must be an absolute path"),
                new SpecProblem("linux.namespaces[2].type", "unknown namespace type \"foo\"")), thrown.problems());
    }

    @Test
    void aLoneProcessIsCheckedWithPathsRelativeToIt() throws SpecException {
        Process process = Json.read("{\"cwd\":\"/\",\"args\":[],\"user\":{\"uid\":-1}}", Process.class);

        SpecException thrown = assertThrows(SpecException.class, () -> SpecValidator.validateProcess(process));

        assertEquals(List.of(new SpecProblem("user.uid", "must be between 0 and 4294967295"),
                new SpecProblem("args", "must not be empty")), thrown.problems());
    }

    /** runc's default config with the given edits applied. */
    static JsonNode edited(List<String> edits) {
        ObjectNode document = (ObjectNode) Fixtures.tree(Json.write(DefaultSpec.example(false)));
        for (String edit : edits) {
            boolean remove = edit.startsWith("!");
            String pointerText = remove ? edit.substring(1) : edit.substring(0, edit.indexOf('='));
            JsonPointer pointer = JsonPointer.compile(pointerText);
            JsonNode parent = document.at(pointer.head());
            String last = pointer.last().getMatchingProperty();
            if (remove) {
                if (parent instanceof ArrayNode array) {
                    array.remove(Integer.parseInt(last));
                } else {
                    ((ObjectNode) parent).remove(last);
                }
                continue;
            }
            JsonNode value = Fixtures.tree(edit.substring(edit.indexOf('=') + 1));
            if (parent instanceof ArrayNode array) {
                int index = Integer.parseInt(last);
                if (index == array.size()) {
                    array.add(value);
                } else {
                    array.set(index, value);
                }
            } else {
                ((ObjectNode) parent).set(last, value);
            }
        }
        return document;
    }

    @Test
    void semVerVersionsTheClientsSendAreAccepted() {
        // runc 1.1's spec, podman/buildah, containerd, Docker 20.10, and SemVer's own examples
        for (String v : List.of("1.0.2-dev", "1.0.0", "1.1.0", "1.2.1", "1.0.0-rc.1+build.5", "1.0.0-alpha.beta",
                "1.0.0+20130313144700", "1.3.0-x.7.z.92")) {
            assertEquals(null, SpecVersion.problem(v), v);
        }
        for (String v : List.of("1", "1.0.0.0", "1.0.0-01", "1.0.0+", "1.0.0-a..b", "v1.0.0", " 1.0.0", "1.0.x")) {
            assertEquals(true, SpecVersion.problem(v) != null, v);
        }
    }
}
