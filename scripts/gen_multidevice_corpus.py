#!/usr/bin/env python3
"""Generate hlox's multi-device corpus: JAX programs for 4 devices.

Run with .venv-jax (jax 0.10). XLA's Host platform is made of 4 devices
(XLA_FLAGS=--xla_force_host_platform_device_count=4), each program is
lowered to HLO before partitioning (what ``lowered.as_text(dialect="hlo")``
gives: the mesh in the module's frontend attributes, each shard_map a call
between xla.sdy.GlobalToLocalShape and xla.sdy.LocalToGlobalShape) and run
by JAX on the 4 devices for the expected outputs. For each case, under
``tests/corpus/multidevice/<name>/``: module.hlo, module.pb, module.mlir
(the StableHLO text, ``lowered.as_text()``, with Shardy's ``sdy.mesh`` and
``sdy.manual_computation``), inN.npy (the global inputs), outN.npy (JAX's global outputs), meta.json.

hlox runs each with ``hlox run module.hlo -i ... --devices 4`` and under
``mpirun -np 4 hlox run ... --mpi`` (crates/hlox-cli/tests/multidevice.rs).

Usage: .venv-jax/bin/python scripts/gen_multidevice_corpus.py [--out DIR]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import tempfile
from pathlib import Path

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"
)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax, shard_map  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")

REPO = Path(__file__).resolve().parent.parent
DEVICES = np.array(jax.devices())
assert len(DEVICES) == 4, "needs 4 Host devices"
MESH = Mesh(DEVICES, ("x",))
MESH2 = Mesh(DEVICES.reshape(2, 2), ("x", "y"))
RNG = np.random.default_rng(25)
TARGETS_CC = REPO / "tests/corpus/multidevice/md_targets.cc"


def load_targets():
    """Builds md_targets.cc (typed-FFI targets) and registers them with JAX."""
    lib = Path(tempfile.mkdtemp()) / "libmd_targets.so"
    include = os.environ.get("HLOX_XLA_FFI_INCLUDE", str(REPO / ".xla-ffi/include"))
    subprocess.run(
        ["c++", "-shared", "-fPIC", "-std=c++17", "-O2", "-w", "-I", include, str(TARGETS_CC), "-o", str(lib)],
        check=True,
    )
    so = ctypes.cdll.LoadLibrary(str(lib))
    for name in ["MdScale", "MdFailAbove"]:
        jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(getattr(so, name)), platform="cpu")


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def sm_collectives():
    def f(x, i):
        return (
            lax.psum(x, "x"),
            lax.pmax(x, "x"),
            lax.all_gather(x, "x", tiled=True),
            lax.ppermute(x, "x", [(k, (k + 1) % 4) for k in range(4)]),
            lax.psum_scatter(x, "x", scatter_dimension=0, tiled=True),
            lax.all_to_all(x, "x", 0, 0, tiled=True),
            lax.axis_index("x").reshape(1),
            lax.psum(i, "x"),
        )

    g = shard_map(
        f,
        mesh=MESH,
        in_specs=(P("x"), P("x")),
        out_specs=(P(), P(), P(), P("x"), P("x"), P("x"), P("x"), P()),
        check_vma=False,
    )
    return "shard_map psum, pmax, all_gather, ppermute, psum_scatter, all_to_all, axis_index over 4 devices", g, [
        rand(16, 3),
        RNG.integers(-50, 50, (4, 2)).astype(np.int32),
    ]


def mesh_2x2():
    def f(v):
        return (
            lax.psum(v, "y"),
            lax.psum_scatter(v, "x", scatter_dimension=1, tiled=True),
            lax.all_to_all(v, "y", 0, 1, tiled=True),
            lax.psum(v, ("x", "y")),
            (lax.axis_index("x") * 10 + lax.axis_index("y")).reshape(1, 1),
        )

    g = shard_map(
        f,
        mesh=MESH2,
        in_specs=P("x", "y"),
        out_specs=(P("x", None), P(("x", "y"), None), P("x", "y"), P(), P("x", "y")),
        check_vma=False,
    )
    return "a 2x2 mesh with two named axes: psum over one and both, psum_scatter, all_to_all", g, [rand(4, 8)]


def pmap_psum():
    f = jax.pmap(lambda v: (lax.psum(v, "i"), v * lax.axis_index("i")), axis_name="i")
    return "pmap with psum and axis_index", f, [rand(4, 3)]


def jit_sharded():
    def f(v, w):
        return jnp.tanh(v @ w).sum(axis=1), jnp.sin(v)

    s = NamedSharding(MESH, P("x"))
    r = NamedSharding(MESH, P())
    g = jax.jit(f, in_shardings=(s, r), out_shardings=(s, s))
    return "jit with NamedSharding inputs and outputs (automatic partitioning; hlox computes it replicated)", g, [
        rand(8, 5),
        rand(5, 3),
    ]


def dp_step():
    def loss(params, x, y):
        w1, b1, w2 = params
        h = jax.nn.relu(x @ w1 + b1)
        return jnp.mean((h @ w2 - y) ** 2)

    def step(params, x, y):
        l, grads = jax.value_and_grad(loss)(params, x, y)
        grads = lax.pmean(grads, "x")
        l = lax.pmean(l, "x")
        new = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
        return new, l

    g = jax.jit(
        shard_map(
            step,
            mesh=MESH,
            in_specs=((P(), P(), P()), P("x"), P("x")),
            out_specs=((P(), P(), P()), P()),
            check_vma=False,
        )
    )
    params = (rand(6, 16) * 0.3, rand(16) * 0.1, rand(16, 2) * 0.3)
    return "a data-parallel MLP training step: value_and_grad, pmean of loss and gradients, SGD update", g, [
        params,
        rand(32, 6),
        rand(32, 2),
    ]


def _custom_call_program():
    def f(x):
        y = jax.ffi.ffi_call("MdScale", jax.ShapeDtypeStruct(x.shape, x.dtype))(
            x, scale=np.float32(2.0), shift=np.float32(0.5)
        )
        z = jax.ffi.ffi_call("MdFailAbove", jax.ShapeDtypeStruct(y.shape, y.dtype))(y, limit=np.float32(100.0))
        return lax.psum(z, "x"), z * lax.axis_index("x").astype(np.float32)

    return shard_map(f, mesh=MESH, in_specs=P("x"), out_specs=(P(), P("x")), check_vma=False)


def sm_custom_call():
    return "typed-FFI custom calls (md_targets.cc) inside shard_map, on each device's shard, then psum", _custom_call_program(), [
        rand(8, 3)
    ]


def sm_custom_call_fails():
    # Only device 3's shard (rows 6 and 7) holds a value above the limit.
    x = rand(8, 3)
    x[7, 1] = 400.0
    return (
        "the same program where MdFailAbove fails on device 3 only (its shard holds 2 * 400 + 0.5 > 100); "
        "the other devices wait at the psum. JAX (XLA 0.10, 4 Host devices) does not return: the three "
        "waiting devices hit XLA's 40 s rendezvous termination timeout, which aborts the process; hlox "
        "stops every device at once with device 3's error",
        _custom_call_program(),
        [x],
    )


CASES = [sm_collectives, mesh_2x2, pmap_psum, jit_sharded, dp_step, sm_custom_call, sm_custom_call_fails]
# Cases JAX is not run on (it aborts): the expected error, by case.
ERRORS = {
    "sm_custom_call_fails": ["device 3", "MdFailAbove: element 4 is 800.500000, above the limit 100.000000"],
}
PLUGINS = {"sm_custom_call": "md_targets.cc", "sm_custom_call_fails": "md_targets.cc"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=REPO / "tests/corpus/multidevice")
    a = ap.parse_args()
    load_targets()
    for case in CASES:
        name = case.__name__
        desc, f, args = case()
        fn = f if hasattr(f, "lower") else jax.jit(f)
        lowered = fn.lower(*args)
        outs = [] if name in ERRORS else jax.tree.leaves(fn(*args))
        flat_in = jax.tree.leaves(args)
        d = a.out / name
        d.mkdir(parents=True, exist_ok=True)
        for old in d.glob("*.npy"):
            old.unlink()
        (d / "module.hlo").write_text(lowered.as_text(dialect="hlo"))
        (d / "module.mlir").write_text(lowered.as_text())
        (d / "module.pb").write_bytes(
            lowered.compiler_ir("hlo").as_serialized_hlo_module_proto()
        )
        for k, x in enumerate(flat_in):
            np.save(d / f"in{k}.npy", np.asarray(x))
        for k, y in enumerate(outs):
            np.save(d / f"out{k}.npy", np.asarray(y))
        meta = {
            "name": name,
            "description": desc,
            "jax_version": jax.__version__,
            "devices": 4,
            "inputs": [[str(np.asarray(x).dtype), list(np.shape(x))] for x in flat_in],
            "outputs": [[str(np.asarray(y).dtype), list(np.shape(y))] for y in outs],
            "rtol": 1e-4,
            "atol": 1e-4,
        }
        if name in PLUGINS:
            meta["plugin"] = PLUGINS[name]
        if name in ERRORS:
            meta["error"] = ERRORS[name]
        (d / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
        print(f"{name}: {len(flat_in)} inputs, {len(outs)} outputs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
