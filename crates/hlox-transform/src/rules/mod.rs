//! Per-opcode rules shared by the transformations.
//!
//! - [`elementwise`]: each element-wise op's partial derivatives (jvp and
//!   vjp both use them).
//! - [`linear`]: the transposes of the linear structural ops (broadcast,
//!   slice, pad, dot, reduce-sum, ...), which reverse mode needs; forward
//!   mode applies the op itself to the tangents.

pub(crate) mod elementwise;
pub(crate) mod linear;

use hlox_hlo::ir::{BinaryOp, CompId, InstId, Module, Op};

/// The binary op a reduction computation applies, when it is
/// `(a, b) -> a op b` (or `b op a`) over scalars: how reduce's rules
/// recognize a sum, max or min.
pub(crate) fn reducer_op(m: &Module, comp: CompId) -> Option<BinaryOp> {
    m.computations.get(comp)?.binary_of_params().map(|(b, _)| b)
}

/// What a single-operand reduction's computation computes, as the
/// reduce rules tell reductions apart.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Reduction {
    /// `a + b`.
    Sum,
    /// `a * b`.
    Product,
    /// One of its two operands: `maximum`, `minimum`, or a `select(p, a,
    /// b)` of the two parameters whatever `p` is (JAX's max and min of
    /// complex numbers, which compare the real parts, then the imaginary
    /// ones). The result is one of the reduced elements (or the init
    /// value), which is all JAX's chooser rule needs: the derivative
    /// shared evenly among the elements equal to the result.
    Choice,
}

/// The [`Reduction`] a reduce's computation is, if any.
pub(crate) fn reduction(m: &Module, comp: CompId) -> Option<Reduction> {
    match reducer_op(m, comp) {
        Some(BinaryOp::Add) => return Some(Reduction::Sum),
        Some(BinaryOp::Multiply) => return Some(Reduction::Product),
        Some(BinaryOp::Maximum | BinaryOp::Minimum) => return Some(Reduction::Choice),
        Some(_) => return None,
        None => {}
    }
    let c = m.computations.get(comp)?;
    let [a, b] = c.params[..] else {
        return None;
    };
    let root = c.root_inst();
    let picks = matches!(root.op, Op::Select)
        && (root.operands[1..] == [a, b] || root.operands[1..] == [b, a])
        && c.inst(a).shape.as_array().is_some_and(|s| s.rank() == 0)
        && c.inst(a).shape == c.inst(b).shape
        && reads_both(c, root.operands[0], a, b);
    picks.then_some(Reduction::Choice)
}

/// Whether `x` depends on both `a` and `b`: a select that picks by
/// comparing the two (not one that always takes the same side, whose
/// result could be the init value, which no element equals).
fn reads_both(c: &hlox_hlo::ir::Computation, x: InstId, a: InstId, b: InstId) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![x];
    let (mut sa, mut sb) = (false, false);
    while let Some(y) = stack.pop() {
        if !seen.insert(y) {
            continue;
        }
        sa |= y == a;
        sb |= y == b;
        stack.extend(&c.inst(y).operands);
    }
    sa && sb
}

/// Whether a scatter's combiner computation returns its second parameter
/// (the update replaces the operand's element).
pub(crate) fn is_assignment(m: &Module, comp: CompId) -> bool {
    m.computations
        .get(comp)
        .is_some_and(|c| c.params.len() == 2 && c.root == c.params[1])
}

/// Whether a variadic reduce's computation over `(value, index)` pairs
/// picks one whole pair: it returns `(select(p, v0, v1), select(q, i0,
/// i1))` with the values and indices of the same sides in the same order
/// (JAX's argmax/argmin comparators, whose `p` and `q` differ only where
/// the two values are equal). Then the value result is the operand's
/// element at the index result, which is what the argmax rules use.
pub(crate) fn is_pair_picker(m: &Module, comp: CompId) -> bool {
    let Some(c) = m.computations.get(comp) else {
        return false;
    };
    let [v0, i0, v1, i1] = c.params[..] else {
        return false;
    };
    let root = c.root_inst();
    let (Op::Tuple, [sv, si]) = (&root.op, &root.operands[..]) else {
        return false;
    };
    let picks = |s, a, b| {
        let x = c.inst(s);
        matches!(x.op, Op::Select) && x.operands[1..] == [a, b]
    };
    (picks(*sv, v0, v1) && picks(*si, i0, i1)) || (picks(*sv, v1, v0) && picks(*si, i1, i0))
}
