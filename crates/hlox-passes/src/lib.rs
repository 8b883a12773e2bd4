//! HLO-to-HLO passes of hlox and the pass manager that runs them.
//!
//! Every pass keeps the IR invariants of [`hlox_hlo::ir`]: arena order is a
//! topological order, callees come before callers, names are unique in the
//! module. Passes keep the names of instructions that survive.
//!
//! Each pass is a local rewrite (`rewrite::LocalRewrite`): it states what
//! to do with one instruction through the mutation API of
//! [`hlox_hlo::edit`], whose [`Editor`](hlox_hlo::edit::Editor) gives new
//! and changed instructions shapes from shape inference and lays the
//! computation out again in topological order; one driver owns the walk
//! over computations and instructions and the error context
//! ([`PassError::Edit`] names the pass, computation and instruction).
//!
//! - [`Dce`]: dead instructions and uncalled computations.
//! - [`Cse`]: identical instructions merged.
//! - [`AlgebraicSimplifier`]: local rewrites (`x*1`, `reshape(reshape(x))`, ...).
//! - [`ConstantFolding`]: all-constant instructions evaluated with `hlox_eval`.
//! - [`CallInliner`]: `call` replaced by the body of its computation.
//! - [`Fusion`]: elementwise chains into loop fusions, reduce with its
//!   producers into input fusions.
//! - [`BoundaryLayouts`]: copies that put custom-call buffers in the
//!   layouts their targets are promised (required before code generation).
//! - [`SingleDeviceCollectives`]: collectives to the copies and constants
//!   they mean on one device (required before code generation).
//! - [`ScatterToUpdateSlice`]: a scatter of one window as a
//!   `dynamic-update-slice` the compilers emit inline and in place.
//! - [`LapackDeadOutputs`]: jaxlib's LAPACK calls told not to compute
//!   the vectors no one reads (`eigvalsh` as lowered by JAX: `eigh`, then
//!   the vectors dropped).
//! - [`ExcessPrecision`]: a `convert` to f32 of a bf16 arithmetic result
//!   computed in f32 without rounding (XLA's default bf16 numerics).
//! - [`TransposeFolding`]: a dot reads the array a transpose (and a reshape
//!   merging its dimensions) would have copied (Host pipeline only).
//!
//! [`default_pipeline`] is what the backends run; see docs/passes.md.

mod algsimp;
mod collectives;
mod cse;
mod dce;
mod folding;
pub mod frontend;
mod fusion;
mod inline;
mod lapack_outputs;
mod layouts;
mod precision;
mod rewrite;
mod scatter;
pub mod spmd;
mod transpose_folding;
mod util;

pub use algsimp::AlgebraicSimplifier;
pub use collectives::SingleDeviceCollectives;
pub use cse::Cse;
pub use dce::Dce;
pub use folding::ConstantFolding;
pub use fusion::Fusion;
pub use inline::CallInliner;
pub use lapack_outputs::LapackDeadOutputs;
pub use layouts::BoundaryLayouts;
pub use precision::ExcessPrecision;
pub use scatter::ScatterToUpdateSlice;
pub use transpose_folding::TransposeFolding;

use hlox_hlo::verifier::{verify_module, VerifyError};
use hlox_hlo::Module;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What went wrong in a pass or in the pipeline.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// The module given to the pipeline does not verify: nothing ran.
    #[error("the input module `{module}` does not verify (fix the module before optimizing it):\n{error}")]
    InvalidInput { module: String, error: VerifyError },
    /// A pass produced a module that does not verify (a bug in that pass).
    #[error("after pass `{pass}` the module `{module}` no longer verifies (a bug in pass `{pass}`; rerun with dump_dir to see its output):\n{error}")]
    Verify {
        pass: String,
        module: String,
        error: VerifyError,
    },
    /// A pass found something it cannot handle in the module.
    #[error("pass `{pass}`, computation `{computation}`, instruction `{instruction}`: {message}")]
    Instruction {
        pass: &'static str,
        computation: String,
        instruction: String,
        message: String,
    },
    /// A pass made an edit the mutation API refused (a wrongly shaped
    /// instruction, a removed value still in use): a bug in that pass.
    #[error("pass `{pass}`, computation `{computation}`: {source} (a bug in pass `{pass}`)")]
    Edit {
        pass: &'static str,
        computation: String,
        source: Box<hlox_hlo::edit::EditError>,
    },
    /// Writing a dump file failed.
    #[error(
        "cannot write pass dump {path}: {source} (check that dump_dir is a writable directory)"
    )]
    Dump {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One HLO-to-HLO transformation.
pub trait Pass {
    /// A short, stable name (`dce`, `cse`, ...): used in dumps and reports.
    fn name(&self) -> &'static str;
    /// Transforms `m`; returns whether anything changed.
    fn run(&self, m: &mut Module) -> Result<bool, PassError>;
}

/// How [`PassManager::run`] runs its passes.
#[derive(Clone, Debug)]
pub struct PipelineOptions {
    /// Write the module as HLO text before the pipeline and after every pass
    /// that changed it, as `NNN.<module>.<pass>.hlo`.
    pub dump_dir: Option<PathBuf>,
    /// Verify the module after every pass (and the input before the first).
    pub verify_each: bool,
    /// Run the fusion pass (a pass named `fusion`); off skips it.
    pub fusion: bool,
    /// Most rounds of a fixed-point group.
    pub max_iterations: usize,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        PipelineOptions {
            dump_dir: None,
            verify_each: cfg!(debug_assertions),
            fusion: true,
            max_iterations: 16,
        }
    }
}

/// What a pipeline run did.
#[derive(Clone, Debug, Default)]
pub struct PipelineReport {
    /// Each pass run, in order, with its wall time.
    pub timings: Vec<(String, Duration)>,
    /// The names of the pass runs that changed the module, in order.
    pub changed: Vec<String>,
}

enum Stage {
    Single(Box<dyn Pass>),
    FixedPoint(Vec<Box<dyn Pass>>),
}

/// An ordered list of passes and fixed-point groups of passes.
#[derive(Default)]
pub struct PassManager {
    stages: Vec<Stage>,
}

impl PassManager {
    pub fn new() -> PassManager {
        PassManager::default()
    }
    /// Appends a pass that runs once.
    pub fn add(&mut self, pass: impl Pass + 'static) -> &mut Self {
        self.stages.push(Stage::Single(Box::new(pass)));
        self
    }
    /// Appends a boxed pass that runs once.
    pub fn add_boxed(&mut self, pass: Box<dyn Pass>) -> &mut Self {
        self.stages.push(Stage::Single(pass));
        self
    }
    /// Appends a group run in order, again and again, until a whole round
    /// changes nothing (at most `max_iterations` rounds).
    pub fn add_fixed_point(&mut self, passes: Vec<Box<dyn Pass>>) -> &mut Self {
        self.stages.push(Stage::FixedPoint(passes));
        self
    }
    /// The pass names in order (a fixed-point group as `[a,b]`).
    pub fn pass_names(&self) -> Vec<String> {
        self.stages
            .iter()
            .map(|s| match s {
                Stage::Single(p) => p.name().to_string(),
                Stage::FixedPoint(ps) => {
                    let n: Vec<&str> = ps.iter().map(|p| p.name()).collect();
                    format!("[{}]", n.join(","))
                }
            })
            .collect()
    }

    /// Runs every stage on `m`.
    pub fn run(&self, m: &mut Module, opts: &PipelineOptions) -> Result<PipelineReport, PassError> {
        let _span = tracing::info_span!("hlo_passes", module = %m.name).entered();
        let mut st = RunState {
            opts,
            seq: 0,
            report: PipelineReport::default(),
        };
        if opts.verify_each {
            verify_module(m).map_err(|error| PassError::InvalidInput {
                module: m.name.clone(),
                error,
            })?;
        }
        st.dump(m, "input")?;
        for stage in &self.stages {
            match stage {
                Stage::Single(p) => {
                    st.run_one(p.as_ref(), m)?;
                }
                Stage::FixedPoint(ps) => {
                    for _ in 0..opts.max_iterations.max(1) {
                        let mut changed = false;
                        for p in ps {
                            changed |= st.run_one(p.as_ref(), m)?;
                        }
                        if !changed {
                            break;
                        }
                    }
                }
            }
        }
        Ok(st.report)
    }
}

struct RunState<'a> {
    opts: &'a PipelineOptions,
    seq: usize,
    report: PipelineReport,
}

impl RunState<'_> {
    fn run_one(&mut self, p: &dyn Pass, m: &mut Module) -> Result<bool, PassError> {
        if p.name() == "fusion" && !self.opts.fusion {
            return Ok(false);
        }
        let t = Instant::now();
        let changed = p.run(m)?;
        let elapsed = t.elapsed();
        tracing::debug!(
            target: "hlox_passes",
            pass = p.name(),
            changed,
            ms = elapsed.as_micros() as f64 / 1e3,
            "pass"
        );
        self.report.timings.push((p.name().to_string(), elapsed));
        if changed {
            self.report.changed.push(p.name().to_string());
        }
        if self.opts.verify_each {
            verify_module(m).map_err(|error| PassError::Verify {
                pass: p.name().to_string(),
                module: m.name.clone(),
                error,
            })?;
        }
        if changed {
            self.dump(m, p.name())?;
        }
        Ok(changed)
    }

    fn dump(&mut self, m: &Module, what: &str) -> Result<(), PassError> {
        let Some(dir) = &self.opts.dump_dir else {
            return Ok(());
        };
        let safe = hlox_hlo::load::file_name_part(&m.name);
        let path = dir.join(format!("{:03}.{safe}.{what}.hlo", self.seq));
        self.seq += 1;
        std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&path, hlox_hlo::text::print_module(m)))
            .map_err(|source| PassError::Dump { path, source })
    }
}

/// The pipeline the Host backend runs: inline calls; XLA's bf16 excess
/// precision ([`ExcessPrecision`]); collectives to copies; custom-call
/// layouts; one-window scatters to dynamic-update-slices; then algebraic
/// simplification, transpose folding, constant folding, CSE and DCE to a
/// fixed point; jaxlib LAPACK calls whose vectors no one reads switched to
/// values only; then fusion (when [`PipelineOptions::fusion`]); then DCE.
/// CUDA's is the same without transpose folding ([`pipeline_for`]).
pub fn default_pipeline() -> PassManager {
    pipeline(hlox_eval::HalfRounding::default())
}

/// [`default_pipeline`] for the bf16 rounding policy `rounding`:
/// [`ExcessPrecision`] runs only under `HalfRounding::ExcessPrecision`.
pub fn pipeline(rounding: hlox_eval::HalfRounding) -> PassManager {
    pipeline_for(hlox_ffi::Platform::Host, rounding)
}

/// The pipeline for `platform` ([`default_pipeline`] for `rounding`):
/// [`TransposeFolding`] runs on the Host only (the Host's matrix products
/// read strided operands; CUDA's cuBLAS path wants them row-major with
/// leading batch dimensions).
pub fn pipeline_for(
    platform: hlox_ffi::Platform,
    rounding: hlox_eval::HalfRounding,
) -> PassManager {
    let mut pm = PassManager::new();
    pm.add(CallInliner);
    if rounding == hlox_eval::HalfRounding::ExcessPrecision {
        pm.add(ExcessPrecision);
    }
    pm.add(SingleDeviceCollectives);
    pm.add(BoundaryLayouts);
    pm.add(ScatterToUpdateSlice);
    let mut simplify: Vec<Box<dyn Pass>> = vec![
        Box::new(AlgebraicSimplifier::default()),
        Box::new(ConstantFolding::default()),
        Box::new(Cse),
        Box::new(Dce),
    ];
    if platform == hlox_ffi::Platform::Host {
        simplify.insert(1, Box::new(TransposeFolding));
    }
    pm.add_fixed_point(simplify);
    pm.add(LapackDeadOutputs);
    pm.add(Fusion::default());
    pm.add(Dce);
    pm
}

/// The passes code generation relies on, for a compiler that skips
/// [`default_pipeline`] (which includes them): collectives to copies, then
/// boundary layouts, run by a [`PassManager`] with the default options (so
/// verified after each pass in debug builds). True when the module changed.
pub fn run_codegen_prerequisites(m: &mut Module) -> Result<bool, PassError> {
    let mut pm = PassManager::new();
    pm.add(SingleDeviceCollectives);
    pm.add(BoundaryLayouts);
    let report = pm.run(m, &PipelineOptions::default())?;
    Ok(!report.changed.is_empty())
}

/// The pass called `name` with default settings (`dce`, `cse`, `algsimp`,
/// `constant-folding`, `inline`, `fusion`, `excess-precision`, ...), for
/// tools and filetests.
pub fn pass_by_name(name: &str) -> Option<Box<dyn Pass>> {
    Some(match name {
        "dce" => Box::new(Dce),
        "cse" => Box::new(Cse),
        "algsimp" => Box::new(AlgebraicSimplifier::default()),
        "constant-folding" => Box::new(ConstantFolding::default()),
        "inline" => Box::new(CallInliner),
        "fusion" => Box::new(Fusion::default()),
        "boundary-layouts" => Box::new(BoundaryLayouts),
        "single-device-collectives" => Box::new(SingleDeviceCollectives),
        "excess-precision" => Box::new(ExcessPrecision),
        "scatter-to-update-slice" => Box::new(ScatterToUpdateSlice),
        "lapack-dead-outputs" => Box::new(LapackDeadOutputs),
        "transpose-folding" => Box::new(TransposeFolding),
        _ => return None,
    })
}
