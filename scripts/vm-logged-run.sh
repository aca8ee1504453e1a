#!/usr/bin/env bash
# Boots a pod of a copy of a built image whose agent logs with one more JVM option
# (scripts/vm-image-logging.sh: the -Xlog output lands in the pod's console), runs one container in it
# (the writable busybox bundle, as scripts/vm-figures.sh's anonymous run uses: its create, start,
# output and removal, its layer made too), and copies the pod's console to CONSOLE. The pod and
# every file of the run are removed. scripts/vm-classlist.sh and scripts/vm-spun.sh read such consoles.
#
#   scripts/vm-logged-run.sh IMAGE OPTION CONSOLE     (as root; uses build/bin/jrunc-vm)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# = 3 ] || { echo "usage: vm-logged-run.sh IMAGE OPTION CONSOLE" >&2; exit 2; }
IMAGE=$1 OPTION=$2 CONSOLE=$3
[ -x build/bin/jrunc-vm ] || { echo "vm-logged-run: needs build/bin/jrunc-vm" >&2; exit 2; }
WORK=$(mktemp -d /tmp/vm-logged-run.XXXXXX)
JV="$PWD/build/bin/jrunc-vm --root $WORK/root"
cleanup() { $JV pod rm -f logged >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
scripts/vm-image-logging.sh "$IMAGE" "$WORK/image" "$OPTION"
scripts/pod-bundle.sh "$WORK/bundle" --writable
JRUNC_VM_IMAGE=$WORK/image $JV pod create --name logged >/dev/null
JRUNC_VM_IMAGE=$WORK/image $JV run --rm --pod logged "$WORK/bundle" echo logged >/dev/null
cp "$WORK/root/pods/logged/console.log" "$CONSOLE"
