//! `Literal`: a host value of any shape.
//!
//! Architecture invariant: an array literal's bytes are in the physical order
//! of its shape's layout (minor-to-major), native endian, exactly as a
//! compiled program or a custom-call target sees the buffer. PRED is one byte
//! holding 0 or 1. Typed accessors (`to_vec`, `from_vec`) speak logical
//! (row-major) order and convert when the layout is not the default.

use crate::types::{ArrayShape, ElementType, Layout, Shape};
use half::{bf16, f16};

/// Rust types that are HLO element types.
pub trait NativeType: Copy + PartialEq + std::fmt::Debug + 'static {
    const TYPE: ElementType;
    fn write_ne(self, out: &mut [u8]);
    fn read_ne(bytes: &[u8]) -> Self;
}

macro_rules! native {
    ($t:ty, $et:ident) => {
        impl NativeType for $t {
            const TYPE: ElementType = ElementType::$et;
            fn write_ne(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_ne_bytes());
            }
            fn read_ne(bytes: &[u8]) -> Self {
                <$t>::from_ne_bytes(bytes.try_into().expect("element size"))
            }
        }
    };
}
native!(i8, S8);
native!(i16, S16);
native!(i32, S32);
native!(i64, S64);
native!(u8, U8);
native!(u16, U16);
native!(u32, U32);
native!(u64, U64);
native!(f16, F16);
native!(bf16, Bf16);
native!(f32, F32);
native!(f64, F64);

/// `c64` and `c128` as numpy and XLA hold them: the real part, then the
/// imaginary part, each native endian.
macro_rules! native_complex {
    ($part:ty, $et:ident, $n:literal) => {
        impl NativeType for num_complex::Complex<$part> {
            const TYPE: ElementType = ElementType::$et;
            fn write_ne(self, out: &mut [u8]) {
                out[..$n].copy_from_slice(&self.re.to_ne_bytes());
                out[$n..].copy_from_slice(&self.im.to_ne_bytes());
            }
            fn read_ne(bytes: &[u8]) -> Self {
                let part = |b: &[u8]| <$part>::from_ne_bytes(b.try_into().expect("part size"));
                num_complex::Complex::new(part(&bytes[..$n]), part(&bytes[$n..]))
            }
        }
    };
}
native_complex!(f32, C64, 4);
native_complex!(f64, C128, 8);

impl NativeType for bool {
    const TYPE: ElementType = ElementType::Pred;
    fn write_ne(self, out: &mut [u8]) {
        out[0] = self as u8;
    }
    fn read_ne(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

/// An array value: shape (with layout) and bytes in layout order.
#[derive(Clone, PartialEq, Debug)]
pub struct ArrayLiteral {
    shape: ArrayShape,
    bytes: Vec<u8>,
}

/// Errors building or converting literals.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LiteralError {
    #[error("literal of shape {shape} needs {expected} bytes but got {actual}")]
    ByteCount {
        shape: String,
        expected: usize,
        actual: usize,
    },
    #[error("literal of shape {shape} needs {expected} elements but got {actual}")]
    ElementCount {
        shape: String,
        expected: usize,
        actual: usize,
    },
    #[error("literal has element type {actual}, not {expected}")]
    Type {
        expected: ElementType,
        actual: ElementType,
    },
    #[error("literal is a {actual}, expected {expected}")]
    Kind {
        expected: &'static str,
        actual: &'static str,
    },
    #[error("shape {shape} is too large to hold as a literal")]
    TooLarge { shape: String },
    #[error("cannot allocate {bytes} bytes ({:.1} GiB): the value is too large for this machine's memory", *bytes as f64 / (1u64 << 30) as f64)]
    OutOfMemory { bytes: usize },
    #[error("{0}")]
    Other(String),
}

/// A zero-filled buffer of `bytes` bytes, or an error when the memory
/// cannot be had. Everything in hlox that allocates a buffer whose size comes
/// from a shape goes through this, so a huge shape is an error, never an
/// abort of the process.
///
/// The memory comes from the allocator's zeroing allocation (`calloc`):
/// large buffers are fresh pages the kernel zeroes on first touch, so the
/// buffer is not written twice (once with zeros, once with results).
pub fn try_zeroed(bytes: usize) -> Result<Vec<u8>, LiteralError> {
    if bytes == 0 {
        return Ok(Vec::new());
    }
    let oom = || LiteralError::OutOfMemory { bytes };
    let layout = std::alloc::Layout::array::<u8>(bytes).map_err(|_| oom())?;
    // SAFETY: `layout` has a non-zero size. A non-null result is `bytes`
    // zeroed bytes allocated by the global allocator with the layout of a
    // `Vec<u8>` of capacity `bytes` (alignment 1), so the Vec may own it.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout);
        if p.is_null() {
            return Err(oom());
        }
        advise_huge_pages(p, bytes);
        Ok(Vec::from_raw_parts(p, bytes, bytes))
    }
}

/// An uninitialized buffer of `bytes` bytes (the allocator's `malloc`), or
/// an error when the memory cannot be had; large ones advised for huge
/// pages like [`try_zeroed`]'s. For result buffers that compiled code
/// writes in full before anything reads them: a result of a few MiB comes
/// back from the allocator's heap, already mapped and cached, where a
/// zeroed one is cleared with a `memset` first (a third of a 4096x1024
/// layernorm's run time, docs/performance.md).
pub fn try_uninit(bytes: usize) -> Result<Vec<std::mem::MaybeUninit<u8>>, LiteralError> {
    let mut v: Vec<std::mem::MaybeUninit<u8>> = Vec::new();
    v.try_reserve_exact(bytes)
        .map_err(|_| LiteralError::OutOfMemory { bytes })?;
    // SAFETY: the capacity is at least `bytes`; `MaybeUninit` needs no
    // initialization.
    unsafe { v.set_len(bytes) };
    advise_huge_pages(v.as_mut_ptr().cast(), bytes);
    // Debug (test) builds poison the buffer, so compiled code that leaves a
    // result byte unwritten shows up as a wrong value in every test, not as
    // a zero (or last run's value) that happens to match.
    #[cfg(debug_assertions)]
    v.fill(std::mem::MaybeUninit::new(POISON));
    Ok(v)
}

/// The byte debug builds fill uninitialized result buffers with
/// ([`try_uninit`]): `0xA5A5A5A5` reads as f32 -2.9e-16 and as s32
/// -1515870811, values no test expects.
#[cfg(debug_assertions)]
pub const POISON: u8 = 0xA5;

/// Buffers at least this large are advised for transparent huge pages.
pub const HUGE_PAGE_ADVICE_MIN: usize = 4 << 20;

/// Ask the kernel to back the 2 MiB-aligned part of a large, still
/// untouched buffer with transparent huge pages (as PyTorch's CPU allocator
/// does): its first touch then costs one fault per 2 MiB instead of one
/// per 4 KiB page, which dominates writing a fresh 64 MB result. Advice
/// only: where THP is off (or not Linux) nothing changes.
#[cfg(target_os = "linux")]
fn advise_huge_pages(p: *mut u8, bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < HUGE_PAGE_ADVICE_MIN {
        return;
    }
    let start = (p as usize).next_multiple_of(HUGE);
    let end = (p as usize + bytes) & !(HUGE - 1);
    if end > start {
        // SAFETY: [start, end) lies inside the allocation just made;
        // MADV_HUGEPAGE changes no contents and fails harmlessly.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: *mut u8, _: usize) {}

/// glibc's trim threshold hlox sets ([`retain_freed_memory`]): up to this
/// many free bytes at the top of the heap stay mapped.
pub const TRIM_THRESHOLD: usize = 256 << 20;

/// Keep the memory of freed result buffers for the next run, once per
/// process (the Host runtime calls this before its first run).
///
/// Why: a run's result buffers are fresh allocations handed to the caller,
/// who frees them before the next run. With glibc's defaults, a buffer of
/// 32 MiB or more is a mapping of its own, unmapped when freed, and a
/// smaller one freed at the top of the heap is given back to the kernel
/// (the trim threshold follows the mmap threshold): either way the next
/// run's results are new pages, each faulted in and zeroed by the kernel
/// before hlox writes it. A transformer block's gradient (3 MiB of weight
/// gradients) took 560 page faults per run, 1 ms of a 6 ms median; an
/// axpy over 16M floats (a 64 MiB result) ran at 8.6-23 ms against 5.1-5.9
/// without the kernel's zeroing, which is the STREAM triad's bandwidth.
/// hlox therefore serves every allocation from the heap (`M_MMAP_MAX` 0:
/// glibc still maps memory where the heap cannot grow, and threads' arenas
/// map what exceeds their 64 MiB heaps) and keeps up to [`TRIM_THRESHOLD`]
/// of free memory at its top. The cost: a process keeps up to that much
/// freed memory mapped, and a freed large block below a live one is reused
/// by later allocations rather than unmapped.
///
/// Opt-outs: nothing is changed where `HLOX_KEEP_MALLOC=1`, or where the
/// process already chose (`MALLOC_TRIM_THRESHOLD_`, `MALLOC_MMAP_THRESHOLD_`,
/// `MALLOC_MMAP_MAX_` or a `glibc.malloc` tunable in `GLIBC_TUNABLES`).
/// Returns whether the settings were applied by this call.
pub fn retain_freed_memory() -> bool {
    static ONCE: std::sync::Once = std::sync::Once::new();
    let mut applied = false;
    ONCE.call_once(|| {
        let env = |k: &str| std::env::var(k).ok();
        let chosen = env("HLOX_KEEP_MALLOC").is_some_and(|v| v == "1")
            || env("MALLOC_TRIM_THRESHOLD_").is_some()
            || env("MALLOC_MMAP_THRESHOLD_").is_some()
            || env("MALLOC_MMAP_MAX_").is_some()
            || env("GLIBC_TUNABLES").is_some_and(|v| v.contains("glibc.malloc."));
        if !chosen {
            applied = set_malloc_thresholds();
        }
    });
    applied
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_malloc_thresholds() -> bool {
    // SAFETY: mallopt only changes the allocator's parameters; both values
    // are within glibc's accepted ranges.
    unsafe {
        libc::mallopt(libc::M_MMAP_MAX, 0) == 1
            && libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD as libc::c_int) == 1
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_malloc_thresholds() -> bool {
    false
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod malloc_tests {
    /// Minor page faults of the calling thread so far.
    fn faults() -> i64 {
        let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes the struct it is given.
        unsafe {
            libc::getrusage(libc::RUSAGE_THREAD, u.as_mut_ptr());
            u.assume_init().ru_minflt
        }
    }

    /// Result-sized buffers allocated, written page by page, and freed, as
    /// a run's results are: with hlox's settings the next one reuses the
    /// freed pages, below glibc's mmap threshold (3 MiB) and above it (48
    /// MiB, which glibc maps on its own by default).
    #[test]
    fn freed_result_buffers_are_reused_without_page_faults() {
        if std::env::var_os("HLOX_KEEP_MALLOC").is_some() {
            return;
        }
        super::retain_freed_memory();
        for mib in [3, 48] {
            reused(mib << 20);
        }
    }

    fn reused(bytes: usize) {
        let cycle = || {
            let mut v = super::try_uninit(bytes).expect("result-sized buffer");
            for i in (0..v.len()).step_by(4096) {
                v[i] = std::mem::MaybeUninit::new(1);
            }
            std::hint::black_box(&v);
        };
        cycle();
        let before = faults();
        for _ in 0..8 {
            cycle();
        }
        let taken = faults() - before;
        assert!(
            taken < 64,
            "{taken} page faults in 8 result cycles of {} MiB",
            bytes >> 20
        );
    }
}

fn shape_str(s: &ArrayShape) -> String {
    crate::text::shape_to_string(&Shape::Array(s.clone()))
}

impl ArrayLiteral {
    /// Zero-filled array of this shape.
    pub fn zeros(shape: ArrayShape) -> Result<ArrayLiteral, LiteralError> {
        let n = shape
            .checked_element_count()
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| n.checked_mul(shape.ty.byte_size()))
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or_else(|| LiteralError::TooLarge {
                shape: shape_str(&shape),
            })?;
        Ok(ArrayLiteral {
            bytes: try_zeroed(n)?,
            shape,
        })
    }
    /// From bytes already in `shape`'s layout order.
    pub fn from_bytes(shape: ArrayShape, bytes: Vec<u8>) -> Result<ArrayLiteral, LiteralError> {
        let expected = shape.byte_size();
        if bytes.len() != expected {
            return Err(LiteralError::ByteCount {
                shape: shape_str(&shape),
                expected,
                actual: bytes.len(),
            });
        }
        Ok(ArrayLiteral { shape, bytes })
    }
    /// From values in logical (row-major) order, default layout.
    pub fn from_vec<T: NativeType>(
        dims: &[i64],
        values: &[T],
    ) -> Result<ArrayLiteral, LiteralError> {
        let shape = ArrayShape::new(T::TYPE, dims.to_vec());
        let n = shape.element_count();
        if values.len() != n {
            return Err(LiteralError::ElementCount {
                shape: shape_str(&shape),
                expected: n,
                actual: values.len(),
            });
        }
        let sz = T::TYPE.byte_size();
        let mut bytes = vec![0u8; n * sz];
        for (i, v) in values.iter().enumerate() {
            v.write_ne(&mut bytes[i * sz..(i + 1) * sz]);
        }
        Ok(ArrayLiteral { shape, bytes })
    }
    pub fn shape(&self) -> &ArrayShape {
        &self.shape
    }
    pub fn ty(&self) -> ElementType {
        self.shape.ty
    }
    pub fn dims(&self) -> &[i64] {
        &self.shape.dims
    }
    pub fn element_count(&self) -> usize {
        self.shape.element_count()
    }
    /// Bytes in layout order.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
    /// Byte offset of the element at a logical multi-index.
    pub fn offset_of(&self, index: &[i64]) -> usize {
        let strides = self.shape.strides();
        index
            .iter()
            .zip(&strides)
            .map(|(&i, &s)| i as usize * s)
            .sum::<usize>()
            * self.shape.ty.byte_size()
    }
    /// Element bytes at logical linear (row-major) index `i`.
    pub fn element_bytes_logical(&self, i: usize) -> &[u8] {
        let sz = self.shape.ty.byte_size();
        let off = if self.shape.layout.is_default() {
            i * sz
        } else {
            let idx = unravel(i, &self.shape.dims);
            self.offset_of(&idx)
        };
        &self.bytes[off..off + sz]
    }
    /// Values in logical (row-major) order.
    pub fn to_vec<T: NativeType>(&self) -> Result<Vec<T>, LiteralError> {
        if T::TYPE != self.shape.ty {
            return Err(LiteralError::Type {
                expected: T::TYPE,
                actual: self.shape.ty,
            });
        }
        let n = self.element_count();
        Ok((0..n)
            .map(|i| T::read_ne(self.element_bytes_logical(i)))
            .collect())
    }
    /// The element at a logical multi-index.
    pub fn get<T: NativeType>(&self, index: &[i64]) -> Result<T, LiteralError> {
        if T::TYPE != self.shape.ty {
            return Err(LiteralError::Type {
                expected: T::TYPE,
                actual: self.shape.ty,
            });
        }
        let off = self.offset_of(index);
        Ok(T::read_ne(
            &self.bytes[off..off + self.shape.ty.byte_size()],
        ))
    }
    /// The same values under another layout (bytes permuted).
    pub fn relayout(&self, layout: Layout) -> ArrayLiteral {
        let mut shape = self.shape.clone();
        shape.layout = layout;
        if shape.layout == self.shape.layout {
            return self.clone();
        }
        let sz = shape.ty.byte_size();
        let mut out = ArrayLiteral {
            bytes: vec![0; self.bytes.len()],
            shape,
        };
        for i in 0..self.element_count() {
            let idx = unravel(i, &out.shape.dims);
            let dst = out.offset_of(&idx);
            let src = self.offset_of(&idx);
            out.bytes[dst..dst + sz].copy_from_slice(&self.bytes[src..src + sz]);
        }
        out
    }
    /// Bytes in logical (row-major) order.
    pub fn logical_bytes(&self) -> Vec<u8> {
        if self.shape.layout.is_default() {
            self.bytes.clone()
        } else {
            self.relayout(Layout::default_for_rank(self.shape.rank()))
                .bytes
        }
    }
}

/// Logical linear index -> multi-index (row-major).
pub fn unravel(mut i: usize, dims: &[i64]) -> Vec<i64> {
    let mut idx = vec![0i64; dims.len()];
    for d in (0..dims.len()).rev() {
        let n = dims[d].max(1) as usize;
        idx[d] = (i % n) as i64;
        i /= n;
    }
    idx
}

/// A host value of any shape.
#[derive(Clone, PartialEq, Debug)]
pub enum Literal {
    Array(ArrayLiteral),
    Tuple(Vec<Literal>),
    Token,
}

/// The empty tuple `()`, as XLA's default `Literal` is the nil shape.
impl Default for Literal {
    fn default() -> Literal {
        Literal::Tuple(Vec::new())
    }
}

impl Literal {
    /// A scalar.
    pub fn r0<T: NativeType>(v: T) -> Literal {
        Literal::Array(ArrayLiteral::from_vec(&[], &[v]).expect("scalar"))
    }
    /// A rank-1 array.
    pub fn r1<T: NativeType>(v: &[T]) -> Literal {
        Literal::Array(ArrayLiteral::from_vec(&[v.len() as i64], v).expect("vector"))
    }
    /// A rank-2 array from rows (all rows must have the same length).
    pub fn r2<T: NativeType>(rows: &[&[T]]) -> Result<Literal, LiteralError> {
        let cols = rows.first().map_or(0, |r| r.len());
        if rows.iter().any(|r| r.len() != cols) {
            return Err(LiteralError::Other(
                "r2: rows have different lengths".into(),
            ));
        }
        let flat: Vec<T> = rows.iter().flat_map(|r| r.iter().copied()).collect();
        Ok(Literal::Array(ArrayLiteral::from_vec(
            &[rows.len() as i64, cols as i64],
            &flat,
        )?))
    }
    /// An array of any rank from logical-order values.
    pub fn from_vec<T: NativeType>(dims: &[i64], v: &[T]) -> Result<Literal, LiteralError> {
        Ok(Literal::Array(ArrayLiteral::from_vec(dims, v)?))
    }
    pub fn tuple(elems: Vec<Literal>) -> Literal {
        Literal::Tuple(elems)
    }
    /// Zero-filled literal of any shape.
    pub fn zeros(shape: &Shape) -> Result<Literal, LiteralError> {
        Ok(match shape {
            Shape::Array(a) => Literal::Array(ArrayLiteral::zeros(a.clone())?),
            Shape::Tuple(t) => {
                Literal::Tuple(t.iter().map(Literal::zeros).collect::<Result<_, _>>()?)
            }
            Shape::Token => Literal::Token,
        })
    }
    pub fn shape(&self) -> Shape {
        match self {
            Literal::Array(a) => Shape::Array(a.shape.clone()),
            Literal::Tuple(t) => Shape::Tuple(t.iter().map(|l| l.shape()).collect()),
            Literal::Token => Shape::Token,
        }
    }
    pub fn as_array(&self) -> Result<&ArrayLiteral, LiteralError> {
        match self {
            Literal::Array(a) => Ok(a),
            other => Err(LiteralError::Kind {
                expected: "array",
                actual: other.kind_name(),
            }),
        }
    }
    pub fn as_array_mut(&mut self) -> Result<&mut ArrayLiteral, LiteralError> {
        match self {
            Literal::Array(a) => Ok(a),
            other => Err(LiteralError::Kind {
                expected: "array",
                actual: other.kind_name(),
            }),
        }
    }
    pub fn tuple_elements(&self) -> Result<&[Literal], LiteralError> {
        match self {
            Literal::Tuple(t) => Ok(t),
            other => Err(LiteralError::Kind {
                expected: "tuple",
                actual: other.kind_name(),
            }),
        }
    }
    fn kind_name(&self) -> &'static str {
        match self {
            Literal::Array(_) => "array",
            Literal::Tuple(_) => "tuple",
            Literal::Token => "token",
        }
    }
    /// Values of an array literal in logical order.
    pub fn to_vec<T: NativeType>(&self) -> Result<Vec<T>, LiteralError> {
        self.as_array()?.to_vec()
    }
    /// The single value of a scalar (or one-element) array literal.
    pub fn get_first<T: NativeType>(&self) -> Result<T, LiteralError> {
        let a = self.as_array()?;
        let v = a.to_vec::<T>()?;
        v.into_iter()
            .next()
            .ok_or_else(|| LiteralError::Other("empty literal has no first element".into()))
    }
    /// Leaf literals in pre-order (the order `hlox run` writes `out0.npy`, ...).
    pub fn leaves(&self) -> Vec<&Literal> {
        match self {
            Literal::Tuple(t) => t.iter().flat_map(Literal::leaves).collect(),
            leaf => vec![leaf],
        }
    }
    /// Decompose into owned leaves in pre-order.
    pub fn into_leaves(self) -> Vec<Literal> {
        match self {
            Literal::Tuple(t) => t.into_iter().flat_map(Literal::into_leaves).collect(),
            leaf => vec![leaf],
        }
    }
}

impl From<ArrayLiteral> for Literal {
    fn from(a: ArrayLiteral) -> Literal {
        Literal::Array(a)
    }
}
