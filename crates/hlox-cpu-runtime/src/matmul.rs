//! The accumulation domains of dot and convolution (f32 for F16/BF16/F32
//! results, f64, i64 for signed and u64 for unsigned/PRED results), operand
//! conversion into them with the evaluator's convert semantics, and batched
//! matrix multiplication (the `gemm` crate and faer's `matmul` for floats, wrapping loops for
//! integers).

use crate::elem::{rd, wr, SendPtr};
use half::{bf16, f16};
use hlox_hlo::ElementType;
use rayon::prelude::*;

/// A scalar decoded into its natural domain.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Scal {
    S(i64),
    U(u64),
    F(f32),
    D(f64),
}

unsafe fn decode(ty: ElementType, p: *const u8, i: usize) -> Scal {
    use ElementType::*;
    match ty {
        Pred => Scal::U((rd::<u8>(p, i) != 0) as u64),
        S8 => Scal::S(rd::<i8>(p, i) as i64),
        S16 => Scal::S(rd::<i16>(p, i) as i64),
        S32 => Scal::S(rd::<i32>(p, i) as i64),
        S64 => Scal::S(rd::<i64>(p, i)),
        U8 => Scal::U(rd::<u8>(p, i) as u64),
        U16 => Scal::U(rd::<u16>(p, i) as u64),
        U32 => Scal::U(rd::<u32>(p, i) as u64),
        U64 => Scal::U(rd::<u64>(p, i)),
        F16 => Scal::F(rd::<f16>(p, i).to_f32()),
        Bf16 => Scal::F(rd::<bf16>(p, i).to_f32()),
        F32 => Scal::F(rd::<f32>(p, i)),
        F64 => Scal::D(rd::<f64>(p, i)),
        // Never reached: complex dots and convolutions load their operands
        // directly (mixed types are refused); the real part, read as the
        // element's first part.
        C64 => Scal::F(rd::<f32>(p, 2 * i)),
        C128 => Scal::D(rd::<f64>(p, 2 * i)),
    }
}

fn same_domain(a: ElementType, b: ElementType) -> bool {
    use ElementType::*;
    let d = |t| match t {
        S8 | S16 | S32 | S64 => 0,
        Pred | U8 | U16 | U32 | U64 => 1,
        F16 | Bf16 | F32 => 2,
        F64 => 3,
        C64 => 4,
        C128 => 5,
    };
    d(a) == d(b)
}

/// Integer bits of `v` converted to `ty` (XLA convert: ints wrap, floats saturate, NaN -> 0).
fn int_bits(v: Scal, ty: ElementType) -> u64 {
    use ElementType::*;
    macro_rules! sat {
        ($x:expr) => {
            match ty {
                Pred => ($x != 0.0) as u64,
                S8 => ($x as i8) as i64 as u64,
                S16 => ($x as i16) as i64 as u64,
                S32 => ($x as i32) as i64 as u64,
                S64 => ($x as i64) as u64,
                U8 => ($x as u8) as u64,
                U16 => ($x as u16) as u64,
                U32 => ($x as u32) as u64,
                _ => $x as u64,
            }
        };
    }
    match v {
        Scal::S(x) => x as u64,
        Scal::U(x) => x,
        Scal::F(x) => sat!(x),
        Scal::D(x) => sat!(x),
    }
}

/// `v` converted to `ty` and decoded again (the evaluator's `to_domain`).
fn convert(v: Scal, ty: ElementType) -> Scal {
    use ElementType::*;
    if ty.is_float() {
        let x64 = match v {
            Scal::S(x) => Some(x as f64),
            Scal::U(x) => Some(x as f64),
            Scal::D(x) => Some(x),
            Scal::F(_) => None,
        };
        return match (x64, v) {
            (Some(x), _) => match ty {
                F16 => Scal::F(f16::from_f64(x).to_f32()),
                Bf16 => Scal::F(bf16::from_f64(x).to_f32()),
                F32 => Scal::F(x as f32),
                _ => Scal::D(x),
            },
            (None, Scal::F(x)) => match ty {
                F16 => Scal::F(f16::from_f32(x).to_f32()),
                Bf16 => Scal::F(bf16::from_f32(x).to_f32()),
                F32 => Scal::F(x),
                _ => Scal::D(x as f64),
            },
            _ => v,
        };
    }
    let b = int_bits(v, ty);
    match ty {
        Pred => Scal::U((b != 0) as u64),
        S8 => Scal::S(b as i8 as i64),
        S16 => Scal::S(b as i16 as i64),
        S32 => Scal::S(b as i32 as i64),
        S64 => Scal::S(b as i64),
        U8 => Scal::U(b as u8 as u64),
        U16 => Scal::U(b as u16 as u64),
        U32 => Scal::U(b as u32 as u64),
        _ => Scal::U(b),
    }
}

/// Loads element `i` of a `src`-typed buffer into the domain of `out`.
pub(crate) type LoadFn<D> = unsafe fn(*const u8, usize) -> D;
/// Stores a domain value as element `i` of an `out`-typed buffer.
pub(crate) type StoreFn<D> = unsafe fn(*mut u8, usize, D);

pub(crate) trait Dom: Copy + Send + Sync + Default + Take + 'static {
    fn load_fn(src: ElementType, out: ElementType) -> Option<LoadFn<Self>>;
    fn store_fn(out: ElementType) -> StoreFn<Self>;
    /// c[bt][m][n] = sum_k a[bt][m][k] * b[bt][k][n], all contiguous row-major.
    #[allow(clippy::too_many_arguments)]
    fn matmul(
        a: &[Self],
        b: &[Self],
        c: &mut [Self],
        bt: usize,
        m: usize,
        k: usize,
        n: usize,
        par: bool,
    );
}

/// A loader for any (src, out) pair: dispatches both types at runtime.
/// Only used when the operand type differs from the output's domain type.
fn load_any<D: Dom>(src: ElementType, out: ElementType, take: fn(Scal) -> D) -> LoadAny<D> {
    LoadAny { src, out, take }
}

pub(crate) struct LoadAny<D> {
    src: ElementType,
    out: ElementType,
    take: fn(Scal) -> D,
}

impl<D: Copy> LoadAny<D> {
    #[inline]
    pub(crate) unsafe fn load(&self, p: *const u8, i: usize) -> D {
        let v = decode(self.src, p, i);
        let v = if same_domain(self.src, self.out) && self.out != ElementType::Pred {
            v
        } else {
            convert(v, self.out)
        };
        (self.take)(v)
    }
}

/// Loading operand elements into domain `D`: a direct function when the
/// operand type needs no conversion, else the general converter.
pub(crate) enum Loader<D> {
    Direct(LoadFn<D>),
    Any(LoadAny<D>),
}

impl<D: Dom> Loader<D> {
    pub(crate) fn new(src: ElementType, out: ElementType) -> Loader<D>
    where
        D: Take,
    {
        let take = D::take();
        match D::load_fn(src, out) {
            None => Loader::Any(load_any(src, out, take)),
            Some(f) => Loader::Direct(f),
        }
    }
    #[inline]
    pub(crate) unsafe fn load(&self, p: *const u8, i: usize) -> D {
        match self {
            Loader::Direct(f) => f(p, i),
            Loader::Any(a) => a.load(p, i),
        }
    }
}

/// The `take` function of each domain: any scalar converted to the domain
/// by Rust's `as` rules (floats to integers saturate).
pub(crate) trait Take: Sized {
    fn take() -> fn(Scal) -> Self;
}

macro_rules! impl_take {
    ($($t:ty),*) => {$(
        impl Take for $t {
            #[allow(clippy::unnecessary_cast)]
            fn take() -> fn(Scal) -> Self {
                |v| match v {
                    Scal::F(x) => x as $t,
                    Scal::D(x) => x as $t,
                    Scal::S(x) => x as $t,
                    Scal::U(x) => x as $t,
                }
            }
        }
    )*};
}
impl_take!(f32, f64, i64, u64);

/// Which loads need no conversion: (source, output) pairs in the same domain.
fn direct_ok(src: ElementType, out: ElementType) -> bool {
    same_domain(src, out) && out != ElementType::Pred
}

/// How many single-threaded blocks a parallel product of `work`
/// multiply-adds is split into: one per thread when it is worth it, else 1.
fn gemm_parts(work: usize) -> usize {
    let t = crate::threads();
    if work >= 1 << 20 && t > 1 {
        t
    } else {
        1
    }
}

/// The element types of float matrix products: f32, f64, c64 and c128
/// (`num_complex::Complex<f32>` / `<f64>`), fields of both libraries.
pub(crate) trait Field:
    faer::traits::ComplexField + Copy + Default + Send + Sync + 'static
{
}
impl Field for f32 {}
impl Field for f64 {}
impl Field for num_complex::Complex<f32> {}
impl Field for num_complex::Complex<f64> {}

/// Strided single matrix product `dst[m][n] = sum_k lhs[m][k] * rhs[k][n]`
/// (strides in elements, any sign; `dst` is overwritten, never read).
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm_strided<T: Field>(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    dst_rs: isize,
    dst_cs: isize,
    lhs: *const T,
    lhs_rs: isize,
    lhs_cs: isize,
    rhs: *const T,
    rhs_rs: isize,
    rhs_cs: isize,
    one: T,
    par: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    let parts = if par { gemm_parts(m * n * k) } else { 1 };
    // One single-threaded product per block of the output, in parallel,
    // rather than the libraries' own threads: the `gemm` crate's split poorly when one
    // side is short. For a transformer block's gradient (m = 128 rows)
    // gemm's two threads ran `[128,1024] x [1024,256]` with the right
    // operand k-contiguous at 1.07x one thread (1.21 against 1.31 ms);
    // two halves of the output's columns, each on one thread, at 1.9x
    // (0.68 ms), and no slower than gemm's split on every other product
    // timed (square 512 and 1024, the block's 24 products; the figures are
    // in docs/performance.md). Each block packs only its part of the
    // operand it splits and all of the other one, so the split is along
    // the side whose operand is the larger to pack: columns (the right
    // operand, k x n) unless the left one (m x k) is larger.
    let split_cols = n >= m;
    let len = if split_cols { n } else { m };
    let parts = parts.min(len / 16).max(1);
    let (dp, lp, rp) = (
        crate::elem::SendPtr(dst as *mut u8),
        crate::elem::SendConstPtr(lhs as *const u8),
        crate::elem::SendConstPtr(rhs as *const u8),
    );
    let run = |start: usize, end: usize| {
        let (dp, lp, rp) = (dp, lp, rp);
        let (dst, lhs, rhs) = (dp.0 as *mut T, lp.0 as *const T, rp.0 as *const T);
        let s = start as isize;
        let (bm, bn, dst, lhs, rhs) = if split_cols {
            (
                m,
                end - start,
                dst.offset(s * dst_cs),
                lhs,
                rhs.offset(s * rhs_cs),
            )
        } else {
            (
                end - start,
                n,
                dst.offset(s * dst_rs),
                lhs.offset(s * lhs_rs),
                rhs,
            )
        };
        gemm_block(
            bm, bn, k, dst, dst_rs, dst_cs, lhs, lhs_rs, lhs_cs, rhs, rhs_rs, rhs_cs, one,
        )
    };
    if parts == 1 {
        run(0, len);
        return;
    }
    // Block boundaries on multiples of 16 elements (a 512-bit register of f32).
    let per = len.div_ceil(parts).div_ceil(16) * 16;
    use rayon::prelude::*;
    (0..parts).into_par_iter().for_each(|p| {
        let (s, e) = (p * per, ((p + 1) * per).min(len));
        if s < e {
            run(s, e)
        }
    });
}

/// One single-threaded product on row/column strides (in elements).
///
/// Two libraries, each where it was measured faster (docs/performance.md,
/// "Eleventh session"): a right operand contiguous along k (`x @ w^T`, the
/// backward pass's products) goes to faer's `matmul` (its x86-64 kernels,
/// `private-gemm-x86`, AVX2 or AVX-512 chosen at run time), which reads it
/// in place; the `gemm` crate packs such an operand column by column,
/// and where those columns lie a multiple of 4 KiB apart every load hits
/// one cache set. On the transformer block's gradient products faer took
/// 0.58 ms where the `gemm` crate with a transposed copy took 0.70-0.76
/// (`[128,256] x [256,1024]`). Every other layout stays on the `gemm`
/// crate: on products with k = 128 and a column-major left operand (the
/// weight gradients `x^T @ dy`) faer was 5-15% slower.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_block<T: Field>(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    dst_rs: isize,
    dst_cs: isize,
    lhs: *const T,
    lhs_rs: isize,
    lhs_cs: isize,
    rhs: *const T,
    rhs_rs: isize,
    rhs_cs: isize,
    one: T,
) {
    let k_contiguous = rhs_rs == 1 && rhs_cs.unsigned_abs() > 1 && n > 1;
    if k_contiguous {
        // SAFETY (caller): the three views lie in their buffers; `dst` does
        // not overlap the operands.
        let a = faer::MatRef::<T>::from_raw_parts(lhs, m, k, lhs_rs, lhs_cs);
        let b = faer::MatRef::<T>::from_raw_parts(rhs, k, n, rhs_rs, rhs_cs);
        let c = faer::MatMut::<T>::from_raw_parts_mut(dst, m, n, dst_rs, dst_cs);
        faer::linalg::matmul::matmul(c, faer::Accum::Replace, a, b, one, faer::Par::Seq);
        return;
    }
    gemm::gemm(
        m,
        n,
        k,
        dst,
        dst_cs,
        dst_rs,
        false,
        lhs,
        lhs_cs,
        lhs_rs,
        rhs,
        rhs_cs,
        rhs_rs,
        T::default(),
        one,
        false,
        false,
        false,
        gemm::Parallelism::None,
    )
}

/// `c = a · b` for `bt` row-major products [m, k] x [k, n] stored one
/// after another (f32, f64, c64 and c128, `one` being the
/// element type's 1): in parallel over the batch when the products are
/// small and many, else each product parallel inside when `par`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn float_matmul<T: Field>(
    a: &[T],
    b: &[T],
    c: &mut [T],
    bt: usize,
    m: usize,
    k: usize,
    n: usize,
    one: T,
    par: bool,
) {
    if bt == 0 || m == 0 || n == 0 {
        return;
    }
    let per = m * n * k;
    let par_batches = par && bt > 1 && per < 1 << 20 && crate::parallel_worth(bt * per);
    let cp = SendPtr(c.as_mut_ptr() as *mut u8);
    // Rebinding moves the whole SendPtr into the closure (a closure would
    // otherwise capture only its raw pointer field, which is not Send).
    #[allow(clippy::redundant_locals)]
    let run = |bi: usize, par: bool| unsafe {
        let cp = cp;
        gemm_strided(
            m,
            n,
            k,
            (cp.0 as *mut T).add(bi * m * n),
            n as isize,
            1,
            a.as_ptr().add(bi * m * k),
            k as isize,
            1,
            b.as_ptr().add(bi * k * n),
            n as isize,
            1,
            one,
            par,
        )
    };
    if par_batches {
        (0..bt).into_par_iter().for_each(|bi| run(bi, false));
    } else {
        (0..bt).for_each(|bi| run(bi, par));
    }
}

#[allow(clippy::too_many_arguments)]
fn int_matmul<T: Copy + Send + Sync + Default>(
    a: &[T],
    b: &[T],
    c: &mut [T],
    m: usize,
    k: usize,
    n: usize,
    par: bool,
    madd: fn(T, T, T) -> T,
) {
    if n == 0 {
        return;
    }
    let row = |r: usize, out: &mut [T]| {
        let bi = r / m.max(1);
        out.iter_mut().for_each(|o| *o = T::default());
        for ki in 0..k {
            let x = a[r * k + ki];
            let brow = &b[(bi * k + ki) * n..(bi * k + ki + 1) * n];
            for (o, &y) in out.iter_mut().zip(brow) {
                *o = madd(*o, x, y);
            }
        }
    };
    if par && crate::parallel_worth(c.len() * k.max(1)) {
        c.par_chunks_mut(n)
            .enumerate()
            .for_each(|(r, out)| row(r, out));
    } else {
        c.chunks_mut(n).enumerate().for_each(|(r, out)| row(r, out));
    }
}

impl Dom for f32 {
    fn load_fn(src: ElementType, out: ElementType) -> Option<LoadFn<f32>> {
        unsafe fn l16(p: *const u8, i: usize) -> f32 {
            rd::<f16>(p, i).to_f32()
        }
        unsafe fn lb16(p: *const u8, i: usize) -> f32 {
            rd::<bf16>(p, i).to_f32()
        }
        unsafe fn l32(p: *const u8, i: usize) -> f32 {
            rd::<f32>(p, i)
        }
        if !direct_ok(src, out) {
            return None;
        }
        Some(match src {
            ElementType::F16 => l16,
            ElementType::Bf16 => lb16,
            _ => l32,
        })
    }
    fn store_fn(out: ElementType) -> StoreFn<f32> {
        unsafe fn s16(p: *mut u8, i: usize, v: f32) {
            wr(p, i, f16::from_f32(v))
        }
        unsafe fn sb16(p: *mut u8, i: usize, v: f32) {
            wr(p, i, bf16::from_f32(v))
        }
        unsafe fn s32(p: *mut u8, i: usize, v: f32) {
            wr(p, i, v)
        }
        match out {
            ElementType::F16 => s16,
            ElementType::Bf16 => sb16,
            _ => s32,
        }
    }
    fn matmul(
        a: &[f32],
        b: &[f32],
        c: &mut [f32],
        bt: usize,
        m: usize,
        k: usize,
        n: usize,
        par: bool,
    ) {
        float_matmul(a, b, c, bt, m, k, n, 1.0f32, par)
    }
}

impl Dom for f64 {
    fn load_fn(src: ElementType, out: ElementType) -> Option<LoadFn<f64>> {
        unsafe fn l64(p: *const u8, i: usize) -> f64 {
            rd::<f64>(p, i)
        }
        if !direct_ok(src, out) {
            return None;
        }
        Some(l64)
    }
    fn store_fn(_out: ElementType) -> StoreFn<f64> {
        unsafe fn s64(p: *mut u8, i: usize, v: f64) {
            wr(p, i, v)
        }
        s64
    }
    fn matmul(
        a: &[f64],
        b: &[f64],
        c: &mut [f64],
        bt: usize,
        m: usize,
        k: usize,
        n: usize,
        par: bool,
    ) {
        float_matmul(a, b, c, bt, m, k, n, 1.0f64, par)
    }
}

/// Complex domains (c64, c128 results): operands of the result's own type
/// only (`conv::ConvKernel::new` refuses mixed types), multiplied with
/// the complex kernels of [`gemm_block`]'s libraries.
macro_rules! complex_dom {
    ($part:ty) => {
        impl Take for num_complex::Complex<$part> {
            /// A real scalar as a complex one (imaginary part zero), as
            /// convert does; complex operands never come through here.
            #[allow(clippy::unnecessary_cast)]
            fn take() -> fn(Scal) -> Self {
                |v| {
                    let re = match v {
                        Scal::F(x) => x as $part,
                        Scal::D(x) => x as $part,
                        Scal::S(x) => x as $part,
                        Scal::U(x) => x as $part,
                    };
                    num_complex::Complex::new(re, 0.0)
                }
            }
        }
        impl Dom for num_complex::Complex<$part> {
            fn load_fn(src: ElementType, out: ElementType) -> Option<LoadFn<Self>> {
                unsafe fn l(p: *const u8, i: usize) -> num_complex::Complex<$part> {
                    rd(p, i)
                }
                (src == out).then_some(l as LoadFn<Self>)
            }
            fn store_fn(_out: ElementType) -> StoreFn<Self> {
                unsafe fn s(p: *mut u8, i: usize, v: num_complex::Complex<$part>) {
                    wr(p, i, v)
                }
                s
            }
            fn matmul(
                a: &[Self],
                b: &[Self],
                c: &mut [Self],
                bt: usize,
                m: usize,
                k: usize,
                n: usize,
                par: bool,
            ) {
                float_matmul(
                    a,
                    b,
                    c,
                    bt,
                    m,
                    k,
                    n,
                    num_complex::Complex::new(1.0, 0.0),
                    par,
                )
            }
        }
    };
}
complex_dom!(f32);
complex_dom!(f64);

macro_rules! int_store {
    ($name:ident, $d:ty) => {
        fn $name(out: ElementType) -> StoreFn<$d> {
            unsafe fn p(p: *mut u8, i: usize, v: $d) {
                wr(p, i, (v != 0) as u8)
            }
            unsafe fn b1(p: *mut u8, i: usize, v: $d) {
                wr(p, i, v as u8)
            }
            unsafe fn b2(p: *mut u8, i: usize, v: $d) {
                wr(p, i, v as u16)
            }
            unsafe fn b4(p: *mut u8, i: usize, v: $d) {
                wr(p, i, v as u32)
            }
            unsafe fn b8(p: *mut u8, i: usize, v: $d) {
                wr(p, i, v as u64)
            }
            match out {
                ElementType::Pred => p,
                t if t.byte_size() == 1 => b1,
                t if t.byte_size() == 2 => b2,
                t if t.byte_size() == 4 => b4,
                _ => b8,
            }
        }
    };
}
int_store!(store_s, i64);
int_store!(store_u, u64);

/// Integer domains: elements widened to 64 bits (sign- or zero-extended),
/// products accumulated with wrapping, as XLA does.
macro_rules! int_dom {
    ($t:ty, $t8:ty, $t16:ty, $t32:ty, $store:ident) => {
        impl Dom for $t {
            fn load_fn(src: ElementType, out: ElementType) -> Option<LoadFn<$t>> {
                unsafe fn l1(p: *const u8, i: usize) -> $t {
                    rd::<$t8>(p, i) as $t
                }
                unsafe fn l2(p: *const u8, i: usize) -> $t {
                    rd::<$t16>(p, i) as $t
                }
                unsafe fn l4(p: *const u8, i: usize) -> $t {
                    rd::<$t32>(p, i) as $t
                }
                unsafe fn l8(p: *const u8, i: usize) -> $t {
                    rd::<$t>(p, i)
                }
                if !direct_ok(src, out) {
                    return None;
                }
                Some(match src.byte_size() {
                    1 => l1,
                    2 => l2,
                    4 => l4,
                    _ => l8,
                })
            }
            fn store_fn(out: ElementType) -> StoreFn<$t> {
                $store(out)
            }
            fn matmul(
                a: &[$t],
                b: &[$t],
                c: &mut [$t],
                _bt: usize,
                m: usize,
                k: usize,
                n: usize,
                par: bool,
            ) {
                int_matmul(a, b, c, m, k, n, par, |acc, x, y| {
                    acc.wrapping_add(x.wrapping_mul(y))
                })
            }
        }
    };
}
int_dom!(i64, i8, i16, i32, store_s);
int_dom!(u64, u8, u16, u32, store_u);

/// Elements of `src` (geometry `g`) converted into domain `D` for result
/// type `out_ty`, with its dimensions taken in `order` (row-major).
pub(crate) unsafe fn pack<D: Dom>(
    src: *const u8,
    g: &crate::Geom,
    order: &[usize],
    out_ty: ElementType,
) -> Vec<D> {
    let dims: Vec<usize> = order.iter().map(|&d| g.dims[d]).collect();
    let strides: Vec<usize> = order.iter().map(|&d| g.strides[d]).collect();
    let loader = Loader::<D>::new(g.ty, out_ty);
    let mut out = Vec::with_capacity(dims.iter().product());
    crate::for_each_offset(&dims, &strides, |o| out.push(loader.load(src, o)));
    out
}

/// Stores `vals` (logical row-major over `g`'s dims) into `dst`.
pub(crate) unsafe fn store_all<D: Dom>(vals: &[D], dst: *mut u8, g: &crate::Geom) {
    let st = D::store_fn(g.ty);
    let mut i = 0;
    crate::for_each_offset(&g.dims, &g.strides, |o| {
        st(dst, o, vals[i]);
        i += 1;
    });
}

#[cfg(test)]
mod tests {
    use super::gemm_strided;

    /// Every operand layout, both split directions (n >= m and m > n),
    /// sizes not multiples of 16, k = 0 (both libraries write zeros), and a
    /// right operand contiguous along k
    /// (faer's kernels) with columns 4 KiB apart (k = 512 f64), against a
    /// plain triple loop, on one thread and on a pool of three so the
    /// products are split into blocks; complex products (c128) in every
    /// layout too.
    #[test]
    fn split_products_equal_the_plain_loop() {
        for threads in [1, 3] {
            split_products_on(threads);
        }
    }

    fn split_products_on(threads: usize) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        for &(m, n, k) in &[
            (40, 203, 300),
            (203, 40, 300),
            (130, 130, 70),
            (40, 203, 512),
            (9, 40, 0),
        ] {
            let a: Vec<f64> = (0..m * k).map(|i| ((i * 7) % 13) as f64 - 6.0).collect();
            let b: Vec<f64> = (0..k * n).map(|i| ((i * 5) % 11) as f64 - 5.0).collect();
            check_layouts(&pool, (m, n, k), &a, &b, 1.0, f64::NAN, "f64");
        }
        type C = num_complex::Complex<f64>;
        let (m, n, k) = (37, 45, 29);
        let a: Vec<C> = (0..m * k)
            .map(|i| C::new(((i * 7) % 13) as f64 - 6.0, ((i * 3) % 5) as f64 - 2.0))
            .collect();
        let b: Vec<C> = (0..k * n)
            .map(|i| C::new(((i * 5) % 11) as f64 - 5.0, ((i * 2) % 7) as f64 - 3.0))
            .collect();
        let nan = C::new(f64::NAN, f64::NAN);
        check_layouts(&pool, (m, n, k), &a, &b, C::new(1.0, 0.0), nan, "c128");
    }

    /// `a` (m x k) times `b` (k x n), each read row-major and transposed,
    /// into a NaN-filled result, against the triple loop (exact: the
    /// entries are small integers).
    fn check_layouts<T>(
        pool: &rayon::ThreadPool,
        (m, n, k): (usize, usize, usize),
        a: &[T],
        b: &[T],
        one: T,
        nan: T,
        what: &str,
    ) where
        T: super::Field + PartialEq + std::iter::Sum + std::ops::Mul<Output = T> + std::fmt::Debug,
    {
        for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
            // a(i, l) and b(l, j) in row-major or transposed storage.
            let (a_rs, a_cs) = if ta { (1, m as isize) } else { (k as isize, 1) };
            let (b_rs, b_cs) = if tb { (1, k as isize) } else { (n as isize, 1) };
            let mut want = vec![nan; m * n];
            for i in 0..m {
                for j in 0..n {
                    want[i * n + j] = (0..k)
                        .map(|l| {
                            a[(i as isize * a_rs + l as isize * a_cs) as usize]
                                * b[(l as isize * b_rs + j as isize * b_cs) as usize]
                        })
                        .sum();
                }
            }
            let mut got = vec![nan; m * n];
            pool.install(|| unsafe {
                gemm_strided(
                    m,
                    n,
                    k,
                    got.as_mut_ptr(),
                    n as isize,
                    1,
                    a.as_ptr(),
                    a_rs,
                    a_cs,
                    b.as_ptr(),
                    b_rs,
                    b_cs,
                    one,
                    true,
                )
            });
            let threads = pool.current_num_threads();
            assert!(
                got == want,
                "{what} {m}x{n}x{k} ta={ta} tb={tb} threads={threads}"
            );
        }
    }
}
