package io.jrunc.spec;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Validation of {@code linux} (config-linux.md) apart from resources and seccomp. */
final class LinuxRules {

    static final Set<String> DEVICE_TYPES = Set.of("c", "b", "u", "p");

    /** The spec names four; runc also takes the recursive forms, and so do callers. */
    static final Set<String> ROOTFS_PROPAGATIONS = Set.of(
            "shared", "slave", "private", "unbindable", "rshared", "rslave", "rprivate", "runbindable");

    static final Set<String> CLOCKS = Set.of("monotonic", "boottime");

    static final Set<String> PERSONALITY_DOMAINS = Set.of("LINUX", "LINUX32");

    static final Set<String> MEMORY_POLICY_MODES = Set.of(
            "MPOL_DEFAULT", "MPOL_BIND", "MPOL_INTERLEAVE", "MPOL_WEIGHTED_INTERLEAVE", "MPOL_PREFERRED",
            "MPOL_PREFERRED_MANY", "MPOL_LOCAL");

    /** set_mempolicy(2): these modes take no node mask ... */
    private static final Set<String> MODES_WITHOUT_NODES = Set.of("MPOL_DEFAULT", "MPOL_LOCAL");
    /** ... and these need at least one node. MPOL_PREFERRED takes either. */
    private static final Set<String> MODES_WITH_NODES = Set.of(
            "MPOL_BIND", "MPOL_INTERLEAVE", "MPOL_WEIGHTED_INTERLEAVE", "MPOL_PREFERRED_MANY");

    static final Set<String> MEMORY_POLICY_FLAGS = Set.of(
            "MPOL_F_NUMA_BALANCING", "MPOL_F_RELATIVE_NODES", "MPOL_F_STATIC_NODES");

    /** Linux's IFNAMSIZ is 16 including the terminating NUL. */
    private static final int MAX_INTERFACE_NAME = 15;

    private LinuxRules() {
    }

    /** The namespace types listed in {@code linux.namespaces}, as written (possibly unknown). */
    static List<String> namespaceTypes(Linux linux) {
        List<String> types = new ArrayList<>();
        if (linux != null && linux.namespaces() != null) {
            for (LinuxNamespace namespace : linux.namespaces()) {
                types.add(namespace.type());
            }
        }
        return types;
    }

    private static String namespacePath(Linux linux, NamespaceType type) {
        if (linux.namespaces() != null) {
            for (LinuxNamespace namespace : linux.namespaces()) {
                if (type.jsonName().equals(namespace.type())) {
                    return namespace.path() == null ? "" : namespace.path();
                }
            }
        }
        return null;
    }

    static void check(Linux linux, JsonPath path, Problems problems) {
        checkUserNamespace(linux, path, problems);
        checkIdMappings(linux.uidMappings(), path.field("uidMappings"), problems);
        checkIdMappings(linux.gidMappings(), path.field("gidMappings"), problems);
        checkRanges(linux.uidMappings(), path.field("uidMappings"), problems);
        checkRanges(linux.gidMappings(), path.field("gidMappings"), problems);
        SpecValidator.checkKeys(linux.sysctl(), path.field("sysctl"), problems);
        if (linux.resources() != null) {
            ResourceRules.check(linux.resources(), path.field("resources"), problems);
        }
        checkNamespaces(linux.namespaces(), path.field("namespaces"), problems);
        checkDevices(linux.devices(), path.field("devices"), problems);
        checkNetDevices(linux, path.field("netDevices"), problems);
        if (linux.seccomp() != null) {
            SeccompRules.check(linux.seccomp(), path.field("seccomp"), problems);
        }
        problems.known(path.field("rootfsPropagation"), linux.rootfsPropagation(), ROOTFS_PROPAGATIONS,
                "rootfs propagation");
        checkPathList(linux, linux.maskedPaths(), path.field("maskedPaths"), problems);
        checkPathList(linux, linux.readonlyPaths(), path.field("readonlyPaths"), problems);
        if (linux.intelRdt() != null) {
            checkIntelRdt(linux.intelRdt(), path.field("intelRdt"), problems);
        }
        if (linux.memoryPolicy() != null) {
            checkMemoryPolicy(linux.memoryPolicy(), path.field("memoryPolicy"), problems);
        }
        if (linux.personality() != null) {
            problems.requireKnown(path.field("personality").field("domain"), linux.personality().domain(),
                    PERSONALITY_DOMAINS, "personality domain");
        }
        checkTimeOffsets(linux, path.field("timeOffsets"), problems);
    }

    /** As runc: mappings need a user namespace, and a new user namespace needs mappings. */
    private static void checkUserNamespace(Linux linux, JsonPath path, Problems problems) {
        String userNamespacePath = namespacePath(linux, NamespaceType.USER);
        boolean hasMappings = linux.uidMappings() != null || linux.gidMappings() != null;
        if (userNamespacePath == null && hasMappings) {
            String member = linux.uidMappings() != null ? "uidMappings" : "gidMappings";
            problems.add(path.field(member), "requires a user namespace");
        } else if (userNamespacePath != null && userNamespacePath.isEmpty()) {
            if (linux.uidMappings() == null || linux.uidMappings().isEmpty()) {
                problems.add(path.field("uidMappings"), "must be set when creating a user namespace");
            } else if (linux.gidMappings() == null || linux.gidMappings().isEmpty()) {
                problems.add(path.field("gidMappings"), "must be set when creating a user namespace");
            }
        } else if (userNamespacePath != null && hasMappings) {
            // runc: a joined namespace has its maps already
            String member = linux.uidMappings() != null ? "uidMappings" : "gidMappings";
            problems.add(path.field(member), "cannot be set when joining a user namespace by path");
        }
    }

    /**
     * What the kernel refuses in a map (user_namespaces(7)): ranges whose container or host ids
     * overlap another's, and a range that runs past the last id (4294967295 is never mapped).
     */
    private static void checkRanges(List<LinuxIDMapping> mappings, JsonPath path, Problems problems) {
        if (mappings == null) {
            return;
        }
        for (int i = 0; i < mappings.size(); i++) {
            LinuxIDMapping m = mappings.get(i);
            if (m.containerID() == null || m.hostID() == null || m.size() == null || m.size() <= 0
                    || m.containerID() < 0 || m.hostID() < 0 || m.containerID() > UINT32_LAST || m.hostID() > UINT32_LAST
                    || m.size() > UINT32_LAST) {
                return; // reported by checkIdMappings
            }
            if (m.containerID() + m.size() > UINT32_LAST || m.hostID() + m.size() > UINT32_LAST) {
                problems.add(path.index(i), "range goes beyond id " + (UINT32_LAST - 1));
            }
            for (int j = 0; j < i; j++) {
                LinuxIDMapping o = mappings.get(j);
                if (o.containerID() == null || o.hostID() == null || o.size() == null) {
                    continue;
                }
                if (overlap(m.containerID(), m.size(), o.containerID(), o.size())) {
                    problems.add(path.index(i).field("containerID"), "overlaps " + path.index(j));
                } else if (overlap(m.hostID(), m.size(), o.hostID(), o.size())) {
                    problems.add(path.index(i).field("hostID"), "overlaps " + path.index(j));
                }
            }
        }
    }

    private static final long UINT32_LAST = 0xffffffffL;

    private static boolean overlap(long a, long aSize, long b, long bSize) {
        return a < b + bSize && b < a + aSize;
    }

    static void checkIdMappings(List<LinuxIDMapping> mappings, JsonPath path, Problems problems) {
        if (mappings == null) {
            return;
        }
        for (int i = 0; i < mappings.size(); i++) {
            LinuxIDMapping mapping = mappings.get(i);
            JsonPath at = path.index(i);
            // A missing hostID would silently map to host root: no zero-value defaults here.
            if (problems.requireSet(at.field("containerID"), mapping.containerID())) {
                problems.uint32(at.field("containerID"), mapping.containerID());
            }
            if (problems.requireSet(at.field("hostID"), mapping.hostID())) {
                problems.uint32(at.field("hostID"), mapping.hostID());
            }
            if (problems.requireSet(at.field("size"), mapping.size())) {
                if (mapping.size() <= 0) {
                    problems.add(at.field("size"), "must be greater than zero");
                } else {
                    problems.uint32(at.field("size"), mapping.size());
                }
            }
        }
    }

    private static void checkNamespaces(List<LinuxNamespace> namespaces, JsonPath path, Problems problems) {
        if (namespaces == null) {
            return;
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < namespaces.size(); i++) {
            LinuxNamespace namespace = namespaces.get(i);
            JsonPath type = path.index(i).field("type");
            if (!problems.requireSet(type, namespace.type())) {
                continue;
            }
            if (NamespaceType.fromJsonName(namespace.type()).isEmpty()) {
                problems.add(type, "unknown namespace type \"" + namespace.type() + "\"");
            } else if (!seen.add(namespace.type())) {
                problems.add(type, "duplicate namespace type \"" + namespace.type() + "\"");
            }
            if (namespace.path() != null && !namespace.path().isEmpty()) {
                problems.requireAbsolute(path.index(i).field("path"), namespace.path());
            }
        }
    }

    private static void checkDevices(List<LinuxDevice> devices, JsonPath path, Problems problems) {
        if (devices == null) {
            return;
        }
        for (int i = 0; i < devices.size(); i++) {
            LinuxDevice device = devices.get(i);
            JsonPath at = path.index(i);
            problems.requireAbsolutePath(at.field("path"), device.path());
            problems.requireKnown(at.field("type"), device.type(), DEVICE_TYPES, "device type");
            if (!"p".equals(device.type())) {
                // A FIFO has no numbers; every other node does, and 0:0 is never what was meant.
                problems.requireSet(at.field("major"), device.major());
                problems.requireSet(at.field("minor"), device.minor());
            }
            problems.uint32(at.field("fileMode"), device.fileMode());
            problems.uint32(at.field("uid"), device.uid());
            problems.uint32(at.field("gid"), device.gid());
        }
    }

    private static void checkNetDevices(Linux linux, JsonPath path, Problems problems) {
        Map<String, LinuxNetDevice> devices = linux.netDevices();
        if (devices == null || devices.isEmpty()) {
            return;
        }
        if (namespacePath(linux, NamespaceType.NETWORK) == null) {
            problems.add(path, "requires a network namespace");
        }
        devices.forEach((hostName, device) -> {
            if (!isInterfaceName(hostName)) {
                problems.add(path.field(hostName), "invalid network device name \"" + hostName + "\"");
            }
            if (device.name() != null && !device.name().isEmpty() && !isInterfaceName(device.name())) {
                problems.add(path.field(hostName).field("name"),
                        "invalid network device name \"" + device.name() + "\"");
            }
        });
    }

    /** The kernel's dev_valid_name(): 1-15 bytes, not "." or "..", no '/', ':' or whitespace. */
    private static boolean isInterfaceName(String name) {
        if (name.isEmpty() || name.length() > MAX_INTERFACE_NAME || name.equals(".") || name.equals("..")) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == ':' || Character.isWhitespace(c)) {
                return false;
            }
        }
        return true;
    }

    /** Masked and read-only paths are in the container's view, so they need its own mount namespace. */
    private static void checkPathList(Linux linux, List<String> paths, JsonPath path, Problems problems) {
        if (paths == null) {
            return;
        }
        if (!paths.isEmpty() && namespacePath(linux, NamespaceType.MOUNT) == null) {
            problems.add(path, "requires a mount namespace");
        }
        for (int i = 0; i < paths.size(); i++) {
            problems.requireAbsolutePath(path.index(i), paths.get(i));
        }
    }

    private static void checkIntelRdt(LinuxIntelRdt rdt, JsonPath path, Problems problems) {
        String bandwidth = rdt.memBwSchema();
        if (bandwidth != null && !bandwidth.isEmpty() && !bandwidth.startsWith("MB:")) {
            problems.add(path.field("memBwSchema"), "must start with \"MB:\"");
        }
        if (bandwidth != null && bandwidth.contains("\n")) {
            problems.add(path.field("memBwSchema"), "must not contain newlines");
        }
        if (rdt.schemata() != null) {
            for (int i = 0; i < rdt.schemata().size(); i++) {
                if (rdt.schemata().get(i).contains("\n")) {
                    problems.add(path.field("schemata").index(i), "must not contain newlines");
                }
            }
        }
    }

    private static void checkMemoryPolicy(LinuxMemoryPolicy policy, JsonPath path, Problems problems) {
        String mode = policy.mode();
        problems.requireKnown(path.field("mode"), mode, MEMORY_POLICY_MODES, "memory policy mode");
        boolean hasNodes = policy.nodes() != null && !policy.nodes().isEmpty();
        problems.cpuList(path.field("nodes"), policy.nodes(), "node");
        // Set.of(...).contains(null) throws; a missing mode is reported above.
        if (mode != null && hasNodes && MODES_WITHOUT_NODES.contains(mode)) {
            problems.add(path.field("nodes"), "must be empty for " + mode);
        } else if (mode != null && !hasNodes && MODES_WITH_NODES.contains(mode)) {
            problems.add(path.field("nodes"), "must be set for " + mode);
        }
        problems.eachKnown(path.field("flags"), policy.flags(), MEMORY_POLICY_FLAGS, "memory policy flag");
    }

    private static void checkTimeOffsets(Linux linux, JsonPath path, Problems problems) {
        Map<String, LinuxTimeOffset> offsets = linux.timeOffsets();
        if (offsets == null) {
            return;
        }
        String timeNamespacePath = namespacePath(linux, NamespaceType.TIME);
        if (timeNamespacePath == null) {
            problems.add(path, "requires a time namespace");
        } else if (!timeNamespacePath.isEmpty()) {
            // Offsets can only be written before the first process enters a new time namespace.
            problems.add(path, "cannot be set when joining a time namespace by path");
        }
        offsets.forEach((clock, offset) -> {
            problems.known(path.field(clock), clock, CLOCKS, "clock");
            problems.range(path.field(clock).field("nanosecs"), offset.nanosecs(), 0, 999_999_999);
        });
    }
}
