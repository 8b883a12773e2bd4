//! Computations applied element-wise, before transforming:
//!
//! - each `map` instruction becomes its scalar computation applied to
//!   whole arrays (element-wise ops on the operands, scalar constants
//!   broadcast to the map's shape), in place, so the rules of the
//!   element-wise ops differentiate and batch it and no rule of its own is
//!   needed;
//! - for jvp and vjp, each variadic `reduce` whose computation mixes its
//!   operands (an online log-sum-exp's (max, scaled sum), a mean and its
//!   count; not one that splits into a reduce per operand, `split.rs`,
//!   nor an argmax/argmin, which has rules of its own) becomes JAX's
//!   `_reduce_jvp` tree: the reduced dimensions moved last and flattened,
//!   then halved until one element is left, each step the
//!   computation applied element-wise to the two halves (an odd half
//!   padded with the init values). The tree holds only data movement and
//!   element-wise ops, whose rules differentiate it, in both modes and to
//!   any order. Its primal result is the tree's (as JAX's: the rounding of
//!   another association order). vmap batches such a reduce as it is;
//! - for jvp and vjp, each variadic `reduce-window` that does not split
//!   into one per operand (`split.rs`), and each of one operand whose
//!   computation is not a sum, product, max or min, becomes a fold over the window's
//!   positions: the accumulators start at the init values, the operands
//!   are padded and dilated, one strided slice is taken per position, and
//!   the computation is applied element-wise to the accumulators and each
//!   slice in turn; positions that fall on padding or a dilation hole are
//!   masked out with a `select`, so they are skipped as XLA skips them,
//!   whatever the init values (the padding is the operand's first
//!   element, so the masked-out steps have finite derivatives). This is the
//!   computation's derivative over the same windows, JAX's
//!   `reduce_window_jvp`, in ops whose rules also transpose it (JAX has
//!   no reverse mode for a general reduce-window). vmap batches it as it
//!   is.

use crate::{unsupported, TransformError};
use hlox_hlo::ir::{
    CompId, Computation, InstId, Instruction, Module, Op, PadDim, SliceDim, Window,
};
use hlox_hlo::{ElementType, Literal, PrimaryMap, SecondaryMap, Shape};
use std::borrow::Cow;
use std::collections::HashSet;

/// The most positions a variadic reduce-window's window may have to be
/// folded (each position adds a slice and the computation's ops per
/// operand to the module).
pub(crate) const MAX_FOLDED_WINDOW: i64 = 4096;

/// `m` with every `map` expanded, and with `trees` every variadic reduce
/// that mixes its operands made a tree of its computation and every
/// variadic reduce-window a fold over its window; `m` itself when it has
/// none of them.
pub(crate) fn expand_maps<'m>(
    m: &'m Module,
    transform: &'static str,
    trees: bool,
) -> Result<Cow<'m, Module>, TransformError> {
    let has_map = |c: &Computation| {
        c.instructions.values().any(|i| {
            matches!(i.op, Op::Map { .. })
                || (trees && (mixing_reduce(m, c, i) || folded_window(m, i)))
        })
    };
    if !m.computations.values().any(has_map) {
        return Ok(Cow::Borrowed(m));
    }
    let mut names: HashSet<String> = m
        .computations
        .values()
        .flat_map(|c| c.instructions.values().map(|i| i.name.clone()))
        .collect();
    let mut out = m.clone();
    for (id, c) in m.computations.iter() {
        if has_map(c) {
            out.computations[id] = expand_in(m, c, transform, trees, &mut names)?;
        }
    }
    Ok(Cow::Owned(out))
}

/// Whether `inst` (of `c`) is a variadic reduce whose computation mixes
/// its operands: neither split into one reduce per operand
/// (`split::components`) nor an argmax/argmin (a pair-picking computation
/// over values and an iota along the one reduced dimension), which the
/// argmax rules cover. (A reduce of one operand whose computation is no
/// sum, product, max or min stays an error: a tree would apply its init
/// value a different number of times than the evaluator does, which
/// matters when it is not the computation's identity.)
fn mixing_reduce(m: &Module, c: &Computation, inst: &Instruction) -> bool {
    let Some(&reducer) = inst.called.first() else {
        return false;
    };
    if !matches!(inst.op, Op::Reduce { .. }) {
        return false;
    }
    if !inst.shape.is_tuple() || inst.operands.len() < 4 {
        return false;
    }
    if crate::split::components(m, reducer).is_some() {
        return false;
    }
    !crate::rules::linear::is_argmax(|x| c.inst(x), m, inst, &inst.operands)
}

/// Whether `inst` is a reduce-window to fold: a variadic one that does
/// not split into one per operand (`split.rs` splits those), or one of a
/// single operand whose computation is not a sum, product, max or min
/// (those have rules of their own).
fn folded_window(m: &Module, inst: &Instruction) -> bool {
    let Some(&r) = inst.called.first() else {
        return false;
    };
    match inst.operands.len() {
        _ if !matches!(inst.op, Op::ReduceWindow { .. }) => false,
        2 => crate::rules::reduction(m, r).is_none(),
        k => k >= 4 && inst.shape.is_tuple() && crate::split::components(m, r).is_none(),
    }
}

/// A copy of `c` with its maps (and, with `trees`, its mixing variadic
/// reduces) expanded (instructions renumbered, still in topological
/// order).
fn expand_in(
    m: &Module,
    c: &Computation,
    transform: &'static str,
    trees: bool,
    names: &mut HashSet<String>,
) -> Result<Computation, TransformError> {
    let mut x = Expander {
        m,
        transform,
        names,
        insts: PrimaryMap::new(),
    };
    let mut new_id: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::new();
    for (id, inst) in c.instructions.iter() {
        let ops: Vec<InstId> = inst
            .operands
            .iter()
            .map(|&o| new_id[o].expect("operands come first"))
            .collect();
        let n = match &inst.op {
            Op::Map { dimensions } => {
                let dims = match &inst.shape {
                    Shape::Array(a) => a.dims.clone(),
                    _ => return Err(unsupported(transform, inst, "a map of tuples")),
                };
                if *dimensions != (0..dims.len() as i64).collect::<Vec<_>>() {
                    return Err(unsupported(
                        transform,
                        inst,
                        "a map over some of the dimensions only",
                    ));
                }
                let r = x.apply(inst, inst.called[0], &ops, &dims)?;
                match r[..] {
                    [r] => r,
                    _ => return Err(unsupported(transform, inst, "a map of tuples")),
                }
            }
            Op::Reduce { dimensions } if trees && mixing_reduce(m, c, inst) => {
                x.reduce_tree(inst, dimensions, &ops)?
            }
            Op::ReduceWindow { window } if trees && folded_window(m, inst) => {
                x.window_fold(inst, window, &ops)?
            }
            _ => {
                let mut i = inst.clone();
                i.operands = ops;
                x.insts.push(i)
            }
        };
        new_id[id] = Some(n);
    }
    let params = c
        .params
        .iter()
        .map(|&p| new_id[p].expect("a parameter is an instruction"))
        .collect();
    Ok(Computation {
        name: c.name.clone(),
        root: new_id[c.root].expect("the root is an instruction"),
        instructions: x.insts,
        params,
        execution_thread: c.execution_thread.clone(),
    })
}

struct Expander<'a> {
    m: &'a Module,
    transform: &'static str,
    names: &'a mut HashSet<String>,
    insts: PrimaryMap<InstId, Instruction>,
}

impl Expander<'_> {
    fn name(&mut self, base: &str) -> String {
        let mut n = base.to_string();
        let mut k = 1;
        while !self.names.insert(n.clone()) {
            n = format!("{base}.{k}");
            k += 1;
        }
        n
    }

    fn push(&mut self, base: &str, op: Op, shape: Shape, operands: Vec<InstId>) -> InstId {
        let name = self.name(base);
        self.insts.push(Instruction::new(name, op, shape, operands))
    }

    /// The scalar computation `f` applied element-wise to the arrays
    /// `args` of dimensions `dims`, for the map or reduce (or call inside
    /// their computation) `at`: its result, or its root tuple's elements.
    fn apply(
        &mut self,
        at: &Instruction,
        f: CompId,
        args: &[InstId],
        dims: &[i64],
    ) -> Result<Vec<InstId>, TransformError> {
        let comp = self.m.comp(f);
        let mut val: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::new();
        for (id, inst) in comp.instructions.iter() {
            let ops: Vec<InstId> = inst
                .operands
                .iter()
                .map(|&o| val[o].expect("operands come first"))
                .collect();
            let transform = self.transform;
            let refuse = |why: &str| {
                Err(unsupported(
                    transform,
                    at,
                    format!(
                        "its computation `{}` has `{}` ({}): {why}",
                        comp.name,
                        inst.name,
                        inst.op.name()
                    ),
                ))
            };
            if id == comp.root && matches!(inst.op, Op::Tuple) {
                return Ok(ops);
            }
            let Shape::Array(a) = &inst.shape else {
                return refuse("only scalar computations are applied element-wise");
            };
            if !a.dims.is_empty() {
                return refuse("only scalar computations are applied element-wise");
            }
            let shape = Shape::array(a.ty, dims.to_vec());
            let base = format!("{}.{}", at.name, inst.name);
            let v = match &inst.op {
                Op::Parameter { number } => args[*number as usize],
                Op::Constant { .. } => {
                    let mut k = inst.clone();
                    k.name = self.name(&base);
                    k.operands.clear();
                    let k = self.insts.push(k);
                    self.push(&base, Op::Broadcast { dimensions: vec![] }, shape, vec![k])
                }
                Op::Call => match self.apply(at, inst.called[0], &ops, dims)?[..] {
                    [r] => r,
                    _ => return refuse("only scalar computations are applied element-wise"),
                },
                // Scalar to scalar: the value itself.
                Op::Copy | Op::Reshape | Op::Bitcast | Op::Broadcast { .. } => ops[0],
                op if op.is_elementwise() && inst.called.is_empty() => {
                    self.push(&base, op.clone(), shape, ops)
                }
                _ => {
                    return refuse(
                        "only element-wise ops, constants and calls are applied element-wise",
                    )
                }
            };
            val[id] = Some(v);
        }
        Ok(vec![val[comp.root].expect("the root is an instruction")])
    }

    /// The variadic reduce `at` (over `reduced`, of the new operands
    /// `ops`: arrays, then their init values) as JAX's `_reduce_jvp` tree:
    /// a tuple of its results under its name.
    fn reduce_tree(
        &mut self,
        at: &Instruction,
        reduced: &[i64],
        ops: &[InstId],
    ) -> Result<InstId, TransformError> {
        let n = ops.len() / 2;
        let (xs, inits) = ops.split_at(n);
        let leaves = match &at.shape {
            Shape::Tuple(l) => l.clone(),
            a => vec![a.clone()],
        };
        let Some(dims) = self.insts[xs[0]].shape.as_array().map(|a| a.dims.clone()) else {
            return Err(unsupported(self.transform, at, "a reduce of tuples"));
        };
        let tys: Vec<_> = xs
            .iter()
            .map(|&x| self.insts[x].shape.element_type())
            .collect::<Option<_>>()
            .ok_or_else(|| unsupported(self.transform, at, "a reduce of tuples"))?;
        let kept: Vec<i64> = (0..dims.len() as i64)
            .filter(|d| !reduced.contains(d))
            .collect();
        // The reduced dimensions moved last (JAX moves them first; last
        // leaves a row reduction's operands in place) and flattened.
        let perm: Vec<i64> = kept.iter().chain(reduced).copied().collect();
        let moved = perm.iter().enumerate().any(|(i, &p)| p != i as i64);
        let kdims: Vec<i64> = kept.iter().map(|&d| dims[d as usize]).collect();
        let len: i64 = reduced.iter().map(|&d| dims[d as usize]).product();
        let base = at.name.clone();
        let with_len = |l: i64| [&kdims[..], &[l]].concat();
        let mut cur = Vec::with_capacity(n);
        for (&x, &ty) in xs.iter().zip(&tys) {
            let mut x = x;
            if moved {
                let pd: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
                let t = Op::Transpose {
                    dimensions: perm.clone(),
                };
                x = self.push(&base, t, Shape::array(ty, pd), vec![x]);
            }
            if moved || reduced.len() != 1 {
                x = self.push(&base, Op::Reshape, Shape::array(ty, with_len(len)), vec![x]);
            }
            cur.push(x);
        }
        // Every kept dimension whole; the last one `[start, limit)`.
        let kept_whole: Vec<SliceDim> = kdims
            .iter()
            .map(|&k| SliceDim {
                start: 0,
                limit: k,
                stride: 1,
            })
            .collect();
        let mut l = len;
        while l > 1 {
            let half = (l + 1) / 2;
            let mut args = Vec::with_capacity(2 * n);
            for (start, limit) in [(0, half), (half, l)] {
                let mut sl = kept_whole.clone();
                sl.push(SliceDim {
                    start,
                    limit,
                    stride: 1,
                });
                for (j, (&x, &ty)) in cur.iter().zip(&tys).enumerate() {
                    let part = Shape::array(ty, with_len(limit - start));
                    let mut h = self.push(&base, Op::Slice { dims: sl.clone() }, part, vec![x]);
                    if limit - start < half {
                        // The odd element's partner: the init value.
                        let mut pads = vec![PadDim::default(); kdims.len()];
                        pads.push(PadDim {
                            lo: 0,
                            hi: 1,
                            interior: 0,
                        });
                        let padded = Shape::array(ty, with_len(half));
                        h = self.push(&base, Op::Pad { dims: pads }, padded, vec![h, inits[j]]);
                    }
                    args.push(h);
                }
            }
            cur = self.apply(at, at.called[0], &args, &with_len(half))?;
            if cur.len() != n {
                return Err(unsupported(
                    self.transform,
                    at,
                    "its computation does not return one value per operand",
                ));
            }
            l = half;
        }
        let mut results = Vec::with_capacity(n);
        for (j, &x) in cur.iter().enumerate() {
            let r = if len == 0 {
                self.push(
                    &base,
                    Op::Broadcast { dimensions: vec![] },
                    leaves[j].clone(),
                    vec![inits[j]],
                )
            } else {
                self.push(&base, Op::Reshape, leaves[j].clone(), vec![x])
            };
            results.push(r);
        }
        if !at.shape.is_tuple() {
            // One operand: its result under the reduce's name.
            let mut r = Instruction::new(base, Op::Copy, at.shape.clone(), results);
            r.metadata = at.metadata.clone();
            return Ok(self.insts.push(r));
        }
        let mut t = Instruction::new(base, Op::Tuple, at.shape.clone(), results);
        t.metadata = at.metadata.clone();
        Ok(self.insts.push(t))
    }

    /// The variadic reduce-window `at` (of the new operands `ops`: arrays,
    /// then their init values) as a fold over its window's positions: a
    /// tuple of its results under its name.
    fn window_fold(
        &mut self,
        at: &Instruction,
        window: &Window,
        ops: &[InstId],
    ) -> Result<InstId, TransformError> {
        let n = ops.len() / 2;
        let (xs, inits) = ops.split_at(n);
        let transform = self.transform;
        let refuse = |why: String| Err(unsupported(transform, at, why));
        let leaves = match &at.shape {
            Shape::Tuple(l) => l.clone(),
            a => vec![a.clone()],
        };
        let Some(in_dims) = self.insts[xs[0]].shape.as_array().map(|a| a.dims.clone()) else {
            return refuse("a reduce-window of tuples".into());
        };
        let Some(out_dims) = leaves
            .first()
            .and_then(|l| l.as_array())
            .map(|a| a.dims.clone())
        else {
            return refuse("a reduce-window of tuples".into());
        };
        if window.dims.len() != in_dims.len() || window.dims.iter().any(|w| w.reversal) {
            return refuse("a window with reversal".into());
        }
        let positions: i64 = window.dims.iter().map(|w| w.size).product();
        if positions > MAX_FOLDED_WINDOW {
            return refuse(format!(
                "its window has {positions} positions; such a reduce-window is differentiated by folding its computation over them, at most {MAX_FOLDED_WINDOW}"
            ));
        }
        let tys: Vec<ElementType> = xs
            .iter()
            .map(|&x| self.insts[x].shape.element_type())
            .collect::<Option<_>>()
            .ok_or_else(|| unsupported(self.transform, at, "a reduce-window of tuples"))?;
        let base = at.name.clone();
        // The accumulators start at the init values.
        let mut acc: Vec<InstId> = (0..n)
            .map(|j| {
                let b = Op::Broadcast { dimensions: vec![] };
                self.push(
                    &base,
                    b,
                    Shape::array(tys[j], out_dims.clone()),
                    vec![inits[j]],
                )
            })
            .collect();
        // With no operand element, every position is padding.
        let some = in_dims.iter().product::<i64>() > 0;
        if out_dims.iter().product::<i64>() > 0 && positions > 0 && some {
            let pads: Vec<PadDim> = window.dims.iter().map(|w| w.base_pad()).collect();
            let padded_dims: Vec<i64> = in_dims
                .iter()
                .zip(&pads)
                .map(|(&d, p)| {
                    let core = if d > 0 {
                        (d - 1) * (p.interior + 1) + 1
                    } else {
                        0
                    };
                    core + p.lo + p.hi
                })
                .collect();
            let padded = pads.iter().any(|p| *p != PadDim::default());
            // Padded with the operand's first element, not the init
            // value: the masked-out steps still run, and their derivatives
            // reach whatever fills the padding. At (init, init) those may
            // be NaN (an online log-sum-exp's exp(-inf - -inf)), which a
            // zero cotangent does not cancel, and an init value may depend
            // on the differentiated parameters; at (accumulator, operand
            // element) they are as finite as at any real step.
            let first = SliceDim {
                start: 0,
                limit: 1,
                stride: 1,
            };
            let mut src = Vec::with_capacity(n);
            for (j, &x) in xs.iter().enumerate() {
                src.push(if padded {
                    let op = Op::Slice {
                        dims: vec![first; in_dims.len()],
                    };
                    let one = Shape::array(tys[j], vec![1; in_dims.len()]);
                    let e = self.push(&base, op, one, vec![x]);
                    let e = self.push(&base, Op::Reshape, Shape::array(tys[j], vec![]), vec![e]);
                    let op = Op::Pad { dims: pads.clone() };
                    let s = Shape::array(tys[j], padded_dims.clone());
                    self.push(&base, op, s, vec![x, e])
                } else {
                    x
                });
            }
            // Where the padded operands hold an operand's element.
            let mask = if padded {
                let t = self.constant(&base, Literal::r0(true));
                let f = self.constant(&base, Literal::r0(false));
                let b = Op::Broadcast { dimensions: vec![] };
                let all = self.push(
                    &base,
                    b,
                    Shape::array(ElementType::Pred, in_dims.clone()),
                    vec![t],
                );
                let op = Op::Pad { dims: pads.clone() };
                let s = Shape::array(ElementType::Pred, padded_dims.clone());
                Some(self.push(&base, op, s, vec![all, f]))
            } else {
                None
            };
            let mut k = vec![0i64; window.dims.len()];
            for _ in 0..positions {
                let dims: Vec<SliceDim> = window
                    .dims
                    .iter()
                    .zip(&k)
                    .zip(&out_dims)
                    .map(|((w, &k), &o)| {
                        let start = k * w.window_dilation;
                        SliceDim {
                            start,
                            limit: start + (o - 1) * w.stride + 1,
                            stride: w.stride,
                        }
                    })
                    .collect();
                let mut args = acc.clone();
                for (j, &s) in src.iter().enumerate() {
                    let op = Op::Slice { dims: dims.clone() };
                    let sh = Shape::array(tys[j], out_dims.clone());
                    args.push(self.push(&base, op, sh, vec![s]));
                }
                let next = self.apply(at, at.called[0], &args, &out_dims)?;
                if next.len() != n {
                    return refuse("its computation does not return one value per operand".into());
                }
                // Whether every window at this position reads an operand
                // element (no padding or hole): then nothing is masked.
                let inside = dims.iter().zip(&pads).zip(&in_dims).all(|((sl, p), &d)| {
                    (sl.start..sl.limit)
                        .step_by(sl.stride.max(1) as usize)
                        .all(|i| {
                            let q = i - p.lo;
                            q >= 0 && q % (p.interior + 1) == 0 && q / (p.interior + 1) < d
                        })
                });
                acc = match mask {
                    Some(mask) if !inside => {
                        let op = Op::Slice { dims };
                        let sh = Shape::array(ElementType::Pred, out_dims.clone());
                        let inside = self.push(&base, op, sh, vec![mask]);
                        next.iter()
                            .zip(&acc)
                            .enumerate()
                            .map(|(j, (&v, &a))| {
                                let sh = Shape::array(tys[j], out_dims.clone());
                                self.push(&base, Op::Select, sh, vec![inside, v, a])
                            })
                            .collect()
                    }
                    _ => next,
                };
                // The next position, the last dimension fastest.
                for d in (0..k.len()).rev() {
                    k[d] += 1;
                    if k[d] < window.dims[d].size {
                        break;
                    }
                    k[d] = 0;
                }
            }
        }
        if !at.shape.is_tuple() {
            // One operand: its accumulator under the reduce-window's name.
            let mut r = Instruction::new(base, Op::Copy, at.shape.clone(), acc);
            r.metadata = at.metadata.clone();
            return Ok(self.insts.push(r));
        }
        let mut t = Instruction::new(base, Op::Tuple, at.shape.clone(), acc);
        t.metadata = at.metadata.clone();
        Ok(self.insts.push(t))
    }

    fn constant(&mut self, base: &str, literal: Literal) -> InstId {
        let shape = literal.shape();
        self.push(base, Op::Constant { literal }, shape, vec![])
    }
}
