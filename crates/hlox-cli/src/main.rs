//! `hlox`: the command-line face of the hlox HLO compiler.
//!
//! Exit codes: 0 success, 1 user error (bad input, bad flags, failed
//! verification, failed custom call), 2 internal error (a bug in hlox:
//! please report it).
//!
//! Logging: `HLOX_LOG` (a `tracing` filter such as `debug` or
//! `hlox_passes=trace`) turns on log lines on stderr; unset, nothing extra
//! is printed. Progress (a spinner while compiling, a bar while
//! benchmarking) is drawn on stderr only when it is a terminal.

use anyhow::Result;
use clap::{Parser, Subcommand};
use hlox_passes::frontend::CompileError;
use std::path::PathBuf;
use std::process::ExitCode;

mod commands;
mod devices;
mod doctor;
mod mpi;
mod transform;

#[derive(Parser)]
#[command(
    name = "hlox",
    version,
    about = "An XLA-style HLO compiler whose strength is custom-call targets",
    long_about = "hlox reads HLO modules (XLA's text syntax, or HloModuleProto files that JAX/XLA \
                  serialized), verifies them, prints them back in XLA's syntax, and runs them.\n\n\
                  Files ending in .pb are binary HloModuleProto; anything else is HLO text.\n\n\
                  Examples:\n  \
                  hlox run tests/corpus/softmax/module.pb -i tests/corpus/softmax/in0.npy\n  \
                  hlox compile model.hlo --emit asm -o model.s",
    after_long_help = "Environment:\n  \
                       HLOX_LOG=debug             log every pass and compile phase to stderr\n  \
                       HLOX_LOG=hlox_passes=trace one crate only (a tracing-subscriber filter)\n  \
                       HLOX_CACHE_DIR=DIR         the Host's compilation cache (as --cache-dir)\n\n\
                       Exit codes: 0 success, 1 user error, 2 internal error (a bug in hlox).\n\
                       More: docs/cli.md and docs/debugging.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse (or decode) and verify a module, then print its canonical HLO text.
    ///
    /// Example: hlox fmt model.hlo > model.canonical.hlo
    Fmt {
        /// The module: HLO text, or a binary HloModuleProto (.pb).
        file: PathBuf,
    },
    /// Convert a module between HLO text (.hlo) and binary HloModuleProto (.pb).
    ///
    /// The formats are chosen by extension. The module is verified first.
    /// Example: hlox convert model.hlo -o model.pb
    Convert {
        /// Input module (.hlo or .pb).
        input: PathBuf,
        /// Output file (.hlo or .pb).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Run a module on inputs and write its outputs.
    ///
    /// Each leaf of the result (pre-order) is written as DIR/out0.npy,
    /// DIR/out1.npy, ... and summarized on stdout, one line per output.
    /// Custom-call targets come from --plugin libraries (registered through
    /// `hlox_register_custom_call_targets`, or found by symbol name).
    ///
    /// The module is compiled for the Host (LLVM) unless --interpret is given.
    ///
    /// Example: hlox run seed.hlo --input b.npy --input c.npy --plugin ./libtargets.so
    Run {
        /// The module: HLO text, or a binary HloModuleProto (.pb).
        file: PathBuf,
        /// One .npy file per entry parameter, in parameter order.
        #[arg(short, long = "input", value_name = "X.npy")]
        inputs: Vec<PathBuf>,
        #[command(flatten)]
        plugins: PluginArgs,
        /// Write out0.npy, out1.npy, ... into this directory.
        #[arg(short, long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// Run with the reference evaluator (an interpreter) instead of compiling.
        #[arg(long)]
        interpret: bool,
        /// Fill every parameter with seeded random data of its shape instead of --input files.
        #[arg(long, value_name = "SEED", num_args = 0..=1, default_missing_value = "0")]
        random: Option<u64>,
        /// Write the HLO before and after every pass, the buffer assignment,
        /// the LLVM IR before and after optimization, and the assembly here.
        #[arg(long, value_name = "DIR")]
        dump_dir: Option<PathBuf>,
        /// Print per-phase and per-pass compile times to stderr.
        #[arg(long)]
        timings: bool,
        /// Host: keep compiled code in this directory and load it from
        /// there when the same module is compiled again (default:
        /// $HLOX_CACHE_DIR; docs/cli.md). Not used with --dump-dir or
        /// --sandbox.
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
        /// Where to compile and run.
        #[arg(long, value_enum, default_value = "host")]
        platform: Platform,
        /// Stop an execution that runs longer than this many seconds
        /// (each run, for bench), with exit code 3.
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
        /// Run every custom call in the sandbox: buffers against guard
        /// pages, a fault or C++ exception in a target becomes its error
        /// (docs/reliability.md).
        #[arg(long)]
        sandbox: bool,
        /// With the sandbox: fail when a custom call's float result holds
        /// NaN or an infinity, or it left a result untouched.
        #[arg(long)]
        check_results: bool,
        /// With the sandbox: write a reproducer of a failing custom call
        /// into DIR/<instruction>/.
        #[arg(long, value_name = "DIR")]
        repro_dir: Option<PathBuf>,
        /// Round every bf16 result to bf16, as XLA does with
        /// --xla_allow_excess_precision=false (default: XLA's default, where
        /// a convert to f32 of a bf16 arithmetic result reads it unrounded;
        /// docs/numerics.md).
        #[arg(long)]
        no_excess_precision: bool,
        /// Run on N Host devices, threads of this process: shard_map
        /// regions on each device's shard, collectives between them
        /// (docs/multi-device.md). With --platform cuda: N GPUs,
        /// collectives through NCCL (a build with the nccl feature).
        #[arg(long, value_name = "N", default_value_t = 1)]
        devices: usize,
        /// Run as one device of an MPI job: each rank of
        /// `mpirun -np P hlox run MODULE --mpi` is a device; rank 0 writes.
        #[arg(long, conflicts_with = "devices")]
        mpi: bool,
        /// How long a device waits at a collective for the others before
        /// the run fails naming the devices that did not arrive.
        #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
        collective_timeout: f64,
    },
    /// Compile a module and write one stage of the result.
    ///
    /// hlo: the verified input as canonical HLO text; hlo-opt: after the
    /// pass pipeline; llvm-ir: LLVM IR before optimization; llvm-ir-opt:
    /// after; asm: the assembly; obj: a relocatable object file (ELF), for
    /// objdump/nm (it calls runtime helpers and custom-call targets at
    /// addresses of the compiling process, so it cannot be linked and run
    /// elsewhere); ptx: the CUDA platform's PTX.
    ///
    /// Example: hlox compile model.hlo --emit asm -o model.s
    /// Example: hlox compile model.hlo --emit obj -o model.o && nm model.o
    Compile {
        /// The module: HLO text, or a binary HloModuleProto (.pb).
        file: PathBuf,
        /// The stage to write.
        #[arg(long, value_enum, default_value = "hlo-opt")]
        emit: Emit,
        /// The platform to compile for.
        #[arg(long, value_enum, default_value = "host")]
        platform: Platform,
        /// Output file (default: stdout).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        plugins: PluginArgs,
        /// Also keep every stage here: the HLO before and after every pass,
        /// LLVM IR before and after optimization, and the assembly (Host)
        /// or the program and PTX (CUDA).
        #[arg(long, value_name = "DIR")]
        dump_dir: Option<PathBuf>,
    },
    /// Print the module as a GraphViz graph (fusions as clusters, custom calls highlighted).
    ///
    /// Example: hlox dot model.hlo | dot -Tsvg > model.svg
    Dot {
        /// The module: HLO text, or a binary HloModuleProto (.pb).
        file: PathBuf,
        /// Run the pass pipeline first, to see the fusions.
        #[arg(long)]
        optimized: bool,
    },
    /// Check a module's custom calls before running it.
    ///
    /// For every custom call: which library and symbol serve it, its
    /// api_version, how the binding was checked (registered signature,
    /// typed-FFI metadata, or an unchecked plain symbol), and every problem
    /// found. Nothing runs; exit code 1 when there is a problem.
    ///
    /// Example: hlox doctor model.hlo --plugin ./libtargets.so
    Doctor {
        /// The module: HLO text, or a binary HloModuleProto (.pb).
        file: PathBuf,
        #[command(flatten)]
        plugins: PluginArgs,
        /// The platform whose targets to check.
        #[arg(long, value_enum, default_value = "host")]
        platform: Platform,
    },
    /// List the registered custom-call targets with platform and api_version.
    ///
    /// Example: hlox targets --plugin ./libtargets.so
    Targets {
        #[command(flatten)]
        plugins: PluginArgs,
        /// Also list the built-in targets one by one (jaxlib's LAPACK
        /// targets; by default they are summed up in one line).
        #[arg(long)]
        all: bool,
    },
    /// Compile once, run many times, and print timings as one JSON line.
    ///
    /// The last line of output is
    /// {"compile_ms": ..., "median_ms": ..., "min_ms": ..., "iters": N}.
    /// Example: hlox bench model.pb -i x.npy --iters 100 --warmup 10
    /// Example: hlox bench model.pb --random --iters 100
    Bench {
        /// The module: HLO text, or a binary HloModuleProto (.pb).
        file: PathBuf,
        /// One .npy file per entry parameter, in parameter order.
        #[arg(short, long = "input", value_name = "X.npy")]
        inputs: Vec<PathBuf>,
        #[command(flatten)]
        plugins: PluginArgs,
        /// Timed runs.
        #[arg(long, default_value_t = 20)]
        iters: usize,
        /// Untimed runs before the timed ones.
        #[arg(long, default_value_t = 3)]
        warmup: usize,
        /// Fill every parameter with seeded random data of its shape instead of --input files.
        #[arg(long, value_name = "SEED", num_args = 0..=1, default_missing_value = "0")]
        random: Option<u64>,
        /// Also write the last run's outputs as out0.npy, ... here.
        #[arg(short, long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// Where to compile and run.
        #[arg(long, value_enum, default_value = "host")]
        platform: Platform,
        /// CUDA: interpret every run instead of replaying the first as a
        /// CUDA graph.
        #[arg(long)]
        no_cuda_graphs: bool,
        /// Host: time every instruction of the entry computation over the
        /// timed runs (as XLA's --xla_hlo_profile) and print a table, the
        /// slowest first, on stderr before the JSON line. The
        /// instrumentation adds two clock reads per instruction.
        #[arg(long)]
        profile: bool,
        /// Stop an execution that runs longer than this many seconds
        /// (each run, for bench), with exit code 3.
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
        /// Host: keep compiled code in this directory and load it from
        /// there when the same module is compiled again (default:
        /// $HLOX_CACHE_DIR; docs/cli.md).
        #[arg(long, value_name = "DIR")]
        cache_dir: Option<PathBuf>,
        /// Compile the module this many times in this process: compile_ms
        /// is the first (cold: a fresh process), warm_compile_ms the
        /// fastest of the others (as a long-lived process such as Python
        /// compiles; no cache unless --cache-dir or $HLOX_CACHE_DIR). The
        /// split (ir_ms, llvm_opt_ms, jit_ms) is the last compile's.
        #[arg(long, value_name = "N", default_value_t = 1)]
        compile_rounds: usize,
    },
    /// The gradient of a module's scalar result: OUT takes the module's
    /// parameters and returns the tuple of the gradients, in --wrt order.
    ///
    /// Example: hlox grad loss.hlo --wrt 0,2 -o grad.hlo (docs/transforms.md)
    Grad(transform::DiffArgs),
    /// Reverse mode: OUT takes the module's parameters, then one cotangent
    /// per result leaf, and returns the tuple of the --wrt cotangents.
    ///
    /// Example: hlox vjp model.hlo --wrt 0 -o vjp.hlo
    Vjp(transform::DiffArgs),
    /// Forward mode: OUT takes the module's parameters, then one tangent
    /// per --wrt parameter, and returns the result leaves and their tangents.
    ///
    /// Example: hlox jvp model.hlo --wrt 0,1 -o jvp.hlo
    Jvp(transform::DiffArgs),
    /// Batching: parameters batched at --in-axes (`none`: not batched),
    /// every result leaf batched at axis 0.
    ///
    /// Example: hlox vmap model.hlo --in-axes 0,none --size 8 -o batched.hlo
    Vmap(transform::VmapArgs),
}

/// `--platform`: where a module is compiled (and run).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Platform {
    /// This machine's CPU, through LLVM.
    Host,
    /// An NVIDIA GPU (PTX through LLVM's NVPTX backend).
    Cuda,
}

/// What `hlox compile --emit` writes.
#[derive(Copy, Clone, Debug, clap::ValueEnum)]
pub enum Emit {
    Hlo,
    HloOpt,
    LlvmIr,
    LlvmIrOpt,
    Asm,
    Obj,
    Ptx,
}

/// Where custom-call targets come from: the options of every subcommand
/// that binds them.
#[derive(clap::Args)]
struct PluginArgs {
    /// A shared library with custom-call targets (repeatable).
    #[arg(short, long = "plugin", value_name = "LIB.so")]
    plugins: Vec<PathBuf>,
    /// Bind custom-call target NAME to the function SYMBOL that a
    /// --plugin library exports, as JAX's register_ffi_target does
    /// (repeatable). API (1-4 or API_VERSION_*) fixes the api_version;
    /// without it each call's api_version is trusted.
    #[arg(long = "target", value_name = "NAME=SYMBOL[:API]")]
    targets: Vec<hlox_ffi::SymbolBinding>,
}

impl PluginArgs {
    fn plugins(&self) -> commands::Plugins<'_> {
        commands::Plugins::new(&self.plugins, &self.targets)
    }
}

fn run(cli: Cli) -> Result<()> {
    if let Command::Run { timeout, .. } | Command::Bench { timeout, .. } = &cli.command {
        commands::set_timeout(*timeout)?;
    }
    if let Command::Run { cache_dir, .. } | Command::Bench { cache_dir, .. } = &cli.command {
        commands::set_cache_dir(cache_dir.as_deref());
    }
    if let Command::Run {
        sandbox,
        check_results,
        repro_dir,
        ..
    } = &cli.command
    {
        commands::set_sandbox(*sandbox, *check_results, repro_dir.as_deref());
    }
    match cli.command {
        Command::Fmt { file } => commands::fmt(&file),
        Command::Convert { input, output } => commands::convert(&input, &output),
        Command::Run {
            file,
            inputs,
            plugins,
            out_dir,
            interpret,
            random,
            dump_dir,
            timings,
            platform,
            no_excess_precision,
            devices,
            mpi,
            collective_timeout,
            ..
        } => {
            if no_excess_precision {
                commands::set_half_rounding(hlox_eval::HalfRounding::EveryOp);
            }
            let plugins = plugins.plugins();
            if devices == 1 && !mpi {
                commands::run(
                    platform,
                    &file,
                    &inputs,
                    &plugins,
                    out_dir.as_deref(),
                    interpret,
                    random,
                    dump_dir.as_deref(),
                    timings,
                )
            } else {
                anyhow::ensure!(
                    platform == Platform::Host || !mpi,
                    "--mpi runs on Host devices; drop --platform cuda (--platform cuda \
                     --devices N runs on N GPUs of one process)"
                );
                anyhow::ensure!(devices >= 1, "--devices must be at least 1");
                let args = devices::DeviceArgs {
                    file: &file,
                    inputs: &inputs,
                    plugins: &plugins,
                    out_dir: out_dir.as_deref(),
                    interpret,
                    random,
                    dump_dir: dump_dir.as_deref(),
                    collective_timeout,
                };
                if platform == Platform::Cuda {
                    return devices::run_cuda(devices, &args);
                }
                let launch = if mpi {
                    devices::Launch::Mpi
                } else {
                    devices::Launch::Threads(devices)
                };
                devices::run(launch, &args)
            }
        }
        Command::Compile {
            file,
            emit,
            platform,
            output,
            plugins,
            dump_dir,
        } => commands::compile(
            &file,
            emit,
            platform,
            output.as_deref(),
            &plugins.plugins(),
            dump_dir.as_deref(),
        ),
        Command::Dot { file, optimized } => commands::dot(&file, optimized),
        Command::Targets { plugins, all } => commands::targets(&plugins.plugins(), all),
        Command::Doctor {
            file,
            plugins,
            platform,
        } => doctor::doctor(&file, &plugins.plugins(), platform),
        Command::Grad(a) => transform::diff(transform::Diff::Grad, a),
        Command::Vjp(a) => transform::diff(transform::Diff::Vjp, a),
        Command::Jvp(a) => transform::diff(transform::Diff::Jvp, a),
        Command::Vmap(a) => transform::vmap(a),
        Command::Bench {
            file,
            inputs,
            plugins,
            iters,
            warmup,
            random,
            out_dir,
            platform,
            no_cuda_graphs,
            profile,
            timeout: _,
            cache_dir: _,
            compile_rounds,
        } => commands::bench(
            platform,
            &file,
            &inputs,
            &plugins.plugins(),
            iters,
            warmup,
            random,
            out_dir.as_deref(),
            !no_cuda_graphs,
            profile,
            compile_rounds,
        ),
    }
}

/// Log lines on stderr when `HLOX_LOG` is set (a `tracing` env filter);
/// nothing otherwise. Returns whether logging is on.
fn init_logging() -> Result<bool, String> {
    let Ok(filter) = std::env::var("HLOX_LOG") else {
        return Ok(false);
    };
    if filter.trim().is_empty() {
        return Ok(false);
    }
    let filter = tracing_subscriber::EnvFilter::try_new(&filter).map_err(|e| {
        format!(
            "HLOX_LOG={filter:?} is not a valid log filter ({e}); use a level such as \
             HLOX_LOG=debug, or per crate such as HLOX_LOG=hlox_passes=trace,hlox_cpu=debug"
        )
    })?;
    use std::io::IsTerminal;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(true)
        .init();
    Ok(true)
}

/// The error and its causes as one paragraph, `what: why: why`, leaving out
/// a cause whose text the message already contains (many error types print
/// their source themselves).
fn paragraph(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if msg.contains(&text) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&text);
    }
    msg
}

/// What to do about custom-call binding problems whose messages (from
/// hlox-ffi) say what failed but not how to fix it.
fn hints(e: &anyhow::Error) -> String {
    use hlox_ffi::BindProblem;
    let mut out = String::new();
    for cause in e.chain() {
        let b = match cause.downcast_ref::<CompileError>() {
            Some(CompileError::Bind(b)) => b,
            _ => match cause.downcast_ref::<hlox_ffi::BindError>() {
                Some(b) => b,
                None => continue,
            },
        };
        if b.problems
            .iter()
            .any(|p| matches!(p, BindProblem::ApiMismatch { .. }))
        {
            out.push_str(
                "\nfix: make the custom call's api_version match the signature its target was \
                 registered with (or register the function with the convention the call uses; \
                 `hlox targets --plugin LIB.so` lists what is registered)",
            );
        }
        if b.problems
            .iter()
            .any(|p| matches!(p, BindProblem::Handler { .. }))
        {
            out.push_str(
                "\nfix: a typed-FFI target must be an XLA FFI handler (XLA_FFI_DEFINE_HANDLER_SYMBOL or \
                 XLA_FFI_REGISTER_HANDLER from xla/ffi/api/ffi.h) built against FFI API 0.x with x <= 4",
            );
        }
    }
    out
}

/// Whether an error is hlox's fault rather than the user's (exit code 2):
/// an internal compile error on either platform (one error type).
fn is_internal(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<CompileError>()
            .is_some_and(CompileError::is_internal)
    })
}

fn main() -> ExitCode {
    // Usage errors are user errors (exit 1), not clap's default 2, which
    // hlox keeps for its own bugs; --help and --version exit 0.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match init_logging() {
        Ok(on) => commands::set_logging(on),
        Err(msg) => {
            eprintln!("error: {msg}");
            return ExitCode::from(1);
        }
    }
    // A panic is a bug in hlox, never the user's fault: report it as an
    // internal error with exit code 2 instead of Rust's default 101.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("hlox: internal error (this is a bug in hlox, please report it): {info}");
    }));
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        // `hlox ... | head` closing the pipe early is not an error.
        Ok(Err(e))
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Ok(Err(e)) if commands::is_timeout(&e) => {
            eprintln!(
                "error: {}\nfix: raise --timeout, or check why the module runs this long \
                 (a while loop whose condition never turns false?)",
                paragraph(&e)
            );
            ExitCode::from(commands::EXIT_TIMEOUT)
        }
        Ok(Err(e)) if is_internal(&e) => {
            eprintln!(
                "internal error (this is a bug in hlox, please report it with the module): {e:#}"
            );
            ExitCode::from(2)
        }
        Ok(Err(e)) => {
            eprintln!("error: {}{}", paragraph(&e), hints(&e));
            ExitCode::from(1)
        }
        Err(_) => ExitCode::from(2),
    }
}
