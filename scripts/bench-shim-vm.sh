#!/usr/bin/env bash
# The VM back end's figure for docs/PERFORMANCE.md ("containerd shim"): a pod VM with one busybox
# container made through containerd's CRI plugin with the jrunc-vm handler (RunPodSandbox,
# CreateContainer, StartContainer) against the same pod made with the jrunc-vm CLI (pod create with the
# same memory and processors, create --rootfs-share of the same image's root, start), ROUNDS rounds each,
# interleaved, on one private containerd; each timed to the container started, its first output and an
# exec answered; medians and ratios. The measuring is io.jrunc.tests.e2e.CriVmFigure, run from the tests
# module's test classes (its CRI client and private containerd are CriTest's).
#
#   scripts/bench-shim-vm.sh [ROUNDS]     (make build vm-image first; root; boots 2 x ROUNDS VMs)
# On a machine shared with other VM work, run it under `flock /work/vm.lock`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
MVN=${MVN:-mvn -B}
BIN=$PWD/build/bin IMAGE=$PWD/build/vm-image OUT=$PWD/build/bench-shim-vm
for f in "$BIN/containerd-shim-jrunc-v2" "$BIN/jrunc-vm" "$BIN/jrunc"; do
  [ -x "$f" ] || { echo "bench-shim-vm: needs $f (make build)" >&2; exit 2; }
done
[ -f "$IMAGE/vmlinuz" ] || { echo "bench-shim-vm: needs the VM image $IMAGE (make vm-image)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench-shim-vm: needs root (containerd, CNI, qemu)" >&2; exit 2; }
mkdir -p "$OUT"
eval "$MVN" -q -pl tests test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$OUT/classpath"
echo "bench-shim-vm: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), load average $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS rounds"
"${JAVA_HOME:+$JAVA_HOME/bin/}java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Djrunc.binary="$BIN/jrunc" -Djrunc.vm.image="$IMAGE" \
  -cp "$PWD/tests/target/test-classes:$(cat "$OUT/classpath")" \
  io.jrunc.tests.e2e.CriVmFigure "$ROUNDS"
echo "bench-shim-vm: done, load average $(cut -d' ' -f1-3 /proc/loadavg)"
