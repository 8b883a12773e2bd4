//! HLO element types and numpy dtypes, and numpy arrays over raw memory.

use hlox_hlo::ElementType;
use numpy::npyffi::{self, NpyTypes, PY_ARRAY_API};
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::ffi::c_void;

pub const NPY_C_CONTIGUOUS: i32 = 0x0001;
pub const NPY_ALIGNED: i32 = 0x0100;
pub const NPY_WRITEABLE: i32 = 0x0400;

/// numpy's name for each element type (bf16 is ml_dtypes').
fn numpy_name(t: ElementType) -> &'static str {
    match t {
        ElementType::Pred => "bool",
        ElementType::S8 => "int8",
        ElementType::S16 => "int16",
        ElementType::S32 => "int32",
        ElementType::S64 => "int64",
        ElementType::U8 => "uint8",
        ElementType::U16 => "uint16",
        ElementType::U32 => "uint32",
        ElementType::U64 => "uint64",
        ElementType::F16 => "float16",
        ElementType::Bf16 => "bfloat16",
        ElementType::F32 => "float32",
        ElementType::F64 => "float64",
        ElementType::C64 => "complex64",
        ElementType::C128 => "complex128",
    }
}

static DESCRS: PyOnceLock<Vec<(ElementType, Py<PyArrayDescr>)>> = PyOnceLock::new();

fn descrs(py: Python<'_>) -> PyResult<&Vec<(ElementType, Py<PyArrayDescr>)>> {
    DESCRS.get_or_try_init(py, || {
        let mut v = Vec::new();
        for t in ElementType::ALL {
            let d = if t == ElementType::Bf16 {
                // bfloat16 is not numpy's; ml_dtypes (a jax dependency) has it.
                match py.import("ml_dtypes") {
                    Ok(m) => PyArrayDescr::new(py, m.getattr("bfloat16")?)?,
                    Err(_) => continue,
                }
            } else {
                PyArrayDescr::new(py, numpy_name(t))?
            };
            v.push((t, d.unbind()));
        }
        Ok(v)
    })
}

/// The numpy dtype of `t`.
pub fn descr_of<'py>(py: Python<'py>, t: ElementType) -> PyResult<Bound<'py, PyArrayDescr>> {
    descrs(py)?
        .iter()
        .find(|(e, _)| *e == t)
        .map(|(_, d)| d.bind(py).clone())
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "element type {} has no numpy dtype here: install ml_dtypes (pip install ml_dtypes) for bf16",
                t.name()
            ))
        })
}

/// The element type of numpy dtype `d`, if hlox has one.
pub fn element_of(py: Python<'_>, d: &Bound<'_, PyArrayDescr>) -> PyResult<Option<ElementType>> {
    Ok(descrs(py)?
        .iter()
        .find(|(_, x)| x.bind(py).is_equiv_to(d))
        .map(|(e, _)| *e))
}

/// An element type from a name: HLO's (`f32`) or numpy's (`float32`), or a
/// numpy dtype object / scalar type.
pub fn parse_element(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<ElementType> {
    if let Ok(s) = x.extract::<String>() {
        if let Some(t) = ElementType::from_name(&s) {
            return Ok(t);
        }
    }
    let d = PyArrayDescr::new(py, x).map_err(|_| {
        PyValueError::new_err(format!(
            "unknown element type {x}: use an HLO name (pred, s8..s64, u8..u64, f16, bf16, f32, f64) or a numpy dtype"
        ))
    })?;
    element_of(py, &d)?
        .ok_or_else(|| PyValueError::new_err(format!("numpy dtype {d} has no HLO element type")))
}

/// A numpy array of `descr` with C-order `dims` over `data` (not owned;
/// `data` null: numpy allocates, uninitialized). `writeable` decides the
/// WRITEABLE flag.
///
/// # Safety
/// A non-null `data` holds the array's bytes for as long as the array is used.
pub unsafe fn array_over<'py>(
    py: Python<'py>,
    descr: &Bound<'py, PyArrayDescr>,
    dims: &[i64],
    data: *mut c_void,
    writeable: bool,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let mut d: Vec<npyffi::npy_intp> = dims.iter().map(|&x| x as npyffi::npy_intp).collect();
    let flags = if data.is_null() {
        0
    } else {
        NPY_C_CONTIGUOUS | NPY_ALIGNED | if writeable { NPY_WRITEABLE } else { 0 }
    };
    // PyArray_NewFromDescr steals a reference to the descriptor.
    let descr_ptr = descr.clone().into_ptr() as *mut npyffi::PyArray_Descr;
    let p = unsafe {
        PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            PY_ARRAY_API.get_type_object(py, NpyTypes::PyArray_Type),
            descr_ptr,
            d.len() as i32,
            d.as_mut_ptr(),
            std::ptr::null_mut(),
            data,
            flags,
            std::ptr::null_mut(),
        )
    };
    let obj = unsafe { Bound::from_owned_ptr_or_err(py, p)? };
    Ok(obj.cast_into::<PyUntypedArray>()?)
}

/// The data pointer and flags of a numpy array.
pub fn raw_parts(a: &Bound<'_, PyUntypedArray>) -> (*mut c_void, i32) {
    let p = a.as_array_ptr();
    unsafe { ((*p).data as *mut c_void, (*p).flags) }
}

/// The bytes of a C-contiguous array.
pub fn nbytes(a: &Bound<'_, PyUntypedArray>) -> usize {
    a.len() * a.dtype().itemsize()
}

/// A copy of the bytes of a C-contiguous array.
pub fn bytes_of(a: &Bound<'_, PyUntypedArray>) -> Vec<u8> {
    let (p, _) = raw_parts(a);
    let n = nbytes(a);
    if n == 0 {
        return Vec::new();
    }
    // SAFETY: a C-contiguous array holds `n` bytes from its data pointer.
    unsafe { std::slice::from_raw_parts(p as *const u8, n) }.to_vec()
}

/// Makes a numpy array read-only (its WRITEABLE flag cleared).
pub fn clear_writeable(a: &Bound<'_, PyUntypedArray>) {
    let p = a.as_array_ptr();
    // SAFETY: `p` is a live array object; clearing WRITEABLE is always allowed.
    unsafe { (*p).flags &= !NPY_WRITEABLE };
}
