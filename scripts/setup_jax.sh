#!/usr/bin/env bash
# Create a Python virtual environment with the pinned JAX used to generate the
# conformance corpus (tests/corpus). Idempotent: re-running reuses the venv and
# only installs what is missing or at the wrong version.
#
#   bash scripts/setup_jax.sh            # venv at ./.venv-jax
#   bash scripts/setup_jax.sh /tmp/venv  # venv elsewhere
#
# Then: .venv-jax/bin/python scripts/gen_jax_corpus.py
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-$repo/.venv-jax}"
req="$repo/scripts/requirements-jax.txt"
python="${PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1; then
    echo "error: $python not found; install Python >= 3.11 or set PYTHON=/path/to/python3" >&2
    exit 1
fi

if [ ! -x "$venv/bin/python" ]; then
    echo "creating virtual environment at $venv"
    "$python" -m venv "$venv"
fi

# pip skips requirements that are already satisfied, so this is cheap to rerun.
"$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$req"

"$venv/bin/python" -c "import jax, numpy; print('jax', jax.__version__, 'numpy', numpy.__version__, 'ok')"
