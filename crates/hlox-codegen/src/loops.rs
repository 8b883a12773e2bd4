//! Loop emission helpers.

use crate::{Cg, CodegenError, Result};
use hlox_hlo::ArrayShape;
use inkwell::values::{AsValueRef, IntValue};
use inkwell::IntPredicate;

/// `for i in start..end { body(i) }` with an i64 induction variable. The
/// body may create blocks; the latch is placed where it leaves the builder.
pub fn for_range<'ctx>(
    cg: &Cg<'_, 'ctx>,
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    name: &str,
    body: &mut dyn FnMut(IntValue<'ctx>) -> Result<()>,
) -> Result<()> {
    for_range_step(cg, start, end, 1, name, body)
}

/// `for (i = start; i < end; i += step) { body(i) }` (`step` > 0).
pub fn for_range_step<'ctx>(
    cg: &Cg<'_, 'ctx>,
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    step: i64,
    name: &str,
    body: &mut dyn FnMut(IntValue<'ctx>) -> Result<()>,
) -> Result<()> {
    range_loop(cg, start, end, step, name, body).map(|_| ())
}

/// [`for_range_step`], returning the loop's latch (its back-edge branch).
fn range_loop<'ctx>(
    cg: &Cg<'_, 'ctx>,
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    step: i64,
    name: &str,
    body: &mut dyn FnMut(IntValue<'ctx>) -> Result<()>,
) -> Result<inkwell::values::InstructionValue<'ctx>> {
    let b = cg.b;
    let f = cg.current_fn()?;
    let pre = b
        .get_insert_block()
        .ok_or_else(|| CodegenError::Other("builder not positioned".into()))?;
    let head = cg.ctx.append_basic_block(f, &format!("{name}.head"));
    let bodyb = cg.ctx.append_basic_block(f, &format!("{name}.body"));
    let exit = cg.ctx.append_basic_block(f, &format!("{name}.exit"));
    b.build_unconditional_branch(head)?;
    b.position_at_end(head);
    let phi = b.build_phi(cg.i64(), name)?;
    phi.add_incoming(&[(&start, pre)]);
    let i = phi.as_basic_value().into_int_value();
    let c = b.build_int_compare(IntPredicate::SLT, i, end, "")?;
    b.build_conditional_branch(c, bodyb, exit)?;
    b.position_at_end(bodyb);
    body(i)?;
    let next = b.build_int_add(i, cg.i64c(step), "")?;
    let latch = b
        .get_insert_block()
        .ok_or_else(|| CodegenError::Other("builder not positioned".into()))?;
    let back = b.build_unconditional_branch(head)?;
    phi.add_incoming(&[(&next, latch)]);
    b.position_at_end(exit);
    Ok(back)
}

/// [`for_range`] for a loop LLVM must leave as written: its latch carries
/// `llvm.loop` metadata with `llvm.loop.vectorize.enable = false` and
/// `llvm.loop.unroll.disable`. For the short loops inside a tile
/// (`hlox-cpu`'s tiled transposing loops): vectorized with gathers and
/// unrolled, each such loop nest cost 50 ms of LLVM time, and a tile's
/// loop of at most 16 iterations gains nothing from either.
pub fn for_range_plain<'ctx>(
    cg: &Cg<'_, 'ctx>,
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    name: &str,
    body: &mut dyn FnMut(IntValue<'ctx>) -> Result<()>,
) -> Result<()> {
    let latch = range_loop(cg, start, end, 1, name, body)?;
    use llvm_sys::core::*;
    use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
    // SAFETY: every handle comes from this context; the temporary node is
    // replaced by the loop ID (making it self-referential, as LLVM requires
    // of `llvm.loop` metadata) before it is used, and then disposed of.
    unsafe {
        let ctx = cg.ctx.raw();
        let md_str = |s: &str| LLVMMDStringInContext2(ctx, s.as_ptr().cast(), s.len());
        let no = LLVMValueAsMetadata(LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0));
        let mut vec_ops = [md_str("llvm.loop.vectorize.enable"), no];
        let vec_off = LLVMMDNodeInContext2(ctx, vec_ops.as_mut_ptr(), 2);
        let mut unroll_ops = [md_str("llvm.loop.unroll.disable")];
        let unroll_off = LLVMMDNodeInContext2(ctx, unroll_ops.as_mut_ptr(), 1);
        let tmp = LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
        let mut ops = [tmp, vec_off, unroll_off];
        let id = LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), 3);
        LLVMMetadataReplaceAllUsesWith(tmp, id);
        let kind = LLVMGetMDKindIDInContext(ctx, c"llvm.loop".as_ptr(), 9);
        LLVMSetMetadata(latch.as_value_ref(), kind, LLVMMetadataAsValue(ctx, id));
    }
    Ok(())
}

/// A loop nest over every element of `shape`, in physical order (the
/// innermost loop runs over the most minor dimension). With `outer`, the
/// outermost (most major) dimension only runs over `outer.0..outer.1`: the
/// unit of work of a parallel loop. `body` gets the logical index.
pub fn shape_loop<'ctx>(
    cg: &Cg<'_, 'ctx>,
    shape: &ArrayShape,
    outer: Option<(IntValue<'ctx>, IntValue<'ctx>)>,
    body: &mut dyn FnMut(&[IntValue<'ctx>]) -> Result<()>,
) -> Result<()> {
    let rank = shape.rank();
    if rank == 0 {
        // One element; with an outer range the element runs when 0 is in it.
        return match outer {
            None => body(&[]),
            Some((s, e)) => for_range(cg, s, e, "scalar", &mut |_| body(&[])),
        };
    }
    let order: Vec<usize> = shape.layout.major_to_minor().collect();
    let mut index = vec![cg.i64c(0); rank];
    nest(cg, shape, &order, 0, outer, &mut index, body)
}

/// Where [`shape_loop_hoisting`] calls back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopPoint {
    /// Every dimension but the innermost is bound (the innermost index is
    /// 0): code placed here runs once per row, before the innermost loop.
    BeforeInner,
    /// The loop body: every dimension is bound.
    Body,
}

/// [`shape_loop`] that also calls `f(LoopPoint::BeforeInner, index)` just
/// before the innermost loop, for values computed once per row (for rank
/// 0 and 1 shapes, once at the start of the nest).
pub fn shape_loop_hoisting<'ctx>(
    cg: &Cg<'_, 'ctx>,
    shape: &ArrayShape,
    outer: Option<(IntValue<'ctx>, IntValue<'ctx>)>,
    f: &mut dyn FnMut(LoopPoint, &[IntValue<'ctx>]) -> Result<()>,
) -> Result<()> {
    let rank = shape.rank();
    if rank < 2 {
        return shape_loop(cg, shape, outer, &mut |idx| f(LoopPoint::Body, idx));
    }
    let order: Vec<usize> = shape.layout.major_to_minor().collect();
    let inner = order[rank - 1];
    let mut index = vec![cg.i64c(0); rank];
    let outer_order = &order[..rank - 1];
    let mut row = |index: &mut Vec<IntValue<'ctx>>| -> Result<()> {
        index[inner] = cg.i64c(0);
        f(LoopPoint::BeforeInner, index)?;
        for_range(
            cg,
            cg.i64c(0),
            cg.i64c(shape.dims[inner]),
            &format!("d{inner}"),
            &mut |i| {
                index[inner] = i;
                f(LoopPoint::Body, index)
            },
        )
    };
    nest(cg, shape, outer_order, 0, outer, &mut index, &mut |idx| {
        let mut v = idx.to_vec();
        row(&mut v)
    })
}

fn nest<'ctx>(
    cg: &Cg<'_, 'ctx>,
    shape: &ArrayShape,
    order: &[usize],
    level: usize,
    outer: Option<(IntValue<'ctx>, IntValue<'ctx>)>,
    index: &mut Vec<IntValue<'ctx>>,
    body: &mut dyn FnMut(&[IntValue<'ctx>]) -> Result<()>,
) -> Result<()> {
    // Dimensions of size 1 need no loop (their index is 0): a shape of
    // 100,000 such dimensions is one element, not 100,000 nested loops.
    let mut level = level;
    while level < order.len() && shape.dims[order[level]] == 1 && (level > 0 || outer.is_none()) {
        index[order[level]] = cg.i64c(0);
        level += 1;
    }
    if level == order.len() {
        return body(index);
    }
    let d = order[level];
    let (s, e) = match (level, outer) {
        (0, Some(r)) => r,
        _ => (cg.i64c(0), cg.i64c(shape.dims[d])),
    };
    for_range(cg, s, e, &format!("d{d}"), &mut |i| {
        index[d] = i;
        // One frame per remaining dimension: grow the stack on the heap
        // rather than overflow it (an empty shape may have any rank).
        stacker::maybe_grow(64 << 10, 1 << 20, || {
            nest(cg, shape, order, level + 1, None, index, body)
        })
    })
}

/// Number of iterations of the outermost loop of [`shape_loop`] (1 for scalars).
pub fn outer_extent(shape: &ArrayShape) -> i64 {
    match shape.layout.minor_to_major.last() {
        Some(&d) => shape.dims[d as usize],
        None => 1,
    }
}

/// Nested loops `0..extents[0]`, `0..extents[1]`, ... (the first
/// outermost), named `{name}{level}`; `body` gets the indices.
pub fn loop_nest<'ctx>(
    cg: &Cg<'_, 'ctx>,
    extents: &[i64],
    name: &str,
    body: &mut dyn FnMut(&[IntValue<'ctx>]) -> Result<()>,
) -> Result<()> {
    fn level<'ctx>(
        cg: &Cg<'_, 'ctx>,
        extents: &[i64],
        name: &str,
        idx: &mut Vec<IntValue<'ctx>>,
        body: &mut dyn FnMut(&[IntValue<'ctx>]) -> Result<()>,
    ) -> Result<()> {
        let l = idx.len();
        let Some(&n) = extents.get(l) else {
            return body(idx);
        };
        for_range(
            cg,
            cg.i64c(0),
            cg.i64c(n),
            &format!("{name}{l}"),
            &mut |i| {
                idx.push(i);
                let r = level(cg, extents, name, idx, body);
                idx.pop();
                r
            },
        )
    }
    level(
        cg,
        extents,
        name,
        &mut Vec::with_capacity(extents.len()),
        body,
    )
}
