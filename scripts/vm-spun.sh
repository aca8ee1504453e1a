#!/usr/bin/env bash
# Counts the classes the pod agent's JVM defines at run time (hidden classes: lambda forms, lambda
# proxies, pattern-switch and concatenation classes), which no AOT cache holds and which a cold JVM
# spins, verifies and links on the pod's one vCPU, tens of milliseconds each under emulation
# (docs/PERFORMANCE.md, "Classes spun at run time on the agent's path"). Boots a pod of a copy of an
# image whose argument file also logs class initialisation to the console, runs one container in it
# (the writable busybox bundle: its create, start, output and removal), and prints the counts up to
# the ready line and up to the first Create's "created" line, then the classes themselves. A count
# that does not move between runs of the same image; boot times under TCG spread too widely to show
# a change of a few spun classes.
#
#   scripts/vm-spun.sh [IMAGE]     (as root; IMAGE defaults to build/vm-image; uses build/bin/jrunc-vm)
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${1:-$PWD/build/vm-image}
WORK=$(mktemp -d /tmp/vm-spun.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
console=$WORK/console.log
scripts/vm-logged-run.sh "$IMAGE" -Xlog:class+init=info:stdout:uptime "$console"
ready=$(grep -an 'ready for requests' "$console" | head -1 | cut -d: -f1)
created=$(grep -an 'created: pid' "$console" | head -1 | cut -d: -f1)
[ -n "$ready" ] && [ -n "$created" ] && grep -aq "Initializing '" "$console" \
  || { echo "vm-spun: no class initialisation, ready line or Create logged in $console" >&2; exit 1; }
# a hidden class's name carries its address: Foo$$Lambda+0x..., LambdaForm$MH+0x..., String$$StringConcat+0x...
spun() { head -"$1" "$console" | grep -a "Initializing '" | grep -a '+0x' || true; }
echo "vm-spun: $(spun "$ready" | wc -l) classes spun before the ready line, $(spun "$created" | wc -l) through the first Create"
spun "$created" | sed "s/^\[\([^]]*\)\].* Initializing '\([^']*\)'.* by thread \(.*\)$/  \1 \2 \3/"
