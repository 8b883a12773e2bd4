import numpy as np
import pytest

import hlox

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_matches_jax_jit():
    def f(x, y):
        return jnp.tanh(x @ y) + jnp.sum(x, axis=1, keepdims=True)

    x = np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    y = np.random.default_rng(2).standard_normal((16, 4)).astype(np.float32)
    hf = hlox.jit(f)
    np.testing.assert_allclose(hf(x, y), jax.jit(f)(x, y), rtol=1e-5, atol=1e-5)
    # jax arrays in, the same cache entry.
    np.testing.assert_allclose(hf(jnp.asarray(x), jnp.asarray(y)), jax.jit(f)(x, y), rtol=1e-5, atol=1e-5)
    assert hf.cache_size() == 2  # numpy fast path and the pytree path
    hf(x[:4], y)  # a new signature compiles again
    assert hf.cache_size() == 3
    hf(x[:4], y)
    assert hf.cache_size() == 3


def test_float64_and_int64_inputs_as_jax_jit_takes_them():
    # With x64 off jax.jit computes float64/int64 inputs in float32/int32;
    # hlox.jit converts them too (numpy's defaults are the 64-bit types).
    def f(x, n):
        return x * 2 + n

    hf = hlox.jit(f)
    x = np.ones(3)  # float64
    n = np.arange(3)  # int64
    got = hf(x, n)
    want = jax.jit(f)(x, n)
    assert got.dtype == np.float32 == want.dtype
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(hf(x, n), want)  # the cached signature
    np.testing.assert_allclose(hf(np.float64(2.0), 1), jax.jit(f)(np.float64(2.0), 1))


def test_pytrees_in_and_out():
    def f(params, x):
        return {"y": params["w"] * x + params["b"], "stats": (jnp.max(x), jnp.min(x))}

    params = {"w": np.float32(2.0) * np.ones(3, np.float32), "b": np.ones(3, np.float32)}
    x = np.array([1, -2, 3], np.float32)
    got = hlox.jit(f)(params, x)
    want = jax.jit(f)(params, x)
    assert set(got) == {"y", "stats"} and isinstance(got["stats"], tuple)
    np.testing.assert_allclose(got["y"], want["y"])
    np.testing.assert_allclose(got["stats"][0], want["stats"][0])
    np.testing.assert_allclose(got["stats"][1], want["stats"][1])


def test_static_argnums_and_scalars():
    def f(x, n, scale):
        for _ in range(n):
            x = x * scale
        return x

    hf = hlox.jit(f, static_argnums=(1,))
    x = np.ones(4, np.float32)
    np.testing.assert_allclose(hf(x, 3, 2.0), jax.jit(f, static_argnums=(1,))(x, 3, 2.0))
    np.testing.assert_allclose(hf(x, 2, 2.0), np.full(4, 4.0))


def test_lower_returns_module():
    m = hlox.jit(lambda x: x + 1).lower(np.ones(3, np.float32))
    assert isinstance(m, hlox.Module)
    assert "f32[3]" in repr(m)


def test_python_target_through_ffi_call():
    @hlox.custom_call_target("py_jit_softplus")
    def softplus(x, *, out, beta):
        out[...] = np.log1p(np.exp(beta * x)) / beta

    def f(x):
        y = jax.ffi.ffi_call("py_jit_softplus", jax.ShapeDtypeStruct(x.shape, x.dtype))(
            x, beta=np.float32(2.0)
        )
        return y * 2

    x = np.linspace(-2, 2, 8, dtype=np.float32)
    want = 2 * np.log1p(np.exp(2 * x)) / 2
    np.testing.assert_allclose(hlox.jit(f)(x), want, rtol=1e-6)
