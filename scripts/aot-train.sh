#!/usr/bin/env bash
# Usage: aot-train.sh JAVA "JVM FLAGS" LIB WORKDIR
# Produces LIB/jrunc-create.aot and LIB/jrunc-control.aot, the JDK's ahead-of-time caches of loaded and
# linked classes (JEP 483), by running io.jrunc.cli.AotTraining under -XX:AOTCacheOutput with the
# launcher's own JVM flags; a cache made with other flags or another class path is not used. A JVM
# loads all of its cache's classes at start, so each kind of command gets its own (create, run and
# exec; everything else), and the launcher picks one by the command's name. Needs root (it runs real
# containers) and busybox-static. docs/PERFORMANCE.md.
set -euo pipefail
java=$1 flags=$2 lib=$3 work=$4
rm -rf "$work" "$lib"/*.aot
mkdir -p "$work/long" "$work/short" "$work/root" "$work/root-control"
"$(dirname "$0")/busybox-rootfs.sh" "$work/long/rootfs"
cp -a "$work/long/rootfs" "$work/short/rootfs"
# shellcheck disable=SC2086
$java $flags -cp "$lib/jrunc.jar" io.jrunc.cli.Main spec --bundle "$work/long"
sed -e 's/"terminal": true/"terminal": false/' -e '/"args": \[/,/\]/{/"args": \[/!d;s|\[.*|["true"],|}' \
  "$work/long/config.json" >"$work/short/config.json"
sed -i -e 's/"terminal": true/"terminal": false/' \
  -e '/"args": \[/,/\]/{/"args": \[/!d;s|\[.*|["sleep", "60"],|}' "$work/long/config.json"
grep -q '"args": \["sleep", "60"\]' "$work/long/config.json" && grep -q '"args": \["true"\]' "$work/short/config.json" ||
  { echo "aot-train: cannot edit config.json" >&2; exit 1; }
# The long bundle again with podman's default seccomp profile: the compiler and the chain that loads it
# (docs/seccomp.md) are on every podman, containerd and Docker create's path.
mkdir -p "$work/seccomp"
cp -a "$work/long/rootfs" "$work/seccomp/rootfs"
"$(dirname "$0")/with-seccomp.sh" "$work/long/config.json" "$(dirname "$0")/../seccomp/src/test/resources/profiles/podman-default.json" \
  >"$work/seccomp/config.json"

# train KIND ARGS...: AotTraining KIND under -XX:AOTCacheOutput=LIB/jrunc-KIND.aot
train() {
  local kind=$1; shift
  # shellcheck disable=SC2086
  if ! $java $flags -XX:AOTCacheOutput="$lib/jrunc-$kind.aot" -cp "$lib/jrunc.jar" io.jrunc.cli.AotTraining \
      "$kind" "$@" >"$work/training-$kind.log" 2>&1; then
    echo "aot-train: the $kind training failed; those commands run without a cache. Log:" >&2
    tail -20 "$work/training-$kind.log" >&2
    rm -f "$lib/jrunc-$kind.aot"
  fi
}
train create "$work/long" "$work/short" "$work/seccomp" "$work/root"
# The control commands' containers come from a JVM of their own, so that creating is not trained here.
root=$work/root-control
for id in control-a control-b; do
  # shellcheck disable=SC2086
  $java $flags -cp "$lib/jrunc.jar" io.jrunc.cli.Main --root "$root" create --bundle "$work/long" "$id"
done
# shellcheck disable=SC2086
$java $flags -cp "$lib/jrunc.jar" io.jrunc.cli.Main --root "$root" create --bundle "$work/short" control-c
train control "$root" control-a control-b control-c
for id in control-a control-b control-c; do
  # shellcheck disable=SC2086
  $java $flags -cp "$lib/jrunc.jar" io.jrunc.cli.Main --root "$root" delete --force "$id" >/dev/null 2>&1 || true
done
rm -rf "$work/long" "$work/short" "$work/short-userns" "$work/seccomp"
