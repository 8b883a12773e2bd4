//! Example GPU custom-call targets: CUDA C kernels (targets/cuda/kernels.cu)
//! compiled at run time by NVRTC (through cudarc) and launched on the
//! stream XLA's GPU convention passes.
//!
//! - `do_custom_call` (the seed of XLA's guide, `A[i] = B[i % 128] + C[i]`
//!   over f32[2048]) in every CUDA `api_version`: [`do_custom_call`]
//!   (API_VERSION_ORIGINAL) and [`do_custom_call_status`]
//!   (API_VERSION_STATUS_RETURNING and _UNIFIED, one parameter list on CUDA);
//! - `axpby`: buffers x, y: f32[n], alpha, beta: f32[] then z: f32[n]; n is
//!   the opaque as decimal text (256 when empty, the corpus's case);
//! - `tuple_fma`: x, y, z: f32[n] then the tuple (x*y + z, x*y - z); n is
//!   the opaque as decimal text.
//!
//! All are registered graph-compatible ([`hlox_ffi::Traits`]): they only
//! launch a kernel on the stream they are given.
//!
//! Failures (no driver, NVRTC or launch errors, a bad opaque) are reported
//! through the status (status-returning targets) or recorded for the
//! caller (original ones: [`hlox_ffi::take_panic`] via a panic message).

use hlox_ffi::{CUstream, Platform, Registry, XlaCustomCallStatus};
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CString};
use std::sync::{Mutex, OnceLock};

/// The CUDA C source of the targets.
pub const SOURCE: &str = include_str!("../../../targets/cuda/kernels.cu");

/// Kernel names defined by [`SOURCE`].
pub const KERNELS: &[&str] = &["hlox_seed", "hlox_axpby", "hlox_tuple_fma"];

/// A registry with every example target registered for CUDA.
pub fn registry() -> Registry {
    let r = Registry::new();
    register(&r).expect("the example targets have distinct names");
    r
}

/// Register the example targets for CUDA in `r`.
pub fn register(r: &Registry) -> Result<(), hlox_ffi::RegistryError> {
    r.register_fn("do_custom_call", Platform::Cuda, do_custom_call_status)?;
    r.register_fn("do_custom_call_original", Platform::Cuda, do_custom_call)?;
    r.register_fn("axpby", Platform::Cuda, axpby)?;
    r.register_fn("tuple_fma", Platform::Cuda, tuple_fma)?;
    // Each only launches its kernel on the stream it is given (the first
    // call, outside any capture, compiles and loads the kernels).
    for name in [
        "do_custom_call",
        "do_custom_call_original",
        "axpby",
        "tuple_fma",
    ] {
        r.set_traits(name, Platform::Cuda, hlox_ffi::Traits::GRAPH_COMPATIBLE)?;
    }
    Ok(())
}

/// PTX of [`SOURCE`] from NVRTC (needs libnvrtc at run time).
pub fn compile_source() -> Result<String, String> {
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err("NVRTC (libnvrtc.so) not found: install the CUDA toolkit's NVRTC".into());
    }
    cudarc::nvrtc::compile_ptx(SOURCE)
        .map(|p| p.to_src())
        .map_err(|e| format!("NVRTC: {e}"))
}

/// Loaded kernels by name (CUfunction as usize), for the current context.
fn kernel(name: &str) -> Result<cudarc::driver::sys::CUfunction, String> {
    static CACHE: OnceLock<Mutex<HashMap<String, usize>>> = OnceLock::new();
    if !crate::runtime::driver_present() {
        return Err("no CUDA driver found (libcuda.so)".into());
    }
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut c = cache
        .lock()
        .map_err(|_| "kernel cache poisoned".to_string())?;
    if c.is_empty() {
        let ptx = compile_source()?;
        let image = CString::new(ptx).map_err(|e| e.to_string())?;
        // SAFETY: a NUL-terminated PTX image; the caller's context is current.
        let module =
            unsafe { cudarc::driver::result::module::load_data(image.as_ptr() as *const c_void) }
                .map_err(|e| format!("loading the targets' PTX: {e}"))?;
        for k in KERNELS {
            let f = unsafe {
                cudarc::driver::result::module::get_function(
                    module,
                    CString::new(*k).map_err(|e| e.to_string())?,
                )
            }
            .map_err(|e| format!("kernel {k}: {e}"))?;
            c.insert(k.to_string(), f as usize);
        }
    }
    c.get(name)
        .map(|&f| f as cudarc::driver::sys::CUfunction)
        .ok_or_else(|| format!("no kernel {name}"))
}

/// Launch `name` over `n` threads on `stream` with pointer arguments then `n`.
fn launch(stream: CUstream, name: &str, ptrs: &[*mut c_void], n: u32) -> Result<(), String> {
    let f = kernel(name)?;
    let mut vals: Vec<*mut c_void> = ptrs.to_vec();
    let mut n = n;
    let mut params: Vec<*mut c_void> = vals
        .iter_mut()
        .map(|p| p as *mut *mut c_void as *mut c_void)
        .collect();
    params.push(&mut n as *mut u32 as *mut c_void);
    let grid = n.div_ceil(256).max(1);
    // SAFETY: the parameters match the kernel's signature in SOURCE.
    unsafe {
        cudarc::driver::result::launch_kernel(
            f,
            (grid, 1, 1),
            (256, 1, 1),
            0,
            stream as cudarc::driver::sys::CUstream,
            &mut params,
        )
    }
    .map_err(|e| format!("launching {name}: {e}"))
}

/// The element count in the opaque (decimal text), or `default` when empty.
pub fn opaque_count(opaque: *const c_char, len: usize, default: u32) -> Result<u32, String> {
    if opaque.is_null() || len == 0 {
        return Ok(default);
    }
    let bytes = unsafe { std::slice::from_raw_parts(opaque as *const u8, len) };
    let s = std::str::from_utf8(bytes).map_err(|_| "opaque is not UTF-8".to_string())?;
    s.trim()
        .parse::<u32>()
        .map_err(|_| format!("opaque `{s}` is not an element count"))
}

fn bufs(buffers: *mut *mut c_void, n: usize) -> Vec<*mut c_void> {
    if buffers.is_null() {
        return vec![std::ptr::null_mut(); n];
    }
    // SAFETY: XLA's convention: one entry per operand and result leaf.
    unsafe { std::slice::from_raw_parts(buffers, n).to_vec() }
}

fn report(status: *mut XlaCustomCallStatus, r: Result<(), String>) {
    if let (Err(m), false) = (r, status.is_null()) {
        // SAFETY: a non-null status from the caller, valid for the call.
        unsafe { (*status).set_failure(m.as_bytes()) };
    }
}

fn seed(stream: CUstream, buffers: *mut *mut c_void) -> Result<(), String> {
    launch(stream, "hlox_seed", &bufs(buffers, 3), 2048)
}

/// The seed target, API_VERSION_ORIGINAL (a failure panics; the trampoline
/// turns it into the call's error).
pub fn do_custom_call(stream: CUstream, buffers: *mut *mut c_void, _o: *const c_char, _l: usize) {
    if let Err(m) = seed(stream, buffers) {
        panic!("do_custom_call: {m}");
    }
}

/// The seed target, API_VERSION_STATUS_RETURNING(_UNIFIED).
pub fn do_custom_call_status(
    stream: CUstream,
    buffers: *mut *mut c_void,
    _o: *const c_char,
    _l: usize,
    status: *mut XlaCustomCallStatus,
) {
    report(status, seed(stream, buffers));
}

/// axpby: z = alpha x + beta y.
pub fn axpby(
    stream: CUstream,
    buffers: *mut *mut c_void,
    opaque: *const c_char,
    len: usize,
    status: *mut XlaCustomCallStatus,
) {
    let r = opaque_count(opaque, len, 256)
        .and_then(|n| launch(stream, "hlox_axpby", &bufs(buffers, 5), n));
    report(status, r.map_err(|m| format!("axpby: {m}")));
}

/// tuple_fma: (x*y + z, x*y - z).
pub fn tuple_fma(
    stream: CUstream,
    buffers: *mut *mut c_void,
    opaque: *const c_char,
    len: usize,
    status: *mut XlaCustomCallStatus,
) {
    let r = opaque_count(opaque, len, 0).and_then(|n| {
        if n == 0 {
            return Err("the opaque must give the element count".into());
        }
        launch(stream, "hlox_tuple_fma", &bufs(buffers, 5), n)
    });
    report(status, r.map_err(|m| format!("tuple_fma: {m}")));
}
