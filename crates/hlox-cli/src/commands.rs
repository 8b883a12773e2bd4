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
    dump_dir: Option<&Path>,
    timings: bool,
) -> Result<()> {
    use anyhow::Context;
    let m = load_module(file)?;
    let registry = registry_with(plugins)?;
    let args = read_inputs(file, &m, inputs)?;
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
