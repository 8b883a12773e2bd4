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
//! - [`frame`]: Rust handlers.
//!
//! hlox runs a handler's execute stage only. Handler state
//! (`XLA_FFI_State_*`), user data in the execution context and the
//! instantiate/prepare/initialize stages are not supported: binding a
//! handler with those stages fails with a message that says so.

pub mod abi;
pub mod api;
pub mod attrs;
pub mod call;
pub mod frame;

pub use api::{api, process_registrations, FfiRegistration, InvokeContext, XLA_FFI_GetApi};
pub use attrs::{parse_attrs, AttrError, AttrValue, EncodedAttrs};
pub use call::{ffi_dtype, handler_metadata, status_text, FfiCall, HandlerMetadata};
pub use frame::{run_rust_handler, BufferView, FfiElement, Frame};
