//! Layouts at boundaries: copies that put each custom call's buffers in the
//! layouts its target is promised (XLA's layout assignment for custom
//! calls, [`hlox_hlo::CustomCall::buffer_shapes`]), each `call`'s
//! arguments and result in the layouts of the called computation, and each
//! `while` and `conditional` consistent with its loop and branch
//! computations.

use crate::util::{NameUniquer, Rebuild};
use crate::{Pass, PassError};
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

impl Pass for BoundaryLayouts {
    fn name(&self) -> &'static str {
        "boundary-layouts"
    }

    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        crate::util::check_structure(m, self.name())?;
        let mut names = NameUniquer::instructions(m);
        // Loop and branch computations whose own layouts disagree get
        // specialized copies first; then every boundary is fixed from the
        // caller's side.
        let mut changed = specialize_loops_and_branches(m, &mut names)?;
        // What each computation expects and gives: (parameters, root).
        let sigs: Sigs = m
            .computations
            .iter()
            .map(|(id, c)| {
                let params = c.params.iter().map(|&p| c.inst(p).shape.clone()).collect();
                (id, (params, c.inst(c.root).shape.clone()))
            })
            .collect();
        let ids: Vec<CompId> = m.computations.keys().collect();
        for cid in ids {
            let c = &m.computations[cid];
            if !c
                .instructions
                .values()
                .any(|i| wanted(c, i, &sigs).is_some())
            {
                continue;
            }
            let new = relayout_computation(c, &mut names, &sigs)?;
            m.computations[cid] = new;
            changed = true;
        }
        Ok(changed)
    }
}

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

fn wanted(c: &Computation, inst: &Instruction, sigs: &Sigs) -> Option<(Vec<Shape>, Shape)> {
    let ops: Vec<&Shape> = inst.operands.iter().map(|&o| &c.inst(o).shape).collect();
    wanted_shapes(&ops, inst, sigs)
}

fn relayout_computation(
    c: &Computation,
    names: &mut NameUniquer,
    sigs: &Sigs,
) -> Result<Computation, PassError> {
    let err = |instruction: &str, message: String| PassError::Instruction {
        pass: "boundary-layouts",
        computation: c.name.clone(),
        instruction: instruction.to_string(),
        message,
    };
    let mut rb = Rebuild::new(c);
    for (id, old) in c.instructions.iter() {
        let mut inst = rb
            .remapped(id)
            .ok_or_else(|| err(&old.name, "an operand is not defined before its use".into()))?;
        let mut restore = None;
        let ops: Vec<Shape> = inst
            .operands
            .iter()
            .map(|&o| rb.new[o].shape.clone())
            .collect();
        let refs: Vec<&Shape> = ops.iter().collect();
        if let Some((want_ops, want_res)) = wanted_shapes(&refs, &inst, sigs) {
            for (k, want) in want_ops.iter().enumerate() {
                if ops[k] != *want {
                    let base = format!("{}.operand{k}.relayout", old.name);
                    inst.operands[k] = relayout(&mut rb, names, inst.operands[k], want, &base)
                        .map_err(|m| err(&old.name, format!("operand {k}: {m}")))?;
                }
            }
            if want_res != inst.shape {
                restore = Some(std::mem::replace(&mut inst.shape, want_res));
            }
        }
        let mut n = rb.push(inst);
        if let Some(declared) = restore {
            let base = format!("{}.relayout", old.name);
            n = relayout(&mut rb, names, n, &declared, &base)
                .map_err(|m| err(&old.name, format!("result: {m}")))?;
        }
        rb.map[id.index()] = Some(n);
    }
    rb.finish().map_err(|m| err("", m))
}

/// `value` in shape `to` (same dimensions, other layouts): a `copy` per
/// array leaf whose layout differs.
fn relayout(
    rb: &mut Rebuild,
    names: &mut NameUniquer,
    value: InstId,
    to: &Shape,
    base: &str,
) -> Result<InstId, String> {
    let from = rb.new[value].shape.clone();
    if from == *to {
        return Ok(value);
    }
    if !from.compatible(to) {
        return Err(format!(
            "shape {} cannot be relaid out to {}",
            hlox_hlo::text::shape_to_string(&from),
            hlox_hlo::text::shape_to_string(to)
        ));
    }
    match (&from, to) {
        (Shape::Tuple(fe), Shape::Tuple(te)) => {
            let mut elems = Vec::with_capacity(te.len());
            for (i, (f, t)) in fe.iter().zip(te).enumerate() {
                let gte = rb.push(Instruction::new(
                    names.fresh(&format!("{base}.gte{i}")),
                    Op::GetTupleElement { index: i as i64 },
                    f.clone(),
                    vec![value],
                ));
                elems.push(relayout(rb, names, gte, t, base)?);
            }
            Ok(rb.push(Instruction::new(
                names.fresh(base),
                Op::Tuple,
                to.clone(),
                elems,
            )))
        }
        _ => Ok(rb.push(Instruction::new(
            names.fresh(base),
            Op::Copy,
            to.clone(),
            vec![value],
        ))),
    }
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
) -> Result<Computation, String> {
    let mut rb = Rebuild::new(c);
    let mut new_params = vec![None; c.params.len()];
    for (id, old) in c.instructions.iter() {
        let mut inst = rb
            .remapped(id)
            .ok_or_else(|| format!("`{}`: an operand is not defined before its use", old.name))?;
        inst.name = names.fresh(&old.name);
        let mut n;
        if let Op::Parameter { number } = inst.op {
            let want = params
                .get(number as usize)
                .ok_or_else(|| format!("parameter {number} is out of range"))?;
            inst.shape = want.clone();
            n = rb.push(inst);
            if let Some(slot) = new_params.get_mut(number as usize) {
                *slot = Some(n);
            }
            let base = format!("{}.relayout", old.name);
            n = relayout(&mut rb, names, n, &old.shape, &base)?;
        } else {
            n = rb.push(inst);
        }
        rb.map[id.index()] = Some(n);
    }
    let old_root = rb
        .mapped(c.root)
        .ok_or_else(|| "the root was dropped".to_string())?;
    let base = format!("{}.relayout", c.inst(c.root).name);
    let new_root = relayout(&mut rb, names, old_root, root, &base)?;
    let params = new_params
        .into_iter()
        .map(|p| p.ok_or_else(|| "a parameter is missing".to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Computation {
        name,
        instructions: rb.new,
        params,
        root: new_root,
        execution_thread: c.execution_thread.clone(),
    })
}
