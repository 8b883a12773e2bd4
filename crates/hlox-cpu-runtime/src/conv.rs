//! convolution: im2col + matrix product per (output-feature group, output
//! batch). Floats multiply with `gemm` and faer (F16/BF16 via f32; c64/c128 with
//! their complex kernels), integers with wrapping loops. General dimension numbers, strides, padding, lhs/rhs
//! dilation, window reversal, feature and batch groups.

use crate::elem::SendPtr;
use crate::matmul::{Dom, Loader};
use crate::{Ctx, Geom, HostKernel, KernelError, RunError};
use hlox_hlo::{ConvDimensionNumbers, ElementType, Window};
use rayon::prelude::*;

struct Group {
    oz0: usize,
    len: usize,
    fg: usize,
    bg: usize,
}

pub(crate) struct ConvKernel {
    lhs: Geom,
    rhs: Geom,
    out: Geom,
    in_b: usize,
    in_f: usize,
    in_sp: Vec<usize>,
    k_in: usize,
    k_out: usize,
    k_sp: Vec<usize>,
    o_b: usize,
    o_f: usize,
    o_sp: Vec<usize>,
    reversal: Vec<bool>,
    /// Per spatial dim s: input index for (k_s, o_s) at `[k_s * osize_s + o_s]`, or -1.
    tab: Vec<Vec<i64>>,
    groups: Vec<Group>,
    in_fg_size: usize,
    batch_group_size: usize,
    out_batch: usize,
    ksizes: Vec<usize>,
    osizes: Vec<usize>,
}

impl ConvKernel {
    pub(crate) fn new(
        cx: &Ctx,
        window: &Window,
        dn: &ConvDimensionNumbers,
        fgc: i64,
        bgc: i64,
    ) -> Result<ConvKernel, KernelError> {
        let l = cx.array_operand(0)?;
        let r = cx.array_operand(1)?;
        let o = cx.result_leaf(0)?;
        let (lhs, rhs, out) = (Geom::new(&l), Geom::new(&r), Geom::new(&o));
        let complex = [lhs.ty, rhs.ty, out.ty].iter().any(|t| t.is_complex());
        if complex && !(lhs.ty == out.ty && rhs.ty == out.ty) {
            return Err(cx.err(format!(
                "a complex convolution needs both operands of the result's type {} \
                 (got {} and {}); convert the operands first",
                out.ty, lhs.ty, rhs.ty
            )));
        }
        let u = |v: &[i64]| v.iter().map(|&d| d as usize).collect::<Vec<_>>();
        let nsp = dn.input_spatial_dimensions.len();
        if window.dims.len() != nsp || fgc < 1 || bgc < 1 {
            return Err(cx.err("window or group counts do not fit the dimension numbers"));
        }
        let (in_b, in_f, in_sp) = (
            dn.input_batch_dimension as usize,
            dn.input_feature_dimension as usize,
            u(&dn.input_spatial_dimensions),
        );
        let (k_in, k_out, k_sp) = (
            dn.kernel_input_feature_dimension as usize,
            dn.kernel_output_feature_dimension as usize,
            u(&dn.kernel_spatial_dimensions),
        );
        let (o_b, o_f, o_sp) = (
            dn.output_batch_dimension as usize,
            dn.output_feature_dimension as usize,
            u(&dn.output_spatial_dimensions),
        );
        let ksizes: Vec<usize> = k_sp.iter().map(|&d| rhs.dims[d]).collect();
        let osizes: Vec<usize> = o_sp.iter().map(|&d| out.dims[d]).collect();
        let mut tab = Vec::with_capacity(nsp);
        for s in 0..nsp {
            let wd = &window.dims[s];
            let isz = lhs.dims[in_sp[s]] as i64;
            let mut t = Vec::with_capacity(ksizes[s] * osizes[s]);
            for k in 0..ksizes[s] as i64 {
                for oi in 0..osizes[s] as i64 {
                    let und = oi * wd.stride - wd.pad_lo + k * wd.window_dilation;
                    let v = if und.rem_euclid(wd.base_dilation) != 0 {
                        -1
                    } else {
                        let li = und.div_euclid(wd.base_dilation);
                        if li < 0 || li >= isz {
                            -1
                        } else {
                            li
                        }
                    };
                    t.push(v);
                }
            }
            tab.push(t);
        }
        let in_z = lhs.dims[in_f];
        let out_z = rhs.dims[k_out];
        let (fgc, bgc) = (fgc as usize, bgc as usize);
        let out_fg_size = (out_z / fgc).max(1);
        let depthwise = (out_z / bgc).max(1);
        let mut groups: Vec<Group> = Vec::new();
        for oz in 0..out_z {
            let (fg, bg) = (oz / out_fg_size, oz / depthwise);
            match groups.last_mut() {
                Some(g) if g.fg == fg && g.bg == bg => g.len += 1,
                _ => groups.push(Group {
                    oz0: oz,
                    len: 1,
                    fg,
                    bg,
                }),
            }
        }
        Ok(ConvKernel {
            in_fg_size: in_z / fgc,
            batch_group_size: lhs.dims[in_b] / bgc,
            out_batch: out.dims[o_b],
            reversal: window.dims.iter().map(|w| w.reversal).collect(),
            lhs,
            rhs,
            out,
            in_b,
            in_f,
            in_sp,
            k_in,
            k_out,
            k_sp,
            o_b,
            o_f,
            o_sp,
            tab,
            groups,
            ksizes,
            osizes,
        })
    }

    unsafe fn run_dom<D: Dom>(&self, l: *const u8, r: *const u8, o: *mut u8) {
        let kspat: usize = self.ksizes.iter().product();
        let p_count: usize = self.osizes.iter().product();
        let kk = self.in_fg_size * kspat;
        let lload = Loader::<D>::new(self.lhs.ty, self.out.ty);
        let rload = Loader::<D>::new(self.rhs.ty, self.out.ty);
        // Weights per group: [len][riz * kspat + kpos].
        let nsp = self.ksizes.len();
        let kpos_off: Vec<usize> = {
            let mut v = Vec::with_capacity(kspat);
            let mut idx = vec![0usize; nsp];
            for _ in 0..kspat {
                let mut off = 0;
                for (s, &i) in idx.iter().enumerate() {
                    let k = if self.reversal[s] {
                        self.ksizes[s] - 1 - i
                    } else {
                        i
                    };
                    off += k * self.rhs.strides[self.k_sp[s]];
                }
                v.push(off);
                for s in (0..nsp).rev() {
                    idx[s] += 1;
                    if idx[s] < self.ksizes[s] {
                        break;
                    }
                    idx[s] = 0;
                }
            }
            v
        };
        let weights: Vec<Vec<D>> = self
            .groups
            .iter()
            .map(|g| {
                let mut w = Vec::with_capacity(g.len * kk);
                for m in 0..g.len {
                    for riz in 0..self.in_fg_size {
                        let base = (g.oz0 + m) * self.rhs.strides[self.k_out]
                            + riz * self.rhs.strides[self.k_in];
                        for &ko in &kpos_off {
                            w.push(rload.load(r, base + ko));
                        }
                    }
                }
                w
            })
            .collect();
        // Output spatial offsets, row-major over output spatial dims.
        let p_off: Vec<usize> = {
            let st: Vec<usize> = self.o_sp.iter().map(|&d| self.out.strides[d]).collect();
            let mut v = Vec::with_capacity(p_count);
            crate::for_each_offset(&self.osizes, &st, |x| v.push(x));
            v
        };
        let tasks: Vec<(usize, usize)> = (0..self.groups.len())
            .flat_map(|g| (0..self.out_batch).map(move |b| (g, b)))
            .collect();
        let store = D::store_fn(self.out.ty);
        let in_sp_str: Vec<usize> = self.in_sp.iter().map(|&d| self.lhs.strides[d]).collect();
        let lp = crate::elem::SendConstPtr(l);
        let op = SendPtr(o);
        let task = |&(gi, ob): &(usize, usize), par: bool| {
            let (lp, op) = (lp, op);
            let g = &self.groups[gi];
            let ib = ob + g.bg * self.batch_group_size;
            // im2col: col[(riz * kspat + kpos) * P + p]
            let mut col = vec![D::default(); kk * p_count];
            let mut kidx = vec![0usize; nsp];
            for kpos in 0..kspat {
                let mut pidx = vec![0usize; nsp];
                for p in 0..p_count {
                    let mut off = 0usize;
                    let mut valid = true;
                    for s in 0..nsp {
                        let v = self.tab[s][kidx[s] * self.osizes[s] + pidx[s]];
                        if v < 0 {
                            valid = false;
                            break;
                        }
                        off += v as usize * in_sp_str[s];
                    }
                    if valid {
                        for riz in 0..self.in_fg_size {
                            let iz = g.fg * self.in_fg_size + riz;
                            let e = off
                                + ib * self.lhs.strides[self.in_b]
                                + iz * self.lhs.strides[self.in_f];
                            col[(riz * kspat + kpos) * p_count + p] = lload.load(lp.0, e);
                        }
                    }
                    for s in (0..nsp).rev() {
                        pidx[s] += 1;
                        if pidx[s] < self.osizes[s] {
                            break;
                        }
                        pidx[s] = 0;
                    }
                }
                for s in (0..nsp).rev() {
                    kidx[s] += 1;
                    if kidx[s] < self.ksizes[s] {
                        break;
                    }
                    kidx[s] = 0;
                }
            }
            let mut c = vec![D::default(); g.len * p_count];
            D::matmul(&weights[gi], &col, &mut c, 1, g.len, kk, p_count, par);
            for m in 0..g.len {
                let base =
                    ob * self.out.strides[self.o_b] + (g.oz0 + m) * self.out.strides[self.o_f];
                for p in 0..p_count {
                    store(op.0, base + p_off[p], c[m * p_count + p]);
                }
            }
        };
        let work = self.out.count() * kk;
        if tasks.len() >= crate::threads() && crate::parallel_worth(work) {
            tasks.par_iter().for_each(|t| task(t, false));
        } else {
            tasks.iter().for_each(|t| task(t, true));
        }
    }
}

impl HostKernel for ConvKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), RunError> {
        let (l, r, o) = (operands[0], operands[1], outputs[0]);
        if self.out.count() == 0 {
            return Ok(());
        }
        use ElementType::*;
        match self.out.ty {
            F16 | Bf16 | F32 => self.run_dom::<f32>(l, r, o),
            F64 => self.run_dom::<f64>(l, r, o),
            S8 | S16 | S32 | S64 => self.run_dom::<i64>(l, r, o),
            Pred | U8 | U16 | U32 | U64 => self.run_dom::<u64>(l, r, o),
            C64 => self.run_dom::<num_complex::Complex<f32>>(l, r, o),
            C128 => self.run_dom::<num_complex::Complex<f64>>(l, r, o),
        }
        Ok(())
    }
}
