//! hlox: compile HLO modules and run them.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let module: hlox::hlo::Module = todo!();
//! # let (a, b): (hlox::hlo::Literal, hlox::hlo::Literal) = todo!();
//! let exe = hlox::Client::cpu()?.compile(&module, &hlox::CompileOptions::default())?;
//! let out = exe.execute(&[&a, &b])?;
//! # Ok(()) }
//! ```

pub use hlox_cpu::{CompileError, CompileOptions, CompileReport, ExecError, Executable};
pub use hlox_eval as eval;
pub use hlox_ffi as ffi;
pub use hlox_ffi::{register_custom_call_target, Platform, Registry};
pub use hlox_hlo as hlo;
pub use hlox_hlo::{ElementType, Literal, Module, Shape};

/// Errors of the client API.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Compile(#[from] CompileError),
    #[error(transparent)]
    Exec(#[from] ExecError),
}

pub type Result<T> = std::result::Result<T, Error>;

/// A compilation client for one platform.
#[derive(Clone, Debug)]
pub struct Client {
    platform: Platform,
}

impl Client {
    /// The Host (CPU) client: modules compiled through LLVM to native code.
    pub fn cpu() -> Result<Client> {
        Ok(Client {
            platform: Platform::Host,
        })
    }
    pub fn platform(&self) -> Platform {
        self.platform
    }
    /// Compile `module`; custom-call targets come from `options.registry`
    /// (default: the global registry).
    pub fn compile(&self, module: &Module, options: &CompileOptions) -> Result<Executable> {
        Ok(hlox_cpu::compile(module, options)?)
    }
}
