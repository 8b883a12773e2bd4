#!/usr/bin/env bash
# Everything issue 5 needs a GPU for, in one command on a GPU machine, from
# a copy of the repository with .gpu/ (from scripts/gpu_bundle.sh, i.e.
# `make gpu-bundle`) beside it:
#
#   bash scripts/gpu_session.sh [tests] [spmd] [example] [bench]   (default: all four)
#
# tests    the CUDA backend's tests with HLOX_REQUIRE_GPU=1 (a missing GPU
#          fails them instead of skipping): the corpus and the opcode
#          programs on the GPU against JAX's outputs and the evaluator,
#          custom calls, CUDA graphs;
# spmd     SPMD programs on every GPU there is through NCCL (the test
#          binary is built with --features nccl): each collective kind
#          against host emulation, the multi-device corpus on 4 GPUs
#          against JAX where there are 4, and `hlox run --platform cuda
#          --devices N` on the corpus's shard_map program; needs libnccl
#          (the nvidia-nccl-cu* wheel or the system's);
# example  examples/custom_call_cuda (the seed of XLA's guide on the GPU);
# bench    scripts/bench_vs_xla.py --platform cuda (XLA's GPU client beside
#          hlox, device time, fraction of the copy bandwidth).
#
# Logs go to $OUT (the device tool's folder) or .gpu/out. Exits non-zero
# when any part fails. HLOX_REQUIRE_GPU=0 lets the tests and the example
# skip the GPU (to check the bundle on a machine without one).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-.gpu/out}
mkdir -p "$out"
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(tests spmd example bench)
[ -f .gpu/MANIFEST ] || { echo "no .gpu/: run 'make gpu-bundle' here and carry .gpu" >&2; exit 2; }
cat .gpu/MANIFEST | tee "$out/manifest.txt"
echo "this machine: $(ldd --version 2>&1 | head -1)" | tee -a "$out/manifest.txt"

bin=$(mktemp -d /tmp/hlox-gpu.XXXXXX)
extra=$(mktemp -d /tmp/hlox-libs.XXXXXX)
trap 'rm -rf "$bin" /tmp/hlox-libs.*' EXIT
for f in cuda-tests hlox custom_call_cuda; do
  xz -dc ".gpu/$f.xz" > "$bin/$f" && chmod +x "$bin/$f" || { echo "cannot unpack .gpu/$f.xz" >&2; exit 2; }
done

# cuBLAS and NVRTC are loaded at run time: from the CUDA toolkit or from
# Python's nvidia-* wheels, wherever this machine has them.
sites=$(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null || true)
cuda_libs=$(find /usr/local/cuda*/lib64 /usr/local/cuda*/targets/*/lib $sites \
  \( -name 'libcublas.so*' -o -name 'libnvrtc.so*' -o -name 'libnccl.so*' \) 2>/dev/null | xargs -r -n1 dirname | sort -u | paste -sd:)
# The bundled libffi/libz/libzstd only where the machine lacks them.
for l in .gpu/lib/*; do
  [ -e "$l" ] || continue
  ldconfig -p | grep -q "^\s*$(basename "$l") " || cp "$l" "$extra/"
done
[ -n "$(ls -A "$extra")" ] || extra=
export LD_LIBRARY_PATH=$(printf '%s\n' "$cuda_libs" "$extra" "${LD_LIBRARY_PATH:-}" | grep -v '^$' | paste -sd:)
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
ldd "$bin/cuda-tests" | grep "not found" && { echo "missing libraries (above)" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$out/gpu.txt"
ptxas=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -1)

status=0
for part in "${parts[@]}"; do
  echo "== $part"
  case $part in
    tests)
      HLOX_CPP_FFI_PLUGIN=$PWD/.gpu/plugins/libhlox_cpp_ffi_targets.so \
      HLOX_WORKSPACE_ROOT=$PWD HLOX_REQUIRE_GPU=${HLOX_REQUIRE_GPU:-1} HLOX_PTXAS=$ptxas \
        "$bin/cuda-tests" --nocapture 2>&1 | tee "$out/cuda-tests.log" || status=1 ;;
    spmd)
      HLOX_WORKSPACE_ROOT=$PWD HLOX_REQUIRE_GPU=${HLOX_REQUIRE_GPU:-1} HLOX_PTXAS=$ptxas \
        "$bin/cuda-tests" spmd:: --nocapture 2>&1 | tee "$out/spmd.log" || status=1
      gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
      md=tests/corpus/multidevice/sm_collectives
      if [ "${gpus:-0}" -ge 4 ]; then
        "$bin/hlox" run $md/module.hlo -i $md/in0.npy -i $md/in1.npy --platform cuda \
          --devices 4 -o "$out/spmd-cli" 2>&1 | tee -a "$out/spmd.log" || status=1
      else
        echo "SKIP: hlox run --platform cuda --devices 4: ${gpus:-0} GPU(s)" | tee -a "$out/spmd.log"
      fi ;;
    example)
      "$bin/custom_call_cuda" 2>&1 | tee "$out/example.log" || status=1
      if [ "${HLOX_REQUIRE_GPU:-1}" != 0 ] && grep -q SKIP "$out/example.log"; then
        echo "the example skipped the GPU" >&2; status=1
      fi ;;
    bench)
      PYTHONUNBUFFERED=1 python3 scripts/bench_vs_xla.py --platform cuda --hlox "$bin/hlox" \
        --iters 50 --warmup 5 --markdown "$out/bench.md" 2>&1 | tee "$out/bench.log" || status=1 ;;
    *) echo "unknown part '$part' (tests, spmd, example, bench)" >&2; status=2 ;;
  esac
done
echo "== done: status $status; logs in $out"
exit $status
