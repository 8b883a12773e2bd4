//! Element types and shapes, with XLA's semantics.
//!
//! Architecture invariant: every array shape carries a layout. A shape read
//! without one (`f32[2,3]` in HLO text, a ShapeProto without a layout) gets
//! the default, major-to-minor layout (`{1,0}`), so printing is canonical and
//! `parse(print(m)) == m`.

use std::fmt;

/// XLA's `PrimitiveType`, restricted to what hlox supports.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum ElementType {
    Pred,
    S8,
    S16,
    S32,
    S64,
    U8,
    U16,
    U32,
    U64,
    F16,
    Bf16,
    F32,
    F64,
    /// A complex number of two `f32`s (real part first), XLA's `C64`.
    C64,
    /// A complex number of two `f64`s (real part first), XLA's `C128`.
    C128,
}

impl ElementType {
    pub const ALL: [ElementType; 15] = [
        ElementType::Pred,
        ElementType::S8,
        ElementType::S16,
        ElementType::S32,
        ElementType::S64,
        ElementType::U8,
        ElementType::U16,
        ElementType::U32,
        ElementType::U64,
        ElementType::F16,
        ElementType::Bf16,
        ElementType::F32,
        ElementType::F64,
        ElementType::C64,
        ElementType::C128,
    ];

    /// Size of one element in bytes (PRED is one byte, as in XLA).
    pub fn byte_size(self) -> usize {
        use ElementType::*;
        match self {
            Pred | S8 | U8 => 1,
            S16 | U16 | F16 | Bf16 => 2,
            S32 | U32 | F32 => 4,
            S64 | U64 | F64 | C64 => 8,
            C128 => 16,
        }
    }
    /// Bit width of one element (PRED counts as 1 for shift semantics? no: 8).
    pub fn bit_width(self) -> u32 {
        (self.byte_size() * 8) as u32
    }
    /// The lowercase name used by HLO text (`f32`, `pred`, `bf16`).
    pub fn name(self) -> &'static str {
        use ElementType::*;
        match self {
            Pred => "pred",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            F16 => "f16",
            Bf16 => "bf16",
            F32 => "f32",
            F64 => "f64",
            C64 => "c64",
            C128 => "c128",
        }
    }
    pub fn from_name(s: &str) -> Option<ElementType> {
        ElementType::ALL.iter().copied().find(|t| t.name() == s)
    }
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElementType::F16 | ElementType::Bf16 | ElementType::F32 | ElementType::F64
        )
    }
    /// `c64` or `c128`.
    pub fn is_complex(self) -> bool {
        matches!(self, ElementType::C64 | ElementType::C128)
    }
    /// A floating-point or complex type: what XLA's `IsFloatingPointType ||
    /// IsComplexType` admits (the element types of most transcendental ops).
    pub fn is_float_or_complex(self) -> bool {
        self.is_float() || self.is_complex()
    }
    /// The type of a complex type's real and imaginary parts (`c64` -> `f32`);
    /// `None` for a type that is not complex.
    pub fn complex_component(self) -> Option<ElementType> {
        match self {
            ElementType::C64 => Some(ElementType::F32),
            ElementType::C128 => Some(ElementType::F64),
            _ => None,
        }
    }
    /// The complex type whose parts are this type (`f32` -> `c64`, `f64` ->
    /// `c128`); `None` for any other type (XLA's `complex` takes only these).
    pub fn complex_of(self) -> Option<ElementType> {
        match self {
            ElementType::F32 => Some(ElementType::C64),
            ElementType::F64 => Some(ElementType::C128),
            _ => None,
        }
    }
    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            ElementType::S8 | ElementType::S16 | ElementType::S32 | ElementType::S64
        )
    }
    pub fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            ElementType::U8 | ElementType::U16 | ElementType::U32 | ElementType::U64
        )
    }
    pub fn is_integral(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }
    pub fn is_pred(self) -> bool {
        self == ElementType::Pred
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dense layout: `minor_to_major[0]` is the fastest-varying dimension.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Layout {
    pub minor_to_major: Vec<i64>,
}

impl Layout {
    /// The default (row-major) layout for `rank` dimensions: `{rank-1, ..., 0}`.
    pub fn default_for_rank(rank: usize) -> Layout {
        Layout {
            minor_to_major: (0..rank as i64).rev().collect(),
        }
    }
    /// The dimensions from the most major to the most minor.
    pub fn major_to_minor(&self) -> impl Iterator<Item = usize> + '_ {
        self.minor_to_major.iter().rev().map(|&d| d as usize)
    }
    pub fn is_default(&self) -> bool {
        let n = self.minor_to_major.len() as i64;
        self.minor_to_major
            .iter()
            .enumerate()
            .all(|(i, &d)| d == n - 1 - i as i64)
    }
    /// True when this is a permutation of `0..rank`.
    pub fn is_valid_for_rank(&self, rank: usize) -> bool {
        if self.minor_to_major.len() != rank {
            return false;
        }
        let mut seen = vec![false; rank];
        for &d in &self.minor_to_major {
            if d < 0 || d as usize >= rank || seen[d as usize] {
                return false;
            }
            seen[d as usize] = true;
        }
        true
    }
}

/// An array shape: element type, dimension sizes and a layout.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ArrayShape {
    pub ty: ElementType,
    pub dims: Vec<i64>,
    pub layout: Layout,
}

impl ArrayShape {
    /// An array shape with the default layout.
    pub fn new(ty: ElementType, dims: impl Into<Vec<i64>>) -> ArrayShape {
        let dims = dims.into();
        let layout = Layout::default_for_rank(dims.len());
        ArrayShape { ty, dims, layout }
    }
    pub fn scalar(ty: ElementType) -> ArrayShape {
        ArrayShape::new(ty, Vec::new())
    }
    pub fn rank(&self) -> usize {
        self.dims.len()
    }
    /// Number of elements, or `None` on overflow.
    pub fn checked_element_count(&self) -> Option<i64> {
        self.dims.iter().try_fold(
            1i64,
            |acc, &d| if d < 0 { None } else { acc.checked_mul(d) },
        )
    }
    /// Number of elements (negative dimensions count as 0). Saturates at
    /// `usize::MAX` for shapes too large to exist (an unverified module's):
    /// allocating that many fails with an error instead of overflowing.
    pub fn element_count(&self) -> usize {
        self.dims
            .iter()
            .fold(1usize, |n, &d| n.saturating_mul(d.max(0) as usize))
    }
    /// Size in bytes; saturates like [`ArrayShape::element_count`].
    pub fn byte_size(&self) -> usize {
        self.element_count().saturating_mul(self.ty.byte_size())
    }
    /// Same element type and dimensions (layouts may differ).
    pub fn compatible(&self, other: &ArrayShape) -> bool {
        self.ty == other.ty && self.dims == other.dims
    }
    pub fn with_type(&self, ty: ElementType) -> ArrayShape {
        ArrayShape {
            ty,
            dims: self.dims.clone(),
            layout: self.layout.clone(),
        }
    }
    /// Strides in elements for each logical dimension, under this layout.
    pub fn strides(&self) -> Vec<usize> {
        let mut strides = vec![0usize; self.dims.len()];
        let mut acc = 1usize;
        for &d in &self.layout.minor_to_major {
            strides[d as usize] = acc;
            acc *= self.dims[d as usize].max(0) as usize;
        }
        strides
    }
}

/// The deepest tuple nesting hlox accepts (`((f32[]))` is depth 2). The
/// parser and the verifier refuse deeper shapes with an error naming this
/// limit, so every recursive walk over a shape (printing, layouts, buffer
/// flattening, shape inference, argument generation) stays far from the
/// stack's end, even on a library thread's 2 MiB stack. A serialized proto
/// is bounded by prost's nesting limit of 100 messages, which 64 levels
/// stay under, so every module that parses also converts to a proto and back.
/// XLA sets no limit; real modules nest a few levels.
pub const MAX_TUPLE_DEPTH: usize = 64;

/// XLA's `Shape`: an array, a (possibly nested, possibly empty) tuple, or a token.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Shape {
    Array(ArrayShape),
    Tuple(Vec<Shape>),
    Token,
}

/// A path into a (nested) tuple shape: `{}` is the whole shape, `{1,0}` is
/// element 0 of element 1.
pub type ShapeIndex = Vec<i64>;

impl Shape {
    pub fn array(ty: ElementType, dims: impl Into<Vec<i64>>) -> Shape {
        Shape::Array(ArrayShape::new(ty, dims))
    }
    pub fn scalar(ty: ElementType) -> Shape {
        Shape::Array(ArrayShape::scalar(ty))
    }
    pub fn tuple(elems: impl Into<Vec<Shape>>) -> Shape {
        Shape::Tuple(elems.into())
    }
    pub fn is_array(&self) -> bool {
        matches!(self, Shape::Array(_))
    }
    pub fn is_tuple(&self) -> bool {
        matches!(self, Shape::Tuple(_))
    }
    pub fn is_token(&self) -> bool {
        matches!(self, Shape::Token)
    }
    pub fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_array_mut(&mut self) -> Option<&mut ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn tuple_elements(&self) -> Option<&[Shape]> {
        match self {
            Shape::Tuple(t) => Some(t),
            _ => None,
        }
    }
    /// This shape with every array in the default (major-to-minor) layout.
    pub fn with_default_layout(&self) -> Shape {
        match self {
            Shape::Array(a) => Shape::Array(ArrayShape::new(a.ty, a.dims.clone())),
            Shape::Tuple(t) => Shape::Tuple(t.iter().map(Shape::with_default_layout).collect()),
            Shape::Token => Shape::Token,
        }
    }
    /// How deeply tuples nest in this shape: 0 for an array or a token, 1 for
    /// a tuple of arrays. Iterative, so any depth is safe to measure.
    pub fn tuple_depth(&self) -> usize {
        let mut max = 0;
        let mut stack = vec![(self, 0usize)];
        while let Some((s, d)) = stack.pop() {
            if let Shape::Tuple(elems) = s {
                max = max.max(d + 1);
                stack.extend(elems.iter().map(|e| (e, d + 1)));
            }
        }
        max
    }
    /// The subshape at `index`, if the path exists.
    pub fn subshape(&self, index: &[i64]) -> Option<&Shape> {
        let mut s = self;
        for &i in index {
            s = s.tuple_elements()?.get(usize::try_from(i).ok()?)?;
        }
        Some(s)
    }
    /// Leaf (non-tuple) subshapes with their indices, in pre-order: the order
    /// XLA uses to flatten buffers for GPU custom calls.
    pub fn leaves(&self) -> Vec<(ShapeIndex, &Shape)> {
        fn walk<'a>(s: &'a Shape, idx: &mut ShapeIndex, out: &mut Vec<(ShapeIndex, &'a Shape)>) {
            match s {
                Shape::Tuple(elems) => {
                    for (i, e) in elems.iter().enumerate() {
                        idx.push(i as i64);
                        walk(e, idx, out);
                        idx.pop();
                    }
                }
                _ => out.push((idx.clone(), s)),
            }
        }
        let mut out = Vec::new();
        walk(self, &mut Vec::new(), &mut out);
        out
    }
    /// Equal ignoring layouts.
    pub fn compatible(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.compatible(b),
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.compatible(y))
            }
            (Shape::Token, Shape::Token) => true,
            _ => false,
        }
    }
    /// The element type of an array shape.
    pub fn element_type(&self) -> Option<ElementType> {
        self.as_array().map(|a| a.ty)
    }
}

/// The signature of a computation: parameter shapes and result shape.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ProgramShape {
    pub parameters: Vec<Shape>,
    pub parameter_names: Vec<String>,
    pub result: Shape,
}
