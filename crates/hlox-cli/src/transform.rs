//! `hlox grad`, `hlox vjp`, `hlox jvp` and `hlox vmap`: the transformations
//! of hlox-transform on module files (conventions in docs/transforms.md).

use anyhow::{bail, Context, Result};
use hlox_hlo::load::{load_module, save_module};
use hlox_transform::{Rules, VmapMethod};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Options of `grad`, `vjp` and `jvp`.
#[derive(clap::Args)]
pub struct DiffArgs {
    /// The module: HLO text, or a binary HloModuleProto (.pb).
    module: PathBuf,
    /// The entry parameters to differentiate with respect to, by number
    /// (comma-separated; default 0).
    #[arg(long, value_delimiter = ',', default_value = "0")]
    wrt: Vec<usize>,
    /// Where to write the transformed module (.hlo or .pb); stdout (HLO
    /// text) without it.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// An HLO module of custom-call rules: computations named jvp.TARGET
    /// and vjp.TARGET (repeatable).
    #[arg(long = "rules", value_name = "FILE.hlo")]
    rules: Vec<PathBuf>,
    /// A custom-call plugin whose registration gives rules
    /// (`register_rules`; repeatable). --rules files override them.
    #[arg(short, long = "plugin", value_name = "LIB.so")]
    plugins: Vec<PathBuf>,
}

/// Options of `vmap`.
#[derive(clap::Args)]
pub struct VmapArgs {
    /// The module: HLO text, or a binary HloModuleProto (.pb).
    module: PathBuf,
    /// The batch axis of each entry parameter, or `none` (comma-separated,
    /// one per parameter).
    #[arg(long, value_delimiter = ',', required = true)]
    in_axes: Vec<String>,
    /// The batch size.
    #[arg(long)]
    size: i64,
    /// Where to write the transformed module (.hlo or .pb); stdout (HLO
    /// text) without it.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// How calls of a custom-call target are batched:
    /// TARGET=sequential|expand_dims|broadcast_all (repeatable).
    #[arg(long = "vmap-method", value_name = "TARGET=METHOD")]
    vmap_methods: Vec<String>,
    /// An HLO module of custom-call rules (repeatable).
    #[arg(long = "rules", value_name = "FILE.hlo")]
    rules: Vec<PathBuf>,
    /// A custom-call plugin whose registration gives rules
    /// (`register_rules`; repeatable). --rules files override them.
    #[arg(short, long = "plugin", value_name = "LIB.so")]
    plugins: Vec<PathBuf>,
}

/// Which transformation `DiffArgs` are for.
#[derive(Copy, Clone)]
pub enum Diff {
    Grad,
    Vjp,
    Jvp,
}

/// The rules of the jaxlib targets hlox ships, then those the `plugins`
/// register, then those of the `files` (each replacing the earlier ones'
/// rule for the same target).
fn load_rules(plugins: &[PathBuf], files: &[PathBuf]) -> Result<Rules> {
    let mut rules = hlox_jaxlib::rules::rules();
    if !plugins.is_empty() {
        let registry = hlox_ffi::Registry::new();
        for p in plugins {
            registry.load_library(p)?;
        }
        for r in registry.rule_modules() {
            rules.merge(Rules::from_module((*r.module).clone()));
        }
    }
    for f in files {
        let m = load_module(f).with_context(|| format!("--rules {}", f.display()))?;
        rules.merge(Rules::from_module(m));
    }
    Ok(rules)
}

fn write(m: &hlox_hlo::Module, output: Option<&Path>) -> Result<()> {
    match output {
        Some(p) => save_module(m, p).with_context(|| format!("writing {}", p.display()))?,
        None => {
            let text = hlox_hlo::text::print_module(m);
            std::io::stdout().lock().write_all(text.as_bytes())?;
        }
    }
    Ok(())
}

pub fn diff(kind: Diff, a: DiffArgs) -> Result<()> {
    let m = load_module(&a.module)?;
    let rules = load_rules(&a.plugins, &a.rules)?;
    let out = match kind {
        Diff::Grad => hlox_transform::grad_with(&m, &a.wrt, &rules),
        Diff::Vjp => hlox_transform::vjp_with(&m, &a.wrt, &rules),
        Diff::Jvp => hlox_transform::jvp_with(&m, &a.wrt, &rules),
    }
    .with_context(|| a.module.display().to_string())?;
    write(&out, a.output.as_deref())
}

pub fn vmap(a: VmapArgs) -> Result<()> {
    let m = load_module(&a.module)?;
    let mut rules = load_rules(&a.plugins, &a.rules)?;
    for spec in &a.vmap_methods {
        let Some((target, method)) = spec.split_once('=') else {
            bail!("--vmap-method {spec:?}: expected TARGET=METHOD (METHOD: sequential, expand_dims or broadcast_all)");
        };
        let Some(method) = VmapMethod::from_name(method) else {
            bail!("--vmap-method {spec:?}: unknown method {method:?}; use sequential, expand_dims or broadcast_all");
        };
        rules.vmap_method(target, method);
    }
    let mut axes = Vec::with_capacity(a.in_axes.len());
    for (i, s) in a.in_axes.iter().enumerate() {
        axes.push(match s.trim() {
            "none" | "None" => None,
            t => Some(t.parse::<usize>().with_context(|| {
                format!("--in-axes entry {i} is {t:?}: expected a dimension number or `none`")
            })?),
        });
    }
    let out = hlox_transform::vmap_with(&m, &axes, a.size, &rules)
        .with_context(|| a.module.display().to_string())?;
    write(&out, a.output.as_deref())
}
