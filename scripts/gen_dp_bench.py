#!/usr/bin/env python3
"""Modules for the data-parallel MLP benchmark (docs/performance.md): one
SGD step of a 3-layer MLP, run STEPS times in a while loop (STEPS is the
module's first parameter, so one module times 0 and N steps), as JAX lowers
it for 1 device (plain jit) and for 2 devices (shard_map over the batch,
pmean of the gradients in each step).

Writes OUT/dp1.hlo and OUT/dp2.hlo, and OUT/{steps0,stepsN,in*}.npy.
Usage: .venv-jax/bin/python scripts/gen_dp_bench.py OUT [STEPS]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax, shard_map  # noqa: E402
from jax.sharding import Mesh, PartitionSpec as P  # noqa: E402

jax.config.update("jax_platforms", "cpu")

B, D_IN, H, D_OUT = 512, 256, 512, 16


def loss(params, x, y):
    w1, w2, w3 = params
    h = jax.nn.relu(x @ w1)
    h = jax.nn.relu(h @ w2)
    return jnp.mean((h @ w3 - y) ** 2)


def train(steps, params, x, y, axis=None):
    def step(_, p):
        g = jax.grad(loss)(p, x, y)
        if axis is not None:
            g = lax.pmean(g, axis)
        return jax.tree.map(lambda a, b: a - 0.01 * b, p, g)

    return lax.fori_loop(0, steps, step, params)


def main() -> int:
    out = Path(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    params = tuple(
        (rng.standard_normal(s) / np.sqrt(s[0])).astype(np.float32) for s in [(D_IN, H), (H, H), (H, D_OUT)]
    )
    x = rng.standard_normal((B, D_IN)).astype(np.float32)
    y = rng.standard_normal((B, D_OUT)).astype(np.float32)
    steps = np.int32(0)
    one = jax.jit(lambda s, p, x, y: train(s, p, x, y))
    mesh = Mesh(np.array(jax.devices()[:2]), ("b",))
    two = jax.jit(
        shard_map(
            lambda s, p, x, y: train(s, p, x, y, "b"),
            mesh=mesh,
            in_specs=(P(), (P(), P(), P()), P("b"), P("b")),
            out_specs=(P(), P(), P()),
            check_vma=False,
        )
    )
    (out / "dp1.hlo").write_text(one.lower(steps, params, x, y).as_text(dialect="hlo"))
    (out / "dp2.hlo").write_text(two.lower(steps, params, x, y).as_text(dialect="hlo"))
    np.save(out / "steps0.npy", np.int32(0))
    np.save(out / "stepsN.npy", np.int32(n))
    for k, a in enumerate([*params, x, y]):
        np.save(out / f"in{k}.npy", a)
    # Both programs compute the same training (the 2-device one averages
    # the halves' gradients, which for a mean loss is the whole gradient).
    a = one(np.int32(2), params, x, y)
    b = two(np.int32(2), params, x, y)
    err = max(float(np.abs(np.asarray(u) - np.asarray(v)).max()) for u, v in zip(a, b))
    print(f"dp1.hlo, dp2.hlo: {n} steps of B={B} {D_IN}-{H}-{H}-{D_OUT}; 1 vs 2 devices differ by {err:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
