//! The driver every instruction-level pass runs on: it owns the walk over
//! computations and instructions, the [`Editor`] and the error context, so
//! a pass only states its local rewrite ([`LocalRewrite`]).

use crate::util::{check_structure, empty_computation, NameUniquer};
use crate::PassError;
use hlox_hlo::edit::{EditError, Editor, Signatures};
use hlox_hlo::{CompId, Computation, InstId, Instruction, Module};
use std::marker::PhantomData;

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
                source: Box::new(source),
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

/// Where a local rewrite works: the module without the computation being
/// edited (its callees are all there), the pass's state for this
/// computation, and the editor of the computation.
pub(crate) struct Site<'a, 'e, S> {
    pub module: &'a Module,
    pub state: &'a mut S,
    pub ed: &'a mut Editor<'e>,
}

/// What a local rewrite returns.
pub(crate) type Rewritten = Result<(), RewriteError>;

/// A pass stated as a rewrite of one instruction at a time. The value is
/// what the pass keeps over one run on a module (fresh names, the
/// computations it makes); [`local_rewrite_pass!`] makes its public type a
/// [`crate::Pass`] that [`run`] drives.
pub(crate) trait LocalRewrite: Sized {
    /// The pass's name (in errors, dumps and reports).
    const NAME: &'static str;
    /// The public pass type, with its settings.
    type Pass;
    /// What the pass keeps while it walks one computation.
    type State;
    /// Prepares a run over `m`, whose structure has been checked (a pass
    /// that must change the module as a whole first does it here).
    fn start(pass: &Self::Pass, m: &mut Module) -> Result<Self, PassError>;
    /// Prepares the walk of computation `cid` (`c`), or skips it (`None`):
    /// a pass that has nothing to do there says so here, which keeps the
    /// computation as it is.
    fn begin(&mut self, m: &Module, cid: CompId, c: &Computation) -> Option<Self::State>;
    /// Rewrites instruction `id`, one the computation had before the walk
    /// and that is not removed yet.
    fn rewrite(&mut self, site: Site<'_, '_, Self::State>, id: InstId) -> Rewritten;
    /// Finishes the run (`changed`: whether a computation changed);
    /// returns whether the module changed.
    fn end(self, _m: &mut Module, changed: bool) -> Result<bool, PassError> {
        Ok(changed)
    }
}

/// `impl Pass for $pass` by running the local rewrite `$rw`.
macro_rules! local_rewrite_pass {
    ($pass:ty => $rw:ty) => {
        impl $crate::Pass for $pass {
            fn name(&self) -> &'static str {
                <$rw as $crate::rewrite::LocalRewrite>::NAME
            }
            fn run(&self, m: &mut hlox_hlo::Module) -> Result<bool, $crate::PassError> {
                $crate::rewrite::run::<$rw>(self, m)
            }
        }
    };
}
pub(crate) use local_rewrite_pass;

/// Runs the local rewrite `R` of `pass` over `m`: checks the structure
/// passes rely on, then `start`, every computation, `end`.
pub(crate) fn run<R: LocalRewrite>(pass: &R::Pass, m: &mut Module) -> Result<bool, PassError> {
    check_structure(m, R::NAME)?;
    let mut rw = R::start(pass, m)?;
    let changed = rewrite_module(R::NAME, m, &mut rw)?;
    rw.end(m, changed)
}

/// A pass that rewrites only the instructions [`NamingRewrite::concerns`]
/// accepts and keeps nothing over a run but fresh instruction names (a
/// computation without such an instruction is not walked).
/// [`FreshNames`] makes it a [`LocalRewrite`]:
/// `local_rewrite_pass!(Pass => FreshNames<Pass>)`.
pub(crate) trait NamingRewrite: Sized {
    /// The pass's name (in errors, dumps and reports).
    const NAME: &'static str;
    /// What the rewrite keeps while it walks one computation.
    type State: Default;
    /// Whether the rewrite applies to `i`.
    fn concerns(i: &Instruction) -> bool;
    /// As [`LocalRewrite::rewrite`], for an instruction the rewrite
    /// concerns, with the run's fresh `names`.
    fn rewrite(names: &mut NameUniquer, site: Site<'_, '_, Self::State>, id: InstId) -> Rewritten;
}

/// The [`LocalRewrite`] of a [`NamingRewrite`] `R`: the run's fresh names.
pub(crate) struct FreshNames<R>(NameUniquer, PhantomData<R>);

impl<R: NamingRewrite> LocalRewrite for FreshNames<R> {
    const NAME: &'static str = R::NAME;
    type Pass = R;
    type State = R::State;

    fn start(_: &R, m: &mut Module) -> Result<Self, PassError> {
        Ok(FreshNames(NameUniquer::instructions(m), PhantomData))
    }

    fn begin(&mut self, _: &Module, _: CompId, c: &Computation) -> Option<R::State> {
        any_instruction(c, R::concerns).map(|()| R::State::default())
    }

    fn rewrite(&mut self, site: Site<'_, '_, R::State>, id: InstId) -> Rewritten {
        if !R::concerns(site.ed.inst(id)) {
            return Ok(());
        }
        R::rewrite(&mut self.0, site, id)
    }
}

/// `Some(())` when an instruction of `c` satisfies `pred`: the `begin` of a
/// stateless rewrite that only concerns some opcodes.
pub(crate) fn any_instruction(
    c: &Computation,
    pred: impl FnMut(&Instruction) -> bool,
) -> Option<()> {
    c.instructions.values().any(pred).then_some(())
}

/// Runs `rw` on every computation of `m` in order: walks each
/// computation's instructions in arena order through an [`Editor`], and
/// lays the edited computation out again. True when anything changed.
/// After an error the module is unspecified (the compile stops).
fn rewrite_module<R: LocalRewrite>(
    pass: &'static str,
    m: &mut Module,
    rw: &mut R,
) -> Result<bool, PassError> {
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
                    let site = Site {
                        module: m,
                        state: &mut st,
                        ed: &mut ed,
                    };
                    rw.rewrite(site, id)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use hlox_hlo::Op;

    /// A deliberately wrong rewrite: turns `negate` into a one-element tuple,
    /// which its declared array shape does not fit.
    struct WrongShape;
    struct WrongShapePass;

    impl LocalRewrite for WrongShape {
        const NAME: &'static str = "wrong-shape-for-test";
        type Pass = WrongShapePass;
        type State = ();

        fn start(_: &WrongShapePass, _: &mut Module) -> Result<WrongShape, PassError> {
            Ok(WrongShape)
        }
        fn begin(&mut self, _: &Module, _: CompId, _: &Computation) -> Option<()> {
            Some(())
        }
        fn rewrite(&mut self, site: Site<'_, '_, ()>, id: InstId) -> Rewritten {
            let inst = site.ed.inst(id);
            if matches!(inst.op, Op::Unary(_)) {
                let operands = inst.operands.clone();
                site.ed.rewrite(id, Op::Tuple, operands, vec![])?;
            }
            Ok(())
        }
    }

    #[test]
    fn a_wrongly_shaped_edit_is_an_error_naming_pass_computation_and_instruction() {
        let src =
            "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n";
        let mut m = hlox_hlo::text::parse_module(src).unwrap();
        let err = run::<WrongShape>(&WrongShapePass, &mut m).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(&err, PassError::Edit { pass: "wrong-shape-for-test", computation, .. } if computation == "e"),
            "{msg}"
        );
        assert!(msg.contains("instruction `n`"), "{msg}");
        assert!(msg.contains("declared shape"), "{msg}");
    }
}
