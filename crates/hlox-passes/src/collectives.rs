//! Collectives on one device. hlox runs a module on one device (one replica,
//! one partition), so every collective has a single participant and means
//! a copy or a constant. Shape inference has already rejected replica
//! groups and source-target pairs that name any other device.

use crate::util::{NameUniquer, Rebuild};
use crate::{Pass, PassError};
use hlox_hlo::{CompId, Computation, EntityRef, Instruction, Literal, Module, Op, Shape};

/// Rewrites each collective to what it computes on one device:
///
/// - `all-reduce`, `all-gather`, `reduce-scatter`, `all-to-all` and
///   `collective-broadcast`: a `copy` of the operand (a tuple of copies for
///   the variadic forms), since the only participant reduces, gathers or
///   exchanges with itself;
/// - `collective-permute`: a `copy` when a pair sends device 0 to itself,
///   else zeros (a device no pair targets gets zeros);
/// - `replica-id` and `partition-id`: the constant `u32[] 0`.
///
/// The copies keep the declared result layouts; algebraic simplification
/// drops those that change nothing. Both compilers run this pass even
/// without the optimizing pipeline: no backend emits collectives.
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleDeviceCollectives;

impl Pass for SingleDeviceCollectives {
    fn name(&self) -> &'static str {
        "single-device-collectives"
    }

    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        crate::util::check_structure(m, self.name())?;
        let mut names = NameUniquer::instructions(m);
        let mut changed = false;
        let ids: Vec<CompId> = m.computations.keys().collect();
        for cid in ids {
            let c = &m.computations[cid];
            if !c.instructions.values().any(|i| i.op.is_collective()) {
                continue;
            }
            m.computations[cid] = rewrite(c, &mut names)?;
            changed = true;
        }
        Ok(changed)
    }
}

fn rewrite(c: &Computation, names: &mut NameUniquer) -> Result<Computation, PassError> {
    let err = |instruction: &str, message: String| PassError::Instruction {
        pass: "single-device-collectives",
        computation: c.name.clone(),
        instruction: instruction.to_string(),
        message,
    };
    let mut rb = Rebuild::new(c);
    for (id, old) in c.instructions.iter() {
        let mut inst = rb
            .remapped(id)
            .ok_or_else(|| err(&old.name, "an operand is not defined before its use".into()))?;
        if inst.op.is_collective() {
            inst.called.clear();
            let zero = match &inst.op {
                Op::ReplicaId | Op::PartitionId => true,
                Op::CollectivePermute {
                    source_target_pairs,
                    ..
                } => !source_target_pairs.iter().any(|&(_, t)| t == 0),
                _ => false,
            };
            if zero {
                let Shape::Array(a) = &inst.shape else {
                    return Err(err(&old.name, "expected an array result".into()));
                };
                let scalar = Shape::scalar(a.ty);
                let literal = Literal::zeros(&scalar)
                    .map_err(|e| err(&old.name, format!("zero of {}: {e}", a.ty)))?;
                inst.operands.clear();
                if a.dims.is_empty() {
                    inst.op = Op::Constant { literal };
                } else {
                    let k = rb.push(Instruction::new(
                        names.fresh(&format!("{}.zero", old.name)),
                        Op::Constant { literal },
                        scalar,
                        vec![],
                    ));
                    inst.op = Op::Broadcast { dimensions: vec![] };
                    inst.operands = vec![k];
                }
            } else if let Some(leaves) = inst.shape.tuple_elements() {
                // Variadic forms: a copy per operand, then the tuple.
                if leaves.len() != inst.operands.len() {
                    return Err(err(
                        &old.name,
                        format!(
                            "{} operands for a {}-element result",
                            inst.operands.len(),
                            leaves.len()
                        ),
                    ));
                }
                for (k, leaf) in leaves.iter().cloned().enumerate() {
                    let copy = Instruction::new(
                        names.fresh(&format!("{}.{k}", old.name)),
                        Op::Copy,
                        leaf,
                        vec![inst.operands[k]],
                    );
                    inst.operands[k] = rb.push(copy);
                }
                inst.op = Op::Tuple;
            } else {
                if inst.operands.len() != 1 {
                    return Err(err(
                        &old.name,
                        format!("expected one operand, found {}", inst.operands.len()),
                    ));
                }
                inst.op = Op::Copy;
            }
        }
        let n = rb.push(inst);
        rb.map[id.index()] = Some(n);
    }
    rb.finish().map_err(|m| err("", m))
}
