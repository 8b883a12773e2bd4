//! Transcendental functions behind a trait: the host uses LLVM intrinsics
//! and libm symbols; an NVPTX backend would call libdevice (`__nv_expf`, ...).

use crate::{Cg, Result};
use inkwell::intrinsics::Intrinsic;
use inkwell::values::FloatValue;

/// A math function of one or two float arguments.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MathFn {
    Exp,
    Expm1,
    Log,
    Log1p,
    Sqrt,
    Cbrt,
    Tanh,
    Sin,
    Cos,
    Tan,
    Erf,
    Pow,
    Atan2,
    Fmod,
    Floor,
    Ceil,
    Round,
    RoundEven,
    Fabs,
}

impl MathFn {
    /// The C library's (f64) name of the function, also LLVM's intrinsic
    /// name after `llvm.` where it has one; the f32 C function adds `f`.
    pub fn c_name(self) -> &'static str {
        use MathFn::*;
        match self {
            Exp => "exp",
            Expm1 => "expm1",
            Log => "log",
            Log1p => "log1p",
            Sqrt => "sqrt",
            Cbrt => "cbrt",
            Tanh => "tanh",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Erf => "erf",
            Pow => "pow",
            Atan2 => "atan2",
            Fmod => "fmod",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            RoundEven => "roundeven",
            Fabs => "fabs",
        }
    }

    /// The function computing element-wise `op` on a real float by
    /// itself, if there is one (`abs` is `fabs`, `round_nearest_afz`
    /// `round`); the other ops are arithmetic around these or not defined
    /// on floats.
    pub fn of_unary(op: hlox_hlo::UnaryOp) -> Option<MathFn> {
        use hlox_hlo::UnaryOp as U;
        use MathFn::*;
        Some(match op {
            U::Abs => Fabs,
            U::Exp => Exp,
            U::Expm1 => Expm1,
            U::Log => Log,
            U::Log1p => Log1p,
            U::Sqrt => Sqrt,
            U::Cbrt => Cbrt,
            U::Tanh => Tanh,
            U::Sin => Sin,
            U::Cos => Cos,
            U::Tan => Tan,
            U::Floor => Floor,
            U::Ceil => Ceil,
            U::RoundNearestAfz => Round,
            U::RoundNearestEven => RoundEven,
            U::Erf => Erf,
            U::Negate
            | U::Sign
            | U::Rsqrt
            | U::Logistic
            | U::IsFinite
            | U::Not
            | U::PopulationCount
            | U::CountLeadingZeros
            | U::Real
            | U::Imag => return None,
        })
    }

    /// How many arguments the function takes (one or two).
    pub fn arity(self) -> usize {
        match self {
            MathFn::Pow | MathFn::Atan2 | MathFn::Fmod => 2,
            _ => 1,
        }
    }
}

/// hlox's own f32 code for `f` where it has one (`exp`, `log`, `tanh`):
/// every backend emits these, so that they compute the same bits.
pub fn own_f32<'ctx>(
    cg: &Cg<'_, 'ctx>,
    f: MathFn,
    x: FloatValue<'ctx>,
) -> Option<Result<FloatValue<'ctx>>> {
    match f {
        MathFn::Exp => Some(exp_f32(cg, x)),
        MathFn::Log => Some(log_f32(cg, x)),
        MathFn::Tanh => Some(tanh_f32(cg, x)),
        _ => None,
    }
}

/// Supplies the code for a [`MathFn`] on f32 or f64 values.
pub trait MathLib {
    fn emit<'ctx>(
        &self,
        cg: &Cg<'_, 'ctx>,
        f: MathFn,
        args: &[FloatValue<'ctx>],
    ) -> Result<FloatValue<'ctx>>;

    /// `f(a, b)` on complex values given as their (real, imaginary) parts
    /// (f32 for c64, f64 for c128; `b` is `(0, 0)` for unary functions),
    /// emitted inline, for targets whose code cannot call the complex
    /// runtime entry ([`crate::ConvertHelpers::complex_c64`]: device code).
    /// `None`: this library has no such code, and the op is refused by
    /// name. Only asked when the runtime entry is absent, so a backend that
    /// has one (the Host) is unaffected.
    fn complex<'ctx>(
        &self,
        _cg: &Cg<'_, 'ctx>,
        _f: hlox_hlo::semantics::complex::ComplexFn,
        _a: (FloatValue<'ctx>, FloatValue<'ctx>),
        _b: (FloatValue<'ctx>, FloatValue<'ctx>),
    ) -> Option<Result<(FloatValue<'ctx>, FloatValue<'ctx>)>> {
        None
    }
}

/// The host math library: LLVM intrinsics for what LLVM lowers inline or to
/// the C library itself, C library symbols (`expm1f`, `tanhf`, ...) for the
/// rest, and caller-provided addresses for functions that must match the
/// reference evaluator bit for bit (its `erf` comes from the `libm` crate).
#[derive(Clone, Debug, Default)]
pub struct HostMath {
    /// Address of `extern "C" fn(f32) -> f32` computing erf, if given.
    pub erff: Option<usize>,
    /// Address of `extern "C" fn(f64) -> f64` computing erf, if given.
    pub erf: Option<usize>,
    /// Address of `extern "C" fn(f32, f32) -> f32` computing pow, if given
    /// (the host runtime's runs libm's pow without DAZ on denormal inputs).
    pub powf: Option<usize>,
    /// Address of `extern "C" fn(f64, f64) -> f64` computing pow, if given.
    pub pow: Option<usize>,
}

impl MathLib for HostMath {
    fn emit<'ctx>(
        &self,
        cg: &Cg<'_, 'ctx>,
        f: MathFn,
        args: &[FloatValue<'ctx>],
    ) -> Result<FloatValue<'ctx>> {
        let ty = args[0].get_type();
        let is64 = ty == cg.f64();
        if ty == cg.f32() && args.len() == 1 {
            if let Some(r) = own_f32(cg, f, args[0]) {
                return r;
            }
        }
        // What LLVM lowers inline or to the C library itself.
        let intrinsic = {
            use MathFn::*;
            matches!(
                f,
                Exp | Log | Sqrt | Sin | Cos | Pow | Floor | Ceil | Round | RoundEven | Fabs
            )
        }
        .then(|| format!("llvm.{}", f.c_name()));
        if f == MathFn::Pow {
            if let Some(addr) = if is64 { self.pow } else { self.powf } {
                let fty = ty.fn_type(&[ty.into(), ty.into()], false);
                let r = cg.call_addr(addr, fty, &[args[0].into(), args[1].into()])?;
                return Ok(r
                    .ok_or_else(|| crate::CodegenError::Other("pow returned void".into()))?
                    .into_float_value());
            }
        }
        if f == MathFn::Fmod {
            return Ok(cg.b.build_float_rem(args[0], args[1], "")?);
        }
        let margs: Vec<inkwell::values::BasicMetadataValueEnum> =
            args.iter().map(|a| (*a).into()).collect();
        if let Some(name) = intrinsic {
            let intr = Intrinsic::find(&name)
                .ok_or_else(|| crate::CodegenError::Other(format!("no intrinsic {name}")))?;
            let decl = intr
                .get_declaration(cg.module, &[ty.into()])
                .ok_or_else(|| crate::CodegenError::Other(format!("no declaration of {name}")))?;
            let r = cg.b.build_call(decl, &margs, "")?;
            return Ok(r
                .try_as_basic_value()
                .basic()
                .ok_or_else(|| crate::CodegenError::Other(format!("{name} returned void")))?
                .into_float_value());
        }
        let fty = if args.len() == 2 {
            ty.fn_type(&[ty.into(), ty.into()], false)
        } else {
            ty.fn_type(&[ty.into()], false)
        };
        if f == MathFn::Erf {
            if let Some(addr) = if is64 { self.erf } else { self.erff } {
                let r = cg.call_addr(addr, fty, &margs)?;
                return Ok(r
                    .ok_or_else(|| crate::CodegenError::Other("erf returned void".into()))?
                    .into_float_value());
            }
        }
        // The rest (expm1, log1p, cbrt, tanh, tan, erf, atan2): the C library.
        let base = f.c_name();
        let name = if is64 {
            base.to_string()
        } else {
            format!("{base}f")
        };
        let func = match cg.module.get_function(&name) {
            Some(func) => func,
            None => cg.module.add_function(&name, fty, None),
        };
        let r = cg.b.build_call(func, &margs, "")?;
        Ok(r.try_as_basic_value()
            .basic()
            .ok_or_else(|| crate::CodegenError::Other(format!("{name} returned void")))?
            .into_float_value())
    }
}

// ---------------------------------------------------------------------------
// f32 approximations emitted as IR (as XLA:CPU does), so that loops calling
// them vectorize. Inputs arrive with denormals already flushed; the code runs
// under FTZ/DAZ. Measured bounds (tests/host.rs sweeps them against the
// evaluator's libm): exp <= 1 ulp, log <= 1 ulp, tanh <= 6 ulp (absolute
// error < 4e-7; the rational fit XLA:CPU also uses), logistic <= 4 ulp.

fn fc<'ctx>(cg: &Cg<'_, 'ctx>, v: f64) -> FloatValue<'ctx> {
    cg.f32().const_float(v)
}

/// Horner evaluation `c[0] * x^(n-1) + ... + c[n-1]`.
fn horner<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>, c: &[f64]) -> Result<FloatValue<'ctx>> {
    let mut p = fc(cg, c[0]);
    for &k in &c[1..] {
        p = fmuladd(cg, p, x, fc(cg, k))?;
    }
    Ok(p)
}

/// `a * b + c` by `llvm.fmuladd`: one FMA where the target has it, else a
/// multiplication and an addition.
fn fmuladd<'ctx>(
    cg: &Cg<'_, 'ctx>,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
    c: FloatValue<'ctx>,
) -> Result<FloatValue<'ctx>> {
    let f = inkwell::intrinsics::Intrinsic::find("llvm.fmuladd")
        .and_then(|i| i.get_declaration(cg.module, &[cg.f32().into()]))
        .ok_or_else(|| crate::CodegenError::Other("no llvm.fmuladd".into()))?;
    Ok(cg
        .b
        .build_call(f, &[a.into(), b.into(), c.into()], "")?
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| crate::CodegenError::Other("fmuladd returned void".into()))?
        .into_float_value())
}

fn select_f<'ctx>(
    cg: &Cg<'_, 'ctx>,
    c: inkwell::values::IntValue<'ctx>,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
) -> Result<FloatValue<'ctx>> {
    Ok(cg.b.build_select(c, a, b, "")?.into_float_value())
}

/// exp(x): x = n ln2 + r (Cody-Waite), e^r by a degree-7 polynomial on
/// |r| <= ln2/2, times 2^n applied in two halves (no exponent overflow in
/// the construction; overflow to inf and underflow to 0 happen in the
/// final multiplications). NaN in, NaN out.
pub fn exp_f32<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<FloatValue<'ctx>> {
    use inkwell::FloatPredicate as P;
    let b = cg.b;
    let i32t = cg.i32();
    // The clamps keep n within the two-step scaling's range; a NaN passes
    // them (an unordered compare is false) and every step after, so it
    // comes out NaN without a select of its own.
    let hi = b.build_float_compare(P::OGT, x, fc(cg, 89.0), "")?;
    let xc = select_f(cg, hi, fc(cg, 89.0), x)?;
    let lo = b.build_float_compare(P::OLT, xc, fc(cg, -104.0), "")?;
    let xc = select_f(cg, lo, fc(cg, -104.0), xc)?;
    // n = round(x / ln2) with the 1.5 * 2^23 trick.
    let magic = fc(cg, 12582912.0);
    let t = fmuladd(cg, xc, fc(cg, std::f64::consts::LOG2_E), magic)?;
    let nf = b.build_float_sub(t, magic, "")?;
    // r = x - n ln2 in two steps (ln2_hi has 8 significant bits, so n
    // ln2_hi is exact: the same r with or without FMA).
    let r = fmuladd(cg, nf, fc(cg, -0.693_359_375), xc)?;
    let r = fmuladd(cg, nf, fc(cg, 2.121_944_400_546_905_8e-4), r)?;
    // e^r = 1 + r + r^2 p(r) (Cephes expf coefficients).
    let p = horner(
        cg,
        r,
        &[
            1.987_569_150_0e-4,
            1.398_199_950_7e-3,
            8.333_451_907_3e-3,
            4.166_579_589_4e-2,
            1.666_666_545_9e-1,
            5.000_000_120_1e-1,
        ],
    )?;
    let r2 = b.build_float_mul(r, r, "")?;
    let y = b.build_float_mul(p, r2, "")?;
    let y = b.build_float_add(y, r, "")?;
    let y = b.build_float_add(y, fc(cg, 1.0), "")?;
    // n itself from t's bits (t = 1.5 * 2^23 + n, spacing 1): an integer
    // subtraction, defined for a NaN too (a float-to-int conversion of a
    // NaN is poison in LLVM IR).
    let tb = b.build_bit_cast(t, i32t, "")?.into_int_value();
    let n = b.build_int_sub(tb, i32t.const_int(0x4b40_0000, false), "")?;
    let n1 = b.build_right_shift(n, i32t.const_int(1, false), true, "")?;
    let n2 = b.build_int_sub(n, n1, "")?;
    let pow2 = |k: inkwell::values::IntValue<'ctx>| -> Result<FloatValue<'ctx>> {
        let e = b.build_int_add(k, i32t.const_int(127, false), "")?;
        let e = b.build_left_shift(e, i32t.const_int(23, false), "")?;
        Ok(b.build_bit_cast(e, cg.f32(), "")?.into_float_value())
    };
    let y = b.build_float_mul(y, pow2(n1)?, "")?;
    b.build_float_mul(y, pow2(n2)?, "").map_err(Into::into)
}

/// log(x): x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) = f - f^2/2 +
/// f^3 p(f) for f = m - 1 (Cephes logf), plus e ln2 in two parts.
/// log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN in, NaN out.
pub fn log_f32<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<FloatValue<'ctx>> {
    use inkwell::FloatPredicate as P;
    use inkwell::IntPredicate as IP;
    let b = cg.b;
    let i32t = cg.i32();
    let bits = b.build_bit_cast(x, i32t, "")?.into_int_value();
    let ex = b.build_right_shift(bits, i32t.const_int(23, false), false, "")?;
    let ex = b.build_and(ex, i32t.const_int(0xff, false), "")?;
    let ex = b.build_int_sub(ex, i32t.const_int(126, false), "")?;
    let mb = b.build_and(bits, i32t.const_int(0x007f_ffff, false), "")?;
    let mb = b.build_or(mb, i32t.const_int(0x3f00_0000, false), "")?;
    let m = b.build_bit_cast(mb, cg.f32(), "")?.into_float_value();
    // m in [0.5, 1): below sqrt(1/2) use 2m - 1 and e - 1, else m - 1.
    let small = b.build_float_compare(P::OLT, m, fc(cg, std::f64::consts::FRAC_1_SQRT_2), "")?;
    let ef = b.build_signed_int_to_float(ex, cg.f32(), "")?;
    let ef1 = b.build_float_sub(ef, fc(cg, 1.0), "")?;
    let ef = select_f(cg, small, ef1, ef)?;
    let m2 = b.build_float_add(m, m, "")?;
    let mm = select_f(cg, small, m2, m)?;
    let f = b.build_float_sub(mm, fc(cg, 1.0), "")?;
    let z = b.build_float_mul(f, f, "")?;
    let p = horner(
        cg,
        f,
        &[
            7.037_683_629_2e-2,
            -1.151_461_031_0e-1,
            1.167_699_874_0e-1,
            -1.242_014_084_6e-1,
            1.424_932_278_7e-1,
            -1.666_805_766_5e-1,
            2.000_071_476_5e-1,
            -2.499_999_399_3e-1,
            3.333_333_117_4e-1,
        ],
    )?;
    let y = b.build_float_mul(b.build_float_mul(p, f, "")?, z, "")?;
    let y = b.build_float_add(
        y,
        b.build_float_mul(ef, fc(cg, -2.121_944_400_546_905_8e-4), "")?,
        "",
    )?;
    let y = b.build_float_sub(y, b.build_float_mul(z, fc(cg, 0.5), "")?, "")?;
    let r = b.build_float_add(f, y, "")?;
    let r = b.build_float_add(r, b.build_float_mul(ef, fc(cg, 0.693_359_375), "")?, "")?;
    // Special values, on the bits (denormals were flushed by the caller).
    let is_zero = b.build_int_compare(
        IP::EQ,
        b.build_and(bits, i32t.const_int(0x7fff_ffff, false), "")?,
        i32t.const_zero(),
        "",
    )?;
    let is_neg = b.build_int_compare(IP::SLT, bits, i32t.const_zero(), "")?;
    let is_inf = b.build_int_compare(IP::EQ, bits, i32t.const_int(0x7f80_0000, false), "")?;
    let isnan = b.build_float_compare(P::UNO, x, x, "")?;
    let r = select_f(cg, is_inf, x, r)?;
    let r = select_f(cg, is_neg, fc(cg, f64::NAN), r)?;
    let r = select_f(cg, isnan, x, r)?;
    select_f(cg, is_zero, fc(cg, f64::NEG_INFINITY), r)
}

/// The smallest f32 whose tanh rounds to exactly 1 (glibc's `tanhf` agrees).
pub const TANH_F32_ONE: f32 = f32::from_bits(0x4110_2cb4); // 9.010914

/// Where the correctly rounded tanh steps below 1, beyond the rational
/// fit's clamp: for `|x|` from the clamp on, `tanh(|x|)` is `1 - k 2^-24`
/// (the f32 spacing below 1) with `k` the number of these bounds above
/// `|x|` (5 at the clamp, 0 from [`TANH_F32_ONE`]). Each is the first f32
/// at which `k` drops, from `1 - tanh(x) = 2 e / (1 + e)`, `e = exp(-2x)`,
/// in f64 (no f32 there lies within 4e-7 of a rounding tie); glibc's
/// `tanhf` gives the same value on every f32 from the clamp to 9.2 (an
/// exhaustive check, docs/performance.md "Thirteenth session").
pub const TANH_F32_STEPS: [f32; 5] = [
    f32::from_bits(0x40fd_3192), // 7.912301: k = 4 from here
    f32::from_bits(0x4100_9b7b), // 8.037959: 3
    f32::from_bits(0x4103_4c93), // 8.206195: 2
    f32::from_bits(0x4107_62bf), // 8.461608: 1
    TANH_F32_ONE,                // 9.010914: 0, exactly 1
];

/// tanh(x) as Eigen/XLA:CPU below |x| = 7.905 (XLA's clamp): x p(x^2) /
/// q(x^2) with a degree-13/6 rational minimax fit; beyond it the correctly
/// rounded value, `+-(1 - k 2^-24)` with `k` from [`TANH_F32_STEPS`];
/// x itself for |x| < 4e-4. NaN in, NaN out.
pub fn tanh_f32<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<FloatValue<'ctx>> {
    use inkwell::FloatPredicate as P;
    let b = cg.b;
    let ax = HostMath::default().emit(cg, MathFn::Fabs, &[x])?;
    let lim = 7.905_311_107_635_498;
    // The fit is not clamped: beyond `lim` its value (inf / inf = NaN far
    // out) is replaced by the step below.
    let x2 = b.build_float_mul(x, x, "")?;
    let p = horner(
        cg,
        x2,
        &[
            -2.760_768_477_423_55e-16,
            2.000_187_904_824_77e-13,
            -8.604_671_522_137_35e-11,
            5.122_297_090_371_14e-8,
            1.485_722_357_179_79e-5,
            6.372_619_288_754_36e-4,
            4.893_524_558_917_86e-3,
        ],
    )?;
    let p = b.build_float_mul(x, p, "")?;
    let q = horner(
        cg,
        x2,
        &[
            1.198_258_394_667_02e-6,
            1.185_347_056_866_54e-4,
            2.268_434_632_439e-3,
            4.893_525_185_543_85e-3,
        ],
    )?;
    let r = b.build_float_div(p, q, "")?;
    // Beyond the fit's clamp, the correctly rounded value, exactly +-1 from
    // TANH_F32_ONE on (libm's tanhf, hence the evaluator, gives the same).
    // The fit alone gave 1 - 3 ulp at and beyond the clamp, and a
    // saturation at the clamp gave 1 up to 4 ulp early: either way a later
    // floor, compare or convert to integer disagreed with the evaluator
    // (both found by differential testing). Five compares: `1 - 2
    // exp(-2|x|)` cost an exponential for every element.
    let i32t = cg.i32();
    let mut bits = i32t.const_int(0x3f80_0000, false);
    for step in TANH_F32_STEPS {
        let below = b.build_float_compare(P::OLT, ax, fc(cg, step as f64), "")?;
        let minus = b.build_int_s_extend(below, i32t, "")?;
        bits = b.build_int_add(bits, minus, "")?;
    }
    let tail = b.build_bit_cast(bits, cg.f32(), "")?.into_float_value();
    let pos = b.build_float_compare(P::OGT, x, fc(cg, 0.0), "")?;
    let neg_tail = b.build_float_neg(tail, "")?;
    let tail = select_f(cg, pos, tail, neg_tail)?;
    let beyond = b.build_float_compare(P::OGE, ax, fc(cg, lim), "")?;
    let r = select_f(cg, beyond, tail, r)?;
    let tiny = b.build_float_compare(P::OLT, ax, fc(cg, 0.0004), "")?;
    select_f(cg, tiny, x, r)
}
