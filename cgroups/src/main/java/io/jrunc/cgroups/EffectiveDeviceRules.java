package io.jrunc.cgroups;

import io.jrunc.bindings.Bpf;
import io.jrunc.spec.LinuxDeviceCgroup;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a list of OCI device rules amounts to, computed as runc computes it for cgroup v2
 * (opencontainers/cgroups {@code devices/devices_emulator.go}, which emulates the cgroup v1 devices
 * controller so that both versions behave alike): a default (allow or deny every device) and a set of
 * exceptions to it, each a (type, major, minor) with the accesses it covers.
 *
 * <p>The rules are applied in order to a state that starts as "deny everything, no exceptions":
 * <ul>
 * <li>a rule of type {@code a} (or no type) resets the state: its allow flag becomes the default and
 *     every exception is dropped. Its major, minor and access are ignored, as the v1 kernel ignores
 *     them for "a";</li>
 * <li>any other rule whose action differs from the default adds its accesses to the exception with
 *     exactly its (type, major, minor) (merged, not a new entry);</li>
 * <li>a rule whose action equals the default removes its accesses from that exact exception (dropped
 *     when none remain). It does not touch other exceptions that merely overlap: denying
 *     {@code c 1:*} leaves an earlier allow of {@code c 1:5} in place. If a wildcard exception that
 *     covers the rule ({@code t *:minor}, {@code t major:*} or {@code t *:*}) shares one of its
 *     accesses, the rule is refused: it would punch a hole in a wildcard, which neither the v1
 *     controller nor this model can express (runc refuses it too).</li>
 * </ul>
 * A device access is then decided by the first exception whose type matches, whose major and minor
 * match (or are wildcards) and whose accesses include <em>every</em> access asked for; none matching
 * means the default. All exceptions have the same action (the opposite of the default), so their
 * order does not change the outcome; they are kept in runc's order, by (major, minor, type) with
 * wildcards first, so the generated program is laid out as runc's.
 *
 * <p>Input normalisation (jrunc's, shared with the v1 {@link DeviceRule}): a missing access means
 * {@code rwm}, a missing or negative major/minor means any, a missing allow means deny.
 */
final class EffectiveDeviceRules {
    /** A wildcard major or minor. */
    static final long ANY = -1;
    static final int READ = Bpf.BPF_DEVCG_ACC_READ, WRITE = Bpf.BPF_DEVCG_ACC_WRITE, MKNOD = Bpf.BPF_DEVCG_ACC_MKNOD;
    static final int RWM = READ | WRITE | MKNOD;
    private static final long MAX_NUMBER = 0xffff_ffffL;

    /** An exception to the default: device {@code type} ('b' or 'c'), major and minor (or ANY), accesses. */
    record Entry(char type, long major, long minor, int access) {
        @Override
        public String toString() {
            return type + " " + number(major) + ":" + number(minor) + " " + accessString(access);
        }
    }

    /**
     * A device or wildcard, the key of the exceptions while they are worked out. equals and hashCode
     * are written out because a record's own are linked at their first call by a bootstrap
     * (ObjectMethods) that builds method handles at run time, which no AOT cache holds: a cold JVM's
     * first create spun about ten classes for it, tens of milliseconds under emulation.
     */
    private record Device(char type, long major, long minor) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Device d && d.type == type && d.major == major && d.minor == minor;
        }

        @Override
        public int hashCode() {
            return (31 * type + Long.hashCode(major)) * 31 + Long.hashCode(minor);
        }
    }

    /**
     * runc's order of the exceptions: by major, then minor, then type. A class rather than
     * Comparator.comparingLong's chain, whose lambdas a cold JVM spins at run time.
     */
    private static final class RuncOrder implements Comparator<Entry> {
        @Override
        public int compare(Entry a, Entry b) {
            int c = Long.compare(a.major(), b.major());
            if (c == 0) {
                c = Long.compare(a.minor(), b.minor());
            }
            return c != 0 ? c : Character.compare(a.type(), b.type());
        }
    }

    private final boolean defaultAllow;
    private final List<Entry> exceptions;

    private EffectiveDeviceRules(boolean defaultAllow, List<Entry> exceptions) {
        this.defaultAllow = defaultAllow;
        this.exceptions = exceptions;
    }

    /** Whether an access no exception covers is allowed. */
    boolean defaultAllow() {
        return defaultAllow;
    }

    /** The exceptions, in runc's order; each one's action is {@code !defaultAllow()}. */
    List<Entry> exceptions() {
        return exceptions;
    }

    /**
     * The state after {@code rules}.
     *
     * @throws CgroupException naming the rule (its index in {@code rules}, from 0, and its text) that
     *                         has an unknown type or access letter, a major/minor beyond 32 bits, or
     *                         would punch a hole in a wildcard exception
     */
    static EffectiveDeviceRules of(List<LinuxDeviceCgroup> rules) throws CgroupException {
        boolean defaultAllow = false;
        Map<Device, Integer> exceptions = new HashMap<>();
        for (int i = 0; i < rules.size(); i++) {
            LinuxDeviceCgroup rule = rules.get(i);
            char type = type(i, rule);
            boolean allow = Boolean.TRUE.equals(rule.allow());
            if (type == 'a') {
                defaultAllow = allow;
                exceptions.clear();
                continue;
            }
            Device device = new Device(type, number(i, rule, "major", rule.major()), number(i, rule, "minor", rule.minor()));
            int access = access(i, rule);
            if (allow != defaultAllow) {
                exceptions.put(device, exceptions.getOrDefault(device, 0) | access);
                continue;
            }
            for (Device wildcard : List.of(new Device(type, ANY, device.minor()), new Device(type, device.major(), ANY),
                    new Device(type, ANY, ANY))) {
                int covered = exceptions.getOrDefault(wildcard, 0);
                if (!wildcard.equals(device) && (covered & access) != 0) {
                    throw invalid(i, rule, "it would punch a hole in the wildcard rule "
                            + new Entry(type, wildcard.major(), wildcard.minor(), covered) + " ("
                            + (allow ? "deny" : "allow") + ") made by earlier rules; device rules cannot express that");
                }
            }
            int left = exceptions.getOrDefault(device, 0) & ~access;
            if (left == 0) {
                exceptions.remove(device);
            } else {
                exceptions.put(device, left);
            }
        }
        List<Entry> list = new ArrayList<>();
        for (Map.Entry<Device, Integer> e : exceptions.entrySet()) {
            Device d = e.getKey();
            list.add(new Entry(d.type(), d.major(), d.minor(), e.getValue()));
        }
        list.sort(new RuncOrder());
        return new EffectiveDeviceRules(defaultAllow, List.copyOf(list));
    }

    /**
     * The decision for one access, evaluated directly (what the generated program computes).
     *
     * @param type   'b' or 'c'
     * @param access the accesses asked for at once (READ, WRITE, MKNOD bits)
     */
    boolean allows(char type, long major, long minor, int access) {
        for (Entry e : exceptions) {
            if (e.type() == type && (e.major() == ANY || e.major() == major) && (e.minor() == ANY || e.minor() == minor)
                    && (access & e.access()) == access) {
                return !defaultAllow;
            }
        }
        return defaultAllow;
    }

    private static char type(int index, LinuxDeviceCgroup rule) throws CgroupException {
        String type = rule.type() == null || rule.type().isEmpty() ? "a" : rule.type();
        return switch (type) {
            case "a", "b", "c" -> type.charAt(0);
            default -> throw invalid(index, rule, "invalid cgroup device type \"" + type + "\"");
        };
    }

    private static long number(int index, LinuxDeviceCgroup rule, String what, Long value) throws CgroupException {
        if (value == null || value < 0) {
            return ANY;
        }
        if (value > MAX_NUMBER) {
            throw invalid(index, rule, "invalid " + what + " " + value + " (more than 32 bits)");
        }
        return value;
    }

    private static int access(int index, LinuxDeviceCgroup rule) throws CgroupException {
        String access = rule.access() == null || rule.access().isEmpty() ? "rwm" : rule.access();
        int bits = 0;
        for (char c : access.toCharArray()) {
            bits |= switch (c) {
                case 'r' -> READ;
                case 'w' -> WRITE;
                case 'm' -> MKNOD;
                default -> throw invalid(index, rule, "unknown device access '" + c + "' (only r, w and m)");
            };
        }
        return bits;
    }

    private static CgroupException invalid(int index, LinuxDeviceCgroup rule, String why) {
        return new CgroupException("device rule " + index + " (" + DeviceRule.toV1Line(rule) + ", "
                + (Boolean.TRUE.equals(rule.allow()) ? "allow" : "deny") + "): " + why);
    }

    static String number(long value) {
        return value == ANY ? "*" : Long.toString(value);
    }

    static String accessString(int access) {
        return ((access & READ) != 0 ? "r" : "") + ((access & WRITE) != 0 ? "w" : "") + ((access & MKNOD) != 0 ? "m" : "");
    }

    @Override
    public String toString() {
        return (defaultAllow ? "allow" : "deny") + " by default, " + (defaultAllow ? "deny " : "allow ") + exceptions;
    }
}
