package io.jrunc.spec;

import java.util.List;
import java.util.Map;

/**
 * What a runtime supports, as printed by {@code runc features} (runtime-spec features.md; Go package
 * {@code specs-go/features}). Every member is optional: absent means "unknown", which is different from
 * false or empty. Write it with {@link Json#writeFeatures(Features)} for runc's exact layout.
 *
 * @param hooks names of the supported hook stages.
 * @param mountOptions mount options understood, including ones passed through to the kernel.
 * @param annotations free-form facts, e.g. {@code org.opencontainers.runc.version}.
 * @param potentiallyUnsafeConfigAnnotations annotation keys (or prefixes ending in '.') that change
 *     runtime behaviour and so must not be passed from untrusted images.
 */
public record Features(
        String ociVersionMin,
        String ociVersionMax,
        List<String> hooks,
        List<String> mountOptions,
        Linux linux,
        Map<String, String> annotations,
        List<String> potentiallyUnsafeConfigAnnotations) {

    public Features {
        hooks = Frozen.list(hooks);
        mountOptions = Frozen.list(mountOptions);
        annotations = Frozen.map(annotations);
        potentiallyUnsafeConfigAnnotations = Frozen.list(potentiallyUnsafeConfigAnnotations);
    }

    /** Linux features. Named as in the Go package; not the config's {@link io.jrunc.spec.Linux}. */
    public record Linux(
            List<String> namespaces,
            List<String> capabilities,
            Cgroup cgroup,
            Seccomp seccomp,
            Apparmor apparmor,
            Selinux selinux,
            IntelRdt intelRdt,
            MemoryPolicy memoryPolicy,
            MountExtensions mountExtensions,
            NetDevices netDevices) {

        public Linux {
            namespaces = Frozen.list(namespaces);
            capabilities = Frozen.list(capabilities);
        }
    }

    /** cgroup drivers and controllers available. */
    public record Cgroup(Boolean v1, Boolean v2, Boolean systemd, Boolean systemdUser, Boolean rdma) {
    }

    /**
     * @param supportedFlags the subset of {@code knownFlags} this kernel and libseccomp accept.
     */
    public record Seccomp(
            Boolean enabled,
            List<String> actions,
            List<String> operators,
            List<String> archs,
            List<String> knownFlags,
            List<String> supportedFlags) {

        public Seccomp {
            actions = Frozen.list(actions);
            operators = Frozen.list(operators);
            archs = Frozen.list(archs);
            knownFlags = Frozen.list(knownFlags);
            supportedFlags = Frozen.list(supportedFlags);
        }
    }

    public record Apparmor(Boolean enabled) {
    }

    public record Selinux(Boolean enabled) {
    }

    /** Intel RDT; {@code schemata} and {@code monitoring} are spec 1.3 additions. */
    public record IntelRdt(Boolean enabled, Boolean schemata, Boolean monitoring) {
    }

    /** Spec 1.3: set_mempolicy(2) modes and flags understood. */
    public record MemoryPolicy(List<String> modes, List<String> flags) {

        public MemoryPolicy {
            modes = Frozen.list(modes);
            flags = Frozen.list(flags);
        }
    }

    public record MountExtensions(IDMap idmap) {
    }

    /** Id-mapped mounts ({@code mounts[].uidMappings}). */
    public record IDMap(Boolean enabled) {
    }

    /** Spec 1.3: {@code linux.netDevices}. */
    public record NetDevices(Boolean enabled) {
    }
}
