#!/bin/sh
# Recaptures the seccomp profiles podman and containerd hand to a runtime: the linux.seccomp object of
# the bundle's config.json, as written by the engine, for a container with default security options.
#
#   sudo sh capture.sh [OUTDIR]      (OUTDIR defaults to this script's directory)
#
# Writes podman-default.json, podman-sys-admin.json (--cap-add SYS_ADMIN) and containerd-default.json
# (`ctr run --seccomp`), and prints the package versions that made them (for README.md).
# Needs root, podman (with conmon and runc), containerd (ctr, containerd-shim-runc-v2), busybox-static,
# jq and tar. No registry is used: the image is a busybox rootfs made here. Everything (podman storage,
# containerd root/state/socket, cgroups, mounts) lives under one temporary directory and is removed at
# exit; the host's podman and containerd state is not touched. See README.md beside this script.
set -eu

out=$(cd "${1:-$(dirname "$0")}" && pwd)
for c in podman conmon runc containerd ctr containerd-shim-runc-v2 jq tar chroot; do
    command -v "$c" >/dev/null || { echo "capture.sh: $c not found" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "capture.sh: run as root" >&2; exit 1; }

work=$(mktemp -d /tmp/jrunc-seccomp-capture.XXXXXX)
name=$(basename "$work")
image=localhost/jrunc-seccomp-busybox:capture
ctd_pid=

pod() {
    podman --root "$work/storage" --runroot "$work/runroot" --tmpdir "$work/tmp" \
        --storage-driver overlay --runtime runc --cgroup-manager cgroupfs --events-backend file \
        --network-config-dir "$work/networks" "$@"
}
ctrc() {
    ctr --address "$work/containerd.sock" --namespace "$name" "$@"
}

cleanup() {
    set +e
    pod rm --all --force --time 0 >/dev/null 2>&1
    pod rmi --all --force >/dev/null 2>&1
    if [ -n "$ctd_pid" ]; then
        ctrc task kill --signal SIGKILL ctd-default >/dev/null 2>&1
        ctrc task delete --force ctd-default >/dev/null 2>&1
        ctrc container delete ctd-default >/dev/null 2>&1
        ctrc image remove "$image" >/dev/null 2>&1
        kill "$ctd_pid" 2>/dev/null
        wait "$ctd_pid" 2>/dev/null
    fi
    # containers/storage keeps its overlay directory mounted; unmount anything left, deepest first.
    awk -v p="$work" '$5 == p || index($5, p "/") == 1 { print length($5), $5 }' /proc/self/mountinfo \
        | sort -rn | cut -d' ' -f2- | while read -r m; do umount -l "$m"; done
    for cg in /sys/fs/cgroup/"$name" /sys/fs/cgroup/*/"$name"; do
        [ -d "$cg" ] && find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A busybox root filesystem (applets as symlinks), tarred for `podman import`.
mkdir -p "$work/rootfs/bin" "$work/rootfs/etc" "$work/rootfs/proc" "$work/rootfs/sys" "$work/rootfs/dev" \
    "$work/rootfs/tmp" "$work/rootfs/root" "$work/storage" "$work/runroot" "$work/tmp" "$work/networks"
cp /bin/busybox "$work/rootfs/bin/busybox"
chroot "$work/rootfs" /bin/busybox --install -s /bin
echo 'root:x:0:0:root:/root:/bin/sh' >"$work/rootfs/etc/passwd"
echo 'root:x:0:' >"$work/rootfs/etc/group"
tar --numeric-owner -C "$work/rootfs" -cf "$work/rootfs.tar" .

# ---- podman: default security options, as root; runc as the runtime -------------------------------
# The host's containers.conf stays in force (its default_capabilities decide which capability-conditional
# entries of /usr/share/containers/seccomp.json podman keeps), so no CONTAINERS_CONF: the settings this
# machine kind needs go on the command line instead. No systemd or journald (cgroupfs, file events), no
# CAP_SYS_RESOURCE (podman's default nofile 1048576 cannot be set), no network.
pod import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "$work/rootfs.tar" "$image" >/dev/null

# `podman init` makes podman write the bundle and call `runc create`; the config.json runc got is the
# bundle's, under the runroot.
podman_capture() { # NAME OUTFILE [create flags...]
    cname=$1 file=$2
    shift 2
    pod create --name "$cname" --cgroup-parent "/$name" --network none \
        --ulimit nofile=20000:20000 --ulimit nproc=32768:32768 "$@" "$image" true >/dev/null
    pod init "$cname" >/dev/null
    id=$(pod inspect --format '{{.Id}}' "$cname")
    # The bundle is in the graph root (--root), not the runroot.
    bundle=$work/storage/overlay-containers/$id/userdata
    jq '.linux.seccomp' "$bundle/config.json" >"$out/$file"
    echo "$file: bounding set $(jq -c '.process.capabilities.bounding' "$bundle/config.json")"
    pod rm --force --time 0 "$cname" >/dev/null
}
podman_capture pod-default podman-default.json
podman_capture pod-sys-admin podman-sys-admin.json --cap-add SYS_ADMIN

# ---- containerd: `ctr run --seccomp` (containerd's contrib/seccomp default) -------------------------
pod save --format oci-archive -o "$work/busybox-oci.tar" "$image" >/dev/null
cat >"$work/config.toml" <<EOF
version = 2
root = "$work/ctd-root"
state = "$work/ctd-state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$work/containerd.sock"
[ttrpc]
  address = "$work/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$work/ctd-opt"
EOF
containerd --config "$work/config.toml" >"$work/containerd.log" 2>&1 </dev/null &
ctd_pid=$!
i=0
until ctrc version >/dev/null 2>&1; do
    i=$((i + 1))
    [ "$i" -lt 150 ] || { cat "$work/containerd.log" >&2; exit 1; }
    sleep 0.2
done
ctrc image import "$work/busybox-oci.tar" >/dev/null
ctrc run --detach --null-io --seccomp --runc-root "$work/ctd-runc" "$image" ctd-default sleep 600
# The bundle the shim handed to runc.
bundle=$work/ctd-state/io.containerd.runtime.v2.task/$name/ctd-default
jq '.linux.seccomp' "$bundle/config.json" >"$out/containerd-default.json"
echo "containerd-default.json: bounding set $(jq -c '.process.capabilities.bounding' "$bundle/config.json")"
# The same object as containerd stored it (ctr containers info): must be identical.
ctrc containers info ctd-default | jq '.Spec.linux.seccomp' >"$work/ctd-info.json"
cmp -s "$out/containerd-default.json" "$work/ctd-info.json" \
    || echo "capture.sh: note: the bundle's seccomp differs from ctr containers info's" >&2

{
    echo "kernel: $(uname -r)"
    dpkg-query -W -f '${Package} ${Version}\n' podman golang-github-containers-common conmon runc containerd \
        2>/dev/null || true
}
echo "capture.sh: wrote podman-default.json podman-sys-admin.json containerd-default.json in $out"
