package io.jrunc.vm.state;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * A container's state file (ROOT/pods/POD/containers/NAME/container.json): what the host made (bundle,
 * image, serial) and the container's state. While its pod runs, the pod's monitor keeps the state
 * current (running when it starts it, paused and running again, stopped with the exit code when the
 * guest's Wait answers), so `ls` and `inspect` read it here rather than asking the guest; a stopped
 * pod's containers report the state last written.
 *
 * @param serial    the disk serial of its root filesystem image (its layer's: "jl" for "jr")
 * @param lastState creating, created, running, paused or stopped
 * @param shares    the host directories shared with it (virtio-fs), in the order given
 * @param pid       its process's pid in the guest while created, running or paused; 0 otherwise (as the
 *                  agent's Inspect gives it)
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
        List<HostShare> shares,
        int pid) {

    public ContainerRecord {
        args = args == null ? List.of() : List.copyOf(args);
        shares = shares == null ? List.of() : List.copyOf(shares);
    }

    public ContainerRecord(String name, String pod, String bundle, String serial, List<String> args, long createdAt,
                           String lastState, int exitCode) {
        this(name, pod, bundle, serial, args, createdAt, lastState, exitCode, List.of(), 0);
    }

    public ContainerRecord(String name, String pod, String bundle, String serial, List<String> args, long createdAt,
                           String lastState, int exitCode, List<HostShare> shares) {
        this(name, pod, bundle, serial, args, createdAt, lastState, exitCode, shares, 0);
    }

    /** In {@code state} with {@code exit}; its pid kept, or 0 when stopped or creating (no process). */
    public ContainerRecord withState(String state, int exit) {
        boolean process = !"stopped".equals(state) && !"creating".equals(state);
        return new ContainerRecord(name, pod, bundle, serial, args, createdAt, state, exit, shares, process ? pid : 0);
    }

    /** The same, its process in the guest {@code guestPid}. */
    public ContainerRecord withPid(int guestPid) {
        return new ContainerRecord(name, pod, bundle, serial, args, createdAt, lastState, exitCode, shares, guestPid);
    }

    /** Created in the guest, its process {@code guestPid}. */
    public ContainerRecord created(int guestPid) {
        return new ContainerRecord(name, pod, bundle, serial, args, createdAt, "created", 0, shares, guestPid);
    }

    /** The tags of its shares, for the monitor's RemoveContainer. */
    public List<String> shareTags() {
        return shares.stream().map(HostShare::tag).toList();
    }
}
