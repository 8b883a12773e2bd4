//! Common subexpression elimination.

use crate::util::{has_side_effect, Rebuild};
use crate::{Pass, PassError};
use hlox_hlo::{CompId, EntityRef, InstId, Instruction, Module, Op};
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Merges identical instructions of one computation: same opcode and
/// attributes, same operands, same shape (layout included), same called
/// computations, same sharding, frontend attributes and backend config
/// (metadata is ignored). Constants with equal literals (bit for bit) merge.
/// Never merged: parameters, side-effecting custom calls,
/// rng-bit-generator, after-all. The first instruction survives with its
/// name; later duplicates are dropped and their uses redirected.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cse;

fn mergeable(inst: &Instruction) -> bool {
    !(has_side_effect(inst)
        || matches!(
            inst.op,
            Op::Parameter { .. } | Op::RngBitGenerator { .. } | Op::AfterAll
        ))
}

fn key(inst: &Instruction) -> u64 {
    let mut h = DefaultHasher::new();
    inst.op.name().hash(&mut h);
    inst.shape.hash(&mut h);
    inst.operands.hash(&mut h);
    inst.called.hash(&mut h);
    if let Op::Constant { literal } = &inst.op {
        if let Ok(a) = literal.as_array() {
            a.bytes().hash(&mut h);
        }
    }
    h.finish()
}

fn same(a: &Instruction, b: &Instruction) -> bool {
    a.op == b.op
        && a.shape == b.shape
        && a.operands == b.operands
        && a.called == b.called
        && a.sharding == b.sharding
        && a.frontend_attributes == b.frontend_attributes
        && a.backend_config == b.backend_config
}

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        crate::util::check_structure(m, self.name())?;
        let mut changed = false;
        let ids: Vec<CompId> = m.computations.keys().collect();
        for cid in ids {
            let c = &m.computations[cid];
            let mut rb = Rebuild::new(c);
            let mut table: HashMap<u64, Vec<InstId>> = HashMap::new();
            let mut merged = false;
            for (id, old) in c.instructions.iter() {
                let inst = rb.remapped(id).ok_or_else(|| PassError::Instruction {
                    pass: "cse",
                    computation: c.name.clone(),
                    instruction: old.name.clone(),
                    message: "an operand is not defined before its use".into(),
                })?;
                if mergeable(&inst) {
                    let k = key(&inst);
                    if let Some(prev) = table
                        .get(&k)
                        .and_then(|v| v.iter().find(|&&p| same(&rb.new[p], &inst)))
                    {
                        rb.map[id.index()] = Some(*prev);
                        merged = true;
                        continue;
                    }
                    let n = rb.push(inst);
                    table.entry(k).or_default().push(n);
                    rb.map[id.index()] = Some(n);
                } else {
                    let n = rb.push(inst);
                    rb.map[id.index()] = Some(n);
                }
            }
            if !merged {
                continue;
            }
            let name = c.name.clone();
            let new = rb.finish().map_err(|message| PassError::Instruction {
                pass: "cse",
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
