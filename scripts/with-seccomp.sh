#!/usr/bin/env bash
# Usage: with-seccomp.sh CONFIG PROFILE
# Prints CONFIG (a config.json from `runc spec` or `jrunc spec`, which have no linux.seccomp) with
# linux.seccomp set to the JSON object in PROFILE, e.g. podman's default profile as podman sends it
# (seccomp/src/test/resources/profiles/podman-default.json). Used by the AOT training and the bench.
set -euo pipefail
fragment=$(mktemp)
trap 'rm -f "$fragment"' EXIT
{ printf '"seccomp": '; cat "$2"; printf ',\n'; } >"$fragment"
grep -q $'^\t"linux": {' "$1" || { echo "with-seccomp: no linux object in $1" >&2; exit 1; }
sed -e "/^\t\"linux\": {/r $fragment" "$1"
