//! Complex arithmetic of the evaluator (c64 and c128), with the formulas
//! XLA's CPU emitter uses where the textbook one loses accuracy or
//! overflows: `log1p` and `expm1` through their real counterparts,
//! division by Smith's algorithm, `sign` as `z / |z|` (0 at 0), `power`
//! through polar form with XLA's `0^b` cases. Everything else is
//! `num_complex`'s principal branch, as `std::complex` (XLA's evaluator).
//!
//! c64 is computed in f32 throughout, as XLA:CPU does, so the evaluator
//! and the compiled code round alike.

use crate::value::{OpError, Vals, R};
use hlox_hlo::{BinaryOp, ComparisonDirection, ElementType, UnaryOp};
use num_complex::Complex;

macro_rules! complex_math {
    ($t:ty, $unary:ident, $binary:ident) => {
        /// One element of a unary op whose result is complex (`None`: the
        /// op has no complex form).
        pub(crate) fn $unary(op: UnaryOp, z: Complex<$t>) -> Option<Complex<$t>> {
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

        /// One element of a binary op over complex numbers.
        pub(crate) fn $binary(op: BinaryOp, a: Complex<$t>, b: Complex<$t>) -> Option<Complex<$t>> {
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
                _ => return None,
            })
        }
    };
}
complex_math!(f32, unary_c, binary_c);
complex_math!(f64, unary_z, binary_z);

fn unsupported(op: &'static str, ty: ElementType) -> OpError {
    OpError::Unsupported { op, ty }
}

/// A unary op over complex values: `abs`, `real` and `imag` give real
/// values (the part type), the others complex ones.
pub(crate) fn unary(op: UnaryOp, v: Vals, ty: ElementType) -> R<Vals> {
    let err = || unsupported(op.name(), ty);
    macro_rules! go {
        ($v:expr, $real:ident, $cx:ident, $f:ident) => {
            match op {
                UnaryOp::Abs => Vals::$real($v.iter().map(|z| z.norm()).collect()),
                UnaryOp::Real => Vals::$real($v.iter().map(|z| z.re).collect()),
                UnaryOp::Imag => Vals::$real($v.iter().map(|z| z.im).collect()),
                _ => {
                    $f(op, Complex::new(1.0, 0.0)).ok_or_else(err)?;
                    Vals::$cx($v.iter().map(|&z| $f(op, z).unwrap_or_default()).collect())
                }
            }
        };
    }
    Ok(match v {
        Vals::C(v) => go!(v, F, C, unary_c),
        Vals::Z(v) => go!(v, D, Z, unary_z),
        _ => return Err(format!("{} expects complex values", op.name()).into()),
    })
}

/// A binary op over two complex arrays of one type.
pub(crate) fn binary(op: BinaryOp, a: Vals, b: Vals, ty: ElementType) -> R<Vals> {
    /// `f` element by element, once it is known to define `op` (on zeros).
    fn zip<T: Copy + Default>(
        op: BinaryOp,
        ty: ElementType,
        a: Vec<T>,
        b: Vec<T>,
        f: fn(BinaryOp, T, T) -> Option<T>,
    ) -> R<Vec<T>> {
        f(op, T::default(), T::default()).ok_or_else(|| unsupported(op.name(), ty))?;
        Ok(a.into_iter()
            .zip(b)
            .map(|(x, y)| f(op, x, y).unwrap_or_default())
            .collect())
    }
    Ok(match (a, b) {
        (Vals::C(a), Vals::C(b)) => Vals::C(zip(op, ty, a, b, binary_c)?),
        (Vals::Z(a), Vals::Z(b)) => Vals::Z(zip(op, ty, a, b, binary_z)?),
        _ => return Err("operand domains differ".into()),
    })
}

/// `complex(re, im)`: f32 parts make c64, f64 parts c128.
pub(crate) fn make(re: Vals, im: Vals) -> R<Vals> {
    Ok(match (re, im) {
        (Vals::F(a), Vals::F(b)) => Vals::C(
            a.into_iter()
                .zip(b)
                .map(|(x, y)| Complex::new(x, y))
                .collect(),
        ),
        (Vals::D(a), Vals::D(b)) => Vals::Z(
            a.into_iter()
                .zip(b)
                .map(|(x, y)| Complex::new(x, y))
                .collect(),
        ),
        _ => return Err("complex needs two f32 or two f64 operands".into()),
    })
}

/// EQ/NE of complex numbers (both parts equal; NaN is unequal to all).
pub(crate) fn compare(dir: ComparisonDirection, a: Vals, b: Vals) -> R<Vec<u64>> {
    let eq: Vec<bool> = match (a, b) {
        (Vals::C(a), Vals::C(b)) => a.iter().zip(&b).map(|(x, y)| x == y).collect(),
        (Vals::Z(a), Vals::Z(b)) => a.iter().zip(&b).map(|(x, y)| x == y).collect(),
        _ => return Err("operand domains differ".into()),
    };
    match dir {
        ComparisonDirection::Eq => Ok(eq.into_iter().map(|e| e as u64).collect()),
        ComparisonDirection::Ne => Ok(eq.into_iter().map(|e| !e as u64).collect()),
        d => Err(format!(
            "complex numbers are not ordered: direction {} is not defined for them",
            d.name()
        )
        .into()),
    }
}
