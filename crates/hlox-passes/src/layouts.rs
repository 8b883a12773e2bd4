//! Layouts at boundaries: copies that put each custom call's buffers in the
//! layouts its target is promised (XLA's layout assignment for custom
//! calls, [`hlox_hlo::CustomCall::buffer_shapes`]), each `call`'s
//! arguments and result in the layouts of the called computation, and each
//! `while` and `conditional` consistent with its loop and branch
//! computations.

use crate::rewrite::{any_instruction, local_rewrite_pass, LocalRewrite, Rewritten, Site};
use crate::util::NameUniquer;
use crate::PassError;
use hlox_hlo::edit::{Cursor, EditError, Editor, NewInst, Signatures};
use hlox_hlo::{CompId, Computation, EntityRef, InstId, Instruction, Module, Op, Shape};

/// Relays out custom-call operands and results:
///
/// - an operand whose layout differs from the call's
///   `operand_layout_constraints` entry (or, without constraints, from the
///   default layout) is replaced by a `copy` in that layout;
/// - an unconstrained call whose result is not in the default layout gets
///   the default layout, and a `copy` after it restores the declared one.
///
/// - a `call` argument whose layout differs from the called computation's
///   parameter is copied to that layout, and a called computation whose
///   root layout differs from the `call`'s shape gets a `copy` after the
///   call (JAX's modules pass, say, a transpose laid out `{1,2,0}` to a
///   computation whose parameter is `{2,1,0}`; inlining makes this moot,
///   but the compilers also run without it).
///
/// - a `while`'s init is copied to its body parameter's layout and its
///   result back to the declared one; a `conditional`'s branch operands to
///   their branch parameters' layouts. Loop and branch computations whose
///   own layouts disagree (body root vs parameter, condition parameter vs
///   body parameter, branch root vs the conditional) are specialized first
///   (`specialize_loops_and_branches`).
///
/// Tuples are taken apart with `get-tuple-element`, copied leaf by leaf and
/// put together again. Both compilers run this pass even without the
/// optimizing pipeline: their emitters rely on it.
#[derive(Clone, Copy, Debug, Default)]
pub struct BoundaryLayouts;

local_rewrite_pass!(BoundaryLayouts => Relayout);

type Sigs = std::collections::HashMap<CompId, (Vec<Shape>, Shape)>;

/// The operand shapes and result shape `inst` must have, when they differ
/// from what it has: a custom call's buffer layouts, a `call`'s callee's.
fn wanted_shapes(ops: &[&Shape], inst: &Instruction, sigs: &Sigs) -> Option<(Vec<Shape>, Shape)> {
    let (want_ops, want_res) = match &inst.op {
        Op::CustomCall(cc) => cc.buffer_shapes(ops, &inst.shape),
        Op::Call => {
            let (params, root) = sigs.get(inst.called.first()?)?;
            if params.len() != ops.len() {
                return None; // the verifier's business
            }
            (params.clone(), root.clone())
        }
        // The loop state lives in one buffer, in the body parameter's
        // layout (after `specialize_loops_and_branches`, also the body
        // root's and the condition parameter's).
        Op::While => {
            let (params, _) = sigs.get(inst.called.get(1)?)?;
            let state = params.first()?;
            if ops.len() != 1 {
                return None;
            }
            (vec![state.clone()], state.clone())
        }
        // Each branch operand in its branch parameter's layout; the
        // branches' roots already give the conditional's.
        Op::Conditional => {
            if ops.len() != inst.called.len() + 1 {
                return None;
            }
            let mut want = vec![ops[0].clone()];
            for b in &inst.called {
                let (params, _) = sigs.get(b)?;
                want.push(params.first()?.clone());
            }
            (want, inst.shape.clone())
        }
        _ => return None,
    };
    let same = want_res == inst.shape && ops.iter().zip(&want_ops).all(|(s, w)| *s == w);
    (!same).then_some((want_ops, want_res))
}

/// [`wanted_shapes`] of `inst`, its operands' shapes given by `shape_of`
/// (a computation's or an editor's instructions).
fn wanted<'a>(
    shape_of: impl Fn(InstId) -> &'a Shape,
    inst: &Instruction,
    sigs: &Sigs,
) -> Option<(Vec<Shape>, Shape)> {
    let ops: Vec<&Shape> = inst.operands.iter().map(|&o| shape_of(o)).collect();
    wanted_shapes(&ops, inst, sigs)
}

/// The local rewrite: copies around an instruction whose operands or
/// result are not in the layouts its callee or target wants.
struct Relayout {
    names: NameUniquer,
    /// What each computation expects and gives: (parameters, root).
    sigs: Sigs,
    /// Whether loops or branches were specialized.
    specialized: bool,
}

impl LocalRewrite for Relayout {
    const NAME: &'static str = "boundary-layouts";
    type Pass = BoundaryLayouts;
    type State = ();

    fn start(_: &BoundaryLayouts, m: &mut Module) -> Result<Relayout, PassError> {
        let mut names = NameUniquer::instructions(m);
        // Loop and branch computations whose own layouts disagree get
        // specialized copies first; then every boundary is fixed from the
        // caller's side.
        let specialized = specialize_loops_and_branches(m, &mut names)?;
        let sigs: Sigs = m
            .computations
            .iter()
            .map(|(id, c)| {
                let params = c.params.iter().map(|&p| c.inst(p).shape.clone()).collect();
                (id, (params, c.inst(c.root).shape.clone()))
            })
            .collect();
        Ok(Relayout {
            names,
            sigs,
            specialized,
        })
    }

    fn begin(&mut self, _: &Module, _: CompId, c: &Computation) -> Option<()> {
        any_instruction(c, |i| wanted(|o| &c.inst(o).shape, i, &self.sigs).is_some())
    }

    fn end(self, _: &mut Module, changed: bool) -> Result<bool, PassError> {
        Ok(changed || self.specialized)
    }

    fn rewrite(&mut self, site: Site<'_, '_, Self::State>, id: InstId) -> Rewritten {
        let Site { ed, .. } = site;
        let inst = ed.inst(id);
        let Some((want_ops, want_res)) = wanted(|o| &ed.inst(o).shape, inst, &self.sigs) else {
            return Ok(());
        };
        let name = inst.name.clone();
        let declared = inst.shape.clone();
        let operands = inst.operands.clone();
        for (k, want) in want_ops.iter().enumerate() {
            let Some(&operand) = operands.get(k) else {
                continue;
            };
            if ed.inst(operand).shape != *want {
                if takes_layout(ed, operand, want, &self.sigs) {
                    // The producer is computed in the wanted layout: no
                    // copy, and no transposition where its own operands
                    // already have that layout (JAX's `select(ok, lu,
                    // nan)` between two LAPACK calls).
                    ed.set_layout(operand, want)?;
                    continue;
                }
                let base = format!("{name}.operand{k}.relayout");
                let at = Cursor::Before(id);
                let copy = relayout(ed, &mut self.names, at, operand, want, &base, &mut vec![])?;
                ed.set_operand(id, k, copy)?;
            }
        }
        if want_res != declared {
            ed.set_layout(id, &want_res)?;
            let base = format!("{name}.relayout");
            let mut chain = vec![];
            let at = Cursor::After(id);
            let copy = relayout(ed, &mut self.names, at, id, &declared, &base, &mut chain)?;
            ed.replace_uses_if(id, copy, |u| !chain.contains(&u))?;
        }
        Ok(())
    }
}

/// Whether `value` can be computed in layout `want` instead of copied to
/// it: an element-wise instruction (no memory of its own to keep: parameters,
/// constants and the root keep theirs) whose every use is an operand slot
/// that wants exactly `want` (XLA's layout assignment puts a custom call's
/// operand constraint on the producer the same way).
fn takes_layout(ed: &Editor, value: InstId, want: &Shape, sigs: &Sigs) -> bool {
    let inst = ed.inst(value);
    if !inst.op.is_elementwise()
        || !matches!(want, Shape::Array(_))
        || !inst.shape.compatible(want)
        || ed.root() == value
    {
        return false;
    }
    ed.users(value).iter().all(|&u| {
        let user = ed.inst(u);
        let Some((want_ops, _)) = wanted(|o| &ed.inst(o).shape, user, sigs) else {
            return false;
        };
        user.operands
            .iter()
            .zip(&want_ops)
            .all(|(&o, w)| o != value || w == want)
    })
}

/// `value` in shape `to` (same dimensions, other layouts), inserted at
/// `at`: a `copy` per array leaf whose layout differs (tuples through
/// `get-tuple-element` and `tuple`). The instructions made (they read
/// `value`) are added to `made`.
pub(crate) fn relayout(
    ed: &mut Editor,
    names: &mut NameUniquer,
    at: Cursor,
    value: InstId,
    to: &Shape,
    base: &str,
    made: &mut Vec<InstId>,
) -> Result<InstId, EditError> {
    let from = ed.inst(value).shape.clone();
    if from == *to {
        return Ok(value);
    }
    let id = match (&from, to) {
        (Shape::Tuple(fe), Shape::Tuple(te)) if fe.len() == te.len() => {
            let mut elems = Vec::with_capacity(te.len());
            for (i, t) in te.iter().enumerate() {
                let gte = NewInst::new(
                    names.fresh(&format!("{base}.gte{i}")),
                    Op::GetTupleElement { index: i as i64 },
                    vec![value],
                );
                let gte = ed.insert(at, gte)?;
                made.push(gte);
                elems.push(relayout(ed, names, at, gte, t, base, made)?);
            }
            ed.insert(at, NewInst::new(names.fresh(base), Op::Tuple, elems))?
        }
        _ => {
            let copy = NewInst::new(names.fresh(base), Op::Copy, vec![value]);
            ed.insert(at, copy)?
        }
    };
    made.push(id);
    ed.set_layout(id, to)?;
    Ok(id)
}

/// Gives each `while` a body whose root is in its parameter's layout and a
/// condition whose parameter is in that layout too, and each `conditional`
/// branches whose roots are in the conditional's layout: a computation that
/// disagrees is replaced, for that instruction only, by a copy with
/// relayouts at its parameter or root (other callers keep the original).
/// The copies go right before the calling computation.
fn specialize_loops_and_branches(
    m: &mut Module,
    names: &mut NameUniquer,
) -> Result<bool, PassError> {
    let mut comp_names = NameUniquer::computations(m);
    // (caller, instruction, index in `called`, specialized computation)
    let mut made: Vec<(CompId, hlox_hlo::InstId, usize, Computation)> = Vec::new();
    for (cid, c) in m.computations.iter() {
        for (iid, inst) in c.instructions.iter() {
            let err = |message: String| PassError::Instruction {
                pass: "boundary-layouts",
                computation: c.name.clone(),
                instruction: inst.name.clone(),
                message,
            };
            let mut want: Vec<(usize, Vec<Shape>, Shape)> = Vec::new();
            match &inst.op {
                Op::While if inst.called.len() == 2 => {
                    let (cond, body) = (
                        &m.computations[inst.called[0]],
                        &m.computations[inst.called[1]],
                    );
                    let Some(&bp) = body.params.first() else {
                        continue;
                    };
                    let state = body.inst(bp).shape.clone();
                    if body.inst(body.root).shape != state {
                        want.push((1, vec![state.clone()], state.clone()));
                    }
                    if cond
                        .params
                        .first()
                        .is_some_and(|&p| cond.inst(p).shape != state)
                    {
                        want.push((0, vec![state], cond.inst(cond.root).shape.clone()));
                    }
                }
                Op::Conditional => {
                    for (k, &b) in inst.called.iter().enumerate() {
                        let bc = &m.computations[b];
                        if bc.inst(bc.root).shape != inst.shape {
                            let params = bc
                                .params
                                .iter()
                                .map(|&p| bc.inst(p).shape.clone())
                                .collect();
                            want.push((k, params, inst.shape.clone()));
                        }
                    }
                }
                _ => {}
            }
            for (k, params, root) in want {
                let callee = &m.computations[inst.called[k]];
                let name = comp_names.fresh(&format!("{}.relayout", callee.name));
                let new = with_signature(callee, &params, &root, name, names)
                    .map_err(|e| err(format!("specializing `{}`: {e}", callee.name)))?;
                made.push((cid, iid, k, new));
            }
        }
    }
    if made.is_empty() {
        return Ok(false);
    }
    let n = m.computations.len();
    let mut extra = Vec::with_capacity(made.len());
    for (j, (caller, iid, k, comp)) in made.into_iter().enumerate() {
        m.computations[caller].instructions[iid].called[k] = CompId::new(n + j);
        extra.push((caller, comp));
    }
    crate::util::insert_before_callers(m, extra);
    Ok(true)
}

/// A copy of `c` named `name` whose parameters have shapes `params` and
/// whose root has shape `root` (same dimensions, other layouts), with
/// copies after the parameters and before the root where they differ.
/// Every instruction gets a fresh name.
fn with_signature(
    c: &Computation,
    params: &[Shape],
    root: &Shape,
    name: String,
    names: &mut NameUniquer,
) -> Result<Computation, EditError> {
    // Only copies, tuples and get-tuple-elements are made: no callee
    // signatures are needed.
    let sigs = Signatures::default();
    let mut ed = Editor::new(c.clone(), &sigs);
    for id in ed.original_ids() {
        let old = ed.inst(id);
        let (old_name, declared) = (old.name.clone(), old.shape.clone());
        let number = match old.op {
            Op::Parameter { number } => Some(number as usize),
            _ => None,
        };
        ed.set_name(id, names.fresh(&old_name))?;
        if let Some(want) = number.and_then(|k| params.get(k)) {
            ed.set_layout(id, want)?;
            let base = format!("{old_name}.relayout");
            let mut chain = vec![];
            let at = Cursor::After(id);
            let copy = relayout(&mut ed, names, at, id, &declared, &base, &mut chain)?;
            ed.replace_uses_if(id, copy, |u| !chain.contains(&u))?;
        }
    }
    let base = format!("{}.relayout", c.inst(c.root).name);
    let old_root = ed.root();
    let new_root = relayout(
        &mut ed,
        names,
        Cursor::End,
        old_root,
        root,
        &base,
        &mut vec![],
    )?;
    ed.set_root(new_root)?;
    let mut out = ed.finish()?;
    out.name = name;
    Ok(out)
}
