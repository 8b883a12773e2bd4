//! The driver every instruction-level pass runs on: it owns the walk over
//! computations and instructions, the [`Editor`] and the error context, so
//! a pass only states its local rewrite ([`LocalRewrite`]).

use crate::util::{check_structure, empty_computation};
use crate::PassError;
use hlox_hlo::edit::{EditError, Editor, Signatures};
use hlox_hlo::{CompId, Computation, InstId, Module};

/// What a local rewrite can fail with: the editor refused an edit, or the
/// pass found an instruction it cannot handle.
#[derive(Debug)]
pub(crate) enum RewriteError {
    Edit(EditError),
    Instruction {
        instruction: String,
        message: String,
    },
}

impl From<EditError> for RewriteError {
    fn from(e: EditError) -> Self {
        RewriteError::Edit(e)
    }
}

impl RewriteError {
    /// The pass cannot handle `instruction`, for the reason `message`.
    pub(crate) fn at(instruction: &str, message: impl Into<String>) -> RewriteError {
        RewriteError::Instruction {
            instruction: instruction.to_string(),
            message: message.into(),
        }
    }

    fn into_pass_error(self, pass: &'static str, computation: String) -> PassError {
        match self {
            RewriteError::Edit(source) => PassError::Edit {
                pass,
                computation,
                source,
            },
            RewriteError::Instruction {
                instruction,
                message,
            } => PassError::Instruction {
                pass,
                computation,
                instruction,
                message,
            },
        }
    }
}

/// A pass stated as a rewrite of one instruction at a time.
pub(crate) trait LocalRewrite {
    /// What the pass keeps while it walks one computation.
    type State;
    /// Prepares the walk of computation `cid` (`c`), or skips it (`None`):
    /// a pass that has nothing to do there says so here, which keeps the
    /// computation as it is.
    fn begin(&mut self, m: &Module, cid: CompId, c: &Computation) -> Option<Self::State>;
    /// Rewrites instruction `id` (one the computation had before the walk,
    /// not removed yet). `m` is the module without the computation being
    /// edited (its callees are all there).
    fn rewrite(
        &mut self,
        m: &Module,
        st: &mut Self::State,
        ed: &mut Editor,
        id: InstId,
    ) -> Result<(), RewriteError>;
}

/// Runs `rw` on every computation of `m` in order: checks the structure
/// passes rely on, walks each computation's instructions in arena order
/// through an [`Editor`], and lays the edited computation out again. True
/// when anything changed. After an error the module is unspecified (the
/// compile stops).
pub(crate) fn rewrite_module<R: LocalRewrite>(
    pass: &'static str,
    m: &mut Module,
    rw: &mut R,
) -> Result<bool, PassError> {
    check_structure(m, pass)?;
    let sigs = Signatures::of_module(m);
    let mut changed = false;
    for cid in m.computations.keys() {
        let Some(mut st) = rw.begin(m, cid, &m.computations[cid]) else {
            continue;
        };
        let c = std::mem::replace(&mut m.computations[cid], empty_computation());
        let name = c.name.clone();
        let mut ed = Editor::new(c, &sigs);
        let mut walk = || -> Result<(), RewriteError> {
            for id in ed.original_ids() {
                if !ed.is_removed(id) {
                    rw.rewrite(m, &mut st, &mut ed, id)?;
                }
            }
            Ok(())
        };
        if let Err(e) = walk() {
            m.computations[cid] = ed.abandon();
            return Err(e.into_pass_error(pass, name));
        }
        changed |= ed.changed();
        m.computations[cid] = ed
            .finish()
            .map_err(|e| RewriteError::Edit(e).into_pass_error(pass, name))?;
    }
    Ok(changed)
}
