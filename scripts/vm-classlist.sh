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
trap 'rm -rf "$WORK"' EXIT
console=$WORK/console.log
scripts/vm-logged-run.sh "$IMAGE" -Xlog:class+load=info:stdout:uptime "$console"
grep -aq 'source: shared objects file' "$console" \
  || { echo "vm-classlist: no class loading logged in $console (the agent's JVM did not use its cache?)" >&2; exit 1; }
before=$(grep -vc '^#' "$LIST" || true)
{ sed -n '1,3p' "$LIST"
  { grep -v '^#' "$LIST" || true
    # a class name only: the agent's own console lines may land in the middle of the JVM's
    grep -a 'source: jrt:/' "$console" | sed 's/^\[[^]]*\] *//' | awk '{print $1}' \
      | grep -E '^[a-z][a-z0-9_]*(\.[A-Za-z0-9_$]+)+$' || true; } | LC_ALL=C sort -u; } > "$WORK/list"
mv "$WORK/list" "$LIST"
echo "vm-classlist: $(grep -vc '^#' "$LIST") classes in $LIST ($before before)"
