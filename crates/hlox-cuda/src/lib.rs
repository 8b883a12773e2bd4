//! hlox's CUDA backend: HLO compiled through LLVM 19's NVPTX target to PTX
//! and run with the CUDA driver (through `cudarc`, loaded at run time).
//!
//! Pipeline of [`compile`]:
//! 1. the front half every backend shares ([`hlox_passes::frontend`]):
//!    verify, HLO passes, verify again, bind every custom-call target for
//!    the CUDA platform; [`CudaCompiler`] is the back half, steps 2-3, and
//!    takes the front half's [`VerifiedModule`];
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

pub mod complex;
pub mod emulate;
pub mod fft;
pub mod graph;
pub mod math;
#[cfg(feature = "nccl")]
pub mod nccl;
pub mod plan;
pub mod ptx;
pub mod runtime;
pub mod spmd;
pub mod targets;

use hlox_ffi::{BoundTargets, Platform};
use hlox_hlo::verifier::VerifiedModule;
use hlox_hlo::Module;
use hlox_passes::frontend::{dump, Lowered};
use std::collections::HashMap;
use std::sync::Arc;

pub use graph::GraphStatus;
/// Every backend's options and errors (one type each, shared with
/// `hlox-cpu`); CUDA reads `sm`, `block_size`, `use_cublas` and
/// `cuda_graphs` and ignores the Host-only fields.
pub use hlox_passes::frontend::{ArgumentError, CompileError, CompileOptions, Compiler};
pub use runtime::{CudaClient, CudaExecutable};

/// A module compiled for CUDA, not yet loaded on a device (cloned to load
/// one program on several devices, [`spmd`]).
#[derive(Clone)]
pub struct CompiledModule {
    /// The module after the HLO passes.
    pub module: VerifiedModule,
    pub program: plan::Program,
    /// PTX of every kernel (one PTX module).
    pub ptx: String,
    pub options: CompileOptions,
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

/// The CUDA back half: typed-FFI calls prepared, the program planned, its
/// kernels generated as PTX ([`CompiledModule`]; no GPU needed).
#[derive(Clone, Copy, Debug, Default)]
pub struct CudaCompiler;

impl Compiler for CudaCompiler {
    type Output = CompiledModule;
    const PLATFORM: Platform = Platform::Cuda;

    fn check_options(&self, options: &CompileOptions) -> Result<(), CompileError> {
        ptx::target_machine(&options.sm, options.opt_level)?;
        if options.block_size == 0
            || options.block_size > 1024
            || !options.block_size.is_multiple_of(32)
        {
            return Err(CompileError::Options(format!(
                "CUDA block_size {} is not a multiple of 32 (the warp size) in 32..=1024",
                options.block_size
            )));
        }
        Ok(())
    }

    fn compile_lowered(
        &self,
        lowered: Lowered,
        options: &CompileOptions,
    ) -> Result<CompiledModule, CompileError> {
        let Lowered { module, bound, .. } = lowered;
        let dir = options.dump_dir.as_deref();
        let ffi_calls = prepare_ffi_calls(&module, &bound)?;
        let program = plan::plan(&module)?;
        dump(dir, "program.txt", || describe(&module, &program))?;
        let out = ptx::generate(&module, &program, &options.sm, options.opt_level)?;
        dump(dir, "kernels.ll", || &out.llvm_ir)?;
        dump(dir, "kernels.opt.ll", || &out.llvm_ir_opt)?;
        dump(dir, "kernels.ptx", || &out.ptx)?;
        Ok(CompiledModule {
            module,
            program,
            ptx: out.ptx,
            options: options.clone(),
            bound,
            ffi_calls: Arc::new(ffi_calls),
        })
    }
}

/// Compile `module` for CUDA ([`CudaCompiler`]): HLO passes, custom-call
/// binding, program plan, PTX. Needs no GPU.
pub fn compile(module: &Module, options: &CompileOptions) -> Result<CompiledModule, CompileError> {
    CudaCompiler.compile(module, options)
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
pub fn compile_to_ptx(module: &Module, options: &CompileOptions) -> Result<String, CompileError> {
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
