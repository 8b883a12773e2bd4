//! Shared by the examples (`cargo run --example NAME`): how an example runs
//! a module. It is compiled for the Host through LLVM (hlox-cpu), with every
//! custom-call target bound by name from `registry` at compile time.

use hlox_ffi::Registry;
use hlox_hlo::{Literal, Module};
use std::sync::Arc;

/// Compiles `module` for the Host with the targets of `registry` and runs it.
pub fn run(module: &Module, args: &[Literal], registry: &Arc<Registry>) -> anyhow::Result<Literal> {
    let options = hlox_cpu::CompileOptions {
        registry: Some(registry.clone()),
        ..Default::default()
    };
    let exe = hlox_cpu::compile(module, &options)?;
    Ok(exe.execute(&args.iter().collect::<Vec<_>>())?)
}

/// The repository root (examples read committed test data).
pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("examples/ has a parent")
        .to_path_buf()
}

/// The README's Rust code, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
pub mod readme {}
