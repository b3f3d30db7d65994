# Castor for Linux. `make demo` runs the main job; `make test` runs every test.
SWIFT ?= swift
FUZZ_SECONDS ?= 10
FUZZ_HOURS ?= 12
export CASTOR_PYTHON := $(CURDIR)/.venv/bin/python

.PHONY: demo test build bootstrap-build bootstrap-test fuzz fuzz-short fuzz-long bench docs format clean

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

## Fuzz the first fuzz target until Ctrl-C (scripts/fuzz.sh run 0 TARGET for another).
fuzz: bootstrap-build
	scripts/fuzz.sh run 0

## FUZZ_SECONDS per fuzz target, from the committed corpus (part of `make test`).
fuzz-short: bootstrap-build
	scripts/fuzz.sh run $(FUZZ_SECONDS)

## A campaign: every fuzz target in turn for FUZZ_HOURS in total, merged into Tests/Fuzz/Corpus (Modules/Castor/Castor.docc/Fuzzing.md).
fuzz-long: bootstrap-build
	nice -n 19 scripts/fuzz.sh campaign $(FUZZ_HOURS)

bench: bootstrap-test
	scripts/bench.sh

docs:
	$(SWIFT) package generate-documentation

clean:
	rm -rf .build fuzz/bin
