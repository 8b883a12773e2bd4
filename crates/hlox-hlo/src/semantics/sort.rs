//! sort: the stable bottom-up merge sort every engine that sorts on the
//! host uses (so comparators that are not strict weak orders, such as LE or
//! NaN under FLOAT comparison, give the same permutation everywhere), and
//! the recognition of a comparator that is a plain `compare` of one
//! operand's two parameters.

use super::arith::IndexArith;
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

/// The widths of the passes of a bottom-up merge sort of `len` elements:
/// 1, 2, 4, ... below `len` (the passes [`merge_sort`] makes, and the
/// kernels of the CUDA sort of a long row).
pub fn merge_widths(len: i64) -> impl Iterator<Item = i64> {
    std::iter::successors(Some(1i64), |w| w.checked_mul(2)).take_while(move |&w| w < len)
}

/// Element `i` of a row of `len` in the merge pass of width `width`, seen
/// as the merge-path formulation that computes each element's destination
/// independently (the CUDA sort's merge kernels): its pair of runs starts
/// at `start`; the first run is `[start, mid)`, the second `[mid, end)`
/// (clamped to `len`); `left` says `i` is in the first; the other run is
/// `[lo, hi)`. The element goes to `position(count)` where `count` is the
/// number of elements of the other run that go before it: from the first
/// run those `b` with `less(b, x)`, from the second those `a` with
/// `!less(x, a)`, so ties keep their order and the permutation is
/// [`merge_sort`]'s.
#[derive(Copy, Clone, Debug)]
pub struct MergeRuns<A: IndexArith> {
    pub start: A::Int,
    pub mid: A::Int,
    pub left: A::Bool,
    pub lo: A::Int,
    pub hi: A::Int,
}

impl<A: IndexArith> MergeRuns<A> {
    pub fn new(a: &A, i: A::Int, width: i64, len: i64) -> Result<Self, A::Error> {
        let pair = a.int(2 * width);
        let start = a.mul(a.div(i, pair)?, pair)?;
        let clamp = |v: A::Int| -> Result<A::Int, A::Error> {
            let over = a.lt(a.int(len), v)?;
            a.select(over, a.int(len), v)
        };
        let mid = clamp(a.add(start, a.int(width))?)?;
        let end = clamp(a.add(start, pair)?)?;
        let left = a.lt(i, mid)?;
        Ok(MergeRuns {
            start,
            mid,
            left,
            lo: a.select(left, mid, start)?,
            hi: a.select(left, end, mid)?,
        })
    }

    /// Where element `i` goes when `count` elements of the other run go
    /// before it: `i + count` from the first run, `start + (i - mid) +
    /// count` from the second.
    pub fn position(&self, a: &A, i: A::Int, count: A::Int) -> Result<A::Int, A::Error> {
        let second = a.add(self.start, a.sub(i, self.mid)?)?;
        a.add(a.select(self.left, i, second)?, count)
    }
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

    /// The merge-path passes ([`MergeRuns`] with a binary search, as the
    /// CUDA kernels run them) give [`merge_sort`]'s permutation, ties and
    /// non-strict comparators included.
    #[test]
    fn merge_runs_give_merge_sorts_permutation() {
        use crate::semantics::arith::{plain, Plain};
        let mut seed = 7u64;
        for len in [1usize, 2, 3, 5, 8, 13, 33] {
            let keys: Vec<u64> = (0..len)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 33) % 4
                })
                .collect();
            for strict in [true, false] {
                let less = |a: usize, b: usize| {
                    if strict {
                        keys[a] < keys[b]
                    } else {
                        keys[a] <= keys[b]
                    }
                };
                let mut want: Vec<usize> = (0..len).collect();
                merge_sort::<()>(&mut want, |a, b| Ok(less(a, b))).unwrap();
                let mut v: Vec<usize> = (0..len).collect();
                for width in merge_widths(len as i64) {
                    let mut next = vec![usize::MAX; len];
                    for i in 0..len {
                        let r = plain(MergeRuns::new(&Plain, i as i64, width, len as i64));
                        let x = v[i];
                        let (mut lo, mut hi) = (r.lo, r.hi);
                        while lo < hi {
                            let m = (lo + hi) / 2;
                            let y = v[m as usize];
                            let before = if r.left { less(y, x) } else { !less(x, y) };
                            if before {
                                lo = m + 1;
                            } else {
                                hi = m;
                            }
                        }
                        let pos = plain(r.position(&Plain, i as i64, lo - r.lo));
                        next[pos as usize] = x;
                    }
                    v = next;
                }
                assert_eq!(v, want, "len {len}, strict {strict}");
            }
        }
    }

    #[test]
    fn nan_only_not_equal() {
        for d in ComparisonDirection::ALL {
            assert_eq!(direction_holds(d, None), d == ComparisonDirection::Ne);
        }
    }
}
