//! The HLO text parser: XLA's syntax (long and short forms) into the IR.
//!
//! Parsing runs in two phases. The first reads every computation and
//! instruction with its attributes, keeping names unresolved. The second
//! orders computations callees-first and instructions topologically (keeping
//! the text order whenever it is already valid), resolves names, and builds
//! [`Op`]s.

use super::lexer::{Cursor, PResult, ParseError};
use crate::entity::{EntityRef, PrimaryMap};
use crate::graph::DepGraph;
use crate::ir::*;
use crate::literal::{ArrayLiteral, Literal};
use crate::opcode::{CalledRole, KeyKind, Opcode};
use crate::types::{ArrayShape, ElementType, Layout, Shape, ShapeIndex, MAX_TUPLE_DEPTH};
use half::{bf16, f16};
use std::collections::{HashMap, HashSet};

/// Parse a whole HLO module. Definitions may appear in any order; the
/// verifier is not run.
///
/// MLIR (StableHLO, what JAX's `as_text()` writes by default) is refused at
/// its first token with the way to get HLO instead
/// ([`crate::load::STABLEHLO_HINT`]).
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    if let Some((form, at)) = crate::load::mlir_start(src.as_bytes()) {
        return Err(ParseError::at(
            src,
            at,
            format!(
                "this is StableHLO ({form}), not HLO; {}",
                crate::load::STABLEHLO_HINT
            ),
        ));
    }
    let mut p = Parser {
        c: Cursor::new(src),
        debug: DebugInfo::default(),
    };
    let raw = p.module()?;
    p.build(raw)
}

/// Parse a shape such as `f32[2,3]{1,0}` or `(s32[], f32[4])`.
pub fn parse_shape(src: &str) -> Result<Shape, ParseError> {
    let mut c = Cursor::new(src);
    let s = shape(&mut c)?;
    if !c.at_end()? {
        let found = c.describe_next();
        return c.err(c.pos, format!("unexpected {found} after the shape"));
    }
    Ok(s)
}

/// Parse a literal (the text inside `constant(...)`) of the given shape.
pub fn parse_literal(src: &str, shape: &Shape) -> Result<Literal, ParseError> {
    let mut c = Cursor::new(src);
    let l = literal(&mut c, shape)?;
    if !c.at_end()? {
        let found = c.describe_next();
        return c.err(c.pos, format!("unexpected {found} after the literal"));
    }
    Ok(l)
}

// ---------------------------------------------------------------------------
// Shapes

const UNSUPPORTED_TYPES: &[&str] = &[
    "s1",
    "s2",
    "s4",
    "u1",
    "u2",
    "u4",
    "f4e2m1fn",
    "f8e3m4",
    "f8e4m3",
    "f8e4m3fn",
    "f8e4m3b11fnuz",
    "f8e4m3fnuz",
    "f8e5m2",
    "f8e5m2fnuz",
    "f8e8m0fnu",
    "opaque",
];

fn element_type(c: &mut Cursor, name: &str, pos: usize) -> PResult<ElementType> {
    if let Some(t) = ElementType::from_name(name) {
        return Ok(t);
    }
    if UNSUPPORTED_TYPES.contains(&name) {
        return c.err(pos, format!("unsupported element type '{name}': hlox supports pred, s8-s64, u8-u64, f16, bf16, f32, f64, c64, c128"));
    }
    c.err(pos, format!("unknown element type '{name}'"))
}

/// True when the cursor is at something that starts a shape.
fn at_shape(c: &mut Cursor) -> PResult<bool> {
    match c.peek()? {
        Some(b'(') => Ok(true),
        Some(ch) if ch.is_ascii_alphabetic() => {
            let save = c.pos;
            let r = c.ident("shape");
            let is = r.is_ok() && c.bytes().get(c.pos) == Some(&b'[');
            c.pos = save;
            Ok(is)
        }
        _ => Ok(false),
    }
}

pub(crate) fn shape(c: &mut Cursor) -> PResult<Shape> {
    shape_nested(c, 0)
}

/// A shape inside `depth` tuples; deeper than [`MAX_TUPLE_DEPTH`] is an error
/// (the recursion here and in every later walk over the shape is bounded).
fn shape_nested(c: &mut Cursor, depth: usize) -> PResult<Shape> {
    if c.eat(b'(')? {
        if depth == MAX_TUPLE_DEPTH {
            return c.err(
                c.pos - 1,
                format!(
                    "tuple shapes nest more than {MAX_TUPLE_DEPTH} levels deep (hlox's limit, \
                     see docs/reliability.md); flatten the tuple"
                ),
            );
        }
        let mut elems = Vec::new();
        if !c.eat(b')')? {
            loop {
                elems.push(shape_nested(c, depth + 1)?);
                if c.eat(b')')? {
                    break;
                }
                c.expect(b',', "between tuple element shapes")?;
            }
        }
        return Ok(Shape::Tuple(elems));
    }
    let (name, pos) = c.ident("a shape")?;
    if c.bytes().get(c.pos) != Some(&b'[') {
        return c.err(c.pos, format!("expected '[' after element type '{name}'"));
    }
    if name == "token" {
        c.pos += 1;
        c.expect(b']', "after 'token['")?;
        return Ok(Shape::Token);
    }
    let ty = element_type(c, name, pos)?;
    c.pos += 1;
    let mut dims = Vec::new();
    if !c.eat(b']')? {
        loop {
            match c.peek()? {
                Some(b'?') | Some(b'<') => {
                    return c.err(
                        c.pos,
                        "dynamic (bounded or unknown) dimensions are not supported by hlox",
                    );
                }
                _ => {}
            }
            let d = c.i64("a dimension size")?;
            if d < 0 {
                return c.err(c.pos, format!("negative dimension size {d}"));
            }
            dims.push(d);
            if c.eat(b']')? {
                break;
            }
            c.expect(b',', "between dimension sizes")?;
        }
    }
    let rank = dims.len();
    let mut layout = Layout::default_for_rank(rank);
    // A layout follows directly (`f32[2]{0}`), possibly after spaces.
    let save = c.pos;
    if c.peek()? == Some(b'{') && looks_like_layout(c) {
        let lpos = c.pos;
        c.pos += 1;
        let mut m2m = Vec::new();
        loop {
            match c.peek()? {
                Some(b'}') => {
                    c.pos += 1;
                    break;
                }
                Some(b':') => {
                    // Tiling, memory space and other suffixes: accepted and ignored.
                    let mut depth = 0i32;
                    let b = c.bytes();
                    while c.pos < c.end {
                        match b[c.pos] {
                            b'(' => depth += 1,
                            b')' => depth -= 1,
                            b'}' if depth <= 0 => break,
                            _ => {}
                        }
                        c.pos += 1;
                    }
                    c.expect(b'}', "at the end of the layout")?;
                    break;
                }
                _ => {
                    if !m2m.is_empty() {
                        c.expect(b',', "between layout dimensions")?;
                    }
                    m2m.push(c.i64("a layout dimension")?);
                }
            }
        }
        if rank == 0 && m2m.is_empty() {
            // `f32[]{}`: fine.
        } else {
            let l = Layout {
                minor_to_major: m2m,
            };
            if !l.is_valid_for_rank(rank) {
                return c.err(
                    lpos,
                    format!(
                        "layout {:?} is not a permutation of the {rank} dimensions",
                        l.minor_to_major
                    ),
                );
            }
            layout = l;
        }
    } else {
        c.pos = save;
    }
    Ok(Shape::Array(ArrayShape { ty, dims, layout }))
}

/// A `{` after a shape starts a layout when it holds digits, commas and an
/// optional `:` suffix (not `{...}` attribute syntax like `{a=b}`).
fn looks_like_layout(c: &Cursor) -> bool {
    let b = c.bytes();
    let mut p = c.pos + 1;
    while p < c.end {
        match b[p] {
            b'0'..=b'9' | b',' | b' ' => p += 1,
            b'}' | b':' => return true,
            _ => return false,
        }
    }
    false
}

// ---------------------------------------------------------------------------
// Literals

fn literal(c: &mut Cursor, shape: &Shape) -> PResult<Literal> {
    match shape {
        Shape::Tuple(elems) => {
            if c.peek()? == Some(b'{') && c.eat_str("{...}")? {
                return c.err(
                    c.pos - 5,
                    "the constant's value was elided as '{...}'; print it with large constants",
                );
            }
            c.expect(b'(', "in front of tuple literal elements")?;
            let mut out = Vec::with_capacity(elems.len());
            for (i, e) in elems.iter().enumerate() {
                if i > 0 {
                    c.expect(b',', "between tuple literal elements")?;
                }
                out.push(literal(c, e)?);
            }
            c.expect(
                b')',
                &format!(
                    "at the end of a tuple literal with {} elements",
                    elems.len()
                ),
            )?;
            Ok(Literal::Tuple(out))
        }
        Shape::Token => c.err(c.pos, "a literal cannot have token shape"),
        Shape::Array(a) => array_literal(c, a).map(Literal::Array),
    }
}

fn array_literal(c: &mut Cursor, shape: &ArrayShape) -> PResult<ArrayLiteral> {
    let n = shape
        .checked_element_count()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| {
            n.checked_mul(shape.ty.byte_size())
                .is_some_and(|b| b <= 1 << 34)
        })
        .ok_or_else(|| {
            c.error(
                c.pos,
                format!(
                    "literal shape {} is too large",
                    super::shape_to_string(&Shape::Array(shape.clone()))
                ),
            )
        })?;
    let start = c.pos;
    if c.peek()? == Some(b'{') && c.eat_str("{...}")? {
        return c.err(
            start,
            "the constant's value was elided as '{...}'; print it with large constants",
        );
    }
    let sz = shape.ty.byte_size();
    let mut bytes = Vec::with_capacity(n * sz);
    if shape.dims.is_empty() {
        element(c, shape.ty, &mut bytes)?;
    } else {
        nested(c, shape, 0, &mut bytes)?;
    }
    let default = ArrayShape::new(shape.ty, shape.dims.clone());
    let lit =
        ArrayLiteral::from_bytes(default, bytes).map_err(|e| c.error(start, e.to_string()))?;
    Ok(lit.relayout(shape.layout.clone()))
}

/// The nested braces of an array literal, one level per dimension. An
/// explicit stack of open dimensions instead of recursion: a shape may have
/// 100,000 dimensions (of size 1), and so may its literal's braces.
fn nested(c: &mut Cursor, shape: &ArrayShape, d0: usize, out: &mut Vec<u8>) -> PResult<()> {
    enum Step {
        /// Just after a dimension's `{`.
        Opened,
        /// At the start of the next element of the innermost open dimension.
        Element,
        /// An element of the innermost open dimension was read.
        Done,
    }
    let rank = shape.dims.len();
    // (elements read, position of its `{`) per open dimension, outermost first.
    let mut open: Vec<(i64, usize)> = Vec::new();
    let open_dim = |c: &mut Cursor, d: usize, open: &mut Vec<(i64, usize)>| -> PResult<()> {
        let at = c.pos;
        c.expect(
            b'{',
            &format!(
                "to open dimension {d} (size {}) of the literal",
                shape.dims[d]
            ),
        )?;
        open.push((0, at));
        Ok(())
    };
    open_dim(c, d0, &mut open)?;
    let mut step = Step::Opened;
    loop {
        let d = d0 + open.len() - 1;
        let n = shape.dims[d];
        match step {
            Step::Opened if c.eat(b'}')? => {
                let (_, at) = open.pop().unwrap_or((0, c.pos));
                if n != 0 {
                    return c.err(
                        at,
                        format!(
                            "dimension {d} of the literal has 0 elements but the shape says {n}"
                        ),
                    );
                }
                if open.is_empty() {
                    return Ok(());
                }
                step = Step::Done;
            }
            Step::Opened | Step::Element => {
                if open[open.len() - 1].0 >= n {
                    return c.err(
                        c.pos,
                        format!("too many elements in dimension {d}: the shape says {n}"),
                    );
                }
                if d + 1 == rank {
                    element(c, shape.ty, out)?;
                    step = Step::Done;
                } else {
                    open_dim(c, d + 1, &mut open)?;
                    step = Step::Opened;
                }
            }
            Step::Done => {
                let last = open.len() - 1;
                open[last].0 += 1;
                if c.eat(b'}')? {
                    let (count, at) = open[last];
                    if count != n {
                        return c.err(
                            at,
                            format!(
                                "dimension {d} of the literal has {count} elements but the shape says {n}"
                            ),
                        );
                    }
                    open.pop();
                    if open.is_empty() {
                        return Ok(());
                    }
                    step = Step::Done;
                } else {
                    c.expect(b',', "between literal elements")?;
                    step = Step::Element;
                }
            }
        }
    }
}

/// Scan one number-like token: `-1.5e+3`, `inf`, `-nan(0x1)`, `true`.
fn number_token<'a>(c: &mut Cursor<'a>) -> PResult<(&'a str, usize)> {
    let (start, mut p) = c.signed_start()?;
    let b = c.bytes();
    while p < c.end && (b[p].is_ascii_alphanumeric() || b[p] == b'.' || b[p] == b'_') {
        // Exponent sign: `1e+30`, `1e-5`.
        if (b[p] == b'e' || b[p] == b'E') && p + 1 < c.end && (b[p + 1] == b'+' || b[p + 1] == b'-')
        {
            p += 2;
            continue;
        }
        p += 1;
    }
    if p < c.end && b[p] == b'(' && c.src[start..p].trim_start_matches('-').eq("nan") {
        while p < c.end && b[p] != b')' {
            p += 1;
        }
        p = (p + 1).min(c.end);
    }
    if p == start {
        let found = c.describe_next();
        return c.err(start, format!("expected a literal value, found {found}"));
    }
    c.pos = p;
    Ok((&c.src[start..p], start))
}

fn element(c: &mut Cursor, ty: ElementType, out: &mut Vec<u8>) -> PResult<()> {
    use ElementType::*;
    // XLA writes a complex number as its parts in parentheses: `(1, -2)`.
    if let Some(part) = ty.complex_component() {
        c.expect(
            b'(',
            &format!("to open a {} value `(real, imaginary)`", ty.name()),
        )?;
        element(c, part, out)?;
        c.expect(
            b',',
            &format!(
                "between the real and imaginary parts of a {} value",
                ty.name()
            ),
        )?;
        element(c, part, out)?;
        c.expect(
            b')',
            &format!("to close a {} value `(real, imaginary)`", ty.name()),
        )?;
        return Ok(());
    }
    let (tok, pos) = number_token(c)?;
    let bad = |c: &Cursor, what: &str| c.err(pos, format!("'{tok}' is not a valid {what} value"));
    if ty == Pred {
        let v = match tok {
            "true" | "1" => 1u8,
            "false" | "0" => 0,
            _ => return bad(c, "pred"),
        };
        out.push(v);
        return Ok(());
    }
    if ty.is_integral() {
        let Ok(v) = tok.trim_start_matches('+').parse::<i128>() else {
            return bad(c, ty.name());
        };
        let (lo, hi): (i128, i128) = match ty {
            S8 => (i8::MIN as i128, i8::MAX as i128),
            S16 => (i16::MIN as i128, i16::MAX as i128),
            S32 => (i32::MIN as i128, i32::MAX as i128),
            S64 => (i64::MIN as i128, i64::MAX as i128),
            U8 => (0, u8::MAX as i128),
            U16 => (0, u16::MAX as i128),
            U32 => (0, u32::MAX as i128),
            _ => (0, u64::MAX as i128),
        };
        if v < lo || v > hi {
            return c.err(pos, format!("value {v} is out of range for {}", ty.name()));
        }
        let le = (v as u128).to_le_bytes();
        let bytes: Vec<u8> = if cfg!(target_endian = "little") {
            le[..ty.byte_size()].to_vec()
        } else {
            le[..ty.byte_size()].iter().rev().copied().collect()
        };
        out.extend_from_slice(&bytes);
        return Ok(());
    }
    // Floats.
    let (neg, body) = match tok.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, tok.strip_prefix('+').unwrap_or(tok)),
    };
    let (mbits, total): (u32, u32) = match ty {
        F16 => (10, 16),
        Bf16 => (7, 16),
        F32 => (23, 32),
        _ => (52, 64),
    };
    let sign_bit = if neg { 1u64 << (total - 1) } else { 0 };
    let exp_all = ((1u64 << (total - 1 - mbits)) - 1) << mbits;
    let bits: u64 = if let Some(rest) = body.strip_prefix("nan") {
        let payload = if rest.is_empty() {
            1u64 << (mbits - 1)
        } else {
            let hex = rest.strip_prefix("(0x").and_then(|r| r.strip_suffix(')'));
            match hex.and_then(|h| u64::from_str_radix(h, 16).ok()) {
                Some(p) if p > 0 && p < (1u64 << mbits) => p,
                _ => return c.err(pos, format!("bad NaN payload in '{tok}' for {}", ty.name())),
            }
        };
        sign_bit | exp_all | payload
    } else if body == "inf" {
        sign_bit | exp_all
    } else {
        let valid = !body.is_empty()
            && body
                .bytes()
                .all(|ch| ch.is_ascii_digit() || matches!(ch, b'.' | b'e' | b'E' | b'+' | b'-'))
            && body.as_bytes()[0] != b'e';
        if !valid {
            return bad(c, ty.name());
        }
        match ty {
            F32 => match tok.parse::<f32>() {
                Ok(v) => v.to_bits() as u64,
                Err(_) => return bad(c, "f32"),
            },
            _ => {
                let Ok(v) = tok.parse::<f64>() else {
                    return bad(c, ty.name());
                };
                match ty {
                    F16 => f16::from_f64(v).to_bits() as u64,
                    Bf16 => bf16::from_f64(v).to_bits() as u64,
                    _ => v.to_bits(),
                }
            }
        }
    };
    match total {
        16 => out.extend_from_slice(&(bits as u16).to_ne_bytes()),
        32 => out.extend_from_slice(&(bits as u32).to_ne_bytes()),
        _ => out.extend_from_slice(&bits.to_ne_bytes()),
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Phase 1: raw syntax

#[derive(Default)]
struct DebugInfo {
    file_names: HashMap<i64, String>,
    file_locations: HashMap<i64, (i64, i64)>, // id -> (file_name_id, line)
    stack_frames: HashMap<i64, i64>,          // id -> file_location_id
}

struct RawAttr {
    name: String,
    pos: usize,
    start: usize,
    end: usize,
}

struct RawInst {
    name: String,
    pos: usize,
    is_root: bool,
    shape: Shape,
    opcode: String,
    opcode_pos: usize,
    operands: Vec<(String, usize)>,
    param_number: Option<u64>,
    literal: Option<Literal>,
    attrs: Vec<RawAttr>,
}

struct RawComp {
    name: String,
    pos: usize,
    is_entry: bool,
    insts: Vec<RawInst>,
    execution_thread: Option<String>,
}

/// A named definition in the text (a computation, an instruction), as
/// [`ordered`] reports it on a cycle.
trait Definition {
    fn name(&self) -> &str;
    /// Byte offset of the definition in the source.
    fn pos(&self) -> usize;
}

impl Definition for RawComp {
    fn name(&self) -> &str {
        &self.name
    }
    fn pos(&self) -> usize {
        self.pos
    }
}

impl Definition for RawInst {
    fn name(&self) -> &str {
        &self.name
    }
    fn pos(&self) -> usize {
        self.pos
    }
}

struct RawModule {
    name: String,
    comps: Vec<RawComp>,
    alias: Vec<InputOutputAlias>,
    is_scheduled: bool,
    entry_layout: Option<(usize, Vec<Shape>, Shape)>,
    frontend_attributes: Vec<(String, String)>,
}

struct Parser<'a> {
    c: Cursor<'a>,
    debug: DebugInfo,
}

impl<'a> Parser<'a> {
    fn module(&mut self) -> PResult<RawModule> {
        let c = &mut self.c;
        if !c.eat_keyword("HloModule")? {
            let found = c.describe_next();
            return c.err(
                c.pos,
                format!("expected 'HloModule' at the start of the module, found {found}"),
            );
        }
        let (name, _) = c.name("the module name")?;
        let mut m = RawModule {
            name: name.to_string(),
            comps: Vec::new(),
            alias: Vec::new(),
            is_scheduled: false,
            entry_layout: None,
            frontend_attributes: Vec::new(),
        };
        while c.eat(b',')? {
            let (attr, apos) = c.ident("a module attribute")?;
            c.expect(b'=', &format!("after module attribute '{attr}'"))?;
            match attr {
                "is_scheduled" => m.is_scheduled = bool_value(c)?,
                "input_output_alias" => m.alias = io_alias(c)?,
                "entry_computation_layout" => {
                    let pos = c.pos;
                    c.expect(b'{', "to open entry_computation_layout")?;
                    c.expect(
                        b'(',
                        "to open the parameter list of entry_computation_layout",
                    )?;
                    let mut params = Vec::new();
                    if !c.eat(b')')? {
                        loop {
                            params.push(shape(c)?);
                            if c.eat(b')')? {
                                break;
                            }
                            c.expect(b',', "between entry_computation_layout parameters")?;
                        }
                    }
                    if !c.eat_str("->")? {
                        return c.err(c.pos, "expected '->' in entry_computation_layout");
                    }
                    let result = shape(c)?;
                    c.expect(b'}', "to close entry_computation_layout")?;
                    m.entry_layout = Some((pos, params, result));
                }
                "frontend_attributes" => m.frontend_attributes = frontend_attrs_value(c)?,
                "alias_passthrough_params"
                | "allow_spmd_sharding_propagation_to_parameters"
                | "allow_spmd_sharding_propagation_to_output"
                | "replica_count"
                | "num_partitions"
                | "buffer_donor" => {
                    // Multi-device and bookkeeping settings: accepted and dropped.
                    c.scan_value()?;
                }
                _ => return c.err(apos, format!("unknown module attribute '{attr}'")),
            }
        }
        // Optional stack-frame tables (`as_text(debug_info=True)`).
        loop {
            if self.c.eat_keyword("FileNames")? {
                while let Some((id, _)) = self.table_id()? {
                    let s = self.c.utf8_string("a file name")?;
                    self.debug.file_names.insert(id, s);
                }
            } else if self.c.eat_keyword("FunctionNames")? {
                while self.table_id()?.is_some() {
                    self.c.string("a function name")?;
                }
            } else if self.c.eat_keyword("FileLocations")? {
                while let Some((id, _)) = self.table_id()? {
                    let fields = self.int_dict()?;
                    let f = fields.get("file_name_id").copied().unwrap_or(0);
                    let l = fields.get("line").copied().unwrap_or(0);
                    self.debug.file_locations.insert(id, (f, l));
                }
            } else if self.c.eat_keyword("StackFrames")? {
                while let Some((id, _)) = self.table_id()? {
                    let fields = self.int_dict()?;
                    self.debug
                        .stack_frames
                        .insert(id, fields.get("file_location_id").copied().unwrap_or(0));
                }
            } else {
                break;
            }
        }
        while !self.c.at_end()? {
            let comp = self.computation()?;
            m.comps.push(comp);
        }
        if m.comps.is_empty() {
            return self.c.err(self.c.pos, "the module has no computations");
        }
        Ok(m)
    }

    fn table_id(&mut self) -> PResult<Option<(i64, usize)>> {
        match self.c.peek()? {
            Some(ch) if ch.is_ascii_digit() => {
                let pos = self.c.pos;
                Ok(Some((self.c.i64("a table id")?, pos)))
            }
            _ => Ok(None),
        }
    }

    /// `{key=1 key=2}`
    fn int_dict(&mut self) -> PResult<HashMap<String, i64>> {
        let c = &mut self.c;
        c.expect(b'{', "to open a table entry")?;
        let mut out = HashMap::new();
        while !c.eat(b'}')? {
            let (k, _) = c.ident("a field name")?;
            c.expect(b'=', "after the field name")?;
            let v = c.i64("a field value")?;
            out.insert(k.to_string(), v);
            c.eat(b',')?;
        }
        Ok(out)
    }

    fn computation(&mut self) -> PResult<RawComp> {
        let c = &mut self.c;
        let is_entry = c.eat_keyword("ENTRY")?;
        let (name, pos) = c.name("a computation name (or 'ENTRY')")?;
        if c.peek()? == Some(b'(') {
            // Long-form signature `(p: f32[4]) -> f32[4]`: informational only.
            c.scan_value()?;
            if !c.eat_str("->")? {
                return c.err(
                    c.pos,
                    format!("expected '->' after the parameter list of computation '{name}'"),
                );
            }
            shape(c)?;
        }
        c.expect(b'{', &format!("to open the body of computation '{name}'"))?;
        let mut comp = RawComp {
            name: name.to_string(),
            pos,
            is_entry,
            insts: Vec::new(),
            execution_thread: None,
        };
        loop {
            if self.c.eat(b'}')? {
                break;
            }
            if self.c.at_end()? {
                return self.c.err(
                    self.c.pos,
                    format!("computation '{}' is missing its closing '}}'", comp.name),
                );
            }
            let inst = self.instruction()?;
            comp.insts.push(inst);
        }
        let c = &mut self.c;
        let save = c.pos;
        if c.eat(b',')? {
            if c.eat_str("execution_thread")? && c.eat(b'=')? {
                comp.execution_thread = Some(c.utf8_string("execution_thread")?);
            } else {
                c.pos = save;
                let found = c.describe_next();
                return c.err(
                    save,
                    format!("unexpected {found} after computation '{}'", comp.name),
                );
            }
        }
        if comp.insts.is_empty() {
            return c.err(
                pos,
                format!("computation '{}' has no instructions", comp.name),
            );
        }
        Ok(comp)
    }

    fn instruction(&mut self) -> PResult<RawInst> {
        let c = &mut self.c;
        let is_root = c.eat_keyword("ROOT")?;
        let (name, pos) = c.name("an instruction name")?;
        c.expect(b'=', &format!("after instruction name '{name}'"))?;
        let result_shape = shape(c)?;
        let (opcode, opcode_pos) = c.ident("an opcode")?;
        c.expect(b'(', &format!("after opcode '{opcode}'"))?;
        let mut inst = RawInst {
            name: name.to_string(),
            pos,
            is_root,
            shape: result_shape,
            opcode: opcode.to_string(),
            opcode_pos,
            operands: Vec::new(),
            param_number: None,
            literal: None,
            attrs: Vec::new(),
        };
        match Opcode::from_name(opcode) {
            Some(Opcode::Parameter) => {
                let (v, vpos) = c.int("the parameter number")?;
                inst.param_number = Some(
                    u64::try_from(v)
                        .map_err(|_| c.error(vpos, "the parameter number must be non-negative"))?,
                );
                c.expect(b')', "after the parameter number")?;
            }
            Some(Opcode::Constant) => {
                inst.literal = Some(literal(c, &inst.shape)?);
                c.expect(b')', "after the constant's value")?;
            }
            _ => {
                if !c.eat(b')')? {
                    loop {
                        if at_shape(c)? {
                            shape(c)?; // long-form operand shape: informational
                        }
                        let (op, opos) = c.name("an operand name")?;
                        inst.operands.push((op.to_string(), opos));
                        if c.eat(b')')? {
                            break;
                        }
                        c.expect(b',', "between operands")?;
                    }
                }
            }
        }
        while c.eat(b',')? {
            let (aname, apos) = c.ident("an attribute name")?;
            c.expect(b'=', &format!("after attribute name '{aname}'"))?;
            let (start, end) = if aname == "backend_config" && c.peek()? == Some(b'{') {
                c.scan_json_dict()?
            } else {
                c.scan_value()?
            };
            if inst.attrs.iter().any(|a| a.name == aname) {
                return c.err(apos, format!("attribute '{aname}' is given twice"));
            }
            inst.attrs.push(RawAttr {
                name: aname.to_string(),
                pos: apos,
                start,
                end,
            });
        }
        Ok(inst)
    }

    // -----------------------------------------------------------------------
    // Phase 2: resolution

    fn build(&mut self, raw: RawModule) -> PResult<Module> {
        let src = self.c.src;
        let err = |pos: usize, msg: String| ParseError::at(src, pos, msg);

        // Computations by name.
        let mut comp_index: HashMap<&str, usize> = HashMap::new();
        for (i, rc) in raw.comps.iter().enumerate() {
            if comp_index.insert(rc.name.as_str(), i).is_some() {
                return Err(err(
                    rc.pos,
                    format!("computation '{}' is defined twice", rc.name),
                ));
            }
        }
        let entry_idx = the_marked(&raw.comps, |c| c.is_entry)
            .map_err(|i| err(raw.comps[i].pos, "more than one ENTRY computation".into()))?
            .unwrap_or(raw.comps.len() - 1);

        // Called computations of each instruction, resolved to text indices.
        let mut called: Vec<Vec<Vec<usize>>> = Vec::new();
        for rc in &raw.comps {
            let mut per_inst = Vec::new();
            for ri in &rc.insts {
                let mut v = Vec::new();
                for a in &ri.attrs {
                    for (name, pos) in self.comp_refs(a)? {
                        let Some(&k) = comp_index.get(name.as_str()) else {
                            return Err(err(pos, format!("unknown computation '{name}'")));
                        };
                        v.push(k);
                    }
                }
                per_inst.push(v);
            }
            called.push(per_inst);
        }

        // Order computations callees-first, keeping text order where possible.
        let n = raw.comps.len();
        let mut deps = DepGraph::new(n);
        for (i, per_inst) in called.iter().enumerate() {
            for &k in per_inst.iter().flatten() {
                depend(&mut deps, i, k, || {
                    let rc = &raw.comps[i];
                    err(rc.pos, format!("computation '{}' calls itself", rc.name))
                })?;
            }
        }
        let (comp_order, comp_id) =
            ordered::<CompId, _>(&deps, src, &raw.comps, "computation", "a call cycle")?;

        // Instruction names are unique in a computation; a name reused in a
        // later computation is renamed `name.N`, as XLA's parser does.
        let mut all_names: HashSet<String> = HashSet::new();
        for rc in &raw.comps {
            for ri in &rc.insts {
                all_names.insert(ri.name.clone());
            }
        }
        let mut used: HashSet<String> = HashSet::new();
        // The next suffix to try for each renamed name: the candidates below
        // it were taken and stay taken (`used` only grows), so starting here
        // gives the same names as starting from 1, in linear time (a call
        // chain of 100,000 computations all naming `p` was quadratic).
        let mut next_suffix: HashMap<String, usize> = HashMap::new();
        let mut renames: Vec<Vec<Option<String>>> = Vec::new();
        for rc in &raw.comps {
            let mut local: HashSet<&str> = HashSet::new();
            let mut r = Vec::new();
            for ri in &rc.insts {
                if !local.insert(ri.name.as_str()) {
                    return Err(err(
                        ri.pos,
                        format!(
                            "instruction name '{}' is used twice in computation '{}'",
                            ri.name, rc.name
                        ),
                    ));
                }
                if used.contains(&ri.name) {
                    let k = next_suffix.entry(ri.name.clone()).or_insert(1);
                    let new = loop {
                        let cand = format!("{}.{k}", ri.name);
                        *k += 1;
                        if !all_names.contains(&cand) && !used.contains(&cand) {
                            break cand;
                        }
                    };
                    used.insert(new.clone());
                    r.push(Some(new));
                } else {
                    r.push(None);
                }
            }
            for ri in &rc.insts {
                used.insert(ri.name.clone());
            }
            renames.push(r);
        }

        let mut raw_comps: Vec<Option<RawComp>> = raw.comps.into_iter().map(Some).collect();
        let mut called_opt: Vec<Option<Vec<Vec<usize>>>> = called.into_iter().map(Some).collect();
        let mut renames_opt: Vec<Option<Vec<Option<String>>>> =
            renames.into_iter().map(Some).collect();
        let mut computations = PrimaryMap::new();
        for &old in &comp_order {
            let rc = raw_comps[old].take().expect("each computation once");
            let rcalled = called_opt[old].take().expect("each computation once");
            let rn = renames_opt[old].take().expect("each computation once");
            let comp = self.build_computation(rc, rcalled, rn, &comp_id)?;
            computations.push(comp);
        }
        let entry = comp_id[entry_idx];
        let module = Module {
            name: raw.name,
            computations,
            entry,
            input_output_alias: raw.alias,
            is_scheduled: raw.is_scheduled,
            frontend_attributes: raw.frontend_attributes,
        };
        if let Some((pos, params, result)) = raw.entry_layout {
            let sig = module.entry_computation().program_shape();
            let ok = params.len() == sig.parameters.len()
                && params
                    .iter()
                    .zip(&sig.parameters)
                    .all(|(a, b)| a.compatible(b))
                && result.compatible(&sig.result);
            if !ok {
                let mut given = String::from("(");
                given.push_str(
                    &params
                        .iter()
                        .map(super::shape_to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                );
                given.push_str(")->");
                given.push_str(&super::shape_to_string(&result));
                return Err(err(
                    pos,
                    format!(
                        "entry_computation_layout {} does not match the entry computation '{}' signature {}",
                        given,
                        module.entry_computation().name,
                        super::print::program_shape_to_string(&sig)
                    ),
                ));
            }
        }
        Ok(module)
    }

    /// Computation names an attribute refers to.
    fn comp_refs(&self, a: &RawAttr) -> PResult<Vec<(String, usize)>> {
        let mut c = self.c.sub(a.start, a.end);
        match CalledRole::key_kind(&a.name) {
            Some(KeyKind::Single) => {
                let (n, pos) = c.name("a computation name")?;
                end_of_value(&mut c)?;
                Ok(vec![(n.to_string(), pos)])
            }
            Some(KeyKind::List) => {
                let mut v = Vec::new();
                c.expect(b'{', "to open the computation list")?;
                if !c.eat(b'}')? {
                    loop {
                        let (n, pos) = c.name("a computation name")?;
                        v.push((n.to_string(), pos));
                        if c.eat(b'}')? {
                            break;
                        }
                        c.expect(b',', "between computation names")?;
                    }
                }
                end_of_value(&mut c)?;
                Ok(v)
            }
            None => Ok(Vec::new()),
        }
    }

    fn build_computation(
        &self,
        rc: RawComp,
        called: Vec<Vec<usize>>,
        renames: Vec<Option<String>>,
        comp_id: &[CompId],
    ) -> PResult<Computation> {
        let src = self.c.src;
        let err = |pos: usize, msg: String| ParseError::at(src, pos, msg);
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (i, ri) in rc.insts.iter().enumerate() {
            index.insert(ri.name.as_str(), i);
        }
        let n = rc.insts.len();
        let mut operand_idx: Vec<Vec<usize>> = Vec::with_capacity(n);
        let mut deps = DepGraph::new(n);
        for (i, ri) in rc.insts.iter().enumerate() {
            let mut v = Vec::new();
            for (name, pos) in &ri.operands {
                let Some(&k) = index.get(name.as_str()) else {
                    return Err(err(
                        *pos,
                        format!(
                            "unknown instruction '{name}' (operand of '{}' in computation '{}')",
                            ri.name, rc.name
                        ),
                    ));
                };
                depend(&mut deps, i, k, || {
                    err(
                        *pos,
                        format!("instruction '{}' uses itself as an operand", ri.name),
                    )
                })?;
                v.push(k);
            }
            operand_idx.push(v);
        }
        let (order, new_id) =
            ordered::<InstId, _>(&deps, src, &rc.insts, "instruction", "a dependency cycle")?;

        // Root.
        let root_old = the_marked(&rc.insts, |r| r.is_root)
            .map_err(|i| {
                let msg = format!("computation '{}' has more than one ROOT", rc.name);
                err(rc.insts[i].pos, msg)
            })?
            .unwrap_or(n - 1);

        // Parameters.
        let mut params: Vec<Option<usize>> = Vec::new();
        for (i, ri) in rc.insts.iter().enumerate() {
            if let Some(num) = ri.param_number {
                let k = usize::try_from(num)
                    .ok()
                    .filter(|&k| k <= n)
                    .ok_or_else(|| {
                        err(
                            ri.pos,
                            format!(
                                "parameter number {num} is out of range ({} instructions)",
                                n
                            ),
                        )
                    })?;
                if params.len() <= k {
                    params.resize(k + 1, None);
                }
                if params[k].is_some() {
                    return Err(err(
                        ri.pos,
                        format!(
                            "parameter({num}) is defined twice in computation '{}'",
                            rc.name
                        ),
                    ));
                }
                params[k] = Some(i);
            }
        }
        let mut param_ids = Vec::with_capacity(params.len());
        for (k, p) in params.iter().enumerate() {
            match p {
                Some(i) => param_ids.push(new_id[*i]),
                None => {
                    return Err(err(
                        rc.pos,
                        format!("computation '{}' has no parameter({k})", rc.name),
                    ));
                }
            }
        }

        let mut slots: Vec<Option<Instruction>> = (0..n).map(|_| None).collect();
        for (i, ri) in rc.insts.into_iter().enumerate() {
            let operands: Vec<InstId> = operand_idx[i].iter().map(|&k| new_id[k]).collect();
            let called_ids: Vec<CompId> = called[i].iter().map(|&k| comp_id[k]).collect();
            let mut inst = self.build_instruction(ri, operands, called_ids)?;
            if let Some(n) = &renames[i] {
                inst.name = n.clone();
            }
            slots[i] = Some(inst);
        }
        let mut instructions: PrimaryMap<InstId, Instruction> = PrimaryMap::new();
        for &old in &order {
            instructions.push(slots[old].take().expect("each instruction once"));
        }
        // `type=` equal to the default for the operand type is the same as none.
        let ids: Vec<InstId> = instructions.keys().collect();
        for id in ids {
            let ty = instructions[id]
                .operands
                .first()
                .and_then(|o| instructions.get(*o))
                .and_then(|x| x.shape.element_type());
            if let Op::Compare { cmp_type, .. } = &mut instructions[id].op {
                *cmp_type = ComparisonType::canonical(*cmp_type, ty);
            }
        }
        Ok(Computation {
            name: rc.name,
            instructions,
            params: param_ids,
            root: new_id[root_old],
            execution_thread: rc.execution_thread,
        })
    }

    fn build_instruction(
        &self,
        ri: RawInst,
        operands: Vec<InstId>,
        called: Vec<CompId>,
    ) -> PResult<Instruction> {
        let opcode = ri.opcode.as_str();
        let at = |msg: String| ParseError::at(self.c.src, ri.opcode_pos, msg);
        let Some(code) = Opcode::from_name(opcode) else {
            return Err(at(unsupported_opcode(opcode)));
        };
        let mut attrs = Attrs {
            c: self.c.clone(),
            list: ri.attrs.into_iter().map(Some).collect(),
            debug: &self.debug,
            opcode: code.name(),
            opcode_pos: ri.opcode_pos,
            param_number: ri.param_number,
            literal: ri.literal,
        };
        let op = Op::parse_attrs(code, &mut attrs)?;

        // Called computations, by the roles the opcode table gives.
        let ordered = self.called_by_role(&mut attrs, code, called, &at)?;

        let metadata = attrs.opt_with_debug("metadata")?.unwrap_or_default();
        let frontend_attributes = attrs
            .opt_with("frontend_attributes", frontend_attrs_value)?
            .unwrap_or_default();
        let sharding = attrs.take_raw("sharding");
        let backend_config = match attrs.opt_with("backend_config", bytes_or_dict)? {
            None => None,
            Some(b) => Some(
                String::from_utf8(b).map_err(|_| at("backend_config is not valid UTF-8".into()))?,
            ),
        };
        for dropped in [
            "control-predecessors",
            "parameter_replication",
            "origin",
            "statistics",
            "result_accuracy",
        ] {
            attrs.take(dropped);
        }
        if let Some(a) = attrs.list.iter().flatten().next() {
            return Err(ParseError::at(
                self.c.src,
                a.pos,
                format!(
                    "attribute '{}' is not valid for opcode '{opcode}' (or not supported by hlox)",
                    a.name
                ),
            ));
        }
        Ok(Instruction {
            name: ri.name,
            op,
            shape: ri.shape,
            operands,
            called: ordered,
            metadata,
            frontend_attributes,
            sharding,
            backend_config,
        })
    }

    /// The called computations of an instruction in the order of its
    /// opcode's [`CalledRole`]s. `called` holds them in attribute order (as
    /// `comp_refs` resolved them); every called-computation attribute must
    /// belong to one of the opcode's roles, every single role must be given,
    /// and a list role is given either as its list or as its alternative keys.
    fn called_by_role(
        &self,
        attrs: &mut Attrs,
        code: Opcode,
        called: Vec<CompId>,
        at: &dyn Fn(String) -> ParseError,
    ) -> PResult<Vec<CompId>> {
        let opcode = code.name();
        let roles = code.called_roles();
        let mut by_attr: Vec<(String, usize, Vec<CompId>)> = Vec::new();
        let mut it = called.into_iter();
        for a in attrs.list.iter().flatten() {
            let k = self.comp_refs(a)?.len();
            if k > 0 {
                by_attr.push((a.name.clone(), a.pos, it.by_ref().take(k).collect()));
            }
        }
        for (name, pos, _) in &by_attr {
            let valid = roles
                .iter()
                .any(|r| r.key() == name || r.alternative_keys().contains(&name.as_str()));
            if !valid {
                return Err(ParseError::at(
                    self.c.src,
                    *pos,
                    format!("attribute '{name}' is not valid for opcode '{opcode}'"),
                ));
            }
        }
        let given = |key: &str| {
            by_attr
                .iter()
                .find(|(n, _, _)| n == key)
                .map(|(_, _, ids)| ids)
        };
        let keys = |ks: &[&str], sep: &str| {
            ks.iter()
                .map(|k| format!("{k}="))
                .collect::<Vec<_>>()
                .join(sep)
        };
        let missing = |what: String| at(format!("'{opcode}' needs {what}"));
        let singles: Vec<&str> = code.single_roles().map(|r| r.key()).collect();
        if singles.iter().any(|k| given(k).is_none()) {
            return Err(missing(keys(&singles, " and ")));
        }
        let mut ordered = Vec::new();
        for role in roles {
            if !role.is_list() {
                ordered.extend(given(role.key()).into_iter().flatten().copied());
                continue;
            }
            let alts = role.alternative_keys();
            let n_alts = alts.iter().filter(|k| given(k).is_some()).count();
            match (given(role.key()), n_alts) {
                (Some(_), 1..) => {
                    return Err(at(format!(
                        "give either {}= or {}, not both",
                        role.key(),
                        keys(alts, "/")
                    )))
                }
                (Some(ids), 0) => ordered.extend_from_slice(ids),
                (None, 0) if role == &CalledRole::Branches => {
                    return Err(missing(format!(
                        "{}= (or {})",
                        role.key(),
                        keys(alts, " and ")
                    )))
                }
                (None, 0) => {}
                (None, n) if n < alts.len() && alts.len() > 1 => {
                    return Err(missing(format!("both {}", keys(alts, " and "))))
                }
                // The alternatives, in their order (true before false),
                // whatever the order of the attributes.
                (None, _) => {
                    for k in alts {
                        ordered.extend(given(k).into_iter().flatten().copied());
                    }
                }
            }
        }
        for (name, _, _) in &by_attr {
            attrs.take(name);
        }
        Ok(ordered)
    }
}

// ---------------------------------------------------------------------------
// Attribute values

/// An instruction's attributes as the text gives them, taken one by one
/// as the opcode table's fields read them (`text::attr`); what the
/// instruction's syntax gives besides (`parameter(N)`, `constant(...)`).
pub(crate) struct Attrs<'a, 'd> {
    c: Cursor<'a>,
    list: Vec<Option<RawAttr>>,
    debug: &'d DebugInfo,
    pub(crate) opcode: &'static str,
    pub(crate) opcode_pos: usize,
    pub(crate) param_number: Option<u64>,
    pub(crate) literal: Option<Literal>,
}

impl<'a> Attrs<'a, '_> {
    fn take(&mut self, name: &str) -> Option<RawAttr> {
        self.list
            .iter_mut()
            .find(|a| a.as_ref().is_some_and(|a| a.name == name))
            .and_then(|a| a.take())
    }
    fn take_raw(&mut self, name: &str) -> Option<String> {
        self.take(name)
            .map(|a| self.c.src[a.start..a.end].to_string())
    }
    pub(crate) fn opt_with<T>(
        &mut self,
        name: &str,
        f: impl FnOnce(&mut Cursor<'a>) -> PResult<T>,
    ) -> PResult<Option<T>> {
        match self.take(name) {
            None => Ok(None),
            Some(a) => {
                let mut c = self.c.sub(a.start, a.end);
                let v = f(&mut c)?;
                end_of_value(&mut c)?;
                Ok(Some(v))
            }
        }
    }
    /// The error for a required attribute that is absent.
    pub(crate) fn missing(&self, name: &str) -> ParseError {
        self.error_at_opcode(format!("'{}' needs the attribute '{name}='", self.opcode))
    }
    /// An error about the instruction, at its opcode.
    pub(crate) fn error_at_opcode(&self, message: String) -> ParseError {
        ParseError::at(self.c.src, self.opcode_pos, message)
    }
    fn opt_with_debug(&mut self, name: &str) -> PResult<Option<OpMetadata>> {
        let debug = self.debug;
        self.opt_with(name, |c| metadata_value(c, debug))
    }
}

/// Nothing but trivia may remain in an attribute value.
fn end_of_value(c: &mut Cursor) -> PResult<()> {
    if !c.at_end()? {
        let found = c.describe_next();
        return c.err(c.pos, format!("unexpected {found} in attribute value"));
    }
    Ok(())
}

pub(super) fn bool_value(c: &mut Cursor) -> PResult<bool> {
    let (s, pos) = c.ident("true or false")?;
    match s {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => c.err(pos, format!("expected true or false, found '{s}'")),
    }
}

/// `{item, item, ...}` or `{}`: the items, parsed by `item`; `open` and
/// `sep` say what the braces open and what the commas separate, for errors.
fn braced_list<'a, T>(
    c: &mut Cursor<'a>,
    open: &str,
    sep: &str,
    mut item: impl FnMut(&mut Cursor<'a>) -> PResult<T>,
) -> PResult<Vec<T>> {
    c.expect(b'{', open)?;
    let mut v = Vec::new();
    if c.eat(b'}')? {
        return Ok(v);
    }
    loop {
        v.push(item(c)?);
        if c.eat(b'}')? {
            return Ok(v);
        }
        c.expect(b',', sep)?;
    }
}

/// `{{0,1},{2,3}}`, `{}`, or the iota form `[2,2]<=[4]` /
/// `[2,2]<=[2,2]T(1,0)`.
pub(super) fn replica_groups_value(c: &mut Cursor) -> PResult<ReplicaGroups> {
    if c.peek()? == Some(b'[') {
        c.expect(b'[', "to open the iota replica groups' [groups,size]")?;
        let groups = c.i64("the number of replica groups")?;
        c.expect(b',', "between the number of groups and their size")?;
        let size = c.i64("the size of each replica group")?;
        c.expect(b']', "to close the iota replica groups' [groups,size]")?;
        if !c.eat_str("<=")? {
            return c.err(
                c.pos,
                "expected '<=' after the iota replica groups' [groups,size]",
            );
        }
        c.expect(b'[', "to open the iota replica groups' reshape dimensions")?;
        let mut reshape_dims = vec![c.i64("a reshape dimension")?];
        while c.eat(b',')? {
            reshape_dims.push(c.i64("a reshape dimension")?);
        }
        c.expect(b']', "to close the iota replica groups' reshape dimensions")?;
        let mut perm = Vec::new();
        if c.eat(b'T')? {
            c.expect(b'(', "to open the iota replica groups' transpose")?;
            perm.push(c.i64("a transpose dimension")?);
            while c.eat(b',')? {
                perm.push(c.i64("a transpose dimension")?);
            }
            c.expect(b')', "to close the iota replica groups' transpose")?;
        }
        return Ok(ReplicaGroups::Iota(IotaReplicaGroups {
            groups,
            size,
            reshape_dims,
            perm,
        }));
    }
    Ok(ReplicaGroups::List(braced_list(
        c,
        "to open the replica groups",
        "between replica groups",
        int_list,
    )?))
}

/// `{{0,1},{1,0}}`: (source, target) device pairs.
pub(super) fn source_target_pairs_value(c: &mut Cursor) -> PResult<Vec<(i64, i64)>> {
    braced_list(c, "to open source_target_pairs", "between pairs", |c| {
        let pos = c.pos;
        let v = int_list(c)?;
        match v[..] {
            [s, t] => Ok((s, t)),
            _ => c.err(
                pos,
                format!("a source-target pair has two devices, got {}", v.len()),
            ),
        }
    })
}

/// `{1,2,3}` or `{}`.
pub(super) fn int_list(c: &mut Cursor) -> PResult<Vec<i64>> {
    braced_list(
        c,
        "to open a list of integers",
        "between list elements",
        |c| c.i64("a list element"),
    )
}

/// `{}`, `{0}`, `{1,0}`
fn shape_index(c: &mut Cursor) -> PResult<ShapeIndex> {
    int_list(c)
}

/// `{[0:4], [1:3:2]}`
pub(super) fn slice_value(c: &mut Cursor) -> PResult<Vec<SliceDim>> {
    braced_list(c, "to open the slice", "between slice dimensions", |c| {
        c.expect(b'[', "to open a slice dimension")?;
        let start = c.i64("the slice start")?;
        c.expect(b':', "after the slice start")?;
        let limit = c.i64("the slice limit")?;
        let stride = if c.eat(b':')? {
            c.i64("the slice stride")?
        } else {
            1
        };
        c.expect(b']', "to close a slice dimension")?;
        Ok(SliceDim {
            start,
            limit,
            stride,
        })
    })
}

/// A run of `[-0-9_x]` characters (`1_2x0_-1`, `3x3`).
fn dims_word<'a>(c: &mut Cursor<'a>) -> PResult<(&'a str, usize)> {
    c.skip_trivia()?;
    let b = c.bytes();
    let start = c.pos;
    let mut p = start;
    while p < c.end && (b[p].is_ascii_digit() || matches!(b[p], b'-' | b'_' | b'x')) {
        p += 1;
    }
    c.pos = p;
    Ok((&c.src[start..p], start))
}

fn parse_i64_at(c: &Cursor, s: &str, pos: usize, what: &str) -> PResult<i64> {
    s.parse::<i64>()
        .map_err(|_| c.error(pos, format!("expected an integer for {what}, found '{s}'")))
}

/// `1_2x0_1` or `1_1_1x0_0_0`; empty for rank 0.
pub(super) fn padding_value(c: &mut Cursor) -> PResult<Vec<PadDim>> {
    let (w, pos) = dims_word(c)?;
    if w.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for d in w.split('x') {
        let parts: Vec<&str> = d.split('_').collect();
        if parts.len() != 2 && parts.len() != 3 {
            return c.err(
                pos,
                format!("padding dimension '{d}' must be lo_hi or lo_hi_interior"),
            );
        }
        out.push(PadDim {
            lo: parse_i64_at(c, parts[0], pos, "the low padding")?,
            hi: parse_i64_at(c, parts[1], pos, "the high padding")?,
            interior: if parts.len() == 3 {
                parse_i64_at(c, parts[2], pos, "the interior padding")?
            } else {
                0
            },
        });
    }
    Ok(out)
}

/// `{size=3x3 stride=2x1 pad=1_1x0_0 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0}`
pub(super) fn window_value(c: &mut Cursor) -> PResult<Window> {
    c.expect(b'{', "to open the window")?;
    let mut fields: HashMap<String, (Vec<String>, usize)> = HashMap::new();
    while !c.eat(b'}')? {
        let (k, kpos) = c.ident("a window field")?;
        c.expect(b'=', &format!("after window field '{k}'"))?;
        let (w, wpos) = dims_word(c)?;
        if w.is_empty() {
            let found = c.describe_next();
            return c.err(
                c.pos,
                format!("expected the value of window field '{k}', found {found}"),
            );
        }
        if ![
            "size",
            "stride",
            "pad",
            "lhs_dilate",
            "rhs_dilate",
            "rhs_reversal",
        ]
        .contains(&k)
        {
            return c.err(kpos, format!("unknown window field '{k}'"));
        }
        fields.insert(
            k.to_string(),
            (w.split('x').map(str::to_string).collect(), wpos),
        );
    }
    let Some((sizes, spos)) = fields.get("size") else {
        if fields.is_empty() {
            return Ok(Window::default());
        }
        return c.err(c.pos, "window needs size=");
    };
    let n = sizes.len();
    let mut dims: Vec<WindowDim> = Vec::with_capacity(n);
    for s in sizes {
        dims.push(WindowDim::new(parse_i64_at(
            c,
            s,
            *spos,
            "the window size",
        )?));
    }
    for (key, (vals, pos)) in &fields {
        if vals.len() != n {
            return c.err(
                *pos,
                format!(
                    "window field '{key}' has {} dimensions but size= has {n}",
                    vals.len()
                ),
            );
        }
        for (d, v) in dims.iter_mut().zip(vals) {
            match key.as_str() {
                "stride" => d.stride = parse_i64_at(c, v, *pos, "the window stride")?,
                "lhs_dilate" => d.base_dilation = parse_i64_at(c, v, *pos, "lhs_dilate")?,
                "rhs_dilate" => d.window_dilation = parse_i64_at(c, v, *pos, "rhs_dilate")?,
                "rhs_reversal" => d.reversal = parse_i64_at(c, v, *pos, "rhs_reversal")? != 0,
                "pad" => {
                    let Some((lo, hi)) = v.split_once('_') else {
                        return c.err(*pos, format!("window padding '{v}' must be lo_hi"));
                    };
                    d.pad_lo = parse_i64_at(c, lo, *pos, "the low padding")?;
                    d.pad_hi = parse_i64_at(c, hi, *pos, "the high padding")?;
                }
                _ => {}
            }
        }
    }
    Ok(Window { dims })
}

/// `bf01_oi01->bf01`
pub(super) fn dim_labels_value(c: &mut Cursor) -> PResult<ConvDimensionNumbers> {
    c.skip_trivia()?;
    let b = c.bytes();
    let start = c.pos;
    let mut p = start;
    while p < c.end && (b[p].is_ascii_alphanumeric() || matches!(b[p], b'_' | b'-' | b'>' | b'?')) {
        p += 1;
    }
    c.pos = p;
    let text = &c.src[start..p];
    let bad = |c: &Cursor, why: &str| c.err(start, format!("bad dim_labels '{text}': {why}"));
    let Some((lhs, out)) = text.split_once("->") else {
        return bad(c, "expected input_kernel->output");
    };
    let Some((inp, ker)) = lhs.split_once('_') else {
        return bad(c, "expected input_kernel->output");
    };
    fn labels(s: &str, a: char, b: char) -> Option<(i64, i64, Vec<i64>)> {
        let mut first = None;
        let mut second = None;
        let mut spatial: Vec<Option<i64>> = vec![None; s.len().saturating_sub(2)];
        for (i, ch) in s.chars().enumerate() {
            let i = i as i64;
            if ch == a && first.is_none() {
                first = Some(i);
            } else if ch == b && second.is_none() {
                second = Some(i);
            } else {
                let k = ch.to_digit(10)? as usize;
                let slot = spatial.get_mut(k)?;
                if slot.is_some() {
                    return None;
                }
                *slot = Some(i);
            }
        }
        Some((
            first?,
            second?,
            spatial.into_iter().collect::<Option<Vec<_>>>()?,
        ))
    }
    let Some((ib, if_, is)) = labels(inp, 'b', 'f') else {
        return bad(
            c,
            "the input part needs one 'b', one 'f' and spatial digits 0..n-1",
        );
    };
    let Some((ki, ko, ks)) = labels(ker, 'i', 'o') else {
        return bad(
            c,
            "the kernel part needs one 'i', one 'o' and spatial digits 0..n-1",
        );
    };
    let Some((ob, of, os)) = labels(out, 'b', 'f') else {
        return bad(
            c,
            "the output part needs one 'b', one 'f' and spatial digits 0..n-1",
        );
    };
    Ok(ConvDimensionNumbers {
        input_batch_dimension: ib,
        input_feature_dimension: if_,
        input_spatial_dimensions: is,
        kernel_input_feature_dimension: ki,
        kernel_output_feature_dimension: ko,
        kernel_spatial_dimensions: ks,
        output_batch_dimension: ob,
        output_feature_dimension: of,
        output_spatial_dimensions: os,
    })
}

/// `{high,default}`
pub(super) fn precision_value(c: &mut Cursor) -> PResult<Vec<Precision>> {
    braced_list(c, "to open operand_precision", "between precisions", |c| {
        let (s, pos) = c.ident("a precision")?;
        Precision::from_name(&s.to_ascii_lowercase()).ok_or_else(|| {
            c.error(
                pos,
                format!("unknown precision '{s}' (expected default, high or highest)"),
            )
        })
    })
}

/// A quoted string's bytes, or a `{...}` dictionary's raw text.
pub(super) fn bytes_or_dict(c: &mut Cursor) -> PResult<Vec<u8>> {
    if c.peek()? == Some(b'{') {
        let (s, e) = c.scan_json_dict()?;
        Ok(c.src.as_bytes()[s..e].to_vec())
    } else {
        Ok(c.string("backend_config")?.0)
    }
}

/// `{out}: (n, {index}`: the head of an entry of both aliasing lists,
/// where `n` numbers an operand or a parameter (`what`).
fn alias_head(c: &mut Cursor, what: &str) -> PResult<(ShapeIndex, i64, ShapeIndex)> {
    let output_index = shape_index(c)?;
    c.expect(b':', "after the output shape index")?;
    c.expect(b'(', &format!("to open the aliased {what}"))?;
    let n = c.i64(&format!("the {what} number"))?;
    c.expect(b',', &format!("after the {what} number"))?;
    Ok((output_index, n, shape_index(c)?))
}

/// `{{0}: (1, {}), {1}: (0, {0})}`
pub(super) fn operand_aliasing_value(c: &mut Cursor) -> PResult<Vec<OutputOperandAlias>> {
    braced_list(
        c,
        "to open output_to_operand_aliasing",
        "between aliasing entries",
        |c| {
            let (output_index, operand, operand_index) = alias_head(c, "operand")?;
            c.expect(b')', "to close the aliased operand")?;
            Ok(OutputOperandAlias {
                output_index,
                operand,
                operand_index,
            })
        },
    )
}

/// `{ {0}: (0, {}, may-alias), {1}: (1, {}) }`
fn io_alias(c: &mut Cursor) -> PResult<Vec<InputOutputAlias>> {
    braced_list(
        c,
        "to open input_output_alias",
        "between aliasing entries",
        |c| {
            let (output_index, parameter_number, parameter_index) = alias_head(c, "parameter")?;
            let mut kind = AliasKind::MayAlias;
            if c.eat(b',')? {
                let (k, kpos) = c.ident("may-alias or must-alias")?;
                kind = match k {
                    "may-alias" => AliasKind::MayAlias,
                    "must-alias" => AliasKind::MustAlias,
                    _ => {
                        return c.err(
                            kpos,
                            format!("expected may-alias or must-alias, found '{k}'"),
                        )
                    }
                };
            }
            c.expect(b')', "to close the aliased parameter")?;
            Ok(InputOutputAlias {
                output_index,
                parameter_number,
                parameter_index,
                kind,
            })
        },
    )
}

/// `{f32[2]{0}, s32[]}`
pub(super) fn shape_list_value(c: &mut Cursor) -> PResult<Vec<Shape>> {
    braced_list(c, "to open the shape list", "between shapes", |c| shape(c))
}

/// `{op_type="..." op_name="..." source_file="..." source_line=12 ...}`;
/// other keys are accepted and dropped. A `stack_frame_id` fills in the
/// source file and line from the module's stack-frame tables.
fn metadata_value(c: &mut Cursor, debug: &DebugInfo) -> PResult<OpMetadata> {
    c.expect(b'{', "to open metadata")?;
    let mut md = OpMetadata::default();
    let mut frame: Option<i64> = None;
    while !c.eat(b'}')? {
        let (k, _) = c.ident("a metadata key")?;
        c.expect(b'=', &format!("after metadata key '{k}'"))?;
        match k {
            "op_type" => md.op_type = c.utf8_string("op_type")?,
            "op_name" => md.op_name = c.utf8_string("op_name")?,
            "source_file" => md.source_file = c.utf8_string("source_file")?,
            "source_line" => {
                let (v, pos) = c.int("source_line")?;
                md.source_line = i32::try_from(v)
                    .map_err(|_| c.error(pos, "source_line does not fit in 32 bits"))?;
            }
            "stack_frame_id" => frame = Some(c.i64("stack_frame_id")?),
            _ => {
                c.scan_value()?;
            }
        }
        c.eat(b',')?;
    }
    if let Some(f) = frame {
        if md.source_file.is_empty() {
            if let Some(&(file_id, line)) = debug
                .stack_frames
                .get(&f)
                .and_then(|loc| debug.file_locations.get(loc))
            {
                if let Some(name) = debug.file_names.get(&file_id) {
                    md.source_file = name.clone();
                    md.source_line = i32::try_from(line).unwrap_or(0);
                }
            }
        }
    }
    Ok(md)
}

/// `{key="value",other={dict}}`
fn frontend_attrs_value(c: &mut Cursor) -> PResult<Vec<(String, String)>> {
    c.expect(b'{', "to open frontend_attributes")?;
    let mut v = Vec::new();
    while !c.eat(b'}')? {
        // A plain name, or a quoted string (how hlox prints other keys).
        let k = if c.peek()? == Some(b'"') {
            c.utf8_string("a frontend attribute name")?
        } else {
            c.ident("a frontend attribute name")?.0.to_string()
        };
        c.expect(b'=', &format!("after frontend attribute '{k}'"))?;
        let val = if c.peek()? == Some(b'{') {
            let (s, e) = c.scan_json_dict()?;
            c.src[s..e].to_string()
        } else {
            c.utf8_string("a frontend attribute value")?
        };
        v.push((k, val));
        if !c.eat(b',')? {
            c.expect(b'}', "to close frontend_attributes")?;
            break;
        }
    }
    Ok(v)
}

/// The error for an opcode name the table does not have. XLA's scheduled
/// modules split some collectives into `-start`/`-done` pairs (the table's
/// `ASYNC_PAIR` property); for those the message says where to get the
/// module before that split.
fn unsupported_opcode(name: &str) -> String {
    let split = name
        .strip_suffix("-start")
        .or_else(|| name.strip_suffix("-done"))
        .and_then(Opcode::from_name)
        .filter(|o| o.has_async_pair());
    match split {
        Some(sync) => format!(
            "unsupported opcode '{name}': hlox reads collectives before XLA's \
             scheduling splits them into -start/-done pairs; give it the module \
             before optimization (JAX: .lower(...).as_text(dialect=\"hlo\")), \
             where this is a plain '{sync}'"
        ),
        None => format!("unsupported opcode '{name}' (hlox does not implement it)"),
    }
}

/// The one item `marked` (the ENTRY computation, a computation's ROOT):
/// its index, or `None` when no item is marked; `Err` with the index of a
/// second marked item.
fn the_marked<T>(items: &[T], marked: impl Fn(&T) -> bool) -> Result<Option<usize>, usize> {
    let mut found = items.iter().enumerate().filter(|(_, t)| marked(t));
    match (found.next(), found.next()) {
        (_, Some((second, _))) => Err(second),
        (first, None) => Ok(first.map(|(i, _)| i)),
    }
}

/// Records that definition `user` depends on `dep`. A definition that
/// depends on itself is the error `itself` (its own message reads better
/// than the one-node cycle [`ordered`] would report).
fn depend(
    deps: &mut DepGraph,
    user: usize,
    dep: usize,
    itself: impl FnOnce() -> ParseError,
) -> PResult<()> {
    if user == dep {
        return Err(itself());
    }
    deps.add_dep(user, dep);
    Ok(())
}

/// The order to build definitions in ([`DepGraph::order`]) and the id each
/// definition (by text index) gets in it; on a cycle, the error
/// `{what} 'a' is part of {kind}: a -> b -> a` at the first node's
/// definition. `defs` are the definitions in text order.
fn ordered<K: EntityRef, D: Definition>(
    deps: &DepGraph,
    src: &str,
    defs: &[D],
    what: &str,
    kind: &str,
) -> PResult<(Vec<usize>, Vec<K>)> {
    let order = deps.order().map_err(|cycle| {
        let first = &defs[cycle.first()];
        ParseError::at(
            src,
            first.pos(),
            format!(
                "{what} '{}' is part of {kind}: {}",
                first.name(),
                cycle.describe(|i| defs[i].name())
            ),
        )
    })?;
    let mut id = vec![K::new(0); order.len()];
    for (new, &old) in order.iter().enumerate() {
        id[old] = K::new(new);
    }
    Ok((order, id))
}
