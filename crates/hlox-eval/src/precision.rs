//! Where bf16 results are rounded: XLA:CPU's default "excess precision"
//! rule, shared by the evaluator and the compile pipeline
//! (`hlox_passes::ExcessPrecision`), so that both round at the same places.
//!
//! XLA:CPU has no bf16 arithmetic: its `float-normalization` pass computes
//! every bf16 arithmetic instruction in f32 and converts the result back to
//! bf16. With `xla_allow_excess_precision` (on by default) that pass lets a
//! user which is itself a `convert` to f32 read the f32 result directly,
//! skipping the round trip through bf16. Nothing else is kept in f32: the
//! round trips it inserts between two bf16 instructions stay (so a chain of
//! bf16 ops rounds after every op, inside a fusion too), a `convert` pair
//! the program wrote itself (`f32 -> bf16 -> f32`) stays, a reshape,
//! transpose or select between the instruction and the convert keeps the
//! rounding, and reducers round after every step. F16 is computed as f16
//! (rounded after every op) whatever the flag. hlox measured this against
//! JAX 0.10.2 with and without `--xla_allow_excess_precision=false`
//! (docs/numerics.md lists the cases).
//!
//! So the rule is local: a `convert` to F32 of a bf16 instruction that
//! rounds ([`computes_in_f32`]) reads that instruction's value before
//! rounding. Calls are looked through: XLA inlines them before it
//! normalizes, so the evaluator treats a `call` whose callee's root rounds
//! as the root itself.

use hlox_hlo::{BinaryOp, ElementType, Instruction, Module, Op, UnaryOp};

/// Where bf16 results are rounded to bf16.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HalfRounding {
    /// XLA's default (`xla_allow_excess_precision=true`): a `convert` to
    /// f32 of a bf16 arithmetic result reads the f32 value before rounding
    /// (see the module documentation); every other bf16 and f16 result is
    /// rounded.
    #[default]
    ExcessPrecision,
    /// Every bf16 and f16 result is rounded to its type, as the HLO says
    /// (XLA with `--xla_allow_excess_precision=false`).
    EveryOp,
}

impl HalfRounding {
    /// The name used in options and messages (`excess-precision`, `every-op`).
    pub fn name(self) -> &'static str {
        match self {
            HalfRounding::ExcessPrecision => "excess-precision",
            HalfRounding::EveryOp => "every-op",
        }
    }
}

/// Whether `inst` is a bf16 arithmetic instruction that XLA:CPU computes in
/// f32 and rounds to bf16 afterwards: element-wise math that can round
/// (`add`, `multiply`, `exponential`, ...; not `negate`, `abs`, `maximum`,
/// ... whose results are exact), `dot` and `convolution`.
pub fn computes_in_f32(inst: &Instruction) -> bool {
    let Some(shape) = inst.shape.as_array() else {
        return false;
    };
    if shape.ty != ElementType::Bf16 {
        return false;
    }
    match &inst.op {
        Op::Unary(u) => {
            use UnaryOp::*;
            matches!(
                u,
                Exp | Expm1
                    | Log
                    | Log1p
                    | Sqrt
                    | Rsqrt
                    | Cbrt
                    | Tanh
                    | Logistic
                    | Sin
                    | Cos
                    | Tan
                    | Erf
            )
        }
        Op::Binary(b) => {
            use BinaryOp::*;
            matches!(b, Add | Subtract | Multiply | Divide | Power | Atan2)
        }
        Op::Dot { .. } | Op::Convolution(_) => true,
        _ => false,
    }
}

/// Whether `inst` is a `convert` to F32 (the user that reads an unrounded
/// value under [`HalfRounding::ExcessPrecision`]).
pub fn is_convert_to_f32(inst: &Instruction) -> bool {
    matches!(inst.op, Op::Convert)
        && inst
            .shape
            .as_array()
            .is_some_and(|s| s.ty == ElementType::F32)
}

/// Whether the value of `inst` (in `module`) has an unrounded f32 form that
/// a `convert` to F32 reads under [`HalfRounding::ExcessPrecision`]:
/// [`computes_in_f32`], or a `call` whose callee's root has one.
pub fn has_f32_form(module: &Module, inst: &Instruction) -> bool {
    let mut inst = inst;
    // A call chain is at most as long as the module has computations.
    for _ in 0..=module.computations.len() {
        if computes_in_f32(inst) {
            return true;
        }
        if !matches!(inst.op, Op::Call) {
            return false;
        }
        let Some(c) = inst
            .called
            .first()
            .and_then(|&c| module.computations.get(c))
        else {
            return false;
        };
        let Some(root) = c.instructions.get(c.root) else {
            return false;
        };
        inst = root;
    }
    false
}
