//! The runtime the generated code calls into: per-run context, custom-call
//! status checks, runtime kernels, the parallel loop, float helpers, and the
//! floating-point environment (denormals flushed, as XLA:CPU runs).

use crate::kernels::HostKernel;
use hlox_ffi::XlaCustomCallStatus;
use std::ffi::c_void;
use std::sync::Mutex;

/// What a custom call site needs for its error message.
#[derive(Clone, Debug)]
pub(crate) struct CallSite {
    pub inst: String,
    pub target: String,
    /// The custom call's computation and instruction (to prepare the call
    /// again when a cached object is loaded, `crate::cache`).
    pub at: (hlox_hlo::CompId, hlox_hlo::InstId),
    /// The prepared call of a typed-FFI custom call.
    pub ffi: Option<std::sync::Arc<hlox_ffi::xla_ffi::FfiCall>>,
    /// The call, prepared to run in the sandbox (`CompileOptions::sandbox`).
    pub sandbox: Option<std::sync::Arc<hlox_ffi::sandbox::SandboxedCall>>,
}

/// One run's context: the address generated code receives as its first argument.
/// `repr(C)` with `stop` first: while loops read the stop flag through it.
#[repr(C)]
pub(crate) struct RunCtx<'a> {
    /// The run's stop flag (`hlox_hlo::cancel::RUN` while it may go on),
    /// loaded (relaxed) at every while loop's back-edge.
    pub stop: *const std::sync::atomic::AtomicU32,
    pub call_sites: &'a [CallSite],
    pub kernels: &'a [(String, Box<dyn HostKernel>)],
    pub error: Mutex<Option<RunFailure>>,
    /// The run's id, which every typed-FFI call of the run sees (as XLA
    /// gives one per execution): taken from the process's counter when the
    /// run starts, not per call.
    pub run_id: i64,
    /// The base of the run's frame arena (`hlox_ffi::xla_ffi::direct`),
    /// where the call frames of the direct typed-FFI calls lie; compiled
    /// code loads it at `offset_of!(RunCtx, frames)`. Null when the
    /// executable makes no direct call.
    pub frames: *mut u8,
    /// What those frames' contexts point at (the run id, the Host platform,
    /// the scratch memory of the call under way), owned by the arena;
    /// compiled code loads it at `offset_of!(RunCtx, invoke)` to see
    /// whether a call left scratch memory. Null with `frames`.
    pub invoke: *const hlox_ffi::xla_ffi::InvokeContext,
    /// The executable's profile counters when it was compiled with
    /// `CompileOptions::profile`, and the run's open interval (the slot
    /// marked last and when).
    pub profile: Option<&'a ProfileCounters>,
    pub profile_open: Mutex<Option<(usize, std::time::Instant)>>,
}

/// Time spent in each profiled instruction over every run so far
/// (nanoseconds, runs), one slot per instruction of the entry computation
/// that generates code (`CompileOptions::profile`).
#[derive(Debug, Default)]
pub(crate) struct ProfileCounters {
    pub ns: Vec<std::sync::atomic::AtomicU64>,
    pub count: Vec<std::sync::atomic::AtomicU64>,
}

impl ProfileCounters {
    pub fn new(n: usize) -> ProfileCounters {
        ProfileCounters {
            ns: (0..n).map(|_| Default::default()).collect(),
            count: (0..n).map(|_| Default::default()).collect(),
        }
    }
}

/// Profiling mark (`CompileOptions::profile`): the time since the run's
/// previous mark goes to that mark's instruction; `slot` (`u64::MAX`: none)
/// starts the next interval.
pub(crate) unsafe extern "C" fn hlox_rt_profile(ctx: *const c_void, slot: u64) {
    use std::sync::atomic::Ordering::Relaxed;
    let ctx = &*(ctx as *const RunCtx);
    let (Some(p), Ok(mut open)) = (ctx.profile, ctx.profile_open.lock()) else {
        return;
    };
    let now = std::time::Instant::now();
    if let Some((s, t)) = open.take() {
        if let (Some(ns), Some(c)) = (p.ns.get(s), p.count.get(s)) {
            ns.fetch_add(now.duration_since(t).as_nanos() as u64, Relaxed);
            c.fetch_add(1, Relaxed);
        }
    }
    if slot != u64::MAX {
        *open = Some((slot as usize, now));
    }
}

/// Why a run stopped with a non-zero status: the first failure recorded.
#[derive(Debug)]
pub(crate) enum RunFailure {
    /// A custom-call target reported failure (status, typed-FFI error, or a
    /// caught panic).
    CustomCall {
        instruction: String,
        target: String,
        message: String,
    },
    /// Anything else (a runtime kernel's error, an internal inconsistency).
    Other(String),
}

impl RunCtx<'_> {
    fn record(&self, failure: RunFailure) {
        if let Ok(mut e) = self.error.lock() {
            if e.is_none() {
                *e = Some(failure);
            }
        }
    }
    fn fail(&self, msg: String) {
        self.record(RunFailure::Other(msg));
    }
    fn fail_call(&self, site: &CallSite, message: String) {
        self.record(RunFailure::CustomCall {
            instruction: site.inst.clone(),
            target: site.target.clone(),
            message,
        });
    }
}

/// Called after every custom call: reads the status (and a caught panic of
/// an API_VERSION_ORIGINAL target), records an error, returns non-zero on failure.
pub(crate) unsafe extern "C" fn hlox_rt_cc_check(
    ctx: *const c_void,
    status: *mut XlaCustomCallStatus,
    site: i64,
) -> i32 {
    let ctx = &*(ctx as *const RunCtx);
    let status = &mut *status;
    let panic = hlox_ffi::take_panic();
    let failure = status.failure();
    // Free the message, leave the status in its initial state.
    status.set_success();
    let msg = match (panic, failure) {
        (Some(p), _) => format!("panicked: {p}"),
        (None, Some(m)) => m,
        (None, None) => return 0,
    };
    match ctx.call_sites.get(site as usize) {
        Some(s) => ctx.fail_call(s, msg),
        None => ctx.fail(format!("custom call at unknown site {site} failed: {msg}")),
    }
    1
}

/// Runs the call prepared at call site `site` (sandboxed, or a typed-FFI
/// call) on its operand/argument and result leaf buffers; records an error
/// and returns non-zero on failure.
pub(crate) unsafe extern "C" fn hlox_rt_prepared_call(
    ctx: *const c_void,
    site: i64,
    args: *const *mut c_void,
    rets: *const *mut c_void,
) -> i32 {
    let ctx = &*(ctx as *const RunCtx);
    let Some(s) = ctx.call_sites.get(site as usize) else {
        ctx.fail(format!("no custom-call site {site}"));
        return 1;
    };
    // The `n` leaf pointers of a table (none for an empty one).
    unsafe fn leaves<'t, T>(p: *const *mut T, n: usize) -> &'t [*mut T] {
        if n == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(p, n)
        }
    }
    let result = if let Some(call) = s.sandbox.as_deref() {
        let args = leaves(args as *const *mut u8, call.operand_leaves());
        let rets = leaves(rets as *const *mut u8, call.result_leaves());
        call.run(args, rets)
            .map_err(|failure| format!("sandbox: {failure}"))
    } else if let Some(call) = s.ffi.as_deref() {
        let args = leaves(args, call.arg_count());
        let rets = leaves(rets, call.ret_count());
        let ictx = hlox_ffi::xla_ffi::InvokeContext::host(ctx.run_id);
        call.call(args, rets, &ictx).map_err(|e| e.to_string())
    } else {
        ctx.fail(format!("custom call {} has no prepared call", s.inst));
        return 1;
    };
    match result {
        Ok(()) => 0,
        Err(message) => {
            ctx.fail_call(s, message);
            1
        }
    }
}

/// The slow path of a direct typed-FFI call at call site `site` (emit.rs
/// `call_direct_ffi`): the handler returned an error `err` or left a
/// future in its frame's `future_slot`, or scratch memory is allocated.
/// Puts the slot back to null, waits for the future, frees the scratch
/// memory, records the error; returns non-zero on failure.
pub(crate) unsafe extern "C" fn hlox_rt_ffi_finish(
    ctx: *const c_void,
    site: i64,
    err: *mut c_void,
    future_slot: *mut *mut c_void,
) -> i32 {
    let ctx = &*(ctx as *const RunCtx);
    let Some(invoke) = ctx.invoke.as_ref() else {
        ctx.fail(format!(
            "custom call at site {site}: a direct typed-FFI call in a run without call frames"
        ));
        return 1;
    };
    let r = hlox_ffi::xla_ffi::direct::finish_direct(err as *mut _, future_slot, invoke);
    match (r, ctx.call_sites.get(site as usize)) {
        (Ok(()), _) => 0,
        (Err(e), Some(s)) => {
            ctx.fail_call(s, e.to_string());
            1
        }
        (Err(e), None) => {
            ctx.fail(format!("custom call at unknown site {site} failed: {e}"));
            1
        }
    }
}

/// Runs runtime kernel `k` on leaf buffers.
pub(crate) unsafe extern "C" fn hlox_rt_kernel(
    ctx: *const c_void,
    k: i64,
    ins: *const *const u8,
    n_ins: i64,
    outs: *const *mut u8,
    n_outs: i64,
) -> i32 {
    let ctx = &*(ctx as *const RunCtx);
    let Some((name, kernel)) = ctx.kernels.get(k as usize) else {
        ctx.fail(format!("no runtime kernel {k}"));
        return 1;
    };
    let ins = if n_ins == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(ins, n_ins as usize)
    };
    let outs = if n_outs == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(outs, n_outs as usize)
    };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| kernel.run(ins, outs)));
    match r {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            ctx.fail(format!("{name}: {e}"));
            1
        }
        Err(_) => {
            ctx.fail(format!("{name}: runtime kernel panicked"));
            1
        }
    }
}

/// Runtime kernels run side by side (a concurrent step of
/// [`crate::schedule`]): `members` holds five words per kernel (its index,
/// its operand table and count, its result table and count), and each
/// kernel splits its work over its share of the run's threads. Every
/// kernel runs to its end; the first failure (in member order) is the
/// run's error.
pub(crate) unsafe extern "C" fn hlox_rt_kernel_group(
    ctx: *const c_void,
    members: *const usize,
    n: i64,
) -> i32 {
    use rayon::prelude::*;
    let ctx = &*(ctx as *const RunCtx);
    let n = n.max(0) as usize;
    let words = std::slice::from_raw_parts(members, 5 * n);
    let kernels = ctx.kernels;
    let share = (hlox_cpu_runtime::threads() / n.max(1)).max(1);
    let run_one = |m: usize| -> Result<(), String> {
        let w = &words[5 * m..5 * m + 5];
        let Some((name, kernel)) = kernels.get(w[0]) else {
            return Err(format!("no runtime kernel {}", w[0]));
        };
        let table = |p: usize, len: usize| {
            if len == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(p as *const *mut u8, len)
            }
        };
        let outs = table(w[3], w[4]);
        let ins = table(w[1], w[2]);
        // SAFETY: `*mut u8` and `*const u8` have one layout.
        let ins = &*(ins as *const [*mut u8] as *const [*const u8]);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            hlox_cpu_runtime::with_threads(share, || kernel.run(ins, outs))
        }));
        match r {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(format!("{name}: {e}")),
            Err(_) => Err(format!("{name}: runtime kernel panicked")),
        }
    };
    let results: Vec<Result<(), String>> = (0..n).into_par_iter().map(run_one).collect();
    match results.into_iter().find_map(Result::err) {
        None => 0,
        Some(message) => {
            ctx.fail(message);
            1
        }
    }
}

/// A relayout copy or transpose of a matrix
/// ([`hlox_cpu_runtime::transpose_2d`]): `dst` gets the row-major
/// `rows x cols` matrix of `bytes`-byte elements at `src`, transposed.
pub(crate) unsafe extern "C" fn hlox_rt_transpose(
    src: *const u8,
    dst: *mut u8,
    rows: i64,
    cols: i64,
    bytes: i64,
) -> i32 {
    hlox_cpu_runtime::transpose_2d(src, dst, rows as usize, cols as usize, bytes as usize);
    0
}

pub(crate) type LoopFn = unsafe extern "C" fn(*const *mut u8, i64, i64);

#[derive(Clone, Copy)]
struct SendPtr(*const *mut u8);
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}

/// Splits `0..n` into `chunks` ranges and runs `f(bufs, start, end)` on
/// each in rayon's pool (the Host backend's thread pool).
pub(crate) unsafe extern "C" fn hlox_rt_parallel_for(
    f: LoopFn,
    bufs: *const *mut u8,
    n: i64,
    chunks: i64,
) {
    use rayon::prelude::*;
    let chunks = chunks.clamp(1, n.max(1));
    let per = (n + chunks - 1) / chunks;
    let p = SendPtr(bufs);
    (0..chunks).into_par_iter().for_each(move |c| {
        let p = p;
        let s = c * per;
        let e = ((c + 1) * per).min(n);
        if s < e {
            let _g = FpEnv::flush_denormals();
            f(p.0, s, e);
        }
    });
}

/// Defines the out-of-line complex function entry `$name` on values with
/// `$part` parts (`hlox_codegen::complex`): `ComplexFn` `code` of `a` (and
/// `b`), written to `out[0..2]`; computed by the evaluator's own formulas
/// (`$eval`). An unknown code writes NaNs (the emitter only passes
/// `ComplexFn::code`s).
macro_rules! complex_entry {
    ($(#[$doc:meta])* $name:ident, $part:ty, $eval:ident) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `out` points at two writable parts.
        pub(crate) unsafe extern "C" fn $name(
            code: u32,
            a_re: $part,
            a_im: $part,
            b_re: $part,
            b_im: $part,
            out: *mut $part,
        ) {
            use hlox_hlo::semantics::complex::ComplexFn;
            use num_complex::Complex;
            // The evaluator's arithmetic, without the denormal modes (the
            // emitter flushes the operands and the result). The operands
            // and the result pass through `black_box` inside the guard, so
            // that the (side-effect free) arithmetic cannot be moved out of
            // it (see `hlox_rt_powf`).
            let _g = FpEnv::ieee_denormals();
            let (a_re, a_im, b_re, b_im) = std::hint::black_box((a_re, a_im, b_re, b_im));
            let r = std::hint::black_box(match ComplexFn::from_code(code) {
                Some(f) => f.$eval(Complex::new(a_re, a_im), Complex::new(b_re, b_im)),
                None => Complex::new(<$part>::NAN, <$part>::NAN),
            });
            *out = r.re;
            *out.add(1) = r.im;
        }
    };
}

complex_entry!(
    /// The out-of-line complex functions on c64 values.
    hlox_rt_complex_c64,
    f32,
    eval_c64
);
complex_entry!(
    /// The out-of-line complex functions on c128 values.
    hlox_rt_complex_c128,
    f64,
    eval_c128
);

pub(crate) extern "C" fn hlox_rt_f64_to_f16(x: f64) -> u16 {
    half::f16::from_f64(x).to_bits()
}
pub(crate) extern "C" fn hlox_rt_f64_to_bf16(x: f64) -> u16 {
    half::bf16::from_f64(x).to_bits()
}
/// libm's pow, with the denormal modes off when an input is denormal
/// (libm reads its inputs' bits; XLA:CPU's pow sees denormals). The
/// arguments and the result pass through `black_box` inside the guard:
/// `pow` has no side effects as far as LLVM knows, and in release builds
/// it was computed before the guard switched the modes off (`pow(1e-40,
/// -0.5)` in f32 gave 2^75 instead of 1e20, in release builds only). An
/// input's subnormality is read from its bits: the caller runs with
/// denormals-are-zero, under which a comparison sees a denormal as zero.
pub(crate) extern "C" fn hlox_rt_powf(x: f32, y: f32) -> f32 {
    let sub = |v: f32| v.to_bits() & 0x7f80_0000 == 0 && v.to_bits() & 0x007f_ffff != 0;
    let _g = (sub(x) || sub(y)).then(FpEnv::ieee_denormals);
    let (x, y) = std::hint::black_box((x, y));
    std::hint::black_box(x.powf(y))
}
pub(crate) extern "C" fn hlox_rt_pow(x: f64, y: f64) -> f64 {
    let sub = |v: f64| {
        v.to_bits() & 0x7ff0_0000_0000_0000 == 0 && v.to_bits() & 0x000f_ffff_ffff_ffff != 0
    };
    let _g = (sub(x) || sub(y)).then(FpEnv::ieee_denormals);
    let (x, y) = std::hint::black_box((x, y));
    std::hint::black_box(x.powf(y))
}
pub(crate) extern "C" fn hlox_rt_erff(x: f32) -> f32 {
    libm::erff(x)
}
pub(crate) extern "C" fn hlox_rt_erf(x: f64) -> f64 {
    libm::erf(x)
}

pub(crate) use hlox_ffi::fpenv::FpEnv;

/// Every runtime helper generated code may call, by name: what the slots
/// of a relocatable object's address table are resolved by at load time
/// (`crate::cache`). A helper missing here cannot be cached (the compile
/// refuses to write an entry whose slots it cannot name).
pub(crate) fn helpers() -> [(&'static str, usize); 14] {
    [
        ("hlox_rt_cc_check", hlox_rt_cc_check as *const () as usize),
        (
            "hlox_rt_prepared_call",
            hlox_rt_prepared_call as *const () as usize,
        ),
        (
            "hlox_rt_ffi_finish",
            hlox_rt_ffi_finish as *const () as usize,
        ),
        ("hlox_rt_kernel", hlox_rt_kernel as *const () as usize),
        (
            "hlox_rt_kernel_group",
            hlox_rt_kernel_group as *const () as usize,
        ),
        (
            "hlox_rt_parallel_for",
            hlox_rt_parallel_for as *const () as usize,
        ),
        (
            "hlox_rt_f64_to_f16",
            hlox_rt_f64_to_f16 as *const () as usize,
        ),
        (
            "hlox_rt_f64_to_bf16",
            hlox_rt_f64_to_bf16 as *const () as usize,
        ),
        ("hlox_rt_powf", hlox_rt_powf as *const () as usize),
        ("hlox_rt_pow", hlox_rt_pow as *const () as usize),
        ("hlox_rt_erff", hlox_rt_erff as *const () as usize),
        ("hlox_rt_erf", hlox_rt_erf as *const () as usize),
        (
            "hlox_rt_complex_c64",
            hlox_rt_complex_c64 as *const () as usize,
        ),
        (
            "hlox_rt_complex_c128",
            hlox_rt_complex_c128 as *const () as usize,
        ),
    ]
}
