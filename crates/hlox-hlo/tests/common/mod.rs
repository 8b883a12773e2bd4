//! Test data shared by the literal round-trip tests (proto, npy).

use half::{bf16, f16};
use hlox_hlo::{Complex32, Complex64, ElementType, Literal};

/// Literals of every element type at their extremes, plus a scalar and an
/// empty array; asserts that no element type is missing.
pub fn every_type_literals() -> Vec<Literal> {
    let lits = vec![
        Literal::r1(&[true, false, true]),
        Literal::r1(&[-128i8, 0, 127]),
        Literal::r1(&[-32768i16, 1, 32767]),
        Literal::r1(&[i32::MIN, -1, i32::MAX]),
        Literal::r1(&[i64::MIN, 0, i64::MAX]),
        Literal::r1(&[0u8, 7, 255]),
        Literal::r1(&[0u16, 258, 65535]),
        Literal::r1(&[0u32, 1, u32::MAX]),
        Literal::r1(&[0u64, 1, u64::MAX]),
        Literal::r1(&[f16::from_f32(1.0), f16::from_f32(-2.5), f16::INFINITY]),
        Literal::r1(&[
            bf16::from_f32(1.0),
            bf16::from_f32(-2.5),
            bf16::NEG_INFINITY,
        ]),
        Literal::r1(&[1.5f32, f32::MIN_POSITIVE, -0.0]),
        Literal::r1(&[1.5f64, f64::MAX, -1e-300]),
        Literal::r1(&[
            Complex32::new(1.5, -2.0),
            Complex32::new(f32::INFINITY, f32::MIN_POSITIVE),
        ]),
        Literal::r1(&[Complex64::new(-0.0, f64::MAX), Complex64::new(1e-300, 3.0)]),
        Literal::r0(42i32),
        Literal::from_vec::<f32>(&[2, 0], &[]).unwrap(),
    ];
    let tys: std::collections::HashSet<ElementType> = lits
        .iter()
        .map(|l| l.shape().element_type().unwrap())
        .collect();
    assert_eq!(tys.len(), ElementType::ALL.len());
    lits
}
