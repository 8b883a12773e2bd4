//! A scatter of one window written as a `dynamic-update-slice`.

use crate::rewrite::{
    local_rewrite_pass, FreshNames, NamingRewrite, RewriteError, Rewritten, Site,
};
use crate::util::NameUniquer;
use hlox_hlo::edit::{Cursor, Editor, NewInst};
use hlox_hlo::{
    ArrayShape, BinaryOp, ComparisonDirection, Computation, ElementType, InstId, Instruction,
    Literal, Op, Shape, SliceDim,
};

/// Rewrites a scatter that updates one window (its indices hold a single
/// index vector: JAX's `x.at[i].set(v)`, `x.at[i].add(v)`, the pivot swaps
/// of `jnp.linalg.solve`) into straight-line HLO that the compilers emit
/// inline and in place:
///
/// ```text
/// old  = dynamic-slice(operand, starts)             the window as it is
/// new  = update (reshaped to the window), or map(old, update) to_apply
/// fits = AND over the indexed dimensions of 0 <= start <= dim - window
/// out  = dynamic-update-slice(operand, select(fits, new, old), starts)
/// ```
///
/// Exact under hlox's (and XLA's) scatter semantics: a window that does not
/// fit in the operand is skipped, and the clamped `dynamic-update-slice`
/// then writes back the very elements it read. Only single-operand
/// scatters without batching dimensions are rewritten; the rest stay
/// scatters.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScatterToUpdateSlice;

local_rewrite_pass!(ScatterToUpdateSlice => FreshNames<ScatterToUpdateSlice>);

impl NamingRewrite for ScatterToUpdateSlice {
    const NAME: &'static str = "scatter-to-update-slice";
    type State = ();

    fn concerns(i: &Instruction) -> bool {
        matches!(i.op, Op::Scatter { .. }) && i.operands.len() == 3
    }

    fn rewrite(names: &mut NameUniquer, site: Site<'_, '_, ()>, id: InstId) -> Rewritten {
        let Site { module, ed, .. } = site;
        let Some(plan) = Plan::of(ed, id) else {
            return Ok(());
        };
        let inst = ed.inst(id);
        let name = inst.name.clone();
        let (operand, indices, update) = (inst.operands[0], inst.operands[1], inst.operands[2]);
        let Some(&combiner) = inst.called.first() else {
            return Ok(());
        };
        let combine = Combine::of(&module.computations[combiner]);
        let at = Cursor::Before(id);
        let mut b = Build {
            ed,
            names,
            at,
            base: name.clone(),
        };
        let ity = plan.index_ty;
        // The index vector, then one scalar start per operand dimension.
        let vector = b.declared(
            "index",
            Op::Reshape,
            vec![indices],
            Shape::array(ity, vec![plan.index_map.len() as i64]),
        )?;
        let zero = b.int_constant("zero", ity, 0)?;
        let mut starts = vec![zero; plan.window.len()];
        let mut fits: Option<InstId> = None;
        for (k, &d) in plan.index_map.iter().enumerate() {
            let one = b.declared(
                &format!("index{k}"),
                Op::Slice {
                    dims: vec![SliceDim {
                        start: k as i64,
                        limit: k as i64 + 1,
                        stride: 1,
                    }],
                },
                vec![vector],
                Shape::array(ity, vec![1]),
            )?;
            let start = b.declared(
                &format!("start{d}"),
                Op::Reshape,
                vec![one],
                Shape::scalar(ity),
            )?;
            starts[d] = start;
            let last = plan.operand_dims[d] - plan.window[d];
            let hi = b.int_constant(&format!("last{d}"), ity, last)?;
            let ge = b.compare(start, zero, ComparisonDirection::Ge)?;
            let le = b.compare(start, hi, ComparisonDirection::Le)?;
            let both = b.binary(BinaryOp::And, ge, le)?;
            fits = Some(match fits {
                None => both,
                Some(f) => b.binary(BinaryOp::And, f, both)?,
            });
        }
        let window = Shape::Array(ArrayShape::new(plan.ty, plan.window.clone()));
        let mut old_ops = vec![operand];
        old_ops.extend(&starts);
        let old = b.declared(
            "old",
            Op::DynamicSlice {
                sizes: plan.window.clone(),
            },
            old_ops,
            window.clone(),
        )?;
        let upd = b.declared("update", Op::Reshape, vec![update], window.clone())?;
        let new = match combine {
            Combine::Replace => upd,
            Combine::Binary(op, swap) => {
                let (x, y) = if swap { (upd, old) } else { (old, upd) };
                let name = b.names.fresh(&format!("{}.combined", b.base));
                b.ed.insert(at, NewInst::new(name, Op::Binary(op), vec![x, y]))?
            }
            Combine::Map => {
                let rank = plan.window.len() as i64;
                let map = NewInst::new(
                    b.names.fresh(&format!("{}.combined", b.base)),
                    Op::Map {
                        dimensions: (0..rank).collect(),
                    },
                    vec![old, upd],
                )
                .with_called(vec![combiner]);
                b.ed.insert(at, map)?
            }
        };
        let value = match fits {
            Some(fits) => {
                let pred = Shape::array(ElementType::Pred, plan.window.clone());
                let mask = b.declared(
                    "fits",
                    Op::Broadcast { dimensions: vec![] },
                    vec![fits],
                    pred,
                )?;
                let sel = NewInst::new(
                    b.names.fresh(&format!("{}.value", b.base)),
                    Op::Select,
                    vec![mask, new, old],
                );
                b.ed.insert(at, sel)?
            }
            // No indexed dimension: the window starts at 0 and fits.
            None => new,
        };
        let mut ops = vec![operand, value];
        ops.extend(&starts);
        b.ed.rewrite(id, Op::DynamicUpdateSlice, ops, vec![])?;
        Ok(())
    }
}

/// How the window's new value follows from its old value and the update.
enum Combine {
    /// `to_apply(old, update)` returns `update`: a plain store.
    Replace,
    /// `to_apply` is one binary op of its parameters (swapped: `update op
    /// old`): that op, element-wise, which fusion can take in.
    Binary(BinaryOp, bool),
    /// Anything else: `map(old, update)` with the scatter's `to_apply`.
    Map,
}

impl Combine {
    fn of(c: &Computation) -> Combine {
        let param = |id: InstId| match c.inst(id).op {
            Op::Parameter { number } => Some(number),
            _ => None,
        };
        let root = c.inst(c.root);
        if c.params.len() != 2 {
            return Combine::Map;
        }
        match &root.op {
            Op::Parameter { number: 1 } => Combine::Replace,
            Op::Binary(op) if root.operands.len() == 2 => {
                match (param(root.operands[0]), param(root.operands[1])) {
                    (Some(0), Some(1)) => Combine::Binary(*op, false),
                    (Some(1), Some(0)) => Combine::Binary(*op, true),
                    _ => Combine::Map,
                }
            }
            _ => Combine::Map,
        }
    }
}

/// What the rewrite needs from a scatter it can rewrite.
struct Plan {
    ty: ElementType,
    index_ty: ElementType,
    operand_dims: Vec<i64>,
    /// The window's extent in each operand dimension.
    window: Vec<i64>,
    /// The operand dimension of each index vector entry.
    index_map: Vec<usize>,
}

impl Plan {
    fn of(ed: &Editor, id: InstId) -> Option<Plan> {
        let inst = ed.inst(id);
        let Op::Scatter { dnums, .. } = &inst.op else {
            return None;
        };
        if !dnums.input_batching_dims.is_empty() || !dnums.scatter_indices_batching_dims.is_empty()
        {
            return None;
        }
        let array = |k: usize| ed.inst(inst.operands[k]).shape.as_array().cloned();
        let (operand, indices, update) = (array(0)?, array(1)?, array(2)?);
        let result = inst.shape.as_array()?;
        if !result.compatible(&operand)
            || update.ty != operand.ty
            || !indices.ty.is_integral()
            || indices.ty == ElementType::Pred
        {
            return None;
        }
        // One index vector: every indices dimension but the vector's is 1.
        let ivd = usize::try_from(dnums.index_vector_dim).ok()?;
        let vector_len = if ivd < indices.dims.len() {
            indices.dims[ivd]
        } else {
            1
        };
        if indices.element_count() as i64 != vector_len
            || vector_len as usize != dnums.scatter_dims_to_operand_dims.len()
        {
            return None;
        }
        let rank = operand.dims.len();
        let inserted: Vec<usize> = dnums
            .inserted_window_dims
            .iter()
            .map(|&d| usize::try_from(d).ok().filter(|&d| d < rank))
            .collect::<Option<_>>()?;
        let mut window_dims = dnums.update_window_dims.iter();
        let mut window = Vec::with_capacity(rank);
        for d in 0..rank {
            if inserted.contains(&d) {
                window.push(1);
            } else {
                let u = usize::try_from(*window_dims.next()?).ok()?;
                window.push(*update.dims.get(u)?);
            }
        }
        if window_dims.next().is_some()
            || update.element_count() != window.iter().product::<i64>() as usize
            || window.iter().zip(&operand.dims).any(|(&w, &d)| w > d)
            || window.contains(&0)
        {
            return None;
        }
        let index_map: Vec<usize> = dnums
            .scatter_dims_to_operand_dims
            .iter()
            .map(|&d| usize::try_from(d).ok().filter(|&d| d < rank))
            .collect::<Option<_>>()?;
        Some(Plan {
            ty: operand.ty,
            index_ty: indices.ty,
            operand_dims: operand.dims.clone(),
            window,
            index_map,
        })
    }
}

/// Inserts the new instructions before the scatter, named after it.
struct Build<'a, 'e> {
    ed: &'a mut Editor<'e>,
    names: &'a mut NameUniquer,
    at: Cursor,
    base: String,
}

impl Build<'_, '_> {
    fn declared(
        &mut self,
        what: &str,
        op: Op,
        operands: Vec<InstId>,
        shape: Shape,
    ) -> Result<InstId, RewriteError> {
        let new = NewInst::new(
            self.names.fresh(&format!("{}.{what}", self.base)),
            op,
            operands,
        );
        Ok(self.ed.insert_declared(self.at, new, shape)?)
    }

    /// The scalar `v` in the integer type `ty`, saturated to its range (a
    /// bound past the type's largest value is never reached by an index).
    fn int_constant(
        &mut self,
        what: &str,
        ty: ElementType,
        v: i64,
    ) -> Result<InstId, RewriteError> {
        let bits = 8 * ty.byte_size() as u32;
        let v = if ty.is_unsigned_int() {
            let max = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            (v.max(0) as u64).min(max)
        } else {
            let max = if bits >= 64 {
                i64::MAX
            } else {
                (1i64 << (bits - 1)) - 1
            };
            v.min(max) as u64
        };
        let bytes = v.to_le_bytes()[..ty.byte_size()].to_vec();
        let literal = hlox_hlo::ArrayLiteral::from_bytes(ArrayShape::scalar(ty), bytes)
            .map(Literal::Array)
            .map_err(|e| RewriteError::at(&self.base, format!("constant {v} of {ty}: {e}")))?;
        let name = self.names.fresh(&format!("{}.{what}", self.base));
        Ok(self.ed.insert(
            self.at,
            NewInst::new(name, Op::Constant { literal }, vec![]),
        )?)
    }

    fn compare(
        &mut self,
        x: InstId,
        y: InstId,
        direction: ComparisonDirection,
    ) -> Result<InstId, RewriteError> {
        let name = self.names.fresh(&format!("{}.in_bounds", self.base));
        let op = Op::Compare {
            direction,
            cmp_type: None,
        };
        Ok(self
            .ed
            .insert(self.at, NewInst::new(name, op, vec![x, y]))?)
    }

    fn binary(&mut self, op: BinaryOp, x: InstId, y: InstId) -> Result<InstId, RewriteError> {
        let name = self.names.fresh(&format!("{}.fits", self.base));
        Ok(self
            .ed
            .insert(self.at, NewInst::new(name, Op::Binary(op), vec![x, y]))?)
    }
}
