# hlox: two commands do everything on a fresh Debian 12 machine with Rust:
#   make demo   build the seed custom-call program, print its HLO, run it
#   make test   every test
SHELL := /bin/bash
CARGO ?= cargo
# System packages: C and C++ compilers for the C custom-call targets and the
# typed-FFI C++ targets, LLVM 19 for the Host backend (linked statically
# through inkwell).
SYSTEM_DEPS := gcc g++ libc6-dev python3-venv llvm-19-dev libpolly-19-dev libzstd-dev zlib1g-dev \
	libopenmpi-dev openmpi-bin libclang-dev

.PHONY: all deps build demo examples test fmt-check clippy corpus clean ptxas gpu-bundle xla-ffi-headers python-venv python-test

all: build

deps:
	@bash scripts/install-deps.sh $(SYSTEM_DEPS)

build: deps
	$(CARGO) build --workspace

demo: deps
	$(CARGO) run -q -p hlox-examples --example custom_call_cpu

# Every example checks its own result and exits non-zero when wrong.
EXAMPLES := custom_call_cpu custom_call_cuda tuple_custom_call failing_target shape_in_opaque axpby c_plugin jax_module

examples: deps
	@set -e; for e in $(EXAMPLES); do echo "== example $$e"; $(CARGO) run -q -p hlox-examples --example $$e; done

# NVIDIA's PTX assembler (PyPI nvidia-cuda-nvcc-cu12, into .venv-cuda): the
# CUDA backend's tests assemble every generated kernel with it (no GPU needed).
ptxas:
	@bash scripts/setup_ptxas.sh

# XLA's FFI headers (from the pinned jaxlib wheel, into .xla-ffi): the tests
# build targets/cpp, typed-FFI handlers written for XLA, against them.
xla-ffi-headers:
	@bash scripts/setup_xla_ffi_headers.sh

test: deps ptxas xla-ffi-headers
	$(CARGO) test --workspace --no-fail-fast
	$(MAKE) --no-print-directory examples
	$(MAKE) --no-print-directory python-test

# The Python package (python/, docs/python.md): a venv in .venv-py with the
# build and test dependencies (jax pinned to the corpus' version), the
# extension built once by maturin in the dev profile (a release build of the
# LLVM-linked crates costs many minutes; the compiled modules run at LLVM O3
# either way), then pytest and the Python examples.
PYTHON ?= python3
PY_VENV := .venv-py
PY_DEPS := maturin==1.16.0 numpy pytest jax==0.10.2 jaxlib==0.10.2
PY_EXAMPLES := python/examples/do_custom_call.py python/examples/python_target_in_jax.py python/examples/axpby/run.py

$(PY_VENV)/.deps:
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/pip install -q $(PY_DEPS)
	touch $@

python-venv: $(PY_VENV)/.deps

python-test: deps xla-ffi-headers python-venv
	PATH="$(abspath $(PY_VENV))/bin:$$PATH" MATURIN_PEP517_ARGS="--profile dev" \
		$(PY_VENV)/bin/pip install -q --no-build-isolation --no-deps --force-reinstall ./python
	$(PY_VENV)/bin/python -m pytest -q python/tests
	@set -e; for e in $(PY_EXAMPLES); do echo "== example $$e"; $(PY_VENV)/bin/python $$e >/dev/null; done

# Release binaries for a GPU machine (no Rust there): stripped, xz'd into
# .gpu/ for the device tool to carry; scripts/gpu_session.sh runs them there.
# See docs/cuda.md, "Running on a GPU machine".
gpu-bundle: deps
	bash scripts/gpu_bundle.sh

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --workspace --all-targets

# Regenerate the JAX corpus under tests/corpus (needs network for pip).
corpus:
	bash scripts/setup_jax.sh
	.venv-jax/bin/python scripts/gen_jax_corpus.py

clean:
	$(CARGO) clean

# Fuzzing (tests/fuzz, its own workspace: nightly + cargo-fuzz + libFuzzer).
# Not part of `make test`: building the fuzz targets from scratch (LLVM-linked
# hlox-cpu with sanitizer coverage) takes ~15 minutes on 2 cores.
# See docs/reliability.md.
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 20

.PHONY: fuzz fuzz-smoke leakcheck rss

fuzz:
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

fuzz-smoke:
	bash scripts/fuzz.sh $(FUZZ_SMOKE_SECONDS)

# Valgrind memcheck (definite leaks and memory errors fail) over `hlox run`
# on corpus cases and the failure/load test binaries.
leakcheck: deps
	bash scripts/leakcheck.sh

# RSS over 10,000 compile+execute cycles in one process.
rss: deps
	$(CARGO) run --release -q -p hlox-cpu --example rss_loop -- 10000 1000
