# Castor for Linux. `make demo` runs the main job; `make test` runs every test.
SWIFT ?= swift
FUZZ_SECONDS ?= 60
export CASTOR_PYTHON := $(CURDIR)/.venv/bin/python

.PHONY: demo test build bootstrap-build bootstrap-test fuzz fuzz-short bench docs format clean

bootstrap-build:
	@scripts/bootstrap.sh build

bootstrap-test:
	@scripts/bootstrap.sh test

build: bootstrap-build
	$(SWIFT) build

## The main job: an emulated receiver in-process, driven through the public API.
demo: bootstrap-build
	$(SWIFT) run castctl demo

## Every test: unit, integration over TLS on loopback, interop with pychromecast,
## lab tests in network namespaces (root only), and a short fuzz run.
test: bootstrap-test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) fuzz-short

## Long fuzzing session of every fuzz target (Ctrl-C to stop).
fuzz: bootstrap-build
	scripts/fuzz.sh run 0

fuzz-short: bootstrap-build
	scripts/fuzz.sh run $(FUZZ_SECONDS)

bench: bootstrap-test
	scripts/bench.sh

docs:
	$(SWIFT) package generate-documentation

clean:
	rm -rf .build fuzz/bin
