//! The NVPTX math library: every [`MathFn`] as self-contained LLVM IR (no
//! libdevice, no libm symbols), so that the PTX of a kernel needs nothing
//! but the driver.
//!
//! - f32 exp/log/tanh: the polynomial approximations of `hlox-codegen`
//!   (shared with the Host backend);
//! - sqrt, fabs, floor, ceil, round, roundeven: LLVM intrinsics the NVPTX
//!   target lowers to single instructions;
//! - everything else is computed in f64 by internal device functions
//!   (`hlox_<fn>_f64`, defined once per LLVM module and inlined by the
//!   optimizer) and rounded once to f32 for f32 arguments: exp, log, expm1,
//!   log1p, sin, cos, tan, cbrt, tanh, erf, pow, atan2 (argument reduction
//!   plus Taylor/`atanh`-series polynomials), fmod (exact, by binary long
//!   division on the significands).
//!
//! The IR uses no NVPTX intrinsic, so the same functions can be compiled
//! for the host and checked against the C library (tests/cuda.rs does).

use hlox_codegen::scalar::loop_blocks;
use hlox_codegen::{Cg, CodegenError, MathFn, MathLib, Result};
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::{Linkage, Module};
use inkwell::values::{FloatValue, FunctionValue, IntValue};
use inkwell::{FloatPredicate as FP, IntPredicate as IP};

/// The [`MathLib`] of the CUDA backend.
#[derive(Clone, Copy, Debug, Default)]
pub struct NvptxMath;

impl NvptxMath {
    /// A code generator for device code with this math library. The device
    /// has no host helper addresses: conversions are emitted inline.
    pub fn cg<'a, 'ctx>(
        &'a self,
        ctx: &'ctx Context,
        module: &'a Module<'ctx>,
        b: &'a Builder<'ctx>,
    ) -> Cg<'a, 'ctx> {
        Cg {
            ctx,
            module,
            b,
            math: self,
            helpers: Default::default(),
            addresses: None,
        }
    }
}

fn other(m: impl Into<String>) -> CodegenError {
    CodegenError::Other(m.into())
}

impl MathLib for NvptxMath {
    fn emit<'ctx>(
        &self,
        cg: &Cg<'_, 'ctx>,
        f: MathFn,
        args: &[FloatValue<'ctx>],
    ) -> Result<FloatValue<'ctx>> {
        let x = *args
            .first()
            .ok_or_else(|| other(format!("{f:?} without arguments")))?;
        let ty = x.get_type();
        let is32 = ty == cg.f32();
        if is32 {
            if let Some(r) = hlox_codegen::math::own_f32(cg, f, x) {
                return r;
            }
        }
        // What the NVPTX target lowers to single instructions.
        let intr = {
            use MathFn::*;
            matches!(f, Sqrt | Fabs | Floor | Ceil | Round | RoundEven)
        };
        if intr {
            return call_intrinsic(cg, &format!("llvm.{}", f.c_name()), &[x]);
        }
        let nargs = f.arity();
        if args.len() != nargs {
            return Err(other(format!("{f:?} takes {nargs} arguments")));
        }
        if f == MathFn::Fmod && is32 {
            // Exact in f64 too: the f32 remainder is representable.
            let func = device_fn(cg, f)?;
            let a = widen_exact(cg, args[0])?;
            let b = widen_exact(cg, args[1])?;
            let r = call(cg, func, &[a, b])?;
            return Ok(cg.b.build_float_trunc(r, cg.f32(), "")?);
        }
        let func = device_fn(cg, f)?;
        if is32 {
            let wide: Vec<FloatValue> = args
                .iter()
                .map(|a| widen_exact(cg, *a))
                .collect::<std::result::Result<_, _>>()?;
            let r = call(cg, func, &wide)?;
            Ok(cg.b.build_float_trunc(r, cg.f32(), "")?)
        } else {
            call(cg, func, args)
        }
    }

    /// Every complex function, inline ([`crate::complex`]).
    fn complex<'ctx>(
        &self,
        cg: &Cg<'_, 'ctx>,
        f: hlox_hlo::semantics::complex::ComplexFn,
        a: (FloatValue<'ctx>, FloatValue<'ctx>),
        b: (FloatValue<'ctx>, FloatValue<'ctx>),
    ) -> Option<Result<(FloatValue<'ctx>, FloatValue<'ctx>)>> {
        Some(crate::complex::emit(cg, f, a, b))
    }
}

/// f32 -> f64 exactly, denormals included: under FTZ (the kernels' f32
/// mode) `fpext` flushes a denormal input, which would turn pow(x, 1e-40)
/// into pow(x, 0).
fn widen_exact<'ctx>(cg: &Cg<'_, 'ctx>, x: FloatValue<'ctx>) -> Result<FloatValue<'ctx>> {
    let b = cg.b;
    let i32t = cg.i32();
    let bits = b.build_bit_cast(x, i32t, "")?.into_int_value();
    let e = b.build_and(bits, i32t.const_int(0x7F80_0000, false), "")?;
    let den = b.build_int_compare(IP::EQ, e, i32t.const_zero(), "")?;
    let m = b.build_and(bits, i32t.const_int(0x007F_FFFF, false), "")?;
    let mf = b.build_unsigned_int_to_float(m, cg.f64(), "")?;
    let v = b.build_float_mul(mf, cg.f64().const_float(2f64.powi(-149)), "")?;
    let neg = b.build_int_compare(IP::SLT, bits, i32t.const_zero(), "")?;
    let nv = b.build_float_neg(v, "")?;
    let dv = b.build_select(neg, nv, v, "")?.into_float_value();
    let ext = b.build_float_ext(x, cg.f64(), "")?;
    Ok(b.build_select(den, dv, ext, "")?.into_float_value())
}

fn call_intrinsic<'ctx>(
    cg: &Cg<'_, 'ctx>,
    name: &str,
    args: &[FloatValue<'ctx>],
) -> Result<FloatValue<'ctx>> {
    let ty = args[0].get_type();
    let decl = Intrinsic::find(name)
        .and_then(|i| i.get_declaration(cg.module, &[ty.into()]))
        .ok_or_else(|| other(format!("no intrinsic {name}")))?;
    let a: Vec<_> = args.iter().map(|v| (*v).into()).collect();
    cg.b.build_call(decl, &a, "")?
        .try_as_basic_value()
        .basic()
        .map(|v| v.into_float_value())
        .ok_or_else(|| other(format!("{name} returned void")))
}

fn call<'ctx>(
    cg: &Cg<'_, 'ctx>,
    f: FunctionValue<'ctx>,
    args: &[FloatValue<'ctx>],
) -> Result<FloatValue<'ctx>> {
    let a: Vec<_> = args.iter().map(|v| (*v).into()).collect();
    cg.b.build_call(f, &a, "")?
        .try_as_basic_value()
        .basic()
        .map(|v| v.into_float_value())
        .ok_or_else(|| other("device math function returned void"))
}

/// The internal device function `hlox_<name>_f64`, defined on first use.
pub fn device_fn<'ctx>(cg: &Cg<'_, 'ctx>, f: MathFn) -> Result<FunctionValue<'ctx>> {
    let sym = format!("hlox_{}_f64", f.c_name());
    if let Some(func) = cg.module.get_function(&sym) {
        return Ok(func);
    }
    let f64t = cg.f64();
    let fty = if f.arity() == 2 {
        f64t.fn_type(&[f64t.into(), f64t.into()], false)
    } else {
        f64t.fn_type(&[f64t.into()], false)
    };
    let func = cg.module.add_function(&sym, fty, Some(Linkage::Internal));
    let builder = cg.ctx.create_builder();
    let entry = cg.ctx.append_basic_block(func, "entry");
    builder.position_at_end(entry);
    let sub = Cg {
        ctx: cg.ctx,
        module: cg.module,
        b: &builder,
        math: cg.math,
        helpers: cg.helpers,
        addresses: cg.addresses,
    };
    let p = |i: u32| -> Result<FloatValue<'ctx>> {
        func.get_nth_param(i)
            .map(|v| v.into_float_value())
            .ok_or_else(|| other("missing parameter"))
    };
    let m = M { cg: &sub };
    let r = match f {
        MathFn::Exp => m.exp(p(0)?)?,
        MathFn::Log => m.log(p(0)?)?,
        MathFn::Expm1 => m.expm1(p(0)?)?,
        MathFn::Log1p => m.log1p(p(0)?)?,
        MathFn::Sin => m.sincos(p(0)?, 0)?,
        MathFn::Cos => m.sincos(p(0)?, 1)?,
        MathFn::Tan => m.sincos(p(0)?, 2)?,
        MathFn::Cbrt => m.cbrt(p(0)?)?,
        MathFn::Tanh => m.tanh(p(0)?)?,
        MathFn::Erf => m.erf(p(0)?)?,
        MathFn::Pow => m.pow(p(0)?, p(1)?)?,
        MathFn::Atan2 => m.atan2(p(0)?, p(1)?)?,
        MathFn::Fmod => m.fmod(p(0)?, p(1)?)?,
        _ => return Err(other(format!("no NVPTX implementation of {f:?}"))),
    };
    builder.build_return(Some(&r))?;
    Ok(func)
}

/// f64 IR helpers.
struct M<'x, 'a, 'ctx> {
    cg: &'x Cg<'a, 'ctx>,
}

type F<'ctx> = FloatValue<'ctx>;
type I<'ctx> = IntValue<'ctx>;

const LN2_HI: f64 = 0.693_147_180_369_123_8;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const PI: f64 = std::f64::consts::PI;

impl<'ctx> M<'_, '_, 'ctx> {
    fn c(&self, v: f64) -> F<'ctx> {
        self.cg.f64().const_float(v)
    }
    fn ci(&self, v: i64) -> I<'ctx> {
        self.cg.i64().const_int(v as u64, true)
    }
    fn add(&self, a: F<'ctx>, b: F<'ctx>) -> Result<F<'ctx>> {
        Ok(self.cg.b.build_float_add(a, b, "")?)
    }
    fn sub(&self, a: F<'ctx>, b: F<'ctx>) -> Result<F<'ctx>> {
        Ok(self.cg.b.build_float_sub(a, b, "")?)
    }
    fn mul(&self, a: F<'ctx>, b: F<'ctx>) -> Result<F<'ctx>> {
        Ok(self.cg.b.build_float_mul(a, b, "")?)
    }
    fn div(&self, a: F<'ctx>, b: F<'ctx>) -> Result<F<'ctx>> {
        Ok(self.cg.b.build_float_div(a, b, "")?)
    }
    fn neg(&self, a: F<'ctx>) -> Result<F<'ctx>> {
        Ok(self.cg.b.build_float_neg(a, "")?)
    }
    fn cmp(&self, p: FP, a: F<'ctx>, b: F<'ctx>) -> Result<I<'ctx>> {
        Ok(self.cg.b.build_float_compare(p, a, b, "")?)
    }
    fn icmp(&self, p: IP, a: I<'ctx>, b: I<'ctx>) -> Result<I<'ctx>> {
        Ok(self.cg.b.build_int_compare(p, a, b, "")?)
    }
    fn sel(&self, c: I<'ctx>, a: F<'ctx>, b: F<'ctx>) -> Result<F<'ctx>> {
        Ok(self.cg.b.build_select(c, a, b, "")?.into_float_value())
    }
    fn seli(&self, c: I<'ctx>, a: I<'ctx>, b: I<'ctx>) -> Result<I<'ctx>> {
        Ok(self.cg.b.build_select(c, a, b, "")?.into_int_value())
    }
    fn or(&self, a: I<'ctx>, b: I<'ctx>) -> Result<I<'ctx>> {
        Ok(self.cg.b.build_or(a, b, "")?)
    }
    fn and(&self, a: I<'ctx>, b: I<'ctx>) -> Result<I<'ctx>> {
        Ok(self.cg.b.build_and(a, b, "")?)
    }
    fn abs(&self, a: F<'ctx>) -> Result<F<'ctx>> {
        call_intrinsic(self.cg, "llvm.fabs", &[a])
    }
    fn floor(&self, a: F<'ctx>) -> Result<F<'ctx>> {
        call_intrinsic(self.cg, "llvm.floor", &[a])
    }
    fn rint(&self, a: F<'ctx>) -> Result<F<'ctx>> {
        call_intrinsic(self.cg, "llvm.roundeven", &[a])
    }
    fn sqrt(&self, a: F<'ctx>) -> Result<F<'ctx>> {
        call_intrinsic(self.cg, "llvm.sqrt", &[a])
    }
    fn copysign(&self, mag: F<'ctx>, sign: F<'ctx>) -> Result<F<'ctx>> {
        call_intrinsic(self.cg, "llvm.copysign", &[mag, sign])
    }
    fn fma(&self, a: F<'ctx>, b: F<'ctx>, c: F<'ctx>) -> Result<F<'ctx>> {
        call_intrinsic(self.cg, "llvm.fma", &[a, b, c])
    }
    fn isnan(&self, a: F<'ctx>) -> Result<I<'ctx>> {
        self.cmp(FP::UNO, a, a)
    }
    fn bits(&self, a: F<'ctx>) -> Result<I<'ctx>> {
        Ok(self
            .cg
            .b
            .build_bit_cast(a, self.cg.i64(), "")?
            .into_int_value())
    }
    fn f64_from_bits(&self, a: I<'ctx>) -> Result<F<'ctx>> {
        Ok(self
            .cg
            .b
            .build_bit_cast(a, self.cg.f64(), "")?
            .into_float_value())
    }
    /// `c[0] x^(n-1) + ... + c[n-1]` with fused multiply-adds.
    fn horner(&self, x: F<'ctx>, c: &[f64]) -> Result<F<'ctx>> {
        let mut p = self.c(c[0]);
        for &k in &c[1..] {
            p = self.fma(p, x, self.c(k))?;
        }
        Ok(p)
    }
    /// 2^k for an integer-valued f64 `k` in [-1022, 1023].
    fn pow2(&self, k: F<'ctx>) -> Result<F<'ctx>> {
        let b = self.cg.b;
        let ki = b.build_float_to_signed_int(k, self.cg.i64(), "")?;
        let e = b.build_int_add(ki, self.ci(1023), "")?;
        let e = b.build_left_shift(e, self.ci(52), "")?;
        self.f64_from_bits(e)
    }

    /// exp(x): k = round(x / ln2), r = x - k ln2 (two parts), e^r by its
    /// Taylor series to r^13 (|r| <= 0.35), times 2^k in two halves.
    fn exp(&self, x: F<'ctx>) -> Result<F<'ctx>> {
        let hi = self.cmp(FP::OGT, x, self.c(709.8))?;
        let lo = self.cmp(FP::OLT, x, self.c(-745.2))?;
        let xc = self.sel(hi, self.c(709.8), x)?;
        let xc = self.sel(lo, self.c(-745.2), xc)?;
        let nan = self.isnan(x)?;
        let xc = self.sel(nan, self.c(0.0), xc)?;
        let k = self.rint(self.mul(xc, self.c(std::f64::consts::LOG2_E))?)?;
        let r = self.fma(self.neg(k)?, self.c(LN2_HI), xc)?;
        let r = self.fma(self.neg(k)?, self.c(LN2_LO), r)?;
        let coeffs: Vec<f64> = (0..=13).rev().map(|n| 1.0 / factorial(n)).collect();
        let p = self.horner(r, &coeffs)?;
        let k1 = self.floor(self.mul(k, self.c(0.5))?)?;
        let k2 = self.sub(k, k1)?;
        let y = self.mul(self.mul(p, self.pow2(k1)?)?, self.pow2(k2)?)?;
        let y = self.sel(hi, self.c(f64::INFINITY), y)?;
        let y = self.sel(lo, self.c(0.0), y)?;
        self.sel(nan, x, y)
    }

    /// log(x): x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1,
    /// s = f / (2 + f), log(1 + f) = f - s (f - R(s^2)) with R the atanh
    /// series; denormals scaled first.
    fn log(&self, x: F<'ctx>) -> Result<F<'ctx>> {
        let b = self.cg.b;
        let tiny = self.cmp(FP::OLT, x, self.c(f64::MIN_POSITIVE))?;
        let xs = self.sel(tiny, self.mul(x, self.c(2f64.powi(54)))?, x)?;
        let eadj = self.sel(tiny, self.c(-54.0), self.c(0.0))?;
        let bits = self.bits(xs)?;
        let e = b.build_right_shift(bits, self.ci(52), false, "")?;
        let e = b.build_and(e, self.ci(0x7ff), "")?;
        let mb = b.build_and(bits, self.ci(0x000f_ffff_ffff_ffff), "")?;
        let mb = b.build_or(mb, self.ci(0x3ff0_0000_0000_0000), "")?;
        let m = self.f64_from_bits(mb)?; // [1, 2)
        let big = self.cmp(FP::OGT, m, self.c(std::f64::consts::SQRT_2))?;
        let m = self.sel(big, self.mul(m, self.c(0.5))?, m)?;
        let ef = b.build_signed_int_to_float(e, self.cg.f64(), "")?;
        let ef = self.add(ef, self.c(-1023.0))?;
        let ef = self.add(ef, eadj)?;
        let ef = self.sel(big, self.add(ef, self.c(1.0))?, ef)?;
        let f = self.sub(m, self.c(1.0))?;
        let s = self.div(f, self.add(self.c(2.0), f)?)?;
        let z = self.mul(s, s)?;
        // R = 2 (z/3 + z^2/5 + ... + z^13/27)
        let coeffs: Vec<f64> = (1..=13).rev().map(|k| 2.0 / (2 * k + 1) as f64).collect();
        let r = self.mul(z, self.horner(z, &coeffs)?)?;
        let l1p = self.sub(f, self.mul(s, self.sub(f, r)?)?)?;
        let y = self.add(self.mul(ef, self.c(LN2_LO))?, l1p)?;
        let y = self.fma(ef, self.c(LN2_HI), y)?;
        let zero = self.cmp(FP::OEQ, x, self.c(0.0))?;
        let negv = self.cmp(FP::OLT, x, self.c(0.0))?;
        let inf = self.cmp(FP::OEQ, x, self.c(f64::INFINITY))?;
        let y = self.sel(inf, x, y)?;
        let y = self.sel(negv, self.c(f64::NAN), y)?;
        let y = self.sel(zero, self.c(f64::NEG_INFINITY), y)?;
        let nan = self.isnan(x)?;
        self.sel(nan, x, y)
    }

    /// expm1(x): Taylor series for |x| < 0.5, exp(x) - 1 otherwise.
    fn expm1(&self, x: F<'ctx>) -> Result<F<'ctx>> {
        let coeffs: Vec<f64> = (1..=20).rev().map(|n| 1.0 / factorial(n)).collect();
        let small = self.mul(x, self.horner(x, &coeffs)?)?;
        let big = self.sub(self.exp(x)?, self.c(1.0))?;
        let is_small = self.cmp(FP::OLT, self.abs(x)?, self.c(0.5))?;
        self.sel(is_small, small, big)
    }

    /// log1p(x) = log(u) x / (u - 1) for u = 1 + x (x when u == 1).
    fn log1p(&self, x: F<'ctx>) -> Result<F<'ctx>> {
        let u = self.add(self.c(1.0), x)?;
        let lu = self.log(u)?;
        let r = self.mul(lu, self.div(x, self.sub(u, self.c(1.0))?)?)?;
        let one = self.cmp(FP::OEQ, u, self.c(1.0))?;
        let r = self.sel(one, x, r)?;
        let inf = self.cmp(FP::OEQ, x, self.c(f64::INFINITY))?;
        let r = self.sel(inf, x, r)?;
        let m1 = self.cmp(FP::OEQ, x, self.c(-1.0))?;
        self.sel(m1, self.c(f64::NEG_INFINITY), r)
    }

    /// sin (which 0), cos (1) or tan (2): x = k pi/2 + r with pi/2 in three
    /// parts (accurate for |x| < 2^20 pi/2; larger arguments lose
    /// accuracy), Taylor polynomials on |r| <= pi/4, quadrant by k mod 4.
    fn sincos(&self, x: F<'ctx>, which: u8) -> Result<F<'ctx>> {
        const P1: f64 = 1.570_796_326_734_125_6;
        const P2: f64 = 6.077_100_506_303_966e-11;
        const P3: f64 = 2.022_266_248_795_950_6e-21;
        let k = self.rint(self.mul(x, self.c(std::f64::consts::FRAC_2_PI))?)?;
        let nk = self.neg(k)?;
        // r = t - k (P2 + P3) kept as rhi + rlo (t = x - k P1 is exact).
        let t = self.fma(nk, self.c(P1), x)?;
        let w = self.mul(k, self.c(P2))?;
        let werr = self.fma(k, self.c(P2), self.neg(w)?)?;
        let rhi = self.sub(t, w)?;
        let rlo = self.sub(self.sub(t, rhi)?, w)?;
        let rlo = self.sub(rlo, self.fma(k, self.c(P3), werr)?)?;
        let r = rhi;
        let z = self.mul(r, r)?;
        // sin r = r (1 - z/3! + z^2/5! ...), cos r = 1 - z/2! + ...
        let sc: Vec<f64> = (0..=11)
            .rev()
            .map(|n| sgn(n) / factorial(2 * n + 1))
            .collect();
        let cc: Vec<f64> = (0..=11).rev().map(|n| sgn(n) / factorial(2 * n)).collect();
        let s0 = self.mul(r, self.horner(z, &sc)?)?;
        let c0 = self.horner(z, &cc)?;
        // sin(rhi + rlo) ~ sin rhi + cos rhi rlo, cos(..) ~ cos rhi - sin rhi rlo
        let s = self.fma(c0, rlo, s0)?;
        let c = self.fma(self.neg(s0)?, rlo, c0)?;
        let q = self.sub(
            k,
            self.mul(self.c(4.0), self.floor(self.mul(k, self.c(0.25))?)?)?,
        )?;
        let q1 = self.cmp(FP::OEQ, q, self.c(1.0))?;
        let q2 = self.cmp(FP::OEQ, q, self.c(2.0))?;
        let q3 = self.cmp(FP::OEQ, q, self.c(3.0))?;
        let (ns, nc) = (self.neg(s)?, self.neg(c)?);
        let pick = |a: F<'ctx>, b1: F<'ctx>, b2: F<'ctx>, b3: F<'ctx>| -> Result<F<'ctx>> {
            let v = self.sel(q1, b1, a)?;
            let v = self.sel(q2, b2, v)?;
            self.sel(q3, b3, v)
        };
        let r = match which {
            0 => pick(s, c, ns, nc)?,
            1 => pick(c, ns, nc, s)?,
            _ => {
                let t = self.div(s, c)?;
                let ct = self.div(nc, s)?;
                let odd = self.or(q1, q3)?;
                self.sel(odd, ct, t)?
            }
        };
        // sin(-0) = -0, tan(-0) = -0.
        if which != 1 {
            let z0 = self.cmp(FP::OEQ, x, self.c(0.0))?;
            return self.sel(z0, x, r);
        }
        Ok(r)
    }

    /// cbrt: exp(log|x| / 3) refined by two Newton steps, sign restored.
    fn cbrt(&self, x: F<'ctx>) -> Result<F<'ctx>> {
        let ax = self.abs(x)?;
        let y = self.exp(self.div(self.log(ax)?, self.c(3.0))?)?;
        let mut y = y;
        for _ in 0..2 {
            let y2 = self.mul(y, y)?;
            let num = self.fma(y2, y, self.neg(ax)?)?;
            y = self.sub(y, self.div(num, self.mul(self.c(3.0), y2)?)?)?;
        }
        let r = self.copysign(y, x)?;
        let zero = self.cmp(FP::OEQ, ax, self.c(0.0))?;
        let inf = self.cmp(FP::OEQ, ax, self.c(f64::INFINITY))?;
        let nan = self.isnan(x)?;
        let keep = self.or(self.or(zero, inf)?, nan)?;
        self.sel(keep, x, r)
    }

    /// tanh(x) = e / (e + 2) with e = expm1(2|x|); sign(x) for |x| > 22.
    fn tanh(&self, x: F<'ctx>) -> Result<F<'ctx>> {
        let ax = self.abs(x)?;
        let e = self.expm1(self.mul(self.c(2.0), ax)?)?;
        let t = self.div(e, self.add(e, self.c(2.0))?)?;
        let big = self.cmp(FP::OGT, ax, self.c(22.0))?;
        let t = self.sel(big, self.c(1.0), t)?;
        let r = self.copysign(t, x)?;
        let nan = self.isnan(x)?;
        self.sel(nan, x, r)
    }

    /// erf: Maclaurin series for |x| < 2.5, 1 - erfc from its continued
    /// fraction (60 terms) up to 6, sign(x) beyond.
    fn erf(&self, x: F<'ctx>) -> Result<F<'ctx>> {
        let two_over_sqrt_pi = std::f64::consts::FRAC_2_SQRT_PI;
        let ax = self.abs(x)?;
        let z = self.mul(x, x)?;
        let sc: Vec<f64> = (0..=44)
            .rev()
            .map(|n| two_over_sqrt_pi * sgn(n) / (factorial(n) * (2 * n + 1) as f64))
            .collect();
        let small = self.mul(x, self.horner(z, &sc)?)?;
        // erfc(a) = exp(-a^2) / sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...))))
        let a = self.sel(self.cmp(FP::OLT, ax, self.c(2.0))?, self.c(2.0), ax)?;
        let mut t = a;
        for k in (1..=60).rev() {
            t = self.add(a, self.div(self.c(k as f64 * 0.5), t)?)?;
        }
        let e = self.exp(self.neg(self.mul(a, a)?)?)?;
        let erfc = self.div(e, self.mul(t, self.c(PI.sqrt()))?)?;
        let big = self.copysign(self.sub(self.c(1.0), erfc)?, x)?;
        let use_small = self.cmp(FP::OLT, ax, self.c(2.5))?;
        let r = self.sel(use_small, small, big)?;
        let huge = self.cmp(FP::OGT, ax, self.c(6.0))?;
        let r = self.sel(huge, self.copysign(self.c(1.0), x)?, r)?;
        let nan = self.isnan(x)?;
        self.sel(nan, x, r)
    }

    /// atan(t) for t >= 0 (t = inf gives pi/2): 1/t above 1, two
    /// half-angle reductions, then the series to t^45.
    fn atan_pos(&self, t: F<'ctx>) -> Result<F<'ctx>> {
        let inv = self.cmp(FP::OGT, t, self.c(1.0))?;
        let u = self.sel(inv, self.div(self.c(1.0), t)?, t)?;
        let mut v = u;
        for _ in 0..2 {
            let d = self.add(self.c(1.0), self.sqrt(self.fma(v, v, self.c(1.0))?)?)?;
            v = self.div(v, d)?;
        }
        let z = self.mul(v, v)?;
        let coeffs: Vec<f64> = (0..=22)
            .rev()
            .map(|n| sgn(n) / (2 * n + 1) as f64)
            .collect();
        let a = self.mul(self.c(4.0), self.mul(v, self.horner(z, &coeffs)?)?)?;
        let flipped = self.sub(self.c(std::f64::consts::FRAC_PI_2), a)?;
        self.sel(inv, flipped, a)
    }

    /// atan2(y, x) with C's special cases (signed zeros, infinities).
    fn atan2(&self, y: F<'ctx>, x: F<'ctx>) -> Result<F<'ctx>> {
        let (ax, ay) = (self.abs(x)?, self.abs(y)?);
        let a = self.atan_pos(self.div(ay, ax)?)?;
        let y0 = self.cmp(FP::OEQ, ay, self.c(0.0))?;
        let a = self.sel(y0, self.c(0.0), a)?;
        let inf = self.c(f64::INFINITY);
        let both_inf = self.and(self.cmp(FP::OEQ, ax, inf)?, self.cmp(FP::OEQ, ay, inf)?)?;
        let a = self.sel(both_inf, self.c(std::f64::consts::FRAC_PI_4), a)?;
        let xneg = self.icmp(IP::SLT, self.bits(x)?, self.ci(0))?;
        let a = self.sel(xneg, self.sub(self.c(PI), a)?, a)?;
        let r = self.copysign(a, y)?;
        let nan = self.or(self.isnan(x)?, self.isnan(y)?)?;
        self.sel(nan, self.add(x, y)?, r)
    }

    /// pow(x, y) with C's special cases; exp(y log|x|) in general (its
    /// relative error grows with |y log x|: exact to ~1e-13 for f64
    /// results in the normal range, correctly rounded in practice for f32).
    fn pow(&self, x: F<'ctx>, y: F<'ctx>) -> Result<F<'ctx>> {
        let ax = self.abs(x)?;
        let ay = self.abs(y)?;
        let r = self.exp(self.mul(y, self.log(ax)?)?)?;
        let fy = self.floor(y)?;
        let y_int = self.cmp(FP::OEQ, fy, y)?;
        let h = self.mul(y, self.c(0.5))?;
        let y_odd = self.and(y_int, self.cmp(FP::ONE, self.floor(h)?, h)?)?;
        let xneg = self.icmp(IP::SLT, self.bits(x)?, self.ci(0))?;
        let neg_odd = self.and(xneg, y_odd)?;
        // finite negative x, finite non-integer y: NaN
        let r = self.sel(neg_odd, self.neg(r)?, r)?;
        let x_fin_neg = self.cmp(FP::OLT, x, self.c(0.0))?;
        let bad = self.and(x_fin_neg, self.cmp(FP::ONE, fy, y)?)?;
        let r = self.sel(bad, self.c(f64::NAN), r)?;
        let inf = self.c(f64::INFINITY);
        let zero = self.c(0.0);
        let ypos = self.cmp(FP::OGT, y, zero)?;
        // x = ±0 or ±inf: magnitude 0 or inf, sign of x for odd integer y.
        let x0 = self.cmp(FP::OEQ, ax, zero)?;
        let xinf = self.cmp(FP::OEQ, ax, inf)?;
        let mag0 = self.sel(ypos, zero, inf)?; // x = 0
        let magi = self.sel(ypos, inf, zero)?; // x = inf
        let special = self.sel(x0, mag0, magi)?;
        let special = self.sel(y_odd, self.copysign(special, x)?, special)?;
        let r = self.sel(self.or(x0, xinf)?, special, r)?;
        // y = ±inf: 1 for |x| = 1, else 0 or inf by |x| < 1 and the sign of y.
        let yinf = self.cmp(FP::OEQ, ay, inf)?;
        let xlt1 = self.cmp(FP::OLT, ax, self.c(1.0))?;
        let yi = self.sel(ypos, self.sel(xlt1, zero, inf)?, self.sel(xlt1, inf, zero)?)?;
        let yi = self.sel(self.cmp(FP::OEQ, ax, self.c(1.0))?, self.c(1.0), yi)?;
        let r = self.sel(yinf, yi, r)?;
        let nan = self.or(self.isnan(x)?, self.isnan(y)?)?;
        let r = self.sel(nan, self.add(x, y)?, r)?;
        let one = self.or(
            self.cmp(FP::OEQ, x, self.c(1.0))?,
            self.cmp(FP::OEQ, y, zero)?,
        )?;
        self.sel(one, self.c(1.0), r)
    }

    /// fmod(x, y) exactly: binary long division of the significands
    /// (denormal inputs count as zero and denormal results flush to zero,
    /// as the element-wise semantics flush them anyway).
    fn fmod(&self, x: F<'ctx>, y: F<'ctx>) -> Result<F<'ctx>> {
        let cg = self.cg;
        let b = cg.b;
        let i64t = cg.i64();
        let bx = self.bits(x)?;
        let by = self.bits(y)?;
        let sign = b.build_and(bx, self.ci(i64::MIN), "")?;
        let ex = b.build_and(
            b.build_right_shift(bx, self.ci(52), false, "")?,
            self.ci(0x7ff),
            "",
        )?;
        let ey = b.build_and(
            b.build_right_shift(by, self.ci(52), false, "")?,
            self.ci(0x7ff),
            "",
        )?;
        let mask = self.ci(0x000f_ffff_ffff_ffff);
        let imp = self.ci(1 << 52);
        let mx = b.build_or(b.build_and(bx, mask, "")?, imp, "")?;
        let my = b.build_or(b.build_and(by, mask, "")?, imp, "")?;
        let (ax, ay) = (self.abs(x)?, self.abs(y)?);
        let inf = self.c(f64::INFINITY);
        let nan_res = self.or(
            self.or(self.isnan(x)?, self.isnan(y)?)?,
            self.or(
                self.cmp(FP::OEQ, ax, inf)?,
                self.icmp(IP::EQ, ey, self.ci(0))?,
            )?,
        )?;
        let x_small = self.or(
            self.cmp(FP::OLT, ax, ay)?,
            self.icmp(IP::EQ, ex, self.ci(0))?,
        )?;
        let l = loop_blocks(cg, "fmod")?;
        let (entry, lp, body, done) = (l.pre, l.head, l.body, l.exit);
        let pm = b.build_phi(i64t, "m")?;
        let pe = b.build_phi(i64t, "e")?;
        pm.add_incoming(&[(&mx, entry)]);
        pe.add_incoming(&[(&ex, entry)]);
        let m = pm.as_basic_value().into_int_value();
        let e = pe.as_basic_value().into_int_value();
        let more = self.icmp(IP::SGT, e, ey)?;
        b.build_conditional_branch(more, body, done)?;
        b.position_at_end(body);
        let d = b.build_int_sub(m, my, "")?;
        let ge = self.icmp(IP::SGE, d, self.ci(0))?;
        let m2 = self.seli(ge, d, m)?;
        let m2 = b.build_left_shift(m2, self.ci(1), "")?;
        let e2 = b.build_int_sub(e, self.ci(1), "")?;
        pm.add_incoming(&[(&m2, body)]);
        pe.add_incoming(&[(&e2, body)]);
        b.build_unconditional_branch(lp)?;
        b.position_at_end(done);
        let d = b.build_int_sub(m, my, "")?;
        let ge = self.icmp(IP::SGE, d, self.ci(0))?;
        let m = self.seli(ge, d, m)?;
        // Normalize: shift left until the implicit bit is set.
        let ctlz = Intrinsic::find("llvm.ctlz")
            .and_then(|i| i.get_declaration(cg.module, &[i64t.into()]))
            .ok_or_else(|| other("no llvm.ctlz"))?;
        let lz = b
            .build_call(ctlz, &[m.into(), cg.i1().const_zero().into()], "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| other("ctlz returned void"))?
            .into_int_value();
        let sh = b.build_int_sub(lz, self.ci(11), "")?;
        let m_is0 = self.icmp(IP::EQ, m, self.ci(0))?;
        let sh = self.seli(m_is0, self.ci(0), sh)?;
        let mn = b.build_left_shift(m, sh, "")?;
        let en = b.build_int_sub(ey, sh, "")?;
        let under = self.icmp(IP::SLE, en, self.ci(0))?;
        let rb = b.build_or(
            b.build_left_shift(en, self.ci(52), "")?,
            b.build_and(mn, mask, "")?,
            "",
        )?;
        let rb = self.seli(self.or(under, m_is0)?, self.ci(0), rb)?;
        let rb = b.build_or(rb, sign, "")?;
        let r = self.f64_from_bits(rb)?;
        let r = self.sel(x_small, x, r)?;
        self.sel(nan_res, self.c(f64::NAN), r)
    }
}

fn factorial(n: u32) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

fn sgn(n: u32) -> f64 {
    if n & 1 == 0 {
        1.0
    } else {
        -1.0
    }
}
