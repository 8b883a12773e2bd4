"""axpby (MLX's custom-extension example) as a small Python package: a C++
typed-FFI target, built on first use, registered with hlox the way a JAX
user registers it with XLA (``register_ffi_target(name, pycapsule(...))``),
and a JAX function that calls it through ``jax.ffi.ffi_call``.

>>> import axpby, hlox, numpy as np
>>> f = hlox.jit(lambda x, y: axpby.axpby(x, y, alpha=2.0, beta=3.0))
>>> f(np.ones(4, np.float32), np.ones(4, np.float32))
array([5., 5., 5., 5.], dtype=float32)
"""

from __future__ import annotations

import ctypes
import hashlib
import pathlib
import shutil
import subprocess
import tempfile

import numpy as np

import hlox

_HERE = pathlib.Path(__file__).resolve().parent
_lib = None


def _build() -> pathlib.Path:
    import jax.ffi

    src = _HERE / "axpby.cc"
    digest = hashlib.sha256(src.read_bytes()).hexdigest()[:12]
    out = pathlib.Path(tempfile.gettempdir()) / f"hlox-axpby-{digest}.so"
    if not out.exists():
        cxx = shutil.which("c++") or shutil.which("g++")
        if cxx is None:
            raise RuntimeError("axpby: a C++ compiler (c++ or g++) is needed to build the target")
        tmp = out.with_suffix(".tmp.so")
        subprocess.run(
            [cxx, "-std=c++17", "-O2", "-shared", "-fPIC", f"-I{jax.ffi.include_dir()}", str(src), "-o", str(tmp)],
            check=True,
        )
        tmp.replace(out)
    return out


def register() -> None:
    """Builds the target (once) and registers it as "axpby" for the CPU."""
    global _lib
    if _lib is not None:
        return
    import jax.ffi

    _lib = ctypes.CDLL(str(_build()))
    hlox.register_ffi_target("axpby", jax.ffi.pycapsule(_lib.Axpby), platform="cpu")


def axpby(x, y, alpha: float, beta: float):
    """alpha * x + beta * y (f32), as a custom call inside a JAX function."""
    import jax

    register()
    return jax.ffi.ffi_call("axpby", jax.ShapeDtypeStruct(x.shape, x.dtype))(
        x, y, alpha=np.float32(alpha), beta=np.float32(beta)
    )
