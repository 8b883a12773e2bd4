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

use crate::ir::*;
use crate::literal::Literal;

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

/// The opcode properties: each a bit of [`Opcode::properties`] (in
/// [`props`], as the table names it) and the [`Opcode`] method that asks
/// for it, generated from one line each.
macro_rules! opcode_properties {
    ($( $(#[$doc:meta])* $bit:ident = $shift:literal, $method:ident; )*) => {
        /// Opcode properties, as bits of [`Opcode::properties`].
        pub mod props {
            /// No property.
            pub const NONE: u16 = 0;
            $( $(#[$doc])* pub const $bit: u16 = 1 << $shift; )*
        }

        impl Opcode {
            $(
                $(#[$doc])*
                pub fn $method(self) -> bool {
                    self.properties() & props::$bit != 0
                }
            )*
        }
    };
}

opcode_properties! {
    /// Each result element depends only on the same element of each operand.
    ELEMENTWISE = 0, is_elementwise;
    /// May have a side effect (a custom call with
    /// `custom_call_has_side_effect=true`; [`Op::has_side_effect`](crate::opcode::Op::has_side_effect) reads its flag).
    SIDE_EFFECT = 1, may_have_side_effect;
    /// A collective over replica groups (see [`Op::AllReduce`](crate::opcode::Op::AllReduce)), or a device
    /// id (see `single-device-collectives`).
    COLLECTIVE = 2, is_collective;
    /// Costly enough that passes should not duplicate it (XLA's `IsExpensive`).
    EXPENSIVE = 3, is_expensive;
    /// The result shape is not determined by operands and attributes: it
    /// must be declared (`shape_inference::check_shape`).
    DECLARED_SHAPE = 4, needs_declared_shape;
    /// XLA's scheduler splits it into `<name>-start`/`<name>-done` pairs,
    /// which hlox does not read (the parser says so).
    ASYNC_PAIR = 5, has_async_pair;
    /// Each result element is an element of an operand (or a pad value),
    /// picked by index arithmetic alone: broadcast, reshape, bitcast,
    /// transpose, reverse, slice, dynamic-slice, pad, concatenate and copy
    /// (XLA's "data movement"). Forward mode applies such an op to the
    /// tangents as it is (`hlox_transform`'s `linear_operands`), the
    /// elemental emitter generates each of them (`hlox_codegen`'s
    /// `is_elemental`), and fusion fuses all but copy and bitcast
    /// (`hlox_passes`' `fusible_kind`).
    DATA_MOVEMENT = 6, is_data_movement;
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

/// The code of one attribute field, from its spec
/// `[TextKind "text_key" presence, ProtoKind .proto_field]` (see
/// [`opcode_table!`]): read and print it in HLO text, encode and decode it
/// in an `HloInstructionProto` (or the attribute struct's own message).
///
/// Presence: `req` (text must give it; always printed), `(opt DEFAULT)`
/// (DEFAULT when absent; printed when it differs), `(shown DEFAULT)`
/// (DEFAULT when absent; always printed).
/// `default` gives the field's table default: DEFAULT, or for a required
/// field its type's `Default` (an attribute struct's own defaults, a named
/// value's first spelling).
macro_rules! attr_field {
    (parse $r:ident, $ft:ty, [$tk:ident $key:literal req, $($_p:tt)*]) => {
        match <$crate::text::attr::$tk as $crate::text::attr::TextKind<$ft>>::parse($r, $key)? {
            Some(v) => v,
            None => return Err($r.missing($key)),
        }
    };
    (parse $r:ident, $ft:ty, [$tk:ident $key:literal ($_how:ident $d:expr), $($_p:tt)*]) => {
        <$crate::text::attr::$tk as $crate::text::attr::TextKind<$ft>>::parse($r, $key)?
            .unwrap_or_else(|| $d)
    };
    (print $v:ident, $cx:ident, $out:ident, $ft:ty, [$tk:ident $key:literal (opt $d:expr), $($_p:tt)*]) => {
        if *$v != $d {
            <$crate::text::attr::$tk as $crate::text::attr::TextKind<$ft>>::print($v, $key, $cx, $out)
        }
    };
    (print $v:ident, $cx:ident, $out:ident, $ft:ty, [$tk:ident $key:literal $_pres:tt, $($_p:tt)*]) => {
        <$crate::text::attr::$tk as $crate::text::attr::TextKind<$ft>>::print($v, $key, $cx, $out)
    };
    (encode $v:ident, $cx:ident, $m:ident, $ft:ty, [$tk:ident $key:literal $_pres:tt, $pk:ident $(.$seg:ident)*]) => {
        <$crate::proto::kind::$pk as $crate::proto::kind::ProtoKind<$ft, _>>::encode(
            $v, $cx, &mut (*$m) $(.$seg)*
        )
    };
    (default $ft:ty, [Group $key:literal req, $($_p:tt)*]) => {
        <$ft as $crate::opcode::AttrGroup>::with_defaults()
    };
    (default $ft:ty, [Name $key:literal req, $($_p:tt)*]) => {
        <$ft as $crate::ir::AttrEnum>::ALL[0]
    };
    (default $ft:ty, [$tk:ident $key:literal req, $($_p:tt)*]) => {
        <$ft as Default>::default()
    };
    (default $ft:ty, [$tk:ident $key:literal ($_how:ident $d:expr), $($_p:tt)*]) => {
        $d
    };
    (decode $m:ident, $cx:ident, $ft:ty, [$tk:ident $key:literal $_pres:tt, $pk:ident $(.$seg:ident)*]) => {
        <$crate::proto::kind::$pk as $crate::proto::kind::ProtoKind<$ft, _>>::decode(
            &(*$m) $(.$seg)*, stringify!($($seg).*), $cx
        )?
    };
}

/// An attribute struct (dimension numbers, a collective's attributes, a
/// custom call's, ...): the struct, one field per line with its spec as in
/// [`opcode_table!`], and its [`AttrGroup`] implementation (text and proto,
/// in `$proto`, the message its proto fields are in), both generated from
/// the one field list. Text prints the fields in list order.
macro_rules! attr_struct {
    (
        $(#[$m:meta])*
        pub struct $name:ident in $proto:ty {
            $( $(#[$fm:meta])* $f:ident : $ft:ty = $fs:tt ),* $(,)?
        }
    ) => {
        $(#[$m])*
        pub struct $name {
            $( $(#[$fm])* pub $f: $ft, )*
        }

        impl $crate::opcode::AttrGroup for $name {
            type Proto = $proto;
            fn parse_text(r: &mut $crate::text::attr::Attrs<'_, '_>) -> $crate::text::attr::PResult<Self> {
                Ok($name { $( $f: $crate::opcode::attr_field!(parse r, $ft, $fs), )* })
            }
            fn print_text(&self, cx: &$crate::opcode::AttrCx, out: &mut Vec<String>) {
                $( { let v = &self.$f; $crate::opcode::attr_field!(print v, cx, out, $ft, $fs); } )*
            }
            fn encode(&self, cx: &$crate::opcode::AttrCx, m: &mut $proto) {
                $( { let v = &self.$f; $crate::opcode::attr_field!(encode v, cx, m, $ft, $fs); } )*
            }
            fn decode(
                m: &$proto,
                cx: &$crate::opcode::AttrCx,
            ) -> Result<Self, $crate::proto::ProtoError> {
                Ok($name { $( $f: $crate::opcode::attr_field!(decode m, cx, $ft, $fs), )* })
            }
            fn with_defaults() -> Self {
                $name { $( $f: $crate::opcode::attr_field!(default $ft, $fs), )* }
            }
        }
    };
}
pub(crate) use {attr_field, attr_struct};

/// One arm of the code [`opcode_table!`] generates per `ops` entry, by the
/// entry's form: no attributes, named fields, or one attribute struct.
macro_rules! op_arm {
    (pattern $v:ident) => { Op::$v };
    (pattern $v:ident { $($f:ident)* }) => { Op::$v { $($f),* } };
    (pattern $v:ident ($g:ident $wt:ty)) => { Op::$v($g) };

    (parse $r:ident; $v:ident) => { Op::$v };
    (parse $r:ident; $v:ident { $($f:ident : $ft:ty = $fs:tt),* }) => {
        Op::$v { $( $f: attr_field!(parse $r, $ft, $fs), )* }
    };
    (parse $r:ident; $v:ident ($wt:ty)) => { Op::$v(<$wt as AttrGroup>::parse_text($r)?) };

    (print $cx:ident, $out:ident; $v:ident) => { () };
    (print $cx:ident, $out:ident; $v:ident { $($f:ident : $ft:ty = $fs:tt),* }) => {{
        $( attr_field!(print $f, $cx, $out, $ft, $fs); )*
    }};
    (print $cx:ident, $out:ident; $v:ident ($g:ident $wt:ty)) => { AttrGroup::print_text($g, $cx, $out) };

    (encode $cx:ident, $p:ident; $v:ident) => { () };
    (encode $cx:ident, $p:ident; $v:ident { $($f:ident : $ft:ty = $fs:tt),* }) => {{
        $( attr_field!(encode $f, $cx, $p, $ft, $fs); )*
    }};
    (encode $cx:ident, $p:ident; $v:ident ($g:ident $wt:ty)) => { AttrGroup::encode($g, $cx, $p) };

    (default; $v:ident) => { Op::$v };
    (default; $v:ident { $($f:ident : $ft:ty = $fs:tt),* }) => {
        Op::$v { $( $f: attr_field!(default $ft, $fs), )* }
    };
    (default; $v:ident ($wt:ty)) => { Op::$v(<$wt as AttrGroup>::with_defaults()) };

    (decode $cx:ident, $p:ident; $v:ident) => { Op::$v };
    (decode $cx:ident, $p:ident; $v:ident { $($f:ident : $ft:ty = $fs:tt),* }) => {
        Op::$v { $( $f: attr_field!(decode $p, $cx, $ft, $fs), )* }
    };
    (decode $cx:ident, $p:ident; $v:ident ($wt:ty)) => {
        Op::$v(<$wt as AttrGroup>::decode($p, $cx)?)
    };
}

macro_rules! opcode_table {
    (
        ops { $(
            $(#[$doc:meta])*
            $ov:ident = $on:literal, $oa:expr, [$($or:ident),*], $op:expr
            $(, { $( $f:ident : $ft:ty = $fs:tt ),* $(,)? } )?
            $(, ($wt:ty) )? ;
        )* }
        unary { $( $uv:ident = $un:literal, $up:expr; )* }
        binary { $( $bv:ident = $bn:literal, $bp:expr; )* }
    ) => {
        /// An HLO opcode without its attributes: one variant per table entry.
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum Opcode {
            $($ov,)*
            $($uv,)*
            $($bv,)*
        }

        /// An opcode together with its opcode-specific attributes: one
        /// variant per entry of the table's `ops` section (its fields are
        /// the entry's attributes), and the two element-wise families.
        #[derive(Clone, PartialEq, Debug)]
        pub enum Op {
            $( $(#[$doc])* $ov $({ $($f: $ft),* })? $(($wt))?, )*
            /// An element-wise unary operation (the table's `unary` section).
            Unary(UnaryOp),
            /// An element-wise binary operation (the table's `binary` section).
            Binary(BinaryOp),
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
                    $(Opcode::$ov => $oa,)*
                    $(Opcode::$uv => Fixed(1),)*
                    $(Opcode::$bv => Fixed(2),)*
                }
            }

            /// The role of each entry of `Instruction::called`. A list role
            /// ([`CalledRole::is_list`]) covers all remaining entries.
            pub const fn called_roles(self) -> &'static [CalledRole] {
                #[allow(unused_imports)]
                use CalledRole::*;
                match self {
                    $(Opcode::$ov => &[$($or),*],)*
                    $(Opcode::$uv)|* | $(Opcode::$bv)|* => &[],
                }
            }

            /// The property bits of this opcode ([`props`]).
            pub const fn properties(self) -> u16 {
                #[allow(unused_imports)]
                use props::*;
                match self {
                    $(Opcode::$ov => $op,)*
                    $(Opcode::$uv => ELEMENTWISE | $up,)*
                    $(Opcode::$bv => ELEMENTWISE | $bp,)*
                }
            }
        }

        impl Op {
            /// This op's table entry.
            pub fn opcode(&self) -> Opcode {
                match self {
                    $( Op::$ov { .. } => Opcode::$ov, )*
                    Op::Unary(u) => u.opcode(),
                    Op::Binary(b) => b.opcode(),
                }
            }

            /// The op of opcode `code` with every attribute at its table
            /// default (a required one at its type's: zero, empty, the first
            /// named value, an attribute struct's defaults): an example
            /// of each opcode for code that walks the table, as the opcode
            /// tests do. Its attribute values need not suit any operands.
            pub fn with_default_attributes(code: Opcode) -> Op {
                match code {
                    $( Opcode::$ov => op_arm!(default; $ov $({ $($f : $ft = $fs),* })? $(($wt))?), )*
                    $( Opcode::$uv => Op::Unary(UnaryOp::$uv), )*
                    $( Opcode::$bv => Op::Binary(BinaryOp::$bv), )*
                }
            }

            /// The op of opcode `code` with its attributes read from HLO
            /// text (each attribute the op takes is taken from `r`; the
            /// caller reports what remains).
            pub(crate) fn parse_attrs(
                code: Opcode,
                r: &mut $crate::text::attr::Attrs<'_, '_>,
            ) -> $crate::text::attr::PResult<Op> {
                Ok(match code {
                    $( Opcode::$ov => op_arm!(parse r; $ov $({ $($f : $ft = $fs),* })? $(($wt))?), )*
                    $( Opcode::$uv => Op::Unary(UnaryOp::$uv), )*
                    $( Opcode::$bv => Op::Binary(BinaryOp::$bv), )*
                })
            }

            /// This op's attributes as HLO text `key=value` items, in the
            /// table's order (XLA's; [`PRINT_RULES`] lists the exceptions).
            pub(crate) fn print_attrs(&self, cx: &AttrCx, out: &mut Vec<String>) {
                match self {
                    $( op_arm!(pattern $ov $({ $($f)* })? $((group $wt))?) => {
                        op_arm!(print cx, out; $ov $({ $($f : $ft = $fs),* })? $((group $wt))?)
                    } )*
                    Op::Unary(_) | Op::Binary(_) => {}
                }
                for &(code, key, rule) in PRINT_RULES {
                    if code != self.opcode() {
                        continue;
                    }
                    let prefix = format!("{key}=");
                    if let Some(i) = out.iter().position(|a| a.starts_with(&prefix)) {
                        let a = out.remove(i);
                        if rule == PrintRule::Last {
                            out.push(a);
                        }
                    }
                }
            }

            /// Writes this op's attributes into the fields of `p`.
            pub(crate) fn encode_attrs(&self, cx: &AttrCx, p: &mut hlox_proto::xla::HloInstructionProto) {
                match self {
                    $( op_arm!(pattern $ov $({ $($f)* })? $((group $wt))?) => {
                        op_arm!(encode cx, p; $ov $({ $($f : $ft = $fs),* })? $((group $wt))?)
                    } )*
                    Op::Unary(_) | Op::Binary(_) => {}
                }
            }

            /// The op of opcode `code` with its attributes read from the
            /// fields of `p`.
            pub(crate) fn decode_attrs(
                code: Opcode,
                p: &hlox_proto::xla::HloInstructionProto,
                cx: &AttrCx,
            ) -> Result<Op, $crate::proto::ProtoError> {
                Ok(match code {
                    $( Opcode::$ov => op_arm!(decode cx, p; $ov $({ $($f : $ft = $fs),* })? $(($wt))?), )*
                    $( Opcode::$uv => Op::Unary(UnaryOp::$uv), )*
                    $( Opcode::$bv => Op::Binary(BinaryOp::$bv), )*
                })
            }
        }
    };
}

/// What printing and proto conversion know of an instruction beyond its
/// op: attributes whose default depends on the operands (a compare's
/// `type=`, the per-operand precision list) read it here, and proto
/// decoding names the instruction in its errors.
pub(crate) struct AttrCx<'a> {
    pub opcode: Opcode,
    /// The element type of operand 0, when it has one.
    pub operand_ty: Option<crate::types::ElementType>,
    /// The number of operands.
    pub operands: usize,
    /// The computation and the instruction, for errors.
    pub comp: &'a str,
    pub inst: &'a str,
}

impl<'a> AttrCx<'a> {
    /// The context of instruction `inst` of computation `c`.
    pub(crate) fn of(c: &'a Computation, inst: &'a Instruction) -> AttrCx<'a> {
        AttrCx {
            opcode: inst.op.opcode(),
            operand_ty: inst
                .operands
                .first()
                .and_then(|&o| c.instructions.get(o))
                .and_then(|o| o.shape.element_type()),
            operands: inst.operands.len(),
            comp: &c.name,
            inst: &inst.name,
        }
    }
}

/// A group of attributes kept in one struct of the IR (dimension numbers,
/// a collective's or a custom call's attributes): implemented by
/// [`attr_struct!`] from the struct's field list.
pub(crate) trait AttrGroup: Sized {
    /// The proto message its fields are in.
    type Proto;
    fn parse_text(r: &mut crate::text::attr::Attrs<'_, '_>) -> crate::text::attr::PResult<Self>;
    fn print_text(&self, cx: &AttrCx, out: &mut Vec<String>);
    fn encode(&self, cx: &AttrCx, m: &mut Self::Proto);
    fn decode(m: &Self::Proto, cx: &AttrCx) -> Result<Self, crate::proto::ProtoError>;
    /// Every field at its table default ([`Op::with_default_attributes`]).
    fn with_defaults() -> Self;
}

impl<T: AttrGroup> AttrGroup for Box<T> {
    type Proto = T::Proto;
    fn parse_text(r: &mut crate::text::attr::Attrs<'_, '_>) -> crate::text::attr::PResult<Self> {
        T::parse_text(r).map(Box::new)
    }
    fn print_text(&self, cx: &AttrCx, out: &mut Vec<String>) {
        (**self).print_text(cx, out)
    }
    fn encode(&self, cx: &AttrCx, m: &mut Self::Proto) {
        (**self).encode(cx, m)
    }
    fn decode(m: &Self::Proto, cx: &AttrCx) -> Result<Self, crate::proto::ProtoError> {
        T::decode(m, cx).map(Box::new)
    }
    fn with_defaults() -> Self {
        Box::new(T::with_defaults())
    }
}

/// Where XLA prints an attribute of a shared attribute struct differently
/// by opcode.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum PrintRule {
    /// After the opcode's own attributes.
    Last,
    /// Not at all: XLA's text has no such attribute for the opcode (hlox
    /// reads it and leaves it out of the text).
    Never,
}

/// The exceptions to "text prints the attributes in table order".
const PRINT_RULES: &[(Opcode, &str, PrintRule)] = &[
    (Opcode::AllGather, "use_global_device_ids", PrintRule::Last),
    (Opcode::AllToAll, "use_global_device_ids", PrintRule::Never),
];

// The table. Each `ops` entry: its `Opcode` and `Op` variant, XLA's name,
// operand count, called-computation roles, properties, and its attributes:
// none, `{ field: Type = [TextKind "text_key" presence, ProtoKind .proto_field], ... }`,
// or `(AttrStruct)` (a struct declared with `attr_struct!` in `ir.rs`).
// Text kinds are in `text/attr.rs`, proto kinds in `proto.rs` (`kind`);
// presence is `req`, `(opt DEFAULT)` or `(shown DEFAULT)` ([`attr_field!`]).
// Text prints the attributes in the order listed here (XLA's order).
opcode_table! {
    // Opcode             text name                 operands     called roles             properties
    ops {
        Parameter          = "parameter",            Fixed(0),    [],                      DECLARED_SHAPE, {
            number: u64 = [Param "" req, ParamNumber .parameter_number],
        };
        Constant           = "constant",             Fixed(0),    [],                      NONE, {
            literal: Literal = [Lit "" req, LiteralMsg .literal],
        };
        Iota               = "iota",                 Fixed(0),    [],                      DECLARED_SHAPE, {
            dimension: i64 = [Int "iota_dimension" req, Dim1 .dimensions],
        };
        Compare            = "compare",              Fixed(2),    [],                      ELEMENTWISE, {
            direction: ComparisonDirection = [Name "direction" req, NameStr .comparison_direction],
            cmp_type: Option<ComparisonType> = [CmpType "type" (opt None), CmpType .comparison_type],
        };
        Select             = "select",               Fixed(3),    [],                      ELEMENTWISE;
        Clamp              = "clamp",                Fixed(3),    [],                      ELEMENTWISE;
        Convert            = "convert",              Fixed(1),    [],                      ELEMENTWISE | DECLARED_SHAPE;
        BitcastConvert     = "bitcast-convert",      Fixed(1),    [],                      DECLARED_SHAPE;
        ReducePrecision    = "reduce-precision",     Fixed(1),    [],                      ELEMENTWISE, {
            exponent_bits: i32 = [I32 "exponent_bits" req, Same .exponent_bits],
            mantissa_bits: i32 = [I32 "mantissa_bits" req, Same .mantissa_bits],
        };
        Broadcast          = "broadcast",            Fixed(1),    [],                      DECLARED_SHAPE | DATA_MOVEMENT, {
            dimensions: Vec<i64> = [Ints "dimensions" req, Same .dimensions],
        };
        Reshape            = "reshape",              Fixed(1),    [],                      DECLARED_SHAPE | DATA_MOVEMENT;
        Bitcast            = "bitcast",              Fixed(1),    [],                      DECLARED_SHAPE | DATA_MOVEMENT;
        Transpose          = "transpose",            Fixed(1),    [],                      DATA_MOVEMENT, {
            dimensions: Vec<i64> = [Ints "dimensions" req, Same .dimensions],
        };
        Reverse            = "reverse",              Fixed(1),    [],                      DATA_MOVEMENT, {
            dimensions: Vec<i64> = [Ints "dimensions" req, Same .dimensions],
        };
        Slice              = "slice",                Fixed(1),    [],                      DATA_MOVEMENT, {
            dims: Vec<SliceDim> = [Slices "slice" req, Slices .slice_dimensions],
        };
        DynamicSlice       = "dynamic-slice",        AtLeast(1),  [],                      DATA_MOVEMENT, {
            sizes: Vec<i64> = [Ints "dynamic_slice_sizes" req, Same .dynamic_slice_sizes],
        };
        DynamicUpdateSlice = "dynamic-update-slice", AtLeast(2),  [],                      NONE;
        Concatenate        = "concatenate",          AtLeast(1),  [],                      DATA_MOVEMENT, {
            dimension: i64 = [Dim1 "dimensions" req, Dim1 .dimensions],
        };
        Pad                = "pad",                  Fixed(2),    [],                      DATA_MOVEMENT, {
            dims: Vec<PadDim> = [Padding "padding" req, Padding .padding_config],
        };
        Dot                = "dot",                  Fixed(2),    [],                      EXPENSIVE, {
            dnums: DotDimensionNumbers = [Group "" req, Message .dot_dimension_numbers],
            precision: Vec<Precision> = [Precisions "operand_precision" (opt Vec::new()), Precisions .precision_config],
        };
        /// called: [to_apply]. Variadic: N inputs then N init values.
        Reduce             = "reduce",               AtLeast(2),  [ToApply],               EXPENSIVE, {
            dimensions: Vec<i64> = [Ints "dimensions" req, Same .dimensions],
        };
        /// called: [to_apply]. Variadic: N inputs then N init values.
        ReduceWindow       = "reduce-window",        AtLeast(2),  [ToApply],               EXPENSIVE, {
            window: Window = [Win "window" (opt Window::default()), Win .window],
        };
        /// operands: operand, source, init; called: [select, scatter].
        SelectAndScatter   = "select-and-scatter",   Fixed(3),    [Select, Scatter],       EXPENSIVE, {
            window: Window = [Win "window" (opt Window::default()), Win .window],
        };
        Convolution        = "convolution",          Fixed(2),    [],                      EXPENSIVE, (Convolution);
        Gather             = "gather",               Fixed(2),    [],                      EXPENSIVE, {
            dnums: GatherDimensionNumbers = [Group "" req, Message .gather_dimension_numbers],
            slice_sizes: Vec<i64> = [Ints "slice_sizes" req, Same .gather_slice_sizes],
            indices_are_sorted: bool = [Flag "indices_are_sorted" (opt false), Same .indices_are_sorted],
        };
        /// called: [to_apply]. Operands: N inputs, indices, N updates.
        Scatter            = "scatter",              AtLeast(3),  [ToApply],               EXPENSIVE, {
            dnums: ScatterDimensionNumbers = [Group "" req, Message .scatter_dimension_numbers],
            indices_are_sorted: bool = [Flag "indices_are_sorted" (opt false), Same .indices_are_sorted],
            unique_indices: bool = [Flag "unique_indices" (opt false), Same .unique_indices],
        };
        /// called: [comparator].
        Sort               = "sort",                 AtLeast(1),  [ToApply],               EXPENSIVE, {
            dimension: i64 = [Dim1 "dimensions" req, Dim1 .dimensions],
            is_stable: bool = [Flag "is_stable" (opt false), Same .is_stable],
        };
        /// The `k` largest (or smallest) elements along the last dimension and
        /// their s32 indices: result `(T[..., k], s32[..., k])`. Ties keep the
        /// lower index first.
        TopK               = "topk",                 Fixed(1),    [],                      EXPENSIVE, {
            k: i64 = [Int "k" req, Same .k],
            largest: bool = [Flag "largest" (shown true), Same .largest],
        };
        /// A discrete Fourier transform over the last `fft_length.len()` (1 to
        /// 3) dimensions; `fft_length` is the transform's length in each, which
        /// for IRFFT is the real result's (the operand's last dimension holds
        /// `fft_length.last() / 2 + 1` frequencies).
        Fft                = "fft",                  Fixed(1),    [],                      EXPENSIVE, {
            fft_type: FftType = [Name "fft_type" req, ProtoEnum .fft_type],
            fft_length: Vec<i64> = [Ints "fft_length" req, Same .fft_length],
        };
        Tuple              = "tuple",                AtLeast(0),  [],                      NONE;
        GetTupleElement    = "get-tuple-element",    Fixed(1),    [],                      NONE, {
            index: i64 = [Int "index" req, Same .tuple_index],
        };
        /// called: [to_apply].
        Call               = "call",                 AtLeast(0),  [ToApply],               EXPENSIVE;
        /// called: [condition, body].
        While              = "while",                Fixed(1),    [Condition, Body],       EXPENSIVE;
        /// called: branch computations in order. With a PRED selector the first
        /// is the true computation and the second the false computation.
        Conditional        = "conditional",          AtLeast(1),  [Branches],              EXPENSIVE;
        /// called: [to_apply].
        Map                = "map",                  AtLeast(1),  [ToApply],               EXPENSIVE, {
            dimensions: Vec<i64> = [Ints "dimensions" (shown Vec::new()), Same .dimensions],
        };
        Copy               = "copy",                 Fixed(1),    [],                      DATA_MOVEMENT;
        /// called: any computations the target is given (`called_computations=`).
        CustomCall         = "custom-call",          AtLeast(0),  [CalledComputations],    SIDE_EFFECT | EXPENSIVE | DECLARED_SHAPE, (Box<CustomCall>);
        RngBitGenerator    = "rng-bit-generator",    Fixed(1),    [],                      EXPENSIVE | DECLARED_SHAPE, {
            algorithm: RngAlgorithm = [Name "algorithm" req, ProtoEnum .rng_algorithm],
        };
        OptimizationBarrier = "opt-barrier",         Fixed(1),    [],                      NONE;
        AfterAll           = "after-all",            AtLeast(0),  [],                      NONE;
        /// called: [fused computation].
        Fusion             = "fusion",               AtLeast(0),  [Calls],                 EXPENSIVE, {
            kind: FusionKind = [Name "kind" req, NameStr .fusion_kind],
        };
        // Collectives. On one device each has a single participant: the
        // `single-device-collectives` pass rewrites them to copies and
        // constants before code generation, and the evaluator computes them
        // directly. On N devices `hlox_passes::spmd` rewrites them into
        // `hlox.collective` custom calls.
        /// called: [to_apply]. Variadic: N operands give an N-tuple.
        AllReduce          = "all-reduce",           AtLeast(1),  [ToApply],               COLLECTIVE | EXPENSIVE | ASYNC_PAIR, (Collective);
        /// Concatenates each participant's operand along `dimension`.
        AllGather          = "all-gather",           Fixed(1),    [],                      COLLECTIVE | EXPENSIVE | ASYNC_PAIR, {
            collective: Collective = [Group "" req, Whole],
            dimension: i64 = [Dim1 "dimensions" req, Dim1 .dimensions],
        };
        /// called: [to_apply]. All-reduce, then each participant keeps its
        /// slice of `dimension`.
        ReduceScatter      = "reduce-scatter",       Fixed(1),    [ToApply],               COLLECTIVE | EXPENSIVE, {
            collective: Collective = [Group "" req, Whole],
            dimension: i64 = [Dim1 "dimensions" req, Dim1 .dimensions],
        };
        /// With `split_dimension`, one array split among the participants;
        /// without it, N operands (one per participant) and an N-tuple.
        AllToAll           = "all-to-all",           AtLeast(1),  [],                      COLLECTIVE | EXPENSIVE, {
            collective: Collective = [Group "" req, Whole],
            split_dimension: Option<i64> = [OptDim1 "dimensions" (opt None), OptDim1 .dimensions],
        };
        /// Sends the operand from `source` to `target` for each pair; a device
        /// that no pair targets gets zeros.
        CollectivePermute  = "collective-permute",   Fixed(1),    [],                      COLLECTIVE | EXPENSIVE | ASYNC_PAIR, {
            channel_id: Option<i64> = [OptInt "channel_id" (opt None), ChannelId .channel_id],
            source_target_pairs: Vec<(i64, i64)> = [Pairs "source_target_pairs" req, Pairs .source_target_pairs],
        };
        /// The first participant's operand, to every participant of its group.
        CollectiveBroadcast = "collective-broadcast", Fixed(1),   [],                      COLLECTIVE | EXPENSIVE, (Collective);
        /// `u32[]`: this device's replica number (0 here).
        ReplicaId          = "replica-id",           Fixed(0),    [],                      COLLECTIVE;
        /// `u32[]`: this device's partition number (0 here).
        PartitionId        = "partition-id",         Fixed(0),    [],                      COLLECTIVE;
    }
    // The element-wise families: one operand (`unary`) or two (`binary`),
    // no called computations and ELEMENTWISE; a row gives its name and
    // any further properties.
    unary {
        Negate             = "negate",             NONE;
        Abs                = "abs",                NONE;
        Sign               = "sign",               NONE;
        Not                = "not",                NONE;
        Exp                = "exponential",        EXPENSIVE;
        Expm1              = "exponential-minus-one", EXPENSIVE;
        Log                = "log",                EXPENSIVE;
        Log1p              = "log-plus-one",       EXPENSIVE;
        Sqrt               = "sqrt",               EXPENSIVE;
        Rsqrt              = "rsqrt",              EXPENSIVE;
        Cbrt               = "cbrt",               EXPENSIVE;
        Tanh               = "tanh",               EXPENSIVE;
        Logistic           = "logistic",           EXPENSIVE;
        Sin                = "sine",               EXPENSIVE;
        Cos                = "cosine",             EXPENSIVE;
        Tan                = "tan",                EXPENSIVE;
        Floor              = "floor",              NONE;
        Ceil               = "ceil",               NONE;
        RoundNearestAfz    = "round-nearest-afz",  NONE;
        RoundNearestEven   = "round-nearest-even", NONE;
        IsFinite           = "is-finite",          NONE;
        Erf                = "erf",                EXPENSIVE;
        PopulationCount    = "popcnt",             NONE;
        CountLeadingZeros  = "count-leading-zeros", NONE;
        Real               = "real",               NONE;
        Imag               = "imag",               NONE;
    }
    binary {
        Add                = "add",                NONE;
        Subtract           = "subtract",           NONE;
        Multiply           = "multiply",           NONE;
        Divide             = "divide",             EXPENSIVE;
        Remainder          = "remainder",          EXPENSIVE;
        Power              = "power",              EXPENSIVE;
        Maximum            = "maximum",            NONE;
        Minimum            = "minimum",            NONE;
        And                = "and",                NONE;
        Or                 = "or",                 NONE;
        Xor                = "xor",                NONE;
        ShiftLeft          = "shift-left",         NONE;
        ShiftRightLogical  = "shift-right-logical", NONE;
        ShiftRightArithmetic = "shift-right-arithmetic", NONE;
        Atan2              = "atan2",              EXPENSIVE;
        Complex            = "complex",            NONE;
    }
}

impl Opcode {
    /// The roles that name exactly one computation each (all but a list role).
    pub fn single_roles(self) -> impl Iterator<Item = CalledRole> {
        self.called_roles().iter().copied().filter(|r| !r.is_list())
    }
}

impl From<UnaryOp> for Op {
    fn from(u: UnaryOp) -> Op {
        Op::Unary(u)
    }
}

impl From<BinaryOp> for Op {
    fn from(b: BinaryOp) -> Op {
        Op::Binary(b)
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Op {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The members of [`props::DATA_MOVEMENT`], as its doc and its callers
    /// (forward mode, the elemental emitter, fusion) rely on.
    #[test]
    fn data_movement_members() {
        let names: Vec<&str> = Opcode::ALL
            .iter()
            .filter(|c| c.is_data_movement())
            .map(|c| c.name())
            .collect();
        assert_eq!(
            names,
            [
                "broadcast",
                "reshape",
                "bitcast",
                "transpose",
                "reverse",
                "slice",
                "dynamic-slice",
                "concatenate",
                "pad",
                "copy"
            ]
        );
    }
}
