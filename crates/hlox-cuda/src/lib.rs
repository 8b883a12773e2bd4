//! hlox's CUDA backend: HLO compiled through LLVM 19's NVPTX target to PTX
//! and run with the CUDA driver (through `cudarc`, loaded at run time).
//!
//! Pipeline of [`compile`]:
//! 1. verify, run the HLO pass pipeline (the Host backend's), bind every
//!    custom-call target for the CUDA platform;
//! 2. plan the host-side program ([`plan`]): kernels, host control flow,
//!    custom calls, buffer lifetimes;
//! 3. generate one LLVM module with every kernel from the shared elemental
//!    emitter of `hlox-codegen` with the NVPTX math library ([`math`]),
//!    optimize it and emit PTX for the chosen `sm_XX` ([`ptx`]);
//! 4. [`CudaClient::load`] (needs a GPU) loads the PTX with the driver and
//!    returns a [`CudaExecutable`] that runs the program on one stream.
//!
//! Steps 1-3 need no GPU: [`compile_to_ptx`] is what `hlox compile
//! --platform cuda --emit ptx` prints.

pub mod emulate;
pub mod graph;
pub mod math;
pub mod plan;
pub mod ptx;
pub mod runtime;
pub mod targets;

use hlox_ffi::{BindError, BoundTargets, Platform, Registry};
use hlox_hlo::Module;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

pub use graph::GraphStatus;
pub use runtime::{CudaClient, CudaExecutable};

/// Errors of compilation (no GPU involved).
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("module does not verify: {0}")]
    Verify(String),
    #[error(transparent)]
    Bind(#[from] BindError),
    #[error("{inst}: {message}")]
    Unsupported { inst: String, message: String },
    #[error("code generation failed at {inst}: {message}")]
    Codegen { inst: String, message: String },
    #[error("HLO pass pipeline: {0}")]
    Passes(String),
    #[error("LLVM: {0}")]
    Llvm(String),
    #[error("invalid CUDA compile options: {0}")]
    Options(String),
    #[error("internal compiler error: {0}")]
    Internal(String),
    #[error("cannot write dump file {path}: {message}")]
    Dump { path: String, message: String },
}

/// Options of [`compile`] and [`compile_to_ptx`].
#[derive(Clone)]
pub struct CudaCompileOptions {
    /// GPU architecture, "sm_80" (default), "sm_90", ...
    pub sm: String,
    /// LLVM optimization level, 0..=3.
    pub opt_level: u8,
    /// Write the HLO, the program plan, the LLVM IR of every kernel
    /// (before and after optimization) and the PTX here.
    pub dump_dir: Option<PathBuf>,
    /// Custom-call registry (default: [`Registry::global`]).
    pub registry: Option<Arc<Registry>>,
    /// Run `hlox_passes::default_pipeline` first.
    pub hlo_passes: bool,
    /// Threads per block of every kernel launch: a multiple of 32 (whole
    /// warps; row reductions give each row a warp), at most 1024.
    pub block_size: u32,
    /// At run time, compute F32, F64, F16 and BF16 row-major dots (see
    /// [`plan::gemm_of`]) with cuBLAS where libcublas can be loaded (the
    /// dot kernel otherwise).
    pub use_cublas: bool,
    /// Record the first run and replay later runs as one CUDA graph, where
    /// every run does the same device work (no while or conditional, every
    /// custom call's target graph-compatible): see [`graph`].
    pub cuda_graphs: bool,
}

impl Default for CudaCompileOptions {
    fn default() -> Self {
        CudaCompileOptions {
            sm: "sm_80".into(),
            opt_level: 3,
            dump_dir: None,
            registry: None,
            hlo_passes: true,
            block_size: 256,
            use_cublas: true,
            cuda_graphs: true,
        }
    }
}

impl std::fmt::Debug for CudaCompileOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaCompileOptions")
            .field("sm", &self.sm)
            .field("opt_level", &self.opt_level)
            .field("dump_dir", &self.dump_dir)
            .field("registry", &self.registry.as_ref().map(|_| "custom"))
            .field("hlo_passes", &self.hlo_passes)
            .field("block_size", &self.block_size)
            .field("use_cublas", &self.use_cublas)
            .field("cuda_graphs", &self.cuda_graphs)
            .finish()
    }
}

/// A module compiled for CUDA, not yet loaded on a device.
pub struct CompiledModule {
    /// The module after the HLO passes.
    pub module: Module,
    pub program: plan::Program,
    /// PTX of every kernel (one PTX module).
    pub ptx: String,
    pub options: CudaCompileOptions,
    pub(crate) bound: BoundTargets,
    /// Typed-FFI custom calls by instruction name, prepared (and their
    /// instantiate stages run) at compile time, as XLA does when it makes
    /// the call's thunk.
    pub(crate) ffi_calls: Arc<FfiCalls>,
}

impl std::fmt::Debug for CompiledModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledModule")
            .field("module", &self.module.name)
            .field("kernels", &self.program.kernels.len())
            .field("ptx_bytes", &self.ptx.len())
            .finish()
    }
}

fn dump(dir: &Option<PathBuf>, file: &str, text: &str) -> Result<(), CompileError> {
    if let Some(d) = dir {
        let err = |p: &std::path::Path, e: std::io::Error| CompileError::Dump {
            path: p.display().to_string(),
            message: e.to_string(),
        };
        std::fs::create_dir_all(d).map_err(|e| err(d, e))?;
        let p = d.join(file);
        std::fs::write(&p, text).map_err(|e| err(&p, e))?;
    }
    Ok(())
}

/// Compile `module` for CUDA: HLO passes, custom-call binding, program
/// plan, PTX. Needs no GPU.
pub fn compile(
    module: &Module,
    options: &CudaCompileOptions,
) -> Result<CompiledModule, CompileError> {
    hlox_hlo::verifier::verify_module(module).map_err(|e| CompileError::Verify(e.to_string()))?;
    ptx::target_machine(&options.sm, options.opt_level)?;
    if options.block_size == 0
        || options.block_size > 1024
        || !options.block_size.is_multiple_of(32)
    {
        return Err(CompileError::Options(format!(
            "block_size {} is not a multiple of 32 (the warp size) in 32..=1024",
            options.block_size
        )));
    }
    dump(
        &options.dump_dir,
        "module.hlo",
        &hlox_hlo::text::print_module(module),
    )?;
    let mut m = module.clone();
    if options.hlo_passes {
        let popts = hlox_passes::PipelineOptions {
            dump_dir: options.dump_dir.clone(),
            ..Default::default()
        };
        hlox_passes::default_pipeline()
            .run(&mut m, &popts)
            .map_err(|e| CompileError::Passes(e.to_string()))?;
        dump(
            &options.dump_dir,
            "module.optimized.hlo",
            &hlox_hlo::text::print_module(&m),
        )?;
    } else {
        // Without the pipeline, still the passes code generation needs.
        hlox_passes::run_codegen_prerequisites(&mut m)
            .map_err(|e| CompileError::Passes(e.to_string()))?;
    }
    let registry: &Registry = match &options.registry {
        Some(r) => r,
        None => Registry::global(),
    };
    let bound = registry.bind(&m, Platform::Cuda)?;
    let ffi_calls = prepare_ffi_calls(&m, &bound)?;
    let program = plan::plan(&m)?;
    if options.dump_dir.is_some() {
        dump(&options.dump_dir, "program.txt", &describe(&m, &program))?;
    }
    let out = ptx::generate(&m, &program, &options.sm, options.opt_level)?;
    dump(&options.dump_dir, "kernels.ll", &out.llvm_ir)?;
    dump(&options.dump_dir, "kernels.opt.ll", &out.llvm_ir_opt)?;
    dump(&options.dump_dir, "kernels.ptx", &out.ptx)?;
    Ok(CompiledModule {
        module: m,
        program,
        ptx: out.ptx,
        options: options.clone(),
        bound,
        ffi_calls: Arc::new(ffi_calls),
    })
}

/// Prepared typed-FFI calls by instruction name.
type FfiCalls = HashMap<String, Arc<hlox_ffi::xla_ffi::FfiCall>>;

/// Prepares every typed-FFI custom call of `m` (runs instantiate stages);
/// CUDA handlers get the buffers as declared (after `BoundaryLayouts`).
fn prepare_ffi_calls(m: &Module, bound: &BoundTargets) -> Result<FfiCalls, CompileError> {
    hlox_ffi::prepare_ffi_calls(m, bound).map_err(|e| CompileError::Unsupported {
        inst: e.instruction,
        message: format!("custom-call target \"{}\": {}", e.target, e.message),
    })
}

/// The PTX of every kernel of `module` (what `hlox compile --platform cuda
/// --emit ptx` writes). Needs no GPU.
pub fn compile_to_ptx(
    module: &Module,
    options: &CudaCompileOptions,
) -> Result<String, CompileError> {
    Ok(compile(module, options)?.ptx)
}

/// A readable listing of the program: computations, steps, kernels.
pub fn describe(module: &Module, p: &plan::Program) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let mut ids: Vec<_> = p.comps.keys().copied().collect();
    ids.sort();
    for cid in ids {
        let comp = module.comp(cid);
        let _ = writeln!(s, "computation {}:", comp.name);
        for (id, step, frees) in &p.comps[&cid].steps {
            let inst = comp.inst(*id);
            let what = match step {
                plan::Step::Kernel(k) => {
                    let ki = &p.kernels[*k];
                    format!("kernel {} ({} threads)", ki.name, ki.threads)
                }
                plan::Step::Kernels(ks) => {
                    let names: Vec<String> = ks
                        .iter()
                        .map(|k| {
                            format!("{} ({} threads)", p.kernels[*k].name, p.kernels[*k].threads)
                        })
                        .collect();
                    format!("kernels {}", names.join(", then "))
                }
                plan::Step::SortMerge { passes } => {
                    let names: Vec<&str> =
                        passes.iter().map(|k| p.kernels[*k].name.as_str()).collect();
                    format!(
                        "merge sort: {} passes ({} threads each): {}",
                        passes.len(),
                        passes.first().map_or(0, |k| p.kernels[*k].threads),
                        names.join(", ")
                    )
                }
                plan::Step::SplitReduce {
                    partials,
                    combine,
                    scratch_bytes,
                } => {
                    let (a, b) = (&p.kernels[*partials], &p.kernels[*combine]);
                    format!(
                        "split reduction: kernel {} ({} threads) into {scratch_bytes} bytes of parts, \
                         kernel {} ({} threads)",
                        a.name, a.threads, b.name, b.threads
                    )
                }
                other => format!("{other:?}"),
            };
            let freed: Vec<&str> = frees.iter().map(|f| comp.inst(*f).name.as_str()).collect();
            let _ = writeln!(
                s,
                "  {} = {}: {}{}",
                inst.name,
                inst.opcode_name(),
                what,
                if freed.is_empty() {
                    String::new()
                } else {
                    format!("; free {}", freed.join(", "))
                }
            );
        }
    }
    s
}
