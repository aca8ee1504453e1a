# jrunc build. Every target finds JDK 25 itself: the machine's default java is 17.
SHELL := /bin/bash
PREFIX ?= /usr/local
JAVA_HOME := $(shell for d in $$JAVA_HOME /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64 /usr/lib/jvm/*25*; do \
	[ -x "$$d/bin/javac" ] && "$$d/bin/java" -version 2>&1 | grep -q '"25' && { echo $$d; break; }; done)
export JAVA_HOME
MVN := MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow mvn -B -q -Dstyle.color=never
BUILD := build

.PHONY: all check-jdk deps build launcher test demo install bench clean bindings

all: build

check-jdk:
	@[ -n "$(JAVA_HOME)" ] || { echo "JDK 25 not found under /usr/lib/jvm; set JAVA_HOME" >&2; exit 1; }

# Packages the tests drive (busybox-static for bundles; runc/crun for bench; podman/containerd for e2e).
deps:
	@command -v busybox >/dev/null && command -v runc >/dev/null || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static runc >/dev/null; }

build: check-jdk
	$(MVN) -DskipTests install
	$(MAKE) --no-print-directory launcher

# build/lib holds the runtime's jars; build/bin/jrunc is a launcher that execs the JVM with flags chosen
# for a short-lived CLI (docs/PERFORMANCE.md): Serial GC and a small heap (the created container's
# process shares this address space until start), C1 only, and the caller's fd limit left alone.
launcher:
	@rm -rf $(BUILD)/lib && mkdir -p $(BUILD)/bin $(BUILD)/lib
	@cp runtime/target/jrunc-runtime-*.jar $(BUILD)/lib/
	@$(MVN) -pl runtime dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=$(CURDIR)/$(BUILD)/lib
	@sed -e 's|@JAVA@|$(JAVA_HOME)/bin/java|' -e 's|@LIB@|$(abspath $(BUILD))/lib|' scripts/jrunc.in > $(BUILD)/bin/jrunc
	@chmod 755 $(BUILD)/bin/jrunc
	@echo "built $(BUILD)/bin/jrunc with $(JAVA_HOME)"

test: check-jdk deps
	$(MVN) install

clean:
	$(MVN) clean || true
	rm -rf $(BUILD)

# Regenerates the jextract bindings (needs jextract for JDK 25 on PATH); see docs/bindings.md.
bindings:
	bindings/jextract/generate.sh
