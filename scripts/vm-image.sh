#!/usr/bin/env bash
# Builds the pod VM image (make vm-image; docs/guest-init.md): Debian's cloud kernel, the agent's root
# file system (an ext4 image whose /init is a jlink'd java running jrunc-vminit, io.jrunc.vminit.VmInit),
# which a pod's qemu attaches as a virtio-pmem device, and a small initramfs whose /init
# (scripts/vm-image-init, run by busybox) mounts that file system with DAX and hands PID 1 to the agent.
#
#   scripts/vm-image.sh <dir with the agent's jars> <output dir>
#
# Output, as jrunc-vm's VmImage reads it (docs/vm.md, "The image"): vmlinuz, initrd.cpio,
# agent-root.img, kernel.cmdline (what the agent needs on the kernel command line; the launcher prepends
# the console and panic settings), image.digest (sha256 of the four), and, cached for the next run,
# kernel/ (the unpacked .deb) and jre/. Each file is written beside its final name and renamed over it,
# so that a running pod's qemu, which maps agent-root.img, keeps the file it booted with.
# The kernel is fetched with apt-get download and unpacked with dpkg-deb -x, never installed.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 <lib dir> <output dir>" >&2; exit 2; }
LIB=$(cd "$1" && pwd); mkdir -p "$2"; OUT=$(cd "$2" && pwd)
: "${JAVA_HOME:?JAVA_HOME must name a JDK 25}"
command -v cpio >/dev/null || { echo "vm-image: needs cpio" >&2; exit 2; }
command -v mkfs.ext4 >/dev/null || { echo "vm-image: needs mkfs.ext4 (e2fsprogs)" >&2; exit 2; }
# the initramfs's init runs on Debian's static busybox (package busybox-static): the guest has no C library
# before the agent's root is mounted
file -L /bin/busybox 2>/dev/null | grep -q 'statically linked' \
  || { echo "vm-image: needs a static /bin/busybox (the Debian package busybox-static)" >&2; exit 2; }
# java.logging: protobuf-java; jdk.unsupported: the runtime library's sun.misc.Signal use.
MODULES=java.base,java.logging,jdk.unsupported
# The modules the agent loads (and their depends=, added below): the virtio PCI bus, disks (virtio-blk
# for the swap area and the pod's volumes, virtio-scsi and sd for the containers' hot-plugged disks), the
# control port, the network interface (virtio_net), vsock (virtio transport for a host with vhost-vsock,
# loopback for the guest test), overlayfs for writable roots, virtiofs (with fuse) for shared host
# directories, the balloon (free page reporting: the pages the guest frees go back to the host).
KO_ROOTS="virtio_pci virtio_blk virtio_scsi sd_mod virtio_console virtio_net vmw_vsock_virtio_transport vsock_loopback overlay virtiofs virtio_balloon"
# The modules the initramfs's init loads to reach the agent's root: the PCI bus, the virtio-pmem device
# (virtio_pmem, with nd_virtio and libnvdimm) and the pmem block driver on it (nd_pmem).
INIT_KO_ROOTS="virtio_pci virtio_pmem nd_pmem"

# --- kernel --------------------------------------------------------------------------------------------
if ! ls "$OUT"/kernel/boot/vmlinuz-* >/dev/null 2>&1; then
  rm -rf "$OUT/dl" "$OUT/kernel" && mkdir -p "$OUT/dl"
  ( cd "$OUT/dl"
    apt-get download linux-image-cloud-amd64 2>/dev/null || { apt-get update -qq && apt-get download linux-image-cloud-amd64; }
    versioned=$(dpkg-deb -f linux-image-cloud-amd64_*.deb Depends | grep -o 'linux-image-[0-9][^ ,]*-cloud-amd64' | head -1)
    apt-get download "$versioned" 2>/dev/null
    dpkg-deb -x "$versioned"_*.deb "$OUT/kernel" )
  rm -rf "$OUT/dl"
fi
kernel=$(ls "$OUT"/kernel/boot/vmlinuz-* | head -1)
moddir=$(ls -d "$OUT"/kernel/lib/modules/* | head -1)

# --- runtime: jlink'd with its default CDS archive (class data, no machine code: safe on the guest's
# CPU, unlike an AOT cache trained on this host, which crashed with SIGILL) ----------------------------
# The kernel copies every byte of the initramfs into its root at each boot, so the runtime is made
# small: the module image compressed (zip-6: 25 -> 12 MB; nearly every class the agent loads comes from
# the class data archives, not from it) and the native libraries' symbol tables stripped (libjvm.so
# 29.8 -> 24.8 MB; the dynamic symbols FFM and the loader use stay).
command -v strip >/dev/null || { echo "vm-image: needs strip (binutils)" >&2; exit 2; }
jre_key="$("$JAVA_HOME/bin/java" -version 2>&1 | tr '\n' ' ') $MODULES zip-6 stripped"
if [ "$(cat "$OUT/jre.key" 2>/dev/null)" != "$jre_key" ]; then
  rm -rf "$OUT/jre" "$OUT/jre.key"
  "$JAVA_HOME/bin/jlink" --add-modules "$MODULES" --strip-debug --no-header-files --no-man-pages \
    --compress=zip-6 --generate-cds-archive --output "$OUT/jre" >/dev/null
  rm -f "$OUT/jre/lib/server/classes_nocoops.jsa"
  strip --strip-unneeded "$OUT"/jre/lib/server/libjvm.so "$OUT"/jre/lib/*.so
  echo "$jre_key" > "$OUT/jre.key"
fi

# --- initramfs -----------------------------------------------------------------------------------------
stage="$OUT/stage"; rm -rf "$stage"; mkdir -p "$stage"/{proc,sys,dev,run,tmp,etc,lib/modules,jrunc/lib}
cp -a "$OUT/jre" "$stage/jre"
cp "$OUT/jre/bin/java" "$stage/init"
for lib in $(ldd "$OUT/jre/bin/java" "$OUT"/jre/lib/*.so "$OUT/jre/lib/server/libjvm.so" 2>/dev/null \
             | grep -o '/[^ ]*' | grep -v "^$OUT/jre/" | grep '\.so' | sort -u); do
  mkdir -p "$stage$(dirname "$lib")" && cp -L "$lib" "$stage$lib"
done
# kernel modules: the roots and everything their depends= names, flat, and each one's depends= as a
# line "NAME: DEP DEP" of lib/modules/depends, from which the agent orders them (scanning the .ko files
# for it in the guest cost 0.5-0.7 s of the boot under emulation)
# add_ko NAME DIR: copies the module and those it depends on to DIR, each once, and appends to
# DIR/order its name after theirs (the order the initramfs's init loads them in)
declare -A seen=()
add_ko() {
  local name=$1 dir=$2 file dep deps
  [ -n "${seen[$dir/$name]:-}" ] && return; seen[$dir/$name]=1
  file=$(find "$moddir" -name "$name.ko" -o -name "${name//_/-}.ko" | head -1)
  [ -n "$file" ] || { echo "vm-image: module $name not in $(basename "$moddir")" >&2; exit 1; }
  cp "$file" "$dir/$name.ko"
  deps=$(strings -a "$file" | sed -n 's/^depends=//p' | head -1 | tr ',' ' ')
  echo "$name: $deps" >> "$dir/depends"
  for dep in $deps; do add_ko "$dep" "$dir"; done
  echo "$name" >> "$dir/order"
}
for m in $KO_ROOTS; do add_ko "$m" "$stage/lib/modules"; done
rm "$stage/lib/modules/order"
agent_kos=$(ls "$stage"/lib/modules/*.ko | wc -l)
cp "$LIB"/*.jar "$stage/jrunc/lib/"
# The manifest carries the class path and Enable-Native-Access (on the command line it would turn
# off part of CDS).
{ echo "Main-Class: io.jrunc.vminit.VmInit"
  echo "Enable-Native-Access: ALL-UNNAMED"
  printf 'Class-Path:'
  (cd "$stage/jrunc/lib" && for j in *.jar; do printf ' \n  lib/%s' "$j"; done)
  echo; } > "$OUT/manifest.txt"
"$JAVA_HOME/bin/jar" --create --file "$stage/jrunc/vminit.jar" --manifest "$OUT/manifest.txt"
# Virtual threads (the protocol's calls and its client's reader) share carriers with the blocking
# FFM reads of FdStream, which pin theirs: at least four carriers even on a 1-vCPU pod.
# ArchiveRelocationMode=0: the class data archives mapped at the base address they were dumped for,
# as before JDK 20, instead of at a random one with every pointer in them patched (mode 1, the default
# since), which patches pointers all through the 25 MB mapped, slow under emulation (the pod figures:
# ready 11.6 -> 8.6 s with it; resident memory unchanged). Only the archives' placement loses its
# randomness (the rest of the address space keeps ASLR); where the base is taken the JVM relocates.
# -Xms4m: the heap grows from 4 MB as it fills rather than starting at 16 (resident memory at ready
# 70 -> 65 MiB, the first Create no slower). -XX:-AOTReplayTraining: the cache's method profiles are
# not replayed, which would queue the training's hot methods for C1 at start, on the CPU the boot
# needs (ready 6.7 s replaying them, 6.1 s not: medians of four and eight one-vCPU boots).
# -XX:ThreadPriorityPolicy=1 -XX:CompilerThreadPriority=10: the C1 thread at nice 10. A Java thread
# of normal priority, the containers' parent among them, stays at nice 0; the JVM's VM, signal and
# reference threads go to nice -3 to -5. On the one vCPU of a pod under emulation, compiling the
# boot's and the first Create's methods took the CPU from the code that needed them, which finished
# sooner interpreted; at nice 10 the compiles fill the CPU's idle time and, in a long copy, still get
# a share. ThreadPriorityPolicy=1 needs root, which PID 1 is.
JVM_FLAGS="-XX:+UseSerialGC
-XX:TieredStopAtLevel=1
-XX:ThreadPriorityPolicy=1
-XX:CompilerThreadPriority=10
-Xms4m
-Xmx128m
-Xss512k
-XX:-UsePerfData
--sun-misc-unsafe-memory-access=allow
-Djdk.virtualThreadScheduler.parallelism=4
-Djava.io.tmpdir=/tmp
-XX:+UnlockDiagnosticVMOptions
-XX:ArchiveRelocationMode=0
-XX:-AOTReplayTraining"
echo "root:x:0:0:root:/:/bin/false" > "$stage/etc/passwd"

# --- the agent's class data: an AOT cache (JEP 483: the JDK's and the agent's classes, parsed, linked
# and with their method handles resolved, and method profiles) in place of jlink's CDS archive. No
# machine code: adapter and stub caching are off (a host's cache with them once held AVX-512 code and
# died with SIGILL on the guest's CPU), so nothing of the host's CPU is in it. Dumped by the image's own
# java with the staging tree as its root (moved over / and entered as the guest's initramfs enters the
# agent's root), so its class path (/jrunc/vminit.jar and the manifest's lib/*.jar) and flags are exactly
# the guest's; in private mount, UTS, IPC, PID and cgroup namespaces, with a tmpfs on /run and /sys and a
# cgroup2 file system below, so that the training run (io.jrunc.vminit.CdsTraining), which makes and
# deletes a container as a pod's first Create does, cannot touch the host: its mounts end with the
# namespace, its cgroups are made and removed below the build's own cgroup. A JVM that rejects
# the cache boots without it, only slower (AOTMode auto, the default; never -XX:AOTMode=on), and the
# agent says which on the console. jlink's archive leaves the image: a JVM given a cache uses no other.
archive_flag=""
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
  t0=$(date +%s%N)
  # shellcheck disable=SC2086  # one flag a line above, no spaces inside one
  if unshare --mount --uts --ipc --pid --cgroup --fork --mount-proc="$stage/proc" \
       sh -c 'mount --rbind "$1" "$1" && cd "$1" && mount --rbind /dev dev && mount -t tmpfs -o mode=755 tmpfs run \
              && mount -t tmpfs -o mode=755 tmpfs sys && mkdir -p sys/fs/cgroup && mount -t cgroup2 cgroup2 sys/fs/cgroup \
              && mount --move . / && shift && exec env -i LD_LIBRARY_PATH=/jre/lib "$@"' sh "$stage" "$(command -v chroot)" . \
       /init $JVM_FLAGS -XX:-AOTAdapterCaching -XX:-AOTStubCaching -XX:AOTCacheOutput=/jrunc/agent.aot \
       -Xlog:aot=warning,cds=warning -jar /jrunc/vminit.jar --cds-training > "$OUT/cds-training.log" 2>&1 \
     && [ -s "$stage/jrunc/agent.aot" ]; then
    rm -f "$stage/jre/lib/server/classes.jsa"
    # the log is how the agent tells whether the JVM used the cache (ClassDataArchive)
    archive_flag="-XX:AOTCache=/jrunc/agent.aot
-Xlog:aot=info,cds=warning:file=/tmp/jrunc-cds.log"
    echo "vm-image: agent AOT cache $(( $(stat -c %s "$stage/jrunc/agent.aot") / 1048576 )) MB in $(( ($(date +%s%N) - t0) / 1000000 )) ms ($(grep -o '[0-9]* classes' "$OUT/cds-training.log" | head -1) trained)"
  else
    echo "vm-image: the agent's AOT cache could not be made (see $OUT/cds-training.log); the image has jlink's CDS archive alone" >&2
    rm -f "$stage/jrunc/agent.aot" "$stage/jrunc/agent.aot.config"
  fi
else
  echo "vm-image: not root (or no unshare): no AOT cache of the agent's classes, jlink's CDS archive alone" >&2
fi
{ echo "$JVM_FLAGS"; [ -z "$archive_flag" ] || echo "$archive_flag"; echo "-jar"; echo "/jrunc/vminit.jar"; } > "$stage/jrunc/args"

# --- the agent's root: ext4 in 4 KiB blocks (DAX maps the file system's blocks as the guest's pages,
# so they must be page-sized), without a journal (a pod's writes there, few, never reach the file:
# qemu maps it private, and each page a guest writes becomes a page of that qemu's own), a quarter free
# and 8 MiB more for what the agent writes (the JVM's log of its class data, /etc's files, mount
# points), the whole rounded up to 8 MiB for the guest's memory-device alignment. Inodes for the tree's
# files and 1024 more, their tables zeroed here (lazy_itable_init=0): by default mkfs gives this size
# 28672 inodes, and the guest's kernel zeroed their 7 MiB of tables after the mount, 7 MiB that each
# pod's qemu then held as its own copy.
mib=$(( ($(du -sk "$stage" | cut -f1) * 5 / 4 / 1024 + 8 + 7) / 8 * 8 ))
inodes=$(( $(find "$stage" | wc -l) + 1024 ))
rm -f "$OUT/agent-root.img.tmp"
mkfs.ext4 -q -F -b 4096 -O ^has_journal -m 0 -N "$inodes" -E lazy_itable_init=0 -L jrunc-agent -d "$stage" \
  "$OUT/agent-root.img.tmp" "${mib}M" >/dev/null
mv "$OUT/agent-root.img.tmp" "$OUT/agent-root.img"
rm -rf "$stage"

# --- initramfs: busybox, the init script and the drivers of the agent's root ----------------------------
init="$OUT/init-stage"; rm -rf "$init"; mkdir -p "$init"/{bin,dev,newroot,lib/modules}
cp /bin/busybox "$init/bin/busybox"
cp "$(dirname "$0")/vm-image-init" "$init/init" && chmod 755 "$init/init"
for m in $INIT_KO_ROOTS; do add_ko "$m" "$init/lib/modules"; done
rm "$init/lib/modules/depends"
init_kos=$(ls "$init"/lib/modules/*.ko | wc -l)
(cd "$init" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$OUT/initrd.cpio.tmp"
mv "$OUT/initrd.cpio.tmp" "$OUT/initrd.cpio"
rm -rf "$init"
cp "$kernel" "$OUT/vmlinuz.tmp" && mv "$OUT/vmlinuz.tmp" "$OUT/vmlinuz"
rm -f "$OUT/cmdline" "$OUT/digest"   # the names before jrunc-vm's
# swiotlb=noforce: no bounce buffers for DMA above 4 GiB. The kernel sets aside 64 MiB of RAM for them
# whenever memory may lie above 4 GiB, as the device memory of the agent root's virtio-pmem device does
# (and the RAM of a VM over about 2.75 GiB); the guest's devices are all virtio without
# VIRTIO_F_ACCESS_PLATFORM, which address the guest's memory directly and never bounce.
echo "quiet oops=panic mitigations=off swiotlb=noforce LD_LIBRARY_PATH=/jre/lib -- @/jrunc/args" > "$OUT/kernel.cmdline"
(cd "$OUT" && sha256sum vmlinuz initrd.cpio agent-root.img kernel.cmdline | sha256sum | cut -d' ' -f1) > "$OUT/image.digest"
echo "vm-image: $(basename "$kernel"), agent root $mib MiB ($(( $(du -k "$OUT/agent-root.img" | cut -f1) / 1024 )) MiB used), initramfs $(( $(stat -c %s "$OUT/initrd.cpio") / 1024 )) KiB, modules: $agent_kos in the agent's root and $init_kos in the initramfs, digest $(cut -c1-12 "$OUT/image.digest")"
