//! The `lapack_?xxx_ffi` handlers: the typed-FFI interface of jaxlib's CPU
//! LAPACK kernels (arguments, results and attributes in jaxlib's order),
//! with [`crate::blocked`] (faer) and [`crate::linalg`] doing the math.
//! Every handler is generic over the element type ([`Field`]), so one
//! function serves the `s`, `d`, `c` and `z` targets of a routine.
//!
//! Conventions, all jaxlib's: every matrix operand is `[batch..., rows,
//! cols]` with a column-major layout for the last two dimensions (JAX puts
//! that in `operand_layout_constraints` and the result shapes), so each
//! batch entry is one contiguous LAPACK matrix; results alias operands
//! (`output_to_operand_aliasing`), and the input is copied over when they
//! do not; pivots are 1-based; every batch entry gets an `info` (s32), which
//! JAX turns into NaNs or errors itself. Attributes are u8 characters
//! (`uplo = 76 : ui8` is `'L'`). Every handler runs with IEEE denormals
//! ([`crate::fp`]), whatever its caller's flushing mode.

use crate::blocked::{self, Geev};
use crate::field::Field;
use crate::linalg::{self, SvdJob, Triangular};
use hlox_ffi::fpenv::FpEnv;
use hlox_ffi::xla_ffi::{FfiElement, FfiError, Frame, FrameError};
use num_traits::Zero;
use thiserror::Error;

/// Why a LAPACK handler refused its call frame (it becomes the
/// `XLA_FFI_Error` message, through [`FfiError`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LapackError {
    /// A buffer, attribute or API call of the frame.
    #[error(transparent)]
    Frame(#[from] FrameError),
    #[error("{what} must have at least 2 dimensions (a matrix), has shape {dims:?}")]
    NotAMatrix { what: &'static str, dims: Vec<i64> },
    #[error("argument {arg} has element type code {code}, not {expected}")]
    ArgumentType {
        arg: usize,
        code: i32,
        expected: &'static str,
    },
    #[error("argument {arg} has shape {arg_dims:?} but result {ret} has shape {ret_dims:?}")]
    AliasShape {
        arg: usize,
        arg_dims: Vec<i64>,
        ret: usize,
        ret_dims: Vec<i64>,
    },
    #[error("argument {arg} has no data")]
    NoData { arg: usize },
    #[error("result {index} ({what}) has {found} elements, expected {expected}")]
    ResultLength {
        index: usize,
        what: &'static str,
        found: usize,
        expected: usize,
    },
    #[error(
        "attribute `{name}` is '{}' ({value}); expected one of {}",
        (*.value as char).escape_default(),
        char_list(.allowed)
    )]
    Character {
        name: String,
        value: u8,
        allowed: Vec<u8>,
    },
    #[error(
        "a has shape {a:?}; for b of shape {b:?} solving from the {} it must be [{batch} batch, {k}, {k}]",
        if *.left { "left" } else { "right" }
    )]
    TrsmShape {
        a: Vec<i64>,
        b: Vec<i64>,
        left: bool,
        batch: usize,
        k: usize,
    },
    #[error("alpha is empty")]
    EmptyAlpha,
    #[error("the result aliases `a`; only `b` may be updated in place")]
    ResultAliasesA,
    #[error("a must be square, is {m} x {n}")]
    NotSquare { m: usize, n: usize },
    #[error("gees: sorting the eigenvalues (sort = 'S') is not supported; JAX does not emit it")]
    GeesSort,
    #[error("gehrd: low = {low}, high = {high} is not a 1-based range 1 <= low <= high <= n for n = {n}")]
    HessenbergRange { low: i32, high: i32, n: usize },
    /// `jpvt` or a `gtsv` diagonal without one entry per column and matrix.
    #[error("{what} has shape {dims:?}, expected {batch} x {n} entries")]
    EntryCount {
        what: &'static str,
        dims: Vec<i64>,
        batch: usize,
        n: usize,
    },
    #[error("a has shape {a:?} and tau {tau:?}: need tau [batch, k] with k <= cols <= rows")]
    OrgqrShape { a: Vec<i64>, tau: Vec<i64> },
    #[error("mode 'O' (U written over a) is not supported by hlox; JAX does not emit it")]
    SvdModeO,
    #[error(
        "u is {} x {} and vt {} x {}; mode '{mode}' needs {} x {} and {} x {}",
        .u.0, .u.1, .vt.0, .vt.1, .want_u.0, .want_u.1, .want_vt.0, .want_vt.1
    )]
    SvdShapes {
        u: (usize, usize),
        vt: (usize, usize),
        mode: char,
        want_u: (usize, usize),
        want_vt: (usize, usize),
    },
}

fn char_list(allowed: &[u8]) -> String {
    let list: Vec<String> = allowed
        .iter()
        .map(|&a| format!("'{}'", a as char))
        .collect();
    list.join(", ")
}

impl From<LapackError> for FfiError {
    fn from(e: LapackError) -> Self {
        match e {
            LapackError::Frame(f) => FfiError::Frame(f),
            e => FfiError::other(e),
        }
    }
}

type Result<T, E = LapackError> = std::result::Result<T, E>;

/// `[batch..., rows, cols]` of buffer `dims` (named `what` in errors).
fn split_batch(dims: &[i64], what: &'static str) -> Result<(usize, usize, usize), LapackError> {
    if dims.len() < 2 {
        return Err(LapackError::NotAMatrix {
            what,
            dims: dims.to_vec(),
        });
    }
    let d = |x: i64| x.max(0) as usize;
    let batch = dims[..dims.len() - 2].iter().map(|&x| d(x)).product();
    Ok((batch, d(dims[dims.len() - 2]), d(dims[dims.len() - 1])))
}

/// Result `ret` holding argument `arg`'s value: the input is copied over
/// unless the two are one buffer (`output_to_operand_aliasing`). Only the
/// result is then used, so nothing reads the argument through a second
/// reference.
fn arg_into_ret<'a, T: FfiElement>(
    f: &Frame<'a>,
    arg: usize,
    ret: usize,
) -> Result<&'a mut [T], LapackError> {
    let (a, r) = (f.arg(arg)?, f.ret(ret)?);
    if a.dtype() != T::DTYPE {
        return Err(LapackError::ArgumentType {
            arg,
            code: a.dtype(),
            expected: T::NAME,
        });
    }
    if a.dims() != r.dims() {
        return Err(LapackError::AliasShape {
            arg,
            arg_dims: a.dims().to_vec(),
            ret,
            ret_dims: r.dims().to_vec(),
        });
    }
    let out = r.slice_mut::<T>()?;
    if !out.is_empty() && a.data() as *const T != out.as_ptr() {
        if a.data().is_null() {
            return Err(LapackError::NoData { arg });
        }
        // SAFETY: `a` holds `out.len()` elements of T (same type and
        // dimensions); `copy` allows the (unexpected) partial overlap.
        unsafe { std::ptr::copy(a.data() as *const T, out.as_mut_ptr(), out.len()) };
    }
    Ok(out)
}

/// Result `i` as `T`, checking its element count.
fn ret_of<'a, T: FfiElement>(
    f: &Frame<'a>,
    i: usize,
    len: usize,
    what: &'static str,
) -> Result<&'a mut [T], LapackError> {
    let r = f.ret(i)?.slice_mut::<T>()?;
    if r.len() != len {
        return Err(LapackError::ResultLength {
            index: i,
            what,
            found: r.len(),
            expected: len,
        });
    }
    Ok(r)
}

/// A u8-character attribute (`uplo`, `side`, ...), as jaxlib encodes them.
fn char_attr(f: &Frame, name: &str, allowed: &[u8]) -> Result<u8, LapackError> {
    let c: u8 = f.attr(name)?;
    if !allowed.contains(&c) {
        return Err(LapackError::Character {
            name: name.to_string(),
            value: c,
            allowed: allowed.to_vec(),
        });
    }
    Ok(c)
}

/// The `info` result of a batch: s32 with one entry per matrix.
fn info_ret<'a>(f: &Frame<'a>, i: usize, batch: usize) -> Result<&'a mut [i32], LapackError> {
    ret_of::<i32>(f, i, batch, "info")
}

/// `lapack_?trsm_ffi(a, b[, alpha]) -> x`, attributes `side`, `uplo`,
/// `trans_x`, `diag`: `op(a) x = alpha b` or `x op(a) = alpha b`. Newer JAX
/// passes no `alpha` (it is 1); older passes a scalar third argument.
/// `trans_x = 'C'` is the conjugate transpose (the transpose on `s`/`d`).
pub fn trsm<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let trans = char_attr(f, "trans_x", b"NTC")?;
    let p = Triangular {
        left: char_attr(f, "side", b"LR")? == b'L',
        lower: char_attr(f, "uplo", b"LU")? == b'L',
        transpose: trans != b'N',
        conjugate: trans == b'C',
        unit: char_attr(f, "diag", b"NU")? == b'U',
    };
    let (batch, m, n) = split_batch(f.arg(1)?.dims(), "b")?;
    let k = if p.left { m } else { n };
    let a_view = f.arg(0)?;
    let (abatch, ar, ac) = split_batch(a_view.dims(), "a")?;
    if (ar, ac) != (k, k) || abatch != batch {
        return Err(LapackError::TrsmShape {
            a: a_view.dims().to_vec(),
            b: f.arg(1)?.dims().to_vec(),
            left: p.left,
            batch,
            k,
        });
    }
    // One alpha for every matrix, or (a call vmap batched) one each.
    let alphas: Vec<T> = if f.arg_count() > 2 {
        let s = f.arg(2)?.slice::<T>()?;
        if s.is_empty() {
            return Err(LapackError::EmptyAlpha);
        }
        s.to_vec()
    } else {
        vec![T::one()]
    };
    let a = a_view.slice::<T>()?;
    let b = arg_into_ret::<T>(f, 1, 0)?;
    // `a` and `b` are distinct operands, so the result never aliases `a`.
    if !a.is_empty() && std::ptr::eq(a.as_ptr(), b.as_ptr()) {
        return Err(LapackError::ResultAliasesA);
    }
    for i in 0..batch {
        let bi = &mut b[i * m * n..(i + 1) * m * n];
        let alpha = if alphas.len() == batch {
            alphas[i]
        } else {
            alphas[0]
        };
        if alpha != T::one() {
            bi.iter_mut().for_each(|v| *v *= alpha);
        }
        blocked::trsm(p, m, n, &a[i * k * k..(i + 1) * k * k], bi);
    }
    Ok(())
}

/// `lapack_?getrf_ffi(a) -> (lu, ipiv, info)`.
pub fn getrf<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let (batch, m, n) = split_batch(f.arg(0)?.dims(), "a")?;
    let a = arg_into_ret::<T>(f, 0, 0)?;
    let k = m.min(n);
    let ipiv = ret_of::<i32>(f, 1, batch * k, "ipiv")?;
    let info = info_ret(f, 2, batch)?;
    for i in 0..batch {
        info[i] = blocked::getrf(
            m,
            n,
            &mut a[i * m * n..(i + 1) * m * n],
            &mut ipiv[i * k..(i + 1) * k],
        );
    }
    Ok(())
}

/// `lapack_?potrf_ffi(a) -> (l, info)`, attribute `uplo`.
pub fn potrf<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let lower = char_attr(f, "uplo", b"LU")? == b'L';
    let (batch, m, n) = split_batch(f.arg(0)?.dims(), "a")?;
    if m != n {
        return Err(LapackError::NotSquare { m, n });
    }
    let a = arg_into_ret::<T>(f, 0, 0)?;
    let info = info_ret(f, 1, batch)?;
    for i in 0..batch {
        info[i] = blocked::potrf(lower, n, &mut a[i * n * n..(i + 1) * n * n]);
    }
    Ok(())
}

/// `lapack_?geqrf_ffi(a) -> (qr, tau)`.
pub fn geqrf<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let (batch, m, n) = split_batch(f.arg(0)?.dims(), "a")?;
    let a = arg_into_ret::<T>(f, 0, 0)?;
    let k = m.min(n);
    let tau = ret_of::<T>(f, 1, batch * k, "tau")?;
    for i in 0..batch {
        blocked::geqrf(
            m,
            n,
            &mut a[i * m * n..(i + 1) * m * n],
            &mut tau[i * k..(i + 1) * k],
        );
    }
    Ok(())
}

/// `lapack_?geqp3_ffi(a, jpvt) -> (qr, jpvt, tau)`.
pub fn geqp3<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let (batch, m, n) = split_batch(f.arg(0)?.dims(), "a")?;
    let a = arg_into_ret::<T>(f, 0, 0)?;
    let jpvt = arg_into_ret::<i32>(f, 1, 1)?;
    if jpvt.len() != batch * n {
        return Err(LapackError::EntryCount {
            what: "jpvt",
            dims: f.arg(1)?.dims().to_vec(),
            batch,
            n,
        });
    }
    let k = m.min(n);
    let tau = ret_of::<T>(f, 2, batch * k, "tau")?;
    for i in 0..batch {
        linalg::geqp3(
            m,
            n,
            &mut a[i * m * n..(i + 1) * m * n],
            &mut jpvt[i * n..(i + 1) * n],
            &mut tau[i * k..(i + 1) * k],
        );
    }
    Ok(())
}

/// `lapack_?orgqr_ffi(a, tau) -> q` (JAX's `householder_product`; the
/// complex targets are named `lapack_?ungqr_ffi`).
pub fn orgqr<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let (batch, m, n) = split_batch(f.arg(0)?.dims(), "a")?;
    let tau_view = f.arg(1)?;
    let k = tau_view.dims().last().map_or(0, |&d| d.max(0) as usize);
    if tau_view.element_count() != batch * k || k > n || n > m {
        return Err(LapackError::OrgqrShape {
            a: f.arg(0)?.dims().to_vec(),
            tau: tau_view.dims().to_vec(),
        });
    }
    let tau = tau_view.slice::<T>()?;
    let a = arg_into_ret::<T>(f, 0, 0)?;
    for i in 0..batch {
        blocked::orgqr(
            m,
            n,
            k,
            &mut a[i * m * n..(i + 1) * m * n],
            &tau[i * k..(i + 1) * k],
        );
    }
    Ok(())
}

/// `lapack_?gehrd_ffi(a) -> (a, tau, info)`, attributes `low` and `high`
/// (LAPACK's 1-based `ilo`, `ihi`; JAX passes 1 and n): reduction to
/// upper Hessenberg form (`jax.scipy.linalg.hessenberg`), `tau` with
/// `n - 1` entries per matrix.
pub fn gehrd<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let low: i32 = f.attr("low")?;
    let high: i32 = f.attr("high")?;
    let (batch, m, n) = split_batch(f.arg(0)?.dims(), "a")?;
    if m != n {
        return Err(LapackError::NotSquare { m, n });
    }
    // LAPACK: 1 <= ilo <= max(1, n), min(ilo, n) <= ihi <= n.
    let (lo, hi) = (low as i64, high as i64);
    if lo < 1 || lo > (n as i64).max(1) || hi < lo.min(n as i64) || hi > n as i64 {
        return Err(LapackError::HessenbergRange { low, high, n });
    }
    let k = n.saturating_sub(1);
    let a = arg_into_ret::<T>(f, 0, 0)?;
    let tau = ret_of::<T>(f, 1, batch * k, "tau")?;
    let info = info_ret(f, 2, batch)?;
    for i in 0..batch {
        linalg::gehrd(
            n,
            lo as usize,
            hi as usize,
            &mut a[i * n * n..(i + 1) * n * n],
            &mut tau[i * k..(i + 1) * k],
        );
        info[i] = 0;
    }
    Ok(())
}

/// `lapack_?sytrd_ffi(a) -> (a, d, e, tau, info)` (`lapack_?hetrd_ffi`
/// on the complex types; `d` and `e` real), attribute `uplo`: reduction
/// of a symmetric (Hermitian) matrix to tridiagonal form
/// (`jax.lax.linalg.tridiagonal`).
pub fn sytrd<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let lower = char_attr(f, "uplo", b"LU")? == b'L';
    let (batch, m, n) = split_batch(f.arg(0)?.dims(), "a")?;
    if m != n {
        return Err(LapackError::NotSquare { m, n });
    }
    let k = n.saturating_sub(1);
    let a = arg_into_ret::<T>(f, 0, 0)?;
    let d = ret_of::<T::Re>(f, 1, batch * n, "d")?;
    let e = ret_of::<T::Re>(f, 2, batch * k, "e")?;
    let tau = ret_of::<T>(f, 3, batch * k, "tau")?;
    let info = info_ret(f, 4, batch)?;
    for i in 0..batch {
        linalg::sytrd(
            lower,
            n,
            &mut a[i * n * n..(i + 1) * n * n],
            &mut d[i * n..(i + 1) * n],
            &mut e[i * k..(i + 1) * k],
            &mut tau[i * k..(i + 1) * k],
        );
        info[i] = 0;
    }
    Ok(())
}

/// `lapack_?gees_ffi(a) -> (t, vs, wr, wi, sdim, info)` on the real types
/// and `(t, vs, w, sdim, info)` on the complex ones, attributes `mode`
/// (`'V'`: Schur vectors, `'N'`: none, `vs` zeroed) and `sort` (`'N'`; JAX
/// refuses sorting itself, and so does this handler): the Schur
/// decomposition (`jax.scipy.linalg.schur`, `lax.linalg.schur`). `sdim`
/// is 0 (nothing is selected without sorting).
pub fn gees<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let vectors = char_attr(f, "mode", b"VN")? == b'V';
    if char_attr(f, "sort", b"NS")? == b'S' {
        return Err(LapackError::GeesSort);
    }
    let (batch, m, n) = split_batch(f.arg(0)?.dims(), "a")?;
    if m != n {
        return Err(LapackError::NotSquare { m, n });
    }
    let a = arg_into_ret::<T>(f, 0, 0)?;
    let vs = ret_of::<T>(f, 1, batch * n * n, "vs")?;
    let (mut w, mut wr_wi) = (None, None);
    let next = if T::COMPLEX {
        w = Some(ret_of::<T>(f, 2, batch * n, "w")?);
        3
    } else {
        wr_wi = Some((
            ret_of::<T::Re>(f, 2, batch * n, "wr")?,
            ret_of::<T::Re>(f, 3, batch * n, "wi")?,
        ));
        4
    };
    let sdim = ret_of::<i32>(f, next, batch, "sdim")?;
    let info = info_ret(f, next + 1, batch)?;
    for i in 0..batch {
        let t = &mut a[i * n * n..(i + 1) * n * n];
        info[i] = linalg::gees(vectors, n, t, &mut vs[i * n * n..(i + 1) * n * n]);
        sdim[i] = 0;
        if let Some(w) = w.as_deref_mut() {
            for j in 0..n {
                w[i * n + j] = t[j * (n + 1)];
            }
        }
        if let Some((wr, wi)) = wr_wi.as_mut() {
            let (wr, wi) = (&mut wr[i * n..(i + 1) * n], &mut wi[i * n..(i + 1) * n]);
            let mut j = 0;
            while j < n {
                let d = t[j * (n + 1)].re();
                if j + 1 < n && t[j + 1 + j * n] != T::zero() {
                    // A standardized block: equal diagonal entries, the
                    // pair's imaginary parts from the off-diagonal ones.
                    let sq = |x: T| num_traits::Float::sqrt(x.modulus());
                    let im = sq(t[j + (j + 1) * n]) * sq(t[j + 1 + j * n]);
                    (wr[j], wr[j + 1]) = (d, t[(j + 1) * (n + 1)].re());
                    (wi[j], wi[j + 1]) = (im, -im);
                    j += 2;
                } else {
                    wr[j] = d;
                    wi[j] = <T::Re as num_traits::Zero>::zero();
                    j += 1;
                }
            }
        }
    }
    Ok(())
}

/// `lapack_?syevd_ffi(a) -> (v, w, info)` (`lapack_?heevd_ffi` on the
/// complex types, with real eigenvalues `w`), attributes `uplo` and `mode`
/// (`'V'` for vectors, `'N'` for values only).
pub fn syevd<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let lower = char_attr(f, "uplo", b"LU")? == b'L';
    let vectors = char_attr(f, "mode", b"VN")? == b'V';
    let (batch, m, n) = split_batch(f.arg(0)?.dims(), "a")?;
    if m != n {
        return Err(LapackError::NotSquare { m, n });
    }
    let a = arg_into_ret::<T>(f, 0, 0)?;
    let w = ret_of::<T::Re>(f, 1, batch * n, "eigenvalues")?;
    let info = info_ret(f, 2, batch)?;
    for i in 0..batch {
        info[i] = blocked::syevd(
            lower,
            vectors,
            n,
            &mut a[i * n * n..(i + 1) * n * n],
            &mut w[i * n..(i + 1) * n],
        );
    }
    Ok(())
}

/// `lapack_?gesdd_ffi` and `lapack_?gesvd_ffi(a) -> (a, s, u, vt, info)`
/// (`s` real, `vt = V^H` on the complex types),
/// attribute `mode` (`'A'` full, `'S'` thin, `'N'` values only). `u` and
/// `vt` are zero for `'N'`; `a` keeps the input (LAPACK leaves scratch
/// there, and JAX does not read it).
pub fn gesvd<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let job = match char_attr(f, "mode", b"ASNO")? {
        b'A' => SvdJob::Full,
        b'S' => SvdJob::Thin,
        b'N' => SvdJob::None,
        _ => return Err(LapackError::SvdModeO),
    };
    let (batch, m, n) = split_batch(f.arg(0)?.dims(), "a")?;
    let a = arg_into_ret::<T>(f, 0, 0)?;
    let k = m.min(n);
    let s = ret_of::<T::Re>(f, 1, batch * k, "s")?;
    let (u_view, vt_view) = (f.ret(2)?, f.ret(3)?);
    let (_, ur, uc) = split_batch(u_view.dims(), "u")?;
    let (_, vr, vc) = split_batch(vt_view.dims(), "vt")?;
    let (want_u, want_vt) = match job {
        SvdJob::Full => ((m, m), (n, n)),
        _ => ((m, k), (k, n)),
    };
    if job != SvdJob::None && ((ur, uc) != want_u || (vr, vc) != want_vt) {
        return Err(LapackError::SvdShapes {
            u: (ur, uc),
            vt: (vr, vc),
            mode: if job == SvdJob::Full { 'A' } else { 'S' },
            want_u,
            want_vt,
        });
    }
    let (usz, vsz) = (ur * uc, vr * vc);
    let u = ret_of::<T>(f, 2, batch * usz, "u")?;
    let vt = ret_of::<T>(f, 3, batch * vsz, "vt")?;
    let info = info_ret(f, 4, batch)?;
    if job == SvdJob::None {
        u.iter_mut()
            .chain(vt.iter_mut())
            .for_each(|v| *v = T::zero());
    }
    for i in 0..batch {
        let (ui, vti) = if job == SvdJob::None {
            (&mut [][..], &mut [][..])
        } else {
            (
                &mut u[i * usz..(i + 1) * usz],
                &mut vt[i * vsz..(i + 1) * vsz],
            )
        };
        info[i] = blocked::gesvd(
            job,
            m,
            n,
            &a[i * m * n..(i + 1) * m * n],
            &mut s[i * k..(i + 1) * k],
            ui,
            vti,
        );
    }
    Ok(())
}

/// `lapack_?gtsv_ffi(dl, d, du, b) -> (dl, d, du, x, info)`: `dl[0]` and
/// `du[n-1]` are ignored (JAX's convention); the first three results keep
/// the inputs (LAPACK leaves its factorization there, which JAX discards).
pub fn gtsv<T: Field>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let (batch, n, nrhs) = split_batch(f.arg(3)?.dims(), "b")?;
    let diag = |i: usize, what: &'static str| -> Result<&[T], LapackError> {
        let v = f.arg(i)?;
        if v.element_count() != batch * n {
            return Err(LapackError::EntryCount {
                what,
                dims: v.dims().to_vec(),
                batch,
                n,
            });
        }
        Ok(v.slice::<T>()?)
    };
    // Copies: results 0..3 may alias the inputs, and the solve scribbles.
    let (dl, d, du) = (
        diag(0, "dl")?.to_vec(),
        diag(1, "d")?.to_vec(),
        diag(2, "du")?.to_vec(),
    );
    for (i, v) in [(0, &dl), (1, &d), (2, &du)] {
        ret_of::<T>(f, i, batch * n, "a diagonal")?.copy_from_slice(v);
    }
    let b = arg_into_ret::<T>(f, 3, 3)?;
    let info = info_ret(f, 4, batch)?;
    for i in 0..batch {
        let r = i * n..(i + 1) * n;
        let (mut l, mut dd, mut u) = (
            dl[r.clone()].to_vec(),
            d[r.clone()].to_vec(),
            du[r].to_vec(),
        );
        let (sub, sup) = if n > 0 {
            (&mut l[1..], &mut u[..n - 1])
        } else {
            (&mut l[..], &mut u[..])
        };
        info[i] = linalg::gtsv(
            n,
            nrhs,
            sub,
            &mut dd,
            sup,
            &mut b[i * n * nrhs..(i + 1) * n * nrhs],
        );
    }
    Ok(())
}

/// `lapack_?geev_ffi(a) -> (w, vl, vr, info)` on the complex types and
/// `(wr, wi, vl, vr, info)` on the real ones (eigenvalues as real and
/// imaginary parts; the vectors are complex either way), attributes
/// `compute_left` and `compute_right` (`'V'` or `'N'`). The vectors are
/// normalized as LAPACK's (see [`blocked::geev`]); one not asked for is
/// zero. `a` is not modified (nothing aliases it).
pub fn geev<T: Geev>(f: &mut Frame) -> Result<(), LapackError> {
    let _ieee = FpEnv::ieee_denormals();
    let left = char_attr(f, "compute_left", b"VN")? == b'V';
    let right = char_attr(f, "compute_right", b"VN")? == b'V';
    let a_view = f.arg(0)?;
    let (batch, m, n) = split_batch(a_view.dims(), "a")?;
    if m != n {
        return Err(LapackError::NotSquare { m, n });
    }
    if a_view.dtype() != T::DTYPE {
        return Err(LapackError::ArgumentType {
            arg: 0,
            code: a_view.dtype(),
            expected: T::NAME,
        });
    }
    let a = a_view.slice::<T>()?;
    let first_vector = if T::COMPLEX { 1 } else { 2 };
    let vl = ret_of::<T::Cplx>(f, first_vector, batch * n * n, "vl")?;
    let vr = ret_of::<T::Cplx>(f, first_vector + 1, batch * n * n, "vr")?;
    let info = info_ret(f, first_vector + 2, batch)?;
    let mut w = vec![T::Cplx::zero(); n];
    let (mut wr, mut wi, mut wc) = if T::COMPLEX {
        (None, None, Some(ret_of::<T::Cplx>(f, 0, batch * n, "w")?))
    } else {
        (
            Some(ret_of::<T::Re>(f, 0, batch * n, "wr")?),
            Some(ret_of::<T::Re>(f, 1, batch * n, "wi")?),
            None,
        )
    };
    vl.iter_mut()
        .chain(vr.iter_mut())
        .for_each(|v| *v = T::Cplx::zero());
    for (i, info) in info.iter_mut().enumerate() {
        let r = i * n * n..(i + 1) * n * n;
        *info = blocked::geev(
            n,
            &a[r.clone()],
            &mut w,
            left.then(|| &mut vl[r.clone()]),
            right.then(|| &mut vr[r]),
        );
        let out = i * n..(i + 1) * n;
        if let Some(wc) = wc.as_deref_mut() {
            wc[out].copy_from_slice(&w);
        } else if let (Some(wr), Some(wi)) = (wr.as_deref_mut(), wi.as_deref_mut()) {
            for (j, x) in out.zip(&w) {
                wr[j] = x.re();
                wi[j] = x.im();
            }
        }
    }
    Ok(())
}
