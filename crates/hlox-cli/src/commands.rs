//! The implementation of each subcommand.

// Linked for its register_custom_call_target! registrations.
use crate::Platform;
use anyhow::Result;
use hlox_hlo::load::{load_module, save_module};
use hlox_jaxlib as _;
use hlox_passes::frontend::CompileOptions;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

static LOGGING: AtomicBool = AtomicBool::new(false);

/// Told by `main` whether `HLOX_LOG` logging is on (progress is then off,
/// so that log lines and the spinner do not overwrite each other).
pub fn set_logging(on: bool) {
    LOGGING.store(on, Ordering::Relaxed);
}

/// `--timeout SECONDS` of `run` and `bench`: how long one execution may
/// take before it is stopped (at a while loop's back-edge compiled, before
/// an instruction interpreted).
static TIMEOUT: std::sync::Mutex<Option<Duration>> = std::sync::Mutex::new(None);

/// The exit code of a run stopped by `--timeout`.
pub const EXIT_TIMEOUT: u8 = 3;

/// Told by `main` the `--timeout` of `run` or `bench`, in seconds.
pub fn set_timeout(seconds: Option<f64>) -> Result<()> {
    let t = match seconds {
        None => None,
        Some(s) => Some(
            Duration::try_from_secs_f64(s)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "--timeout {s}: give a positive number of seconds, e.g. --timeout 10"
                    )
                })?,
        ),
    };
    if let Ok(mut g) = TIMEOUT.lock() {
        *g = t;
    }
    Ok(())
}

/// Told by `main` the bf16 rounding of `run` (`--no-excess-precision`).
pub fn set_half_rounding(rounding: hlox_eval::HalfRounding) {
    if let Ok(mut g) = HALF_ROUNDING.lock() {
        *g = rounding;
    }
}

static HALF_ROUNDING: std::sync::Mutex<hlox_eval::HalfRounding> =
    std::sync::Mutex::new(hlox_eval::HalfRounding::ExcessPrecision);

/// The bf16 rounding every compile and interpretation uses.
fn half_rounding() -> hlox_eval::HalfRounding {
    HALF_ROUNDING.lock().map(|g| *g).unwrap_or_default()
}

/// The stop options of every execution: the `--timeout`, if any.
pub(crate) fn execute_options() -> hlox_hlo::ExecuteOptions {
    hlox_hlo::ExecuteOptions {
        cancel: None,
        timeout: TIMEOUT.lock().ok().and_then(|g| *g),
    }
}

/// `--sandbox`, `--check-results` and `--repro-dir DIR` of `run`: custom
/// calls run in the sandbox (`hlox_ffi::sandbox`) when set.
static SANDBOX: std::sync::Mutex<Option<hlox_ffi::sandbox::SandboxOptions>> =
    std::sync::Mutex::new(None);

/// Told by `main` the sandbox flags of `run` (any of them turns it on).
pub fn set_sandbox(sandbox: bool, check_results: bool, repro_dir: Option<&Path>) {
    let on = sandbox || check_results || repro_dir.is_some();
    if let Ok(mut g) = SANDBOX.lock() {
        *g = on.then(|| hlox_ffi::sandbox::SandboxOptions {
            check_results,
            repro_dir: repro_dir.map(Path::to_path_buf),
        });
    }
}

pub(crate) fn sandbox_options() -> Option<hlox_ffi::sandbox::SandboxOptions> {
    SANDBOX.lock().ok().and_then(|g| g.clone())
}

/// `--cache-dir DIR` of `run` and `bench`: the Host's persistent
/// compilation cache (`hlox_cpu::cache`; unset, `HLOX_CACHE_DIR` applies).
static CACHE_DIR: std::sync::Mutex<Option<std::path::PathBuf>> = std::sync::Mutex::new(None);

/// Told by `main` the `--cache-dir` of `run` or `bench`.
pub fn set_cache_dir(dir: Option<&Path>) {
    if let Ok(mut g) = CACHE_DIR.lock() {
        *g = dir.map(Path::to_path_buf);
    }
}

fn cache_dir() -> Option<std::path::PathBuf> {
    CACHE_DIR.lock().ok().and_then(|g| g.clone())
}

/// Whether `e` is an execution stopped by `--timeout` (exit code [`EXIT_TIMEOUT`]).
pub fn is_timeout(e: &anyhow::Error) -> bool {
    use hlox_hlo::cancel::Stop;
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<hlox_cpu::ExecError>(),
            Some(hlox_cpu::ExecError::Stopped {
                stop: Stop::Deadline(_),
                ..
            })
        ) || matches!(
            c.downcast_ref::<hlox_eval::EvalError>(),
            Some(hlox_eval::EvalError::Stopped {
                stop: Stop::Deadline(_),
                ..
            })
        )
    })
}

/// Progress is drawn only on a terminal, and not under `HLOX_LOG`.
fn progress_enabled() -> bool {
    !LOGGING.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// A spinner on stderr with `msg` (hidden when stderr is not a terminal).
fn spinner(msg: String) -> ProgressBar {
    if !progress_enabled() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.set_message(msg);
    pb.enable_steady_tick(Duration::from_millis(100));
    pb
}

/// A progress bar of `len` steps on stderr (hidden when not a terminal).
fn bar(len: u64) -> ProgressBar {
    if !progress_enabled() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template("{msg:>8} [{bar:40}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb
}

/// The options every subcommand compiles with (the same type for both
/// platforms): its registry and dump directory, defaults otherwise.
pub(crate) fn compile_options(
    registry: hlox_ffi::Registry,
    dump_dir: Option<&Path>,
) -> CompileOptions {
    CompileOptions {
        dump_dir: dump_dir.map(Path::to_path_buf),
        registry: Some(std::sync::Arc::new(registry)),
        sandbox: sandbox_options(),
        half_rounding: half_rounding(),
        cache_dir: cache_dir(),
        ..Default::default()
    }
}

/// A module compiled for one platform, ready to run.
// A CUDA executable carries its CompileOptions (and more) inline; one
// executable per compile, so the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Exe {
    Host(hlox_cpu::Executable),
    Cuda(hlox_cuda::CudaExecutable),
}

impl Exe {
    fn execute(&self, args: &[hlox_hlo::Literal]) -> Result<hlox_hlo::Literal> {
        Ok(match self {
            Exe::Host(e) => e.execute_with(&args.iter().collect::<Vec<_>>(), &execute_options())?,
            Exe::Cuda(e) => {
                if execute_options().timeout.is_some() {
                    anyhow::bail!(
                        "--timeout is not supported with --platform cuda yet (a CUDA run \
                         cannot be stopped); drop --timeout or run on the host"
                    );
                }
                e.execute(args)?
            }
        })
    }
}

/// Compiles `m` for `platform` (CUDA: device 0, through its driver).
fn compile_for(
    platform: Platform,
    m: &hlox_hlo::Module,
    registry: hlox_ffi::Registry,
    dump_dir: Option<&Path>,
    cuda_graphs: bool,
) -> Result<Exe> {
    match platform {
        Platform::Host => Ok(Exe::Host(compile_host(m, registry, dump_dir)?)),
        Platform::Cuda => {
            let client = hlox_cuda::CudaClient::new(0).map_err(|e| {
                anyhow::anyhow!(
                    "{e}\nfix: run on a machine with an NVIDIA GPU and its driver, or use \
                     --platform host; `hlox compile --platform cuda --emit ptx` needs no GPU"
                )
            })?;
            let options = CompileOptions {
                cuda_graphs,
                ..compile_options(registry, dump_dir)
            };
            Ok(Exe::Cuda(client.compile(m, &options)?))
        }
    }
}

pub fn fmt(file: &Path) -> Result<()> {
    let m = load_module(file)?;
    let text = hlox_hlo::text::print::print_module(&m);
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

pub fn convert(input: &Path, output: &Path) -> Result<()> {
    let m = load_module(input)?;
    save_module(&m, output)?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn run(
    platform: Platform,
    file: &Path,
    inputs: &[std::path::PathBuf],
    plugins: &Plugins,
    out_dir: Option<&Path>,
    interpret: bool,
    random: Option<u64>,
    dump_dir: Option<&Path>,
    timings: bool,
) -> Result<()> {
    use anyhow::Context;
    if interpret && platform == Platform::Cuda {
        anyhow::bail!(
            "--interpret runs the evaluator on the CPU; drop --platform cuda or --interpret"
        );
    }
    if sandbox_options().is_some() && (interpret || platform == Platform::Cuda) {
        anyhow::bail!(
            "--sandbox (and --check-results, --repro-dir) run custom calls compiled for the \
             Host; drop --interpret and --platform cuda"
        );
    }
    let m = load_module(file)?;
    let registry = plugins.registry(platform)?;
    let args = inputs_or_random(file, &m, inputs, random)?;
    let result = if interpret {
        let pb = spinner(format!("interpreting {}", file.display()));
        let r = hlox_eval::evaluate_with_registry_rounding(
            &m,
            &args,
            &registry,
            &execute_options(),
            half_rounding(),
        );
        pb.finish_and_clear();
        r.with_context(|| format!("running {}", file.display()))?
    } else {
        let pb = spinner(format!("compiling {}", file.display()));
        let exe = compile_for(platform, &m, registry, dump_dir, true);
        pb.finish_and_clear();
        let exe = exe.with_context(|| format!("compiling {}", file.display()))?;
        if let (true, Exe::Host(e)) = (timings, &exe) {
            print_timings(e.report());
        }
        let pb = spinner(format!("running {}", file.display()));
        let r = exe.execute(&args);
        pb.finish_and_clear();
        r.with_context(|| format!("running {}", file.display()))?
    };
    write_outputs(&result, out_dir, true)
}

#[allow(clippy::too_many_arguments)]
pub fn bench(
    platform: Platform,
    file: &Path,
    inputs: &[std::path::PathBuf],
    plugins: &Plugins,
    iters: usize,
    warmup: usize,
    random: Option<u64>,
    out_dir: Option<&Path>,
    cuda_graphs: bool,
    profile: bool,
    compile_rounds: usize,
) -> Result<()> {
    use anyhow::{ensure, Context};
    use std::time::Instant;
    ensure!(
        compile_rounds > 0,
        "--compile-rounds must be at least 1 (the first compile is the cold one)"
    );
    ensure!(
        iters > 0,
        "--iters must be at least 1 (the number of timed runs)"
    );
    ensure!(
        !profile || platform == Platform::Host,
        "--profile times the Host backend's instructions; for CUDA, use Nsight Systems \
         (`nsys profile hlox bench --platform cuda ...`)"
    );
    let m = load_module(file)?;
    let args = inputs_or_random(file, &m, inputs, random)?;
    // One compile, timed (the custom-call registry is made before the clock
    // starts, as for a single compile).
    let compile_once = || -> Result<(Result<Exe>, f64)> {
        let registry = plugins.registry(platform)?;
        let t = Instant::now();
        let exe = if profile {
            let options = CompileOptions {
                profile: true,
                ..compile_options(registry, None)
            };
            hlox_cpu::compile(&m, &options)
                .map(Exe::Host)
                .map_err(anyhow::Error::from)
        } else {
            compile_for(platform, &m, registry, None, cuda_graphs)
        };
        Ok((exe, t.elapsed().as_secs_f64() * 1e3))
    };
    let pb = spinner(format!("compiling {}", file.display()));
    let (exe, compile_ms) = compile_once()?;
    let mut exe = exe.with_context(|| format!("compiling {}", file.display()))?;
    // --compile-rounds: the same module compiled again in this process
    // (no cache unless one is configured; the JSON says when it hit).
    let mut warm_ms: Option<f64> = None;
    for _ in 1..compile_rounds {
        let (again, ms) = compile_once()?;
        exe = again.with_context(|| format!("compiling {} again", file.display()))?;
        warm_ms = Some(warm_ms.map_or(ms, |w| w.min(ms)));
    }
    pb.finish_and_clear();
    let mut last = None;
    let pb = bar((warmup + iters) as u64);
    let running = |i: usize| format!("running {} (run {i})", file.display());
    pb.set_message("warmup");
    for i in 0..warmup {
        last = Some(exe.execute(&args).with_context(|| running(i + 1))?);
        pb.inc(1);
    }
    if let Exe::Host(e) = &exe {
        e.reset_profile();
    }
    pb.set_message("timed");
    let mut times = Vec::with_capacity(iters);
    let mut device_times = Vec::new();
    for i in 0..iters {
        let t = Instant::now();
        last = Some(
            exe.execute(&args)
                .with_context(|| running(warmup + i + 1))?,
        );
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if let Exe::Cuda(e) = &exe {
            device_times.extend(e.last_device_ms());
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    let median = |times: &mut Vec<f64>| {
        times.sort_by(f64::total_cmp);
        let n = times.len();
        if n % 2 == 1 {
            times[n / 2]
        } else {
            (times[n / 2 - 1] + times[n / 2]) / 2.0
        }
    };
    let device = if device_times.is_empty() {
        String::new()
    } else {
        format!(", \"device_median_ms\": {:.4}", median(&mut device_times))
    };
    let median = median(&mut times);
    if let Exe::Host(e) = &exe {
        if let Some(p) = e.profile() {
            print_profile(&p, iters, median);
        }
    }
    if let Some(result) = &last {
        write_outputs(result, out_dir, false)?;
    }
    // Host: where the compile went (LLVM IR generation, optimization,
    // JIT code generation); CUDA: whether the timed runs replayed a CUDA
    // graph, or why not.
    let graph = match &exe {
        Exe::Host(e) => {
            let r = e.report();
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
            let hit = match r.cache_hit {
                Some(hlox_cpu::cache::Hit::Memory) => ", \"cache\": \"hit (memory)\"",
                Some(hlox_cpu::cache::Hit::Disk) => ", \"cache\": \"hit\"",
                None => "",
            };
            format!(
                ", \"ir_ms\": {:.3}, \"llvm_opt_ms\": {:.3}, \"jit_ms\": {:.3}{hit}",
                ms(r.ir_generation),
                ms(r.optimization),
                ms(r.jit)
            )
        }
        Exe::Cuda(e) => match e.graph_status() {
            hlox_cuda::GraphStatus::Ready {
                device_graph: true,
                bytes,
                ..
            } => format!("{device}, \"cuda_graph\": \"replayed\", \"cuda_graph_bytes\": {bytes}"),
            s => format!("{device}, \"cuda_graph\": {:?}", format!("{s:?}")),
        },
    };
    let warm = warm_ms.map_or(String::new(), |w| format!(", \"warm_compile_ms\": {w:.3}"));
    println!(
        "{{\"compile_ms\": {compile_ms:.3}{warm}, \"median_ms\": {median:.4}, \"min_ms\": {:.4}, \"iters\": {iters}{graph}}}",
        times[0]
    );
    Ok(())
}

/// The `--profile` table on stderr: each instruction's time per run, the
/// slowest first, with its share of the median run and the running total.
fn print_profile(p: &[hlox_cpu::ProfileEntry], iters: usize, median_ms: f64) {
    let mut rows: Vec<&hlox_cpu::ProfileEntry> = p.iter().collect();
    rows.sort_by_key(|e| std::cmp::Reverse(e.total_ns));
    let per_run = |e: &hlox_cpu::ProfileEntry| e.total_ns as f64 / 1e6 / iters.max(1) as f64;
    let all: f64 = rows.iter().map(|e| per_run(e)).sum();
    eprintln!(
        "profile: {} instructions, {all:.4} ms per run in them (median run {median_ms:.4} ms)",
        rows.len()
    );
    eprintln!("  {:>9} {:>6} {:>6}  instruction", "ms/run", "%", "cum%");
    let mut cum = 0.0;
    for e in rows {
        let ms = per_run(e);
        cum += ms;
        let pct = |x: f64| if all > 0.0 { 100.0 * x / all } else { 0.0 };
        eprintln!(
            "  {ms:9.4} {:6.1} {:6.1}  {} = {} {}",
            pct(ms),
            pct(cum),
            e.instruction,
            e.shape,
            e.opcode
        );
    }
}

fn print_timings(r: &hlox_cpu::CompileReport) {
    let row = |label: &str, d: std::time::Duration| {
        eprintln!("  {label:<24}{:10.3}", d.as_secs_f64() * 1e3);
    };
    eprintln!("compile timings (ms):");
    row("verify", r.verify);
    for (pass, d) in &r.passes {
        row(&format!("pass {pass}"), *d);
    }
    row("bind targets", r.bind);
    row("buffer assignment", r.buffer_assignment);
    row("LLVM IR generation", r.ir_generation);
    row("LLVM optimization", r.optimization);
    match r.cache_hit {
        Some(hit) => row(&format!("load cached ({hit:?})"), r.jit),
        None => row("JIT", r.jit),
    }
    row("total", r.total);
    if r.codegen_parts > 1 {
        eprintln!(
            "  (optimization and code generation split into {} parts on as many threads: \
             the longest part's optimization, then the rest)",
            r.codegen_parts
        );
    }
    eprintln!("  arena bytes per run: {}", r.arena_bytes);
}

/// Compiles `m` for the Host with the given registry and dump directory.
fn compile_host(
    m: &hlox_hlo::Module,
    registry: hlox_ffi::Registry,
    dump_dir: Option<&Path>,
) -> Result<hlox_cpu::Executable> {
    Ok(hlox_cpu::compile(m, &compile_options(registry, dump_dir))?)
}

/// `--plugin` libraries and `--target` bindings: where a command's
/// custom-call targets come from.
pub struct Plugins<'a> {
    pub libraries: &'a [std::path::PathBuf],
    pub bindings: &'a [hlox_ffi::SymbolBinding],
}

impl<'a> Plugins<'a> {
    pub fn new(
        libraries: &'a [std::path::PathBuf],
        bindings: &'a [hlox_ffi::SymbolBinding],
    ) -> Plugins<'a> {
        Plugins {
            libraries,
            bindings,
        }
    }

    /// The static targets (jaxlib's `lapack_*_ffi` among them, from
    /// `hlox_jaxlib`, linked by the `use` above), then each plugin's, then
    /// each `--target` binding, for `platform`.
    pub(crate) fn registry(&self, platform: Platform) -> Result<hlox_ffi::Registry> {
        let registry = hlox_ffi::Registry::with_static_targets()?;
        for p in self.libraries {
            registry.load_library(p)?;
        }
        let platform = match platform {
            Platform::Host => hlox_ffi::Platform::Host,
            Platform::Cuda => hlox_ffi::Platform::Cuda,
        };
        for b in self.bindings {
            // SAFETY: the user names the symbol and its convention, as with
            // a registration in C (the module's api_version is trusted
            // without `:API`, as for a symbol found by its own name).
            unsafe { registry.bind_symbol(&b.name, platform, &b.symbol, b.api_version) }?;
        }
        Ok(registry)
    }
}

/// The `--input` files, or with `--random SEED` seeded random data for
/// every parameter.
pub(crate) fn inputs_or_random(
    file: &Path,
    m: &hlox_hlo::Module,
    inputs: &[std::path::PathBuf],
    random: Option<u64>,
) -> Result<Vec<hlox_hlo::Literal>> {
    match random {
        Some(seed) if inputs.is_empty() => random_inputs(m, seed),
        Some(_) => anyhow::bail!("--random fills every parameter; do not also pass --input"),
        None => read_inputs(file, m, inputs),
    }
}

fn read_inputs(
    file: &Path,
    m: &hlox_hlo::Module,
    inputs: &[std::path::PathBuf],
) -> Result<Vec<hlox_hlo::Literal>> {
    use anyhow::{bail, Context};
    let params = m.entry_computation().params.len();
    if inputs.len() != params {
        let sig = hlox_hlo::text::program_shape_to_string(&m.entry_computation_layout());
        bail!(
            "{} takes {params} input(s) but {} --input file(s) were given; the entry signature is {sig}. \
             Pass one .npy file per parameter, in order (or --random for seeded random inputs).",
            file.display(),
            inputs.len()
        );
    }
    let comp = m.entry_computation();
    inputs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let lit = hlox_hlo::npy::read_npy_file(p)
                .with_context(|| format!("reading input {}", p.display()))?;
            let param = comp.inst(comp.params[i]);
            if let (Ok(got), Some(want)) = (lit.as_array(), param.shape.as_array()) {
                if got.ty() != want.ty || got.shape().dims != want.dims {
                    let show = |ty: hlox_hlo::ElementType, dims: &[i64]| {
                        let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
                        format!("{}[{}]", ty.name(), d.join(","))
                    };
                    bail!(
                        "input {} ({}) is {}, but parameter {i} `{}` of {} is {}; \
                         pass a .npy of that dtype and shape, in parameter order \
                         (or --random to fill every parameter with random data)",
                        i + 1,
                        p.display(),
                        show(got.ty(), &got.shape().dims),
                        param.name,
                        file.display(),
                        show(want.ty, &want.dims)
                    );
                }
            }
            Ok(lit)
        })
        .collect()
}

pub(crate) fn write_outputs(
    result: &hlox_hlo::Literal,
    out_dir: Option<&Path>,
    summarize: bool,
) -> Result<()> {
    use anyhow::Context;
    if let Some(dir) = out_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut out = std::io::stdout().lock();
    let leaves = result.leaves();
    for (i, leaf) in leaves.iter().enumerate() {
        if let Some(dir) = out_dir {
            let path = dir.join(format!("out{i}.npy"));
            hlox_hlo::npy::write_npy_file(&path, leaf)
                .with_context(|| format!("writing {}", path.display()))?;
        }
        if summarize {
            writeln!(out, "out{i}: {}", summary(leaf))?;
        }
    }
    if let Some(dir) = out_dir {
        remove_stale_outputs(dir, leaves.len())?;
    }
    Ok(())
}

/// Removes `outN.npy` files with `N >= count` from `dir`: what an earlier
/// run with more results left there, so the directory holds this run's
/// results and nothing a reader could take for one of them.
fn remove_stale_outputs(dir: &Path, count: usize) -> Result<()> {
    use anyhow::Context;
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(index) = name
            .to_str()
            .and_then(|n| n.strip_prefix("out"))
            .and_then(|n| n.strip_suffix(".npy"))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        if index >= count {
            let path = entry.path();
            std::fs::remove_file(&path)
                .with_context(|| format!("removing {} (left by an earlier run)", path.display()))?;
        }
    }
    Ok(())
}

/// `f32[2048]{0} min=-1 max=3.5 mean=0.25 [0.5, 1, ...]`: shape (with the
/// element type), statistics and the first values in row-major order, each
/// printed in its own type (shortest text that reads back exactly). Floats
/// add `nan=K` / `inf=K` counts when there are any; min, max and mean are
/// over the other (finite) values.
pub fn summary(leaf: &hlox_hlo::Literal) -> String {
    use hlox_hlo::ElementType as T;
    let shape = hlox_hlo::text::shape_to_string(&leaf.shape());
    let Ok(a) = leaf.as_array() else {
        return shape;
    };
    /// First values, min, max, mean, nan count, inf count.
    type Stats = (Vec<String>, String, String, f64, usize, usize);
    /// The [`Stats`] of values of one type.
    fn stats<V: Copy>(v: &[V], f: impl Fn(V) -> f64, text: impl Fn(V) -> String) -> Stats {
        let first = v.iter().take(6).map(|&x| text(x)).collect();
        let (mut nan, mut inf) = (0, 0);
        let mut lo: Option<(f64, V)> = None;
        let mut hi: Option<(f64, V)> = None;
        let (mut sum, mut n) = (0.0, 0usize);
        for &x in v {
            let d = f(x);
            if d.is_nan() {
                nan += 1;
                continue;
            }
            if d.is_infinite() {
                inf += 1;
                continue;
            }
            if lo.is_none_or(|(l, _)| d < l) {
                lo = Some((d, x));
            }
            if hi.is_none_or(|(h, _)| d > h) {
                hi = Some((d, x));
            }
            sum += d;
            n += 1;
        }
        let show = |m: Option<(f64, V)>| m.map_or("-".to_string(), |(_, x)| text(x));
        let mean = if n == 0 { f64::NAN } else { sum / n as f64 };
        (first, show(lo), show(hi), mean, nan, inf)
    }
    /// Shortest text that reads back exactly; exponent form when tiny or huge.
    fn float<F: std::fmt::Display + std::fmt::LowerExp + Into<f64> + Copy>(x: F) -> String {
        let a = x.into().abs();
        if a != 0.0 && a.is_finite() && !(1e-4..1e16).contains(&a) {
            format!("{x:e}")
        } else {
            x.to_string()
        }
    }
    macro_rules! of {
        ($t:ty, $f:expr) => {
            of!($t, $f, |x: $t| x.to_string())
        };
        ($t:ty, $f:expr, $text:expr) => {
            match a.to_vec::<$t>() {
                Ok(v) => (v.len(), stats(&v, $f, $text)),
                Err(_) => return shape,
            }
        };
    }
    let (len, (first, min, max, mean, nan, inf)) = match a.ty() {
        T::Pred => of!(bool, |b| b as u8 as f64),
        T::S8 => of!(i8, f64::from),
        T::S16 => of!(i16, f64::from),
        T::S32 => of!(i32, f64::from),
        T::S64 => of!(i64, |x| x as f64),
        T::U8 => of!(u8, f64::from),
        T::U16 => of!(u16, f64::from),
        T::U32 => of!(u32, f64::from),
        T::U64 => of!(u64, |x| x as f64),
        // Half-precision values print through f32, which holds them exactly.
        T::F16 => of!(half::f16, |x| x.to_f64(), |x: half::f16| float(x.to_f32())),
        T::Bf16 => of!(half::bf16, |x| x.to_f64(), |x: half::bf16| float(
            x.to_f32()
        )),
        T::F32 => of!(f32, f64::from, float),
        T::F64 => of!(f64, |x| x, float),
        // Complex values: min, max and mean of their magnitudes.
        T::C64 => of!(
            hlox_hlo::Complex32,
            |z| z.norm() as f64,
            |z: hlox_hlo::Complex32| { format!("({}, {})", float(z.re), float(z.im)) }
        ),
        T::C128 => of!(
            hlox_hlo::Complex64,
            |z| z.norm(),
            |z: hlox_hlo::Complex64| { format!("({}, {})", z.re, z.im) }
        ),
    };
    if len == 0 {
        return format!("{shape} (empty)");
    }
    let mut extra = String::new();
    if nan > 0 {
        extra.push_str(&format!(" nan={nan}"));
    }
    if inf > 0 {
        extra.push_str(&format!(" inf={inf}"));
    }
    let more = if len > 6 { ", ..." } else { "" };
    // Six decimals without trailing zeros; tiny or large means in exponent form.
    let mean = if mean.abs() >= 1e9 || (mean != 0.0 && mean.abs() < 1e-4) {
        format!("{mean:.6e}")
    } else {
        let t = format!("{mean:.6}");
        let t = t.trim_end_matches('0').trim_end_matches('.');
        if t == "-0" {
            "0".to_string()
        } else {
            t.to_string()
        }
    };
    format!(
        "{shape} min={min} max={max} mean={mean}{extra} [{}{more}]",
        first.join(", ")
    )
}

/// Seeded random data for every entry parameter: floats uniform in [-1, 1),
/// signed integers in [-10, 10], unsigned in [0, 20], pred 50/50.
pub fn random_inputs(m: &hlox_hlo::Module, seed: u64) -> Result<Vec<hlox_hlo::Literal>> {
    use hlox_hlo::{ElementType as T, Literal, Shape};
    // splitmix64: small, seedable, and the same on every machine.
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    fn fill(shape: &Shape, next: &mut dyn FnMut() -> u64) -> Result<Literal> {
        Ok(match shape {
            Shape::Tuple(es) => {
                Literal::tuple(es.iter().map(|e| fill(e, next)).collect::<Result<_>>()?)
            }
            Shape::Token => Literal::Token,
            Shape::Array(a) => {
                // The memory first, as a fallible allocation: a parameter too
                // large for this machine is an error, not an abort.
                drop(hlox_hlo::ArrayLiteral::zeros(a.clone())?);
                let n = a.element_count();
                let mut unit = || (next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
                let dims = &a.dims;
                // `n` values of one element type, each drawn by `f`.
                fn draw<V: hlox_hlo::NativeType>(
                    dims: &[i64],
                    n: usize,
                    f: impl FnMut(usize) -> V,
                ) -> Result<Literal, hlox_hlo::LiteralError> {
                    Literal::from_vec(dims, &(0..n).map(f).collect::<Vec<_>>())
                }
                // Signed integers in [-10, 10], unsigned in [0, 20].
                let lit = match a.ty {
                    T::F32 => draw(dims, n, |_| unit() as f32),
                    T::F64 => draw(dims, n, |_| unit()),
                    T::F16 => draw(dims, n, |_| half::f16::from_f64(unit())),
                    T::Bf16 => draw(dims, n, |_| half::bf16::from_f64(unit())),
                    T::Pred => draw(dims, n, |_| unit() >= 0.0),
                    T::S8 => draw(dims, n, |_| (unit() * 10.5) as i8),
                    T::S16 => draw(dims, n, |_| (unit() * 10.5) as i16),
                    T::S32 => draw(dims, n, |_| (unit() * 10.5) as i32),
                    T::S64 => draw(dims, n, |_| (unit() * 10.5) as i64),
                    T::U8 => draw(dims, n, |_| ((unit() + 1.0) * 10.0) as u8),
                    T::U16 => draw(dims, n, |_| ((unit() + 1.0) * 10.0) as u16),
                    T::U32 => draw(dims, n, |_| ((unit() + 1.0) * 10.0) as u32),
                    T::U64 => draw(dims, n, |_| ((unit() + 1.0) * 10.0) as u64),
                    // Both parts in [-1, 1).
                    T::C64 => draw(dims, n, |_| {
                        hlox_hlo::Complex32::new(unit() as f32, unit() as f32)
                    }),
                    T::C128 => draw(dims, n, |_| hlox_hlo::Complex64::new(unit(), unit())),
                }?;
                // Lay the data out as the parameter's layout says.
                match lit {
                    Literal::Array(arr) => Literal::Array(arr.relayout(a.layout.clone())),
                    other => other,
                }
            }
        })
    }
    let comp = m.entry_computation();
    comp.params
        .iter()
        .map(|&p| {
            let inst = comp.inst(p);
            fill(&inst.shape, &mut next).map_err(|e| {
                e.context(format!(
                    "--random: cannot make parameter `{}` ({})",
                    inst.name,
                    hlox_hlo::text::shape_to_string(&inst.shape)
                ))
            })
        })
        .collect()
}

/// `hlox compile --emit STAGE`.
pub fn compile(
    file: &Path,
    emit: crate::Emit,
    platform: Platform,
    output: Option<&Path>,
    plugins: &Plugins,
    dump_dir: Option<&Path>,
) -> Result<()> {
    use crate::Emit;
    use anyhow::{bail, Context};
    if let (Emit::Hlo, Some(_)) = (emit, dump_dir) {
        bail!(
            "--emit hlo only prints the input, so nothing is dumped; use --emit hlo-opt \
             (or any later stage) with --dump-dir"
        );
    }
    if platform == Platform::Cuda {
        return compile_cuda(file, emit, output, plugins, dump_dir);
    }
    if let Emit::Ptx = emit {
        bail!(
            "--emit ptx is the CUDA platform's output, and this compile is for the Host; \
             pass --platform cuda, or for Host code use --emit llvm-ir, asm or obj"
        );
    }
    if let (Emit::Obj, None) = (emit, output) {
        if std::io::stdout().is_terminal() {
            bail!("--emit obj writes a binary object file; pass -o FILE.o (or redirect stdout)");
        }
    }
    let m = load_module(file)?;
    let registry = plugins.registry(platform)?;
    let bytes: Vec<u8> = if let Emit::Hlo = emit {
        hlox_hlo::text::print_module(&m).into_bytes()
    } else if let Emit::Obj = emit {
        let options = compile_options(registry, dump_dir);
        let pb = spinner(format!("compiling {}", file.display()));
        let obj = hlox_cpu::compile_to_object(&m, &options);
        pb.finish_and_clear();
        let obj = obj.with_context(|| format!("compiling {}", file.display()))?;
        tracing::info!(
            entry = %obj.entry_symbol,
            arena_bytes = obj.arena_bytes,
            "object file"
        );
        obj.bytes
    } else {
        // The compiler writes every stage into a dump directory; take the one asked for.
        let dir = stage_dir(dump_dir, "hlox-compile");
        let pb = spinner(format!("compiling {}", file.display()));
        let result = compile_host(&m, registry, Some(&dir))
            .with_context(|| format!("compiling {}", file.display()));
        pb.finish_and_clear();
        let name = match emit {
            Emit::Hlo | Emit::Obj | Emit::Ptx => unreachable!("handled above"),
            Emit::HloOpt => "module.optimized.hlo",
            Emit::LlvmIr => "module.ll",
            Emit::LlvmIrOpt => "module.opt.ll",
            Emit::Asm => "module.s",
        };
        let text = result.and_then(|_| {
            std::fs::read_to_string(dir.join(name))
                .with_context(|| format!("reading the compiler's {name}"))
        });
        if dump_dir.is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        text?.into_bytes()
    };
    match output {
        Some(p) => std::fs::write(p, bytes).with_context(|| format!("writing {}", p.display()))?,
        None => std::io::stdout().lock().write_all(&bytes)?,
    }
    Ok(())
}

/// Where `hlox compile` lets the compiler write its stages: the user's
/// `--dump-dir`, or a fresh temporary directory (removed afterwards).
fn stage_dir(dump_dir: Option<&Path>, prefix: &str) -> std::path::PathBuf {
    match dump_dir {
        Some(d) => d.to_path_buf(),
        None => std::env::temp_dir().join(format!(
            "{prefix}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        )),
    }
}

/// `hlox compile --platform cuda`: PTX and the stages before it; needs no GPU.
fn compile_cuda(
    file: &Path,
    emit: crate::Emit,
    output: Option<&Path>,
    plugins: &Plugins,
    dump_dir: Option<&Path>,
) -> Result<()> {
    use crate::Emit;
    use anyhow::{bail, Context};
    let name = match emit {
        Emit::Ptx => "kernels.ptx",
        Emit::Hlo => "module.hlo",
        Emit::HloOpt => "module.optimized.hlo",
        Emit::LlvmIr => "kernels.ll",
        Emit::LlvmIrOpt => "kernels.opt.ll",
        Emit::Asm | Emit::Obj => bail!(
            "--emit asm and obj are Host outputs; for --platform cuda use --emit ptx \
             (or hlo, hlo-opt, llvm-ir, llvm-ir-opt)"
        ),
    };
    let m = load_module(file)?;
    let registry = plugins.registry(Platform::Cuda)?;
    let dir = stage_dir(dump_dir, "hlox-compile-cuda");
    let options = compile_options(registry, Some(&dir));
    let pb = spinner(format!("compiling {} for CUDA", file.display()));
    let result = hlox_cuda::compile(&m, &options)
        .map_err(anyhow::Error::from)
        .and_then(|_| {
            std::fs::read(dir.join(name)).with_context(|| format!("reading the compiler's {name}"))
        })
        .with_context(|| format!("compiling {} for CUDA", file.display()));
    pb.finish_and_clear();
    if dump_dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let bytes = result?;
    match output {
        Some(p) => std::fs::write(p, bytes).with_context(|| format!("writing {}", p.display()))?,
        None => std::io::stdout().lock().write_all(&bytes)?,
    }
    Ok(())
}

/// `hlox dot`: GraphViz of the module. Each computation is a cluster; fusion
/// instructions link to their fused computation's cluster; custom calls are
/// highlighted with their target name.
pub fn dot(file: &Path, optimized: bool) -> Result<()> {
    let mut m = load_module(file)?;
    if optimized {
        hlox_passes::default_pipeline()
            .run(&mut m, &hlox_passes::PipelineOptions::default())
            .map_err(|e| anyhow::anyhow!("pass pipeline: {e}"))?;
    }
    std::io::stdout()
        .lock()
        .write_all(module_to_dot(&m).as_bytes())?;
    Ok(())
}

/// The GraphViz text of a module (see [`dot`]).
pub fn module_to_dot(m: &hlox_hlo::Module) -> String {
    use hlox_hlo::Op;
    use std::fmt::Write as _;
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "digraph \"{}\" {{\n  rankdir=TB;\n  node [shape=box, style=rounded, fontname=monospace];",
        esc(&m.name)
    );
    for (cid, comp) in m.computations.iter() {
        let is_fused = m.computations.values().any(|c| {
            c.instructions
                .values()
                .any(|i| matches!(i.op, Op::Fusion { .. }) && i.called.contains(&cid))
        });
        let style = if cid == m.entry {
            "bold"
        } else if is_fused {
            "filled"
        } else {
            "dashed"
        };
        let _ = writeln!(out, "  subgraph \"cluster_{cid}\" {{\n    label=\"{}{}\"; style={style}; fillcolor=\"#eef5ff\";",
            if cid == m.entry { "ENTRY " } else if is_fused { "fusion: " } else { "" }, esc(&comp.name));
        for (iid, inst) in comp.instructions.iter() {
            let shape = hlox_hlo::text::shape_to_string(&inst.shape);
            // Each node reads NAME, what it is, SHAPE; custom calls, fusions
            // and parameters stand out.
            let (what, attrs) = match &inst.op {
                Op::CustomCall(cc) => (
                    format!("custom-call \\\"{}\\\"", esc(&cc.target)),
                    ", style=\"rounded,filled\", fillcolor=\"#ffd8a8\", penwidth=2",
                ),
                Op::Fusion { kind } => (
                    format!("fusion {}", kind.name()),
                    ", style=\"rounded,filled\", fillcolor=\"#c5e1ff\"",
                ),
                Op::Parameter { number } => (format!("parameter({number})"), ", shape=ellipse"),
                op => (op.name().to_string(), ""),
            };
            let label = format!("{}\\n{what}\\n{}", esc(&inst.name), esc(&shape));
            let root = if iid == comp.root {
                ", peripheries=2"
            } else {
                ""
            };
            let _ = writeln!(out, "    \"{cid}_{iid}\" [label=\"{label}\"{attrs}{root}];");
            for (k, &op) in inst.operands.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "    \"{cid}_{op}\" -> \"{cid}_{iid}\" [label=\"{k}\"];"
                );
            }
        }
        let _ = writeln!(out, "  }}");
    }
    // Calls between computations, dashed.
    for (cid, comp) in m.computations.iter() {
        for (iid, inst) in comp.instructions.iter() {
            for &callee in &inst.called {
                let root = m.comp(callee).root;
                let _ = writeln!(out, "  \"{callee}_{root}\" -> \"{cid}_{iid}\" [style=dashed, color=gray, label=\"{}\"];", inst.op.name());
            }
        }
    }
    out.push_str("}\n");
    out
}

/// `hlox targets`: every registered target with its platform and api_version.
/// Where a target came from, in a few words (libraries by file name; the
/// full paths follow the table).
pub(crate) fn origin_short(o: &hlox_ffi::Origin) -> String {
    use hlox_ffi::Origin;
    let file = |p: &std::path::Path| {
        p.file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string())
    };
    match o {
        Origin::Macro { file, line } => format!("macro at {file}:{line}"),
        Origin::Rust => "Rust registration".into(),
        Origin::C => "C registration".into(),
        Origin::Plugin(p) => format!("registered by {}", file(p)),
        Origin::Symbol(p) => format!("symbol in {}", file(p)),
        Origin::XlaFfi(Some(p)) => format!("XLA_FFI_REGISTER_HANDLER in {}", file(p)),
        Origin::XlaFfi(None) => "XLA_FFI_REGISTER_HANDLER in the process".into(),
        Origin::Bound { symbol, library } => format!("--target to {symbol} in {}", file(library)),
    }
}

/// `hlox targets`; `--target` bindings are made for the Host.
pub fn targets(plugins: &Plugins, all: bool) -> Result<()> {
    let registry = plugins.registry(crate::Platform::Host)?;
    use hlox_ffi::Platform;
    let mut out = std::io::stdout().lock();
    let mut n = 0;
    let mut builtin = 0;
    let mut registering = std::collections::HashSet::new();
    for platform in [Platform::Host, Platform::Cuda] {
        for name in registry.names(platform) {
            let Some(t) = registry.lookup(&name, platform) else {
                continue;
            };
            let is_builtin = matches!(t.origin, hlox_ffi::Origin::Macro { .. })
                && hlox_jaxlib::TARGETS.contains(&name.as_str());
            if is_builtin {
                builtin += 1;
                if !all {
                    continue;
                }
            }
            // hlox's own targets (`hlox.collective`, what multi-device runs
            // call) are not the user's: listed with --all only.
            let is_internal =
                matches!(t.origin, hlox_ffi::Origin::Macro { .. }) && name.starts_with("hlox.");
            if is_internal && !all {
                continue;
            }
            if n == 0 {
                writeln!(
                    out,
                    "# {:30} {:8} {:36} details",
                    "name", "platform", "api_version"
                )?;
            }
            let api = t
                .signature
                .map(|s| s.api_version.name())
                .unwrap_or("(by symbol, any)");
            let mut details = Vec::new();
            if t.traits.contains(hlox_ffi::Traits::GRAPH_COMPATIBLE) {
                details.push("graph-compatible".to_string());
            }
            if let hlox_ffi::TargetFn::Ffi(h) = t.func {
                let mut stages = h.other_stages();
                if !stages.is_empty() {
                    stages.push("execute");
                    details.push(format!("stages {}", stages.join("+")));
                }
            }
            details.push(origin_short(&t.origin));
            if let hlox_ffi::Origin::Plugin(p) | hlox_ffi::Origin::XlaFfi(Some(p)) = &t.origin {
                registering.insert(p.clone());
            }
            let platform = platform.to_string();
            writeln!(
                out,
                "{name:32} {platform:8} {api:36} {}",
                details.join("; ")
            )?;
            n += 1;
        }
    }
    for lib in registry.libraries() {
        if lib.has_registration_function() || registering.contains(lib.path()) {
            writeln!(out, "# library {}", lib.path().display())?;
        } else {
            writeln!(
                out,
                "# library {}: registers nothing; a module's targets are looked up in it by symbol name (`nm -D --defined-only` lists them)",
                lib.path().display()
            )?;
        }
    }
    let user_targets = if all { n - builtin } else { n };
    if user_targets == 0 && registry.libraries().is_empty() {
        writeln!(
            out,
            "# no targets registered; pass --plugin LIB.so to load some"
        )?;
    }
    if builtin > 0 && !all {
        writeln!(
            out,
            "# built in: {builtin} of jaxlib's LAPACK targets for the Host (lapack_*_ffi, what JAX's linear algebra calls on the CPU); --all lists them"
        )?;
    }
    Ok(())
}
