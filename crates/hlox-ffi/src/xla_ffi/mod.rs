//! XLA's typed FFI (`api_version=API_VERSION_TYPED_FFI`): handlers of type
//! `XLA_FFI_Error* handler(XLA_FFI_CallFrame*)`, written against
//! `xla/ffi/api/ffi.h` (C++) or in Rust with [`Frame`].
//!
//! - [`abi`]: the C structures, laid out as `xla/ffi/api/c_api.h`.
//! - [`api`]: hlox's `XLA_FFI_Api` table (errors, futures, scratch memory,
//!   the Host thread pool, handler registration), exported as
//!   `XLA_FFI_GetApi` for plugins that register with
//!   `XLA_FFI_REGISTER_HANDLER`.
//! - [`attrs`]: the `backend_config` dictionary, parsed and encoded.
//! - [`call`]: a prepared call ([`FfiCall`]) and the metadata query.
//! - [`direct`]: the call frame's recipe for compiled code that calls a
//!   handler itself.
//! - [`frame`]: Rust handlers; [`error`]: their errors.
//!
//! On the Host hlox runs the stages XLA:CPU runs: instantiate once per
//! prepared call (its state, `XLA_FFI_State_Set`, is kept by the
//! [`FfiCall`] and handed to every execute call, then destroyed with the
//! type's registered deleter), and execute per run. The prepare and
//! initialize stages are GPU stages and are not run on the Host. User data
//! in the execution context (`UserData<T>`) is not supported: asking for it
//! is a NOT_FOUND error.

pub mod abi;
pub mod api;
pub mod attrs;
pub mod call;
pub mod direct;
pub mod error;
pub mod frame;

pub use api::{
    api, process_registrations, DeviceScratch, ExecutionState, FfiRegistration, FutureError,
    InvokeContext, XLA_FFI_GetApi,
};
pub use attrs::{parse_attrs, AttrError, AttrValue, EncodedAttrs};
pub use call::{
    ffi_dtype, handler_metadata, status_text, FfiCall, FfiCallError, FfiHandlers, HandlerMetadata,
    Invoker, MetadataError, RunStages,
};
pub use error::{FfiError, FrameError};
pub use frame::{run_rust_handler, BufferView, FfiElement, Frame, StatefulHandler};
