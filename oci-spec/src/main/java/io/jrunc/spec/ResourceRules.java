package io.jrunc.spec;

import java.util.List;
import java.util.Set;

/** Validation of {@code linux.resources} (config-linux.md, Control groups). */
final class ResourceRules {

    static final Set<String> DEVICE_CGROUP_TYPES = Set.of("a", "c", "b");

    /** Swappiness is uint64; old Docker sent -1 (all ones) for "unset" and runc still skips it. */
    private static final long SWAPPINESS_UNSET = -1L;

    private ResourceRules() {
    }

    static void check(LinuxResources resources, JsonPath path, Problems problems) {
        checkDeviceRules(resources.devices(), path.field("devices"), problems);
        if (resources.memory() != null) {
            checkMemory(resources.memory(), path.field("memory"), problems);
        }
        if (resources.cpu() != null) {
            JsonPath cpu = path.field("cpu");
            problems.cpuList(cpu.field("cpus"), resources.cpu().cpus(), "CPU");
            problems.cpuList(cpu.field("mems"), resources.cpu().mems(), "node");
            problems.range(cpu.field("idle"), resources.cpu().idle(), 0, 1);
        }
        if (resources.blockIO() != null) {
            checkBlockIO(resources.blockIO(), path.field("blockIO"), problems);
        }
        checkHugepages(resources.hugepageLimits(), path.field("hugepageLimits"), problems);
        if (resources.network() != null) {
            checkNetwork(resources.network(), path.field("network"), problems);
        }
        if (resources.rdma() != null) {
            resources.rdma().forEach((device, rdma) -> {
                JsonPath at = path.field("rdma").field(device);
                if (rdma.hcaHandles() == null && rdma.hcaObjects() == null) {
                    problems.add(at, "hcaHandles or hcaObjects must be set");
                }
                problems.uint32(at.field("hcaHandles"), rdma.hcaHandles());
                problems.uint32(at.field("hcaObjects"), rdma.hcaObjects());
            });
        }
        checkUnified(resources, path.field("unified"), problems);
    }

    private static void checkDeviceRules(List<LinuxDeviceCgroup> rules, JsonPath path, Problems problems) {
        if (rules == null) {
            return;
        }
        for (int i = 0; i < rules.size(); i++) {
            LinuxDeviceCgroup rule = rules.get(i);
            JsonPath at = path.index(i);
            problems.known(at.field("type"), rule.type(), DEVICE_CGROUP_TYPES, "device type");
            String access = rule.access();
            if (access != null && !isAccess(access)) {
                problems.add(at.field("access"), "invalid access \"" + access + "\"");
            }
        }
    }

    /** Only r, w and m. A loop rather than a stream: this runs on every load, in a cold JVM. */
    private static boolean isAccess(String access) {
        for (int i = 0; i < access.length(); i++) {
            char c = access.charAt(i);
            if (c != 'r' && c != 'w' && c != 'm') {
                return false;
            }
        }
        return true;
    }

    /** Byte values are a count or -1 for unlimited (config-linux.md, Memory); nothing else has a meaning. */
    private static void checkMemory(LinuxMemory memory, JsonPath path, Problems problems) {
        checkBytes(path.field("limit"), memory.limit(), problems);
        checkBytes(path.field("reservation"), memory.reservation(), problems);
        checkBytes(path.field("swap"), memory.swap(), problems);
        checkBytes(path.field("kernel"), memory.kernel(), problems);
        checkBytes(path.field("kernelTCP"), memory.kernelTCP(), problems);
        Long swappiness = memory.swappiness();
        if (swappiness != null && swappiness != SWAPPINESS_UNSET && Long.compareUnsigned(swappiness, 100) > 0) {
            problems.add(path.field("swappiness"), "must be between 0 and 100");
        }
    }

    private static void checkBytes(JsonPath path, Long value, Problems problems) {
        if (value != null && value < -1) {
            problems.add(path, "must be -1 (unlimited) or a number of bytes");
        }
    }

    private static void checkBlockIO(LinuxBlockIO blockIO, JsonPath path, Problems problems) {
        problems.uint16(path.field("weight"), blockIO.weight());
        problems.uint16(path.field("leafWeight"), blockIO.leafWeight());
        List<LinuxWeightDevice> weights = blockIO.weightDevice();
        if (weights != null) {
            for (int i = 0; i < weights.size(); i++) {
                LinuxWeightDevice device = weights.get(i);
                JsonPath at = path.field("weightDevice").index(i);
                problems.requireSet(at.field("major"), device.major());
                problems.requireSet(at.field("minor"), device.minor());
                if (device.weight() == null && device.leafWeight() == null) {
                    problems.add(at, "weight or leafWeight must be set");
                }
                problems.uint16(at.field("weight"), device.weight());
                problems.uint16(at.field("leafWeight"), device.leafWeight());
            }
        }
        checkThrottles(blockIO.throttleReadBpsDevice(), path.field("throttleReadBpsDevice"), problems);
        checkThrottles(blockIO.throttleWriteBpsDevice(), path.field("throttleWriteBpsDevice"), problems);
        checkThrottles(blockIO.throttleReadIOPSDevice(), path.field("throttleReadIOPSDevice"), problems);
        checkThrottles(blockIO.throttleWriteIOPSDevice(), path.field("throttleWriteIOPSDevice"), problems);
    }

    private static void checkThrottles(List<LinuxThrottleDevice> throttles, JsonPath path, Problems problems) {
        if (throttles == null) {
            return;
        }
        for (int i = 0; i < throttles.size(); i++) {
            LinuxThrottleDevice device = throttles.get(i);
            JsonPath at = path.index(i);
            problems.requireSet(at.field("major"), device.major());
            problems.requireSet(at.field("minor"), device.minor());
            problems.requireSet(at.field("rate"), device.rate());
        }
    }

    private static void checkHugepages(List<LinuxHugepageLimit> limits, JsonPath path, Problems problems) {
        if (limits == null) {
            return;
        }
        for (int i = 0; i < limits.size(); i++) {
            problems.requireSet(path.index(i).field("pageSize"), limits.get(i).pageSize());
            problems.requireSet(path.index(i).field("limit"), limits.get(i).limit());
        }
    }

    private static void checkNetwork(LinuxNetwork network, JsonPath path, Problems problems) {
        problems.uint32(path.field("classID"), network.classID());
        List<LinuxInterfacePriority> priorities = network.priorities();
        if (priorities != null) {
            for (int i = 0; i < priorities.size(); i++) {
                JsonPath at = path.field("priorities").index(i);
                problems.requireSet(at.field("name"), priorities.get(i).name());
                if (problems.requireSet(at.field("priority"), priorities.get(i).priority())) {
                    problems.uint32(at.field("priority"), priorities.get(i).priority());
                }
            }
        }
    }

    /** Keys are file names inside the container's cgroup; a '/' would write outside it. */
    private static void checkUnified(LinuxResources resources, JsonPath path, Problems problems) {
        if (resources.unified() == null) {
            return;
        }
        SpecValidator.checkKeys(resources.unified(), path, problems);
        for (String key : resources.unified().keySet()) {
            if (key.contains("/")) {
                problems.add(path.field(key), "must be a file name, not a path");
            }
        }
    }
}
