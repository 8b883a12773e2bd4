//! Call inlining.

use crate::rewrite::{
    local_rewrite_pass, FreshNames, NamingRewrite, RewriteError, Rewritten, Site,
};
use crate::util::NameUniquer;
use hlox_hlo::edit::{Cursor, NewInst};
use hlox_hlo::{InstId, Instruction, Op, SecondaryMap};

/// Replaces every `call` by a copy of the called computation's body. The
/// copies get fresh names (XLA style, `name.N`); the copy of the callee's
/// root takes the call's name, so the value keeps its name. Computations
/// left uncalled are removed by [`crate::Dce`].
#[derive(Clone, Copy, Debug, Default)]
pub struct CallInliner;

local_rewrite_pass!(CallInliner => FreshNames<CallInliner>);

impl NamingRewrite for CallInliner {
    const NAME: &'static str = "inline";
    type State = ();

    fn concerns(i: &Instruction) -> bool {
        matches!(i.op, Op::Call)
    }

    fn rewrite(names: &mut NameUniquer, site: Site<'_, '_, ()>, id: InstId) -> Rewritten {
        let Site { module: m, ed, .. } = site;
        let call = ed.inst(id);
        let (name, shape, metadata) =
            (call.name.clone(), call.shape.clone(), call.metadata.clone());
        let operands = call.operands.clone();
        let err = |message: String| RewriteError::at(&name, message);
        let callee_id = *call
            .called
            .first()
            .ok_or_else(|| err("call has no to_apply computation".into()))?;
        // `check_structure` put the callee before this computation, which
        // the driver has taken out of `m`.
        let callee = m
            .computations
            .get(callee_id)
            .filter(|c| !c.instructions.is_empty())
            .ok_or_else(
                || err("calls a computation that does not come before its caller".into()),
            )?;
        if callee.params.len() != operands.len() {
            return Err(err(format!(
                "passes {} operands to `{}` which has {} parameters",
                operands.len(),
                callee.name,
                callee.params.len()
            )));
        }
        // Callee instruction -> the value standing for it here.
        let mut cmap: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::new();
        for (&p, &arg) in callee.params.iter().zip(&operands) {
            cmap[p] = Some(arg);
        }
        for (bid, b) in callee.instructions.iter() {
            if matches!(b.op, Op::Parameter { .. }) {
                continue;
            }
            let mut cl = b.clone();
            for o in cl.operands.iter_mut() {
                *o = cmap[*o].ok_or_else(|| {
                    err(format!(
                        "in callee `{}`, an operand of `{}` is not defined before its use",
                        callee.name, b.name
                    ))
                })?;
            }
            if bid == callee.root {
                // The root copy takes the call's name and shape.
                cl.name = name.clone();
                cl.shape = shape.clone();
            } else {
                cl.name = names.fresh(&b.name);
            }
            cmap[bid] = Some(ed.insert_clone(Cursor::Before(id), cl)?);
        }
        let mut result = cmap[callee.root]
            .ok_or_else(|| err(format!("callee `{}` has no root", callee.name)))?;
        if matches!(callee.inst(callee.root).op, Op::Parameter { .. })
            && ed.inst(result).shape != shape
        {
            // The call forwards a parameter in another layout: keep a copy.
            let copy = NewInst::new(name.clone(), Op::Copy, vec![result]).with_metadata(metadata);
            result = ed.insert(Cursor::Before(id), copy)?;
            ed.set_layout(result, &shape)?;
        }
        ed.replace_all_uses(id, result)?;
        ed.remove(id)?;
        Ok(())
    }
}
