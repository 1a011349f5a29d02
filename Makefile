# Shortcuts for the scripts the README names.
.PHONY: test run demo demo-images reference bench install deb

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
# (KioskSettings.table); the test suite fails while the two differ.
reference:
	KIOSKD_WRITE_REFERENCE=1 swift test --filter "theConfigurationReferenceIsTheTable|theDocumentedPayloadsAreThePublishedOnes"

# The benchmark figures (docs/benchmarks.md). The first run generates 1,000
# 24-megapixel photos (about 5 GB, 5 minutes) under .build/bench-pictures;
# hotplug_recovery_ms boots the test VM (scripts/bench-vm, about 2 minutes).
bench:
	scripts/install-deps
	swift build -c release --static-swift-stdlib --product kioskd-bench
	swift build -c release --static-swift-stdlib --product kioskd
	.build/release/kioskd-bench
	scripts/bench-vm

# The programs, units, sysusers and tmpfiles snippets, config, man pages,
# completions and demo pictures; enables nothing.
install:
	PREFIX="$(PREFIX)" SYSCONFDIR="$(SYSCONFDIR)" DESTDIR="$(DESTDIR)" CONFIGURATION="$(CONFIGURATION)" scripts/install

# The Debian package, in out/.
deb:
	CONFIGURATION="$(CONFIGURATION)" scripts/make-deb
