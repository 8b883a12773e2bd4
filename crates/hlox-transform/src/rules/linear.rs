//! Transposes of the ops that are linear in (some of) their operands, for
//! reverse mode, and the masks and indicators that both modes of
//! `select`, `clamp` and max/min reductions use.
//!
//! [`transpose`] takes the forward instruction, its operands' primal
//! values, its result and the result's cotangent, and gives each
//! operand's cotangent (`None`: zero, or not differentiable).

use crate::emit::Emitter;
use crate::rules::{is_assignment, reducer_op};
use crate::{unsupported, TransformError};
use hlox_hlo::ir::{
    BinaryOp, ComparisonDirection, ConvDimensionNumbers, Convolution, DotDimensionNumbers, FftType,
    GatherDimensionNumbers, InstId, Instruction, Module, Op, PadDim, ScatterDimensionNumbers,
    SliceDim, UnaryOp, Window, WindowDim,
};
use hlox_hlo::Shape;

type Cts = Vec<Option<InstId>>;

/// Each operand's cotangent, given the result's cotangent `ct`.
pub(crate) fn transpose(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    ops: &[InstId],
    out: InstId,
    ct: InstId,
) -> Result<Cts, TransformError> {
    let n = ops.len();
    let mut r: Cts = vec![None; n];
    match &inst.op {
        Op::Copy | Op::OptimizationBarrier => r[0] = Some(ct),
        Op::ReducePrecision { .. } => r[0] = Some(e.add(inst.op.clone(), &[ct], &[])?),
        Op::SelectAndScatter { window } if plain_window(window) => {
            // JAX's transpose (select-and-gather-add): each source element
            // receives the cotangent of the position its window selected.
            let select = m.comp(inst.called[0]);
            let dir =
                match select.root_inst().op {
                    Op::Compare { direction, .. } => direction,
                    _ => return Err(unsupported(
                        e.transform,
                        inst,
                        "only select-and-scatters that select by a comparison are differentiated",
                    )),
                };
            let a = e.arr(ops[0])?;
            let worst = match dir {
                ComparisonDirection::Ge | ComparisonDirection::Gt => f64::NEG_INFINITY,
                _ => f64::INFINITY,
            };
            let chooser = e.out.pair_chooser(dir, a.ty)?;
            let init_x = e.scalar(a.ty, worst)?;
            let init_t = e.scalar(a.ty, 0.0)?;
            let g = e.add(
                Op::ReduceWindow {
                    window: window.clone(),
                },
                &[ops[0], ct, init_x, init_t],
                &[chooser],
            )?;
            r[1] = Some(e.gte(g, 1)?);
            r[2] = Some(ct_to_init(e, ct)?);
        }
        Op::Convert => {
            let (ti, to) = (e.ty(ops[0])?, e.ty(out)?);
            if ti.is_float_or_complex() && to.is_float_or_complex() {
                // A real value made complex transposes to the real part
                // (JAX's rule; HLO has no complex-to-real convert).
                let c = if to.is_complex() && !ti.is_complex() {
                    e.unary(UnaryOp::Real, ct)?
                } else {
                    ct
                };
                r[0] = Some(e.convert(c, ti)?);
            }
        }
        Op::Reshape | Op::Bitcast => {
            let d = e.dims(ops[0])?;
            r[0] = Some(e.reshape(ct, &d)?);
        }
        Op::Broadcast { dimensions } => {
            let d = e.dims(ops[0])?;
            r[0] = Some(e.unbroadcast(ct, dimensions, &d)?);
        }
        Op::Transpose { dimensions } => {
            let mut inv = vec![0i64; dimensions.len()];
            for (i, &p) in dimensions.iter().enumerate() {
                inv[p as usize] = i as i64;
            }
            r[0] = Some(e.transpose(ct, &inv)?);
        }
        Op::Reverse { dimensions } => r[0] = Some(e.reverse(ct, dimensions)?),
        Op::Slice { dims } => {
            let a = e.arr(ops[0])?;
            let od = e.dims(out)?;
            if od.contains(&0) {
                r[0] = Some(e.full(a.ty, &a.dims, 0.0)?);
            } else {
                let pads = dims
                    .iter()
                    .zip(&a.dims)
                    .zip(&od)
                    .map(|((s, &n), &o)| PadDim {
                        lo: s.start,
                        hi: n - (s.start + (o - 1) * s.stride + 1),
                        interior: s.stride - 1,
                    })
                    .collect();
                let z = e.scalar(a.ty, 0.0)?;
                r[0] = Some(e.pad(ct, z, pads)?);
            }
        }
        Op::Pad { dims } => {
            // JAX's rule: undo the edge padding with a negative pad, drop
            // the interior padding with a strided slice; the padding value
            // receives everything else.
            let ty = e.ty(ct)?;
            let z = e.scalar(ty, 0.0)?;
            let unpad = dims
                .iter()
                .map(|p| PadDim {
                    lo: -p.lo,
                    hi: -p.hi,
                    interior: 0,
                })
                .collect();
            let u = e.pad(ct, z, unpad)?;
            let ud = e.dims(u)?;
            let sl = dims
                .iter()
                .zip(&ud)
                .map(|(p, &n)| SliceDim {
                    start: 0,
                    limit: n,
                    stride: p.interior + 1,
                })
                .collect();
            let cx = e.slice(u, sl)?;
            let rank = ud.len() as i64;
            let all: Vec<i64> = (0..rank).collect();
            let total = e.reduce_sum(ct, &all)?;
            let inner = e.reduce_sum(cx, &all)?;
            r[0] = Some(cx);
            r[1] = Some(e.sub(total, inner)?);
        }
        Op::Concatenate { dimension } => {
            let d = *dimension as usize;
            let cd = e.dims(ct)?;
            let mut off = 0;
            for (k, &o) in ops.iter().enumerate() {
                let od = e.dims(o)?;
                let sl = cd
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| {
                        if i == d {
                            SliceDim {
                                start: off,
                                limit: off + od[i],
                                stride: 1,
                            }
                        } else {
                            SliceDim {
                                start: 0,
                                limit: n,
                                stride: 1,
                            }
                        }
                    })
                    .collect();
                off += od[d];
                r[k] = Some(e.slice(ct, sl)?);
            }
        }
        Op::Dot { dnums, .. } => {
            r[0] = Some(dot_transpose(e, dnums, ops[0], ops[1], ct, true)?);
            r[1] = Some(dot_transpose(e, dnums, ops[0], ops[1], ct, false)?);
        }
        Op::Select => {
            let zero = e.full_like(ct, 0.0)?;
            r[1] = Some(e.select(ops[0], ct, zero)?);
            r[2] = Some(e.select(ops[0], zero, ct)?);
        }
        Op::Clamp => {
            let masks = clamp_masks(e, ops[0], ops[1], ops[2])?;
            let zero = e.full_like(ct, 0.0)?;
            for (k, mask) in [(0, masks.lo), (1, masks.x), (2, masks.hi)] {
                let c = e.select(mask, ct, zero)?;
                let rank = e.arr(ops[k])?.rank();
                r[k] = Some(if rank == 0 && !e.dims(c)?.is_empty() {
                    let all: Vec<i64> = (0..e.arr(c)?.rank() as i64).collect();
                    e.reduce_sum(c, &all)?
                } else {
                    c
                });
            }
        }
        Op::DynamicSlice { .. } => {
            let a = e.arr(ops[0])?;
            let z = e.full(a.ty, &a.dims, 0.0)?;
            let mut o = vec![z, ct];
            o.extend(&ops[1..]);
            r[0] = Some(e.add(Op::DynamicUpdateSlice, &o, &[])?);
        }
        Op::DynamicUpdateSlice => {
            let u = e.arr(ops[1])?;
            let z = e.full(u.ty, &u.dims, 0.0)?;
            let mut o = vec![ct, z];
            o.extend(&ops[2..]);
            r[0] = Some(e.add(Op::DynamicUpdateSlice, &o, &[])?);
            let mut o = vec![ct];
            o.extend(&ops[2..]);
            r[1] = Some(e.add(Op::DynamicSlice { sizes: u.dims }, &o, &[])?);
        }
        Op::Reduce { dimensions } if n == 2 => {
            let x = ops[0];
            let xd = e.dims(x)?;
            let kept: Vec<i64> = (0..xd.len() as i64)
                .filter(|d| !dimensions.contains(d))
                .collect();
            match super::reduction(m, inst.called[0]) {
                Some(super::Reduction::Sum) => {
                    r[0] = Some(e.broadcast_in_dim(ct, &xd, &kept)?);
                    r[1] = Some(ct_to_init(e, ct)?);
                }
                Some(super::Reduction::Choice) => {
                    let (ind, counts) = chooser_indicators(e, x, out, dimensions)?;
                    let q = e.div(ct, counts)?;
                    let b = e.broadcast_in_dim(q, &xd, &kept)?;
                    r[0] = Some(e.mul(b, ind)?);
                }
                Some(super::Reduction::Product) => {
                    // y = init * prod(x): d/dx_i = init * (the product of the
                    // others), d/dinit = prod(x).
                    let others = others_product(e, x, dimensions)?;
                    let cd = e.dims(ct)?;
                    let init = scalar_to(e, ops[1], &cd)?;
                    let scaled = e.mul(ct, init)?;
                    let b = e.broadcast_in_dim(scaled, &xd, &kept)?;
                    r[0] = Some(e.mul(b, others)?);
                    let p = e.reduce_with(BinaryOp::Multiply, x, dimensions, 1.0)?;
                    let cp = e.mul(ct, p)?;
                    r[1] = Some(ct_to_init(e, cp)?);
                }
                _ => {
                    return Err(unsupported(
                        e.transform,
                        inst,
                        "only sum, product, max and min reductions are differentiated",
                    ))
                }
            }
        }
        Op::Convolution(Convolution {
            window,
            dnums,
            feature_group_count,
            batch_group_count,
            precision,
        }) => {
            let conv = ConvTranspose::new(
                e,
                window,
                dnums,
                precision,
                [*feature_group_count, *batch_group_count],
                [ops[0], ops[1], ct],
            )?;
            r[0] = Some(conv.lhs(e)?);
            r[1] = Some(conv.rhs(e)?);
        }
        Op::ReduceWindow { window }
            if n == 2 && reducer_op(m, inst.called[0]) == Some(BinaryOp::Multiply) =>
        {
            let (cx, cinit) = product_window_transpose(e, inst, window, ops[0], ops[1], ct)?;
            r[0] = Some(cx);
            r[1] = Some(cinit);
        }
        Op::ReduceWindow { window } if n == 2 => {
            let x = ops[0];
            let a = e.arr(x)?;
            let reducer = reducer_op(m, inst.called[0]);
            if window.dims.iter().any(|w| w.reversal) {
                return Err(unsupported(
                    e.transform,
                    inst,
                    "a reduce-window with window reversal is not differentiated yet",
                ));
            }
            let chooser = matches!(reducer, Some(BinaryOp::Maximum | BinaryOp::Minimum));
            if chooser && window.dims.iter().any(|w| w.window_dilation > 1) {
                return Err(unsupported(
                    e.transform,
                    inst,
                    "a max or min reduce-window with window dilation has no reverse mode: JAX does not implement it either (its select-and-gather-add transpose refuses window dilation); forward mode (jvp) works",
                ));
            }
            match reducer {
                Some(BinaryOp::Add) => {
                    // JAX's transpose (`_reduce_window_sum_transpose_rule`):
                    // pad the cotangent (strides become interior padding,
                    // the edges those of a convolution's input transpose)
                    // and sum it over the same window, window dilation
                    // kept, base dilation becoming the stride.
                    let od = e.dims(ct)?;
                    let pads = window
                        .dims
                        .iter()
                        .zip(&a.dims)
                        .zip(&od)
                        .map(|((w, &i), &o)| {
                            let kernel = dilate(w.size, w.window_dilation);
                            let before = kernel - w.pad_lo - 1;
                            PadDim {
                                lo: before,
                                hi: dilate(i, w.base_dilation) + kernel
                                    - 1
                                    - dilate(o, w.stride)
                                    - before,
                                interior: w.stride - 1,
                            }
                        })
                        .collect();
                    let z = e.scalar(a.ty, 0.0)?;
                    let padded = e.pad(ct, z, pads)?;
                    let w = Window {
                        dims: window
                            .dims
                            .iter()
                            .map(|w| WindowDim {
                                stride: w.base_dilation,
                                window_dilation: w.window_dilation,
                                ..WindowDim::new(w.size)
                            })
                            .collect(),
                    };
                    let comp = e.out.reducer(BinaryOp::Add, a.ty)?;
                    r[0] = Some(e.add(Op::ReduceWindow { window: w }, &[padded, z], &[comp])?);
                    r[1] = Some(ct_to_init(e, ct)?);
                }
                Some(op @ (BinaryOp::Maximum | BinaryOp::Minimum)) => {
                    let dir = if op == BinaryOp::Maximum {
                        ComparisonDirection::Ge
                    } else {
                        ComparisonDirection::Le
                    };
                    let select = e.out.comparator(dir, a.ty)?;
                    let scatter = e.out.reducer(BinaryOp::Add, a.ty)?;
                    let z = e.scalar(a.ty, 0.0)?;
                    // Base dilation (JAX's `_select_and_gather_add_transpose`):
                    // the holes made explicit with the identity, which no
                    // window selects over an element, and sliced away after.
                    let based = window.dims.iter().any(|w| w.base_dilation > 1);
                    let (operand, w) = if based {
                        let worst = if op == BinaryOp::Maximum {
                            f64::NEG_INFINITY
                        } else {
                            f64::INFINITY
                        };
                        let id = e.scalar(a.ty, worst)?;
                        let holes = window
                            .dims
                            .iter()
                            .map(|w| PadDim {
                                lo: 0,
                                hi: 0,
                                interior: w.base_dilation - 1,
                            })
                            .collect();
                        let xp = e.pad(x, id, holes)?;
                        let w = Window {
                            dims: window
                                .dims
                                .iter()
                                .map(|w| WindowDim {
                                    base_dilation: 1,
                                    ..*w
                                })
                                .collect(),
                        };
                        (xp, w)
                    } else {
                        (x, window.clone())
                    };
                    let mut cx = e.add(
                        Op::SelectAndScatter { window: w },
                        &[operand, ct, z],
                        &[select, scatter],
                    )?;
                    if based {
                        let back = window
                            .dims
                            .iter()
                            .zip(&a.dims)
                            .map(|(w, &n)| SliceDim {
                                start: 0,
                                limit: dilate(n, w.base_dilation),
                                stride: w.base_dilation,
                            })
                            .collect();
                        cx = e.slice(cx, back)?;
                    }
                    r[0] = Some(cx);
                }
                _ => {
                    return Err(unsupported(
                        e.transform,
                        inst,
                        "only sum, product, max and min reduce-windows are differentiated",
                    ))
                }
            }
        }
        Op::Gather {
            dnums,
            slice_sizes,
            indices_are_sorted,
        } => {
            let a = e.arr(ops[0])?;
            let idx = clamp_gather_indices(e, ops[1], dnums, &a.dims, slice_sizes)?;
            let z = e.full(a.ty, &a.dims, 0.0)?;
            let comp = e.out.reducer(BinaryOp::Add, a.ty)?;
            r[0] = Some(e.add(
                Op::Scatter {
                    dnums: scatter_of_gather(dnums),
                    indices_are_sorted: *indices_are_sorted,
                    unique_indices: false,
                },
                &[z, idx, ct],
                &[comp],
            )?);
        }
        Op::Scatter {
            dnums,
            indices_are_sorted,
            ..
        } if n == 3 && reducer_op(m, inst.called[0]) == Some(BinaryOp::Add) => {
            // The operand's cotangent passes through; each update's is
            // read back where it was added.
            let (od, ud) = (e.dims(ops[0])?, e.dims(ops[2])?);
            let read = gather_of_scatter(dnums, &od, &ud, *indices_are_sorted);
            r[0] = Some(ct);
            r[2] = Some(e.add(read.clone(), &[ct, ops[1]], &[])?);
        }
        Op::Scatter {
            dnums,
            indices_are_sorted,
            unique_indices,
        } if n == 3 && is_assignment(m, inst.called[0]) => {
            // JAX's rule for `x.at[i].set(v)`: scatter each update's id
            // with the same scatter, so where indices repeat the update
            // that won is known. The operand's cotangent is zero where it
            // was overwritten; an update's is the cotangent where it won.
            let (od, ud) = (e.dims(ops[0])?, e.dims(ops[2])?);
            let s32 = hlox_hlo::ElementType::S32;
            let count: i64 = ud.iter().product();
            let ids = e.add_shaped(
                Op::Iota { dimension: 0 },
                &[],
                &[],
                Shape::array(s32, vec![count]),
            )?;
            let one = e.full(s32, &[count], 1.0)?;
            let ids = e.addv(ids, one)?;
            let ids = e.reshape(ids, &ud)?;
            let none = e.full(s32, &od, 0.0)?;
            let assign = e.out.assigner(s32)?;
            let written = e.add(
                Op::Scatter {
                    dnums: dnums.clone(),
                    indices_are_sorted: *indices_are_sorted,
                    unique_indices: *unique_indices,
                },
                &[none, ops[1], ids],
                &[assign],
            )?;
            let kept = e.compare(ComparisonDirection::Eq, written, none)?;
            let zero = e.full_like(ct, 0.0)?;
            r[0] = Some(e.select(kept, ct, zero)?);
            let read = gather_of_scatter(dnums, &od, &ud, *indices_are_sorted);
            let winner = e.add(read.clone(), &[written, ops[1]], &[])?;
            let won = e.compare(ComparisonDirection::Eq, winner, ids)?;
            let cu = e.add(read, &[ct, ops[1]], &[])?;
            let zu = e.full_like(cu, 0.0)?;
            r[2] = Some(e.select(won, cu, zu)?);
        }
        Op::Scatter {
            dnums,
            indices_are_sorted,
            ..
        } if n == 3 && reducer_op(m, inst.called[0]) == Some(BinaryOp::Multiply) => {
            // `x.at[i].multiply(u)` (JAX's transposes): the operand's
            // cotangent is the cotangent multiplied by the same updates;
            // an update's (unique indices: `vjp.rs` refuses others) is
            // the cotangent times the operand, read where it landed.
            r[0] = Some(e.add(inst.op.clone(), &[ct, ops[1], ops[2]], &inst.called)?);
            let (od, ud) = (e.dims(ops[0])?, e.dims(ops[2])?);
            let read = gather_of_scatter(dnums, &od, &ud, *indices_are_sorted);
            let cx = e.mul(ct, ops[0])?;
            r[2] = Some(e.add(read, &[cx, ops[1]], &[])?);
        }
        Op::Fft {
            fft_type,
            fft_length,
        } => r[0] = Some(fft_transpose(e, *fft_type, fft_length, ct)?),
        Op::TopK { .. } => {
            // The values' cotangent goes back where they were taken from.
            let cv = e.gte(ct, 0)?;
            let idx = e.gte(out, 1)?;
            let xd = e.dims(ops[0])?;
            r[0] = Some(add_along(e, cv, idx, xd.len() as i64 - 1, &xd)?);
        }
        _ => {
            return Err(unsupported(
                e.transform,
                inst,
                "no reverse-mode rule for this opcode yet",
            ))
        }
    }
    Ok(r)
}

fn dilate(n: i64, d: i64) -> i64 {
    if n == 0 {
        0
    } else {
        1 + d * (n - 1)
    }
}

/// A convolution of `a` and `b` with `precision` and `[feature_group_count,
/// batch_group_count]`.
fn convolution(
    e: &mut Emitter,
    dims: Vec<WindowDim>,
    dnums: ConvDimensionNumbers,
    precision: &[hlox_hlo::ir::Precision],
    [feature_group_count, batch_group_count]: [i64; 2],
    a: InstId,
    b: InstId,
) -> Result<InstId, TransformError> {
    e.add(
        Op::Convolution(Convolution {
            window: Window { dims },
            dnums,
            feature_group_count,
            batch_group_count,
            precision: precision.to_vec(),
        }),
        &[a, b],
        &[],
    )
}

/// A convolution `lhs * rhs` whose operands reverse mode transposes
/// against the result's cotangent `ct`: what both transposes read.
struct ConvTranspose<'a> {
    dn: &'a ConvDimensionNumbers,
    precision: &'a [hlox_hlo::ir::Precision],
    /// The convolution's feature and batch group counts (at most one of
    /// them above 1).
    groups: [i64; 2],
    lhs: InstId,
    rhs: InstId,
    ct: InstId,
    /// The element types of `lhs`, `rhs` and `ct`.
    types: [hlox_hlo::ElementType; 3],
    spatial: Vec<Spatial<'a>>,
}

/// One spatial dimension of a convolution being transposed.
struct Spatial<'a> {
    w: &'a WindowDim,
    /// The dilated extents of the input, kernel and output (`dilate` by
    /// base dilation, window dilation and stride), which both transposes
    /// pad against.
    input: i64,
    kernel: i64,
    output: i64,
    /// The undilated extents of the kernel and the cotangent: the window
    /// sizes of the two transposes.
    kernel_size: i64,
    ct_size: i64,
}

impl<'a> ConvTranspose<'a> {
    fn new(
        e: &Emitter,
        window: &'a Window,
        dn: &'a ConvDimensionNumbers,
        precision: &'a [hlox_hlo::ir::Precision],
        groups: [i64; 2],
        [lhs, rhs, ct]: [InstId; 3],
    ) -> Result<Self, TransformError> {
        let [la, ra, ca] = [e.arr(lhs)?, e.arr(rhs)?, e.arr(ct)?];
        let spatial = window
            .dims
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let kernel_size = ra.dims[dn.kernel_spatial_dimensions[i] as usize];
                let ct_size = ca.dims[dn.output_spatial_dimensions[i] as usize];
                Spatial {
                    w,
                    input: dilate(
                        la.dims[dn.input_spatial_dimensions[i] as usize],
                        w.base_dilation,
                    ),
                    kernel: dilate(kernel_size, w.window_dilation),
                    output: dilate(ct_size, w.stride),
                    kernel_size,
                    ct_size,
                }
            })
            .collect();
        Ok(ConvTranspose {
            dn,
            precision,
            groups,
            lhs,
            rhs,
            ct,
            types: [la.ty, ra.ty, ca.ty],
            spatial,
        })
    }

    /// The window of a transpose: one dimension per spatial dimension.
    fn window(&self, dim: impl Fn(&Spatial) -> WindowDim) -> Vec<WindowDim> {
        self.spatial.iter().map(dim).collect()
    }

    /// JAX's transpose with respect to the input: the cotangent convolved
    /// with the spatially reversed kernel, input and output roles swapped,
    /// strides becoming base dilation. With `G` feature (or batch) groups
    /// the kernel's output features are `G` blocks; moving the block index
    /// into its input features makes the transpose a convolution with `G`
    /// feature groups; with batch groups its result's features then hold
    /// the `G` blocks of the input's batch, moved back there.
    fn lhs(&self, e: &mut Emitter) -> Result<InstId, TransformError> {
        let dn = self.dn;
        let dims = self.window(|s| {
            let before = s.kernel - s.w.pad_lo - 1;
            WindowDim {
                size: s.kernel_size,
                stride: s.w.base_dilation,
                pad_lo: before,
                pad_hi: s.input + s.kernel - 1 - s.output - before,
                window_dilation: s.w.window_dilation,
                base_dilation: s.w.stride,
                reversal: false,
            }
        });
        let t = ConvDimensionNumbers {
            input_batch_dimension: dn.output_batch_dimension,
            input_feature_dimension: dn.output_feature_dimension,
            input_spatial_dimensions: dn.output_spatial_dimensions.clone(),
            kernel_input_feature_dimension: dn.kernel_output_feature_dimension,
            kernel_output_feature_dimension: dn.kernel_input_feature_dimension,
            kernel_spatial_dimensions: dn.kernel_spatial_dimensions.clone(),
            output_batch_dimension: dn.input_batch_dimension,
            output_feature_dimension: dn.input_feature_dimension,
            output_spatial_dimensions: dn.input_spatial_dimensions.clone(),
        };
        let [fgc, bgc] = self.groups;
        let g = fgc.max(bgc);
        let mut k = self.rhs;
        if g > 1 {
            let (o, i) = (
                dn.kernel_output_feature_dimension as usize,
                dn.kernel_input_feature_dimension as usize,
            );
            k = e.split_axis(k, o, g)?;
            k = e.merge_axis(k, o, i)?;
        }
        let rev = e.reverse(k, &dn.kernel_spatial_dimensions)?;
        let [lhs_ty, _, ct_ty] = self.types;
        let rev = e.convert(rev, ct_ty)?;
        let mut r = convolution(e, dims, t, self.precision, [g, 1], self.ct, rev)?;
        if bgc > 1 {
            let (b, f) = (
                dn.input_batch_dimension as usize,
                dn.input_feature_dimension as usize,
            );
            r = e.split_axis(r, f, bgc)?;
            r = e.merge_axis(r, f, b)?;
        }
        e.convert(r, lhs_ty)
    }

    /// JAX's transpose with respect to the kernel: the input convolved with
    /// the cotangent, batch and feature roles swapped, strides becoming
    /// window dilation — so feature groups become batch groups and batch
    /// groups feature groups.
    fn rhs(&self, e: &mut Emitter) -> Result<InstId, TransformError> {
        let dn = self.dn;
        let dims = self.window(|s| WindowDim {
            size: s.ct_size,
            stride: s.w.window_dilation,
            pad_lo: s.w.pad_lo,
            pad_hi: (s.output - s.input) + (s.kernel - s.w.pad_lo - 1),
            window_dilation: s.w.stride,
            base_dilation: s.w.base_dilation,
            reversal: false,
        });
        let t = ConvDimensionNumbers {
            input_batch_dimension: dn.input_feature_dimension,
            input_feature_dimension: dn.input_batch_dimension,
            input_spatial_dimensions: dn.input_spatial_dimensions.clone(),
            kernel_input_feature_dimension: dn.output_batch_dimension,
            kernel_output_feature_dimension: dn.output_feature_dimension,
            kernel_spatial_dimensions: dn.output_spatial_dimensions.clone(),
            output_batch_dimension: dn.kernel_input_feature_dimension,
            output_feature_dimension: dn.kernel_output_feature_dimension,
            output_spatial_dimensions: dn.kernel_spatial_dimensions.clone(),
        };
        let [_, rhs_ty, ct_ty] = self.types;
        let x = e.convert(self.lhs, ct_ty)?;
        let [fgc, bgc] = self.groups;
        let r = convolution(e, dims, t, self.precision, [bgc, fgc], x, self.ct)?;
        e.convert(r, rhs_ty)
    }
}

/// The permutation a sort applies along `dimension` (as s32 indices of the
/// sorted result's shape): the same sort with an iota beside, its
/// comparator reading the original operands only (so ties keep the
/// original order exactly as the sort itself does).
pub(crate) fn sort_permutation(
    e: &mut Emitter,
    m: &Module,
    inst: &Instruction,
    ops: &[InstId],
    dimension: i64,
    is_stable: bool,
) -> Result<InstId, TransformError> {
    let comparator = m.comp(inst.called[0]);
    let dims = e.dims(ops[0])?;
    let s32 = hlox_hlo::ElementType::S32;
    let wrapper = {
        let mut sub = Emitter::new(
            &mut *e.out,
            &format!("{}.with_index", comparator.name),
            e.transform,
        );
        let mut params = Vec::new();
        for &p in &comparator.params {
            let sh = comparator.inst(p).shape.clone();
            params.push(sub.param(&sh, "operand"));
        }
        let s = Shape::scalar(s32);
        sub.param(&s, "index_lhs");
        sub.param(&s, "index_rhs");
        let r = sub.add(Op::Call, &params, &[inst.called[0]])?;
        sub.finish(r)
    };
    let iota = e.add_shaped(
        Op::Iota { dimension },
        &[],
        &[],
        Shape::array(s32, dims.clone()),
    )?;
    let mut o = ops.to_vec();
    o.push(iota);
    let sorted = e.add(
        Op::Sort {
            dimension,
            is_stable,
        },
        &o,
        &[wrapper],
    )?;
    e.gte(sorted, ops.len())
}

/// JAX's transposes of the four FFTs. The DFT matrix is symmetric, so
/// FFT and IFFT are their own transposes (the plain transpose: no
/// conjugate, JAX's complex convention). RFFT is the FFT of the real
/// operand made complex, sliced to its first `n/2 + 1` frequencies: its
/// transpose pads the cotangent back to `n`, applies the FFT and keeps the
/// real part (the transpose of making a real value complex). IRFFT's is
/// JAX's `_irfft_transpose`: the RFFT of the cotangent, each frequency
/// that stands for two conjugate ones doubled, scaled by `1 / prod(n)`,
/// conjugated.
fn fft_transpose(
    e: &mut Emitter,
    fft_type: FftType,
    fft_length: &[i64],
    ct: InstId,
) -> Result<InstId, TransformError> {
    let fft = |e: &mut Emitter, t, x| {
        e.add(
            Op::Fft {
                fft_type: t,
                fft_length: fft_length.to_vec(),
            },
            &[x],
            &[],
        )
    };
    let a = e.arr(ct)?;
    let last = a.rank() - 1;
    let n = *fft_length
        .last()
        .ok_or_else(|| e.internal("an fft without lengths".into()))?;
    match fft_type {
        FftType::Fft | FftType::Ifft => fft(e, fft_type, ct),
        FftType::Rfft => {
            let pads = (0..a.rank())
                .map(|d| PadDim {
                    lo: 0,
                    hi: if d == last { n - a.dims[d] } else { 0 },
                    interior: 0,
                })
                .collect();
            let z = e.scalar(a.ty, 0.0)?;
            let full = e.pad(ct, z, pads)?;
            let f = fft(e, FftType::Fft, full)?;
            e.unary(UnaryOp::Real, f)
        }
        FftType::Irfft => {
            let x = fft(e, FftType::Rfft, ct)?;
            let xa = e.arr(x)?;
            let k = xa.dims[last];
            let scale = 1.0 / fft_length.iter().product::<i64>().max(1) as f64;
            // 1 for the zero frequency (and the Nyquist one of an even
            // length), 2 for the others, times the scale.
            let weights: Vec<f64> = (0..k)
                .map(|i| {
                    let single = i == 0 || (n % 2 == 0 && i == k - 1);
                    scale * if single { 1.0 } else { 2.0 }
                })
                .collect();
            let part = xa
                .ty
                .complex_component()
                .ok_or_else(|| e.internal(format!("an IRFFT of {}", xa.ty)))?;
            let w = match part {
                hlox_hlo::ElementType::F64 => hlox_hlo::Literal::r1(&weights),
                _ => {
                    let w32: Vec<f32> = weights.iter().map(|&v| v as f32).collect();
                    hlox_hlo::Literal::r1(&w32)
                }
            };
            let w = e.constant(w)?;
            let w = e.broadcast_in_dim(w, &xa.dims, &[last as i64])?;
            let re = e.unary(UnaryOp::Real, x)?;
            let im = e.unary(UnaryOp::Imag, x)?;
            let re = e.mul(re, w)?;
            let im = e.mul(im, w)?;
            let nim = e.neg(im)?;
            e.binary(BinaryOp::Complex, re, nim)
        }
    }
}

/// The scatter that writes where a gather with `dnums` reads.
pub(crate) fn scatter_of_gather(dnums: &GatherDimensionNumbers) -> ScatterDimensionNumbers {
    ScatterDimensionNumbers {
        update_window_dims: dnums.offset_dims.clone(),
        inserted_window_dims: dnums.collapsed_slice_dims.clone(),
        scatter_dims_to_operand_dims: dnums.start_index_map.clone(),
        index_vector_dim: dnums.index_vector_dim,
        input_batching_dims: dnums.operand_batching_dims.clone(),
        scatter_indices_batching_dims: dnums.start_indices_batching_dims.clone(),
    }
}

/// The gather that reads, from an array of the scatter's operand dims
/// `od`, the update-shaped (`ud`) windows a scatter with `dnums` writes.
fn gather_of_scatter(
    dnums: &ScatterDimensionNumbers,
    od: &[i64],
    ud: &[i64],
    indices_are_sorted: bool,
) -> Op {
    let mut slice_sizes = Vec::with_capacity(od.len());
    let mut window = dnums.update_window_dims.iter();
    for i in 0..od.len() as i64 {
        if dnums.inserted_window_dims.contains(&i) || dnums.input_batching_dims.contains(&i) {
            slice_sizes.push(1);
        } else {
            let w = window.next().map_or(1, |&w| ud[w as usize]);
            slice_sizes.push(w);
        }
    }
    Op::Gather {
        dnums: GatherDimensionNumbers {
            offset_dims: dnums.update_window_dims.clone(),
            collapsed_slice_dims: dnums.inserted_window_dims.clone(),
            start_index_map: dnums.scatter_dims_to_operand_dims.clone(),
            index_vector_dim: dnums.index_vector_dim,
            operand_batching_dims: dnums.input_batching_dims.clone(),
            start_indices_batching_dims: dnums.scatter_indices_batching_dims.clone(),
        },
        slice_sizes,
        indices_are_sorted,
    }
}

/// The transpose of a product reduce-window `y = init * prod(window of
/// x)` (padding and base-dilation holes contribute nothing, as the
/// evaluator and XLA compute it): each element of `x` gets, from every
/// window it is in, that window's cotangent times `init` times the product
/// of the window's other elements. The windows are gathered as one array
/// `[out..., window...]` of `x` padded (and base-dilated) with ones, their
/// products of the others taken with [`others_product`] (exact at zeros,
/// as JAX's `cumprod` derivative is), and scattered back, added. `init`'s
/// cotangent is the sum of the cotangent times each window's product.
/// JAX's general `reduce_window` has a jvp only; this is the transpose of
/// that jvp, and what `jnp.cumprod`, which JAX lowers to a product
/// reduce-window, needs in reverse mode.
fn product_window_transpose(
    e: &mut Emitter,
    inst: &Instruction,
    window: &Window,
    x: InstId,
    init: InstId,
    ct: InstId,
) -> Result<(InstId, InstId), TransformError> {
    if window
        .dims
        .iter()
        .any(|w| w.reversal || w.pad_lo < 0 || w.pad_hi < 0)
    {
        return Err(unsupported(
            e.transform,
            inst,
            "a product reduce-window with window reversal or negative padding is not differentiated yet",
        ));
    }
    let a = e.arr(x)?;
    let od = e.dims(ct)?;
    let r = a.rank();
    // init's cotangent: the cotangent times each window's own product.
    let one = e.scalar(a.ty, 1.0)?;
    let mul = e.out.reducer(BinaryOp::Multiply, a.ty)?;
    let windows = e.add(
        Op::ReduceWindow {
            window: window.clone(),
        },
        &[x, one],
        &[mul],
    )?;
    let cw = e.mul(ct, windows)?;
    let cinit = ct_to_init(e, cw)?;
    let init_b = scalar_to(e, init, &od)?;
    let scaled = e.mul(ct, init_b)?;
    let sizes: Vec<i64> = window.dims.iter().map(|w| w.size).collect();
    let empty = a.dims.contains(&0) || od.contains(&0) || sizes.contains(&0);
    if r == 0 || empty {
        // A scalar (y = init * x) or no element in any window.
        let cx = if empty { e.full_like(x, 0.0)? } else { scaled };
        return Ok((cx, cinit));
    }
    let pads = window.dims.iter().map(|w| w.base_pad()).collect();
    let xp = e.pad(x, one, pads)?;
    let pd = e.dims(xp)?;
    // Each window's first position in `xp`: its output index times the
    // stride.
    let s32 = hlox_hlo::ElementType::S32;
    let mut idx_dims = od.clone();
    idx_dims.push(1);
    let mut starts = Vec::with_capacity(r);
    for (d, w) in window.dims.iter().enumerate() {
        let i = e.add_shaped(
            Op::Iota {
                dimension: d as i64,
            },
            &[],
            &[],
            Shape::array(s32, idx_dims.clone()),
        )?;
        let st = e.full(s32, &idx_dims, w.stride as f64)?;
        starts.push(e.mul(i, st)?);
    }
    let idx = e.concat(&starts, r as i64)?;
    let extents: Vec<i64> = window
        .dims
        .iter()
        .map(|w| dilate(w.size, w.window_dilation))
        .collect();
    let window_dims: Vec<i64> = (r as i64..2 * r as i64).collect();
    let dn = GatherDimensionNumbers {
        offset_dims: window_dims.clone(),
        collapsed_slice_dims: vec![],
        start_index_map: (0..r as i64).collect(),
        operand_batching_dims: vec![],
        start_indices_batching_dims: vec![],
        index_vector_dim: r as i64,
    };
    let g = e.add(
        Op::Gather {
            dnums: dn.clone(),
            slice_sizes: extents.clone(),
            indices_are_sorted: false,
        },
        &[xp, idx],
        &[],
    )?;
    // With window dilation, the window's elements are every
    // `window_dilation`-th of the gathered extent.
    let dilated = window.dims.iter().any(|w| w.window_dilation > 1);
    let p = if dilated {
        let mut dims: Vec<SliceDim> = od
            .iter()
            .map(|&n| SliceDim {
                start: 0,
                limit: n,
                stride: 1,
            })
            .collect();
        dims.extend(window.dims.iter().zip(&extents).map(|(w, &x)| SliceDim {
            start: 0,
            limit: x,
            stride: w.window_dilation,
        }));
        e.slice(g, dims)?
    } else {
        g
    };
    let others = others_product(e, p, &window_dims)?;
    let pdims = e.dims(p)?;
    let kept: Vec<i64> = (0..r as i64).collect();
    let b = e.broadcast_in_dim(scaled, &pdims, &kept)?;
    let mut cp = e.mul(b, others)?;
    let zero = e.scalar(a.ty, 0.0)?;
    if dilated {
        let mut dims: Vec<PadDim> = od.iter().map(|_| PadDim::default()).collect();
        dims.extend(window.dims.iter().map(|w| PadDim {
            lo: 0,
            hi: 0,
            interior: w.window_dilation - 1,
        }));
        cp = e.pad(cp, zero, dims)?;
    }
    let zp = e.full(a.ty, &pd, 0.0)?;
    let add = e.out.reducer(BinaryOp::Add, a.ty)?;
    let cxp = e.add(
        Op::Scatter {
            dnums: scatter_of_gather(&dn),
            indices_are_sorted: false,
            unique_indices: false,
        },
        &[zp, idx, cp],
        &[add],
    )?;
    let back = window
        .dims
        .iter()
        .zip(&a.dims)
        .map(|(w, &n)| SliceDim {
            start: w.pad_lo,
            limit: w.pad_lo + dilate(n, w.base_dilation),
            stride: w.base_dilation,
        })
        .collect();
    Ok((e.slice(cxp, back)?, cinit))
}

/// For each element of `x`, the product of the other elements it is
/// reduced with over `dims` (the derivative of a product reduction; exact
/// where elements are zero, unlike `prod / x`): the product of the
/// elements before it times that of the elements after it, in the
/// reduced dimensions flattened, each an exclusive cumulative product (a
/// reduce-window).
pub(crate) fn others_product(
    e: &mut Emitter,
    x: InstId,
    dims: &[i64],
) -> Result<InstId, TransformError> {
    let a = e.arr(x)?;
    let kept: Vec<i64> = (0..a.rank() as i64).filter(|d| !dims.contains(d)).collect();
    let n: i64 = dims.iter().map(|&d| a.dims[d as usize]).product();
    if n == 0 {
        return e.full_like(x, 0.0);
    }
    let perm: Vec<i64> = kept.iter().chain(dims).copied().collect();
    let xt = e.transpose(x, &perm)?;
    let mut flat: Vec<i64> = kept.iter().map(|&d| a.dims[d as usize]).collect();
    let axis = flat.len();
    flat.push(n);
    let xf = e.reshape(xt, &flat)?;
    let left = exclusive_cumprod(e, xf, axis)?;
    let xr = e.reverse(xf, &[axis as i64])?;
    let right = exclusive_cumprod(e, xr, axis)?;
    let right = e.reverse(right, &[axis as i64])?;
    let o = e.mul(left, right)?;
    let td: Vec<i64> = perm.iter().map(|&d| a.dims[d as usize]).collect();
    let o = e.reshape(o, &td)?;
    let mut inv = vec![0i64; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as i64;
    }
    e.transpose(o, &inv)
}

/// `out[i] = x[0] * ... * x[i-1]` along `axis` (1 at 0).
fn exclusive_cumprod(e: &mut Emitter, x: InstId, axis: usize) -> Result<InstId, TransformError> {
    let a = e.arr(x)?;
    let n = a.dims[axis];
    let one = e.scalar(a.ty, 1.0)?;
    let shift = (0..a.rank())
        .map(|d| PadDim {
            lo: i64::from(d == axis),
            hi: -i64::from(d == axis),
            interior: 0,
        })
        .collect();
    let shifted = e.pad(x, one, shift)?;
    let window = Window {
        dims: (0..a.rank())
            .map(|d| {
                if d == axis {
                    WindowDim {
                        pad_lo: n - 1,
                        ..WindowDim::new(n)
                    }
                } else {
                    WindowDim::new(1)
                }
            })
            .collect(),
    };
    let comp = e.out.reducer(BinaryOp::Multiply, a.ty)?;
    e.add(Op::ReduceWindow { window }, &[shifted, one], &[comp])
}

/// Gather dimension numbers that read `x[..., perm[...], ...]` along
/// `dimension` (take_along_axis), for indices of `x`'s shape plus a
/// trailing index vector dimension of 1.
pub(crate) fn take_along(rank: usize, dimension: i64) -> GatherDimensionNumbers {
    let others: Vec<i64> = (0..rank as i64).filter(|&d| d != dimension).collect();
    GatherDimensionNumbers {
        offset_dims: vec![],
        collapsed_slice_dims: vec![dimension],
        start_index_map: vec![dimension],
        index_vector_dim: rank as i64,
        operand_batching_dims: others.clone(),
        start_indices_batching_dims: others,
    }
}

/// `x[..., idx[...], ...]` along `dimension` (take_along_axis): `idx`
/// has `x`'s rank, any size along `dimension` and `x`'s elsewhere (a
/// sort's permutation, top-k's indices, an argmax's with a unit
/// dimension).
pub(crate) fn take_along_axis(
    e: &mut Emitter,
    x: InstId,
    idx: InstId,
    dimension: i64,
) -> Result<InstId, TransformError> {
    let rank = e.arr(x)?.rank();
    let mut idims = e.dims(idx)?;
    idims.push(1);
    let idx = e.reshape(idx, &idims)?;
    e.add(
        Op::Gather {
            dnums: take_along(rank, dimension),
            slice_sizes: vec![1; rank],
            indices_are_sorted: false,
        },
        &[x, idx],
        &[],
    )
}

/// What both modes say of a multiplying scatter with repeatable indices
/// whose updates are differentiated.
pub(crate) const SCATTER_MUL_UNIQUE: &str = "a scatter that multiplies is differentiated with respect to its updates only when its indices are unique (`unique_indices=true`, e.g. `x.at[i].multiply(u, unique_indices=True)`), as in JAX: with repeated indices each update's derivative is the product of the others; with respect to the operand it is differentiated either way";

/// What reverse and forward mode say of a variadic reduce that reaches
/// them and is not an argmax/argmin (splits and trees are made before).
pub(crate) const ARGMAX_ONLY: &str = "a variadic reduce is differentiated as an argmax/argmin (values and an integer iota along the one reduced dimension, reduced by a computation that picks one (value, index) pair), split into one reduce per operand (when its computation reduces each operand on its own), or as a tree of its computation applied element-wise (any other computation of element-wise ops); this one is none of these";

/// Whether `x` counts 0, 1, ... along dimension `d` (an iota, or a
/// broadcast of a rank-1 iota into `d`, as JAX builds them), its
/// instructions read through `inst`.
fn iota_along<'a>(inst: impl Fn(InstId) -> &'a Instruction, x: InstId, d: i64) -> bool {
    let i = inst(x);
    match &i.op {
        Op::Iota { dimension } => *dimension == d,
        Op::Broadcast { dimensions } => {
            dimensions[..] == [d] && matches!(inst(i.operands[0]).op, Op::Iota { dimension: 0 })
        }
        _ => false,
    }
}

/// Whether the reduce `inst` of `ops` (`values, indices, value init,
/// index init`) is an argmax/argmin: integer indices counting along its
/// one reduced dimension, reduced by a computation that picks a whole
/// (value, index) pair — so its value result is the values' element at
/// its index result. `ops`' instructions are read through `get` (the
/// emitter's, or the input computation's before transforming).
pub(crate) fn is_argmax<'a>(
    get: impl Fn(InstId) -> &'a Instruction + Copy,
    m: &Module,
    inst: &Instruction,
    ops: &[InstId],
) -> bool {
    let Op::Reduce { dimensions } = &inst.op else {
        return false;
    };
    ops.len() == 4
        && dimensions.len() == 1
        && iota_along(get, ops[1], dimensions[0])
        && get(ops[1])
            .shape
            .element_type()
            .is_some_and(|t| !t.is_float())
        && inst
            .called
            .first()
            .is_some_and(|&c| super::is_pair_picker(m, c))
}

/// An argmax/argmin's values' cotangent, given its value result's
/// cotangent `cv`: added at the chosen index (`out`'s second element).
pub(crate) fn argmax_transpose(
    e: &mut Emitter,
    x: InstId,
    out: InstId,
    cv: InstId,
    dimension: i64,
) -> Result<InstId, TransformError> {
    let idx = e.gte(out, 1)?;
    let mut idims = e.dims(idx)?;
    idims.insert(dimension as usize, 1);
    let idx = e.reshape(idx, &idims)?;
    let cv = e.reshape(cv, &idims)?;
    let xd = e.dims(x)?;
    add_along(e, cv, idx, dimension, &xd)
}

/// The transpose of [`take_along_axis`]: `ct` (of `idx`'s shape) added
/// into zeros of `operand_dims` where each element was read.
pub(crate) fn add_along(
    e: &mut Emitter,
    ct: InstId,
    idx: InstId,
    dimension: i64,
    operand_dims: &[i64],
) -> Result<InstId, TransformError> {
    let a = e.arr(ct)?;
    let mut idims = e.dims(idx)?;
    idims.push(1);
    let idx = e.reshape(idx, &idims)?;
    let z = e.full(a.ty, operand_dims, 0.0)?;
    let comp = e.out.reducer(BinaryOp::Add, a.ty)?;
    e.add(
        Op::Scatter {
            dnums: scatter_of_gather(&take_along(a.rank(), dimension)),
            indices_are_sorted: false,
            unique_indices: true,
        },
        &[z, idx, ct],
        &[comp],
    )
}

/// No base or window dilation and no reversal: the windows the
/// reduce-window rules handle.
pub(crate) fn plain_window(w: &Window) -> bool {
    w.dims
        .iter()
        .all(|d| d.base_dilation == 1 && d.window_dilation == 1 && !d.reversal)
}

/// Gather's start indices clamped into range as gather clamps them, so
/// the scatter that transposes it adds where the gather read.
fn clamp_gather_indices(
    e: &mut Emitter,
    idx: InstId,
    dn: &GatherDimensionNumbers,
    operand_dims: &[i64],
    slice_sizes: &[i64],
) -> Result<InstId, TransformError> {
    let ia = e.arr(idx)?;
    let bounds: Vec<i64> = dn
        .start_index_map
        .iter()
        .map(|&d| operand_dims[d as usize] - slice_sizes[d as usize])
        .collect();
    let b = e.constant(hlox_hlo::Literal::r1(&bounds))?;
    let b = e.convert(b, ia.ty)?;
    let ivd = dn.index_vector_dim;
    let b = if ivd as usize == ia.rank() {
        let s = e.reshape(b, &[])?;
        e.broadcast_in_dim(s, &ia.dims, &[])?
    } else {
        e.broadcast_in_dim(b, &ia.dims, &[ivd])?
    };
    let zero = e.full(ia.ty, &ia.dims, 0.0)?;
    e.add(Op::Clamp, &[zero, idx, b], &[])
}

/// The cotangent of a reduction's scalar init: the sum of every element
/// of the result's cotangent.
fn ct_to_init(e: &mut Emitter, ct: InstId) -> Result<InstId, TransformError> {
    let rank = e.arr(ct)?.rank() as i64;
    let all: Vec<i64> = (0..rank).collect();
    e.reduce_sum(ct, &all)
}

/// JAX's rule for max/min reductions: `ind` is 1 where an element equals
/// the result it reduced to, and `counts` how many did, so ties share the
/// derivative evenly.
pub(crate) fn chooser_indicators(
    e: &mut Emitter,
    x: InstId,
    y: InstId,
    dims: &[i64],
) -> Result<(InstId, InstId), TransformError> {
    let a = e.arr(x)?;
    let kept: Vec<i64> = (0..a.rank() as i64).filter(|d| !dims.contains(d)).collect();
    let yb = e.broadcast_in_dim(y, &a.dims, &kept)?;
    let eq = e.compare(ComparisonDirection::Eq, x, yb)?;
    let ind = e.convert(eq, a.ty)?;
    let counts = e.reduce_sum(ind, dims)?;
    Ok((ind, counts))
}

/// Where each operand of `clamp(lo, x, hi)` is the one selected (JAX's
/// masks), broadcast to `x`'s shape.
pub(crate) struct ClampMasks {
    pub lo: InstId,
    pub x: InstId,
    pub hi: InstId,
}

pub(crate) fn clamp_masks(
    e: &mut Emitter,
    lo: InstId,
    x: InstId,
    hi: InstId,
) -> Result<ClampMasks, TransformError> {
    use ComparisonDirection::{Gt, Lt};
    let xd = e.dims(x)?;
    let lo = scalar_to(e, lo, &xd)?;
    let hi = scalar_to(e, hi, &xd)?;
    let a = e.compare(Gt, x, lo)?;
    let b = e.compare(Lt, x, hi)?;
    let mx = e.binary(BinaryOp::And, a, b)?;
    let a = e.compare(Gt, lo, x)?;
    let b = e.compare(Lt, lo, hi)?;
    let mlo = e.binary(BinaryOp::And, a, b)?;
    let mhi = e.compare(Lt, hi, x)?;
    Ok(ClampMasks {
        lo: mlo,
        x: mx,
        hi: mhi,
    })
}

/// A scalar broadcast to `dims` (clamp's bounds may be scalars).
pub(crate) fn scalar_to(
    e: &mut Emitter,
    x: InstId,
    dims: &[i64],
) -> Result<InstId, TransformError> {
    if e.arr(x)?.rank() == 0 && !dims.is_empty() {
        e.broadcast_in_dim(x, dims, &[])
    } else {
        Ok(x)
    }
}

/// Dimensions of `0..rank` in neither list, ascending.
fn free_dims(rank: usize, a: &[i64], b: &[i64]) -> Vec<i64> {
    (0..rank as i64)
        .filter(|d| !a.contains(d) && !b.contains(d))
        .collect()
}

fn position(v: &[i64], x: i64) -> i64 {
    v.iter().position(|&y| y == x).unwrap_or(0) as i64
}

/// One operand's cotangent of a dot: the product of the result's
/// cotangent `ct` with the `other` operand, contracting `ct`'s dimensions
/// that came from `other` (`ct_contracting`) with `other`'s free
/// dimensions (`other_free`). The product is laid out as the operand it is
/// the cotangent of (batch, `free`, `contracting`, in the operand's
/// dimension order) with a transpose; of the two operand orders, `ct`
/// first or `other` first, the one that needs no transpose is taken when
/// there is one (the weight gradient of `x @ w` is `x^T @ ct`, not the
/// transpose of `ct^T @ x`: the transposed copy would be materialized).
struct DotCotangent<'a> {
    /// The operand's rank, batch, free and contracting dimensions.
    rank: usize,
    batch: &'a [i64],
    free: &'a [i64],
    contracting: &'a [i64],
    /// The other operand's batch and contracting dimensions (in the
    /// order that pairs them with the operand's).
    other_batch: &'a [i64],
    other_contracting: &'a [i64],
    other_free: Vec<i64>,
    /// `ct`'s dimensions that came from the other operand.
    ct_contracting: Vec<i64>,
    ty: hlox_hlo::ElementType,
}

impl DotCotangent<'_> {
    fn emit(&self, e: &mut Emitter, ct: InstId, other: InstId) -> Result<InstId, TransformError> {
        let nb = self.batch.len() as i64;
        let ct_batch: Vec<i64> = (0..nb).collect();
        let ct_first = self.order(false);
        let identity = |p: &[i64]| p.iter().enumerate().all(|(i, &d)| d == i as i64);
        let other_first = !identity(&ct_first) && identity(&self.order(true));
        let cty = e.ty(ct)?;
        let other = e.convert(other, cty)?;
        let d = if other_first {
            let dnums = DotDimensionNumbers {
                lhs_batch_dims: self.other_batch.to_vec(),
                rhs_batch_dims: ct_batch,
                lhs_contracting_dims: self.other_free.clone(),
                rhs_contracting_dims: self.ct_contracting.clone(),
            };
            e.dot(other, ct, dnums)?
        } else {
            let dnums = DotDimensionNumbers {
                lhs_batch_dims: ct_batch,
                rhs_batch_dims: self.other_batch.to_vec(),
                lhs_contracting_dims: self.ct_contracting.clone(),
                rhs_contracting_dims: self.other_free.clone(),
            };
            e.dot(ct, other, dnums)?
        };
        let d = e.convert(d, self.ty)?;
        if other_first {
            Ok(d)
        } else {
            e.transpose(d, &ct_first)
        }
    }

    /// The permutation that lays the product out as the operand. The
    /// product comes as the batch dimensions, then the operand's free
    /// dimensions and its contracting ones (those in the order of the
    /// other operand's sorted contracting dimensions), contracting first
    /// when `other` is the dot's left operand.
    fn order(&self, contracting_first: bool) -> Vec<i64> {
        let nb = self.batch.len() as i64;
        let (nf, nc) = (self.free.len() as i64, self.contracting.len() as i64);
        let (free_at, contracting_at) = if contracting_first {
            (nb + nc, nb)
        } else {
            (nb, nb + nf)
        };
        let mut other_sorted = self.other_contracting.to_vec();
        other_sorted.sort_unstable();
        (0..self.rank as i64)
            .map(|d| {
                if let Some(i) = self.batch.iter().position(|&b| b == d) {
                    i as i64
                } else if let Some(j) = self.free.iter().position(|&f| f == d) {
                    free_at + j as i64
                } else {
                    let k = position(self.contracting, d) as usize;
                    contracting_at + position(&other_sorted, self.other_contracting[k])
                }
            })
            .collect()
    }
}

/// The cotangent of a dot's left (`of_lhs`) or right operand.
fn dot_transpose(
    e: &mut Emitter,
    dn: &DotDimensionNumbers,
    lhs: InstId,
    rhs: InstId,
    ct: InstId,
    of_lhs: bool,
) -> Result<InstId, TransformError> {
    let la = e.arr(lhs)?;
    let ra = e.arr(rhs)?;
    let nb = dn.lhs_batch_dims.len() as i64;
    let lf = free_dims(la.rank(), &dn.lhs_batch_dims, &dn.lhs_contracting_dims);
    let rf = free_dims(ra.rank(), &dn.rhs_batch_dims, &dn.rhs_contracting_dims);
    let (nlf, nrf) = (lf.len() as i64, rf.len() as i64);
    // `ct` is laid out as (batch, lhs free, rhs free).
    let (lhs_in_ct, rhs_in_ct) = (
        (nb..nb + nlf).collect(),
        (nb + nlf..nb + nlf + nrf).collect(),
    );
    let (a, b) = (
        (
            la,
            &dn.lhs_batch_dims,
            &dn.lhs_contracting_dims,
            lf,
            lhs_in_ct,
            lhs,
        ),
        (
            ra,
            &dn.rhs_batch_dims,
            &dn.rhs_contracting_dims,
            rf,
            rhs_in_ct,
            rhs,
        ),
    );
    let (this, other) = if of_lhs { (a, b) } else { (b, a) };
    DotCotangent {
        rank: this.0.rank(),
        batch: this.1,
        free: &this.3,
        contracting: this.2,
        other_batch: other.1,
        other_contracting: other.2,
        other_free: other.3,
        ct_contracting: other.4,
        ty: this.0.ty,
    }
    .emit(e, ct, other.5)
}
