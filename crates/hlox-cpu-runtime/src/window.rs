//! reduce-window (variadic; padding, strides, base and window dilation) and
//! select-and-scatter. Reducers and scatter combiners use a recognized fast
//! path (add, multiply, max, min, and, or, overwrite) or the compiled
//! function; select always calls its compiled function.

use crate::elem::{rd, with_elem, wr, Combiner, Elem, SendConstPtr, SendPtr, Slot};
use crate::{Ctx, Geom, HostKernel, KernelError, RunError, ScalarFn};
use hlox_hlo::semantics::sort::{direction_holds, CompareComparator};
use hlox_hlo::semantics::window::WindowTable;
use hlox_hlo::{ComparisonDirection, ComparisonType, ElementType, Window};
use rayon::prelude::*;

/// The window table of `w` over an operand of geometry `base`, checked to
/// produce `out` (the result, or select-and-scatter's source).
fn window_table(cx: &Ctx, base: &Geom, out: &Geom, w: &Window) -> Result<WindowTable, KernelError> {
    let dims: Vec<i64> = base.dims.iter().map(|&d| d as i64).collect();
    let tab = WindowTable::new(&dims, w).map_err(|e| cx.plan_err(e))?;
    if tab.out_dims != out.dims {
        return Err(cx.err(format!(
            "the window gives dimensions {:?}, the kernel's output has {:?}",
            tab.out_dims, out.dims
        )));
    }
    Ok(tab)
}

fn offset(idx: &[usize], strides: &[usize]) -> usize {
    idx.iter().zip(strides).map(|(i, s)| i * s).sum()
}

fn unravel(mut i: usize, dims: &[usize], out: &mut [usize]) {
    for d in (0..dims.len()).rev() {
        out[d] = i % dims[d];
        i /= dims[d];
    }
}

pub(crate) struct ReduceWindowKernel {
    n: usize,
    ins: Vec<Geom>,
    outs: Vec<Geom>,
    tab: WindowTable,
    fast: Option<Combiner>,
    callee: ScalarFn,
}

impl ReduceWindowKernel {
    pub(crate) fn new(cx: &Ctx, w: &Window) -> Result<ReduceWindowKernel, KernelError> {
        let total = cx.operands.len();
        if total < 2 || !total.is_multiple_of(2) {
            return Err(cx.err("reduce-window needs N inputs and N init values"));
        }
        let n = total / 2;
        let mut ins = Vec::new();
        let mut outs = Vec::new();
        for i in 0..n {
            ins.push(Geom::new(&cx.array_operand(i)?));
            outs.push(Geom::new(&cx.result_leaf(i)?));
        }
        let (callee, fast) = cx.combiner_callee(0, n, ins[0].ty)?;
        Ok(ReduceWindowKernel {
            n,
            tab: window_table(cx, &ins[0], &outs[0], w)?,
            ins,
            outs,
            fast,
            callee,
        })
    }

    unsafe fn run_fast<T: Elem>(&self, c: Combiner, x: *const u8, init: *const u8, out: *mut u8) {
        let init: T = rd(init, 0);
        let (xp, op) = (SendConstPtr(x), SendPtr(out));
        let odims = &self.outs[0].dims;
        let rank = odims.len();
        let chunk = |lo: usize, hi: usize| {
            let (xp, op) = (xp, op);
            let (mut o, mut k, mut ii) = (vec![0; rank], vec![0; rank], vec![0; rank]);
            for lin in lo..hi {
                unravel(lin, odims, &mut o);
                let mut acc = init;
                self.tab.for_each(&o, &mut k, &mut ii, |ii| {
                    acc = c.apply(acc, rd::<T>(xp.0, offset(ii, &self.ins[0].strides)));
                });
                wr(op.0, offset(&o, &self.outs[0].strides), acc);
            }
        };
        par_chunks(self.outs[0].count(), self.tab.sizes.iter().product(), chunk);
    }

    unsafe fn run_general(&self, operands: &[*const u8], outputs: &[*mut u8]) {
        let n = self.n;
        let ins: Vec<SendConstPtr> = operands.iter().map(|&p| SendConstPtr(p)).collect();
        let outs: Vec<SendPtr> = outputs.iter().map(|&p| SendPtr(p)).collect();
        let odims = &self.outs[0].dims;
        let rank = odims.len();
        let esz: Vec<usize> = self.ins.iter().map(|g| g.ty.byte_size()).collect();
        let chunk = |lo: usize, hi: usize| {
            let (mut o, mut k, mut ii) = (vec![0; rank], vec![0; rank], vec![0; rank]);
            let mut acc: Vec<Slot> = vec![Slot::default(); n];
            let mut tmp: Vec<Slot> = vec![Slot::default(); n];
            let mut args: Vec<*const u8> = vec![std::ptr::null(); 2 * n];
            for lin in lo..hi {
                unravel(lin, odims, &mut o);
                for j in 0..n {
                    std::ptr::copy_nonoverlapping(ins[n + j].0, acc[j].0.as_mut_ptr(), esz[j]);
                }
                self.tab.for_each(&o, &mut k, &mut ii, |ii| {
                    for j in 0..n {
                        args[j] = acc[j].0.as_ptr();
                        args[n + j] = ins[j].0.add(offset(ii, &self.ins[j].strides) * esz[j]);
                    }
                    let optrs: Vec<*mut u8> = tmp.iter_mut().map(|t| t.0.as_mut_ptr()).collect();
                    (self.callee)(args.as_ptr(), optrs.as_ptr());
                    acc.copy_from_slice(&tmp);
                });
                for j in 0..n {
                    let off = offset(&o, &self.outs[j].strides);
                    std::ptr::copy_nonoverlapping(
                        acc[j].0.as_ptr(),
                        outs[j].0.add(off * esz[j]),
                        esz[j],
                    );
                }
            }
        };
        par_chunks(self.outs[0].count(), self.tab.sizes.iter().product(), chunk);
    }
}

/// Runs `f(lo, hi)` over `0..count`, split over rayon when the work is large.
fn par_chunks(count: usize, per: usize, f: impl Fn(usize, usize) + Sync) {
    if crate::parallel_worth(count * per.max(1)) && count > 1 {
        let pieces = (crate::threads() * 4).min(count);
        let step = count.div_ceil(pieces);
        (0..pieces)
            .into_par_iter()
            .for_each(|p| f(p * step, ((p + 1) * step).min(count)));
    } else {
        f(0, count)
    }
}

impl HostKernel for ReduceWindowKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), RunError> {
        if self.outs[0].count() == 0 {
            return Ok(());
        }
        match self.fast {
            Some(c) => {
                with_elem!(self.ins[0].ty, T => self.run_fast::<T>(c, operands[0], operands[1], outputs[0]))
            }
            None => self.run_general(operands, outputs),
        }
        Ok(())
    }
}

pub(crate) struct SelectAndScatterKernel {
    operand: Geom,
    source: Geom,
    out: Geom,
    tab: WindowTable,
    select: ScalarFn,
    scatter: ScalarFn,
    fast: Option<Combiner>,
    /// The select computation as `compare(a, b)` (or `compare(b, a)` when
    /// swapped) on f32/f64 with the FLOAT comparison: JAX's max-pool
    /// gradient (`GE`). Run in Rust, without calling the compiled function.
    fast_select: Option<(ComparisonDirection, bool)>,
    /// No two windows share an input position (each stride at least the
    /// dilated window, no base dilation): the sources scatter to distinct
    /// outputs, so they run in parallel.
    disjoint: bool,
    /// No two windows share an input position along the first dimension:
    /// sources with different first indices scatter to distinct outputs.
    outer_disjoint: bool,
    /// The windows that lie wholly inside the operand, walked without the
    /// table (the fast path's common case).
    inside: InsideWindows,
}

/// Windows with no position on padding or on a hole of base dilation: for
/// each dimension and source index, the window's first operand index (or
/// -1 when the window is not wholly inside along that dimension), and the
/// offsets of the window's positions, in window row-major order, from its
/// first position in the operand and in the result. A window inside along
/// every dimension is then `size` loads at `first + delta` (no table walk,
/// no bounds check).
struct InsideWindows {
    first: Vec<Vec<i64>>,
    operand_deltas: Vec<usize>,
    out_deltas: Vec<usize>,
}

impl InsideWindows {
    fn new(w: &Window, operand: &Geom, out: &Geom, source: &Geom) -> InsideWindows {
        let first = w
            .dims
            .iter()
            .zip(&operand.dims)
            .zip(&source.dims)
            .map(|((wd, &base), &n)| {
                (0..n as i64)
                    .map(|o| {
                        let p0 = o * wd.stride - wd.pad_lo;
                        let last = p0 + (wd.size - 1) * wd.window_dilation;
                        let inside =
                            wd.size > 0 && wd.base_dilation == 1 && p0 >= 0 && last < base as i64;
                        if inside {
                            p0
                        } else {
                            -1
                        }
                    })
                    .collect()
            })
            .collect();
        let sizes: Vec<usize> = w.dims.iter().map(|d| d.size.max(0) as usize).collect();
        let deltas = |g: &Geom| {
            let strides: Vec<usize> = w
                .dims
                .iter()
                .zip(&g.strides)
                .map(|(d, &s)| d.window_dilation.max(0) as usize * s)
                .collect();
            let mut v = Vec::new();
            crate::for_each_offset(&sizes, &strides, |o| v.push(o));
            v
        };
        InsideWindows {
            first,
            operand_deltas: deltas(operand),
            out_deltas: deltas(out),
        }
    }
}

/// Advances the row-major index `o` within `dims` by one.
#[inline]
fn step(o: &mut [usize], dims: &[usize]) {
    for d in (0..dims.len()).rev() {
        o[d] += 1;
        if o[d] < dims[d] {
            return;
        }
        o[d] = 0;
    }
}

impl SelectAndScatterKernel {
    pub(crate) fn new(cx: &Ctx, w: &Window) -> Result<SelectAndScatterKernel, KernelError> {
        let operand = Geom::new(&cx.array_operand(0)?);
        let source = Geom::new(&cx.array_operand(1)?);
        let out = Geom::new(&cx.result_leaf(0)?);
        let (select, _) = cx.callee(0)?;
        let (scatter, fast) = cx.combiner_callee(1, 1, source.ty)?;
        let fast_select = cx
            .inst
            .called
            .first()
            .and_then(|&c| cx.module.computations.get(c))
            .and_then(|c| CompareComparator::recognize(c, &[operand.ty]))
            .filter(|c| {
                matches!(operand.ty, ElementType::F32 | ElementType::F64)
                    && source.ty == operand.ty
                    && c.cmp_type == ComparisonType::Float
            })
            .map(|c| (c.direction, c.swapped));
        let disjoint_along = |d: &hlox_hlo::WindowDim| {
            d.base_dilation == 1 && d.stride > (d.size - 1) * d.window_dilation
        };
        let disjoint = w.dims.iter().all(disjoint_along);
        let outer_disjoint = w.dims.first().is_some_and(disjoint_along);
        Ok(SelectAndScatterKernel {
            tab: window_table(cx, &operand, &source, w)?,
            inside: InsideWindows::new(w, &operand, &out, &source),
            fast,
            fast_select,
            disjoint,
            outer_disjoint,
            operand,
            source,
            out,
            select,
            scatter,
        })
    }

    /// Select by a recognized float comparison and scatter by a recognized
    /// combiner: the same walk as the general path (the first valid
    /// position, then each later one replaces it unless `select(selected,
    /// candidate)` holds), in parallel over the sources when the windows
    /// are disjoint. The comparison is resolved here, once, into a
    /// monomorphized `keeps(selected, candidate)`.
    unsafe fn run_fast<T: Elem + PartialOrd>(
        &self,
        (dir, swapped): (ComparisonDirection, bool),
        c: Combiner,
        operands: &[*const u8],
        out: *mut u8,
    ) {
        use ComparisonDirection as D;
        match (dir, swapped) {
            (D::Ge, false) | (D::Le, true) => self.run_select::<T>(|b, v| b >= v, c, operands, out),
            (D::Gt, false) | (D::Lt, true) => self.run_select::<T>(|b, v| b > v, c, operands, out),
            (D::Le, false) | (D::Ge, true) => self.run_select::<T>(|b, v| b <= v, c, operands, out),
            (D::Lt, false) | (D::Gt, true) => self.run_select::<T>(|b, v| b < v, c, operands, out),
            _ => self.run_select::<T>(
                |b, v| {
                    let ord = if swapped {
                        v.partial_cmp(&b)
                    } else {
                        b.partial_cmp(&v)
                    };
                    direction_holds(dir, ord)
                },
                c,
                operands,
                out,
            ),
        }
    }

    /// [`Self::run_fast`] with the select as `keeps(selected, candidate)`.
    /// The sources are walked a row of the last dimension at a time: a
    /// window wholly inside the operand ([`InsideWindows`]) is read at
    /// fixed offsets from its first position; one that touches padding
    /// walks the window table.
    unsafe fn run_select<T: Elem + PartialOrd>(
        &self,
        keeps: impl Fn(T, T) -> bool + Sync,
        c: Combiner,
        operands: &[*const u8],
        out: *mut u8,
    ) {
        let (op, sp, ip) = (operands[0], operands[1], operands[2]);
        let init: T = rd(ip, 0);
        // Every element gets `init`, whatever the layout: one fill (a walk
        // over the result's index space took a third of the kernel).
        let count = self.out.count();
        if (out as usize).is_multiple_of(std::mem::align_of::<T>()) {
            std::slice::from_raw_parts_mut(out as *mut T, count).fill(init);
        } else {
            (0..count).for_each(|i| wr(out, i, init));
        }
        let sdims = &self.source.dims;
        let rank = sdims.len();
        let Some(last) = rank.checked_sub(1) else {
            // A scalar operand: one window, its one position the operand.
            wr(out, 0, c.apply(init, rd::<T>(sp, 0)));
            return;
        };
        let n_last = sdims[last];
        let rows = self.source.count().checked_div(n_last).unwrap_or(0);
        let (opp, spp, outp) = (SendConstPtr(op), SendConstPtr(sp), SendPtr(out));
        let inside = &self.inside;
        let (op_str, out_str) = (&self.operand.strides, &self.out.strides);
        let src_last = self.source.strides[last];
        let chunk = |lo: usize, hi: usize| {
            let (opp, spp, outp) = (opp, spp, outp);
            let (mut o, mut k, mut ii) = (vec![0; rank], vec![0; rank], vec![0; rank]);
            let mut sel = vec![0usize; rank];
            if lo < hi {
                unravel(lo * n_last, sdims, &mut o);
            }
            for _ in lo..hi {
                o[last] = 0;
                // The row's first positions along the other dimensions.
                let (mut op_base, mut out_base, mut row_inside) = (0, 0, true);
                for d in 0..last {
                    let f = inside.first[d][o[d]];
                    if f < 0 {
                        row_inside = false;
                        break;
                    }
                    op_base += f as usize * op_str[d];
                    out_base += f as usize * out_str[d];
                }
                let src_row = offset(&o, &self.source.strides);
                for j in 0..n_last {
                    let src: T = rd(spp.0, src_row + j * src_last);
                    let f = inside.first[last][j];
                    let dst = if row_inside && f >= 0 {
                        let base = op_base + f as usize * op_str[last];
                        let mut best: T = rd(opp.0, base);
                        let mut at = 0;
                        for (p, &d) in inside.operand_deltas.iter().enumerate().skip(1) {
                            let v: T = rd(opp.0, base + d);
                            if !keeps(best, v) {
                                best = v;
                                at = p;
                            }
                        }
                        out_base + f as usize * out_str[last] + inside.out_deltas[at]
                    } else {
                        o[last] = j;
                        let mut best: Option<T> = None;
                        self.tab.for_each(&o, &mut k, &mut ii, |ii| {
                            let v: T = rd(opp.0, offset(ii, op_str));
                            if best.is_none_or(|b| !keeps(b, v)) {
                                best = Some(v);
                                sel.copy_from_slice(ii);
                            }
                        });
                        if best.is_none() {
                            continue;
                        }
                        offset(&sel, out_str)
                    };
                    wr(outp.0, dst, c.apply(rd::<T>(outp.0, dst), src));
                }
                o[last] = 0;
                step(&mut o[..last], &sdims[..last]);
            }
        };
        let per_row = n_last * self.tab.sizes.iter().product::<usize>();
        if self.disjoint {
            par_chunks(rows, per_row, chunk);
        } else if self.outer_disjoint && last > 0 && sdims[0] > 1 {
            // Overlapping windows, but not along the first dimension (a
            // pool's batch): whole batches in parallel.
            let per_batch = rows / sdims[0];
            par_chunks(sdims[0], per_row * per_batch, |lo, hi| {
                chunk(lo * per_batch, hi * per_batch)
            });
        } else {
            chunk(0, rows);
        }
    }
}

impl HostKernel for SelectAndScatterKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), RunError> {
        if let (Some(sel), Some(c)) = (self.fast_select, self.fast) {
            match self.operand.ty {
                ElementType::F32 => {
                    self.run_fast::<f32>(sel, c, operands, outputs[0]);
                    return Ok(());
                }
                ElementType::F64 => {
                    self.run_fast::<f64>(sel, c, operands, outputs[0]);
                    return Ok(());
                }
                _ => {}
            }
        }
        let (op, sp, ip, out) = (operands[0], operands[1], operands[2], outputs[0]);
        let ssz = self.source.ty.byte_size();
        let osz = self.operand.ty.byte_size();
        // Every element gets the init value: in memory order.
        for o in 0..self.out.count() {
            std::ptr::copy_nonoverlapping(ip, out.add(o * ssz), ssz);
        }
        if self.source.count() == 0 {
            return Ok(());
        }
        let sdims = &self.source.dims;
        let rank = sdims.len();
        let (mut o, mut k, mut ii) = (vec![0; rank], vec![0; rank], vec![0; rank]);
        let mut sel = vec![0usize; rank];
        let mut pred = 0u8;
        let mut tmp = Slot::default();
        for lin in 0..self.source.count() {
            unravel(lin, sdims, &mut o);
            let mut have = false;
            self.tab.for_each(&o, &mut k, &mut ii, |ii| {
                if !have {
                    sel.copy_from_slice(ii);
                    have = true;
                    return;
                }
                let args = [
                    op.add(offset(&sel, &self.operand.strides) * osz),
                    op.add(offset(ii, &self.operand.strides) * osz),
                ];
                let outs = [&mut pred as *mut u8];
                (self.select)(args.as_ptr(), outs.as_ptr());
                if pred == 0 {
                    sel.copy_from_slice(ii);
                }
            });
            if !have {
                continue;
            }
            let dst = out.add(offset(&sel, &self.out.strides) * ssz);
            let src = sp.add(offset(&o, &self.source.strides) * ssz);
            match self.fast {
                Some(c) => with_elem!(self.source.ty, T => {
                    let v = c.apply(rd::<T>(dst, 0), rd::<T>(src, 0));
                    wr(dst, 0, v);
                }),
                None => {
                    let args = [dst as *const u8, src];
                    let outs = [tmp.0.as_mut_ptr()];
                    (self.scatter)(args.as_ptr(), outs.as_ptr());
                    std::ptr::copy_nonoverlapping(tmp.0.as_ptr(), dst, ssz);
                }
            }
        }
        Ok(())
    }
}
