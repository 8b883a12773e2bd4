//! hlox's Host backend: HLO compiled through LLVM 19 to native code.
//!
//! Pipeline of [`compile`] (XLA:CPU's design):
//! 1. the front half every backend shares ([`hlox_passes::frontend`]):
//!    verify, HLO passes, verify again, bind every custom-call target for
//!    the Host platform (a compile error names every problem); this
//!    crate's [`HostCompiler`] is the back half, steps 2-5, and takes the
//!    front half's [`VerifiedModule`];
//! 2. buffer assignment per sequentially executed computation
//!    ([`buffers`]): parameters are read in place and never written, tuples
//!    are pointer tables, temporaries share one arena per run by liveness,
//!    root leaves are computed straight into the caller's output buffers;
//! 3. LLVM IR generation ([`emit`]) with the elemental emitter of
//!    `hlox-codegen`: element-wise ops, data movement, reduces, maps and
//!    fusions become outlined loop nests (parallelized with rayon when
//!    large); while/conditional/call are real control flow; custom calls are
//!    direct calls of the bound target's address with XLA's Host convention;
//!    heavy ops (dot, convolution, sort, gather, scatter, ...) are runtime
//!    kernels ([`kernels`]);
//! 4. optimization with LLVM's new pass manager (`hlox_codegen::HOST_PASSES`) for the host
//!    CPU (its name and features are set on every function) and code
//!    generation to an object file; a large module is split into parts
//!    compiled on several threads ([`split`]);
//! 5. linking: ORC's LLJIT links the object files in-process
//!    (`cache::ObjectJit`, the loader a cache hit uses too); the executable
//!    keeps them alive and calls the entry function through its address.

mod buffers;
pub mod cache;
pub mod collectives;
mod emit;
pub mod kernels;
mod runtime;
mod schedule;
mod split;

use hlox_ffi::{BoundTargets, Platform};
use hlox_hlo::verifier::VerifiedModule;
use hlox_hlo::{ArrayLiteral, ArrayShape, CompId, Literal, Module, Shape};
use hlox_passes::frontend::{dump, Lowered};
use inkwell::context::Context;
use inkwell::targets::{FileType, InitializationConfig, Target, TargetMachine};
use inkwell::OptimizationLevel;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a run may be stopped (shared with the evaluator).
pub use hlox_hlo::cancel::{CancelToken, ExecuteOptions, Stop};
/// Every backend's options and errors (one type each, shared with
/// `hlox-cuda`); the Host reads `parallel_threshold` and ignores the
/// CUDA-only fields.
pub use hlox_passes::frontend::{ArgumentError, CompileError, CompileOptions, Compiler};

/// Errors of [`Executable::execute`] and [`Executable::execute_into`].
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error(transparent)]
    Arguments(#[from] ArgumentError),
    #[error("output buffers: {0}")]
    Output(String),
    #[error("execution failed: {0}")]
    Runtime(String),
    /// A custom-call target reported failure; the executable stays usable.
    #[error("execution failed: custom call {instruction} (target \"{target}\") failed: {message}")]
    CustomCall {
        instruction: String,
        target: String,
        message: String,
    },
    /// The run was stopped through its [`ExecuteOptions`] (a cancelled
    /// token or a passed timeout).
    #[error("execution of `{module}` {stop}")]
    Stopped {
        module: String,
        stop: hlox_hlo::cancel::Stop,
    },
    /// A result leaf the generated code filled does not make a literal of
    /// the result's shape (a bug in hlox).
    #[error("execution failed: result of `{module}`: {source}")]
    Result {
        module: String,
        source: hlox_hlo::literal::LiteralError,
    },
}

/// Per-phase compile timings.
#[derive(Clone, Debug, Default)]
pub struct CompileReport {
    pub verify: Duration,
    /// Each HLO pass run, in order, with its time.
    pub passes: Vec<(String, Duration)>,
    pub bind: Duration,
    pub buffer_assignment: Duration,
    pub ir_generation: Duration,
    /// LLVM's optimization; with code generation split into parts (see
    /// `codegen_parts`), the longest of the parts'.
    pub optimization: Duration,
    /// Code generation and linking; when split, the rest of the wall time
    /// of the parts' compiles (after the longest optimization) and the
    /// linking.
    pub jit: Duration,
    pub total: Duration,
    /// The LLVM modules the code was compiled in, on as many threads:
    /// more than 1 when a large module was split (`split`), 1 otherwise,
    /// 0 on a cache hit.
    pub codegen_parts: usize,
    /// Bytes of the temporary arena of one run.
    pub arena_bytes: usize,
    pub llvm_functions: usize,
    /// Values that row-fused loops compute once per row (softmax's max and
    /// sum, layernorm's mean and variance).
    pub row_hoisted: usize,
    /// Reductions that row-fused loops recompute for every element: 0
    /// unless the fusion pass formed a row fusion the emitter cannot hoist
    /// (correct results, quadratic cost).
    pub per_element_reductions: usize,
    /// Expensive per-element values of row fusions computed once per row
    /// into a scratch row (softmax's `exp(x - max)`), not once for a row
    /// reduction and again for the output.
    pub row_shared: usize,
    /// Reductions keeping the minor dimension, emitted reduced-index-outer
    /// so the operand is read once, contiguously.
    pub column_reductions: usize,
    /// Of those, the ones split across threads by rows (each thread reduces
    /// a band of rows; partial results are combined in order).
    pub column_reductions_split_rows: usize,
    /// Where the code came from when the compilation cache had it
    /// ([`cache`]); `None` when it was compiled (a miss, or no cache). On a
    /// hit, `jit` is the time taken to load the cached object and
    /// `ir_generation` and `optimization` are zero.
    pub cache_hit: Option<cache::Hit>,
}

type EntryFn = unsafe extern "C" fn(*const u8, *const *const u8, *const *mut u8, *mut u8) -> i32;

/// A compiled module, runnable from many threads at once.
pub struct Executable {
    entry: EntryFn,
    arena_size: usize,
    params: Vec<Shape>,
    param_names: Vec<String>,
    result: Shape,
    call_sites: Vec<runtime::CallSite>,
    kernels: Vec<(String, Box<dyn kernels::HostKernel>)>,
    report: CompileReport,
    name: String,
    /// Where the frames of the direct typed-FFI calls lie in a run's
    /// frame arena.
    ffi_frames: hlox_ffi::xla_ffi::direct::FrameLayout,
    /// Arenas of finished runs, reused by later runs (no page faults on
    /// fresh memory, call frames written once); one is taken per
    /// concurrent run.
    arenas: Mutex<Vec<RunArena>>,
    /// Every byte of the result is written by hlox's own code (the module
    /// has no custom calls, whose targets might leave an output short), so
    /// `execute` hands the run uninitialized result buffers instead of
    /// zeroed ones.
    results_written: bool,
    /// Whether a run may start parallel work ([`may_run_parallel`]), so it
    /// runs on the run pool.
    parallel: bool,
    /// `CompileOptions::profile`: each profiled instruction (name, opcode,
    /// result shape) and its counters.
    profile: Option<Profiled>,
    _bound: BoundTargets,
    _code: Code,
}

/// The loaded machine code an executable calls into, kept alive with it:
/// object files linked by ORC (one per part of a split compile, one for a
/// cache entry), and the address table a relocatable object's code reads
/// (empty for code compiled in this process).
struct Code {
    _jit: cache::ObjectJit,
    _table: Box<[u64]>,
}

/// A profiled executable's instructions (name, opcode, result shape) and
/// their counters (`CompileOptions::profile`).
type Profiled = (Vec<(String, String, String)>, runtime::ProfileCounters);

/// One instruction's share of the runs profiled so far
/// ([`Executable::profile`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileEntry {
    /// The instruction's name in the optimized module; products run side
    /// by side share one entry, their names joined by ` & `.
    pub instruction: String,
    /// Its opcode (a fusion's kind is in the optimized module's text).
    pub opcode: String,
    /// Its result shape (the first product's in a shared entry).
    pub shape: String,
    /// Time in it over every profiled run, in nanoseconds.
    pub total_ns: u64,
    /// How many times it ran.
    pub count: u64,
}

/// What one run of an [`Executable`] works in, kept for later runs.
struct RunArena {
    /// The temporary buffers (`arena_size` bytes from an aligned start).
    buffers: Vec<u8>,
    /// The call frames of the direct typed-FFI calls, made by the first
    /// run that needs them (`None` in an executable without any).
    frames: Option<hlox_ffi::xla_ffi::direct::FrameArena>,
}

/// A relocatable object file of a module's optimized LLVM code (see
/// [`compile_to_object`]).
#[derive(Clone, Debug)]
pub struct ObjectCode {
    /// The object file (ELF on Linux), as LLVM writes it.
    pub bytes: Vec<u8>,
    /// The symbol of the entry computation's function, with the C signature
    /// `i32 (const u8* run_options, const u8* const* params, u8* const* outputs, u8* arena)`.
    /// `run_options` starts with a pointer to a 32-bit stop flag, read at
    /// every while loop's back-edge: the run fails (returns 1) once it is
    /// not 0.
    pub entry_symbol: String,
    /// Bytes of the temporary arena the entry function needs.
    pub arena_bytes: usize,
}

/// The Host back half: buffer assignment, LLVM IR, optimization, and a JIT
/// [`Executable`] (or, with `object`, an [`ObjectCode`]).
///
/// ```no_run
/// use hlox_cpu::{Compiler, HostCompiler};
/// # let module: hlox_hlo::Module = todo!();
/// let exe = HostCompiler::default()
///     .compile(&module, &hlox_cpu::CompileOptions::default())?
///     .into_executable()?;
/// # Ok::<(), hlox_cpu::CompileError>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct HostCompiler {
    /// Stop after LLVM optimization and write an object file instead of
    /// loading the code in-process (see [`compile_to_object`]).
    pub object: bool,
}

/// What [`HostCompiler`] builds.
pub enum HostOutput {
    Executable(Box<Executable>),
    Object(ObjectCode),
}

impl HostOutput {
    /// The executable ([`HostCompiler::object`] off).
    pub fn into_executable(self) -> Result<Executable, CompileError> {
        match self {
            HostOutput::Executable(e) => Ok(*e),
            HostOutput::Object(_) => Err(CompileError::Internal("asked for an executable".into())),
        }
    }

    /// The object file ([`HostCompiler::object`] on).
    pub fn into_object(self) -> Result<ObjectCode, CompileError> {
        match self {
            HostOutput::Object(o) => Ok(o),
            HostOutput::Executable(_) => {
                Err(CompileError::Internal("asked for an object file".into()))
            }
        }
    }
}

impl Compiler for HostCompiler {
    type Output = HostOutput;
    const PLATFORM: Platform = Platform::Host;
    fn compile_lowered(
        &self,
        lowered: Lowered,
        options: &CompileOptions,
    ) -> Result<HostOutput, CompileError> {
        back_half(lowered, options, self.object)
    }
}

/// Compile `module` for the host ([`HostCompiler`]).
pub fn compile(module: &Module, options: &CompileOptions) -> Result<Executable, CompileError> {
    HostCompiler::default()
        .compile(module, options)?
        .into_executable()
}

/// Compiles `module` for the host like [`compile`] (same passes, buffer
/// assignment, code generation and LLVM optimization, same dumps) but,
/// instead of loading the code in-process, writes the optimized LLVM module
/// as a relocatable object file (position-independent code).
///
/// The object is for inspection (`objdump -d`, `nm`, `readelf`) and for
/// comparing code generation: custom-call targets and runtime helpers are
/// called through their addresses in *this* process, which are baked into
/// the code as constants, so the object cannot be linked into another
/// program and run.
pub fn compile_to_object(
    module: &Module,
    options: &CompileOptions,
) -> Result<ObjectCode, CompileError> {
    HostCompiler { object: true }
        .compile(module, options)?
        .into_object()
}

/// Milliseconds, to the microsecond (for log lines).
fn ms(d: Duration) -> f64 {
    d.as_micros() as f64 / 1e3
}

fn back_half(
    lowered: Lowered,
    options: &CompileOptions,
    object: bool,
) -> Result<HostOutput, CompileError> {
    let t0 = Instant::now();
    let Lowered {
        module: verified,
        bound,
        report: front,
    } = lowered;
    let front_total = front.total;
    let module: &VerifiedModule = &verified;
    let mut report = CompileReport {
        verify: front.verify,
        passes: front.passes,
        bind: front.bind,
        ..Default::default()
    };
    let dump_dir = options.dump_dir.as_deref();
    let threads = rayon::current_num_threads();
    // The compilation cache: a hit loads the cached object and skips
    // everything below; a miss compiles relocatable code and stores it.
    let cache = (!object)
        .then(|| cache::Cache::for_options(options))
        .flatten();
    let key = cache
        .as_ref()
        .map(|_| cache::key(module, &bound, options, threads));
    if let (Some(c), Some(k)) = (&cache, &key) {
        let key_ms = ms(t0.elapsed());
        let found = c.lookup(k);
        tracing::debug!(
            key_ms,
            lookup_ms = ms(t0.elapsed()) - key_ms,
            found = found.is_some(),
            "compilation cache"
        );
        if let Some((entry, hit)) = found {
            let t = Instant::now();
            match load_object(module, &bound, &entry, None) {
                Ok(loaded) => {
                    report.jit = t.elapsed();
                    report.cache_hit = Some(hit);
                    report.arena_bytes = entry.meta.arena_bytes as usize;
                    let [f, rh, pe, rs, cr, crs] = entry.meta.counters.map(|c| c as usize);
                    report.llvm_functions = f;
                    report.row_hoisted = rh;
                    report.per_element_reductions = pe;
                    report.row_shared = rs;
                    report.column_reductions = cr;
                    report.column_reductions_split_rows = crs;
                    report.total = front_total + t0.elapsed();
                    tracing::info!(
                        ms = ms(report.total),
                        hit = ?hit,
                        "compiled (from the compilation cache)"
                    );
                    return Ok(HostOutput::Executable(Box::new(executable(
                        module, bound, report, loaded, None,
                    ))));
                }
                Err(message) => {
                    tracing::warn!(
                        "{}; compiling again",
                        cache::CacheError::Load {
                            path: c.path_of(k),
                            message
                        }
                    );
                    c.forget(k);
                }
            }
        }
    }
    let t = Instant::now();
    let comps = emit::sequential_computations(module);
    let mut assignments: HashMap<CompId, buffers::Assignment> = HashMap::new();
    let mut base = 0;
    let mut listing = String::new();
    for &c in &comps {
        let mut a = buffers::assign(module, c, threads);
        a.base = base;
        base += a.size;
        buffers::describe(module, c, &a, &mut listing);
        assignments.insert(c, a);
    }
    report.arena_bytes = base;
    report.buffer_assignment = t.elapsed();
    tracing::debug!(
        ms = ms(report.buffer_assignment),
        computations = comps.len(),
        arena_bytes = base,
        "buffer assignment"
    );
    dump(dump_dir, "buffer-assignment.txt", || &listing)?;

    // LLVM module generation.
    let t = Instant::now();
    Target::initialize_native(&InitializationConfig::default()).map_err(CompileError::Llvm)?;
    hlox_codegen::init_llvm_options();
    let (cpu, features) = cache::host_cpu().clone();
    let triple = TargetMachine::get_default_triple();
    let level = match options.opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    // One target machine for optimization and code generation: position-
    // independent code in the default code model, as ORC links it and a
    // relocatable object (a cache entry, `compile_to_object`) expects.
    let machine = split::Machine {
        triple: triple.as_str().to_string_lossy().into_owned(),
        cpu: cpu.clone(),
        features: features.clone(),
        level,
    };
    let tm = machine.target_machine().map_err(CompileError::Llvm)?;
    let ctx_box = Box::new(Context::create());
    // SAFETY: `ctx_box` is declared before everything made in the context
    // (module, builder, emitter), so it is dropped after them.
    let ctx: &'static Context = unsafe { &*(ctx_box.as_ref() as *const Context) };
    let llmod = ctx.create_module(&module.name);
    llmod.set_triple(&triple);
    llmod.set_data_layout(&tm.get_target_data().get_data_layout());
    let builder = ctx.create_builder();
    let math = hlox_codegen::HostMath {
        erff: Some(runtime::hlox_rt_erff as *const () as usize),
        erf: Some(runtime::hlox_rt_erf as *const () as usize),
        powf: Some(runtime::hlox_rt_powf as *const () as usize),
        pow: Some(runtime::hlox_rt_pow as *const () as usize),
    };
    let table = cache
        .is_some()
        .then(|| hlox_codegen::AddressTable::declare(ctx, &llmod));
    let cg = hlox_codegen::Cg {
        ctx,
        module: &llmod,
        b: &builder,
        addresses: table.as_ref(),
        math: &math,
        helpers: hlox_codegen::ConvertHelpers {
            f64_to_f16: runtime::hlox_rt_f64_to_f16 as *const () as usize,
            f64_to_bf16: runtime::hlox_rt_f64_to_bf16 as *const () as usize,
            complex_c64: runtime::hlox_rt_complex_c64 as *const () as usize,
            complex_c128: runtime::hlox_rt_complex_c128 as *const () as usize,
        },
    };
    let mut em = emit::Emitter::new(
        cg,
        module,
        &assignments,
        &bound,
        cpu.clone(),
        features.clone(),
        options.parallel_threshold.max(1),
        threads,
    );
    em.sandbox = options.sandbox.clone();
    if options.profile {
        em.profiled = Some(Vec::new());
    }
    em.relocatable = table.is_some();
    em.declare(&comps);
    for &c in &comps {
        em.define(c)?;
    }
    let entry_name = em.fn_name(module.entry);
    report.row_hoisted = em.row_hoisted;
    report.per_element_reductions = em.per_element_reductions;
    report.row_shared = em.row_shared;
    report.column_reductions = em.column_reductions;
    report.column_reductions_split_rows = em.column_reductions_split_rows;
    let profile = em.profiled.take().map(|steps| {
        let comp = module.entry_computation();
        let names: Vec<(String, String, String)> = steps
            .iter()
            .map(|ids| {
                let i = comp.inst(ids[0]);
                let mut name = i.name.clone();
                for &other in &ids[1..] {
                    name = format!("{name} & {}", comp.inst(other).name);
                }
                (name, i.op.name().to_string(), i.shape.to_string())
            })
            .collect();
        let counters = runtime::ProfileCounters::new(names.len());
        (names, counters)
    });
    let call_sites = std::mem::take(&mut em.call_sites);
    let ffi_frames = std::mem::take(&mut em.ffi_frames);
    let pending_kernels = std::mem::take(&mut em.kernels);
    let target_addrs = std::mem::take(&mut em.target_addrs);
    let ffi_slots = std::mem::take(&mut em.ffi_slots);
    drop(em);
    report.ir_generation = t.elapsed();
    tracing::debug!(
        ms = ms(report.ir_generation),
        cpu = %cpu,
        "LLVM IR generation"
    );
    // The module's text, for the dumps before and after optimization.
    let llvm_ir = || llmod.print_to_string().to_string();
    dump(dump_dir, "module.ll", llvm_ir)?;
    llmod
        .verify()
        .map_err(|e| CompileError::Internal(format!("generated LLVM IR does not verify: {e}")))?;

    let passes = hlox_codegen::host_passes(options.opt_level);
    // Code generation split over threads (`split`): not for a dump (one
    // module, one listing), a cache entry or an object file (one object).
    let groups = if dump_dir.is_none() && !object && cache.is_none() {
        split::partition(&llmod, threads)
    } else {
        Vec::new()
    };
    // The object files, and when code generation and linking began (less
    // the longest optimization of a split compile, which overlapped it).
    let (objects, jit_start, jit_overlap) = if groups.len() > 1 {
        let t = Instant::now();
        report.llvm_functions = llmod.get_functions().count();
        let bitcodes = split::split(&llmod, &groups).map_err(CompileError::Internal)?;
        let split_time = t.elapsed();
        let (objects, times) = split::compile_parts(&llmod, &tm, &bitcodes, &machine, &passes)
            .map_err(CompileError::Llvm)?;
        report.optimization = times.optimization;
        report.codegen_parts = groups.len();
        tracing::debug!(
            parts = groups.len(),
            split_ms = ms(split_time),
            optimization_ms = ms(times.optimization),
            codegen_ms = ms(times.codegen),
            "LLVM optimization and code generation, split"
        );
        (objects, t, times.optimization)
    } else {
        let t = Instant::now();
        report.codegen_parts = 1;
        llmod
            .run_passes(&passes, &tm, inkwell::passes::PassBuilderOptions::create())
            .map_err(|e| CompileError::Llvm(e.to_string()))?;
        report.optimization = t.elapsed();
        tracing::debug!(
            ms = ms(report.optimization),
            passes = %passes,
            "LLVM optimization"
        );
        dump(dump_dir, "module.opt.ll", llvm_ir)?;
        if dump_dir.is_some() {
            let asm = tm
                .write_to_memory_buffer(&llmod, FileType::Assembly)
                .map_err(|e| CompileError::Llvm(e.to_string()))?;
            dump(dump_dir, "module.s", || {
                String::from_utf8_lossy(asm.as_slice())
            })?;
        }
        report.llvm_functions = llmod.get_functions().count();
        let pic_object = |llmod: &inkwell::module::Module<'_>| {
            tm.write_to_memory_buffer(llmod, FileType::Object)
                .map_err(|e| CompileError::Llvm(e.to_string()))
        };
        if let (Some(c), Some(k), Some(table)) = (&cache, key, &table) {
            // Relocatable code: write the object, store it with what the
            // executable needs, and load it as a hit would.
            let t = Instant::now();
            let buf = pic_object(&llmod)?;
            let slots = cache::name_slots(&table.slots(), &target_addrs, &ffi_slots)
                .map_err(|m| CompileError::Internal(format!("compilation cache: {m}")))?;
            let index = |(c, i): (CompId, hlox_hlo::InstId)| {
                use hlox_hlo::EntityRef;
                (c.index() as u32, i.index() as u32)
            };
            let entry = std::sync::Arc::new(cache::Entry {
                key: k,
                meta: cache::Meta {
                    entry: entry_name,
                    arena_bytes: base as u64,
                    counters: [
                        report.llvm_functions,
                        report.row_hoisted,
                        report.per_element_reductions,
                        report.row_shared,
                        report.column_reductions,
                        report.column_reductions_split_rows,
                    ]
                    .map(|c| c as u64),
                    slots,
                    sites: call_sites.iter().map(|s| index(s.at)).collect(),
                    kernels: pending_kernels
                        .iter()
                        .map(|(c, i, names)| {
                            let (c, i) = index((*c, *i));
                            (c, i, names.clone())
                        })
                        .collect(),
                },
                object: buf.as_slice().to_vec(),
            });
            drop(llmod);
            c.store(entry.clone());
            let loaded = load_object(module, &bound, &entry, Some(call_sites))
                .map_err(|m| CompileError::Llvm(format!("loading the compiled object: {m}")))?;
            report.jit = t.elapsed();
            report.total = front_total + t0.elapsed();
            tracing::info!(
                ms = ms(report.total),
                llvm_functions = report.llvm_functions,
                "compiled (stored in the compilation cache)"
            );
            return Ok(HostOutput::Executable(Box::new(executable(
                module, bound, report, loaded, profile,
            ))));
        }
        if object {
            let t = Instant::now();
            let buf = pic_object(&llmod)?;
            let bytes = buf.as_slice().to_vec();
            tracing::debug!(ms = ms(t.elapsed()), bytes = bytes.len(), "object file");
            return Ok(HostOutput::Object(ObjectCode {
                bytes,
                entry_symbol: entry_name,
                arena_bytes: base,
            }));
        }

        let t = Instant::now();
        let buf = pic_object(&llmod)?;
        (vec![buf.as_slice().to_vec()], t, Duration::ZERO)
    };
    drop(llmod);
    let objects: Vec<&[u8]> = objects.iter().map(|o| o.as_slice()).collect();
    let loaded = link(
        module,
        &objects,
        &entry_name,
        &pending_kernels,
        call_sites,
        ffi_frames,
    )?;
    report.jit = jit_start.elapsed().saturating_sub(jit_overlap);
    report.total = front_total + t0.elapsed();
    tracing::debug!(ms = ms(report.jit), kernels = loaded.kernels.len(), "JIT");
    tracing::info!(
        ms = ms(report.total),
        llvm_functions = report.llvm_functions,
        parts = report.codegen_parts,
        "compiled"
    );
    Ok(HostOutput::Executable(Box::new(executable(
        module, bound, report, loaded, profile,
    ))))
}

/// Links the object files of a compile made in this process (its code not
/// relocatable: helpers' addresses are constants in it) and finds its
/// entry function and runtime kernels.
fn link(
    module: &VerifiedModule,
    objects: &[&[u8]],
    entry_name: &str,
    pending_kernels: &PendingKernels,
    call_sites: Vec<runtime::CallSite>,
    ffi_frames: hlox_ffi::xla_ffi::direct::FrameLayout,
) -> Result<Loaded, CompileError> {
    let jit = cache::ObjectJit::load(objects, None)
        .map_err(|m| CompileError::Llvm(format!("linking the compiled code: {m}")))?;
    let entry = jit
        .lookup(entry_name)
        .map_err(|e| CompileError::Llvm(format!("entry function: {e}")))?;
    // Runtime kernels, now that their compiled callees have addresses.
    let kernels = make_kernels(module, pending_kernels, |n| jit.lookup(n))?;
    Ok(Loaded {
        entry,
        call_sites,
        ffi_frames,
        kernels,
        code: Code {
            _jit: jit,
            _table: Box::new([]),
        },
    })
}

/// The runtime kernels of an executable, by instruction name.
type Kernels = Vec<(String, Box<dyn kernels::HostKernel>)>;

/// Kernels to build once the code is loaded: (computation, instruction,
/// the symbols of their compiled scalar callees).
type PendingKernels = [(CompId, hlox_hlo::InstId, Vec<String>)];

/// The runtime kernels of `pending`, their callees found by `lookup`.
fn make_kernels(
    module: &VerifiedModule,
    pending: &PendingKernels,
    lookup: impl Fn(&str) -> Result<usize, String>,
) -> Result<Kernels, CompileError> {
    let mut kernels: Kernels = Vec::new();
    for (cid, id, callee_names) in pending {
        let comp = module.comp(*cid);
        let name = comp.inst(*id).name.clone();
        let mut callees: Vec<kernels::ScalarFn> = Vec::new();
        for n in callee_names {
            let a = lookup(n).map_err(|e| CompileError::Llvm(format!("{n}: {e}")))?;
            // SAFETY: `n` is a function the emitter compiled with the
            // `ScalarFn` signature (`Emitter::scalar_fn`).
            callees.push(unsafe { std::mem::transmute::<usize, kernels::ScalarFn>(a) });
        }
        let k = kernels::make_kernel(module, comp, *id, &callees)
            .map_err(|e| CompileError::Unsupported {
                inst: name.clone(),
                message: e.to_string(),
            })?
            .ok_or_else(|| CompileError::Unsupported {
                inst: name.clone(),
                message: "no runtime kernel for this opcode".into(),
            })?;
        kernels.push((name, k));
    }
    Ok(kernels)
}

/// Loaded code and what the executable builds around it.
struct Loaded {
    /// The entry function's address.
    entry: usize,
    call_sites: Vec<runtime::CallSite>,
    /// Where the direct typed-FFI calls' frames lie in a run's frame arena.
    ffi_frames: hlox_ffi::xla_ffi::direct::FrameLayout,
    kernels: Kernels,
    code: Code,
}

/// Loads a relocatable object of `module` (a cache entry): fills its
/// address table from this process's helpers and bound targets, links it
/// with ORC, prepares the call sites again (unless the compile that just
/// made the object gives its own, `sites`: a typed-FFI call's instantiate
/// stage runs once per compile) and builds the kernels.
fn load_object(
    module: &VerifiedModule,
    bound: &BoundTargets,
    entry: &cache::Entry,
    sites: Option<Vec<runtime::CallSite>>,
) -> Result<Loaded, String> {
    let meta = &entry.meta;
    let t = Instant::now();
    Target::initialize_native(&InitializationConfig::default())?;
    let call_sites = match sites {
        Some(s) => s,
        None => cache::prepare_sites(module, bound, meta)?,
    };
    let table: Box<[u64]> = cache::resolve_slots(meta, bound, &call_sites)?.into_boxed_slice();
    let ffi_frames = cache::frame_layout(meta, &call_sites)?;
    let mut pending = Vec::with_capacity(meta.kernels.len());
    for (c, i, names) in &meta.kernels {
        let (c, i) = cache::instruction(module, *c, *i)?;
        pending.push((c, i, names.clone()));
    }
    let prepared = t.elapsed();
    let jit = cache::ObjectJit::load(&[entry.object.as_slice()], Some(table.as_ptr()))?;
    let added = t.elapsed();
    let addr = jit.lookup(&meta.entry)?;
    let linked = t.elapsed();
    let kernels = make_kernels(module, &pending, |n| jit.lookup(n)).map_err(|e| e.to_string())?;
    tracing::debug!(
        sites_ms = ms(prepared),
        add_object_ms = ms(added - prepared),
        link_ms = ms(linked - added),
        kernels_ms = ms(t.elapsed() - linked),
        "loaded a relocatable object"
    );
    Ok(Loaded {
        entry: addr,
        call_sites,
        ffi_frames,
        kernels,
        code: Code {
            _jit: jit,
            _table: table,
        },
    })
}

/// The executable around loaded code.
fn executable(
    module: &VerifiedModule,
    bound: BoundTargets,
    report: CompileReport,
    loaded: Loaded,
    profile: Option<Profiled>,
) -> Executable {
    // SAFETY: the address of the entry function, compiled with `EntryFn`'s
    // signature (`Emitter::declare`).
    let entry: EntryFn = unsafe { std::mem::transmute::<usize, EntryFn>(loaded.entry) };
    let ps = module.entry_computation().program_shape();
    Executable {
        entry,
        arena_size: report.arena_bytes,
        params: ps.parameters,
        param_names: ps.parameter_names,
        result: ps.result,
        call_sites: loaded.call_sites,
        kernels: loaded.kernels,
        report,
        name: module.name.clone(),
        ffi_frames: loaded.ffi_frames,
        arenas: Mutex::new(Vec::new()),
        parallel: may_run_parallel(module),
        results_written: !module.computations.values().any(|c| {
            c.instructions
                .values()
                .any(|i| matches!(i.op, hlox_hlo::Op::CustomCall(_)))
        }),
        profile,
        _bound: bound,
        _code: loaded.code,
    }
}

/// Whether a run may start a parallel loop or kernel: some instruction
/// touches at least [`hlox_cpu_runtime::PARALLEL_WORK`] elements (a dot or
/// a convolution counts its multiply-adds). Only such a run moves onto the
/// run pool (`hlox_cpu_runtime::pool`): for one without parallel work the
/// move is two thread wake-ups for nothing (a module of one small custom
/// call: 1 us a run on the caller's thread, 25 us through the pool).
fn may_run_parallel(module: &Module) -> bool {
    let elements = |s: &Shape| -> usize {
        s.leaves()
            .iter()
            .filter_map(|(_, l)| l.as_array())
            .map(|a| a.element_count())
            .sum()
    };
    module.computations.values().any(|c| {
        c.instructions.values().any(|i| {
            let out = elements(&i.shape);
            let operand = |k: usize| i.operands.get(k).map_or(0, |&o| elements(&c.inst(o).shape));
            let work = match &i.op {
                hlox_hlo::Op::Dot { dnums, .. } => {
                    let lhs = i.operands.first().and_then(|&o| c.inst(o).shape.as_array());
                    let k: usize = lhs.map_or(1, |l| {
                        dnums
                            .lhs_contracting_dims
                            .iter()
                            .filter_map(|&d| l.dims.get(d as usize))
                            .map(|&n| n.max(0) as usize)
                            .product()
                    });
                    out.saturating_mul(k)
                }
                hlox_hlo::Op::Convolution(_) => out.saturating_mul(operand(1)),
                _ => (0..i.operands.len()).map(operand).fold(out, usize::max),
            };
            work >= hlox_cpu_runtime::PARALLEL_WORK
        })
    })
}

fn leaf_arrays(s: &Shape) -> Vec<Option<ArrayShape>> {
    s.leaves()
        .into_iter()
        .map(|(_, l)| l.as_array().cloned())
        .collect()
}

impl Executable {
    pub fn report(&self) -> &CompileReport {
        &self.report
    }
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn parameter_shapes(&self) -> &[Shape] {
        &self.params
    }
    pub fn result_shape(&self) -> &Shape {
        &self.result
    }

    /// Time per instruction of the entry computation over every run so far,
    /// in the order they run; `None` unless compiled with
    /// `CompileOptions::profile`. An instruction of a run that failed may
    /// be missing its last interval.
    pub fn profile(&self) -> Option<Vec<ProfileEntry>> {
        use std::sync::atomic::Ordering::Relaxed;
        let (names, c) = self.profile.as_ref()?;
        Some(
            names
                .iter()
                .enumerate()
                .map(|(k, (instruction, opcode, shape))| ProfileEntry {
                    instruction: instruction.clone(),
                    opcode: opcode.clone(),
                    shape: shape.clone(),
                    total_ns: c.ns.get(k).map_or(0, |x| x.load(Relaxed)),
                    count: c.count.get(k).map_or(0, |x| x.load(Relaxed)),
                })
                .collect(),
        )
    }

    /// Sets every profile counter back to zero (after warm-up runs).
    pub fn reset_profile(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        if let Some((_, c)) = &self.profile {
            c.ns.iter()
                .chain(&c.count)
                .for_each(|x| x.store(0, Relaxed));
        }
    }

    unsafe fn run(
        &self,
        params: &[*const u8],
        outs: &[*mut u8],
        options: &ExecuteOptions,
    ) -> Result<(), ExecError> {
        let watch = options.start();
        let pooled = self.arenas.lock().ok().and_then(|mut v| v.pop());
        let mut arena = match pooled {
            Some(a) => a,
            None => {
                hlox_hlo::literal::retain_freed_memory();
                RunArena {
                    buffers: hlox_hlo::literal::try_zeroed(self.arena_size + buffers::ALIGN)
                        .map_err(|e| {
                            ExecError::Runtime(format!("temporary buffers of {}: {e}", self.name))
                        })?,
                    frames: None,
                }
            }
        };
        let off = arena.buffers.as_ptr().align_offset(buffers::ALIGN);
        let base = arena.buffers.as_mut_ptr().add(off);
        let run_id = hlox_ffi::xla_ffi::InvokeContext::next_run_id();
        if arena.frames.is_none() && self.ffi_frames.calls() > 0 {
            let frames = hlox_ffi::xla_ffi::direct::FrameArena::new(&self.ffi_frames, run_id)
                .map_err(|e| ExecError::Runtime(format!("{}: {e}", self.name)))?;
            arena.frames = Some(frames);
        }
        let (frames, invoke) = match arena.frames.as_mut() {
            Some(f) => {
                f.start_run(run_id);
                (f.base(), f.invoke())
            }
            None => (std::ptr::null_mut(), std::ptr::null()),
        };
        let ctx = runtime::RunCtx {
            stop: watch.flag(),
            call_sites: &self.call_sites,
            kernels: &self.kernels,
            error: Mutex::new(None),
            run_id,
            frames,
            invoke,
            profile: self.profile.as_ref().map(|(_, c)| c),
            profile_open: Mutex::new(None),
        };
        /// The entry call's arguments, sent to the run pool's worker.
        struct Go(
            *const u8,
            *const *const u8,
            *const *mut u8,
            *mut u8,
            EntryFn,
        );
        // SAFETY: the run context, parameter and output tables and the
        // arena outlive the call, and the caller waits for it to return.
        unsafe impl Send for Go {}
        impl Go {
            /// Flush-to-zero is set on the thread that runs the code.
            unsafe fn go(self) -> i32 {
                let _fp = runtime::FpEnv::flush_denormals();
                (self.4)(self.0, self.1, self.2, self.3)
            }
        }
        let go = Go(
            &ctx as *const runtime::RunCtx as *const u8,
            params.as_ptr(),
            outs.as_ptr(),
            base,
            self.entry,
        );
        // SAFETY: the pointers stay valid until the run returns; see
        // `hlox_cpu_runtime::pool` for why the run moves onto a worker.
        let rc = if self.parallel {
            hlox_cpu_runtime::pool::on_run_pool(move || unsafe { go.go() })
        } else {
            go.go()
        };
        if let Ok(mut v) = self.arenas.lock() {
            if v.len() < 4 {
                v.push(arena);
            }
        }
        if rc != 0 {
            let msg = ctx.error.lock().ok().and_then(|mut e| e.take());
            if let (None, Some(stop)) = (&msg, watch.stopped()) {
                return Err(ExecError::Stopped {
                    module: self.name.clone(),
                    stop,
                });
            }
            return Err(match msg {
                Some(runtime::RunFailure::CustomCall {
                    instruction,
                    target,
                    message,
                }) => ExecError::CustomCall {
                    instruction,
                    target,
                    message,
                },
                Some(runtime::RunFailure::Other(m)) => ExecError::Runtime(m),
                None => ExecError::Runtime("unknown failure".into()),
            });
        }
        Ok(())
    }

    /// Run on literals; returns the result literal.
    pub fn execute(&self, args: &[&Literal]) -> Result<Literal, ExecError> {
        self.execute_with(args, &ExecuteOptions::default())
    }

    /// [`Executable::execute`] that can be stopped: by `options.cancel` from
    /// another thread or when `options.timeout` passes, at the next while
    /// loop back-edge ([`ExecError::Stopped`]). Code without while loops
    /// always runs to its end.
    pub fn execute_with(
        &self,
        args: &[&Literal],
        options: &ExecuteOptions,
    ) -> Result<Literal, ExecError> {
        if args.len() != self.params.len() {
            return Err(ExecError::Arguments(ArgumentError::Count {
                expected: self.params.len(),
                actual: args.len(),
            }));
        }
        let mut owned: Vec<ArrayLiteral> = Vec::new();
        let mut ptrs: Vec<(usize, usize)> = Vec::new(); // (owned index or usize::MAX, ...)
        let mut borrowed: Vec<*const u8> = Vec::new();
        for (i, (arg, want)) in args.iter().zip(&self.params).enumerate() {
            let got = arg.shape();
            if !got.compatible(want) {
                return Err(ExecError::Arguments(ArgumentError::Mismatch {
                    index: i,
                    name: self.param_names.get(i).cloned().unwrap_or_default(),
                    message: format!("expected {}, got {}", shape_str(want), shape_str(&got)),
                }));
            }
            for (l, (_, ws)) in arg.leaves().into_iter().zip(want.leaves()) {
                match (l, ws) {
                    (Literal::Array(a), Shape::Array(w)) if a.shape().layout != w.layout => {
                        owned.push(a.relayout(w.layout.clone()));
                        ptrs.push((owned.len() - 1, borrowed.len()));
                        borrowed.push(std::ptr::null());
                    }
                    (Literal::Array(a), _) => borrowed.push(a.bytes().as_ptr()),
                    _ => borrowed.push(std::ptr::null()),
                }
            }
        }
        for (o, slot) in ptrs {
            borrowed[slot] = owned[o].bytes().as_ptr();
        }
        let leaves = leaf_arrays(&self.result);
        let sizes = leaves
            .iter()
            .map(|l| l.as_ref().map(|a| a.byte_size()).unwrap_or(0));
        let buffers_error = |e: hlox_hlo::literal::LiteralError| {
            ExecError::Runtime(format!("result buffers of {}: {e}", self.name))
        };
        let outs: Vec<Vec<u8>> = if self.results_written {
            let mut outs: Vec<Vec<std::mem::MaybeUninit<u8>>> = sizes
                .map(hlox_hlo::literal::try_uninit)
                .collect::<Result<_, _>>()
                .map_err(buffers_error)?;
            let out_ptrs: Vec<*mut u8> = outs.iter_mut().map(|v| v.as_mut_ptr().cast()).collect();
            unsafe { self.run(&borrowed, &out_ptrs, options)? };
            outs.into_iter()
                .map(|v| {
                    let mut v = std::mem::ManuallyDrop::new(v);
                    // SAFETY: the run succeeded and, with no custom calls,
                    // wrote every byte of every result leaf (`results_written`);
                    // `MaybeUninit<u8>` and `u8` have one layout, and the
                    // allocation moves from one Vec to the other.
                    unsafe {
                        Vec::from_raw_parts(v.as_mut_ptr().cast::<u8>(), v.len(), v.capacity())
                    }
                })
                .collect()
        } else {
            let mut outs: Vec<Vec<u8>> = sizes
                .map(hlox_hlo::literal::try_zeroed)
                .collect::<Result<_, _>>()
                .map_err(buffers_error)?;
            let out_ptrs: Vec<*mut u8> = outs.iter_mut().map(|v| v.as_mut_ptr()).collect();
            unsafe { self.run(&borrowed, &out_ptrs, options)? };
            outs
        };
        let mut it = outs.into_iter();
        build_literal(&self.result, &mut it).map_err(|source| ExecError::Result {
            module: self.name.clone(),
            source,
        })
    }

    /// Run on caller-provided buffers without copies: `args` holds every
    /// parameter's leaf buffers in pre-order, `outputs` the result's leaf
    /// buffers in pre-order, each of exactly the leaf's byte size, in the
    /// layouts of the entry computation's signature. Outputs must not
    /// overlap the arguments.
    pub fn execute_into(&self, args: &[&[u8]], outputs: &mut [&mut [u8]]) -> Result<(), ExecError> {
        self.execute_into_with(args, outputs, &ExecuteOptions::default())
    }

    /// [`Executable::execute_into`] that can be stopped (see
    /// [`Executable::execute_with`]).
    pub fn execute_into_with(
        &self,
        args: &[&[u8]],
        outputs: &mut [&mut [u8]],
        options: &ExecuteOptions,
    ) -> Result<(), ExecError> {
        let mut want = Vec::new();
        let mut names = Vec::new();
        for (i, p) in self.params.iter().enumerate() {
            for l in leaf_arrays(p) {
                want.push(l);
                names.push((i, self.param_names.get(i).cloned().unwrap_or_default()));
            }
        }
        if args.len() != want.len() {
            return Err(ExecError::Arguments(ArgumentError::Count {
                expected: want.len(),
                actual: args.len(),
            }));
        }
        for (k, (a, w)) in args.iter().zip(&want).enumerate() {
            let n = w.as_ref().map(|s| s.byte_size()).unwrap_or(0);
            if a.len() != n {
                return Err(ExecError::Arguments(ArgumentError::Mismatch {
                    index: names[k].0,
                    name: names[k].1.clone(),
                    message: format!("leaf buffer {k} has {} bytes, expected {n}", a.len()),
                }));
            }
        }
        let rl = leaf_arrays(&self.result);
        if outputs.len() != rl.len() {
            return Err(ExecError::Output(format!(
                "{} output buffers given, the result has {} leaves",
                outputs.len(),
                rl.len()
            )));
        }
        for (k, (o, w)) in outputs.iter().zip(&rl).enumerate() {
            let n = w.as_ref().map(|s| s.byte_size()).unwrap_or(0);
            if o.len() != n {
                return Err(ExecError::Output(format!(
                    "output leaf {k} has {} bytes, expected {n}",
                    o.len()
                )));
            }
        }
        let ins: Vec<*const u8> = args.iter().map(|a| a.as_ptr()).collect();
        let outs: Vec<*mut u8> = outputs.iter_mut().map(|o| o.as_mut_ptr()).collect();
        unsafe { self.run(&ins, &outs, options) }
    }
}

fn shape_str(s: &Shape) -> String {
    match s {
        Shape::Array(a) => format!(
            "{}[{}]",
            a.ty,
            a.dims
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
        Shape::Tuple(t) => format!(
            "({})",
            t.iter().map(shape_str).collect::<Vec<_>>().join(", ")
        ),
        Shape::Token => "token[]".into(),
    }
}

/// The result literal of shape `s` from its leaves' buffers, in pre-order
/// (one per leaf, tokens included: `leaf_arrays` made them).
fn build_literal(
    s: &Shape,
    it: &mut std::vec::IntoIter<Vec<u8>>,
) -> Result<Literal, hlox_hlo::literal::LiteralError> {
    Ok(match s {
        Shape::Array(a) => {
            let b = it.next().unwrap_or_default();
            Literal::Array(ArrayLiteral::from_bytes(a.clone(), b)?)
        }
        Shape::Tuple(t) => Literal::Tuple(
            t.iter()
                .map(|e| build_literal(e, it))
                .collect::<Result<_, _>>()?,
        ),
        Shape::Token => {
            it.next();
            Literal::Token
        }
    })
}

#[cfg(test)]
mod tests {
    use super::may_run_parallel;

    fn module(src: &str) -> hlox_hlo::Module {
        hlox_hlo::text::parse_module(src).expect("test module parses")
    }

    #[test]
    fn only_modules_with_parallel_work_run_on_the_run_pool() {
        // Small element-wise work: on the caller's thread.
        let small = module(
            "HloModule s\nENTRY e {\n  p = f32[128]{0} parameter(0)\n  ROOT n = f32[128]{0} negate(p)\n}\n",
        );
        assert!(!may_run_parallel(&small));
        // A small result read from a large operand (a reduction's input).
        let reduce = module(
            "HloModule r\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  p = f32[256,1024]{1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[256]{0} reduce(p, z), dimensions={1}, to_apply=add\n}\n",
        );
        assert!(may_run_parallel(&reduce));
        // A dot counts its multiply-adds: 128 x 128 results, 64 each.
        let dot = module(
            "HloModule d\nENTRY e {\n  a = f32[128,64]{1,0} parameter(0)\n  b = f32[64,128]{1,0} parameter(1)\n  ROOT d = f32[128,128]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
        );
        assert!(may_run_parallel(&dot));
    }
}
