//! Complex functions in device code: what the Host computes by calling its
//! complex runtime entry (`hlox_hlo::semantics::complex`: `num_complex`'s
//! principal branches, XLA's `log1p`/`expm1`, Smith's division, XLA's
//! `power`), emitted inline from the real functions of the NVPTX math
//! library ([`crate::math::NvptxMath`]) with the same formulas, special
//! cases and operation order, so that results agree with the evaluator to
//! within the real functions' rounding (not bit for bit: the real functions
//! are not the Host's libm).
//!
//! Branches of the formulas are selects: every case is computed and the
//! right one kept (no control flow in the kernel, no divergence).
//!
//! c64 is computed in f32 as the evaluator computes it, except `|z|`
//! (hypot), sinh and cosh, which are computed in f64 and rounded once.

use hlox_codegen::{Cg, CodegenError, MathFn, Result};
use hlox_hlo::semantics::complex::ComplexFn;
use inkwell::intrinsics::Intrinsic;
use inkwell::types::FloatType;
use inkwell::values::{FloatValue, IntValue};
use inkwell::FloatPredicate as FP;

type F<'ctx> = FloatValue<'ctx>;
type I<'ctx> = IntValue<'ctx>;
/// The (real, imaginary) parts of a complex value.
pub type Parts<'ctx> = (F<'ctx>, F<'ctx>);

/// `f(a, b)` with parts of `a`'s type (f32 or f64); `b` is ignored by the
/// unary functions. `Abs` gives `(|a|, 0)`.
pub fn emit<'ctx>(
    cg: &Cg<'_, 'ctx>,
    f: ComplexFn,
    a: Parts<'ctx>,
    b: Parts<'ctx>,
) -> Result<Parts<'ctx>> {
    let e = E {
        cg,
        t: a.0.get_type(),
    };
    e.eval(f, a, b)
}

/// Inline IR over one part type `t`.
struct E<'x, 'a, 'ctx> {
    cg: &'x Cg<'a, 'ctx>,
    t: FloatType<'ctx>,
}

impl<'ctx> E<'_, '_, 'ctx> {
    fn c(&self, v: f64) -> F<'ctx> {
        self.t.const_float(v)
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
    fn and(&self, a: I<'ctx>, b: I<'ctx>) -> Result<I<'ctx>> {
        Ok(self.cg.b.build_and(a, b, "")?)
    }
    fn or(&self, a: I<'ctx>, b: I<'ctx>) -> Result<I<'ctx>> {
        Ok(self.cg.b.build_or(a, b, "")?)
    }
    fn not(&self, a: I<'ctx>) -> Result<I<'ctx>> {
        Ok(self.cg.b.build_not(a, "")?)
    }
    fn sel(&self, c: I<'ctx>, a: F<'ctx>, b: F<'ctx>) -> Result<F<'ctx>> {
        Ok(self.cg.b.build_select(c, a, b, "")?.into_float_value())
    }
    /// `c ? a : b` part by part.
    fn selz(&self, c: I<'ctx>, a: Parts<'ctx>, b: Parts<'ctx>) -> Result<Parts<'ctx>> {
        Ok((self.sel(c, a.0, b.0)?, self.sel(c, a.1, b.1)?))
    }
    fn intr(&self, name: &str, args: &[F<'ctx>]) -> Result<F<'ctx>> {
        let ty = args[0].get_type();
        let decl = Intrinsic::find(name)
            .and_then(|i| i.get_declaration(self.cg.module, &[ty.into()]))
            .ok_or_else(|| CodegenError::Other(format!("no intrinsic {name}")))?;
        let a: Vec<_> = args.iter().map(|v| (*v).into()).collect();
        self.cg
            .b
            .build_call(decl, &a, "")?
            .try_as_basic_value()
            .basic()
            .map(|v| v.into_float_value())
            .ok_or_else(|| CodegenError::Other(format!("{name} returned void")))
    }
    fn abs(&self, a: F<'ctx>) -> Result<F<'ctx>> {
        self.intr("llvm.fabs", &[a])
    }
    fn copysign(&self, mag: F<'ctx>, sign: F<'ctx>) -> Result<F<'ctx>> {
        self.intr("llvm.copysign", &[mag, sign])
    }
    /// The real function `f` of the math library.
    fn m(&self, f: MathFn, args: &[F<'ctx>]) -> Result<F<'ctx>> {
        self.cg.math.emit(self.cg, f, args)
    }
    fn is32(&self) -> bool {
        self.t == self.cg.f32()
    }
    fn wide(&self, x: F<'ctx>) -> Result<F<'ctx>> {
        Ok(if self.is32() {
            self.cg.b.build_float_ext(x, self.cg.f64(), "")?
        } else {
            x
        })
    }
    fn narrow(&self, x: F<'ctx>) -> Result<F<'ctx>> {
        Ok(if self.is32() {
            self.cg.b.build_float_trunc(x, self.t, "")?
        } else {
            x
        })
    }
    fn is_inf(&self, x: F<'ctx>) -> Result<I<'ctx>> {
        let a = self.abs(x)?;
        self.cmp(FP::OEQ, a, self.c(f64::INFINITY))
    }
    fn is_finite(&self, x: F<'ctx>) -> Result<I<'ctx>> {
        let a = self.abs(x)?;
        self.cmp(FP::OLT, a, self.c(f64::INFINITY))
    }
    fn is_nan(&self, x: F<'ctx>) -> Result<I<'ctx>> {
        self.cmp(FP::UNO, x, x)
    }
    /// The sign bit of `x` is clear (Rust's `is_sign_positive`, NaNs too).
    fn sign_positive(&self, x: F<'ctx>) -> Result<I<'ctx>> {
        let s = self.copysign(self.c(1.0), x)?;
        self.cmp(FP::OGT, s, self.c(0.0))
    }

    /// `sqrt(x^2 + y^2)` without undue overflow or underflow; infinite if
    /// either part is (even with a NaN), else NaN if either is, as C's
    /// `hypot`. f32: exactly in
    /// f64, rounded once; f64: scaled by the larger part.
    fn hypot(&self, x: F<'ctx>, y: F<'ctx>) -> Result<F<'ctx>> {
        let inf = self.or(self.is_inf(x)?, self.is_inf(y)?)?;
        let h = if self.is32() {
            let (a, b) = (self.wide(x)?, self.wide(y)?);
            let b_ = self.cg.b;
            let s = b_.build_float_add(
                b_.build_float_mul(a, a, "")?,
                b_.build_float_mul(b, b, "")?,
                "",
            )?;
            let r = self.intr("llvm.sqrt", &[s])?;
            self.narrow(r)?
        } else {
            let (a, b) = (self.abs(x)?, self.abs(y)?);
            let a_big = self.cmp(FP::OGE, a, b)?;
            let (mx, mn) = (self.sel(a_big, a, b)?, self.sel(a_big, b, a)?);
            let r = self.div(mn, mx)?;
            let s = self.intr("llvm.sqrt", &[self.add(self.c(1.0), self.mul(r, r)?)?])?;
            let h = self.mul(mx, s)?;
            // 0/0 when both are zero; NaNs propagate through `mx`/`r`.
            let zero = self.cmp(FP::OEQ, mx, self.c(0.0))?;
            self.sel(zero, self.c(0.0), h)?
        };
        // A NaN part gives NaN (unless the other is infinite).
        let nan = self.or(self.is_nan(x)?, self.is_nan(y)?)?;
        let h = self.sel(nan, self.c(f64::NAN), h)?;
        self.sel(inf, self.c(f64::INFINITY), h)
    }

    /// `(sinh x, cosh x)`, computed in f64 (rounded once for f32): from
    /// `expm1` for |x| < 22, `e^(|x|/2)^2 / 2` above (no early overflow).
    fn sinh_cosh(&self, x: F<'ctx>) -> Result<(F<'ctx>, F<'ctx>)> {
        let cg = self.cg;
        let d = E { cg, t: cg.f64() };
        let x = self.wide(x)?;
        let a = d.abs(x)?;
        let em = d.m(MathFn::Expm1, &[a])?;
        // sinh = (em + em / (em + 1)) / 2; cosh = (e + 1/e) / 2.
        let e = d.add(em, d.c(1.0))?;
        let sh_small = d.mul(d.add(em, d.div(em, e)?)?, d.c(0.5))?;
        let ch_small = d.mul(d.add(e, d.div(d.c(1.0), e)?)?, d.c(0.5))?;
        let h = d.m(MathFn::Exp, &[d.mul(a, d.c(0.5))?])?;
        let big_v = d.mul(d.mul(d.c(0.5), h)?, h)?;
        let big = d.cmp(FP::OGE, a, d.c(22.0))?;
        let sh = d.copysign(d.sel(big, big_v, sh_small)?, x)?;
        let ch = d.sel(big, big_v, ch_small)?;
        Ok((self.narrow(sh)?, self.narrow(ch)?))
    }

    fn polar(&self, r: F<'ctx>, th: F<'ctx>) -> Result<Parts<'ctx>> {
        let (c, s) = (self.m(MathFn::Cos, &[th])?, self.m(MathFn::Sin, &[th])?);
        Ok((self.mul(r, c)?, self.mul(r, s)?))
    }

    fn arg(&self, (re, im): Parts<'ctx>) -> Result<F<'ctx>> {
        self.m(MathFn::Atan2, &[im, re])
    }

    /// Smith's division, as `binary_c64`/`binary_c128`.
    fn divide(&self, (ar, ai): Parts<'ctx>, (c, d): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let c_big = self.cmp(FP::OGE, self.abs(c)?, self.abs(d)?)?;
        // |c| >= |d|: r = d/c, den = c + d r.
        let r1 = self.div(d, c)?;
        let den1 = self.add(c, self.mul(d, r1)?)?;
        let p1 = (
            self.div(self.add(ar, self.mul(ai, r1)?)?, den1)?,
            self.div(self.sub(ai, self.mul(ar, r1)?)?, den1)?,
        );
        // x / 0: each part over the signed zero.
        let zero = self.and(
            self.cmp(FP::OEQ, c, self.c(0.0))?,
            self.cmp(FP::OEQ, d, self.c(0.0))?,
        )?;
        let p0 = (self.div(ar, c)?, self.div(ai, c)?);
        let p1 = self.selz(zero, p0, p1)?;
        // else: r = c/d, den = c r + d.
        let r2 = self.div(c, d)?;
        let den2 = self.add(self.mul(c, r2)?, d)?;
        let p2 = (
            self.div(self.add(self.mul(ar, r2)?, ai)?, den2)?,
            self.div(self.sub(self.mul(ai, r2)?, ar)?, den2)?,
        );
        self.selz(c_big, p1, p2)
    }

    /// The complex product, as `num_complex`'s: `(ac - bd, ad + bc)`.
    fn cmul(&self, (a, b): Parts<'ctx>, (c, d): Parts<'ctx>) -> Result<Parts<'ctx>> {
        Ok((
            self.sub(self.mul(a, c)?, self.mul(b, d)?)?,
            self.add(self.mul(a, d)?, self.mul(b, c)?)?,
        ))
    }

    fn exp(&self, (re, im): Parts<'ctx>) -> Result<Parts<'ctx>> {
        let m = self.m(MathFn::Exp, &[re])?;
        let normal = self.polar(m, im)?;
        let re_inf = self.is_inf(re)?;
        let im_fin = self.is_finite(im)?;
        let neg = self.cmp(FP::OLT, re, self.c(0.0))?;
        // -inf + i(inf or NaN): 0.
        let c1 = self.and(self.and(re_inf, neg)?, self.not(im_fin)?)?;
        // +inf + i(0, inf or NaN): (inf, im, NaN for an infinite im).
        let im0 = self.cmp(FP::OEQ, im, self.c(0.0))?;
        let c2 = self.and(
            self.and(re_inf, self.not(neg)?)?,
            self.or(im0, self.not(im_fin)?)?,
        )?;
        let v2 = (re, self.sel(self.is_inf(im)?, self.c(f64::NAN), im)?);
        // NaN + i0: itself.
        let c3 = self.and(self.is_nan(re)?, im0)?;
        let r = self.selz(c3, (re, im), normal)?;
        let r = self.selz(c2, v2, r)?;
        self.selz(c1, (self.c(0.0), self.c(0.0)), r)
    }

    /// `num_complex`'s sqrt (`third` false) or cbrt (`third` true).
    fn root(&self, (re, im): Parts<'ctx>, third: bool) -> Result<Parts<'ctx>> {
        let (f, k) = if third {
            (MathFn::Cbrt, 3.0)
        } else {
            (MathFn::Sqrt, 2.0)
        };
        // √3 in the part type, as the evaluator computes it.
        let sqrt3 = if self.is32() {
            3f32.sqrt() as f64
        } else {
            3f64.sqrt()
        };
        let im0 = self.cmp(FP::OEQ, im, self.c(0.0))?;
        let re0 = self.cmp(FP::OEQ, re, self.c(0.0))?;
        // On the real axis.
        let pos = (self.m(f, &[re])?, im);
        let rn = self.m(f, &[self.neg(re)?])?;
        let neg = if third {
            let r = self.div(rn, self.c(2.0))?;
            (r, self.copysign(self.mul(self.c(sqrt3), r)?, im)?)
        } else {
            (self.c(0.0), self.copysign(rn, im)?)
        };
        let real_axis = self.selz(self.sign_positive(re)?, pos, neg)?;
        // On the imaginary axis.
        let imag_axis = if third {
            let i = self.div(self.m(f, &[self.abs(im)?])?, self.c(2.0))?;
            (self.mul(self.c(sqrt3), i)?, self.copysign(i, im)?)
        } else {
            let x = self.m(f, &[self.div(self.abs(im)?, self.c(2.0))?])?;
            (x, self.copysign(x, im)?)
        };
        let r = self.hypot(re, im)?;
        let th = self.arg((re, im))?;
        let general = self.polar(self.m(f, &[r])?, self.div(th, self.c(k))?)?;
        let v = self.selz(re0, imag_axis, general)?;
        self.selz(im0, real_axis, v)
    }

    fn eval(&self, f: ComplexFn, a: Parts<'ctx>, b: Parts<'ctx>) -> Result<Parts<'ctx>> {
        use ComplexFn as C;
        let (re, im) = a;
        let zero = self.c(0.0);
        let one = (self.c(1.0), zero);
        Ok(match f {
            C::Abs => (self.hypot(re, im)?, zero),
            C::Sign => {
                let r = self.hypot(re, im)?;
                let q = (self.div(re, r)?, self.div(im, r)?);
                self.selz(self.cmp(FP::OEQ, r, zero)?, a, q)?
            }
            C::Exp => self.exp(a)?,
            // expm1(x) cos y - 2 sin^2(y/2) + i e^x sin y.
            C::Expm1 => {
                let s = self.m(MathFn::Sin, &[self.div(im, self.c(2.0))?])?;
                let r = self.sub(
                    self.mul(self.m(MathFn::Expm1, &[re])?, self.m(MathFn::Cos, &[im])?)?,
                    self.mul(self.mul(self.c(2.0), s)?, s)?,
                )?;
                let i = self.mul(self.m(MathFn::Exp, &[re])?, self.m(MathFn::Sin, &[im])?)?;
                (r, i)
            }
            C::Log => (self.m(MathFn::Log, &[self.hypot(re, im)?])?, self.arg(a)?),
            // 0.5 log1p(x (2 + x) + y^2) + i atan2(y, 1 + x).
            C::Log1p => {
                let q = self.add(self.mul(re, self.add(self.c(2.0), re)?)?, self.mul(im, im)?)?;
                (
                    self.mul(self.c(0.5), self.m(MathFn::Log1p, &[q])?)?,
                    self.m(MathFn::Atan2, &[im, self.add(self.c(1.0), re)?])?,
                )
            }
            C::Sqrt => self.root(a, false)?,
            C::Rsqrt => self.divide(one, self.root(a, false)?)?,
            C::Cbrt => self.root(a, true)?,
            // (sinh 2x + i sin 2y) / (cosh 2x + cos 2y).
            C::Tanh => {
                let (x2, y2) = (self.add(re, re)?, self.add(im, im)?);
                let (sh, ch) = self.sinh_cosh(x2)?;
                let d = self.add(ch, self.m(MathFn::Cos, &[y2])?)?;
                (self.div(sh, d)?, self.div(self.m(MathFn::Sin, &[y2])?, d)?)
            }
            // 1 / (1 + e^-z).
            C::Logistic => {
                let e = self.exp((self.neg(re)?, self.neg(im)?))?;
                let den = (self.add(self.c(1.0), e.0)?, self.add(zero, e.1)?);
                self.divide(one, den)?
            }
            C::Sin => {
                let (sh, ch) = self.sinh_cosh(im)?;
                (
                    self.mul(self.m(MathFn::Sin, &[re])?, ch)?,
                    self.mul(self.m(MathFn::Cos, &[re])?, sh)?,
                )
            }
            C::Cos => {
                let (sh, ch) = self.sinh_cosh(im)?;
                (
                    self.mul(self.m(MathFn::Cos, &[re])?, ch)?,
                    self.mul(self.neg(self.m(MathFn::Sin, &[re])?)?, sh)?,
                )
            }
            // (sin 2x + i sinh 2y) / (cos 2x + cosh 2y).
            C::Tan => {
                let (x2, y2) = (self.add(re, re)?, self.add(im, im)?);
                let (sh, ch) = self.sinh_cosh(y2)?;
                let d = self.add(self.m(MathFn::Cos, &[x2])?, ch)?;
                (self.div(self.m(MathFn::Sin, &[x2])?, d)?, self.div(sh, d)?)
            }
            C::Divide => self.divide(a, b)?,
            // -i log((b + i a) / sqrt(b^2 + a^2)), step by step as
            // `binary_c64`/`binary_c128`.
            C::Atan2 => {
                let ia = self.cmul((zero, self.c(1.0)), a)?;
                let num = (self.add(b.0, ia.0)?, self.add(b.1, ia.1)?);
                let (bb, aa) = (self.cmul(b, b)?, self.cmul(a, a)?);
                let den = self.root((self.add(bb.0, aa.0)?, self.add(bb.1, aa.1)?), false)?;
                let q = self.divide(num, den)?;
                let l = (self.m(MathFn::Log, &[self.hypot(q.0, q.1)?])?, self.arg(q)?);
                self.cmul((zero, self.c(-1.0)), l)?
            }
            // |a|^c e^(-d arg a) (cos t + i sin t), t = c arg a + d ln|a|;
            // 0^0 = 1, 0^b = 0 for Re b > 0.
            C::Power => {
                let (c, d) = b;
                let r = self.hypot(re, im)?;
                let th = self.arg(a)?;
                let m = self.mul(
                    self.m(MathFn::Pow, &[r, c])?,
                    self.m(MathFn::Exp, &[self.mul(self.neg(d)?, th)?])?,
                )?;
                let t = self.add(self.mul(c, th)?, self.mul(d, self.m(MathFn::Log, &[r])?)?)?;
                let general = self.polar(m, t)?;
                let a0 = self.and(self.cmp(FP::OEQ, re, zero)?, self.cmp(FP::OEQ, im, zero)?)?;
                let b0 = self.and(self.cmp(FP::OEQ, c, zero)?, self.cmp(FP::OEQ, d, zero)?)?;
                let cpos = self.cmp(FP::OGT, c, zero)?;
                let v = self.selz(self.and(a0, cpos)?, (zero, zero), general)?;
                self.selz(self.and(a0, b0)?, one, v)?
            }
        })
    }
}
