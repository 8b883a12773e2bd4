//! The CUDA backend without a GPU: every kernel the corpus and the opcode
//! programs produce is assembled by NVIDIA's `ptxas` for sm_80 and sm_90;
//! the NVPTX math library runs on the host (JIT) against the C library;
//! the runtime reports a missing driver clearly. With a GPU (and a
//! driver), the runtime tests run the corpus on it; without, they print
//! SKIP.

use hlox_cuda::{compile, targets, CompileError, CompileOptions};
use hlox_ffi::{Platform, Registry};
use hlox_hlo::text::parse_module;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

fn ptxas() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("HLOX_PTXAS") {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Some(p);
        }
    }
    let root = hlox_tests::workspace_root().join(".venv-cuda/lib");
    for e in std::fs::read_dir(&root).ok()?.flatten() {
        let p = e.path().join("site-packages/nvidia/cuda_nvcc/bin/ptxas");
        if p.is_file() {
            return Some(p);
        }
    }
    eprintln!(
        "SKIP: ptxas not found (set HLOX_PTXAS or run scripts/setup_ptxas.sh; `make test` does): \
         PTX is generated but not assembled"
    );
    None
}

/// Asserts that nothing failed; otherwise lists the failures (the first
/// 60 of them).
fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(60)].join("\n")
    );
}

/// Assemble `ptx` for `sm` with ptxas; Err(ptxas output) on failure.
fn assemble(ptxas: &PathBuf, ptx: &str, sm: &str, tag: &str) -> Result<(), String> {
    // A folder of its own per call: the tests run in parallel threads, and
    // with one folder per process one call removed it (empty for a
    // moment) while another was about to write into it (the corpus case
    // failed with "No such file or directory" in a clean-clone run).
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("hlox-cuda-test-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let src = dir.join(format!("{tag}.{sm}.ptx"));
    std::fs::write(&src, ptx).map_err(|e| e.to_string())?;
    let out = Command::new(ptxas)
        .arg(format!("--gpu-name={sm}"))
        .arg("-O3")
        .arg(&src)
        .arg("-o")
        .arg(dir.join(format!("{tag}.{sm}.cubin")))
        .output()
        .map_err(|e| format!("cannot run ptxas: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "ptxas {sm} failed on {}:\n{}{}",
            src.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// The GPU example targets, with `do_custom_call` in the convention the
/// corpus case uses (API_VERSION_ORIGINAL for `cc_do_custom_call_v1`).
fn registry_for(case: &str) -> Registry {
    if let Some(r) = ffi_targets::registry(case) {
        return r;
    }
    let r = Registry::new();
    if case == "cc_do_custom_call_v1" {
        r.register_fn("do_custom_call", Platform::Cuda, targets::do_custom_call)
    } else {
        r.register_fn(
            "do_custom_call",
            Platform::Cuda,
            targets::do_custom_call_status,
        )
    }
    .expect("register");
    r.register_fn("axpby", Platform::Cuda, targets::axpby)
        .expect("register");
    r.register_fn("tuple_fma", Platform::Cuda, targets::tuple_fma)
        .expect("register");
    r
}

fn opts(sm: &str, case: &str) -> CompileOptions {
    CompileOptions {
        sm: sm.into(),
        registry: Some(Arc::new(registry_for(case))),
        ..Default::default()
    }
}

/// Whether a compile error is one of the documented gaps: an opcode the
/// plan does not lower yet (none now; complex values and fft compile too).
fn documented_gap(e: &CompileError) -> bool {
    let s = e.to_string();
    hlox_cuda::plan::UNSUPPORTED_OPS
        .iter()
        .any(|op| s.contains(&format!("not yet supported on CUDA: {op} ")))
}

// ---------------------------------------------------------------------------
// Where the runtime tests run: host emulation always, and the GPU (device 0)
// too when this machine has a CUDA driver. One test, the same assertions;
// where a backend differs (a CUDA graph is replayed by the device, not by the
// interpreter), the test says so.

/// A backend the runtime tests run on.
enum Backend {
    Emulation,
    Gpu(hlox_cuda::CudaClient),
}

/// An executable of either backend.
enum Exe {
    Emulated(hlox_cuda::emulate::EmulatedExecutable),
    Gpu(hlox_cuda::CudaExecutable),
}

impl Backend {
    fn name(&self) -> &'static str {
        match self {
            Backend::Emulation => "emulation",
            Backend::Gpu(_) => "GPU",
        }
    }

    fn is_gpu(&self) -> bool {
        matches!(self, Backend::Gpu(_))
    }

    fn load(&self, c: hlox_cuda::CompiledModule) -> Result<Exe, String> {
        match self {
            Backend::Emulation => hlox_cuda::emulate::EmulatedExecutable::new(c)
                .map(Exe::Emulated)
                .map_err(|e| format!("emulation: {e}")),
            Backend::Gpu(client) => client
                .load(c)
                .map(Exe::Gpu)
                .map_err(|e| format!("loading on the GPU: {e}")),
        }
    }

    /// Compile `m` with `o` and load it.
    fn build(&self, m: &hlox_hlo::Module, o: &CompileOptions) -> Result<Exe, String> {
        self.load(compile(m, o).map_err(|e| format!("compile: {e}"))?)
    }
}

impl Exe {
    fn execute(
        &self,
        args: &[hlox_hlo::Literal],
    ) -> Result<hlox_hlo::Literal, hlox_cuda::runtime::RuntimeError> {
        match self {
            Exe::Emulated(x) => x.execute(args),
            Exe::Gpu(x) => x.execute(args),
        }
    }

    fn graph_status(&self) -> hlox_cuda::GraphStatus {
        match self {
            Exe::Emulated(x) => x.graph_status(),
            Exe::Gpu(x) => x.graph_status(),
        }
    }

    fn last_device_ms(&self) -> Option<f64> {
        match self {
            Exe::Emulated(x) => x.last_device_ms(),
            Exe::Gpu(x) => x.last_device_ms(),
        }
    }
}

/// Whether the tests must find a GPU (`HLOX_REQUIRE_GPU` set: on a GPU
/// machine, so that nothing there passes by skipping).
fn gpu_required() -> bool {
    std::env::var_os("HLOX_REQUIRE_GPU").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The GPU client, or None with a visible SKIP line naming `test` (a
/// panic instead when [`gpu_required`]).
fn gpu(test: &str) -> Option<hlox_cuda::CudaClient> {
    if !hlox_cuda::runtime::driver_present() {
        assert!(
            !gpu_required(),
            "{test}: HLOX_REQUIRE_GPU is set but no CUDA driver (libcuda.so) was found"
        );
        eprintln!("SKIP: {test}: no CUDA driver (libcuda.so) on this machine, so not on a GPU");
        return None;
    }
    let client = hlox_cuda::CudaClient::new(0).expect("CUDA device 0");
    eprintln!("{test}: GPU {:?}", client.device_info());
    Some(client)
}

/// Host emulation, then the GPU when there is one.
fn backends(test: &str) -> Vec<Backend> {
    let mut v = vec![Backend::Emulation];
    v.extend(gpu(test).map(Backend::Gpu));
    v
}

/// Every backend, unfused (`hlo_passes: false`) then fused.
fn with_fusion(bs: &[Backend]) -> impl Iterator<Item = (&Backend, bool)> {
    bs.iter().flat_map(|b| [(b, false), (b, true)])
}

/// Buffer access for the tests' CUDA-convention targets: in emulation the
/// buffers are host memory (and the stream is null); on a GPU they are
/// device memory, read and written with synchronous copies after the
/// stream's work so far (so these targets are not graph-compatible there).
mod mem {
    use hlox_ffi::CUstream;
    use std::ffi::c_void;

    fn sync(s: CUstream) -> Result<(), String> {
        // SAFETY: the stream the runtime gave the target.
        unsafe { cudarc::driver::result::stream::synchronize(s as _) }
            .map_err(|e| format!("stream synchronize: {e}"))
    }

    /// `n` elements at `p`.
    ///
    /// # Safety
    /// `p` holds `n` elements of `T` (host memory when `s` is null).
    pub unsafe fn read<T: Copy + Default>(
        s: CUstream,
        p: *const c_void,
        n: usize,
    ) -> Result<Vec<T>, String> {
        if s.is_null() {
            return Ok(unsafe { std::slice::from_raw_parts(p as *const T, n) }.to_vec());
        }
        sync(s)?;
        let mut v = vec![T::default(); n];
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut v, p as u64) }
            .map_err(|e| format!("copy to the host: {e}"))?;
        Ok(v)
    }

    /// Write `v` at `p`.
    ///
    /// # Safety
    /// `p` holds `v.len()` elements of `T` (host memory when `s` is null).
    pub unsafe fn write<T: Copy>(s: CUstream, p: *mut c_void, v: &[T]) -> Result<(), String> {
        if s.is_null() {
            unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p as *mut T, v.len()) };
            return Ok(());
        }
        sync(s)?;
        unsafe { cudarc::driver::result::memcpy_htod_sync(p as u64, v) }
            .map_err(|e| format!("copy to the device: {e}"))?;
        // A copy from pageable memory may return before it lands, and the
        // run's stream does not wait for the legacy stream it went on.
        cudarc::driver::result::ctx::synchronize().map_err(|e| format!("synchronize: {e}"))
    }
}

#[test]
fn corpus_kernels_assemble_with_ptxas() {
    let ptxas = ptxas();
    let cases = hlox_tests::corpus_cases();
    assert!(cases.len() >= 70, "corpus has {} cases", cases.len());
    let mut failures = Vec::new();
    let (mut assembled, mut kernels, mut gaps) = (0, 0, Vec::new());
    let mut split = 0;
    let mut host_only = 0;
    for case in &cases {
        if case.needs_host_only_targets() {
            host_only += 1;
            continue;
        }
        let m = parse_module(&case.hlo_text()).expect("corpus parses");
        for sm in ["sm_80", "sm_90"] {
            match compile(&m, &opts(sm, &case.name)) {
                Ok(c) => {
                    if sm == "sm_80" {
                        kernels += c.program.kernels.len();
                        assembled += 1;
                        split += c
                            .program
                            .kernels
                            .iter()
                            .filter(|k| {
                                matches!(k.kind, hlox_cuda::plan::KernelKind::ReducePartials(_))
                            })
                            .count();
                    }
                    // Every kernel is an entry of the PTX.
                    for k in &c.program.kernels {
                        if !c.ptx.contains(&format!(".entry {}(", k.name)) {
                            failures
                                .push(format!("{}: kernel {} missing from PTX", case.name, k.name));
                        }
                    }
                    if let Some(p) = &ptxas {
                        if let Err(e) = assemble(p, &c.ptx, sm, &case.name) {
                            failures.push(format!("{}: {e}", case.name));
                        }
                    }
                }
                Err(e) if documented_gap(&e) => {
                    if sm == "sm_80" {
                        gaps.push(format!("{} ({e})", case.name));
                    }
                }
                Err(e) => failures.push(format!("{} [{sm}]: {e}", case.name)),
            }
        }
    }
    eprintln!(
        "corpus on CUDA: {assembled} of {} cases compiled ({kernels} kernels, {split} split \
         reductions, assembled for sm_80 and sm_90: {}; the {} typed-FFI cases included; \
         {host_only} cases call jaxlib's Host-only LAPACK targets), {} documented gaps:\n  {}",
        cases.len(),
        ptxas.is_some(),
        hlox_tests::TYPED_FFI_CASES.len(),
        gaps.len(),
        gaps.join("\n  ")
    );
    assert_no_failures(&failures);
    assert!(assembled >= 89, "only {assembled} corpus cases compiled");
    assert_eq!(
        assembled + gaps.len() + host_only,
        cases.len(),
        "every case compiles, is a documented gap, or calls Host-only targets"
    );
}

// ---------------------------------------------------------------------------
// The NVPTX math library, JIT-compiled for the host (its IR uses no NVPTX
// intrinsic) and compared with the C library on sweeps of inputs.

mod math_on_host {
    use hlox_codegen::{MathFn, MathLib};
    use hlox_cuda::math::NvptxMath;
    use inkwell::context::Context;
    use inkwell::targets::{InitializationConfig, Target};
    use inkwell::OptimizationLevel;

    use inkwell::execution_engine::{ExecutionEngine, UnsafeFunctionPointer};

    /// The JIT-compiled `t_{name}_{bits}` called with `x`, and with `y` too
    /// when it takes `n == 2` arguments.
    ///
    /// # Safety
    /// The function has that signature over `T`.
    unsafe fn call<T>(ee: &ExecutionEngine<'_>, name: &str, bits: u32, n: usize, x: T, y: T) -> T
    where
        unsafe extern "C" fn(T) -> T: UnsafeFunctionPointer,
        unsafe extern "C" fn(T, T) -> T: UnsafeFunctionPointer,
    {
        let sym = format!("t_{name}_{bits}");
        unsafe {
            if n == 2 {
                let f = ee
                    .get_function::<unsafe extern "C" fn(T, T) -> T>(&sym)
                    .expect("fn");
                f.call(x, y)
            } else {
                let f = ee
                    .get_function::<unsafe extern "C" fn(T) -> T>(&sym)
                    .expect("fn");
                f.call(x)
            }
        }
    }

    const FNS: &[MathFn] = &[
        MathFn::Exp,
        MathFn::Expm1,
        MathFn::Log,
        MathFn::Log1p,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Cbrt,
        MathFn::Tanh,
        MathFn::Erf,
        MathFn::Pow,
        MathFn::Atan2,
        MathFn::Fmod,
    ];

    fn reference(name: &str, x: f64, y: f64) -> f64 {
        match name {
            "exp" => x.exp(),
            "expm1" => x.exp_m1(),
            "log" => x.ln(),
            "log1p" => x.ln_1p(),
            "sin" => x.sin(),
            "cos" => x.cos(),
            "tan" => x.tan(),
            "cbrt" => x.cbrt(),
            "tanh" => x.tanh(),
            "erf" => libm::erf(x),
            "pow" => x.powf(y),
            "atan2" => x.atan2(y),
            "fmod" => x % y,
            _ => unreachable!(),
        }
    }

    /// The distance of NaNs and infinities: 0 for two NaNs, "infinitely
    /// far" for one NaN or unequal values one of which is infinite, None
    /// when both are finite or equal (an f32 converts exactly).
    fn special_ulps(a: f64, b: f64) -> Option<u64> {
        if a.is_nan() && b.is_nan() {
            return Some(0);
        }
        let far = a.is_nan() || b.is_nan() || (a.is_infinite() || b.is_infinite()) && a != b;
        far.then_some(u64::MAX)
    }

    /// Distance in units of the last place (NaN == NaN, inf == inf exactly).
    fn ulps64(a: f64, b: f64) -> u64 {
        // Bits as a monotonic integer line through -0 == +0.
        let k = |v: f64| {
            let i = v.to_bits() as i64;
            if i < 0 {
                i64::MIN - i
            } else {
                i
            }
        };
        special_ulps(a, b).unwrap_or_else(|| k(a).abs_diff(k(b)))
    }

    fn ulps32(a: f32, b: f32) -> u64 {
        let k = |v: f32| {
            let i = v.to_bits() as i32 as i64;
            if i < 0 {
                i32::MIN as i64 - i
            } else {
                i
            }
        };
        special_ulps(a as f64, b as f64).unwrap_or_else(|| k(a).abs_diff(k(b)))
    }

    /// Inputs: specials, then a log-uniform sweep of both signs.
    fn inputs(name: &str) -> Vec<f64> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.0,
            3.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e-300,
            -1e-300,
        ];
        let (lo, hi) = match name {
            "exp" | "expm1" | "tanh" => (-12.0, 2.85), // up to ~700
            "sin" | "cos" | "tan" => (-8.0, 5.5),      // |x| < 3e5
            "erf" => (-8.0, 0.9),
            _ => (-30.0, 30.0),
        };
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..4000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            let m = 10f64.powf(lo + (hi - lo) * u);
            v.push(if s & 1 == 0 { m } else { -m });
        }
        v
    }

    #[test]
    fn nvptx_math_matches_the_c_library_on_the_host() {
        Target::initialize_native(&InitializationConfig::default()).expect("native target");
        let ctx = Context::create();
        let m = ctx.create_module("math");
        let b = ctx.create_builder();
        let math = NvptxMath;
        let cg = math.cg(&ctx, &m, &b);
        for &f in FNS {
            let (name, n) = (f.c_name(), f.arity());
            for t in [cg.f64(), cg.f32()] {
                let fty = if n == 2 {
                    t.fn_type(&[t.into(), t.into()], false)
                } else {
                    t.fn_type(&[t.into()], false)
                };
                let tag = if t == cg.f64() { "64" } else { "32" };
                let func = m.add_function(&format!("t_{name}_{tag}"), fty, None);
                let bb = ctx.append_basic_block(func, "entry");
                b.position_at_end(bb);
                let args: Vec<_> = func
                    .get_param_iter()
                    .map(|p| p.into_float_value())
                    .collect();
                let r = math.emit(&cg, f, &args).expect("emit");
                b.build_return(Some(&r)).expect("ret");
            }
        }
        m.verify().expect("math IR verifies");
        let ee = m
            .create_jit_execution_engine(OptimizationLevel::Default)
            .expect("JIT");
        let mut report = Vec::new();
        let mut failures = Vec::new();
        for &f in FNS {
            let (name, n) = (f.c_name(), f.arity());
            let xs = inputs(name);
            let ys: Vec<f64> = match name {
                "pow" => vec![
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    2.0,
                    3.0,
                    -3.0,
                    0.5,
                    -2.5,
                    7.25,
                    1e-3,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    f64::NAN,
                ],
                "atan2" => vec![
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    1e-5,
                    -3e4,
                    2.5,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    f64::NAN,
                ],
                "fmod" => vec![
                    1.0,
                    -1.0,
                    0.3,
                    7.5,
                    -2.25e-3,
                    1e10,
                    0.0,
                    f64::INFINITY,
                    f64::NAN,
                ],
                _ => vec![0.0],
            };
            // Accuracy bounds in ulps (f64; f32 results are the f64 ones
            // rounded once: at most 1 ulp of f32). pow's f64 error grows
            // with |y log x|; fmod is exact.
            let bound64: u64 = match name {
                "fmod" => 0,
                "exp" | "expm1" | "log" | "cbrt" | "sin" | "cos" => 2,
                "log1p" => 3,
                "tan" | "tanh" => 4,
                "atan2" => 6,
                "erf" => 16,
                "pow" => 512,
                _ => 0,
            };
            let bound32: u64 = match name {
                "fmod" => 0,
                "exp" | "log" => 1,
                "tanh" => 6,
                _ => 1,
            };
            let (mut worst64, mut worst32) = (0u64, 0u64);
            for &y in &ys {
                for &x in &xs {
                    let (x, y) = if n == 2 && name == "pow" && x.abs() > 1e4 {
                        (x.abs().sqrt(), y)
                    } else {
                        (x, y)
                    };
                    let want = reference(name, x, y);
                    // SAFETY: t_{name}_64 takes n f64s and returns one.
                    let got = unsafe { call(&ee, name, 64, n, x, y) };
                    // Relative bound near results that underflow (denormals).
                    let d = if want != 0.0 && want.abs() < f64::MIN_POSITIVE * 4.0 {
                        if (got - want).abs() <= 1e-300 {
                            0
                        } else {
                            ulps64(got, want)
                        }
                    } else {
                        ulps64(got, want)
                    };
                    worst64 = worst64.max(d);
                    if d > bound64 {
                        failures.push(format!(
                            "{name}_f64({x:e}, {y:e}) = {got:e}, libm {want:e}: {d} ulps"
                        ));
                    }
                    let (xf, yf) = (x as f32, y as f32);
                    if (xf as f64).abs() < f32::MIN_POSITIVE as f64 && xf != 0.0 {
                        continue; // denormal f32 inputs are flushed before math calls
                    }
                    let want32 = reference(name, xf as f64, yf as f64) as f32;
                    // SAFETY: t_{name}_32 takes n f32s and returns one.
                    let got32 = unsafe { call(&ee, name, 32, n, xf, yf) };
                    if want32 != 0.0 && want32.abs() < f32::MIN_POSITIVE {
                        continue; // denormal f32 results are flushed afterwards
                    }
                    let d32 = ulps32(got32, want32);
                    worst32 = worst32.max(d32);
                    if d32 > bound32 {
                        failures.push(format!(
                            "{name}_f32({xf:e}, {yf:e}) = {got32:e}, libm {want32:e}: {d32} ulps"
                        ));
                    }
                }
            }
            report.push(format!(
                "{name}: f64 <= {worst64} ulp, f32 <= {worst32} ulp"
            ));
        }
        eprintln!("NVPTX math vs libm:\n  {}", report.join("\n  "));
        super::assert_no_failures(&failures);
    }
}

// ---------------------------------------------------------------------------
// Opcode programs: every element-wise opcode on every element type it
// accepts, every convert, data movement, reduces and dots, compiled
// unfused (one kernel per instruction) and fused, assembled by ptxas.

const TYPES: &[&str] = &[
    "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64",
];

fn opcode_module(ty: &str) -> String {
    let float = matches!(ty, "f16" | "bf16" | "f32" | "f64");
    let pred = ty == "pred";
    let sh = format!("{ty}[4,8]{{1,0}}");
    let mut body = vec![
        format!("  x = {sh} parameter(0)"),
        format!("  y = {sh} parameter(1)"),
        format!("  z = {sh} parameter(2)"),
        "  i = s32[] parameter(3)".to_string(),
    ];
    let mut outs = Vec::new();
    let mut add = |line: String, name: String| {
        body.push(line);
        outs.push(name);
    };
    // Opcode names, space-separated.
    let unary = if float {
        "negate abs sign exponential exponential-minus-one log log-plus-one sqrt rsqrt \
         cbrt tanh logistic sine cosine tan floor ceil round-nearest-afz round-nearest-even erf"
    } else if pred {
        "not"
    } else {
        "negate abs sign not popcnt count-leading-zeros"
    };
    for (k, op) in unary.split_whitespace().enumerate() {
        add(format!("  u{k} = {sh} {op}(x)"), format!("u{k}"));
    }
    if float {
        add(
            "  fin = pred[4,8]{1,0} is-finite(x)".to_string(),
            "fin".into(),
        );
        add(
            format!("  rp = {sh} reduce-precision(x), exponent_bits=5, mantissa_bits=3"),
            "rp".into(),
        );
    }
    let binary = if float {
        "add subtract multiply divide remainder power maximum minimum atan2"
    } else if pred {
        "and or xor"
    } else {
        "add subtract multiply divide remainder power maximum minimum and or xor shift-left \
         shift-right-logical shift-right-arithmetic"
    };
    for (k, op) in binary.split_whitespace().enumerate() {
        add(format!("  b{k} = {sh} {op}(x, y)"), format!("b{k}"));
    }
    for (k, dir) in ["EQ", "NE", "LT", "LE", "GT", "GE"].iter().enumerate() {
        add(
            format!("  c{k} = pred[4,8]{{1,0}} compare(x, y), direction={dir}"),
            format!("c{k}"),
        );
    }
    add(format!("  sel = {sh} select(c2, x, y)"), "sel".into());
    if !pred {
        add(format!("  clp = {sh} clamp(y, x, z)"), "clp".into());
    }
    for (k, to) in TYPES.iter().enumerate() {
        add(
            format!("  cv{k} = {to}[4,8]{{1,0}} convert(x)"),
            format!("cv{k}"),
        );
    }
    let same_width: &[&str] = match ty {
        "s8" | "u8" => &["s8", "u8"],
        "s16" | "u16" | "f16" | "bf16" => &["s16", "u16", "f16", "bf16"],
        "s32" | "u32" | "f32" => &["s32", "u32", "f32"],
        "s64" | "u64" | "f64" => &["s64", "u64", "f64"],
        _ => &[],
    };
    for (k, to) in same_width.iter().enumerate() {
        add(
            format!("  bc{k} = {to}[4,8]{{1,0}} bitcast-convert(x)"),
            format!("bc{k}"),
        );
    }
    // Data movement.
    add(
        format!("  tr = {ty}[8,4]{{1,0}} transpose(x), dimensions={{1,0}}"),
        "tr".into(),
    );
    add(format!("  trl = {ty}[4,8]{{0,1}} copy(x)"), "trl".into());
    add(
        format!("  rv = {sh} reverse(x), dimensions={{0,1}}"),
        "rv".into(),
    );
    add(
        format!("  sl = {ty}[2,3]{{1,0}} slice(x), slice={{[1:3], [2:8:2]}}"),
        "sl".into(),
    );
    add(format!("  rs = {ty}[32]{{0}} reshape(x)"), "rs".into());
    add(
        format!("  cc = {ty}[8,8]{{1,0}} concatenate(x, y), dimensions={{0}}"),
        "cc".into(),
    );
    add(format!("  zero = {ty}[] constant(0)"), "zero".into());
    add(
        format!("  pd = {ty}[10,11]{{1,0}} pad(x, zero), padding=1_2_1x0_3"),
        "pd".into(),
    );
    add(
        format!("  bc = {ty}[3,4,8]{{2,1,0}} broadcast(x), dimensions={{1,2}}"),
        "bc".into(),
    );
    if !pred {
        add(
            format!("  io = {ty}[4,8]{{1,0}} iota(), iota_dimension=1"),
            "io".into(),
        );
    }
    add(
        format!("  ds = {ty}[2,4]{{1,0}} dynamic-slice(x, i, i), dynamic_slice_sizes={{2,4}}"),
        "ds".into(),
    );
    add(
        format!("  dus = {sh} dynamic-update-slice(x, ds, i, i)"),
        "dus".into(),
    );
    let comb = if pred { "or" } else { "add" };
    let comb2 = if pred { "and" } else { "maximum" };
    add(
        format!("  r0 = {ty}[4]{{0}} reduce(x, zero), dimensions={{1}}, to_apply=red"),
        "r0".into(),
    );
    add(
        format!("  r1 = {ty}[] reduce(x, zero), dimensions={{0,1}}, to_apply=red2"),
        "r1".into(),
    );
    if !pred {
        add(
            format!("  dt = {ty}[4,4]{{1,0}} dot(x, y), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}"),
            "dt".into(),
        );
    }
    // The heavy ops with kernels of their own.
    add(
        format!("  rw = {ty}[4,8]{{1,0}} reduce-window(x, zero), window={{size=2x3 stride=1x2 pad=0_1x1_1 lhs_dilate=1x2}}, to_apply=red"),
        "rw".into(),
    );
    add(
        "  gi = s32[3,1]{1,0} constant({ {2}, {0}, {5} })".to_string(),
        "gi".into(),
    );
    add(
        format!("  ga = {ty}[3,8]{{1,0}} gather(x, gi), offset_dims={{1}}, collapsed_slice_dims={{0}}, start_index_map={{0}}, index_vector_dim=1, slice_sizes={{1,8}}"),
        "ga".into(),
    );
    add(
        format!("  upd = {ty}[3,8]{{1,0}} slice(y), slice={{[0:3], [0:8]}}"),
        "upd".into(),
    );
    add(
        "  si = s32[3,1]{1,0} constant({ {1}, {1}, {7} })".to_string(),
        "si".into(),
    );
    add(
        format!("  sc = {ty}[4,8]{{1,0}} scatter(x, si, upd), update_window_dims={{1}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=red"),
        "sc".into(),
    );
    if !pred {
        add(
            format!("  st = ({ty}[4,8]{{1,0}}, {ty}[4,8]{{1,0}}) sort(x, y), dimensions={{1}}, to_apply=cmp"),
            "st".into(),
        );
        add(
            format!("  src = {ty}[2,4]{{1,0}} slice(y), slice={{[0:2], [0:4]}}"),
            "src".into(),
        );
        add(
            format!("  sas = {ty}[4,8]{{1,0}} select-and-scatter(x, src, zero), window={{size=2x2 stride=2x2}}, select=ge, scatter=red"),
            "sas".into(),
        );
        if !float {
            add(
                "  seed = u64[3]{0} constant({7, 42, 18446744073709551615})".to_string(),
                "seed".into(),
            );
            add(
                format!("  rngp = (u64[3]{{0}}, {ty}[5,3]{{1,0}}) rng-bit-generator(seed), algorithm=rng_philox"),
                "rngp".into(),
            );
            add(
                format!("  rngt = (u64[3]{{0}}, {ty}[3,5]{{0,1}}) rng-bit-generator(seed), algorithm=rng_three_fry"),
                "rngt".into(),
            );
        }
        add(
            format!("  tk = ({ty}[4,3]{{1,0}}, s32[4,3]{{1,0}}) topk(x), k=3, largest=true"),
            "tk".into(),
        );
        add(
            format!("  tks = ({ty}[4,8]{{1,0}}, s32[4,8]{{1,0}}) topk(y), k=8, largest=false"),
            "tks".into(),
        );
        add(
            format!("  x4 = {ty}[1,1,4,8]{{3,2,1,0}} reshape(x)"),
            "x4".into(),
        );
        add(
            format!("  ks = {ty}[2,3]{{1,0}} slice(y), slice={{[0:2], [0:3]}}"),
            "ks".into(),
        );
        add(
            format!("  k4 = {ty}[1,1,2,3]{{3,2,1,0}} reshape(ks)"),
            "k4".into(),
        );
        add(
            format!("  cv = {ty}[1,1,3,6]{{3,2,1,0}} convolution(x4, k4), window={{size=2x3}}, dim_labels=bf01_oi01->bf01"),
            "cv".into(),
        );
    }
    let total = if float { ", type=TOTALORDER" } else { "" };
    let root_tys: Vec<String> = outs
        .iter()
        .map(|o| {
            let line = body
                .iter()
                .find(|l| l.starts_with(&format!("  {o} = ")))
                .unwrap();
            let t = line.split(" = ").nth(1).unwrap();
            if t.starts_with('(') {
                t[..=t.find(") ").unwrap()].to_string()
            } else {
                t.split(' ').next().unwrap().to_string()
            }
        })
        .collect();
    format!(
        "HloModule ops_{ty}\n\nred {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT r = {ty}[] {comb}(a, b)\n}}\n\n\
         red2 {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT r = {ty}[] {comb2}(a, b)\n}}\n\n\
         cmp {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  c = {ty}[] parameter(2)\n  d = {ty}[] parameter(3)\n  ROOT lt = pred[] compare(a, b), direction=LT{total}\n}}\n\n\
         ge {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT g = pred[] compare(a, b), direction=GE{total}\n}}\n\n\
         ENTRY main {{\n{}\n  ROOT out = ({}) tuple({})\n}}\n",
        body.join("\n"),
        root_tys.join(", "),
        outs.join(", ")
    )
}

#[test]
fn opcode_kernels_assemble_with_ptxas() {
    let ptxas = ptxas();
    let mut failures = Vec::new();
    let mut kernels = 0;
    for ty in TYPES {
        let text = opcode_module(ty);
        let m = match parse_module(&text) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{ty}: parse: {e}\n{text}"));
                continue;
            }
        };
        for (fused, sm) in [(false, "sm_80"), (false, "sm_90"), (true, "sm_80")] {
            let o = CompileOptions {
                sm: sm.into(),
                hlo_passes: fused,
                ..Default::default()
            };
            match compile(&m, &o) {
                Ok(c) => {
                    if !fused && sm == "sm_80" {
                        kernels += c.program.kernels.len();
                    }
                    if let Some(p) = &ptxas {
                        if let Err(e) = assemble(p, &c.ptx, sm, &format!("ops_{ty}_{fused}")) {
                            failures.push(format!("{ty}: {e}"));
                        }
                    }
                }
                Err(e) => failures.push(format!("{ty} [{sm}, fused {fused}]: {e}")),
            }
        }
    }
    eprintln!(
        "opcode programs: {kernels} unfused kernels over {} element types",
        TYPES.len()
    );
    assert_no_failures(&failures);
    assert!(kernels > 600, "only {kernels} kernels");
}

// ---------------------------------------------------------------------------
// Runtime: without a driver a clear error; with one, the corpus on the GPU.

#[test]
fn client_reports_a_missing_driver_clearly() {
    let r = hlox_cuda::CudaClient::new(0);
    if hlox_cuda::runtime::driver_present() {
        eprintln!("SKIP (driver present): the missing-driver error is not reachable here");
        // With a driver, a device that does not exist is a clear error too.
        let e = hlox_cuda::CudaClient::new(1 << 20).expect_err("no such device");
        assert!(e.to_string().contains("does not exist"), "{e}");
        return;
    }
    let e = r.expect_err("no driver on this machine");
    let s = e.to_string();
    assert!(
        s.starts_with("no CUDA driver found (libcuda.so): "),
        "unexpected error: {s}"
    );
    // Compilation needs no driver: tests/filetests/cuda/emit.hlo.
}

/// `run` on every corpus case that needs no Host-only target, fused then
/// unfused (`hlo_passes`), given the parsed module: `Ok(true)` when it ran
/// and matched JAX's outputs, `Ok(false)` for a documented gap. Returns how
/// many ran and every failure, named.
fn for_each_corpus_run(
    mut run: impl FnMut(&hlox_tests::CorpusCase, &hlox_hlo::Module, bool) -> Result<bool, String>,
) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in hlox_tests::corpus_cases() {
        if case.needs_host_only_targets() {
            continue;
        }
        for hlo_passes in [true, false] {
            let r = parse_module(&case.hlo_text())
                .map_err(|e| format!("parse: {e}"))
                .and_then(|m| run(&case, &m, hlo_passes));
            match r {
                Ok(true) => ran += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!("{} (hlo_passes={hlo_passes}): {e}", case.name)),
            }
        }
    }
    (ran, failures)
}

#[test]
fn corpus_runs_on_the_gpu() {
    let Some(client) = gpu("corpus_runs_on_the_gpu") else {
        return;
    };
    let mut graphs = 0;
    let (ran, failures) = for_each_corpus_run(|case, m, hlo_passes| {
        let o = CompileOptions {
            hlo_passes,
            ..opts("sm_80", &case.name)
        };
        let exe = match client.compile(m, &o) {
            Ok(e) => e,
            Err(hlox_cuda::runtime::RuntimeError::Compile(e)) if documented_gap(&e) => {
                return Ok(false)
            }
            Err(e) => return Err(format!("compile: {e}")),
        };
        let args = case.inputs()?;
        // Twice: the first run is recorded, the second replays it as a
        // CUDA graph where it can.
        for run in 0..2 {
            let got = exe
                .execute(&args)
                .map_err(|e| format!("run {run}: execute: {e}"))?;
            case.check_outputs(got)
                .map_err(|e| format!("run {run}: {e}"))?;
        }
        match exe.graph_status() {
            hlox_cuda::GraphStatus::Ready {
                device_graph: true,
                replays: 1,
                ..
            } => graphs += 1,
            hlox_cuda::GraphStatus::Off(_) => {}
            s => return Err(format!("graph status after two runs: {s:?}")),
        }
        Ok(true)
    });
    eprintln!(
        "corpus on the GPU: {ran} runs (fused + unfused) matched JAX's outputs twice, \
         {graphs} of them the second time as a CUDA graph"
    );
    assert_no_failures(&failures);
    assert!(ran >= 110, "only {ran} runs");
}

#[test]
fn dump_dir_holds_hlo_plan_llvm_ir_and_ptx() {
    let dir = std::env::temp_dir().join(format!("hlox-cuda-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let m = parse_module(
        "HloModule m\n\nENTRY e {\n  x = f32[64]{0} parameter(0)\n  y = f32[64]{0} sine(x)\n  \
         ROOT z = f32[64]{0} add(y, x)\n}\n",
    )
    .expect("parse");
    let o = CompileOptions {
        dump_dir: Some(dir.clone()),
        ..Default::default()
    };
    let c = compile(&m, &o).expect("compile");
    let read =
        |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    assert!(read("module.hlo").contains("sine("));
    assert!(read("module.optimized.hlo").contains("fusion"));
    let k = &c.program.kernels[0].name;
    assert!(read("program.txt").contains(&format!("kernel {k} (64 threads)")));
    assert!(read("kernels.ll").contains(&format!("define void @{k}(")));
    assert!(read("kernels.opt.ll").contains("nvvm.annotations"));
    assert_eq!(read("kernels.ptx"), c.ptx);
    assert!(c.ptx.contains(&format!(".visible .entry {k}(")));
    if let Some(p) = ptxas() {
        assemble(&p, &c.ptx, "sm_80", "dump").expect("assembles");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Options the backend cannot honour are compile errors. (Opcodes it does
/// not compile are too: tests/filetests/cuda/unsupported.hlo.)
#[test]
fn bad_options_are_compile_errors() {
    let m = parse_module(
        "HloModule m\n\nENTRY e {\n  x = f32[4]{0} parameter(0)\n  ROOT y = f32[4]{0} negate(x)\n}\n",
    )
    .expect("parse");
    let o = CompileOptions {
        sm: "volta".into(),
        ..Default::default()
    };
    let e = compile(&m, &o).expect_err("bad sm");
    assert!(e.to_string().contains("sm_<number>"), "{e}");
}

// ---------------------------------------------------------------------------
// The GPU example targets' CUDA C: compiled by NVRTC where libnvrtc can be
// loaded (the pip package nvidia-cuda-nvrtc-cu12 that scripts/setup_ptxas.sh
// installs: the test re-runs itself with it on LD_LIBRARY_PATH), and the
// PTX assembled by ptxas.

#[test]
fn target_kernels_compile_with_nvrtc() {
    let present = unsafe { cudarc::nvrtc::sys::is_culib_present() };
    if !present {
        if std::env::var_os("HLOX_NVRTC_CHILD").is_some() {
            panic!("libnvrtc still not loadable with LD_LIBRARY_PATH set");
        }
        let lib = std::fs::read_dir(hlox_tests::workspace_root().join(".venv-cuda/lib"))
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .map(|e| e.path().join("site-packages/nvidia/cuda_nvrtc/lib"))
            .filter(|p| p.is_dir());
        let Some(lib) = lib else {
            eprintln!("SKIP: libnvrtc not found (scripts/setup_ptxas.sh installs it): the targets' CUDA C was not compiled");
            return;
        };
        let ld = match std::env::var("LD_LIBRARY_PATH") {
            Ok(v) if !v.is_empty() => format!("{}:{v}", lib.display()),
            _ => lib.display().to_string(),
        };
        let out = Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "target_kernels_compile_with_nvrtc",
                "--nocapture",
            ])
            .env("LD_LIBRARY_PATH", ld)
            .env("HLOX_NVRTC_CHILD", "1")
            .output()
            .expect("re-run");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "NVRTC child failed:\n{text}");
        assert!(text.contains("NVRTC compiled"), "{text}");
        return;
    }
    let ptx = targets::compile_source().expect("NVRTC compiles targets/cuda/kernels.cu");
    for k in targets::KERNELS {
        assert!(ptx.contains(&format!(".entry {k}(")), "{k} missing:\n{ptx}");
    }
    if let Some(p) = ptxas() {
        for sm in ["sm_80", "sm_90"] {
            assemble(&p, &ptx, sm, "targets").expect("targets assemble");
        }
    }
    eprintln!("NVRTC compiled {} target kernels", targets::KERNELS.len());
}

#[test]
fn target_opaque_counts() {
    let s = b"1024";
    assert_eq!(targets::opaque_count(s.as_ptr() as _, 4, 0), Ok(1024));
    assert_eq!(targets::opaque_count(std::ptr::null(), 0, 256), Ok(256));
    let bad = b"lots";
    assert!(targets::opaque_count(bad.as_ptr() as _, 4, 0)
        .unwrap_err()
        .to_string()
        .contains("not an element count"));
}

// ---------------------------------------------------------------------------
// Host emulation: the same kernels compiled for the host, the same program
// interpreter; the corpus must give JAX's outputs (fused and unfused).

/// `pub fn`s with the signature of XLA's CUDA status-returning custom
/// calls (`stream, buffers, opaque, opaque_len, status`), each written as
/// `fn name(s, b, o, l, st) { ... }` with its parameter names.
macro_rules! cuda_status_targets {
    ($($(#[$doc:meta])* fn $name:ident($s:ident, $b:ident, $o:ident, $l:ident, $st:ident) $body:block)*) => {
        $(
            $(#[$doc])*
            pub fn $name(
                $s: hlox_ffi::CUstream,
                $b: *mut *mut std::ffi::c_void,
                $o: *const std::ffi::c_char,
                $l: usize,
                $st: *mut hlox_ffi::XlaCustomCallStatus,
            ) $body
        )*
    };
}

/// CUDA-convention targets that run on either backend (buffers through
/// [`mem`]), used to check XLA's buffer order and aliasing.
mod test_targets {
    use super::mem;
    use hlox_ffi::{CUstream, XlaCustomCallStatus};
    use std::ffi::{c_char, c_void};

    fn buffers<'a>(b: *mut *mut c_void, n: usize) -> &'a [*mut c_void] {
        // SAFETY: XLA's convention: one pointer per operand and result leaf.
        unsafe { std::slice::from_raw_parts(b, n) }
    }

    fn report(st: *mut XlaCustomCallStatus, r: Result<(), String>) {
        if let Err(m) = r {
            // SAFETY: the status the runtime passes, valid for the call.
            unsafe { (*st).set_failure(m.as_bytes()) }
        }
    }

    /// The seed of XLA's guide: A[i] = B[i % 128] + C[i] over f32[2048].
    fn seed(s: CUstream, b: *mut *mut c_void) -> Result<(), String> {
        let b = buffers(b, 3);
        unsafe {
            let x: Vec<f32> = mem::read(s, b[0], 128)?;
            let c: Vec<f32> = mem::read(s, b[1], 2048)?;
            let a: Vec<f32> = (0..2048).map(|i| x[i % 128] + c[i]).collect();
            mem::write(s, b[2], &a)
        }
    }
    pub fn seed_original(s: CUstream, b: *mut *mut c_void, _o: *const c_char, _l: usize) {
        if let Err(m) = seed(s, b) {
            panic!("seed: {m}")
        }
    }
    /// Add `d` to element `i` of the f32 buffer `p`.
    unsafe fn bump(s: CUstream, p: *mut c_void, i: usize, d: f32) -> Result<(), String> {
        let mut v: Vec<f32> = unsafe { mem::read(s, p, i + 1)? };
        v[i] += d;
        unsafe { mem::write(s, p, &v) }
    }
    cuda_status_targets! {
        fn seed_status(s, b, _o, _l, st) {
            report(st, seed(s, b))
        }
        /// As the example target: x, y: f32[n], alpha, beta: f32[] -> z: f32[n],
        /// n the opaque as decimal text (256 when empty). It fails when
        /// y[0] < -1000 (the graph test's failing call).
        fn axpby(s, b, o, l, st) {
            let b = buffers(b, 5);
            report(st, unsafe {
                (|| {
                    let n = hlox_cuda::targets::opaque_count(o, l, 256).map_err(|e| e.to_string())?
                        as usize;
                    let x: Vec<f32> = mem::read(s, b[0], n)?;
                    let y: Vec<f32> = mem::read(s, b[1], n)?;
                    let al: Vec<f32> = mem::read(s, b[2], 1)?;
                    let be: Vec<f32> = mem::read(s, b[3], 1)?;
                    if y[0] < -1000.0 {
                        return Err("y[0] is below -1000".into());
                    }
                    let z: Vec<f32> = (0..n).map(|i| al[0] * x[i] + be[0] * y[i]).collect();
                    mem::write(s, b[4], &z)
                })()
            })
        }
        fn fails(_s, _b, o, l, st) {
            let msg = unsafe { std::slice::from_raw_parts(o as *const u8, l) };
            unsafe { (*st).set_failure(msg) };
        }
        /// in: f32[4], out: f32[4] aliased to it: `out[0] += 10`, relying on
        /// `out` holding the operand (one buffer in both places).
        fn bump_first(s, b, _o, _l, st) {
            let b = buffers(b, 2);
            if b[0] != b[1] {
                return report(st, Err("operand and aliased result are two buffers".into()));
            }
            report(st, unsafe { bump(s, b[1], 0, 10.0) })
        }
        /// p, q: f32[4] -> (f32[4] aliased to q, f32[4] aliased to p):
        /// `q[1] += 100`, `p[2] += 1000`.
        fn bump_pair(s, b, _o, _l, st) {
            let b = buffers(b, 4);
            if b[0] != b[3] || b[1] != b[2] {
                return report(
                    st,
                    Err("operands and aliased results are different buffers".into()),
                );
            }
            report(st, unsafe {
                bump(s, b[2], 1, 100.0).and_then(|_| bump(s, b[3], 2, 1000.0))
            })
        }
    }
}

fn emulation_registry(case: &str) -> Registry {
    if let Some(r) = ffi_targets::registry(case) {
        return r;
    }
    let r = Registry::new();
    if case == "cc_do_custom_call_v1" {
        r.register_fn(
            "do_custom_call",
            Platform::Cuda,
            test_targets::seed_original,
        )
    } else {
        r.register_fn("do_custom_call", Platform::Cuda, test_targets::seed_status)
    }
    .expect("register");
    r.register_fn("axpby", Platform::Cuda, test_targets::axpby)
        .expect("register");
    // They only touch their buffers: graph-compatible.
    for t in ["do_custom_call", "axpby"] {
        r.set_traits(t, Platform::Cuda, hlox_ffi::Traits::GRAPH_COMPATIBLE)
            .expect("traits");
    }
    r
}

#[test]
fn corpus_runs_in_host_emulation() {
    let mut replayed = 0;
    let (ran, failures) = for_each_corpus_run(|case, m, hlo_passes| {
        let o = CompileOptions {
            registry: Some(Arc::new(emulation_registry(&case.name))),
            hlo_passes,
            ..Default::default()
        };
        let c = match compile(m, &o) {
            Ok(c) => c,
            Err(e) if documented_gap(&e) => return Ok(false),
            Err(e) => return Err(format!("compile: {e}")),
        };
        let exe = hlox_cuda::emulate::EmulatedExecutable::new(c)
            .map_err(|e| format!("emulation: {e}"))?;
        let args = case.inputs()?;
        // Twice: the second run replays the first where it can.
        let first = exe.execute(&args).map_err(|e| format!("execute: {e}"))?;
        let got = exe.execute(&args).map_err(|e| format!("second run: {e}"))?;
        if got != first {
            return Err("the second run differs from the first".into());
        }
        if let hlox_cuda::GraphStatus::Ready { replays: 1, .. } = exe.graph_status() {
            replayed += 1;
        }
        case.check_outputs(got)?;
        Ok(true)
    });
    eprintln!(
        "corpus in host emulation: {ran} runs (fused + unfused) matched JAX's outputs, \
         {replayed} of them replaying a recorded first run"
    );
    assert_no_failures(&failures);
    assert!(ran >= 178, "only {ran} runs");
    assert!(replayed >= 80, "only {replayed} replayed");
}

/// `m` with the custom-call targets of `registry`, built on every backend
/// and run twice (the second run may replay the first) on
/// `x = f32[4] {1, 2, 3, 4}`; each run's result given to `check` with the
/// backend's name.
fn run_twice_with_targets(
    test: &str,
    m: &hlox_hlo::Module,
    registry: Registry,
    check: impl Fn(&str, Result<hlox_hlo::Literal, hlox_cuda::runtime::RuntimeError>),
) {
    let o = CompileOptions {
        registry: Some(Arc::new(registry)),
        ..Default::default()
    };
    let x = hlox_hlo::Literal::r1(&[1.0f32, 2.0, 3.0, 4.0]);
    for be in backends(test) {
        let exe = be.build(m, &o).expect("builds");
        for _ in 0..2 {
            check(be.name(), exe.execute(std::slice::from_ref(&x)));
        }
    }
}

#[test]
fn failing_custom_call_stops_the_run_with_its_message() {
    let m = parse_module(
        "HloModule m\n\nENTRY e {\n  x = f32[4]{0} parameter(0)\n  y = f32[4]{0} negate(x)\n  \
         ROOT c = f32[4]{0} custom-call(y), custom_call_target=\"fails\", \
         api_version=API_VERSION_STATUS_RETURNING, backend_config=\"out of cheese\"\n}\n",
    )
    .expect("parse");
    let r = Registry::new();
    r.register_fn("fails", Platform::Cuda, test_targets::fails)
        .expect("register");
    let test = "failing_custom_call_stops_the_run_with_its_message";
    run_twice_with_targets(test, &m, r, |be, run| {
        let e = run.expect_err("the target fails").to_string();
        assert!(
            e.starts_with("c: CustomCall failed: target \"fails\"") && e.contains("out of cheese"),
            "{be}: {e}"
        );
    });
}

#[test]
fn aliased_custom_call_results_share_the_operand_buffer() {
    // `a`: the operand `n` dies at the call (its buffer is reused); `b`: the
    // operand is a parameter, still in the result (copied first); `t`: a
    // tuple result whose elements alias two operands that are still live.
    let m = parse_module(
        "HloModule m\n\nENTRY e {\n  x = f32[4]{0} parameter(0)\n  n = f32[4]{0} negate(x)\n  \
         a = f32[4]{0} custom-call(n), custom_call_target=\"bump_first\", \
         output_to_operand_aliasing={{}: (0, {})}, api_version=API_VERSION_STATUS_RETURNING\n  \
         b = f32[4]{0} custom-call(x), custom_call_target=\"bump_first\", \
         output_to_operand_aliasing={{}: (0, {})}, api_version=API_VERSION_STATUS_RETURNING\n  \
         t = (f32[4]{0}, f32[4]{0}) custom-call(a, b), custom_call_target=\"bump_pair\", \
         output_to_operand_aliasing={{0}: (1, {}), {1}: (0, {})}, \
         api_version=API_VERSION_STATUS_RETURNING\n  \
         t0 = f32[4]{0} get-tuple-element(t), index=0\n  \
         t1 = f32[4]{0} get-tuple-element(t), index=1\n  \
         ROOT r = (f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(a, b, t0, t1, x)\n}\n",
    )
    .expect("parse");
    let r = Registry::new();
    r.register_fn("bump_first", Platform::Cuda, test_targets::bump_first)
        .expect("register");
    r.register_fn("bump_pair", Platform::Cuda, test_targets::bump_pair)
        .expect("register");
    let test = "aliased_custom_call_results_share_the_operand_buffer";
    run_twice_with_targets(test, &m, r, |be, run| {
        let hlox_hlo::Literal::Tuple(t) = run.expect("runs") else {
            panic!("a tuple")
        };
        let got: Vec<Vec<f32>> = t.iter().map(|l| l.to_vec::<f32>().unwrap()).collect();
        assert_eq!(
            got,
            vec![
                vec![9.0, -2.0, -3.0, -4.0],
                vec![11.0, 2.0, 3.0, 4.0],
                vec![11.0, 102.0, 3.0, 4.0],
                vec![9.0, -2.0, 997.0, -4.0],
                vec![1.0, 2.0, 3.0, 4.0],
            ],
            "{be}"
        );
    });
}

/// A random literal of `ty` and `dims` (default layout): floats in [-1, 1),
/// integers in [-100, 100), predicates 1 in 8.
fn random_literal(ty: &str, dims: &[i64], seed: u64) -> hlox_hlo::Literal {
    use hlox_hlo::{ArrayLiteral, ArrayShape, ElementType};
    let et = ElementType::from_name(ty).expect("type");
    let shape = ArrayShape::new(et, dims.to_vec());
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut bytes = Vec::new();
    for _ in 0..shape.element_count() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let f = (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        let i = (s % 200) as i64 - 100;
        match et {
            ElementType::Pred => bytes.push(s.is_multiple_of(8) as u8),
            ElementType::F32 => bytes.extend((f as f32).to_le_bytes()),
            ElementType::F64 => bytes.extend(f.to_le_bytes()),
            _ => bytes.extend(&i.to_le_bytes()[..et.byte_size()]),
        }
    }
    hlox_hlo::Literal::Array(ArrayLiteral::from_bytes(shape, bytes).expect("bytes"))
}

/// A [`random_literal`] for every (array) parameter of `m`, of its type and
/// dimensions in the default layout, parameter `i` with seed `seed + i`.
fn random_args(m: &hlox_hlo::Module, seed: u64) -> Vec<hlox_hlo::Literal> {
    let params = m.entry_computation().program_shape().parameters;
    params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let a = p.as_array().expect("array parameters");
            random_literal(a.ty.name(), &a.dims, seed + i as u64)
        })
        .collect()
}

/// `l` with byte `i` (of its element bytes) replaced by `f(i, byte)`.
fn map_bytes(l: hlox_hlo::Literal, f: impl Fn(usize, u8) -> u8) -> hlox_hlo::Literal {
    let a = l.as_array().expect("an array");
    let v: Vec<u8> = a
        .bytes()
        .iter()
        .enumerate()
        .map(|(i, &b)| f(i, b))
        .collect();
    hlox_hlo::Literal::Array(
        hlox_hlo::ArrayLiteral::from_bytes(a.shape().clone(), v).expect("bytes"),
    )
}

/// How many of `c`'s kernels are of a kind `f` accepts.
fn count_kernels(
    c: &hlox_cuda::CompiledModule,
    f: impl Fn(&hlox_cuda::plan::KernelKind) -> bool,
) -> usize {
    c.program.kernels.iter().filter(|k| f(&k.kind)).count()
}

/// The host steps of every computation of `c`'s program.
fn steps(c: &hlox_cuda::CompiledModule) -> impl Iterator<Item = &hlox_cuda::plan::Step> {
    c.program
        .comps
        .values()
        .flat_map(|p| &p.steps)
        .map(|(_, s, _)| s)
}

/// A module checked against the evaluator on the CUDA backends: by
/// default on every backend ([`backends`]), unfused and fused
/// (`hlo_passes`).
struct EvaluatorCheck<'a> {
    test: &'a str,
    m: &'a hlox_hlo::Module,
    args: &'a [hlox_hlo::Literal],
    bes: Vec<Backend>,
    fusions: &'static [bool],
}

impl<'a> EvaluatorCheck<'a> {
    fn new(test: &'a str, m: &'a hlox_hlo::Module, args: &'a [hlox_hlo::Literal]) -> Self {
        EvaluatorCheck {
            test,
            m,
            args,
            bes: backends(test),
            fusions: &[false, true],
        }
    }

    /// Runs on the GPU alone (none: nothing runs).
    fn gpu_only(mut self) -> Self {
        self.bes = gpu_backends(self.test);
        self
    }

    /// Compiles with the HLO passes only.
    fn fused_only(mut self) -> Self {
        self.fusions = &[true];
        self
    }

    /// The module compiled with each fusion setting: every compiled
    /// program given to `check_plan` (with its fusion) and its PTX
    /// assembled for sm_80 when ptxas is present; then run on each
    /// backend, output `k` of every run compared with the evaluator's
    /// within `tol(k)` (`(rtol, atol)`; `None`: the caller checks that
    /// output itself). Returns what ran ("<backend> fused <f>") and its
    /// result leaves.
    fn run(
        self,
        check_plan: impl Fn(&hlox_cuda::CompiledModule, bool),
        tol: impl Fn(usize) -> Option<(f64, f64)>,
    ) -> Vec<(String, Vec<hlox_hlo::Literal>)> {
        let EvaluatorCheck {
            test,
            m,
            args,
            bes,
            fusions,
        } = self;
        let want = hlox_eval::evaluate_with_registry(m, args, &Registry::new())
            .expect("evaluator")
            .into_leaves();
        let ptxas = ptxas();
        let mut runs = Vec::new();
        for &fused in fusions {
            let o = CompileOptions {
                hlo_passes: fused,
                ..Default::default()
            };
            let c = compile(m, &o).expect("compile");
            check_plan(&c, fused);
            if let Some(px) = &ptxas {
                assemble(px, &c.ptx, "sm_80", &format!("{test}{fused}")).expect("ptxas");
            }
            for be in &bes {
                let exe = be.build(m, &o).expect("builds");
                let got = exe.execute(args).expect("runs").into_leaves();
                let what = format!("{} fused {fused}", be.name());
                for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                    if let Some((rtol, atol)) = tol(k) {
                        hlox_tests::compare_literals(g, w, rtol, atol)
                            .unwrap_or_else(|e| panic!("{test}: {what}: output {k}: {e}"));
                    }
                }
                runs.push((what, got));
            }
        }
        runs
    }
}

/// Case `case` (0-based; cases are separated by `// -----` lines) of the
/// filetest `tests/filetests/cuda/NAME`. The file holds the program as
/// documentation (and runs it where a file can say how); the Rust test
/// that reads it checks what a file cannot say: kernel plans, ptxas, made
/// inputs and oracles, the GPU.
fn filetest_case(name: &str, case: usize) -> hlox_hlo::Module {
    let path = hlox_tests::workspace_root()
        .join("tests/filetests/cuda")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let cases: Vec<&str> = text.split("\n// -----\n").collect();
    let text = cases
        .get(case)
        .unwrap_or_else(|| panic!("{} has {} cases", path.display(), cases.len()));
    parse_module(text).unwrap_or_else(|e| panic!("{} case {case}: {e}", path.display()))
}

/// The module of the one-case filetest `tests/filetests/cuda/NAME` and its
/// `args: random(seed)` arguments (as the filetest runner makes them).
fn filetest_module(name: &str, seed: u64) -> (hlox_hlo::Module, Vec<hlox_hlo::Literal>) {
    let m = filetest_case(name, 0);
    let args = hlox_tests::random_args(&m, seed);
    (m, args)
}

/// The GPU backend alone (none without a GPU): for the tests whose
/// emulation runs are filetests.
fn gpu_backends(test: &str) -> Vec<Backend> {
    gpu(test).map(Backend::Gpu).into_iter().collect()
}

/// With the HLO passes off, a row reduce and the broadcast of its result
/// are separate kernels: the reduce a warp per row, the broadcast and the
/// divide one thread per element reading the reduce's buffer. (They were
/// once planned as row fusions of the whole entry computation, and both the
/// NVPTX and the emulation kernels failed to compile with "x: parameter 0
/// has no value in this context".) The program and its values are
/// tests/filetests/cuda/unfused_row_reduce_broadcast.hlo.
#[test]
fn unfused_row_reduce_then_broadcast_is_not_a_row_fusion() {
    use hlox_cuda::plan::KernelKind;
    let m = filetest_case("unfused_row_reduce_broadcast.hlo", 0);
    let o = CompileOptions {
        hlo_passes: false,
        ..Default::default()
    };
    let c = compile(&m, &o).expect("compiles with the passes off");
    assert_eq!(
        count_kernels(&c, |k| matches!(k, KernelKind::RowFusion { .. })),
        0
    );
    assert_eq!(
        count_kernels(&c, |k| matches!(k, KernelKind::ReduceRows { outputs: 4 })),
        1
    );
    assert_eq!(count_kernels(&c, |k| *k == KernelKind::Elemental), 2);
    if let Some(px) = ptxas() {
        assemble(&px, &c.ptx, "sm_80", "unfused_row_reduce").expect("ptxas");
    }
}

/// Reductions with few outputs and many elements each run as two kernels
/// (parts over many threads, then an in-order combine): they give the
/// evaluator's results (integers, max/min and predicates exactly, float
/// sums within rounding), fused and unfused, and their PTX assembles.
#[test]
fn split_reductions_match_the_evaluator() {
    let m = filetest_case("split_reductions.hlo", 0);
    let args = random_args(&m, 1);
    let test = "split_reductions_match_the_evaluator";
    let runs = EvaluatorCheck::new(test, &m, &args).run(
        |c, fused| {
            let splits = steps(c)
                .filter(|s| matches!(s, hlox_cuda::plan::Step::SplitReduce { .. }))
                .count();
            // Every reduction but `small` (8192 outputs of 8 elements).
            assert_eq!(
                splits,
                7,
                "fused {fused}:\n{}",
                hlox_cuda::describe(&c.module, &c.program)
            );
            // The five thread splits (all but the two row sums) have 64
            // parts or more: a warp combines each output's parts.
            let warp_combines = count_kernels(c, |k| {
                matches!(k, hlox_cuda::plan::KernelKind::ReduceCombine(sr)
                    if sr.warp_combine() && !sr.warp)
            });
            assert_eq!(warp_combines, 5, "fused {fused}");
        },
        // Outputs 0, 1 and 7 below; `small` (6) within rounding.
        |k| match k {
            0 | 1 | 7 => None,
            6 => Some((1e-6, 1e-6)),
            _ => Some((0.0, 0.0)),
        },
    );
    for (what, got) in runs {
        // The float sums of 2^20 elements: against the exact (f64) sums
        // (the evaluator adds in order, which is less accurate than blocks).
        let xs = args[0].to_vec::<f32>().expect("f32");
        let exact = [
            xs.iter().map(|&v| v as f64).sum::<f64>(),
            xs.iter().map(|&v| (v * v) as f64).sum::<f64>(),
        ];
        for (k, e) in exact.into_iter().enumerate() {
            let g = got[k].to_vec::<f32>().expect("f32")[0] as f64;
            assert!(
                (g - e).abs() <= 1e-6 * e.abs().max(1.0),
                "{what}: output {k}: {g} vs exact {e}"
            );
        }
        // Column sums of 8192 values in [-1, 1] (2048 parts of 4,
        // a warp combining them): against the exact sums, the
        // evaluator's in-order sums being the less accurate.
        let zs = args[5].to_vec::<f32>().expect("f32");
        let g = got[7].to_vec::<f32>().expect("f32");
        for (col, &gv) in g.iter().enumerate() {
            let e: f64 = zs.iter().skip(col).step_by(64).map(|&v| v as f64).sum();
            // Rounding scales with the partial sums, not the
            // (cancelled) total: about 4e-5 here; one element
            // dropped or counted twice would be ~0.5.
            let abs: f64 = zs
                .iter()
                .skip(col)
                .step_by(64)
                .map(|&v| v.abs() as f64)
                .sum();
            assert!(
                (gv as f64 - e).abs() <= 1e-8 * abs + 1e-6 * e.abs(),
                "{what}: column {col}: {gv} vs exact {e}"
            );
        }
    }
}

/// Row reductions (the input's most minor dimension reduced, rows of at
/// least 64) run a warp per row, lanes reading consecutive elements and
/// combined by shuffles; with few outputs of many elements, a warp per
/// part of a split. Every reducer and element width the shuffles move (8,
/// 32 and 64 bits, predicates), rows that are not a multiple of 32, a
/// softmax-like fusion, two reduced dimensions, a column-major input:
/// the evaluator's results (exactly but for float sums and products),
/// fused and unfused; the PTX shuffles and assembles.
#[test]
fn row_reductions_run_a_warp_per_row_and_match_the_evaluator() {
    let m = filetest_case("row_reductions.hlo", 0);
    let mut args = random_args(&m, 1);
    // `p`: mostly-true predicates, so that "and" is not always false.
    args[3] = map_bytes(args[3].clone(), |_, b| (b == 0) as u8);
    // `ps`: mostly false, most rows all false (an identity other than
    // false would show).
    args[10] = map_bytes(args[10].clone(), |i, b| (b != 0 && i % 1500 == 0) as u8);
    let test = "row_reductions_run_a_warp_per_row_and_match_the_evaluator";
    let checked = std::cell::Cell::new(0);
    EvaluatorCheck::new(test, &m, &args).run(
        |c, fused| {
            use hlox_cuda::plan::KernelKind;
            let rows = count_kernels(c, |k| matches!(k, KernelKind::ReduceRows { .. }));
            let warp_splits = count_kernels(
                c,
                |k| matches!(k, KernelKind::ReducePartials(sr) if sr.warp),
            );
            // A warp per row: mx, sm, si, pw, all, mb8, mu, sc; a warp per
            // part: st (20 outputs of 4800), sl (8 of 4096), and r1..r6
            // (fewer than 1024 outputs of at least 2048 elements; r1, r2,
            // r3, r4 and r6 have fewer than 32 parts, so lanes of their
            // combine warps start from the reducer's identity alone; the
            // data is such that a wrong identity changes the result:
            // products of odd numbers, ands of 0xf0f0 | x, rows of
            // predicates mostly all false).
            let plan = hlox_cuda::describe(&c.module, &c.program);
            assert_eq!((rows, warp_splits), (8, 8), "fused {fused}:\n{plan}");
            assert!(
                c.ptx.contains("shfl.sync.down.b32"),
                "fused {fused}: no shuffles"
            );
            checked.set(checked.get() + 1);
        },
        // Float sums and products in another order: within rounding (the
        // sums of thousands of values in [-1, 1] cancel to about 1, so
        // their rounding is absolute: the evaluator's in-order sum is the
        // less accurate one).
        |k| match k {
            1 | 3 | 9 => Some((1e-5, 1e-5)),
            7 | 8 => Some((1e-5, 1e-4)),
            _ => Some((0.0, 0.0)),
        },
    );
    assert_eq!(checked.get(), 2);
    // Whole warps per block, or the lanes of a row would straddle blocks.
    let odd = CompileOptions {
        block_size: 100,
        ..Default::default()
    };
    let e = compile(&m, &odd).expect_err("block size 100");
    assert!(e.to_string().contains("multiple of 32"), "{e}");
}

/// Complex numbers and fft on CUDA: every case of the filetest
/// `tests/filetests/cuda/complex.hlo` (which runs them in emulation, HLO
/// passes on and off, against the interpreter) compiles unfused and fused
/// for sm_80 and sm_90 and ptxas assembles its PTX; complex reductions,
/// long rows and whole arrays too, run a thread per output (the general
/// reduce loop, in the evaluator's order: no warp or split path); the dots
/// are cuBLAS GEMMs (complex GemmEx: CGEMM, ZGEMM) where their layouts
/// allow, and dot kernels in emulation; ffts are `Step::Fft`s with scale
/// kernels for IFFT and IRFFT and relayout kernels for other layouts.
#[test]
fn complex_kernels_assemble_with_ptxas() {
    use hlox_cuda::plan::KernelKind;
    let ptxas = ptxas();
    let mut failures = Vec::new();
    let mut compiled = 0;
    for case in 0..9 {
        let m = filetest_case("complex.hlo", case);
        for (fused, sm) in [
            (false, "sm_80"),
            (false, "sm_90"),
            (true, "sm_80"),
            (true, "sm_90"),
        ] {
            let o = CompileOptions {
                sm: sm.into(),
                hlo_passes: fused,
                ..Default::default()
            };
            let c = match compile(&m, &o) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("case {case} [{sm}, fused {fused}]: {e}"));
                    continue;
                }
            };
            compiled += 1;
            if let Some(p) = &ptxas {
                if let Err(e) = assemble(p, &c.ptx, sm, &format!("complex_{case}_{fused}")) {
                    failures.push(format!("case {case}: {e}"));
                }
            }
            let plan = hlox_cuda::describe(&c.module, &c.program);
            if case == 4 && !fused {
                // rows (8 rows of 256) and all (4096 elements): a thread
                // per output all the same.
                let rows = count_kernels(&c, |k| matches!(k, KernelKind::ReduceRows { .. }));
                let splits = steps(&c)
                    .filter(|s| matches!(s, hlox_cuda::plan::Step::SplitReduce { .. }))
                    .count();
                assert_eq!((rows, splits), (0, 0), "{plan}");
                let all = c.program.kernels.iter().find(|k| k.inst == "all");
                assert_eq!(all.map(|k| k.threads), Some(1), "{plan}");
            }
            if case == 5 {
                // x2 (c64, batched) and g (c128) are GEMMs; x and y (an
                // operand in another layout) and mv (a vector) run the dot
                // kernel.
                let gemms: Vec<_> = c
                    .program
                    .kernels
                    .iter()
                    .filter_map(|k| k.gemm.map(|g| (k.inst.as_str(), g.input, g.output)))
                    .collect();
                use hlox_hlo::ElementType::{C128, C64};
                assert_eq!(gemms, [("x2", C64, C64), ("g", C128, C128)], "{plan}");
            }
            if case == 6 {
                // Nine transforms; IFFT and IRFFT (five) scaled by a kernel.
                let ffts: Vec<_> = steps(&c)
                    .filter_map(|s| match s {
                        hlox_cuda::plan::Step::Fft { plan, scale, .. } => Some((plan, scale)),
                        _ => None,
                    })
                    .collect();
                assert_eq!(ffts.len(), 9, "{plan}");
                assert_eq!(
                    ffts.iter().filter(|(_, s)| s.is_some()).count(),
                    5,
                    "{plan}"
                );
                let scales = count_kernels(&c, |k| matches!(k, KernelKind::FftScale { .. }));
                assert_eq!(scales, 5, "{plan}");
            }
            if case == 7 && !fused {
                // a's operand, i's and r's results: three relayouts.
                let relayouts = count_kernels(&c, |k| matches!(k, KernelKind::FftRelayout { .. }));
                assert_eq!(relayouts, 3, "{plan}");
            }
        }
    }
    assert_no_failures(&failures);
    assert_eq!(compiled, 36);
}

/// Row fusions (softmax, log-softmax, layernorm, a rank-3 softmax along a
/// dimension that is minor in a non-default layout) run a warp per row
/// that computes the row's reductions once, then the row's elements; a
/// loop fusion whose reduction is not per row (here reversed before it is
/// broadcast) keeps one thread per element. Unfused, the reductions run a
/// warp per row on their own. The program and its emulated runs against
/// the interpreter are the filetest `tests/filetests/cuda/row_fusions.hlo`;
/// here the plans, ptxas, and the evaluator's results within float
/// rounding on the GPU when there is one.
#[test]
fn row_fusions_reduce_each_row_once_and_match_the_evaluator() {
    let test = "row_fusions_reduce_each_row_once_and_match_the_evaluator";
    let (m, args) = filetest_module("row_fusions.hlo", 11);
    EvaluatorCheck::new(test, &m, &args).gpu_only().run(
        |c, fused| {
            use hlox_cuda::plan::KernelKind;
            let row_fusions = count_kernels(c, |k| matches!(k, KernelKind::RowFusion { .. }));
            let rows = count_kernels(c, |k| matches!(k, KernelKind::ReduceRows { .. }));
            let plan = hlox_cuda::describe(&c.module, &c.program);
            // Fused: five row fusions (`ex` with its row max, then the
            // softmax, the log-softmax, the layernorm and the rank-3
            // softmax); `fused_rev` stays elemental. Unfused: every reduce
            // but `fused_rev`'s (inside the fusion) on its own.
            if fused {
                assert_eq!(row_fusions, 5, "{plan}");
                assert_eq!(rows, 0, "{plan}");
            } else {
                assert_eq!((row_fusions, rows), (0, 6), "{plan}");
            }
            let rev = c
                .program
                .kernels
                .iter()
                .find(|k| k.inst == "rev")
                .expect("a kernel for rev");
            assert_eq!(rev.kind, KernelKind::Elemental, "{plan}");
        },
        |_| Some((1e-5, 1e-5)),
    );
}

/// Long rows are sorted by merge passes (every element in parallel, a
/// binary search per element and pass): variadic and stable, along a minor
/// or a major dimension, ascending or descending, lengths that are and are
/// not powers of two; exactly the evaluator's results; the PTX assembles.
#[test]
fn long_sorts_merge_in_parallel_and_match_the_evaluator() {
    let m = filetest_case("long_sorts.hlo", 0);
    // Keys with many ties (stability shows), integers with ties.
    let ties = |l: hlox_hlo::Literal| {
        let v: Vec<f32> = l
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|f| (f * 8.0).round())
            .collect();
        let dims = l.shape().as_array().unwrap().dims.clone();
        hlox_hlo::Literal::from_vec(&dims, &v).unwrap()
    };
    let mut args = random_args(&m, 7);
    args[0] = ties(args[0].clone());
    let test = "long_sorts_merge_in_parallel_and_match_the_evaluator";
    let runs = EvaluatorCheck::new(test, &m, &args).run(
        |c, fused| {
            let mut merges: Vec<usize> = steps(c)
                .filter_map(|s| match s {
                    hlox_cuda::plan::Step::SortMerge { passes } => Some(passes.len()),
                    _ => None,
                })
                .collect();
            merges.sort();
            // log2 of 1000, 700, 129, 128 rounded up; the rows of 100 stay
            // with one thread each.
            assert_eq!(merges, vec![7, 8, 10, 10], "fused {fused}");
        },
        |_| Some((0.0, 0.0)),
    );
    for (_, got) in runs {
        // Stable: equal keys keep their original (iota) order.
        let (keys, vals) = (
            got[0].to_vec::<f32>().unwrap(),
            got[1].to_vec::<i32>().unwrap(),
        );
        for r in 0..3 {
            for i in 1..1000 {
                let (a, b) = (r * 1000 + i - 1, r * 1000 + i);
                assert!(keys[a] <= keys[b], "row {r} not sorted at {i}");
                assert!(
                    keys[a] < keys[b] || vals[a] < vals[b],
                    "row {r} not stable at {i}"
                );
            }
        }
    }
}

/// Scatters with many updates run one thread per update element with an
/// atomic compare-and-swap combine: duplicates and out-of-bounds indices,
/// windows, add/set/max combiners; the evaluator's results (floats within
/// rounding, since the order of the adds differs, as on XLA:GPU).
#[test]
fn large_scatters_combine_atomically_and_match_the_evaluator() {
    let m = filetest_case("large_scatters.hlo", 0);
    let mut r = 12345u64;
    let mut next = |n: i64| {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        (r % n as u64) as i64
    };
    // Rows -10..1010 of 1000 (duplicates, some out of bounds).
    let idx: Vec<i32> = (0..5000).map(|_| next(1020) as i32 - 10).collect();
    // 2048 distinct positions of 4096 (a set's result is then defined).
    let mut perm: Vec<i32> = (0..4096).collect();
    for i in (1..4096).rev() {
        perm.swap(i, next(i as i64 + 1) as usize);
    }
    let idx3: Vec<i32> = (0..3000).map(|_| next(80) as i32 - 8).collect();
    let args = vec![
        random_literal("f32", &[1000, 16], 21),
        hlox_hlo::Literal::from_vec(&[5000, 1], &idx).unwrap(),
        random_literal("f32", &[5000, 16], 22),
        random_literal("s32", &[4096], 23),
        hlox_hlo::Literal::r1(&perm[..2048]),
        random_literal("s32", &[2048], 24),
        random_literal("s64", &[64], 25),
        hlox_hlo::Literal::r1(&idx3),
        random_literal("s64", &[3000], 26),
        random_literal("f64", &[300, 8], 27),
        random_literal("f64", &[5000, 8], 28),
    ];
    let test = "large_scatters_combine_atomically_and_match_the_evaluator";
    EvaluatorCheck::new(test, &m, &args).fused_only().run(
        |c, _| {
            let atomic = count_kernels(c, |k| *k == hlox_cuda::plan::KernelKind::ScatterAtomic);
            assert_eq!(atomic, 4, "{}", hlox_cuda::describe(&c.module, &c.program));
            assert!(c.ptx.contains("atom.global.cas.b32") || c.ptx.contains("atom.cas.b32"));
        },
        |k| match k {
            0 => Some((1e-5, 1e-5)),
            3 => Some((1e-12, 1e-12)),
            _ => Some((0.0, 0.0)),
        },
    );
}

/// Random operands of `ty[4,8]`: floats in [-8, 8] with specials, integers
/// and predicates from random bits.
fn random_operand(ty: &str, seed: u64) -> hlox_hlo::Literal {
    use hlox_hlo::{ArrayLiteral, ArrayShape, ElementType};
    let et = ElementType::from_name(ty).expect("type");
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        0.5,
    ];
    let mut bytes = Vec::new();
    for k in 0..32 {
        let r = next();
        let f = if k < specials.len() && seed & 1 == 0 {
            specials[(k + seed as usize) % specials.len()]
        } else {
            ((r >> 11) as f64 / (1u64 << 53) as f64) * 16.0 - 8.0
        };
        match et {
            ElementType::Pred => bytes.push((r & 1) as u8),
            ElementType::F16 => bytes.extend(half::f16::from_f64(f).to_le_bytes()),
            ElementType::Bf16 => bytes.extend(half::bf16::from_f64(f).to_le_bytes()),
            ElementType::F32 => bytes.extend((f as f32).to_le_bytes()),
            ElementType::F64 => bytes.extend(f.to_le_bytes()),
            _ => bytes.extend(&r.to_le_bytes()[..et.byte_size()]),
        }
    }
    hlox_hlo::Literal::Array(
        ArrayLiteral::from_bytes(ArrayShape::new(et, vec![4, 8]), bytes).expect("literal"),
    )
}

/// The opcode programs (every element type) on random operands with
/// special values, fused and unfused, against the evaluator: in emulation,
/// and on the GPU when there is one.
#[test]
fn opcode_programs_match_the_evaluator() {
    let backends = backends("opcode_programs_match_the_evaluator");
    let mut failures = Vec::new();
    let mut compared = [0; 2];
    for ty in TYPES {
        let m = parse_module(&opcode_module(ty)).expect("parse");
        for seed in [2u64, 3] {
            let args = vec![
                random_operand(ty, seed),
                random_operand(ty, seed + 10),
                random_operand(ty, seed + 20),
                hlox_hlo::Literal::r0(seed as i32 - 1),
            ];
            let want = match hlox_eval::evaluate_with_registry(&m, &args, &Registry::new()) {
                Ok(w) => w.into_leaves(),
                Err(e) => {
                    failures.push(format!("{ty}: evaluator: {e}"));
                    continue;
                }
            };
            for (be, fused) in with_fusion(&backends) {
                let o = CompileOptions {
                    hlo_passes: fused,
                    ..Default::default()
                };
                let got = be
                    .build(&m, &o)
                    .and_then(|x| x.execute(&args).map_err(|e| e.to_string()));
                let got = match got {
                    Ok(g) => g.into_leaves(),
                    Err(e) => {
                        failures.push(format!("{ty} ({}, fused {fused}): {e}", be.name()));
                        continue;
                    }
                };
                let names: Vec<String> = m
                    .entry_computation()
                    .root_inst()
                    .operands
                    .iter()
                    .map(|&o| m.entry_computation().inst(o).name.clone())
                    .collect();
                for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                    let wt = w.shape().element_type().map(|t| t.name()).unwrap_or("?");
                    let (rtol, atol) = match wt {
                        "f16" | "bf16" => (1e-2, 1e-3),
                        "f32" => (2e-6, 1e-6),
                        "f64" => (1e-12, 1e-14),
                        _ => (0.0, 0.0),
                    };
                    compared[be.is_gpu() as usize] += 1;
                    if let Err(e) = hlox_tests::compare_literals(g, w, rtol, atol) {
                        failures.push(format!(
                            "{ty} seed {seed} ({}, fused {fused}): {} ({wt}): {e}",
                            be.name(),
                            names[k]
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "opcode programs: {} outputs in emulation and {} on the GPU compared with the evaluator",
        compared[0], compared[1]
    );
    assert!(compared[0] >= 4000, "{compared:?}");
    assert!(!backends.iter().any(Backend::is_gpu) || compared[1] == compared[0]);
    assert_no_failures(&failures);
}

// ---------------------------------------------------------------------------
// cuBLAS: which dots become GEMMs, and the column-major arguments given to
// cublas<S|D>gemmStridedBatched, checked with a host implementation of
// that BLAS routine's definition against the evaluator.

/// BLAS's strided batched GEMM, column-major: C = op(A) op(B) (alpha 1, beta 0).
#[allow(clippy::too_many_arguments)]
fn blas_gemm(a: &[f64], b: &[f64], c: &mut [f64], g: &hlox_cuda::plan::CublasArgs, batch: i64) {
    for p in 0..batch {
        for i in 0..g.m {
            for j in 0..g.n {
                let mut s = 0.0;
                for l in 0..g.k {
                    let av = if g.trans_a {
                        a[(p * g.stride_a + i * g.lda + l) as usize]
                    } else {
                        a[(p * g.stride_a + l * g.lda + i) as usize]
                    };
                    let bv = if g.trans_b {
                        b[(p * g.stride_b + l * g.ldb + j) as usize]
                    } else {
                        b[(p * g.stride_b + j * g.ldb + l) as usize]
                    };
                    s += av * bv;
                }
                c[(p * g.stride_c + j * g.ldc + i) as usize] = s;
            }
        }
    }
}

#[test]
fn dots_map_to_cublas_gemms_correctly() {
    // (lhs dims, rhs dims, lhs contracting, rhs contracting, batch dims)
    type DotCase<'a> = (&'a [i64], &'a [i64], i64, i64, usize);
    let cases: &[DotCase] = &[
        (&[3, 4], &[4, 5], 1, 0, 0),
        (&[4, 3], &[4, 5], 0, 0, 0),
        (&[3, 4], &[5, 4], 1, 1, 0),
        (&[4, 3], &[5, 4], 0, 1, 0),
        (&[2, 3, 4], &[2, 4, 5], 2, 1, 1),
        (&[2, 4, 3], &[2, 5, 4], 1, 2, 1),
        (&[2, 3, 1, 7], &[2, 3, 7, 6], 3, 2, 2),
    ];
    let dims = |d: &[i64]| {
        d.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let layout = |r: usize| {
        (0..r)
            .rev()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    for &(ld, rd, lc, rc, nb) in cases {
        let batch: Vec<String> = (0..nb).map(|d| d.to_string()).collect();
        let bl = batch.join(",");
        let lfree = (0..ld.len() as i64)
            .find(|&d| d >= nb as i64 && d != lc)
            .unwrap();
        let rfree = (0..rd.len() as i64)
            .find(|&d| d >= nb as i64 && d != rc)
            .unwrap();
        let mut od: Vec<i64> = ld[..nb].to_vec();
        od.push(ld[lfree as usize]);
        od.push(rd[rfree as usize]);
        let text = format!(
            "HloModule d\n\nENTRY e {{\n  a = f32[{}]{{{}}} parameter(0)\n  b = f32[{}]{{{}}} parameter(1)\n  \
             ROOT d = f32[{}]{{{}}} dot(a, b), lhs_batch_dims={{{bl}}}, rhs_batch_dims={{{bl}}}, \
             lhs_contracting_dims={{{lc}}}, rhs_contracting_dims={{{rc}}}\n}}\n",
            dims(ld), layout(ld.len()), dims(rd), layout(rd.len()), dims(&od), layout(od.len())
        );
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let comp = m.entry_computation();
        let g = hlox_cuda::plan::gemm_of(comp, comp.root)
            .unwrap_or_else(|| panic!("no GEMM for\n{text}"));
        let n = |d: &[i64]| d.iter().product::<i64>() as usize;
        let av: Vec<f32> = (0..n(ld)).map(|i| (i as f32 * 0.37).sin()).collect();
        let bv: Vec<f32> = (0..n(rd)).map(|i| (i as f32 * 0.11).cos()).collect();
        let args = vec![
            hlox_hlo::Literal::from_vec(ld, &av).unwrap(),
            hlox_hlo::Literal::from_vec(rd, &bv).unwrap(),
        ];
        let want: Vec<f32> = hlox_eval::evaluate_with_registry(&m, &args, &Registry::new())
            .unwrap()
            .to_vec()
            .unwrap();
        let a = g.cublas_args();
        let mut c = vec![0.0f64; n(&od)];
        let to64 = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
        // cuBLAS's A is the rhs, its B the lhs.
        blas_gemm(&to64(&bv), &to64(&av), &mut c, &a, g.batch);
        for (i, (x, y)) in c.iter().zip(&want).enumerate() {
            assert!(
                (*x as f32 - y).abs() <= 1e-5,
                "{text}\nelement {i}: {x} vs {y} ({g:?})"
            );
        }
    }
    // Not GEMMs: mixed types, integer dots, column-major layouts.
    let no = parse_module(
        "HloModule d\n\nENTRY e {\n  a = f32[3,4]{0,1} parameter(0)\n  b = f32[4,5]{1,0} parameter(1)\n  \
         ROOT d = f32[3,5]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
    )
    .unwrap();
    let c = no.entry_computation();
    assert_eq!(hlox_cuda::plan::gemm_of(c, c.root), None);
    // Element types: F16/BF16 operands (accumulated in f32 by GemmEx) with
    // a result of their type or F32; not mixed operands, not integers, not
    // a narrower result.
    use hlox_hlo::ElementType as T;
    let types = |a: &str, b: &str, o: &str| {
        let text = format!(
            "HloModule d\n\nENTRY e {{\n  a = {a}[3,4]{{1,0}} parameter(0)\n  b = {b}[4,5]{{1,0}} parameter(1)\n  \
             ROOT d = {o}[3,5]{{1,0}} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}\n"
        );
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let c = m.entry_computation();
        hlox_cuda::plan::gemm_of(c, c.root).map(|g| (g.input, g.output, g.m, g.n, g.k))
    };
    assert_eq!(types("f32", "f32", "f32"), Some((T::F32, T::F32, 3, 5, 4)));
    assert_eq!(types("f64", "f64", "f64"), Some((T::F64, T::F64, 3, 5, 4)));
    assert_eq!(
        types("bf16", "bf16", "bf16"),
        Some((T::Bf16, T::Bf16, 3, 5, 4))
    );
    assert_eq!(
        types("bf16", "bf16", "f32"),
        Some((T::Bf16, T::F32, 3, 5, 4))
    );
    assert_eq!(types("f16", "f16", "f16"), Some((T::F16, T::F16, 3, 5, 4)));
    assert_eq!(types("f16", "f16", "f32"), Some((T::F16, T::F32, 3, 5, 4)));
    for (a, b, o) in [
        ("f16", "bf16", "f32"),
        ("f32", "f32", "bf16"),
        ("bf16", "bf16", "f64"),
        ("s32", "s32", "s32"),
        ("f32", "f32", "f64"),
    ] {
        assert_eq!(types(a, b, o), None, "{a} x {b} -> {o}");
    }
}

#[test]
fn client_and_executable_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<hlox_cuda::CudaClient>();
    check::<hlox_cuda::CudaExecutable>();
    check::<hlox_cuda::CompiledModule>();
}

#[test]
fn ptx_targets_the_device_up_to_sm_90() {
    use hlox_cuda::runtime::target_sm;
    assert_eq!(target_sm("sm_80"), "sm_80");
    assert_eq!(target_sm("sm_86"), "sm_86");
    assert_eq!(target_sm("sm_90"), "sm_90");
    assert_eq!(target_sm("sm_100"), "sm_90");
    assert_eq!(target_sm("sm_120"), "sm_90");
    assert_eq!(target_sm("weird"), "sm_80");
}

// ---- Whole runs as graphs ----------------------------------------------------

mod graph_targets {
    use hlox_ffi::XlaCustomCallStatus;
    use std::ffi::c_void;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Calls of [`emulated`] and [`gpu`].
    pub static CALLS: AtomicUsize = AtomicUsize::new(0);

    cuda_status_targets! {
        /// [`super::test_targets::axpby`], counted (its buffer access makes it
        /// graph-incompatible on a GPU; emulation replays it as a call).
        fn emulated(s, b, o, l, st) {
            CALLS.fetch_add(1, Ordering::SeqCst);
            super::test_targets::axpby(s, b, o, l, st)
        }
        /// The example target (a kernel launched on the stream: graph-compatible).
        fn gpu(s, b, o, l, st) {
            CALLS.fetch_add(1, Ordering::SeqCst);
            hlox_cuda::targets::axpby(s, b, o, l, st)
        }
    }
    /// The Host convention over f32[64], for the evaluator.
    pub fn host(out: *mut c_void, ins: *const *const c_void, _st: *mut XlaCustomCallStatus) {
        unsafe {
            let x = std::slice::from_raw_parts(*ins as *const f32, 64);
            let y = std::slice::from_raw_parts(*ins.add(1) as *const f32, 64);
            let (al, be) = (*(*ins.add(2) as *const f32), *(*ins.add(3) as *const f32));
            let z = std::slice::from_raw_parts_mut(out as *mut f32, 64);
            for (i, zi) in z.iter_mut().enumerate() {
                *zi = al * x[i] + be * y[i];
            }
        }
    }
}

const GRAPH_MODULE: &str = r#"HloModule graphs

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
lt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}

ENTRY e {
  x = f32[64,64]{1,0} parameter(0)
  p = (f32[64]{0}, s32[300]{0}) parameter(1)
  v = f32[64]{0} get-tuple-element(p), index=0
  k = s32[300]{0} get-tuple-element(p), index=1
  d = f32[64,64]{1,0} dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[64,64]{1,0} tanh(d)
  zero = f32[] constant(0)
  s = f32[64]{0} reduce(t, zero), dimensions={1}, to_apply=add
  two = f32[] constant(2)
  one = f32[] constant(1)
  c = f32[64]{0} custom-call(s, v, two, one), custom_call_target="axpby", backend_config="64", api_version=API_VERSION_STATUS_RETURNING
  ks = s32[300]{0} sort(k), dimensions={0}, to_apply=lt
  ROOT r = (f32[64]{0}, s32[300]{0}, f32[64,64]{1,0}, (f32[64]{0}, s32[300]{0})) tuple(c, ks, x, p)
}
"#;

/// `axpby` for `be`: the example kernel on a GPU, [`graph_targets::emulated`]
/// in emulation; marked graph-compatible or not.
fn graph_registry(be: &Backend, graph_compatible: bool) -> Arc<Registry> {
    let r = Registry::new();
    if be.is_gpu() {
        r.register_fn("axpby", Platform::Cuda, graph_targets::gpu)
    } else {
        r.register_fn("axpby", Platform::Cuda, graph_targets::emulated)
    }
    .expect("register");
    if graph_compatible {
        r.set_traits("axpby", Platform::Cuda, hlox_ffi::Traits::GRAPH_COMPATIBLE)
            .expect("traits");
    }
    Arc::new(r)
}

fn graph_args(seed: u64) -> Vec<hlox_hlo::Literal> {
    vec![
        random_literal("f32", &[64, 64], seed),
        hlox_hlo::Literal::Tuple(vec![
            random_literal("f32", &[64], seed + 1),
            random_literal("s32", &[300], seed + 2),
        ]),
    ]
}

/// Leaves of `got` and `want` agree: integers exactly, floats within 1e-4
/// relative (the dot's summation order differs from the evaluator's).
fn assert_close(got: &hlox_hlo::Literal, want: &hlox_hlo::Literal, what: &str) {
    let (g, w) = (got.clone().into_leaves(), want.clone().into_leaves());
    assert_eq!(g.len(), w.len(), "{what}");
    for (i, (g, w)) in g.iter().zip(&w).enumerate() {
        match (g.to_vec::<f32>(), w.to_vec::<f32>()) {
            (Ok(g), Ok(w)) => {
                for (j, (a, b)) in g.iter().zip(&w).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                        "{what}: leaf {i} [{j}]: {a} vs {b}"
                    );
                }
            }
            _ => assert_eq!(g, w, "{what}: leaf {i}"),
        }
    }
}

/// The first run is interpreted and recorded; later runs copy their
/// arguments into the recorded parameter buffers and replay the commands,
/// giving the evaluator's results for new arguments, including results
/// that are the parameters themselves. In emulation the interpreter
/// replays the command list (the custom call is called again each run, and
/// its failure is reported as on the first run); on a GPU the device
/// replays one CUDA graph (the target ran for the recording and the
/// capture, and its kernel is replayed).
#[test]
fn later_runs_replay_the_recorded_first_run() {
    use hlox_cuda::GraphStatus;
    use std::sync::atomic::Ordering;
    let m = parse_module(GRAPH_MODULE).expect("parse");
    let host = Registry::new();
    host.register_fn("axpby", Platform::Host, graph_targets::host)
        .expect("register");
    for be in backends("later_runs_replay_the_recorded_first_run") {
        let what = be.name();
        let o = CompileOptions {
            registry: Some(graph_registry(&be, true)),
            ..Default::default()
        };
        let c = compile(&m, &o).expect("compile");
        let merges = c
            .program
            .kernels
            .iter()
            .filter(|k| matches!(k.kind, hlox_cuda::plan::KernelKind::SortMerge { .. }))
            .count();
        assert!(merges > 1, "the sort runs as merge passes");
        let exe = be.load(c).expect("loads");
        assert_eq!(exe.graph_status(), GraphStatus::Pending);
        assert_eq!(exe.last_device_ms(), None);

        let calls = || graph_targets::CALLS.load(Ordering::SeqCst);
        let before = calls();
        let mut commands = 0;
        for (run, seed) in [10u64, 20, 30, 10].into_iter().enumerate() {
            let args = graph_args(seed);
            let want = hlox_eval::evaluate_with_registry(&m, &args, &host).expect("evaluator");
            let got = exe.execute(&args).expect("runs");
            assert_close(&got, &want, &format!("{what}: run {run} (seed {seed})"));
            match exe.graph_status() {
                GraphStatus::Ready {
                    commands: n,
                    device_graph,
                    replays,
                    ..
                } => {
                    assert_eq!(
                        device_graph,
                        be.is_gpu(),
                        "{what}: a device graph on the GPU only"
                    );
                    assert_eq!(replays, run as u64, "{what}");
                    commands = n;
                }
                s => panic!("{what}: run {run}: {s:?}"),
            }
            let ms = exe.last_device_ms().expect("timed");
            assert!(ms > 0.0 && ms < 60e3, "{what}: {ms} ms");
        }
        // A launch per kernel (dot, tanh, reduce, the merge passes...) and the call.
        assert!(
            commands >= merges + 3,
            "{what}: {commands} commands, {merges} merge passes"
        );
        if be.is_gpu() {
            assert_eq!(
                calls() - before,
                2,
                "on a GPU the target runs for the recording and the capture only"
            );
        } else {
            assert_eq!(calls() - before, 4, "the target runs on every replay");
            // A failing call on replay stops that run with its message; the
            // next run replays again. (A graph replay does not call the
            // target, so this is emulation's alone.)
            let mut bad = graph_args(40);
            if let hlox_hlo::Literal::Tuple(t) = &mut bad[1] {
                let mut v = t[0].to_vec::<f32>().unwrap();
                v[0] = -5000.0;
                t[0] = hlox_hlo::Literal::r1(&v);
            }
            let e = exe.execute(&bad).expect_err("the target fails").to_string();
            assert_eq!(
                e,
                "c: CustomCall failed: target \"axpby\": y[0] is below -1000"
            );
        }
        // An argument of the wrong shape is an error before anything runs.
        let mut wrong = graph_args(50);
        wrong[0] = random_literal("f32", &[64, 63], 1);
        let e = exe.execute(&wrong).expect_err("shape").to_string();
        assert!(
            e.starts_with("argument 0 (parameter `x`): expected f32[64, 64], got f32[64, 63]"),
            "{what}: {e}"
        );
        let args = graph_args(60);
        let want = hlox_eval::evaluate_with_registry(&m, &args, &host).expect("evaluator");
        let got = exe.execute(&args).expect("runs");
        assert_close(&got, &want, &format!("{what}: after errors"));
        assert!(
            matches!(exe.graph_status(), GraphStatus::Ready { replays: 4, .. }),
            "{what}: {:?}",
            exe.graph_status()
        );
    }
}

/// A recording keeps about the run's peak of device memory, not the sum
/// of its arrays: an array's memory goes to a later array once it is dead.
/// Eight unfused element-wise steps of 256 KiB each (2 MiB in all) are
/// recorded in two blocks, and replays with new arguments stay right.
#[test]
fn a_recording_keeps_the_runs_peak_not_the_sum_of_its_arrays() {
    use hlox_cuda::GraphStatus;
    let m = parse_module(
        r#"HloModule chain

ENTRY e {
  x = f32[65536]{0} parameter(0)
  a1 = f32[65536]{0} negate(x)
  a2 = f32[65536]{0} multiply(a1, a1)
  a3 = f32[65536]{0} add(a2, x)
  a4 = f32[65536]{0} tanh(a3)
  a5 = f32[65536]{0} abs(a4)
  a6 = f32[65536]{0} subtract(a5, x)
  a7 = f32[65536]{0} multiply(a6, a3)
  ROOT a8 = f32[65536]{0} add(a7, a1)
}
"#,
    )
    .expect("parse");
    let o = CompileOptions {
        hlo_passes: false,
        ..Default::default()
    };
    const ARRAY: u64 = 65536 * 4;
    for be in backends("a_recording_keeps_the_runs_peak_not_the_sum_of_its_arrays") {
        let what = be.name();
        let exe = be.build(&m, &o).expect("builds");
        for seed in [1u64, 2, 3] {
            let args = vec![random_literal("f32", &[65536], seed)];
            let want =
                hlox_eval::evaluate_with_registry(&m, &args, &Registry::new()).expect("evaluator");
            let got = exe.execute(&args).expect("runs");
            hlox_tests::compare_literals(&got, &want, 1e-6, 1e-6)
                .unwrap_or_else(|e| panic!("{what}: seed {seed}: {e}"));
        }
        match exe.graph_status() {
            GraphStatus::Ready {
                bytes,
                replays: 2,
                commands: 8,
                ..
            } => {
                // Blocks: a1 (used again by a8), a2, a3 (used by a7), a5;
                // a4 takes a2's, a6 a4's, a7 a5's, a8 a6's.
                assert_eq!(
                    bytes,
                    4 * ARRAY,
                    "{what}: bytes kept (the arrays' sum is {})",
                    8 * ARRAY
                );
                eprintln!("{what}: the recording keeps {bytes} bytes for 8 arrays of {ARRAY}");
            }
            s => panic!("{what}: {s:?}"),
        }
    }
}

/// Runs whose device work can change stay interpreted, and say why.
#[test]
fn runs_that_read_back_or_call_unmarked_targets_are_not_graphs() {
    for be in backends("runs_that_read_back_or_call_unmarked_targets_are_not_graphs") {
        not_graphs_on(&be);
    }
}

fn not_graphs_on(be: &Backend) {
    use hlox_cuda::GraphStatus;
    let status = |text: &str, o: CompileOptions| {
        let m = parse_module(text).expect("parse");
        be.build(&m, &o).expect("builds").graph_status()
    };
    let unmarked = CompileOptions {
        registry: Some(graph_registry(be, false)),
        ..Default::default()
    };
    assert_eq!(
        status(GRAPH_MODULE, unmarked),
        GraphStatus::Off(
            "custom call `c` calls target \"axpby\", which is not marked graph-compatible \
             (hlox_ffi::Traits::GRAPH_COMPATIBLE)"
                .into()
        )
    );
    let off = CompileOptions {
        registry: Some(graph_registry(be, true)),
        cuda_graphs: false,
        ..Default::default()
    };
    assert_eq!(
        status(GRAPH_MODULE, off),
        GraphStatus::Off("CUDA graphs are off (CompileOptions::cuda_graphs)".into())
    );
    let looped = r#"HloModule w

cond {
  s = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(s, ten), direction=LT
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY e {
  z = s32[] parameter(0)
  ROOT loop = s32[] while(z), condition=cond, body=body
}
"#;
    let m = parse_module(looped).expect("parse");
    let exe = be
        .build(
            &m,
            &CompileOptions {
                hlo_passes: false,
                ..Default::default()
            },
        )
        .expect("builds");
    assert_eq!(
        exe.graph_status(),
        GraphStatus::Off("while loop `loop` reads its predicate back on the host".into())
    );
    for _ in 0..2 {
        let out = exe.execute(&[hlox_hlo::Literal::r0(3i32)]).expect("runs");
        assert_eq!(out.to_vec::<i32>().unwrap(), vec![10]);
    }
}

/// Typed-FFI handlers for CUDA written in Rust (`hlox_ffi::xla_ffi::Frame`):
/// the corpus's three typed-FFI cases. They read and write their buffers
/// through [`mem`] on the stream the frame gives them (`Frame::stream`:
/// null in emulation, where buffers are host memory).
mod ffi_targets {
    use super::mem;
    use hlox_ffi::xla_ffi::Frame;
    use hlox_ffi::{Platform, Registry};

    fn read(f: &Frame, i: usize) -> Result<Vec<f32>, String> {
        let b = f.arg(i)?;
        let s = f.stream()?;
        // SAFETY: argument i holds element_count f32s (checked by the view).
        unsafe { mem::read::<f32>(s, b.data(), b.element_count()) }
    }

    fn write(f: &Frame, i: usize, v: &[f32]) -> Result<(), String> {
        let b = f.ret(i)?;
        if b.element_count() != v.len()
            || b.dtype() != hlox_ffi::xla_ffi::ffi_dtype(hlox_hlo::ElementType::F32)
        {
            return Err(format!("result {i} is not f32[{}]", v.len()));
        }
        // SAFETY: result i holds v.len() f32s.
        unsafe { mem::write(f.stream()?, b.data(), v) }
    }

    /// `axpby(x, y) {alpha: f32, beta: f32}`.
    pub fn axpby(f: &mut Frame) -> Result<(), String> {
        let (alpha, beta): (f32, f32) = (f.attr("alpha")?, f.attr("beta")?);
        let (x, y) = (read(f, 0)?, read(f, 1)?);
        let z: Vec<f32> = x
            .iter()
            .zip(&y)
            .map(|(a, b)| alpha * a + beta * b)
            .collect();
        write(f, 0, &z)
    }

    /// The seed: `A[i] = B[i % 128] + C[i]`.
    pub fn seed(f: &mut Frame) -> Result<(), String> {
        let (b, c) = (read(f, 0)?, read(f, 1)?);
        if b.len() != 128 {
            return Err(format!("expected f32[128], got {} elements", b.len()));
        }
        let a: Vec<f32> = (0..c.len()).map(|i| b[i % 128] + c[i]).collect();
        write(f, 0, &a)
    }

    /// `add_sub(x, y) -> (x + y, x - y)`.
    pub fn add_sub(f: &mut Frame) -> Result<(), String> {
        let (x, y) = (read(f, 0)?, read(f, 1)?);
        let s: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
        let d: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a - b).collect();
        write(f, 0, &s)?;
        write(f, 1, &d)
    }

    /// Writes `[stream is null]` (s32) to its result: 1 in emulation, 0 on
    /// a GPU.
    pub fn stream_probe(f: &mut Frame) -> Result<(), String> {
        let s = f.stream()?;
        let r = f.ret(0)?;
        // SAFETY: the result is s32[1].
        unsafe { mem::write(s, r.data(), &[i32::from(s.is_null())]) }
    }

    /// A registry with the handlers of typed-FFI corpus case `case`, or
    /// `None` for the other cases.
    pub fn registry(case: &str) -> Option<Registry> {
        let r = Registry::new();
        let cuda = Platform::Cuda;
        match case {
            "cc_axpby_ffi" => r.register_fn("axpby", cuda, axpby),
            "cc_do_custom_call_v4" => r.register_fn("do_custom_call", cuda, seed),
            "cc_in_graph" => r
                .register_fn("do_custom_call", cuda, seed)
                .and_then(|()| r.register_fn("add_sub", cuda, add_sub)),
            _ => return None,
        }
        .expect("registration");
        Some(r)
    }
}

/// Typed FFI on CUDA: a handler gets the run's stream (null in emulation);
/// handlers built with XLA's `ffi.h` and registered for "CUDA" keep their
/// instantiate stage's state per instruction and decode `PlatformStream`;
/// a handler with a prepare stage is refused at compile time.
#[test]
fn typed_ffi_on_cuda_stream_state_and_stages() {
    let m = hlox_tests::custom_call_suite::module(
        r#"HloModule probe

ENTRY main {
  ROOT cc = s32[1]{0} custom-call(), custom_call_target="stream_probe", api_version=API_VERSION_TYPED_FFI, backend_config={}
}
"#,
    );
    let r = Arc::new(Registry::new());
    r.register_fn("stream_probe", Platform::Cuda, ffi_targets::stream_probe)
        .unwrap();
    for b in backends("typed_ffi_on_cuda_stream_state_and_stages") {
        let o = CompileOptions {
            registry: Some(r.clone()),
            ..Default::default()
        };
        let exe = b.build(&m, &o).unwrap();
        let got = exe.execute(&[]).unwrap().to_vec::<i32>().unwrap();
        assert_eq!(got, [i32::from(!b.is_gpu())], "{}", b.name());
    }

    // A Rust handler with state (StatefulHandler), registered for CUDA:
    // its instantiate stage runs at compile time, its state lives with the
    // executable. It writes its result from the host: emulation only.
    let r = Arc::new(Registry::new());
    let counter = hlox_tests::hlox_targets::RustCounter;
    r.register_fn("rust_counter", Platform::Cuda, counter)
        .unwrap();
    let m = hlox_tests::custom_call_suite::module(
        r#"HloModule rust_counter

ENTRY main {
  ROOT c = s64[2]{0} custom-call(), custom_call_target="rust_counter", api_version=API_VERSION_TYPED_FFI, backend_config={start = 6 : i64}
}
"#,
    );
    let live = hlox_tests::hlox_targets::rust_counters_live();
    let o = CompileOptions {
        registry: Some(r),
        ..Default::default()
    };
    let exe = Backend::Emulation.build(&m, &o).unwrap();
    for n in 1..=2i64 {
        assert_eq!(exe.execute(&[]).unwrap().to_vec::<i64>().unwrap(), [6, n]);
    }
    assert_eq!(hlox_tests::hlox_targets::rust_counters_live(), live + 1);
    drop(exe);
    assert_eq!(hlox_tests::hlox_targets::rust_counters_live(), live);

    // C++ handlers (targets/cpp, written against XLA's ffi.h), emulation.
    let plugin = hlox_tests::custom_call_suite::cpp_ffi_plugin();
    let o = CompileOptions {
        registry: Some(plugin.clone()),
        ..Default::default()
    };
    let m = hlox_tests::custom_call_suite::module(
        r#"HloModule counters

ENTRY main {
  c5 = s64[2]{0} custom-call(), custom_call_target="cpp_counter", api_version=API_VERSION_TYPED_FFI, backend_config={start = 5 : i64}
  c7 = s64[2]{0} custom-call(), custom_call_target="cpp_counter", api_version=API_VERSION_TYPED_FFI, backend_config={start = 7 : i64}
  p = s32[1]{0} custom-call(), custom_call_target="cpp_stream_probe", api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT t = (s64[2]{0}, s64[2]{0}, s32[1]{0}) tuple(c5, c7, p)
}
"#,
    );
    let exe = Backend::Emulation.build(&m, &o).unwrap();
    for n in 1..=2i64 {
        let got = exe.execute(&[]).unwrap().into_leaves();
        assert_eq!(got[0].to_vec::<i64>().unwrap(), [5, n]);
        assert_eq!(got[1].to_vec::<i64>().unwrap(), [7, n]);
        assert_eq!(got[2].to_vec::<i32>().unwrap(), [1]);
    }
    // The instantiate stage runs at compile time: its error is a compile error.
    let bad = hlox_tests::custom_call_suite::module(
        r#"HloModule bad

ENTRY main {
  ROOT c = s64[2]{0} custom-call(), custom_call_target="cpp_counter", api_version=API_VERSION_TYPED_FFI, backend_config={start = -3 : i64}
}
"#,
    );
    let err = compile(&bad, &o).unwrap_err().to_string();
    assert!(
        err.contains("instantiate stage failed") && err.contains("start must be >= 0"),
        "{err}"
    );
    // All four stages (targets/cpp's `cpp_staged`): instantiate at compile
    // time with the buffers' shapes; prepare (no stream) and initialize at
    // most once per run, before the call's first execute, their states
    // living for that run; execute sees all three states. In a while loop
    // the call executes 3 times per run.
    let live = || hlox_tests::custom_call_suite::cpp_plugin_counter("HloxStagedStatesLive");
    let staged = |fail: i64| {
        hlox_tests::custom_call_suite::module(&format!(
            r#"HloModule staged

cond {{
  s = (s32[], f32[4]{{0}}, s64[5]{{0}}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}}

body {{
  s = (s32[], f32[4]{{0}}, s64[5]{{0}}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x = f32[4]{{0}} get-tuple-element(s), index=1
  cc = (f32[4]{{0}}, s64[5]{{0}}) custom-call(x), custom_call_target="cpp_staged", api_version=API_VERSION_TYPED_FFI, backend_config={{scale = 2.0 : f32, fail = {fail} : i64}}
  y = f32[4]{{0}} get-tuple-element(cc), index=0
  info = s64[5]{{0}} get-tuple-element(cc), index=1
  ROOT t = (s32[], f32[4]{{0}}, s64[5]{{0}}) tuple(i1, y, info)
}}

ENTRY main {{
  x = f32[4]{{0}} parameter(0)
  zero = s32[] constant(0)
  z = s64[] constant(0)
  info0 = s64[5]{{0}} broadcast(z), dimensions={{}}
  init = (s32[], f32[4]{{0}}, s64[5]{{0}}) tuple(zero, x, info0)
  w = (s32[], f32[4]{{0}}, s64[5]{{0}}) while(init), condition=cond, body=body
  y = f32[4]{{0}} get-tuple-element(w), index=1
  info = s64[5]{{0}} get-tuple-element(w), index=2
  ROOT r = (f32[4]{{0}}, s64[5]{{0}}) tuple(y, info)
}}
"#
        ))
    };
    let before = live();
    let x = hlox_hlo::Literal::r1(&[1.0f32, -2.0, 0.5, 3.0]);
    let exe = Backend::Emulation.build(&staged(0), &o).unwrap();
    assert_eq!(live(), before + 1, "instantiate ran at compile time");
    for n in 1..=2i64 {
        let got = exe.execute(std::slice::from_ref(&x)).unwrap().into_leaves();
        assert_eq!(got[0].to_vec::<f32>().unwrap(), [8.0, -16.0, 4.0, 24.0]);
        // [prepares, initializes, executes in this run, prepare saw no
        // stream, prepare saw the buffers]
        assert_eq!(got[1].to_vec::<i64>().unwrap(), [n, n, 3, 1, 1], "run {n}");
        assert_eq!(
            live(),
            before + 1,
            "run {n}'s prepare/initialize states are gone"
        );
    }
    drop(exe);
    assert_eq!(
        live(),
        before,
        "the instantiate state goes with the executable"
    );
    for (fail, stage) in [(1, "prepare"), (2, "initialize")] {
        let exe = Backend::Emulation.build(&staged(fail), &o).unwrap();
        let err = exe
            .execute(std::slice::from_ref(&x))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cc")
                && err.contains("cpp_staged")
                && err.contains(&format!("its {stage} stage failed"))
                && err.contains(&format!("staged: {stage} refused")),
            "{err}"
        );
    }
    assert_eq!(live(), before, "states of failed runs are destroyed");
    // Such a call keeps the run out of a CUDA graph: its stages run on the
    // host in every run.
    let flat = hlox_tests::custom_call_suite::module(
        r#"HloModule flat

ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT cc = (f32[4]{0}, s64[5]{0}) custom-call(x), custom_call_target="cpp_staged", api_version=API_VERSION_TYPED_FFI, backend_config={scale = 3.0 : f32, fail = 0 : i64}
}
"#,
    );
    let exe = Backend::Emulation.build(&flat, &o).unwrap();
    match exe.graph_status() {
        hlox_cuda::GraphStatus::Off(why) => assert!(why.contains("prepare or initialize"), "{why}"),
        other => panic!("{other:?}"),
    }
    for n in 1..=2i64 {
        let got = exe.execute(std::slice::from_ref(&x)).unwrap().into_leaves();
        assert_eq!(got[1].to_vec::<i64>().unwrap(), [n, n, 1, 1, 1]);
    }
}

/// SPMD programs on several CUDA devices (`hlox_cuda::spmd`): the
/// multi-device corpus and the collective kinds, in host emulation (4
/// devices, threads of this process, collectives through the Host's
/// engine) and, with the `nccl` feature, on the GPUs through NCCL.
mod spmd {
    use super::{assemble, gpu_required, ptxas};
    use hlox_cuda::spmd::{compile_for_devices, DevicesError, EmulatedDevices, SpmdModule};
    use hlox_cuda::CompileOptions;
    use hlox_ffi::xla_ffi::Frame;
    use hlox_ffi::{Platform, Registry};
    use hlox_hlo::Literal;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// `y = scale * x + shift`, as md_targets.cc's `MdScale` (buffers in
    /// host memory: emulation).
    fn md_scale(f: &mut Frame) -> Result<(), String> {
        let (scale, shift): (f32, f32) = (f.attr("scale")?, f.attr("shift")?);
        let (x, y) = (f.arg(0)?, f.ret(0)?);
        if x.element_count() != y.element_count() {
            return Err("MdScale: x and y differ in size".into());
        }
        // SAFETY: f32 buffers of element_count elements in host memory.
        let (x, y) = unsafe {
            (
                std::slice::from_raw_parts(x.data() as *const f32, x.element_count()),
                std::slice::from_raw_parts_mut(y.data() as *mut f32, y.element_count()),
            )
        };
        for (o, i) in y.iter_mut().zip(x) {
            *o = scale * i + shift;
        }
        Ok(())
    }

    /// `y = x`, failing above `limit`, as md_targets.cc's `MdFailAbove`.
    fn md_fail_above(f: &mut Frame) -> Result<(), String> {
        let limit: f32 = f.attr("limit")?;
        let (x, y) = (f.arg(0)?, f.ret(0)?);
        // SAFETY: as in md_scale.
        let (x, y) = unsafe {
            (
                std::slice::from_raw_parts(x.data() as *const f32, x.element_count()),
                std::slice::from_raw_parts_mut(y.data() as *mut f32, y.element_count()),
            )
        };
        for (i, (o, &v)) in y.iter_mut().zip(x).enumerate() {
            if v > limit {
                return Err(format!(
                    "MdFailAbove: element {i} is {v:.6}, above the limit {limit:.6}"
                ));
            }
            *o = v;
        }
        Ok(())
    }

    fn options() -> CompileOptions {
        let r = Registry::new();
        r.register_fn("MdScale", Platform::Cuda, md_scale).unwrap();
        r.register_fn("MdFailAbove", Platform::Cuda, md_fail_above)
            .unwrap();
        CompileOptions {
            registry: Some(Arc::new(r)),
            ..Default::default()
        }
    }

    struct Case {
        dir: PathBuf,
        meta: serde_json::Value,
    }

    impl Case {
        fn name(&self) -> String {
            self.dir.file_name().unwrap().to_string_lossy().into_owned()
        }
        fn numbered(&self, prefix: &str) -> Vec<Literal> {
            (0..)
                .map(|i| self.dir.join(format!("{prefix}{i}.npy")))
                .take_while(|p| p.exists())
                .map(|p| hlox_hlo::npy::read_npy_file(&p).unwrap())
                .collect()
        }
        fn tol(&self, k: &str) -> f64 {
            self.meta[k].as_f64().unwrap_or(0.0)
        }
        /// Checks one device's result against JAX's outputs.
        fn check(&self, got: Literal, how: &str) {
            let want = self.numbered("out");
            let got = got.into_leaves();
            assert_eq!(got.len(), want.len(), "{} {how}: outputs", self.name());
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                hlox_tests::compare_literals(g, w, self.tol("rtol"), self.tol("atol"))
                    .unwrap_or_else(|e| panic!("{} {how}: out{i}: {e}", self.name()));
            }
        }
    }

    fn corpus() -> Vec<Case> {
        let root = hlox_tests::workspace_root().join("tests/corpus/multidevice");
        let mut v: Vec<Case> = std::fs::read_dir(&root)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("module.hlo").exists())
            .map(|dir| Case {
                meta: serde_json::from_str(
                    &std::fs::read_to_string(dir.join("meta.json")).unwrap(),
                )
                .unwrap(),
                dir,
            })
            .collect();
        v.sort_by_key(|c| c.dir.clone());
        v
    }

    fn compile(path: &Path, devices: usize) -> SpmdModule {
        let m = hlox_hlo::load::load_module(path).unwrap();
        compile_for_devices(&m, devices, &options())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Runs `case` on `run`, checking every device's result against JAX's,
    /// or, for a case that must fail, that every device stopped at once
    /// with the failing device's error.
    fn run_case(
        case: &Case,
        how: &str,
        run: impl FnOnce(&[&Literal]) -> Result<Vec<Literal>, DevicesError>,
    ) {
        let args = case.numbered("in");
        let refs: Vec<&Literal> = args.iter().collect();
        let t = Instant::now();
        let r = run(&refs);
        if let Some(errors) = case.meta["error"].as_array() {
            let e = r.expect_err("the case must fail").to_string();
            eprintln!(
                "{} {how}: failed as it must, in {:?}: {e}",
                case.name(),
                t.elapsed()
            );
            for want in errors {
                let want = want.as_str().unwrap();
                assert!(
                    e.contains(want),
                    "{} {how}: `{want}` not in: {e}",
                    case.name()
                );
            }
            // The others stopped at once, not at the rendezvous timeout.
            assert!(
                t.elapsed() < Duration::from_secs(25),
                "{} {how}: took {:?}",
                case.name(),
                t.elapsed()
            );
            return;
        }
        let all = r.unwrap_or_else(|e| panic!("{} {how}: {e}", case.name()));
        assert_eq!(all.len(), 4, "{} {how}: devices", case.name());
        for (d, got) in all.into_iter().enumerate() {
            case.check(got, &format!("{how}, device {d}"));
        }
    }

    /// The multi-device corpus (JAX's programs for 4 devices: shard_map
    /// with every collective and axis_index, a 2x2 mesh, pmap, jit with
    /// shardings, a data-parallel step, typed-FFI custom calls inside
    /// shard_map, one failing on device 3 only) on 4 emulated CUDA devices,
    /// each device's result against JAX's; the per-device PTX through
    /// ptxas.
    #[test]
    fn multidevice_corpus_on_four_emulated_cuda_devices() {
        let cases = corpus();
        assert!(cases.len() >= 7, "{} cases", cases.len());
        let ptxas = ptxas();
        for case in &cases {
            let spmd = compile(&case.dir.join("module.hlo"), 4);
            assert!(
                !spmd.collectives().is_empty() || case.name() == "jit_sharded",
                "{}: no collectives after the expansion",
                case.name()
            );
            if let Some(p) = &ptxas {
                for sm in ["sm_80", "sm_90"] {
                    assemble(p, &spmd.compiled.ptx, sm, &format!("md_{}", case.name()))
                        .unwrap_or_else(|e| panic!("{}: {e}", case.name()));
                }
            }
            let mut devs = EmulatedDevices::new(spmd);
            devs.set_collective_timeout(Duration::from_secs(30));
            run_case(case, "emulated", |a| devs.execute(a));
            eprintln!("{}: 4 emulated CUDA devices match", case.name());
        }
    }

    /// A cross-replica program of every collective kind for `n` devices
    /// (`f32[4,12]` per device, split along dimension 1).
    fn kinds_module(n: usize) -> hlox_hlo::Module {
        let all: Vec<String> = (0..n).map(|d| d.to_string()).collect();
        let g = format!("{{{{{}}}}}", all.join(","));
        let pairs: Vec<String> = (0..n).map(|d| format!("{{{d},{}}}", (d + 1) % n)).collect();
        let text = format!(
            r#"HloModule spmd_kinds

add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}

ENTRY main {{
  x = f32[4,12]{{1,0}} parameter(0)
  id = u32[] replica-id()
  idf = f32[] convert(id)
  bid = f32[4,12]{{1,0}} broadcast(idf), dimensions={{}}
  y = f32[4,12]{{1,0}} add(x, bid)
  ar = f32[4,12]{{1,0}} all-reduce(y), replica_groups={g}, to_apply=add
  ag = f32[4,{ag}]{{1,0}} all-gather(y), dimensions={{1}}, replica_groups={g}
  rs = f32[4,{rs}]{{1,0}} reduce-scatter(y), dimensions={{1}}, replica_groups={g}, to_apply=add
  a2a = f32[4,12]{{1,0}} all-to-all(y), dimensions={{1}}, replica_groups={g}
  cp = f32[4,12]{{1,0}} collective-permute(y), source_target_pairs={{{pairs}}}
  ROOT t = (f32[4,12]{{1,0}}, f32[4,{ag}]{{1,0}}, f32[4,{rs}]{{1,0}}, f32[4,12]{{1,0}}, f32[4,12]{{1,0}}, u32[]) tuple(ar, ag, rs, a2a, cp, id)
}}
"#,
            ag = 12 * n,
            rs = 12 / n,
            pairs = pairs.join(","),
        );
        hlox_hlo::text::parse_module(&text).unwrap()
    }

    fn kinds_input() -> Literal {
        let v: Vec<f32> = (0..48).map(|i| i as f32 * 0.5 - 3.0).collect();
        Literal::from_vec(&[4, 12], &v).unwrap()
    }

    /// Every collective kind on 2 and 4 emulated devices, each device's
    /// results against their values (sums of small halves: exact in f32).
    #[test]
    fn collective_kinds_on_emulated_cuda_devices() {
        let x = kinds_input();
        let xs = x.to_vec::<f32>().unwrap();
        for n in [2usize, 4] {
            let spmd = compile_for_devices(&kinds_module(n), n, &options()).unwrap();
            let devs = EmulatedDevices::new(spmd);
            let all = devs.execute(&[&x]).unwrap();
            let idsum: f32 = (0..n).map(|d| d as f32).sum();
            for (d, r) in all.into_iter().enumerate() {
                let leaves = r.into_leaves();
                let ar = leaves[0].to_vec::<f32>().unwrap();
                let want: Vec<f32> = xs.iter().map(|v| n as f32 * v + idsum).collect();
                assert_eq!(ar, want, "all-reduce on device {d} of {n}");
                assert_eq!(leaves[5].to_vec::<u32>().unwrap(), [d as u32]);
                // collective-permute: device d holds device d-1's y.
                let from = (d + n - 1) % n;
                let cp = leaves[4].to_vec::<f32>().unwrap();
                let want: Vec<f32> = xs.iter().map(|v| v + from as f32).collect();
                assert_eq!(cp, want, "permute on device {d} of {n}");
                // y_j[r][c] = x[r][c] + j; pieces of 12 / n columns.
                let y = |j: usize, r: usize, c: usize| xs[r * 12 + c] + j as f32;
                let piece = 12 / n;
                let mut ag = Vec::new();
                let mut rs = Vec::new();
                let mut a2a = Vec::new();
                for r in 0..4 {
                    for j in 0..n {
                        ag.extend((0..12).map(|c| y(j, r, c)));
                        a2a.extend((0..piece).map(|c| y(j, r, d * piece + c)));
                    }
                    rs.extend(
                        (0..piece).map(|c| (0..n).map(|j| y(j, r, d * piece + c)).sum::<f32>()),
                    );
                }
                assert_eq!(
                    leaves[1].to_vec::<f32>().unwrap(),
                    ag,
                    "all-gather on {d} of {n}"
                );
                assert_eq!(
                    leaves[2].to_vec::<f32>().unwrap(),
                    rs,
                    "reduce-scatter on {d} of {n}"
                );
                assert_eq!(
                    leaves[3].to_vec::<f32>().unwrap(),
                    a2a,
                    "all-to-all on {d} of {n}"
                );
            }
        }
    }

    /// Half precision and pred (NCCL has f16 and bf16 sums, and or of
    /// pred is its max): a variadic f16 all-reduce and an or on 2 emulated
    /// devices.
    #[test]
    fn half_and_pred_all_reduces_on_emulated_cuda_devices() {
        let m = hlox_hlo::text::parse_module(
            r#"HloModule halves

add.h {
  a = f16[] parameter(0)
  b = f16[] parameter(1)
  ROOT s = f16[] add(a, b)
}

or {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT o = pred[] or(a, b)
}

ENTRY main {
  x = f16[3]{0} parameter(0)
  id = u32[] replica-id()
  one = u32[] constant(1)
  is1 = pred[] compare(id, one), direction=EQ
  p = pred[3]{0} broadcast(is1), dimensions={}
  idh = f16[] convert(id)
  b = f16[3]{0} broadcast(idh), dimensions={}
  y = f16[3]{0} add(x, b)
  ar = (f16[3]{0}, f16[3]{0}) all-reduce(y, x), replica_groups={{0,1}}, to_apply=add.h
  ar0 = f16[3]{0} get-tuple-element(ar), index=0
  ar1 = f16[3]{0} get-tuple-element(ar), index=1
  any = pred[3]{0} all-reduce(p), replica_groups={{0,1}}, to_apply=or
  ROOT t = (f16[3]{0}, f16[3]{0}, pred[3]{0}) tuple(ar0, ar1, any)
}
"#,
        )
        .unwrap();
        let x = Literal::from_vec(
            &[3],
            &[
                half::f16::from_f32(1.5),
                half::f16::from_f32(-2.0),
                half::f16::from_f32(0.25),
            ],
        )
        .unwrap();
        let spmd = compile_for_devices(&m, 2, &options()).unwrap();
        let all = EmulatedDevices::new(spmd).execute(&[&x]).unwrap();
        for (d, r) in all.into_iter().enumerate() {
            let leaves = r.into_leaves();
            let f32s = |l: &Literal| -> Vec<f32> {
                l.to_vec::<half::f16>()
                    .unwrap()
                    .iter()
                    .map(|h| h.to_f32())
                    .collect()
            };
            // (x + 0) + (x + 1) and x + x, exact in f16.
            assert_eq!(
                f32s(&leaves[0]),
                [4.0, -3.0, 1.5],
                "f16 all-reduce on device {d}"
            );
            assert_eq!(
                f32s(&leaves[1]),
                [3.0, -4.0, 0.5],
                "its second operand on device {d}"
            );
            assert_eq!(
                leaves[2].to_vec::<bool>().unwrap(),
                [true; 3],
                "or on device {d}"
            );
        }
    }

    /// A device that never arrives at a collective (device 1 takes the
    /// branch without it) is named when the wait passes the timeout: the
    /// run ends with that error instead of hanging.
    #[test]
    fn a_device_that_never_arrives_is_named_by_the_timeout() {
        let m = hlox_hlo::text::parse_module(
            r#"HloModule never_arrives

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

with_psum {
  p = f32[2]{0} parameter(0)
  ROOT ar = f32[2]{0} all-reduce(p), replica_groups={{0,1}}, to_apply=add
}

without {
  ROOT p = f32[2]{0} parameter(0)
}

ENTRY main {
  x = f32[2]{0} parameter(0)
  id = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(id, zero), direction=EQ
  ROOT r = f32[2]{0} conditional(first, x, x), true_computation=with_psum, false_computation=without
}
"#,
        )
        .unwrap();
        let spmd = compile_for_devices(&m, 2, &options()).unwrap();
        let mut devs = EmulatedDevices::new(spmd);
        devs.set_collective_timeout(Duration::from_millis(500));
        let x = Literal::from_vec(&[2], &[1f32, 2.0]).unwrap();
        let t = Instant::now();
        let e = devs.execute(&[&x]).unwrap_err().to_string();
        assert!(
            e.contains("device 0") && e.contains("device(s) [1] did not arrive within 0.5 s"),
            "{e}"
        );
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    }

    /// The multi-device corpus on GPUs through NCCL when there are 4, and
    /// the collective kinds on every GPU there is (one GPU: a one-rank
    /// communicator) against the same program in emulation.
    #[cfg(feature = "nccl")]
    #[test]
    fn spmd_on_gpus_through_nccl() {
        use hlox_cuda::spmd::CudaDevices;
        let test = "spmd_on_gpus_through_nccl";
        if !hlox_cuda::runtime::driver_present() {
            assert!(
                !gpu_required(),
                "{test}: HLOX_REQUIRE_GPU is set but no CUDA driver"
            );
            eprintln!("SKIP: {test}: no CUDA driver (libcuda.so), so not on a GPU");
            return;
        }
        let n = cudarc::driver::CudaContext::device_count()
            .unwrap_or(0)
            .max(0) as usize;
        assert!(n > 0, "{test}: a driver but no GPU");
        let n = n.min(4);
        let x = kinds_input();
        let spmd = compile_for_devices(&kinds_module(n), n, &options()).unwrap();
        let want = EmulatedDevices::new(spmd.clone()).execute(&[&x]).unwrap();
        let gpus = CudaDevices::load(spmd).unwrap_or_else(|e| panic!("{test}: {e}"));
        let got = gpus
            .execute(&[&x])
            .unwrap_or_else(|e| panic!("{test}: {e}"));
        assert_eq!(got, want, "{test}: {n} GPUs against emulation");
        eprintln!("{test}: every collective kind on {n} GPU(s) matches emulation");
        if n < 4 {
            eprintln!("SKIP: {test}: the corpus needs 4 GPUs, this machine has {n}");
            return;
        }
        for case in corpus() {
            let spmd = compile(&case.dir.join("module.hlo"), 4);
            let gpus = CudaDevices::load(spmd).unwrap_or_else(|e| panic!("{}: {e}", case.name()));
            run_case(&case, "on 4 GPUs", |a| gpus.execute(a));
        }
    }

    /// Without the `nccl` feature a GPU machine cannot run SPMD programs:
    /// say so where a GPU is required, so gpu_session.sh does not pass
    /// without running them.
    #[cfg(not(feature = "nccl"))]
    #[test]
    fn spmd_on_gpus_needs_the_nccl_feature() {
        assert!(
            !gpu_required(),
            "HLOX_REQUIRE_GPU is set, but this test binary was built without the nccl feature \
             (scripts/gpu_bundle.sh builds it with --features nccl)"
        );
        eprintln!("SKIP: spmd_on_gpus_through_nccl: built without the nccl feature");
    }
}
