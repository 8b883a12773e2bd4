//! The strided walk over an array that every engine's copies, relayouts and
//! reductions make: each element in row-major order with its offset in some
//! other layout, kept up to date as an odometer instead of recomputed.

/// Calls `f(i, offset)` for each element `i` of `dims` in row-major order,
/// with `offset = base + sum(idx[d] * strides[d])`.
///
/// The offset is computed with wrapping arithmetic, so a stride may be a
/// negative `i64` cast to `usize` (a reversed dimension): the offsets that
/// reach `f` are the true ones as long as they are in range.
pub fn for_each_offset(
    dims: &[usize],
    base: usize,
    strides: &[usize],
    mut f: impl FnMut(usize, usize),
) {
    let n: usize = dims.iter().product();
    let rank = dims.len();
    let mut idx = vec![0usize; rank];
    let mut off = base;
    for i in 0..n {
        f(i, off);
        let mut d = rank;
        while d > 0 {
            d -= 1;
            idx[d] += 1;
            off = off.wrapping_add(strides[d]);
            if idx[d] < dims[d] {
                break;
            }
            off = off.wrapping_sub(strides[d].wrapping_mul(dims[d]));
            idx[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::for_each_offset;

    #[test]
    fn walks_a_transposed_and_a_reversed_layout() {
        // A 2x3 array stored column-major: strides (1, 2).
        let mut seen = Vec::new();
        for_each_offset(&[2, 3], 0, &[1, 2], |i, o| seen.push((i, o)));
        assert_eq!(seen, [(0, 0), (1, 2), (2, 4), (3, 1), (4, 3), (5, 5)]);
        // A length-4 vector read backwards: base 3, stride -1.
        let mut rev = Vec::new();
        for_each_offset(&[4], 3, &[(-1i64) as usize], |_, o| rev.push(o));
        assert_eq!(rev, [3, 2, 1, 0]);
        // An empty dimension: nothing.
        for_each_offset(&[2, 0], 0, &[1, 1], |_, _| panic!("no elements"));
    }
}
