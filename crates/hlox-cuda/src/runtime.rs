//! Running a compiled module on a GPU: the CUDA driver through `cudarc`
//! (loaded at run time: a machine without `libcuda.so` gets a clear error,
//! never a panic).
//!
//! Values are trees of device buffers that are never written after the
//! step that produced them, so tuples, get-tuple-elements and loop states
//! share buffers without copies; a buffer is freed when the last step
//! using its value has run. Everything runs on one stream, in program
//! order; host control flow (while, conditional) reads its predicate back.

use crate::plan::{CompPlan, Step};
use crate::{compile, CompileError, CompiledModule, CudaCompileOptions};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, LaunchConfig,
    PushKernelArg,
};
use hlox_hlo::{ArrayLiteral, ArrayShape, CompId, InstId, Literal, Module, Op, Shape};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// Errors of the CUDA runtime (device, loading, execution).
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("no CUDA driver found (libcuda.so): {0}")]
    NoDriver(String),
    #[error("CUDA driver: {0}")]
    Driver(String),
    #[error(transparent)]
    Compile(#[from] CompileError),
    #[error("the computation takes {expected} arguments but was given {actual}")]
    ArgumentCount { expected: usize, actual: usize },
    #[error("argument {index} (parameter `{name}`): {message}")]
    Argument {
        index: usize,
        name: String,
        message: String,
    },
    #[error("{inst}: CustomCall failed: {message}")]
    CustomCall { inst: String, message: String },
    #[error("execution failed at {inst}: {message}")]
    Exec { inst: String, message: String },
}

fn drv(e: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::Driver(e.to_string())
}

/// Whether the CUDA driver library can be loaded on this machine.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen libcuda; nothing is called.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// A CUDA device: its context and the stream every run uses.
pub struct CudaClient {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    ordinal: usize,
}

impl std::fmt::Debug for CudaClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CudaClient({})", self.ordinal)
    }
}

impl CudaClient {
    /// Open device `ordinal`. Fails with "no CUDA driver found
    /// (libcuda.so): ..." where the driver library is missing.
    pub fn new(ordinal: usize) -> Result<CudaClient, RuntimeError> {
        if !driver_present() {
            return Err(RuntimeError::NoDriver(
                "the NVIDIA driver library could not be loaded; install the NVIDIA driver \
                 or run on a machine with a GPU (the Host platform needs none)"
                    .into(),
            ));
        }
        let count = CudaContext::device_count().map_err(drv)?;
        if ordinal >= count.max(0) as usize {
            return Err(RuntimeError::Driver(format!(
                "device {ordinal} does not exist ({count} CUDA device(s) found)"
            )));
        }
        let ctx = CudaContext::new(ordinal).map_err(drv)?;
        let stream = ctx.new_stream().map_err(drv)?;
        Ok(CudaClient {
            ctx,
            stream,
            ordinal,
        })
    }

    /// The device's name and compute capability, e.g. ("NVIDIA H100", (9, 0)).
    pub fn device_info(&self) -> Result<(String, (i32, i32)), RuntimeError> {
        Ok((
            self.ctx.name().map_err(drv)?,
            self.ctx.compute_capability().map_err(drv)?,
        ))
    }

    /// The `sm_XX` of this device.
    pub fn sm(&self) -> Result<String, RuntimeError> {
        let (ma, mi) = self.ctx.compute_capability().map_err(drv)?;
        Ok(format!("sm_{ma}{mi}"))
    }

    /// Compile for this device (the options' `sm` is replaced by the
    /// device's own) and load the result.
    pub fn compile(
        &self,
        module: &Module,
        options: &CudaCompileOptions,
    ) -> Result<CudaExecutable, RuntimeError> {
        let mut o = options.clone();
        o.sm = self.sm()?;
        let c = compile(module, &o)?;
        self.load(c)
    }

    /// Load a compiled module: its PTX and its constants.
    pub fn load(&self, compiled: CompiledModule) -> Result<CudaExecutable, RuntimeError> {
        let cm = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(compiled.ptx.clone()))
            .map_err(|e| RuntimeError::Driver(format!("loading the PTX module: {e}")))?;
        let mut funcs = Vec::new();
        for k in &compiled.program.kernels {
            funcs.push(
                cm.load_function(&k.name)
                    .map_err(|e| RuntimeError::Driver(format!("kernel {}: {e}", k.name)))?,
            );
        }
        let mut constants = HashMap::new();
        for (&cid, plan) in &compiled.program.comps {
            let comp = compiled.module.comp(cid);
            for (id, step, _) in &plan.steps {
                if let Step::Constant = step {
                    if let Op::Constant { literal } = &comp.inst(*id).op {
                        constants.insert((cid, *id), self.upload_literal(literal)?);
                    }
                }
            }
        }
        Ok(CudaExecutable {
            ctx: self.ctx.clone(),
            stream: self.stream.clone(),
            _module: cm,
            funcs,
            constants,
            compiled,
        })
    }

    fn upload_literal(&self, l: &Literal) -> Result<HostVal, RuntimeError> {
        Ok(match l {
            Literal::Array(a) => HostVal::Buf(self.upload(a.bytes(), a.shape().clone())?),
            Literal::Tuple(t) => HostVal::Tuple(
                t.iter()
                    .map(|e| self.upload_literal(e))
                    .collect::<Result<_, _>>()?,
            ),
            Literal::Token => HostVal::Token,
        })
    }

    fn upload(&self, bytes: &[u8], shape: ArrayShape) -> Result<Rc<DevBuf>, RuntimeError> {
        let data: &[u8] = if bytes.is_empty() { &[0u8] } else { bytes };
        let slice = self.stream.clone_htod(data).map_err(drv)?;
        Ok(Rc::new(DevBuf { slice, shape }))
    }
}

/// One device array.
struct DevBuf {
    slice: CudaSlice<u8>,
    shape: ArrayShape,
}

/// A value: a tree of device arrays.
#[derive(Clone)]
enum HostVal {
    Buf(Rc<DevBuf>),
    Tuple(Vec<HostVal>),
    Token,
}

impl HostVal {
    fn leaves(&self, out: &mut Vec<Option<Rc<DevBuf>>>) {
        match self {
            HostVal::Buf(b) => out.push(Some(b.clone())),
            HostVal::Tuple(t) => t.iter().for_each(|e| e.leaves(out)),
            HostVal::Token => out.push(None),
        }
    }
}

/// A module loaded on a device.
pub struct CudaExecutable {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    _module: Arc<CudaModule>,
    funcs: Vec<CudaFunction>,
    constants: HashMap<(CompId, InstId), HostVal>,
    compiled: CompiledModule,
}

impl CudaExecutable {
    /// The compiled module (program, PTX, options).
    pub fn compiled(&self) -> &CompiledModule {
        &self.compiled
    }

    /// Run with host arguments; returns the result on the host.
    pub fn execute(&self, args: &[Literal]) -> Result<Literal, RuntimeError> {
        let m = &self.compiled.module;
        let entry = m.entry_computation();
        if args.len() != entry.params.len() {
            return Err(RuntimeError::ArgumentCount {
                expected: entry.params.len(),
                actual: args.len(),
            });
        }
        self.ctx.bind_to_thread().map_err(drv)?;
        let mut dargs = Vec::new();
        for (i, (a, &p)) in args.iter().zip(&entry.params).enumerate() {
            let pinst = entry.inst(p);
            dargs.push(self.upload_arg(a, &pinst.shape).map_err(|message| {
                RuntimeError::Argument {
                    index: i,
                    name: pinst.name.clone(),
                    message,
                }
            })?);
        }
        let r = self.run_comp(m.entry, dargs)?;
        let out = self.download(&r)?;
        self.stream.synchronize().map_err(drv)?;
        Ok(out)
    }

    fn upload_arg(&self, a: &Literal, s: &Shape) -> Result<HostVal, String> {
        match (a, s) {
            (Literal::Array(l), Shape::Array(want)) => {
                if l.shape().ty != want.ty || l.shape().dims != want.dims {
                    return Err(format!(
                        "expected {:?}{:?}, got {:?}{:?}",
                        want.ty,
                        want.dims,
                        l.shape().ty,
                        l.shape().dims
                    ));
                }
                let l = if l.shape().layout != want.layout {
                    l.relayout(want.layout.clone())
                } else {
                    l.clone()
                };
                let data: &[u8] = if l.bytes().is_empty() {
                    &[0u8]
                } else {
                    l.bytes()
                };
                let slice = self.stream.clone_htod(data).map_err(|e| e.to_string())?;
                Ok(HostVal::Buf(Rc::new(DevBuf {
                    slice,
                    shape: want.clone(),
                })))
            }
            (Literal::Tuple(t), Shape::Tuple(ts)) if t.len() == ts.len() => Ok(HostVal::Tuple(
                t.iter()
                    .zip(ts)
                    .map(|(l, s)| self.upload_arg(l, s))
                    .collect::<Result<_, _>>()?,
            )),
            (Literal::Token, Shape::Token) => Ok(HostVal::Token),
            _ => Err("literal does not match the parameter's shape".into()),
        }
    }

    fn download(&self, v: &HostVal) -> Result<Literal, RuntimeError> {
        Ok(match v {
            HostVal::Buf(b) => {
                let mut bytes = vec![0u8; b.shape.byte_size().max(1)];
                self.stream
                    .memcpy_dtoh(&b.slice, &mut bytes[..])
                    .map_err(drv)?;
                bytes.truncate(b.shape.byte_size());
                Literal::Array(ArrayLiteral::from_bytes(b.shape.clone(), bytes).map_err(drv)?)
            }
            HostVal::Tuple(t) => Literal::Tuple(
                t.iter()
                    .map(|e| self.download(e))
                    .collect::<Result<_, _>>()?,
            ),
            HostVal::Token => Literal::Token,
        })
    }

    fn alloc(&self, s: &Shape) -> Result<HostVal, RuntimeError> {
        Ok(match s {
            Shape::Array(a) => {
                // SAFETY: every element is written by the producing step.
                let slice =
                    unsafe { self.stream.alloc::<u8>(a.byte_size().max(1)) }.map_err(drv)?;
                HostVal::Buf(Rc::new(DevBuf {
                    slice,
                    shape: a.clone(),
                }))
            }
            Shape::Tuple(t) => {
                HostVal::Tuple(t.iter().map(|e| self.alloc(e)).collect::<Result<_, _>>()?)
            }
            Shape::Token => HostVal::Token,
        })
    }

    fn ptr(&self, b: &DevBuf) -> u64 {
        let (p, _sync) = b.slice.device_ptr(&self.stream);
        p
    }

    fn run_comp(&self, cid: CompId, args: Vec<HostVal>) -> Result<HostVal, RuntimeError> {
        let m = &self.compiled.module;
        let comp = m.comp(cid);
        let plan: &CompPlan =
            self.compiled
                .program
                .comps
                .get(&cid)
                .ok_or_else(|| RuntimeError::Exec {
                    inst: comp.name.clone(),
                    message: "computation was not planned".into(),
                })?;
        let mut vals: HashMap<InstId, HostVal> = HashMap::new();
        let exec = |inst: &str, message: String| RuntimeError::Exec {
            inst: inst.to_string(),
            message,
        };
        for (id, step, frees) in &plan.steps {
            let inst = comp.inst(*id);
            let name = inst.name.as_str();
            let operand = |k: usize| -> Result<HostVal, RuntimeError> {
                inst.operands
                    .get(k)
                    .and_then(|o| vals.get(o))
                    .cloned()
                    .ok_or_else(|| exec(name, format!("operand {k} has no value")))
            };
            let v = match step {
                Step::Param(n) => args
                    .get(*n)
                    .cloned()
                    .ok_or_else(|| exec(name, format!("no argument {n}")))?,
                Step::Constant => self
                    .constants
                    .get(&(cid, *id))
                    .cloned()
                    .ok_or_else(|| exec(name, "constant not loaded".into()))?,
                Step::Tuple => HostVal::Tuple(
                    (0..inst.operands.len())
                        .map(operand)
                        .collect::<Result<_, _>>()?,
                ),
                Step::Gte(i) => match operand(0)? {
                    HostVal::Tuple(t) => t
                        .get(*i)
                        .cloned()
                        .ok_or_else(|| exec(name, format!("tuple has no element {i}")))?,
                    _ => return Err(exec(name, "operand is not a tuple".into())),
                },
                Step::Alias => operand(0)?,
                Step::Token => HostVal::Token,
                Step::ByteCopy => {
                    let out = self.alloc(&inst.shape)?;
                    if let (HostVal::Buf(src), HostVal::Buf(dst)) = (operand(0)?, &out) {
                        let n = src.shape.byte_size();
                        if n > 0 {
                            // SAFETY: both buffers hold n bytes; dst is fresh.
                            unsafe {
                                cudarc::driver::result::memcpy_dtod_async(
                                    self.ptr(dst),
                                    self.ptr(&src),
                                    n,
                                    self.stream.cu_stream(),
                                )
                            }
                            .map_err(|e| exec(name, e.to_string()))?;
                        }
                    }
                    out
                }
                Step::Kernel(k) => {
                    let out = self.alloc(&inst.shape)?;
                    let mut leaves = Vec::new();
                    for o in 0..inst.operands.len() {
                        operand(o)?.leaves(&mut leaves);
                    }
                    out.leaves(&mut leaves);
                    let ptrs: Vec<u64> = leaves
                        .iter()
                        .map(|l| l.as_ref().map(|b| self.ptr(b)).unwrap_or(0))
                        .collect();
                    let info = &self.compiled.program.kernels[*k];
                    if info.threads > 0 {
                        let bs = self.compiled.options.block_size as u64;
                        let grid = info.threads.div_ceil(bs);
                        let grid = u32::try_from(grid).map_err(|_| {
                            exec(name, format!("{} threads exceed one grid", info.threads))
                        })?;
                        let cfg = LaunchConfig {
                            grid_dim: (grid, 1, 1),
                            block_dim: (bs as u32, 1, 1),
                            shared_mem_bytes: 0,
                        };
                        let mut b = self.stream.launch_builder(&self.funcs[*k]);
                        for p in &ptrs {
                            b.arg(p);
                        }
                        // SAFETY: the kernel takes exactly these pointers
                        // (operand leaves, then result leaves) and writes
                        // only inside the result buffers.
                        unsafe { b.launch(cfg) }
                            .map_err(|e| exec(name, format!("kernel {}: {e}", info.name)))?;
                    }
                    out
                }
                Step::Call(c) => {
                    let a = (0..inst.operands.len())
                        .map(operand)
                        .collect::<Result<_, _>>()?;
                    self.run_comp(*c, a)?
                }
                Step::While { cond, body } => {
                    let mut state = operand(0)?;
                    loop {
                        let p = self.run_comp(*cond, vec![state.clone()])?;
                        if !self.read_pred(&p, name)? {
                            break;
                        }
                        state = self.run_comp(*body, vec![state])?;
                    }
                    state
                }
                Step::Conditional(branches) => {
                    let sel = operand(0)?;
                    let is_pred = comp
                        .inst(inst.operands[0])
                        .shape
                        .element_type()
                        .is_some_and(|t| t.is_pred());
                    let b = if is_pred {
                        if self.read_pred(&sel, name)? {
                            0
                        } else {
                            1
                        }
                    } else {
                        let i = self.read_i32(&sel, name)?;
                        if i < 0 || i as usize >= branches.len() {
                            branches.len() - 1
                        } else {
                            i as usize
                        }
                    };
                    let arg = operand(1 + b)?;
                    self.run_comp(branches[b], vec![arg])?
                }
                Step::CustomCall => self.custom_call(inst, &operand)?,
            };
            vals.insert(*id, v);
            for f in frees {
                vals.remove(f);
            }
        }
        vals.remove(&comp.root)
            .ok_or_else(|| exec(&comp.name, "root has no value".into()))
    }

    fn read_scalar(&self, v: &HostVal, name: &str, n: usize) -> Result<Vec<u8>, RuntimeError> {
        let HostVal::Buf(b) = v else {
            return Err(RuntimeError::Exec {
                inst: name.into(),
                message: "predicate is not an array".into(),
            });
        };
        let mut bytes = vec![0u8; n];
        self.stream
            .memcpy_dtoh(&b.slice.slice(0..n), &mut bytes[..])
            .map_err(drv)?;
        Ok(bytes)
    }

    fn read_pred(&self, v: &HostVal, name: &str) -> Result<bool, RuntimeError> {
        Ok(self.read_scalar(v, name, 1)?[0] != 0)
    }

    fn read_i32(&self, v: &HostVal, name: &str) -> Result<i32, RuntimeError> {
        let b = self.read_scalar(v, name, 4)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn custom_call(
        &self,
        inst: &hlox_hlo::Instruction,
        operand: &dyn Fn(usize) -> Result<HostVal, RuntimeError>,
    ) -> Result<HostVal, RuntimeError> {
        let Op::CustomCall(call) = &inst.op else {
            return Err(RuntimeError::Exec {
                inst: inst.name.clone(),
                message: "not a custom call".into(),
            });
        };
        let target =
            self.compiled
                .bound
                .get(&call.target)
                .ok_or_else(|| RuntimeError::CustomCall {
                    inst: inst.name.clone(),
                    message: format!("target \"{}\" is not bound for CUDA", call.target),
                })?;
        let out = self.alloc(&inst.shape)?;
        let mut leaves = Vec::new();
        for o in 0..inst.operands.len() {
            operand(o)?.leaves(&mut leaves);
        }
        out.leaves(&mut leaves);
        let mut buffers: Vec<*mut std::ffi::c_void> = leaves
            .iter()
            .map(|l| {
                l.as_ref()
                    .map(|b| self.ptr(b) as usize as *mut std::ffi::c_void)
                    .unwrap_or(std::ptr::null_mut())
            })
            .collect();
        let stream = self.stream.cu_stream() as hlox_ffi::target::CUstream;
        // SAFETY: buffers are live device allocations of the shapes the
        // custom call declares, in XLA's order; the stream is ours.
        unsafe { hlox_ffi::invoke::invoke_cuda(target, call, stream, &mut buffers) }.map_err(
            |e| RuntimeError::CustomCall {
                inst: inst.name.clone(),
                message: format!("target \"{}\": {}", call.target, e.detail()),
            },
        )?;
        Ok(out)
    }
}
