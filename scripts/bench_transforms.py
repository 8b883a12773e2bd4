#!/usr/bin/env python3
"""Gradients side by side: hlox's `grad` of a module JAX wrote, against
`jax.grad` compiled by XLA, in one run, on one machine.

    bash scripts/setup_jax.sh            # once: .venv-jax with the pinned jax
    cargo build --release                # target/release/hlox
    .venv-jax/bin/python scripts/bench_transforms.py [--iters 30] [--rounds 3]

For each program (a loss: an MLP, and a transformer block) the script lowers
the forward loss with JAX to a serialized HloModuleProto and runs:
  * hlox: `hlox grad loss.pb --wrt 0,1,... -o grad.hlo` (the gradient with
    respect to every parameter), then `hlox bench` on the forward module and
    on the gradient module;
  * XLA: the same forward proto, and the proto JAX lowers for
    `jax.grad(loss, argnums=all)`, each compiled with XLA's CPU client and
    run (compiled once, with the client bench_vs_xla.py uses).
It checks that hlox's gradient equals jax.grad's, and prints, per round,
the median times, the gradient/forward ratio of each compiler (the issue's
goal: hlox's gradient within 3x of its forward pass) and hlox's gradient
time over XLA's.

The host's load drifts from one second to the next (a shared 2-core
machine), so a round does not time the forward pass and then the gradient:
it alternates them, `--alternations` times a batch of `--iters` runs of
each (hlox's forward, hlox's gradient, XLA's forward, XLA's gradient), and
a ratio is the median of the ratios of batches run next to each other.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench_vs_xla import hlox_run, xla_timer  # noqa: E402


def programs():
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)

    def f32(*shape, scale=0.1):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def mlp_loss(w1, b1, w2, b2, w3, b3, x, y):
        h = jnp.tanh(x @ w1 + b1)
        h = jnp.tanh(h @ w2 + b2)
        out = h @ w3 + b3
        return jnp.mean((out - y) ** 2)

    mlp_args = [f32(256, 512), f32(512), f32(512, 512), f32(512), f32(512, 10), f32(10),
                f32(256, 256, scale=1.0), f32(256, 10, scale=1.0)]

    def layernorm(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-5) * g + b

    def block_loss(wq, wk, wv, wo, w1, w2, g1, b1, g2, b2, x):
        # One pre-norm transformer block, 4 heads, then a scalar loss.
        s, d, h = x.shape[0], x.shape[1], 4
        a = layernorm(x, g1, b1)
        q, k, v = (a @ wq).reshape(s, h, d // h), (a @ wk).reshape(s, h, d // h), (a @ wv).reshape(s, h, d // h)
        att = jax.nn.softmax(jnp.einsum("qhd,khd->hqk", q, k) / np.sqrt(d // h), axis=-1)
        o = jnp.einsum("hqk,khd->qhd", att, v).reshape(s, d) @ wo
        x = x + o
        f = jax.nn.gelu(layernorm(x, g2, b2) @ w1) @ w2
        return jnp.mean((x + f) ** 2)

    d = 256
    block_args = [f32(d, d), f32(d, d), f32(d, d), f32(d, d), f32(d, 4 * d), f32(4 * d, d),
                  np.ones(d, np.float32), np.zeros(d, np.float32), np.ones(d, np.float32),
                  np.zeros(d, np.float32), f32(128, d, scale=1.0)]
    return [("mlp", mlp_loss, mlp_args, 6), ("transformer_block", block_loss, block_args, 10)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hlox", default=os.path.join(ROOT, "target", "release", "hlox"))
    ap.add_argument("--iters", type=int, default=30, help="runs per batch")
    ap.add_argument("--alternations", type=int, default=5,
                    help="batches of each module per round, alternated")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", metavar="DIR",
                    help="write the modules and inputs under DIR (for `hlox bench --profile`) instead of a temporary directory")
    a = ap.parse_args()

    import jax

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        tmp = a.keep or scratch
        for name, loss, args, n_wrt in programs():
            wrt = tuple(range(n_wrt))
            fwd = jax.jit(loss).lower(*args).compiler_ir("hlo").as_serialized_hlo_module_proto()
            grad_fn = jax.grad(loss, argnums=wrt)
            bwd = jax.jit(grad_fn).lower(*args).compiler_ir("hlo").as_serialized_hlo_module_proto()
            want = [np.asarray(g) for g in grad_fn(*args)]
            d = os.path.join(tmp, name)
            os.makedirs(d, exist_ok=True)
            pb = os.path.join(d, "loss.pb")
            with open(pb, "wb") as f:
                f.write(fwd)
            inputs = []
            for i, x in enumerate(args):
                inputs.append(os.path.join(d, f"in{i}.npy"))
                np.save(inputs[-1], x)
            grad_hlo = os.path.join(d, "grad.hlo")
            subprocess.run([a.hlox, "grad", pb, "--wrt", ",".join(map(str, wrt)), "-o", grad_hlo],
                           check=True)
            out = os.path.join(d, "out")
            med = statistics.median
            (xla_fwd, _), (xla_grad, _) = xla_timer(fwd, args), xla_timer(bwd, args)
            xla_fwd(a.warmup)
            xla_grad(a.warmup)
            for r in range(a.rounds):
                # Batches of each, alternated: (hlox fwd, hlox grad, XLA fwd, XLA grad).
                batches, ok = [], True
                for _ in range(a.alternations):
                    hf = hlox_run(a.hlox, pb, inputs, a.iters, a.warmup, [], out)
                    hg = hlox_run(a.hlox, grad_hlo, inputs, a.iters, a.warmup, [], out)
                    xf = med(xla_fwd(a.iters)[0])
                    xg = med(xla_grad(a.iters)[0])
                    ok = ok and len(hg["outputs"]) == len(want) and all(
                        np.allclose(g, w, rtol=2e-3, atol=1e-5) for g, w in zip(hg["outputs"], want))
                    batches.append((hf["median_ms"], hg["median_ms"], xf, xg))
                hf, hg, xf, xg = (med(b[i] for b in batches) for i in range(4))
                h_ratio = med(b[1] / b[0] for b in batches)
                x_ratio = med(b[3] / b[2] for b in batches)
                hx = med(b[1] / b[3] for b in batches)
                rows.append((name, r, hf, hg, xf, xg, ok))
                print(f"{name:18} round {r}: hlox fwd {hf:8.3f} ms  grad {hg:8.3f} ms (x{h_ratio:.2f})   "
                      f"XLA fwd {xf:8.3f} ms  grad {xg:8.3f} ms (x{x_ratio:.2f})   "
                      f"hlox/XLA grad {hx:.2f}   grads match jax.grad: {ok}", flush=True)
    if not all(r[-1] for r in rows):
        sys.exit("hlox's gradient differs from jax.grad's")


if __name__ == "__main__":
    main()
