"""Type stubs for hlox (the native part is hlox._hlox; see docs/python.md)."""

from __future__ import annotations

import os
from typing import Any, Callable, NamedTuple, Sequence, TypeVar, overload

import numpy as np
import numpy.typing as npt

__version__: str

_F = TypeVar("_F", bound=Callable[..., Any])
_R = TypeVar("_R", bound=Callable[[CallInfo], Module])

# ---------------------------------------------------------------- errors

class Error(Exception):
    """Base class of every hlox error."""

class ParseError(Error):
    """HLO text or a serialized HloModuleProto that does not parse."""

    line: int | None
    column: int | None

class VerifyError(Error):
    """A module that parses but is not valid HLO."""

class CompileError(Error):
    """Compiling failed; ``missing`` lists (target, closest registered names)."""

    missing: list[tuple[str, list[str]]]

class ExecError(Error):
    """A run failed: wrong arguments (naming the parameter) or a failure while running."""

class CustomCallError(ExecError):
    """A custom-call target reported a failure."""

    target: str
    message: str

class TransformError(Error):
    """grad, vjp, jvp or vmap could not transform the module.

    A Python rule function's own exception is the ``__cause__``."""

    #: "grad", "vjp", "jvp" or "vmap"
    transform: str
    #: the instruction that could not be transformed (None for argument errors)
    instruction: str | None
    #: its opcode ("custom-call" for custom calls)
    opcode: str | None
    #: the custom call's target, for missing or unfit rules
    target: str | None

# ---------------------------------------------------------------- modules

class Shape:
    """An HLO shape: an array (element type, dimensions) or a tuple."""

    @staticmethod
    def array(dtype: str | npt.DTypeLike, dims: Sequence[int]) -> Shape:
        """``Shape.array("f32", (128,))``: an HLO name or a numpy dtype."""
    @staticmethod
    def tuple(elements: Sequence[Shape]) -> Shape: ...
    @staticmethod
    def token() -> Shape: ...
    @property
    def dtype(self) -> str | None:
        """The HLO element type name ("f32"); None for tuples and tokens."""
    @property
    def numpy_dtype(self) -> np.dtype[Any] | None: ...
    @property
    def dims(self) -> tuple[int, ...]: ...
    @property
    def is_tuple(self) -> bool: ...
    @property
    def elements(self) -> list[Shape]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Module:
    """A verified HLO module."""

    @staticmethod
    def from_text(text: str) -> Module:
        """Parse and verify HLO text (raises ParseError, VerifyError)."""
    @staticmethod
    def from_proto(data: bytes) -> Module:
        """Decode and verify a serialized HloModuleProto."""
    def to_text(self) -> str: ...
    def to_proto(self) -> bytes: ...
    @property
    def name(self) -> str: ...
    @property
    def parameter_shapes(self) -> list[Shape]: ...
    @property
    def result_shape(self) -> Shape: ...

def load(path: str | os.PathLike[str]) -> Module:
    """Read HLO text, or a serialized HloModuleProto (``.pb``), and verify it."""

# ---------------------------------------------------------------- compile and run

class Executable:
    """A compiled module; call it with arrays. Thread-safe; the GIL is released while it runs."""

    def __call__(self, *args: Any) -> Any:
        """numpy arrays (or ``__dlpack__`` objects) in; a numpy array, or a tuple of
        them (the result's leaves in order) for a tuple result."""
    def hlo_text(self) -> str:
        """The module after hlox's HLO passes."""
    @property
    def name(self) -> str: ...
    @property
    def platform(self) -> str: ...
    @property
    def parameter_shapes(self) -> list[Shape]: ...
    @property
    def result_shape(self) -> Shape: ...
    @property
    def devices(self) -> int:
        """The number of devices a call runs on (``devices=`` of compile)."""

def compile(
    module: Module,
    platform: str = "cpu",
    plugins: Sequence[str | os.PathLike[str]] = (),
    opt_level: int = 3,
    sandbox: bool = False,
    check_results: bool = False,
    repro_dir: str | os.PathLike[str] | None = None,
    devices: int = 1,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Executable:
    """Compile for "cpu" or "cuda" (CUDA compiles without a GPU; running needs one).

    ``devices=N`` (CPU only) runs an SPMD program written by JAX for N
    devices (``shard_map``, ``pmap``, collectives) on N Host devices of this
    process; the executable takes and returns the global arrays, as
    ``jax.jit`` does (docs/multi-device.md).

    ``sandbox=True`` (CPU only) runs every custom call in hlox's sandbox: a
    fault or C++ exception in a target raises CustomCallError naming it;
    ``check_results`` fails on NaN/Inf or untouched results; ``repro_dir``
    writes a reproducer of a failing call (docs/reliability.md).

    ``cache_dir`` (CPU only) keeps the compiled code in that directory and
    loads it from there when the same module is compiled again, in this
    process or another (default: ``HLOX_CACHE_DIR``; docs/performance.md)."""

# ---------------------------------------------------------------- builder

class Op:
    """An op of a Builder. ``+ - * / @`` and unary ``-`` build more ops; a
    Python or numpy scalar operand becomes a constant of the op's type."""

    @property
    def shape(self) -> Shape: ...
    def __add__(self, other: Op | float | int) -> Op: ...
    def __radd__(self, other: float | int) -> Op: ...
    def __sub__(self, other: Op | float | int) -> Op: ...
    def __rsub__(self, other: float | int) -> Op: ...
    def __mul__(self, other: Op | float | int) -> Op: ...
    def __rmul__(self, other: float | int) -> Op: ...
    def __truediv__(self, other: Op | float | int) -> Op: ...
    def __rtruediv__(self, other: float | int) -> Op: ...
    def __matmul__(self, other: Op) -> Op: ...
    def __neg__(self) -> Op: ...

class Builder:
    """XLA's XlaBuilder: build one computation op by op, then ``build(root)``."""

    def __init__(self, name: str) -> None: ...
    @property
    def name(self) -> str: ...
    def parameter(self, number: int, shape: Shape, name: str | None = None) -> Op: ...
    def constant(self, value: Any, dtype: str | npt.DTypeLike | None = None) -> Op: ...
    def get_shape(self, op: Op) -> Shape: ...
    def add(self, a: Op, b: Op) -> Op: ...
    def sub(self, a: Op, b: Op) -> Op: ...
    def mul(self, a: Op, b: Op) -> Op: ...
    def div(self, a: Op, b: Op) -> Op: ...
    def rem(self, a: Op, b: Op) -> Op: ...
    def pow(self, a: Op, b: Op) -> Op: ...
    def max(self, a: Op, b: Op) -> Op: ...
    def min(self, a: Op, b: Op) -> Op: ...
    def and_(self, a: Op, b: Op) -> Op: ...
    def or_(self, a: Op, b: Op) -> Op: ...
    def atan2(self, a: Op, b: Op) -> Op: ...
    def neg(self, x: Op) -> Op: ...
    def abs(self, x: Op) -> Op: ...
    def exp(self, x: Op) -> Op: ...
    def log(self, x: Op) -> Op: ...
    def tanh(self, x: Op) -> Op: ...
    def sqrt(self, x: Op) -> Op: ...
    def rsqrt(self, x: Op) -> Op: ...
    def logistic(self, x: Op) -> Op: ...
    def sin(self, x: Op) -> Op: ...
    def cos(self, x: Op) -> Op: ...
    def floor(self, x: Op) -> Op: ...
    def ceil(self, x: Op) -> Op: ...
    def sign(self, x: Op) -> Op: ...
    def not_(self, x: Op) -> Op: ...
    def expm1(self, x: Op) -> Op: ...
    def log1p(self, x: Op) -> Op: ...
    def is_finite(self, x: Op) -> Op: ...
    def dot(self, a: Op, b: Op) -> Op: ...
    def dot_general(
        self,
        lhs: Op,
        rhs: Op,
        lhs_contracting_dims: Sequence[int],
        rhs_contracting_dims: Sequence[int],
        lhs_batch_dims: Sequence[int] = (),
        rhs_batch_dims: Sequence[int] = (),
    ) -> Op: ...
    def compare(self, lhs: Op, rhs: Op, direction: str) -> Op:
        """direction: "EQ", "NE", "LT", "LE", "GT", "GE"."""
    def select(self, pred: Op, on_true: Op, on_false: Op) -> Op: ...
    def clamp(self, min: Op, x: Op, max: Op) -> Op: ...
    def convert(self, x: Op, dtype: str | npt.DTypeLike) -> Op: ...
    def broadcast_in_dim(self, x: Op, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Op: ...
    def reshape(self, x: Op, shape: Sequence[int]) -> Op: ...
    def transpose(self, x: Op, permutation: Sequence[int]) -> Op: ...
    def slice(self, x: Op, start: Sequence[int], limit: Sequence[int], strides: Sequence[int] | None = None) -> Op: ...
    def concatenate(self, operands: Sequence[Op], dimension: int) -> Op: ...
    def iota(self, shape: Shape, dimension: int) -> Op: ...
    def reduce(self, operand: Op, init: Op, computation: Module, dimensions: Sequence[int]) -> Op: ...
    def while_loop(self, condition: Module, body: Module, init: Op) -> Op: ...
    def conditional(
        self, pred: Op, true_operand: Op, true_computation: Module, false_operand: Op, false_computation: Module
    ) -> Op: ...
    def call(self, computation: Module, operands: Sequence[Op]) -> Op: ...
    def tuple(self, elements: Sequence[Op]) -> Op: ...
    def get_tuple_element(self, tuple: Op, index: int) -> Op: ...
    def custom_call(
        self,
        target: str,
        operands: Sequence[Op],
        shape: Shape,
        opaque: bytes = b"",
        has_side_effect: bool = False,
        output_operand_aliasing: Sequence[tuple[Sequence[int], int, Sequence[int]]] = (),
        api_version: int = 1,
    ) -> Op: ...
    def build(self, root: Op) -> Module: ...

# ---------------------------------------------------------------- targets

class TargetInfo(NamedTuple):
    name: str
    platform: str
    api_version: int | None
    origin: str

def register_ffi_target(name: str, fn: Any, platform: str = "cpu", api_version: int = 4, **kwargs: Any) -> None:
    """Register a C function (PyCapsule, ctypes function, dict of stages) as a target."""

def custom_call_target(name: str, platform: str = "cpu") -> Callable[[_F], _F]:
    """Register a Python function as a typed-FFI target (decorator)."""

def load_plugin(path: str | os.PathLike[str]) -> None:
    """Load a custom-call plugin library into the global registry."""

def targets() -> list[TargetInfo]:
    """Every registered target: name, platform, api_version, origin."""

# ---------------------------------------------------------------- transformations

class CallInfo:
    """The custom call a rule function builds a rule for."""

    @property
    def target(self) -> str: ...
    @property
    def operands(self) -> list[Shape]:
        """The operands' shapes."""
    @property
    def result(self) -> Shape:
        """The call's result shape."""
    @property
    def opaque(self) -> bytes:
        """The call's opaque bytes (backend_config)."""

class Rules:
    """Custom-call rules: jvp and vjp rules (HLO modules or Python functions
    building them with Builder) and vmap methods, keyed by target name."""

    def __init__(self) -> None: ...
    @staticmethod
    def from_module(module: Module) -> Rules:
        """The computations named ``jvp.TARGET`` / ``vjp.TARGET`` of ``module``."""
    @staticmethod
    def from_text(text: str) -> Rules:
        """``Rules.from_module(Module.from_text(text))``."""
    def merge_module(self, module: Module) -> None: ...
    def merge(self, other: Rules) -> None: ...
    @overload
    def jvp(self, target: str, fn: _R) -> _R:
        """The rule takes (operands..., operand tangents...) and returns (result, result tangent)."""
    @overload
    def jvp(self, target: str, fn: None = None) -> Callable[[_R], _R]: ...
    @overload
    def vjp(self, target: str, fn: _R) -> _R:
        """The rule takes (operands..., result cotangents...) and returns the tuple of operand cotangents."""
    @overload
    def vjp(self, target: str, fn: None = None) -> Callable[[_R], _R]: ...
    @overload
    def vmap(self, target: str, fn: _R) -> _R:
        """The rule takes the operands batched in front and returns the result batched in front."""
    @overload
    def vmap(self, target: str, fn: None = None) -> Callable[[_R], _R]: ...
    def vmap_method(self, target: str, method: str) -> None:
        """"sequential", "expand_dims" or "broadcast_all"."""
    def entries(self) -> list[tuple[str, str, str]]:
        """(kind, target, origin) of every rule."""

def grad(module: Module, wrt: int | Sequence[int] = 0, *, rules: Rules | None = None) -> Module:
    """Gradients of the scalar result: takes module's parameters, returns the tuple of gradients."""

def vjp(module: Module, wrt: int | Sequence[int] = 0, *, rules: Rules | None = None) -> Module:
    """Takes module's parameters, then one cotangent per result leaf; returns the wrt cotangents."""

def jvp(module: Module, wrt: int | Sequence[int] = 0, *, rules: Rules | None = None) -> Module:
    """Takes module's parameters, then one tangent per wrt parameter; returns (results..., tangents...)."""

def vmap(
    module: Module, in_axes: int | None | Sequence[int | None], size: int, *, rules: Rules | None = None
) -> Module:
    """Parameter i batched at in_axes[i] (None: unbatched); every result leaf batched at axis 0, in a tuple."""

# ---------------------------------------------------------------- jax

class Jitted:
    def __call__(self, *args: Any) -> Any: ...
    def lower(self, *args: Any) -> Module: ...
    def cache_size(self) -> int: ...

@overload
def jit(fn: Callable[..., Any], *, static_argnums: int | Sequence[int] = (), platform: str = "cpu") -> Jitted: ...
@overload
def jit(
    fn: None = None, *, static_argnums: int | Sequence[int] = (), platform: str = "cpu"
) -> Callable[[Callable[..., Any]], Jitted]: ...
