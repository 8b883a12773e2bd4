#!/usr/bin/env bash
# Installs NVIDIA's PTX assembler (ptxas) from PyPI (nvidia-cuda-nvcc-cu12)
# into .venv-cuda at the repository root, once, and prints its path.
# The CUDA backend's tests assemble every generated kernel with it; no GPU
# is needed. NVRTC (nvidia-cuda-nvrtc-cu12) comes along: the tests compile
# the GPU example targets' CUDA C with it. Honors HLOX_PTXAS when it already names an executable.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ -n "${HLOX_PTXAS:-}" && -x "${HLOX_PTXAS}" ]]; then
  echo "${HLOX_PTXAS}"
  exit 0
fi
venv="$root/.venv-cuda"
find_ptxas() {
  compgen -G "$venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas" | head -n 1 || true
}
p="$(find_ptxas)"
nvrtc="$(compgen -G "$venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib" | head -n 1 || true)"
if [[ -z "$p" || -z "$nvrtc" ]]; then
  echo "setup_ptxas: installing nvidia-cuda-nvcc-cu12 into $venv" >&2
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check nvidia-cuda-nvcc-cu12 nvidia-cuda-nvrtc-cu12 >&2
  p="$(find_ptxas)"
fi
if [[ -z "$p" ]]; then
  echo "setup_ptxas: ptxas not found after installing nvidia-cuda-nvcc-cu12" >&2
  exit 1
fi
chmod +x "$p" 2>/dev/null || true
echo "$p"
