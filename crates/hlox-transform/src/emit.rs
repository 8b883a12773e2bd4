//! Emitting the transformed module: [`Out`] is the module being assembled
//! (a copy of the input's computations, so a re-emitted instruction keeps
//! calling the same `CompId`s, plus the helper computations the rules
//! create), and [`Emitter`] builds one new computation of it.
//!
//! Every instruction goes through shape inference ([`infer_shape`], or
//! [`check_shape`] for a declared shape), so a rule that builds a wrongly
//! shaped instruction fails at the place it does so, with the instruction
//! being transformed named in the error; the finished module goes through
//! the verifier as well ([`crate::finish`]).

use crate::custom::Rules;
use crate::TransformError;
use hlox_hlo::entity::{EntityRef, PrimaryMap};
use hlox_hlo::ir::{
    BinaryOp, CompId, ComparisonDirection, Computation, DotDimensionNumbers, InstId, Instruction,
    Module, Op, PadDim, SliceDim, UnaryOp,
};
use hlox_hlo::shape_inference::{check_shape, infer_shape};
use hlox_hlo::{ArrayShape, ElementType, Literal, ProgramShape, Shape};
use std::collections::{HashMap, HashSet};

/// The module being assembled.
pub(crate) struct Out {
    pub comps: PrimaryMap<CompId, Computation>,
    pub name: String,
    inst_names: HashSet<String>,
    comp_names: HashSet<String>,
    reducers: HashMap<(BinaryOp, ElementType), CompId>,
    assigners: HashMap<ElementType, CompId>,
    /// The custom-call rules in force.
    pub rules: Rules,
    /// Rule modules' computations already copied in, per module.
    pub imported: HashMap<usize, HashMap<CompId, CompId>>,
    /// The input module's frontend attributes (JAX's device mesh lives
    /// there), kept on the result.
    pub frontend_attributes: Vec<(String, String)>,
}

impl Out {
    /// A copy of `m`'s computations. The names of the entry's
    /// instructions are free for the new entry (the old entry is dropped
    /// by [`Out::finish`], as nothing calls it).
    pub fn new(m: &Module, name: String, rules: &Rules) -> Out {
        let mut inst_names = HashSet::new();
        let mut comp_names = HashSet::new();
        for (id, c) in m.computations.iter() {
            comp_names.insert(c.name.clone());
            if id != m.entry {
                inst_names.extend(c.instructions.values().map(|i| i.name.clone()));
            }
        }
        Out {
            comps: m.computations.clone(),
            name,
            inst_names,
            comp_names,
            reducers: HashMap::new(),
            assigners: HashMap::new(),
            rules: rules.clone(),
            imported: HashMap::new(),
            frontend_attributes: m.frontend_attributes.clone(),
        }
    }

    pub fn unique_inst_name(&mut self, base: &str) -> String {
        unique(&mut self.inst_names, base)
    }

    pub fn unique_comp_name(&mut self, base: &str) -> String {
        unique(&mut self.comp_names, base)
    }

    /// The scalar computation `(a, b) -> a <op> b` over `ty`, made once per
    /// module.
    pub fn reducer(&mut self, op: BinaryOp, ty: ElementType) -> Result<CompId, TransformError> {
        if let Some(&c) = self.reducers.get(&(op, ty)) {
            return Ok(c);
        }
        let name = format!("{}.{}", op_text(Op::Binary(op)), ty.name());
        let mut e = Emitter::new(self, &name, "reducer");
        let s = Shape::scalar(ty);
        let a = e.param(&s, "lhs");
        let b = e.param(&s, "rhs");
        let r = e.binary(op, a, b)?;
        let c = e.finish(r);
        self.reducers.insert((op, ty), c);
        Ok(c)
    }

    /// The scalar computation `(old, new) -> new` over `ty` (a scatter
    /// that assigns), made once per module.
    pub fn assigner(&mut self, ty: ElementType) -> Result<CompId, TransformError> {
        if let Some(&c) = self.assigners.get(&ty) {
            return Ok(c);
        }
        let mut e = Emitter::new(self, &format!("assign.{}", ty.name()), "assigner");
        let s = Shape::scalar(ty);
        e.param(&s, "old");
        let new = e.param(&s, "new");
        let c = e.finish(new);
        self.assigners.insert(ty, c);
        Ok(c)
    }

    /// `(a, b) -> compare(a, b, direction)` over scalars of `ty`
    /// (select-and-scatter's `select`).
    pub fn comparator(
        &mut self,
        direction: ComparisonDirection,
        ty: ElementType,
    ) -> Result<CompId, TransformError> {
        let mut e = Emitter::new(self, &format!("select.{}", direction.name()), "comparator");
        let s = Shape::scalar(ty);
        let a = e.param(&s, "a");
        let b = e.param(&s, "b");
        let r = e.compare(direction, a, b)?;
        Ok(e.finish(r))
    }

    /// `(ax, at, bx, bt) -> (ax, at) if compare(ax, bx, direction) else
    /// (bx, bt)`: a reduction that carries the tangent of the element it
    /// chooses (XLA's select-and-gather-add, as JAX lowers it).
    pub fn pair_chooser(
        &mut self,
        direction: ComparisonDirection,
        ty: ElementType,
    ) -> Result<CompId, TransformError> {
        let mut e = Emitter::new(self, "choose", "pair chooser");
        let s = Shape::scalar(ty);
        let ax = e.param(&s, "ax");
        let at = e.param(&s, "at");
        let bx = e.param(&s, "bx");
        let bt = e.param(&s, "bt");
        let p = e.compare(direction, ax, bx)?;
        let x = e.select(p, ax, bx)?;
        let t = e.select(p, at, bt)?;
        let r = e.tuple(&[x, t])?;
        Ok(e.finish(r))
    }

    /// `(ax, at, bx, bt) -> (ax * bx, ax * bt + at * bx)`: the product rule
    /// as a reduction over (value, tangent) pairs — the jvp of a product
    /// reduce-window (JAX's `reduce_window_jvp`: the reduction's own jvp,
    /// reduced over the same windows). No division, so exact at zeros.
    pub fn pair_product(&mut self, ty: ElementType) -> Result<CompId, TransformError> {
        let mut e = Emitter::new(self, "product_rule", "pair product");
        let s = Shape::scalar(ty);
        let ax = e.param(&s, "ax");
        let at = e.param(&s, "at");
        let bx = e.param(&s, "bx");
        let bt = e.param(&s, "bt");
        let x = e.mul(ax, bx)?;
        let l = e.mul(ax, bt)?;
        let r = e.mul(at, bx)?;
        let t = e.addv(l, r)?;
        let r = e.tuple(&[x, t])?;
        Ok(e.finish(r))
    }

    /// The module with entry `entry`, keeping only the computations it
    /// reaches, callees before callers.
    pub fn finish(self, entry: CompId) -> Module {
        let mut order: Vec<CompId> = Vec::new();
        let mut seen = HashSet::new();
        fn visit(
            comps: &PrimaryMap<CompId, Computation>,
            c: CompId,
            seen: &mut HashSet<CompId>,
            order: &mut Vec<CompId>,
        ) {
            if !seen.insert(c) {
                return;
            }
            for inst in comps[c].instructions.values() {
                for &callee in &inst.called {
                    visit(comps, callee, seen, order);
                }
            }
            order.push(c);
        }
        visit(&self.comps, entry, &mut seen, &mut order);
        let remap: HashMap<CompId, CompId> = order
            .iter()
            .enumerate()
            .map(|(i, &c)| (c, CompId::new(i)))
            .collect();
        let mut comps = PrimaryMap::new();
        for &c in &order {
            let mut comp = self.comps[c].clone();
            for inst in comp.instructions.values_mut() {
                for callee in inst.called.iter_mut() {
                    *callee = remap[callee];
                }
            }
            comps.push(comp);
        }
        Module {
            name: self.name,
            computations: comps,
            entry: remap[&entry],
            input_output_alias: Vec::new(),
            is_scheduled: false,
            frontend_attributes: self.frontend_attributes,
        }
    }
}

fn unique(set: &mut HashSet<String>, base: &str) -> String {
    if set.insert(base.to_string()) {
        return base.to_string();
    }
    let mut k = 1u64;
    loop {
        let cand = format!("{base}.{k}");
        if set.insert(cand.clone()) {
            return cand;
        }
        k += 1;
    }
}

fn op_text(op: Op) -> &'static str {
    op.name()
}

/// Builds one computation of an [`Out`].
pub(crate) struct Emitter<'o> {
    pub out: &'o mut Out,
    name: String,
    insts: PrimaryMap<InstId, Instruction>,
    params: Vec<InstId>,
    /// The transformation, for errors ("jvp", "vjp", "vmap").
    pub transform: &'static str,
    /// The instruction being transformed, for errors and for the names of
    /// the instructions its rule emits.
    pub at: String,
}

impl<'o> Emitter<'o> {
    pub fn new(out: &'o mut Out, name: &str, transform: &'static str) -> Emitter<'o> {
        let name = out.unique_comp_name(name);
        Emitter {
            out,
            name,
            insts: PrimaryMap::new(),
            params: Vec::new(),
            transform,
            at: String::new(),
        }
    }

    pub fn inst(&self, x: InstId) -> &Instruction {
        &self.insts[x]
    }

    pub fn shape(&self, x: InstId) -> &Shape {
        &self.insts[x].shape
    }

    /// The array shape of `x`, or an error naming the instruction.
    pub fn arr(&self, x: InstId) -> Result<ArrayShape, TransformError> {
        match &self.insts[x].shape {
            Shape::Array(a) => Ok(a.clone()),
            s => Err(self.internal(format!(
                "expected an array, got {}",
                hlox_hlo::shape_inference::short(s)
            ))),
        }
    }

    pub fn dims(&self, x: InstId) -> Result<Vec<i64>, TransformError> {
        Ok(self.arr(x)?.dims)
    }

    pub fn ty(&self, x: InstId) -> Result<ElementType, TransformError> {
        Ok(self.arr(x)?.ty)
    }

    pub fn internal(&self, message: String) -> TransformError {
        TransformError::Emit {
            transform: self.transform,
            instruction: self.at.clone(),
            message,
        }
    }

    pub fn param(&mut self, shape: &Shape, name: &str) -> InstId {
        let number = self.params.len() as u64;
        let name = self.out.unique_inst_name(name);
        let id = self.insts.push(Instruction::new(
            name,
            Op::Parameter { number },
            shape.clone(),
            vec![],
        ));
        self.params.push(id);
        id
    }

    /// The shape of `op` on `operands`: shape inference's, or `declared`
    /// once shape inference accepts it.
    fn shape_of(
        &self,
        op: &Op,
        operands: &[InstId],
        called: &[CompId],
        declared: Option<Shape>,
    ) -> Result<Shape, TransformError> {
        let sigs: Vec<ProgramShape> = called
            .iter()
            .map(|&c| self.out.comps[c].program_shape())
            .collect();
        let shapes: Vec<&Shape> = operands.iter().map(|&o| &self.insts[o].shape).collect();
        match declared {
            None => infer_shape(op, &shapes, &sigs),
            Some(s) => check_shape(op, &shapes, &sigs, &s).map(|()| s),
        }
        .map_err(|e| self.internal(e.to_string()))
    }

    /// Adds `op` on `operands`: its shape is shape inference's, or
    /// `declared` once shape inference accepts it; its name is `name` where
    /// that is free, else the op's (under the place being emitted).
    fn insert(
        &mut self,
        op: Op,
        operands: &[InstId],
        called: &[CompId],
        declared: Option<Shape>,
        name: Option<&str>,
    ) -> Result<InstId, TransformError> {
        let shape = self.shape_of(&op, operands, called, declared)?;
        let base = match name {
            Some(n) => n.to_string(),
            None if self.at.is_empty() => op.name().to_string(),
            None => format!("{}.{}", self.at, op.name()),
        };
        let name = self.out.unique_inst_name(&base);
        let mut inst = Instruction::new(name, op, shape, operands.to_vec());
        inst.called = called.to_vec();
        Ok(self.insts.push(inst))
    }

    /// Sets the frontend attributes of the instruction `x` emitted here
    /// (the sharding annotations of a `shard_map` boundary).
    pub fn set_frontend_attributes(&mut self, x: InstId, attrs: Vec<(String, String)>) {
        self.insts[x].frontend_attributes = attrs;
    }

    /// An instruction whose shape shape inference gives.
    pub fn add(
        &mut self,
        op: Op,
        operands: &[InstId],
        called: &[CompId],
    ) -> Result<InstId, TransformError> {
        self.insert(op, operands, called, None, None)
    }

    /// An instruction with a declared shape (checked by shape inference).
    pub fn add_shaped(
        &mut self,
        op: Op,
        operands: &[InstId],
        called: &[CompId],
        shape: Shape,
    ) -> Result<InstId, TransformError> {
        self.insert(op, operands, called, Some(shape), None)
    }

    /// A copy of `inst` (of the input module) on new operands, keeping its
    /// name where it is free.
    pub fn reemit(
        &mut self,
        inst: &Instruction,
        operands: &[InstId],
    ) -> Result<InstId, TransformError> {
        let id = self.insert(
            inst.op.clone(),
            operands,
            &inst.called,
            Some(inst.shape.clone()),
            Some(&inst.name),
        )?;
        let new = &mut self.insts[id];
        new.metadata = inst.metadata.clone();
        new.frontend_attributes = inst.frontend_attributes.clone();
        new.backend_config = inst.backend_config.clone();
        new.sharding = inst.sharding.clone();
        Ok(id)
    }

    /// Adds the computation rooted at `root` to the module, without the
    /// instructions nothing uses (rules build some values only in case;
    /// parameters and side effects stay).
    pub fn finish(self, root: InstId) -> CompId {
        let n = self.insts.len();
        let mut live = vec![false; n];
        live[root.index()] = true;
        for (id, inst) in self.insts.iter().rev() {
            if inst.op.has_side_effect() || matches!(inst.op, Op::Parameter { .. }) {
                live[id.index()] = true;
            }
            if live[id.index()] {
                for &o in &inst.operands {
                    live[o.index()] = true;
                }
            }
        }
        let mut remap: Vec<Option<InstId>> = vec![None; n];
        let mut insts = PrimaryMap::new();
        for (id, inst) in self.insts.iter() {
            if !live[id.index()] {
                continue;
            }
            let mut inst = inst.clone();
            for o in inst.operands.iter_mut() {
                *o = remap[o.index()].unwrap_or(*o);
            }
            remap[id.index()] = Some(insts.push(inst));
        }
        let fix = |x: InstId| remap[x.index()].unwrap_or(x);
        let comp = Computation {
            name: self.name,
            instructions: insts,
            params: self.params.into_iter().map(fix).collect(),
            root: fix(root),
            execution_thread: None,
        };
        self.out.comps.push(comp)
    }

    // ---- helpers the rules build with ----

    pub fn unary(&mut self, u: UnaryOp, x: InstId) -> Result<InstId, TransformError> {
        self.add(Op::Unary(u), &[x], &[])
    }

    pub fn binary(&mut self, b: BinaryOp, x: InstId, y: InstId) -> Result<InstId, TransformError> {
        self.add(Op::Binary(b), &[x, y], &[])
    }

    pub fn mul(&mut self, x: InstId, y: InstId) -> Result<InstId, TransformError> {
        self.binary(BinaryOp::Multiply, x, y)
    }

    pub fn addv(&mut self, x: InstId, y: InstId) -> Result<InstId, TransformError> {
        self.binary(BinaryOp::Add, x, y)
    }

    pub fn sub(&mut self, x: InstId, y: InstId) -> Result<InstId, TransformError> {
        self.binary(BinaryOp::Subtract, x, y)
    }

    pub fn div(&mut self, x: InstId, y: InstId) -> Result<InstId, TransformError> {
        self.binary(BinaryOp::Divide, x, y)
    }

    pub fn neg(&mut self, x: InstId) -> Result<InstId, TransformError> {
        self.unary(UnaryOp::Negate, x)
    }

    pub fn compare(
        &mut self,
        direction: ComparisonDirection,
        x: InstId,
        y: InstId,
    ) -> Result<InstId, TransformError> {
        self.add(
            Op::Compare {
                direction,
                cmp_type: None,
            },
            &[x, y],
            &[],
        )
    }

    pub fn select(&mut self, p: InstId, a: InstId, b: InstId) -> Result<InstId, TransformError> {
        self.add(Op::Select, &[p, a, b], &[])
    }

    pub fn convert(&mut self, x: InstId, ty: ElementType) -> Result<InstId, TransformError> {
        let a = self.arr(x)?;
        if a.ty == ty {
            return Ok(x);
        }
        self.add_shaped(Op::Convert, &[x], &[], Shape::array(ty, a.dims))
    }

    /// A scalar constant `v` of type `ty`.
    pub fn scalar(&mut self, ty: ElementType, v: f64) -> Result<InstId, TransformError> {
        let lit = match ty {
            ElementType::F64 => Literal::r0(v),
            ElementType::F32 => Literal::r0(v as f32),
            ElementType::F16 => Literal::r0(half::f16::from_f64(v)),
            ElementType::Bf16 => Literal::r0(half::bf16::from_f64(v)),
            ElementType::Pred => Literal::r0(v != 0.0),
            ElementType::S8 => Literal::r0(v as i8),
            ElementType::S16 => Literal::r0(v as i16),
            ElementType::S32 => Literal::r0(v as i32),
            ElementType::S64 => Literal::r0(v as i64),
            ElementType::U8 => Literal::r0(v as u8),
            ElementType::U16 => Literal::r0(v as u16),
            ElementType::U32 => Literal::r0(v as u32),
            ElementType::U64 => Literal::r0(v as u64),
            ElementType::C64 => Literal::r0(hlox_hlo::Complex32::new(v as f32, 0.0)),
            ElementType::C128 => Literal::r0(hlox_hlo::Complex64::new(v, 0.0)),
        };
        self.constant(lit)
    }

    pub fn constant(&mut self, lit: Literal) -> Result<InstId, TransformError> {
        let shape = lit.shape();
        self.add_shaped(Op::Constant { literal: lit }, &[], &[], shape)
    }

    /// `v` broadcast to `dims` in type `ty`.
    pub fn full(
        &mut self,
        ty: ElementType,
        dims: &[i64],
        v: f64,
    ) -> Result<InstId, TransformError> {
        let s = self.scalar(ty, v)?;
        if dims.is_empty() {
            return Ok(s);
        }
        self.broadcast_in_dim(s, dims, &[])
    }

    /// `v` in the shape and type of `x`.
    pub fn full_like(&mut self, x: InstId, v: f64) -> Result<InstId, TransformError> {
        let a = self.arr(x)?;
        self.full(a.ty, &a.dims, v)
    }

    /// Zeros of any shape (a tuple of zeros for a tuple).
    pub fn zeros(&mut self, shape: &Shape) -> Result<InstId, TransformError> {
        match shape {
            Shape::Array(a) => self.full(a.ty, &a.dims, 0.0),
            Shape::Tuple(t) => {
                let parts = t
                    .iter()
                    .map(|s| self.zeros(s))
                    .collect::<Result<Vec<_>, _>>()?;
                self.tuple(&parts)
            }
            Shape::Token => self.add(Op::AfterAll, &[], &[]),
        }
    }

    pub fn tuple(&mut self, xs: &[InstId]) -> Result<InstId, TransformError> {
        self.add(Op::Tuple, xs, &[])
    }

    pub fn gte(&mut self, x: InstId, index: usize) -> Result<InstId, TransformError> {
        self.add(
            Op::GetTupleElement {
                index: index as i64,
            },
            &[x],
            &[],
        )
    }

    pub fn broadcast_in_dim(
        &mut self,
        x: InstId,
        out_dims: &[i64],
        dimensions: &[i64],
    ) -> Result<InstId, TransformError> {
        let a = self.arr(x)?;
        if a.dims == out_dims && dimensions.iter().enumerate().all(|(i, &d)| d == i as i64) {
            return Ok(x);
        }
        self.add_shaped(
            Op::Broadcast {
                dimensions: dimensions.to_vec(),
            },
            &[x],
            &[],
            Shape::array(a.ty, out_dims.to_vec()),
        )
    }

    pub fn reshape(&mut self, x: InstId, dims: &[i64]) -> Result<InstId, TransformError> {
        let a = self.arr(x)?;
        if a.dims == dims {
            return Ok(x);
        }
        self.add_shaped(Op::Reshape, &[x], &[], Shape::array(a.ty, dims.to_vec()))
    }

    pub fn transpose(&mut self, x: InstId, perm: &[i64]) -> Result<InstId, TransformError> {
        if perm.iter().enumerate().all(|(i, &p)| p == i as i64) {
            return Ok(x);
        }
        self.add(
            Op::Transpose {
                dimensions: perm.to_vec(),
            },
            &[x],
            &[],
        )
    }

    /// Splits axis `src` of `x` into two, `(size, n / size)` with `size`
    /// major (JAX's `_reshape_axis_out_of`): how grouped convolutions'
    /// rules take a group or batch factor out of a feature dimension.
    pub fn split_axis(
        &mut self,
        x: InstId,
        src: usize,
        size: i64,
    ) -> Result<InstId, TransformError> {
        let mut d = self.dims(x)?;
        let n = *d
            .get(src)
            .ok_or_else(|| self.internal(format!("split_axis: no axis {src} in {d:?}")))?;
        if size <= 0 || n % size != 0 {
            return Err(self.internal(format!(
                "split_axis: axis {src} of {d:?} is not a multiple of {size}"
            )));
        }
        d[src] = n / size;
        d.insert(src, size);
        self.reshape(x, &d)
    }

    /// Moves axis `src` of `x` in front of axis `dst` (numbered with `src`
    /// removed) and merges the two, `src` major (JAX's
    /// `_reshape_axis_into`).
    pub fn merge_axis(
        &mut self,
        x: InstId,
        src: usize,
        dst: usize,
    ) -> Result<InstId, TransformError> {
        let d = self.dims(x)?;
        if src >= d.len() || dst + 1 >= d.len() {
            return Err(self.internal(format!("merge_axis: axes {src}, {dst} of {d:?}")));
        }
        let mut perm: Vec<i64> = (0..d.len() as i64).filter(|&i| i != src as i64).collect();
        perm.insert(dst, src as i64);
        let t = self.transpose(x, &perm)?;
        let mut nd: Vec<i64> = d
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != src)
            .map(|(_, &n)| n)
            .collect();
        nd[dst] *= d[src];
        self.reshape(t, &nd)
    }

    pub fn reverse(&mut self, x: InstId, dims: &[i64]) -> Result<InstId, TransformError> {
        self.add(
            Op::Reverse {
                dimensions: dims.to_vec(),
            },
            &[x],
            &[],
        )
    }

    pub fn slice(&mut self, x: InstId, dims: Vec<SliceDim>) -> Result<InstId, TransformError> {
        self.add(Op::Slice { dims }, &[x], &[])
    }

    pub fn pad(
        &mut self,
        x: InstId,
        value: InstId,
        dims: Vec<PadDim>,
    ) -> Result<InstId, TransformError> {
        self.add(Op::Pad { dims }, &[x, value], &[])
    }

    pub fn concat(&mut self, xs: &[InstId], dimension: i64) -> Result<InstId, TransformError> {
        self.add(Op::Concatenate { dimension }, xs, &[])
    }

    pub fn dot(
        &mut self,
        x: InstId,
        y: InstId,
        dnums: DotDimensionNumbers,
    ) -> Result<InstId, TransformError> {
        self.add(
            Op::Dot {
                dnums,
                precision: vec![],
            },
            &[x, y],
            &[],
        )
    }

    /// `reduce` of `x` over `dims` with the scalar binary `op` from `init`.
    pub fn reduce_with(
        &mut self,
        op: BinaryOp,
        x: InstId,
        dims: &[i64],
        init: f64,
    ) -> Result<InstId, TransformError> {
        if dims.is_empty() {
            return Ok(x);
        }
        let ty = self.ty(x)?;
        let comp = self.out.reducer(op, ty)?;
        let init = self.scalar(ty, init)?;
        self.add(
            Op::Reduce {
                dimensions: dims.to_vec(),
            },
            &[x, init],
            &[comp],
        )
    }

    pub fn reduce_sum(&mut self, x: InstId, dims: &[i64]) -> Result<InstId, TransformError> {
        self.reduce_with(BinaryOp::Add, x, dims, 0.0)
    }

    /// Sums `x` down to `shape_dims` after a broadcast that added the
    /// dimensions not in `kept` (the inverse of `broadcast_in_dim`).
    pub fn unbroadcast(
        &mut self,
        x: InstId,
        kept: &[i64],
        operand_dims: &[i64],
    ) -> Result<InstId, TransformError> {
        let rank = self.arr(x)?.rank() as i64;
        let summed: Vec<i64> = (0..rank).filter(|d| !kept.contains(d)).collect();
        let r = self.reduce_sum(x, &summed)?;
        // The kept dimensions come out in increasing order; put them in the
        // operand's order.
        let mut sorted: Vec<i64> = kept.to_vec();
        sorted.sort_unstable();
        let perm: Vec<i64> = kept
            .iter()
            .map(|d| sorted.iter().position(|s| s == d).unwrap_or(0) as i64)
            .collect();
        let r = self.transpose(r, &perm)?;
        self.reshape(r, operand_dims)
    }
}

/// How a forward transformation rewrites one instruction, given its
/// operands' new values and what the transformation carries for each.
pub(crate) type InstRule<'a, T> = dyn FnMut(&mut Emitter, &Instruction, &[(InstId, T)]) -> Result<(InstId, T), TransformError>
    + 'a;

/// A forward transformation's walk over computation `c` of `m` (jvp and
/// vmap): every instruction in order, given the new values (and what the
/// transformation carries along, `T`) of its operands; a parameter takes
/// its entry of `args`, a `call` is walked inline, anything else goes to
/// `rule`.
pub(crate) fn walk_forward<T: Clone>(
    e: &mut Emitter,
    m: &Module,
    c: CompId,
    args: &[(InstId, T)],
    rule: &mut InstRule<'_, T>,
) -> Result<(InstId, T), TransformError> {
    let comp = m.comp(c);
    let mut vals: hlox_hlo::SecondaryMap<InstId, Option<(InstId, T)>> =
        hlox_hlo::SecondaryMap::new();
    for (id, inst) in comp.instructions.iter() {
        let ops: Vec<(InstId, T)> = inst
            .operands
            .iter()
            .map(|&o| {
                vals[o]
                    .clone()
                    .expect("operands come first (topological order)")
            })
            .collect();
        e.at = inst.name.clone();
        let r = match &inst.op {
            Op::Parameter { number } => args[*number as usize].clone(),
            Op::Call => walk_forward(e, m, inst.called[0], &ops, rule)?,
            _ => rule(e, inst, &ops)?,
        };
        vals[id] = Some(r);
    }
    Ok(vals[comp.root].clone().expect("the root is an instruction"))
}
