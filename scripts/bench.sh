#!/usr/bin/env bash
# Usage: bench.sh JRUNC WORKDIR [N] [MEM_N] [PAIRS] [USERNS_PAIRS]
# Compares JRUNC with runc and crun in one run on one busybox bundle whose process is /bin/true, each
# runtime with its own --root, runs interleaved (jrunc, runc, crun, jrunc, ...) after one untimed
# warm-up round. Prints medians, minima and the ratios jrunc/runc and jrunc/crun of:
#   (a) `run` in the foreground: wall time of the whole command (N runs per runtime, default 15);
#   (b) create + start + wait for the process to exit + delete, each step timed; the wait polls
#       /proc/PID/stat (from --pid-file) until the process is a zombie or gone, the same for all three
#       (N runs per runtime);
#   (c) VmRSS, RssAnon and RssFile of a created, not yet started container's process (MEM_N runs);
#   (d) create alone, of the bundle as it is and of the same bundle with podman's default seccomp
#       profile (as podman sends it), in interleaved pairs (max(N, 21) pairs per runtime), each followed
#       by an untimed delete --force, in an order that rotates from pair to pair; the row "seccomp's
#       cost" is the median of the pairs' differences.
#       PAIRS (default max(N, 21)) sets their number; N = MEM_N = 0 runs (d) alone. A pair's difference
#       moves by tens of ms with the machine's load, so the median's 95% interval is printed with it.
#       jrunc keeps compiled programs in its root, so every create but the first finds the profile's
#       there; for jrunc each pair has a third create with that cache removed first ("compiled
#       afresh", and "its cost" against the pair's plain create).
#   (e) `run` of the bundle as it is and of the same bundle with a user namespace (container ids
#       0-65535 on the host's 100000-165535, a copy of the rootfs owned by those ids, as a user
#       namespace's rootfs must be), jrunc and runc only, in interleaved pairs (USERNS_PAIRS, default
#       PAIRS), the order alternating from pair to pair; "the userns's cost" is the median of the pairs'
#       differences, and the line after the table compares jrunc's with runc's (the goal: jrunc's extra
#       cost at most runc's plus 5 ms). A runtime that refuses the user namespace is named, with its
#       message, and (e) goes on without it. USERNS_PAIRS = 0 leaves (e) out; N = MEM_N = PAIRS = 0
#       runs (e) alone.
# crun 1.8.1 refuses a hybrid cgroup host (cgroup2 at /sys/fs/cgroup/unified with a controller), even
# with --cgroup-manager=disabled: its check comes before the manager is chosen. On such a host crun runs
# in a private mount namespace without that mount, where it sees a cgroup v1 host and uses the same v1
# hierarchies; every runtime is then started through nsenter(1) (jrunc and runc into the bench's own
# mount namespace) so all pay the same extra exec. Needs root, busybox-static and runc; crun is skipped
# when missing or not runnable. Leaves nothing behind (checked at the end). docs/PERFORMANCE.md.
set -euo pipefail
jrunc=$(readlink -f "$1") work=$(readlink -m "$2") n=${3:-15} mem_n=${4:-3} pairs=${5:-} userns_pairs=${6:-}
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 1; }
command -v runc >/dev/null || { echo "bench: runc not found (make deps)" >&2; exit 1; }
[ -x "$jrunc" ] || { echo "bench: $jrunc is not executable (make build)" >&2; exit 1; }

tag=bench$$
bundle=$work/bundle
runtimes=(jrunc runc crun)
declare -A bin=([jrunc]=$jrunc [runc]=$(command -v runc) [crun]=$(command -v crun || true))
declare -A prefix=([jrunc]= [runc]= [crun]=)
holder= crun_note= userns_note=
started=$(date +%s)

cleanup() {
  local rt id
  set +e
  for rt in "${runtimes[@]}"; do
    [ -d "$work/root-$rt" ] || continue
    for id in $(ls "$work/root-$rt" 2>/dev/null); do
      ${prefix[$rt]} "${bin[$rt]}" --root "$work/root-$rt" delete --force "$id" >/dev/null 2>&1
    done
  done
  [ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$work"
mkdir -p "$bundle" "$work/samples"
for rt in "${runtimes[@]}"; do mkdir -p "$work/root-$rt"; done
"$(dirname "$0")/busybox-rootfs.sh" "$bundle/rootfs"
# runc's spec: crun 1.8.1 refuses jrunc's ociVersion (1.2.1) with "unknown version specified".
runc spec --bundle "$bundle"
sed -i -e 's/"terminal": true/"terminal": false/' \
  -e '/"args": \[/,/\]/{/"args": \[/!d;s|\[.*|["true"],|}' "$bundle/config.json"
grep -q '"args": \["true"\]' "$bundle/config.json" || { echo "bench: cannot edit config.json" >&2; exit 1; }
# (d)'s second bundle: the same rootfs (by its absolute path: runc refuses a symlink), podman's default
# profile added.
seccomp_bundle=$work/bundle-seccomp
mkdir -p "$seccomp_bundle"
"$(dirname "$0")/with-seccomp.sh" "$bundle/config.json" \
  "$(dirname "$0")/../seccomp/src/test/resources/profiles/podman-default.json" |
  sed -e "s|\"path\": \"rootfs\"|\"path\": \"$bundle/rootfs\"|" >"$seccomp_bundle/config.json"
grep -q "\"path\": \"$bundle/rootfs\"" "$seccomp_bundle/config.json" || { echo "bench: cannot edit config.json" >&2; exit 1; }
# (e)'s second bundle: a user namespace first in the list, one 65536-id range for uids and gids, and a
# rootfs of its own owned by the mapped root (container root must be able to create its mount points).
userns_bundle=$work/bundle-userns userns_host=100000 userns_size=65536
mkdir -p "$userns_bundle"
cp -a "$bundle/rootfs" "$userns_bundle/rootfs"
chown -R "$userns_host:$userns_host" "$userns_bundle/rootfs"
map="[{\"containerID\": 0, \"hostID\": $userns_host, \"size\": $userns_size}]"
sed -e $'/^\t"linux": {/a\\\n\t\t"uidMappings": '"$map"$',\\\n\t\t"gidMappings": '"$map"$',' \
  -e $'/^\t\t"namespaces": \\[/a\\\n\t\t\t{"type": "user"},' "$bundle/config.json" >"$userns_bundle/config.json"
grep -q '{"type": "user"}' "$userns_bundle/config.json" && grep -q '"uidMappings"' "$userns_bundle/config.json" ||
  { echo "bench: cannot edit config.json" >&2; exit 1; }

# rt_cmd RUNTIME ARGS...: the runtime with its prefix and root, output to WORK/out (kept on failure).
rt_cmd() {
  local rt=$1; shift
  if ! ${prefix[$rt]} "${bin[$rt]}" --root "$work/root-$rt" "$@" >"$work/out" 2>&1 </dev/null; then
    echo "bench: $rt $* failed:" >&2; cat "$work/out" >&2; return 1
  fi
}

# crun: as it is, else in a mount namespace without the cgroup2 mount of a hybrid host, else not at all.
if [ -z "${bin[crun]}" ]; then
  crun_note="crun: not installed, skipped"
elif "${bin[crun]}" --root "$work/root-crun" run --bundle "$bundle" "$tag-probe" >"$work/out" 2>&1 </dev/null; then
  crun_note="crun: runs on this host as it is"
elif grep -q 'hybrid mode not supported' "$work/out" && mountpoint -q /sys/fs/cgroup/unified; then
  "${bin[crun]}" --root "$work/root-crun" delete --force "$tag-probe" >/dev/null 2>&1 || true
  unshare --mount --propagation private -- sh -c 'umount /sys/fs/cgroup/unified && exec sleep 3600' &
  holder=$!
  for _ in $(seq 100); do
    grep -q ' /sys/fs/cgroup/unified ' "/proc/$holder/mountinfo" 2>/dev/null || break
    sleep 0.05
  done
  prefix=([jrunc]="nsenter --mount=/proc/$$/ns/mnt" [runc]="nsenter --mount=/proc/$$/ns/mnt"
          [crun]="nsenter --mount=/proc/$holder/ns/mnt")
  if rt_cmd crun run --bundle "$bundle" "$tag-probe" 2>"$work/err"; then
    crun_note="crun: refuses this hybrid cgroup host, so it runs in a private mount namespace without
  /sys/fs/cgroup/unified, where it sees a cgroup v1 host (v1 cgroups, none in cgroup2: a little less
  work than runc and jrunc); all three runtimes are started through nsenter --mount (one extra exec)"
  else
    cat "$work/err" >&2
    crun_note="crun: not runnable on this host, even without its cgroup2 mount: skipped"
  fi
else
  crun_note="crun: not runnable on this host ($(head -1 "$work/out")): skipped"
fi
[[ $crun_note == *skipped ]] && runtimes=(jrunc runc)

sample() { echo "$3" >>"$work/samples/$1.$2"; }  # sample METRIC RUNTIME VALUE

# wait_exit PID: until the process is a zombie or gone; reads procfs only, no fork.
wait_exit() {
  local st
  while read -r _ _ st _ 2>/dev/null <"/proc/$1/stat" && [ "$st" != Z ]; do :; done
}

# failed RUNTIME ID: a failed command is counted and reported, its container removed, and the bench
# goes on; the table leaves it out and bench.sh exits 1 at the end.
failed() {
  echo "$2" >>"$work/failed.$1"
  ${prefix[$1]} "${bin[$1]}" --root "$work/root-$1" delete --force "$2" >/dev/null 2>&1 || true
}

bench_run() {  # (a)
  local rt=$1 id=$2 t0
  t0=${EPOCHREALTIME/./}
  rt_cmd "$rt" run --bundle "$bundle" "$id" || { failed "$rt" "$id"; return 0; }
  sample run "$rt" $(( ${EPOCHREALTIME/./} - t0 ))
}

bench_lifecycle() {  # (b)
  local rt=$1 id=$2 t0 t1 t2 t3 t4 pid
  t0=${EPOCHREALTIME/./}
  rt_cmd "$rt" create --bundle "$bundle" --pid-file "$work/$id.pid" "$id" || { failed "$rt" "$id"; return 0; }
  t1=${EPOCHREALTIME/./}
  read -r pid <"$work/$id.pid" || [ -n "$pid" ]  # no newline at the end
  if ! rt_cmd "$rt" start "$id"; then
    echo "bench: the container's process $pid: $(cat "/proc/$pid/stat" 2>&1)" >&2
    ${prefix[$rt]} "${bin[$rt]}" --root "$work/root-$rt" state "$id" >&2 || true
    failed "$rt" "$id"; return 0
  fi
  t2=${EPOCHREALTIME/./}
  wait_exit "$pid"
  t3=${EPOCHREALTIME/./}
  rt_cmd "$rt" delete "$id" || { failed "$rt" "$id"; return 0; }
  t4=${EPOCHREALTIME/./}
  sample create "$rt" $((t1 - t0)); sample start "$rt" $((t2 - t1))
  sample wait "$rt" $((t3 - t2)); sample delete "$rt" $((t4 - t3)); sample cycle "$rt" $((t4 - t0))
}

bench_memory() {  # (c)
  local rt=$1 id=$2 pid key value _
  rt_cmd "$rt" create --bundle "$bundle" --pid-file "$work/$id.pid" "$id"
  read -r pid <"$work/$id.pid" || [ -n "$pid" ]  # no newline at the end
  while read -r key value _; do
    case $key in VmRSS:|RssAnon:|RssFile:) sample "${key%:}" "$rt" "$value" ;; esac
  done <"/proc/$pid/status"
  rt_cmd "$rt" delete --force "$id"
}

# create_timed RUNTIME BUNDLE ID: one create, its wall time in us in $elapsed, then an untimed delete.
create_timed() {
  local t0 t1
  t0=${EPOCHREALTIME/./}
  rt_cmd "$1" create --bundle "$2" "$3" || return 1
  t1=${EPOCHREALTIME/./}
  elapsed=$((t1 - t0))
  rt_cmd "$1" delete --force "$3"
}

bench_seccomp() {  # (d)
  local rt=$1 id=$2 i=$3 plain cached cold step order
  # The order rotates with the pair: a create's position in the sequence shifts its time (what the
  # previous delete leaves the kernel to do), and a fixed order would charge that to one of them.
  # jrunc's third create is the one compiled afresh: its root's @cache removed right before it.
  if [ "$rt" = jrunc ]; then
    case $((i % 3)) in 1) order="p s c" ;; 2) order="s c p" ;; *) order="c p s" ;; esac
  else
    case $((i % 2)) in 1) order="p s" ;; *) order="s p" ;; esac
  fi
  for step in $order; do
    case $step in
      p) create_timed "$rt" "$bundle" "$id-p" || { failed "$rt" "$id-p"; return 0; }; plain=$elapsed ;;
      s) create_timed "$rt" "$seccomp_bundle" "$id-s" || { failed "$rt" "$id-s"; return 0; }; cached=$elapsed ;;
      c) rm -rf "$work/root-jrunc/@cache"
         create_timed "$rt" "$seccomp_bundle" "$id-c" || { failed "$rt" "$id-c"; return 0; }; cold=$elapsed ;;
    esac
  done
  sample plaincreate "$rt" "$plain"; sample seccompcreate "$rt" "$cached"
  sample seccompcost "$rt" $((cached - plain))
  if [ "$rt" = jrunc ]; then
    sample seccompcold "$rt" "$cold"; sample seccompcoldcost "$rt" $((cold - plain))
  fi
}

bench_userns() {  # (e)
  local rt=$1 id=$2 i=$3 plain userns step order t0
  # alternating, as (d) rotates, so that neither run is always the one after the other's delete
  case $((i % 2)) in 1) order="p u" ;; *) order="u p" ;; esac
  for step in $order; do
    t0=${EPOCHREALTIME/./}
    case $step in
      p) rt_cmd "$rt" run --bundle "$bundle" "$id-p" || { failed "$rt" "$id-p"; return 0; }
         plain=$(( ${EPOCHREALTIME/./} - t0 )) ;;
      u) rt_cmd "$rt" run --bundle "$userns_bundle" "$id-u" || { failed "$rt" "$id-u"; return 0; }
         userns=$(( ${EPOCHREALTIME/./} - t0 )) ;;
    esac
  done
  sample usernsplain "$rt" "$plain"; sample usernsrun "$rt" "$userns"
  sample usernscost "$rt" $((userns - plain))
}

load() { cut -d' ' -f1-3 /proc/loadavg; }
load_before=$(load)
echo "warm-up round..."
for rt in "${runtimes[@]}"; do
  rt_cmd "$rt" run --bundle "$bundle" "$tag-warm"
  rt_cmd "$rt" create --bundle "$bundle" "$tag-warm"
  rt_cmd "$rt" delete --force "$tag-warm"
done
echo "(a) run, (b) create/start/wait/delete: $n rounds of ${runtimes[*]}..."
for i in $(seq "$n"); do
  for rt in "${runtimes[@]}"; do bench_run "$rt" "$tag-a-$rt-$i"; done
  for rt in "${runtimes[@]}"; do bench_lifecycle "$rt" "$tag-b-$rt-$i"; done
done
echo "(c) memory of a created container: $mem_n rounds..."
for i in $(seq "$mem_n"); do
  for rt in "${runtimes[@]}"; do bench_memory "$rt" "$tag-c-$rt-$i"; done
done
[ -n "$pairs" ] || pairs=$(( n > 21 ? n : 21 ))
echo "(d) create without and with podman's seccomp profile: $pairs pairs of ${runtimes[*]}..."
for i in $(seq "$pairs"); do
  for rt in "${runtimes[@]}"; do bench_seccomp "$rt" "$tag-d-$rt-$i" "$i"; done
done
[ -n "$userns_pairs" ] || userns_pairs=$pairs
# (e) is jrunc's and runc's; a runtime that refuses a user namespace (a build without support) is named
# with its message and left out of (e) rather than counted as a failure.
userns_runtimes=()
if [ "$userns_pairs" -gt 0 ]; then
  for rt in jrunc runc; do
    if ${prefix[$rt]} "${bin[$rt]}" --root "$work/root-$rt" run --bundle "$userns_bundle" "$tag-e-probe" \
        >"$work/out" 2>&1 </dev/null; then
      userns_runtimes+=("$rt")
    else
      ${prefix[$rt]} "${bin[$rt]}" --root "$work/root-$rt" delete --force "$tag-e-probe" >/dev/null 2>&1 || true
      userns_note+="  (e): $rt refused the user namespace, left out of (e): $(grep -v '^$' "$work/out" | head -1)"$'\n'
    fi
  done
  echo "(e) run without and with a user namespace: $userns_pairs pairs of ${userns_runtimes[*]:-no runtime}..."
  [ -n "$userns_note" ] && printf '%s' "$userns_note"
  if [ ${#userns_runtimes[@]} -gt 0 ]; then
    for i in $(seq "$userns_pairs"); do
      for rt in "${userns_runtimes[@]}"; do bench_userns "$rt" "$tag-e-$rt-$i" "$i"; done
    done
  fi
fi
load_after=$(load)

# stat METRIC RUNTIME: "median min" of the samples (median of an even count: mean of the middle two).
stat() {
  sort -n "$work/samples/$1.$2" | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
    printf "%d %d\n", m, v[1]}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

row() {  # row LABEL METRIC UNIT(ms|kB)
  local label=$1 metric=$2 unit=$3 rt med min line
  declare -A m
  line=$(printf '%-22s' "$label")
  for rt in jrunc runc crun; do
    if [ -f "$work/samples/$metric.$rt" ]; then
      read -r med min <<<"$(stat "$metric" "$rt")"
      m[$rt]=$med
      if [ "$unit" = ms ]; then
        line+=$(awk -v a="$med" -v b="$min" 'BEGIN { printf "%9.1f %8.1f", a / 1000, b / 1000 }')
      else
        line+=$(printf '%9d %8d' "$med" "$min")
      fi
    else
      m[$rt]=0; line+=$(printf '%9s %8s' - -)
    fi
  done
  line+=$(printf '%12s %11s' "$(ratio "${m[jrunc]}" "${m[runc]}")" "$(ratio "${m[jrunc]}" "${m[crun]}")")
  echo "$line"
}

echo
echo "jrunc bench, $(date -u +%FT%TZ): $(nproc) CPUs, kernel $(uname -r)"
echo "  jrunc: $jrunc"
echo "  runc:  $(runc --version | head -1)"
[ -n "${bin[crun]}" ] && echo "  crun:  $("${bin[crun]}" --version | head -1)"
echo "  $crun_note"
echo "  bundle: busybox-static, process /bin/true, config from runc spec; $n runs per runtime for (a)/(b),"
echo "  $mem_n for (c), interleaved; load average before: $load_before, after: $load_after"
echo "  (the machine may be shared: absolute times move with its load, the ratios much less)"
echo
printf '%-22s%18s%18s%18s%12s%12s\n' "" "jrunc" "runc" "crun" "jrunc/runc" "jrunc/crun"
printf '%-22s%9s %8s%9s %8s%9s %8s%12s%12s\n' "ms (median, min)" median min median min median min median median
row "(a) run /bin/true" run ms
row "(b) lifecycle" cycle ms
row "    create" create ms
row "    start" start ms
row "    wait for exit" wait ms
row "    delete" delete ms
row "(d) create" plaincreate ms
row "    with seccomp" seccompcreate ms
row "    seccomp's cost" seccompcost ms
row "    compiled afresh" seccompcold ms
row "    its cost" seccompcoldcost ms
# interval METRIC RUNTIME: the median's distribution-free 95% confidence interval, from the order
# statistics of ranks (n - 1.96 sqrt(n)) / 2 and 1 + (n + 1.96 sqrt(n)) / 2 (binomial, normal approximation).
interval() {
  [ -f "$work/samples/$1.$2" ] || return 0
  sort -n "$work/samples/$1.$2" | awk -v label="$3" '{v[NR]=$1} END {
    h = 1.96 * sqrt(NR); lo = int((NR - h) / 2); hi = int(1 + (NR + h) / 2 + 0.999)
    if (lo < 1) lo = 1; if (hi > NR) hi = NR
    printf "  %s: 95%% interval of the median %.1f to %.1f ms (%d pairs)\n", label, v[lo] / 1000, v[hi] / 1000, NR }'
}
interval seccompcost jrunc "jrunc's seccomp cost"
interval seccompcoldcost jrunc "jrunc's cost compiled afresh"
row "(e) run, no userns" usernsplain ms
row "    with a userns" usernsrun ms
row "    the userns's cost" usernscost ms
interval usernscost jrunc "jrunc's userns cost"
interval usernscost runc "runc's userns cost"
# (e)'s goal: a user namespace may cost jrunc at most 5 ms more than it costs runc.
if [ -f "$work/samples/usernscost.jrunc" ] && [ -f "$work/samples/usernscost.runc" ]; then
  read -r jcost _ <<<"$(stat usernscost jrunc)"
  read -r rcost _ <<<"$(stat usernscost runc)"
  awk -v j="$jcost" -v r="$rcost" 'BEGIN { d = (j - r) / 1000
    printf "  (e) a user namespace costs jrunc %.1f ms, runc %.1f ms: jrunc %+.1f ms against runc (goal: at most +5 ms): %s\n",
      j / 1000, r / 1000, d, d <= 5 ? "met" : "NOT met" }'
fi
[ -n "$userns_note" ] && printf '%s' "$userns_note"
echo "kB (median, min)"
row "(c) VmRSS created" VmRSS kB
row "    RssAnon" RssAnon kB
row "    RssFile" RssFile kB

# Leftovers: state directories, processes and cgroups named after this run's ids.
# (jrunc's root keeps its cache of compiled seccomp programs, @cache: not a container's)
left=$(for rt in "${runtimes[@]}"; do ls "$work/root-$rt" | grep -vx '@cache' || true; done)
left+=$(pgrep -f "$tag-" | grep -vx "$$" || true)
left+=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "*$tag*" 2>/dev/null || true)
if [ -n "$left" ]; then echo "bench: left behind: $left" >&2; exit 1; fi
echo
echo "uptime: $(uptime)"
echo "bench took $(( $(date +%s) - started )) s"
for rt in "${runtimes[@]}"; do
  [ -f "$work/failed.$rt" ] && echo "bench: $rt failed $(wc -l <"$work/failed.$rt") time(s), left out above:" \
    $(cat "$work/failed.$rt") >&2 && status=1
done
exit "${status:-0}"
