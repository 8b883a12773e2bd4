//! Call inlining.

use crate::util::{NameUniquer, Rebuild};
use crate::{Pass, PassError};
use hlox_hlo::{CompId, EntityRef, InstId, Instruction, Module, Op};

/// Replaces every `call` by a copy of the called computation's body. The
/// copies get fresh names (XLA style, `name.N`); the copy of the callee's
/// root takes the call's name, so the value keeps its name. Computations
/// left uncalled are removed by [`crate::Dce`].
#[derive(Clone, Copy, Debug, Default)]
pub struct CallInliner;

impl Pass for CallInliner {
    fn name(&self) -> &'static str {
        "inline"
    }

    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        crate::util::check_structure(m, self.name())?;
        let mut names = NameUniquer::instructions(m);
        let mut changed = false;
        let ids: Vec<CompId> = m.computations.keys().collect();
        for cid in ids {
            let c = &m.computations[cid];
            if !c.instructions.values().any(|i| matches!(i.op, Op::Call)) {
                continue;
            }
            let err = |inst: &str, message: String| PassError::Instruction {
                pass: "inline",
                computation: c.name.clone(),
                instruction: inst.to_string(),
                message,
            };
            let mut rb = Rebuild::new(c);
            for (id, old) in c.instructions.iter() {
                let inst = rb.remapped(id).ok_or_else(|| {
                    err(&old.name, "an operand is not defined before its use".into())
                })?;
                if !matches!(inst.op, Op::Call) {
                    let n = rb.push(inst);
                    rb.map[id.index()] = Some(n);
                    continue;
                }
                let callee_id = *inst
                    .called
                    .first()
                    .ok_or_else(|| err(&old.name, "call has no to_apply computation".into()))?;
                if callee_id.index() >= cid.index() {
                    return Err(err(
                        &old.name,
                        "calls a computation that does not come before its caller".into(),
                    ));
                }
                let callee = &m.computations[callee_id];
                if callee.params.len() != inst.operands.len() {
                    return Err(err(
                        &old.name,
                        format!(
                            "passes {} operands to `{}` which has {} parameters",
                            inst.operands.len(),
                            callee.name,
                            callee.params.len()
                        ),
                    ));
                }
                let mut cmap: Vec<Option<InstId>> = vec![None; callee.instructions.len()];
                for (k, &p) in callee.params.iter().enumerate() {
                    if p.index() < cmap.len() {
                        cmap[p.index()] = Some(inst.operands[k]);
                    }
                }
                for (bid, b) in callee.instructions.iter() {
                    if matches!(b.op, Op::Parameter { .. }) {
                        continue;
                    }
                    let mut cl: Instruction = b.clone();
                    for o in cl.operands.iter_mut() {
                        *o = cmap.get(o.index()).copied().flatten().ok_or_else(|| {
                            err(
                                &old.name,
                                format!(
                                    "in callee `{}`, an operand of `{}` is not defined before its use",
                                    callee.name, b.name
                                ),
                            )
                        })?;
                    }
                    if bid == callee.root {
                        // The root copy takes the call's name and shape.
                        cl.name = inst.name.clone();
                        cl.shape = inst.shape.clone();
                    } else {
                        cl.name = names.fresh(&b.name);
                    }
                    cmap[bid.index()] = Some(rb.push(cl));
                }
                let mut result = cmap
                    .get(callee.root.index())
                    .copied()
                    .flatten()
                    .ok_or_else(|| {
                        err(&old.name, format!("callee `{}` has no root", callee.name))
                    })?;
                if matches!(callee.inst(callee.root).op, Op::Parameter { .. })
                    && rb.new[result].shape != inst.shape
                {
                    // The call forwards a parameter in another layout: keep a copy.
                    let mut cp = Instruction::new(
                        inst.name.clone(),
                        Op::Copy,
                        inst.shape.clone(),
                        vec![result],
                    );
                    cp.metadata = inst.metadata.clone();
                    result = rb.push(cp);
                }
                rb.map[id.index()] = Some(result);
            }
            let name = c.name.clone();
            let new = rb.finish().map_err(|message| PassError::Instruction {
                pass: "inline",
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
