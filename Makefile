# wlansec: `make demo` and `make test` are the two front doors; both set up first.
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
# Scripts and tests find the binaries here, whatever the caller's environment says.
export CARGO_TARGET_DIR := $(CURDIR)/target
VENV := .venv
PY := $(VENV)/bin/python
WLANSEC := target/release/wlansec
OUT := out

.PHONY: setup build demo test test-rust test-python test-c lint fuzz clean bench-decrypt lab lab-resume lab-publish lib-c install bench-c

setup:
	@bash scripts/setup.sh

# The verilog feature: `wlan up --ap-crypto verilog:MHZ` (the RTL verilated; scripts/setup.sh
# installs verilator).
build: setup
	cargo build --release --locked -p wlansec-cli --features verilog

# The main job: the engine's self-check, then a quick run of every lab experiment on the
# emulated WLAN, and the report (out/lab/report/index.html). Needs root (namespaces, TAP).
demo: build
	@LAB_NAME=demo bash scripts/lab_demo.sh

# The full laboratory run: 40 repeats per point (about 15 h on 2 cores), its own output
# directory (out/lab-full) so `make demo` never overwrites it; same report layout.
lab: build
	@OUT=$(OUT)/lab-full LAB_ARGS="--repeats 40" bash scripts/lab_demo.sh

# Continue a killed `make lab` where it stopped (refused if its options or binary differ).
# No rebuild: the run's plan pins the binary's hash, so newer source would only be refused.
lab-resume: setup
	@test -x $(WLANSEC) || { echo "lab-resume: $(WLANSEC) missing; rebuild the commit the run started from"; exit 1; }
	@OUT=$(OUT)/lab-full LAB_ARGS="--repeats 40 --resume" bash scripts/lab_demo.sh

# Copy the finished full run (report, figures, raw JSON) to docs/results/<date>-lab-full;
# refused while runs are missing. NOTE="..." adds a paragraph to its README.
lab-publish: setup
	@$(VENV)/bin/wlansec-lab publish --out $(OUT)/lab-full --note "$(NOTE)"

# A test may skip only for a CPU feature this machine lacks: under WLANSEC_REQUIRE_ALL=1 a
# skip for a tool, library or privilege that setup provides fails (WLANSEC_REQUIRE_ALL=0
# allows them, e.g. without root); the skips that remain are listed at the end.
export WLANSEC_REQUIRE_ALL ?= 1
PYTEST_WORKERS ?= 2

# Lint, then the hardware benches beside the Rust and Python tests (scripts/test.sh).
test: build
	@bash scripts/test.sh

test-rust:
	cargo test --workspace --locked --features wlansec-cli/verilog

test-python:
	WLANSEC=$(abspath $(WLANSEC)) $(PY) -m pytest -q -rs -n $(PYTEST_WORKERS) --dist loadgroup tests/python

# libwlansec, the C library (crates/wlansec-c): `make install PREFIX=...` installs the shared
# and the static library, the header and wlansec.pc (its paths are PREFIX's, made absolute).
PREFIX ?= /usr/local
prefix := $(abspath $(PREFIX))
LIBDIR ?= $(prefix)/lib
INCLUDEDIR ?= $(prefix)/include
C_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
C_MAJOR := $(firstword $(subst ., ,$(C_VERSION)))

lib-c:
	cargo build --release --locked -p wlansec-c

install: lib-c
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 644 target/release/libwlansec.a $(DESTDIR)$(LIBDIR)/libwlansec.a
	install -m 755 target/release/libwlansec.so $(DESTDIR)$(LIBDIR)/libwlansec.so.$(C_VERSION)
	ln -sf libwlansec.so.$(C_VERSION) $(DESTDIR)$(LIBDIR)/libwlansec.so.$(C_MAJOR)
	ln -sf libwlansec.so.$(C_MAJOR) $(DESTDIR)$(LIBDIR)/libwlansec.so
	install -m 644 crates/wlansec-c/include/wlansec.h $(DESTDIR)$(INCLUDEDIR)/wlansec.h
	sed -e 's|@PREFIX@|$(prefix)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(C_VERSION)|' crates/wlansec-c/wlansec.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/wlansec.pc

# The C example and test, built with the system cc against a fresh `make install` in a
# temporary prefix (through pkg-config, so the .pc file is tested too), linked with the
# shared and with the static library; the test checks the published vectors and
# intel-ipsec-mb on random frames.
test-c: lib-c
	@bash tests/c/run.sh

# The C API against the Rust API on identical frames, alternating, medians side by side.
bench-c: lib-c
	@bash tests/c/run.sh --bench

# The fuzz crate (outside the workspace: libFuzzer flags) is linted too, so its targets and the
# seed-corpus example keep building between `make fuzz` runs.
lint:
	cargo fmt --all --check
	cargo fmt --manifest-path fuzz/Cargo.toml --all --check
	cargo clippy --workspace --all-targets --locked --features wlansec-cli/verilog -- -D warnings
	cargo clippy --manifest-path fuzz/Cargo.toml --all-targets --locked -- -D warnings
	# The libraries' documentation (what their users read) builds without broken links.
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked -p wlansec-core -p wlansec-c -p wlansec-wlan

# `wlansec decrypt` against airdecap-ng on one ~250 MB synthetic capture, one core each
# (not part of `make test`): table on stdout, JSON in out/bench_decrypt.json.
bench-decrypt: build
	WLANSEC=$(abspath $(WLANSEC)) python3 scripts/bench_decrypt.py --json $(OUT)/bench_decrypt.json

# Coverage-guided fuzzing of every parser and state machine fed untrusted bytes (not part of
# `make test`, which replays the committed corpora): each target of fuzz/fuzz_targets in
# turn, FUZZ_SECONDS each, one process (the machine is shared). New inputs go to fuzz/work;
# fuzz/README.md says how to minimise them into fuzz/corpus.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(basename $(notdir $(wildcard fuzz/fuzz_targets/*.rs)))
fuzz: setup
	@command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
	@set -e; cd fuzz; for target in $(FUZZ_TARGETS); do \
		mkdir -p work/$$target; \
		CARGO_TARGET_DIR=$(CURDIR)/fuzz/target RUSTC_BOOTSTRAP=1 cargo fuzz run --debug-assertions $$target \
			work/$$target corpus/$$target -- -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1; \
	done

# ns-3 reference figures for the airtime model (tests/vectors/ns3, read by the Rust tests).
# Offline only: installs the large PyPI ns3 wheel into .venv; `make test` never needs it.
NS3_VERSION := 3.44.post0
.PHONY: ns3-vectors
ns3-vectors: setup
	$(PY) -m pip install -q ns3==$(NS3_VERSION)
	$(PY) tools/ns3/gen_vectors.py

clean:
	cargo clean
	rm -rf $(OUT)
