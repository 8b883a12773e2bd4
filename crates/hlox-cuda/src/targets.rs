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

/// Why an example target could not run (reported through the call's
/// status, or its panic message for API_VERSION_ORIGINAL).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("NVRTC (libnvrtc.so) not found: install the CUDA toolkit's NVRTC")]
    NoNvrtc,
    #[error("NVRTC: {0}")]
    Nvrtc(String),
    #[error("no CUDA driver found (libcuda.so)")]
    NoDriver,
    #[error("loading the targets' PTX: {0}")]
    Load(String),
    #[error("kernel {kernel}: {message}")]
    Kernel { kernel: String, message: String },
    #[error("launching {kernel}: {message}")]
    Launch { kernel: String, message: String },
    #[error("opaque is not UTF-8")]
    OpaqueNotUtf8,
    #[error("opaque `{0}` is not an element count")]
    OpaqueNotCount(String),
    #[error("the opaque must give the element count")]
    MissingCount,
}

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
pub fn compile_source() -> Result<String, TargetError> {
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(TargetError::NoNvrtc);
    }
    cudarc::nvrtc::compile_ptx(SOURCE)
        .map(|p| p.to_src())
        .map_err(|e| TargetError::Nvrtc(e.to_string()))
}

/// Loaded kernels by name (CUfunction as usize), for the current context.
fn kernel(name: &str) -> Result<cudarc::driver::sys::CUfunction, TargetError> {
    static CACHE: OnceLock<Mutex<HashMap<String, usize>>> = OnceLock::new();
    if !crate::runtime::driver_present() {
        return Err(TargetError::NoDriver);
    }
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    // A poisoned cache holds only complete entries (inserted one by one).
    let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
    if c.is_empty() {
        let ptx = compile_source()?;
        let image = CString::new(ptx).map_err(|e| TargetError::Load(e.to_string()))?;
        // SAFETY: a NUL-terminated PTX image; the caller's context is current.
        let module =
            unsafe { cudarc::driver::result::module::load_data(image.as_ptr() as *const c_void) }
                .map_err(|e| TargetError::Load(e.to_string()))?;
        for k in KERNELS {
            let failed = |message: String| TargetError::Kernel {
                kernel: k.to_string(),
                message,
            };
            let cname = CString::new(*k).map_err(|e| failed(e.to_string()))?;
            let f = unsafe { cudarc::driver::result::module::get_function(module, cname) }
                .map_err(|e| failed(e.to_string()))?;
            c.insert(k.to_string(), f as usize);
        }
    }
    c.get(name)
        .map(|&f| f as cudarc::driver::sys::CUfunction)
        .ok_or_else(|| TargetError::Kernel {
            kernel: name.to_string(),
            message: format!("not among the targets' kernels ({})", KERNELS.join(", ")),
        })
}

/// Launch `name` over `n` threads on `stream` with pointer arguments then `n`.
fn launch(stream: CUstream, name: &str, ptrs: &[*mut c_void], n: u32) -> Result<(), TargetError> {
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
    .map_err(|e| TargetError::Launch {
        kernel: name.to_string(),
        message: e.to_string(),
    })
}

/// The element count in the opaque (decimal text), or `default` when empty.
pub fn opaque_count(opaque: *const c_char, len: usize, default: u32) -> Result<u32, TargetError> {
    if opaque.is_null() || len == 0 {
        return Ok(default);
    }
    let bytes = unsafe { std::slice::from_raw_parts(opaque as *const u8, len) };
    let s = std::str::from_utf8(bytes).map_err(|_| TargetError::OpaqueNotUtf8)?;
    s.trim()
        .parse::<u32>()
        .map_err(|_| TargetError::OpaqueNotCount(s.to_string()))
}

fn bufs(buffers: *mut *mut c_void, n: usize) -> Vec<*mut c_void> {
    if buffers.is_null() {
        return vec![std::ptr::null_mut(); n];
    }
    // SAFETY: XLA's convention: one entry per operand and result leaf.
    unsafe { std::slice::from_raw_parts(buffers, n).to_vec() }
}

/// Sets `status` to the failure, if any, prefixed with `target` if given.
fn report(status: *mut XlaCustomCallStatus, target: Option<&str>, r: Result<(), TargetError>) {
    if let (Err(e), false) = (r, status.is_null()) {
        let m = match target {
            Some(t) => format!("{t}: {e}"),
            None => e.to_string(),
        };
        // SAFETY: a non-null status from the caller, valid for the call.
        unsafe { (*status).set_failure(m.as_bytes()) };
    }
}

fn seed(stream: CUstream, buffers: *mut *mut c_void) -> Result<(), TargetError> {
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
    report(status, None, seed(stream, buffers));
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
    report(status, Some("axpby"), r);
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
            return Err(TargetError::MissingCount);
        }
        launch(stream, "hlox_tuple_fma", &bufs(buffers, 5), n)
    });
    report(status, Some("tuple_fma"), r);
}
