#!/usr/bin/env bash
# Usage: bench-startup.sh JAVA "JVM FLAGS" LIB [N]
# Where a jrunc call's time goes: each step of scripts/bench-startup.java (nothing, the command line,
# the config's JSON, FFM linking) and a whole `run` of /bin/true, each in a fresh JVM with the launcher's
# flags, once with LIB/jrunc-create.aot (the cache the launcher gives run) and once without, N rounds
# interleaved (default 7). Prints medians of
# the wall time of the whole JVM and of the time the step took inside it (from main()). Needs root and
# busybox-static (for `run`). Leaves nothing behind. docs/PERFORMANCE.md.
set -euo pipefail
java=$1 flags=$2 lib=$(readlink -f "$3") n=${4:-7}
[ -r "$lib/jrunc-create.aot" ] || { echo "bench-startup: no $lib/jrunc-create.aot (make build as root)" >&2; exit 1; }
work=$(mktemp -d /tmp/jrunc-bench-startup.XXXXXX)
trap 'for id in $(ls "$work/root" 2>/dev/null); do "$java" $flags -jar "$lib/jrunc.jar" --root "$work/root" delete --force "$id"; done; rm -rf "$work"' EXIT
"$(dirname "$0")/busybox-rootfs.sh" "$work/bundle/rootfs"
(cd "$work/bundle" && runc spec)
sed -i -e 's/"terminal": true/"terminal": false/' -e 's/"sh"/"true"/' "$work/bundle/config.json"
"${java%/java}/javac" -d "$work/classes" -cp "$lib/*" "$(dirname "$0")/bench-startup.java"

# The cache accepts a class path that starts with the one it was trained with (LIB/jrunc.jar). No
# --enable-native-access: a module option the training run did not have disables the cache (FFM warns).
declare -A mode=([aot]="-XX:AOTCache=$lib/jrunc-create.aot" [noaot]="")
cp="$lib/jrunc.jar:$work/classes"
steps=(empty cli json ffm run)
for i in $(seq "$n"); do
  for m in aot noaot; do
    for s in "${steps[@]}"; do
      t0=${EPOCHREALTIME/./}
      if [ "$s" = run ]; then
        # shellcheck disable=SC2086
        "$java" $flags ${mode[$m]} -Xlog:disable -jar "$lib/jrunc.jar" --root "$work/root" run --bundle "$work/bundle" "b$$-$i-$m" >"$work/out" 2>&1
      else
        # shellcheck disable=SC2086
        "$java" $flags ${mode[$m]} -Xlog:disable -cp "$cp" BenchStartup "$s" "$work/bundle" >"$work/out" 2>&1
      fi || { cat "$work/out" >&2; exit 1; }
      echo "$(( ${EPOCHREALTIME/./} - t0 ))" >>"$work/wall.$m.$s"
      while read -r k v; do echo "$v" >>"$work/in.$m.$k"; done < <(grep -E '^[a-z-]+ [0-9.]+$' "$work/out" || true)
    done
  done
done
median() { sort -n "$1" | awk '{v[NR]=$1} END {printf "%.1f", (NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2) / '"$2"'}'; }
echo "medians of $n, ms; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %12s %12s %14s %14s\n' step "wall aot" "wall no-aot" "in-JVM aot" "in-JVM no-aot"
for s in "${steps[@]}" ffm-first ffm-more; do
  line=$(printf '%-10s' "$s")
  for f in "wall.aot.$s:1000" "wall.noaot.$s:1000" "in.aot.$s:1" "in.noaot.$s:1"; do
    if [ -f "$work/${f%:*}" ]; then line+=$(printf ' %12s' "$(median "$work/${f%:*}" "${f#*:}")"); else line+=$(printf ' %12s' -); fi
  done
  echo "$line"
done
