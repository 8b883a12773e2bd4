//! Algebraic simplification: local rewrites that are exact under XLA's
//! semantics (conservative about floats).

use crate::rewrite::{local_rewrite_pass, LocalRewrite, Rewritten, Site};
use crate::util::{neg_zero_bytes, small_int_bytes, splat_literal};
use crate::PassError;
use hlox_hlo::edit::Editor;
use hlox_hlo::{
    BinaryOp, CompId, Computation, EntitySet, InstId, Instruction, Module, Op, UnaryOp,
};

/// Local rewrites, each keeping the result bit for bit (up to XLA:CPU's
/// flushing of denormal floats, which `x*1 -> x` and `x/1 -> x` skip):
///
/// - `x+0 -> x` for integers; for floats only `x+(-0) -> x` (`-0+0` is `+0`)
/// - `x-0 -> x`, `x*1 -> x`, `1*x -> x`, `x/1 -> x`
/// - `x*0 -> 0` for integers only (a float `x` may be NaN, inf or negative)
/// - `-(-x) -> x`
/// - reshape, broadcast, transpose, convert, slice, pad, concatenate that
///   leave the value unchanged (same shape, layout included) -> operand
/// - `reshape(reshape(x)) -> reshape(x)`, `transpose(transpose(x))` -> one
///   transpose (or `x`)
/// - `select(c, a, b)` with a constant (or broadcast constant) predicate
/// - `get-tuple-element(tuple(...), i)` -> the i-th operand
/// - `copy(x) -> x` when the layouts agree, except a copy of a parameter that
///   is (or is in the tuple of) the root: that copy keeps the output from
///   aliasing the input buffer
/// - `broadcast(scalar constant)` -> a constant when it has at most
///   `broadcast_constant_limit` elements
#[derive(Clone, Copy, Debug)]
pub struct AlgebraicSimplifier {
    /// Largest broadcast of a scalar constant turned into a constant.
    pub broadcast_constant_limit: usize,
}

impl Default for AlgebraicSimplifier {
    fn default() -> Self {
        AlgebraicSimplifier {
            broadcast_constant_limit: 16,
        }
    }
}

/// What an instruction simplifies to.
enum Simp {
    /// An existing value of exactly the instruction's shape.
    Use(InstId),
    /// The instruction with another opcode and operands (same name, same
    /// shape).
    Rewrite(Box<Op>, Vec<InstId>),
}

struct Cx<'a, 'e> {
    ed: &'a Editor<'e>,
    root_like: bool,
    limit: usize,
}

impl Cx<'_, '_> {
    fn inst(&self, id: InstId) -> &Instruction {
        self.ed.inst(id)
    }
    fn splat(&self, id: InstId) -> Option<Vec<u8>> {
        let i = self.inst(id);
        match &i.op {
            Op::Constant { .. } => splat_of(i),
            Op::Broadcast { .. } => splat_of(self.inst(*i.operands.first()?)),
            _ => None,
        }
    }
    /// `Use(x)` when `x` has exactly the instruction's shape.
    fn use_if_same(&self, inst: &Instruction, x: InstId) -> Option<Simp> {
        (self.inst(x).shape == inst.shape).then_some(Simp::Use(x))
    }
}

/// The element of a constant whose elements are all equal.
fn splat_of(inst: &Instruction) -> Option<Vec<u8>> {
    match &inst.op {
        Op::Constant { literal } => {
            let a = literal.as_array().ok()?;
            let sz = a.ty().byte_size();
            let b = a.bytes();
            if b.is_empty() {
                return None;
            }
            let first = &b[..sz];
            b.chunks(sz).all(|ch| ch == first).then(|| first.to_vec())
        }
        _ => None,
    }
}

fn simplify(cx: &Cx, inst: &Instruction) -> Option<Simp> {
    let ops = &inst.operands;
    let ty = inst.shape.element_type();
    match &inst.op {
        Op::Binary(b) if ops.len() == 2 => {
            let ty = ty?;
            let (x, y) = (ops[0], ops[1]);
            let zero = small_int_bytes(ty, 0);
            let one = small_int_bytes(ty, 1);
            let is = |id: InstId, v: &[u8]| cx.splat(id).is_some_and(|s| s == v);
            let numeric = ty.is_integral() || ty.is_float();
            // `x op v` and `v op x` are `x` (v the unit of op): `Some` when
            // either side is v, with the rewrite if the shapes allow it.
            let unit = |v: &[u8]| {
                if is(y, v) {
                    Some(cx.use_if_same(inst, x))
                } else {
                    is(x, v).then(|| cx.use_if_same(inst, y))
                }
            };
            match b {
                BinaryOp::Add if ty.is_integral() => unit(&zero).flatten(),
                BinaryOp::Add if ty.is_float() => unit(&neg_zero_bytes(ty)).flatten(),
                BinaryOp::Subtract if numeric && is(y, &zero) => cx.use_if_same(inst, x),
                BinaryOp::Multiply if numeric => match unit(&one) {
                    Some(r) => r,
                    // `x*0` and `0*x` are the zero (integers only).
                    None if ty.is_integral() && is(y, &zero) => cx.use_if_same(inst, y),
                    None if ty.is_integral() && is(x, &zero) => cx.use_if_same(inst, x),
                    None => None,
                },
                BinaryOp::Divide if numeric && is(y, &one) => cx.use_if_same(inst, x),
                _ => None,
            }
        }
        Op::Unary(UnaryOp::Negate) => {
            let x = cx.inst(*ops.first()?);
            if matches!(x.op, Op::Unary(UnaryOp::Negate)) {
                return cx.use_if_same(inst, *x.operands.first()?);
            }
            None
        }
        Op::Reshape => {
            let x = *ops.first()?;
            if let Some(s) = cx.use_if_same(inst, x) {
                return Some(s);
            }
            let xi = cx.inst(x);
            if matches!(xi.op, Op::Reshape) {
                let y = *xi.operands.first()?;
                if let Some(s) = cx.use_if_same(inst, y) {
                    return Some(s);
                }
                return Some(Simp::Rewrite(Box::new(Op::Reshape), vec![y]));
            }
            None
        }
        Op::Broadcast { dimensions } => {
            let x = *ops.first()?;
            let xs = &cx.inst(x).shape;
            let rank = xs.as_array()?.rank();
            if dimensions.iter().copied().eq(0..rank as i64) {
                if let Some(s) = cx.use_if_same(inst, x) {
                    return Some(s);
                }
            }
            let out = inst.shape.as_array()?;
            if rank == 0 && out.element_count() <= cx.limit {
                if let Op::Constant { literal } = &cx.inst(x).op {
                    let bytes = literal.as_array().ok()?.bytes().to_vec();
                    let literal = splat_literal(&inst.shape, &bytes)?;
                    return Some(Simp::Rewrite(Box::new(Op::Constant { literal }), vec![]));
                }
            }
            None
        }
        Op::Transpose { dimensions } => {
            let x = *ops.first()?;
            if dimensions.iter().copied().eq(0..dimensions.len() as i64) {
                if let Some(s) = cx.use_if_same(inst, x) {
                    return Some(s);
                }
            }
            let xi = cx.inst(x);
            if let Op::Transpose { dimensions: inner } = &xi.op {
                let y = *xi.operands.first()?;
                let composed: Option<Vec<i64>> = dimensions
                    .iter()
                    .map(|&d| inner.get(usize::try_from(d).ok()?).copied())
                    .collect();
                let composed = composed?;
                if composed.iter().copied().eq(0..composed.len() as i64) {
                    if let Some(s) = cx.use_if_same(inst, y) {
                        return Some(s);
                    }
                }
                let op = Op::Transpose {
                    dimensions: composed,
                };
                return Some(Simp::Rewrite(Box::new(op), vec![y]));
            }
            None
        }
        Op::Convert => {
            let x = *ops.first()?;
            cx.use_if_same(inst, x)
        }
        Op::Slice { dims } => {
            let x = *ops.first()?;
            let xs = cx.inst(x).shape.as_array()?;
            let full = dims.len() == xs.rank()
                && dims
                    .iter()
                    .zip(&xs.dims)
                    .all(|(d, &n)| d.start == 0 && d.limit == n && d.stride == 1);
            if full {
                return cx.use_if_same(inst, x);
            }
            None
        }
        Op::Concatenate { .. } if ops.len() == 1 => cx.use_if_same(inst, ops[0]),
        Op::Pad { dims } => {
            if dims
                .iter()
                .all(|d| d.lo == 0 && d.hi == 0 && d.interior == 0)
            {
                return cx.use_if_same(inst, *ops.first()?);
            }
            None
        }
        Op::Select if ops.len() == 3 => {
            let p = cx.splat(ops[0])?;
            let pick = if p.iter().any(|&b| b != 0) {
                ops[1]
            } else {
                ops[2]
            };
            cx.use_if_same(inst, pick)
        }
        Op::GetTupleElement { index } => {
            let t = cx.inst(*ops.first()?);
            if matches!(t.op, Op::Tuple) {
                let e = *t.operands.get(usize::try_from(*index).ok()?)?;
                return cx.use_if_same(inst, e);
            }
            None
        }
        Op::Copy => {
            let x = *ops.first()?;
            if cx.root_like && matches!(cx.inst(x).op, Op::Parameter { .. }) {
                return None;
            }
            cx.use_if_same(inst, x)
        }
        _ => None,
    }
}

/// Instructions that are the root or an element of a root tuple.
fn root_like(c: &Computation) -> EntitySet<InstId> {
    let mut v = EntitySet::new();
    if let Some(r) = c.instructions.get(c.root) {
        v.insert(c.root);
        if matches!(r.op, Op::Tuple) {
            v.extend(r.operands.iter().copied());
        }
    }
    v
}

impl LocalRewrite for AlgebraicSimplifier {
    const NAME: &'static str = "algsimp";
    type Pass = AlgebraicSimplifier;
    /// The instructions that are the root or in the root tuple.
    type State = EntitySet<InstId>;

    fn start(pass: &AlgebraicSimplifier, _: &mut Module) -> Result<AlgebraicSimplifier, PassError> {
        Ok(*pass)
    }

    fn begin(&mut self, _: &Module, _: CompId, c: &Computation) -> Option<EntitySet<InstId>> {
        Some(root_like(c))
    }

    fn rewrite(&mut self, site: Site<'_, '_, Self::State>, id: InstId) -> Rewritten {
        let Site {
            state: root_like,
            ed,
            ..
        } = site;
        let cx = Cx {
            ed,
            root_like: root_like.contains(id),
            limit: self.broadcast_constant_limit,
        };
        match simplify(&cx, ed.inst(id)) {
            Some(Simp::Use(x)) => {
                ed.replace_all_uses(id, x)?;
                ed.remove(id)?;
            }
            Some(Simp::Rewrite(op, operands)) => ed.rewrite(id, *op, operands, vec![])?,
            None => {}
        }
        Ok(())
    }
}

local_rewrite_pass!(AlgebraicSimplifier => AlgebraicSimplifier);
