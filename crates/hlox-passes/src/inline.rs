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
            // An argument in another layout than its parameter's is copied
            // to the parameter's layout: the callee's instructions were
            // written for it (a tuple or a loop state holding the argument
            // would otherwise read its bytes in the wrong order: JAX's
            // `expm` passes a `{0,1}` solve to a `{1,0}` squaring loop).
            let want = &callee.inst(p).shape;
            let have = &ed.inst(arg).shape;
            let value = if have != want && have.compatible(want) {
                let mut made = Vec::new();
                let base = format!("{name}.arg");
                crate::layouts::relayout(
                    ed,
                    names,
                    Cursor::Before(id),
                    arg,
                    want,
                    &base,
                    &mut made,
                )?
            } else {
                arg
            };
            cmap[p] = Some(value);
        }
        // A root whose layout is part of what it is (a forwarded parameter or
        // tuple element, a tuple, a loop, a call, a custom call) keeps it; a
        // copy after it gives the call's layout. Any other root computes its
        // result in the call's layout directly.
        let root_keeps = |b: &Instruction| {
            b.shape.is_tuple()
                || matches!(
                    b.op,
                    Op::Parameter { .. }
                        | Op::GetTupleElement { .. }
                        | Op::Tuple
                        | Op::Bitcast
                        | Op::While
                        | Op::Conditional
                        | Op::Call
                        | Op::CustomCall(_)
                )
        };
        let relayout_root = callee.inst(callee.root).shape != shape
            && callee.inst(callee.root).shape.compatible(&shape)
            && root_keeps(callee.inst(callee.root));
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
            if bid == callee.root && !relayout_root {
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
        if relayout_root && ed.inst(result).shape != shape {
            if shape.is_tuple() {
                let mut made = Vec::new();
                let base = format!("{name}.result");
                result = crate::layouts::relayout(
                    ed,
                    names,
                    Cursor::Before(id),
                    result,
                    &shape,
                    &base,
                    &mut made,
                )?;
            } else {
                let copy =
                    NewInst::new(name.clone(), Op::Copy, vec![result]).with_metadata(metadata);
                result = ed.insert(Cursor::Before(id), copy)?;
                ed.set_layout(result, &shape)?;
            }
        }
        ed.replace_all_uses(id, result)?;
        ed.remove(id)?;
        Ok(())
    }
}
