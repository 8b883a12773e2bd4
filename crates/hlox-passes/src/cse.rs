//! Common subexpression elimination.

use crate::rewrite::{local_rewrite_pass, LocalRewrite, Rewritten, Site};
use crate::util::has_side_effect;
use crate::PassError;
use hlox_hlo::{CompId, Computation, EntityRef, InstId, Instruction, Module, Op, SecondaryMap};
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
pub(crate) fn canonical_computations(m: &Module) -> Canon {
    fn resolve(m: &Module, c: CompId, canon: &mut Canon, depth: usize) -> CompId {
        if let Some(k) = canon.0[c] {
            return k;
        }
        // Callees first (bounded depth: a malformed cyclic module stays as is).
        if depth < 64 {
            for inst in m.computations[c].instructions.values() {
                for &callee in &inst.called {
                    if m.computations.is_valid(callee) && callee != c {
                        resolve(m, callee, canon, depth + 1);
                    }
                }
            }
        }
        let found = (0..c.index())
            .map(CompId::new)
            .find(|&k| canon.0[k] == Some(k) && same_structure(m, k, c, canon))
            .unwrap_or(c);
        canon.0[c] = Some(found);
        found
    }
    let mut canon = Canon(SecondaryMap::new());
    for c in m.computations.keys() {
        resolve(m, c, &mut canon, 0);
    }
    canon
}

/// Each computation's first structurally equal computation (itself when
/// none is, or not yet known).
pub(crate) struct Canon(SecondaryMap<CompId, Option<CompId>>);

impl Canon {
    fn of(&self, c: CompId) -> CompId {
        self.0[c].unwrap_or(c)
    }
}

fn same_structure(m: &Module, a: CompId, b: CompId, canon: &Canon) -> bool {
    let (ca, cb) = (&m.computations[a], &m.computations[b]);
    ca.instructions.len() == cb.instructions.len()
        && ca.params == cb.params
        && ca.root == cb.root
        && ca.execution_thread == cb.execution_thread
        && ca
            .instructions
            .values()
            .zip(cb.instructions.values())
            .all(|(x, y)| same(x, y, canon))
}

fn key(inst: &Instruction, canon: &Canon) -> u64 {
    let mut h = DefaultHasher::new();
    inst.op.name().hash(&mut h);
    inst.shape.hash(&mut h);
    inst.operands.hash(&mut h);
    for &c in &inst.called {
        canon.of(c).hash(&mut h);
    }
    if let Op::Constant { literal } = &inst.op {
        if let Ok(a) = literal.as_array() {
            a.bytes().hash(&mut h);
        }
    }
    h.finish()
}

/// Equal opcode and attributes, shape, operands, called computations (by
/// structure), sharding, frontend attributes and backend config.
fn same(a: &Instruction, b: &Instruction, canon: &Canon) -> bool {
    a.op == b.op
        && a.shape == b.shape
        && a.operands == b.operands
        && a.called.len() == b.called.len()
        && a.called
            .iter()
            .zip(&b.called)
            .all(|(&p, &q)| canon.of(p) == canon.of(q))
        && a.sharding == b.sharding
        && a.frontend_attributes == b.frontend_attributes
        && a.backend_config == b.backend_config
}

/// The local rewrite: an instruction equal to an earlier one is replaced
/// by it.
struct MergeDuplicates {
    /// [`canonical_computations`] of the module.
    canon: Canon,
}

impl LocalRewrite for MergeDuplicates {
    const NAME: &'static str = "cse";
    type Pass = Cse;
    /// The instructions seen so far, by [`key`].
    type State = HashMap<u64, Vec<InstId>>;

    fn start(_: &Cse, m: &mut Module) -> Result<MergeDuplicates, PassError> {
        let canon = canonical_computations(m);
        Ok(MergeDuplicates { canon })
    }

    fn begin(&mut self, _: &Module, _: CompId, _: &Computation) -> Option<Self::State> {
        Some(HashMap::new())
    }

    fn rewrite(&mut self, site: Site<'_, '_, Self::State>, id: InstId) -> Rewritten {
        let Site {
            state: table, ed, ..
        } = site;
        let inst = ed.inst(id);
        if !mergeable(inst) {
            return Ok(());
        }
        let k = key(inst, &self.canon);
        let prev = table
            .get(&k)
            .and_then(|v| v.iter().find(|&&p| same(ed.inst(p), inst, &self.canon)))
            .copied();
        match prev {
            Some(prev) => {
                ed.replace_all_uses(id, prev)?;
                ed.remove(id)?;
            }
            None => table.entry(k).or_default().push(id),
        }
        Ok(())
    }
}

local_rewrite_pass!(Cse => MergeDuplicates);
