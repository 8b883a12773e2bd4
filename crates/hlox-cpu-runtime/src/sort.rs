//! sort (multi-operand, any dimension, comparator via a compiled function,
//! or natively when the comparator is a plain `compare` of one operand's
//! two parameters) and topk.
//!
//! Sorting is always stable and, when the comparator is not a strict weak
//! order (NaNs under FLOAT comparison, LE/GE/EQ/NE directions, arbitrary
//! comparators), uses the same bottom-up merge sort as the reference
//! evaluator, so the results match it exactly.

use crate::elem::{rd, with_elem, Elem, SendConstPtr, SendPtr};
use crate::{Ctx, Geom, HostKernel, KernelError, RunError, ScalarFn};
use hlox_hlo::semantics::sort::{self, direction_holds, CompareComparator};
use hlox_hlo::{ComparisonDirection, ComparisonType, ElementType};
use std::cmp::Ordering;
use std::convert::Infallible;

/// The shared merge sort (`hlox_hlo::semantics::sort`) with an infallible "less".
fn merge_sort(v: &mut Vec<usize>, mut less: impl FnMut(usize, usize) -> bool) {
    let r: Result<(), Infallible> = sort::merge_sort(v, |a, b| Ok(less(a, b)));
    if let Err(e) = r {
        match e {}
    }
}

#[derive(Copy, Clone)]
struct FastCmp {
    key: usize,
    dir: ComparisonDirection,
    ct: ComparisonType,
    swap: bool,
}

/// Keys of one row in a form whose natural order is the comparison's.
enum Keys {
    I(Vec<i64>),
    U(Vec<u64>),
    F(Vec<f64>),
}

fn total_key(bits: u64, width: u32) -> i64 {
    let sh = 64 - width;
    let b = ((bits << sh) as i64) >> sh; // sign-extended bits
    let max = if width == 64 {
        i64::MAX
    } else {
        (1i64 << (width - 1)) - 1
    };
    if b < 0 {
        b ^ max
    } else {
        b
    }
}

unsafe fn load_key(ty: ElementType, ct: ComparisonType, p: *const u8, i: usize) -> KeyVal {
    use ElementType::*;
    let w = ty.bit_width();
    let bits: u64 = match ty.byte_size() {
        1 => rd::<u8>(p, i) as u64,
        2 => rd::<u16>(p, i) as u64,
        4 => rd::<u32>(p, i) as u64,
        _ => rd::<u64>(p, i),
    };
    match (ty, ct) {
        (Pred, _) => KeyVal::U((bits != 0) as u64),
        (F16, ComparisonType::Float) => KeyVal::F(half::f16::from_bits(bits as u16).to_f64()),
        (Bf16, ComparisonType::Float) => KeyVal::F(half::bf16::from_bits(bits as u16).to_f64()),
        (F32, ComparisonType::Float) => KeyVal::F(f32::from_bits(bits as u32) as f64),
        (F64, ComparisonType::Float) => KeyVal::F(f64::from_bits(bits)),
        (_, ComparisonType::TotalOrder) => KeyVal::I(total_key(bits, w)),
        (_, ComparisonType::Signed) => {
            let sh = 64 - w;
            KeyVal::I(((bits << sh) as i64) >> sh)
        }
        _ => KeyVal::U(bits),
    }
}

enum KeyVal {
    I(i64),
    U(u64),
    F(f64),
}

pub(crate) struct SortKernel {
    ins: Vec<Geom>,
    outs: Vec<Geom>,
    dim: usize,
    fast: Option<FastCmp>,
    callee: ScalarFn,
}

/// The comparator as a native comparison, when it is one (the shared
/// recognition) on keys this kernel loads natively.
fn recognize(cx: &Ctx, comp: hlox_hlo::CompId, tys: &[ElementType]) -> Option<FastCmp> {
    let c = CompareComparator::recognize(cx.module.computations.get(comp)?, tys)?;
    let ty = tys[c.key];
    if ty.is_complex() {
        // Not an order (compare refuses complex LT/GT); left to the
        // compiled comparator, which is what JAX writes for complex keys.
        return None;
    }
    let ok = match c.cmp_type {
        ComparisonType::Float | ComparisonType::TotalOrder => ty.is_float(),
        ComparisonType::Signed | ComparisonType::Unsigned => !ty.is_float(),
    };
    ok.then_some(FastCmp {
        key: c.key,
        dir: c.direction,
        ct: c.cmp_type,
        swap: c.swapped,
    })
}

impl SortKernel {
    pub(crate) fn new(cx: &Ctx, dimension: i64) -> Result<SortKernel, KernelError> {
        let n = cx.operands.len();
        let mut ins = Vec::with_capacity(n);
        let mut outs = Vec::with_capacity(n);
        for i in 0..n {
            ins.push(Geom::new(&cx.array_operand(i)?));
            outs.push(Geom::new(&cx.result_leaf(i)?));
        }
        if n == 0 || dimension < 0 || dimension as usize >= ins[0].dims.len() {
            return Err(cx.err(format!("sort dimension {dimension} is out of range")));
        }
        let (callee, comp) = cx.callee(0)?;
        let tys: Vec<ElementType> = ins.iter().map(|g| g.ty).collect();
        Ok(SortKernel {
            fast: recognize(cx, comp, &tys),
            ins,
            outs,
            dim: dimension as usize,
            callee,
        })
    }

    /// Row base offsets (one per row, per geometry).
    fn row_bases(&self, g: &Geom) -> Vec<usize> {
        let mut dims = g.dims.clone();
        dims[self.dim] = 1;
        let mut v = Vec::new();
        crate::for_each_offset(&dims, &g.strides, |o| v.push(o));
        v
    }

    unsafe fn perm_fast(&self, f: FastCmp, p: *const u8, base: usize, len: usize) -> Vec<usize> {
        let g = &self.ins[f.key];
        let st = g.strides[self.dim];
        let mut perm: Vec<usize> = (0..len).collect();
        let keys = {
            let vals: Vec<KeyVal> = (0..len)
                .map(|i| load_key(g.ty, f.ct, p, base + i * st))
                .collect();
            match vals.first() {
                Some(KeyVal::F(_)) => Keys::F(
                    vals.iter()
                        .map(|v| if let KeyVal::F(x) = v { *x } else { 0.0 })
                        .collect(),
                ),
                Some(KeyVal::I(_)) => Keys::I(
                    vals.iter()
                        .map(|v| if let KeyVal::I(x) = v { *x } else { 0 })
                        .collect(),
                ),
                _ => Keys::U(
                    vals.iter()
                        .map(|v| if let KeyVal::U(x) = v { *x } else { 0 })
                        .collect(),
                ),
            }
        };
        use ComparisonDirection::*;
        let strict = matches!(f.dir, Lt | Gt);
        let ascending = (f.dir == Lt) != f.swap;
        macro_rules! go {
            ($k:expr, $strict_ok:expr) => {{
                let k = $k;
                if strict && $strict_ok {
                    if ascending {
                        perm.sort_by(|&a, &b| k[a].partial_cmp(&k[b]).unwrap_or(Ordering::Equal));
                    } else {
                        perm.sort_by(|&a, &b| k[b].partial_cmp(&k[a]).unwrap_or(Ordering::Equal));
                    }
                } else {
                    merge_sort(&mut perm, |a, b| {
                        let (x, y) = if f.swap { (b, a) } else { (a, b) };
                        direction_holds(f.dir, k[x].partial_cmp(&k[y]))
                    });
                }
            }};
        }
        match &keys {
            Keys::I(k) => go!(k, true),
            Keys::U(k) => go!(k, true),
            Keys::F(k) => go!(k, !k.iter().any(|x| x.is_nan())),
        }
        perm
    }

    unsafe fn perm_general(&self, ptrs: &[*const u8], bases: &[usize], len: usize) -> Vec<usize> {
        let mut perm: Vec<usize> = (0..len).collect();
        let n = self.ins.len();
        let mut args: Vec<*const u8> = vec![std::ptr::null(); 2 * n];
        let mut res = 0u8;
        let outs = [&mut res as *mut u8];
        merge_sort(&mut perm, |a, b| {
            for (k, g) in self.ins.iter().enumerate() {
                let esz = g.ty.byte_size();
                let st = g.strides[self.dim];
                args[2 * k] = ptrs[k].add((bases[k] + a * st) * esz);
                args[2 * k + 1] = ptrs[k].add((bases[k] + b * st) * esz);
            }
            (self.callee)(args.as_ptr(), outs.as_ptr());
            std::ptr::read_volatile(outs[0]) != 0
        });
        perm
    }
}

impl HostKernel for SortKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), RunError> {
        let n = self.ins.len();
        let len = self.ins[0].dims[self.dim];
        if self.ins[0].count() == 0 {
            return Ok(());
        }
        let in_bases: Vec<Vec<usize>> = self.ins.iter().map(|g| self.row_bases(g)).collect();
        let out_bases: Vec<Vec<usize>> = self.outs.iter().map(|g| self.row_bases(g)).collect();
        let rows = in_bases[0].len();
        let ins: Vec<SendConstPtr> = operands.iter().map(|&p| SendConstPtr(p)).collect();
        let outs: Vec<SendPtr> = outputs.iter().map(|&p| SendPtr(p)).collect();
        let do_row = |r: usize| {
            let ptrs: Vec<*const u8> = ins.iter().map(|p| p.0).collect();
            let bases: Vec<usize> = in_bases.iter().map(|b| b[r]).collect();
            let perm = match self.fast {
                Some(f) => self.perm_fast(f, ptrs[f.key], bases[f.key], len),
                None => self.perm_general(&ptrs, &bases, len),
            };
            for k in 0..n {
                let esz = self.ins[k].ty.byte_size();
                let (ist, ost) = (
                    self.ins[k].strides[self.dim],
                    self.outs[k].strides[self.dim],
                );
                let ob = out_bases[k][r];
                for (i, &p) in perm.iter().enumerate() {
                    std::ptr::copy_nonoverlapping(
                        ptrs[k].add((bases[k] + p * ist) * esz),
                        outs[k].0.add((ob + i * ost) * esz),
                        esz,
                    );
                }
            }
        };
        crate::for_each_row(rows, rows * len * 16, do_row);
        Ok(())
    }
}

pub(crate) struct TopKKernel {
    x: Geom,
    vals: Geom,
    idx: Geom,
    k: usize,
    largest: bool,
}

impl TopKKernel {
    pub(crate) fn new(cx: &Ctx, k: i64, largest: bool) -> Result<TopKKernel, KernelError> {
        let x = Geom::new(&cx.array_operand(0)?);
        let vals = Geom::new(&cx.result_leaf(0)?);
        let idx = Geom::new(&cx.result_leaf(1)?);
        let Some(&n) = x.dims.last() else {
            return Err(cx.err("topk needs an operand of rank >= 1"));
        };
        if k < 0 || k as usize > n || idx.ty != ElementType::S32 || n > i32::MAX as usize {
            return Err(cx.err(format!("topk: k={k} must be in [0, {n}] and indices s32")));
        }
        Ok(TopKKernel {
            x,
            vals,
            idx,
            k: k as usize,
            largest,
        })
    }

    unsafe fn run_t<T: Elem>(&self, x: *const u8, vo: *mut u8, io: *mut u8) {
        let r = self.x.dims.len() - 1;
        let n = self.x.dims[r];
        let k = self.k;
        let bases = |g: &Geom| {
            let mut dims = g.dims.clone();
            dims[r] = 1;
            let mut v = Vec::new();
            crate::for_each_offset(&dims, &g.strides, |o| v.push(o));
            v
        };
        let (xb, vb, ib) = (bases(&self.x), bases(&self.vals), bases(&self.idx));
        let (xs, vs, is) = (self.x.strides[r], self.vals.strides[r], self.idx.strides[r]);
        let (xp, vp, ip) = (SendConstPtr(x), SendPtr(vo), SendPtr(io));
        let largest = self.largest;
        let row = |ri: usize| {
            let (xp, vp, ip) = (xp, vp, ip);
            let v: Vec<T> = (0..n).map(|i| rd::<T>(xp.0, xb[ri] + i * xs)).collect();
            let cmp = |a: &usize, b: &usize| {
                let o = if largest {
                    v[*b].e_cmp(&v[*a])
                } else {
                    v[*a].e_cmp(&v[*b])
                };
                o.then(a.cmp(b))
            };
            let mut perm: Vec<usize> = (0..n).collect();
            if k > 0 && k < n {
                perm.select_nth_unstable_by(k - 1, cmp);
            }
            perm.truncate(k);
            perm.sort_unstable_by(cmp);
            for (j, &p) in perm.iter().enumerate() {
                crate::elem::wr(vp.0, vb[ri] + j * vs, v[p]);
                crate::elem::wr(ip.0, ib[ri] + j * is, p as i32);
            }
        };
        let rows = xb.len();
        crate::for_each_row(rows, rows * n * 8, row);
    }
}

impl HostKernel for TopKKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), RunError> {
        if self.vals.count() == 0 {
            return Ok(());
        }
        with_elem!(self.x.ty, T => self.run_t::<T>(operands[0], outputs[0], outputs[1]));
        Ok(())
    }
}
