//! The HLO intermediate representation of hlox.
//!
//! - [`types`]: element types, layouts, shapes.
//! - [`literal`]: host values of any shape.
//! - [`opcode`]: the opcode table: every opcode's name, arity, called roles and
//!   properties, written once.
//! - [`ir`]: modules, computations, instructions, opcodes and their attributes.
//! - [`graph`]: the module's graphs (instruction dependences, call graph) on petgraph.
//! - [`shape_inference`]: each opcode's result shape, written once.
//! - [`semantics`]: index maps, window rules, sort and the RNGs, shared by every engine.
//! - [`verifier`]: checks a module and collects every problem with its location.
//! - [`builder`]: an `XlaBuilder`-style API.
//! - [`edit`]: the mutation API passes rewrite computations with.
//! - [`text`]: HLO text in XLA's syntax (parser and printer).
//! - [`proto`]: HloModuleProto / ShapeProto / LiteralProto conversion.
//! - [`npy`]: `.npy` reading and writing of array literals.
//! - [`load`]: loading and saving module files (text or proto), verified.

pub mod builder;
pub mod cancel;
pub mod edit;
pub mod entity;
pub mod graph;
pub mod ir;
pub mod literal;
pub mod load;
pub mod npy;
pub mod opcode;
pub mod proto;
pub mod semantics;
pub mod shape_inference;
pub mod sharding;
pub mod stablehlo;
pub mod text;
pub mod types;
pub mod verifier;

pub use cancel::{CancelToken, ExecuteOptions};
pub use entity::{EntityRef, EntitySet, PrimaryMap, SecondaryMap};
pub use ir::*;
pub use literal::{ArrayLiteral, Literal, LiteralError, NativeType};
/// The Rust types of `c64` and `c128` literals (`num_complex`'s).
pub use num_complex::{Complex32, Complex64};
pub use opcode::{Arity, Opcode};
pub use types::{ArrayShape, ElementType, Layout, ProgramShape, Shape, ShapeIndex};
