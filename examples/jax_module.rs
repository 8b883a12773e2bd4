//! A module exported by JAX, run unchanged: the serialized HloModuleProto of
//! an MLP forward pass (`tests/corpus/mlp_forward/module.pb`, made by
//! `scripts/gen_jax_corpus.py` with `jax.jit(f).lower(...)`), on the inputs
//! JAX used, compared with JAX's outputs.
//!
//! Run: `cargo run --example jax_module`.

use anyhow::{ensure, Result};

fn main() -> Result<()> {
    let dir = hlox_examples::repo_root().join("tests/corpus/mlp_forward");
    let module = hlox_hlo::load::load_module(dir.join("module.pb"))?;
    println!(
        "Loaded {} (entry signature {})",
        module.name,
        hlox_hlo::text::program_shape_to_string(&module.entry_computation_layout())
    );
    let mut args = Vec::new();
    for i in 0.. {
        let p = dir.join(format!("in{i}.npy"));
        if !p.exists() {
            break;
        }
        args.push(hlox_hlo::npy::read_npy_file(&p)?);
    }
    let out = hlox_examples::run(
        &module,
        &args,
        &std::sync::Arc::new(hlox_ffi::Registry::new()),
    )?;
    for (i, got) in out.leaves().into_iter().enumerate() {
        let want = hlox_hlo::npy::read_npy_file(dir.join(format!("out{i}.npy")))?;
        let (g, w) = (got.to_vec::<f32>()?, want.to_vec::<f32>()?);
        ensure!(
            g.len() == w.len(),
            "out{i}: {} elements, JAX has {}",
            g.len(),
            w.len()
        );
        let worst = g
            .iter()
            .zip(&w)
            .map(|(a, b)| (a - b).abs() / (1e-5 + b.abs()))
            .fold(0f32, f32::max);
        ensure!(
            worst <= 1e-3,
            "out{i} differs from JAX (worst relative error {worst})"
        );
        println!(
            "out{i}: {} values match JAX (worst relative error {worst:.2e}); first {:?}",
            g.len(),
            &g[..3.min(g.len())]
        );
    }
    println!("OK: JAX's module ran unchanged and matched JAX's outputs.");
    Ok(())
}
