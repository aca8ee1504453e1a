package io.jrunc.runtime.init;

import io.jrunc.bindings.Capabilities;
import io.jrunc.spec.LinuxCapabilities;
import java.util.List;

/**
 * The container process's identity: supplementary groups, gid, uid, the five capability sets and
 * no_new_privs. The child takes it itself (ChainSpawn's credential steps), in runc's init's order: the
 * bounding set is reduced while it still holds CAP_SETPCAP; keep-caps lets the permitted set survive
 * the switch away from uid 0; the switch of ids; then capset of effective/permitted/inheritable and the
 * ambient raises; no_new_privs last.
 */
public record ProcessCredentials(int uid, int gid, int[] additionalGids, LinuxCapabilities capabilities,
        boolean noNewPrivileges) {

    /**
     * The capability sets the process ends with, as masks of the capabilities this kernel has:
     * {@code ambient} holds only those the kernel will raise (permitted and inheritable).
     */
    public record Sets(long bounding, long effective, long permitted, long inheritable, long ambient) {}

    public Sets sets() {
        long bounding = mask(capabilities == null ? null : capabilities.bounding(), "bounding");
        long effective = mask(capabilities == null ? null : capabilities.effective(), "effective");
        long permitted = mask(capabilities == null ? null : capabilities.permitted(), "permitted");
        long inheritable = mask(capabilities == null ? null : capabilities.inheritable(), "inheritable");
        long ambient = 0;
        List<String> names = capabilities == null ? null : capabilities.ambient();
        if (names != null) {
            int last = Capabilities.lastCap();
            for (String name : names) {
                int cap = Capabilities.number(name);
                // The kernel raises an ambient capability only if it is permitted and inheritable;
                // runc's default config lists ambient ones without inheritable, and runc skips those
                // with a warning rather than failing. So do we (docs/runtime.md), without asking the
                // kernel for an error we know (an exception here cost create ~2.5 ms).
                if (cap >= 0 && cap <= last && (permitted & inheritable & (1L << cap)) != 0) {
                    ambient |= 1L << cap;
                }
            }
        }
        return new Sets(bounding, effective, permitted, inheritable, ambient);
    }

    /**
     * Capability names to a mask. Unknown names fail, as in runc; names the running kernel lacks
     * (newer than cap_last_cap) are skipped, since the kernel could not grant them anyway.
     */
    static long mask(List<String> names, String set) {
        long mask = 0;
        if (names != null) {
            int last = Capabilities.lastCap();
            for (String name : names) {
                int cap = Capabilities.number(name);
                if (cap < 0) {
                    throw new IllegalArgumentException("process.capabilities." + set + ": unknown capability \""
                            + name + "\"");
                }
                if (cap <= last) {
                    mask |= 1L << cap;
                }
            }
        }
        return mask;
    }
}
