#!/usr/bin/env bash
# Copies a built pod image into DIR with one more JVM option for the agent: OPTION goes into the copy's
# /jrunc/args just before -jar (an -Xlog selection whose output, on stdout, lands in the pod's
# console.log), and the copy gets its own image.digest. scripts/vm-logged-run.sh boots such a copy and
# runs a container in it; the image itself is left as it is.
#
#   scripts/vm-image-logging.sh IMAGE DIR OPTION     (needs debugfs, from e2fsprogs)
set -euo pipefail
[ $# = 3 ] || { echo "usage: vm-image-logging.sh IMAGE DIR OPTION" >&2; exit 2; }
IMAGE=$1 DIR=$2 OPTION=$3
command -v debugfs >/dev/null || { echo "vm-image-logging: needs debugfs (e2fsprogs)" >&2; exit 2; }
[ -f "$IMAGE/agent-root.img" ] || { echo "vm-image-logging: no agent-root.img in $IMAGE" >&2; exit 2; }
mkdir -p "$DIR"
cp "$IMAGE"/{vmlinuz,initrd.cpio,kernel.cmdline,agent-root.img} "$DIR/"
args=$(debugfs -R 'cat /jrunc/args' "$DIR/agent-root.img" 2>/dev/null)
grep -qx -- '-jar' <<<"$args" || { echo "vm-image-logging: $IMAGE's /jrunc/args has no -jar line" >&2; exit 1; }
awk -v opt="$OPTION" '$0 == "-jar" { print opt } { print }' <<<"$args" > "$DIR/args"
debugfs -w -R 'rm /jrunc/args' "$DIR/agent-root.img" >/dev/null 2>&1
debugfs -w -R "write $DIR/args /jrunc/args" "$DIR/agent-root.img" >/dev/null 2>&1
rm "$DIR/args"
(cd "$DIR" && sha256sum vmlinuz initrd.cpio agent-root.img kernel.cmdline | sha256sum | cut -d' ' -f1) > "$DIR/image.digest"
