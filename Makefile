# Shortcuts for the scripts the README names.
.PHONY: test run demo-images

test:
	scripts/test

run:
	scripts/run

# Regenerates the committed demo pictures.
demo-images:
	swift build --product make-demo-images
	rm -f demo/images/*.jpg
	.build/debug/make-demo-images demo/images
