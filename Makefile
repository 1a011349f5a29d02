# Shortcuts for the scripts the README names.
.PHONY: test run demo demo-images reference bench install deb check-arm64

# Where `make install` puts things (scripts/install says what goes where).
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
DESTDIR ?=
CONFIGURATION ?= release

test:
	scripts/test

run:
	scripts/run

# The show live in a QEMU window (needs a desktop).
demo:
	scripts/vm-demo

# Regenerates the committed demo pictures.
demo-images:
	swift build --product make-demo-images
	rm -f demo/images/*.jpg
	.build/debug/make-demo-images demo/images

# Writes docs/configuration-reference.md from the settings table
# (KioskSettings.table), and docs/control-protocol.md's commands from the
# command table (ControlRequest.table); the test suite fails while they differ.
reference:
	KIOSKD_WRITE_REFERENCE=1 swift test --filter "theConfigurationReferenceIsTheTable|theDocumentedPayloadsAreThePublishedOnes|theProtocolsCommandsAreTheTable"

# The benchmark figures (docs/benchmarks.md). The first run generates 1,000
# 24-megapixel photos (about 5 GB, 5 minutes) under .build/bench-pictures;
# hotplug_recovery_ms and the panning figures boot the test VM (scripts/bench-vm,
# about 8 minutes); scripts/bench-busy-headless takes 2. The test packages
# (--vm) too: the MQTT figures run mosquitto, the remote library's Apache.
bench:
	scripts/install-deps --vm
	swift build -c release --static-swift-stdlib --product kioskd-bench
	swift build -c release --static-swift-stdlib --product kioskd
	swift build -c release --static-swift-stdlib --product kioskd-web
	.build/release/kioskd-bench
	scripts/bench-vm
	scripts/bench-busy-headless

# The programs, units, sysusers and tmpfiles snippets, config, man pages,
# completions and demo pictures; enables nothing.
install:
	PREFIX="$(PREFIX)" SYSCONFDIR="$(SYSCONFDIR)" DESTDIR="$(DESTDIR)" CONFIGURATION="$(CONFIGURATION)" scripts/install

# The Debian package, in out/; ARCH=arm64 makes a Raspberry Pi's (64-bit
# Raspberry Pi OS on Debian 13) on this machine (scripts/cross-build-arm64).
ARCH ?=
deb:
ifeq ($(ARCH),arm64)
	scripts/cross-build-arm64
else ifneq ($(ARCH),)
	@echo "make deb: ARCH=$(ARCH) is not made here: leave it out for this machine's, or ARCH=arm64" >&2; exit 1
else
	CONFIGURATION="$(CONFIGURATION)" scripts/make-deb
endif

# kioskd on arm64, from nothing to an arm64 kernel's screen: the cross build,
# the package, the tests under qemu-user, the VM (as root; not in CI: docs/tests.md).
check-arm64:
	scripts/check-arm64
