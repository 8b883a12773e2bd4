//! Data-movement operations: they copy element bytes and never look at values
//! (except index operands).

use crate::value::{
    arr, ashape_str, checked_count, elem_count, encode, row_major_strides, scalar_index,
    strided_copy, Vals, R,
};
use hlox_hlo::{ArrayLiteral, ArrayShape, Layout, PadDim, SliceDim};

fn check_rank(what: &str, n: usize, rank: usize) -> R<()> {
    if n != rank {
        return Err(format!("{what} has {n} entries but the operand has rank {rank}").into());
    }
    Ok(())
}

fn check_dim(d: i64, rank: usize, what: &str) -> R<usize> {
    if d < 0 || d as usize >= rank {
        return Err(format!("{what} {d} is out of range for rank {rank}").into());
    }
    Ok(d as usize)
}

pub(crate) fn iota(out: &ArrayShape, dimension: i64) -> R<ArrayLiteral> {
    let d = check_dim(dimension, out.rank(), "iota dimension")?;
    let n = checked_count(&out.dims)?;
    let strides = row_major_strides(&out.dims);
    let size = out.dims[d].max(1) as usize;
    let v: Vec<i64> = (0..n).map(|i| ((i / strides[d]) % size) as i64).collect();
    Ok(encode(&Vals::S(v), out.ty, &out.dims))
}

pub(crate) fn broadcast(a: &ArrayLiteral, out: &ArrayShape, dims: &[i64]) -> R<ArrayLiteral> {
    check_rank("broadcast dimensions", dims.len(), a.shape().rank())?;
    if a.ty() != out.ty {
        return Err(format!("broadcast changes element type {} to {}", a.ty(), out.ty).into());
    }
    let src_strides = row_major_strides(a.dims());
    let mut strides = vec![0i64; out.rank()];
    for (i, &d) in dims.iter().enumerate() {
        let od = check_dim(d, out.rank(), "broadcast dimension")?;
        if a.dims()[i] != out.dims[od] && a.dims()[i] != 1 {
            return Err(format!(
                "operand dimension {i} (size {}) does not match result dimension {od} (size {})",
                a.dims()[i],
                out.dims[od]
            )
            .into());
        }
        if a.dims()[i] != 1 {
            strides[od] = src_strides[i] as i64;
        }
    }
    checked_count(&out.dims)?;
    if a.element_count() == 0 {
        return arr(out.ty, &out.dims, vec![0; out.byte_size()]);
    }
    arr(
        out.ty,
        &out.dims,
        strided_copy(a.bytes(), a.ty().byte_size(), &out.dims, 0, &strides),
    )
}

/// `a`'s bytes unchanged as an array of shape `out` when `fits`, else the
/// error "cannot OP A to OUT": reshape and bitcast-convert move no data.
fn same_bytes(a: &ArrayLiteral, out: &ArrayShape, fits: bool, op: &str) -> R<ArrayLiteral> {
    if !fits {
        let (from, to) = (ashape_str(a.shape()), ashape_str(out));
        return Err(format!("cannot {op} {from} to {to}").into());
    }
    arr(out.ty, &out.dims, a.bytes().to_vec())
}

/// The dimensions an op computed from its operand `a` are the declared
/// result's.
fn check_result_dims(op: &str, a: &ArrayLiteral, dims: &[i64], out: &ArrayShape) -> R<()> {
    if dims != out.dims.as_slice() {
        let (from, to) = (ashape_str(a.shape()), ashape_str(out));
        return Err(format!("{op} of {from} gives dimensions {dims:?}, not {to}").into());
    }
    Ok(())
}

pub(crate) fn reshape(a: &ArrayLiteral, out: &ArrayShape) -> R<ArrayLiteral> {
    let fits = a.ty() == out.ty && checked_count(&out.dims)? == a.element_count();
    same_bytes(a, out, fits, "reshape")
}

pub(crate) fn transpose(a: &ArrayLiteral, out: &ArrayShape, perm: &[i64]) -> R<ArrayLiteral> {
    let rank = a.shape().rank();
    check_rank("transpose dimensions", perm.len(), rank)?;
    let mut seen = vec![false; rank];
    let src = row_major_strides(a.dims());
    let mut strides = Vec::with_capacity(rank);
    for (i, &p) in perm.iter().enumerate() {
        let p = check_dim(p, rank, "transpose dimension")?;
        if seen[p] {
            return Err(format!("transpose dimensions {perm:?} are not a permutation").into());
        }
        seen[p] = true;
        if out.dims.get(i) != Some(&a.dims()[p]) {
            return Err(format!(
                "result {} does not match transposed operand {}",
                ashape_str(out),
                ashape_str(a.shape())
            )
            .into());
        }
        strides.push(src[p] as i64);
    }
    arr(
        out.ty,
        &out.dims,
        strided_copy(a.bytes(), a.ty().byte_size(), &out.dims, 0, &strides),
    )
}

pub(crate) fn reverse(a: &ArrayLiteral, dims: &[i64]) -> R<ArrayLiteral> {
    let rank = a.shape().rank();
    let src = row_major_strides(a.dims());
    let mut strides: Vec<i64> = src.iter().map(|&s| s as i64).collect();
    let mut base = 0i64;
    let mut rev = vec![false; rank];
    for &d in dims {
        rev[check_dim(d, rank, "reverse dimension")?] = true;
    }
    for d in 0..rank {
        if rev[d] && a.dims()[d] > 0 {
            base += (a.dims()[d] - 1) * strides[d];
            strides[d] = -strides[d];
        }
    }
    if a.element_count() == 0 {
        return Ok(a.clone());
    }
    arr(
        a.ty(),
        a.dims(),
        strided_copy(a.bytes(), a.ty().byte_size(), a.dims(), base, &strides),
    )
}

pub(crate) fn slice(a: &ArrayLiteral, out: &ArrayShape, sl: &[SliceDim]) -> R<ArrayLiteral> {
    let rank = a.shape().rank();
    check_rank(hlox_hlo::Opcode::Slice.name(), sl.len(), rank)?;
    let src = row_major_strides(a.dims());
    let mut base = 0i64;
    let mut strides = Vec::with_capacity(rank);
    let mut dims = Vec::with_capacity(rank);
    for (d, s) in sl.iter().enumerate() {
        if s.stride <= 0 || s.start < 0 || s.limit < s.start || s.limit > a.dims()[d] {
            return Err(format!(
                "slice [{}:{}:{}] is invalid for dimension {d} of size {}",
                s.start,
                s.limit,
                s.stride,
                a.dims()[d]
            )
            .into());
        }
        dims.push((s.limit - s.start + s.stride - 1) / s.stride);
        base += s.start * src[d] as i64;
        strides.push(s.stride * src[d] as i64);
    }
    check_result_dims("slice", a, &dims, out)?;
    arr(
        out.ty,
        &out.dims,
        strided_copy(a.bytes(), a.ty().byte_size(), &dims, base, &strides),
    )
}

/// Start indices clamped so that the window of `sizes` fits in `dims`.
fn clamped_starts(idx: &[&ArrayLiteral], dims: &[i64], sizes: &[i64]) -> R<Vec<i64>> {
    check_rank("start indices", idx.len(), dims.len())?;
    let mut starts = Vec::with_capacity(dims.len());
    for (d, i) in idx.iter().enumerate() {
        if sizes[d] < 0 || sizes[d] > dims[d] {
            return Err(format!(
                "size {} does not fit dimension {d} of size {}",
                sizes[d], dims[d]
            )
            .into());
        }
        let s = scalar_index(i)?;
        starts.push(s.clamp(0, dims[d] - sizes[d]));
    }
    Ok(starts)
}

pub(crate) fn dynamic_slice(
    a: &ArrayLiteral,
    idx: &[&ArrayLiteral],
    sizes: &[i64],
    out: &ArrayShape,
) -> R<ArrayLiteral> {
    check_rank("dynamic_slice_sizes", sizes.len(), a.shape().rank())?;
    if sizes != out.dims.as_slice() {
        return Err(format!(
            "dynamic_slice_sizes {sizes:?} differ from result {}",
            ashape_str(out)
        )
        .into());
    }
    let starts = clamped_starts(idx, a.dims(), sizes)?;
    let src = row_major_strides(a.dims());
    let base: i64 = starts.iter().zip(&src).map(|(&s, &st)| s * st as i64).sum();
    let strides: Vec<i64> = src.iter().map(|&s| s as i64).collect();
    arr(
        out.ty,
        &out.dims,
        strided_copy(a.bytes(), a.ty().byte_size(), sizes, base, &strides),
    )
}

pub(crate) fn dynamic_update_slice(
    a: &ArrayLiteral,
    upd: &ArrayLiteral,
    idx: &[&ArrayLiteral],
) -> R<ArrayLiteral> {
    if a.ty() != upd.ty() || a.shape().rank() != upd.shape().rank() {
        return Err(format!(
            "update {} does not match operand {}",
            ashape_str(upd.shape()),
            ashape_str(a.shape())
        )
        .into());
    }
    let starts = clamped_starts(idx, a.dims(), upd.dims())?;
    let esz = a.ty().byte_size();
    let dst_strides = row_major_strides(a.dims());
    let mut out = a.bytes().to_vec();
    let ub = upd.bytes();
    let mut i = 0usize;
    crate::value::for_each_index(upd.dims(), |u| {
        let off: usize = u
            .iter()
            .zip(&starts)
            .zip(&dst_strides)
            .map(|((&u, &s), &st)| (u + s) as usize * st)
            .sum();
        out[off * esz..(off + 1) * esz].copy_from_slice(&ub[i * esz..(i + 1) * esz]);
        i += 1;
    });
    arr(a.ty(), a.dims(), out)
}

pub(crate) fn concatenate(ops: &[&ArrayLiteral], dim: i64, out: &ArrayShape) -> R<ArrayLiteral> {
    let rank = out.rank();
    let d = check_dim(dim, rank, "concatenate dimension")?;
    let mut total = 0;
    for o in ops {
        if o.ty() != out.ty || o.shape().rank() != rank {
            return Err(format!(
                "operand {} cannot be concatenated into {}",
                ashape_str(o.shape()),
                ashape_str(out)
            )
            .into());
        }
        for k in 0..rank {
            if k != d && o.dims()[k] != out.dims[k] {
                return Err(format!(
                    "operand {} does not match result {} outside dimension {d}",
                    ashape_str(o.shape()),
                    ashape_str(out)
                )
                .into());
            }
        }
        total += o.dims()[d];
    }
    if total != out.dims[d] {
        return Err(format!(
            "operands sum to {total} along dimension {d}, result has {}",
            out.dims[d]
        )
        .into());
    }
    let esz = out.ty.byte_size();
    // outer = product of dims before d; each operand contributes a contiguous chunk per outer index.
    let outer: usize = out.dims[..d].iter().map(|&x| x as usize).product();
    let inner: usize = out.dims[d + 1..].iter().map(|&x| x as usize).product();
    let mut bytes = Vec::with_capacity(out.byte_size());
    for o_i in 0..outer {
        for o in ops {
            let chunk = o.dims()[d] as usize * inner * esz;
            bytes.extend_from_slice(&o.bytes()[o_i * chunk..(o_i + 1) * chunk]);
        }
    }
    arr(out.ty, &out.dims, bytes)
}

pub(crate) fn pad(
    a: &ArrayLiteral,
    pv: &ArrayLiteral,
    pads: &[PadDim],
    out: &ArrayShape,
) -> R<ArrayLiteral> {
    let rank = a.shape().rank();
    check_rank("padding", pads.len(), rank)?;
    if pv.ty() != a.ty() || pv.element_count() != 1 {
        return Err(format!("padding value must be a {} scalar", a.ty()).into());
    }
    let mut dims = Vec::with_capacity(rank);
    for (d, p) in pads.iter().enumerate() {
        if p.interior < 0 {
            return Err(
                format!("negative interior padding {} in dimension {d}", p.interior).into(),
            );
        }
        let n = a.dims()[d];
        let size = p.lo + p.hi + n + (n - 1).max(0) * p.interior;
        if size < 0 {
            return Err(format!("padding makes dimension {d} negative ({size})").into());
        }
        dims.push(size);
    }
    check_result_dims("pad", a, &dims, out)?;
    let esz = a.ty().byte_size();
    let n_out = checked_count(&dims)?;
    let mut bytes = Vec::with_capacity(n_out * esz);
    for _ in 0..n_out {
        bytes.extend_from_slice(pv.bytes());
    }
    let out_strides = row_major_strides(&dims);
    let mut i = 0usize;
    crate::value::for_each_index(a.dims(), |idx| {
        let mut off = 0usize;
        let mut inside = true;
        for d in 0..rank {
            let o = pads[d].lo + idx[d] * (pads[d].interior + 1);
            if o < 0 || o >= dims[d] {
                inside = false;
                break;
            }
            off += o as usize * out_strides[d];
        }
        if inside {
            bytes[off * esz..(off + 1) * esz].copy_from_slice(&a.bytes()[i * esz..(i + 1) * esz]);
        }
        i += 1;
    });
    arr(out.ty, &out.dims, bytes)
}

/// bitcast: reinterpret the operand's physical bytes (in `in_layout`) as `out` (in its layout).
pub(crate) fn bitcast(a: &ArrayLiteral, in_layout: &Layout, out: &ArrayShape) -> R<ArrayLiteral> {
    if checked_count(&out.dims)? * out.ty.byte_size() != a.bytes().len() {
        return Err(format!(
            "bitcast from {} to {} changes the byte size",
            ashape_str(a.shape()),
            ashape_str(out)
        )
        .into());
    }
    if !out.layout.is_valid_for_rank(out.rank()) {
        return Err(format!("result layout {:?} is invalid", out.layout.minor_to_major).into());
    }
    let physical = if in_layout.is_valid_for_rank(a.shape().rank()) {
        a.relayout(in_layout.clone())
    } else {
        a.clone()
    };
    let lit = ArrayLiteral::from_bytes(out.clone(), physical.into_bytes())?;
    Ok(lit.relayout(Layout::default_for_rank(out.rank())))
}

/// bitcast-convert: same bytes, new element type; with different widths
/// the last dimension splits or merges.
pub(crate) fn bitcast_convert(a: &ArrayLiteral, out: &ArrayShape) -> R<ArrayLiteral> {
    let (ib, ob) = (a.ty().byte_size(), out.ty.byte_size());
    let ok = if ib == ob {
        a.dims() == out.dims.as_slice()
    } else if ib > ob {
        out.rank() == a.shape().rank() + 1
            && out.dims[..a.shape().rank()] == *a.dims()
            && out.dims.last() == Some(&((ib / ob) as i64))
    } else {
        a.shape().rank() == out.rank() + 1
            && a.dims()[..out.rank()] == *out.dims.as_slice()
            && a.dims().last() == Some(&((ob / ib) as i64))
    };
    let fits = ok && elem_count(&out.dims) * ob == a.bytes().len();
    same_bytes(a, out, fits, "bitcast-convert")
}
