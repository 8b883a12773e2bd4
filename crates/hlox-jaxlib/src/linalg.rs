//! Dense linear algebra on column-major matrices, with LAPACK's conventions
//! (what each routine overwrites, 1-based pivots, `info` codes), so that
//! the handlers in [`crate::lapack`] can hand JAX exactly what its LAPACK
//! kernels would.
//!
//! Every matrix here is column-major: element `(i, j)` of an `m x n` matrix
//! is at `a[i + j * m]`. The algorithms are the classical unblocked ones
//! (LAPACK's `*2` routines for LU, Cholesky and Householder QR; cyclic
//! Jacobi for the symmetric eigenproblem and one-sided Jacobi for the SVD),
//! written for correctness first: they are O(n^3) with contiguous inner
//! loops where the algorithm allows, but not blocked for cache.
//!
//! The handlers run [`crate::blocked`] (faer) instead, except for
//! [`geqp3`], [`gehrd`], [`sytrd`], [`gtsv`], complex Householder QR ([`geqrf`], [`orgqr`]) and
//! the inputs faer's results cannot express in LAPACK's form ([`getrf`] of
//! a matrix with an exactly zero pivot, [`geqrf`] of a rank-deficient one).
//! The rest stays as the reference [`crate::blocked`]'s tests compare with.
//!
//! LU, triangular solves, Householder QR and `gtsv` are generic over
//! [`Field`] and follow LAPACK's complex routines (`zgetf2` pivoting by
//! `|re| + |im|`, `zlarfg`'s real `beta` and complex `tau`, `H^H` applied by
//! `zgeqr2`, `zung2r`), which are the real ones when conjugation is the
//! identity. The Jacobi eigenvalue and SVD references are real only.

use crate::field::{Field, Real};
use num_traits::{Float, One, Zero};

fn two<T: Float>() -> T {
    T::one() + T::one()
}

/// Euclidean norm, scaled so that it neither overflows nor underflows.
fn nrm2<T: Field>(x: &[T]) -> T::Re {
    let zero = T::Re::zero();
    let scale = x
        .iter()
        .fold(zero, |m, v| m.max(v.re().abs()).max(v.im().abs()));
    if scale == zero || !scale.is_finite() {
        return scale;
    }
    let ss = x.iter().fold(zero, |s, &v| {
        let (r, i) = (v.re() / scale, v.im() / scale);
        s + r * r + i * i
    });
    scale * ss.sqrt()
}

/// `x^H y` (BLAS `dotc`; `dot` on the real types).
fn dot<T: Field>(x: &[T], y: &[T]) -> T {
    x.iter()
        .zip(y)
        .fold(T::zero(), |s, (&a, &b)| s + a.conj() * b)
}

/// `y -= t * x`.
fn axpy_sub<T: Field>(y: &mut [T], x: &[T], t: T) {
    for (v, &u) in y.iter_mut().zip(x) {
        *v -= u * t;
    }
}

/// Columns `j` (read) and `c` (written) of a column-major matrix with
/// `ld` rows, `j < c`.
fn col_pair<T>(a: &mut [T], ld: usize, j: usize, c: usize) -> (&[T], &mut [T]) {
    debug_assert!(j < c);
    let (left, right) = a.split_at_mut(c * ld);
    (&left[j * ld..(j + 1) * ld], &mut right[..ld])
}

// ---- LU ------------------------------------------------------------------

/// LU factorization with partial pivoting (LAPACK `getrf`). `a` (`m x n`)
/// is overwritten by `L` (unit diagonal, not stored) and `U`; `ipiv[j]` is
/// the 1-based row that row `j` was swapped with. Returns `info`: 0, or
/// `j + 1` for the first exactly zero pivot `U[j, j]` (the factorization is
/// still completed, as LAPACK does).
pub fn getrf<T: Field>(m: usize, n: usize, a: &mut [T], ipiv: &mut [i32]) -> i32 {
    let mut info = 0;
    for j in 0..m.min(n) {
        let col = j * m;
        // The first entry of largest `|re| + |im|` (LAPACK's i?amax).
        let mut p = j;
        let mut best = a[col + j].abs1();
        for i in j + 1..m {
            let v = a[col + i].abs1();
            if v > best {
                best = v;
                p = i;
            }
        }
        ipiv[j] = (p + 1) as i32;
        if a[col + p] != T::zero() {
            if p != j {
                for c in 0..n {
                    a.swap(c * m + j, c * m + p);
                }
            }
            let piv = a[col + j];
            if piv.modulus() >= T::Re::min_positive_value() {
                let r = T::one() / piv;
                a[col + j + 1..col + m].iter_mut().for_each(|v| *v *= r);
            } else {
                a[col + j + 1..col + m].iter_mut().for_each(|v| *v /= piv);
            }
        } else if info == 0 {
            info = (j + 1) as i32;
        }
        for c in j + 1..n {
            let t = a[c * m + j];
            if t != T::zero() {
                let (lj, cc) = col_pair(a, m, j, c);
                axpy_sub(&mut cc[j + 1..], &lj[j + 1..], t);
            }
        }
    }
    info
}

// ---- Cholesky ------------------------------------------------------------

/// Cholesky factorization (LAPACK `potrf`) of the symmetric `n x n` matrix
/// whose `lower` (or upper) triangle `a` holds; that triangle is
/// overwritten by `L` (or `U`), the other is not touched. Returns `info`:
/// 0, or `j + 1` when the leading minor of order `j + 1` is not positive
/// definite (the factorization stops there).
// `!(d > 0)` on purpose: a NaN pivot is not positive definite either.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub fn potrf<T: Real>(lower: bool, n: usize, a: &mut [T]) -> i32 {
    for j in 0..n {
        let cj = j * n;
        if lower {
            // Left-looking: column j of L from the columns before it.
            for k in 0..j {
                let t = a[k * n + j];
                if t != T::zero() {
                    let (lk, lj) = col_pair(a, n, k, j);
                    axpy_sub(&mut lj[j..], &lk[j..], t);
                }
            }
            let d = a[cj + j];
            if !(d > T::zero()) {
                return (j + 1) as i32;
            }
            let s = d.sqrt();
            a[cj + j] = s;
            let r = T::one() / s;
            a[cj + j + 1..cj + n].iter_mut().for_each(|v| *v *= r);
        } else {
            let d = a[cj + j] - dot(&a[cj..cj + j], &a[cj..cj + j]);
            if !(d > T::zero()) {
                a[cj + j] = d;
                return (j + 1) as i32;
            }
            let s = d.sqrt();
            a[cj + j] = s;
            let r = T::one() / s;
            for c in j + 1..n {
                let (uj, uc) = col_pair(a, n, j, c);
                let v = uc[j] - dot(&uj[..j], &uc[..j]);
                uc[j] = v * r;
            }
        }
    }
    0
}

// ---- Triangular solve ----------------------------------------------------

/// What [`trsm`] solves: LAPACK's `side`, `uplo`, `transa` and `diag`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Triangular {
    /// `op(A) X = B` (else `X op(A) = B`).
    pub left: bool,
    /// `A` is lower triangular (only that triangle is read).
    pub lower: bool,
    /// `op(A) = A^T` (else `A`).
    pub transpose: bool,
    /// With `transpose`, `op(A) = A^H` (LAPACK's `'C'`; the same as `'T'`
    /// on the real types).
    pub conjugate: bool,
    /// `A` has a unit diagonal (not read).
    pub unit: bool,
}

/// Solves `op(A) X = B` or `X op(A) = B` (LAPACK/BLAS `trsm` with
/// `alpha = 1`), overwriting `b` (`m x n`) with `X`. `a` is `k x k`, `k = m`
/// when solving from the left and `n` from the right.
pub fn trsm<T: Field>(p: Triangular, m: usize, n: usize, a: &[T], b: &mut [T]) {
    let k = if p.left { m } else { n };
    // op(A)(i, j)
    let op = |i: usize, j: usize| {
        if !p.transpose {
            a[i + j * k]
        } else if p.conjugate {
            a[j + i * k].conj()
        } else {
            a[j + i * k]
        }
    };
    let op_lower = p.lower != p.transpose;
    let diag = |i: usize, s: T| if p.unit { s } else { s / op(i, i) };
    if p.left {
        // Each column x of X: op(A) x = b.
        for c in 0..n {
            let x = &mut b[c * m..(c + 1) * m];
            if op_lower {
                for i in 0..m {
                    let s = (0..i).fold(x[i], |s, j| s - op(i, j) * x[j]);
                    x[i] = diag(i, s);
                }
            } else {
                for i in (0..m).rev() {
                    let s = (i + 1..m).fold(x[i], |s, j| s - op(i, j) * x[j]);
                    x[i] = diag(i, s);
                }
            }
        }
    } else {
        // Each row x of X: sum_i x_i op(A)(i, j) = b_j.
        for r in 0..m {
            let at = |j: usize| r + j * m;
            if op_lower {
                for j in (0..n).rev() {
                    let s = (j + 1..n).fold(b[at(j)], |s, i| s - b[at(i)] * op(i, j));
                    b[at(j)] = diag(j, s);
                }
            } else {
                for j in 0..n {
                    let s = (0..j).fold(b[at(j)], |s, i| s - b[at(i)] * op(i, j));
                    b[at(j)] = diag(j, s);
                }
            }
        }
    }
}

// ---- Householder QR ------------------------------------------------------

/// Generates an elementary reflector (LAPACK `larfg`, `zlarfg` on the
/// complex types): given `alpha` and `x`, finds a real `beta` and `tau`
/// with `H^H [alpha; x] = [beta; 0]` for `H = I - tau [1; v] [1; v]^H`;
/// `x` is overwritten by `v`, and `(beta, tau)` returned. `tau` is real on
/// the real types and complex (`1 <= re(tau) <= 2`, `|tau - 1| <= 1`)
/// on the complex ones, as LAPACK's.
fn larfg<T: Field>(alpha: T, x: &mut [T]) -> (T, T) {
    let xnorm = nrm2(x);
    let (ar, ai) = (alpha.re(), alpha.im());
    if xnorm == T::Re::zero() && ai == T::Re::zero() {
        return (alpha, T::zero());
    }
    let beta = -ar.hypot(ai).hypot(xnorm).copysign(ar);
    let tau = (T::from_re(beta) - alpha) / T::from_re(beta);
    let r = T::one() / (alpha - T::from_re(beta));
    x.iter_mut().for_each(|v| *v *= r);
    (T::from_re(beta), tau)
}

/// Applies `H = I - tau v v^H` (`v = a[j..m, j]` with an implicit 1 first)
/// from the left to columns `cols` of the `m`-row matrix `a`, rows `j..m`.
fn apply_reflector<T: Field>(
    a: &mut [T],
    m: usize,
    j: usize,
    tau: T,
    cols: std::ops::Range<usize>,
) {
    if tau == T::zero() {
        return;
    }
    for c in cols {
        let (vj, cc) = col_pair(a, m, j, c);
        let w = cc[j] + dot(&vj[j + 1..], &cc[j + 1..]);
        let t = tau * w;
        cc[j] -= t;
        axpy_sub(&mut cc[j + 1..], &vj[j + 1..], t);
    }
}

/// One Householder step on column `j` of `a` (`m x n`): reflector into
/// `a[j.., j]` and `tau[j]`, `H^H` applied to the columns after `j` (as
/// LAPACK's `?geqr2`: `H^H` reduces the column, `tau` conjugated).
fn householder_step<T: Field>(m: usize, n: usize, a: &mut [T], tau: &mut [T], j: usize) {
    let col = j * m;
    let (beta, t) = if j + 1 < m {
        let alpha = a[col + j];
        larfg(alpha, &mut a[col + j + 1..col + m])
    } else {
        // A one-entry column: LAPACK's `larfg` with an empty `x` (a real
        // entry needs no reflection; a complex one is made real).
        larfg(a[col + j], &mut [])
    };
    a[col + j] = beta;
    tau[j] = t;
    let keep = a[col + j];
    a[col + j] = T::one();
    apply_reflector(a, m, j, t.conj(), j + 1..n);
    a[col + j] = keep;
}

/// Householder QR (LAPACK `geqrf`): `a` (`m x n`) is overwritten by `R`
/// (upper triangle) and the reflectors' vectors (below it); `tau` gets the
/// `min(m, n)` scalar factors.
pub fn geqrf<T: Field>(m: usize, n: usize, a: &mut [T], tau: &mut [T]) {
    for j in 0..m.min(n) {
        householder_step(m, n, a, tau, j);
    }
}

/// Householder QR with column pivoting (LAPACK `geqp3`). On entry a
/// nonzero `jpvt[j]` moves column `j` to the front (kept there, in order);
/// on exit `jpvt[j]` is the 1-based original index of column `j` of `A P`.
/// The other columns are chosen greedily by largest remaining norm (the
/// modulus-based 2-norm on the complex types, as `zgeqp3`'s `dznrm2`).
pub fn geqp3<T: Field>(m: usize, n: usize, a: &mut [T], jpvt: &mut [i32], tau: &mut [T]) {
    let swap_cols = |a: &mut [T], x: usize, y: usize| {
        if x != y {
            for i in 0..m {
                a.swap(x * m + i, y * m + i);
            }
        }
    };
    let mut perm: Vec<i32> = (1..=n as i32).collect();
    let mut fixed = 0;
    for (j, &fix) in jpvt.iter().enumerate() {
        if fix != 0 {
            swap_cols(a, j, fixed);
            perm.swap(j, fixed);
            fixed += 1;
        }
    }
    for j in 0..m.min(n) {
        if j >= fixed {
            let norm = |c: usize| nrm2(&a[c * m + j..c * m + m]);
            let mut p = j;
            let mut best = norm(j);
            for c in j + 1..n {
                let v = norm(c);
                if v > best {
                    best = v;
                    p = c;
                }
            }
            swap_cols(a, j, p);
            perm.swap(j, p);
        }
        householder_step(m, n, a, tau, j);
    }
    jpvt.copy_from_slice(&perm);
}

/// The first `n` columns of `Q = H(0) H(1) ... H(k-1)` (LAPACK `orgqr`):
/// on entry column `j < k` of `a` (`m x n`, `n <= m`) holds reflector `j`
/// below its diagonal, as [`geqrf`] leaves it; on exit `a` is `Q`.
pub fn orgqr<T: Field>(m: usize, n: usize, k: usize, a: &mut [T], tau: &[T]) {
    for j in k..n {
        let c = &mut a[j * m..(j + 1) * m];
        c.iter_mut().for_each(|v| *v = T::zero());
        if j < m {
            c[j] = T::one();
        }
    }
    for i in (0..k.min(n)).rev() {
        let col = i * m;
        if i + 1 < n {
            a[col + i] = T::one();
            apply_reflector(a, m, i, tau[i], i + 1..n);
        }
        let t = tau[i];
        a[col + i + 1..col + m]
            .iter_mut()
            .for_each(|v| *v = -t * *v);
        a[col + i] = T::one() - t;
        a[col..col + i].iter_mut().for_each(|v| *v = T::zero());
    }
}

// ---- Hessenberg and tridiagonal reductions -------------------------------

/// Reduction of the `n x n` matrix `a` to upper Hessenberg form `Q^H A Q`
/// by Householder reflectors (LAPACK `gehd2`, `zgehd2` on the complex
/// types). Only rows and columns `ilo..=ihi` (1-based, as LAPACK's) are
/// reduced, as after a balancing; `a` is overwritten by the Hessenberg
/// matrix (on and above the first subdiagonal) and reflector `i`'s vector
/// below it in column `i`; `tau` (`n - 1` entries) gets the factors, zero
/// outside `ilo..ihi`.
pub fn gehrd<T: Field>(n: usize, ilo: usize, ihi: usize, a: &mut [T], tau: &mut [T]) {
    tau.iter_mut().for_each(|t| *t = T::zero());
    let (ilo, ihi) = (ilo.max(1), ihi.min(n));
    for i in ilo - 1..ihi.saturating_sub(1) {
        // Reflector H(i) annihilating a[i + 2..ihi, i].
        let col = i * n;
        let (beta, t) = larfg(a[col + i + 1], &mut a[col + i + 2..col + ihi]);
        a[col + i + 1] = T::one();
        let v: Vec<T> = a[col + i + 1..col + ihi].to_vec();
        // From the right to a[0..ihi, i + 1..ihi]: A := A (I - t v v^H).
        if t != T::zero() {
            for r in 0..ihi {
                let s = v
                    .iter()
                    .enumerate()
                    .fold(T::zero(), |s, (k, &vk)| s + a[r + (i + 1 + k) * n] * vk);
                let ts = t * s;
                for (k, &vk) in v.iter().enumerate() {
                    a[r + (i + 1 + k) * n] -= ts * vk.conj();
                }
            }
            // From the left to a[i + 1..ihi, i + 1..n]: A := (I - t v v^H)^H A.
            let tc = t.conj();
            for c in i + 1..n {
                let cc = &mut a[c * n + i + 1..c * n + ihi];
                let w = dot(&v, cc);
                axpy_sub(cc, &v, tc * w);
            }
        }
        a[col + i + 1] = beta;
        tau[i] = t;
    }
}

/// Reduction of the Hermitian (symmetric) `n x n` matrix `a`, given by its
/// `lower` or upper triangle, to real tridiagonal form `Q^H A Q` (LAPACK
/// `sytd2`/`hetd2`): the diagonal into `d` (`n`), the off-diagonal into `e`
/// (`n - 1`, real), the reflectors' factors into `tau` (`n - 1`), and their
/// vectors into the triangle of `a` below (lower) or above (upper) the
/// off-diagonal, which `a` holds (as real numbers) with the diagonal. With
/// `lower`, reflector `i` annihilates `a[i + 2.., i]`; otherwise reflector
/// `i` annihilates `a[..i, i + 1]`, from the last column back.
pub fn sytrd<T: Field>(
    lower: bool,
    n: usize,
    a: &mut [T],
    d: &mut [T::Re],
    e: &mut [T::Re],
    tau: &mut [T],
) {
    if n == 0 {
        return;
    }
    let real = |x: T| T::from_re(x.re());
    // The trailing (lower) or leading (upper) block `lo..hi` of the matrix,
    // Hermitian from the stored triangle, updated by the reflector `v`
    // with factor `t` (BLAS `hemv`, `dotc`, `axpy`, `her2`, as LAPACK):
    // A := H^H A H for H = I - t v v^H; the stored triangle is written back,
    // the diagonal real.
    let update = |a: &mut [T], lo: usize, hi: usize, v: &[T], t: T| {
        let k = hi - lo;
        let at = |a: &[T], r: usize, c: usize| -> T {
            let (r, c) = (lo + r, lo + c);
            if r == c {
                real(a[r + c * n])
            } else if (r > c) == lower {
                a[r + c * n]
            } else {
                a[c + r * n].conj()
            }
        };
        let mut x = vec![T::zero(); k];
        for (r, xr) in x.iter_mut().enumerate() {
            let s = (0..k).fold(T::zero(), |s, c| s + at(a, r, c) * v[c]);
            *xr = t * s;
        }
        let half = T::from_re(T::Re::one() / two::<T::Re>());
        let alpha = -(half * t * dot(&x, v));
        for (xr, &vr) in x.iter_mut().zip(v) {
            *xr += alpha * vr;
        }
        for c in 0..k {
            for r in 0..k {
                if r != c && (r > c) != lower {
                    continue;
                }
                let p = lo + r + (lo + c) * n;
                let upd = v[r] * x[c].conj() + x[r] * v[c].conj();
                a[p] -= upd;
                if r == c {
                    a[p] = real(a[p]);
                }
            }
        }
    };
    if lower {
        a[0] = real(a[0]);
        for i in 0..n - 1 {
            let col = i * n;
            let (beta, t) = larfg(a[col + i + 1], &mut a[col + i + 2..col + n]);
            e[i] = beta.re();
            if t != T::zero() {
                let mut v = vec![T::one()];
                v.extend_from_slice(&a[col + i + 2..col + n]);
                update(a, i + 1, n, &v, t);
            } else {
                let p = (i + 1) * (n + 1);
                a[p] = real(a[p]);
            }
            a[col + i + 1] = T::from_re(e[i]);
            d[i] = a[i * (n + 1)].re();
            tau[i] = t;
        }
        d[n - 1] = a[(n - 1) * (n + 1)].re();
    } else {
        a[(n - 1) * (n + 1)] = real(a[(n - 1) * (n + 1)]);
        for i in (0..n - 1).rev() {
            let col = (i + 1) * n;
            let (beta, t) = larfg(a[col + i], &mut a[col..col + i]);
            e[i] = beta.re();
            if t != T::zero() {
                let mut v = a[col..col + i].to_vec();
                v.push(T::one());
                update(a, 0, i + 1, &v, t);
            } else {
                let p = i * (n + 1);
                a[p] = real(a[p]);
            }
            a[col + i] = T::from_re(e[i]);
            d[i + 1] = a[(i + 1) * (n + 1)].re();
            tau[i] = t;
        }
        d[0] = a[0].re();
    }
}

// ---- Schur decomposition ------------------------------------------------

/// Schur decomposition `A = Z T Z^H` of the `n x n` matrix `a` (LAPACK
/// `gees` without eigenvalue sorting): `a` is overwritten by `T`, upper
/// triangular on the complex types and, on the real ones, upper
/// quasi-triangular with LAPACK's standardized 2 x 2 blocks (equal
/// diagonal entries and off-diagonal entries of opposite signs, one per
/// complex conjugate pair of eigenvalues, as `dlanv2` leaves them); `z`
/// (`n x n`) gets the unitary `Z` when `vectors`. The matrix is reduced to
/// Hessenberg form ([`gehrd`]) and iterated with implicit shifted QR steps
/// chasing a bulge with Householder reflectors: a single Wilkinson shift
/// on the complex types, a Francis double shift on the real ones, and an
/// exceptional shift after 10 steps without deflation. Returns `info`: 0,
/// or (as LAPACK) `i + 1` when eigenvalue `i` and those before it did not
/// converge in `30 n` steps (`T` and `Z` are then incomplete).
pub fn gees<T: Field>(vectors: bool, n: usize, a: &mut [T], z: &mut [T]) -> i32 {
    if n == 0 {
        return 0;
    }
    let mut tau = vec![T::zero(); n - 1];
    gehrd(n, 1, n, a, &mut tau);
    // Z = H(0) H(1) ... H(n-2), the reflectors' product, then T = H.
    let mut zz = vec![T::zero(); n * n];
    (0..n).for_each(|i| zz[i + i * n] = T::one());
    for i in 0..n.saturating_sub(1) {
        let mut v = vec![T::zero(); n];
        v[i + 1] = T::one();
        v[i + 2..].copy_from_slice(&a[i * n + i + 2..(i + 1) * n]);
        reflect_right(&mut zz, n, 0..n, i + 1, &v[i + 1..], tau[i]);
        a[i * n + i + 2..(i + 1) * n]
            .iter_mut()
            .for_each(|x| *x = T::zero());
    }
    let info = schur_iterate(n, a, &mut zz);
    if vectors {
        z.copy_from_slice(&zz);
    } else {
        z.iter_mut().for_each(|x| *x = T::zero());
    }
    info
}

/// `c[rows, col0..col0 + v.len()] := c[rows, ..] (I - tau v v^H)` for the
/// column-major matrix `c` with `ld` rows.
fn reflect_right<T: Field>(
    c: &mut [T],
    ld: usize,
    rows: std::ops::Range<usize>,
    col0: usize,
    v: &[T],
    tau: T,
) {
    if tau == T::zero() {
        return;
    }
    for r in rows {
        let s = v
            .iter()
            .enumerate()
            .fold(T::zero(), |s, (k, &vk)| s + c[r + (col0 + k) * ld] * vk);
        let ts = tau * s;
        for (k, &vk) in v.iter().enumerate() {
            c[r + (col0 + k) * ld] -= ts * vk.conj();
        }
    }
}

/// `c[row0..row0 + v.len(), cols] := (I - tau v v^H)^H c[.., cols]`.
fn reflect_left<T: Field>(
    c: &mut [T],
    ld: usize,
    row0: usize,
    cols: std::ops::Range<usize>,
    v: &[T],
    tau: T,
) {
    if tau == T::zero() {
        return;
    }
    let tc = tau.conj();
    for col in cols {
        let cc = &mut c[col * ld + row0..col * ld + row0 + v.len()];
        let w = dot(v, cc);
        axpy_sub(cc, v, tc * w);
    }
}

/// The QR iteration of [`gees`] on the Hessenberg matrix `h`, accumulating
/// the transformations into `z`.
fn schur_iterate<T: Field>(n: usize, h: &mut [T], z: &mut [T]) -> i32 {
    let eps = <T::Re as num_traits::Float>::epsilon();
    let zero = T::Re::zero();
    let at = |h: &[T], i: usize, j: usize| h[i + j * n];
    let mut hi = n - 1;
    let mut its = 0usize;
    let mut total = 0usize;
    loop {
        if hi == 0 {
            return 0;
        }
        // The last negligible subdiagonal entry at or above `hi` starts the
        // active block `l..=hi`.
        let mut l = 0;
        for k in (1..=hi).rev() {
            let sub = at(h, k, k - 1).abs1();
            let mut tst = at(h, k - 1, k - 1).abs1() + at(h, k, k).abs1();
            if tst == zero {
                tst = (0..n).fold(zero, |m, i| m.max(at(h, i, i).abs1()));
            }
            if sub <= eps * tst {
                h[k + (k - 1) * n] = T::zero();
                l = k;
                break;
            }
        }
        if l == hi {
            hi -= 1;
            its = 0;
            continue;
        }
        if !T::COMPLEX && l + 1 == hi {
            standardize_block(n, h, z, hi - 1);
            if hi < 2 {
                return 0;
            }
            hi -= 2;
            its = 0;
            continue;
        }
        if total >= 30 * n {
            return hi as i32 + 1;
        }
        its += 1;
        total += 1;
        let exceptional = its.is_multiple_of(10);
        let first: Vec<T> = if T::COMPLEX {
            let mu = if exceptional {
                at(h, hi, hi) + T::from_re(at(h, hi, hi - 1).abs1() * (T::Re::one() + T::Re::one()))
            } else {
                wilkinson(
                    at(h, hi - 1, hi - 1),
                    at(h, hi - 1, hi),
                    at(h, hi, hi - 1),
                    at(h, hi, hi),
                )
            };
            vec![at(h, l, l) - mu, at(h, l + 1, l)]
        } else {
            // The double shift's sum and product: the trailing 2 x 2
            // block's trace and determinant (or EISPACK's exceptional ones).
            let (s, t) = if exceptional {
                let w = at(h, hi, hi - 1).abs1() + at(h, hi - 1, hi - 2).abs1();
                let w = T::from_re(w);
                (
                    T::from_re(T::Re::one() + T::Re::one() / two::<T::Re>()) * w,
                    w * w,
                )
            } else {
                (
                    at(h, hi - 1, hi - 1) + at(h, hi, hi),
                    at(h, hi - 1, hi - 1) * at(h, hi, hi) - at(h, hi - 1, hi) * at(h, hi, hi - 1),
                )
            };
            let (h00, h01, h10, h11) = (
                at(h, l, l),
                at(h, l, l + 1),
                at(h, l + 1, l),
                at(h, l + 1, l + 1),
            );
            vec![
                h00 * h00 + h01 * h10 - s * h00 + t,
                h10 * (h00 + h11 - s),
                h10 * at(h, l + 2, l + 1),
            ]
        };
        chase(n, h, z, l, hi, first);
    }
}

/// Standardizes the real 2 x 2 diagonal block at `k` of `h` as LAPACK's
/// `dlanv2`: a block with real eigenvalues becomes upper triangular, one
/// with a complex pair gets equal diagonal entries and off-diagonal entries
/// of opposite signs; the rotation is applied to the rest of `h` and to `z`.
fn standardize_block<T: Field>(n: usize, h: &mut [T], z: &mut [T], k: usize) {
    let at = |h: &[T], i: usize, j: usize| h[i + j * n].re();
    let (mut a, mut b, mut c, mut d) = (
        at(h, k, k),
        at(h, k, k + 1),
        at(h, k + 1, k),
        at(h, k + 1, k + 1),
    );
    let zero = T::Re::zero();
    let one = T::Re::one();
    let half = one / two::<T::Re>();
    let eps = <T::Re as num_traits::Float>::epsilon();
    let sign = |x: T::Re, y: T::Re| x.abs().copysign(y);
    let (mut cs, mut sn);
    if c == zero {
        (cs, sn) = (one, zero);
    } else if b == zero {
        (cs, sn) = (zero, one);
        std::mem::swap(&mut a, &mut d);
        b = -c;
        c = zero;
    } else if a - d == zero && sign(one, b) != sign(one, c) {
        (cs, sn) = (one, zero);
    } else {
        let temp = a - d;
        let mut p = half * temp;
        let bcmax = b.abs().max(c.abs());
        let bcmis = b.abs().min(c.abs()) * sign(one, b) * sign(one, c);
        let scale = p.abs().max(bcmax);
        let mut zz = (p / scale) * p + (bcmax / scale) * bcmis;
        if zz >= (two::<T::Re>() + two::<T::Re>()) * eps {
            // Real eigenvalues.
            zz = p + sign(scale.sqrt() * zz.sqrt(), p);
            a = d + zz;
            d -= (bcmax / zz) * bcmis;
            let tau = c.hypot(zz);
            cs = zz / tau;
            sn = c / tau;
            b -= c;
            c = zero;
        } else {
            // A complex pair, or nearly equal real eigenvalues: make the
            // diagonal entries equal.
            let sigma = b + c;
            let tau = sigma.hypot(temp);
            cs = (half * (one + sigma.abs() / tau)).sqrt();
            sn = -(p / (tau * cs)) * sign(one, sigma);
            let (aa, bb) = (a * cs + b * sn, -a * sn + b * cs);
            let (cc, dd) = (c * cs + d * sn, -c * sn + d * cs);
            a = aa * cs + cc * sn;
            b = bb * cs + dd * sn;
            c = -aa * sn + cc * cs;
            d = -bb * sn + dd * cs;
            let temp = half * (a + d);
            a = temp;
            d = temp;
            if c != zero {
                if b != zero {
                    if sign(one, b) == sign(one, c) {
                        // Real eigenvalues after all: upper triangular.
                        let sab = b.abs().sqrt();
                        let sac = c.abs().sqrt();
                        p = sign(sab * sac, c);
                        let tau = one / (b + c).abs().sqrt();
                        a = temp + p;
                        d = temp - p;
                        b -= c;
                        c = zero;
                        let (cs1, sn1) = (sab * tau, sac * tau);
                        let t = cs * cs1 - sn * sn1;
                        sn = cs * sn1 + sn * cs1;
                        cs = t;
                    }
                } else {
                    b = -c;
                    c = zero;
                    let t = cs;
                    cs = -sn;
                    sn = t;
                }
            }
        }
    }
    h[k + k * n] = T::from_re(a);
    h[k + (k + 1) * n] = T::from_re(b);
    h[k + 1 + k * n] = T::from_re(c);
    h[k + 1 + (k + 1) * n] = T::from_re(d);
    let (cs, sn) = (T::from_re(cs), T::from_re(sn));
    // Rows k, k + 1 right of the block, columns k, k + 1 above it, and Z.
    for j in k + 2..n {
        let (x, y) = (h[k + j * n], h[k + 1 + j * n]);
        h[k + j * n] = cs * x + sn * y;
        h[k + 1 + j * n] = cs * y - sn * x;
    }
    for (m, ld, rows) in [(&mut *h, n, k), (&mut *z, n, n)] {
        for i in 0..rows {
            let (x, y) = (m[i + k * ld], m[i + (k + 1) * ld]);
            m[i + k * ld] = cs * x + sn * y;
            m[i + (k + 1) * ld] = cs * y - sn * x;
        }
    }
}

/// One implicit QR step on the active block `l..=hi` of `h` (and `z`):
/// the reflector of `first` (the shifted first column) creates a bulge,
/// and reflectors of the same size chase it off the bottom.
fn chase<T: Field>(n: usize, h: &mut [T], z: &mut [T], l: usize, hi: usize, first: Vec<T>) {
    let r = first.len();
    for k in l..hi {
        let rr = r.min(hi - k + 1);
        let mut x: Vec<T> = if k == l {
            first[..rr].to_vec()
        } else {
            (0..rr).map(|i| h[k + i + (k - 1) * n]).collect()
        };
        let (beta, tau) = {
            let (head, tail) = x.split_at_mut(1);
            larfg(head[0], tail)
        };
        x[0] = T::one();
        let q = if k > l { k - 1 } else { l };
        reflect_left(h, n, k, q..n, &x, tau);
        if k > l {
            h[k + (k - 1) * n] = beta;
            (1..rr).for_each(|i| h[k + i + (k - 1) * n] = T::zero());
        }
        let last = (k + rr).min(hi);
        reflect_right(h, n, 0..last + 1, k, &x, tau);
        reflect_right(z, n, 0..n, k, &x, tau);
    }
}

/// The eigenvalue of `[[a, b], [c, d]]` closer to `d` (Wilkinson's shift).
fn wilkinson<T: Field>(a: T, b: T, c: T, d: T) -> T {
    let half = T::from_re(T::Re::one() / two::<T::Re>());
    let p = (a - d) * half;
    let disc = sqrt_c(p * p + b * c);
    let (l1, l2) = (d + p + disc, d + p - disc);
    if (l1 - d).modulus() <= (l2 - d).modulus() {
        l1
    } else {
        l2
    }
}

/// The principal square root of a complex (or non-negative real) value.
fn sqrt_c<T: Field>(x: T) -> T {
    let (re, im) = (x.re(), x.im());
    let m = re.hypot(im);
    let half = T::Re::one() / two::<T::Re>();
    let r = ((m + re) * half).max(T::Re::zero()).sqrt();
    let i = ((m - re) * half).max(T::Re::zero()).sqrt().copysign(im);
    T::from_parts(r, i)
}

// ---- Symmetric eigenproblem ----------------------------------------------

/// Jacobi sweeps allowed before giving up (`info > 0`); convergence is
/// quadratic, so real inputs need well under 20.
const MAX_SWEEPS: usize = 100;

/// A plane rotation `(c, s)` that annihilates the off-diagonal entry of
/// the symmetric 2x2 `[[app, apq], [apq, aqq]]` (Golub and Van Loan's
/// `sym.schur2`).
fn jacobi_rotation<T: Real>(app: T, apq: T, aqq: T) -> (T, T) {
    let tau = (aqq - app) / (two::<T>() * apq);
    let t = if tau >= T::zero() {
        T::one() / (tau + T::one().hypot(tau))
    } else {
        -T::one() / (-tau + T::one().hypot(tau))
    };
    let c = T::one() / T::one().hypot(t);
    (c, t * c)
}

/// Rotates columns `p` and `q` of the column-major matrix `a` (`rows`
/// rows): `col_p <- c col_p - s col_q`, `col_q <- s col_p + c col_q`.
fn rotate_cols<T: Real>(a: &mut [T], rows: usize, p: usize, q: usize, c: T, s: T) {
    let (cp, cq) = {
        let (l, r) = a.split_at_mut(q * rows);
        (&mut l[p * rows..(p + 1) * rows], &mut r[..rows])
    };
    for (x, y) in cp.iter_mut().zip(cq.iter_mut()) {
        let (u, v) = (*x, *y);
        *x = c * u - s * v;
        *y = s * u + c * v;
    }
}

/// The `n x n` identity, column-major.
fn identity<T: Real>(n: usize) -> Vec<T> {
    let mut v = vec![T::zero(); n * n];
    (0..n).for_each(|i| v[i + i * n] = T::one());
    v
}

/// Cyclic Jacobi sweeps over the index pairs `p < q` of `0..n`, until a
/// sweep rotates nothing (`true`) or [`MAX_SWEEPS`] run out (`false`).
/// `pair` gives the symmetric 2x2 `(app, apq, aqq)` of a pair; one whose
/// `apq` is negligible next to the diagonal is skipped, the others are
/// annihilated by `rotate(state, p, q, c, s)`.
fn cyclic_jacobi<T: Real, S>(
    n: usize,
    state: &mut S,
    pair: impl Fn(&S, usize, usize) -> (T, T, T),
    rotate: impl Fn(&mut S, usize, usize, T, T),
) -> bool {
    if n < 2 {
        return true;
    }
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let (app, apq, aqq) = pair(state, p, q);
                if apq.abs() <= T::epsilon() * (app.abs() * aqq.abs()).sqrt()
                    || apq.abs() < T::min_positive_value()
                {
                    continue;
                }
                rotated = true;
                let (c, s) = jacobi_rotation(app, apq, aqq);
                rotate(state, p, q, c, s);
            }
        }
        if !rotated {
            return true;
        }
    }
    false
}

/// Eigenvalues (ascending, into `w`) and, with `vectors`, orthonormal
/// eigenvectors (column `j` of `a` for `w[j]`) of the symmetric `n x n`
/// matrix whose `lower` (or upper) triangle `a` holds (LAPACK `syevd`;
/// computed by cyclic Jacobi, which is accurate to high relative
/// precision). Without `vectors`, `a` is left as scratch. Returns `info`:
/// 0, or 1 if the iteration did not converge.
pub fn syevd<T: Real>(lower: bool, vectors: bool, n: usize, a: &mut [T], w: &mut [T]) -> i32 {
    let mut s = vec![T::zero(); n * n];
    for j in 0..n {
        for i in 0..n {
            let (r, c) = if (i >= j) == lower { (i, j) } else { (j, i) };
            s[i + j * n] = a[r + c * n];
        }
    }
    // (S, V): S rotated to diagonal, V accumulating the rotations (empty,
    // and not accumulated, when only the values are asked for).
    let mut sv = (
        s,
        if vectors {
            identity::<T>(n)
        } else {
            Vec::new()
        },
    );
    let converged = cyclic_jacobi(
        n,
        &mut sv,
        |(s, _), p, q| (s[p + p * n], s[p + q * n], s[q + q * n]),
        |(s, v), p, q, c, sn| {
            rotate_cols(s, n, p, q, c, sn);
            // The same rotation of rows p and q.
            for k in 0..n {
                let (u, x) = (s[p + k * n], s[q + k * n]);
                s[p + k * n] = c * u - sn * x;
                s[q + k * n] = sn * u + c * x;
            }
            s[p + q * n] = T::zero();
            s[q + p * n] = T::zero();
            if !v.is_empty() {
                rotate_cols(v, n, p, q, c, sn);
            }
        },
    );
    let (s, v) = sv;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| {
        s[x + x * n]
            .partial_cmp(&s[y + y * n])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    for (j, &o) in order.iter().enumerate() {
        w[j] = s[o + o * n];
        if vectors {
            a[j * n..(j + 1) * n].copy_from_slice(&v[o * n..(o + 1) * n]);
        }
    }
    if converged {
        0
    } else {
        1
    }
}

// ---- Singular value decomposition ---------------------------------------

/// Which singular vectors [`gesvd`] computes (LAPACK's `jobz`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SvdJob {
    /// Singular values only (`N`).
    None,
    /// `U` is `m x k`, `V^T` is `k x n`, `k = min(m, n)` (`S`).
    Thin,
    /// `U` is `m x m`, `V^T` is `n x n` (`A`).
    Full,
}

/// Fills the columns of `q` (`rows x cols`, column-major) that `valid`
/// marks false so that all columns are orthonormal, given that the valid
/// ones are: Gram-Schmidt (twice) of unit vectors against the columns so
/// far.
fn complete_basis<T: Real>(q: &mut [T], rows: usize, cols: usize, valid: &mut [bool]) {
    let mut next = 0;
    for j in 0..cols {
        if valid[j] {
            continue;
        }
        while next < rows {
            let mut x = vec![T::zero(); rows];
            x[next] = T::one();
            next += 1;
            for _ in 0..2 {
                for c in 0..cols {
                    if valid[c] {
                        let qc = &q[c * rows..(c + 1) * rows];
                        let t = dot(qc, &x);
                        axpy_sub(&mut x, qc, t);
                    }
                }
            }
            let nx = nrm2(&x);
            if nx > T::from(0.25).unwrap_or_else(T::one) {
                x.iter_mut().for_each(|v| *v /= nx);
                q[j * rows..(j + 1) * rows].copy_from_slice(&x);
                valid[j] = true;
                break;
            }
        }
    }
}

/// One-sided Jacobi SVD of a tall `m x n` matrix (`m >= n`), column-major:
/// `(s, u, v, converged)` with `s` descending, `u` `m x ucols` (`ucols` is
/// `n`, or `m` for a full basis) and `v` `n x n`; `u` and `v` are empty
/// (and the rotations not accumulated) without `vectors`.
fn jacobi_svd_tall<T: Real>(
    m: usize,
    n: usize,
    a: &[T],
    full: bool,
    vectors: bool,
) -> (Vec<T>, Vec<T>, Vec<T>, bool) {
    // (W, V): W's columns rotated to orthogonality, V accumulating the
    // rotations. A pair's 2x2 is the Gram matrix of the two columns.
    let v0 = if vectors {
        identity::<T>(n)
    } else {
        Vec::new()
    };
    let mut wv = (a[..m * n].to_vec(), v0);
    let converged = cyclic_jacobi(
        n,
        &mut wv,
        |(w, _), p, q| {
            let (wp, wq) = (&w[p * m..(p + 1) * m], &w[q * m..(q + 1) * m]);
            (dot(wp, wp), dot(wp, wq), dot(wq, wq))
        },
        |(w, v), p, q, c, s| {
            rotate_cols(w, m, p, q, c, s);
            if !v.is_empty() {
                rotate_cols(v, n, p, q, c, s);
            }
        },
    );
    let (w, v) = wv;
    let norms: Vec<T> = (0..n).map(|j| nrm2(&w[j * m..(j + 1) * m])).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| {
        norms[y]
            .partial_cmp(&norms[x])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    if !vectors {
        let s = order.iter().map(|&o| norms[o]).collect();
        return (s, Vec::new(), Vec::new(), converged);
    }
    let smax = order.first().map_or(T::zero(), |&o| norms[o]);
    let tiny = smax * T::epsilon() * T::from(m.max(1)).unwrap_or_else(T::one);
    let ucols = if full { m } else { n };
    let mut u = vec![T::zero(); m * ucols];
    let mut valid = vec![false; ucols];
    let mut vs = vec![T::zero(); n * n];
    let mut s = vec![T::zero(); n];
    for (j, &o) in order.iter().enumerate() {
        s[j] = norms[o];
        vs[j * n..(j + 1) * n].copy_from_slice(&v[o * n..(o + 1) * n]);
        if norms[o] > tiny && norms[o] > T::zero() {
            let r = T::one() / norms[o];
            for i in 0..m {
                u[i + j * m] = w[i + o * m] * r;
            }
            valid[j] = true;
        }
    }
    complete_basis(&mut u, m, ucols, &mut valid);
    (s, u, vs, converged)
}

/// Singular value decomposition `A = U diag(s) V^T` (LAPACK `gesdd` and
/// `gesvd`) of `a` (`m x n`, not modified), by one-sided Jacobi: `s` gets
/// the `min(m, n)` singular values, descending; `u` and `vt` the vectors
/// as `job` asks (column-major; untouched for [`SvdJob::None`]). Returns
/// `info`: 0, or 1 if the iteration did not converge.
pub fn gesvd<T: Real>(
    job: SvdJob,
    m: usize,
    n: usize,
    a: &[T],
    s: &mut [T],
    u: &mut [T],
    vt: &mut [T],
) -> i32 {
    let full = job == SvdJob::Full;
    let k = m.min(n);
    let converged = if m >= n {
        let (sv, uu, v, ok) = jacobi_svd_tall(m, n, a, full, job != SvdJob::None);
        s[..k].copy_from_slice(&sv);
        if job != SvdJob::None {
            u[..uu.len()].copy_from_slice(&uu);
            // vt (n x n) = V^T
            for i in 0..n {
                for j in 0..n {
                    vt[i + j * n] = v[j + i * n];
                }
            }
        }
        ok
    } else {
        // A^T = U' S V'^T, so A = V' S U'^T: U = V' (m x m), V^T = U'^T.
        let mut at = vec![T::zero(); m * n];
        for i in 0..m {
            for j in 0..n {
                at[j + i * n] = a[i + j * m];
            }
        }
        let (sv, up, vp, ok) = jacobi_svd_tall(n, m, &at, full, job != SvdJob::None);
        s[..k].copy_from_slice(&sv);
        if job != SvdJob::None {
            u[..m * m].copy_from_slice(&vp);
            let rows = if full { n } else { m }; // rows of V^T
            for i in 0..rows {
                for j in 0..n {
                    vt[i + j * rows] = up[j + i * n];
                }
            }
        }
        ok
    };
    if converged {
        0
    } else {
        1
    }
}

// ---- Tridiagonal solve ---------------------------------------------------

/// Solves the tridiagonal system `T X = B` by Gaussian elimination with
/// partial pivoting (LAPACK `gtsv`): `dl` (`n - 1` sub-diagonal entries,
/// `dl[i] = T[i + 1, i]`), `d` (`n`), `du` (`n - 1`, `du[i] = T[i, i + 1]`),
/// `b` (`n x nrhs`, overwritten by `X`). `dl`, `d` and `du` are overwritten
/// by the factorization. Returns `info`: 0, or `i + 1` when `U[i, i]` is
/// exactly zero (no solution is computed).
pub fn gtsv<T: Field>(
    n: usize,
    nrhs: usize,
    dl: &mut [T],
    d: &mut [T],
    du: &mut [T],
    b: &mut [T],
) -> i32 {
    if n == 0 {
        return 0;
    }
    // Fill-in of the second super-diagonal from row interchanges.
    let mut du2 = vec![T::zero(); n.saturating_sub(2)];
    for i in 0..n - 1 {
        let sub = dl[i];
        if d[i].abs1() >= sub.abs1() {
            if d[i] == T::zero() {
                return (i + 1) as i32;
            }
            let f = sub / d[i];
            d[i + 1] -= f * du[i];
            for c in 0..nrhs {
                b[i + 1 + c * n] -= f * b[i + c * n];
            }
            dl[i] = T::zero();
        } else {
            // Swap rows i and i + 1.
            let f = d[i] / sub;
            d[i] = sub;
            let t = d[i + 1];
            d[i + 1] = du[i] - f * t;
            if i + 2 < n {
                du2[i] = du[i + 1];
                du[i + 1] = -f * du2[i];
            }
            du[i] = t;
            for c in 0..nrhs {
                let (x, y) = (b[i + c * n], b[i + 1 + c * n]);
                b[i + c * n] = y;
                b[i + 1 + c * n] = x - f * y;
            }
            dl[i] = f;
        }
    }
    if d[n - 1] == T::zero() {
        return n as i32;
    }
    for c in 0..nrhs {
        let x = &mut b[c * n..(c + 1) * n];
        x[n - 1] /= d[n - 1];
        if n > 1 {
            x[n - 2] = (x[n - 2] - du[n - 2] * x[n - 1]) / d[n - 2];
        }
        for i in (0..n.saturating_sub(2)).rev() {
            x[i] = (x[i] - du[i] * x[i + 1] - du2[i] * x[i + 2]) / d[i];
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{every_triangular, lcg, matmul, one_triangle, shifted, transpose};

    /// Column-major `m x n` from row-major rows.
    fn cm(rows: &[&[f64]]) -> Vec<f64> {
        let (m, n) = (rows.len(), rows[0].len());
        (0..m * n).map(|x| rows[x % m][x / m]).collect()
    }

    fn close(a: &[f64], b: &[f64], tol: f64) {
        assert_eq!(a.len(), b.len());
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).abs() <= tol,
                "element {i}: {x} vs {y}\n{a:?}\n{b:?}"
            );
        }
    }

    #[test]
    fn getrf_pivots_like_lapack_and_reconstructs() {
        // Known LAPACK output for this matrix (pivots 1-based).
        let a0 = cm(&[&[1.0, 2.0], &[3.0, 4.0]]);
        let mut a = a0.clone();
        let mut ipiv = [0; 2];
        assert_eq!(getrf(2, 2, &mut a, &mut ipiv), 0);
        assert_eq!(ipiv, [2, 2]);
        close(
            &a,
            &cm(&[&[3.0, 4.0], &[1.0 / 3.0, 2.0 - 4.0 / 3.0]]),
            1e-15,
        );
        // Singular: info names the first zero pivot.
        let mut z = cm(&[&[1.0, 2.0], &[2.0, 4.0]]);
        assert_eq!(getrf(2, 2, &mut z, &mut ipiv), 2);
    }

    #[test]
    fn potrf_both_triangles_and_not_positive_definite() {
        let a = cm(&[&[4.0, 2.0], &[2.0, 3.0]]);
        let mut l = a.clone();
        assert_eq!(potrf(true, 2, &mut l), 0);
        close(&l, &cm(&[&[2.0, 2.0], &[1.0, 2f64.sqrt()]]), 1e-15); // upper untouched
        let mut u = a.clone();
        assert_eq!(potrf(false, 2, &mut u), 0);
        close(&u, &cm(&[&[2.0, 1.0], &[2.0, 2f64.sqrt()]]), 1e-15);
        let mut bad = cm(&[&[1.0, 2.0], &[2.0, 1.0]]);
        assert_eq!(potrf(true, 2, &mut bad), 2);
    }

    #[test]
    fn trsm_every_variant_solves() {
        let n = 4;
        let a = shifted(n, 3, 4.0);
        for (bits, p) in every_triangular() {
            // The triangle trsm reads, as a full matrix, then op().
            let mut t = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    let inside = if p.lower { i >= j } else { i <= j };
                    t[i + j * n] = if i == j && p.unit {
                        1.0
                    } else if inside {
                        a[i + j * n]
                    } else {
                        0.0
                    };
                }
            }
            let opt: Vec<f64> = if p.transpose {
                (0..n * n).map(|x| t[x / n + (x % n) * n]).collect()
            } else {
                t.clone()
            };
            let (m, nn) = if p.left { (n, 3) } else { (3, n) };
            let x = lcg(m * nn, 7 + bits);
            let b = if p.left {
                matmul(n, n, nn, &opt, &x)
            } else {
                matmul(m, n, n, &x, &opt)
            };
            let mut got = b.clone();
            trsm(p, m, nn, &a, &mut got);
            close(&got, &x, 1e-12);
        }
    }

    #[test]
    fn qr_and_orgqr_reconstruct_with_lapack_signs() {
        for &(m, n) in &[(5, 3), (3, 5), (4, 4)] {
            let a0 = lcg(m * n, (m * 10 + n) as u64);
            let mut a = a0.clone();
            let k = m.min(n);
            let mut tau = vec![0.0; k];
            geqrf(m, n, &mut a, &mut tau);
            // R: upper triangle of the first k rows.
            let r: Vec<f64> = (0..k * n)
                .map(|x| {
                    let (i, j) = (x % k, x / k);
                    if i <= j {
                        a[i + j * m]
                    } else {
                        0.0
                    }
                })
                .collect();
            // Q: m x k from the first k columns.
            let mut q = a[..m * k].to_vec();
            orgqr(m, k, k, &mut q, &tau);
            close(&matmul(m, k, n, &q, &r), &a0, 1e-12);
            close(&matmul(k, m, k, &transpose(m, k, &q), &q), &eye(k), 1e-12);
            // LAPACK's sign convention: beta = -sign(alpha) * norm.
            let first = a0[0];
            assert!(
                r[0] * first <= 0.0,
                "R[0,0] = {} for a[0,0] = {first}",
                r[0]
            );
        }
    }

    fn eye(n: usize) -> Vec<f64> {
        (0..n * n)
            .map(|x| if x % (n + 1) == 0 { 1.0 } else { 0.0 })
            .collect()
    }

    #[test]
    fn orgqr_full_q_from_fewer_reflectors() {
        let (m, n) = (5, 2);
        let mut a = lcg(m * n, 11);
        let mut tau = vec![0.0; 2];
        geqrf(m, n, &mut a, &mut tau);
        let mut q = vec![0.0; m * m];
        q[..m * n].copy_from_slice(&a);
        orgqr(m, m, n, &mut q, &tau);
        close(&matmul(m, m, m, &transpose(m, m, &q), &q), &eye(m), 1e-12);
    }

    #[test]
    fn geqp3_pivots_by_column_norm() {
        let (m, n) = (4, 3);
        let mut a = cm(&[
            &[1.0, 10.0, 0.0],
            &[0.0, 10.0, 1.0],
            &[1.0, 0.0, 0.0],
            &[0.0, 0.0, 1.0],
        ]);
        let a0 = a.clone();
        let mut jpvt = [0; 3];
        let mut tau = [0.0; 3];
        geqp3(m, n, &mut a, &mut jpvt, &mut tau);
        assert_eq!(jpvt[0], 2);
        let mut q = a.clone();
        orgqr(m, n, n, &mut q, &tau);
        let r: Vec<f64> = (0..n * n)
            .map(|x| {
                if x % n <= x / n {
                    a[x % n + (x / n) * m]
                } else {
                    0.0
                }
            })
            .collect();
        let ap: Vec<f64> = (0..m * n)
            .map(|x| a0[x % m + (jpvt[x / m] as usize - 1) * m])
            .collect();
        close(&matmul(m, n, n, &q, &r), &ap, 1e-12);
    }

    #[test]
    fn syevd_ascending_orthonormal_and_reads_one_triangle() {
        let n = 6;
        let r = lcg(n * n, 5);
        let sym: Vec<f64> = (0..n * n).map(|x| r[x] + r[x / n + (x % n) * n]).collect();
        for lower in [true, false] {
            // Garbage in the triangle that must not be read.
            let mut a = one_triangle(n, &sym, lower);
            // Values only (mode 'N'): the same eigenvalues, no vectors.
            let mut values_only = a.clone();
            let mut wn = vec![0.0; n];
            assert_eq!(syevd(lower, false, n, &mut values_only, &mut wn), 0);
            let mut w = vec![0.0; n];
            assert_eq!(syevd(lower, true, n, &mut a, &mut w), 0);
            assert!(w.windows(2).all(|p| p[0] <= p[1]), "{w:?}");
            close(&wn, &w, 1e-13);
            close(&matmul(n, n, n, &transpose(n, n, &a), &a), &eye(n), 1e-12);
            let d: Vec<f64> = (0..n * n)
                .map(|x| if x % (n + 1) == 0 { w[x / n] } else { 0.0 })
                .collect();
            let back = matmul(n, n, n, &matmul(n, n, n, &a, &d), &transpose(n, n, &a));
            close(&back, &sym, 1e-12);
        }
    }

    #[test]
    fn svd_every_shape_and_job_reconstructs() {
        for &(m, n) in &[(5, 3), (3, 5), (4, 4), (1, 3), (3, 1)] {
            let mut a = lcg(m * n, (m * 7 + n) as u64);
            if m == 4 {
                // Rank deficient: the last column repeats the first.
                let c0 = a[..m].to_vec();
                a[3 * m..4 * m].copy_from_slice(&c0);
            }
            let k = m.min(n);
            for job in [SvdJob::Thin, SvdJob::Full] {
                let (uc, vr) = if job == SvdJob::Full { (m, n) } else { (k, k) };
                let (mut s, mut u, mut vt) = (vec![0.0; k], vec![0.0; m * uc], vec![0.0; vr * n]);
                assert_eq!(gesvd(job, m, n, &a, &mut s, &mut u, &mut vt), 0);
                assert!(s.windows(2).all(|p| p[0] >= p[1]) && s.iter().all(|&x| x >= 0.0));
                close(
                    &matmul(uc, m, uc, &transpose(m, uc, &u), &u),
                    &eye(uc),
                    1e-12,
                );
                close(
                    &matmul(vr, n, vr, &vt, &transpose(vr, n, &vt)),
                    &eye(vr),
                    1e-12,
                );
                let us: Vec<f64> = (0..m * k).map(|x| u[x] * s[x / m]).collect();
                close(&matmul(m, k, n, &us, &vt_rows(&vt, vr, n, k)), &a, 1e-12);
            }
            let mut s2 = vec![0.0; k];
            assert_eq!(gesvd(SvdJob::None, m, n, &a, &mut s2, &mut [], &mut []), 0);
        }
    }

    /// The first k rows of a column-major `rows x n` matrix.
    fn vt_rows(vt: &[f64], rows: usize, n: usize, k: usize) -> Vec<f64> {
        (0..k * n).map(|x| vt[x % k + (x / k) * rows]).collect()
    }

    #[test]
    fn gtsv_with_and_without_pivoting() {
        // [[1, 4, 0], [5, 2, 6], [0, 7, 3]] needs row interchanges.
        let (mut dl, mut d, mut du) = (vec![5.0, 7.0], vec![1.0, 2.0, 3.0], vec![4.0, 6.0]);
        let t = cm(&[&[1.0, 4.0, 0.0], &[5.0, 2.0, 6.0], &[0.0, 7.0, 3.0]]);
        let x = lcg(6, 9);
        let mut b = matmul(3, 3, 2, &t, &x);
        assert_eq!(gtsv(3, 2, &mut dl, &mut d, &mut du, &mut b), 0);
        close(&b, &x, 1e-12);
        let (mut dl, mut d, mut du) = (vec![1.0], vec![0.0, 0.0], vec![0.0]);
        let mut b = vec![1.0, 1.0];
        assert_eq!(gtsv(2, 1, &mut dl, &mut d, &mut du, &mut b), 2);
    }

    // ---- Hessenberg and tridiagonal reductions, complex ----------------

    type C = num_complex::Complex64;

    fn crand(n: usize, seed: u64) -> Vec<C> {
        let (re, im) = (lcg(n, seed), lcg(n, seed + 1000));
        re.iter().zip(&im).map(|(&r, &i)| C::new(r, i)).collect()
    }

    /// `a (n x n) * b (n x n)`, column-major, complex.
    fn cmul(n: usize, a: &[C], b: &[C]) -> Vec<C> {
        let mut c = vec![C::new(0.0, 0.0); n * n];
        for j in 0..n {
            for l in 0..n {
                for i in 0..n {
                    c[i + j * n] += a[i + l * n] * b[l + j * n];
                }
            }
        }
        c
    }

    fn adjoint(n: usize, a: &[C]) -> Vec<C> {
        (0..n * n).map(|x| a[x / n + (x % n) * n].conj()).collect()
    }

    /// `q * (I - tau v v^H)`.
    fn times_reflector(n: usize, q: &[C], v: &[C], tau: C) -> Vec<C> {
        let mut h: Vec<C> = (0..n * n)
            .map(|x| -tau * v[x % n] * v[x / n].conj())
            .collect();
        (0..n).for_each(|i| h[i + i * n] += 1.0);
        cmul(n, q, &h)
    }

    fn ceye(n: usize) -> Vec<C> {
        (0..n * n)
            .map(|x| C::new((x % n == x / n) as u8 as f64, 0.0))
            .collect()
    }

    fn assert_close(got: &[C], want: &[C], what: &str) {
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).norm() < 1e-12, "{what}: element {k}: {g} vs {w}");
        }
    }

    #[test]
    fn gehrd_complex_is_a_unitary_similarity_to_hessenberg_form() {
        let n = 6;
        let a0 = crand(n * n, 7);
        let mut a = a0.clone();
        let mut tau = vec![C::new(9.0, 9.0); n - 1];
        gehrd(n, 1, n, &mut a, &mut tau);
        let mut q = ceye(n);
        for i in 0..n - 1 {
            let mut v = vec![C::new(0.0, 0.0); n];
            v[i + 1] = C::new(1.0, 0.0);
            v[i + 2..].copy_from_slice(&a[i * n + i + 2..(i + 1) * n]);
            q = times_reflector(n, &q, &v, tau[i]);
        }
        let hess: Vec<C> = (0..n * n)
            .map(|x| {
                if x % n <= x / n + 1 {
                    a[x]
                } else {
                    C::new(0.0, 0.0)
                }
            })
            .collect();
        assert_close(
            &cmul(n, &adjoint(n, &q), &cmul(n, &a0, &q)),
            &hess,
            "Q^H A Q",
        );
        // Outside ilo..ihi nothing is reduced and tau is zero.
        let mut b = a0.clone();
        gehrd(n, 3, 3, &mut b, &mut tau);
        assert_eq!(b, a0);
        assert!(tau.iter().all(|t| *t == C::new(0.0, 0.0)));
    }

    #[test]
    fn hetrd_both_triangles_give_a_real_tridiagonal_similarity() {
        let n = 5;
        let r = crand(n * n, 11);
        let herm: Vec<C> = (0..n * n)
            .map(|x| r[x] + r[x / n + (x % n) * n].conj())
            .collect();
        for lower in [true, false] {
            // The other triangle is never read: NaN there stays NaN.
            let mut a: Vec<C> = (0..n * n)
                .map(|x| {
                    let (i, j) = (x % n, x / n);
                    if i == j || (i > j) == lower {
                        herm[x]
                    } else {
                        C::new(f64::NAN, f64::NAN)
                    }
                })
                .collect();
            let (mut d, mut e, mut tau) =
                (vec![0.0; n], vec![0.0; n - 1], vec![C::default(); n - 1]);
            sytrd(lower, n, &mut a, &mut d, &mut e, &mut tau);
            let mut q = ceye(n);
            let order: Vec<usize> = if lower {
                (0..n - 1).collect()
            } else {
                (0..n - 1).rev().collect()
            };
            for i in order {
                let mut v = vec![C::new(0.0, 0.0); n];
                if lower {
                    v[i + 1] = C::new(1.0, 0.0);
                    v[i + 2..].copy_from_slice(&a[i * n + i + 2..(i + 1) * n]);
                } else {
                    v[..i].copy_from_slice(&a[(i + 1) * n..(i + 1) * n + i]);
                    v[i] = C::new(1.0, 0.0);
                }
                q = times_reflector(n, &q, &v, tau[i]);
            }
            let mut t = vec![C::new(0.0, 0.0); n * n];
            for i in 0..n {
                t[i + i * n] = C::new(d[i], 0.0);
                assert_eq!(a[i + i * n], C::new(d[i], 0.0));
            }
            for i in 0..n - 1 {
                t[i + 1 + i * n] = C::new(e[i], 0.0);
                t[i + (i + 1) * n] = C::new(e[i], 0.0);
            }
            let got = cmul(n, &adjoint(n, &q), &cmul(n, &herm, &q));
            assert_close(&got, &t, if lower { "lower" } else { "upper" });
            let unread = (0..n * n).filter(|&x| (x % n > x / n) != lower && x % n != x / n);
            assert!(unread.into_iter().all(|x| a[x].re.is_nan()));
        }
    }

    /// `A = Z T Z^H`, `Z^H Z = I` and `T`'s shape (triangular; on the real
    /// types quasi-triangular with standardized 2 x 2 blocks).
    fn check_schur(n: usize, a: &[C], t: &[C], z: &[C], real: bool, what: &str) {
        let scale = 1.0 + a.iter().fold(0.0f64, |m, x| m.max(x.norm()));
        let back = cmul(n, z, &cmul(n, t, &adjoint(n, z)));
        for (k, (g, w)) in back.iter().zip(a).enumerate() {
            assert!(
                (g - w).norm() < 1e-12 * scale * n as f64,
                "{what}: Z T Z^H at {k}: {g} vs {w}"
            );
        }
        assert_close(&cmul(n, &adjoint(n, z), z), &ceye(n), what);
        for j in 0..n {
            for i in j + 1..n {
                let x = t[i + j * n];
                if i == j + 1 && real && x != C::default() {
                    // A standardized block: alone, equal diagonal, b c < 0.
                    assert!(
                        j == 0 || t[j + (j - 1) * n] == C::default(),
                        "{what}: adjacent blocks at {j}"
                    );
                    assert_eq!(t[j + j * n], t[i + i * n], "{what}: block {j} diagonal");
                    assert!(t[j + i * n].re * x.re < 0.0, "{what}: block {j} signs");
                } else {
                    assert_eq!(x, C::default(), "{what}: T[{i}, {j}]");
                }
            }
        }
    }

    #[test]
    fn gees_real_and_complex_satisfy_the_schur_equations() {
        for n in [1usize, 2, 3, 4, 5, 8, 13] {
            let r = lcg(n * n, 40 + n as u64);
            let (mut t, mut z) = (r.clone(), vec![0.0; n * n]);
            assert_eq!(gees(true, n, &mut t, &mut z), 0, "f64 {n}");
            let c = |v: &[f64]| v.iter().map(|&x| C::new(x, 0.0)).collect::<Vec<_>>();
            check_schur(n, &c(&r), &c(&t), &c(&z), true, &format!("f64 {n}"));
            let a = crand(n * n, 70 + n as u64);
            let (mut t, mut z) = (a.clone(), vec![C::default(); n * n]);
            assert_eq!(gees(true, n, &mut t, &mut z), 0, "c128 {n}");
            check_schur(n, &a, &t, &z, false, &format!("c128 {n}"));
        }
        // Known blocks: a rotation (eigenvalues +-i) stays a standardized
        // block; [[1, 2], [3, 4]] (real eigenvalues) becomes triangular.
        let (mut t, mut z) = (vec![0.0, 1.0, -1.0, 0.0], vec![0.0; 4]);
        gees(true, 2, &mut t, &mut z);
        assert_eq!((t[0], t[3]), (0.0, 0.0));
        assert!((t[1] * t[2] + 1.0).abs() < 1e-15, "{t:?}");
        let (mut t, mut z) = (vec![1.0, 3.0, 2.0, 4.0], vec![0.0; 4]);
        gees(false, 2, &mut t, &mut z);
        assert_eq!(t[1], 0.0);
        let mut ev = [t[0], t[3]];
        ev.sort_by(f64::total_cmp);
        let s = 33f64.sqrt();
        assert!(
            (ev[0] - (5.0 - s) / 2.0).abs() < 1e-14 && (ev[1] - (5.0 + s) / 2.0).abs() < 1e-14,
            "{ev:?}"
        );
        assert!(z.iter().all(|&x| x == 0.0));
    }
}
