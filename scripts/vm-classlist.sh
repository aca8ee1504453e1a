#!/usr/bin/env bash
# Makes the list of JDK classes the agent's AOT cache training loads
# (guest-init/src/main/resources/io/jrunc/vminit/jdk-classes.txt; docs/guest-init.md, "The image"):
# boots a pod of a copy of the built image whose argument file also logs the JVM's class loading to the
# console, runs one container in it (its create, start, output and removal), and adds to the list the
# JDK classes the agent loaded from the runtime's module image rather than from its cache. A class the
# list already names is in that cache and so no longer shows, hence the list only grows; to drop
# names the JDK or the agent no longer uses, empty the list below its three comment lines, rebuild the
# image and run this. Run it after `make build vm-image` when the agent's code changes what it uses,
# then `make vm-image` again.
#
#   scripts/vm-classlist.sh          (as root; uses build/bin/jrunc-vm and build/vm-image)
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=$PWD/build/vm-image LIST=guest-init/src/main/resources/io/jrunc/vminit/jdk-classes.txt
WORK=$(mktemp -d /tmp/vm-classlist.XXXXXX)
JV="$PWD/build/bin/jrunc-vm --root $WORK/root"
cleanup() { $JV pod rm -f classlist >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
[ -x build/bin/jrunc-vm ] || { echo "vm-classlist: needs build/bin/jrunc-vm" >&2; exit 2; }
scripts/vm-image-logging.sh "$IMAGE" "$WORK/image" -Xlog:class+load=info:stdout:uptime

# a writable busybox bundle, as scripts/vm-figures.sh's anonymous run uses: its layer is made too
scripts/pod-bundle.sh "$WORK/bundle" --writable
JRUNC_VM_IMAGE=$WORK/image $JV pod create --name classlist >/dev/null
JRUNC_VM_IMAGE=$WORK/image $JV run --rm --pod classlist "$WORK/bundle" echo classlist >/dev/null
console=$WORK/root/pods/classlist/console.log
grep -aq 'source: shared objects file' "$console" \
  || { echo "vm-classlist: no class loading logged in $console (the agent's JVM did not use its cache?)" >&2; exit 1; }
before=$(grep -vc '^#' "$LIST" || true)
{ sed -n '1,3p' "$LIST"
  { grep -v '^#' "$LIST" || true
    grep -a 'source: jrt:/' "$console" | sed 's/^\[[^]]*\] *//' | awk '{print $1}'; } | LC_ALL=C sort -u; } > "$WORK/list"
mv "$WORK/list" "$LIST"
echo "vm-classlist: $(grep -vc '^#' "$LIST") classes in $LIST ($before before)"
