"""Generate serialized HloModuleProto test data with JAX (CPU).

Run from the repository root:
    /opt/jaxvenv/bin/python scripts/gen_proto_testdata.py

Writes crates/hlox-hlo/tests/data/{softmax,mlp,while_loop,scatter,mixed}.pb
(and the matching HLO text as *.hlo.txt for humans), plus small .npy files
written by numpy under crates/hlox-hlo/tests/data/npy/.
"""
import os

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

OUT = os.path.join("crates", "hlox-hlo", "tests", "data")


def save(name, f, *args):
    lowered = jax.jit(f).lower(*args)
    comp = lowered.compiler_ir("hlo")
    with open(os.path.join(OUT, name + ".pb"), "wb") as fh:
        fh.write(comp.as_serialized_hlo_module_proto())
    with open(os.path.join(OUT, name + ".hlo.txt"), "w") as fh:
        fh.write(comp.as_hlo_text())


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def mlp(x, w1, b1, w2, b2):
    h = jnp.maximum(x @ w1 + b1, 0.0)
    return jnp.tanh(h @ w2 + b2)


def while_loop(n, x):
    def cond(c):
        i, _ = c
        return i < n

    def body(c):
        i, v = c
        return i + 1, v * 2.0 + 1.0

    return jax.lax.while_loop(cond, body, (jnp.int32(0), x))


def scatter(x, idx, upd):
    return x.at[idx].add(upd)


def mixed(a, b, p):
    # bf16 / f16 / pred / u8 / integer constants, compare, select, iota, sort,
    # slice, pad, concatenate, reduce-window, gather, conditional.
    c = a.astype(jnp.bfloat16) * jnp.bfloat16(1.5)
    d = b.astype(jnp.float16) + jnp.float16(0.25)
    e = jnp.where(p, a, -a)
    s = jnp.sort(a)
    k = jnp.concatenate([a[1:3], jnp.pad(a[:2], (1, 1))])
    w = jax.lax.reduce_window(a, 0.0, jax.lax.add, (2,), (1,), "VALID")
    g = a[jnp.array([3, 0, 1], dtype=jnp.int32)]
    i = jnp.arange(4, dtype=jnp.uint8) + jnp.uint8(7)
    q = jax.lax.cond(p[0], lambda v: v + 1.0, lambda v: v - 1.0, a)
    return c, d, e, s, k, w, g, i, q


def main():
    os.makedirs(OUT, exist_ok=True)
    f32 = jnp.float32
    save("softmax", softmax, jnp.ones((2, 5), f32))
    save(
        "mlp",
        mlp,
        jnp.ones((4, 8), f32),
        jnp.ones((8, 16), f32),
        jnp.ones((16,), f32),
        jnp.ones((16, 3), f32),
        jnp.ones((3,), f32),
    )
    save("while_loop", while_loop, jnp.int32(5), jnp.ones((3,), f32))
    save(
        "scatter",
        scatter,
        jnp.zeros((6, 2), f32),
        jnp.array([0, 2, 2], jnp.int32),
        jnp.ones((3, 2), f32),
    )
    save(
        "mixed",
        mixed,
        jnp.arange(4, dtype=f32),
        jnp.arange(4, dtype=f32),
        jnp.array([True, False, True, False]),
    )

    npy = os.path.join(OUT, "npy")
    os.makedirs(npy, exist_ok=True)
    np.save(os.path.join(npy, "f32_2x3.npy"), np.arange(6, dtype=np.float32).reshape(2, 3))
    np.save(os.path.join(npy, "f32_2x3_fortran.npy"), np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    np.save(os.path.join(npy, "bool_4.npy"), np.array([True, False, False, True]))
    np.save(os.path.join(npy, "f16_3.npy"), np.array([1.0, -2.5, 65504.0], dtype=np.float16))
    np.save(os.path.join(npy, "bf16_3.npy"), np.array([1.0, -2.5, 3.0], dtype=ml_dtypes.bfloat16))
    np.save(os.path.join(npy, "i64_scalar.npy"), np.array(-7, dtype=np.int64))
    np.save(os.path.join(npy, "u16_2x2_be.npy"), np.array([[1, 2], [3, 258]], dtype=">u2"))
    np.save(os.path.join(npy, "f64_2x2x2_fortran.npy"), np.asfortranarray(np.arange(8, dtype=np.float64).reshape(2, 2, 2)))
    np.save(os.path.join(npy, "c64_2.npy"), np.array([1 + 2j, 3 - 4j], dtype=np.complex64))


if __name__ == "__main__":
    main()
