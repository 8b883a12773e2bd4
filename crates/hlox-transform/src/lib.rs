//! Transformations over HLO: `jvp`, `vjp`, `grad` and `vmap` of a module,
//! each giving a new verified module (so results are compiled, printed,
//! serialized and transformed again: the vjp of a grad is a
//! Hessian-vector product, the vmap of a grad gives per-example
//! gradients).
//!
//! The conventions (the same as `hlox grad/vjp/jvp/vmap`, see
//! docs/transforms.md):
//!
//! - [`grad`]`(m, wrt)`: the module's parameters; returns the tuple of the
//!   gradients of its scalar floating-point result (or a one-element tuple
//!   of one, which is what `grad` returns: grad of grad), in `wrt` order.
//! - [`vjp`]`(m, wrt)`: the module's parameters, then one cotangent per
//!   result leaf (pre-order); returns the tuple of the `wrt` parameters'
//!   cotangents.
//! - [`jvp`]`(m, wrt)`: the module's parameters, then one tangent per `wrt`
//!   parameter; returns a tuple of the result leaves followed by their
//!   tangents.
//! - [`vmap`]`(m, in_axes, size)`: parameter `i` gains a batch dimension of
//!   `size` at `in_axes[i]` (`None`: not batched); every result leaf is
//!   batched at axis 0 and returned in a tuple.
//!
//! How: calls are inlined while transforming; forward mode carries a
//! tangent beside each value; reverse mode re-emits the forward pass
//! (recording a tape of the instructions that depend on the `wrt`
//! parameters) and walks it backwards with a transpose rule per opcode.
//! Element-wise derivatives are written once ([`rules::elementwise`]) and
//! used by both modes. vmap moves every batched value's batch dimension
//! to the front and rewrites each instruction by its batching rule
//! ([`vmap`]). An instruction outside coverage is an error naming it and
//! its opcode, never a wrong module.

mod collective;
mod custom;
mod emit;
mod jvp;
mod map;
mod rules;
mod split;
mod tan;
mod vjp;
mod vmap;

use hlox_hlo::verifier::{VerifiedModule, VerifyError};
use hlox_hlo::Module;

pub use custom::{CallInfo, RuleFn, RuleKind, Rules, VmapMethod};
pub use vmap::{vmap, vmap_with};

/// Why a transformation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransformError {
    /// The input module does not verify.
    #[error("{transform}: the input module does not verify:\n{source}")]
    Input {
        transform: &'static str,
        #[source]
        source: VerifyError,
    },
    /// An argument of the transformation does not fit the module (a `wrt`
    /// index past the parameters, a non-scalar result for `grad`, ...).
    #[error("{transform}: {message}")]
    Argument {
        transform: &'static str,
        message: String,
    },
    /// The instruction is outside what the transformation covers.
    #[error("{transform}: instruction `{instruction}` ({opcode}) is not supported: {detail}")]
    Unsupported {
        transform: &'static str,
        instruction: String,
        opcode: &'static str,
        detail: String,
    },
    /// A custom call whose target has no rule for this transformation.
    #[error("{transform}: custom call `{instruction}` calls target `{target}`, which has no {rule} rule (give one: docs/transforms.md, \"Custom calls\")")]
    MissingRule {
        transform: &'static str,
        instruction: String,
        target: String,
        rule: &'static str,
    },
    /// A custom-call rule that cannot be used for the call: its signature
    /// does not fit, or building it failed.
    #[error("{transform}: custom call `{instruction}` (target `{target}`): {message}")]
    Rule {
        transform: &'static str,
        instruction: String,
        target: String,
        message: String,
    },
    /// A rule built an instruction shape inference rejects (a bug in a
    /// rule): names the instruction being transformed.
    #[error("{transform}: while transforming `{instruction}`: {message}")]
    Emit {
        transform: &'static str,
        instruction: String,
        message: String,
    },
    /// The transformed module does not verify (a bug in a rule).
    #[error(
        "{transform}: the transformed module does not verify (a bug in hlox-transform):\n{source}"
    )]
    Output {
        transform: &'static str,
        #[source]
        source: VerifyError,
    },
}

pub use jvp::{jvp, jvp_with};
pub use vjp::{grad, grad_with, vjp, vjp_with};

/// Verifies the input and refuses what no rule covers; returns the module
/// the transformation walks: `m`, or a copy with its `map`s expanded into
/// element-wise ops and, for jvp and vjp, its variadic reduces that mix
/// their operands made trees of element-wise steps and its variadic
/// reduce-windows folds over their windows ([`map::expand_maps`]), and
/// its variadic reduces and reduce-windows that reduce each operand on
/// its own split into one per operand ([`split::split_reduces`]).
/// Complex values are checked for jvp and vjp only: batching does not
/// depend on the element type.
fn check_input<'m>(
    m: &'m Module,
    transform: &'static str,
) -> Result<std::borrow::Cow<'m, Module>, TransformError> {
    hlox_hlo::verifier::verify_module(m)
        .map_err(|source| TransformError::Input { transform, source })?;
    let m = unfuse(m);
    let expanded = match map::expand_maps(&m, transform, transform != "vmap")? {
        std::borrow::Cow::Owned(x) => Some(x),
        std::borrow::Cow::Borrowed(_) => None,
    };
    let m = expanded.map_or(m, std::borrow::Cow::Owned);
    let m = match split::split_reduces(&m) {
        Some(split) => std::borrow::Cow::Owned(split),
        None => m,
    };
    if transform != "vmap" {
        complex_coverage(&m, transform)?;
    }
    Ok(m)
}

/// `m` with every `fusion` a `call` of its fused computation (what an
/// optimized module, e.g. one hlox or XLA dumped after its passes, holds):
/// a fusion computes exactly what its computation computes, so the call's
/// rules (walking the callee) transform it; the transformed module is
/// fused again by the pass pipeline when compiled.
fn unfuse(m: &Module) -> std::borrow::Cow<'_, Module> {
    use hlox_hlo::ir::Op;
    let fused = |c: &hlox_hlo::ir::Computation| {
        c.instructions
            .values()
            .any(|i| matches!(i.op, Op::Fusion { .. }))
    };
    if !m.computations.values().any(fused) {
        return std::borrow::Cow::Borrowed(m);
    }
    let mut out = m.clone();
    for c in out.computations.values_mut() {
        for inst in c.instructions.values_mut() {
            if matches!(inst.op, Op::Fusion { .. }) {
                inst.op = Op::Call;
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Refuses an instruction with complex operands or results that no rule
/// covers for complex values (see `rules::elementwise` for the
/// convention): the ops matched here are the covered ones; the others are
/// refused with why (JAX refusing them too, where it does).
fn complex_coverage(m: &Module, transform: &'static str) -> Result<(), TransformError> {
    use hlox_hlo::ir::{BinaryOp as B, Op, UnaryOp as U};
    use rules::Reduction;
    let complex = |s: &hlox_hlo::Shape| {
        s.leaves()
            .iter()
            .any(|(_, l)| l.element_type().is_some_and(|t| t.is_complex()))
    };
    const NOT_YET: &str = "its complex values are not transformed yet (covered for complex numbers: element-wise math, `power`, `abs`, `real`, `imag`, `complex`, compare, select, convert, data movement, `dot`, `convolution`, `fft`, sum, product and max/min reductions, sum and product reduce-windows (`cumsum`, `cumprod`), reduce-windows of element-wise computations, `sort`, gather, scatter that adds, multiplies or assigns, the linear collectives, custom calls with rules, calls, conditionals and loops)";
    for c in m.computations.values() {
        for inst in c.instructions.values() {
            let touches =
                complex(&inst.shape) || inst.operands.iter().any(|&o| complex(&c.inst(o).shape));
            if !touches {
                continue;
            }
            let refused: Option<String> = match &inst.op {
                Op::Unary(u) => match u {
                    U::Negate
                    | U::Exp
                    | U::Expm1
                    | U::Log
                    | U::Log1p
                    | U::Sqrt
                    | U::Rsqrt
                    | U::Tanh
                    | U::Logistic
                    | U::Sin
                    | U::Cos
                    | U::Tan
                    | U::Sign
                    | U::Real
                    | U::Imag
                    | U::Abs => None,
                    // JAX's dtype rules take floating point only.
                    U::Cbrt
                    | U::Floor
                    | U::Ceil
                    | U::RoundNearestAfz
                    | U::RoundNearestEven
                    | U::IsFinite
                    | U::Erf => Some(format!(
                        "`{}` of complex values has no derivative: JAX does not accept a complex operand for it either (its dtype rule takes floating point only), so there is no convention to follow",
                        u.name()
                    )),
                    _ => Some(NOT_YET.into()),
                },
                Op::Binary(b) => match b {
                    B::Add
                    | B::Subtract
                    | B::Multiply
                    | B::Divide
                    | B::Complex
                    | B::Power
                    | B::Atan2 => None,
                    B::Remainder => Some(
                        "`remainder` of complex values has no derivative: JAX does not accept complex operands for `rem` either".into(),
                    ),
                    _ => Some(NOT_YET.into()),
                },
                // Sums, products and max/min (the chooser rule) of one
                // operand; the variadic reduces left after `check_input`'s
                // splits and trees are argmax/argmin ones, whose rule
                // gathers the tangent at the index whatever its type; any
                // other reduce is refused by the rules, naming it.
                Op::Reduce { .. } => None,
                Op::ReduceWindow { .. } => match rules::reduction(m, inst.called[0]) {
                    Some(Reduction::Choice) if inst.operands.len() == 2 => Some(
                        "a max or min reduce-window (`cummax`, max-pool) of complex values has no derivative: JAX refuses its jvp too (it compares complex values with `ge`)".into(),
                    ),
                    // Sums and products; the others were folded.
                    _ => None,
                },
                Op::SelectAndScatter { .. } => Some(
                    "a select-and-scatter of complex values (a complex max-pool's gradient) is not differentiated: JAX has no complex max-pool to differentiate either (it refuses the pool's jvp: it compares complex values with `ge`)".into(),
                ),
                Op::BitcastConvert => Some(
                    "`bitcast-convert` of complex values has no derivative: JAX does not bitcast complex values to another type either".into(),
                ),
                // Adding, multiplying (holomorphic) and assigning
                // scatters; the rules refuse the others, naming them.
                Op::Scatter { .. } => None,
                Op::AllReduce(_)
                | Op::AllGather { .. }
                | Op::ReduceScatter { .. }
                | Op::AllToAll { .. }
                | Op::CollectivePermute { .. }
                | Op::CollectiveBroadcast(_) => None,
                Op::Parameter { .. }
                | Op::Constant { .. }
                | Op::Iota { .. }
                | Op::Tuple
                | Op::GetTupleElement { .. }
                | Op::Copy
                | Op::Compare { .. }
                | Op::Select
                | Op::Convert
                | Op::Broadcast { .. }
                | Op::Reshape
                | Op::Bitcast
                | Op::Transpose { .. }
                | Op::Reverse { .. }
                | Op::Slice { .. }
                | Op::Pad { .. }
                | Op::Concatenate { .. }
                | Op::Dot { .. }
                | Op::Convolution(_)
                | Op::DynamicSlice { .. }
                | Op::DynamicUpdateSlice
                | Op::Gather { .. }
                | Op::Sort { .. }
                | Op::Fft { .. }
                | Op::CustomCall(_)
                | Op::Call
                | Op::Conditional
                | Op::While
                | Op::OptimizationBarrier => None,
                Op::TopK { .. } | Op::Clamp | Op::ReducePrecision { .. } => Some(format!(
                    "`{}` of complex values has no derivative: JAX does not differentiate it for complex values either",
                    inst.op.name()
                )),
                _ => Some(NOT_YET.into()),
            };
            if let Some(detail) = refused {
                return Err(TransformError::Unsupported {
                    transform,
                    instruction: inst.name.clone(),
                    opcode: inst.op.name(),
                    detail,
                });
            }
        }
    }
    Ok(())
}

fn check_wrt(m: &Module, wrt: &[usize], transform: &'static str) -> Result<(), TransformError> {
    let entry = m.entry_computation();
    for &w in wrt {
        let Some(&p) = entry.params.get(w) else {
            return Err(TransformError::Argument {
                transform,
                message: format!(
                    "wrt parameter {w} does not exist: `{}` has {} parameters",
                    entry.name,
                    entry.params.len()
                ),
            });
        };
        let inst = entry.inst(p);
        let float = inst
            .shape
            .leaves()
            .iter()
            .all(|(_, s)| s.element_type().is_some_and(|t| t.is_float_or_complex()));
        if !float {
            return Err(TransformError::Argument {
                transform,
                message: format!(
                    "wrt parameter {w} (`{}`, {}) is not floating point or complex: only floating-point and complex parameters can be differentiated",
                    inst.name,
                    hlox_hlo::shape_inference::short(&inst.shape)
                ),
            });
        }
    }
    Ok(())
}

fn finish(
    out: emit::Out,
    entry: hlox_hlo::CompId,
    transform: &'static str,
) -> Result<VerifiedModule, TransformError> {
    let m = out.finish(entry);
    VerifiedModule::new(m).map_err(|source| TransformError::Output { transform, source })
}

fn unsupported(
    transform: &'static str,
    inst: &hlox_hlo::Instruction,
    detail: impl Into<String>,
) -> TransformError {
    TransformError::Unsupported {
        transform,
        instruction: inst.name.clone(),
        opcode: inst.op.name(),
        detail: detail.into(),
    }
}
