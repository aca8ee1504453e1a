package io.jrunc.vm.state;

/**
 * A host directory shared with one container through virtio-fs (`-v HOSTDIR:CTRPATH[:ro]`), as its
 * record keeps it: the pod's monitor runs one virtiofsd for it and hot-plugs a vhost-user-fs device
 * named by {@code tag}, and the container's spec mounts that tag at {@code containerPath}.
 *
 * @param tag           the virtio-fs tag, also the QMP device and chardev id and the socket's name
 *                      ({@code POD/TAG.sock}); unique in the pod
 * @param hostPath      the directory's real path on the host
 * @param containerPath where the container sees it; {@value #ROOT} for the container's root
 *                      filesystem ({@link #root()})
 * @param readOnly      mounted read-only in the guest
 */
public record HostShare(String tag, String hostPath, String containerPath, boolean readOnly) {
    /** Where a root share ({@code create --rootfs-share}) is recorded: no {@code -v} may target /. */
    public static final String ROOT = "/";

    /** Whether this is the container's root filesystem rather than a directory mounted in it. */
    public boolean root() {
        return ROOT.equals(containerPath);
    }
}
