//! `hlox.compile` and `hlox.Executable`.
//!
//! A Host call reads C-contiguous, aligned numpy inputs where they are and
//! lets the compiled code write straight into numpy arrays allocated for
//! the results (`HostExecutable::execute_into`): no copy either way. Other
//! inputs (strided views, misaligned buffers, a parameter in a non-default
//! layout) are copied once into the layout the parameter wants. The GIL is
//! released while the code runs.

use crate::dtype::{self, NPY_ALIGNED, NPY_C_CONTIGUOUS};
use crate::errors;
use crate::module::Module;
use hlox::{CompileError, CompileOptions, Compiler, Platform};
use hlox_hlo::{ArrayShape, Shape};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyTuple};
use std::sync::Mutex;

/// A compiler that remembers the module its back half gets (the optimized
/// HLO, for `Executable.hlo_text()`).
struct Capture<C> {
    inner: C,
    text: Mutex<String>,
}

impl<C: Compiler> Compiler for Capture<C> {
    type Output = C::Output;
    const PLATFORM: Platform = C::PLATFORM;
    fn check_options(&self, options: &CompileOptions) -> Result<(), CompileError> {
        self.inner.check_options(options)
    }
    fn compile_lowered(
        &self,
        lowered: hlox_passes::frontend::Lowered,
        options: &CompileOptions,
    ) -> Result<C::Output, CompileError> {
        if let Ok(mut t) = self.text.lock() {
            *t = hlox_hlo::text::print::print_module(&lowered.module);
        }
        self.inner.compile_lowered(lowered, options)
    }
}

// A CUDA executable carries its CompileOptions (and more) inline; one
// executable per compile, so the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Backend {
    Host(hlox::HostExecutable),
    Cuda(hlox::cuda::CudaExecutable),
    /// Compiled for CUDA (PTX) on a machine where no device could be opened.
    CudaNoDevice(String),
    /// An SPMD program on N Host devices of this process (`devices=N`):
    /// global arrays in, each device's run on its shard, global arrays out.
    Devices(hlox::DeviceExecutable),
    /// An SPMD program on N GPUs of this process, collectives through NCCL
    /// (`platform="cuda", devices=N`): global arrays in and out.
    CudaDevices(hlox::CudaDevices),
}

/// A compiled module. Call it with numpy arrays (or anything with
/// `__dlpack__`); it returns numpy arrays (a tuple for a tuple result).
/// Safe to call from many threads at once.
///
/// >>> exe = hlox.compile(module)
/// >>> out = exe(np.ones(4, np.float32), np.ones(4, np.float32))
#[pyclass(name = "Executable", module = "hlox", frozen)]
pub struct Executable {
    backend: Backend,
    name: String,
    params: Vec<Shape>,
    param_names: Vec<String>,
    result: Shape,
    /// The result's leaves in pre-order: how to allocate each (None: a token).
    outs: Vec<Option<OutPlan>>,
    hlo: String,
}

/// One array leaf of the result: element type, dimensions in the layout's
/// order (most major first), the permutation from those to the logical ones.
struct OutPlan {
    ty: hlox_hlo::ElementType,
    dims: Vec<i64>,
    perm: Option<Vec<usize>>,
}

fn parse_platform(p: &str) -> PyResult<Platform> {
    match p.to_ascii_lowercase().as_str() {
        "cpu" | "host" => Ok(Platform::Host),
        "cuda" | "gpu" => Ok(Platform::Cuda),
        _ => Err(PyValueError::new_err(format!(
            "unknown platform \"{p}\": use \"cpu\" or \"cuda\""
        ))),
    }
}

pub fn platform_arg(p: &str) -> PyResult<Platform> {
    parse_platform(p)
}

/// Compiles `module` for `platform` ("cpu" or "cuda"), after loading the
/// custom-call `plugins` (paths of shared libraries) into the global
/// registry.
///
/// `sandbox=True` runs every custom call in the sandbox (guarded buffers,
/// a fault or C++ exception in a target raises CustomCallError instead of
/// killing the process); `check_results=True` and `repro_dir=DIR` turn it
/// on too (docs/reliability.md). CPU only.
///
/// `devices=N` (N > 1) runs an SPMD program, as JAX writes it for N
/// devices (shard_map, pmap, collectives), on N Host devices of this
/// process: the executable takes and returns the global arrays, as
/// `jax.jit` does (docs/multi-device.md). CPU only.
///
/// `cache_dir=DIR` (CPU only) keeps the compiled code in DIR and loads it
/// from there when the same module is compiled again, in this process or
/// another (default: the `HLOX_CACHE_DIR` environment variable; see
/// docs/performance.md, "Compilation cache").
///
/// >>> exe = hlox.compile(hlox.load("add.hlo"))
/// >>> exe4 = hlox.compile(hlox.load("shard_map.hlo"), devices=4)
#[pyfunction]
#[pyo3(signature = (module, platform = "cpu", plugins = Vec::new(), opt_level = 3, sandbox = false, check_results = false, repro_dir = None, devices = 1, cache_dir = None))]
#[allow(clippy::too_many_arguments)]
fn compile(
    py: Python<'_>,
    module: &Bound<'_, Module>,
    platform: &str,
    plugins: Vec<std::path::PathBuf>,
    opt_level: u8,
    sandbox: bool,
    check_results: bool,
    repro_dir: Option<std::path::PathBuf>,
    devices: usize,
    cache_dir: Option<std::path::PathBuf>,
) -> PyResult<Executable> {
    let platform = parse_platform(platform)?;
    if devices == 0 {
        return Err(PyValueError::new_err(
            "devices=0: a program runs on at least one device",
        ));
    }
    let sandbox = (sandbox || check_results || repro_dir.is_some()).then_some(
        hlox_ffi::sandbox::SandboxOptions {
            check_results,
            repro_dir,
        },
    );
    if sandbox.is_some() && platform != Platform::Host {
        return Err(PyValueError::new_err(
            "sandbox=True (and check_results, repro_dir) runs custom calls compiled for the CPU; use platform=\"cpu\"",
        ));
    }
    for p in &plugins {
        crate::targets::load_plugin_path(p)?;
    }
    if opt_level > 3 {
        return Err(PyValueError::new_err(format!(
            "opt_level {opt_level} is not in 0..=3"
        )));
    }
    let m = module.get();
    let ps = m.inner.entry_computation_layout();
    let options = CompileOptions {
        opt_level,
        sandbox,
        cache_dir,
        ..CompileOptions::default()
    };
    let module_ref = &m.inner;
    let built: Result<(Backend, String), hlox::Error> = py.detach(|| match platform {
        Platform::Host if devices > 1 => {
            match hlox::Client::cpu_devices(devices)?.compile(module_ref, &options)? {
                hlox::Executable::Devices(e) => {
                    // hlo_text(): the program every device runs (after the
                    // SPMD expansion, before the Host passes).
                    let mut per_device = module_ref.clone();
                    let text = match hlox_passes::spmd::expand_spmd(&mut per_device, devices as i64)
                    {
                        Ok(_) => hlox_hlo::text::print::print_module(&per_device),
                        Err(e) => return Err(hlox::Error::Spmd(e)),
                    };
                    Ok((Backend::Devices(e), text))
                }
                // cpu_devices(N > 1) compiles for N devices.
                _ => Err(hlox::Error::Device {
                    platform: hlox::Platform::Host,
                    source: format!(
                        "hlox.Client.cpu_devices({devices}) gave a one-device executable"
                    )
                    .into(),
                }),
            }
        }
        Platform::Cuda if devices > 1 => {
            // N GPUs through NCCL: the client says what is missing (the
            // extension's `nccl` feature, the driver, NCCL, GPUs).
            match hlox::Client::cuda_devices(devices)?.compile(module_ref, &options)? {
                hlox::Executable::CudaDevices(e) => {
                    let text = hlox_hlo::text::print::print_module(&e.module().compiled.module);
                    Ok((Backend::CudaDevices(e), text))
                }
                _ => Err(hlox::Error::Device {
                    platform: hlox::Platform::Cuda,
                    source: format!(
                        "hlox.Client.cuda_devices({devices}) gave a one-device executable"
                    )
                    .into(),
                }),
            }
        }
        Platform::Host => {
            let c = Capture {
                inner: hlox_cpu::HostCompiler::default(),
                text: Mutex::new(String::new()),
            };
            let exe = c.compile(module_ref, &options)?.into_executable()?;
            let text = c.text.into_inner().unwrap_or_default();
            Ok((Backend::Host(exe), text))
        }
        Platform::Cuda => match hlox::Client::cuda(0) {
            Ok(client) => {
                let exe = client.compile(module_ref, &options)?;
                match exe {
                    hlox::Executable::Cuda(e) => {
                        let text = hlox_hlo::text::print::print_module(&e.compiled().module);
                        Ok((Backend::Cuda(e), text))
                    }
                    hlox::Executable::Host(e) => Ok((Backend::Host(e), String::new())),
                    // A CUDA client has one device: never a multi-device executable.
                    hlox::Executable::Devices(_) | hlox::Executable::CudaDevices(_) => {
                        Err(hlox::Error::Device {
                            platform: hlox::Platform::Host,
                            source: "a one-device CUDA client gave a multi-device executable"
                                .into(),
                        })
                    }
                }
            }
            Err(device) => {
                let compiled = hlox::cuda::CudaCompiler.compile(module_ref, &options)?;
                let text = hlox_hlo::text::print::print_module(&compiled.module);
                Ok((Backend::CudaNoDevice(device.to_string()), text))
            }
        },
    });
    let (backend, hlo) = match built {
        Ok(b) => b,
        Err(hlox::Error::Compile(e)) => return Err(errors::compile_error(py, &e)),
        Err(e) => return Err(errors::Error::new_err(e.to_string())),
    };
    Ok(Executable {
        backend,
        name: m.inner.name.clone(),
        params: ps.parameters,
        param_names: ps.parameter_names,
        outs: ps
            .result
            .leaves()
            .into_iter()
            .map(|(_, l)| {
                l.as_array().map(|a| {
                    let (dims, perm) = physical(a);
                    OutPlan {
                        ty: a.ty,
                        dims,
                        perm,
                    }
                })
            })
            .collect(),
        result: ps.result,
        hlo,
    })
}

/// A result leaf: the numpy array the code writes (in the layout's order)
/// and the permutation back to logical order; `None` for a token.
type OutLeaf<'py> = Option<(Bound<'py, PyUntypedArray>, Option<Vec<usize>>)>;

/// Raw pointers handed to the thread that runs without the GIL.
struct Buffers {
    ins: Vec<(*const u8, usize)>,
    outs: Vec<(*mut u8, usize)>,
}
// SAFETY: the pointers stay valid (the arrays are kept alive by the caller,
// who waits for the run) and the outputs are written by this run only.
unsafe impl Send for Buffers {}

static FROM_DLPACK: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ASCONTIGUOUS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn numpy_fn<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(cell
        .get_or_try_init(py, || -> PyResult<_> {
            Ok(py.import("numpy")?.getattr(name)?.unbind())
        })?
        .bind(py)
        .clone())
}

/// Dimensions in the order of the layout, most major first.
fn physical(a: &ArrayShape) -> (Vec<i64>, Option<Vec<usize>>) {
    if a.layout.is_default() || a.dims.len() <= 1 {
        return (a.dims.clone(), None);
    }
    let perm: Vec<usize> = a
        .layout
        .minor_to_major
        .iter()
        .rev()
        .map(|&d| d as usize)
        .collect();
    (perm.iter().map(|&d| a.dims[d]).collect(), Some(perm))
}

impl Executable {
    fn argument_error(&self, index: usize, msg: String) -> PyErr {
        let name = self.param_names.get(index).cloned().unwrap_or_default();
        errors::ExecError::new_err(format!(
            "{}: argument {index} (parameter `{name}`): {msg}",
            self.name
        ))
    }

    /// One numpy array for leaf `want` of parameter `index`, in the bytes
    /// the parameter wants (a copy only when it must).
    fn leaf<'py>(
        &self,
        index: usize,
        arg: &Bound<'py, PyAny>,
        want: &ArrayShape,
    ) -> PyResult<Bound<'py, PyUntypedArray>> {
        let py = arg.py();
        let descr = dtype::descr_of(py, want.ty)?;
        if arg.is_none() {
            return Err(self.argument_error(
                index,
                format!(
                    "got None; pass {}",
                    crate::module::fmt_shape(&Shape::Array(want.clone()))
                ),
            ));
        }
        let arr: Bound<'py, PyUntypedArray> = match arg.cast::<PyUntypedArray>() {
            Ok(a) => a.clone(),
            Err(_) if arg.hasattr("__dlpack__")? => {
                match numpy_fn(py, &FROM_DLPACK, "from_dlpack")?.call1((arg,)) {
                    Ok(a) => a.cast_into::<PyUntypedArray>()?,
                    // numpy's DLPack import has no bfloat16 (a JAX or torch
                    // bf16 array): `__array__` gives ml_dtypes' bfloat16.
                    Err(e) if arg.hasattr("__array__")? => numpy_fn(py, &ASARRAY, "asarray")?
                        .call1((arg,))
                        .map_err(|e2| {
                            self.argument_error(
                                index,
                                format!(
                                    "cannot read it through __dlpack__ ({e}) nor __array__ ({e2})"
                                ),
                            )
                        })?
                        .cast_into::<PyUntypedArray>()?,
                    Err(e) => {
                        return Err(self.argument_error(
                            index,
                            format!("cannot read it through __dlpack__: {e}"),
                        ))
                    }
                }
            }
            Err(_) => numpy_fn(py, &ASARRAY, "asarray")?
                .call1((arg, &descr))
                .map_err(|e| {
                    self.argument_error(
                        index,
                        format!(
                            "cannot convert {} to a {} array: {e}",
                            arg.get_type(),
                            want.ty
                        ),
                    )
                })?
                .cast_into::<PyUntypedArray>()?,
        };
        let dims_match = {
            let got = arr.shape();
            got.len() == want.dims.len() && got.iter().zip(&want.dims).all(|(&g, &w)| g as i64 == w)
        };
        if !dims_match || !arr.dtype().is_equiv_to(&descr) {
            return Err(self.argument_error(
                index,
                format!(
                    "expected {}, got a {} array of shape {}",
                    crate::module::fmt_shape(&Shape::Array(want.clone())),
                    arr.dtype(),
                    arr.getattr("shape")?
                ),
            ));
        }
        let row_major = want.layout.is_default() || want.dims.len() <= 1;
        let (_, flags) = dtype::raw_parts(&arr);
        if row_major && flags & NPY_C_CONTIGUOUS != 0 && flags & NPY_ALIGNED != 0 {
            return Ok(arr);
        }
        let (_, perm) = physical(want);
        let src = match perm {
            Some(p) => arr.call_method1("transpose", (p,))?,
            None => arr.into_any(),
        };
        Ok(numpy_fn(py, &ASCONTIGUOUS, "ascontiguousarray")?
            .call1((src,))?
            .cast_into::<PyUntypedArray>()?)
    }

    /// Flattens argument `arg` of parameter shape `shape` into leaves.
    fn flatten<'py>(
        &self,
        index: usize,
        arg: &Bound<'py, PyAny>,
        shape: &Shape,
        out: &mut Vec<Option<Bound<'py, PyUntypedArray>>>,
    ) -> PyResult<()> {
        match shape {
            Shape::Array(a) => out.push(Some(self.leaf(index, arg, a)?)),
            Shape::Token => out.push(None),
            Shape::Tuple(elems) => {
                let items: Vec<Bound<'py, PyAny>> = if let Ok(t) = arg.cast::<PyTuple>() {
                    t.iter().collect()
                } else if let Ok(l) = arg.cast::<PyList>() {
                    l.iter().collect()
                } else {
                    return Err(self.argument_error(
                        index,
                        format!(
                            "the parameter is the tuple {}: pass a tuple of arrays",
                            crate::module::fmt_shape(shape)
                        ),
                    ));
                };
                if items.len() != elems.len() {
                    return Err(self.argument_error(
                        index,
                        format!(
                            "the parameter is the tuple {} of {} elements; got {}",
                            crate::module::fmt_shape(shape),
                            elems.len(),
                            items.len()
                        ),
                    ));
                }
                for (it, s) in items.iter().zip(elems) {
                    self.flatten(index, it, s, out)?;
                }
            }
        }
        Ok(())
    }

    fn run_host<'py>(
        &self,
        exe: &hlox::HostExecutable,
        args: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = args.py();
        let mut leaves = Vec::new();
        for (i, (a, s)) in args.iter().zip(&self.params).enumerate() {
            self.flatten(i, &a, s, &mut leaves)?;
        }
        let mut outs: Vec<OutLeaf<'py>> = Vec::with_capacity(self.outs.len());
        for o in &self.outs {
            match o {
                Some(o) => {
                    let descr = dtype::descr_of(py, o.ty)?;
                    // SAFETY: null data: numpy allocates the buffer.
                    let arr = unsafe {
                        dtype::array_over(py, &descr, &o.dims, std::ptr::null_mut(), true)?
                    };
                    outs.push(Some((arr, o.perm.clone())));
                }
                None => outs.push(None),
            }
        }
        let bufs = Buffers {
            ins: leaves
                .iter()
                .map(|l| match l {
                    Some(a) => (dtype::raw_parts(a).0 as *const u8, dtype::nbytes(a)),
                    None => (std::ptr::NonNull::<u8>::dangling().as_ptr() as *const u8, 0),
                })
                .collect(),
            outs: outs
                .iter()
                .map(|o| match o {
                    Some((a, _)) => (dtype::raw_parts(a).0 as *mut u8, dtype::nbytes(a)),
                    None => (std::ptr::NonNull::<u8>::dangling().as_ptr(), 0),
                })
                .collect(),
        };
        let res = py.detach(move || {
            let b = bufs;
            // SAFETY: each pointer addresses `len` bytes of an array kept
            // alive above (or is dangling with length 0); outputs are fresh
            // arrays, so they overlap nothing.
            let ins: Vec<&[u8]> = b
                .ins
                .iter()
                .map(|&(p, n)| unsafe { std::slice::from_raw_parts(p, n) })
                .collect();
            let mut outs: Vec<&mut [u8]> = b
                .outs
                .iter()
                .map(|&(p, n)| unsafe { std::slice::from_raw_parts_mut(p, n) })
                .collect();
            exe.execute_into(&ins, &mut outs)
        });
        drop(leaves);
        res.map_err(|e| errors::host_exec_error(py, &self.name, e))?;
        let mut results = Vec::new();
        for o in outs {
            results.push(match o {
                Some((a, None)) => a.into_any(),
                Some((a, Some(perm))) => {
                    let mut inv = vec![0usize; perm.len()];
                    for (i, &p) in perm.iter().enumerate() {
                        inv[p] = i;
                    }
                    a.call_method1("transpose", (inv,))?
                }
                None => py.None().into_bound(py),
            });
        }
        self.wrap(py, results)
    }

    fn wrap<'py>(
        &self,
        py: Python<'py>,
        mut results: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if matches!(self.result, Shape::Tuple(_)) {
            Ok(PyTuple::new(py, results)?.into_any())
        } else {
            Ok(results.pop().unwrap_or_else(|| py.None().into_bound(py)))
        }
    }

    /// The arguments as literals (copies), one per parameter.
    fn literals<'py>(&self, args: &Bound<'py, PyTuple>) -> PyResult<Vec<hlox_hlo::Literal>> {
        let mut lits = Vec::new();
        for (i, (a, s)) in args.iter().zip(&self.params).enumerate() {
            let mut leaves = Vec::new();
            self.flatten(i, &a, s, &mut leaves)?;
            let mut it = leaves.into_iter();
            lits.push(self.literal(i, s, &mut it)?);
        }
        Ok(lits)
    }

    /// A result literal as numpy arrays (a tuple for a tuple result).
    fn literal_results<'py>(
        &self,
        py: Python<'py>,
        out: &hlox_hlo::Literal,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut results = Vec::new();
        fn leaves_of<'a>(l: &'a hlox_hlo::Literal, out: &mut Vec<&'a hlox_hlo::Literal>) {
            match l {
                hlox_hlo::Literal::Tuple(t) => t.iter().for_each(|e| leaves_of(e, out)),
                other => out.push(other),
            }
        }
        let mut ls = Vec::new();
        leaves_of(out, &mut ls);
        for l in ls {
            match l {
                hlox_hlo::Literal::Array(a) => {
                    let sh = a.shape();
                    let (dims, _) = physical(sh);
                    let descr = dtype::descr_of(py, sh.ty)?;
                    let arr = unsafe {
                        dtype::array_over(py, &descr, &dims, std::ptr::null_mut(), true)?
                    };
                    let (p, _) = dtype::raw_parts(&arr);
                    let bytes = a.bytes();
                    if bytes.len() == dtype::nbytes(&arr) && !bytes.is_empty() {
                        unsafe {
                            std::ptr::copy_nonoverlapping(bytes.as_ptr(), p as *mut u8, bytes.len())
                        };
                    }
                    results.push(arr.into_any());
                }
                _ => results.push(py.None().into_bound(py)),
            }
        }
        self.wrap(py, results)
    }

    fn literal<'py>(
        &self,
        index: usize,
        s: &Shape,
        it: &mut std::vec::IntoIter<Option<Bound<'py, PyUntypedArray>>>,
    ) -> PyResult<hlox_hlo::Literal> {
        Ok(match s {
            Shape::Array(a) => {
                let arr = it
                    .next()
                    .flatten()
                    .ok_or_else(|| self.argument_error(index, "missing array".into()))?;
                let bytes = dtype::bytes_of(&arr);
                hlox_hlo::Literal::Array(
                    hlox_hlo::ArrayLiteral::from_bytes(a.clone(), bytes)
                        .map_err(|e| self.argument_error(index, e.to_string()))?,
                )
            }
            Shape::Token => {
                it.next();
                hlox_hlo::Literal::Token
            }
            Shape::Tuple(t) => hlox_hlo::Literal::Tuple(
                t.iter()
                    .map(|e| self.literal(index, e, it))
                    .collect::<PyResult<_>>()?,
            ),
        })
    }
}

#[pymethods]
impl Executable {
    #[pyo3(signature = (*args))]
    fn __call__<'py>(&self, args: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        let py = args.py();
        if args.len() != self.params.len() {
            return Err(errors::ExecError::new_err(format!(
                "{}: the computation takes {} arguments but was given {}",
                self.name,
                self.params.len(),
                args.len()
            )));
        }
        match &self.backend {
            Backend::Host(e) => self.run_host(e, args),
            // The CUDA runtime takes host literals (copied to the device).
            Backend::Cuda(e) => {
                let lits = self.literals(args)?;
                let out = py
                    .detach(|| e.execute(&lits))
                    .map_err(|err| errors::cuda_exec_error(py, &self.name, err))?;
                self.literal_results(py, &out)
            }
            // An SPMD program runs on its Host devices (threads of this
            // process) with the global arguments; device 0's result is the
            // global result (every device assembles the same one).
            Backend::Devices(e) => {
                let lits = self.literals(args)?;
                let refs: Vec<&hlox_hlo::Literal> = lits.iter().collect();
                let all = py
                    .detach(|| e.execute(&refs, &hlox::ExecuteOptions::default()))
                    .map_err(|err| errors::ExecError::new_err(format!("{}: {err}", self.name)))?;
                let first = all.into_iter().next().ok_or_else(|| {
                    errors::ExecError::new_err(format!("{}: no device ran", self.name))
                })?;
                self.literal_results(py, &first)
            }
            // Every GPU's result is the global result; device 0's is returned.
            Backend::CudaDevices(e) => {
                let lits = self.literals(args)?;
                let refs: Vec<&hlox_hlo::Literal> = lits.iter().collect();
                let all = py
                    .detach(|| e.execute(&refs))
                    .map_err(|err| errors::ExecError::new_err(format!("{}: {err}", self.name)))?;
                let first = all.into_iter().next().ok_or_else(|| {
                    errors::ExecError::new_err(format!("{}: no device ran", self.name))
                })?;
                self.literal_results(py, &first)
            }
            Backend::CudaNoDevice(why) => Err(errors::ExecError::new_err(format!(
                "{}: compiled for CUDA, but no CUDA device can be opened here: {why}",
                self.name
            ))),
        }
    }

    /// The module after hlox's HLO passes (what the code generator got).
    fn hlo_text(&self) -> String {
        self.hlo.clone()
    }

    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    /// "cpu" or "cuda".
    #[getter]
    fn platform(&self) -> &'static str {
        match self.backend {
            Backend::Host(_) | Backend::Devices(_) => "cpu",
            _ => "cuda",
        }
    }

    /// The number of devices a call runs on (`devices=` of hlox.compile).
    #[getter]
    fn devices(&self) -> usize {
        match &self.backend {
            Backend::Devices(e) => e.devices(),
            Backend::CudaDevices(e) => e.devices(),
            _ => 1,
        }
    }

    #[getter]
    fn parameter_shapes(&self) -> Vec<crate::module::Shape> {
        self.params
            .iter()
            .map(|s| crate::module::Shape { inner: s.clone() })
            .collect()
    }

    #[getter]
    fn result_shape(&self) -> crate::module::Shape {
        crate::module::Shape {
            inner: self.result.clone(),
        }
    }

    fn __repr__(&self) -> String {
        let params: Vec<String> = self.params.iter().map(crate::module::fmt_shape).collect();
        format!(
            "<hlox.Executable {} on {}: ({}) -> {}>",
            self.name,
            self.platform(),
            params.join(", "),
            crate::module::fmt_shape(&self.result)
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Executable>()?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    Ok(())
}

/// `Executable` is shared by Python threads (a frozen pyclass).
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Executable>()
};
