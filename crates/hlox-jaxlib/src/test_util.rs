//! What the tests of the unblocked (`linalg`) and blocked (`blocked`)
//! routines share: seeded random matrices and small reference algebra on
//! column-major `f64` matrices.

use crate::linalg::Triangular;

/// `n` values in [-1, 1) from a linear congruential generator seeded `seed`.
pub fn lcg(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// `a (m x k) * b (k x n)`.
pub fn matmul(m: usize, k: usize, n: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for j in 0..n {
        for l in 0..k {
            let t = b[l + j * k];
            for i in 0..m {
                c[i + j * m] += a[i + l * m] * t;
            }
        }
    }
    c
}

/// The transpose of `a (m x n)`.
pub fn transpose(m: usize, n: usize, a: &[f64]) -> Vec<f64> {
    (0..m * n).map(|x| a[x / n + (x % n) * m]).collect()
}

/// A random `n x n` matrix with `shift` added to its diagonal (shift > n
/// keeps every triangle well conditioned).
pub fn shifted(n: usize, seed: u64, shift: f64) -> Vec<f64> {
    let mut a = lcg(n * n, seed);
    (0..n).for_each(|i| a[i + i * n] += shift);
    a
}

/// Every [`Triangular`] variant (side, triangle, transpose, unit diagonal)
/// with an index for seeding.
pub fn every_triangular() -> impl Iterator<Item = (u64, Triangular)> {
    (0..16u64).map(|bits| {
        let p = Triangular {
            left: bits & 1 != 0,
            lower: bits & 2 != 0,
            transpose: bits & 4 != 0,
            conjugate: false,
            unit: bits & 8 != 0,
        };
        (bits, p)
    })
}

/// Symmetric `sym (n x n)` with NaN in the triangle a routine given
/// `lower` must not read.
pub fn one_triangle(n: usize, sym: &[f64], lower: bool) -> Vec<f64> {
    (0..n * n)
        .map(|x| {
            let (i, j) = (x % n, x / n);
            if (i >= j) == lower || i == j {
                sym[x]
            } else {
                f64::NAN
            }
        })
        .collect()
}
