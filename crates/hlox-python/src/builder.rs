//! `hlox.Builder` and `hlox.Op`: XLA's builder (hlox-hlo's `XlaBuilder`)
//! from Python, with operators on ops.

use crate::dtype;
use crate::errors;
use crate::module::{Module, Shape};
use hlox_hlo::builder::{BuildError, XlaBuilder, XlaComputation, XlaOp};
use hlox_hlo::{
    ArrayLiteral, ArrayShape, ComparisonDirection, CustomCallApiVersion, CustomCallSchedule,
    DotDimensionNumbers, Literal, OutputOperandAlias,
};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// Builds one computation, op by op, as XLA's `XlaBuilder` does.
///
/// >>> b = hlox.Builder("axpy")
/// >>> x = b.parameter(0, hlox.Shape.array("f32", (4,)), "x")
/// >>> y = b.parameter(1, hlox.Shape.array("f32", (4,)), "y")
/// >>> m = b.build(b.constant(np.float32(2)) * x + y)
#[pyclass(name = "Builder", module = "hlox", unsendable)]
pub struct Builder {
    inner: XlaBuilder,
}

/// An op of a `Builder` (Python operators build more ops: `+ - * / @`,
/// unary `-`).
#[pyclass(name = "Op", module = "hlox", unsendable)]
pub struct Op {
    builder: Py<Builder>,
    op: XlaOp,
}

fn build_err(e: BuildError) -> PyErr {
    errors::Error::new_err(e.to_string())
}

fn comp(m: &Module) -> PyResult<XlaComputation> {
    XlaComputation::from_module(m.inner.clone()).map_err(build_err)
}

impl Builder {
    fn op(slf: &Bound<'_, Builder>, r: Result<XlaOp, BuildError>) -> PyResult<Op> {
        Ok(Op {
            builder: slf.clone().unbind(),
            op: r.map_err(build_err)?,
        })
    }
}

fn ops(v: &[PyRef<'_, Op>]) -> Vec<XlaOp> {
    v.iter().map(|o| o.op).collect()
}

fn dims_vec(x: Vec<i64>) -> Vec<i64> {
    x
}

fn _builder_binary(
    builder: &Bound<'_, Builder>,
    name: &str,
    a: PyRef<'_, Op>,
    b: PyRef<'_, Op>,
) -> PyResult<Op> {
    let r = {
        let bb = builder.borrow();
        let x = &bb.inner;
        match name {
            "add" => x.add(a.op, b.op),
            "sub" => x.sub(a.op, b.op),
            "mul" => x.mul(a.op, b.op),
            "div" => x.div(a.op, b.op),
            "rem" => x.rem(a.op, b.op),
            "pow" => x.pow(a.op, b.op),
            "max" => x.max(a.op, b.op),
            "min" => x.min(a.op, b.op),
            "and" => x.and(a.op, b.op),
            "or" => x.or(a.op, b.op),
            "xor" => x.xor(a.op, b.op),
            "atan2" => x.atan2(a.op, b.op),
            "dot" => x.dot(a.op, b.op),
            _ => return Err(PyValueError::new_err(format!("unknown binary op {name}"))),
        }
    };
    Builder::op(builder, r)
}

/// A literal from a numpy array or a Python/numpy scalar.
fn literal(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    dtype_arg: Option<&Bound<'_, PyAny>>,
) -> PyResult<Literal> {
    let np = py.import("numpy")?;
    let arr = match dtype_arg {
        Some(d) => {
            let t = dtype::parse_element(py, d)?;
            np.getattr("asarray")?
                .call1((value, dtype::descr_of(py, t)?))?
        }
        None => np.getattr("asarray")?.call1((value,))?,
    };
    // np.array(.., order="C") keeps 0-d arrays 0-d (ascontiguousarray does not).
    let kw = pyo3::types::PyDict::new(py);
    kw.set_item("order", "C")?;
    let arr = np
        .getattr("array")?
        .call((arr,), Some(&kw))?
        .cast_into::<PyUntypedArray>()?;
    let t = dtype::element_of(py, &arr.dtype())?.ok_or_else(|| {
        PyValueError::new_err(format!(
            "constant: numpy dtype {} has no HLO element type",
            arr.dtype()
        ))
    })?;
    let dims: Vec<i64> = arr.shape().iter().map(|&d| d as i64).collect();
    let bytes = dtype::bytes_of(&arr);
    Ok(Literal::Array(
        ArrayLiteral::from_bytes(ArrayShape::new(t, dims), bytes)
            .map_err(|e| PyValueError::new_err(e.to_string()))?,
    ))
}

fn direction(s: &str) -> PyResult<ComparisonDirection> {
    ComparisonDirection::from_name(&s.to_ascii_uppercase()).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown comparison direction \"{s}\": use EQ, NE, LT, LE, GT or GE"
        ))
    })
}

#[pymethods]
impl Builder {
    #[new]
    fn new(name: &str) -> Builder {
        Builder {
            inner: XlaBuilder::new(name),
        }
    }

    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// Parameter `number` of shape `shape`.
    #[pyo3(signature = (number, shape, name = None))]
    fn parameter(
        slf: &Bound<'_, Builder>,
        number: u64,
        shape: &Shape,
        name: Option<&str>,
    ) -> PyResult<Op> {
        let n = name
            .map(|s| s.to_string())
            .unwrap_or_else(|| format!("p{number}"));
        let r = slf.borrow().inner.parameter(number, &shape.inner, &n);
        Builder::op(slf, r)
    }

    /// A constant from a numpy array or scalar (`dtype` converts it first).
    #[pyo3(signature = (value, dtype = None))]
    fn constant(
        slf: &Bound<'_, Builder>,
        value: &Bound<'_, PyAny>,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Op> {
        let lit = literal(slf.py(), value, dtype)?;
        let r = slf.borrow().inner.constant_literal(&lit);
        Builder::op(slf, r)
    }

    /// The shape of `op`.
    fn get_shape(&self, op: PyRef<'_, Op>) -> PyResult<Shape> {
        Ok(Shape {
            inner: self.inner.get_shape(op.op).map_err(build_err)?,
        })
    }

    fn add(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "add", a, b)
    }
    fn sub(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "sub", a, b)
    }
    fn mul(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "mul", a, b)
    }
    fn div(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "div", a, b)
    }
    fn rem(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "rem", a, b)
    }
    fn pow(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "pow", a, b)
    }
    fn max(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "max", a, b)
    }
    fn min(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "min", a, b)
    }
    fn and_(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "and", a, b)
    }
    fn or_(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "or", a, b)
    }
    fn atan2(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "atan2", a, b)
    }
    /// Element-wise `neg`.
    fn neg(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.neg(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `abs`.
    fn abs(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.abs(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `exp`.
    fn exp(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.exp(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `log`.
    fn log(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.log(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `tanh`.
    fn tanh(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.tanh(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `sqrt`.
    fn sqrt(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.sqrt(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `rsqrt`.
    fn rsqrt(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.rsqrt(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `logistic`.
    fn logistic(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.logistic(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `sin`.
    fn sin(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.sin(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `cos`.
    fn cos(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.cos(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `floor`.
    fn floor(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.floor(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `ceil`.
    fn ceil(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.ceil(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `sign`.
    fn sign(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.sign(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `not`.
    fn not_(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.not(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `expm1`.
    fn expm1(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.expm1(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `log1p`.
    fn log1p(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.log1p(x.op);
        Builder::op(slf, r)
    }
    /// Element-wise `is_finite`.
    fn is_finite(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
        let r = slf.borrow().inner.is_finite(x.op);
        Builder::op(slf, r)
    }
    /// Matrix/vector product (XLA's `Dot`).
    fn dot(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        _builder_binary(slf, "dot", a, b)
    }

    /// `dot_general` with XLA's dimension numbers.
    #[pyo3(signature = (lhs, rhs, lhs_contracting_dims, rhs_contracting_dims, lhs_batch_dims = Vec::new(), rhs_batch_dims = Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn dot_general(
        slf: &Bound<'_, Builder>,
        lhs: PyRef<'_, Op>,
        rhs: PyRef<'_, Op>,
        lhs_contracting_dims: Vec<i64>,
        rhs_contracting_dims: Vec<i64>,
        lhs_batch_dims: Vec<i64>,
        rhs_batch_dims: Vec<i64>,
    ) -> PyResult<Op> {
        let d = DotDimensionNumbers {
            lhs_batch_dims,
            rhs_batch_dims,
            lhs_contracting_dims,
            rhs_contracting_dims,
        };
        let r = slf.borrow().inner.dot_general(lhs.op, rhs.op, &d, &[]);
        Builder::op(slf, r)
    }

    /// `compare(lhs, rhs, "LT")`: a pred array.
    fn compare(
        slf: &Bound<'_, Builder>,
        lhs: PyRef<'_, Op>,
        rhs: PyRef<'_, Op>,
        direction: &str,
    ) -> PyResult<Op> {
        let d = self::direction(direction)?;
        let r = slf.borrow().inner.compare(d, lhs.op, rhs.op);
        Builder::op(slf, r)
    }

    fn select(
        slf: &Bound<'_, Builder>,
        pred: PyRef<'_, Op>,
        on_true: PyRef<'_, Op>,
        on_false: PyRef<'_, Op>,
    ) -> PyResult<Op> {
        let r = slf.borrow().inner.select(pred.op, on_true.op, on_false.op);
        Builder::op(slf, r)
    }

    fn clamp(
        slf: &Bound<'_, Builder>,
        min: PyRef<'_, Op>,
        x: PyRef<'_, Op>,
        max: PyRef<'_, Op>,
    ) -> PyResult<Op> {
        let r = slf.borrow().inner.clamp(min.op, x.op, max.op);
        Builder::op(slf, r)
    }

    /// `convert(x, "f64")`.
    fn convert(
        slf: &Bound<'_, Builder>,
        x: PyRef<'_, Op>,
        dtype: &Bound<'_, PyAny>,
    ) -> PyResult<Op> {
        let t = dtype::parse_element(slf.py(), dtype)?;
        let r = slf.borrow().inner.convert(x.op, t);
        Builder::op(slf, r)
    }

    fn broadcast_in_dim(
        slf: &Bound<'_, Builder>,
        x: PyRef<'_, Op>,
        shape: Vec<i64>,
        broadcast_dimensions: Vec<i64>,
    ) -> PyResult<Op> {
        let r = slf
            .borrow()
            .inner
            .broadcast_in_dim(x.op, &shape, &broadcast_dimensions);
        Builder::op(slf, r)
    }

    fn reshape(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>, shape: Vec<i64>) -> PyResult<Op> {
        let r = slf.borrow().inner.reshape(x.op, &dims_vec(shape));
        Builder::op(slf, r)
    }

    fn transpose(
        slf: &Bound<'_, Builder>,
        x: PyRef<'_, Op>,
        permutation: Vec<i64>,
    ) -> PyResult<Op> {
        let r = slf.borrow().inner.transpose(x.op, &permutation);
        Builder::op(slf, r)
    }

    #[pyo3(signature = (x, start, limit, strides = None))]
    fn slice(
        slf: &Bound<'_, Builder>,
        x: PyRef<'_, Op>,
        start: Vec<i64>,
        limit: Vec<i64>,
        strides: Option<Vec<i64>>,
    ) -> PyResult<Op> {
        let strides = strides.unwrap_or_else(|| vec![1; start.len()]);
        let r = slf.borrow().inner.slice(x.op, &start, &limit, &strides);
        Builder::op(slf, r)
    }

    fn concatenate(
        slf: &Bound<'_, Builder>,
        operands: Vec<PyRef<'_, Op>>,
        dimension: i64,
    ) -> PyResult<Op> {
        let r = slf.borrow().inner.concat_in_dim(&ops(&operands), dimension);
        Builder::op(slf, r)
    }

    /// `iota(shape, dimension)`.
    fn iota(slf: &Bound<'_, Builder>, shape: &Shape, dimension: i64) -> PyResult<Op> {
        let r = slf.borrow().inner.iota(&shape.inner, dimension);
        Builder::op(slf, r)
    }

    /// `reduce(operand, init, computation, dimensions)`: `computation` is a
    /// Module built by another Builder (two scalar parameters).
    fn reduce(
        slf: &Bound<'_, Builder>,
        operand: PyRef<'_, Op>,
        init: PyRef<'_, Op>,
        computation: &Module,
        dimensions: Vec<i64>,
    ) -> PyResult<Op> {
        let c = comp(computation)?;
        let r = slf
            .borrow()
            .inner
            .reduce(&[operand.op], &[init.op], &c, &dimensions);
        Builder::op(slf, r)
    }

    /// `while_loop(condition, body, init)` (both Modules of one parameter).
    fn while_loop(
        slf: &Bound<'_, Builder>,
        condition: &Module,
        body: &Module,
        init: PyRef<'_, Op>,
    ) -> PyResult<Op> {
        let (c, b) = (comp(condition)?, comp(body)?);
        let r = slf.borrow().inner.while_loop(&c, &b, init.op);
        Builder::op(slf, r)
    }

    /// `conditional(pred, true_operand, true_computation, false_operand, false_computation)`.
    fn conditional(
        slf: &Bound<'_, Builder>,
        pred: PyRef<'_, Op>,
        true_operand: PyRef<'_, Op>,
        true_computation: &Module,
        false_operand: PyRef<'_, Op>,
        false_computation: &Module,
    ) -> PyResult<Op> {
        let (t, f) = (comp(true_computation)?, comp(false_computation)?);
        let r = slf
            .borrow()
            .inner
            .conditional(pred.op, true_operand.op, &t, false_operand.op, &f);
        Builder::op(slf, r)
    }

    /// `call(computation, operands)`.
    fn call(
        slf: &Bound<'_, Builder>,
        computation: &Module,
        operands: Vec<PyRef<'_, Op>>,
    ) -> PyResult<Op> {
        let c = comp(computation)?;
        let r = slf.borrow().inner.call(&c, &ops(&operands));
        Builder::op(slf, r)
    }

    fn tuple(slf: &Bound<'_, Builder>, elements: Vec<PyRef<'_, Op>>) -> PyResult<Op> {
        let r = slf.borrow().inner.tuple(&ops(&elements));
        Builder::op(slf, r)
    }

    fn get_tuple_element(
        slf: &Bound<'_, Builder>,
        tuple: PyRef<'_, Op>,
        index: i64,
    ) -> PyResult<Op> {
        let r = slf.borrow().inner.get_tuple_element(tuple.op, index);
        Builder::op(slf, r)
    }

    /// A custom call to `target` with result `shape`. `api_version` is
    /// XLA's: 1 ORIGINAL, 2 STATUS_RETURNING, 3 STATUS_RETURNING_UNIFIED,
    /// 4 TYPED_FFI (whose `opaque` is the backend_config attribute
    /// dictionary, e.g. b"{alpha = 2.0 : f32}").
    /// `output_operand_aliasing` is a sequence of
    /// `(output_index_tuple, operand, operand_index_tuple)`.
    #[pyo3(signature = (target, operands, shape, opaque = b"".to_vec(), has_side_effect = false, output_operand_aliasing = Vec::new(), api_version = 1))]
    #[allow(clippy::too_many_arguments)]
    fn custom_call(
        slf: &Bound<'_, Builder>,
        target: &str,
        operands: Vec<PyRef<'_, Op>>,
        shape: &Shape,
        opaque: Vec<u8>,
        has_side_effect: bool,
        output_operand_aliasing: Vec<(Vec<i64>, i64, Vec<i64>)>,
        api_version: i32,
    ) -> PyResult<Op> {
        let v = match api_version {
            1 => CustomCallApiVersion::Original,
            2 => CustomCallApiVersion::StatusReturning,
            3 => CustomCallApiVersion::StatusReturningUnified,
            4 => CustomCallApiVersion::TypedFfi,
            v => {
                return Err(PyValueError::new_err(format!(
                    "custom_call(\"{target}\"): api_version {v} is not 1, 2, 3 or 4"
                )))
            }
        };
        let aliasing: Vec<OutputOperandAlias> = output_operand_aliasing
            .into_iter()
            .map(
                |(output_index, operand, operand_index)| OutputOperandAlias {
                    output_index,
                    operand,
                    operand_index,
                },
            )
            .collect();
        let r = slf.borrow().inner.custom_call(
            target,
            &ops(&operands),
            &shape.inner,
            &opaque,
            has_side_effect,
            &aliasing,
            CustomCallSchedule::default(),
            v,
        );
        Builder::op(slf, r)
    }

    /// Builds the computation rooted at `root` (verified) as a Module.
    fn build(&self, root: PyRef<'_, Op>) -> PyResult<Module> {
        let m = self.inner.build_module(root.op).map_err(|e| match e {
            BuildError::Verify { .. } => errors::VerifyError::new_err(e.to_string()),
            e => build_err(e),
        })?;
        Module::new(m)
    }

    fn __repr__(&self) -> String {
        format!("<hlox.Builder {}>", self.inner.name())
    }
}

fn same_builder(a: &Op, b: &Bound<'_, PyAny>) -> PyResult<Option<XlaOp>> {
    match b.cast::<Op>() {
        Ok(o) => {
            let o = o.borrow();
            if !o.builder.is(&a.builder) {
                return Err(PyValueError::new_err(
                    "the two ops belong to different Builders",
                ));
            }
            Ok(Some(o.op))
        }
        Err(_) => Ok(None),
    }
}

impl Op {
    /// `self OP other` where `other` is an op or a scalar (made a constant of
    /// this op's element type).
    fn binop(
        &self,
        py: Python<'_>,
        name: &str,
        other: &Bound<'_, PyAny>,
        swap: bool,
    ) -> PyResult<Op> {
        let b = self.builder.bind(py);
        let rhs = match same_builder(self, other)? {
            Some(o) => o,
            None => {
                let shape = b.borrow().inner.get_shape(self.op).map_err(build_err)?;
                let ty = shape
                    .as_array()
                    .map(|a| a.ty)
                    .ok_or_else(|| PyValueError::new_err("arithmetic on a tuple op"))?;
                let lit = literal(py, other, Some(&dtype::descr_of(py, ty)?.into_any()))?;
                let c = b.borrow().inner.constant_literal(&lit).map_err(build_err)?;
                // A scalar broadcasts to this op's shape.
                let dims = shape.as_array().map(|a| a.dims.clone()).unwrap_or_default();
                if lit
                    .shape()
                    .as_array()
                    .map(|a| a.dims.is_empty())
                    .unwrap_or(false)
                    && !dims.is_empty()
                {
                    b.borrow()
                        .inner
                        .broadcast_in_dim(c, &dims, &[])
                        .map_err(build_err)?
                } else {
                    c
                }
            }
        };
        let (x, y) = if swap { (rhs, self.op) } else { (self.op, rhs) };
        let r = {
            let bb = b.borrow();
            let i = &bb.inner;
            match name {
                "add" => i.add(x, y),
                "sub" => i.sub(x, y),
                "mul" => i.mul(x, y),
                "div" => i.div(x, y),
                "dot" => i.dot(x, y),
                _ => return Err(PyValueError::new_err(format!("unknown op {name}"))),
            }
        };
        Builder::op(b, r)
    }
}

#[pymethods]
impl Op {
    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
        self.binop(py, "add", o, false)
    }
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
        self.binop(py, "add", o, true)
    }
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
        self.binop(py, "sub", o, false)
    }
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
        self.binop(py, "sub", o, true)
    }
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
        self.binop(py, "mul", o, false)
    }
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
        self.binop(py, "mul", o, true)
    }
    fn __truediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
        self.binop(py, "div", o, false)
    }
    fn __rtruediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
        self.binop(py, "div", o, true)
    }
    fn __matmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
        self.binop(py, "dot", o, false)
    }
    fn __neg__(&self, py: Python<'_>) -> PyResult<Op> {
        let b = self.builder.bind(py);
        let r = b.borrow().inner.neg(self.op);
        Builder::op(b, r)
    }

    /// The op's shape.
    #[getter]
    fn shape(&self, py: Python<'_>) -> PyResult<Shape> {
        Ok(Shape {
            inner: self
                .builder
                .bind(py)
                .borrow()
                .inner
                .get_shape(self.op)
                .map_err(build_err)?,
        })
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        match self.builder.bind(py).borrow().inner.get_shape(self.op) {
            Ok(s) => format!("<hlox.Op {s}>"),
            Err(_) => "<hlox.Op>".into(),
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Builder>()?;
    m.add_class::<Op>()?;
    let _ = PyTuple::empty(m.py());
    Ok(())
}
