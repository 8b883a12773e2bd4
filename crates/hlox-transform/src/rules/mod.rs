//! Per-opcode rules shared by the transformations.
//!
//! - [`elementwise`]: each element-wise op's partial derivatives (jvp and
//!   vjp both use them).
//! - [`linear`]: the transposes of the linear structural ops (broadcast,
//!   slice, pad, dot, reduce-sum, ...), which reverse mode needs; forward
//!   mode applies the op itself to the tangents.

pub(crate) mod elementwise;
pub(crate) mod linear;

use hlox_hlo::ir::{BinaryOp, CompId, Module};

/// The binary op a reduction computation applies, when it is
/// `(a, b) -> a op b` (or `b op a`) over scalars: how reduce's rules
/// recognize a sum, max or min.
pub(crate) fn reducer_op(m: &Module, comp: CompId) -> Option<BinaryOp> {
    m.computations.get(comp)?.binary_of_params().map(|(b, _)| b)
}

/// Whether a scatter's combiner computation returns its second parameter
/// (the update replaces the operand's element).
pub(crate) fn is_assignment(m: &Module, comp: CompId) -> bool {
    m.computations
        .get(comp)
        .is_some_and(|c| c.params.len() == 2 && c.root == c.params[1])
}
