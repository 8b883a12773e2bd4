//! XLA's `fft` over the last one to three dimensions, on `rustfft`: the one
//! implementation the evaluator and the Host runtime both call (the CUDA
//! backend calls cuFFT with the same conventions).
//!
//! XLA's conventions (`FftType`): FFT is the forward transform
//! `X[k] = sum_t x[t] e^(-2 pi i t k / n)`, IFFT its inverse scaled by
//! `1/n` (n the product of the transformed lengths); RFFT is the forward
//! transform of real data keeping the last dimension's non-negative
//! frequencies (`n/2 + 1`); IRFFT its inverse, as numpy's `irfftn`: the
//! inverse complex transform over the leading transformed dimensions,
//! then a complex-to-real one over the last (the imaginary parts of its
//! zero and Nyquist frequencies are ignored), scaled by `1/n`.
//!
//! The data of every function here is a row-major batch: `batch` blocks,
//! each the transformed dimensions in row-major order. Plans come from a
//! per-thread [`FftPlanner`] (`rustfft` caches each length's plan), so
//! repeated runs of a module plan once per thread.

use num_complex::Complex;
use rustfft::num_traits::Zero;
use rustfft::{FftNum, FftPlanner};
use std::cell::RefCell;

/// Element types the transforms run in (f32 for c64, f64 for c128), with
/// their per-thread planner.
pub trait FftFloat: FftNum + rustfft::num_traits::Float {
    fn with_planner<R>(f: impl FnOnce(&mut FftPlanner<Self>) -> R) -> R;
}

thread_local! {
    static PLANNER_F32: RefCell<FftPlanner<f32>> = RefCell::new(FftPlanner::new());
    static PLANNER_F64: RefCell<FftPlanner<f64>> = RefCell::new(FftPlanner::new());
}

impl FftFloat for f32 {
    fn with_planner<R>(f: impl FnOnce(&mut FftPlanner<f32>) -> R) -> R {
        PLANNER_F32.with(|p| f(&mut p.borrow_mut()))
    }
}

impl FftFloat for f64 {
    fn with_planner<R>(f: impl FnOnce(&mut FftPlanner<f64>) -> R) -> R {
        PLANNER_F64.with(|p| f(&mut p.borrow_mut()))
    }
}

/// One-dimensional transforms of length `lengths[axis]` along `axis` of
/// every row-major block of `data` (blocks of `lengths.iter().product()`
/// elements), in place.
fn along_axis<T: FftFloat>(data: &mut [Complex<T>], lengths: &[usize], axis: usize, inverse: bool) {
    let n = lengths[axis];
    let block: usize = lengths.iter().product();
    if n <= 1 || block == 0 {
        return;
    }
    let plan = T::with_planner(|p| {
        if inverse {
            p.plan_fft_inverse(n)
        } else {
            p.plan_fft_forward(n)
        }
    });
    let inner: usize = lengths[axis + 1..].iter().product();
    let mut scratch = vec![Complex::zero(); plan.get_inplace_scratch_len()];
    if inner == 1 {
        // The last axis: each row is contiguous; rustfft runs them all.
        plan.process_with_scratch(data, &mut scratch);
        return;
    }
    let outer = data.len() / (n * inner);
    let mut line = vec![Complex::zero(); n];
    for o in 0..outer {
        for i in 0..inner {
            let base = o * n * inner + i;
            for (t, l) in line.iter_mut().enumerate() {
                *l = data[base + t * inner];
            }
            plan.process_with_scratch(&mut line, &mut scratch);
            for (t, l) in line.iter().enumerate() {
                data[base + t * inner] = *l;
            }
        }
    }
}

fn scale<T: FftFloat>(data: &mut [Complex<T>], n: usize) {
    let s = T::from_f64(1.0 / n as f64).unwrap_or_else(T::zero);
    for z in data {
        *z = *z * s;
    }
}

/// FFT (`inverse == false`) or IFFT (scaled by `1/n`) over the trailing
/// `lengths` of `data`, in place.
pub fn complex<T: FftFloat>(data: &mut [Complex<T>], lengths: &[usize], inverse: bool) {
    let n: usize = lengths.iter().product();
    complex_unscaled(data, lengths, inverse);
    if inverse && n != 0 {
        scale(data, n);
    }
}

/// [`complex`] without IFFT's `1/n` (cuFFT's convention: the CUDA
/// backend's emulation scales in a kernel of its own).
pub fn complex_unscaled<T: FftFloat>(data: &mut [Complex<T>], lengths: &[usize], inverse: bool) {
    let n: usize = lengths.iter().product();
    if n == 0 {
        return;
    }
    for axis in 0..lengths.len() {
        along_axis(data, lengths, axis, inverse);
    }
}

/// RFFT: `input` has blocks of `lengths` real values, `output` blocks of
/// `lengths` with the last replaced by `last / 2 + 1`.
pub fn real_forward<T: FftFloat>(input: &[T], lengths: &[usize], output: &mut [Complex<T>]) {
    let n: usize = lengths.iter().product();
    let last = *lengths.last().unwrap_or(&1);
    let half = if last == 0 { 0 } else { last / 2 + 1 };
    if n == 0 || half == 0 {
        output.iter_mut().for_each(|z| *z = Complex::zero());
        return;
    }
    let mut full: Vec<Complex<T>> = input.iter().map(|&x| Complex::new(x, T::zero())).collect();
    complex(&mut full, lengths, false);
    for (row, out) in full.chunks_exact(last).zip(output.chunks_exact_mut(half)) {
        out.copy_from_slice(&row[..half]);
    }
}

/// IRFFT: `input` has blocks of `lengths` with the last replaced by
/// `last / 2 + 1` frequencies, `output` blocks of `lengths` real values.
pub fn real_inverse<T: FftFloat>(input: &[Complex<T>], lengths: &[usize], output: &mut [T]) {
    let n: usize = lengths.iter().product();
    let s = T::from_f64(1.0 / n as f64).unwrap_or_else(T::zero);
    real_inverse_scaled(input, lengths, output, s);
}

/// [`real_inverse`] without the `1/n` (cuFFT's convention, as
/// [`complex_unscaled`]).
pub fn real_inverse_unscaled<T: FftFloat>(
    input: &[Complex<T>],
    lengths: &[usize],
    output: &mut [T],
) {
    real_inverse_scaled(input, lengths, output, T::one());
}

/// IRFFT with every output multiplied by `s`.
fn real_inverse_scaled<T: FftFloat>(
    input: &[Complex<T>],
    lengths: &[usize],
    output: &mut [T],
    s: T,
) {
    let n: usize = lengths.iter().product();
    let k = lengths.len();
    let last = *lengths.last().unwrap_or(&1);
    let half = if last == 0 { 0 } else { last / 2 + 1 };
    if n == 0 || half == 0 {
        output.iter_mut().for_each(|x| *x = T::zero());
        return;
    }
    // The leading transformed dimensions, on the half spectrum.
    let mut spec = input.to_vec();
    let mut half_lengths = lengths.to_vec();
    half_lengths[k - 1] = half;
    for axis in 0..k - 1 {
        along_axis(&mut spec, &half_lengths, axis, true);
    }
    // The last: each row's Hermitian extension, inverted, its real part.
    let plan = T::with_planner(|p| p.plan_fft_inverse(last));
    let mut scratch = vec![Complex::zero(); plan.get_inplace_scratch_len()];
    let mut row = vec![Complex::zero(); last];
    for (h, out) in spec.chunks_exact(half).zip(output.chunks_exact_mut(last)) {
        row[..half].copy_from_slice(h);
        for j in half..last {
            row[j] = h[last - j].conj();
        }
        plan.process_with_scratch(&mut row, &mut scratch);
        for (o, z) in out.iter_mut().zip(&row) {
            *o = z.re * s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, in f64, for one block.
    fn dft(x: &[Complex<f64>], lengths: &[usize], inverse: bool) -> Vec<Complex<f64>> {
        let n: usize = lengths.iter().product();
        let sign = if inverse { 1.0 } else { -1.0 };
        let unravel = |mut i: usize| {
            let mut idx = vec![0; lengths.len()];
            for d in (0..lengths.len()).rev() {
                idx[d] = i % lengths[d];
                i /= lengths[d];
            }
            idx
        };
        (0..n)
            .map(|k| {
                let kk = unravel(k);
                let mut acc = Complex::new(0.0, 0.0);
                for (t, &v) in x.iter().enumerate() {
                    let tt = unravel(t);
                    let phase: f64 = (0..lengths.len())
                        .map(|d| (tt[d] * kk[d]) as f64 / lengths[d] as f64)
                        .sum();
                    acc += v * Complex::from_polar(1.0, sign * 2.0 * std::f64::consts::PI * phase);
                }
                if inverse {
                    acc / n as f64
                } else {
                    acc
                }
            })
            .collect()
    }

    fn sample(n: usize) -> Vec<Complex<f64>> {
        (0..n)
            .map(|i| Complex::new((i as f64 * 0.7).sin(), (i as f64 * 1.3).cos() - 0.2))
            .collect()
    }

    fn close(a: &[Complex<f64>], b: &[Complex<f64>]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).norm() < 1e-9, "{x} vs {y}");
        }
    }

    #[test]
    fn complex_transforms_match_the_definition() {
        for lengths in [
            vec![1],
            vec![7],
            vec![8],
            vec![3, 5],
            vec![2, 3, 4],
            vec![5, 1, 3],
        ] {
            let n: usize = lengths.iter().product();
            let x = sample(2 * n);
            for inverse in [false, true] {
                let mut y = x.clone();
                complex(&mut y, &lengths, inverse);
                for b in 0..2 {
                    close(
                        &y[b * n..(b + 1) * n],
                        &dft(&x[b * n..(b + 1) * n], &lengths, inverse),
                    );
                }
            }
        }
    }

    #[test]
    fn real_transforms_match_the_definition_and_invert() {
        for lengths in [vec![1], vec![6], vec![7], vec![4, 5], vec![3, 2, 5]] {
            let n: usize = lengths.iter().product();
            let last = *lengths.last().unwrap();
            let half = last / 2 + 1;
            let x: Vec<f64> = (0..n)
                .map(|i| (i as f64 * 0.37).cos() + 0.1 * i as f64)
                .collect();
            let mut spec = vec![Complex::new(0.0, 0.0); n / last * half];
            real_forward(&x, &lengths, &mut spec);
            let full = dft(
                &x.iter().map(|&v| Complex::new(v, 0.0)).collect::<Vec<_>>(),
                &lengths,
                false,
            );
            let want: Vec<Complex<f64>> =
                full.chunks(last).flat_map(|r| r[..half].to_vec()).collect();
            close(&spec, &want);
            let mut back = vec![0.0; n];
            real_inverse(&spec, &lengths, &mut back);
            for (a, b) in back.iter().zip(&x) {
                assert!((a - b).abs() < 1e-9, "{a} vs {b}");
            }
        }
    }
}
