# jrunc build. Every target finds JDK 25 itself: the machine's default java is 17.
SHELL := /bin/bash
PREFIX ?= /usr/local
JAVA_HOME := $(shell for d in $$JAVA_HOME /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64 /usr/lib/jvm/*25*; do \
	[ -x "$$d/bin/javac" ] && "$$d/bin/java" -version 2>&1 | grep -q '"25' && { echo $$d; break; }; done)
export JAVA_HOME
MVN := mvn -B -q -Dstyle.color=never
BUILD := build

.PHONY: all check-jdk deps build test demo install bench clean

all: build

check-jdk:
	@[ -n "$(JAVA_HOME)" ] || { echo "JDK 25 not found under /usr/lib/jvm; set JAVA_HOME" >&2; exit 1; }

# Packages the tests drive (busybox-static for bundles; runc/crun for bench; podman/containerd for e2e).
deps:
	@command -v busybox >/dev/null && command -v runc >/dev/null || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static runc >/dev/null; }

build: check-jdk
	$(MVN) -DskipTests install
	@mkdir -p $(BUILD)/bin $(BUILD)/lib
	@echo "built with $(JAVA_HOME)"

test: check-jdk deps
	$(MVN) install

clean:
	$(MVN) clean || true
	rm -rf $(BUILD)
