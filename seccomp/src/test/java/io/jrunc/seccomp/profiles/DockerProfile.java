package io.jrunc.seccomp.profiles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jrunc.spec.LinuxSeccomp;
import io.jrunc.spec.LinuxSeccompArg;
import io.jrunc.spec.LinuxSyscall;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a docker-format seccomp profile (moby's profiles/seccomp/default.json: {@code archMap},
 * {@code syscalls} with {@code includes}/{@code excludes}) into the {@code linux.seccomp} object moby
 * writes into a container's config.json, for one {@link Target}: native architecture, bounding
 * capability set and kernel version. Test code: it makes fixtures, the runtime never sees this format.
 *
 * <p>The rules are moby's {@code setupSeccomp} (profiles/seccomp/seccomp_linux.go in moby 20.10.24, the
 * version of the fixture; the same filtering survives in later moby and in github.com/moby/profiles):
 * <ol>
 * <li>A profile with no {@code defaultAction} and no {@code syscalls} means no seccomp: {@code null}.
 * <li>{@code architectures} and {@code archMap} together are an error. {@code architectures} is copied.
 *     Of {@code archMap}, only the first entry whose {@code architecture} is the native one counts: it
 *     contributes that architecture and then its {@code subArchitectures}, in order. If none matches the
 *     list stays empty (absent in config.json), and libseccomp then uses the native architecture alone.
 * <li>{@code defaultAction} is copied. So are {@code defaultErrnoRet}, {@code flags},
 *     {@code listenerPath} and {@code listenerMetadata}, as in moby 23 and later, whose profile type embeds
 *     the OCI one; moby 20.10 has no such fields and drops them. The 20.10 default.json has none of them.
 * <li>Every {@code syscalls} entry, in order, is dropped when: {@code excludes.arches} holds the native
 *     architecture's moby name ({@code amd64}, {@code x86}, {@code arm64}, {@code s390x}... not an
 *     {@code SCMP_ARCH_} name); any of {@code excludes.caps} is in the bounding set; the kernel is at least
 *     {@code excludes.minKernel}; {@code includes.arches} is non-empty and lacks the native name; not all of
 *     {@code includes.caps} are in the bounding set; the kernel is below {@code includes.minKernel}. The
 *     checks are in that order and the first that applies drops the entry (only errors depend on it).
 * <li>Kernel versions compare as "kernel.major" only: 6.18.44-foo is 6.18. A {@code minKernel} must be
 *     "A.B" with A and B in 0..255, not 0.0; the empty string is Go's zero version 0.0, which every kernel
 *     reaches (so it includes or excludes unconditionally).
 * <li>{@code name} and {@code names} together are an error; {@code name} becomes a one-name list.
 * <li>A kept entry keeps {@code names}, {@code action}, {@code errnoRet} and {@code args} (index, value,
 *     valueTwo, op) and loses {@code comment}, {@code includes} and {@code excludes}. An empty {@code args},
 *     a {@code valueTwo} of 0 and an empty architecture list are what Go's {@code omitempty} leaves out of
 *     config.json, so they are {@code null} here, as a runtime reading moby's config.json sees them.
 * </ol>
 * moby applies this to its built-in profile (default_linux.go, from which default.json is generated) with
 * the container's {@code process.capabilities.bounding}; a default container's is {@link #DOCKER_CAPABILITIES}.
 */
public final class DockerProfile {

    private DockerProfile() {
    }

    /** moby 20.10's oci/caps DefaultCapabilities(): the bounding set of a default container. */
    public static final Set<String> DOCKER_CAPABILITIES = Set.of(
            "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
            "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
            "CAP_KILL", "CAP_AUDIT_WRITE");

    /** moby's native architecture names (goToNative's values) and the libseccomp architecture of each. */
    static final Map<String, String> NATIVE_TO_SECCOMP = Map.ofEntries(
            Map.entry("x86", "SCMP_ARCH_X86"),
            Map.entry("amd64", "SCMP_ARCH_X86_64"),
            Map.entry("arm", "SCMP_ARCH_ARM"),
            Map.entry("arm64", "SCMP_ARCH_AARCH64"),
            Map.entry("mips64", "SCMP_ARCH_MIPS64"),
            Map.entry("mips64n32", "SCMP_ARCH_MIPS64N32"),
            Map.entry("mipsel64", "SCMP_ARCH_MIPSEL64"),
            Map.entry("mips3l64n32", "SCMP_ARCH_MIPSEL64N32"),
            Map.entry("mipsle", "SCMP_ARCH_MIPSEL"),
            Map.entry("ppc", "SCMP_ARCH_PPC"),
            Map.entry("ppc64", "SCMP_ARCH_PPC64"),
            Map.entry("ppc64le", "SCMP_ARCH_PPC64LE"),
            Map.entry("s390", "SCMP_ARCH_S390"),
            Map.entry("s390x", "SCMP_ARCH_S390X"));

    /**
     * What the conversion depends on.
     *
     * @param arch moby's name for the native architecture, e.g. {@code amd64} (GOARCH through goToNative).
     * @param bounding the container's bounding capabilities, e.g. {@code CAP_SYS_ADMIN}.
     * @param kernel the host kernel's version ("6" of 6.18).
     * @param major the host kernel's major revision ("18" of 6.18).
     */
    public record Target(String arch, Set<String> bounding, int kernel, int major) {
        public Target {
            bounding = Set.copyOf(bounding);
        }

        /** A default docker container on x86-64 under Linux 6.18 (this project's machine kind). */
        public static final Target DOCKER_AMD64_LINUX_6_18 = new Target("amd64", DOCKER_CAPABILITIES, 6, 18);

        /** The same target with more bounding capabilities (docker's --cap-add). */
        public Target withCapabilities(String... added) {
            Set<String> caps = new java.util.HashSet<>(bounding);
            caps.addAll(List.of(added));
            return new Target(arch, caps, kernel, major);
        }

        boolean kernelAtLeast(int[] version) {
            return kernel > version[0] || (kernel == version[0] && major >= version[1]);
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Converts the docker-format profile {@code json} for {@code target}; null when it disables seccomp. */
    public static LinuxSeccomp convert(String json, Target target) {
        JsonNode profile;
        try {
            profile = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (profile == null || !profile.isObject()) {
            throw new IllegalArgumentException("a seccomp profile must be a JSON object");
        }
        String defaultAction = text(profile, "defaultAction");
        List<JsonNode> syscalls = elements(profile, "syscalls");
        if ((defaultAction == null || defaultAction.isEmpty()) && syscalls.isEmpty()) {
            return null;
        }
        List<String> architectures = strings(profile, "architectures");
        List<JsonNode> archMap = elements(profile, "archMap");
        if (!architectures.isEmpty() && !archMap.isEmpty()) {
            throw new IllegalArgumentException("'architectures' and 'archMap' were specified in the seccomp "
                    + "profile, use either 'architectures' or 'archMap'");
        }
        List<String> archs = new ArrayList<>(architectures);
        String seccompArch = NATIVE_TO_SECCOMP.get(target.arch());
        if (seccompArch != null) {
            for (JsonNode entry : archMap) {
                if (seccompArch.equals(text(entry, "architecture"))) {
                    archs.add(seccompArch);
                    archs.addAll(strings(entry, "subArchitectures"));
                    break;
                }
            }
        }

        List<LinuxSyscall> kept = new ArrayList<>();
        for (JsonNode call : syscalls) {
            if (applies(call, target)) {
                kept.add(syscall(call));
            }
        }
        return new LinuxSeccomp(defaultAction, integer(profile, "defaultErrnoRet"),
                archs.isEmpty() ? null : archs, nullIfEmpty(strings(profile, "flags")),
                text(profile, "listenerPath"), text(profile, "listenerMetadata"), kept.isEmpty() ? null : kept);
    }

    /** moby's includes/excludes checks, in moby's order. */
    private static boolean applies(JsonNode call, Target target) {
        JsonNode excludes = call.path("excludes");
        JsonNode includes = call.path("includes");
        if (strings(excludes, "arches").contains(target.arch())) {
            return false;
        }
        for (String cap : strings(excludes, "caps")) {
            if (target.bounding().contains(cap)) {
                return false;
            }
        }
        int[] excludedFrom = minKernel(excludes);
        if (excludedFrom != null && target.kernelAtLeast(excludedFrom)) {
            return false;
        }
        List<String> arches = strings(includes, "arches");
        if (!arches.isEmpty() && !arches.contains(target.arch())) {
            return false;
        }
        for (String cap : strings(includes, "caps")) {
            if (!target.bounding().contains(cap)) {
                return false;
            }
        }
        int[] includedFrom = minKernel(includes);
        return includedFrom == null || target.kernelAtLeast(includedFrom);
    }

    private static LinuxSyscall syscall(JsonNode call) {
        String name = text(call, "name");
        List<String> names = strings(call, "names");
        if (name != null && !name.isEmpty()) {
            if (!names.isEmpty()) {
                throw new IllegalArgumentException("'name' and 'names' were specified in the seccomp profile, "
                        + "use either 'name' or 'names'");
            }
            names = List.of(name);
        }
        List<LinuxSeccompArg> args = new ArrayList<>();
        for (JsonNode arg : elements(call, "args")) {
            if (arg.isNull()) {
                continue; // Go's []*Arg holds a nil pointer; moby would panic on it, nothing to model
            }
            long valueTwo = uint64(arg, "valueTwo");
            args.add(new LinuxSeccompArg(integer(arg, "index"), uint64(arg, "value"),
                    valueTwo == 0 ? null : valueTwo, text(arg, "op")));
        }
        return new LinuxSyscall(nullIfEmpty(names), text(call, "action"), integer(call, "errnoRet"),
                args.isEmpty() ? null : args);
    }

    /** A filter's minKernel as {kernel, major}, or null when absent; "" is Go's zero version 0.0. */
    private static int[] minKernel(JsonNode filter) {
        JsonNode node = filter.get("minKernel");
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw new IllegalArgumentException("invalid kernel version: " + node + ", expected \"<kernel>.<major>\"");
        }
        String version = node.textValue();
        if (version.isEmpty()) {
            return new int[] {0, 0};
        }
        String[] parts = version.split("\\.", 3);
        if (parts.length != 2 || !parts[0].matches("[0-9]+") || !parts[1].matches("[0-9]+")) {
            throw new IllegalArgumentException("invalid kernel version: \"" + version + "\", expected \"<kernel>.<major>\"");
        }
        BigInteger kernel = new BigInteger(parts[0]);
        BigInteger major = new BigInteger(parts[1]);
        BigInteger uint8 = BigInteger.valueOf(255);
        if (kernel.compareTo(uint8) > 0 || major.compareTo(uint8) > 0) {
            throw new IllegalArgumentException("invalid kernel version: \"" + version + "\": out of range");
        }
        if (kernel.signum() == 0 && major.signum() == 0) {
            throw new IllegalArgumentException("invalid kernel version: \"" + version + "\": version cannot be 0.0");
        }
        return new int[] {kernel.intValue(), major.intValue()};
    }

    // ---- JSON helpers: absent and null read as Go's zero values; wrong types are errors ------------

    private static String text(JsonNode object, String member) {
        JsonNode node = object.get(member);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw new IllegalArgumentException(member + " must be a string, got " + node);
        }
        return node.textValue();
    }

    private static Integer integer(JsonNode object, String member) {
        JsonNode node = object.get(member);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < 0) {
            throw new IllegalArgumentException(member + " must be an unsigned integer, got " + node);
        }
        return node.intValue();
    }

    /** A uint64 member as its bit pattern (values above Long.MAX_VALUE wrap, as in the OCI records). */
    private static long uint64(JsonNode object, String member) {
        JsonNode node = object.get(member);
        if (node == null || node.isNull()) {
            return 0;
        }
        if (!node.isIntegralNumber() || node.bigIntegerValue().signum() < 0
                || node.bigIntegerValue().bitLength() > 64) {
            throw new IllegalArgumentException(member + " must be a uint64, got " + node);
        }
        return node.bigIntegerValue().longValue();
    }

    private static List<JsonNode> elements(JsonNode object, String member) {
        JsonNode node = object.get(member);
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException(member + " must be an array, got " + node);
        }
        List<JsonNode> list = new ArrayList<>();
        node.forEach(list::add);
        return list;
    }

    private static List<String> strings(JsonNode object, String member) {
        List<String> list = new ArrayList<>();
        for (JsonNode node : elements(object, member)) {
            if (!node.isTextual()) {
                throw new IllegalArgumentException(member + " must hold strings, got " + node);
            }
            list.add(node.textValue());
        }
        return list;
    }

    private static <T> List<T> nullIfEmpty(List<T> list) {
        return list.isEmpty() ? null : list;
    }
}
