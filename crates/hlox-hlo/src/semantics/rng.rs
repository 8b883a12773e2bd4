//! rng-bit-generator: XLA's Philox-4x32-10 (the CPU default) and
//! ThreeFry-2x32-20 bit generators, with the key/counter schedule XLA's
//! `RngBitGeneratorExpander` uses, as plain Rust.
//!
//! The evaluator and the Host runtime call [`RngPlan::generate`]; the CUDA
//! emitter generates the same rounds in LLVM IR from the constants below
//! and takes the counter schedule (blocks used, ThreeFry's split dimension)
//! from [`RngPlan`], so the three engines agree bit for bit.

use crate::{ArrayShape, ElementType, RngAlgorithm};

/// Philox-4x32 rounds.
pub const PHILOX_ROUNDS: usize = 10;
/// Philox-4x32 multipliers of words 0 and 2.
pub const PHILOX_M: [u64; 2] = [0xD251_1F53, 0xCD9E_8D57];
/// Philox-4x32 Weyl increments of the two key words, added after every round.
pub const PHILOX_W: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];
/// ThreeFry-2x32 rotation distances: rounds 4i..4i+3 use `[0..4]` for even
/// i and `[4..8]` for odd i.
pub const THREEFRY_ROTATIONS: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
/// ThreeFry's key-schedule parity constant (the third key word is
/// `PARITY ^ key[0] ^ key[1]`).
pub const THREEFRY_PARITY: u32 = 0x1BD1_1BDA;
/// ThreeFry-2x32-20: 5 groups of 4 rounds, a key injection after each.
pub const THREEFRY_GROUPS: usize = 5;

/// One ThreeFry-2x32-20 block of counter `x` under `key`.
pub fn threefry2x32(x: [u32; 2], key: [u32; 2]) -> [u32; 2] {
    let ks = [key[0], key[1], THREEFRY_PARITY ^ key[0] ^ key[1]];
    let mut x = [x[0].wrapping_add(ks[0]), x[1].wrapping_add(ks[1])];
    for i in 0..THREEFRY_GROUPS {
        for &r in threefry_rotations(i) {
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(r) ^ x[0];
        }
        let j = i + 1;
        x[0] = x[0].wrapping_add(ks[j % 3]);
        x[1] = x[1].wrapping_add(ks[(j + 1) % 3]).wrapping_add(j as u32);
    }
    x
}

/// The four rotation distances of ThreeFry round group `i`.
pub fn threefry_rotations(i: usize) -> &'static [u32] {
    if i.is_multiple_of(2) {
        &THREEFRY_ROTATIONS[0..4]
    } else {
        &THREEFRY_ROTATIONS[4..8]
    }
}

/// One Philox-4x32-10 block of counter `s` under `key`.
pub fn philox4x32(mut s: [u32; 4], mut key: [u32; 2]) -> [u32; 4] {
    for _ in 0..PHILOX_ROUNDS {
        let p0 = s[0] as u64 * PHILOX_M[0];
        let p1 = s[2] as u64 * PHILOX_M[1];
        s = [
            ((p1 >> 32) as u32) ^ s[1] ^ key[0],
            p1 as u32,
            ((p0 >> 32) as u32) ^ s[3] ^ key[1],
            p0 as u32,
        ];
        key = [
            key[0].wrapping_add(PHILOX_W[0]),
            key[1].wrapping_add(PHILOX_W[1]),
        ];
    }
    s
}

/// (low, high) 32-bit halves of `v`.
pub fn split(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// The 128-bit counter (lo, hi) advanced by `i`.
pub fn counter_add(lo: u64, hi: u64, i: u64) -> (u64, u64) {
    let l = lo.wrapping_add(i);
    (l, if l < lo { hi.wrapping_add(1) } else { hi })
}

/// Why an rng-bit-generator cannot be planned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RngError {
    #[error("rng-bit-generator state must be u64[n] with n >= 2, got {ty}{dims:?}")]
    State { ty: ElementType, dims: Vec<i64> },
    #[error("rng-bit-generator cannot produce pred")]
    Pred,
}

/// Which generator a plan runs (`rng_default` is Philox on CPU and GPU).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Generator {
    Philox,
    ThreeFry,
}

/// The counter schedule of one rng-bit-generator: which block and word of
/// which counter each output element (row-major position `j`) takes, and
/// how far the state's counter advances.
///
/// - Philox: key `state[0]`, 128-bit counter `(state[1], state[2])` (or
///   `(state[1], state[0])` for a 2-word state); element `j` is word
///   `j % 4` of block `j / 4` (64-bit elements: words `2(j % 2)`, `2(j % 2)
///   + 1` of block `j / 2`).
/// - ThreeFry: key `state[0]`, counter `state[1]`; 64-bit element `j` is
///   block `counter + j`; narrower elements split the shape in halves along
///   [`RngPlan::threefry_split`] (the first even dimension, else the
///   largest), and element `(.., 2h + c, ..)` is word `c` of the block at
///   the half-shape position `(.., h, ..)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RngPlan {
    pub generator: Generator,
    /// The output's logical dimensions.
    pub dims: Vec<i64>,
    /// Bits per output element.
    pub bits: u32,
    /// ThreeFry with elements narrower than 64 bits: the split dimension
    /// (None for a scalar, which takes word 0 of block `counter`).
    pub threefry_split: Option<usize>,
    /// The half shape (the split dimension's size rounded up in half; `[1]`
    /// for a scalar).
    pub threefry_half: Vec<i64>,
}

impl RngPlan {
    /// The plan of `algorithm` producing `out` from a state of shape `state`.
    pub fn new(
        algorithm: RngAlgorithm,
        state: &ArrayShape,
        out: &ArrayShape,
    ) -> Result<RngPlan, RngError> {
        if state.ty != ElementType::U64 || state.rank() != 1 || state.dims[0] < 2 {
            return Err(RngError::State {
                ty: state.ty,
                dims: state.dims.clone(),
            });
        }
        if out.ty == ElementType::Pred {
            return Err(RngError::Pred);
        }
        let generator = match algorithm {
            RngAlgorithm::Default | RngAlgorithm::Philox => Generator::Philox,
            RngAlgorithm::ThreeFry => Generator::ThreeFry,
        };
        let dims = out.dims.clone();
        let threefry_split = if dims.is_empty() {
            None
        } else {
            Some(dims.iter().position(|&d| d % 2 == 0).unwrap_or_else(|| {
                // The largest dimension (the first of equals).
                let mut best = 0;
                for (i, &d) in dims.iter().enumerate() {
                    if d > dims[best] {
                        best = i;
                    }
                }
                best
            }))
        };
        let threefry_half = match threefry_split {
            Some(s) => {
                let mut h = dims.clone();
                h[s] = (h[s] + 1) / 2;
                h
            }
            None => vec![1],
        };
        Ok(RngPlan {
            generator,
            dims,
            bits: out.ty.bit_width(),
            threefry_split,
            threefry_half,
        })
    }

    /// Number of output elements.
    pub fn count(&self) -> u64 {
        self.dims.iter().map(|&d| d.max(0) as u64).product()
    }

    /// Output elements per Philox block (4 words; a 64-bit element takes 2).
    pub fn philox_per_block(&self) -> u64 {
        if self.bits == 64 {
            2
        } else {
            4
        }
    }

    /// How far the counter advances: Philox blocks used, or ThreeFry
    /// counters used.
    pub fn counter_advance(&self) -> u64 {
        match self.generator {
            Generator::Philox => self.count().div_ceil(self.philox_per_block()),
            Generator::ThreeFry if self.bits == 64 => self.count(),
            Generator::ThreeFry => self
                .threefry_half
                .iter()
                .map(|&d| d.max(0) as u64)
                .product(),
        }
    }

    /// The Philox key and 128-bit counter (lo, hi) a state holds.
    pub fn philox_key_counter(state: &[u64]) -> (u64, u64, u64) {
        let hi = if state.len() >= 3 { state[2] } else { state[0] };
        (state[0], state[1], hi)
    }

    /// The state after this generator ran on `state` (which has at least
    /// two words, as [`RngPlan::new`] checked for its shape).
    pub fn next_state(&self, state: &[u64]) -> Vec<u64> {
        let mut ns = state.to_vec();
        match self.generator {
            Generator::Philox => {
                let (_, lo, hi) = Self::philox_key_counter(state);
                let (l, h) = counter_add(lo, hi, self.counter_advance());
                ns[1] = l;
                if ns.len() >= 3 {
                    ns[2] = h;
                }
            }
            Generator::ThreeFry => ns[1] = state[1].wrapping_add(self.counter_advance()),
        }
        ns
    }

    /// The ThreeFry counter offset and output word of row-major element `j`
    /// (elements narrower than 64 bits).
    pub fn threefry_position(&self, j: u64) -> (u64, usize) {
        let Some(s) = self.threefry_split else {
            return (0, 0);
        };
        let (mut rem, mut lin, mut stride, mut word) = (j, 0u64, 1u64, 0usize);
        for d in (0..self.dims.len()).rev() {
            let n = self.dims[d].max(1) as u64;
            let i = rem % n;
            rem /= n;
            let v = if d == s {
                word = (i % 2) as usize;
                i / 2
            } else {
                i
            };
            lin += v * stride;
            stride *= self.threefry_half[d].max(1) as u64;
        }
        (lin, word)
    }

    /// The bits (low `bits` bits used) of row-major elements `first ..
    /// first + out.len()` generated from `state`; each Philox block is
    /// computed once.
    pub fn generate(&self, state: &[u64], first: u64, out: &mut [u64]) {
        match self.generator {
            Generator::Philox => {
                let (key, lo, hi) = Self::philox_key_counter(state);
                let key = split(key);
                let per = self.philox_per_block();
                let mut cached: Option<(u64, [u32; 4])> = None;
                for (i, o) in out.iter_mut().enumerate() {
                    let j = first + i as u64;
                    let blk = j / per;
                    let b = match cached {
                        Some((c, b)) if c == blk => b,
                        _ => {
                            let (l, h) = counter_add(lo, hi, blk);
                            let (a, c) = (split(l), split(h));
                            let b = philox4x32([a[0], a[1], c[0], c[1]], key);
                            cached = Some((blk, b));
                            b
                        }
                    };
                    let w = (j % per) as usize;
                    *o = if per == 2 {
                        b[2 * w] as u64 | (b[2 * w + 1] as u64) << 32
                    } else {
                        b[w] as u64
                    };
                }
            }
            Generator::ThreeFry => {
                let key = split(state[0]);
                let ctr = state[1];
                for (i, o) in out.iter_mut().enumerate() {
                    let j = first + i as u64;
                    *o = if self.bits == 64 {
                        let r = threefry2x32(split(ctr.wrapping_add(j)), key);
                        r[0] as u64 | (r[1] as u64) << 32
                    } else {
                        let (lin, c) = self.threefry_position(j);
                        threefry2x32(split(ctr.wrapping_add(lin)), key)[c] as u64
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threefry_known_answer() {
        // Random123 known-answer test for threefry2x32_20.
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

    /// The plan for a u64[`state_len`] state and a `ty[dims]` output.
    fn plan(
        alg: RngAlgorithm,
        state_len: i64,
        ty: ElementType,
        dims: &[i64],
    ) -> Result<RngPlan, RngError> {
        let st = ArrayShape::new(ElementType::U64, vec![state_len]);
        RngPlan::new(alg, &st, &ArrayShape::new(ty, dims.to_vec()))
    }

    #[test]
    fn threefry_split_and_advance() {
        let p = plan(RngAlgorithm::ThreeFry, 2, ElementType::U32, &[3, 5]).unwrap();
        // No even dimension: the largest (5) is split into 3.
        assert_eq!(p.threefry_split, Some(1));
        assert_eq!(p.threefry_half, vec![3, 3]);
        assert_eq!(p.counter_advance(), 9);
        // Element (1, 3): half position (1, 1), word 1.
        assert_eq!(p.threefry_position(8), (4, 1));
        assert_eq!(p.next_state(&[7, u64::MAX]), vec![7, 8]);
    }

    #[test]
    fn philox_blocks_are_shared_by_chunks() {
        let p = plan(RngAlgorithm::Default, 3, ElementType::U32, &[10]).unwrap();
        let s = [1, u64::MAX, 4];
        let mut all = vec![0; 10];
        p.generate(&s, 0, &mut all);
        let mut tail = vec![0; 3];
        p.generate(&s, 7, &mut tail);
        assert_eq!(&all[7..], &tail[..]);
        assert_eq!(p.counter_advance(), 3);
        assert_eq!(p.next_state(&s), vec![1, 2, 5]);
        assert!(plan(RngAlgorithm::Philox, 3, ElementType::Pred, &[1]).is_err());
    }
}
