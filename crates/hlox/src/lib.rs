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

pub use hlox_cpu::{CompileError, CompileOptions, CompileReport, ExecError};
pub use hlox_cuda as cuda;
pub use hlox_eval as eval;
pub use hlox_ffi as ffi;
pub use hlox_ffi::{register_custom_call_target, Platform, Registry};
pub use hlox_hlo as hlo;
pub use hlox_hlo::{ElementType, Literal, Module, Shape};
/// jaxlib's CPU custom-call targets (`lapack_*_ffi`), registered for the
/// Host in [`Registry::global`] by linking this crate.
pub use hlox_jaxlib as jaxlib;
use std::sync::Arc;

/// The Host backend's executable.
pub type HostExecutable = hlox_cpu::Executable;

/// Errors of the client API.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Compile(#[from] CompileError),
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// CUDA: no driver, compile errors, launch and custom-call failures.
    #[error(transparent)]
    Cuda(#[from] hlox_cuda::runtime::RuntimeError),
}

pub type Result<T> = std::result::Result<T, Error>;

#[derive(Clone)]
enum Backend {
    Host,
    Cuda(Arc<hlox_cuda::CudaClient>),
}

/// A compilation client for one platform.
#[derive(Clone)]
pub struct Client {
    backend: Backend,
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
        })
    }

    /// The CUDA client for device `ordinal`: kernels compiled through
    /// LLVM's NVPTX backend to PTX and run through the CUDA driver. Without
    /// a driver (no libcuda.so) this is an error saying so, never a panic.
    pub fn cuda(ordinal: usize) -> Result<Client> {
        Ok(Client {
            backend: Backend::Cuda(Arc::new(hlox_cuda::CudaClient::new(ordinal)?)),
        })
    }

    pub fn platform(&self) -> Platform {
        match self.backend {
            Backend::Host => Platform::Host,
            Backend::Cuda(_) => Platform::Cuda,
        }
    }

    /// Compile `module`; custom-call targets come from `options.registry`
    /// (default: the global registry) and are bound for this client's
    /// platform. On CUDA, `dump_dir`, `opt_level`, `registry` and
    /// `hlo_passes` apply; the GPU architecture is the device's.
    pub fn compile(&self, module: &Module, options: &CompileOptions) -> Result<Executable> {
        Ok(match &self.backend {
            Backend::Host => Executable::Host(hlox_cpu::compile(module, options)?),
            Backend::Cuda(c) => {
                let o = hlox_cuda::CudaCompileOptions {
                    opt_level: options.opt_level,
                    dump_dir: options.dump_dir.clone(),
                    registry: options.registry.clone(),
                    hlo_passes: options.hlo_passes,
                    ..Default::default()
                };
                Executable::Cuda(c.compile(module, &o)?)
            }
        })
    }
}

/// A compiled module, ready to run many times (from many threads).
pub enum Executable {
    Host(HostExecutable),
    Cuda(hlox_cuda::CudaExecutable),
}

impl Executable {
    /// Run on `args` (one literal per entry parameter); the result literal.
    pub fn execute(&self, args: &[&Literal]) -> Result<Literal> {
        match self {
            Executable::Host(e) => Ok(e.execute(args)?),
            Executable::Cuda(e) => {
                let owned: Vec<Literal> = args.iter().map(|a| (*a).clone()).collect();
                Ok(e.execute(&owned)?)
            }
        }
    }

    pub fn platform(&self) -> Platform {
        match self {
            Executable::Host(_) => Platform::Host,
            Executable::Cuda(_) => Platform::Cuda,
        }
    }

    /// The Host executable (zero-copy `execute_into`, compile report).
    pub fn as_host(&self) -> Option<&HostExecutable> {
        match self {
            Executable::Host(e) => Some(e),
            Executable::Cuda(_) => None,
        }
    }
}
