//! The MLIR text reader: StableHLO as JAX prints it, read into a small
//! syntax tree ([`MModule`], [`MFunc`], [`MOp`]) that [`super::lower`]
//! turns into HLO.
//!
//! Both op forms are read into one shape: the generic form
//! (`"stablehlo.add"(%a, %b) : (...) -> ...`, with `<{properties}>`,
//! regions and an attribute dictionary) and the pretty forms of the ops JAX
//! prints (`stablehlo.add %a, %b : tensor<4xf32>`,
//! `stablehlo.broadcast_in_dim %x, dims = [0] : ...`). A pretty op's
//! keywords become the attributes its generic form would carry
//! (`dims = [0]` is `broadcast_dimensions = array<i64: 0>`), so the lowering
//! reads one form only.
//!
//! Every failure is a [`ParseError`] at a byte offset; nesting is bounded
//! ([`MAX_DEPTH`]) and every loop consumes input, so no input panics or
//! hangs.

use crate::text::ParseError;

type PResult<T> = Result<T, ParseError>;

/// How deeply regions, attributes and types may nest.
pub(crate) const MAX_DEPTH: usize = 200;

/// An element type as MLIR writes it.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum Elem {
    /// `i1`..`i64` (`signed = true`, also `si32`), `ui8`..`ui64`.
    Int { unsigned: bool, bits: u32 },
    /// `f16`, `bf16`, `f32`, `f64`, or another float name (kept for the error).
    Float(String),
    /// `complex<f32>`, `complex<f64>`.
    Complex(Box<Elem>),
    /// `index` (layouts of custom calls).
    Index,
}

/// A type: a ranked tensor, a token or a tuple.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum MType {
    Tensor {
        dims: Vec<i64>,
        elem: Elem,
        pos: usize,
    },
    Token,
    Tuple(Vec<MType>),
}

/// An element of a `dense<...>` literal.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum DenseElem {
    Int(i128),
    Float(f64),
    Bool(bool),
    /// A hexadecimal integer written for a float: the bit pattern.
    Bits(u64),
    Complex(Box<DenseElem>, Box<DenseElem>),
}

/// The body of a `dense<...>` literal.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum DenseBody {
    /// Elements in row-major order (one element is a splat).
    Elems(Vec<DenseElem>),
    /// `dense<"0x...">`: raw little-endian bytes of every element (or of one, a splat).
    Hex(Vec<u8>),
}

/// An attribute value.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum Attr {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(Vec<u8>),
    Unit,
    Array(Vec<Attr>),
    /// `array<i64: 1, 2>`
    DenseArray(Vec<i64>),
    Dense {
        body: DenseBody,
        ty: Option<MType>,
        pos: usize,
    },
    Dict(Vec<AttrEntry>),
    /// `#stablehlo<precision DEFAULT>`, `#stablehlo<comparison_direction GT>`,
    /// or a bare keyword (`DEFAULT`, `GT`): the keyword.
    Enum(String),
    /// `#stablehlo.gather<offset_dims = [1], ...>`: the fields.
    Struct(String, Vec<AttrEntry>),
    Symbol(String),
    Type(MType),
    /// Something hlox reads no further (`#sdy...`, `#loc`, affine maps).
    Opaque,
}

/// `key = value` (or a unit `key`), with the value's source span.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct AttrEntry {
    pub key: String,
    pub value: Attr,
    pub pos: usize,
    /// Byte range of the value in the source (a typed-FFI dictionary is
    /// handed on as this text).
    pub span: (usize, usize),
}

/// A use of a value: `%name` or `%name#index`.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct ValueRef {
    pub name: String,
    pub index: Option<usize>,
    pub pos: usize,
}

/// A region with one block.
#[derive(Clone, PartialEq, Debug, Default)]
pub(crate) struct MRegion {
    pub args: Vec<(String, MType)>,
    pub ops: Vec<MOp>,
    pub pos: usize,
}

/// An operation, generic or pretty, read into the generic form's parts.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct MOp {
    pub pos: usize,
    /// The op name with its dialect: `stablehlo.add`, `func.call`, `chlo.erf`.
    pub name: String,
    /// Result groups: (`%name`, count); `%0:2` is one group of two.
    pub results: Vec<(String, usize)>,
    pub operands: Vec<ValueRef>,
    pub attrs: Vec<AttrEntry>,
    pub regions: Vec<MRegion>,
    pub result_types: Vec<MType>,
}

impl MOp {
    pub fn attr(&self, key: &str) -> Option<&AttrEntry> {
        self.attrs.iter().find(|a| a.key == key)
    }
}

/// A `func.func`.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct MFunc {
    pub name: String,
    pub pos: usize,
    pub body: MRegion,
    pub results: Vec<MType>,
    /// Each argument's attribute dictionary (`{sdy.sharding = ...}`), empty
    /// where it has none.
    pub arg_attrs: Vec<Vec<AttrEntry>>,
}

/// A Shardy mesh of the module body, `sdy.mesh @name = <["x"=4]>`.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct MMesh {
    pub name: String,
    /// The mesh as XLA spells it in `xla.sdy.meshes`: `#sdy.mesh<["x"=4]>`.
    pub text: String,
    pub pos: usize,
}

/// A module: its functions in source order, and its Shardy meshes.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct MModule {
    pub name: Option<String>,
    pub funcs: Vec<MFunc>,
    pub meshes: Vec<MMesh>,
}

pub(crate) struct Parser<'a> {
    pub src: &'a str,
    b: &'a [u8],
    pub pos: usize,
    depth: usize,
}

fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str) -> Parser<'a> {
        Parser {
            src,
            b: src.as_bytes(),
            pos: 0,
            depth: 0,
        }
    }

    pub fn err<T>(&self, pos: usize, msg: impl Into<String>) -> PResult<T> {
        Err(ParseError::at(self.src, pos, msg))
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(self.pos, format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }
    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skips whitespace and `//` comments.
    pub fn ws(&mut self) {
        loop {
            while self.pos < self.b.len() && self.b[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.b[self.pos..].starts_with(b"//") {
                while self.pos < self.b.len() && self.b[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                return;
            }
        }
    }

    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.pos).copied()
    }

    fn peek_str(&mut self, s: &str) -> bool {
        self.ws();
        self.b[self.pos..].starts_with(s.as_bytes())
    }

    /// Consumes `c` if it is next.
    pub fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_str(&mut self, s: &str) -> bool {
        if self.peek_str(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, c: u8, what: &str) -> PResult<()> {
        if self.eat(c) {
            Ok(())
        } else {
            self.err(
                self.pos,
                format!("expected '{}' {what}, found {}", c as char, self.found()),
            )
        }
    }

    fn expect_str(&mut self, s: &str, what: &str) -> PResult<()> {
        if self.eat_str(s) {
            Ok(())
        } else {
            self.err(
                self.pos,
                format!("expected '{s}' {what}, found {}", self.found()),
            )
        }
    }

    /// What is at the cursor, for messages.
    pub fn found(&self) -> String {
        let rest = self.src[self.pos..].trim_start();
        if rest.is_empty() {
            return "the end of the file".into();
        }
        let word: String = rest
            .chars()
            .take_while(|c| !c.is_whitespace())
            .take(24)
            .collect();
        format!("'{word}'")
    }

    /// A bare identifier (letters, digits, `_ $ . -`), which must start with
    /// a letter or `_`.
    pub fn ident(&mut self, what: &str) -> PResult<(String, usize)> {
        self.ws();
        let start = self.pos;
        match self.b.get(self.pos) {
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {}
            _ => return self.err(start, format!("expected {what}, found {}", self.found())),
        }
        while self.pos < self.b.len() && is_id_char(self.b[self.pos]) {
            self.pos += 1;
        }
        Ok((self.src[start..self.pos].to_string(), start))
    }

    /// The next bare word without consuming it.
    fn peek_word(&mut self) -> &'a str {
        self.ws();
        let mut e = self.pos;
        while e < self.b.len() && is_id_char(self.b[e]) {
            e += 1;
        }
        &self.src[self.pos..e]
    }

    fn keyword(&mut self, kw: &str, what: &str) -> PResult<()> {
        let start = self.pos;
        let (w, p) = self.ident(&format!("'{kw}' {what}"))?;
        if w != kw {
            self.pos = start;
            return self.err(p, format!("expected '{kw}' {what}, found '{w}'"));
        }
        Ok(())
    }

    /// Skips whitespace and the byte `c` that opens {what} (`token`: what
    /// such a token is, for the error); where it stood.
    fn opening(&mut self, c: u8, what: &str, token: &str) -> PResult<usize> {
        self.ws();
        let start = self.pos;
        if self.b.get(self.pos) != Some(&c) {
            return self.err(
                start,
                format!("expected {what} ({token}), found {}", self.found()),
            );
        }
        self.pos += 1;
        Ok(start)
    }

    /// `%name` (the name without `%`).
    fn value_name(&mut self, what: &str) -> PResult<(String, usize)> {
        let start = self.opening(b'%', what, "a '%' value")?;
        let s = self.pos;
        while self.pos < self.b.len() && is_id_char(self.b[self.pos]) && self.b[self.pos] != b'.' {
            self.pos += 1;
        }
        if s == self.pos {
            return self.err(start, "expected a value name after '%'");
        }
        Ok((self.src[s..self.pos].to_string(), start))
    }

    /// `%name` or `%name#N`.
    pub fn value_ref(&mut self) -> PResult<ValueRef> {
        let (name, pos) = self.value_name("an operand")?;
        let index = if self.b.get(self.pos) == Some(&b'#') {
            self.pos += 1;
            Some(self.usize_lit("a result number after '#'")?)
        } else {
            None
        };
        Ok(ValueRef { name, index, pos })
    }

    fn usize_lit(&mut self, what: &str) -> PResult<usize> {
        let (v, p) = self.int_lit(what)?;
        usize::try_from(v)
            .or_else(|_| self.err(p, format!("{what} must be a small non-negative integer")))
            .and_then(|v| {
                if v > 1 << 24 {
                    self.err(p, format!("{what} {v} is too large"))
                } else {
                    Ok(v)
                }
            })
    }

    /// An integer (decimal or `0x` hex, optionally negative).
    pub fn int_lit(&mut self, what: &str) -> PResult<(i128, usize)> {
        self.ws();
        let start = self.pos;
        let neg = self.b.get(self.pos) == Some(&b'-');
        if neg {
            self.pos += 1;
        }
        let v = if self.b[self.pos..].starts_with(b"0x") {
            self.pos += 2;
            let s = self.pos;
            while self.pos < self.b.len() && self.b[self.pos].is_ascii_hexdigit() {
                self.pos += 1;
            }
            i128::from_str_radix(&self.src[s..self.pos], 16).ok()
        } else {
            let s = self.pos;
            while self.pos < self.b.len() && self.b[self.pos].is_ascii_digit() {
                self.pos += 1;
            }
            self.src[s..self.pos].parse::<i128>().ok()
        };
        match v {
            Some(v) => Ok((if neg { -v } else { v }, start)),
            None => {
                self.pos = start;
                self.err(
                    start,
                    format!("expected {what} (an integer), found {}", self.found()),
                )
            }
        }
    }

    fn i64_lit(&mut self, what: &str) -> PResult<i64> {
        let (v, p) = self.int_lit(what)?;
        i64::try_from(v).or_else(|_| self.err(p, format!("{what} {v} does not fit in 64 bits")))
    }

    /// A number: integer, float (`1.5e-3`), hex bit pattern, `nan`/`inf`.
    fn number(&mut self) -> PResult<DenseElem> {
        self.ws();
        let start = self.pos;
        let mut p = self.pos;
        if matches!(self.b.get(p), Some(b'-') | Some(b'+')) {
            p += 1;
        }
        if self.b[p..].starts_with(b"0x") {
            let neg = self.b[start] == b'-';
            self.pos = p + 2;
            let s = self.pos;
            while self.pos < self.b.len() && self.b[self.pos].is_ascii_hexdigit() {
                self.pos += 1;
            }
            return match u64::from_str_radix(&self.src[s..self.pos], 16) {
                Ok(v) if !neg => Ok(DenseElem::Bits(v)),
                Ok(v) => Ok(DenseElem::Int(-(v as i128))),
                Err(_) => self.err(start, "expected a hexadecimal number of at most 64 bits"),
            };
        }
        for (word, v) in [
            ("nan", f64::NAN),
            ("inf", f64::INFINITY),
            ("infinity", f64::INFINITY),
        ] {
            if self.src[p..].starts_with(word)
                && !self.b.get(p + word.len()).is_some_and(|&c| is_id_char(c))
            {
                self.pos = p + word.len();
                let neg = self.b[start] == b'-';
                return Ok(DenseElem::Float(if neg { -v } else { v }));
            }
        }
        let ds = p;
        while p < self.b.len() && self.b[p].is_ascii_digit() {
            p += 1;
        }
        if p == ds {
            return self.err(start, format!("expected a number, found {}", self.found()));
        }
        let mut float = false;
        if self.b.get(p) == Some(&b'.') {
            float = true;
            p += 1;
            while p < self.b.len() && self.b[p].is_ascii_digit() {
                p += 1;
            }
        }
        if matches!(self.b.get(p), Some(b'e') | Some(b'E')) {
            let mut q = p + 1;
            if matches!(self.b.get(q), Some(b'-') | Some(b'+')) {
                q += 1;
            }
            if self.b.get(q).is_some_and(|c| c.is_ascii_digit()) {
                float = true;
                p = q;
                while p < self.b.len() && self.b[p].is_ascii_digit() {
                    p += 1;
                }
            }
        }
        let text = &self.src[start..p];
        self.pos = p;
        if float {
            text.parse::<f64>()
                .map(DenseElem::Float)
                .or_else(|_| self.err(start, format!("'{text}' is not a valid number")))
        } else {
            text.parse::<i128>()
                .map(DenseElem::Int)
                .or_else(|_| self.err(start, format!("'{text}' is not a valid integer")))
        }
    }

    /// A quoted string with MLIR's escapes (`\"`, `\\`, `\n`, `\t`, `\XX`).
    pub fn string(&mut self, what: &str) -> PResult<(Vec<u8>, usize)> {
        let start = self.opening(b'"', what, "a quoted string")?;
        let mut out = Vec::new();
        loop {
            match self.b.get(self.pos) {
                None => return self.err(start, "unterminated string"),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok((out, start));
                }
                Some(b'\\') => {
                    let c = self.b.get(self.pos + 1).copied();
                    match c {
                        Some(b'"') | Some(b'\\') => {
                            out.push(c.unwrap_or(b'\\'));
                            self.pos += 2;
                        }
                        Some(b'n') => {
                            out.push(b'\n');
                            self.pos += 2;
                        }
                        Some(b't') => {
                            out.push(b'\t');
                            self.pos += 2;
                        }
                        _ => {
                            let hex = self
                                .src
                                .get(self.pos + 1..self.pos + 3)
                                .and_then(|h| u8::from_str_radix(h, 16).ok());
                            match hex {
                                Some(v) => {
                                    out.push(v);
                                    self.pos += 3;
                                }
                                None => return self.err(self.pos, "invalid escape in a string"),
                            }
                        }
                    }
                }
                Some(&c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `@name` or `@"name"`.
    fn symbol(&mut self, what: &str) -> PResult<(String, usize)> {
        let start = self.opening(b'@', what, "an '@' symbol")?;
        if self.b.get(self.pos) == Some(&b'"') {
            let (s, _) = self.string(what)?;
            return Ok((String::from_utf8_lossy(&s).into_owned(), start));
        }
        let s = self.pos;
        while self.pos < self.b.len() && is_id_char(self.b[self.pos]) {
            self.pos += 1;
        }
        if s == self.pos {
            return self.err(start, format!("expected {what} after '@'"));
        }
        Ok((self.src[s..self.pos].to_string(), start))
    }

    /// Skips a balanced group that starts at the cursor with `open`, minding
    /// strings (and `->` inside `<...>`).
    fn skip_balanced(&mut self, open: u8, close: u8) -> PResult<()> {
        let start = self.pos;
        let mut depth = 0usize;
        while let Some(&c) = self.b.get(self.pos) {
            if c == b'"' {
                self.string("a string")?;
                continue;
            }
            self.pos += 1;
            if c == b'-' && self.b.get(self.pos) == Some(&b'>') {
                self.pos += 1;
                continue;
            }
            if c == open {
                depth += 1;
            } else if c == close {
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            }
        }
        self.err(start, format!("unclosed '{}'", open as char))
    }

    /// `loc(...)`, which hlox reads no further (source locations of JAX's tracing).
    pub fn skip_loc(&mut self) -> PResult<()> {
        if self.peek_word() == "loc" && self.b.get(self.pos + 3) == Some(&b'(') {
            self.pos += 3;
            self.skip_balanced(b'(', b')')?;
        }
        Ok(())
    }

    // ---------------------------------------------------------------- types

    fn elem(&mut self) -> PResult<Elem> {
        let (w, p) = self.ident("an element type")?;
        let num = |s: &str| s.parse::<u32>().ok();
        Ok(match w.as_str() {
            "index" => Elem::Index,
            "complex" => {
                self.expect(b'<', "after 'complex'")?;
                self.enter()?;
                let inner = self.elem()?;
                self.leave();
                self.expect(b'>', "to close 'complex<'")?;
                Elem::Complex(Box::new(inner))
            }
            _ if w.starts_with("ui") && num(&w[2..]).is_some() => Elem::Int {
                unsigned: true,
                bits: num(&w[2..]).unwrap_or(0),
            },
            _ if w.starts_with("si") && num(&w[2..]).is_some() => Elem::Int {
                unsigned: false,
                bits: num(&w[2..]).unwrap_or(0),
            },
            _ if w.starts_with('i') && num(&w[1..]).is_some() => Elem::Int {
                unsigned: false,
                bits: num(&w[1..]).unwrap_or(0),
            },
            _ if w.starts_with('f') || w.starts_with("bf") || w.starts_with("tf") => Elem::Float(w),
            _ => return self.err(p, format!("unknown element type '{w}'")),
        })
    }

    /// `tensor<2x3xf32>`, `tensor<f32>`, `!stablehlo.token`, `tuple<...>`,
    /// or a bare element type (a rank-0 tensor).
    pub fn ty(&mut self) -> PResult<MType> {
        self.ws();
        let pos = self.pos;
        if self.eat_str("!stablehlo.token") {
            return Ok(MType::Token);
        }
        if self.peek() == Some(b'!') {
            return self.err(pos, format!("unsupported type {}", self.found()));
        }
        let w = self.peek_word();
        if w == "tensor" {
            self.pos += w.len();
            self.expect(b'<', "after 'tensor'")?;
            let mut dims = Vec::new();
            loop {
                self.ws();
                match self.b.get(self.pos) {
                    Some(b'?') => {
                        return self.err(self.pos, "dynamic dimensions ('?') are not supported: hlox needs static shapes (export with concrete shapes)")
                    }
                    Some(c) if c.is_ascii_digit() => {
                        let s = self.pos;
                        while self.b.get(self.pos).is_some_and(|c| c.is_ascii_digit()) {
                            self.pos += 1;
                        }
                        let Ok(d) = self.src[s..self.pos].parse::<i64>() else {
                            return self.err(s, "a dimension size does not fit in 64 bits");
                        };
                        dims.push(d);
                        if self.b.get(self.pos) != Some(&b'x') {
                            return self.err(self.pos, "expected 'x' after a dimension size");
                        }
                        self.pos += 1;
                    }
                    _ => break,
                }
            }
            self.enter()?;
            let elem = self.elem()?;
            self.leave();
            if self.eat(b',') {
                // An encoding (`#stablehlo.bounds<...>`, a sparsity): not supported.
                return self.err(
                    self.pos,
                    "tensor encodings (bounded or sparse tensors) are not supported",
                );
            }
            self.expect(b'>', "to close 'tensor<'")?;
            return Ok(MType::Tensor { dims, elem, pos });
        }
        if w == "tuple" {
            self.pos += w.len();
            self.expect(b'<', "after 'tuple'")?;
            self.enter()?;
            let elems = self.list_until(b'>', "between tuple element types", Self::ty)?;
            self.leave();
            return Ok(MType::Tuple(elems));
        }
        let elem = self.elem()?;
        Ok(MType::Tensor {
            dims: Vec::new(),
            elem,
            pos,
        })
    }

    /// Whether a type starts at the cursor.
    fn at_type(&mut self) -> bool {
        if self.peek() == Some(b'!') {
            return true;
        }
        let w = self.peek_word();
        let num = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
        matches!(w, "tensor" | "tuple" | "index" | "complex")
            || (w.starts_with("ui") && num(&w[2..]))
            || (w.starts_with('i') && num(&w[1..]))
            || (w.starts_with('f') && num(&w[1..]))
            || w == "bf16"
    }

    /// `(T, T)`, possibly empty.
    fn type_list_parens(&mut self) -> PResult<Vec<MType>> {
        self.expect(b'(', "to open a type list")?;
        self.list_until(b')', "between types", |p| {
            let t = p.ty()?;
            p.skip_attr_dict_if_any()?;
            Ok(t)
        })
    }

    /// The result types after `->`: `(T, T)` or one `T`.
    fn result_types(&mut self) -> PResult<Vec<MType>> {
        if self.peek() == Some(b'(') {
            self.type_list_parens()
        } else {
            Ok(vec![self.ty()?])
        }
    }

    /// An op's trailing type signature after `:`; the result types.
    /// `(A, B) -> C`, `A -> C` (chlo), `A` (operands and result alike),
    /// or `A, B, ...` (while, optimization_barrier, select's `pred, T`).
    fn signature(&mut self, op: &str) -> PResult<(Vec<MType>, Option<Vec<MType>>)> {
        self.expect(b':', &format!("before the type signature of '{op}'"))?;
        if self.peek() == Some(b'(') {
            let ins = self.type_list_parens()?;
            self.expect_str("->", "after the operand types")?;
            return Ok((self.result_types()?, Some(ins)));
        }
        let first = self.ty()?;
        if self.eat_str("->") {
            return Ok((self.result_types()?, Some(vec![first])));
        }
        let mut all = vec![first];
        while self.eat(b',') {
            all.push(self.ty()?);
        }
        Ok((all, None))
    }

    // ----------------------------------------------------------- attributes

    fn skip_attr_dict_if_any(&mut self) -> PResult<()> {
        if self.peek() == Some(b'{') {
            self.attr_dict()?;
        }
        Ok(())
    }

    /// `{key = value, unit_key, ...}`.
    pub fn attr_dict(&mut self) -> PResult<Vec<AttrEntry>> {
        self.expect(b'{', "to open an attribute dictionary")?;
        self.enter()?;
        let v = self.list_until(b'}', "between attributes", Self::attr_entry)?;
        self.leave();
        Ok(v)
    }

    fn attr_key(&mut self) -> PResult<(String, usize)> {
        self.ws();
        if self.b.get(self.pos) == Some(&b'"') {
            let (s, p) = self.string("an attribute name")?;
            return Ok((String::from_utf8_lossy(&s).into_owned(), p));
        }
        self.ident("an attribute name")
    }

    fn attr_entry(&mut self) -> PResult<AttrEntry> {
        let (key, pos) = self.attr_key()?;
        if !self.eat(b'=') {
            let p = self.pos;
            return Ok(AttrEntry {
                key,
                value: Attr::Unit,
                pos,
                span: (p, p),
            });
        }
        self.ws();
        let s = self.pos;
        let value = self.attr_value(true)?;
        Ok(AttrEntry {
            key,
            value,
            pos,
            span: (s, self.pos),
        })
    }

    /// An attribute value; `typed`: a trailing `: type` belongs to it.
    pub fn attr_value(&mut self, typed: bool) -> PResult<Attr> {
        self.enter()?;
        let r = stacker::maybe_grow(64 << 10, 1 << 20, || self.attr_value_inner(typed));
        self.leave();
        r
    }

    fn attr_value_inner(&mut self, typed: bool) -> PResult<Attr> {
        self.ws();
        let pos = self.pos;
        let v = match self.b.get(self.pos) {
            None => {
                return self.err(
                    pos,
                    "expected an attribute value, found the end of the file",
                )
            }
            Some(b'"') => Attr::Str(self.string("a string")?.0),
            Some(b'[') => {
                self.pos += 1;
                Attr::Array(
                    self.list_until(b']', "between array elements", |p| p.attr_value(true))?,
                )
            }
            Some(b'{') => Attr::Dict(self.attr_dict()?),
            Some(b'@') => Attr::Symbol(self.symbol("a symbol")?.0),
            Some(b'#') => self.hash_attr()?,
            Some(b'!') => Attr::Type(self.ty()?),
            Some(c) if c.is_ascii_digit() || *c == b'-' || *c == b'+' => match self.number()? {
                DenseElem::Int(i) => Attr::Int(i),
                DenseElem::Bits(b) => Attr::Int(b as i128),
                DenseElem::Float(f) => Attr::Float(f),
                _ => Attr::Opaque,
            },
            Some(_) => {
                let w = self.peek_word();
                match w {
                    "true" | "false" => {
                        self.pos += w.len();
                        Attr::Bool(w == "true")
                    }
                    "dense" => self.dense()?,
                    "array" => self.dense_array()?,
                    "unit" => {
                        self.pos += 4;
                        Attr::Unit
                    }
                    "nan" | "inf" => match self.number()? {
                        DenseElem::Float(f) => Attr::Float(f),
                        _ => Attr::Opaque,
                    },
                    _ if self.at_type() => Attr::Type(self.ty()?),
                    "" => {
                        return self.err(
                            pos,
                            format!("expected an attribute value, found {}", self.found()),
                        )
                    }
                    _ => {
                        // A bare keyword (DEFAULT, GT), or an opaque dialect value.
                        let (w, _) = self.ident("an attribute value")?;
                        if self.peek() == Some(b'<') {
                            self.skip_balanced(b'<', b'>')?;
                            Attr::Opaque
                        } else {
                            Attr::Enum(w)
                        }
                    }
                }
            }
        };
        if typed && self.peek() == Some(b':') {
            let save = self.pos;
            self.pos += 1;
            if self.at_type() {
                let t = self.ty()?;
                if let Attr::Dense { body, pos, .. } = v {
                    return Ok(Attr::Dense {
                        body,
                        ty: Some(t),
                        pos,
                    });
                }
            } else {
                self.pos = save;
            }
        }
        Ok(v)
    }

    /// `#dialect<kind VALUE>`, `#dialect.name<k = v, ...>`, or an alias `#loc3`.
    fn hash_attr(&mut self) -> PResult<Attr> {
        let start = self.pos;
        self.pos += 1;
        let s = self.pos;
        while self.pos < self.b.len() && is_id_char(self.b[self.pos]) {
            self.pos += 1;
        }
        let name = self.src[s..self.pos].to_string();
        if self.b.get(self.pos) != Some(&b'<') {
            return Ok(Attr::Opaque);
        }
        if name == "stablehlo" || name == "chlo" || name == "mhlo" {
            // `#stablehlo<precision DEFAULT>`
            self.pos += 1;
            let _kind = self.ident("an enum kind")?;
            let (v, _) = self.ident("an enum value")?;
            self.expect(b'>', "to close the enum attribute")?;
            return Ok(Attr::Enum(v));
        }
        let struct_like = matches!(
            name.as_str(),
            "stablehlo.gather"
                | "stablehlo.scatter"
                | "stablehlo.dot"
                | "stablehlo.conv"
                | "stablehlo.channel_handle"
                | "stablehlo.output_operand_alias"
                | "stablehlo.dot_algorithm"
                | "mhlo.gather"
                | "mhlo.scatter"
                | "mhlo.dot"
                | "mhlo.channel_handle"
                | "mhlo.output_operand_alias"
        );
        if !struct_like {
            self.skip_balanced(b'<', b'>')?;
            return Ok(Attr::Opaque);
        }
        self.pos += 1;
        let mut fields = Vec::new();
        if !self.eat(b'>') {
            loop {
                fields.push(self.attr_entry()?);
                if self.eat(b'>') {
                    break;
                }
                if self.pos >= self.b.len() {
                    return self.err(start, format!("unclosed '#{name}<'"));
                }
                self.expect(b',', &format!("between the fields of '#{name}'"))?;
            }
        }
        Ok(Attr::Struct(name, fields))
    }

    /// `array<i64: 1, 2>` (also `array<i1: true>`; bools read as 0/1).
    fn dense_array(&mut self) -> PResult<Attr> {
        self.pos += "array".len();
        self.expect(b'<', "after 'array'")?;
        self.elem()?;
        let mut v = Vec::new();
        if self.eat(b':') {
            loop {
                let w = self.peek_word();
                if w == "true" || w == "false" {
                    self.pos += w.len();
                    v.push((w == "true") as i64);
                } else {
                    v.push(self.i64_lit("an array element")?);
                }
                if !self.eat(b',') {
                    break;
                }
            }
        }
        self.expect(b'>', "to close 'array<'")?;
        Ok(Attr::DenseArray(v))
    }

    /// `dense<...>`: a splat, nested lists, a hex string, complex pairs.
    fn dense(&mut self) -> PResult<Attr> {
        let pos = self.pos;
        self.pos += "dense".len();
        self.expect(b'<', "after 'dense'")?;
        let body = if self.peek() == Some(b'"') {
            let (s, p) = self.string("a hex literal")?;
            let hex = s.strip_prefix(b"0x").unwrap_or(&[]);
            if hex.len() % 2 != 0 || s.len() < 2 || !s.starts_with(b"0x") {
                return self.err(
                    p,
                    "a dense string literal must be '0x' and an even number of hex digits",
                );
            }
            let mut bytes = Vec::with_capacity(hex.len() / 2);
            for pair in hex.chunks(2) {
                let h = std::str::from_utf8(pair)
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match h {
                    Some(b) => bytes.push(b),
                    None => return self.err(p, "invalid hex digit in a dense literal"),
                }
            }
            DenseBody::Hex(bytes)
        } else if self.peek() == Some(b'>') {
            DenseBody::Elems(Vec::new())
        } else {
            let mut out = Vec::new();
            self.dense_elems(&mut out)?;
            DenseBody::Elems(out)
        };
        self.expect(b'>', "to close 'dense<'")?;
        Ok(Attr::Dense {
            body,
            ty: None,
            pos,
        })
    }

    /// Elements of a dense literal, flattened in row-major order.
    fn dense_elems(&mut self, out: &mut Vec<DenseElem>) -> PResult<()> {
        self.enter()?;
        if self.eat(b'[') {
            self.list_until(b']', "between dense elements", |p| p.dense_elems(out))?;
        } else {
            out.push(self.dense_scalar()?);
        }
        self.leave();
        Ok(())
    }

    fn dense_scalar(&mut self) -> PResult<DenseElem> {
        if self.eat(b'(') {
            let re = self.dense_scalar()?;
            self.expect(b',', "between the real and imaginary parts")?;
            let im = self.dense_scalar()?;
            self.expect(b')', "to close a complex element")?;
            return Ok(DenseElem::Complex(Box::new(re), Box::new(im)));
        }
        let w = self.peek_word();
        if w == "true" || w == "false" {
            self.pos += w.len();
            return Ok(DenseElem::Bool(w == "true"));
        }
        self.number()
    }

    // ----------------------------------------------------------- operations

    /// `%a, %b` (none when no `%` is next); stops before a `,` that is not
    /// followed by another value.
    fn operand_list(&mut self) -> PResult<Vec<ValueRef>> {
        let mut v = Vec::new();
        if self.peek() != Some(b'%') {
            return Ok(v);
        }
        v.push(self.value_ref()?);
        loop {
            let save = self.pos;
            if self.eat(b',') && self.peek() == Some(b'%') {
                v.push(self.value_ref()?);
            } else {
                self.pos = save;
                return Ok(v);
            }
        }
    }

    /// `, key = ` for a pretty op keyword; true if it is there.
    fn comma_key(&mut self, key: &str) -> bool {
        let save = self.pos;
        if self.eat(b',') && self.peek_word() == key {
            self.pos += key.len();
            if self.eat(b'=') {
                return true;
            }
        }
        self.pos = save;
        false
    }

    /// `[1, 2]` as i64s.
    fn i64_list(&mut self, what: &str) -> PResult<Vec<i64>> {
        self.expect(b'[', &format!("to open {what}"))?;
        let between = format!("between the elements of {what}");
        self.list_until(b']', &between, |p| p.i64_lit(what))
    }

    /// Comma-separated items that `item` parses, up to and past `close`
    /// (the opening bracket already read); `between` says where a missing
    /// comma was expected.
    fn list_until<T>(
        &mut self,
        close: u8,
        between: &str,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(item(self)?);
            if self.eat(close) {
                return Ok(v);
            }
            self.expect(b',', between)?;
        }
    }

    /// A region: `{ [^bb0(%a: T, ...):] ops }`. Regions nest up to
    /// [`MAX_DEPTH`]; the stack grows on the heap as they do.
    pub fn region(&mut self) -> PResult<MRegion> {
        stacker::maybe_grow(64 << 10, 1 << 20, || self.region_inner())
    }

    fn region_inner(&mut self) -> PResult<MRegion> {
        self.ws();
        let pos = self.pos;
        self.expect(b'{', "to open a region")?;
        self.enter()?;
        let mut args = Vec::new();
        if self.peek() == Some(b'^') {
            while self.pos < self.b.len()
                && (is_id_char(self.b[self.pos]) || self.b[self.pos] == b'^')
            {
                self.pos += 1;
            }
            if self.eat(b'(') {
                args = self.list_until(b')', "between block arguments", |p| {
                    let (n, _) = p.value_name("a block argument")?;
                    p.expect(b':', "after a block argument")?;
                    let t = p.ty()?;
                    p.skip_loc()?;
                    Ok((n, t))
                })?;
            }
            self.expect(b':', "after the block label")?;
        }
        let mut ops = Vec::new();
        loop {
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b'^') => {
                    return self.err(
                        self.pos,
                        "regions with more than one block are not supported",
                    )
                }
                None => return self.err(pos, "unclosed region '{'"),
                _ => ops.push(self.op()?),
            }
        }
        self.leave();
        Ok(MRegion { args, ops, pos })
    }

    /// One operation with its results.
    pub fn op(&mut self) -> PResult<MOp> {
        self.ws();
        let mut results = Vec::new();
        if self.peek() == Some(b'%') {
            loop {
                let (n, _) = self.value_name("a result name")?;
                let count = if self.b.get(self.pos) == Some(&b':')
                    && self.b.get(self.pos + 1).is_some_and(|c| c.is_ascii_digit())
                {
                    self.pos += 1;
                    self.usize_lit("a result count")?
                } else {
                    1
                };
                results.push((n, count));
                if !self.eat(b',') {
                    break;
                }
            }
            self.expect(b'=', "after the result names")?;
        }
        self.ws();
        let op_pos = self.pos;
        let mut op = if self.peek() == Some(b'"') {
            let (name, _) = self.string("an operation name")?;
            self.generic(String::from_utf8_lossy(&name).into_owned(), op_pos)?
        } else {
            let (name, _) = self.ident("an operation")?;
            self.pretty(name, op_pos)?
        };
        self.skip_loc()?;
        op.results = results;
        op.pos = op_pos;
        Ok(op)
    }

    fn new_op(name: String, pos: usize) -> MOp {
        MOp {
            pos,
            name,
            results: Vec::new(),
            operands: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
            result_types: Vec::new(),
        }
    }

    /// `"name"(%a, %b) <{props}> ({regions}) {attrs} : (T) -> T`
    fn generic(&mut self, name: String, pos: usize) -> PResult<MOp> {
        let mut op = Self::new_op(name, pos);
        self.expect(b'(', "to open the operands of a generic operation")?;
        op.operands = self.operand_list()?;
        self.expect(b')', "to close the operands")?;
        if self.peek() == Some(b'[') {
            return self.err(
                self.pos,
                "operations with successor blocks are not supported",
            );
        }
        if self.peek_str("<{") {
            self.pos += 1;
            op.attrs = self.attr_dict()?;
            self.expect(b'>', "to close the properties")?;
        }
        if self.peek_str("({") || self.peek_str("(^") {
            self.pos += 1;
            loop {
                op.regions.push(self.region()?);
                if self.eat(b')') {
                    break;
                }
                self.expect(b',', "between regions")?;
            }
        }
        if self.peek() == Some(b'{') {
            op.attrs.extend(self.attr_dict()?);
        }
        self.expect(b':', "before the function type of a generic operation")?;
        let _ins = self.type_list_parens()?;
        self.expect_str("->", "after the operand types")?;
        op.result_types = self.result_types()?;
        Ok(op)
    }

    fn put(op: &mut MOp, key: &str, value: Attr, pos: usize) {
        op.attrs.push(AttrEntry {
            key: key.into(),
            value,
            pos,
            span: (pos, pos),
        });
    }

    /// The pretty forms of the operations JAX prints.
    fn pretty(&mut self, name: String, pos: usize) -> PResult<MOp> {
        let short = name.strip_prefix("stablehlo.").unwrap_or(&name).to_string();
        let mut op = Self::new_op(name.clone(), pos);
        let sig = |p: &mut Self, op: &mut MOp| -> PResult<()> {
            if p.peek() == Some(b'{') {
                op.attrs.extend(p.attr_dict()?);
            }
            let (res, _) = p.signature(&op.name.clone())?;
            op.result_types = res;
            Ok(())
        };
        match short.as_str() {
            "constant" => {
                if self.peek() == Some(b'{') {
                    op.attrs.extend(self.attr_dict()?);
                }
                let p = self.pos;
                let v = self.attr_value(false)?;
                Self::put(&mut op, "value", v, p);
                let (res, _) = self.signature(&name)?;
                op.result_types = res;
            }
            "iota" => {
                self.keyword("dim", "after 'iota'")?;
                self.expect(b'=', "after 'dim'")?;
                let p = self.pos;
                let d = self.i64_lit("the iota dimension")?;
                Self::put(&mut op, "iota_dimension", Attr::Int(d as i128), p);
                sig(self, &mut op)?;
            }
            "compare" => {
                let (dir, p) = self.ident("a comparison direction")?;
                Self::put(&mut op, "comparison_direction", Attr::Enum(dir), p);
                self.expect(b',', "after the comparison direction")?;
                op.operands = self.operand_list()?;
                if self.eat(b',') {
                    let (t, p) = self.ident("a comparison type")?;
                    Self::put(&mut op, "compare_type", Attr::Enum(t), p);
                }
                sig(self, &mut op)?;
            }
            "fft" => {
                // `stablehlo.fft %x, type = FFT, length = [8] : ...`
                op.operands = self.operand_list()?;
                let p = self.pos;
                if !self.comma_key("type") {
                    return self.err(
                        p,
                        "expected ', type = FFT|IFFT|RFFT|IRFFT' in 'stablehlo.fft'",
                    );
                }
                let (t, tp) = self.ident("an fft type")?;
                Self::put(&mut op, "fft_type", Attr::Enum(t), tp);
                let p = self.pos;
                if !self.comma_key("length") {
                    return self.err(p, "expected ', length = [...]' in 'stablehlo.fft'");
                }
                let v = self.i64_list("the fft lengths")?;
                Self::put(&mut op, "fft_length", Attr::DenseArray(v), p);
                sig(self, &mut op)?;
            }
            "broadcast_in_dim" | "transpose" | "reverse" | "concatenate" | "dynamic_slice"
            | "pad" | "rng_bit_generator" | "reduce_precision" | "dot_general" | "dot" => {
                op.operands = self.operand_list()?;
                let p = self.pos;
                match short.as_str() {
                    "broadcast_in_dim" | "transpose" | "reverse" => {
                        if !self.comma_key("dims") {
                            return self.err(p, format!("expected ', dims = [...]' in '{name}'"));
                        }
                        let v = self.i64_list("the dimensions")?;
                        let key = match short.as_str() {
                            "broadcast_in_dim" => "broadcast_dimensions",
                            "transpose" => "permutation",
                            _ => "dimensions",
                        };
                        Self::put(&mut op, key, Attr::DenseArray(v), p);
                    }
                    "concatenate" => {
                        if !self.comma_key("dim") {
                            return self.err(p, "expected ', dim = N' in 'stablehlo.concatenate'");
                        }
                        let d = self.i64_lit("the concatenate dimension")?;
                        Self::put(&mut op, "dimension", Attr::Int(d as i128), p);
                    }
                    "dynamic_slice" => {
                        if !self.comma_key("sizes") {
                            return self
                                .err(p, "expected ', sizes = [...]' in 'stablehlo.dynamic_slice'");
                        }
                        let v = self.i64_list("the slice sizes")?;
                        Self::put(&mut op, "slice_sizes", Attr::DenseArray(v), p);
                    }
                    "pad" => {
                        for (kw, key) in [
                            ("low", "edge_padding_low"),
                            ("high", "edge_padding_high"),
                            ("interior", "interior_padding"),
                        ] {
                            let p = self.pos;
                            if !self.comma_key(kw) {
                                return self.err(
                                    p,
                                    format!("expected ', {kw} = [...]' in 'stablehlo.pad'"),
                                );
                            }
                            let v = self.i64_list("the padding")?;
                            Self::put(&mut op, key, Attr::DenseArray(v), p);
                        }
                    }
                    "rng_bit_generator" => {
                        if !self.comma_key("algorithm") {
                            return self.err(
                                p,
                                "expected ', algorithm = ...' in 'stablehlo.rng_bit_generator'",
                            );
                        }
                        let (a, _) = self.ident("an rng algorithm")?;
                        Self::put(&mut op, "rng_algorithm", Attr::Enum(a), p);
                    }
                    "reduce_precision" => {
                        if !self.comma_key("format") {
                            return self.err(
                                p,
                                "expected ', format = eXmY' in 'stablehlo.reduce_precision'",
                            );
                        }
                        let (f, fp) = self.ident("a format eXmY")?;
                        let parsed = f
                            .strip_prefix('e')
                            .and_then(|r| r.split_once('m'))
                            .and_then(|(e, m)| {
                                Some((e.parse::<i64>().ok()?, m.parse::<i64>().ok()?))
                            });
                        let Some((e, m)) = parsed else {
                            return self.err(
                                fp,
                                format!("'{f}' is not a format eXmY (exponent and mantissa bits)"),
                            );
                        };
                        Self::put(&mut op, "exponent_bits", Attr::Int(e as i128), fp);
                        Self::put(&mut op, "mantissa_bits", Attr::Int(m as i128), fp);
                    }
                    _ => {
                        // dot_general / dot keywords.
                        loop {
                            let save = self.pos;
                            if !self.eat(b',') {
                                break;
                            }
                            let (kw, kp) = match self.ident("a dot keyword") {
                                Ok(k) => k,
                                Err(_) => {
                                    self.pos = save;
                                    break;
                                }
                            };
                            self.expect(b'=', &format!("after '{kw}'"))?;
                            match kw.as_str() {
                                "batching_dims" | "contracting_dims" => {
                                    let l = self.i64_list("the lhs dimensions")?;
                                    self.keyword("x", "between the lhs and rhs dimensions")?;
                                    let r = self.i64_list("the rhs dimensions")?;
                                    let (lk, rk) = if kw == "batching_dims" {
                                        ("lhs_batching_dimensions", "rhs_batching_dimensions")
                                    } else {
                                        ("lhs_contracting_dimensions", "rhs_contracting_dimensions")
                                    };
                                    Self::put(&mut op, lk, Attr::DenseArray(l), kp);
                                    Self::put(&mut op, rk, Attr::DenseArray(r), kp);
                                }
                                "precision" => {
                                    let v = self.attr_value(false)?;
                                    Self::put(&mut op, "precision_config", v, kp);
                                }
                                "algorithm" => {
                                    let v = self.attr_value(false)?;
                                    Self::put(&mut op, "algorithm", v, kp);
                                }
                                _ => {
                                    return self
                                        .err(kp, format!("unknown keyword '{kw}' in '{name}'"))
                                }
                            }
                        }
                    }
                }
                sig(self, &mut op)?;
            }
            "slice" => {
                op.operands = self.operand_list()?;
                let p = self.pos;
                self.expect(b'[', "to open the slice ranges")?;
                let ranges = self.list_until(b']', "between slice ranges", |q| {
                    let start = q.i64_lit("a slice start")?;
                    q.expect(b':', "after a slice start")?;
                    let limit = q.i64_lit("a slice limit")?;
                    let stride = if q.eat(b':') {
                        q.i64_lit("a slice stride")?
                    } else {
                        1
                    };
                    Ok((start, limit, stride))
                })?;
                let st: Vec<i64> = ranges.iter().map(|r| r.0).collect();
                let li: Vec<i64> = ranges.iter().map(|r| r.1).collect();
                let sd: Vec<i64> = ranges.iter().map(|r| r.2).collect();
                Self::put(&mut op, "start_indices", Attr::DenseArray(st), p);
                Self::put(&mut op, "limit_indices", Attr::DenseArray(li), p);
                Self::put(&mut op, "strides", Attr::DenseArray(sd), p);
                sig(self, &mut op)?;
            }
            "get_tuple_element" => {
                op.operands = self.operand_list()?;
                self.expect(b'[', "before the tuple index")?;
                let p = self.pos;
                let i = self.i64_lit("the tuple index")?;
                self.expect(b']', "after the tuple index")?;
                Self::put(&mut op, "index", Attr::Int(i as i128), p);
                sig(self, &mut op)?;
            }
            "custom_call" | "func.call" | "call" => {
                let (target, p) = self.symbol("the callee")?;
                let key = if short == "custom_call" {
                    "call_target_name"
                } else {
                    "callee"
                };
                Self::put(&mut op, key, Attr::Symbol(target), p);
                self.expect(b'(', "to open the operands")?;
                op.operands = self.operand_list()?;
                self.expect(b')', "to close the operands")?;
                sig(self, &mut op)?;
            }
            "composite" => {
                let (n, p) = self.string("the composite name")?;
                Self::put(&mut op, "name", Attr::Str(n), p);
                op.operands = self.operand_list()?;
                sig(self, &mut op)?;
            }
            "convolution" => {
                self.expect(b'(', "to open the convolution operands")?;
                op.operands = self.operand_list()?;
                self.expect(b')', "to close the convolution operands")?;
                self.conv_keywords(&mut op)?;
                sig(self, &mut op)?;
            }
            "reduce" => self.pretty_reduce(&mut op)?,
            "while" => {
                self.expect(b'(', "to open the while operands")?;
                let names = self.list_until(b')', "between loop variables", |p| {
                    let (n, _) = p.value_name("a loop variable")?;
                    p.expect(b'=', "after a loop variable")?;
                    op.operands.push(p.value_ref()?);
                    Ok(n)
                })?;
                if self.peek() == Some(b'{') {
                    op.attrs.extend(self.attr_dict()?);
                }
                let (types, _) = self.signature(&name)?;
                if types.len() != names.len() {
                    return self.err(
                        pos,
                        format!(
                            "'stablehlo.while' has {} loop variables but {} types",
                            names.len(),
                            types.len()
                        ),
                    );
                }
                self.skip_loc()?;
                op.result_types = types.clone();
                let args: Vec<(String, MType)> = names.into_iter().zip(types).collect();
                self.keyword("cond", "to open the condition of 'stablehlo.while'")?;
                let mut c = self.region()?;
                self.keyword("do", "to open the body of 'stablehlo.while'")?;
                let mut b = self.region()?;
                c.args = args.clone();
                b.args = args;
                op.regions = vec![c, b];
            }
            "top_k" | "chlo.top_k" => {
                self.expect(b'(', "to open the top_k operand")?;
                op.operands = self.operand_list()?;
                let p = self.pos;
                if !self.comma_key("k") {
                    return self.err(p, "expected ', k = N' in 'chlo.top_k'");
                }
                let k = self.i64_lit("k")?;
                Self::put(&mut op, "k", Attr::Int(k as i128), p);
                if self.comma_key("largest") {
                    let v = self.attr_value(false)?;
                    Self::put(&mut op, "largest", v, p);
                }
                self.expect(b')', "to close the top_k operands")?;
                sig(self, &mut op)?;
            }
            "sdy.manual_computation" => self.sdy_manual_computation(&mut op)?,
            "sdy.sharding_constraint" => {
                op.operands = self.operand_list()?;
                self.ws();
                let p = self.pos;
                let text = self.sdy_raw(b'<', b'>', "#sdy.sharding", "the sharding")?;
                Self::put(&mut op, "sharding", Attr::Str(text.into_bytes()), p);
                sig(self, &mut op)?;
            }
            "sdy.return" => {
                op.operands = self.operand_list()?;
                if !op.operands.is_empty() {
                    self.signature(&name)?;
                }
            }
            "return" | "func.return" => {
                op.name = "func.return".into();
                op.operands = self.operand_list()?;
                if !op.operands.is_empty() {
                    self.signature(&name)?;
                }
            }
            _ => {
                // Element-wise ops, convert, reshape, select, tuple,
                // optimization_barrier, after_all, partition_id, chlo unary ops...
                op.operands = self.operand_list()?;
                sig(self, &mut op)?;
                // `select %p, %a, %b : tensor<4xi1>, tensor<4xf32>`: the
                // predicate's type, then the operands' and result's.
                if short == "select" && op.result_types.len() == 2 {
                    op.result_types.remove(0);
                }
                if let Some(c) = self.peek() {
                    if c == b'(' || c == b'{' {
                        return self.err(self.pos, format!("'{name}' is not an operation hlox reads in pretty form with regions; is it a StableHLO op?"));
                    }
                }
            }
        }
        Ok(op)
    }

    // --------------------------------------------------------------- Shardy

    /// The text of a Shardy attribute opened by `open` at the cursor, as
    /// written (`<@mesh, [{"x"}, {}]>`), with an optional `#dialect`
    /// `prefix` before it skipped.
    fn sdy_raw(&mut self, open: u8, close: u8, prefix: &str, what: &str) -> PResult<String> {
        self.ws();
        if self.peek_str(prefix) && self.b.get(self.pos + prefix.len()) == Some(&open) {
            self.pos += prefix.len();
        }
        let start = self.pos;
        if self.peek() != Some(open) {
            return self.err(
                start,
                format!(
                    "expected '{}' to open {what}, found {}",
                    open as char,
                    self.found()
                ),
            );
        }
        self.skip_balanced(open, close)?;
        Ok(self.src[start..self.pos].to_string())
    }

    /// `sdy.mesh @name = <["x"=4]> {attrs}` (after `sdy.mesh`), at `pos`.
    fn sdy_mesh(&mut self, pos: usize) -> PResult<MMesh> {
        let (name, _) = self.symbol("the mesh name")?;
        self.expect(b'=', "after the mesh name")?;
        let body = self.sdy_raw(b'<', b'>', "#sdy.mesh", "the mesh")?;
        self.skip_attr_dict_if_any()?;
        self.skip_loc()?;
        Ok(MMesh {
            name,
            text: format!("#sdy.mesh{body}"),
            pos,
        })
    }

    /// The pretty form of `sdy.manual_computation` (after its name):
    /// `(%a, %b) in_shardings=[...] out_shardings=[...] manual_axes={...}
    /// (%arg: T, ...) { body } : (T, ...) -> (T, ...)`. The shardings and
    /// axes are kept as XLA's round-trip export spells them
    /// (`#sdy.sharding_per_value<[...]>`, `#sdy<manual_axes{...}>`).
    fn sdy_manual_computation(&mut self, op: &mut MOp) -> PResult<()> {
        self.expect(b'(', "to open the operands of 'sdy.manual_computation'")?;
        op.operands = self.operand_list()?;
        self.expect(b')', "to close the operands")?;
        for key in ["in_shardings", "out_shardings", "manual_axes"] {
            self.ws();
            let p = self.pos;
            if self.peek_word() != key {
                return self.err(
                    p,
                    format!(
                        "expected '{key}=' in 'sdy.manual_computation', found {}",
                        self.found()
                    ),
                );
            }
            self.pos += key.len();
            self.expect(b'=', &format!("after '{key}'"))?;
            let text = if key == "manual_axes" {
                let axes = self.sdy_raw(b'{', b'}', "", "the manual axes")?;
                format!("#sdy<manual_axes{axes}>")
            } else {
                let list = self.sdy_raw(b'[', b']', "", "the shardings")?;
                format!("#sdy.sharding_per_value<{list}>")
            };
            Self::put(op, key, Attr::Str(text.into_bytes()), p);
        }
        self.expect(
            b'(',
            "to open the block arguments of 'sdy.manual_computation'",
        )?;
        let args = self.list_until(b')', "between block arguments", |p| {
            let (n, _) = p.value_name("a block argument")?;
            p.expect(b':', "after a block argument")?;
            let t = p.ty()?;
            p.skip_loc()?;
            Ok((n, t))
        })?;
        let mut region = self.region()?;
        if !region.args.is_empty() {
            return self.err(
                region.pos,
                "the body of 'sdy.manual_computation' has its arguments before the region",
            );
        }
        region.args = args;
        op.regions.push(region);
        if self.peek() == Some(b'{') {
            op.attrs.extend(self.attr_dict()?);
        }
        let (res, _) = self.signature(&op.name.clone())?;
        op.result_types = res;
        Ok(())
    }

    /// `dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {...}`
    fn conv_keywords(&mut self, op: &mut MOp) -> PResult<()> {
        let p = self.pos;
        self.keyword("dim_numbers", "in 'stablehlo.convolution'")?;
        self.expect(b'=', "after 'dim_numbers'")?;
        let mut specs = Vec::new();
        for i in 0..3 {
            if i == 1 {
                self.keyword("x", "between the input and kernel dimension numbers")?;
            }
            if i == 2 {
                self.expect_str("->", "before the output dimension numbers")?;
            }
            self.expect(b'[', "to open conv dimension numbers")?;
            let mut v = Vec::new();
            loop {
                self.ws();
                let (w, _) = if self.b.get(self.pos).is_some_and(|c| c.is_ascii_digit()) {
                    let d = self.i64_lit("a spatial dimension")?;
                    (d.to_string(), 0)
                } else {
                    self.ident("a conv dimension letter")?
                };
                v.push(w);
                if self.eat(b']') {
                    break;
                }
                self.expect(b',', "between conv dimension letters")?;
            }
            specs.push(v);
        }
        Self::put(
            op,
            "conv_dims",
            Attr::Array(
                specs
                    .into_iter()
                    .map(|s| Attr::Array(s.into_iter().map(Attr::Enum).collect()))
                    .collect(),
            ),
            p,
        );
        if self.comma_key("window") {
            self.expect(b'{', "to open the window")?;
            if !self.eat(b'}') {
                loop {
                    let (k, kp) = self.ident("a window field")?;
                    self.expect(b'=', "after a window field")?;
                    let v = self.attr_value(false)?;
                    let key = match k.as_str() {
                        "stride" => "window_strides",
                        "pad" => "padding",
                        "lhs_dilate" => "lhs_dilation",
                        "rhs_dilate" => "rhs_dilation",
                        "reverse" => "window_reversal",
                        _ => return self.err(kp, format!("unknown window field '{k}'")),
                    };
                    Self::put(op, key, v, kp);
                    if self.eat(b'}') {
                        break;
                    }
                    self.expect(b',', "between window fields")?;
                }
            }
        }
        Ok(())
    }

    /// `(%x init: %i), ... applies stablehlo.add across dimensions = [..] : sig`
    /// or `across dimensions = [..] : sig reducer(%a: T, %c: T) (%b: T, %d: T) { ... }`.
    fn pretty_reduce(&mut self, op: &mut MOp) -> PResult<()> {
        let (mut inputs, mut inits) = (Vec::new(), Vec::new());
        loop {
            self.expect(b'(', "to open a reduce operand")?;
            inputs.push(self.value_ref()?);
            self.keyword("init", "in a reduce operand")?;
            self.expect(b':', "after 'init'")?;
            inits.push(self.value_ref()?);
            self.expect(b')', "to close a reduce operand")?;
            if !self.eat(b',') {
                break;
            }
        }
        op.operands = inputs.into_iter().chain(inits).collect();
        let mut applies = None;
        if self.peek_word() == "applies" {
            self.pos += "applies".len();
            let (f, fp) = self.ident("the reduction operation")?;
            applies = Some((f, fp));
        }
        let p = self.pos;
        self.keyword("across", "in 'stablehlo.reduce'")?;
        self.keyword("dimensions", "after 'across'")?;
        self.expect(b'=', "after 'dimensions'")?;
        let dims = self.i64_list("the reduce dimensions")?;
        Self::put(op, "dimensions", Attr::DenseArray(dims), p);
        if self.peek() == Some(b'{') {
            op.attrs.extend(self.attr_dict()?);
        }
        let (res, _) = self.signature("stablehlo.reduce")?;
        op.result_types = res;
        self.skip_loc()?;
        if let Some((f, fp)) = applies {
            // One reducer `f(acc, x)` per input: a region of scalar block arguments.
            let n = op.result_types.len();
            let mut region = MRegion {
                pos: fp,
                ..Default::default()
            };
            let scalar = |t: &MType| match t {
                MType::Tensor { elem, pos, .. } => MType::Tensor {
                    dims: Vec::new(),
                    elem: elem.clone(),
                    pos: *pos,
                },
                other => other.clone(),
            };
            for side in ["acc", "x"] {
                for (i, t) in op.result_types.iter().enumerate() {
                    region.args.push((format!("{side}{i}"), scalar(t)));
                }
            }
            let mut rets = Vec::new();
            for i in 0..n {
                let mut body = Self::new_op(f.clone(), fp);
                body.results = vec![(format!("r{i}"), 1)];
                body.operands = vec![
                    ValueRef {
                        name: format!("acc{i}"),
                        index: None,
                        pos: fp,
                    },
                    ValueRef {
                        name: format!("x{i}"),
                        index: None,
                        pos: fp,
                    },
                ];
                body.result_types = vec![region.args[i].1.clone()];
                region.ops.push(body);
                rets.push(ValueRef {
                    name: format!("r{i}"),
                    index: None,
                    pos: fp,
                });
            }
            let mut ret = Self::new_op("func.return".into(), fp);
            ret.operands = rets;
            region.ops.push(ret);
            op.regions.push(region);
        } else {
            self.keyword("reducer", "to open the reducer of 'stablehlo.reduce'")?;
            let mut accs = Vec::new();
            let mut xs = Vec::new();
            while self.eat(b'(') {
                for side in [&mut accs, &mut xs] {
                    let (n, _) = self.value_name("a reducer argument")?;
                    self.expect(b':', "after a reducer argument")?;
                    let t = self.ty()?;
                    self.skip_loc()?;
                    side.push((n, t));
                    if !self.eat(b',') {
                        break;
                    }
                }
                self.expect(b')', "to close a reducer argument pair")?;
            }
            let mut region = self.region()?;
            region.args = accs.into_iter().chain(xs).collect();
            op.regions.push(region);
        }
        Ok(())
    }

    /// `func.func [visibility] @name(%arg0: T {attrs}, ...) -> (T {attrs}, ...) [attributes {...}] { body }`
    fn func(&mut self) -> PResult<MFunc> {
        let pos = self.pos;
        for vis in ["public", "private", "nested"] {
            if self.peek_word() == vis {
                self.pos += vis.len();
            }
        }
        let (name, _) = self.symbol("the function name")?;
        self.expect(b'(', "to open the function arguments")?;
        let args = self.list_until(b')', "between function arguments", |p| {
            let (n, _) = p.value_name("a function argument")?;
            p.expect(b':', "after a function argument")?;
            let t = p.ty()?;
            let attrs = if p.peek() == Some(b'{') {
                p.attr_dict()?
            } else {
                Vec::new()
            };
            p.skip_loc()?;
            Ok(((n, t), attrs))
        })?;
        let (args, arg_attrs): (Vec<_>, Vec<_>) = args.into_iter().unzip();
        let results = if self.eat_str("->") {
            self.result_types()?
        } else {
            Vec::new()
        };
        if self.peek_word() == "attributes" {
            self.pos += "attributes".len();
            self.attr_dict()?;
        }
        let mut body = self.region()?;
        if !body.args.is_empty() {
            return self.err(
                body.pos,
                "a function body with its own block arguments is not supported",
            );
        }
        body.args = args;
        self.skip_loc()?;
        Ok(MFunc {
            name,
            pos,
            body,
            results,
            arg_attrs,
        })
    }

    /// `#loc3 = loc(...)` and other alias definitions at the top level.
    fn alias_def(&mut self) -> PResult<()> {
        let start = self.pos;
        self.pos += 1;
        while self.pos < self.b.len() && is_id_char(self.b[self.pos]) {
            self.pos += 1;
        }
        if !self.eat(b'=') {
            return self.err(start, "expected '=' in an alias definition");
        }
        if self.peek_word() == "loc" {
            self.skip_loc()
        } else {
            self.err(start, "attribute aliases other than '#loc' are not supported (print the module with aliases inlined)")
        }
    }

    /// The whole file: `module [@name] [attributes {...}] { funcs }` or bare funcs.
    pub fn module(&mut self) -> PResult<MModule> {
        let mut m = MModule {
            name: None,
            funcs: Vec::new(),
            meshes: Vec::new(),
        };
        let mut seen_module = false;
        loop {
            match self.peek() {
                None => break,
                Some(b'#') => self.alias_def()?,
                Some(b'"') => {
                    return self.err(self.pos, "the generic form of 'builtin.module'/'func.func' is not supported; print with the default (pretty) form");
                }
                _ => {
                    let (w, p) = self.ident("'module' or 'func.func'")?;
                    match w.as_str() {
                        "module" if !seen_module && m.funcs.is_empty() => {
                            seen_module = true;
                            if self.peek() == Some(b'@') {
                                m.name = Some(self.symbol("the module name")?.0);
                            }
                            if self.peek_word() == "attributes" {
                                self.pos += "attributes".len();
                                self.attr_dict()?;
                            }
                            self.expect(b'{', "to open the module body")?;
                            loop {
                                match self.peek() {
                                    Some(b'}') => {
                                        self.pos += 1;
                                        break;
                                    }
                                    None => return self.err(p, "unclosed module body"),
                                    _ => {
                                        let (w, fp) = self.ident("'func.func'")?;
                                        if w == "sdy.mesh" {
                                            m.meshes.push(self.sdy_mesh(fp)?);
                                            continue;
                                        }
                                        if w != "func.func" {
                                            return self.err(fp, format!("expected 'func.func' or 'sdy.mesh' in the module body, found '{w}' (only functions and Shardy meshes are supported at the top level)"));
                                        }
                                        m.funcs.push(self.func()?);
                                    }
                                }
                            }
                            self.skip_loc()?;
                        }
                        "func.func" if !seen_module => m.funcs.push(self.func()?),
                        _ => {
                            return self.err(
                                p,
                                format!(
                                "expected 'module' or 'func.func' at the top level, found '{w}'"
                            ),
                            )
                        }
                    }
                }
            }
        }
        Ok(m)
    }
}
