//! Complex arithmetic (c64 and c128) that the evaluator and the Host
//! runtime both compute, so that compiled code and the oracle agree bit for
//! bit: XLA:CPU's formulas where the textbook one loses accuracy or
//! overflows (`log1p` and `expm1` through their real counterparts, division
//! by Smith's algorithm, `sign` as `z / |z|` (0 at 0), `power` through polar
//! form with XLA's `0^b` cases); everything else is `num_complex`'s
//! principal branch, as `std::complex` (XLA's evaluator).
//!
//! c64 is computed in f32 throughout, as XLA:CPU does.
//!
//! [`ComplexFn`] names the functions that generated code calls out of line
//! (through one runtime entry per part type) instead of emitting inline.

use crate::{BinaryOp, UnaryOp};
use num_complex::Complex;

/// A binary complex function on one part type (`binary_c64`, `binary_c128`):
/// `None` where the op is not defined on complex values.
type BinaryFn<T> = fn(BinaryOp, Complex<T>, Complex<T>) -> Option<Complex<T>>;

/// A complex function computed out of line by generated code: its code is
/// the `u32` the runtime entry receives ([`ComplexFn::code`],
/// [`ComplexFn::from_code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ComplexFn {
    /// `|z|` (the result's real part; its imaginary part is 0).
    Abs = 0,
    Sign,
    Exp,
    Expm1,
    Log,
    Log1p,
    Sqrt,
    Rsqrt,
    Cbrt,
    Tanh,
    Logistic,
    Sin,
    Cos,
    Tan,
    Divide,
    Power,
    Atan2,
}

impl ComplexFn {
    /// Every function, in code order.
    pub const ALL: [ComplexFn; 17] = [
        ComplexFn::Abs,
        ComplexFn::Sign,
        ComplexFn::Exp,
        ComplexFn::Expm1,
        ComplexFn::Log,
        ComplexFn::Log1p,
        ComplexFn::Sqrt,
        ComplexFn::Rsqrt,
        ComplexFn::Cbrt,
        ComplexFn::Tanh,
        ComplexFn::Logistic,
        ComplexFn::Sin,
        ComplexFn::Cos,
        ComplexFn::Tan,
        ComplexFn::Divide,
        ComplexFn::Power,
        ComplexFn::Atan2,
    ];

    /// The code passed to the runtime entry.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The function with code `c`.
    pub fn from_code(c: u32) -> Option<ComplexFn> {
        Self::ALL.get(c as usize).copied()
    }

    /// The out-of-line function computing unary `op` on a complex operand
    /// (`None` for ops emitted inline or not defined on complex values).
    pub fn of_unary(op: UnaryOp) -> Option<ComplexFn> {
        use UnaryOp as U;
        Some(match op {
            U::Abs => ComplexFn::Abs,
            U::Sign => ComplexFn::Sign,
            U::Exp => ComplexFn::Exp,
            U::Expm1 => ComplexFn::Expm1,
            U::Log => ComplexFn::Log,
            U::Log1p => ComplexFn::Log1p,
            U::Sqrt => ComplexFn::Sqrt,
            U::Rsqrt => ComplexFn::Rsqrt,
            U::Cbrt => ComplexFn::Cbrt,
            U::Tanh => ComplexFn::Tanh,
            U::Logistic => ComplexFn::Logistic,
            U::Sin => ComplexFn::Sin,
            U::Cos => ComplexFn::Cos,
            U::Tan => ComplexFn::Tan,
            _ => return None,
        })
    }

    /// The out-of-line function computing binary `op` on complex operands.
    pub fn of_binary(op: BinaryOp) -> Option<ComplexFn> {
        Some(match op {
            BinaryOp::Divide => ComplexFn::Divide,
            BinaryOp::Power => ComplexFn::Power,
            BinaryOp::Atan2 => ComplexFn::Atan2,
            _ => return None,
        })
    }

    /// `self(a, b)` on c64 values (`b` is ignored by unary functions).
    pub fn eval_c64(self, a: Complex<f32>, b: Complex<f32>) -> Complex<f32> {
        self.eval_with(a, b, unary_c64, binary_c64, |z| z.norm())
    }

    /// `self(a, b)` on c128 values (`b` is ignored by unary functions).
    pub fn eval_c128(self, a: Complex<f64>, b: Complex<f64>) -> Complex<f64> {
        self.eval_with(a, b, unary_c128, binary_c128, |z| z.norm())
    }

    fn eval_with<T: Copy + Default>(
        self,
        a: Complex<T>,
        b: Complex<T>,
        unary: fn(UnaryOp, Complex<T>) -> Option<Complex<T>>,
        binary: BinaryFn<T>,
        norm: fn(Complex<T>) -> T,
    ) -> Complex<T> {
        use ComplexFn as F;
        use UnaryOp as U;
        let u = |op| unary(op, a).unwrap_or_default();
        match self {
            F::Abs => Complex::new(norm(a), T::default()),
            F::Sign => u(U::Sign),
            F::Exp => u(U::Exp),
            F::Expm1 => u(U::Expm1),
            F::Log => u(U::Log),
            F::Log1p => u(U::Log1p),
            F::Sqrt => u(U::Sqrt),
            F::Rsqrt => u(U::Rsqrt),
            F::Cbrt => u(U::Cbrt),
            F::Tanh => u(U::Tanh),
            F::Logistic => u(U::Logistic),
            F::Sin => u(U::Sin),
            F::Cos => u(U::Cos),
            F::Tan => u(U::Tan),
            F::Divide => binary(BinaryOp::Divide, a, b).unwrap_or_default(),
            F::Power => binary(BinaryOp::Power, a, b).unwrap_or_default(),
            F::Atan2 => binary(BinaryOp::Atan2, a, b).unwrap_or_default(),
        }
    }
}

macro_rules! complex_math {
    ($t:ty, $unary:ident, $binary:ident) => {
        /// One element of a unary op whose result is complex (`None`: the
        /// op has no complex form; `abs`, `real` and `imag` give real
        /// values and are not computed here).
        pub fn $unary(op: UnaryOp, z: Complex<$t>) -> Option<Complex<$t>> {
            use UnaryOp::*;
            let one = Complex::<$t>::new(1.0, 0.0);
            Some(match op {
                Negate => -z,
                Sign => {
                    let r = z.norm();
                    if r == 0.0 {
                        z
                    } else {
                        Complex::new(z.re / r, z.im / r)
                    }
                }
                Exp => z.exp(),
                // e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y/2).
                Expm1 => {
                    let (x, y) = (z.re, z.im);
                    let s = (y / 2.0).sin();
                    Complex::new(x.exp_m1() * y.cos() - 2.0 * s * s, x.exp() * y.sin())
                }
                Log => z.ln(),
                // |1+z|^2 = 1 + (2x + x^2 + y^2): its log through log1p.
                Log1p => {
                    let (x, y) = (z.re, z.im);
                    Complex::new(0.5 * (x * (2.0 + x) + y * y).ln_1p(), y.atan2(1.0 + x))
                }
                Sqrt => z.sqrt(),
                Rsqrt => $binary(BinaryOp::Divide, one, z.sqrt())?,
                Cbrt => z.cbrt(),
                Tanh => z.tanh(),
                Logistic => $binary(BinaryOp::Divide, one, one + (-z).exp())?,
                Sin => z.sin(),
                Cos => z.cos(),
                Tan => z.tan(),
                _ => return None,
            })
        }

        /// One element of a binary op over complex numbers (`None`: the op
        /// has no complex form).
        pub fn $binary(op: BinaryOp, a: Complex<$t>, b: Complex<$t>) -> Option<Complex<$t>> {
            Some(match op {
                BinaryOp::Add => a + b,
                BinaryOp::Subtract => a - b,
                BinaryOp::Multiply => a * b,
                // Smith's algorithm: scale by the larger part of b, so
                // |b|^2 never overflows.
                BinaryOp::Divide => {
                    let (c, d) = (b.re, b.im);
                    if c.abs() >= d.abs() {
                        if c == 0.0 && d == 0.0 {
                            // x / 0: each part of x over a signed zero.
                            return Some(Complex::new(a.re / c, a.im / c));
                        }
                        let r = d / c;
                        let den = c + d * r;
                        Complex::new((a.re + a.im * r) / den, (a.im - a.re * r) / den)
                    } else {
                        let r = c / d;
                        let den = c * r + d;
                        Complex::new((a.re * r + a.im) / den, (a.im * r - a.re) / den)
                    }
                }
                // a^b = |a|^c e^(-d arg a) (cos t + i sin t), t = c arg a + d ln|a|;
                // 0^0 = 1 and 0^b = 0 for Re b > 0, as XLA.
                BinaryOp::Power => {
                    let (c, d) = (b.re, b.im);
                    if a.re == 0.0 && a.im == 0.0 {
                        if c == 0.0 && d == 0.0 {
                            return Some(Complex::new(1.0, 0.0));
                        }
                        if c > 0.0 {
                            return Some(Complex::new(0.0, 0.0));
                        }
                    }
                    let r = a.norm();
                    let th = a.im.atan2(a.re);
                    let m = r.powf(c) * (-d * th).exp();
                    let t = c * th + d * r.ln();
                    Complex::new(m * t.cos(), m * t.sin())
                }
                // atan2(a, b) = -i log((b + i a) / sqrt(b^2 + a^2)), XLA's
                // (and StableHLO's) definition for complex operands, term
                // by term: complex products (so signed zeros and infinities
                // go where the formula sends them), Smith's division, the
                // principal sqrt and log. The device emitter follows the
                // same steps.
                BinaryOp::Atan2 => {
                    let i = Complex::<$t>::new(0.0, 1.0);
                    let num = b + i * a;
                    let den = (b * b + a * a).sqrt();
                    let l = $binary(BinaryOp::Divide, num, den)?.ln();
                    Complex::<$t>::new(0.0, -1.0) * l
                }
                _ => return None,
            })
        }
    };
}
complex_math!(f32, unary_c64, binary_c64);
complex_math!(f64, unary_c128, binary_c128);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for f in ComplexFn::ALL {
            assert_eq!(ComplexFn::from_code(f.code()), Some(f));
        }
        assert_eq!(ComplexFn::from_code(ComplexFn::ALL.len() as u32), None);
    }

    #[test]
    fn out_of_line_matches_the_element_functions() {
        let a = Complex::new(0.5f64, -1.25);
        let b = Complex::new(2.0f64, 0.5);
        assert_eq!(ComplexFn::Exp.eval_c128(a, b), a.exp());
        assert_eq!(
            ComplexFn::Divide.eval_c128(a, b),
            binary_c128(BinaryOp::Divide, a, b).unwrap()
        );
        assert_eq!(ComplexFn::Abs.eval_c128(a, b), Complex::new(a.norm(), 0.0));
        let q = ComplexFn::Divide.eval_c64(Complex::new(1.0, 2.0), Complex::new(3.0, -4.0));
        assert!(
            (q.re - -0.2).abs() < 1e-7 && (q.im - 0.4).abs() < 1e-7,
            "{q}"
        );
    }

    #[test]
    fn atan2_is_xlas_formula() {
        let at = |y: Complex<f64>, x: Complex<f64>| binary_c128(BinaryOp::Atan2, y, x).unwrap();
        let c = Complex::new;
        // Real operands give the real atan2 (up to rounding in the imaginary part).
        for (y, x) in [
            (1.0, 1.0),
            (0.0, -1.0),
            (-1.0, -1.0),
            (3.0, 0.0),
            (-2.0, 0.5),
        ] {
            let r = at(c(y, 0.0), c(x, 0.0));
            assert!(
                (r.re - f64::atan2(y, x)).abs() < 1e-15 && r.im.abs() < 1e-15,
                "{r}"
            );
        }
        // JAX 0.10.2's values (c128).
        let r = at(c(1.0, 2.0), c(0.5, -1.0));
        assert!(
            (r - c(1.908_166_797_906_672_8, 0.379_086_872_342_022_5)).norm() < 1e-14,
            "{r}"
        );
        // x^2 + y^2 = 0: NaN, as JAX.
        assert!(at(c(0.0, 0.0), c(0.0, 0.0)).re.is_nan());
        assert!(at(c(1.0, 0.0), c(0.0, 1.0)).re.is_nan());
        assert_eq!(
            ComplexFn::of_binary(BinaryOp::Atan2),
            Some(ComplexFn::Atan2)
        );
        assert_eq!(
            ComplexFn::Atan2.eval_c128(c(1.0, 2.0), c(0.5, -1.0)),
            at(c(1.0, 2.0), c(0.5, -1.0))
        );
    }
}
