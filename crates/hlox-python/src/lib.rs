//! `hlox._hlox`: the native half of the `hlox` Python package (python/).
//!
//! The Python package (`python/hlox/__init__.py`) re-exports what is here
//! and adds what is easier in Python (`hlox.jit`, the target decorator,
//! turning PyCapsules and ctypes functions into addresses).
//!
//! - [`errors`]: the exception classes and the mapping from hlox's error
//!   enums to them.
//! - [`dtype`]: element types <-> numpy dtypes.
//! - [`module`]: `Module`, `Shape`, `load`.
//! - [`exec`]: `compile` and `Executable` (zero-copy calls, GIL released).
//! - [`builder`]: `Builder` and `Op`.
//! - [`targets`]: the registry from Python: C functions, plugins, Python
//!   functions as typed-FFI targets.
//! - [`transform`]: `grad`, `vjp`, `jvp`, `vmap` and `Rules` (custom-call
//!   rules from HLO modules or Python functions building them).

use pyo3::prelude::*;

mod builder;
mod dtype;
mod errors;
mod exec;
mod module;
mod targets;
mod transform;

#[pymodule]
fn _hlox(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Binding errors advise hlox.register_ffi_target / hlox.load_plugin.
    hlox_ffi::registry::set_front(hlox_ffi::registry::Front::Python);
    errors::register(m)?;
    module::register(m)?;
    exec::register(m)?;
    builder::register(m)?;
    targets::register(m)?;
    transform::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
