//! Each op's semantics that more than one engine needs, written once and
//! free of LLVM: index maps and plans computed from an instruction's
//! attributes and shapes, and the bit-exact algorithms.
//!
//! - [`gather`]: [`GatherPlan`](gather::GatherPlan) and
//!   [`ScatterPlan`](gather::ScatterPlan), the index maps of gather and
//!   scatter (clamping, skipped windows, batching dimensions).
//! - [`window`]: the window output size rule (shape inference uses it) and
//!   the base position each window element reads (padding, dilation).
//! - [`dot`]: a dot's dimensions by role ([`DotDims`](dot::DotDims)):
//!   batch, contracting and free, and the gemm orders of the operands.
//! - [`sort`]: the stable merge sort and comparator recognition.
//! - [`arith`]: the index arithmetic ([`IndexArith`](arith::IndexArith))
//!   that window positions and sort merge passes are written against once,
//!   run on `i64` values here and as LLVM instructions by the CUDA emitter.
//! - [`rng`]: Philox-4x32-10 and ThreeFry-2x32-20, their constants, and the
//!   counter schedule of rng-bit-generator ([`RngPlan`](rng::RngPlan)).
//! - [`reduce_precision`]: the mantissa rounding and exponent clamping of
//!   reduce-precision ([`ReducePrecision`](reduce_precision::ReducePrecision)).
//! - [`complex`]: complex arithmetic (XLA:CPU's formulas) and the
//!   out-of-line functions generated code calls ([`ComplexFn`](complex::ComplexFn)).
//! - [`fft`]: FFT, IFFT, RFFT and IRFFT over up to three trailing
//!   dimensions, on `rustfft` with per-thread plan caches.
//! - [`walk`]: the strided walk (row-major element, offset in another
//!   layout) of copies, relayouts and reductions.
//!
//! The evaluator (`hlox-eval`) and the Host runtime (`hlox-cpu-runtime`)
//! call these directly; the CUDA emitter generates LLVM IR from the same
//! plans and constants, and runs the [`arith`] rules on LLVM values. Result shapes stay in [`crate::shape_inference`].

pub mod arith;
pub mod complex;
pub mod dot;
pub mod fft;
pub mod gather;
pub mod reduce_precision;
pub mod rng;
pub mod sort;
pub mod walk;
pub mod window;
