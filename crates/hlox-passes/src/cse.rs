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
/// Called computations compare by structure, not identity: JAX emits one
/// reducer region per reduce, so two `reduce(x)` with identical `region_N`
/// computations merge.
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

/// For every computation, the first computation (lowest id) with the same
/// structure: the same parameters, instructions (opcode, attributes,
/// shapes, operands by position, called computations by structure) and
/// root; names and metadata do not count.
pub(crate) fn canonical_computations(m: &Module) -> Vec<CompId> {
    let n = m.computations.len();
    let mut canon: Vec<Option<CompId>> = vec![None; n];
    fn resolve(m: &Module, c: CompId, canon: &mut Vec<Option<CompId>>, depth: usize) -> CompId {
        if let Some(k) = canon.get(c.index()).copied().flatten() {
            return k;
        }
        // Callees first (bounded depth: a malformed cyclic module stays as is).
        if depth < 64 {
            for inst in m.computations[c].instructions.values() {
                for &callee in &inst.called {
                    if callee.index() < canon.len() && callee != c {
                        resolve(m, callee, canon, depth + 1);
                    }
                }
            }
        }
        let mut found = c;
        for k in 0..c.index() {
            let kid = CompId::new(k);
            if canon[k] == Some(kid) && same_structure(m, kid, c, canon) {
                found = kid;
                break;
            }
        }
        canon[c.index()] = Some(found);
        found
    }
    for c in m.computations.keys() {
        resolve(m, c, &mut canon, 0);
    }
    canon
        .into_iter()
        .enumerate()
        .map(|(i, k)| k.unwrap_or(CompId::new(i)))
        .collect()
}

fn same_structure(m: &Module, a: CompId, b: CompId, canon: &[Option<CompId>]) -> bool {
    let (ca, cb) = (&m.computations[a], &m.computations[b]);
    let callee = |c: CompId| canon.get(c.index()).copied().flatten().unwrap_or(c);
    ca.instructions.len() == cb.instructions.len()
        && ca.params == cb.params
        && ca.root == cb.root
        && ca.execution_thread == cb.execution_thread
        && ca
            .instructions
            .values()
            .zip(cb.instructions.values())
            .all(|(x, y)| {
                x.op == y.op
                    && x.shape == y.shape
                    && x.operands == y.operands
                    && x.called.len() == y.called.len()
                    && x.called
                        .iter()
                        .zip(&y.called)
                        .all(|(&p, &q)| callee(p) == callee(q))
                    && x.sharding == y.sharding
                    && x.frontend_attributes == y.frontend_attributes
                    && x.backend_config == y.backend_config
            })
}

fn key(inst: &Instruction, canon: &[CompId]) -> u64 {
    let mut h = DefaultHasher::new();
    inst.op.name().hash(&mut h);
    inst.shape.hash(&mut h);
    inst.operands.hash(&mut h);
    for c in &inst.called {
        canon.get(c.index()).unwrap_or(c).hash(&mut h);
    }
    if let Op::Constant { literal } = &inst.op {
        if let Ok(a) = literal.as_array() {
            a.bytes().hash(&mut h);
        }
    }
    h.finish()
}

fn same(a: &Instruction, b: &Instruction, canon: &[CompId]) -> bool {
    let callee = |c: &CompId| *canon.get(c.index()).unwrap_or(c);
    a.op == b.op
        && a.shape == b.shape
        && a.operands == b.operands
        && a.called.len() == b.called.len()
        && a.called
            .iter()
            .zip(&b.called)
            .all(|(p, q)| callee(p) == callee(q))
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
        let canon = canonical_computations(m);
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
                    let k = key(&inst, &canon);
                    if let Some(prev) = table
                        .get(&k)
                        .and_then(|v| v.iter().find(|&&p| same(&rb.new[p], &inst, &canon)))
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
