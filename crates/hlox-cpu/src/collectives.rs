//! Several Host devices: the `hlox.collective` custom-call target that runs
//! every collective of an SPMD-expanded module (`hlox_passes::spmd`), and
//! [`DeviceExecutable`], one compiled program run by N devices.
//!
//! A device is a thread (in one process, [`DeviceExecutable::execute`]) or
//! a process (an MPI rank, [`DeviceExecutable::execute_as`]) running the
//! same executable with its device context set; collectives meet through
//! a [`Communicator`]. A device whose run fails aborts the communicator, so
//! every other device stops at its next collective with that error instead
//! of waiting; a device that never arrives is named by the rendezvous
//! timeout.

use crate::{CompileError, CompileOptions, ExecError, Executable};
use hlox_ffi::XlaCustomCallStatus;
use hlox_hlo::sharding::{CollectiveDesc, CollectiveKind, Topology, COLLECTIVE_TARGET};
use hlox_hlo::{ExecuteOptions, Literal, Module};
pub use hlox_passes::spmd::SpmdError;
use std::ffi::{c_char, c_void};
use std::sync::Arc;
use std::time::Duration;

pub use hlox_cpu_runtime::collectives::{
    current_device, with_device, CollectiveError, Communicator, DeviceContext, InProcess,
};

/// The Host target behind every collective of a multi-device module
/// (`API_VERSION_STATUS_RETURNING_UNIFIED`; the opaque bytes are a
/// [`CollectiveDesc`]).
fn hlox_collective(
    out: *mut c_void,
    ins: *const *const c_void,
    opaque: *const c_char,
    opaque_len: usize,
    status: *mut XlaCustomCallStatus,
) {
    let fail = |msg: String| {
        if let Some(s) = unsafe { status.as_mut() } {
            s.set_failure(msg.as_bytes());
        }
    };
    let bytes = if opaque.is_null() {
        &[][..]
    } else {
        unsafe { std::slice::from_raw_parts(opaque as *const u8, opaque_len) }
    };
    let Some(desc) = CollectiveDesc::decode(bytes) else {
        return fail(format!(
            "{COLLECTIVE_TARGET}: the opaque bytes are not a collective descriptor"
        ));
    };
    let Some(me) = current_device() else {
        return fail(CollectiveError::NoDevice.to_string());
    };
    let (lens, out_lens) = desc.buffer_sizes(me);
    // A tuple result: a variadic all-reduce, an all-to-all of several arrays.
    let tuple = match &desc.kind {
        CollectiveKind::AllReduce(_) => lens.len() > 1,
        CollectiveKind::AllToAll { split: None } => true,
        _ => false,
    };
    // SAFETY: the compiled code (or the evaluator) passes one pointer per
    // operand and, for a tuple result, a table of one pointer per leaf, each
    // buffer of the size the descriptor's shapes give.
    let ins: Vec<&[u8]> = lens
        .iter()
        .enumerate()
        .map(|(k, &len)| unsafe { std::slice::from_raw_parts(*ins.add(k) as *const u8, len) })
        .collect();
    let mut outs: Vec<&mut [u8]> = if tuple {
        let table = out as *const *mut u8;
        out_lens
            .iter()
            .enumerate()
            .map(|(k, &len)| unsafe { std::slice::from_raw_parts_mut(*table.add(k), len) })
            .collect()
    } else {
        vec![unsafe { std::slice::from_raw_parts_mut(out as *mut u8, out_lens[0]) }]
    };
    if let Err(e) = hlox_cpu_runtime::collectives::run_collective(&desc, &ins, &mut outs) {
        fail(e.to_string());
    }
}
hlox_ffi::register_custom_call_target!(hlox_collective, "hlox.collective", "Host");

/// Errors of compiling or running on several devices.
#[derive(Debug, thiserror::Error)]
pub enum DevicesError {
    /// The module cannot be made into a per-device program.
    #[error("{0}")]
    Spmd(#[from] SpmdError),
    #[error("{0}")]
    Compile(#[from] CompileError),
    /// A device's run failed (the first failure: devices stopped by it are
    /// not reported).
    #[error("device {device}: {source}")]
    Device {
        device: usize,
        #[source]
        source: ExecError,
    },
    #[error("a device thread panicked: {0}")]
    Panic(String),
}

/// How long a device waits at a collective for the others, unless the
/// options say otherwise.
pub const DEFAULT_COLLECTIVE_TIMEOUT: Duration = Duration::from_secs(60);

/// One program compiled for N Host devices.
pub struct DeviceExecutable {
    exe: Executable,
    topology: Topology,
    timeout: Duration,
}

/// Expands `module` for `devices` devices and compiles it once; every
/// device runs the same code.
pub fn compile_for_devices(
    module: &Module,
    devices: usize,
    options: &CompileOptions,
) -> Result<DeviceExecutable, DevicesError> {
    let mut m = module.clone();
    let topology = hlox_passes::spmd::expand_spmd(&mut m, devices as i64)?;
    let exe = crate::compile(&m, options)?;
    Ok(DeviceExecutable {
        exe,
        topology,
        timeout: DEFAULT_COLLECTIVE_TIMEOUT,
    })
}

impl DeviceExecutable {
    /// The number of devices.
    pub fn devices(&self) -> usize {
        self.topology.devices() as usize
    }
    pub fn topology(&self) -> Topology {
        self.topology
    }
    /// The per-device executable (its module is the expanded one).
    pub fn executable(&self) -> &Executable {
        &self.exe
    }
    /// How long a device waits at a collective for the others.
    pub fn set_collective_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Runs on every device, each a thread of this process, on the same
    /// (global) arguments; every device's result, in device order.
    pub fn execute(
        &self,
        args: &[&Literal],
        options: &ExecuteOptions,
    ) -> Result<Vec<Literal>, DevicesError> {
        let n = self.devices();
        let comm: Arc<dyn Communicator> = Arc::new(InProcess::new(n, self.timeout));
        let results: Vec<Result<Literal, ExecError>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|rank| {
                    let comm = comm.clone();
                    std::thread::Builder::new()
                        .name(format!("hlox-device-{rank}"))
                        .stack_size(8 << 20)
                        .spawn_scoped(s, move || self.execute_as(rank, comm, args, options))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| match h {
                    Ok(h) => h.join().unwrap_or_else(|p| {
                        Err(ExecError::Runtime(format!(
                            "device thread panicked: {}",
                            panic_text(&p)
                        )))
                    }),
                    Err(e) => Err(ExecError::Runtime(format!(
                        "cannot start a device thread: {e}"
                    ))),
                })
                .collect()
        });
        first_failure(results)
    }

    /// Runs as device `rank` of `comm` (an MPI rank, or one thread of
    /// [`DeviceExecutable::execute`]). On failure the communicator is
    /// aborted, so the other devices stop too.
    pub fn execute_as(
        &self,
        rank: usize,
        comm: Arc<dyn Communicator>,
        args: &[&Literal],
        options: &ExecuteOptions,
    ) -> Result<Literal, ExecError> {
        let ctx = DeviceContext {
            rank,
            topology: self.topology,
            comm: comm.clone(),
        };
        let r = with_device(ctx, || self.exe.execute_with(args, options));
        if let Err(e) = &r {
            comm.abort(rank, &e.to_string());
        }
        r
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// Whether a device's error only says that it was stopped by another's.
fn is_secondary(e: &ExecError) -> bool {
    matches!(e, ExecError::CustomCall { target, message, .. }
        if target == COLLECTIVE_TARGET && message.contains("stopped because device"))
}

/// Every device's result, or the failure that caused the others: a
/// device's own error before the errors of devices it stopped.
pub fn first_failure(
    results: Vec<Result<Literal, ExecError>>,
) -> Result<Vec<Literal>, DevicesError> {
    let mut secondary = None;
    let mut ok = Vec::with_capacity(results.len());
    for (device, r) in results.into_iter().enumerate() {
        match r {
            Ok(l) => ok.push(l),
            Err(e) if is_secondary(&e) => {
                secondary.get_or_insert(DevicesError::Device { device, source: e });
            }
            Err(source) => return Err(DevicesError::Device { device, source }),
        }
    }
    match secondary {
        Some(e) => Err(e),
        None => Ok(ok),
    }
}
