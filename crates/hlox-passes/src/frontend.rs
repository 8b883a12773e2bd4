//! The compile front half that every backend shares, and the [`Compiler`]
//! trait that splits a compiler into that front half and its own back half.
//!
//! XLA's compilers share `RunHloPasses` and differ in `RunBackend`; hlox does
//! the same. The front half ([`run_frontend`]) is, for every platform:
//! 1. verify the module (the caller's [`VerifiedModule`] proves it was);
//! 2. dump `module.hlo`;
//! 3. the HLO pass pipeline ([`crate::pipeline`] for the options' bf16
//!    rounding) with `hlo_passes`, otherwise only the passes code
//!    generation needs ([`crate::run_codegen_prerequisites`]) and
//!    [`crate::ExcessPrecision`] (after inlining where a `call` would hide
//!    its root from it); dump `module.optimized.hlo`;
//! 4. verify the result again, so that the back half gets a
//!    [`VerifiedModule`] and need not re-check operand counts or shapes;
//! 5. bind every custom-call target for the platform
//!    ([`Registry::bind`]).
//!
//! It is LLVM-free; the backends (`hlox-cpu`, `hlox-cuda`) implement
//! [`Compiler::compile_lowered`] and get [`Compiler::compile`] for free.
//! [`CompileOptions`] and [`CompileError`] are the one options type and the
//! one error type of every backend (the facade `hlox` passes them through
//! unchanged).

use crate::PassError;
use hlox_ffi::{BindError, BoundTargets, Platform, Registry};
use hlox_hlo::verifier::{VerifiedModule, VerifyError};
use hlox_hlo::Module;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Options of every compiler. One type for all platforms, as XLA's
/// `DebugOptions`: the common fields first, then the fields only one
/// backend reads (documented as such; the other backend ignores them).
#[derive(Clone)]
pub struct CompileOptions {
    /// Write the stages here: the HLO before and after the passes, and what
    /// the backend adds (Host: buffer assignment, LLVM IR before and after
    /// optimization, assembly; CUDA: the program plan, the kernels' LLVM IR
    /// and the PTX).
    pub dump_dir: Option<PathBuf>,
    /// LLVM optimization level, 0..=3: on the Host, 0 and 1 run LLVM's
    /// `default<O0>`/`default<O1>`, 2 and 3 hlox's own pipeline
    /// (`hlox_codegen::HOST_PASSES`); on CUDA, `default<On>`.
    pub opt_level: u8,
    /// Custom-call registry (default: [`Registry::global`]).
    pub registry: Option<Arc<Registry>>,
    /// Run the HLO pass pipeline ([`crate::default_pipeline`]: inlining,
    /// simplification, constant folding, CSE, DCE, fusion) before code
    /// generation; off runs only [`crate::run_codegen_prerequisites`].
    pub hlo_passes: bool,
    /// Host: loops with at least this many elements run in parallel.
    pub parallel_threshold: usize,
    /// CUDA: GPU architecture, "sm_80" (default), "sm_90", ... (a CUDA
    /// client replaces it with its device's).
    pub sm: String,
    /// CUDA: threads per block of every kernel launch: a multiple of 32
    /// (whole warps; row reductions give each row a warp), at most 1024.
    pub block_size: u32,
    /// CUDA: at run time, compute F32, F64, F16 and BF16 row-major dots with
    /// cuBLAS where libcublas can be loaded (the dot kernel otherwise).
    pub use_cublas: bool,
    /// CUDA: record the first run and replay later runs as one CUDA graph,
    /// where every run does the same device work.
    pub cuda_graphs: bool,
    /// Host: run every custom call in the sandbox (guarded buffers, faults
    /// and C++ exceptions caught, optional result checks, reproducers; see
    /// `hlox_ffi::sandbox` and docs/reliability.md). `None`: call targets
    /// directly, as XLA does.
    pub sandbox: Option<hlox_ffi::sandbox::SandboxOptions>,
    /// Where bf16 results are rounded: XLA's default excess precision (a
    /// `convert` to f32 of a bf16 arithmetic result reads it unrounded,
    /// [`crate::ExcessPrecision`]), or after every op. The evaluator takes
    /// the same policy (`hlox_eval::evaluate_with_rounding`); see
    /// docs/numerics.md.
    pub half_rounding: hlox_eval::HalfRounding,
    /// Host: time every instruction of the entry computation in each run,
    /// as XLA's `--xla_hlo_profile` does (`Executable::profile`; `hlox bench
    /// --profile`). Two clock reads per instruction; a while loop, call or
    /// conditional counts as one instruction with everything it runs.
    pub profile: bool,
    /// Host: a persistent compilation cache in this directory (created if
    /// missing): a compile whose optimized module, options, hlox build, CPU
    /// and bound targets match an entry loads its machine code instead of
    /// running LLVM (`hlox_cpu::cache`; docs/performance.md). `None`: the
    /// `HLOX_CACHE_DIR` environment variable, where set, else no cache.
    pub cache_dir: Option<PathBuf>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            dump_dir: None,
            opt_level: 3,
            registry: None,
            hlo_passes: true,
            parallel_threshold: 1 << 16,
            sm: "sm_80".into(),
            block_size: 256,
            use_cublas: true,
            cuda_graphs: true,
            sandbox: None,
            half_rounding: hlox_eval::HalfRounding::default(),
            profile: false,
            cache_dir: None,
        }
    }
}

impl std::fmt::Debug for CompileOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompileOptions")
            .field("dump_dir", &self.dump_dir)
            .field("opt_level", &self.opt_level)
            .field("registry", &self.registry.as_ref().map(|_| "custom"))
            .field("hlo_passes", &self.hlo_passes)
            .field("parallel_threshold", &self.parallel_threshold)
            .field("sm", &self.sm)
            .field("block_size", &self.block_size)
            .field("use_cublas", &self.use_cublas)
            .field("cuda_graphs", &self.cuda_graphs)
            .field("sandbox", &self.sandbox)
            .field("half_rounding", &self.half_rounding)
            .field("profile", &self.profile)
            .field("cache_dir", &self.cache_dir)
            .finish()
    }
}

impl CompileOptions {
    /// The registry custom-call targets are bound from.
    pub fn registry(&self) -> &Registry {
        match &self.registry {
            Some(r) => r,
            None => Registry::global(),
        }
    }
}

/// Arguments that do not fit an executable's parameters: every backend's
/// `execute` checks them the same way and says the same.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentError {
    #[error("the computation takes {expected} arguments but was given {actual}")]
    Count { expected: usize, actual: usize },
    #[error("argument {index} (parameter `{name}`): {message}")]
    Mismatch {
        index: usize,
        name: String,
        message: String,
    },
}

/// Errors of compilation, on every platform (no device involved). Each
/// variant says what failed; [`std::error::Error::source`] leads to the
/// underlying error where there is one.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The module (or the module after the passes) does not verify.
    #[error("module does not verify: {0}")]
    Verify(#[from] VerifyError),
    /// Custom-call targets that could not be bound for the platform.
    #[error(transparent)]
    Bind(#[from] BindError),
    /// An instruction this backend cannot compile.
    #[error("{inst}: {message}")]
    Unsupported { inst: String, message: String },
    /// Code generation failed at an instruction.
    #[error("code generation failed at {inst}: {message}")]
    Codegen { inst: String, message: String },
    /// The HLO pass pipeline failed.
    #[error("HLO pass pipeline: {0}")]
    Passes(#[from] PassError),
    /// LLVM refused something (a bug in hlox: reported as internal).
    #[error("LLVM: {0}")]
    Llvm(String),
    /// Options this backend cannot compile with.
    #[error("invalid compile options: {0}")]
    Options(String),
    /// A broken invariant inside the compiler (a bug in hlox).
    #[error("internal compiler error: {0}")]
    Internal(String),
    /// A dump file or directory could not be written.
    #[error("cannot write dump file {}: {source} (check that dump_dir is a writable directory)", path.display())]
    Dump {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl CompileError {
    /// Whether the error is hlox's fault rather than the input's (the CLI
    /// reports those as internal errors, exit code 2).
    pub fn is_internal(&self) -> bool {
        matches!(self, CompileError::Internal(_) | CompileError::Llvm(_))
    }
}

/// Writes `text()` to `dir/file` when a dump directory is set (without
/// one, `text` is not called: printing a module or LLVM IR costs time).
pub fn dump<T: AsRef<str>>(
    dir: Option<&Path>,
    file: &str,
    text: impl FnOnce() -> T,
) -> Result<(), CompileError> {
    let Some(d) = dir else { return Ok(()) };
    std::fs::create_dir_all(d).map_err(|source| CompileError::Dump {
        path: d.to_path_buf(),
        source,
    })?;
    let path = d.join(file);
    std::fs::write(&path, text().as_ref()).map_err(|source| CompileError::Dump { path, source })
}

/// Per-phase timings of the front half.
#[derive(Clone, Debug, Default)]
pub struct FrontendReport {
    /// Verifying the input and the optimized module.
    pub verify: Duration,
    /// Each HLO pass run, in order, with its time.
    pub passes: Vec<(String, Duration)>,
    /// Binding custom-call targets.
    pub bind: Duration,
    /// The whole front half, dumps included.
    pub total: Duration,
}

/// What the front half hands the back half: the optimized module, verified,
/// with its custom-call targets bound for the platform.
pub struct Lowered {
    pub module: VerifiedModule,
    pub bound: BoundTargets,
    pub report: FrontendReport,
}

/// Milliseconds, to the microsecond (for log lines).
fn ms(d: Duration) -> f64 {
    d.as_micros() as f64 / 1e3
}

/// The shared front half (see the module documentation) for `platform`.
pub fn run_frontend(
    module: VerifiedModule,
    platform: Platform,
    options: &CompileOptions,
) -> Result<Lowered, CompileError> {
    let t0 = Instant::now();
    let mut report = FrontendReport::default();
    let dir = options.dump_dir.as_deref();
    dump(dir, "module.hlo", || hlox_hlo::text::print_module(&module))?;
    let mut m = module.into_inner();
    if options.hlo_passes {
        let popts = crate::PipelineOptions {
            dump_dir: options.dump_dir.clone(),
            ..Default::default()
        };
        let r = crate::pipeline_for(platform, options.half_rounding).run(&mut m, &popts)?;
        tracing::debug!(
            ms = ms(r.timings.iter().map(|(_, d)| *d).sum()),
            passes = r.timings.len(),
            changed = ?r.changed,
            "HLO pass pipeline"
        );
        report.passes = r.timings;
        dump(dir, "module.optimized.hlo", || {
            hlox_hlo::text::print_module(&m)
        })?;
    } else {
        crate::run_codegen_prerequisites(&mut m)?;
        // Numerics do not depend on whether the optimizing passes run. XLA
        // inlines before the rule applies, so a module where a `call`
        // would hide its root from the rule is inlined first.
        if options.half_rounding == hlox_eval::HalfRounding::ExcessPrecision {
            let mut pm = crate::PassManager::new();
            if converts_a_call_result(&m) {
                pm.add(crate::CallInliner);
            }
            pm.add(crate::ExcessPrecision);
            pm.run(&mut m, &crate::PipelineOptions::default())?;
        }
    }
    // The passes keep the invariants; checking it here (linear, small next
    // to code generation) is what lets the back half rely on them.
    let t = Instant::now();
    let module = VerifiedModule::new(m).map_err(|error| {
        CompileError::Internal(format!(
            "the HLO passes produced a module that does not verify (a bug in a pass; \
             rerun with dump_dir to see each pass's output):\n{error}"
        ))
    })?;
    report.verify += t.elapsed();

    let t = Instant::now();
    let bound = options.registry().bind(&module, platform)?;
    report.bind = t.elapsed();
    tracing::debug!(ms = ms(report.bind), %platform, "bound custom-call targets");
    report.total = t0.elapsed();
    Ok(Lowered {
        module,
        bound,
        report,
    })
}

/// Whether a `convert` to f32 in `m` reads a `call` whose callee's root
/// the excess-precision rule applies to ([`hlox_eval::precision`]).
fn converts_a_call_result(m: &Module) -> bool {
    use hlox_eval::precision::{has_f32_form, is_convert_to_f32};
    m.computations.values().any(|c| {
        c.instructions.values().any(|i| {
            is_convert_to_f32(i)
                && i.operands
                    .first()
                    .and_then(|&o| c.instructions.get(o))
                    .is_some_and(|o| matches!(o.op, hlox_hlo::Op::Call) && has_f32_form(m, o))
        })
    })
}

/// A compiler for one platform: the shared front half, then its own back
/// half. Implemented by `hlox_cpu::HostCompiler` and
/// `hlox_cuda::CudaCompiler`.
pub trait Compiler {
    /// What the back half produces (an executable, PTX, ...).
    type Output;

    /// The platform custom-call targets are bound for.
    const PLATFORM: Platform;

    /// Checks the options this backend reads, before any work.
    fn check_options(&self, _options: &CompileOptions) -> Result<(), CompileError> {
        Ok(())
    }

    /// The back half: code generation from the front half's result.
    fn compile_lowered(
        &self,
        lowered: Lowered,
        options: &CompileOptions,
    ) -> Result<Self::Output, CompileError>;

    /// Verifies `module`, then the front half and the back half.
    fn compile(
        &self,
        module: &Module,
        options: &CompileOptions,
    ) -> Result<Self::Output, CompileError> {
        let _span = compile_span(&module.name, Self::PLATFORM);
        let t = Instant::now();
        let verified = VerifiedModule::verify(module)?;
        let verify = t.elapsed();
        tracing::debug!(ms = ms(verify), "verified");
        front_then_back(self, verified, options, verify)
    }

    /// The front half and the back half of a module verified before.
    fn compile_verified(
        &self,
        module: VerifiedModule,
        options: &CompileOptions,
    ) -> Result<Self::Output, CompileError> {
        let _span = compile_span(&module.name, Self::PLATFORM);
        front_then_back(self, module, options, Duration::ZERO)
    }
}

fn compile_span(module: &str, platform: Platform) -> tracing::span::EnteredSpan {
    tracing::info_span!("compile", module = %module, platform = %platform).entered()
}

/// [`Compiler::compile_verified`], with the time the caller spent verifying.
fn front_then_back<C: Compiler + ?Sized>(
    compiler: &C,
    module: VerifiedModule,
    options: &CompileOptions,
    verify: Duration,
) -> Result<C::Output, CompileError> {
    compiler.check_options(options)?;
    let mut lowered = run_frontend(module, C::PLATFORM, options)?;
    lowered.report.verify += verify;
    lowered.report.total += verify;
    compiler.compile_lowered(lowered, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    /// A back half that reports what it was given: the entry's instruction
    /// count and the bound targets' platform.
    struct Probe;

    impl Compiler for Probe {
        type Output = (usize, Platform, FrontendReport);
        const PLATFORM: Platform = Platform::Host;
        fn check_options(&self, options: &CompileOptions) -> Result<(), CompileError> {
            if options.opt_level > 3 {
                return Err(CompileError::Options(format!(
                    "opt_level {} is not in 0..=3",
                    options.opt_level
                )));
            }
            Ok(())
        }
        fn compile_lowered(
            &self,
            lowered: Lowered,
            _options: &CompileOptions,
        ) -> Result<Self::Output, CompileError> {
            let n = lowered.module.entry_computation().instructions.len();
            Ok((n, lowered.bound.platform(), lowered.report))
        }
    }

    /// `d` is dead: DCE removes it.
    const ADD: &str = "HloModule m\nENTRY e {\n  a = f32[4]{0} parameter(0)\n  d = f32[4]{0} negate(a)\n  ROOT r = f32[4]{0} add(a, a)\n}\n";

    fn module(text: &str) -> Module {
        hlox_hlo::text::parse_module(text).expect("test module parses")
    }

    #[test]
    fn the_back_half_gets_the_optimized_verified_module_bound_for_its_platform() {
        let (n, platform, report) = Probe
            .compile(&module(ADD), &CompileOptions::default())
            .expect("compiles");
        // DCE dropped `d`.
        assert_eq!(n, 2);
        assert_eq!(platform, Platform::Host);
        assert!(!report.passes.is_empty());
        assert!(report.total >= report.bind);
        // Without the pipeline, only the prerequisites run.
        let off = CompileOptions {
            hlo_passes: false,
            ..Default::default()
        };
        let (n, _, report) = Probe.compile(&module(ADD), &off).expect("compiles");
        assert_eq!(n, 3);
        assert!(report.passes.is_empty());
    }

    #[test]
    fn errors_say_what_failed_and_chain_to_their_cause() {
        // A root whose declared shape is not its inferred one.
        let mut m = module(ADD);
        let entry = m.entry;
        let root = m.comp(entry).root;
        m.computations[entry].instructions[root].shape =
            hlox_hlo::Shape::array(hlox_hlo::ElementType::F32, vec![7]);
        let e = Probe
            .compile(&m, &CompileOptions::default())
            .expect_err("does not verify");
        assert!(matches!(e, CompileError::Verify(_)), "{e}");
        assert!(e.to_string().starts_with("module does not verify: "), "{e}");
        let source = e.source().expect("a source");
        assert!(source.downcast_ref::<VerifyError>().is_some(), "{source}");
        assert!(!e.is_internal());

        // An unknown custom-call target, bound from an empty registry.
        let call = module("HloModule m\nENTRY e {\n  a = f32[4]{0} parameter(0)\n  ROOT c = f32[4]{0} custom-call(a), custom_call_target=\"no_such_target\"\n}\n");
        let o = CompileOptions {
            registry: Some(Arc::new(Registry::new())),
            ..Default::default()
        };
        let e = Probe.compile(&call, &o).expect_err("unbound");
        assert!(matches!(e, CompileError::Bind(_)), "{e}");
        assert!(e.to_string().contains("no_such_target"), "{e}");

        // Options the backend refuses, before any work.
        let bad = CompileOptions {
            opt_level: 9,
            ..Default::default()
        };
        let e = Probe.compile(&module(ADD), &bad).expect_err("bad options");
        assert!(matches!(e, CompileError::Options(_)), "{e}");
    }

    #[test]
    fn dumps_the_module_before_and_after_the_passes() {
        let dir = std::env::temp_dir().join(format!("hlox-frontend-{}", std::process::id()));
        let o = CompileOptions {
            dump_dir: Some(dir.clone()),
            ..Default::default()
        };
        Probe.compile(&module(ADD), &o).expect("compiles");
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
        assert!(read("module.hlo").contains("negate("));
        let optimized = read("module.optimized.hlo");
        assert!(optimized.contains("ENTRY") && !optimized.contains("negate("));
        let _ = std::fs::remove_dir_all(&dir);
        // An unwritable dump directory is an I/O error with its path.
        let file = std::env::temp_dir().join(format!("hlox-frontend-file-{}", std::process::id()));
        std::fs::write(&file, b"").expect("temp file");
        let o = CompileOptions {
            dump_dir: Some(file.join("sub")),
            ..Default::default()
        };
        let e = Probe.compile(&module(ADD), &o).expect_err("unwritable");
        assert!(matches!(e, CompileError::Dump { .. }), "{e}");
        assert!(e.source().is_some_and(|s| s.is::<std::io::Error>()));
        let _ = std::fs::remove_file(&file);
    }
}
