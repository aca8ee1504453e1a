#!/usr/bin/env bash
# containerd's shims side by side, in one run, interleaved (the order rotates every round):
#   (a) containerd-shim-runc-v2 + runc, (b) containerd-shim-runc-v2 driving jrunc (--runc-binary),
#   (c) containerd-shim-jrunc-v2's host back end (runtime io.containerd.jrunc.v2, found on PATH).
# Measures `ctr run --rm IMAGE ID true`, a `ctr task exec` round trip on a running sleep task, and the
# shims' PSS (smaps_rollup) with one container and per container with 5 more (labelled as one group).
# A private containerd (own config, root, state, socket); leaves nothing behind.
# Usage: bench-shim.sh BUILD_BIN WORK_DIR [N]
set -euo pipefail
BIN=$(realpath "$1"); WORK=$(realpath -m "$2"); N=${3:-31}
[ "$(id -u)" = 0 ] || { echo "bench-shim: needs root" >&2; exit 1; }
for c in containerd ctr containerd-shim-runc-v2 runc tar sha256sum; do
  command -v "$c" >/dev/null || { echo "bench-shim: $c not found" >&2; exit 1; }; done
BUSYBOX=$(command -v busybox || true)
[ -x "$BIN/containerd-shim-jrunc-v2" ] && [ -x "$BIN/jrunc" ] || { echo "bench-shim: run make build first" >&2; exit 1; }
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' || BUSYBOX=/bin/busybox
rm -rf "$WORK"; mkdir -p "$WORK"
SOCK=$WORK/containerd.sock; NS=bench; IMAGE=localhost/jrunc-bench/busybox:latest
CPID=
ctr_() { ctr --address "$SOCK" --namespace "$NS" "$@"; }
cleanup() {
  set +e
  if [ -n "$CPID" ] && kill -0 "$CPID" 2>/dev/null; then
    for id in $(ctr_ task ls -q 2>/dev/null); do ctr_ task kill -a -s SIGKILL "$id"; done >/dev/null 2>&1
    sleep 0.5
    for id in $(ctr_ task ls -q 2>/dev/null); do ctr_ task delete -f "$id"; done >/dev/null 2>&1
    for id in $(ctr_ container ls -q 2>/dev/null); do ctr_ container delete "$id"; done >/dev/null 2>&1
    ctr_ image rm "$IMAGE" >/dev/null 2>&1
    kill "$CPID"; wait "$CPID" 2>/dev/null
  fi
  # shims this containerd started (their command line names its socket): TERM first, so a lingering shared
  # jrunc shim removes its socket and pid file; then mounts under the work dir
  shims=$(grep -l -a -F "$SOCK" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3)
  for p in $shims; do [ "$p" != $$ ] && kill "$p" 2>/dev/null; done
  sleep 1
  for p in $shims; do [ "$p" != $$ ] && kill -9 "$p" 2>/dev/null; done
  grep -F " $WORK/" /proc/self/mounts | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m"; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# --- a busybox image as an OCI archive of one layer --------------------------------------------------
R=$WORK/rootfs; mkdir -p "$R"/{bin,etc,proc,sys,dev,tmp,root}
cp "$BUSYBOX" "$R/bin/busybox"
for a in $("$R/bin/busybox" --list); do [ -e "$R/bin/$a" ] || ln -s busybox "$R/bin/$a"; done
echo 'root:x:0:0:root:/root:/bin/sh' > "$R/etc/passwd"; echo 'root:x:0:' > "$R/etc/group"
L=$WORK/layout; mkdir -p "$L/blobs/sha256"
tar --numeric-owner -C "$R" -cf "$WORK/layer.tar" .
blob() { local d; d=$(sha256sum "$1" | cut -d' ' -f1); cp "$1" "$L/blobs/sha256/$d"; echo "$d"; }
LD=$(blob "$WORK/layer.tar"); LS=$(stat -c %s "$WORK/layer.tar")
printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/bin"],"Cmd":["sh"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' "$LD" > "$WORK/config.json"
CD=$(blob "$WORK/config.json"); CS=$(stat -c %s "$WORK/config.json")
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' "$CD" "$CS" "$LD" "$LS" > "$WORK/manifest.json"
MD=$(blob "$WORK/manifest.json"); MS=$(stat -c %s "$WORK/manifest.json")
echo '{"imageLayoutVersion":"1.0.0"}' > "$L/oci-layout"
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"%s"}}]}' "$MD" "$MS" "$IMAGE" > "$L/index.json"
tar -C "$L" -cf "$WORK/image.tar" .

# --- the private containerd; the jrunc shim found on its PATH ------------------------------------------
cat > "$WORK/config.toml" <<TOML
version = 2
root = "$WORK/root"
state = "$WORK/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$WORK/opt"
TOML
PATH="$BIN:$PATH" containerd --config "$WORK/config.toml" > "$WORK/containerd.log" 2>&1 < /dev/null &
CPID=$!
for _ in $(seq 100); do ctr_ version >/dev/null 2>&1 && break; sleep 0.2; done
ctr_ version >/dev/null || { echo "bench-shim: containerd did not start (see $WORK/containerd.log)" >&2; exit 1; }
ctr_ image import --no-unpack "$WORK/image.tar" >/dev/null 2>&1 || ctr_ image import "$WORK/image.tar" >/dev/null
ctr_ image ls -q | grep -qx "$IMAGE" || { echo "bench-shim: image import failed" >&2; exit 1; }

# the three configurations: flags of ctr run
flags() { case $1 in
  a) echo --runtime io.containerd.runc.v2 --runc-root "$WORK/runc" ;;
  b) echo --runtime io.containerd.runc.v2 --runc-binary "$BIN/jrunc" --runc-root "$WORK/jrunc" ;;
  c) echo --runtime io.containerd.jrunc.v2 ;; esac; }
now() { date +%s%N; }
ms() { awk -v n="$1" 'BEGIN{printf "%.1f", n/1e6}'; }
median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
CONFIGS=(a b c)
declare -A RUN EXEC
k=0
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench-shim: N=$N rounds (ctr run --rm, then exec), order rotating" >&2
# one untimed warm-up of each, so image unpacking and first-use costs are outside the figures
for cf in "${CONFIGS[@]}"; do ctr_ run --rm --null-io $(flags $cf) "$IMAGE" warm-$cf true; done
for cf in "${CONFIGS[@]}"; do ctr_ run -d --null-io $(flags $cf) "$IMAGE" sleep-$cf sleep 100000 >/dev/null; done
for i in $(seq "$N"); do
  rot=$(( i % 3 ))
  order=("${CONFIGS[@]:$rot}" "${CONFIGS[@]:0:$rot}")
  for cf in "${order[@]}"; do
    t0=$(now); ctr_ run --rm --null-io $(flags $cf) "$IMAGE" run-$cf-$i true; t1=$(now)
    RUN[$cf]+="$((t1 - t0)) "
    t0=$(now); ctr_ task exec --exec-id x$i sleep-$cf true; t1=$(now)
    EXEC[$cf]+="$((t1 - t0)) "
  done
done

# --- memory: PSS of the shims with one running container, then with 5 more grouped -----------------------
# A task's shim is the process listening on its bundle's address. With 5 containers labelled as one group,
# (a) and (b) run one runc shim for them; (c)'s shared shim ignores the label and serves every host task
# of the namespace, here the 5 and its sleep task: PSS per container is a shim's PSS divided among the
# tasks it serves.
shim_of() { # pid of the process listening on task $1's shim socket
  local a sock inode p
  a=$(cat "$WORK/state/io.containerd.runtime.v2.task/$NS/$1/address" 2>/dev/null) || return 0
  sock=${a#unix://}
  inode=$(awk -v s="$sock" '$8 == s && $4 == "00010000" {print $7}' /proc/net/unix | head -1)
  [ -n "$inode" ] || return 0
  for p in /proc/[0-9]*; do
    if ls -l "$p/fd" 2>/dev/null | grep -qF "socket:[$inode]"; then echo "${p#/proc/}"; return 0; fi
  done; return 0; }
pss() { awk '/^Pss:/{print $2}' "/proc/$1/smaps_rollup" 2>/dev/null || echo 0; }
declare -A PSS1 PSS5 SHIMS5 TASKS5
for cf in "${CONFIGS[@]}"; do PSS1[$cf]=$(pss "$(shim_of sleep-$cf)"); done
for cf in "${CONFIGS[@]}"; do
  for j in 1 2 3 4 5; do
    ctr_ run -d --null-io --label io.containerd.runc.v2.group=grp-$cf $(flags $cf) "$IMAGE" g$j-$cf sleep 100000 >/dev/null
  done
done
sleep 1
declare -A SHIM_OF
for id in $(ctr_ task ls -q); do SHIM_OF[$id]=$(shim_of "$id"); done
for cf in "${CONFIGS[@]}"; do
  pids=$(for j in 1 2 3 4 5; do echo "${SHIM_OF[g$j-$cf]}"; done | sort -u | grep .)
  total=0; for p in $pids; do total=$(( total + $(pss "$p") )); done
  tasks=0; for id in "${!SHIM_OF[@]}"; do grep -qx "${SHIM_OF[$id]}" <<< "$pids" && tasks=$((tasks + 1)); done
  PSS5[$cf]=$total; SHIMS5[$cf]=$(wc -w <<< "$pids"); TASKS5[$cf]=$tasks
done

med() { tr ' ' '\n' <<< "$1" | grep . | median; }
printf '\n%-36s %10s %9s %12s %30s\n' "configuration (median of $N)" "ctr run ms" "exec ms" "PSS 1 ctr kB" "5 ctrs: shims' PSS kB / tasks"
name() { case $1 in a) echo "(a) runc shim + runc";; b) echo "(b) runc shim + jrunc";; c) echo "(c) jrunc shim, host back end";; esac; }
declare -A RM EM
for cf in "${CONFIGS[@]}"; do
  RM[$cf]=$(med "${RUN[$cf]}"); EM[$cf]=$(med "${EXEC[$cf]}")
  printf '%-36s %10s %9s %12s %30s\n' "$(name $cf)" "$(ms ${RM[$cf]})" "$(ms ${EM[$cf]})" "${PSS1[$cf]}" \
    "${PSS5[$cf]} (${SHIMS5[$cf]} shim) / ${TASKS5[$cf]} = $(( PSS5[$cf] / (TASKS5[$cf] > 0 ? TASKS5[$cf] : 1) ))"
done
r() { awk -v x="$1" -v y="$2" 'BEGIN{printf "%.2f", x/y}'; }
echo
echo "ctr run: c/a = $(r ${RM[c]} ${RM[a]}), b/c = $(r ${RM[b]} ${RM[c]})"
echo "exec:    c/a = $(r ${EM[c]} ${EM[a]}), b/c = $(r ${EM[b]} ${EM[c]})"
echo "PSS:     c/a = $(r ${PSS1[c]} ${PSS1[a]}) (one container), per container with 5: $(r $(( PSS5[c] * TASKS5[a] )) $(( PSS5[a] * TASKS5[c] )))"
echo "load average: before $LOAD0; after $(cut -d' ' -f1-3 /proc/loadavg)"
