#!/usr/bin/env bash
# Usage: aot-train.sh JAVA "JVM FLAGS" LIB WORKDIR
# Produces LIB/jrunc.aot, the JDK's ahead-of-time cache of loaded and linked classes (JEP 483), by
# running io.jrunc.cli.AotTraining (create, start, state, list, exec, kill, delete, run, features on a
# busybox container) once under -XX:AOTCacheOutput with the launcher's own JVM flags; a cache made with
# other flags or another class path is not used. Needs root (it runs real containers). docs/PERFORMANCE.md.
set -euo pipefail
java=$1 flags=$2 lib=$3 work=$4
bundle=$work/bundle root=$work/root
rm -rf "$work" "$lib/jrunc.aot"
mkdir -p "$bundle" "$root"
"$(dirname "$0")/busybox-rootfs.sh" "$bundle/rootfs"
# shellcheck disable=SC2086
$java $flags -cp "$lib/jrunc.jar" io.jrunc.cli.Main spec --bundle "$bundle"
sed -i -e 's/"terminal": true/"terminal": false/' \
  -e '/"args": \[/,/\]/{/"args": \[/!d;s|\[.*|["sleep", "60"],|}' "$bundle/config.json"
grep -q '"args": \["sleep", "60"\]' "$bundle/config.json" || { echo "aot-train: cannot edit config.json" >&2; exit 1; }
# shellcheck disable=SC2086
if ! $java $flags -XX:AOTCacheOutput="$lib/jrunc.aot" -cp "$lib/jrunc.jar" io.jrunc.cli.AotTraining \
    "$bundle" "$root" >"$work/training.log" 2>&1; then
  echo "aot-train: training failed; the launcher runs without the cache. Log:" >&2
  tail -20 "$work/training.log" >&2
  rm -f "$lib/jrunc.aot"
fi
rm -rf "$bundle"
