#!/usr/bin/env bash
# `jrunc-vm cp` figures for docs/PERFORMANCE.md, ROUNDS rounds: a 100 MiB file of random data into a
# running container and back out (compared), and a tree of 1000 small files in and out, each the wall
# time of one `jrunc-vm cp` call (its JVM start included), beside the host's own `cp` of the file; then
# one small file, which is mostly the call's fixed cost.
#   scripts/cp-figures.sh [ROUNDS]      (make build vm-image first; needs busybox-static, qemu, bc;
#                                        run alone: other VMs on the machine move the figures)
set -euo pipefail
rounds=${1:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
J=$here/build/bin/jrunc-vm
export JRUNC_VM_IMAGE=${JRUNC_VM_IMAGE:-$here/build/vm-image}
W=$(mktemp -d /tmp/jrunc-cp-figures.XXXXXX)
R=$W/root
jv() { "$J" --root "$R" "$@"; }
trap 'jv pod rm -f cpfig >/dev/null 2>&1 || true; rm -rf "$W"' EXIT
B=$W/bundle
mkdir -p "$B/rootfs/bin" "$B/rootfs/proc"
cp /bin/busybox "$B/rootfs/bin/"
for a in sh sleep rm; do ln -s busybox "$B/rootfs/bin/$a"; done
cat > "$B/config.json" <<'JSON'
{"ociVersion": "1.0.2", "process": {"user": {"uid": 0, "gid": 0}, "args": ["sh"], "env": ["PATH=/bin"], "cwd": "/"},
 "root": {"path": "rootfs"}, "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
 "linux": {"namespaces": [{"type": "pid"}, {"type": "mount"}]}}
JSON
head -c 100M /dev/urandom > "$W/big"
mkdir -p "$W/tree"; for i in $(seq 1 1000); do echo "file $i" > "$W/tree/f$i"; done
jv pod create --name cpfig --memory 1g >/dev/null
jv create --pod cpfig --name c "$B" sleep 3600 >/dev/null
jv start c >/dev/null
t() { local s; s=$(date +%s.%N); "$@" >/dev/null; echo "$(date +%s.%N) - $s" | bc; }
for round in $(seq 1 "$rounds"); do
  in=$(t jv cp "$W/big" "c:/big$round"); out=$(t jv cp "c:/big$round" "$W/big-out$round")
  host=$(t cp "$W/big" "$W/big-host$round")
  cmp "$W/big" "$W/big-out$round"
  tin=$(t jv cp "$W/tree" "c:/tree$round"); tout=$(t jv cp "c:/tree$round" "$W/tree-out$round")
  echo "round $round: 100 MiB in ${in} s, out ${out} s (host cp ${host} s); 1000 files in ${tin} s, out ${tout} s"
  rm -f "$W/big-out$round" "$W/big-host$round"; jv exec c rm -f "/big$round"
done
echo "one small file in: $(t jv cp "$W/tree/f1" c:/f1) s"
