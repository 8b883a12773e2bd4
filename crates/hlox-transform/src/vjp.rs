//! Reverse mode: the forward pass is re-emitted (calls inlined) while a
//! tape records each instruction that depends on a `wrt` parameter; the
//! tape is then walked backwards, each entry turning its result's
//! cotangent into its operands' by the opcode's rule (element-wise
//! partials from [`crate::rules::elementwise`], transposes from
//! [`crate::rules::linear`]).

use crate::custom::{call_rule, Kind, Rules};
use crate::emit::{Emitter, Out};
use crate::jvp::flatten;
use crate::rules::elementwise::{binary_partials, unary_partial};
use crate::rules::linear::transpose;
use crate::tan::{differentiable, Tan};
use crate::{check_input, check_wrt, finish, TransformError};
use hlox_hlo::ir::{CompId, InstId, Instruction, Module, Op};
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
    check_input(m, t)?;
    check_wrt(m, wrt, t)?;
    let entry = m.entry_computation();
    let result = &entry.root_inst().shape;
    if t == "grad" {
        let ok = matches!(result, Shape::Array(a) if a.rank() == 0 && a.ty.is_float());
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
        let ty = e.ty(y)?;
        e.scalar(ty, 1.0)?
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
        let mut leaves = Vec::new();
        flatten(&mut e, g, &mut leaves)?;
        grads.extend(leaves);
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
                        if e.out.rules.has_vjp(&cc.target) {
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
        let ops = &entry.ops;
        let operand_cts: Vec<Tan> = match &inst.op {
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
            Op::Conditional => {
                let shape = inst.shape.clone();
                let c = ct.materialize(e, &shape)?;
                vjp_conditional(e, m, inst, ops, c)?
            }
            _ => {
                let shape = inst.shape.clone();
                let c = ct.materialize(e, &shape)?;
                let r: Vec<Option<InstId>> = match &inst.op {
                    Op::Unary(u) => {
                        let p = unary_partial(e, *u, ops[0], entry.out)?;
                        vec![p.apply(e, c)?]
                    }
                    Op::Binary(b) => {
                        let (px, py) = binary_partials(e, *b, ops[0], ops[1], entry.out)?;
                        let mut r = vec![None, None];
                        if tape.active.contains(ops[0]) {
                            r[0] = px.apply(e, c)?;
                        }
                        if tape.active.contains(ops[1]) {
                            r[1] = py.apply(e, c)?;
                        }
                        r
                    }
                    Op::CustomCall(_) => {
                        let mut args = ops.clone();
                        let mut leaves = Vec::new();
                        flatten(e, c, &mut leaves)?;
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
                        let r = call_rule(e, inst, Kind::Vjp, &args, &expected)?;
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
        let x = sub.gte(p, 0)?;
        let c_in = sub.gte(p, 1)?;
        let mut tape = Tape {
            entries: Vec::new(),
            active: EntitySet::new(),
        };
        tape.active.insert(x);
        let y = forward(&mut sub, m, c, &[x], &mut tape)?;
        let mut cts: HashMap<InstId, Tan> = HashMap::new();
        cts.insert(y, Tan::Val(c_in));
        backward(&mut sub, m, &tape, &mut cts)?;
        let mut outs = Vec::with_capacity(operand_shapes.len());
        for (j, s) in operand_shapes.iter().enumerate() {
            outs.push(if j == i {
                cts.get(&x)
                    .cloned()
                    .unwrap_or(Tan::Zero)
                    .materialize(&mut sub, s)?
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
