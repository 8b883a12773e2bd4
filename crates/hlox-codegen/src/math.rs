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

/// Supplies the code for a [`MathFn`] on f32 or f64 values.
pub trait MathLib {
    fn emit<'ctx>(
        &self,
        cg: &Cg<'_, 'ctx>,
        f: MathFn,
        args: &[FloatValue<'ctx>],
    ) -> Result<FloatValue<'ctx>>;
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
        let intrinsic = match f {
            MathFn::Exp => Some("llvm.exp"),
            MathFn::Log => Some("llvm.log"),
            MathFn::Sqrt => Some("llvm.sqrt"),
            MathFn::Sin => Some("llvm.sin"),
            MathFn::Cos => Some("llvm.cos"),
            MathFn::Pow => Some("llvm.pow"),
            MathFn::Floor => Some("llvm.floor"),
            MathFn::Ceil => Some("llvm.ceil"),
            MathFn::Round => Some("llvm.round"),
            MathFn::RoundEven => Some("llvm.roundeven"),
            MathFn::Fabs => Some("llvm.fabs"),
            _ => None,
        };
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
            let intr = Intrinsic::find(name)
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
        let base = match f {
            MathFn::Expm1 => "expm1",
            MathFn::Log1p => "log1p",
            MathFn::Cbrt => "cbrt",
            MathFn::Tanh => "tanh",
            MathFn::Tan => "tan",
            MathFn::Erf => "erf",
            MathFn::Atan2 => "atan2",
            _ => unreachable!("handled above"),
        };
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
