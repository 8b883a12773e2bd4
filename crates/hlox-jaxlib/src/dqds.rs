//! Singular values of a real bidiagonal matrix by the differential
//! quotient-difference algorithm with shifts (dqds; Fernando and Parlett,
//! "Accurate singular values and differential qd algorithms", 1994), the
//! algorithm behind LAPACK's `dlasq1`, which `gesdd` and `gesvd` run when
//! no vectors are asked for.
//!
//! faer computes the values of its bidiagonal matrix by the implicit QR
//! iteration (or divide and conquer), whose Givens rotations each take a
//! square root and a division; dqds works on the squares of the entries
//! (the *qd array*) and takes one division per element and step, no
//! square root, with shifts chosen so that the smallest remaining value
//! converges in a few steps (3.3 per value in f32 and 4.3 in f64 at order
//! 128, failed steps counted). For `jnp.linalg.svd(a, compute_uv=False)`
//! of a 128x128 f32 matrix the iteration went from two thirds of the run
//! (faer's QR iteration) to a third, the run from 1.23-1.39 to 0.79-0.94
//! ms (docs/performance.md).
//!
//! The qd array `(q, e)` of the bidiagonal matrix `B` with diagonal `d` and
//! superdiagonal `f` is `q_i = d_i^2`, `e_i = f_i^2`; it stands for the
//! symmetric tridiagonal matrix `B^T B` (diagonal `q_i + e_{i-1}`,
//! off-diagonal `sqrt(q_i e_i)`), whose eigenvalues are the squared
//! singular values. One dqds step with shift `tau` turns the array into
//! that of `B'^T B'` with `B'^T B'` similar to `B^T B - tau I`:
//!
//! ```text
//! d = q_0 - tau
//! for k in 0..n-1:  q'_k = d + e_k;  t = q_{k+1} / q'_k;  e'_k = e_k t;  d = d t - tau
//! q'_{n-1} = d
//! ```
//!
//! Every `d` is a pivot of an `LDL^T` factorization of `B^T B - tau I`, so
//! the step succeeds (every `d >= 0`) exactly when `tau` is at most the
//! smallest eigenvalue; a step that fails is repeated with a smaller shift,
//! and `tau = 0` always succeeds. The shifts add up in `sigma`; once the
//! last `e` is negligible, `q_{n-1} + sigma` is an eigenvalue and the
//! array shrinks by one (or by two, the bottom 2x2 block solved directly).
//!
//! Everything runs in f64 whatever the matrix's type (the squares of f32
//! values cannot overflow there), to the precision the caller asks for:
//! f32's for an f32 matrix, so its iteration stops as soon as f32 can tell.

/// Singular values of the upper bidiagonal matrix with diagonal `d` and
/// superdiagonal `f` (`f.len() + 1 == d.len()`, signs ignored) into `out`
/// (`d.len()` of them), descending, each to about `eps` relative to the
/// largest (the result type's machine epsilon). Returns false if the
/// input is not finite or the iteration did not converge.
pub fn bidiagonal_singular_values(d: &[f64], f: &[f64], eps: f64, out: &mut [f64]) -> bool {
    let n = d.len();
    assert!(f.len() + 1 == n.max(1) && out.len() == n);
    if n == 0 {
        return true;
    }
    if d.iter().chain(f).any(|x| !x.is_finite()) {
        return false;
    }
    let big = d.iter().chain(f).fold(0.0f64, |m, x| m.max(x.abs()));
    if big == 0.0 {
        out.fill(0.0);
        return true;
    }
    // Scale by a power of two so that the largest entry is in [0.5, 1):
    // the squares neither overflow nor, for entries that matter against
    // the largest, underflow; the scaling itself is exact. The exponent
    // stays within +-1000 (2^1030, for denormal entries, is not an f64;
    // 2^1000 takes them to about 1e-9).
    let scale = (-(big.log2().floor() + 1.0)).clamp(-1000.0, 1000.0).exp2();
    let mut q: Vec<f64> = d.iter().map(|x| (x * scale) * (x * scale)).collect();
    let mut e: Vec<f64> = f.iter().map(|x| (x * scale) * (x * scale)).collect();
    e.push(0.0);
    if qd_eigenvalues(&mut q, &mut e, eps, out).is_none() {
        return false;
    }
    for v in out.iter_mut() {
        *v = v.max(0.0).sqrt() / scale;
    }
    out.sort_by(|a, b| b.total_cmp(a));
    true
}

/// What one successful step left to choose the next shift by: the least
/// `d` over the whole array and without its last one or two entries, and
/// the last three `d`s (the new `q` of the last entry is `dn`).
#[derive(Clone, Copy)]
struct Step {
    dmin: f64,
    dmin1: f64,
    dmin2: f64,
    dn: f64,
    dn1: f64,
    dn2: f64,
}

/// Whether a pivot failed: below zero, or NaN (not a number at all).
#[inline(always)]
fn negative_or_nan(x: f64) -> bool {
    x.is_nan() || x < 0.0
}

/// Why a step failed: a `d` before the last one turned negative (or not
/// finite), or only the last one did (by this much: the shift was above
/// the smallest eigenvalue by about that).
enum Failed {
    Early,
    Late(f64),
}

/// One dqds step with shift `tau` of `(q, e)` (one unreduced block, `e`
/// without its trailing entry) into `(nq, ne)`.
fn step(q: &[f64], e: &[f64], tau: f64, nq: &mut [f64], ne: &mut [f64]) -> Result<Step, Failed> {
    let n = q.len();
    let mut d = q[0] - tau;
    let (mut dmin, mut dmin1, mut dmin2) = (d, f64::INFINITY, f64::INFINITY);
    let (mut dn1, mut dn2) = (f64::INFINITY, f64::INFINITY);
    for k in 0..n - 1 {
        if negative_or_nan(d) {
            return Err(Failed::Early);
        }
        let qk = d + e[k];
        nq[k] = qk;
        let t = q[k + 1] / qk;
        ne[k] = e[k] * t;
        dn2 = dn1;
        dn1 = d;
        dmin2 = dmin1;
        dmin1 = dmin;
        d = d * t - tau;
        dmin = dmin.min(d);
    }
    if negative_or_nan(d) {
        return Err(if d.is_finite() {
            Failed::Late(d)
        } else {
            Failed::Early
        });
    }
    nq[n - 1] = d;
    // `dmin1` ran one entry behind `dmin`, `dmin2` two: the minima without
    // the last one and two `d`s.
    Ok(Step {
        dmin,
        dmin1,
        dmin2,
        dn: d,
        dn1,
        dn2,
    })
}

/// The eigenvalues of the 2x2 qd array `(q1, e1, q2)`, larger first:
/// of `[[q1, sqrt(q1 e1)], [sqrt(q1 e1), q2 + e1]]`, with the
/// discriminant written as a sum of non-negative terms and the smaller
/// root from the product (`q1 q2`), so both keep their relative accuracy.
fn two_by_two(q1: f64, e1: f64, q2: f64) -> (f64, f64) {
    let s = q1 + q2 + e1;
    let disc = (q1 - q2 + e1) * (q1 - q2 + e1) + 4.0 * q2 * e1;
    let big = 0.5 * (s + disc.sqrt());
    let small = if big > 0.0 { q1 * q2 / big } else { 0.0 };
    (big, small)
}

/// The next shift for the block ending at `hi`, after `last` and `deflated`
/// entries deflated since: when the smallest pivot was the bottom one (the
/// block is converging there), the first-order estimate of the smallest
/// eigenvalue from the bottom 2x2 block, `c - b^2 / (a - c)`, with the
/// correction doubled (the estimate is usually above the eigenvalue: a
/// step that fails costs as much as one that succeeds; at order 128 the
/// doubling took the steps per value from 4.5 to 3.3 in f32) and held
/// below that pivot (an upper bound of the smallest eigenvalue); else a
/// fraction `g` of the smallest pivot, `g` growing from a quarter towards
/// one while the smallest pivot stays away from the bottom (the smallest
/// eigenvalue moves down faster the closer the shift comes to it).
fn next_shift(
    last: Option<Step>,
    deflated: usize,
    q: &[f64],
    e: &[f64],
    lo: usize,
    hi: usize,
    g: &mut f64,
) -> f64 {
    let Some(s) = last else { return 0.0 };
    let (dmin, dn) = match deflated {
        0 => (s.dmin, s.dn),
        1 => (s.dmin1, s.dn1),
        2 => (s.dmin2, s.dn2),
        _ => return 0.0,
    };
    if negative_or_nan(dmin) || dmin == 0.0 || dmin.is_infinite() {
        return 0.0;
    }
    if dn == dmin && hi - lo >= 2 {
        // The bottom 2x2 block of `B B^T` (the same eigenvalues as
        // `B^T B`): diagonal `q_{n-2} + e_{n-2}` and `q_{n-1}`, coupling
        // `q_{n-1} e_{n-2}` squared. In this form the coupling shrinks with
        // the converging value itself.
        let b = hi - 1;
        let (qa, ea, qb) = (q[b - 1], e[b - 1], q[b]);
        let gap = qa + ea - qb;
        let bb = qb * ea;
        if gap > 0.0 && 4.0 * bb < gap * gap {
            let est = qb - 2.0 * bb / gap;
            if est > 0.0 {
                return est.min(dmin);
            }
        }
        *g = 0.25;
        return 0.5 * dmin;
    }
    let shift = *g * dmin;
    *g += (1.0 - *g) / 3.0;
    shift
}

/// How much work [`qd_eigenvalues`] did: successful steps, and steps
/// repeated with a smaller shift.
#[derive(Debug, Default)]
struct Work {
    steps: usize,
    failed: usize,
}

/// Eigenvalues of the qd array `(q, e)` (`e[n - 1] == 0`, all entries
/// non-negative) into `out`, in no order; `None` if the iteration did not
/// converge. Works on the bottom unreduced block at a time; blocks split
/// off above it wait on a stack with the shift they have taken so far.
fn qd_eigenvalues(q: &mut [f64], e: &mut [f64], eps: f64, out: &mut [f64]) -> Option<Work> {
    let n = q.len();
    // LAPACK's tolerance: 100 epsilons on the singular values, squared on
    // the qd array's entries.
    let tol = 100.0 * eps;
    let tol2 = tol * tol;
    let negligible =
        |q: &[f64], e: &[f64], k: usize, sigma: f64| e[k] <= tol2 * (sigma + q[k + 1].min(q[k]));
    let mut blocks: Vec<(usize, usize, f64)> = Vec::new();
    let mut start = 0;
    for k in 0..n - 1 {
        if negligible(q, e, k, 0.0) {
            e[k] = 0.0;
            blocks.push((start, k + 1, 0.0));
            start = k + 1;
        }
    }
    blocks.push((start, n, 0.0));
    let (mut nq, mut ne) = (vec![0.0; n], vec![0.0; n]);
    let mut work = Work::default();
    let mut budget = 30 * n + 100;
    while let Some((mut lo, mut hi, mut sigma)) = blocks.pop() {
        let mut last: Option<Step> = None;
        let mut deflated = 0;
        let mut g = 0.25;
        loop {
            // Deflate from the bottom: one entry when the last coupling is
            // negligible, two when the one above it is.
            let len = hi - lo;
            if len == 0 {
                break;
            }
            if len == 1 {
                out[lo] = q[lo] + sigma;
                break;
            }
            let b = hi - 1;
            if e[b - 1] <= tol2 * (sigma + q[b]) || e[b - 1] <= tol2 * q[b - 1] {
                out[b] = q[b] + sigma;
                e[b - 1] = 0.0;
                hi -= 1;
                deflated += 1;
                continue;
            }
            if len == 2 || e[b - 2] <= tol2 * (sigma + q[b - 1]) {
                let (big, small) = two_by_two(q[b - 1], e[b - 1], q[b]);
                out[b - 1] = big + sigma;
                out[b] = small + sigma;
                if len > 2 {
                    e[b - 2] = 0.0;
                }
                hi -= 2;
                deflated += 2;
                continue;
            }
            // Split off the part above the lowest negligible coupling.
            if let Some(k) = (lo..b - 1).rev().find(|&k| negligible(q, e, k, sigma)) {
                e[k] = 0.0;
                blocks.push((lo, k + 1, sigma));
                lo = k + 1;
                continue;
            }
            if budget == 0 {
                return None;
            }
            budget -= 1;
            let mut tau = next_shift(last, deflated, q, e, lo, hi, &mut g);
            let mut fails = 0;
            let s = loop {
                let failed = match step(&q[lo..hi], &e[lo..b], tau, &mut nq[lo..hi], &mut ne[lo..b])
                {
                    Ok(s) => break s,
                    Err(_) if tau == 0.0 => return None,
                    Err(f) => f,
                };
                fails += 1;
                work.failed += 1;
                tau = match failed {
                    _ if fails >= 3 => 0.0,
                    // Only the last pivot went below zero: the shift passed
                    // the smallest eigenvalue by about that much.
                    Failed::Late(dn) => ((tau + dn) * (1.0 - 2.0 * f64::EPSILON)).max(0.0),
                    Failed::Early => {
                        g = 0.25;
                        0.25 * tau
                    }
                };
            };
            q[lo..hi].copy_from_slice(&nq[lo..hi]);
            e[lo..b].copy_from_slice(&ne[lo..b]);
            sigma += tau;
            last = Some(s);
            deflated = 0;
            work.steps += 1;
        }
    }
    Some(work)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Singular values of the bidiagonal matrix by a dense one-sided Jacobi
    /// SVD in f64 (slow, simple, accurate): the reference.
    fn reference(d: &[f64], f: &[f64]) -> Vec<f64> {
        let n = d.len();
        let mut a = vec![0.0f64; n * n]; // column-major
        for i in 0..n {
            a[i + i * n] = d[i];
            if i + 1 < n {
                a[i + (i + 1) * n] = f[i];
            }
        }
        for _sweep in 0..60 {
            let mut off = 0.0f64;
            for p in 0..n {
                for r in p + 1..n {
                    let (mut alpha, mut beta, mut gamma) = (0.0, 0.0, 0.0);
                    for i in 0..n {
                        alpha += a[i + p * n] * a[i + p * n];
                        beta += a[i + r * n] * a[i + r * n];
                        gamma += a[i + p * n] * a[i + r * n];
                    }
                    if gamma == 0.0 {
                        continue;
                    }
                    off = off.max(gamma.abs() / (alpha * beta).sqrt());
                    let zeta = (beta - alpha) / (2.0 * gamma);
                    let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                    let t = if zeta == 0.0 { 1.0 } else { t };
                    let c = 1.0 / (1.0 + t * t).sqrt();
                    let s = c * t;
                    for i in 0..n {
                        let (x, y) = (a[i + p * n], a[i + r * n]);
                        a[i + p * n] = c * x - s * y;
                        a[i + r * n] = s * x + c * y;
                    }
                }
            }
            if off < 1e-15 {
                break;
            }
        }
        let mut s: Vec<f64> = (0..n)
            .map(|j| {
                (0..n)
                    .map(|i| a[i + j * n] * a[i + j * n])
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        s.sort_by(|a, b| b.total_cmp(a));
        s
    }

    /// A small xorshift generator: the tests need no crate for random data.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    fn check(d: &[f64], f: &[f64], eps: f64, what: &str) {
        let n = d.len();
        let mut got = vec![0.0; n];
        assert!(
            bidiagonal_singular_values(d, f, eps, &mut got),
            "{what}: no convergence"
        );
        // The reference squares the entries: scale them to about 1 first.
        let big = d.iter().chain(f).fold(0.0f64, |m, x| m.max(x.abs()));
        let s = if big > 0.0 {
            (-big.log2().floor()).clamp(-1000.0, 1000.0).exp2()
        } else {
            1.0
        };
        let scaled = |v: &[f64]| v.iter().map(|x| x * s).collect::<Vec<_>>();
        let want: Vec<f64> = reference(&scaled(d), &scaled(f))
            .iter()
            .map(|x| x / s)
            .collect();
        let top = want[0].max(f64::MIN_POSITIVE);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let err = (g - w).abs() / top;
            assert!(
                err <= 1000.0 * eps,
                "{what}: value {i}: {g} against {w} (error {err:e} of the largest)"
            );
        }
    }

    #[test]
    fn random_bidiagonals_match_a_jacobi_svd() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        for &n in &[1usize, 2, 3, 4, 7, 16, 33, 64] {
            for &eps in &[f64::EPSILON, f32::EPSILON as f64] {
                let d: Vec<f64> = (0..n).map(|_| rng.next()).collect();
                let f: Vec<f64> = (0..n.saturating_sub(1)).map(|_| rng.next()).collect();
                check(&d, &f, eps, &format!("random n={n} eps={eps:e}"));
            }
        }
    }

    /// The shifts make the iteration converge in a few steps per value:
    /// prints the counts (`--nocapture`) and fails if a bidiagonal matrix
    /// like a dense matrix's takes more than 5 steps per value (4.3 at
    /// order 128 in f64, 3.3 in f32, the repeated ones counted), or one
    /// with uniform random entries (exponentially small values) more than
    /// 10 (9.2 at order 512 in f64).
    #[test]
    fn shifts_take_few_steps_per_value() {
        let mut rng = Rng(7);
        for &n in &[32usize, 128, 512] {
            for &(eps, name) in &[(f64::EPSILON, "f64"), (f32::EPSILON as f64, "f32")] {
                for kind in ["uniform", "gaussian"] {
                    // Uniform entries, and entries like the bidiagonal form of a
                    // matrix of Gaussian entries (chi-distributed, shrinking
                    // down the diagonal), which is what a dense matrix gives.
                    let entry = |rng: &mut Rng, i: usize| match kind {
                        "uniform" => rng.next(),
                        _ => ((n - i) as f64).sqrt() * (1.0 + 0.3 * rng.next()),
                    };
                    let d: Vec<f64> = (0..n).map(|i| entry(&mut rng, i)).collect();
                    let f: Vec<f64> = (0..n - 1).map(|i| entry(&mut rng, i + 1)).collect();
                    let mut q: Vec<f64> = d.iter().map(|x| x * x).collect();
                    let mut e: Vec<f64> = f.iter().map(|x| x * x).collect();
                    e.push(0.0);
                    let mut out = vec![0.0; n];
                    let w = qd_eigenvalues(&mut q, &mut e, eps, &mut out).expect("converges");
                    // Every step counts, the repeated ones too.
                    let per = (w.steps + w.failed) as f64 / n as f64;
                    println!(
                        "n={n} {name} {kind}: {} steps and {} repeated, {per:.2} per value",
                        w.steps, w.failed
                    );
                    let most = if kind == "uniform" { 10.0 } else { 5.0 };
                    assert!(per <= most, "n={n} {name} {kind}: {per:.2} steps per value");
                }
            }
        }
    }

    #[test]
    fn hard_cases_match_a_jacobi_svd() {
        let eps = f64::EPSILON;
        let n = 24;
        let mut rng = Rng(42);
        // Graded (entries from 1 down to 1e-20), reversed grading, zeros on
        // the diagonal (singular), zeros off it (splits), equal values
        // (clusters), and huge and tiny scales (the power-of-two scaling).
        let graded: Vec<f64> = (0..n).map(|i| 10f64.powi(-(i as i32))).collect();
        let cases: Vec<(&str, Vec<f64>, Vec<f64>)> = vec![
            ("graded", graded.clone(), graded[1..].to_vec()),
            (
                "reverse graded",
                graded.iter().rev().copied().collect(),
                graded[1..].iter().rev().copied().collect(),
            ),
            (
                "zero diagonal entries",
                (0..n)
                    .map(|i| if i % 5 == 2 { 0.0 } else { rng.next() })
                    .collect(),
                (0..n - 1).map(|_| rng.next()).collect(),
            ),
            (
                "all zero diagonal",
                vec![0.0; n],
                (0..n - 1).map(|_| rng.next()).collect(),
            ),
            (
                "zero superdiagonal entries",
                (0..n).map(|_| rng.next()).collect(),
                (0..n - 1)
                    .map(|i| if i % 4 == 1 { 0.0 } else { rng.next() })
                    .collect(),
            ),
            ("identity", vec![1.0; n], vec![0.0; n - 1]),
            ("ones", vec![1.0; n], vec![1.0; n - 1]),
            (
                "huge",
                (0..n).map(|_| rng.next() * 1e300).collect(),
                (0..n - 1).map(|_| rng.next() * 1e300).collect(),
            ),
            (
                "tiny",
                (0..n).map(|_| rng.next() * 1e-300).collect(),
                (0..n - 1).map(|_| rng.next() * 1e-300).collect(),
            ),
            (
                "denormal",
                (0..n).map(|_| rng.next() * 1e-310).collect(),
                (0..n - 1).map(|_| rng.next() * 1e-310).collect(),
            ),
            (
                "largest",
                (0..n).map(|_| rng.next() * 1e307).collect(),
                (0..n - 1).map(|_| rng.next() * 1e307).collect(),
            ),
            (
                "negative entries",
                (0..n).map(|i| -(i as f64) - 1.0).collect(),
                vec![-0.5; n - 1],
            ),
        ];
        for (what, d, f) in &cases {
            check(d, f, eps, what);
        }
        let mut out = vec![0.0; 3];
        assert!(!bidiagonal_singular_values(
            &[1.0, f64::NAN, 2.0],
            &[1.0, 1.0],
            eps,
            &mut out
        ));
        assert!(!bidiagonal_singular_values(
            &[1.0, f64::INFINITY, 2.0],
            &[1.0, 1.0],
            eps,
            &mut out
        ));
        assert!(bidiagonal_singular_values(
            &[0.0; 3], &[0.0; 2], eps, &mut out
        ));
        assert_eq!(out, [0.0; 3]);
    }
}
