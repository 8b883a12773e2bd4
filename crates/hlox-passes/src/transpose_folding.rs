//! Transposes folded into the dots that read them (XLA's
//! `TransposeFolding`), also through a reshape that merges the transposed
//! dimensions: `dot(reshape(transpose(x)), y)` becomes a dot of `x` whose
//! dimension numbers name `x`'s dimensions, so the transposed copy is
//! never written.
//!
//! Attention is where this matters: JAX lowers `einsum("hqk,khd->qhd")`
//! to a dot whose result is `[h, d, q]`, a transpose to `[q, h, d]` and a
//! reshape to `[q, h*d]` for the output projection; the gradient has two
//! more such transposes. Each is an element loop that reads across rows
//! (three dimensions longer than one, so not a tiled 2-D transpose): 50 us
//! of a transformer block's 6.7 ms gradient each. Folded, the product reads
//! `x` with strides (the Host's matrix-product libraries pack their
//! operands anyway).
//!
//! A dot dimension may stand for several dimensions of `x` (the reshape
//! merged them): a contracting one is paired with the other operand's
//! contracting dimension split the same way (a reshape of a row-major
//! operand: the same bytes), a free one makes the result's dimension
//! several, merged back by a reshape after the dot. A fold happens only
//! when
//!
//! - the reshape only merges (or keeps) the transpose's dimensions;
//! - each batch dimension is one dimension of `x`;
//! - the free dimensions come out of the new dot in the order the old
//!   result had them (so the reshape after it moves no element);
//! - `x`'s batch, free and contracting dimensions each form one strided
//!   run in its layout, as the Host's direct matrix-product path needs
//!   (otherwise that path would copy `x` first, as the transpose did);
//! - the reshapes it adds are of row-major arrays (no copies).
//!
//! The Host pipeline runs this pass; the CUDA one does not (its cuBLAS
//! path takes row-major operands with leading batch dimensions, and a
//! folded dot would fall back to the element loop).

use crate::rewrite::{local_rewrite_pass, FreshNames, NamingRewrite, Rewritten, Site};
use crate::util::NameUniquer;
use hlox_hlo::edit::{Cursor, Editor, NewInst};
use hlox_hlo::semantics::dot::group_stride;
use hlox_hlo::shape_inference::infer_shape;
use hlox_hlo::{DotDimensionNumbers, InstId, Instruction, Op, Shape};

/// Folds `transpose` (and `reshape(transpose)`) operands into dots.
#[derive(Clone, Copy, Debug, Default)]
pub struct TransposeFolding;

local_rewrite_pass!(TransposeFolding => FreshNames<TransposeFolding>);

impl NamingRewrite for TransposeFolding {
    const NAME: &'static str = "transpose-folding";
    type State = ();

    fn concerns(i: &Instruction) -> bool {
        matches!(i.op, Op::Dot { .. }) && i.operands.len() == 2
    }

    fn rewrite(names: &mut NameUniquer, site: Site<'_, '_, ()>, id: InstId) -> Rewritten {
        let ed = site.ed;
        // One side per visit: the pipeline's fixed point comes back for the other.
        for side in 0..2 {
            let Some(plan) = Fold::of(ed, id, side) else {
                continue;
            };
            let inst = ed.inst(id);
            let (name, metadata) = (inst.name.clone(), inst.metadata.clone());
            let at = Cursor::Before(id);
            let mut operands = inst.operands.clone();
            operands[side] = plan.x;
            if let Some(split) = plan.other_split {
                let r = NewInst::new(
                    names.fresh(&format!("{name}.split")),
                    Op::Reshape,
                    vec![operands[1 - side]],
                )
                .with_metadata(metadata.clone());
                operands[1 - side] = ed.insert_declared(at, r, split)?;
            }
            match plan.result {
                None => ed.rewrite(id, plan.op, operands, vec![])?,
                Some(shape) => {
                    let d = NewInst::new(names.fresh(&format!("{name}.folded")), plan.op, operands)
                        .with_metadata(metadata);
                    let d = ed.insert_declared(at, d, shape)?;
                    ed.rewrite(id, Op::Reshape, vec![d], vec![])?;
                }
            }
            return Ok(());
        }
        Ok(())
    }
}

/// One side of a dot folded.
struct Fold {
    /// What the dot reads instead of the transpose (or its reshape).
    x: InstId,
    /// The new dot (dimension numbers over `x`).
    op: Op,
    /// The other operand's shape with its contracting dimensions split,
    /// when a contracting dimension stood for several of `x`'s.
    other_split: Option<Shape>,
    /// The new dot's result, when it has more dimensions than the old one
    /// (which becomes a reshape of it).
    result: Option<Shape>,
}

impl Fold {
    fn of(ed: &Editor<'_>, id: InstId, side: usize) -> Option<Fold> {
        let dot = ed.inst(id);
        let Op::Dot { dnums, precision } = &dot.op else {
            return None;
        };
        let o = dot.operands[side];
        let y = dot.operands[1 - side];
        let (groups, x) = groups_of(ed, o)?;
        let xs = ed.inst(x).shape.as_array()?;
        let ys = ed.inst(y).shape.as_array()?;
        let out = dot.shape.as_array()?;
        let (ob, oc, yb, yc) = if side == 0 {
            (
                &dnums.lhs_batch_dims,
                &dnums.lhs_contracting_dims,
                &dnums.rhs_batch_dims,
                &dnums.rhs_contracting_dims,
            )
        } else {
            (
                &dnums.rhs_batch_dims,
                &dnums.rhs_contracting_dims,
                &dnums.lhs_batch_dims,
                &dnums.lhs_contracting_dims,
            )
        };
        let group = |d: i64| groups.get(usize::try_from(d).ok()?);
        // Batch: one dimension of x each.
        let mut xb = Vec::with_capacity(ob.len());
        for &d in ob {
            match group(d)?.as_slice() {
                [one] => xb.push(*one as i64),
                _ => return None,
            }
        }
        // Contracting: the groups' dimensions, and the other operand's
        // paired dimension split into their sizes.
        let mut xc = Vec::new();
        let mut split_sizes: Vec<Vec<i64>> = ys.dims.iter().map(|&n| vec![n]).collect();
        for (&d, &e) in oc.iter().zip(yc) {
            let g = group(d)?;
            if g.is_empty() {
                return None;
            }
            xc.extend(g.iter().map(|&i| i as i64));
            *split_sizes.get_mut(usize::try_from(e).ok()?)? =
                g.iter().map(|&i| xs.dims[i]).collect();
        }
        // The other operand's dimensions after the split: where each old one went.
        let mut at = Vec::with_capacity(ys.rank());
        let mut next = 0i64;
        for s in &split_sizes {
            at.push(next..next + s.len() as i64);
            next += s.len() as i64;
        }
        let moved = |d: i64| at.get(usize::try_from(d).ok()?).cloned();
        let mut yb2 = Vec::with_capacity(yb.len());
        for &d in yb {
            yb2.push(moved(d)?.start);
        }
        let mut yc2 = Vec::new();
        for &d in yc {
            yc2.extend(moved(d)?);
        }
        let other_split = if next as usize != ys.rank() {
            if !ys.layout.is_default() {
                return None;
            }
            Some(Shape::array(ys.ty, split_sizes.concat()))
        } else {
            None
        };
        // Free: x's remaining dimensions (ascending, as dot orders them)
        // must be the old free dimensions' groups in order.
        let xfree: Vec<usize> = (0..xs.rank())
            .filter(|&i| !xb.contains(&(i as i64)) && !xc.contains(&(i as i64)))
            .collect();
        let ofree: Vec<usize> = (0..groups.len())
            .filter(|&j| !ob.contains(&(j as i64)) && !oc.contains(&(j as i64)))
            .collect();
        let wide_free: Vec<usize> = xfree.iter().copied().filter(|&i| xs.dims[i] != 1).collect();
        let from_groups: Vec<usize> = ofree
            .iter()
            .flat_map(|&j| groups[j].iter().copied())
            .collect();
        if wide_free != from_groups {
            return None;
        }
        // The direct product's condition on x: each role one strided run.
        let (sizes, strides): (Vec<usize>, Vec<usize>) = (
            xs.dims.iter().map(|&n| n.max(0) as usize).collect(),
            xs.strides(),
        );
        let run = |dims: &[i64]| {
            let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
            group_stride(&sizes, &strides, &dims).is_some()
        };
        let xfree_i: Vec<i64> = xfree.iter().map(|&d| d as i64).collect();
        if !(run(&xb) && run(&xfree_i) && run(&xc)) {
            return None;
        }
        let dnums = if side == 0 {
            DotDimensionNumbers {
                lhs_batch_dims: xb,
                lhs_contracting_dims: xc,
                rhs_batch_dims: yb2,
                rhs_contracting_dims: yc2,
            }
        } else {
            DotDimensionNumbers {
                lhs_batch_dims: yb2,
                lhs_contracting_dims: yc2,
                rhs_batch_dims: xb,
                rhs_contracting_dims: xc,
            }
        };
        let op = Op::Dot {
            dnums,
            precision: precision.clone(),
        };
        // The new result (batch, lhs free, rhs free), from shape inference.
        let x_shape = &ed.inst(x).shape;
        let y_shape = other_split
            .clone()
            .unwrap_or_else(|| ed.inst(y).shape.clone());
        let operands = if side == 0 {
            [x_shape, &y_shape]
        } else {
            [&y_shape, x_shape]
        };
        let inferred = infer_shape(&op, &operands, &[]).ok()?;
        let result = if inferred.as_array()?.dims == out.dims {
            None
        } else {
            if !out.layout.is_default() {
                return None;
            }
            Some(inferred)
        };
        Some(Fold {
            x,
            op,
            other_split,
            result,
        })
    }
}

/// For a dot operand `o` that is `transpose(x)` or `reshape(transpose(x))`
/// (the reshape only merging dimensions): `x` and, for each of `o`'s
/// dimensions, the dimensions of `x` longer than 1 it stands for (major to
/// minor in `o`).
fn groups_of(ed: &Editor<'_>, o: InstId) -> Option<(Vec<Vec<usize>>, InstId)> {
    let oi = ed.inst(o);
    let (t, merged) = match &oi.op {
        Op::Transpose { .. } => (o, None),
        Op::Reshape => (*oi.operands.first()?, Some(oi.shape.as_array()?)),
        _ => return None,
    };
    let ti = ed.inst(t);
    let Op::Transpose { dimensions: perm } = &ti.op else {
        return None;
    };
    let x = *ti.operands.first()?;
    let tdims = &ti.shape.as_array()?.dims;
    let from = |i: usize| perm.get(i).and_then(|&d| usize::try_from(d).ok());
    let Some(od) = merged else {
        let groups = (0..tdims.len())
            .map(|i| {
                Some(if tdims[i] == 1 {
                    vec![]
                } else {
                    vec![from(i)?]
                })
            })
            .collect::<Option<Vec<_>>>()?;
        return Some((groups, x));
    };
    // Merge groups: consecutive transposed dimensions (those longer than 1)
    // whose sizes multiply to each of o's.
    let wide: Vec<usize> = (0..tdims.len()).filter(|&i| tdims[i] != 1).collect();
    let mut k = 0;
    let mut groups = Vec::with_capacity(od.rank());
    for &n in &od.dims {
        let mut g = Vec::new();
        let mut size = 1i64;
        while size < n {
            let &i = wide.get(k)?;
            size = size.checked_mul(tdims[i])?;
            g.push(from(i)?);
            k += 1;
        }
        if size != n {
            return None; // a split, not a merge
        }
        groups.push(g);
    }
    (k == wide.len()).then_some((groups, x))
}
