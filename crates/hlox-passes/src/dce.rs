//! Dead code elimination.

use crate::rewrite::{local_rewrite_pass, LocalRewrite, Rewritten, Site};
use crate::util::{live_set, retain_computations};
use crate::PassError;
use hlox_hlo::{CompId, Computation, EntitySet, InstId, Module};

/// Removes instructions not reachable from their computation's root and
/// computations no longer called from the entry. Parameters stay; a custom
/// call with `has_side_effect` is never removed (XLA's rule), one without
/// is removed when its result is unused.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dce;

/// The local rewrite: a dead instruction goes; then the computations the
/// entry no longer reaches.
struct RemoveDead;

impl LocalRewrite for RemoveDead {
    const NAME: &'static str = "dce";
    type Pass = Dce;
    /// The live instructions.
    type State = EntitySet<InstId>;

    fn start(_: &Dce, _: &mut Module) -> Result<RemoveDead, PassError> {
        Ok(RemoveDead)
    }

    fn begin(&mut self, _: &Module, _: CompId, c: &Computation) -> Option<EntitySet<InstId>> {
        let live = live_set(c);
        (live.len() < c.instructions.len()).then_some(live)
    }

    fn rewrite(&mut self, site: Site<'_, '_, Self::State>, id: InstId) -> Rewritten {
        let Site {
            state: live, ed, ..
        } = site;
        if !live.contains(id) {
            ed.remove(id)?;
        }
        Ok(())
    }

    fn end(self, m: &mut Module, mut changed: bool) -> Result<bool, PassError> {
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

local_rewrite_pass!(Dce => RemoveDead);
