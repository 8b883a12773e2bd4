#!/usr/bin/env bash
# Puts XLA's FFI headers (xla/ffi/api/{c_api,api,ffi}.h, as jaxlib ships
# them: jax.ffi.include_dir()) under .xla-ffi/include, once, and prints that
# include directory. The tests build targets/cpp against them, to check that
# handlers written for XLA run on hlox unchanged.
#
# The headers come from the jaxlib wheel pinned in scripts/requirements-jax.txt
# (downloaded, not installed: only the header files are extracted). Honors
# HLOX_XLA_FFI_INCLUDE when it already names a directory holding them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
has_headers() { [[ -f "$1/xla/ffi/api/ffi.h" && -f "$1/xla/ffi/api/c_api.h" ]]; }
if [[ -n "${HLOX_XLA_FFI_INCLUDE:-}" ]] && has_headers "$HLOX_XLA_FFI_INCLUDE"; then
  echo "$HLOX_XLA_FFI_INCLUDE"
  exit 0
fi
dest="$root/.xla-ffi/include"
if has_headers "$dest"; then
  echo "$dest"
  exit 0
fi
version="$(sed -n 's/^jaxlib==//p' "$root/scripts/requirements-jax.txt")"
[[ -n "$version" ]] || { echo "setup_xla_ffi_headers: no jaxlib pin in scripts/requirements-jax.txt" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "setup_xla_ffi_headers: downloading jaxlib $version for its FFI headers" >&2
python3 -m venv "$tmp/venv" >&2
"$tmp/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
  --only-binary=:all: "jaxlib==$version" -d "$tmp/wheel" >&2
wheel="$(compgen -G "$tmp/wheel/jaxlib-*.whl" | head -n 1)"
[[ -n "$wheel" ]] || { echo "setup_xla_ffi_headers: no jaxlib wheel downloaded" >&2; exit 1; }
python3 - "$wheel" "$dest" <<'PY'
import sys, zipfile, pathlib
wheel, dest = sys.argv[1], pathlib.Path(sys.argv[2])
prefix = "jaxlib/include/"
n = 0
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(prefix + "xla/ffi/api/") and name.endswith(".h"):
            out = dest / name[len(prefix):]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(z.read(name))
            n += 1
if n == 0:
    sys.exit(f"setup_xla_ffi_headers: {wheel} has no {prefix}xla/ffi/api headers")
PY
has_headers "$dest" || { echo "setup_xla_ffi_headers: headers missing after extraction" >&2; exit 1; }
echo "$dest"
