#!/usr/bin/env bash
# Release binaries for a GPU machine, which has no Rust toolchain
# (docs/cuda.md, "Running on a GPU machine"): the CUDA backend's test
# binary, the CLI (for the benchmark) and the CUDA custom-call example,
# stripped and xz-compressed into .gpu/ (ignored by git; the device tool
# carries it), with the few shared libraries they need beyond glibc and
# libstdc++ in .gpu/lib (used there only where the machine lacks them).
# Then, on the GPU machine: bash scripts/gpu_session.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
mkdir -p .gpu/lib
rm -f .gpu/*.xz

echo "== building (release): the CUDA test binary, the CLI, the CUDA example"
# With NCCL (loaded at run time): SPMD programs on the GPUs.
tests=$($CARGO test -p hlox-cuda --release --features nccl --test cuda --no-run --message-format=json \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "cuda":
        print(m["executable"])')
$CARGO build --release -p hlox-cli --features nccl
$CARGO build --release -p hlox-examples --example custom_call_cuda

pack() { # pack SRC NAME: strip, compress
  cp "$1" ".gpu/$2"
  strip ".gpu/$2"
  xz -T0 -6 -f ".gpu/$2"
  printf '   %-18s %s\n' "$2.xz" "$(du -h ".gpu/$2.xz" | cut -f1)"
}
echo "== packing into .gpu/"
pack "$tests" cuda-tests
pack target/release/hlox hlox
pack target/release/examples/custom_call_cuda custom_call_cuda

# The typed-FFI test plugin (targets/cpp, built against XLA's ffi.h): the
# tests find it through HLOX_CPP_FFI_PLUGIN there (gpu_session.sh sets it).
mkdir -p .gpu/plugins
cpp=$(ls -t target/release/build/hlox-targets-*/out/libhlox_cpp_ffi_targets.so 2>/dev/null | head -1)
[ -n "$cpp" ] && cp "$cpp" .gpu/plugins/ && strip .gpu/plugins/libhlox_cpp_ffi_targets.so

for lib in libffi.so.8 libz.so.1 libzstd.so.1; do
  p=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ { print $NF; exit }')
  [ -n "$p" ] && cp -L "$p" .gpu/lib/
done
{
  echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
  echo "built $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m), $(. /etc/os-release && echo "$PRETTY_NAME")"
  # The newest glibc symbol version the binaries need (the machine there
  # must have at least this glibc).
  glibc=$(objdump -T target/release/hlox "$tests" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
  echo "needs ${glibc:-GLIBC_?} (glibc), libstdc++, libgcc_s"
} > .gpu/MANIFEST
cat .gpu/MANIFEST
echo "== .gpu/ holds $(du -sh .gpu | cut -f1); carry it: run(command='bash scripts/gpu_session.sh', carry=['.gpu'])"
