//! SPMD programs on several CUDA devices (docs/multi-device.md).
//!
//! A module written for N devices is expanded by the same SPMD pass as on
//! the Host ([`hlox_passes::spmd::expand_spmd`]) and compiled once for
//! CUDA: every device runs the same PTX. Each collective of the expanded
//! module is a custom call of [`COLLECTIVE_TARGET`] whose opaque bytes
//! describe it ([`CollectiveDesc`]); this module binds that target for the
//! CUDA platform (`cuda_collective`), so the runtime's program
//! interpreter runs it in program order with the device's buffers and
//! stream, as any other step. What the call does depends on where the
//! device runs:
//!
//! - in host emulation ([`EmulatedDevices`]; the stream is null and the
//!   buffers host memory) it runs the Host's collective engine
//!   (`hlox_cpu_runtime::collectives`): one home for what each collective
//!   computes, with its rendezvous, timeout and abort;
//! - on GPUs ([`CudaDevices`], the `nccl` feature) it enqueues NCCL calls
//!   on the device's stream ([`crate::nccl::enqueue`]), after a host
//!   rendezvous of the device threads that stops every device when one
//!   failed (so no device waits forever inside NCCL for one that will
//!   never call it).
//!
//! Devices are threads of this process, one per device, as on the Host.

use crate::runtime::RuntimeError;
use crate::{CompileError, CompileOptions, CompiledModule};
use hlox_cpu_runtime::collectives::{
    with_device, CollectiveError, Communicator, DeviceContext, InProcess,
};
use hlox_ffi::{CUstream, Platform, XlaCustomCallStatus};
use hlox_hlo::sharding::{CollectiveDesc, Topology, COLLECTIVE_TARGET};
use hlox_hlo::{Literal, Module, Op};
pub use hlox_passes::spmd::SpmdError;
use std::ffi::{c_char, c_void};
use std::sync::Arc;
use std::time::Duration;

/// How long a device waits at a collective for the others, unless set
/// otherwise (as on the Host).
pub const DEFAULT_COLLECTIVE_TIMEOUT: Duration = Duration::from_secs(60);

/// Errors of compiling or running a module on several CUDA devices.
#[derive(Debug, thiserror::Error)]
pub enum DevicesError {
    /// The module cannot be made into a per-device program.
    #[error("{0}")]
    Spmd(#[from] SpmdError),
    #[error("{0}")]
    Compile(#[from] CompileError),
    /// The collective target could not be added to the options' registry.
    #[error("binding {COLLECTIVE_TARGET} for CUDA: {0}")]
    Registry(#[from] hlox_ffi::RegistryError),
    /// A device's run failed (the first failure: the devices it stopped
    /// are not reported).
    #[error("device {device}: {source}")]
    Device {
        device: usize,
        #[source]
        source: RuntimeError,
    },
    #[error("device {device}: {message}")]
    Thread { device: usize, message: String },
    /// Opening the GPUs or their NCCL communicators failed.
    #[cfg(feature = "nccl")]
    #[error("{0}")]
    Nccl(#[from] crate::nccl::NcclError),
    /// hlox-cuda was built without NCCL.
    #[error(
        "running on several GPUs needs NCCL: this build of hlox has no `nccl` feature (build \
         with `--features nccl`: cargo build -p hlox-cli --features nccl)"
    )]
    NoNcclFeature,
    /// Loading the program on a GPU failed.
    #[error("loading the program on GPU {device}: {source}")]
    Load {
        device: usize,
        #[source]
        source: RuntimeError,
    },
}

/// A module expanded for N devices and compiled for CUDA (no GPU needed).
#[derive(Clone, Debug)]
pub struct SpmdModule {
    /// The per-device program (its module is the expanded one).
    pub compiled: CompiledModule,
    /// How the devices are numbered (replicas x partitions).
    pub topology: Topology,
}

impl SpmdModule {
    pub fn devices(&self) -> usize {
        self.topology.devices() as usize
    }

    /// Every collective of the program, in module order.
    pub fn collectives(&self) -> Vec<CollectiveDesc> {
        collectives_of(&self.compiled.module)
    }
}

/// The collectives of an expanded module (its [`COLLECTIVE_TARGET`] calls).
pub fn collectives_of(m: &Module) -> Vec<CollectiveDesc> {
    let mut out = Vec::new();
    for c in m.computations.values() {
        for i in c.instructions.values() {
            if let Op::CustomCall(call) = &i.op {
                if call.target == COLLECTIVE_TARGET {
                    if let Some(d) = CollectiveDesc::decode(&call.opaque) {
                        out.push(d);
                    }
                }
            }
        }
    }
    out
}

/// Expands `module` for `devices` devices ([`hlox_passes::spmd`]) and
/// compiles the per-device program for CUDA. The collective target is
/// added to the options' registry (the global one by default) for CUDA
/// where it is not there yet.
pub fn compile_for_devices(
    module: &Module,
    devices: usize,
    options: &CompileOptions,
) -> Result<SpmdModule, DevicesError> {
    let mut m = module.clone();
    let topology = hlox_passes::spmd::expand_spmd(&mut m, devices as i64)?;
    let registry = options.registry();
    if registry.lookup(COLLECTIVE_TARGET, Platform::Cuda).is_none() {
        registry.register_fn(COLLECTIVE_TARGET, Platform::Cuda, cuda_collective)?;
    }
    let compiled = crate::compile(&m, options)?;
    Ok(SpmdModule { compiled, topology })
}

/// Why a collective call failed on a device.
#[derive(Debug, thiserror::Error)]
enum TargetError {
    #[error("{COLLECTIVE_TARGET}: the opaque bytes are not a collective descriptor")]
    Opaque,
    #[error("{0}")]
    Collective(#[from] CollectiveError),
    #[cfg(feature = "nccl")]
    #[error("{0}")]
    Nccl(#[from] crate::nccl::NcclError),
    #[error(
        "collective {0}: this run is on a GPU, but hlox-cuda was built without the `nccl` \
         feature (rebuild with it to run collectives through NCCL)"
    )]
    NoNccl(String),
}

/// The CUDA target behind every collective of an SPMD program
/// (`API_VERSION_STATUS_RETURNING`; the opaque bytes are a
/// [`CollectiveDesc`]): see the module docs.
fn cuda_collective(
    stream: CUstream,
    buffers: *mut *mut c_void,
    opaque: *const c_char,
    opaque_len: usize,
    status: *mut XlaCustomCallStatus,
) {
    let bytes = if opaque.is_null() {
        &[][..]
    } else {
        // SAFETY: the runtime passes the instruction's opaque bytes.
        unsafe { std::slice::from_raw_parts(opaque as *const u8, opaque_len) }
    };
    // SAFETY: the runtime passes one pointer per operand and result leaf,
    // of the sizes the descriptor's shapes give.
    if let Err(e) = unsafe { run_collective_call(stream, buffers, bytes) } {
        // SAFETY: the runtime passes a live status.
        if let Some(s) = unsafe { status.as_mut() } {
            s.set_failure(e.to_string().as_bytes());
        }
    }
}

/// # Safety
/// As [`cuda_collective`].
unsafe fn run_collective_call(
    stream: CUstream,
    buffers: *mut *mut c_void,
    opaque: &[u8],
) -> Result<(), TargetError> {
    let desc = CollectiveDesc::decode(opaque).ok_or(TargetError::Opaque)?;
    #[cfg(feature = "nccl")]
    if let Some(r) = unsafe { crate::nccl::run_as_current_device(&desc, stream, buffers) } {
        return Ok(r?);
    }
    if !stream.is_null() {
        return Err(TargetError::NoNccl(desc.name));
    }
    // Host emulation: the buffers are host memory.
    let me = hlox_cpu_runtime::collectives::current_device().ok_or(CollectiveError::NoDevice)?;
    let (in_lens, out_lens) = desc.buffer_sizes(me);
    let ptr = |k: usize| unsafe { *buffers.add(k) };
    let ins: Vec<&[u8]> = in_lens
        .iter()
        .enumerate()
        .map(|(k, &n)| unsafe { std::slice::from_raw_parts(ptr(k) as *const u8, n) })
        .collect();
    let mut outs: Vec<&mut [u8]> = out_lens
        .iter()
        .enumerate()
        .map(|(k, &n)| unsafe {
            std::slice::from_raw_parts_mut(ptr(in_lens.len() + k) as *mut u8, n)
        })
        .collect();
    hlox_cpu_runtime::collectives::run_collective(&desc, &ins, &mut outs)?;
    Ok(())
}

/// Whether a device's error only says that another device stopped it.
fn is_secondary(e: &RuntimeError) -> bool {
    matches!(e, RuntimeError::CustomCall { target, message, .. }
        if target == COLLECTIVE_TARGET && message.contains("stopped because device"))
}

/// Every device's result, or the failure that caused the others: a
/// device's own error before the errors of the devices it stopped.
fn first_failure(
    results: Vec<Result<Literal, DevicesError>>,
) -> Result<Vec<Literal>, DevicesError> {
    let mut secondary = None;
    let mut ok = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok(l) => ok.push(l),
            Err(e @ DevicesError::Device { .. }) if matches!(&e, DevicesError::Device { source, .. } if is_secondary(source)) =>
            {
                secondary.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    match secondary {
        Some(e) => Err(e),
        None => Ok(ok),
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// Runs `run(rank)` on one thread per device and collects every device's
/// result (see [`first_failure`]); a device that fails or panics aborts
/// `comm`, so the others stop at their next collective.
fn on_device_threads(
    n: usize,
    timeout: Duration,
    topology: Topology,
    run: &(dyn Fn(DeviceContext) -> Result<Literal, DevicesError> + Sync),
) -> Result<Vec<Literal>, DevicesError> {
    let comm: Arc<dyn Communicator> = Arc::new(InProcess::new(n, timeout));
    let comm = &comm;
    let run = |rank: usize| {
        run(DeviceContext {
            rank,
            topology,
            comm: comm.clone(),
        })
    };
    let results: Vec<Result<Literal, DevicesError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|rank| {
                let comm = comm.clone();
                std::thread::Builder::new()
                    .name(format!("hlox-cuda-device-{rank}"))
                    .stack_size(8 << 20)
                    .spawn_scoped(s, move || {
                        let r =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(rank)))
                                .unwrap_or_else(|p| {
                                    Err(DevicesError::Thread {
                                        device: rank,
                                        message: format!(
                                            "the device thread panicked: {}",
                                            panic_text(&*p)
                                        ),
                                    })
                                });
                        if let Err(e) = &r {
                            comm.abort(rank, &e.to_string());
                        }
                        r
                    })
            })
            .collect();
        handles
            .into_iter()
            .enumerate()
            .map(|(device, h)| match h {
                Ok(h) => h.join().unwrap_or_else(|p| {
                    Err(DevicesError::Thread {
                        device,
                        message: format!("the device thread panicked: {}", panic_text(&*p)),
                    })
                }),
                Err(e) => Err(DevicesError::Thread {
                    device,
                    message: format!("cannot start the device thread: {e}"),
                }),
            })
            .collect()
    });
    first_failure(results)
}

/// An SPMD program run by N emulated CUDA devices (threads of this
/// process; [`crate::emulate`]): for tests without GPUs. Each device
/// JIT-compiles its own copy of the kernels for every run, on its own
/// thread (a GPU loads its own module too); collectives go through the
/// Host's collective engine.
pub struct EmulatedDevices {
    module: SpmdModule,
    timeout: Duration,
}

impl EmulatedDevices {
    pub fn new(module: SpmdModule) -> EmulatedDevices {
        EmulatedDevices {
            module,
            timeout: DEFAULT_COLLECTIVE_TIMEOUT,
        }
    }

    pub fn devices(&self) -> usize {
        self.module.devices()
    }

    pub fn module(&self) -> &SpmdModule {
        &self.module
    }

    /// How long a device waits at a collective for the others.
    pub fn set_collective_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Runs on every device on the same (global) arguments; every device's
    /// result, in device order. A failing device stops every device with
    /// its error (no hang).
    pub fn execute(&self, args: &[&Literal]) -> Result<Vec<Literal>, DevicesError> {
        let run = |ctx: DeviceContext| -> Result<Literal, DevicesError> {
            let rank = ctx.rank;
            let exe = crate::emulate::EmulatedExecutable::new(self.module.compiled.clone())?;
            with_device(ctx, || exe.execute(args)).map_err(|source| DevicesError::Device {
                device: rank,
                source,
            })
        };
        on_device_threads(self.devices(), self.timeout, self.module.topology, &run)
    }
}

/// An SPMD program loaded on N GPUs of this process (GPU d is device d),
/// collectives through NCCL on each device's stream ([`crate::nccl`]).
/// Without the `nccl` feature [`CudaDevices::load`] says so.
pub struct CudaDevices {
    module: SpmdModule,
    #[cfg(feature = "nccl")]
    comms: Arc<crate::nccl::NcclComms>,
    exes: Vec<crate::CudaExecutable>,
    timeout: Duration,
}

impl CudaDevices {
    /// Opens GPUs `0..N` (N the program's devices), their NCCL
    /// communicators (one over all of them, one per sub-group the
    /// program's collectives name), and loads the program on each. Errors
    /// say what is missing: the `nccl` feature, the driver, NCCL, GPUs.
    pub fn load(module: SpmdModule) -> Result<CudaDevices, DevicesError> {
        #[cfg(not(feature = "nccl"))]
        {
            let _ = module;
            Err(DevicesError::NoNcclFeature)
        }
        #[cfg(feature = "nccl")]
        {
            let n = module.devices();
            let comms = crate::nccl::NcclComms::open(n, &module.collectives())?;
            let mut exes = Vec::with_capacity(n);
            for d in 0..n {
                let load = |source| DevicesError::Load { device: d, source };
                let client = crate::CudaClient::new(d).map_err(load)?;
                exes.push(client.load(module.compiled.clone()).map_err(load)?);
            }
            Ok(CudaDevices {
                module,
                comms: Arc::new(comms),
                exes,
                timeout: DEFAULT_COLLECTIVE_TIMEOUT,
            })
        }
    }

    pub fn devices(&self) -> usize {
        self.module.devices()
    }

    pub fn module(&self) -> &SpmdModule {
        &self.module
    }

    /// How long a device waits at a collective for the others.
    pub fn set_collective_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Runs on every GPU on the same (global) arguments; every device's
    /// result, in device order. A device that fails stops the others at
    /// their next collective, before they enter NCCL.
    pub fn execute(&self, args: &[&Literal]) -> Result<Vec<Literal>, DevicesError> {
        // The host rendezvous before each NCCL call is the control
        // communicator of `on_device_threads`.
        let run = |ctx: DeviceContext| -> Result<Literal, DevicesError> {
            let rank = ctx.rank;
            let exe = self.exes.get(rank).ok_or(DevicesError::Thread {
                device: rank,
                message: "no executable loaded for this device".into(),
            })?;
            #[cfg(feature = "nccl")]
            let r = crate::nccl::with_comms(self.comms.clone(), ctx.clone(), || {
                with_device(ctx, || exe.execute(args))
            });
            #[cfg(not(feature = "nccl"))]
            let r = with_device(ctx, || exe.execute(args));
            r.map_err(|source| DevicesError::Device {
                device: rank,
                source,
            })
        };
        on_device_threads(self.devices(), self.timeout, self.module.topology, &run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hlox_hlo::sharding::{CollectiveKind, ReduceKind};
    use hlox_hlo::ElementType;

    #[test]
    fn buffer_sizes_follow_the_collective() {
        let d = |kind| CollectiveDesc {
            name: "c".into(),
            kind,
            ty: ElementType::F32,
            operands: vec![vec![4, 2]],
            groups: vec![vec![0, 1], vec![2, 3]],
        };
        assert_eq!(
            d(CollectiveKind::AllGather { dim: 1 }).buffer_sizes(3),
            (vec![32], vec![64])
        );
        assert_eq!(
            d(CollectiveKind::ReduceScatter {
                dim: 0,
                reduce: ReduceKind::Add
            })
            .buffer_sizes(0),
            (vec![32], vec![16])
        );
        assert_eq!(
            d(CollectiveKind::PartitionId).buffer_sizes(2),
            (vec![], vec![4])
        );
    }
}
