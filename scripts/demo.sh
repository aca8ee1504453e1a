#!/usr/bin/env bash
# Usage: demo.sh JRUNC BUNDLE ROOT
# Makes BUNDLE (a busybox rootfs and `jrunc spec`'s config, changed to print from inside the container)
# afresh and runs it in the foreground with jrunc's state under ROOT. Rerunnable.
set -euo pipefail
jrunc=$1 bundle=$2 root=$3
rm -rf "$bundle"
mkdir -p "$bundle" "$root"
"$(dirname "$0")/busybox-rootfs.sh" "$bundle/rootfs"

"$jrunc" spec --bundle "$bundle"
# process.args becomes sh -c SCRIPT; config.json is edited with sed, so SCRIPT avoids ", \ and |.
script='echo Hello from a jrunc container: hostname $(hostname), pid $$, uid $(id -u); head -3 /proc/self/cgroup; ls /'
sed -i -e 's/"terminal": true/"terminal": false/' \
  -e '/"args": \[/,/\]/{/"args": \[/!d;s|\[.*|["sh", "-c", "'"${script//&/\\&}"'"],|}' "$bundle/config.json"
grep -q '"terminal": false' "$bundle/config.json" && grep -q '"args": \["sh", "-c"' "$bundle/config.json" \
  || { echo "demo: could not edit $bundle/config.json (has jrunc spec's layout changed?)" >&2; exit 1; }

id=demo-$$
echo "+ $jrunc --root $root run --bundle $bundle $id"
"$jrunc" --root "$root" run --bundle "$bundle" "$id"
