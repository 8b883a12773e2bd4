//! Forward mode: every value is re-emitted with a tangent beside it.

use crate::custom::{call_rule, RuleKind, Rules};
use crate::emit::{walk_forward, Emitter, Out};
use crate::rules::elementwise::{binary_partials, unary_partial, Partial};
use crate::rules::linear::{chooser_indicators, clamp_masks, scalar_to};
use crate::rules::{reducer_op, reduction, Reduction};
use crate::tan::{differentiable, Tan};
use crate::{check_input, check_wrt, finish, unsupported, TransformError};
use hlox_hlo::ir::{BinaryOp, CompId, ComparisonDirection, InstId, Instruction, Module, Op};
use hlox_hlo::verifier::VerifiedModule;
use hlox_hlo::{ProgramShape, Shape};

const T: &str = "jvp";

/// Forward-mode derivative of `m` with respect to the entry parameters
/// `wrt`: parameters are `m`'s, then one tangent per `wrt` parameter (of
/// its shape); the result is the tuple of `m`'s result leaves followed by
/// their tangents.
pub fn jvp(m: &Module, wrt: &[usize]) -> Result<VerifiedModule, TransformError> {
    jvp_with(m, wrt, &Rules::new())
}

/// [`jvp`] with the rules of custom-call targets.
pub fn jvp_with(
    m: &Module,
    wrt: &[usize],
    rules: &Rules,
) -> Result<VerifiedModule, TransformError> {
    let m = check_input(m, T)?;
    let m = &*m;
    check_wrt(m, wrt, T)?;
    let entry = m.entry_computation();
    let mut out = Out::new(m, format!("jvp_{}", m.name), rules);
    let mut e = Emitter::new(&mut out, &format!("jvp.{}", entry.name), T);
    let mut args: Vec<(InstId, Tan)> = entry
        .params
        .iter()
        .map(|&p| {
            let inst = entry.inst(p);
            (e.param(&inst.shape, &inst.name), Tan::Zero)
        })
        .collect();
    for &w in wrt {
        let inst = entry.inst(entry.params[w]);
        let t = e.param(&inst.shape, &format!("{}.tangent", inst.name));
        let prev = std::mem::replace(&mut args[w].1, Tan::Zero);
        args[w].1 = prev.add(Tan::Val(t), &mut e, &inst.shape)?;
    }
    let (y, t) = jvp_comp(&mut e, m, m.entry, &args)?;
    e.at.clear();
    let shape = e.shape(y).clone();
    let tv = t.materialize(&mut e, &shape)?;
    let mut leaves = leaves(&mut e, y)?;
    flatten(&mut e, tv, &mut leaves)?;
    let root = e.tuple(&leaves)?;
    let c = e.finish(root);
    finish(out, c, T)
}

/// The array leaves of `x`, in pre-order.
pub(crate) fn leaves(e: &mut Emitter, x: InstId) -> Result<Vec<InstId>, TransformError> {
    let mut leaves = Vec::new();
    flatten(e, x, &mut leaves)?;
    Ok(leaves)
}

/// Appends the array leaves of `x`, in pre-order, to `leaves`.
pub(crate) fn flatten(
    e: &mut Emitter,
    x: InstId,
    leaves: &mut Vec<InstId>,
) -> Result<(), TransformError> {
    match e.shape(x).clone() {
        Shape::Tuple(t) => {
            for i in 0..t.len() {
                let g = e.gte(x, i)?;
                flatten(e, g, leaves)?;
            }
            Ok(())
        }
        _ => {
            leaves.push(x);
            Ok(())
        }
    }
}

/// Transforms computation `c` given its arguments and their tangents
/// (calls are inlined).
pub(crate) fn jvp_comp(
    e: &mut Emitter,
    m: &Module,
    c: CompId,
    args: &[(InstId, Tan)],
) -> Result<(InstId, Tan), TransformError> {
    walk_forward(e, m, c, args, &mut |e, inst, ops| jvp_inst(e, m, inst, ops))
}

/// Which operands an op is linear in (its tangent is the op applied to
/// their tangents, the other operands kept).
fn linear_operands(op: &Op, n: usize) -> Option<Vec<usize>> {
    Some(match op {
        // Linear in the source (the init value's tangent must be zero).
        Op::SelectAndScatter { .. } => vec![1, 2],
        Op::Pad { .. } | Op::DynamicUpdateSlice => vec![0, 1],
        Op::Concatenate { .. } => (0..n).collect(),
        // The other data-movement ops (copy, reshape, bitcast, broadcast,
        // transpose, reverse, slice, dynamic-slice) move operand 0's elements.
        Op::Gather { .. } | Op::ReducePrecision { .. } | Op::Fft { .. } => vec![0],
        op if op.opcode().is_data_movement() => vec![0],
        _ => return None,
    })
}

fn jvp_inst(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    ops: &[(InstId, Tan)],
) -> Result<(InstId, Tan), TransformError> {
    let prim: Vec<InstId> = ops.iter().map(|o| o.0).collect();
    let all_zero = ops.iter().all(|o| o.1.is_zero()) || !differentiable(&inst.shape);
    if !all_zero && crate::collective::is_linear_collective(m, inst) {
        // Linear: the op applied to the tangents.
        let y = e.reemit(inst, &prim)?;
        let mut ts = Vec::with_capacity(ops.len());
        for (k, o) in ops.iter().enumerate() {
            let s = e.shape(prim[k]).clone();
            ts.push(o.1.materialize(e, &s)?);
        }
        let t = e.reemit(inst, &ts)?;
        return Ok((y, Tan::Val(t)));
    }
    if let (Some(why), false) = (crate::collective::refusal(m, inst), all_zero) {
        return Err(unsupported(T, inst, why));
    }
    if let (Op::CustomCall(_), false) = (&inst.op, all_zero) {
        // The rule gives both the result and its tangent.
        let mut args = prim.clone();
        let mut params: Vec<Shape> = Vec::new();
        for (k, o) in ops.iter().enumerate() {
            let s = e.shape(prim[k]).clone();
            params.push(s.clone());
            args.push(o.1.materialize(e, &s)?);
        }
        params.extend(params.clone());
        let expected = ProgramShape {
            parameters: params,
            parameter_names: vec![],
            result: Shape::Tuple(vec![inst.shape.clone(), inst.shape.clone()]),
        };
        let r = call_rule(e, inst, RuleKind::Jvp, &args, &expected)?;
        let y = e.gte(r, 0)?;
        let t = e.gte(r, 1)?;
        return Ok((y, Tan::Val(t)));
    }
    if !all_zero {
        match &inst.op {
            Op::Conditional => return jvp_conditional(e, m, inst, ops),
            Op::While => return jvp_while(e, m, inst, ops),
            _ => {}
        }
    }
    let y = e.reemit(inst, &prim)?;
    if all_zero {
        return Ok((y, Tan::Zero));
    }
    let tan = |e: &mut Emitter, k: usize| -> Result<InstId, TransformError> {
        let s = e.shape(prim[k]).clone();
        ops[k].1.materialize(e, &s)
    };
    let t = match &inst.op {
        Op::Unary(u) => {
            let p = unary_partial(e, *u, prim[0], y)?;
            let t0 = tan(e, 0)?;
            p.apply(e, t0)?
        }
        Op::Binary(b) => {
            let (px, py) = binary_partials(e, *b, prim[0], prim[1], y)?;
            let mut acc: Option<InstId> = None;
            for (k, p) in [(0, px), (1, py)] {
                if ops[k].1.is_zero() || matches!(p, Partial::Zero) {
                    continue;
                }
                let tk = tan(e, k)?;
                if let Some(v) = p.apply(e, tk)? {
                    acc = Some(match acc {
                        None => v,
                        Some(a) => e.addv(a, v)?,
                    });
                }
            }
            acc
        }
        Op::Select => {
            let (ta, tb) = (tan(e, 1)?, tan(e, 2)?);
            Some(e.select(prim[0], ta, tb)?)
        }
        Op::Clamp => {
            let masks = clamp_masks(e, prim[0], prim[1], prim[2])?;
            let xd = e.dims(prim[1])?;
            let zero = e.full_like(y, 0.0)?;
            let mut acc: Option<InstId> = None;
            for (k, mask) in [(0, masks.lo), (1, masks.x), (2, masks.hi)] {
                if ops[k].1.is_zero() {
                    continue;
                }
                let tk = tan(e, k)?;
                let tk = scalar_to(e, tk, &xd)?;
                let v = e.select(mask, tk, zero)?;
                acc = Some(match acc {
                    None => v,
                    Some(a) => e.addv(a, v)?,
                });
            }
            acc
        }
        Op::Convert => {
            if e.ty(prim[0])?.is_float_or_complex() {
                let t0 = tan(e, 0)?;
                let ty = e.ty(y)?;
                Some(e.convert(t0, ty)?)
            } else {
                None
            }
        }
        Op::OptimizationBarrier => return Ok((y, ops[0].1.clone())),
        Op::Dot { .. } | Op::Convolution(_) => {
            let mut acc: Option<InstId> = None;
            for k in 0..2 {
                if ops[k].1.is_zero() {
                    continue;
                }
                let tk = tan(e, k)?;
                let mut o = prim.clone();
                o[k] = tk;
                let v = e.add_shaped(inst.op.clone(), &o, &[], inst.shape.clone())?;
                acc = Some(match acc {
                    None => v,
                    Some(a) => e.addv(a, v)?,
                });
            }
            acc
        }
        Op::Reduce { dimensions } if prim.len() == 2 => match reduction(m, inst.called[0]) {
            Some(Reduction::Sum) => {
                let (t0, t1) = (tan(e, 0)?, tan(e, 1)?);
                Some(e.add_shaped(inst.op.clone(), &[t0, t1], &inst.called, inst.shape.clone())?)
            }
            Some(Reduction::Choice) => {
                let (ind, counts) = chooser_indicators(e, prim[0], y, dimensions)?;
                let t0 = tan(e, 0)?;
                let w = e.mul(t0, ind)?;
                let s = e.reduce_sum(w, dimensions)?;
                Some(e.div(s, counts)?)
            }
            Some(Reduction::Product) => {
                // y = init * prod(x): the tangent is init * sum(t * the
                // product of the others) + t_init * prod(x).
                let others = crate::rules::linear::others_product(e, prim[0], dimensions)?;
                let t0 = tan(e, 0)?;
                let w = e.mul(t0, others)?;
                let s = e.reduce_sum(w, dimensions)?;
                let yd = e.dims(y)?;
                let init = scalar_to(e, prim[1], &yd)?;
                let mut acc = e.mul(s, init)?;
                if !ops[1].1.is_zero() {
                    let t1 = tan(e, 1)?;
                    let t1 = scalar_to(e, t1, &yd)?;
                    let p = e.reduce_with(BinaryOp::Multiply, prim[0], dimensions, 1.0)?;
                    let v = e.mul(t1, p)?;
                    acc = e.addv(acc, v)?;
                }
                Some(acc)
            }
            _ => {
                return Err(unsupported(
                    T,
                    inst,
                    "only sum, product, max and min reductions are differentiated",
                ))
            }
        },
        Op::TopK { .. } => {
            // The values' tangent is the tangent where each was taken.
            let t0 = tan(e, 0)?;
            let idx = e.gte(y, 1)?;
            let last = e.arr(prim[0])?.rank() as i64 - 1;
            let g = crate::rules::linear::take_along_axis(e, t0, idx, last)?;
            return Ok((y, Tan::Tuple(vec![Tan::Val(g), Tan::Zero])));
        }
        Op::Reduce { dimensions } if prim.len() == 4 && dimensions.len() == 1 => {
            // JAX's argmax/argmin: (values, iota) reduced together; the
            // value output's tangent is the tangent at the chosen index.
            let d = dimensions[0];
            let iota_ok = crate::rules::linear::is_argmax(|x| e.inst(x), m, inst, &prim)
                && ops[1].1.is_zero()
                && ops[2].1.is_zero();
            if !iota_ok {
                return Err(unsupported(T, inst, crate::rules::linear::ARGMAX_ONLY));
            }
            let t0 = tan(e, 0)?;
            // The index with the reduced dimension back as a unit one.
            let idx = e.gte(y, 1)?;
            let od = e.dims(idx)?;
            let mut idims = od.clone();
            idims.insert(d as usize, 1);
            let idx = e.reshape(idx, &idims)?;
            let g = crate::rules::linear::take_along_axis(e, t0, idx, d)?;
            let g = e.reshape(g, &od)?;
            return Ok((y, Tan::Tuple(vec![Tan::Val(g), Tan::Zero])));
        }
        // Variadic reduces that neither split nor are an argmax.
        Op::Reduce { .. } if prim.len() > 2 => {
            return Err(unsupported(T, inst, crate::rules::linear::ARGMAX_ONLY))
        }
        Op::ReduceWindow { window } if prim.len() == 2 => {
            if !ops[1].1.is_zero() {
                return Err(unsupported(
                    T,
                    inst,
                    "a reduce-window whose init value depends on the wrt parameters is not differentiated yet",
                ));
            }
            let ty = e.ty(y)?;
            let t0 = tan(e, 0)?;
            let z = e.scalar(ty, 0.0)?;
            match reducer_op(m, inst.called[0]) {
                Some(BinaryOp::Add) => Some(e.add_shaped(
                    inst.op.clone(),
                    &[t0, z],
                    &inst.called,
                    inst.shape.clone(),
                )?),
                Some(op @ (BinaryOp::Maximum | BinaryOp::Minimum)) => {
                    // Carry each window's chosen element's tangent.
                    let dir = if op == BinaryOp::Maximum {
                        ComparisonDirection::Ge
                    } else {
                        ComparisonDirection::Le
                    };
                    let comp = e.out.pair_chooser(dir, ty)?;
                    Some(pair_window(e, window, [prim[0], t0, prim[1], z], comp)?)
                }
                Some(BinaryOp::Multiply) => {
                    // JAX's jvp of a general reduce-window: the same
                    // windows over (value, tangent) pairs, reduced by the
                    // product rule (any window: strides, padding,
                    // dilations).
                    let comp = e.out.pair_product(ty)?;
                    Some(pair_window(e, window, [prim[0], t0, prim[1], z], comp)?)
                }
                _ => {
                    return Err(unsupported(
                        T,
                        inst,
                        "only sum, product, max and min reduce-windows are differentiated",
                    ))
                }
            }
        }
        Op::Scatter {
            dnums,
            indices_are_sorted,
            unique_indices,
        } if prim.len() == 3
            && matches!(reducer_op(m, inst.called[0]), Some(BinaryOp::Multiply)) =>
        {
            // JAX's rules for `x.at[i].multiply(u)`: linear in the operand
            // (its tangent multiplied by the same updates); an update's
            // tangent times the operand where it lands, with unique
            // indices only (as JAX: with repeats, each update's partial
            // is a product of the others).
            let mut acc = None;
            if !ops[0].1.is_zero() {
                let t0 = tan(e, 0)?;
                acc = Some(e.add_shaped(
                    inst.op.clone(),
                    &[t0, prim[1], prim[2]],
                    &inst.called,
                    inst.shape.clone(),
                )?);
            }
            if !ops[2].1.is_zero() && differentiable(e.shape(prim[2])) {
                if !unique_indices {
                    return Err(unsupported(
                        T,
                        inst,
                        crate::rules::linear::SCATTER_MUL_UNIQUE,
                    ));
                }
                let t2 = tan(e, 2)?;
                let a = e.arr(prim[0])?;
                let z = e.full(a.ty, &a.dims, 0.0)?;
                let add = e.out.reducer(BinaryOp::Add, a.ty)?;
                let spread = e.add(
                    Op::Scatter {
                        dnums: dnums.clone(),
                        indices_are_sorted: *indices_are_sorted,
                        unique_indices: true,
                    },
                    &[z, prim[1], t2],
                    &[add],
                )?;
                let t = e.mul(prim[0], spread)?;
                acc = Some(match acc {
                    Some(a) => e.addv(a, t)?,
                    None => t,
                });
            }
            acc
        }
        Op::Scatter { .. } => {
            let n = prim.len() / 2;
            let linear = matches!(reducer_op(m, inst.called[0]), Some(BinaryOp::Add))
                || crate::rules::is_assignment(m, inst.called[0]);
            if !linear || !ops[n].1.is_zero() && differentiable(e.shape(prim[n])) {
                return Err(unsupported(
                    T,
                    inst,
                    "only scatters that add, assign or multiply (one operand) are differentiated",
                ));
            }
            let mut o = prim.clone();
            for k in (0..n).chain(n + 1..prim.len()) {
                o[k] = tan(e, k)?;
            }
            Some(e.add_shaped(inst.op.clone(), &o, &inst.called, inst.shape.clone())?)
        }
        Op::Sort {
            dimension,
            is_stable,
        } => {
            // A sort permutes: each tangent is permuted the same way.
            let perm =
                crate::rules::linear::sort_permutation(e, m, inst, &prim, *dimension, *is_stable)?;
            let mut parts = Vec::with_capacity(prim.len());
            for (k, o) in ops.iter().enumerate() {
                parts.push(if o.1.is_zero() || !differentiable(e.shape(prim[k])) {
                    Tan::Zero
                } else {
                    let tk = tan(e, k)?;
                    Tan::Val(crate::rules::linear::take_along_axis(
                        e, tk, perm, *dimension,
                    )?)
                });
            }
            return Ok((
                y,
                if prim.len() == 1 {
                    parts.remove(0)
                } else {
                    Tan::Tuple(parts)
                },
            ));
        }
        Op::Tuple => return Ok((y, Tan::Tuple(ops.iter().map(|o| o.1.clone()).collect()))),
        Op::GetTupleElement { index } => {
            let t = ops[0].1.element(e, *index as usize)?;
            return Ok((y, t));
        }
        op => match linear_operands(op, prim.len()) {
            Some(lin) => {
                let mut o = prim.clone();
                for k in lin {
                    o[k] = tan(e, k)?;
                }
                Some(e.add_shaped(inst.op.clone(), &o, &inst.called, inst.shape.clone())?)
            }
            None => {
                return Err(unsupported(
                    T,
                    inst,
                    "no forward-mode rule for this opcode yet",
                ))
            }
        },
    };
    Ok((y, t.map_or(Tan::Zero, Tan::Val)))
}

/// A computation of `e`'s module that takes `(x, tangent of x)` as one
/// tuple and returns `(f(x), tangent of f(x))`, for `f` the computation
/// `c` of `m`.
fn jvp_computation(e: &mut Emitter, m: &Module, c: CompId) -> Result<CompId, TransformError> {
    let comp = m.comp(c);
    let x_shape = comp.inst(comp.params[0]).shape.clone();
    let mut sub = Emitter::new(&mut *e.out, &format!("jvp.{}", comp.name), T);
    sub.at = e.at.clone();
    let p = sub.param(
        &Shape::Tuple(vec![x_shape.clone(), x_shape]),
        "primal_tangent",
    );
    let x = sub.gte(p, 0)?;
    let t = sub.gte(p, 1)?;
    let (y, ty) = jvp_comp(&mut sub, m, c, &[(x, Tan::Val(t))])?;
    let ys = sub.shape(y).clone();
    let ty = ty.materialize(&mut sub, &ys)?;
    let r = sub.tuple(&[y, ty])?;
    Ok(sub.finish(r))
}

/// Each branch transformed to carry its operand's tangent; one
/// conditional picks the branch for both.
fn jvp_conditional(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    ops: &[(InstId, Tan)],
) -> Result<(InstId, Tan), TransformError> {
    let mut branches = Vec::with_capacity(inst.called.len());
    for &c in &inst.called {
        if m.comp(c).params.len() != 1 {
            return Err(unsupported(T, inst, "a branch must take one parameter"));
        }
        branches.push(jvp_computation(e, m, c)?);
    }
    let mut args = vec![ops[0].0];
    for (x, t) in &ops[1..] {
        let s = e.shape(*x).clone();
        let tv = t.materialize(e, &s)?;
        args.push(e.tuple(&[*x, tv])?);
    }
    let r = e.add(Op::Conditional, &args, &branches)?;
    let y = e.gte(r, 0)?;
    let t = e.gte(r, 1)?;
    Ok((y, Tan::Val(t)))
}

/// The loop's state carries its tangent beside it: the condition reads
/// the primal half, the body is the body's jvp.
fn jvp_while(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    ops: &[(InstId, Tan)],
) -> Result<(InstId, Tan), TransformError> {
    let (cond, body) = (inst.called[0], inst.called[1]);
    let body = jvp_computation(e, m, body)?;
    let s = inst.shape.clone();
    let pair = Shape::Tuple(vec![s.clone(), s.clone()]);
    let cond = {
        let mut sub = Emitter::new(&mut *e.out, &format!("jvp.{}", m.comp(cond).name), T);
        let p = sub.param(&pair, "primal_tangent");
        let x = sub.gte(p, 0)?;
        let r = sub.add(Op::Call, &[x], &[cond])?;
        sub.finish(r)
    };
    let t0 = ops[0].1.materialize(e, &s)?;
    let init = e.tuple(&[ops[0].0, t0])?;
    let r = e.add(Op::While, &[init], &[cond, body])?;
    let y = e.gte(r, 0)?;
    let t = e.gte(r, 1)?;
    Ok((y, Tan::Val(t)))
}

/// A reduce-window over (value, tangent) pairs `[x, dx, init, zero]` with
/// the pair reducer `comp`: the tangent of a max/min or product window.
fn pair_window(
    e: &mut Emitter,
    window: &hlox_hlo::ir::Window,
    operands: [InstId; 4],
    comp: CompId,
) -> Result<InstId, TransformError> {
    let r = e.add(
        Op::ReduceWindow {
            window: window.clone(),
        },
        &operands,
        &[comp],
    )?;
    e.gte(r, 1)
}
