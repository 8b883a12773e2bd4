//! Operations that compute over windows or call computations: dot,
//! convolution, reduce, reduce-window, select-and-scatter, gather, scatter,
//! sort, map.

use crate::elementwise::{bin_f, bin_s, bin_u, compare_vals};
use crate::value::{
    arr, ashape_str, checked_count, decode, elem_count, encode, flush32, flush64, flush_c128,
    flush_c64, for_each_offset, index_values, int_width, row_major_strides, strided_copy,
    to_domain, Vals,
};
use crate::Fail;
use half::{bf16, f16};
use hlox_hlo::semantics::dot::DotDims;
use hlox_hlo::semantics::gather::{GatherPlan, ScatterPlan};
use hlox_hlo::semantics::sort::{direction_holds, merge_sort, CompareComparator};
use hlox_hlo::semantics::window::{window_output_size, WindowError, WindowTable};
use hlox_hlo::{
    ArrayLiteral, ArrayShape, BinaryOp, ComparisonDirection, ComparisonType, Computation,
    ConvDimensionNumbers, DotDimensionNumbers, ElementType, GatherDimensionNumbers, Literal, Op,
    ScatterDimensionNumbers, Shape, Window,
};

type FR<T> = Result<T, Fail>;

/// A called computation: how to run it, and the computation itself (for fast paths).
pub(crate) struct Func<'a> {
    pub call: &'a dyn Fn(Vec<Literal>) -> FR<Literal>,
    pub comp: &'a Computation,
}

impl Func<'_> {
    /// Run on scalars given as raw element bytes; returns one element's bytes per result.
    fn apply_bytes(
        &self,
        args: &[(ElementType, &[u8])],
        n_out: usize,
        out_tys: &[ElementType],
    ) -> FR<Vec<Vec<u8>>> {
        let lits = args
            .iter()
            .map(|(t, b)| arr(*t, &[], b.to_vec()).map(Literal::Array))
            .collect::<Result<Vec<_>, _>>()?;
        let r = (self.call)(lits)?;
        let leaves: Vec<&Literal> = match &r {
            Literal::Tuple(t) => t.iter().collect(),
            l => vec![l],
        };
        if leaves.len() != n_out {
            return Err(format!(
                "computation `{}` returned {} values, expected {n_out}",
                self.comp.name,
                leaves.len()
            )
            .into());
        }
        let mut out = Vec::with_capacity(n_out);
        for (l, &t) in leaves.iter().zip(out_tys) {
            let a = l.as_array()?;
            if a.ty() != t || a.element_count() != 1 {
                return Err(format!(
                    "computation `{}` returned {}, expected a {t} scalar",
                    self.comp.name,
                    ashape_str(a.shape())
                )
                .into());
            }
            out.push(a.bytes().to_vec());
        }
        Ok(out)
    }

    /// `Some` when this computation is `f(p0, p1) = p0 OP p1` (or swapped) or
    /// returns one of its parameters, over scalars of `ty`.
    fn fast_binary(&self, ty: ElementType) -> Option<Fast> {
        let c = self.comp;
        if c.params.len() != 2 {
            return None;
        }
        let scalar = Shape::scalar(ty);
        for &p in &c.params {
            if !c.inst(p).shape.compatible(&scalar) {
                return None;
            }
        }
        let root = c.root_inst();
        if !root.shape.compatible(&scalar) {
            return None;
        }
        match &root.op {
            Op::Parameter { .. } => {
                let i = c.params.iter().position(|&p| p == c.root)?;
                Some(Fast::Param(i))
            }
            Op::Binary(_) => c
                .binary_of_params()
                .map(|(op, swapped)| Fast::Bin(op, swapped)),
            _ => None,
        }
    }
}

#[derive(Copy, Clone, Debug)]
enum Fast {
    /// acc = acc OP x (or x OP acc when swapped)
    Bin(BinaryOp, bool),
    /// returns parameter i (0: acc, 1: x)
    Param(usize),
}

fn ord<T>(swap: bool, a: T, b: T) -> (T, T) {
    if swap {
        (b, a)
    } else {
        (a, b)
    }
}

fn round_f(ty: ElementType, x: f32) -> f32 {
    match ty {
        ElementType::F16 => f16::from_f32(x).to_f32(),
        ElementType::Bf16 => bf16::from_f32(x).to_f32(),
        _ => x,
    }
}

fn wrap_s(x: i64, w: u32) -> i64 {
    if w >= 64 {
        x
    } else {
        ((x as u64) << (64 - w)) as i64 >> (64 - w)
    }
}

fn wrap_u(x: u64, w: u32, pred: bool) -> u64 {
    if pred {
        (x != 0) as u64
    } else if w >= 64 {
        x
    } else {
        x & ((1u64 << w) - 1)
    }
}

/// Produces (input index, accumulator index) pairs by calling its argument.
type PairSource<'a> = dyn FnMut(&mut dyn FnMut(usize, usize)) + 'a;

/// acc[o] = f(acc[o], x[i]) for each (i, o) pair produced by `pairs`, in the domain of `ty`.
fn fast_accumulate(
    f: Fast,
    ty: ElementType,
    acc: &mut Vals,
    x: &Vals,
    pairs: &mut PairSource,
) -> FR<()> {
    let w = int_width(ty);
    let pred = ty == ElementType::Pred;
    let err = || Fail::from(format!("reducer op is not defined for {ty}"));
    match f {
        Fast::Param(0) => return Ok(()),
        Fast::Param(_) => {
            match (acc, x) {
                (Vals::S(a), Vals::S(x)) => pairs(&mut |i, o| a[o] = x[i]),
                (Vals::U(a), Vals::U(x)) => pairs(&mut |i, o| a[o] = x[i]),
                (Vals::F(a), Vals::F(x)) => pairs(&mut |i, o| a[o] = x[i]),
                (Vals::D(a), Vals::D(x)) => pairs(&mut |i, o| a[o] = x[i]),
                (Vals::C(a), Vals::C(x)) => pairs(&mut |i, o| a[o] = x[i]),
                (Vals::Z(a), Vals::Z(x)) => pairs(&mut |i, o| a[o] = x[i]),
                _ => return Err(err()),
            }
            return Ok(());
        }
        Fast::Bin(op, swap) => {
            let mut bad = false;
            match (acc, x) {
                (Vals::S(a), Vals::S(x)) => pairs(&mut |i, o| {
                    let (p, q) = ord(swap, a[o], x[i]);
                    match bin_s(op, p, q, w) {
                        Some(r) => a[o] = wrap_s(r, w),
                        None => bad = true,
                    }
                }),
                (Vals::U(a), Vals::U(x)) => pairs(&mut |i, o| {
                    let (p, q) = ord(swap, a[o], x[i]);
                    match bin_u(op, p, q, w, pred) {
                        Some(r) => a[o] = wrap_u(r, w, pred),
                        None => bad = true,
                    }
                }),
                // Floats flush subnormal operands and results, as the
                // general path's element-wise ops do (XLA:CPU's FTZ/DAZ:
                // `jnp.max` of -1e-40 and -3 is -0 there).
                (Vals::F(a), Vals::F(x)) => pairs(&mut |i, o| {
                    let (p, q) = ord(swap, a[o], x[i]);
                    match bin_f(op, flush32(p), flush32(q)) {
                        Some(r) => a[o] = flush32(round_f(ty, r)),
                        None => bad = true,
                    }
                }),
                (Vals::D(a), Vals::D(x)) => pairs(&mut |i, o| {
                    let (p, q) = ord(swap, a[o], x[i]);
                    match bin_f(op, flush64(p), flush64(q)) {
                        Some(r) => a[o] = flush64(r),
                        None => bad = true,
                    }
                }),
                (Vals::C(a), Vals::C(x)) => pairs(&mut |i, o| {
                    let (p, q) = ord(swap, a[o], x[i]);
                    match crate::complex::binary_c(op, flush_c64(p), flush_c64(q)) {
                        Some(r) => a[o] = flush_c64(r),
                        None => bad = true,
                    }
                }),
                (Vals::Z(a), Vals::Z(x)) => pairs(&mut |i, o| {
                    let (p, q) = ord(swap, a[o], x[i]);
                    match crate::complex::binary_z(op, flush_c128(p), flush_c128(q)) {
                        Some(r) => a[o] = flush_c128(r),
                        None => bad = true,
                    }
                }),
                _ => return Err(err()),
            }
            if bad {
                return Err(err());
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- dot

trait Num: Copy {
    fn zero() -> Self;
    fn madd(self, a: Self, b: Self) -> Self;
}
impl Num for i64 {
    fn zero() -> Self {
        0
    }
    fn madd(self, a: Self, b: Self) -> Self {
        self.wrapping_add(a.wrapping_mul(b))
    }
}
impl Num for u64 {
    fn zero() -> Self {
        0
    }
    fn madd(self, a: Self, b: Self) -> Self {
        self.wrapping_add(a.wrapping_mul(b))
    }
}
impl Num for f32 {
    fn zero() -> Self {
        0.0
    }
    fn madd(self, a: Self, b: Self) -> Self {
        self + a * b
    }
}
impl Num for f64 {
    fn zero() -> Self {
        0.0
    }
    fn madd(self, a: Self, b: Self) -> Self {
        self + a * b
    }
}
impl Num for hlox_hlo::Complex32 {
    fn zero() -> Self {
        Self::new(0.0, 0.0)
    }
    fn madd(self, a: Self, b: Self) -> Self {
        self + a * b
    }
}
impl Num for hlox_hlo::Complex64 {
    fn zero() -> Self {
        Self::new(0.0, 0.0)
    }
    fn madd(self, a: Self, b: Self) -> Self {
        self + a * b
    }
}

fn check_dims_unique(dims: &[i64], rank: usize, what: &str) -> FR<Vec<usize>> {
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        if d < 0 || d as usize >= rank || seen[d as usize] {
            return Err(format!("{what} {dims:?} are invalid for rank {rank}").into());
        }
        seen[d as usize] = true;
        out.push(d as usize);
    }
    Ok(out)
}

/// Bytes of `a` transposed so that its dimensions come in `order`.
fn permute(a: &ArrayLiteral, order: &[usize]) -> Vec<u8> {
    let src = row_major_strides(a.dims());
    let dims: Vec<i64> = order.iter().map(|&d| a.dims()[d]).collect();
    let strides: Vec<i64> = order.iter().map(|&d| src[d] as i64).collect();
    strided_copy(a.bytes(), a.ty().byte_size(), &dims, 0, &strides)
}

fn matmul<T: Num>(l: &[T], r: &[T], b: usize, m: usize, k: usize, n: usize) -> Vec<T> {
    let mut out = vec![T::zero(); b * m * n];
    for bi in 0..b {
        for mi in 0..m {
            let acc = &mut out[(bi * m + mi) * n..(bi * m + mi + 1) * n];
            for ki in 0..k {
                let a = l[(bi * m + mi) * k + ki];
                let row = &r[(bi * k + ki) * n..(bi * k + ki + 1) * n];
                for (o, &x) in acc.iter_mut().zip(row) {
                    *o = o.madd(a, x);
                }
            }
        }
    }
    out
}

pub(crate) fn dot(
    l: &ArrayLiteral,
    r: &ArrayLiteral,
    dn: &DotDimensionNumbers,
    out: &ArrayShape,
) -> FR<ArrayLiteral> {
    let (lr, rr) = (l.shape().rank(), r.shape().rank());
    if dn.lhs_batch_dims.len() != dn.rhs_batch_dims.len()
        || dn.lhs_contracting_dims.len() != dn.rhs_contracting_dims.len()
    {
        return Err("lhs and rhs batch/contracting dimension counts differ"
            .to_string()
            .into());
    }
    let mut lused: Vec<i64> = dn.lhs_batch_dims.clone();
    lused.extend(&dn.lhs_contracting_dims);
    let mut rused: Vec<i64> = dn.rhs_batch_dims.clone();
    rused.extend(&dn.rhs_contracting_dims);
    check_dims_unique(&lused, lr, "lhs batch+contracting dimensions")?;
    check_dims_unique(&rused, rr, "rhs batch+contracting dimensions")?;
    let dims = DotDims::new(dn, lr, rr);
    let (lorder, rorder) = (dims.lhs_order(), dims.rhs_order());
    let (ld, rd) = (&dims.lhs, &dims.rhs);
    let (lb, lc, lf) = (&ld.batch, &ld.contracting, &ld.free);
    let (rb, rc, rf) = (&rd.batch, &rd.contracting, &rd.free);
    for (a, b) in lb.iter().zip(rb).chain(lc.iter().zip(rc)) {
        if l.dims()[*a] != r.dims()[*b] {
            return Err(format!(
                "lhs dimension {a} (size {}) does not match rhs dimension {b} (size {})",
                l.dims()[*a],
                r.dims()[*b]
            )
            .into());
        }
    }
    let size = |a: &ArrayLiteral, ds: &[usize]| {
        ds.iter().map(|&d| a.dims()[d] as usize).product::<usize>()
    };
    let mut odims: Vec<i64> = lb.iter().map(|&d| l.dims()[d]).collect();
    odims.extend(lf.iter().map(|&d| l.dims()[d]));
    odims.extend(rf.iter().map(|&d| r.dims()[d]));
    if odims != out.dims {
        return Err(format!(
            "dot result should have dimensions {odims:?}, declared {}",
            ashape_str(out)
        )
        .into());
    }
    let (b, m, k, n) = (size(l, lb), size(l, lf), size(l, lc), size(r, rf));
    let lt = arr(l.ty(), &[(b * m * k) as i64], permute(l, &lorder))?;
    let rt = arr(r.ty(), &[(b * k * n) as i64], permute(r, &rorder))?;
    let lv = to_domain(decode(&lt), out.ty, lt.dims());
    let rv = to_domain(decode(&rt), out.ty, rt.dims());
    let res = match (lv, rv) {
        (Vals::S(x), Vals::S(y)) => Vals::S(matmul(&x, &y, b, m, k, n)),
        (Vals::U(x), Vals::U(y)) => Vals::U(matmul(&x, &y, b, m, k, n)),
        (Vals::F(x), Vals::F(y)) => Vals::F(matmul(&x, &y, b, m, k, n)),
        (Vals::D(x), Vals::D(y)) => Vals::D(matmul(&x, &y, b, m, k, n)),
        (Vals::C(x), Vals::C(y)) => Vals::C(matmul(&x, &y, b, m, k, n)),
        (Vals::Z(x), Vals::Z(y)) => Vals::Z(matmul(&x, &y, b, m, k, n)),
        _ => return Err("dot operand domains differ".to_string().into()),
    };
    Ok(encode(&res, out.ty, &out.dims))
}

// ---------------------------------------------------------------- convolution

struct ConvGeom<'a> {
    dn: &'a ConvDimensionNumbers,
    window: &'a Window,
    ldims: Vec<i64>,
    rdims: Vec<i64>,
    lstr: Vec<usize>,
    rstr: Vec<usize>,
    fgc: i64,
    bgc: i64,
}

#[allow(clippy::needless_range_loop)]
fn conv_run<T: Num>(g: &ConvGeom, l: &[T], r: &[T], out: &ArrayShape) -> Vec<T> {
    let dn = g.dn;
    let nsp = dn.input_spatial_dimensions.len();
    let in_z = g.ldims[dn.input_feature_dimension as usize];
    let in_batch = g.ldims[dn.input_batch_dimension as usize];
    let batch_group_size = in_batch / g.bgc;
    let in_fg_size = in_z / g.fgc;
    let out_z = g.rdims[dn.kernel_output_feature_dimension as usize];
    let out_fg_size = out_z / g.fgc;
    let depthwise_mult = out_z / g.bgc;
    let wsizes: Vec<i64> = dn
        .kernel_spatial_dimensions
        .iter()
        .map(|&d| g.rdims[d as usize])
        .collect();
    let mut res = Vec::with_capacity(elem_count(&out.dims));
    crate::value::for_each_index(&out.dims, |o| {
        let oz = o[dn.output_feature_dimension as usize];
        let fg = oz / out_fg_size.max(1);
        let bg = oz / depthwise_mult.max(1);
        let mut acc = T::zero();
        crate::value::for_each_index(&wsizes, |k| {
            let mut loff = 0usize;
            let mut roff = 0usize;
            for s in 0..nsp {
                let wd = &g.window.dims[s];
                let isd = dn.input_spatial_dimensions[s] as usize;
                let osd = dn.output_spatial_dimensions[s] as usize;
                let und = o[osd] * wd.stride - wd.pad_lo + k[s] * wd.window_dilation;
                if wd.base_dilation > 1 && und.rem_euclid(wd.base_dilation) != 0 {
                    return;
                }
                let li = if wd.base_dilation > 1 {
                    und.div_euclid(wd.base_dilation)
                } else {
                    und
                };
                if li < 0 || li >= g.ldims[isd] {
                    return;
                }
                loff += li as usize * g.lstr[isd];
                let ki = if wd.reversal {
                    wd.size - 1 - k[s]
                } else {
                    k[s]
                };
                roff += ki as usize * g.rstr[dn.kernel_spatial_dimensions[s] as usize];
            }
            for riz in 0..in_fg_size {
                let iz = fg * in_fg_size + riz;
                let lb = o[dn.output_batch_dimension as usize] + bg * batch_group_size;
                let li = loff
                    + lb as usize * g.lstr[dn.input_batch_dimension as usize]
                    + iz as usize * g.lstr[dn.input_feature_dimension as usize];
                let ri = roff
                    + oz as usize * g.rstr[dn.kernel_output_feature_dimension as usize]
                    + riz as usize * g.rstr[dn.kernel_input_feature_dimension as usize];
                acc = acc.madd(l[li], r[ri]);
            }
        });
        res.push(acc);
    });
    res
}

pub(crate) fn convolution(
    l: &ArrayLiteral,
    r: &ArrayLiteral,
    window: &Window,
    dn: &ConvDimensionNumbers,
    fgc: i64,
    bgc: i64,
    out: &ArrayShape,
) -> FR<ArrayLiteral> {
    let nsp = dn.input_spatial_dimensions.len();
    let rank = nsp + 2;
    if l.shape().rank() != rank || r.shape().rank() != rank || out.rank() != rank {
        return Err(format!(
            "convolution with {nsp} spatial dimensions needs rank-{rank} operands and result"
        )
        .into());
    }
    if dn.kernel_spatial_dimensions.len() != nsp
        || dn.output_spatial_dimensions.len() != nsp
        || window.dims.len() != nsp
    {
        return Err(
            "convolution spatial dimension counts differ between input, kernel, output and window"
                .to_string()
                .into(),
        );
    }
    let mut li: Vec<i64> = vec![dn.input_batch_dimension, dn.input_feature_dimension];
    li.extend(&dn.input_spatial_dimensions);
    let mut ki: Vec<i64> = vec![
        dn.kernel_input_feature_dimension,
        dn.kernel_output_feature_dimension,
    ];
    ki.extend(&dn.kernel_spatial_dimensions);
    let mut oi: Vec<i64> = vec![dn.output_batch_dimension, dn.output_feature_dimension];
    oi.extend(&dn.output_spatial_dimensions);
    check_dims_unique(&li, rank, "input dimension numbers")?;
    check_dims_unique(&ki, rank, "kernel dimension numbers")?;
    check_dims_unique(&oi, rank, "output dimension numbers")?;
    if fgc < 1 || bgc < 1 {
        return Err(format!(
            "feature_group_count ({fgc}) and batch_group_count ({bgc}) must be >= 1"
        )
        .into());
    }
    let ld = l.dims();
    let rd = r.dims();
    let in_z = ld[dn.input_feature_dimension as usize];
    let in_b = ld[dn.input_batch_dimension as usize];
    let k_in = rd[dn.kernel_input_feature_dimension as usize];
    let k_out = rd[dn.kernel_output_feature_dimension as usize];
    if in_z % fgc != 0
        || in_z / fgc != k_in
        || k_out % fgc != 0
        || in_b % bgc != 0
        || k_out % bgc != 0
    {
        return Err(format!(
            "group counts do not fit: input features {in_z}, kernel input features {k_in}, kernel output features {k_out}, batch {in_b}, feature_group_count {fgc}, batch_group_count {bgc}"
        )
        .into());
    }
    // Expected output dims.
    let mut exp = vec![0i64; rank];
    exp[dn.output_batch_dimension as usize] = in_b / bgc;
    exp[dn.output_feature_dimension as usize] = k_out;
    for s in 0..nsp {
        let w = &window.dims[s];
        let ksz = rd[dn.kernel_spatial_dimensions[s] as usize];
        if w.size != ksz {
            return Err(format!(
                "window size {} differs from kernel spatial size {ksz} in dimension {s}",
                w.size
            )
            .into());
        }
        let isz = ld[dn.input_spatial_dimensions[s] as usize];
        exp[dn.output_spatial_dimensions[s] as usize] =
            window_output_size(isz, w).map_err(|e| WindowError::Dim {
                dim: s,
                source: Box::new(e),
            })?;
    }
    if exp != out.dims {
        return Err(format!(
            "convolution result should have dimensions {exp:?}, declared {}",
            ashape_str(out)
        )
        .into());
    }
    checked_count(&out.dims)?;
    let g = ConvGeom {
        dn,
        window,
        ldims: ld.to_vec(),
        rdims: rd.to_vec(),
        lstr: row_major_strides(ld),
        rstr: row_major_strides(rd),
        fgc,
        bgc,
    };
    let lv = to_domain(decode(l), out.ty, ld);
    let rv = to_domain(decode(r), out.ty, rd);
    let res = match (lv, rv) {
        (Vals::S(x), Vals::S(y)) => Vals::S(conv_run(&g, &x, &y, out)),
        (Vals::U(x), Vals::U(y)) => Vals::U(conv_run(&g, &x, &y, out)),
        (Vals::F(x), Vals::F(y)) => Vals::F(conv_run(&g, &x, &y, out)),
        (Vals::D(x), Vals::D(y)) => Vals::D(conv_run(&g, &x, &y, out)),
        (Vals::C(x), Vals::C(y)) => Vals::C(conv_run(&g, &x, &y, out)),
        (Vals::Z(x), Vals::Z(y)) => Vals::Z(conv_run(&g, &x, &y, out)),
        _ => return Err("convolution operand domains differ".to_string().into()),
    };
    Ok(encode(&res, out.ty, &out.dims))
}

// ---------------------------------------------------------------- reduce

/// Variadic ops take N >= 1 arrays of one kind and N of another
/// (`expected` says which, for the error).
fn n_and_n(expected: &str, n: usize, m: usize) -> FR<()> {
    if n == 0 || n != m {
        return Err(format!("{expected}, got {n} and {m}").into());
    }
    Ok(())
}

fn check_variadic(inputs: &[&ArrayLiteral], inits: &[&ArrayLiteral]) -> FR<()> {
    n_and_n(
        "expected N inputs and N init values",
        inputs.len(),
        inits.len(),
    )?;
    for (i, (a, v)) in inputs.iter().zip(inits).enumerate() {
        if a.dims() != inputs[0].dims() {
            return Err(format!(
                "input {i} has dimensions {:?}, input 0 has {:?}",
                a.dims(),
                inputs[0].dims()
            )
            .into());
        }
        if v.element_count() != 1 || !v.dims().is_empty() || v.ty() != a.ty() {
            return Err(format!(
                "init value {i} must be a {} scalar, got {}",
                a.ty(),
                ashape_str(v.shape())
            )
            .into());
        }
    }
    Ok(())
}

/// The bytes of element `i` of each array.
fn elements<'a>(arrays: &[&'a ArrayLiteral], i: usize) -> Vec<&'a [u8]> {
    arrays
        .iter()
        .map(|a| {
            let esz = a.ty().byte_size();
            &a.bytes()[i * esz..(i + 1) * esz]
        })
        .collect()
}

/// `n` copies of the scalar `init`, decoded.
fn splat(init: &ArrayLiteral, n: usize) -> Vals {
    match decode(init) {
        Vals::S(v) => Vals::S(vec![v[0]; n]),
        Vals::U(v) => Vals::U(vec![v[0]; n]),
        Vals::F(v) => Vals::F(vec![v[0]; n]),
        Vals::D(v) => Vals::D(vec![v[0]; n]),
        Vals::C(v) => Vals::C(vec![v[0]; n]),
        Vals::Z(v) => Vals::Z(vec![v[0]; n]),
    }
}

/// General accumulation: acc[k][o] = f(acc..., x...) via the computation.
fn general_step(
    f: &Func,
    tys: &[ElementType],
    acc: &mut [Vec<u8>],
    o: usize,
    xs: &[&[u8]],
) -> FR<()> {
    let n = tys.len();
    let mut args: Vec<(ElementType, &[u8])> = Vec::with_capacity(2 * n);
    let mut acc_copies: Vec<Vec<u8>> = Vec::with_capacity(n);
    for k in 0..n {
        let esz = tys[k].byte_size();
        acc_copies.push(acc[k][o * esz..(o + 1) * esz].to_vec());
    }
    for k in 0..n {
        args.push((tys[k], &acc_copies[k]));
    }
    for k in 0..n {
        args.push((tys[k], xs[k]));
    }
    let r = f.apply_bytes(&args, n, tys)?;
    for k in 0..n {
        let esz = tys[k].byte_size();
        acc[k][o * esz..(o + 1) * esz].copy_from_slice(&r[k]);
    }
    Ok(())
}

pub(crate) fn reduce(
    inputs: &[&ArrayLiteral],
    inits: &[&ArrayLiteral],
    dims: &[i64],
    f: &Func,
) -> FR<Vec<ArrayLiteral>> {
    check_variadic(inputs, inits)?;
    let in_dims = inputs[0].dims().to_vec();
    let rank = in_dims.len();
    let red = check_dims_unique(dims, rank, "reduce dimensions")?;
    let keep: Vec<usize> = (0..rank).filter(|d| !red.contains(d)).collect();
    let out_dims: Vec<i64> = keep.iter().map(|&d| in_dims[d]).collect();
    let n_out = elem_count(&out_dims);
    let ostr = row_major_strides(&out_dims);
    let mut strides = vec![0i64; rank];
    for (k, &d) in keep.iter().enumerate() {
        strides[d] = ostr[k] as i64;
    }
    accumulate(inputs, inits, f, &out_dims, n_out, &mut |g| {
        for_each_offset(&in_dims, 0, &strides, |i, o| g(i, o as usize))
    })
}

/// Reduce and reduce-window: input element `i` folds into accumulator `o`
/// for each (i, o) pair `pairs` produces, in that order; one input through
/// the reducer's fast binary op where it has one, else the general reducer.
fn accumulate(
    inputs: &[&ArrayLiteral],
    inits: &[&ArrayLiteral],
    f: &Func,
    out_dims: &[i64],
    n_out: usize,
    pairs: &mut PairSource,
) -> FR<Vec<ArrayLiteral>> {
    let tys: Vec<ElementType> = inputs.iter().map(|a| a.ty()).collect();
    if inputs.len() == 1 {
        if let Some(fast) = f.fast_binary(tys[0]) {
            let mut acc = splat(inits[0], n_out);
            let x = decode(inputs[0]);
            fast_accumulate(fast, tys[0], &mut acc, &x, pairs)?;
            return Ok(vec![encode(&acc, tys[0], out_dims)]);
        }
    }
    let mut acc: Vec<Vec<u8>> = inits.iter().map(|v| v.bytes().repeat(n_out)).collect();
    let mut res = Ok(());
    pairs(&mut |i, o| {
        if res.is_ok() {
            res = general_step(f, &tys, &mut acc, o, &elements(inputs, i));
        }
    });
    res?;
    acc.into_iter()
        .zip(&tys)
        .map(|(b, &t)| arr(t, out_dims, b).map_err(Fail::from))
        .collect()
}

// ---------------------------------------------------------------- reduce-window

/// Calls `f(output index, input index)` (row-major linear indices) for
/// every window element that reads the input, outputs in row-major order
/// and each window in row-major order (the order XLA accumulates in).
fn for_each_window_elem(
    tab: &WindowTable,
    in_dims: &[i64],
    mut f: impl FnMut(usize, usize) -> FR<()>,
) -> FR<()> {
    let in_str = row_major_strides(in_dims);
    let rank = in_dims.len();
    let n_out: usize = tab.out_dims.iter().product();
    let (mut o, mut k, mut b) = (vec![0usize; rank], vec![0usize; rank], vec![0usize; rank]);
    let mut res = Ok(());
    for lin in 0..n_out {
        let mut rem = lin;
        for d in (0..rank).rev() {
            o[d] = rem % tab.out_dims[d];
            rem /= tab.out_dims[d];
        }
        tab.for_each(&o, &mut k, &mut b, |bi| {
            if res.is_ok() {
                let off = bi.iter().zip(&in_str).map(|(i, s)| i * s).sum();
                res = f(lin, off);
            }
        });
        std::mem::replace(&mut res, Ok(()))?;
    }
    Ok(())
}

pub(crate) fn reduce_window(
    inputs: &[&ArrayLiteral],
    inits: &[&ArrayLiteral],
    w: &Window,
    f: &Func,
) -> FR<Vec<ArrayLiteral>> {
    check_variadic(inputs, inits)?;
    let in_dims = inputs[0].dims().to_vec();
    let tab = WindowTable::new(&in_dims, w)?;
    let out_dims: Vec<i64> = tab.out_dims.iter().map(|&d| d as i64).collect();
    let n_out = checked_count(&out_dims)?;
    accumulate(inputs, inits, f, &out_dims, n_out, &mut |g| {
        // The visitor cannot fail, so neither can the walk.
        let _ = for_each_window_elem(&tab, &in_dims, |o, i| {
            g(i, o);
            Ok(())
        });
    })
}

// ---------------------------------------------------------------- select-and-scatter

pub(crate) fn select_and_scatter(
    operand: &ArrayLiteral,
    source: &ArrayLiteral,
    init: &ArrayLiteral,
    w: &Window,
    select: &Func,
    scatter: &Func,
) -> FR<ArrayLiteral> {
    let ty = operand.ty();
    if init.ty() != source.ty() || init.element_count() != 1 {
        return Err(format!("init value must be a {} scalar", source.ty()).into());
    }
    let in_dims = operand.dims().to_vec();
    let tab = WindowTable::new(&in_dims, w)?;
    let out_dims: Vec<i64> = tab.out_dims.iter().map(|&d| d as i64).collect();
    if out_dims != source.dims() {
        return Err(format!(
            "source has dimensions {:?}, the window gives {out_dims:?}",
            source.dims()
        )
        .into());
    }
    let n = operand.element_count();
    let sty = source.ty();
    let ssz = sty.byte_size();
    let esz = ty.byte_size();
    let mut result: Vec<Vec<u8>> = vec![init.bytes().repeat(n)];
    let ob = operand.bytes();
    // The selected input of the window being walked (windows come one
    // after the other, so a change of output index closes the previous).
    let mut current: Option<(usize, usize)> = None;
    let finish = |sel: Option<(usize, usize)>, result: &mut Vec<Vec<u8>>| -> FR<()> {
        if let Some((s_lin, s)) = sel {
            let src = &source.bytes()[s_lin * ssz..(s_lin + 1) * ssz];
            general_step(scatter, &[sty], result, s, &[src])?;
        }
        Ok(())
    };
    for_each_window_elem(&tab, &in_dims, |o, i| {
        match current {
            Some((so, s)) if so == o => {
                let r = select.apply_bytes(
                    &[
                        (ty, &ob[s * esz..(s + 1) * esz]),
                        (ty, &ob[i * esz..(i + 1) * esz]),
                    ],
                    1,
                    &[ElementType::Pred],
                )?;
                if r[0][0] == 0 {
                    current = Some((o, i));
                }
            }
            prev => {
                finish(prev, &mut result)?;
                current = Some((o, i));
            }
        }
        Ok(())
    })?;
    finish(current, &mut result)?;
    Ok(arr(sty, &in_dims, result.pop().unwrap_or_default())?)
}

// ---------------------------------------------------------------- gather

pub(crate) fn gather(
    operand: &ArrayLiteral,
    indices: &ArrayLiteral,
    dn: &GatherDimensionNumbers,
    slice_sizes: &[i64],
    out: &ArrayShape,
) -> FR<ArrayLiteral> {
    let plan = GatherPlan::new(dn, slice_sizes, operand.dims(), indices.dims(), &out.dims)?;
    let iv = index_values(indices)?;
    let istr = row_major_strides(indices.dims());
    let ostr = row_major_strides(operand.dims());
    let esz = operand.ty().byte_size();
    let n = checked_count(&out.dims)?;
    let mut bytes = Vec::with_capacity(n * esz);
    let ob = operand.bytes();
    let mut start = vec![0i64; ostr.len()];
    let mut batch = vec![0usize; plan.batch_out_dims.len()];
    crate::value::for_each_index(&out.dims, |o| {
        for (b, &od) in batch.iter_mut().zip(&plan.batch_out_dims) {
            *b = o[od] as usize;
        }
        let (first, step) = plan.vector_offsets(&batch, &istr);
        plan.start(&batch, |k| iv[first + k * step], &mut start);
        let mut off: usize = start
            .iter()
            .zip(&ostr)
            .map(|(&s, &st)| s as usize * st)
            .sum();
        for (&od, &wd) in plan.offset_dims.iter().zip(&plan.window_operand_dims) {
            off += o[od] as usize * ostr[wd];
        }
        bytes.extend_from_slice(&ob[off * esz..(off + 1) * esz]);
    });
    Ok(arr(out.ty, &out.dims, bytes)?)
}

// ---------------------------------------------------------------- scatter

pub(crate) fn scatter(
    operands: &[&ArrayLiteral],
    indices: &ArrayLiteral,
    updates: &[&ArrayLiteral],
    dn: &ScatterDimensionNumbers,
    f: &Func,
) -> FR<Vec<ArrayLiteral>> {
    n_and_n(
        "scatter needs N operands and N updates",
        operands.len(),
        updates.len(),
    )?;
    let odims = operands[0].dims().to_vec();
    let udims = updates[0].dims().to_vec();
    for (k, (o, u)) in operands.iter().zip(updates).enumerate() {
        if o.dims() != odims.as_slice() || u.dims() != udims.as_slice() || o.ty() != u.ty() {
            return Err(format!("operand/update {k} shapes are inconsistent").into());
        }
    }
    let plan = ScatterPlan::new(dn, &odims, indices.dims(), &udims)?;
    let iv = index_values(indices)?;
    let istr = row_major_strides(indices.dims());
    let ostr = row_major_strides(&odims);
    let ustr = row_major_strides(&udims);
    let tys: Vec<ElementType> = operands.iter().map(|o| o.ty()).collect();
    let mut result: Vec<Vec<u8>> = operands.iter().map(|o| o.bytes().to_vec()).collect();
    let fast = if operands.len() == 1 {
        f.fast_binary(tys[0])
    } else {
        None
    };
    // (update linear index, operand linear index) pairs, in XLA's order.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut start = vec![0i64; odims.len()];
    let mut sidx = vec![0usize; plan.update_scatter_dims.len()];
    let window_dims = plan.window_extent();
    crate::value::for_each_index(&plan.scatter_sizes(), |s| {
        for (x, &v) in sidx.iter_mut().zip(s) {
            *x = v as usize;
        }
        let (first, step) = plan.vector_offsets(&sidx, &istr);
        if !plan.start(&sidx, |k| iv[first + k * step], &mut start) {
            return;
        }
        let base_u: usize = sidx
            .iter()
            .zip(&plan.update_scatter_dims)
            .map(|(&v, &d)| v * ustr[d])
            .sum();
        let base_o: usize = start
            .iter()
            .zip(&ostr)
            .map(|(&v, &st)| v as usize * st)
            .sum();
        crate::value::for_each_index(&window_dims, |wi| {
            let mut uo = base_u;
            let mut oo = base_o;
            for (k, &v) in wi.iter().enumerate() {
                uo += v as usize * ustr[plan.update_window_dims[k]];
                oo += v as usize * ostr[plan.window_operand_dims[k]];
            }
            pairs.push((uo, oo));
        });
    });
    if let Some(fast) = fast {
        let mut acc = decode(operands[0]);
        let x = decode(updates[0]);
        fast_accumulate(fast, tys[0], &mut acc, &x, &mut |g| {
            for &(u, o) in &pairs {
                g(u, o)
            }
        })?;
        return Ok(vec![encode(&acc, tys[0], &odims)]);
    }
    for (u, o) in pairs {
        let xs = elements(updates, u);
        general_step(f, &tys, &mut result, o, &xs)?;
    }
    result
        .into_iter()
        .zip(&tys)
        .map(|(b, &t)| arr(t, &odims, b).map_err(Fail::from))
        .collect()
}

// ---------------------------------------------------------------- sort

pub(crate) fn sort(ops: &[&ArrayLiteral], dim: i64, f: &Func) -> FR<Vec<ArrayLiteral>> {
    if ops.is_empty() {
        return Err("sort needs at least one operand".into());
    }
    let dims = ops[0].dims().to_vec();
    for (k, o) in ops.iter().enumerate() {
        if o.dims() != dims.as_slice() {
            return Err(format!(
                "sort operand {k} has dimensions {:?}, operand 0 has {dims:?}",
                o.dims()
            )
            .into());
        }
    }
    let rank = dims.len();
    if dim < 0 || dim as usize >= rank {
        return Err(format!("sort dimension {dim} is out of range for rank {rank}").into());
    }
    let d = dim as usize;
    let strides = row_major_strides(&dims);
    let len = dims[d] as usize;
    let mut outer = dims.clone();
    outer[d] = 1;
    let tys: Vec<ElementType> = ops.iter().map(|o| o.ty()).collect();
    // Fast comparator: root = compare(p[2k], p[2k+1]) (or swapped).
    let keyvals = CompareComparator::recognize(f.comp, &tys).map(|c| (c, decode(ops[c.key])));
    let mut results: Vec<Vec<u8>> = ops.iter().map(|o| o.bytes().to_vec()).collect();
    let mut err: FR<()> = Ok(());
    crate::value::for_each_index(&outer, |o| {
        if err.is_err() {
            return;
        }
        let base: usize = o.iter().zip(&strides).map(|(&i, &s)| i as usize * s).sum();
        let pos: Vec<usize> = (0..len).map(|i| base + i * strides[d]).collect();
        let mut perm: Vec<usize> = (0..len).collect();
        let r = if let Some((c, kv)) = &keyvals {
            let ty = tys[c.key];
            merge_sort(&mut perm, |a, b| {
                let (x, y) = if c.swapped {
                    (pos[b], pos[a])
                } else {
                    (pos[a], pos[b])
                };
                compare_one(c.direction, c.cmp_type, kv, x, y, ty)
            })
        } else {
            merge_sort(&mut perm, |a, b| {
                let mut args: Vec<(ElementType, &[u8])> = Vec::with_capacity(2 * ops.len());
                for (k, op) in ops.iter().enumerate() {
                    let esz = tys[k].byte_size();
                    args.push((tys[k], &op.bytes()[pos[a] * esz..(pos[a] + 1) * esz]));
                    args.push((tys[k], &op.bytes()[pos[b] * esz..(pos[b] + 1) * esz]));
                }
                let r = f.apply_bytes(&args, 1, &[ElementType::Pred])?;
                Ok(r[0][0] != 0)
            })
        };
        if let Err(e) = r {
            err = Err(e);
            return;
        }
        for (k, op) in ops.iter().enumerate() {
            let esz = tys[k].byte_size();
            for (i, &p) in perm.iter().enumerate() {
                let (dst, src) = (pos[i], pos[p]);
                results[k][dst * esz..(dst + 1) * esz]
                    .copy_from_slice(&op.bytes()[src * esz..(src + 1) * esz]);
            }
        }
    });
    err?;
    results
        .into_iter()
        .zip(&tys)
        .map(|(b, &t)| arr(t, &dims, b).map_err(Fail::from))
        .collect()
}

/// compare(v[x], v[y]) without allocating.
fn compare_one(
    dir: ComparisonDirection,
    ct: ComparisonType,
    v: &Vals,
    x: usize,
    y: usize,
    ty: ElementType,
) -> FR<bool> {
    use crate::elementwise::Fp;
    let w = int_width(ty);
    let o = match v {
        Vals::S(a) if ct == ComparisonType::Unsigned => {
            let m = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
            (a[x] as u64 & m).partial_cmp(&(a[y] as u64 & m))
        }
        Vals::S(a) => a[x].partial_cmp(&a[y]),
        Vals::U(a) if ct == ComparisonType::Signed => {
            let r = compare_vals(dir, ct, Vals::U(vec![a[x]]), Vals::U(vec![a[y]]), ty)?;
            return Ok(r[0] != 0);
        }
        Vals::U(a) => a[x].partial_cmp(&a[y]),
        Vals::F(a) if ct == ComparisonType::TotalOrder => {
            a[x].total_key().partial_cmp(&a[y].total_key())
        }
        Vals::F(a) => a[x].partial_cmp(&a[y]),
        Vals::D(a) if ct == ComparisonType::TotalOrder => {
            a[x].total_key().partial_cmp(&a[y].total_key())
        }
        Vals::D(a) => a[x].partial_cmp(&a[y]),
        // Complex numbers compare only for (in)equality (shape inference
        // refuses the other directions): equal or unordered.
        Vals::C(a) => (a[x] == a[y]).then_some(std::cmp::Ordering::Equal),
        Vals::Z(a) => (a[x] == a[y]).then_some(std::cmp::Ordering::Equal),
    };
    Ok(direction_holds(dir, o))
}

// ---------------------------------------------------------------- map

pub(crate) fn map(ops: &[&ArrayLiteral], f: &Func, out: &ArrayShape) -> FR<ArrayLiteral> {
    for (k, o) in ops.iter().enumerate() {
        if o.dims() != out.dims.as_slice() {
            return Err(format!(
                "map operand {k} has dimensions {:?}, result {}",
                o.dims(),
                ashape_str(out)
            )
            .into());
        }
    }
    let n = checked_count(&out.dims)?;
    let esz = out.ty.byte_size();
    let mut bytes = Vec::with_capacity(n * esz);
    for i in 0..n {
        let args: Vec<(ElementType, &[u8])> = ops
            .iter()
            .map(|o| {
                let s = o.ty().byte_size();
                (o.ty(), &o.bytes()[i * s..(i + 1) * s])
            })
            .collect();
        let r = f.apply_bytes(&args, 1, &[out.ty])?;
        bytes.extend_from_slice(&r[0]);
    }
    Ok(arr(out.ty, &out.dims, bytes)?)
}

/// `topk`: the `k` largest (or smallest) elements along the last dimension
/// and their s32 indices. Floats are ordered by IEEE total order (NaN above
/// +inf, -0 below +0); equal elements keep the lower index first.
pub(crate) fn top_k(x: &ArrayLiteral, k: i64, largest: bool) -> FR<(ArrayLiteral, ArrayLiteral)> {
    use std::cmp::Ordering;
    let dims = x.dims().to_vec();
    let Some(&n) = dims.last() else {
        return Err("topk needs an operand of rank >= 1".to_string().into());
    };
    if k < 0 || k > n {
        return Err(format!("topk: k={k} is out of range for a last dimension of {n}").into());
    }
    let (n, k) = (n as usize, k as usize);
    let rows = x.element_count().checked_div(n).unwrap_or(0);
    let vals = decode(x);
    let cmp = |a: usize, b: usize| -> Ordering {
        match &vals {
            Vals::S(v) => v[a].cmp(&v[b]),
            Vals::U(v) => v[a].cmp(&v[b]),
            Vals::F(v) => v[a].total_cmp(&v[b]),
            Vals::D(v) => v[a].total_cmp(&v[b]),
            // Refused by shape inference (complex numbers are not ordered).
            Vals::C(_) | Vals::Z(_) => Ordering::Equal,
        }
    };
    let sz = x.ty().byte_size();
    let mut out_vals = Vec::with_capacity(rows * k * sz);
    let mut out_idx: Vec<i32> = Vec::with_capacity(rows * k);
    for r in 0..rows {
        let mut perm: Vec<usize> = (r * n..(r + 1) * n).collect();
        // Stable: ties keep the lower index first.
        perm.sort_by(|&a, &b| if largest { cmp(b, a) } else { cmp(a, b) });
        for &p in &perm[..k] {
            out_vals.extend_from_slice(&x.bytes()[p * sz..(p + 1) * sz]);
            out_idx.push((p - r * n) as i32);
        }
    }
    let mut out_dims = dims;
    *out_dims.last_mut().expect("rank >= 1") = k as i64;
    let values = ArrayLiteral::from_bytes(
        hlox_hlo::ArrayShape::new(x.ty(), out_dims.clone()),
        out_vals,
    )?;
    let indices = ArrayLiteral::from_vec(&out_dims, &out_idx)?;
    Ok((values, indices))
}
