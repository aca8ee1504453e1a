#!/bin/sh
# Regenerate bindings/src/main/java/io/jrunc/bindings/c from headers.h with the committed
# include list. Needs jextract for JDK 25 on PATH. The output depends on the architecture and
# libc headers of the machine it runs on (see docs/bindings.md); the committed code is x86-64,
# glibc 2.36, Linux UAPI 6.1 headers.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../src/main/java"
pkgdir="$out/io/jrunc/bindings/c"
# jextract only adds and overwrites files: clear the package so dropped symbols disappear.
rm -rf "$pkgdir"
jextract \
    -D _GNU_SOURCE \
    --target-package io.jrunc.bindings.c \
    --header-class-name Libc \
    --output "$out" \
    @"$here/includes.txt" \
    "$here/headers.h"
echo "generated: $(ls "$pkgdir" | wc -l) files, $(cat "$pkgdir"/*.java | wc -c) bytes in $pkgdir"
