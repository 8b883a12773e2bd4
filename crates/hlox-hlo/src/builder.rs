//! An `XlaBuilder`-style API for building HLO computations.
//!
//! Ops take `&self` so expressions nest: `b.add(b.mul(x, y)?, z)?`. Every op
//! computes its result shape with [`crate::shape_inference`] (the one home of
//! shape semantics) and returns a [`BuildError`] naming the op and the shapes
//! when they do not fit. [`XlaBuilder::build`] gives an [`XlaComputation`]
//! that other builders can call (reduce, sort, while, ...): its computations
//! are embedded into the caller's module with unique names, callees before
//! callers.

use crate::entity::{EntityRef, PrimaryMap};
use crate::ir::{
    BinaryOp, Collective, CompId, ComparisonDirection, ComparisonType, Computation,
    ConvDimensionNumbers, Convolution, CustomCall, CustomCallApiVersion, CustomCallSchedule,
    DotDimensionNumbers, GatherDimensionNumbers, InstId, Instruction, Module, Op, OpMetadata,
    OutputOperandAlias, PadDim, Precision, ReplicaGroups, RngAlgorithm, ScatterDimensionNumbers,
    SliceDim, UnaryOp, Window, WindowDim,
};
use crate::literal::{Literal, NativeType};
use crate::opcode::Opcode;
use crate::shape_inference::{check_shape, infer_shape, short, validate_shape, ShapeError};
use crate::types::{ArrayShape, ElementType, ProgramShape, Shape};
use crate::verifier::{verify_module, VerifyError};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_UID: AtomicU64 = AtomicU64::new(1);

fn next_uid() -> u64 {
    NEXT_UID.fetch_add(1, Ordering::Relaxed)
}

/// Errors from building.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// The operands do not fit the op (from shape inference).
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// Anything else wrong with a call: a foreign operand, a bad argument.
    #[error("{op}: {message}")]
    Invalid { op: String, message: String },
    /// The built module failed verification.
    #[error("computation {computation} does not verify:\n{error}")]
    Verify {
        computation: String,
        error: VerifyError,
    },
}

fn invalid(op: &str, message: impl Into<String>) -> BuildError {
    BuildError::Invalid {
        op: op.to_string(),
        message: message.into(),
    }
}

/// A handle to an instruction of one [`XlaBuilder`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct XlaOp {
    builder: u64,
    id: InstId,
}

impl XlaOp {
    /// The instruction this op names inside its builder's computation.
    pub fn inst_id(self) -> InstId {
        self.id
    }
}

/// A built computation together with the computations it calls, as a module
/// whose entry is the computation.
#[derive(Clone, Debug, PartialEq)]
pub struct XlaComputation {
    module: Module,
    uid: u64,
}

impl XlaComputation {
    /// Wraps a module (which must verify) so builders can call its entry.
    pub fn from_module(module: Module) -> Result<XlaComputation, BuildError> {
        verify_module(&module).map_err(|error| BuildError::Verify {
            computation: module.name.clone(),
            error,
        })?;
        Ok(XlaComputation {
            module,
            uid: next_uid(),
        })
    }
    pub fn name(&self) -> &str {
        &self.module.entry_computation().name
    }
    pub fn module(&self) -> &Module {
        &self.module
    }
    pub fn into_module(self) -> Module {
        self.module
    }
    pub fn program_shape(&self) -> ProgramShape {
        self.module.entry_computation().program_shape()
    }
}

struct Inner {
    instructions: PrimaryMap<InstId, Instruction>,
    params: BTreeMap<u64, InstId>,
    comps: Vec<Computation>,
    embedded: HashMap<u64, CompId>,
    inst_names: HashSet<String>,
    comp_names: HashSet<String>,
    counter: u64,
    metadata: OpMetadata,
    frontend_attributes: Vec<(String, String)>,
}

fn unique_name(set: &mut HashSet<String>, base: &str) -> String {
    if !set.contains(base) {
        set.insert(base.to_string());
        return base.to_string();
    }
    let mut k = 1u64;
    loop {
        let cand = format!("{base}.{k}");
        if !set.contains(&cand) {
            set.insert(cand.clone());
            return cand;
        }
        k += 1;
    }
}

/// Builds one computation. See the module docs.
pub struct XlaBuilder {
    name: String,
    uid: u64,
    inner: RefCell<Inner>,
}

macro_rules! unary_ops {
    ($($fn:ident => $u:ident),* $(,)?) => {
        $(
            #[doc = concat!("Element-wise `", stringify!($u), "`.")]
            pub fn $fn(&self, x: XlaOp) -> Result<XlaOp, BuildError> {
                self.add_op(Op::Unary(UnaryOp::$u), &[x], &[], None)
            }
        )*
    };
}

macro_rules! binary_ops {
    ($($fn:ident => $b:ident),* $(,)?) => {
        $(
            #[doc = concat!("Element-wise `", stringify!($b), "`.")]
            pub fn $fn(&self, lhs: XlaOp, rhs: XlaOp) -> Result<XlaOp, BuildError> {
                self.add_op(Op::Binary(BinaryOp::$b), &[lhs, rhs], &[], None)
            }
        )*
    };
}

macro_rules! compare_ops {
    ($($fn:ident => $d:ident),* $(,)?) => {
        $(
            #[doc = concat!("`compare` with direction ", stringify!($d), ".")]
            pub fn $fn(&self, lhs: XlaOp, rhs: XlaOp) -> Result<XlaOp, BuildError> {
                self.compare(ComparisonDirection::$d, lhs, rhs)
            }
        )*
    };
}

impl XlaBuilder {
    pub fn new(name: impl Into<String>) -> XlaBuilder {
        let name = name.into();
        let mut comp_names = HashSet::new();
        comp_names.insert(name.clone());
        XlaBuilder {
            name,
            uid: next_uid(),
            inner: RefCell::new(Inner {
                instructions: PrimaryMap::new(),
                params: BTreeMap::new(),
                comps: Vec::new(),
                embedded: HashMap::new(),
                inst_names: HashSet::new(),
                comp_names,
                counter: 0,
                metadata: OpMetadata::default(),
                frontend_attributes: Vec::new(),
            }),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Metadata attached to every op created from now on (until cleared).
    pub fn set_op_metadata(&self, metadata: OpMetadata) {
        self.inner.borrow_mut().metadata = metadata;
    }
    pub fn clear_op_metadata(&self) {
        self.inner.borrow_mut().metadata = OpMetadata::default();
    }
    /// Frontend attributes attached to every op created from now on (until cleared).
    pub fn set_frontend_attributes(&self, attrs: Vec<(String, String)>) {
        self.inner.borrow_mut().frontend_attributes = attrs;
    }
    pub fn clear_frontend_attributes(&self) {
        self.inner.borrow_mut().frontend_attributes.clear();
    }

    /// The shape of an op of this builder.
    pub fn get_shape(&self, op: XlaOp) -> Result<Shape, BuildError> {
        self.check_op("get_shape", 0, op)?;
        Ok(self.inner.borrow().instructions[op.id].shape.clone())
    }

    fn check_op(&self, opname: &str, k: usize, op: XlaOp) -> Result<(), BuildError> {
        if op.builder != self.uid {
            return Err(invalid(
                opname,
                format!(
                    "operand {k} was created by another builder, not by '{}'",
                    self.name
                ),
            ));
        }
        if !self.inner.borrow().instructions.is_valid(op.id) {
            return Err(invalid(
                opname,
                format!("operand {k} does not exist in builder '{}'", self.name),
            ));
        }
        Ok(())
    }

    fn array_of(&self, opname: &str, op: XlaOp) -> Result<ArrayShape, BuildError> {
        match self.get_shape(op)? {
            Shape::Array(a) => Ok(a),
            s => Err(invalid(
                opname,
                format!("operand must be an array, got {}", short(&s)),
            )),
        }
    }

    fn embed(inner: &mut Inner, comp: &XlaComputation) -> CompId {
        if let Some(&id) = inner.embedded.get(&comp.uid) {
            return id;
        }
        let mut map: Vec<CompId> = Vec::with_capacity(comp.module.computations.len());
        for c in comp.module.computations.values() {
            let new_id = CompId::new(inner.comps.len());
            let mut c2 = c.clone();
            c2.name = unique_name(&mut inner.comp_names, &c.name);
            for inst in c2.instructions.values_mut() {
                inst.name = unique_name(&mut inner.inst_names, &inst.name);
                inst.called = inst
                    .called
                    .iter()
                    .map(|x| map.get(x.index()).copied().unwrap_or(*x))
                    .collect();
            }
            map.push(new_id);
            inner.comps.push(c2);
        }
        let id = map
            .get(comp.module.entry.index())
            .copied()
            .unwrap_or(CompId::new(0));
        inner.embedded.insert(comp.uid, id);
        id
    }

    /// Adds an instruction after checking its operands and shape.
    fn add_op(
        &self,
        op: Op,
        operands: &[XlaOp],
        called: &[&XlaComputation],
        declared: Option<Shape>,
    ) -> Result<XlaOp, BuildError> {
        let opname = op.name();
        for (k, &o) in operands.iter().enumerate() {
            self.check_op(opname, k, o)?;
        }
        let sigs: Vec<ProgramShape> = called.iter().map(|c| c.program_shape()).collect();
        let shape = {
            let inner = self.inner.borrow();
            let shapes: Vec<&Shape> = operands
                .iter()
                .map(|o| &inner.instructions[o.id].shape)
                .collect();
            match declared {
                Some(d) => {
                    validate_shape(&d).map_err(|m| invalid(opname, m.to_string()))?;
                    check_shape(&op, &shapes, &sigs, &d)?;
                    d
                }
                None => infer_shape(&op, &shapes, &sigs)?,
            }
        };
        validate_shape(&shape).map_err(|m| invalid(opname, m.to_string()))?;
        let mut inner = self.inner.borrow_mut();
        let called_ids: Vec<CompId> = called.iter().map(|c| Self::embed(&mut inner, c)).collect();
        let name = match &op {
            Op::Parameter { .. } => String::new(),
            _ => loop {
                inner.counter += 1;
                let cand = format!("{opname}.{}", inner.counter);
                if !inner.inst_names.contains(&cand) {
                    inner.inst_names.insert(cand.clone());
                    break cand;
                }
            },
        };
        let mut inst = Instruction::new(name, op, shape, operands.iter().map(|o| o.id).collect());
        inst.called = called_ids;
        inst.metadata = inner.metadata.clone();
        inst.frontend_attributes = inner.frontend_attributes.clone();
        let id = inner.instructions.push(inst);
        Ok(XlaOp {
            builder: self.uid,
            id,
        })
    }

    // ---- leaves ----

    /// `parameter(number)` of `shape`, named `name` (made unique if needed).
    pub fn parameter(&self, number: u64, shape: &Shape, name: &str) -> Result<XlaOp, BuildError> {
        {
            let inner = self.inner.borrow();
            if let Some(&prev) = inner.params.get(&number) {
                return Err(invalid(
                    Opcode::Parameter.name(),
                    format!(
                        "parameter number {number} is already used by '{}'",
                        inner.instructions[prev].name
                    ),
                ));
            }
        }
        let op = self.add_op(Op::Parameter { number }, &[], &[], Some(shape.clone()))?;
        let mut inner = self.inner.borrow_mut();
        let base = if name.is_empty() {
            format!("parameter.{number}")
        } else {
            name.to_string()
        };
        let name = unique_name(&mut inner.inst_names, &base);
        inner.instructions[op.id].name = name;
        inner.params.insert(number, op.id);
        Ok(op)
    }

    pub fn constant_literal(&self, literal: &Literal) -> Result<XlaOp, BuildError> {
        let shape = literal.shape();
        self.add_op(
            Op::Constant {
                literal: literal.clone(),
            },
            &[],
            &[],
            Some(shape),
        )
    }
    pub fn constant_r0<T: NativeType>(&self, v: T) -> Result<XlaOp, BuildError> {
        self.constant_literal(&Literal::r0(v))
    }
    pub fn constant_r1<T: NativeType>(&self, v: &[T]) -> Result<XlaOp, BuildError> {
        self.constant_literal(&Literal::r1(v))
    }
    /// `iota` of `shape` counting along `dimension`.
    pub fn iota(&self, shape: &Shape, dimension: i64) -> Result<XlaOp, BuildError> {
        self.add_op(Op::Iota { dimension }, &[], &[], Some(shape.clone()))
    }

    // ---- element-wise ----

    unary_ops! {
        neg => Negate, abs => Abs, sign => Sign, not => Not, exp => Exp, expm1 => Expm1, log => Log,
        log1p => Log1p, sqrt => Sqrt, rsqrt => Rsqrt, cbrt => Cbrt, tanh => Tanh, logistic => Logistic,
        sin => Sin, cos => Cos, tan => Tan, floor => Floor, ceil => Ceil,
        round_nearest_afz => RoundNearestAfz, round_nearest_even => RoundNearestEven,
        is_finite => IsFinite, erf => Erf, popcnt => PopulationCount, clz => CountLeadingZeros,
    }

    binary_ops! {
        add => Add, sub => Subtract, mul => Multiply, div => Divide, rem => Remainder, pow => Power,
        max => Maximum, min => Minimum, and => And, or => Or, xor => Xor, shift_left => ShiftLeft,
        shift_right_logical => ShiftRightLogical, shift_right_arithmetic => ShiftRightArithmetic,
        atan2 => Atan2,
    }

    /// Any unary op by its [`UnaryOp`].
    pub fn unary(&self, u: UnaryOp, x: XlaOp) -> Result<XlaOp, BuildError> {
        self.add_op(Op::Unary(u), &[x], &[], None)
    }
    /// Any binary op by its [`BinaryOp`].
    pub fn binary(&self, b: BinaryOp, lhs: XlaOp, rhs: XlaOp) -> Result<XlaOp, BuildError> {
        self.add_op(Op::Binary(b), &[lhs, rhs], &[], None)
    }

    /// `compare` with the default comparison type for the element type.
    pub fn compare(
        &self,
        direction: ComparisonDirection,
        lhs: XlaOp,
        rhs: XlaOp,
    ) -> Result<XlaOp, BuildError> {
        self.compare_op(direction, None, lhs, rhs)
    }
    /// `compare` with an explicit comparison type (e.g. TOTALORDER).
    pub fn compare_with_type(
        &self,
        direction: ComparisonDirection,
        cmp_type: ComparisonType,
        lhs: XlaOp,
        rhs: XlaOp,
    ) -> Result<XlaOp, BuildError> {
        self.compare_op(direction, Some(cmp_type), lhs, rhs)
    }
    fn compare_op(
        &self,
        direction: ComparisonDirection,
        cmp_type: Option<ComparisonType>,
        lhs: XlaOp,
        rhs: XlaOp,
    ) -> Result<XlaOp, BuildError> {
        let op = Op::Compare {
            direction,
            cmp_type,
        };
        self.add_op(op, &[lhs, rhs], &[], None)
    }

    compare_ops! { eq => Eq, ne => Ne, lt => Lt, le => Le, gt => Gt, ge => Ge }

    pub fn select(
        &self,
        pred: XlaOp,
        on_true: XlaOp,
        on_false: XlaOp,
    ) -> Result<XlaOp, BuildError> {
        self.add_op(Op::Select, &[pred, on_true, on_false], &[], None)
    }
    pub fn clamp(&self, min: XlaOp, x: XlaOp, max: XlaOp) -> Result<XlaOp, BuildError> {
        self.add_op(Op::Clamp, &[min, x, max], &[], None)
    }
    /// `convert` to element type `ty`.
    pub fn convert(&self, x: XlaOp, ty: ElementType) -> Result<XlaOp, BuildError> {
        let a = self.array_of(Opcode::Convert.name(), x)?;
        self.add_op(Op::Convert, &[x], &[], Some(Shape::array(ty, a.dims)))
    }
    /// `bitcast-convert` to element type `ty` (adding or removing a minor
    /// dimension when the bit widths differ).
    pub fn bitcast_convert(&self, x: XlaOp, ty: ElementType) -> Result<XlaOp, BuildError> {
        let a = self.array_of(Opcode::BitcastConvert.name(), x)?;
        let (wi, wo) = (a.ty.bit_width() as i64, ty.bit_width() as i64);
        let mut dims = a.dims.clone();
        if wi > wo {
            dims.push(wi / wo);
        } else if wi < wo {
            dims.pop();
        }
        self.add_op(Op::BitcastConvert, &[x], &[], Some(Shape::array(ty, dims)))
    }
    pub fn reduce_precision(
        &self,
        x: XlaOp,
        exponent_bits: i32,
        mantissa_bits: i32,
    ) -> Result<XlaOp, BuildError> {
        self.add_op(
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            },
            &[x],
            &[],
            None,
        )
    }

    // ---- shape manipulation ----

    /// Broadcast adding new leading dimensions of sizes `sizes`.
    pub fn broadcast(&self, x: XlaOp, sizes: &[i64]) -> Result<XlaOp, BuildError> {
        let a = self.array_of(Opcode::Broadcast.name(), x)?;
        let mut dims = sizes.to_vec();
        dims.extend(&a.dims);
        let bd: Vec<i64> = (sizes.len() as i64..dims.len() as i64).collect();
        self.add_op(
            Op::Broadcast { dimensions: bd },
            &[x],
            &[],
            Some(Shape::array(a.ty, dims)),
        )
    }
    /// Broadcast into `out_dims`, operand dimension i going to result
    /// dimension `broadcast_dimensions[i]`. An operand dimension of size 1 may
    /// broadcast to any size (it is reshaped away first, as XLA does).
    pub fn broadcast_in_dim(
        &self,
        x: XlaOp,
        out_dims: &[i64],
        broadcast_dimensions: &[i64],
    ) -> Result<XlaOp, BuildError> {
        let a = self.array_of(Opcode::Broadcast.name(), x)?;
        if broadcast_dimensions.len() != a.rank() {
            return Err(invalid(
                Opcode::Broadcast.name(),
                format!(
                    "broadcast_dimensions has {} entries but the operand {} has rank {}",
                    broadcast_dimensions.len(),
                    short(&Shape::Array(a.clone())),
                    a.rank()
                ),
            ));
        }
        let mut keep_dims = Vec::new();
        let mut keep_bd = Vec::new();
        for (i, &od) in broadcast_dimensions.iter().enumerate() {
            let target = usize::try_from(od)
                .ok()
                .and_then(|o| out_dims.get(o))
                .copied();
            if a.dims[i] == 1 && target.is_some_and(|t| t != 1) {
                continue;
            }
            keep_dims.push(a.dims[i]);
            keep_bd.push(od);
        }
        let operand = if keep_dims.len() != a.rank() {
            self.reshape(x, &keep_dims)?
        } else {
            x
        };
        self.add_op(
            Op::Broadcast {
                dimensions: keep_bd,
            },
            &[operand],
            &[],
            Some(Shape::array(a.ty, out_dims.to_vec())),
        )
    }
    pub fn reshape(&self, x: XlaOp, new_sizes: &[i64]) -> Result<XlaOp, BuildError> {
        let a = self.array_of(Opcode::Reshape.name(), x)?;
        self.add_op(
            Op::Reshape,
            &[x],
            &[],
            Some(Shape::array(a.ty, new_sizes.to_vec())),
        )
    }
    /// `bitcast` to `shape` (same byte size).
    pub fn bitcast(&self, x: XlaOp, shape: &Shape) -> Result<XlaOp, BuildError> {
        self.add_op(Op::Bitcast, &[x], &[], Some(shape.clone()))
    }
    pub fn transpose(&self, x: XlaOp, permutation: &[i64]) -> Result<XlaOp, BuildError> {
        self.add_op(
            Op::Transpose {
                dimensions: permutation.to_vec(),
            },
            &[x],
            &[],
            None,
        )
    }
    pub fn rev(&self, x: XlaOp, dimensions: &[i64]) -> Result<XlaOp, BuildError> {
        self.add_op(
            Op::Reverse {
                dimensions: dimensions.to_vec(),
            },
            &[x],
            &[],
            None,
        )
    }
    pub fn slice(
        &self,
        x: XlaOp,
        start: &[i64],
        limit: &[i64],
        strides: &[i64],
    ) -> Result<XlaOp, BuildError> {
        if start.len() != limit.len() || start.len() != strides.len() {
            return Err(invalid(
                Opcode::Slice.name(),
                format!(
                    "start ({}), limit ({}) and strides ({}) must have the same length",
                    start.len(),
                    limit.len(),
                    strides.len()
                ),
            ));
        }
        let dims = (0..start.len())
            .map(|i| SliceDim {
                start: start[i],
                limit: limit[i],
                stride: strides[i],
            })
            .collect();
        self.add_op(Op::Slice { dims }, &[x], &[], None)
    }
    /// Slice `[start:limit:stride]` along one dimension, the others whole.
    pub fn slice_in_dim(
        &self,
        x: XlaOp,
        start: i64,
        limit: i64,
        stride: i64,
        dim: i64,
    ) -> Result<XlaOp, BuildError> {
        let a = self.array_of(Opcode::Slice.name(), x)?;
        let d = usize::try_from(dim)
            .ok()
            .filter(|&d| d < a.rank())
            .ok_or_else(|| {
                invalid(
                    Opcode::Slice.name(),
                    format!("dimension {dim} is out of range for rank {}", a.rank()),
                )
            })?;
        let mut s = vec![0; a.rank()];
        let mut l = a.dims.clone();
        let mut st = vec![1; a.rank()];
        s[d] = start;
        l[d] = limit;
        st[d] = stride;
        self.slice(x, &s, &l, &st)
    }
    pub fn dynamic_slice(
        &self,
        x: XlaOp,
        start_indices: &[XlaOp],
        sizes: &[i64],
    ) -> Result<XlaOp, BuildError> {
        let mut ops = vec![x];
        ops.extend(start_indices);
        self.add_op(
            Op::DynamicSlice {
                sizes: sizes.to_vec(),
            },
            &ops,
            &[],
            None,
        )
    }
    pub fn dynamic_update_slice(
        &self,
        x: XlaOp,
        update: XlaOp,
        start_indices: &[XlaOp],
    ) -> Result<XlaOp, BuildError> {
        let mut ops = vec![x, update];
        ops.extend(start_indices);
        self.add_op(Op::DynamicUpdateSlice, &ops, &[], None)
    }
    pub fn concat_in_dim(&self, operands: &[XlaOp], dimension: i64) -> Result<XlaOp, BuildError> {
        self.add_op(Op::Concatenate { dimension }, operands, &[], None)
    }
    pub fn pad(
        &self,
        x: XlaOp,
        padding_value: XlaOp,
        config: &[PadDim],
    ) -> Result<XlaOp, BuildError> {
        self.add_op(
            Op::Pad {
                dims: config.to_vec(),
            },
            &[x, padding_value],
            &[],
            None,
        )
    }

    // ---- linear algebra ----

    /// XLA's `Dot`: vector/matrix products contracting the last dimension of
    /// `lhs` with the first of `rhs`.
    pub fn dot(&self, lhs: XlaOp, rhs: XlaOp) -> Result<XlaOp, BuildError> {
        let l = self.array_of(Opcode::Dot.name(), lhs)?;
        if l.rank() == 0 || l.rank() > 2 {
            return Err(invalid(
                Opcode::Dot.name(),
                format!(
                    "lhs {} must have rank 1 or 2 (use dot_general)",
                    short(&Shape::Array(l))
                ),
            ));
        }
        let dnums = DotDimensionNumbers {
            lhs_contracting_dims: vec![l.rank() as i64 - 1],
            rhs_contracting_dims: vec![0],
            ..Default::default()
        };
        self.dot_general(lhs, rhs, &dnums, &[])
    }
    pub fn dot_general(
        &self,
        lhs: XlaOp,
        rhs: XlaOp,
        dnums: &DotDimensionNumbers,
        precision: &[Precision],
    ) -> Result<XlaOp, BuildError> {
        self.add_op(dot_op(dnums, precision), &[lhs, rhs], &[], None)
    }
    /// `dot_general` with a preferred result element type (e.g. bf16 x bf16 -> f32).
    pub fn dot_general_with_type(
        &self,
        lhs: XlaOp,
        rhs: XlaOp,
        dnums: &DotDimensionNumbers,
        precision: &[Precision],
        result_type: ElementType,
    ) -> Result<XlaOp, BuildError> {
        let op = dot_op(dnums, precision);
        let (l, r) = (self.get_shape(lhs)?, self.get_shape(rhs)?);
        // Infer the dimensions as if both operands had lhs's type; the result type is given.
        let rt = match (&r, l.element_type()) {
            (Shape::Array(a), Some(t)) => Shape::Array(a.with_type(t)),
            _ => r.clone(),
        };
        let mut shape = infer_shape(&op, &[&l, &rt], &[])?;
        if let Some(a) = shape.as_array_mut() {
            a.ty = result_type;
        }
        self.add_op(op, &[lhs, rhs], &[], Some(shape))
    }

    /// Convolution with explicit strides, padding (lo, hi), lhs (base) and
    /// rhs (window) dilation and dimension numbers.
    #[allow(clippy::too_many_arguments)]
    pub fn conv_general_dilated(
        &self,
        lhs: XlaOp,
        rhs: XlaOp,
        window_strides: &[i64],
        padding: &[(i64, i64)],
        lhs_dilation: &[i64],
        rhs_dilation: &[i64],
        dnums: &ConvDimensionNumbers,
        feature_group_count: i64,
        batch_group_count: i64,
        precision: &[Precision],
    ) -> Result<XlaOp, BuildError> {
        let r = self.array_of(Opcode::Convolution.name(), rhs)?;
        let ns = dnums.kernel_spatial_dimensions.len();
        let mut dims = Vec::with_capacity(ns);
        for i in 0..ns {
            let kd = dnums.kernel_spatial_dimensions[i];
            let size = usize::try_from(kd)
                .ok()
                .and_then(|k| r.dims.get(k))
                .copied()
                .ok_or_else(|| {
                    invalid(
                        Opcode::Convolution.name(),
                        format!(
                            "kernel spatial dimension {kd} is out of range for rhs rank {}",
                            r.rank()
                        ),
                    )
                })?;
            let get = |v: &[i64], what: &str, default: i64| -> Result<i64, BuildError> {
                if v.is_empty() {
                    Ok(default)
                } else {
                    v.get(i).copied().ok_or_else(|| {
                        invalid(
                            Opcode::Convolution.name(),
                            format!("{what} has {} entries, expected {ns}", v.len()),
                        )
                    })
                }
            };
            let (pad_lo, pad_hi) = if padding.is_empty() {
                (0, 0)
            } else {
                *padding.get(i).ok_or_else(|| {
                    invalid(
                        Opcode::Convolution.name(),
                        format!("padding has {} entries, expected {ns}", padding.len()),
                    )
                })?
            };
            dims.push(WindowDim {
                size,
                stride: get(window_strides, "window_strides", 1)?,
                pad_lo,
                pad_hi,
                window_dilation: get(rhs_dilation, "rhs_dilation", 1)?,
                base_dilation: get(lhs_dilation, "lhs_dilation", 1)?,
                reversal: false,
            });
        }
        let op = Op::Convolution(Convolution {
            window: Window { dims },
            dnums: dnums.clone(),
            feature_group_count,
            batch_group_count,
            precision: precision.to_vec(),
        });
        self.add_op(op, &[lhs, rhs], &[], None)
    }

    // ---- reductions and computations ----

    /// Variadic reduce of `operands` with `inits` over `dimensions`.
    pub fn reduce(
        &self,
        operands: &[XlaOp],
        inits: &[XlaOp],
        computation: &XlaComputation,
        dimensions: &[i64],
    ) -> Result<XlaOp, BuildError> {
        let op = Op::Reduce {
            dimensions: dimensions.to_vec(),
        };
        self.reduction(op, operands, inits, computation)
    }
    pub fn reduce_window(
        &self,
        operands: &[XlaOp],
        inits: &[XlaOp],
        computation: &XlaComputation,
        window: &Window,
    ) -> Result<XlaOp, BuildError> {
        let op = Op::ReduceWindow {
            window: window.clone(),
        };
        self.reduction(op, operands, inits, computation)
    }
    /// A variadic reduction `op`: `operands`, then their `inits`, reduced
    /// with `computation`.
    fn reduction(
        &self,
        op: Op,
        operands: &[XlaOp],
        inits: &[XlaOp],
        computation: &XlaComputation,
    ) -> Result<XlaOp, BuildError> {
        let ops: Vec<XlaOp> = operands.iter().chain(inits).copied().collect();
        self.add_op(op, &ops, &[computation], None)
    }
    pub fn select_and_scatter(
        &self,
        operand: XlaOp,
        select: &XlaComputation,
        window: &Window,
        source: XlaOp,
        init: XlaOp,
        scatter: &XlaComputation,
    ) -> Result<XlaOp, BuildError> {
        self.add_op(
            Op::SelectAndScatter {
                window: window.clone(),
            },
            &[operand, source, init],
            &[select, scatter],
            None,
        )
    }
    pub fn gather(
        &self,
        operand: XlaOp,
        start_indices: XlaOp,
        dnums: &GatherDimensionNumbers,
        slice_sizes: &[i64],
        indices_are_sorted: bool,
    ) -> Result<XlaOp, BuildError> {
        let op = Op::Gather {
            dnums: dnums.clone(),
            slice_sizes: slice_sizes.to_vec(),
            indices_are_sorted,
        };
        self.add_op(op, &[operand, start_indices], &[], None)
    }
    #[allow(clippy::too_many_arguments)]
    pub fn scatter(
        &self,
        operands: &[XlaOp],
        scatter_indices: XlaOp,
        updates: &[XlaOp],
        computation: &XlaComputation,
        dnums: &ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
    ) -> Result<XlaOp, BuildError> {
        let mut ops = operands.to_vec();
        ops.push(scatter_indices);
        ops.extend(updates);
        let op = Op::Scatter {
            dnums: dnums.clone(),
            indices_are_sorted,
            unique_indices,
        };
        self.add_op(op, &ops, &[computation], None)
    }
    pub fn sort(
        &self,
        operands: &[XlaOp],
        comparator: &XlaComputation,
        dimension: i64,
        is_stable: bool,
    ) -> Result<XlaOp, BuildError> {
        self.add_op(
            Op::Sort {
                dimension,
                is_stable,
            },
            operands,
            &[comparator],
            None,
        )
    }
    pub fn tuple(&self, elements: &[XlaOp]) -> Result<XlaOp, BuildError> {
        self.add_op(Op::Tuple, elements, &[], None)
    }
    /// The `k` largest (or smallest) elements along the last dimension, and
    /// their s32 indices, as a tuple (XLA's `TopK`).
    pub fn top_k(&self, operand: XlaOp, k: i64, largest: bool) -> Result<XlaOp, BuildError> {
        self.add_op(Op::TopK { k, largest }, &[operand], &[], None)
    }
    pub fn get_tuple_element(&self, tuple: XlaOp, index: i64) -> Result<XlaOp, BuildError> {
        self.add_op(Op::GetTupleElement { index }, &[tuple], &[], None)
    }
    pub fn call(
        &self,
        computation: &XlaComputation,
        operands: &[XlaOp],
    ) -> Result<XlaOp, BuildError> {
        self.add_op(Op::Call, operands, &[computation], None)
    }
    pub fn while_loop(
        &self,
        condition: &XlaComputation,
        body: &XlaComputation,
        init: XlaOp,
    ) -> Result<XlaOp, BuildError> {
        self.add_op(Op::While, &[init], &[condition, body], None)
    }
    /// `conditional` with a pred selector.
    pub fn conditional(
        &self,
        pred: XlaOp,
        true_operand: XlaOp,
        true_computation: &XlaComputation,
        false_operand: XlaOp,
        false_computation: &XlaComputation,
    ) -> Result<XlaOp, BuildError> {
        self.add_op(
            Op::Conditional,
            &[pred, true_operand, false_operand],
            &[true_computation, false_computation],
            None,
        )
    }
    /// `conditional` with an s32 branch index; branch i takes `operands[i]`.
    pub fn conditional_indexed(
        &self,
        branch_index: XlaOp,
        branches: &[&XlaComputation],
        operands: &[XlaOp],
    ) -> Result<XlaOp, BuildError> {
        let mut ops = vec![branch_index];
        ops.extend(operands);
        self.add_op(Op::Conditional, &ops, branches, None)
    }
    pub fn map(
        &self,
        operands: &[XlaOp],
        computation: &XlaComputation,
        dimensions: &[i64],
    ) -> Result<XlaOp, BuildError> {
        self.add_op(
            Op::Map {
                dimensions: dimensions.to_vec(),
            },
            operands,
            &[computation],
            None,
        )
    }
    pub fn copy(&self, x: XlaOp) -> Result<XlaOp, BuildError> {
        self.add_op(Op::Copy, &[x], &[], None)
    }

    /// A custom call to `target` returning `shape`; `opaque` is handed to the
    /// target verbatim.
    #[allow(clippy::too_many_arguments)]
    pub fn custom_call(
        &self,
        target: &str,
        operands: &[XlaOp],
        shape: &Shape,
        opaque: &[u8],
        has_side_effect: bool,
        output_operand_aliasing: &[OutputOperandAlias],
        schedule: CustomCallSchedule,
        api_version: CustomCallApiVersion,
    ) -> Result<XlaOp, BuildError> {
        let cc = CustomCall {
            target: target.to_string(),
            opaque: opaque.to_vec(),
            has_side_effect,
            output_operand_aliasing: output_operand_aliasing.to_vec(),
            schedule,
            api_version,
            operand_layout_constraints: None,
        };
        self.custom_call_op(cc, operands, shape)
    }
    /// The custom call `call` (all its attributes, as another module holds
    /// them) on `operands`, returning `shape`. XLA's `CustomCallWithLayout`
    /// is this with `operand_layout_constraints` set.
    pub fn custom_call_op(
        &self,
        call: CustomCall,
        operands: &[XlaOp],
        shape: &Shape,
    ) -> Result<XlaOp, BuildError> {
        self.add_op(
            Op::CustomCall(Box::new(call)),
            operands,
            &[],
            Some(shape.clone()),
        )
    }
    /// `rng-bit-generator`: returns `(new state, output of shape `shape`)`.
    pub fn rng_bit_generator(
        &self,
        algorithm: RngAlgorithm,
        initial_state: XlaOp,
        shape: &Shape,
    ) -> Result<XlaOp, BuildError> {
        let st = self.get_shape(initial_state)?;
        self.add_op(
            Op::RngBitGenerator { algorithm },
            &[initial_state],
            &[],
            Some(Shape::Tuple(vec![st, shape.clone()])),
        )
    }
    pub fn optimization_barrier(&self, x: XlaOp) -> Result<XlaOp, BuildError> {
        self.add_op(Op::OptimizationBarrier, &[x], &[], None)
    }
    pub fn after_all(&self, tokens: &[XlaOp]) -> Result<XlaOp, BuildError> {
        self.add_op(Op::AfterAll, tokens, &[], None)
    }
    /// A fresh token (`after-all` with no operands).
    pub fn create_token(&self) -> Result<XlaOp, BuildError> {
        self.add_op(Op::AfterAll, &[], &[], None)
    }

    // ---- collectives (one device: see `Op::AllReduce`) ----

    /// `all-reduce` of `operands` (a tuple when there are several) with the
    /// scalar reducer `computation`, over `replica_groups` (empty: every
    /// device).
    pub fn all_reduce(
        &self,
        operands: &[XlaOp],
        computation: &XlaComputation,
        replica_groups: &[Vec<i64>],
    ) -> Result<XlaOp, BuildError> {
        self.add_collective(Op::AllReduce, operands, &[computation], replica_groups)
    }
    /// `all-gather`: every participant's operand, concatenated along
    /// `dimension`.
    pub fn all_gather(
        &self,
        operand: XlaOp,
        dimension: i64,
        replica_groups: &[Vec<i64>],
    ) -> Result<XlaOp, BuildError> {
        let op = |collective| Op::AllGather {
            collective,
            dimension,
        };
        self.add_collective(op, &[operand], &[], replica_groups)
    }
    /// `reduce-scatter`: all-reduce, then this participant's slice of
    /// `dimension`.
    pub fn reduce_scatter(
        &self,
        operand: XlaOp,
        computation: &XlaComputation,
        dimension: i64,
        replica_groups: &[Vec<i64>],
    ) -> Result<XlaOp, BuildError> {
        let op = |collective| Op::ReduceScatter {
            collective,
            dimension,
        };
        self.add_collective(op, &[operand], &[computation], replica_groups)
    }
    /// `all-to-all` of one array split along `split_dimension`.
    pub fn all_to_all(
        &self,
        operand: XlaOp,
        split_dimension: i64,
        replica_groups: &[Vec<i64>],
    ) -> Result<XlaOp, BuildError> {
        let op = |collective| Op::AllToAll {
            collective,
            split_dimension: Some(split_dimension),
        };
        self.add_collective(op, &[operand], &[], replica_groups)
    }
    /// `collective-permute`: `operand` goes from each pair's source device
    /// to its target; a device no pair targets gets zeros.
    pub fn collective_permute(
        &self,
        operand: XlaOp,
        source_target_pairs: &[(i64, i64)],
    ) -> Result<XlaOp, BuildError> {
        self.add_op(
            Op::CollectivePermute {
                channel_id: None,
                source_target_pairs: source_target_pairs.to_vec(),
            },
            &[operand],
            &[],
            None,
        )
    }
    /// `u32[]`: this device's replica number.
    pub fn replica_id(&self) -> Result<XlaOp, BuildError> {
        self.add_op(Op::ReplicaId, &[], &[], None)
    }
    /// `u32[]`: this device's partition number.
    pub fn partition_id(&self) -> Result<XlaOp, BuildError> {
        self.add_op(Op::PartitionId, &[], &[], None)
    }

    /// Adds the collective `op` over `replica_groups` (its other collective
    /// fields default), with its shape inferred.
    fn add_collective(
        &self,
        op: impl FnOnce(Collective) -> Op,
        operands: &[XlaOp],
        called: &[&XlaComputation],
        replica_groups: &[Vec<i64>],
    ) -> Result<XlaOp, BuildError> {
        let collective = Collective {
            replica_groups: ReplicaGroups::List(replica_groups.to_vec()),
            ..Default::default()
        };
        self.add_op(op(collective), operands, called, None)
    }

    // ---- building ----

    /// Builds the computation rooted at `root` (with every computation it
    /// calls) and verifies it.
    pub fn build(&self, root: XlaOp) -> Result<XlaComputation, BuildError> {
        self.check_op("build", 0, root)?;
        let inner = self.inner.borrow();
        let numbers: Vec<u64> = inner.params.keys().copied().collect();
        if numbers.iter().enumerate().any(|(i, &n)| n != i as u64) {
            let s: Vec<String> = numbers.iter().map(|n| n.to_string()).collect();
            return Err(invalid(
                "build",
                format!(
                    "parameter numbers {{{}}} of '{}' must be 0..{} without gaps",
                    s.join(","),
                    self.name,
                    numbers.len()
                ),
            ));
        }
        let comp = Computation {
            name: self.name.clone(),
            instructions: inner.instructions.clone(),
            params: inner.params.values().copied().collect(),
            root: root.id,
            execution_thread: None,
        };
        let mut computations: PrimaryMap<CompId, Computation> = PrimaryMap::new();
        for c in &inner.comps {
            computations.push(c.clone());
        }
        let entry = computations.push(comp);
        let module = Module {
            name: self.name.clone(),
            computations,
            entry,
            input_output_alias: Vec::new(),
            is_scheduled: false,
            frontend_attributes: Vec::new(),
        };
        verify_module(&module).map_err(|error| BuildError::Verify {
            computation: self.name.clone(),
            error,
        })?;
        Ok(XlaComputation {
            module,
            uid: next_uid(),
        })
    }

    /// Builds and returns the module (entry = this computation).
    pub fn build_module(&self, root: XlaOp) -> Result<Module, BuildError> {
        Ok(self.build(root)?.into_module())
    }
}

fn dot_op(dnums: &DotDimensionNumbers, precision: &[Precision]) -> Op {
    Op::Dot {
        dnums: dnums.clone(),
        precision: precision.to_vec(),
    }
}
