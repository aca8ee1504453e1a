# jrunc build. Every target finds JDK 25 itself: the machine's default java is 17.
SHELL := /bin/bash
PREFIX ?= /usr/local
JDK_CANDIDATES := $(JAVA_HOME) /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64 /usr/lib/jvm/*25*
JAVA_HOME := $(shell for d in $(JDK_CANDIDATES); do \
	[ -x "$$d/bin/javac" ] && "$$d/bin/java" -version 2>&1 | grep -q '"25' && { echo $$d; break; }; done)
export JAVA_HOME
# The commit `jrunc --version` reports (runc prints its commit too; go-runc parses the lines).
COMMIT := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# The caller's MAVEN_OPTS are kept (e.g. -Dmaven.repo.local=... for a private repository).
MVN := MAVEN_OPTS="$(MAVEN_OPTS) --sun-misc-unsafe-memory-access=allow" mvn -B -Dstyle.color=never -Djrunc.commit=$(COMMIT)
BUILD := build
# The Maven modules, as the parent pom lists them.
MODULES := $(shell sed -n 's|.*<module>\(.*\)</module>.*|\1|p' pom.xml)
JRUNC := $(abspath $(BUILD))/bin/jrunc

# Debian packages, installed by `make deps` when missing: busybox-static makes test bundles, runc and
# crun are what `make bench` compares against, libseccomp2 is the seccomp tests' oracle (never the product's), E2E_PACKAGES are the clients the end-to-end tests drive.
# Every package a test needs is listed, even where Debian always installs it: under CI=true a test that
# finds its tool missing fails (docs/testing.md, "Skips and CI"). procps: `jrunc ps` runs ps;
# linux-libc-dev: the bindings' check of the aarch64 syscall numbers reads asm-generic/unistd.h;
# util-linux: mkswap, the swap header's independent writer, and unshare; bsdutils: script, the tty
# ctr --tty needs; iproute2: ip and tc, which make the network namespaces and veth pairs of the netlink
# and `--network ns:` tests and read back what jrunc's netlink calls did. containernetworking-plugins: the
# CNI plugins (bridge, host-local, loopback in /usr/lib/cni) of the CRI test's pods. passwd and uidmap:
# the rootless tests' unprivileged user (useradd, usermod) and its subordinate ids (newuidmap, newgidmap).
TEST_PACKAGES := busybox-static runc libseccomp2 procps linux-libc-dev util-linux iproute2 passwd uidmap
BENCH_PACKAGES := crun
E2E_PACKAGES := podman containerd buildah bsdutils containernetworking-plugins
# docker.io without its recommends: they include cgroupfs-mount, which would mount every v1 hierarchy
# (net_cls among them) on the host the cgroup tests describe, and needrestart, which hooks every later
# apt-get run.
E2E_NORECOMMENDS := docker.io
# The VM tests (make test-vm): qemu boots a Debian kernel with a cpio initramfs (docs/testing.md);
# e2fsprogs makes the containers' disk images and the agent's root, busybox-static is the pod VM
# initramfs's init, file tells scripts/vm-test.sh and scripts/vm-image.sh that busybox is static.
VM_PACKAGES := qemu-system-x86 cpio busybox-static e2fsprogs file
VM_DIR := $(BUILD)/vm

.PHONY: all check-jdk deps build launcher launcher-vm launcher-shim one-jar aot-cache test test-report test-vm vm-run vm-image test-agent demo install bench bench-shim bench-shim-vm bench-pod bench-startup clean bindings

all: build

check-jdk:
	@[ -n "$(JAVA_HOME)" ] || { echo "JDK 25 not found: looked for a JDK 25 (bin/javac) in" \
	  "$(JDK_CANDIDATES). Install one under /usr/lib/jvm or set JAVA_HOME to it." >&2; exit 1; }

# $(call apt-ensure,packages[,apt-get options]): installs those not yet installed (and maven when mvn is
# missing), running apt-get update once first, and only when something has to be installed.
apt-ensure = @missing=$$(for p in $(1); do dpkg-query -W -f='$${db:Status-Status}\n' $$p 2>/dev/null \
	  | grep -qx installed || echo $$p; done; command -v mvn >/dev/null || echo maven); \
	if [ -n "$$missing" ]; then \
	  echo "apt-get install" $(2) $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) $$missing </dev/null; \
	fi

deps:
	$(call apt-ensure,$(TEST_PACKAGES) $(VM_PACKAGES) $(BENCH_PACKAGES) $(E2E_PACKAGES))
	$(call apt-ensure,$(E2E_NORECOMMENDS),--no-install-recommends)

# The build trains the AOT caches with real containers, which needs busybox-static (jrunc's) and
# e2fsprogs (jrunc-vm's images): installed first (as root), so that the first `make demo` or `make test`
# on a fresh machine already has the caches.
AOT_PACKAGES := $(if $(filter 0,$(shell id -u)),busybox-static e2fsprogs,)

build: check-jdk
	$(call apt-ensure,$(AOT_PACKAGES))
	$(MVN) -q -DskipTests install
	$(MAKE) --no-print-directory launcher

# build/lib holds the runtime's jars; build/bin/jrunc is a launcher that execs the JVM with flags chosen
# for a short-lived CLI (docs/PERFORMANCE.md): Serial GC and a small heap (the created container's
# process shares this address space until start), C1 only, and the caller's fd limit left alone.
# JVM flags of every jrunc call (docs/PERFORMANCE.md): Serial GC and a small heap (a created container's
# process shares this address space until start), C1 only, the caller's RLIMIT_NOFILE left alone (the
# JVM would raise it, and the container inherits it), no perf data file.
JVM_FLAGS := -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+UnlockDiagnosticVMOptions -XX:-AOTReplayTraining -XX:CompileThresholdScaling=20 -Xms4m -Xmx64m -Xss512k -XX:-MaxFDLimit -XX:-UsePerfData
# render-launcher(lib dir, output): scripts/jrunc.in with this JDK, these flags and that lib dir.
render-launcher = sed -e 's|@JAVA@|$(JAVA_HOME)/bin/java|' -e 's|@JVM_FLAGS@|$(JVM_FLAGS)|' -e 's|@LIB@|$(1)|' \
	scripts/jrunc.in > $(2) && chmod 755 $(2)

# The jars come from this tree's reactor (-am), never from ~/.m2, which another checkout may have overwritten.
launcher:
	@rm -rf $(BUILD)/lib && mkdir -p $(BUILD)/bin $(BUILD)/lib
	@$(MVN) -q -Dmaven.test.skip=true -pl runtime -am package dependency:copy-dependencies \
	  -DincludeScope=runtime -DoutputDirectory=$(CURDIR)/$(BUILD)/lib
	@$(MAKE) --no-print-directory one-jar
	@$(call render-launcher,$(abspath $(BUILD))/lib,$(BUILD)/bin/jrunc)
	@$(MAKE) --no-print-directory launcher-vm
	@$(MAKE) --no-print-directory launcher-shim
	@$(MAKE) --no-print-directory aot-cache
	@echo "built $(BUILD)/bin/jrunc with $(JAVA_HOME)$$(ls $(BUILD)/lib/*.aot >/dev/null 2>&1 && echo " and AOT caches")"

# jrunc's own modules as one jar, build/lib/jrunc.jar, with the third-party jars beside it: a JVM opens
# each jar of its class path when it first needs a class or resource from it, which on a cold JVM cost
# a create about 1-3.5 ms of CPU per jar (the seccomp module's on every create with a profile;
# docs/PERFORMANCE.md). The modules stay separate in the source and in Maven; only the launcher's class
# path is one jar.
one-jar:
	@rm -rf $(BUILD)/one-jar && mkdir -p $(BUILD)/one-jar
	@for j in $(BUILD)/lib/jrunc-*.jar runtime/target/jrunc-runtime-*.jar; do \
	  (cd $(BUILD)/one-jar && $(JAVA_HOME)/bin/jar -xf $(abspath .)/$$j) || exit 1; done
	@rm -rf $(BUILD)/one-jar/META-INF
	@{ echo "Main-Class: io.jrunc.cli.Main"; echo "Enable-Native-Access: ALL-UNNAMED"; \
	  echo "Class-Path: $$(cd $(BUILD)/lib && ls jackson-*.jar | tr '\n' ' ')"; } > $(BUILD)/one-jar.mf
	@rm -f $(BUILD)/lib/jrunc-*.jar
	@$(JAVA_HOME)/bin/jar --create --file $(BUILD)/lib/jrunc.jar --manifest $(BUILD)/one-jar.mf -C $(BUILD)/one-jar .
	@rm -rf $(BUILD)/one-jar $(BUILD)/one-jar.mf

# jrunc-vm (docs/vm.md): its jars in build/lib-vm (apart from jrunc's, which the AOT caches are trained
# on), build/bin/jrunc-vm beside build/bin/jrunc. It finds build/vm-image/ (`make vm-image`) by itself.
# As jrunc's JVM_FLAGS (docs/PERFORMANCE.md, "The launcher's JVM flags"): a higher compile threshold and
# smaller stacks, since a call is over before most compiles would repay. The selector provider is named
# (the JDK's own on Linux) so that a JVM's first socket does not look it up as a service, which opens
# every jar of the class path: a call that asks a pod's monitor paid that before its connect.
VM_JVM_FLAGS := --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData \
	-XX:CompileThresholdScaling=20 -Xss512k -Djava.nio.channels.spi.SelectorProvider=sun.nio.ch.EPollSelectorProvider
# The class path is the jars by name, in a fixed order: an AOT cache is used only with the class path it
# was trained with (a wildcard's order is the directory's).
render-vm-launcher = sed -e 's|@JAVA@|$(JAVA_HOME)/bin/java|' -e 's|@VM_JVM_FLAGS@|$(VM_JVM_FLAGS)|' -e 's|@LIB@|$(1)|' \
	-e "s|@CLASSPATH@|$$(cd $(BUILD)/lib-vm && ls *.jar | sort | sed 's|^|$(1)/|' | paste -sd:)|" \
	scripts/jrunc-vm.in > $(2) && chmod 755 $(2)
# picocli's classes are version 49, which no AOT cache holds: scripts/class-version.java raises them
# (with stack maps) before the caches are trained.
# vm-aot-cache(lib dir, launcher): LIB/jrunc-vm-read.aot, LIB/jrunc-vm-run.aot and
# LIB/jrunc-vm-files.aot from io.jrunc.vm.cli.AotTraining with the launcher's flags and class path: the
# read-only calls, and the calls that make and remove a container, against a stand-in pod monitor
# (docs/PERFORMANCE.md "With a pod running"), and the calls that read state files only; the first and
# the last on a state another JVM wrote first. scripts/jrunc-vm.in says which call takes which. A call
# without its cache runs without.
vm-aot-cache = rm -f $(1)/jrunc-vm*.aot; for w in read run files; do d=$$(mktemp -d /tmp/jrunc-vm-aot.XXXXXX); \
	{ [ $$w = run ] || $(JAVA_HOME)/bin/java $(VM_JVM_FLAGS) -Xlog:disable -cp "$$(sed -n 's|^cp=||p' $(2))" io.jrunc.vm.cli.AotTraining \
	  prepare-$$w $$d/work; } && $(JAVA_HOME)/bin/java $(VM_JVM_FLAGS) -Xlog:disable -XX:AOTCacheOutput=$(1)/jrunc-vm-$$w.aot \
	  -cp "$$(sed -n 's|^cp=||p' $(2))" io.jrunc.vm.cli.AotTraining $$w $$d/work >$(BUILD)/vm-aot-train-$$w.log 2>&1 \
	  || { echo "no AOT cache for jrunc-vm's $$w calls: see $(BUILD)/vm-aot-train-$$w.log"; rm -f $(1)/jrunc-vm-$$w.aot; }; rm -rf $$d; done

# What jrunc-vm reads beside its kernel (io.jrunc.vm.qemu.VmImage).
VM_IMAGE_FILES := vmlinuz initramfs.cpio initrd.cpio initramfs.cpio.lz4 initrd.cpio.lz4 initrd.img agent-root.img image.digest kernel.cmdline

launcher-vm:
	@rm -rf $(BUILD)/lib-vm && mkdir -p $(BUILD)/bin $(BUILD)/lib-vm
	@$(MVN) -q -Dmaven.test.skip=true -pl vm -am package dependency:copy-dependencies \
	  -DincludeScope=runtime -DoutputDirectory=$(CURDIR)/$(BUILD)/lib-vm
	@cp vm/target/jrunc-vm-*.jar $(BUILD)/lib-vm/jrunc-vm.jar
	@$(JAVA_HOME)/bin/java scripts/class-version.java $(BUILD)/lib-vm
	@$(call render-vm-launcher,$(abspath $(BUILD))/lib-vm,$(BUILD)/bin/jrunc-vm)
	@$(call vm-aot-cache,$(abspath $(BUILD))/lib-vm,$(BUILD)/bin/jrunc-vm)
	@echo "built $(BUILD)/bin/jrunc-vm"

# containerd-shim-jrunc-v2 (docs/shim.md): its jars in build/lib-shim, build/bin/containerd-shim-jrunc-v2
# beside build/bin/jrunc. `start` runs once per container: C1 only, a small heap, and an AOT cache trained
# on a group member's start (scripts/shim-aot-train.sh: needs root, for the socket under /run/containerd/s);
# the serving shim gets the full JIT and a larger heap. The class path is the jars by name, in a fixed
# order: an AOT cache is used only with the class path it was trained with.
SHIM_COMMON_FLAGS := --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xlog:disable -Xlog:all=off -XX:-PrintWarnings -XX:+UseSerialGC -XX:-UsePerfData
SHIM_START_FLAGS := -XX:TieredStopAtLevel=1 -Xms4m -Xmx32m -Xss512k
SHIM_SERVE_FLAGS := -Xms16m -Xmx256m
render-shim-launcher = sed -e 's|@JAVA@|$(JAVA_HOME)/bin/java|' -e 's|@LIB@|$(1)|' \
	-e "s|@CLASSPATH@|$$(cd $(BUILD)/lib-shim && ls *.jar | sort | sed 's|^|$(1)/|' | paste -sd:)|" \
	-e 's|@SHIM_COMMON_FLAGS@|$(SHIM_COMMON_FLAGS)|' -e 's|@SHIM_START_FLAGS@|$(SHIM_START_FLAGS)|' \
	-e 's|@SHIM_SERVE_FLAGS@|$(SHIM_SERVE_FLAGS)|' \
	scripts/containerd-shim-jrunc-v2.in > $(2) && chmod 755 $(2)

# shim-aot-cache(lib dir): LIB/shim-start.aot from io.jrunc.shim.cli.StartTraining (group members' starts
# against a socket of its own) with the launcher's flags and class path; as root only (the socket lives
# under /run/containerd/s). Without it `start` runs without a cache.
# The serving shim's cache, LIB/shim-serve.aot, from io.jrunc.shim.cli.ServeTraining: the task service with
# the host back end running busybox containers that exit at once (a bundle made as scripts/aot-train.sh
# makes its short one), in one JVM with the serving shim's flags; as root with busybox-static only.
shim-aot-cache = rm -f $(1)/shim-start.aot $(1)/shim-serve.aot; if [ "$$(id -u)" = 0 ]; then \
	$(JAVA_HOME)/bin/java $(SHIM_COMMON_FLAGS) $(SHIM_START_FLAGS) -XX:AOTCacheOutput=$(1)/shim-start.aot \
	  -cp "$$(sed -n 's|^cp=||p' $(2))" io.jrunc.shim.cli.StartTraining >$(BUILD)/shim-aot-train.log 2>&1 \
	  || { echo "no AOT cache for the shim's start: see $(BUILD)/shim-aot-train.log"; rm -f $(1)/shim-start.aot; }; \
	if [ -x /bin/busybox ]; then w=$(abspath $(BUILD))/shim-serve-training; rm -rf $$w && mkdir -p $$w/bundle && \
	  scripts/busybox-rootfs.sh $$w/bundle/rootfs && $(JRUNC) spec --bundle $$w/bundle && \
	  sed -i -e 's/"terminal": true/"terminal": false/' -e '/"args": \[/,/\]/{/"args": \[/!d;s|\[.*|["true"],|}' \
	    $$w/bundle/config.json && \
	  $(JAVA_HOME)/bin/java $(SHIM_COMMON_FLAGS) $(SHIM_SERVE_FLAGS) -XX:AOTCacheOutput=$(1)/shim-serve.aot \
	    -cp "$$(sed -n 's|^cp=||p' $(2))" io.jrunc.shim.cli.ServeTraining $$w/bundle $$w >$(BUILD)/shim-serve-train.log 2>&1 \
	  || { echo "no AOT cache for the serving shim: see $(BUILD)/shim-serve-train.log"; rm -f $(1)/shim-serve.aot; }; \
	  rm -rf $$w; fi; fi

launcher-shim:
	@rm -rf $(BUILD)/lib-shim && mkdir -p $(BUILD)/bin $(BUILD)/lib-shim
	@$(MVN) -q -Dmaven.test.skip=true -pl shim -am package dependency:copy-dependencies \
	  -DincludeScope=runtime -DoutputDirectory=$(CURDIR)/$(BUILD)/lib-shim
	@cp shim/target/jrunc-shim-*.jar $(BUILD)/lib-shim/jrunc-shim.jar
	@$(call render-shim-launcher,$(abspath $(BUILD))/lib-shim,$(BUILD)/bin/containerd-shim-jrunc-v2)
	@$(call shim-aot-cache,$(abspath $(BUILD))/lib-shim,$(BUILD)/bin/containerd-shim-jrunc-v2)
	@echo "built $(BUILD)/bin/containerd-shim-jrunc-v2"

# The AOT cache needs root (training runs real containers) and busybox-static; without them the
# launcher simply runs without it.
aot-cache:
	@if [ "$$(id -u)" = 0 ] && [ -x /bin/busybox ]; then \
	  scripts/aot-train.sh $(JAVA_HOME)/bin/java "$(JVM_FLAGS)" $(abspath $(BUILD))/lib $(abspath $(BUILD))/aot; \
	else echo "no AOT cache: needs root and busybox-static"; fi

# Unit tests of every module, then the tests module's integration tests, which drive build/bin/jrunc: so
# the launcher is assembled before any test runs. Two Maven runs: with -fae alone, a unit test failing in
# a module the tests module depends on (shim, vm, ...) would skip every integration test; the second run
# takes the modules' jars that `build` installed from this tree, so it runs whatever the first found.
# The pod VM image is built first: the tests module's AgentVmTest (the guest agent on one real boot),
# PodVmTest (jrunc-vm with real pods) and PodLauncherTest (the launcher with a stand-in agent, on the
# image's kernel) boot it. The guest's VM tests follow (`deps` installs qemu; without it they are skipped,
# saying so, and under CI=true that fails the run), even after a failure, and then the list of every
# skipped test (test-report), so that the run ends with the whole picture.
TEST_FAILED := $(BUILD)/test-failed
test: check-jdk deps build vm-image
	@rm -rf $(VM_DIR)/reports $(TEST_FAILED)
	JRUNC_VM_KERNEL_DIR=$(abspath $(VM_IMAGE))/kernel $(MVN) -ntp -fae -pl '!tests' -Djrunc.binary=$(JRUNC) \
	  -Djrunc.vm.image=$(abspath $(VM_IMAGE)) verify || touch $(TEST_FAILED)
	JRUNC_VM_KERNEL_DIR=$(abspath $(VM_IMAGE))/kernel $(MVN) -ntp -pl tests -Djrunc.binary=$(JRUNC) \
	  -Djrunc.vm.image=$(abspath $(VM_IMAGE)) verify || touch $(TEST_FAILED)
	@if command -v qemu-system-x86_64 >/dev/null; then $(MAKE) --no-print-directory vm-run || touch $(TEST_FAILED); \
	elif [ "$$CI" = true ]; then echo "FAILED: CI=true and qemu-system-x86_64 is not installed, so the guest's" \
	  "VM tests cannot run: install the Debian package qemu-system-x86 (make deps does)" >&2; touch $(TEST_FAILED); \
	else echo "qemu-system-x86_64 not installed: the guest's VM tests skipped (make test-vm installs it)"; fi
	@$(MAKE) --no-print-directory test-report || touch $(TEST_FAILED)
	@if [ -e $(TEST_FAILED) ]; then echo "make test: FAILED (see above)" >&2; exit 1; fi

# Every skipped test of the last run, with its reason, from each module's surefire reports and the
# guest's (scripts/test-report.java); under CI=true a skip that is not a host limitation fails.
test-report: check-jdk
	@$(JAVA_HOME)/bin/java scripts/test-report.java \
	  $(wildcard $(addsuffix /target/surefire-reports,$(MODULES)) $(addsuffix /target/failsafe-reports,$(MODULES)) $(VM_DIR)/reports)

# The tests that need a pure cgroup v2 kernel, which this kind of host does not have: a Debian kernel in
# qemu (KVM when it works, software emulation otherwise) with a Java PID 1 that runs them and reports
# back (scripts/vm-test.sh, docs/testing.md). Kernel and jlink'd runtime are cached in $(VM_DIR).
test-vm: check-jdk build
	$(call apt-ensure,$(VM_PACKAGES))
	@$(MAKE) --no-print-directory vm-run

# The guest's class path comes from this tree's reactor, as the launcher's does (see `launcher`).
# VM_TESTS=<class names> runs other test classes in the guest (default: scripts/vm-test.sh's list).
# grpc and what it brings are the CRI client's, which runs on the host only: kept out of the guest's
# initramfs (about 18 MB).
GUEST_TEST_EXCLUDES := io.grpc,io.perfmark,com.google.guava,com.google.code.gson,com.google.api.grpc,com.google.android,com.google.code.findbugs,com.google.errorprone,com.google.j2objc,org.codehaus.mojo
vm-run:
	@rm -rf $(VM_DIR)/lib
	@$(MVN) -q -DskipTests -pl tests -am package dependency:copy-dependencies \
	  -DincludeScope=test -DexcludeGroupIds=$(GUEST_TEST_EXCLUDES) -DoutputDirectory=$(abspath $(VM_DIR))/lib
	VM_DIR=$(abspath $(VM_DIR)) scripts/vm-test.sh $(VM_DIR)/lib tests/target/test-classes $(VM_TESTS)

# The pod VM image (scripts/vm-image.sh, docs/guest-init.md): Debian's cloud kernel, the agent's root
# (an ext4 image with a jlink'd runtime and jrunc-vminit as /init), a small initramfs whose busybox
# mounts it, and a digest of the image. The kernel and the runtime are cached in $(VM_IMAGE) between runs.
VM_IMAGE := $(BUILD)/vm-image
vm-image: check-jdk
	$(call apt-ensure,$(VM_PACKAGES))
	@rm -rf $(VM_IMAGE)/lib && mkdir -p $(VM_IMAGE)/lib
	@$(MVN) -q -Dmaven.test.skip=true -pl guest-init -am package dependency:copy-dependencies \
	  -DincludeScope=runtime -DoutputDirectory=$(abspath $(VM_IMAGE))/lib
	@cp guest-init/target/jrunc-guest-init-*.jar $(VM_IMAGE)/lib/
	scripts/vm-image.sh $(VM_IMAGE)/lib $(VM_IMAGE)

# The agent's tests against one real boot of the image (AgentVmTest: docs/guest-init.md): a host
# JUnit class that boots qemu, drives the agent over its virtio-serial port and checks the results.
test-agent: vm-image
	$(call apt-ensure,$(VM_PACKAGES) e2fsprogs)
	$(MVN) -q -pl tests -am verify -Djrunc.vm.image=$(abspath $(VM_IMAGE)) -Dtest=AgentVmTest \
	  -Dsurefire.failIfNoSpecifiedTests=false -Djrunc.binary=$(JRUNC)

# A busybox bundle (from Debian's busybox-static) run in the foreground; see scripts/demo.sh.
demo: build
	@scripts/demo.sh $(JRUNC) $(BUILD)/demo-bundle $(BUILD)/demo-root

# jrunc against runc and crun on one busybox bundle, runs interleaved: foreground run, create + start +
# wait + delete, resident memory of a created container, create with seccomp, run with a user namespace (scripts/bench.sh, docs/PERFORMANCE.md). BENCH_N
# runs per runtime for the first two, BENCH_MEM_N for memory, BENCH_PAIRS create pairs with and without
# seccomp (default max(BENCH_N, 21)), BENCH_USERNS_PAIRS run pairs with and without a user namespace
# (jrunc and runc; default BENCH_PAIRS). Needs root; no network once installed.
BENCH_N ?= 15
BENCH_MEM_N ?= 3
BENCH_PAIRS ?=
BENCH_USERNS_PAIRS ?=
bench: build
	$(call apt-ensure,$(TEST_PACKAGES) $(BENCH_PACKAGES))
	@scripts/bench.sh $(JRUNC) $(BUILD)/bench $(BENCH_N) $(BENCH_MEM_N) "$(BENCH_PAIRS)" "$(BENCH_USERNS_PAIRS)"

# containerd's runc shim + runc, the runc shim driving jrunc, and containerd-shim-jrunc-v2's host back end,
# interleaved in one run against a private containerd: `ctr run --rm` and `ctr task exec` medians of
# BENCH_SHIM_N, the shim's PSS with one container and with 5 grouped (scripts/bench-shim.sh). Needs root.
BENCH_SHIM_N ?= 31
bench-shim: build
	$(call apt-ensure,$(TEST_PACKAGES) $(E2E_PACKAGES))
	@scripts/bench-shim.sh $(BUILD)/bin $(BUILD)/bench-shim $(BENCH_SHIM_N)

# The VM back end through the CRI plugin (RunPodSandbox to a started container, jrunc-vm handler) against the
# same pod made with the jrunc-vm CLI, BENCH_SHIM_VM_ROUNDS rounds each, interleaved (scripts/bench-shim-vm.sh).
# Needs root; boots 2 x BENCH_SHIM_VM_ROUNDS VMs.
BENCH_SHIM_VM_ROUNDS ?= 3
bench-shim-vm: build vm-image
	$(call apt-ensure,$(TEST_PACKAGES) $(E2E_PACKAGES) $(VM_PACKAGES))
	@MVN='$(MVN)' scripts/bench-shim-vm.sh $(BENCH_SHIM_VM_ROUNDS)

# Pod latency (docs/PERFORMANCE.md "Pod latency"): FIGURES=pod, a pod VM's boot to ready, the agent's resident
# memory and `run --rm` on a new anonymous pod against a busybox init on the same qemu line, BENCH_POD_ROUNDS
# rounds interleaved; then FIGURES=cli, the jrunc-vm CLI's calls against `jrunc list` and a second
# container's `run --rm` against the agent's Create+Start. Boots VMs: run it alone on the machine.
BENCH_POD_ROUNDS ?= 3
bench-pod: build vm-image
	$(call apt-ensure,$(VM_PACKAGES))
	@FIGURES=pod BOOT_ROUNDS=$(BENCH_POD_ROUNDS) scripts/vm-figures.sh
	@FIGURES=cli scripts/vm-figures.sh

# Where a jrunc call's time goes: JVM start, the command line, JSON, FFM linking and a whole run, each with and
# without the AOT cache (scripts/bench-startup.sh). BENCH_STARTUP_N rounds.
BENCH_STARTUP_N ?= 7
bench-startup: build
	$(call apt-ensure,$(TEST_PACKAGES))
	@scripts/bench-startup.sh $(JAVA_HOME)/bin/java "$(JVM_FLAGS)" $(BUILD)/lib $(BENCH_STARTUP_N)

# Jars to $(PREFIX)/lib/jrunc, the launcher to $(PREFIX)/bin/jrunc pointing at them; jrunc-vm's to
# $(PREFIX)/lib/jrunc-vm and $(PREFIX)/bin/jrunc-vm, containerd-shim-jrunc-v2's to $(PREFIX)/lib/jrunc-shim
# and $(PREFIX)/bin/containerd-shim-jrunc-v2 (where containerd finds runtime io.containerd.jrunc.v2), and the VM image (when built) to $(PREFIX)/share/jrunc-vm,
# where jrunc-vm looks for it.
install: build
	install -d $(DESTDIR)$(PREFIX)/lib/jrunc $(DESTDIR)$(PREFIX)/bin
	rm -f $(DESTDIR)$(PREFIX)/lib/jrunc/*.jar
	install -m 644 $(BUILD)/lib/*.jar $(DESTDIR)$(PREFIX)/lib/jrunc/
	$(call render-launcher,$(PREFIX)/lib/jrunc,$(DESTDIR)$(PREFIX)/bin/jrunc)
	install -d $(DESTDIR)$(PREFIX)/lib/jrunc-vm
	rm -f $(DESTDIR)$(PREFIX)/lib/jrunc-vm/*.jar $(DESTDIR)$(PREFIX)/lib/jrunc-vm/*.aot
	install -m 644 $(BUILD)/lib-vm/*.jar $(DESTDIR)$(PREFIX)/lib/jrunc-vm/
	$(call render-vm-launcher,$(PREFIX)/lib/jrunc-vm,$(DESTDIR)$(PREFIX)/bin/jrunc-vm)
	@if [ -z "$(DESTDIR)" ]; then $(call vm-aot-cache,$(PREFIX)/lib/jrunc-vm,$(PREFIX)/bin/jrunc-vm); fi
	@# only the files jrunc-vm reads (docs/vm.md, "The image"), not whatever else the image build keeps there
	@if [ -f $(BUILD)/vm-image/vmlinuz ]; then install -d $(DESTDIR)$(PREFIX)/share/jrunc-vm && \
	  for f in $(VM_IMAGE_FILES); do [ ! -f $(BUILD)/vm-image/$$f ] || \
	    install -m 644 $(BUILD)/vm-image/$$f $(DESTDIR)$(PREFIX)/share/jrunc-vm/$$f || exit 1; done; \
	else echo "no $(BUILD)/vm-image: run make vm-image for jrunc-vm's VM image"; fi
	install -d $(DESTDIR)$(PREFIX)/lib/jrunc-shim
	rm -f $(DESTDIR)$(PREFIX)/lib/jrunc-shim/*.jar $(DESTDIR)$(PREFIX)/lib/jrunc-shim/*.aot
	install -m 644 $(BUILD)/lib-shim/*.jar $(DESTDIR)$(PREFIX)/lib/jrunc-shim/
	$(call render-shim-launcher,$(PREFIX)/lib/jrunc-shim,$(DESTDIR)$(PREFIX)/bin/containerd-shim-jrunc-v2)
	@if [ -z "$(DESTDIR)" ]; then $(call shim-aot-cache,$(PREFIX)/lib/jrunc-shim,$(PREFIX)/bin/containerd-shim-jrunc-v2); fi
	@# A cache is valid only for the jar paths it was trained with: train again at the new place.
	rm -f $(DESTDIR)$(PREFIX)/lib/jrunc/*.aot
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && [ -x /bin/busybox ]; then \
	  scripts/aot-train.sh $(JAVA_HOME)/bin/java "$(JVM_FLAGS)" $(PREFIX)/lib/jrunc $(abspath $(BUILD))/aot-install; fi

clean:
	$(MVN) -q clean || true
	rm -rf $(BUILD)

# Regenerates the jextract bindings (needs jextract for JDK 25 on PATH); see docs/bindings.md.
bindings:
	bindings/jextract/generate.sh
