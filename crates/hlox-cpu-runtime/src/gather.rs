//! gather (start indices clamped into range) and scatter (update windows
//! that do not fit are skipped), with full dimension numbers including
//! batching dimensions. Scatter combines through a recognized fast path
//! (add, multiply, max, min, and, or, overwrite) or the compiled combiner.

use crate::elem::{
    rd, read_index, recognize_combiner, with_elem, wr, Combiner, Elem, SendConstPtr, SendPtr,
};
use crate::{check_counts, copy_relayout, Ctx, Geom, HostKernel, KernelError, ScalarFn};
use hlox_hlo::{GatherDimensionNumbers, ScatterDimensionNumbers};
use rayon::prelude::*;

fn udims(v: &[i64]) -> Vec<usize> {
    v.iter().map(|&d| d as usize).collect()
}

pub(crate) struct GatherKernel {
    name: String,
    operand: Geom,
    indices: Geom,
    out: Geom,
    ivd: usize,
    /// (operand dim, position in the index vector)
    start_map: Vec<usize>,
    slice_sizes: Vec<usize>,
    offset_dims: Vec<usize>,
    window_operand_dims: Vec<usize>,
    batch_out_dims: Vec<usize>,
    idx_batch_dims: Vec<usize>,
    /// (operand batching dim, position among the index batch dims)
    obatch: Vec<(usize, usize)>,
}

impl GatherKernel {
    pub(crate) fn new(
        cx: &Ctx,
        dn: &GatherDimensionNumbers,
        slice_sizes: &[i64],
    ) -> Result<GatherKernel, KernelError> {
        let operand = Geom::new(&cx.array_operand(0)?);
        let indices = Geom::new(&cx.array_operand(1)?);
        let out = Geom::new(&cx.result_leaf(0)?);
        if !indices.ty.is_integral() {
            return Err(cx.err("start indices must be integers"));
        }
        let orank = operand.dims.len();
        let ivd = dn.index_vector_dim as usize;
        let mut elided = udims(&dn.collapsed_slice_dims);
        elided.extend(udims(&dn.operand_batching_dims));
        let window_operand_dims: Vec<usize> = (0..orank).filter(|d| !elided.contains(d)).collect();
        let offset_dims = udims(&dn.offset_dims);
        let batch_out_dims: Vec<usize> = (0..out.dims.len())
            .filter(|d| !offset_dims.contains(d))
            .collect();
        let idx_batch_dims: Vec<usize> = (0..indices.dims.len()).filter(|&d| d != ivd).collect();
        if offset_dims.len() != window_operand_dims.len()
            || batch_out_dims.len() != idx_batch_dims.len()
            || slice_sizes.len() != orank
        {
            return Err(cx.err("dimension numbers do not fit the shapes"));
        }
        let mut obatch = Vec::new();
        for (i, &od) in dn.operand_batching_dims.iter().enumerate() {
            let sd = dn.start_indices_batching_dims[i] as usize;
            let pos = idx_batch_dims.iter().position(|&d| d == sd).unwrap_or(0);
            obatch.push((od as usize, pos));
        }
        Ok(GatherKernel {
            name: cx.inst.name.clone(),
            start_map: udims(&dn.start_index_map),
            slice_sizes: slice_sizes.iter().map(|&s| s.max(0) as usize).collect(),
            operand,
            indices,
            out,
            ivd,
            offset_dims,
            window_operand_dims,
            batch_out_dims,
            idx_batch_dims,
            obatch,
        })
    }
}

impl HostKernel for GatherKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), String> {
        check_counts(&self.name, operands, outputs, 2, 1)?;
        if self.out.count() == 0 {
            return Ok(());
        }
        let (op, ip, outp) = (
            SendConstPtr(operands[0]),
            SendConstPtr(operands[1]),
            SendPtr(outputs[0]),
        );
        let esz = self.operand.ty.byte_size();
        let orank = self.operand.dims.len();
        let batch_sizes: Vec<usize> = self
            .batch_out_dims
            .iter()
            .map(|&d| self.out.dims[d])
            .collect();
        let nbatch: usize = batch_sizes.iter().product();
        let win_sizes: Vec<usize> = self.offset_dims.iter().map(|&d| self.out.dims[d]).collect();
        let win_ostr: Vec<usize> = self
            .window_operand_dims
            .iter()
            .map(|&d| self.operand.strides[d])
            .collect();
        let win_outstr: Vec<usize> = self
            .offset_dims
            .iter()
            .map(|&d| self.out.strides[d])
            .collect();
        // Pair (operand offset, output offset) for every window element.
        let mut win: Vec<(usize, usize)> = Vec::new();
        {
            let mut a = Vec::new();
            crate::for_each_offset(&win_sizes, &win_ostr, |o| a.push(o));
            let mut i = 0;
            crate::for_each_offset(&win_sizes, &win_outstr, |o| {
                win.push((a[i], o));
                i += 1;
            });
        }
        let idims = &self.indices.dims;
        let vec_in_dim = self.ivd < idims.len();
        let batch = |bi: usize| {
            let (op, ip, outp) = (op, ip, outp);
            // Unravel the batch index.
            let mut bidx = vec![0usize; batch_sizes.len()];
            let mut rem = bi;
            for d in (0..batch_sizes.len()).rev() {
                bidx[d] = rem % batch_sizes[d];
                rem /= batch_sizes[d];
            }
            let mut ioff = 0usize;
            let mut obase = 0usize;
            for (k, &v) in bidx.iter().enumerate() {
                ioff += v * self.indices.strides[self.idx_batch_dims[k]];
                obase += v * self.out.strides[self.batch_out_dims[k]];
            }
            let mut start = vec![0usize; orank];
            for (k, &od) in self.start_map.iter().enumerate() {
                let e = if vec_in_dim {
                    ioff + k * self.indices.strides[self.ivd]
                } else {
                    ioff
                };
                let v = read_index(self.indices.ty, ip.0, e);
                let hi = (self.operand.dims[od] as i64 - self.slice_sizes[od] as i64).max(0);
                start[od] = v.clamp(0, hi) as usize;
            }
            for &(od, pos) in &self.obatch {
                start[od] = bidx[pos];
            }
            let sbase: usize = (0..orank).map(|d| start[d] * self.operand.strides[d]).sum();
            for &(so, oo) in &win {
                std::ptr::copy_nonoverlapping(
                    op.0.add((sbase + so) * esz),
                    outp.0.add((obase + oo) * esz),
                    esz,
                );
            }
        };
        if nbatch > 1 && crate::parallel_worth(self.out.count()) {
            (0..nbatch).into_par_iter().for_each(batch);
        } else {
            (0..nbatch).for_each(batch);
        }
        Ok(())
    }
}

pub(crate) struct ScatterKernel {
    name: String,
    n: usize,
    operands: Vec<Geom>,
    indices: Geom,
    updates: Vec<Geom>,
    outs: Vec<Geom>,
    ivd: usize,
    sdod: Vec<usize>,
    window_operand_dims: Vec<usize>,
    uwd: Vec<usize>,
    scatter_upd_dims: Vec<usize>,
    idx_batch_dims: Vec<usize>,
    batch_pos: Vec<(usize, usize)>,
    wsize: Vec<usize>,
    fast: Option<Combiner>,
    callee: ScalarFn,
}

impl ScatterKernel {
    pub(crate) fn new(
        cx: &Ctx,
        dn: &ScatterDimensionNumbers,
    ) -> Result<ScatterKernel, KernelError> {
        let total = cx.operands.len();
        if total < 3 || total.is_multiple_of(2) {
            return Err(cx.err("scatter needs N operands, indices and N updates"));
        }
        let n = (total - 1) / 2;
        let mut operands = Vec::new();
        let mut updates = Vec::new();
        let mut outs = Vec::new();
        for i in 0..n {
            operands.push(Geom::new(&cx.array_operand(i)?));
            updates.push(Geom::new(&cx.array_operand(n + 1 + i)?));
            outs.push(Geom::new(&cx.result_leaf(i)?));
        }
        let indices = Geom::new(&cx.array_operand(n)?);
        if !indices.ty.is_integral() {
            return Err(cx.err("scatter indices must be integers"));
        }
        let orank = operands[0].dims.len();
        let ivd = dn.index_vector_dim as usize;
        let mut elided = udims(&dn.inserted_window_dims);
        elided.extend(udims(&dn.input_batching_dims));
        let window_operand_dims: Vec<usize> = (0..orank).filter(|d| !elided.contains(d)).collect();
        let uwd = udims(&dn.update_window_dims);
        let urank = updates[0].dims.len();
        let scatter_upd_dims: Vec<usize> = (0..urank).filter(|d| !uwd.contains(d)).collect();
        let idx_batch_dims: Vec<usize> = (0..indices.dims.len()).filter(|&d| d != ivd).collect();
        if uwd.len() != window_operand_dims.len() || scatter_upd_dims.len() != idx_batch_dims.len()
        {
            return Err(cx.err("dimension numbers do not fit the shapes"));
        }
        let mut wsize = vec![1usize; orank];
        for (k, &ud) in uwd.iter().enumerate() {
            wsize[window_operand_dims[k]] = updates[0].dims[ud];
        }
        let mut batch_pos = Vec::new();
        for (i, &od) in dn.input_batching_dims.iter().enumerate() {
            let sd = dn.scatter_indices_batching_dims[i] as usize;
            let pos = idx_batch_dims.iter().position(|&d| d == sd).unwrap_or(0);
            batch_pos.push((od as usize, pos));
        }
        let (callee, comp) = cx.callee(0)?;
        let fast = if n == 1 {
            recognize_combiner(cx.module, comp, operands[0].ty)
        } else {
            None
        };
        Ok(ScatterKernel {
            name: cx.inst.name.clone(),
            n,
            sdod: udims(&dn.scatter_dims_to_operand_dims),
            operands,
            indices,
            updates,
            outs,
            ivd,
            window_operand_dims,
            uwd,
            scatter_upd_dims,
            idx_batch_dims,
            batch_pos,
            wsize,
            fast,
            callee,
        })
    }

    /// Calls `f(update offset, output offset)` (element offsets in the
    /// updates' and outputs' own layouts; all updates/outputs share them only
    /// when their layouts agree, so offsets are given per leaf 0 and the
    /// caller maps them) in XLA's order.
    unsafe fn for_each_pair(&self, ip: *const u8, mut f: impl FnMut(&[usize], &[usize])) {
        let orank = self.operands[0].dims.len();
        let u0 = &self.updates[0];
        let scatter_sizes: Vec<usize> = self.scatter_upd_dims.iter().map(|&d| u0.dims[d]).collect();
        let win_sizes: Vec<usize> = self.uwd.iter().map(|&d| u0.dims[d]).collect();
        let odims = &self.operands[0].dims;
        let vec_in_dim = self.ivd < self.indices.dims.len();
        // Window offsets per update leaf and per output leaf.
        let win_u: Vec<Vec<usize>> = self
            .updates
            .iter()
            .map(|g| {
                let st: Vec<usize> = self.uwd.iter().map(|&d| g.strides[d]).collect();
                let mut v = Vec::new();
                crate::for_each_offset(&win_sizes, &st, |o| v.push(o));
                v
            })
            .collect();
        let win_o: Vec<Vec<usize>> = self
            .outs
            .iter()
            .map(|g| {
                let st: Vec<usize> = self
                    .window_operand_dims
                    .iter()
                    .map(|&d| g.strides[d])
                    .collect();
                let mut v = Vec::new();
                crate::for_each_offset(&win_sizes, &st, |o| v.push(o));
                v
            })
            .collect();
        let nwin = win_u[0].len();
        let nscatter: usize = scatter_sizes.iter().product();
        let mut sidx = vec![0usize; scatter_sizes.len()];
        let mut start = vec![0i64; orank];
        let mut uo = vec![0usize; self.n];
        let mut oo = vec![0usize; self.n];
        for si in 0..nscatter {
            let mut rem = si;
            for d in (0..scatter_sizes.len()).rev() {
                sidx[d] = rem % scatter_sizes[d];
                rem /= scatter_sizes[d];
            }
            let mut ioff = 0usize;
            for (k, &v) in sidx.iter().enumerate() {
                ioff += v * self.indices.strides[self.idx_batch_dims[k]];
            }
            start.iter_mut().for_each(|x| *x = 0);
            for (k, &od) in self.sdod.iter().enumerate() {
                let e = if vec_in_dim {
                    ioff + k * self.indices.strides[self.ivd]
                } else {
                    ioff
                };
                start[od] = read_index(self.indices.ty, ip, e);
            }
            for &(od, pos) in &self.batch_pos {
                start[od] = sidx[pos] as i64;
            }
            if (0..orank).any(|d| start[d] < 0 || start[d] > odims[d] as i64 - self.wsize[d] as i64)
            {
                continue;
            }
            let ub: Vec<usize> = self
                .updates
                .iter()
                .map(|g| {
                    sidx.iter()
                        .enumerate()
                        .map(|(k, &v)| v * g.strides[self.scatter_upd_dims[k]])
                        .sum()
                })
                .collect();
            let ob: Vec<usize> = self
                .outs
                .iter()
                .map(|g| (0..orank).map(|d| start[d] as usize * g.strides[d]).sum())
                .collect();
            for w in 0..nwin {
                for k in 0..self.n {
                    uo[k] = ub[k] + win_u[k][w];
                    oo[k] = ob[k] + win_o[k][w];
                }
                f(&uo, &oo);
            }
        }
    }

    unsafe fn run_fast<T: Elem>(&self, c: Combiner, ip: *const u8, up: *const u8, out: *mut u8) {
        self.for_each_pair(ip, |u, o| {
            let acc: T = rd(out, o[0]);
            wr(out, o[0], c.apply(acc, rd::<T>(up, u[0])));
        });
    }
}

impl HostKernel for ScatterKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), String> {
        let n = self.n;
        check_counts(&self.name, operands, outputs, 2 * n + 1, n)?;
        for k in 0..n {
            copy_relayout(operands[k], &self.operands[k], outputs[k], &self.outs[k]);
        }
        if self.updates[0].count() == 0 {
            return Ok(());
        }
        let ip = operands[n];
        if let Some(c) = self.fast {
            let (up, out) = (operands[n + 1], outputs[0]);
            with_elem!(self.outs[0].ty, T => self.run_fast::<T>(c, ip, up, out));
            return Ok(());
        }
        let tys: Vec<usize> = self.outs.iter().map(|g| g.ty.byte_size()).collect();
        let mut tmp: Vec<[u8; 8]> = vec![[0u8; 8]; n];
        let mut args: Vec<*const u8> = vec![std::ptr::null(); 2 * n];
        self.for_each_pair(ip, |u, o| {
            for k in 0..n {
                args[k] = outputs[k].add(o[k] * tys[k]);
                args[n + k] = operands[n + 1 + k].add(u[k] * tys[k]);
            }
            let outs: Vec<*mut u8> = tmp.iter_mut().map(|t| t.as_mut_ptr()).collect();
            (self.callee)(args.as_ptr(), outs.as_ptr());
            for k in 0..n {
                std::ptr::copy_nonoverlapping(
                    tmp[k].as_ptr(),
                    outputs[k].add(o[k] * tys[k]),
                    tys[k],
                );
            }
        });
        Ok(())
    }
}
