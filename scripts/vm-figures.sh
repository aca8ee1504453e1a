#!/usr/bin/env bash
# The pod VM's figures for docs/PERFORMANCE.md, ROUNDS rounds, interleaved:
#   agent: a pod booted by jrunc-vm: kernel start to the agent's "ready for requests" (its console),
#          the agent's resident memory at ready, and per container (CONTAINERS per pod) the in-guest
#          create and start times the agent logs for the API's Create and Start, with the CLI's wall time
#          for `jrunc-vm create` + `start` (hot-plug and JVM start-up included) beside them;
#   baseline: the same kernel in the same VM configuration (qemu flags, memory, devices) with a busybox
#          shell as /init that prints its uptime and powers off (kernel parameters: the console's, quiet
#          and the agent's swiotlb=noforce, which spares both kernels a 64 MiB bounce buffer).
# Then the medians, the ratio of ready times and the image sizes.
# virtio-fs (its own section, virtiofs_figure): 100 MiB written by dd in a container to a host directory
# shared through virtio-fs, against the same write to a tmpfs in the guest, interleaved, ROUNDS each,
# with and without conv=fsync; and the pod VM's boot to ready and qemu's resident memory at ready with
# the guest's RAM a shared memfd (what jrunc-vm boots, needed by virtio-fs) against private anonymous
# memory, same command line otherwise. `FIGURES=virtiofs scripts/vm-figures.sh [ROUNDS]` runs it alone.
# network (its own section, network_figures): (a) 100 MiB from the host to a container through a
# published port against the same over the host's loopback; (b) connect and first-byte times of a small
# HTTP GET through a published port against the same server on the host's loopback. NET_ROUNDS rounds
# (default 5). `FIGURES=network scripts/vm-figures.sh` runs it alone.
#
# layer (its own section, layer_figure): 100 MiB written to a container's writable layer against a tmpfs
# in the guest, and `run --rm` to first output with a read-only root against a writable one.
# podstart (its own section, podstart_figure): `run --rm` to first output on a new anonymous pod as pods
# are made now (user-mode network, writable root on a layer disk) against a pod with neither
# (`--network none`, read-only root), interleaved, BOOT_ROUNDS pairs (default 3).
#
#   scripts/vm-figures.sh [ROUNDS [CONTAINERS]]     (make build vm-image first; needs busybox-static, qemu)
#   FIGURES=layer|virtiofs|network|podstart|pod scripts/vm-figures.sh [ROUNDS]   one section alone
#   (`scripts/vm-figures.sh layer [ROUNDS]` is FIGURES=layer)
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${FIGURES:-all}; [ "${1:-}" = layer ] && { MODE=layer; shift; }
ROUNDS=${1:-3} CONTAINERS=${2:-3}
IMAGE=$PWD/build/vm-image JRUNC_VM=$PWD/build/bin/jrunc-vm OUT=$PWD/build/vm-figures
[ -x "$JRUNC_VM" ] && [ -f "$IMAGE/vmlinuz" ] || { echo "vm-figures: needs build/bin/jrunc-vm and build/vm-image (make build vm-image)" >&2; exit 2; }
ldd /bin/busybox >/dev/null 2>&1 && { echo "vm-figures: needs busybox-static" >&2; exit 2; }
rm -rf "$OUT" && mkdir -p "$OUT"
ROOT=$OUT/root
# the accelerator the pods got: the state root's record of jrunc-vm's choice (io.jrunc.vm.qemu.Kvm)
accel() {
  case $(sed -n 2p "$ROOT/accelerator" 2>/dev/null) in
    kvm) echo KVM ;;
    tcg) echo "TCG ($(sed -n 3p "$ROOT/accelerator"))" ;;
    *) echo "no KVM: TCG" ;;
  esac
}
jv() { "$JRUNC_VM" --root "$ROOT" "$@"; }
cleanup() { for p in $(jv pod ls --format json 2>/dev/null | grep -o '"name" : "[^"]*"' | cut -d'"' -f4); do jv pod rm -f "$p" >/dev/null 2>&1 || true; done
            [ -z "${baseline_qemu:-}" ] || kill "$baseline_qemu" 2>/dev/null || true; }
trap cleanup EXIT

# --- the baseline initramfs: busybox-static as /init ----------------------------------------------------
stage=$OUT/baseline-stage; mkdir -p "$stage"/{bin,proc}
cp /bin/busybox "$stage/bin/busybox"
cat > "$stage/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
read up idle < /proc/uptime
echo "baseline: shell ready $up s after kernel start"
/bin/busybox poweroff -f
INIT
chmod 755 "$stage/init"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$OUT/baseline.cpio"

# --- a busybox bundle --------------------------------------------------------------------------------
bundle=$OUT/bundle; scripts/pod-bundle.sh "$bundle"

ms() { date +%s%3N; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# --- the writable layer ------------------------------------------------------------------------------
# In one pod, ROUNDS rounds interleaved: 100 MiB of zeros written by dd in a container to its root (the
# overlay whose upper layer is its layer.img disk), once with conv=fsync (the data reaches the host)
# and once without (the guest's page cache), against the same write to a tmpfs at /tmp; the guest's
# /proc/uptime around each dd times the write alone, without the CLI's JVM. Then pod start to the
# first output of a container, `run --rm` in an anonymous pod (boot, mkfs, hot-plug, create, start),
# for a read-only root (no layer disk) and a writable one (its layer made and attached), interleaved,
# BOOT_ROUNDS (default 2) pairs.
# the bundle with a writable root and a tmpfs at /tmp, made once into $OUT/bundle-rw
rw_bundle() {
  local rw=$OUT/bundle-rw
  [ -f "$rw/config.json" ] && return 0
  mkdir -p "$rw" && cp -a "$bundle/rootfs" "$rw/rootfs"
  sed -e 's/"readonly": true/"readonly": false/' \
      -e 's|"mounts": \[|"mounts": [{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["size=256m"]},|' \
      "$bundle/config.json" > "$rw/config.json"
}
layer_figure() {
  local rw=$OUT/bundle-rw r t
  rw_bundle
  for f in layer-fsync layer-cache tmpfs boot-ro boot-rw; do : > "$OUT/$f"; done
  jv pod create --name layerfig --memory 512m >/dev/null
  jv create --pod layerfig --name writer "$rw" sleep 100000 >/dev/null && jv start writer >/dev/null
  timed() { jv exec writer sh -c "read a x < /proc/uptime; dd if=/dev/zero of=$1 bs=1M count=100 $2 2>/dev/null; read b x < /proc/uptime; rm $1; sync; echo \$a \$b" \
              | awk '{printf "%.0f\n", ($2 - $1) * 1000}'; }
  for r in $(seq "$ROUNDS"); do
    timed /layer-file conv=fsync >> "$OUT/layer-fsync"
    timed /layer-file "" >> "$OUT/layer-cache"
    timed /tmp/file "" >> "$OUT/tmpfs"
  done
  jv pod rm -f layerfig >/dev/null
  for r in $(seq "${BOOT_ROUNDS:-2}"); do
    for kind in ro rw; do
      b=$bundle; [ $kind = rw ] && b=$rw
      t=$(ms)
      jv run --rm "$b" echo first-output | { read -r _; echo $(( $(ms) - t )) >> "$OUT/boot-$kind"; cat >/dev/null; }
    done
  done
  echo "layer: 100 MiB dd to the root, conv=fsync (ms):   $(tr '\n' ' ' < "$OUT/layer-fsync") median $(median < "$OUT/layer-fsync")"
  echo "layer: 100 MiB dd to the root, no fsync (ms):     $(tr '\n' ' ' < "$OUT/layer-cache") median $(median < "$OUT/layer-cache")"
  echo "layer: 100 MiB dd to a tmpfs in the guest (ms):   $(tr '\n' ' ' < "$OUT/tmpfs") median $(median < "$OUT/tmpfs")"
  echo "layer: run --rm to first output, read-only (ms):  $(tr '\n' ' ' < "$OUT/boot-ro") median $(median < "$OUT/boot-ro")"
  echo "layer: run --rm to first output, writable (ms):   $(tr '\n' ' ' < "$OUT/boot-rw") median $(median < "$OUT/boot-rw")"
}
# --- pod start with the network and the layer (d) --------------------------------------------------
# `run --rm BUNDLE echo` to its first output on a new anonymous pod, wall time of the CLI: "now" is the
# default pod (user-mode network, its virtio-net device and the agent's netlink set-up; a writable root,
# its layer made with mkfs and hot-plugged) and "without" a pod with `--network none` and a read-only
# root (no network device, no layer disk), interleaved, the order swapped every pair.
podstart_figure() {
  local r t kind
  rw_bundle
  : > "$OUT/podstart-now"; : > "$OUT/podstart-without"
  for r in $(seq "${BOOT_ROUNDS:-3}"); do
    for kind in $( [ $((r % 2)) = 1 ] && echo "now without" || echo "without now"); do
      t=$(ms)
      if [ $kind = now ]; then
        jv run --rm "$OUT/bundle-rw" echo first-output | { read -r _; echo $(( $(ms) - t )) >> "$OUT/podstart-$kind"; cat >/dev/null; }
      else
        jv run --rm --network none "$bundle" echo first-output | { read -r _; echo $(( $(ms) - t )) >> "$OUT/podstart-$kind"; cat >/dev/null; }
      fi
    done
  done
  local now without
  now=$(median < "$OUT/podstart-now") without=$(median < "$OUT/podstart-without")
  echo "(d) run --rm to first output, network + layer (ms):   $(tr '\n' ' ' < "$OUT/podstart-now") median $now"
  echo "(d) run --rm to first output, none + read-only (ms):  $(tr '\n' ' ' < "$OUT/podstart-without") median $without"
  echo "(d) ratio (medians):                                  $(awk -v a="$now" -v b="$without" 'BEGIN {printf "%.2f", a / b}')"
}
# --- pod boot (pod_figures): `make bench-pod`, FIGURES=pod --------------------------------------------
# BOOT_ROUNDS rounds (default 3), interleaved, each: (1) per image of POD_IMAGES (default build/vm-image;
# several directories compare image variants in the same run; POD_RUN_IMAGES, default the same, those
# of them whose `run --rm` is measured too) a pod booted by jrunc-vm (`pod create` +
# `pod start`, default pod): kernel start to the agent's "ready for requests" and its resident memory
# then, from its console, the pod's Configure as the agent timed it and when it ended after ready (its
# "pod configured in" line), and qemu's resident memory 25 s after `pod start` returned (the guest's RAM,
# RssShmem, among it: what the idle pod holds of the host's memory); (2) the baseline: the same kernel and qemu command line (that pod's, read from
# /proc) with the busybox initramfs above, whose /init prints its uptime (kernel start to its first
# line) and powers off (qemu's wall time from start to exit); (3) per image, `run --rm BUNDLE echo hi`
# on a new anonymous pod with the writable bundle, wall time to its first output and to its exit; then,
# for the first image, the same `run --rm` with a warm pool of one pod (`[pool] size = 1`: `pod pool`
# boots it and waits, untimed; the timed run takes it; `pod pool` then waits for the fill the run
# started in the background and `pod pool --drain` ends it, untimed, so no VM runs beside the others),
# and the same `run --rm` restored from the pod template (`pod template`, made once before the rounds,
# untimed, and kept aside, ROOT/template.aside, while the other steps run so that they boot).
# Medians and the ratios to the baseline. The order of the three is rotated every round.
# An entry of POD_IMAGES may be IMAGE@JRUNC_VM: that image booted by another jrunc-vm (a build of another
# commit), to compare launchers in one run; the baseline takes the first entry's command line.
img_dir() { echo "${1%%@*}"; }
img_vm() { case $1 in *@*) echo "${1#*@}" ;; *) echo "$JRUNC_VM" ;; esac; }
# jrunc-vm with an entry's image and launcher: jvi ENTRY ARGS...
jvi() { local img=$1; shift; JRUNC_VM_IMAGE=$(img_dir "$img") JRUNC_VM=$(img_vm "$img") jv "$@"; }
pod_figures() {
  local rounds=${BOOT_ROUNDS:-3} images=${POD_IMAGES:-$IMAGE} r step img i n pod qemu_pid bdir t line a
  local run_images=${POD_RUN_IMAGES:-${POD_IMAGES:-$IMAGE}}
  local -a cmd=() args=()
  rw_bundle
  : > "$OUT/pod-base-first"; : > "$OUT/pod-base-wall"
  n=0; for img in $images; do n=$((n + 1)); for f in ready rss anon configured configure qemu run-first run-wall; do : > "$OUT/pod-$f-$n"; done; done
  : > "$OUT/pod-pool-first"; : > "$OUT/pod-pool-wall"; printf '[pool]\nsize = 1\n' > "$OUT/pool.toml"
  : > "$OUT/pod-template-first"; : > "$OUT/pod-template-wall"
  jvi "${images%% *}" pod template >/dev/null && mv "$ROOT/template" "$ROOT/template.aside"
  for r in $(seq "$rounds"); do
    for step in $(case $((r % 3)) in 1) echo "boot base run" ;; 2) echo "run boot base" ;; 0) echo "base run boot" ;; esac); do
      case $step in
        boot)
          n=0
          for img in $images; do
            n=$((n + 1)); pod=podfig$r-$n
            jvi "$img" pod create --name "$pod" >/dev/null
            jvi "$img" pod start "$pod" >/dev/null
            # the console is written as the guest prints: the line may trail the monitor's first answer
            for i in $(seq 50); do grep -q 'ready for requests' "$ROOT/pods/$pod/console.log" && break; sleep 0.2; done
            line=$(grep -m1 'ready for requests' "$ROOT/pods/$pod/console.log")
            echo "$line" | sed -n 's/.*ready for requests \([0-9.]*\) s.*/\1/p' >> "$OUT/pod-ready-$n"
            echo "$line" | sed -n 's/.*resident \([0-9.]*\) MiB.*/\1/p' >> "$OUT/pod-rss-$n"
            echo "$line" | sed -n 's/.*resident [0-9.]* MiB (anonymous \([0-9.]*\),.*/\1/p' >> "$OUT/pod-anon-$n"
            # the pod's Configure (the host's first call) as the agent timed it, and when it ended after ready
            for i in $(seq 50); do grep -q 'pod configured in' "$ROOT/pods/$pod/console.log" && break; sleep 0.2; done
            sed -n 's/^jrunc-vminit \[ *\([0-9.]*\)\] \(ready for requests\|pod configured in \([0-9]*\) ms\).*/\1 \3/p' \
              "$ROOT/pods/$pod/console.log" | awk 'NR == 1 {ready = $1} NR == 2 {printf "%.2f\n", $1 - ready > "/dev/stderr"; print $2}' \
              2>> "$OUT/pod-configured-$n" >> "$OUT/pod-configure-$n"
            qemu_pid=$(jv pod inspect "$pod" | sed -n 's/.*"qemuPid" : \([0-9]*\).*/\1/p')
            if [ ${#cmd[@]} = 0 ]; then
              mapfile -d '' cmd < "/proc/$qemu_pid/cmdline"
            fi
            # what the idle pod's VM holds of the host's memory once the guest settled: its balloon's driver
            # loads 15 s after ready and reports the free pages 2 s later
            sleep 25
            awk '/^VmRSS/ {rss = $2} /^RssShmem/ {shm = $2} END {printf "%.1f %.1f\n", rss / 1024, shm / 1024}' \
              "/proc/$qemu_pid/status" >> "$OUT/pod-qemu-$n"
            cp "$ROOT/pods/$pod/console.log" "$OUT/pod-console-$r-$n.log"
            jv pod rm -f "$pod" >/dev/null
          done ;;
        base)
          if [ ${#cmd[@]} = 0 ]; then # the first round's boot comes later: take a pod's command line now
            jvi "${images%% *}" pod create --name podfig-line >/dev/null
            jvi "${images%% *}" pod start podfig-line >/dev/null
            qemu_pid=$(jv pod inspect podfig-line | sed -n 's/.*"qemuPid" : \([0-9]*\).*/\1/p')
            mapfile -d '' cmd < "/proc/$qemu_pid/cmdline"
            pod=podfig-line; jv pod rm -f podfig-line >/dev/null
          else
            pod=$(echo "${cmd[*]}" | grep -o "$ROOT/pods/[^/ ]*" | head -1); pod=${pod##*/}
          fi
          bdir=$OUT/pod-baseline-$r; mkdir -p "$bdir"; args=()
          for ((i = 1; i < ${#cmd[@]}; i++)); do
            a=${cmd[$i]}
            case ${cmd[$((i - 1))]} in
              -initrd) a=$OUT/baseline.cpio ;;
              -append) a="console=ttyS0 panic=-1 quiet swiotlb=noforce init=/init" ;;
              -serial) a=file:$bdir/console.log ;;
            esac
            args+=("${a//$ROOT\/pods\/$pod/$bdir}")
          done
          t=$(ms)
          timeout 300 "${cmd[0]}" "${args[@]}" & baseline_qemu=$!
          wait "$baseline_qemu" || true; baseline_qemu=
          echo $(( $(ms) - t )) >> "$OUT/pod-base-wall"
          sed -n 's/.*baseline: shell ready \([0-9.]*\) s.*/\1/p' "$bdir/console.log" >> "$OUT/pod-base-first" ;;
        run)
          n=0
          for img in $images; do
            n=$((n + 1)); case " $run_images " in *" $img "*) ;; *) continue ;; esac
            t=$(ms)
            jvi "$img" run --rm "$OUT/bundle-rw" echo hi | { read -r _; echo $(( $(ms) - t )) >> "$OUT/pod-run-first-$n"; cat >/dev/null; }
            echo $(( $(ms) - t )) >> "$OUT/pod-run-wall-$n"
          done
          img=${images%% *}
          jvi "$img" --config "$OUT/pool.toml" pod pool >/dev/null
          t=$(ms)
          jvi "$img" --config "$OUT/pool.toml" run --rm "$OUT/bundle-rw" echo hi | { read -r _; echo $(( $(ms) - t )) >> "$OUT/pod-pool-first"; cat >/dev/null; }
          echo $(( $(ms) - t )) >> "$OUT/pod-pool-wall"
          jvi "$img" --config "$OUT/pool.toml" pod pool >/dev/null
          jvi "$img" --config "$OUT/pool.toml" pod pool --drain >/dev/null
          mv "$ROOT/template.aside" "$ROOT/template"
          t=$(ms)
          jvi "$img" run --rm "$OUT/bundle-rw" echo hi | { read -r _; echo $(( $(ms) - t )) >> "$OUT/pod-template-first"; cat >/dev/null; }
          echo $(( $(ms) - t )) >> "$OUT/pod-template-wall"
          mv "$ROOT/template" "$ROOT/template.aside" ;;
      esac
    done
  done
  local base_first base_wall ready run_wall
  base_first=$(median < "$OUT/pod-base-first") base_wall=$(median < "$OUT/pod-base-wall")
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b}'; }
  echo "pod: machine $(nproc) cores, $(accel), host $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "pod: VM ${cmd[*]}" | sed "s|$ROOT/pods/[^/]*/|POD/|g"
  echo "pod: baseline busybox init, kernel start to its first line (s):  $(tr '\n' ' ' < "$OUT/pod-base-first")median $base_first"
  echo "pod: baseline busybox init, qemu start to power-off, wall (ms):   $(tr '\n' ' ' < "$OUT/pod-base-wall")median $base_wall"
  n=0
  for img in $images; do
    n=$((n + 1)); ready=$(median < "$OUT/pod-ready-$n")
    echo "pod: [$img] agent kernel start to ready (s):  $(tr '\n' ' ' < "$OUT/pod-ready-$n")median $ready, ratio to the baseline $(ratio "$ready" "$base_first")"
    echo "pod: [$img] agent resident at ready (MiB):    $(tr '\n' ' ' < "$OUT/pod-rss-$n")median $(median < "$OUT/pod-rss-$n")"
    [ -s "$OUT/pod-configure-$n" ] && echo "pod: [$img] the pod's Configure in the guest (ms): $(tr '\n' ' ' < "$OUT/pod-configure-$n")median $(median < "$OUT/pod-configure-$n"), ended after ready (s): $(tr '\n' ' ' < "$OUT/pod-configured-$n")median $(median < "$OUT/pod-configured-$n")"
    [ -s "$OUT/pod-anon-$n" ] && echo "pod: [$img] of it anonymous (MiB):             $(tr '\n' ' ' < "$OUT/pod-anon-$n")median $(median < "$OUT/pod-anon-$n")"
    echo "pod: [$img] qemu resident 25 s after pod start (MiB): $(cut -d' ' -f1 "$OUT/pod-qemu-$n" | tr '\n' ' ')median $(cut -d' ' -f1 "$OUT/pod-qemu-$n" | median); the guest's RAM of it: $(cut -d' ' -f2 "$OUT/pod-qemu-$n" | tr '\n' ' ')median $(cut -d' ' -f2 "$OUT/pod-qemu-$n" | median)"
    run_wall=$(median < "$OUT/pod-run-wall-$n")
    [ -s "$OUT/pod-run-wall-$n" ] && echo "pod: [$img] run --rm BUNDLE echo hi, new anonymous pod, first output (ms): $(tr '\n' ' ' < "$OUT/pod-run-first-$n")median $(median < "$OUT/pod-run-first-$n")"
    [ -s "$OUT/pod-run-wall-$n" ] && echo "pod: [$img] run --rm BUNDLE echo hi, new anonymous pod, wall (ms):         $(tr '\n' ' ' < "$OUT/pod-run-wall-$n")median $run_wall, ratio to the baseline's wall $(ratio "$run_wall" "$base_wall")"
    echo "pod: [$img] initrd.cpio $(stat -c %s "$(img_dir "$img")/initrd.cpio") bytes$([ ! -f "$(img_dir "$img")/agent-root.img" ] || echo ", agent-root.img $(stat -c %s "$(img_dir "$img")/agent-root.img") bytes ($(du -k "$(img_dir "$img")/agent-root.img" | cut -f1) KiB used)")"
  done
  local pool_wall; pool_wall=$(median < "$OUT/pod-pool-wall")
  echo "pod: [${images%% *}] run --rm BUNDLE echo hi, warm pool of 1, first output (ms): $(tr '\n' ' ' < "$OUT/pod-pool-first")median $(median < "$OUT/pod-pool-first")"
  echo "pod: [${images%% *}] run --rm BUNDLE echo hi, warm pool of 1, wall (ms):         $(tr '\n' ' ' < "$OUT/pod-pool-wall")median $pool_wall, ratio to the baseline's wall $(ratio "$pool_wall" "$base_wall")"
  local template_wall; template_wall=$(median < "$OUT/pod-template-wall")
  echo "pod: [${images%% *}] run --rm BUNDLE echo hi, pod template, first output (ms): $(tr '\n' ' ' < "$OUT/pod-template-first")median $(median < "$OUT/pod-template-first")"
  echo "pod: [${images%% *}] run --rm BUNDLE echo hi, pod template, wall (ms):         $(tr '\n' ' ' < "$OUT/pod-template-wall")median $template_wall, ratio to the baseline's wall $(ratio "$template_wall" "$base_wall")"
  rm -rf "$ROOT/template.aside"
}
# --- the CLI's latency (cli_figures) ----------------------------------------------------------------------
# Each jrunc-vm read-only call against `jrunc list` (build/bin/jrunc, an empty root of its own) run right
# after it, CLI_ROUNDS rounds (default 7), medians and their ratio: on an empty root, then with one pod
# running a container (ls, pod ls, inspect, pod inspect, stats, logs). Then a second container in that
# running pod, `run --rm --pod P BUNDLE echo hi`, its wall time against the agent's own Create + Start of
# it (the "created ... in T ms" and "started in T ms" lines of the pod's console), CLI_RUNS (default 5).
# CLI_VARIANTS="NAME=LAUNCHER ..." measures other jrunc-vm launchers in the same rounds, interleaved (the
# state root is the same: an older build's, or one without its AOT cache); default: now=build/bin/jrunc-vm.
cli_figures() {
  local rounds=${CLI_ROUNDS:-7} runs=${CLI_RUNS:-5} pod=clipod jr=$PWD/build/bin/jrunc jroot=$OUT/jrunc-root
  local variants=${CLI_VARIANTS:-now=$JRUNC_VM} v name bin call t f r console
  mkdir -p "$jroot"
  # one call of jrunc-vm (by variant) and one of jrunc list right after it, in ms, appended to $OUT/cli-*
  cli_pair() {
    local tag=$1 name=$2 bin=$3; shift 3
    t=$(ms); "$bin" --root "$ROOT" "$@" >/dev/null 2>&1 || echo "vm-figures: $name: $* failed" >&2
    echo $(( $(ms) - t )) >> "$OUT/cli-$tag-$name"
    t=$(ms); "$jr" --root "$jroot" list >/dev/null; echo $(( $(ms) - t )) >> "$OUT/cli-$tag-$name-floor"
  }
  cli_report() {
    local tag=$1 label=$2 vm floor
    for v in $variants; do
      name=${v%%=*}; vm=$(median < "$OUT/cli-$tag-$name") floor=$(median < "$OUT/cli-$tag-$name-floor")
      printf 'cli: %-26s %-8s jrunc-vm %6s ms, jrunc list %5s ms, ratio %s\n' "$label" "$name" "$vm" "$floor" \
        "$(awk -v a="$vm" -v b="$floor" 'BEGIN {printf "%.2f", a / b}')"
    done
  }
  rm -f "$OUT"/cli-*
  local empty=("ls" "pod ls")
  for r in $(seq "$rounds"); do
    for call in "${empty[@]}"; do
      for v in $variants; do
        # shellcheck disable=SC2086
        cli_pair "empty-${call// /-}" "${v%%=*}" "${v#*=}" $call
      done
    done
  done
  for call in "${empty[@]}"; do cli_report "empty-${call// /-}" "empty root: $call"; done

  jv pod create --name "$pod" >/dev/null
  jv create --pod "$pod" --name cli-c1 "$bundle" >/dev/null && jv start cli-c1 >/dev/null
  local busy=("ls" "pod ls" "inspect cli-c1" "pod inspect $pod" "stats cli-c1" "logs cli-c1")
  for r in $(seq "$rounds"); do
    for call in "${busy[@]}"; do
      for v in $variants; do
        # shellcheck disable=SC2086
        cli_pair "pod-${call// /-}" "${v%%=*}" "${v#*=}" $call
      done
    done
  done
  for call in "${busy[@]}"; do cli_report "pod-${call// /-}" "pod running: $call"; done

  console=$ROOT/pods/$pod/console.log
  for r in $(seq "$runs"); do
    for v in $variants; do
      name=${v%%=*}
      t=$(ms); "${v#*=}" --root "$ROOT" run --rm --pod "$pod" --name "cli-$name-$r" "$bundle" echo hi >/dev/null
      echo $(( $(ms) - t )) >> "$OUT/cli-run-$name"
    done
  done
  for v in $variants; do
    name=${v%%=*}
    : > "$OUT/cli-agent-$name"
    for r in $(seq "$runs"); do
      awk -v c="cli-$name-$r" '
        $0 ~ "container " c " created: pid" {for (i = 1; i < NF; i++) if ($i == "in") created = $(i + 1)}
        $0 ~ "container " c " started in" {for (i = 1; i < NF; i++) if ($i == "in") started = $(i + 1)}
        END {if (created != "" && started != "") printf "%.0f\n", created + started}' "$console" >> "$OUT/cli-agent-$name"
    done
    paste "$OUT/cli-run-$name" "$OUT/cli-agent-$name" | awk '{print $1 - $2}' > "$OUT/cli-over-$name"
    local wall agent
    wall=$(median < "$OUT/cli-run-$name") agent=$(median < "$OUT/cli-agent-$name")
    echo "cli: run --rm in a running pod  $name: wall (ms) $(tr '\n' ' ' < "$OUT/cli-run-$name")median $wall;" \
      "agent Create+Start (ms) $(tr '\n' ' ' < "$OUT/cli-agent-$name")median $agent;" \
      "ratio $(awk -v a="$wall" -v b="$agent" 'BEGIN {printf "%.2f", a / b}'), beyond the agent (median) $(median < "$OUT/cli-over-$name") ms"
  done
  cp "$console" "$OUT/cli-console.log"
  jv pod rm -f "$pod" >/dev/null
}
case $MODE in
  cli) cli_figures; exit 0 ;;
  layer) layer_figure; exit 0 ;;
  pod) pod_figures; exit 0 ;;
  podstart) podstart_figure; exit 0 ;;
esac

# --- virtio-fs ---------------------------------------------------------------------------------------
# qemu's command line for a booted pod, NUL-separated, into the array named $2
qemu_cmdline() { local pid; pid=$(jv pod inspect "$1" | sed -n 's/.*"qemuPid" : \([0-9]*\).*/\1/p'); mapfile -d '' "$2" < "/proc/$pid/cmdline"; }
# boots the agent's image with the given qemu arguments (sockets and console in $1, no monitor), waits
# for the agent's ready line, prints "SECONDS VmRSS_KiB RssAnon_KiB RssShmem_KiB" of qemu, and ends it
boot_alone() {
  local dir=$1; shift; mkdir -p "$dir"
  "$@" & local q=$! t=0
  until grep -q 'ready for requests' "$dir/console.log" 2>/dev/null || [ $t -ge 3000 ]; do sleep 0.1; t=$((t + 1)); done
  sleep 2 # the JVM settles
  local st=/proc/$q/status
  echo "$(sed -n 's/.*ready for requests \([0-9.]*\) s.*/\1/p' "$dir/console.log" | head -1) $(awk '/^VmRSS|^RssAnon|^RssShmem/ {printf "%s ", $2}' "$st")"
  kill "$q"; wait "$q" 2>/dev/null || true
}
virtiofs_figure() {
  local rounds=$1 pod=figfs share=$OUT/virtiofs-share fsbundle=$OUT/fsbundle
  mkdir -p "$share" "$fsbundle" && chmod 777 "$share"
  rm -rf "$fsbundle/rootfs" && cp -a "$bundle/rootfs" "$fsbundle/rootfs"
  sed 's|"mounts": \[|"mounts": [{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["size=256m"]},\n            |' \
    "$bundle/config.json" > "$fsbundle/config.json"
  jv pod create --name "$pod" --memory 512m >/dev/null
  jv create --pod "$pod" --name fs -v "$share:/share" "$fsbundle" >/dev/null && jv start fs >/dev/null
  : > "$OUT/fs-results"
  for r in $(seq "$rounds"); do
    for target in tmpfs:/tmp virtiofs:/share; do
      for sync in none conv=fsync; do
        local opt=; [ "$sync" = none ] || opt=$sync
        # seconds by the guest's /proc/uptime (10 ms steps), around dd alone
        secs=$(jv exec fs sh -c "read a x < /proc/uptime; dd if=/dev/zero of=${target#*:}/f bs=1M count=100 $opt 2>/dev/null; read b x < /proc/uptime; rm ${target#*:}/f; echo \$a \$b" \
               | awk '{printf "%.2f", $2 - $1}')
        echo "${target%%:*} $sync $secs" >> "$OUT/fs-results"
      done
    done
  done
  qemu_cmdline "$pod" fs_cmd
  jv pod rm -f "$pod" >/dev/null
  for target in tmpfs virtiofs; do
    for sync in none conv=fsync; do
      local t; t=$(awk -v t=$target -v s=$sync '$1 == t && $2 == s {print $3}' "$OUT/fs-results" | tr '\n' ' ')
      local m; m=$(awk -v t=$target -v s=$sync '$1 == t && $2 == s {print $3}' "$OUT/fs-results" | median)
      printf '100 MiB dd to %-8s %-10s (s): %s median %s = %s MiB/s\n' "$target" "$sync" "$t" "$m" "$(awk -v m="$m" 'BEGIN {printf "%.0f", 100 / m}')"
    done
  done

  # shared memfd RAM against private anonymous RAM: the same command line, booted alone, interleaved
  : > "$OUT/mem-memfd"; : > "$OUT/mem-anon"
  for r in $(seq "$rounds"); do
    for kind in memfd anon; do
      local dir=$OUT/memboot-$kind-$r args=() a
      for ((i = 1; i < ${#fs_cmd[@]}; i++)); do
        a=${fs_cmd[$i]}
        case ${fs_cmd[$((i - 1))]} in -serial) a=file:$dir/console.log ;; esac
        a=${a//$ROOT\/pods\/$pod/$dir}
        if [ $kind = anon ]; then
          case $a in memory-backend-memfd,*) args=("${args[@]:0:${#args[@]}-1}"); continue ;; esac
          a=${a/,memory-backend=ram0/}
        fi
        args+=("$a")
      done
      boot_alone "$dir" "${fs_cmd[0]}" "${args[@]}" >> "$OUT/mem-$kind"
    done
  done
  for kind in memfd anon; do
    echo "RAM $kind: ready (s) $(cut -d' ' -f1 "$OUT/mem-$kind" | tr '\n' ' ')median $(cut -d' ' -f1 "$OUT/mem-$kind" | median);" \
         "qemu VmRSS/RssAnon/RssShmem at ready (MiB, medians) $(for c in 2 3 4; do cut -d' ' -f$c "$OUT/mem-$kind" | median | awk '{printf "%.0f ", $1 / 1024}'; done)"
  done
}
# --- network: (a) throughput, (b) connect and first byte, each against the host's loopback ---------------
# One pod (user-mode network) with two published ports: a container whose busybox nc answers each
# connection with the byte count it read (nc -ll -e wc -c), and busybox httpd serving a 13-byte file.
# The baselines are the same programs on the host, on 127.0.0.1. The client is the same for both:
# python3 for (a) (connect, send 100 MiB, half-close, read the count: the time is until the far end
# has read it all), curl for (b) (time_connect and time_starttransfer of a GET). Rounds interleaved.
network_figures() {
  local rounds=${NET_ROUNDS:-5} size=$((100 << 20)) pod=fignet
  mkdir -p "$bundle/rootfs/www" "$OUT/www" && echo "hello, pod!" | tee "$bundle/rootfs/www/index.html" > "$OUT/www/index.html"
  free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("",0)); print(s.getsockname()[1])'; }
  local sink_port web_port base_sink base_web
  sink_port=$(free_port) web_port=$(free_port) base_sink=$(free_port) base_web=$(free_port)
  cat > "$OUT/send.py" <<'PY'
import socket, sys, time
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
chunk = bytes(1 << 20)
t0 = time.monotonic()
s = socket.create_connection((host, port))
left = n
while left > 0:
    k = min(left, len(chunk)); s.sendall(chunk[:k]); left -= k
s.shutdown(socket.SHUT_WR)
answer = b""
while True:
    d = s.recv(64)
    if not d:
        break
    answer += d
t = time.monotonic() - t0
got = int(answer.split()[0]) if answer.strip() else -1
if got != n:
    sys.exit(f"sent {n} bytes, the far end read {got}")
print(f"{t:.3f}")
PY
  # port 8080 in the container: the bundle's process has no capabilities (no CAP_NET_BIND_SERVICE)
  jv pod create --name "$pod" -p "$sink_port:5001" -p "$web_port:8080" >/dev/null
  jv create --pod "$pod" --name "$pod-sink" "$bundle" nc -ll -p 5001 -e wc -c >/dev/null
  jv create --pod "$pod" --name "$pod-web" "$bundle" httpd -f -p 8080 -h /www >/dev/null
  jv start "$pod-sink" >/dev/null; jv start "$pod-web" >/dev/null
  busybox nc -ll -p "$base_sink" -e wc -c & local nc_pid=$!
  busybox httpd -f -p "127.0.0.1:$base_web" -h "$OUT/www" & local httpd_pid=$!
  local up=
  for _ in $(seq 60); do curl -s -o /dev/null "http://127.0.0.1:$web_port/index.html" && up=1 && break; sleep 1; done
  [ -n "$up" ] || { echo "vm-figures: the pod's httpd never answered on port $web_port" >&2; kill "$nc_pid" "$httpd_pid"; return 1; }
  for f in net-pod-s net-lo-s net-pod-http net-lo-http; do : > "$OUT/$f"; done
  for r in $(seq "$rounds"); do
    python3 "$OUT/send.py" 127.0.0.1 "$sink_port" "$size" >> "$OUT/net-pod-s"
    python3 "$OUT/send.py" 127.0.0.1 "$base_sink" "$size" >> "$OUT/net-lo-s"
    for i in $(seq 10); do
      curl -sf -o /dev/null -w '%{time_connect} %{time_starttransfer}\n' "http://127.0.0.1:$web_port/index.html" >> "$OUT/net-pod-http"
      curl -sf -o /dev/null -w '%{time_connect} %{time_starttransfer}\n' "http://127.0.0.1:$base_web/index.html" >> "$OUT/net-lo-http"
    done
  done
  kill "$nc_pid" "$httpd_pid" 2>/dev/null || true
  jv pod rm -f "$pod" >/dev/null
  awk '{printf "%.3f\n", $1 * 1000}' "$OUT/net-pod-http" > "$OUT/net-pod-connect"; awk '{printf "%.3f\n", $2 * 1000}' "$OUT/net-pod-http" > "$OUT/net-pod-first"
  awk '{printf "%.3f\n", $1 * 1000}' "$OUT/net-lo-http" > "$OUT/net-lo-connect"; awk '{printf "%.3f\n", $2 * 1000}' "$OUT/net-lo-http" > "$OUT/net-lo-first"
  local pod_s lo_s
  pod_s=$(median < "$OUT/net-pod-s") lo_s=$(median < "$OUT/net-lo-s")
  echo "machine: $(nproc) cores, $(accel), host $(uname -r); pod: 1 CPU (its VM one more, the agent's, under KVM on a host of 2 or more), 512 MiB, qemu user-mode network (libslirp), virtio-net"
  echo "(a) 100 MiB host -> container via published port (s): $(tr '\n' ' ' < "$OUT/net-pod-s") median $pod_s = $(awk -v t="$pod_s" 'BEGIN {printf "%.1f", 100 / t}') MiB/s"
  echo "(a) 100 MiB host -> host over loopback (s):            $(tr '\n' ' ' < "$OUT/net-lo-s") median $lo_s = $(awk -v t="$lo_s" 'BEGIN {printf "%.1f", 100 / t}') MiB/s"
  echo "(b) HTTP GET via published port, connect (ms):     median $(median < "$OUT/net-pod-connect") of $(wc -l < "$OUT/net-pod-connect")"
  echo "(b) HTTP GET via published port, first byte (ms):  median $(median < "$OUT/net-pod-first"), max $(sort -g "$OUT/net-pod-first" | tail -1)"
  echo "(b) HTTP GET over loopback, connect (ms):          median $(median < "$OUT/net-lo-connect") of $(wc -l < "$OUT/net-lo-connect")"
  echo "(b) HTTP GET over loopback, first byte (ms):       median $(median < "$OUT/net-lo-first"), max $(sort -g "$OUT/net-lo-first" | tail -1)"
}
if [ "${FIGURES:-all}" = network ]; then
  network_figures
  exit 0
fi
if [ "${FIGURES:-all}" = virtiofs ]; then
  virtiofs_figure "$ROUNDS"
  exit 0
fi

for f in agent-ready agent-rss baseline-ready create-ms start-ms cli-ms; do : > "$OUT/$f"; done
for r in $(seq "$ROUNDS"); do
  pod=fig$r
  jv pod create --name "$pod" >/dev/null
  jv pod start "$pod" >/dev/null
  console=$ROOT/pods/$pod/console.log
  line=$(grep -m1 'ready for requests' "$console")
  echo "$line" | sed -n 's/.*ready for requests \([0-9.]*\) s.*/\1/p' >> "$OUT/agent-ready"
  echo "$line" | sed -n 's/.*resident \([0-9.]*\) MiB.*/\1/p' >> "$OUT/agent-rss"
  # the VM's command line, for the baseline's identical configuration
  qemu_pid=$(jv pod inspect "$pod" | sed -n 's/.*"qemuPid" : \([0-9]*\).*/\1/p')
  mapfile -d '' qemu_cmd < "/proc/$qemu_pid/cmdline"
  for c in $(seq "$CONTAINERS"); do
    t0=$(ms); jv create --pod "$pod" --name "$pod-c$c" "$bundle" >/dev/null; jv start "$pod-c$c" >/dev/null; t1=$(ms)
    echo $((t1 - t0)) >> "$OUT/cli-ms"
  done
  sed -n 's/.*container [^ ]* created: pid [0-9]* in \([0-9.]*\) ms.*/\1/p' "$console" >> "$OUT/create-ms"
  sed -n 's/.*container [^ ]* started in \([0-9.]*\) ms.*/\1/p' "$console" >> "$OUT/start-ms"
  cp "$console" "$OUT/agent-console-$r.log"
  jv pod rm -f "$pod" >/dev/null

  # baseline: the same qemu arguments, with its own sockets and console, the busybox initramfs and no agent
  bdir=$OUT/baseline-$r; mkdir -p "$bdir"
  args=()
  for ((i = 1; i < ${#qemu_cmd[@]}; i++)); do
    a=${qemu_cmd[$i]}
    case ${qemu_cmd[$((i - 1))]} in
      -initrd) a=$OUT/baseline.cpio ;;
      -append) a="console=ttyS0 panic=-1 quiet swiotlb=noforce init=/init" ;;
      -serial) a=file:$bdir/console.log ;;
    esac
    a=${a//$ROOT\/pods\/$pod/$bdir}
    args+=("$a")
  done
  timeout 300 "${qemu_cmd[0]}" "${args[@]}" & baseline_qemu=$!
  wait "$baseline_qemu" || true; baseline_qemu=
  sed -n 's/.*baseline: shell ready \([0-9.]*\) s.*/\1/p' "$bdir/console.log" >> "$OUT/baseline-ready"
done

agent=$(median < "$OUT/agent-ready") base=$(median < "$OUT/baseline-ready")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(accel), host $(uname -r)"
echo "VM: ${qemu_cmd[*]}" | sed "s|$ROOT/pods/[^/]*/|POD/|g"
echo "agent kernel-start-to-ready (s):     $(tr '\n' ' ' < "$OUT/agent-ready") median $agent"
echo "baseline busybox init (s):           $(tr '\n' ' ' < "$OUT/baseline-ready") median $base"
echo "ratio agent/baseline (medians):      $(awk -v a="$agent" -v b="$base" 'BEGIN {printf "%.1f", a / b}')"
echo "agent resident at ready (MiB):       $(tr '\n' ' ' < "$OUT/agent-rss") median $(median < "$OUT/agent-rss")"
echo "in-guest create, API (ms):           $(tr '\n' ' ' < "$OUT/create-ms") median $(median < "$OUT/create-ms")"
echo "in-guest start, API (ms):            $(tr '\n' ' ' < "$OUT/start-ms") median $(median < "$OUT/start-ms")"
echo "CLI create + start, wall (ms):       $(tr '\n' ' ' < "$OUT/cli-ms") median $(median < "$OUT/cli-ms")"
echo "sizes (bytes): vmlinuz $(stat -c %s "$IMAGE/vmlinuz"), initrd.cpio $(stat -c %s "$IMAGE/initrd.cpio"), agent-root.img $(stat -c %s "$IMAGE/agent-root.img" 2>/dev/null || echo -), jlink'd runtime $(du -sb "$IMAGE/jre" | cut -f1), baseline.cpio $(stat -c %s "$OUT/baseline.cpio")"
virtiofs_figure "$ROUNDS"
network_figures
layer_figure
podstart_figure
