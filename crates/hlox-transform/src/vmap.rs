//! Batching: every value is either unbatched or carries the batch
//! dimension in front (dimension 0); each instruction is rewritten by its
//! opcode's batching rule (attributes shifted past the batch dimension,
//! unbatched operands broadcast where the op needs them batched).

use crate::custom::{call_rule, RuleKind, Rules, VmapMethod};
use crate::emit::{walk_forward, Emitter, Out};
use crate::jvp::leaves;
use crate::{check_input, finish, unsupported, TransformError};
use hlox_hlo::ir::{
    CompId, Convolution, DotDimensionNumbers, InstId, Instruction, Module, Op, PadDim, SliceDim,
    Window, WindowDim,
};
use hlox_hlo::shape_inference::short;
use hlox_hlo::verifier::VerifiedModule;
use hlox_hlo::{ArrayShape, ElementType, Layout, ProgramShape, Shape};

const T: &str = "vmap";

/// Whether a value is batched (at dimension 0), per tuple element.
#[derive(Clone, Debug, Default)]
enum B {
    #[default]
    No,
    Yes,
    Tuple(Vec<B>),
}

impl B {
    fn any(&self) -> bool {
        match self {
            B::No => false,
            B::Yes => true,
            B::Tuple(t) => t.iter().any(B::any),
        }
    }
    fn element(&self, i: usize) -> B {
        match self {
            B::Tuple(t) => t.get(i).cloned().unwrap_or(B::No),
            b => b.clone(),
        }
    }
}

/// Batches `m`: parameter `i` gains a batch dimension of `size` at
/// `in_axes[i]` (`None`: not batched); the result is the tuple of `m`'s
/// result leaves, each batched at dimension 0.
pub fn vmap(
    m: &Module,
    in_axes: &[Option<usize>],
    size: i64,
) -> Result<VerifiedModule, TransformError> {
    vmap_with(m, in_axes, size, &Rules::new())
}

/// [`vmap`] with the batching methods of custom-call targets.
pub fn vmap_with(
    m: &Module,
    in_axes: &[Option<usize>],
    size: i64,
    rules: &Rules,
) -> Result<VerifiedModule, TransformError> {
    let m = check_input(m, T)?;
    let m = &*m;
    let entry = m.entry_computation();
    let arg = |message: String| TransformError::Argument {
        transform: T,
        message,
    };
    if in_axes.len() != entry.params.len() {
        return Err(arg(format!(
            "{} in_axes given, but `{}` has {} parameters (one axis or none per parameter)",
            in_axes.len(),
            entry.name,
            entry.params.len()
        )));
    }
    if size < 0 {
        return Err(arg(format!("the batch size {size} is negative")));
    }
    let mut out = Out::new(m, format!("vmap_{}", m.name), rules);
    let mut e = Emitter::new(&mut out, &format!("vmap.{}", entry.name), T);
    let mut args = Vec::with_capacity(in_axes.len());
    for (i, (&p, axis)) in entry.params.iter().zip(in_axes).enumerate() {
        let inst = entry.inst(p);
        match axis {
            None => args.push((e.param(&inst.shape, &inst.name), B::No)),
            Some(k) => {
                let Shape::Array(a) = &inst.shape else {
                    return Err(arg(format!(
                        "parameter {i} (`{}`) is {}: only array parameters can be batched",
                        inst.name,
                        short(&inst.shape)
                    )));
                };
                if *k > a.rank() {
                    return Err(arg(format!(
                        "in_axes[{i}] = {k} is past the rank {} of parameter {i} (`{}`, {})",
                        a.rank(),
                        inst.name,
                        short(&inst.shape)
                    )));
                }
                let mut dims = a.dims.clone();
                dims.insert(*k, size);
                let x = e.param(&Shape::array(a.ty, dims), &inst.name);
                let rank = a.rank() as i64 + 1;
                let mut perm: Vec<i64> = vec![*k as i64];
                perm.extend((0..rank).filter(|&d| d != *k as i64));
                let x = e.transpose(x, &perm)?;
                args.push((x, B::Yes));
            }
        }
    }
    let (y, b) = vmap_comp(&mut e, m, m.entry, &args, size)?;
    e.at.clear();
    let leaves = leaves(&mut e, y)?;
    let mut bl = Vec::new();
    b_leaves(&b, e.shape(y), &mut bl);
    let mut outs = Vec::with_capacity(leaves.len());
    for (x, batched) in leaves.into_iter().zip(bl) {
        outs.push(if batched { x } else { batch(&mut e, x, size)? });
    }
    let root = e.tuple(&outs)?;
    let c = e.finish(root);
    finish(out, c, T)
}

fn b_leaves(b: &B, s: &Shape, out: &mut Vec<bool>) {
    match s {
        Shape::Tuple(t) => {
            for (i, x) in t.iter().enumerate() {
                b_leaves(&b.element(i), x, out);
            }
        }
        _ => out.push(b.any()),
    }
}

/// An unbatched array broadcast to carry the batch dimension in front.
fn batch(e: &mut Emitter, x: InstId, size: i64) -> Result<InstId, TransformError> {
    let a = e.arr(x)?;
    let mut dims = vec![size];
    dims.extend(&a.dims);
    let bd: Vec<i64> = (1..=a.rank() as i64).collect();
    e.broadcast_in_dim(x, &dims, &bd)
}

/// `x` (batched or not) as a batched value of `[size] ++ dims`: the
/// element-wise ops' operand rule (scalars broadcast too, as `select`'s
/// predicate and `clamp`'s bounds may be).
fn batch_to(
    e: &mut Emitter,
    x: InstId,
    batched: bool,
    size: i64,
    dims: &[i64],
) -> Result<InstId, TransformError> {
    let mut full = vec![size];
    full.extend(dims);
    let rank = e.arr(x)?.rank();
    let bd: Vec<i64> = match (batched, rank) {
        (true, 1) => vec![0],
        (true, _) => (0..rank as i64).collect(),
        (false, 0) => vec![],
        (false, r) => (1..=r as i64).collect(),
    };
    e.broadcast_in_dim(x, &full, &bd)
}

/// `s` with the batch dimension in front of every leaf.
fn batched_leaves(s: &Shape, size: i64) -> Shape {
    match s {
        Shape::Tuple(t) => Shape::Tuple(t.iter().map(|x| batched_leaves(x, size)).collect()),
        s => batched_shape(s, size),
    }
}

/// `s` (each leaf of a tuple) with a batch dimension of `size` in front,
/// most major: every example keeps its layout.
fn batch_major(s: &Shape, size: i64) -> Shape {
    match s {
        Shape::Tuple(t) => Shape::Tuple(t.iter().map(|x| batch_major(x, size)).collect()),
        Shape::Array(a) => {
            let mut dims = vec![size];
            dims.extend(&a.dims);
            let mut m2m: Vec<i64> = a.layout.minor_to_major.iter().map(|d| d + 1).collect();
            m2m.push(0);
            Shape::Array(ArrayShape {
                ty: a.ty,
                dims,
                layout: Layout {
                    minor_to_major: m2m,
                },
            })
        }
        s => s.clone(),
    }
}

fn batched_shape(s: &Shape, size: i64) -> Shape {
    match s {
        Shape::Array(a) => {
            let mut d = vec![size];
            d.extend(&a.dims);
            Shape::array(a.ty, d)
        }
        s => s.clone(),
    }
}

fn vmap_comp(
    e: &mut Emitter,
    m: &Module,
    c: CompId,
    args: &[(InstId, B)],
    size: i64,
) -> Result<(InstId, B), TransformError> {
    walk_forward(e, m, c, args, &mut |e, inst, ops| {
        vmap_inst(e, m, inst, ops, size)
    })
}

/// A computation of `e`'s module batching computation `c` of `m`, its
/// parameters of the given (batched) shapes and batching; its result
/// conformed to `want` when given. Returns the result's batching.
fn vmap_computation(
    e: &mut Emitter,
    m: &Module,
    c: CompId,
    params: &[(Shape, B)],
    want: Option<&B>,
    size: i64,
) -> Result<(CompId, B), TransformError> {
    let comp = m.comp(c);
    let mut sub = Emitter::new(&mut *e.out, &format!("vmap.{}", comp.name), T);
    sub.at = e.at.clone();
    let mut args = Vec::with_capacity(params.len());
    for (i, (s, b)) in params.iter().enumerate() {
        args.push((sub.param(s, &format!("param.{i}")), b.clone()));
    }
    let (y, b) = vmap_comp(&mut sub, m, c, &args, size)?;
    let (y, b) = match want {
        Some(w) => {
            let unbatched = comp.root_inst().shape.clone();
            (conform(&mut sub, y, &b, w, &unbatched, size)?, w.clone())
        }
        None => (y, b),
    };
    Ok((sub.finish(y), b))
}

/// Every array leaf of `shape` batched.
fn all_batched(shape: &Shape) -> B {
    match shape {
        Shape::Tuple(t) => B::Tuple(t.iter().map(all_batched).collect()),
        _ => B::Yes,
    }
}

fn leaf(b: &B, i: usize) -> B {
    b.element(i)
}

/// Batched where either is.
fn join(a: &B, b: &B, shape: &Shape) -> B {
    match shape {
        Shape::Tuple(t) => B::Tuple(
            (0..t.len())
                .map(|i| join(&leaf(a, i), &leaf(b, i), &t[i]))
                .collect(),
        ),
        _ => {
            if a.any() || b.any() {
                B::Yes
            } else {
                B::No
            }
        }
    }
}

fn same(a: &B, b: &B, shape: &Shape) -> bool {
    match shape {
        Shape::Tuple(t) => (0..t.len()).all(|i| same(&leaf(a, i), &leaf(b, i), &t[i])),
        _ => a.any() == b.any(),
    }
}

/// `shape` with the batch dimension in front of each batched leaf.
fn batched_tree_shape(shape: &Shape, b: &B, size: i64) -> Shape {
    match shape {
        Shape::Tuple(t) => Shape::Tuple(
            t.iter()
                .enumerate()
                .map(|(i, s)| batched_tree_shape(s, &leaf(b, i), size))
                .collect(),
        ),
        s if b.any() => batched_shape(s, size),
        s => s.clone(),
    }
}

/// `x` (batched as `have`, of unbatched shape `shape`) with the leaves
/// `want` batches batched too.
fn conform(
    e: &mut Emitter,
    x: InstId,
    have: &B,
    want: &B,
    shape: &Shape,
    size: i64,
) -> Result<InstId, TransformError> {
    match shape {
        Shape::Tuple(t) => {
            if same(have, want, shape) {
                return Ok(x);
            }
            let mut parts = Vec::with_capacity(t.len());
            for (i, s) in t.iter().enumerate() {
                let g = e.gte(x, i)?;
                parts.push(conform(e, g, &leaf(have, i), &leaf(want, i), s, size)?);
            }
            e.tuple(&parts)
        }
        _ if want.any() && !have.any() => batch(e, x, size),
        _ => Ok(x),
    }
}

/// A loop whose condition differs per example: every leaf of the state
/// batched, the loop runs while any example's condition holds, and an
/// example whose condition is false keeps its state.
fn vmap_while_batched_predicate(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    init: &(InstId, B),
    size: i64,
) -> Result<(InstId, B), TransformError> {
    let (cond, body) = (inst.called[0], inst.called[1]);
    let all = all_batched(&inst.shape);
    let shape = batched_tree_shape(&inst.shape, &all, size);
    let s0 = conform(e, init.0, &init.1, &all, &inst.shape, size)?;
    let pred = Shape::scalar(ElementType::Pred);
    let new_cond = {
        let mut sub = Emitter::new(&mut *e.out, &format!("vmap.any.{}", m.comp(cond).name), T);
        sub.at = e.at.clone();
        let p = sub.param(&shape, "state");
        let (pb, b) = vmap_comp(&mut sub, m, cond, &[(p, all.clone())], size)?;
        let pb = conform(&mut sub, pb, &b, &B::Yes, &pred, size)?;
        let r = sub.reduce_with(hlox_hlo::ir::BinaryOp::Or, pb, &[0], 0.0)?;
        sub.finish(r)
    };
    let new_body = {
        let mut sub = Emitter::new(
            &mut *e.out,
            &format!("vmap.masked.{}", m.comp(body).name),
            T,
        );
        sub.at = e.at.clone();
        let p = sub.param(&shape, "state");
        let (pb, b) = vmap_comp(&mut sub, m, cond, &[(p, all.clone())], size)?;
        let pb = conform(&mut sub, pb, &b, &B::Yes, &pred, size)?;
        let (y, yb) = vmap_comp(&mut sub, m, body, &[(p, all.clone())], size)?;
        let y = conform(&mut sub, y, &yb, &all, &inst.shape, size)?;
        let r = select_tree(&mut sub, pb, y, p, &inst.shape)?;
        sub.finish(r)
    };
    let r = e.add(Op::While, &[s0], &[new_cond, new_body])?;
    Ok((r, all))
}

/// Per example (a `[size]` pred), `a` where true and `b` where false,
/// leaf by leaf (both batched everywhere, of unbatched shape `shape`).
fn select_tree(
    e: &mut Emitter,
    mask: InstId,
    a: InstId,
    b: InstId,
    shape: &Shape,
) -> Result<InstId, TransformError> {
    match shape {
        Shape::Tuple(t) => {
            let mut parts = Vec::with_capacity(t.len());
            for (i, s) in t.iter().enumerate() {
                let (x, y) = (e.gte(a, i)?, e.gte(b, i)?);
                parts.push(select_tree(e, mask, x, y, s)?);
            }
            e.tuple(&parts)
        }
        _ => {
            let d = e.dims(a)?;
            let m = e.broadcast_in_dim(mask, &d, &[0])?;
            e.select(m, a, b)
        }
    }
}

/// The start indices of a dynamic slice as one `[size, rank]` array of
/// the first start's type, each row one example's starts (clamped into
/// `[0, bounds[k]]` when bounds are given).
fn stack_starts(
    e: &mut Emitter,
    starts: &[InstId],
    bs: &[(InstId, B)],
    size: i64,
    bounds: Option<&[i64]>,
) -> Result<InstId, TransformError> {
    let ty = e.ty(starts[0])?;
    let mut cols = Vec::with_capacity(starts.len());
    for (k, (&s, b)) in starts.iter().zip(bs).enumerate() {
        let s = e.convert(s, ty)?;
        let col = if b.1.any() {
            e.reshape(s, &[size, 1])?
        } else {
            e.broadcast_in_dim(s, &[size, 1], &[])?
        };
        let col = match bounds {
            Some(bd) => {
                let lo = e.full(ty, &[size, 1], 0.0)?;
                let hi = e.full(ty, &[size, 1], bd[k] as f64)?;
                e.add(Op::Clamp, &[lo, col, hi], &[])?
            }
            None => col,
        };
        cols.push(col);
    }
    e.concat(&cols, 1)
}

/// `w` with a leading window dimension of 1 over the batch.
fn batch_window(w: &Window) -> Window {
    let mut dims = vec![WindowDim::new(1)];
    dims.extend(w.dims.iter().copied());
    Window { dims }
}

/// `inst` once per example (unrolled), on each batched operand's
/// example; every result leaf stacked along a new dimension 0.
fn sequential(
    e: &mut Emitter,
    inst: &Instruction,
    ops: &[(InstId, B)],
    size: i64,
) -> Result<InstId, TransformError> {
    let mut rows: Vec<Vec<InstId>> = Vec::with_capacity(size as usize);
    for n in 0..size {
        let mut o = Vec::with_capacity(ops.len());
        for (x, b) in ops {
            o.push(if b.any() { example(e, *x, n)? } else { *x });
        }
        let r = e.add_shaped(inst.op.clone(), &o, &[], inst.shape.clone())?;
        let mut stacked = Vec::new();
        for l in leaves(e, r)? {
            let mut d = vec![1];
            d.extend(e.dims(l)?);
            stacked.push(e.reshape(l, &d)?);
        }
        rows.push(stacked);
    }
    if rows.is_empty() {
        return e.zeros(&batched_leaves(&inst.shape, size));
    }
    let leaves = (0..rows[0].len())
        .map(|k| {
            let column: Vec<InstId> = rows.iter().map(|r| r[k]).collect();
            e.concat(&column, 0)
        })
        .collect::<Result<Vec<_>, _>>()?;
    match &inst.shape {
        Shape::Tuple(_) => e.tuple(&leaves),
        _ => Ok(leaves[0]),
    }
}

/// Element `n` of the batched `x`, without the batch dimension.
fn example(e: &mut Emitter, x: InstId, n: i64) -> Result<InstId, TransformError> {
    let d = e.dims(x)?;
    let mut sl = vec![SliceDim {
        start: n,
        limit: n + 1,
        stride: 1,
    }];
    sl.extend(d[1..].iter().map(|&k| SliceDim {
        start: 0,
        limit: k,
        stride: 1,
    }));
    let s = e.slice(x, sl)?;
    e.reshape(s, &d[1..])
}

fn shift(dims: &[i64]) -> Vec<i64> {
    dims.iter().map(|d| d + 1).collect()
}

fn vmap_inst(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    ops: &[(InstId, B)],
    size: i64,
) -> Result<(InstId, B), TransformError> {
    let prim: Vec<InstId> = ops.iter().map(|o| o.0).collect();
    if !ops.iter().any(|o| o.1.any()) {
        return Ok((e.reemit(inst, &prim)?, B::No));
    }
    let is = |k: usize| ops[k].1.any();
    // Operand `k`, broadcast to carry the batch when it does not.
    let bat = |e: &mut Emitter, k: usize| {
        if is(k) {
            Ok(prim[k])
        } else {
            batch(e, prim[k], size)
        }
    };
    let out_shape = batched_shape(&inst.shape, size);
    let out_dims = match &inst.shape {
        Shape::Array(a) => a.dims.clone(),
        _ => vec![],
    };
    let y = match &inst.op {
        op if op.is_elementwise() => {
            let mut o = Vec::with_capacity(prim.len());
            for (k, &x) in prim.iter().enumerate() {
                o.push(batch_to(e, x, is(k), size, &out_dims)?);
            }
            e.add_shaped(inst.op.clone(), &o, &inst.called, out_shape)?
        }
        Op::Copy => e.add_shaped(Op::Copy, &prim, &[], out_shape)?,
        Op::BitcastConvert => e.add_shaped(Op::BitcastConvert, &prim, &[], out_shape)?,
        Op::OptimizationBarrier => {
            let r = e.add(Op::OptimizationBarrier, &prim, &[])?;
            return Ok((r, ops[0].1.clone()));
        }
        Op::Broadcast { dimensions } => {
            let mut d = vec![0];
            d.extend(shift(dimensions));
            e.add_shaped(Op::Broadcast { dimensions: d }, &prim, &[], out_shape)?
        }
        Op::Reshape => e.add_shaped(Op::Reshape, &prim, &[], out_shape)?,
        Op::Transpose { dimensions } => {
            let mut d = vec![0];
            d.extend(shift(dimensions));
            e.transpose(prim[0], &d)?
        }
        Op::Reverse { dimensions } => e.reverse(prim[0], &shift(dimensions))?,
        Op::Slice { dims } => {
            let mut d = vec![SliceDim {
                start: 0,
                limit: size,
                stride: 1,
            }];
            d.extend(dims.iter().copied());
            e.slice(prim[0], d)?
        }
        Op::Pad { dims } if !is(1) => {
            let mut d = vec![PadDim::default()];
            d.extend(dims.iter().copied());
            e.pad(prim[0], prim[1], d)?
        }
        Op::Concatenate { dimension } => {
            let mut o = Vec::with_capacity(prim.len());
            for (k, &x) in prim.iter().enumerate() {
                o.push(if is(k) { x } else { batch(e, x, size)? });
            }
            e.concat(&o, dimension + 1)?
        }
        Op::Dot { dnums, precision } => {
            let nb = dnums.lhs_batch_dims.len() as i64;
            let (lb, rb) = (is(0), is(1));
            let mut d = DotDimensionNumbers {
                lhs_batch_dims: dnums.lhs_batch_dims.clone(),
                rhs_batch_dims: dnums.rhs_batch_dims.clone(),
                lhs_contracting_dims: dnums.lhs_contracting_dims.clone(),
                rhs_contracting_dims: dnums.rhs_contracting_dims.clone(),
            };
            if lb {
                d.lhs_batch_dims = shift(&d.lhs_batch_dims);
                d.lhs_contracting_dims = shift(&d.lhs_contracting_dims);
            }
            if rb {
                d.rhs_batch_dims = shift(&d.rhs_batch_dims);
                d.rhs_contracting_dims = shift(&d.rhs_contracting_dims);
            }
            // Where the batch dimension lands in the dot's result.
            let at = if lb && rb {
                d.lhs_batch_dims.insert(0, 0);
                d.rhs_batch_dims.insert(0, 0);
                0
            } else if lb {
                nb
            } else {
                let lrank = e.arr(prim[0])?.rank() as i64;
                nb + lrank - nb - dnums.lhs_contracting_dims.len() as i64
            };
            let ty = inst.shape.element_type().unwrap_or(ElementType::F32);
            let op = Op::Dot {
                dnums: d,
                precision: precision.clone(),
            };
            let shapes: Vec<&Shape> = prim.iter().map(|&p| e.shape(p)).collect();
            let mut s = hlox_hlo::shape_inference::infer_shape(&op, &shapes, &[])
                .map_err(|err| e.internal(err.to_string()))?;
            if let Some(a) = s.as_array_mut() {
                a.ty = ty;
            }
            let r = e.add_shaped(op, &prim, &[], s)?;
            let rank = e.arr(r)?.rank() as i64;
            let mut perm = vec![at];
            perm.extend((0..rank).filter(|&x| x != at));
            e.transpose(r, &perm)?
        }
        reduction @ (Op::Reduce { .. } | Op::ReduceWindow { .. }) => {
            // reduce and reduce-window alike: operands batched, init values
            // not; the batch dimension is a new leading one, so the reduced
            // dimensions (or the window) shift by one.
            let batched = match reduction {
                Op::Reduce { dimensions } => Op::Reduce {
                    dimensions: shift(dimensions),
                },
                Op::ReduceWindow { window } => Op::ReduceWindow {
                    window: batch_window(window),
                },
                _ => return Err(unsupported(T, inst, "not a reduction")),
            };
            let n = prim.len() / 2;
            if (n..prim.len()).any(is) {
                return Err(unsupported(
                    T,
                    inst,
                    "a batched init value is not supported yet",
                ));
            }
            let mut o = Vec::with_capacity(prim.len());
            for (k, &x) in prim.iter().enumerate() {
                o.push(if k < n && !is(k) {
                    batch(e, x, size)?
                } else {
                    x
                });
            }
            let r = e.add(batched, &o, &inst.called)?;
            return Ok((
                r,
                if n == 1 {
                    B::Yes
                } else {
                    B::Tuple(vec![B::Yes; n])
                },
            ));
        }
        Op::SelectAndScatter { window } if !is(2) => {
            let x = bat(e, 0)?;
            let src = bat(e, 1)?;
            e.add(
                Op::SelectAndScatter {
                    window: batch_window(window),
                },
                &[x, src, prim[2]],
                &inst.called,
            )?
        }
        Op::Gather {
            dnums,
            slice_sizes,
            indices_are_sorted,
        } => {
            let mut d = dnums.clone();
            d.offset_dims = shift(&d.offset_dims);
            d.collapsed_slice_dims = shift(&d.collapsed_slice_dims);
            d.start_index_map = shift(&d.start_index_map);
            d.operand_batching_dims = shift(&d.operand_batching_dims);
            let mut sizes = slice_sizes.clone();
            let x = bat(e, 0)?;
            let idx = if is(1) {
                // Batched indices: the batch becomes a batching dimension
                // of both operands.
                d.operand_batching_dims.insert(0, 0);
                d.start_indices_batching_dims = shift(&d.start_indices_batching_dims);
                d.start_indices_batching_dims.insert(0, 0);
                d.index_vector_dim += 1;
                sizes.insert(0, 1);
                prim[1]
            } else {
                d.offset_dims.insert(0, 0);
                sizes.insert(0, size);
                prim[1]
            };
            e.add(
                Op::Gather {
                    dnums: d,
                    slice_sizes: sizes,
                    indices_are_sorted: *indices_are_sorted,
                },
                &[x, idx],
                &[],
            )?
        }
        Op::Scatter {
            dnums,
            indices_are_sorted,
            unique_indices,
        } if prim.len() == 3 => {
            let mut d = dnums.clone();
            d.update_window_dims = shift(&d.update_window_dims);
            d.inserted_window_dims = shift(&d.inserted_window_dims);
            d.scatter_dims_to_operand_dims = shift(&d.scatter_dims_to_operand_dims);
            d.input_batching_dims = shift(&d.input_batching_dims);
            let x = bat(e, 0)?;
            let u = bat(e, 2)?;
            if is(1) {
                d.input_batching_dims.insert(0, 0);
                d.scatter_indices_batching_dims = shift(&d.scatter_indices_batching_dims);
                d.scatter_indices_batching_dims.insert(0, 0);
                d.index_vector_dim += 1;
            } else {
                d.update_window_dims.insert(0, 0);
            }
            e.add(
                Op::Scatter {
                    dnums: d,
                    indices_are_sorted: *indices_are_sorted,
                    unique_indices: *unique_indices,
                },
                &[x, prim[1], u],
                &inst.called,
            )?
        }
        Op::Convolution(c) => vmap_convolution(e, c, [(prim[0], is(0)), (prim[1], is(1))], size)?,
        Op::Sort {
            dimension,
            is_stable,
        } => {
            let mut o = Vec::with_capacity(prim.len());
            for (k, &x) in prim.iter().enumerate() {
                o.push(if is(k) { x } else { batch(e, x, size)? });
            }
            let r = e.add(
                Op::Sort {
                    dimension: dimension + 1,
                    is_stable: *is_stable,
                },
                &o,
                &inst.called,
            )?;
            let b = if prim.len() == 1 {
                B::Yes
            } else {
                B::Tuple(vec![B::Yes; prim.len()])
            };
            return Ok((r, b));
        }
        Op::Conditional if is(0) => {
            // A batched selector: every branch runs on every example and
            // each example keeps its own branch's result.
            let want = all_batched(&inst.shape);
            let k = inst.called.len();
            let mut outs = Vec::with_capacity(k);
            for (i, &c) in inst.called.iter().enumerate() {
                let (y, b) = vmap_comp(e, m, c, &[ops[i + 1].clone()], size)?;
                outs.push(conform(e, y, &b, &want, &inst.shape, size)?);
            }
            let sel = prim[0];
            let sty = e.ty(sel)?;
            // XLA: a pred picks branch 0 when true; an index out of range
            // picks the last branch.
            let masks: Vec<InstId> = if sty.is_pred() {
                vec![sel]
            } else {
                let lo = e.full(sty, &[size], 0.0)?;
                let hi = e.full(sty, &[size], (k - 1) as f64)?;
                let idx = e.add(Op::Clamp, &[lo, sel, hi], &[])?;
                (0..k - 1)
                    .map(|i| {
                        let c = e.full(sty, &[size], i as f64)?;
                        e.compare(hlox_hlo::ComparisonDirection::Eq, idx, c)
                    })
                    .collect::<Result<_, _>>()?
            };
            let mut acc = outs[k - 1];
            for i in (0..k - 1).rev() {
                acc = select_tree(e, masks[i], outs[i], acc, &inst.shape)?;
            }
            return Ok((acc, want));
        }
        Op::Conditional if !is(0) => {
            // Every branch batched the same way: all result leaves batched.
            let want = all_batched(&inst.shape);
            let mut branches = Vec::with_capacity(inst.called.len());
            for (i, &c) in inst.called.iter().enumerate() {
                let shape = e.shape(prim[i + 1]).clone();
                let (comp, _) =
                    vmap_computation(e, m, c, &[(shape, ops[i + 1].1.clone())], Some(&want), size)?;
                branches.push(comp);
            }
            let r = e.add(Op::Conditional, &prim, &branches)?;
            return Ok((r, want));
        }
        Op::While => {
            // The state's batching is the fixed point of the body's.
            let (cond, body) = (inst.called[0], inst.called[1]);
            let mut state = ops[0].1.clone();
            let mut tries = 0;
            let body_comp = loop {
                let shape = batched_tree_shape(&inst.shape, &state, size);
                let (_probe, out) =
                    vmap_computation(e, m, body, &[(shape, state.clone())], None, size)?;
                let joined = join(&state, &out, &inst.shape);
                if same(&joined, &state, &inst.shape) {
                    let shape = batched_tree_shape(&inst.shape, &state, size);
                    break vmap_computation(
                        e,
                        m,
                        body,
                        &[(shape, state.clone())],
                        Some(&state),
                        size,
                    )?
                    .0;
                }
                state = joined;
                tries += 1;
                if tries > 64 {
                    return Err(unsupported(
                        T,
                        inst,
                        "the loop state's batching does not settle",
                    ));
                }
            };
            let shape = batched_tree_shape(&inst.shape, &state, size);
            let (cond_comp, pb) =
                vmap_computation(e, m, cond, &[(shape, state.clone())], None, size)?;
            if pb.any() {
                return vmap_while_batched_predicate(e, m, inst, &ops[0], size);
            }
            let init = conform(e, prim[0], &ops[0].1, &state, &inst.shape, size)?;
            let r = e.add(Op::While, &[init], &[cond_comp, body_comp])?;
            return Ok((r, state));
        }
        Op::Tuple => {
            let r = e.add(Op::Tuple, &prim, &[])?;
            return Ok((r, B::Tuple(ops.iter().map(|o| o.1.clone()).collect())));
        }
        Op::GetTupleElement { index } => {
            let r = e.add(inst.op.clone(), &prim, &[])?;
            return Ok((r, ops[0].1.element(*index as usize)));
        }
        Op::DynamicSlice { sizes } if (1..prim.len()).any(is) => {
            // Batched starts: a gather with the batch as a batching
            // dimension (gather clamps starts as dynamic-slice does).
            let x = bat(e, 0)?;
            let idx = stack_starts(e, &prim[1..], &ops[1..], size, None)?;
            let r = sizes.len() as i64;
            let mut slice_sizes = vec![1];
            slice_sizes.extend(sizes);
            e.add(
                Op::Gather {
                    dnums: hlox_hlo::ir::GatherDimensionNumbers {
                        offset_dims: (1..=r).collect(),
                        collapsed_slice_dims: vec![],
                        start_index_map: (1..=r).collect(),
                        index_vector_dim: 1,
                        operand_batching_dims: vec![0],
                        start_indices_batching_dims: vec![0],
                    },
                    slice_sizes,
                    indices_are_sorted: false,
                },
                &[x, idx],
                &[],
            )?
        }
        Op::DynamicUpdateSlice if (2..prim.len()).any(is) => {
            // Batched starts: a scatter that assigns, at starts clamped as
            // dynamic-update-slice clamps them.
            let x = bat(e, 0)?;
            let u = bat(e, 1)?;
            let xd = e.dims(x)?;
            let ud = e.dims(u)?;
            let bounds: Vec<i64> = (1..xd.len()).map(|k| xd[k] - ud[k]).collect();
            let idx = stack_starts(e, &prim[2..], &ops[2..], size, Some(&bounds))?;
            let r = bounds.len() as i64;
            let ty = e.ty(x)?;
            let assign = e.out.assigner(ty)?;
            e.add(
                Op::Scatter {
                    dnums: hlox_hlo::ir::ScatterDimensionNumbers {
                        update_window_dims: (1..=r).collect(),
                        inserted_window_dims: vec![],
                        scatter_dims_to_operand_dims: (1..=r).collect(),
                        index_vector_dim: 1,
                        input_batching_dims: vec![0],
                        scatter_indices_batching_dims: vec![0],
                    },
                    indices_are_sorted: false,
                    unique_indices: true,
                },
                &[x, idx, u],
                &[assign],
            )?
        }
        Op::DynamicSlice { sizes } if (1..prim.len()).all(|k| !is(k)) => {
            let ity = e.ty(prim[1])?;
            let zero = e.scalar(ity, 0.0)?;
            let mut o = vec![prim[0], zero];
            o.extend(&prim[1..]);
            let mut s = vec![size];
            s.extend(sizes);
            e.add(Op::DynamicSlice { sizes: s }, &o, &[])?
        }
        Op::DynamicUpdateSlice if (2..prim.len()).all(|k| !is(k)) => {
            let x = bat(e, 0)?;
            let u = bat(e, 1)?;
            let ity = e.ty(prim[2])?;
            let zero = e.scalar(ity, 0.0)?;
            let mut o = vec![x, u, zero];
            o.extend(&prim[2..]);
            e.add(Op::DynamicUpdateSlice, &o, &[])?
        }
        Op::CustomCall(cc) if crate::collective::is_boundary(&cc.target) => {
            // A shard_map boundary or sharding annotation: every value
            // batched in front, the batch dimension unsharded.
            let mut o = Vec::with_capacity(prim.len());
            for k in 0..prim.len() {
                o.push(bat(e, k)?);
            }
            let mut attrs = inst.frontend_attributes.clone();
            for (key, v) in attrs.iter_mut() {
                if crate::collective::SHARDING_ATTRS.contains(&key.as_str()) {
                    *v = crate::collective::batch_sharding(v).ok_or_else(|| {
                        unsupported(T, inst, format!("cannot read its {key} `{v}`"))
                    })?;
                }
            }
            let r = e.add_shaped(inst.op.clone(), &o, &[], batched_leaves(&inst.shape, size))?;
            e.set_frontend_attributes(r, attrs);
            return Ok((r, all_batched(&inst.shape)));
        }
        // Collectives act on each device's value as a whole: the batch
        // dimension rides along (a gathered or scattered dimension moves
        // past it).
        // Any reducer (`pmax` and `pmin` too: it combines the devices'
        // values element by element), any number of operands; the tuple
        // form of all-to-all sends each operand whole.
        Op::AllReduce(_)
        | Op::CollectivePermute { .. }
        | Op::CollectiveBroadcast(_)
        | Op::AllToAll {
            split_dimension: None,
            ..
        } => {
            let mut o = Vec::with_capacity(prim.len());
            for k in 0..prim.len() {
                o.push(bat(e, k)?);
            }
            let r = e.add_shaped(
                inst.op.clone(),
                &o,
                &inst.called,
                batched_leaves(&inst.shape, size),
            )?;
            return Ok((r, all_batched(&inst.shape)));
        }
        Op::AllGather {
            collective,
            dimension,
        } => e.add_shaped(
            Op::AllGather {
                collective: collective.clone(),
                dimension: dimension + 1,
            },
            &prim,
            &[],
            out_shape,
        )?,
        Op::AllToAll {
            collective,
            split_dimension: Some(d),
        } if prim.len() == 1 => e.add_shaped(
            Op::AllToAll {
                collective: collective.clone(),
                split_dimension: Some(d + 1),
            },
            &prim,
            &[],
            out_shape,
        )?,
        Op::ReduceScatter {
            collective,
            dimension,
        } => e.add_shaped(
            Op::ReduceScatter {
                collective: collective.clone(),
                dimension: dimension + 1,
            },
            &prim,
            &inst.called,
            out_shape,
        )?,
        Op::CustomCall(cc) if e.out.rules.has(RuleKind::Vmap, &cc.target) => {
            // The target's own batching rule: every operand batched in
            // front, every result leaf batched in front.
            let mut o = Vec::with_capacity(prim.len());
            for (k, &x) in prim.iter().enumerate() {
                o.push(if is(k) { x } else { batch(e, x, size)? });
            }
            let expected = ProgramShape {
                parameters: o.iter().map(|&x| e.shape(x).clone()).collect(),
                parameter_names: vec![],
                result: batched_leaves(&inst.shape, size),
            };
            call_rule(e, inst, RuleKind::Vmap, &o, &expected)?
        }
        Op::CustomCall(cc) => {
            let Some(method) = e.out.rules.vmap_method_of(&cc.target) else {
                return Err(TransformError::MissingRule {
                    transform: T,
                    instruction: inst.name.clone(),
                    target: cc.target.clone(),
                    rule: "vmap",
                });
            };
            // A tuple of arrays: each leaf batched in front.
            let leaves = match &inst.shape {
                Shape::Tuple(t) if t.iter().all(Shape::is_array) => Some(t.len()),
                Shape::Tuple(_) => {
                    return Err(unsupported(
                        T,
                        inst,
                        "batching a custom call whose result nests tuples is not supported yet",
                    ))
                }
                _ => None,
            };
            let y = match method {
                VmapMethod::Sequential => sequential(e, inst, ops, size)?,
                VmapMethod::ExpandDims | VmapMethod::BroadcastAll => {
                    let mut o = Vec::with_capacity(prim.len());
                    for (k, &x) in prim.iter().enumerate() {
                        o.push(if is(k) {
                            x
                        } else if method == VmapMethod::BroadcastAll {
                            batch(e, x, size)?
                        } else {
                            let mut d = vec![1];
                            d.extend(e.dims(x)?);
                            e.reshape(x, &d)?
                        });
                    }
                    // Each example keeps the layout the target reads and
                    // writes (LAPACK's column-major matrices), the batch
                    // dimension most major.
                    let mut c = (**cc).clone();
                    if let Some(cons) = &cc.operand_layout_constraints {
                        let mut batched = Vec::with_capacity(cons.len());
                        for (k, s) in cons.iter().enumerate() {
                            let dims = e.dims(o[k])?;
                            batched.push(batch_major(s, dims[0]));
                        }
                        c.operand_layout_constraints = Some(batched);
                    }
                    let out = batch_major(&inst.shape, size);
                    e.add_shaped(Op::CustomCall(Box::new(c)), &o, &[], out)?
                }
            };
            return Ok(match leaves {
                Some(n) => (y, B::Tuple(vec![B::Yes; n])),
                None => (y, B::Yes),
            });
        }
        // Over the last dimensions, which the batch in front does not move.
        Op::Fft { .. } => e.add_shaped(inst.op.clone(), &prim, &[], out_shape)?,
        Op::TopK { .. } => {
            // Along the last dimension, which the batch does not move.
            let r = e.add(inst.op.clone(), &[prim[0]], &[])?;
            return Ok((r, B::Tuple(vec![B::Yes, B::Yes])));
        }
        Op::RngBitGenerator { .. } => {
            // A batched key, by JAX's rule: the first example's key
            // generates the bits of the whole batch at once, and its new
            // state replaces that key (the other keys pass through).
            let Shape::Tuple(parts) = &inst.shape else {
                return Err(unsupported(T, inst, "expected a (state, bits) result"));
            };
            let (state, bits) = (&parts[0], batched_shape(&parts[1], size));
            let keys = prim[0];
            if size == 0 {
                let z = e.zeros(&bits)?;
                return Ok((e.tuple(&[keys, z])?, B::Tuple(vec![B::Yes, B::Yes])));
            }
            let first = example(e, keys, 0)?;
            let r = e.add_shaped(
                inst.op.clone(),
                &[first],
                &[],
                Shape::Tuple(vec![state.clone(), bits]),
            )?;
            let new = e.gte(r, 0)?;
            let mut d = vec![1];
            d.extend(e.dims(new)?);
            let new = e.reshape(new, &d)?;
            let s32 = e.scalar(ElementType::S32, 0.0)?;
            let mut o = vec![keys, new];
            o.extend(std::iter::repeat_n(s32, d.len()));
            let keys = e.add(Op::DynamicUpdateSlice, &o, &[])?;
            let bits = e.gte(r, 1)?;
            return Ok((e.tuple(&[keys, bits])?, B::Tuple(vec![B::Yes, B::Yes])));
        }
        _ => {
            return Err(unsupported(
                T,
                inst,
                "no batching rule for this opcode (with these operands batched) yet",
            ))
        }
    };
    Ok((y, B::Yes))
}

/// JAX's batching rule of a convolution (`_conv_general_dilated_batch_rule`)
/// with the batch in front of each batched operand: the batch is folded
/// into the input's batch dimension when only the input is batched, into
/// the kernel's output features when only the kernel is, and into feature
/// (or batch) groups when both are; groups stay outermost in the folded
/// dimensions so the convolution's grouping still lines up. The result has
/// the batch in front.
fn vmap_convolution(
    e: &mut Emitter,
    c: &Convolution,
    [(lhs, lhs_b), (rhs, rhs_b)]: [(InstId, bool); 2],
    size: i64,
) -> Result<InstId, TransformError> {
    let dn = &c.dnums;
    let (in_b, in_f) = (
        dn.input_batch_dimension as usize,
        dn.input_feature_dimension as usize,
    );
    let k_out = dn.kernel_output_feature_dimension as usize;
    let (out_b, out_f) = (
        dn.output_batch_dimension as usize,
        dn.output_feature_dimension as usize,
    );
    let (mut fgc, mut bgc) = (c.feature_group_count, c.batch_group_count);
    let conv = |e: &mut Emitter, a: InstId, b: InstId, fgc: i64, bgc: i64| {
        e.add(
            Op::Convolution(Convolution {
                feature_group_count: fgc,
                batch_group_count: bgc,
                ..c.clone()
            }),
            &[a, b],
            &[],
        )
    };
    let (y, bdim) = match (lhs_b, rhs_b) {
        (true, true) => {
            let a = if bgc > 1 {
                bgc *= size;
                e.merge_axis(lhs, 0, in_b)?
            } else {
                fgc *= size;
                e.merge_axis(lhs, 0, in_f)?
            };
            let k = e.merge_axis(rhs, 0, k_out)?;
            let y = conv(e, a, k, fgc, bgc)?;
            (e.split_axis(y, out_f, size)?, out_f)
        }
        (true, false) => {
            let a = if bgc == 1 {
                e.merge_axis(lhs, 0, in_b)?
            } else {
                let a = e.split_axis(lhs, in_b + 1, bgc)?;
                let a = e.merge_axis(a, 0, in_b + 1)?;
                e.merge_axis(a, in_b, in_b)?
            };
            let y = conv(e, a, rhs, fgc, bgc)?;
            (e.split_axis(y, out_b, size)?, out_b)
        }
        (false, true) => {
            if fgc == 1 && bgc == 1 {
                let k = e.merge_axis(rhs, 0, k_out)?;
                let y = conv(e, lhs, k, fgc, bgc)?;
                (e.split_axis(y, out_f, size)?, out_f)
            } else {
                let g = fgc.max(bgc);
                let k = e.split_axis(rhs, k_out + 1, g)?;
                let k = e.merge_axis(k, 0, k_out + 1)?;
                let k = e.merge_axis(k, k_out, k_out)?;
                let y = conv(e, lhs, k, fgc, bgc)?;
                let y = e.split_axis(y, out_f, g)?;
                let y = e.split_axis(y, out_f + 1, size)?;
                (e.merge_axis(y, out_f, out_f + 1)?, out_f)
            }
        }
        (false, false) => {
            return Err(e.internal("vmap_convolution: no operand is batched".into()));
        }
    };
    let rank = e.dims(y)?.len() as i64;
    let mut perm = vec![bdim as i64];
    perm.extend((0..rank).filter(|&d| d != bdim as i64));
    e.transpose(y, &perm)
}
