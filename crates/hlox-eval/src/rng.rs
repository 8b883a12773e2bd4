//! rng-bit-generator: XLA's ThreeFry-2x32 and Philox-4x32 bit generators,
//! following the expansion XLA's RngBitGeneratorExpander performs (the CPU
//! backend's default algorithm is Philox).

use crate::value::{arr, elem_count, R};
use hlox_hlo::{ArrayLiteral, ArrayShape, ElementType, RngAlgorithm};

fn threefry2x32(x: [u32; 2], key: [u32; 2]) -> [u32; 2] {
    const ROT: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]];
    let mut x = [x[0].wrapping_add(ks[0]), x[1].wrapping_add(ks[1])];
    let round = |x: &mut [u32; 2], r: u32| {
        x[0] = x[0].wrapping_add(x[1]);
        x[1] = x[1].rotate_left(r);
        x[1] ^= x[0];
    };
    for i in 0..5u32 {
        let rots = if i % 2 == 0 { &ROT[0..4] } else { &ROT[4..8] };
        for &r in rots {
            round(&mut x, r);
        }
        let j = i as usize + 1;
        x[0] = x[0].wrapping_add(ks[j % 3]);
        x[1] = x[1].wrapping_add(ks[(j + 1) % 3]).wrapping_add(j as u32);
    }
    x
}

fn philox4x32(mut s: [u32; 4], mut key: [u32; 2]) -> [u32; 4] {
    const M0: u64 = 0xD251_1F53;
    const M1: u64 = 0xCD9E_8D57;
    for _ in 0..10 {
        let p0 = s[0] as u64 * M0;
        let p1 = s[2] as u64 * M1;
        s = [
            ((p1 >> 32) as u32) ^ s[1] ^ key[0],
            p1 as u32,
            ((p0 >> 32) as u32) ^ s[3] ^ key[1],
            p0 as u32,
        ];
        key = [
            key[0].wrapping_add(0x9E37_79B9),
            key[1].wrapping_add(0xBB67_AE85),
        ];
    }
    s
}

fn split(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// Philox: `n` 128-bit blocks from counter (lo, hi) + i; returns blocks and the new counter.
fn philox_blocks(key: u64, lo: u64, hi: u64, n: usize) -> (Vec<[u32; 4]>, (u64, u64)) {
    let k = split(key);
    let add = |i: u64| {
        let l = lo.wrapping_add(i);
        let h = if l < lo { hi.wrapping_add(1) } else { hi };
        (l, h)
    };
    let blocks = (0..n as u64)
        .map(|i| {
            let (l, h) = add(i);
            let (a, b) = (split(l), split(h));
            philox4x32([a[0], a[1], b[0], b[1]], k)
        })
        .collect();
    (blocks, add(n as u64))
}

/// Returns (new state, raw bits of the output as bytes of `out`'s element type).
pub(crate) fn rng_bit_generator(
    alg: RngAlgorithm,
    state: &ArrayLiteral,
    out: &ArrayShape,
) -> R<(ArrayLiteral, ArrayLiteral)> {
    if state.ty() != ElementType::U64 || state.dims().len() != 1 || state.dims()[0] < 2 {
        return Err(format!(
            "rng-bit-generator state must be u64[n] with n >= 2, got {}[{:?}]",
            state.ty(),
            state.dims()
        ));
    }
    if out.ty == ElementType::Pred {
        return Err("rng-bit-generator cannot produce pred".into());
    }
    let st: Vec<u64> = state.to_vec::<u64>().map_err(|e| e.to_string())?;
    let n = elem_count(&out.dims);
    let bits = out.ty.bit_width();
    let mut new_state = st.clone();
    // Output values as u64 bit patterns (low `bits` bits used).
    let values: Vec<u64> = match alg {
        RngAlgorithm::Default | RngAlgorithm::Philox => {
            let key = st[0];
            let (lo, hi) = if st.len() >= 3 {
                (st[1], st[2])
            } else {
                (st[1], st[0])
            };
            if bits == 64 {
                let (blocks, (nl, nh)) = philox_blocks(key, lo, hi, (2 * n).div_ceil(4));
                set_philox_state(&mut new_state, nl, nh);
                (0..n)
                    .map(|j| {
                        let b = &blocks[j / 2];
                        if j % 2 == 0 {
                            b[0] as u64 | (b[1] as u64) << 32
                        } else {
                            b[2] as u64 | (b[3] as u64) << 32
                        }
                    })
                    .collect()
            } else {
                let (blocks, (nl, nh)) = philox_blocks(key, lo, hi, n.div_ceil(4));
                set_philox_state(&mut new_state, nl, nh);
                (0..n).map(|j| blocks[j / 4][j % 4] as u64).collect()
            }
        }
        RngAlgorithm::ThreeFry => {
            let key = split(st[0]);
            let ctr = st[1];
            if bits == 64 {
                new_state[1] = ctr.wrapping_add(n as u64);
                (0..n)
                    .map(|j| {
                        let o = threefry2x32(split(ctr.wrapping_add(j as u64)), key);
                        o[0] as u64 | (o[1] as u64) << 32
                    })
                    .collect()
            } else {
                // Split the shape into halves along one dimension; element
                // (.., 2h + c, ..) takes output word c of the counter at the
                // half-shape position (.., h, ..).
                let dims = &out.dims;
                let split_dim = if dims.is_empty() {
                    None
                } else {
                    Some(dims.iter().position(|&d| d % 2 == 0).unwrap_or_else(|| {
                        let mut best = 0;
                        for i in 0..dims.len() {
                            if dims[i] > dims[best] {
                                best = i;
                            }
                        }
                        best
                    }))
                };
                let mut half = dims.clone();
                if let Some(s) = split_dim {
                    half[s] = (half[s] + 1) / 2;
                } else {
                    half = vec![1];
                }
                new_state[1] = ctr.wrapping_add(elem_count(&half) as u64);
                let hstr = crate::value::row_major_strides(&half);
                let mut vals = Vec::with_capacity(n);
                crate::value::for_each_index(dims, |idx| {
                    let (lin, c) = match split_dim {
                        None => (0usize, 0usize),
                        Some(s) => {
                            let mut lin = 0usize;
                            for d in 0..idx.len() {
                                let v = if d == s { idx[d] / 2 } else { idx[d] };
                                lin += v as usize * hstr[d];
                            }
                            (lin, (idx[s] % 2) as usize)
                        }
                    };
                    let o = threefry2x32(split(ctr.wrapping_add(lin as u64)), key);
                    vals.push(o[c] as u64);
                });
                vals
            }
        }
    };
    let sz = out.ty.byte_size();
    let mut bytes = Vec::with_capacity(n * sz);
    for v in values {
        let b = v.to_ne_bytes();
        if cfg!(target_endian = "little") {
            bytes.extend_from_slice(&b[..sz]);
        } else {
            bytes.extend_from_slice(&b[8 - sz..]);
        }
    }
    let value = arr(out.ty, &out.dims, bytes)?;
    let state_out = ArrayLiteral::from_vec(state.dims(), &new_state).map_err(|e| e.to_string())?;
    Ok((state_out, value))
}

fn set_philox_state(st: &mut [u64], lo: u64, hi: u64) {
    st[1] = lo;
    if st.len() >= 3 {
        st[2] = hi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threefry_known_answer() {
        // Random123 known-answer test for threefry2x32_20: key = ctr = 0.
        assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b200159, 0x99ba4efe]);
        assert_eq!(
            threefry2x32([0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff]),
            [0x1cb996fc, 0xbb002be7]
        );
    }

    #[test]
    fn philox_known_answer() {
        // Random123 known-answer test for philox4x32_10.
        assert_eq!(
            philox4x32([0, 0, 0, 0], [0, 0]),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        assert_eq!(
            philox4x32([0xffffffff; 4], [0xffffffff; 2]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
    }
}
