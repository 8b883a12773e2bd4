//! Constant folding with the reference evaluator.

use crate::util::Rebuild;
use crate::{Pass, PassError};
use hlox_hlo::{CompId, Computation, EntityRef, InstId, Instruction, Module, Op, PrimaryMap};

/// Replaces an instruction whose operands are all constants by the constant
/// the evaluator (`hlox_eval`) computes for it, when the result is an array
/// of at most `max_elements` elements. Never folded: parameters, custom
/// calls, rng-bit-generator, after-all, opt-barrier, tuples, while loops,
/// and broadcasts (XLA keeps `broadcast(constant)`: folding it would only
/// make a large constant; [`crate::AlgebraicSimplifier`] turns small
/// broadcasts of scalars into constants). Zero-operand `iota` is folded
/// like any other instruction. An instruction the evaluator rejects is left
/// alone.
#[derive(Clone, Copy, Debug)]
pub struct ConstantFolding {
    pub max_elements: usize,
}

impl Default for ConstantFolding {
    fn default() -> Self {
        ConstantFolding { max_elements: 1024 }
    }
}

fn foldable(inst: &Instruction) -> bool {
    !matches!(
        inst.op,
        Op::Parameter { .. }
            | Op::Constant { .. }
            | Op::CustomCall(_)
            | Op::RngBitGenerator { .. }
            | Op::AfterAll
            | Op::OptimizationBarrier
            | Op::Tuple
            | Op::While
            | Op::Broadcast { .. }
    ) && inst.shape.is_array()
}

/// Evaluates `inst` (operands already in `arena`, all constants) in a
/// one-instruction module holding copies of the computations it calls.
fn evaluate(
    m: &Module,
    arena: &PrimaryMap<InstId, Instruction>,
    inst: &Instruction,
) -> Option<hlox_hlo::Literal> {
    // Computations transitively called, in module (post) order.
    let mut need = vec![false; m.computations.len()];
    let mut stack: Vec<CompId> = inst.called.clone();
    while let Some(c) = stack.pop() {
        if c.index() >= need.len() || need[c.index()] {
            continue;
        }
        need[c.index()] = true;
        for i in m.computations[c].instructions.values() {
            stack.extend(i.called.iter().copied());
        }
    }
    let mut remap: Vec<Option<CompId>> = vec![None; need.len()];
    let mut mini = Module {
        name: "fold".into(),
        computations: PrimaryMap::new(),
        entry: CompId::new(0),
        input_output_alias: vec![],
        is_scheduled: false,
    };
    for (id, c) in m.computations.iter() {
        if !need[id.index()] {
            continue;
        }
        let mut c = c.clone();
        for i in c.instructions.values_mut() {
            for callee in i.called.iter_mut() {
                *callee = remap[callee.index()]?;
            }
        }
        remap[id.index()] = Some(mini.computations.push(c));
    }
    let mut body: PrimaryMap<InstId, Instruction> = PrimaryMap::new();
    let mut omap: Vec<(InstId, InstId)> = Vec::new();
    let mut top = inst.clone();
    for o in top.operands.iter_mut() {
        let n = match omap.iter().find(|(a, _)| a == o) {
            Some(&(_, n)) => n,
            None => {
                let n = body.push(arena[*o].clone());
                omap.push((*o, n));
                n
            }
        };
        *o = n;
    }
    for callee in top.called.iter_mut() {
        *callee = remap[callee.index()]?;
    }
    let root = body.push(top);
    mini.entry = mini.computations.push(Computation {
        name: "fold_entry".into(),
        instructions: body,
        params: vec![],
        root,
        execution_thread: None,
    });
    let lit = hlox_eval::evaluate(&mini, &[], &hlox_eval::NoCustomCalls).ok()?;
    (lit.shape() == inst.shape).then_some(lit)
}

impl Pass for ConstantFolding {
    fn name(&self) -> &'static str {
        "constant-folding"
    }

    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        crate::util::check_structure(m, self.name())?;
        let mut changed = false;
        let ids: Vec<CompId> = m.computations.keys().collect();
        for cid in ids {
            let c = &m.computations[cid];
            let mut rb = Rebuild::new(c);
            let mut any = false;
            for (id, old) in c.instructions.iter() {
                let inst = rb.remapped(id).ok_or_else(|| PassError::Instruction {
                    pass: "constant-folding",
                    computation: c.name.clone(),
                    instruction: old.name.clone(),
                    message: "an operand is not defined before its use".into(),
                })?;
                let small = inst
                    .shape
                    .as_array()
                    .is_some_and(|a| a.element_count() <= self.max_elements);
                let all_const = inst
                    .operands
                    .iter()
                    .all(|&o| matches!(rb.new[o].op, Op::Constant { .. }));
                let folded = if small && all_const && foldable(&inst) {
                    evaluate(m, &rb.new, &inst)
                } else {
                    None
                };
                let n = match folded {
                    Some(literal) => {
                        any = true;
                        let mut k = inst;
                        k.op = Op::Constant { literal };
                        k.operands.clear();
                        k.called.clear();
                        k.backend_config = None;
                        rb.push(k)
                    }
                    None => rb.push(inst),
                };
                rb.map[id.index()] = Some(n);
            }
            if !any {
                continue;
            }
            let name = c.name.clone();
            let new = rb.finish().map_err(|message| PassError::Instruction {
                pass: "constant-folding",
                computation: name,
                instruction: String::new(),
                message,
            })?;
            m.computations[cid] = new;
            changed = true;
        }
        Ok(changed)
    }
}
