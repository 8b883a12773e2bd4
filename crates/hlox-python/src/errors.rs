//! Exceptions: `hlox.Error` and its subclasses, made from hlox's typed
//! errors (the variant decides the class; attributes carry the details).

use hlox_hlo::load::LoadError;
use hlox_hlo::text::ParseError as HloParseError;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyList;
use pyo3::IntoPyObjectExt;

create_exception!(hlox, Error, PyException, "Base class of every hlox error.");
create_exception!(
    hlox,
    ParseError,
    Error,
    "HLO text (or a serialized HloModuleProto) that does not parse. `.line` and `.column` \
     (1-based; None for protos) say where."
);
create_exception!(
    hlox,
    VerifyError,
    Error,
    "A module that parses but is not valid HLO (the verifier's diagnostics are the message)."
);
create_exception!(
    hlox,
    CompileError,
    Error,
    "Compiling failed. For custom-call targets that are not registered, `.missing` lists \
     (target, closest registered names) pairs."
);
create_exception!(
    hlox,
    ExecError,
    Error,
    "Running an executable failed: wrong arguments (the message names the parameter) or a \
     failure while running."
);
create_exception!(
    hlox,
    CustomCallError,
    ExecError,
    "A custom-call target reported a failure: `.target` is its name, `.message` what it said."
);

create_exception!(
    hlox,
    TransformError,
    Error,
    "grad, vjp, jvp or vmap could not transform the module. `.transform` names the \
     transformation; `.instruction`, `.opcode` and `.target` (None where they do not apply) \
     name the instruction, its op and, for a custom call, its target."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add("VerifyError", py.get_type::<VerifyError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("ExecError", py.get_type::<ExecError>())?;
    m.add("CustomCallError", py.get_type::<CustomCallError>())?;
    m.add("TransformError", py.get_type::<TransformError>())?;
    Ok(())
}

/// `v` as a Python object (None if it cannot be one).
fn obj<'py, T: IntoPyObjectExt<'py>>(py: Python<'py>, v: T) -> Py<PyAny> {
    v.into_py_any(py).unwrap_or_else(|_| py.None())
}

/// An exception of class `E` with message `msg` and attributes `attrs`.
fn with_attrs<E: pyo3::type_object::PyTypeInfo>(
    py: Python<'_>,
    msg: String,
    attrs: Vec<(&str, Py<PyAny>)>,
) -> PyErr {
    let e = PyErr::new::<E, _>(msg);
    let v = e.value(py);
    for (k, val) in attrs {
        // Setting an attribute on a fresh exception instance cannot fail
        // in practice; if it does, the exception still carries its message.
        let _ = v.setattr(k, val);
    }
    e
}

pub fn parse_error(py: Python<'_>, e: &HloParseError) -> PyErr {
    with_attrs::<ParseError>(
        py,
        e.to_string(),
        vec![("line", obj(py, e.line)), ("column", obj(py, e.column))],
    )
}

/// A parse error without a position (a proto that does not decode).
pub fn parse_error_nopos(py: Python<'_>, msg: String) -> PyErr {
    with_attrs::<ParseError>(py, msg, vec![("line", py.None()), ("column", py.None())])
}

pub fn load_error(py: Python<'_>, e: LoadError) -> PyErr {
    match &e {
        LoadError::Parse { error, .. } => with_attrs::<ParseError>(
            py,
            e.to_string(),
            vec![
                ("line", obj(py, error.line)),
                ("column", obj(py, error.column)),
            ],
        ),
        LoadError::Proto { .. }
        | LoadError::StableHlo { .. }
        | LoadError::JaxExport { .. }
        | LoadError::Unrecognized { .. } => parse_error_nopos(py, e.to_string()),
        LoadError::Verify { .. } => VerifyError::new_err(e.to_string()),
        LoadError::Read { .. } | LoadError::Write { .. } => Error::new_err(e.to_string()),
    }
}

pub fn compile_error(py: Python<'_>, e: &hlox::CompileError) -> PyErr {
    use hlox::CompileError as C;
    match e {
        C::Verify(_) => VerifyError::new_err(e.to_string()),
        C::Bind(b) => {
            let missing = PyList::empty(py);
            for p in &b.problems {
                if let hlox::ffi::BindProblem::Missing {
                    target,
                    suggestions,
                    ..
                } = p
                {
                    let _ = missing.append((target.clone(), suggestions.clone()));
                }
            }
            with_attrs::<CompileError>(
                py,
                e.to_string(),
                vec![("missing", missing.into_any().unbind())],
            )
        }
        _ => with_attrs::<CompileError>(
            py,
            e.to_string(),
            vec![("missing", PyList::empty(py).into_any().unbind())],
        ),
    }
}

/// A `CustomCallError` with text `msg` and attributes `.target` and `.message`.
fn custom_call_error(py: Python<'_>, msg: String, target: &str, message: &str) -> PyErr {
    with_attrs::<CustomCallError>(
        py,
        msg,
        vec![("target", obj(py, target)), ("message", obj(py, message))],
    )
}

/// A Host run's failure: a custom call's failure is a typed
/// [`hlox::ExecError::CustomCall`], which becomes a `CustomCallError` with
/// `.target` and `.message`; anything else an `ExecError`.
pub fn host_exec_error(py: Python<'_>, module: &str, e: hlox::ExecError) -> PyErr {
    match &e {
        hlox::ExecError::CustomCall {
            target, message, ..
        } => {
            let body = e.to_string();
            let body = body.strip_prefix("execution failed: ").unwrap_or(&body);
            custom_call_error(py, format!("{module}: {body}"), target, message)
        }
        _ => ExecError::new_err(format!("{module}: {e}")),
    }
}

/// A CUDA run's failure: a custom call's failure
/// ([`hlox::cuda::runtime::RuntimeError::CustomCall`]) becomes a `CustomCallError`
/// with `.target` and `.message`; anything else an `ExecError`.
pub fn cuda_exec_error(
    py: Python<'_>,
    module: &str,
    e: hlox::cuda::runtime::RuntimeError,
) -> PyErr {
    match &e {
        hlox::cuda::runtime::RuntimeError::CustomCall {
            target, message, ..
        } => custom_call_error(py, format!("{module}: {e}"), target, message),
        _ => ExecError::new_err(format!("{module}: {e}")),
    }
}

/// A transformation's failure as a `TransformError` carrying the
/// instruction, its opcode and the custom call's target where known.
pub fn transform_error(py: Python<'_>, e: &hlox_transform::TransformError) -> PyErr {
    use hlox_transform::TransformError as T;
    let none = || py.None();
    let (transform, instruction, opcode, target) = match e {
        T::Input { transform, .. }
        | T::Argument { transform, .. }
        | T::Output { transform, .. } => (*transform, none(), none(), none()),
        T::Unsupported {
            transform,
            instruction,
            opcode,
            ..
        } => (*transform, obj(py, instruction), obj(py, *opcode), none()),
        T::MissingRule {
            transform,
            instruction,
            target,
            ..
        }
        | T::Rule {
            transform,
            instruction,
            target,
            ..
        } => (
            *transform,
            obj(py, instruction),
            obj(py, hlox_hlo::Opcode::CustomCall.name()),
            obj(py, target),
        ),
        T::Emit {
            transform,
            instruction,
            ..
        } => (*transform, obj(py, instruction), none(), none()),
    };
    with_attrs::<TransformError>(
        py,
        e.to_string(),
        vec![
            ("transform", obj(py, transform)),
            ("instruction", instruction),
            ("opcode", opcode),
            ("target", target),
        ],
    )
}
