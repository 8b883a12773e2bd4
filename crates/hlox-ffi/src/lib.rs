//! Custom-call targets for hlox, with XLA's C ABI bit for bit.
//!
//! - [`status`]: `XlaCustomCallStatus` and XLA's `XlaCustomCallStatusSetSuccess` /
//!   `XlaCustomCallStatusSetFailure`, exported from this crate with C linkage.
//! - [`target`]: XLA's function types, panic-catching trampolines,
//!   [`register_custom_call_target!`].
//! - [`registry`]: [`Registry`] keyed by (name, [`Platform`]), plugin loading,
//!   names bound to plugin symbols ([`Registry::bind_symbol`]),
//!   [`Registry::bind`].
//! - [`invoke`]: calling Host targets on [`hlox_hlo::Literal`]s
//!   ([`invoke_host`], [`HostCustomCalls`]) and the CUDA buffer order.
//! - [`opaque`]: serde opaques for Rust targets.
//! - [`sandbox`]: running a Host target with guarded buffers, faults and
//!   C++ exceptions caught, result checks and reproducers.
//! - [`xla_ffi`]: XLA's typed FFI (`API_VERSION_TYPED_FFI`): the C API
//!   table, call frames, attributes, Rust handlers.
//!
//! Executables that load plain C plugins must export the two status
//! functions dynamically (see `.cargo/config.toml` and docs/custom-calls.md).

pub mod dynamic;
pub mod fpenv;
pub mod invoke;
pub mod opaque;
pub mod platform;
pub mod plugin;
pub mod registry;
pub mod sandbox;
pub mod status;
pub mod target;
pub mod xla_ffi;

#[cfg(test)]
#[path = "../tests/common/cc.rs"]
mod test_cc;

/// A plugin file's dynamic section, read before loading it: what it
/// exports, and the [`PROCESS_SYMBOLS`] it needs from the program
/// ([`Registry::load_library`] refuses it, with the linker flags, when the
/// program does not export them).
mod elf;

pub use elf::PROCESS_SYMBOLS;
pub use invoke::{
    cuda_buffer_order, invoke_cuda, invoke_cuda_ffi, invoke_host, prepare_ffi_calls, BufferCounts,
    BufferRole, CudaBuffer, FfiPrepareError, HostCallError, HostCustomCalls, InvokeError,
    BUFFER_ALIGNMENT,
};
pub use opaque::{decode_opaque, encode_opaque, opaque_bytes, OpaqueError};
pub use platform::{Platform, Signature};
pub use plugin::{HloxCustomCallRegistrar, RegisterTargetsFn, REGISTER_SYMBOL, REGISTRAR_EXPIRED};
pub use registry::{
    closest_names, BindError, BindProblem, BoundTargets, LoadedLibrary, Origin, PluginError,
    Registry, RegistryError, RuleModule, SymbolBindError, SymbolBinding, SymbolBindingError,
    Target, Traits,
};
pub use status::{
    XlaCustomCallStatus, XlaCustomCallStatusSetFailure, XlaCustomCallStatusSetSuccess,
};
pub use target::{
    ptr_target, rust_target, sig, take_panic, CUstream, CudaOriginalFn, CudaStatusFn,
    HostOriginalFn, HostStatusFn, HostUnifiedFn, Identity, RustTarget, RustTargetFn, StaticTarget,
    TargetFn, TargetPtr, STATIC_TARGETS,
};

#[doc(hidden)]
pub mod __private {
    pub use crate::plugin::register_static_targets_with;
    pub use crate::target::{ptr_target, rust_target, PtrHolder, StaticTarget, STATIC_TARGETS};
    pub use linkme;
}
