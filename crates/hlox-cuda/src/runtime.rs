//! Running a compiled module on a GPU: the CUDA driver through `cudarc`
//! (loaded at run time: a machine without `libcuda.so` gets a clear error,
//! never a panic).
//!
//! Values are trees of device buffers that are never written after the
//! step that produced them, so tuples, get-tuple-elements and loop states
//! share buffers without copies; a buffer is freed when the last step
//! using its value has run. Everything runs on one stream, in program
//! order; host control flow (while, conditional) reads its predicate back.
//! Runs that do the same device work every time are recorded once and then
//! replayed as a CUDA graph (see [`crate::graph`]).

use crate::graph::{Cmd, GraphStatus, Recording, Slot, Tape};
use crate::plan::{CompPlan, Step};
use crate::{compile, ArgumentError, CompileError, CompileOptions, CompiledModule};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, LaunchConfig,
    PushKernelArg,
};
use hlox_hlo::{ArrayLiteral, ArrayShape, CompId, InstId, Literal, Module, Op, Shape};
use std::borrow::{Borrow, Cow};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Errors of the CUDA runtime (device, loading, execution).
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("no CUDA driver found (libcuda.so): {0}")]
    NoDriver(String),
    #[error("CUDA driver: {0}")]
    Driver(String),
    #[error("{0}")]
    Compile(#[from] CompileError),
    #[error(transparent)]
    Arguments(#[from] ArgumentError),
    /// Custom call `inst` of `target` failed (or its target is not bound).
    #[error("{inst}: CustomCall failed: target \"{target}\": {message}")]
    CustomCall {
        inst: String,
        target: String,
        message: String,
    },
    #[error("execution failed at {inst}: {message}")]
    Exec { inst: String, message: String },
    /// A device operation failed while running instruction `inst`.
    #[error("execution failed at {inst}: {source}")]
    Device { inst: String, source: DeviceError },
    /// Kernel `kernel` of instruction `inst` could not be launched.
    #[error("execution failed at {inst}: kernel {kernel}: {source}")]
    Kernel {
        inst: String,
        kernel: String,
        source: DeviceError,
    },
    /// A device operation of the run failed outside any instruction
    /// (arguments in, results out, waiting for the stream, the graph).
    #[error("execution failed: {0}")]
    Run(#[from] DeviceError),
    /// A result that does not fit its shape (a bug in hlox).
    #[error("execution failed: result of shape {shape}: {source}")]
    Result {
        shape: String,
        source: hlox_hlo::literal::LiteralError,
    },
}

/// A device operation that failed: which one, and the CUDA driver's (or
/// the emulation's) reason.
#[derive(Debug, thiserror::Error)]
#[error("{op}: {reason}")]
pub struct DeviceError {
    pub op: DeviceOp,
    pub reason: String,
}

/// A device operation (what [`DeviceError`] says failed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceOp {
    /// Allocating this many bytes.
    Alloc(usize),
    /// Copying this many bytes from the host.
    Upload(usize),
    /// Copying this many bytes to the host.
    Download(usize),
    /// Launching a kernel over this many threads.
    Launch(u64),
    /// A dot by cuBLAS.
    Gemm,
    /// Copying this many bytes between device buffers.
    Copy(usize),
    /// Waiting for the stream.
    Sync,
    /// Launching the run's CUDA graph.
    Graph,
    /// An fft's transform by cuFFT.
    Fft,
}

impl DeviceOp {
    /// This operation failed for `reason`.
    pub fn failed(self, reason: impl std::fmt::Display) -> DeviceError {
        DeviceError {
            op: self,
            reason: reason.to_string(),
        }
    }
}

impl std::fmt::Display for DeviceOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceOp::Alloc(n) => write!(f, "allocating {n} bytes of device memory"),
            DeviceOp::Upload(n) => write!(f, "copying {n} bytes to the device"),
            DeviceOp::Download(n) => write!(f, "copying {n} bytes from the device"),
            DeviceOp::Launch(n) => write!(f, "launching {n} threads"),
            DeviceOp::Gemm => write!(f, "cuBLAS GEMM"),
            DeviceOp::Copy(n) => write!(f, "copying {n} bytes between device buffers"),
            DeviceOp::Sync => write!(f, "waiting for the stream"),
            DeviceOp::Graph => write!(f, "launching the run's CUDA graph"),
            DeviceOp::Fft => write!(f, "cuFFT transform"),
        }
    }
}

fn drv(e: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::Driver(e.to_string())
}

/// Whether the CUDA driver library can be loaded on this machine.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen libcuda; nothing is called.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// The `sm_XX` to generate PTX for on a device of `device_sm`: the device's
/// own up to sm_90, sm_90 above (LLVM 19's newest NVPTX target; the driver
/// JIT-compiles its PTX for newer GPUs).
pub fn target_sm(device_sm: &str) -> String {
    match device_sm
        .strip_prefix("sm_")
        .and_then(|n| n.parse::<u32>().ok())
    {
        Some(n) if n > 90 => "sm_90".into(),
        Some(_) => device_sm.to_string(),
        None => "sm_80".into(),
    }
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
    /// device's own, at most sm_90: newer GPUs JIT-compile sm_90 PTX in the
    /// driver, LLVM 19 targets nothing newer) and load the result.
    pub fn compile(
        &self,
        module: &Module,
        options: &CompileOptions,
    ) -> Result<CudaExecutable, RuntimeError> {
        let mut o = options.clone();
        o.sm = target_sm(&self.sm()?);
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
        // cuBLAS for the dots it can compute, where libcublas is present
        // (otherwise, and with use_cublas off, the dot kernels run).
        let blas = if compiled.options.use_cublas
            && compiled.program.kernels.iter().any(|k| k.gemm.is_some())
            // SAFETY: only tries to dlopen libcublas.
            && unsafe { cudarc::cublas::sys::is_culib_present() }
        {
            Some(
                cudarc::cublas::CudaBlas::new(self.stream.clone())
                    .map_err(|e| RuntimeError::Driver(format!("cuBLAS: {e}")))?,
            )
        } else {
            None
        };
        // cuFFT plans for the ffts, where there are any (libcufft is
        // loaded only then: a clear error if it is missing).
        let fft_plans = compiled.program.comps.values().flat_map(|c| {
            c.steps.iter().filter_map(|(_, s, _)| match s {
                crate::plan::Step::Fft { plan, .. } => Some(plan),
                _ => None,
            })
        });
        let ffts = crate::fft::CufftPlans::new(fft_plans, self.stream.cu_stream() as _)
            .map_err(|e| RuntimeError::Driver(e.to_string()))?;
        let dev = CudaDevice {
            scratch: Arc::new(CudaScratch {
                stream: self.stream.clone(),
            }),
            stream: self.stream.clone(),
            gemms: compiled.program.kernels.iter().map(|k| k.gemm).collect(),
            funcs,
            blas,
            ffts,
            block_size: compiled.options.block_size,
        };
        Ok(CudaExecutable {
            ctx: self.ctx.clone(),
            _module: cm,
            runner: Runner::new(dev, compiled)?,
        })
    }
}

/// What the program interpreter needs from a device.
pub(crate) trait Device {
    type Buf;
    /// An uninitialized buffer of at least `bytes` bytes (at least 1).
    fn alloc(&self, bytes: usize) -> Result<Self::Buf, DeviceError>;
    fn upload(&self, bytes: &[u8]) -> Result<Self::Buf, DeviceError>;
    fn download(&self, b: &Self::Buf, out: &mut [u8]) -> Result<(), DeviceError>;
    fn ptr(&self, b: &Self::Buf) -> u64;
    /// Overwrite the start of `b` with `bytes`, in stream order.
    fn write(&self, b: &Self::Buf, bytes: &[u8]) -> Result<(), DeviceError>;
    /// Run kernel `k` over `threads` threads with these pointer arguments.
    fn launch(&self, k: usize, ptrs: &[u64], threads: u64) -> Result<(), DeviceError>;
    /// Copy `n` bytes from device address `src` to `dst`.
    fn copy(&self, dst: u64, src: u64, n: usize) -> Result<(), DeviceError>;
    /// The stream custom calls are given (null off the GPU).
    fn stream(&self) -> hlox_ffi::CUstream;
    /// The context of one typed-FFI call: the stream, the device ordinal
    /// and where scratch memory comes from.
    fn ffi_context(&self) -> hlox_ffi::xla_ffi::InvokeContext;
    /// Wait for all queued work.
    fn sync(&self) -> Result<(), DeviceError>;
    /// The unnormalized transform of an fft ([`crate::fft`]) from `src`
    /// to `dst`, queued on the run's stream.
    fn fft(&self, plan: &crate::plan::FftPlan, src: u64, dst: u64) -> Result<(), DeviceError> {
        let _ = (src, dst);
        Err(DeviceOp::Fft.failed(format_args!(
            "this device runs no fft ({:?} over {:?})",
            plan.fft_type, plan.lengths
        )))
    }
    /// A device graph.
    type Graph: Send;
    /// The graph of the work `issue` queues on the stream (captured, not
    /// run); `None` where the device has no graphs (the caller replays).
    fn capture(
        &self,
        issue: &dyn Fn() -> Result<(), RuntimeError>,
    ) -> Result<Option<Self::Graph>, RuntimeError>;
    /// Queue a graph [`Device::capture`] made.
    fn launch_graph(&self, g: &Self::Graph) -> Result<(), DeviceError>;
    /// Run `queue` (which queues device work), wait for that work, and
    /// return how long the device took from its first command to its last,
    /// in milliseconds (CUDA events; wall time in emulation).
    fn timed(
        &self,
        queue: &mut dyn FnMut() -> Result<(), RuntimeError>,
    ) -> Result<f64, RuntimeError>;
}

/// One device array: its memory (shared with the later arrays of a
/// recorded run that reuse it, see [`Tape`]) and its shape.
pub(crate) struct DevBuf<B> {
    pub(crate) buf: Arc<B>,
    shape: ArrayShape,
}

/// A value: a tree of device arrays (shared, never written after creation).
pub(crate) enum Val<B> {
    Buf(Arc<DevBuf<B>>),
    Tuple(Vec<Val<B>>),
    Token,
}

impl<B> Clone for Val<B> {
    fn clone(&self) -> Self {
        match self {
            Val::Buf(b) => Val::Buf(b.clone()),
            Val::Tuple(t) => Val::Tuple(t.clone()),
            Val::Token => Val::Token,
        }
    }
}

impl<B> Val<B> {
    fn leaves(&self, out: &mut Vec<Option<Arc<DevBuf<B>>>>) {
        match self {
            Val::Buf(b) => out.push(Some(b.clone())),
            Val::Tuple(t) => t.iter().for_each(|e| e.leaves(out)),
            Val::Token => out.push(None),
        }
    }
}

/// The leaves of a value, pre-order (`None` for tokens).
type Leaves<B> = Vec<Option<Arc<DevBuf<B>>>>;

/// The value of shape `s` over the leaves `it` yields (pre-order).
fn rebuild<B>(s: &Shape, it: &mut impl Iterator<Item = Option<Arc<DevBuf<B>>>>) -> Val<B> {
    match s {
        Shape::Tuple(t) => Val::Tuple(t.iter().map(|e| rebuild(e, it)).collect()),
        _ => match it.next().flatten() {
            Some(b) => Val::Buf(b),
            None => Val::Token,
        },
    }
}

/// The array leaves of argument `index`, `a`, for parameter `name` of shape
/// `s`, pre-order (`None` for tokens), in the parameter's layout: borrowed
/// where the argument already is in it (no copy), relaid out otherwise; an
/// error saying how they differ.
fn arg_leaves<'a>(
    index: usize,
    name: &str,
    a: &'a Literal,
    s: &Shape,
) -> Result<Vec<Option<Cow<'a, ArrayLiteral>>>, RuntimeError> {
    let mismatch = |message: String| {
        RuntimeError::Arguments(ArgumentError::Mismatch {
            index,
            name: name.to_string(),
            message,
        })
    };
    let mut out = Vec::new();
    fn walk<'a>(
        a: &'a Literal,
        s: &Shape,
        out: &mut Vec<Option<Cow<'a, ArrayLiteral>>>,
        mismatch: &dyn Fn(String) -> RuntimeError,
    ) -> Result<(), RuntimeError> {
        match (a, s) {
            (Literal::Array(l), Shape::Array(want)) => {
                if l.shape().ty != want.ty || l.shape().dims != want.dims {
                    return Err(mismatch(format!(
                        "expected {}{:?}, got {}{:?}",
                        want.ty,
                        want.dims,
                        l.shape().ty,
                        l.shape().dims
                    )));
                }
                out.push(Some(if l.shape().layout != want.layout {
                    Cow::Owned(l.relayout(want.layout.clone()))
                } else {
                    Cow::Borrowed(l)
                }));
                Ok(())
            }
            (Literal::Tuple(t), Shape::Tuple(ts)) if t.len() == ts.len() => t
                .iter()
                .zip(ts)
                .try_for_each(|(l, s)| walk(l, s, out, mismatch)),
            (Literal::Token, Shape::Token) => {
                out.push(None);
                Ok(())
            }
            _ => Err(mismatch(
                "literal does not match the parameter's shape".into(),
            )),
        }
    }
    walk(a, s, &mut out, &mismatch)?;
    Ok(out)
}

/// The program interpreter over a [`Device`].
pub(crate) struct Runner<D: Device> {
    pub(crate) dev: D,
    pub(crate) compiled: CompiledModule,
    constants: HashMap<(CompId, InstId), Val<D::Buf>>,
    /// The run's device commands and buffers, while one is recorded.
    tape: Mutex<Option<Tape<D::Buf>>>,
    /// Whether `tape` holds a recording (read without the lock).
    recording: AtomicBool,
    /// Graph state; held for the whole of a recorded or replayed run.
    graph: Mutex<Slot<D::Buf, D::Graph>>,
    /// The device time of the last run to finish.
    last_ms: Mutex<Option<f64>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn exec(inst: &str, message: impl Into<String>) -> RuntimeError {
    RuntimeError::Exec {
        inst: inst.to_string(),
        message: message.into(),
    }
}

/// A device failure while running instruction `inst`.
fn at(inst: &str) -> impl FnOnce(DeviceError) -> RuntimeError + '_ {
    move |source| RuntimeError::Device {
        inst: inst.to_string(),
        source,
    }
}

/// What one run keeps across its custom calls: the run id its typed-FFI
/// calls see (one per run, as in XLA) and, per typed-FFI call, whether its
/// prepare and initialize stages ran in this run and what they set
/// (destroyed when the run ends, after its last device work is done).
pub(crate) struct RunScope {
    run_id: i64,
    stages: RefCell<HashMap<(CompId, InstId), hlox_ffi::xla_ffi::RunStages>>,
}

impl RunScope {
    fn new() -> RunScope {
        RunScope {
            run_id: hlox_ffi::xla_ffi::InvokeContext::next_run_id(),
            stages: RefCell::new(HashMap::new()),
        }
    }
}

impl<D: Device> Runner<D> {
    pub(crate) fn new(dev: D, compiled: CompiledModule) -> Result<Self, RuntimeError> {
        let slot = match crate::graph::blocker(&compiled) {
            Some(why) => Slot::Off(why),
            None => Slot::Pending,
        };
        let mut r = Runner {
            dev,
            compiled,
            constants: HashMap::new(),
            tape: Mutex::new(None),
            recording: AtomicBool::new(false),
            graph: Mutex::new(slot),
            last_ms: Mutex::new(None),
        };
        let mut constants = HashMap::new();
        for (&cid, plan) in &r.compiled.program.comps {
            let comp = r.compiled.module.comp(cid);
            for (id, step, _) in &plan.steps {
                if let (Step::Constant, Op::Constant { literal }) = (step, &comp.inst(*id).op) {
                    let v = r
                        .upload_literal(literal)
                        .map_err(at(&comp.inst(*id).name))?;
                    constants.insert((cid, *id), v);
                }
            }
        }
        r.constants = constants;
        Ok(r)
    }

    fn upload_literal(&self, l: &Literal) -> Result<Val<D::Buf>, DeviceError> {
        Ok(match l {
            Literal::Array(a) => Val::Buf(Arc::new(DevBuf {
                buf: Arc::new(self.dev.upload(a.bytes())?),
                shape: a.shape().clone(),
            })),
            Literal::Tuple(t) => Val::Tuple(
                t.iter()
                    .map(|e| self.upload_literal(e))
                    .collect::<Result<_, _>>()?,
            ),
            Literal::Token => Val::Token,
        })
    }

    /// Run with host arguments; returns the result on the host. Runs that
    /// can be graphs are recorded the first time and replayed after.
    pub(crate) fn execute(&self, args: &[&Literal]) -> Result<Literal, RuntimeError> {
        let m = &self.compiled.module;
        let entry = m.entry_computation();
        if args.len() != entry.params.len() {
            return Err(RuntimeError::Arguments(ArgumentError::Count {
                expected: entry.params.len(),
                actual: args.len(),
            }));
        }
        let mut slot = lock(&self.graph);
        match &mut *slot {
            Slot::Off(_) | Slot::Failed(_) => {
                drop(slot);
                return self.interpret(args).map(|(out, _, _)| out);
            }
            Slot::Ready(rec) => return self.replay_run(rec, args),
            Slot::Pending => {}
        }
        *lock(&self.tape) = Some(Tape::default());
        self.recording.store(true, Ordering::Release);
        let run = self.interpret(args);
        self.recording.store(false, Ordering::Release);
        let tape = lock(&self.tape).take().unwrap_or_default();
        let (out, params, result) = run?;
        let bytes = tape.bytes();
        let cmds = tape.cmds;
        let graph = if cmds.is_empty() {
            Ok(None)
        } else {
            self.dev.capture(&|| self.replay(&cmds, &RunScope::new()))
        };
        *slot = match graph {
            Ok(graph) => Slot::Ready(Recording {
                params,
                result,
                cmds,
                bytes,
                _blocks: tape.blocks.into_iter().map(|b| b.mem).collect(),
                graph,
                replays: 0,
            }),
            Err(e) => Slot::Failed(format!("capturing the recorded run: {e}")),
        };
        Ok(out)
    }

    /// Where this executable stands with graphs.
    pub(crate) fn graph_status(&self) -> GraphStatus {
        lock(&self.graph).status()
    }

    /// The device time of the last run to finish, in milliseconds: from
    /// its first device command to its last (uploading the arguments and
    /// downloading the result excluded); a replayed run's graph launch.
    pub(crate) fn last_device_ms(&self) -> Option<f64> {
        *lock(&self.last_ms)
    }

    /// One run by the interpreter: the result on the host, the parameter
    /// values and the result value.
    #[allow(clippy::type_complexity)]
    fn interpret(
        &self,
        args: &[&Literal],
    ) -> Result<(Literal, Vec<Val<D::Buf>>, Val<D::Buf>), RuntimeError> {
        let m = &self.compiled.module;
        let entry = m.entry_computation();
        let mut dargs = Vec::new();
        for (i, (a, &p)) in args.iter().zip(&entry.params).enumerate() {
            let pinst = entry.inst(p);
            let mut bufs = Vec::new();
            for l in arg_leaves(i, &pinst.name, a, &pinst.shape)? {
                bufs.push(match l {
                    Some(l) => Some(Arc::new(DevBuf {
                        buf: Arc::new(self.dev.upload(l.bytes()).map_err(at(&pinst.name))?),
                        shape: l.shape().clone(),
                    })),
                    None => None,
                });
            }
            dargs.push(rebuild(&pinst.shape, &mut bufs.into_iter()));
        }
        let mut r = None;
        let scope = RunScope::new();
        let ms = self.dev.timed(&mut || {
            r = Some(self.run_comp(m.entry, dargs.clone(), &scope)?);
            Ok(())
        })?;
        *lock(&self.last_ms) = Some(ms);
        let r = r.ok_or_else(|| exec(&entry.name, "the run left no result"))?;
        let out = self.download(&r)?;
        self.dev.sync()?;
        drop(scope);
        Ok((out, dargs, r))
    }

    /// A run replaying `rec`: the arguments into its parameter buffers, its
    /// graph (or commands), its result buffers back.
    fn replay_run(
        &self,
        rec: &mut Recording<D::Buf, D::Graph>,
        args: &[&Literal],
    ) -> Result<Literal, RuntimeError> {
        let entry = self.compiled.module.entry_computation();
        for (i, ((a, &p), val)) in args.iter().zip(&entry.params).zip(&rec.params).enumerate() {
            let pinst = entry.inst(p);
            let mut bufs = Vec::new();
            val.leaves(&mut bufs);
            let leaves = arg_leaves(i, &pinst.name, a, &pinst.shape)?;
            for (l, b) in leaves.iter().zip(&bufs) {
                if let (Some(l), Some(b)) = (l, b) {
                    if !l.bytes().is_empty() {
                        self.dev.write(&b.buf, l.bytes()).map_err(at(&pinst.name))?;
                    }
                }
            }
        }
        let ms = self.dev.timed(&mut || match &rec.graph {
            Some(g) => Ok(self.dev.launch_graph(g)?),
            None => self.replay(&rec.cmds, &RunScope::new()),
        })?;
        *lock(&self.last_ms) = Some(ms);
        let out = self.download(&rec.result)?;
        self.dev.sync()?;
        rec.replays += 1;
        Ok(out)
    }

    /// Issue recorded commands on the device, in order.
    fn replay(&self, cmds: &[Cmd], scope: &RunScope) -> Result<(), RuntimeError> {
        for c in cmds {
            match c {
                Cmd::Launch { k, args } => {
                    let name = &self.compiled.program.kernels[*k].name;
                    self.run_kernel(name, *k, args)?
                }
                Cmd::Copy {
                    inst,
                    dst,
                    src,
                    bytes,
                } => self.dev.copy(*dst, *src, *bytes).map_err(at(inst))?,
                Cmd::Call {
                    comp,
                    inst,
                    buffers,
                } => self.invoke(*comp, *inst, buffers.clone(), scope)?,
                Cmd::Fft {
                    inst,
                    plan,
                    src,
                    dst,
                } => self.dev.fft(plan, *src, *dst).map_err(at(inst))?,
            }
        }
        Ok(())
    }

    /// Add a command to the recorded run, if one is being recorded.
    fn record(&self, cmd: impl FnOnce() -> Cmd) {
        if !self.recording.load(Ordering::Acquire) {
            return;
        }
        if let Some(t) = lock(&self.tape).as_mut() {
            t.cmds.push(cmd());
        }
    }

    /// A new device array of shape `a`. While a run is recorded its memory
    /// is a block of the tape: one a dead array left, where one fits.
    fn new_buf(&self, a: &ArrayShape) -> Result<Arc<DevBuf<D::Buf>>, DeviceError> {
        let bytes = a.byte_size().max(1);
        let fresh = |mem: Arc<D::Buf>| {
            Arc::new(DevBuf {
                buf: mem,
                shape: a.clone(),
            })
        };
        if !self.recording.load(Ordering::Acquire) {
            return Ok(fresh(Arc::new(self.dev.alloc(bytes)?)));
        }
        let mut tape = lock(&self.tape);
        let Some(t) = tape.as_mut() else {
            drop(tape);
            return Ok(fresh(Arc::new(self.dev.alloc(bytes)?)));
        };
        if let Some(mem) = t.reuse(bytes, &fresh) {
            return Ok(mem);
        }
        let b = fresh(Arc::new(self.dev.alloc(bytes)?));
        t.add(&b, bytes);
        Ok(b)
    }

    /// Copy `n` bytes between device arrays for instruction `inst`.
    fn copy(
        &self,
        inst: &str,
        dst: &DevBuf<D::Buf>,
        src: &DevBuf<D::Buf>,
        n: usize,
    ) -> Result<(), RuntimeError> {
        if n == 0 {
            return Ok(());
        }
        let (dst, src) = (self.dev.ptr(&dst.buf), self.dev.ptr(&src.buf));
        self.record(|| Cmd::Copy {
            inst: inst.to_string(),
            dst,
            src,
            bytes: n,
        });
        self.dev.copy(dst, src, n).map_err(at(inst))
    }

    fn download(&self, v: &Val<D::Buf>) -> Result<Literal, RuntimeError> {
        Ok(match v {
            Val::Buf(b) => {
                let n = b.shape.byte_size();
                let mut bytes = vec![0u8; n];
                if n > 0 {
                    self.dev.download(&b.buf, &mut bytes)?;
                }
                let shape = b.shape.clone();
                Literal::Array(ArrayLiteral::from_bytes(shape, bytes).map_err(|source| {
                    RuntimeError::Result {
                        shape: Shape::Array(b.shape.clone()).to_string(),
                        source,
                    }
                })?)
            }
            Val::Tuple(t) => Literal::Tuple(
                t.iter()
                    .map(|e| self.download(e))
                    .collect::<Result<_, _>>()?,
            ),
            Val::Token => Literal::Token,
        })
    }

    fn alloc(&self, s: &Shape) -> Result<Val<D::Buf>, DeviceError> {
        Ok(match s {
            Shape::Array(a) => Val::Buf(self.new_buf(a)?),
            Shape::Tuple(t) => {
                Val::Tuple(t.iter().map(|e| self.alloc(e)).collect::<Result<_, _>>()?)
            }
            Shape::Token => Val::Token,
        })
    }

    fn ptrs(&self, leaves: &[Option<Arc<DevBuf<D::Buf>>>]) -> Vec<u64> {
        leaves
            .iter()
            .map(|l| l.as_ref().map(|b| self.dev.ptr(&b.buf)).unwrap_or(0))
            .collect()
    }

    fn run_comp(
        &self,
        cid: CompId,
        args: Vec<Val<D::Buf>>,
        scope: &RunScope,
    ) -> Result<Val<D::Buf>, RuntimeError> {
        let m = &self.compiled.module;
        let comp = m.comp(cid);
        let plan: &CompPlan = self
            .compiled
            .program
            .comps
            .get(&cid)
            .ok_or_else(|| exec(&comp.name, "computation was not planned"))?;
        let mut vals: HashMap<InstId, Val<D::Buf>> = HashMap::new();
        for (id, step, frees) in &plan.steps {
            let inst = comp.inst(*id);
            let name = inst.name.as_str();
            let operand = |k: usize| -> Result<Val<D::Buf>, RuntimeError> {
                inst.operands
                    .get(k)
                    .and_then(|o| vals.get(o))
                    .cloned()
                    .ok_or_else(|| exec(name, format!("operand {k} has no value")))
            };
            let operands = || -> Result<Vec<Val<D::Buf>>, RuntimeError> {
                (0..inst.operands.len()).map(operand).collect()
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
                    .ok_or_else(|| exec(name, "constant not loaded"))?,
                Step::Tuple => Val::Tuple(operands()?),
                Step::Gte(i) => match operand(0)? {
                    Val::Tuple(t) => t
                        .get(*i)
                        .cloned()
                        .ok_or_else(|| exec(name, format!("tuple has no element {i}")))?,
                    _ => return Err(exec(name, "operand is not a tuple")),
                },
                Step::Alias => operand(0)?,
                Step::Token => Val::Token,
                Step::ByteCopy => {
                    let out = self.alloc(&inst.shape).map_err(at(name))?;
                    if let (Val::Buf(src), Val::Buf(dst)) = (operand(0)?, &out) {
                        self.copy(name, dst, &src, src.shape.byte_size())?;
                    }
                    out
                }
                Step::Kernel(k) => self.launch_all(inst, std::slice::from_ref(k), operands()?)?,
                Step::Kernels(ks) => self.launch_all(inst, ks, operands()?)?,
                Step::SplitReduce {
                    partials,
                    combine,
                    scratch_bytes,
                } => {
                    let scratch = self
                        .new_buf(&ArrayShape::new(
                            hlox_hlo::ElementType::U8,
                            vec![*scratch_bytes as i64],
                        ))
                        .map_err(at(name))?;
                    let out = self.alloc(&inst.shape).map_err(at(name))?;
                    let mut leaves = Vec::new();
                    for o in operands()? {
                        o.leaves(&mut leaves);
                    }
                    let mut ptrs = self.ptrs(&leaves);
                    ptrs.push(self.dev.ptr(&scratch.buf));
                    let mut out_leaves = Vec::new();
                    out.leaves(&mut out_leaves);
                    let out_ptr = self
                        .ptrs(&out_leaves)
                        .first()
                        .copied()
                        .ok_or_else(|| exec(name, "a split reduction has one result"))?;
                    self.run_kernel(name, *partials, &ptrs)?;
                    self.run_kernel(name, *combine, &[self.dev.ptr(&scratch.buf), out_ptr])?;
                    out
                }
                Step::SortMerge { passes } => {
                    let out = self.alloc(&inst.shape).map_err(at(name))?;
                    let scratch = if passes.len() > 1 {
                        Some(self.alloc(&inst.shape).map_err(at(name))?)
                    } else {
                        None
                    };
                    let ptrs_of = |v: &Val<D::Buf>| {
                        let mut l = Vec::new();
                        v.leaves(&mut l);
                        self.ptrs(&l)
                    };
                    let mut src = Vec::new();
                    for o in operands()? {
                        src.extend(ptrs_of(&o));
                    }
                    let out_ptrs = ptrs_of(&out);
                    let scratch_ptrs = scratch.as_ref().map(&ptrs_of).unwrap_or_default();
                    for (n, &k) in passes.iter().enumerate() {
                        // The last pass writes the result.
                        let dst = if (passes.len() - 1 - n) % 2 == 0 {
                            out_ptrs.clone()
                        } else {
                            scratch_ptrs.clone()
                        };
                        let mut args = src.clone();
                        args.extend(&dst);
                        self.run_kernel(name, k, &args)?;
                        src = dst;
                    }
                    out
                }
                Step::Call(c) => self.run_comp(*c, operands()?, scope)?,
                Step::While { cond, body } => {
                    let mut state = operand(0)?;
                    loop {
                        let p = self.run_comp(*cond, vec![state.clone()], scope)?;
                        if self.read_scalar(&p, name, 1)?[0] == 0 {
                            break;
                        }
                        state = self.run_comp(*body, vec![state], scope)?;
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
                        if self.read_scalar(&sel, name, 1)?[0] != 0 {
                            0
                        } else {
                            1
                        }
                    } else {
                        let v = self.read_scalar(&sel, name, 4)?;
                        let i = i32::from_le_bytes([v[0], v[1], v[2], v[3]]);
                        // Out of range: the last branch (XLA's rule).
                        if i < 0 || i as usize >= branches.len() {
                            branches.len() - 1
                        } else {
                            i as usize
                        }
                    };
                    self.run_comp(branches[b], vec![operand(1 + b)?], scope)?
                }
                Step::CustomCall => self.custom_call(cid, *id, operands()?, frees, scope)?,
                Step::Fft {
                    plan,
                    scale,
                    relayout,
                } => self.fft(name, plan, *scale, *relayout, operand(0)?, &inst.shape)?,
            };
            vals.insert(*id, v);
            for f in frees {
                vals.remove(f);
            }
        }
        vals.remove(&comp.root)
            .ok_or_else(|| exec(&comp.name, "root has no value"))
    }

    /// A fresh result for `inst`, and kernels `ks` launched in order on
    /// its operands and that result.
    fn launch_all(
        &self,
        inst: &hlox_hlo::Instruction,
        ks: &[usize],
        operands: Vec<Val<D::Buf>>,
    ) -> Result<Val<D::Buf>, RuntimeError> {
        let name = inst.name.as_str();
        let out = self.alloc(&inst.shape).map_err(at(name))?;
        let mut leaves = Vec::new();
        for o in operands {
            o.leaves(&mut leaves);
        }
        out.leaves(&mut leaves);
        let ptrs = self.ptrs(&leaves);
        for &k in ks {
            self.run_kernel(name, k, &ptrs)?;
        }
        Ok(out)
    }

    /// The fft `name` ([`Step::Fft`]): the operand in row-major order (its
    /// relayout kernel, or a copy for IRFFT, whose transform may overwrite
    /// it), the transform, the scale kernel, the result's relayout kernel.
    fn fft(
        &self,
        name: &str,
        plan: &crate::plan::FftPlan,
        scale: Option<usize>,
        relayout: [Option<usize>; 2],
        operand: Val<D::Buf>,
        shape: &hlox_hlo::Shape,
    ) -> Result<Val<D::Buf>, RuntimeError> {
        let out = self.alloc(shape).map_err(at(name))?;
        let (Val::Buf(src), Val::Buf(dst)) = (&operand, &out) else {
            return Err(exec(name, "an fft takes and gives arrays"));
        };
        if plan.input_count() == 0 || plan.output_count() == 0 {
            return Ok(out);
        }
        let row_major = |a: &ArrayShape| ArrayShape::new(a.ty, a.dims.clone());
        let src = if let Some(k) = relayout[0] {
            let t = self.new_buf(&row_major(&src.shape)).map_err(at(name))?;
            self.run_kernel(name, k, &[self.dev.ptr(&src.buf), self.dev.ptr(&t.buf)])?;
            t
        } else if plan.fft_type == hlox_hlo::FftType::Irfft {
            let t = self.new_buf(&src.shape).map_err(at(name))?;
            self.copy(name, &t, src, src.shape.byte_size())?;
            t
        } else {
            src.clone()
        };
        let tmp = match relayout[1] {
            Some(_) => Some(self.new_buf(&row_major(&dst.shape)).map_err(at(name))?),
            None => None,
        };
        let d = self.dev.ptr(&tmp.as_ref().unwrap_or(dst).buf);
        let s = self.dev.ptr(&src.buf);
        self.record(|| Cmd::Fft {
            inst: name.to_string(),
            plan: plan.clone(),
            src: s,
            dst: d,
        });
        self.dev.fft(plan, s, d).map_err(at(name))?;
        if let Some(k) = scale {
            self.run_kernel(name, k, &[d])?;
        }
        if let Some(k) = relayout[1] {
            self.run_kernel(name, k, &[d, self.dev.ptr(&dst.buf)])?;
        }
        Ok(out)
    }

    /// Launch kernel `k` of instruction `name` with these pointer
    /// arguments over its threads (none: nothing to do).
    fn run_kernel(&self, name: &str, k: usize, args: &[u64]) -> Result<(), RuntimeError> {
        let info = &self.compiled.program.kernels[k];
        if info.threads == 0 {
            return Ok(());
        }
        self.record(|| Cmd::Launch {
            k,
            args: args.to_vec(),
        });
        self.dev
            .launch(k, args, info.threads)
            .map_err(|source| RuntimeError::Kernel {
                inst: name.to_string(),
                kernel: info.name.clone(),
                source,
            })
    }

    fn read_scalar(&self, v: &Val<D::Buf>, name: &str, n: usize) -> Result<Vec<u8>, RuntimeError> {
        let Val::Buf(b) = v else {
            return Err(exec(name, "predicate is not an array"));
        };
        let mut bytes = vec![0u8; n];
        self.dev.download(&b.buf, &mut bytes).map_err(at(name))?;
        Ok(bytes)
    }

    fn custom_call(
        &self,
        cid: CompId,
        id: InstId,
        operands: Vec<Val<D::Buf>>,
        dying: &[InstId],
        scope: &RunScope,
    ) -> Result<Val<D::Buf>, RuntimeError> {
        let comp = &self.compiled.module.comp(cid);
        let inst = comp.inst(id);
        let Op::CustomCall(call) = &inst.op else {
            return Err(exec(&inst.name, "not a custom call"));
        };
        let name = inst.name.as_str();
        let mut op_leaves: Vec<Leaves<D::Buf>> = operands
            .iter()
            .map(|o| {
                let mut l = Vec::new();
                o.leaves(&mut l);
                l
            })
            .collect();
        drop(operands);
        // Results aliased to an operand (output_operand_aliasing): the target
        // sees one buffer, holding the operand's value, in both places, as in
        // XLA. The operand's buffer itself when this call is its last use and
        // nothing else holds it (only the value map's entry, `op_leaves` and
        // `src`: three references); a copy otherwise, so no other value
        // changes under its users.
        let rleaves = inst.shape.leaves();
        let mut out_leaves: Leaves<D::Buf> = Vec::new();
        for (index, s) in &rleaves {
            let alias = call
                .output_operand_aliasing
                .iter()
                .find(|al| index.starts_with(&al.output_index));
            let Some(al) = alias else {
                out_leaves.push(match s {
                    Shape::Array(a) => Some(self.new_buf(a).map_err(at(name))?),
                    _ => None,
                });
                continue;
            };
            let on = usize::try_from(al.operand)
                .ok()
                .filter(|&o| o < op_leaves.len())
                .ok_or_else(|| {
                    exec(
                        name,
                        format!("output_operand_aliasing names operand {}", al.operand),
                    )
                })?;
            let mut path = al.operand_index.clone();
            path.extend_from_slice(&index[al.output_index.len()..]);
            let oshape = &comp.inst(inst.operands[on]).shape;
            let pos = oshape.leaves().iter().position(|(ix, _)| *ix == path);
            let src = pos
                .and_then(|p| op_leaves[on].get(p).cloned().flatten())
                .ok_or_else(|| {
                    exec(
                        name,
                        format!(
                            "output {index:?} aliases operand {on} at {path:?}, which is not an array"
                        ),
                    )
                })?;
            let Shape::Array(a) = s else {
                return Err(exec(name, format!("output {index:?} is not an array")));
            };
            if src.shape.ty != a.ty || src.shape.dims != a.dims {
                return Err(exec(
                    name,
                    format!("output {index:?} and operand {on} at {path:?} differ in shape"),
                ));
            }
            let sole = dying.contains(&inst.operands[on])
                && inst
                    .operands
                    .iter()
                    .filter(|&&o| o == inst.operands[on])
                    .count()
                    == 1
                && Arc::strong_count(&src) == 3;
            let dst = if sole {
                src.clone()
            } else {
                let d = self.new_buf(&src.shape).map_err(at(name))?;
                self.copy(name, &d, &src, a.byte_size())?;
                d
            };
            if let Some(p) = pos {
                op_leaves[on][p] = Some(dst.clone());
            }
            out_leaves.push(Some(dst));
        }
        let mut it = out_leaves.iter().cloned();
        let out = rebuild(&inst.shape, &mut it);
        let mut leaves: Vec<Option<Arc<DevBuf<D::Buf>>>> =
            op_leaves.into_iter().flatten().collect();
        leaves.extend(out_leaves);
        self.invoke(cid, id, self.ptrs(&leaves), scope)?;
        Ok(out)
    }

    /// Call the target of custom call `inst` (of computation `cid`) on
    /// these buffers (operand leaves, then result leaves) and the stream,
    /// in run `scope`.
    fn invoke(
        &self,
        cid: CompId,
        id: InstId,
        buffers: Vec<u64>,
        scope: &RunScope,
    ) -> Result<(), RuntimeError> {
        let inst = self.compiled.module.comp(cid).inst(id);
        let Op::CustomCall(call) = &inst.op else {
            return Err(exec(&inst.name, "not a custom call"));
        };
        let target =
            self.compiled
                .bound
                .get(&call.target)
                .ok_or_else(|| RuntimeError::CustomCall {
                    inst: inst.name.clone(),
                    target: call.target.clone(),
                    message: "not bound for CUDA".into(),
                })?;
        self.record(|| Cmd::Call {
            comp: cid,
            inst: id,
            buffers: buffers.clone(),
        });
        let mut buffers: Vec<*mut std::ffi::c_void> = buffers
            .into_iter()
            .map(|p| p as usize as *mut std::ffi::c_void)
            .collect();
        let result = match self.compiled.ffi_calls.get(&inst.name) {
            Some(prepared) => {
                let mut ctx = self.dev.ffi_context();
                ctx.run_id = scope.run_id;
                let mut stages = scope.stages.borrow_mut();
                let run = stages.entry((cid, id)).or_default();
                // SAFETY: as below; the call was prepared for these shapes.
                unsafe { hlox_ffi::invoke_cuda_ffi(prepared, &call.target, &buffers, &ctx, run) }
            }
            // SAFETY: buffers are live allocations of the shapes the custom
            // call declares, in XLA's order (operand leaves, then result
            // leaves); the stream is the run's.
            None => unsafe { hlox_ffi::invoke_cuda(target, call, self.dev.stream(), &mut buffers) },
        };
        result.map_err(|e| RuntimeError::CustomCall {
            inst: inst.name.clone(),
            target: call.target.clone(),
            message: e.detail(),
        })
    }
}

/// Typed-FFI scratch memory (`ffi::ScratchAllocator` in a CUDA handler):
/// stream-ordered allocations on the run's stream (captured as memory
/// nodes when the run is captured into a graph).
struct CudaScratch {
    stream: Arc<CudaStream>,
}

impl hlox_ffi::xla_ffi::DeviceScratch for CudaScratch {
    fn alloc(
        &self,
        bytes: usize,
    ) -> Result<*mut std::ffi::c_void, Box<dyn std::error::Error + Send + Sync>> {
        self.stream.context().bind_to_thread()?;
        // SAFETY: the stream is live; the memory is freed by `free`.
        let p = unsafe { cudarc::driver::result::malloc_async(self.stream.cu_stream(), bytes) }?;
        Ok(p as usize as *mut std::ffi::c_void)
    }
    fn free(&self, p: *mut std::ffi::c_void) {
        // SAFETY: allocated by `alloc` on this stream; freed after the
        // work queued so far. A failure leaves the memory to the pool.
        let _ = unsafe {
            cudarc::driver::result::free_async(p as usize as u64, self.stream.cu_stream())
        };
    }
}

/// The CUDA driver as a [`Device`].
pub(crate) struct CudaDevice {
    stream: Arc<CudaStream>,
    /// Scratch memory of typed-FFI calls, shared by every call's context.
    scratch: Arc<CudaScratch>,
    funcs: Vec<CudaFunction>,
    gemms: Vec<Option<crate::plan::Gemm>>,
    blas: Option<cudarc::cublas::CudaBlas>,
    /// The cuFFT plans of the program's ffts (made at load).
    ffts: crate::fft::CufftPlans,
    block_size: u32,
}

impl CudaDevice {
    /// `out = lhs . rhs` by cuBLAS (pointers: lhs, rhs, out).
    fn gemm(
        &self,
        blas: &cudarc::cublas::CudaBlas,
        g: &crate::plan::Gemm,
        ptrs: &[u64],
    ) -> Result<(), DeviceError> {
        use cudarc::cublas::{result, sys};
        let [lhs, rhs, out] = ptrs else {
            return Err(DeviceOp::Gemm.failed(format_args!(
                "a dot takes two operands and one result, got {} buffers",
                ptrs.len()
            )));
        };
        let a = g.cublas_args();
        let op = |t: bool| {
            if t {
                sys::cublasOperation_t::CUBLAS_OP_T
            } else {
                sys::cublasOperation_t::CUBLAS_OP_N
            }
        };
        let i = |v: i64| v as std::ffi::c_int;
        let h = *blas.handle();
        use hlox_hlo::ElementType as T;
        let dt = |t: T| match t {
            T::F16 => Ok(sys::cudaDataType_t::CUDA_R_16F),
            T::Bf16 => Ok(sys::cudaDataType_t::CUDA_R_16BF),
            T::F32 => Ok(sys::cudaDataType_t::CUDA_R_32F),
            T::F64 => Ok(sys::cudaDataType_t::CUDA_R_64F),
            T::C64 => Ok(sys::cudaDataType_t::CUDA_C_32F),
            T::C128 => Ok(sys::cudaDataType_t::CUDA_C_64F),
            t => Err(DeviceOp::Gemm.failed(format_args!("no cuBLAS GEMM for {t:?}"))),
        };
        let (ti, to) = (dt(g.input)?, dt(g.output)?);
        // F64 in f64; F32, F16 and BF16 accumulated in f32 (full f32: no
        // TF32), alpha and beta in the compute type; C64 and C128 in their
        // part types (CGEMM, ZGEMM), alpha and beta complex.
        let (one64, zero64, one32, zero32) = (1.0f64, 0.0f64, 1.0f32, 0.0f32);
        let (c_one64, c_zero64, c_one32, c_zero32) =
            ([1.0f64, 0.0], [0.0f64; 2], [1.0f32, 0.0], [0.0f32; 2]);
        let (compute, one, zero): (_, *const std::ffi::c_void, *const std::ffi::c_void) =
            if g.input == T::F64 {
                (
                    sys::cublasComputeType_t::CUBLAS_COMPUTE_64F,
                    (&one64 as *const f64).cast(),
                    (&zero64 as *const f64).cast(),
                )
            } else if g.input == T::C128 {
                (
                    sys::cublasComputeType_t::CUBLAS_COMPUTE_64F,
                    c_one64.as_ptr().cast(),
                    c_zero64.as_ptr().cast(),
                )
            } else if g.input == T::C64 {
                (
                    sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                    c_one32.as_ptr().cast(),
                    c_zero32.as_ptr().cast(),
                )
            } else {
                (
                    sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                    (&one32 as *const f32).cast(),
                    (&zero32 as *const f32).cast(),
                )
            };
        // SAFETY: the buffers hold batch x (m k, k n, m n) elements of the
        // GEMM's types (checked by gemm_of), alpha and beta are of the
        // compute type's scale type, the handle is bound to our stream.
        unsafe {
            result::gemm_strided_batched_ex(
                h,
                op(a.trans_a),
                op(a.trans_b),
                i(a.m),
                i(a.n),
                i(a.k),
                one,
                *rhs as *const std::ffi::c_void,
                ti,
                i(a.lda),
                a.stride_a,
                *lhs as *const std::ffi::c_void,
                ti,
                i(a.ldb),
                a.stride_b,
                zero,
                *out as *mut std::ffi::c_void,
                to,
                i(a.ldc),
                a.stride_c,
                i(g.batch),
                compute,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(|e| DeviceOp::Gemm.failed(e))
    }
}

impl Device for CudaDevice {
    type Buf = CudaSlice<u8>;
    fn alloc(&self, bytes: usize) -> Result<CudaSlice<u8>, DeviceError> {
        // SAFETY: every element is written by the producing step before use.
        unsafe { self.stream.alloc::<u8>(bytes.max(1)) }
            .map_err(|e| DeviceOp::Alloc(bytes).failed(e))
    }
    fn upload(&self, bytes: &[u8]) -> Result<CudaSlice<u8>, DeviceError> {
        let data: &[u8] = if bytes.is_empty() { &[0u8] } else { bytes };
        self.stream
            .clone_htod(data)
            .map_err(|e| DeviceOp::Upload(bytes.len()).failed(e))
    }
    fn download(&self, b: &CudaSlice<u8>, out: &mut [u8]) -> Result<(), DeviceError> {
        let bytes = out.len();
        self.stream
            .memcpy_dtoh(&b.slice(0..bytes), out)
            .map_err(|e| DeviceOp::Download(bytes).failed(e))
    }
    fn ptr(&self, b: &CudaSlice<u8>) -> u64 {
        let (p, _sync) = b.device_ptr(&self.stream);
        p
    }
    fn write(&self, b: &CudaSlice<u8>, bytes: &[u8]) -> Result<(), DeviceError> {
        let upload = DeviceOp::Upload(bytes.len());
        if bytes.len() > b.len() {
            return Err(upload.failed(format_args!(
                "past the end of a buffer of {} bytes",
                b.len()
            )));
        }
        // SAFETY: the buffer holds at least bytes.len() bytes; a copy from
        // pageable memory has read `bytes` when the call returns.
        unsafe {
            cudarc::driver::result::memcpy_htod_async(self.ptr(b), bytes, self.stream.cu_stream())
        }
        .map_err(|e| upload.failed(e))
    }
    fn fft(&self, plan: &crate::plan::FftPlan, src: u64, dst: u64) -> Result<(), DeviceError> {
        self.ffts.exec(plan, src, dst)
    }
    fn launch(&self, k: usize, ptrs: &[u64], threads: u64) -> Result<(), DeviceError> {
        if let (Some(blas), Some(Some(g))) = (&self.blas, self.gemms.get(k)) {
            return self.gemm(blas, g, ptrs);
        }
        let launch = DeviceOp::Launch(threads);
        let bs = self.block_size as u64;
        let grid = u32::try_from(threads.div_ceil(bs))
            .map_err(|_| launch.failed(format_args!("more than one grid of blocks of {bs}")))?;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (bs as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let f = self
            .funcs
            .get(k)
            .ok_or_else(|| launch.failed(format_args!("no kernel {k} in the PTX module")))?;
        let mut b = self.stream.launch_builder(f);
        for p in ptrs {
            b.arg(p);
        }
        // SAFETY: the kernel takes exactly these pointers (operand leaves,
        // then result leaves) and writes only inside the result buffers.
        unsafe { b.launch(cfg) }
            .map(|_| ())
            .map_err(|e| launch.failed(e))
    }
    fn copy(&self, dst: u64, src: u64, n: usize) -> Result<(), DeviceError> {
        // SAFETY: the runner copies between live buffers of n bytes or more.
        unsafe { cudarc::driver::result::memcpy_dtod_async(dst, src, n, self.stream.cu_stream()) }
            .map_err(|e| DeviceOp::Copy(n).failed(e))
    }
    fn stream(&self) -> hlox_ffi::CUstream {
        self.stream.cu_stream() as hlox_ffi::CUstream
    }
    fn ffi_context(&self) -> hlox_ffi::xla_ffi::InvokeContext {
        hlox_ffi::xla_ffi::InvokeContext::cuda_next(
            self.stream.context().ordinal() as i32,
            self.stream.cu_stream() as *mut std::ffi::c_void,
            Some(self.scratch.clone()),
        )
    }
    fn sync(&self) -> Result<(), DeviceError> {
        self.stream
            .synchronize()
            .map_err(|e| DeviceOp::Sync.failed(e))
    }
    type Graph = DeviceGraph;
    fn capture(
        &self,
        issue: &dyn Fn() -> Result<(), RuntimeError>,
    ) -> Result<Option<DeviceGraph>, RuntimeError> {
        use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
        // Thread-local: other threads' unsafe calls do not break this
        // capture, ours (a custom call's synchronisation) do.
        self.stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| RuntimeError::Driver(format!("beginning stream capture: {e}")))?;
        let issued = issue();
        // Always end the capture, so the stream works again.
        let ended = self.stream.end_capture(CUgraphInstantiate_flags(0));
        issued?;
        let graph =
            ended.map_err(|e| RuntimeError::Driver(format!("ending stream capture: {e}")))?;
        if let Some(g) = &graph {
            g.upload()
                .map_err(|e| RuntimeError::Driver(format!("uploading the graph: {e}")))?;
        }
        Ok(graph.map(DeviceGraph))
    }
    fn launch_graph(&self, g: &DeviceGraph) -> Result<(), DeviceError> {
        g.0.launch().map_err(|e| DeviceOp::Graph.failed(e))
    }
    fn timed(
        &self,
        queue: &mut dyn FnMut() -> Result<(), RuntimeError>,
    ) -> Result<f64, RuntimeError> {
        let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let event = || {
            self.stream
                .record_event(timing)
                .map_err(|e| RuntimeError::Driver(format!("recording a timing event: {e}")))
        };
        let start = event()?;
        queue()?;
        let end = event()?;
        start
            .elapsed_ms(&end)
            .map(f64::from)
            .map_err(|e| RuntimeError::Driver(format!("timing the run: {e}")))
    }
}

/// A captured run.
pub(crate) struct DeviceGraph(cudarc::driver::CudaGraph);

// SAFETY: CUDA graphs may move between threads; their use is serialised by
// the runner's graph mutex, as the driver requires.
unsafe impl Send for DeviceGraph {}

/// A module loaded on a device.
pub struct CudaExecutable {
    ctx: Arc<CudaContext>,
    _module: Arc<CudaModule>,
    runner: Runner<CudaDevice>,
}

impl CudaExecutable {
    /// The compiled module (program, PTX, options).
    pub fn compiled(&self) -> &CompiledModule {
        &self.runner.compiled
    }

    /// Run with host arguments (one per entry parameter); returns the
    /// result on the host. A failing custom call stops the run with
    /// "<instruction>: CustomCall failed: target \"<name>\": <message>".
    ///
    /// Takes `&[Literal]` or `&[&Literal]`; the arguments are uploaded from
    /// where they are (a copy only for a leaf in another layout than the
    /// parameter's).
    pub fn execute<L: Borrow<Literal>>(&self, args: &[L]) -> Result<Literal, RuntimeError> {
        self.ctx.bind_to_thread().map_err(drv)?;
        let args: Vec<&Literal> = args.iter().map(Borrow::borrow).collect();
        self.runner.execute(&args)
    }

    /// Whether runs replay a CUDA graph (and why not).
    pub fn graph_status(&self) -> GraphStatus {
        self.runner.graph_status()
    }

    /// The GPU time of the last run to finish, in milliseconds (CUDA
    /// events): from its first device command to its last, without the
    /// argument upload and result download; for a replayed run, its graph.
    pub fn last_device_ms(&self) -> Option<f64> {
        self.runner.last_device_ms()
    }
}
