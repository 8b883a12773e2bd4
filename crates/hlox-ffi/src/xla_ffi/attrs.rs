//! Typed-FFI attributes: the MLIR dictionary that XLA keeps in a typed-FFI
//! custom call's `backend_config` (`{alpha = 2.000000e+00 : f32, n = 3 : i64}`),
//! parsed once and encoded as the call frame's `XLA_FFI_Attrs`.
//!
//! Accepted values, as JAX's `ffi_call` and XLA print them: `true`/`false`;
//! integers and floats with an optional `: type` (`i1`..`i64`, `si*`, `ui*`,
//! `f16`, `bf16`, `f32`, `f64`; MLIR's defaults `i64` and `f64` without one;
//! floats also as `0x...` bit patterns); strings with MLIR's `\XX` escapes;
//! `dense<...> : tensor<NxT>` and `array<T: ...>` arrays (flattened, as XLA
//! passes them); nested dictionaries. Entries are sorted by name, as XLA's
//! call frames are (handlers built with `ffi.h` rely on it).

use super::abi::{self, attr_type, dtype, ByteSpan};
use std::ffi::c_void;

/// A parse error at byte `offset` of the backend_config text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("backend_config column {}: {message}", offset + 1)]
pub struct AttrError {
    pub offset: usize,
    pub message: String,
}

/// One attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    /// A scalar of FFI type `dtype`, its native-endian bytes.
    Scalar {
        dtype: i32,
        bytes: Vec<u8>,
    },
    Str(Vec<u8>),
    /// `count` elements of FFI type `dtype`, native-endian bytes.
    Array {
        dtype: i32,
        count: usize,
        bytes: Vec<u8>,
    },
    Dict(Vec<(String, AttrValue)>),
}

/// Parses a typed-FFI `backend_config`. Empty text is an empty dictionary.
pub fn parse_attrs(text: &[u8]) -> Result<Vec<(String, AttrValue)>, AttrError> {
    let mut p = P { s: text, i: 0 };
    p.ws();
    if p.i == text.len() {
        return Ok(Vec::new());
    }
    let d = p.dict()?;
    p.ws();
    if p.i != text.len() {
        return Err(p.err("unexpected text after the dictionary's closing `}`"));
    }
    Ok(d)
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
}

#[derive(Copy, Clone, PartialEq, Debug)]
enum Ty {
    Int {
        dtype: i32,
        bytes: usize,
        signed: bool,
    },
    Float {
        dtype: i32,
    },
}

fn int_ty(bits: usize, signed: bool) -> Option<Ty> {
    let (d, b) = match (bits, signed) {
        (1, _) => (dtype::PRED, 1),
        (8, true) => (dtype::S8, 1),
        (16, true) => (dtype::S16, 2),
        (32, true) => (dtype::S32, 4),
        (64, true) => (dtype::S64, 8),
        (8, false) => (dtype::U8, 1),
        (16, false) => (dtype::U16, 2),
        (32, false) => (dtype::U32, 4),
        (64, false) => (dtype::U64, 8),
        _ => return None,
    };
    Some(Ty::Int {
        dtype: d,
        bytes: b,
        signed,
    })
}

fn parse_ty(name: &str) -> Option<Ty> {
    Some(match name {
        "f16" => Ty::Float { dtype: dtype::F16 },
        "bf16" => Ty::Float { dtype: dtype::BF16 },
        "f32" => Ty::Float { dtype: dtype::F32 },
        "f64" => Ty::Float { dtype: dtype::F64 },
        "index" => int_ty(64, true)?,
        _ => {
            let (rest, signed) = if let Some(r) = name.strip_prefix("ui") {
                (r, false)
            } else if let Some(r) = name.strip_prefix("si") {
                (r, true)
            } else if let Some(r) = name.strip_prefix('i') {
                (r, true)
            } else {
                return None;
            };
            int_ty(rest.parse().ok()?, signed)?
        }
    })
}

/// A number as written: its text, and whether it looked like a float.
struct Num {
    text: String,
    at: usize,
}

impl Num {
    fn encode(&self, ty: Ty) -> Result<Vec<u8>, AttrError> {
        let t = self.text.as_str();
        let bad = |m: String| AttrError {
            offset: self.at,
            message: m,
        };
        match ty {
            Ty::Int {
                dtype: d,
                bytes,
                signed,
            } => {
                if d == dtype::PRED {
                    return match t {
                        "0" | "false" => Ok(vec![0]),
                        "1" | "true" | "-1" => Ok(vec![1]),
                        _ => Err(bad(format!("`{t}` is not an i1 value"))),
                    };
                }
                let v: i128 = if let Some(h) = t.strip_prefix("0x") {
                    i128::from_str_radix(h, 16)
                        .map_err(|_| bad(format!("bad hex integer `{t}`")))?
                } else {
                    t.parse()
                        .map_err(|_| bad(format!("`{t}` is not an integer")))?
                };
                let bits = bytes as u32 * 8;
                let (lo, hi) = if signed {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                if v < lo || v > hi {
                    return Err(bad(format!(
                        "{v} does not fit in {}{bits}",
                        if signed { "i" } else { "ui" }
                    )));
                }
                Ok(native(&(v as u128).to_le_bytes()[..bytes]))
            }
            Ty::Float { dtype: d } => {
                let width = float_width(d);
                if let Some(h) = t.strip_prefix("0x") {
                    // MLIR prints NaN and infinities as the value's bits.
                    let v = u64::from_str_radix(h, 16)
                        .map_err(|_| bad(format!("bad hex float `{t}`")))?;
                    if width < 8 && v >> (width * 8) != 0 {
                        return Err(bad(format!("hex float `{t}` is wider than {width} bytes")));
                    }
                    return Ok(native(&v.to_le_bytes()[..width]));
                }
                let v: f64 = t
                    .parse()
                    .map_err(|_| bad(format!("`{t}` is not a number")))?;
                Ok(match d {
                    dtype::F16 => half::f16::from_f64(v).to_ne_bytes().to_vec(),
                    dtype::BF16 => half::bf16::from_f64(v).to_ne_bytes().to_vec(),
                    dtype::F32 => (v as f32).to_ne_bytes().to_vec(),
                    _ => v.to_ne_bytes().to_vec(),
                })
            }
        }
    }
    fn looks_float(&self) -> bool {
        !self.text.starts_with("0x") && self.text.contains(['.', 'e', 'E'])
            || matches!(self.text.as_str(), "inf" | "-inf" | "nan")
    }
}

/// Bytes of one float of FFI type `d` (F16, BF16, F32 or F64).
fn float_width(d: i32) -> usize {
    match d {
        dtype::F16 | dtype::BF16 => 2,
        dtype::F32 => 4,
        _ => 8,
    }
}

/// A value's little-endian low bytes in native order.
fn native(le: &[u8]) -> Vec<u8> {
    let mut b = le.to_vec();
    if cfg!(target_endian = "big") {
        b.reverse();
    }
    b
}

impl P<'_> {
    fn err(&self, m: impl Into<String>) -> AttrError {
        AttrError {
            offset: self.i,
            message: m.into(),
        }
    }
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8, what: &str) -> Result<(), AttrError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{}` {what}", c as char)))
        }
    }
    fn word(&mut self) -> String {
        self.ws();
        let st = self.i;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-') {
                self.i += 1;
            } else {
                break;
            }
        }
        String::from_utf8_lossy(&self.s[st..self.i]).into_owned()
    }
    fn string(&mut self) -> Result<Vec<u8>, AttrError> {
        self.ws();
        let start = self.i;
        if !self.eat(b'"') {
            return Err(self.err("expected a string"));
        }
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(AttrError {
                    offset: start,
                    message: "unterminated string".into(),
                });
            };
            self.i += 1;
            match c {
                b'"' => return Ok(out),
                b'\\' => {
                    let e = self.peek().ok_or_else(|| self.err("unterminated escape"))?;
                    self.i += 1;
                    match e {
                        b'\\' | b'"' => out.push(e),
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        h if h.is_ascii_hexdigit() => {
                            let l = self.peek().filter(u8::is_ascii_hexdigit).ok_or_else(|| {
                                self.err("`\\` must be followed by two hex digits")
                            })?;
                            self.i += 1;
                            let v = u8::from_str_radix(
                                std::str::from_utf8(&[h, l]).unwrap_or("00"),
                                16,
                            )
                            .unwrap_or(0);
                            out.push(v);
                        }
                        _ => return Err(self.err(format!("unknown escape `\\{}`", e as char))),
                    }
                }
                c => out.push(c),
            }
        }
    }
    fn number(&mut self) -> Result<Num, AttrError> {
        self.ws();
        let at = self.i;
        let st = self.i;
        if self.peek() == Some(b'-') || self.peek() == Some(b'+') {
            self.i += 1;
        }
        while let Some(c) = self.peek() {
            let prev = self.s.get(self.i.wrapping_sub(1)).copied();
            if c.is_ascii_alphanumeric()
                || c == b'.'
                || ((c == b'-' || c == b'+') && matches!(prev, Some(b'e' | b'E')))
            {
                self.i += 1;
            } else {
                break;
            }
        }
        let text = String::from_utf8_lossy(&self.s[st..self.i]).into_owned();
        if text.is_empty() || text == "-" || text == "+" {
            return Err(AttrError {
                offset: at,
                message: "expected a value".into(),
            });
        }
        Ok(Num { text, at })
    }
    fn ty(&mut self) -> Result<Ty, AttrError> {
        self.ws();
        let at = self.i;
        let w = self.word();
        parse_ty(&w).ok_or(AttrError {
            offset: at,
            message: format!(
                "unknown element type `{w}` (expected i1, i8..i64, ui8..ui64, f16, bf16, f32 or f64)"
            ),
        })
    }
    fn dict(&mut self) -> Result<Vec<(String, AttrValue)>, AttrError> {
        self.expect(b'{', "to open a dictionary")?;
        let mut out: Vec<(String, AttrValue)> = Vec::new();
        if self.eat(b'}') {
            return Ok(out);
        }
        loop {
            self.ws();
            let at = self.i;
            let name = if self.peek() == Some(b'"') {
                String::from_utf8_lossy(&self.string()?).into_owned()
            } else {
                self.word()
            };
            if name.is_empty() {
                return Err(self.err("expected an attribute name"));
            }
            if out.iter().any(|(n, _)| *n == name) {
                return Err(AttrError {
                    offset: at,
                    message: format!("attribute `{name}` appears twice"),
                });
            }
            self.expect(b'=', &format!("after attribute name `{name}`"))?;
            let v = self.value()?;
            out.push((name, v));
            if self.eat(b',') {
                continue;
            }
            self.expect(b'}', "or `,` after an attribute")?;
            break;
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
    fn value(&mut self) -> Result<AttrValue, AttrError> {
        self.ws();
        match self.peek() {
            Some(b'{') => return Ok(AttrValue::Dict(self.dict()?)),
            Some(b'"') => return Ok(AttrValue::Str(self.string()?)),
            _ => {}
        }
        let save = self.i;
        let w = self.word();
        match w.as_str() {
            "true" | "false" => {
                return Ok(AttrValue::Scalar {
                    dtype: dtype::PRED,
                    bytes: vec![u8::from(w == "true")],
                })
            }
            "dense" => return self.dense(),
            "array" => return self.array(),
            "unit" => return Err(self.err("unit attributes have no FFI encoding")),
            _ => self.i = save,
        }
        let n = self.number()?;
        let ty = if self.eat(b':') {
            self.ty()?
        } else if n.looks_float() {
            Ty::Float { dtype: dtype::F64 }
        } else {
            int_ty(64, true).unwrap_or(Ty::Float { dtype: dtype::F64 })
        };
        let bytes = n.encode(ty)?;
        let d = match ty {
            Ty::Int { dtype, .. } | Ty::Float { dtype } => dtype,
        };
        Ok(AttrValue::Scalar { dtype: d, bytes })
    }
    /// `array<i64: 1, 2>` / `array<i64>`.
    fn array(&mut self) -> Result<AttrValue, AttrError> {
        self.expect(b'<', "after `array`")?;
        let ty = self.ty()?;
        let mut nums = Vec::new();
        if self.eat(b':') {
            loop {
                nums.push(self.element()?);
                if !self.eat(b',') {
                    break;
                }
            }
        }
        self.expect(b'>', "to close `array<`")?;
        self.pack(ty, &nums)
    }
    /// An array element: a number or `true`/`false`.
    fn element(&mut self) -> Result<Num, AttrError> {
        self.ws();
        let at = self.i;
        let save = self.i;
        let w = self.word();
        if w == "true" || w == "false" {
            return Ok(Num { text: w, at });
        }
        self.i = save;
        self.number()
    }
    fn pack(&self, ty: Ty, nums: &[Num]) -> Result<AttrValue, AttrError> {
        let mut bytes = Vec::new();
        for n in nums {
            bytes.extend(n.encode(ty)?);
        }
        let d = match ty {
            Ty::Int { dtype, .. } | Ty::Float { dtype } => dtype,
        };
        Ok(AttrValue::Array {
            dtype: d,
            count: nums.len(),
            bytes,
        })
    }
    /// `dense<[1, 2]> : tensor<2xi64>`, `dense<5> : tensor<3xi64>` (splat),
    /// `dense<> : tensor<0xi64>`, `dense<"0x0100..."> : tensor<...>` (raw bytes).
    fn dense(&mut self) -> Result<AttrValue, AttrError> {
        let at = self.i;
        self.expect(b'<', "after `dense`")?;
        self.ws();
        let mut nums = Vec::new();
        let mut raw = None;
        let mut splat = false;
        if self.peek() == Some(b'"') {
            raw = Some(self.string()?);
        } else if self.peek() != Some(b'>') {
            if self.peek() == Some(b'[') {
                self.flat_list(&mut nums)?;
            } else {
                nums.push(self.element()?);
                splat = true;
            }
        }
        self.expect(b'>', "to close `dense<`")?;
        self.expect(b':', "and a tensor type after `dense<...>`")?;
        let kw = self.word();
        if kw != "tensor" {
            return Err(self.err(format!("expected `tensor<...>`, found `{kw}`")));
        }
        self.expect(b'<', "after `tensor`")?;
        // `2x3xf32`: dimensions then the element type.
        let mut count: usize = 1;
        let ty;
        loop {
            self.ws();
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                let st = self.i;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.i += 1;
                }
                let d: usize = std::str::from_utf8(&self.s[st..self.i])
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| self.err("bad dimension"))?;
                count = count
                    .checked_mul(d)
                    .ok_or_else(|| self.err("tensor too large"))?;
                if !self.eat(b'x') {
                    return Err(self.err("expected `x` after a tensor dimension"));
                }
            } else {
                ty = self.ty()?;
                break;
            }
        }
        self.expect(b'>', "to close `tensor<`")?;
        if let Some(raw) = raw {
            let hex = raw.strip_prefix(b"0x").ok_or_else(|| AttrError {
                offset: at,
                message: "a string in `dense<...>` must be hex bytes starting with 0x".into(),
            })?;
            let bytes: Option<Vec<u8>> = hex
                .chunks(2)
                .map(|c| {
                    std::str::from_utf8(c)
                        .ok()
                        .and_then(|s| u8::from_str_radix(s, 16).ok())
                })
                .collect();
            let bytes = bytes.ok_or_else(|| AttrError {
                offset: at,
                message: "bad hex bytes in `dense<\"0x...\">`".into(),
            })?;
            let (d, w) = match ty {
                Ty::Int { dtype, bytes, .. } => (dtype, bytes),
                Ty::Float { dtype: d } => (d, float_width(d)),
            };
            if bytes.len() != count * w {
                return Err(AttrError {
                    offset: at,
                    message: format!(
                        "dense hex has {} bytes for {count} elements of {w} bytes",
                        bytes.len()
                    ),
                });
            }
            return Ok(AttrValue::Array {
                dtype: d,
                count,
                bytes,
            });
        }
        if splat {
            let one = &nums[0];
            let copies: Vec<Num> = (0..count)
                .map(|_| Num {
                    text: one.text.clone(),
                    at: one.at,
                })
                .collect();
            return self.pack(ty, &copies);
        }
        if nums.len() != count {
            return Err(AttrError {
                offset: at,
                message: format!(
                    "`dense` has {} elements but its tensor type {count}",
                    nums.len()
                ),
            });
        }
        self.pack(ty, &nums)
    }
    fn flat_list(&mut self, out: &mut Vec<Num>) -> Result<(), AttrError> {
        self.expect(b'[', "")?;
        if self.eat(b']') {
            return Ok(());
        }
        loop {
            self.ws();
            if self.peek() == Some(b'[') {
                self.flat_list(out)?;
            } else {
                out.push(self.element()?);
            }
            if self.eat(b',') {
                continue;
            }
            self.expect(b']', "or `,` in a list")?;
            return Ok(());
        }
    }
}

// ---------------------------------------------------------------------------
// Encoding.

/// Attributes encoded for call frames: every pointer points into boxes
/// this value owns, so it can be reused for every call of one instruction.
pub struct EncodedAttrs {
    root: Box<abi::Attrs>,
    _keep: Keep,
}

/// Owned storage; items are boxed so that pointers into them stay valid
/// while the vectors grow.
#[derive(Default)]
#[allow(clippy::vec_box)]
struct Keep {
    bytes: Vec<Box<[u64]>>,
    scalars: Vec<Box<abi::Scalar>>,
    arrays: Vec<Box<abi::Array>>,
    spans: Vec<Box<ByteSpan>>,
    dicts: Vec<Box<abi::Attrs>>,
    types: Vec<Box<[i32]>>,
    names: Vec<Box<[*mut ByteSpan]>>,
    ptrs: Vec<Box<[*mut c_void]>>,
}

// SAFETY: immutable after construction; handlers receive read-only views.
unsafe impl Send for EncodedAttrs {}
unsafe impl Sync for EncodedAttrs {}

impl std::fmt::Debug for EncodedAttrs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EncodedAttrs({} entries)", self.root.size)
    }
}

impl EncodedAttrs {
    pub fn new(attrs: &[(String, AttrValue)]) -> EncodedAttrs {
        let mut keep = Keep::default();
        let root = encode_dict(attrs, &mut keep);
        EncodedAttrs { root, _keep: keep }
    }
    /// A copy of the root `XLA_FFI_Attrs` for a call frame.
    pub fn frame_attrs(&self) -> abi::Attrs {
        abi::Attrs {
            struct_size: abi::ATTRS_STRUCT_SIZE,
            extension_start: std::ptr::null_mut(),
            size: self.root.size,
            types: self.root.types,
            names: self.root.names,
            attrs: self.root.attrs,
        }
    }
}

/// Copies `b` into 8-aligned storage `k` owns (any scalar can be read in place).
fn keep_bytes(k: &mut Keep, b: &[u8]) -> *mut c_void {
    let mut v: Box<[u64]> = vec![0u64; b.len().div_ceil(8).max(1)].into_boxed_slice();
    // SAFETY: the allocation holds at least b.len() bytes.
    unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), v.as_mut_ptr() as *mut u8, b.len()) };
    let ptr = v.as_mut_ptr() as *mut c_void;
    k.bytes.push(v);
    ptr
}

fn span_of(k: &mut Keep, b: &[u8]) -> *mut ByteSpan {
    let data = keep_bytes(k, b);
    let mut s = Box::new(ByteSpan {
        ptr: data as *const _,
        len: b.len(),
    });
    let p = &mut *s as *mut ByteSpan;
    k.spans.push(s);
    p
}

fn encode_dict(attrs: &[(String, AttrValue)], k: &mut Keep) -> Box<abi::Attrs> {
    let mut types: Vec<i32> = Vec::new();
    let mut names: Vec<*mut ByteSpan> = Vec::new();
    let mut ptrs: Vec<*mut c_void> = Vec::new();
    for (name, v) in attrs {
        names.push(span_of(k, name.as_bytes()));
        let (t, p) = match v {
            AttrValue::Scalar { dtype, bytes } => {
                let value = keep_bytes(k, bytes);
                let mut s = Box::new(abi::Scalar {
                    dtype: *dtype,
                    value,
                });
                let p = &mut *s as *mut abi::Scalar as *mut c_void;
                k.scalars.push(s);
                (attr_type::SCALAR, p)
            }
            AttrValue::Str(b) => (attr_type::STRING, span_of(k, b) as *mut c_void),
            AttrValue::Array {
                dtype,
                count,
                bytes,
            } => {
                let data = keep_bytes(k, bytes);
                let mut a = Box::new(abi::Array {
                    dtype: *dtype,
                    size: *count,
                    data,
                });
                let p = &mut *a as *mut abi::Array as *mut c_void;
                k.arrays.push(a);
                (attr_type::ARRAY, p)
            }
            AttrValue::Dict(d) => {
                let mut inner = encode_dict(d, k);
                let p = &mut *inner as *mut abi::Attrs as *mut c_void;
                k.dicts.push(inner);
                (attr_type::DICTIONARY, p)
            }
        };
        types.push(t);
        ptrs.push(p);
    }
    let mut types = types.into_boxed_slice();
    let mut names = names.into_boxed_slice();
    let mut ptrs = ptrs.into_boxed_slice();
    let d = Box::new(abi::Attrs {
        struct_size: abi::ATTRS_STRUCT_SIZE,
        extension_start: std::ptr::null_mut(),
        size: attrs.len() as i64,
        types: types.as_mut_ptr(),
        names: names.as_mut_ptr(),
        attrs: ptrs.as_mut_ptr(),
    });
    k.types.push(types);
    k.names.push(names);
    k.ptrs.push(ptrs);
    d
}
