//! `fft`: decodes the operand and runs [`hlox_hlo::semantics::fft`], the
//! implementation the Host runtime shares.

use crate::value::{decode, encode, OpError, Vals, R};
use hlox_hlo::semantics::fft;
use hlox_hlo::{ArrayLiteral, ArrayShape, FftType};
use num_complex::Complex;

pub(crate) fn fft(
    a: &ArrayLiteral,
    fft_type: FftType,
    fft_length: &[i64],
    out: &ArrayShape,
) -> R<ArrayLiteral> {
    let lengths: Vec<usize> = fft_length
        .iter()
        .map(|&n| usize::try_from(n))
        .collect::<Result<_, _>>()
        .map_err(|_| {
            OpError::Invalid(format!("fft_length {fft_length:?} has a negative length"))
        })?;
    let v = decode(a);
    let r = match (fft_type, v) {
        (FftType::Fft | FftType::Ifft, Vals::C(mut z)) => {
            fft::complex(&mut z, &lengths, fft_type == FftType::Ifft);
            Vals::C(z)
        }
        (FftType::Fft | FftType::Ifft, Vals::Z(mut z)) => {
            fft::complex(&mut z, &lengths, fft_type == FftType::Ifft);
            Vals::Z(z)
        }
        (FftType::Rfft, Vals::F(x)) => {
            let mut z = vec![Complex::new(0.0, 0.0); out.element_count()];
            fft::real_forward(&x, &lengths, &mut z);
            Vals::C(z)
        }
        (FftType::Rfft, Vals::D(x)) => {
            let mut z = vec![Complex::new(0.0, 0.0); out.element_count()];
            fft::real_forward(&x, &lengths, &mut z);
            Vals::Z(z)
        }
        (FftType::Irfft, Vals::C(z)) => {
            let mut x = vec![0.0; out.element_count()];
            fft::real_inverse(&z, &lengths, &mut x);
            Vals::F(x)
        }
        (FftType::Irfft, Vals::Z(z)) => {
            let mut x = vec![0.0; out.element_count()];
            fft::real_inverse(&z, &lengths, &mut x);
            Vals::D(x)
        }
        _ => {
            return Err(OpError::Unsupported {
                op: "fft",
                ty: a.ty(),
            })
        }
    };
    Ok(encode(&r, out.ty, &out.dims))
}
