//! StableHLO syntax tree → HLO IR, op by op, with XLA's conversion rules
//! (`xla/hlo/translate/mhlo_to_hlo`): multi-result ops become a tuple and
//! `get-tuple-element`s, `while` carries one tuple, `case` becomes a
//! `conditional` whose branches take the values they use from outside as a
//! tuple operand, `func.call` a `call`, and a `reduce` written with
//! `applies` a two-parameter computation.
//!
//! Each instruction's declared shape (MLIR's result type) is checked by
//! shape inference where it is made, so a mismatch is reported at the op's
//! line and column.

use super::syntax::{
    Attr, AttrEntry, DenseBody, DenseElem, Elem, MFunc, MModule, MOp, MRegion, MType, ValueRef,
};
use crate::ir::*;
use crate::literal::{ArrayLiteral, Literal};
use crate::text::ParseError;
use crate::types::{ArrayShape, ElementType, Layout, ProgramShape, Shape};
use crate::PrimaryMap;
use std::collections::{HashMap, HashSet};

type LResult<T> = Result<T, ParseError>;

/// The largest constant a module text may spell (a splat expands to this).
const MAX_CONSTANT_BYTES: usize = 1 << 28;

/// An MLIR element type hlox has no element type for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ElementTypeError {
    #[error("element type {sign}{bits} is not supported (hlox has i1, i8..i64 and ui8..ui64)")]
    Int { sign: &'static str, bits: u32 },
    #[error("element type {0} is not supported (hlox has f16, bf16, f32 and f64)")]
    Float(String),
    #[error("complex element types are complex<f32> or complex<f64>")]
    Complex,
    #[error("element type 'index' is not supported in a tensor")]
    Index,
}

/// The one place that maps an MLIR element type to hlox's.
fn element_type(e: &Elem) -> Result<ElementType, ElementTypeError> {
    use ElementType as T;
    Ok(match e {
        Elem::Int { unsigned, bits } => match (unsigned, bits) {
            (false, 1) => T::Pred,
            (false, 8) => T::S8,
            (false, 16) => T::S16,
            (false, 32) => T::S32,
            (false, 64) => T::S64,
            (true, 8) => T::U8,
            (true, 16) => T::U16,
            (true, 32) => T::U32,
            (true, 64) => T::U64,
            _ => {
                let sign = if *unsigned { "ui" } else { "i" };
                return Err(ElementTypeError::Int { sign, bits: *bits });
            }
        },
        Elem::Float(f) => match f.as_str() {
            "f16" => T::F16,
            "bf16" => T::Bf16,
            "f32" => T::F32,
            "f64" => T::F64,
            _ => return Err(ElementTypeError::Float(f.clone())),
        },
        Elem::Complex(inner) => match element_type(inner) {
            Ok(T::F32) => T::C64,
            Ok(T::F64) => T::C128,
            _ => return Err(ElementTypeError::Complex),
        },
        Elem::Index => return Err(ElementTypeError::Index),
    })
}

/// A function or region being turned into a computation.
pub(crate) struct Comp {
    name: String,
    pub(crate) insts: PrimaryMap<InstId, Instruction>,
    params: Vec<InstId>,
    /// `%name` → the instruction of each of its results.
    values: HashMap<String, Vec<InstId>>,
}

impl Comp {
    fn new(name: String) -> Comp {
        Comp {
            name,
            insts: PrimaryMap::new(),
            params: Vec::new(),
            values: HashMap::new(),
        }
    }
    fn shape(&self, id: InstId) -> &Shape {
        &self.insts[id].shape
    }
}

/// The rank of the first of `operands`; 0 when there is none or it is not
/// an array (shape inference then says what is wrong).
fn first_rank(c: &Comp, operands: &[InstId]) -> usize {
    operands
        .first()
        .and_then(|&i| c.shape(i).as_array())
        .map_or(0, |a| a.rank())
}

pub(crate) struct Lowerer<'a> {
    src: &'a str,
    funcs: HashMap<&'a str, &'a MFunc>,
    /// Functions already lowered, and those being lowered (recursion check).
    done: HashMap<String, CompId>,
    active: HashSet<String>,
    comps: PrimaryMap<CompId, Computation>,
    comp_names: HashSet<String>,
    next_id: usize,
    /// The module's Shardy meshes (`sdy.mesh`), for the shardings that
    /// name them.
    meshes: Vec<crate::sharding::Mesh>,
}

impl<'a> Lowerer<'a> {
    pub(crate) fn err<T>(&self, pos: usize, msg: impl Into<String>) -> LResult<T> {
        Err(ParseError::at(self.src, pos, msg))
    }

    /// The source text of `span` (a byte range of the module text).
    pub(crate) fn source(&self, span: (usize, usize)) -> &'a str {
        self.src.get(span.0..span.1).unwrap_or("")
    }

    pub(crate) fn meshes(&self) -> &[crate::sharding::Mesh] {
        &self.meshes
    }

    /// The shape the root of computation `id` has.
    pub(crate) fn comp_root_shape(&self, id: CompId) -> Shape {
        self.comps[id].root_inst().shape.clone()
    }

    fn fresh(&mut self, base: &str) -> String {
        self.next_id += 1;
        format!("{base}.{}", self.next_id)
    }

    fn comp_name(&mut self, base: &str) -> String {
        let base = hlo_name(base, "function");
        let mut name = base.clone();
        while !self.comp_names.insert(name.clone()) {
            name = self.fresh(&base);
        }
        name
    }

    pub(crate) fn shape(&self, t: &MType) -> LResult<Shape> {
        Ok(match t {
            MType::Token => Shape::Token,
            MType::Tuple(ts) => {
                Shape::Tuple(ts.iter().map(|t| self.shape(t)).collect::<LResult<_>>()?)
            }
            MType::Tensor {
                dims,
                elem,
                pos: tp,
            } => {
                let ty = element_type(elem).or_else(|e| self.err(*tp, e.to_string()))?;
                if let Some(d) = dims.iter().find(|&&d| d < 0) {
                    return self.err(*tp, format!("negative dimension {d}"));
                }
                Shape::Array(ArrayShape::new(ty, dims.clone()))
            }
        })
    }

    pub(crate) fn result_shapes(&self, op: &MOp) -> LResult<Vec<Shape>> {
        op.result_types.iter().map(|t| self.shape(t)).collect()
    }

    pub(crate) fn one_result(&self, op: &MOp) -> LResult<Shape> {
        let mut v = self.result_shapes(op)?;
        if v.len() != 1 {
            return self.err(
                op.pos,
                format!("'{}' must have one result, it has {}", op.name, v.len()),
            );
        }
        Ok(v.remove(0))
    }

    /// Adds an instruction, checking `shape` against shape inference.
    pub(crate) fn add(
        &mut self,
        c: &mut Comp,
        pos: usize,
        op: Op,
        shape: Shape,
        operands: Vec<InstId>,
        called: Vec<CompId>,
    ) -> LResult<InstId> {
        let shapes: Vec<&Shape> = operands.iter().map(|&o| c.shape(o)).collect();
        let progs: Vec<ProgramShape> = called
            .iter()
            .map(|&k| self.comps[k].program_shape())
            .collect();
        if let Err(e) = crate::shape_inference::check_shape(&op, &shapes, &progs, &shape) {
            return self.err(pos, format!("{}: {}", e.op, e.message));
        }
        let name = self.fresh(op.name());
        let mut inst = Instruction::new(name, op, shape, operands);
        inst.called = called;
        Ok(c.insts.push(inst))
    }

    /// The `get-tuple-element`s of every element of a tuple instruction.
    pub(crate) fn untuple(&mut self, c: &mut Comp, pos: usize, t: InstId) -> LResult<Vec<InstId>> {
        let elems = c
            .shape(t)
            .tuple_elements()
            .map(|e| e.to_vec())
            .unwrap_or_default();
        let mut out = Vec::with_capacity(elems.len());
        for (i, s) in elems.into_iter().enumerate() {
            out.push(self.add(
                c,
                pos,
                Op::GetTupleElement { index: i as i64 },
                s,
                vec![t],
                vec![],
            )?);
        }
        Ok(out)
    }

    /// Ops with one result produce it; with several, a tuple and its elements.
    fn results_of(
        &mut self,
        c: &mut Comp,
        op: &MOp,
        hlo: Op,
        operands: Vec<InstId>,
        called: Vec<CompId>,
    ) -> LResult<Vec<InstId>> {
        let shapes = self.result_shapes(op)?;
        if shapes.len() == 1 {
            let s = shapes.into_iter().next().unwrap_or(Shape::Token);
            Ok(vec![self.add(c, op.pos, hlo, s, operands, called)?])
        } else {
            let t = self.add(c, op.pos, hlo, Shape::Tuple(shapes), operands, called)?;
            self.untuple(c, op.pos, t)
        }
    }

    fn tuple(&mut self, c: &mut Comp, pos: usize, elems: Vec<InstId>) -> LResult<InstId> {
        let shape = Shape::Tuple(elems.iter().map(|&e| c.shape(e).clone()).collect());
        self.add(c, pos, Op::Tuple, shape, elems, vec![])
    }

    fn value(&self, c: &Comp, r: &ValueRef) -> LResult<InstId> {
        let Some(group) = c.values.get(&r.name) else {
            return self.err(r.pos, format!("use of undefined value '%{}'", r.name));
        };
        match (r.index, group.len()) {
            (None, 1) => Ok(group[0]),
            (None, n) => self.err(
                r.pos,
                format!("'%{}' has {n} results; name one as '%{}#N'", r.name, r.name),
            ),
            (Some(i), n) if i < n => Ok(group[i]),
            (Some(i), n) => self.err(
                r.pos,
                format!(
                    "'%{}#{i}' is out of range: '%{}' has {n} results",
                    r.name, r.name
                ),
            ),
        }
    }

    pub(crate) fn operands(&self, c: &Comp, op: &MOp) -> LResult<Vec<InstId>> {
        op.operands.iter().map(|r| self.value(c, r)).collect()
    }

    fn finish(&mut self, c: Comp, root: InstId) -> CompId {
        self.comps.push(Computation {
            name: c.name,
            instructions: c.insts,
            params: c.params,
            root,
            execution_thread: None,
        })
    }

    // ------------------------------------------------------------ attributes

    fn attr<'o>(&self, op: &'o MOp, key: &str) -> LResult<&'o AttrEntry> {
        match op.attr(key) {
            Some(a) => Ok(a),
            None => self.err(op.pos, format!("'{}' needs the attribute '{key}'", op.name)),
        }
    }

    fn ints_of(&self, a: &Attr, pos: usize, what: &str) -> LResult<Vec<i64>> {
        let int = |v: &Attr| -> Option<i64> {
            match v {
                Attr::Int(i) => i64::try_from(*i).ok(),
                Attr::Bool(b) => Some(*b as i64),
                _ => None,
            }
        };
        Ok(match a {
            Attr::DenseArray(v) => v.clone(),
            Attr::Array(v) => {
                let mut out = Vec::new();
                for e in v {
                    match e {
                        Attr::Array(_) | Attr::Dense { .. } => {
                            out.extend(self.ints_of(e, pos, what)?)
                        }
                        _ => match int(e) {
                            Some(i) => out.push(i),
                            None => return self.err(pos, format!("{what}: expected integers")),
                        },
                    }
                }
                out
            }
            Attr::Dense {
                body: DenseBody::Elems(v),
                ty,
                ..
            } => {
                let mut out = Vec::with_capacity(v.len());
                for e in v {
                    match e {
                        DenseElem::Int(i) => {
                            out.push(i64::try_from(*i).or_else(|_| {
                                self.err(pos, format!("{what}: {i} is out of range"))
                            })?)
                        }
                        DenseElem::Bool(b) => out.push(*b as i64),
                        _ => return self.err(pos, format!("{what}: expected integers")),
                    }
                }
                // A splat fills the whole type.
                if let (1, Some(MType::Tensor { dims, .. })) = (out.len(), ty) {
                    let n: i64 = dims.iter().product();
                    if n != 1 && (0..=1 << 20).contains(&n) {
                        out = vec![out[0]; n as usize];
                    }
                }
                if let (0, Some(MType::Tensor { dims, .. })) = (out.len(), ty) {
                    if dims.iter().product::<i64>() != 0 {
                        return self.err(
                            pos,
                            format!("{what}: empty dense literal for a non-empty type"),
                        );
                    }
                }
                out
            }
            Attr::Int(_) | Attr::Bool(_) => vec![int(a).unwrap_or(0)],
            _ => return self.err(pos, format!("{what}: expected a list of integers")),
        })
    }

    fn ints(&self, op: &MOp, key: &str) -> LResult<Vec<i64>> {
        let a = self.attr(op, key)?;
        self.ints_of(&a.value, a.pos, key)
    }

    /// Per-dimension attributes given as parallel lists (a slice's starts,
    /// limits and strides): `make` of each dimension's values, or an error
    /// naming `what` when the lists differ in length.
    fn per_dim<T, const N: usize>(
        &self,
        pos: usize,
        what: &str,
        lists: [Vec<i64>; N],
        make: impl Fn([i64; N]) -> T,
    ) -> LResult<Vec<T>> {
        let n = lists.first().map_or(0, Vec::len);
        if lists.iter().any(|l| l.len() != n) {
            return self.err(pos, format!("{what} differ in length"));
        }
        Ok((0..n)
            .map(|i| make(lists.each_ref().map(|l| l[i])))
            .collect())
    }

    /// `item` of each element of the array attribute `key` (with the
    /// attribute's position); none when `op` has no such array.
    fn array_items<T>(
        &mut self,
        op: &MOp,
        key: &str,
        mut item: impl FnMut(&mut Self, &Attr, usize) -> LResult<T>,
    ) -> LResult<Vec<T>> {
        match op.attr(key) {
            Some(AttrEntry {
                value: Attr::Array(v),
                pos,
                ..
            }) => v.iter().map(|e| item(self, e, *pos)).collect(),
            _ => Ok(Vec::new()),
        }
    }

    fn ints_or(&self, op: &MOp, key: &str, default: Vec<i64>) -> LResult<Vec<i64>> {
        match op.attr(key) {
            Some(a) => self.ints_of(&a.value, a.pos, key),
            None => Ok(default),
        }
    }

    fn int(&self, op: &MOp, key: &str) -> LResult<i64> {
        let a = self.attr(op, key)?;
        match &a.value {
            Attr::Int(i) => {
                i64::try_from(*i).or_else(|_| self.err(a.pos, format!("'{key}' is out of range")))
            }
            _ => self.err(a.pos, format!("'{key}' must be an integer")),
        }
    }

    fn flag(&self, op: &MOp, key: &str) -> bool {
        matches!(
            op.attr(key).map(|a| &a.value),
            Some(Attr::Bool(true)) | Some(Attr::Unit)
        )
    }

    fn enum_of(&self, op: &MOp, key: &str) -> LResult<Option<(String, usize)>> {
        match op.attr(key) {
            None => Ok(None),
            Some(AttrEntry {
                value: Attr::Enum(s),
                pos,
                ..
            }) => Ok(Some((s.clone(), *pos))),
            Some(a) => self.err(a.pos, format!("'{key}' must be an enum keyword")),
        }
    }

    /// Fields of a `#stablehlo.gather<...>`-style attribute; missing fields are empty.
    fn fields<'o>(&self, op: &'o MOp, key: &str) -> LResult<&'o [AttrEntry]> {
        let a = self.attr(op, key)?;
        match &a.value {
            Attr::Struct(_, f) => Ok(f),
            _ => self.err(
                a.pos,
                format!("'{key}' must be a dimension-numbers attribute"),
            ),
        }
    }

    /// A list field of a dimension-numbers attribute; missing is empty (as MLIR prints defaults).
    fn field(&self, fields: &[AttrEntry], key: &str) -> LResult<Vec<i64>> {
        match fields.iter().find(|f| f.key == key) {
            Some(f) => self.ints_of(&f.value, f.pos, key),
            None => Ok(Vec::new()),
        }
    }

    fn field_int(&self, fields: &[AttrEntry], key: &str, default: i64) -> LResult<i64> {
        match fields.iter().find(|f| f.key == key) {
            Some(f) => Ok(self
                .ints_of(&f.value, f.pos, key)?
                .first()
                .copied()
                .unwrap_or(default)),
            None => Ok(default),
        }
    }

    fn precision(&self, op: &MOp) -> LResult<Vec<Precision>> {
        let Some(a) = op.attr("precision_config") else {
            return Ok(Vec::new());
        };
        let Attr::Array(v) = &a.value else {
            return self.err(a.pos, "precision_config must be a list");
        };
        let mut out = Vec::new();
        for e in v {
            match e {
                Attr::Enum(s) => match Precision::from_name(&s.to_ascii_lowercase()) {
                    Some(p) => out.push(p),
                    None => return self.err(a.pos, format!("unknown precision '{s}'")),
                },
                _ => return self.err(a.pos, "precision_config must hold precisions"),
            }
        }
        if out.iter().all(|&p| p == Precision::Default) {
            out.clear();
        }
        Ok(out)
    }

    /// `padding`: an N×2 list of (low, high).
    fn padding(&self, op: &MOp, rank: usize) -> LResult<Vec<(i64, i64)>> {
        let flat = self.ints_or(op, "padding", vec![0; rank * 2])?;
        if flat.len() != rank * 2 {
            return self.err(
                op.pos,
                format!(
                    "padding has {} values, expected {} (two per dimension)",
                    flat.len(),
                    rank * 2
                ),
            );
        }
        Ok(flat.chunks(2).map(|p| (p[0], p[1])).collect())
    }

    fn replica_groups(&self, op: &MOp) -> LResult<Collective> {
        let mut coll = Collective::default();
        if let Some(a) = op.attr("replica_groups") {
            let flat = self.ints_of(&a.value, a.pos, "replica_groups")?;
            let cols = match &a.value {
                Attr::Dense {
                    ty: Some(MType::Tensor { dims, .. }),
                    ..
                } if dims.len() == 2 => dims[1],
                _ => flat.len() as i64,
            };
            let groups = if cols <= 0 {
                Vec::new()
            } else {
                flat.chunks(cols as usize)
                    .map(|g| g.iter().copied().filter(|&x| x >= 0).collect())
                    .collect()
            };
            coll.replica_groups = ReplicaGroups::List(groups);
        }
        coll.channel_id = self.channel(op)?;
        coll.use_global_device_ids = self.flag(op, "use_global_device_ids");
        Ok(coll)
    }

    fn channel(&self, op: &MOp) -> LResult<Option<i64>> {
        Ok(match op.attr("channel_handle") {
            Some(AttrEntry {
                value: Attr::Struct(_, f),
                ..
            }) => {
                let h = self.field_int(f, "handle", 0)?;
                (h > 0).then_some(h)
            }
            _ => None,
        })
    }

    // ------------------------------------------------------------- literals

    fn literal(&self, a: &AttrEntry, shape: &Shape, pos: usize) -> LResult<Literal> {
        let Attr::Dense { body, .. } = &a.value else {
            return self.err(a.pos, "a constant's value must be a dense<...> literal");
        };
        let Shape::Array(s) = shape else {
            return self.err(pos, "a constant must be a tensor");
        };
        let n = s.checked_element_count().unwrap_or(-1);
        let size = s.ty.byte_size();
        let total = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(size))
            .filter(|&b| b <= MAX_CONSTANT_BYTES);
        let Some(total) = total else {
            return self.err(
                pos,
                format!(
                    "the constant {} is larger than hlox reads from text ({} MiB)",
                    crate::text::shape_to_string(shape),
                    MAX_CONSTANT_BYTES >> 20
                ),
            );
        };
        // A dense body gives the whole tensor, or one element to splat.
        let (kind, unit, given, whole, one) = match body {
            DenseBody::Hex(h) => ("hex literal", "bytes", h.len(), total, size),
            DenseBody::Elems(v) => ("literal", "elements", v.len(), n as usize, 1),
        };
        if given != whole && given != one {
            return self.err(
                a.pos,
                format!(
                    "the {kind} has {given} {unit}; {} needs {whole} (or {one} for a splat)",
                    crate::text::shape_to_string(shape)
                ),
            );
        }
        let bytes = match body {
            DenseBody::Hex(h) => h.clone(),
            DenseBody::Elems(v) => {
                let mut bytes = Vec::with_capacity(v.len() * size);
                for e in v {
                    bytes.extend(self.elem_bytes(e, s.ty, a.pos)?);
                }
                bytes
            }
        };
        let bytes = if given == one && whole != one {
            bytes.repeat(n as usize)
        } else {
            bytes
        };
        match ArrayLiteral::from_bytes(s.clone(), bytes) {
            Ok(l) => Ok(Literal::Array(l)),
            Err(e) => self.err(a.pos, e.to_string()),
        }
    }

    fn elem_bytes(&self, e: &DenseElem, ty: ElementType, pos: usize) -> LResult<Vec<u8>> {
        use ElementType as T;
        let bad =
            |what: &str| self.err(pos, format!("{what} is not a valid {} element", ty.name()));
        Ok(match (e, ty) {
            (DenseElem::Complex(re, im), t) if t.is_complex() => {
                // (re, im): each part a float of the component type.
                let part = t.complex_component().unwrap_or(T::F32);
                let mut b = self.elem_bytes(re, part, pos)?;
                b.extend(self.elem_bytes(im, part, pos)?);
                b
            }
            (DenseElem::Complex(..), _) => return bad("a complex value"),
            (DenseElem::Float(f), t) if t.is_complex() => {
                let part = t.complex_component().unwrap_or(T::F32);
                let mut b = float_bytes(*f, part);
                b.extend(float_bytes(0.0, part));
                b
            }
            (DenseElem::Bits(b), t) if t.is_complex() => b.to_le_bytes()[..t.byte_size()].to_vec(),
            (DenseElem::Bool(b), T::Pred) => vec![*b as u8],
            (DenseElem::Int(i), T::Pred) => vec![(*i != 0) as u8],
            (DenseElem::Bool(b), t) if t.is_integral() => {
                (*b as i128).to_le_bytes()[..t.byte_size()].to_vec()
            }
            (DenseElem::Int(i), t) if t.is_integral() => i.to_le_bytes()[..t.byte_size()].to_vec(),
            (DenseElem::Bits(b), t) if t.is_integral() || t.is_float() => {
                b.to_le_bytes()[..t.byte_size()].to_vec()
            }
            (DenseElem::Float(f), t) if t.is_float() => float_bytes(*f, t),
            (DenseElem::Int(i), t) if t.is_float() => float_bytes(*i as f64, t),
            (DenseElem::Float(_), _) => return bad("a float"),
            _ => return bad("this value"),
        })
    }

    // ------------------------------------------------------------ functions

    /// The computation of function `name`, lowering it on first use.
    fn func_comp(&mut self, name: &str, pos: usize) -> LResult<CompId> {
        if let Some(&c) = self.done.get(name) {
            return Ok(c);
        }
        let Some(&f) = self.funcs.get(name) else {
            return self.err(pos, format!("call of an undefined function '@{name}'"));
        };
        if !self.active.insert(name.to_string()) {
            return self.err(
                pos,
                format!("function '@{name}' calls itself; HLO has no recursion"),
            );
        }
        let cname = self.comp_name(name);
        let shardings = super::sdy::arg_shardings(self, f)?;
        let id = self.region_comp(&f.body, cname, Params::Each, &[], false)?;
        self.check_returned_types(f, id)?;
        let params = self.comps[id].params.clone();
        for (p, s) in params.into_iter().zip(shardings) {
            if let Some(s) = s {
                self.comps[id].instructions[p].frontend_attributes =
                    vec![("xla.sdy.sharding".into(), s)];
            }
        }
        self.active.remove(name);
        self.done.insert(name.to_string(), id);
        Ok(id)
    }

    /// The values function `f` returns (the root of its computation `id`)
    /// have the types its signature declares (MLIR's verifier checks
    /// `func.return` against the function type the same way).
    fn check_returned_types(&self, f: &MFunc, id: CompId) -> LResult<()> {
        let want: Vec<Shape> = f
            .results
            .iter()
            .map(|t| self.shape(t))
            .collect::<LResult<_>>()?;
        let comp = &self.comps[id];
        let root = comp.instructions[comp.root].shape.clone();
        let have = match root {
            Shape::Tuple(elems) if want.len() != 1 => elems,
            s => vec![s],
        };
        let pos = f.body.ops.last().map_or(f.pos, |o| o.pos);
        if have.len() != want.len() {
            return self.err(
                pos,
                format!(
                    "'@{}' returns {} value(s) but its type declares {} result(s)",
                    f.name,
                    have.len(),
                    want.len()
                ),
            );
        }
        for (k, (h, w)) in have.iter().zip(&want).enumerate() {
            if !h.compatible(w) {
                return self.err(
                    pos,
                    format!(
                        "'@{}' returns {h} as result {k}, but its type declares {w}: \
                         make the function's result type and the returned value agree",
                        f.name
                    ),
                );
            }
        }
        Ok(())
    }

    /// Lowers a region to a computation. `params`: one parameter per block
    /// argument, or one tuple of the block arguments and then `captures`
    /// (values from outside). `pass_captures`: the root is a tuple of the
    /// returned values and the captures (a while body).
    fn region_comp(
        &mut self,
        r: &MRegion,
        name: String,
        params: Params,
        captures: &[Capture],
        pass_captures: bool,
    ) -> LResult<CompId> {
        self.region_comp_with(r, name, params, captures, pass_captures, &[])
    }

    /// [`Self::region_comp`], with constants of the enclosing computation
    /// copied in under their names.
    fn region_comp_with(
        &mut self,
        r: &MRegion,
        name: String,
        params: Params,
        captures: &[Capture],
        pass_captures: bool,
        constants: &[(String, Instruction)],
    ) -> LResult<CompId> {
        let mut c = Comp::new(name);
        let arg_shapes: Vec<Shape> = r
            .args
            .iter()
            .map(|(_, t)| self.shape(t))
            .collect::<LResult<_>>()?;
        let mut cap_ids = Vec::new();
        match params {
            Params::Each => {
                for (i, ((n, _), s)) in r.args.iter().zip(arg_shapes).enumerate() {
                    let id = c.insts.push(Instruction::new(
                        format!("Arg_{i}.{}", self.next_id + 1),
                        Op::Parameter { number: i as u64 },
                        s,
                        vec![],
                    ));
                    self.next_id += 1;
                    c.params.push(id);
                    c.values.insert(n.clone(), vec![id]);
                }
            }
            Params::Tuple => {
                let mut elems = arg_shapes;
                elems.extend(captures.iter().flat_map(|k| k.shapes.iter().cloned()));
                let pname = self.fresh("arg_tuple");
                let p = c.insts.push(Instruction::new(
                    pname,
                    Op::Parameter { number: 0 },
                    Shape::Tuple(elems),
                    vec![],
                ));
                c.params.push(p);
                let gtes = self.untuple(&mut c, r.pos, p)?;
                let mut it = gtes.into_iter();
                for (n, _) in &r.args {
                    let g = it.next().unwrap_or(p);
                    c.values.insert(n.clone(), vec![g]);
                }
                for k in captures {
                    let g: Vec<InstId> = it.by_ref().take(k.shapes.len()).collect();
                    cap_ids.extend(g.iter().copied());
                    c.values.insert(k.name.clone(), g);
                }
            }
        }
        for (n, inst) in constants {
            let mut inst = inst.clone();
            inst.name = self.fresh("constant");
            let id = c.insts.push(inst);
            c.values.insert(n.clone(), vec![id]);
        }
        let Some((last, body)) = r.ops.split_last() else {
            return self.err(r.pos, "a region must end with a return");
        };
        for op in body {
            self.lower_op(&mut c, op)?;
        }
        if !matches!(
            last.name.as_str(),
            "func.return" | "stablehlo.return" | "mhlo.return" | "sdy.return"
        ) {
            return self.err(
                last.pos,
                format!("a region must end with a return, not '{}'", last.name),
            );
        }
        let mut rets = self.operands(&c, last)?;
        let root = if pass_captures {
            rets.extend(cap_ids);
            self.tuple(&mut c, last.pos, rets)?
        } else if rets.len() == 1 {
            rets[0]
        } else {
            self.tuple(&mut c, last.pos, rets)?
        };
        Ok(self.finish(c, root))
    }

    /// The values a region uses that it does not define, in first-use order.
    fn free_values(regions: &[&MRegion]) -> Vec<String> {
        fn walk(
            r: &MRegion,
            defined: &mut HashSet<String>,
            out: &mut Vec<String>,
            seen: &mut HashSet<String>,
        ) {
            for (n, _) in &r.args {
                defined.insert(n.clone());
            }
            for op in &r.ops {
                for v in &op.operands {
                    if !defined.contains(&v.name) && seen.insert(v.name.clone()) {
                        out.push(v.name.clone());
                    }
                }
                for sub in &op.regions {
                    walk(sub, defined, out, seen);
                }
                for (n, _) in &op.results {
                    defined.insert(n.clone());
                }
            }
        }
        let (mut defined, mut out, mut seen) = (HashSet::new(), Vec::new(), HashSet::new());
        for r in regions {
            walk(r, &mut defined, &mut out, &mut seen);
        }
        out.retain(|n| !defined.contains(n));
        out
    }

    fn captures(&self, c: &Comp, regions: &[&MRegion], pos: usize) -> LResult<Vec<Capture>> {
        Self::free_values(regions)
            .into_iter()
            .map(|name| match c.values.get(&name) {
                Some(ids) => Ok(Capture {
                    name,
                    ids: ids.clone(),
                    shapes: ids.iter().map(|&i| c.shape(i).clone()).collect(),
                }),
                None => self.err(pos, format!("use of undefined value '%{name}' in a region")),
            })
            .collect()
    }

    /// A region of scalar-argument reducers/comparators: no captures allowed.
    /// An op over all of `op`'s operands that calls its one region, `role`
    /// (a reducer, a comparator): lowers the region, then builds the HLO op
    /// with `hlo`, given the rank of the first operand (0 when it is not an
    /// array).
    fn with_region(
        &mut self,
        c: &mut Comp,
        op: &MOp,
        role: &str,
        hlo: impl FnOnce(&Self, usize) -> LResult<Op>,
    ) -> LResult<Vec<InstId>> {
        let f = self.applied(c, op, 0, role)?;
        let x = self.operands(c, op)?;
        let hlo = hlo(self, first_rank(c, &x))?;
        self.results_of(c, op, hlo, x, vec![f])
    }

    fn applied(&mut self, c: &Comp, op: &MOp, i: usize, what: &str) -> LResult<CompId> {
        let Some(r) = op.regions.get(i) else {
            return self.err(op.pos, format!("'{}' needs a {what} region", op.name));
        };
        let name = format!("region_{}", self.next_id + 1);
        self.isolated_region(c, r, &name, &format!("{what} of '{}'", op.name))
    }

    /// Region `r` as a computation named after `base`, one parameter per
    /// block argument, using nothing from outside but constants of `c`
    /// (copied in). `what` names the region in errors.
    pub(crate) fn isolated_region(
        &mut self,
        c: &Comp,
        r: &MRegion,
        base: &str,
        what: &str,
    ) -> LResult<CompId> {
        // A constant of the enclosing computation (MLIR's canonicalizer
        // hoists them out of comparators and reducers) is copied into the
        // region, as XLA's import does; any other value is refused.
        let captures = self.captures(c, &[r], r.pos)?;
        for k in &captures {
            let constant = match k.ids.as_slice() {
                [id] => matches!(c.insts[*id].op, Op::Constant { .. }),
                _ => false,
            };
            if !constant {
                return self.err(r.pos, format!("the {what} uses '%{}' from outside; hlox supports this only for constants and for while, case and if", k.name));
            }
        }
        let constants: Vec<(String, Instruction)> = captures
            .iter()
            .map(|k| (k.name.clone(), c.insts[k.ids[0]].clone()))
            .collect();
        let name = self.comp_name(base);
        self.region_comp_with(r, name, Params::Each, &[], false, &constants)
    }

    // ---------------------------------------------------------------- ops

    fn lower_op(&mut self, c: &mut Comp, op: &MOp) -> LResult<()> {
        let results = self.lower_op_results(c, op)?;
        let want: usize = op.results.iter().map(|(_, n)| n).sum();
        if want != results.len() {
            return self.err(
                op.pos,
                format!(
                    "'{}' produces {} results but {want} are named",
                    op.name,
                    results.len()
                ),
            );
        }
        let mut it = results.into_iter();
        for (name, n) in &op.results {
            let g: Vec<InstId> = it.by_ref().take(*n).collect();
            c.values.insert(name.clone(), g);
        }
        Ok(())
    }

    fn lower_op_results(&mut self, c: &mut Comp, op: &MOp) -> LResult<Vec<InstId>> {
        let name = op
            .name
            .strip_prefix("stablehlo.")
            .or_else(|| op.name.strip_prefix("mhlo."))
            .unwrap_or(&op.name);
        let pos = op.pos;
        if let Some(u) = unary(name) {
            let x = self.operands(c, op)?;
            let s = self.one_result(op)?;
            return Ok(vec![self.add(c, pos, Op::Unary(u), s, x, vec![])?]);
        }
        if let Some(b) = binary(name) {
            let x = self.operands(c, op)?;
            let s = self.one_result(op)?;
            return Ok(vec![self.add(c, pos, Op::Binary(b), s, x, vec![])?]);
        }
        match name {
            "sdy.manual_computation" => return super::sdy::manual_computation(self, c, op),
            "sdy.sharding_constraint" => return super::sdy::sharding_constraint(self, c, op),
            _ => {}
        }
        let hlo = match name {
            "constant" => {
                let s = self.one_result(op)?;
                let a = self.attr(op, "value")?;
                let literal = self.literal(a, &s, pos)?;
                Op::Constant { literal }
            }
            "iota" => Op::Iota {
                dimension: self.int(op, "iota_dimension")?,
            },
            "compare" => {
                let (d, dp) = self.enum_of(op, "comparison_direction")?.ok_or_else(|| {
                    ParseError::at(self.src, pos, "compare needs comparison_direction")
                })?;
                let direction = ComparisonDirection::from_name(&d).ok_or_else(|| {
                    ParseError::at(self.src, dp, format!("unknown comparison direction '{d}'"))
                })?;
                let x = self.operands(c, op)?;
                let ty = x.first().and_then(|&i| c.shape(i).element_type());
                let given = match self.enum_of(op, "compare_type")? {
                    Some((t, tp)) => Some(ComparisonType::from_name(&t).ok_or_else(|| {
                        ParseError::at(self.src, tp, format!("unknown comparison type '{t}'"))
                    })?),
                    None => None,
                };
                let s = self.one_result(op)?;
                return Ok(vec![self.add(
                    c,
                    pos,
                    Op::Compare {
                        direction,
                        cmp_type: ComparisonType::canonical(given, ty),
                    },
                    s,
                    x,
                    vec![],
                )?]);
            }
            "select" => Op::Select,
            "clamp" => Op::Clamp,
            "convert" => Op::Convert,
            "bitcast_convert" => Op::BitcastConvert,
            "reshape" => Op::Reshape,
            "reduce_precision" => Op::ReducePrecision {
                exponent_bits: self.int(op, "exponent_bits")? as i32,
                mantissa_bits: self.int(op, "mantissa_bits")? as i32,
            },
            "broadcast_in_dim" => return self.broadcast_in_dim(c, op),
            "transpose" => Op::Transpose {
                dimensions: self.ints(op, "permutation")?,
            },
            "reverse" => Op::Reverse {
                dimensions: self.ints(op, "dimensions")?,
            },
            "slice" => {
                let (st, li) = (
                    self.ints(op, "start_indices")?,
                    self.ints(op, "limit_indices")?,
                );
                let sd = self.ints_or(op, "strides", vec![1; st.len()])?;
                let what = "slice start, limit and stride lists";
                let dims =
                    self.per_dim(pos, what, [st, li, sd], |[start, limit, stride]| SliceDim {
                        start,
                        limit,
                        stride,
                    })?;
                Op::Slice { dims }
            }
            "dynamic_slice" => Op::DynamicSlice {
                sizes: self.ints(op, "slice_sizes")?,
            },
            "dynamic_update_slice" => Op::DynamicUpdateSlice,
            "concatenate" => Op::Concatenate {
                dimension: self.int(op, "dimension")?,
            },
            "pad" => {
                let lists = [
                    self.ints(op, "edge_padding_low")?,
                    self.ints(op, "edge_padding_high")?,
                    self.ints(op, "interior_padding")?,
                ];
                let dims = self.per_dim(pos, "pad lists", lists, |[lo, hi, interior]| PadDim {
                    lo,
                    hi,
                    interior,
                })?;
                Op::Pad { dims }
            }
            "dot_general" => Op::Dot {
                dnums: match op.attr("dot_dimension_numbers") {
                    Some(AttrEntry {
                        value: Attr::Struct(_, f),
                        ..
                    }) => DotDimensionNumbers {
                        lhs_batch_dims: self.field(f, "lhs_batching_dimensions")?,
                        rhs_batch_dims: self.field(f, "rhs_batching_dimensions")?,
                        lhs_contracting_dims: self.field(f, "lhs_contracting_dimensions")?,
                        rhs_contracting_dims: self.field(f, "rhs_contracting_dimensions")?,
                    },
                    _ => DotDimensionNumbers {
                        lhs_batch_dims: self.ints_or(op, "lhs_batching_dimensions", vec![])?,
                        rhs_batch_dims: self.ints_or(op, "rhs_batching_dimensions", vec![])?,
                        lhs_contracting_dims: self.ints_or(
                            op,
                            "lhs_contracting_dimensions",
                            vec![],
                        )?,
                        rhs_contracting_dims: self.ints_or(
                            op,
                            "rhs_contracting_dimensions",
                            vec![],
                        )?,
                    },
                },
                precision: self.precision(op)?,
            },
            "dot" => {
                let x = self.operands(c, op)?;
                let lr = x
                    .first()
                    .and_then(|&i| c.shape(i).as_array())
                    .map_or(0, |a| a.rank() as i64);
                Op::Dot {
                    dnums: DotDimensionNumbers {
                        lhs_contracting_dims: vec![lr - 1],
                        rhs_contracting_dims: vec![0],
                        ..Default::default()
                    },
                    precision: self.precision(op)?,
                }
            }
            "convolution" => self.convolution(c, op)?,
            "reduce" => {
                return self.with_region(c, op, "reducer", |lw, _| {
                    let dimensions = lw.ints(op, "dimensions")?;
                    Ok(Op::Reduce { dimensions })
                });
            }
            "reduce_window" => {
                return self.with_region(c, op, "reducer", |lw, rank| {
                    let dilations = Some(("base_dilations", "window_dilations"));
                    let window =
                        lw.window(op, rank, "window_dimensions", "window_strides", dilations)?;
                    Ok(Op::ReduceWindow { window })
                });
            }
            "select_and_scatter" => {
                let sel = self.applied(c, op, 0, "select")?;
                let sc = self.applied(c, op, 1, "scatter")?;
                let x = self.operands(c, op)?;
                let rank = first_rank(c, &x);
                let window = self.window(op, rank, "window_dimensions", "window_strides", None)?;
                return self.results_of(c, op, Op::SelectAndScatter { window }, x, vec![sel, sc]);
            }
            "gather" => {
                let f = self.fields(op, "dimension_numbers")?;
                Op::Gather {
                    dnums: GatherDimensionNumbers {
                        offset_dims: self.field(f, "offset_dims")?,
                        collapsed_slice_dims: self.field(f, "collapsed_slice_dims")?,
                        start_index_map: self.field(f, "start_index_map")?,
                        index_vector_dim: self.field_int(f, "index_vector_dim", 0)?,
                        operand_batching_dims: self.field(f, "operand_batching_dims")?,
                        start_indices_batching_dims: self
                            .field(f, "start_indices_batching_dims")?,
                    },
                    slice_sizes: self.ints(op, "slice_sizes")?,
                    indices_are_sorted: self.flag(op, "indices_are_sorted"),
                }
            }
            "scatter" => {
                let f = self.applied(c, op, 0, "update computation")?;
                let d = self.fields(op, "scatter_dimension_numbers")?;
                let hlo = Op::Scatter {
                    dnums: ScatterDimensionNumbers {
                        update_window_dims: self.field(d, "update_window_dims")?,
                        inserted_window_dims: self.field(d, "inserted_window_dims")?,
                        scatter_dims_to_operand_dims: self
                            .field(d, "scatter_dims_to_operand_dims")?,
                        index_vector_dim: self.field_int(d, "index_vector_dim", 0)?,
                        input_batching_dims: self.field(d, "input_batching_dims")?,
                        scatter_indices_batching_dims: self
                            .field(d, "scatter_indices_batching_dims")?,
                    },
                    indices_are_sorted: self.flag(op, "indices_are_sorted"),
                    unique_indices: self.flag(op, "unique_indices"),
                };
                let x = self.operands(c, op)?;
                return self.results_of(c, op, hlo, x, vec![f]);
            }
            "sort" => {
                return self.with_region(c, op, "comparator", |lw, rank| {
                    let dimension = if op.attr("dimension").is_some() {
                        lw.int(op, "dimension")?
                    } else {
                        -1
                    };
                    let dimension = if dimension < 0 {
                        dimension + rank as i64
                    } else {
                        dimension
                    };
                    let is_stable = lw.flag(op, "is_stable");
                    Ok(Op::Sort {
                        dimension,
                        is_stable,
                    })
                });
            }
            "map" => {
                return self.with_region(c, op, "computation", |lw, _| {
                    let dimensions = lw.ints(op, "dimensions")?;
                    Ok(Op::Map { dimensions })
                });
            }
            "while" => return self.while_loop(c, op),
            "case" | "if" => return self.conditional(c, op, name == "if"),
            "func.call" | "call" | "composite" => {
                let key = if name == "composite" {
                    "decomposition"
                } else {
                    "callee"
                };
                let a = self.attr(op, key)?;
                let Attr::Symbol(callee) = &a.value else {
                    return self.err(a.pos, format!("'{key}' must be a function symbol"));
                };
                let f = self.func_comp(callee, a.pos)?;
                let x = self.operands(c, op)?;
                let root = self.comps[f].root_inst().shape.clone();
                let id = self.add(c, pos, Op::Call, root, x, vec![f])?;
                return if op.result_types.len() == 1 {
                    Ok(vec![id])
                } else {
                    self.untuple(c, pos, id)
                };
            }
            "tuple" => Op::Tuple,
            "get_tuple_element" => Op::GetTupleElement {
                index: self.int(op, "index")?,
            },
            "optimization_barrier" => {
                let x = self.operands(c, op)?;
                let t = self.tuple(c, pos, x)?;
                let s = c.shape(t).clone();
                let b = self.add(c, pos, Op::OptimizationBarrier, s, vec![t], vec![])?;
                return self.untuple(c, pos, b);
            }
            "after_all" | "create_token" => Op::AfterAll,
            "partition_id" => Op::PartitionId,
            "replica_id" => Op::ReplicaId,
            "rng_bit_generator" => {
                let (a, ap) = self
                    .enum_of(op, "rng_algorithm")?
                    .unwrap_or(("DEFAULT".into(), pos));
                let algorithm = match a.as_str() {
                    "DEFAULT" => RngAlgorithm::Default,
                    "THREE_FRY" => RngAlgorithm::ThreeFry,
                    "PHILOX" => RngAlgorithm::Philox,
                    _ => {
                        return self.err(
                            ap,
                            format!(
                            "unknown rng algorithm '{a}' (expected DEFAULT, THREE_FRY or PHILOX)"
                        ),
                        )
                    }
                };
                let x = self.operands(c, op)?;
                return self.results_of(c, op, Op::RngBitGenerator { algorithm }, x, vec![]);
            }
            "custom_call" => return self.custom_call(c, op),
            "all_reduce" => {
                return self.with_region(c, op, "reducer", |lw, _| {
                    Ok(Op::AllReduce(lw.replica_groups(op)?))
                });
            }
            "all_gather" => Op::AllGather {
                collective: self.replica_groups(op)?,
                dimension: self.int(op, "all_gather_dim")?,
            },
            "reduce_scatter" => {
                return self.with_region(c, op, "reducer", |lw, _| {
                    Ok(Op::ReduceScatter {
                        collective: lw.replica_groups(op)?,
                        dimension: lw.int(op, "scatter_dimension")?,
                    })
                });
            }
            "collective_permute" => {
                let flat = self.ints_or(op, "source_target_pairs", vec![])?;
                if flat.len() % 2 != 0 {
                    return self.err(pos, "source_target_pairs must be N×2");
                }
                Op::CollectivePermute {
                    channel_id: self.channel(op)?,
                    source_target_pairs: flat.chunks(2).map(|p| (p[0], p[1])).collect(),
                }
            }
            "collective_broadcast" => Op::CollectiveBroadcast(self.replica_groups(op)?),
            "all_to_all" => return self.all_to_all(c, op),
            "chlo.square" => {
                let x = self.operands(c, op)?;
                let s = self.one_result(op)?;
                let x0 = *x.first().ok_or_else(|| {
                    ParseError::at(self.src, pos, "chlo.square needs one operand")
                })?;
                return Ok(vec![self.add(
                    c,
                    pos,
                    Op::Binary(BinaryOp::Multiply),
                    s,
                    vec![x0, x0],
                    vec![],
                )?]);
            }
            "chlo.top_k" => {
                let k = self.int(op, "k")?;
                let largest = !matches!(
                    op.attr("largest").map(|a| &a.value),
                    Some(Attr::Bool(false))
                );
                let x = self.operands(c, op)?;
                return self.results_of(c, op, Op::TopK { k, largest }, x, vec![]);
            }
            "chlo.erf_inv" | "chlo.erfc" => return super::chlo::lower(self, c, op),
            "chlo.sinh" | "chlo.cosh" => return super::chlo::hyperbolic(self, c, op),
            "chlo.lgamma" | "chlo.digamma" => return super::chlo::gamma_family(self, c, op),
            "fft" => {
                // `fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 8>`
                // (the pretty form's `type = FFT, length = [8]` reads the same).
                let (name, at) = match self.enum_of(op, "fft_type")? {
                    Some(x) => x,
                    None => {
                        return self.err(pos, "fft needs its 'type' (FFT, IFFT, RFFT or IRFFT)")
                    }
                };
                let Some(fft_type) = FftType::from_name(&name) else {
                    return self.err(
                        at,
                        format!("unknown fft type '{name}' (expected FFT, IFFT, RFFT or IRFFT)"),
                    );
                };
                let fft_length = self.ints(op, "fft_length")?;
                let x = self.operands(c, op)?;
                return self.results_of(
                    c,
                    op,
                    Op::Fft {
                        fft_type,
                        fft_length,
                    },
                    x,
                    vec![],
                );
            }
            "func.return" | "return" => return self.err(pos, "a return in the middle of a region"),
            _ => return self.err(pos, format!("unsupported operation '{}'", op.name)),
        };
        let x = self.operands(c, op)?;
        let s = self.one_result(op)?;
        Ok(vec![self.add(c, pos, hlo, s, x, vec![])?])
    }

    /// `broadcast_in_dim`: HLO's `broadcast` needs each mapped operand
    /// dimension to equal the result's; size-1 dimensions that expand are
    /// reshaped away first (as XLA does).
    /// `all_to_all` of one operand, as XLA's builder writes it: an HLO
    /// `all-to-all` along `split_dimension`, and where the concatenation is
    /// along another dimension, a reshape that splits the received chunks
    /// out, a transpose that moves them before `concat_dimension`, and a
    /// reshape to the result.
    fn all_to_all(&mut self, c: &mut Comp, op: &MOp) -> LResult<Vec<InstId>> {
        let pos = op.pos;
        let x = self.operands(c, op)?;
        let [x0] = x[..] else {
            return self.err(
                pos,
                format!(
                    "all_to_all of {} operands is not supported (hlox reads one)",
                    x.len()
                ),
            );
        };
        let out = self.one_result(op)?;
        let split = self.int(op, "split_dimension")?;
        let concat = self.int(op, "concat_dimension")?;
        let count = self.int(op, "split_count")?;
        let collective = self.replica_groups(op)?;
        let in_shape = c.shape(x0).clone();
        let Some(a) = in_shape.as_array().cloned() else {
            return self.err(pos, "all_to_all takes an array");
        };
        let rank = a.rank() as i64;
        if !(0..rank).contains(&split) || !(0..rank).contains(&concat) {
            return self.err(
                pos,
                format!("split_dimension {split} or concat_dimension {concat} is out of range for rank {rank}"),
            );
        }
        if count <= 0 || a.dims[split as usize] % count != 0 {
            return self.err(
                pos,
                format!(
                    "split_count {count} does not divide dimension {split} ({})",
                    a.dims[split as usize]
                ),
            );
        }
        let hlo = Op::AllToAll {
            collective,
            split_dimension: Some(split),
        };
        let all = self.add(c, pos, hlo, in_shape, vec![x0], vec![])?;
        if split == concat {
            if c.shape(all) != &out {
                return self.err(pos, "the result type of all_to_all is not its operand's");
            }
            return Ok(vec![all]);
        }
        let mut sizes = Vec::with_capacity(a.dims.len() + 1);
        for (i, &d) in a.dims.iter().enumerate() {
            if i as i64 == split {
                sizes.push(count);
                sizes.push(d / count);
            } else {
                sizes.push(d);
            }
        }
        let mut perm = Vec::with_capacity(sizes.len());
        for i in 0..rank {
            if i == concat {
                perm.push(split);
            }
            perm.push(if i >= split { i + 1 } else { i });
        }
        let split_shape = Shape::Array(ArrayShape::new(a.ty, sizes.clone()));
        let r = self.add(c, pos, Op::Reshape, split_shape, vec![all], vec![])?;
        let moved: Vec<i64> = perm.iter().map(|&p| sizes[p as usize]).collect();
        let moved = Shape::Array(ArrayShape::new(a.ty, moved));
        let t = self.add(
            c,
            pos,
            Op::Transpose { dimensions: perm },
            moved,
            vec![r],
            vec![],
        )?;
        Ok(vec![self.add(c, pos, Op::Reshape, out, vec![t], vec![])?])
    }

    fn broadcast_in_dim(&mut self, c: &mut Comp, op: &MOp) -> LResult<Vec<InstId>> {
        let dims = self.ints(op, "broadcast_dimensions")?;
        let s = self.one_result(op)?;
        let x = self.operands(c, op)?;
        let (Some(&x0), Some(out)) = (x.first(), s.as_array()) else {
            return self.err(
                op.pos,
                "broadcast_in_dim needs one tensor operand and a tensor result",
            );
        };
        let Some(inp) = c.shape(x0).as_array().cloned() else {
            return self.err(op.pos, "broadcast_in_dim of a non-tensor");
        };
        if dims.len() != inp.rank() {
            return self.err(
                op.pos,
                format!(
                    "broadcast_dimensions has {} entries for an operand of rank {}",
                    dims.len(),
                    inp.rank()
                ),
            );
        }
        let keep: Vec<usize> = (0..dims.len())
            .filter(|&i| {
                let d = dims[i];
                !(inp.dims[i] == 1
                    && usize::try_from(d)
                        .ok()
                        .and_then(|d| out.dims.get(d))
                        .is_some_and(|&o| o != 1))
            })
            .collect();
        let mut src = x0;
        if keep.len() != dims.len() {
            let shape = Shape::Array(ArrayShape::new(
                inp.ty,
                keep.iter().map(|&i| inp.dims[i]).collect::<Vec<_>>(),
            ));
            src = self.add(c, op.pos, Op::Reshape, shape, vec![x0], vec![])?;
        }
        let dimensions = keep.iter().map(|&i| dims[i]).collect();
        Ok(vec![self.add(
            c,
            op.pos,
            Op::Broadcast { dimensions },
            s,
            vec![src],
            vec![],
        )?])
    }

    fn window(
        &self,
        op: &MOp,
        rank: usize,
        size_key: &str,
        stride_key: &str,
        dil: Option<(&str, &str)>,
    ) -> LResult<Window> {
        let sizes = self.ints(op, size_key)?;
        if sizes.len() != rank {
            return self.err(
                op.pos,
                format!("{size_key} has {} entries for rank {rank}", sizes.len()),
            );
        }
        let strides = self.ints_or(op, stride_key, vec![1; rank])?;
        let (base, wd) = match dil {
            Some((b, w)) => (
                self.ints_or(op, b, vec![1; rank])?,
                self.ints_or(op, w, vec![1; rank])?,
            ),
            None => (vec![1; rank], vec![1; rank]),
        };
        let pad = self.padding(op, rank)?;
        if strides.len() != rank || base.len() != rank || wd.len() != rank {
            return self.err(op.pos, "window attribute lists differ in length");
        }
        Ok(Window {
            dims: (0..rank)
                .map(|i| WindowDim {
                    size: sizes[i],
                    stride: strides[i],
                    pad_lo: pad[i].0,
                    pad_hi: pad[i].1,
                    window_dilation: wd[i],
                    base_dilation: base[i],
                    reversal: false,
                })
                .collect(),
        })
    }

    fn convolution(&self, c: &Comp, op: &MOp) -> LResult<Op> {
        let a = self.attr(op, "conv_dims")?;
        let Attr::Array(specs) = &a.value else {
            return self.err(a.pos, "bad conv dimension numbers");
        };
        let letters = |i: usize| -> Vec<String> {
            match specs.get(i) {
                Some(Attr::Array(v)) => v
                    .iter()
                    .map(|e| {
                        if let Attr::Enum(s) = e {
                            s.clone()
                        } else {
                            String::new()
                        }
                    })
                    .collect(),
                _ => Vec::new(),
            }
        };
        let (inp, ker, out) = (letters(0), letters(1), letters(2));
        let spatial = |v: &[String]| -> LResult<Vec<i64>> {
            let n = v.iter().filter(|s| s.parse::<usize>().is_ok()).count();
            let mut out = vec![-1i64; n];
            for (pos, s) in v.iter().enumerate() {
                if let Ok(k) = s.parse::<usize>() {
                    match out.get_mut(k) {
                        Some(slot) if *slot < 0 => *slot = pos as i64,
                        _ => {
                            return self.err(
                                a.pos,
                                format!("bad spatial dimension {k} in conv dimension numbers"),
                            )
                        }
                    }
                }
            }
            Ok(out)
        };
        let find = |v: &[String], l: &str| -> LResult<i64> {
            match v.iter().position(|s| s == l) {
                Some(p) => Ok(p as i64),
                None => self.err(a.pos, format!("conv dimension numbers lack '{l}'")),
            }
        };
        let dnums = ConvDimensionNumbers {
            input_batch_dimension: find(&inp, "b")?,
            input_feature_dimension: find(&inp, "f")?,
            input_spatial_dimensions: spatial(&inp)?,
            kernel_input_feature_dimension: find(&ker, "i")?,
            kernel_output_feature_dimension: find(&ker, "o")?,
            kernel_spatial_dimensions: spatial(&ker)?,
            output_batch_dimension: find(&out, "b")?,
            output_feature_dimension: find(&out, "f")?,
            output_spatial_dimensions: spatial(&out)?,
        };
        let n = dnums.kernel_spatial_dimensions.len();
        let kshape = op
            .operands
            .get(1)
            .map(|r| self.value(c, r))
            .transpose()?
            .and_then(|k| c.shape(k).as_array().cloned());
        let Some(kshape) = kshape else {
            return self.err(op.pos, "convolution needs a tensor kernel");
        };
        let strides = self.ints_or(op, "window_strides", vec![1; n])?;
        let pad = self.padding(op, n)?;
        let lhs = self.ints_or(op, "lhs_dilation", vec![1; n])?;
        let rhs = self.ints_or(op, "rhs_dilation", vec![1; n])?;
        let rev = self.ints_or(op, "window_reversal", vec![0; n])?;
        if strides.len() != n || lhs.len() != n || rhs.len() != n || rev.len() != n {
            return self.err(op.pos, "convolution window lists differ in length");
        }
        let mut dims = Vec::with_capacity(n);
        for i in 0..n {
            let kd = dnums.kernel_spatial_dimensions[i];
            let size = usize::try_from(kd)
                .ok()
                .and_then(|d| kshape.dims.get(d).copied())
                .unwrap_or(0);
            dims.push(WindowDim {
                size,
                stride: strides[i],
                pad_lo: pad[i].0,
                pad_hi: pad[i].1,
                window_dilation: rhs[i],
                base_dilation: lhs[i],
                reversal: rev[i] != 0,
            });
        }
        let group = |k: &str| -> LResult<i64> {
            if op.attr(k).is_some() {
                self.int(op, k)
            } else {
                Ok(1)
            }
        };
        Ok(Op::Convolution(Convolution {
            window: Window { dims },
            dnums,
            feature_group_count: group("feature_group_count")?,
            batch_group_count: group("batch_group_count")?,
            precision: self.precision(op)?,
        }))
    }

    /// `while`: one tuple of the loop variables and of the values its
    /// regions use from outside (passed through the body unchanged).
    fn while_loop(&mut self, c: &mut Comp, op: &MOp) -> LResult<Vec<InstId>> {
        let (Some(cond), Some(body)) = (op.regions.first(), op.regions.get(1)) else {
            return self.err(
                op.pos,
                "'stablehlo.while' needs a condition and a body region",
            );
        };
        let caps = self.captures(c, &[cond, body], op.pos)?;
        let mut init = self.operands(c, op)?;
        let n = init.len();
        init.extend(caps.iter().flat_map(|k| k.ids.iter().copied()));
        let t = self.tuple(c, op.pos, init)?;
        let cname = self.comp_name(&format!("region_cond_{}", self.next_id + 1));
        let cc = self.region_comp(cond, cname, Params::Tuple, &caps, false)?;
        let bname = self.comp_name(&format!("region_body_{}", self.next_id + 1));
        let bc = self.region_comp(body, bname, Params::Tuple, &caps, true)?;
        let s = c.shape(t).clone();
        let w = self.add(c, op.pos, Op::While, s, vec![t], vec![cc, bc])?;
        let mut all = self.untuple(c, op.pos, w)?;
        all.truncate(n);
        Ok(all)
    }

    /// `case`/`if`: a `conditional` whose every branch takes one tuple of
    /// the values the branches use from outside.
    fn conditional(&mut self, c: &mut Comp, op: &MOp, is_if: bool) -> LResult<Vec<InstId>> {
        let regions: Vec<&MRegion> = op.regions.iter().collect();
        if regions.is_empty() || (is_if && regions.len() != 2) {
            return self.err(
                op.pos,
                format!("'{}' has the wrong number of branches", op.name),
            );
        }
        let caps = self.captures(c, &regions, op.pos)?;
        let capvals: Vec<InstId> = caps.iter().flat_map(|k| k.ids.iter().copied()).collect();
        let arg = self.tuple(c, op.pos, capvals)?;
        let idx = self.operands(c, op)?;
        let Some(&i0) = idx.first() else {
            return self.err(op.pos, "a case needs an index operand");
        };
        let mut branches = Vec::new();
        for r in &regions {
            let name = self.comp_name(&format!("region_branch_{}", self.next_id + 1));
            branches.push(self.region_comp(r, name, Params::Tuple, &caps, false)?);
        }
        let mut operands = vec![i0];
        operands.extend(std::iter::repeat_n(arg, branches.len()));
        let shapes = self.result_shapes(op)?;
        let shape = if shapes.len() == 1 {
            shapes[0].clone()
        } else {
            Shape::Tuple(shapes.clone())
        };
        let k = self.add(c, op.pos, Op::Conditional, shape, operands, branches)?;
        if shapes.len() == 1 {
            Ok(vec![k])
        } else {
            self.untuple(c, op.pos, k)
        }
    }

    /// `custom_call @target(...) {backend_config, api_version, layouts, aliases}`.
    fn custom_call(&mut self, c: &mut Comp, op: &MOp) -> LResult<Vec<InstId>> {
        let a = self.attr(op, "call_target_name")?;
        let target = match &a.value {
            Attr::Symbol(s) => s.clone(),
            Attr::Str(s) => String::from_utf8_lossy(s).into_owned(),
            _ => return self.err(a.pos, "call_target_name must be a symbol or a string"),
        };
        let mut api_version = match op.attr("api_version") {
            Some(AttrEntry {
                value: Attr::Int(v),
                pos,
                ..
            }) => CustomCallApiVersion::from_proto_value(i32::try_from(*v).unwrap_or(-1))
                .ok_or_else(|| {
                    ParseError::at(
                        self.src,
                        *pos,
                        format!("unknown custom-call api_version {v}"),
                    )
                })?,
            Some(e) => return self.err(e.pos, "api_version must be an integer"),
            None => CustomCallApiVersion::Original,
        };
        // The typed FFI's attributes: a dictionary, handed on as its text.
        let dict = |e: &AttrEntry| -> Option<Vec<u8>> {
            matches!(e.value, Attr::Dict(_))
                .then(|| self.src.as_bytes()[e.span.0..e.span.1].to_vec())
        };
        let opaque = match (op.attr("backend_config"), op.attr("mhlo.backend_config")) {
            (_, Some(e)) if dict(e).is_some() => {
                api_version = CustomCallApiVersion::TypedFfi;
                dict(e).unwrap_or_default()
            }
            (Some(e), _) if dict(e).is_some() => dict(e).unwrap_or_default(),
            (
                Some(AttrEntry {
                    value: Attr::Str(s),
                    ..
                }),
                _,
            ) => s.clone(),
            (Some(e), _) => {
                return self.err(e.pos, "backend_config must be a string or a dictionary")
            }
            (None, _) => Vec::new(),
        };
        let layout = |e: &Attr, shape: &Shape, pos: usize| -> LResult<Shape> {
            let m2m = self.ints_of(e, pos, "a layout")?;
            let mut s = shape.clone();
            if let Shape::Array(arr) = &mut s {
                let l = Layout {
                    minor_to_major: m2m,
                };
                if !l.is_valid_for_rank(arr.rank()) {
                    return self.err(
                        pos,
                        format!(
                            "layout {:?} does not fit rank {}",
                            l.minor_to_major,
                            arr.rank()
                        ),
                    );
                }
                arr.layout = l;
            }
            Ok(s)
        };
        let x = self.operands(c, op)?;
        let operand_layout_constraints = match op.attr("operand_layouts") {
            Some(AttrEntry {
                value: Attr::Array(ls),
                pos,
                ..
            }) if ls.len() == x.len() => Some(
                ls.iter()
                    .zip(&x)
                    .map(|(l, &o)| layout(l, c.shape(o), *pos))
                    .collect::<LResult<Vec<_>>>()?,
            ),
            Some(e) => return self.err(e.pos, "operand_layouts must have one layout per operand"),
            None => None,
        };
        let mut shapes = self.result_shapes(op)?;
        if let Some(e) = op.attr("result_layouts") {
            match &e.value {
                Attr::Array(ls) if ls.len() == shapes.len() => {
                    for (s, l) in shapes.iter_mut().zip(ls) {
                        *s = layout(l, s, e.pos)?;
                    }
                }
                _ => return self.err(e.pos, "result_layouts must have one layout per result"),
            }
        }
        let aliasing = self.array_items(op, "output_operand_aliases", |lw, e, pos| {
            let Attr::Struct(_, f) = e else {
                return lw.err(pos, "bad output_operand_alias");
            };
            Ok(OutputOperandAlias {
                output_index: lw.field(f, "output_tuple_indices")?,
                operand: lw.field_int(f, "operand_index", 0)?,
                operand_index: lw.field(f, "operand_tuple_indices")?,
            })
        })?;
        let called = self.array_items(op, "called_computations", |lw, s, pos| {
            let Attr::Symbol(s) = s else {
                return lw.err(pos, "called_computations must be symbols");
            };
            lw.func_comp(s, pos)
        })?;
        let frontend: Vec<(String, String)> = match op.attr("mhlo.frontend_attributes") {
            Some(AttrEntry {
                value: Attr::Dict(d),
                ..
            }) => d
                .iter()
                .map(|e| {
                    let v = match &e.value {
                        Attr::Str(s) => String::from_utf8_lossy(s).into_owned(),
                        _ => self.src[e.span.0..e.span.1].to_string(),
                    };
                    (e.key.clone(), v)
                })
                .collect(),
            _ => Vec::new(),
        };
        let cc = CustomCall {
            target,
            opaque,
            has_side_effect: self.flag(op, "has_side_effect"),
            output_operand_aliasing: aliasing,
            schedule: CustomCallSchedule::None,
            api_version,
            operand_layout_constraints,
        };
        let shape = if shapes.len() == 1 {
            shapes[0].clone()
        } else {
            Shape::Tuple(shapes.clone())
        };
        let id = self.add(c, op.pos, Op::CustomCall(Box::new(cc)), shape, x, called)?;
        c.insts[id].frontend_attributes = frontend;
        if shapes.len() == 1 {
            Ok(vec![id])
        } else {
            self.untuple(c, op.pos, id)
        }
    }

    /// An element-wise `op` (a [`UnaryOp`], a [`BinaryOp`], `Op::Select`)
    /// on `operands`; its result has the shape of the last operand.
    pub(crate) fn emit(
        &mut self,
        c: &mut Comp,
        pos: usize,
        op: impl Into<Op>,
        operands: &[InstId],
    ) -> LResult<InstId> {
        let Some(&last) = operands.last() else {
            return self.err(pos, "an element-wise op needs an operand");
        };
        let s = c.shape(last).clone();
        self.add(c, pos, op.into(), s, operands.to_vec(), vec![])
    }
    /// The array shape of `x`, which must be a tensor.
    pub(crate) fn tensor(&self, c: &Comp, pos: usize, x: InstId) -> LResult<ArrayShape> {
        match c.shape(x).as_array() {
            Some(a) => Ok(a.clone()),
            None => self.err(pos, "expected a tensor"),
        }
    }
    /// A scalar `v` of `x`'s element type, broadcast to `x`'s shape.
    pub(crate) fn emit_splat(
        &mut self,
        c: &mut Comp,
        pos: usize,
        x: InstId,
        v: f64,
    ) -> LResult<InstId> {
        let arr = self.tensor(c, pos, x)?;
        if !arr.ty.is_float() {
            return self.err(pos, "expected a floating-point tensor");
        }
        let lit = ArrayLiteral::from_bytes(ArrayShape::scalar(arr.ty), float_bytes(v, arr.ty))
            .map_err(|e| ParseError::at(self.src, pos, e.to_string()))?;
        let k = self.add(
            c,
            pos,
            Op::Constant {
                literal: Literal::Array(lit),
            },
            Shape::scalar(arr.ty),
            vec![],
            vec![],
        )?;
        self.add(
            c,
            pos,
            Op::Broadcast { dimensions: vec![] },
            Shape::Array(ArrayShape::new(arr.ty, arr.dims.clone())),
            vec![k],
            vec![],
        )
    }
    pub(crate) fn emit_compare(
        &mut self,
        c: &mut Comp,
        pos: usize,
        d: ComparisonDirection,
        x: InstId,
        y: InstId,
    ) -> LResult<InstId> {
        let arr = self.tensor(c, pos, x)?;
        self.add(
            c,
            pos,
            Op::Compare {
                direction: d,
                cmp_type: None,
            },
            Shape::array(ElementType::Pred, arr.dims),
            vec![x, y],
            vec![],
        )
    }
}

pub(crate) use Comp as Computing;

/// How a region's block arguments become parameters.
#[derive(Copy, Clone)]
enum Params {
    Each,
    Tuple,
}

/// A value (all results of one `%name`) used by a region from outside it.
struct Capture {
    name: String,
    ids: Vec<InstId>,
    shapes: Vec<Shape>,
}

/// An MLIR symbol as an HLO name: letters, digits, `_`, `.` and `-`, not
/// starting with a digit (other characters become `_`).
fn hlo_name(s: &str, empty: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        out = empty.to_string();
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

fn float_bytes(f: f64, t: ElementType) -> Vec<u8> {
    match t {
        ElementType::F16 => half::f16::from_f64(f).to_le_bytes().to_vec(),
        ElementType::Bf16 => half::bf16::from_f64(f).to_le_bytes().to_vec(),
        ElementType::F32 => (f as f32).to_le_bytes().to_vec(),
        _ => f.to_le_bytes().to_vec(),
    }
}

fn unary(name: &str) -> Option<UnaryOp> {
    use UnaryOp as U;
    Some(match name {
        "abs" => U::Abs,
        "negate" => U::Negate,
        "sign" => U::Sign,
        "not" => U::Not,
        "exponential" => U::Exp,
        "exponential_minus_one" => U::Expm1,
        "log" => U::Log,
        "log_plus_one" => U::Log1p,
        "sqrt" => U::Sqrt,
        "rsqrt" => U::Rsqrt,
        "cbrt" => U::Cbrt,
        "tanh" => U::Tanh,
        "logistic" => U::Logistic,
        "sine" => U::Sin,
        "cosine" => U::Cos,
        "tan" | "chlo.tan" => U::Tan,
        "floor" => U::Floor,
        "ceil" => U::Ceil,
        "round_nearest_afz" => U::RoundNearestAfz,
        "round_nearest_even" => U::RoundNearestEven,
        "is_finite" => U::IsFinite,
        "popcnt" => U::PopulationCount,
        "count_leading_zeros" => U::CountLeadingZeros,
        "chlo.erf" => U::Erf,
        "real" => U::Real,
        "imag" => U::Imag,
        _ => return None,
    })
}

fn binary(name: &str) -> Option<BinaryOp> {
    use BinaryOp as B;
    Some(match name {
        "add" => B::Add,
        "subtract" => B::Subtract,
        "complex" => B::Complex,
        "multiply" => B::Multiply,
        "divide" => B::Divide,
        "remainder" => B::Remainder,
        "power" => B::Power,
        "maximum" => B::Maximum,
        "minimum" => B::Minimum,
        "and" => B::And,
        "or" => B::Or,
        "xor" => B::Xor,
        "shift_left" => B::ShiftLeft,
        "shift_right_logical" => B::ShiftRightLogical,
        "shift_right_arithmetic" => B::ShiftRightArithmetic,
        "atan2" => B::Atan2,
        _ => return None,
    })
}

/// Lowers a parsed module: the entry is `@main` (or the only function).
pub(crate) fn lower(m: &MModule, src: &str) -> LResult<Module> {
    let mut lw = Lowerer {
        src,
        funcs: HashMap::new(),
        done: HashMap::new(),
        active: HashSet::new(),
        comps: PrimaryMap::new(),
        comp_names: HashSet::new(),
        next_id: 0,
        meshes: Vec::new(),
    };
    let (meshes_attr, meshes) = super::sdy::meshes(&lw, &m.meshes)?;
    lw.meshes = meshes;
    for f in &m.funcs {
        if lw.funcs.insert(f.name.as_str(), f).is_some() {
            return Err(ParseError::at(
                src,
                f.pos,
                format!("function '@{}' is defined twice", f.name),
            ));
        }
    }
    let entry = match (lw.funcs.get("main"), m.funcs.as_slice()) {
        (Some(f), _) => *f,
        (None, [f]) => f,
        (None, []) => return Err(ParseError::at(src, src.len(), "the module has no function")),
        (None, _) => {
            return Err(ParseError::at(
                src,
                0,
                "the module has several functions and none is '@main'",
            ))
        }
    };
    let entry_id = lw.func_comp(&entry.name.clone(), entry.pos)?;
    let name = hlo_name(m.name.as_deref().unwrap_or("module"), "module");
    Ok(Module {
        name,
        computations: lw.comps,
        entry: entry_id,
        input_output_alias: Vec::new(),
        is_scheduled: false,
        frontend_attributes: meshes_attr.into_iter().collect(),
    })
}
