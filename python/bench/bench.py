"""Python-boundary benchmarks (docs/performance.md, "Python"):

  overhead  per-call time of hlox.jit(f)(x) against jax.jit(f)(x) for a tiny f
  rss       peak RSS of exe(x) with a 1 GiB input and a 1 GiB output (run in
            its own process: python bench.py rss)

python python/bench/bench.py [overhead|rss|all]
"""

import resource
import subprocess
import sys
import time

import numpy as np


def per_call(fn, x, n=20000, repeats=5):
    for _ in range(200):
        fn(x)
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            fn(x)
        best = min(best, (time.perf_counter() - t) / n)
    return best


def overhead():
    import jax

    import hlox

    def f(x):
        return x * 2.0 + 1.0

    x = np.ones(8, np.float32)
    jf = jax.jit(f)
    hf = hlox.jit(f)
    exe = hlox.compile(hf.lower(x))
    np.testing.assert_allclose(np.asarray(jf(x)), hf(x))
    t_jax = per_call(lambda v: jf(v).block_until_ready(), x)
    t_hlox = per_call(hf, x)
    t_exe = per_call(exe, x)
    print(f"jax.jit(f)(x)        {t_jax * 1e6:7.2f} us/call")
    print(f"hlox.jit(f)(x)       {t_hlox * 1e6:7.2f} us/call  ({t_hlox / t_jax:.2f} of jax.jit)")
    print(f"hlox executable(x)   {t_exe * 1e6:7.2f} us/call")


def rss():
    import hlox

    n = (1 << 30) // 4
    b = hlox.Builder("scale")
    x = b.parameter(0, hlox.Shape.array("f32", (n,)), "x")
    exe = hlox.compile(b.build(x * 2.0))
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    a = np.ones(n, np.float32)
    out = exe(a)
    assert out[0] == 2.0 and out[-1] == 2.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"exe(x), 1 GiB in, 1 GiB out: peak RSS {peak / 2**20:.2f} GiB (before the arrays: {base / 2**20:.2f} GiB)")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what in ("overhead", "all"):
        overhead()
    if what == "rss":
        rss()
    if what == "all":
        subprocess.run([sys.executable, __file__, "rss"], check=True)
