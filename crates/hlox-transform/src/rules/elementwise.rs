//! The derivative of every element-wise op, written once.
//!
//! Each rule gives the partial derivative of the result with respect to
//! each operand as a [`Partial`]: a factor, element by element. Forward
//! mode multiplies a tangent by it ([`Partial::apply`]), reverse mode a
//! cotangent (an element-wise product is its own transpose), so `jvp` and
//! `vjp` share these rules and cannot disagree.
//!
//! Ties follow JAX: `maximum`/`minimum` split the derivative evenly
//! between equal operands; `abs` and `sign` at 0 follow `sign(0) = 0`;
//! rounding and integer ops have zero derivatives.
//!
//! Complex values follow JAX too: a holomorphic op's partial is its
//! complex derivative (the same formula), and reverse mode is the plain
//! transpose of forward mode — a cotangent is multiplied by the same
//! factor, never by its conjugate — so `grad` of a real function of
//! complex inputs is JAX's (`grad(|z|^2) = 2 conj(z)`). The ops between
//! real and complex values (`abs`, `real`, `imag` of a complex operand;
//! `complex`) are R-linear but not C-linear: their partials
//! ([`Partial::ToReal`], [`Partial::ToComplex`]) are transposed by
//! [`Partial::transpose`] as JAX's rules do.

use crate::emit::Emitter;
use crate::TransformError;
use hlox_hlo::ir::{BinaryOp, ComparisonDirection, InstId, UnaryOp};
use hlox_hlo::{Complex32, Complex64, ElementType, Literal};

/// The partial derivative of an element-wise result with respect to one
/// operand.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Partial {
    /// Constant zero (rounding, integer and boolean ops).
    Zero,
    One,
    MinusOne,
    /// Element-wise factor, of the result's shape and type.
    Factor(InstId),
    /// Element-wise divisor: the partial is `1 / d` (`x / y` with respect
    /// to `x`), applied as one division rather than a reciprocal and a
    /// product.
    Quotient(InstId),
    /// A real result of a complex operand: the tangent is `real(t * f)`
    /// (`f` = 1 when `None`); the transpose `complex(c, 0) * f`.
    ToReal(Option<InstId>),
    /// A complex result of a real operand: the tangent is `complex(t, 0) *
    /// f`; the transpose `real(c * f)`.
    ToComplex(Option<InstId>),
}

impl Partial {
    /// `t * self`, or `None` for a zero result.
    pub fn apply(self, e: &mut Emitter, t: InstId) -> Result<Option<InstId>, TransformError> {
        Ok(match self {
            Partial::Zero => None,
            Partial::One => Some(t),
            Partial::MinusOne => Some(e.neg(t)?),
            Partial::Factor(f) => Some(e.mul(t, f)?),
            Partial::Quotient(d) => Some(e.div(t, d)?),
            Partial::ToReal(f) => {
                let t = match f {
                    Some(f) => e.mul(t, f)?,
                    None => t,
                };
                Some(e.unary(UnaryOp::Real, t)?)
            }
            Partial::ToComplex(f) => {
                let t = to_complex(e, t)?;
                Some(match f {
                    Some(f) => e.mul(t, f)?,
                    None => t,
                })
            }
        })
    }

    /// `c` times the transpose of `self` (reverse mode): `apply` itself
    /// for the real and holomorphic partials (a product is its own
    /// transpose); the R-linear maps between real and complex values
    /// swap roles.
    pub fn transpose(self, e: &mut Emitter, c: InstId) -> Result<Option<InstId>, TransformError> {
        match self {
            Partial::ToReal(f) => Partial::ToComplex(f).apply(e, c),
            Partial::ToComplex(f) => Partial::ToReal(f).apply(e, c),
            p => p.apply(e, c),
        }
    }
}

/// `t` (real) as a complex value with a zero imaginary part.
fn to_complex(e: &mut Emitter, t: InstId) -> Result<InstId, TransformError> {
    let ty = e.ty(t)?;
    let c = ty
        .complex_of()
        .ok_or_else(|| e.internal(format!("no complex type for {ty}")))?;
    e.convert(t, c)
}

/// A constant of `x`'s (complex) shape, every element `re + im i`.
fn complex_like(e: &mut Emitter, x: InstId, re: f64, im: f64) -> Result<InstId, TransformError> {
    let a = e.arr(x)?;
    let lit = match a.ty {
        ElementType::C64 => Literal::r0(Complex32::new(re as f32, im as f32)),
        ElementType::C128 => Literal::r0(Complex64::new(re, im)),
        t => return Err(e.internal(format!("complex_like of {t}"))),
    };
    let k = e.constant(lit)?;
    e.broadcast_in_dim(k, &a.dims, &[])
}

/// d(u(x))/dx, given the operand `x` and the result `y`.
pub(crate) fn unary_partial(
    e: &mut Emitter,
    u: UnaryOp,
    x: InstId,
    y: InstId,
) -> Result<Partial, TransformError> {
    use UnaryOp::*;
    let (tx, ty) = (e.ty(x)?, e.ty(y)?);
    if tx.is_complex() {
        match u {
            // Of a complex operand: real results (JAX's rules).
            Real => return Ok(Partial::ToReal(None)),
            // imag(t) = real(t * -i)
            Imag => {
                let f = complex_like(e, x, 0.0, -1.0)?;
                return Ok(Partial::ToReal(Some(f)));
            }
            // real(t * conj(x) / |x|), 0 where x = 0.
            Abs => {
                let re = e.unary(Real, x)?;
                let im = e.unary(Imag, x)?;
                let nim = e.neg(im)?;
                let conj = e.binary(BinaryOp::Complex, re, nim)?;
                let zero = e.full_like(y, 0.0)?;
                let one = e.full_like(y, 1.0)?;
                let y0 = e.compare(ComparisonDirection::Eq, y, zero)?;
                let safe = e.select(y0, one, y)?;
                let safe = to_complex(e, safe)?;
                let f = e.div(conj, safe)?;
                return Ok(Partial::ToReal(Some(f)));
            }
            // Holomorphic: the formulas below hold as they are.
            Negate | Exp | Expm1 | Log | Log1p | Sqrt | Rsqrt | Tanh | Logistic | Sin | Cos
            | Tan => {}
            Sign => return Ok(Partial::Zero),
            _ => return Err(e.internal(format!("{u:?} of complex values is not differentiated"))),
        }
    } else if !ty.is_float() {
        return Ok(Partial::Zero);
    }
    let f = match u {
        Negate => return Ok(Partial::MinusOne),
        Sign | Floor | Ceil | RoundNearestAfz | RoundNearestEven => return Ok(Partial::Zero),
        Not | IsFinite | PopulationCount | CountLeadingZeros => return Ok(Partial::Zero),
        // Of a real operand.
        Real => return Ok(Partial::One),
        Imag => return Ok(Partial::Zero),
        Abs => e.unary(Sign, x)?,
        Exp => y,
        Expm1 => {
            let one = e.full_like(y, 1.0)?;
            e.addv(y, one)?
        }
        Log => return Ok(Partial::Quotient(x)),
        Log1p => {
            let one = e.full_like(x, 1.0)?;
            let d = e.addv(x, one)?;
            e.div(one, d)?
        }
        // 1 / (2 sqrt(x))
        Sqrt => {
            let half = e.full_like(y, 0.5)?;
            e.div(half, y)?
        }
        // The power rule for y = x^p, as p y / x: -rsqrt(x) / (2 x) and
        // cbrt(x) / (3 x).
        Rsqrt | Cbrt => {
            let p = e.full_like(y, if u == Rsqrt { -0.5 } else { 1.0 / 3.0 })?;
            let q = e.div(y, x)?;
            e.mul(q, p)?
        }
        Tanh => {
            let one = e.full_like(y, 1.0)?;
            let sq = e.mul(y, y)?;
            e.sub(one, sq)?
        }
        Logistic => {
            let one = e.full_like(y, 1.0)?;
            let c = e.sub(one, y)?;
            e.mul(y, c)?
        }
        Sin => e.unary(Cos, x)?,
        Cos => {
            let s = e.unary(Sin, x)?;
            e.neg(s)?
        }
        Tan => {
            let one = e.full_like(y, 1.0)?;
            let sq = e.mul(y, y)?;
            e.addv(one, sq)?
        }
        // 2/sqrt(pi) exp(-x^2)
        Erf => {
            let c = e.full_like(x, std::f64::consts::FRAC_2_SQRT_PI)?;
            let sq = e.mul(x, x)?;
            let n = e.neg(sq)?;
            let ex = e.unary(Exp, n)?;
            e.mul(c, ex)?
        }
    };
    Ok(Partial::Factor(f))
}

/// (d(x op y)/dx, d(x op y)/dy), given the operands and the result `z`.
pub(crate) fn binary_partials(
    e: &mut Emitter,
    b: BinaryOp,
    x: InstId,
    y: InstId,
    z: InstId,
) -> Result<(Partial, Partial), TransformError> {
    use BinaryOp::*;
    let tz = e.ty(z)?;
    if tz.is_complex() {
        match b {
            // complex(re, im): re + i im.
            Complex => {
                let i = complex_like(e, z, 0.0, 1.0)?;
                return Ok((Partial::ToComplex(None), Partial::ToComplex(Some(i))));
            }
            // Holomorphic: the formulas below hold as they are (`power`'s
            // as JAX's `_pow_jvp_lhs`/`_pow_jvp_rhs` on complex values:
            // `y x^(y-1)` and `log(x) x^y`, the principal branch; `atan2`'s
            // as JAX's `atan2_p` jvp on complex values).
            Add | Subtract | Multiply | Divide | Power | Atan2 => {}
            _ => return Err(e.internal(format!("{b:?} of complex values is not differentiated"))),
        }
    } else if !tz.is_float() {
        return Ok((Partial::Zero, Partial::Zero));
    }
    Ok(match b {
        Add => (Partial::One, Partial::One),
        Subtract => (Partial::One, Partial::MinusOne),
        Multiply => (Partial::Factor(y), Partial::Factor(x)),
        Divide => {
            let q = e.div(z, y)?;
            let nq = e.neg(q)?;
            (Partial::Quotient(y), Partial::Factor(nq))
        }
        Maximum | Minimum => (
            Partial::Factor(balanced_eq(e, x, z, y)?),
            Partial::Factor(balanced_eq(e, y, z, x)?),
        ),
        // d/dx = y x^(y-1) (0 where y == 0); d/dy = log(x) z (0 where x == 0).
        Power => {
            let one = e.full_like(y, 1.0)?;
            let ym1 = e.sub(y, one)?;
            let p = e.binary(Power, x, ym1)?;
            let dx = e.mul(y, p)?;
            let zero = e.full_like(y, 0.0)?;
            let y0 = e.compare(ComparisonDirection::Eq, y, zero)?;
            let dx = e.select(y0, zero, dx)?;
            let x0 = e.compare(ComparisonDirection::Eq, x, zero)?;
            let safe = e.select(x0, one, x)?;
            let l = e.unary(UnaryOp::Log, safe)?;
            let dy = e.mul(l, z)?;
            (Partial::Factor(dx), Partial::Factor(dy))
        }
        // x - trunc(x / y) * y
        Remainder => {
            let q = e.div(x, y)?;
            let s = e.unary(UnaryOp::Sign, q)?;
            let a = e.unary(UnaryOp::Abs, q)?;
            let f = e.unary(UnaryOp::Floor, a)?;
            let t = e.mul(s, f)?;
            let nt = e.neg(t)?;
            (Partial::One, Partial::Factor(nt))
        }
        // atan2(x, y): d/dx = y / (x^2 + y^2), d/dy = -x / (x^2 + y^2);
        // JAX's rule, holomorphic, so it serves complex operands as written.
        Atan2 => {
            let xx = e.mul(x, x)?;
            let yy = e.mul(y, y)?;
            let d = e.addv(xx, yy)?;
            let dx = e.div(y, d)?;
            let nx = e.neg(x)?;
            let dy = e.div(nx, d)?;
            (Partial::Factor(dx), Partial::Factor(dy))
        }
        // `complex` has a complex result, handled above.
        And | Or | Xor | ShiftLeft | ShiftRightLogical | ShiftRightArithmetic | Complex => {
            (Partial::Zero, Partial::Zero)
        }
    })
}

/// JAX's `_balanced_eq`: 1 where `x == z` and `y != z`, 0.5 where both
/// equal `z`, 0 elsewhere.
fn balanced_eq(e: &mut Emitter, x: InstId, z: InstId, y: InstId) -> Result<InstId, TransformError> {
    let xz = e.compare(ComparisonDirection::Eq, x, z)?;
    let yz = e.compare(ComparisonDirection::Eq, y, z)?;
    let one = e.full_like(z, 1.0)?;
    let half = e.full_like(z, 0.5)?;
    let zero = e.full_like(z, 0.0)?;
    let inner = e.select(yz, half, one)?;
    e.select(xz, inner, zero)
}
