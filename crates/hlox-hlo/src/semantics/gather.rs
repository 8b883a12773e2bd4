//! gather and scatter: the index maps XLA's dimension numbers describe,
//! resolved once per instruction into a [`GatherPlan`] / [`ScatterPlan`].
//!
//! The evaluator and the Host runtime walk the plans with their own
//! buffers (strides, layouts); the CUDA emitter generates the same map in
//! LLVM IR from the plan's dimension lists. Gather clamps start indices so
//! the slice fits; scatter skips an update window that does not fit whole.

use crate::{GatherDimensionNumbers, ScatterDimensionNumbers};

/// Why dimension numbers do not fit the shapes they are applied to.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DimensionNumbersError {
    #[error("index_vector_dim {dim} is out of range for indices of rank {rank}")]
    IndexVectorDim { dim: i64, rank: usize },
    #[error("{field} has {entries} entries, index vectors have {vector}")]
    IndexVectorLength {
        field: &'static str,
        entries: usize,
        vector: usize,
    },
    #[error("{field} {dims:?} are invalid for rank {rank}")]
    Dims {
        field: &'static str,
        dims: Vec<i64>,
        rank: usize,
    },
    #[error("slice_sizes has {entries} entries for an operand of rank {rank}")]
    SliceSizesLength { entries: usize, rank: usize },
    #[error("slice size {size} does not fit operand dimension {dim} of size {bound}")]
    SliceSize { size: i64, dim: usize, bound: i64 },
    #[error("collapsed/batching dimension {0} must have slice size <= 1")]
    CollapsedSliceSize(usize),
    #[error("{operand_field} and {index_field} differ in length")]
    BatchingLength {
        operand_field: &'static str,
        index_field: &'static str,
    },
    #[error("{field} entry {dim} is invalid")]
    BatchingDim { field: &'static str, dim: i64 },
    #[error(
        "{what} has {window} window dimensions but {operand} operand dimensions are not collapsed"
    )]
    WindowRank {
        what: &'static str,
        window: usize,
        operand: usize,
    },
    #[error("the {what} has {batch} batch dimensions, indices have {indices}")]
    BatchRank {
        what: &'static str,
        batch: usize,
        indices: usize,
    },
    #[error("{what} dimension {dim} (size {size}) does not match indices dimension {index_dim} (size {index_size})")]
    BatchSize {
        what: &'static str,
        dim: usize,
        size: i64,
        index_dim: usize,
        index_size: i64,
    },
    #[error("result dimension {dim} (size {size}) does not match slice size {slice} of operand dimension {operand_dim}")]
    OffsetSize {
        dim: usize,
        size: i64,
        slice: i64,
        operand_dim: usize,
    },
    #[error("update window dimension {update_dim} (size {size}) is larger than operand dimension {operand_dim} (size {bound})")]
    UpdateWindowSize {
        update_dim: usize,
        size: i64,
        operand_dim: usize,
        bound: i64,
    },
}

type R<T> = Result<T, DimensionNumbersError>;

/// `dims` as distinct dimensions below `rank`.
fn unique_dims(dims: &[i64], rank: usize, field: &'static str) -> R<Vec<usize>> {
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        if d < 0 || d as usize >= rank || seen[d as usize] {
            return Err(DimensionNumbersError::Dims {
                field,
                dims: dims.to_vec(),
                rank,
            });
        }
        seen[d as usize] = true;
        out.push(d as usize);
    }
    Ok(out)
}

/// The dimensions of `0..rank` not in `skip`, in order.
fn complement(rank: usize, skip: &[usize]) -> Vec<usize> {
    (0..rank).filter(|d| !skip.contains(d)).collect()
}

/// The index-vector dimension (None: the implicit trailing dimension of
/// size 1) and the index array's batch dimensions.
fn index_vector(ivd: i64, index_dims: &[i64]) -> R<(Option<usize>, Vec<usize>, usize)> {
    let rank = index_dims.len();
    if ivd < 0 || ivd as usize > rank {
        return Err(DimensionNumbersError::IndexVectorDim { dim: ivd, rank });
    }
    let ivd = ivd as usize;
    let batch = (0..rank).filter(|&d| d != ivd).collect();
    Ok(if ivd == rank {
        (None, batch, 1)
    } else {
        (Some(ivd), batch, index_dims[ivd].max(0) as usize)
    })
}

/// (operand dimension, position among the index batch dimensions) of each
/// operand batching dimension.
fn batching(
    operand_dims: &[usize],
    index_dims: &[i64],
    index_batch_dims: &[usize],
    ivd: Option<usize>,
    fields: (&'static str, &'static str),
) -> R<Vec<(usize, usize)>> {
    if operand_dims.len() != index_dims.len() {
        return Err(DimensionNumbersError::BatchingLength {
            operand_field: fields.0,
            index_field: fields.1,
        });
    }
    operand_dims
        .iter()
        .zip(index_dims)
        .map(|(&od, &sd)| {
            index_batch_dims
                .iter()
                .position(|&d| sd >= 0 && d == sd as usize && Some(d) != ivd)
                .map(|pos| (od, pos))
                .ok_or(DimensionNumbersError::BatchingDim {
                    field: fields.1,
                    dim: sd,
                })
        })
        .collect()
}

/// Offsets into an index array (element strides `strides`) of the index
/// vector at batch position `batch`: (first component, step between
/// components).
#[inline]
fn vector_offsets(
    ivd: Option<usize>,
    index_batch_dims: &[usize],
    batch: &[usize],
    strides: &[usize],
) -> (usize, usize) {
    let base = batch
        .iter()
        .zip(index_batch_dims)
        .map(|(&b, &d)| b * strides[d])
        .sum();
    (base, ivd.map_or(0, |d| strides[d]))
}

/// The dimension numbers gather and scatter share, under each op's own
/// field names: XLA's two ops address the operand the same way, so one
/// resolver ([`IndexSpace::resolve`]) serves both. The "target" is the
/// gather's result or the scatter's updates.
struct IndexFields<'a> {
    index_vector_dim: i64,
    /// (field, dims): the operand dimension of each index-vector component.
    index_map: (&'static str, &'a [i64]),
    /// Operand dimensions the window drops (collapsed / inserted).
    collapsed: &'a [i64],
    /// How errors name `collapsed` and `operand_batching` together.
    elided_name: &'static str,
    /// (field, dims): the operand's and the indices' batching dimensions.
    operand_batching: (&'static str, &'a [i64]),
    indices_batching: (&'static str, &'a [i64]),
    /// (field, dims): the target dimensions that walk the window.
    window: (&'static str, &'a [i64]),
    /// How errors name the target ("result", "updates").
    target: &'static str,
}

/// [`IndexFields`] checked against the shapes and resolved.
struct IndexSpace {
    index_vector_dim: Option<usize>,
    index_batch_dims: Vec<usize>,
    index_map: Vec<usize>,
    /// Operand dimensions the window drops, collapsed ones first.
    elided: Vec<usize>,
    /// Operand dimensions the window walks, and the target dimension of each.
    window_operand_dims: Vec<usize>,
    window_dims: Vec<usize>,
    /// Target dimensions that walk the index batch (one per `index_batch_dims`).
    batch_dims: Vec<usize>,
    /// (operand batching dimension, position in `batch_dims`).
    operand_batching: Vec<(usize, usize)>,
}

impl IndexSpace {
    fn resolve(
        f: &IndexFields,
        operand_dims: &[i64],
        index_dims: &[i64],
        target_dims: &[i64],
    ) -> R<IndexSpace> {
        use DimensionNumbersError as E;
        let orank = operand_dims.len();
        let (ivd, index_batch_dims, vec_len) = index_vector(f.index_vector_dim, index_dims)?;
        let (map_field, map) = f.index_map;
        if map.len() != vec_len {
            return Err(E::IndexVectorLength {
                field: map_field,
                entries: map.len(),
                vector: vec_len,
            });
        }
        let index_map = unique_dims(map, orank, map_field)?;
        let mut elided = f.collapsed.to_vec();
        elided.extend(f.operand_batching.1);
        let elided = unique_dims(&elided, orank, f.elided_name)?;
        let window_operand_dims = complement(orank, &elided);
        let window_dims = unique_dims(f.window.1, target_dims.len(), f.window.0)?;
        if window_dims.len() != window_operand_dims.len() {
            return Err(E::WindowRank {
                what: f.window.0,
                window: window_dims.len(),
                operand: window_operand_dims.len(),
            });
        }
        let batch_dims = complement(target_dims.len(), &window_dims);
        if batch_dims.len() != index_batch_dims.len() {
            return Err(E::BatchRank {
                what: f.target,
                batch: batch_dims.len(),
                indices: index_batch_dims.len(),
            });
        }
        for (&td, &id) in batch_dims.iter().zip(&index_batch_dims) {
            if target_dims[td] != index_dims[id] {
                return Err(E::BatchSize {
                    what: f.target,
                    dim: td,
                    size: target_dims[td],
                    index_dim: id,
                    index_size: index_dims[id],
                });
            }
        }
        let operand_batching = batching(
            &unique_dims(f.operand_batching.1, orank, f.operand_batching.0)?,
            f.indices_batching.1,
            &index_batch_dims,
            ivd,
            (f.operand_batching.0, f.indices_batching.0),
        )?;
        Ok(IndexSpace {
            index_vector_dim: ivd,
            index_batch_dims,
            index_map,
            elided,
            window_operand_dims,
            window_dims,
            batch_dims,
            operand_batching,
        })
    }
}

/// A gather's index map. Output position `o` splits into its batch
/// position (`o[batch_out_dims[k]]`, which is index-array batch position
/// `index_batch_dims[k]`) and its offset in the slice (`o[offset_dims[k]]`
/// along operand dimension `window_operand_dims[k]`); the slice starts at
/// [`GatherPlan::start`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatherPlan {
    pub operand_dims: Vec<i64>,
    pub out_dims: Vec<i64>,
    /// The index array's dimension holding index vectors (None: implicit).
    pub index_vector_dim: Option<usize>,
    /// Operand dimension of each index-vector component.
    pub start_index_map: Vec<usize>,
    pub slice_sizes: Vec<i64>,
    /// Output dimensions that walk the slice, and the operand dimension of each.
    pub offset_dims: Vec<usize>,
    pub window_operand_dims: Vec<usize>,
    /// Output dimensions that walk the index batch, and the index-array dimension of each.
    pub batch_out_dims: Vec<usize>,
    pub index_batch_dims: Vec<usize>,
    /// (operand batching dimension, position in `batch_out_dims`): the
    /// start along it is the batch index.
    pub operand_batching: Vec<(usize, usize)>,
}

impl GatherPlan {
    /// Checks `dn` and `slice_sizes` against the shapes (operand, indices,
    /// result) and resolves the map.
    pub fn new(
        dn: &GatherDimensionNumbers,
        slice_sizes: &[i64],
        operand_dims: &[i64],
        index_dims: &[i64],
        out_dims: &[i64],
    ) -> R<GatherPlan> {
        use DimensionNumbersError as E;
        let orank = operand_dims.len();
        if slice_sizes.len() != orank {
            return Err(E::SliceSizesLength {
                entries: slice_sizes.len(),
                rank: orank,
            });
        }
        for (d, &s) in slice_sizes.iter().enumerate() {
            if s < 0 || s > operand_dims[d] {
                return Err(E::SliceSize {
                    size: s,
                    dim: d,
                    bound: operand_dims[d],
                });
            }
        }
        let fields = IndexFields {
            index_vector_dim: dn.index_vector_dim,
            index_map: ("start_index_map", &dn.start_index_map),
            collapsed: &dn.collapsed_slice_dims,
            elided_name: "collapsed_slice_dims + operand_batching_dims",
            operand_batching: ("operand_batching_dims", &dn.operand_batching_dims),
            indices_batching: (
                "start_indices_batching_dims",
                &dn.start_indices_batching_dims,
            ),
            window: ("offset_dims", &dn.offset_dims),
            target: "result",
        };
        let space = IndexSpace::resolve(&fields, operand_dims, index_dims, out_dims)?;
        if let Some(&d) = space.elided.iter().find(|&&d| slice_sizes[d] > 1) {
            return Err(E::CollapsedSliceSize(d));
        }
        for (&od, &wd) in space.window_dims.iter().zip(&space.window_operand_dims) {
            if out_dims[od] != slice_sizes[wd] {
                return Err(E::OffsetSize {
                    dim: od,
                    size: out_dims[od],
                    slice: slice_sizes[wd],
                    operand_dim: wd,
                });
            }
        }
        Ok(GatherPlan {
            operand_dims: operand_dims.to_vec(),
            out_dims: out_dims.to_vec(),
            index_vector_dim: space.index_vector_dim,
            start_index_map: space.index_map,
            slice_sizes: slice_sizes.to_vec(),
            offset_dims: space.window_dims,
            window_operand_dims: space.window_operand_dims,
            batch_out_dims: space.batch_dims,
            index_batch_dims: space.index_batch_dims,
            operand_batching: space.operand_batching,
        })
    }

    /// The largest start along operand dimension `d` (starts clamp into
    /// `0..=max_start(d)` so that the slice fits).
    #[inline]
    pub fn max_start(&self, d: usize) -> i64 {
        (self.operand_dims[d] - self.slice_sizes[d]).max(0)
    }

    /// Offsets into an index array with element strides `strides` of the
    /// index vector at batch position `batch`: (first component, step).
    #[inline]
    pub fn vector_offsets(&self, batch: &[usize], strides: &[usize]) -> (usize, usize) {
        vector_offsets(
            self.index_vector_dim,
            &self.index_batch_dims,
            batch,
            strides,
        )
    }

    /// The slice start in the operand at batch position `batch` (one index
    /// per `batch_out_dims` entry); `component(k)` reads component `k` of
    /// that batch position's index vector.
    #[inline]
    pub fn start(
        &self,
        batch: &[usize],
        mut component: impl FnMut(usize) -> i64,
        start: &mut [i64],
    ) {
        start.iter_mut().for_each(|s| *s = 0);
        for (k, &od) in self.start_index_map.iter().enumerate() {
            start[od] = component(k).clamp(0, self.max_start(od));
        }
        for &(od, pos) in &self.operand_batching {
            start[od] = batch[pos] as i64;
        }
    }
}

/// A scatter's index map. Update position `u` splits into its scatter
/// position (`u[update_scatter_dims[k]]`, index-array batch dimension
/// `index_batch_dims[k]`) and its window position (`u[update_window_dims[k]]`
/// along operand dimension `window_operand_dims[k]`); the window starts at
/// [`ScatterPlan::start`], and is skipped unless it fits whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScatterPlan {
    pub operand_dims: Vec<i64>,
    pub update_dims: Vec<i64>,
    pub index_vector_dim: Option<usize>,
    /// Operand dimension of each index-vector component.
    pub scatter_dims_to_operand_dims: Vec<usize>,
    /// Update dimensions that walk the window, and the operand dimension of each.
    pub update_window_dims: Vec<usize>,
    pub window_operand_dims: Vec<usize>,
    /// Update dimensions that walk the index batch, and the index-array dimension of each.
    pub update_scatter_dims: Vec<usize>,
    pub index_batch_dims: Vec<usize>,
    /// (operand batching dimension, position in `update_scatter_dims`).
    pub input_batching: Vec<(usize, usize)>,
    /// The window's size along every operand dimension (1 where inserted).
    pub window_sizes: Vec<i64>,
}

impl ScatterPlan {
    /// Checks `dn` against the shapes (operands, indices, updates) and
    /// resolves the map.
    pub fn new(
        dn: &ScatterDimensionNumbers,
        operand_dims: &[i64],
        index_dims: &[i64],
        update_dims: &[i64],
    ) -> R<ScatterPlan> {
        let fields = IndexFields {
            index_vector_dim: dn.index_vector_dim,
            index_map: (
                "scatter_dims_to_operand_dims",
                &dn.scatter_dims_to_operand_dims,
            ),
            collapsed: &dn.inserted_window_dims,
            elided_name: "inserted_window_dims + input_batching_dims",
            operand_batching: ("input_batching_dims", &dn.input_batching_dims),
            indices_batching: (
                "scatter_indices_batching_dims",
                &dn.scatter_indices_batching_dims,
            ),
            window: ("update_window_dims", &dn.update_window_dims),
            target: "updates",
        };
        let space = IndexSpace::resolve(&fields, operand_dims, index_dims, update_dims)?;
        let mut window_sizes = vec![1i64; operand_dims.len()];
        for (&ud, &od) in space.window_dims.iter().zip(&space.window_operand_dims) {
            window_sizes[od] = update_dims[ud];
            if update_dims[ud] > operand_dims[od] {
                return Err(DimensionNumbersError::UpdateWindowSize {
                    update_dim: ud,
                    size: update_dims[ud],
                    operand_dim: od,
                    bound: operand_dims[od],
                });
            }
        }
        Ok(ScatterPlan {
            operand_dims: operand_dims.to_vec(),
            update_dims: update_dims.to_vec(),
            index_vector_dim: space.index_vector_dim,
            scatter_dims_to_operand_dims: space.index_map,
            update_window_dims: space.window_dims,
            window_operand_dims: space.window_operand_dims,
            update_scatter_dims: space.batch_dims,
            index_batch_dims: space.index_batch_dims,
            input_batching: space.operand_batching,
            window_sizes,
        })
    }

    /// The sizes of the scatter (batch) dimensions of the updates.
    pub fn scatter_sizes(&self) -> Vec<i64> {
        self.update_scatter_dims
            .iter()
            .map(|&d| self.update_dims[d])
            .collect()
    }

    /// The sizes of the window dimensions of the updates.
    pub fn window_extent(&self) -> Vec<i64> {
        self.update_window_dims
            .iter()
            .map(|&d| self.update_dims[d])
            .collect()
    }

    /// Offsets into an index array with element strides `strides` of the
    /// index vector at scatter position `scatter`: (first component, step).
    #[inline]
    pub fn vector_offsets(&self, scatter: &[usize], strides: &[usize]) -> (usize, usize) {
        vector_offsets(
            self.index_vector_dim,
            &self.index_batch_dims,
            scatter,
            strides,
        )
    }

    /// The window start in the operand at scatter position `scatter` (one
    /// index per `update_scatter_dims` entry; `component(k)` reads
    /// component `k` of its index vector), and whether the window fits.
    #[inline]
    pub fn start(
        &self,
        scatter: &[usize],
        mut component: impl FnMut(usize) -> i64,
        start: &mut [i64],
    ) -> bool {
        start.iter_mut().for_each(|s| *s = 0);
        for (k, &od) in self.scatter_dims_to_operand_dims.iter().enumerate() {
            start[od] = component(k);
        }
        for &(od, pos) in &self.input_batching {
            start[od] = scatter[pos] as i64;
        }
        self.fits(start)
    }

    /// Whether the window starting at `start` lies inside the operand.
    #[inline]
    pub fn fits(&self, start: &[i64]) -> bool {
        start
            .iter()
            .zip(&self.operand_dims)
            .zip(&self.window_sizes)
            .all(|((&s, &n), &w)| s >= 0 && s <= n - w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_rows_with_clamping() {
        // operand f32[5,3], indices s32[2] (rows 1 and 9), slices of one row.
        let mut dn = GatherDimensionNumbers::default();
        (dn.offset_dims, dn.collapsed_slice_dims) = (vec![1], vec![0]);
        (dn.start_index_map, dn.index_vector_dim) = (vec![0], 1);
        let p = GatherPlan::new(&dn, &[1, 3], &[5, 3], &[2], &[2, 3]).unwrap();
        assert_eq!(p.index_vector_dim, None);
        assert_eq!(p.window_operand_dims, vec![1]);
        assert_eq!(p.batch_out_dims, vec![0]);
        let mut s = [0i64; 2];
        p.start(&[1], |_| 9, &mut s);
        assert_eq!(s, [4, 0]);
        assert_eq!(p.vector_offsets(&[1], &[1]), (1, 0));
        let bad = GatherDimensionNumbers {
            index_vector_dim: 5,
            ..dn
        };
        let e = GatherPlan::new(&bad, &[1, 3], &[5, 3], &[2], &[2, 3]).unwrap_err();
        assert!(e.to_string().contains("index_vector_dim"), "{e}");
    }

    #[test]
    fn scatter_skips_windows_that_do_not_fit() {
        // operand [4,4], indices s32[2,2] (vector dim 1), updates [2,2,2].
        let dn = ScatterDimensionNumbers {
            update_window_dims: vec![1, 2],
            scatter_dims_to_operand_dims: vec![0, 1],
            index_vector_dim: 1,
            ..Default::default()
        };
        let p = ScatterPlan::new(&dn, &[4, 4], &[2, 2], &[2, 2, 2]).unwrap();
        assert_eq!(p.window_sizes, vec![2, 2]);
        assert_eq!(p.scatter_sizes(), vec![2]);
        let mut s = [0i64; 2];
        assert!(p.start(&[0], |k| [2, 2][k], &mut s));
        assert!(!p.start(&[1], |k| [3, 0][k], &mut s));
        assert_eq!(p.vector_offsets(&[1], &[2, 1]), (2, 1));
        assert!(matches!(
            ScatterPlan::new(&dn, &[4, 4], &[2, 2], &[3, 2, 2]),
            Err(DimensionNumbersError::BatchSize { .. })
        ));
    }
}
