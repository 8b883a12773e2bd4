"""MLX's axpby through hlox.jit: a JAX function using a C++ custom call,
lowered by JAX, compiled and run by hlox. Exits non-zero when wrong."""

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import axpby  # noqa: E402
import hlox  # noqa: E402
import jax.numpy as jnp  # noqa: E402


@hlox.jit
def f(x, y):
    return jnp.sum(axpby.axpby(x, y, alpha=2.0, beta=-1.0) ** 2)


x = np.linspace(0, 1, 1000, dtype=np.float32)
y = np.linspace(1, 2, 1000, dtype=np.float32)
got = float(f(x, y))
want = float(np.sum((2 * x - y) ** 2))
print(f"sum((2x - y)^2) = {got:.4f} (numpy: {want:.4f})")
assert abs(got - want) <= 1e-4 * abs(want), (got, want)
print(f.lower(x, y).to_text().splitlines()[0])
