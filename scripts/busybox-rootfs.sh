#!/usr/bin/env bash
# Usage: busybox-rootfs.sh ROOTFS
# Makes ROOTFS afresh: Debian's static busybox and a symlink per applet (what `busybox --install -s`
# does, without needing /proc inside a chroot).
set -euo pipefail
rootfs=$1
busybox=/bin/busybox
ldd "$busybox" >/dev/null 2>&1 && { echo "$busybox is not static: install busybox-static" >&2; exit 1; }
rm -rf "$rootfs"
mkdir -p "$rootfs/bin"
cp "$busybox" "$rootfs/bin/busybox"
for applet in $("$busybox" --list-full); do
  case $applet in
    bin/busybox) ;;
    */*) mkdir -p "$rootfs/${applet%/*}" && ln -s /bin/busybox "$rootfs/$applet" ;;
    *) ln -s /bin/busybox "$rootfs/$applet" ;;
  esac
done
