"""``hlox.jit``: JAX functions compiled and run by hlox.

JAX traces and lowers the function (the ``HloModuleProto`` it would hand
XLA); hlox compiles that module and runs it. One compiled executable per
input signature (the pytree structure, each leaf's shape and dtype, the
static arguments), as ``jax.jit`` caches.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from . import _hlox


def _jax():
    try:
        import jax  # noqa: F401
    except ImportError as e:  # pragma: no cover - exercised only without jax
        raise ImportError(
            "hlox.jit needs JAX to trace and lower the function: pip install jax "
            "(or pip install 'hlox[jax]'); the rest of hlox works without it"
        ) from e
    return jax


class Jitted:
    """A function compiled by hlox per input signature (see :func:`jit`)."""

    def __init__(self, fn: Callable, static_argnums: Sequence[int], platform: str):
        jax = _jax()
        self._fn = fn
        self._static = tuple(sorted(int(i) for i in static_argnums))
        self._platform = platform
        self._jax = jax
        self._flatten = jax.tree_util.tree_flatten
        self._unflatten = jax.tree_util.tree_unflatten
        self._jitted = jax.jit(fn, static_argnums=self._static, keep_unused=True)
        self._cache: dict[Any, tuple[_hlox.Executable, Any, bool]] = {}
        self._fast: dict[Any, tuple[_hlox.Executable, Any, bool]] = {}
        self._leaf_tree = jax.tree_util.tree_structure(0)
        # dtype -> the dtype JAX computes it in (float64 -> float32 unless
        # jax_enable_x64), as jax.jit converts its arguments.
        self._canonical: dict[Any, Any] = {}
        self.__wrapped__ = fn
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__name__ = getattr(fn, "__name__", "jitted")

    def _split(self, args: tuple) -> tuple[tuple, list]:
        if not self._static:
            return (), list(args)
        for i in self._static:
            if i >= len(args):
                raise TypeError(
                    f"hlox.jit({self.__name__}): static_argnums has {i} but the call has "
                    f"{len(args)} positional arguments"
                )
        static = tuple(args[i] for i in self._static)
        dynamic = [a for i, a in enumerate(args) if i not in self._static]
        return static, dynamic

    def _canon(self, dtype: Any) -> Any:
        c = self._canonical.get(dtype)
        if c is None:
            c = self._canonical[dtype] = np.dtype(self._jax.dtypes.canonicalize_dtype(dtype))
        return c

    def _leaf(self, x: Any) -> Any:
        if not (hasattr(x, "shape") and hasattr(x, "dtype")):
            # Python scalars and lists: the dtype JAX gives them.
            x = np.asarray(x)
        if isinstance(x, np.ndarray) or np.isscalar(x):
            # float64/int64 become float32/int32 unless x64 is on, as in
            # jax.jit (the module JAX lowers takes the narrower type).
            want = self._canon(x.dtype)
            if want != x.dtype:
                return np.asarray(x).astype(want)
        return x

    def lower(self, *args: Any) -> _hlox.Module:
        """The hlox Module JAX produces for these arguments (the
        ``HloModuleProto`` of ``jax.jit(fn).lower(*args)``)."""
        lowered = self._jitted.lower(*args)
        proto = lowered.compiler_ir("hlo").as_serialized_hlo_module_proto()
        return _hlox.Module.from_proto(proto)

    def _compile(self, args: tuple) -> tuple[_hlox.Executable, Any, bool]:
        lowered = self._jitted.lower(*args)
        proto = lowered.compiler_ir("hlo").as_serialized_hlo_module_proto()
        module = _hlox.Module.from_proto(proto)
        exe = _hlox.compile(module, platform=self._platform)
        out_tree = lowered.out_tree
        # A bare array out: no pytree to rebuild (the fast path returns it).
        bare = out_tree == self._leaf_tree
        return exe, out_tree, bare

    def _finish(self, hit: tuple[_hlox.Executable, Any, bool], leaves: Sequence[Any]) -> Any:
        exe, out_tree, bare = hit
        out = exe(*leaves)
        if bare:
            return out
        outs = list(out) if isinstance(out, tuple) else [out]
        return self._unflatten(out_tree, outs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(
                f"hlox.jit({self.__name__}): keyword arguments are not supported; pass them "
                "positionally"
            )
        # Fast path: positional numpy arrays of the dtypes JAX computes in
        # (no pytree to flatten, nothing to convert).
        if not self._static:
            try:
                key = tuple([(a.shape, a.dtype) for a in args if type(a) is np.ndarray])
            except AttributeError:  # pragma: no cover - ndarray always has both
                key = None
            if key is not None and len(key) == len(args):
                hit = self._fast.get(key)
                if hit is not None:
                    return self._finish(hit, args)
                if all(self._canon(d) == d for _, d in key):
                    hit = self._compile(args)
                    self._fast[key] = hit
                    return self._finish(hit, args)
        static, dynamic = self._split(args)
        leaves, treedef = self._flatten(dynamic)
        leaves = [self._leaf(x) for x in leaves]
        key = (static, treedef, tuple((x.shape, x.dtype) for x in leaves))
        hit = self._cache.get(key)
        if hit is None:
            hit = self._compile(args)
            self._cache[key] = hit
        return self._finish(hit, leaves)

    def cache_size(self) -> int:
        """How many input signatures have been compiled."""
        return len(self._cache) + len(self._fast)

    def __repr__(self) -> str:
        return f"<hlox.jit {self.__name__}: {self.cache_size()} compiled signature(s)>"


def jit(fn: Callable | None = None, *, static_argnums: int | Sequence[int] = (), platform: str = "cpu") -> Any:
    """Compile a JAX function with hlox.

    On the first call for each input signature, ``fn`` is lowered with JAX
    (the HloModuleProto ``jax.jit(fn).lower(*args)`` produces), compiled by
    hlox and cached. Pytrees in and out as JAX does; results are numpy
    arrays. ``f.lower(*args)`` returns the hlox Module. Needs JAX.

    >>> f = hlox.jit(lambda x, y: {"sum": x + y, "prod": x * y})
    >>> f(np.ones(3, np.float32), np.ones(3, np.float32))["sum"]
    array([2., 2., 2.], dtype=float32)
    """
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if fn is None:
        return lambda f: Jitted(f, static_argnums, platform)
    return Jitted(fn, static_argnums, platform)
