//! Element-wise code for complex values (c64, c128).
//!
//! A complex compute value is the LLVM struct `{float, float}` (c64) or
//! `{double, double}` (c128), the same as its storage type, so loads,
//! stores, `select` and phis need nothing special. Arithmetic that is a few
//! instructions (`real`, `imag`, `complex`, negate, add, subtract, multiply,
//! `eq`/`ne`, converts) is emitted inline, in the same operation order as
//! `hlox_hlo::semantics::complex` (so it rounds the same); the functions
//! with branches and library calls ([`ComplexFn`]: abs, sign, divide,
//! power, exp, log, sqrt, trigonometric, ...) are calls into one runtime
//! entry per part type ([`crate::ConvertHelpers::complex_c64`] /
//! `complex_c128`) that computes exactly what the evaluator computes. A
//! backend without those entries (device code) emits them through its
//! [`crate::MathLib::complex`] (the CUDA backend's NVPTX math library), or
//! gets an error naming the op. [`crate::scalar`] routes complex element types here in one place per
//! kind of op: [`apply`] for unary, binary and compare ([`ComplexOp`]),
//! [`convert`] for converts.

use crate::{Cg, CodegenError, Result};
use hlox_hlo::semantics::complex::ComplexFn;
use hlox_hlo::{BinaryOp, ComparisonDirection, ElementType, UnaryOp};
use inkwell::types::FloatType;
use inkwell::values::{BasicValue, BasicValueEnum, FloatValue, StructValue};
use inkwell::FloatPredicate;

type V<'ctx> = BasicValueEnum<'ctx>;

fn other<T>(msg: String) -> Result<T> {
    Err(CodegenError::Other(msg))
}

/// The part type of complex `ty` as an LLVM float type.
fn part_type<'ctx>(cg: &Cg<'_, 'ctx>, ty: ElementType) -> Result<FloatType<'ctx>> {
    match ty {
        ElementType::C64 => Ok(cg.f32()),
        ElementType::C128 => Ok(cg.f64()),
        _ => other(format!("{ty} is not a complex type")),
    }
}

/// The real and imaginary parts of a complex compute value.
pub fn parts<'ctx>(cg: &Cg<'_, 'ctx>, z: V<'ctx>) -> Result<(FloatValue<'ctx>, FloatValue<'ctx>)> {
    let V::StructValue(s) = z else {
        return other(format!("expected a complex value, got {}", z.get_type()));
    };
    let re = cg.b.build_extract_value(s, 0, "re")?.into_float_value();
    let im = cg.b.build_extract_value(s, 1, "im")?.into_float_value();
    Ok((re, im))
}

/// The complex value of type `ty` with parts `re`, `im`.
pub fn make<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ty: ElementType,
    re: FloatValue<'ctx>,
    im: FloatValue<'ctx>,
) -> Result<V<'ctx>> {
    let st = cg.storage_type(ty).into_struct_type();
    let s: StructValue = st.get_undef();
    let s = cg.b.build_insert_value(s, re, 0, "")?;
    let s = cg.b.build_insert_value(s, im, 1, "")?;
    Ok(s.as_basic_value_enum())
}

/// The constant complex value of type `ty` stored as `bytes` (two
/// little-endian parts).
pub fn constant<'ctx>(cg: &Cg<'_, 'ctx>, ty: ElementType, bytes: &[u8]) -> Result<V<'ctx>> {
    let pt = part_type(cg, ty)?;
    let n = ty.byte_size() / 2;
    if bytes.len() < 2 * n {
        return other(format!(
            "a {ty} constant needs {} bytes, has {}",
            2 * n,
            bytes.len()
        ));
    }
    let part = |b: &[u8]| -> f64 {
        if n == 4 {
            f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64
        } else {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[..8]);
            f64::from_le_bytes(a)
        }
    };
    let (re, im) = (
        pt.const_float(part(&bytes[..n])),
        pt.const_float(part(&bytes[n..2 * n])),
    );
    Ok(cg
        .storage_type(ty)
        .into_struct_type()
        .const_named_struct(&[re.into(), im.into()])
        .into())
}

/// An element-wise operation on complex values: the one entry through
/// which [`crate::scalar`]'s `unary`, `binary` and `compare` route complex
/// element types (and `complex(re, im)`) to this module.
#[derive(Clone, Copy, Debug)]
pub enum ComplexOp {
    Unary(UnaryOp),
    Binary(BinaryOp),
    Compare(ComparisonDirection),
}

impl ComplexOp {
    fn name(self) -> &'static str {
        match self {
            ComplexOp::Unary(op) => op.name(),
            ComplexOp::Binary(op) => op.name(),
            ComplexOp::Compare(dir) => dir.name(),
        }
    }
}

/// The real and imaginary parts of one complex value.
type Parts<'ctx> = (FloatValue<'ctx>, FloatValue<'ctx>);

/// `op(args)` for complex elements of type `ty`, or `complex(re, im)` of
/// two real parts (`ty` is then the parts' type, f32 or f64). `real`,
/// `imag` and `abs` give the part type, compares PRED (i1), every other op
/// `ty`. Denormal parts of the operands and the result are flushed to
/// zero, as the evaluator flushes them (XLA:CPU's flush-to-zero modes).
pub fn apply<'ctx>(
    cg: &Cg<'_, 'ctx>,
    op: ComplexOp,
    ty: ElementType,
    args: &[V<'ctx>],
) -> Result<V<'ctx>> {
    let args = args
        .iter()
        .map(|&v| flush(cg, v))
        .collect::<Result<Vec<_>>>()?;
    let r = match (op, &args[..]) {
        (ComplexOp::Unary(UnaryOp::Real), &[x]) => parts(cg, x)?.0.into(),
        (ComplexOp::Unary(UnaryOp::Imag), &[x]) => parts(cg, x)?.1.into(),
        (ComplexOp::Unary(UnaryOp::Negate), &[x]) => {
            let (re, im) = parts(cg, x)?;
            let (re, im) = (cg.b.build_float_neg(re, "")?, cg.b.build_float_neg(im, "")?);
            make(cg, ty, re, im)?
        }
        (ComplexOp::Unary(_), &[x]) => call(cg, op, ty, x, None)?,
        (ComplexOp::Binary(BinaryOp::Complex), &[re, im]) => {
            let Some(cty) = ty.complex_of() else {
                return other(format!("complex takes f32 or f64 parts, not {ty}"));
            };
            make(cg, cty, re.into_float_value(), im.into_float_value())?
        }
        (
            ComplexOp::Binary(bop @ (BinaryOp::Add | BinaryOp::Subtract | BinaryOp::Multiply)),
            &[a, b],
        ) => {
            let (re, im) = arith(cg, bop, parts(cg, a)?, parts(cg, b)?)?;
            make(cg, ty, re, im)?
        }
        (ComplexOp::Binary(_), &[a, b]) => call(cg, op, ty, a, Some(b))?,
        (ComplexOp::Compare(dir), &[a, b]) => equal(cg, dir, ty, parts(cg, a)?, parts(cg, b)?)?,
        _ => {
            return other(format!(
                "{} of {ty} values got {} operands",
                op.name(),
                args.len()
            ))
        }
    };
    flush(cg, r)
}

/// `a op b` part by part for add, subtract and multiply, in
/// `hlox_hlo::semantics::complex`'s operation order.
fn arith<'ctx>(
    cg: &Cg<'_, 'ctx>,
    op: BinaryOp,
    (ar, ai): Parts<'ctx>,
    (br, bi): Parts<'ctx>,
) -> Result<Parts<'ctx>> {
    let b = cg.b;
    Ok(match op {
        BinaryOp::Add => (
            b.build_float_add(ar, br, "")?,
            b.build_float_add(ai, bi, "")?,
        ),
        BinaryOp::Subtract => (
            b.build_float_sub(ar, br, "")?,
            b.build_float_sub(ai, bi, "")?,
        ),
        // (a.re b.re - a.im b.im) + i (a.re b.im + a.im b.re), num_complex's order.
        _ => {
            let rr = b.build_float_mul(ar, br, "")?;
            let ii = b.build_float_mul(ai, bi, "")?;
            let ri = b.build_float_mul(ar, bi, "")?;
            let ir = b.build_float_mul(ai, br, "")?;
            (
                b.build_float_sub(rr, ii, "")?,
                b.build_float_add(ri, ir, "")?,
            )
        }
    })
}

/// `eq`/`ne` of complex elements (both parts equal; NaN equals nothing);
/// complex numbers are not ordered, so other directions are refused.
fn equal<'ctx>(
    cg: &Cg<'_, 'ctx>,
    dir: ComparisonDirection,
    ty: ElementType,
    (ar, ai): Parts<'ctx>,
    (br, bi): Parts<'ctx>,
) -> Result<V<'ctx>> {
    let b = cg.b;
    let r = match dir {
        ComparisonDirection::Eq => {
            let x = b.build_float_compare(FloatPredicate::OEQ, ar, br, "")?;
            let y = b.build_float_compare(FloatPredicate::OEQ, ai, bi, "")?;
            b.build_and(x, y, "")?
        }
        ComparisonDirection::Ne => {
            let x = b.build_float_compare(FloatPredicate::UNE, ar, br, "")?;
            let y = b.build_float_compare(FloatPredicate::UNE, ai, bi, "")?;
            b.build_or(x, y, "")?
        }
        d => {
            return other(format!(
                "complex numbers are not ordered: direction {} is not defined for {ty}",
                d.name()
            ))
        }
    };
    Ok(r.into())
}

/// A call of the runtime entry computing `op(a, b)` on `ty` values (the
/// [`ComplexFn`]s: functions with branches and library calls); an op with
/// no such function is refused for complex types.
fn call<'ctx>(
    cg: &Cg<'_, 'ctx>,
    op: ComplexOp,
    ty: ElementType,
    a: V<'ctx>,
    b: Option<V<'ctx>>,
) -> Result<V<'ctx>> {
    let what = op.name();
    let f = match op {
        ComplexOp::Unary(u) => ComplexFn::of_unary(u),
        ComplexOp::Binary(bop) => ComplexFn::of_binary(bop),
        ComplexOp::Compare(_) => None,
    };
    let Some(f) = f else {
        return other(format!("{what} is not defined for element type {ty}"));
    };
    let addr = match ty {
        ElementType::C64 => cg.helpers.complex_c64,
        _ => cg.helpers.complex_c128,
    };
    let pt = part_type(cg, ty)?;
    let (ar, ai) = parts(cg, a)?;
    let (br, bi) = match b {
        Some(b) => parts(cg, b)?,
        None => (pt.const_zero(), pt.const_zero()),
    };
    if addr == 0 {
        // Device code: the math library's own complex code, if it has it.
        return match cg.math.complex(cg, f, (ar, ai), (br, bi)) {
            Some(r) => {
                let (re, im) = r?;
                Ok(match f {
                    ComplexFn::Abs => re.into(),
                    _ => make(cg, ty, re, im)?,
                })
            }
            None => other(format!(
                "{what} of {ty} values is not compiled for this target yet (it has no complex \
                 runtime entry); run the module on the Host or with the evaluator"
            )),
        };
    }
    let out = cg.entry_alloca(pt.array_type(2).into(), "cout")?;
    let fty = cg.ctx.void_type().fn_type(
        &[
            cg.i32().into(),
            pt.into(),
            pt.into(),
            pt.into(),
            pt.into(),
            cg.ptr().into(),
        ],
        false,
    );
    let code = cg.i32().const_int(f.code() as u64, false);
    cg.call_addr(
        addr,
        fty,
        &[
            code.into(),
            ar.into(),
            ai.into(),
            br.into(),
            bi.into(),
            out.into(),
        ],
    )?;
    let re = cg.b.build_load(pt, out, "")?.into_float_value();
    let p1 = unsafe { cg.b.build_in_bounds_gep(pt, out, &[cg.i64c(1)], "")? };
    let im = cg.b.build_load(pt, p1, "")?.into_float_value();
    Ok(match f {
        ComplexFn::Abs => re.into(),
        _ => make(cg, ty, re, im)?,
    })
}

/// `convert` to or from a complex type: a real value becomes the real part
/// (imaginary 0) through f64, as the evaluator converts; complex types
/// change precision part by part. Complex to real is refused (the verifier
/// refuses it too).
pub fn convert<'ctx>(
    cg: &Cg<'_, 'ctx>,
    from: ElementType,
    to: ElementType,
    x: V<'ctx>,
) -> Result<V<'ctx>> {
    use ElementType::*;
    if from == to {
        return Ok(x);
    }
    let to_part = part_type(cg, to).map_err(|_| {
        CodegenError::Other(format!(
            "convert from {from} to {to}: a complex value has no real conversion (take `real` \
             or `abs` first)"
        ))
    })?;
    let (re, im) = if from.is_complex() {
        let (re, im) = parts(cg, x)?;
        let (pf, pt) = (part_type_of(from), part_type_of(to));
        (
            crate::scalar::convert(cg, pf, pt, re.into())?.into_float_value(),
            crate::scalar::convert(cg, pf, pt, im.into())?.into_float_value(),
        )
    } else {
        let re = match (from, to) {
            (F32, C64) => x.into_float_value(),
            (_, C64) => {
                let d = crate::scalar::convert(cg, from, F64, x)?;
                crate::scalar::convert(cg, F64, F32, d)?.into_float_value()
            }
            _ => crate::scalar::convert(cg, from, F64, x)?.into_float_value(),
        };
        (re, to_part.const_zero())
    };
    make(cg, to, re, im)
}

/// `v` with denormal parts flushed to zeros of their sign (a complex or
/// real float value; anything else unchanged).
fn flush<'ctx>(cg: &Cg<'_, 'ctx>, v: V<'ctx>) -> Result<V<'ctx>> {
    Ok(match v {
        V::FloatValue(f) => crate::scalar::daz(cg, f)?.into(),
        V::StructValue(s) => {
            let (re, im) = parts(cg, s.into())?;
            let (re, im) = (crate::scalar::daz(cg, re)?, crate::scalar::daz(cg, im)?);
            let t = s.get_type();
            let z = cg.b.build_insert_value(t.get_undef(), re, 0, "")?;
            let z = cg.b.build_insert_value(z, im, 1, "")?;
            z.as_basic_value_enum()
        }
        v => v,
    })
}

fn part_type_of(ty: ElementType) -> ElementType {
    ty.complex_component().unwrap_or(ty)
}
