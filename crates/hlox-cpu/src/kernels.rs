//! Runtime kernels for heavy ops (dot, convolution, sort, top-k, gather,
//! scatter, reduce-window, select-and-scatter, rng-bit-generator), from
//! `hlox-cpu-runtime`. The compiler compiles each called computation of
//! such an instruction into a [`ScalarFn`] and builds the kernel once the
//! code is loaded; the generated code calls it through `hlox_rt_kernel`.

pub use hlox_cpu_runtime::{is_runtime_kernel, make_kernel, HostKernel, KernelError, ScalarFn};
