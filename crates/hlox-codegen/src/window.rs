//! Windows as LLVM IR, for both backends: the input index a window
//! position reads (the shared [`window_position`] rule run on LLVM values)
//! and reduce-window's element generator (its window walked in row-major
//! order, the reducer inlined).

use crate::elemental::ElementalCtx;
use crate::loops::loop_nest;
use crate::{Cg, CodegenError};
use hlox_hlo::semantics::arith::IndexArith;
use hlox_hlo::semantics::window::window_position;
use hlox_hlo::{CompId, InstId, Window, WindowDim};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;

type Result<T> = std::result::Result<T, CodegenError>;

/// The most window positions whose code is written out one after another
/// (no loop): with constant window offsets and no loop around them, the
/// output loop is the innermost one, and LLVM vectorizes it across outputs
/// (a 3x3 max-pool, a 2x2 average pool). Larger windows are loops.
pub const UNROLLED_WINDOW: i64 = 64;

/// [`IndexArith`] as instructions at the builder's position: the kernels
/// run the shared index rules of [`hlox_hlo::semantics`] on LLVM values
/// (division and remainder are unsigned: the rules use them on
/// non-negative positions only).
pub struct LlvmArith<'c, 'a, 'ctx>(pub &'c Cg<'a, 'ctx>);

impl<'ctx> IndexArith for LlvmArith<'_, '_, 'ctx> {
    type Int = IntValue<'ctx>;
    type Bool = IntValue<'ctx>;
    type Error = CodegenError;
    fn int(&self, v: i64) -> IntValue<'ctx> {
        self.0.i64c(v)
    }
    fn add(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>> {
        Ok(self.0.b.build_int_add(a, b, "")?)
    }
    fn sub(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>> {
        Ok(self.0.b.build_int_sub(a, b, "")?)
    }
    fn mul(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>> {
        Ok(self.0.b.build_int_mul(a, b, "")?)
    }
    fn div(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>> {
        Ok(self.0.b.build_int_unsigned_div(a, b, "")?)
    }
    fn rem(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>> {
        Ok(self.0.b.build_int_unsigned_rem(a, b, "")?)
    }
    fn ge(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>> {
        Ok(self.0.b.build_int_compare(IntPredicate::SGE, a, b, "")?)
    }
    fn lt(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>> {
        Ok(self.0.b.build_int_compare(IntPredicate::SLT, a, b, "")?)
    }
    fn eq(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>> {
        Ok(self.0.b.build_int_compare(IntPredicate::EQ, a, b, "")?)
    }
    fn and(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Result<IntValue<'ctx>> {
        Ok(self.0.b.build_and(a, b, "")?)
    }
    fn select(
        &self,
        c: IntValue<'ctx>,
        a: IntValue<'ctx>,
        b: IntValue<'ctx>,
    ) -> Result<IntValue<'ctx>> {
        Ok(self.0.b.build_select(c, a, b, "")?.into_int_value())
    }
}

/// True when every position of every window of `w` reads the input: no
/// padding and no base dilation. (The result's shape then keeps each
/// window inside the input, so no position needs a bounds check.)
fn always_inside(w: &WindowDim) -> bool {
    w.pad_lo == 0 && w.pad_hi == 0 && w.base_dilation == 1
}

/// The input index that window element `k` of output position `o` reads,
/// and whether it reads one (not padding or a base-dilation hole): the
/// shared [`window_position`] per dimension, over an input of dimensions
/// `dims`; dimensions without padding or base dilation are not checked.
pub fn window_input_index<'ctx>(
    cg: &Cg<'_, 'ctx>,
    window: &Window,
    dims: &[i64],
    o: &[IntValue<'ctx>],
    k: &[IntValue<'ctx>],
) -> Result<(Vec<IntValue<'ctx>>, IntValue<'ctx>)> {
    let a = LlvmArith(cg);
    let mut valid = cg.i1().const_int(1, false);
    let mut idx = Vec::with_capacity(dims.len());
    for (d, wd) in window.dims.iter().enumerate() {
        if always_inside(wd) {
            let p = a.mul(o[d], a.int(wd.stride))?;
            idx.push(a.add(p, a.mul(k[d], a.int(wd.window_dilation))?)?);
            continue;
        }
        let (i, v) = window_position(&a, wd, dims[d], o[d], k[d])?;
        valid = a.and(valid, v)?;
        idx.push(i);
    }
    Ok((idx, valid))
}

/// Reduce-window's element `oidx`: every window position that reads the
/// input (not padding) is combined into the accumulators `accs` (which
/// hold the init values), in row-major window order, with the reducer
/// `to_apply` inlined. Windows of at most [`UNROLLED_WINDOW`] positions are
/// written out position by position, larger ones as a loop nest.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce_window_into<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    window: &Window,
    in_dims: &[i64],
    oidx: &[IntValue<'ctx>],
    inputs: &[InstId],
    accs: &[(PointerValue<'ctx>, BasicTypeEnum<'ctx>)],
    to_apply: CompId,
) -> Result<()> {
    let sizes: Vec<i64> = window.dims.iter().map(|w| w.size).collect();
    let positions: i64 = sizes.iter().product();
    let step = |ctx: &mut ElementalCtx<'_, 'ctx>, kidx: &[IntValue<'ctx>]| -> Result<()> {
        ctx.scoped(|ctx| combine_at(cg, ctx, window, in_dims, oidx, kidx, inputs, accs, to_apply))
    };
    if positions <= UNROLLED_WINDOW {
        let mut k = vec![0i64; sizes.len()];
        for _ in 0..positions {
            let kidx: Vec<IntValue<'ctx>> = k.iter().map(|&v| cg.i64c(v)).collect();
            step(ctx, &kidx)?;
            // The next position in row-major order.
            for d in (0..k.len()).rev() {
                k[d] += 1;
                if k[d] < sizes[d] {
                    break;
                }
                k[d] = 0;
            }
        }
        return Ok(());
    }
    loop_nest(cg, &sizes, "w", &mut |kidx| step(ctx, kidx))
}

/// One window position `kidx` of output `oidx` combined into `accs`,
/// behind a branch when the position may fall on padding.
#[allow(clippy::too_many_arguments)]
fn combine_at<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &mut ElementalCtx<'_, 'ctx>,
    window: &Window,
    in_dims: &[i64],
    oidx: &[IntValue<'ctx>],
    kidx: &[IntValue<'ctx>],
    inputs: &[InstId],
    accs: &[(PointerValue<'ctx>, BasicTypeEnum<'ctx>)],
    to_apply: CompId,
) -> Result<()> {
    let b = cg.b;
    let (idx, valid) = window_input_index(cg, window, in_dims, oidx, kidx)?;
    let checked = !window.dims.iter().all(always_inside);
    let join = if checked {
        let f = cg.current_fn()?;
        let body = cg.ctx.append_basic_block(f, "rw.in");
        let join = cg.ctx.append_basic_block(f, "rw.next");
        b.build_conditional_branch(valid, body, join)?;
        b.position_at_end(body);
        Some(join)
    } else {
        None
    };
    let mut args = Vec::new();
    for (a, t) in accs {
        args.push(b.build_load(*t, *a, "")?);
    }
    for &inp in inputs {
        args.push(ctx.gen(cg, inp, &idx)?[0]);
    }
    let r = ctx.inline_scalar(cg, to_apply, &args)?;
    for ((a, _), v) in accs.iter().zip(r) {
        b.build_store(*a, v)?;
    }
    if let Some(join) = join {
        b.build_unconditional_branch(join)?;
        b.position_at_end(join);
    }
    Ok(())
}
