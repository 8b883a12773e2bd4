#!/usr/bin/env python3
"""Write the StableHLO text of every JAX corpus case.

For each case of ``scripts/gen_jax_corpus.py`` this writes
``tests/corpus/<name>/module.mlir``: ``jax.jit(f).lower(*args).as_text()``,
JAX's default output (StableHLO MLIR, pretty form, with debug locations).
It uses the same programs and inputs as the corpus generator and checks that
the same lowering prints the committed ``module.hlo`` exactly, so the MLIR
and the HLO are two texts of one module, and the recorded outputs hold for both.

With ``--artifacts`` it writes instead, for every case JAX can export,
``tests/corpus/<name>/exported.bin``: the serialized ``jax.export`` artifact
(``jax.export.export(jax.jit(f))(*args).serialize()``, a flatbuffer holding
the module as VHLO-versioned MLIR bytecode) of the same function and
inputs, and ``exported.mlir``: that artifact's module as StableHLO text
(``jax.export.deserialize(data).mlir_module()``, printed without debug
locations), so a test can check that hlox reads the bytecode and the text
of one module into the same HLO. Custom-call targets are allowed by name (``DisabledSafetyCheck``).
An artifact over ``MAX_ARTIFACT_BYTES`` is not written (its case is listed
as skipped), to keep the committed data small. ``Exported.serialize()``
needs the ``flatbuffers`` package, which .venv-jax does not have::

    .venv-jax/bin/python -m pip install --target /tmp/fbpkg flatbuffers
    PYTHONPATH=/tmp/fbpkg .venv-jax/bin/python scripts/gen_stablehlo_corpus.py --artifacts

Usage::

    .venv-jax/bin/python scripts/gen_stablehlo_corpus.py [--out tests/corpus] [--only NAME ...] [--artifacts]

x64 cases are lowered in a subprocess with ``jax_enable_x64`` on, as the
corpus generator does.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
X64_WORKER_FLAG = "--x64-worker"
sys.path.insert(0, str(REPO / "scripts"))

# gen_jax_corpus reads X64_WORKER_FLAG from sys.argv at import time to set
# jax_enable_x64, with the same flag name as this script's.
import gen_jax_corpus as corpus  # noqa: E402
import jax  # noqa: E402
import numpy as np  # noqa: E402

ARTIFACTS_FLAG = "--artifacts"
# Larger artifacts are not committed (their text form, module.mlir, is).
MAX_ARTIFACT_BYTES = 200_000
# The case that also gets its module as plain MLIR bytecode (plain.mlirbc).
PLAIN_BYTECODE_CASE = "pow_edge_f32"
if ARTIFACTS_FLAG in sys.argv:
    # Keep this checkout's absolute paths out of the artifacts' locations.
    jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")


def write_artifact(case, out_root: Path) -> str:
    """Writes ``exported.bin`` for one case; returns what was done."""
    import re

    from jax import export

    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    built = case.build(rng)
    f, args = built[0], [np.asarray(a) for a in built[1]]
    text = jax.jit(f).lower(*args).as_text()
    targets = sorted(set(re.findall(r"stablehlo\.custom_call @([\w.$-]+)", text)))
    checks = [export.DisabledSafetyCheck.custom_call(t) for t in targets]
    data = export.export(jax.jit(f), disabled_checks=checks)(*args).serialize()
    path = out_root / case.name / "exported.bin"
    text_path = out_root / case.name / "exported.mlir"
    if len(data) > MAX_ARTIFACT_BYTES:
        path.unlink(missing_ok=True)
        text_path.unlink(missing_ok=True)
        return f"skipped: the artifact has {len(data)} bytes (> {MAX_ARTIFACT_BYTES})"
    path.write_bytes(data)
    from jax._src.interpreters import mlir as jmlir
    from jax._src.lib.mlir import ir

    module = ir.Module.parse(export.deserialize(data).mlir_module(), context=jmlir.make_ir_context())
    text_path.write_text(module.operation.get_asm(enable_debug_info=False))
    if case.name == PLAIN_BYTECODE_CASE:
        # Plain (unversioned) bytecode, which hlox refuses with what to do.
        lowered = jax.jit(f).lower(*args).compiler_ir("stablehlo")
        (out_root / case.name / "plain.mlirbc").write_bytes(jmlir.module_to_bytecode(lowered))
    return f"{len(data)} bytes"


def write_case(case, out_root: Path) -> None:
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    built = case.build(rng)
    f, args = built[0], [np.asarray(a) for a in built[1]]
    lowered = jax.jit(f).lower(*args)
    d = out_root / case.name
    committed = (d / "module.hlo").read_text()
    if lowered.as_text(dialect="hlo") != committed:
        raise AssertionError(f"{case.name}: this lowering's HLO differs from the committed module.hlo; "
                             "regenerate the corpus first")
    (d / "module.mlir").write_text(lowered.as_text())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(REPO / "tests" / "corpus"))
    ap.add_argument("--only", nargs="*", metavar="NAME")
    ap.add_argument(ARTIFACTS_FLAG, action="store_true",
                    help="write each case's serialized jax.export artifact (exported.bin) instead")
    ap.add_argument(X64_WORKER_FLAG, action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    out_root = Path(args.out)
    names = args.only or list(corpus.CASES)
    unknown = [n for n in names if n not in corpus.CASES]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    failures = []
    for n in names:
        c = corpus.CASES[n]
        if c.x64 != args.x64_worker:
            continue
        try:
            if args.artifacts:
                print(f"  ok  {n}{' (x64)' if c.x64 else ''}: {write_artifact(c, out_root)}")
                continue
            write_case(c, out_root)
            print(f"  ok  {n}{' (x64)' if c.x64 else ''}")
        except Exception as e:  # report every failure, then exit non-zero
            failures.append(n)
            print(f"FAIL  {n}: {type(e).__name__}: {e}", file=sys.stderr)
    x64 = [n for n in names if corpus.CASES[n].x64]
    if not args.x64_worker and x64:
        extra = [ARTIFACTS_FLAG] if args.artifacts else []
        r = subprocess.run([sys.executable, __file__, X64_WORKER_FLAG, *extra, "--out", str(out_root), "--only", *x64])
        if r.returncode:
            failures.append("x64 worker")
    if failures:
        print(f"FAILED: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
