//! The HLO text printer. Its output is the canonical form: the short form
//! that JAX and XLA print today (`name = shape opcode(operands), attrs`).

use super::lexer::{c_escape, is_ident_char, is_json_dict, utf8_safe_escape};
use crate::ir::*;
use crate::literal::{ArrayLiteral, Literal};
use crate::opcode::AttrCx;
use crate::types::{ElementType, ProgramShape, Shape};
use half::{bf16, f16};
use std::fmt::Write;

/// `f32[2,3]{1,0}`, `(f32[], s32[4]{0})`, `token[]`. Scalars print without a layout, as in XLA.
/// Tuples get XLA's `/*index=N*/` marker before every fifth element.
pub fn shape_to_string(shape: &Shape) -> String {
    let mut s = String::new();
    write_shape(&mut s, shape);
    s
}

pub(crate) fn write_shape(out: &mut String, shape: &Shape) {
    match shape {
        Shape::Array(a) => {
            let dims: Vec<String> = a.dims.iter().map(|d| d.to_string()).collect();
            let _ = write!(out, "{}[{}]", a.ty.name(), dims.join(","));
            if !a.dims.is_empty() {
                let l: Vec<String> = a
                    .layout
                    .minor_to_major
                    .iter()
                    .map(|d| d.to_string())
                    .collect();
                let _ = write!(out, "{{{}}}", l.join(","));
            }
        }
        Shape::Tuple(elems) => {
            out.push('(');
            write_shape_list(out, elems);
            out.push(')');
        }
        Shape::Token => out.push_str("token[]"),
    }
}

/// Comma-separated shapes with `/*index=N*/` before every fifth one.
fn write_shape_list(out: &mut String, shapes: &[Shape]) {
    for (i, e) in shapes.iter().enumerate() {
        if i > 0 {
            if i % 5 == 0 {
                let _ = write!(out, ", /*index={i}*/");
            } else {
                out.push_str(", ");
            }
        }
        write_shape(out, e);
    }
}

/// `(f32[4]{0}, f32[])->f32[4]{0}`
pub fn program_shape_to_string(p: &ProgramShape) -> String {
    let mut s = String::from("(");
    write_shape_list(&mut s, &p.parameters);
    s.push_str(")->");
    write_shape(&mut s, &p.result);
    s
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&shape_to_string(self))
    }
}

/// `{}`, `{1}`, `{1,0}`
pub(super) fn shape_index_to_string(idx: &[i64]) -> String {
    format!("{{{}}}", join(idx, ","))
}

pub(super) fn join(v: &[i64], sep: &str) -> String {
    v.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

/// The whole module, in the canonical form. Ends with a blank line, like XLA.
pub fn print_module(m: &Module) -> String {
    let mut out = format!("HloModule {}", m.name);
    if m.is_scheduled {
        out.push_str(", is_scheduled=true");
    }
    if !m.input_output_alias.is_empty() {
        let items: Vec<String> = m
            .input_output_alias
            .iter()
            .map(|a| {
                format!(
                    "{}: ({}, {}, {})",
                    shape_index_to_string(&a.output_index),
                    a.parameter_number,
                    shape_index_to_string(&a.parameter_index),
                    match a.kind {
                        AliasKind::MayAlias => "may-alias",
                        AliasKind::MustAlias => "must-alias",
                    }
                )
            })
            .collect();
        let _ = write!(out, ", input_output_alias={{ {} }}", items.join(", "));
    }
    if m.computations.is_valid(m.entry)
        && m.entry_computation()
            .instructions
            .is_valid(m.entry_computation().root)
    {
        let _ = write!(
            out,
            ", entry_computation_layout={{{}}}",
            program_shape_to_string(&m.entry_computation_layout())
        );
    }
    if !m.frontend_attributes.is_empty() {
        let _ = write!(
            out,
            ", {}",
            frontend_attributes_text(&m.frontend_attributes)
        );
    }
    out.push_str("\n\n");
    for id in m.computations.keys() {
        out.push_str(&print_computation(m, id));
        out.push_str("\n\n");
    }
    out
}

/// One computation: `[ENTRY ]name {` ... `}` (no trailing newline).
pub fn print_computation(m: &Module, id: CompId) -> String {
    let c = m.comp(id);
    let mut out = String::new();
    if id == m.entry {
        out.push_str("ENTRY ");
    }
    let _ = writeln!(out, "{} {{", c.name);
    for iid in c.instructions.keys() {
        out.push_str("  ");
        if iid == c.root {
            out.push_str("ROOT ");
        }
        out.push_str(&print_instruction(m, c, iid));
        out.push('\n');
    }
    out.push('}');
    if let Some(t) = &c.execution_thread {
        let _ = write!(out, ", execution_thread=\"{}\"", c_escape(t.as_bytes()));
    }
    out
}

fn inst_name(c: &Computation, id: InstId) -> &str {
    c.instructions
        .get(id)
        .map_or("<invalid-operand>", |i| i.name.as_str())
}

fn comp_name(m: &Module, id: CompId) -> &str {
    m.computations
        .get(id)
        .map_or("<invalid-computation>", |c| c.name.as_str())
}

pub(super) fn window_to_string(w: &Window) -> String {
    let d = &w.dims;
    let mut parts: Vec<String> = Vec::new();
    let field = |name: &str, f: &dyn Fn(&WindowDim) -> String| -> String {
        format!("{name}={}", d.iter().map(f).collect::<Vec<_>>().join("x"))
    };
    parts.push(field("size", &|x| x.size.to_string()));
    if d.iter().any(|x| x.stride != 1) {
        parts.push(field("stride", &|x| x.stride.to_string()));
    }
    if d.iter().any(|x| x.pad_lo != 0 || x.pad_hi != 0) {
        parts.push(field("pad", &|x| format!("{}_{}", x.pad_lo, x.pad_hi)));
    }
    if d.iter().any(|x| x.base_dilation != 1) {
        parts.push(field("lhs_dilate", &|x| x.base_dilation.to_string()));
    }
    if d.iter().any(|x| x.window_dilation != 1) {
        parts.push(field("rhs_dilate", &|x| x.window_dilation.to_string()));
    }
    if d.iter().any(|x| x.reversal) {
        parts.push(field("rhs_reversal", &|x| {
            if x.reversal {
                "1".into()
            } else {
                "0".into()
            }
        }));
    }
    format!("{{{}}}", parts.join(" "))
}

pub(super) fn dim_labels(d: &ConvDimensionNumbers) -> String {
    fn labels(rank: usize, pairs: &[(i64, char)], spatial: &[i64]) -> String {
        let mut v = vec!['?'; rank];
        for &(dim, ch) in pairs {
            if let Some(slot) = usize::try_from(dim).ok().and_then(|i| v.get_mut(i)) {
                *slot = ch;
            }
        }
        for (k, &dim) in spatial.iter().enumerate() {
            if let Some(slot) = usize::try_from(dim).ok().and_then(|i| v.get_mut(i)) {
                *slot = std::char::from_digit(k as u32, 36).unwrap_or('?');
            }
        }
        v.into_iter().collect()
    }
    let n = d.input_spatial_dimensions.len() + 2;
    format!(
        "{}_{}->{}",
        labels(
            n,
            &[
                (d.input_batch_dimension, 'b'),
                (d.input_feature_dimension, 'f')
            ],
            &d.input_spatial_dimensions
        ),
        labels(
            d.kernel_spatial_dimensions.len() + 2,
            &[
                (d.kernel_input_feature_dimension, 'i'),
                (d.kernel_output_feature_dimension, 'o')
            ],
            &d.kernel_spatial_dimensions
        ),
        labels(
            d.output_spatial_dimensions.len() + 2,
            &[
                (d.output_batch_dimension, 'b'),
                (d.output_feature_dimension, 'f')
            ],
            &d.output_spatial_dimensions
        ),
    )
}

/// `{{0,1},{2,3}}`, or the iota form `[2,2]<=[4]` / `[2,2]<=[2,2]T(1,0)`.
pub fn replica_groups_text(g: &ReplicaGroups) -> String {
    match g {
        ReplicaGroups::List(groups) => {
            let parts: Vec<String> = groups
                .iter()
                .map(|grp| format!("{{{}}}", join(grp, ",")))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        ReplicaGroups::Iota(iota) => {
            let (groups, size) = (iota.groups, iota.size);
            let mut s = format!("[{groups},{size}]<=[{}]", join(&iota.reshape_dims, ","));
            if !iota.perm.is_empty() {
                let _ = write!(s, "T({})", join(&iota.perm, ","));
            }
            s
        }
    }
}

/// A value printed after `backend_config=`: unquoted when it is a `{...}`
/// dictionary, else quoted with C escapes.
fn backend_config_value(b: &[u8]) -> String {
    if is_json_dict(b) {
        String::from_utf8_lossy(b).into_owned()
    } else {
        format!("\"{}\"", c_escape(b))
    }
}

/// One instruction without indentation or `ROOT `:
/// `name = shape opcode(operands), attributes`.
pub fn print_instruction(m: &Module, c: &Computation, id: InstId) -> String {
    let inst = c.inst(id);
    let mut out = String::new();
    let _ = write!(out, "{} = ", inst.name);
    write_shape(&mut out, &inst.shape);
    out.push(' ');
    out.push_str(inst.op.name());
    out.push('(');
    match &inst.op {
        Op::Parameter { number } => {
            let _ = write!(out, "{number}");
        }
        Op::Constant { literal } => out.push_str(&literal_to_string(literal)),
        _ => {
            let names: Vec<&str> = inst.operands.iter().map(|&o| inst_name(c, o)).collect();
            out.push_str(&names.join(", "));
        }
    }
    out.push(')');

    let mut attrs: Vec<String> = Vec::new();
    inst.op.print_attrs(&AttrCx::of(c, inst), &mut attrs);

    // Called computations, by the roles of the opcode table.
    let called: Vec<&str> = inst.called.iter().map(|&k| comp_name(m, k)).collect();
    let pred_selector = inst
        .operands
        .first()
        .and_then(|&o| c.instructions.get(o))
        .is_some_and(|o| o.shape.element_type() == Some(ElementType::Pred));
    let mut rest = called.as_slice();
    for &role in inst.op.called_roles() {
        if !role.is_list() {
            if let Some((first, tail)) = rest.split_first() {
                attrs.push(format!("{}={first}", role.key()));
                rest = tail;
            }
            continue;
        }
        // XLA prints a pred-selected conditional's two branches as
        // true_computation=/false_computation=.
        let alts = role.alternative_keys();
        if role == CalledRole::Branches && pred_selector && rest.len() == alts.len() {
            for (k, name) in alts.iter().zip(rest) {
                attrs.push(format!("{k}={name}"));
            }
        } else if !rest.is_empty() || role == CalledRole::Branches {
            attrs.push(format!("{}={{{}}}", role.key(), rest.join(", ")));
        }
        rest = &[];
    }
    if !rest.is_empty() {
        // More computations than the opcode's roles take (a module the
        // verifier rejects): print them rather than hide them.
        attrs.push(format!(
            "{}={{{}}}",
            CalledRole::CalledComputations.key(),
            rest.join(", ")
        ));
    }

    if let Some(s) = &inst.sharding {
        attrs.push(format!("sharding={s}"));
    }
    if !inst.frontend_attributes.is_empty() {
        attrs.push(frontend_attributes_text(&inst.frontend_attributes));
    }
    if !inst.metadata.is_empty() {
        let md = &inst.metadata;
        let mut items = Vec::new();
        if !md.op_type.is_empty() {
            items.push(format!("op_type=\"{}\"", c_escape(md.op_type.as_bytes())));
        }
        if !md.op_name.is_empty() {
            items.push(format!("op_name=\"{}\"", c_escape(md.op_name.as_bytes())));
        }
        if !md.source_file.is_empty() {
            items.push(format!(
                "source_file=\"{}\"",
                c_escape(md.source_file.as_bytes())
            ));
        }
        if md.source_line != 0 {
            items.push(format!("source_line={}", md.source_line));
        }
        attrs.push(format!("metadata={{{}}}", items.join(" ")));
    }
    match &inst.op {
        Op::CustomCall(cc) => {
            if !cc.opaque.is_empty() {
                attrs.push(format!(
                    "backend_config={}",
                    backend_config_value(&cc.opaque)
                ));
            }
        }
        _ => {
            if let Some(b) = &inst.backend_config {
                if !b.is_empty() {
                    attrs.push(format!(
                        "backend_config={}",
                        backend_config_value(b.as_bytes())
                    ));
                }
            }
        }
    }
    for a in attrs {
        out.push_str(", ");
        out.push_str(&a);
    }
    out
}

/// The text XLA prints inside `constant(...)`: a scalar (`1.5`, `true`), a
/// nested array (`{ {1, 2}, {3, 4} }`), or a tuple `(elem, elem)`.
pub fn literal_to_string(l: &Literal) -> String {
    let mut out = String::new();
    write_literal(&mut out, l);
    out
}

fn write_literal(out: &mut String, l: &Literal) {
    match l {
        Literal::Array(a) => write_array(out, a),
        Literal::Tuple(elems) => {
            out.push('(');
            for (i, e) in elems.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_literal(out, e);
            }
            out.push(')');
        }
        Literal::Token => out.push_str("token"),
    }
}

fn write_array(out: &mut String, a: &ArrayLiteral) {
    let dims = a.dims().to_vec();
    let rank = dims.len();
    if rank == 0 {
        out.push_str(&element_to_string(a.ty(), a.element_bytes_logical(0), true));
        return;
    }
    let mut linear = 0usize;
    let mut idx: Vec<i64> = Vec::new();
    write_nested(out, a, &dims, &mut idx, &mut linear);
}

/// XLA's one-line dense array printing (`DenseArrayPrintHelper`).
fn write_nested(
    out: &mut String,
    a: &ArrayLiteral,
    dims: &[i64],
    idx: &mut Vec<i64>,
    linear: &mut usize,
) {
    let rank = a.dims().len();
    let depth = idx.len();
    let rest = &dims[depth..];
    if rest.is_empty() {
        out.push_str(&element_to_string(
            a.ty(),
            a.element_bytes_logical(*linear),
            false,
        ));
        *linear += 1;
        return;
    }
    let n = rest[0];
    // Opening brace.
    if rank == 1 {
        out.push('{');
    } else if rest.len() == 1 {
        out.push('{');
        if n > 1 {
            out.push(' ');
        }
    } else if rank > 3 && depth > 0 {
        let _ = write!(out, "{{ /*i{}={}*/", depth - 1, idx[depth - 1]);
        if n > 0 {
            out.push(' ');
        }
    } else {
        out.push_str("{ ");
    }
    for i in 0..n.max(0) {
        idx.push(i);
        // One frame per dimension, and a shape may have 100,000 (of size
        // 1): past the red zone, go on on a stack segment on the heap.
        stacker::maybe_grow(32 << 10, 1 << 20, || {
            write_nested(out, a, dims, idx, linear)
        });
        idx.pop();
        if i < n - 1 {
            out.push_str(", ");
        }
    }
    // Closing brace.
    if rank == 1 {
        out.push('}');
    } else if rest.len() == 1 {
        if n > 1 {
            out.push(' ');
        }
        out.push('}');
    } else {
        out.push_str(" }");
    }
}

/// One element as XLA prints it. PRED prints `true`/`false` as a scalar and
/// `1`/`0` inside arrays.
pub(crate) fn element_to_string(ty: ElementType, b: &[u8], scalar: bool) -> String {
    use ElementType::*;
    match ty {
        Pred => match (b[0] != 0, scalar) {
            (true, true) => "true".into(),
            (false, true) => "false".into(),
            (true, false) => "1".into(),
            (false, false) => "0".into(),
        },
        S8 => (b[0] as i8).to_string(),
        U8 => b[0].to_string(),
        S16 => i16::from_ne_bytes([b[0], b[1]]).to_string(),
        U16 => u16::from_ne_bytes([b[0], b[1]]).to_string(),
        S32 => i32::from_ne_bytes(b[..4].try_into().expect("4 bytes")).to_string(),
        U32 => u32::from_ne_bytes(b[..4].try_into().expect("4 bytes")).to_string(),
        S64 => i64::from_ne_bytes(b[..8].try_into().expect("8 bytes")).to_string(),
        U64 => u64::from_ne_bytes(b[..8].try_into().expect("8 bytes")).to_string(),
        F16 => {
            let bits = u16::from_ne_bytes([b[0], b[1]]);
            let v = f16::from_bits(bits).to_f64();
            float_to_string(v, bits as u64, 10, || format_g(v, 5))
        }
        Bf16 => {
            let bits = u16::from_ne_bytes([b[0], b[1]]);
            let v = bf16::from_bits(bits).to_f64();
            float_to_string(v, bits as u64, 7, || format_g(v, 4))
        }
        F32 => f32_to_string(&b[..4]),
        F64 => f64_to_string(&b[..8]),
        // XLA prints a complex number as its parts in parentheses: `(1, -2)`.
        C64 => format!("({}, {})", f32_to_string(&b[..4]), f32_to_string(&b[4..8])),
        C128 => format!("({}, {})", f64_to_string(&b[..8]), f64_to_string(&b[8..16])),
    }
}

fn f32_to_string(b: &[u8]) -> String {
    let bits = u32::from_ne_bytes(b[..4].try_into().expect("4 bytes"));
    let v = f32::from_bits(bits);
    float_to_string(v as f64, bits as u64, 23, || {
        let s = format_g(v as f64, 6);
        if s.parse::<f32>().ok() == Some(v) {
            s
        } else {
            format_g(v as f64, 9)
        }
    })
}

fn f64_to_string(b: &[u8]) -> String {
    let bits = u64::from_ne_bytes(b[..8].try_into().expect("8 bytes"));
    let v = f64::from_bits(bits);
    float_to_string(v, bits, 52, || {
        let s = format_g(v, 15);
        if s.parse::<f64>().ok() == Some(v) {
            s
        } else {
            format_g(v, 17)
        }
    })
}

/// `inf`, `-inf`, `nan`, `-nan`, `nan(0x1)` (a payload other than the
/// plain quiet bit, as XLA's `RoundTripNanPayload`), else `finite()`.
fn float_to_string(
    v: f64,
    bits: u64,
    mantissa_bits: u32,
    finite: impl FnOnce() -> String,
) -> String {
    let total_bits = match mantissa_bits {
        10 | 7 => 16,
        23 => 32,
        _ => 64,
    };
    let negative = (bits >> (total_bits - 1)) & 1 == 1;
    if v.is_nan() {
        let mask = (1u64 << mantissa_bits) - 1;
        let payload = bits & mask;
        let quiet = 1u64 << (mantissa_bits - 1);
        let mut s = String::from(if negative { "-nan" } else { "nan" });
        if payload != quiet {
            let _ = write!(s, "(0x{payload:x})");
        }
        return s;
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    finite()
}

/// C's `printf("%.{precision}g", v)` for finite `v`.
pub(crate) fn format_g(v: f64, precision: usize) -> String {
    let p = precision.max(1);
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let sci = format!("{:.*e}", p - 1, v);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mant = strip_zeros(mant);
        format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{:.*}", decimals, v)).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `frontend_attributes={key="value",other={dict}}`, of an instruction or
/// the module.
fn frontend_attributes_text(attrs: &[(String, String)]) -> String {
    let items: Vec<String> = attrs
        .iter()
        .map(|(k, v)| {
            // A key that is not a plain name (a proto can carry any
            // string) is quoted, so the text parses back.
            let plain = k
                .bytes()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                && k.bytes().all(is_ident_char);
            let k = if plain {
                k.clone()
            } else {
                format!("\"{}\"", utf8_safe_escape(k))
            };
            if is_json_dict(v.as_bytes()) {
                format!("{k}={v}")
            } else {
                format!("{k}=\"{}\"", utf8_safe_escape(v))
            }
        })
        .collect();
    format!("frontend_attributes={{{}}}", items.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_g_matches_c() {
        assert_eq!(format_g(0.1, 6), "0.1");
        assert_eq!(format_g(1e-30, 6), "1e-30");
        assert_eq!(format_g(1e30, 6), "1e+30");
        assert_eq!(format_g(100000.0, 6), "100000");
        assert_eq!(format_g(1000000.0, 6), "1e+06");
        assert_eq!(format_g(0.0001, 6), "0.0001");
        assert_eq!(format_g(0.00001, 6), "1e-05");
        assert_eq!(format_g(-0.99999994f32 as f64, 9), "-0.99999994");
        assert_eq!(format_g(std::f64::consts::PI, 17), "3.1415926535897931");
        assert_eq!(format_g(9.9999996, 6), "10");
        assert_eq!(format_g(1e300, 15), "1e+300");
    }

    #[test]
    fn floats_print_like_xla() {
        let f = |v: f32| element_to_string(ElementType::F32, &v.to_ne_bytes(), true);
        assert_eq!(f(1.501_409_4), "1.50140941");
        assert_eq!(f(-4.391_506_5e-6), "-4.39150654e-06");
        assert_eq!(f(f32::NAN), "nan");
        assert_eq!(f(-f32::NAN), "-nan");
        assert_eq!(f(f32::from_bits(0x7fc0_0001)), "nan(0x400001)");
        assert_eq!(f(f32::from_bits(0x7f80_0001)), "nan(0x1)");
        assert_eq!(f(f32::NEG_INFINITY), "-inf");
        let h = |v: f32| element_to_string(ElementType::F16, &f16::from_f32(v).to_ne_bytes(), true);
        assert_eq!(h(0.1), "0.099976");
        assert_eq!(h(6e-8), "5.9605e-08");
        let b =
            |v: f32| element_to_string(ElementType::Bf16, &bf16::from_f32(v).to_ne_bytes(), true);
        assert_eq!(b(0.1), "0.1001");
        assert_eq!(b(-1e38), "-9.969e+37");
        let d = |v: f64| element_to_string(ElementType::F64, &v.to_ne_bytes(), true);
        assert_eq!(d(5e-324), "4.94065645841247e-324");
    }

    #[test]
    fn tuple_shapes_get_index_markers() {
        let s = Shape::tuple(vec![Shape::scalar(ElementType::F32); 6]);
        assert_eq!(
            shape_to_string(&s),
            "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])"
        );
        assert_eq!(shape_to_string(&Shape::tuple(vec![])), "()");
    }
}
