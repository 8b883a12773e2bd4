//! XLA's default bf16 numerics ("excess precision") as an HLO rewrite: a
//! `convert` to f32 of a bf16 arithmetic result becomes that computation in
//! f32, so the value never rounds to bf16 (see [`hlox_eval::precision`] for
//! the rule, which the evaluator applies too).

use crate::rewrite::{
    local_rewrite_pass, FreshNames, NamingRewrite, RewriteError, Rewritten, Site,
};
use crate::util::NameUniquer;
use hlox_eval::precision::{computes_in_f32, is_convert_to_f32};
use hlox_hlo::edit::{Cursor, Editor, NewInst};
use hlox_hlo::{ElementType, InstId, Instruction, Op, Shape};
use std::collections::HashMap;

/// Rewrites `u = f32 convert(p)`, where `p` is a bf16 arithmetic
/// instruction ([`computes_in_f32`]: element-wise math that rounds, `dot`,
/// `convolution`), into `p`'s operation in f32, which `u`'s users read
/// instead: XLA:CPU's `float-normalization` under
/// `xla_allow_excess_precision` (on by default), which hlox's default
/// [`hlox_eval::HalfRounding::ExcessPrecision`] follows.
///
/// The f32 form reads each bf16 operand as XLA's normalized graph does:
/// a bf16 arithmetic operand `o` as `convert(convert(o'))` (`o'` its own f32
/// form, rounded to bf16 and widened again), anything else as `convert(o)`.
/// So the result holds no `convert` to f32 of a bf16 arithmetic
/// instruction that it did not hold before: running the pass again, or
/// evaluating the result under the rule, changes nothing. The bf16
/// instructions stay for their other users and go when they have none.
///
/// The compile pipeline runs it after inlining (XLA inlines before it
/// normalizes) and not at all under [`hlox_eval::HalfRounding::EveryOp`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ExcessPrecision;

local_rewrite_pass!(ExcessPrecision => FreshNames<ExcessPrecision>);

/// Per computation, what was made so far: each bf16 arithmetic
/// instruction's f32 form, and each bf16 value read as f32.
#[derive(Default)]
pub(crate) struct Made {
    wide: HashMap<InstId, InstId>,
    read: HashMap<InstId, InstId>,
}

/// Widening for the convert `at`: the run's fresh names, the computation's
/// editor and what was made in it so far; new instructions go before `at`.
struct Widening<'r, 'e> {
    names: &'r mut NameUniquer,
    ed: &'r mut Editor<'e>,
    made: &'r mut Made,
    at: InstId,
}

impl Widening<'_, '_> {
    /// A new instruction named after `base`.
    fn add(
        &mut self,
        base: &str,
        op: Op,
        operands: Vec<InstId>,
        shape: Shape,
    ) -> Result<InstId, RewriteError> {
        let new = NewInst::new(self.names.fresh(base), op, operands);
        Ok(self
            .ed
            .insert_declared(Cursor::Before(self.at), new, shape)?)
    }

    /// The f32 form of bf16 arithmetic instruction `p` (with those of the
    /// bf16 arithmetic instructions it reads), walking the operands
    /// without recursion (chains can be long).
    fn wide(&mut self, p: InstId) -> Result<InstId, RewriteError> {
        let mut stack = vec![(p, false)];
        while let Some((q, ready)) = stack.pop() {
            if self.made.wide.contains_key(&q) {
                continue;
            }
            let inst = self.ed.inst(q).clone();
            if !ready {
                stack.push((q, true));
                for &o in &inst.operands {
                    if computes_in_f32(self.ed.inst(o)) && !self.made.wide.contains_key(&o) {
                        stack.push((o, false));
                    }
                }
                continue;
            }
            let mut operands = Vec::with_capacity(inst.operands.len());
            for &o in &inst.operands {
                operands.push(self.read(o)?);
            }
            let shape = with_type(&inst.shape, ElementType::F32);
            let new = NewInst::new(
                self.names.fresh(&format!("{}.unrounded", inst.name)),
                inst.op.clone(),
                operands,
            )
            .with_called(inst.called.clone())
            .with_metadata(inst.metadata.clone());
            let w = self
                .ed
                .insert_declared(Cursor::Before(self.at), new, shape)?;
            self.made.wide.insert(q, w);
        }
        self.made
            .wide
            .get(&p)
            .copied()
            .ok_or_else(|| RewriteError::at(&self.ed.inst(p).name, "no f32 form was made"))
    }

    /// Operand `o` of an f32 form, as f32: itself unless it is bf16; a bf16
    /// arithmetic instruction's f32 form rounded to bf16 and widened again
    /// (its [`Widening::wide`] must exist); any other bf16 value widened.
    fn read(&mut self, o: InstId) -> Result<InstId, RewriteError> {
        let inst = self.ed.inst(o);
        if inst
            .shape
            .as_array()
            .is_none_or(|a| a.ty != ElementType::Bf16)
        {
            return Ok(o);
        }
        if let Some(&r) = self.made.read.get(&o) {
            return Ok(r);
        }
        let name = format!("{}.f32", inst.name);
        let f32_shape = with_type(&inst.shape, ElementType::F32);
        let bf16_shape = inst.shape.clone();
        let r = if let Some(&w) = self.made.wide.get(&o) {
            let base = format!("{}.rounded", inst.name);
            let rounded = self.add(&base, Op::Convert, vec![w], bf16_shape)?;
            self.add(&name, Op::Convert, vec![rounded], f32_shape)?
        } else {
            self.add(&name, Op::Convert, vec![o], f32_shape)?
        };
        self.made.read.insert(o, r);
        Ok(r)
    }
}

/// `shape` (an array) with element type `ty`.
fn with_type(shape: &Shape, ty: ElementType) -> Shape {
    let mut s = shape.clone();
    if let Shape::Array(a) = &mut s {
        a.ty = ty;
    }
    s
}

impl NamingRewrite for ExcessPrecision {
    const NAME: &'static str = "excess-precision";
    type State = Made;

    /// A `convert` to f32 (of a bf16 arithmetic instruction, or not).
    fn concerns(i: &Instruction) -> bool {
        is_convert_to_f32(i)
    }

    fn rewrite(names: &mut NameUniquer, site: Site<'_, '_, Made>, id: InstId) -> Rewritten {
        let Site { ed, state, .. } = site;
        let user = ed.inst(id);
        let Some(&p) = user.operands.first() else {
            return Ok(());
        };
        if !computes_in_f32(ed.inst(p)) {
            return Ok(());
        }
        let user_shape = user.shape.clone();
        let mut w = Widening {
            names,
            ed: &mut *ed,
            made: state,
            at: id,
        };
        let mut wide = w.wide(p)?;
        // The convert's own layout, where it differs from the producer's.
        if w.ed.inst(wide).shape != user_shape {
            let name = w.ed.inst(id).name.clone();
            wide = w.add(&name, Op::Copy, vec![wide], user_shape)?;
        }
        ed.replace_all_uses(id, wide)?;
        ed.remove(id)?;
        // Bf16 instructions left without users go (their operands may follow).
        let mut dead = vec![p];
        while let Some(q) = dead.pop() {
            if ed.is_removed(q) || !ed.users(q).is_empty() || ed.root() == q {
                continue;
            }
            if !computes_in_f32(ed.inst(q)) {
                continue;
            }
            let operands = ed.inst(q).operands.clone();
            ed.remove(q)?;
            dead.extend(operands);
        }
        Ok(())
    }
}
