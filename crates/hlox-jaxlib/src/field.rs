//! The element types of jaxlib's LAPACK targets: the prefixes `s` (f32),
//! `d` (f64), `c` (complex f32) and `z` (complex f64).
//!
//! One trait, [`Field`], lets every handler in [`crate::lapack`], every
//! faer-backed routine in [`crate::blocked`] and the LAPACK-style routines
//! of [`crate::linalg`] be written once for all four. The complex types
//! are `num_complex`'s, which are at once faer's `c32`/`c64` and the
//! element types of XLA's C64/C128 FFI buffers (interleaved real and
//! imaginary parts), so buffers go to faer without conversion. On the
//! real types [`Field::conj`] is the identity and [`Field::abs1`] the
//! absolute value, so a routine written with LAPACK's complex conventions
//! (`zgeqr2`, `zung2r`, `zgetf2`...) is LAPACK's real one on f32/f64.

use hlox_ffi::xla_ffi::FfiElement;
use num_complex::Complex;
use num_traits::{Float, NumAssign};
use std::fmt::Debug;
use std::ops::Neg;

/// A LAPACK element type: f32, f64, `Complex<f32>` or `Complex<f64>`.
pub trait Field:
    faer::traits::ComplexField<Real = Self::Re>
    + FfiElement
    + NumAssign
    + Neg<Output = Self>
    + Copy
    + PartialEq
    + Debug
    + Send
    + Sync
{
    /// The real type of the parts (and of eigenvalues of Hermitian
    /// matrices, singular values, norms).
    type Re: Real + faer::traits::RealField;
    /// The complex type with parts of type [`Self::Re`] (real `geev`
    /// returns complex eigenvectors).
    type Cplx: Field<Re = Self::Re>;
    /// `c`/`z` (true) or `s`/`d`.
    const COMPLEX: bool;
    fn from_re(r: Self::Re) -> Self;
    /// `re + i im` on the complex types; `re` on the real ones (`im` is
    /// dropped).
    fn from_parts(re: Self::Re, im: Self::Re) -> Self;
    fn re(self) -> Self::Re;
    fn im(self) -> Self::Re;
    fn conj(self) -> Self;
    /// The modulus `|z|` (without overflow).
    fn modulus(self) -> Self::Re;
    /// `|re| + |im|`: BLAS's `cabs1`, which `i?amax` (LU pivoting) and
    /// `?gtsv` compare by.
    fn abs1(self) -> Self::Re;
    fn to_cplx(self) -> Self::Cplx;
}

/// The real element types, f32 and f64.
pub trait Real: Field<Re = Self> + Float {}
impl Real for f32 {}
impl Real for f64 {}

macro_rules! real_field {
    ($t:ty) => {
        impl Field for $t {
            type Re = $t;
            type Cplx = Complex<$t>;
            const COMPLEX: bool = false;
            fn from_re(r: $t) -> $t {
                r
            }
            fn from_parts(re: $t, _im: $t) -> $t {
                re
            }
            fn re(self) -> $t {
                self
            }
            fn im(self) -> $t {
                0.0
            }
            fn conj(self) -> $t {
                self
            }
            fn modulus(self) -> $t {
                self.abs()
            }
            fn abs1(self) -> $t {
                self.abs()
            }
            fn to_cplx(self) -> Complex<$t> {
                Complex::new(self, 0.0)
            }
        }
        impl Field for Complex<$t> {
            type Re = $t;
            type Cplx = Complex<$t>;
            const COMPLEX: bool = true;
            fn from_re(r: $t) -> Self {
                Complex::new(r, 0.0)
            }
            fn from_parts(re: $t, im: $t) -> Self {
                Complex::new(re, im)
            }
            fn re(self) -> $t {
                self.re
            }
            fn im(self) -> $t {
                self.im
            }
            fn conj(self) -> Self {
                Complex::conj(&self)
            }
            fn modulus(self) -> $t {
                self.re.hypot(self.im)
            }
            fn abs1(self) -> $t {
                self.re.abs() + self.im.abs()
            }
            fn to_cplx(self) -> Self {
                self
            }
        }
    };
}
real_field!(f32);
real_field!(f64);

/// `x * r` for a real `r`.
pub fn scale<T: Field>(x: T, r: T::Re) -> T {
    x * T::from_re(r)
}
