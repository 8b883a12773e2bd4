//! Windows (reduce-window, select-and-scatter, convolution): the output
//! size rule (XLA's `window_util`), used by shape inference and by every
//! engine, and the map from (output position, window position) to the base
//! position it reads, with padding and base-dilation holes.

use super::arith::{plain, IndexArith, Plain};
use crate::{Window, WindowDim};

/// Why a window does not apply to a base shape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    #[error("window size must be positive, got {0}")]
    Size(i64),
    #[error("window stride must be positive, got {0}")]
    Stride(i64),
    #[error("window dilation must be positive, got {0}")]
    WindowDilation(i64),
    #[error("base dilation must be positive, got {0}")]
    BaseDilation(i64),
    #[error("padding ({lo}, {hi}) makes the padded base size {padded} negative")]
    NegativePadded { lo: i64, hi: i64, padded: i128 },
    #[error("window output size overflows")]
    Overflow,
    #[error("window has {window} dimensions but the base has rank {rank}")]
    Rank { window: usize, rank: usize },
    #[error("window dimension {dim}: {source}")]
    Dim {
        dim: usize,
        #[source]
        source: Box<WindowError>,
    },
}

/// The size of one output dimension of window dimension `w` applied to a
/// base dimension of size `base`.
pub fn window_output_size(base: i64, w: &WindowDim) -> Result<i64, WindowError> {
    if w.size <= 0 {
        return Err(WindowError::Size(w.size));
    }
    if w.stride <= 0 {
        return Err(WindowError::Stride(w.stride));
    }
    if w.window_dilation <= 0 {
        return Err(WindowError::WindowDilation(w.window_dilation));
    }
    if w.base_dilation <= 0 {
        return Err(WindowError::BaseDilation(w.base_dilation));
    }
    let base = base as i128;
    let dilated_base = if base == 0 {
        0
    } else {
        (base - 1) * w.base_dilation as i128 + 1
    };
    let padded = dilated_base + w.pad_lo as i128 + w.pad_hi as i128;
    if padded < 0 {
        return Err(WindowError::NegativePadded {
            lo: w.pad_lo,
            hi: w.pad_hi,
            padded,
        });
    }
    let dilated_window = (w.size as i128 - 1) * w.window_dilation as i128 + 1;
    let out = if dilated_window > padded {
        0
    } else {
        (padded - dilated_window) / w.stride as i128 + 1
    };
    i64::try_from(out).map_err(|_| WindowError::Overflow)
}

/// The output dimensions of `window` over a base of dimensions `base`.
pub fn window_output_dims(base: &[i64], window: &Window) -> Result<Vec<i64>, WindowError> {
    if window.dims.len() != base.len() {
        return Err(WindowError::Rank {
            window: window.dims.len(),
            rank: base.len(),
        });
    }
    window
        .dims
        .iter()
        .zip(base)
        .enumerate()
        .map(|(dim, (w, &b))| {
            window_output_size(b, w).map_err(|e| WindowError::Dim {
                dim,
                source: Box::new(e),
            })
        })
        .collect()
}

/// The base position that window element `k` of output position `o` reads
/// along one dimension of size `base`, and whether it reads one (false for
/// padding and the holes of base dilation): `p = o * stride - pad_lo + k *
/// window_dilation`, a base element `p / base_dilation` where `p` is a
/// non-negative multiple of the base dilation inside the dilated base.
/// Written once over [`IndexArith`]: [`window_base_index`] runs it on
/// values, the CUDA emitter as instructions.
pub fn window_position<A: IndexArith>(
    a: &A,
    w: &WindowDim,
    base: i64,
    o: A::Int,
    k: A::Int,
) -> Result<(A::Int, A::Bool), A::Error> {
    let p = a.mul(o, a.int(w.stride))?;
    let p = a.sub(p, a.int(w.pad_lo))?;
    let p = a.add(p, a.mul(k, a.int(w.window_dilation))?)?;
    let mut valid = a.ge(p, a.int(0))?;
    let i = if w.base_dilation > 1 {
        let r = a.rem(p, a.int(w.base_dilation))?;
        valid = a.and(valid, a.eq(r, a.int(0))?)?;
        a.div(p, a.int(w.base_dilation))?
    } else {
        p
    };
    valid = a.and(valid, a.lt(i, a.int(base))?)?;
    Ok((i, valid))
}

/// [`window_position`] on values: the base index, or None for padding and
/// the holes of base dilation.
pub fn window_base_index(w: &WindowDim, base: i64, o: i64, k: i64) -> Option<i64> {
    let (i, valid) = plain(window_position(&Plain, w, base, o, k));
    valid.then_some(i)
}

/// The base positions of every window of a window over `base`, tabulated
/// per dimension so that walking a window costs a table lookup per
/// dimension (the Host runtime's and the evaluator's reduce-window and
/// select-and-scatter).
#[derive(Clone, Debug)]
pub struct WindowTable {
    /// The output dimensions.
    pub out_dims: Vec<usize>,
    /// Window size per dimension.
    pub sizes: Vec<usize>,
    /// `tab[d][o * sizes[d] + k]`: the base index, or -1.
    tab: Vec<Vec<i64>>,
}

impl WindowTable {
    /// The table of `window` over `base` (validated by
    /// [`window_output_dims`]).
    pub fn new(base: &[i64], window: &Window) -> Result<WindowTable, WindowError> {
        let out: Vec<i64> = window_output_dims(base, window)?;
        let mut tab = Vec::with_capacity(base.len());
        for (d, w) in window.dims.iter().enumerate() {
            let mut t = Vec::with_capacity((out[d] * w.size).max(0) as usize);
            for o in 0..out[d] {
                for k in 0..w.size {
                    t.push(window_base_index(w, base[d], o, k).unwrap_or(-1));
                }
            }
            tab.push(t);
        }
        Ok(WindowTable {
            out_dims: out.iter().map(|&d| d.max(0) as usize).collect(),
            sizes: window.dims.iter().map(|w| w.size.max(0) as usize).collect(),
            tab,
        })
    }

    /// Calls `f(base index)` for each window element of output position
    /// `o` that reads the base (not padding), in window row-major order.
    /// `k` and `base` are scratch of the rank's length.
    #[inline]
    pub fn for_each(
        &self,
        o: &[usize],
        k: &mut [usize],
        base: &mut [usize],
        mut f: impl FnMut(&[usize]),
    ) {
        let rank = o.len();
        if self.sizes.contains(&0) {
            return;
        }
        k.iter_mut().for_each(|k| *k = 0);
        loop {
            let mut valid = true;
            for d in 0..rank {
                let v = self.tab[d][o[d] * self.sizes[d] + k[d]];
                if v < 0 {
                    valid = false;
                    break;
                }
                base[d] = v as usize;
            }
            if valid {
                f(base);
            }
            let mut d = rank;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                k[d] += 1;
                if k[d] < self.sizes[d] {
                    break;
                }
                k[d] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_sizes() {
        let mut w = WindowDim::new(3);
        assert_eq!(window_output_size(10, &w), Ok(8));
        w.stride = 2;
        w.pad_lo = 1;
        w.pad_hi = 1;
        assert_eq!(window_output_size(10, &w), Ok(5));
        w.size = 0;
        assert_eq!(window_output_size(10, &w), Err(WindowError::Size(0)));
    }

    #[test]
    fn table_skips_padding_and_holes() {
        let mut w = WindowDim::new(3);
        w.pad_lo = 1;
        w.base_dilation = 2;
        let win = Window { dims: vec![w] };
        let t = WindowTable::new(&[3], &win).unwrap();
        // Dilated base: x . x . x (5), padded front: _ x . x . x -> 4 outputs.
        assert_eq!(t.out_dims, vec![4]);
        let mut seen = vec![];
        let (mut k, mut b) = ([0], [0]);
        for o in 0..4 {
            let mut s = vec![];
            t.for_each(&[o], &mut k, &mut b, |i| s.push(i[0]));
            seen.push(s);
        }
        assert_eq!(seen, vec![vec![0], vec![0, 1], vec![1], vec![1, 2]]);
        assert!(matches!(
            window_output_dims(&[3, 3], &win),
            Err(WindowError::Rank { .. })
        ));
    }
}
