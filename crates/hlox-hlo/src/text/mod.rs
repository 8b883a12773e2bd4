//! HLO text: XLA's syntax, read ([`parse`]) and written ([`print`]).

pub mod lexer;
pub mod parse;
pub mod print;

pub use print::shape_to_string;
