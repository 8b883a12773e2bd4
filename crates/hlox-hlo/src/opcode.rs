//! The opcode table: one entry per HLO opcode, in the spirit of XLA's
//! `hlo_opcode.h` (`HLO_OPCODE_LIST`) and Cranelift's `meta` crate.
//!
//! **Architecture invariant:** an opcode's text name is written here and
//! nowhere else. Everything that needs to know about opcodes as a set (the
//! text parser and printer, proto encode and decode, shape inference's
//! operand-count and called-computation checks, the verifier, the tests that
//! walk every opcode) asks [`Opcode`], which this table generates:
//!
//! - the fieldless [`Opcode`] enum, [`Opcode::ALL`], [`Opcode::name`] and
//!   [`Opcode::from_name`] (the only name lookup, both ways);
//! - [`Opcode::arity`]: how many operands shape inference accepts at most
//!   coarse grain (the exact rule, e.g. "an even number", is the shape rule's);
//! - [`Opcode::called_roles`]: the role of each entry of
//!   [`Instruction::called`](crate::ir::Instruction::called), from which the
//!   parser and printer get the attribute keys (`to_apply=`, `condition=`...)
//!   and shape inference the number of called computations;
//! - properties ([`Opcode::is_elementwise`], [`Opcode::is_collective`], ...).
//!
//! The attributes of an opcode stay in the fields of its [`Op`] variant;
//! [`Op::opcode`] maps an `Op` to its table entry with one exhaustive match,
//! so a new `Op` variant without a table entry does not compile.
//! The element-wise families [`UnaryOp`] and [`BinaryOp`] are generated from
//! their sections of the table, so their opcodes are table entries too.
//!
//! Adding an opcode: see docs/architecture.md, "Adding an opcode".

use crate::ir::Op;

/// How many operands an opcode takes, as the table states it. Shape
/// inference enforces the finer rules (an even count for `reduce`, one index
/// per dimension for `dynamic-slice`, ...).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Arity {
    /// Exactly this many operands.
    Fixed(usize),
    /// At least this many operands (`AtLeast(0)`: any number).
    AtLeast(usize),
}

impl Arity {
    /// Whether `n` operands fit this arity.
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Fixed(k) => n == k,
            Arity::AtLeast(k) => n >= k,
        }
    }
    /// The smallest operand count this arity accepts.
    pub fn min(self) -> usize {
        match self {
            Arity::Fixed(k) | Arity::AtLeast(k) => k,
        }
    }
}

/// How a called computation is used. Each opcode lists its roles in the
/// table ([`Opcode::called_roles`]); [`Instruction::called`] holds the
/// computations in that order.
///
/// [`Instruction::called`]: crate::ir::Instruction::called
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CalledRole {
    /// `to_apply=`
    ToApply,
    /// `condition=`
    Condition,
    /// `body=`
    Body,
    /// `select=`
    Select,
    /// `scatter=`
    Scatter,
    /// `branch_computations={...}` (or `true_computation=`/`false_computation=`)
    Branches,
    /// `calls=`
    Calls,
    /// `called_computations={...}` (or a single `to_apply=`)
    CalledComputations,
}

impl CalledRole {
    /// Every role.
    pub const ALL: [CalledRole; 8] = [
        CalledRole::ToApply,
        CalledRole::Condition,
        CalledRole::Body,
        CalledRole::Select,
        CalledRole::Scatter,
        CalledRole::Branches,
        CalledRole::Calls,
        CalledRole::CalledComputations,
    ];

    /// The attribute key this role is printed with in HLO text.
    pub fn key(self) -> &'static str {
        match self {
            CalledRole::ToApply => "to_apply",
            CalledRole::Condition => "condition",
            CalledRole::Body => "body",
            CalledRole::Select => "select",
            CalledRole::Scatter => "scatter",
            CalledRole::Branches => "branch_computations",
            CalledRole::Calls => "calls",
            CalledRole::CalledComputations => "called_computations",
        }
    }

    /// True for a role that covers all remaining called computations and is
    /// written as a list (`{a, b}`); the other roles name one computation.
    pub fn is_list(self) -> bool {
        matches!(self, CalledRole::Branches | CalledRole::CalledComputations)
    }

    /// Other single-computation keys XLA's text accepts for a list role, in
    /// the order their computations take in the list:
    /// `true_computation=`/`false_computation=` for a conditional's branches
    /// and `to_apply=` for a custom call's one computation.
    pub fn alternative_keys(self) -> &'static [&'static str] {
        match self {
            CalledRole::Branches => &["true_computation", "false_computation"],
            CalledRole::CalledComputations => &["to_apply"],
            _ => &[],
        }
    }

    /// Whether the attribute `key` names called computations in any role,
    /// and if so whether its value is a list (`{a, b}`) or one name.
    pub fn key_kind(key: &str) -> Option<KeyKind> {
        CalledRole::ALL.iter().find_map(|r| {
            if r.key() == key {
                Some(if r.is_list() {
                    KeyKind::List
                } else {
                    KeyKind::Single
                })
            } else if r.alternative_keys().contains(&key) {
                Some(KeyKind::Single)
            } else {
                None
            }
        })
    }
}

/// The form of a called-computation attribute's value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum KeyKind {
    /// `key=name`
    Single,
    /// `key={name, name}`
    List,
}

/// Opcode properties, as bits of [`Opcode::properties`].
pub mod props {
    /// No property.
    pub const NONE: u16 = 0;
    /// Each result element depends only on the same element of each operand.
    pub const ELEMENTWISE: u16 = 1 << 0;
    /// May have a side effect (a custom call with `custom_call_has_side_effect=true`).
    pub const SIDE_EFFECT: u16 = 1 << 1;
    /// A collective over replica groups, or a device id (see `single-device-collectives`).
    pub const COLLECTIVE: u16 = 1 << 2;
    /// Costly enough that passes should not duplicate it (XLA's `IsExpensive`).
    pub const EXPENSIVE: u16 = 1 << 3;
    /// The result shape is not determined by operands and attributes: it must
    /// be declared (`shape_inference::check_shape`).
    pub const DECLARED_SHAPE: u16 = 1 << 4;
    /// XLA's scheduler splits it into `-start`/`-done` pairs, which hlox
    /// does not read (the parser says so).
    pub const ASYNC_PAIR: u16 = 1 << 5;
}

/// An element-wise family (`UnaryOp`, `BinaryOp`): its enum, generated from
/// its section of the table, and the conversions to and from [`Opcode`].
macro_rules! opcode_family {
    ($(#[$doc:meta])* $fam:ident, $as_fn:ident, [$($v:ident = $n:literal),*]) => {
        $(#[$doc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        pub enum $fam {
            $($v,)*
        }

        impl $fam {
            /// Every operation of the family, in table order.
            pub const ALL: [$fam; [$($n),*].len()] = [$($fam::$v,)*];

            /// The table entry of this operation.
            pub const fn opcode(self) -> Opcode {
                match self {
                    $($fam::$v => Opcode::$v,)*
                }
            }

            /// XLA's opcode name (`exponential-minus-one`, `shift-left`).
            pub fn name(self) -> &'static str {
                self.opcode().name()
            }
        }

        impl Opcode {
            /// The family member of an opcode of this section of the table.
            pub const fn $as_fn(self) -> Option<$fam> {
                match self {
                    $(Opcode::$v => Some($fam::$v),)*
                    _ => None,
                }
            }
        }
    };
}

macro_rules! opcode_table {
    (
        ops { $( $ov:ident = $on:literal, $oa:expr, [$($or:ident),*], $op:expr; )* }
        unary { $( $uv:ident = $un:literal, $ua:expr, [$($ur:ident),*], $up:expr; )* }
        binary { $( $bv:ident = $bn:literal, $ba:expr, [$($br:ident),*], $bp:expr; )* }
    ) => {
        /// An HLO opcode without its attributes: one variant per table entry.
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum Opcode {
            $($ov,)*
            $($uv,)*
            $($bv,)*
        }

        opcode_family!(
            /// Element-wise unary operations (the table's `unary` section).
            UnaryOp, as_unary, [$($uv = $un),*]
        );
        opcode_family!(
            /// Element-wise binary operations (the table's `binary` section).
            BinaryOp, as_binary, [$($bv = $bn),*]
        );

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[
                $(Opcode::$ov,)* $(Opcode::$uv,)* $(Opcode::$bv,)*
            ];

            /// XLA's opcode name as written in HLO text and `HloInstructionProto.opcode`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Opcode::$ov => $on,)* $(Opcode::$uv => $un,)* $(Opcode::$bv => $bn,)*
                }
            }

            /// The opcode named `name` (XLA's spelling), if hlox has it.
            pub fn from_name(name: &str) -> Option<Opcode> {
                match name {
                    $($on => Some(Opcode::$ov),)*
                    $($un => Some(Opcode::$uv),)*
                    $($bn => Some(Opcode::$bv),)*
                    _ => None,
                }
            }

            /// How many operands this opcode takes.
            pub const fn arity(self) -> Arity {
                #[allow(unused_imports)]
                use Arity::*;
                match self {
                    $(Opcode::$ov => $oa,)* $(Opcode::$uv => $ua,)* $(Opcode::$bv => $ba,)*
                }
            }

            /// The role of each entry of `Instruction::called`. A list role
            /// ([`CalledRole::is_list`]) covers all remaining entries.
            pub const fn called_roles(self) -> &'static [CalledRole] {
                #[allow(unused_imports)]
                use CalledRole::*;
                match self {
                    $(Opcode::$ov => &[$($or),*],)*
                    $(Opcode::$uv => &[$($ur),*],)*
                    $(Opcode::$bv => &[$($br),*],)*
                }
            }

            /// The property bits of this opcode ([`props`]).
            pub const fn properties(self) -> u16 {
                #[allow(unused_imports)]
                use props::*;
                match self {
                    $(Opcode::$ov => $op,)* $(Opcode::$uv => $up,)* $(Opcode::$bv => $bp,)*
                }
            }
        }
    };
}

opcode_table! {
    // Opcode             text name                 operands     called roles             properties
    ops {
        Parameter          = "parameter",            Fixed(0),    [],                      DECLARED_SHAPE;
        Constant           = "constant",             Fixed(0),    [],                      NONE;
        Iota               = "iota",                 Fixed(0),    [],                      DECLARED_SHAPE;
        Compare            = "compare",              Fixed(2),    [],                      ELEMENTWISE;
        Select             = "select",               Fixed(3),    [],                      ELEMENTWISE;
        Clamp              = "clamp",                Fixed(3),    [],                      ELEMENTWISE;
        Convert            = "convert",              Fixed(1),    [],                      ELEMENTWISE | DECLARED_SHAPE;
        BitcastConvert     = "bitcast-convert",      Fixed(1),    [],                      DECLARED_SHAPE;
        ReducePrecision    = "reduce-precision",     Fixed(1),    [],                      ELEMENTWISE;
        Broadcast          = "broadcast",            Fixed(1),    [],                      DECLARED_SHAPE;
        Reshape            = "reshape",              Fixed(1),    [],                      DECLARED_SHAPE;
        Bitcast            = "bitcast",              Fixed(1),    [],                      DECLARED_SHAPE;
        Transpose          = "transpose",            Fixed(1),    [],                      NONE;
        Reverse            = "reverse",              Fixed(1),    [],                      NONE;
        Slice              = "slice",                Fixed(1),    [],                      NONE;
        DynamicSlice       = "dynamic-slice",        AtLeast(1),  [],                      NONE;
        DynamicUpdateSlice = "dynamic-update-slice", AtLeast(2),  [],                      NONE;
        Concatenate        = "concatenate",          AtLeast(1),  [],                      NONE;
        Pad                = "pad",                  Fixed(2),    [],                      NONE;
        Dot                = "dot",                  Fixed(2),    [],                      EXPENSIVE;
        Reduce             = "reduce",               AtLeast(2),  [ToApply],               EXPENSIVE;
        ReduceWindow       = "reduce-window",        AtLeast(2),  [ToApply],               EXPENSIVE;
        SelectAndScatter   = "select-and-scatter",   Fixed(3),    [Select, Scatter],       EXPENSIVE;
        Convolution        = "convolution",          Fixed(2),    [],                      EXPENSIVE;
        Gather             = "gather",               Fixed(2),    [],                      EXPENSIVE;
        Scatter            = "scatter",              AtLeast(3),  [ToApply],               EXPENSIVE;
        Sort               = "sort",                 AtLeast(1),  [ToApply],               EXPENSIVE;
        TopK               = "topk",                 Fixed(1),    [],                      EXPENSIVE;
        Fft                = "fft",                  Fixed(1),    [],                      EXPENSIVE;
        Tuple              = "tuple",                AtLeast(0),  [],                      NONE;
        GetTupleElement    = "get-tuple-element",    Fixed(1),    [],                      NONE;
        Call               = "call",                 AtLeast(0),  [ToApply],               EXPENSIVE;
        While              = "while",                Fixed(1),    [Condition, Body],       EXPENSIVE;
        Conditional        = "conditional",          AtLeast(1),  [Branches],              EXPENSIVE;
        Map                = "map",                  AtLeast(1),  [ToApply],               EXPENSIVE;
        Copy               = "copy",                 Fixed(1),    [],                      NONE;
        CustomCall         = "custom-call",          AtLeast(0),  [CalledComputations],    SIDE_EFFECT | EXPENSIVE | DECLARED_SHAPE;
        RngBitGenerator    = "rng-bit-generator",    Fixed(1),    [],                      EXPENSIVE | DECLARED_SHAPE;
        OptimizationBarrier = "opt-barrier",         Fixed(1),    [],                      NONE;
        AfterAll           = "after-all",            AtLeast(0),  [],                      NONE;
        Fusion             = "fusion",               AtLeast(0),  [Calls],                 EXPENSIVE;
        AllReduce          = "all-reduce",           AtLeast(1),  [ToApply],               COLLECTIVE | EXPENSIVE | ASYNC_PAIR;
        AllGather          = "all-gather",           Fixed(1),    [],                      COLLECTIVE | EXPENSIVE | ASYNC_PAIR;
        ReduceScatter      = "reduce-scatter",       Fixed(1),    [ToApply],               COLLECTIVE | EXPENSIVE;
        AllToAll           = "all-to-all",           AtLeast(1),  [],                      COLLECTIVE | EXPENSIVE;
        CollectivePermute  = "collective-permute",   Fixed(1),    [],                      COLLECTIVE | EXPENSIVE | ASYNC_PAIR;
        CollectiveBroadcast = "collective-broadcast", Fixed(1),   [],                      COLLECTIVE | EXPENSIVE;
        ReplicaId          = "replica-id",           Fixed(0),    [],                      COLLECTIVE;
        PartitionId        = "partition-id",         Fixed(0),    [],                      COLLECTIVE;
    }
    unary {
        Negate             = "negate",               Fixed(1),    [],                      ELEMENTWISE;
        Abs                = "abs",                  Fixed(1),    [],                      ELEMENTWISE;
        Sign               = "sign",                 Fixed(1),    [],                      ELEMENTWISE;
        Not                = "not",                  Fixed(1),    [],                      ELEMENTWISE;
        Exp                = "exponential",          Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Expm1              = "exponential-minus-one", Fixed(1),   [],                      ELEMENTWISE | EXPENSIVE;
        Log                = "log",                  Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Log1p              = "log-plus-one",         Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Sqrt               = "sqrt",                 Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Rsqrt              = "rsqrt",                Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Cbrt               = "cbrt",                 Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Tanh               = "tanh",                 Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Logistic           = "logistic",             Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Sin                = "sine",                 Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Cos                = "cosine",               Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Tan                = "tan",                  Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        Floor              = "floor",                Fixed(1),    [],                      ELEMENTWISE;
        Ceil               = "ceil",                 Fixed(1),    [],                      ELEMENTWISE;
        RoundNearestAfz    = "round-nearest-afz",    Fixed(1),    [],                      ELEMENTWISE;
        RoundNearestEven   = "round-nearest-even",   Fixed(1),    [],                      ELEMENTWISE;
        IsFinite           = "is-finite",            Fixed(1),    [],                      ELEMENTWISE;
        Erf                = "erf",                  Fixed(1),    [],                      ELEMENTWISE | EXPENSIVE;
        PopulationCount    = "popcnt",               Fixed(1),    [],                      ELEMENTWISE;
        CountLeadingZeros  = "count-leading-zeros",  Fixed(1),    [],                      ELEMENTWISE;
        Real               = "real",                 Fixed(1),    [],                      ELEMENTWISE;
        Imag               = "imag",                 Fixed(1),    [],                      ELEMENTWISE;
    }
    binary {
        Add                = "add",                  Fixed(2),    [],                      ELEMENTWISE;
        Subtract           = "subtract",             Fixed(2),    [],                      ELEMENTWISE;
        Multiply           = "multiply",             Fixed(2),    [],                      ELEMENTWISE;
        Divide             = "divide",               Fixed(2),    [],                      ELEMENTWISE | EXPENSIVE;
        Remainder          = "remainder",            Fixed(2),    [],                      ELEMENTWISE | EXPENSIVE;
        Power              = "power",                Fixed(2),    [],                      ELEMENTWISE | EXPENSIVE;
        Maximum            = "maximum",              Fixed(2),    [],                      ELEMENTWISE;
        Minimum            = "minimum",              Fixed(2),    [],                      ELEMENTWISE;
        And                = "and",                  Fixed(2),    [],                      ELEMENTWISE;
        Or                 = "or",                   Fixed(2),    [],                      ELEMENTWISE;
        Xor                = "xor",                  Fixed(2),    [],                      ELEMENTWISE;
        ShiftLeft          = "shift-left",           Fixed(2),    [],                      ELEMENTWISE;
        ShiftRightLogical  = "shift-right-logical",  Fixed(2),    [],                      ELEMENTWISE;
        ShiftRightArithmetic = "shift-right-arithmetic", Fixed(2), [],                     ELEMENTWISE;
        Atan2              = "atan2",                Fixed(2),    [],                      ELEMENTWISE | EXPENSIVE;
        Complex            = "complex",              Fixed(2),    [],                      ELEMENTWISE;
    }
}

impl Opcode {
    fn has(self, bit: u16) -> bool {
        self.properties() & bit != 0
    }
    /// Each result element depends only on the same element of each operand.
    pub fn is_elementwise(self) -> bool {
        self.has(props::ELEMENTWISE)
    }
    /// May have a side effect; for a custom call [`Op::has_side_effect`] reads its flag.
    pub fn may_have_side_effect(self) -> bool {
        self.has(props::SIDE_EFFECT)
    }
    /// A collective (see [`Op::AllReduce`]) or a device id.
    pub fn is_collective(self) -> bool {
        self.has(props::COLLECTIVE)
    }
    /// Costly enough that a pass should not duplicate it.
    pub fn is_expensive(self) -> bool {
        self.has(props::EXPENSIVE)
    }
    /// The result shape must be declared: shape inference cannot compute it
    /// from operands and attributes alone.
    pub fn needs_declared_shape(self) -> bool {
        self.has(props::DECLARED_SHAPE)
    }
    /// XLA's scheduler splits it into `<name>-start`/`<name>-done`.
    pub fn has_async_pair(self) -> bool {
        self.has(props::ASYNC_PAIR)
    }
    /// The roles that name exactly one computation each (all but a list role).
    pub fn single_roles(self) -> impl Iterator<Item = CalledRole> {
        self.called_roles().iter().copied().filter(|r| !r.is_list())
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Op {
    /// This op's table entry. One exhaustive match: a new `Op` variant does
    /// not compile until it has one.
    pub fn opcode(&self) -> Opcode {
        match self {
            Op::Parameter { .. } => Opcode::Parameter,
            Op::Constant { .. } => Opcode::Constant,
            Op::Iota { .. } => Opcode::Iota,
            Op::Unary(u) => u.opcode(),
            Op::Binary(b) => b.opcode(),
            Op::Compare { .. } => Opcode::Compare,
            Op::Select => Opcode::Select,
            Op::Clamp => Opcode::Clamp,
            Op::Convert => Opcode::Convert,
            Op::BitcastConvert => Opcode::BitcastConvert,
            Op::ReducePrecision { .. } => Opcode::ReducePrecision,
            Op::Broadcast { .. } => Opcode::Broadcast,
            Op::Reshape => Opcode::Reshape,
            Op::Bitcast => Opcode::Bitcast,
            Op::Transpose { .. } => Opcode::Transpose,
            Op::Reverse { .. } => Opcode::Reverse,
            Op::Slice { .. } => Opcode::Slice,
            Op::DynamicSlice { .. } => Opcode::DynamicSlice,
            Op::DynamicUpdateSlice => Opcode::DynamicUpdateSlice,
            Op::Concatenate { .. } => Opcode::Concatenate,
            Op::Pad { .. } => Opcode::Pad,
            Op::Dot { .. } => Opcode::Dot,
            Op::Reduce { .. } => Opcode::Reduce,
            Op::ReduceWindow { .. } => Opcode::ReduceWindow,
            Op::SelectAndScatter { .. } => Opcode::SelectAndScatter,
            Op::Convolution(_) => Opcode::Convolution,
            Op::Gather { .. } => Opcode::Gather,
            Op::Scatter { .. } => Opcode::Scatter,
            Op::Sort { .. } => Opcode::Sort,
            Op::TopK { .. } => Opcode::TopK,
            Op::Fft { .. } => Opcode::Fft,
            Op::Tuple => Opcode::Tuple,
            Op::GetTupleElement { .. } => Opcode::GetTupleElement,
            Op::Call => Opcode::Call,
            Op::While => Opcode::While,
            Op::Conditional => Opcode::Conditional,
            Op::Map { .. } => Opcode::Map,
            Op::Copy => Opcode::Copy,
            Op::CustomCall(_) => Opcode::CustomCall,
            Op::RngBitGenerator { .. } => Opcode::RngBitGenerator,
            Op::OptimizationBarrier => Opcode::OptimizationBarrier,
            Op::AfterAll => Opcode::AfterAll,
            Op::Fusion { .. } => Opcode::Fusion,
            Op::AllReduce(_) => Opcode::AllReduce,
            Op::AllGather { .. } => Opcode::AllGather,
            Op::ReduceScatter { .. } => Opcode::ReduceScatter,
            Op::AllToAll { .. } => Opcode::AllToAll,
            Op::CollectivePermute { .. } => Opcode::CollectivePermute,
            Op::CollectiveBroadcast(_) => Opcode::CollectiveBroadcast,
            Op::ReplicaId => Opcode::ReplicaId,
            Op::PartitionId => Opcode::PartitionId,
        }
    }

    /// XLA's opcode name as printed in HLO text.
    pub fn name(&self) -> &'static str {
        self.opcode().name()
    }

    /// The role of each entry of [`Instruction::called`](crate::ir::Instruction::called)
    /// for this opcode (from the table).
    pub fn called_roles(&self) -> &'static [CalledRole] {
        self.opcode().called_roles()
    }

    /// True for ops whose per-element result depends only on the same element
    /// of each operand (unary, binary, compare, select, clamp, convert, ...).
    pub fn is_elementwise(&self) -> bool {
        self.opcode().is_elementwise()
    }

    /// True for the collective opcodes (see [`Op::AllReduce`]).
    pub fn is_collective(&self) -> bool {
        self.opcode().is_collective()
    }

    /// True when this instruction has a side effect (a custom call marked
    /// `custom_call_has_side_effect=true`): passes must not remove,
    /// duplicate or merge it.
    pub fn has_side_effect(&self) -> bool {
        match self {
            Op::CustomCall(c) => c.has_side_effect,
            op => op.opcode().may_have_side_effect(),
        }
    }
}
