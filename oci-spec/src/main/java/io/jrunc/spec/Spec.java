package io.jrunc.spec;

import java.util.List;
import java.util.Map;

/**
 * The whole of a bundle's config.json (runtime-spec config.md, Go type {@code specs.Spec}).
 * Platform sections other than {@code linux} (solaris, windows, vm, zos, freebsd) are not modelled and are
 * ignored when read.
 *
 * @param ociVersion SemVer of the spec the bundle follows; required.
 * @param process required by start; runc requires it at create.
 * @param mounts mounted in this order.
 */
public record Spec(
        String ociVersion,
        Process process,
        Root root,
        String hostname,
        String domainname,
        List<Mount> mounts,
        Hooks hooks,
        Map<String, String> annotations,
        Linux linux) {

    public Spec {
        mounts = Frozen.list(mounts);
        annotations = Frozen.map(annotations);
    }
}
