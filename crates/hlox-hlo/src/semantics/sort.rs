//! sort: the stable bottom-up merge sort every engine that sorts on the
//! host uses (so comparators that are not strict weak orders, such as LE or
//! NaN under FLOAT comparison, give the same permutation everywhere), and
//! the recognition of a comparator that is a plain `compare` of one
//! operand's two parameters.

use crate::{ComparisonDirection, ComparisonType, Computation, ElementType, Op, Shape};
use std::cmp::Ordering;

/// Stable bottom-up merge sort of `v` under `less` (which may fail, and
/// need not be a strict weak order: the result is then still the same
/// permutation on every engine). Never panics.
pub fn merge_sort<E>(
    v: &mut Vec<usize>,
    mut less: impl FnMut(usize, usize) -> Result<bool, E>,
) -> Result<(), E> {
    let n = v.len();
    let mut buf = v.clone();
    let mut width = 1;
    while width < n {
        let mut i = 0;
        while i < n {
            let mid = (i + width).min(n);
            let end = (i + 2 * width).min(n);
            let (mut a, mut b, mut k) = (i, mid, i);
            while a < mid && b < end {
                if less(v[b], v[a])? {
                    buf[k] = v[b];
                    b += 1;
                } else {
                    buf[k] = v[a];
                    a += 1;
                }
                k += 1;
            }
            buf[k..k + (mid - a)].copy_from_slice(&v[a..mid]);
            k += mid - a;
            buf[k..k + (end - b)].copy_from_slice(&v[b..end]);
            i += 2 * width;
        }
        std::mem::swap(v, &mut buf);
        width *= 2;
    }
    Ok(())
}

/// Whether `direction` holds for two values whose order is `o` (`None`:
/// unordered, a NaN is involved; only NE holds then).
pub fn direction_holds(direction: ComparisonDirection, o: Option<Ordering>) -> bool {
    use ComparisonDirection::*;
    match (direction, o) {
        (Ne, None) => true,
        (_, None) => false,
        (Eq, Some(o)) => o == Ordering::Equal,
        (Ne, Some(o)) => o != Ordering::Equal,
        (Ge, Some(o)) => o != Ordering::Less,
        (Gt, Some(o)) => o == Ordering::Greater,
        (Le, Some(o)) => o != Ordering::Greater,
        (Lt, Some(o)) => o == Ordering::Less,
    }
}

/// A sort comparator that is `compare(p[2k], p[2k+1])` (or swapped) of
/// operand `key`'s two parameters: engines then compare the keys natively
/// instead of calling the computation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CompareComparator {
    /// The operand whose elements are compared.
    pub key: usize,
    pub direction: ComparisonDirection,
    /// The comparison type (the element type's default when not written).
    pub cmp_type: ComparisonType,
    /// True for `compare(p[2k+1], p[2k])`.
    pub swapped: bool,
}

impl CompareComparator {
    /// Recognizes `c` as a comparator of operands with element types
    /// `tys` (its parameters are their scalars, in pairs).
    pub fn recognize(c: &Computation, tys: &[ElementType]) -> Option<Self> {
        if c.params.len() != 2 * tys.len() {
            return None;
        }
        for (i, &p) in c.params.iter().enumerate() {
            if !c
                .instructions
                .get(p)?
                .shape
                .compatible(&Shape::scalar(tys[i / 2]))
            {
                return None;
            }
        }
        let root = c.instructions.get(c.root)?;
        let Op::Compare {
            direction,
            cmp_type,
        } = &root.op
        else {
            return None;
        };
        if root.operands.len() != 2 {
            return None;
        }
        let a = c.params.iter().position(|&p| p == root.operands[0])?;
        let b = c.params.iter().position(|&p| p == root.operands[1])?;
        if a / 2 != b / 2 || a == b {
            return None;
        }
        let key = a / 2;
        Some(CompareComparator {
            key,
            direction: *direction,
            cmp_type: cmp_type.unwrap_or_else(|| ComparisonType::default_for(tys[key])),
            swapped: a % 2 == 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_sort_is_stable_and_total() {
        let keys = [3, 1, 2, 1, 3, 0];
        let mut v: Vec<usize> = (0..keys.len()).collect();
        merge_sort::<()>(&mut v, |a, b| Ok(keys[a] < keys[b])).unwrap();
        assert_eq!(v, vec![5, 1, 3, 2, 0, 4]);
        // A non-strict comparator still gives a permutation.
        let mut v: Vec<usize> = (0..7).collect();
        merge_sort::<()>(&mut v, |_, _| Ok(true)).unwrap();
        let mut s = v.clone();
        s.sort();
        assert_eq!(s, (0..7).collect::<Vec<_>>());
        assert_eq!(merge_sort(&mut v, |_, _| Err("stop")), Err("stop"));
    }

    #[test]
    fn nan_only_not_equal() {
        for d in ComparisonDirection::ALL {
            assert_eq!(direction_holds(d, None), d == ComparisonDirection::Ne);
        }
    }
}
