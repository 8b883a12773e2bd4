//! `fft` on CUDA ([`crate::plan::Step::Fft`]): cuFFT's unnormalized
//! transforms over the trailing one to three dimensions of row-major
//! batches (C2C/Z2Z, R2C/D2Z, C2R/Z2D), then, for IFFT and IRFFT, the
//! program's scale kernel ([`crate::plan::KernelKind::FftScale`]) multiplies
//! by `1/n` as XLA defines them.
//!
//! IRFFT follows numpy's `irfftn` (the evaluator's convention): an inverse
//! C2C transform over the leading transformed dimensions of the half
//! spectrum, then a C2R transform of each row over the last; a cuFFT C2R
//! transform may overwrite its input, so it runs on a copy the runner makes.
//!
//! In host emulation ([`host_transform`]) the same unnormalized transforms
//! run through `rustfft` ([`hlox_hlo::semantics::fft`], the evaluator's
//! implementation), so the emulated program (the copy, the transform, the
//! scale kernel) is the one the GPU runs.

use crate::plan::FftPlan;
use crate::runtime::{DeviceError, DeviceOp};
use hlox_hlo::semantics::fft;
use hlox_hlo::{ElementType, FftType};
use num_complex::Complex;

/// Runs `plan` on host memory: `src` to `dst` (row-major, the plan's
/// element types), unnormalized.
///
/// # Safety
/// `src` and `dst` hold the plan's input and output elements.
pub(crate) unsafe fn host_transform(plan: &FftPlan, src: *const u8, dst: *mut u8) {
    if plan.part == ElementType::F64 {
        host_typed::<f64>(plan, src, dst)
    } else {
        host_typed::<f32>(plan, src, dst)
    }
}

unsafe fn host_typed<T: fft::FftFloat>(plan: &FftPlan, src: *const u8, dst: *mut u8) {
    let lengths: Vec<usize> = plan.lengths.iter().map(|&n| n as usize).collect();
    let (ni, no) = (plan.input_count(), plan.output_count());
    let read_c = |n: usize| -> Vec<Complex<T>> {
        (0..n)
            .map(|i| std::ptr::read_unaligned((src as *const Complex<T>).add(i)))
            .collect()
    };
    match plan.fft_type {
        FftType::Fft | FftType::Ifft => {
            let mut data = read_c(ni);
            fft::complex_unscaled(&mut data, &lengths, plan.fft_type == FftType::Ifft);
            for (i, z) in data.iter().take(no).enumerate() {
                std::ptr::write_unaligned((dst as *mut Complex<T>).add(i), *z);
            }
        }
        FftType::Rfft => {
            let input: Vec<T> = (0..ni)
                .map(|i| std::ptr::read_unaligned((src as *const T).add(i)))
                .collect();
            let mut out = vec![Complex::new(T::zero(), T::zero()); no];
            fft::real_forward(&input, &lengths, &mut out);
            for (i, z) in out.iter().enumerate() {
                std::ptr::write_unaligned((dst as *mut Complex<T>).add(i), *z);
            }
        }
        FftType::Irfft => {
            let input = read_c(ni);
            let mut out = vec![T::zero(); no];
            fft::real_inverse_unscaled(&input, &lengths, &mut out);
            for (i, x) in out.iter().enumerate() {
                std::ptr::write_unaligned((dst as *mut T).add(i), *x);
            }
        }
    }
}

/// The cuFFT plans of one [`FftPlan`]: the transform, and for an IRFFT over
/// more than one dimension the leading dimensions' inverse C2C transform
/// (run once per batch block) before the rows' C2R.
struct Plans {
    main: cudarc::cufft::sys::cufftHandle,
    leading: Option<cudarc::cufft::sys::cufftHandle>,
}

/// Every cuFFT plan of a program, made when it is loaded (not while a run
/// is captured as a graph), bound to the run's stream, destroyed on drop.
#[derive(Default)]
pub(crate) struct CufftPlans {
    plans: Vec<(FftPlan, Plans)>,
}

// SAFETY: cuFFT handles are plain integers naming plans that are used from
// one stream at a time (the runner's lock).
unsafe impl Send for CufftPlans {}
unsafe impl Sync for CufftPlans {}

impl Drop for CufftPlans {
    fn drop(&mut self) {
        for (_, p) in &self.plans {
            // SAFETY: each handle was created by `plan_many` and is destroyed once.
            unsafe {
                let _ = cudarc::cufft::result::destroy(p.main);
                if let Some(l) = p.leading {
                    let _ = cudarc::cufft::result::destroy(l);
                }
            }
        }
    }
}

fn failed(e: impl std::fmt::Display) -> DeviceError {
    DeviceOp::Fft.failed(e)
}

impl CufftPlans {
    /// Plans for every fft of a program, on `stream`. Fails (without a
    /// panic) when libcufft cannot be loaded.
    pub(crate) fn new<'a>(
        ffts: impl IntoIterator<Item = &'a FftPlan>,
        stream: cudarc::cufft::sys::cudaStream_t,
    ) -> Result<CufftPlans, DeviceError> {
        let mut out = CufftPlans::default();
        for p in ffts {
            if out.plans.iter().any(|(q, _)| q == p) {
                continue;
            }
            if out.plans.is_empty() {
                // SAFETY: only tries to load the library.
                if !unsafe { cudarc::cufft::sys::is_culib_present() } {
                    return Err(failed(
                        "libcufft is not installed (the program has an fft); install the CUDA \
                         toolkit's cuFFT (e.g. pip install nvidia-cufft-cu12) or run the module on \
                         the Host",
                    ));
                }
            }
            let plans = make(p, stream)?;
            out.plans.push((p.clone(), plans));
        }
        Ok(out)
    }

    /// Runs `plan` from `src` to `dst` (device pointers) on the plans'
    /// stream, unnormalized.
    pub(crate) fn exec(&self, plan: &FftPlan, src: u64, dst: u64) -> Result<(), DeviceError> {
        use cudarc::cufft::{result, sys};
        let p = self
            .plans
            .iter()
            .find(|(q, _)| q == plan)
            .map(|(_, p)| p)
            .ok_or_else(|| failed(format_args!("no cuFFT plan was made for {plan:?}")))?;
        let f64p = plan.part == ElementType::F64;
        // SAFETY: the runner gives buffers of the plan's input and output
        // sizes; the plans were made for these sizes.
        unsafe {
            match plan.fft_type {
                FftType::Fft | FftType::Ifft => {
                    let dir = if plan.fft_type == FftType::Fft { -1 } else { 1 };
                    if f64p {
                        result::exec_z2z(p.main, src as *mut _, dst as *mut _, dir)
                    } else {
                        result::exec_c2c(p.main, src as *mut _, dst as *mut _, dir)
                    }
                }
                FftType::Rfft => {
                    if f64p {
                        result::exec_d2z(p.main, src as *mut _, dst as *mut _)
                    } else {
                        result::exec_r2c(p.main, src as *mut _, dst as *mut _)
                    }
                }
                FftType::Irfft => {
                    if let Some(l) = p.leading {
                        // In place on the runner's copy, block by block.
                        let block = (plan.input_count() / plan.batch.max(1) as usize) as u64;
                        let bytes = if f64p { 16 } else { 8 };
                        for b in 0..plan.batch as u64 {
                            let at = src + b * block * bytes;
                            if f64p {
                                result::exec_z2z(
                                    l,
                                    at as *mut sys::cufftDoubleComplex,
                                    at as *mut _,
                                    1,
                                )
                            } else {
                                result::exec_c2c(l, at as *mut sys::cufftComplex, at as *mut _, 1)
                            }
                            .map_err(failed)?;
                        }
                    }
                    if f64p {
                        result::exec_z2d(p.main, src as *mut _, dst as *mut _)
                    } else {
                        result::exec_c2r(p.main, src as *mut _, dst as *mut _)
                    }
                }
            }
        }
        .map_err(failed)
    }
}

/// The cuFFT plans of `p` (see [`Plans`]), bound to `stream`.
fn make(p: &FftPlan, stream: cudarc::cufft::sys::cudaStream_t) -> Result<Plans, DeviceError> {
    use cudarc::cufft::{result, sys};
    use std::ffi::c_int;
    let f64p = p.part == ElementType::F64;
    let ty = match (p.fft_type, f64p) {
        (FftType::Fft | FftType::Ifft, false) => sys::cufftType::CUFFT_C2C,
        (FftType::Fft | FftType::Ifft, true) => sys::cufftType::CUFFT_Z2Z,
        (FftType::Rfft, false) => sys::cufftType::CUFFT_R2C,
        (FftType::Rfft, true) => sys::cufftType::CUFFT_D2Z,
        (FftType::Irfft, false) => sys::cufftType::CUFFT_C2R,
        (FftType::Irfft, true) => sys::cufftType::CUFFT_Z2D,
    };
    let c = |v: i64| v as c_int;
    let k = p.lengths.len();
    // SAFETY: `n` and the embeds live across the calls; null embeds mean
    // contiguous (row-major) data.
    unsafe {
        let bind = |h: sys::cufftHandle| -> Result<sys::cufftHandle, DeviceError> {
            result::set_stream(h, stream).map_err(failed)?;
            Ok(h)
        };
        let null = std::ptr::null_mut();
        if p.fft_type != FftType::Irfft || k == 1 {
            let mut n: Vec<c_int> = p.lengths.iter().map(|&v| c(v)).collect();
            let h = result::plan_many(
                k as c_int,
                n.as_mut_ptr(),
                null,
                1,
                0,
                null,
                1,
                0,
                ty,
                c(p.batch),
            )
            .map_err(failed)?;
            return Ok(Plans {
                main: bind(h)?,
                leading: None,
            });
        }
        // IRFFT over k > 1 dimensions: the leading k - 1 of each block of
        // the half spectrum (strided by the `half` frequencies of a row,
        // `half` transforms per block), then every row's C2R.
        let last = p.lengths[k - 1];
        let half = last / 2 + 1;
        let mut lead: Vec<c_int> = p.lengths[..k - 1].iter().map(|&v| c(v)).collect();
        let mut embed = lead.clone();
        let mut embed_o = lead.clone();
        let cty = if f64p {
            sys::cufftType::CUFFT_Z2Z
        } else {
            sys::cufftType::CUFFT_C2C
        };
        let l = result::plan_many(
            (k - 1) as c_int,
            lead.as_mut_ptr(),
            embed.as_mut_ptr(),
            c(half),
            1,
            embed_o.as_mut_ptr(),
            c(half),
            1,
            cty,
            c(half),
        )
        .map_err(failed)?;
        let rows: i64 = p.batch * p.lengths[..k - 1].iter().product::<i64>();
        let mut n = [c(last)];
        let h = result::plan_many(1, n.as_mut_ptr(), null, 1, 0, null, 1, 0, ty, c(rows));
        let h = match h {
            Ok(h) => h,
            Err(e) => {
                let _ = result::destroy(l);
                return Err(failed(e));
            }
        };
        Ok(Plans {
            main: bind(h)?,
            leading: Some(bind(l)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(fft_type: FftType, part: ElementType, batch: i64, lengths: &[i64]) -> FftPlan {
        FftPlan {
            fft_type,
            part,
            batch,
            lengths: lengths.to_vec(),
        }
    }

    /// Without libcufft (as on this project's build machines) a program
    /// with an fft fails to load with an error that says what to install,
    /// not a panic; with it, plans are made or their error reported.
    #[test]
    fn missing_cufft_is_an_error_not_a_panic() {
        let plans = [
            plan(FftType::Fft, ElementType::F32, 2, &[7]),
            plan(FftType::Irfft, ElementType::F64, 3, &[4, 10]),
        ];
        // SAFETY: only tries to load the library.
        let present = unsafe { cudarc::cufft::sys::is_culib_present() };
        match CufftPlans::new(&plans, std::ptr::null_mut()) {
            Err(e) if !present => {
                let s = e.to_string();
                assert!(
                    s.starts_with("cuFFT transform: libcufft is not installed"),
                    "{s}"
                );
            }
            Err(e) => eprintln!("libcufft present, plans not made here: {e}"),
            Ok(p) => assert_eq!(p.plans.len(), 2),
        }
    }

    /// The emulation's unnormalized transforms, then `1/n`, are the
    /// evaluator's normalized ones bit for bit (what the scale kernel
    /// relies on), for IFFT and IRFFT over one to three dimensions.
    #[test]
    fn unscaled_transforms_then_one_over_n_are_the_evaluators() {
        let mut s = 7u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 2000) as f64 / 100.0 - 10.0
        };
        for lengths in [vec![7usize], vec![3, 5], vec![2, 3, 6]] {
            let n: usize = lengths.iter().product();
            let k = lengths.len();
            let half: usize = lengths[..k - 1].iter().product::<usize>() * (lengths[k - 1] / 2 + 1);
            let x: Vec<Complex<f64>> = (0..2 * n).map(|_| Complex::new(next(), next())).collect();
            let p = plan(
                FftType::Ifft,
                ElementType::F64,
                2,
                &lengths.iter().map(|&v| v as i64).collect::<Vec<_>>(),
            );
            let mut got = vec![Complex::new(0.0, 0.0); 2 * n];
            // SAFETY: buffers of the plan's sizes.
            unsafe { host_transform(&p, x.as_ptr().cast(), got.as_mut_ptr().cast()) };
            let sc = 1.0 / n as f64;
            let got: Vec<_> = got.iter().map(|z| z * sc).collect();
            let mut want = x.clone();
            fft::complex(&mut want, &lengths, true);
            assert_eq!(got, want, "IFFT {lengths:?}");

            let spec: Vec<Complex<f64>> = (0..2 * half)
                .map(|_| Complex::new(next(), next()))
                .collect();
            let p = FftPlan {
                fft_type: FftType::Irfft,
                ..p
            };
            let mut got = vec![0.0f64; 2 * n];
            // SAFETY: buffers of the plan's sizes.
            unsafe { host_transform(&p, spec.as_ptr().cast(), got.as_mut_ptr().cast()) };
            let got: Vec<f64> = got.iter().map(|v| v * sc).collect();
            let mut want = vec![0.0f64; 2 * n];
            fft::real_inverse(&spec, &lengths, &mut want);
            assert_eq!(got, want, "IRFFT {lengths:?}");
        }
    }
}
