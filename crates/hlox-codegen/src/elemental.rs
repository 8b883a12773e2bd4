//! Per-instruction element generators (XLA's ElementalIrEmitter).
//!
//! [`ElementalCtx::gen`] emits the code computing the element at a logical
//! index of an instruction, as a list of values (one per leaf of the
//! instruction's shape: tuple-shaped instructions such as variadic reduces
//! yield several). Operands are generated recursively unless they are
//! *sources* (values held in buffers or given as scalars), so that the same
//! code emits an unfused instruction (its operands are sources), a loop or
//! input fusion (the fused parameters are sources), and a reducer or map
//! computation inlined as scalar code (its parameters are scalar sources).

use crate::loops::{for_range, for_range_step};
use crate::{scalar, unsupported, Cg, CodegenError, Result};
use hlox_hlo::{
    ArrayShape, BinaryOp, CompId, Computation, ElementType, InstId, Instruction, Layout, Literal,
    Module, Op, Shape,
};
use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;
use std::collections::HashMap;

/// Stack left below which [`ElementalCtx::gen`] continues on a new segment,
/// and each segment's size (one `gen_uncached` frame is a few KiB in a
/// debug build; the LLVM calls under it need more).
const ELEMENTAL_RED_ZONE: usize = 256 << 10;
const ELEMENTAL_STACK_SEGMENT: usize = 4 << 20;

type V<'ctx> = BasicValueEnum<'ctx>;
/// Generated values by (instruction, index values).
type Cache<'ctx> = HashMap<(InstId, Vec<usize>), Vec<V<'ctx>>>;

/// A value available to generators without emitting its instruction.
#[derive(Clone, Debug)]
pub enum Leaf<'ctx> {
    /// An array in memory, laid out as `shape` says.
    Buffer {
        ptr: PointerValue<'ctx>,
        shape: ArrayShape,
    },
    /// A scalar compute value.
    Scalar(V<'ctx>),
    /// A token (no data).
    Token,
}

/// Number of leaves (arrays and tokens) of a shape.
pub fn leaf_count(s: &Shape) -> usize {
    match s {
        Shape::Tuple(t) => t.iter().map(leaf_count).sum(),
        _ => 1,
    }
}

/// True when `gen` can produce every element of `inst` without a buffer
/// of its own (the instruction can be part of a loop nest).
pub fn is_elemental(module: &Module, comp: &Computation, id: InstId) -> bool {
    let inst = comp.inst(id);
    match &inst.op {
        op if op.is_elementwise() || op.opcode().is_data_movement() => true,
        Op::Parameter { .. }
        | Op::Constant { .. }
        | Op::Iota { .. }
        | Op::DynamicUpdateSlice
        | Op::Tuple
        | Op::GetTupleElement { .. }
        | Op::OptimizationBarrier => true,
        Op::BitcastConvert => {
            let a = comp.inst(inst.operands[0]).shape.element_type();
            let b = inst.shape.element_type();
            matches!((a, b), (Some(a), Some(b)) if a.bit_width() == b.bit_width())
        }
        Op::Reduce { .. } | Op::Map { .. } | Op::ReduceWindow { .. } => inst
            .called
            .first()
            .is_some_and(|&c| is_scalar_computation(module, c)),
        _ => false,
    }
}

/// True when the fused computation `fused` can be generated element by
/// element (every instruction elemental, every result leaf an array): both
/// backends then emit the fusion as one loop nest (Host) or one
/// one-thread-per-element kernel (CUDA).
pub fn fusion_is_elemental(module: &Module, fused: CompId) -> bool {
    let Some(c) = module.computations.get(fused) else {
        return false;
    };
    c.root_inst()
        .shape
        .leaves()
        .iter()
        .all(|(_, s)| s.is_array())
        && c.instructions.keys().all(|id| is_elemental(module, c, id))
}

/// True when every instruction of `comp` can be emitted as scalar code.
pub fn is_scalar_computation(module: &Module, comp: CompId) -> bool {
    let Some(c) = module.computations.get(comp) else {
        return false;
    };
    c.instructions.iter().all(|(id, i)| {
        i.shape.leaves().iter().all(|(_, s)| match s {
            Shape::Array(a) => a.rank() == 0,
            _ => false,
        }) && is_elemental(module, c, id)
    })
}

/// Generator state for one computation.
pub struct ElementalCtx<'m, 'ctx> {
    pub module: &'m Module,
    pub comp: &'m Computation,
    pub sources: HashMap<InstId, Vec<Leaf<'ctx>>>,
    cache: Vec<Cache<'ctx>>,
    /// Prefix for names of globals created for constants.
    pub const_prefix: String,
    /// Number of `reduce` instructions whose element code was generated
    /// (each one is a loop in the emitted code).
    pub reduces_generated: usize,
    /// Values that are the same at every index the generator asks for:
    /// instructions computed before the element loop (a GPU row kernel's
    /// reductions of the row being generated).
    pub fixed: HashMap<InstId, Vec<V<'ctx>>>,
}

/// Create (or reuse) a private constant global holding `bytes`.
pub fn const_global<'ctx>(cg: &Cg<'_, 'ctx>, name: &str, bytes: &[u8]) -> PointerValue<'ctx> {
    if let Some(g) = cg.module.get_global(name) {
        return g.as_pointer_value();
    }
    let data = if bytes.is_empty() { &[0u8][..] } else { bytes };
    let init = cg.ctx.const_string(data, false);
    let g = cg.module.add_global(init.get_type(), None, name);
    g.set_initializer(&init);
    g.set_constant(true);
    g.set_linkage(inkwell::module::Linkage::Private);
    g.set_alignment(64);
    g.as_pointer_value()
}

/// The compute value of a scalar stored as bytes.
pub fn scalar_const<'ctx>(cg: &Cg<'_, 'ctx>, ty: ElementType, bytes: &[u8]) -> Result<V<'ctx>> {
    if ty.is_complex() {
        return crate::complex::constant(cg, ty, bytes);
    }
    let mut raw = [0u8; 8];
    let n = ty.byte_size().min(8).min(bytes.len());
    raw[..n].copy_from_slice(&bytes[..n]);
    let bits = u64::from_le_bytes(raw);
    use ElementType::*;
    Ok(match ty {
        Pred => cg.i1().const_int((bits & 0xff != 0) as u64, false).into(),
        F16 => cg.b.build_bit_cast(
            cg.ctx.i16_type().const_int(bits & 0xffff, false),
            cg.ctx.f16_type(),
            "",
        )?,
        Bf16 => cg.ctx.i16_type().const_int(bits & 0xffff, false).into(),
        F32 => cg
            .f32()
            .const_float(f32::from_bits(bits as u32) as f64)
            .into(),
        F64 => cg.f64().const_float(f64::from_bits(bits)).into(),
        _ => cg
            .compute_type(ty)
            .into_int_type()
            .const_int(bits, false)
            .into(),
    })
}

fn arr(inst: &Instruction) -> Result<&ArrayShape> {
    inst.shape
        .as_array()
        .ok_or_else(|| CodegenError::Unsupported {
            inst: inst.name.clone(),
            message: "expected an array shape".into(),
        })
}

impl<'m, 'ctx> ElementalCtx<'m, 'ctx> {
    pub fn new(module: &'m Module, comp: &'m Computation) -> Self {
        ElementalCtx {
            module,
            comp,
            sources: HashMap::new(),
            cache: vec![HashMap::new()],
            const_prefix: format!("const.{}", comp.name),
            reduces_generated: 0,
            fixed: HashMap::new(),
        }
    }

    fn push(&mut self) {
        self.cache.push(HashMap::new());
    }
    fn pop(&mut self) {
        self.cache.pop();
    }

    /// Run `f` with a fresh cache layer, forgotten afterwards: for a loop
    /// the caller emits around `gen` calls (a row fusion's scratch row), so
    /// that no later `gen` reuses a value defined inside that loop's body.
    pub fn scoped<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.push();
        let r = f(self);
        self.pop();
        r
    }

    /// Forget cached element values (call when starting a new element loop).
    pub fn clear_cache(&mut self) {
        self.cache = vec![HashMap::new()];
    }

    fn ashape(&self, id: InstId) -> Result<&'m ArrayShape> {
        arr(self.comp.inst(id))
    }

    /// Generate the element(s) of `id` at logical `index`.
    pub fn gen(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        id: InstId,
        index: &[IntValue<'ctx>],
    ) -> Result<Vec<V<'ctx>>> {
        if let Some(v) = self.fixed.get(&id) {
            return Ok(v.clone());
        }
        if let Some(leaves) = self.sources.get(&id) {
            let mut out = Vec::with_capacity(leaves.len());
            for l in leaves {
                out.push(self.load_leaf(cg, l, index)?);
            }
            return Ok(out);
        }
        let key = (
            id,
            index
                .iter()
                .map(|v| v.as_value_ref() as usize)
                .collect::<Vec<_>>(),
        );
        for layer in self.cache.iter().rev() {
            if let Some(v) = layer.get(&key) {
                return Ok(v.clone());
            }
        }
        // `gen_uncached` recurses into the operands, one frame per
        // instruction of the chain: a fused chain of 10,000 elementwise ops
        // is 10,000 frames. Past the red zone the recursion continues on a
        // new stack segment on the heap, so any chain compiles on any thread
        // (a library thread has 2 MiB).
        let v = stacker::maybe_grow(ELEMENTAL_RED_ZONE, ELEMENTAL_STACK_SEGMENT, || {
            self.gen_uncached(cg, id, index)
        })?;
        if let Some(l) = self.cache.last_mut() {
            l.insert(key, v.clone());
        }
        Ok(v)
    }

    /// The leaves of `id` when it is a source or a get-tuple-element chain of one.
    fn source_leaves(&self, id: InstId) -> Option<Vec<Leaf<'ctx>>> {
        if let Some(l) = self.sources.get(&id) {
            return Some(l.clone());
        }
        let inst = self.comp.inst(id);
        if let Op::GetTupleElement { index } = inst.op {
            let src = *inst.operands.first()?;
            let elems = self.comp.inst(src).shape.tuple_elements()?.to_vec();
            let i = index as usize;
            let start: usize = elems.get(..i)?.iter().map(leaf_count).sum();
            let n = leaf_count(elems.get(i)?);
            return self
                .source_leaves(src)?
                .get(start..start + n)
                .map(|s| s.to_vec());
        }
        None
    }

    fn load_leaf(
        &self,
        cg: &Cg<'_, 'ctx>,
        l: &Leaf<'ctx>,
        index: &[IntValue<'ctx>],
    ) -> Result<V<'ctx>> {
        Ok(match l {
            Leaf::Buffer { ptr, shape } => {
                let idx: &[IntValue] = if shape.rank() == 0 { &[] } else { index };
                let p = cg.element_ptr(*ptr, shape, idx)?;
                cg.load_elem(shape.ty, p)?
            }
            Leaf::Scalar(v) => *v,
            Leaf::Token => cg.i1().const_zero().into(),
        })
    }

    /// The element of array `id` at logical `index` (its only leaf).
    pub fn one(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        id: InstId,
        index: &[IntValue<'ctx>],
    ) -> Result<V<'ctx>> {
        let name = &self.comp.inst(id).name;
        let v = self.gen(cg, id, index)?;
        v.into_iter()
            .next()
            .ok_or_else(|| CodegenError::Unsupported {
                inst: name.clone(),
                message: "no value".into(),
            })
    }

    /// An operand that may be a scalar broadcast implicitly (select, clamp).
    fn maybe_scalar(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        id: InstId,
        index: &[IntValue<'ctx>],
    ) -> Result<V<'ctx>> {
        let rank0 = self
            .comp
            .inst(id)
            .shape
            .as_array()
            .is_some_and(|a| a.rank() == 0);
        if rank0 {
            self.one(cg, id, &[])
        } else {
            self.one(cg, id, index)
        }
    }

    /// A scalar start index as i64 (signed or unsigned per its type).
    fn start_index(&mut self, cg: &Cg<'_, 'ctx>, id: InstId) -> Result<IntValue<'ctx>> {
        let ty = self.ashape(id)?.ty;
        let v = self.one(cg, id, &[])?.into_int_value();
        let w = v.get_type().get_bit_width();
        Ok(if w == 64 {
            v
        } else if ty.is_signed_int() {
            cg.b.build_int_s_extend(v, cg.i64(), "")?
        } else {
            cg.b.build_int_z_extend(v, cg.i64(), "")?
        })
    }

    /// clamp(v, 0, hi) on i64.
    fn clamp_index(&self, cg: &Cg<'_, 'ctx>, v: IntValue<'ctx>, hi: i64) -> Result<IntValue<'ctx>> {
        let b = cg.b;
        let hi = cg.i64c(hi.max(0));
        let lt0 = b.build_int_compare(IntPredicate::SLT, v, cg.i64c(0), "")?;
        let v = b.build_select(lt0, cg.i64c(0), v, "")?.into_int_value();
        let gt = b.build_int_compare(IntPredicate::SGT, v, hi, "")?;
        Ok(b.build_select(gt, hi, v, "")?.into_int_value())
    }

    /// Map an index of `out` to an index of `operand` through a linear
    /// position, using `out`'s and `operand`'s strides.
    fn relinearize(
        &self,
        cg: &Cg<'_, 'ctx>,
        index: &[IntValue<'ctx>],
        out: &ArrayShape,
        operand: &ArrayShape,
    ) -> Result<Vec<IntValue<'ctx>>> {
        let b = cg.b;
        if out.dims == operand.dims && out.layout == operand.layout {
            return Ok(index.to_vec());
        }
        let os = out.strides();
        let mut lin = cg.i64c(0);
        for (d, i) in index.iter().enumerate() {
            if out.dims[d] == 1 {
                continue;
            }
            let t = b.build_int_mul(*i, cg.i64c(os[d] as i64), "")?;
            lin = b.build_int_add(lin, t, "")?;
        }
        let ps = operand.strides();
        let mut res = vec![cg.i64c(0); operand.rank()];
        for d in 0..operand.rank() {
            if operand.dims[d] == 1 {
                continue;
            }
            let q = b.build_int_unsigned_div(lin, cg.i64c(ps[d].max(1) as i64), "")?;
            res[d] = b.build_int_unsigned_rem(q, cg.i64c(operand.dims[d].max(1)), "")?;
        }
        Ok(res)
    }

    /// Inline a scalar computation on argument values (one per parameter leaf).
    pub fn inline_scalar(
        &self,
        cg: &Cg<'_, 'ctx>,
        comp: CompId,
        args: &[V<'ctx>],
    ) -> Result<Vec<V<'ctx>>> {
        let c = self
            .module
            .computations
            .get(comp)
            .ok_or_else(|| CodegenError::Other(format!("no computation {comp}")))?;
        let mut sub = ElementalCtx::new(self.module, c);
        let mut k = 0;
        for &p in &c.params {
            let n = leaf_count(&c.inst(p).shape);
            let vals = args.get(k..k + n).ok_or_else(|| {
                CodegenError::Other(format!(
                    "computation {} called with {} values",
                    c.name,
                    args.len()
                ))
            })?;
            sub.sources
                .insert(p, vals.iter().map(|v| Leaf::Scalar(*v)).collect());
            k += n;
        }
        sub.gen(cg, c.root, &[])
    }

    /// One accumulator per init value of a reduce or reduce-window: a slot
    /// in the function's entry block, holding the init value.
    fn accumulators(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        inits: &[InstId],
    ) -> Result<Vec<(PointerValue<'ctx>, inkwell::types::BasicTypeEnum<'ctx>)>> {
        let mut accs = Vec::with_capacity(inits.len());
        for &i in inits {
            let init = self.one(cg, i, &[])?;
            let a = cg.entry_alloca(init.get_type(), "acc")?;
            cg.b.build_store(a, init)?;
            accs.push((a, init.get_type()));
        }
        Ok(accs)
    }

    /// Emit `cond ? then() : else()` producing `n` values of types given by
    /// the first branch, with cache scoping.
    fn branch(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        cond: IntValue<'ctx>,
        then_: &mut dyn FnMut(&mut Self) -> Result<Vec<V<'ctx>>>,
        else_: &mut dyn FnMut(&mut Self) -> Result<Vec<V<'ctx>>>,
    ) -> Result<Vec<V<'ctx>>> {
        let b = cg.b;
        let f = cg.current_fn()?;
        let tb = cg.ctx.append_basic_block(f, "then");
        let eb = cg.ctx.append_basic_block(f, "else");
        let jb = cg.ctx.append_basic_block(f, "join");
        b.build_conditional_branch(cond, tb, eb)?;
        // One arm in `bb`: its values and the block it ends in.
        let arm = |this: &mut Self,
                   bb: BasicBlock<'ctx>,
                   f: &mut dyn FnMut(&mut Self) -> Result<Vec<V<'ctx>>>|
         -> Result<(Vec<V<'ctx>>, BasicBlock<'ctx>)> {
            b.position_at_end(bb);
            let v = this.scoped(|this| f(this))?;
            let end = b.get_insert_block().unwrap_or(bb);
            b.build_unconditional_branch(jb)?;
            Ok((v, end))
        };
        let (tv, tend) = arm(self, tb, then_)?;
        let (ev, eend) = arm(self, eb, else_)?;
        b.position_at_end(jb);
        let mut out = Vec::new();
        for (t, e) in tv.iter().zip(&ev) {
            let phi = b.build_phi(t.get_type(), "")?;
            phi.add_incoming(&[(t, tend), (e, eend)]);
            out.push(phi.as_basic_value());
        }
        Ok(out)
    }

    fn gen_uncached(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        id: InstId,
        index: &[IntValue<'ctx>],
    ) -> Result<Vec<V<'ctx>>> {
        let inst = self.comp.inst(id);
        let name = inst.name.as_str();
        let ops = inst.operands.clone();
        let b = cg.b;
        let op_ty = |s: &Self, k: usize| -> Result<ElementType> {
            s.comp
                .inst(ops[k])
                .shape
                .element_type()
                .ok_or_else(|| CodegenError::Unsupported {
                    inst: name.to_string(),
                    message: format!("operand {k} is not an array"),
                })
        };
        let single = |v: V<'ctx>| Ok(vec![v]);
        match &inst.op {
            Op::Parameter { number } => unsupported(
                name,
                format!("parameter {number} has no value in this context"),
            ),
            Op::Constant { literal } => {
                let a = match literal {
                    Literal::Array(a) => a,
                    _ => return unsupported(name, "tuple constants are not elemental"),
                };
                let s = a.shape().clone();
                if s.element_count() == 1 {
                    return single(scalar_const(cg, s.ty, a.bytes())?);
                }
                let g = const_global(cg, &format!("{}.{}", self.const_prefix, name), a.bytes());
                let p = cg.element_ptr(g, &s, index)?;
                single(cg.load_elem(s.ty, p)?)
            }
            Op::Iota { dimension } => {
                let s = arr(inst)?;
                let i =
                    *index
                        .get(*dimension as usize)
                        .ok_or_else(|| CodegenError::Unsupported {
                            inst: name.into(),
                            message: "iota dimension out of range".into(),
                        })?;
                single(scalar::convert(cg, ElementType::S64, s.ty, i.into())?)
            }
            Op::Unary(u) => {
                let t = op_ty(self, 0)?;
                let x = self.one(cg, ops[0], index)?;
                single(scalar::unary(cg, *u, t, x).map_err(|e| at(name, e))?)
            }
            Op::Binary(bo) => {
                let t = op_ty(self, 0)?;
                let x = self.one(cg, ops[0], index)?;
                let y = self.one(cg, ops[1], index)?;
                single(scalar::binary(cg, *bo, t, x, y).map_err(|e| at(name, e))?)
            }
            Op::Compare {
                direction,
                cmp_type,
            } => {
                let t = op_ty(self, 0)?;
                let x = self.one(cg, ops[0], index)?;
                let y = self.one(cg, ops[1], index)?;
                single(
                    scalar::compare(cg, *direction, *cmp_type, t, x, y).map_err(|e| at(name, e))?,
                )
            }
            Op::Select => {
                let p = self.maybe_scalar(cg, ops[0], index)?.into_int_value();
                let t = self.one(cg, ops[1], index)?;
                let f = self.one(cg, ops[2], index)?;
                single(b.build_select(p, t, f, "")?)
            }
            Op::Clamp => {
                let t = op_ty(self, 1)?;
                let lo = self.maybe_scalar(cg, ops[0], index)?;
                let x = self.one(cg, ops[1], index)?;
                let hi = self.maybe_scalar(cg, ops[2], index)?;
                single(scalar::clamp(cg, t, lo, x, hi).map_err(|e| at(name, e))?)
            }
            Op::Convert => {
                let t = op_ty(self, 0)?;
                let x = self.one(cg, ops[0], index)?;
                single(scalar::convert(cg, t, arr(inst)?.ty, x).map_err(|e| at(name, e))?)
            }
            Op::BitcastConvert => {
                let t = op_ty(self, 0)?;
                let to = arr(inst)?.ty;
                if t.bit_width() != to.bit_width() {
                    return unsupported(name, "bitcast-convert between widths is not elemental");
                }
                let x = self.one(cg, ops[0], index)?;
                single(scalar::bitcast_convert(cg, t, to, x).map_err(|e| at(name, e))?)
            }
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => {
                let t = op_ty(self, 0)?;
                let x = self.one(cg, ops[0], index)?;
                single(
                    scalar::reduce_precision(cg, t, x, *exponent_bits, *mantissa_bits)
                        .map_err(|e| at(name, e))?,
                )
            }
            Op::Copy | Op::OptimizationBarrier => self.gen(cg, ops[0], index),
            Op::Broadcast { dimensions } => {
                let oi: Vec<IntValue> = dimensions
                    .iter()
                    .map(|&d| index.get(d as usize).copied().unwrap_or_else(|| cg.i64c(0)))
                    .collect();
                self.gen(cg, ops[0], &oi)
            }
            Op::Reshape => {
                let out = arr(inst)?;
                let opnd = self.ashape(ops[0])?;
                if let Some(oi) = degenerate_reshape_index(cg, index, out, opnd) {
                    // Same index values (no arithmetic): cached values of
                    // the operand, such as per-row reductions, are reused.
                    return self.gen(cg, ops[0], &oi);
                }
                let o = out.with_type(out.ty);
                let lo = ArrayShape {
                    layout: Layout::default_for_rank(o.rank()),
                    ..o
                };
                let po = ArrayShape {
                    layout: Layout::default_for_rank(opnd.rank()),
                    ..opnd.clone()
                };
                let oi = self.relinearize(cg, index, &lo, &po)?;
                self.gen(cg, ops[0], &oi)
            }
            Op::Bitcast => {
                let out = arr(inst)?.clone();
                let opnd = self.ashape(ops[0])?.clone();
                if out.ty != opnd.ty {
                    return unsupported(name, "bitcast between element types");
                }
                let oi = self.relinearize(cg, index, &out, &opnd)?;
                self.gen(cg, ops[0], &oi)
            }
            Op::Transpose { dimensions } => {
                let mut oi = vec![cg.i64c(0); dimensions.len()];
                for (i, &d) in dimensions.iter().enumerate() {
                    oi[d as usize] = index[i];
                }
                self.gen(cg, ops[0], &oi)
            }
            Op::Reverse { dimensions } => {
                let s = arr(inst)?;
                let mut oi = index.to_vec();
                for &d in dimensions {
                    let d = d as usize;
                    oi[d] = b.build_int_sub(cg.i64c(s.dims[d] - 1), index[d], "")?;
                }
                self.gen(cg, ops[0], &oi)
            }
            Op::Slice { dims } => {
                let mut oi = Vec::with_capacity(dims.len());
                for (d, sd) in dims.iter().enumerate() {
                    let t = if sd.stride == 1 {
                        index[d]
                    } else {
                        b.build_int_mul(index[d], cg.i64c(sd.stride), "")?
                    };
                    oi.push(if sd.start == 0 {
                        t
                    } else {
                        b.build_int_add(t, cg.i64c(sd.start), "")?
                    });
                }
                self.gen(cg, ops[0], &oi)
            }
            Op::DynamicSlice { sizes } => {
                let opnd = self.ashape(ops[0])?.clone();
                let mut oi = Vec::with_capacity(sizes.len());
                for (d, &sz) in sizes.iter().enumerate() {
                    let s = self.start_index(cg, ops[1 + d])?;
                    let s = self.clamp_index(cg, s, opnd.dims[d] - sz)?;
                    oi.push(b.build_int_add(index[d], s, "")?);
                }
                self.gen(cg, ops[0], &oi)
            }
            Op::DynamicUpdateSlice => {
                let opnd = self.ashape(ops[0])?.clone();
                let upd = self.ashape(ops[1])?.clone();
                let mut starts = Vec::new();
                let mut inside = cg.i1().const_int(1, false);
                let mut ui = Vec::new();
                for d in 0..opnd.rank() {
                    let s = self.start_index(cg, ops[2 + d])?;
                    let s = self.clamp_index(cg, s, opnd.dims[d] - upd.dims[d])?;
                    starts.push(s);
                    let rel = b.build_int_sub(index[d], s, "")?;
                    let ge = b.build_int_compare(IntPredicate::SGE, rel, cg.i64c(0), "")?;
                    let lt =
                        b.build_int_compare(IntPredicate::SLT, rel, cg.i64c(upd.dims[d]), "")?;
                    inside = b.build_and(inside, ge, "")?;
                    inside = b.build_and(inside, lt, "")?;
                    ui.push(rel);
                }
                let (o0, o1) = (ops[0], ops[1]);
                let idx = index.to_vec();
                self.branch(cg, inside, &mut |s| s.gen(cg, o1, &ui), &mut |s| {
                    s.gen(cg, o0, &idx)
                })
            }
            Op::Concatenate { dimension } => {
                let d = *dimension as usize;
                let mut sizes = Vec::new();
                for &o in &ops {
                    sizes.push(self.ashape(o)?.dims[d]);
                }
                self.concat_rec(cg, &ops, &sizes, 0, 0, d, index)
            }
            Op::Pad { dims } => {
                let opnd = self.ashape(ops[0])?.clone();
                let mut inside = cg.i1().const_int(1, false);
                let mut oi = Vec::new();
                for (d, pd) in dims.iter().enumerate() {
                    let t = b.build_int_sub(index[d], cg.i64c(pd.lo), "")?;
                    let step = pd.interior + 1;
                    let ge = b.build_int_compare(IntPredicate::SGE, t, cg.i64c(0), "")?;
                    inside = b.build_and(inside, ge, "")?;
                    let (q, r_ok) = if step == 1 {
                        (t, cg.i1().const_int(1, false))
                    } else {
                        let q = b.build_int_signed_div(t, cg.i64c(step), "")?;
                        let r = b.build_int_signed_rem(t, cg.i64c(step), "")?;
                        (q, b.build_int_compare(IntPredicate::EQ, r, cg.i64c(0), "")?)
                    };
                    inside = b.build_and(inside, r_ok, "")?;
                    let lt =
                        b.build_int_compare(IntPredicate::SLT, q, cg.i64c(opnd.dims[d]), "")?;
                    inside = b.build_and(inside, lt, "")?;
                    oi.push(q);
                }
                let (o0, o1) = (ops[0], ops[1]);
                self.branch(cg, inside, &mut |s| s.gen(cg, o0, &oi), &mut |s| {
                    s.gen(cg, o1, &[])
                })
            }
            Op::Reduce { dimensions } => {
                self.reduces_generated += 1;
                let n = ops.len() / 2;
                let to_apply = to_apply(inst)?;
                let in_shape = self.ashape(ops[0])?.clone();
                if n == 1 {
                    if let Some((rop, rty)) = simple_reducer(self.module, to_apply) {
                        if rty == in_shape.ty {
                            return self.fast_reduce(
                                cg, ops[0], ops[1], dimensions, index, rop, rty, None, None,
                            );
                        }
                    }
                }
                let accs = self.accumulators(cg, &ops[n..])?;
                // Input index: kept dims from `index`, reduced dims from loops.
                let mut kept = Vec::new();
                for d in 0..in_shape.rank() {
                    if !dimensions.contains(&(d as i64)) {
                        kept.push(d);
                    }
                }
                let mut in_idx = vec![cg.i64c(0); in_shape.rank()];
                for (k, &d) in kept.iter().enumerate() {
                    in_idx[d] = index[k];
                }
                // Loop over reduced dims in increasing order (the evaluator's order).
                let mut red: Vec<usize> = dimensions.iter().map(|&d| d as usize).collect();
                red.sort_unstable();
                self.push();
                let r = self.reduce_loops(
                    cg,
                    &ops[..n],
                    &red,
                    0,
                    &mut in_idx,
                    &in_shape,
                    &accs,
                    to_apply,
                );
                self.pop();
                r?;
                accs.iter()
                    .map(|&(a, t)| Ok(b.build_load(t, a, "")?))
                    .collect()
            }
            Op::ReduceWindow { window } => {
                let n = ops.len() / 2;
                let to_apply = to_apply(inst)?;
                let in_dims = self.ashape(ops[0])?.dims.clone();
                let accs = self.accumulators(cg, &ops[n..])?;
                crate::window::reduce_window_into(
                    cg,
                    self,
                    window,
                    &in_dims,
                    index,
                    &ops[..n],
                    &accs,
                    to_apply,
                )?;
                accs.iter()
                    .map(|&(a, t)| Ok(b.build_load(t, a, "")?))
                    .collect()
            }
            Op::Map { .. } => {
                let to_apply = to_apply(inst)?;
                let mut args = Vec::new();
                for &o in &ops {
                    args.push(self.one(cg, o, index)?);
                }
                self.inline_scalar(cg, to_apply, &args)
            }
            Op::Tuple => {
                let mut out = Vec::new();
                for &o in &ops {
                    out.extend(self.gen(cg, o, index)?);
                }
                Ok(out)
            }
            Op::GetTupleElement { index: ti } => {
                let src = &self.comp.inst(ops[0]).shape;
                let elems = src
                    .tuple_elements()
                    .ok_or_else(|| CodegenError::Unsupported {
                        inst: name.into(),
                        message: "get-tuple-element of a non-tuple".into(),
                    })?;
                let ti = *ti as usize;
                let start: usize = elems[..ti].iter().map(leaf_count).sum();
                let n = leaf_count(&elems[ti]);
                // Of a tuple held in buffers, load only the selected leaves
                // (the others may have other ranks).
                if let Some(leaves) = self.source_leaves(ops[0]) {
                    let mut out = Vec::new();
                    for l in leaves.get(start..start + n).unwrap_or(&[]) {
                        out.push(self.load_leaf(cg, l, index)?);
                    }
                    return Ok(out);
                }
                let all = self.gen(cg, ops[0], index)?;
                Ok(all[start..start + n].to_vec())
            }
            other => unsupported(name, format!("{} has no element generator", other.name())),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn concat_rec(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        ops: &[InstId],
        sizes: &[i64],
        k: usize,
        offset: i64,
        d: usize,
        index: &[IntValue<'ctx>],
    ) -> Result<Vec<V<'ctx>>> {
        let b = cg.b;
        let mut oi = index.to_vec();
        oi[d] = b.build_int_sub(index[d], cg.i64c(offset), "")?;
        if k + 1 == ops.len() {
            return self.gen(cg, ops[k], &oi);
        }
        let c = b.build_int_compare(IntPredicate::SLT, index[d], cg.i64c(offset + sizes[k]), "")?;
        let opk = ops[k];
        self.branch(cg, c, &mut |s| s.gen(cg, opk, &oi), &mut |s| {
            s.concat_rec(cg, ops, sizes, k + 1, offset + sizes[k], d, index)
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn reduce_loops(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        inputs: &[InstId],
        red: &[usize],
        level: usize,
        in_idx: &mut Vec<IntValue<'ctx>>,
        in_shape: &ArrayShape,
        accs: &[(PointerValue<'ctx>, inkwell::types::BasicTypeEnum<'ctx>)],
        to_apply: CompId,
    ) -> Result<()> {
        let b = cg.b;
        if level == red.len() {
            let mut args = Vec::new();
            for (a, t) in accs {
                args.push(b.build_load(*t, *a, "")?);
            }
            let idx = in_idx.clone();
            for &i in inputs {
                args.push(self.one(cg, i, &idx)?);
            }
            let r = self.inline_scalar(cg, to_apply, &args)?;
            for ((a, _), v) in accs.iter().zip(r) {
                b.build_store(*a, v)?;
            }
            return Ok(());
        }
        let d = red[level];
        let n = in_shape.dims[d];
        for_range(cg, cg.i64c(0), cg.i64c(n), &format!("r{d}"), &mut |i| {
            in_idx[d] = i;
            self.push();
            let r = self.reduce_loops(cg, inputs, red, level + 1, in_idx, in_shape, accs, to_apply);
            self.pop();
            r
        })
    }
}

/// The associative and commutative operation a reducer computes, when it
/// is exactly `op(p0, p1)` (either order) on two scalars of one type that
/// is not F16/BF16 (those round after every step): add, multiply, maximum,
/// minimum, and, or. Such reductions may be reassociated (as XLA:CPU does).
pub fn simple_reducer(module: &Module, comp: CompId) -> Option<(BinaryOp, ElementType)> {
    let c = module.computations.get(comp)?;
    let (op, _) = c.binary_of_params()?;
    let r = c.root_inst();
    let ty = r.shape.as_array().filter(|a| a.rank() == 0)?.ty;
    // F16/BF16 round after every step; complex sums are kept in the
    // evaluator's order (the general reduce loop inlines the reducer).
    if matches!(ty, ElementType::F16 | ElementType::Bf16) || ty.is_complex() {
        return None;
    }
    let ok_op = match op {
        BinaryOp::Add | BinaryOp::Multiply | BinaryOp::Maximum | BinaryOp::Minimum => true,
        BinaryOp::And | BinaryOp::Or => !ty.is_float(),
        _ => false,
    };
    if !ok_op {
        return None;
    }
    for &p in &c.params {
        if c.inst(p).shape.as_array().map(|s| (s.rank(), s.ty)) != Some((0, ty)) {
            return None;
        }
    }
    Some((op, ty))
}

impl<'m, 'ctx> ElementalCtx<'m, 'ctx> {
    /// `acc op x` for a [`simple_reducer`]: floats add/multiply with the
    /// `reassoc` flag (LLVM then vectorizes with several accumulators;
    /// the environment's FTZ/DAZ flushes denormals), maximum/minimum as
    /// NaN-propagating `llvm.maximum`/`llvm.minimum`, integers as usual.
    fn combine(
        cg: &Cg<'_, 'ctx>,
        op: BinaryOp,
        ty: ElementType,
        acc: V<'ctx>,
        x: V<'ctx>,
    ) -> Result<V<'ctx>> {
        Self::combine_flushing(cg, op, ty, acc, x, true, true)
    }

    /// [`Self::combine`], the `reassoc` flag only with `reassoc`; a float
    /// maximum/minimum flushes a denormal `x` to zero only with `flush`. Flushing commutes with them
    /// (flushing is non-decreasing in the order `llvm.maximum` uses, -0 <
    /// +0, and keeps NaN), so a reduction may combine unflushed inputs and
    /// flush its result once ([`Self::fast_reduce`]): softmax's row maximum
    /// then loads, compares and blends, without three integer operations a
    /// vector on every element.
    fn combine_flushing(
        cg: &Cg<'_, 'ctx>,
        op: BinaryOp,
        ty: ElementType,
        acc: V<'ctx>,
        x: V<'ctx>,
        reassoc: bool,
        flush: bool,
    ) -> Result<V<'ctx>> {
        if !ty.is_float() {
            return scalar::binary(cg, op, ty, acc, x);
        }
        let b = cg.b;
        let (a, x) = (acc.into_float_value(), x.into_float_value());
        let r = match op {
            BinaryOp::Add => b.build_float_add(a, x, "")?,
            BinaryOp::Multiply => b.build_float_mul(a, x, "")?,
            _ => {
                let x = if flush { scalar::daz(cg, x)? } else { x };
                let name = if op == BinaryOp::Maximum {
                    "llvm.maximum"
                } else {
                    "llvm.minimum"
                };
                let intr = inkwell::intrinsics::Intrinsic::find(name)
                    .ok_or_else(|| CodegenError::Other(format!("no intrinsic {name}")))?;
                let decl = intr
                    .get_declaration(cg.module, &[a.get_type().into()])
                    .ok_or_else(|| CodegenError::Other(format!("no declaration of {name}")))?;
                return b
                    .build_call(decl, &[a.into(), x.into()], "")?
                    .try_as_basic_value()
                    .basic()
                    .ok_or_else(|| CodegenError::Other(format!("{name} returned void")));
            }
        };
        if let Some(i) = r.as_instruction().filter(|_| reassoc) {
            let _ = i.set_fast_math_flags(inkwell::values::FastMathFlags::AllowReassoc);
        }
        Ok(r.into())
    }

    /// A reduce of one input with a [`simple_reducer`]: the reduced
    /// dimensions are looped in physical order (innermost on the most
    /// minor one, so LLVM vectorizes it); float sums over long rows add
    /// blocks of the row separately (more accurate than one running sum).
    /// With `split`, only a part of the outermost reduced loop; with
    /// `lanes`, only one lane's share of the innermost (see [`Lanes`]).
    #[allow(clippy::too_many_arguments)]
    fn fast_reduce(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        input: InstId,
        init: InstId,
        dimensions: &[i64],
        index: &[IntValue<'ctx>],
        op: BinaryOp,
        ty: ElementType,
        split: Option<Split<'ctx>>,
        lanes: Option<Lanes<'ctx>>,
    ) -> Result<Vec<V<'ctx>>> {
        let b = cg.b;
        let in_shape = self.ashape(input)?.clone();
        let init_v = self.one(cg, init, &[])?;
        let vt = init_v.get_type();
        // A part or lane other than the first starts from the identity of
        // add/mul (max/min/and/or may see init more than once).
        let mut first = split.map(|sp| sp.first);
        if let Some(l) = lanes {
            let lane0 = b.build_int_compare(IntPredicate::EQ, l.lane, cg.i64c(0), "")?;
            first = Some(match first {
                Some(f) => b.build_and(f, lane0, "")?,
                None => lane0,
            });
        }
        let init_v = match (first, op) {
            (Some(first), BinaryOp::Add | BinaryOp::Multiply) => {
                let id = identity(cg, op, ty)?;
                b.build_select(first, init_v, id, "")?
            }
            _ => init_v,
        };
        let acc = cg.entry_alloca(vt, "acc")?;
        b.build_store(acc, init_v)?;
        let mut in_idx = vec![cg.i64c(0); in_shape.rank()];
        let mut k = 0;
        for (d, slot) in in_idx.iter_mut().enumerate() {
            if !dimensions.contains(&(d as i64)) {
                *slot = *index
                    .get(k)
                    .ok_or_else(|| CodegenError::Other("reduce index of the wrong rank".into()))?;
                k += 1;
            }
        }
        let red: Vec<usize> = in_shape
            .layout
            .major_to_minor()
            .filter(|&d| dimensions.contains(&(d as i64)))
            .collect();
        self.push();
        let r = self.fast_reduce_rec(
            cg,
            input,
            &red,
            &mut in_idx,
            &in_shape,
            acc,
            vt,
            op,
            ty,
            split,
            lanes,
        );
        self.pop();
        r?;
        let v = b.build_load(vt, acc, "")?;
        // The inputs were combined unflushed (`combine_flushing`); the
        // init value too.
        if ty.is_float() && matches!(op, BinaryOp::Maximum | BinaryOp::Minimum) {
            return Ok(vec![scalar::daz(cg, v.into_float_value())?.into()]);
        }
        Ok(vec![v])
    }

    #[allow(clippy::too_many_arguments)]
    fn fast_reduce_rec(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        input: InstId,
        red: &[usize],
        in_idx: &mut Vec<IntValue<'ctx>>,
        in_shape: &ArrayShape,
        acc: PointerValue<'ctx>,
        vt: inkwell::types::BasicTypeEnum<'ctx>,
        op: BinaryOp,
        ty: ElementType,
        split: Option<Split<'ctx>>,
        lanes: Option<Lanes<'ctx>>,
    ) -> Result<()> {
        let b = cg.b;
        let Some((&d, rest)) = red.split_first() else {
            let a = b.build_load(vt, acc, "")?;
            let x = self.one(cg, input, in_idx)?;
            // Unflushed: `fast_reduce` flushes the result.
            let r = Self::combine_flushing(cg, op, ty, a, x, true, false)?;
            b.build_store(acc, r)?;
            return Ok(());
        };
        let n = in_shape.dims[d];
        let block = [4096i64, 2048, 1024, 512]
            .into_iter()
            .find(|&bs| n > bs && n % bs == 0);
        let blocked = split.is_none_or(|sp| sp.blocks);
        if let (true, true, BinaryOp::Add, Some(bs), true) =
            (rest.is_empty(), ty.is_float(), op, block, blocked)
        {
            // Blocks of `bs` summed from -0.0 each, then added to the total.
            let part = cg.entry_alloca(vt, "part")?;
            let zero = vt.into_float_type().const_float(-0.0);
            let (lo, hi) = match split {
                Some(sp) => (sp.start, sp.end),
                None => (cg.i64c(0), cg.i64c(n / bs)),
            };
            return for_range(cg, lo, hi, &format!("rb{d}"), &mut |c| {
                b.build_store(part, zero)?;
                let base = b.build_int_mul(c, cg.i64c(bs), "")?;
                let (j0, step) = lanes.map_or((cg.i64c(0), 1), |l| (l.lane, l.count));
                for_range_step(cg, j0, cg.i64c(bs), step, &format!("r{d}"), &mut |j| {
                    in_idx[d] = b.build_int_add(base, j, "")?;
                    self.push();
                    let r = (|| {
                        let a = b.build_load(vt, part, "")?;
                        let x = self.one(cg, input, in_idx)?;
                        let r = Self::combine(cg, op, ty, a, x)?;
                        b.build_store(part, r)?;
                        Ok(())
                    })();
                    self.pop();
                    r
                })?;
                let t = b.build_load(vt, acc, "")?;
                let p = b.build_load(vt, part, "")?;
                let r = Self::combine(cg, op, ty, t, p)?;
                b.build_store(acc, r)?;
                Ok(())
            });
        }
        let (lo, hi) = match split {
            Some(sp) => (sp.start, sp.end),
            None => (cg.i64c(0), cg.i64c(n)),
        };
        // The innermost loop is the one the lanes share.
        let (lo, step, lanes) = match lanes {
            Some(l) if rest.is_empty() => (b.build_int_add(lo, l.lane, "")?, l.count, None),
            l => (lo, 1, l),
        };
        for_range_step(cg, lo, hi, step, &format!("r{d}"), &mut |i| {
            in_idx[d] = i;
            self.push();
            let r = self.fast_reduce_rec(
                cg, input, rest, in_idx, in_shape, acc, vt, op, ty, None, lanes,
            );
            self.pop();
            r
        })
    }
}

/// The operand index of a reshape that only adds or removes dimensions of
/// size 1: the index values of the non-unit dimensions, in order, and 0 for
/// unit dimensions. None for any other reshape.
fn degenerate_reshape_index<'ctx>(
    cg: &Cg<'_, 'ctx>,
    index: &[IntValue<'ctx>],
    out: &ArrayShape,
    operand: &ArrayShape,
) -> Option<Vec<IntValue<'ctx>>> {
    let big =
        |s: &ArrayShape| -> Vec<usize> { (0..s.rank()).filter(|&d| s.dims[d] != 1).collect() };
    let (ob, pb) = (big(out), big(operand));
    if ob.len() != pb.len()
        || ob
            .iter()
            .zip(&pb)
            .any(|(&a, &b)| out.dims[a] != operand.dims[b])
    {
        return None;
    }
    let mut oi = vec![cg.i64c(0); operand.rank()];
    for (&a, &b) in ob.iter().zip(&pb) {
        oi[b] = *index.get(a)?;
    }
    Some(oi)
}

/// A part of a split reduction: the outermost reduced loop runs over
/// `start..end`; `first` (i1) says whether this part starts from the init
/// value. With `blocks`, the range is in units of
/// [`ElementalCtx::reduce_split_extent`] (a float sum's blocks when that
/// loop is the only one); without, in iterations
/// ([`ElementalCtx::reduce_split_len`]) and the part is summed without
/// blocks (a part is short enough).
#[derive(Clone, Copy)]
pub struct Split<'ctx> {
    pub start: IntValue<'ctx>,
    pub end: IntValue<'ctx>,
    pub first: IntValue<'ctx>,
    pub blocks: bool,
}

impl<'ctx> Split<'ctx> {
    /// Part `c` of a range of `extent` split into parts of `per`: it starts
    /// at `c * per`, ends there plus `per` clamped to `extent`, and is the
    /// first part when `c` is 0. (The Host's threads and the GPU's split
    /// reductions cut their ranges alike.)
    pub fn part(
        cg: &Cg<'_, 'ctx>,
        c: IntValue<'ctx>,
        per: i64,
        extent: i64,
    ) -> Result<Split<'ctx>> {
        let b = cg.b;
        let start = b.build_int_mul(c, cg.i64c(per), "")?;
        let end = b.build_int_add(start, cg.i64c(per), "")?;
        let over = b.build_int_compare(IntPredicate::SGT, end, cg.i64c(extent), "")?;
        let end = b
            .build_select(over, cg.i64c(extent), end, "")?
            .into_int_value();
        let first = b.build_int_compare(IntPredicate::EQ, c, cg.i64c(0), "")?;
        Ok(Split {
            start,
            end,
            first,
            blocks: true,
        })
    }

    /// [`Split::part`] of the outermost reduced loop's iterations (no
    /// float-sum blocks).
    pub fn part_of_iterations(
        cg: &Cg<'_, 'ctx>,
        c: IntValue<'ctx>,
        per: i64,
        len: i64,
    ) -> Result<Split<'ctx>> {
        Ok(Split {
            blocks: false,
            ..Split::part(cg, c, per, len)?
        })
    }
}

/// One lane of a warp that shares a reduction: lane `lane` (i64, in
/// `0..count`) takes iterations `lane, lane + count, ...` of the innermost
/// reduced loop (within each float-sum block), so on a GPU the lanes of a
/// warp read consecutive elements of a row. Lane 0 alone starts an
/// add/multiply from the init value; the lanes' results are then combined
/// by the caller (warp shuffles on the GPU).
#[derive(Clone, Copy)]
pub struct Lanes<'ctx> {
    pub lane: IntValue<'ctx>,
    pub count: i64,
}

/// The identity of the [`simple_reducer`] `op` on `ty` (`op(identity, x)
/// == x` for every `x`): -0.0 / 0 for add, 1 for multiply, the lowest
/// value (-inf for floats) for maximum, the highest for minimum, all ones
/// for and, 0 for or.
pub fn reducer_identity<'ctx>(cg: &Cg<'_, 'ctx>, op: BinaryOp, ty: ElementType) -> Result<V<'ctx>> {
    use BinaryOp as B;
    Ok(match cg.compute_type(ty) {
        inkwell::types::BasicTypeEnum::FloatType(f) => f
            .const_float(match op {
                B::Add => -0.0,
                B::Multiply => 1.0,
                B::Maximum => f64::NEG_INFINITY,
                B::Minimum => f64::INFINITY,
                _ => return Err(CodegenError::Other(format!("no float identity for {op:?}"))),
            })
            .into(),
        inkwell::types::BasicTypeEnum::IntType(i) => {
            let bits = i.get_bit_width();
            let ones = i.const_all_ones();
            let zero = i.const_zero();
            // The sign bit alone (the lowest signed value), and its complement.
            let sign_bit = 1u64 << (bits.clamp(1, 64) - 1);
            let sign = i.const_int(sign_bit, false);
            let signed = ty.is_signed_int();
            match (op, signed) {
                (B::Add | B::Or, _) => zero,
                (B::Multiply, _) => i.const_int(1, false),
                (B::And, _) => ones,
                (B::Maximum, true) => sign,
                (B::Maximum, false) => zero,
                (B::Minimum, true) => i.const_int(sign_bit - 1, false),
                (B::Minimum, false) => ones,
                _ => {
                    return Err(CodegenError::Other(format!(
                        "no integer identity for {op:?}"
                    )))
                }
            }
            .into()
        }
        _ => return Err(CodegenError::Other("no identity for this type".into())),
    })
}

/// The identity of add (-0.0 / 0) and multiply (1).
fn identity<'ctx>(cg: &Cg<'_, 'ctx>, op: BinaryOp, ty: ElementType) -> Result<V<'ctx>> {
    let t = cg.compute_type(ty);
    Ok(match (t, op) {
        (inkwell::types::BasicTypeEnum::FloatType(f), BinaryOp::Add) => f.const_float(-0.0).into(),
        (inkwell::types::BasicTypeEnum::FloatType(f), _) => f.const_float(1.0).into(),
        (inkwell::types::BasicTypeEnum::IntType(i), BinaryOp::Add) => i.const_zero().into(),
        (inkwell::types::BasicTypeEnum::IntType(i), _) => i.const_int(1, false).into(),
        _ => return Err(CodegenError::Other("no identity for this type".into())),
    })
}

impl<'m, 'ctx> ElementalCtx<'m, 'ctx> {
    /// For a reduce of one input with a [`simple_reducer`] and at least one
    /// reduced dimension: the iteration count of its outermost reduced loop,
    /// which [`Self::gen_reduce_part`] can split.
    pub fn reduce_split_extent(&self, id: InstId) -> Option<i64> {
        let inst = self.comp.inst(id);
        let Op::Reduce { dimensions } = &inst.op else {
            return None;
        };
        if inst.operands.len() != 2 || dimensions.is_empty() {
            return None;
        }
        let in_shape = self.comp.inst(inst.operands[0]).shape.as_array()?;
        let (_, rty) = simple_reducer(self.module, *inst.called.first()?)?;
        if rty != in_shape.ty {
            return None;
        }
        let red: Vec<usize> = in_shape
            .layout
            .major_to_minor()
            .filter(|&d| dimensions.contains(&(d as i64)))
            .collect();
        let n = in_shape.dims[red[0]];
        let block = [4096i64, 2048, 1024, 512]
            .into_iter()
            .find(|&bs| n > bs && n % bs == 0);
        Some(
            match (
                red.len(),
                rty.is_float(),
                simple_reducer(self.module, inst.called[0])?.0,
                block,
            ) {
                (1, true, BinaryOp::Add, Some(bs)) => n / bs,
                _ => n,
            },
        )
    }

    /// The reduced dimensions and input shape of a reduce
    /// [`Self::reduce_split_extent`] accepts.
    fn splittable_reduce(&self, id: InstId) -> Option<(&'m [i64], &'m ArrayShape)> {
        self.reduce_split_extent(id)?;
        let inst = self.comp.inst(id);
        let Op::Reduce { dimensions } = &inst.op else {
            return None;
        };
        Some((
            dimensions,
            self.comp.inst(inst.operands[0]).shape.as_array()?,
        ))
    }

    /// For a reduce [`Self::reduce_split_extent`] accepts: the iteration
    /// count of its outermost reduced loop (what
    /// [`Split::part_of_iterations`] splits).
    pub fn reduce_split_len(&self, id: InstId) -> Option<i64> {
        let (dimensions, in_shape) = self.splittable_reduce(id)?;
        let outer = in_shape
            .layout
            .major_to_minor()
            .find(|&d| dimensions.contains(&(d as i64)))?;
        Some(in_shape.dims[outer])
    }

    /// For a reduce [`Self::reduce_split_extent`] accepts whose innermost
    /// reduced loop runs over the input's most minor dimension (a row
    /// reduction in physical order, whose rows [`Lanes`] read coalesced):
    /// the length of that loop.
    pub fn reduce_row_length(&self, id: InstId) -> Option<i64> {
        let (dimensions, in_shape) = self.splittable_reduce(id)?;
        let minor = *in_shape.layout.minor_to_major.first()?;
        dimensions
            .contains(&minor)
            .then(|| in_shape.dims[minor as usize])
    }

    /// One part of the reduce `id` at output `index`: with `split`, a part
    /// of its outermost reduced loop (see [`Split`]); with `lanes`, one
    /// lane's share of its innermost (see [`Lanes`]).
    pub fn gen_reduce_part(
        &mut self,
        cg: &Cg<'_, 'ctx>,
        id: InstId,
        index: &[IntValue<'ctx>],
        split: Option<Split<'ctx>>,
        lanes: Option<Lanes<'ctx>>,
    ) -> Result<V<'ctx>> {
        let inst = self.comp.inst(id);
        let Op::Reduce { dimensions } = &inst.op else {
            return unsupported(&inst.name, "not a reduce");
        };
        let to_apply = *inst
            .called
            .first()
            .ok_or_else(|| CodegenError::Other("reduce without to_apply".into()))?;
        let (op, ty) = simple_reducer(self.module, to_apply)
            .ok_or_else(|| CodegenError::Other("reducer is not simple".into()))?;
        let (input, init) = (inst.operands[0], inst.operands[1]);
        let v = self.fast_reduce(cg, input, init, dimensions, index, op, ty, split, lanes)?;
        v.into_iter()
            .next()
            .ok_or_else(|| CodegenError::Other("no value".into()))
    }

    /// The identity of the reducer of reduce `id` (a [`simple_reducer`]):
    /// see [`reducer_identity`].
    pub fn reduce_identity(&self, cg: &Cg<'_, 'ctx>, id: InstId) -> Result<V<'ctx>> {
        let (op, ty) = self.reducer_of(id)?;
        reducer_identity(cg, op, ty)
    }

    /// The [`simple_reducer`] of reduce `id`.
    fn reducer_of(&self, id: InstId) -> Result<(BinaryOp, ElementType)> {
        self.comp
            .inst(id)
            .called
            .first()
            .and_then(|&c| simple_reducer(self.module, c))
            .ok_or_else(|| CodegenError::Other("reducer is not simple".into()))
    }

    /// The reducer of reduce `id` (a [`simple_reducer`]) applied to `a`, `x`.
    pub fn combine_reduced(
        &self,
        cg: &Cg<'_, 'ctx>,
        id: InstId,
        a: V<'ctx>,
        x: V<'ctx>,
    ) -> Result<V<'ctx>> {
        let (op, ty) = self.reducer_of(id)?;
        Self::combine(cg, op, ty, a, x)
    }

    /// [`Self::combine_reduced`] without the `reassoc` flag: LLVM keeps
    /// the order of the combines, for loops that vectorize across outputs
    /// (column reductions), where each output's inputs are combined in the
    /// evaluator's order and the result is bit-exact. With the flag, LLVM
    /// may reorder an unrolled run of one output's combines.
    pub fn combine_reduced_in_order(
        &self,
        cg: &Cg<'_, 'ctx>,
        id: InstId,
        a: V<'ctx>,
        x: V<'ctx>,
    ) -> Result<V<'ctx>> {
        let (op, ty) = self.reducer_of(id)?;
        Self::combine_flushing(cg, op, ty, a, x, false, true)
    }
}

/// The computation a reduce, reduce-window or map applies.
fn to_apply(inst: &Instruction) -> Result<CompId> {
    inst.called
        .first()
        .copied()
        .ok_or_else(|| CodegenError::Unsupported {
            inst: inst.name.clone(),
            message: format!("{} without to_apply", inst.op.name()),
        })
}

fn at(inst: &str, e: CodegenError) -> CodegenError {
    match e {
        CodegenError::Other(m) => CodegenError::Unsupported {
            inst: inst.to_string(),
            message: m,
        },
        e => e,
    }
}
