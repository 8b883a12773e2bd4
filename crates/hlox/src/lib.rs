//! hlox: compile HLO modules and run them, on the Host (CPU) or on CUDA.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let module: hlox::hlo::Module = todo!();
//! # let (a, b): (hlox::hlo::Literal, hlox::hlo::Literal) = todo!();
//! let exe = hlox::Client::cpu()?.compile(&module, &hlox::CompileOptions::default())?;
//! let out = exe.execute(&[&a, &b])?;
//! // The same on the first GPU (an error naming libcuda.so without a driver):
//! let gpu = hlox::Client::cuda(0)?.compile(&module, &hlox::CompileOptions::default())?;
//! let out = gpu.execute(&[&a, &b])?;
//! # Ok(()) }
//! ```

/// One options type and one compile error type for every platform (the
/// compilers' shared front half, `hlox_passes::frontend`, defines them).
pub use hlox_cpu::{CompileError, CompileOptions, CompileReport, Compiler, ExecError};
pub use hlox_cuda as cuda;
pub use hlox_eval as eval;
pub use hlox_ffi as ffi;
pub use hlox_ffi::{register_custom_call_target, Platform, Registry};
pub use hlox_hlo as hlo;
pub use hlox_hlo::{CancelToken, ExecuteOptions};
pub use hlox_hlo::{ElementType, Literal, Module, Shape};
/// jaxlib's CPU custom-call targets (`lapack_*_ffi`), registered for the
/// Host in [`Registry::global`] by linking this crate.
pub use hlox_jaxlib as jaxlib;
/// Transformations of modules: derivatives (`grad`, `vjp`, `jvp`) and
/// batching (`vmap`), each giving a new verified module
/// (docs/transforms.md).
pub use hlox_transform as transform;

/// What a transformation gives: a new verified module, or why not.
pub type TransformResult =
    std::result::Result<hlo::verifier::VerifiedModule, transform::TransformError>;

/// `hlox_transform::grad` with the rules of the jaxlib targets
/// ([`jaxlib::rules::rules`]): the gradient of a module's scalar result.
pub fn grad(m: &Module, wrt: &[usize]) -> TransformResult {
    transform::grad_with(m, wrt, &jaxlib::rules::rules())
}

/// `hlox_transform::vjp` with the rules of the jaxlib targets.
pub fn vjp(m: &Module, wrt: &[usize]) -> TransformResult {
    transform::vjp_with(m, wrt, &jaxlib::rules::rules())
}

/// `hlox_transform::jvp` with the rules of the jaxlib targets.
pub fn jvp(m: &Module, wrt: &[usize]) -> TransformResult {
    transform::jvp_with(m, wrt, &jaxlib::rules::rules())
}

/// `hlox_transform::vmap` with the rules of the jaxlib targets (each
/// batches natively).
pub fn vmap(m: &Module, in_axes: &[Option<usize>], size: i64) -> TransformResult {
    transform::vmap_with(m, in_axes, size, &jaxlib::rules::rules())
}
use std::sync::Arc;

/// The Host backend's executable.
pub type HostExecutable = hlox_cpu::Executable;
pub use hlox_cpu::collectives::SpmdError;
/// One program compiled for N Host devices (docs/multi-device.md).
pub use hlox_cpu::collectives::{DeviceExecutable, DevicesError};
/// One program on N GPUs of this process, collectives through NCCL
/// (the `nccl` feature; docs/multi-device.md).
pub use hlox_cuda::spmd::CudaDevices;

/// A platform's own error, as the source of [`Error::Device`] and
/// [`Error::Execute`] (downcast to `hlox::ExecError` on the Host,
/// `hlox::cuda::runtime::RuntimeError` on CUDA).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Errors of the client API, the same on every platform: the variant says
/// what failed (compiling, the device, a run), and
/// [`std::error::Error::source`] leads down to the cause.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Compiling failed (on either platform: one error type, whose variant
    /// says which stage: verification, passes, binding, code generation).
    #[error("{0}")]
    Compile(#[from] CompileError),
    /// The platform's device could not be opened, or compiled code not
    /// loaded on it (no CUDA driver, no such device, ...).
    #[error("{platform}: {source}")]
    Device {
        platform: Platform,
        source: BoxError,
    },
    /// The module cannot be made into the program of each of N devices
    /// (a sharding hlox cannot split yet, too few devices for its mesh or
    /// replica groups).
    #[error("{0}")]
    Spmd(#[from] SpmdError),
    /// A run of `module` failed: arguments that do not match its entry
    /// signature, or a failure while running (a custom call's error, the
    /// device's).
    #[error("{source}")]
    Execute {
        platform: Platform,
        module: String,
        source: BoxError,
    },
}

impl Error {
    /// The platform the error happened on (`None` for compile errors,
    /// which are the same on every platform).
    pub fn platform(&self) -> Option<Platform> {
        match self {
            Error::Compile(_) | Error::Spmd(_) => None,
            Error::Device { platform, .. } | Error::Execute { platform, .. } => Some(*platform),
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

fn cuda_device(e: hlox_cuda::runtime::RuntimeError) -> Error {
    match e {
        hlox_cuda::runtime::RuntimeError::Compile(e) => Error::Compile(e),
        e => Error::Device {
            platform: Platform::Cuda,
            source: Box::new(e),
        },
    }
}

#[derive(Clone)]
enum Backend {
    Host,
    Cuda(Arc<hlox_cuda::CudaClient>),
    /// GPUs `0..devices` ([`Client::cuda_devices`]).
    CudaDevices,
}

/// A compilation client for one platform.
#[derive(Clone)]
pub struct Client {
    backend: Backend,
    /// Devices each executable runs on (1 but for [`Client::cpu_devices`]).
    devices: usize,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("platform", &self.platform())
            .finish()
    }
}

impl Client {
    /// The Host (CPU) client: modules compiled through LLVM to native code.
    pub fn cpu() -> Result<Client> {
        Ok(Client {
            backend: Backend::Host,
            devices: 1,
        })
    }

    /// A Host client of `devices` devices in this process, each running
    /// its program on its own thread, collectives between them through a
    /// rendezvous (docs/multi-device.md). Its executables take and return
    /// global arrays: each device runs the module's `shard_map` regions on
    /// its shard and the rest replicated.
    pub fn cpu_devices(devices: usize) -> Result<Client> {
        if devices == 0 {
            return Err(Error::Spmd(SpmdError::NoDevices(0)));
        }
        Ok(Client {
            backend: Backend::Host,
            devices,
        })
    }

    /// The number of devices an executable of this client runs on.
    pub fn device_count(&self) -> usize {
        self.devices
    }

    /// The CUDA client for device `ordinal`: kernels compiled through
    /// LLVM's NVPTX backend to PTX and run through the CUDA driver. Without
    /// a driver (no libcuda.so) this is an error saying so, never a panic.
    pub fn cuda(ordinal: usize) -> Result<Client> {
        Ok(Client {
            backend: Backend::Cuda(Arc::new(
                hlox_cuda::CudaClient::new(ordinal).map_err(cuda_device)?,
            )),
            devices: 1,
        })
    }

    /// A CUDA client of `devices` GPUs of this process (GPU d is device
    /// d), each running its program on its own stream, collectives through
    /// NCCL (docs/multi-device.md). Its executables take and return global
    /// arrays, as [`Client::cpu_devices`]'s. Needs the `nccl` feature, the
    /// driver, libnccl and that many GPUs: each missing one is an error
    /// saying which (at creation: the feature and the driver; when
    /// compiling: NCCL and the GPU count).
    pub fn cuda_devices(devices: usize) -> Result<Client> {
        if devices == 0 {
            return Err(Error::Spmd(SpmdError::NoDevices(0)));
        }
        let refuse = |source: BoxError| Error::Device {
            platform: Platform::Cuda,
            source,
        };
        if !cfg!(feature = "nccl") {
            return Err(refuse(Box::new(
                hlox_cuda::spmd::DevicesError::NoNcclFeature,
            )));
        }
        if !hlox_cuda::runtime::driver_present() {
            return Err(refuse(Box::new(
                hlox_cuda::runtime::RuntimeError::NoDriver(
                    "several GPUs need the NVIDIA driver library; run on a machine with GPUs (or \
                 on Host devices: Client::cpu_devices)"
                        .into(),
                ),
            )));
        }
        Ok(Client {
            backend: Backend::CudaDevices,
            devices,
        })
    }

    pub fn platform(&self) -> Platform {
        match self.backend {
            Backend::Host => Platform::Host,
            Backend::Cuda(_) | Backend::CudaDevices => Platform::Cuda,
        }
    }

    /// Compile `module`; custom-call targets come from `options.registry`
    /// (default: the global registry) and are bound for this client's
    /// platform. The options are the same type on every platform (each
    /// backend reads its own fields); on CUDA the GPU architecture (`sm`)
    /// is the device's.
    pub fn compile(&self, module: &Module, options: &CompileOptions) -> Result<Executable> {
        Ok(match &self.backend {
            Backend::Host if self.devices > 1 => Executable::Devices(
                hlox_cpu::collectives::compile_for_devices(module, self.devices, options).map_err(
                    |e| match e {
                        DevicesError::Spmd(e) => Error::Spmd(e),
                        DevicesError::Compile(e) => Error::Compile(e),
                        other => Error::Device {
                            platform: Platform::Host,
                            source: Box::new(other),
                        },
                    },
                )?,
            ),
            Backend::Host => Executable::Host(
                hlox_cpu::HostCompiler::default()
                    .compile(module, options)?
                    .into_executable()?,
            ),
            Backend::Cuda(c) => {
                let sm = c.sm().map_err(cuda_device)?;
                let o = CompileOptions {
                    sm: hlox_cuda::runtime::target_sm(&sm),
                    ..options.clone()
                };
                let compiled = hlox_cuda::CudaCompiler.compile(module, &o)?;
                Executable::Cuda(c.load(compiled).map_err(cuda_device)?)
            }
            Backend::CudaDevices => {
                use hlox_cuda::spmd::DevicesError as E;
                // Every device runs GPU 0's architecture's PTX.
                let sm = hlox_cuda::CudaClient::new(0)
                    .and_then(|c| c.sm())
                    .map_err(cuda_device)?;
                let o = CompileOptions {
                    sm: hlox_cuda::runtime::target_sm(&sm),
                    ..options.clone()
                };
                let spmd = hlox_cuda::spmd::compile_for_devices(module, self.devices, &o).map_err(
                    |e| match e {
                        E::Spmd(e) => Error::Spmd(e),
                        E::Compile(e) => Error::Compile(e),
                        other => Error::Device {
                            platform: Platform::Cuda,
                            source: Box::new(other),
                        },
                    },
                )?;
                Executable::CudaDevices(CudaDevices::load(spmd).map_err(|e| Error::Device {
                    platform: Platform::Cuda,
                    source: Box::new(e),
                })?)
            }
        })
    }
}

/// A compiled module, ready to run many times (from many threads).
// A CUDA executable carries its CompileOptions (and more) inline; one
// executable per compile, so the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Executable {
    Host(HostExecutable),
    Cuda(hlox_cuda::CudaExecutable),
    /// Host devices of one process ([`Client::cpu_devices`]).
    Devices(DeviceExecutable),
    /// GPUs of one process ([`Client::cuda_devices`]).
    CudaDevices(CudaDevices),
}

impl Executable {
    /// Run on `args` (one literal per entry parameter); the result literal.
    /// The arguments are read where they are on both platforms (no copies
    /// but relayouts of leaves in another layout than the parameter's).
    pub fn execute(&self, args: &[&Literal]) -> Result<Literal> {
        let failed = |source: BoxError| Error::Execute {
            platform: self.platform(),
            module: self.name().to_string(),
            source,
        };
        match self {
            Executable::Host(e) => e.execute(args).map_err(|e| failed(Box::new(e))),
            Executable::Cuda(e) => e.execute(args).map_err(|e| failed(Box::new(e))),
            Executable::Devices(_) | Executable::CudaDevices(_) => {
                self.execute_with(args, &ExecuteOptions::default())
            }
        }
    }

    /// Runs on every device of a multi-device executable (one device for
    /// the others); every device's result, in device order. Each holds the
    /// global result.
    pub fn execute_on_devices(
        &self,
        args: &[&Literal],
        options: &ExecuteOptions,
    ) -> Result<Vec<Literal>> {
        match self {
            Executable::Devices(e) => e.execute(args, options).map_err(|e| Error::Execute {
                platform: Platform::Host,
                module: self.name().to_string(),
                source: Box::new(e),
            }),
            Executable::CudaDevices(_) if options.cancel.is_some() || options.timeout.is_some() => {
                Err(Error::Execute {
                    platform: Platform::Cuda,
                    module: self.name().to_string(),
                    source: "a CUDA run cannot be cancelled or given a timeout yet; run it \
                             without ExecuteOptions"
                        .into(),
                })
            }
            Executable::CudaDevices(e) => e.execute(args).map_err(|e| Error::Execute {
                platform: Platform::Cuda,
                module: self.name().to_string(),
                source: Box::new(e),
            }),
            _ => Ok(vec![self.execute_with(args, options)?]),
        }
    }

    /// The number of devices a run uses.
    pub fn device_count(&self) -> usize {
        match self {
            Executable::Devices(e) => e.devices(),
            Executable::CudaDevices(e) => e.devices(),
            _ => 1,
        }
    }

    /// [`Executable::execute`] that can be stopped: by `options.cancel`
    /// (a [`CancelToken`] cancelled from another thread) or when
    /// `options.timeout` passes, at the next while-loop back-edge. Host only
    /// for now: on CUDA, options that can stop the run are an error.
    pub fn execute_with(&self, args: &[&Literal], options: &ExecuteOptions) -> Result<Literal> {
        let failed = |source: BoxError| Error::Execute {
            platform: self.platform(),
            module: self.name().to_string(),
            source,
        };
        match self {
            Executable::Host(e) => e
                .execute_with(args, options)
                .map_err(|e| failed(Box::new(e))),
            Executable::Cuda(_) if options.cancel.is_some() || options.timeout.is_some() => {
                Err(failed(
                    "a CUDA run cannot be cancelled or given a timeout yet; run it on the Host \
                     or without ExecuteOptions"
                        .into(),
                ))
            }
            Executable::Cuda(e) => e.execute(args).map_err(|e| failed(Box::new(e))),
            Executable::Devices(_) | Executable::CudaDevices(_) => {
                let mut all = self.execute_on_devices(args, options)?;
                if all.is_empty() {
                    return Err(failed("no device ran".into()));
                }
                Ok(all.swap_remove(0))
            }
        }
    }

    /// The module's name.
    pub fn name(&self) -> &str {
        match self {
            Executable::Host(e) => e.name(),
            Executable::Cuda(e) => &e.compiled().module.name,
            Executable::Devices(e) => e.executable().name(),
            Executable::CudaDevices(e) => &e.module().compiled.module.name,
        }
    }

    pub fn platform(&self) -> Platform {
        match self {
            Executable::Host(_) | Executable::Devices(_) => Platform::Host,
            Executable::Cuda(_) | Executable::CudaDevices(_) => Platform::Cuda,
        }
    }

    /// The Host executable (zero-copy `execute_into`, compile report).
    pub fn as_host(&self) -> Option<&HostExecutable> {
        match self {
            Executable::Host(e) => Some(e),
            Executable::Devices(_) | Executable::Cuda(_) | Executable::CudaDevices(_) => None,
        }
    }
}
