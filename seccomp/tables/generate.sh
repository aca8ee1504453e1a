#!/bin/sh
# Regenerates seccomp/src/main/java/io/jrunc/seccomp/tables/GeneratedSyscallTables.java from the
# installed libseccomp (Debian's libseccomp2; jrunc's tables are libseccomp 2.5.4's, what runc links
# on Debian 12). The generator is test code that asks libseccomp through FFM; the product never links
# libseccomp. Compiles just the generator's two classes (no Maven, nothing under build/).
set -eu
cd "$(dirname "$0")/../.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
src=seccomp/src/test/java/io/jrunc/seccomp/tables
out=seccomp/src/main/java/io/jrunc/seccomp/tables/GeneratedSyscallTables.java
pkg=$(dpkg-query -W -f '${Package} ${Version}' libseccomp2 2>/dev/null || echo "libseccomp2 (version unknown)")
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
"$JAVA_HOME/bin/javac" -d "$classes" "$src/Libseccomp.java" "$src/GenerateSyscallTables.java"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$classes" \
    io.jrunc.seccomp.tables.GenerateSyscallTables "$out" "$pkg"
echo "wrote $out"
