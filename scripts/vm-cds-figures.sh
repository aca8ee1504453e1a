#!/usr/bin/env bash
# The agent's class data archive measured (docs/PERFORMANCE.md, "Pods in a VM"): ROUNDS rounds, each one
# boot of the image as built and one of the same image without /jrunc/agent.jsa (and without the two
# argument-file lines that name it), interleaved, each through scripts/vm-figures.sh 1 1 (a pod booted
# by jrunc-vm, one container created and started). Prints kernel start to ready, the agent's resident
# memory at ready and the pod's first in-guest Create per boot, and the medians of each kind.
#
#   scripts/vm-cds-figures.sh [ROUNDS]     (make launcher-vm vm-image first; as root)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
I=$PWD/build/vm-image OUT=$PWD/build/vm-cds-figures
[ -f "$I/initrd.cpio" ] && [ -x build/bin/jrunc-vm ] || { echo "vm-cds-figures: needs build/vm-image and build/bin/jrunc-vm" >&2; exit 2; }
rm -rf "$OUT" && mkdir -p "$OUT/without"
cp "$I/initrd.cpio" "$OUT/with.cpio" && cp "$I/image.digest" "$OUT/image.digest"
restore() { cp "$OUT/with.cpio" "$I/initrd.cpio"; cp "$OUT/image.digest" "$I/image.digest"; }
trap restore EXIT
# the same tree without the archive: cpio -m keeps the time stamps, which CDS checks for the base archive
(cd "$OUT/without" && cpio -idm --quiet < "$OUT/with.cpio")
grep -q SharedArchiveFile "$OUT/without/jrunc/args" || { echo "vm-cds-figures: the image has no archive" >&2; exit 2; }
rm "$OUT/without/jrunc/agent.jsa" && sed -i '/SharedArchiveFile\|jrunc-cds.log/d' "$OUT/without/jrunc/args"
(cd "$OUT/without" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$OUT/without.cpio"
rm -rf "$OUT/without"

median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
for r in $(seq "$ROUNDS"); do
  for kind in without with; do
    cp "$OUT/$kind.cpio" "$I/initrd.cpio"
    (cd "$I" && sha256sum vmlinuz initrd.cpio kernel.cmdline | sha256sum | cut -d' ' -f1) > "$I/image.digest"
    scripts/vm-figures.sh 1 1 > "$OUT/$kind-$r.out" 2>&1 || { echo "vm-cds-figures: round $r $kind failed: $OUT/$kind-$r.out" >&2; exit 1; }
    console=build/vm-figures/agent-console-1.log && cp "$console" "$OUT/$kind-$r.console"
    sed -n 's/.*ready for requests \([0-9.]*\) s.*/\1/p' "$console" >> "$OUT/$kind-ready"
    sed -n 's/.*ready for requests.*resident \([0-9.]*\) MiB.*/\1/p' "$console" >> "$OUT/$kind-rss"
    sed -n 's/.*container [^ ]* created: pid [0-9]* in \([0-9.]*\) ms.*/\1/p' "$console" >> "$OUT/$kind-create"
    echo "round $r $kind archive: ready $(tail -1 "$OUT/$kind-ready") s, resident $(tail -1 "$OUT/$kind-rss") MiB, first create $(tail -1 "$OUT/$kind-create") ms, $(grep -o 'class data archive [^;]*' "$console" | head -1)"
  done
done
for kind in without with; do
  echo "$kind archive: ready (s) $(tr '\n' ' ' < "$OUT/$kind-ready")median $(median < "$OUT/$kind-ready"); resident (MiB) median $(median < "$OUT/$kind-rss"); first create (ms) $(tr '\n' ' ' < "$OUT/$kind-create")median $(median < "$OUT/$kind-create")"
done
