//! MLIR bytecode (`ML\xefR`): the container format of `mlir/lib/Bytecode`
//! read into a small generic IR ([`Bytecode`]: op names, attribute and
//! type tables, regions of blocks of ops with numbered values), which
//! [`super::vhlo`] turns into StableHLO text for [`super::syntax`].
//!
//! What is read: the header (magic, version 0 to 6, producer), the
//! sections (strings, dialects with their op names, attribute/type offsets
//! and data, properties, the IR; resources are skipped), prefix varints, the
//! IR's regions, blocks, block arguments, ops and value numbering (one
//! value scope per isolated region, regions of isolated ops in nested
//! sections from version 2), use-list orders (read and dropped: they only
//! order uses). Attributes and types are decoded for the `builtin` dialect
//! (`BuiltinDialectBytecode.td`) and the `vhlo` dialect
//! (`VhloBytecode.cpp`); an entry written in the textual fallback is kept as
//! its text; other dialects' custom encodings are kept as opaque entries,
//! an error only where they are used.
//!
//! Every read is bounds-checked and every count is checked against the bytes
//! left before anything is allocated; nesting is bounded; an attribute or
//! type refers to others by index and is printed with a depth bound, so no
//! input panics, hangs or allocates without bound. Errors carry the byte
//! offset in the bytecode and the section.

/// How deeply regions may nest (as the text reader's bound).
const MAX_DEPTH: usize = super::syntax::MAX_DEPTH;

/// The newest bytecode version this reader knows (MLIR's `kVersion`).
pub(crate) const MAX_VERSION: u64 = 6;

/// A malformed or unsupported bytecode: where (byte offset from the start of
/// the bytecode, and the section) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("MLIR bytecode byte {offset} ({section}): {message}")]
pub struct BytecodeError {
    pub offset: usize,
    pub section: &'static str,
    pub message: String,
}

pub(crate) type BResult<T> = Result<T, BytecodeError>;

/// A bounded cursor over `b[pos..end]`.
#[derive(Clone)]
pub(crate) struct Cur<'a> {
    b: &'a [u8],
    /// Where `b` starts in the bytecode (for error offsets).
    base: usize,
    pub pos: usize,
    end: usize,
    pub section: &'static str,
}

impl<'a> Cur<'a> {
    fn new(b: &'a [u8], start: usize, end: usize, section: &'static str) -> Cur<'a> {
        Cur {
            b,
            base: 0,
            pos: start,
            end,
            section,
        }
    }
    /// A cursor over a copy of bytes that start at `base` in the bytecode.
    pub fn over(b: &'a [u8], base: usize, section: &'static str) -> Cur<'a> {
        Cur {
            b,
            base,
            pos: 0,
            end: b.len(),
            section,
        }
    }
    pub fn err<T>(&self, msg: impl Into<String>) -> BResult<T> {
        Err(BytecodeError {
            offset: self.base + self.pos,
            section: self.section,
            message: msg.into(),
        })
    }
    pub fn is_empty(&self) -> bool {
        self.pos >= self.end
    }
    pub fn left(&self) -> usize {
        self.end.saturating_sub(self.pos)
    }
    pub fn byte(&mut self) -> BResult<u8> {
        if self.pos >= self.end {
            return self.err("unexpected end of data");
        }
        let v = self.b[self.pos];
        self.pos += 1;
        Ok(v)
    }
    /// `n` bytes: their range.
    pub fn bytes(&mut self, n: u64) -> BResult<(usize, usize)> {
        if n > self.left() as u64 {
            return self.err(format!("{n} bytes needed, {} left", self.left()));
        }
        let s = self.pos;
        self.pos += n as usize;
        Ok((s, self.pos))
    }
    pub fn slice(&self, r: (usize, usize)) -> &'a [u8] {
        &self.b[r.0..r.1]
    }
    /// A prefix varint: the count of trailing zeros of the first byte is the
    /// count of further bytes (eight when the first byte is zero).
    pub fn varint(&mut self) -> BResult<u64> {
        let first = self.byte()?;
        if first & 1 == 1 {
            return Ok((first >> 1) as u64);
        }
        if first == 0 {
            let r = self.bytes(8)?;
            let mut v = [0u8; 8];
            v.copy_from_slice(self.slice(r));
            return Ok(u64::from_le_bytes(v));
        }
        let n = first.trailing_zeros() as usize;
        let r = self.bytes(n as u64)?;
        let mut v = [0u8; 8];
        v[0] = first;
        v[1..=n].copy_from_slice(self.slice(r));
        Ok(u64::from_le_bytes(v) >> (n + 1))
    }
    /// A zigzag-encoded signed varint.
    pub fn svarint(&mut self) -> BResult<i64> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }
    /// `(value << 1) | flag`.
    pub fn varint_flag(&mut self) -> BResult<(u64, bool)> {
        let v = self.varint()?;
        Ok((v >> 1, v & 1 == 1))
    }
    /// A count of things that each take at least one byte: at most the bytes left.
    pub fn count(&mut self, what: &str) -> BResult<usize> {
        let at = self.pos;
        let n = self.varint()?;
        if n > self.left() as u64 {
            self.pos = at;
            return self.err(format!(
                "{n} {what} cannot fit in the {} bytes left",
                self.left()
            ));
        }
        Ok(n as usize)
    }
    /// An index below `len`.
    pub fn index(&mut self, len: usize, what: &str) -> BResult<usize> {
        let at = self.pos;
        let v = self.varint()?;
        if v >= len as u64 {
            self.pos = at;
            return self.err(format!(
                "{what} index {v} is out of range (there are {len})"
            ));
        }
        Ok(v as usize)
    }
    /// A NUL-terminated string.
    pub fn cstr(&mut self) -> BResult<&'a [u8]> {
        let s = self.pos;
        match self.b[s..self.end].iter().position(|&c| c == 0) {
            Some(n) => {
                self.pos = s + n + 1;
                Ok(&self.b[s..s + n])
            }
            None => self.err("a string has no terminating NUL"),
        }
    }
    /// A section header: its id and a cursor over its data (aligned as asked,
    /// relative to the start of the bytecode).
    pub fn section(&mut self) -> BResult<(u8, Cur<'a>)> {
        let at = self.pos;
        let id_align = self.byte()?;
        let len = self.varint()?;
        let id = id_align & 0x7f;
        if id_align & 0x80 != 0 {
            let align = self.varint()?;
            if !align.is_power_of_two() || align > 1 << 32 {
                return self.err(format!("section alignment {align} is not a power of two"));
            }
            while !(self.pos as u64).is_multiple_of(align) {
                if self.byte()? != 0xCB {
                    self.pos -= 1;
                    return self.err("expected an alignment byte 0xCB");
                }
            }
        }
        let r = self.bytes(len).or_else(|_| {
            let mut c = self.clone();
            c.pos = at;
            c.err(format!("section {id} of {len} bytes runs past the end"))
        })?;
        Ok((
            id,
            Cur {
                b: self.b,
                base: self.base,
                pos: r.0,
                end: r.1,
                section: section_name(id),
            },
        ))
    }
}

fn section_name(id: u8) -> &'static str {
    match id {
        0 => "string section",
        1 => "dialect section",
        2 => "attribute/type section",
        3 => "attribute/type offset section",
        4 => "IR section",
        5 => "resource section",
        6 => "resource offset section",
        7 => "dialect version section",
        8 => "properties section",
        _ => "unknown section",
    }
}

/// A decoded type. Types and attributes refer to others by table index.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    /// `i1` (`vhlo.bool_v1` and builtin `i1`).
    Bool,
    /// Signless (`signed == None`), signed or unsigned integers.
    Int {
        bits: u32,
        signed: Option<bool>,
    },
    Index,
    /// `bf16`, `f16`, `f32`, `f64`, `f8E4M3FN`, ...: the MLIR name and the bit width.
    Float(&'static str, u32),
    Complex(usize),
    /// Dimensions (`i64::MIN` is dynamic), the element type, an encoding.
    Tensor {
        shape: Vec<i64>,
        elem: usize,
        encoding: Option<usize>,
    },
    Unranked(usize),
    Tuple(Vec<usize>),
    Function(Vec<usize>, Vec<usize>),
    Token,
    None,
    /// An entry written as text (`!dialect.type<...>`).
    Asm(String),
    /// What hlox does not read, named for the error.
    Other(String),
}

/// A decoded attribute.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum At {
    Array(Vec<usize>),
    /// (name attribute, value attribute).
    Dict(Vec<(usize, usize)>),
    Str(Vec<u8>),
    /// A symbol reference: a string attribute's index.
    Sym(usize),
    Type(usize),
    Unit,
    /// An integer of type `ty`: its bits (two's complement, `bits` wide).
    Int {
        ty: usize,
        bits: u32,
        value: u128,
    },
    /// A float of type `ty`: its bit pattern.
    Float {
        ty: usize,
        bits: u64,
    },
    Bool(bool),
    /// A VHLO enum (`comparison_direction`, `precision`, ...) and its value.
    Enum(&'static str, u64),
    /// Dense elements of a tensor type: raw little-endian bytes (one element
    /// for a splat; i1 one byte per element).
    Dense {
        ty: usize,
        data: Vec<u8>,
    },
    /// `array<T: ...>`: element type, count, raw data.
    DenseArray {
        elem: usize,
        n: u64,
        data: Vec<u8>,
    },
    OutputOperandAlias {
        output_tuple_indices: Vec<i64>,
        operand_index: i64,
        operand_tuple_indices: Vec<i64>,
    },
    /// Bounds of a dynamic tensor type.
    TypeExtensions(Vec<i64>),
    /// A location (not decoded: hlox reports bytecode offsets instead).
    Loc,
    /// An entry written as text (`#dialect.attr<...>`).
    Asm(String),
    /// What hlox does not read, named for the error.
    Other(String),
}

/// An operation of the IR section.
#[derive(Clone, Debug, Default)]
pub(crate) struct Op {
    /// Byte offset of the op's encoding.
    pub offset: usize,
    /// `dialect.name`.
    pub name: String,
    /// The discardable attribute dictionary (an attribute index).
    pub attrs: Option<usize>,
    /// Properties: the raw property bytes (registered ops) or an attribute
    /// (ops unregistered when written).
    pub props: Option<Props>,
    pub results: Vec<(u32, usize)>,
    pub operands: Vec<u32>,
    pub regions: Vec<Region>,
}

#[derive(Clone, Debug)]
pub(crate) enum Props {
    /// The property blob and its byte offset.
    Raw(Vec<u8>, usize),
    Attr(usize),
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Region {
    pub blocks: Vec<Block>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Block {
    /// (value id, type index)
    pub args: Vec<(u32, usize)>,
    pub ops: Vec<Op>,
}

/// A read bytecode file.
#[derive(Debug, Default)]
pub(crate) struct Bytecode {
    pub version: u64,
    pub producer: String,
    pub dialects: Vec<String>,
    pub types: Vec<Ty>,
    pub attrs: Vec<At>,
    /// The top-level ops (normally one `builtin.module`).
    pub ops: Vec<Op>,
    /// Values defined in all.
    pub num_values: u32,
    /// The size of the bytecode in bytes.
    pub len: usize,
}

struct OpName {
    name: String,
    registered: Option<bool>,
}

/// An attribute or type entry: its dialect, whether it uses a custom
/// encoding, and its byte range.
struct Entry {
    dialect: usize,
    custom: bool,
    range: (usize, usize),
}

/// The values of one isolated region: ids by position, the next position
/// of each open region.
#[derive(Default)]
struct Scope {
    values: Vec<Option<u32>>,
    next: Vec<usize>,
    sizes: Vec<usize>,
}

pub(crate) struct Reader<'a> {
    b: &'a [u8],
    version: u64,
    strings: Vec<&'a [u8]>,
    op_names: Vec<OpName>,
    props: Vec<(usize, usize)>,
    scopes: Vec<Scope>,
    next_value: u32,
    num_attrs: usize,
    num_types: usize,
}

/// Reads MLIR bytecode into its generic IR.
pub(crate) fn read(b: &[u8]) -> BResult<Bytecode> {
    let mut c = Cur::new(b, 0, b.len(), "header");
    if !b.starts_with(b"ML\xefR") {
        return c.err("not MLIR bytecode (no ML\\xefR magic number)");
    }
    c.pos = 4;
    let version = c.varint()?;
    if version > MAX_VERSION {
        c.pos = 4;
        return c.err(format!(
            "bytecode version {version} is newer than the newest hlox reads ({MAX_VERSION}); \
             write the module with an older producer or as MLIR text"
        ));
    }
    let producer = String::from_utf8_lossy(c.cstr()?).into_owned();
    let mut sections: [Option<Cur>; 9] = Default::default();
    while !c.is_empty() {
        let at = c.pos;
        let (id, data) = c.section()?;
        let slot = match sections.get_mut(id as usize) {
            Some(s) => s,
            None => {
                c.pos = at;
                return c.err(format!("unknown section id {id}"));
            }
        };
        if slot.is_some() {
            c.pos = at;
            return c.err(format!("a second {}", section_name(id)));
        }
        *slot = Some(data);
    }
    let need = |i: usize| -> BResult<Cur> {
        match &sections[i] {
            Some(s) => Ok(s.clone()),
            None => Cur::new(b, b.len(), b.len(), "header")
                .err(format!("the {} is missing", section_name(i as u8))),
        }
    };
    let mut r = Reader {
        b,
        version,
        strings: Vec::new(),
        op_names: Vec::new(),
        props: Vec::new(),
        scopes: Vec::new(),
        next_value: 0,
        num_attrs: 0,
        num_types: 0,
    };
    r.read_strings(need(0)?)?;
    if let Some(p) = &sections[8] {
        r.read_props(p.clone())?;
    } else if version >= 5 {
        need(8)?;
    }
    let dialects = r.read_dialects(need(1)?)?;
    let (attr_entries, type_entries) = r.read_offsets(need(3)?, need(2)?, dialects.len())?;
    r.num_attrs = attr_entries.len();
    r.num_types = type_entries.len();
    let mut types = Vec::with_capacity(type_entries.len());
    for e in &type_entries {
        types.push(r.decode_type(e, &dialects)?);
    }
    let mut attrs = Vec::with_capacity(attr_entries.len());
    for e in &attr_entries {
        attrs.push(r.decode_attr(e, &dialects, &types)?);
    }
    let ops = r.read_ir(need(4)?)?;
    Ok(Bytecode {
        version,
        producer,
        dialects,
        types,
        attrs,
        ops,
        num_values: r.next_value,
        len: b.len(),
    })
}

impl<'a> Reader<'a> {
    fn read_strings(&mut self, mut c: Cur<'a>) -> BResult<()> {
        let n = c.count("strings")?;
        let mut sizes = Vec::with_capacity(n);
        for _ in 0..n {
            sizes.push(c.varint()?);
        }
        // Sizes are in reverse order; the data is at the end of the section.
        let mut end = c.end;
        let mut strings = vec![&self.b[0..0]; n];
        for (i, &size) in sizes.iter().enumerate() {
            let slot = n - 1 - i;
            if size == 0 || size > (end - c.pos) as u64 {
                return c.err(format!("string {slot} of {size} bytes does not fit"));
            }
            let start = end - size as usize;
            strings[slot] = &self.b[start..end - 1];
            end = start;
        }
        if end != c.pos {
            return c.err("unexpected bytes between the string sizes and their data");
        }
        self.strings = strings;
        Ok(())
    }

    fn string(&self, c: &mut Cur<'a>) -> BResult<&'a [u8]> {
        let i = c.index(self.strings.len(), "string")?;
        Ok(self.strings[i])
    }

    fn read_props(&mut self, mut c: Cur<'a>) -> BResult<()> {
        if c.is_empty() {
            return Ok(());
        }
        let n = c.count("properties")?;
        for _ in 0..n {
            let size = c.varint()?;
            let r = c.bytes(size)?;
            self.props.push(r);
        }
        if !c.is_empty() {
            return c.err("unexpected bytes after the properties");
        }
        Ok(())
    }

    fn read_dialects(&mut self, mut c: Cur<'a>) -> BResult<Vec<String>> {
        let n = c.count("dialects")?;
        let mut dialects = Vec::with_capacity(n);
        for _ in 0..n {
            let name = if self.version < 1 {
                self.string(&mut c)?
            } else {
                let (idx, versioned) = c.varint_flag()?;
                if idx >= self.strings.len() as u64 {
                    return c.err(format!("dialect name string {idx} is out of range"));
                }
                if versioned {
                    let (id, _) = c.section()?;
                    if id != 7 {
                        return c.err("expected a dialect version section");
                    }
                }
                self.strings[idx as usize]
            };
            dialects.push(String::from_utf8_lossy(name).into_owned());
        }
        if self.version >= 4 {
            c.varint()?;
        }
        while !c.is_empty() {
            let d = c.index(dialects.len(), "dialect")?;
            let k = c.count("op names")?;
            for _ in 0..k {
                let (name, registered) = if self.version >= 5 {
                    let (idx, reg) = c.varint_flag()?;
                    if idx >= self.strings.len() as u64 {
                        return c.err(format!("op name string {idx} is out of range"));
                    }
                    (self.strings[idx as usize], Some(reg))
                } else {
                    (self.string(&mut c)?, None)
                };
                self.op_names.push(OpName {
                    name: format!("{}.{}", dialects[d], String::from_utf8_lossy(name)),
                    registered,
                });
            }
        }
        Ok(dialects)
    }

    fn read_offsets(
        &self,
        mut c: Cur<'a>,
        data: Cur<'a>,
        num_dialects: usize,
    ) -> BResult<(Vec<Entry>, Vec<Entry>)> {
        let na = c.count("attributes")?;
        let nt = c.count("types")?;
        let mut offset = data.pos;
        let mut read = |c: &mut Cur<'a>, n: usize| -> BResult<Vec<Entry>> {
            let mut out = Vec::with_capacity(n);
            while out.len() < n {
                let d = c.index(num_dialects, "dialect")?;
                let k = c.count("entries")?;
                if out.len() + k > n {
                    return c.err("more attribute/type entries than declared");
                }
                for _ in 0..k {
                    let (size, custom) = c.varint_flag()?;
                    if size > (data.end - offset) as u64 {
                        return c.err("an attribute or type entry runs past its section");
                    }
                    let end = offset + size as usize;
                    out.push(Entry {
                        dialect: d,
                        custom,
                        range: (offset, end),
                    });
                    offset = end;
                }
            }
            Ok(out)
        };
        let a = read(&mut c, na)?;
        let t = read(&mut c, nt)?;
        if !c.is_empty() {
            return c.err("unexpected bytes after the attribute/type offsets");
        }
        Ok((a, t))
    }

    fn entry_cur(&self, e: &Entry, what: &'static str) -> Cur<'a> {
        Cur::new(self.b, e.range.0, e.range.1, what)
    }

    fn type_index(&self, c: &mut Cur<'a>) -> BResult<usize> {
        c.index(self.num_types, "type")
    }
    fn attr_index(&self, c: &mut Cur<'a>) -> BResult<usize> {
        c.index(self.num_attrs, "attribute")
    }
    fn type_list(&self, c: &mut Cur<'a>) -> BResult<Vec<usize>> {
        let n = c.count("types")?;
        (0..n).map(|_| self.type_index(c)).collect()
    }
    fn attr_list(&self, c: &mut Cur<'a>) -> BResult<Vec<usize>> {
        let n = c.count("attributes")?;
        (0..n).map(|_| self.attr_index(c)).collect()
    }
    fn svarints(&self, c: &mut Cur<'a>) -> BResult<Vec<i64>> {
        let n = c.count("integers")?;
        (0..n).map(|_| c.svarint()).collect()
    }
    fn blob(&self, c: &mut Cur<'a>) -> BResult<Vec<u8>> {
        let n = c.varint()?;
        let r = c.bytes(n)?;
        Ok(c.slice(r).to_vec())
    }
    /// An APInt of known width: a byte up to 8 bits, a signed varint up to
    /// 64, else a count of signed varint words.
    fn apint(&self, c: &mut Cur<'a>, bits: u32) -> BResult<u128> {
        let mask = |v: u128| {
            if bits >= 128 {
                v
            } else {
                v & ((1u128 << bits) - 1)
            }
        };
        if bits <= 8 {
            return Ok(mask(c.byte()? as u128));
        }
        if bits <= 64 {
            let raw = c.varint()?;
            let v = (raw >> 1) ^ (!(raw & 1)).wrapping_add(1);
            return Ok(mask(v as u128));
        }
        let n = c.count("words")?;
        let mut v = 0u128;
        for i in 0..n {
            let raw = c.varint()?;
            let w = (raw >> 1) ^ (!(raw & 1)).wrapping_add(1);
            if i < 2 {
                v |= (w as u128) << (64 * i);
            }
        }
        Ok(mask(v))
    }

    fn decode_type(&self, e: &Entry, dialects: &[String]) -> BResult<Ty> {
        let mut c = self.entry_cur(e, "attribute/type section (a type)");
        if !e.custom {
            let text = c.cstr()?;
            return Ok(Ty::Asm(String::from_utf8_lossy(text).into_owned()));
        }
        let dialect = dialects[e.dialect].as_str();
        let ty = match dialect {
            "builtin" => self.builtin_type(&mut c)?,
            "vhlo" => super::vhlo::read_type(self, &mut c)?,
            d => return Ok(Ty::Other(format!("a '{d}' type"))),
        };
        if !c.is_empty() && !matches!(ty, Ty::Other(_)) {
            return c.err("unexpected bytes after a type");
        }
        Ok(ty)
    }

    fn builtin_type(&self, c: &mut Cur<'a>) -> BResult<Ty> {
        let code = c.varint()?;
        Ok(match code {
            0 => {
                let v = c.varint()?;
                let bits = u32::try_from(v >> 2).unwrap_or(u32::MAX);
                let signed = match v & 3 {
                    0 => None,
                    1 => Some(true),
                    _ => Some(false),
                };
                if bits == 1 && signed.is_none() {
                    Ty::Bool
                } else {
                    Ty::Int { bits, signed }
                }
            }
            1 => Ty::Index,
            2 => Ty::Function(self.type_list(c)?, self.type_list(c)?),
            3 => Ty::Float("bf16", 16),
            4 => Ty::Float("f16", 16),
            5 => Ty::Float("f32", 32),
            6 => Ty::Float("f64", 64),
            7 => Ty::Float("f80", 80),
            8 => Ty::Float("f128", 128),
            9 => Ty::Complex(self.type_index(c)?),
            12 => Ty::None,
            13 | 14 => {
                let encoding = if code == 14 {
                    Some(self.attr_index(c)?)
                } else {
                    None
                };
                let shape = self.svarints(c)?;
                Ty::Tensor {
                    shape,
                    elem: self.type_index(c)?,
                    encoding,
                }
            }
            15 => Ty::Tuple(self.type_list(c)?),
            18 => Ty::Unranked(self.type_index(c)?),
            n => Ty::Other(format!("builtin type code {n}")),
        })
    }

    fn decode_attr(&self, e: &Entry, dialects: &[String], types: &[Ty]) -> BResult<At> {
        let mut c = self.entry_cur(e, "attribute/type section (an attribute)");
        if !e.custom {
            let text = c.cstr()?;
            return Ok(At::Asm(String::from_utf8_lossy(text).into_owned()));
        }
        let at = match dialects[e.dialect].as_str() {
            "builtin" => self.builtin_attr(&mut c, types)?,
            "vhlo" => super::vhlo::read_attr(self, &mut c, types)?,
            d => return Ok(At::Other(format!("a '{d}' attribute"))),
        };
        if !c.is_empty() && !matches!(at, At::Loc | At::Other(_)) {
            return c.err("unexpected bytes after an attribute");
        }
        Ok(at)
    }

    fn builtin_attr(&self, c: &mut Cur<'a>, types: &[Ty]) -> BResult<At> {
        let code = c.varint()?;
        Ok(match code {
            0 => At::Array(self.attr_list(c)?),
            1 => {
                let n = c.count("named attributes")?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push((self.attr_index(c)?, self.attr_index(c)?));
                }
                At::Dict(v)
            }
            2 => At::Str(self.string(c)?.to_vec()),
            3 => {
                let s = self.string(c)?.to_vec();
                self.type_index(c)?;
                At::Str(s)
            }
            4 => At::Sym(self.attr_index(c)?),
            5 => {
                let root = self.attr_index(c)?;
                if !self.attr_list(c)?.is_empty() {
                    return c.err("nested symbol references are not supported");
                }
                At::Sym(root)
            }
            6 => At::Type(self.type_index(c)?),
            7 => At::Unit,
            8 => {
                let ty = self.type_index(c)?;
                let bits = int_bits(types, ty).ok_or_else(|| BytecodeError {
                    offset: c.pos,
                    section: c.section,
                    message: "an integer attribute of a non-integer type".into(),
                })?;
                At::Int {
                    ty,
                    bits,
                    value: self.apint(c, bits)?,
                }
            }
            9 => {
                let ty = self.type_index(c)?;
                let Some(Ty::Float(_, bits)) = types.get(ty) else {
                    return c.err("a float attribute of a non-float type");
                };
                At::Float {
                    ty,
                    bits: self.apint(c, *bits)? as u64,
                }
            }
            10..=15 | 22 => At::Loc,
            17 => {
                let elem = self.type_index(c)?;
                let n = c.varint()?;
                At::DenseArray {
                    elem,
                    n,
                    data: self.blob(c)?,
                }
            }
            18 => {
                let ty = self.type_index(c)?;
                At::Dense {
                    ty,
                    data: self.blob(c)?,
                }
            }
            n => At::Other(format!("builtin attribute code {n}")),
        })
    }

    // ---- The IR section ----

    fn read_ir(&mut self, mut c: Cur<'a>) -> BResult<Vec<Op>> {
        self.scopes.push(Scope::default());
        self.scope().push(0);
        let mut block = Block::default();
        self.block_header(&mut c, &mut block)
            .and_then(|n| self.block_ops(&mut c, &mut block, n, 0))?;
        if !c.is_empty() {
            return c.err("unexpected bytes after the top-level operations");
        }
        Ok(block.ops)
    }

    fn scope(&mut self) -> &mut Scope {
        if self.scopes.is_empty() {
            self.scopes.push(Scope::default());
        }
        let n = self.scopes.len() - 1;
        &mut self.scopes[n]
    }

    fn define(&mut self, c: &Cur<'a>, n: usize) -> BResult<Vec<u32>> {
        let first = self.next_value;
        let s = self.scope();
        let Some(next) = s.next.last().copied() else {
            return c.err("values defined outside any region");
        };
        if next + n > s.values.len() {
            return c.err(format!(
                "value numbers [{next}, {}) are outside the region's {} values",
                next + n,
                s.values.len()
            ));
        }
        let ids: Vec<u32> = (0..n as u32).map(|i| first + i).collect();
        for (k, &id) in ids.iter().enumerate() {
            s.values[next + k] = Some(id);
        }
        if let Some(l) = s.next.last_mut() {
            *l += n;
        }
        self.next_value += n as u32;
        Ok(ids)
    }

    /// Parses a block header and its arguments; returns the op count.
    fn block_header(&mut self, c: &mut Cur<'a>, block: &mut Block) -> BResult<usize> {
        let (n_ops, has_args) = c.varint_flag()?;
        if n_ops > c.left() as u64 {
            return c.err(format!(
                "{n_ops} operations cannot fit in the {} bytes left",
                c.left()
            ));
        }
        if has_args {
            let n = c.count("block arguments")?;
            let mut tys = Vec::with_capacity(n);
            for _ in 0..n {
                if self.version >= 4 {
                    let at = c.pos;
                    let (t, has_loc) = c.varint_flag()?;
                    if t >= self.num_types as u64 {
                        c.pos = at;
                        return c.err(format!("type index {t} is out of range"));
                    }
                    tys.push(t as usize);
                    if has_loc {
                        self.attr_index(c)?;
                    }
                } else {
                    tys.push(self.type_index(c)?);
                    self.attr_index(c)?;
                }
            }
            let ids = self.define(c, n)?;
            block.args = ids.into_iter().zip(tys).collect();
            if self.version >= 3 && c.byte()? != 0 {
                self.use_list_orders(c, n)?;
            }
        }
        Ok(n_ops as usize)
    }

    fn use_list_orders(&mut self, c: &mut Cur<'a>, range: usize) -> BResult<()> {
        let n = if range > 1 { c.count("use lists")? } else { 1 };
        for _ in 0..n {
            if range > 1 {
                c.varint()?;
            }
            let (k, _) = c.varint_flag()?;
            if k > c.left() as u64 {
                return c.err("a use-list order runs past the end");
            }
            for _ in 0..k {
                c.varint()?;
            }
        }
        Ok(())
    }

    fn block_ops(
        &mut self,
        c: &mut Cur<'a>,
        block: &mut Block,
        n: usize,
        depth: usize,
    ) -> BResult<()> {
        block.ops.reserve(n.min(c.left()));
        for _ in 0..n {
            let op = self.op(c, depth)?;
            block.ops.push(op);
        }
        Ok(())
    }

    fn op(&mut self, c: &mut Cur<'a>, depth: usize) -> BResult<Op> {
        let offset = c.pos;
        let name_idx = c.index(self.op_names.len(), "operation name")?;
        let mask = c.byte()?;
        if mask & 0x80 != 0 {
            c.pos -= 1;
            return c.err(format!("unknown operation encoding bits {mask:#04x}"));
        }
        let mut op = Op {
            offset,
            name: self.op_names[name_idx].name.clone(),
            ..Op::default()
        };
        self.attr_index(c)?; // the location
        if mask & 0x01 != 0 {
            op.attrs = Some(self.attr_index(c)?);
        }
        if mask & 0x40 != 0 {
            op.props = Some(match self.op_names[name_idx].registered {
                Some(false) => Props::Attr(self.attr_index(c)?),
                _ => {
                    let i = c.index(self.props.len(), "properties")?;
                    let r = self.props[i];
                    Props::Raw(self.b[r.0..r.1].to_vec(), r.0)
                }
            });
        }
        let mut result_types = Vec::new();
        if mask & 0x02 != 0 {
            let n = c.count("results")?;
            for _ in 0..n {
                result_types.push(self.type_index(c)?);
            }
        }
        if mask & 0x04 != 0 {
            let n = c.count("operands")?;
            for _ in 0..n {
                let at = c.pos;
                let s = self.scope();
                let len = s.values.len();
                let v = c.varint()?;
                let id = if v < len as u64 {
                    self.scope().values[v as usize]
                } else {
                    None
                };
                match id {
                    Some(id) => op.operands.push(id),
                    None => {
                        c.pos = at;
                        return c.err(format!(
                            "operand value {v} of '{}' is not defined before its use \
                             (forward references are not supported)",
                            op.name
                        ));
                    }
                }
            }
        }
        if mask & 0x08 != 0 {
            return c.err(format!(
                "'{}' has successor blocks, which StableHLO does not use",
                op.name
            ));
        }
        if self.version >= 3 && mask & 0x20 != 0 {
            self.use_list_orders(c, result_types.len())?;
        }
        let mut regions = (0, false);
        if mask & 0x10 != 0 {
            let (n, isolated) = c.varint_flag()?;
            if n > c.left() as u64 {
                return c.err(format!("{n} regions cannot fit in the bytes left"));
            }
            regions = (n as usize, isolated);
        }
        let ids = self.define(c, result_types.len())?;
        op.results = ids.into_iter().zip(result_types).collect();
        if regions.0 > 0 {
            if depth >= MAX_DEPTH {
                return c.err(format!("regions nest deeper than {MAX_DEPTH} levels"));
            }
            if regions.1 {
                self.scopes.push(Scope::default());
            }
            let r = if regions.1 && self.version >= 2 {
                let at = c.pos;
                let (id, mut sub) = c.section()?;
                if id != 4 {
                    c.pos = at;
                    return c.err("expected an IR section for an isolated region");
                }
                let r = self.regions(&mut sub, regions.0, depth + 1);
                if r.is_ok() && !sub.is_empty() {
                    return sub.err("unexpected bytes after an isolated region");
                }
                r
            } else {
                self.regions(c, regions.0, depth + 1)
            };
            if regions.1 {
                self.scopes.pop();
            }
            op.regions = r?;
        }
        Ok(op)
    }

    fn regions(&mut self, c: &mut Cur<'a>, n: usize, depth: usize) -> BResult<Vec<Region>> {
        let mut out = Vec::with_capacity(n.min(c.left()));
        for _ in 0..n {
            let nb = c.count("blocks")?;
            let mut region = Region::default();
            if nb > 0 {
                let nv = c.count("values")?;
                self.scope().push(nv);
                for _ in 0..nb {
                    let mut block = Block::default();
                    let n_ops = self.block_header(c, &mut block)?;
                    self.block_ops(c, &mut block, n_ops, depth)?;
                    region.blocks.push(block);
                }
                self.scope().pop();
            }
            out.push(region);
        }
        Ok(out)
    }
}

impl Scope {
    fn push(&mut self, n: usize) {
        self.next.push(self.values.len());
        self.sizes.push(n);
        self.values.resize(self.values.len() + n, None);
    }
    fn pop(&mut self) {
        let n = self.sizes.pop().unwrap_or(0);
        self.next.pop();
        self.values.truncate(self.values.len().saturating_sub(n));
    }
}

/// The bit width of an integer (or index, or i1) type.
pub(crate) fn int_bits(types: &[Ty], ty: usize) -> Option<u32> {
    match types.get(ty)? {
        Ty::Int { bits, .. } => Some(*bits),
        Ty::Bool => Some(1),
        Ty::Index => Some(64),
        _ => None,
    }
}

/// For [`super::vhlo`]: the reader's primitives.
impl<'a> Reader<'a> {
    pub(crate) fn r_type(&self, c: &mut Cur<'a>) -> BResult<usize> {
        self.type_index(c)
    }
    pub(crate) fn r_attr(&self, c: &mut Cur<'a>) -> BResult<usize> {
        self.attr_index(c)
    }
    pub(crate) fn r_types(&self, c: &mut Cur<'a>) -> BResult<Vec<usize>> {
        self.type_list(c)
    }
    pub(crate) fn r_attrs(&self, c: &mut Cur<'a>) -> BResult<Vec<usize>> {
        self.attr_list(c)
    }
    pub(crate) fn r_svarints(&self, c: &mut Cur<'a>) -> BResult<Vec<i64>> {
        self.svarints(c)
    }
    pub(crate) fn r_blob(&self, c: &mut Cur<'a>) -> BResult<Vec<u8>> {
        self.blob(c)
    }
    pub(crate) fn r_string(&self, c: &mut Cur<'a>) -> BResult<&'a [u8]> {
        self.string(c)
    }
    pub(crate) fn r_apint(&self, c: &mut Cur<'a>, bits: u32) -> BResult<u128> {
        self.apint(c, bits)
    }
}
