//! Custom-call layouts: copies that put each custom call's buffers in the
//! layouts its target is promised (XLA's layout assignment for custom
//! calls, [`hlox_hlo::CustomCall::buffer_shapes`]).

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
/// Tuples are taken apart with `get-tuple-element`, copied leaf by leaf and
/// put together again. Both compilers run this pass even without the
/// optimizing pipeline: their emitters rely on it.
#[derive(Clone, Copy, Debug, Default)]
pub struct CustomCallLayouts;

impl Pass for CustomCallLayouts {
    fn name(&self) -> &'static str {
        "custom-call-layouts"
    }

    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        crate::util::check_structure(m, self.name())?;
        let mut names = NameUniquer::instructions(m);
        let mut changed = false;
        let ids: Vec<CompId> = m.computations.keys().collect();
        for cid in ids {
            let c = &m.computations[cid];
            if !c.instructions.values().any(|i| needs_copies(c, i)) {
                continue;
            }
            let new = relayout_computation(c, &mut names)?;
            m.computations[cid] = new;
            changed = true;
        }
        Ok(changed)
    }
}

/// Whether custom call `inst` of `c` has a buffer in the wrong layout.
fn needs_copies(c: &Computation, inst: &Instruction) -> bool {
    let Op::CustomCall(cc) = &inst.op else {
        return false;
    };
    let ops: Vec<&Shape> = inst.operands.iter().map(|&o| &c.inst(o).shape).collect();
    let (want_ops, want_res) = cc.buffer_shapes(&ops, &inst.shape);
    want_res != inst.shape || ops.iter().zip(&want_ops).any(|(s, w)| *s != w)
}

fn relayout_computation(c: &Computation, names: &mut NameUniquer) -> Result<Computation, PassError> {
    let err = |instruction: &str, message: String| PassError::Instruction {
        pass: "custom-call-layouts",
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
        if let Op::CustomCall(cc) = &inst.op {
            let ops: Vec<Shape> = inst.operands.iter().map(|&o| rb.new[o].shape.clone()).collect();
            let refs: Vec<&Shape> = ops.iter().collect();
            let (want_ops, want_res) = cc.buffer_shapes(&refs, &inst.shape);
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
            Ok(rb.push(Instruction::new(names.fresh(base), Op::Tuple, to.clone(), elems)))
        }
        _ => Ok(rb.push(Instruction::new(names.fresh(base), Op::Copy, to.clone(), vec![value]))),
    }
}
