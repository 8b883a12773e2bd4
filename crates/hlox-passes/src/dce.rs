//! Dead code elimination.

use crate::util::{live_set, retain_computations, Rebuild};
use crate::{Pass, PassError};
use hlox_hlo::{CompId, EntityRef, Module};

/// Removes instructions not reachable from their computation's root and
/// computations no longer called from the entry. Parameters stay; a custom
/// call with `has_side_effect` is never removed (XLA's rule), one without
/// is removed when its result is unused.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        crate::util::check_structure(m, self.name())?;
        let mut changed = false;
        let ids: Vec<CompId> = m.computations.keys().collect();
        for cid in ids {
            let c = &m.computations[cid];
            let live = live_set(c);
            if live.iter().all(|&l| l) {
                continue;
            }
            let mut rb = Rebuild::new(c);
            for (id, _) in c.instructions.iter() {
                if !live[id.index()] {
                    continue;
                }
                let inst = rb.remapped(id).ok_or_else(|| PassError::Instruction {
                    pass: "dce",
                    computation: c.name.clone(),
                    instruction: c.inst(id).name.clone(),
                    message: "an operand is not defined before its use".into(),
                })?;
                let n = rb.push(inst);
                rb.map[id.index()] = Some(n);
            }
            let name = c.name.clone();
            let new = rb.finish().map_err(|message| PassError::Instruction {
                pass: "dce",
                computation: name,
                instruction: String::new(),
                message,
            })?;
            m.computations[cid] = new;
            changed = true;
        }

        // Computations reachable from the entry.
        let n = m.computations.len();
        let mut reach = vec![false; n];
        let mut stack = vec![m.entry];
        while let Some(c) = stack.pop() {
            if c.index() >= n || reach[c.index()] {
                continue;
            }
            reach[c.index()] = true;
            for inst in m.computations[c].instructions.values() {
                stack.extend(inst.called.iter().copied());
            }
        }
        if reach.iter().any(|&r| !r) {
            retain_computations(m, &reach);
            changed = true;
        }
        Ok(changed)
    }
}
