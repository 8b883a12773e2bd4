//! LLVM IR generation for sequentially executed computations (entry, while
//! condition/body, call, conditional branches, non-elemental fusions).
//!
//! Every such computation becomes `i32 @comp(ptr ctx, ptr params, ptr outs,
//! ptr arena)`: `params`/`outs` are tables of leaf pointers (pre-order), the
//! arena holds every temporary at an offset fixed by buffer assignment, and
//! a non-zero return means a custom call or runtime kernel failed (its
//! message is in the run context). Element-wise work (unfused element-wise
//! and data-movement ops, reduces, maps, loop and input fusions) is emitted
//! as an outlined loop function `void @loop(ptr bufs, i64 begin, i64 end)`
//! over the outermost physical dimension, called directly or through the
//! runtime's `parallel_for` when the loop is large.

use crate::buffers::{const_name, Assignment, Loc};
use crate::runtime::{self, CallSite};
use crate::schedule::{generates_code, Step};
use crate::CompileError;
use hlox_codegen::elemental::{
    const_global, fusion_is_elemental, is_elemental, ElementalCtx, Leaf,
};
use hlox_codegen::loops::{outer_extent, shape_loop_hoisting, LoopPoint};
use hlox_codegen::Cg;
use hlox_ffi::{BoundTargets, Platform};
use hlox_hlo::{
    ArrayShape, CompId, Computation, CustomCallApiVersion, ElementType, EntityRef, InstId,
    Instruction, Literal, Module, Op, Shape,
};
use inkwell::values::{BasicMetadataValueEnum, BasicValue, FunctionValue, IntValue, PointerValue};
use inkwell::IntPredicate;
use std::collections::HashMap;

type R<T> = Result<T, CompileError>;

/// What an address-table slot of a direct typed-FFI call holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FfiSlot {
    /// The handler's address (`DirectCall::handler`). The frame's other
    /// words (addresses of the prepared call's dimensions, attributes and
    /// state) are written by the run's frame arena in the loading process
    /// (`xla_ffi::direct::FrameArena`), so they need no slots.
    Handler,
}

/// An instruction's leaf buffers: the pointer and shape of each leaf.
type Leaves<'ctx> = [(PointerValue<'ctx>, Shape)];

/// A buffer a generated loop reads: the instruction and its leaves.
type Source<'ctx> = (InstId, Vec<(PointerValue<'ctx>, Shape)>);

/// The body of an element loop, given the loop function's output buffers
/// and the element index.
type ElementBody<'b, 'a, 'ctx> = dyn FnMut(
        &Cg<'_, 'ctx>,
        &mut ElementalCtx<'a, 'ctx>,
        &[(PointerValue<'ctx>, ArrayShape)],
        &[IntValue<'ctx>],
    ) -> hlox_codegen::Result<()>
    + 'b;

/// The leaves' pointers.
fn ptrs<'ctx>(leaves: &Leaves<'ctx>) -> Vec<PointerValue<'ctx>> {
    leaves.iter().map(|(p, _)| *p).collect()
}

pub(crate) struct Emitter<'a, 'ctx> {
    pub cg: Cg<'a, 'ctx>,
    pub module: &'a Module,
    pub assignments: &'a HashMap<CompId, Assignment>,
    pub fns: HashMap<CompId, FunctionValue<'ctx>>,
    pub bound: &'a BoundTargets,
    pub call_sites: Vec<CallSite>,
    /// Where the frames of the direct typed-FFI calls lie in a run's frame
    /// arena (`call_direct_ffi`).
    pub ffi_frames: hlox_ffi::xla_ffi::direct::FrameLayout,
    /// Run custom calls in the sandbox (`CompileOptions::sandbox`).
    pub sandbox: Option<hlox_ffi::sandbox::SandboxOptions>,
    /// The entry computation's steps that generate code, in order (one
    /// instruction, or the products of a concurrent step), each bracketed
    /// by `hlox_rt_profile` calls (`CompileOptions::profile`); `None` when
    /// not profiling.
    pub profiled: Option<Vec<Vec<InstId>>>,
    /// Relocatable code (the compilation cache): `cg.addresses` is set.
    pub relocatable: bool,
    /// The address-table slots of direct typed-FFI calls: (slot, call
    /// site, what the slot holds), resolved again from the call prepared
    /// again at load time.
    pub ffi_slots: Vec<(usize, usize, FfiSlot)>,
    /// The address of each legacy custom-call target the code calls, with
    /// the target's name and `api_version` (what a relocatable object's
    /// address slots are resolved by again at load time).
    pub target_addrs: Vec<(usize, String, CustomCallApiVersion)>,
    /// Runtime kernels to build after JIT: (computation, instruction,
    /// names of the compiled callee functions).
    pub kernels: Vec<(CompId, InstId, Vec<String>)>,
    pub consts: HashMap<String, Vec<u8>>,
    pub cpu: String,
    pub features: String,
    pub par_threshold: usize,
    pub threads: usize,
    loops: usize,
    /// Values computed once per row by row-fused loops.
    pub row_hoisted: usize,
    /// Reductions a row-fused loop still recomputes for every element
    /// (expected 0: a row fusion the hoisting did not cover).
    pub per_element_reductions: usize,
    /// Values of row fusions computed once per row into a scratch row
    /// ([`row_shared`]) instead of once in a reduction and again per output.
    pub row_shared: usize,
    /// Reductions emitted with the column strategy.
    pub column_reductions: usize,
    /// Of those, the ones split across threads by rows.
    pub column_reductions_split_rows: usize,
}

/// An instruction of the sequential computation being emitted.
struct InstAt<'a, 'ctx> {
    id: InstId,
    inst: &'a Instruction,
    /// The instruction's output leaves.
    out: Vec<(PointerValue<'ctx>, Shape)>,
}

/// What a group of element loops generates from: the computation whose
/// instructions they generate, the buffers they read (everything else is
/// generated), and the name their functions and errors carry.
struct Gen<'s, 'a, 'ctx> {
    comp: &'a Computation,
    sources: &'s [Source<'ctx>],
    name: &'s str,
}

/// The sequential computation being emitted and its function's values.
struct Frame<'a, 'ctx> {
    cid: CompId,
    comp: &'a Computation,
    /// The computation's buffer assignment.
    a: &'a Assignment,
    ctx: PointerValue<'ctx>,
    params: PointerValue<'ctx>,
    outs: PointerValue<'ctx>,
    arena: PointerValue<'ctx>,
    fail: inkwell::basic_block::BasicBlock<'ctx>,
}

/// Parameter `i` of a function this module just declared with it.
fn param<'ctx>(
    f: FunctionValue<'ctx>,
    i: u32,
) -> Result<inkwell::values::BasicValueEnum<'ctx>, CompileError> {
    f.get_nth_param(i)
        .ok_or_else(|| CompileError::Internal(format!("function has no parameter {i}")))
}

/// A prepared custom call's leaf counts (operands, results) against the
/// buffers the emitter has for it.
fn check_counts(name: &str, what: &str, have: (usize, usize), counts: (usize, usize)) -> R<()> {
    if have == counts {
        return Ok(());
    }
    Err(CompileError::Internal(format!(
        "custom call {name}: {} operand and {} result buffers for {what} of {} and {}",
        have.0, have.1, counts.0, counts.1
    )))
}

fn e<E: std::fmt::Display>(inst: &str) -> impl Fn(E) -> CompileError + '_ {
    move |err| CompileError::Codegen {
        inst: inst.to_string(),
        message: err.to_string(),
    }
}

/// The largest number of input elements per output element of a reduce
/// computed (not read from a buffer) by the generator of `root`.
fn reduce_work_factor<T>(comp: &Computation, root: InstId, sources: &[(InstId, T)]) -> usize {
    let generated = reachable(comp, root, |id| sources.iter().any(|(s, _)| *s == id));
    let mut work = 1usize;
    for (id, inst) in comp.instructions.iter() {
        if !generated[id.index()] {
            continue;
        }
        if let Op::Reduce { .. } = inst.op {
            let out = inst.shape.leaves();
            let out_n = out
                .first()
                .and_then(|(_, s)| s.as_array())
                .map(|a| a.element_count())
                .unwrap_or(1)
                .max(1);
            if let Some(a) = inst
                .operands
                .first()
                .and_then(|&o| comp.inst(o).shape.as_array().cloned())
            {
                work = work.max(a.element_count() / out_n);
            }
        }
    }
    work
}

/// The instructions (by index) whose values the generator of `start`
/// computes: reachable from it through operands without entering one where
/// `stop` holds (a buffer the loop reads, a value computed elsewhere).
fn reachable(comp: &Computation, start: InstId, stop: impl Fn(InstId) -> bool) -> Vec<bool> {
    let mut reach = vec![false; comp.instructions.len()];
    let mut stack = vec![start];
    while let Some(id) = stack.pop() {
        if reach[id.index()] || stop(id) {
            continue;
        }
        reach[id.index()] = true;
        stack.extend(comp.inst(id).operands.iter().copied());
    }
    reach
}

/// The tile edge of [`Emitter::emit_tiled_loop`]: 16 f32 are one 64-byte
/// cache line, so a 16 x 16 tile reads 16 whole lines of a transposed
/// source and writes 16 whole lines of the output.
const TRANSPOSE_TILE: i64 = 16;

/// Whether the element loop over `loop_shape` (two dimensions longer than
/// 1, both at least two tiles; unit dimensions anywhere) generating `root`
/// reads a source across its layout: a rank-2 source buffer (or one of the
/// loop's shape) whose minor-most wide dimension is not the loop's, a
/// transpose that moves the minor-most wide dimension, or a reshape of an
/// operand not laid out row-major. Row by row, such a read strides by a whole row per element
/// (2 KB for a 512-wide f32 matrix, all in the same few cache sets), so the
/// relayout copies and transposing fusions around the LAPACK calls ran at
/// 2 ns per element; tiled ([`Emitter::emit_tiled_loop`]) they run at the
/// copy's speed.
fn reads_transposed<T>(
    comp: &Computation,
    root: InstId,
    sources: &[(InstId, Vec<(T, Shape)>)],
    loop_shape: &ArrayShape,
) -> bool {
    let wide = tiled_dims(loop_shape);
    if wide.len() != 2
        || wide
            .iter()
            .any(|&d| loop_shape.dims[d] < 2 * TRANSPOSE_TILE)
    {
        return false;
    }
    let minor = loop_shape.layout.minor_to_major.first().copied();
    let minor_wide = minor_nonunit(loop_shape);
    let mut stack = vec![root];
    let mut seen = std::collections::HashSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        if let Some((_, leaves)) = sources.iter().find(|(s, _)| *s == id) {
            let across = leaves.iter().any(|(_, s)| match s {
                Shape::Array(a) => {
                    (a.rank() == 2
                        && loop_shape.rank() == 2
                        && a.layout.minor_to_major.first().copied() != minor)
                        || (a.dims == loop_shape.dims && minor_nonunit(a) != minor_wide)
                }
                _ => false,
            });
            if across {
                return true;
            }
            continue;
        }
        let inst = comp.inst(id);
        match &inst.op {
            Op::Transpose { dimensions } if moves_minor(comp, inst, dimensions) => return true,
            // A reshape of an operand laid out other than row-major (over its
            // dimensions longer than 1) reads it across its rows: the
            // linear index runs in row-major order (JAX's solve reshapes a
            // `{0,1}` transpose of its right-hand side into `[n, n, 1]`).
            Op::Reshape => {
                let src = inst
                    .operands
                    .first()
                    .and_then(|&o| comp.inst(o).shape.as_array());
                if src.is_some_and(|a| !row_major_over_wide(a)) {
                    return true;
                }
            }
            _ => {}
        }
        stack.extend(inst.operands.iter().copied());
    }
    false
}

/// `(operand, its shape, row-major)` when `root` is a reshape that only
/// merges dimensions of its operand (both layouts row-major, so the bytes
/// are the same: a bitcast) and neither the loop over `loop_shape` nor the
/// one over the operand's shape would be tiled (both visit the elements in
/// the same order, so only the index arithmetic changes; a tiled loop
/// reads a transposed source better). Attention's head merge, `[4,128,64] ->
/// [128,4,64] -> [128,256]`: over `[128,256]` each element's source index
/// is split by division and remainder, which LLVM cannot vectorize (31 us
/// for 32K floats); over `[128,4,64]` the inner loop copies contiguous runs
/// of 64 (the output buffer, viewed with the operand's shape, is the same
/// memory in the same order).
fn merging_reshape_root<T>(
    comp: &Computation,
    root: InstId,
    sources: &[(InstId, Vec<(T, Shape)>)],
    loop_shape: &ArrayShape,
) -> Option<(InstId, ArrayShape)> {
    let inst = comp.inst(root);
    if !matches!(inst.op, Op::Reshape) || sources.iter().any(|(s, _)| *s == root) {
        return None;
    }
    let operand = *inst.operands.first()?;
    let src = comp.inst(operand).shape.as_array()?;
    let finer = ArrayShape::new(loop_shape.ty, src.dims.clone());
    let wide = |a: &ArrayShape| a.dims.iter().filter(|&&n| n > 1).count();
    let row_major = |a: &ArrayShape| {
        a.layout.minor_to_major.len() == a.rank()
            && a.layout
                .minor_to_major
                .iter()
                .rev()
                .copied()
                .eq(0..a.rank() as i64)
    };
    (src.ty == loop_shape.ty
        && row_major(loop_shape)
        && row_major(src)
        && wide(src) > wide(loop_shape)
        && src.element_count() == loop_shape.element_count()
        && !reads_transposed(comp, root, sources, loop_shape)
        && !reads_transposed(comp, operand, sources, &finer))
    .then_some((operand, finer))
}

/// The smallest matrix (elements) that [`transpose_2d_plan`] sends to the
/// runtime's transposition; smaller ones stay element loops.
const RUNTIME_TRANSPOSE_FROM: usize = 1024;

/// `(rows, cols, element bytes)` when `inst`, a `copy` or `transpose` of an
/// array, writes the row-major `rows x cols` matrix its operand holds
/// (over its dimensions longer than 1, in its layout) transposed: the
/// result's major dimension longer than 1 is the operand's minor one and
/// the other way round. Only for at least [`RUNTIME_TRANSPOSE_FROM`]
/// elements.
fn transpose_2d_plan(comp: &Computation, inst: &Instruction) -> Option<(usize, usize, usize)> {
    let perm = match &inst.op {
        Op::Copy => None,
        Op::Transpose { dimensions } => Some(dimensions),
        _ => return None,
    };
    // The operand dimension each result dimension reads.
    let from = |r: usize| match perm {
        None => Some(r),
        Some(p) => p.get(r).map(|&d| d as usize),
    };
    let out = inst.shape.as_array()?;
    let src = comp.inst(*inst.operands.first()?).shape.as_array()?;
    if src.ty != out.ty {
        return None;
    }
    let (ow, sw) = (tiled_dims(out), tiled_dims(src));
    let ([o_major, o_minor], [s_major, s_minor]) = (ow.as_slice(), sw.as_slice()) else {
        return None;
    };
    if from(*o_minor)? != *s_major || from(*o_major)? != *s_minor {
        return None;
    }
    let (rows, cols) = (src.dims[*s_major] as usize, src.dims[*s_minor] as usize);
    (rows * cols >= RUNTIME_TRANSPOSE_FROM).then(|| (rows, cols, out.ty.byte_size()))
}

/// Whether a transpose reads its operand across rows: its result's
/// minor-most dimension is not its operand's. One that keeps the minor
/// dimension (attention's `[4,128,64] -> [128,4,64]`, heads back to rows)
/// copies whole contiguous runs, which the plain loop vectorizes; tiled, it
/// ran element by element (30 us against 4 us for 32K floats).
fn moves_minor(comp: &Computation, inst: &Instruction, dimensions: &[i64]) -> bool {
    let (Some(out), Some(src)) = (
        inst.shape.as_array(),
        inst.operands
            .first()
            .and_then(|&o| comp.inst(o).shape.as_array()),
    ) else {
        return true;
    };
    match (minor_nonunit(out), minor_nonunit(src)) {
        (Some(r), Some(o)) => dimensions.get(r as usize).copied() != Some(o),
        _ => false,
    }
}

/// The dimensions longer than 1, major to minor in `a`'s layout: the ones a
/// tiled loop runs over (the others have index 0).
fn tiled_dims(a: &ArrayShape) -> Vec<usize> {
    a.layout
        .major_to_minor()
        .filter(|&d| a.dims.get(d).is_some_and(|&n| n > 1))
        .collect()
}

/// The minor-most dimension longer than 1 of `a`'s layout (unit dimensions
/// move no data, wherever the layout puts them).
fn minor_nonunit(a: &ArrayShape) -> Option<i64> {
    a.layout
        .minor_to_major
        .iter()
        .copied()
        .find(|&d| a.dims.get(d as usize).is_some_and(|&n| n > 1))
}

/// Whether `a`'s dimensions longer than 1 lie in row-major order.
fn row_major_over_wide(a: &ArrayShape) -> bool {
    let wide = tiled_dims(a);
    wide.windows(2).all(|w| w[0] < w[1])
}

/// Values to compute once per row of a loop over `loop_shape` (rank >= 2)
/// generating `root`: the operands of broadcasts to `loop_shape` along its
/// innermost (minor-most) dimension whose value involves a reduce (row
/// fusion: softmax's max and sum, layernorm's mean and variance), each
/// with the loop dimensions its index is taken from, in topological order.
/// The element generator caches them per index, so the innermost loop (and
/// reductions inside other hoisted values) reuse them.
fn row_hoists<T>(
    comp: &Computation,
    root: InstId,
    sources: &[(InstId, T)],
    loop_shape: &ArrayShape,
) -> Vec<(InstId, Vec<i64>)> {
    let Some(&minor) = loop_shape.layout.minor_to_major.first() else {
        return Vec::new();
    };
    if loop_shape.rank() < 2 {
        return Vec::new();
    }
    let is_source = |id: InstId| sources.iter().any(|(s, _)| *s == id);
    // Instructions reachable from the root without passing through sources.
    let reach = reachable(comp, root, is_source);
    // Does the value of an instruction involve a reduce (in topological order)?
    let mut has_reduce = vec![false; comp.instructions.len()];
    for (id, inst) in comp.instructions.iter() {
        if !reach[id.index()] {
            continue;
        }
        has_reduce[id.index()] = matches!(inst.op, Op::Reduce { .. })
            || inst.operands.iter().any(|o| has_reduce[o.index()]);
    }
    let mut out: Vec<(InstId, Vec<i64>)> = Vec::new();
    for (id, inst) in comp.instructions.iter() {
        let Op::Broadcast { dimensions } = &inst.op else {
            continue;
        };
        let Some(&x) = inst.operands.first() else {
            continue;
        };
        let fits = reach[id.index()]
            && has_reduce[x.index()]
            && inst
                .shape
                .as_array()
                .is_some_and(|s| s.dims == loop_shape.dims)
            && !dimensions.contains(&minor);
        if fits && !out.iter().any(|(y, d)| *y == x && d == dimensions) {
            out.push((x, dimensions.clone()));
        }
    }
    out.sort_by_key(|(x, _)| *x);
    out
}

/// The largest row, in bytes, that a row fusion keeps in a per-thread
/// scratch buffer ([`row_shared`]): well inside L1/L2 and the stack of a
/// pool thread.
const ROW_SCRATCH_MAX_BYTES: usize = 32 << 10;

/// Expensive per-element values that a row fusion would otherwise compute
/// twice for every element: once inside a hoisted row reduction and again in
/// the row's output loop (softmax's `exp(x - max)`, summed per row and then
/// divided by that sum). Each is returned with the hoisted value whose
/// reduction reads it (an index into `hoist`); the loop computes it once
/// per row into a row-sized scratch buffer just before that reduction, and
/// the reduction and the output loop read it from there (from L1). Without
/// this the row loop evaluates `exp` twice per element, which made
/// softmax compute-bound at about twice XLA's time on the measuring machine
/// (docs/performance.md, issue 26).
///
/// A value qualifies when it is the (only) operand of a single-input
/// reduce that is itself hoisted, reduces exactly the loop's minor
/// dimension and has the loop's dims (so the reduce's operand index for a
/// row is the loop index with the minor index varied), it is used by the
/// output loop too (reachable from `root` without passing through a hoisted
/// value or a source), its own expression contains an expensive operation
/// and no reduce, and its row fits in [`ROW_SCRATCH_MAX_BYTES`].
fn row_shared<T>(
    comp: &Computation,
    root: InstId,
    sources: &[(InstId, T)],
    loop_shape: &ArrayShape,
    hoist: &[(InstId, Vec<i64>)],
) -> Vec<(usize, InstId)> {
    let Some(&minor) = loop_shape.layout.minor_to_major.first() else {
        return Vec::new();
    };
    let rank = loop_shape.rank() as i64;
    let is_source = |id: InstId| sources.iter().any(|(s, _)| *s == id);
    let is_hoisted = |id: InstId| hoist.iter().any(|(x, _)| *x == id);
    let generated_from =
        |start: InstId| reachable(comp, start, |id| is_source(id) || is_hoisted(id));
    // Instructions the output loop generates itself.
    let in_body = generated_from(root);
    let other_dims: Vec<i64> = (0..rank).filter(|&d| d != minor).collect();
    let mut out: Vec<(usize, InstId)> = Vec::new();
    for (k, (x, dims)) in hoist.iter().enumerate() {
        let r = comp.inst(*x);
        let Op::Reduce { dimensions } = &r.op else {
            continue;
        };
        let &[e, _init] = r.operands.as_slice() else {
            continue;
        };
        let Some(es) = comp.inst(e).shape.as_array() else {
            continue;
        };
        let fits = dimensions.as_slice() == [minor]
            && *dims == other_dims
            && es.dims == loop_shape.dims
            && in_body[e.index()]
            && !is_source(e)
            && (es.dims[minor as usize].max(0) as usize).saturating_mul(es.ty.byte_size())
                <= ROW_SCRATCH_MAX_BYTES
            && !out.iter().any(|(_, y)| *y == e);
        if !fits {
            continue;
        }
        // The value's own expression: expensive, and free of reductions.
        let own = generated_from(e);
        let mut expensive = false;
        let mut reduces = false;
        for (id, inst) in comp.instructions.iter() {
            if own[id.index()] {
                reduces |= matches!(inst.op, Op::Reduce { .. });
                expensive |= inst.op.opcode().is_expensive();
            }
        }
        if expensive && !reduces {
            out.push((k, e));
        }
    }
    out
}

/// Loops over the reduced dimensions `red` (most major first) of `shape`,
/// setting them in `idx`; `body` runs innermost.
fn column_loops<'ctx>(
    cg: &Cg<'_, 'ctx>,
    shape: &ArrayShape,
    red: &[usize],
    idx: &mut Vec<IntValue<'ctx>>,
    body: &mut dyn FnMut(&Cg<'_, 'ctx>, &[IntValue<'ctx>]) -> hlox_codegen::Result<()>,
) -> hlox_codegen::Result<()> {
    let Some((&d, rest)) = red.split_first() else {
        return body(cg, idx);
    };
    hlox_codegen::loops::for_range(
        cg,
        cg.i64c(0),
        cg.i64c(shape.dims[d]),
        &format!("c{d}"),
        &mut |i| {
            idx[d] = i;
            column_loops(cg, shape, rest, idx, body)
        },
    )
}

/// Stores into `out` the partial results of reduce `root` at `at(0)`,
/// `at(1)`, ... (`parts` of them, of type `ty`) combined in that order.
fn combine_partials<'ctx>(
    cg: &Cg<'_, 'ctx>,
    ctx: &ElementalCtx<'_, 'ctx>,
    root: InstId,
    ty: ElementType,
    parts: i64,
    at: impl Fn(i64) -> hlox_codegen::Result<PointerValue<'ctx>>,
    out: PointerValue<'ctx>,
) -> hlox_codegen::Result<()> {
    let mut acc = cg.load_elem(ty, at(0)?)?;
    for k in 1..parts {
        let x = cg.load_elem(ty, at(k)?)?;
        acc = ctx.combine_reduced(cg, root, acc, x)?;
    }
    cg.store_elem(ty, out, acc)
}

/// Computations executed as functions, reachable from the entry, callees first.
pub(crate) fn sequential_computations(module: &Module) -> Vec<CompId> {
    let mut seen = vec![module.entry];
    let mut i = 0;
    while i < seen.len() {
        let c = module.comp(seen[i]);
        for (_, inst) in c.instructions.iter() {
            let callees: Vec<CompId> = match &inst.op {
                Op::While | Op::Call | Op::Conditional => inst.called.clone(),
                Op::Fusion { .. } => inst
                    .called
                    .iter()
                    .copied()
                    .filter(|&f| !fusion_is_elemental(module, f))
                    .collect(),
                _ => vec![],
            };
            for cid in callees {
                if !seen.contains(&cid) && module.computations.get(cid).is_some() {
                    seen.push(cid);
                }
            }
        }
        i += 1;
    }
    seen.reverse();
    seen
}

impl<'a, 'ctx> Emitter<'a, 'ctx> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cg: Cg<'a, 'ctx>,
        module: &'a Module,
        assignments: &'a HashMap<CompId, Assignment>,
        bound: &'a BoundTargets,
        cpu: String,
        features: String,
        par_threshold: usize,
        threads: usize,
    ) -> Self {
        let mut consts = HashMap::new();
        for (_, c) in module.computations.iter() {
            for (_, inst) in c.instructions.iter() {
                if let Op::Constant { literal } = &inst.op {
                    for (i, l) in literal.leaves().iter().enumerate() {
                        if let Literal::Array(a) = l {
                            consts.insert(const_name(c, &inst.name, i), a.bytes().to_vec());
                        }
                    }
                }
            }
        }
        Emitter {
            cg,
            module,
            assignments,
            fns: HashMap::new(),
            bound,
            call_sites: Vec::new(),
            ffi_frames: Default::default(),
            sandbox: None,
            profiled: None,
            relocatable: false,
            ffi_slots: Vec::new(),
            target_addrs: Vec::new(),
            kernels: Vec::new(),
            consts,
            cpu,
            features,
            par_threshold,
            threads,
            loops: 0,
            row_hoisted: 0,
            per_element_reductions: 0,
            row_shared: 0,
            column_reductions: 0,
            column_reductions_split_rows: 0,
        }
    }

    fn add_attrs(&self, f: FunctionValue<'ctx>) {
        use inkwell::attributes::AttributeLoc;
        let ctx = self.cg.ctx;
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute("target-cpu", &self.cpu),
        );
        if !self.features.is_empty() {
            f.add_attribute(
                AttributeLoc::Function,
                ctx.create_string_attribute("target-features", &self.features),
            );
        }
        // The code runs with denormals flushed (FTZ/DAZ): tell LLVM, so that
        // it does not rewrite bit tests into float compares that see zeros.
        for k in ["denormal-fp-math", "denormal-fp-math-f32"] {
            f.add_attribute(
                AttributeLoc::Function,
                ctx.create_string_attribute(k, "preserve-sign,preserve-sign"),
            );
        }
        let nounwind = inkwell::attributes::Attribute::get_named_enum_kind_id("nounwind");
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_enum_attribute(nounwind, 0),
        );
    }

    /// Adds `void name(params)` with this module's function attributes and
    /// positions the builder at its entry block.
    fn begin_void_fn(
        &self,
        name: &str,
        params: &[inkwell::types::BasicMetadataTypeEnum<'ctx>],
    ) -> FunctionValue<'ctx> {
        let cg = &self.cg;
        let f = cg
            .module
            .add_function(name, cg.ctx.void_type().fn_type(params, false), None);
        self.add_attrs(f);
        cg.b.position_at_end(cg.ctx.append_basic_block(f, "entry"));
        f
    }

    pub fn fn_name(&self, cid: CompId) -> String {
        format!("comp.{}.{}", cid, self.module.comp(cid).name)
    }

    /// Declare every sequential computation's function.
    pub fn declare(&mut self, comps: &[CompId]) {
        let p = self.cg.ptr();
        let fty = self
            .cg
            .i32()
            .fn_type(&[p.into(), p.into(), p.into(), p.into()], false);
        for &c in comps {
            let f = self.cg.module.add_function(&self.fn_name(c), fty, None);
            self.add_attrs(f);
            self.fns.insert(c, f);
        }
    }

    fn ptr_of(&self, fr: &Frame<'a, 'ctx>, loc: &Loc) -> R<PointerValue<'ctx>> {
        let cg = &self.cg;
        let a = fr.a;
        Ok(match loc {
            Loc::Param(i) => self.load_ptr(fr.params, *i, "leaf")?,
            Loc::Temp(t) => {
                let tt = &a.temps[*t];
                match tt.out {
                    Some(k) => self.load_ptr(fr.outs, k, "leaf")?,
                    None => unsafe {
                        cg.b.build_in_bounds_gep(
                            cg.i8(),
                            fr.arena,
                            &[cg.i64c((a.base + tt.offset) as i64)],
                            "",
                        )
                    }
                    .map_err(e("temp"))?,
                }
            }
            Loc::Const(name) => {
                let bytes = self.consts.get(name).cloned().unwrap_or_default();
                const_global(cg, name, &bytes)
            }
            Loc::Null => cg.ptr().const_null(),
        })
    }

    /// Leaf pointers and shapes of an instruction.
    fn leaves_of(&self, fr: &Frame<'a, 'ctx>, id: InstId) -> R<Vec<(PointerValue<'ctx>, Shape)>> {
        let locs = fr.a.leaves.get(&id).cloned().unwrap_or_default();
        let shapes = fr.comp.inst(id).shape.leaves();
        let mut out = Vec::new();
        for (l, (_, s)) in locs.iter().zip(shapes) {
            out.push((self.ptr_of(fr, l)?, s.clone()));
        }
        Ok(out)
    }

    /// The leaf pointers of `ids`, one after another.
    fn leaf_ptrs(&self, fr: &Frame<'a, 'ctx>, ids: &[InstId]) -> R<Vec<PointerValue<'ctx>>> {
        let mut out = Vec::new();
        for &id in ids {
            out.extend(ptrs(&self.leaves_of(fr, id)?));
        }
        Ok(out)
    }

    /// The buffers a loop generating from `operands` reads: each distinct
    /// operand with its leaves.
    fn sources_of(&self, fr: &Frame<'a, 'ctx>, operands: &[InstId]) -> R<Vec<Source<'ctx>>> {
        let mut sources: Vec<Source<'ctx>> = Vec::new();
        for &o in operands {
            if !sources.iter().any(|(s, _)| *s == o) {
                sources.push((o, self.leaves_of(fr, o)?));
            }
        }
        Ok(sources)
    }

    /// The pointer in slot `i` of the pointer table at `table`.
    fn load_ptr(&self, table: PointerValue<'ctx>, i: usize, what: &str) -> R<PointerValue<'ctx>> {
        let cg = &self.cg;
        let slot = unsafe {
            cg.b.build_in_bounds_gep(cg.ptr(), table, &[cg.i64c(i as i64)], "")
        }
        .map_err(e(what))?;
        Ok(cg
            .b
            .build_load(cg.ptr(), slot, "")
            .map_err(e(what))?
            .into_pointer_value())
    }

    fn memcpy(&self, dst: PointerValue<'ctx>, src: PointerValue<'ctx>, size: usize) -> R<()> {
        if size == 0 {
            return Ok(());
        }
        self.cg
            .b
            .build_memcpy(dst, 1, src, 1, self.cg.i64c(size as i64))
            .map_err(e("memcpy"))?;
        Ok(())
    }

    /// Copies each array leaf of `srcs` into its leaf of `dst`.
    fn copy_arrays(&self, dst: &Leaves<'ctx>, srcs: &[PointerValue<'ctx>]) -> R<()> {
        for ((d, s), src) in dst.iter().zip(srcs) {
            if let Some(arr) = s.as_array() {
                self.memcpy(*d, *src, arr.byte_size())?;
            }
        }
        Ok(())
    }

    /// A stack table of pointers.
    fn table(&self, ptrs: &[PointerValue<'ctx>]) -> R<PointerValue<'ctx>> {
        let cg = &self.cg;
        let n = ptrs.len().max(1) as u32;
        let ty = cg.ptr().array_type(n);
        let t = cg.entry_alloca(ty.into(), "tbl").map_err(e("table"))?;
        for (i, p) in ptrs.iter().enumerate() {
            let slot = unsafe {
                cg.b.build_in_bounds_gep(cg.ptr(), t, &[cg.i64c(i as i64)], "")
            }
            .map_err(e("table"))?;
            cg.b.build_store(slot, *p).map_err(e("table"))?;
        }
        Ok(t)
    }

    /// Return non-zero from the current function when `rc != 0`.
    /// The parameter types of a call into Rust or C with these arguments:
    /// i64 for integers, pointers otherwise.
    fn param_types(
        &self,
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Vec<inkwell::types::BasicMetadataTypeEnum<'ctx>> {
        args.iter()
            .map(|v| match v {
                BasicMetadataValueEnum::IntValue(_) => self.cg.i64().into(),
                _ => self.cg.ptr().into(),
            })
            .collect()
    }

    /// A custom call whose prepared form the runtime finds at a call site
    /// (typed FFI, sandboxed): checks the leaf counts against the prepared
    /// call's `counts` (operands, results), records `site`, and calls
    /// `hlox_rt_prepared_call(ctx, site, argument table, result table)`.
    fn call_prepared_site(
        &mut self,
        fr: &Frame<'a, 'ctx>,
        what: &str,
        args: &[PointerValue<'ctx>],
        out_ptrs: &[PointerValue<'ctx>],
        counts: (usize, usize),
        site: CallSite,
    ) -> R<()> {
        let name = site.inst.clone();
        check_counts(&name, what, (args.len(), out_ptrs.len()), counts)?;
        let args_t = self.table(args)?;
        let rets_t = self.table(out_ptrs)?;
        let index = self.cg.i64c(self.call_sites.len() as i64);
        self.call_sites.push(site);
        self.call_runtime(
            fr,
            &name,
            runtime::hlox_rt_prepared_call as *const () as usize,
            &[fr.ctx.into(), index.into(), args_t.into(), rets_t.into()],
        )
    }

    /// A typed-FFI call made by the generated code itself: its call frame
    /// placed in the run's frame arena (hlox-ffi's `direct` module keeps the
    /// ABI's layouts and writes the frame's constant parts once per arena),
    /// so the call writes only its buffers' data pointers, calls the handler
    /// directly, and calls the runtime only when the handler returned an
    /// error or a future or left scratch memory (`hlox_rt_ffi_finish`). The
    /// prepared call in `site` owns what the frame points at, for the
    /// executable's life.
    fn call_direct_ffi(
        &mut self,
        fr: &Frame<'a, 'ctx>,
        args: &[PointerValue<'ctx>],
        rets: &[PointerValue<'ctx>],
        counts: (usize, usize),
        d: &hlox_ffi::xla_ffi::direct::DirectCall,
        site: CallSite,
    ) -> R<()> {
        let name = site.inst.clone();
        check_counts(&name, "a typed-FFI call", (args.len(), rets.len()), counts)?;
        let site_index = self.call_sites.len();
        let index = self.cg.i64c(site_index as i64);
        self.call_sites.push(site);
        let placed = self.ffi_frames.place(d);
        let cg = &self.cg;
        // Relocatable code (the compilation cache) calls the handler
        // through the address table (an address of this process).
        let table = cg.addresses.filter(|_| self.relocatable);
        let mut ffi_slots = Vec::new();
        let i8t = cg.ctx.i8_type();
        let at = |base: PointerValue<'ctx>, offset: usize| {
            // SAFETY: `offset` is inside the block (the run context's
            // layout, the arena's layout).
            unsafe {
                cg.b.build_in_bounds_gep(i8t, base, &[cg.i64c(offset as i64)], "")
            }
            .map_err(e(&name))
        };
        let load_ptr = |offset: usize, what: &str| -> R<PointerValue<'ctx>> {
            Ok(cg
                .b
                .build_load(cg.ptr(), at(fr.ctx, offset)?, what)
                .map_err(e(&name))?
                .into_pointer_value())
        };
        let frames = load_ptr(std::mem::offset_of!(runtime::RunCtx, frames), "ffi.frames")?;
        for s in &placed.data {
            let list = if s.ret { rets } else { args };
            let p = list.get(s.index).ok_or_else(|| {
                CompileError::Internal(format!("custom call {name}: no buffer {}", s.index))
            })?;
            // Volatile: the handler reads each field with an 8-byte load,
            // which LLVM's merging of neighbouring stores into a vector
            // store would stall (store forwarding fails).
            let st =
                cg.b.build_store(at(frames, s.offset)?, *p)
                    .map_err(e(&name))?;
            st.set_volatile(true).map_err(|err| {
                CompileError::Internal(format!("custom call {name}: volatile store: {err}"))
            })?;
        }
        let fty = cg.ptr().fn_type(&[cg.ptr().into()], false);
        let frame = at(frames, placed.frame)?;
        let err = match table {
            Some(t) => {
                let slot = t.push(placed.handler as u64);
                ffi_slots.push((slot, site_index, FfiSlot::Handler));
                let p = t.load(cg, slot).map_err(e(&name))?;
                cg.b.build_indirect_call(fty, p, &[frame.into()], "")
                    .map_err(e(&name))?
                    .try_as_basic_value()
                    .basic()
            }
            None => cg
                .call_addr(placed.handler, fty, &[frame.into()])
                .map_err(e(&name))?,
        }
        .ok_or_else(|| CompileError::Internal(format!("{name}: the handler returned void")))?
        .into_pointer_value();
        let future_slot = at(frames, placed.future)?;
        let future =
            cg.b.build_load(cg.ptr(), future_slot, "future")
                .map_err(e(&name))?
                .into_pointer_value();
        let invoke = load_ptr(std::mem::offset_of!(runtime::RunCtx, invoke), "ffi.invoke")?;
        let live_at = at(
            invoke,
            hlox_ffi::xla_ffi::InvokeContext::scratch_live_offset(),
        )?;
        let live =
            cg.b.build_load(cg.i64(), live_at, "scratch")
                .map_err(e(&name))?
                .into_int_value();
        let b = &cg.b;
        let is_set = |p: PointerValue<'ctx>| b.build_is_not_null(p, "");
        let slow = b
            .build_or(
                is_set(err).map_err(e(&name))?,
                is_set(future).map_err(e(&name))?,
                "",
            )
            .map_err(e(&name))?;
        let any_live = b
            .build_int_compare(IntPredicate::NE, live, cg.i64().const_zero(), "")
            .map_err(e(&name))?;
        let slow = b.build_or(slow, any_live, "").map_err(e(&name))?;
        let f = cg.current_fn().map_err(e(&name))?;
        let slow_bb = cg.ctx.append_basic_block(f, "ffi.slow");
        let done = cg.ctx.append_basic_block(f, "ffi.done");
        b.build_conditional_branch(slow, slow_bb, done)
            .map_err(e(&name))?;
        b.position_at_end(slow_bb);
        // The runtime puts the frame's `future` back to null.
        self.ffi_slots.extend(ffi_slots);
        let finish = runtime::hlox_rt_ffi_finish as *const () as usize;
        self.call_runtime(
            fr,
            &name,
            finish,
            &[fr.ctx.into(), index.into(), err.into(), future_slot.into()],
        )?;
        let b = &self.cg.b;
        b.build_unconditional_branch(done).map_err(e(&name))?;
        b.position_at_end(done);
        Ok(())
    }

    /// Calls the runtime helper at `addr` (an `extern "C" fn(...) -> i32`
    /// taking these pointer and i64 arguments) and checks its status.
    fn call_runtime(
        &self,
        fr: &Frame<'a, 'ctx>,
        name: &str,
        addr: usize,
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> R<()> {
        let cg = &self.cg;
        let rc = cg
            .call_addr(addr, cg.i32().fn_type(&self.param_types(args), false), args)
            .map_err(e(name))?
            .ok_or_else(|| CompileError::Internal(format!("{name}: runtime call returned void")))?
            .into_int_value();
        self.check(fr, rc)
    }

    fn check(&self, fr: &Frame<'a, 'ctx>, rc: IntValue<'ctx>) -> R<()> {
        let cg = &self.cg;
        let f = cg.current_fn().map_err(e("check"))?;
        let ok = cg.ctx.append_basic_block(f, "ok");
        let c =
            cg.b.build_int_compare(IntPredicate::NE, rc, cg.i32().const_zero(), "")
                .map_err(e("check"))?;
        cg.b.build_conditional_branch(c, fr.fail, ok)
            .map_err(e("check"))?;
        cg.b.position_at_end(ok);
        Ok(())
    }

    /// Define the function of sequential computation `cid`.
    pub fn define(&mut self, cid: CompId) -> R<()> {
        let f = self.fns[&cid];
        let comp = self.module.comp(cid);
        let a = &self.assignments[&cid];
        let cg = &self.cg;
        let entry = cg.ctx.append_basic_block(f, "entry");
        let fail = cg.ctx.append_basic_block(f, "fail");
        cg.b.position_at_end(fail);
        cg.b.build_return(Some(&cg.i32().const_int(1, false)))
            .map_err(e(&comp.name))?;
        cg.b.position_at_end(entry);
        let pv = |i: u32| -> R<PointerValue<'ctx>> { Ok(param(f, i)?.into_pointer_value()) };
        let fr = Frame {
            cid,
            comp,
            a,
            ctx: pv(0)?,
            params: pv(1)?,
            outs: pv(2)?,
            arena: pv(3)?,
            fail,
        };
        let profile = self.profiled.is_some() && cid == self.module.entry;
        for step in &a.steps {
            let members = step.members();
            if profile && members.iter().any(|&id| generates_code(comp, id)) {
                let slot = self.profiled.as_ref().map_or(0, |v| v.len());
                self.profile_mark(&fr, slot as u64)?;
                if let Some(v) = self.profiled.as_mut() {
                    v.push(members.to_vec());
                }
            }
            match step {
                Step::One(id) => self.emit_inst(&fr, *id)?,
                Step::Concurrent(ids) => self.emit_kernel_group(&fr, ids)?,
            }
        }
        if profile {
            // Ends the last instruction's interval.
            self.profile_mark(&fr, u64::MAX)?;
        }
        // Root leaves not computed in place are copied to the outputs.
        let rshapes = comp.root_inst().shape.leaves();
        for (k, loc) in a.root_copies.clone() {
            let src = self.ptr_of(&fr, &loc)?;
            let dst = self.load_ptr(fr.outs, k, "root")?;
            let size = rshapes
                .get(k)
                .and_then(|(_, s)| s.as_array())
                .map(|s| s.byte_size())
                .unwrap_or(0);
            self.memcpy(dst, src, size)?;
        }
        self.cg
            .b
            .build_return(Some(&self.cg.i32().const_zero()))
            .map_err(e(&comp.name))?;
        Ok(())
    }

    /// `hlox_rt_profile(ctx, slot)`: the time since the previous mark goes
    /// to the previous slot's instruction (`u64::MAX`: none follows).
    fn profile_mark(&self, fr: &Frame<'a, 'ctx>, slot: u64) -> R<()> {
        let cg = &self.cg;
        let args = [fr.ctx.into(), cg.i64().const_int(slot, false).into()];
        cg.call_addr(
            crate::runtime::hlox_rt_profile as *const () as usize,
            cg.ctx.void_type().fn_type(&self.param_types(&args), false),
            &args,
        )
        .map_err(e("profile"))?;
        Ok(())
    }

    fn emit_inst(&mut self, fr: &Frame<'a, 'ctx>, id: InstId) -> R<()> {
        let module = self.module;
        let (comp, a) = (fr.comp, fr.a);
        let inst = comp.inst(id);
        let name = inst.name.as_str();
        if !generates_code(comp, id) {
            return Ok(());
        }
        let at = InstAt {
            id,
            inst,
            out: self.leaves_of(fr, id)?,
        };
        let out_leaves = &at.out;
        // A matrix moved into the other layout (the relayout copies in
        // front of LAPACK targets): the runtime's blocked transposition.
        if let Some((rows, cols, bytes)) = transpose_2d_plan(comp, inst) {
            let src = self.leaf_ptrs(fr, &inst.operands)?;
            let (Some(&src), Some(&dst)) = (src.first(), ptrs(out_leaves).first()) else {
                return Err(CompileError::Internal(format!("{name}: no buffers")));
            };
            let i = |v: usize| self.cg.i64c(v as i64).into();
            return self.call_runtime(
                fr,
                name,
                runtime::hlox_rt_transpose as *const () as usize,
                &[src.into(), dst.into(), i(rows), i(cols), i(bytes)],
            );
        }
        match &inst.op {
            Op::DynamicUpdateSlice if a.in_place.contains(&id) => self.emit_dus_in_place(fr, &at),
            // Out of place with the operand's layout: a copy of the operand,
            // then the window written in place (not a loop over every
            // element that asks whether it is in the window: 1.1 against
            // 0.3 us for an s32[512] with one element updated, the pivot
            // swaps of `jnp.linalg.solve`).
            Op::DynamicUpdateSlice
                if inst
                    .operands
                    .first()
                    .is_some_and(|&o| comp.inst(o).shape == inst.shape) =>
            {
                let src = self.leaves_of(fr, inst.operands[0])?;
                let size = inst.shape.as_array().map(|s| s.byte_size()).unwrap_or(0);
                self.memcpy(out_leaves[0].0, src[0].0, size)?;
                self.emit_dus_in_place(fr, &at)
            }
            Op::BitcastConvert if !is_elemental(module, comp, id) => {
                let src = self.leaves_of(fr, inst.operands[0])?;
                let size = inst.shape.as_array().map(|s| s.byte_size()).unwrap_or(0);
                self.memcpy(out_leaves[0].0, src[0].0, size)
            }
            Op::Fusion { .. } => {
                let fused = inst.called[0];
                if fusion_is_elemental(module, fused) {
                    let fc = module.comp(fused);
                    let mut sources = Vec::new();
                    for (k, &o) in inst.operands.iter().enumerate() {
                        let p = *fc.params.get(k).ok_or_else(|| CompileError::Unsupported {
                            inst: name.into(),
                            message: format!("fused computation has no parameter {k}"),
                        })?;
                        sources.push((p, self.leaves_of(fr, o)?));
                    }
                    self.emit_root_loops(
                        &Gen {
                            comp: fc,
                            sources: &sources,
                            name,
                        },
                        fc.root,
                        out_leaves,
                    )
                } else {
                    self.emit_call(fr, &at, fused)
                }
            }
            _ if is_elemental(module, comp, id) => {
                let sources = self.sources_of(fr, &inst.operands)?;
                self.emit_root_loops(
                    &Gen {
                        comp,
                        sources: &sources,
                        name,
                    },
                    id,
                    out_leaves,
                )
            }
            Op::Call => {
                let callee = inst.called[0];
                self.emit_call(fr, &at, callee)
            }
            Op::While => self.emit_while(fr, &at),
            Op::Conditional => self.emit_conditional(fr, &at),
            Op::CustomCall(_) => self.emit_custom_call(fr, &at),
            // Run by a kernel of hlox-cpu-runtime (`is_runtime_kernel`):
            // index maps, sorting, linear algebra, windows, random bits.
            #[rustfmt::skip]
            Op::Gather { .. } | Op::Scatter { .. }
            | Op::Sort { .. } | Op::TopK { .. }
            | Op::Dot { .. } | Op::Convolution(_)
            | Op::ReduceWindow { .. } | Op::SelectAndScatter { .. }
            | Op::RngBitGenerator { .. } | Op::Fft { .. } => self.emit_kernel(fr, &at),
            Op::Map { .. } | Op::Reduce { .. } => Err(CompileError::Unsupported {
                inst: name.into(),
                message: format!(
                    "the {} computation must be scalar element-wise code",
                    inst.op.name()
                ),
            }),
            // Not supported by the Host backend: collectives run on one
            // device only (hlox has no multi-device Host runtime).
            #[rustfmt::skip]
            Op::AllReduce(_) | Op::AllGather { .. } | Op::ReduceScatter { .. } | Op::AllToAll { .. }
            | Op::CollectivePermute { .. } | Op::CollectiveBroadcast(_) | Op::ReplicaId
            | Op::PartitionId => Err(CompileError::Unsupported {
                inst: name.into(),
                message: format!("{} is not supported by the Host backend", inst.op.name()),
            }),
            // Handled above: no code, or generated element by element
            // (`is_elemental` accepts each of these unconditionally; a
            // non-elemental bitcast-convert is a byte copy). Data movement,
            // arithmetic, then the ops without code.
            #[rustfmt::skip]
            Op::Bitcast | Op::Broadcast { .. } | Op::Concatenate { .. } | Op::Copy
            | Op::DynamicSlice { .. } | Op::DynamicUpdateSlice | Op::Pad { .. } | Op::Reshape
            | Op::Reverse { .. } | Op::Slice { .. } | Op::Transpose { .. }
            | Op::BitcastConvert | Op::Clamp | Op::Compare { .. } | Op::Convert | Op::Iota { .. }
            | Op::ReducePrecision { .. } | Op::Select | Op::Unary(_) | Op::Binary(_)
            | Op::Constant { .. } | Op::GetTupleElement { .. } | Op::OptimizationBarrier
            | Op::Parameter { .. } | Op::Tuple
            | Op::AfterAll => Err(CompileError::Internal(format!(
                "instruction `{name}`: {} is element-wise code but was not generated as such",
                inst.op.name()
            ))),
        }
    }

    /// Loops writing every leaf of `root` (of `gen_comp`) into `outs`.
    fn emit_root_loops(
        &mut self,
        g: &Gen<'_, 'a, 'ctx>,
        root: InstId,
        outs: &Leaves<'ctx>,
    ) -> R<()> {
        let (gen_comp, sources) = (g.comp, g.sources);
        let arrays: Vec<(usize, ArrayShape)> = outs
            .iter()
            .enumerate()
            .filter_map(|(k, (_, s))| s.as_array().map(|a| (k, a.clone())))
            .collect();
        if arrays.is_empty() {
            return Ok(());
        }
        let work = reduce_work_factor(gen_comp, root, sources);
        if self.emit_column_reduce(g, root, outs)? {
            return Ok(());
        }
        if self.emit_split_reduce(g, root, outs, work)? {
            return Ok(());
        }
        let same = arrays.iter().all(|(_, s)| s.dims == arrays[0].1.dims);
        let groups: Vec<Vec<(usize, ArrayShape)>> = if same {
            vec![arrays]
        } else {
            arrays.into_iter().map(|x| vec![x]).collect()
        };
        let single = groups.len() == 1 && groups[0].len() == 1 && outs.len() == 1;
        for group in groups {
            let mut loop_shape = group[0].1.clone();
            let mut out_ptrs: Vec<(PointerValue<'ctx>, ArrayShape)> =
                group.iter().map(|(k, s)| (outs[*k].0, s.clone())).collect();
            let ks: Vec<usize> = group.iter().map(|(k, _)| *k).collect();
            let mut root = root;
            if single && work <= 1 {
                if let Some((inner, finer)) =
                    merging_reshape_root(gen_comp, root, sources, &loop_shape)
                {
                    root = inner;
                    out_ptrs[0].1 = finer.clone();
                    loop_shape = finer;
                }
            }
            let hoist = row_hoists(gen_comp, root, sources, &loop_shape);
            let shared = row_shared(gen_comp, root, sources, &loop_shape, &hoist);
            // Each element: the root's leaf values stored to the outputs.
            let mut store: Box<ElementBody<'_, 'a, 'ctx>> = Box::new(|cg, ctx, outs, idx| {
                let vals = ctx.gen(cg, root, idx)?;
                for ((p, s), k) in outs.iter().zip(&ks) {
                    let v = *vals.get(*k).ok_or_else(|| {
                        hlox_codegen::CodegenError::Other(format!("no value for leaf {k}"))
                    })?;
                    let ptr = cg.element_ptr(*p, s, idx)?;
                    cg.store_elem(s.ty, ptr, v)?;
                }
                Ok(())
            });
            if work <= 1
                && hoist.is_empty()
                && shared.is_empty()
                && reads_transposed(gen_comp, root, sources, &loop_shape)
            {
                self.emit_tiled_loop(g, &out_ptrs, &loop_shape, &mut *store)?;
                continue;
            }
            self.emit_loop(
                g,
                &out_ptrs,
                &loop_shape,
                work,
                &hoist,
                &shared,
                &mut *store,
            )?;
        }
        Ok(())
    }

    /// A reduction that keeps its operand's minor-most dimension (a column
    /// reduction: `sum(x, axis=0)`, bias gradients) with a simple reducer:
    /// rather than one strided pass over the operand per output element,
    /// the output range is set to the init value, then the reduced indices
    /// run in the outer loops and the output elements in the inner loop, so
    /// the operand is read once, contiguously, and the inner loop vectorizes.
    /// Each output element still combines its inputs in the order of the
    /// reduced indices. Threads split the output's outermost dimension.
    /// Returns false (and emits nothing) for other reductions.
    fn emit_column_reduce(
        &mut self,
        g: &Gen<'_, 'a, 'ctx>,
        root: InstId,
        outs: &Leaves<'ctx>,
    ) -> R<bool> {
        let (gen_comp, sources) = (g.comp, g.sources);
        let [(_, Shape::Array(out_shape))] = outs else {
            return Ok(false);
        };
        let inst = gen_comp.inst(root);
        let Op::Reduce { dimensions } = &inst.op else {
            return Ok(false);
        };
        if inst.operands.len() != 2 || sources.iter().any(|(s, _)| *s == root) {
            return Ok(false);
        }
        let (input, init) = (inst.operands[0], inst.operands[1]);
        let Some(in_shape) = gen_comp.inst(input).shape.as_array().cloned() else {
            return Ok(false);
        };
        let simple = inst
            .called
            .first()
            .and_then(|&c| hlox_codegen::elemental::simple_reducer(self.module, c));
        let minor_kept = in_shape
            .layout
            .minor_to_major
            .first()
            .is_some_and(|m| !dimensions.contains(m));
        if !matches!(simple, Some((_, ty)) if ty == in_shape.ty)
            || !minor_kept
            || dimensions.is_empty()
            || out_shape.rank() == 0
            || in_shape.element_count() == 0
        {
            return Ok(false);
        }
        let ty = out_shape.ty;
        // Reduced dimensions, most major first.
        let red: Vec<usize> = in_shape
            .layout
            .major_to_minor()
            .filter(|&d| dimensions.contains(&(d as i64)))
            .collect();
        let kept: Vec<usize> = (0..in_shape.rank())
            .filter(|d| !dimensions.contains(&(*d as i64)))
            .collect();
        if self.emit_column_reduce_split_rows(g, root, outs[0].0, out_shape)? {
            self.column_reductions += 1;
            self.column_reductions_split_rows += 1;
            return Ok(true);
        }
        let n = outer_extent(out_shape);
        let out_arrays = [(outs[0].0, out_shape.clone())];
        self.emit_outlined(
            g,
            &out_arrays,
            n,
            in_shape.element_count(),
            &mut |cg, ctx, louts, start, end| {
                let (optr, oshape) = &louts[0];
                let init_v = ctx.one(cg, init, &[])?;
                hlox_codegen::loops::shape_loop(cg, oshape, Some((start, end)), &mut |oi| {
                    let p = cg.element_ptr(*optr, oshape, oi)?;
                    cg.store_elem(ty, p, init_v)
                })?;
                let mut in_idx = vec![cg.i64c(0); in_shape.rank()];
                column_loops(cg, &in_shape, &red, &mut in_idx, &mut |cg, in_idx| {
                    hlox_codegen::loops::shape_loop(cg, oshape, Some((start, end)), &mut |oi| {
                        let mut idx = in_idx.to_vec();
                        for (k, &d) in kept.iter().enumerate() {
                            idx[d] = oi[k];
                        }
                        let x = ctx.one(cg, input, &idx)?;
                        let p = cg.element_ptr(*optr, oshape, oi)?;
                        let a = cg.load_elem(ty, p)?;
                        let r = ctx.combine_reduced_in_order(cg, root, a, x)?;
                        cg.store_elem(ty, p, r)
                    })
                })
            },
        )?;
        self.column_reductions += 1;
        Ok(true)
    }

    /// A large column reduction (one reduced dimension, not the minor one)
    /// with a small result, split across threads by rows: part `c` reduces
    /// rows `[c*per, (c+1)*per)` into its own partial result (part 0 starts
    /// from the init value, the others from their first row), reading the
    /// operand contiguously; the partials are then combined in order. Each
    /// thread streams whole rows instead of a slice of every row, which on
    /// a row of 4 KiB or more is a new page per row. Sums are reassociated
    /// (partials of rows), as XLA's are. Returns false (and emits nothing)
    /// when the reduction is not such a one.
    fn emit_column_reduce_split_rows(
        &mut self,
        g: &Gen<'_, 'a, 'ctx>,
        root: InstId,
        out_ptr: PointerValue<'ctx>,
        out_shape: &ArrayShape,
    ) -> R<bool> {
        let (gen_comp, name) = (g.comp, g.name);
        let inst = gen_comp.inst(root);
        let Op::Reduce { dimensions } = &inst.op else {
            return Ok(false);
        };
        let (input, init) = (inst.operands[0], inst.operands[1]);
        let Some(in_shape) = gen_comp.inst(input).shape.as_array().cloned() else {
            return Ok(false);
        };
        let [rd] = dimensions[..] else {
            return Ok(false);
        };
        let rd = rd as usize;
        let extent = in_shape.dims[rd];
        let out_n = out_shape.element_count();
        let ty = out_shape.ty;
        // Partials live on the stack of the calling function.
        const SCRATCH_LIMIT: usize = 128 << 10;
        // Worth a split (two barriers and a combine) from 4x the parallel
        // threshold: 256 Ki elements by default.
        if self.threads < 2
            || in_shape.element_count() < self.par_threshold.saturating_mul(4)
            || extent < 4
            || out_n == 0
            || out_n * ty.byte_size() * 2 > SCRATCH_LIMIT
        {
            return Ok(false);
        }
        let max_parts = (SCRATCH_LIMIT / (out_n * ty.byte_size())) as i64;
        let parts = (self.threads as i64 * 2).min(extent / 2).min(max_parts);
        if parts < 2 {
            return Ok(false);
        }
        let per = (extent + parts - 1) / parts;
        let parts = (extent + per - 1) / per;
        let kept: Vec<usize> = (0..in_shape.rank()).filter(|&d| d != rd).collect();
        let cg = &self.cg;
        let words = (parts as usize * out_n * ty.byte_size()).div_ceil(8) as u32;
        let scratch = cg
            .entry_alloca(cg.i64().array_type(words).into(), "partials")
            .map_err(e(name))?;
        let scratch_shape = ArrayShape::new(ty, vec![parts * out_n as i64]);
        let oshape = out_shape.clone();
        let in_rank = in_shape.rank();
        self.emit_outlined(
            g,
            &[(scratch, scratch_shape.clone())],
            parts,
            in_shape.element_count(),
            &mut |cg, ctx, louts, start, end| {
                let init_v = ctx.one(cg, init, &[])?;
                hlox_codegen::loops::for_range(cg, start, end, "part", &mut |c| {
                    let b = cg.b;
                    let base_at = b.build_int_mul(c, cg.i64c(out_n as i64), "")?;
                    let base = cg.element_ptr(louts[0].0, &louts[0].1, &[base_at])?;
                    let hlox_codegen::elemental::Split {
                        start: lo,
                        end: hi,
                        first,
                        ..
                    } = hlox_codegen::elemental::Split::part(cg, c, per, extent)?;
                    let input_at = |cg: &Cg<'_, 'ctx>,
                                    ctx: &mut ElementalCtx<'a, 'ctx>,
                                    row: IntValue<'ctx>,
                                    oi: &[IntValue<'ctx>]| {
                        let mut idx = vec![row; in_rank];
                        for (k, &d) in kept.iter().enumerate() {
                            idx[d] = oi[k];
                        }
                        ctx.one(cg, input, &idx)
                    };
                    // The part's first row.
                    hlox_codegen::loops::shape_loop(cg, &oshape, None, &mut |oi| {
                        let x = input_at(cg, ctx, lo, oi)?;
                        let with_init = ctx.combine_reduced_in_order(cg, root, init_v, x)?;
                        let v = cg.b.build_select(first, with_init, x, "")?;
                        let p = cg.element_ptr(base, &oshape, oi)?;
                        cg.store_elem(ty, p, v)
                    })?;
                    // Its other rows, ROWS at a time (the partial is loaded
                    // and stored once per group; the combine order is the
                    // sequential one), then the rest one at a time.
                    const ROWS: i64 = 4;
                    // Rows `row0 .. row0 + n` into the partial, in order.
                    let accumulate =
                        |ctx: &mut ElementalCtx<'a, 'ctx>, row0: IntValue<'ctx>, n: i64| {
                            hlox_codegen::loops::shape_loop(cg, &oshape, None, &mut |oi| {
                                let p = cg.element_ptr(base, &oshape, oi)?;
                                let mut a = cg.load_elem(ty, p)?;
                                for k in 0..n {
                                    let row = cg.b.build_int_add(row0, cg.i64c(k), "")?;
                                    let x = input_at(cg, ctx, row, oi)?;
                                    a = ctx.combine_reduced_in_order(cg, root, a, x)?;
                                }
                                cg.store_elem(ty, p, a)
                            })
                        };
                    let next = cg.b.build_int_add(lo, cg.i64c(1), "")?;
                    let left = cg.b.build_int_sub(hi, next, "")?;
                    let groups = cg.b.build_int_signed_div(left, cg.i64c(ROWS), "")?;
                    hlox_codegen::loops::for_range(cg, cg.i64c(0), groups, "rows", &mut |g| {
                        let off = cg.b.build_int_mul(g, cg.i64c(ROWS), "")?;
                        let row0 = cg.b.build_int_add(next, off, "")?;
                        accumulate(ctx, row0, ROWS)
                    })?;
                    let done = cg.b.build_int_mul(groups, cg.i64c(ROWS), "")?;
                    let rest = cg.b.build_int_add(next, done, "")?;
                    hlox_codegen::loops::for_range(cg, rest, hi, "row", &mut |row| {
                        accumulate(ctx, row, 1)
                    })
                })
            },
        )?;
        // The partials, combined in order.
        let cg = &self.cg;
        let ctx = ElementalCtx::new(self.module, gen_comp);
        hlox_codegen::loops::shape_loop(cg, out_shape, None, &mut |oi| {
            let at = |k: i64| -> hlox_codegen::Result<PointerValue<'ctx>> {
                let base = cg.element_ptr(scratch, &scratch_shape, &[cg.i64c(k * out_n as i64)])?;
                cg.element_ptr(base, out_shape, oi)
            };
            let p = cg.element_ptr(out_ptr, out_shape, oi)?;
            combine_partials(cg, &ctx, root, ty, parts, at, p)
        })
        .map_err(e(name))?;
        Ok(true)
    }

    /// A large reduction to one element split across threads: each part
    /// reduces a range of the outermost reduced loop into a stack slot (in
    /// parallel), then the parts are combined in order. Returns false (and
    /// emits nothing) when `root` is not such a reduction.
    fn emit_split_reduce(
        &mut self,
        g: &Gen<'_, 'a, 'ctx>,
        root: InstId,
        outs: &Leaves<'ctx>,
        work: usize,
    ) -> R<bool> {
        let (gen_comp, sources, name) = (g.comp, g.sources, g.name);
        let [(out_ptr, Shape::Array(out_shape))] = outs else {
            return Ok(false);
        };
        if out_shape.element_count() != 1
            || self.threads < 2
            || work < self.par_threshold
            || sources.iter().any(|(s, _)| *s == root)
        {
            return Ok(false);
        }
        let probe = ElementalCtx::new(self.module, gen_comp);
        let Some(extent) = probe.reduce_split_extent(root) else {
            return Ok(false);
        };
        let parts = (self.threads as i64 * 2).min(extent);
        if parts < 2 {
            return Ok(false);
        }
        let per = (extent + parts - 1) / parts;
        let ty = out_shape.ty;
        let cg = &self.cg;
        let slot_ty = cg
            .i64()
            .array_type((parts as usize * ty.byte_size()).div_ceil(8) as u32);
        let scratch = cg.entry_alloca(slot_ty.into(), "parts").map_err(e(name))?;
        let parts_shape = ArrayShape::new(ty, vec![parts]);
        let rank = out_shape.rank();
        self.emit_loop(
            g,
            &[(scratch, parts_shape.clone())],
            &parts_shape,
            work / parts as usize,
            &[],
            &[],
            &mut |cg, ctx, louts, idx| {
                let zeros = vec![cg.i64c(0); rank];
                let split = hlox_codegen::elemental::Split::part(cg, idx[0], per, extent)?;
                let v = ctx.gen_reduce_part(cg, root, &zeros, Some(split), None)?;
                let p = cg.element_ptr(louts[0].0, &louts[0].1, idx)?;
                cg.store_elem(ty, p, v)
            },
        )?;
        let cg = &self.cg;
        let ctx = ElementalCtx::new(self.module, gen_comp);
        let at = |k: i64| cg.element_ptr(scratch, &parts_shape, &[cg.i64c(k)]);
        combine_partials(cg, &ctx, root, ty, parts, at, *out_ptr).map_err(e(name))?;
        Ok(true)
    }

    /// Outline a loop over `loop_shape` into its own function and call it
    /// (in parallel when large). Each element costs about `work` elements
    /// (the reduced size of reductions), for the parallel decision; the
    /// `hoist`ed values ([`row_hoists`]) are computed once per row, and each
    /// `shared` value ([`row_shared`]) once per row into a scratch row just
    /// before the hoisted value that reduces it.
    #[allow(clippy::too_many_arguments)]
    fn emit_loop(
        &mut self,
        g: &Gen<'_, 'a, 'ctx>,
        outs: &[(PointerValue<'ctx>, ArrayShape)],
        loop_shape: &ArrayShape,
        work: usize,
        hoist: &[(InstId, Vec<i64>)],
        shared: &[(usize, InstId)],
        body: &mut ElementBody<'_, 'a, 'ctx>,
    ) -> R<()> {
        let (gen_comp, name) = (g.comp, g.name);
        let mut in_body = 0usize;
        let n = outer_extent(loop_shape);
        let total = loop_shape.element_count().saturating_mul(work.max(1));
        self.emit_outlined(g, outs, n, total, &mut |cg, ctx, louts, start, end| {
            // One scratch row per shared value, in the loop function's
            // entry (so per thread and per call, not per row).
            let minor = loop_shape
                .layout
                .minor_to_major
                .first()
                .copied()
                .unwrap_or(0) as usize;
            let mut scratch = Vec::with_capacity(shared.len());
            for &(k, e) in shared {
                let ty = gen_comp.inst(e).shape.element_type().ok_or_else(|| {
                    hlox_codegen::CodegenError::Other(format!(
                        "row scratch for `{}`: not an array",
                        gen_comp.inst(e).name
                    ))
                })?;
                let len = loop_shape.dims[minor];
                let row_ty =
                    inkwell::types::BasicType::array_type(&cg.storage_type(ty), len as u32);
                let p =
                    cg.entry_alloca(row_ty.into(), &format!("row.{}", gen_comp.inst(e).name))?;
                // The row's shape: every other dimension 1, so the
                // loop's index addresses the row by its minor index.
                let mut row = loop_shape.clone();
                row.ty = ty;
                for (d, n) in row.dims.iter_mut().enumerate() {
                    if d != minor {
                        *n = 1;
                    }
                }
                scratch.push((k, e, p, row));
            }
            shape_loop_hoisting(
                cg,
                loop_shape,
                Some((start, end)),
                &mut |at, idx| match at {
                    LoopPoint::Body => {
                        let before = ctx.reduces_generated;
                        let r = body(cg, ctx, louts, idx);
                        in_body += ctx.reduces_generated - before;
                        r
                    }
                    LoopPoint::BeforeInner => {
                        for (k, (x, dims)) in hoist.iter().enumerate() {
                            for (_, e, p, row) in scratch.iter().filter(|s| s.0 == k) {
                                let mut ei = idx.to_vec();
                                ctx.scoped(|ctx| {
                                    hlox_codegen::loops::for_range(
                                        cg,
                                        cg.i64c(0),
                                        cg.i64c(loop_shape.dims[minor]),
                                        "row",
                                        &mut |c| {
                                            ei[minor] = c;
                                            let v = ctx.one(cg, *e, &ei)?;
                                            let q = cg.element_ptr(*p, row, &ei)?;
                                            cg.store_elem(row.ty, q, v)
                                        },
                                    )
                                })?;
                                ctx.sources.insert(
                                    *e,
                                    vec![Leaf::Buffer {
                                        ptr: *p,
                                        shape: row.clone(),
                                    }],
                                );
                            }
                            let xi: Vec<IntValue<'ctx>> =
                                dims.iter().map(|&d| idx[d as usize]).collect();
                            ctx.gen(cg, *x, &xi)?;
                        }
                        Ok(())
                    }
                },
            )
        })?;
        if !hoist.is_empty() {
            self.row_hoisted += hoist.len();
            self.row_shared += shared.len();
            self.per_element_reductions += in_body;
            if in_body > 0 {
                tracing::warn!(
                    fusion = name,
                    reductions = in_body,
                    "row fusion: reductions recomputed for every element (correct but slow)"
                );
            }
        }
        Ok(())
    }

    /// Outline a loop over the rank-2 `loop_shape` that visits it in
    /// [`TRANSPOSE_TILE`]-square tiles (rows of tiles split over the thread
    /// pool as [`Self::emit_loop`] splits rows), for loops that
    /// [`reads_transposed`]: each tile's transposed reads then touch
    /// `TRANSPOSE_TILE` cache lines, each used whole, instead of one line
    /// per element.
    fn emit_tiled_loop(
        &mut self,
        g: &Gen<'_, 'a, 'ctx>,
        outs: &[(PointerValue<'ctx>, ArrayShape)],
        loop_shape: &ArrayShape,
        body: &mut ElementBody<'_, 'a, 'ctx>,
    ) -> R<()> {
        let order = tiled_dims(loop_shape);
        let (&outer, &inner) = match order.as_slice() {
            [o, i] => (o, i),
            _ => {
                return Err(CompileError::Internal(format!(
                    "a tiled loop over {:?} (two dimensions longer than 1 expected)",
                    loop_shape.dims
                )))
            }
        };
        let rank = loop_shape.rank();
        let n = loop_shape.dims[outer];
        let n_inner = loop_shape.dims[inner];
        let total = loop_shape.element_count();
        self.emit_outlined(g, outs, n, total, &mut |cg, ctx, louts, start, end| {
            let b = cg.b;
            let min =
                |x: IntValue<'ctx>, y: IntValue<'ctx>| -> hlox_codegen::Result<IntValue<'ctx>> {
                    let lt = b.build_int_compare(IntPredicate::SLT, x, y, "")?;
                    Ok(b.build_select(lt, x, y, "")?.into_int_value())
                };
            let t = cg.i64c(TRANSPOSE_TILE);
            hlox_codegen::loops::for_range_step(cg, start, end, TRANSPOSE_TILE, "to", &mut |o0| {
                let o1 = min(b.build_int_add(o0, t, "")?, end)?;
                let end_i = cg.i64c(n_inner);
                hlox_codegen::loops::for_range_step(
                    cg,
                    cg.i64c(0),
                    end_i,
                    TRANSPOSE_TILE,
                    "ti",
                    &mut |i0| {
                        let i1 = min(b.build_int_add(i0, t, "")?, end_i)?;
                        hlox_codegen::loops::for_range_plain(
                            cg,
                            o0,
                            o1,
                            &format!("d{outer}"),
                            &mut |o| {
                                hlox_codegen::loops::for_range_plain(
                                    cg,
                                    i0,
                                    i1,
                                    &format!("d{inner}"),
                                    &mut |i| {
                                        let mut idx = vec![cg.i64c(0); rank];
                                        idx[outer] = o;
                                        idx[inner] = i;
                                        body(cg, ctx, louts, &idx)
                                    },
                                )
                            },
                        )
                    },
                )
            })
        })
    }

    /// Outline a loop into its own function `loop.N.name(table, start, end)`
    /// whose body `range_body` emits the iterations `start..end` of an
    /// outermost loop of `n` iterations, and call it: across the thread
    /// pool when `total_work` (elements touched) reaches the parallel
    /// threshold, else once over `0..n`.
    #[allow(clippy::type_complexity, clippy::too_many_arguments)]
    fn emit_outlined(
        &mut self,
        g: &Gen<'_, 'a, 'ctx>,
        outs: &[(PointerValue<'ctx>, ArrayShape)],
        n: i64,
        total_work: usize,
        range_body: &mut dyn FnMut(
            &Cg<'_, 'ctx>,
            &mut ElementalCtx<'a, 'ctx>,
            &[(PointerValue<'ctx>, ArrayShape)],
            IntValue<'ctx>,
            IntValue<'ctx>,
        ) -> hlox_codegen::Result<()>,
    ) -> R<()> {
        let (gen_comp, sources, name) = (g.comp, g.sources, g.name);
        let cg = &self.cg;
        let b = cg.b;
        let mut table_ptrs: Vec<PointerValue<'ctx>> = outs.iter().map(|(p, _)| *p).collect();
        for (_, ls) in sources {
            table_ptrs.extend(ptrs(ls));
        }
        let table = self.table(&table_ptrs)?;
        let caller_bb = b
            .get_insert_block()
            .ok_or_else(|| CompileError::Internal("no block".into()))?;
        // The loop function.
        self.loops += 1;
        let fname = format!("loop.{}.{}", self.loops, name);
        let lf = self.begin_void_fn(&fname, &[cg.ptr().into(), cg.i64().into(), cg.i64().into()]);
        // Internal and never inlined: each loop is compiled once, as its
        // own function (externally visible loops inlined into their
        // callers were compiled twice, and made the cold compile twice as
        // slow: docs/performance.md, "Fifth session"). Nothing looks a loop
        // up by name; a parallel loop's address goes to the runtime.
        lf.set_linkage(inkwell::module::Linkage::Internal);
        let noinline = inkwell::attributes::Attribute::get_named_enum_kind_id("noinline");
        lf.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            self.cg.ctx.create_enum_attribute(noinline, 0),
        );
        let cg = &self.cg;
        let parallel = total_work >= self.par_threshold && n >= 2 && self.threads > 1;
        let tp = param(lf, 0)?.into_pointer_value();
        // A serial loop runs over all of [0, n): its bounds are constants
        // (its trip count known to LLVM: a small loop is unrolled rather
        // than given vector, epilogue and remainder loops), and the loop
        // stands on its own when code generation splits the module.
        let (start, end) = if parallel {
            (
                param(lf, 1)?.into_int_value(),
                param(lf, 2)?.into_int_value(),
            )
        } else {
            (cg.i64c(0), cg.i64c(n))
        };
        let mut loaded = Vec::new();
        for i in 0..table_ptrs.len() {
            loaded.push(self.load_ptr(tp, i, name)?);
        }
        let mut ctx = ElementalCtx::new(self.module, gen_comp);
        let mut k = outs.len();
        for (id, ls) in sources {
            let mut leaves = Vec::new();
            for (_, s) in ls {
                leaves.push(match s {
                    Shape::Array(arr) => Leaf::Buffer {
                        ptr: loaded[k],
                        shape: arr.clone(),
                    },
                    _ => Leaf::Token,
                });
                k += 1;
            }
            ctx.sources.insert(*id, leaves);
        }
        let louts: Vec<(PointerValue<'ctx>, ArrayShape)> = outs
            .iter()
            .enumerate()
            .map(|(i, (_, s))| (loaded[i], s.clone()))
            .collect();
        range_body(cg, &mut ctx, &louts, start, end).map_err(|err| match err {
            hlox_codegen::CodegenError::Unsupported { inst, message } => {
                CompileError::Unsupported { inst, message }
            }
            other => CompileError::Codegen {
                inst: name.into(),
                message: other.to_string(),
            },
        })?;
        b.build_return(None).map_err(e(name))?;
        // Back in the caller.
        b.position_at_end(caller_bb);
        if parallel {
            let chunks = (self.threads as i64 * 4).min(n);
            let pf = cg.ctx.void_type().fn_type(
                &[
                    cg.ptr().into(),
                    cg.ptr().into(),
                    cg.i64().into(),
                    cg.i64().into(),
                ],
                false,
            );
            cg.call_addr(
                runtime::hlox_rt_parallel_for as *const () as usize,
                pf,
                &[
                    lf.as_global_value().as_pointer_value().into(),
                    table.into(),
                    cg.i64c(n).into(),
                    cg.i64c(chunks).into(),
                ],
            )
            .map_err(e(name))?;
        } else {
            b.build_call(
                lf,
                &[table.into(), cg.i64c(0).into(), cg.i64c(n).into()],
                "",
            )
            .map_err(e(name))?;
        }
        Ok(())
    }

    /// dynamic-update-slice writing only the update window of the operand's buffer.
    fn emit_dus_in_place(&mut self, fr: &Frame<'a, 'ctx>, at: &InstAt<'a, 'ctx>) -> R<()> {
        let (comp, inst) = (fr.comp, at.inst);
        let out = &at.out;
        let upd_id = inst.operands[1];
        let upd = comp.inst(upd_id).shape.as_array().cloned().ok_or_else(|| {
            CompileError::Unsupported {
                inst: inst.name.clone(),
                message: "update is not an array".into(),
            }
        })?;
        let opnd = inst
            .shape
            .as_array()
            .cloned()
            .unwrap_or_else(|| upd.clone());
        let sources = self.sources_of(fr, &inst.operands[1..])?;
        let starts: Vec<InstId> = inst.operands[2..].to_vec();
        let outs = vec![(out[0].0, opnd.clone())];
        let g = Gen {
            comp,
            sources: &sources,
            name: &inst.name,
        };
        self.emit_loop(&g, &outs, &upd, 1, &[], &[], &mut |cg, ctx, outs, idx| {
            let b = cg.b;
            let mut oi = Vec::new();
            for (d, &s) in starts.iter().enumerate() {
                let sty = comp
                    .inst(s)
                    .shape
                    .element_type()
                    .unwrap_or(ElementType::S32);
                let v = ctx.one(cg, s, &[])?.into_int_value();
                let v = if v.get_type().get_bit_width() == 64 {
                    v
                } else if sty.is_signed_int() {
                    b.build_int_s_extend(v, cg.i64(), "")?
                } else {
                    b.build_int_z_extend(v, cg.i64(), "")?
                };
                let hi = cg.i64c((opnd.dims[d] - upd.dims[d]).max(0));
                let lt0 = b.build_int_compare(IntPredicate::SLT, v, cg.i64c(0), "")?;
                let v = b.build_select(lt0, cg.i64c(0), v, "")?.into_int_value();
                let gt = b.build_int_compare(IntPredicate::SGT, v, hi, "")?;
                let v = b.build_select(gt, hi, v, "")?.into_int_value();
                oi.push(b.build_int_add(v, idx[d], "")?);
            }
            let val = ctx.one(cg, upd_id, idx)?;
            let p = cg.element_ptr(outs[0].0, &outs[0].1, &oi)?;
            cg.store_elem(outs[0].1.ty, p, val)
        })
    }

    fn call_comp(
        &self,
        fr: &Frame<'a, 'ctx>,
        callee: CompId,
        params: &[PointerValue<'ctx>],
        outs: &[PointerValue<'ctx>],
    ) -> R<()> {
        let f = *self.fns.get(&callee).ok_or_else(|| {
            CompileError::Internal(format!(
                "computation {} has no function",
                self.module.comp(callee).name
            ))
        })?;
        let pt = self.table(params)?;
        let ot = self.table(outs)?;
        let rc = self
            .cg
            .b
            .build_call(
                f,
                &[fr.ctx.into(), pt.into(), ot.into(), fr.arena.into()],
                "",
            )
            .map_err(e("call"))?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CompileError::Internal("call returned void".into()))?
            .into_int_value();
        self.check(fr, rc)
    }

    /// Calls `callee` with the instruction's operands and outputs.
    fn emit_call(&mut self, fr: &Frame<'a, 'ctx>, at: &InstAt<'a, 'ctx>, callee: CompId) -> R<()> {
        let params = self.leaf_ptrs(fr, &at.inst.operands)?;
        self.call_comp(fr, callee, &params, &ptrs(&at.out))
    }

    fn emit_while(&mut self, fr: &Frame<'a, 'ctx>, at: &InstAt<'a, 'ctx>) -> R<()> {
        let (a, id, inst) = (fr.a, at.id, at.inst);
        let out = &at.out;
        let (cond, body) = (inst.called[0], inst.called[1]);
        let init = self.leaf_ptrs(fr, &inst.operands[..1])?;
        self.copy_arrays(out, &init)?;
        let (scratch, pred) = a.while_scratch.get(&id).cloned().unwrap_or_default();
        let mut scratch_ptrs = Vec::new();
        let mut si = scratch.iter();
        for (p, s) in out {
            if s.is_array() {
                let t = *si
                    .next()
                    .ok_or_else(|| CompileError::Internal("while scratch".into()))?;
                scratch_ptrs.push(self.ptr_of(fr, &Loc::Temp(t))?);
            } else {
                scratch_ptrs.push(*p);
            }
        }
        let pred_ptr = self.ptr_of(fr, &Loc::Temp(pred))?;
        let state = ptrs(out);
        let cg = &self.cg;
        let f = cg.current_fn().map_err(e(&inst.name))?;
        let head = cg.ctx.append_basic_block(f, "while.head");
        let bodyb = cg.ctx.append_basic_block(f, "while.body");
        let exit = cg.ctx.append_basic_block(f, "while.exit");
        cg.b.build_unconditional_branch(head)
            .map_err(e(&inst.name))?;
        cg.b.position_at_end(head);
        self.call_comp(fr, cond, &state, &[pred_ptr])?;
        let cg = &self.cg;
        let pv =
            cg.b.build_load(cg.i8(), pred_ptr, "")
                .map_err(e(&inst.name))?
                .into_int_value();
        let c =
            cg.b.build_int_compare(IntPredicate::NE, pv, cg.i8().const_zero(), "")
                .map_err(e(&inst.name))?;
        cg.b.build_conditional_branch(c, bodyb, exit)
            .map_err(e(&inst.name))?;
        cg.b.position_at_end(bodyb);
        self.call_comp(fr, body, &state, &scratch_ptrs)?;
        self.copy_arrays(out, &scratch_ptrs)?;
        self.back_edge_stop_check(fr, head, &inst.name)?;
        self.cg.b.position_at_end(exit);
        Ok(())
    }

    /// A while loop's back-edge: go on to `head` unless the run was stopped
    /// (cancelled or past its timeout), which fails the run. One relaxed
    /// load of the run's stop flag, whose address is the first word of the
    /// run context (`runtime::RunCtx::stop`).
    fn back_edge_stop_check(
        &self,
        fr: &Frame<'a, 'ctx>,
        head: inkwell::basic_block::BasicBlock<'ctx>,
        name: &str,
    ) -> R<()> {
        let cg = &self.cg;
        let f = cg.current_fn().map_err(e(name))?;
        let stop = cg.ctx.append_basic_block(f, "while.stopped");
        let flag_ptr =
            cg.b.build_load(cg.ptr(), fr.ctx, "stop.flag")
                .map_err(e(name))?
                .into_pointer_value();
        let flag =
            cg.b.build_load(cg.i32(), flag_ptr, "stop")
                .map_err(e(name))?;
        if let Some(i) = flag.as_instruction_value() {
            i.set_atomic_ordering(inkwell::AtomicOrdering::Monotonic)
                .map_err(|m| CompileError::Internal(format!("{name}: stop flag load: {m}")))?;
            i.set_alignment(4)
                .map_err(|m| CompileError::Internal(format!("{name}: stop flag load: {m}")))?;
        }
        let go =
            cg.b.build_int_compare(
                IntPredicate::EQ,
                flag.into_int_value(),
                cg.i32().const_zero(),
                "",
            )
            .map_err(e(name))?;
        cg.b.build_conditional_branch(go, head, stop)
            .map_err(e(name))?;
        cg.b.position_at_end(stop);
        cg.b.build_unconditional_branch(fr.fail).map_err(e(name))?;
        Ok(())
    }

    fn emit_conditional(&mut self, fr: &Frame<'a, 'ctx>, at: &InstAt<'a, 'ctx>) -> R<()> {
        let (comp, inst) = (fr.comp, at.inst);
        let out = &at.out;
        let sel = inst.operands[0];
        let sel_ty = comp
            .inst(sel)
            .shape
            .element_type()
            .unwrap_or(ElementType::Pred);
        let sp = self.leaves_of(fr, sel)?[0].0;
        let n = inst.called.len();
        let cg = &self.cg;
        let name = inst.name.as_str();
        // Branch number: PRED true -> 0, false -> 1; S32 out of range -> last.
        let pred = sel_ty == ElementType::Pred;
        let v =
            cg.b.build_load(if pred { cg.i8() } else { cg.i32() }, sp, "")
                .map_err(e(name))?
                .into_int_value();
        let idx = if pred {
            let f =
                cg.b.build_int_compare(IntPredicate::EQ, v, cg.i8().const_zero(), "")
                    .map_err(e(name))?;
            cg.b.build_int_z_extend(f, cg.i32(), "").map_err(e(name))?
        } else {
            // Negative numbers are out of range too as unsigned ones.
            let bad =
                cg.b.build_int_compare(
                    IntPredicate::UGE,
                    v,
                    cg.i32().const_int(n as u64, false),
                    "",
                )
                .map_err(e(name))?;
            let last = cg.i32().const_int(n.saturating_sub(1) as u64, false);
            cg.b.build_select(bad, last, v, "")
                .map_err(e(name))?
                .into_int_value()
        };
        let f = cg.current_fn().map_err(e(name))?;
        let join = cg.ctx.append_basic_block(f, "cond.join");
        let blocks: Vec<_> = (0..n)
            .map(|k| cg.ctx.append_basic_block(f, &format!("branch{k}")))
            .collect();
        let cases: Vec<(IntValue, inkwell::basic_block::BasicBlock)> = blocks
            .iter()
            .enumerate()
            .map(|(k, bb)| (cg.i32().const_int(k as u64, false), *bb))
            .collect();
        cg.b.build_switch(idx, join, &cases).map_err(e(name))?;
        let outs = ptrs(out);
        for (k, bb) in blocks.iter().enumerate() {
            self.cg.b.position_at_end(*bb);
            let params = self.leaf_ptrs(fr, &inst.operands[k + 1..k + 2])?;
            self.call_comp(fr, inst.called[k], &params, &outs)?;
            self.cg
                .b
                .build_unconditional_branch(join)
                .map_err(e(name))?;
        }
        self.cg.b.position_at_end(join);
        Ok(())
    }

    /// XLA's host pointer layout: an array is its data pointer, a tuple a
    /// table of its elements' pointers (nested).
    fn nested(
        &self,
        shape: &Shape,
        leaves: &mut std::slice::Iter<PointerValue<'ctx>>,
    ) -> R<PointerValue<'ctx>> {
        match shape {
            Shape::Tuple(t) => {
                let mut ptrs = Vec::new();
                for s in t {
                    ptrs.push(self.nested(s, leaves)?);
                }
                self.table(&ptrs)
            }
            _ => leaves
                .next()
                .copied()
                .ok_or_else(|| CompileError::Internal("too few leaves".into())),
        }
    }

    fn emit_custom_call(&mut self, fr: &Frame<'a, 'ctx>, at: &InstAt<'a, 'ctx>) -> R<()> {
        let (comp, inst) = (fr.comp, at.inst);
        let out = &at.out;
        let name = inst.name.as_str();
        let Op::CustomCall(call) = &inst.op else {
            return Err(CompileError::Internal(format!(
                "instruction `{name}` is not a custom call"
            )));
        };
        let target = self
            .bound
            .get(&call.target)
            .ok_or_else(|| CompileError::Unsupported {
                inst: name.into(),
                message: format!("custom-call target \"{}\" is not bound", call.target),
            })?;
        let func = target
            .func
            .for_call(Platform::Host, call.api_version)
            .ok_or_else(|| CompileError::Unsupported {
                inst: name.into(),
                message: format!(
                    "custom-call target \"{}\": {} has no Host C calling convention",
                    call.target,
                    call.api_version.name()
                ),
            })?;
        if let Some(c) = &call.operand_layout_constraints {
            for (k, (s, &o)) in c.iter().zip(&inst.operands).enumerate() {
                if *s != comp.inst(o).shape {
                    return Err(CompileError::Unsupported {
                        inst: name.into(),
                        message: format!("internal: operand {k}'s layout differs from operand_layout_constraints (the boundary-layouts pass copies it to that layout before code generation)"),
                    });
                }
            }
        }
        let out_ptrs = ptrs(out);
        // Operand leaves, with aliased ones replaced by (a copy in) the output buffer.
        let mut operand_leaves: Vec<Vec<PointerValue>> = Vec::new();
        for &o in &inst.operands {
            operand_leaves.push(ptrs(&self.leaves_of(fr, o)?));
        }
        let rleaves = inst.shape.leaves();
        for al in &call.output_operand_aliasing {
            let ok = rleaves.iter().position(|(ix, _)| *ix == al.output_index);
            let on = al.operand as usize;
            let oshape = inst.operands.get(on).map(|&o| &comp.inst(o).shape);
            let ol = oshape.and_then(|s| {
                s.leaves()
                    .iter()
                    .position(|(ix, _)| *ix == al.operand_index)
            });
            let (Some(ok), Some(ol)) = (ok, ol) else {
                return Err(CompileError::Unsupported {
                    inst: name.into(),
                    message: "output_to_operand_aliasing names a missing index".into(),
                });
            };
            let size = rleaves[ok].1.as_array().map(|s| s.byte_size()).unwrap_or(0);
            self.memcpy(out_ptrs[ok], operand_leaves[on][ol], size)?;
            operand_leaves[on][ol] = out_ptrs[ok];
        }
        // A typed-FFI handler's call, prepared for these operand shapes.
        let ffi_call = |shapes: &[&Shape]| {
            hlox_ffi::xla_ffi::FfiCall::new(target, &call.opaque, shapes, &inst.shape).map_err(
                |message| CompileError::Unsupported {
                    inst: name.into(),
                    message: format!("custom-call target \"{}\": {message}", call.target),
                },
            )
        };
        if let Some(options) = &self.sandbox {
            // Sandboxed: the runtime calls the target on guarded copies of
            // the leaf buffers (operands, then results).
            let shapes: Vec<Shape> = inst
                .operands
                .iter()
                .map(|&o| comp.inst(o).shape.clone())
                .collect();
            let ffi = match func {
                hlox_ffi::TargetFn::Ffi(_) => {
                    let refs: Vec<&Shape> = shapes.iter().collect();
                    Some(std::sync::Arc::new(ffi_call(&refs)?))
                }
                _ => None,
            };
            let sandboxed = hlox_ffi::sandbox::SandboxedCall::new(
                target,
                func,
                name,
                call,
                &shapes,
                &inst.shape,
                ffi.clone(),
                options.clone(),
            );
            let counts = (sandboxed.operand_leaves(), sandboxed.result_leaves());
            let site = CallSite {
                inst: name.to_string(),
                target: call.target.clone(),
                at: (fr.cid, at.id),
                ffi,
                sandbox: Some(std::sync::Arc::new(sandboxed)),
            };
            return self.call_prepared_site(
                fr,
                "a sandboxed call",
                &operand_leaves.concat(),
                &out_ptrs,
                counts,
                site,
            );
        }
        if let hlox_ffi::TargetFn::Ffi(_) = func {
            // Typed FFI: one table of argument leaves, one of result leaves,
            // and a runtime call that builds the call frame.
            let shapes: Vec<&Shape> = inst.operands.iter().map(|&o| &comp.inst(o).shape).collect();
            // In its `Arc` before the recipe is taken: the frame points into it.
            let prepared = std::sync::Arc::new(ffi_call(&shapes)?);
            let counts = (prepared.arg_count(), prepared.ret_count());
            let direct = prepared.direct();
            let site = CallSite {
                inst: name.to_string(),
                target: call.target.clone(),
                at: (fr.cid, at.id),
                ffi: Some(prepared),
                sandbox: None,
            };
            if let Some(direct) = direct {
                return self.call_direct_ffi(
                    fr,
                    &operand_leaves.concat(),
                    &out_ptrs,
                    counts,
                    &direct,
                    site,
                );
            }
            return self.call_prepared_site(
                fr,
                "a typed-FFI call",
                &operand_leaves.concat(),
                &out_ptrs,
                counts,
                site,
            );
        }
        let mut ins = Vec::new();
        for (k, &o) in inst.operands.iter().enumerate() {
            let mut it = operand_leaves[k].iter();
            ins.push(self.nested(&comp.inst(o).shape, &mut it)?);
        }
        let ins_t = self.table(&ins)?;
        let mut it = out_ptrs.iter();
        let out_p = self.nested(&inst.shape, &mut it)?;
        let cg = &self.cg;
        // XlaCustomCallStatus: { u32 failed; char* message; usize len }, zeroed.
        let st_ty = cg
            .ctx
            .struct_type(&[cg.i32().into(), cg.ptr().into(), cg.i64().into()], false);
        let status = cg.entry_alloca(st_ty.into(), "status").map_err(e(name))?;
        cg.b.build_store(status, st_ty.const_zero())
            .map_err(e(name))?;
        let mut opaque = call.opaque.clone();
        opaque.push(0);
        let g = const_global(cg, &format!("opaque.{}.{}", comp.name, name), &opaque);
        let void = cg.ctx.void_type();
        let args: Vec<BasicMetadataValueEnum> = match call.api_version {
            CustomCallApiVersion::Original => vec![out_p.into(), ins_t.into()],
            CustomCallApiVersion::StatusReturning => {
                vec![out_p.into(), ins_t.into(), status.into()]
            }
            CustomCallApiVersion::StatusReturningUnified => vec![
                out_p.into(),
                ins_t.into(),
                g.into(),
                cg.i64c(call.opaque.len() as i64).into(),
                status.into(),
            ],
            CustomCallApiVersion::TypedFfi => {
                return Err(CompileError::Unsupported {
                    inst: name.into(),
                    message: format!(
                        "custom-call target \"{}\" is not a typed-FFI handler",
                        call.target
                    ),
                })
            }
        };
        let fty = void.fn_type(&self.param_types(&args), false);
        cg.call_addr(func.addr(), fty, &args).map_err(e(name))?;
        self.target_addrs
            .push((func.addr(), call.target.clone(), call.api_version));
        let site = self.call_sites.len();
        self.call_sites.push(CallSite {
            inst: name.to_string(),
            target: call.target.clone(),
            at: (fr.cid, at.id),
            ffi: None,
            sandbox: None,
        });
        let site = self.cg.i64c(site as i64);
        let check_args = [fr.ctx.into(), status.into(), site.into()];
        let check = runtime::hlox_rt_cc_check as *const () as usize;
        if target.catches_panics {
            // A Rust target's trampoline leaves a caught panic in a
            // thread-local slot that only the runtime can read.
            return self.call_runtime(fr, name, check, &check_args);
        }
        // A C function cannot leave a panic, and one without a status
        // (API_VERSION_ORIGINAL) cannot fail: no check at all. With a
        // status, only its `failed` word (the first field) is read inline;
        // the runtime reads the message when it is set. This keeps one
        // custom call within a few ns of a direct call of the function
        // (docs/performance.md).
        if call.api_version == CustomCallApiVersion::Original {
            return Ok(());
        }
        let cg = &self.cg;
        let failed =
            cg.b.build_load(cg.i32(), status, "failed")
                .map_err(e(name))?
                .into_int_value();
        let f = cg.current_fn().map_err(e(name))?;
        let (slow, done) = (
            cg.ctx.append_basic_block(f, "cc_failed"),
            cg.ctx.append_basic_block(f, "cc_done"),
        );
        let c =
            cg.b.build_int_compare(IntPredicate::NE, failed, cg.i32().const_zero(), "")
                .map_err(e(name))?;
        cg.b.build_conditional_branch(c, slow, done)
            .map_err(e(name))?;
        cg.b.position_at_end(slow);
        self.call_runtime(fr, name, check, &check_args)?;
        self.cg
            .b
            .build_unconditional_branch(done)
            .map_err(e(name))?;
        self.cg.b.position_at_end(done);
        Ok(())
    }

    /// Compile scalar computation `c` into `void f(ptr args, ptr outs)`
    /// (a [`crate::kernels::ScalarFn`]); returns its symbol name.
    fn scalar_fn(&mut self, c: CompId, user: &str) -> R<String> {
        let fname = format!("scalar.{}.{}", c, self.module.comp(c).name);
        if self.cg.module.get_function(&fname).is_some() {
            return Ok(fname);
        }
        if !hlox_codegen::elemental::is_scalar_computation(self.module, c) {
            return Err(CompileError::Unsupported {
                inst: user.into(),
                message: format!(
                    "called computation {} must be scalar element-wise code",
                    self.module.comp(c).name
                ),
            });
        }
        let comp = self.module.comp(c);
        let cg = &self.cg;
        let b = cg.b;
        let saved = b.get_insert_block();
        let f = self.begin_void_fn(&fname, &[cg.ptr().into(), cg.ptr().into()]);
        let cg = &self.cg;
        let args = param(f, 0)?.into_pointer_value();
        let outs = param(f, 1)?.into_pointer_value();
        let slot = |t: PointerValue<'ctx>, i: usize| self.load_ptr(t, i, user);
        let mut vals = Vec::new();
        let mut k = 0;
        for &p in &comp.params {
            for (_, s) in comp.inst(p).shape.leaves() {
                let ty = s.element_type().unwrap_or(ElementType::Pred);
                let ptr = slot(args, k)?;
                vals.push(cg.load_elem(ty, ptr).map_err(e(user))?);
                k += 1;
            }
        }
        let ctx = ElementalCtx::new(self.module, comp);
        let r = ctx.inline_scalar(cg, c, &vals).map_err(e(user))?;
        for (j, ((_, s), v)) in comp.root_inst().shape.leaves().iter().zip(r).enumerate() {
            let ty = s.element_type().unwrap_or(ElementType::Pred);
            let ptr = slot(outs, j)?;
            cg.store_elem(ty, ptr, v).map_err(e(user))?;
        }
        b.build_return(None).map_err(e(user))?;
        if let Some(bb) = saved {
            b.position_at_end(bb);
        }
        Ok(fname)
    }

    /// Runtime kernels (matrix products) run side by side
    /// (`hlox_rt_kernel_group`): per member, five words (kernel index,
    /// operand table, operand count, result table, result count).
    fn emit_kernel_group(&mut self, fr: &Frame<'a, 'ctx>, ids: &[InstId]) -> R<()> {
        let comp = fr.comp;
        let mut words = Vec::new();
        let mut names = Vec::new();
        for &id in ids {
            let inst = comp.inst(id);
            names.push(inst.name.as_str());
            if !inst.called.is_empty() {
                return Err(CompileError::Internal(format!(
                    "{}: a kernel with called computations in a concurrent step",
                    inst.name
                )));
            }
            let k = self.kernels.len();
            self.kernels.push((fr.cid, id, Vec::new()));
            let ins = self.leaf_ptrs(fr, &inst.operands)?;
            let outs = ptrs(&self.leaves_of(fr, id)?);
            let word = |v: usize| -> R<PointerValue<'ctx>> {
                self.cg
                    .b
                    .build_int_to_ptr(self.cg.i64c(v as i64), self.cg.ptr(), "")
                    .map_err(e(&inst.name))
            };
            words.extend([
                word(k)?,
                self.table(&ins)?,
                word(ins.len())?,
                self.table(&outs)?,
                word(outs.len())?,
            ]);
        }
        let t = self.table(&words)?;
        let name = names.join(" & ");
        let args = [
            fr.ctx.into(),
            t.into(),
            self.cg.i64c(ids.len() as i64).into(),
        ];
        self.call_runtime(
            fr,
            &name,
            runtime::hlox_rt_kernel_group as *const () as usize,
            &args,
        )
    }

    fn emit_kernel(&mut self, fr: &Frame<'a, 'ctx>, at: &InstAt<'a, 'ctx>) -> R<()> {
        let &InstAt { id, inst, ref out } = at;
        let cid = fr.cid;
        let name = inst.name.as_str();
        let mut callees = Vec::new();
        for &c in &inst.called {
            callees.push(self.scalar_fn(c, name)?);
        }
        let k = self.kernels.len();
        self.kernels.push((cid, id, callees));
        let ins = self.leaf_ptrs(fr, &inst.operands)?;
        let outs = ptrs(out);
        let it = self.table(&ins)?;
        let ot = self.table(&outs)?;
        let i = |v: usize| self.cg.i64c(v as i64).into();
        self.call_runtime(
            fr,
            name,
            runtime::hlox_rt_kernel as *const () as usize,
            &[
                fr.ctx.into(),
                i(k),
                it.into(),
                i(ins.len()),
                ot.into(),
                i(outs.len()),
            ],
        )
    }
}
