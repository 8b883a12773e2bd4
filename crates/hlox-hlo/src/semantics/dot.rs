//! Dot's dimensions by role, derived from its dimension numbers once for
//! every engine (the evaluator, the Host runtime's gemm, the CUDA emitter).

use crate::ir::DotDimensionNumbers;

/// One dot operand's dimensions by role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandDims {
    pub batch: Vec<usize>,
    pub contracting: Vec<usize>,
    /// The rest, in order.
    pub free: Vec<usize>,
}

impl OperandDims {
    fn new(rank: usize, batch: &[i64], contracting: &[i64]) -> OperandDims {
        let dims = |v: &[i64]| v.iter().map(|&d| d as usize).collect::<Vec<_>>();
        let (batch, contracting) = (dims(batch), dims(contracting));
        let free = (0..rank)
            .filter(|d| !batch.contains(d) && !contracting.contains(d))
            .collect();
        OperandDims {
            batch,
            contracting,
            free,
        }
    }
}

/// A dot's operand dimensions by role. The result's dimensions are the
/// batch ones, then the lhs free ones, then the rhs free ones. The
/// dimension numbers are taken as given: the verifier checks them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotDims {
    pub lhs: OperandDims,
    pub rhs: OperandDims,
}

impl DotDims {
    /// The roles of `dn` for operands of rank `lhs_rank` and `rhs_rank`.
    pub fn new(dn: &DotDimensionNumbers, lhs_rank: usize, rhs_rank: usize) -> DotDims {
        DotDims {
            lhs: OperandDims::new(lhs_rank, &dn.lhs_batch_dims, &dn.lhs_contracting_dims),
            rhs: OperandDims::new(rhs_rank, &dn.rhs_batch_dims, &dn.rhs_contracting_dims),
        }
    }

    /// The rank of the result.
    pub fn result_rank(&self) -> usize {
        self.lhs.batch.len() + self.lhs.free.len() + self.rhs.free.len()
    }

    /// The lhs dimensions in gemm order: batch, free, contracting.
    pub fn lhs_order(&self) -> Vec<usize> {
        let l = &self.lhs;
        [&l.batch[..], &l.free, &l.contracting].concat()
    }

    /// The rhs dimensions in gemm order: batch, contracting, free.
    pub fn rhs_order(&self) -> Vec<usize> {
        let r = &self.rhs;
        [&r.batch[..], &r.contracting, &r.free].concat()
    }
}

/// The stride of a group of dimensions (`group`, outer to inner) of an
/// array with these `sizes` and `strides` (in elements), when the group is
/// one strided run in memory as a whole (each dimension's stride is the
/// next inner one's times that one's size; dimensions of size 1 do not
/// count): how a product engine reads the group as one dimension. `None`
/// when it is not one run (the operand must be packed first).
pub fn group_stride(sizes: &[usize], strides: &[usize], group: &[usize]) -> Option<isize> {
    let mut inner: Option<(usize, usize)> = None; // (size, stride) of the inner run so far
    for &d in group.iter().rev() {
        let (sz, st) = (*sizes.get(d)?, *strides.get(d)?);
        if sz == 1 {
            continue;
        }
        match inner {
            None => inner = Some((sz, st)),
            Some((isz, ist)) => {
                if st != ist * isz {
                    return None;
                }
                inner = Some((sz * isz, ist));
            }
        }
    }
    Some(inner.map_or(1, |(_, st)| st as isize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_matmul_roles_and_gemm_orders() {
        // [b, k, m] x [b, n, k] -> [b, m, n].
        let dn = DotDimensionNumbers {
            lhs_batch_dims: vec![0],
            rhs_batch_dims: vec![0],
            lhs_contracting_dims: vec![1],
            rhs_contracting_dims: vec![2],
        };
        let d = DotDims::new(&dn, 3, 3);
        assert_eq!((d.lhs.free.clone(), d.rhs.free.clone()), (vec![2], vec![1]));
        assert_eq!(d.result_rank(), 3);
        assert_eq!(d.lhs_order(), vec![0, 2, 1]);
        assert_eq!(d.rhs_order(), vec![0, 2, 1]);
    }
}
