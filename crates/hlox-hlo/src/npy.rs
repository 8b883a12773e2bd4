//! `.npy` reading and writing of array literals (NumPy's format: the
//! header read by hand in linear time, type strings and writing by the
//! `npyz` crate).
//!
//! - Every hlox element type: `|b1` (pred), `|i1 <i2 <i4 <i8`, `|u1 <u2 <u4
//!   <u8`, `<f2 <f4 <f8`, complex64/complex128 (`<c8 <c16`), either byte
//!   order on read.
//! - **bf16**: NumPy has no bfloat16. JAX (through `ml_dtypes`) saves it as a
//!   2-byte void type, `<V2`; we read `<V2`, `|V2` and `>V2` (taken as
//!   little-endian bf16 bits, as `ml_dtypes` stores them) as bf16, and write
//!   bf16 as `<V2`. `np.load` gives such a file back as `dtype('V2')`; view
//!   it as bf16 with `a.view(ml_dtypes.bfloat16)`.
//! - C-order and Fortran-order input; the literal read always has the
//!   default (row-major) layout. Output is always C-order, little-endian.
//! - Scalars are shape `()`.

use crate::literal::{ArrayLiteral, Literal};
use crate::types::{ArrayShape, ElementType, Layout};
use npyz::{DType, Endianness, TypeChar, TypeStr, WriterBuilder};
use std::path::Path;

/// Why a `.npy` file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum NpyError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("not a valid .npy file: {0}")]
    Header(String),
    #[error(
        "unsupported .npy dtype `{found}`: hlox reads bool (|b1), signed/unsigned integers of 1, 2, 4 \
         and 8 bytes, float16/32/64 (<f2, <f4, <f8), complex64/128 (<c8, <c16) and bfloat16 saved as <V2; convert the array \
         (e.g. `a.astype(np.float32)`) before saving"
    )]
    UnsupportedDtype { found: String },
    #[error(".npy data of dtype `{dtype}` and shape {shape:?} needs {expected} bytes but the file has {found}")]
    DataSize {
        dtype: String,
        shape: Vec<u64>,
        expected: u128,
        found: usize,
    },
    #[error(".npy shape {shape:?} is too large")]
    TooLarge { shape: Vec<u64> },
    #[error("only arrays can be written as .npy, not a {0} (write each leaf of a tuple to its own file)")]
    NotAnArray(&'static str),
    #[error("{0}")]
    Literal(#[from] crate::literal::LiteralError),
}

fn element_type_of(ts: &TypeStr) -> Option<ElementType> {
    use ElementType::*;
    Some(match (ts.type_char(), ts.num_bytes()?) {
        (TypeChar::Bool, 1) => Pred,
        (TypeChar::Int, 1) => S8,
        (TypeChar::Int, 2) => S16,
        (TypeChar::Int, 4) => S32,
        (TypeChar::Int, 8) => S64,
        (TypeChar::Uint, 1) => U8,
        (TypeChar::Uint, 2) => U16,
        (TypeChar::Uint, 4) => U32,
        (TypeChar::Uint, 8) => U64,
        (TypeChar::Float, 2) => F16,
        (TypeChar::Float, 4) => F32,
        (TypeChar::Float, 8) => F64,
        (TypeChar::RawData, 2) => Bf16,
        (TypeChar::Complex, 8) => C64,
        (TypeChar::Complex, 16) => C128,
        _ => return None,
    })
}

/// The NumPy type string we write for an element type.
pub fn npy_descr(ty: ElementType) -> &'static str {
    use ElementType::*;
    match ty {
        Pred => "|b1",
        S8 => "|i1",
        S16 => "<i2",
        S32 => "<i4",
        S64 => "<i8",
        U8 => "|u1",
        U16 => "<u2",
        U32 => "<u4",
        U64 => "<u8",
        F16 => "<f2",
        Bf16 => "<V2",
        F32 => "<f4",
        F64 => "<f8",
        C64 => "<c8",
        C128 => "<c16",
    }
}

/// The largest `.npy` header hlox reads (NumPy's own reader refuses
/// headers over 10,000 bytes unless told otherwise; a header is a one-line
/// dict, so 1 MiB is far beyond any real file).
pub const MAX_NPY_HEADER_BYTES: usize = 1 << 20;

/// The most dimensions a `.npy` shape may have (NumPy's own limit is 64).
pub const MAX_NPY_RANK: usize = 4096;

/// A parsed `.npy` header: the three keys NumPy writes.
struct Header<'a> {
    descr: Descr<'a>,
    fortran_order: bool,
    shape: Vec<u64>,
}

enum Descr<'a> {
    /// A type string such as `<f4`.
    Plain(&'a str),
    /// A structured dtype (a list), which hlox does not read; its text.
    Structured(&'a str),
}

/// Splits a `.npy` file into its header dict's text and its data, checking
/// the magic string, the version and the header length.
fn split_npy(bytes: &[u8]) -> Result<(&str, &[u8]), NpyError> {
    const MAGIC: &[u8] = b"\x93NUMPY";
    let bad = |m: String| NpyError::Header(m);
    if bytes.len() < MAGIC.len() + 2 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(bad(
            "the file does not start with the .npy magic string \\x93NUMPY (save it with numpy.save)"
                .into(),
        ));
    }
    let major = bytes[6];
    let (len_bytes, utf8) = match major {
        1 => (2, false),
        2 => (4, false),
        3 => (4, true),
        v => {
            return Err(bad(format!(
                "unsupported .npy format version {v}.{} (hlox reads versions 1.0, 2.0 and 3.0)",
                bytes[7]
            )))
        }
    };
    let start = 8 + len_bytes;
    if bytes.len() < start {
        return Err(bad("the file ends inside the header length".into()));
    }
    let mut len = 0usize;
    for (i, b) in bytes[8..start].iter().enumerate() {
        len |= (*b as usize) << (8 * i);
    }
    if len > MAX_NPY_HEADER_BYTES {
        return Err(bad(format!(
            "the header is {len} bytes long, more than the {MAX_NPY_HEADER_BYTES} bytes hlox reads"
        )));
    }
    let end = start
        .checked_add(len)
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| {
            bad(format!(
                "the header says it is {len} bytes long but the file ends after {} bytes of it",
                bytes.len() - start
            ))
        })?;
    let raw = &bytes[start..end];
    let text = if utf8 {
        std::str::from_utf8(raw).map_err(|e| bad(format!("the header is not UTF-8: {e}")))?
    } else if raw.is_ascii() {
        // ASCII is the same bytes as latin-1 for everything NumPy writes.
        std::str::from_utf8(raw).map_err(|e| bad(format!("the header is not ASCII: {e}")))?
    } else {
        return Err(bad(
            "the header is not ASCII (a version 1.0/2.0 header must be)".into(),
        ));
    };
    Ok((text, &bytes[end..]))
}

/// A linear-time reader of the header dict, a small Python literal such as
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`. Every
/// step consumes input, so no input makes it backtrack or recurse.
struct HeaderParser<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> HeaderParser<'a> {
    fn err(&self, what: impl std::fmt::Display) -> NpyError {
        NpyError::Header(format!("header column {}: {what}", self.pos + 1))
    }

    fn skip_ws(&mut self) {
        let rest = &self.s[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.as_bytes().get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), NpyError> {
        match self.peek() {
            Some(b) if b == c => {
                self.pos += 1;
                Ok(())
            }
            Some(b) => Err(self.err(format_args!(
                "expected `{}`, found `{}`",
                c as char, b as char
            ))),
            None => Err(self.err(format_args!(
                "expected `{}`, found the end of the header",
                c as char
            ))),
        }
    }

    fn string(&mut self) -> Result<&'a str, NpyError> {
        let q = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return Err(self.err("expected a quoted string")),
        };
        let start = self.pos + 1;
        match self.s.as_bytes()[start..].iter().position(|&b| b == q) {
            Some(n) => {
                self.pos = start + n + 1;
                let v = &self.s[start..start + n];
                if v.contains('\\') {
                    return Err(self.err("escapes are not supported in header strings"));
                }
                Ok(v)
            }
            None => Err(self.err("unclosed string")),
        }
    }

    fn word(&mut self) -> &'a str {
        self.skip_ws();
        let rest = &self.s[self.pos..];
        let n = rest
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(rest.len());
        self.pos += n;
        &rest[..n]
    }

    /// A structured dtype's list, skipped by counting brackets (quote-aware).
    fn bracketed(&mut self) -> Result<&'a str, NpyError> {
        let start = self.pos;
        let mut depth = 0usize;
        let mut quote: Option<u8> = None;
        for (i, &b) in self.s.as_bytes()[start..].iter().enumerate() {
            match (quote, b) {
                (Some(q), b) if b == q => quote = None,
                (Some(_), _) => {}
                (None, b'\'' | b'"') => quote = Some(b),
                (None, b'[' | b'(') => depth += 1,
                (None, b']' | b')') => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos = start + i + 1;
                        return Ok(&self.s[start..self.pos]);
                    }
                }
                _ => {}
            }
        }
        Err(self.err(format_args!(
            "{depth} unclosed bracket(s) in the 'descr' value"
        )))
    }

    fn shape(&mut self) -> Result<Vec<u64>, NpyError> {
        self.expect(b'(')?;
        let mut dims = Vec::new();
        loop {
            match self.peek() {
                Some(b')') => {
                    self.pos += 1;
                    return Ok(dims);
                }
                Some(b'0'..=b'9') => {
                    let w = self.word();
                    let w = w.strip_suffix('L').unwrap_or(w);
                    let d = w
                        .parse::<u64>()
                        .map_err(|_| self.err(format_args!("`{w}` is not a dimension size")))?;
                    if dims.len() == MAX_NPY_RANK {
                        return Err(self.err(format_args!(
                            "the shape has more than {MAX_NPY_RANK} dimensions"
                        )));
                    }
                    dims.push(d);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b')') => {}
                        _ => return Err(self.err("expected `,` or `)` in the shape")),
                    }
                }
                Some(b) => {
                    return Err(self.err(format_args!(
                        "expected a dimension size or `)` in the shape, found `{}`",
                        b as char
                    )))
                }
                None => return Err(self.err("the shape's `(` is not closed")),
            }
        }
    }

    fn header(mut self) -> Result<Header<'a>, NpyError> {
        self.expect(b'{')?;
        let (mut descr, mut fortran, mut shape) = (None, None, None);
        loop {
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key = self.string()?;
            self.expect(b':')?;
            match key {
                "descr" => {
                    descr = Some(match self.peek() {
                        Some(b'[') => Descr::Structured(self.bracketed()?),
                        _ => Descr::Plain(self.string()?),
                    })
                }
                "fortran_order" => {
                    fortran = Some(match self.word() {
                        "True" => true,
                        "False" => false,
                        w => {
                            return Err(self.err(format_args!(
                                "'fortran_order' must be True or False, not `{w}`"
                            )))
                        }
                    })
                }
                "shape" => shape = Some(self.shape()?),
                other => {
                    return Err(self.err(format_args!(
                        "unknown key '{other}' (a .npy header has 'descr', 'fortran_order' and 'shape')"
                    )))
                }
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => return Err(self.err("expected `,` or `}` after a header value")),
            }
        }
        if self.peek().is_some() {
            return Err(self.err("unexpected text after the header dict"));
        }
        let missing = |k: &str| NpyError::Header(format!("the header has no '{k}' key"));
        Ok(Header {
            descr: descr.ok_or_else(|| missing("descr"))?,
            fortran_order: fortran.ok_or_else(|| missing("fortran_order"))?,
            shape: shape.ok_or_else(|| missing("shape"))?,
        })
    }
}

/// Reads a `.npy` file's bytes as an array literal (default layout).
///
/// The header is read by hand in linear time with limits
/// ([`MAX_NPY_HEADER_BYTES`], [`MAX_NPY_RANK`]): npyz's header parser
/// backtracks exponentially on unclosed brackets (a 90-byte file hung it).
pub fn read_npy(bytes: &[u8]) -> Result<Literal, NpyError> {
    let (text, data) = split_npy(bytes)?;
    let header = HeaderParser { s: text, pos: 0 }.header()?;
    let descr = match header.descr {
        Descr::Plain(d) => d,
        Descr::Structured(d) => {
            return Err(NpyError::UnsupportedDtype {
                found: d.to_string(),
            })
        }
    };
    let ts: TypeStr = descr.parse().map_err(|_| NpyError::UnsupportedDtype {
        found: descr.to_string(),
    })?;
    let fortran = header.fortran_order;
    let shape_u = header.shape;
    let ty = element_type_of(&ts).ok_or_else(|| NpyError::UnsupportedDtype {
        found: ts.to_string(),
    })?;
    let dims = shape_u
        .iter()
        .map(|&d| i64::try_from(d).ok())
        .collect::<Option<Vec<i64>>>()
        .ok_or_else(|| NpyError::TooLarge {
            shape: shape_u.clone(),
        })?;
    let expected: u128 = shape_u.iter().fold(ty.byte_size() as u128, |acc, &d| {
        acc.saturating_mul(d as u128)
    });
    if expected != data.len() as u128 {
        return Err(NpyError::DataSize {
            dtype: ts.to_string(),
            shape: shape_u,
            expected,
            found: data.len(),
        });
    }
    let size = swap_unit(ty);
    // bf16 (`V2`) bits are stored little-endian whatever the marker says.
    let big = matches!(ts.endianness(), Endianness::Big) && ty != ElementType::Bf16;
    let mut out = Vec::with_capacity(data.len());
    for chunk in data.chunks_exact(size) {
        let mut e = chunk.to_vec();
        if big == cfg!(target_endian = "little") {
            e.reverse();
        }
        if ty == ElementType::Pred {
            e[0] = (e[0] != 0) as u8;
        }
        out.extend_from_slice(&e);
    }
    let rank = dims.len();
    let layout = if fortran {
        Layout {
            minor_to_major: (0..rank as i64).collect(),
        }
    } else {
        Layout::default_for_rank(rank)
    };
    let lit = ArrayLiteral::from_bytes(ArrayShape { ty, dims, layout }, out)?;
    Ok(Literal::Array(if fortran {
        lit.relayout(Layout::default_for_rank(rank))
    } else {
        lit
    }))
}

/// The unit whose bytes a change of byte order reverses: the element, or
/// for a complex number each of its two parts.
fn swap_unit(ty: ElementType) -> usize {
    match ty.complex_component() {
        Some(part) => part.byte_size(),
        None => ty.byte_size(),
    }
}

/// Reads a `.npy` file.
pub fn read_npy_file(path: impl AsRef<Path>) -> Result<Literal, NpyError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| NpyError::Read {
        path: path.display().to_string(),
        source,
    })?;
    read_npy(&bytes).map_err(|e| match e {
        NpyError::Header(m) => NpyError::Header(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// Writes an array literal as `.npy` bytes (C order, little-endian; bf16 as `<V2`).
pub fn write_npy(lit: &Literal) -> Result<Vec<u8>, NpyError> {
    let a = match lit {
        Literal::Array(a) => a,
        Literal::Tuple(_) => return Err(NpyError::NotAnArray("tuple")),
        Literal::Token => return Err(NpyError::NotAnArray("token")),
    };
    let ty = a.ty();
    let ts: TypeStr = npy_descr(ty)
        .parse()
        .map_err(|e| NpyError::Header(format!("{e}")))?;
    let shape: Vec<u64> = a.dims().iter().map(|&d| d.max(0) as u64).collect();
    let mut out = npyz::WriteOptions::new_header_only()
        .dtype(DType::Plain(ts))
        .shape(&shape)
        .writer(Vec::new())
        .write_header_only()
        .map_err(|e| NpyError::Header(e.to_string()))?;
    let data = a.logical_bytes();
    let size = swap_unit(ty);
    out.reserve(data.len());
    for chunk in data.chunks_exact(size) {
        if cfg!(target_endian = "little") {
            out.extend_from_slice(chunk);
        } else {
            out.extend(chunk.iter().rev());
        }
    }
    Ok(out)
}

/// Writes an array literal to a `.npy` file.
pub fn write_npy_file(path: impl AsRef<Path>, lit: &Literal) -> Result<(), NpyError> {
    let path = path.as_ref();
    let bytes = write_npy(lit)?;
    std::fs::write(path, bytes).map_err(|source| NpyError::Write {
        path: path.display().to_string(),
        source,
    })
}
