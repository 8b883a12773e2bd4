//! rng-bit-generator: the generators and their counter schedule are
//! `hlox_hlo::semantics::rng` (shared with the evaluator and the CUDA
//! emitter); this kernel runs a plan over chunks of the output in parallel
//! and stores the bits in the output's layout.

use crate::{Ctx, Geom, HostKernel, KernelError, RunError};
use hlox_hlo::semantics::rng::RngPlan;
use hlox_hlo::{RngAlgorithm, Shape};
use rayon::prelude::*;

/// Elements per parallel chunk (a multiple of 4, so chunks share no Philox block).
const CHUNK: usize = 1 << 12;

pub(crate) struct RngKernel {
    plan: RngPlan,
    state_len: usize,
    state_out: Geom,
    out: Geom,
}

impl RngKernel {
    pub(crate) fn new(cx: &Ctx, alg: RngAlgorithm) -> Result<RngKernel, KernelError> {
        let st = cx.array_operand(0)?;
        let elems = cx
            .inst
            .shape
            .tuple_elements()
            .filter(|t| t.len() == 2)
            .ok_or_else(|| cx.err("the result must be a (state, value) tuple"))?;
        let (Shape::Array(so), Shape::Array(vo)) = (&elems[0], &elems[1]) else {
            return Err(cx.err("the result must be a tuple of two arrays"));
        };
        let plan = RngPlan::new(alg, &st, vo).map_err(|e| cx.plan_err(e))?;
        if !so.compatible(&st) {
            return Err(cx.err("the result state must have the operand state's shape"));
        }
        Ok(RngKernel {
            plan,
            state_len: st.dims[0] as usize,
            state_out: Geom::new(so),
            out: Geom::new(vo),
        })
    }

    /// The value of every logical element (row-major) as bits.
    fn values(&self, st: &[u64]) -> Vec<u64> {
        let n = self.out.count();
        let mut v = vec![0u64; n];
        if crate::parallel_worth(n * 16) {
            v.par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(c, ch)| self.plan.generate(st, (c * CHUNK) as u64, ch));
        } else {
            self.plan.generate(st, 0, &mut v);
        }
        v
    }
}

impl HostKernel for RngKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), RunError> {
        let st: Vec<u64> = (0..self.state_len)
            .map(|i| crate::elem::rd::<u64>(operands[0], i))
            .collect();
        let vals = self.values(&st);
        for (i, v) in self.plan.next_state(&st).iter().enumerate() {
            crate::elem::wr(outputs[0], i * self.state_out.strides[0], *v);
        }
        let sz = self.out.ty.byte_size();
        let mut j = 0;
        let o = outputs[1];
        crate::for_each_offset(&self.out.dims, &self.out.strides, |off| {
            let b = vals[j].to_ne_bytes();
            let src = if cfg!(target_endian = "little") {
                &b[..sz]
            } else {
                &b[8 - sz..]
            };
            std::ptr::copy_nonoverlapping(src.as_ptr(), o.add(off * sz), sz);
            j += 1;
        });
        Ok(())
    }
}
