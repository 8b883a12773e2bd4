//! dot with general dimension numbers: canonicalized to a batched
//! [b, m, k] x [b, k, n] product. f32/f64 operands whose batch, free and
//! contracting dimension groups each collapse to one stride go straight to
//! the matrix-product libraries (`gemm`, faer); everything else is packed
//! (converted) first. c64/c128 products (both operands of the result's
//! type) run on their complex kernels.

use crate::matmul::{gemm_strided, pack, store_all, Dom};
use crate::{Ctx, Geom, HostKernel, KernelError, RunError};
use hlox_hlo::semantics::dot::{group_stride, DotDims};
use hlox_hlo::{DotDimensionNumbers, ElementType};
use rayon::prelude::*;

pub(crate) struct DotKernel {
    lhs: Geom,
    rhs: Geom,
    out: Geom,
    /// lhs dims in [batch, free, contracting] order; rhs in [batch, contracting, free].
    lorder: Vec<usize>,
    rorder: Vec<usize>,
    nb: usize,
    nlf: usize,
    nc: usize,
    b: usize,
    m: usize,
    k: usize,
    n: usize,
}

fn group_size(g: &Geom, dims: &[usize]) -> usize {
    dims.iter().map(|&d| g.dims[d]).product()
}

/// One stride for a group of dimensions (outer to inner), if the group is
/// contiguous in memory as a whole ([`group_stride`]).
fn collapse(g: &Geom, dims: &[usize]) -> Option<isize> {
    group_stride(&g.dims, &g.strides, dims)
}

impl DotKernel {
    pub(crate) fn new(cx: &Ctx, dn: &DotDimensionNumbers) -> Result<DotKernel, KernelError> {
        let l = cx.array_operand(0)?;
        let r = cx.array_operand(1)?;
        let o = cx.result_leaf(0)?;
        let dims = DotDims::new(dn, l.rank(), r.rank());
        let (lhs, rhs, out) = (Geom::new(&l), Geom::new(&r), Geom::new(&o));
        if out.dims.len() != dims.result_rank() {
            return Err(cx.err("result rank does not match the dimension numbers"));
        }
        let (lorder, rorder) = (dims.lhs_order(), dims.rhs_order());
        let (lb, lc, lf) = (&dims.lhs.batch, &dims.lhs.contracting, &dims.lhs.free);
        let rf = &dims.rhs.free;
        Ok(DotKernel {
            b: group_size(&lhs, lb),
            m: group_size(&lhs, lf),
            k: group_size(&lhs, lc),
            n: group_size(&rhs, rf),
            nb: lb.len(),
            nlf: lf.len(),
            nc: lc.len(),
            lhs,
            rhs,
            out,
            lorder,
            rorder,
        })
    }

    /// A direct strided product (any [`crate::matmul::Field`]) when no operand needs packing.
    unsafe fn try_direct<T: crate::matmul::Field>(
        &self,
        l: *const u8,
        r: *const u8,
        o: *mut u8,
        one: T,
    ) -> bool {
        let (nb, nlf, nc) = (self.nb, self.nlf, self.nc);
        let lo = &self.lorder;
        let ro = &self.rorder;
        let od: Vec<usize> = (0..self.out.dims.len()).collect();
        let groups = (
            collapse(&self.lhs, &lo[..nb]),
            collapse(&self.lhs, &lo[nb..nb + nlf]),
            collapse(&self.lhs, &lo[nb + nlf..]),
            collapse(&self.rhs, &ro[..nb]),
            collapse(&self.rhs, &ro[nb..nb + nc]),
            collapse(&self.rhs, &ro[nb + nc..]),
            collapse(&self.out, &od[..nb]),
            collapse(&self.out, &od[nb..nb + nlf]),
            collapse(&self.out, &od[nb + nlf..]),
        );
        let (
            Some(lbs),
            Some(lms),
            Some(lks),
            Some(rbs),
            Some(rks),
            Some(rns),
            Some(obs),
            Some(oms),
            Some(ons),
        ) = groups
        else {
            return false;
        };
        let (m, n, k) = (self.m, self.n, self.k);
        let (lp, rp, op) = (
            crate::elem::SendConstPtr(l),
            crate::elem::SendConstPtr(r),
            crate::elem::SendPtr(o),
        );
        let run = |bi: usize, par: bool| {
            let (lp, rp, op) = (lp, rp, op);
            gemm_strided(
                m,
                n,
                k,
                (op.0 as *mut T).offset(bi as isize * obs),
                oms,
                ons,
                (lp.0 as *const T).offset(bi as isize * lbs),
                lms,
                lks,
                (rp.0 as *const T).offset(bi as isize * rbs),
                rks,
                rns,
                one,
                par,
            )
        };
        let per = m * n * k;
        // Over the batch, each product on one thread, when the products are
        // small or the batch splits evenly (or finely) over the threads:
        // splitting each of attention's 4 heads' `[128,64] x [64,128]`
        // products over two threads in turn took 0.14 ms, two heads per
        // thread 0.10 ms.
        let t = crate::threads();
        let by_batch = per < 1 << 20 || self.b.is_multiple_of(t) || self.b >= 4 * t;
        if self.b > 1 && by_batch && crate::parallel_worth(self.b * per) {
            (0..self.b).into_par_iter().for_each(|bi| run(bi, false));
        } else {
            (0..self.b).for_each(|bi| run(bi, true));
        }
        true
    }

    /// A complex product (c64/c128 kernels): straight from the
    /// buffers when the groups collapse, else through row-major copies of
    /// both operands in [batch, free, contracting] / [batch, contracting,
    /// free] order and of the result.
    unsafe fn complex<T: crate::matmul::Field>(
        &self,
        l: *const u8,
        r: *const u8,
        o: *mut u8,
        one: T,
    ) {
        if self.try_direct::<T>(l, r, o, one) {
            return;
        }
        let permuted = |p: *const u8, g: &Geom, order: &[usize]| -> Vec<T> {
            let dims: Vec<usize> = order.iter().map(|&d| g.dims[d]).collect();
            let strides: Vec<usize> = order.iter().map(|&d| g.strides[d]).collect();
            let mut v = Vec::with_capacity(g.count());
            crate::for_each_offset(&dims, &strides, |off| {
                v.push(std::ptr::read_unaligned((p as *const T).add(off)))
            });
            v
        };
        let a = permuted(l, &self.lhs, &self.lorder);
        let b = permuted(r, &self.rhs, &self.rorder);
        let (m, n, k) = (self.m, self.n, self.k);
        let mut c = vec![T::default(); self.b * m * n];
        crate::matmul::float_matmul(&a, &b, &mut c, self.b, m, k, n, one, true);
        let mut i = 0;
        crate::for_each_offset(&self.out.dims, &self.out.strides, |off| {
            if let Some(x) = c.get(i) {
                std::ptr::write_unaligned((o as *mut T).add(off), *x);
            }
            i += 1;
        });
    }

    unsafe fn packed<D: Dom>(&self, l: *const u8, r: *const u8, o: *mut u8) {
        let a = pack::<D>(l, &self.lhs, &self.lorder, self.out.ty);
        let b = pack::<D>(r, &self.rhs, &self.rorder, self.out.ty);
        let mut c = vec![D::default(); self.b * self.m * self.n];
        D::matmul(&a, &b, &mut c, self.b, self.m, self.k, self.n, true);
        store_all(&c, o, &self.out);
    }
}

impl HostKernel for DotKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), RunError> {
        let (l, r, o) = (operands[0], operands[1], outputs[0]);
        if self.b * self.m * self.n == 0 {
            return Ok(());
        }
        use ElementType::*;
        let same = self.lhs.ty == self.out.ty && self.rhs.ty == self.out.ty;
        match self.out.ty {
            F32 => {
                if !(same && self.try_direct::<f32>(l, r, o, 1.0)) {
                    self.packed::<f32>(l, r, o)
                }
            }
            F64 => {
                if !(same && self.try_direct::<f64>(l, r, o, 1.0)) {
                    self.packed::<f64>(l, r, o)
                }
            }
            F16 | Bf16 => self.packed::<f32>(l, r, o),
            S8 | S16 | S32 | S64 => self.packed::<i64>(l, r, o),
            Pred | U8 | U16 | U32 | U64 => self.packed::<u64>(l, r, o),
            C64 | C128 if !same => return Err(crate::RunError::Complex { ty: self.out.ty }),
            C64 => self.complex(l, r, o, num_complex::Complex::new(1f32, 0.0)),
            C128 => self.complex(l, r, o, num_complex::Complex::new(1f64, 0.0)),
        }
        Ok(())
    }
}
