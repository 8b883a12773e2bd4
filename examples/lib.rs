//! Shared by the examples (`cargo run --example NAME`): how an example runs
//! a module. Today that is the reference evaluator with custom calls bound
//! through the registry; when the Host backend lands, this one function
//! switches to compiling.

use hlox_ffi::Registry;
use hlox_hlo::{Literal, Module};

/// Binds the module's custom calls for the Host in `registry` and runs it.
pub fn run(module: &Module, args: &[Literal], registry: &Registry) -> anyhow::Result<Literal> {
    Ok(hlox_eval::evaluate_with_registry(module, args, registry)?)
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
