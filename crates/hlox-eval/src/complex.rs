//! Complex arithmetic of the evaluator (c64 and c128) over arrays: the
//! element formulas are `hlox_hlo::semantics::complex`'s, which the Host
//! runtime calls too, so the evaluator and compiled code round alike.

use crate::value::{OpError, Vals, R};
use hlox_hlo::{BinaryOp, ComparisonDirection, ElementType, UnaryOp};
use num_complex::Complex;

pub(crate) use hlox_hlo::semantics::complex::{
    binary_c128 as binary_z, binary_c64 as binary_c, unary_c128 as unary_z, unary_c64 as unary_c,
};

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
