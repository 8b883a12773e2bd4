"""Checks that XLA reads the HloModuleProtos hlox writes.

    cargo test -p hlox-hlo --test proto write_reencoded
    /opt/jaxvenv/bin/python scripts/check_proto_with_xla.py [DIR]

DIR defaults to target/tmp/proto-for-xla (where that test writes hlox's
re-encoding of tests/data/*.pb and of a hand-built module using every op).
For each JAX module it (1) parses our bytes with XLA
(XlaComputation(...).as_hlo_text()), (2) checks the text equals XLA's text
of the original .pb, and (3) converts our proto to StableHLO, compiles and
runs it on the CPU, and compares the results with running the original.
The hand-built module is only parsed by XLA (it calls an unregistered
custom-call target, so it cannot be compiled). CI does not run this
(it needs JAX).
"""
import os
import sys

import jax
import numpy as np
from jax._src.lib import xla_client as xc

DATA = os.path.join("crates", "hlox-hlo", "tests", "data")

INPUTS = {
    "softmax": lambda: [np.arange(10, dtype=np.float32).reshape(2, 5) / 3],
    "mlp": lambda: [np.linspace(-1, 1, n, dtype=np.float32).reshape(s)
                    for n, s in [(32, (4, 8)), (128, (8, 16)), (16, (16,)), (48, (16, 3)), (3, (3,))]],
    "while_loop": lambda: [np.int32(5), np.array([1, 2, 3], np.float32)],
    "scatter": lambda: [np.zeros((6, 2), np.float32), np.array([0, 2, -1], np.int32),
                        np.arange(6, dtype=np.float32).reshape(3, 2)],
    "mixed": lambda: [np.array([3, 1, 2, 0], np.float32), np.array([1, 2, 3, 4], np.float32),
                      np.array([True, False, True, False])],
}


def run(client, proto_bytes, args):
    mlir = xc._xla.mlir.hlo_to_stablehlo(proto_bytes)
    devices = client.devices()[:1]
    exe = client.compile_and_load(mlir, xc.DeviceList(tuple(devices)), xc.CompileOptions())
    bufs = [jax.device_put(np.asarray(a), devices[0]) for a in args]
    outs = exe.execute(bufs)
    return [np.asarray(o) for o in outs]


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join("target", "tmp", "proto-for-xla")
    client = jax.devices("cpu")[0].client
    failures = 0
    for name in sorted(os.listdir(d)):
        if not name.endswith(".pb"):
            continue
        stem = name[:-3]
        ours = open(os.path.join(d, name), "rb").read()
        text = xc.XlaComputation(ours).as_hlo_text()
        print(f"{stem}: XLA parsed our proto ({len(text.splitlines())} lines of HLO)")
        if stem not in INPUTS:
            continue
        orig = open(os.path.join(DATA, name), "rb").read()
        orig_text = xc.XlaComputation(orig).as_hlo_text()
        if text != orig_text:
            failures += 1
            print(f"  MISMATCH: XLA's text of our proto differs from the original's")
            import difflib
            for line in difflib.unified_diff(orig_text.splitlines(), text.splitlines(), lineterm="", n=1):
                print("   ", line)
        args = INPUTS[stem]()
        want = run(client, orig, args)
        got = run(client, ours, args)
        same = len(want) == len(got) and all(
            w.dtype == g.dtype and w.shape == g.shape and np.array_equal(w, g, equal_nan=True)
            for w, g in zip(want, got))
        print(f"  compiled and ran: {'same results' if same else 'DIFFERENT RESULTS'} ({len(got)} outputs)")
        failures += 0 if same else 1
    print("OK" if failures == 0 else f"{failures} FAILURES")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
