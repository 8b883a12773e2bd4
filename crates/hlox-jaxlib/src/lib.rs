//! jaxlib's CPU custom-call targets, for hlox.
//!
//! On the CPU, JAX lowers `jnp.linalg` and `jax.scipy.linalg` to typed-FFI
//! custom calls (`api_version=API_VERSION_TYPED_FFI`) named
//! `lapack_<t><routine>_ffi`, which jaxlib registers with XLA when JAX is
//! imported. A module JAX printed therefore needs those targets to run
//! anywhere else. This crate provides them for the real and complex types
//! (`s` = f32, `d` = f64, `c` = c64, `z` = c128; complex `orgqr` and
//! `syevd` are LAPACK's `ungqr` and `heevd`) with jaxlib's exact
//! interface: the same arguments, results,
//! attributes, batching, 1-based pivots and per-matrix `info`, so JAX's own
//! post-processing (NaNs for failed factorizations, pivot permutations)
//! works unchanged.
//!
//! [`lapack`] reads the call frames; [`blocked`] computes with faer's
//! blocked algorithms and restores LAPACK's conventions; [`linalg`] holds
//! hlox's unblocked LAPACK-style routines, used for `geqp3`, `gehrd`,
//! `sytrd`/`hetrd`, `gees`, `gtsv`,
//! complex QR and the inputs faer's results cannot express in LAPACK's
//! form, and as the reference [`blocked`] is tested against. All three are
//! generic over [`field::Field`], so one function serves a routine's
//! `s`, `d`, `c` and `z` targets.
//!
//! Linking this crate registers every target in [`TARGETS`] for the Host
//! with [`hlox_ffi::register_custom_call_target!`]; the `hlox` CLI and the
//! `hlox` facade crate link it. [`register`] adds them to a registry of
//! your own instead.
//!
//! `geev` (`jnp.linalg.eig`) is provided for all four types, with complex
//! eigenvalues and vectors for real input as jaxlib returns them.
//!
//! `gehrd` (`jax.scipy.linalg.hessenberg`) and `sytrd`/`hetrd`
//! (`lax.linalg.tridiagonal`) are provided for all four types, as LAPACK's
//! unblocked `gehd2` and `sytd2`/`hetd2`, and `gees`
//! (`jax.scipy.linalg.schur`, without eigenvalue sorting, which JAX does
//! not offer) by hlox's own shifted QR iteration ([`linalg::gees`]: faer's
//! Schur iteration is not public API).

pub mod blocked;
pub mod dqds;
pub mod field;
pub mod fp;
pub mod lapack;
pub mod linalg;
pub mod rules;
#[cfg(test)]
mod test_util;

use hlox_ffi::{Platform, Registry, RegistryError};
use num_complex::{Complex32, Complex64};

macro_rules! targets {
    ($($name:literal => $f:path),* $(,)?) => {
        $( hlox_ffi::register_custom_call_target!($f, $name, "Host"); )*

        /// The names of the targets this crate provides (all for the Host).
        pub const TARGETS: &[&str] = &[$($name),*];

        /// Registers every target of [`TARGETS`] for the Host in `r` (a
        /// registry that does not already hold them, such as
        /// `Registry::new()`; [`Registry::global`] has them already).
        pub fn register(r: &Registry) -> Result<(), RegistryError> {
            $( r.register_fn($name, Platform::Host, $f)?; )*
            Ok(())
        }
    };
}

targets! {
    "lapack_strsm_ffi" => lapack::trsm::<f32>,
    "lapack_dtrsm_ffi" => lapack::trsm::<f64>,
    "lapack_ctrsm_ffi" => lapack::trsm::<Complex32>,
    "lapack_ztrsm_ffi" => lapack::trsm::<Complex64>,
    "lapack_sgetrf_ffi" => lapack::getrf::<f32>,
    "lapack_dgetrf_ffi" => lapack::getrf::<f64>,
    "lapack_cgetrf_ffi" => lapack::getrf::<Complex32>,
    "lapack_zgetrf_ffi" => lapack::getrf::<Complex64>,
    "lapack_spotrf_ffi" => lapack::potrf::<f32>,
    "lapack_dpotrf_ffi" => lapack::potrf::<f64>,
    "lapack_cpotrf_ffi" => lapack::potrf::<Complex32>,
    "lapack_zpotrf_ffi" => lapack::potrf::<Complex64>,
    "lapack_sgeqrf_ffi" => lapack::geqrf::<f32>,
    "lapack_dgeqrf_ffi" => lapack::geqrf::<f64>,
    "lapack_cgeqrf_ffi" => lapack::geqrf::<Complex32>,
    "lapack_zgeqrf_ffi" => lapack::geqrf::<Complex64>,
    "lapack_sgeqp3_ffi" => lapack::geqp3::<f32>,
    "lapack_dgeqp3_ffi" => lapack::geqp3::<f64>,
    "lapack_cgeqp3_ffi" => lapack::geqp3::<Complex32>,
    "lapack_zgeqp3_ffi" => lapack::geqp3::<Complex64>,
    "lapack_sorgqr_ffi" => lapack::orgqr::<f32>,
    "lapack_dorgqr_ffi" => lapack::orgqr::<f64>,
    "lapack_cungqr_ffi" => lapack::orgqr::<Complex32>,
    "lapack_zungqr_ffi" => lapack::orgqr::<Complex64>,
    "lapack_ssyevd_ffi" => lapack::syevd::<f32>,
    "lapack_dsyevd_ffi" => lapack::syevd::<f64>,
    "lapack_cheevd_ffi" => lapack::syevd::<Complex32>,
    "lapack_zheevd_ffi" => lapack::syevd::<Complex64>,
    "lapack_sgesdd_ffi" => lapack::gesvd::<f32>,
    "lapack_dgesdd_ffi" => lapack::gesvd::<f64>,
    "lapack_cgesdd_ffi" => lapack::gesvd::<Complex32>,
    "lapack_zgesdd_ffi" => lapack::gesvd::<Complex64>,
    "lapack_sgesvd_ffi" => lapack::gesvd::<f32>,
    "lapack_dgesvd_ffi" => lapack::gesvd::<f64>,
    "lapack_cgesvd_ffi" => lapack::gesvd::<Complex32>,
    "lapack_zgesvd_ffi" => lapack::gesvd::<Complex64>,
    "lapack_sgtsv_ffi" => lapack::gtsv::<f32>,
    "lapack_dgtsv_ffi" => lapack::gtsv::<f64>,
    "lapack_cgtsv_ffi" => lapack::gtsv::<Complex32>,
    "lapack_zgtsv_ffi" => lapack::gtsv::<Complex64>,
    "lapack_sgehrd_ffi" => lapack::gehrd::<f32>,
    "lapack_dgehrd_ffi" => lapack::gehrd::<f64>,
    "lapack_cgehrd_ffi" => lapack::gehrd::<Complex32>,
    "lapack_zgehrd_ffi" => lapack::gehrd::<Complex64>,
    "lapack_ssytrd_ffi" => lapack::sytrd::<f32>,
    "lapack_dsytrd_ffi" => lapack::sytrd::<f64>,
    "lapack_chetrd_ffi" => lapack::sytrd::<Complex32>,
    "lapack_zhetrd_ffi" => lapack::sytrd::<Complex64>,
    "lapack_sgees_ffi" => lapack::gees::<f32>,
    "lapack_dgees_ffi" => lapack::gees::<f64>,
    "lapack_cgees_ffi" => lapack::gees::<Complex32>,
    "lapack_zgees_ffi" => lapack::gees::<Complex64>,
    "lapack_sgeev_ffi" => lapack::geev::<f32>,
    "lapack_dgeev_ffi" => lapack::geev::<f64>,
    "lapack_cgeev_ffi" => lapack::geev::<Complex32>,
    "lapack_zgeev_ffi" => lapack::geev::<Complex64>,
}
