#!/usr/bin/env bash
# Usage: pod-bundle.sh BUNDLE [--writable]
# Makes BUNDLE afresh for the pod benchmarks and scripts: a busybox root (scripts/busybox-rootfs.sh) and
# a config.json without a terminal, running `sleep 1000` as root in its own pid, ipc, uts, mount and
# cgroup namespaces (the pod's network is the VM's) with /proc, a tmpfs /dev and a read-only /sys.
# The root is read-only unless --writable, which gives a container in a pod its writable layer.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BUNDLE [--writable]" >&2; exit 2; }
bundle=$1 readonly=true
[ "${2:-}" = --writable ] && readonly=false
"$(dirname "$0")/busybox-rootfs.sh" "$bundle/rootfs"
mkdir -p "$bundle/rootfs"/{proc,sys,dev,tmp}
cat > "$bundle/config.json" <<JSON
{"ociVersion": "1.0.2",
 "process": {"terminal": false, "user": {"uid": 0, "gid": 0}, "args": ["sleep", "1000"],
             "env": ["PATH=/bin:/sbin:/usr/bin:/usr/sbin"], "cwd": "/", "noNewPrivileges": true},
 "root": {"path": "rootfs", "readonly": $readonly},
 "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"},
            {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
            {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]}],
 "linux": {"namespaces": [{"type": "pid"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}, {"type": "cgroup"}]}}
JSON
