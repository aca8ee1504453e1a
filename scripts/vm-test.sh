#!/usr/bin/env bash
# Boots a Debian cloud kernel in qemu with a Java PID 1 and runs JUnit classes inside (make test-vm;
# docs/testing.md). The guest is the pure cgroup v2 machine this host is not.
#
#   scripts/vm-test.sh <dir with the test jars> <test-classes dir> [test class...]
#
# Environment: JAVA_HOME (a JDK 25, required), VM_DIR (cache and output, default build/vm), VM_KERNEL
# (a bzImage to boot instead of Debian's cloud kernel; it needs the 8250 serial console built in),
# VM_TIMEOUT (seconds for the whole boot-test-poweroff, default 600), VM_ACCEL (kvm|tcg; default: kvm
# when /dev/kvm can be opened, tcg otherwise), VM_MEMORY (MiB, default 1024).
#
# Cached under VM_DIR between runs: the kernel (kernel/), the jlink'd runtime (jre/), and the
# initramfs part made of them and busybox (base.cpio). Rebuilt every run: the part holding the jars and
# test classes (app.cpio). Results: VM_DIR/reports/TEST-*.xml, VM_DIR/console.log; exit 0 only when the
# guest reported no failure and every listed class ran at least one test (scripts/test-report.java --ran,
# which also lists the skipped tests and, under CI=true, fails on a skip that is not a host limitation).
# A listed class that is not in the test classes or the jars fails before anything boots.
set -euo pipefail

usage() { echo "usage: $0 <lib dir> <test-classes dir> [test class...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
LIB=$(cd "$1" && pwd); CLASSES=$(cd "$2" && pwd); shift 2
TESTS=("$@"); [ ${#TESTS[@]} -gt 0 ] || TESTS=(io.jrunc.tests.vm.CgroupV2GuestTest io.jrunc.tests.vm.JruncGuestTest)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VM=${VM_DIR:-$ROOT/build/vm}
TIMEOUT=${VM_TIMEOUT:-600}
MEMORY=${VM_MEMORY:-1024}
: "${JAVA_HOME:?JAVA_HOME must name a JDK 25}"
# java.logging: JUnit's logger; java.xml: the XML report. Everything else of the tests is java.base.
# jdk.unsupported: jrunc's signal handling (sun.misc.Signal), for the jrunc binary run in the guest.
MODULES=java.base,java.logging,java.xml,jdk.unsupported
BUSYBOX=$(command -v busybox || true)
[ -n "$BUSYBOX" ] && file -L "$BUSYBOX" | grep -q 'statically linked' \
  || { echo "vm-test: needs a static busybox (Debian: busybox-static)" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null || { echo "vm-test: needs qemu-system-x86_64 (qemu-system-x86)" >&2; exit 2; }
command -v cpio >/dev/null || { echo "vm-test: needs cpio" >&2; exit 2; }
# Each listed class must be there: a name that is not would otherwise cost a boot to find out. The names
# also go into the guest's java argfile, one a line, so they must be class names and nothing else.
for t in "${TESTS[@]}"; do
  [[ $t =~ ^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)*$ ]] \
    || { echo "vm-test: FAILED: '$t' is not a class name" >&2; exit 1; }
  class_file=${t//.//}.class
  [ -f "$CLASSES/$class_file" ] && continue
  found=
  for jar in "$LIB"/*.jar; do
    # no grep -q: jar would die of SIGPIPE and pipefail would make the match a failure
    if [ -f "$jar" ] && "$JAVA_HOME/bin/jar" tf "$jar" | grep -xF "$class_file" >/dev/null; then found=1; break; fi
  done
  [ -n "$found" ] || { echo "vm-test: FAILED: no test class $t in $CLASSES or $LIB/*.jar" >&2; exit 1; }
done
mkdir -p "$VM"
t_start=$(date +%s.%N)
elapsed() { awk -v a="$t_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# --- kernel: Debian's cloud flavour, unpacked, never installed (installing runs bootloader hooks) ----
kernel=${VM_KERNEL:-$(ls "$VM"/kernel/boot/vmlinuz-* 2>/dev/null | head -1 || true)}
if [ -z "$kernel" ]; then
  rm -rf "$VM/dl" "$VM/kernel" && mkdir -p "$VM/dl"
  ( cd "$VM/dl"
    apt-get download linux-image-cloud-amd64 2>/dev/null || { apt-get update -qq && apt-get download linux-image-cloud-amd64; }
    # the meta package depends on exactly one versioned kernel package
    versioned=$(dpkg-deb -f linux-image-cloud-amd64_*.deb Depends | grep -o 'linux-image-[0-9][^ ,]*-cloud-amd64' | head -1)
    apt-get download "$versioned"
    dpkg-deb -x "$versioned"_*.deb "$VM/kernel" )
  kernel=$(ls "$VM"/kernel/boot/vmlinuz-* | head -1)
  echo "vm-test: kernel $(basename "$kernel") at $(elapsed) s"
fi

# --- runtime: jlink'd, with the default CDS archive (class data only, no machine code: safe on any
# guest CPU, unlike an AOT cache trained on this host; docs/testing.md) ---------------------------------
jre_key="$("$JAVA_HOME/bin/java" -version 2>&1 | tr '\n' ' ') $MODULES"
if [ "$(cat "$VM/jre.key" 2>/dev/null)" != "$jre_key" ]; then
  rm -rf "$VM/jre" "$VM/base.cpio" "$VM/jre.key"
  "$JAVA_HOME/bin/jlink" --add-modules "$MODULES" --strip-debug --no-header-files --no-man-pages \
    --generate-cds-archive --output "$VM/jre" >/dev/null
  rm -f "$VM/jre/lib/server/classes_nocoops.jsa"   # only for heaps over 32 GB
  echo "$jre_key" > "$VM/jre.key"
  echo "vm-test: jlink'd $MODULES ($(du -sm "$VM/jre" | cut -f1) MB) at $(elapsed) s"
fi

# --- initramfs, part 1 (cached): the runtime, /init, busybox ----------------------------------------------
# The kernel's built-in initramfs already has /dev/console, which PID 1's stdio needs.
cpio_of() { (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet); }
if [ ! -s "$VM/base.cpio" ] || [ "$BUSYBOX" -nt "$VM/base.cpio" ] || [ "${BASH_SOURCE[0]}" -nt "$VM/base.cpio" ]; then
  stage="$VM/stage-base"; rm -rf "$stage"; mkdir -p "$stage"/{bin,proc,sys,dev,tmp,etc}
  cp -a "$VM/jre" "$stage/jre"
  # /init is the java launcher itself; it finds libjli and the runtime through LD_LIBRARY_PATH on the
  # kernel command line (nothing under /proc to resolve $ORIGIN with yet)
  cp "$VM/jre/bin/java" "$stage/init"
  # the C libraries the runtime links against, at the paths its binaries name (the loader included)
  for lib in $(ldd "$VM/jre/bin/java" "$VM"/jre/lib/*.so "$VM/jre/lib/server/libjvm.so" 2>/dev/null \
               | grep -o '/[^ ]*' | grep -v "^$VM/jre/" | grep '\.so' | sort -u); do
    mkdir -p "$stage$(dirname "$lib")" && cp -L "$lib" "$stage$lib"
  done
  cp "$BUSYBOX" "$stage/bin/busybox"
  # every applet but init: a failed /init must end the boot (init=/init), not start busybox's init
  for applet in $("$BUSYBOX" --list); do
    case $applet in busybox|init|linuxrc) ;; *) ln -s busybox "$stage/bin/$applet" ;; esac
  done
  echo "root:x:0:0:root:/root:/bin/sh" > "$stage/etc/passwd"
  cpio_of "$stage" > "$VM/base.cpio.tmp" && mv "$VM/base.cpio.tmp" "$VM/base.cpio"
  rm -rf "$stage"
fi

# --- initramfs, part 2 (every run): jars, test classes, the java argfile -------------------------------
stage="$VM/stage-app"; rm -rf "$stage"; mkdir -p "$stage/vm/lib"
cp "$LIB"/*.jar "$stage/vm/lib/"
cp -a "$CLASSES" "$stage/vm/classes"
# /vm/init.jar is a manifest only: the main class, the class path, and Enable-Native-Access, which on
# the command line (--enable-native-access) would turn off part of CDS (docs/testing.md).
{ echo "Main-Class: io.jrunc.tests.vm.GuestInit"
  echo "Enable-Native-Access: ALL-UNNAMED"
  printf 'Class-Path: classes/'
  (cd "$stage/vm/lib" && for j in *.jar; do printf ' \n  lib/%s' "$j"; done)
  echo; } > "$VM/manifest.txt"
"$JAVA_HOME/bin/jar" --create --file "$stage/vm/init.jar" --manifest "$VM/manifest.txt"
# /bin/jrunc: the runtime as the host's launcher runs it (Makefile JVM_FLAGS), without the AOT cache.
runtime_jar=$(cd "$stage/vm/lib" && ls jrunc-runtime-*.jar 2>/dev/null | head -1 || true)
if [ -n "$runtime_jar" ]; then
  mkdir -p "$stage/bin"
  printf '#!/bin/sh\nexec /jre/bin/java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xms4m -Xmx64m -Xss512k -XX:-MaxFDLimit -XX:-UsePerfData -Xlog:disable -jar /vm/lib/%s "$@"\n' \
    "$runtime_jar" > "$stage/bin/jrunc"
  chmod 755 "$stage/bin/jrunc"
fi
# C1 only and Serial GC: a short-lived JVM on an emulated CPU.
cat > "$stage/vm/args" <<EOF
-XX:+UseSerialGC
-XX:TieredStopAtLevel=1
-Xmx256m
-Xss1m
-XX:-UsePerfData
-Djava.io.tmpdir=/tmp
-Djrunc.vm=true
-jar
/vm/init.jar
$(printf '%s\n' "${TESTS[@]}")
EOF
cpio_of "$stage" > "$VM/app.cpio"
rm -rf "$stage"
cat "$VM/base.cpio" "$VM/app.cpio" > "$VM/initrd.cpio"   # the kernel unpacks concatenated archives in turn

# --- boot ----------------------------------------------------------------------------------------------
# KVM when it works: some machines have a /dev/kvm whose vCPUs qemu cannot set up (nested
# virtualisation without the MSRs qemu needs: "failed to set MSR 0x10a"). The probe boots the kernel
# without an initramfs to its "cannot mount root" panic, which with panic=-1 ends qemu: a second or
# two with KVM, an immediate abort where KVM is broken.
accel=${VM_ACCEL:-}
if [ -z "$accel" ]; then
  accel=tcg
  # (the probe's status comes through a command substitution, so bash's "Aborted" notice stays quiet)
  if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ "$( { timeout 20 qemu-system-x86_64 -nodefaults -no-user-config \
       -display none -no-reboot -accel kvm -cpu max -m 256 -kernel "$kernel" -append "panic=-1 quiet" \
       </dev/null >/dev/null 2>&1; echo $?; } 2>/dev/null )" = 0 ]; then
    accel=kvm
  fi
fi
accel_args=(-accel "$accel")
rm -f "$VM/results.txt" "$VM/console.log"; rm -rf "$VM/reports"; mkdir -p "$VM/reports"
# ttyS0: kernel and init log (shown here, kept in console.log); ttyS1: the results, nothing else.
cmdline="console=ttyS0 quiet init=/init panic=-1 oops=panic mitigations=off LD_LIBRARY_PATH=/jre/lib PATH=/bin:/jre/bin -- @/vm/args"
echo "vm-test: booting $(basename "$kernel") (initramfs $(( $(stat -c %s "$VM/initrd.cpio") / 1048576 )) MB, accel $accel) at $(elapsed) s"
boot_start=$(elapsed)
set +e
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
  "${accel_args[@]}" -cpu max -smp 2 -m "$MEMORY" \
  -kernel "$kernel" -initrd "$VM/initrd.cpio" -append "$cmdline" \
  -chardev stdio,id=con,logfile="$VM/console.log",signal=off -serial chardev:con \
  -serial file:"$VM/results.txt" </dev/null
qemu_rc=$?
set -e
echo "vm-test: qemu exited ($qemu_rc) after $(awk -v a="$boot_start" -v b="$(elapsed)" 'BEGIN { printf "%.1f", b - a }') s; total $(elapsed) s"

# --- results --------------------------------------------------------------------------------------------
results=$(tr -d '\r' < "$VM/results.txt" 2>/dev/null || true)
awk -v dir="$VM/reports" '
  /^JRUNC-VM-FILE / { out = dir "/" $2; printf "" > out; next }
  /^JRUNC-VM-END$/  { close(out); out = ""; next }
  out != ""         { print >> out }' <<<"$results"
summary=$(grep '^JRUNC-VM-SUMMARY ' <<<"$results" || true)
exit_line=$(grep '^JRUNC-VM-EXIT ' <<<"$results" || true)
grep '^JRUNC-VM-ERROR ' <<<"$results" >&2 || true
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
  echo "vm-test: FAILED: the VM did not power off within ${TIMEOUT}s (VM_TIMEOUT); log: $VM/console.log" >&2
  exit 1
fi
if [ -z "$exit_line" ]; then
  echo "vm-test: FAILED: no result from the guest (qemu exit $qemu_rc); last console lines:" >&2
  tail -20 "$VM/console.log" >&2 || true
  exit 1
fi
echo "vm-test: ${summary#JRUNC-VM-SUMMARY }; reports in $VM/reports"
# the guest's suite must have run: a report, and in it at least one test of each listed class that ran
ran=(); for t in "${TESTS[@]}"; do ran+=(--ran "$t"); done
report_rc=0
"$JAVA_HOME/bin/java" "$ROOT/scripts/test-report.java" "${ran[@]}" "$VM/reports" || report_rc=$?
code=${exit_line#JRUNC-VM-EXIT }
[ "$code" = 0 ] || { echo "vm-test: FAILED (guest exit $code)" >&2; exit 1; }
[ "$report_rc" = 0 ] || { echo "vm-test: FAILED: the guest's suite did not run as listed (test-report above)" >&2; exit 1; }
echo "vm-test: passed"
