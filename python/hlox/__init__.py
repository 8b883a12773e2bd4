"""hlox from Python: compile and run XLA HLO modules.

>>> import numpy as np, hlox
>>> b = hlox.Builder("axpy")
>>> x = b.parameter(0, hlox.Shape.array("f32", (4,)), "x")
>>> y = b.parameter(1, hlox.Shape.array("f32", (4,)), "y")
>>> exe = hlox.compile(b.build(2.0 * x + y))
>>> exe(np.ones(4, np.float32), np.arange(4, dtype=np.float32))
array([2., 3., 4., 5.], dtype=float32)

See docs/python.md for the guide: modules, the builder, zero-copy calls,
custom-call targets (C functions, plugins, Python functions),
``hlox.jit`` for JAX functions, and the transformations ``hlox.grad``,
``hlox.vjp``, ``hlox.jvp`` and ``hlox.vmap`` (with ``hlox.Rules`` for
custom calls).
"""

from __future__ import annotations

import ctypes as _ctypes
import os as _os
import sys as _sys
from typing import Any, Callable, NamedTuple

# Custom-call plugins are plain C libraries linked against nothing: they
# resolve XlaCustomCallStatusSetFailure, XlaCustomCallStatusSetSuccess and
# XLA_FFI_GetApi from the process. The extension exports them, but Python
# loads extension modules with RTLD_LOCAL, which hides them from libraries
# loaded later; load this one with RTLD_GLOBAL instead.
_flags = _sys.getdlopenflags()
_sys.setdlopenflags(_flags | _os.RTLD_GLOBAL)
try:
    from . import _hlox
finally:
    _sys.setdlopenflags(_flags)

from ._hlox import (  # noqa: E402
    Builder,
    CallInfo,
    CompileError,
    CustomCallError,
    Error,
    ExecError,
    Executable,
    Module,
    Op,
    ParseError,
    Rules,
    Shape,
    TransformError,
    VerifyError,
    compile,
    grad,
    jvp,
    load,
    load_plugin,
    vjp,
    vmap,
)
from ._jit import jit, Jitted  # noqa: E402

__version__ = _hlox.__version__

__all__ = [
    "Builder",
    "CallInfo",
    "CompileError",
    "CustomCallError",
    "Error",
    "ExecError",
    "Executable",
    "Jitted",
    "Module",
    "Op",
    "ParseError",
    "Rules",
    "Shape",
    "TargetInfo",
    "TransformError",
    "VerifyError",
    "compile",
    "custom_call_target",
    "grad",
    "jit",
    "jvp",
    "load",
    "load_plugin",
    "register_ffi_target",
    "targets",
    "vjp",
    "vmap",
]


class TargetInfo(NamedTuple):
    """One registered custom-call target (see :func:`targets`)."""

    name: str
    platform: str
    #: XLA's api_version (1-3 legacy, 4 typed FFI); None when the custom
    #: call's own api_version decides (legacy registrations, symbols).
    api_version: int | None
    origin: str


# Targets registered from Python: name -> origin text, and what keeps their
# functions alive (ctypes objects, capsules, Python functions).
_python_origins: dict[tuple[str, str], str] = {}
_keep_alive: dict[tuple[str, str], Any] = {}


def _platform(platform: str) -> str:
    p = platform.lower()
    if p in ("cpu", "host"):
        return "cpu"
    if p in ("cuda", "gpu"):
        return "cuda"
    raise ValueError(f'unknown platform "{platform}": use "cpu" or "cuda"')


_capsule_get_name = _ctypes.pythonapi.PyCapsule_GetName
_capsule_get_name.restype = _ctypes.c_char_p
_capsule_get_name.argtypes = [_ctypes.py_object]
_capsule_get_pointer = _ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = _ctypes.c_void_p
_capsule_get_pointer.argtypes = [_ctypes.py_object, _ctypes.c_char_p]


def _address(fn: Any, what: str) -> int:
    """The address of a C function given as a PyCapsule, a ctypes function
    or pointer, or an int."""
    if type(fn).__name__ == "PyCapsule":
        return int(_capsule_get_pointer(fn, _capsule_get_name(fn)) or 0)
    if isinstance(fn, _ctypes._CFuncPtr):  # type: ignore[attr-defined]
        return int(_ctypes.cast(fn, _ctypes.c_void_p).value or 0)
    if isinstance(fn, _ctypes.c_void_p):
        return int(fn.value or 0)
    if isinstance(fn, int) and not isinstance(fn, bool):
        return fn
    raise TypeError(
        f"{what}: expected a PyCapsule (jax.ffi.pycapsule(lib.symbol)), a ctypes function or an "
        f"address, got {type(fn).__name__}"
    )


def register_ffi_target(
    name: str, fn: Any, platform: str = "cpu", api_version: int = 4, **kwargs: Any
) -> None:
    """Register the C function ``fn`` as custom-call target ``name``.

    Accepts what ``jax.ffi.register_ffi_target`` accepts: a PyCapsule
    (``jax.ffi.pycapsule(lib.MyHandler)``), a ctypes function, or, for
    typed FFI, a dict of stages of which hlox calls ``"execute"``.
    ``api_version`` is XLA's: 4 typed FFI (the default), 1 ORIGINAL,
    2 STATUS_RETURNING, 3 STATUS_RETURNING_UNIFIED, and 0 for a legacy
    function whose convention each custom call's own api_version decides
    (what JAX's ``api_version=0`` registers).

    >>> lib = ctypes.CDLL("./libmy_targets.so")
    >>> hlox.register_ffi_target("leaky_relu", jax.ffi.pycapsule(lib.LeakyFfi))
    """
    if kwargs:
        raise TypeError(f"register_ffi_target: unsupported arguments {sorted(kwargs)}")
    p = _platform(platform)
    keep = fn
    if isinstance(fn, dict):
        other = sorted(k for k in fn if k not in ("execute", "instantiate", "prepare", "initialize"))
        if "execute" not in fn or other:
            raise ValueError(
                f'register_ffi_target("{name}"): a dict of stages needs an "execute" entry '
                f"(and only XLA's stage names), got {sorted(fn)}"
            )
        if len(fn) > 1:
            raise ValueError(
                f'register_ffi_target("{name}"): hlox registers the "execute" stage of a dict; '
                f"register a handler bundle through XLA_FFI_REGISTER_HANDLER in a plugin "
                f"(hlox.load_plugin) for the {sorted(k for k in fn if k != 'execute')} stages"
            )
        fn = fn["execute"]
    addr = _address(fn, f'register_ffi_target("{name}")')
    _hlox._register_address(name, addr, p, int(api_version))
    _keep_alive[(name, p)] = keep
    _python_origins[(name, p)] = f"register_ffi_target (api_version={api_version})"


def custom_call_target(name: str, platform: str = "cpu") -> Callable[[Callable], Callable]:
    """Register a Python function as the typed-FFI target ``name``.

    The function is called, with the GIL held, once per execution of a
    custom call (``api_version=4``) bound to it: with a read-only numpy view
    of each operand, a writable numpy view of the result as ``out`` (or, for
    several results, one positional argument each after the operands), and
    the call's ``backend_config`` attributes as keyword arguments. An
    exception fails the call with a ``CustomCallError`` carrying its
    message. The views are valid during the call only. Registering a name
    again replaces the function.

    >>> @hlox.custom_call_target("scale")
    ... def scale(x, *, out, factor):
    ...     out[...] = x * factor
    """
    p = _platform(platform)

    def register(fn: Callable) -> Callable:
        if not callable(fn):
            raise TypeError(f"custom_call_target({name!r}): {fn!r} is not callable")
        _hlox._register_python(name, p, fn)
        _keep_alive[(name, p)] = fn
        qual = getattr(fn, "__qualname__", repr(fn))
        _python_origins[(name, p)] = f"Python function {getattr(fn, '__module__', '?')}.{qual}"
        return fn

    return register


def targets() -> list[TargetInfo]:
    """Every registered custom-call target: name, platform, api_version and
    where it came from."""
    out = []
    for name, platform, api, origin in _hlox._targets():
        origin = _python_origins.get((name, platform), origin)
        out.append(TargetInfo(name, platform, api, origin))
    return out
