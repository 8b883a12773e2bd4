//! `fft` (FFT, IFFT, RFFT, IRFFT over the last one to three dimensions):
//! the operand is gathered into row-major order, transformed by
//! [`hlox_hlo::semantics::fft`] (the evaluator's implementation, on
//! `rustfft` with per-thread plan caches), and scattered into the result's
//! layout, so the Host computes exactly what the evaluator computes.

use crate::{Ctx, Geom, HostKernel, KernelError, RunError};
use hlox_hlo::semantics::fft;
use hlox_hlo::{ElementType, FftType};
use num_complex::Complex;

pub(crate) struct FftKernel {
    fft_type: FftType,
    lengths: Vec<usize>,
    input: Geom,
    output: Geom,
}

impl FftKernel {
    pub(crate) fn new(
        cx: &Ctx,
        fft_type: FftType,
        fft_length: &[i64],
    ) -> Result<FftKernel, KernelError> {
        let input = Geom::new(&cx.array_operand(0)?);
        let output = Geom::new(&cx.result_leaf(0)?);
        let lengths = fft_length
            .iter()
            .map(|&n| usize::try_from(n))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| cx.err(format!("fft_length {fft_length:?} has a negative length")))?;
        use ElementType::*;
        let ok = matches!(
            (fft_type, input.ty, output.ty),
            (FftType::Fft | FftType::Ifft, C64, C64)
                | (FftType::Fft | FftType::Ifft, C128, C128)
                | (FftType::Rfft, F32, C64)
                | (FftType::Rfft, F64, C128)
                | (FftType::Irfft, C64, F32)
                | (FftType::Irfft, C128, F64)
        );
        if !ok {
            return Err(cx.err(format!(
                "{} does not take {} to {}",
                fft_type.name(),
                input.ty,
                output.ty
            )));
        }
        Ok(FftKernel {
            fft_type,
            lengths,
            input,
            output,
        })
    }
}

/// The elements of `g`'s buffer `p` in row-major order.
unsafe fn gather<T: Copy>(p: *const u8, g: &Geom) -> Vec<T> {
    let mut v = Vec::with_capacity(g.count());
    crate::for_each_offset(&g.dims, &g.strides, |o| {
        v.push(std::ptr::read_unaligned((p as *const T).add(o)))
    });
    v
}

/// Writes row-major `v` into `g`'s buffer `p`.
unsafe fn scatter<T: Copy>(v: &[T], p: *mut u8, g: &Geom) {
    let mut i = 0;
    crate::for_each_offset(&g.dims, &g.strides, |o| {
        if let Some(x) = v.get(i) {
            std::ptr::write_unaligned((p as *mut T).add(o), *x);
        }
        i += 1;
    });
}

impl FftKernel {
    unsafe fn complex<T: fft::FftFloat>(&self, i: *const u8, o: *mut u8, inverse: bool) {
        let mut z = gather::<Complex<T>>(i, &self.input);
        fft::complex(&mut z, &self.lengths, inverse);
        scatter(&z, o, &self.output);
    }
    unsafe fn real_forward<T: fft::FftFloat>(&self, i: *const u8, o: *mut u8) {
        let x = gather::<T>(i, &self.input);
        let mut z = vec![Complex::new(T::zero(), T::zero()); self.output.count()];
        fft::real_forward(&x, &self.lengths, &mut z);
        scatter(&z, o, &self.output);
    }
    unsafe fn real_inverse<T: fft::FftFloat>(&self, i: *const u8, o: *mut u8) {
        let z = gather::<Complex<T>>(i, &self.input);
        let mut x = vec![T::zero(); self.output.count()];
        fft::real_inverse(&z, &self.lengths, &mut x);
        scatter(&x, o, &self.output);
    }
}

impl HostKernel for FftKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), RunError> {
        let (i, o) = (operands[0], outputs[0]);
        let f64_parts = matches!(self.output.ty, ElementType::C128 | ElementType::F64);
        match (self.fft_type, f64_parts) {
            (FftType::Fft, false) => self.complex::<f32>(i, o, false),
            (FftType::Fft, true) => self.complex::<f64>(i, o, false),
            (FftType::Ifft, false) => self.complex::<f32>(i, o, true),
            (FftType::Ifft, true) => self.complex::<f64>(i, o, true),
            (FftType::Rfft, false) => self.real_forward::<f32>(i, o),
            (FftType::Rfft, true) => self.real_forward::<f64>(i, o),
            (FftType::Irfft, false) => self.real_inverse::<f32>(i, o),
            (FftType::Irfft, true) => self.real_inverse::<f64>(i, o),
        }
        Ok(())
    }
}
