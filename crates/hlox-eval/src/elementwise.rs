//! Element-wise operations with XLA's semantics (hlo_evaluator_typed_visitor.h).
//!
//! Integers are computed in i64 (signed) / u64 (unsigned, PRED) and wrapped
//! to the element width when written; F16/BF16 are computed in f32 and
//! rounded after every op, as XLA's CPU backend does.

use crate::value::{daz, decode, encode, int_width, OpError, Vals, R};
use hlox_hlo::semantics::reduce_precision::ReducePrecision;
use hlox_hlo::{ArrayLiteral, BinaryOp, ComparisonDirection, ComparisonType, ElementType, UnaryOp};

/// Float operations shared by f32 and f64.
pub(crate) trait Fp: Copy + PartialOrd + std::ops::Neg<Output = Self> + 'static {
    const ZERO: Self;
    const ONE: Self;
    const NAN: Self;
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn rem(self, o: Self) -> Self;
    fn powf(self, o: Self) -> Self;
    fn atan2(self, o: Self) -> Self;
    fn unary(self, op: UnaryOp) -> Option<Self>;
    /// Sign-magnitude bits mapped to a totally ordered integer (TOTALORDER).
    fn total_key(self) -> i64;
}

macro_rules! impl_fp {
    ($t:ty, $bits:ty, $sbits:ty, $erf:path) => {
        impl Fp for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const NAN: Self = <$t>::NAN;
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Self {
                self / o
            }
            fn rem(self, o: Self) -> Self {
                self % o
            }
            fn powf(self, o: Self) -> Self {
                // XLA: 1^x = 1 and x^0 = 1 for every x (NaN included).
                if self == 1.0 || o == 0.0 {
                    1.0
                } else {
                    <$t>::powf(self, o)
                }
            }
            fn atan2(self, o: Self) -> Self {
                <$t>::atan2(self, o)
            }
            fn unary(self, op: UnaryOp) -> Option<Self> {
                use UnaryOp::*;
                let x = self;
                Some(match op {
                    Negate => -x,
                    Abs => x.abs(),
                    // sign(±0) = ±0, sign(NaN) = NaN.
                    Sign => {
                        if x.is_nan() || x == 0.0 {
                            x
                        } else {
                            (1.0 as $t).copysign(x)
                        }
                    }
                    Exp => x.exp(),
                    Expm1 => x.exp_m1(),
                    Log => x.ln(),
                    Log1p => x.ln_1p(),
                    Sqrt => x.sqrt(),
                    Rsqrt => 1.0 / x.sqrt(),
                    Cbrt => x.cbrt(),
                    Tanh => x.tanh(),
                    Logistic => 1.0 / (1.0 + (-x).exp()),
                    Sin => x.sin(),
                    Cos => x.cos(),
                    Tan => x.tan(),
                    Floor => x.floor(),
                    Ceil => x.ceil(),
                    RoundNearestAfz => x.round(),
                    RoundNearestEven => x.round_ties_even(),
                    Erf => $erf(x),
                    // A real number is its own real part; its imaginary part is 0.
                    Real => x,
                    Imag => 0.0,
                    Not | IsFinite | PopulationCount | CountLeadingZeros => return None,
                })
            }
            fn total_key(self) -> i64 {
                let b = self.to_bits() as $sbits;
                let k = if b < 0 { b ^ <$sbits>::MAX } else { b };
                k as i64
            }
        }
    };
}
impl_fp!(f32, u32, i32, libm::erff);
impl_fp!(f64, u64, i64, libm::erf);

/// Apply a unary op; the result type is `out_ty` (PRED for is-finite).
pub(crate) fn unary(op: UnaryOp, a: &ArrayLiteral, out_ty: ElementType) -> R<ArrayLiteral> {
    let ty = a.ty();
    let dims = a.dims().to_vec();
    let v = daz(decode(a));
    if op == UnaryOp::IsFinite {
        let r: Vec<u64> = match &v {
            Vals::F(v) => v.iter().map(|x| x.is_finite() as u64).collect(),
            Vals::D(v) => v.iter().map(|x| x.is_finite() as u64).collect(),
            _ => return Err(format!("is-finite needs a floating-point operand, got {ty}").into()),
        };
        return Ok(encode(&Vals::U(r), out_ty, &dims));
    }
    let r = match v {
        Vals::F(v) => Vals::F(float_unary(op, &v, ty)?),
        Vals::D(v) => Vals::D(float_unary(op, &v, ty)?),
        v @ (Vals::C(_) | Vals::Z(_)) => crate::complex::unary(op, v, ty)?,
        Vals::S(v) => {
            let w = int_width(ty);
            let mut r = Vec::with_capacity(v.len());
            for x in v {
                r.push(int_unary_s(op, x, w).ok_or_else(|| unsupported(op.name(), ty))?);
            }
            Vals::S(r)
        }
        Vals::U(v) => {
            let w = int_width(ty);
            let pred = ty == ElementType::Pred;
            let mut r = Vec::with_capacity(v.len());
            for x in v {
                r.push(int_unary_u(op, x, w, pred).ok_or_else(|| unsupported(op.name(), ty))?);
            }
            Vals::U(r)
        }
    };
    Ok(encode(&daz(r), out_ty, &dims))
}

fn unsupported(op: &'static str, ty: ElementType) -> OpError {
    OpError::Unsupported { op, ty }
}

fn float_unary<T: Fp>(op: UnaryOp, v: &[T], ty: ElementType) -> R<Vec<T>> {
    if v.is_empty() {
        return if T::ONE.unary(op).is_some() {
            Ok(Vec::new())
        } else {
            Err(unsupported(op.name(), ty))
        };
    }
    let mut r = Vec::with_capacity(v.len());
    for &x in v {
        r.push(x.unary(op).ok_or_else(|| unsupported(op.name(), ty))?);
    }
    Ok(r)
}

fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

fn int_unary_s(op: UnaryOp, x: i64, w: u32) -> Option<i64> {
    use UnaryOp::*;
    Some(match op {
        Negate => x.wrapping_neg(),
        Abs => x.wrapping_abs(),
        Sign => x.signum(),
        Not => !x,
        PopulationCount => ((x as u64) & mask(w)).count_ones() as i64,
        CountLeadingZeros => (((x as u64) & mask(w)).leading_zeros() - (64 - w)) as i64,
        _ => return None,
    })
}

fn int_unary_u(op: UnaryOp, x: u64, w: u32, pred: bool) -> Option<u64> {
    use UnaryOp::*;
    Some(match op {
        Not if pred => (x == 0) as u64,
        Not => !x,
        Negate if !pred => x.wrapping_neg(),
        Abs => x,
        Sign => (x != 0) as u64,
        PopulationCount if !pred => (x & mask(w)).count_ones() as u64,
        CountLeadingZeros if !pred => ((x & mask(w)).leading_zeros() - (64 - w)) as u64,
        _ => return None,
    })
}

/// One element of a signed integer binary op (width `w` bits).
pub(crate) fn bin_s(op: BinaryOp, a: i64, b: i64, w: u32) -> Option<i64> {
    use BinaryOp::*;
    let min = if w >= 64 {
        i64::MIN
    } else {
        -(1i64 << (w - 1))
    };
    let oob = b < 0 || b >= w as i64;
    Some(match op {
        Add => a.wrapping_add(b),
        Subtract => a.wrapping_sub(b),
        Multiply => a.wrapping_mul(b),
        Divide => {
            if b == 0 {
                -1
            } else if b == -1 && a == min {
                a
            } else {
                a / b
            }
        }
        Remainder => {
            if b == 0 {
                a
            } else if b == -1 {
                0
            } else {
                a % b
            }
        }
        Power => {
            if a == 1 || b == 0 {
                1
            } else if b < 0 {
                0
            } else {
                ipow(a as u64, b as u64) as i64
            }
        }
        Maximum => a.max(b),
        Minimum => a.min(b),
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        ShiftLeft => {
            if oob {
                0
            } else {
                a.wrapping_shl(b as u32)
            }
        }
        ShiftRightLogical => {
            if oob {
                0
            } else {
                (((a as u64) & mask(w)) >> b) as i64
            }
        }
        ShiftRightArithmetic => {
            if oob {
                if a < 0 {
                    -1
                } else {
                    0
                }
            } else {
                a >> b
            }
        }
        Atan2 | Complex => return None,
    })
}

/// One element of an unsigned integer (or PRED) binary op.
pub(crate) fn bin_u(op: BinaryOp, a: u64, b: u64, w: u32, pred: bool) -> Option<u64> {
    use BinaryOp::*;
    let oob = b >= w as u64;
    let sext = |x: u64| -> i64 {
        if w >= 64 {
            x as i64
        } else {
            ((x << (64 - w)) as i64) >> (64 - w)
        }
    };
    Some(match op {
        Add => a.wrapping_add(b),
        Subtract => a.wrapping_sub(b),
        Multiply => a.wrapping_mul(b),
        // x / 0 = all ones.
        Divide => a.checked_div(b).unwrap_or(u64::MAX),
        Remainder => {
            if b == 0 {
                a
            } else {
                a % b
            }
        }
        Power => {
            if a == 1 || b == 0 {
                1
            } else {
                ipow(a, b)
            }
        }
        Maximum => a.max(b),
        Minimum => a.min(b),
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        ShiftLeft if !pred => {
            if oob {
                0
            } else {
                a << b
            }
        }
        ShiftRightLogical if !pred => {
            if oob {
                0
            } else {
                (a & mask(w)) >> b
            }
        }
        ShiftRightArithmetic if !pred => {
            let s = sext(a);
            if oob {
                if s < 0 {
                    u64::MAX
                } else {
                    0
                }
            } else {
                (s >> b) as u64
            }
        }
        _ => return None,
    })
}

/// Integer power by squaring, wrapping (XLA's IPow in the unsigned type).
fn ipow(mut base: u64, mut exp: u64) -> u64 {
    let mut r: u64 = 1;
    while exp > 0 {
        if exp & 1 == 1 {
            r = r.wrapping_mul(base);
        }
        exp >>= 1;
        base = base.wrapping_mul(base);
    }
    r
}

/// One element of a float binary op.
pub(crate) fn bin_f<T: Fp>(op: BinaryOp, a: T, b: T) -> Option<T> {
    use BinaryOp::*;
    Some(match op {
        Add => a.add(b),
        Subtract => a.sub(b),
        Multiply => a.mul(b),
        Divide => a.div(b),
        Remainder => a.rem(b),
        Power => a.powf(b),
        // XLA:CPU's maximum/minimum: NaN propagates (the first NaN operand),
        // and -0 orders below +0 (IEEE 754-2019 maximum/minimum, as
        // `llvm.maximum`): `jnp.maximum(-0., 0.)` is +0 under jax 0.10.2.
        Maximum => {
            if a.is_nan() {
                a
            } else if b.is_nan() || a < b || (a == b && a.is_sign_negative()) {
                b
            } else {
                a
            }
        }
        Minimum => {
            if a.is_nan() {
                a
            } else if b.is_nan() || b < a || (a == b && b.is_sign_negative()) {
                b
            } else {
                a
            }
        }
        Atan2 => a.atan2(b),
        _ => return None,
    })
}

/// Binary elementwise ops take operands of one element type and shape;
/// returns that element type.
fn same_shape(a: &ArrayLiteral, b: &ArrayLiteral) -> R<ElementType> {
    let (ta, tb, da, db) = (a.ty(), b.ty(), a.dims(), b.dims());
    if ta != tb {
        Err(format!("operands have different element types {ta} and {tb}").into())
    } else if da != db {
        Err(format!("operands have different dimensions {da:?} and {db:?}").into())
    } else {
        Ok(ta)
    }
}

pub(crate) fn binary(
    op: BinaryOp,
    a: &ArrayLiteral,
    b: &ArrayLiteral,
    out_ty: ElementType,
) -> R<ArrayLiteral> {
    let ty = same_shape(a, b)?;
    let dims = a.dims().to_vec();
    let r = binary_vals(op, decode(a), decode(b), ty)?;
    Ok(encode(&r, out_ty, &dims))
}

pub(crate) fn binary_vals(op: BinaryOp, a: Vals, b: Vals, ty: ElementType) -> R<Vals> {
    // XLA:CPU calls libm's pow, which reads its inputs' bits: no DAZ there
    // (pow(-3.5, -1e-40) is NaN, not pow(-3.5, -0) = 1).
    if op == BinaryOp::Power {
        return binary_vals_exact(op, a, b, ty).map(daz);
    }
    binary_vals_exact(op, daz(a), daz(b), ty).map(daz)
}

fn binary_vals_exact(op: BinaryOp, a: Vals, b: Vals, ty: ElementType) -> R<Vals> {
    let err = || unsupported(op.name(), ty);
    let w = int_width(ty);
    let pred = ty == ElementType::Pred;
    Ok(match (a, b) {
        (Vals::S(a), Vals::S(b)) => {
            let mut r = Vec::with_capacity(a.len());
            for (x, y) in a.into_iter().zip(b) {
                r.push(bin_s(op, x, y, w).ok_or_else(err)?);
            }
            Vals::S(r)
        }
        (Vals::U(a), Vals::U(b)) => {
            let mut r = Vec::with_capacity(a.len());
            for (x, y) in a.into_iter().zip(b) {
                r.push(bin_u(op, x, y, w, pred).ok_or_else(err)?);
            }
            Vals::U(r)
        }
        (a, b) if op == BinaryOp::Complex => crate::complex::make(a, b)?,
        (a @ (Vals::C(_) | Vals::Z(_)), b) => crate::complex::binary(op, a, b, ty)?,
        (Vals::F(a), Vals::F(b)) => Vals::F(bin_f_vals(op, a, b).ok_or_else(err)?),
        (Vals::D(a), Vals::D(b)) => Vals::D(bin_f_vals(op, a, b).ok_or_else(err)?),
        _ => return Err("operand domains differ".into()),
    })
}

/// `op` over two float arrays; `None` when floats lack `op` (asked once, on
/// zeros), NaN for an element the op leaves undefined.
fn bin_f_vals<T: Fp>(op: BinaryOp, a: Vec<T>, b: Vec<T>) -> Option<Vec<T>> {
    bin_f(op, T::ZERO, T::ZERO)?;
    Some(
        a.into_iter()
            .zip(b)
            .map(|(x, y)| bin_f(op, x, y).unwrap_or(T::NAN))
            .collect(),
    )
}

/// One comparison. `Some(ordering)`-style: returns the boolean result.
fn cmp_result<T: PartialOrd>(dir: ComparisonDirection, a: T, b: T) -> bool {
    use ComparisonDirection::*;
    match dir {
        Eq => a == b,
        Ne => a != b,
        Ge => a >= b,
        Gt => a > b,
        Le => a <= b,
        Lt => a < b,
    }
}

pub(crate) fn compare(
    dir: ComparisonDirection,
    cmp_type: Option<ComparisonType>,
    a: &ArrayLiteral,
    b: &ArrayLiteral,
    out_ty: ElementType,
) -> R<ArrayLiteral> {
    let ty = same_shape(a, b)?;
    let ct = cmp_type.unwrap_or_else(|| ComparisonType::default_for(ty));
    let r = compare_vals(dir, ct, decode(a), decode(b), ty)?;
    Ok(encode(&Vals::U(r), out_ty, a.dims()))
}

pub(crate) fn compare_vals(
    dir: ComparisonDirection,
    ct: ComparisonType,
    a: Vals,
    b: Vals,
    ty: ElementType,
) -> R<Vec<u64>> {
    let w = int_width(ty);
    let (a, b) = if ct == ComparisonType::Float {
        (daz(a), daz(b))
    } else {
        (a, b)
    };
    Ok(match (a, b) {
        (Vals::S(a), Vals::S(b)) => match ct {
            ComparisonType::Unsigned => {
                let m = mask(w);
                cmp_by(dir, &a, &b, |x| x as u64 & m)
            }
            _ => cmp_by(dir, &a, &b, |x| x),
        },
        (Vals::U(a), Vals::U(b)) => match ct {
            ComparisonType::Signed => {
                let sext = |x: u64| {
                    if w >= 64 {
                        x as i64
                    } else {
                        ((x << (64 - w)) as i64) >> (64 - w)
                    }
                };
                cmp_by(dir, &a, &b, sext)
            }
            _ => cmp_by(dir, &a, &b, |x| x),
        },
        (Vals::F(a), Vals::F(b)) => float_cmp(dir, ct, &a, &b),
        (Vals::D(a), Vals::D(b)) => float_cmp(dir, ct, &a, &b),
        (a @ (Vals::C(_) | Vals::Z(_)), b) => crate::complex::compare(dir, a, b)?,
        _ => return Err("operand domains differ".into()),
    })
}

/// `dir` on each pair of integers, both sides seen through `key` (the
/// comparison type's reading of the bits).
fn cmp_by<T: Copy, K: PartialOrd>(
    dir: ComparisonDirection,
    a: &[T],
    b: &[T],
    key: impl Fn(T) -> K,
) -> Vec<u64> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| cmp_result(dir, key(x), key(y)) as u64)
        .collect()
}

fn float_cmp<T: Fp>(dir: ComparisonDirection, ct: ComparisonType, a: &[T], b: &[T]) -> Vec<u64> {
    if ct == ComparisonType::TotalOrder {
        a.iter()
            .zip(b)
            .map(|(&x, &y)| cmp_result(dir, x.total_key(), y.total_key()) as u64)
            .collect()
    } else {
        a.iter()
            .zip(b)
            .map(|(&x, &y)| cmp_result(dir, x, y) as u64)
            .collect()
    }
}

/// clamp(lo, x, hi) with scalar-or-array bounds; NaN in any operand propagates.
pub(crate) fn clamp(
    lo: &ArrayLiteral,
    x: &ArrayLiteral,
    hi: &ArrayLiteral,
    out_ty: ElementType,
) -> R<ArrayLiteral> {
    let ty = x.ty();
    for (n, o) in [("min", lo), ("max", hi)] {
        if o.ty() != ty {
            return Err(format!(
                "clamp {n} has element type {} but the operand is {ty}",
                o.ty()
            )
            .into());
        }
        if !o.dims().is_empty() && o.dims() != x.dims() {
            return Err(format!(
                "clamp {n} has dimensions {:?}, operand {:?}",
                o.dims(),
                x.dims()
            )
            .into());
        }
    }
    let n = x.element_count();
    let at = |v: &Vals, i: usize| -> usize {
        if v.len() == 1 {
            0
        } else {
            i
        }
    };
    let (lv, xv, hv) = (daz(decode(lo)), daz(decode(x)), daz(decode(hi)));
    let r = match (&lv, &xv, &hv) {
        (Vals::S(l), Vals::S(v), Vals::S(h)) => Vals::S(
            (0..n)
                .map(|i| v[i].max(l[at(&lv, i)]).min(h[at(&hv, i)]))
                .collect(),
        ),
        (Vals::U(l), Vals::U(v), Vals::U(h)) => Vals::U(
            (0..n)
                .map(|i| v[i].max(l[at(&lv, i)]).min(h[at(&hv, i)]))
                .collect(),
        ),
        (Vals::F(l), Vals::F(v), Vals::F(h)) => Vals::F(
            (0..n)
                .map(|i| fclamp(l[at(&lv, i)], v[i], h[at(&hv, i)]))
                .collect(),
        ),
        (Vals::D(l), Vals::D(v), Vals::D(h)) => Vals::D(
            (0..n)
                .map(|i| fclamp(l[at(&lv, i)], v[i], h[at(&hv, i)]))
                .collect(),
        ),
        _ => return Err("clamp operand domains differ".into()),
    };
    Ok(encode(&r, out_ty, x.dims()))
}

fn fclamp<T: Fp>(lo: T, x: T, hi: T) -> T {
    if lo.is_nan() {
        return lo;
    }
    if x.is_nan() {
        return x;
    }
    if hi.is_nan() {
        return hi;
    }
    let m = if x < lo { lo } else { x };
    if m < hi {
        m
    } else {
        hi
    }
}

/// select(pred, on_true, on_false); `pred` is a scalar or has the operands' dims.
pub(crate) fn select(p: &ArrayLiteral, t: &ArrayLiteral, f: &ArrayLiteral) -> R<ArrayLiteral> {
    if p.ty() != ElementType::Pred {
        return Err(format!("select predicate must be pred, got {}", p.ty()).into());
    }
    if t.shape().ty != f.shape().ty || t.dims() != f.dims() {
        return Err(format!(
            "select branches differ: {} vs {}",
            crate::value::ashape_str(t.shape()),
            crate::value::ashape_str(f.shape())
        )
        .into());
    }
    if p.dims().is_empty() {
        return Ok(if p.bytes()[0] != 0 {
            t.clone()
        } else {
            f.clone()
        });
    }
    if p.dims() != t.dims() {
        return Err(format!(
            "select predicate dims {:?} differ from operand dims {:?}",
            p.dims(),
            t.dims()
        )
        .into());
    }
    let esz = t.ty().byte_size();
    let mut out = f.bytes().to_vec();
    for (i, &c) in p.bytes().iter().enumerate() {
        if c != 0 {
            out[i * esz..(i + 1) * esz].copy_from_slice(&t.bytes()[i * esz..(i + 1) * esz]);
        }
    }
    crate::value::arr(t.ty(), t.dims(), out)
}

/// reduce-precision on F16/BF16/F32 (via f32 bits) and F64; the bit
/// arithmetic is [`ReducePrecision`]'s.
pub(crate) fn reduce_precision(a: &ArrayLiteral, exp_bits: i32, man_bits: i32) -> R<ArrayLiteral> {
    if exp_bits < 1 || man_bits < 0 {
        return Err(format!("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, got {exp_bits} and {man_bits}").into());
    }
    let dims = a.dims().to_vec();
    let r = match decode(a) {
        Vals::F(v) => {
            let rp = ReducePrecision::new(23, 8, man_bits as u32, exp_bits as u32);
            Vals::F(
                v.into_iter()
                    .map(|x| f32::from_bits(rp.apply(x.to_bits() as u64, x.is_nan()) as u32))
                    .collect(),
            )
        }
        Vals::D(v) => {
            let rp = ReducePrecision::new(52, 11, man_bits as u32, exp_bits as u32);
            Vals::D(
                v.into_iter()
                    .map(|x| f64::from_bits(rp.apply(x.to_bits(), x.is_nan())))
                    .collect(),
            )
        }
        _ => {
            return Err(format!(
                "reduce-precision needs a floating-point operand, got {}",
                a.ty()
            )
            .into())
        }
    };
    Ok(encode(&r, a.ty(), &dims))
}
