# Castor for Linux. `make demo` runs the main job; `make test` runs every test.
SWIFT ?= swift
FUZZ_SECONDS ?= 10
FUZZ_HOURS ?= 12
export CASTOR_PYTHON := $(CURDIR)/.venv/bin/python

PREFIX ?= /usr/local
DESTDIR ?=
## release for install and deb; `debug` reuses the debug build (the tests check the layout, not the optimiser).
CONFIGURATION ?= release

.PHONY: demo test build bootstrap-build bootstrap-test fuzz fuzz-short fuzz-long bench docs new-user-package discovery-only-package light-layer-package format clean \
	release install uninstall deb

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
## (one at a time: on two cores, tests that block a cooperative thread for seconds starved the
## real-clock heartbeats of others; about 770 tests pass in 8 min serially, fault lab included; bounded at 30 min, a hang
## prints the test process's backtraces: scripts/run-tests.sh),
## lab tests in network namespaces (root only), a new package built on the façade, a package
## that only discovers and one on the light layer alone (their build closures checked),
## the documentation (no DocC warning allowed), and a short fuzz run. After the test build,
## `make release CONFIGURATION=debug` builds the three programs with the static Swift standard library into
## .build/castor-programs-debug and generate-manual, for the install and .deb tests (CastctlPackagingTests), which
## cannot build while `swift test` holds .build (a release build of the three programs takes 10-15 min on 2 cores,
## too long for CI). That build has its own scratch folder (.build/static-debug): an ordinary link in a folder
## where a static build compiled asks for libCoreFoundation.so (CI failed so when they shared .build).
test: bootstrap-test
	@echo "make test: $$(date -u +%T) building the tests"
	$(SWIFT) build --build-tests
	@echo "make test: $$(date -u +%T) the static programs for the packaging tests"
	$(MAKE) release CONFIGURATION=debug
	@echo "make test: $$(date -u +%T) the new-user, discovery-only and light-layer packages"
	$(MAKE) new-user-package
	$(MAKE) discovery-only-package
	$(MAKE) light-layer-package
	@echo "make test: $$(date -u +%T) the tests (and the fuzzers' build beside them)"
	@# The fuzzers (a release build with sanitizers in .build-fuzz, about 5 min of both cores) build at low priority
	@# while the tests run, which mostly wait on sockets and children; fuzz-short then only runs them.
	@mkdir -p .build; nice -n 19 scripts/fuzz.sh build > .build/fuzz-build.log 2>&1 & fuzz=$$!; \
	status=0; SWIFT=$(SWIFT) scripts/run-tests.sh || status=$$?; \
	if ! wait $$fuzz; then tail -40 .build/fuzz-build.log; echo "make test: the fuzzers did not build"; exit 1; fi; \
	exit $$status
	@echo "make test: $$(date -u +%T) TLS conformance as an unprivileged user"
	scripts/conformance-as-user.sh
	@echo "make test: $$(date -u +%T) the documentation, and the fuzzers beside it ($(FUZZ_SECONDS) s each, one a core)"
	@# A fuzz run lasts its time whatever else runs; the documentation is the CPU's work meanwhile.
	@FUZZ_NO_BUILD=1 $(MAKE) fuzz-short > .build/fuzz-short.log 2>&1 & fuzz=$$!; \
	status=0; $(MAKE) docs || status=$$?; \
	if ! wait $$fuzz; then cat .build/fuzz-short.log; echo "make test: a fuzzer failed"; exit 1; fi; \
	grep "^fuzz:" .build/fuzz-short.log; exit $$status
	@echo "make test: $$(date -u +%T) done"

## Fuzz the first fuzz target until Ctrl-C (scripts/fuzz.sh run 0 TARGET for another).
fuzz: bootstrap-build
	scripts/fuzz.sh run 0

## FUZZ_SECONDS per fuzz target, from the minimized in-tree corpus Tests/Fuzz/Corpus (part of `make test`).
fuzz-short: bootstrap-build
	scripts/fuzz.sh run $(FUZZ_SECONDS)

## A campaign: every fuzz target in turn for FUZZ_HOURS in total, from its full corpus (Tests/Fuzz/Archive/<target>.tar.xz,
## unpacked), merged back into that archive and the minimized Tests/Fuzz/Corpus (Modules/Castor/Castor.docc/Fuzzing.md).
fuzz-long: bootstrap-build
	nice -n 19 scripts/fuzz.sh campaign $(FUZZ_HOURS)

bench: bootstrap-test
	scripts/bench.sh

## DocC archives of every library module; fails on any documentation warning.
docs: bootstrap-build
	SWIFT=$(SWIFT) scripts/docs.sh

## Tests/NewUserPackage: a package depending on this one by path, built as a new user would,
## with every warning an error (its programs are run by InteropTests).
new-user-package: bootstrap-build
	$(SWIFT) build --package-path Tests/NewUserPackage -Xswiftc -warnings-as-errors

## Tests/DiscoveryOnlyPackage: a program depending on the CastDiscovery product alone (its build
## closure is checked by InteropTests: no GnuTLS, swift-protobuf, libxml2 or SwiftNIO).
discovery-only-package: bootstrap-build
	$(SWIFT) build --package-path Tests/DiscoveryOnlyPackage -Xswiftc -warnings-as-errors

## Tests/LightLayerPackage: a program on the CastChannels and CastMedia products over the in-memory transport (its
## build closure is checked by InteropTests: no GnuTLS, SwiftNIO, swift-protobuf, libcurl or Avahi).
## Its build folder is emptied first (the resolved checkouts stay): the tests read which modules were compiled at all,
## and a module left from an earlier build would count.
light-layer-package: bootstrap-build
	rm -rf Tests/LightLayerPackage/.build/*/debug
	$(SWIFT) build --package-path Tests/LightLayerPackage -Xswiftc -warnings-as-errors

## Release builds of castctl, cast-receiver and audiocast with the static Swift standard library (they run
## where no Swift toolchain is), and swift-argument-parser's generate-manual tool.
release: bootstrap-build
	SWIFT=$(SWIFT) CONFIGURATION=$(CONFIGURATION) scripts/package.sh build

## `make install [PREFIX=/usr/local] [DESTDIR=…]`: the three programs in bin/, their man pages (generated from
## the argument parser) in share/man/man1, bash, zsh and fish completions.
install: release
	SWIFT=$(SWIFT) CONFIGURATION=$(CONFIGURATION) scripts/package.sh install "$(DESTDIR)" "$(PREFIX)"

## Removes what `make install` laid out (same PREFIX and DESTDIR).
uninstall:
	scripts/package.sh uninstall "$(DESTDIR)" "$(PREFIX)"

## A Debian package of the three programs in .build/deb (`apt-get install ./.build/deb/castor-tools_*.deb`).
deb: release
	SWIFT=$(SWIFT) CONFIGURATION=$(CONFIGURATION) scripts/package.sh deb .build/deb

clean:
	rm -rf .build Tests/NewUserPackage/.build Tests/DiscoveryOnlyPackage/.build Tests/LightLayerPackage/.build fuzz/bin
