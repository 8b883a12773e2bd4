#!/usr/bin/env python3
"""Record JAX's jvp, vjp, grad and vmap of small programs for hlox-transform.

For each program this writes, under ``tests/transform_corpus/<name>/``:

* ``forward.hlo`` -- ``jax.jit(f).lower(*args).as_text(dialect="hlo")``: the
  forward program only; hlox differentiates and batches it itself.
* ``case.json``   -- the inputs, and JAX's results on them:
  ``wrt`` (the differentiated parameters: every floating-point one),
  ``jvp``  (tangents, and the result leaves' tangents from ``jax.jvp``),
  ``vjp``  (one cotangent per result leaf, and the ``wrt`` cotangents
  from ``jax.vjp``), ``grad`` (``jax.grad``, when the result is a scalar),
  ``vmap`` (``in_axes``, ``size``, batched inputs and ``jax.vmap``'s
  result leaves, each batched at axis 0).

Arrays are stored inline as ``{"dtype", "shape", "data"}`` (row-major), so
the whole corpus stays a few KB per program.

Usage::

    .venv-jax/bin/python scripts/gen_transform_corpus.py [--only NAME ...]

The Rust test ``crates/hlox-transform/tests/jax_corpus.rs`` reads it.
"""

from __future__ import annotations

import argparse
from functools import partial
import json
import re
import zlib
from pathlib import Path

import numpy as np

import os

# 4 Host devices, for the shard_map cases (the others run on device 0 as
# before).
os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"

import jax  # noqa: E402

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")

import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "transform_corpus"

CASES = {}


def case(in_axes, size=3, reverse=True, hvp=False, hlo=None, devices=1, rewrite=None, forward=True, platform=None):
    """Registers a program: ``build(rng) -> (f, args)``; ``in_axes`` for vmap;
    ``reverse=False`` where JAX itself has no reverse mode (then no ``vjp``
    or ``grad`` is recorded); ``hvp=True`` also records a Hessian-vector
    product (the vjp of ``jax.grad``; the result must be a scalar);
    ``hlo``: the forward HLO written by hand, for what JAX does not emit
    (``build``'s function is the same math; the Rust test checks the two
    agree on the recorded outputs); ``in_axes=None``: no vmap recorded;
    ``devices``: how many devices the program runs on (``hlox run
    --devices N``); ``rewrite``: a function of the lowered HLO text giving
    the forward HLO, for ops JAX does not emit but XLA's passes do (a
    variadic all-reduce, the tuple form of all-to-all, collective-broadcast):
    the rewritten module computes the same math, which the recorded
    outputs check; ``forward=False``: JAX has no derivative of the program
    at all (``pmax``), so only the outputs and vmap are recorded;
    ``platform``: lower the forward HLO as for that platform (``"tpu"``
    keeps complex convolutions, which JAX expands into three real ones on
    CPU and GPU; the recorded results still come from the CPU)."""

    def wrap(build):
        CASES[build.__name__] = (build, in_axes, size, reverse, hvp, hlo, devices, rewrite, forward, platform)
        return build

    return wrap


def f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


@case(in_axes=(0, None, None, None, None))
def mlp(rng):
    def f(x, w1, b1, w2, b2):
        h = jnp.tanh(x @ w1 + b1)
        return jnp.sum(jax.nn.sigmoid(h @ w2 + b2) ** 2)

    return f, [f32(rng, 4, 3), f32(rng, 3, 5), f32(rng, 5), f32(rng, 5, 2), f32(rng, 2)]


@case(in_axes=(0, 0))
def softmax_cross_entropy(rng):
    def f(logits, labels):
        return -jnp.mean(jnp.sum(labels * jax.nn.log_softmax(logits), axis=-1))

    labels = np.eye(4, dtype=np.float32)[[0, 3, 1]]
    return f, [f32(rng, 3, 4), labels]


@case(in_axes=(0, None, None))
def layernorm(rng):
    def f(x, g, b):
        m = jnp.mean(x, axis=-1, keepdims=True)
        v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
        return jnp.sum(jnp.sin((x - m) * lax.rsqrt(v + 1e-5) * g + b))

    return f, [f32(rng, 3, 6), f32(rng, 6), f32(rng, 6)]


@case(in_axes=(0, None, None, None))
def attention(rng):
    def f(x, wq, wk, wv):
        q, k, v = x @ wq, x @ wk, x @ wv
        s = jnp.einsum("td,sd->ts", q, k) / 2.0
        mask = jnp.tril(jnp.ones((4, 4), bool))
        s = jnp.where(mask, s, -1e9)
        p = jax.nn.softmax(s, axis=-1)
        return jnp.sum(jnp.tanh(p @ v))

    return f, [f32(rng, 4, 4), f32(rng, 4, 4), f32(rng, 4, 4), f32(rng, 4, 4)]


@case(in_axes=(0, 1))
def elementwise_zoo(rng):
    def f(x, y):
        a = jnp.exp(x) * jnp.sin(y) + jnp.cos(x * y) - jnp.log1p(y * y)
        b = jnp.sqrt(jnp.exp(x)) + lax.rsqrt(1.0 + x * x) + jnp.arctan2(x, y + 3.0)
        c = jax.scipy.special.erf(x) + jnp.cbrt(y + 4.0) + jnp.expm1(x / 3) + jnp.abs(y)
        d = jnp.power(jnp.exp(y), x) + jnp.tan(x / 4) + jnp.log(y + 4.0) / (x * x + 1.0)
        return jnp.sum(a * b - c / (2.0 + jnp.tanh(d)))

    return f, [f32(rng, 5), f32(rng, 5)]


@case(in_axes=(0,))
def reduce_max_ties(rng):
    # JAX splits a max's derivative evenly among tied elements.
    def f(x):
        return jnp.sum(jnp.max(x, axis=1) * jnp.array([1.0, 2.0, 3.0])) + jnp.min(x)

    x = np.array([[1, 3, 3, 2], [0, 0, 0, 0], [5, -1, 2, 5]], np.float32)
    return f, [x]


@case(in_axes=(0, 0))
def maximum_ties(rng):
    def f(x, y):
        return jnp.sum(jnp.maximum(x, y) * 2.0 + jnp.minimum(x * 2.0, y))

    x = np.array([1, 2, 3, 4, 5], np.float32)
    y = np.array([1, 0, 6, 4, 2], np.float32)
    return f, [x, y]


@case(in_axes=(0, None))
def slicing_and_padding(rng):
    def f(x, y):
        a = x[1:7:2] * y[:3]
        b = lax.pad(a, 0.5, [(2, -1, 1)])
        c = jnp.concatenate([b, jnp.flip(x), y], axis=0)
        d = jnp.pad(x.reshape(2, 4), ((1, 0), (0, 2)))
        return jnp.sum(c**2) + jnp.sum(jnp.sin(d.T))

    return f, [f32(rng, 8), f32(rng, 5)]


@case(in_axes=(0, None))
def batched_matmul(rng):
    def f(a, b):
        return jnp.sum(jnp.tanh(jnp.einsum("bij,jbk->bik", a, b)))

    return f, [f32(rng, 2, 3, 4), f32(rng, 4, 2, 5)]


@case(in_axes=(0, None, 0))
def dynamic_slices(rng):
    def f(x, i, u):
        s = lax.dynamic_slice(x, (i, 1), (2, 2))
        y = lax.dynamic_update_slice(x, u * s, (1, i))
        return jnp.sum(jnp.exp(y / 4.0))

    return f, [f32(rng, 4, 5), np.int32(2), f32(rng, 2, 2)]


@case(in_axes=(0, None))
def clip_where_convert(rng):
    def f(x, k):
        c = jnp.clip(x, -0.5, 0.5)
        w = jnp.where(x > 0.1, x * x, jnp.sin(x))
        i = (jnp.arange(6) % 3 == k).astype(jnp.float32)
        return jnp.sum(c * w * i + w)

    return f, [f32(rng, 6), np.int32(1)]


@case(in_axes=(1, 0))
def broadcast_reshape_transpose(rng):
    def f(x, v):
        y = x.reshape(3, 2, 2).transpose(2, 0, 1) + v[None, :, None]
        return (jnp.sum(y * y, axis=(0, 2)), jnp.cos(y))

    return f, [f32(rng, 6, 2), f32(rng, 3)]


@case(in_axes=(0, None))
def two_results(rng):
    def f(x, w):
        h = x @ w
        return jnp.tanh(h), jnp.sum(h, axis=0) * 2.0

    return f, [f32(rng, 3, 4), f32(rng, 4, 2)]


@case(in_axes=(0,))
def max_pool(rng):
    def f(x):
        y = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        z = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 1, 1, 1), "SAME")
        return jnp.sum(jnp.tanh(y)) + jnp.sum(z * z)

    return f, [f32(rng, 2, 4, 4, 3)]


@case(in_axes=(1,))
def sum_pool(rng):
    def f(x):
        y = lax.reduce_window(x, 0.0, lax.add, (2, 3), (1, 2), ((1, 0), (1, 2)))
        return jnp.sum(jnp.sin(y))

    return f, [f32(rng, 5, 7)]


@case(in_axes=(0,))
def cumsum(rng):
    def f(x):
        return jnp.sum(jnp.cos(jnp.cumsum(x, axis=1)))

    return f, [f32(rng, 3, 6)]


@case(in_axes=(None, 0))
def embedding_gather(rng):
    def f(table, h):
        ids = jnp.array([1, 4, 1, 0], jnp.int32)
        e = table[ids]
        return jnp.sum(jnp.tanh(e @ h))

    return f, [f32(rng, 5, 3), f32(rng, 3, 2)]


@case(in_axes=(0, None, 0))
def scatter_add(rng):
    def f(x, ids, u):
        y = x.at[ids].add(u * 2.0)
        return jnp.sum(jnp.sin(y)) + jnp.sum(y[ids] ** 2)

    return f, [f32(rng, 6, 2), np.array([0, 3, 3], np.int32), f32(rng, 3, 2)]


@case(in_axes=(0, None))
def conditional(rng):
    def f(x, k):
        y = lax.cond(k > 0, lambda v: jnp.sin(v) * 2.0, lambda v: jnp.cos(v) + v, x)
        z = lax.switch(k, [lambda v: v * v, lambda v: jnp.exp(v / 3.0), lambda v: -v], y)
        return jnp.sum(z)

    return f, [f32(rng, 4), np.int32(1)]


@case(in_axes=(0, None), hvp=True)
def fori_loop(rng):
    def f(x, w):
        def body(i, h):
            return jnp.tanh(h @ w + 0.1 * i)

        return jnp.sum(lax.fori_loop(0, 3, body, x) ** 2)

    return f, [f32(rng, 2, 3), f32(rng, 3, 3)]


@case(in_axes=(None, 1), hvp=True)
def scan_rnn(rng):
    def f(w, xs):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, jnp.sum(h)

        h, ys = lax.scan(step, jnp.zeros(3, jnp.float32), xs)
        return jnp.sum(h) + jnp.sum(ys * ys)

    return f, [f32(rng, 3, 3), f32(rng, 4, 3)]


@case(in_axes=(0, None))
def conv_strided_dilated(rng):
    def f(x, k):
        dn = ("NHWC", "HWIO", "NHWC")
        y = lax.conv_general_dilated(x, k, (2, 1), ((1, 2), (0, 1)), (1, 1), (1, 2), dimension_numbers=dn)
        z = lax.conv_general_dilated(jnp.tanh(y), k[:, :, :2, :], (1, 1), ((1, 1), (1, 0)), (2, 1), (1, 1), dimension_numbers=dn)
        return jnp.sum(jnp.sin(z))

    return f, [f32(rng, 2, 6, 5, 3), f32(rng, 3, 2, 3, 2)]


@case(in_axes=(0, None))
def conv_nchw(rng):
    def f(x, k):
        y = lax.conv_general_dilated(x, k, (1, 2), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return jnp.sum(y * y)

    return f, [f32(rng, 2, 3, 5, 6), f32(rng, 4, 3, 2, 3)]


def conv_groups(x, k, kd):
    """A convolution with 2 feature groups, then a depthwise one (as many
    groups as features), NHWC."""
    dn = ("NHWC", "HWIO", "NHWC")
    y = lax.conv_general_dilated(x, k, (1, 2), ((1, 0), (0, 1)), (1, 1), (1, 1), dimension_numbers=dn, feature_group_count=2)
    z = lax.conv_general_dilated(jnp.tanh(y), kd, (1, 1), "SAME", (1, 1), (2, 1), dimension_numbers=dn, feature_group_count=6)
    return jnp.sum(jnp.sin(z))


@case(in_axes=(0, 0, None))
def conv_grouped(rng):
    # Both gradients of grouped and depthwise convolutions; vmap with the
    # input and the grouped kernel batched (the batch becomes more groups).
    return conv_groups, [f32(rng, 2, 5, 6, 4), f32(rng, 2, 2, 2, 6), f32(rng, 2, 1, 1, 6)]


@case(in_axes=(None, 0, 0, 0))
def conv_batched_kernel(rng):
    # vmap over the kernels only: of a grouped convolution (the batch goes
    # inside each group of the output features), then of a depthwise one
    # whose input is batched too, and of an ungrouped one.
    def f(x, k, kd, kp):
        p = lax.conv_general_dilated(x, kp, (2, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return conv_groups(x, k, kd) + jnp.sum(p * p)

    return f, [f32(rng, 2, 5, 6, 4), f32(rng, 2, 2, 2, 6), f32(rng, 2, 1, 1, 6), f32(rng, 2, 2, 4, 3)]


@case(in_axes=(0, 0, None))
def conv_batch_groups(rng):
    # batch_group_count (what the kernel gradient of a grouped convolution
    # is): both gradients, and vmap with input and kernel batched, and with
    # the input only.
    def f(x, k, k2):
        dn = ("NCHW", "OIHW", "NCHW")
        y = lax.conv_general_dilated(x, k, (1, 1), "VALID", dimension_numbers=dn, batch_group_count=2)
        w = lax.conv_general_dilated(x, k2, (2, 1), ((0, 1), (1, 0)), dimension_numbers=dn, batch_group_count=2)
        return jnp.sum(jnp.sin(y)) + jnp.sum(w * w)

    return f, [f32(rng, 4, 3, 5, 5), f32(rng, 4, 3, 2, 2), f32(rng, 6, 3, 2, 3)]


def pick_reduce(x, axis, better):
    """(value, index) of the element `better` picks along `axis`, lower
    index on ties: a variadic reduce whose value result is used."""
    idx = lax.broadcasted_iota(jnp.int32, x.shape, axis)

    def comp(a, b):
        (av, ai), (bv, bi) = a, b
        pick = better(av, bv) | ((av == bv) & (ai < bi))
        return lax.select(pick, av, bv), lax.select(pick, ai, bi)

    init = -jnp.inf if better is lax.gt else jnp.inf
    return lax.reduce((x, idx), (jnp.float32(init), jnp.int32(0)), comp, (axis,))


@case(in_axes=(0, None))
def argmax_value(rng):
    # The value result of argmax/argmin-style reductions: its cotangent
    # flows to the chosen element.
    # JAX's own jvp of a variadic reduce fails on the indices' symbolic
    # zero tangent, so its derivatives are recorded from the same function
    # written with argmax/argmin and take_along_axis.
    def f(x, w):
        v, i = pick_reduce(jnp.tanh(x) * w, 1, lax.gt)
        u, j = pick_reduce(x * x, 0, lax.lt)
        return jnp.sum(jnp.sin(v) * i) + jnp.sum(u * u * jnp.asarray(w)[j, 0])

    def reference(x, w):
        y = jnp.tanh(x) * w
        i = jnp.argmax(y, 1)
        v = jnp.take_along_axis(y, i[:, None], 1)[:, 0]
        z = x * x
        j = jnp.argmin(z, 0)
        u = jnp.take_along_axis(z, j[None, :], 0)[0]
        return jnp.sum(jnp.sin(v) * i) + jnp.sum(u * u * jnp.asarray(w)[j, 0])

    return f, [f32(rng, 4, 5), f32(rng, 4, 5)], reference


MAP_HLO = """HloModule map_elementwise

neg_square_exp {
  a = f32[] parameter(0)
  na = f32[] negate(a)
  aa = f32[] multiply(na, a)
  ROOT e = f32[] exponential(aa)
}

g {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] sine(a)
  sb = f32[] multiply(s, b)
  e = f32[] call(a), to_apply=neg_square_exp
  half = f32[] constant(0.5)
  m = f32[] maximum(b, half)
  t = f32[] add(sb, e)
  ROOT r = f32[] multiply(t, m)
}

ENTRY main {
  x = f32[3,4] parameter(0)
  y = f32[3,4] parameter(1)
  mp = f32[3,4] map(x, y), dimensions={0,1}, to_apply=g
  ROOT th = f32[3,4] tanh(mp)
}
"""


@case(in_axes=(0, 1), hlo=MAP_HLO)
def map_elementwise(rng):
    # HLO's map (JAX never emits one: written by hand above), its
    # computation with a call, a constant and a maximum.
    def f(x, y):
        return jnp.tanh((jnp.sin(x) * y + jnp.exp(-x * x)) * jnp.maximum(y, 0.5))

    return f, [f32(rng, 3, 4), f32(rng, 3, 4)]


def c64(rng, *shape):
    return (f32(rng, *shape) + 1j * f32(rng, *shape)).astype(np.complex64)


@case(in_axes=(0, None, 0))
def complex_math(rng):
    # jax.grad of a real function of complex inputs (JAX's convention: the
    # cotangent is the transpose of the jvp, never conjugated, so
    # grad(|z|^2) = 2 conj(z)); holomorphic math, dot, a complex sum,
    # abs, real, imag, conj and complex.
    def f(z, w, x):
        a = jnp.exp(z) * jnp.sin(z) / (z + 2.0) - jnp.tanh(z) * jnp.sqrt(z + 3.0)
        b = a @ w
        c = jnp.sum(b, axis=1) + jnp.log(z[:, 0] + 4.0)
        d = jnp.abs(c) ** 2 + jnp.real(c) * x - jnp.imag(jnp.conj(c) * c * 1j)
        e = lax.complex(x, x * x) * jnp.conj(c)
        return jnp.sum(d) + jnp.sum(jnp.real(e) * jnp.imag(e)) + jnp.sum(jnp.abs(w))

    return f, [c64(rng, 3, 4), c64(rng, 4, 2), f32(rng, 3)]


@case(in_axes=(0, 0))
def complex_outputs(rng):
    # Complex results: jvp tangents and vjp cotangents are complex.
    def f(z, w):
        y = jnp.cos(z) * w + z * z
        return y, jnp.abs(y) + jnp.real(w)

    return f, [c64(rng, 2, 3), c64(rng, 2, 3)]


@case(in_axes=(0, None, 0))
def complex_ops(rng):
    # Complex values of pow, max/min (JAX lowers them to compare and
    # select of the real and imaginary parts), max, min and product
    # reductions (a max's reducer is such a select), sort (lexicographic),
    # scatter that adds and that assigns, cumsum, and the four FFTs.
    def f(z, w, x):
        p = lax.pow(z * 0.5 + 3.0, jnp.broadcast_to(w * 0.5, z.shape))
        mx = jnp.maximum(z, p) * jnp.minimum(z, w)
        r = jnp.max(z, axis=1) * jnp.min(p, axis=0)[:3] + jnp.prod(z * 0.7, axis=1)
        s = jnp.sort(z * w, axis=1)
        sc = jnp.asarray(z).at[jnp.array([2, 0, 2])].add(p * 2.0).at[jnp.array([1])].set(w[None, :] * 3.0)
        c = jnp.cumsum(z, axis=1)
        ff = jnp.fft.fft(z * w) + jnp.fft.ifft(mx) + jnp.fft.rfft(x, axis=1)[:, :4] * x[:, :4].astype(z.dtype)
        ir = jnp.fft.irfft(z, axis=1)
        terms = [p, mx, r, s, sc, c, ff]
        a = sum(jnp.sum(jnp.real(t) ** 2 - jnp.imag(t) * (k + 1.0)) for k, t in enumerate(terms))
        return a + jnp.sum(jnp.sin(ir) * x)

    return f, [c64(rng, 3, 4), c64(rng, 4), f32(rng, 3, 6)]


@case(in_axes=(0, 0, None))
def complex_atan2(rng):
    # atan2 of complex operands (JAX's rule, holomorphic: d atan2(y, x) =
    # (x dy - y dx) / (x^2 + y^2)) in both argument positions, one operand
    # a real made complex, under a real loss (grad), with complex tangents
    # and batched operands.
    def f(y, x, r):
        a = lax.atan2(y, x + 2.0)
        b = jnp.arctan2(x * 0.5 + 1.5, y * y + r.astype(y.dtype))
        t = a * b + jnp.exp(a) / (b + 3.0)
        return jnp.sum(jnp.real(t) ** 2 - jnp.imag(t) * 0.5) + jnp.sum(jnp.abs(a))

    return f, [c64(rng, 2, 3), c64(rng, 2, 3), f32(rng, 3)]


@case(in_axes=(0, None, 0), platform="tpu", hvp=True)
def complex_conv(rng):
    # Complex convolutions (lowered as for TPU: on CPU and GPU JAX expands
    # each into three real ones): stride 2, padding and rhs dilation, then
    # 2 feature groups, under a real loss (grad), complex tangents and
    # vmap with the input and the grouped kernel batched. JAX's
    # convolution is bilinear, its transposes plain (no conjugate).
    def f(x, k, kg):
        dn = ("NHWC", "HWIO", "NHWC")
        y = lax.conv_general_dilated(x, k, (2, 1), ((1, 2), (0, 1)), (1, 1), (1, 2), dimension_numbers=dn)
        h = jnp.tanh(y * 0.5) + y
        z = lax.conv_general_dilated(h, kg, (1, 2), ((1, 0), (1, 1)), (1, 1), (1, 1), dimension_numbers=dn, feature_group_count=2)
        return jnp.sum(jnp.abs(z) ** 2) + jnp.sum(jnp.real(y) * jnp.imag(y))

    # Scaled so the gradients' terms are O(1): f32 rounding then stays
    # within the comparison's absolute tolerance where they cancel.
    return f, [c64(rng, 2, 6, 5, 4) * 0.5, c64(rng, 3, 2, 4, 4) * 0.3, c64(rng, 2, 2, 2, 6) * 0.3]


@case(in_axes=(0, 0), platform="tpu")
def complex_conv_outputs(rng):
    # Complex results of complex convolutions (complex cotangents), NCHW
    # with stride 2 and lhs dilation, a real input made complex (its
    # cotangent is the real part), and vmap with the kernel batched.
    def f(x, k):
        dn = ("NCHW", "OIHW", "NCHW")
        y = lax.conv_general_dilated(x.astype(k.dtype), k, (2, 1), ((1, 1), (0, 2)), (2, 1), (1, 1), dimension_numbers=dn)
        return y, jnp.sin(y) * y

    return f, [f32(rng, 2, 3, 4, 5), c64(rng, 4, 3, 2, 3)]


def product_window(x):
    """A strided, padded 2x2 product window (`lax.reduce_window` with
    `lax.mul`)."""
    one = jnp.ones((), x.dtype)
    return lax.reduce_window(x, one, lax.mul, (2, 2), (2, 1), ((0, 1), (1, 0)))


def product_window_by_slices(x):
    """`product_window` as products of strided slices of `x` padded with
    ones: the same math, which JAX differentiates in reverse mode too (it
    has only a jvp for a general `reduce_window`)."""
    p = jnp.pad(x, ((0, 1), (1, 0)), constant_values=1)
    h, w = (p.shape[0] - 2) // 2 + 1, p.shape[1] - 1
    return p[0 : 2 * h : 2, :w] * p[1 : 2 * h : 2, :w] * p[0 : 2 * h : 2, 1:] * p[1 : 2 * h : 2, 1:]


@case(in_axes=(0, 0), hvp=True)
def reduce_windows(rng):
    # Product reduce-windows, real and complex: jnp.cumprod (which JAX
    # lowers to one on the CPU and differentiates in both modes) and a
    # strided, padded 2x2 window (JAX: jvp only, so the derivatives are
    # recorded from the same products written with slices). A zero in x
    # checks the derivatives are exact there (no division). And a sum
    # window with base and window dilation, a max window with base
    # dilation.
    def f(x, z, window=product_window):
        a = jnp.sum(jnp.sin(jnp.cumprod(x, axis=1))) + jnp.sum(window(x) ** 2)
        s = lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 2), ((1, 0), (0, 1)), base_dilation=(2, 1), window_dilation=(1, 2))
        mx = lax.reduce_window(x, -jnp.inf, lax.max, (2, 3), (1, 1), ((0, 1), (1, 0)), base_dilation=(1, 2))
        a = a + jnp.sum(jnp.cos(s)) + jnp.sum(jnp.sin(mx))
        c = jnp.cumprod(z * 0.8, axis=0)
        b = jnp.sum(jnp.real(c) * jnp.imag(c)) + jnp.sum(jnp.abs(window(z)) ** 2)
        return a + b

    x = f32(rng, 4, 5)
    x[1, 2] = 0.0
    return f, [x, c64(rng, 4, 3)], partial(f, window=product_window_by_slices)


@case(in_axes=(0, 0))
def variadic_reduce(rng):
    # lax.reduce of tuples whose computation reduces each operand on its
    # own (two sums; a product and a max, with a pair of tied maxima),
    # which hlox splits into one reduce per operand; JAX differentiates
    # the general reduce by its own rule.
    def f(x, y):
        a, b = lax.reduce((x, y), (np.float32(0), np.float32(0)), lambda p, q: (p[0] + q[0], p[1] + q[1]), (1,))
        c, d = lax.reduce(
            (x * y, jnp.cos(x)),
            (np.float32(1), np.float32(-np.inf)),
            lambda p, q: (p[0] * q[0], jnp.maximum(p[1], q[1])),
            (0,),
        )
        return jnp.sum(jnp.sin(a) * b) + jnp.sum(c * d)

    x = f32(rng, 3, 4)
    x[2, 1] = x[0, 1]
    return f, [x, f32(rng, 3, 4)]


@case(in_axes=(0, None), hvp=True)
def variadic_reduce_mixing(rng):
    # lax.reduce of tuples whose computation mixes its operands: an online
    # log-sum-exp ((max, scaled sum) pairs) over two of three dimensions
    # (15 elements: odd halves padded with the init values), and a mean
    # combined with its count over 3 rows. hlox makes them trees of
    # element-wise steps as JAX's _reduce_jvp does. The counts and scaled
    # sums start as x * 0 + 1: JAX's rule fails on a symbolic zero tangent.
    def lse_step(p, q):
        m = jnp.maximum(p[0], q[0])
        return (m, p[1] * jnp.exp(p[0] - m) + q[1] * jnp.exp(q[0] - m))

    def mean_step(p, q):
        c = p[0] + q[0]
        return (c, (p[0] * p[1] + q[0] * q[1]) / c)

    def f(x, y):
        m, s = lax.reduce((x, x * 0 + 1), (np.float32(-np.inf), np.float32(0)), lse_step, (0, 2))
        c, mu = lax.reduce((y * 0 + 1, jnp.sin(y) * x[0, 0]), (np.float32(0), np.float32(0)), mean_step, (0,))
        return jnp.sum((m + jnp.log(s)) * mu[:2]) + jnp.sum(mu * mu * c)

    return f, [f32(rng, 3, 2, 5), f32(rng, 3, 5)]


@case(in_axes=(0, None), devices=4, hvp=True)
def shard_map_collectives(rng):
    # A shard_map over 4 devices with psum, all_gather, ppermute,
    # psum_scatter and all_to_all, the loss psum'd so it is replicated: jax.grad of it
    # against hlox's grad run with --devices 4, and jax.vmap of it.
    from jax import shard_map
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()[:4]), ("x",))

    def body(xs, w):
        h = jnp.tanh(xs @ w)
        s = lax.psum(jnp.sum(h * h), "x")
        g = lax.all_gather(h, "x", tiled=True)
        p = lax.ppermute(h, "x", [(i, (i + 1) % 4) for i in range(4)])
        r = lax.psum_scatter(g * g, "x", scatter_dimension=0, tiled=True)
        a = lax.all_to_all(jnp.tile(h, (2, 1)), "x", 0, 0, tiled=True)
        local = jnp.sum(p * h) + jnp.sum(r * xs) + jnp.sum(jnp.sin(g[:, 0])) + jnp.sum(jnp.cos(a) * a[::-1])
        return lax.psum(local, "x") + s

    f = shard_map(body, mesh=mesh, in_specs=(P("x"), P()), out_specs=P(), check_vma=False)
    return f, [f32(rng, 8, 3), f32(rng, 3, 3)]


def _instructions(text):
    """The HLO text's instruction lines: (index, name, shape, opcode, operands, rest)."""
    out = []
    for i, line in enumerate(text.splitlines()):
        m = re.match(r"^(\s*)(ROOT )?([\w.\-]+) = (\S+) ([\w\-]+)\(([^)]*)\)(.*)$", line)
        if m:
            out.append((i, m.group(3), m.group(4), m.group(5), [o.strip() for o in m.group(6).split(",") if o.strip()], m.group(7)))
    return out


def _xla_collectives(text):
    """JAX's lowering of `shard_map_more_collectives`, rewritten into the
    forms XLA's passes make: the tuple psum's two all-reduces (the first
    two `psum` ones) as one variadic all-reduce, the (array) all-to-all as
    its tuple form (one operand per device, the chunks of the split
    dimension), and the broadcast from device 0 -- lowered as a `pmax` of
    the value masked to device 0 -- as `collective-broadcast`."""
    lines = text.splitlines()
    insts = _instructions(text)
    by_name = {name: (i, shape, op, ops, rest) for i, name, shape, op, ops, rest in insts}
    psums = [x for x in insts if x[3] == "all-reduce" and x[1].startswith("psum")][:2]
    (i0, n0, s0, _, o0, r0), (i1, n1, s1, _, o1, r1) = psums
    assert r0.split("to_apply")[0] == r1.split("to_apply")[0], (r0, r1)
    lines[i0] = ""
    lines[i1] = "\n".join([
        f"  {n0}.{n1} = ({s0}, {s1}) all-reduce({o0[0]}, {o1[0]}){r0}",
        f"  {n0} = {s0} get-tuple-element({n0}.{n1}), index=0",
        f"  {n1} = {s1} get-tuple-element({n0}.{n1}), index=1",
    ])
    (i, n, shape, _, ops, rest), = [x for x in insts if x[3] == "all-to-all"]
    dims = [int(d) for d in re.match(r"f32\[([\d,]+)\]", shape).group(1).split(",")]
    assert re.search(r"dimensions=\{0\}", rest), rest
    k = dims[0] // 4
    chunk = "f32[" + ",".join(str(d) for d in [k] + dims[1:]) + "]"
    groups = re.search(r"replica_groups=\{\{[\d,]+\}\}", rest).group(0)
    channel = re.search(r"channel_id=\d+", rest).group(0)
    new = []
    for j in range(4):
        sl = ", ".join([f"[{j * k}:{(j + 1) * k}]"] + [f"[0:{d}]" for d in dims[1:]])
        new.append(f"  {n}.s{j} = {chunk} slice({ops[0]}), slice={{{sl}}}")
    tup = "(" + ", ".join([chunk] * 4) + ")"
    new.append(f"  {n}.t = {tup} all-to-all({', '.join(f'{n}.s{j}' for j in range(4))}), {channel}, {groups}")
    for j in range(4):
        new.append(f"  {n}.g{j} = {chunk} get-tuple-element({n}.t), index={j}")
    new.append(f"  {n} = {shape} concatenate({', '.join(f'{n}.g{j}' for j in range(4))}), dimensions={{0}}")
    lines[i] = "\n".join(new)
    (i, n, shape, _, ops, rest), = [x for x in insts if x[3] == "all-reduce" and x[1].startswith("pmax")]
    # The masked value: jnp.where's select (or its call of `_where`), whose
    # second operand is the value.
    _, _, sel, sel_ops, _ = by_name[ops[0]]
    assert sel in ("select", "call"), sel
    rest = re.sub(r", to_apply=[\w.\-]+", "", rest)
    lines[i] = f"  {n} = {shape} collective-broadcast({sel_ops[1]}){rest}"
    return "\n".join(l for l in lines if l != "") + "\n"


def _more_collectives(broadcast):
    from jax import shard_map
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()[:4]), ("x",))

    def body(xs, w):
        h = jnp.tanh(xs @ w)
        a, b = lax.psum((h, jnp.sin(h)), "x")
        t = lax.all_to_all(jnp.tile(h * a, (2, 1)), "x", 0, 0, tiled=True)
        c = broadcast(jnp.cos(h) * b)
        local = jnp.sum(a * b) + jnp.sum(jnp.sin(t) * t[::-1]) + jnp.sum(c * xs)
        return lax.psum(local, "x")

    return shard_map(body, mesh=mesh, in_specs=(P("x"), P()), out_specs=P(), check_vma=False)


@case(in_axes=(0, None), devices=4, hvp=True, rewrite=_xla_collectives)
def shard_map_more_collectives(rng):
    # The collectives XLA's passes make and JAX does not emit, in a
    # shard_map over 4 devices: a variadic all-reduce (psum of a tuple), the
    # tuple form of all-to-all, and collective-broadcast (lax.pbroadcast,
    # which JAX cannot lower for the CPU). The forward HLO is JAX's
    # lowering rewritten into those forms (`_xla_collectives`); the
    # broadcast is recorded as what it computes: lowered as a pmax of the
    # value masked to device 0 (the same values), differentiated as a psum
    # of it (pbroadcast's definition).
    def first(v, neutral):
        return jnp.where(lax.axis_index("x") == 0, v, neutral)

    f = _more_collectives(lambda v: lax.pmax(first(v, -jnp.inf), "x"))
    ref = _more_collectives(lambda v: lax.psum(first(v, 0.0), "x"))
    return f, [f32(rng, 8, 3), f32(rng, 3, 3)], ref


@case(in_axes=(0, 1), devices=4, forward=False)
def shard_map_pmax_pmin(rng):
    # pmax and pmin: JAX defines no derivative for them (nor does hlox:
    # jvp and vjp refuse, naming the all-reduce), and batches them.
    from jax import shard_map
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()[:4]), ("x",))

    def body(xs, w):
        return lax.pmax(jnp.sin(xs @ w), "x") + lax.pmin(xs, "x") * 2.0

    f = shard_map(body, mesh=mesh, in_specs=(P("x"), P()), out_specs=P("x"), check_vma=False)
    return f, [f32(rng, 8, 3), f32(rng, 3, 3)]


@case(in_axes=(0,))
def sort_and_top(rng):
    def f(x):
        s = jnp.sort(x, axis=1)
        w = jnp.arange(5, dtype=jnp.float32)
        order = jnp.argsort(x[:, 0])
        return jnp.sum(jnp.sin(s) * w) + jnp.sum(x[order, 1] * jnp.array([1.0, -2.0, 3.0]))

    x = rng.standard_normal((3, 5)).astype(np.float32)
    return f, [x]


@case(in_axes=(0,))
def argmax_pick(rng):
    def f(x):
        i = jnp.argmax(x, axis=1)
        j = jnp.argmin(x, axis=0)
        picked = jnp.take_along_axis(x, i[:, None], axis=1)
        return jnp.sum(picked**2) + jnp.sum(jnp.max(x, axis=1) * (i + j[:3]).astype(jnp.float32))

    return f, [f32(rng, 3, 4)]


@case(in_axes=(0, 1))
def product_reduce(rng):
    # Product reductions, one over an element that is exactly zero (where
    # prod / x would divide by zero).
    def f(x, y):
        return jnp.sum(jnp.sin(jnp.prod(x, axis=1))) + jnp.sum(jnp.prod(y, axis=(0, 2)) ** 2)

    x = f32(rng, 3, 4)
    x[1, 2] = 0.0
    return f, [x, f32(rng, 2, 3, 2)]


@case(in_axes=(0, None))
def top_k(rng):
    def f(x, w):
        v, i = lax.top_k(x, 2)
        return jnp.sum(jnp.sin(v) * w) + jnp.sum(i.astype(jnp.float32) * v)

    return f, [f32(rng, 3, 5), f32(rng, 2)]


@case(in_axes=(0, 0))
def scatter_set(rng):
    # x.at[i].set(v): an assigning scatter (the overwritten rows get no
    # cotangent; the updates get the rows they wrote).
    def f(x, v):
        y = x.at[jnp.array([2, 0])].set(v * 2.0)
        return jnp.sum(jnp.sin(y) * jnp.arange(4.0))

    return f, [f32(rng, 3, 4), f32(rng, 2, 4)]


@case(in_axes=(0, 0), hvp=True)
def scatter_mul(rng):
    # x.at[i].multiply(u): with unique indices, differentiated with respect
    # to both the operand and the updates (JAX's rules); with a repeated
    # index and constant updates, with respect to the operand only (JAX
    # differentiates the updates of unique indices only).
    def f(x, u):
        y = jnp.asarray(x).at[jnp.array([3, 0, 5])].multiply(u, unique_indices=True)
        z = y.at[jnp.array([1, 1, 4])].multiply(jnp.array([[1.5, -2.0], [0.5, 3.0], [-1.0, 2.0]], jnp.float32))
        return jnp.sum(jnp.sin(z) * z)

    return f, [f32(rng, 6, 2), f32(rng, 3, 2)]


def fold_windows(xs, inits, comp, dims, strides, padding, base_dilation=None, window_dilation=None):
    """`lax.reduce_window` of the tuple `xs` written with pads and strided
    slices: the operands padded (and base-dilated) with their init values,
    `comp` folded over the window's positions. The same math when the init
    values are the computation's identity (XLA skips padding; this
    combines it), in ops JAX differentiates in reverse mode too (it has
    only a jvp for a general `reduce_window`)."""
    import itertools

    nd = xs[0].ndim
    bd = base_dilation or (1,) * nd
    wd = window_dilation or (1,) * nd
    ps = [lax.pad(x, jnp.asarray(i, x.dtype), [(lo, hi, b - 1) for (lo, hi), b in zip(padding, bd)]) for x, i in zip(xs, inits)]
    out = [(ps[0].shape[d] - ((dims[d] - 1) * wd[d] + 1)) // strides[d] + 1 for d in range(nd)]
    acc = tuple(jnp.full(out, i, x.dtype) for x, i in zip(xs, inits))
    for k in itertools.product(*[range(n) for n in dims]):
        sl = tuple(slice(k[d] * wd[d], k[d] * wd[d] + (out[d] - 1) * strides[d] + 1, strides[d]) for d in range(nd))
        acc = tuple(comp(acc, tuple(p[sl] for p in ps)))
    return acc


@case(in_axes=(0, None, 0), hvp=True)
def variadic_reduce_window(rng):
    # lax.reduce_window of tuples whose computation mixes its operands,
    # which hlox folds over the window's positions for jvp and vjp:
    # a windowed online log-sum-exp ((max, scaled sum) pairs) with strides,
    # padding and base dilation; a max-pool that also returns the argmax
    # (values and an iota, as floats: JAX's rule fails on an integer's
    # symbolic zero tangent; ties to the lower index) with padding and
    # window dilation; and a windowed affine recurrence of complex pairs
    # ((a1, b1), (a2, b2)) -> (a1 a2, b1 a2 + b2) over padded windows.
    # Forward mode is JAX's own (its reduce_window_jvp, checked against the
    # slices below); reverse mode and the Hessian-vector product are
    # recorded from the same math written with slices (`fold_windows`).
    # The log-sum-exp's max starts at -1e30, not -inf: the slices combine
    # padding, and exp(-inf - -inf) is NaN.
    def lse_step(p, q):
        m = jnp.maximum(p[0], q[0])
        return (m, p[1] * jnp.exp(p[0] - m) + q[1] * jnp.exp(q[0] - m))

    def argmax_step(p, q):
        take = (q[0] > p[0]) | ((q[0] == p[0]) & (q[1] < p[1]))
        return (jnp.where(take, q[0], p[0]), jnp.where(take, q[1], p[1]))

    def affine_step(p, q):
        return (p[0] * q[0], p[1] * q[0] + q[1])

    def f(x, k, z, rw=lax.reduce_window):
        def windows(xs, inits, comp, dims, strides, padding, base_dilation=None, window_dilation=None):
            if rw is lax.reduce_window:
                return lax.reduce_window(xs, inits, comp, dims, strides, padding, base_dilation, window_dilation)
            return fold_windows(xs, inits, comp, dims, strides, padding, base_dilation, window_dilation)

        m, s = windows((x, x * 0 + 1), (np.float32(-1e30), np.float32(0)), lse_step, (2, 3), (1, 2), ((1, 0), (0, 1)), base_dilation=(1, 2))
        iota = x * 0 + lax.broadcasted_iota(jnp.float32, x.shape, 1)
        v, i = windows((x * k, iota), (np.float32(-np.inf), np.float32(2**30)), argmax_step, (2, 2), (1, 1), ((0, 1), (1, 1)), window_dilation=(1, 2))
        one, zero = np.complex64(1), np.complex64(0)
        a, b = windows((z * 0.8, jnp.sin(z)), (one, zero), affine_step, (3, 1), (1, 1), ((2, 0), (0, 0)))
        lse = jnp.sum(jnp.sin(m + jnp.log(s)))
        mp = jnp.sum(v * v * i)
        aff = jnp.sum(jnp.real(a) * jnp.imag(b)) + jnp.sum(jnp.abs(b) ** 2)
        return lse + mp + aff

    x = f32(rng, 4, 5)
    x[2, 1] = x[2, 3]
    k = f32(rng, 4, 5)
    z = c64(rng, 5, 2)
    ref = partial(f, rw=fold_windows)
    # JAX's own forward mode of the reduce-windows agrees with the slices'.
    ts = (f32(rng, 4, 5), f32(rng, 4, 5), c64(rng, 5, 2))
    for a, b in zip(jax.jvp(f, (x, k, z), ts), jax.jvp(ref, (x, k, z), ts)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    return f, [x, k, z], ref


@case(in_axes=(0, 0))
def complex_scatter_mul(rng):
    # x.at[i].multiply(u) of complex values: holomorphic, so JAX's rules
    # (linear in the operand; the updates of unique indices) without
    # conjugates, under a real loss.
    def f(x, u):
        y = jnp.asarray(x).at[jnp.array([2, 0])].multiply(u, unique_indices=True)
        z = y.at[jnp.array([1, 1])].multiply(jnp.array([[1.5 - 1j], [0.5 + 2j]], jnp.complex64))
        return jnp.sum(jnp.real(z) * jnp.imag(z * z))

    return f, [c64(rng, 4, 1), c64(rng, 2, 1)]


@case(in_axes=(0, 0))
def rng_bits(rng):
    # rng-bit-generator (the rbg key): bits carry no derivative; a batched
    # key generates each example's bits from its own key.
    def f(key, x):
        u = jax.random.uniform(jax.random.wrap_key_data(key, impl="rbg"), (3,))
        return jnp.sum(x * u)

    return f, [np.array([1, 2, 3, 4], np.uint32), f32(rng, 3)]


@case(in_axes=(0, 0, 0))
def batched_control(rng):
    # vmap with batched branch selectors and batched dynamic-slice starts.
    def f(x, k, i):
        y = lax.cond(k > 0, lambda v: jnp.sin(v) * 2.0, lambda v: jnp.cos(v) + v, x)
        z = lax.switch(k, [lambda v: v * v, lambda v: jnp.exp(v / 3.0), lambda v: -v], y)
        s = lax.dynamic_slice(z, (i,), (2,))
        w = lax.dynamic_update_slice(z, s * 3.0, (i + 1,))
        return jnp.sum(w * w)

    return f, [f32(rng, 5), np.int32(1), np.int32(2)]


@case(in_axes=(0, 0), reverse=False)
def while_data_dependent(rng):
    # A loop whose trip count depends on the data: shrink until below a
    # bound (vmap: the condition differs per example).
    def f(x, bound):
        def cond(c):
            v, n = c
            return jnp.sum(v * v) > jnp.abs(bound) + 0.1

        def body(c):
            v, n = c
            return v * 0.5 + 0.01, n + 1

        v, n = lax.while_loop(cond, body, (x, 0))
        return jnp.sum(jnp.sin(v)) + n.astype(jnp.float32)

    return f, [f32(rng, 4) * 3.0, np.float32(0.5)]


# jaxlib's LAPACK targets (custom calls): hlox differentiates them with the
# rules of crates/hlox-jaxlib/src/rules.rs and batches them natively.


@case(in_axes=(0, None), hvp=True)
def cholesky_factor(rng):
    # jnp.linalg.cholesky: lapack_spotrf_ffi, its upper triangle masked.
    def f(a, w):
        s = a @ a.T + 4.0 * jnp.eye(4, dtype=jnp.float32)
        return jnp.sum(jnp.linalg.cholesky(s) * w)

    return f, [f32(rng, 4, 4), f32(rng, 4, 4)]


@case(in_axes=(0, None))
def cho_solve(rng):
    # A Gaussian process's log likelihood: a Cholesky factor, two triangular
    # solves through it, and its log-determinant.
    def f(a, b):
        s = a @ a.T + 4.0 * jnp.eye(4, dtype=jnp.float32)
        c = jax.scipy.linalg.cho_factor(s, lower=True)
        x = jax.scipy.linalg.cho_solve(c, b)
        return jnp.sum(b * x) + 2.0 * jnp.sum(jnp.log(jnp.diag(c[0])))

    return f, [f32(rng, 4, 4), f32(rng, 4, 2)]


@case(in_axes=(None, 0))
def triangular_solves(rng):
    # Every side, triangle, transpose and diagonal of lapack_strsm_ffi.
    def f(a, b):
        d = jnp.diag(2.0 + jnp.tanh(jnp.diag(a)))
        lo = 0.3 * jnp.tril(a, -1) + d
        up = 0.3 * jnp.triu(a, 1) + d
        st = jax.scipy.linalg.solve_triangular
        x1 = st(lo, b, lower=True)
        x2 = st(up, b, lower=False, trans=1)
        x3 = st(lo, b, lower=True, trans="T", unit_diagonal=True)
        x4 = lax.linalg.triangular_solve(up, b.T, left_side=False, lower=False, transpose_a=True)
        x5 = lax.linalg.triangular_solve(lo, b.T, left_side=False, lower=True)
        return jnp.sum(jnp.tanh(x1 + x2 * x3)) + jnp.sum(jnp.sin(x4 * x5))

    return f, [f32(rng, 4, 4), f32(rng, 4, 3)]


@case(in_axes=(0, None))
def lu_solve_det(rng):
    # jnp.linalg.solve and det: lapack_sgetrf_ffi with its rows interchanged
    # (the dominant entries sit on the anti-diagonal), the permutation JAX
    # computes from the pivots, triangular solves.
    def f(a, b):
        m = 0.5 * a + 3.0 * jnp.eye(4, dtype=jnp.float32)[::-1]
        x = jnp.linalg.solve(m, b)
        return jnp.sum(jnp.tanh(x)) + 0.01 * jnp.linalg.det(m)

    return f, [f32(rng, 4, 4), f32(rng, 4, 2)]



@case(in_axes=(None, 0))
def batched_factorizations(rng):
    # jnp.linalg on a stack of matrices: a batched LU (pivots [2, 3]) for
    # solve and slogdet, and a batched Cholesky factor.
    def f(a, b):
        m = 0.5 * a + 3.0 * jnp.eye(3, dtype=jnp.float32)[::-1]
        x = jnp.linalg.solve(m, b[..., None])[..., 0]
        sign, logdet = jnp.linalg.slogdet(m)
        s = a @ jnp.swapaxes(a, -1, -2) + 3.0 * jnp.eye(3, dtype=jnp.float32)
        l = jnp.linalg.cholesky(s)
        return jnp.sum(jnp.tanh(x)) + 0.1 * jnp.sum(sign * logdet) + jnp.sum(l * b[..., None])

    return f, [f32(rng, 2, 3, 3), f32(rng, 2, 3)]

@case(in_axes=(0, None), hvp=True)
def eigh_spectrum(rng):
    # jnp.linalg.eigh: lapack_ssyevd_ffi on the symmetrized input. The loss
    # reads the eigenvalues and the squares of the eigenvectors' entries
    # (an eigenvector's sign is arbitrary; its square's is not).
    def f(a, w):
        s = a + a.T + jnp.diag(jnp.arange(4.0, dtype=jnp.float32)) * 3.0
        vals, vecs = jnp.linalg.eigh(s)
        return jnp.sum(vals * w[0]) + jnp.sum(vecs * vecs * w)

    return f, [f32(rng, 4, 4), f32(rng, 4, 4)]


@case(in_axes=(0, None))
def eigvalsh_batched(rng):
    # jnp.linalg.eigvalsh over a batch of matrices, upper triangle read
    # (UPLO="U"): the eigenvalues only, as a spectral penalty.
    def f(a, c):
        s = a + jnp.swapaxes(a, -1, -2) + 2.0 * jnp.eye(3, dtype=jnp.float32)
        w = jnp.linalg.eigvalsh(s, UPLO="U")
        return jnp.sum(jnp.tanh(w) * c)

    return f, [f32(rng, 2, 3, 3), f32(rng, 3)]


@case(in_axes=(0, None, None))
def svd_thin(rng):
    # jnp.linalg.svd(full_matrices=False) of a tall and a wide matrix
    # (lapack_sgesdd_ffi, mode 'S'), and the singular values of a square
    # one (mode 'N'). The loss reads u and vt through squares: a singular
    # vector pair's sign is arbitrary.
    def f(a, c, d):
        tall = a[:, :3] + jnp.eye(4, 3, dtype=jnp.float32) * jnp.array([3.0, 2.0, 1.0], jnp.float32)
        u, s, vt = jnp.linalg.svd(tall, full_matrices=False)
        u2, s2, vt2 = jnp.linalg.svd(tall.T * 0.5, full_matrices=False)
        sq = jnp.linalg.svd(a + jnp.diag(jnp.arange(1.0, 5.0, dtype=jnp.float32)), compute_uv=False)
        return (jnp.sum(s * c) + jnp.sum(u * u * d[:, :3]) + jnp.sum(vt * vt * d[:3, :3])
                + jnp.sum(jnp.sin(s2)) + jnp.sum(u2 * u2 * c) + jnp.sum(vt2 * vt2 * d[:3, :]) + jnp.sum(sq * sq))

    return f, [f32(rng, 4, 4), f32(rng, 3), f32(rng, 4, 4)]

def arr(a):
    a = np.asarray(a)
    flat = a.reshape(-1)
    if np.iscomplexobj(a):
        # Interleaved (real, imaginary) pairs.
        flat = np.stack([flat.real, flat.imag], axis=-1).reshape(-1)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "data": flat.tolist()}


def like(rng, a, *shape):
    """Random values of `a`'s kind (complex for complex) and `shape`."""
    if np.iscomplexobj(a):
        return (f32(rng, *shape) + 1j * f32(rng, *shape)).astype(np.asarray(a).dtype)
    return f32(rng, *shape)


def generate(name, build, in_axes, size, reverse, hvp, hlo, devices, rewrite=None, forward=True, platform=None):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    # A build may return a third function: the same math in a form JAX
    # can differentiate, which the derivatives are recorded from (the
    # forward HLO, its outputs and vmap still come from the first).
    f, args, *reference = build(rng)
    args = [np.asarray(a) for a in args]
    if hlo:
        text = hlo
    elif platform:
        text = jax.jit(f).trace(*args).lower(lowering_platforms=(platform,)).as_text(dialect="hlo")
    else:
        text = jax.jit(f).lower(*args).as_text(dialect="hlo")
    if rewrite:
        text = rewrite(text)
    ref = reference[0] if reference else f
    for a, b in zip(jax.tree_util.tree_leaves(f(*args)), jax.tree_util.tree_leaves(ref(*args))):
        np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=f"{name}: the reference differs")
    wrt = [i for i, a in enumerate(args) if np.issubdtype(a.dtype, np.inexact)]

    def f_wrt(*xs):
        full = list(args)
        for i, x in zip(wrt, xs):
            full[i] = x
        return ref(*full)

    primals = [args[i] for i in wrt]
    if forward:
        tangents = [like(rng, args[i], *args[i].shape) for i in wrt]
        out, out_t = jax.jvp(f_wrt, primals, tangents)
        leaves = jax.tree_util.tree_leaves(out)
        t_leaves = jax.tree_util.tree_leaves(out_t)
        cts = [like(rng, l, *np.shape(l)) for l in leaves]
    else:
        reverse = False
        leaves = jax.tree_util.tree_leaves(f_wrt(*primals))
    rec = {
        "inputs": [arr(a) for a in args],
        "wrt": wrt,
        "outputs": [arr(l) for l in leaves],
    }
    if forward:
        rec["jvp"] = {"tangents": [arr(t) for t in tangents], "out": [arr(t) for t in t_leaves]}
    if reverse:
        _, pullback = jax.vjp(f_wrt, *primals)
        ct_tree = jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(out), cts)
        v_out = pullback(ct_tree)
        rec["vjp"] = {"cotangents": [arr(c) for c in cts], "out": [arr(v) for v in v_out]}
    if reverse and len(leaves) == 1 and np.shape(leaves[0]) == ():
        g = jax.grad(f_wrt, argnums=tuple(range(len(wrt))))(*primals)
        rec["grad"] = [arr(x) for x in g]
    batched = []
    for a, ax in zip(args, in_axes or []):
        if ax is None:
            batched.append(a)
        else:
            shape = list(a.shape)
            shape.insert(ax, size)
            if np.issubdtype(a.dtype, np.inexact):
                batched.append(like(rng, a, *shape))
            else:
                batched.append(rng.integers(-1, 5, shape).astype(a.dtype))
    if in_axes is not None:
        vm = jax.vmap(f, in_axes=in_axes)(*batched)
        rec["vmap"] = {
            "in_axes": list(in_axes),
            "size": size,
            "inputs": [arr(a) for a in batched],
            "out": [arr(l) for l in jax.tree_util.tree_leaves(vm)],
        }
    if devices > 1:
        rec["devices"] = devices
    if hvp:
        # Drawn last, so the cases recorded before this existed keep their
        # data.
        vs = [like(rng, p, *np.shape(p)) for p in primals]
        grad_all = jax.grad(f_wrt, argnums=tuple(range(len(wrt))))
        _, pullback = jax.vjp(grad_all, *primals)
        rec["hvp"] = {"vectors": [arr(v) for v in vs], "out": [arr(h) for h in pullback(tuple(vs))]}
    d = OUT / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "forward.hlo").write_text(text)
    (d / "case.json").write_text(json.dumps(rec, separators=(",", ":")) + "\n")
    print(f"{name}: {len(text)} bytes of HLO")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    for name, (build, in_axes, size, reverse, hvp, hlo, devices, rewrite, forward, platform) in CASES.items():
        if a.only and name not in a.only:
            continue
        generate(name, build, in_axes, size, reverse, hvp, hlo, devices, rewrite, forward, platform)


if __name__ == "__main__":
    main()
