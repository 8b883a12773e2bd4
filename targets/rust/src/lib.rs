//! Example custom-call targets, registered with
//! [`hlox_ffi::register_custom_call_target!`]. As a `cdylib` this crate is
//! also an hlox plugin (it exports `hlox_register_custom_call_targets`).
//!
//! The same targets in C live in targets/c; [`C_PLUGIN_WITH_REGISTRATION`]
//! and [`C_PLUGIN_SYMBOLS_ONLY`] are the shared libraries build.rs made of them.

// Targets take XLA's raw pointers by contract: the runtime guarantees them,
// so they are safe `fn`s (the form the macro recognises without annotation).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use hlox_ffi::{
    decode_opaque, opaque_bytes, register_custom_call_target, sig, XlaCustomCallStatus,
};
use serde::{Deserialize, Serialize};
use std::ffi::{c_char, c_void};

/// C targets with `hlox_register_custom_call_targets` (empty if the C compiler failed).
pub const C_PLUGIN_WITH_REGISTRATION: &str = env!("HLOX_C_TARGETS_REG");
/// C targets as plain symbols only (empty if the C compiler failed).
pub const C_PLUGIN_SYMBOLS_ONLY: &str = env!("HLOX_C_TARGETS_SYM");
/// A C plugin whose registrations are all invalid (empty if the C compiler failed).
pub const C_PLUGIN_BAD_REGISTRATION: &str = env!("HLOX_C_TARGETS_BAD");
/// targets/c/cube_rules.c: the target `cube` with its jvp, vjp and vmap
/// rules registered through `register_rules` (empty if the C compiler failed).
pub const C_PLUGIN_CUBE_RULES: &str = env!("HLOX_C_CUBE_RULES");
/// Why the C plugins could not be built (empty when they were).
pub const C_BUILD_ERROR: &str = env!("HLOX_C_TARGETS_ERROR");
/// targets/cpp: typed-FFI handlers written against XLA's own `ffi.h`, as a
/// shared library (empty if it could not be built; see [`CPP_FFI_ERROR`]).
pub const CPP_FFI_PLUGIN: &str = env!("HLOX_CPP_FFI_TARGETS");
/// Why targets/cpp could not be built (empty when it was).
pub const CPP_FFI_ERROR: &str = env!("HLOX_CPP_FFI_ERROR");
/// targets/cpp/sandbox_targets.cc: targets that write out of bounds,
/// segfault, throw, divide by zero, abort, leave results untouched or
/// write NaN, for the custom-call sandbox's tests (empty if it could not be
/// built; see [`SANDBOX_ERROR`]).
pub const SANDBOX_PLUGIN: &str = env!("HLOX_SANDBOX_TARGETS");
/// Why the sandbox targets could not be built (empty when they were).
pub const SANDBOX_ERROR: &str = env!("HLOX_SANDBOX_TARGETS_ERROR");

hlox_ffi::export_plugin!();

fn fail(status: *mut XlaCustomCallStatus, msg: &str) {
    // SAFETY: status is the pointer the caller passed to a status-returning target.
    unsafe {
        hlox_ffi::XlaCustomCallStatusSetFailure(status, msg.as_ptr() as *const c_char, msg.len())
    };
}

// ---- XLA's seed example: A[i] = B[i % 128] + C[i] -------------------------

/// The seed example as HLO text: one custom call of `target` (by default
/// API_VERSION_ORIGINAL) on `b: f32[128]` and `c: f32[2048]`, returning
/// `f32[2048]`. What the CLI tests and the custom-call benchmark run.
pub fn seed_module(target: &str) -> String {
    format!(
        "HloModule seed\n\nENTRY main {{\n  b = f32[128]{{0}} parameter(0)\n  \
         c = f32[2048]{{0}} parameter(1)\n  \
         ROOT cc = f32[2048]{{0}} custom-call(b, c), custom_call_target=\"{target}\"\n}}\n"
    )
}

fn seed(out: *mut c_void, ins: *const *const c_void) {
    // SAFETY: operands f32[128], f32[2048]; result f32[2048] (the target's contract).
    unsafe {
        let b = std::slice::from_raw_parts(*ins as *const f32, 128);
        let c = std::slice::from_raw_parts(*ins.add(1) as *const f32, 2048);
        let a = std::slice::from_raw_parts_mut(out as *mut f32, 2048);
        for i in 0..2048 {
            a[i] = b[i % 128] + c[i];
        }
    }
}

/// API_VERSION_ORIGINAL.
pub fn do_custom_call(out: *mut c_void, ins: *const *const c_void) {
    seed(out, ins)
}
register_custom_call_target!(do_custom_call, "Host");

/// API_VERSION_STATUS_RETURNING.
pub fn do_custom_call_status(
    out: *mut c_void,
    ins: *const *const c_void,
    _status: *mut XlaCustomCallStatus,
) {
    seed(out, ins)
}
register_custom_call_target!(do_custom_call_status, "Host");

/// API_VERSION_STATUS_RETURNING_UNIFIED.
pub fn do_custom_call_unified(
    out: *mut c_void,
    ins: *const *const c_void,
    _opaque: *const c_char,
    _opaque_len: usize,
    _status: *mut XlaCustomCallStatus,
) {
    seed(out, ins)
}
register_custom_call_target!(do_custom_call_unified, "Host");

// ---- MLX's axpby ----------------------------------------------------------

/// The opaque of `axpby`: `z = alpha * x + beta * y` over `n` f32 elements.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct AxpbyOpaque {
    pub alpha: f32,
    pub beta: f32,
    pub n: u64,
}

/// Operands x, y: f32[n]; result z: f32[n]; alpha, beta, n in the opaque.
pub fn axpby(
    out: *mut c_void,
    ins: *const *const c_void,
    opaque: *const c_char,
    opaque_len: usize,
    status: *mut XlaCustomCallStatus,
) {
    let bytes = unsafe { opaque_bytes(opaque, opaque_len) };
    let p: AxpbyOpaque = match decode_opaque(bytes) {
        Ok(p) => p,
        Err(e) => return fail(status, &format!("axpby: {e}")),
    };
    let Ok(n) = usize::try_from(p.n) else {
        return fail(status, "axpby: n does not fit in memory");
    };
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const f32, n);
        let y = std::slice::from_raw_parts(*ins.add(1) as *const f32, n);
        let z = std::slice::from_raw_parts_mut(out as *mut f32, n);
        for i in 0..n {
            z[i] = p.alpha * x[i] + p.beta * y[i];
        }
    }
}
register_custom_call_target!(axpby, "Host");

// ---- Tuples and scratch ----------------------------------------------------

/// Operand `(f32[4] a, (f32[4] b, f32[4] c))`, result `(f32[4] out, f32[4] scratch)`:
/// `scratch = b * c; out = a + scratch`. Result element 1 is scratch memory.
pub fn tuple_fma(out: *mut c_void, ins: *const *const c_void, _status: *mut XlaCustomCallStatus) {
    unsafe {
        let p0 = *ins as *const *const c_void;
        let a = std::slice::from_raw_parts(*p0 as *const f32, 4);
        let inner = *p0.add(1) as *const *const c_void;
        let b = std::slice::from_raw_parts(*inner as *const f32, 4);
        let c = std::slice::from_raw_parts(*inner.add(1) as *const f32, 4);
        let outs = out as *const *mut c_void;
        let o = std::slice::from_raw_parts_mut(*outs as *mut f32, 4);
        let scratch = std::slice::from_raw_parts_mut(*outs.add(1) as *mut f32, 4);
        for i in 0..4 {
            scratch[i] = b[i] * c[i];
        }
        for i in 0..4 {
            o[i] = a[i] + scratch[i];
        }
    }
}
register_custom_call_target!(tuple_fma, "Host");

// ---- Failures and panics ---------------------------------------------------

/// Always fails with a message.
pub fn always_fails(
    _out: *mut c_void,
    _ins: *const *const c_void,
    status: *mut XlaCustomCallStatus,
) {
    fail(status, "always_fails: the target reports an error");
}
register_custom_call_target!(always_fails, "Host");

/// Fails with the opaque as the message (XLA keeps it up to the first NUL).
pub fn fail_with_opaque(
    _out: *mut c_void,
    _ins: *const *const c_void,
    opaque: *const c_char,
    opaque_len: usize,
    status: *mut XlaCustomCallStatus,
) {
    unsafe { hlox_ffi::XlaCustomCallStatusSetFailure(status, opaque, opaque_len) };
}
register_custom_call_target!(fail_with_opaque, "Host");

/// Panics (status-returning: the panic becomes the call's failure).
pub fn panics(_out: *mut c_void, _ins: *const *const c_void, _status: *mut XlaCustomCallStatus) {
    panic!("panics: this target always panics");
}
register_custom_call_target!(panics, "Host");

/// Panics (API_VERSION_ORIGINAL: no status; the invocation returns the panic as an error).
pub fn panics_original(_out: *mut c_void, _ins: *const *const c_void) {
    panic!("panics_original: no status to report through");
}
register_custom_call_target!(panics_original, "Host");

/// An `extern "C-unwind"` target: registered through its pointer type, its
/// panics are caught like a plain `fn`'s.
pub extern "C-unwind" fn panics_unwind(
    _out: *mut c_void,
    _ins: *const *const c_void,
    _opaque: *const c_char,
    _opaque_len: usize,
    _status: *mut XlaCustomCallStatus,
) {
    panic!("panics_unwind: unwinding out of an extern \"C-unwind\" fn");
}
register_custom_call_target!(panics_unwind as sig::HostUnifiedUnwind, "Host");

// ---- Opaque and aliasing ---------------------------------------------------

/// Result `(s64[] len, u8[32] bytes)`: the opaque's length and first 32 bytes.
pub fn opaque_echo(
    out: *mut c_void,
    _ins: *const *const c_void,
    opaque: *const c_char,
    opaque_len: usize,
    _status: *mut XlaCustomCallStatus,
) {
    unsafe {
        let outs = out as *const *mut c_void;
        *(*outs as *mut i64) = opaque_len as i64;
        let src = opaque_bytes(opaque, opaque_len);
        let n = src.len().min(32);
        std::ptr::copy_nonoverlapping(src.as_ptr(), *outs.add(1) as *mut u8, n);
    }
}
register_custom_call_target!(opaque_echo, "Host");

/// `f32[4]` result aliased with operand 0: adds one in place; fails when the
/// two pointers differ.
pub extern "C" fn inplace_add_one(
    out: *mut c_void,
    ins: *const *const c_void,
    status: *mut XlaCustomCallStatus,
) {
    unsafe {
        if !std::ptr::eq(out as *const c_void, *ins) {
            return fail(
                status,
                "inplace_add_one: result is not aliased with operand 0",
            );
        }
        for v in std::slice::from_raw_parts_mut(out as *mut f32, 4) {
            *v += 1.0;
        }
    }
}
register_custom_call_target!(inplace_add_one as sig::HostStatusC, "Host");

// ---- XLA's typed FFI (api_version=API_VERSION_TYPED_FFI) ------------------

/// `z = alpha * x + beta * y` as a typed-FFI handler: `alpha` and `beta`
/// are f32 attributes of the call's `backend_config` dictionary.
pub fn axpby_ffi(f: &mut hlox_ffi::xla_ffi::Frame) -> Result<(), hlox_ffi::xla_ffi::FfiError> {
    let (alpha, beta): (f32, f32) = (f.attr("alpha")?, f.attr("beta")?);
    let (x, y) = (f.arg(0)?.slice::<f32>()?, f.arg(1)?.slice::<f32>()?);
    let z = f.ret(0)?.slice_mut::<f32>()?;
    if x.len() != z.len() || y.len() != z.len() {
        return Err(hlox_ffi::xla_ffi::FfiError::msg(format!(
            "x, y and z differ in length ({}, {}, {})",
            x.len(),
            y.len(),
            z.len()
        )));
    }
    for i in 0..z.len() {
        z[i] = alpha * x[i] + beta * y[i];
    }
    Ok(())
}
register_custom_call_target!(axpby_ffi, "Host");

/// A typed-FFI handler with state, in Rust: its instantiate stage makes a
/// counter from the `start` attribute (once per compiled call; it checks
/// the result's shape, which that stage already sees), and every execute
/// call writes `[start, calls so far]` to its s64[2] result.
#[derive(Clone, Copy)]
pub struct RustCounter;

/// [`RustCounter`]'s state.
pub struct RustCounterState {
    start: i64,
    calls: std::sync::atomic::AtomicI64,
}

static RUST_COUNTERS_LIVE: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);

/// How many [`RustCounter`] states exist (the runtime must drop them).
pub fn rust_counters_live() -> i64 {
    RUST_COUNTERS_LIVE.load(std::sync::atomic::Ordering::SeqCst)
}

impl Drop for RustCounterState {
    fn drop(&mut self) {
        RUST_COUNTERS_LIVE.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl hlox_ffi::xla_ffi::StatefulHandler for RustCounter {
    type State = RustCounterState;
    fn instantiate(
        f: &hlox_ffi::xla_ffi::Frame,
    ) -> Result<RustCounterState, hlox_ffi::xla_ffi::FfiError> {
        let start: i64 = f.attr("start")?;
        if start < 0 {
            return Err("rust counter: start must be >= 0".into());
        }
        let out = f.ret(0)?;
        if out.dims() != [2] || !out.data().is_null() {
            return Err("rust counter: expected the s64[2] result's shape, without data".into());
        }
        RUST_COUNTERS_LIVE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(RustCounterState {
            start,
            calls: std::sync::atomic::AtomicI64::new(0),
        })
    }
    fn execute(
        f: &mut hlox_ffi::xla_ffi::Frame,
        s: &RustCounterState,
    ) -> Result<(), hlox_ffi::xla_ffi::FfiError> {
        let n = s.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let out = f.ret(0)?.slice_mut::<i64>()?;
        out.copy_from_slice(&[s.start, n]);
        Ok(())
    }
}
register_custom_call_target!(RustCounter, "rust_counter", "Host");
