//! rng-bit-generator: XLA's Philox-4x32 (the CPU default) and
//! ThreeFry-2x32 expansions, bit for bit as the reference evaluator.

use crate::{check_counts, Ctx, Geom, HostKernel, KernelError};
use hlox_hlo::{ElementType, RngAlgorithm, Shape};
use rayon::prelude::*;

fn threefry2x32(x: [u32; 2], key: [u32; 2]) -> [u32; 2] {
    const ROT: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]];
    let mut x = [x[0].wrapping_add(ks[0]), x[1].wrapping_add(ks[1])];
    for i in 0..5usize {
        let rots = if i % 2 == 0 { &ROT[0..4] } else { &ROT[4..8] };
        for &r in rots {
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(r) ^ x[0];
        }
        let j = i + 1;
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

/// The 128-bit counter (lo, hi) advanced by `i`.
fn ctr_add(lo: u64, hi: u64, i: u64) -> (u64, u64) {
    let l = lo.wrapping_add(i);
    (l, if l < lo { hi.wrapping_add(1) } else { hi })
}

fn philox_block(key: u64, lo: u64, hi: u64, i: u64) -> [u32; 4] {
    let (l, h) = ctr_add(lo, hi, i);
    let (a, b) = (split(l), split(h));
    philox4x32([a[0], a[1], b[0], b[1]], split(key))
}

pub(crate) struct RngKernel {
    name: String,
    alg: RngAlgorithm,
    state_len: usize,
    state_out: Geom,
    out: Geom,
}

impl RngKernel {
    pub(crate) fn new(cx: &Ctx, alg: RngAlgorithm) -> Result<RngKernel, KernelError> {
        let st = cx.array_operand(0)?;
        if st.ty != ElementType::U64 || st.rank() != 1 || st.dims[0] < 2 {
            return Err(cx.err("the state must be u64[n] with n >= 2"));
        }
        let elems = cx
            .inst
            .shape
            .tuple_elements()
            .filter(|t| t.len() == 2)
            .ok_or_else(|| cx.err("the result must be a (state, value) tuple"))?;
        let (Shape::Array(so), Shape::Array(vo)) = (&elems[0], &elems[1]) else {
            return Err(cx.err("the result must be a tuple of two arrays"));
        };
        if !so.compatible(&st) {
            return Err(cx.err("the result state must have the operand state's shape"));
        }
        if vo.ty == ElementType::Pred {
            return Err(cx.err("rng-bit-generator cannot produce pred"));
        }
        Ok(RngKernel {
            name: cx.inst.name.clone(),
            alg,
            state_len: st.dims[0] as usize,
            state_out: Geom::new(so),
            out: Geom::new(vo),
        })
    }

    /// The value of logical element j (row-major) as bits, and the new state.
    fn values(&self, st: &[u64]) -> (Vec<u64>, Vec<u64>) {
        let n = self.out.count();
        let bits = self.out.ty.bit_width();
        let mut ns = st.to_vec();
        let par = crate::parallel_worth(n * 16);
        let gen = |f: &(dyn Fn(usize) -> u64 + Sync)| -> Vec<u64> {
            if par {
                (0..n).into_par_iter().map(f).collect()
            } else {
                (0..n).map(f).collect()
            }
        };
        match self.alg {
            RngAlgorithm::Default | RngAlgorithm::Philox => {
                let key = st[0];
                let (lo, hi) = if st.len() >= 3 {
                    (st[1], st[2])
                } else {
                    (st[1], st[0])
                };
                let nblocks = if bits == 64 {
                    (2 * n).div_ceil(4)
                } else {
                    n.div_ceil(4)
                };
                let (nl, nh) = ctr_add(lo, hi, nblocks as u64);
                ns[1] = nl;
                if ns.len() >= 3 {
                    ns[2] = nh;
                }
                let v = if bits == 64 {
                    gen(&|j| {
                        let b = philox_block(key, lo, hi, (j / 2) as u64);
                        if j % 2 == 0 {
                            b[0] as u64 | (b[1] as u64) << 32
                        } else {
                            b[2] as u64 | (b[3] as u64) << 32
                        }
                    })
                } else {
                    gen(&|j| philox_block(key, lo, hi, (j / 4) as u64)[j % 4] as u64)
                };
                (v, ns)
            }
            RngAlgorithm::ThreeFry => {
                let key = split(st[0]);
                let ctr = st[1];
                if bits == 64 {
                    ns[1] = ctr.wrapping_add(n as u64);
                    let v = gen(&|j| {
                        let o = threefry2x32(split(ctr.wrapping_add(j as u64)), key);
                        o[0] as u64 | (o[1] as u64) << 32
                    });
                    return (v, ns);
                }
                let dims = &self.out.dims;
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
                match split_dim {
                    Some(s) => half[s] = half[s].div_ceil(2),
                    None => half = vec![1],
                }
                ns[1] = ctr.wrapping_add(half.iter().product::<usize>() as u64);
                // Row-major strides of the half shape and of the full shape.
                let rm = |d: &[usize]| {
                    let mut s = vec![1usize; d.len()];
                    for i in (0..d.len().saturating_sub(1)).rev() {
                        s[i] = s[i + 1] * d[i + 1];
                    }
                    s
                };
                let hstr = rm(&half);
                let v = gen(&|j| {
                    let (lin, c) = match split_dim {
                        None => (0usize, 0usize),
                        Some(s) => {
                            let mut rem = j;
                            let mut lin = 0usize;
                            let mut c = 0usize;
                            for d in (0..dims.len()).rev() {
                                let idx = rem % dims[d];
                                rem /= dims[d];
                                let v = if d == s {
                                    c = idx % 2;
                                    idx / 2
                                } else {
                                    idx
                                };
                                lin += v * hstr[d];
                            }
                            (lin, c)
                        }
                    };
                    threefry2x32(split(ctr.wrapping_add(lin as u64)), key)[c] as u64
                });
                (v, ns)
            }
        }
    }
}

impl HostKernel for RngKernel {
    unsafe fn run(&self, operands: &[*const u8], outputs: &[*mut u8]) -> Result<(), String> {
        check_counts(&self.name, operands, outputs, 1, 2)?;
        let st: Vec<u64> = (0..self.state_len)
            .map(|i| crate::elem::rd::<u64>(operands[0], i))
            .collect();
        let (vals, ns) = self.values(&st);
        for (i, v) in ns.iter().enumerate() {
            crate::elem::wr(outputs[0], i * self.state_out.strides[0], *v);
        }
        let sz = self.out.ty.byte_size();
        let mut j = 0;
        let o = outputs[1];
        crate::for_each_offset(&self.out.dims, &self.out.strides, |off| {
            let b = vals[j].to_ne_bytes();
            let src = if cfg!(target_endian = "little") {
                &b[..sz]
            } else {
                &b[8 - sz..]
            };
            std::ptr::copy_nonoverlapping(src.as_ptr(), o.add(off * sz), sz);
            j += 1;
        });
        Ok(())
    }
}
