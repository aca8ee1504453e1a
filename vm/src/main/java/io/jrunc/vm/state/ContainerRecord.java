package io.jrunc.vm.state;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * A container's state file (ROOT/pods/POD/containers/NAME/container.json). The guest is the source of
 * truth for what runs; this holds what the host made (bundle, image, serial) and the last state seen,
 * which is what a stopped pod's containers report.
 *
 * @param serial    the disk serial of its root filesystem image (its layer's: "jl" for "jr")
 * @param lastState created, running or stopped, as last seen
 * @param shares    the host directories shared with it (virtio-fs), in the order given
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ContainerRecord(
        String name,
        String pod,
        String bundle,
        String serial,
        List<String> args,
        long createdAt,
        String lastState,
        int exitCode,
        List<HostShare> shares) {

    public ContainerRecord {
        args = args == null ? List.of() : List.copyOf(args);
        shares = shares == null ? List.of() : List.copyOf(shares);
    }

    public ContainerRecord(String name, String pod, String bundle, String serial, List<String> args, long createdAt,
                           String lastState, int exitCode) {
        this(name, pod, bundle, serial, args, createdAt, lastState, exitCode, List.of());
    }

    public ContainerRecord withState(String state, int exit) {
        return new ContainerRecord(name, pod, bundle, serial, args, createdAt, state, exit, shares);
    }

    /** The tags of its shares, for the monitor's RemoveContainer. */
    public List<String> shareTags() {
        return shares.stream().map(HostShare::tag).toList();
    }
}
