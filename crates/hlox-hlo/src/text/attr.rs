//! Text attribute kinds: how one attribute value of the opcode table
//! (`crate::opcode`) reads and prints in HLO text. A table field names its
//! kind (`Ints`, `Dim1`, `Window`, ...); the kind is generic over the
//! field's Rust type where one spelling serves several (`Name` for every
//! attribute enum, `Group` for every attribute struct).

pub(crate) use super::lexer::PResult;
use super::lexer::{c_escape, Cursor};
pub(crate) use super::parse::Attrs;
use super::parse::{
    bool_value, bytes_or_dict, dim_labels_value, int_list, operand_aliasing_value, padding_value,
    precision_value, replica_groups_value, shape_list_value, slice_value,
    source_target_pairs_value, window_value,
};
use super::print::{
    dim_labels, join, replica_groups_text, shape_index_to_string, window_to_string, write_shape,
};
use crate::ir::*;
use crate::literal::Literal;
use crate::opcode::{AttrCx, AttrGroup};
use crate::types::Shape;

/// One attribute value's text form. `parse` takes the attribute `key` from
/// `r` (`None` when it is absent); `print` pushes `key=value` items onto
/// `out`, or none when the value is one the text leaves out.
pub(crate) trait TextKind<T> {
    fn parse(r: &mut Attrs<'_, '_>, key: &'static str) -> PResult<Option<T>>;
    fn print(v: &T, key: &'static str, cx: &AttrCx, out: &mut Vec<String>);
}

/// Declares a kind whose value is one attribute: how its value parses
/// (a function of the cursor, the key and the attributes) and prints.
macro_rules! text_kind {
    ($(#[$m:meta])* $kind:ident: $t:ty,
     parse($c:ident, $key:ident, $r:ident) $parse:block,
     print($v:ident, $cx:ident) $print:expr) => {
        $(#[$m])*
        pub(crate) struct $kind;
        impl TextKind<$t> for $kind {
            fn parse(r: &mut Attrs<'_, '_>, key: &'static str) -> PResult<Option<$t>> {
                let opcode = r.opcode;
                let opcode_pos = r.opcode_pos;
                r.opt_with(key, |$c| {
                    #[allow(unused_variables)]
                    let ($key, $r) = (key, (opcode, opcode_pos));
                    $parse
                })
            }
            fn print(v: &$t, key: &'static str, cx: &AttrCx, out: &mut Vec<String>) {
                #[allow(unused_variables)]
                let ($v, $cx) = (v, cx);
                let value: Option<String> = $print;
                if let Some(value) = value {
                    out.push(format!("{key}={value}"));
                }
            }
        }
    };
}

text_kind!(
    /// An integer: `index=2`.
    Int: i64, parse(c, key, _r) { c.i64(key) }, print(v, _cx) Some(v.to_string())
);
text_kind!(
    /// A 32-bit integer: `exponent_bits=8`.
    I32: i32,
    parse(c, key, _r) {
        let (v, pos) = c.int(key)?;
        i32::try_from(v).map_err(|_| c.error(pos, format!("{key}={v} does not fit in 32 bits")))
    },
    print(v, _cx) Some(v.to_string())
);
text_kind!(
    /// A list of integers: `dimensions={1,0}`.
    Ints: Vec<i64>, parse(c, _key, _r) { int_list(c) }, print(v, _cx) Some(format!("{{{}}}", join(v, ",")))
);
text_kind!(
    /// One dimension written as a list: `dimensions={0}`.
    Dim1: i64,
    parse(c, key, r) {
        let pos = c.pos;
        let v = int_list(c)?;
        if v.len() != 1 {
            return c.err(
                pos,
                format!("'{}' needs exactly one dimension in {key}=, got {}", r.0, v.len()),
            );
        }
        Ok(v[0])
    },
    print(v, _cx) Some(format!("{{{v}}}"))
);
text_kind!(
    /// At most one dimension written as a list (`dimensions={1}`), or none.
    OptDim1: Option<i64>,
    parse(c, key, r) {
        let v = int_list(c)?;
        match v[..] {
            [d] => Ok(Some(d)),
            _ => c.err(
                r.1,
                format!("'{}' takes at most one split dimension in {key}=, got {}", r.0, v.len()),
            ),
        }
    },
    print(v, _cx) v.map(|d| format!("{{{d}}}"))
);
text_kind!(
    /// An integer that may be absent: `channel_id=1`.
    OptInt: Option<i64>, parse(c, key, _r) { c.i64(key).map(Some) }, print(v, _cx) v.map(|d| d.to_string())
);
text_kind!(
    /// `true` or `false`.
    Flag: bool, parse(c, _key, _r) { bool_value(c) }, print(v, _cx) Some(v.to_string())
);
text_kind!(
    /// A compare's `type=`, left out when it is the default for the operand type.
    CmpType: Option<ComparisonType>,
    parse(c, key, _r) { enum_value::<ComparisonType>(c, key).map(Some) },
    print(v, cx) ComparisonType::canonical(*v, cx.operand_ty).map(|t| t.name().to_string())
);
text_kind!(
    /// `slice={[0:4], [1:3:2]}`: the stride is written for every dimension or for none.
    Slices: Vec<SliceDim>,
    parse(c, _key, _r) { slice_value(c) },
    print(v, _cx) {
        let parts = all_or_none(v, |d| [d.start, d.limit, d.stride], 1, ":");
        let parts: Vec<String> = parts.iter().map(|p| format!("[{p}]")).collect();
        Some(format!("{{{}}}", parts.join(", ")))
    }
);
text_kind!(
    /// `padding=0_1x2_3_1`: interior padding is written for every dimension or for none.
    Padding: Vec<PadDim>,
    parse(c, _key, _r) { padding_value(c) },
    print(v, _cx) Some(all_or_none(v, |d| [d.lo, d.hi, d.interior], 0, "_").join("x"))
);
text_kind!(
    /// `window={size=2x2 stride=2x2 ...}`.
    Win: Window, parse(c, _key, _r) { window_value(c) }, print(v, _cx) Some(window_to_string(v))
);
text_kind!(
    /// `dim_labels=b01f_01io->b01f`.
    DimLabels: ConvDimensionNumbers,
    parse(c, _key, _r) { dim_labels_value(c) },
    print(v, _cx) Some(dim_labels(v))
);
text_kind!(
    /// `operand_precision={high,default}`, left out when every one is the default.
    Precisions: Vec<Precision>,
    parse(c, _key, _r) { precision_value(c) },
    print(v, _cx) v.iter().any(|&p| p != Precision::Default).then(|| {
        format!("{{{}}}", v.iter().map(|p| p.name()).collect::<Vec<_>>().join(","))
    })
);
text_kind!(
    /// `replica_groups={{0,1}}` or the iota form `[2,2]<=[4]`.
    Groups: ReplicaGroups,
    parse(c, _key, _r) { replica_groups_value(c) },
    print(v, _cx) Some(replica_groups_text(v))
);
text_kind!(
    /// `source_target_pairs={{0,1},{1,0}}`.
    Pairs: Vec<(i64, i64)>,
    parse(c, _key, _r) { source_target_pairs_value(c) },
    print(v, _cx) {
        let pairs: Vec<String> = v.iter().map(|(s, t)| format!("{{{s},{t}}}")).collect();
        Some(format!("{{{}}}", pairs.join(",")))
    }
);
text_kind!(
    /// A quoted UTF-8 string: `custom_call_target="name"`.
    Target: String,
    parse(c, key, _r) { c.utf8_string(key) },
    print(v, _cx) Some(format!("\"{}\"", c_escape(v.as_bytes())))
);
text_kind!(
    /// `operand_layout_constraints={f32[2]{0}, s32[]}`.
    Shapes: Option<Vec<Shape>>,
    parse(c, _key, _r) { shape_list_value(c).map(Some) },
    print(v, _cx) v.as_ref().map(|shapes| {
        let mut s = String::from("{");
        for (i, sh) in shapes.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            write_shape(&mut s, sh);
        }
        s.push('}');
        s
    })
);
text_kind!(
    /// `output_to_operand_aliasing={{0}: (1, {})}`.
    Aliasing: Vec<OutputOperandAlias>,
    parse(c, _key, _r) { operand_aliasing_value(c) },
    print(v, _cx) {
        let items: Vec<String> = v
            .iter()
            .map(|a| {
                format!(
                    "{}: ({}, {})",
                    shape_index_to_string(&a.output_index),
                    a.operand,
                    shape_index_to_string(&a.operand_index)
                )
            })
            .collect();
        Some(format!("{{{}}}", items.join(", ")))
    }
);
text_kind!(
    /// A custom call's opaque bytes, read from `backend_config=`. The
    /// instruction printer writes them last, where every instruction's
    /// `backend_config=` goes, so this kind prints nothing.
    Opaque: Vec<u8>, parse(c, _key, _r) { bytes_or_dict(c) }, print(_v, _cx) None
);

/// Each dimension's three numbers joined by `sep`, the third left out of
/// every dimension when it is `default` in all (a slice's stride, a pad's
/// interior padding: written for every dimension or for none).
fn all_or_none<T>(v: &[T], parts: impl Fn(&T) -> [i64; 3], default: i64, sep: &str) -> Vec<String> {
    let n = if v.iter().any(|d| parts(d)[2] != default) {
        3
    } else {
        2
    };
    v.iter().map(|d| join(&parts(d)[..n], sep)).collect()
}

/// An attribute enum (`direction=EQ`, `kind=kLoop`), by its names.
pub(crate) struct Name;
impl<E: AttrEnum> TextKind<E> for Name {
    fn parse(r: &mut Attrs<'_, '_>, key: &'static str) -> PResult<Option<E>> {
        r.opt_with(key, |c| enum_value::<E>(c, key))
    }
    fn print(v: &E, key: &'static str, _cx: &AttrCx, out: &mut Vec<String>) {
        out.push(format!("{key}={}", v.name()));
    }
}

fn enum_value<E: AttrEnum>(c: &mut Cursor, key: &str) -> PResult<E> {
    let (s, pos) = c.ident(key)?;
    E::from_name(s).ok_or_else(|| c.error(pos, format!("unknown {} '{s}'", E::WHAT)))
}

/// An attribute struct: its own fields, each under its own key.
pub(crate) struct Group;
impl<T: AttrGroup> TextKind<T> for Group {
    fn parse(r: &mut Attrs<'_, '_>, _key: &'static str) -> PResult<Option<T>> {
        T::parse_text(r).map(Some)
    }
    fn print(v: &T, _key: &'static str, cx: &AttrCx, out: &mut Vec<String>) {
        v.print_text(cx, out)
    }
}

/// A parameter's number, written in the operand position: `parameter(0)`.
pub(crate) struct Param;
impl TextKind<u64> for Param {
    fn parse(r: &mut Attrs<'_, '_>, _key: &'static str) -> PResult<Option<u64>> {
        Ok(Some(r.param_number.unwrap_or(0)))
    }
    fn print(_: &u64, _: &'static str, _: &AttrCx, _: &mut Vec<String>) {}
}

/// A constant's value, written in the operand position: `constant({1, 2})`.
pub(crate) struct Lit;
impl TextKind<Literal> for Lit {
    fn parse(r: &mut Attrs<'_, '_>, _key: &'static str) -> PResult<Option<Literal>> {
        match r.literal.take() {
            Some(l) => Ok(Some(l)),
            None => Err(r.error_at_opcode("constant without a value".into())),
        }
    }
    fn print(_: &Literal, _: &'static str, _: &AttrCx, _: &mut Vec<String>) {}
}
