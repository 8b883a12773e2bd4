"""Writes tests/stablehlo/complex_fft: the StableHLO text JAX prints for a
program with complex values and every FFT kind, its inputs and JAX's
outputs (.npy). Run with .venv-jax/bin/python; tests/tests/corpus.rs
(`stablehlo_complex_and_fft_evaluate_to_jax_outputs`) reads them."""

import pathlib

import jax
import jax.numpy as jnp
import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "stablehlo" / "complex_fft"


def f(x, z, w):
    return (
        jnp.fft.fft(z),
        jnp.fft.rfft(x),
        jnp.real(z) * 2 + jnp.imag(z),
        jax.lax.complex(x, x) * z / (z + 1),
        jnp.fft.irfft(jnp.fft.rfft(x)),
        jnp.fft.ifft2(w),
        jnp.abs(jnp.exp(z)),
        z == jnp.conj(z),
    )


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(8).astype(np.float32)
    z = (rng.standard_normal(8) + 1j * rng.standard_normal(8)).astype(np.complex64)
    z[3] = np.conj(z[3]).real  # one real element: `z == conj(z)` is true there
    w = (rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))).astype(np.complex64)
    args = (x, z, w)
    (OUT / "module.mlir").write_text(jax.jit(f).lower(*args).as_text())
    for i, a in enumerate(args):
        np.save(OUT / f"in{i}.npy", a)
    for i, r in enumerate(jax.jit(f)(*args)):
        np.save(OUT / f"out{i}.npy", np.asarray(r))


if __name__ == "__main__":
    main()
