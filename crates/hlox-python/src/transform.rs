//! `hlox.grad`, `hlox.vjp`, `hlox.jvp`, `hlox.vmap` and `hlox.Rules`:
//! hlox-transform from Python (conventions in docs/transforms.md, the
//! same as the CLI's).
//!
//! Custom-call rules come from HLO modules (computations named
//! `jvp.TARGET` / `vjp.TARGET` / `vmap.TARGET`), from loaded plugins
//! (`register_rules`), or from Python functions that build the
//! rule with `hlox.Builder`, given a `CallInfo` (the call's target,
//! operand shapes, result shape and opaque bytes), as the Rust closures
//! of `Rules::rule` are. The transformations run on the calling
//! thread with the GIL held, so a rule function's exception is kept
//! (thread-local) and becomes the `__cause__` of the `TransformError`.

use crate::errors;
use crate::module::{fmt_shape, Module, Shape};
use hlox_hlo::builder::BuildError;
use hlox_transform::{RuleKind, Rules as HloRules, VmapMethod};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCFunction, PyDict, PyString, PyTuple};
use std::cell::RefCell;

thread_local! {
    /// The exception of the last Python rule function that failed on this
    /// thread (taken after each transformation).
    static RULE_FAILURE: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// What a rule function is told about the custom call it builds a rule
/// for.
///
/// >>> def vjp_sin(call):  # call.operands[0] is x's shape
/// ...     b = hlox.Builder("vjp.my_sin")
/// ...     x = b.parameter(0, call.operands[0], "x")
/// ...     ct = b.parameter(1, call.result, "ct")
/// ...     return b.build(b.tuple([ct * b.cos(x)]))
#[pyclass(name = "CallInfo", module = "hlox", frozen)]
pub struct CallInfo {
    /// The custom call's target name.
    #[pyo3(get)]
    target: String,
    /// The operands' shapes.
    #[pyo3(get)]
    operands: Vec<Shape>,
    /// The call's result shape.
    #[pyo3(get)]
    result: Shape,
    opaque_bytes: Vec<u8>,
}

#[pymethods]
impl CallInfo {
    /// The call's opaque bytes (`backend_config`).
    #[getter]
    fn opaque<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.opaque_bytes)
    }

    fn __repr__(&self) -> String {
        let ops: Vec<String> = self.operands.iter().map(|s| fmt_shape(&s.inner)).collect();
        format!(
            "<hlox.CallInfo {}: ({}) -> {}>",
            self.target,
            ops.join(", "),
            fmt_shape(&self.result.inner)
        )
    }
}

/// Rules for custom-call targets: how calls of a target differentiate
/// (`jvp`, `vjp`) and batch (`vmap_method`). Pass them as `rules=` to
/// `grad`, `vjp`, `jvp` and `vmap`.
///
/// >>> rules = hlox.Rules()
/// >>> rules.vjp("my_sin", vjp_sin)       # a function building the rule
/// >>> rules.vmap_method("my_sin", "sequential")
/// >>> g = hlox.grad(module, wrt=0, rules=rules)
#[pyclass(name = "Rules", module = "hlox")]
#[derive(Clone, Default)]
pub struct Rules {
    inner: HloRules,
    /// (rule kind, target, where it came from), for `repr` and `targets`.
    listing: Vec<(&'static str, String, String)>,
}

impl Rules {
    fn note(&mut self, kind: &'static str, target: &str, origin: String) {
        self.listing
            .retain(|(k, t, _)| !(*k == kind && t == target));
        self.listing.push((kind, target.to_string(), origin));
    }

    fn add_fn(&mut self, kind: &'static str, target: &str, func: Py<PyAny>) -> PyResult<()> {
        let origin = Python::attach(|py| -> PyResult<String> {
            let f = func.bind(py);
            if !f.is_callable() {
                return Err(PyTypeError::new_err(format!(
                    "Rules.{kind}(\"{target}\", ...): {} is not callable (give a function taking \
                     a hlox.CallInfo and returning the rule as a hlox.Module)",
                    f.repr()?
                )));
            }
            Ok(match f.getattr("__qualname__") {
                Ok(q) => format!("Python function {q}"),
                Err(_) => format!("Python callable {}", f.repr()?),
            })
        })?;
        let what = format!("the Python {kind} rule for `{target}` ({origin})");
        let build = move |call: &hlox_transform::CallInfo| {
            Python::attach(|py| call_rule_fn(py, &func, call, &what))
        };
        let k = match kind {
            "jvp" => RuleKind::Jvp,
            "vjp" => RuleKind::Vjp,
            _ => RuleKind::Vmap,
        };
        self.inner.rule(k, target, build);
        self.note(kind, target, origin);
        Ok(())
    }
}

impl Rules {
    /// `rules.jvp(target, fn)` registers `fn` and returns it;
    /// `rules.jvp(target)` returns a decorator that does.
    fn register_or_decorate(
        slf: &Bound<'_, Rules>,
        kind: &'static str,
        target: &str,
        func: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        if let Some(f) = func {
            slf.borrow_mut()
                .add_fn(kind, target, f.clone_ref(slf.py()))?;
            return Ok(f);
        }
        let rules = slf.clone().unbind();
        let target = target.to_string();
        let deco = PyCFunction::new_closure(
            slf.py(),
            None,
            None,
            move |args: &Bound<'_, PyTuple>,
                  _kw: Option<&Bound<'_, PyDict>>|
                  -> PyResult<Py<PyAny>> {
                let py = args.py();
                let f = args.get_item(0).map_err(|_| {
                    PyTypeError::new_err(format!(
                        "Rules.{kind}(\"{target}\") decorates a function: give it one"
                    ))
                })?;
                rules
                    .bind(py)
                    .borrow_mut()
                    .add_fn(kind, &target, f.clone().unbind())?;
                Ok(f.unbind())
            },
        )?;
        Ok(deco.into_any().unbind())
    }
}

/// Calls a Python rule function; its exception (or a result that is not a
/// Module) is kept in `RULE_FAILURE` and reported as a build error.
fn call_rule_fn(
    py: Python<'_>,
    func: &Py<PyAny>,
    call: &hlox_transform::CallInfo,
    what: &str,
) -> Result<hlox_hlo::Module, BuildError> {
    let info = CallInfo {
        target: call.target.to_string(),
        operands: call
            .operands
            .iter()
            .map(|s| Shape { inner: s.clone() })
            .collect(),
        result: Shape {
            inner: call.result.clone(),
        },
        opaque_bytes: call.opaque.to_vec(),
    };
    let r = func
        .bind(py)
        .call1((info,))
        .and_then(|v| match v.cast::<Module>() {
            Ok(m) => Ok(m.get().inner.clone()),
            Err(_) => Err(PyTypeError::new_err(format!(
                "{what} returned {}, not a hlox.Module (return Builder.build(root))",
                v.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))),
        });
    r.map_err(|e| {
        let ty = e
            .get_type(py)
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "Exception".into());
        let message = format!("{ty}: {}", e.value(py));
        RULE_FAILURE.with(|f| *f.borrow_mut() = Some(e));
        BuildError::Invalid {
            op: what.to_string(),
            message,
        }
    })
}

fn method_arg(target: &str, method: &str) -> PyResult<VmapMethod> {
    VmapMethod::from_name(method).ok_or_else(|| {
        PyValueError::new_err(format!(
            "Rules.vmap_method(\"{target}\", \"{method}\"): unknown method; use \"sequential\", \
             \"expand_dims\" or \"broadcast_all\""
        ))
    })
}

#[pymethods]
impl Rules {
    #[new]
    fn new() -> Rules {
        Rules::default()
    }

    /// The rules in an HLO module: each computation named `jvp.TARGET`,
    /// `vjp.TARGET` or `vmap.TARGET` (the entry too), as `hlox grad --rules FILE.hlo`
    /// reads them.
    #[staticmethod]
    fn from_module(module: &Bound<'_, Module>) -> Rules {
        let mut r = Rules::default();
        r.merge_module(module);
        r
    }

    /// `Rules.from_module(Module.from_text(text))`.
    #[staticmethod]
    fn from_text(py: Python<'_>, text: &str) -> PyResult<Rules> {
        let m = hlox_hlo::text::parse_module(text).map_err(|e| errors::parse_error(py, &e))?;
        let m = Bound::new(py, Module::new(m)?)?;
        Ok(Rules::from_module(&m))
    }

    /// Adds the rules of an HLO module (replacing rules for the same
    /// targets).
    fn merge_module(&mut self, module: &Bound<'_, Module>) {
        let m = &module.get().inner;
        let name = m.name.clone();
        for (_, c) in m.computations.iter() {
            if let Some((kind, t)) = RuleKind::of_name(&c.name) {
                self.note(kind.name(), t, format!("HLO module {name}"));
            }
        }
        self.inner.merge(HloRules::from_module(m.clone()));
    }

    /// Adds every rule of `other` (replacing rules for the same targets).
    fn merge(&mut self, other: &Rules) {
        for (k, t, o) in &other.listing {
            self.note(k, t, o.clone());
        }
        self.inner.merge(other.inner.clone());
    }

    /// The jvp rule of `target`: `fn(call: CallInfo) -> Module` builds a
    /// computation taking `(operands..., operand tangents...)` and
    /// returning the tuple `(result, result tangent)`. Returns `fn`;
    /// without `fn`, a decorator (`@rules.jvp("target")`).
    #[pyo3(signature = (target, r#fn = None))]
    fn jvp(slf: &Bound<'_, Rules>, target: &str, r#fn: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        Rules::register_or_decorate(slf, "jvp", target, r#fn)
    }

    /// The vjp rule of `target`: `fn(call: CallInfo) -> Module` builds a
    /// computation taking `(operands..., result cotangents...)` (one per
    /// result leaf) and returning the tuple of the operands' cotangents.
    /// Returns `fn`; without `fn`, a decorator (`@rules.vjp("target")`).
    #[pyo3(signature = (target, r#fn = None))]
    fn vjp(slf: &Bound<'_, Rules>, target: &str, r#fn: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        Rules::register_or_decorate(slf, "vjp", target, r#fn)
    }

    /// The batching rule of `target`: `fn(call: CallInfo) -> Module`
    /// builds a computation taking the operands, each batched in front
    /// (`call.operands` are those batched shapes), and returning the
    /// call's result batched in front. It takes precedence over a
    /// `vmap_method`. Returns `fn`; without `fn`, a decorator.
    #[pyo3(signature = (target, r#fn = None))]
    fn vmap(slf: &Bound<'_, Rules>, target: &str, r#fn: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        Rules::register_or_decorate(slf, "vmap", target, r#fn)
    }

    /// How `vmap` batches calls of `target`: "sequential",
    /// "expand_dims" or "broadcast_all" (JAX's vmap_method).
    fn vmap_method(&mut self, target: &str, method: &str) -> PyResult<()> {
        let m = method_arg(target, method)?;
        self.inner.vmap_method(target, m);
        self.note("vmap", target, method.to_string());
        Ok(())
    }

    /// `(kind, target, origin)` of every rule: kind is "jvp", "vjp" or
    /// "vmap" (whose origin is the method).
    fn entries(&self) -> Vec<(&'static str, String, String)> {
        self.listing.clone()
    }

    fn __repr__(&self) -> String {
        let mut parts = Vec::new();
        for kind in ["jvp", "vjp", "vmap"] {
            let ts: Vec<String> = self
                .listing
                .iter()
                .filter(|(k, _, _)| *k == kind)
                .map(|(_, t, o)| {
                    if kind == "vmap" {
                        format!("{t}={o}")
                    } else {
                        t.clone()
                    }
                })
                .collect();
            if !ts.is_empty() {
                parts.push(format!("{kind}: {}", ts.join(", ")));
            }
        }
        if parts.is_empty() {
            "<hlox.Rules (empty)>".into()
        } else {
            format!("<hlox.Rules {}>", parts.join("; "))
        }
    }
}

/// `wrt`: one parameter number or a sequence of them.
fn wrt_arg(transform: &str, wrt: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let bad = || {
        PyTypeError::new_err(format!(
            "{transform}: wrt must be a parameter number or a sequence of them, got {}",
            wrt.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    };
    if wrt.is_instance_of::<PyString>() {
        return Err(bad());
    }
    let v: Vec<i64> = match wrt.extract::<i64>() {
        Ok(i) => vec![i],
        Err(_) => wrt.extract::<Vec<i64>>().map_err(|_| bad())?,
    };
    v.into_iter()
        .map(|i| {
            usize::try_from(i).map_err(|_| {
                PyValueError::new_err(format!(
                    "{transform}: wrt {i} is negative; parameters are numbered from 0"
                ))
            })
        })
        .collect()
}

/// Runs a transformation, turning its error (and a Python rule function's
/// exception, as the cause) into a `TransformError`.
fn run(
    py: Python<'_>,
    f: impl FnOnce(
        &HloRules,
    ) -> Result<hlox_hlo::verifier::VerifiedModule, hlox_transform::TransformError>,
    rules: Option<PyRef<'_, Rules>>,
) -> PyResult<Module> {
    // The rules of the jaxlib targets hlox ships, those that loaded plugins
    // registered (`register_rules`), then the given ones, each replacing
    // the earlier ones target by target.
    let mut all = hlox::jaxlib::rules::rules();
    for r in hlox_ffi::Registry::global().rule_modules() {
        all.merge(HloRules::from_module((*r.module).clone()));
    }
    if let Some(r) = rules {
        all.merge(r.inner.clone());
    }
    let rules = all;
    RULE_FAILURE.with(|f| f.borrow_mut().take());
    let r = f(&rules);
    let cause = RULE_FAILURE.with(|f| f.borrow_mut().take());
    match r {
        Ok(m) => Module::new(m.into_inner()),
        Err(e) => {
            let err = errors::transform_error(py, &e);
            if let Some(c) = cause {
                err.set_cause(py, Some(c));
            }
            Err(err)
        }
    }
}

/// What `grad`, `vjp` and `jvp` share: `wrt` (default: parameter 0)
/// checked, then `transform` run with the rules.
fn differentiate(
    py: Python<'_>,
    name: &str,
    transform: fn(
        &hlox_hlo::Module,
        &[usize],
        &HloRules,
    )
        -> Result<hlox_hlo::verifier::VerifiedModule, hlox_transform::TransformError>,
    module: &Bound<'_, Module>,
    wrt: Option<&Bound<'_, PyAny>>,
    rules: Option<PyRef<'_, Rules>>,
) -> PyResult<Module> {
    let wrt = match wrt {
        Some(w) => wrt_arg(name, w)?,
        None => vec![0],
    };
    let m = &module.get().inner;
    run(py, |r| transform(m, &wrt, r), rules)
}

/// Defines the differentiation functions: one Python signature,
/// `(module, wrt=None, *, rules=None)`, each running [`differentiate`] with
/// its transformation.
macro_rules! differentiation_pyfunctions {
    ($($(#[$doc:meta])* $name:ident => $transform:path;)*) => {
        $(
            $(#[$doc])*
            #[pyfunction]
            #[pyo3(signature = (module, wrt = None, *, rules = None))]
            fn $name(
                py: Python<'_>,
                module: &Bound<'_, Module>,
                wrt: Option<&Bound<'_, PyAny>>,
                rules: Option<PyRef<'_, Rules>>,
            ) -> PyResult<Module> {
                differentiate(py, stringify!($name), $transform, module, wrt, rules)
            }
        )*
    };
}

differentiation_pyfunctions! {
    /// The gradient of `module`'s scalar floating-point result with respect
    /// to parameters `wrt` (a number or a sequence): a module taking
    /// `module`'s parameters and returning the tuple of the gradients, in
    /// `wrt` order.
    ///
    /// >>> g = hlox.compile(hlox.grad(loss, wrt=(1, 2)))
    /// >>> dw, db = g(x, w, b)
    grad => hlox_transform::grad_with;

    /// The vector-Jacobian product: a module taking `module`'s parameters,
    /// then one cotangent per result leaf, and returning the tuple of the
    /// `wrt` parameters' cotangents.
    vjp => hlox_transform::vjp_with;

    /// The Jacobian-vector product: a module taking `module`'s parameters,
    /// then one tangent per `wrt` parameter, and returning a tuple of the
    /// result leaves followed by their tangents.
    jvp => hlox_transform::jvp_with;
}

/// `in_axes`: one axis (or None) for every parameter, or one per
/// parameter; negative axes count from the end of the batched shape.
fn in_axes_arg(m: &hlox_hlo::Module, in_axes: &Bound<'_, PyAny>) -> PyResult<Vec<Option<usize>>> {
    let params = m.entry_computation_layout().parameters;
    let bad = || {
        PyTypeError::new_err(format!(
            "vmap: in_axes must be an axis, None, or a sequence of them (one per parameter), got {}",
            in_axes.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    };
    let axes: Vec<Option<i64>> = if in_axes.is_none() {
        vec![None; params.len()]
    } else if let Ok(a) = in_axes.extract::<i64>() {
        vec![Some(a); params.len()]
    } else if in_axes.is_instance_of::<PyString>() {
        return Err(bad());
    } else {
        in_axes.extract::<Vec<Option<i64>>>().map_err(|_| bad())?
    };
    axes.into_iter()
        .enumerate()
        .map(|(i, a)| match a {
            None => Ok(None),
            Some(a) if a >= 0 => Ok(Some(a as usize)),
            Some(a) => {
                let rank = params
                    .get(i)
                    .and_then(|s| s.as_array())
                    .map(|s| s.dims.len() as i64);
                match rank {
                    Some(r) if a >= -(r + 1) => Ok(Some((r + 1 + a) as usize)),
                    _ => Err(PyValueError::new_err(format!(
                        "vmap: in_axes[{i}] = {a} is out of range for parameter {i}{}",
                        params
                            .get(i)
                            .map(|s| format!(" ({})", fmt_shape(s)))
                            .unwrap_or_default()
                    ))),
                }
            }
        })
        .collect()
}

/// Batches `module`: parameter `i` gains a batch dimension of `size` at
/// `in_axes[i]` (None: not batched; one int or None applies to every
/// parameter); every result leaf is batched at axis 0 and returned in a
/// tuple.
///
/// >>> per_example = hlox.vmap(hlox.grad(loss, wrt=1), in_axes=(0, None), size=8)
#[pyfunction]
#[pyo3(signature = (module, in_axes, size, *, rules = None))]
fn vmap(
    py: Python<'_>,
    module: &Bound<'_, Module>,
    in_axes: &Bound<'_, PyAny>,
    size: i64,
    rules: Option<PyRef<'_, Rules>>,
) -> PyResult<Module> {
    let m = &module.get().inner;
    let axes = in_axes_arg(m, in_axes)?;
    run(py, |r| hlox_transform::vmap_with(m, &axes, size, r), rules)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Rules>()?;
    m.add_class::<CallInfo>()?;
    m.add_function(wrap_pyfunction!(grad, m)?)?;
    m.add_function(wrap_pyfunction!(vjp, m)?)?;
    m.add_function(wrap_pyfunction!(jvp, m)?)?;
    m.add_function(wrap_pyfunction!(vmap, m)?)?;
    Ok(())
}
