//! StableHLO input: the MLIR text JAX writes (`jax.jit(f).lower(*args).as_text()`),
//! read and converted to HLO, the naga way: a front end (`syntax`: MLIR text
//! to a small syntax tree) and a lowering to the IR (`lower`, `chlo`).
//!
//! What is read and how it maps is in docs/stablehlo.md. Errors are
//! [`ParseError`]s with line and column; [`crate::load`] adds the file.

mod chlo;
pub mod export;
mod lower;
mod syntax;

use crate::ir::Module;
use crate::text::ParseError;

/// Parses StableHLO MLIR text (pretty or generic op forms) into an HLO
/// module. The module is not yet verified ([`crate::load`] verifies it);
/// each instruction's declared type was checked against shape inference.
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    let m = syntax::Parser::new(src).module()?;
    lower::lower(&m, src)
}
