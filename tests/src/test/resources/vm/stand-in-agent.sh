#!/bin/sh
# /init of PodLauncherTest's initramfs: a stand-in for the guest agent (jrunc-vminit is not part of
# this image), so that jrunc-vm's launcher, QMP hot-plug and pod monitor meet a real kernel, a real
# virtio-serial port and a real SCSI hot-plug. It answers the protocol's sync preamble (docs/protocol.md)
# and every ttRPC request with canned bytes: Version.Get major 1 agent "fake"; Create pid 1; anything
# else an empty OK. Shutdown answers, then powers off. Busybox applets only.
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
# load order from each module's depends= (the .deb has no modules.dep)
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_console scsi_common scsi_mod sd_mod virtio_scsi; do insmod /mod/$m.ko; done
port=
for i in 1 2 3 4 5 6 7 8 9 10; do
  for p in /sys/class/virtio-ports/*; do [ "$(cat $p/name 2>/dev/null)" = jrunc.agent ] && port=/dev/${p##*/}; done
  [ -n "$port" ] && [ -e "$port" ] && break; sleep 1
done
echo "fake-agent: port $port"
exec 3<>$port
n=0
while true; do
  dd bs=1 count=1 of=/tmp/b0 <&3 2>/dev/null
  b=$(od -An -tu1 /tmp/b0 | tr -d ' ')
  # the host client went: read() gives end of file until the next one connects
  if [ -z "$b" ]; then sleep 0.2; continue; fi
  if [ "$b" = 255 ]; then
    dd bs=1 count=15 of=/tmp/pre <&3 2>/dev/null
    dd bs=1 skip=7 count=8 if=/tmp/pre of=/tmp/nonce 2>/dev/null
    { printf '\377jrsync!'; cat /tmp/nonce; } >&3
    echo "fake-agent: sync acknowledged"
    continue
  fi
  dd bs=1 count=9 of=/tmp/h <&3 2>/dev/null
  set -- $(od -An -tu1 /tmp/h)
  len=$(( $1 * 65536 + $2 * 256 + $3 ))
  dd bs=1 skip=3 count=4 if=/tmp/h of=/tmp/sid 2>/dev/null
  dd bs=1 count=$len of=/tmp/req <&3 2>/dev/null
  if grep -q Version /tmp/req; then resp='\012\000\022\010\010\001\032\004fake'; rl=12
  elif grep -q Create /tmp/req; then resp='\012\000\022\002\010\001'; rl=6
  else resp='\012\000'; rl=2; fi
  { printf "\000\000\000\\$(printf %o $rl)"; cat /tmp/sid; printf '\002\000'; printf "$resp"; } >&3
  echo "fake-agent: answered $(grep -o 'Get\|Configure\|List\|Create\|Start\|Remove\|Shutdown\|Inspect\|Wait\|ReadOutput' /tmp/req | head -1)"
  if grep -q Shutdown /tmp/req; then sleep 1; poweroff -f; fi
done
