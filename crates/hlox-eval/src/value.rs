//! Values inside the evaluator and the typed views used for arithmetic.
//!
//! Internal invariant: every array value the evaluator holds uses the default
//! (row-major) layout, so "logical index" and "byte offset / element size"
//! coincide. Layouts are applied only at the boundaries: entry arguments and
//! constants are normalised on the way in; custom-call operands, bitcasts
//! and the final result are laid out as their shapes declare.

use half::{bf16, f16};
use hlox_hlo::{ArrayLiteral, ArrayShape, ElementType, Layout, Literal, Shape};
use hlox_hlo::{Complex32, Complex64};

/// Why one instruction could not be evaluated. The interpreter attributes
/// it to the instruction ([`crate::EvalError::Instruction`]).
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    /// Operands or attributes that do not fit the op (a module the
    /// verifier rejects); the message names the operand or attribute.
    #[error("{0}")]
    Invalid(String),
    /// The op has no meaning for the element type.
    #[error("{op} is not defined for element type {ty}")]
    Unsupported { op: &'static str, ty: ElementType },
    /// An operand is computed after this instruction.
    #[error("operand {0} is not evaluated before this instruction (instructions must be in topological order)")]
    OperandOrder(String),
    /// The value computed does not have the declared shape.
    #[error("evaluates to shape {actual} but the instruction declares {declared}")]
    ResultShape { actual: String, declared: String },
    /// A bug in the evaluator (a panic caught at the instruction).
    #[error("internal evaluator error (please report): {0}")]
    Internal(String),
    #[error(transparent)]
    DimensionNumbers(#[from] hlox_hlo::semantics::gather::DimensionNumbersError),
    #[error(transparent)]
    Window(#[from] hlox_hlo::semantics::window::WindowError),
    #[error(transparent)]
    Rng(#[from] hlox_hlo::semantics::rng::RngError),
    #[error(transparent)]
    Literal(#[from] hlox_hlo::LiteralError),
}

impl From<String> for OpError {
    fn from(m: String) -> OpError {
        OpError::Invalid(m)
    }
}

impl From<&str> for OpError {
    fn from(m: &str) -> OpError {
        OpError::Invalid(m.to_string())
    }
}

pub(crate) type R<T> = Result<T, OpError>;

/// Typed element values, widened to a computation domain:
/// signed integers sign-extended to i64, unsigned integers and PRED
/// zero-extended to u64, F16/BF16/F32 widened to f32, F64 as f64, C64 as
/// a complex of f32s (`C`), C128 of f64s (`Z`, LAPACK's letter).
#[derive(Clone, Debug)]
pub(crate) enum Vals {
    S(Vec<i64>),
    U(Vec<u64>),
    F(Vec<f32>),
    D(Vec<f64>),
    C(Vec<Complex32>),
    Z(Vec<Complex64>),
}

impl Vals {
    pub(crate) fn len(&self) -> usize {
        match self {
            Vals::S(v) => v.len(),
            Vals::U(v) => v.len(),
            Vals::F(v) => v.len(),
            Vals::D(v) => v.len(),
            Vals::C(v) => v.len(),
            Vals::Z(v) => v.len(),
        }
    }
}

/// Bit width of an integer element type (PRED counts as 1).
pub(crate) fn int_width(ty: ElementType) -> u32 {
    if ty == ElementType::Pred {
        1
    } else {
        ty.bit_width()
    }
}

pub(crate) fn shape_str(s: &Shape) -> String {
    hlox_hlo::text::shape_to_string(s)
}

pub(crate) fn ashape_str(s: &ArrayShape) -> String {
    shape_str(&Shape::Array(s.clone()))
}

/// Read every element (logical order) of a default-layout array.
pub(crate) fn decode(a: &ArrayLiteral) -> Vals {
    let b = a.bytes();
    use ElementType::*;
    macro_rules! rd {
        ($t:ty, $n:expr, $map:expr) => {
            b.chunks_exact($n)
                .map(|c| $map(<$t>::from_ne_bytes(c.try_into().unwrap())))
                .collect()
        };
    }
    match a.ty() {
        Pred => Vals::U(b.iter().map(|&x| (x != 0) as u64).collect()),
        S8 => Vals::S(rd!(i8, 1, |x| x as i64)),
        S16 => Vals::S(rd!(i16, 2, |x| x as i64)),
        S32 => Vals::S(rd!(i32, 4, |x| x as i64)),
        S64 => Vals::S(rd!(i64, 8, |x| x)),
        U8 => Vals::U(b.iter().map(|&x| x as u64).collect()),
        U16 => Vals::U(rd!(u16, 2, |x| x as u64)),
        U32 => Vals::U(rd!(u32, 4, |x| x as u64)),
        U64 => Vals::U(rd!(u64, 8, |x| x)),
        F16 => Vals::F(rd!(u16, 2, |x| f16::from_bits(x).to_f32())),
        Bf16 => Vals::F(rd!(u16, 2, |x| bf16::from_bits(x).to_f32())),
        F32 => Vals::F(rd!(f32, 4, |x| x)),
        F64 => Vals::D(rd!(f64, 8, |x| x)),
        C64 => Vals::C(
            b.chunks_exact(8)
                .map(<Complex32 as hlox_hlo::NativeType>::read_ne)
                .collect(),
        ),
        C128 => Vals::Z(
            b.chunks_exact(16)
                .map(<Complex64 as hlox_hlo::NativeType>::read_ne)
                .collect(),
        ),
    }
}

/// Float -> integer with XLA's convert semantics: saturating, NaN -> 0.
fn f64_to_int(v: f64, ty: ElementType) -> Scalar {
    use ElementType::*;
    match ty {
        Pred => Scalar::U((v != 0.0) as u64),
        S8 => Scalar::S((v as i8) as i64),
        S16 => Scalar::S((v as i16) as i64),
        S32 => Scalar::S((v as i32) as i64),
        S64 => Scalar::S(v as i64),
        U8 => Scalar::U((v as u8) as u64),
        U16 => Scalar::U((v as u16) as u64),
        U32 => Scalar::U((v as u32) as u64),
        U64 => Scalar::U(v as u64),
        _ => unreachable!(),
    }
}

/// As [`f64_to_int`] (every f32 is exactly an f64, and the saturating
/// conversion depends only on the value).
fn f32_to_int(v: f32, ty: ElementType) -> Scalar {
    f64_to_int(v as f64, ty)
}

#[derive(Copy, Clone)]
enum Scalar {
    S(i64),
    U(u64),
}

impl Scalar {
    fn bits(self) -> u64 {
        match self {
            Scalar::S(v) => v as u64,
            Scalar::U(v) => v,
        }
    }
}

/// Write values as element type `ty` with XLA's convert semantics:
/// integer -> integer wraps, anything -> PRED is `!= 0`, float -> integer
/// saturates (NaN -> 0), to-float rounds to nearest even.
pub(crate) fn encode(v: &Vals, ty: ElementType, dims: &[i64]) -> ArrayLiteral {
    let n = v.len();
    let sz = ty.byte_size();
    let mut out = vec![0u8; n * sz];
    use ElementType::*;
    // Integer bits (two's complement, wrapped) -> bytes of `ty`.
    fn put_int(out: &mut [u8], i: usize, sz: usize, ty: ElementType, bits: u64) {
        if ty == Pred {
            out[i] = (bits != 0) as u8;
            return;
        }
        let le = bits.to_ne_bytes();
        if cfg!(target_endian = "little") {
            out[i * sz..(i + 1) * sz].copy_from_slice(&le[..sz]);
        } else {
            out[i * sz..(i + 1) * sz].copy_from_slice(&le[8 - sz..]);
        }
    }
    fn put_f32(out: &mut [u8], i: usize, ty: ElementType, x: f32) {
        match ty {
            F16 => out[i * 2..i * 2 + 2].copy_from_slice(&f16::from_f32(x).to_ne_bytes()),
            Bf16 => out[i * 2..i * 2 + 2].copy_from_slice(&bf16::from_f32(x).to_ne_bytes()),
            F32 => out[i * 4..i * 4 + 4].copy_from_slice(&x.to_ne_bytes()),
            F64 => out[i * 8..i * 8 + 8].copy_from_slice(&(x as f64).to_ne_bytes()),
            _ => unreachable!(),
        }
    }
    fn put_f64(out: &mut [u8], i: usize, ty: ElementType, x: f64) {
        match ty {
            F16 => out[i * 2..i * 2 + 2].copy_from_slice(&f16::from_f64(x).to_ne_bytes()),
            Bf16 => out[i * 2..i * 2 + 2].copy_from_slice(&bf16::from_f64(x).to_ne_bytes()),
            F32 => out[i * 4..i * 4 + 4].copy_from_slice(&(x as f32).to_ne_bytes()),
            F64 => out[i * 8..i * 8 + 8].copy_from_slice(&x.to_ne_bytes()),
            _ => unreachable!(),
        }
    }
    /// Writes each of `v` as element type `ty`: with `float` for a
    /// floating-point type, else as the integer bits `int` gives.
    fn put_all<T: Copy>(
        out: &mut [u8],
        v: &[T],
        ty: ElementType,
        float: impl Fn(&mut [u8], usize, T),
        int: impl Fn(T) -> u64,
    ) {
        let sz = ty.byte_size();
        for (i, &x) in v.iter().enumerate() {
            if ty.is_float() {
                float(out, i, x);
            } else {
                put_int(out, i, sz, ty, int(x));
            }
        }
    }
    // A complex result: real values become real parts (imaginary 0), as
    // XLA's convert does; complex values change precision part by part.
    if ty.is_complex() {
        let z: Vec<Complex64> = match v {
            Vals::S(v) => v.iter().map(|&x| Complex64::new(x as f64, 0.0)).collect(),
            Vals::U(v) => v.iter().map(|&x| Complex64::new(x as f64, 0.0)).collect(),
            Vals::F(v) => v.iter().map(|&x| Complex64::new(x as f64, 0.0)).collect(),
            Vals::D(v) => v.iter().map(|&x| Complex64::new(x, 0.0)).collect(),
            Vals::C(v) => v
                .iter()
                .map(|x| Complex64::new(x.re as f64, x.im as f64))
                .collect(),
            Vals::Z(v) => v.clone(),
        };
        for (i, x) in z.into_iter().enumerate() {
            let e = &mut out[i * sz..(i + 1) * sz];
            if ty == C64 {
                hlox_hlo::NativeType::write_ne(Complex32::new(x.re as f32, x.im as f32), e);
            } else {
                hlox_hlo::NativeType::write_ne(x, e);
            }
        }
        return ArrayLiteral::from_bytes(ArrayShape::new(ty, dims.to_vec()), out)
            .expect("encode: byte count");
    }
    match v {
        // A complex value written as a real type keeps its real part (the
        // verifier refuses such a convert; dot and reductions never ask).
        Vals::C(v) => {
            return encode(&Vals::F(v.iter().map(|x| x.re).collect()), ty, dims);
        }
        Vals::Z(v) => {
            return encode(&Vals::D(v.iter().map(|x| x.re).collect()), ty, dims);
        }
        Vals::S(v) => put_all(
            &mut out,
            v,
            ty,
            |o, i, x| put_f64(o, i, ty, x as f64),
            |x| x as u64,
        ),
        Vals::U(v) => put_all(
            &mut out,
            v,
            ty,
            |o, i, x| put_f64(o, i, ty, x as f64),
            |x| x,
        ),
        Vals::F(v) => put_all(
            &mut out,
            v,
            ty,
            |o, i, x| put_f32(o, i, ty, x),
            |x| f32_to_int(x, ty).bits(),
        ),
        Vals::D(v) => put_all(
            &mut out,
            v,
            ty,
            |o, i, x| put_f64(o, i, ty, x),
            |x| f64_to_int(x, ty).bits(),
        ),
    }
    ArrayLiteral::from_bytes(ArrayShape::new(ty, dims.to_vec()), out).expect("encode: byte count")
}

/// Convert values to the computation domain of `ty` (S/U/F/D), with
/// convert semantics (used by dot/convolution when operand types differ
/// from the result type).
pub(crate) fn to_domain(v: Vals, ty: ElementType, dims: &[i64]) -> Vals {
    let same = matches!(
        (&v, domain_of(ty)),
        (Vals::S(_), Domain::S)
            | (Vals::U(_), Domain::U)
            | (Vals::F(_), Domain::F)
            | (Vals::D(_), Domain::D)
            | (Vals::C(_), Domain::C)
            | (Vals::Z(_), Domain::Z)
    );
    if same && ty != ElementType::Pred {
        return v;
    }
    decode(&encode(&v, ty, dims))
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Domain {
    S,
    U,
    F,
    D,
    C,
    Z,
}

pub(crate) fn domain_of(ty: ElementType) -> Domain {
    use ElementType::*;
    match ty {
        S8 | S16 | S32 | S64 => Domain::S,
        Pred | U8 | U16 | U32 | U64 => Domain::U,
        F16 | Bf16 | F32 => Domain::F,
        F64 => Domain::D,
        C64 => Domain::C,
        C128 => Domain::Z,
    }
}

/// Relayout every array of a literal to the default layout.
pub(crate) fn normalize(lit: Literal) -> Literal {
    match lit {
        Literal::Array(a) => {
            if a.shape().layout.is_default() {
                Literal::Array(a)
            } else {
                let rank = a.shape().rank();
                Literal::Array(a.relayout(Layout::default_for_rank(rank)))
            }
        }
        Literal::Tuple(t) => Literal::Tuple(t.into_iter().map(normalize).collect()),
        Literal::Token => Literal::Token,
    }
}

/// Relayout the arrays of a (default-layout) literal to the layouts `shape` declares.
pub(crate) fn apply_layout(lit: Literal, shape: &Shape) -> Literal {
    match (lit, shape) {
        (Literal::Array(a), Shape::Array(s)) => {
            if a.shape().layout == s.layout || !s.layout.is_valid_for_rank(a.shape().rank()) {
                Literal::Array(a)
            } else {
                Literal::Array(a.relayout(s.layout.clone()))
            }
        }
        (Literal::Tuple(t), Shape::Tuple(ss)) if t.len() == ss.len() => Literal::Tuple(
            t.into_iter()
                .zip(ss)
                .map(|(l, s)| apply_layout(l, s))
                .collect(),
        ),
        (l, _) => l,
    }
}

/// Row-major strides (in elements) of `dims`.
pub(crate) fn row_major_strides(dims: &[i64]) -> Vec<usize> {
    let mut s = vec![0usize; dims.len()];
    let mut acc = 1usize;
    for d in (0..dims.len()).rev() {
        s[d] = acc;
        acc *= dims[d].max(0) as usize;
    }
    s
}

pub(crate) fn elem_count(dims: &[i64]) -> usize {
    dims.iter().map(|&d| d.max(0) as usize).product()
}

/// Checked element count of `dims` (rejects negative sizes and overflow).
pub(crate) fn checked_count(dims: &[i64]) -> R<usize> {
    let mut n: usize = 1;
    for &d in dims {
        if d < 0 {
            return Err(format!("negative dimension size {d} in {dims:?}").into());
        }
        n = n
            .checked_mul(d as usize)
            .ok_or_else(|| OpError::Invalid(format!("dimensions {dims:?} overflow")))?;
    }
    Ok(n)
}

/// Calls `f` with every multi-index of `dims` in row-major order.
pub(crate) fn for_each_index(dims: &[i64], mut f: impl FnMut(&[i64])) {
    if dims.iter().any(|&d| d <= 0) {
        return;
    }
    let mut idx = vec![0i64; dims.len()];
    loop {
        f(&idx);
        let mut d = dims.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Calls `f(i, offset)` for each element `i` (row-major over `dims`) with
/// `offset = base + sum(idx[d] * strides[d])` (the walk of
/// [`hlox_hlo::semantics::walk`], on this crate's signed dimensions).
pub(crate) fn for_each_offset(
    dims: &[i64],
    base: i64,
    strides: &[i64],
    mut f: impl FnMut(usize, i64),
) {
    let dims: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
    let strides: Vec<usize> = strides.iter().map(|&s| s as usize).collect();
    hlox_hlo::semantics::walk::for_each_offset(&dims, base as usize, &strides, |i, o| {
        f(i, o as i64)
    });
}

/// Copy elements: output element (row-major over `out_dims`) at multi-index
/// `o` comes from source element `base + sum(o[i] * strides[i])`.
pub(crate) fn strided_copy(
    src: &[u8],
    esz: usize,
    out_dims: &[i64],
    base: i64,
    strides: &[i64],
) -> Vec<u8> {
    let mut out = vec![0u8; elem_count(out_dims) * esz];
    for_each_offset(out_dims, base, strides, |i, off| {
        let s = off as usize * esz;
        out[i * esz..(i + 1) * esz].copy_from_slice(&src[s..s + esz]);
    });
    out
}

/// A default-layout array from bytes.
pub(crate) fn arr(ty: ElementType, dims: &[i64], bytes: Vec<u8>) -> R<ArrayLiteral> {
    Ok(ArrayLiteral::from_bytes(
        ArrayShape::new(ty, dims.to_vec()),
        bytes,
    )?)
}

/// Read an integer scalar (any integer type or PRED) as i64; unsigned u64
/// values above i64::MAX saturate.
pub(crate) fn scalar_index(a: &ArrayLiteral) -> R<i64> {
    if a.element_count() != 1 {
        return Err(format!("expected a scalar index, got {}", ashape_str(a.shape())).into());
    }
    match decode(a) {
        Vals::S(v) => Ok(v[0]),
        Vals::U(v) => Ok(v[0].min(i64::MAX as u64) as i64),
        _ => Err(format!("index must be an integer, got {}", a.ty()).into()),
    }
}

/// Integer values of an index array as i64 (unsigned saturating).
pub(crate) fn index_values(a: &ArrayLiteral) -> R<Vec<i64>> {
    match decode(a) {
        Vals::S(v) => Ok(v),
        Vals::U(v) => Ok(v
            .into_iter()
            .map(|x| x.min(i64::MAX as u64) as i64)
            .collect()),
        _ => Err(format!("indices must be integers, got {}", a.ty()).into()),
    }
}

/// A subnormal f32 flushed to a zero of its sign (see [`daz`]).
pub(crate) fn flush32(e: f32) -> f32 {
    if e.is_subnormal() {
        0f32.copysign(e)
    } else {
        e
    }
}

/// A subnormal f64 flushed to a zero of its sign (see [`daz`]).
pub(crate) fn flush64(e: f64) -> f64 {
    if e.is_subnormal() {
        0f64.copysign(e)
    } else {
        e
    }
}

/// A c64 flushed part by part (see [`daz`]).
pub(crate) fn flush_c64(e: Complex32) -> Complex32 {
    Complex32::new(flush32(e.re), flush32(e.im))
}

/// A c128 flushed part by part (see [`daz`]).
pub(crate) fn flush_c128(e: Complex64) -> Complex64 {
    Complex64::new(flush64(e.re), flush64(e.im))
}

/// Flushes subnormal f32/f64 values to a zero of the same sign.
///
/// XLA:CPU runs with the processor's flush-to-zero and denormals-are-zero
/// modes on, so float arithmetic sees a subnormal input as ±0 and never
/// produces a subnormal result (`-1e-40 == 0` is true there, and
/// `x % -1e-40` is NaN). The evaluator applies this to the inputs and
/// results of element-wise float arithmetic and FLOAT comparisons, matching
/// what JAX computes on the CPU. BF16 values (computed in f32) flush like
/// f32; F16 subnormals are normal f32 numbers and are kept. Complex
/// numbers flush part by part.
pub(crate) fn daz(v: Vals) -> Vals {
    match v {
        Vals::F(x) => Vals::F(x.into_iter().map(flush32).collect()),
        Vals::D(x) => Vals::D(x.into_iter().map(flush64).collect()),
        Vals::C(x) => Vals::C(x.into_iter().map(flush_c64).collect()),
        Vals::Z(x) => Vals::Z(x.into_iter().map(flush_c128).collect()),
        other => other,
    }
}
