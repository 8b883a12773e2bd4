//! reduce-precision's bit arithmetic: rounding a float's mantissa to fewer
//! bits (to nearest even) and clamping its exponent to a narrower range,
//! as XLA does. The evaluator applies a [`ReducePrecision`] to bits; the
//! code generators emit the same constants as LLVM instructions.

/// reduce-precision from a float of `src_man` mantissa and `src_exp`
/// exponent bits to `man` and `exp` bits. The op needs `exp >= 1` (callers
/// reject less); 0 is read as 1 here rather than overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReducePrecision {
    /// Mantissa rounding, when mantissa bits go.
    pub round: Option<MantissaRound>,
    /// Exponent clamping, when exponent bits go.
    pub clamp: Option<ExponentClamp>,
    /// What a NaN becomes: `None` keeps it (mantissa bits remain), else
    /// these bits (+infinity, as XLA's evaluator).
    pub nan_bits: Option<u64>,
    /// The source format's width in bits.
    pub total_bits: u32,
}

/// `v = (v + ((v & last) >> shift) + base_bias) & trunc_mask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MantissaRound {
    /// The lowest mantissa bit that stays.
    pub last: u64,
    /// Shifts `last` down to bit 0.
    pub shift: u32,
    pub base_bias: u64,
    pub trunc_mask: u64,
}

/// With `e = v & exp_mask`: `e > max_field` gives a signed infinity,
/// `e <= min_field` a signed zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExponentClamp {
    pub sign_mask: u64,
    pub exp_mask: u64,
    pub max_field: u64,
    pub min_field: u64,
}

impl ReducePrecision {
    pub fn new(src_man: u32, src_exp: u32, man: u32, exp: u32) -> Self {
        let round = (man < src_man).then(|| {
            let last = 1u64 << (src_man - man);
            MantissaRound {
                last,
                shift: src_man - man,
                base_bias: (last >> 1).wrapping_sub(1),
                trunc_mask: !(last - 1),
            }
        });
        let total_bits = src_man + src_exp + 1;
        let exp_mask = ((1u64 << src_exp) - 1) << src_man;
        let clamp = (exp < src_exp).then(|| {
            let bias = (1u64 << (src_exp - 1)) - 1;
            let reduced_bias = (1u64 << (exp.max(1) - 1)) - 1;
            ExponentClamp {
                sign_mask: 1u64 << (total_bits - 1),
                exp_mask,
                max_field: (bias + reduced_bias) << src_man,
                min_field: (bias - reduced_bias) << src_man,
            }
        });
        ReducePrecision {
            round,
            clamp,
            nan_bits: (man == 0).then_some(exp_mask),
            total_bits,
        }
    }

    /// reduce-precision of the float with bits `v` (`is_nan` says whether
    /// it is a NaN).
    pub fn apply(&self, mut v: u64, is_nan: bool) -> u64 {
        if is_nan {
            return self.nan_bits.unwrap_or(v);
        }
        if let Some(r) = self.round {
            let bias = ((v & r.last) >> r.shift).wrapping_add(r.base_bias);
            v = v.wrapping_add(bias) & r.trunc_mask;
            if self.total_bits < 64 {
                v &= (1u64 << self.total_bits) - 1;
            }
        }
        if let Some(c) = self.clamp {
            let e = v & c.exp_mask;
            let zero = v & c.sign_mask;
            if e > c.max_field {
                v = zero | c.exp_mask;
            }
            if e <= c.min_field {
                v = zero;
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::ReducePrecision;

    #[test]
    fn f32_to_bf16_and_f16_ranges() {
        let bf16 = ReducePrecision::new(23, 8, 7, 8);
        let f = |x: f32| f32::from_bits(bf16.apply(x.to_bits() as u64, x.is_nan()) as u32);
        assert_eq!(f(1.0), 1.0);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to even, 1.
        assert_eq!(f(1.0 + 1.0 / 256.0), 1.0);
        let f16 = ReducePrecision::new(23, 8, 10, 5);
        let g = |x: f32| f32::from_bits(f16.apply(x.to_bits() as u64, x.is_nan()) as u32);
        assert_eq!(g(1e6), f32::INFINITY);
        assert_eq!(g(-1e-9), -0.0);
        assert!(g(f32::NAN).is_nan());
        // No mantissa bits left: a NaN becomes +infinity.
        let e5m0 = ReducePrecision::new(23, 8, 0, 5);
        assert_eq!(
            e5m0.apply(f32::NAN.to_bits() as u64, true) as u32,
            0x7f80_0000
        );
    }
}
