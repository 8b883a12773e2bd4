//! Element types as Rust types, the arithmetic of the recognized combiners
//! (with the reference evaluator's semantics), and raw buffer access.

use half::{bf16, f16};
use hlox_hlo::{BinaryOp, CompId, ElementType, Module, Op, Shape};
use std::cmp::Ordering;

/// A PRED element (one byte, 0 or 1).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
#[repr(transparent)]
pub(crate) struct Pred(pub u8);

/// An element type's Rust representation and the arithmetic the fast paths need.
pub(crate) trait Elem: Copy + Send + Sync + 'static {
    fn e_add(self, o: Self) -> Self;
    fn e_mul(self, o: Self) -> Self;
    fn e_max(self, o: Self) -> Self;
    fn e_min(self, o: Self) -> Self;
    /// Bitwise and/or for integers and PRED; `None` (the default) for floats.
    fn e_and(self, _o: Self) -> Option<Self> {
        None
    }
    fn e_or(self, _o: Self) -> Option<Self> {
        None
    }
    /// Integers: natural order; floats: IEEE total order.
    fn e_cmp(&self, o: &Self) -> Ordering;
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            #[inline] fn e_add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline] fn e_mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline] fn e_max(self, o: Self) -> Self { if self < o { o } else { self } }
            #[inline] fn e_min(self, o: Self) -> Self { if o < self { o } else { self } }
            #[inline] fn e_and(self, o: Self) -> Option<Self> { Some(self & o) }
            #[inline] fn e_or(self, o: Self) -> Option<Self> { Some(self | o) }
            #[inline] fn e_cmp(&self, o: &Self) -> Ordering { self.cmp(o) }
        }
    )*};
}
int_elem!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Elem for Pred {
    fn e_add(self, o: Self) -> Self {
        Pred(((self.0 != 0) | (o.0 != 0)) as u8)
    }
    fn e_mul(self, o: Self) -> Self {
        Pred(((self.0 != 0) & (o.0 != 0)) as u8)
    }
    fn e_max(self, o: Self) -> Self {
        self.e_add(o)
    }
    fn e_min(self, o: Self) -> Self {
        self.e_mul(o)
    }
    fn e_and(self, o: Self) -> Option<Self> {
        Some(self.e_mul(o))
    }
    fn e_or(self, o: Self) -> Option<Self> {
        Some(self.e_add(o))
    }
    fn e_cmp(&self, o: &Self) -> Ordering {
        (self.0 != 0).cmp(&(o.0 != 0))
    }
}

/// XLA's maximum/minimum: NaN propagates (the first NaN operand wins), and
/// -0 orders below +0 (`a_neg`/`b_neg`: the sign bits), as the evaluator's.
#[inline]
fn fmax<T: PartialOrd + Copy>(a: T, b: T, a_nan: bool, b_nan: bool, a_neg: bool) -> T {
    if a_nan {
        a
    } else if b_nan || a < b || (a == b && a_neg) {
        b
    } else {
        a
    }
}
#[inline]
fn fmin<T: PartialOrd + Copy>(a: T, b: T, a_nan: bool, b_nan: bool, b_neg: bool) -> T {
    if a_nan {
        a
    } else if b_nan || b < a || (a == b && b_neg) {
        b
    } else {
        a
    }
}

macro_rules! float_elem {
    ($t:ty, $sbits:ty) => {
        impl Elem for $t {
            #[inline]
            fn e_add(self, o: Self) -> Self {
                self + o
            }
            #[inline]
            fn e_mul(self, o: Self) -> Self {
                self * o
            }
            #[inline]
            fn e_max(self, o: Self) -> Self {
                fmax(self, o, self.is_nan(), o.is_nan(), self.is_sign_negative())
            }
            #[inline]
            fn e_min(self, o: Self) -> Self {
                fmin(self, o, self.is_nan(), o.is_nan(), o.is_sign_negative())
            }
            #[inline]
            fn e_cmp(&self, o: &Self) -> Ordering {
                <$t>::total_cmp(self, o)
            }
        }
    };
}
float_elem!(f32, i32);
float_elem!(f64, i64);

macro_rules! half_elem {
    ($t:ty) => {
        impl Elem for $t {
            #[inline]
            fn e_add(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() + o.to_f32())
            }
            #[inline]
            fn e_mul(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() * o.to_f32())
            }
            #[inline]
            fn e_max(self, o: Self) -> Self {
                let (a, b) = (self.to_f32(), o.to_f32());
                <$t>::from_f32(fmax(a, b, a.is_nan(), b.is_nan(), a.is_sign_negative()))
            }
            #[inline]
            fn e_min(self, o: Self) -> Self {
                let (a, b) = (self.to_f32(), o.to_f32());
                <$t>::from_f32(fmin(a, b, a.is_nan(), b.is_nan(), b.is_sign_negative()))
            }
            #[inline]
            fn e_cmp(&self, o: &Self) -> Ordering {
                total_key16(self.to_bits()).cmp(&total_key16(o.to_bits()))
            }
        }
    };
}
half_elem!(f16);
half_elem!(bf16);

/// Complex elements: sums and products as the evaluator computes them
/// (`num_complex`, the textbook formulas). Complex numbers are not ordered
/// in HLO: `recognize_combiner` never recognizes max/min over them (the
/// compiled function runs instead), so `e_max`/`e_min`/`e_cmp` only give
/// a deterministic answer — lexicographic on (real, imaginary) under the
/// parts' total order, numpy's convention — and are never reached from HLO.
macro_rules! complex_elem {
    ($t:ty) => {
        impl Elem for num_complex::Complex<$t> {
            #[inline]
            fn e_add(self, o: Self) -> Self {
                self + o
            }
            #[inline]
            fn e_mul(self, o: Self) -> Self {
                self * o
            }
            #[inline]
            fn e_max(self, o: Self) -> Self {
                if self.e_cmp(&o) == Ordering::Less {
                    o
                } else {
                    self
                }
            }
            #[inline]
            fn e_min(self, o: Self) -> Self {
                if o.e_cmp(&self) == Ordering::Less {
                    o
                } else {
                    self
                }
            }
            #[inline]
            fn e_cmp(&self, o: &Self) -> Ordering {
                self.re.total_cmp(&o.re).then(self.im.total_cmp(&o.im))
            }
        }
    };
}
complex_elem!(f32);
complex_elem!(f64);

/// A scratch slot for one scalar of any element type (the widest, c128, is
/// 16 bytes), aligned for it: what compiled scalar functions read and write.
#[derive(Copy, Clone, Default)]
#[repr(C, align(16))]
pub(crate) struct Slot(pub [u8; 16]);

fn total_key16(bits: u16) -> i16 {
    let b = bits as i16;
    if b < 0 {
        b ^ i16::MAX
    } else {
        b
    }
}

/// Runs `$body` with `$T` bound to the Rust type of element type `$ty`.
macro_rules! with_elem {
    ($ty:expr, $T:ident => $body:expr) => {{
        use half::{bf16, f16};
        #[allow(unused_imports)]
        use $crate::elem::Pred;
        match $ty {
            hlox_hlo::ElementType::Pred => {
                type $T = Pred;
                $body
            }
            hlox_hlo::ElementType::S8 => {
                type $T = i8;
                $body
            }
            hlox_hlo::ElementType::S16 => {
                type $T = i16;
                $body
            }
            hlox_hlo::ElementType::S32 => {
                type $T = i32;
                $body
            }
            hlox_hlo::ElementType::S64 => {
                type $T = i64;
                $body
            }
            hlox_hlo::ElementType::U8 => {
                type $T = u8;
                $body
            }
            hlox_hlo::ElementType::U16 => {
                type $T = u16;
                $body
            }
            hlox_hlo::ElementType::U32 => {
                type $T = u32;
                $body
            }
            hlox_hlo::ElementType::U64 => {
                type $T = u64;
                $body
            }
            hlox_hlo::ElementType::F16 => {
                type $T = f16;
                $body
            }
            hlox_hlo::ElementType::Bf16 => {
                type $T = bf16;
                $body
            }
            hlox_hlo::ElementType::F32 => {
                type $T = f32;
                $body
            }
            hlox_hlo::ElementType::F64 => {
                type $T = f64;
                $body
            }
            hlox_hlo::ElementType::C64 => {
                type $T = num_complex::Complex<f32>;
                $body
            }
            hlox_hlo::ElementType::C128 => {
                type $T = num_complex::Complex<f64>;
                $body
            }
        }
    }};
}
pub(crate) use with_elem;

/// A combiner recognized from a called computation: `acc = acc OP x`
/// (`swap`: `x OP acc`), or returning one of its parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Combiner {
    Bin(CombineOp, bool),
    /// Returns parameter 1 (the update / new element): overwrite.
    Overwrite,
    /// Returns parameter 0: keep the accumulator.
    Keep,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CombineOp {
    Add,
    Mul,
    Max,
    Min,
    And,
    Or,
}

impl Combiner {
    #[inline]
    pub(crate) fn apply<T: Elem>(self, acc: T, x: T) -> T {
        match self {
            Combiner::Keep => acc,
            Combiner::Overwrite => x,
            Combiner::Bin(op, swap) => {
                let (a, b) = if swap { (x, acc) } else { (acc, x) };
                match op {
                    CombineOp::Add => a.e_add(b),
                    CombineOp::Mul => a.e_mul(b),
                    CombineOp::Max => a.e_max(b),
                    CombineOp::Min => a.e_min(b),
                    // Only recognized for integer/PRED types (see `recognize_combiner`).
                    CombineOp::And => a.e_and(b).unwrap_or(a),
                    CombineOp::Or => a.e_or(b).unwrap_or(a),
                }
            }
        }
    }
}

/// Recognizes `f(p0, p1) = p0 OP p1` (or swapped), `f = p1` or `f = p0`
/// over scalars of `ty`, like the reference evaluator's fast path.
pub(crate) fn recognize_combiner(
    module: &Module,
    comp: CompId,
    ty: ElementType,
) -> Option<Combiner> {
    let c = module.computations.get(comp)?;
    if c.params.len() != 2 {
        return None;
    }
    let scalar = Shape::scalar(ty);
    for &p in &c.params {
        if !c.instructions.get(p)?.shape.compatible(&scalar) {
            return None;
        }
    }
    let root = c.instructions.get(c.root)?;
    if !root.shape.compatible(&scalar) {
        return None;
    }
    match &root.op {
        Op::Parameter { .. } => match c.params.iter().position(|&p| p == c.root)? {
            0 => Some(Combiner::Keep),
            _ => Some(Combiner::Overwrite),
        },
        Op::Binary(op) if root.operands.len() == 2 => {
            let cop = match op {
                BinaryOp::Add => CombineOp::Add,
                BinaryOp::Multiply => CombineOp::Mul,
                // Complex values are not ordered and have no bits to and/or:
                // only sums and products are recognized over them.
                _ if ty.is_complex() => return None,
                BinaryOp::Maximum => CombineOp::Max,
                BinaryOp::Minimum => CombineOp::Min,
                BinaryOp::And if !ty.is_float() => CombineOp::And,
                BinaryOp::Or if !ty.is_float() => CombineOp::Or,
                _ => return None,
            };
            let (a, b) = (root.operands[0], root.operands[1]);
            if a == c.params[0] && b == c.params[1] {
                Some(Combiner::Bin(cop, false))
            } else if a == c.params[1] && b == c.params[0] {
                Some(Combiner::Bin(cop, true))
            } else {
                None
            }
        }
        _ => None,
    }
}

#[inline]
pub(crate) unsafe fn rd<T: Copy>(base: *const u8, elem: usize) -> T {
    std::ptr::read_unaligned((base as *const T).add(elem))
}

#[inline]
pub(crate) unsafe fn wr<T: Copy>(base: *mut u8, elem: usize, v: T) {
    std::ptr::write_unaligned((base as *mut T).add(elem), v)
}

/// A raw pointer that may cross threads (the kernels partition the writes).
#[derive(Copy, Clone)]
pub(crate) struct SendPtr(pub *mut u8);
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}

#[derive(Copy, Clone)]
pub(crate) struct SendConstPtr(pub *const u8);
unsafe impl Send for SendConstPtr {}
unsafe impl Sync for SendConstPtr {}

/// Reads an integer index element of type `ty` as i64 (unsigned values
/// above i64::MAX saturate), as the evaluator does.
#[inline]
pub(crate) unsafe fn read_index(ty: ElementType, base: *const u8, elem: usize) -> i64 {
    match ty {
        ElementType::Pred => (rd::<u8>(base, elem) != 0) as i64,
        ElementType::S8 => rd::<i8>(base, elem) as i64,
        ElementType::S16 => rd::<i16>(base, elem) as i64,
        ElementType::S32 => rd::<i32>(base, elem) as i64,
        ElementType::S64 => rd::<i64>(base, elem),
        ElementType::U8 => rd::<u8>(base, elem) as i64,
        ElementType::U16 => rd::<u16>(base, elem) as i64,
        ElementType::U32 => rd::<u32>(base, elem) as i64,
        ElementType::U64 => rd::<u64>(base, elem).min(i64::MAX as u64) as i64,
        // Rejected when the kernel is built.
        _ => 0,
    }
}
