//! rng-bit-generator: the generators and their counter schedule are
//! `hlox_hlo::semantics::rng` (shared with the Host runtime and the CUDA
//! emitter); this file turns a plan's bits into literals.

use crate::value::{arr, R};
use hlox_hlo::semantics::rng::RngPlan;
use hlox_hlo::{ArrayLiteral, ArrayShape, RngAlgorithm};

/// Returns (new state, raw bits of the output as bytes of `out`'s element type).
pub(crate) fn rng_bit_generator(
    alg: RngAlgorithm,
    state: &ArrayLiteral,
    out: &ArrayShape,
) -> R<(ArrayLiteral, ArrayLiteral)> {
    let plan = RngPlan::new(
        alg,
        &ArrayShape::new(state.ty(), state.dims().to_vec()),
        out,
    )?;
    let st: Vec<u64> = state.to_vec::<u64>()?;
    let n = crate::value::checked_count(&out.dims)?;
    let mut values = vec![0u64; n];
    plan.generate(&st, 0, &mut values);
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
    let state_out = ArrayLiteral::from_vec(state.dims(), &plan.next_state(&st))?;
    Ok((state_out, value))
}
