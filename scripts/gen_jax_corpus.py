#!/usr/bin/env python3
"""Generate hlox's JAX conformance corpus.

Every case is a small JAX program. For each one this script writes, under
``<out>/<name>/``:

* ``module.hlo``  -- ``jax.jit(f).lower(*args).as_text(dialect="hlo")``
* ``module.pb``   -- ``...compiler_ir("hlo").as_serialized_hlo_module_proto()``
* ``inN.npy``     -- the inputs (seeded numpy RNG, deterministic)
* ``outN.npy``    -- JAX's outputs (pytree leaves, flattened in order), or for
                     custom-call cases the numpy-computed expected outputs
* ``meta.json``   -- name, description, dtypes/shapes, tolerances, opcodes, ...

bf16 arrays are stored as raw 2-byte void dtype ``V2`` (numpy has no bf16).

Usage::

    python scripts/gen_jax_corpus.py [--out tests/corpus] [--only NAME ...]

Cases marked ``x64`` are generated in a subprocess of this script with
``jax_enable_x64`` turned on, so the other cases are unaffected.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

REPO = Path(__file__).resolve().parent.parent
X64_WORKER_FLAG = "--x64-worker"

# The x64 flag must be set before any JAX computation happens.
_IS_X64_WORKER = X64_WORKER_FLAG in sys.argv

import jax  # noqa: E402

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_enable_x64", _IS_X64_WORKER)
# Keep absolute paths of this checkout out of the serialized protos' metadata.
jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")

import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
from jax import lax  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)

# --------------------------------------------------------------------------
# dtype helpers
# --------------------------------------------------------------------------

_HLO_DTYPE = {
    np.dtype(np.bool_): "pred",
    np.dtype(np.int8): "s8",
    np.dtype(np.int16): "s16",
    np.dtype(np.int32): "s32",
    np.dtype(np.int64): "s64",
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.uint64): "u64",
    np.dtype(np.float16): "f16",
    BF16: "bf16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.complex64): "c64",
    np.dtype(np.complex128): "c128",
}


def hlo_dtype(dt) -> str:
    dt = np.dtype(dt)
    if dt not in _HLO_DTYPE:
        raise ValueError(f"dtype {dt} has no hlox element type")
    return _HLO_DTYPE[dt]


# Suggested tolerances per output element type: (rtol, atol).
BASE_TOL = {
    "pred": (0.0, 0.0),
    "s8": (0.0, 0.0),
    "s16": (0.0, 0.0),
    "s32": (0.0, 0.0),
    "s64": (0.0, 0.0),
    "u8": (0.0, 0.0),
    "u16": (0.0, 0.0),
    "u32": (0.0, 0.0),
    "u64": (0.0, 0.0),
    "f16": (1e-2, 1e-2),
    "bf16": (1e-2, 1e-2),
    "f32": (1e-5, 1e-5),
    "f64": (1e-12, 1e-12),
    "c64": (1e-5, 1e-5),
    "c128": (1e-12, 1e-12),
}
TRANSCENDENTAL_TOL = {"f32": (1e-4, 1e-4), "f64": (1e-10, 1e-10), "f16": (2e-2, 2e-2), "bf16": (2e-2, 2e-2),
                      "c64": (1e-4, 1e-4), "c128": (1e-10, 1e-10)}


def save_npy(path: Path, arr) -> None:
    arr = np.asarray(arr)
    if arr.dtype == BF16:
        arr = arr.view("V2")
    np.save(path, arr, allow_pickle=False)


# --------------------------------------------------------------------------
# case registry
# --------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    description: str
    build: Callable  # rng -> (f, args) or (f, args, expected_fn)
    x64: bool = False
    transcendental: bool = False
    tol: dict = field(default_factory=dict)  # dtype -> (rtol, atol) overrides
    custom_call_targets: list = field(default_factory=list)


CASES: dict[str, Case] = {}


def case(name, description, *, x64=False, transcendental=False, tol=None, custom_call_targets=None):
    def deco(build):
        if name in CASES:
            raise ValueError(f"duplicate case {name}")
        CASES[name] = Case(
            name,
            description,
            build,
            x64=x64,
            transcendental=transcendental,
            tol=tol or {},
            custom_call_targets=list(custom_call_targets or []),
        )
        return build

    return deco


def f32(rng, *shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def normal(rng, *shape, dtype=np.float32, scale=1.0):
    return (rng.standard_normal(size=shape) * scale).astype(dtype)


def ints(rng, dtype, *shape, lo=None, hi=None):
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return rng.integers(lo, hi, size=shape, endpoint=True, dtype=dtype)


SPECIAL_F32 = np.array(
    [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5,
     np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e30, -1e30, 3.4e38,
     0.49999997, -0.49999997, 7.0, 1e-7, 100.25, -100.75, 2.0**24 + 2, 12345.5],
    dtype=np.float32,
)

# ==========================================================================
# Elementwise math
# ==========================================================================


@case("unary_math_f32", "every unary transcendental/math function on f32", transcendental=True)
def _(rng):
    x = f32(rng, 64, lo=-3.0, hi=3.0)
    p = f32(rng, 64, lo=0.01, hi=10.0)
    t = f32(rng, 64, lo=-1.4, hi=1.4)

    def f(x, p, t):
        return {
            "exp": jnp.exp(x),
            "expm1": jnp.expm1(x),
            "log": jnp.log(p),
            "log1p": jnp.log1p(p),
            "sqrt": jnp.sqrt(p),
            "rsqrt": lax.rsqrt(p),
            "cbrt": jnp.cbrt(x),
            "tanh": jnp.tanh(x),
            "logistic": jax.nn.sigmoid(x),
            "sin": jnp.sin(x),
            "cos": jnp.cos(x),
            "tan": jnp.tan(t),
            "erf": lax.erf(x),
            "neg": -x,
        }

    return f, [x, p, t]


@case("rounding_sign_f32", "floor/ceil/round (even and away-from-zero)/sign/abs/is_finite on special values")
def _(rng):
    x = np.concatenate([SPECIAL_F32, f32(rng, 36, lo=-10, hi=10)])

    def f(x):
        return (
            jnp.floor(x),
            jnp.ceil(x),
            lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
            lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
            lax.sign(x),
            jnp.abs(x),
            jnp.isfinite(x),
        )

    return f, [x]


@case("binary_math_f32", "atan2, pow, fmod remainder, divide, max/min incl. NaN/inf/signed-zero operands", transcendental=True)
def _(rng):
    a = np.concatenate([SPECIAL_F32, f32(rng, 36, lo=-5, hi=5)])
    b = np.concatenate([SPECIAL_F32[::-1].copy(), f32(rng, 36, lo=-5, hi=5)])

    def f(a, b):
        return (
            jnp.arctan2(a, b),
            lax.pow(a, b),
            lax.rem(a, b),
            a / b,
            lax.max(a, b),
            lax.min(a, b),
            a - b,
        )

    return f, [a, b]


@case("pow_edge_f32", "pow with negative bases and integral exponents, zeros and infinities", transcendental=True)
def _(rng):
    base = np.array([-2, -2, -2, -8, 0, 0, -0.0, 2, 0.5, np.inf, -np.inf, np.nan, 1, 1, -1, 3], np.float32)
    expo = np.array([3, 2, 0.5, 1 / 3, 0, -1, -1, 10, -3, -1, 3, 0, np.nan, np.inf, np.inf, 2.5], np.float32)

    def f(b, e):
        return lax.pow(b, e)

    return f, [base, expo]


@case("elementwise_chain", "a fused-looking elementwise chain mixing arithmetic and transcendentals", transcendental=True)
def _(rng):
    x = f32(rng, 16, 16)
    y = f32(rng, 16, 16, lo=0.1, hi=2.0)

    def f(x, y):
        z = x * y + jnp.sin(x) - jnp.exp(-y)
        z = z / (1.0 + jnp.abs(z))
        return jnp.tanh(z) * 2.0 + jnp.sqrt(y) * x - jnp.maximum(z, 0.1)

    return f, [x, y]


@case("gelu_silu_softplus", "activation functions (gelu exact/approx, silu, softplus, relu6, elu)", transcendental=True)
def _(rng):
    x = f32(rng, 128, lo=-6, hi=6)

    def f(x):
        return (
            jax.nn.gelu(x, approximate=False),
            jax.nn.gelu(x, approximate=True),
            jax.nn.silu(x),
            jax.nn.softplus(x),
            jax.nn.relu6(x),
            jax.nn.elu(x),
        )

    return f, [x]


@case("sinh_cosh", "sinh and cosh (chlo.sinh/chlo.cosh in StableHLO) on f32 and f16, small and large arguments",
      transcendental=True)
def _(rng):
    # |x| < 1 takes sinh's expm1 form, |x| >= 1 the exponentials; +-80
    # overflows f32 through e^(x + log 1/2) at 89.
    x = np.concatenate([f32(rng, 48, lo=-1, hi=1), f32(rng, 48, lo=-12, hi=12),
                        np.array([0.0, -0.0, 1.0, -1.0, 1e-6, -3e-8, 80.0, -80.0, 89.5, -89.5], np.float32)])
    h = f32(rng, 64, lo=-6, hi=6).astype(np.float16)

    def f(x, h):
        return jnp.sinh(x), jnp.cosh(x), jnp.sinh(h), jnp.cosh(h)

    return f, [x, h]


def _gamma_inputs(rng, dtype):
    # Lanczos's side (x >= 0.5), the reflection's (x < 0.5, negative
    # non-integers), the poles (0 and negative integers), large arguments
    # and infinities.
    x = np.concatenate([rng.uniform(0.5, 12, 40), rng.uniform(-8, 0.5, 40), rng.uniform(12, 1e4, 8),
                        [0.0, -1.0, -2.0, -7.0, 1.0, 2.0, 0.5, 1e-7, -1e-7, np.inf, -np.inf, 3e30]])
    return x.astype(dtype)


@case("lgamma_digamma", "lgamma and digamma (chlo.lgamma/chlo.digamma in StableHLO) on f32 and f16, "
      "both sides of the reflection, poles and infinities", transcendental=True)
def _(rng):
    x = _gamma_inputs(rng, np.float32)
    h = rng.uniform(-4, 8, 32).astype(np.float16)

    def f(x, h):
        return lax.lgamma(x), lax.digamma(x), lax.lgamma(h), lax.digamma(h)

    return f, [x, h]


@case("lgamma_digamma_f64", "lgamma and digamma on f64 (x64)", x64=True, transcendental=True)
def _(rng):
    x = _gamma_inputs(rng, np.float64)

    def f(x):
        return lax.lgamma(x), lax.digamma(x)

    return f, [x]


@case("sinh_cosh_f64", "sinh and cosh on f64 (x64)", x64=True, transcendental=True)
def _(rng):
    x = np.concatenate([rng.uniform(-1, 1, 40), rng.uniform(-30, 30, 40), [0.0, 1.0, -1.0, 1e-12, 700.0, -700.0]])

    def f(x):
        return jnp.sinh(x), jnp.cosh(x)

    return f, [x]


@case("erf_inv_erfc_f64", "erf_inv and erfc on f64 (x64): erf_inv's three polynomials (w = -log1p(-x^2) "
      "below 6.25, below 16, above), +-1; erfc's |x| < 1, below 8, above, its underflow, infinities; "
      "jax.random.normal in f64 (erf_inv of uniform bits)", x64=True, transcendental=True)
def _(rng):
    near_one = 1.0 - np.array([1e-3, 1e-5, 1e-6, 1e-8, 1e-10, 1e-13, 1e-15])
    x = np.concatenate([rng.uniform(-0.999, 0.999, 40), near_one, -near_one, [0.0, 1.0, -1.0, 0.5, -1e-9]])
    y = np.concatenate([rng.uniform(-1, 1, 20), rng.uniform(1, 8, 20), rng.uniform(8, 30, 10), -rng.uniform(1, 10, 10),
                        [0.0, 1.0, 8.0, 26.5, 27.0, -27.0, np.inf, -np.inf]])
    key = np.array([0, 42], np.uint32)

    def f(x, y, key):
        return lax.erf_inv(x), lax.erfc(y), jax.random.normal(jax.random.wrap_key_data(key, impl="threefry2x32"), (64,), jnp.float64)

    return f, [x, y, key]


# ==========================================================================
# Integers and bits
# ==========================================================================


def _int_ops_case(dtype):
    dtype = np.dtype(dtype)
    bits = dtype.itemsize * 8
    signed = np.issubdtype(dtype, np.signedinteger)

    def build(rng):
        a = ints(rng, dtype, 48)
        b = ints(rng, dtype, 48)
        b[b == 0] = 1
        # a few fixed edge values
        info = np.iinfo(dtype)
        a[:6] = [info.min, info.max, 0, 1, info.max, info.min]
        b[:6] = [1 if not signed else -1, 2, 3, info.max, info.max, 7 if not signed else -7]
        s = rng.integers(0, bits + 3, size=48).astype(dtype)
        s[:4] = [0, bits - 1, bits, bits + 1]
        if signed:
            s[4] = -1  # negative shift amount: out of range when read as unsigned

        def f(a, b, s):
            out = {
                "add": a + b,
                "sub": a - b,
                "mul": a * b,
                "div": lax.div(a, b),
                "rem": lax.rem(a, b),
                "max": lax.max(a, b),
                "min": lax.min(a, b),
                "and": a & b,
                "or": a | b,
                "xor": a ^ b,
                "not": ~a,
                "shl": lax.shift_left(a, s),
                "shr_logical": lax.shift_right_logical(a, s),
                "shr_arith": lax.shift_right_arithmetic(a, s),
                "popcnt": lax.population_count(a),
                "clz": lax.clz(a),
                "lt": a < b,
                "ge": a >= b,
            }
            if signed:
                out["neg"] = -a
                out["abs"] = lax.abs(a)
                out["sign"] = lax.sign(a)
            return out

        return f, [a, b, s]

    return build


for _dt, _x64 in [
    (np.int8, False),
    (np.uint8, False),
    (np.int16, False),
    (np.uint16, False),
    (np.int32, False),
    (np.uint32, False),
    (np.int64, True),
    (np.uint64, True),
]:
    _n = hlo_dtype(_dt)
    case(
        f"int_ops_{_n}",
        f"{_n}: add/sub/mul (wrapping), div/rem (truncating), and/or/xor/not, 3 shifts incl. out-of-range amounts, popcnt, clz, compare",
        x64=_x64,
    )(_int_ops_case(_dt))


@case("int_div_edge", "integer div/rem by zero, INT_MIN/-1 and negative operands (XLA-defined results)")
def _(rng):
    a = np.array([7, -7, 7, -7, -(2**31), -(2**31), 5, -5, 0, 13, -13], np.int32)
    b = np.array([2, 2, -2, -2, -1, 1, 0, 0, 0, 5, 5], np.int32)
    ua = np.array([7, 0, 4294967295, 5, 100], np.uint32)
    ub = np.array([0, 0, 2, 3, 0], np.uint32)
    sa = np.array([-128, -128, 100, -100, 3], np.int8)
    sb = np.array([-1, 0, 0, 7, -2], np.int8)

    def f(a, b, ua, ub, sa, sb):
        return (lax.div(a, b), lax.rem(a, b), lax.div(ua, ub), lax.rem(ua, ub), lax.div(sa, sb), lax.rem(sa, sb),
                a // jnp.where(b == 0, 1, b), a % jnp.where(b == 0, 1, b))

    return f, [a, b, ua, ub, sa, sb]


@case("integer_pow", "lax.integer_pow (multiply chains) on f32 and s32, and jnp.power on ints")
def _(rng):
    x = f32(rng, 32, lo=-2, hi=2)
    i = ints(rng, np.int32, 32, lo=-9, hi=9)
    e = ints(rng, np.int32, 32, lo=0, hi=6)

    def f(x, i, e):
        return (
            lax.integer_pow(x, 0),
            lax.integer_pow(x, 3),
            lax.integer_pow(x, -2),
            lax.integer_pow(x, 7),
            lax.integer_pow(i, 2),
            lax.integer_pow(i, 5),
            jnp.power(i, e),
            lax.pow(x, e),  # float base, integer exponent
        )

    return f, [x, i, e]


@case("pred_logic", "and/or/xor/not on pred, select on pred masks, any/all")
def _(rng):
    p = rng.random(40) < 0.5
    q = rng.random(40) < 0.5
    x = f32(rng, 40)

    def f(p, q, x):
        return (p & q, p | q, p ^ q, ~p, jnp.where(p ^ q, x, -x), jnp.any(p & q), jnp.all(p | q))

    return f, [p, q, x]


# ==========================================================================
# Compare / select / clamp / convert
# ==========================================================================


@case("compare_select_clamp", "all six comparison directions on f32 (with NaN) and s32, select, clamp")
def _(rng):
    a = np.concatenate([SPECIAL_F32[:16], f32(rng, 16, lo=-3, hi=3)])
    b = np.concatenate([SPECIAL_F32[16:28], SPECIAL_F32[:4], f32(rng, 16, lo=-3, hi=3)])
    i = ints(rng, np.int32, 32, lo=-50, hi=50)
    j = ints(rng, np.int32, 32, lo=-50, hi=50)
    lo = f32(rng, 32, lo=-1, hi=0)

    def f(a, b, i, j, lo):
        cmps_f = [a == b, a != b, a < b, a <= b, a > b, a >= b]
        cmps_i = [i == j, i != j, i < j, i <= j, i > j, i >= j]
        return (
            *cmps_f,
            *cmps_i,
            lax.select(a < b, a, b),
            jnp.where(i > j, i, j * 2),
            lax.clamp(lo, a, 1.0 + lo),
            lax.clamp(np.float32(-0.5), a, np.float32(0.5)),
            lax.clamp(np.int32(-10), i, np.int32(10)),
        )

    return f, [a, b, i, j, lo]


@case("convert_many", "convert between f32/f16/bf16/s8/s16/s32/u8/u16/u32/pred with in-range values")
def _(rng):
    x = f32(rng, 32, lo=-100, hi=100)
    y = f32(rng, 32, lo=0, hi=200)
    i = ints(rng, np.int32, 32, lo=-70000, hi=70000)
    u = ints(rng, np.uint8, 32)
    p = rng.random(32) < 0.5
    h = f32(rng, 32, lo=-8, hi=8).astype(np.float16)
    bf = f32(rng, 32, lo=-8, hi=8).astype(BF16)

    def c(v, t):
        return lax.convert_element_type(v, t)

    def f(x, y, i, u, p, h, bf):
        return (
            c(x, jnp.int32), c(x, jnp.int8), c(x, jnp.int16), c(x, jnp.float16), c(x, jnp.bfloat16), c(x, jnp.bool_),
            c(y, jnp.uint8), c(y, jnp.uint16), c(y, jnp.uint32),
            c(i, jnp.float32), c(i, jnp.float16), c(i, jnp.int8), c(i, jnp.uint32), c(i, jnp.int16), c(i, jnp.uint8),
            c(u, jnp.int32), c(u, jnp.float32), c(u, jnp.int8),
            c(p, jnp.float32), c(p, jnp.int32),
            c(h, jnp.float32), c(h, jnp.bfloat16), c(h, jnp.int32),
            c(bf, jnp.float32), c(bf, jnp.float16), c(bf, jnp.int16),
        )

    return f, [x, y, i, u, p, h, bf]


@case("convert_saturate", "float->int converts of NaN/inf/out-of-range values, f32->f16 overflow/underflow, f32->bf16 rounding")
def _(rng):
    x = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 3e9, -3e9, 300.0, -300.0, 70000.0, -70000.0,
                  2.5, -2.5, 0.99, -0.99, 2147483520.0, 65519.0, 65520.0, 1e-8, 6e-8, 3e-5, -0.0,
                  1.00390625, 1.01171875, 1.0078125, 3.3895314e38], np.float32)

    def c(v, t):
        return lax.convert_element_type(v, t)

    def f(x):
        return (c(x, jnp.int32), c(x, jnp.uint32), c(x, jnp.int8), c(x, jnp.uint8), c(x, jnp.int16),
                c(x, jnp.uint16), c(x, jnp.float16), c(x, jnp.bfloat16))

    return f, [x]


@case("bitcast_convert", "bitcast-convert f32<->s32/u32, f32->u8[...,4], s32->f16[...,2], f16<->s16, bf16<->u16")
def _(rng):
    x = np.concatenate([SPECIAL_F32[:12], f32(rng, 4)])
    i = ints(rng, np.int32, 16)
    h = f32(rng, 16, lo=-4, hi=4).astype(np.float16)
    bf = f32(rng, 16, lo=-4, hi=4).astype(BF16)
    b8 = ints(rng, np.uint8, 4, 4)

    def bc(v, t):
        return lax.bitcast_convert_type(v, t)

    def f(x, i, h, bf, b8):
        return (bc(x, jnp.int32), bc(x, jnp.uint32), bc(x, jnp.uint8), bc(i, jnp.float32), bc(i, jnp.float16),
                bc(h, jnp.int16), bc(bf, jnp.uint16), bc(bc(bf, jnp.uint16), jnp.bfloat16), bc(b8, jnp.float32))

    return f, [x, i, h, bf, b8]


@case("reduce_precision", "lax.reduce_precision to bf16/f16/e4m3/e2m1-like formats incl. denormals/inf/nan")
def _(rng):
    x = np.concatenate([SPECIAL_F32, f32(rng, 20, lo=-300, hi=300), normal(rng, 16, scale=1e-3)])

    def f(x):
        return tuple(lax.reduce_precision(x, exponent_bits=e, mantissa_bits=m) for e, m in [(8, 7), (5, 10), (4, 3), (2, 1), (8, 23)])

    return f, [x]


# ==========================================================================
# Low-precision floats
# ==========================================================================


# bf16/f16 results match XLA bit for bit (docs/numerics.md); f32 results of
# dots differ in the summation order.
@case("f16_arith", "f16 arithmetic, transcendentals, reduction and dot", transcendental=True,
      tol={"f16": (0.0, 0.0)})
def _(rng):
    a = f32(rng, 8, 16, lo=-2, hi=2).astype(np.float16)
    b = f32(rng, 16, 8, lo=-2, hi=2).astype(np.float16)

    def f(a, b):
        return (a * 1.5 + a, a / (jnp.abs(a) + 1), jnp.exp(a), jnp.tanh(a), jnp.sum(a, axis=1), a @ b, jnp.max(a, axis=0))

    return f, [a, b]


@case("bf16_arith", "bf16 arithmetic, transcendentals, reduction, dot and dot with f32 accumulation", transcendental=True,
      tol={"bf16": (0.0, 0.0)})
def _(rng):
    a = f32(rng, 8, 16, lo=-2, hi=2).astype(BF16)
    b = f32(rng, 16, 8, lo=-2, hi=2).astype(BF16)

    def f(a, b):
        return (
            a * 1.5 + a,
            a / (jnp.abs(a) + 1),
            jnp.exp(a),
            jax.nn.sigmoid(a),
            jnp.sum(a, axis=1),
            a @ b,
            lax.dot(a, b, preferred_element_type=jnp.float32),
        )

    return f, [a, b]


@case("bf16_excess_precision",
      "XLA's default bf16 numerics (xla_allow_excess_precision): a convert to f32 of a bf16 "
      "arithmetic result reads it unrounded; reshapes, explicit convert pairs, bf16 chains and f16 round",
      transcendental=True, tol={"bf16": (0.0, 0.0), "f16": (0.0, 0.0), "f32": (0.0, 0.0)})
def _(rng):
    x = f32(rng, 8, 16, lo=-2, hi=2)
    y = f32(rng, 8, 16, lo=-2, hi=2)
    w = f32(rng, 16, 4, lo=-2, hi=2)

    @jax.jit
    def inner(a, b):  # a nested jit: a `call` in the HLO, inlined by XLA
        return a * b + a

    def f(x, y, w):
        a, b, k = x.astype(BF16), y.astype(BF16), w.astype(BF16)
        h, g = x.astype(jnp.float16), y.astype(jnp.float16)
        p = a * b
        return (
            (a + b).astype(jnp.float32),            # unrounded
            p.astype(jnp.float32),                   # unrounded, and p is also used rounded:
            p - a,                                   # bf16 (p rounded)
            (p * b).astype(jnp.float32),             # unrounded; its operand p rounded
            (a / (jnp.abs(b) + 1)).astype(jnp.float32),
            (a @ k).astype(jnp.float32),             # dot unrounded
            p.reshape(16, 8).astype(jnp.float32),    # rounded: a reshape in between
            x.astype(BF16).astype(jnp.float32) * 3,  # the program's own round trip: rounded
            inner(a, b).astype(jnp.float32),         # through a call
            (h * g + h).astype(jnp.float32),         # f16: rounded
            h * g,                                   # f16
        )

    return f, [x, y, w]


# ==========================================================================
# Shapes and data movement
# ==========================================================================


@case("iota_arange", "iota via jnp.arange / broadcasted_iota / linspace / eye / tri")
def _(rng):
    x = f32(rng, 4, 6)

    def f(x):
        return (
            jnp.arange(10, dtype=jnp.int32),
            jnp.arange(2, 20, 3, dtype=jnp.float32),
            lax.broadcasted_iota(jnp.int32, (3, 5), 1),
            lax.broadcasted_iota(jnp.uint8, (3, 5), 0),
            jnp.linspace(0.0, 1.0, 7, dtype=jnp.float32),
            jnp.eye(4, dtype=jnp.float32),
            jnp.tril(x),
            x + jnp.arange(6, dtype=jnp.float32),
        )

    return f, [x]


@case("shape_ops", "broadcast_in_dim, reshape, transpose, reverse, slice with strides, squeeze/expand_dims")
def _(rng):
    x = f32(rng, 2, 3, 4)
    v = f32(rng, 5)

    def f(x, v):
        return (
            lax.broadcast_in_dim(v, (3, 5, 2), (1,)),
            jnp.reshape(x, (4, 6)),
            jnp.transpose(x, (2, 0, 1)),
            lax.rev(x, (0, 2)),
            lax.slice(x, (0, 1, 0), (2, 3, 4), (1, 1, 3)),
            x[:, ::2, 1::2],
            x[::-1, :, 1:3],
            jnp.expand_dims(v, 0) * 2,
            jnp.squeeze(x[:, :1, :], 1),
        )

    return f, [x, v]


@case("dynamic_slice", "dynamic_slice with in-range, negative and out-of-range (clamped) start indices")
def _(rng):
    x = f32(rng, 8, 10)
    starts = np.array([2, 3, -1, 9, 100, -100], np.int32)

    def f(x, s):
        return (
            lax.dynamic_slice(x, (s[0], s[1]), (3, 4)),
            lax.dynamic_slice(x, (s[2], s[0]), (2, 5)),
            lax.dynamic_slice(x, (s[3], s[3]), (4, 4)),
            lax.dynamic_slice(x, (s[4], s[5]), (5, 6)),
            lax.dynamic_slice_in_dim(x, s[1], 2, axis=1),
        )

    return f, [x, starts]


@case("dynamic_update_slice", "dynamic_update_slice with in-range and out-of-range (clamped) starts")
def _(rng):
    x = f32(rng, 6, 7)
    u = f32(rng, 2, 3, lo=5, hi=6)
    starts = np.array([1, 2, 5, 6, -4, 50], np.int32)

    def f(x, u, s):
        return (
            lax.dynamic_update_slice(x, u, (s[0], s[1])),
            lax.dynamic_update_slice(x, u, (s[2], s[3])),
            lax.dynamic_update_slice(x, u, (s[4], s[5])),
        )

    return f, [x, u, starts]


@case("concatenate", "concatenate along several dims and of many operands")
def _(rng):
    a = f32(rng, 2, 3)
    b = f32(rng, 2, 5)
    c = f32(rng, 4, 3)
    i = ints(rng, np.int32, 3, lo=-9, hi=9)

    def f(a, b, c, i):
        return (jnp.concatenate([a, b, a], axis=1), jnp.concatenate([a, c], axis=0), jnp.concatenate([i, i * 2, i[::-1]]), jnp.stack([a, a * 2]))

    return f, [a, b, c, i]


@case("pad", "lax.pad with positive, negative and interior padding; jnp.pad constant")
def _(rng):
    x = f32(rng, 4, 5)
    i = ints(rng, np.int32, 6, lo=-9, hi=9)

    def f(x, i):
        return (
            lax.pad(x, np.float32(0), [(1, 2, 0), (0, 3, 0)]),
            lax.pad(x, np.float32(-1), [(-1, 1, 1), (2, -2, 2)]),
            lax.pad(x, np.float32(7), [(0, 0, 3), (-2, -1, 0)]),
            lax.pad(i, np.int32(99), [(-2, 4, 1)]),
            jnp.pad(x, ((1, 1), (2, 0))),
        )

    return f, [x, i]


# ==========================================================================
# Reductions
# ==========================================================================


@case("reduce_ops", "reduce sum/prod/max/min/and/or over various axes and dtypes")
def _(rng):
    x = f32(rng, 4, 5, 6)
    i = ints(rng, np.int32, 4, 6, lo=-100, hi=100)
    p = rng.random((3, 8)) < 0.7

    def f(x, i, p):
        return (
            jnp.sum(x),
            jnp.sum(x, axis=(0, 2)),
            jnp.prod(x, axis=1),
            jnp.max(x, axis=2),
            jnp.min(x, axis=0),
            jnp.mean(x, axis=-1),
            jnp.sum(i, axis=1),
            jnp.max(i, axis=0),
            jnp.all(p, axis=1),
            jnp.any(p, axis=0),
        )

    return f, [x, i, p]


@case("argmax_argmin", "argmax/argmin lowered to variadic reduce (value, index), with ties and NaN")
def _(rng):
    x = f32(rng, 6, 9)
    x[1, 3] = np.nan
    x[2, :] = 0.5  # all ties
    i = ints(rng, np.int32, 5, 7, lo=-3, hi=3)

    def f(x, i):
        return (jnp.argmax(x, axis=1), jnp.argmin(x, axis=0), jnp.argmax(i, axis=0), jnp.argmin(i, axis=1), jnp.argmax(x))

    return f, [x, i]


@case("cumulative", "cumsum/cumprod/cummax/cummin (reduce-window), reverse cumsum, explicit reduce_window prefix sum")
def _(rng):
    x = f32(rng, 4, 12)
    i = ints(rng, np.int32, 16, lo=-5, hi=5)

    def f(x, i):
        pref = lax.reduce_window(x, np.float32(0), lax.add, (1, 12), (1, 1), [(0, 0), (11, 0)])
        return (
            jnp.cumsum(x, axis=1),
            jnp.cumprod(x, axis=0),
            lax.cummax(x, axis=1),
            lax.cummin(x, axis=1, reverse=True),
            lax.cumsum(x, axis=1, reverse=True),
            jnp.cumsum(i),
            pref,
        )

    return f, [x, i]


@case("softmax", "jax.nn.softmax / log_softmax over last axis", transcendental=True)
def _(rng):
    x = normal(rng, 8, 32, scale=3.0)

    def f(x):
        return jax.nn.softmax(x, axis=-1), jax.nn.log_softmax(x, axis=-1)

    return f, [x]


@case("logsumexp", "jax.nn.logsumexp incl. rows with -inf entries", transcendental=True)
def _(rng):
    x = normal(rng, 6, 20, scale=5.0)
    x[2, :5] = -np.inf

    def f(x):
        return jax.nn.logsumexp(x, axis=1), jax.nn.logsumexp(x)

    return f, [x]


@case("layernorm", "layer normalization with scale and bias", transcendental=True)
def _(rng):
    x = normal(rng, 8, 32)
    g = f32(rng, 32, lo=0.5, hi=1.5)
    b = f32(rng, 32)

    def f(x, g, b):
        mu = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mu), axis=-1, keepdims=True)
        return (x - mu) * lax.rsqrt(var + 1e-5) * g + b

    return f, [x, g, b]


# ==========================================================================
# Linear algebra / networks
# ==========================================================================


@case("einsum_batch", "dot_general with batch dims and multiple contracting dims via einsum")
def _(rng):
    a = f32(rng, 3, 4, 5)
    b = f32(rng, 3, 5, 6)
    q = f32(rng, 2, 2, 4, 8)
    k = f32(rng, 2, 2, 6, 8)
    u = f32(rng, 4, 7)
    v = f32(rng, 4, 7)

    def f(a, b, q, k, u, v):
        return (
            jnp.einsum("bij,bjk->bik", a, b),
            jnp.einsum("bhqd,bhkd->bhqk", q, k),
            jnp.einsum("ij,ij->", u, v),
            jnp.einsum("bi,bi->b", u, v),
            jnp.einsum("i,j->ij", u[0], v[1]),
            jnp.einsum("bij->jb", a),
            jnp.einsum("bij,cjk->bick", a, b),
        )

    return f, [a, b, q, k, u, v]


@case("dot_variants", "matmul, matvec, vec-vec, precision=HIGHEST, s8 x s8 -> s32 preferred type, s32 dot")
def _(rng):
    a = f32(rng, 8, 12)
    b = f32(rng, 12, 5)
    v = f32(rng, 12)
    i = ints(rng, np.int8, 6, 10)
    j = ints(rng, np.int8, 10, 4)
    m = ints(rng, np.int32, 3, 4, lo=-100, hi=100)
    n = ints(rng, np.int32, 4, 2, lo=-100, hi=100)

    def f(a, b, v, i, j, m, n):
        return (
            a @ b,
            a @ v,
            v @ v,
            jnp.dot(a, b, precision=lax.Precision.HIGHEST),
            lax.dot(i, j, preferred_element_type=jnp.int32),
            m @ n,
        )

    return f, [a, b, v, i, j, m, n]


def _mlp_params(rng):
    return {
        "w1": normal(rng, 16, 32, scale=0.3),
        "b1": normal(rng, 32, scale=0.1),
        "w2": normal(rng, 32, 4, scale=0.3),
        "b2": normal(rng, 4, scale=0.1),
    }


def _mlp(params, x):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    h = jnp.tanh(h)
    return h @ params["w2"] + params["b2"]


@case("mlp_forward", "2-layer MLP forward pass (dot, add, relu=max, tanh)", transcendental=True)
def _(rng):
    p = _mlp_params(rng)
    x = normal(rng, 8, 16)
    return (lambda w1, b1, w2, b2, x: _mlp(dict(w1=w1, b1=b1, w2=w2, b2=b2), x)), [p["w1"], p["b1"], p["w2"], p["b2"], x]


@case("mlp_grad", "value_and_grad of an MLP MSE loss: grads as a dict pytree (sorted keys)", transcendental=True)
def _(rng):
    p = _mlp_params(rng)
    x = normal(rng, 8, 16)
    y = normal(rng, 8, 4)

    def loss(params, x, y):
        return jnp.mean(jnp.square(_mlp(params, x) - y))

    def f(w1, b1, w2, b2, x, y):
        return jax.value_and_grad(loss)(dict(w1=w1, b1=b1, w2=w2, b2=b2), x, y)

    return f, [p["w1"], p["b1"], p["w2"], p["b2"], x, y]


@case("attention", "multi-head causal self-attention (einsum, softmax, iota mask, select)", transcendental=True)
def _(rng):
    x = normal(rng, 2, 8, 16)
    wq = normal(rng, 16, 16, scale=0.25)
    wk = normal(rng, 16, 16, scale=0.25)
    wv = normal(rng, 16, 16, scale=0.25)
    wo = normal(rng, 16, 16, scale=0.25)

    def f(x, wq, wk, wv, wo):
        B, T, D = x.shape
        H = 4

        def heads(w):
            return (x @ w).reshape(B, T, H, D // H).transpose(0, 2, 1, 3)

        q, k, v = heads(wq), heads(wk), heads(wv)
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(D // H).astype(np.float32)
        mask = jnp.tril(jnp.ones((T, T), dtype=bool))
        s = jnp.where(mask, s, -1e9)
        p = jax.nn.softmax(s, axis=-1)
        o = jnp.einsum("bhqk,bhkd->bhqd", p, v).transpose(0, 2, 1, 3).reshape(B, T, D)
        return o @ wo

    return f, [x, wq, wk, wv, wo]


# ==========================================================================
# Control flow
# ==========================================================================


@case("scan_rnn", "lax.scan of a tanh RNN cell (while loop with tuple state, dynamic-slice/update-slice)", transcendental=True)
def _(rng):
    xs = normal(rng, 10, 4)
    h0 = np.zeros(8, np.float32)
    w = normal(rng, 8, 8, scale=0.3)
    u = normal(rng, 4, 8, scale=0.3)

    def f(xs, h0, w, u):
        def cell(h, x):
            h = jnp.tanh(h @ w + x @ u)
            return h, h.sum()

        return lax.scan(cell, h0, xs)

    return f, [xs, h0, w, u]


@case("while_loops", "fori_loop with a traced trip count and a data-dependent while_loop (Newton sqrt)")
def _(rng):
    x = f32(rng, 8, lo=1.0, hi=50.0)
    n = np.array(7, np.int32)

    def f(x, n):
        acc = lax.fori_loop(0, n, lambda i, a: a * 0.5 + i.astype(jnp.float32), jnp.zeros_like(x))

        def cond(s):
            y, it = s
            return jnp.logical_and(jnp.max(jnp.abs(y * y - x)) > 1e-3, it < 50)

        def body(s):
            y, it = s
            return 0.5 * (y + x / y), it + 1

        y, it = lax.while_loop(cond, body, (x, np.int32(0)))
        return acc, y, it

    return f, [x, n]


@case("fori_static", "fori_loop with static bounds (lowered via scan) accumulating a matrix power")
def _(rng):
    m = normal(rng, 4, 4, scale=0.4)

    def f(m):
        return lax.fori_loop(0, 5, lambda i, a: a @ m + jnp.eye(4, dtype=jnp.float32) * i, jnp.eye(4, dtype=jnp.float32))

    return f, [m]


@case("cond", "lax.cond with a pred operand (conditional with two branches), both outcomes", transcendental=True)
def _(rng):
    x = f32(rng, 10)
    p = np.array([True, False])

    def f(p, x):
        br = lambda b: lax.cond(b, lambda v: (jnp.sin(v), v.sum()), lambda v: (jnp.cos(v) * 2, v.max()), x)  # noqa: E731
        return br(p[0]), br(p[1])

    return f, [p, x]


@case("switch", "lax.switch with 3 branches and in-range, too-large and negative indices (clamped)")
def _(rng):
    x = f32(rng, 6)
    idx = np.array([1, 7, -2, 2], np.int32)

    def f(idx, x):
        branches = [lambda v: v + 1, lambda v: v * v, lambda v: -v]
        return tuple(lax.switch(idx[k], branches, x) for k in range(4))

    return f, [idx, x]


@case("nested_call", "nested jit (HLO call instruction) invoked twice")
def _(rng):
    x = f32(rng, 12)

    @jax.jit
    def inner(v):
        return jnp.sin(v) * 2 + 1

    def f(x):
        return inner(x) + inner(x * 3)

    return f, [x]


@case("vmap_map", "vmap of a per-example function and lax.map (a scan)")
def _(rng):
    xs = f32(rng, 5, 6)
    w = f32(rng, 6, 3)

    def per_example(v, w):
        return jnp.tanh(v @ w) + jnp.max(v)

    def f(xs, w):
        return jax.vmap(per_example, in_axes=(0, None))(xs, w), lax.map(lambda v: jnp.sort(v)[::-1], xs)

    return f, [xs, w]


@case("opt_barrier", "lax.optimization_barrier on a tuple, and checkpoint (remat) gradient", transcendental=True)
def _(rng):
    x = f32(rng, 16)
    y = f32(rng, 16)

    def f(x, y):
        a, b = lax.optimization_barrier((x * 2, y + 1))
        g = jax.grad(lambda v: jax.checkpoint(lambda z: jnp.sin(jnp.sin(z)))(v).sum())(x)
        return a * b, g

    return f, [x, y]


# ==========================================================================
# Gather / scatter / sort
# ==========================================================================


@case("embedding_gather", "embedding lookup table[idx] (gather) with negative and out-of-bounds indices, take_along_axis")
def _(rng):
    table = f32(rng, 50, 16)
    idx = ints(rng, np.int32, 4, 6, lo=0, hi=49)
    idx[0, 0] = -1
    idx[1, 1] = 55
    x = f32(rng, 5, 7)
    ta = ints(rng, np.int32, 5, 3, lo=0, hi=6)

    def f(table, idx, x, ta):
        return table[idx], jnp.take_along_axis(x, ta, axis=1), x[:, jnp.array([0, 2, 2, 6])], x[ta[:, 0], ta[:, 1]]

    return f, [table, idx, x, ta]


@case("embedding_grad", "gradient of an embedding lookup (scatter-add with duplicate indices)")
def _(rng):
    table = f32(rng, 20, 8)
    idx = ints(rng, np.int32, 12, lo=0, hi=19)
    idx[:3] = 4  # duplicates
    w = f32(rng, 12, 8)

    def f(table, idx, w):
        return jax.grad(lambda t: jnp.sum(jnp.tanh(t[idx]) * w))(table)

    return f, [table, idx, w]


@case("scatter_ops", "x.at[idx].add/set/max/min/mul incl. duplicates and dropped out-of-bounds updates, 2-D row scatter")
def _(rng):
    x = f32(rng, 20)
    idx = np.array([3, 3, 7, 19, 25, 0, 7, 12], np.int32)
    uidx = np.array([1, 5, 9, 30, 2], np.int32)
    upd = f32(rng, 8, lo=-2, hi=2)
    m = f32(rng, 6, 5)
    rows = np.array([4, 1, 4], np.int32)
    rupd = f32(rng, 3, 5)

    def f(x, idx, uidx, upd, m, rows, rupd):
        return (
            x.at[idx].add(upd),
            x.at[uidx].set(upd[:5]),
            x.at[idx].max(upd),
            x.at[idx].min(upd),
            x.at[idx].multiply(upd),
            m.at[rows].add(rupd),
            m.at[2, 1:4].set(9.0),
        )

    return f, [x, idx, uidx, upd, m, rows, rupd]


@case("sort", "jnp.sort (with NaN and -0.0), descending, multi-operand lax.sort, stable argsort with ties")
def _(rng):
    x = f32(rng, 4, 16)
    x[0, 3] = np.nan
    x[1, 2] = -0.0
    x[1, 5] = 0.0
    keys = ints(rng, np.int32, 20, lo=0, hi=5)
    vals = f32(rng, 20)

    def f(x, keys, vals):
        return (
            jnp.sort(x, axis=1),
            jnp.sort(x, axis=0, descending=True),
            lax.sort((keys, vals), num_keys=1),
            jnp.argsort(keys, stable=True),
            jnp.argsort(x[2], descending=True),
        )

    return f, [x, keys, vals]


@case("top_k", "lax.top_k (HLO topk) on rows")
def _(rng):
    x = f32(rng, 5, 20)

    def f(x):
        return lax.top_k(x, 4)

    return f, [x]


# ==========================================================================
# Convolution and pooling
# ==========================================================================


def _conv(x, k):
    return lax.conv_general_dilated(
        x, k, window_strides=(2, 1), padding=((1, 2), (0, 1)), lhs_dilation=(1, 1), rhs_dilation=(1, 2),
        dimension_numbers=("NCHW", "OIHW", "NCHW"), feature_group_count=2,
    )


@case("conv2d", "conv_general_dilated NCHW with strides, asymmetric padding, rhs dilation, feature groups")
def _(rng):
    x = f32(rng, 2, 4, 9, 10)
    k = f32(rng, 6, 2, 3, 3)
    return _conv, [x, k]


@case("conv2d_nhwc", "conv_general_dilated NHWC/HWIO with SAME padding, and a 1-D transposed conv (lhs dilation)")
def _(rng):
    x = f32(rng, 2, 7, 7, 3)
    k = f32(rng, 3, 3, 3, 5)
    y = f32(rng, 2, 9, 4)
    k1 = f32(rng, 3, 4, 2)

    def f(x, k, y, k1):
        a = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        b = lax.conv_transpose(y, k1, (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"))
        return a, b

    return f, [x, k, y, k1]


@case("conv2d_grad", "gradient of the grouped/dilated/strided conv w.r.t. input and kernel")
def _(rng):
    x = f32(rng, 2, 4, 9, 10)
    k = f32(rng, 6, 2, 3, 3)

    def f(x, k):
        return jax.grad(lambda x, k: jnp.sum(jnp.square(_conv(x, k))), argnums=(0, 1))(x, k)

    return f, [x, k]


@case("pooling", "max pool and avg pool (reduce-window with strides and padding)")
def _(rng):
    x = f32(rng, 2, 8, 8, 3)

    def f(x):
        mx = lax.reduce_window(x, -np.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
        sm = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        dil = lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), [(0, 0), (1, 0), (0, 1), (0, 0)],
                                base_dilation=(1, 2, 1, 1), window_dilation=(1, 1, 2, 1))
        return mx, sm / 4.0, dil

    return f, [x]


@case("maxpool_grad", "gradient of max pooling (select-and-scatter)")
def _(rng):
    x = f32(rng, 2, 8, 8, 3)

    def f(x):
        return jax.grad(lambda v: jnp.sum(lax.reduce_window(v, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") ** 2))(x)

    return f, [x]


# ==========================================================================
# Random numbers
# ==========================================================================


@case("random_threefry", "jax.random (threefry2x32, pure HLO) uniform/normal/randint/bernoulli/split/fold_in", transcendental=True)
def _(rng):
    kd = np.array([0, 42], np.uint32)

    def f(kd):
        key = jax.random.wrap_key_data(kd, impl="threefry2x32")
        k1, k2, k3 = jax.random.split(key, 3)
        return (
            jax.random.uniform(k1, (16,)),
            jax.random.normal(k2, (4, 4)),
            jax.random.randint(k3, (10,), -5, 5),
            jax.random.bernoulli(jax.random.fold_in(key, 7), 0.3, (12,)),
            jax.random.key_data(k1),
        )

    return f, [kd]


@case("random_rbg", "jax.random with impl='rbg' (rng-bit-generator, default algorithm) uniform/normal/bits", transcendental=True)
def _(rng):
    kd = np.array([1, 2, 3, 4], np.uint32)

    def f(kd):
        key = jax.random.wrap_key_data(kd, impl="rbg")
        return jax.random.uniform(key, (16,)), jax.random.normal(key, (8,)), jax.random.bits(key, (6,), jnp.uint32)

    return f, [kd]


@case("rng_bit_generator", "lax.rng_bit_generator with the THREE_FRY, PHILOX and DEFAULT algorithms, u32/u8 outputs")
def _(rng):
    key = np.array([7, 0, 123456789, 3], np.uint32)

    def f(key):
        out = []
        for alg in [lax.RandomAlgorithm.RNG_THREE_FRY, lax.RandomAlgorithm.RNG_PHILOX, lax.RandomAlgorithm.RNG_DEFAULT]:
            k2, bits = lax.rng_bit_generator(key, (3, 5), dtype=jnp.uint32, algorithm=alg)
            out += [k2, bits]
        out.append(lax.rng_bit_generator(key, (9,), dtype=jnp.uint8, algorithm=lax.RandomAlgorithm.RNG_PHILOX)[1])
        return tuple(out)

    return f, [key]


# ==========================================================================
# Odd shapes and outputs
# ==========================================================================


@case("pytree_outputs", "nested dict/tuple/list outputs; leaves flattened in pytree order (checked against the HLO result tuple)")
def _(rng):
    x = f32(rng, 3)
    i = ints(rng, np.int32, 2, lo=-5, hi=5)

    def f(x, i):
        return {"b": (x * 2, [i + 1, {"z": x.sum(), "a": i * i}]), "a": (x - 1,), "c": i > 0}

    return f, [x, i]


@case("zero_sized", "zero-element arrays through elementwise, reduce (identity), concatenate, dot, transpose")
def _(rng):
    x = np.zeros((0, 4), np.float32)
    y = np.zeros((3, 0), np.float32)
    w = f32(rng, 4, 5)
    z = f32(rng, 2, 4)

    def f(x, y, w, z):
        return (x * 2 + 1, jnp.sum(x, axis=0), lax.reduce(x, -np.inf, lax.max, (0,)), x @ w, y.T, jnp.concatenate([x, z], axis=0), y @ jnp.zeros((0, 2), jnp.float32))

    return f, [x, y, w, z]


@case("scalars", "scalar (rank-0) inputs and outputs of several dtypes", transcendental=True)
def _(rng):
    a = np.array(1.75, np.float32)
    b = np.array(-3, np.int32)
    c = np.array(True)

    def f(a, b, c):
        return a * b, jnp.sin(a), jnp.where(c, b, -b), b // 2, a > 1

    return f, [a, b, c]


@case("identity_and_constants", "outputs that are inputs / constants of several shapes")
def _(rng):
    x = f32(rng, 3, 2)

    def f(x):
        return x, jnp.full((2, 2), 3.5, jnp.float32), jnp.array([1, 2, 3], jnp.int32), x

    return f, [x]


# ==========================================================================
# Opcodes JAX never emits by itself: tiny custom primitives whose lowering
# rules emit the StableHLO op directly. XLA still compiles and runs them, so
# the expected outputs are XLA's.
# ==========================================================================


def _direct_primitives():
    from jax._src import core as jcore
    from jax._src.lib.mlir import ir
    from jax._src.lib.mlir.dialects import hlo
    from jax.extend.core import Primitive
    from jax.interpreters import mlir

    def same_aval(x, *_):
        return jcore.ShapedArray(x.shape, x.dtype)

    logistic = Primitive("hlox_logistic")  # jax.nn.sigmoid lowers to 1/(1+exp(-x))
    logistic.def_abstract_eval(same_aval)
    mlir.register_lowering(logistic, lambda ctx, x: [hlo.logistic(x)])

    # map(x, y) with to_apply = sin(a) + a*b
    mapp = Primitive("hlox_map")
    mapp.def_abstract_eval(same_aval)

    def map_lowering(ctx, x, y):
        t = ir.RankedTensorType(x.type)
        st = ir.RankedTensorType.get([], t.element_type)
        op = hlo.MapOp(t, [x, y], mlir.dense_int_array(list(range(t.rank))))
        blk = op.computation.blocks.append(st, st)
        with ir.InsertionPoint(blk):
            a, b = blk.arguments
            hlo.return_([hlo.add(hlo.sine(a), hlo.multiply(a, b))])
        return op.results

    mlir.register_lowering(mapp, map_lowering)

    # after-all tokens threaded through an opt-barrier with the data
    token_barrier = Primitive("hlox_token_barrier")
    token_barrier.def_abstract_eval(same_aval)

    def token_lowering(ctx, x):
        tok = hlo.after_all([])
        tok2 = hlo.after_all([tok, tok])
        return [hlo.OptimizationBarrierOp([x, tok2]).results[0]]

    mlir.register_lowering(token_barrier, token_lowering)
    return logistic, mapp, token_barrier


_LOGISTIC_P, _MAP_P, _TOKEN_BARRIER_P = _direct_primitives()


@case("direct_hlo_ops", "opcodes JAX does not emit on its own, via custom primitives lowering straight to StableHLO: "
      "logistic, map (2 operands, 2-D), after-all tokens through opt-barrier", transcendental=True)
def _(rng):
    x = f32(rng, 40, lo=-8, hi=8)
    a = f32(rng, 4, 5, lo=-3, hi=3)
    b = f32(rng, 4, 5, lo=-3, hi=3)
    h = f32(rng, 8, lo=-4, hi=4).astype(np.float16)

    def f(x, a, b, h):
        return _LOGISTIC_P.bind(x), _LOGISTIC_P.bind(h), _MAP_P.bind(a, b), _TOKEN_BARRIER_P.bind(x) * 2

    return f, [x, a, b, h]


# ==========================================================================
# 64-bit (x64 subprocess)
# ==========================================================================


@case("f64_math", "f64 unary/binary math (x64)", x64=True, transcendental=True)
def _(rng):
    x = rng.uniform(-3, 3, 40)
    p = rng.uniform(0.01, 10, 40)

    def f(x, p):
        return (jnp.exp(x), jnp.log(p), jnp.sqrt(p), jnp.tanh(x), jnp.sin(x), jnp.cos(x), jnp.arctan2(x, p), lax.pow(p, x),
                jnp.floor(x * 3), lax.round(x * 3, lax.RoundingMethod.TO_NEAREST_EVEN), x * p - x / p, jnp.expm1(x), jnp.log1p(p))

    return f, [x, p]


@case("f64_linalg", "f64 dot, cumsum, reduce, sort and argmax (s64 index) (x64)", x64=True)
def _(rng):
    a = rng.standard_normal((6, 8))
    b = rng.standard_normal((8, 3))
    k = rng.integers(-(2**40), 2**40, size=12, dtype=np.int64)

    def f(a, b, k):
        return a @ b, jnp.cumsum(a, axis=1), jnp.sum(a, axis=0), jnp.sort(k), jnp.argmax(a, axis=1), jnp.arange(5)

    return f, [a, b, k]


# ==========================================================================
# Linear algebra: JAX lowers it to jaxlib's LAPACK custom calls
# (lapack_*_ffi), which hlox provides (crates/hlox-jaxlib). Eigenvectors and
# singular vectors are unique only up to sign, so those cases return
# sign-invariant functions of them (reconstructions, V^T V, |v|).
# ==========================================================================

LINALG_TOL = {"f32": (2e-4, 2e-4), "f64": (1e-9, 1e-9)}


def _spd(rng, n, batch=(), dtype=np.float32):
    a = rng.standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def _well_conditioned(rng, n, batch=(), dtype=np.float32):
    return (rng.standard_normal(batch + (n, n)) + 3 * np.eye(n)).astype(dtype)


@case("linalg_lu_solve", "LU (getrf) and what JAX builds on it: lu, solve, inv, det, slogdet, batched",
      tol=LINALG_TOL, custom_call_targets=["lapack_sgetrf_ffi", "lapack_strsm_ffi"])
def _(rng):
    a = _well_conditioned(rng, 4, (2,))
    b = normal(rng, 2, 4, 3)
    wide = normal(rng, 3, 5)

    def f(a, b, wide):
        lu, piv, perm = lax.linalg.lu(a)
        lw, pw, _ = lax.linalg.lu(wide)
        sign, logdet = jnp.linalg.slogdet(a)
        return lu, piv, perm, lw, pw, jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a), sign, logdet

    return f, [a, b, wide]


@case("linalg_cholesky_triangular", "Cholesky (potrf, both triangles), cho_solve, a non-positive-definite input (NaNs), every triangular_solve variant (trsm)",
      tol=LINALG_TOL, custom_call_targets=["lapack_spotrf_ffi", "lapack_strsm_ffi"])
def _(rng):
    spd = _spd(rng, 5, (2,))
    bad = np.array([[1.0, 2.0], [2.0, 1.0]], np.float32)
    b = normal(rng, 2, 5, 2)
    t = _well_conditioned(rng, 4)
    bl = normal(rng, 4, 3)
    br = normal(rng, 3, 4)

    def f(spd, bad, b, t, bl, br):
        outs = [jnp.linalg.cholesky(spd), jnp.linalg.cholesky(spd, upper=True),
                jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(spd), b), jnp.linalg.cholesky(bad)]
        for left in (True, False):
            for lower in (True, False):
                for transpose_a in (False, True):
                    for unit in (False, True):
                        outs.append(lax.linalg.triangular_solve(
                            t, bl if left else br, left_side=left, lower=lower,
                            transpose_a=transpose_a, unit_diagonal=unit))
        return outs

    return f, [spd, bad, b, t, bl, br]


@case("linalg_qr", "Householder QR (geqrf + orgqr): reduced and complete, tall, wide and batched; QR with column pivoting (geqp3)",
      tol=LINALG_TOL, custom_call_targets=["lapack_sgeqp3_ffi", "lapack_sgeqrf_ffi", "lapack_sorgqr_ffi"])
def _(rng):
    tall = normal(rng, 2, 6, 4)
    wide = normal(rng, 3, 5)
    piv = normal(rng, 5, 4)

    def f(tall, wide, piv):
        q, r = jnp.linalg.qr(tall)
        qc, rc = jnp.linalg.qr(tall, mode="complete")
        qw, rw = jnp.linalg.qr(wide)
        qp, rp, p = jax.scipy.linalg.qr(piv, pivoting=True)
        return q, r, qc, rc, qw, rw, qp, rp, p

    return f, [tall, wide, piv]


@case("linalg_eigh", "symmetric eigendecomposition (syevd): eigenvalues, reconstruction and |V| (sign-free), both triangles, eigvalsh, batched",
      tol=LINALG_TOL, custom_call_targets=["lapack_ssyevd_ffi"])
def _(rng):
    a = normal(rng, 2, 5, 5)
    a = a + np.swapaxes(a, -1, -2)

    def f(a):
        w, v = jnp.linalg.eigh(a)
        wu, vu = jnp.linalg.eigh(a, UPLO="U")
        back = (v * w[..., None, :]) @ jnp.swapaxes(v, -1, -2)
        return w, back, jnp.abs(v), wu, jnp.abs(vu), jnp.linalg.eigvalsh(a), jnp.swapaxes(v, -1, -2) @ v

    return f, [a]


@case("linalg_svd", "singular value decomposition (gesdd, gesvd): values, reconstructions and |U|, |V^T| (sign-free), full and thin, tall, wide and batched; pinv, lstsq, matrix_rank, 2-norm",
      tol=LINALG_TOL, custom_call_targets=["lapack_sgesdd_ffi", "lapack_sgesvd_ffi"])
def _(rng):
    tall = normal(rng, 2, 6, 4)
    wide = normal(rng, 3, 5)
    b = normal(rng, 6)

    def f(tall, wide, b):
        u, s, vt = jnp.linalg.svd(tall, full_matrices=False)
        uf, sf, vtf = jnp.linalg.svd(tall, full_matrices=True)
        uw, sw, vtw = jnp.linalg.svd(wide, full_matrices=True)
        uq, sq, vtq = lax.linalg.svd(wide, full_matrices=False, algorithm=lax.linalg.SvdAlgorithm.QR)
        recon = (u * s[..., None, :]) @ vt
        reconw = (uw[:, :3] * sw) @ vtw[:3]
        eye_u = jnp.swapaxes(uf, -1, -2) @ uf
        eye_v = vtw @ vtw.T
        return (s, recon, jnp.abs(u), jnp.abs(vt), sf, eye_u, sw, reconw, eye_v, sq, (uq * sq) @ vtq,
                jnp.linalg.svd(wide, compute_uv=False), jnp.linalg.pinv(tall[0]),
                jnp.linalg.lstsq(tall[0], b)[0], jnp.linalg.matrix_rank(tall[0]), jnp.linalg.norm(wide, ord=2))

    return f, [tall, wide, b]


@case("linalg_values_only", "decompositions whose vectors are dropped, so hlox asks the LAPACK targets for none: "
      "eigvalsh alone (syevd, batched; heevd), svd(...)[1] (gesdd A), eig(...)[0] (geev V, sorted), |T| of schur (gees V; T is unique up to signs)",
      tol=LINALG_TOL, custom_call_targets=["lapack_ssyevd_ffi", "lapack_cheevd_ffi", "lapack_sgesdd_ffi",
                                           "lapack_sgeev_ffi", "lapack_sgees_ffi"])
def _(rng):
    a = normal(rng, 3, 6, 6)
    a = a + np.swapaxes(a, -1, -2)
    h = cplx(rng, np.complex64, 4, 4)
    h = (h + np.conj(h.T)).astype(np.complex64)
    g = normal(rng, 5, 7)
    e = normal(rng, 5, 5)

    def f(a, h, g, e):
        return (jnp.linalg.eigvalsh(a), jnp.linalg.eigvalsh(h), jnp.linalg.svd(g)[1],
                jnp.sort(jnp.linalg.eig(e)[0]), jnp.abs(jax.scipy.linalg.schur(e)[0]))

    return f, [a, h, g, e]


@case("linalg_tridiagonal_solve", "tridiagonal solve (gtsv), with and without row interchanges",
      tol=LINALG_TOL, custom_call_targets=["lapack_sgtsv_ffi"])
def _(rng):
    n = 6
    dl = np.concatenate([[0.0], rng.standard_normal(n - 1) * 3]).astype(np.float32)
    d = rng.standard_normal(n).astype(np.float32)
    du = np.concatenate([rng.standard_normal(n - 1), [0.0]]).astype(np.float32)
    b = normal(rng, n, 2)

    def f(dl, d, du, b):
        return lax.linalg.tridiagonal_solve(dl, d, du, b)

    return f, [dl, d, du, b]


@case("linalg_x64", "f64 linear algebra: solve, Cholesky, QR, eigh and SVD through the d-variants (x64)", x64=True,
      tol=LINALG_TOL, custom_call_targets=["lapack_dgesdd_ffi", "lapack_dgeqrf_ffi", "lapack_dgetrf_ffi", "lapack_dorgqr_ffi",
                                           "lapack_dpotrf_ffi", "lapack_dsyevd_ffi", "lapack_dtrsm_ffi"])
def _(rng):
    a = _well_conditioned(rng, 5, dtype=np.float64)
    spd = _spd(rng, 5, dtype=np.float64)
    b = rng.standard_normal(5)

    def f(a, spd, b):
        q, r = jnp.linalg.qr(a)
        w, v = jnp.linalg.eigh(spd)
        u, s, vt = jnp.linalg.svd(a)
        return (jnp.linalg.solve(a, b), jnp.linalg.cholesky(spd), q, r, w, (v * w) @ v.T, s, (u * s) @ vt,
                jnp.linalg.det(a))

    return f, [a, spd, b]


# Complex linear algebra (the c/z LAPACK targets) and the nonsymmetric
# eigenproblem (geev). Eigenvectors and singular vectors are unique only up
# to a phase per vector, so those cases return phase-free quantities
# (|V|, reconstructions, V^H V); eig's eigenvalues come in no defined order,
# so eig returns order-free ones (sorted parts, residual norms).

LINALG_CTOL = {"f32": (2e-4, 2e-4), "c64": (2e-4, 2e-4), "f64": (1e-9, 1e-9), "c128": (1e-9, 1e-9)}


def _cplx_prefix(dtype):
    return "c" if np.dtype(dtype) == np.complex64 else "z"


def _hpd(rng, n, batch, dtype):
    a = cplx(rng, dtype, *batch, n, n)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def _complex_lu_case(dtype):
    def build(rng):
        a = (cplx(rng, dtype, 2, 4, 4) + 3 * np.eye(4)).astype(dtype)
        b = cplx(rng, dtype, 2, 4, 3)
        wide = cplx(rng, dtype, 3, 5)

        def f(a, b, wide):
            lu, piv, perm = lax.linalg.lu(a)
            lw, pw, _ = lax.linalg.lu(wide)
            sign, logdet = jnp.linalg.slogdet(a)
            return lu, piv, perm, lw, pw, jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a), sign, logdet

        return f, [a, b, wide]
    return build


def _complex_cholesky_case(dtype):
    def build(rng):
        hpd = _hpd(rng, 5, (2,), dtype)
        b = cplx(rng, dtype, 2, 5, 2)
        t = (cplx(rng, dtype, 4, 4) + 3 * np.eye(4)).astype(dtype)
        bl = cplx(rng, dtype, 4, 3)
        br = cplx(rng, dtype, 3, 4)

        def f(hpd, b, t, bl, br):
            outs = [jnp.linalg.cholesky(hpd), jnp.linalg.cholesky(hpd, upper=True),
                    jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(hpd), b)]
            for left in (True, False):
                for lower in (True, False):
                    for transpose_a, conjugate_a in ((False, False), (True, False), (True, True)):
                        for unit in (False, True):
                            outs.append(lax.linalg.triangular_solve(
                                t, bl if left else br, left_side=left, lower=lower,
                                transpose_a=transpose_a, conjugate_a=conjugate_a, unit_diagonal=unit))
            return outs

        return f, [hpd, b, t, bl, br]
    return build


def _on_tall_and_wide(dtype, f):
    """A case builder: `f(tall, wide)` on a batch of two tall 6x4 complex
    matrices and one wide 3x5."""
    def build(rng):
        return f, [cplx(rng, dtype, 2, 6, 4), cplx(rng, dtype, 3, 5)]
    return build


def _complex_qr_case(dtype):
    def f(tall, wide):
        q, r = jnp.linalg.qr(tall)
        qc, rc = jnp.linalg.qr(tall, mode="complete")
        qw, rw = jnp.linalg.qr(wide)
        return q, r, qc, rc, qw, rw

    return _on_tall_and_wide(dtype, f)


def _complex_eigh_case(dtype):
    def build(rng):
        a = cplx(rng, dtype, 2, 5, 5)
        a = (a + np.conj(np.swapaxes(a, -1, -2))).astype(dtype)

        def f(a):
            w, v = jnp.linalg.eigh(a)
            wu, vu = jnp.linalg.eigh(a, UPLO="U")
            vh = jnp.conj(jnp.swapaxes(v, -1, -2))
            back = (v * w[..., None, :]) @ vh
            return w, back, jnp.abs(v), wu, jnp.abs(vu), jnp.linalg.eigvalsh(a), vh @ v

        return f, [a]
    return build


def _complex_svd_case(dtype):
    def f(tall, wide):
        u, s, vt = jnp.linalg.svd(tall, full_matrices=False)
        uf, sf, vtf = jnp.linalg.svd(tall, full_matrices=True)
        uw, sw, vtw = jnp.linalg.svd(wide, full_matrices=True)
        uq, sq, vtq = lax.linalg.svd(wide, full_matrices=False, algorithm=lax.linalg.SvdAlgorithm.QR)
        recon = (u * s[..., None, :]) @ vt
        reconw = (uw[:, :3] * sw) @ vtw[:3]
        eye_u = jnp.conj(jnp.swapaxes(uf, -1, -2)) @ uf
        eye_v = vtw @ jnp.conj(vtw.T)
        return (s, recon, jnp.abs(u), jnp.abs(vt), sf, eye_u, sw, reconw, eye_v, sq, (uq * sq) @ vtq,
                jnp.linalg.svd(wide, compute_uv=False), jnp.linalg.pinv(tall[0]), jnp.linalg.norm(wide, ord=2))

    return _on_tall_and_wide(dtype, f)


for _dt, _name, _x64 in ((np.complex64, "c64", False), (np.complex128, "c128", True)):
    _p = _cplx_prefix(_dt)
    _sfx = " (x64)" if _x64 else ""
    case(f"linalg_lu_solve_{_name}", f"{_name} LU ({_p}getrf, pivots by |re|+|im|) and what JAX builds on it: lu, solve, "
         f"inv, det, slogdet, batched, wide{_sfx}", x64=_x64, tol=LINALG_CTOL,
         custom_call_targets=[f"lapack_{_p}getrf_ffi", f"lapack_{_p}trsm_ffi"])(_complex_lu_case(_dt))
    case(f"linalg_cholesky_triangular_{_name}", f"{_name} Cholesky ({_p}potrf, both triangles) of Hermitian matrices, "
         f"cho_solve, every triangular_solve variant including the conjugate transpose ({_p}trsm){_sfx}",
         x64=_x64, tol=LINALG_CTOL,
         custom_call_targets=[f"lapack_{_p}potrf_ffi", f"lapack_{_p}trsm_ffi"])(_complex_cholesky_case(_dt))
    case(f"linalg_qr_{_name}", f"{_name} Householder QR ({_p}geqrf + {_p}ungqr, LAPACK's complex reflectors): reduced "
         f"and complete, tall, wide and batched{_sfx}", x64=_x64, tol=LINALG_CTOL,
         custom_call_targets=[f"lapack_{_p}geqrf_ffi", f"lapack_{_p}ungqr_ffi"])(_complex_qr_case(_dt))
    case(f"linalg_eigh_{_name}", f"{_name} Hermitian eigendecomposition ({_p}heevd, real eigenvalues): eigenvalues, "
         f"reconstruction, |V| and V^H V (phase-free), both triangles, eigvalsh, batched{_sfx}",
         x64=_x64, tol=LINALG_CTOL, custom_call_targets=[f"lapack_{_p}heevd_ffi"])(_complex_eigh_case(_dt))
    case(f"linalg_svd_{_name}", f"{_name} singular value decomposition ({_p}gesdd, {_p}gesvd; real singular values): "
         f"values, reconstructions, |U|, |V^H| (phase-free), full and thin, tall, wide and batched; pinv, 2-norm{_sfx}",
         x64=_x64, tol=LINALG_CTOL,
         custom_call_targets=[f"lapack_{_p}gesdd_ffi", f"lapack_{_p}gesvd_ffi"])(_complex_svd_case(_dt))


def _reductions_case(dtype):
    dtype = np.dtype(dtype)
    complex_ = np.issubdtype(dtype, np.complexfloating)

    def build(rng):
        gen = (lambda *s: cplx(rng, dtype, *s)) if complex_ else (lambda *s: normal(rng, *s, dtype=dtype))
        a = gen(5, 5)
        ab = gen(2, 4, 4)
        h = gen(2, 5, 5)
        h = (h + np.conj(np.swapaxes(h, -1, -2))).astype(dtype)
        p = gen(6, 4)

        def f(a, ab, h, p):
            hh, hq = jax.scipy.linalg.hessenberg(a, calc_q=True)
            hb, hbt = lax.linalg.hessenberg(ab)
            tl = lax.linalg.tridiagonal(h, lower=True)
            tu = lax.linalg.tridiagonal(h, lower=False)
            qp, rp, pp = jax.scipy.linalg.qr(p, pivoting=True, mode="economic")
            return (hh, hq, hb, hbt, *tl, *tu, qp, rp, pp)

        return f, [a, ab, h, p]

    return build


for _dt, _name, _p, _x64 in ((np.float32, "f32", "s", False), (np.float64, "f64", "d", True),
                             (np.complex64, "c64", "c", False), (np.complex128, "c128", "z", True)):
    _sy = "he" if _p in "cz" else "sy"
    _un = "un" if _p in "cz" else "or"
    case(f"linalg_reductions_{_name}",
         f"{_name} Hessenberg reduction ({_p}gehrd: scipy's hessenberg with Q, lax's batched raw reflectors), "
         f"tridiagonal reduction ({_p}{_sy}trd, both triangles, raw d/e/tau/reflectors) and QR with column pivoting "
         f"({_p}geqp3){' (x64)' if _x64 else ''}", x64=_x64, tol=LINALG_CTOL,
         custom_call_targets=[f"lapack_{_p}gehrd_ffi", f"lapack_{_p}{_un}gqr_ffi", f"lapack_{_p}{_sy}trd_ffi",
                              f"lapack_{_p}geqp3_ffi"])(_reductions_case(_dt))


def _schur_case(dtype):
    dtype = np.dtype(dtype)
    complex_ = np.issubdtype(dtype, np.complexfloating)

    def build(rng):
        gen = (lambda *s: cplx(rng, dtype, *s)) if complex_ else (lambda *s: normal(rng, *s, dtype=dtype))
        a = gen(6, 6)
        ab = gen(2, 4, 4)

        def phase_free(t, z, x):
            # The Schur form is unique only up to the eigenvalues' order and
            # Z's phases: the reconstruction, Z^H Z, T's zero part, the
            # eigenvalues (sorted) and the sorted diagonal (equal within a
            # real 2 x 2 block, as LAPACK standardizes it).
            zh = jnp.conj(jnp.swapaxes(z, -1, -2))
            below = jnp.tril(t, -1 if complex_ else -2)
            # (Parts sorted separately: a conjugate pair's real parts tie,
            # so a lexicographic sort would order it by rounding.)
            ev = jnp.linalg.eigvals(t)
            diag = jnp.diagonal(t, axis1=-2, axis2=-1)
            parts = [jnp.sort(p(v), axis=-1) for v in (ev, diag) for p in (jnp.real, jnp.imag)]
            return (z @ t @ zh, zh @ z, below, *parts)

        def f(a, ab):
            t, z = jax.scipy.linalg.schur(a)
            tb, zb = lax.linalg.schur(ab)
            (tn,) = lax.linalg.schur(ab, compute_schur_vectors=False)
            dn = jnp.diagonal(tn, axis1=-2, axis2=-1)
            return (*phase_free(t, z, a), *phase_free(tb, zb, ab),
                    jnp.sort(jnp.real(dn), axis=-1), jnp.sort(jnp.imag(dn), axis=-1))

        return f, [a, ab]

    return build


for _dt, _name, _p, _x64 in ((np.float32, "f32", "s", False), (np.float64, "f64", "d", True),
                             (np.complex64, "c64", "c", False), (np.complex128, "c128", "z", True)):
    case(f"linalg_schur_{_name}",
         f"{_name} Schur decomposition ({_p}gees: scipy's schur and lax's batched one, with and without vectors): "
         f"phase- and order-free results (reconstruction, Z^H Z, T's zero part, sorted parts of the eigenvalues and of the diagonal)"
         f"{' (x64)' if _x64 else ''}", x64=_x64, tol=LINALG_CTOL,
         custom_call_targets=[f"lapack_{_p}gees_ffi", f"lapack_{_p}geev_ffi"])(_schur_case(_dt))


@case("linalg_tridiagonal_solve_c64", "c64 tridiagonal solve (cgtsv, pivots by |re|+|im|), with and without row interchanges",
      tol=LINALG_CTOL, custom_call_targets=["lapack_cgtsv_ffi"])
def _(rng):
    n = 6
    dl = np.concatenate([[0.0], cplx(rng, np.complex64, n - 1, scale=3)]).astype(np.complex64)
    d = cplx(rng, np.complex64, n)
    du = np.concatenate([cplx(rng, np.complex64, n - 1), [0.0]]).astype(np.complex64)
    b = cplx(rng, np.complex64, n, 2)

    def f(dl, d, du, b):
        return lax.linalg.tridiagonal_solve(dl, d, du, b)

    return f, [dl, d, du, b]


def _eig_case(dtype):
    def build(rng):
        if np.issubdtype(dtype, np.complexfloating):
            a = cplx(rng, dtype, 2, 5, 5)
        else:
            a = rng.standard_normal((2, 5, 5)).astype(dtype)

        def order_free(w):
            return jnp.sort(w.real, axis=-1), jnp.sort(w.imag, axis=-1), jnp.sort(jnp.abs(w), axis=-1)

        def f(a):
            w, vl, vr = lax.linalg.eig(a, compute_left_eigenvectors=True, compute_right_eigenvectors=True)
            ac = a.astype(w.dtype)
            # A v = w v and u^H A = w u^H: residual norms per vector, sorted.
            right = jnp.sort(jnp.linalg.norm(ac @ vr - vr * w[..., None, :], axis=-2), axis=-1)
            vlh = jnp.conj(jnp.swapaxes(vl, -1, -2))
            left = jnp.sort(jnp.linalg.norm(vlh @ ac - w[..., :, None] * vlh, axis=-1), axis=-1)
            # LAPACK's normalization: unit 2-norm, largest component real.
            norms = jnp.linalg.norm(vr, axis=-2)
            big = jnp.argmax(jnp.abs(vr), axis=-2)
            largest_imag = jnp.abs(jnp.take_along_axis(vr, big[..., None, :], axis=-2).imag)
            wv = jnp.linalg.eigvals(a)
            return (*order_free(w), right, left, norms, jnp.linalg.norm(vl, axis=-2), largest_imag,
                    *order_free(wv))

        return f, [a]
    return build


for _dt, _name, _x64 in ((np.float32, "f32", False), (np.complex64, "c64", False),
                         (np.float64, "f64", True), (np.complex128, "c128", True)):
    _p = {"f32": "s", "c64": "c", "f64": "d", "c128": "z"}[_name]
    case(f"linalg_eig_{_name}", f"{_name} nonsymmetric eigendecomposition ({_p}geev) with left and right eigenvectors, "
         f"and eigvals: eigenvalues sorted by part (LAPACK's order is not defined), residuals |A v - w v| and "
         f"|u^H A - w u^H|, unit norms, largest components real{' (x64)' if _x64 else ''}",
         x64=_x64, tol=LINALG_CTOL, custom_call_targets=[f"lapack_{_p}geev_ffi"])(_eig_case(_dt))


@case("collectives_one_device", "shard_map over a one-device mesh: psum/pmax/pmin/pmean (all-reduce), all_gather, "
      "psum_scatter (reduce-scatter), ppermute (collective-permute, also to nobody: zeros), axis_index (partition-id)")
def _(rng):
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()[:1]), ("i",))
    x = f32(rng, 4, 2)
    n = ints(rng, np.int32, 3, lo=-50, hi=50)

    def g(b, n):
        s, sn = lax.psum((b, n), "i")
        gathered = lax.all_gather(b, "i", tiled=True) + lax.all_gather(b, "i")[0]
        scattered = lax.psum_scatter(b, "i", tiled=True)
        moved = lax.ppermute(b, "i", [(0, 0)])
        nobody = lax.ppermute(b, "i", [])
        idx = lax.axis_index("i")
        return (s + lax.pmax(b, "i") * 2.0 + idx, sn, lax.pmin(n, "i") - idx, gathered, scattered, moved, nobody,
                lax.pmean(b, "i"))

    def f(x, n):
        specs = (P("i"), P(), P("i"), P("i"), P("i"), P("i"), P("i"), P("i"))
        return jax.shard_map(g, mesh=mesh, in_specs=(P("i"), P()), out_specs=specs)(x, n)

    return f, [x, n]


@case("convert_x64", "converts involving s64/u64/f64 (x64)", x64=True)
def _(rng):
    d = np.array([1e300, -1e-300, 3.141592653589793, -2.5, 2.5, 9.007199254740993e15, np.nan, np.inf, 1e19, -1e19], np.float64)
    s = np.array([-(2**63), 2**63 - 1, -1, 0, 2**53 + 1, 123456789012, -5, 7, 2**31, -(2**31) - 1], np.int64)
    u = np.array([2**64 - 1, 0, 2**63, 1, 2**32, 2**53 + 1, 9, 10, 11, 12], np.uint64)

    def c(v, t):
        return lax.convert_element_type(v, t)

    def f(d, s, u):
        return (c(d, jnp.float32), c(d, jnp.int64), c(d, jnp.uint64), c(d, jnp.float16), c(s, jnp.float64), c(s, jnp.int32),
                c(s, jnp.uint64), c(s, jnp.float32), c(u, jnp.float64), c(u, jnp.int64), c(u, jnp.uint32),
                lax.bitcast_convert_type(d, jnp.int64), lax.bitcast_convert_type(s, jnp.uint32))

    return f, [d, s, u]


# ==========================================================================
# Custom calls (lowered only; expected outputs computed with numpy)
# ==========================================================================


def _do_custom_call_case(version):
    def build(rng):
        b = f32(rng, 128)
        c = f32(rng, 2048)

        def f(b, c):
            kw = {} if version == 4 else {"legacy_backend_config": ""}
            return jax.ffi.ffi_call("do_custom_call", jax.ShapeDtypeStruct((2048,), jnp.float32), custom_call_api_version=version, **kw)(b, c)

        def expected(b, c):
            return [b[np.arange(2048) % 128] + c]

        return f, [b, c], expected

    return build


_API_NAMES = {1: "API_VERSION_ORIGINAL", 2: "API_VERSION_STATUS_RETURNING", 3: "API_VERSION_STATUS_RETURNING_UNIFIED", 4: "API_VERSION_TYPED_FFI"}
for _v in (1, 2, 3, 4):
    case(
        f"cc_do_custom_call_v{_v}",
        f"custom-call do_custom_call (out[i] = b[i % 128] + c[i]) with api_version={_API_NAMES[_v]}",
        custom_call_targets=["do_custom_call"],
    )(_do_custom_call_case(_v))


@case("cc_axpby_ffi", "typed-FFI custom-call axpby: z = alpha*x + beta*y, alpha/beta as f32 attributes in backend_config",
      custom_call_targets=["axpby"])
def _(rng):
    x = f32(rng, 256)
    y = f32(rng, 256)

    def f(x, y):
        return jax.ffi.ffi_call("axpby", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y, alpha=np.float32(2.0), beta=np.float32(-0.5))

    return f, [x, y], (lambda x, y: [np.float32(2.0) * x + np.float32(-0.5) * y])


@case("cc_axpby_legacy", "legacy (api_version=2) custom-call axpby with operands (x, y, alpha f32[], beta f32[]): z = alpha*x + beta*y",
      custom_call_targets=["axpby"])
def _(rng):
    x = f32(rng, 256)
    y = f32(rng, 256)
    alpha = np.array(1.5, np.float32)
    beta = np.array(3.0, np.float32)

    def f(x, y, alpha, beta):
        return jax.ffi.ffi_call("axpby", jax.ShapeDtypeStruct(x.shape, x.dtype), custom_call_api_version=2,
                                legacy_backend_config="")(x, y, alpha, beta)

    return f, [x, y, alpha, beta], (lambda x, y, a, b: [a * x + b * y])


@case("cc_in_graph", "typed-FFI custom-calls inside a larger graph: do_custom_call, then a 2-result custom-call (tuple + get-tuple-element)",
      custom_call_targets=["do_custom_call", "add_sub"])
def _(rng):
    b = f32(rng, 128)
    c = f32(rng, 2048)

    def f(b, c):
        t = jax.ffi.ffi_call("do_custom_call", jax.ShapeDtypeStruct((2048,), jnp.float32))(b * 2.0, c)
        s, d = jax.ffi.ffi_call("add_sub", (jax.ShapeDtypeStruct((2048,), jnp.float32),) * 2)(t, c)
        return jnp.sum(s), d * 0.5

    def expected(b, c):
        t = (b * np.float32(2.0))[np.arange(2048) % 128] + c
        s = t + c
        d = t - c
        return [np.sum(s, dtype=np.float32), d * np.float32(0.5)]

    # add_sub: (x, y) -> (x + y, x - y)
    return f, [b, c], expected


# ==========================================================================
# Complex numbers and FFT
# ==========================================================================


def cplx(rng, dtype, *shape, scale=1.0):
    part = np.float32 if np.dtype(dtype) == np.complex64 else np.float64
    re = (rng.standard_normal(size=shape) * scale).astype(part)
    im = (rng.standard_normal(size=shape) * scale).astype(part)
    return (re + 1j * im).astype(dtype)


def _complex_elementwise_case(dtype):
    dtype = np.dtype(dtype)
    part = np.float32 if dtype == np.complex64 else np.float64

    def build(rng):
        a = cplx(rng, dtype, 48)
        b = cplx(rng, dtype, 48)
        # edge values: zeros, pure real/imaginary, large and small magnitudes
        a[:8] = np.array([0, 1, -1j, 2 + 0j, 1e-3 + 1e-3j, 30 - 20j, -0.5 + 4j, 3j], dtype)
        b[:8] = np.array([0, 0, 2 + 1j, 1e-3j, -1, 0.25 + 0.5j, 1e3 + 1j, -2 - 2j], dtype)
        x = rng.uniform(-2, 2, size=48).astype(part)
        y = rng.uniform(-2, 2, size=48).astype(part)
        m = rng.uniform(size=48) < 0.5
        nz = b + (np.abs(b) == 0).astype(dtype)  # no division by zero in the power/division outputs

        def f(a, b, nz, x, y, m):
            z = lax.complex(x, y)
            return {
                "complex": z,
                "real": jnp.real(a),
                "imag": jnp.imag(a),
                "conj": jnp.conj(a),
                "add": a + b,
                "sub": a - b,
                "mul": a * b,
                "div": a / nz,
                "neg": -a,
                "abs": jnp.abs(a),
                "sign": lax.sign(a),
                "exp": jnp.exp(a),
                "expm1": jnp.expm1(a),
                "log": jnp.log(nz),
                "log1p": jnp.log1p(a),
                "sqrt": jnp.sqrt(a),
                "rsqrt": lax.rsqrt(nz),
                "pow": lax.pow(nz, b * 0.5),
                "sin": jnp.sin(a),
                "cos": jnp.cos(a),
                "tan": jnp.tan(a),
                # sinh/cosh lower to chlo.sinh/chlo.cosh, which the StableHLO
                # reader does not expand yet: left out so every path runs.
                "tanh": jnp.tanh(a),
                "eq": a == jnp.where(m, a, b),
                "ne": a != jnp.where(m, a, b),
                "convert": x.astype(dtype) + a,
                "select": jnp.where(m, a, b),
                "chain": jnp.exp(a * b + z) / (1.0 + jnp.abs(a)),
            }

        return f, [a, b, nz, x, y, m]

    return build


_complex_elementwise_case_c64 = case(
    "complex_elementwise_c64",
    "every complex element-wise op on c64: complex/real/imag/conj, arithmetic, abs, sign, exp, expm1, log, log1p, "
    "sqrt, rsqrt, pow, sin/cos/tan, tanh, eq/ne, convert, select",
    transcendental=True,
)(_complex_elementwise_case(np.complex64))
_complex_elementwise_case_c128 = case(
    "complex_elementwise_c128",
    "every complex element-wise op on c128 (x64)",
    x64=True,
    transcendental=True,
)(_complex_elementwise_case(np.complex128))


def _complex_structure_case(dtype):
    def build(rng):
        a = cplx(rng, dtype, 4, 6)
        b = cplx(rng, dtype, 6)

        def f(a, b):
            return {
                "sum_all": jnp.sum(a),
                "sum_rows": jnp.sum(a, axis=1),
                "prod_cols": jnp.prod(a * 0.5, axis=0),
                "transpose": a.T,
                "broadcast": a + b[None, :],
                "reshape": a.reshape(3, 8),
                "slice": a[1:3, ::2],
                "concat": jnp.concatenate([a, a * 1j], axis=0),
                "reverse": a[::-1],
                "pad": jnp.pad(a, ((1, 0), (0, 2))),
                "mean_abs": jnp.mean(jnp.abs(a), axis=1),
            }

        return f, [a, b]

    return build


case("complex_structure_c64",
     "c64 reductions (sum, product), broadcast, reshape, transpose, slice, concatenate, reverse, pad")(
    _complex_structure_case(np.complex64))
case("complex_structure_c128", "c128 reductions and data movement (x64)", x64=True)(
    _complex_structure_case(np.complex128))


def _complex_matmul_case(dtype):
    def build(rng):
        a = cplx(rng, dtype, 5, 7)
        b = cplx(rng, dtype, 7, 3)
        c = cplx(rng, dtype, 2, 4, 5)
        d = cplx(rng, dtype, 2, 5, 3)
        v = cplx(rng, dtype, 7)

        def f(a, b, c, d, v):
            return a @ b, jnp.einsum("bij,bjk->bik", c, d), a @ v, jnp.vdot(v, v), a.T.conj() @ a

        return f, [a, b, c, d, v]

    return build


case("complex_matmul_c64", "c64 matmul, batched einsum, matvec, vdot, conjugate-transpose product")(
    _complex_matmul_case(np.complex64))
case("complex_matmul_c128", "c128 matmul, batched einsum, matvec, vdot (x64)", x64=True)(
    _complex_matmul_case(np.complex128))


def _complex_atan2_case(dtype):
    dtype = np.dtype(dtype)

    def build(rng):
        y = cplx(rng, dtype, 40)
        x = cplx(rng, dtype, 40)
        # edge values: zeros of either sign, the real and imaginary axes
        # (where the principal branches of the formula's sqrt and log
        # meet), large and small magnitudes, and x^2 + y^2 == 0 (NaN).
        y[:16] = np.array([0, 0, 1, -1, 1, -1, 0, 3, 1j, -2j, 1e-3 + 1e-3j, 30 - 20j,
                           complex(-0.0, 0.0), complex(0.0, -0.0), 1, 1j], dtype)
        x[:16] = np.array([1, -1, 0, 0, -1, -1, 0, complex(-0.0, 0.0), 2, -0.5 + 1j, 1e3 + 1j, -2 - 2j,
                           -1, complex(-1.0, -0.0), 1j, 1], dtype)

        def f(y, x):
            return {
                "atan2": lax.atan2(y, x),
                "arctan2": jnp.arctan2(x, y),
                "chain": jnp.exp(lax.atan2(y * x, y + x)) * y,
            }

        return f, [y, x]

    return build


case("complex_atan2_c64",
     "atan2 of c64 operands (XLA's -i log((x + i y) / sqrt(x^2 + y^2))) with signed zeros, the axes and x^2 + y^2 = 0",
     transcendental=True)(_complex_atan2_case(np.complex64))
case("complex_atan2_c128", "atan2 of c128 operands (x64)", x64=True, transcendental=True)(
    _complex_atan2_case(np.complex128))


def _complex_kernels_case(dtype):
    def build(rng):
        x = cplx(rng, dtype, 2, 3, 9)  # convolution input [batch, feature, width]
        k = cplx(rng, dtype, 4, 3, 3)  # kernel [out, in, width]
        img = cplx(rng, dtype, 1, 2, 6, 5)  # 2-D input, NCHW
        ker = cplx(rng, dtype, 4, 1, 3, 2)  # depthwise-ish: two feature groups
        s = cplx(rng, dtype, 3, 10)
        # ties in the real part (sorted by the imaginary part), a NaN, -0
        s[0, :4] = np.array([1 + 2j, 1 - 1j, 1 + 2j, -0.0 + 1j], dtype)
        s[1, 0] = complex(np.nan, 0.0)
        pay = rng.integers(-50, 50, size=(3, 10)).astype(np.int32)
        t = cplx(rng, dtype, 8, 3)
        idx = np.array([1, 6, 1, 3, 7, 6], np.int32)
        u = cplx(rng, dtype, 6, 3)
        v = cplx(rng, dtype, 12)

        def f(x, k, img, ker, s, pay, t, idx, u, v):
            return {
                "conv1d": lax.conv_general_dilated(x, k, (1,), "SAME"),
                "conv1d_strided": lax.conv_general_dilated(x, k, (2,), [(2, 1)], rhs_dilation=(2,)),
                "conv2d_groups": lax.conv_general_dilated(img, ker, (1, 1), "VALID", feature_group_count=2),
                "convolve": jnp.convolve(v, v[:4]),
                "sort": jnp.sort(s, axis=1),
                "sort_axis0": jnp.sort(s, axis=0),
                "argsort": jnp.argsort(s[0]),
                "sort_payload": lax.sort((s, pay), dimension=1, num_keys=1),
                "scatter_add": t.at[idx].add(u),
                "scatter_set": t.at[idx[:3]].set(u[:3]),
                "scatter_mul": t.at[idx].multiply(u),
                "cumsum": jnp.cumsum(v),
                "cumsum_2d": jnp.cumsum(t, axis=0),
                "cumprod": jnp.cumprod(v * 0.8),
                "window_sum": lax.reduce_window(img, 0j, lax.add, (1, 1, 2, 2), (1, 1, 2, 1), "SAME"),
            }

        return f, [x, k, img, ker, s, pay, t, idx, u, v]

    return build


case("complex_kernels_c64",
     "c64 through the runtime kernels: convolution (JAX writes it as three real ones), sort with JAX's complex "
     "comparator (and argsort, a payload), scatter add/set/multiply, reduce-window sums (cumsum, pooling), cumprod")(
    _complex_kernels_case(np.complex64))
case("complex_kernels_c128", "c128 convolution, sort, scatter, reduce-window and cumulative ops (x64)", x64=True)(
    _complex_kernels_case(np.complex128))


def _complex_sinh_cosh_case(dtype):
    def build(rng):
        z = cplx(rng, dtype, 40, scale=2.0)
        # zero, pure real/imaginary, small and large magnitudes
        z[:8] = np.array([0, 0.5, -3j, 1e-4 + 1e-4j, 20 - 1j, -15 + 2j, 1 + 3.14159j, -0.25 - 0.75j], dtype)

        def f(z):
            return jnp.sinh(z), jnp.cosh(z)

        return f, [z]

    return build


case("sinh_cosh_c64", "sinh and cosh of c64 (chlo.sinh/chlo.cosh on complex in StableHLO)", transcendental=True)(
    _complex_sinh_cosh_case(np.complex64))
case("sinh_cosh_c128", "sinh and cosh of c128 (x64)", x64=True, transcendental=True)(
    _complex_sinh_cosh_case(np.complex128))


def _fft_case(real_dtype):
    cdt = np.complex64 if np.dtype(real_dtype) == np.float32 else np.complex128

    def build(rng):
        z1 = cplx(rng, cdt, 3, 7)  # odd, prime
        z2 = cplx(rng, cdt, 2, 6, 5)  # even x prime
        z3 = cplx(rng, cdt, 3, 4, 5)  # 3-D
        x1 = rng.standard_normal(size=(4, 11)).astype(real_dtype)  # prime
        x2 = rng.standard_normal(size=(2, 6, 8)).astype(real_dtype)
        x3 = rng.standard_normal(size=(3, 5, 4)).astype(real_dtype)

        def f(z1, z2, z3, x1, x2, x3):
            return {
                "fft1": jnp.fft.fft(z1),
                "ifft1": jnp.fft.ifft(z1),
                "fft2": jnp.fft.fft2(z2),
                "ifft2": jnp.fft.ifft2(z2),
                "fft3": jnp.fft.fftn(z3),
                "ifft3": jnp.fft.ifftn(z3),
                "rfft1": jnp.fft.rfft(x1),
                "irfft1": jnp.fft.irfft(jnp.fft.rfft(x1), n=11),
                "irfft1_even": jnp.fft.irfft(z1, n=12),
                "rfft2": jnp.fft.rfft2(x2),
                "irfft2": jnp.fft.irfft2(jnp.fft.rfft2(x2), s=(6, 8)),
                "rfft3": jnp.fft.rfftn(x3),
                "irfft3": jnp.fft.irfftn(z3, s=(3, 4, 7)),
                "fft_axis0": jnp.fft.fft(z2, axis=1),
            }

        return f, [z1, z2, z3, x1, x2, x3]

    return build


case("fft_c64", "every FFT kind (FFT, IFFT, RFFT, IRFFT) over 1, 2 and 3 dimensions on f32/c64, odd and prime lengths",
     transcendental=True)(_fft_case(np.float32))
case("fft_c128", "every FFT kind over 1, 2 and 3 dimensions on f64/c128, odd and prime lengths (x64)",
     x64=True, transcendental=True)(_fft_case(np.float64))


# ==========================================================================
# driver
# ==========================================================================

_INST_RE = re.compile(r"^\s*(?:ROOT\s+)?[\w.\-]+\s*=\s*.+?\s+([a-z][a-z0-9\-]*)\(", re.M)
_SHAPE_RE = re.compile(r"\b(pred|[sufc]\d+|bf16)\[([\d,]*)\]")


def hlo_opcodes(text: str) -> list[str]:
    return sorted(set(_INST_RE.findall(text)))


def _split_top(s: str) -> tuple[str, str]:
    """Split entry_computation_layout's '(...)->...' into params and result."""
    depth = 0
    for i, ch in enumerate(s):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == "-" and depth == 0 and s[i : i + 2] == "->":
            return s[:i], s[i + 2 :]
    raise ValueError("no '->' in entry_computation_layout")


def entry_layout(text: str):
    """(params, results, result_is_nested) as lists of (dtype, shape)."""
    m = re.search(r"entry_computation_layout=\{", text)
    if not m:
        raise ValueError("module.hlo has no entry_computation_layout")
    i = m.end()
    depth = 1
    j = i
    while depth:
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
        j += 1
    params, result = _split_top(text[i : j - 1])

    def shapes(s):
        return [(d, [int(x) for x in dims.split(",") if x]) for d, dims in _SHAPE_RE.findall(s)]

    depth = maxdepth = 0
    for ch in result:
        if ch == "(":
            depth += 1
            maxdepth = max(maxdepth, depth)
        elif ch == ")":
            depth -= 1
    return shapes(params), shapes(result), maxdepth > 1


def ir_opcodes() -> list[str]:
    """Opcode names from crates/hlox-hlo/src/ir.rs (UnaryOp/BinaryOp/Op ::name)."""
    path = REPO / "crates" / "hlox-hlo" / "src" / "ir.rs"
    src = path.read_text()
    names: set[str] = set()
    for block in re.findall(r"impl (?:UnaryOp|BinaryOp|Op) \{(.*?)\n\}", src, re.S):
        m = re.search(r"pub fn name\(&?self\) -> &'static str \{(.*?)\n    \}", block, re.S)
        if m:
            names.update(re.findall(r'=>\s*"([a-z][a-z0-9\-]*)"', m.group(1)))
    return sorted(names)


def tolerances(case: Case, out_dtypes: list[str]):
    rtol, atol = {}, {}
    for d in sorted(set(out_dtypes)):
        r, a = BASE_TOL[d]
        if case.transcendental and d in TRANSCENDENTAL_TOL:
            r, a = TRANSCENDENTAL_TOL[d]
        if d in case.tol:
            r, a = case.tol[d]
        rtol[d] = r
        atol[d] = a
    return rtol, atol


def generate(case: Case, out_root: Path) -> dict:
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    built = case.build(rng)
    f, args = built[0], built[1]
    expected_fn = built[2] if len(built) > 2 else None
    args = [np.asarray(a) for a in args]

    lowered = jax.jit(f).lower(*args)
    text = lowered.as_text(dialect="hlo")
    proto = lowered.compiler_ir("hlo").as_serialized_hlo_module_proto()

    if expected_fn is not None:
        outs = [np.asarray(o) for o in expected_fn(*args)]
        paths = [f"[{k}]" for k in range(len(outs))]
    else:
        result = jax.jit(f)(*args)
        leaves_with_path, _ = jax.tree_util.tree_flatten_with_path(result)
        outs = [np.asarray(v) for _, v in leaves_with_path]
        paths = [jax.tree_util.keystr(p) for p, _ in leaves_with_path]

    # Cross-check against the module's entry layout: params and flattened
    # (pre-order) result leaves must match inputs and outputs exactly.
    p_shapes, r_shapes, nested = entry_layout(text)
    in_meta = [(hlo_dtype(a.dtype), list(a.shape)) for a in args]
    out_meta = [(hlo_dtype(o.dtype), list(o.shape)) for o in outs]
    if p_shapes != in_meta:
        raise AssertionError(f"{case.name}: HLO params {p_shapes} != inputs {in_meta}")
    if r_shapes != out_meta:
        raise AssertionError(f"{case.name}: HLO result leaves {r_shapes} != outputs {out_meta}")

    d = out_root / case.name
    d.mkdir(parents=True, exist_ok=True)
    for old in list(d.glob("in*.npy")) + list(d.glob("out*.npy")):
        old.unlink()
    (d / "module.hlo").write_text(text)
    (d / "module.pb").write_bytes(proto)
    for k, a in enumerate(args):
        save_npy(d / f"in{k}.npy", a)
    for k, o in enumerate(outs):
        save_npy(d / f"out{k}.npy", o)

    opcodes = hlo_opcodes(text)
    targets = sorted(set(re.findall(r'custom_call_target="([^"]*)"', text)))
    if sorted(set(case.custom_call_targets)) != targets:
        raise AssertionError(f"{case.name}: custom call targets {targets} != declared {case.custom_call_targets}")
    rtol, atol = tolerances(case, [m[0] for m in out_meta])
    meta = {
        "name": case.name,
        "description": case.description,
        "jax_version": jax.__version__,
        "x64": case.x64,
        "inputs": [list(m) for m in in_meta],
        "outputs": [list(m) for m in out_meta],
        "output_paths": paths,
        "result_tuple_nested": nested,
        "expected_from": "numpy" if expected_fn is not None else "jax",
        "rtol": rtol,
        "atol": atol,
        "opcodes": opcodes,
        "needs_custom_call_targets": targets,
    }
    body = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in meta.items())
    (d / "meta.json").write_text("{\n" + body + "\n}\n")
    return meta


README_HEAD = """\
# hlox JAX conformance corpus

Generated by `scripts/gen_jax_corpus.py` from small JAX programs (JAX {jax_version}, CPU).
Do not edit by hand; regenerate instead:

```sh
bash scripts/setup_jax.sh && .venv-jax/bin/python scripts/gen_jax_corpus.py
# or only some cases:
.venv-jax/bin/python scripts/gen_jax_corpus.py --only softmax sort
```

## Layout of a case

`tests/corpus/<name>/` holds:

| file | content |
|---|---|
| `module.hlo` | `jax.jit(f).lower(*args).as_text(dialect="hlo")` (pre-optimization HLO text) |
| `module.pb` | `jax.jit(f).lower(*args).compiler_ir("hlo").as_serialized_hlo_module_proto()` (serialized `HloModuleProto`) |
| `module.mlir` | `jax.jit(f).lower(*args).as_text()` (StableHLO MLIR, JAX's default; written by `scripts/gen_stablehlo_corpus.py` from the same lowering) |
| `exported.bin` | the serialized `jax.export` artifact of the same function and inputs (`Exported.serialize()`: a flatbuffer holding the module as VHLO MLIR bytecode; `scripts/gen_stablehlo_corpus.py --artifacts`; every case but `multidevice`) |
| `exported.mlir` | that artifact's module as text (`jax.export.deserialize(data).mlir_module()`, without locations), to check that bytecode and text read to the same HLO |
| `plain.mlirbc` | (`pow_edge_f32` only) the module as plain, unversioned MLIR bytecode (`module_to_bytecode`), which hlox refuses with what to do |
| `in0.npy`, `in1.npy`, ... | the entry parameters, in parameter order (seeded numpy RNG; deterministic) |
| `out0.npy`, `out1.npy`, ... | the expected results: leaves of the JAX result pytree in `jax.tree_util` flatten order. JAX flattens the result, so the HLO root is a flat tuple of exactly these leaves (or the single array when there is one leaf); the generator checks every case's `entry_computation_layout` against the inputs/outputs, and no case has a nested result tuple (`result_tuple_nested` is false everywhere) |
| `meta.json` | see below |

`meta.json` fields:

* `name`, `description`, `jax_version`
* `x64`: whether the case was generated with `jax_enable_x64` (64-bit types present)
* `inputs`, `outputs`: `[[dtype, shape], ...]`; dtype is the HLO element type name (`pred s8 s16 s32 s64 u8 u16 u32 u64 f16 bf16 f32 f64 c64 c128`)
* `output_paths`: the pytree path of each output leaf (`jax.tree_util.keystr`), to tell outputs apart; dict keys are flattened in sorted order
* `expected_from`: `"jax"` (outputs computed by JAX/XLA on CPU) or `"numpy"` (custom-call cases: JAX cannot run them, expected values computed in numpy)
* `rtol`, `atol`: suggested tolerances per output dtype, `|got - want| <= atol + rtol * |want|`; 0 means exact. NaN must match NaN, infinities must match exactly
* `opcodes`: sorted HLO opcodes appearing in `module.hlo` (all computations)
* `needs_custom_call_targets`: custom-call targets the module calls; a runner must provide them (the corpus only *lowers* these, see below)

## Dtype conventions

* `.npy` files are written with `np.save` (format 1.0, little endian, C order).
* `pred` is numpy `bool` (`|b1`, one byte per element).
* `bf16` has no numpy dtype: bf16 arrays are stored as the raw 2-byte void dtype `|V2`
  (`np.save(path, arr.view('V2'))`); the bytes are little-endian bfloat16 bit patterns.
  Read them as u16 bit patterns (`np.load(p).view(np.uint16)`) or with `ml_dtypes.bfloat16`.
* `f16` is numpy `<f2`. Rank-0 (scalar) and zero-element arrays occur.
* 64-bit types (`s64 u64 f64`) only occur in cases with `"x64": true`; without x64 JAX uses 32-bit types.

## Custom calls

The `cc_*` cases are lowered with `jax.ffi.ffi_call` and never run by JAX; `out*.npy` are
numpy-computed. Targets:

* `do_custom_call(b: f32[128], c: f32[2048]) -> f32[2048]`, `out[i] = b[i % 128] + c[i]`
  (the example of XLA's custom-call documentation). `cc_do_custom_call_v1..v4` lower it with
  `custom_call_api_version` 1 (`API_VERSION_ORIGINAL`, printed without `api_version=`), 2
  (`API_VERSION_STATUS_RETURNING`), 3 (`API_VERSION_STATUS_RETURNING_UNIFIED`) and 4
  (`API_VERSION_TYPED_FFI`, `backend_config={{}}` dictionary). `jax.ffi.ffi_call` (JAX 0.10.2) can produce all four.
* `axpby`: `z = alpha * x + beta * y`. In `cc_axpby_ffi` (typed FFI) `alpha` and `beta` are f32
  attributes in the `backend_config` dictionary (`alpha = 2.0`, `beta = -0.5`); in `cc_axpby_legacy`
  (api_version 2) they are rank-0 f32 operands: operands `(x, y, alpha, beta)`.
* `add_sub(x: f32[N], y: f32[N]) -> (x + y, x - y)` (a tuple-shaped custom-call), used in `cc_in_graph`.

## Notes

* `module.pb` holds the same module as `module.hlo`: printing the proto with XLA
  (`xla_client.XlaComputation(pb).as_hlo_text()`) gives `module.hlo` exactly, for every case.
  The text is unoptimized HLO straight from StableHLO (no fusion, layouts are the default
  descending ones); note `/*index=5*/` comments in long tuple shapes.
* x64 cases are generated in a subprocess of the generator with `jax_enable_x64=True`; all
  other cases run with x64 off, so they only use 32-bit-or-smaller types.
* Tolerance policy: ints/pred exact; f32 1e-5 (1e-4 for transcendental-heavy cases);
  f16/bf16 1e-2 (2e-2 transcendental); f64 1e-12 (1e-10 transcendental).
* Several cases pin down XLA-defined edge semantics on purpose (all values come from XLA on CPU):
  integer `x / 0 = -1` (all ones), `x % 0 = x`, `INT_MIN / -1 = INT_MIN` (`int_div_edge`);
  shifts by amounts >= bit width or negative (`int_ops_*`); saturating float->int converts with
  NaN -> 0 (`convert_saturate`); clamped `dynamic-slice`/`dynamic-update-slice` starts;
  clamped `conditional` branch index (`switch`); dropped out-of-bounds scatter updates
  (`scatter_ops`); NaN propagation of `maximum`/`minimum` (`binary_math_f32`).
* Random numbers: `random_threefry` is pure HLO (threefry2x32 from shifts/xors/adds inside
  a `while`); `random_rbg` uses `jax.random` with `impl="rbg"` (same effect as
  `jax_default_prng_impl="rbg"`), i.e. `rng-bit-generator` with `algorithm=rng_default`
  (Philox on XLA:CPU); `rng_bit_generator` uses the three explicit algorithms.
* `top_k` lowers to the HLO `topk` opcode, which the IR does not have (listed below).

## Cases
"""


def write_readme(out_root: Path, ir_ops: list[str]):
    metas = []
    for mj in sorted(out_root.glob("*/meta.json")):
        metas.append(json.loads(mj.read_text()))
    lines = [README_HEAD.format(jax_version=jax.__version__)]
    lines.append(f"{len(metas)} cases.\n")
    lines.append("| case | x64 | description | opcodes |")
    lines.append("|---|---|---|---|")
    covered: set[str] = set()
    for m in metas:
        covered.update(m["opcodes"])
        desc = m["description"].replace("|", "\\|")
        ops = ", ".join(o for o in m["opcodes"] if o not in ("parameter",))
        lines.append(f"| `{m['name']}` | {'yes' if m['x64'] else ''} | {desc} | {ops} |")
    missing = [o for o in ir_ops if o not in covered]
    extra = sorted(covered - set(ir_ops))
    lines.append("")
    lines.append("## Opcode coverage")
    lines.append("")
    lines.append("IR opcodes (`Op::name` in `crates/hlox-hlo/src/ir.rs`) covered by no case: "
                 + (", ".join(f"`{o}`" for o in missing) if missing else "none") + ".")
    lines.append("`bitcast`, `copy` and `fusion` occur only in HLO after XLA's optimization passes and StableHLO "
                 "has no op that converts to them, so a lowered JAX program cannot contain them. "
                 "JAX by itself never emits `logistic` (sigmoid lowers to `1/(1+exp(-x))`), `map` or `after-all`; "
                 "`direct_hlo_ops` covers them with tiny custom primitives whose lowering rules emit the StableHLO ops "
                 "directly (XLA still compiles and runs that case, so its outputs are XLA's).")
    lines.append("")
    lines.append("Opcodes in the corpus that the IR does not have: "
                 + (", ".join(f"`{o}`" for o in extra) if extra else "none") + ".")
    lines.append("")
    (out_root / "README.md").write_text("\n".join(lines))
    return missing, extra, covered


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(REPO / "tests" / "corpus"))
    ap.add_argument("--only", nargs="*", metavar="NAME")
    ap.add_argument("--list", action="store_true", help="list case names and exit")
    ap.add_argument(X64_WORKER_FLAG, action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    out_root = Path(args.out)

    if args.list:
        for c in CASES.values():
            print(f"{c.name}{'  (x64)' if c.x64 else ''}: {c.description}")
        return 0

    names = list(CASES) if not args.only else args.only
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}; see --list", file=sys.stderr)
        return 2

    failures = []
    if args.x64_worker:
        for n in names:
            c = CASES[n]
            try:
                generate(c, out_root)
                print(f"  ok  {n} (x64)")
            except Exception as e:  # report all failures, then exit non-zero
                failures.append(n)
                print(f"FAIL  {n}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1 if failures else 0

    out_root.mkdir(parents=True, exist_ok=True)
    x64_names = [n for n in names if CASES[n].x64]
    for n in names:
        if CASES[n].x64:
            continue
        try:
            generate(CASES[n], out_root)
            print(f"  ok  {n}")
        except Exception as e:
            failures.append(n)
            print(f"FAIL  {n}: {type(e).__name__}: {e}", file=sys.stderr)
    if x64_names:
        r = subprocess.run([sys.executable, __file__, X64_WORKER_FLAG, "--out", str(out_root), "--only", *x64_names])
        if r.returncode != 0:
            failures.append("x64 worker")

    missing, extra, covered = write_readme(out_root, ir_opcodes())
    total = sum(p.stat().st_size for p in out_root.rglob("*") if p.is_file())
    print(f"\ncorpus: {len(list(out_root.glob('*/meta.json')))} cases, {total / 1024:.0f} KiB in {out_root}")
    print(f"IR opcodes covered by no case ({len(missing)}): {' '.join(missing) if missing else 'none'}")
    print(f"opcodes in corpus not in the IR: {' '.join(extra) if extra else 'none'}")
    if failures:
        print(f"FAILED: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
