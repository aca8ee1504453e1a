package io.jrunc.shim;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * Which shim serves a host-back-end task, from the runtime options' {@code [host]} table: {@code shim =
 * "shared"} (the default), one shim JVM for every host task of one containerd and namespace, which stays
 * for {@code linger} seconds (default 30) after its last task so that the next container finds it warm;
 * or {@code shim = "pod"}, containerd's runc shim's rule ({@link Grouping}: one shim per pod, one per
 * container outside a pod, each ending with its last task). The VM back end always has one shim per pod:
 * a pod is its VM.
 *
 * <p>Why shared by default: containerd starts a shim for every container that is not in a pod (every
 * `ctr run`, every container of engines that do not group), and a new JVM costs about half a second
 * before it serves, where runc's Go shim costs tens of milliseconds. A warm JVM serves the next
 * container's Create with its classes loaded and compiled.
 *
 * @param shared one shim for all host tasks of a containerd and namespace
 * @param linger how long a shared shim stays without tasks and connections
 */
public record ShimSharing(boolean shared, Duration linger) {
    /** The group name of the shared shim: not a valid containerd id, so no container's group meets it. */
    public static final String SHARED_GROUP = "@jrunc-host";
    public static final Duration DEFAULT_LINGER = Duration.ofSeconds(30);
    public static final ShimSharing DEFAULT = new ShimSharing(true, DEFAULT_LINGER);
    /** The {@code [host]} keys read here (the back end ignores them). */
    public static final Set<String> KEYS = Set.of("shim", "linger");

    /** Where the host back end keeps its state roots unless {@code [host] root} says otherwise. */
    public static final Path DEFAULT_HOST_ROOT = Path.of("/run/containerd/jrunc");

    /**
     * The files of a shared shim, beside the host back end's state roots and named after its socket (one
     * per containerd and namespace): its log (its stderr: not the first container's log fifo, which goes
     * with that container's bundle) and its pid, which the launcher's fast {@code start} reads to know
     * the shim is alive without a JVM.
     */
    public record Files(Path log, Path pid) {
        public static Files of(ShimOptions options, Path socket) {
            String root = options.settings().get("root");
            Path base = root == null ? DEFAULT_HOST_ROOT : Path.of(root);
            String name = "shim-" + socket.getFileName().toString().substring(0, 16);
            return new Files(base.resolve(name + ".log"), base.resolve(name + ".pid"));
        }
    }

    /** From the options; the VM back end's are never shared. */
    public static ShimSharing of(ShimOptions options) throws ShimOptions.OptionsException {
        if (options.backend() != ShimOptions.Backend.HOST) {
            return new ShimSharing(false, Duration.ZERO);
        }
        return of(options.settings());
    }

    static ShimSharing of(Map<String, String> host) throws ShimOptions.OptionsException {
        String shim = host.getOrDefault("shim", "shared");
        boolean shared = switch (shim) {
            case "shared" -> true;
            case "pod" -> false;
            default -> throw new ShimOptions.OptionsException("runtime options: host.shim must be \"shared\" or \"pod\", not \""
                    + shim + "\"");
        };
        Duration linger = DEFAULT_LINGER;
        String seconds = host.get("linger");
        if (seconds != null) {
            long s;
            try {
                s = Long.parseLong(seconds);
            } catch (NumberFormatException e) {
                s = -1;
            }
            // at least a second: a member's start probes the shim and containerd connects right after
            if (s < 1 || s > 86_400) {
                throw new ShimOptions.OptionsException("runtime options: host.linger must be a number of seconds from 1 to 86400, not "
                        + seconds);
            }
            linger = Duration.ofSeconds(s);
        }
        return new ShimSharing(shared, linger);
    }

    /** The group of container {@code id}: the shared one, or the runc shim's rule. */
    public String group(String id, Map<String, String> annotations) {
        return shared ? SHARED_GROUP : Grouping.groupId(id, annotations);
    }
}
