"""Shows why a bf16 matmul differs from JAX on the CPU (docs/numerics.md).

Writes the HLO of `(a.astype(bf16) @ b.astype(bf16)).astype(f32) * 3`, its
inputs, and JAX's outputs into DIR:

    python scripts/bf16_excess_precision.py DIR
    XLA_FLAGS=--xla_allow_excess_precision=false \
        python scripts/bf16_excess_precision.py DIR --strict
    hlox run DIR/bf.hlo -i DIR/a.npy -i DIR/b.npy -o DIR/hlox
    python scripts/bf16_excess_precision.py DIR --compare
"""
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
if "--compare" in sys.argv:
    h = np.load(out / "hlox" / "out0.npy")
    for name in ("default", "strict"):
        ref = np.load(out / f"jax_{name}.npy")
        print(f"hlox vs JAX ({name}): {int((h != ref).sum())} of {h.size} elements differ, "
              f"largest difference {float(np.abs(h - ref).max()):g}")
    sys.exit(0)

import jax
import jax.numpy as jnp


def f(a, b):
    return (a.astype(jnp.bfloat16) @ b.astype(jnp.bfloat16)).astype(jnp.float32) * 3.0


rng = np.random.default_rng(0)
a = rng.standard_normal((16, 32)).astype(np.float32)
b = rng.standard_normal((32, 8)).astype(np.float32)
np.save(out / "a.npy", a)
np.save(out / "b.npy", b)
(out / "bf.hlo").write_text(jax.jit(f).lower(a, b).as_text(dialect="hlo"))
name = "strict" if "--strict" in sys.argv else "default"
np.save(out / f"jax_{name}.npy", np.asarray(jax.jit(f)(a, b)))
