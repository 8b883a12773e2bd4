"""A Python function as a custom-call target (TVM's PackedFunc idea), used
inside a JAX function through jax.ffi.ffi_call and run by hlox.jit.
Exits non-zero when wrong."""

import jax
import jax.numpy as jnp
import numpy as np

import hlox


@hlox.custom_call_target("softplus")
def softplus(x, *, out, beta):
    # x: read-only view of the operand; out: the result buffer, written in place.
    out[...] = np.logaddexp(0.0, beta * x) / beta


@hlox.jit
def model(x, w):
    h = x @ w
    h = jax.ffi.ffi_call("softplus", jax.ShapeDtypeStruct(h.shape, h.dtype))(h, beta=np.float32(2.0))
    return jnp.mean(h, axis=0)


x = np.random.default_rng(0).standard_normal((32, 8)).astype(np.float32)
w = np.random.default_rng(1).standard_normal((8, 4)).astype(np.float32)
got = model(x, w)
want = np.mean(np.logaddexp(0.0, 2.0 * (x @ w)) / 2.0, axis=0)
np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
print("softplus through jax.ffi.ffi_call:", got)
