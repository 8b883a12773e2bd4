//! The implementation of each subcommand.

use anyhow::Result;
use hlox_hlo::load::{load_module, save_module};
use std::io::Write;
use std::path::Path;

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
    file: &Path,
    inputs: &[std::path::PathBuf],
    plugins: &[std::path::PathBuf],
    out_dir: Option<&Path>,
    interpret: bool,
    random: Option<u64>,
    dump_dir: Option<&Path>,
    timings: bool,
) -> Result<()> {
    use anyhow::Context;
    let m = load_module(file)?;
    let registry = registry_with(plugins)?;
    let args = match random {
        Some(seed) if inputs.is_empty() => random_inputs(&m, seed)?,
        Some(_) => anyhow::bail!("--random fills every parameter; do not also pass --input"),
        None => read_inputs(file, &m, inputs)?,
    };
    let result = if interpret {
        hlox_eval::evaluate_with_registry(&m, &args, &registry)
            .with_context(|| format!("running {}", file.display()))?
    } else {
        let exe = compile_host(&m, registry, dump_dir)
            .with_context(|| format!("compiling {}", file.display()))?;
        if timings {
            print_timings(exe.report());
        }
        exe.execute(&args.iter().collect::<Vec<_>>())
            .with_context(|| format!("running {}", file.display()))?
    };
    write_outputs(&result, out_dir, true)
}

pub fn bench(
    file: &Path,
    inputs: &[std::path::PathBuf],
    plugins: &[std::path::PathBuf],
    iters: usize,
    warmup: usize,
    out_dir: Option<&Path>,
) -> Result<()> {
    use anyhow::{ensure, Context};
    use std::time::Instant;
    ensure!(iters > 0, "--iters must be at least 1");
    let m = load_module(file)?;
    let registry = registry_with(plugins)?;
    let args = read_inputs(file, &m, inputs)?;
    let refs: Vec<&hlox_hlo::Literal> = args.iter().collect();
    let t = Instant::now();
    let exe = compile_host(&m, registry, None)
        .with_context(|| format!("compiling {}", file.display()))?;
    let compile_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut last = None;
    for _ in 0..warmup {
        last = Some(exe.execute(&refs)?);
    }
    let mut times = Vec::with_capacity(iters);
    for _ in 0..iters {
        let t = Instant::now();
        last = Some(exe.execute(&refs)?);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    let median = if iters % 2 == 1 {
        times[iters / 2]
    } else {
        (times[iters / 2 - 1] + times[iters / 2]) / 2.0
    };
    if let Some(result) = &last {
        write_outputs(result, out_dir, false)?;
    }
    println!(
        "{{\"compile_ms\": {compile_ms:.3}, \"median_ms\": {median:.4}, \"min_ms\": {:.4}, \"iters\": {iters}}}",
        times[0]
    );
    Ok(())
}

fn print_timings(r: &hlox_cpu::CompileReport) {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    eprintln!("compile timings (ms):");
    eprintln!("  verify             {:9.3}", ms(r.verify));
    for (pass, d) in &r.passes {
        eprintln!("  pass {pass:<14}{:9.3}", ms(*d));
    }
    eprintln!("  bind targets       {:9.3}", ms(r.bind));
    eprintln!("  buffer assignment  {:9.3}", ms(r.buffer_assignment));
    eprintln!("  LLVM IR generation {:9.3}", ms(r.ir_generation));
    eprintln!("  LLVM optimization  {:9.3}", ms(r.optimization));
    eprintln!("  JIT                {:9.3}", ms(r.jit));
    eprintln!("  total              {:9.3}", ms(r.total));
    eprintln!("  arena bytes per run: {}", r.arena_bytes);
}

/// Compiles `m` for the Host with the given registry and dump directory.
fn compile_host(
    m: &hlox_hlo::Module,
    registry: hlox_ffi::Registry,
    dump_dir: Option<&Path>,
) -> Result<hlox_cpu::Executable> {
    let options = hlox_cpu::CompileOptions {
        dump_dir: dump_dir.map(Path::to_path_buf),
        registry: Some(std::sync::Arc::new(registry)),
        ..Default::default()
    };
    Ok(hlox_cpu::compile(m, &options)?)
}

fn registry_with(plugins: &[std::path::PathBuf]) -> Result<hlox_ffi::Registry> {
    let registry = hlox_ffi::Registry::with_static_targets()?;
    for p in plugins {
        registry.load_library(p)?;
    }
    Ok(registry)
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
             Pass one .npy file per parameter, in order.",
            file.display(),
            inputs.len()
        );
    }
    inputs
        .iter()
        .map(|p| {
            hlox_hlo::npy::read_npy_file(p)
                .with_context(|| format!("reading input {}", p.display()))
        })
        .collect()
}

fn write_outputs(
    result: &hlox_hlo::Literal,
    out_dir: Option<&Path>,
    summarize: bool,
) -> Result<()> {
    use anyhow::Context;
    if let Some(dir) = out_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut out = std::io::stdout().lock();
    for (i, leaf) in result.leaves().into_iter().enumerate() {
        if let Some(dir) = out_dir {
            let path = dir.join(format!("out{i}.npy"));
            hlox_hlo::npy::write_npy_file(&path, leaf)
                .with_context(|| format!("writing {}", path.display()))?;
        }
        if summarize {
            writeln!(out, "out{i}: {}", summary(leaf))?;
        }
    }
    Ok(())
}

/// `f32[2048]{0} min=-1 max=3.5 mean=0.25 [0.5, 1, ...]`: shape, statistics and first values.
pub fn summary(leaf: &hlox_hlo::Literal) -> String {
    use hlox_hlo::ElementType as T;
    let shape = hlox_hlo::text::shape_to_string(&leaf.shape());
    let Ok(a) = leaf.as_array() else {
        return shape;
    };
    let vals: Option<Vec<f64>> = match a.ty() {
        T::Pred => a
            .to_vec::<bool>()
            .ok()
            .map(|v| v.into_iter().map(|b| b as u8 as f64).collect()),
        T::S8 => a
            .to_vec::<i8>()
            .ok()
            .map(|v| v.into_iter().map(f64::from).collect()),
        T::S16 => a
            .to_vec::<i16>()
            .ok()
            .map(|v| v.into_iter().map(f64::from).collect()),
        T::S32 => a
            .to_vec::<i32>()
            .ok()
            .map(|v| v.into_iter().map(f64::from).collect()),
        T::S64 => a
            .to_vec::<i64>()
            .ok()
            .map(|v| v.into_iter().map(|x| x as f64).collect()),
        T::U8 => a
            .to_vec::<u8>()
            .ok()
            .map(|v| v.into_iter().map(f64::from).collect()),
        T::U16 => a
            .to_vec::<u16>()
            .ok()
            .map(|v| v.into_iter().map(f64::from).collect()),
        T::U32 => a
            .to_vec::<u32>()
            .ok()
            .map(|v| v.into_iter().map(f64::from).collect()),
        T::U64 => a
            .to_vec::<u64>()
            .ok()
            .map(|v| v.into_iter().map(|x| x as f64).collect()),
        T::F16 => a
            .to_vec::<half::f16>()
            .ok()
            .map(|v| v.into_iter().map(|x| x.to_f64()).collect()),
        T::Bf16 => a
            .to_vec::<half::bf16>()
            .ok()
            .map(|v| v.into_iter().map(|x| x.to_f64()).collect()),
        T::F32 => a
            .to_vec::<f32>()
            .ok()
            .map(|v| v.into_iter().map(f64::from).collect()),
        T::F64 => a.to_vec::<f64>().ok(),
    };
    let Some(v) = vals else { return shape };
    if v.is_empty() {
        return format!("{shape} (empty)");
    }
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let first: Vec<String> = v.iter().take(6).map(|x| format!("{x}")).collect();
    let more = if v.len() > 6 { ", ..." } else { "" };
    format!(
        "{shape} min={min} max={max} mean={mean:.6} [{}{more}]",
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
                let n = a.element_count();
                let mut unit = || (next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
                let dims = &a.dims;
                let lit = match a.ty {
                    T::F32 => {
                        Literal::from_vec(dims, &(0..n).map(|_| unit() as f32).collect::<Vec<_>>())
                    }
                    T::F64 => Literal::from_vec(dims, &(0..n).map(|_| unit()).collect::<Vec<_>>()),
                    T::F16 => Literal::from_vec(
                        dims,
                        &(0..n)
                            .map(|_| half::f16::from_f64(unit()))
                            .collect::<Vec<_>>(),
                    ),
                    T::Bf16 => Literal::from_vec(
                        dims,
                        &(0..n)
                            .map(|_| half::bf16::from_f64(unit()))
                            .collect::<Vec<_>>(),
                    ),
                    T::Pred => {
                        Literal::from_vec(dims, &(0..n).map(|_| unit() >= 0.0).collect::<Vec<_>>())
                    }
                    T::S8 => Literal::from_vec(
                        dims,
                        &(0..n).map(|_| (unit() * 10.5) as i8).collect::<Vec<_>>(),
                    ),
                    T::S16 => Literal::from_vec(
                        dims,
                        &(0..n).map(|_| (unit() * 10.5) as i16).collect::<Vec<_>>(),
                    ),
                    T::S32 => Literal::from_vec(
                        dims,
                        &(0..n).map(|_| (unit() * 10.5) as i32).collect::<Vec<_>>(),
                    ),
                    T::S64 => Literal::from_vec(
                        dims,
                        &(0..n).map(|_| (unit() * 10.5) as i64).collect::<Vec<_>>(),
                    ),
                    T::U8 => Literal::from_vec(
                        dims,
                        &(0..n)
                            .map(|_| ((unit() + 1.0) * 10.0) as u8)
                            .collect::<Vec<_>>(),
                    ),
                    T::U16 => Literal::from_vec(
                        dims,
                        &(0..n)
                            .map(|_| ((unit() + 1.0) * 10.0) as u16)
                            .collect::<Vec<_>>(),
                    ),
                    T::U32 => Literal::from_vec(
                        dims,
                        &(0..n)
                            .map(|_| ((unit() + 1.0) * 10.0) as u32)
                            .collect::<Vec<_>>(),
                    ),
                    T::U64 => Literal::from_vec(
                        dims,
                        &(0..n)
                            .map(|_| ((unit() + 1.0) * 10.0) as u64)
                            .collect::<Vec<_>>(),
                    ),
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
        .map(|&p| fill(&comp.inst(p).shape, &mut next))
        .collect()
}

/// `hlox compile --emit STAGE`.
pub fn compile(
    file: &Path,
    emit: crate::Emit,
    output: Option<&Path>,
    plugins: &[std::path::PathBuf],
) -> Result<()> {
    use crate::Emit;
    use anyhow::Context;
    let m = load_module(file)?;
    let registry = registry_with(plugins)?;
    let text = if let Emit::Hlo = emit {
        hlox_hlo::text::print_module(&m)
    } else {
        // The compiler writes every stage into a dump directory; take the one asked for.
        let dir = std::env::temp_dir().join(format!(
            "hlox-compile-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        let result = compile_host(&m, registry, Some(&dir))
            .with_context(|| format!("compiling {}", file.display()));
        let name = match emit {
            Emit::Hlo => unreachable!("handled above"),
            Emit::HloOpt => "module.optimized.hlo",
            Emit::LlvmIr => "module.ll",
            Emit::LlvmIrOpt => "module.opt.ll",
            Emit::Asm => "module.s",
        };
        let text = result.and_then(|_| {
            std::fs::read_to_string(dir.join(name))
                .with_context(|| format!("reading the compiler's {name}"))
        });
        let _ = std::fs::remove_dir_all(&dir);
        text?
    };
    match output {
        Some(p) => std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
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
            let (label, attrs) = match &inst.op {
                Op::CustomCall(cc) => (
                    format!(
                        "{}\\ncustom-call \\\"{}\\\"\\n{}",
                        esc(&inst.name),
                        esc(&cc.target),
                        esc(&shape)
                    ),
                    ", style=\"rounded,filled\", fillcolor=\"#ffd8a8\", penwidth=2",
                ),
                Op::Fusion { kind } => (
                    format!(
                        "{}\\nfusion {}\\n{}",
                        esc(&inst.name),
                        kind.name(),
                        esc(&shape)
                    ),
                    ", style=\"rounded,filled\", fillcolor=\"#c5e1ff\"",
                ),
                Op::Parameter { number } => (
                    format!(
                        "{}\\nparameter({number})\\n{}",
                        esc(&inst.name),
                        esc(&shape)
                    ),
                    ", shape=ellipse",
                ),
                op => (
                    format!("{}\\n{}\\n{}", esc(&inst.name), op.name(), esc(&shape)),
                    "",
                ),
            };
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
pub fn targets(plugins: &[std::path::PathBuf]) -> Result<()> {
    use hlox_ffi::Platform;
    let registry = registry_with(plugins)?;
    let mut out = std::io::stdout().lock();
    let mut n = 0;
    for platform in [Platform::Host, Platform::Cuda] {
        for name in registry.names(platform) {
            let Some(t) = registry.lookup(&name, platform) else {
                continue;
            };
            let api = t
                .signature
                .map(|s| s.api_version.name())
                .unwrap_or("(by symbol, any)");
            writeln!(out, "{name:32} {platform:5} {api}")?;
            n += 1;
        }
    }
    for lib in registry.libraries() {
        writeln!(out, "# library {}", lib.path().display())?;
    }
    if n == 0 {
        writeln!(
            out,
            "# no targets registered; pass --plugin LIB.so to load some"
        )?;
    }
    Ok(())
}
