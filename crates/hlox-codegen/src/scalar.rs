//! Per-element semantics of the element-wise opcodes, on compute values.
//! Mirrors `hlox-eval`'s elementwise.rs (XLA:CPU semantics): integer
//! division by zero gives -1 (all ones), INT_MIN / -1 = INT_MIN, shifts
//! by at least the width give 0 (or the sign for arithmetic shifts), float -> int
//! converts saturate with NaN -> 0, max/min propagate NaN, F16/BF16 are
//! computed in f32 and rounded after every op.

use crate::complex::ComplexOp;
use crate::math::MathFn;
use crate::{Cg, CodegenError, Result};
use hlox_hlo::semantics::reduce_precision::ReducePrecision;
use hlox_hlo::{BinaryOp, ComparisonDirection, ComparisonType, ElementType, UnaryOp};
use inkwell::basic_block::BasicBlock;
use inkwell::intrinsics::Intrinsic;
use inkwell::values::{BasicValueEnum, FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};

type V<'ctx> = BasicValueEnum<'ctx>;

fn err<T>(op: &str, ty: ElementType) -> Result<T> {
    Err(CodegenError::Other(format!(
        "{op} is not defined for element type {ty}"
    )))
}

fn intrinsic_call<'ctx>(
    cg: &Cg<'_, 'ctx>,
    name: &str,
    tys: &[inkwell::types::BasicTypeEnum<'ctx>],
    args: &[inkwell::values::BasicMetadataValueEnum<'ctx>],
) -> Result<V<'ctx>> {
    let intr =
        Intrinsic::find(name).ok_or_else(|| CodegenError::Other(format!("no intrinsic {name}")))?;
    let decl = intr
        .get_declaration(cg.module, tys)
        .ok_or_else(|| CodegenError::Other(format!("no declaration of {name}")))?;
    cg.b.build_call(decl, args, "")?
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| CodegenError::Other(format!("{name} returned void")))
}

/// f32 -> bf16 bits, round to nearest even, NaN quieted (as `half::bf16::from_f32`).
pub fn f32_to_bf16_bits<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<IntValue<'ctx>> {
    let b = cg.b;
    let i32t = cg.i32();
    let bits = b.build_bit_cast(x, i32t, "")?.into_int_value();
    let c = |v: u64| i32t.const_int(v, false);
    let abs = b.build_and(bits, c(0x7FFF_FFFF), "")?;
    let is_nan = b.build_int_compare(IntPredicate::UGT, abs, c(0x7F80_0000), "")?;
    let hi = b.build_right_shift(bits, c(16), false, "")?;
    let nan_r = b.build_or(hi, c(0x40), "")?;
    // round bit set and (sticky or lsb) -> +1
    let rb = b.build_and(bits, c(0x8000), "")?;
    let rb_set = b.build_int_compare(IntPredicate::NE, rb, c(0), "")?;
    let st = b.build_and(bits, c(3 * 0x8000 - 1), "")?;
    let st_set = b.build_int_compare(IntPredicate::NE, st, c(0), "")?;
    let inc = b.build_and(rb_set, st_set, "")?;
    let inc = b.build_int_z_extend(inc, i32t, "")?;
    let r = b.build_int_add(hi, inc, "")?;
    let r = b.build_select(is_nan, nan_r, r, "")?.into_int_value();
    Ok(b.build_int_truncate(r, cg.ctx.i16_type(), "")?)
}

/// Flush a denormal to a zero of the same sign, with integer operations
/// (the floating-point environment's DAZ/FTZ covers arithmetic; this covers
/// sign operations, selections and library calls, as the evaluator does).
pub fn daz<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<FloatValue<'ctx>> {
    let b = cg.b;
    let is64 = x.get_type() == cg.f64();
    let (it, exp_mask, sign) = if is64 {
        (cg.i64(), 0x7FF0_0000_0000_0000u64, 0x8000_0000_0000_0000u64)
    } else {
        (cg.i32(), 0x7F80_0000u64, 0x8000_0000u64)
    };
    let bits = b.build_bit_cast(x, it, "")?.into_int_value();
    let e = b.build_and(bits, it.const_int(exp_mask, false), "")?;
    let den = b.build_int_compare(IntPredicate::EQ, e, it.const_zero(), "")?;
    let z = b.build_and(bits, it.const_int(sign, false), "")?;
    let r = b.build_select(den, z, bits, "")?;
    Ok(b.build_bit_cast(r, x.get_type(), "")?.into_float_value())
}

/// f32 -> f64 exactly, denormals included (DAZ would flush them in `fpext`).
fn f32_to_f64_exact<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<FloatValue<'ctx>> {
    let b = cg.b;
    let bits = b.build_bit_cast(x, cg.i32(), "")?.into_int_value();
    let e = b.build_and(bits, cg.i32().const_int(0x7F80_0000, false), "")?;
    let den = b.build_int_compare(IntPredicate::EQ, e, cg.i32().const_zero(), "")?;
    let m = b.build_and(bits, cg.i32().const_int(0x007F_FFFF, false), "")?;
    let mf = b.build_unsigned_int_to_float(m, cg.f64(), "")?;
    let v = b.build_float_mul(mf, cg.f64().const_float(2f64.powi(-149)), "")?;
    let neg = b.build_int_compare(IntPredicate::SLT, bits, cg.i32().const_zero(), "")?;
    let nv = b.build_float_neg(v, "")?;
    let dv = b.build_select(neg, nv, v, "")?.into_float_value();
    let ext = b.build_float_ext(x, cg.f64(), "")?;
    Ok(b.build_select(den, dv, ext, "")?.into_float_value())
}

/// f64 -> f32 rounding to nearest even, denormal results included (FTZ
/// would flush them in `fptrunc`).
fn f64_to_f32_exact<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<FloatValue<'ctx>> {
    let b = cg.b;
    let ax = cg.math.emit(cg, MathFn::Fabs, &[x])?;
    let small = b.build_float_compare(
        FloatPredicate::OLT,
        ax,
        cg.f64().const_float(2f64.powi(-126)),
        "",
    )?;
    let scaled = b.build_float_mul(ax, cg.f64().const_float(2f64.powi(149)), "")?;
    let r = cg.math.emit(cg, MathFn::RoundEven, &[scaled])?;
    let m = b.build_float_to_unsigned_int(r, cg.i32(), "")?;
    let xb = b.build_bit_cast(x, cg.i64(), "")?.into_int_value();
    let sign = b.build_right_shift(xb, cg.i64().const_int(32, false), false, "")?;
    let sign = b.build_int_truncate(sign, cg.i32(), "")?;
    let sign = b.build_and(sign, cg.i32().const_int(0x8000_0000, false), "")?;
    let bits = b.build_or(m, sign, "")?;
    let den = b.build_bit_cast(bits, cg.f32(), "")?;
    let t = b.build_float_trunc(x, cg.f32(), "")?;
    Ok(b.build_select(small, den, t.into(), "")?.into_float_value())
}

/// f64 -> f32 rounding to odd (truncate, then set the last bit when
/// inexact): a later round-to-nearest-even to at most 22 significand bits
/// (F16, BF16) then equals a single rounding of the f64 value. Used where
/// no [`crate::ConvertHelpers`] address exists (device code); assumes no
/// flushing of f32 denormals in `fptrunc` (they round to zero in F16/BF16).
pub fn f64_to_f32_round_to_odd<'ctx>(
    cg: &Cg<'_, 'ctx>,
    x: FloatValue<'ctx>,
) -> Result<FloatValue<'ctx>> {
    let b = cg.b;
    let t = b.build_float_trunc(x, cg.f32(), "")?;
    let back = b.build_float_ext(t, cg.f64(), "")?;
    let inexact = b.build_float_compare(FloatPredicate::ONE, back, x, "")?;
    let ab = cg.math.emit(cg, MathFn::Fabs, &[back])?;
    let ax = cg.math.emit(cg, MathFn::Fabs, &[x])?;
    let over = b.build_float_compare(FloatPredicate::OGT, ab, ax, "")?;
    let tb = b.build_bit_cast(t, cg.i32(), "")?.into_int_value();
    let dec = b.build_int_sub(tb, cg.i32().const_int(1, false), "")?;
    let down = b.build_and(inexact, over, "")?;
    let tb = b.build_select(down, dec, tb, "")?.into_int_value();
    let odd = b.build_or(tb, cg.i32().const_int(1, false), "")?;
    let tb = b.build_select(inexact, odd, tb, "")?;
    Ok(b.build_bit_cast(tb, cg.f32(), "")?.into_float_value())
}

/// The bits of f32 or f64 `x` without its sign: zero exactly for ±0, with
/// no denormals-are-zero (a denormal is not zero here).
fn magnitude_bits<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<IntValue<'ctx>> {
    let bits = float_bits(cg, x)?;
    let it = bits.get_type();
    let sign_off = it.const_int(u64::MAX >> (65 - it.get_bit_width()), false);
    Ok(cg.b.build_and(bits, sign_off, "")?)
}

/// Whether f32 or f64 `x` has its sign bit set (-0 included).
fn sign_bit<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<IntValue<'ctx>> {
    let bits = float_bits(cg, x)?;
    let zero = bits.get_type().const_zero();
    Ok(cg.b.build_int_compare(IntPredicate::SLT, bits, zero, "")?)
}

/// The bits of f32 or f64 `x` as an i32 or i64.
fn float_bits<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<IntValue<'ctx>> {
    let it = if x.get_type() == cg.f64() {
        cg.i64()
    } else {
        cg.i32()
    };
    Ok(cg.b.build_bit_cast(x, it, "")?.into_int_value())
}

fn is_f64(ty: ElementType) -> bool {
    ty == ElementType::F64
}

/// `op(x)` for an element of type `ty`; the result has type `out_ty`
/// (PRED for is-finite, `ty` otherwise).
pub fn unary<'ctx>(cg: &Cg<'_, 'ctx>, op: UnaryOp, ty: ElementType, x: V<'ctx>) -> Result<V<'ctx>> {
    use UnaryOp::*;
    let b = cg.b;
    if ty.is_complex() {
        return crate::complex::apply(cg, ComplexOp::Unary(op), ty, &[x]);
    }
    if ty.is_float() {
        // The f32 approximations of exp/tanh/logistic only do arithmetic on
        // x (flushed by DAZ) and sign tests; their results come from
        // arithmetic (flushed by FTZ), as does log's: no explicit flushes.
        let f32_arith_in = ty == ElementType::F32 && matches!(op, Exp | Tanh | Logistic);
        // Negate/abs of a flushed input are flushed (sign operations).
        let f32_arith_out = (ty == ElementType::F32 && matches!(op, Exp | Tanh | Logistic | Log))
            || (matches!(ty, ElementType::F32 | ElementType::F64) && matches!(op, Negate | Abs));
        let x = cg.widen(ty, x)?.into_float_value();
        let x = if f32_arith_in { x } else { daz(cg, x)? };
        let ft = x.get_type();
        let one = ft.const_float(1.0);
        let m = |f| cg.math.emit(cg, f, &[x]);
        let r: FloatValue = match op {
            Negate => b.build_float_neg(x, "")?,
            // A real number's real part is itself, its imaginary part 0.
            Real => x,
            Imag => ft.const_zero(),
            Sign => {
                let isnan = b.build_float_compare(FloatPredicate::UNO, x, x, "")?;
                let iszero = b.build_float_compare(FloatPredicate::OEQ, x, ft.const_zero(), "")?;
                let keep = b.build_or(isnan, iszero, "")?;
                let s = intrinsic_call(cg, "llvm.copysign", &[ft.into()], &[one.into(), x.into()])?;
                b.build_select(keep, x, s.into_float_value(), "")?
                    .into_float_value()
            }
            Rsqrt => {
                let s = m(MathFn::Sqrt)?;
                b.build_float_div(one, s, "")?
            }
            Logistic => {
                let n = b.build_float_neg(x, "")?;
                let e = cg.math.emit(cg, MathFn::Exp, &[n])?;
                let d = b.build_float_add(one, e, "")?;
                b.build_float_div(one, d, "")?
            }
            IsFinite => {
                let a = m(MathFn::Fabs)?;
                let inf = ft.const_float(f64::INFINITY);
                return Ok(b
                    .build_float_compare(FloatPredicate::ONE, a, inf, "")?
                    .into());
            }
            _ => match MathFn::of_unary(op) {
                Some(f) => m(f)?,
                None => return err(op.name(), ty),
            },
        };
        let r = if f32_arith_out { r } else { daz(cg, r)? };
        return cg.round_to(ty, r.into());
    }
    let x = x.into_int_value();
    let it = x.get_type();
    let pred = ty == ElementType::Pred;
    let signed = ty.is_signed_int();
    Ok(match op {
        Not => b.build_not(x, "")?.into(),
        Negate if !pred => b.build_int_neg(x, "")?.into(),
        Abs if signed => {
            let n = b.build_int_neg(x, "")?;
            let neg = b.build_int_compare(IntPredicate::SLT, x, it.const_zero(), "")?;
            b.build_select(neg, n, x, "")?
        }
        Abs => x.into(),
        Sign if signed => {
            let gt = b.build_int_compare(IntPredicate::SGT, x, it.const_zero(), "")?;
            let lt = b.build_int_compare(IntPredicate::SLT, x, it.const_zero(), "")?;
            let gt = b.build_int_z_extend(gt, it, "")?;
            let lt = b.build_int_z_extend(lt, it, "")?;
            b.build_int_sub(gt, lt, "")?.into()
        }
        Sign => {
            let ne = b.build_int_compare(IntPredicate::NE, x, it.const_zero(), "")?;
            if pred {
                ne.into()
            } else {
                b.build_int_z_extend(ne, it, "")?.into()
            }
        }
        PopulationCount if !pred => intrinsic_call(cg, "llvm.ctpop", &[it.into()], &[x.into()])?,
        CountLeadingZeros if !pred => intrinsic_call(
            cg,
            "llvm.ctlz",
            &[it.into()],
            &[x.into(), cg.i1().const_zero().into()],
        )?,
        _ => return err(op.name(), ty),
    })
}

/// `op(a, b)` for elements of type `ty`.
pub fn binary<'ctx>(
    cg: &Cg<'_, 'ctx>,
    op: BinaryOp,
    ty: ElementType,
    a: V<'ctx>,
    bv: V<'ctx>,
) -> Result<V<'ctx>> {
    use BinaryOp::*;
    let b = cg.b;
    if ty.is_complex() || op == Complex {
        return crate::complex::apply(cg, ComplexOp::Binary(op), ty, &[a, bv]);
    }
    if ty.is_float() {
        let (x, y) = (
            cg.widen(ty, a)?.into_float_value(),
            cg.widen(ty, bv)?.into_float_value(),
        );
        // libm's pow reads its inputs' bits (no DAZ), as the evaluator.
        // Add/subtract/multiply/divide on F32/F64 run under DAZ/FTZ, which
        // flushes their inputs and results; the other ops need the flushes.
        let arith = matches!(ty, ElementType::F32 | ElementType::F64)
            && matches!(op, Add | Subtract | Multiply | Divide);
        let (x, y) = if op == Power || arith {
            (x, y)
        } else {
            (daz(cg, x)?, daz(cg, y)?)
        };
        let ft = x.get_type();
        let r = match op {
            Add => b.build_float_add(x, y, "")?,
            Subtract => b.build_float_sub(x, y, "")?,
            Multiply => b.build_float_mul(x, y, "")?,
            Divide => b.build_float_div(x, y, "")?,
            Remainder => cg.math.emit(cg, MathFn::Fmod, &[x, y])?,
            Power => {
                let p = cg.math.emit(cg, MathFn::Pow, &[x, y])?;
                let one = ft.const_float(1.0);
                let x1 = b.build_float_compare(FloatPredicate::OEQ, x, one, "")?;
                // y == ±0 on the bits: the check must not see DAZ (a
                // denormal y is not zero for libm's pow).
                let mag = magnitude_bits(cg, y)?;
                let y0 =
                    b.build_int_compare(IntPredicate::EQ, mag, mag.get_type().const_zero(), "")?;
                let c = b.build_or(x1, y0, "")?;
                b.build_select(c, one, p, "")?.into_float_value()
            }
            Maximum | Minimum => {
                // NaN propagates (the first NaN operand); -0 orders below
                // +0: on equal operands the maximum takes y when x is -0,
                // the minimum when y is (IEEE 754-2019, as XLA:CPU and the
                // evaluator).
                let xnan = b.build_float_compare(FloatPredicate::UNO, x, x, "")?;
                let ynan = b.build_float_compare(FloatPredicate::UNO, y, y, "")?;
                let eq = b.build_float_compare(FloatPredicate::OEQ, x, y, "")?;
                let (lt, neg) = if op == Maximum {
                    (
                        b.build_float_compare(FloatPredicate::OLT, x, y, "")?,
                        sign_bit(cg, x)?,
                    )
                } else {
                    (
                        b.build_float_compare(FloatPredicate::OLT, y, x, "")?,
                        sign_bit(cg, y)?,
                    )
                };
                let tie = b.build_and(eq, neg, "")?;
                let take_y = b.build_or(b.build_or(ynan, lt, "")?, tie, "")?;
                let r = b.build_select(take_y, y, x, "")?;
                b.build_select(xnan, x.into(), r, "")?.into_float_value()
            }
            Atan2 => cg.math.emit(cg, MathFn::Atan2, &[x, y])?,
            _ => return err(op.name(), ty),
        };
        let r = if arith { r } else { daz(cg, r)? };
        return cg.round_to(ty, r.into());
    }
    let (x, y) = (a.into_int_value(), bv.into_int_value());
    let it = x.get_type();
    let w = it.get_bit_width() as u64;
    if ty == ElementType::Pred {
        let noty = b.build_not(y, "")?;
        return Ok(match op {
            Add | Or | Maximum => b.build_or(x, y, "")?.into(),
            Subtract | Xor => b.build_xor(x, y, "")?.into(),
            Multiply | And | Minimum => b.build_and(x, y, "")?.into(),
            Divide => b.build_or(x, noty, "")?.into(),
            Remainder => b.build_and(x, noty, "")?.into(),
            Power => b.build_or(x, noty, "")?.into(),
            _ => return err(op.name(), ty),
        });
    }
    let signed = ty.is_signed_int();
    let zero = it.const_zero();
    let ones = it.const_all_ones();
    let one = it.const_int(1, false);
    let eq = |p, q| b.build_int_compare(IntPredicate::EQ, p, q, "");
    Ok(match op {
        Add => b.build_int_add(x, y, "")?.into(),
        Subtract => b.build_int_sub(x, y, "")?.into(),
        Multiply => b.build_int_mul(x, y, "")?.into(),
        Divide | Remainder => {
            let y0 = eq(y, zero)?;
            let min = it.const_int(1u64 << (w - 1), false);
            let ovf = if signed {
                let a_min = eq(x, min)?;
                let b_m1 = eq(y, ones)?;
                b.build_and(a_min, b_m1, "")?
            } else {
                cg.i1().const_zero()
            };
            let bad = b.build_or(y0, ovf, "")?;
            let safe = b.build_select(bad, one, y, "")?.into_int_value();
            if op == Divide {
                let q = if signed {
                    b.build_int_signed_div(x, safe, "")?
                } else {
                    b.build_int_unsigned_div(x, safe, "")?
                };
                // x / 0 = -1 (all ones); INT_MIN / -1 = INT_MIN (x / 1 = x).
                b.build_select(y0, ones, q, "")?
            } else {
                let r = if signed {
                    b.build_int_signed_rem(x, safe, "")?
                } else {
                    b.build_int_unsigned_rem(x, safe, "")?
                };
                // x % 0 = x; INT_MIN % -1 = 0 (x % 1 = 0).
                b.build_select(y0, x, r, "")?
            }
        }
        Power => ipow(cg, x, y, signed)?.into(),
        Maximum | Minimum => {
            let p = match (op == Maximum, signed) {
                (true, true) => IntPredicate::SGT,
                (true, false) => IntPredicate::UGT,
                (false, true) => IntPredicate::SLT,
                (false, false) => IntPredicate::ULT,
            };
            let c = b.build_int_compare(p, x, y, "")?;
            b.build_select(c, x, y, "")?
        }
        And => b.build_and(x, y, "")?.into(),
        Or => b.build_or(x, y, "")?.into(),
        Xor => b.build_xor(x, y, "")?.into(),
        ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => {
            let wc = it.const_int(w, false);
            let oob = b.build_int_compare(IntPredicate::UGE, y, wc, "")?;
            let amt = if op == ShiftRightArithmetic {
                b.build_select(oob, it.const_int(w - 1, false), y, "")?
                    .into_int_value()
            } else {
                b.build_select(oob, zero, y, "")?.into_int_value()
            };
            match op {
                ShiftLeft => {
                    let s = b.build_left_shift(x, amt, "")?;
                    b.build_select(oob, zero, s, "")?
                }
                ShiftRightLogical => {
                    let s = b.build_right_shift(x, amt, false, "")?;
                    b.build_select(oob, zero, s, "")?
                }
                _ => b.build_right_shift(x, amt, true, "")?.into(),
            }
        }
        Atan2 | Complex => return err(op.name(), ty),
    })
}

/// Integer power by squaring (wrapping), with XLA's special cases.
/// The blocks of a loop whose state lives in phis at its head.
pub struct LoopBlocks<'ctx> {
    /// The block the loop is entered from (the phis' entry edge).
    pub pre: BasicBlock<'ctx>,
    pub head: BasicBlock<'ctx>,
    pub body: BasicBlock<'ctx>,
    pub exit: BasicBlock<'ctx>,
}

/// Appends `{name}.head`, `{name}.body` and `{name}.exit` to the current
/// function, branches from the current block to the head and leaves the
/// builder there, ready for the phis.
pub fn loop_blocks<'ctx>(cg: &Cg<'_, 'ctx>, name: &str) -> Result<LoopBlocks<'ctx>> {
    let f = cg.current_fn()?;
    let pre =
        cg.b.get_insert_block()
            .ok_or_else(|| CodegenError::Other("no block".into()))?;
    let block = |part: &str| cg.ctx.append_basic_block(f, &format!("{name}.{part}"));
    let (head, body, exit) = (block("head"), block("body"), block("exit"));
    cg.b.build_unconditional_branch(head)?;
    cg.b.position_at_end(head);
    Ok(LoopBlocks {
        pre,
        head,
        body,
        exit,
    })
}

fn ipow<'ctx>(
    cg: &Cg<'_, 'ctx>,
    x: IntValue<'ctx>,
    y: IntValue<'ctx>,
    signed: bool,
) -> Result<IntValue<'ctx>> {
    let b = cg.b;
    let it = x.get_type();
    let zero = it.const_zero();
    let one = it.const_int(1, false);
    let l = loop_blocks(cg, "ipow")?;
    let (pre, head, body, exit) = (l.pre, l.head, l.body, l.exit);
    let r = b.build_phi(it, "r")?;
    let base = b.build_phi(it, "base")?;
    let e = b.build_phi(it, "e")?;
    r.add_incoming(&[(&one, pre)]);
    base.add_incoming(&[(&x, pre)]);
    e.add_incoming(&[(&y, pre)]);
    let (rv, bv, ev) = (
        r.as_basic_value().into_int_value(),
        base.as_basic_value().into_int_value(),
        e.as_basic_value().into_int_value(),
    );
    // Negative exponents (signed) end the loop at once; the result is fixed below.
    let cont = b.build_int_compare(IntPredicate::SGT, ev, zero, "")?;
    let cont = if signed {
        cont
    } else {
        b.build_int_compare(IntPredicate::NE, ev, zero, "")?
    };
    b.build_conditional_branch(cont, body, exit)?;
    b.position_at_end(body);
    let bit = b.build_and(ev, one, "")?;
    let odd = b.build_int_compare(IntPredicate::NE, bit, zero, "")?;
    let rm = b.build_int_mul(rv, bv, "")?;
    let r2 = b.build_select(odd, rm, rv, "")?.into_int_value();
    let b2 = b.build_int_mul(bv, bv, "")?;
    let e2 = b.build_right_shift(ev, one, false, "")?;
    r.add_incoming(&[(&r2, body)]);
    base.add_incoming(&[(&b2, body)]);
    e.add_incoming(&[(&e2, body)]);
    b.build_unconditional_branch(head)?;
    b.position_at_end(exit);
    let x1 = b.build_int_compare(IntPredicate::EQ, x, one, "")?;
    let y0 = b.build_int_compare(IntPredicate::EQ, y, zero, "")?;
    let one_case = b.build_or(x1, y0, "")?;
    let mut res = rv;
    if signed {
        let neg = b.build_int_compare(IntPredicate::SLT, y, zero, "")?;
        res = b.build_select(neg, zero, res, "")?.into_int_value();
    }
    Ok(b.build_select(one_case, one, res, "")?.into_int_value())
}

/// compare(a, b) -> i1.
pub fn compare<'ctx>(
    cg: &Cg<'_, 'ctx>,
    dir: ComparisonDirection,
    cmp_type: Option<ComparisonType>,
    ty: ElementType,
    a: V<'ctx>,
    bv: V<'ctx>,
) -> Result<V<'ctx>> {
    use ComparisonDirection::*;
    let b = cg.b;
    if ty.is_complex() {
        return crate::complex::apply(cg, ComplexOp::Compare(dir), ty, &[a, bv]);
    }
    let ct = cmp_type.unwrap_or_else(|| ComparisonType::default_for(ty));
    if ty.is_float() {
        let (x, y) = (
            cg.widen(ty, a)?.into_float_value(),
            cg.widen(ty, bv)?.into_float_value(),
        );
        if ct == ComparisonType::TotalOrder {
            let it = if is_f64(ty) { cg.i64() } else { cg.i32() };
            let key = |v: FloatValue<'ctx>| -> Result<IntValue<'ctx>> {
                let bits = b.build_bit_cast(v, it, "")?.into_int_value();
                let neg = b.build_int_compare(IntPredicate::SLT, bits, it.const_zero(), "")?;
                let max = it.const_int(u64::MAX >> (65 - it.get_bit_width()), false);
                let flip = b
                    .build_select(neg, max, it.const_zero(), "")?
                    .into_int_value();
                Ok(b.build_xor(bits, flip, "")?)
            };
            let (kx, ky) = (key(x)?, key(y)?);
            return Ok(b.build_int_compare(int_pred(dir, true), kx, ky, "")?.into());
        }
        let p = match dir {
            Eq => FloatPredicate::OEQ,
            Ne => FloatPredicate::UNE,
            Ge => FloatPredicate::OGE,
            Gt => FloatPredicate::OGT,
            Le => FloatPredicate::OLE,
            Lt => FloatPredicate::OLT,
        };
        return Ok(b.build_float_compare(p, x, y, "")?.into());
    }
    let signed = match ct {
        ComparisonType::Signed => true,
        ComparisonType::Unsigned => false,
        _ => ty.is_signed_int(),
    };
    Ok(b.build_int_compare(
        int_pred(dir, signed),
        a.into_int_value(),
        bv.into_int_value(),
        "",
    )?
    .into())
}

fn int_pred(dir: ComparisonDirection, signed: bool) -> IntPredicate {
    use ComparisonDirection::*;
    match (dir, signed) {
        (Eq, _) => IntPredicate::EQ,
        (Ne, _) => IntPredicate::NE,
        (Ge, true) => IntPredicate::SGE,
        (Gt, true) => IntPredicate::SGT,
        (Le, true) => IntPredicate::SLE,
        (Lt, true) => IntPredicate::SLT,
        (Ge, false) => IntPredicate::UGE,
        (Gt, false) => IntPredicate::UGT,
        (Le, false) => IntPredicate::ULE,
        (Lt, false) => IntPredicate::ULT,
    }
}

/// clamp(lo, x, hi); NaN in any operand propagates (lo first).
pub fn clamp<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ty: ElementType,
    lo: V<'ctx>,
    x: V<'ctx>,
    hi: V<'ctx>,
) -> Result<V<'ctx>> {
    let b = cg.b;
    if ty.is_float() {
        let (l, v, h) = (
            daz(cg, cg.widen(ty, lo)?.into_float_value())?,
            daz(cg, cg.widen(ty, x)?.into_float_value())?,
            daz(cg, cg.widen(ty, hi)?.into_float_value())?,
        );
        let lt = b.build_float_compare(FloatPredicate::OLT, v, l, "")?;
        let m = b.build_select(lt, l, v, "")?.into_float_value();
        let lt2 = b.build_float_compare(FloatPredicate::OLT, m, h, "")?;
        let r = b.build_select(lt2, m, h, "")?;
        let hn = b.build_float_compare(FloatPredicate::UNO, h, h, "")?;
        let r = b.build_select(hn, h.into(), r, "")?;
        let vn = b.build_float_compare(FloatPredicate::UNO, v, v, "")?;
        let r = b.build_select(vn, v.into(), r, "")?;
        let ln = b.build_float_compare(FloatPredicate::UNO, l, l, "")?;
        let r = b.build_select(ln, l.into(), r, "")?;
        return cg.round_to(ty, r);
    }
    let signed = ty.is_signed_int();
    let m = binary(cg, BinaryOp::Maximum, ty, x, lo)?;
    let _ = signed;
    binary(cg, BinaryOp::Minimum, ty, m, hi)
}

/// convert from `from` to `to` with XLA's semantics (see `hlox-eval` value.rs).
pub fn convert<'ctx>(
    cg: &Cg<'_, 'ctx>,
    from: ElementType,
    to: ElementType,
    x: V<'ctx>,
) -> Result<V<'ctx>> {
    use ElementType::*;
    let b = cg.b;
    if from == to {
        return Ok(x);
    }
    if from.is_complex() || to.is_complex() {
        return crate::complex::convert(cg, from, to, x);
    }
    let x = if from.is_float() {
        cg.widen(from, x)?
    } else {
        x
    };
    if to == Pred {
        return Ok(if from.is_float() {
            // On the bits: a denormal is not zero here (no DAZ in convert).
            let mag = magnitude_bits(cg, x.into_float_value())?;
            b.build_int_compare(IntPredicate::NE, mag, mag.get_type().const_zero(), "")?
                .into()
        } else {
            let v = x.into_int_value();
            b.build_int_compare(IntPredicate::NE, v, v.get_type().const_zero(), "")?
                .into()
        });
    }
    let dst = cg.compute_type(to);
    if !from.is_float() {
        let v = x.into_int_value();
        let signed = from.is_signed_int();
        if !to.is_float() {
            let dt = dst.into_int_type();
            let (fw, tw) = (v.get_type().get_bit_width(), dt.get_bit_width());
            return Ok(if fw == tw {
                v.into()
            } else if fw > tw {
                b.build_int_truncate(v, dt, "")?.into()
            } else if signed {
                b.build_int_s_extend(v, dt, "")?.into()
            } else {
                b.build_int_z_extend(v, dt, "")?.into()
            });
        }
        let small = v.get_type().get_bit_width() <= 32
            && !(to == Bf16 && v.get_type().get_bit_width() > 16);
        if small && (to == F32 || to == F16 || to == Bf16) {
            {
                let f = if signed {
                    b.build_signed_int_to_float(v, cg.f32(), "")?
                } else {
                    b.build_unsigned_int_to_float(v, cg.f32(), "")?
                };
                return cg.round_to(to, f.into());
            }
        }
        // Through f64, as the evaluator (`x as f64`).
        let d = if signed {
            b.build_signed_int_to_float(v, cg.f64(), "")?
        } else {
            b.build_unsigned_int_to_float(v, cg.f64(), "")?
        };
        return convert(cg, F64, to, d.into());
    }
    let v = x.into_float_value();
    if to.is_float() {
        // Both float: compute values are f32 (F16/BF16/F32) or f64.
        return Ok(match (from == F64, to == F64) {
            (false, false) => cg.round_to(to, v.into())?,
            (false, true) => f32_to_f64_exact(cg, v)?.into(),
            (true, false) => match to {
                F32 => f64_to_f32_exact(cg, v)?.into(),
                _ => {
                    let addr = if to == F16 {
                        cg.helpers.f64_to_f16
                    } else {
                        cg.helpers.f64_to_bf16
                    };
                    if addr == 0 {
                        // No host helper (device code): one rounding inline.
                        let r = f64_to_f32_round_to_odd(cg, v)?;
                        return cg.round_to(to, r.into());
                    }
                    let i16t = cg.ctx.i16_type();
                    let fty = i16t.fn_type(&[cg.f64().into()], false);
                    let bits = cg
                        .call_addr(addr, fty, &[v.into()])?
                        .ok_or_else(|| CodegenError::Other("helper returned void".into()))?;
                    let st = if to == F16 {
                        b.build_bit_cast(bits, cg.ctx.f16_type(), "")?
                    } else {
                        bits
                    };
                    st
                }
            },
            (true, true) => v.into(),
        });
    }
    // float -> int: saturating, NaN -> 0 (Rust `as`, LLVM fpto[su]i.sat).
    let dt = dst.into_int_type();
    let name = if to.is_signed_int() {
        "llvm.fptosi.sat"
    } else {
        "llvm.fptoui.sat"
    };
    intrinsic_call(cg, name, &[dt.into(), v.get_type().into()], &[v.into()])
}

/// bitcast-convert between element types of the same width.
pub fn bitcast_convert<'ctx>(
    cg: &Cg<'_, 'ctx>,
    from: ElementType,
    to: ElementType,
    x: V<'ctx>,
) -> Result<V<'ctx>> {
    let s = cg.to_storage(from, x)?;
    let bits_ty = cg
        .ctx
        .custom_width_int_type(
            std::num::NonZeroU32::new(from.bit_width().max(1)).unwrap_or(std::num::NonZeroU32::MIN),
        )
        .map_err(|e| CodegenError::Other(e.to_string()))?;
    let bits = if s.is_int_value() {
        s
    } else {
        cg.b.build_bit_cast(s, bits_ty, "")?
    };
    let st = cg.storage_type(to);
    let v = if st.is_int_type() {
        bits
    } else {
        cg.b.build_bit_cast(bits, st, "")?
    };
    cg.from_storage(to, v)
}

/// reduce-precision on a float compute value (f32 for F16/BF16/F32, f64 for
/// F64), emitting [`ReducePrecision`]'s constants.
pub fn reduce_precision<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ty: ElementType,
    x: V<'ctx>,
    exp_bits: i32,
    man_bits: i32,
) -> Result<V<'ctx>> {
    if !ty.is_float() {
        return err(hlox_hlo::Opcode::ReducePrecision.name(), ty);
    }
    if exp_bits < 1 || man_bits < 0 {
        return Err(CodegenError::Other(format!(
            "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, got {exp_bits} and {man_bits}"
        )));
    }
    let b = cg.b;
    let f = cg.widen(ty, x)?.into_float_value();
    let (it, src_man, src_exp) = if ty == ElementType::F64 {
        (cg.i64(), 52u32, 11u32)
    } else {
        (cg.i32(), 23u32, 8u32)
    };
    let rp = ReducePrecision::new(src_man, src_exp, man_bits as u32, exp_bits as u32);
    let c = |v: u64| it.const_int(v, false);
    let orig = b.build_bit_cast(f, it, "")?.into_int_value();
    let mut v = orig;
    if let Some(r) = rp.round {
        let x_last = b.build_and(v, c(r.last), "")?;
        let x_last = b.build_right_shift(x_last, c(r.shift as u64), false, "")?;
        let bias = b.build_int_add(x_last, c(r.base_bias), "")?;
        v = b.build_int_add(v, bias, "")?;
        v = b.build_and(v, c(r.trunc_mask), "")?;
    }
    if let Some(k) = rp.clamp {
        let x_exp = b.build_and(v, c(k.exp_mask), "")?;
        let over = b.build_int_compare(IntPredicate::UGT, x_exp, c(k.max_field), "")?;
        let under = b.build_int_compare(IntPredicate::ULE, x_exp, c(k.min_field), "")?;
        let zero = b.build_and(v, c(k.sign_mask), "")?;
        let inf = b.build_or(zero, c(k.exp_mask), "")?;
        v = b.build_select(over, inf, v, "")?.into_int_value();
        v = b.build_select(under, zero, v, "")?.into_int_value();
    }
    let nan = b.build_float_compare(FloatPredicate::UNO, f, f, "")?;
    let nan_r = rp.nan_bits.map_or(orig, c);
    v = b.build_select(nan, nan_r, v, "")?.into_int_value();
    let r = b.build_bit_cast(v, f.get_type(), "")?;
    cg.round_to(ty, r)
}
