//! Dead code elimination.

use crate::rewrite::{rewrite_module, LocalRewrite, RewriteError};
use crate::util::{live_set, retain_computations};
use crate::{Pass, PassError};
use hlox_hlo::edit::Editor;
use hlox_hlo::{CompId, Computation, EntitySet, InstId, Module};

/// Removes instructions not reachable from their computation's root and
/// computations no longer called from the entry. Parameters stay; a custom
/// call with `has_side_effect` is never removed (XLA's rule), one without
/// is removed when its result is unused.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dce;

/// The local rewrite: a dead instruction goes.
struct RemoveDead;

impl LocalRewrite for RemoveDead {
    /// The live instructions.
    type State = EntitySet<InstId>;

    fn begin(&mut self, _: &Module, _: CompId, c: &Computation) -> Option<EntitySet<InstId>> {
        let live = live_set(c);
        (live.len() < c.instructions.len()).then_some(live)
    }

    fn rewrite(
        &mut self,
        _: &Module,
        live: &mut EntitySet<InstId>,
        ed: &mut Editor,
        id: InstId,
    ) -> Result<(), RewriteError> {
        if !live.contains(id) {
            ed.remove(id)?;
        }
        Ok(())
    }
}

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = rewrite_module(self.name(), m, &mut RemoveDead)?;
        // Computations reachable from the entry.
        let mut reach: EntitySet<CompId> = EntitySet::new();
        let mut stack = vec![m.entry];
        while let Some(c) = stack.pop() {
            if !m.computations.is_valid(c) || !reach.insert(c) {
                continue;
            }
            for inst in m.computations[c].instructions.values() {
                stack.extend(inst.called.iter().copied());
            }
        }
        if reach.len() < m.computations.len() {
            retain_computations(m, &reach);
            changed = true;
        }
        Ok(changed)
    }
}
