#!/usr/bin/env python3
"""Side-by-side benchmark: the same HLO through XLA's CPU compiler (jaxlib)
and through `hlox bench`, in one run, on one machine.

    bash scripts/setup_jax.sh            # once: .venv-jax with the pinned jax
    cargo build --release                # target/release/hlox
    .venv-jax/bin/python scripts/bench_vs_xla.py [--iters 50] [--only NAME...] [--markdown FILE]
    .venv-jax/bin/python scripts/bench_vs_xla.py --baseline OLD/hlox --rounds 3   # before/after
    .venv-jax/bin/python scripts/bench_vs_xla.py --compile-only [--rounds 3] [--warm] [--baseline OLD/hlox]
    python scripts/bench_vs_xla.py --platform cuda [--hlox PATH] ...   # on a GPU machine

For each benchmark the script lowers a JAX function to a serialized
HloModuleProto (`jax.jit(f).lower(*args).compiler_ir("hlo")`), writes it, its
HLO text and its inputs (.npy) to a temporary directory, then
  * XLA: converts that same proto to StableHLO, compiles it with the CPU
    client (timed), runs it `iters` times after `warmup` runs, and takes the
    median and minimum wall time per run;
  * hlox: runs `hlox bench module.pb --input ... --iters N --warmup W` and reads
    the JSON line it prints last: {"compile_ms", "median_ms", "min_ms", "iters"}.
It prints one row per benchmark with both times and the ratio hlox / XLA
(below 1 means hlox is faster), and checks that both give the same outputs.

With --platform cuda both run on GPU 0: XLA's GPU client (jax with CUDA)
and `hlox bench --platform cuda`. hlox's wall time includes copying the
arguments to the GPU and the result back on every run (its API takes host
literals), XLA's does not (device-resident buffers), so the table also has
hlox's device time (CUDA events around the run's device work,
"device_median_ms") and, for the element-wise benchmarks, the bandwidth
that device time gives (bytes read + written / time) as a fraction of the
device's copy bandwidth (a device-to-device copy of 256 MiB timed with
PyTorch's CUDA events, when PyTorch is installed). The custom-call and
linear-algebra benchmarks are Host-only (HOST_ONLY).

The seed custom call (`A[i] = B[i % 128] + C[i]`, lowered with
jax.ffi.ffi_call and custom_call_api_version=1) uses targets/c/targets.c,
compiled here with the system C compiler, registered into XLA with
jax.ffi.register_ffi_target (api_version 0: the legacy convention) and given
to hlox with --plugin.

With --compile-only nothing is run for timing: for every benchmark program
and every case of the JAX corpus (tests/corpus/*, but those that need
custom-call targets) it measures XLA's compile alone (the CPU client's
compile of the same proto, as `jax.jit(f).lower(*a).compile()` does; best of
--rounds in one warm process) and hlox's cold compile (a fresh `hlox bench
--iters 1 --warmup 0` process per round, its compile_ms; best of --rounds),
with --warm also hlox's warm compile (each process compiles the module
--rounds more times, `--compile-rounds`; best of those), with hlox's split (LLVM optimization, JIT code generation) where the binary
reports it, and prints the geometric mean of hlox / XLA.
"""
import argparse
import ctypes
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def jax_benchmarks():
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg

    rng = np.random.default_rng(0)

    def f32(*shape):
        return rng.standard_normal(shape, dtype=np.float32)

    n = 16 * 1024 * 1024

    def elementwise(x, y):
        return jnp.tanh(x * 1.5 + y) * jnp.exp(-jnp.abs(y)) + 0.5

    def axpy(x, y):
        return 2.5 * x + y

    def total(x):
        return jnp.sum(x)

    def column_sum(x):
        return jnp.sum(x, axis=0)

    def softmax(x):
        return jax.nn.softmax(x, axis=-1)

    def layernorm(x, g, b):
        m = jnp.mean(x, axis=-1, keepdims=True)
        v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-5) * g + b

    def matmul(a, b):
        return a @ b

    def mlp(x, w1, b1, w2, b2, w3, b3):
        h = jax.nn.relu(x @ w1 + b1)
        h = jax.nn.relu(h @ w2 + b2)
        return h @ w3 + b3

    # jnp.linalg on the CPU: jaxlib's LAPACK targets under XLA, hlox's
    # built-in replacements (crates/hlox-jaxlib) under hlox. Outputs that
    # do not depend on the algorithm's sign choices: the solution, the
    # Cholesky factor, Q and R (Householder, LAPACK's signs), eigenvalues,
    # singular values.
    def well_conditioned(k):
        return f32(k, k) / np.float32(np.sqrt(k)) + 3.0 * np.eye(k, dtype=np.float32)

    def spd(k):
        a = f32(k, k) / np.float32(np.sqrt(k))
        return (a @ a.T + np.eye(k, dtype=np.float32)).astype(np.float32)

    def solve(a, b):
        return jnp.linalg.solve(a, b)

    def cholesky(a):
        return jnp.linalg.cholesky(a)

    def qr(a):
        return jnp.linalg.qr(a)

    def eigvalsh(a):
        return jnp.linalg.eigvalsh(a)

    def svdvals(a):
        return jnp.linalg.svd(a, compute_uv=False)

    # With vectors: the values and the reconstruction, which do not depend
    # on the vectors' signs.
    def eigh(a):
        w, v = jnp.linalg.eigh(a)
        return w, (v * w) @ v.T

    def svd(a):
        u, s, vt = jnp.linalg.svd(a, full_matrices=False)
        return s, (u * s) @ vt

    def triangular_solve(a, b):
        return jax.scipy.linalg.solve_triangular(a, b, lower=True)

    # Pooling over NHWC images: reduce-window, as jax.lax.reduce_window and
    # flax's max_pool/avg_pool lower it.
    def max_pool(x):
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 1, 1, 1), "VALID")

    def avg_pool(x):
        return jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "SAME") / 4.0

    # Max-pool gradients (select-and-scatter), as jax.grad of a CNN's
    # pooling layer lowers them: disjoint 2x2 windows, and overlapping 3x3
    # windows with "SAME" padding.
    def max_pool_grad_2x2(x):
        pool = lambda x: jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        return jax.grad(lambda x: jnp.sum(pool(x) ** 2))(x)

    def max_pool_grad_3x3(x):
        pool = lambda x: jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
        return jax.grad(lambda x: jnp.sum(pool(x) ** 2))(x)

    def seed_custom_call(b, c):
        out = jax.ShapeDtypeStruct((2048,), jnp.float32)
        return jax.ffi.ffi_call("do_custom_call", out, custom_call_api_version=1)(b, c)

    return [
        ("elementwise_16M", elementwise, [f32(n), f32(n)]),
        ("axpy_16M", axpy, [f32(n), f32(n)]),
        ("sum_16M", total, [f32(n)]),
        ("column_sum_4096x1024", column_sum, [f32(4096, 1024)]),
        ("softmax_4096x1024", softmax, [f32(4096, 1024)]),
        ("layernorm_4096x1024", layernorm, [f32(4096, 1024), f32(1024), f32(1024)]),
        ("matmul_1024", matmul, [f32(1024, 1024), f32(1024, 1024)]),
        ("mlp_256x1024", mlp, [f32(256, 1024), f32(1024, 1024), f32(1024), f32(1024, 1024), f32(1024), f32(1024, 256), f32(256)]),
        ("maxpool_3x3_8x128x128x16", max_pool, [f32(8, 128, 128, 16)]),
        ("avgpool_2x2_8x128x128x16", avg_pool, [f32(8, 128, 128, 16)]),
        ("maxpool_grad_2x2_8x64x64x16", max_pool_grad_2x2, [f32(8, 64, 64, 16)]),
        ("maxpool_grad_3x3_8x64x64x16", max_pool_grad_3x3, [f32(8, 64, 64, 16)]),
        ("seed_custom_call", seed_custom_call, [f32(128), f32(2048)]),
        ("lu_solve_512", solve, [well_conditioned(512), f32(512, 16)]),
        ("cholesky_512", cholesky, [spd(512)]),
        ("qr_256", qr, [well_conditioned(256)]),
        ("eigvalsh_128", eigvalsh, [spd(128)]),
        ("svdvals_128", svdvals, [well_conditioned(128)]),
        ("eigh_128", eigh, [spd(128)]),
        ("svd_128", svd, [well_conditioned(128)]),
        ("triangular_solve_512", triangular_solve, [np.tril(well_conditioned(512)), f32(512, 64)]),
    ]


# Not run with --platform cuda: the seed target is a Host target, and on a
# GPU JAX lowers jnp.linalg to cuSOLVER targets that hlox does not provide.
HOST_ONLY = {"seed_custom_call", "lu_solve_512", "cholesky_512", "qr_256", "eigvalsh_128", "svdvals_128",
             "eigh_128", "svd_128", "triangular_solve_512"}


def build_seed_plugin(tmp):
    so = os.path.join(tmp, "libseed_targets.so")
    subprocess.run(
        ["cc", "-O2", "-shared", "-fPIC", "-I", os.path.join(ROOT, "targets", "include"),
         os.path.join(ROOT, "targets", "c", "targets.c"), "-o", so],
        check=True,
    )
    return so


def register_seed_with_xla(so):
    import jax
    # RTLD_LAZY: the library also holds status-returning targets whose
    # XlaCustomCallStatus* symbols the seed target never calls.
    lib = ctypes.CDLL(so, mode=os.RTLD_LAZY | os.RTLD_LOCAL)
    fn = ctypes.cast(lib.do_custom_call, ctypes.c_void_p).value
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    capsule = new_capsule(fn, b"xla._CUSTOM_CALL_TARGET", None)
    jax.ffi.register_ffi_target("do_custom_call", capsule, platform="cpu", api_version=0)
    return lib


def xla_timer(proto, args, backend="cpu"):
    """XLA's executable of `proto`, compiled once, as a function of a run
    count that returns each run's time (ms) and the last run's outputs;
    and the compile time (ms)."""
    import jax
    from jax._src.lib import xla_client as xc

    client = jax.devices(backend)[0].client
    mlir = xc._xla.mlir.hlo_to_stablehlo(proto)
    devices = client.devices()[:1]
    t0 = time.perf_counter()
    exe = client.compile_and_load(mlir, xc.DeviceList(tuple(devices)), xc.CompileOptions())
    compile_ms = (time.perf_counter() - t0) * 1e3
    bufs = [jax.device_put(a, devices[0]) for a in args]

    def run(iters):
        times, outs = [], None
        for _ in range(iters):
            t0 = time.perf_counter()
            outs = exe.execute(bufs)
            for o in outs:
                o.block_until_ready()
            times.append((time.perf_counter() - t0) * 1e3)
        return times, outs

    return run, compile_ms


def xla_run(proto, args, iters, warmup, backend="cpu"):
    run, compile_ms = xla_timer(proto, args, backend)
    run(warmup)
    times, outs = run(iters)
    return {"compile_ms": compile_ms, "median_ms": statistics.median(times), "min_ms": min(times),
            "outputs": [np.asarray(o) for o in outs]}


def hlox_run(hlox, path, inputs, iters, warmup, plugins, out_dir, platform_="host", extra=()):
    cmd = [hlox, "bench", path, "--iters", str(iters), "--warmup", str(warmup), "--out-dir", out_dir,
           "--platform", platform_, *extra]
    for i in inputs:
        cmd += ["--input", i]
    for p in plugins:
        cmd += ["--plugin", p]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr}")
    res = json.loads(r.stdout.strip().splitlines()[-1])
    outs = []
    i = 0
    while os.path.exists(os.path.join(out_dir, f"out{i}.npy")):
        outs.append(np.load(os.path.join(out_dir, f"out{i}.npy")))
        i += 1
    res["outputs"] = outs
    return res


def copy_bandwidth_gbs():
    """Device-to-device copy bandwidth of GPU 0 in GB/s (bytes read +
    written), with PyTorch's CUDA events; None without PyTorch or a GPU."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    n = 256 * 1024 * 1024
    x = torch.empty(n, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    for _ in range(3):
        y.copy_(x)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    reps = 20
    start.record()
    for _ in range(reps):
        y.copy_(x)
    end.record()
    torch.cuda.synchronize()
    ms = start.elapsed_time(end) / reps
    return 2 * n / (ms * 1e-3) / 1e9


ELEMENTWISE = {"elementwise_16M", "axpy_16M"}

# Rows bound by memory bandwidth on the Host, with the STREAM kernel of the
# same access pattern: results as large as the inputs (read + write
# streams) are held against the triad, reductions (read streams only) against
# a read-only sum.
MEMORY_BOUND = {"elementwise_16M": "triad", "axpy_16M": "triad", "sum_16M": "read",
                "column_sum_4096x1024": "read", "softmax_4096x1024": "triad",
                "layernorm_4096x1024": "triad"}

# A STREAM-style measurement of the Host's memory bandwidth, compiled here
# (-O3 -march=native, OpenMP over every core, as hlox and XLA use them;
# -ffast-math lets the read kernel keep several vector accumulators) so
# that it runs at the speed of compiled code, on arrays of the benchmarks'
# size (16 Mi f32, 64 MiB each: twice the last-level cache of the measuring
# machine, so the same share of each stream stays in cache as in the rows).
STREAM_C = r"""
#include <stddef.h>
void stream_copy(float *restrict b, const float *restrict a, long n) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) b[i] = a[i];
}
void stream_triad(float *restrict a, const float *restrict b, const float *restrict c, float s, long n) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}
float stream_read(const float *restrict a, long n) {
    float t = 0.0f;
#pragma omp parallel for schedule(static) reduction(+:t)
    for (long i = 0; i < n; i++) t += a[i];
    return t;
}
"""


def host_stream_bandwidth(tmp, n=16 * 1024 * 1024, reps=20):
    """Host memory bandwidth in GB/s (STREAM's byte counts: copy 2 x 4n,
    triad 3 x 4n, read 4n per run; the median of `reps` runs after warm-up),
    or None where no C compiler with OpenMP is found."""
    src = os.path.join(tmp, "stream.c")
    so = os.path.join(tmp, "libstream.so")
    with open(src, "w") as fh:
        fh.write(STREAM_C)
    r = subprocess.run(["cc", "-O3", "-march=native", "-ffast-math", "-fopenmp", "-shared", "-fPIC", src, "-o", so],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"STREAM kernels not built (cc -fopenmp failed): {r.stderr.strip()}", file=sys.stderr)
        return None
    lib = ctypes.CDLL(so)
    fp = ctypes.POINTER(ctypes.c_float)
    lib.stream_copy.argtypes = [fp, fp, ctypes.c_long]
    lib.stream_triad.argtypes = [fp, fp, fp, ctypes.c_float, ctypes.c_long]
    lib.stream_read.argtypes = [fp, ctypes.c_long]
    lib.stream_read.restype = ctypes.c_float
    a, b, c = (np.full(n, v, dtype=np.float32) for v in (1.0, 2.0, 0.5))
    pa, pb, pc = (x.ctypes.data_as(fp) for x in (a, b, c))

    def timed(call, nbytes):
        for _ in range(3):
            call()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            call()
            times.append(time.perf_counter() - t0)
        return nbytes / statistics.median(times) / 1e9

    return {
        "copy": timed(lambda: lib.stream_copy(pb, pa, n), 2 * 4 * n),
        "triad": timed(lambda: lib.stream_triad(pa, pb, pc, 3.0, n), 3 * 4 * n),
        "read": timed(lambda: lib.stream_read(pa, n), 4 * n),
    }


def same(a, b):
    # rtol 1e-4, and an atol of 1e-4 of the result's largest magnitude: a
    # sum of many products that cancels to near zero carries the rounding
    # of its largest terms (the MLP's outputs reach 7e4; XLA's and hlox's
    # both differ from a float64 reference by up to 0.08 there, 1e-6 of
    # the largest, and so from each other by more than an atol of 1e-4).
    def close(x, y):
        scale = float(np.max(np.abs(y))) if y.size and np.issubdtype(y.dtype, np.number) else 0.0
        return np.allclose(x, y, rtol=1e-4, atol=1e-4 * max(1.0, scale))
    return len(a) == len(b) and all(x.shape == y.shape and close(x, y) for x, y in zip(a, b))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hlox", default=os.path.join(ROOT, "target", "release", "hlox"))
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--markdown", help="also write the table as markdown to this file")
    ap.add_argument("--baseline", metavar="HLOX",
                    help="another hlox binary (e.g. a release build of an earlier commit) run on the same "
                         "modules in the same run, alternating with --hlox (--rounds times each): adds its "
                         "compile and median times and the ratio new / baseline to the table (Host only)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="with --baseline: runs of each binary per benchmark, alternating; the table "
                         "keeps the best median and the best compile time of each")
    ap.add_argument("--platform", choices=["host", "cuda"], default="host")
    ap.add_argument("--no-stream", action="store_true",
                    help="skip the Host's STREAM-style bandwidth measurement (copy, triad, read) and the "
                         "memory-bound rows' share of it")
    ap.add_argument("--xla-matmul-precision", choices=["highest", "default"], default="highest",
                    help="JAX's matmul precision when lowering (cuda): 'highest' is full f32 as hlox "
                         "computes (the default, like for like); 'default' lets XLA use TF32")
    ap.add_argument("--compile-only", action="store_true",
                    help="measure compile times only, over the benchmarks and the corpus (see above)")
    ap.add_argument("--no-corpus", action="store_true", help="with --compile-only: the benchmarks only")
    ap.add_argument("--warm", action="store_true",
                    help="with --compile-only: also hlox's warm compile (the module compiled again in the "
                         "process that compiled it, `hlox bench --compile-rounds`), as XLA's is measured")
    a = ap.parse_args()
    if a.compile_only:
        return main_compile_only(a)
    if a.platform == "cuda":
        return main_cuda(a)

    import jax
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        so = build_seed_plugin(tmp)
        keep = register_seed_with_xla(so)  # noqa: F841 (keeps the library loaded)
        stream = [] if a.no_stream else [host_stream_bandwidth(tmp)]
        shares = {}
        for name, f, args in jax_benchmarks():
            if a.only and name not in a.only:
                continue
            plugins = [so] if name == "seed_custom_call" else []
            proto, path, inputs, d = write_case(tmp, name, f, args)
            x = xla_run(proto, args, a.iters, a.warmup)
            out = os.path.join(d, "out")
            if a.baseline:
                # Alternate the two binaries, and which goes first (the
                # first hlox process after XLA's run can be up to 1.4x
                # slower on the LAPACK rows: docs/performance.md), so that
                # load from elsewhere falls on both alike; keep each one's
                # best. Use --rounds 2 or more.
                hs, bs = [], []
                for k in range(max(1, a.rounds)):
                    order = [(a.hlox, hs), (a.baseline, bs)]
                    for binary, results in order if k % 2 == 0 else order[::-1]:
                        results.append(hlox_run(binary, path, inputs, a.iters, a.warmup, plugins, out))
                h = min(hs, key=lambda r: r["median_ms"])
                h["compile_ms"] = min(r["compile_ms"] for r in hs)
                b = min(bs, key=lambda r: r["median_ms"])
                b["compile_ms"] = min(r["compile_ms"] for r in bs)
            else:
                h = hlox_run(a.hlox, path, inputs, a.iters, a.warmup, plugins, out)
                b = None
            ok = same(h["outputs"], x["outputs"]) and (b is None or same(b["outputs"], x["outputs"]))
            row = (name, x["compile_ms"], h["compile_ms"], x["median_ms"], h["median_ms"],
                   h["median_ms"] / x["median_ms"], "yes" if ok else "NO")
            if b is not None:
                row += (b["compile_ms"], b["median_ms"], h["compile_ms"] / b["compile_ms"],
                        h["median_ms"] / b["median_ms"])
            rows.append(row)
            if name in MEMORY_BOUND:
                moved = sum(v.nbytes for v in args) + sum(o.nbytes for o in x["outputs"])
                shares[name] = (moved, h["median_ms"], x["median_ms"])
            line = (f"{name:22s} xla {x['median_ms']:9.3f} ms  hlox {h['median_ms']:9.3f} ms  "
                    f"ratio {h['median_ms'] / x['median_ms']:5.2f}  same outputs: {row[6]}")
            if b is not None:
                line += f"  baseline {b['median_ms']:9.3f} ms  new/baseline {row[10]:5.2f}"
            print(line, flush=True)
        if stream and stream[0] and not a.baseline:
            # Again after the rows (inside `tmp`, which holds the kernels'
            # source): the machine is shared, so give the bandwidth's spread
            # and hold each row against the better one.
            stream.append(host_stream_bandwidth(tmp))

    if a.baseline:
        header = ("| benchmark | XLA compile ms | hlox compile ms | XLA median ms | hlox median ms | hlox / XLA "
                  "| same outputs | baseline compile ms | baseline median ms | compile new / baseline "
                  "| run new / baseline |\n"
                  "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n")
        body = "".join(f"| {r[0]} | {r[1]:.1f} | {r[2]:.1f} | {r[3]:.3f} | {r[4]:.3f} | {r[5]:.2f} | {r[6]} "
                       f"| {r[7]:.1f} | {r[8]:.3f} | {r[9]:.2f} | {r[10]:.2f} |\n" for r in rows)
    else:
        header = ("| benchmark | XLA compile ms | hlox compile ms | XLA median ms | hlox median ms | hlox / XLA | same outputs |\n"
                  "|---|---:|---:|---:|---:|---:|---|\n")
        body = "".join(f"| {r[0]} | {r[1]:.1f} | {r[2]:.1f} | {r[3]:.3f} | {r[4]:.3f} | {r[5]:.2f} | {r[6]} |\n" for r in rows)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, {platform.processor() or platform.platform()}"
    table = f"Machine: {machine}; jax {jax.__version__}; iters {a.iters}, warmup {a.warmup}.\n\n" + header + body
    ratios = [r[5] for r in rows if r[5] > 0]
    if ratios:
        geo = float(np.exp(np.mean(np.log(ratios))))
        table += f"\nGeometric mean of hlox / XLA over {len(ratios)} rows: {geo:.2f}\n"
    if stream and stream[0]:
        best = {k: max(st[k] for st in stream) for k in stream[0]}
        table += ("\nHost memory bandwidth (STREAM-style, compiled C, every core, 16 Mi f32 arrays), "
                  "GB/s, at the start / end of the run: "
                  + "; ".join(f"{k} " + " / ".join(f"{st[k]:.1f}" for st in stream) for k in best) + "\n")
        if shares:
            table += ("\n| memory-bound row | bytes moved (MB) | STREAM kernel | hlox GB/s | hlox share "
                      "| XLA GB/s | XLA share |\n|---|---:|---|---:|---:|---:|---:|\n")
            for name, (moved, hm, xm) in shares.items():
                k = MEMORY_BOUND[name]
                hg, xg = moved / (hm * 1e-3) / 1e9, moved / (xm * 1e-3) / 1e9
                table += (f"| {name} | {moved / 1e6:.0f} | {k} ({best[k]:.1f} GB/s) | {hg:.1f} "
                          f"| {hg / best[k]:.0%} | {xg:.1f} | {xg / best[k]:.0%} |\n")
    print()
    print(table)
    if a.markdown:
        with open(a.markdown, "w") as fh:
            fh.write(table)
    return 0 if all(r[6] == "yes" for r in rows) else 1


def xla_compile_ms(proto, rounds):
    """Best of `rounds` compiles of `proto` by XLA's CPU client (ms)."""
    import jax
    from jax._src.lib import xla_client as xc

    client = jax.devices("cpu")[0].client
    mlir = xc._xla.mlir.hlo_to_stablehlo(proto)
    devices = xc.DeviceList(tuple(client.devices()[:1]))
    best = None
    for _ in range(max(1, rounds)):
        t0 = time.perf_counter()
        client.compile_and_load(mlir, devices, xc.CompileOptions())
        ms = (time.perf_counter() - t0) * 1e3
        best = ms if best is None else min(best, ms)
    return best


def hlox_compile(hlox, path, inputs, plugins, rounds, warm=False):
    """Best of `rounds` cold compiles (one process each) by `hlox bench`:
    the JSON line of the fastest (compile_ms, and the split if reported).
    With `warm`, each process also compiles the module again `rounds` times
    (`--compile-rounds`, no cache), and "warm_compile_ms" is the best of
    those over all processes: XLA's conditions (a process that has
    compiled before)."""
    best = None
    warm_best = None
    extra = ["--compile-rounds", str(max(1, rounds) + 1)] if warm else []
    for _ in range(max(1, rounds)):
        with tempfile.TemporaryDirectory() as out:
            r = hlox_run(hlox, path, inputs, 1, 0, plugins, out, extra=extra)
        r.pop("outputs", None)
        if "warm_compile_ms" in r:
            warm_best = r["warm_compile_ms"] if warm_best is None else min(warm_best, r["warm_compile_ms"])
        if best is None or r["compile_ms"] < best["compile_ms"]:
            best = r
    if warm_best is not None:
        best["warm_compile_ms"] = warm_best
    return best


def corpus_cases():
    """(name, proto path, input paths) of every corpus case that needs no
    custom-call target."""
    root = os.path.join(ROOT, "tests", "corpus")
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        meta = os.path.join(d, "meta.json")
        pb = os.path.join(d, "module.pb")
        if not (os.path.isfile(meta) and os.path.isfile(pb)):
            continue
        with open(meta) as fh:
            m = json.load(fh)
        if m.get("needs_custom_call_targets"):
            continue
        inputs = []
        while os.path.exists(os.path.join(d, f"in{len(inputs)}.npy")):
            inputs.append(os.path.join(d, f"in{len(inputs)}.npy"))
        yield name, pb, inputs


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return float(np.exp(np.mean(np.log(xs)))) if xs else float("nan")


def main_compile_only(a):
    import jax
    rows = []  # (name, xla ms, hlox ms, hlox opt ms, hlox jit ms, baseline ms)

    def measure(name, proto, path, inputs, plugins):
        try:
            x = xla_compile_ms(proto, a.rounds)
        except Exception as e:  # noqa: BLE001 (report and go on)
            print(f"{name:28s} XLA cannot compile it: {str(e).splitlines()[0]}", flush=True)
            return
        try:
            h = hlox_compile(a.hlox, path, inputs, plugins, a.rounds, warm=a.warm)
            b = hlox_compile(a.baseline, path, inputs, plugins, a.rounds) if a.baseline else None
        except RuntimeError as e:
            print(f"{name:28s} hlox failed: {str(e).splitlines()[-1]}", flush=True)
            return
        row = (name, x, h["compile_ms"], h.get("llvm_opt_ms"), h.get("jit_ms"),
               b["compile_ms"] if b else None, h.get("warm_compile_ms"))
        rows.append(row)
        line = f"{name:28s} xla {x:8.1f} ms  hlox {h['compile_ms']:8.1f} ms  ratio {h['compile_ms'] / x:5.2f}"
        if row[6]:
            line += f"  warm {row[6]:8.1f} ms  ratio {row[6] / x:5.2f}"
        if b:
            line += f"  baseline {b['compile_ms']:8.1f} ms"
        print(line, flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        so = build_seed_plugin(tmp)
        keep = register_seed_with_xla(so)  # noqa: F841 (keeps the library loaded)
        for name, f, args in jax_benchmarks():
            if a.only and name not in a.only:
                continue
            plugins = [so] if name == "seed_custom_call" else []
            proto, path, inputs, _ = write_case(tmp, name, f, args)
            measure(name, proto, path, inputs, plugins)
        if not a.no_corpus:
            for name, pb, inputs in corpus_cases():
                if a.only and name not in a.only:
                    continue
                with open(pb, "rb") as fh:
                    proto = fh.read()
                measure("corpus/" + name, proto, pb, inputs, [])

    fmt = lambda v: "-" if v is None else f"{v:.1f}"
    header = ("| module | XLA compile ms | hlox compile ms | of which LLVM opt ms | of which JIT ms | hlox / XLA"
              + (" | hlox warm ms | warm / XLA" if a.warm else "")
              + (" | baseline hlox ms | new / baseline" if a.baseline else "") + " |\n"
              + "|---|---:|---:|---:|---:|---:" + ("|---:|---:" if a.warm else "")
              + ("|---:|---:" if a.baseline else "") + "|\n")
    body = ""
    for r in rows:
        body += f"| {r[0]} | {r[1]:.1f} | {r[2]:.1f} | {fmt(r[3])} | {fmt(r[4])} | {r[2] / r[1]:.2f}"
        if a.warm:
            body += f" | {fmt(r[6])} | {r[6] / r[1]:.2f}" if r[6] else " | - | -"
        if a.baseline:
            body += f" | {fmt(r[5])} | {r[2] / r[5]:.2f}" if r[5] else " | - | -"
        body += " |\n"
    bench = [r for r in rows if not r[0].startswith("corpus/")]
    corpus = [r for r in rows if r[0].startswith("corpus/")]
    summary = (f"Geometric mean hlox / XLA: all {len(rows)} modules {geomean([r[2] / r[1] for r in rows]):.2f}, "
               f"benchmarks ({len(bench)}) {geomean([r[2] / r[1] for r in bench]):.2f}, "
               f"corpus ({len(corpus)}) {geomean([r[2] / r[1] for r in corpus]):.2f}; "
               f"geometric means of the compile times: XLA {geomean([r[1] for r in rows]):.1f} ms, "
               f"hlox {geomean([r[2] for r in rows]):.1f} ms")
    if a.baseline:
        summary += f", baseline {geomean([r[5] for r in rows if r[5]]):.1f} ms"
    if a.warm:
        warm = [r for r in rows if r[6]]
        summary += (f". Warm (compiled again in the same process, as XLA's): hlox / XLA "
                    f"{geomean([r[6] / r[1] for r in warm]):.2f} over {len(warm)} modules "
                    f"(benchmarks {geomean([r[6] / r[1] for r in warm if not r[0].startswith('corpus/')]):.2f}, "
                    f"corpus {geomean([r[6] / r[1] for r in warm if r[0].startswith('corpus/')]):.2f}), "
                    f"hlox {geomean([r[6] for r in warm]):.1f} ms")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, {platform.processor() or platform.platform()}"
    table = (f"Machine: {machine}; jax {jax.__version__}; compile times, best of {a.rounds}.\n\n"
             + header + body + "\n" + summary + ".\n")
    print()
    print(table)
    if a.markdown:
        with open(a.markdown, "w") as fh:
            fh.write(table)
    return 0


def write_case(tmp, name, f, args, precision=None):
    """Lower `f` (with JAX's matmul `precision` if given) and write its
    proto, HLO text and inputs under tmp/name."""
    import jax
    import contextlib
    ctx = jax.default_matmul_precision(precision) if precision else contextlib.nullcontext()
    with ctx:
        lowered = jax.jit(f).lower(*args)
    proto = lowered.compiler_ir("hlo").as_serialized_hlo_module_proto()
    d = os.path.join(tmp, name)
    os.makedirs(d)
    with open(os.path.join(d, "module.hlo"), "w") as fh:
        fh.write(lowered.as_text(dialect="hlo"))
    path = os.path.join(d, "module.pb")
    with open(path, "wb") as fh:
        fh.write(proto)
    inputs = []
    for i, x in enumerate(args):
        p = os.path.join(d, f"in{i}.npy")
        np.save(p, x)
        inputs.append(p)
    return proto, path, inputs, d


def main_cuda(a):
    import jax
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError as e:
        print(f"--platform cuda needs a GPU that jax can use (jax with CUDA): {e}", file=sys.stderr)
        return 2
    copy_gbs = copy_bandwidth_gbs()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, f, args in jax_benchmarks():
            if name in HOST_ONLY or (a.only and name not in a.only):
                continue
            # On Ampere and later XLA runs default-precision f32 dots in
            # TF32; 'highest' keeps them f32, as hlox computes them.
            precision = a.xla_matmul_precision if a.xla_matmul_precision != "default" else None
            proto, path, inputs, d = write_case(tmp, name, f, args, precision)
            x = xla_run(proto, args, a.iters, a.warmup, backend="gpu")
            h = hlox_run(a.hlox, path, inputs, a.iters, a.warmup, [], os.path.join(d, "out"), "cuda")
            ok = same(h["outputs"], x["outputs"])
            dev = h.get("device_median_ms")
            frac = ""
            if name in ELEMENTWISE and dev and copy_gbs:
                moved = sum(v.nbytes for v in args) + sum(o.nbytes for o in x["outputs"])
                frac = f"{moved / (dev * 1e-3) / 1e9 / copy_gbs:.2f}"
            rows.append((name, x["compile_ms"], h["compile_ms"], x["median_ms"], h["median_ms"],
                         dev, (dev / x["median_ms"]) if dev else None, frac, h.get("cuda_graph", "?"),
                         "yes" if ok else "NO"))
            print(f"{name:22s} xla {x['median_ms']:9.3f} ms  hlox wall {h['median_ms']:9.3f} ms  "
                  f"device {dev if dev is not None else float('nan'):9.3f} ms  graph {rows[-1][8]}  "
                  f"same outputs: {rows[-1][-1]}", flush=True)
    header = ("| benchmark | XLA compile ms | hlox compile ms | XLA median ms | hlox wall median ms "
              "(with transfers) | hlox device median ms | hlox device / XLA | of copy bandwidth "
              "| CUDA graph | same outputs |\n|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
    fmt = lambda v, p: "-" if v is None or v == "" else (f"{v:.{p}f}" if isinstance(v, float) else str(v))
    body = "".join(
        f"| {r[0]} | {fmt(r[1], 1)} | {fmt(r[2], 1)} | {fmt(r[3], 3)} | {fmt(r[4], 3)} | {fmt(r[5], 3)} "
        f"| {fmt(r[6], 2)} | {fmt(r[7], 2)} | {r[8]} | {r[9]} |\n" for r in rows)
    bw = f"{copy_gbs:.0f} GB/s" if copy_gbs else "not measured (no PyTorch)"
    table = (f"GPU: {gpu.device_kind}; jax {jax.__version__}; copy bandwidth {bw}; "
             f"XLA matmul precision {a.xla_matmul_precision}; "
             f"iters {a.iters}, warmup {a.warmup}.\n\n" + header + body)
    print()
    print(table)
    if a.markdown:
        with open(a.markdown, "w") as fh:
            fh.write(table)
    return 0 if all(r[-1] == "yes" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
