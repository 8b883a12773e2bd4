//! The custom-call registry from Python: C function addresses (the Python
//! side turns PyCapsules and ctypes functions into them), plugin libraries,
//! and Python functions as typed-FFI targets.

use crate::dtype;
use crate::errors;
use hlox_ffi::dynamic::{register_dynamic, DynamicHandler};
use hlox_ffi::xla_ffi::{ffi_dtype, AttrValue, FfiError, Frame};
use hlox_ffi::{Platform, Registry};
use hlox_hlo::{CustomCallApiVersion, ElementType};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::ffi::c_void;
use std::sync::Arc;

pub fn load_plugin_path(path: &std::path::Path) -> PyResult<()> {
    Registry::global()
        .load_library(path)
        .map(|_| ())
        .map_err(|e| errors::Error::new_err(e.to_string()))
}

/// Loads a custom-call plugin (a shared library) into the global registry:
/// its `hlox_register_custom_call_targets` or `XLA_FFI_REGISTER_HANDLER`
/// registrations, or, without either, its exported symbols by name.
#[pyfunction]
fn load_plugin(path: std::path::PathBuf) -> PyResult<()> {
    load_plugin_path(&path)
}

/// Registers the C function at `address` (internal: `hlox.register_ffi_target`
/// takes PyCapsules and ctypes functions and calls this).
#[pyfunction]
fn _register_address(name: &str, address: usize, platform: &str, api_version: i32) -> PyResult<()> {
    let platform = crate::exec::platform_arg(platform)?;
    if address == 0 {
        return Err(PyValueError::new_err(format!(
            "register_ffi_target(\"{name}\"): the function pointer is null"
        )));
    }
    let f = address as *const c_void;
    let reg = Registry::global();
    // SAFETY: the caller vouches that the address is a function with the
    // convention of `api_version` that stays loaded (ctypes.CDLL keeps its
    // library loaded; a PyCapsule is kept by the Python side).
    let r = unsafe {
        match api_version {
            0 => reg.register_c_untyped(name, platform, f),
            1 => reg.register_c(name, platform, CustomCallApiVersion::Original, f),
            2 => reg.register_c(name, platform, CustomCallApiVersion::StatusReturning, f),
            3 => reg.register_c(
                name,
                platform,
                CustomCallApiVersion::StatusReturningUnified,
                f,
            ),
            4 => reg.register_c(name, platform, CustomCallApiVersion::TypedFfi, f),
            v => {
                return Err(PyValueError::new_err(format!(
                    "register_ffi_target(\"{name}\"): api_version {v} is not one of 0 (legacy, \
                     the custom call's api_version decides), 1 (ORIGINAL), 2 (STATUS_RETURNING), \
                     3 (STATUS_RETURNING_UNIFIED), 4 (TYPED_FFI)"
                )))
            }
        }
    };
    r.map_err(|e| errors::Error::new_err(e.to_string()))
}

/// The registry's targets as (name, platform, api_version, origin) tuples.
#[pyfunction]
fn _targets(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let reg = Registry::global();
    let out = PyList::empty(py);
    for p in [Platform::Host, Platform::Cuda] {
        let mut names = reg.names(p);
        // Handlers registered through XLA_FFI_GetApi by code already in the
        // process (a library opened with ctypes before load_plugin saw it).
        for r in hlox_ffi::xla_ffi::process_registrations() {
            if r.platform == Some(p) && !names.contains(&r.name) {
                names.push(r.name);
            }
        }
        for n in names {
            if let Some(t) = reg.lookup(&n, p) {
                let api: Option<i32> = t.signature.map(|s| s.api_version.proto_value());
                let plat = match p {
                    Platform::Host => "cpu",
                    Platform::Cuda => "cuda",
                };
                out.append((n, plat, api, t.origin.to_string()))?;
            }
        }
    }
    Ok(out)
}

/// A Python function as a typed-FFI handler.
struct PyHandler {
    func: Py<PyAny>,
}

fn element_of_ffi(d: i32) -> Option<ElementType> {
    ElementType::ALL.into_iter().find(|t| ffi_dtype(*t) == d)
}

fn attr_value<'py>(py: Python<'py>, v: &AttrValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        AttrValue::Str(b) => String::from_utf8_lossy(b)
            .into_owned()
            .into_pyobject(py)?
            .into_any(),
        AttrValue::Scalar { dtype: d, bytes } => {
            let t = element_of_ffi(*d).ok_or_else(|| {
                PyValueError::new_err(format!("attribute of unknown FFI type {d}"))
            })?;
            let descr = dtype::descr_of(py, t)?;
            let arr = unsafe {
                dtype::array_over(py, &descr, &[], bytes.as_ptr() as *mut c_void, false)?
            };
            // A copy as a Python scalar (int, float, bool).
            arr.call_method0("item")?
        }
        AttrValue::Array {
            dtype: d,
            count,
            bytes,
        } => {
            let t = element_of_ffi(*d).ok_or_else(|| {
                PyValueError::new_err(format!("attribute of unknown FFI type {d}"))
            })?;
            let descr = dtype::descr_of(py, t)?;
            let arr = unsafe {
                dtype::array_over(
                    py,
                    &descr,
                    &[*count as i64],
                    bytes.as_ptr() as *mut c_void,
                    false,
                )?
            };
            arr.call_method0("copy")?
        }
        AttrValue::Dict(items) => {
            let d = PyDict::new(py);
            for (k, v) in items {
                d.set_item(k, attr_value(py, v)?)?;
            }
            d.into_any()
        }
    })
}

fn view<'py>(
    py: Python<'py>,
    b: &hlox_ffi::xla_ffi::BufferView<'_>,
    writeable: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let t = element_of_ffi(b.dtype()).ok_or_else(|| {
        PyValueError::new_err(format!("buffer of unknown FFI type {}", b.dtype()))
    })?;
    let descr = dtype::descr_of(py, t)?;
    let mut data = b.data();
    if data.is_null() {
        data = std::ptr::NonNull::<u64>::dangling().as_ptr() as *mut c_void;
    }
    // SAFETY: the buffer lives for the duration of the call, which is when
    // the Python function may use the view (documented in docs/python.md).
    Ok(unsafe { dtype::array_over(py, &descr, b.dims(), data, writeable)? }.into_any())
}

impl PyHandler {
    fn call_py(
        &self,
        py: Python<'_>,
        frame: &mut Frame<'_>,
        attrs: &[(String, AttrValue)],
    ) -> PyResult<()> {
        let mut args = Vec::new();
        for i in 0..frame.arg_count() {
            let b = frame
                .arg(i)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            args.push(view(py, &b, false)?);
        }
        let kwargs = PyDict::new(py);
        let nret = frame.ret_count();
        let mut rets = Vec::new();
        for i in 0..nret {
            let b = frame
                .ret(i)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            rets.push(view(py, &b, true)?);
        }
        if nret == 1 {
            kwargs.set_item("out", rets.pop())?;
        } else {
            args.extend(rets);
        }
        for (k, v) in attrs {
            kwargs.set_item(k, attr_value(py, v)?)?;
        }
        let views: Vec<Bound<'_, PyAny>> = args
            .iter()
            .cloned()
            .chain(kwargs.get_item("out")?)
            .collect();
        let r = self
            .func
            .bind(py)
            .call(PyTuple::new(py, args)?, Some(&kwargs));
        // The buffers belong to this call: a view the function kept must not
        // write into them afterwards.
        for v in &views {
            if let Ok(a) = v.cast::<numpy::PyUntypedArray>() {
                dtype::clear_writeable(a);
            }
        }
        r.map(|_| ())
    }
}

impl DynamicHandler for PyHandler {
    fn call(&self, frame: &mut Frame<'_>, attrs: &[(String, AttrValue)]) -> Result<(), FfiError> {
        Python::attach(|py| {
            self.call_py(py, frame, attrs).map_err(|e| {
                let ty = e
                    .get_type(py)
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_else(|_| "Exception".into());
                FfiError::msg(format!("{ty}: {}", e.value(py)))
            })
        })
    }
}

/// Registers the Python function `func` as typed-FFI target `name`
/// (internal: `@hlox.custom_call_target` calls this).
#[pyfunction]
fn _register_python(name: &str, platform: &str, func: Py<PyAny>) -> PyResult<()> {
    let platform = crate::exec::platform_arg(platform)?;
    if platform != Platform::Host {
        return Err(PyValueError::new_err(format!(
            "custom_call_target(\"{name}\"): Python functions can only be Host (\"cpu\") targets; \
             a CUDA target gets device buffers, which Python cannot read"
        )));
    }
    register_dynamic(
        Registry::global(),
        name,
        platform,
        Arc::new(PyHandler { func }),
    )
    .map_err(|e| errors::Error::new_err(e.to_string()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load_plugin, m)?)?;
    m.add_function(wrap_pyfunction!(_register_address, m)?)?;
    m.add_function(wrap_pyfunction!(_targets, m)?)?;
    m.add_function(wrap_pyfunction!(_register_python, m)?)?;
    Ok(())
}
