//! HLO text: XLA's syntax, read ([`parse`]) and written ([`print`]).
//!
//! - [`parse_module`], [`parse_shape`], [`parse_literal`] read text into the IR.
//! - [`print_module`], [`print_computation`], [`print_instruction`],
//!   [`literal_to_string`] write the canonical form (what JAX/XLA print).
//!
//! See `docs/hlo-text.md` for the accepted syntax and the deviations from XLA.

pub mod lexer;
pub mod parse;
pub mod print;

pub use lexer::{c_escape, c_unescape, ParseError};
pub use parse::{parse_literal, parse_module, parse_shape};
pub use print::{
    literal_to_string, print_computation, print_instruction, print_module, program_shape_to_string,
    shape_to_string,
};
