//! Reverse mode: the forward pass is re-emitted (calls inlined) while a
//! tape records each instruction that depends on a `wrt` parameter; the
//! tape is then walked backwards, each entry turning its result's
//! cotangent into its operands' by the opcode's rule (element-wise
//! partials from [`crate::rules::elementwise`], transposes from
//! [`crate::rules::linear`]).

use crate::custom::{call_rule, RuleKind, Rules};
use crate::emit::{Emitter, Out};
use crate::jvp::{flatten, leaves};
use crate::rules::elementwise::{binary_partials, unary_partial};
use crate::rules::linear::transpose;
use crate::tan::{differentiable, Tan};
use crate::{check_input, check_wrt, finish, TransformError};
use hlox_hlo::ir::{BinaryOp, CompId, InstId, Instruction, Module, Op};
use hlox_hlo::shape_inference::short;
use hlox_hlo::verifier::VerifiedModule;
use hlox_hlo::{EntitySet, ProgramShape, SecondaryMap, Shape};
use std::collections::HashMap;

/// One recorded forward instruction.
struct Entry<'m> {
    inst: &'m Instruction,
    ops: Vec<InstId>,
    out: InstId,
}

struct Tape<'m> {
    entries: Vec<Entry<'m>>,
    /// Values (of the new module) that depend on a `wrt` parameter.
    active: EntitySet<InstId>,
}

/// Reverse-mode derivative: `m`'s parameters, then one cotangent per
/// result leaf (pre-order); returns the tuple of the cotangents of the
/// `wrt` parameters.
pub fn vjp(m: &Module, wrt: &[usize]) -> Result<VerifiedModule, TransformError> {
    reverse(m, wrt, "vjp", &Rules::new())
}

/// [`vjp`] with the rules of custom-call targets.
pub fn vjp_with(
    m: &Module,
    wrt: &[usize],
    rules: &Rules,
) -> Result<VerifiedModule, TransformError> {
    reverse(m, wrt, "vjp", rules)
}

/// [`grad`] with the rules of custom-call targets.
pub fn grad_with(
    m: &Module,
    wrt: &[usize],
    rules: &Rules,
) -> Result<VerifiedModule, TransformError> {
    reverse(m, wrt, "grad", rules)
}

/// The gradient of `m`'s scalar floating-point result: `m`'s parameters;
/// returns the tuple of the gradients of the `wrt` parameters.
pub fn grad(m: &Module, wrt: &[usize]) -> Result<VerifiedModule, TransformError> {
    reverse(m, wrt, "grad", &Rules::new())
}

fn reverse(
    m: &Module,
    wrt: &[usize],
    t: &'static str,
    rules: &Rules,
) -> Result<VerifiedModule, TransformError> {
    let m = check_input(m, t)?;
    let m = &*m;
    check_wrt(m, wrt, t)?;
    let entry = m.entry_computation();
    let result = &entry.root_inst().shape;
    if t == "grad" {
        // A one-element tuple of a scalar is what grad itself returns, so
        // the grad of a grad (of a one-parameter function) works.
        let scalar = |s: &Shape| matches!(s, Shape::Array(a) if a.rank() == 0 && a.ty.is_float());
        let ok =
            scalar(result) || matches!(result, Shape::Tuple(es) if es.len() == 1 && scalar(&es[0]));
        if !ok {
            return Err(TransformError::Argument {
                transform: t,
                message: format!(
                    "grad needs a scalar floating-point result, but `{}` returns {} (use vjp for other results)",
                    entry.name,
                    short(result)
                ),
            });
        }
    }
    let mut out = Out::new(m, format!("{t}_{}", m.name), rules);
    let mut e = Emitter::new(&mut out, &format!("{t}.{}", entry.name), t);
    let params: Vec<InstId> = entry
        .params
        .iter()
        .map(|&p| {
            let inst = entry.inst(p);
            e.param(&inst.shape, &inst.name)
        })
        .collect();
    let mut tape = Tape {
        entries: Vec::new(),
        active: EntitySet::new(),
    };
    for &w in wrt {
        tape.active.insert(params[w]);
    }
    let y = forward(&mut e, m, m.entry, &params, &mut tape)?;
    e.at.clear();
    // The result's cotangent: parameters (vjp) or 1 (grad).
    let ct = if t == "grad" {
        match result {
            Shape::Tuple(es) => {
                let ty = es[0].element_type().ok_or_else(|| {
                    e.internal("grad of a tuple result that is not a scalar".into())
                })?;
                let one = e.scalar(ty, 1.0)?;
                e.tuple(&[one])?
            }
            _ => {
                let ty = e.ty(y)?;
                e.scalar(ty, 1.0)?
            }
        }
    } else {
        let mut leaves = Vec::new();
        result_leaves(result, &mut leaves);
        let ps: Vec<InstId> = leaves
            .iter()
            .enumerate()
            .map(|(i, s)| e.param(s, &format!("cotangent.{i}")))
            .collect();
        let mut it = ps.into_iter();
        build_tree(&mut e, result, &mut it)?
    };
    let mut cts: HashMap<InstId, Tan> = HashMap::new();
    cts.insert(y, Tan::Val(ct));
    backward(&mut e, m, &tape, &mut cts)?;
    e.at.clear();
    let mut grads = Vec::with_capacity(wrt.len());
    for &w in wrt {
        let p = params[w];
        let shape = e.shape(p).clone();
        let g = cts.get(&p).cloned().unwrap_or(Tan::Zero);
        let g = g.materialize(&mut e, &shape)?;
        // A tuple parameter's cotangent is returned as its leaves.
        flatten(&mut e, g, &mut grads)?;
    }
    let root = e.tuple(&grads)?;
    let c = e.finish(root);
    finish(out, c, t)
}

fn result_leaves<'s>(s: &'s Shape, out: &mut Vec<&'s Shape>) {
    match s {
        Shape::Tuple(t) => t.iter().for_each(|x| result_leaves(x, out)),
        s => out.push(s),
    }
}

fn build_tree(
    e: &mut Emitter,
    s: &Shape,
    leaves: &mut impl Iterator<Item = InstId>,
) -> Result<InstId, TransformError> {
    match s {
        Shape::Tuple(t) => {
            let parts = t
                .iter()
                .map(|x| build_tree(e, x, leaves))
                .collect::<Result<Vec<_>, _>>()?;
            e.tuple(&parts)
        }
        _ => leaves
            .next()
            .ok_or_else(|| e.internal("fewer cotangent parameters than result leaves".into())),
    }
}

/// Re-emits computation `c` on `args` (calls inlined), recording the
/// instructions that depend on an active value.
fn forward<'m>(
    e: &mut Emitter,
    m: &'m Module,
    c: CompId,
    args: &[InstId],
    tape: &mut Tape<'m>,
) -> Result<InstId, TransformError> {
    let comp = m.comp(c);
    let mut vals: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::new();
    for (id, inst) in comp.instructions.iter() {
        let ops: Vec<InstId> = inst
            .operands
            .iter()
            .map(|&o| vals[o].expect("operands come first (topological order)"))
            .collect();
        e.at = inst.name.clone();
        let r = match &inst.op {
            Op::Parameter { number } => args[*number as usize],
            Op::Call => forward(e, m, inst.called[0], &ops, tape)?,
            _ => {
                let y = e.reemit(inst, &ops)?;
                let active =
                    ops.iter().any(|&o| tape.active.contains(o)) && differentiable(&inst.shape);
                if active {
                    if let Op::CustomCall(cc) = &inst.op {
                        if e.out.rules.has(RuleKind::Vjp, &cc.target)
                            || crate::collective::is_boundary(&cc.target)
                        {
                            // Checked and called on the way back.
                        } else {
                            return Err(TransformError::MissingRule {
                                transform: e.transform,
                                instruction: inst.name.clone(),
                                target: cc.target.clone(),
                                rule: "vjp",
                            });
                        }
                    }
                    tape.active.insert(y);
                    tape.entries.push(Entry {
                        inst,
                        ops: ops.clone(),
                        out: y,
                    });
                }
                y
            }
        };
        vals[id] = Some(r);
    }
    Ok(vals[comp.root].expect("the root is an instruction"))
}

fn backward(
    e: &mut Emitter,
    m: &Module,
    tape: &Tape,
    cts: &mut HashMap<InstId, Tan>,
) -> Result<(), TransformError> {
    for entry in tape.entries.iter().rev() {
        let Some(ct) = cts.remove(&entry.out) else {
            continue;
        };
        if ct.is_zero() {
            continue;
        }
        let inst = entry.inst;
        e.at = format!("{}.vjp", inst.name);
        if let Some(why) = crate::collective::refusal(m, inst) {
            return Err(crate::unsupported(e.transform, inst, why));
        }
        let ops = &entry.ops;
        let operand_cts: Vec<Tan> = match &inst.op {
            _ if crate::collective::is_linear_collective(m, inst) => {
                let shape = inst.shape.clone();
                let c = ct.materialize(e, &shape)?;
                let cts = leaves(e, c)?;
                crate::collective::transpose(e, m, inst, ops, &cts)?
                    .into_iter()
                    .map(Tan::Val)
                    .collect()
            }
            Op::Tuple => (0..ops.len())
                .map(|i| ct.element(e, i))
                .collect::<Result<_, _>>()?,
            Op::GetTupleElement { index } => {
                let Shape::Tuple(parts) = e.shape(ops[0]).clone() else {
                    return Err(e.internal("get-tuple-element of an array".into()));
                };
                let mut t = vec![Tan::Zero; parts.len()];
                if let Some(slot) = t.get_mut(*index as usize) {
                    *slot = ct;
                }
                vec![Tan::Tuple(t)]
            }
            Op::OptimizationBarrier => vec![ct],
            Op::Sort {
                dimension,
                is_stable,
            } => {
                let perm = crate::rules::linear::sort_permutation(
                    e, m, inst, ops, *dimension, *is_stable,
                )?;
                let mut out = Vec::with_capacity(ops.len());
                for (k, &o) in ops.iter().enumerate() {
                    let ck = if ops.len() == 1 {
                        ct.clone()
                    } else {
                        ct.element(e, k)?
                    };
                    out.push(if ck.is_zero() || !differentiable(e.shape(o)) {
                        Tan::Zero
                    } else {
                        let s = e.shape(o).clone();
                        let c = ck.materialize(e, &s)?;
                        Tan::Val(crate::rules::linear::add_along(
                            e,
                            c,
                            perm,
                            *dimension,
                            &e.dims(c)?,
                        )?)
                    });
                }
                out
            }
            Op::Reduce { .. } if ops.len() != 4 && ops.len() > 2 => {
                // Variadic reduces that neither split nor are an argmax.
                return Err(crate::unsupported(
                    e.transform,
                    inst,
                    crate::rules::linear::ARGMAX_ONLY,
                ));
            }
            Op::Reduce { dimensions } if ops.len() == 4 => {
                // An argmax/argmin's value result: its cotangent goes to
                // the chosen element (the index result has none).
                if !crate::rules::linear::is_argmax(|x| e.inst(x), m, inst, ops) {
                    return Err(crate::unsupported(
                        e.transform,
                        inst,
                        crate::rules::linear::ARGMAX_ONLY,
                    ));
                }
                if tape.active.contains(ops[2]) {
                    return Err(crate::unsupported(
                        e.transform,
                        inst,
                        "an argmax/argmin whose initial value depends on the wrt parameters is not differentiated",
                    ));
                }
                let cv = ct.element(e, 0)?;
                let mut out = vec![Tan::Zero; 4];
                if !cv.is_zero() {
                    let Shape::Tuple(parts) = &inst.shape else {
                        return Err(e.internal("a variadic reduce of an array".into()));
                    };
                    let s = parts[0].clone();
                    let cv = cv.materialize(e, &s)?;
                    out[0] = Tan::Val(crate::rules::linear::argmax_transpose(
                        e,
                        ops[0],
                        entry.out,
                        cv,
                        dimensions[0],
                    )?);
                }
                out
            }
            Op::Scatter {
                unique_indices: false,
                ..
            } if ops.len() == 3
                && tape.active.contains(ops[2])
                && crate::rules::reducer_op(m, inst.called[0]) == Some(BinaryOp::Multiply) =>
            {
                return Err(crate::unsupported(
                    e.transform,
                    inst,
                    crate::rules::linear::SCATTER_MUL_UNIQUE,
                ));
            }
            Op::Conditional => {
                let shape = inst.shape.clone();
                let c = ct.materialize(e, &shape)?;
                vjp_conditional(e, m, inst, ops, c)?
            }
            Op::While => {
                let shape = inst.shape.clone();
                let c = ct.materialize(e, &shape)?;
                vec![Tan::Val(vjp_while(e, m, inst, ops[0], c)?)]
            }
            _ => {
                let shape = inst.shape.clone();
                let c = ct.materialize(e, &shape)?;
                let r: Vec<Option<InstId>> = match &inst.op {
                    Op::Unary(u) => {
                        let p = unary_partial(e, *u, ops[0], entry.out)?;
                        vec![p.transpose(e, c)?]
                    }
                    Op::Binary(b) => {
                        let (px, py) = binary_partials(e, *b, ops[0], ops[1], entry.out)?;
                        let mut r = vec![None, None];
                        if tape.active.contains(ops[0]) {
                            r[0] = px.transpose(e, c)?;
                        }
                        if tape.active.contains(ops[1]) {
                            r[1] = py.transpose(e, c)?;
                        }
                        r
                    }
                    Op::CustomCall(_) => {
                        let mut args = ops.clone();
                        let leaves = leaves(e, c)?;
                        args.extend(&leaves);
                        let operand_shapes: Vec<Shape> =
                            ops.iter().map(|&o| e.shape(o).clone()).collect();
                        let mut params = operand_shapes.clone();
                        params.extend(leaves.iter().map(|&l| e.shape(l).clone()));
                        let expected = ProgramShape {
                            parameters: params,
                            parameter_names: vec![],
                            result: Shape::Tuple(operand_shapes),
                        };
                        let r = call_rule(e, inst, RuleKind::Vjp, &args, &expected)?;
                        (0..ops.len())
                            .map(|k| e.gte(r, k).map(Some))
                            .collect::<Result<_, _>>()?
                    }
                    _ => transpose(e, m, inst, ops, entry.out, c)?,
                };
                r.into_iter()
                    .map(|x| x.map_or(Tan::Zero, Tan::Val))
                    .collect()
            }
        };
        for (k, t) in operand_cts.into_iter().enumerate() {
            let o = ops[k];
            if t.is_zero() || !tape.active.contains(o) {
                continue;
            }
            let shape = e.shape(o).clone();
            let prev = cts.remove(&o).unwrap_or(Tan::Zero);
            let sum = prev.add(t, e, &shape)?;
            cts.insert(o, sum);
        }
    }
    Ok(())
}

/// Each branch's vjp as a computation of `(operand, result cotangent)`
/// that recomputes the branch's forward pass and returns the cotangents
/// of every branch's operand (zeros but its own); one conditional picks
/// the branch the forward pass took.
fn vjp_conditional(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    ops: &[InstId],
    ct: InstId,
) -> Result<Vec<Tan>, TransformError> {
    let operand_shapes: Vec<Shape> = ops[1..].iter().map(|&o| e.shape(o).clone()).collect();
    let ct_shape = e.shape(ct).clone();
    let mut branches = Vec::with_capacity(inst.called.len());
    for (i, &c) in inst.called.iter().enumerate() {
        let comp = m.comp(c);
        if comp.params.len() != 1 {
            return Err(crate::unsupported(
                e.transform,
                inst,
                "a branch must take one parameter",
            ));
        }
        let transform = e.transform;
        let mut sub = Emitter::new(&mut *e.out, &format!("vjp.{}", comp.name), transform);
        let p = sub.param(
            &Shape::Tuple(vec![operand_shapes[i].clone(), ct_shape.clone()]),
            "operand_cotangent",
        );
        let g = pullback(&mut sub, m, c, p)?;
        let mut outs = Vec::with_capacity(operand_shapes.len());
        for (j, s) in operand_shapes.iter().enumerate() {
            outs.push(if j == i {
                g.materialize(&mut sub, s)?
            } else {
                sub.zeros(s)?
            });
        }
        let r = sub.tuple(&outs)?;
        branches.push(sub.finish(r));
    }
    let mut args = vec![ops[0]];
    for &o in &ops[1..] {
        args.push(e.tuple(&[o, ct])?);
    }
    let r = e.add(Op::Conditional, &args, &branches)?;
    let mut out = vec![Tan::Zero];
    for j in 0..operand_shapes.len() {
        out.push(Tan::Val(e.gte(r, j)?));
    }
    Ok(out)
}

/// The trip count of a loop in JAX's `fori_loop`/`scan` pattern: a counter
/// at tuple index `j` of the state that starts at a constant, the
/// condition `counter < constant` and the body's `counter + 1`.
fn trip_count(e: &Emitter, m: &Module, inst: &Instruction, init: InstId) -> Option<i64> {
    let (cond, body) = (m.comp(inst.called[0]), m.comp(inst.called[1]));
    let root = cond.root_inst();
    let Op::Compare {
        direction: hlox_hlo::ComparisonDirection::Lt,
        ..
    } = root.op
    else {
        return None;
    };
    let counter = cond.inst(root.operands[0]);
    let Op::GetTupleElement { index } = counter.op else {
        return None;
    };
    if counter.operands[0] != cond.params[0] {
        return None;
    }
    let limit = const_int(&cond.inst(root.operands[1]).op)?;
    // The body adds 1 to the counter.
    let broot = body.root_inst();
    if !matches!(broot.op, Op::Tuple) {
        return None;
    }
    let next = body.inst(*broot.operands.get(index as usize)?);
    if !matches!(next.op, Op::Binary(hlox_hlo::BinaryOp::Add)) {
        return None;
    }
    let (a, b) = (body.inst(next.operands[0]), body.inst(next.operands[1]));
    let step_ok = matches!(a.op, Op::GetTupleElement { index: i } if i == index && a.operands[0] == body.params[0])
        && const_int(&b.op) == Some(1);
    if !step_ok {
        return None;
    }
    // The counter starts at a constant.
    let init_inst = e.inst(init);
    if !matches!(init_inst.op, Op::Tuple) {
        return None;
    }
    let start = const_int(&e.inst(*init_inst.operands.get(index as usize)?).op)?;
    Some((limit - start).max(0))
}

fn const_int(op: &Op) -> Option<i64> {
    let Op::Constant { literal } = op else {
        return None;
    };
    let a = literal.as_array().ok()?;
    if a.element_count() != 1 {
        return None;
    }
    match a.ty() {
        hlox_hlo::ElementType::S32 => a.to_vec::<i32>().ok().map(|v| v[0] as i64),
        hlox_hlo::ElementType::S64 => a.to_vec::<i64>().ok().map(|v| v[0]),
        _ => None,
    }
}

/// A computation of `(x, cotangent of f(x))` that recomputes `f` (the
/// computation `c` of `m`, one parameter) and returns the cotangent of x.
fn vjp_computation(e: &mut Emitter, m: &Module, c: CompId) -> Result<CompId, TransformError> {
    let comp = m.comp(c);
    let xs = comp.inst(comp.params[0]).shape.clone();
    let ys = comp.root_inst().shape.clone();
    let transform = e.transform;
    let mut sub = Emitter::new(&mut *e.out, &format!("vjp.{}", comp.name), transform);
    sub.at = e.at.clone();
    let p = sub.param(&Shape::Tuple(vec![xs.clone(), ys]), "x_cotangent");
    let g = pullback(&mut sub, m, c, p)?.materialize(&mut sub, &xs)?;
    Ok(sub.finish(g))
}

/// The body of a computation's vjp: given `p = (x, cotangent of f(x))`
/// (`f` the one-parameter computation `c` of `m`), recomputes `f(x)` with
/// a tape and walks it back to the cotangent of `x`.
fn pullback(e: &mut Emitter, m: &Module, c: CompId, p: InstId) -> Result<Tan, TransformError> {
    let x = e.gte(p, 0)?;
    let c_in = e.gte(p, 1)?;
    let mut tape = Tape {
        entries: Vec::new(),
        active: EntitySet::new(),
    };
    tape.active.insert(x);
    let y = forward(e, m, c, &[x], &mut tape)?;
    let mut cts: HashMap<InstId, Tan> = HashMap::new();
    cts.insert(y, Tan::Val(c_in));
    backward(e, m, &tape, &mut cts)?;
    Ok(cts.remove(&x).unwrap_or(Tan::Zero))
}

/// Reverse mode of a loop with a known trip count T: a second forward
/// loop stores the state each iteration starts from (one stack per state
/// leaf), then a loop runs T..1 backwards through the body's vjp.
fn vjp_while(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    init: InstId,
    ct: InstId,
) -> Result<InstId, TransformError> {
    let Some(trips) = trip_count(e, m, inst, init) else {
        return Err(crate::unsupported(
            e.transform,
            inst,
            "reverse mode of a while loop needs the trip count to follow from its pattern (a counter from a constant, `counter < constant`, `counter + 1`: JAX's fori_loop and scan)",
        ));
    };
    let s = inst.shape.clone();
    let Shape::Tuple(leaves) = &s else {
        return Err(crate::unsupported(
            e.transform,
            inst,
            "the loop state must be a tuple",
        ));
    };
    if leaves.iter().any(|l| !l.is_array()) {
        return Err(crate::unsupported(
            e.transform,
            inst,
            "reverse mode of a loop whose state nests tuples is not supported yet",
        ));
    }
    if trips == 0 {
        return Ok(ct);
    }
    let body = inst.called[1];
    let s32 = hlox_hlo::ElementType::S32;
    let i32s = Shape::scalar(s32);
    let n = leaves.len();
    let stack_shapes: Vec<Shape> = leaves
        .iter()
        .map(|l| {
            let a = l.as_array().expect("array leaf");
            let mut d = vec![trips];
            d.extend(&a.dims);
            Shape::array(a.ty, d)
        })
        .collect();
    // Both loops below are flat and count `k` from 0 while `k < trips`,
    // one at a time: the pattern this function itself differentiates, so
    // reverse mode of their module works again (grad of grad, the vjp of a
    // grad of a fori_loop).
    let counted = |e: &mut Emitter, name: &str, shape: &Shape, k: usize| {
        state_computation(e, name, shape, |sub, p| {
            let k = sub.gte(p, k)?;
            let limit = sub.scalar(s32, trips as f64)?;
            sub.compare(hlox_hlo::ComparisonDirection::Lt, k, limit)
        })
    };
    // Forward loop storing each iteration's starting state:
    // (state leaves..., k, stacks...).
    let mut fwd_state = leaves.clone();
    fwd_state.push(i32s.clone());
    fwd_state.extend(stack_shapes.iter().cloned());
    let fwd_shape = Shape::Tuple(fwd_state);
    let fwd_cond = counted(e, "store.cond", &fwd_shape, n)?;
    let fwd_body = state_computation(e, "store.body", &fwd_shape, |sub, p| {
        let xs = (0..n)
            .map(|l| sub.gte(p, l))
            .collect::<Result<Vec<_>, _>>()?;
        let k = sub.gte(p, n)?;
        let zero = sub.scalar(s32, 0.0)?;
        let x = sub.tuple(&xs)?;
        let next = sub.add(Op::Call, &[x], &[body])?;
        let mut out = (0..n)
            .map(|l| sub.gte(next, l))
            .collect::<Result<Vec<_>, _>>()?;
        let one = sub.scalar(s32, 1.0)?;
        out.push(sub.addv(k, one)?);
        for (l, leaf) in leaves.iter().enumerate() {
            let stack = sub.gte(p, n + 1 + l)?;
            let mut d = vec![1];
            d.extend(&leaf.as_array().expect("array leaf").dims);
            let v = sub.reshape(xs[l], &d)?;
            let mut o = vec![stack, v, k];
            o.extend(std::iter::repeat_n(zero, d.len() - 1));
            out.push(sub.add(Op::DynamicUpdateSlice, &o, &[])?);
        }
        sub.tuple(&out)
    })?;
    let mut fwd_init = (0..n)
        .map(|l| e.gte(init, l))
        .collect::<Result<Vec<_>, _>>()?;
    fwd_init.push(e.scalar(s32, 0.0)?);
    for sh in &stack_shapes {
        fwd_init.push(e.zeros(sh)?);
    }
    let fwd_init = e.tuple(&fwd_init)?;
    let stored = e.add(Op::While, &[fwd_init], &[fwd_cond, fwd_body])?;
    // Backward loop: (k, cotangent leaves of the state, stacks...); step
    // k undoes iteration t = trips - 1 - k.
    let body_vjp = vjp_computation(e, m, body)?;
    let mut bwd_state = vec![i32s.clone()];
    bwd_state.extend(leaves.iter().cloned());
    bwd_state.extend(stack_shapes.iter().cloned());
    let bwd_shape = Shape::Tuple(bwd_state);
    let bwd_cond = counted(e, "reverse.cond", &bwd_shape, 0)?;
    let bwd_body = state_computation(e, "reverse.body", &bwd_shape, |sub, p| {
        let k = sub.gte(p, 0)?;
        let last = sub.scalar(s32, (trips - 1) as f64)?;
        let t = sub.sub(last, k)?;
        let cs = (0..n)
            .map(|l| sub.gte(p, 1 + l))
            .collect::<Result<Vec<_>, _>>()?;
        let c = sub.tuple(&cs)?;
        let zero = sub.scalar(s32, 0.0)?;
        let mut xs = Vec::with_capacity(n);
        let mut stacks = Vec::with_capacity(n);
        for (l, leaf) in leaves.iter().enumerate() {
            let stack = sub.gte(p, 1 + n + l)?;
            stacks.push(stack);
            let dims = leaf.as_array().expect("array leaf").dims.clone();
            let mut sizes = vec![1];
            sizes.extend(&dims);
            let mut o = vec![stack, t];
            o.extend(std::iter::repeat_n(zero, dims.len()));
            let v = sub.add(Op::DynamicSlice { sizes }, &o, &[])?;
            xs.push(sub.reshape(v, &dims)?);
        }
        let x = sub.tuple(&xs)?;
        let arg = sub.tuple(&[x, c])?;
        let c_prev = sub.add(Op::Call, &[arg], &[body_vjp])?;
        let one = sub.scalar(s32, 1.0)?;
        let mut out = vec![sub.addv(k, one)?];
        for l in 0..n {
            out.push(sub.gte(c_prev, l)?);
        }
        out.extend(stacks);
        sub.tuple(&out)
    })?;
    let mut bwd_init = vec![e.scalar(s32, 0.0)?];
    for l in 0..n {
        bwd_init.push(e.gte(ct, l)?);
    }
    for l in 0..n {
        bwd_init.push(e.gte(stored, n + 1 + l)?);
    }
    let bwd_init = e.tuple(&bwd_init)?;
    let r = e.add(Op::While, &[bwd_init], &[bwd_cond, bwd_body])?;
    let cs = (0..n)
        .map(|l| e.gte(r, 1 + l))
        .collect::<Result<Vec<_>, _>>()?;
    e.tuple(&cs)
}

/// A loop computation `name` of one parameter, `state` of shape `shape`,
/// whose root `root` builds from that parameter.
fn state_computation(
    e: &mut Emitter,
    name: &str,
    shape: &Shape,
    root: impl FnOnce(&mut Emitter, InstId) -> Result<InstId, TransformError>,
) -> Result<CompId, TransformError> {
    let mut sub = Emitter::new(&mut *e.out, name, e.transform);
    let state = sub.param(shape, "state");
    let r = root(&mut sub, state)?;
    Ok(sub.finish(r))
}
