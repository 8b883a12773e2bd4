//! `hlox.Module`, `hlox.Shape`, `hlox.load`.

use crate::dtype;
use crate::errors;
use hlox_hlo::Shape as HloShape;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// A verified HLO module (from text, a serialized HloModuleProto, a file,
/// or `Builder.build`).
///
/// >>> m = hlox.Module.from_text(open("add.hlo").read())
/// >>> m.name
/// 'add'
#[pyclass(name = "Module", module = "hlox", frozen)]
pub struct Module {
    pub inner: hlox_hlo::Module,
}

fn verify(m: hlox_hlo::Module) -> PyResult<Module> {
    hlox_hlo::verifier::verify_module(&m).map_err(|e| {
        errors::VerifyError::new_err(format!("module {} does not verify:\n{e}", m.name))
    })?;
    Ok(Module { inner: m })
}

impl Module {
    pub fn new(m: hlox_hlo::Module) -> PyResult<Module> {
        verify(m)
    }
}

#[pymethods]
impl Module {
    /// Parses and verifies HLO text. Raises `ParseError` (with `.line`,
    /// `.column`) or `VerifyError`.
    #[staticmethod]
    fn from_text(py: Python<'_>, text: &str) -> PyResult<Module> {
        if text.trim_start().starts_with("module @") || text.contains("stablehlo.") {
            return Err(errors::parse_error_nopos(
                py,
                "this is StableHLO MLIR, which hlox does not read: export HLO text with \
                 `jax.jit(f).lower(*args).as_text(dialect=\"hlo\")` (or use hlox.jit)"
                    .into(),
            ));
        }
        let m = hlox_hlo::text::parse_module(text).map_err(|e| errors::parse_error(py, &e))?;
        verify(m)
    }

    /// Decodes and verifies a serialized `HloModuleProto` (what
    /// `as_serialized_hlo_module_proto()` returns).
    #[staticmethod]
    fn from_proto(py: Python<'_>, data: &[u8]) -> PyResult<Module> {
        let m = hlox_hlo::proto::decode_module(data)
            .map_err(|e| errors::parse_error_nopos(py, e.to_string()))?;
        verify(m)
    }

    /// The module as HLO text.
    fn to_text(&self) -> String {
        hlox_hlo::text::print::print_module(&self.inner)
    }

    /// The module as a serialized `HloModuleProto`.
    fn to_proto<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &hlox_hlo::proto::encode_module(&self.inner))
    }

    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// The entry computation's parameter shapes.
    #[getter]
    fn parameter_shapes(&self) -> Vec<Shape> {
        self.inner
            .entry_computation_layout()
            .parameters
            .into_iter()
            .map(|s| Shape { inner: s })
            .collect()
    }

    /// The entry computation's result shape.
    #[getter]
    fn result_shape(&self) -> Shape {
        Shape {
            inner: self.inner.entry_computation_layout().result,
        }
    }

    fn __str__(&self) -> String {
        self.to_text()
    }

    fn __repr__(&self) -> String {
        let ps = self.inner.entry_computation_layout();
        let params: Vec<String> = ps.parameters.iter().map(fmt_shape).collect();
        format!(
            "<hlox.Module {}: ({}) -> {}>",
            self.inner.name,
            params.join(", "),
            fmt_shape(&ps.result)
        )
    }
}

/// An HLO shape: an array (element type and dimensions) or a tuple.
///
/// >>> hlox.Shape.array("f32", (2, 3))
/// Shape(f32[2,3])
#[pyclass(name = "Shape", module = "hlox", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct Shape {
    pub inner: HloShape,
}

#[pymethods]
impl Shape {
    /// An array shape: `dtype` is an HLO name ("f32") or a numpy dtype.
    #[staticmethod]
    fn array(py: Python<'_>, dtype: &Bound<'_, PyAny>, dims: Vec<i64>) -> PyResult<Shape> {
        let t = dtype::parse_element(py, dtype)?;
        if let Some(d) = dims.iter().find(|&&d| d < 0) {
            return Err(PyValueError::new_err(format!(
                "Shape.array: dimension {d} is negative"
            )));
        }
        Ok(Shape {
            inner: HloShape::array(t, dims),
        })
    }

    /// A tuple shape of `elements`.
    #[staticmethod]
    fn tuple(elements: Vec<Shape>) -> Shape {
        Shape {
            inner: HloShape::tuple(elements.into_iter().map(|s| s.inner).collect::<Vec<_>>()),
        }
    }

    /// The token shape (side-effect ordering).
    #[staticmethod]
    fn token() -> Shape {
        Shape {
            inner: HloShape::Token,
        }
    }

    /// The element type's HLO name ("f32"); None for tuples and tokens.
    #[getter]
    fn dtype(&self) -> Option<&'static str> {
        self.inner.as_array().map(|a| a.ty.name())
    }

    /// The numpy dtype; None for tuples and tokens.
    #[getter]
    fn numpy_dtype<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.inner.as_array() {
            Some(a) => Ok(Some(dtype::descr_of(py, a.ty)?.into_any())),
            None => Ok(None),
        }
    }

    /// The dimensions (empty for scalars, tuples and tokens).
    #[getter]
    fn dims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let d: Vec<i64> = self
            .inner
            .as_array()
            .map(|a| a.dims.clone())
            .unwrap_or_default();
        PyTuple::new(py, d)
    }

    #[getter]
    fn is_tuple(&self) -> bool {
        matches!(self.inner, HloShape::Tuple(_))
    }

    /// A tuple's elements (empty for arrays).
    #[getter]
    fn elements(&self) -> Vec<Shape> {
        match &self.inner {
            HloShape::Tuple(t) => t.iter().map(|s| Shape { inner: s.clone() }).collect(),
            _ => Vec::new(),
        }
    }

    fn __repr__(&self) -> String {
        format!("Shape({})", fmt_shape(&self.inner))
    }

    fn __str__(&self) -> String {
        fmt_shape(&self.inner)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.to_string().hash(&mut h);
        h.finish()
    }
}

/// A shape as HLO text, with layouts only where they are not the default
/// (row-major) one: `f32[2,3]`, `(f32[4], s32[])`.
pub fn fmt_shape(s: &HloShape) -> String {
    match s {
        HloShape::Array(a) => {
            let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
            let mut t = format!("{}[{}]", a.ty.name(), list(&a.dims));
            if !a.layout.is_default() {
                t.push_str(&format!("{{{}}}", list(&a.layout.minor_to_major)));
            }
            t
        }
        HloShape::Tuple(t) => format!(
            "({})",
            t.iter().map(fmt_shape).collect::<Vec<_>>().join(", ")
        ),
        HloShape::Token => "token[]".into(),
    }
}

/// Reads a module file: HLO text, or a serialized HloModuleProto for
/// `.pb`/`.binpb`; verified.
#[pyfunction]
fn load(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Module> {
    let m = hlox_hlo::load::load_module(&path).map_err(|e| errors::load_error(py, e))?;
    Ok(Module { inner: m })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Module>()?;
    m.add_class::<Shape>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    Ok(())
}
