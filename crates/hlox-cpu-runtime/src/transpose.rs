//! Matrix transposition for the Host backend's relayout copies: a `copy`
//! or `transpose` whose result holds its operand's matrix in the other
//! layout (row-major to column-major, as the copies in front of jaxlib's
//! LAPACK targets). The element loops the emitter generates for those run
//! tile by tile but element by element (no shuffles: vectorizing them cost
//! LLVM time, `hlox_codegen::loops::for_range_plain`); here 8x8 (4-byte
//! elements) and 4x4 (8-byte) blocks move through AVX2 registers, compiled
//! ahead of time.

/// `dst[c * rows + r] = src[r * cols + c]` for elements of `bytes` bytes:
/// the row-major `rows x cols` matrix at `src` written transposed (row-major
/// `cols x rows`) at `dst`. The two must not overlap. Large matrices are
/// split into bands of rows over rayon's pool.
///
/// # Safety
/// `src` holds `rows * cols` elements of `bytes` bytes and `dst` has room
/// for as many; they do not overlap.
pub unsafe fn transpose_2d(src: *const u8, dst: *mut u8, rows: usize, cols: usize, bytes: usize) {
    if rows == 0 || cols == 0 || bytes == 0 {
        return;
    }
    let total = rows * cols * bytes;
    let t = crate::threads();
    if total >= PARALLEL_FROM && t > 1 && rows >= 2 * BLOCK {
        let bands = t.min(rows / BLOCK);
        let per = rows.div_ceil(bands).div_ceil(BLOCK) * BLOCK;
        let (s, d) = (crate::elem::SendConstPtr(src), crate::elem::SendPtr(dst));
        use rayon::prelude::*;
        (0..bands).into_par_iter().for_each(|b| {
            let (s, d) = (s, d);
            let (r0, r1) = (b * per, ((b + 1) * per).min(rows));
            if r0 < r1 {
                band(s.0, d.0, rows, cols, bytes, r0, r1);
            }
        });
    } else {
        band(src, dst, rows, cols, bytes, 0, rows);
    }
}

/// Bytes from which a transposition runs on several threads. It is bound
/// by memory: a 512x512 f32 matrix (1 MiB) took 0.11-0.125 ms (median of
/// 1000 runs, three rounds) on one thread and 0.14-0.16 ms on two (the
/// minima 0.08 and 0.067: the threads' wake-up costs more than the second
/// core's bandwidth brings); the element loop it replaces 0.155-0.18 ms
/// (AMD EPYC, 2 cores, `hlox bench` of a relayout `copy`).
const PARALLEL_FROM: usize = 8 << 20;

/// The cache block: 32 x 32 elements (4 KiB of f32) read and written
/// while both stay in L1.
const BLOCK: usize = 32;

/// Rows `r0..r1` of [`transpose_2d`].
unsafe fn band(
    src: *const u8,
    dst: *mut u8,
    rows: usize,
    cols: usize,
    bytes: usize,
    r0: usize,
    r1: usize,
) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            match bytes {
                4 => return avx2::band32(src as *const f32, dst as *mut f32, rows, cols, r0, r1),
                8 => return avx2::band64(src as *const f64, dst as *mut f64, rows, cols, r0, r1),
                _ => {}
            }
        }
    }
    scalar_band(src, dst, rows, cols, bytes, r0, r1);
}

/// The portable path: cache blocks, element by element.
unsafe fn scalar_band(
    src: *const u8,
    dst: *mut u8,
    rows: usize,
    cols: usize,
    bytes: usize,
    r0: usize,
    r1: usize,
) {
    for rb in (r0..r1).step_by(BLOCK) {
        let re = (rb + BLOCK).min(r1);
        for cb in (0..cols).step_by(BLOCK) {
            let ce = (cb + BLOCK).min(cols);
            for r in rb..re {
                for c in cb..ce {
                    std::ptr::copy_nonoverlapping(
                        src.add((r * cols + c) * bytes),
                        dst.add((c * rows + r) * bytes),
                        bytes,
                    );
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// Rows `r0..r1` of a transposition of `K x K` register blocks
    /// (`tile`) inside 32x32 cache blocks, the ragged edges element by
    /// element.
    #[allow(clippy::too_many_arguments)]
    unsafe fn band<T: Copy, const K: usize>(
        src: *const T,
        dst: *mut T,
        rows: usize,
        cols: usize,
        r0: usize,
        r1: usize,
        tile: unsafe fn(*const T, usize, *mut T, usize),
    ) {
        const B: usize = super::BLOCK;
        for rb in (r0..r1).step_by(B) {
            let re = (rb + B).min(r1);
            for cb in (0..cols).step_by(B) {
                let ce = (cb + B).min(cols);
                let mut r = rb;
                while r + K <= re {
                    let mut c = cb;
                    while c + K <= ce {
                        tile(src.add(r * cols + c), cols, dst.add(c * rows + r), rows);
                        c += K;
                    }
                    for c in c..ce {
                        for k in r..r + K {
                            *dst.add(c * rows + k) = *src.add(k * cols + c);
                        }
                    }
                    r += K;
                }
                for k in r..re {
                    for c in cb..ce {
                        *dst.add(c * rows + k) = *src.add(k * cols + c);
                    }
                }
            }
        }
    }

    /// Rows `r0..r1` of a 4-byte transposition: 8x8 register blocks.
    pub(super) unsafe fn band32(
        src: *const f32,
        dst: *mut f32,
        rows: usize,
        cols: usize,
        r0: usize,
        r1: usize,
    ) {
        band::<f32, 8>(src, dst, rows, cols, r0, r1, tile8)
    }

    /// Rows `r0..r1` of an 8-byte transposition: 4x4 register blocks.
    pub(super) unsafe fn band64(
        src: *const f64,
        dst: *mut f64,
        rows: usize,
        cols: usize,
        r0: usize,
        r1: usize,
    ) {
        band::<f64, 4>(src, dst, rows, cols, r0, r1, tile4)
    }

    /// One 8x8 block: rows `s, s + ls, ...` to rows `d, d + ld, ...`.
    #[target_feature(enable = "avx2")]
    unsafe fn tile8(s: *const f32, ls: usize, d: *mut f32, ld: usize) {
        let r: [__m256; 8] = std::array::from_fn(|k| _mm256_loadu_ps(s.add(k * ls)));
        // Pairs of rows interleaved, then pairs of pairs, then the halves.
        let t0 = _mm256_unpacklo_ps(r[0], r[1]);
        let t1 = _mm256_unpackhi_ps(r[0], r[1]);
        let t2 = _mm256_unpacklo_ps(r[2], r[3]);
        let t3 = _mm256_unpackhi_ps(r[2], r[3]);
        let t4 = _mm256_unpacklo_ps(r[4], r[5]);
        let t5 = _mm256_unpackhi_ps(r[4], r[5]);
        let t6 = _mm256_unpacklo_ps(r[6], r[7]);
        let t7 = _mm256_unpackhi_ps(r[6], r[7]);
        let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        let o = [
            _mm256_permute2f128_ps::<0x20>(u0, u4),
            _mm256_permute2f128_ps::<0x20>(u1, u5),
            _mm256_permute2f128_ps::<0x20>(u2, u6),
            _mm256_permute2f128_ps::<0x20>(u3, u7),
            _mm256_permute2f128_ps::<0x31>(u0, u4),
            _mm256_permute2f128_ps::<0x31>(u1, u5),
            _mm256_permute2f128_ps::<0x31>(u2, u6),
            _mm256_permute2f128_ps::<0x31>(u3, u7),
        ];
        for (k, v) in o.iter().enumerate() {
            _mm256_storeu_ps(d.add(k * ld), *v);
        }
    }

    /// One 4x4 block of 8-byte elements.
    #[target_feature(enable = "avx2")]
    unsafe fn tile4(s: *const f64, ls: usize, d: *mut f64, ld: usize) {
        let r: [__m256d; 4] = std::array::from_fn(|k| _mm256_loadu_pd(s.add(k * ls)));
        let t0 = _mm256_unpacklo_pd(r[0], r[1]);
        let t1 = _mm256_unpackhi_pd(r[0], r[1]);
        let t2 = _mm256_unpacklo_pd(r[2], r[3]);
        let t3 = _mm256_unpackhi_pd(r[2], r[3]);
        let o = [
            _mm256_permute2f128_pd::<0x20>(t0, t2),
            _mm256_permute2f128_pd::<0x20>(t1, t3),
            _mm256_permute2f128_pd::<0x31>(t0, t2),
            _mm256_permute2f128_pd::<0x31>(t1, t3),
        ];
        for (k, v) in o.iter().enumerate() {
            _mm256_storeu_pd(d.add(k * ld), *v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element lands where the transposition puts it: ragged sizes
    /// (edges of the 8x8 and 32x32 blocks), 1-, 2-, 4-, 8- and 16-byte
    /// elements, one and several threads (the 8 MiB threshold: the largest
    /// matrix of 16- and 8-byte elements), against the definition.
    #[test]
    fn transposes_every_size_and_element_width() {
        let sizes = [
            (1, 1),
            (1, 7),
            (7, 1),
            (3, 5),
            (8, 8),
            (9, 17),
            (33, 40),
            (64, 64),
            (100, 37),
            (517, 515),
            (1031, 1029),
        ];
        for &bytes in &[1usize, 2, 4, 8, 16] {
            for &(rows, cols) in &sizes {
                let n = rows * cols * bytes;
                let src: Vec<u8> = (0..n).map(|i| (i * 7 + i / 251) as u8).collect();
                let mut dst = vec![0u8; n];
                unsafe { transpose_2d(src.as_ptr(), dst.as_mut_ptr(), rows, cols, bytes) };
                for r in 0..rows {
                    for c in 0..cols {
                        let s = &src[(r * cols + c) * bytes..][..bytes];
                        let d = &dst[(c * rows + r) * bytes..][..bytes];
                        assert_eq!(s, d, "{rows}x{cols} of {bytes}-byte elements at ({r}, {c})");
                    }
                }
            }
        }
    }
}
