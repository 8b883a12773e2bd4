//! Constant folding with the reference evaluator.

use crate::rewrite::{local_rewrite_pass, LocalRewrite, Rewritten, Site};
use crate::PassError;
use hlox_hlo::edit::Editor;
use hlox_hlo::{
    CompId, Computation, EntityRef, EntitySet, InstId, Instruction, Module, Op, PrimaryMap,
    SecondaryMap,
};

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

/// Evaluates `inst` (its operands, in `ed`, all constants) in a
/// one-instruction module holding copies of the computations it calls.
fn evaluate(m: &Module, ed: &Editor, inst: &Instruction) -> Option<hlox_hlo::Literal> {
    // Computations transitively called, in module (post) order.
    let mut need: EntitySet<CompId> = EntitySet::new();
    let mut stack: Vec<CompId> = inst.called.clone();
    while let Some(c) = stack.pop() {
        if !m.computations.is_valid(c) || !need.insert(c) {
            continue;
        }
        for i in m.computations[c].instructions.values() {
            stack.extend(i.called.iter().copied());
        }
    }
    let mut remap: SecondaryMap<CompId, Option<CompId>> = SecondaryMap::new();
    let mut mini = Module {
        name: "fold".into(),
        computations: PrimaryMap::new(),
        entry: CompId::new(0),
        input_output_alias: vec![],
        is_scheduled: false,
        frontend_attributes: Vec::new(),
    };
    for id in need.iter() {
        let mut c = m.computations[id].clone();
        for i in c.instructions.values_mut() {
            for callee in i.called.iter_mut() {
                *callee = remap[*callee]?;
            }
        }
        remap[id] = Some(mini.computations.push(c));
    }
    let mut body: PrimaryMap<InstId, Instruction> = PrimaryMap::new();
    let mut omap: Vec<(InstId, InstId)> = Vec::new();
    let mut top = inst.clone();
    for o in top.operands.iter_mut() {
        let n = match omap.iter().find(|(a, _)| a == o) {
            Some(&(_, n)) => n,
            None => {
                let n = body.push(ed.inst(*o).clone());
                omap.push((*o, n));
                n
            }
        };
        *o = n;
    }
    for callee in top.called.iter_mut() {
        *callee = remap[*callee]?;
    }
    let root = body.push(top);
    mini.entry = mini.computations.push(Computation {
        name: "fold_entry".into(),
        instructions: body,
        params: vec![],
        root,
        execution_thread: None,
    });
    // Per-op rounding: the pipeline has applied the excess-precision rule
    // already where the options ask for it (one instruction on constants
    // has no convert user in `mini` anyway).
    let lit = hlox_eval::evaluate_with_rounding(
        &mini,
        &[],
        &hlox_eval::NoCustomCalls,
        &Default::default(),
        hlox_eval::HalfRounding::EveryOp,
    )
    .ok()?;
    (lit.shape() == inst.shape).then_some(lit)
}

/// The local rewrite: an instruction of constants becomes a constant.
impl LocalRewrite for ConstantFolding {
    const NAME: &'static str = "constant-folding";
    type Pass = ConstantFolding;
    type State = ();

    fn start(pass: &ConstantFolding, _: &mut Module) -> Result<ConstantFolding, PassError> {
        Ok(*pass)
    }

    fn begin(&mut self, _: &Module, _: CompId, _: &Computation) -> Option<()> {
        Some(())
    }

    fn rewrite(&mut self, site: Site<'_, '_, Self::State>, id: InstId) -> Rewritten {
        let Site { module: m, ed, .. } = site;
        let inst = ed.inst(id);
        let small = inst
            .shape
            .as_array()
            .is_some_and(|a| a.element_count() <= self.max_elements);
        let all_const = inst
            .operands
            .iter()
            .all(|&o| matches!(ed.inst(o).op, Op::Constant { .. }));
        if !(small && all_const && foldable(inst)) {
            return Ok(());
        }
        if let Some(literal) = evaluate(m, ed, inst) {
            ed.rewrite(id, Op::Constant { literal }, vec![], vec![])?;
            ed.set_backend_config(id, None)?;
        }
        Ok(())
    }
}

local_rewrite_pass!(ConstantFolding => ConstantFolding);
