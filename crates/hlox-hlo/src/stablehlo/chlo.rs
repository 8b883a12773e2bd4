//! CHLO ops that HLO has no opcode for, expanded into HLO as XLA's CHLO
//! legalization expands them (`chlo_legalize_to_stablehlo`), with the same
//! polynomials and the same order of operations, so results match JAX's
//! bit for bit. f16/bf16 are computed in f32 (as XLA does); erf_inv and
//! erfc on f64 use XLA's f64 polynomials (Giles's for erf_inv, Cephes's
//! rational approximations for erfc).

// The coefficients are written as XLA prints them (shortest f32 digits).
#![allow(clippy::excessive_precision)]

use super::lower::{Computing as Comp, Lowerer};
use super::syntax::MOp;
use crate::ir::{BinaryOp as B, ComparisonDirection as D, InstId, Op, UnaryOp as U};
use crate::literal::{ArrayLiteral, Literal};
use crate::text::ParseError;
use crate::types::{ArrayShape, ElementType, Shape};

type LResult<T> = Result<T, ParseError>;

/// `chlo.erf_inv` and `chlo.erfc` (f32 and f64; f16/bf16 in f32).
pub(crate) fn lower(lw: &mut Lowerer, c: &mut Comp, op: &MOp) -> LResult<Vec<InstId>> {
    unary_in_f32(lw, c, op, true, |lw, c, pos, x| {
        let f64 = c.insts[x].shape.element_type() == Some(ElementType::F64);
        match (op.name == "chlo.erfc", f64) {
            (true, false) => erfc_f32(lw, c, pos, x),
            (true, true) => erfc_f64(lw, c, pos, x),
            (false, false) => erf_inv_f32(lw, c, pos, x),
            (false, true) => erf_inv_f64(lw, c, pos, x),
        }
    })
}

/// `chlo.sinh` and `chlo.cosh`, as XLA's CHLO legalization writes them
/// (f32, f64, c64 and c128; f16/bf16 in f32):
///
/// - cosh(x) = e^(x + log ½) + e^(log ½ - x);
/// - sinh(x) = e^(x + log ½) - e^(log ½ - x) for |x| >= 1 and for every
///   complex x, and for real |x| < 1 (where that difference cancels)
///   (m + m / (m + 1)) · ½ with m = expm1(x).
///
/// For complex x, log ½ is the complex `log` of the constant ½ + 0i, as
/// XLA writes it.
pub(crate) fn hyperbolic(lw: &mut Lowerer, c: &mut Comp, op: &MOp) -> LResult<Vec<InstId>> {
    let pos = op.pos;
    let xs = lw.operands(c, op)?;
    if let [x] = xs.as_slice() {
        let ty = c.insts[*x].shape.element_type();
        if !ty.is_some_and(|t| t.is_float_or_complex()) {
            return lw.err(
                pos,
                format!(
                    "'{}' on {} is not supported (hlox expands it for f16, bf16, f32, f64, c64 \
                     and c128, the types XLA's CHLO legalization takes)",
                    op.name,
                    ty.map_or("a non-array", |t| t.name())
                ),
            );
        }
        if let Some(ty @ (ElementType::C64 | ElementType::C128)) = ty {
            let x = *x;
            let half = complex_splat(lw, c, pos, x, ty, 0.5)?;
            let log_half = lw.emit(c, pos, U::Log, &[half])?;
            let (up, down) = exp_pair(lw, c, pos, x, log_half)?;
            let b = if op.name == "chlo.cosh" {
                B::Add
            } else {
                B::Subtract
            };
            return Ok(vec![lw.emit(c, pos, b, &[up, down])?]);
        }
    }
    unary_in_f32(lw, c, op, true, |lw, c, pos, x| {
        let log_half = lw.emit_splat(c, pos, x, 0.5f64.ln())?;
        let (up, down) = exp_pair(lw, c, pos, x, log_half)?;
        if op.name == "chlo.cosh" {
            return lw.emit(c, pos, B::Add, &[up, down]);
        }
        let large = lw.emit(c, pos, B::Subtract, &[up, down])?;
        let one = lw.emit_splat(c, pos, x, 1.0)?;
        let m = lw.emit(c, pos, U::Expm1, &[x])?;
        let m1 = lw.emit(c, pos, B::Add, &[m, one])?;
        let q = lw.emit(c, pos, B::Divide, &[m, m1])?;
        let sum = lw.emit(c, pos, B::Add, &[m, q])?;
        let half = lw.emit_splat(c, pos, x, 0.5)?;
        let small = lw.emit(c, pos, B::Multiply, &[sum, half])?;
        let ax = lw.emit(c, pos, U::Abs, &[x])?;
        let near = lw.emit_compare(c, pos, D::Lt, ax, one)?;
        lw.emit(c, pos, Op::Select, &[near, small, large])
    })
}

/// Lanczos's approximation as XLA's CHLO legalization writes it (g = 7,
/// nine coefficients: Numerical Recipes' set; the first is the base term).
const LANCZOS_G: f64 = 7.0;
const LANCZOS_BASE: f64 = 0.99999999999980993;
const LANCZOS_COEFFS: [f64; 8] = [
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
];

/// `chlo.lgamma` and `chlo.digamma` (f32 and f64; f16/bf16 in f32), as
/// XLA's CHLO legalization expands them: Lanczos's approximation for
/// x >= 0.5 and the reflection formula below it, in the same order of
/// operations, so results match JAX's.
pub(crate) fn gamma_family(lw: &mut Lowerer, c: &mut Comp, op: &MOp) -> LResult<Vec<InstId>> {
    unary_in_f32(lw, c, op, true, |lw, c, pos, x| {
        if op.name == "chlo.digamma" {
            digamma(lw, c, pos, x)
        } else {
            lgamma(lw, c, pos, x)
        }
    })
}

/// The reflected argument: `-x` where x < 0.5 (`reflect`), else `x - 1`.
fn lanczos_z(lw: &mut Lowerer, c: &mut Comp, pos: usize, x: InstId) -> LResult<(InstId, InstId)> {
    let half = lw.emit_splat(c, pos, x, 0.5)?;
    let reflect = lw.emit_compare(c, pos, D::Lt, x, half)?;
    let neg = lw.emit(c, pos, U::Negate, &[x])?;
    let one = lw.emit_splat(c, pos, x, 1.0)?;
    let less = lw.emit(c, pos, B::Subtract, &[x, one])?;
    let z = lw.emit(c, pos, Op::Select, &[reflect, neg, less])?;
    Ok((reflect, z))
}

/// log(z + g + ½) as `log1p(z / (g + ½)) + log(g + ½)`.
fn log_t(lw: &mut Lowerer, c: &mut Comp, pos: usize, z: InstId) -> LResult<InstId> {
    let gh = lw.emit_splat(c, pos, z, LANCZOS_G + 0.5)?;
    let q = lw.emit(c, pos, B::Divide, &[z, gh])?;
    let l = lw.emit(c, pos, U::Log1p, &[q])?;
    let log_gh = lw.emit_splat(c, pos, z, (LANCZOS_G + 0.5).ln())?;
    lw.emit(c, pos, B::Add, &[l, log_gh])
}

/// Lanczos's sum `base + Σ cᵢ / (z + i)` (`base` added to the first term).
fn lanczos_sum(lw: &mut Lowerer, c: &mut Comp, pos: usize, z: InstId) -> LResult<InstId> {
    let mut acc = None;
    for (i, &k) in LANCZOS_COEFFS.iter().enumerate() {
        let term = lanczos_term(lw, c, pos, z, i, k, false)?;
        acc = Some(match acc {
            None => {
                let base = lw.emit_splat(c, pos, z, LANCZOS_BASE)?;
                lw.emit(c, pos, B::Add, &[term, base])?
            }
            Some(a) => lw.emit(c, pos, B::Add, &[a, term])?,
        });
    }
    Ok(acc.expect("nine coefficients"))
}

/// `k / (z + i + 1)`, or with `squared` `k / (z + i + 1)²`.
fn lanczos_term(
    lw: &mut Lowerer,
    c: &mut Comp,
    pos: usize,
    z: InstId,
    i: usize,
    k: f64,
    squared: bool,
) -> LResult<InstId> {
    let n = lw.emit_splat(c, pos, z, (i + 1) as f64)?;
    let zi = lw.emit(c, pos, B::Add, &[z, n])?;
    let d = if squared {
        lw.emit(c, pos, B::Multiply, &[zi, zi])?
    } else {
        zi
    };
    let k = lw.emit_splat(c, pos, z, k)?;
    lw.emit(c, pos, B::Divide, &[k, d])
}

fn lgamma(lw: &mut Lowerer, c: &mut Comp, pos: usize, x: InstId) -> LResult<InstId> {
    let ax = lw.emit(c, pos, U::Abs, &[x])?;
    let inf = lw.emit_splat(c, pos, x, f64::INFINITY)?;
    let is_inf = lw.emit_compare(c, pos, D::Eq, ax, inf)?;
    let (reflect, z) = lanczos_z(lw, c, pos, x)?;
    // The reflection's log(sin(pi * frac)), frac folded into [0, ½].
    let fl = lw.emit(c, pos, U::Floor, &[ax])?;
    let frac = lw.emit(c, pos, B::Subtract, &[ax, fl])?;
    let half = lw.emit_splat(c, pos, x, 0.5)?;
    let upper = lw.emit_compare(c, pos, D::Lt, half, frac)?;
    let one = lw.emit_splat(c, pos, x, 1.0)?;
    let flipped = lw.emit(c, pos, B::Subtract, &[one, frac])?;
    let frac = lw.emit(c, pos, Op::Select, &[upper, flipped, frac])?;
    let pi = lw.emit_splat(c, pos, x, std::f64::consts::PI)?;
    let angle = lw.emit(c, pos, B::Multiply, &[frac, pi])?;
    let sin = lw.emit(c, pos, U::Sin, &[angle])?;
    let log_sin = lw.emit(c, pos, U::Log, &[sin])?;
    let dims = lw.tensor(c, pos, log_sin)?.dims;
    let finite = lw.add(
        c,
        pos,
        Op::Unary(U::IsFinite),
        Shape::array(ElementType::Pred, dims),
        vec![log_sin],
        vec![],
    )?;
    let log_pi = lw.emit_splat(c, pos, x, std::f64::consts::PI.ln())?;
    let reflected_num = lw.emit(c, pos, B::Subtract, &[log_pi, log_sin])?;
    // log Γ(z + 1) = (z + ½ - t / log t) log t + log √(2π) + log(sum),
    // t = z + g + ½.
    let zh = lw.emit(c, pos, B::Add, &[z, half])?;
    let gh = lw.emit_splat(c, pos, x, LANCZOS_G + 0.5)?;
    let t = lw.emit(c, pos, B::Add, &[z, gh])?;
    let lt = log_t(lw, c, pos, z)?;
    let q = lw.emit(c, pos, B::Divide, &[t, lt])?;
    let d = lw.emit(c, pos, B::Subtract, &[zh, q])?;
    let m = lw.emit(c, pos, B::Multiply, &[d, lt])?;
    let log_sqrt_2pi = lw.emit_splat(c, pos, x, (2.0 * std::f64::consts::PI).sqrt().ln())?;
    let front = lw.emit(c, pos, B::Add, &[m, log_sqrt_2pi])?;
    let sum = lanczos_sum(lw, c, pos, z)?;
    let log_sum = lw.emit(c, pos, U::Log, &[sum])?;
    let direct = lw.emit(c, pos, B::Add, &[front, log_sum])?;
    let reflected = lw.emit(c, pos, B::Subtract, &[reflected_num, direct])?;
    let pole = lw.emit(c, pos, U::Negate, &[log_sin])?;
    let reflected = lw.emit(c, pos, Op::Select, &[finite, reflected, pole])?;
    let r = lw.emit(c, pos, Op::Select, &[reflect, reflected, direct])?;
    lw.emit(c, pos, Op::Select, &[is_inf, inf, r])
}

fn digamma(lw: &mut Lowerer, c: &mut Comp, pos: usize, x: InstId) -> LResult<InstId> {
    let zero = lw.emit_splat(c, pos, x, 0.0)?;
    let nonpositive = lw.emit_compare(c, pos, D::Le, x, zero)?;
    let fl = lw.emit(c, pos, U::Floor, &[x])?;
    let integral = lw.emit_compare(c, pos, D::Eq, x, fl)?;
    let pole = lw.emit(c, pos, B::And, &[nonpositive, integral])?;
    let nan = lw.emit_splat(c, pos, x, f64::NAN)?;
    let (reflect, z) = lanczos_z(lw, c, pos, x)?;
    let lt = log_t(lw, c, pos, z)?;
    // The sum's derivative over the sum: Σ -cᵢ / (z + i)² / sum.
    let mut num = zero;
    for (i, &k) in LANCZOS_COEFFS.iter().enumerate() {
        let term = lanczos_term(lw, c, pos, z, i, k, true)?;
        num = lw.emit(c, pos, B::Subtract, &[num, term])?;
    }
    let sum = lanczos_sum(lw, c, pos, z)?;
    let ratio = lw.emit(c, pos, B::Divide, &[num, sum])?;
    let d = lw.emit(c, pos, B::Add, &[lt, ratio])?;
    let gh = lw.emit_splat(c, pos, x, LANCZOS_G + 0.5)?;
    let t = lw.emit(c, pos, B::Add, &[z, gh])?;
    let g = lw.emit_splat(c, pos, x, LANCZOS_G)?;
    let gt = lw.emit(c, pos, B::Divide, &[g, t])?;
    let direct = lw.emit(c, pos, B::Subtract, &[d, gt])?;
    // Reflection: ψ(x) = ψ(1 - x) - π cos(πx) / sin(πx), with x reduced
    // by |floor(x + ½)| first.
    let half = lw.emit_splat(c, pos, x, 0.5)?;
    let xh = lw.emit(c, pos, B::Add, &[x, half])?;
    let n = lw.emit(c, pos, U::Floor, &[xh])?;
    let n = lw.emit(c, pos, U::Abs, &[n])?;
    let r = lw.emit(c, pos, B::Add, &[x, n])?;
    let pi = lw.emit_splat(c, pos, x, std::f64::consts::PI)?;
    let a = lw.emit(c, pos, B::Multiply, &[r, pi])?;
    let cos = lw.emit(c, pos, U::Cos, &[a])?;
    let cpi = lw.emit(c, pos, B::Multiply, &[cos, pi])?;
    let sin = lw.emit(c, pos, U::Sin, &[a])?;
    let cot = lw.emit(c, pos, B::Divide, &[cpi, sin])?;
    let reflected = lw.emit(c, pos, B::Subtract, &[direct, cot])?;
    let v = lw.emit(c, pos, Op::Select, &[reflect, reflected, direct])?;
    lw.emit(c, pos, Op::Select, &[pole, nan, v])
}

/// (e^(x + log ½), e^(log ½ - x)), the two halves of cosh and sinh.
fn exp_pair(
    lw: &mut Lowerer,
    c: &mut Comp,
    pos: usize,
    x: InstId,
    log_half: InstId,
) -> LResult<(InstId, InstId)> {
    let up = lw.emit(c, pos, B::Add, &[x, log_half])?;
    let up = lw.emit(c, pos, U::Exp, &[up])?;
    let down = lw.emit(c, pos, B::Subtract, &[log_half, x])?;
    let down = lw.emit(c, pos, U::Exp, &[down])?;
    Ok((up, down))
}

/// The complex scalar `re + 0i` of type `ty` (c64 or c128), broadcast to
/// `x`'s shape.
fn complex_splat(
    lw: &mut Lowerer,
    c: &mut Comp,
    pos: usize,
    x: InstId,
    ty: ElementType,
    re: f64,
) -> LResult<InstId> {
    let dims = lw.tensor(c, pos, x)?.dims;
    let bytes = match ty {
        ElementType::C64 => [(re as f32).to_le_bytes(), 0f32.to_le_bytes()].concat(),
        _ => [re.to_le_bytes(), 0f64.to_le_bytes()].concat(),
    };
    let lit = match ArrayLiteral::from_bytes(ArrayShape::scalar(ty), bytes) {
        Ok(l) => l,
        Err(e) => return lw.err(pos, e.to_string()),
    };
    let k = lw.add(
        c,
        pos,
        Op::Constant {
            literal: Literal::Array(lit),
        },
        Shape::scalar(ty),
        vec![],
        vec![],
    )?;
    lw.add(
        c,
        pos,
        Op::Broadcast { dimensions: vec![] },
        Shape::Array(ArrayShape::new(ty, dims)),
        vec![k],
        vec![],
    )
}

/// A one-operand CHLO op expanded by `expand` on f32 (and on f64 itself
/// when `f64` is set), as XLA's CHLO legalization does: f16/bf16 operands
/// are converted to f32 and the result back; any other element type is
/// refused, naming the op and what is supported.
fn unary_in_f32(
    lw: &mut Lowerer,
    c: &mut Comp,
    op: &MOp,
    f64: bool,
    expand: impl FnOnce(&mut Lowerer, &mut Comp, usize, InstId) -> LResult<InstId>,
) -> LResult<Vec<InstId>> {
    let pos = op.pos;
    let x = lw.operands(c, op)?;
    let [x] = x.as_slice() else {
        return lw.err(pos, format!("'{}' takes one operand", op.name));
    };
    let ty = c.insts[*x].shape.element_type();
    let wide = match ty {
        Some(ElementType::F32) => *x,
        Some(ElementType::F64) if f64 => *x,
        Some(ElementType::F16) | Some(ElementType::Bf16) => {
            convert(lw, c, pos, *x, ElementType::F32)?
        }
        _ => {
            let supported = if f64 {
                "f16, bf16, f32 and f64"
            } else {
                "f32, f16 and bf16"
            };
            return lw.err(
                pos,
                format!(
                    "'{}' on {} is not supported yet (hlox expands it for {supported})",
                    op.name,
                    ty.map_or("a non-array", |t| t.name())
                ),
            );
        }
    };
    let r = expand(lw, c, pos, wide)?;
    let r = match ty {
        Some(t @ (ElementType::F16 | ElementType::Bf16)) => convert(lw, c, pos, r, t)?,
        _ => r,
    };
    Ok(vec![r])
}

fn convert(
    lw: &mut Lowerer,
    c: &mut Comp,
    pos: usize,
    x: InstId,
    t: ElementType,
) -> LResult<InstId> {
    let s = Shape::array(t, lw.tensor(c, pos, x)?.dims);
    lw.add(c, pos, Op::Convert, s, vec![x], vec![])
}

/// `p = c[0]; p = p * w + c[i]` (Horner), coefficients of f32 or f64.
fn horner<T: Copy + Into<f64>>(
    lw: &mut Lowerer,
    c: &mut Comp,
    pos: usize,
    w: InstId,
    coeffs: &[T],
) -> LResult<InstId> {
    let mut p = lw.emit_splat(c, pos, w, coeffs[0].into())?;
    for &k in &coeffs[1..] {
        let m = lw.emit(c, pos, B::Multiply, &[p, w])?;
        let k = lw.emit_splat(c, pos, w, k.into())?;
        p = lw.emit(c, pos, B::Add, &[m, k])?;
    }
    Ok(p)
}

/// `num / den` for `num = scale * horner(w, n)` and `den = horner(w, d)`.
fn rational(
    lw: &mut Lowerer,
    c: &mut Comp,
    pos: usize,
    w: InstId,
    scale: InstId,
    n: &[f64],
    d: &[f64],
) -> LResult<InstId> {
    let p = horner(lw, c, pos, w, n)?;
    let num = lw.emit(c, pos, B::Multiply, &[scale, p])?;
    let den = horner(lw, c, pos, w, d)?;
    lw.emit(c, pos, B::Divide, &[num, den])
}

/// f64 erfc as XLA expands it (Cephes's `erfc`): `1 - erf(x)` by a
/// rational function of x² for |x| < 1; else `exp(-x²)` times a rational
/// function of |x| (one for |x| < 8, one above), 0 where `-x²` underflows,
/// reflected (`2 - y`) for negative x.
fn erfc_f64(lw: &mut Lowerer, c: &mut Comp, pos: usize, x: InstId) -> LResult<InstId> {
    let one = lw.emit_splat(c, pos, x, 1.0)?;
    let ax = lw.emit(c, pos, U::Abs, &[x])?;
    let small = lw.emit_compare(c, pos, D::Lt, ax, one)?;
    let z = lw.emit(c, pos, B::Multiply, &[x, x])?;
    let erf = rational(
        lw,
        c,
        pos,
        z,
        x,
        &[
            9.6049737398705162,
            90.026019720384269,
            2232.0053459468431,
            7003.3251411280507,
            55592.301301039493,
        ],
        &[
            1.0,
            33.561714164750313,
            521.35794978015269,
            4594.3238297098014,
            22629.000061389095,
            49267.394260863592,
        ],
    )?;
    let near = lw.emit(c, pos, B::Subtract, &[one, erf])?;
    let zero = lw.emit_splat(c, pos, x, 0.0)?;
    let neg = lw.emit_compare(c, pos, D::Lt, x, zero)?;
    let nz = lw.emit(c, pos, U::Negate, &[z])?;
    let lim = lw.emit_splat(c, pos, x, -709.782712893384)?;
    let underflow = lw.emit_compare(c, pos, D::Lt, nz, lim)?;
    let eight = lw.emit_splat(c, pos, x, 8.0)?;
    let below8 = lw.emit_compare(c, pos, D::Lt, ax, eight)?;
    let e = lw.emit(c, pos, U::Exp, &[nz])?;
    let mid = rational(
        lw,
        c,
        pos,
        ax,
        e,
        &[
            2.4619698147353052e-10,
            0.56418956483106886,
            7.4632105644226989,
            48.637197098568137,
            196.5208329560771,
            526.44519499547732,
            934.52852717195765,
            1027.5518868951572,
            557.53533536939938,
        ],
        &[
            1.0,
            13.228195115474499,
            86.707214088598974,
            354.93777888781989,
            975.70850174320549,
            1823.9091668790973,
            2246.3376081871097,
            1656.6630919416134,
            557.53534081772773,
        ],
    )?;
    let tail = rational(
        lw,
        c,
        pos,
        ax,
        e,
        &[
            0.56418958354775506,
            1.275366707599781,
            5.0190504225118051,
            6.160210979930536,
            7.4097426995044895,
            2.9788666537210022,
        ],
        &[
            1.0,
            2.2605286322011726,
            9.3960352493800148,
            12.048953980809666,
            17.081445074756591,
            9.6089680906328585,
            3.3690764510008151,
        ],
    )?;
    let y = lw.emit(c, pos, Op::Select, &[below8, mid, tail])?;
    let y = lw.emit(c, pos, Op::Select, &[underflow, zero, y])?;
    let two = lw.emit_splat(c, pos, x, 2.0)?;
    let flipped = lw.emit(c, pos, B::Subtract, &[two, y])?;
    let far = lw.emit(c, pos, Op::Select, &[neg, flipped, y])?;
    lw.emit(c, pos, Op::Select, &[small, near, far])
}

/// f64 erf_inv as XLA expands it (Giles's "Approximating the erfinv
/// function"): with `w = -log1p(-x²)`, a polynomial in `w - 3.125` for
/// w < 6.25 (23 terms), in `sqrt(w) - 3.25` for w < 16 (19 terms), in
/// `sqrt(w) - 5` above (17 terms), times x; ±inf at ±1. The three
/// polynomials run as one Horner loop on selected coefficients; a shorter
/// one keeps its value through the longer ones' last steps.
fn erf_inv_f64(lw: &mut Lowerer, c: &mut Comp, pos: usize, x: InstId) -> LResult<InstId> {
    const LOW: [f64; 23] = [
        -3.64441206401782e-21,
        -1.6850591381820166e-19,
        1.28584807152564e-18,
        1.1157877678025181e-17,
        -1.3331716628546209e-16,
        2.0972767875968562e-17,
        6.6376381343583238e-15,
        -4.0545662729752069e-14,
        -8.1519341976054722e-14,
        2.6335093153082323e-12,
        -1.2975133253453532e-11,
        -5.4154120542946279e-11,
        1.0512122733215323e-09,
        -4.1126339803469837e-09,
        -2.9070369957882005e-08,
        4.2347877827932404e-07,
        -1.3654692000834679e-06,
        -1.3882523362786469e-05,
        0.00018673420803405714,
        -0.000740702534166267,
        -0.0060336708714301491,
        0.24015818242558962,
        1.6536545626831027,
    ];
    const MID: [f64; 19] = [
        2.2137376921775787e-09,
        9.0756561938885391e-08,
        -2.7517406297064545e-07,
        1.8239629214389228e-08,
        1.5027403968909828e-06,
        -4.013867526981546e-06,
        2.9234449089955446e-06,
        1.2475304481671779e-05,
        -4.7318229009055734e-05,
        6.8284851459573175e-05,
        2.4031110387097894e-05,
        -0.00035503752036284748,
        0.0009532893797373805,
        -0.0016882755560235047,
        0.0024914420961078508,
        -0.0037512085075692412,
        0.0053709145535900636,
        1.0052589676941592,
        3.0838856104922208,
    ];
    const HIGH: [f64; 17] = [
        -2.7109920616438573e-11,
        -2.5556418169965252e-10,
        1.5076572693500548e-09,
        -3.789465440126737e-09,
        7.61570120807834e-09,
        -1.496002662714924e-08,
        2.9147953450901081e-08,
        -6.7711997758452339e-08,
        2.2900482228026655e-07,
        -9.9298272942317e-07,
        4.5260625972231537e-06,
        -1.9681778105531671e-05,
        7.5995277030017761e-05,
        -0.00021503011930044477,
        -0.00013871931833623122,
        1.0103004648645344,
        4.8499064014085844,
    ];
    let (w, finish) = erf_inv_frame(lw, c, pos, x)?;
    let k = lw.emit_splat(c, pos, x, 6.25)?;
    let low = lw.emit_compare(c, pos, D::Lt, w, k)?;
    let k = lw.emit_splat(c, pos, x, 16.0)?;
    let mid = lw.emit_compare(c, pos, D::Lt, w, k)?;
    let k = lw.emit_splat(c, pos, x, 3.125)?;
    let wl = lw.emit(c, pos, B::Subtract, &[w, k])?;
    let sw = lw.emit(c, pos, U::Sqrt, &[w])?;
    let (a, b) = (
        lw.emit_splat(c, pos, x, 3.25)?,
        lw.emit_splat(c, pos, x, 5.0)?,
    );
    let shift = lw.emit(c, pos, Op::Select, &[mid, a, b])?;
    let wh = lw.emit(c, pos, B::Subtract, &[sw, shift])?;
    let ww = lw.emit(c, pos, Op::Select, &[low, wl, wh])?;
    // Step i's coefficient, of the polynomials still running.
    let coeff = |lw: &mut Lowerer, c: &mut Comp, i: usize| -> LResult<InstId> {
        let l = lw.emit_splat(c, pos, x, LOW[i])?;
        if i >= MID.len() {
            return Ok(l);
        }
        let m = lw.emit_splat(c, pos, x, MID[i])?;
        let lm = lw.emit(c, pos, Op::Select, &[low, l, m])?;
        if i >= HIGH.len() {
            return Ok(lm);
        }
        let h = lw.emit_splat(c, pos, x, HIGH[i])?;
        lw.emit(c, pos, Op::Select, &[mid, lm, h])
    };
    let mut p = coeff(lw, c, 0)?;
    for i in 1..LOW.len() {
        let k = coeff(lw, c, i)?;
        let m = lw.emit(c, pos, B::Multiply, &[p, ww])?;
        let next = lw.emit(c, pos, B::Add, &[k, m])?;
        // A polynomial that has ended keeps its value.
        p = if i < HIGH.len() {
            next
        } else if i < MID.len() {
            lw.emit(c, pos, Op::Select, &[mid, next, p])?
        } else {
            lw.emit(c, pos, Op::Select, &[low, next, p])?
        };
    }
    finish(lw, c, p)
}

fn erfc_f32(lw: &mut Lowerer, c: &mut Comp, pos: usize, x: InstId) -> LResult<InstId> {
    let one = lw.emit_splat(c, pos, x, 1.0)?;
    let two = lw.emit_splat(c, pos, x, 2.0)?;
    let zero = lw.emit_splat(c, pos, x, 0.0)?;
    let ax = lw.emit(c, pos, U::Abs, &[x])?;
    let small = lw.emit_compare(c, pos, D::Lt, ax, one)?;
    // |x| < 1: 1 - erf(x), erf by its odd polynomial in x².
    let z = lw.emit(c, pos, B::Multiply, &[x, x])?;
    let p = horner(
        lw,
        c,
        pos,
        z,
        &[
            7.85386146e-05,
            -0.000801019371,
            0.00518832775,
            -0.0268538129,
            0.112835854,
            -0.37612626,
            1.12837911,
        ],
    )?;
    let erf = lw.emit(c, pos, B::Multiply, &[x, p])?;
    let near = lw.emit(c, pos, B::Subtract, &[one, erf])?;
    // |x| >= 1: exp(-x²)/|x| times a rational approximation in 1/x².
    let neg = lw.emit_compare(c, pos, D::Lt, x, zero)?;
    let z2 = lw.emit(c, pos, B::Multiply, &[x, x])?;
    let nz = lw.emit(c, pos, U::Negate, &[z2])?;
    let lim = lw.emit_splat(c, pos, x, -88.7228394)?;
    let underflow = lw.emit_compare(c, pos, D::Lt, nz, lim)?;
    let e = lw.emit(c, pos, U::Exp, &[nz])?;
    let ax2 = lw.emit(c, pos, U::Abs, &[x])?;
    let q = lw.emit(c, pos, B::Divide, &[one, ax2])?;
    let eq = lw.emit(c, pos, B::Multiply, &[e, q])?;
    let lt2 = lw.emit_compare(c, pos, D::Lt, ax2, two)?;
    let w = lw.emit(c, pos, B::Divide, &[one, z2])?;
    let p1 = horner(
        lw,
        c,
        pos,
        w,
        &[
            0.0232682,
            -0.138703942,
            0.368742466,
            -0.582473278,
            0.621000469,
            -0.494451523,
            0.340488,
            -0.274112701,
            0.563825965,
        ],
    )?;
    let p2 = horner(
        lw,
        c,
        pos,
        w,
        &[
            -10.477664,
            12.9772,
            -7.49551868,
            2.92101908,
            -1.01526523,
            0.42184633,
            -0.282076746,
            0.564189494,
        ],
    )?;
    let sel = lw.emit(c, pos, Op::Select, &[lt2, p1, p2])?;
    let r = lw.emit(c, pos, B::Multiply, &[eq, sel])?;
    let r = lw.emit(c, pos, Op::Select, &[underflow, zero, r])?;
    let flipped = lw.emit(c, pos, B::Subtract, &[two, r])?;
    let far = lw.emit(c, pos, Op::Select, &[neg, flipped, r])?;
    lw.emit(c, pos, Op::Select, &[small, near, far])
}

/// What erf_inv's two widths share: `w = -log1p(-x²)`, and the finish
/// that multiplies the polynomial `p` by x and gives ±inf at ±1.
#[allow(clippy::type_complexity)]
fn erf_inv_frame(
    lw: &mut Lowerer,
    c: &mut Comp,
    pos: usize,
    x: InstId,
) -> LResult<(
    InstId,
    impl FnOnce(&mut Lowerer, &mut Comp, InstId) -> LResult<InstId>,
)> {
    let ax = lw.emit(c, pos, U::Abs, &[x])?;
    let one = lw.emit_splat(c, pos, x, 1.0)?;
    let is_one = lw.emit_compare(c, pos, D::Eq, ax, one)?;
    let inf = lw.emit_splat(c, pos, x, f64::INFINITY)?;
    let at_one = lw.emit(c, pos, B::Multiply, &[x, inf])?;
    let nx = lw.emit(c, pos, U::Negate, &[x])?;
    let xx = lw.emit(c, pos, B::Multiply, &[x, nx])?;
    let l = lw.emit(c, pos, U::Log1p, &[xx])?;
    let w = lw.emit(c, pos, U::Negate, &[l])?;
    let finish = move |lw: &mut Lowerer, c: &mut Comp, p: InstId| {
        let r = lw.emit(c, pos, B::Multiply, &[p, x])?;
        lw.emit(c, pos, Op::Select, &[is_one, at_one, r])
    };
    Ok((w, finish))
}

fn erf_inv_f32(lw: &mut Lowerer, c: &mut Comp, pos: usize, x: InstId) -> LResult<InstId> {
    let (w, finish) = erf_inv_frame(lw, c, pos, x)?;
    let five = lw.emit_splat(c, pos, x, 5.0)?;
    let lt = lw.emit_compare(c, pos, D::Lt, w, five)?;
    const PAIRS: [(f32, f32); 9] = [
        (2.81022636e-08, -0.000200214257),
        (3.43273939e-07, 0.000100950558),
        (-3.5233877e-06, 0.00134934322),
        (-4.39150654e-06, -0.00367342844),
        (0.00021858087, 0.00573950773),
        (-0.00125372503, -0.0076224613),
        (-0.00417768164, 0.00943887047),
        (0.246640727, 1.00167406),
        (1.50140941, 2.83297682),
    ];
    let mut coeffs = Vec::with_capacity(PAIRS.len());
    for (a, b) in PAIRS {
        let a = lw.emit_splat(c, pos, x, a as f64)?;
        let b = lw.emit_splat(c, pos, x, b as f64)?;
        coeffs.push(lw.emit(c, pos, Op::Select, &[lt, a, b])?);
    }
    let k25 = lw.emit_splat(c, pos, x, 2.5)?;
    let wa = lw.emit(c, pos, B::Subtract, &[w, k25])?;
    let sw = lw.emit(c, pos, U::Sqrt, &[w])?;
    let k3 = lw.emit_splat(c, pos, x, 3.0)?;
    let wb = lw.emit(c, pos, B::Subtract, &[sw, k3])?;
    let ww = lw.emit(c, pos, Op::Select, &[lt, wa, wb])?;
    let mut p = coeffs[0];
    for &k in &coeffs[1..] {
        let m = lw.emit(c, pos, B::Multiply, &[p, ww])?;
        p = lw.emit(c, pos, B::Add, &[k, m])?;
    }
    finish(lw, c, p)
}
