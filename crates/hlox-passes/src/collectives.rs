//! Collectives on one device. hlox runs a module on one device (one replica,
//! one partition), so every collective has a single participant and means
//! a copy or a constant. A collective that names another device is refused
//! here (`hlox_hlo::sharding::check_one_device`): a multi-device run
//! lowers collectives before this pass (`spmd.rs`).

use crate::rewrite::{
    local_rewrite_pass, FreshNames, NamingRewrite, RewriteError, Rewritten, Site,
};
use crate::util::NameUniquer;
use hlox_hlo::edit::{Cursor, NewInst};
use hlox_hlo::{InstId, Instruction, Literal, Op, Shape};

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

local_rewrite_pass!(SingleDeviceCollectives => FreshNames<SingleDeviceCollectives>);

impl NamingRewrite for SingleDeviceCollectives {
    const NAME: &'static str = "single-device-collectives";
    type State = ();

    fn concerns(i: &Instruction) -> bool {
        i.op.is_collective()
    }

    fn rewrite(names: &mut NameUniquer, site: Site<'_, '_, ()>, id: InstId) -> Rewritten {
        let Site { ed, .. } = site;
        let inst = ed.inst(id);
        let name = inst.name.clone();
        if let Err(e) = hlox_hlo::sharding::check_one_device(&inst.op) {
            return Err(RewriteError::at(&name, e.to_string()));
        }
        let operands = inst.operands.clone();
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
                return Err(RewriteError::at(&name, "expected an array result"));
            };
            let rank = a.rank();
            let literal = Literal::zeros(&Shape::scalar(a.ty))
                .map_err(|e| RewriteError::at(&name, format!("zero of {}: {e}", a.ty)))?;
            if rank == 0 {
                ed.rewrite(id, Op::Constant { literal }, vec![], vec![])?;
            } else {
                let zero = NewInst::new(
                    names.fresh(&format!("{name}.zero")),
                    Op::Constant { literal },
                    vec![],
                );
                let k = ed.insert(Cursor::Before(id), zero)?;
                ed.rewrite(id, Op::Broadcast { dimensions: vec![] }, vec![k], vec![])?;
            }
        } else if let Some(leaves) = inst.shape.tuple_elements() {
            // Variadic forms: a copy per operand, then the tuple.
            if leaves.len() != operands.len() {
                return Err(RewriteError::at(
                    &name,
                    format!(
                        "{} operands for a {}-element result",
                        operands.len(),
                        leaves.len()
                    ),
                ));
            }
            let leaves = leaves.to_vec();
            let mut copies = Vec::with_capacity(leaves.len());
            for (k, leaf) in leaves.iter().enumerate() {
                let copy = NewInst::new(
                    names.fresh(&format!("{name}.{k}")),
                    Op::Copy,
                    vec![operands[k]],
                );
                let copy = ed.insert(Cursor::Before(id), copy)?;
                ed.set_layout(copy, leaf)?;
                copies.push(copy);
            }
            ed.rewrite(id, Op::Tuple, copies, vec![])?;
        } else {
            if operands.len() != 1 {
                return Err(RewriteError::at(
                    &name,
                    format!("expected one operand, found {}", operands.len()),
                ));
            }
            ed.rewrite(id, Op::Copy, operands, vec![])?;
        }
        Ok(())
    }
}
