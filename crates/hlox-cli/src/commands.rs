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

pub fn run(
    file: &Path,
    inputs: &[std::path::PathBuf],
    plugins: &[std::path::PathBuf],
    out_dir: Option<&Path>,
    interpret: bool,
) -> Result<()> {
    use anyhow::{bail, Context};
    let m = load_module(file)?;
    let registry = hlox_ffi::Registry::with_static_targets()?;
    for p in plugins {
        registry.load_library(p)?;
    }
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
    let args = inputs
        .iter()
        .map(|p| {
            hlox_hlo::npy::read_npy_file(p)
                .with_context(|| format!("reading input {}", p.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    if !interpret {
        bail!(
            "compiled execution (the Host backend) is not available in this build yet; \
             add --interpret to run {} with the reference evaluator",
            file.display()
        );
    }
    let result = hlox_eval::evaluate_with_registry(&m, &args, &registry)
        .with_context(|| format!("running {}", file.display()))?;
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
        writeln!(out, "out{i}: {}", summary(leaf))?;
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
