//! The LAPACK routines of [`crate::lapack`] computed by
//! [faer](https://docs.rs/faer) (blocked, cache-aware, pure Rust), with
//! LAPACK's conventions restored on top: what each routine overwrites,
//! 1-based pivot *interchanges*, `info` codes, the packed Householder form
//! with LAPACK's `tau`, descending singular values and `V^T`.
//!
//! Everything here is a conversion around one faer call, not an algorithm
//! of its own, except singular values without vectors: faer's
//! bidiagonalization, then [`crate::dqds`] (faer has no dqds; its QR
//! iteration took two thirds of the time). Where faer's result cannot be
//! expressed in LAPACK's form, the routine falls back to the unblocked
//! LAPACK-style code in [`crate::linalg`] for that one matrix, and says so:
//!
//! - LU: faer divides by an exactly zero pivot (the column below it turns
//!   into NaNs), LAPACK skips the division and reports `info`. A matrix
//!   with an exactly zero pivot is refactored by [`linalg::getrf`].
//! - QR: faer's Householder QR skips a column whose remaining norm is
//!   negligible (it reveals the rank with a staircase `R`), which LAPACK's
//!   packed form (reflector `j` below the diagonal of column `j`) cannot
//!   hold. A numerically rank-deficient matrix is refactored by
//!   [`linalg::geqrf`].
//!
//! Column-pivoted QR (`geqp3`) and the tridiagonal solve (`gtsv`) stay in
//! [`crate::linalg`]: faer's column pivoting chooses pivots differently
//! from LAPACK's (JAX's `jpvt` output would change), and faer has no
//! tridiagonal solver (LAPACK's `gtsv` is the same O(n) elimination).
//!
//! All matrices are column-major (`a[i + j * m]`), as in [`crate::linalg`].
//! faer runs single-threaded (`Par::Seq`) except for the LU factorization
//! and the triangular solve of large matrices ([`GETRF_THREADS_FROM`],
//! [`TRSM_THREADS_FROM`]) and the Cholesky factorization from order 512
//! ([`POTRF_THREADS_FROM`]), which run on rayon's global pool: on the
//! benchmark's sizes (512) two threads made the LU and the triangular
//! solve slower, not faster, and the Cholesky factorization about 10%
//! faster. Below [`TRSM_THREADS_FROM`] a triangular solve with enough
//! right-hand sides splits them over the pool instead ([`rhs_pieces`]),
//! each group solved by single-threaded faer.
//!
//! Every routine is generic over [`Field`] (f32, f64 and their complex
//! types, which are faer's `c32`/`c64`), as faer's are over its
//! `ComplexField`. One exception: complex Householder QR ([`geqrf`],
//! [`orgqr`] on `c`/`z`) runs [`linalg::geqrf`]/[`linalg::orgqr`], because
//! faer's complex reflectors are not LAPACK's. faer makes `tau` real and
//! `beta` (the diagonal of `R`) complex; LAPACK's `zlarfg` makes `beta`
//! real and `tau` complex. The two factorizations differ by more than a
//! diagonal phase in the packed form (each later reflector is computed
//! from a differently reflected trailing matrix), so JAX's `R` and `Q`
//! could not be recovered from faer's.

use crate::field::Field;
use crate::linalg::{self, SvdJob, Triangular};
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor as llt;
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::linalg::householder;
use faer::linalg::lu::partial_pivoting::factor as lu;
use faer::linalg::qr::no_pivoting::factor as qr;
use faer::linalg::svd::{self, ComputeSvdVectors};
use faer::linalg::triangular_solve as tri;
use faer::{ColMut, Conj, MatMut, MatRef, Par};
use num_complex::Complex;
use num_traits::{Float, One, ToPrimitive, Zero};

/// faer on one thread: the routines below [`GETRF_THREADS_FROM`],
/// [`TRSM_THREADS_FROM`] and [`POTRF_THREADS_FROM`], and those not measured
/// on threads (QR, the eigen- and singular value decompositions).
const PAR: Par = Par::Seq;

/// The matrix order from which the LU factorization runs on rayon's
/// threads. Measured on the 2-core machine (docs/performance.md, "Linear
/// algebra through faer"): at 512 two threads made faer's LU 1.2x slower
/// (1.73 against 1.44 ms), at 1024 and 1536 they did not pay either, at
/// 2048 they were 1.2x faster.
const GETRF_THREADS_FROM: usize = 2048;

/// The order of the triangle from which the triangular solve runs on
/// rayon's threads: at 512 (64 right-hand sides) two threads were 1.5x
/// slower, at 1024 (256) even, at 2048 (256) 1.8x faster.
const TRSM_THREADS_FROM: usize = 1536;

/// The matrix order from which the Cholesky factorization runs on rayon's
/// threads. Measured on the 2-core AMD machine, four rounds alternating
/// one thread and two (`hlox bench` of `jnp.linalg.cholesky`, medians of
/// 40 runs): at 512 1.69 against 1.86 ms (mean of the rounds; threads ahead
/// in three of four), at 1024 13.3 against 14.8 ms (ahead in all four), at
/// 256 no gain (0.41-0.64 against 0.41-0.45 ms).
const POTRF_THREADS_FROM: usize = 512;

/// faer's parallelism for a matrix of order `n` with the threshold `from`:
/// rayon's global pool (the Host backend's own thread pool, so no second
/// pool competes for the cores) from `from` up, one thread below it.
fn threads_from(from: usize, n: usize) -> Par {
    if n >= from && rayon::current_num_threads() > 1 {
        Par::rayon(0)
    } else {
        Par::Seq
    }
}

/// Runs `f` (one faer call with parallelism `p`) on a worker of rayon's
/// pool when `p` is parallel. faer splits its work with `rayon::join`;
/// from a thread outside the pool (the executor's) each of those joins is
/// sent to the pool and waited for, which made a threaded 512 LU 1.4x
/// slower still (2.45 against 1.73 ms) than when the whole call runs on a
/// worker, where the joins are local.
fn on_pool<R: Send>(p: Par, f: impl FnOnce() -> R + Send) -> R {
    match p {
        Par::Seq => f(),
        _ => {
            let mut out = None;
            rayon::scope(|_| out = Some(f()));
            // `scope` returns after its closure ran, which set `out`.
            out.unwrap_or_else(|| unreachable!("rayon::scope ran its closure"))
        }
    }
}

/// Scratch memory for one faer call.
fn scratch(req: StackReq) -> MemBuffer {
    MemBuffer::new(req)
}

// ---- LU ------------------------------------------------------------------

/// LU factorization with partial pivoting (LAPACK `getrf`), by faer's
/// recursive blocked LU: `a` (`m x n`) is overwritten by `L` (unit
/// diagonal, not stored) and `U`; `ipiv[j]` is the 1-based row that row `j`
/// was interchanged with (LAPACK's form; faer returns the composed
/// permutation, from which the interchanges are recovered exactly). faer
/// picks the first entry of largest magnitude, as LAPACK's `i?amax` does.
/// Returns `info`: 0, or `j + 1` for the first exactly zero `U[j, j]`.
pub fn getrf<T: Field>(m: usize, n: usize, a: &mut [T], ipiv: &mut [i32]) -> i32 {
    getrf_with(threads_from(GETRF_THREADS_FROM, m.min(n)), m, n, a, ipiv)
}

/// [`getrf`] with faer's parallelism `p`.
fn getrf_with<T: Field>(p: Par, m: usize, n: usize, a: &mut [T], ipiv: &mut [i32]) -> i32 {
    let k = m.min(n);
    if k == 0 {
        return 0;
    }
    // Kept for the exactly-singular fallback (see the module docs).
    let saved = a.to_vec();
    let (mut perm, mut perm_inv) = (vec![0usize; m], vec![0usize; m]);
    on_pool(p, || {
        let mat = MatMut::from_column_major_slice_mut(&mut *a, m, n);
        let mut buf = scratch(lu::lu_in_place_scratch::<usize, T>(
            m,
            n,
            p,
            Default::default(),
        ));
        lu::lu_in_place(
            mat,
            &mut perm,
            &mut perm_inv,
            p,
            MemStack::new(&mut buf),
            Default::default(),
        );
    });
    if (0..k).any(|j| a[j + j * m] == T::zero()) {
        a.copy_from_slice(&saved);
        return linalg::getrf(m, n, a, ipiv);
    }
    // `perm[i]` is the original row now at row `i`. faer built it by the
    // interchanges (j, p_j), p_j >= j, in order, so row j's interchange
    // is with wherever `perm[j]` sits after the first j of them.
    let mut at: Vec<usize> = (0..m).collect(); // original row -> current row
    let mut row: Vec<usize> = (0..m).collect(); // current row -> original row
    for j in 0..k {
        let p = at[perm[j]];
        ipiv[j] = (p + 1) as i32;
        row.swap(j, p);
        at[row[j]] = j;
        at[row[p]] = p;
    }
    0
}

// ---- Cholesky ------------------------------------------------------------

/// Cholesky factorization (LAPACK `potrf`) by faer's blocked left-looking
/// `LL^T`. The `lower` (or upper) triangle of `a` (`n x n`) is read and
/// overwritten by `L` (or `U = L^T`: the upper triangle of a column-major
/// matrix is the lower triangle of its transpose); the other triangle is
/// not touched. Returns `info`: 0, or `j + 1` when the leading minor of
/// order `j + 1` is not positive definite.
pub fn potrf<T: Field>(lower: bool, n: usize, a: &mut [T]) -> i32 {
    potrf_with(threads_from(POTRF_THREADS_FROM, n), lower, n, a)
}

/// [`potrf`] with faer's parallelism `par`.
fn potrf_with<T: Field>(par: Par, lower: bool, n: usize, a: &mut [T]) -> i32 {
    if n == 0 {
        return 0;
    }
    // faer uses the other triangle as scratch; LAPACK leaves it alone.
    let saved = a.to_vec();
    let mat = MatMut::from_column_major_slice_mut(a, n, n);
    let mat = if lower { mat } else { mat.transpose_mut() };
    let mut buf = scratch(llt::cholesky_in_place_scratch::<T>(
        n,
        par,
        Default::default(),
    ));
    let info = match on_pool(par, || {
        llt::cholesky_in_place(
            mat,
            Default::default(),
            par,
            MemStack::new(&mut buf),
            Default::default(),
        )
    }) {
        Ok(_) => 0,
        Err(llt::LltError::NonPositivePivot { index }) => (index + 1) as i32,
    };
    for j in 0..n {
        let other = if lower { 0..j } else { j + 1..n };
        a[other.start + j * n..other.end + j * n]
            .copy_from_slice(&saved[other.start + j * n..other.end + j * n]);
    }
    info
}

// ---- Triangular solve ----------------------------------------------------

/// Solves `op(A) X = B` or `X op(A) = B` (BLAS `trsm`, `alpha = 1`) by
/// faer's blocked triangular solves, overwriting `b` (`m x n`) with `X`.
/// `a` is `k x k` (`k = m` from the left, `n` from the right); only its
/// `p.lower` triangle is read, and not its diagonal when `p.unit`. From the
/// right, `X op(A) = B` is solved as `op(A)^T X^T = B^T` on transposed
/// views (no copies).
pub fn trsm<T: Field>(p: Triangular, m: usize, n: usize, a: &[T], b: &mut [T]) {
    let k = if p.left { m } else { n };
    let pp = threads_from(TRSM_THREADS_FROM, k);
    let rhs = if p.left { n } else { m };
    let pieces = if matches!(pp, Par::Seq) {
        rhs_pieces(k, rhs, rayon::current_num_threads())
    } else {
        1
    };
    trsm_split(pp, pieces, p, m, n, a, b)
}

/// The fewest right-hand sides one thread of a split triangular solve
/// takes: narrower panels lose more of faer's kernel speed than the second
/// core gives back.
const TRSM_SPLIT_COLS: usize = 16;

/// The smallest triangle whose solve is split by right-hand sides: below
/// it a solve takes a few microseconds, the pool's hand-off as much.
const TRSM_SPLIT_FROM: usize = 128;

/// Into how many groups of right-hand sides (each solved by one thread,
/// single-threaded faer) a solve with a `k x k` triangle and `rhs`
/// right-hand sides is split below [`TRSM_THREADS_FROM`]. The right-hand
/// sides are independent, so the split changes no result, while faer's own
/// threads (which split the triangle's blocks) made the benchmark's 512
/// triangle with 64 right-hand sides 1.5x slower: docs/performance.md,
/// "Thirteenth session".
fn rhs_pieces(k: usize, rhs: usize, threads: usize) -> usize {
    if k < TRSM_SPLIT_FROM {
        return 1;
    }
    threads.min(rhs / TRSM_SPLIT_COLS).max(1)
}

/// [`trsm`] with faer's parallelism `pp`, its right-hand sides split into
/// `pieces` groups solved side by side on rayon's pool (with `pp` one
/// thread each).
fn trsm_split<T: Field>(
    pp: Par,
    pieces: usize,
    p: Triangular,
    m: usize,
    n: usize,
    a: &[T],
    b: &mut [T],
) {
    let k = if p.left { m } else { n };
    if m == 0 || n == 0 {
        return;
    }
    let a = MatRef::from_column_major_slice(a, k, k);
    let b = MatMut::from_column_major_slice_mut(b, m, n);
    // The system as `t x = rhs`, with `t` lower or upper triangular.
    let (t, rhs, transposed) = if p.left {
        (a, b, p.transpose)
    } else {
        (a, b.transpose_mut(), !p.transpose)
    };
    let t = if transposed { t.transpose() } else { t };
    let t_lower = p.lower != transposed;
    // `op(A) = A^H` from the left is `conj(A^T)`; from the right,
    // `op(A)^T = conj(A)`: conjugated either way.
    let c = if p.transpose && p.conjugate {
        Conj::Yes
    } else {
        Conj::No
    };
    let solve = |rhs: MatMut<'_, T>| match (t_lower, p.unit) {
        (true, false) => tri::solve_lower_triangular_in_place_with_conj(t, c, rhs, pp),
        (true, true) => tri::solve_unit_lower_triangular_in_place_with_conj(t, c, rhs, pp),
        (false, false) => tri::solve_upper_triangular_in_place_with_conj(t, c, rhs, pp),
        (false, true) => tri::solve_unit_upper_triangular_in_place_with_conj(t, c, rhs, pp),
    };
    if pieces > 1 {
        on_pool(Par::rayon(0), || split_columns(rhs, pieces, &solve));
    } else {
        on_pool(pp, || solve(rhs));
    }
}

/// Runs `f` on `pieces` groups of `x`'s columns (as even as they divide),
/// side by side on rayon's pool.
fn split_columns<T: Field>(x: MatMut<'_, T>, pieces: usize, f: &(dyn Fn(MatMut<'_, T>) + Sync)) {
    if pieces <= 1 || x.ncols() < 2 {
        f(x);
        return;
    }
    let left = pieces / 2;
    let at = x.ncols() * left / pieces;
    let (l, r) = x.split_at_col_mut(at);
    rayon::join(
        || split_columns(l, left, f),
        || split_columns(r, pieces - left, f),
    );
}

// ---- Householder QR ------------------------------------------------------

/// faer's `tau` (`H = I - v v^T / tau`) from LAPACK's (`H = I - tau v v^T`)
/// and back: reciprocals (LAPACK's `tau = 0`, no reflection, is faer's
/// infinity).
fn recip<T: Field>(t: T) -> T {
    T::one() / t
}

/// Householder QR (LAPACK `geqrf`) by faer's blocked QR: `a` (`m x n`) is
/// overwritten by `R` (upper triangle) and the reflectors' vectors below
/// it (LAPACK's packed form; faer's reflectors are LAPACK's, same vector
/// and same sign of `beta`), `tau` gets LAPACK's `min(m, n)` factors.
///
/// A wide matrix is factored as LAPACK does: QR of its first `m` columns,
/// then `Q^T` applied to the rest. A numerically rank-deficient matrix
/// goes to [`linalg::geqrf`] (see the module docs), as does every complex
/// one (LAPACK's complex reflectors are not faer's).
pub fn geqrf<T: Field>(m: usize, n: usize, a: &mut [T], tau: &mut [T]) {
    let k = m.min(n);
    if k == 0 {
        return;
    }
    if T::COMPLEX {
        linalg::geqrf(m, n, a, tau);
        return;
    }
    let bs = qr::recommended_block_size::<T>(m, k);
    let mut h = vec![T::zero(); bs * k];
    let (left, right) = a.split_at_mut(m * k);
    let saved = left.to_vec();
    let rank = {
        let mut buf = scratch(qr::qr_in_place_scratch::<T>(
            m,
            k,
            bs,
            PAR,
            Default::default(),
        ));
        qr::qr_in_place(
            MatMut::from_column_major_slice_mut(left, m, k),
            MatMut::from_column_major_slice_mut(&mut h, bs, k),
            PAR,
            MemStack::new(&mut buf),
            Default::default(),
        )
        .rank
    };
    if rank < k {
        left.copy_from_slice(&saved);
        linalg::geqrf(m, n, a, tau);
        return;
    }
    if n > k {
        let basis = MatRef::from_column_major_slice(left, m, k);
        let factor = MatRef::from_column_major_slice(&h, bs, k);
        let mut buf = scratch(
            householder::apply_block_householder_sequence_transpose_on_the_left_in_place_scratch::<T>(
                m,
                bs,
                n - k,
            ),
        );
        householder::apply_block_householder_sequence_transpose_on_the_left_in_place_with_conj(
            basis,
            factor,
            Conj::Yes,
            MatMut::from_column_major_slice_mut(right, m, n - k),
            PAR,
            MemStack::new(&mut buf),
        );
    }
    // Reflector j's factor is on the diagonal of its block's triangular
    // factor: row j % bs of column j.
    for (j, t) in tau.iter_mut().enumerate().take(k) {
        *t = recip(h[j % bs + j * bs]);
    }
}

/// The first `n` columns of `Q = H(0) H(1) ... H(k-1)` (LAPACK `orgqr`) by
/// faer's blocked Householder application: on entry column `j < k` of `a`
/// (`m x n`, `k <= n <= m`) holds reflector `j` below its diagonal, as
/// [`geqrf`] leaves it, and `tau` LAPACK's factors; on exit `a` is `Q`.
/// faer's block factors are built from LAPACK's `tau` (their diagonals)
/// and the reflectors (the rest). Complex `Q` (LAPACK's `ungqr`) is
/// [`linalg::orgqr`] (see the module docs).
pub fn orgqr<T: Field>(m: usize, n: usize, k: usize, a: &mut [T], tau: &[T]) {
    if m == 0 || n == 0 {
        return;
    }
    if T::COMPLEX {
        linalg::orgqr(m, n, k, a, tau);
        return;
    }
    let basis = a[..m * k].to_vec();
    a.iter_mut().for_each(|v| *v = T::zero());
    for j in 0..n.min(m) {
        a[j + j * m] = T::one();
    }
    if k == 0 {
        return;
    }
    let bs = qr::recommended_block_size::<T>(m, k);
    let mut h = vec![T::zero(); bs * k];
    for j in 0..k {
        h[j % bs + j * bs] = recip(tau[j]);
    }
    {
        let basis = MatRef::from_column_major_slice(&basis, m, k);
        let mut factor = MatMut::from_column_major_slice_mut(&mut h, bs, k);
        for j0 in (0..k).step_by(bs) {
            let b = bs.min(k - j0);
            householder::upgrade_householder_factor(
                factor.as_mut().submatrix_mut(0, j0, b, b),
                basis.submatrix(j0, j0, m - j0, b),
                b,
                1,
                PAR,
            );
        }
    }
    let mut buf = scratch(
        householder::apply_block_householder_sequence_on_the_left_in_place_scratch::<T>(m, bs, n),
    );
    householder::apply_block_householder_sequence_on_the_left_in_place_with_conj(
        MatRef::from_column_major_slice(&basis, m, k),
        MatRef::from_column_major_slice(&h, bs, k),
        Conj::No,
        MatMut::from_column_major_slice_mut(a, m, n),
        PAR,
        MemStack::new(&mut buf),
    );
}

// ---- Hermitian eigenproblem ----------------------------------------------

/// Eigenvalues (ascending, real, into `w`) and, with `vectors`, orthonormal
/// eigenvectors (column `j` of `a` for `w[j]`) of the symmetric or
/// Hermitian `n x n` matrix whose `lower` (or upper) triangle `a` holds
/// (LAPACK `syevd`/`heevd`), by faer's tridiagonalization and divide and
/// conquer. Without `vectors`, `a` keeps its input. Returns `info`: 0, or
/// 1 if faer's iteration did not converge.
pub fn syevd<T: Field>(lower: bool, vectors: bool, n: usize, a: &mut [T], w: &mut [T::Re]) -> i32 {
    if n == 0 {
        return 0;
    }
    let compute = if vectors {
        ComputeEigenvectors::Yes
    } else {
        ComputeEigenvectors::No
    };
    let mut u = vec![T::zero(); if vectors { n * n } else { 0 }];
    let mut values = vec![T::zero(); n];
    // Divide and conquer down to blocks of 64 (faer's default stops at
    // 128, LAPACK's `dstedc` at 25): `jnp.linalg.eigh` of a 128x128 f32
    // matrix took 1.17-1.18 ms at best with 128, 1.06-1.07 with 64 or 48
    // (three alternated rounds of 1000 runs, docs/performance.md).
    let mut params: evd::SelfAdjointEvdParams = faer::Auto::<T>::auto();
    params.recursion_threshold = 64;
    let mut buf = scratch(evd::self_adjoint_evd_scratch::<T>(
        n,
        compute,
        PAR,
        params.into(),
    ));
    // faer reads the lower triangle; that of the upper one's adjoint is
    // the conjugated upper triangle.
    let src: Vec<T> = if lower {
        a.to_vec()
    } else {
        (0..n * n).map(|x| a[x / n + (x % n) * n].conj()).collect()
    };
    let ok = {
        let out = vectors.then(|| MatMut::from_column_major_slice_mut(&mut u, n, n));
        evd::self_adjoint_evd(
            MatRef::from_column_major_slice(&src, n, n),
            ColMut::from_slice_mut(&mut values).as_diagonal_mut(),
            out,
            PAR,
            MemStack::new(&mut buf),
            params.into(),
        )
        .is_ok()
    };
    w.iter_mut().zip(&values).for_each(|(w, v)| *w = v.re());
    if vectors {
        a.copy_from_slice(&u);
    }
    if ok {
        0
    } else {
        1
    }
}

// ---- Singular value decomposition ----------------------------------------

/// Singular values only (LAPACK's `gesdd`/`gesvd` with no vectors): faer
/// reduces the matrix to bidiagonal form (after a QR factorization when it
/// is much taller than wide, as faer's own SVD does), and
/// [`crate::dqds`] computes the bidiagonal matrix's values, as LAPACK's
/// `dlasq1` does. faer's SVD would run the implicit QR iteration there,
/// whose Givens rotations took two thirds of a 128x128 `jnp.linalg.svd(a,
/// compute_uv=False)` (docs/performance.md). A complex bidiagonal matrix
/// has the singular values of the real one of its entries' moduli (a
/// diagonal unitary scaling on each side makes them real). Returns false
/// if the matrix is not finite or the iteration did not converge.
fn singular_values<T: Field>(m: usize, n: usize, a: &[T], s: &mut [T::Re]) -> bool {
    // Work on a matrix at least as tall as wide: `A^T` has `A`'s values.
    let (m, n, mut w) = if m >= n {
        (m, n, a[..m * n].to_vec())
    } else {
        let mut t = vec![T::zero(); m * n];
        for j in 0..n {
            for i in 0..m {
                t[j + i * n] = a[i + j * m];
            }
        }
        (n, m, t)
    };
    // A matrix much taller than wide: its R factor (n x n) has the same
    // values and is cheaper to bidiagonalize (faer's own threshold).
    if m as f64 > n as f64 * 11.0 / 6.0 {
        let bs = qr::recommended_block_size::<T>(m, n);
        let mut coeff = vec![T::zero(); bs * n];
        let mut buf = scratch(qr::qr_in_place_scratch::<T>(
            m,
            n,
            bs,
            PAR,
            Default::default(),
        ));
        qr::qr_in_place(
            MatMut::from_column_major_slice_mut(&mut w, m, n),
            MatMut::from_column_major_slice_mut(&mut coeff, bs, n),
            PAR,
            MemStack::new(&mut buf),
            Default::default(),
        );
        let mut r = vec![T::zero(); n * n];
        for j in 0..n {
            r[j * n..j * n + j + 1].copy_from_slice(&w[j * m..j * m + j + 1]);
        }
        w = r;
        return bidiagonal_values(n, n, &mut w, s);
    }
    bidiagonal_values(m, n, &mut w, s)
}

/// The values of `w` (`m x n`, `m >= n`, overwritten) through faer's
/// bidiagonalization and [`crate::dqds`].
fn bidiagonal_values<T: Field>(m: usize, n: usize, w: &mut [T], s: &mut [T::Re]) -> bool {
    {
        let mut hl = vec![T::zero(); n];
        let mut hr = vec![T::zero(); n.saturating_sub(1)];
        let mut buf = scratch(svd::bidiag::bidiag_in_place_scratch::<T>(
            m,
            n,
            PAR,
            Default::default(),
        ));
        svd::bidiag::bidiag_in_place(
            MatMut::from_column_major_slice_mut(w, m, n),
            MatMut::from_column_major_slice_mut(&mut hl, 1, n),
            MatMut::from_column_major_slice_mut(&mut hr, 1, n.saturating_sub(1)),
            PAR,
            MemStack::new(&mut buf),
            Default::default(),
        );
    }
    let modulus = |x: T| x.modulus().to_f64().unwrap_or(f64::NAN);
    let d: Vec<f64> = (0..n).map(|i| modulus(w[i + i * m])).collect();
    let f: Vec<f64> = (0..n.saturating_sub(1))
        .map(|i| modulus(w[i + (i + 1) * m]))
        .collect();
    let eps = T::Re::epsilon().to_f64().unwrap_or(f64::EPSILON);
    let mut out = vec![0.0f64; n];
    if !crate::dqds::bidiagonal_singular_values(&d, &f, eps, &mut out) {
        return false;
    }
    for (s, v) in s.iter_mut().zip(&out) {
        *s = <T::Re as num_traits::NumCast>::from(*v).unwrap_or_else(T::Re::nan);
    }
    true
}

/// Singular value decomposition `A = U diag(s) V^H` (LAPACK `gesdd` and
/// `gesvd`) of `a` (`m x n`, not modified) by faer's bidiagonalization and
/// divide and conquer, or for [`SvdJob::None`] by [`singular_values`]
/// (dqds): `s` gets the `min(m, n)` singular values (real), descending;
/// `u` and `vt` the vectors as `job` asks (column-major; untouched for
/// [`SvdJob::None`]; faer returns `V`, conjugate-transposed here). Returns
/// `info`: 0, or 1 if the iteration did not converge (or, values only, the
/// matrix is not finite).
pub fn gesvd<T: Field>(
    job: SvdJob,
    m: usize,
    n: usize,
    a: &[T],
    s: &mut [T::Re],
    u: &mut [T],
    vt: &mut [T],
) -> i32 {
    let k = m.min(n);
    let (compute, ucols, vcols) = match job {
        SvdJob::None => (ComputeSvdVectors::No, 0, 0),
        SvdJob::Thin => (ComputeSvdVectors::Thin, k, k),
        SvdJob::Full => (ComputeSvdVectors::Full, m, n),
    };
    if k == 0 {
        // No singular values; the vectors of an empty side are the
        // identity (LAPACK's convention for the full job).
        for (buf, rows, cols) in [(&mut *u, m, ucols), (&mut *vt, vcols, n)] {
            if buf.len() >= rows * cols {
                buf[..rows * cols].iter_mut().for_each(|x| *x = T::zero());
                for i in 0..rows.min(cols) {
                    buf[i + i * rows] = T::one();
                }
            }
        }
        return 0;
    }
    if job == SvdJob::None {
        return if singular_values(m, n, a, &mut s[..k]) {
            0
        } else {
            1
        };
    }
    let mut v = vec![T::zero(); n * vcols];
    let mut values = vec![T::zero(); k];
    let params: faer::Spec<svd::SvdParams, T> = Default::default();
    let mut buf = scratch(svd::svd_scratch::<T>(m, n, compute, compute, PAR, params));
    let ok = {
        let uo = MatMut::from_column_major_slice_mut(&mut u[..m * ucols], m, ucols);
        let vo = MatMut::from_column_major_slice_mut(&mut v, n, vcols);
        svd::svd(
            MatRef::from_column_major_slice(a, m, n),
            ColMut::from_slice_mut(&mut values).as_diagonal_mut(),
            Some(uo),
            Some(vo),
            PAR,
            MemStack::new(&mut buf),
            params,
        )
        .is_ok()
    };
    s[..k]
        .iter_mut()
        .zip(&values)
        .for_each(|(s, v)| *s = v.re());
    // vt (vcols x n) = V^H, V being n x vcols.
    for i in 0..vcols {
        for j in 0..n {
            vt[i + j * vcols] = v[j + i * n].conj();
        }
    }
    if ok {
        0
    } else {
        1
    }
}

// ---- Nonsymmetric eigenproblem -------------------------------------------

/// The element types [`geev`] runs on: faer has one entry point for real
/// matrices (eigenvalues as real and imaginary parts, complex pairs of
/// eigenvectors packed in two real columns, as LAPACK's `dgeev`) and one
/// for complex ones; this picks it and returns LAPACK's complex form.
pub trait Geev: Field {
    /// Eigenvalues into `w` and the (unnormalized) left and right
    /// eigenvectors, as faer leaves them, into `vl`/`vr` (`None` when not
    /// asked for). Returns false if faer's iteration did not converge.
    fn faer_evd(
        n: usize,
        a: &[Self],
        w: &mut [Self::Cplx],
        vl: Option<&mut [Self::Cplx]>,
        vr: Option<&mut [Self::Cplx]>,
    ) -> bool;
}

fn evd_params(left: bool, right: bool) -> (ComputeEigenvectors, ComputeEigenvectors) {
    let c = |b: bool| {
        if b {
            ComputeEigenvectors::Yes
        } else {
            ComputeEigenvectors::No
        }
    };
    (c(left), c(right))
}

macro_rules! real_geev {
    ($r:ty) => {
        impl Geev for $r {
            fn faer_evd(
                n: usize,
                a: &[$r],
                w: &mut [Complex<$r>],
                vl: Option<&mut [Complex<$r>]>,
                vr: Option<&mut [Complex<$r>]>,
            ) -> bool {
                let (cl, cr) = evd_params(vl.is_some(), vr.is_some());
                let (mut re, mut im) = (vec![<$r>::zero(); n], vec![<$r>::zero(); n]);
                let mut ul = vec![<$r>::zero(); if vl.is_some() { n * n } else { 0 }];
                let mut ur = vec![<$r>::zero(); if vr.is_some() { n * n } else { 0 }];
                let mut buf = scratch(evd::evd_scratch::<$r>(n, cl, cr, PAR, Default::default()));
                let ok = evd::evd_real(
                    MatRef::from_column_major_slice(a, n, n),
                    ColMut::from_slice_mut(&mut re).as_diagonal_mut(),
                    ColMut::from_slice_mut(&mut im).as_diagonal_mut(),
                    vl.is_some()
                        .then(|| MatMut::from_column_major_slice_mut(&mut ul, n, n)),
                    vr.is_some()
                        .then(|| MatMut::from_column_major_slice_mut(&mut ur, n, n)),
                    PAR,
                    MemStack::new(&mut buf),
                    Default::default(),
                )
                .is_ok();
                for j in 0..n {
                    w[j] = Complex::new(re[j], im[j]);
                }
                // A complex pair (j, j + 1), `im[j] > 0`: columns j and j + 1 hold
                // the real and imaginary parts of the vector of `w[j]`; `w[j + 1]`'s
                // is its conjugate.
                for (packed, out) in [(&ul, vl), (&ur, vr)] {
                    let Some(out) = out else { continue };
                    let mut j = 0;
                    while j < n {
                        let col = |c: usize| &packed[c * n..(c + 1) * n];
                        if im[j] != <$r>::zero() && j + 1 < n {
                            for i in 0..n {
                                let (x, y) = (col(j)[i], col(j + 1)[i]);
                                out[i + j * n] = Complex::new(x, y);
                                out[i + (j + 1) * n] = Complex::new(x, -y);
                            }
                            j += 2;
                        } else {
                            for i in 0..n {
                                out[i + j * n] = Complex::new(col(j)[i], <$r>::zero());
                            }
                            j += 1;
                        }
                    }
                }
                ok
            }
        }
    };
}
real_geev!(f32);
real_geev!(f64);

macro_rules! complex_geev {
    ($r:ty) => {
        impl Geev for Complex<$r> {
            fn faer_evd(
                n: usize,
                a: &[Self],
                w: &mut [Self],
                vl: Option<&mut [Self]>,
                vr: Option<&mut [Self]>,
            ) -> bool {
                let (cl, cr) = evd_params(vl.is_some(), vr.is_some());
                let mut buf = scratch(evd::evd_scratch::<Self>(n, cl, cr, PAR, Default::default()));
                evd::evd_cplx(
                    MatRef::from_column_major_slice(a, n, n),
                    ColMut::from_slice_mut(w).as_diagonal_mut(),
                    vl.map(|v| MatMut::from_column_major_slice_mut(v, n, n)),
                    vr.map(|v| MatMut::from_column_major_slice_mut(v, n, n)),
                    PAR,
                    MemStack::new(&mut buf),
                    Default::default(),
                )
                .is_ok()
            }
        }
    };
}
complex_geev!(f32);
complex_geev!(f64);

/// Eigenvalues `w` and, as asked, left (`u^H A = w u^H`) and right
/// (`A v = w v`) eigenvectors of the general `n x n` matrix `a` (LAPACK
/// `geev`), by faer's Hessenberg reduction and Schur decomposition. Results
/// are complex for every input type (jaxlib's interface). Each vector is
/// normalized as LAPACK normalizes it: unit 2-norm and, when complex, its
/// component of largest modulus real and positive (LAPACK's `dgeev`
/// leaves a real eigenvalue's vector with faer's sign). `vl`/`vr` are
/// zeroed when not asked for. Returns `info`: 0, or 1 if faer's iteration
/// did not converge.
pub fn geev<T: Geev>(
    n: usize,
    a: &[T],
    w: &mut [T::Cplx],
    vl: Option<&mut [T::Cplx]>,
    vr: Option<&mut [T::Cplx]>,
) -> i32 {
    if n == 0 {
        return 0;
    }
    let (mut vl, mut vr) = (vl, vr);
    let ok = T::faer_evd(n, a, w, vl.as_deref_mut(), vr.as_deref_mut());
    for v in [vl, vr].into_iter().flatten() {
        for j in 0..n {
            normalize_eigenvector(
                &mut v[j * n..(j + 1) * n],
                T::COMPLEX || w[j].im() != T::Re::zero(),
            );
        }
    }
    if ok {
        0
    } else {
        1
    }
}

/// LAPACK's eigenvector normalization: unit 2-norm, then (`rotate`) the
/// first component of largest modulus made real and positive.
fn normalize_eigenvector<C: Field>(v: &mut [C], rotate: bool) {
    let norm = v.iter().fold(C::Re::zero(), |s, x| s.hypot(x.modulus()));
    if norm == C::Re::zero() || !norm.is_finite() {
        return;
    }
    let r = C::from_re(C::Re::one() / norm);
    v.iter_mut().for_each(|x| *x *= r);
    if rotate {
        let mut k = 0;
        let mut best = C::Re::zero();
        for (i, x) in v.iter().enumerate() {
            let m = x.re() * x.re() + x.im() * x.im();
            if m > best {
                best = m;
                k = i;
            }
        }
        let p = v[k].conj() / C::from_re(v[k].modulus());
        v.iter_mut().for_each(|x| *x *= p);
        // Exactly real, as LAPACK sets it.
        v[k] = C::from_re(v[k].re());
    }
}

/// Each routine against the unblocked LAPACK-style code of
/// [`crate::linalg`] (itself checked against LAPACK's known outputs
/// there), on sizes that reach faer's blocked paths: pivots and `info`
/// exactly, factors to rounding.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Field;
    use crate::test_util::{every_triangular, lcg, matmul, one_triangle, shifted, transpose};

    /// `a` and `b` (f64 or c128) agree to `tol` relative to `b`'s largest.
    fn close<T: Field<Re = f64>>(a: &[T], b: &[T], tol: f64, what: &str) {
        assert_eq!(a.len(), b.len(), "{what}");
        let scale = b.iter().fold(1.0f64, |m, v| m.max(v.modulus()));
        for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
            assert!(
                (x - y).modulus() <= tol * scale,
                "{what}: element {i}: {x:?} vs {y:?}"
            );
        }
    }

    fn spd(n: usize, seed: u64) -> Vec<f64> {
        let r = lcg(n * n, seed);
        let mut a = matmul(n, n, n, &r, &transpose(n, n, &r));
        (0..n).for_each(|i| a[i + i * n] += n as f64);
        a
    }

    const SHAPES: &[(usize, usize)] = &[
        (1, 1),
        (3, 2),
        (2, 3),
        (17, 17),
        (130, 90),
        (90, 130),
        (160, 160),
    ];

    #[test]
    fn getrf_matches_unblocked_pivots_and_factors() {
        for &(m, n) in SHAPES {
            let a0 = lcg(m * n, (m * 31 + n) as u64);
            let k = m.min(n);
            let (mut a, mut p) = (a0.clone(), vec![0; k]);
            let (mut b, mut q) = (a0.clone(), vec![0; k]);
            assert_eq!(getrf(m, n, &mut a, &mut p), 0);
            assert_eq!(linalg::getrf(m, n, &mut b, &mut q), 0);
            assert_eq!(p, q, "{m}x{n} pivots");
            close(&a, &b, 1e-10, &format!("{m}x{n} LU"));
        }
        // Exactly singular: info names the first zero pivot, no NaNs (the
        // unblocked fallback, as LAPACK leaves it).
        let n = 70;
        let mut a = lcg(n * n, 5);
        let c0 = a[..n].to_vec();
        a[3 * n..4 * n].copy_from_slice(&c0);
        a[..n].iter_mut().for_each(|v| *v = 0.0);
        let mut ipiv = vec![0; n];
        assert_eq!(getrf(n, n, &mut a, &mut ipiv), 1);
        assert!(a.iter().all(|v| v.is_finite()));
    }

    /// The threaded paths (taken from [`GETRF_THREADS_FROM`],
    /// [`TRSM_THREADS_FROM`] and [`POTRF_THREADS_FROM`] up, too large for a
    /// debug-build test) forced
    /// on smaller matrices: the same pivots and, within rounding, the same
    /// factors and solutions as the unblocked code.
    #[test]
    fn threaded_getrf_trsm_and_potrf_match_unblocked() {
        let p = Par::rayon(2);
        for (m, n) in [(300, 300), (257, 190)] {
            let a0 = lcg(m * n, (m + n) as u64);
            let k = m.min(n);
            let (mut a, mut ip) = (a0.clone(), vec![0; k]);
            let (mut b, mut iq) = (a0, vec![0; k]);
            assert_eq!(getrf_with(p, m, n, &mut a, &mut ip), 0);
            assert_eq!(linalg::getrf(m, n, &mut b, &mut iq), 0);
            assert_eq!(ip, iq, "{m}x{n} pivots");
            close(&a, &b, 1e-10, &format!("threaded {m}x{n} LU"));
        }
        let k = 260;
        let a = shifted(k, 4, 30.0);
        for (bits, t) in every_triangular() {
            let (m, n) = if t.left { (k, 70) } else { (70, k) };
            let b0 = lcg(m * n, 19 + bits);
            let (mut x, mut y) = (b0.clone(), b0);
            trsm_split(p, 1, t, m, n, &a, &mut x);
            linalg::trsm(t, m, n, &a, &mut y);
            close(&x, &y, 1e-10, &format!("threaded trsm {t:?}"));
        }
        assert!(matches!(threads_from(GETRF_THREADS_FROM, 512), Par::Seq));
        for lower in [true, false] {
            let n = 300;
            let a0 = spd(n, 5);
            let (mut a, mut b) = (a0.clone(), a0);
            assert_eq!(potrf_with(p, lower, n, &mut a), 0);
            assert_eq!(linalg::potrf(lower, n, &mut b), 0);
            close(&a, &b, 1e-10, &format!("threaded potrf lower={lower}"));
        }
        let mut bad = spd(300, 7);
        bad[200 + 200 * 300] = -1e6;
        let mut bad2 = bad.clone();
        assert_eq!(
            potrf_with(p, true, 300, &mut bad),
            linalg::potrf(true, 300, &mut bad2)
        );
    }

    #[test]
    fn potrf_matches_unblocked_both_triangles() {
        for n in [1, 5, 64, 150] {
            let a0 = spd(n, n as u64);
            for lower in [true, false] {
                let (mut a, mut b) = (a0.clone(), a0.clone());
                // The triangle that is not read must stay as it was.
                for j in 0..n {
                    for i in 0..n {
                        if (i > j && !lower) || (i < j && lower) {
                            a[i + j * n] = 7.0;
                            b[i + j * n] = 7.0;
                        }
                    }
                }
                assert_eq!(potrf(lower, n, &mut a), 0);
                assert_eq!(linalg::potrf(lower, n, &mut b), 0);
                close(&a, &b, 1e-10, &format!("potrf {n} lower={lower}"));
            }
        }
        let mut bad = spd(100, 3);
        bad[60 + 60 * 100] = -1e6;
        let mut bad2 = bad.clone();
        assert_eq!(
            potrf(true, 100, &mut bad),
            linalg::potrf(true, 100, &mut bad2)
        );
        assert_ne!(linalg::potrf(true, 100, &mut spd(100, 3).clone()), 1);
    }

    /// Right-hand sides split over threads (two and three groups, uneven):
    /// every variant gives the unblocked solution, and the split is only
    /// taken where it pays.
    #[test]
    fn trsm_split_by_right_hand_sides_matches_unblocked() {
        let k = 140;
        let a = shifted(k, 6, 20.0);
        for pieces in [2, 3] {
            for (bits, p) in every_triangular() {
                let (m, n) = if p.left { (k, 37) } else { (37, k) };
                let b0 = lcg(m * n, 29 + bits);
                let (mut x, mut y) = (b0.clone(), b0);
                trsm_split(Par::Seq, pieces, p, m, n, &a, &mut x);
                linalg::trsm(p, m, n, &a, &mut y);
                close(&x, &y, 1e-10, &format!("trsm {p:?} in {pieces} groups"));
            }
        }
        assert_eq!(rhs_pieces(512, 64, 2), 2);
        assert_eq!(rhs_pieces(512, 64, 16), 4);
        assert_eq!(rhs_pieces(512, 1, 2), 1);
        assert_eq!(rhs_pieces(64, 64, 2), 1);
    }

    #[test]
    fn trsm_every_variant_matches_unblocked() {
        let k = 70;
        let a = shifted(k, 3, 8.0);
        for (bits, p) in every_triangular() {
            let (m, n) = if p.left { (k, 40) } else { (40, k) };
            let b0 = lcg(m * n, 9 + bits);
            let (mut x, mut y) = (b0.clone(), b0);
            trsm(p, m, n, &a, &mut x);
            linalg::trsm(p, m, n, &a, &mut y);
            close(&x, &y, 1e-10, &format!("trsm {p:?}"));
        }
    }

    #[test]
    fn geqrf_orgqr_match_unblocked() {
        for &(m, n) in SHAPES {
            let a0 = lcg(m * n, (m * 7 + n) as u64);
            let k = m.min(n);
            let (mut a, mut ta) = (a0.clone(), vec![0.0; k]);
            let (mut b, mut tb) = (a0.clone(), vec![0.0; k]);
            geqrf(m, n, &mut a, &mut ta);
            linalg::geqrf(m, n, &mut b, &mut tb);
            close(&a, &b, 1e-10, &format!("{m}x{n} packed QR"));
            close(&ta, &tb, 1e-10, &format!("{m}x{n} tau"));
            // Q, thin and (for tall) complete.
            for cols in [k, m] {
                if cols < k {
                    continue;
                }
                let mut qa = vec![0.0; m * cols];
                qa[..m * k].copy_from_slice(&a[..m * k]);
                let mut qb = qa.clone();
                orgqr(m, cols, k, &mut qa, &ta);
                linalg::orgqr(m, cols, k, &mut qb, &tb);
                close(&qa, &qb, 1e-10, &format!("{m}x{n} Q with {cols} columns"));
            }
        }
        // Rank deficient (a zero column): the unblocked fallback.
        let (m, n) = (60, 40);
        let mut a = lcg(m * n, 4);
        a[5 * m..6 * m].iter_mut().for_each(|v| *v = 0.0);
        let mut b = a.clone();
        let (mut ta, mut tb) = (vec![0.0; n], vec![0.0; n]);
        geqrf(m, n, &mut a, &mut ta);
        linalg::geqrf(m, n, &mut b, &mut tb);
        assert_eq!(a, b);
        assert_eq!(ta, tb);
    }

    #[test]
    fn syevd_matches_unblocked_values_and_reconstructs() {
        for n in [1, 6, 40, 130] {
            let s0 = spd(n, 11 + n as u64);
            // Shift so that some eigenvalues are negative.
            let sym: Vec<f64> = (0..n * n)
                .map(|x| {
                    if x % (n + 1) == 0 {
                        s0[x] - 1.5 * n as f64
                    } else {
                        s0[x]
                    }
                })
                .collect();
            for lower in [true, false] {
                let mut a = one_triangle(n, &sym, lower);
                let mut b = a.clone();
                let (mut w, mut wb, mut wn) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                let mut values_only = a.clone();
                assert_eq!(syevd(lower, false, n, &mut values_only, &mut wn), 0);
                assert_eq!(syevd(lower, true, n, &mut a, &mut w), 0);
                assert_eq!(linalg::syevd(lower, false, n, &mut b, &mut wb), 0);
                close(&w, &wb, 1e-10, "eigenvalues");
                close(&wn, &wb, 1e-10, "eigenvalues, mode N");
                let vw: Vec<f64> = (0..n * n).map(|x| a[x] * w[x / n]).collect();
                let back = matmul(n, n, n, &vw, &transpose(n, n, &a));
                close(&back, &sym, 1e-10, "V diag(w) V^T");
            }
        }
    }

    #[test]
    fn gesvd_matches_unblocked_values_and_reconstructs() {
        for &(m, n) in SHAPES {
            let a = lcg(m * n, (m * 3 + n) as u64);
            let k = m.min(n);
            let mut sb = vec![0.0; k];
            assert_eq!(
                linalg::gesvd(SvdJob::None, m, n, &a, &mut sb, &mut [], &mut []),
                0
            );
            let mut sn = vec![0.0; k];
            assert_eq!(gesvd(SvdJob::None, m, n, &a, &mut sn, &mut [], &mut []), 0);
            close(&sn, &sb, 1e-10, "singular values, mode N");
            for job in [SvdJob::Thin, SvdJob::Full] {
                let (uc, vr) = if job == SvdJob::Full { (m, n) } else { (k, k) };
                let (mut s, mut u, mut vt) = (vec![0.0; k], vec![0.0; m * uc], vec![0.0; vr * n]);
                assert_eq!(gesvd(job, m, n, &a, &mut s, &mut u, &mut vt), 0);
                close(&s, &sb, 1e-10, "singular values");
                let utu = matmul(uc, m, uc, &transpose(m, uc, &u), &u);
                let eye = |d: usize| -> Vec<f64> {
                    (0..d * d)
                        .map(|x| if x % (d + 1) == 0 { 1.0 } else { 0.0 })
                        .collect()
                };
                close(&utu, &eye(uc), 1e-10, "U^T U");
                let vvt = matmul(vr, n, vr, &vt, &transpose(vr, n, &vt));
                close(&vvt, &eye(vr), 1e-10, "V^T V");
                let us: Vec<f64> = (0..m * k).map(|x| u[x] * s[x / m]).collect();
                let vtk: Vec<f64> = (0..k * n).map(|x| vt[x % k + (x / k) * vr]).collect();
                close(&matmul(m, k, n, &us, &vtk), &a, 1e-10, "U S V^T");
            }
        }
    }

    // ---- complex (c/z) and geev ---------------------------------------

    type Z = num_complex::Complex64;

    fn zlcg(len: usize, seed: u64) -> Vec<Z> {
        let (re, im) = (lcg(len, seed), lcg(len, seed + 1000));
        re.iter().zip(&im).map(|(&r, &i)| Z::new(r, i)).collect()
    }

    fn zmatmul(m: usize, k: usize, n: usize, a: &[Z], b: &[Z]) -> Vec<Z> {
        let mut c = vec![Z::zero(); m * n];
        for j in 0..n {
            for p in 0..k {
                for i in 0..m {
                    c[i + j * m] += a[i + p * m] * b[p + j * k];
                }
            }
        }
        c
    }

    /// `a^H` of an `m x n` matrix.
    fn adjoint(m: usize, n: usize, a: &[Z]) -> Vec<Z> {
        (0..m * n).map(|x| a[x / n + (x % n) * m].conj()).collect()
    }

    fn zeye(n: usize) -> Vec<Z> {
        (0..n * n)
            .map(|x| {
                if x % (n + 1) == 0 {
                    Z::one()
                } else {
                    Z::zero()
                }
            })
            .collect()
    }

    fn hermitian_pd(n: usize, seed: u64) -> Vec<Z> {
        let r = zlcg(n * n, seed);
        let mut a = zmatmul(n, n, n, &r, &adjoint(n, n, &r));
        (0..n).for_each(|i| a[i + i * n] = Z::new(a[i + i * n].re + n as f64, 0.0));
        a
    }

    #[test]
    fn complex_lu_pivots_by_cabs1_as_lapack_and_matches_unblocked() {
        // zgetrf of [[3, 1], [2+2i, i]]: |2+2i| < 3 but |re| + |im| = 4 > 3,
        // so LAPACK pivots on row 2 (values from LAPACK).
        let mut a = vec![
            Z::new(3.0, 0.0),
            Z::new(2.0, 2.0),
            Z::one(),
            Z::new(0.0, 1.0),
        ];
        let mut ipiv = [0; 2];
        assert_eq!(getrf(2, 2, &mut a, &mut ipiv), 0);
        assert_eq!(ipiv, [2, 2]);
        let want = [
            Z::new(2.0, 2.0),
            Z::new(0.75, -0.75),
            Z::new(0.0, 1.0),
            Z::new(0.25, -0.75),
        ];
        close(&a, &want, 1e-14, "zgetrf 2x2");
        for &(m, n) in SHAPES {
            let a0 = zlcg(m * n, (m * 13 + n) as u64);
            let k = m.min(n);
            let (mut a, mut p) = (a0.clone(), vec![0; k]);
            let (mut b, mut q) = (a0, vec![0; k]);
            assert_eq!(getrf(m, n, &mut a, &mut p), 0);
            assert_eq!(linalg::getrf(m, n, &mut b, &mut q), 0);
            assert_eq!(p, q, "{m}x{n} pivots");
            close(&a, &b, 1e-10, &format!("{m}x{n} complex LU"));
        }
    }

    #[test]
    fn complex_cholesky_both_triangles_reconstructs() {
        for n in [1, 5, 70] {
            let a0 = hermitian_pd(n, 40 + n as u64);
            for lower in [true, false] {
                let mut a = a0.clone();
                assert_eq!(potrf(lower, n, &mut a), 0);
                // The factor's triangle, the other one zeroed.
                let f: Vec<Z> = (0..n * n)
                    .map(|x| {
                        let (i, j) = (x % n, x / n);
                        if (i >= j) == lower || i == j {
                            a[x]
                        } else {
                            Z::zero()
                        }
                    })
                    .collect();
                // A = L L^H, or U^H U.
                let back = if lower {
                    zmatmul(n, n, n, &f, &adjoint(n, n, &f))
                } else {
                    zmatmul(n, n, n, &adjoint(n, n, &f), &f)
                };
                close(&back, &a0, 1e-10, &format!("cholesky {n} lower={lower}"));
            }
        }
        let mut bad = hermitian_pd(10, 3);
        bad[4 + 4 * 10] = Z::new(-1e6, 0.0);
        assert_eq!(potrf(true, 10, &mut bad), 5);
    }

    #[test]
    fn complex_trsm_every_variant_including_conjugate_matches_unblocked() {
        let k = 70;
        let mut a = zlcg(k * k, 3);
        (0..k).for_each(|i| a[i + i * k] += Z::new(8.0, 1.0));
        for (bits, p) in every_triangular() {
            for conjugate in [false, true] {
                let p = Triangular { conjugate, ..p };
                let (m, n) = if p.left { (k, 40) } else { (40, k) };
                let b0 = zlcg(m * n, 9 + bits);
                let (mut x, mut y) = (b0.clone(), b0.clone());
                trsm(p, m, n, &a, &mut x);
                linalg::trsm(p, m, n, &a, &mut y);
                close(&x, &y, 1e-10, &format!("complex trsm {p:?}"));
                // And it solves: op(A) X = B (left) with op = A^H for 'C'.
                if p.left && p.transpose && p.conjugate && !p.unit {
                    let tri: Vec<Z> = (0..k * k)
                        .map(|x| {
                            let (i, j) = (x % k, x / k);
                            if (i >= j) == p.lower || i == j {
                                a[x]
                            } else {
                                Z::zero()
                            }
                        })
                        .collect();
                    let back = zmatmul(m, m, n, &adjoint(k, k, &tri), &x);
                    close(&back, &b0, 1e-10, "A^H X = B");
                }
            }
        }
    }

    #[test]
    fn complex_qr_has_lapacks_reflectors_and_reconstructs() {
        // zgeqrf of a 3x2 matrix (values from LAPACK): real diagonal of R,
        // complex tau.
        let mut a = vec![
            Z::new(1.0, 2.0),
            Z::new(0.5, 0.0),
            Z::new(4.0, -3.0),
            Z::new(3.0, -1.0),
            Z::new(-2.0, 1.0),
            Z::new(1.0, 1.0),
        ];
        let mut tau = vec![Z::zero(); 2];
        geqrf(3, 2, &mut a, &mut tau);
        let want = [
            Z::new(-5.5, 0.0),
            Z::new(0.07027027027027027, -0.021621621621621623),
            Z::new(0.43243243243243246, -0.5945945945945946),
            Z::new(-0.18181818181818166, -0.09090909090909105),
            Z::new(4.118091510147681, 0.0),
            Z::new(0.06497151509607088, -0.5079735736260954),
        ];
        close(&a, &want, 1e-12, "zgeqrf packed");
        let want_tau = [
            Z::new(1.1818181818181819, 0.36363636363636365),
            Z::new(1.5351826685979029, -0.2750492867599033),
        ];
        close(&tau, &want_tau, 1e-12, "zgeqrf tau");
        for &(m, n) in SHAPES {
            let a0 = zlcg(m * n, (m * 5 + n) as u64);
            let k = m.min(n);
            let (mut a, mut tau) = (a0.clone(), vec![Z::zero(); k]);
            geqrf(m, n, &mut a, &mut tau);
            let r: Vec<Z> = (0..k * n)
                .map(|x| {
                    if x % k <= x / k {
                        a[x % k + (x / k) * m]
                    } else {
                        Z::zero()
                    }
                })
                .collect();
            (0..k).for_each(|j| assert_eq!(r[j + j * k].im, 0.0, "R's diagonal is real"));
            let mut q = a[..m * k].to_vec();
            orgqr(m, k, k, &mut q, &tau);
            close(
                &zmatmul(k, m, k, &adjoint(m, k, &q), &q),
                &zeye(k),
                1e-10,
                "Q^H Q",
            );
            close(
                &zmatmul(m, k, n, &q, &r),
                &a0,
                1e-10,
                &format!("{m}x{n} Q R"),
            );
        }
    }

    #[test]
    fn complex_heevd_and_svd_reconstruct() {
        for n in [1, 6, 40] {
            let h0 = zlcg(n * n, 70 + n as u64);
            let h: Vec<Z> = (0..n * n)
                .map(|x| h0[x] + h0[x / n + (x % n) * n].conj())
                .collect();
            for lower in [true, false] {
                // The unread triangle is garbage.
                let mut a: Vec<Z> = (0..n * n)
                    .map(|x| {
                        let (i, j) = (x % n, x / n);
                        if (i >= j) == lower || i == j {
                            h[x]
                        } else {
                            Z::new(f64::NAN, 0.0)
                        }
                    })
                    .collect();
                let mut w = vec![0.0; n];
                let (mut values_only, mut wn) = (a.clone(), vec![0.0; n]);
                assert_eq!(syevd(lower, false, n, &mut values_only, &mut wn), 0);
                assert_eq!(syevd(lower, true, n, &mut a, &mut w), 0);
                assert!(w.windows(2).all(|p| p[0] <= p[1]), "ascending");
                close(&wn, &w, 1e-10, "eigenvalues, mode N");
                let vw: Vec<Z> = (0..n * n).map(|x| a[x] * w[x / n]).collect();
                close(
                    &zmatmul(n, n, n, &vw, &adjoint(n, n, &a)),
                    &h,
                    1e-10,
                    "V diag(w) V^H",
                );
            }
        }
        for &(m, n) in SHAPES {
            let a = zlcg(m * n, (m * 11 + n) as u64);
            let k = m.min(n);
            let (mut s, mut u, mut vt) =
                (vec![0.0; k], vec![Z::zero(); m * k], vec![Z::zero(); k * n]);
            assert_eq!(gesvd(SvdJob::Thin, m, n, &a, &mut s, &mut u, &mut vt), 0);
            assert!(s.windows(2).all(|p| p[0] >= p[1]), "descending");
            let us: Vec<Z> = (0..m * k).map(|x| u[x] * s[x / m]).collect();
            close(
                &zmatmul(m, k, n, &us, &vt),
                &a,
                1e-10,
                &format!("{m}x{n} U S V^H"),
            );
        }
    }

    /// Values only (faer's bidiagonalization and dqds) against the values
    /// of the full SVD (faer's QR iteration / divide and conquer): square,
    /// wide, and tall enough for the QR factorization first; complex; f32;
    /// rank deficient (a repeated column: one value zero); all zeros; and a
    /// NaN (`info` 1).
    #[test]
    fn singular_values_only_match_the_full_svd() {
        let shapes = [
            (1, 1),
            (2, 3),
            (17, 17),
            (128, 128),
            (90, 130),
            (300, 40),
            (40, 300),
            (200, 120),
        ];
        for &(m, n) in &shapes {
            let k = m.min(n);
            let full = |a: &[f64]| {
                let (mut s, mut u, mut vt) = (vec![0.0; k], vec![0.0; m * k], vec![0.0; k * n]);
                assert_eq!(gesvd(SvdJob::Thin, m, n, a, &mut s, &mut u, &mut vt), 0);
                s
            };
            let mut a = lcg(m * n, (m * 7 + n) as u64);
            let mut s = vec![0.0; k];
            assert_eq!(gesvd(SvdJob::None, m, n, &a, &mut s, &mut [], &mut []), 0);
            close(
                &s,
                &full(&a),
                1e-12 * s[0].max(1.0),
                &format!("{m}x{n} values"),
            );
            // f32: to f32's precision.
            let a32: Vec<f32> = a.iter().map(|&x| x as f32).collect();
            let mut s32 = vec![0.0f32; k];
            assert_eq!(
                gesvd(SvdJob::None, m, n, &a32, &mut s32, &mut [], &mut []),
                0
            );
            let a64: Vec<f64> = a32.iter().map(|&x| x as f64).collect();
            for (x, y) in s32.iter().zip(full(&a64)) {
                assert!(
                    (*x as f64 - y).abs() <= 1e-5 * s[0],
                    "{m}x{n} f32: {x} against {y}"
                );
            }
            // Complex: against the full complex SVD.
            let z = zlcg(m * n, (m * 5 + n) as u64);
            let (mut zs, mut zu, mut zvt) =
                (vec![0.0; k], vec![Z::zero(); m * k], vec![Z::zero(); k * n]);
            assert_eq!(gesvd(SvdJob::Thin, m, n, &z, &mut zs, &mut zu, &mut zvt), 0);
            let mut zn = vec![0.0; k];
            assert_eq!(gesvd(SvdJob::None, m, n, &z, &mut zn, &mut [], &mut []), 0);
            close(
                &zn,
                &zs,
                1e-12 * zs[0].max(1.0),
                &format!("{m}x{n} complex values"),
            );
            if n >= 2 && m >= n {
                // Column 1 := column 0: rank k - 1 at most, the last value 0.
                let (c0, c1) = a.split_at_mut(m);
                c1[..m].copy_from_slice(c0);
                assert_eq!(gesvd(SvdJob::None, m, n, &a, &mut s, &mut [], &mut []), 0);
                close(
                    &s,
                    &full(&a),
                    1e-12 * s[0],
                    &format!("{m}x{n} rank deficient"),
                );
                assert!(
                    s[k - 1].abs() <= 1e-13 * s[0],
                    "{m}x{n}: smallest value {}",
                    s[k - 1]
                );
            }
            let zero = vec![0.0; m * n];
            assert_eq!(
                gesvd(SvdJob::None, m, n, &zero, &mut s, &mut [], &mut []),
                0
            );
            assert!(s.iter().all(|&x| x == 0.0));
            let mut nan = lcg(m * n, 1);
            nan[m * n / 2] = f64::NAN;
            assert_eq!(gesvd(SvdJob::None, m, n, &nan, &mut s, &mut [], &mut []), 1);
        }
    }

    /// `A v = w v`, `u^H A = w u^H`, unit norms, largest component real.
    fn check_geev<T: Geev>(n: usize, a: &[T]) {
        let ac: Vec<T::Cplx> = a.iter().map(|x| x.to_cplx()).collect();
        let mut w = vec![T::Cplx::zero(); n];
        let (mut vl, mut vr) = (vec![T::Cplx::zero(); n * n], vec![T::Cplx::zero(); n * n]);
        assert_eq!(geev(n, a, &mut w, Some(&mut vl), Some(&mut vr)), 0);
        let eps = if std::mem::size_of::<T::Re>() == 4 {
            1e-3
        } else {
            1e-9
        };
        let scale = ac.iter().fold(1.0, |m: f64, x| {
            m.max(num_traits::cast::<_, f64>(x.modulus()).unwrap_or(1.0))
        });
        let f = |x: T::Re| num_traits::cast::<_, f64>(x).unwrap_or(f64::NAN);
        for j in 0..n {
            for (v, left) in [(&vr, false), (&vl, true)] {
                let col = &v[j * n..(j + 1) * n];
                let norm: f64 = col
                    .iter()
                    .map(|x| f(x.modulus()).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!((norm - 1.0).abs() < eps, "unit norm, vector {j}");
                let big = col.iter().map(|x| f(x.modulus())).fold(0.0, f64::max);
                let k = col.iter().position(|x| f(x.modulus()) == big).unwrap_or(0);
                assert_eq!(f(col[k].im()), 0.0, "largest component real");
                for i in 0..n {
                    // (A v)_i - w v_i, or (u^H A)_i - w conj(u_i).
                    let mut r = T::Cplx::zero();
                    for p in 0..n {
                        r += if left {
                            col[p].conj() * ac[p + i * n]
                        } else {
                            ac[i + p * n] * col[p]
                        };
                    }
                    r -= w[j] * if left { col[i].conj() } else { col[i] };
                    assert!(
                        f(r.modulus()) < eps * scale * n as f64,
                        "residual {j},{i} left={left}"
                    );
                }
            }
        }
        // Values only: the same eigenvalues.
        let mut w2 = vec![T::Cplx::zero(); n];
        assert_eq!(geev(n, a, &mut w2, None, None), 0);
        for (x, y) in w.iter().zip(&w2) {
            assert!(f((*x - *y).modulus()) < eps * scale, "eigvals");
        }
    }

    #[test]
    fn geev_on_every_type_satisfies_both_eigen_equations() {
        for n in [1, 2, 7, 40] {
            let a = lcg(n * n, 90 + n as u64);
            check_geev::<f64>(n, &a);
            check_geev::<f32>(n, &a.iter().map(|&x| x as f32).collect::<Vec<_>>());
            let z = zlcg(n * n, 91 + n as u64);
            check_geev::<Z>(n, &z);
            let c: Vec<num_complex::Complex32> = z
                .iter()
                .map(|x| num_complex::Complex32::new(x.re as f32, x.im as f32))
                .collect();
            check_geev::<num_complex::Complex32>(n, &c);
        }
        // A rotation: eigenvalues +-i, a complex pair from a real matrix.
        let mut w = vec![Z::zero(); 2];
        assert_eq!(
            geev::<f64>(2, &[0.0, 1.0, -1.0, 0.0], &mut w, None, None),
            0
        );
        let mut ims: Vec<f64> = w.iter().map(|x| x.im).collect();
        ims.sort_by(f64::total_cmp);
        assert_eq!(ims, [-1.0, 1.0]);
    }
}
