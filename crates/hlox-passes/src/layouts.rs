//! Layouts at boundaries: copies that put each custom call's buffers in the
//! layouts its target is promised (XLA's layout assignment for custom
//! calls, [`hlox_hlo::CustomCall::buffer_shapes`]), and each `call`'s
//! arguments and result in the layouts of the called computation.

use crate::util::{NameUniquer, Rebuild};
use crate::{Pass, PassError};
use hlox_hlo::{CompId, Computation, EntityRef, InstId, Instruction, Module, Op, Shape};

/// Relays out custom-call operands and results:
///
/// - an operand whose layout differs from the call's
///   `operand_layout_constraints` entry (or, without constraints, from the
///   default layout) is replaced by a `copy` in that layout;
/// - an unconstrained call whose result is not in the default layout gets
///   the default layout, and a `copy` after it restores the declared one.
///
/// - a `call` argument whose layout differs from the called computation's
///   parameter is copied to that layout, and a called computation whose
///   root layout differs from the `call`'s shape gets a `copy` after the
///   call (JAX's modules pass, say, a transpose laid out `{1,2,0}` to a
///   computation whose parameter is `{2,1,0}`; inlining makes this moot,
///   but the compilers also run without it).
///
/// Tuples are taken apart with `get-tuple-element`, copied leaf by leaf and
/// put together again. Both compilers run this pass even without the
/// optimizing pipeline: their emitters rely on it.
#[derive(Clone, Copy, Debug, Default)]
pub struct BoundaryLayouts;

impl Pass for BoundaryLayouts {
    fn name(&self) -> &'static str {
        "boundary-layouts"
    }

    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        crate::util::check_structure(m, self.name())?;
        let mut names = NameUniquer::instructions(m);
        // What each computation expects and gives: (parameters, root).
        let sigs: Sigs = m
            .computations
            .iter()
            .map(|(id, c)| {
                let params = c.params.iter().map(|&p| c.inst(p).shape.clone()).collect();
                (id, (params, c.inst(c.root).shape.clone()))
            })
            .collect();
        let mut changed = false;
        let ids: Vec<CompId> = m.computations.keys().collect();
        for cid in ids {
            let c = &m.computations[cid];
            if !c
                .instructions
                .values()
                .any(|i| wanted(c, i, &sigs).is_some())
            {
                continue;
            }
            let new = relayout_computation(c, &mut names, &sigs)?;
            m.computations[cid] = new;
            changed = true;
        }
        Ok(changed)
    }
}

type Sigs = std::collections::HashMap<CompId, (Vec<Shape>, Shape)>;

/// The operand shapes and result shape `inst` must have, when they differ
/// from what it has: a custom call's buffer layouts, a `call`'s callee's.
fn wanted_shapes(ops: &[&Shape], inst: &Instruction, sigs: &Sigs) -> Option<(Vec<Shape>, Shape)> {
    let (want_ops, want_res) = match &inst.op {
        Op::CustomCall(cc) => cc.buffer_shapes(ops, &inst.shape),
        Op::Call => {
            let (params, root) = sigs.get(inst.called.first()?)?;
            if params.len() != ops.len() {
                return None; // the verifier's business
            }
            (params.clone(), root.clone())
        }
        _ => return None,
    };
    let same = want_res == inst.shape && ops.iter().zip(&want_ops).all(|(s, w)| *s == w);
    (!same).then_some((want_ops, want_res))
}

fn wanted(c: &Computation, inst: &Instruction, sigs: &Sigs) -> Option<(Vec<Shape>, Shape)> {
    let ops: Vec<&Shape> = inst.operands.iter().map(|&o| &c.inst(o).shape).collect();
    wanted_shapes(&ops, inst, sigs)
}

fn relayout_computation(
    c: &Computation,
    names: &mut NameUniquer,
    sigs: &Sigs,
) -> Result<Computation, PassError> {
    let err = |instruction: &str, message: String| PassError::Instruction {
        pass: "boundary-layouts",
        computation: c.name.clone(),
        instruction: instruction.to_string(),
        message,
    };
    let mut rb = Rebuild::new(c);
    for (id, old) in c.instructions.iter() {
        let mut inst = rb
            .remapped(id)
            .ok_or_else(|| err(&old.name, "an operand is not defined before its use".into()))?;
        let mut restore = None;
        let ops: Vec<Shape> = inst
            .operands
            .iter()
            .map(|&o| rb.new[o].shape.clone())
            .collect();
        let refs: Vec<&Shape> = ops.iter().collect();
        if let Some((want_ops, want_res)) = wanted_shapes(&refs, &inst, sigs) {
            for (k, want) in want_ops.iter().enumerate() {
                if ops[k] != *want {
                    let base = format!("{}.operand{k}.relayout", old.name);
                    inst.operands[k] = relayout(&mut rb, names, inst.operands[k], want, &base)
                        .map_err(|m| err(&old.name, format!("operand {k}: {m}")))?;
                }
            }
            if want_res != inst.shape {
                restore = Some(std::mem::replace(&mut inst.shape, want_res));
            }
        }
        let mut n = rb.push(inst);
        if let Some(declared) = restore {
            let base = format!("{}.relayout", old.name);
            n = relayout(&mut rb, names, n, &declared, &base)
                .map_err(|m| err(&old.name, format!("result: {m}")))?;
        }
        rb.map[id.index()] = Some(n);
    }
    rb.finish().map_err(|m| err("", m))
}

/// `value` in shape `to` (same dimensions, other layouts): a `copy` per
/// array leaf whose layout differs.
fn relayout(
    rb: &mut Rebuild,
    names: &mut NameUniquer,
    value: InstId,
    to: &Shape,
    base: &str,
) -> Result<InstId, String> {
    let from = rb.new[value].shape.clone();
    if from == *to {
        return Ok(value);
    }
    if !from.compatible(to) {
        return Err(format!(
            "shape {} cannot be relaid out to {}",
            hlox_hlo::text::shape_to_string(&from),
            hlox_hlo::text::shape_to_string(to)
        ));
    }
    match (&from, to) {
        (Shape::Tuple(fe), Shape::Tuple(te)) => {
            let mut elems = Vec::with_capacity(te.len());
            for (i, (f, t)) in fe.iter().zip(te).enumerate() {
                let gte = rb.push(Instruction::new(
                    names.fresh(&format!("{base}.gte{i}")),
                    Op::GetTupleElement { index: i as i64 },
                    f.clone(),
                    vec![value],
                ));
                elems.push(relayout(rb, names, gte, t, base)?);
            }
            Ok(rb.push(Instruction::new(
                names.fresh(base),
                Op::Tuple,
                to.clone(),
                elems,
            )))
        }
        _ => Ok(rb.push(Instruction::new(
            names.fresh(base),
            Op::Copy,
            to.clone(),
            vec![value],
        ))),
    }
}
