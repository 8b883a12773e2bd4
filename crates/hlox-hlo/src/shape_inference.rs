//! Shape inference: the one home of every opcode's shape semantics.
//!
//! [`infer_shape`] computes an instruction's result shape from its opcode,
//! attributes, operand shapes and the signatures of the computations it calls.
//! Some opcodes cannot be inferred from those alone (the result of a
//! broadcast, reshape, iota, parameter, convert's target type, a custom call,
//! ...): for them [`check_shape`] validates a declared shape against the
//! operands and attributes. [`check_shape`] works for every opcode and is what
//! the verifier and the builder use.
//!
//! The rules follow XLA's `shape_inference.cc` and `hlo_verifier.cc`.
//! Inferred shapes carry default layouts; comparisons ignore layouts.

// `is_multiple_of` needs Rust 1.87; the workspace supports 1.85.
#![allow(clippy::manual_is_multiple_of)]

use crate::ir::{
    BinaryOp, ComparisonDirection, ComparisonType, Convolution, CustomCall, DotDimensionNumbers,
    FftType, GatherDimensionNumbers, Op, ReplicaGroups, ScatterDimensionNumbers, UnaryOp, Window,
};
use crate::opcode::CalledRole::{Body, Condition, Scatter, ToApply};
use crate::types::{ArrayShape, ElementType, ProgramShape, Shape};

/// A shape error: the opcode and what is wrong, naming the shapes involved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{op}: {message}")]
pub struct ShapeError {
    /// The opcode name (`add`, `dynamic-slice`, ...).
    pub op: String,
    pub message: String,
}

impl ShapeError {
    pub fn new(op: impl Into<String>, message: impl Into<String>) -> ShapeError {
        ShapeError {
            op: op.into(),
            message: message.into(),
        }
    }
}

/// A shape without layouts, as used in error messages: `f32[2,3]`, `(f32[], s32[4])`.
pub fn short(s: &Shape) -> String {
    match s {
        Shape::Array(a) => short_array(a),
        Shape::Tuple(t) => {
            let parts: Vec<String> = t.iter().map(short).collect();
            format!("({})", parts.join(", "))
        }
        Shape::Token => "token[]".to_string(),
    }
}

fn short_array(a: &ArrayShape) -> String {
    let dims: Vec<String> = a.dims.iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", a.ty.name(), dims.join(","))
}

fn list(v: &[i64]) -> String {
    let parts: Vec<String> = v.iter().map(|d| d.to_string()).collect();
    format!("{{{}}}", parts.join(","))
}

fn shapes_list(v: &[&Shape]) -> String {
    let parts: Vec<String> = v.iter().map(|s| short(s)).collect();
    parts.join(", ")
}

/// Why a shape is malformed ([`validate_shape`]). Each variant names the
/// shape (without layout) so the message stands on its own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidShape {
    #[error("shape {shape} has negative dimension size {dim}")]
    NegativeDimension { shape: String, dim: i64 },
    #[error(
        "shape {shape} has layout {layout} which is not a permutation of its {rank} dimensions"
    )]
    LayoutNotPermutation {
        shape: String,
        layout: String,
        rank: usize,
    },
    #[error("shape {shape} has too many elements (its byte size overflows)")]
    TooLarge { shape: String },
}

/// Checks that a shape is well formed: non-negative dimensions, a layout that
/// is a permutation of the dimensions, and an element count and byte size
/// that do not overflow. The first problem found is returned.
pub fn validate_shape(s: &Shape) -> Result<(), InvalidShape> {
    match s {
        Shape::Array(a) => {
            if let Some(&dim) = a.dims.iter().find(|&&d| d < 0) {
                return Err(InvalidShape::NegativeDimension {
                    shape: short(s),
                    dim,
                });
            }
            if !a.layout.is_valid_for_rank(a.rank()) {
                return Err(InvalidShape::LayoutNotPermutation {
                    shape: short(s),
                    layout: list(&a.layout.minor_to_major),
                    rank: a.rank(),
                });
            }
            let ok = a
                .checked_element_count()
                .and_then(|n| n.checked_mul(a.ty.byte_size() as i64))
                .is_some_and(|b| b <= isize::MAX as i64);
            if !ok {
                return Err(InvalidShape::TooLarge { shape: short(s) });
            }
            Ok(())
        }
        Shape::Tuple(t) => t.iter().try_for_each(validate_shape),
        Shape::Token => Ok(()),
    }
}

/// True when the result shape of `op` is not determined by its operands and
/// attributes alone, so the instruction's declared shape is required
/// ([`check_shape`]); [`infer_shape`] fails for these opcodes. The opcode
/// table's `DECLARED_SHAPE` property.
pub fn needs_declared_shape(op: &Op) -> bool {
    op.opcode().needs_declared_shape()
}

/// The result shape of `op` applied to `operands`, with `called` the
/// signatures of the called computations (in [`Op::called_roles`] order).
pub fn infer_shape(
    op: &Op,
    operands: &[&Shape],
    called: &[ProgramShape],
) -> Result<Shape, ShapeError> {
    let cx = Cx {
        op,
        name: op.name(),
        operands,
        called,
        declared: None,
    };
    if needs_declared_shape(op) {
        return Err(cx.err(
            "the result shape cannot be inferred from the operands; it must be declared (use check_shape)",
        ));
    }
    cx.infer()
}

/// Checks `declared` as the result shape of `op` applied to `operands`
/// (layouts ignored). Works for every opcode; for dot and convolution the
/// declared element type is the preferred result type.
pub fn check_shape(
    op: &Op,
    operands: &[&Shape],
    called: &[ProgramShape],
    declared: &Shape,
) -> Result<(), ShapeError> {
    let cx = Cx {
        op,
        name: op.name(),
        operands,
        called,
        declared: Some(declared),
    };
    let inferred = cx.infer()?;
    if !inferred.compatible(declared) {
        return Err(cx.err(format!(
            "declared shape {} does not match the inferred shape {}",
            short(declared),
            short(&inferred)
        )));
    }
    Ok(())
}

pub use crate::semantics::window::{window_output_size, WindowError};

struct Cx<'a> {
    op: &'a Op,
    name: &'static str,
    operands: &'a [&'a Shape],
    called: &'a [ProgramShape],
    declared: Option<&'a Shape>,
}

type R<T> = Result<T, ShapeError>;

fn arr_shape(ty: ElementType, dims: Vec<i64>) -> Shape {
    Shape::Array(ArrayShape::new(ty, dims))
}

fn is_scalar_of(s: &Shape, ty: ElementType) -> bool {
    matches!(s, Shape::Array(a) if a.rank() == 0 && a.ty == ty)
}

/// Gather's and scatter's index dimension lists under their own names:
/// XLA's two ops index the operand the same way, so one set of checks serves
/// both and each error names the op's own fields.
struct IndexDims<'a> {
    /// How errors name the indices operand ("start indices", "scatter indices").
    indices: &'static str,
    /// Field name, "a/an ... dim" noun, dims: operand dims the window drops.
    window: (&'static str, &'static str, &'a [i64]),
    /// Field name, noun, dims: operand batching dims.
    batching: (&'static str, &'static str, &'a [i64]),
    /// Field name, dims: operand dim each index vector element addresses.
    index_map: (&'static str, &'a [i64]),
    /// Field name, dims: the indices' batching dims.
    indices_batching: (&'static str, &'a [i64]),
}

impl<'a> Cx<'a> {
    fn err(&self, message: impl Into<String>) -> ShapeError {
        ShapeError::new(self.name, message)
    }

    fn nops(&self, n: usize) -> R<()> {
        if self.operands.len() != n {
            return Err(self.err(format!(
                "expects {n} operand{}, got {}",
                if n == 1 { "" } else { "s" },
                self.operands.len()
            )));
        }
        Ok(())
    }

    fn ncalled(&self, n: usize) -> R<()> {
        if self.called.len() != n {
            return Err(self.err(format!(
                "expects {n} called computation{}, got {}",
                if n == 1 { "" } else { "s" },
                self.called.len()
            )));
        }
        Ok(())
    }

    /// Operand `i` as an array.
    fn arr(&self, i: usize) -> R<&'a ArrayShape> {
        match self.operands.get(i) {
            Some(Shape::Array(a)) => Ok(a),
            Some(s) => Err(self.err(format!("operand {i} must be an array, got {}", short(s)))),
            None => Err(self.err(format!("missing operand {i}"))),
        }
    }

    fn declared(&self) -> R<&'a Shape> {
        self.declared.ok_or_else(|| {
            self.err("the result shape cannot be inferred from the operands; it must be declared (use check_shape)")
        })
    }

    /// The one operand and the declared result of an op whose result shape
    /// must be declared (convert, broadcast, reshape, ...), both arrays.
    fn operand_and_declared(&self) -> R<(&'a ArrayShape, &'a ArrayShape)> {
        self.nops(1)?;
        Ok((self.arr(0)?, self.declared_arr()?))
    }

    fn declared_arr(&self) -> R<&'a ArrayShape> {
        match self.declared()? {
            Shape::Array(a) => Ok(a),
            s => Err(self.err(format!("result must be an array, got {}", short(s)))),
        }
    }

    /// Checks a list of dimension numbers: each in `0..rank`, no duplicates,
    /// and sorted when `sorted`.
    fn dim_list(&self, what: &str, dims: &[i64], rank: usize, sorted: bool) -> R<()> {
        let mut seen = vec![false; rank];
        for (i, &d) in dims.iter().enumerate() {
            if d < 0 || d as usize >= rank {
                return Err(self.err(format!(
                    "{what} {} has dimension {d} out of range [0, {rank})",
                    list(dims)
                )));
            }
            if seen[d as usize] {
                return Err(self.err(format!("{what} {} has duplicate dimension {d}", list(dims))));
            }
            seen[d as usize] = true;
            if sorted && i > 0 && dims[i - 1] > d {
                return Err(self.err(format!("{what} {} must be sorted", list(dims))));
            }
        }
        Ok(())
    }

    /// Checks that `indices` is integral and `index_vector_dim` is in `0..=rank`;
    /// returns that dimension and the indices' dimensions with the implicit
    /// trailing 1 added when it equals the rank (gather and scatter alike).
    fn index_vector(
        &self,
        idx: &ArrayShape,
        index_vector_dim: i64,
        indices: &str,
    ) -> R<(usize, Vec<i64>)> {
        if !idx.ty.is_integral() {
            return Err(self.err(format!("{indices} {} must be integral", short_array(idx))));
        }
        let ivd = index_vector_dim;
        if ivd < 0 || ivd as usize > idx.rank() {
            return Err(self.err(format!(
                "index_vector_dim {ivd} is out of range [0, {}] for {indices} {}",
                idx.rank(),
                short_array(idx)
            )));
        }
        let ivd = ivd as usize;
        let mut expanded = idx.dims.clone();
        if ivd == idx.rank() {
            expanded.push(1);
        }
        Ok((ivd, expanded))
    }

    /// The checks gather and scatter share on their index dimension lists:
    /// each list is valid, window and index-map dims are not batching dims,
    /// the index vector dim is not a batching dim, the two batching lists
    /// pair up, and the index map has one entry per index vector element
    /// (`index_vector_len`).
    fn index_dims(
        &self,
        a: &ArrayShape,
        idx: &ArrayShape,
        ivd: usize,
        index_vector_len: i64,
        dims: &IndexDims<'_>,
    ) -> R<()> {
        let (window_name, window_noun, window) = dims.window;
        let (batching_name, batching_noun, batching) = dims.batching;
        let (map_name, map) = dims.index_map;
        let (idx_batching_name, idx_batching) = dims.indices_batching;
        self.dim_list(window_name, window, a.rank(), true)?;
        self.dim_list(batching_name, batching, a.rank(), true)?;
        self.dim_list(map_name, map, a.rank(), false)?;
        self.dim_list(idx_batching_name, idx_batching, idx.rank(), false)?;
        if let Some(d) = window.iter().find(|d| batching.contains(d)) {
            return Err(self.err(format!(
                "dimension {d} is both {window_noun} dim and an {batching_noun} dim"
            )));
        }
        if let Some(d) = map.iter().find(|d| batching.contains(d)) {
            return Err(self.err(format!(
                "dimension {d} is both in {map_name} and an {batching_noun} dim"
            )));
        }
        if idx_batching.contains(&(ivd as i64)) {
            return Err(self.err(format!(
                "{idx_batching_name} must not contain index_vector_dim {ivd}"
            )));
        }
        if idx_batching.len() != batching.len() {
            return Err(self.err(format!(
                "{batching_name} {} and {idx_batching_name} {} must have the same length",
                list(batching),
                list(idx_batching)
            )));
        }
        if map.len() as i64 != index_vector_len {
            return Err(self.err(format!(
                "{map_name} {} must have one entry per index vector element ({index_vector_len} in {} {})",
                list(map),
                dims.indices,
                short_array(idx)
            )));
        }
        Ok(())
    }

    /// Each operand batching dimension has the size of its paired indices
    /// batching dimension.
    fn batching_sizes(&self, a: &ArrayShape, idx: &ArrayShape, dims: &IndexDims<'_>) -> R<()> {
        let (_, batching_noun, batching) = dims.batching;
        for (&od, &id) in batching.iter().zip(dims.indices_batching.1) {
            if a.dims[od as usize] != idx.dims[id as usize] {
                return Err(self.err(format!(
                    "{batching_noun} dimension {od} of {} and {} batching dimension {id} of {} differ in size",
                    short_array(a),
                    dims.indices,
                    short_array(idx)
                )));
            }
        }
        Ok(())
    }

    /// Dynamic-slice and gather sizes: one per operand dimension, each in
    /// `0..=` that dimension's size.
    fn slice_sizes(&self, what: &str, sizes: &[i64], a: &ArrayShape) -> R<()> {
        if sizes.len() != a.rank() {
            return Err(self.err(format!(
                "{what} {} must have one entry per dimension of operand {}",
                list(sizes),
                short_array(a)
            )));
        }
        for (i, &s) in sizes.iter().enumerate() {
            if s < 0 || s > a.dims[i] {
                return Err(self.err(format!(
                    "slice size {s} of dimension {i} is out of range [0, {}] for operand {}",
                    a.dims[i],
                    short_array(a)
                )));
            }
        }
        Ok(())
    }

    fn dim_in_range(&self, what: &str, d: i64, rank: usize) -> R<usize> {
        if d < 0 || d as usize >= rank {
            return Err(self.err(format!("{what} {d} is out of range [0, {rank})")));
        }
        Ok(d as usize)
    }

    fn no_called(&self) -> R<()> {
        if !self.called.is_empty() {
            return Err(self.err(format!(
                "takes no called computations, got {}",
                self.called.len()
            )));
        }
        Ok(())
    }

    fn precision(&self, p: &[crate::ir::Precision]) -> R<()> {
        if !p.is_empty() && p.len() != 2 {
            return Err(self.err(format!(
                "precision config must have 0 or 2 entries, got {}",
                p.len()
            )));
        }
        Ok(())
    }

    /// Checks that `operands` match the parameters of a computation.
    fn params_match(&self, role: &str, comp: &ProgramShape, operands: &[&Shape]) -> R<()> {
        let ok = comp.parameters.len() == operands.len()
            && comp
                .parameters
                .iter()
                .zip(operands)
                .all(|(p, o)| p.compatible(o));
        if !ok {
            let ps: Vec<&Shape> = comp.parameters.iter().collect();
            return Err(self.err(format!(
                "{role} takes parameters ({}) but is given ({})",
                shapes_list(&ps),
                shapes_list(operands)
            )));
        }
        Ok(())
    }

    /// Checks a reduction computation over `tys` (one per reduced input):
    /// parameters (T1..TN, T1..TN) scalars, result T1 (N == 1) or (T1..TN).
    fn reducer(&self, role: &str, comp: &ProgramShape, tys: &[ElementType]) -> R<()> {
        let n = tys.len();
        let sig = || {
            let ps: Vec<&Shape> = comp.parameters.iter().collect();
            format!("({}) -> {}", shapes_list(&ps), short(&comp.result))
        };
        let expected = || {
            let ts: Vec<String> = tys.iter().chain(tys).map(|t| format!("{t}[]")).collect();
            let rs: Vec<String> = tys.iter().map(|t| format!("{t}[]")).collect();
            if n == 1 {
                format!("({}) -> {}", ts.join(", "), rs[0])
            } else {
                format!("({}) -> ({})", ts.join(", "), rs.join(", "))
            }
        };
        let params_ok = comp.parameters.len() == 2 * n
            && comp
                .parameters
                .iter()
                .enumerate()
                .all(|(i, p)| is_scalar_of(p, tys[i % n]));
        let result_ok = match &comp.result {
            Shape::Array(_) => n == 1 && is_scalar_of(&comp.result, tys[0]),
            Shape::Tuple(t) => {
                t.len() == n && t.iter().zip(tys).all(|(s, &ty)| is_scalar_of(s, ty))
            }
            Shape::Token => false,
        };
        if !params_ok || !result_ok {
            return Err(self.err(format!(
                "{role} has signature {} but must be {}",
                sig(),
                expected()
            )));
        }
        Ok(())
    }

    fn variadic_result(&self, shapes: Vec<Shape>) -> Shape {
        if shapes.len() == 1 {
            shapes
                .into_iter()
                .next()
                .unwrap_or(Shape::Tuple(Vec::new()))
        } else {
            Shape::Tuple(shapes)
        }
    }

    fn infer(&self) -> R<Shape> {
        // Called computations: as many as the opcode table's roles say (a
        // list role takes any number; its shape rule checks the count).
        let roles = self.op.called_roles();
        if roles.is_empty() {
            self.no_called()?;
        } else if roles.iter().all(|r| !r.is_list()) {
            self.ncalled(roles.len())?;
        }
        match self.op {
            Op::Parameter { .. } => {
                self.nops(0)?;
                Ok(self.declared()?.clone())
            }
            Op::Constant { literal } => {
                self.nops(0)?;
                Ok(literal.shape())
            }
            Op::Iota { dimension } => {
                self.nops(0)?;
                let d = self.declared_arr()?;
                if d.rank() == 0 {
                    return Err(
                        self.err("iota does not support scalars; the result must have rank >= 1")
                    );
                }
                if d.ty.is_pred() {
                    return Err(self.err("iota result must be numeric, got pred"));
                }
                self.dim_in_range("iota_dimension", *dimension, d.rank())?;
                Ok(Shape::Array(d.clone()))
            }
            Op::Unary(u) => self.unary(*u),
            Op::Binary(b) => self.binary(*b),
            Op::Compare {
                cmp_type,
                direction,
            } => {
                self.nops(2)?;
                let (a, b) = (self.arr(0)?, self.arr(1)?);
                if !a.compatible(b) {
                    return Err(self.err(format!(
                        "operand shapes {} and {} differ",
                        short_array(a),
                        short_array(b)
                    )));
                }
                if a.ty.is_complex()
                    && !matches!(direction, ComparisonDirection::Eq | ComparisonDirection::Ne)
                {
                    return Err(self.err(format!(
                        "complex numbers are not ordered: direction {} is not defined for {} (only EQ and NE are)",
                        direction.name(),
                        short_array(a)
                    )));
                }
                if let Some(t) = cmp_type {
                    let ok = match t {
                        ComparisonType::Float => a.ty.is_float_or_complex(),
                        ComparisonType::TotalOrder => a.ty.is_float(),
                        ComparisonType::Signed => a.ty.is_signed_int(),
                        ComparisonType::Unsigned => a.ty.is_unsigned_int() || a.ty.is_pred(),
                    };
                    if !ok {
                        return Err(self.err(format!(
                            "comparison type {} is not valid for element type {}",
                            t.name(),
                            a.ty
                        )));
                    }
                }
                Ok(arr_shape(ElementType::Pred, a.dims.clone()))
            }
            Op::Select => {
                self.nops(3)?;
                let (p, t, f) = (self.arr(0)?, self.arr(1)?, self.arr(2)?);
                if !p.ty.is_pred() {
                    return Err(self.err(format!("predicate must be pred, got {}", short_array(p))));
                }
                if !t.compatible(f) {
                    return Err(self.err(format!(
                        "on_true and on_false shapes {} and {} differ",
                        short_array(t),
                        short_array(f)
                    )));
                }
                if p.dims != t.dims {
                    return Err(self.err(format!(
                        "predicate shape {} and operand shape {} have different dimensions",
                        short_array(p),
                        short_array(t)
                    )));
                }
                Ok(Shape::Array(t.clone()))
            }
            Op::Clamp => {
                self.nops(3)?;
                let (lo, x, hi) = (self.arr(0)?, self.arr(1)?, self.arr(2)?);
                for (what, s) in [("min", lo), ("max", hi)] {
                    if s.ty != x.ty || (s.rank() != 0 && s.dims != x.dims) {
                        return Err(self.err(format!(
                            "{what} shape {} must be a scalar or the operand shape {}, with the same element type",
                            short_array(s),
                            short_array(x)
                        )));
                    }
                }
                if x.ty.is_pred() {
                    return Err(
                        self.err(format!("operand must be numeric, got {}", short_array(x)))
                    );
                }
                Ok(Shape::Array(x.clone()))
            }
            Op::Convert => {
                let (a, d) = self.operand_and_declared()?;
                if a.ty.is_complex() && !d.ty.is_complex() {
                    return Err(self.err(format!(
                        "conversion from complex {} to real {} is not defined (as in XLA): take `real` (or `imag`, `abs`) first",
                        short_array(a),
                        short_array(d)
                    )));
                }
                if a.dims != d.dims {
                    return Err(self.err(format!(
                        "result {} must have the dimensions of the operand {}",
                        short_array(d),
                        short_array(a)
                    )));
                }
                Ok(Shape::Array(d.clone()))
            }
            Op::BitcastConvert => {
                let (a, d) = self.operand_and_declared()?;
                let (wi, wo) = (a.ty.bit_width() as i64, d.ty.bit_width() as i64);
                let bad = || {
                    self.err(format!(
                        "cannot bitcast-convert {} to {}: bit widths {wi} and {wo} need {}",
                        short_array(a),
                        short_array(d),
                        if wi == wo {
                            "equal dimensions".to_string()
                        } else if wi > wo {
                            format!("a new minor dimension of size {}", wi / wo)
                        } else {
                            format!(
                                "the operand's minor dimension of size {} to be removed",
                                wo / wi
                            )
                        }
                    ))
                };
                if wi == wo {
                    if a.dims != d.dims {
                        return Err(bad());
                    }
                } else if wi > wo {
                    let mut want = a.dims.clone();
                    want.push(wi / wo);
                    if d.dims != want {
                        return Err(bad());
                    }
                } else {
                    let ok =
                        a.dims.last() == Some(&(wo / wi)) && d.dims[..] == a.dims[..a.rank() - 1];
                    if !ok {
                        return Err(bad());
                    }
                }
                Ok(Shape::Array(d.clone()))
            }
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => {
                self.nops(1)?;
                let a = self.arr(0)?;
                if !a.ty.is_float() {
                    return Err(self.err(format!(
                        "operand must be floating point, got {}",
                        short_array(a)
                    )));
                }
                if *exponent_bits < 1 {
                    return Err(
                        self.err(format!("exponent_bits must be >= 1, got {exponent_bits}"))
                    );
                }
                if *mantissa_bits < 0 {
                    return Err(
                        self.err(format!("mantissa_bits must be >= 0, got {mantissa_bits}"))
                    );
                }
                Ok(Shape::Array(a.clone()))
            }
            Op::Broadcast { dimensions } => {
                let (a, d) = self.operand_and_declared()?;
                if a.ty != d.ty {
                    return Err(self.err(format!(
                        "result {} must have the element type of the operand {}",
                        short_array(d),
                        short_array(a)
                    )));
                }
                if dimensions.len() != a.rank() {
                    return Err(self.err(format!(
                        "dimensions {} must have one entry per operand dimension of {}",
                        list(dimensions),
                        short_array(a)
                    )));
                }
                self.dim_list("dimensions", dimensions, d.rank(), false)?;
                for (i, &od) in dimensions.iter().enumerate() {
                    if a.dims[i] != d.dims[od as usize] {
                        return Err(self.err(format!(
                            "operand {} dimension {i} (size {}) maps to result {} dimension {od} (size {})",
                            short_array(a),
                            a.dims[i],
                            short_array(d),
                            d.dims[od as usize]
                        )));
                    }
                }
                Ok(Shape::Array(d.clone()))
            }
            Op::Reshape => {
                let (a, d) = self.operand_and_declared()?;
                if a.ty != d.ty || a.checked_element_count() != d.checked_element_count() {
                    return Err(self.err(format!(
                        "cannot reshape {} to {}: element types and element counts must match",
                        short_array(a),
                        short_array(d)
                    )));
                }
                Ok(Shape::Array(d.clone()))
            }
            Op::Bitcast => {
                let (a, d) = self.operand_and_declared()?;
                let (ba, bd) = (
                    a.checked_element_count()
                        .and_then(|n| n.checked_mul(a.ty.byte_size() as i64)),
                    d.checked_element_count()
                        .and_then(|n| n.checked_mul(d.ty.byte_size() as i64)),
                );
                if ba != bd {
                    return Err(self.err(format!(
                        "cannot bitcast {} to {}: byte sizes differ",
                        short_array(a),
                        short_array(d)
                    )));
                }
                Ok(Shape::Array(d.clone()))
            }
            Op::Transpose { dimensions } => {
                self.nops(1)?;
                let a = self.arr(0)?;
                if dimensions.len() != a.rank() {
                    return Err(self.err(format!(
                        "permutation {} must have one entry per dimension of {}",
                        list(dimensions),
                        short_array(a)
                    )));
                }
                self.dim_list("permutation", dimensions, a.rank(), false)?;
                let dims = dimensions.iter().map(|&p| a.dims[p as usize]).collect();
                Ok(arr_shape(a.ty, dims))
            }
            Op::Reverse { dimensions } => {
                self.nops(1)?;
                let a = self.arr(0)?;
                self.dim_list("dimensions", dimensions, a.rank(), false)?;
                Ok(Shape::Array(a.clone()))
            }
            Op::Slice { dims } => {
                self.nops(1)?;
                let a = self.arr(0)?;
                if dims.len() != a.rank() {
                    return Err(self.err(format!(
                        "slice has {} dimensions but the operand {} has rank {}",
                        dims.len(),
                        short_array(a),
                        a.rank()
                    )));
                }
                let mut out = Vec::with_capacity(dims.len());
                for (i, sd) in dims.iter().enumerate() {
                    let n = a.dims[i];
                    if sd.stride <= 0 {
                        return Err(self.err(format!(
                            "stride {} of dimension {i} must be positive",
                            sd.stride
                        )));
                    }
                    if sd.start < 0 || sd.start > n || sd.limit < sd.start || sd.limit > n {
                        return Err(self.err(format!(
                            "slice [{}:{}] of dimension {i} is out of bounds for operand {} (need 0 <= start <= limit <= {n})",
                            sd.start,
                            sd.limit,
                            short_array(a)
                        )));
                    }
                    out.push((sd.limit - sd.start + sd.stride - 1) / sd.stride);
                }
                Ok(arr_shape(a.ty, out))
            }
            Op::DynamicSlice { sizes } => {
                let a = self.arr(0)?;
                self.nops(1 + a.rank())?;
                self.index_scalars(1, a.rank())?;
                self.slice_sizes("slice sizes", sizes, a)?;
                Ok(arr_shape(a.ty, sizes.clone()))
            }
            Op::DynamicUpdateSlice => {
                let a = self.arr(0)?;
                self.nops(2 + a.rank())?;
                let u = self.arr(1)?;
                if u.ty != a.ty
                    || u.rank() != a.rank()
                    || u.dims.iter().zip(&a.dims).any(|(x, y)| x > y)
                {
                    return Err(self.err(format!(
                        "update {} must have the element type and rank of the operand {} and fit inside it",
                        short_array(u),
                        short_array(a)
                    )));
                }
                self.index_scalars(2, a.rank())?;
                Ok(Shape::Array(a.clone()))
            }
            Op::Concatenate { dimension } => {
                if self.operands.is_empty() {
                    return Err(self.err("expects at least 1 operand, got 0"));
                }
                let first = self.arr(0)?;
                let d = self.dim_in_range("concatenate dimension", *dimension, first.rank())?;
                let mut total: i128 = 0;
                for i in 0..self.operands.len() {
                    let a = self.arr(i)?;
                    let same = a.ty == first.ty
                        && a.rank() == first.rank()
                        && a.dims
                            .iter()
                            .zip(&first.dims)
                            .enumerate()
                            .all(|(k, (x, y))| k == d || x == y);
                    if !same {
                        return Err(self.err(format!(
                            "operand shapes {} and {} differ in element type, rank or a dimension other than {d}",
                            short_array(first),
                            short_array(a)
                        )));
                    }
                    total += a.dims[d] as i128;
                }
                let mut dims = first.dims.clone();
                dims[d] =
                    i64::try_from(total).map_err(|_| self.err("result dimension overflows"))?;
                Ok(arr_shape(first.ty, dims))
            }
            Op::Pad { dims } => {
                self.nops(2)?;
                let (a, v) = (self.arr(0)?, self.arr(1)?);
                if v.rank() != 0 || v.ty != a.ty {
                    return Err(self.err(format!(
                        "padding value {} must be a scalar of the operand's element type ({})",
                        short_array(v),
                        short_array(a)
                    )));
                }
                if dims.len() != a.rank() {
                    return Err(self.err(format!(
                        "padding config has {} dimensions but the operand {} has rank {}",
                        dims.len(),
                        short_array(a),
                        a.rank()
                    )));
                }
                let mut out = Vec::with_capacity(dims.len());
                for (i, p) in dims.iter().enumerate() {
                    if p.interior < 0 {
                        return Err(self.err(format!(
                            "interior padding {} of dimension {i} is negative",
                            p.interior
                        )));
                    }
                    let n = a.dims[i] as i128;
                    let r = p.lo as i128 + p.hi as i128 + n + (n - 1).max(0) * p.interior as i128;
                    if r < 0 {
                        return Err(self.err(format!(
                            "padding {}_{}_{} of dimension {i} of {} gives a negative size {r}",
                            p.lo,
                            p.hi,
                            p.interior,
                            short_array(a)
                        )));
                    }
                    out.push(i64::try_from(r).map_err(|_| self.err("result dimension overflows"))?);
                }
                Ok(arr_shape(a.ty, out))
            }
            Op::Dot { dnums, precision } => self.dot(dnums, precision),
            Op::Reduce { dimensions } => self.reduce(dimensions),
            Op::ReduceWindow { window } => self.reduce_window(window),
            Op::SelectAndScatter { window } => self.select_and_scatter(window),
            Op::Convolution(c) => {
                self.precision(&c.precision)?;
                self.convolution(c)
            }
            Op::Gather {
                dnums, slice_sizes, ..
            } => self.gather(dnums, slice_sizes),
            Op::Scatter { dnums, .. } => self.scatter(dnums),
            Op::Sort { dimension, .. } => self.sort(*dimension),
            Op::TopK { k, .. } => self.topk(*k),
            Op::Fft {
                fft_type,
                fft_length,
            } => self.fft(*fft_type, fft_length),
            Op::Tuple => Ok(Shape::Tuple(
                self.operands.iter().map(|s| (*s).clone()).collect(),
            )),
            Op::GetTupleElement { index } => {
                self.nops(1)?;
                let t = match self.operands[0] {
                    Shape::Tuple(t) => t,
                    s => return Err(self.err(format!("operand must be a tuple, got {}", short(s)))),
                };
                if *index < 0 || *index as usize >= t.len() {
                    return Err(self.err(format!(
                        "index {index} is out of range for tuple {} with {} elements",
                        short(self.operands[0]),
                        t.len()
                    )));
                }
                Ok(t[*index as usize].clone())
            }
            Op::Call | Op::Fusion { .. } => {
                self.ncalled(1)?;
                let role = if matches!(self.op, Op::Call) {
                    ToApply.key()
                } else {
                    "fused computation"
                };
                self.params_match(role, &self.called[0], self.operands)?;
                Ok(self.called[0].result.clone())
            }
            Op::While => {
                self.nops(1)?;
                self.ncalled(2)?;
                let init = self.operands[0];
                let (cond, body) = (&self.called[0], &self.called[1]);
                self.params_match(Condition.key(), cond, &[init])?;
                if !is_scalar_of(&cond.result, ElementType::Pred) {
                    return Err(self.err(format!(
                        "condition must return pred[], got {}",
                        short(&cond.result)
                    )));
                }
                self.params_match(Body.key(), body, &[init])?;
                if !body.result.compatible(init) {
                    return Err(self.err(format!(
                        "body returns {} but the loop state is {}",
                        short(&body.result),
                        short(init)
                    )));
                }
                Ok(init.clone())
            }
            Op::Conditional => self.conditional(),
            Op::Map { dimensions } => self.map(dimensions),
            Op::Copy | Op::OptimizationBarrier => {
                self.nops(1)?;
                Ok(self.operands[0].clone())
            }
            Op::CustomCall(cc) => self.custom_call(cc),
            Op::RngBitGenerator { .. } => {
                self.nops(1)?;
                let st = self.arr(0)?;
                if !(st.ty == ElementType::U64 || st.ty == ElementType::U32) || st.rank() != 1 {
                    return Err(self.err(format!(
                        "state must be a u64 or u32 vector, got {}",
                        short_array(st)
                    )));
                }
                let d = self.declared()?;
                let ok = match d {
                    Shape::Tuple(t) if t.len() == 2 => {
                        t[0].compatible(self.operands[0])
                            && t[1].as_array().is_some_and(|o| o.ty.is_integral())
                    }
                    _ => false,
                };
                if !ok {
                    return Err(self.err(format!(
                        "result {} must be a tuple (state {}, integral output array)",
                        short(d),
                        short_array(st)
                    )));
                }
                Ok(d.clone())
            }
            Op::AfterAll => {
                for (i, s) in self.operands.iter().enumerate() {
                    if !s.is_token() {
                        return Err(
                            self.err(format!("operand {i} must be a token, got {}", short(s)))
                        );
                    }
                }
                Ok(Shape::Token)
            }
            Op::AllReduce(c) => {
                self.group_size(&c.replica_groups)?;
                self.ncalled(1)?;
                if self.operands.is_empty() {
                    return Err(self.err("expects at least one operand"));
                }
                let mut out = Vec::with_capacity(self.operands.len());
                for i in 0..self.operands.len() {
                    let a = self.arr(i)?;
                    self.reducer(ToApply.key(), &self.called[0], &[a.ty])?;
                    out.push(Shape::Array(a.clone()));
                }
                Ok(self.variadic_result(out))
            }
            Op::AllGather {
                collective,
                dimension,
            } => {
                let n = self.group_size(&collective.replica_groups)?;
                self.nops(1)?;
                let a = self.arr(0)?;
                self.dim_list("dimensions", &[*dimension], a.rank(), false)?;
                let mut dims = a.dims.clone();
                let d = *dimension as usize;
                dims[d] = dims[d]
                    .checked_mul(n)
                    .ok_or_else(|| self.err("result dimension overflows"))?;
                Ok(arr_shape(a.ty, dims))
            }
            Op::ReduceScatter {
                collective,
                dimension,
            } => {
                let n = self.group_size(&collective.replica_groups)?;
                self.nops(1)?;
                self.ncalled(1)?;
                let a = self.arr(0)?;
                self.reducer(ToApply.key(), &self.called[0], &[a.ty])?;
                self.dim_list("dimensions", &[*dimension], a.rank(), false)?;
                let d = *dimension as usize;
                if a.dims[d] % n != 0 {
                    return Err(self.err(format!(
                        "dimension {d} of {} does not split evenly among the {n} participants",
                        short_array(a)
                    )));
                }
                let mut dims = a.dims.clone();
                dims[d] /= n;
                Ok(arr_shape(a.ty, dims))
            }
            Op::AllToAll {
                collective,
                split_dimension,
            } => {
                let n = self.group_size(&collective.replica_groups)?;
                match split_dimension {
                    Some(d) => {
                        self.nops(1)?;
                        let a = self.arr(0)?;
                        self.dim_list("dimensions", &[*d], a.rank(), false)?;
                        if a.dims[*d as usize] % n != 0 {
                            return Err(self.err(format!(
                                "dimension {d} of {} does not split evenly among the {n} participants",
                                short_array(a)
                            )));
                        }
                        Ok(Shape::Array(a.clone()))
                    }
                    None => {
                        if self.operands.len() as i64 != n {
                            return Err(self.err(format!(
                                "without dimensions=, all-to-all takes one operand per participant ({n}), got {}",
                                self.operands.len()
                            )));
                        }
                        let first = self.arr(0)?;
                        for i in 0..self.operands.len() {
                            let a = self.arr(i)?;
                            if a.ty != first.ty || a.dims != first.dims {
                                return Err(self.err(format!(
                                    "operands must all have one shape, got {} and {}",
                                    short_array(first),
                                    short_array(a)
                                )));
                            }
                        }
                        Ok(Shape::Tuple(
                            self.operands.iter().map(|s| (*s).clone()).collect(),
                        ))
                    }
                }
            }
            Op::CollectivePermute {
                source_target_pairs,
                ..
            } => {
                self.nops(1)?;
                let a = self.arr(0)?;
                let mut targets = Vec::new();
                for &(src, dst) in source_target_pairs {
                    for id in [src, dst] {
                        self.device_id(id, "source_target_pairs")?;
                    }
                    if targets.contains(&dst) {
                        return Err(
                            self.err(format!("source_target_pairs sends to device {dst} twice"))
                        );
                    }
                    targets.push(dst);
                }
                Ok(Shape::Array(a.clone()))
            }
            Op::CollectiveBroadcast(c) => {
                self.group_size(&c.replica_groups)?;
                self.nops(1)?;
                Ok(Shape::Array(self.arr(0)?.clone()))
            }
            Op::ReplicaId | Op::PartitionId => {
                self.nops(0)?;
                Ok(arr_shape(ElementType::U32, vec![]))
            }
        }
    }

    /// A device id in replica groups or source-target pairs: any
    /// non-negative number. How many devices a module needs is checked
    /// where it runs (`hlox_hlo::sharding::check_one_device` on one
    /// device, the device count of a multi-device run).
    fn device_id(&self, id: i64, what: &str) -> R<()> {
        if id < 0 {
            return Err(self.err(format!(
                "{what} names device {id}, but a negative id is not a device"
            )));
        }
        Ok(())
    }

    /// The number of participants per group: every group the same size,
    /// each naming non-negative ids (see [`Self::device_id`]).
    fn group_size(&self, groups: &ReplicaGroups) -> R<i64> {
        let g = groups.expand().ok_or_else(|| {
            self.err(format!(
                "replica_groups {} is inconsistent: its dimensions must multiply to groups*size \
                 and T(...) must permute them",
                crate::text::replica_groups_text(groups)
            ))
        })?;
        let Some(first) = g.first() else {
            return Ok(1);
        };
        for grp in &g {
            if grp.len() != first.len() || grp.is_empty() {
                return Err(self.err(format!(
                    "replica_groups {} must have groups of one non-zero size",
                    crate::text::replica_groups_text(groups)
                )));
            }
            for &id in grp {
                self.device_id(id, "replica_groups")?;
            }
            let mut seen = grp.clone();
            seen.sort_unstable();
            seen.dedup();
            if seen.len() != grp.len() {
                return Err(self.err(format!(
                    "replica_groups {} names a device twice",
                    crate::text::replica_groups_text(groups)
                )));
            }
        }
        let mut all: Vec<i64> = g.iter().flatten().copied().collect();
        all.sort_unstable();
        let n = all.len();
        all.dedup();
        if all.len() != n {
            return Err(self.err(format!(
                "replica_groups {} names a device in more than one group",
                crate::text::replica_groups_text(groups)
            )));
        }
        Ok(first.len() as i64)
    }

    /// Operands `from..from+n` must be integral scalars of one type.
    fn index_scalars(&self, from: usize, n: usize) -> R<()> {
        let mut ty = None;
        for i in from..from + n {
            let s = self.arr(i)?;
            if s.rank() != 0 || !s.ty.is_integral() {
                return Err(self.err(format!(
                    "start index operand {i} must be an integral scalar, got {}",
                    short_array(s)
                )));
            }
            if let Some(t) = ty {
                if t != s.ty {
                    return Err(self.err(format!(
                        "start indices must all have the same type, got {t} and {}",
                        s.ty
                    )));
                }
            }
            ty = Some(s.ty);
        }
        Ok(())
    }

    fn unary(&self, u: UnaryOp) -> R<Shape> {
        use UnaryOp::*;
        self.nops(1)?;
        let a = self.arr(0)?;
        let (ok, need) = match u {
            Negate | Abs | Sign => (!a.ty.is_pred(), "a numeric (non-pred)"),
            Not => (a.ty.is_pred() || a.ty.is_integral(), "a pred or integral"),
            PopulationCount | CountLeadingZeros => (a.ty.is_integral(), "an integral"),
            IsFinite => (a.ty.is_float(), "a floating-point"),
            Exp | Expm1 | Log | Log1p | Sqrt | Rsqrt | Cbrt | Tanh | Logistic | Sin | Cos | Tan
            | Real | Imag => (a.ty.is_float_or_complex(), "a floating-point or complex"),
            Floor | Ceil | RoundNearestAfz | RoundNearestEven | Erf => {
                (a.ty.is_float(), "a floating-point")
            }
        };
        if !ok {
            return Err(self.err(format!(
                "operand {} must have {need} element type",
                short_array(a)
            )));
        }
        match u {
            IsFinite => Ok(arr_shape(ElementType::Pred, a.dims.clone())),
            // A complex number's modulus and parts are real.
            Abs | Real | Imag => Ok(Shape::Array(
                a.with_type(a.ty.complex_component().unwrap_or(a.ty)),
            )),
            _ => Ok(Shape::Array(a.clone())),
        }
    }

    fn binary(&self, b: BinaryOp) -> R<Shape> {
        use BinaryOp::*;
        self.nops(2)?;
        let (x, y) = (self.arr(0)?, self.arr(1)?);
        if !x.compatible(y) {
            return Err(self.err(format!(
                "operand shapes {} and {} differ",
                short_array(x),
                short_array(y)
            )));
        }
        let (ok, need) = match b {
            And | Or | Xor => (x.ty.is_pred() || x.ty.is_integral(), "a pred or integral"),
            ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => {
                (x.ty.is_integral(), "an integral")
            }
            // XLA defines complex atan2 too: -i log((x + i y) / sqrt(x^2 + y^2)).
            Atan2 => (
                x.ty.is_float() || x.ty.is_complex(),
                "a floating-point or complex",
            ),
            // Complex numbers have no order, and XLA defines no remainder of them.
            Maximum | Minimum => (!x.ty.is_complex(), "a real (not complex)"),
            Remainder => (
                !x.ty.is_pred() && !x.ty.is_complex(),
                "a real numeric (non-pred, not complex)",
            ),
            Add | Subtract | Multiply | Divide | Power => (!x.ty.is_pred(), "a numeric (non-pred)"),
            Complex => (x.ty.complex_of().is_some(), "an f32 or f64"),
        };
        if !ok {
            return Err(self.err(format!(
                "operands {} must have {need} element type",
                short_array(x)
            )));
        }
        if let Some(c) = x.ty.complex_of().filter(|_| b == Complex) {
            return Ok(Shape::Array(x.with_type(c)));
        }
        Ok(Shape::Array(x.clone()))
    }

    /// XLA's `InferFftShape`: the last `fft_length.len()` dimensions are
    /// transformed; RFFT halves the last one (`n/2 + 1` frequencies) and
    /// IRFFT restores it to `fft_length`'s last entry.
    fn fft(&self, fft_type: FftType, fft_length: &[i64]) -> R<Shape> {
        self.nops(1)?;
        let a = self.arr(0)?;
        let k = fft_length.len();
        if !(1..=3).contains(&k) {
            return Err(self.err(format!(
                "fft_length {} must have 1 to 3 entries (the transformed dimensions)",
                list(fft_length)
            )));
        }
        if let Some(&n) = fft_length.iter().find(|&&n| n < 0) {
            return Err(self.err(format!(
                "fft_length {} has a negative length {n}",
                list(fft_length)
            )));
        }
        if a.rank() < k {
            return Err(self.err(format!(
                "operand {} has rank {} but fft_length {} transforms {k} dimensions",
                short_array(a),
                a.rank(),
                list(fft_length)
            )));
        }
        let lead = a.rank() - k;
        let last = fft_length[k - 1];
        let half = if last == 0 { 0 } else { last / 2 + 1 };
        let (in_ty_ok, need, expect_last, out_ty, out_last) = match fft_type {
            FftType::Fft | FftType::Ifft => {
                (a.ty.is_complex(), "a complex (c64, c128)", last, a.ty, last)
            }
            FftType::Rfft => (
                a.ty.complex_of().is_some(),
                "an f32 or f64",
                last,
                a.ty.complex_of().unwrap_or(a.ty),
                half,
            ),
            FftType::Irfft => (
                a.ty.is_complex(),
                "a complex (c64, c128)",
                half,
                a.ty.complex_component().unwrap_or(a.ty),
                last,
            ),
        };
        if !in_ty_ok {
            return Err(self.err(format!(
                "{} needs {need} operand, got {}",
                fft_type.name(),
                short_array(a)
            )));
        }
        let mut want: Vec<i64> = fft_length.to_vec();
        want[k - 1] = expect_last;
        if a.dims[lead..] != want[..] {
            return Err(self.err(format!(
                "{} with fft_length {} needs the operand's last {k} dimensions to be {}, but {} has {}",
                fft_type.name(),
                list(fft_length),
                list(&want),
                short_array(a),
                list(&a.dims[lead..])
            )));
        }
        let mut dims = a.dims.clone();
        dims[a.rank() - 1] = out_last;
        Ok(arr_shape(out_ty, dims))
    }

    /// The result element type of dot and convolution: the declared one
    /// (XLA's preferred element type), else the operands' common type.
    fn result_type(&self, l: &ArrayShape, r: &ArrayShape) -> R<ElementType> {
        match self.declared {
            Some(Shape::Array(d)) => Ok(d.ty),
            _ if l.ty != r.ty => Err(self.err(format!(
                "operand element types differ ({} and {}); declare the result type",
                short_array(l),
                short_array(r)
            ))),
            _ => Ok(l.ty),
        }
    }

    fn dot(&self, dn: &DotDimensionNumbers, precision: &[crate::ir::Precision]) -> R<Shape> {
        self.nops(2)?;
        self.precision(precision)?;
        let (l, r) = (self.arr(0)?, self.arr(1)?);
        let ty = self.result_type(l, r)?;
        if dn.lhs_batch_dims.len() != dn.rhs_batch_dims.len() {
            return Err(self.err(format!(
                "lhs_batch_dims {} and rhs_batch_dims {} must have the same length",
                list(&dn.lhs_batch_dims),
                list(&dn.rhs_batch_dims)
            )));
        }
        if dn.lhs_contracting_dims.len() != dn.rhs_contracting_dims.len() {
            return Err(self.err(format!(
                "lhs_contracting_dims {} and rhs_contracting_dims {} must have the same length",
                list(&dn.lhs_contracting_dims),
                list(&dn.rhs_contracting_dims)
            )));
        }
        let lall: Vec<i64> = dn
            .lhs_batch_dims
            .iter()
            .chain(&dn.lhs_contracting_dims)
            .copied()
            .collect();
        let rall: Vec<i64> = dn
            .rhs_batch_dims
            .iter()
            .chain(&dn.rhs_contracting_dims)
            .copied()
            .collect();
        self.dim_list(
            "lhs batch and contracting dimensions",
            &lall,
            l.rank(),
            false,
        )?;
        self.dim_list(
            "rhs batch and contracting dimensions",
            &rall,
            r.rank(),
            false,
        )?;
        for (&a, &b) in dn.lhs_batch_dims.iter().zip(&dn.rhs_batch_dims) {
            if l.dims[a as usize] != r.dims[b as usize] {
                return Err(self.err(format!(
                    "batch dimension sizes differ: lhs {} dimension {a} vs rhs {} dimension {b}",
                    short_array(l),
                    short_array(r)
                )));
            }
        }
        for (&a, &b) in dn.lhs_contracting_dims.iter().zip(&dn.rhs_contracting_dims) {
            if l.dims[a as usize] != r.dims[b as usize] {
                return Err(self.err(format!(
                    "contracting dimension sizes differ: lhs {} dimension {a} vs rhs {} dimension {b}",
                    short_array(l),
                    short_array(r)
                )));
            }
        }
        let mut dims: Vec<i64> = dn
            .lhs_batch_dims
            .iter()
            .map(|&d| l.dims[d as usize])
            .collect();
        dims.extend(
            (0..l.rank() as i64)
                .filter(|d| !lall.contains(d))
                .map(|d| l.dims[d as usize]),
        );
        dims.extend(
            (0..r.rank() as i64)
                .filter(|d| !rall.contains(d))
                .map(|d| r.dims[d as usize]),
        );
        Ok(arr_shape(ty, dims))
    }

    /// Reduce and reduce-window take N inputs of one shape and N scalar init
    /// values of the inputs' element types, and one reducer; returns the first
    /// input and the element types.
    fn reduce_inputs(&self) -> R<(&'a ArrayShape, Vec<ElementType>)> {
        let n = self.operands.len() / 2;
        if self.operands.len() < 2 || self.operands.len() % 2 != 0 {
            return Err(self.err(format!(
                "expects N inputs followed by N init values (an even number >= 2 of operands), got {}",
                self.operands.len()
            )));
        }
        self.ncalled(1)?;
        let (first, tys) = self.same_dims(n, "inputs")?;
        for (i, &ty) in tys.iter().enumerate() {
            let init = self.arr(n + i)?;
            if init.rank() != 0 || init.ty != ty {
                return Err(self.err(format!(
                    "init value {} must be a scalar of input {i}'s element type ({})",
                    short_array(init),
                    short_array(self.arr(i)?)
                )));
            }
        }
        Ok((first, tys))
    }

    fn reduce(&self, dimensions: &[i64]) -> R<Shape> {
        let (first, tys) = self.reduce_inputs()?;
        self.dim_list("dimensions", dimensions, first.rank(), false)?;
        self.reducer(ToApply.key(), &self.called[0], &tys)?;
        let kept: Vec<i64> = (0..first.rank())
            .filter(|d| !dimensions.contains(&(*d as i64)))
            .map(|d| first.dims[d])
            .collect();
        Ok(self.variadic_result(tys.iter().map(|&t| arr_shape(t, kept.clone())).collect()))
    }

    fn window_dims(&self, a: &ArrayShape, window: &Window) -> R<Vec<i64>> {
        if window.dims.len() != a.rank() {
            return Err(self.err(format!(
                "window has {} dimensions but the operand {} has rank {}",
                window.dims.len(),
                short_array(a),
                a.rank()
            )));
        }
        window
            .dims
            .iter()
            .enumerate()
            .map(|(i, w)| {
                window_output_size(a.dims[i], w)
                    .map_err(|m| self.err(format!("window dimension {i}: {m}")))
            })
            .collect()
    }

    fn reduce_window(&self, window: &Window) -> R<Shape> {
        let (first, tys) = self.reduce_inputs()?;
        let out = self.window_dims(first, window)?;
        self.reducer(ToApply.key(), &self.called[0], &tys)?;
        Ok(self.variadic_result(tys.iter().map(|&t| arr_shape(t, out.clone())).collect()))
    }

    fn select_and_scatter(&self, window: &Window) -> R<Shape> {
        self.nops(3)?;
        self.ncalled(2)?;
        let (a, src, init) = (self.arr(0)?, self.arr(1)?, self.arr(2)?);
        let out = self.window_dims(a, window)?;
        if src.ty != a.ty || src.dims != out {
            return Err(self.err(format!(
                "source {} must have shape {} (the window output of operand {})",
                short_array(src),
                short(&arr_shape(a.ty, out)),
                short_array(a)
            )));
        }
        if init.rank() != 0 || init.ty != a.ty {
            return Err(self.err(format!(
                "init value {} must be a scalar of the operand's element type ({})",
                short_array(init),
                short_array(a)
            )));
        }
        let sel = &self.called[0];
        let scalar = arr_shape(a.ty, vec![]);
        let sel_ok = sel.parameters.len() == 2
            && sel.parameters.iter().all(|p| p.compatible(&scalar))
            && is_scalar_of(&sel.result, ElementType::Pred);
        if !sel_ok {
            let ps: Vec<&Shape> = sel.parameters.iter().collect();
            return Err(self.err(format!(
                "select has signature ({}) -> {} but must be ({t}[], {t}[]) -> pred[]",
                shapes_list(&ps),
                short(&sel.result),
                t = a.ty
            )));
        }
        self.reducer(Scatter.key(), &self.called[1], &[a.ty])?;
        Ok(Shape::Array(a.clone()))
    }

    fn convolution(&self, c: &Convolution) -> R<Shape> {
        let (window, dn, fgc, bgc) = (
            &c.window,
            &c.dnums,
            c.feature_group_count,
            c.batch_group_count,
        );
        self.nops(2)?;
        let (l, r) = (self.arr(0)?, self.arr(1)?);
        let ty = self.result_type(l, r)?;
        let ns = dn.input_spatial_dimensions.len();
        let rank = ns + 2;
        if l.rank() != rank || r.rank() != rank {
            return Err(self.err(format!(
                "lhs {} and rhs {} must both have rank {rank} ({ns} spatial dimensions + 2)",
                short_array(l),
                short_array(r)
            )));
        }
        if dn.kernel_spatial_dimensions.len() != ns || dn.output_spatial_dimensions.len() != ns {
            return Err(self.err(format!(
                "input, kernel and output spatial dimensions must have the same count, got {}, {}, {}",
                ns,
                dn.kernel_spatial_dimensions.len(),
                dn.output_spatial_dimensions.len()
            )));
        }
        let mut ind = vec![dn.input_batch_dimension, dn.input_feature_dimension];
        ind.extend(&dn.input_spatial_dimensions);
        let mut kd = vec![
            dn.kernel_input_feature_dimension,
            dn.kernel_output_feature_dimension,
        ];
        kd.extend(&dn.kernel_spatial_dimensions);
        let mut od = vec![dn.output_batch_dimension, dn.output_feature_dimension];
        od.extend(&dn.output_spatial_dimensions);
        self.dim_list("input dimension numbers", &ind, rank, false)?;
        self.dim_list("kernel dimension numbers", &kd, rank, false)?;
        self.dim_list("output dimension numbers", &od, rank, false)?;
        if fgc <= 0 || bgc <= 0 {
            return Err(self.err(format!(
                "feature_group_count ({fgc}) and batch_group_count ({bgc}) must be positive"
            )));
        }
        if fgc > 1 && bgc > 1 {
            return Err(self.err("feature_group_count and batch_group_count cannot both be > 1"));
        }
        let in_batch = l.dims[dn.input_batch_dimension as usize];
        let in_feat = l.dims[dn.input_feature_dimension as usize];
        let k_in = r.dims[dn.kernel_input_feature_dimension as usize];
        let k_out = r.dims[dn.kernel_output_feature_dimension as usize];
        if in_feat % fgc != 0 || in_feat / fgc != k_in {
            return Err(self.err(format!(
                "input feature size {in_feat} of lhs {} divided by feature_group_count {fgc} must equal the kernel input feature size {k_in} of rhs {}",
                short_array(l),
                short_array(r)
            )));
        }
        if k_out % fgc != 0 {
            return Err(self.err(format!(
                "kernel output feature size {k_out} must be a multiple of feature_group_count {fgc}"
            )));
        }
        if in_batch % bgc != 0 || k_out % bgc != 0 {
            return Err(self.err(format!(
                "input batch size {in_batch} and kernel output feature size {k_out} must be multiples of batch_group_count {bgc}"
            )));
        }
        if window.dims.len() != ns {
            return Err(self.err(format!(
                "window has {} dimensions but the convolution has {ns} spatial dimensions",
                window.dims.len()
            )));
        }
        let mut out = vec![0i64; rank];
        out[dn.output_batch_dimension as usize] = in_batch / bgc;
        out[dn.output_feature_dimension as usize] = k_out;
        for i in 0..ns {
            let w = &window.dims[i];
            let ks = r.dims[dn.kernel_spatial_dimensions[i] as usize];
            if w.size != ks {
                return Err(self.err(format!(
                    "window size {} of spatial dimension {i} must equal the kernel's size {ks} (rhs {})",
                    w.size,
                    short_array(r)
                )));
            }
            let b = l.dims[dn.input_spatial_dimensions[i] as usize];
            out[dn.output_spatial_dimensions[i] as usize] = window_output_size(b, w)
                .map_err(|m| self.err(format!("window dimension {i}: {m}")))?;
        }
        Ok(arr_shape(ty, out))
    }

    fn gather(&self, dn: &GatherDimensionNumbers, slice_sizes: &[i64]) -> R<Shape> {
        self.nops(2)?;
        let (a, idx) = (self.arr(0)?, self.arr(1)?);
        let index_dims = IndexDims {
            indices: "start indices",
            window: (
                "collapsed_slice_dims",
                "a collapsed slice",
                &dn.collapsed_slice_dims,
            ),
            batching: (
                "operand_batching_dims",
                "operand batching",
                &dn.operand_batching_dims,
            ),
            index_map: ("start_index_map", &dn.start_index_map),
            indices_batching: (
                "start_indices_batching_dims",
                &dn.start_indices_batching_dims,
            ),
        };
        let (ivd, expanded) = self.index_vector(idx, dn.index_vector_dim, index_dims.indices)?;
        let batch_dims: Vec<i64> = expanded
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != ivd)
            .map(|(_, &d)| d)
            .collect();
        let out_rank = dn.offset_dims.len() + batch_dims.len();
        self.dim_list("offset_dims", &dn.offset_dims, out_rank, true)?;
        self.index_dims(a, idx, ivd, expanded[ivd], &index_dims)?;
        self.slice_sizes("slice_sizes", slice_sizes, a)?;
        for &d in dn
            .collapsed_slice_dims
            .iter()
            .chain(&dn.operand_batching_dims)
        {
            if slice_sizes[d as usize] > 1 {
                return Err(self.err(format!(
                    "slice size of collapsed or batching dimension {d} must be 0 or 1, got {}",
                    slice_sizes[d as usize]
                )));
            }
        }
        self.batching_sizes(a, idx, &index_dims)?;
        let offset_sizes: Vec<i64> = (0..a.rank() as i64)
            .filter(|d| {
                !dn.collapsed_slice_dims.contains(d) && !dn.operand_batching_dims.contains(d)
            })
            .map(|d| slice_sizes[d as usize])
            .collect();
        if offset_sizes.len() != dn.offset_dims.len() {
            return Err(self.err(format!(
                "offset_dims {} must have one entry per operand dimension that is neither collapsed nor batching ({})",
                list(&dn.offset_dims),
                offset_sizes.len()
            )));
        }
        let (mut oi, mut bi) = (0, 0);
        let mut out = Vec::with_capacity(out_rank);
        for i in 0..out_rank as i64 {
            if dn.offset_dims.contains(&i) {
                out.push(offset_sizes[oi]);
                oi += 1;
            } else {
                out.push(batch_dims[bi]);
                bi += 1;
            }
        }
        Ok(arr_shape(a.ty, out))
    }

    fn scatter(&self, dn: &ScatterDimensionNumbers) -> R<Shape> {
        let len = self.operands.len();
        if len < 3 || len % 2 == 0 {
            return Err(self.err(format!(
                "expects N operands, the scatter indices and N updates (an odd number >= 3), got {len}"
            )));
        }
        self.ncalled(1)?;
        let n = (len - 1) / 2;
        let a = self.arr(0)?;
        let idx = self.arr(n)?;
        let u0 = self.arr(n + 1)?;
        let mut tys = Vec::with_capacity(n);
        for i in 0..n {
            let (o, u) = (self.arr(i)?, self.arr(n + 1 + i)?);
            if o.dims != a.dims || u.dims != u0.dims || u.ty != o.ty {
                return Err(self.err(format!(
                    "operand {} and update {} must match the first operand's dimensions {} / first update's {} and each other's element type",
                    short_array(o),
                    short_array(u),
                    short_array(a),
                    short_array(u0)
                )));
            }
            tys.push(o.ty);
        }
        let index_dims = IndexDims {
            indices: "scatter indices",
            window: (
                "inserted_window_dims",
                "an inserted window",
                &dn.inserted_window_dims,
            ),
            batching: (
                "input_batching_dims",
                "input batching",
                &dn.input_batching_dims,
            ),
            index_map: (
                "scatter_dims_to_operand_dims",
                &dn.scatter_dims_to_operand_dims,
            ),
            indices_batching: (
                "scatter_indices_batching_dims",
                &dn.scatter_indices_batching_dims,
            ),
        };
        let (ivd, expanded) = self.index_vector(idx, dn.index_vector_dim, index_dims.indices)?;
        self.dim_list(
            "update_window_dims",
            &dn.update_window_dims,
            u0.rank(),
            true,
        )?;
        self.index_dims(a, idx, ivd, expanded[ivd], &index_dims)?;
        let window_operand_dims: Vec<usize> = (0..a.rank())
            .filter(|d| {
                !dn.inserted_window_dims.contains(&(*d as i64))
                    && !dn.input_batching_dims.contains(&(*d as i64))
            })
            .collect();
        if window_operand_dims.len() != dn.update_window_dims.len() {
            return Err(self.err(format!(
                "operand {} has rank {} but update_window_dims {}, inserted_window_dims {} and input_batching_dims {} account for {} dimensions",
                short_array(a),
                a.rank(),
                list(&dn.update_window_dims),
                list(&dn.inserted_window_dims),
                list(&dn.input_batching_dims),
                dn.update_window_dims.len() + dn.inserted_window_dims.len() + dn.input_batching_dims.len()
            )));
        }
        let scatter_dims: Vec<i64> = expanded
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != ivd)
            .map(|(_, &d)| d)
            .collect();
        if u0.rank() != dn.update_window_dims.len() + scatter_dims.len() {
            return Err(self.err(format!(
                "updates {} must have rank {} (update_window_dims {} plus the {} scatter dimensions of indices {})",
                short_array(u0),
                dn.update_window_dims.len() + scatter_dims.len(),
                list(&dn.update_window_dims),
                scatter_dims.len(),
                short_array(idx)
            )));
        }
        let (mut wi, mut si) = (0, 0);
        for d in 0..u0.rank() {
            let size = u0.dims[d];
            if dn.update_window_dims.contains(&(d as i64)) {
                let od = window_operand_dims[wi];
                if size > a.dims[od] {
                    return Err(self.err(format!(
                        "update window dimension {d} of {} (size {size}) exceeds operand {} dimension {od}",
                        short_array(u0),
                        short_array(a)
                    )));
                }
                wi += 1;
            } else {
                if size != scatter_dims[si] {
                    return Err(self.err(format!(
                        "update scatter dimension {d} of {} (size {size}) must equal the index dimension size {}",
                        short_array(u0),
                        scatter_dims[si]
                    )));
                }
                si += 1;
            }
        }
        self.batching_sizes(a, idx, &index_dims)?;
        self.reducer(ToApply.key(), &self.called[0], &tys)?;
        Ok(self.variadic_result((0..n).map(|i| self.operands[i].clone()).collect()))
    }

    fn topk(&self, k: i64) -> R<Shape> {
        self.nops(1)?;
        let a = self.arr(0)?;
        if a.ty.is_complex() {
            return Err(self.err(format!(
                "complex numbers are not ordered: topk needs a real operand, got {}",
                short_array(a)
            )));
        }
        let Some(&last) = a.dims.last() else {
            return Err(self.err(format!(
                "operand must have rank >= 1, got {}",
                short_array(a)
            )));
        };
        if k < 0 || k > last {
            return Err(self.err(format!(
                "k={k} must be in [0, {last}] (the last dimension of {})",
                short_array(a)
            )));
        }
        let mut dims = a.dims.clone();
        *dims.last_mut().expect("rank >= 1") = k;
        Ok(Shape::tuple(vec![
            Shape::array(a.ty, dims.clone()),
            Shape::array(ElementType::S32, dims),
        ]))
    }

    /// Operands `0..n` as arrays of one set of dimensions (`what` names
    /// them in the message): the first, and each one's element type.
    fn same_dims(&self, n: usize, what: &str) -> R<(&'a ArrayShape, Vec<ElementType>)> {
        let first = self.arr(0)?;
        let mut tys = Vec::with_capacity(n);
        for i in 0..n {
            let a = self.arr(i)?;
            if a.dims != first.dims {
                return Err(self.err(format!(
                    "{what} {} and {} must have the same dimensions",
                    short_array(first),
                    short_array(a)
                )));
            }
            tys.push(a.ty);
        }
        Ok((first, tys))
    }

    /// At least one operand, all arrays of one set of dimensions, and one
    /// called computation (sort, map).
    fn variadic_same_dims(&self) -> R<(&'a ArrayShape, Vec<ElementType>)> {
        if self.operands.is_empty() {
            return Err(self.err("expects at least 1 operand, got 0"));
        }
        self.ncalled(1)?;
        self.same_dims(self.operands.len(), "operands")
    }

    fn sort(&self, dimension: i64) -> R<Shape> {
        let (first, tys) = self.variadic_same_dims()?;
        self.dim_in_range("sort dimension", dimension, first.rank())?;
        let cmp = &self.called[0];
        let ok = cmp.parameters.len() == 2 * tys.len()
            && cmp
                .parameters
                .iter()
                .enumerate()
                .all(|(i, p)| is_scalar_of(p, tys[i / 2]))
            && is_scalar_of(&cmp.result, ElementType::Pred);
        if !ok {
            let ps: Vec<&Shape> = cmp.parameters.iter().collect();
            let want: Vec<String> = tys
                .iter()
                .flat_map(|t| [format!("{t}[]"), format!("{t}[]")])
                .collect();
            return Err(self.err(format!(
                "comparator has signature ({}) -> {} but must be ({}) -> pred[]",
                shapes_list(&ps),
                short(&cmp.result),
                want.join(", ")
            )));
        }
        Ok(self.variadic_result(self.operands.iter().map(|s| (*s).clone()).collect()))
    }

    fn conditional(&self) -> R<Shape> {
        if self.operands.is_empty() {
            return Err(self.err("expects a branch selector operand, got no operands"));
        }
        let sel = self.arr(0)?;
        let nb = self.called.len();
        if is_scalar_of(self.operands[0], ElementType::Pred) {
            if nb != 2 {
                return Err(self.err(format!(
                    "with a pred selector expects 2 branch computations, got {nb}"
                )));
            }
        } else if is_scalar_of(self.operands[0], ElementType::S32) {
            if nb < 1 {
                return Err(self.err("expects at least 1 branch computation, got 0"));
            }
        } else {
            return Err(self.err(format!(
                "branch selector must be pred[] or s32[], got {}",
                short_array(sel)
            )));
        }
        if self.operands.len() != nb + 1 {
            return Err(self.err(format!(
                "expects {} operands (selector and one per branch), got {}",
                nb + 1,
                self.operands.len()
            )));
        }
        for (i, b) in self.called.iter().enumerate() {
            self.params_match(&format!("branch {i}"), b, &[self.operands[i + 1]])?;
            if !b.result.compatible(&self.called[0].result) {
                return Err(self.err(format!(
                    "branch {i} returns {} but branch 0 returns {}",
                    short(&b.result),
                    short(&self.called[0].result)
                )));
            }
        }
        Ok(self.called[0].result.clone())
    }

    fn map(&self, dimensions: &[i64]) -> R<Shape> {
        let (first, tys) = self.variadic_same_dims()?;
        let scalars: Vec<Shape> = tys.iter().map(|&t| arr_shape(t, vec![])).collect();
        let identity: Vec<i64> = (0..first.rank() as i64).collect();
        if dimensions != identity.as_slice() {
            return Err(self.err(format!(
                "dimensions {} must be all operand dimensions in order {}",
                list(dimensions),
                list(&identity)
            )));
        }
        let refs: Vec<&Shape> = scalars.iter().collect();
        let f = &self.called[0];
        self.params_match(ToApply.key(), f, &refs)?;
        match &f.result {
            Shape::Array(r) if r.rank() == 0 => Ok(arr_shape(r.ty, first.dims.clone())),
            s => Err(self.err(format!(
                "to_apply must return a scalar, returns {}",
                short(s)
            ))),
        }
    }

    fn custom_call(&self, cc: &CustomCall) -> R<Shape> {
        let d = self.declared()?;
        for (k, al) in cc.output_operand_aliasing.iter().enumerate() {
            let out = d.subshape(&al.output_index).ok_or_else(|| {
                self.err(format!(
                    "output_to_operand_aliasing entry {k}: output index {} does not exist in result {}",
                    list(&al.output_index),
                    short(d)
                ))
            })?;
            if al.operand < 0 || al.operand as usize >= self.operands.len() {
                return Err(self.err(format!(
                    "output_to_operand_aliasing entry {k}: operand {} is out of range (the call has {} operands)",
                    al.operand,
                    self.operands.len()
                )));
            }
            let opnd = self.operands[al.operand as usize];
            let sub = opnd.subshape(&al.operand_index).ok_or_else(|| {
                self.err(format!(
                    "output_to_operand_aliasing entry {k}: operand index {} does not exist in operand {} shape {}",
                    list(&al.operand_index),
                    al.operand,
                    short(opnd)
                ))
            })?;
            if !out.compatible(sub) {
                return Err(self.err(format!(
                    "output_to_operand_aliasing entry {k}: output {} at {} and operand {} {} at {} differ",
                    short(out),
                    list(&al.output_index),
                    al.operand,
                    short(sub),
                    list(&al.operand_index)
                )));
            }
            if cc.output_operand_aliasing[..k]
                .iter()
                .any(|p| p.output_index == al.output_index)
            {
                return Err(self.err(format!(
                    "output_to_operand_aliasing: output index {} is aliased twice",
                    list(&al.output_index)
                )));
            }
        }
        if let Some(cons) = &cc.operand_layout_constraints {
            if cons.len() != self.operands.len() {
                return Err(self.err(format!(
                    "operand_layout_constraints has {} shapes but the call has {} operands",
                    cons.len(),
                    self.operands.len()
                )));
            }
            for (i, (c, o)) in cons.iter().zip(self.operands).enumerate() {
                if !c.compatible(o) {
                    return Err(self.err(format!(
                        "operand_layout_constraints entry {i} {} is not compatible with operand {i} shape {}",
                        short(c),
                        short(o)
                    )));
                }
                validate_shape(c)
                    .map_err(|m| self.err(format!("operand_layout_constraints entry {i}: {m}")))?;
            }
        }
        Ok(d.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{IotaReplicaGroups, PadDim, SliceDim};

    #[test]
    fn iota_replica_groups_expand_like_xla() {
        let iota = |groups, size, reshape_dims: &[i64], perm: &[i64]| {
            IotaReplicaGroups {
                groups,
                size,
                reshape_dims: reshape_dims.to_vec(),
                perm: perm.to_vec(),
            }
            .expand()
        };
        assert_eq!(iota(2, 2, &[4], &[]), Some(vec![vec![0, 1], vec![2, 3]]));
        assert_eq!(
            iota(2, 2, &[2, 2], &[1, 0]),
            Some(vec![vec![0, 2], vec![1, 3]])
        );
        // iota(8).reshape(2,2,2).transpose(2,0,1): element [i,j,k] is
        // 4j + 2k + i.
        assert_eq!(
            iota(2, 4, &[2, 2, 2], &[2, 0, 1]),
            Some(vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]])
        );
        assert_eq!(iota(1, 1, &[1], &[]), Some(vec![vec![0]]));
        assert_eq!(iota(2, 2, &[3], &[]), None, "dimensions must multiply to 4");
        assert_eq!(iota(2, 2, &[2, 2], &[0, 0]), None, "not a permutation");
        assert_eq!(iota(i64::MAX, 0, &[0], &[]), None, "too many groups");
    }

    fn f32s(d: &[i64]) -> Shape {
        Shape::array(ElementType::F32, d.to_vec())
    }

    #[test]
    fn add_mismatch_message() {
        let e = infer_shape(
            &Op::Binary(BinaryOp::Add),
            &[&f32s(&[2, 3]), &f32s(&[3])],
            &[],
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "add: operand shapes f32[2,3] and f32[3] differ"
        );
    }

    #[test]
    fn slice_and_pad() {
        let s = infer_shape(
            &Op::Slice {
                dims: vec![SliceDim {
                    start: 1,
                    limit: 8,
                    stride: 3,
                }],
            },
            &[&f32s(&[10])],
            &[],
        )
        .unwrap();
        assert_eq!(s, f32s(&[3]));
        let p = infer_shape(
            &Op::Pad {
                dims: vec![PadDim {
                    lo: 1,
                    hi: -2,
                    interior: 2,
                }],
            },
            &[&f32s(&[4]), &f32s(&[])],
            &[],
        )
        .unwrap();
        assert_eq!(p, f32s(&[1 - 2 + 4 + 3 * 2]));
        // Huge values do not overflow/panic.
        let e = infer_shape(
            &Op::Pad {
                dims: vec![PadDim {
                    lo: i64::MAX,
                    hi: i64::MAX,
                    interior: i64::MAX,
                }],
            },
            &[&f32s(&[4]), &f32s(&[])],
            &[],
        );
        assert!(e.is_err());
    }

    #[test]
    fn validate_shape_errors() {
        let mut a = ArrayShape::new(ElementType::F32, vec![2, 3]);
        a.layout.minor_to_major = vec![0, 0];
        let e = validate_shape(&Shape::Array(a)).unwrap_err();
        assert!(matches!(
            e,
            InvalidShape::LayoutNotPermutation { rank: 2, .. }
        ));
        assert!(e.to_string().contains("not a permutation"), "{e}");
        let e = validate_shape(&f32s(&[-1])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "shape f32[-1] has negative dimension size -1"
        );
        let e = validate_shape(&f32s(&[i64::MAX, 4])).unwrap_err();
        assert!(matches!(e, InvalidShape::TooLarge { .. }));
        assert!(e.to_string().contains("too many"), "{e}");
    }

    /// Every opcode, given arbitrary operands, called signatures and declared
    /// shapes, returns a result or an error: it never panics.
    #[test]
    fn no_panics_on_arbitrary_input() {
        use crate::ir::*;
        use crate::literal::Literal;
        use crate::opcode::Opcode;
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let w = |n: usize, size: i64| Window {
            dims: vec![
                WindowDim {
                    size,
                    stride: size - 1,
                    pad_lo: -size,
                    ..WindowDim::new(size)
                };
                n
            ],
        };
        // Every opcode with its table defaults, and these with attributes
        // that reach further into the shape rules (or out of range).
        let picked = vec![
            Op::Constant {
                literal: Literal::r0(1f32),
            },
            Op::Iota { dimension: 1 },
            Op::Compare {
                direction: ComparisonDirection::Lt,
                cmp_type: Some(ComparisonType::Unsigned),
            },
            Op::ReducePrecision {
                exponent_bits: 8,
                mantissa_bits: 7,
            },
            Op::Broadcast {
                dimensions: vec![1, 0],
            },
            Op::Transpose {
                dimensions: vec![1, 0],
            },
            Op::Reverse {
                dimensions: vec![0, 5],
            },
            Op::Slice {
                dims: vec![
                    SliceDim {
                        start: 1,
                        limit: 0,
                        stride: 1
                    };
                    2
                ],
            },
            Op::DynamicSlice { sizes: vec![1, 1] },
            Op::Concatenate { dimension: 1 },
            Op::Pad {
                dims: vec![
                    PadDim {
                        lo: -3,
                        hi: 1,
                        interior: 2
                    };
                    2
                ],
            },
            Op::Dot {
                dnums: DotDimensionNumbers {
                    lhs_batch_dims: vec![0],
                    rhs_batch_dims: vec![1],
                    lhs_contracting_dims: vec![1],
                    rhs_contracting_dims: vec![0],
                },
                precision: vec![],
            },
            Op::Reduce {
                dimensions: vec![0],
            },
            Op::ReduceWindow { window: w(2, 2) },
            Op::SelectAndScatter { window: w(2, 1) },
            Op::Convolution(Convolution {
                window: w(0, 1),
                dnums: ConvDimensionNumbers {
                    input_feature_dimension: 1,
                    kernel_output_feature_dimension: 1,
                    output_feature_dimension: 1,
                    ..Default::default()
                },
                feature_group_count: 1,
                batch_group_count: 1,
                precision: vec![],
            }),
            Op::Sort {
                dimension: 0,
                is_stable: false,
            },
            Op::TopK {
                k: 1,
                largest: true,
            },
            Op::GetTupleElement { index: 1 },
            Op::Map {
                dimensions: vec![0, 1],
            },
            Op::CustomCall(Box::new(CustomCall {
                output_operand_aliasing: vec![OutputOperandAlias {
                    output_index: vec![0],
                    operand: 1,
                    operand_index: vec![0],
                }],
                operand_layout_constraints: Some(vec![Shape::array(ElementType::F32, vec![2, 2])]),
                ..Default::default()
            })),
            Op::AllGather {
                collective: Collective {
                    replica_groups: ReplicaGroups::Iota(IotaReplicaGroups {
                        groups: 1,
                        size: 1,
                        reshape_dims: vec![1, 1],
                        perm: vec![1, 0],
                    }),
                    ..Default::default()
                },
                dimension: 1,
            },
            Op::ReduceScatter {
                collective: Collective {
                    replica_groups: ReplicaGroups::List(vec![vec![0, 1]]),
                    ..Default::default()
                },
                dimension: 0,
            },
            Op::AllToAll {
                collective: Collective {
                    replica_groups: ReplicaGroups::Iota(IotaReplicaGroups {
                        groups: i64::MAX,
                        size: 0,
                        reshape_dims: vec![0],
                        perm: vec![],
                    }),
                    ..Default::default()
                },
                split_dimension: None,
            },
            Op::CollectivePermute {
                channel_id: Some(1),
                source_target_pairs: vec![(0, 0)],
            },
        ];
        let ops: Vec<Op> = Opcode::ALL
            .iter()
            .map(|&code| Op::with_default_attributes(code))
            .chain(picked)
            .collect();
        let shape = prop_oneof![
            (
                0usize..ElementType::ALL.len(),
                proptest::collection::vec(0i64..4, 0..3)
            )
                .prop_map(|(t, d)| Shape::array(ElementType::ALL[t], d)),
            Just(Shape::Token),
            Just(Shape::tuple(vec![
                Shape::array(ElementType::F32, vec![2]),
                Shape::scalar(ElementType::Pred)
            ])),
        ];
        let sig = (
            proptest::collection::vec(shape.clone(), 0..3),
            shape.clone(),
        )
            .prop_map(|(parameters, result)| ProgramShape {
                parameter_names: vec![],
                parameters,
                result,
            });
        // Gather and scatter with arbitrary dimension numbers (in range or
        // not, repeated or missing).
        let dims = || proptest::collection::vec(-1i64..4, 0..3);
        let gather = (dims(), dims(), dims(), dims(), dims(), -1i64..4, dims()).prop_map(
            |(offset, collapsed, map, operand_batch, index_batch, ivd, slice_sizes)| Op::Gather {
                dnums: GatherDimensionNumbers {
                    offset_dims: offset,
                    collapsed_slice_dims: collapsed,
                    start_index_map: map,
                    operand_batching_dims: operand_batch,
                    start_indices_batching_dims: index_batch,
                    index_vector_dim: ivd,
                },
                slice_sizes,
                indices_are_sorted: false,
            },
        );
        let scatter = (dims(), dims(), dims(), dims(), dims(), -1i64..4).prop_map(
            |(window, inserted, map, input_batch, index_batch, ivd)| Op::Scatter {
                dnums: ScatterDimensionNumbers {
                    update_window_dims: window,
                    inserted_window_dims: inserted,
                    scatter_dims_to_operand_dims: map,
                    input_batching_dims: input_batch,
                    scatter_indices_batching_dims: index_batch,
                    index_vector_dim: ivd,
                },
                indices_are_sorted: false,
                unique_indices: false,
            },
        );
        let op = prop_oneof![
            8 => proptest::sample::select(ops),
            1 => gather,
            1 => scatter,
        ];
        let strat = (
            op,
            proptest::collection::vec(shape.clone(), 0..5),
            proptest::collection::vec(sig, 0..3),
            shape,
        );
        let mut runner = TestRunner::new(Config {
            cases: 5000,
            ..Config::default()
        });
        runner
            .run(&strat, |(op, operands, called, declared)| {
                let refs: Vec<&Shape> = operands.iter().collect();
                let _ = infer_shape(&op, &refs, &called);
                let _ = check_shape(&op, &refs, &called, &declared);
                Ok(())
            })
            .unwrap();
    }
}
