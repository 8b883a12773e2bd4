#!/usr/bin/env python3
"""Write a small jax.export artifact and its StableHLO text for hlox's tests.

Writes ``tests/stablehlo/``:

* ``sin_add.jax_exported`` -- ``jax.export.export(jax.jit(f))(x, y).serialize()``
  (a flatbuffer holding the module as MLIR bytecode, VHLO-versioned)
* ``sin_add.mlir``         -- ``exported.mlir_module()`` (the same module as MLIR text)
* ``in0.npy``, ``in1.npy``, ``out0.npy`` -- inputs and JAX's output

``Exported.serialize()`` needs the ``flatbuffers`` package, which .venv-jax
does not have; install it anywhere and put it on ``PYTHONPATH``::

    .venv-jax/bin/python -m pip install --target /tmp/fbpkg flatbuffers
    PYTHONPATH=/tmp/fbpkg .venv-jax/bin/python scripts/gen_jax_export_artifact.py
"""

from pathlib import Path

import jax

jax.config.update("jax_platforms", "cpu")
# Keep absolute paths of this checkout out of the locations.
jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import export  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "stablehlo"


def f(x, y):
    return jnp.sin(x) * 2.0 + y


def main():
    rng = np.random.default_rng(7)
    x = rng.uniform(-3, 3, size=(8,)).astype(np.float32)
    y = rng.uniform(-1, 1, size=(8,)).astype(np.float32)
    exp = export.export(jax.jit(f))(x, y)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "sin_add.jax_exported").write_bytes(exp.serialize())
    (OUT / "sin_add.mlir").write_text(exp.mlir_module())
    np.save(OUT / "in0.npy", x)
    np.save(OUT / "in1.npy", y)
    np.save(OUT / "out0.npy", np.asarray(exp.call(x, y)))
    print(f"platforms {exp.platforms}, {exp.nr_devices} device(s), "
          f"calling convention {exp.calling_convention_version}")


if __name__ == "__main__":
    main()
