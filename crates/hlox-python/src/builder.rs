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
    /// Runs one `XlaBuilder` method on this builder and wraps the op it
    /// made (or its error) for Python: the shared body of every op method.
    fn with(
        slf: &Bound<'_, Builder>,
        build: impl FnOnce(&XlaBuilder) -> Result<XlaOp, BuildError>,
    ) -> PyResult<Op> {
        let op = build(&slf.borrow().inner).map_err(build_err)?;
        Ok(Op {
            builder: slf.clone().unbind(),
            op,
        })
    }
}

fn ops(v: &[PyRef<'_, Op>]) -> Vec<XlaOp> {
    v.iter().map(|o| o.op).collect()
}

/// Generates `#[pymethods] impl Builder`: one method per element-wise op of
/// the lists (each calls the `XlaBuilder` method of the same meaning), then
/// the hand-written methods. A `macro_rules` inside a `#[pymethods]` block
/// is not expanded before PyO3 reads it, so the macro wraps the whole block.
macro_rules! builder_pymethods {
    (
        unary: [$($un:ident => $un_xla:ident),* $(,)?],
        binary: [$($bin:ident => $bin_xla:ident),* $(,)?],
        ternary: [$($ter:ident($a:ident, $b:ident, $c:ident)),* $(,)?],
        $($methods:tt)*
    ) => {
        #[pymethods]
        impl Builder {
            $(
                #[doc = concat!("Element-wise `", stringify!($un_xla), "`.")]
                fn $un(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>) -> PyResult<Op> {
                    Builder::with(slf, |bld| bld.$un_xla(x.op))
                }
            )*
            $(
                #[doc = concat!("Element-wise `", stringify!($bin_xla), "`.")]
                fn $bin(
                    slf: &Bound<'_, Builder>,
                    a: PyRef<'_, Op>,
                    b: PyRef<'_, Op>,
                ) -> PyResult<Op> {
                    Builder::with(slf, |bld| bld.$bin_xla(a.op, b.op))
                }
            )*
            $(
                #[doc = concat!(
                    "Element-wise `", stringify!($ter), "(", stringify!($a), ", ",
                    stringify!($b), ", ", stringify!($c), ")`."
                )]
                fn $ter(
                    slf: &Bound<'_, Builder>,
                    $a: PyRef<'_, Op>,
                    $b: PyRef<'_, Op>,
                    $c: PyRef<'_, Op>,
                ) -> PyResult<Op> {
                    Builder::with(slf, |bld| bld.$ter($a.op, $b.op, $c.op))
                }
            )*
            $($methods)*
        }
    };
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

builder_pymethods! {
    unary: [
        neg => neg, abs => abs, exp => exp, log => log, tanh => tanh, sqrt => sqrt, rsqrt => rsqrt,
        logistic => logistic, sin => sin, cos => cos, floor => floor, ceil => ceil, sign => sign,
        not_ => not, expm1 => expm1, log1p => log1p, is_finite => is_finite,
    ],
    binary: [
        add => add, sub => sub, mul => mul, div => div, rem => rem, pow => pow, max => max,
        min => min, and_ => and, or_ => or, atan2 => atan2,
    ],
    ternary: [select(pred, on_true, on_false), clamp(min, x, max)],

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
        Builder::with(slf, |bld| bld.parameter(number, &shape.inner, &n))
    }

    /// A constant from a numpy array or scalar (`dtype` converts it first).
    #[pyo3(signature = (value, dtype = None))]
    fn constant(
        slf: &Bound<'_, Builder>,
        value: &Bound<'_, PyAny>,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Op> {
        let lit = literal(slf.py(), value, dtype)?;
        Builder::with(slf, |bld| bld.constant_literal(&lit))
    }

    /// The shape of `op`.
    fn get_shape(&self, op: PyRef<'_, Op>) -> PyResult<Shape> {
        Ok(Shape {
            inner: self.inner.get_shape(op.op).map_err(build_err)?,
        })
    }

    /// Matrix/vector product (XLA's `Dot`).
    fn dot(slf: &Bound<'_, Builder>, a: PyRef<'_, Op>, b: PyRef<'_, Op>) -> PyResult<Op> {
        Builder::with(slf, |bld| bld.dot(a.op, b.op))
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
        Builder::with(slf, |bld| bld.dot_general(lhs.op, rhs.op, &d, &[]))
    }

    /// `compare(lhs, rhs, "LT")`: a pred array.
    fn compare(
        slf: &Bound<'_, Builder>,
        lhs: PyRef<'_, Op>,
        rhs: PyRef<'_, Op>,
        direction: &str,
    ) -> PyResult<Op> {
        let d = self::direction(direction)?;
        Builder::with(slf, |bld| bld.compare(d, lhs.op, rhs.op))
    }

    /// `convert(x, "f64")`.
    fn convert(
        slf: &Bound<'_, Builder>,
        x: PyRef<'_, Op>,
        dtype: &Bound<'_, PyAny>,
    ) -> PyResult<Op> {
        let t = dtype::parse_element(slf.py(), dtype)?;
        Builder::with(slf, |bld| bld.convert(x.op, t))
    }

    fn broadcast_in_dim(
        slf: &Bound<'_, Builder>,
        x: PyRef<'_, Op>,
        shape: Vec<i64>,
        broadcast_dimensions: Vec<i64>,
    ) -> PyResult<Op> {
        Builder::with(slf, |bld| bld.broadcast_in_dim(x.op, &shape, &broadcast_dimensions))
    }

    fn reshape(slf: &Bound<'_, Builder>, x: PyRef<'_, Op>, shape: Vec<i64>) -> PyResult<Op> {
        Builder::with(slf, |bld| bld.reshape(x.op, &shape))
    }

    fn transpose(
        slf: &Bound<'_, Builder>,
        x: PyRef<'_, Op>,
        permutation: Vec<i64>,
    ) -> PyResult<Op> {
        Builder::with(slf, |bld| bld.transpose(x.op, &permutation))
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
        Builder::with(slf, |bld| bld.slice(x.op, &start, &limit, &strides))
    }

    fn concatenate(
        slf: &Bound<'_, Builder>,
        operands: Vec<PyRef<'_, Op>>,
        dimension: i64,
    ) -> PyResult<Op> {
        Builder::with(slf, |bld| bld.concat_in_dim(&ops(&operands), dimension))
    }

    /// `iota(shape, dimension)`.
    fn iota(slf: &Bound<'_, Builder>, shape: &Shape, dimension: i64) -> PyResult<Op> {
        Builder::with(slf, |bld| bld.iota(&shape.inner, dimension))
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
        Builder::with(slf, |bld| bld.reduce(&[operand.op], &[init.op], &c, &dimensions))
    }

    /// `while_loop(condition, body, init)` (both Modules of one parameter).
    fn while_loop(
        slf: &Bound<'_, Builder>,
        condition: &Module,
        body: &Module,
        init: PyRef<'_, Op>,
    ) -> PyResult<Op> {
        let (c, b) = (comp(condition)?, comp(body)?);
        Builder::with(slf, |bld| bld.while_loop(&c, &b, init.op))
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
        Builder::with(slf, |bld| {
            bld.conditional(pred.op, true_operand.op, &t, false_operand.op, &f)
        })
    }

    /// `call(computation, operands)`.
    fn call(
        slf: &Bound<'_, Builder>,
        computation: &Module,
        operands: Vec<PyRef<'_, Op>>,
    ) -> PyResult<Op> {
        let c = comp(computation)?;
        Builder::with(slf, |bld| bld.call(&c, &ops(&operands)))
    }

    fn tuple(slf: &Bound<'_, Builder>, elements: Vec<PyRef<'_, Op>>) -> PyResult<Op> {
        Builder::with(slf, |bld| bld.tuple(&ops(&elements)))
    }

    fn get_tuple_element(
        slf: &Bound<'_, Builder>,
        tuple: PyRef<'_, Op>,
        index: i64,
    ) -> PyResult<Op> {
        Builder::with(slf, |bld| bld.get_tuple_element(tuple.op, index))
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
        Builder::with(slf, |bld| bld.custom_call(
            target,
            &ops(&operands),
            &shape.inner,
            &opaque,
            has_side_effect,
            &aliasing,
            CustomCallSchedule::default(),
            v,
        ))
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
        other: &Bound<'_, PyAny>,
        swap: bool,
        build: fn(&XlaBuilder, XlaOp, XlaOp) -> Result<XlaOp, BuildError>,
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
        Builder::with(b, |bld| build(bld, x, y))
    }
}

/// Generates `#[pymethods] impl Op`: each Python operator (and its
/// reflected form, `2 * x`) calls [`Op::binop`] with its `XlaBuilder` method,
/// then the hand-written methods (see `builder_pymethods!` for why the macro
/// wraps the whole block).
macro_rules! op_pymethods {
    (
        operators: [$($op:ident $(/ $reflected:ident)? => $xla:ident),* $(,)?],
        $($methods:tt)*
    ) => {
        #[pymethods]
        impl Op {
            $(
                fn $op(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
                    self.binop(py, o, false, XlaBuilder::$xla)
                }
                $(
                    fn $reflected(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Op> {
                        self.binop(py, o, true, XlaBuilder::$xla)
                    }
                )?
            )*
            $($methods)*
        }
    };
}

op_pymethods! {
    operators: [
        __add__ / __radd__ => add,
        __sub__ / __rsub__ => sub,
        __mul__ / __rmul__ => mul,
        __truediv__ / __rtruediv__ => div,
        __matmul__ => dot,
    ],

    fn __neg__(&self, py: Python<'_>) -> PyResult<Op> {
        Builder::with(self.builder.bind(py), |bld| bld.neg(self.op))
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
