# Shortcuts for the scripts the README names.
.PHONY: test run demo demo-images

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
