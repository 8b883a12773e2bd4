//! The C structures of XLA's FFI (`xla/ffi/api/c_api.h`, API version 0.x),
//! declared again in Rust with the same layout, field for field.
//!
//! Architecture invariant: nothing here has behaviour. The layouts are
//! checked against the C header by the C++ plugin test
//! (`typed_ffi_cpp_handlers_from_xla_headers_run_unchanged` in
//! crates/hlox-ffi/tests/ffi.rs), which compiles targets against jaxlib's own
//! `xla/ffi/api/ffi.h` and runs them through these structs.
//!
//! C enums are `int`; they are `i32` here so that an unknown value read from
//! C is never undefined behaviour.

#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_void};

/// The FFI API version hlox implements (`XLA_FFI_API_MAJOR.XLA_FFI_API_MINOR`
/// of the header it follows). Handlers built against an equal major and a
/// minor no newer than this are accepted.
pub const API_MAJOR: i32 = 0;
pub const API_MINOR: i32 = 4;

/// `XLA_FFI_STRUCT_SIZE(T, last)`: the offset of `last` plus its size (not
/// `size_of::<T>()`, which may include tail padding or fields after `last`).
macro_rules! struct_size {
    ($t:ty, $field:ident, $ft:ty) => {
        std::mem::offset_of!($t, $field) + std::mem::size_of::<$ft>()
    };
}
pub(crate) use struct_size;

/// `XLA_FFI_InternalExtension` (a linked list of extensions).
#[repr(C)]
pub struct InternalExtension {
    pub struct_size: usize,
    /// `XLA_FFI_InternalExtension_Type`: 1 is the metadata extension.
    pub ty: i32,
    pub next: *mut InternalExtension,
}
pub const EXTENSION_METADATA: i32 = 1;

/// `XLA_FFI_Extension` (returned by `InvokeContext_FindExtension`).
#[repr(C)]
pub struct Extension {
    pub struct_size: usize,
    pub extension_type: i64,
    pub major_version: i32,
    pub minor_version: i32,
    pub next: *const Extension,
}

/// `XLA_FFI_Api_Version`.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct ApiVersion {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub major_version: i32,
    pub minor_version: i32,
}
pub const API_VERSION_STRUCT_SIZE: usize = struct_size!(ApiVersion, minor_version, i32);

/// `XLA_FFI_Error` is opaque to handlers; hlox's own representation.
pub struct Error {
    pub message: std::ffi::CString,
    pub code: i32,
}

/// `XLA_FFI_Error_Code` values used by hlox itself.
pub mod code {
    pub const OK: i32 = 0;
    pub const UNKNOWN: i32 = 2;
    pub const INVALID_ARGUMENT: i32 = 3;
    pub const NOT_FOUND: i32 = 5;
    pub const RESOURCE_EXHAUSTED: i32 = 8;
    pub const FAILED_PRECONDITION: i32 = 9;
    pub const UNIMPLEMENTED: i32 = 12;
    pub const INTERNAL: i32 = 13;

    /// The code's name, as absl spells it.
    pub fn name(code: i32) -> &'static str {
        const NAMES: [&str; 17] = [
            "OK",
            "CANCELLED",
            "UNKNOWN",
            "INVALID_ARGUMENT",
            "DEADLINE_EXCEEDED",
            "NOT_FOUND",
            "ALREADY_EXISTS",
            "PERMISSION_DENIED",
            "RESOURCE_EXHAUSTED",
            "FAILED_PRECONDITION",
            "ABORTED",
            "OUT_OF_RANGE",
            "UNIMPLEMENTED",
            "INTERNAL",
            "UNAVAILABLE",
            "DATA_LOSS",
            "UNAUTHENTICATED",
        ];
        usize::try_from(code)
            .ok()
            .and_then(|c| NAMES.get(c).copied())
            .unwrap_or("UNKNOWN")
    }
}

#[repr(C)]
pub struct ErrorCreateArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub message: *const c_char,
    pub errc: i32,
}

#[repr(C)]
pub struct ErrorGetDetailsArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub error: *mut Error,
    pub message: *const c_char,
    pub errc: i32,
}

#[repr(C)]
pub struct ErrorDestroyArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub error: *mut Error,
}

/// `XLA_FFI_DataType` values.
pub mod dtype {
    pub const INVALID: i32 = 0;
    pub const PRED: i32 = 1;
    pub const S8: i32 = 2;
    pub const S16: i32 = 3;
    pub const S32: i32 = 4;
    pub const S64: i32 = 5;
    pub const U8: i32 = 6;
    pub const U16: i32 = 7;
    pub const U32: i32 = 8;
    pub const U64: i32 = 9;
    pub const F16: i32 = 10;
    pub const F32: i32 = 11;
    pub const F64: i32 = 12;
    pub const C64: i32 = 15;
    pub const BF16: i32 = 16;
    pub const TOKEN: i32 = 17;
    pub const C128: i32 = 18;
}

/// `XLA_FFI_Buffer`: one array argument or result.
#[repr(C)]
pub struct Buffer {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub dtype: i32,
    pub data: *mut c_void,
    pub rank: i64,
    pub dims: *mut i64,
}
pub const BUFFER_STRUCT_SIZE: usize = struct_size!(Buffer, dims, *mut i64);

/// `XLA_FFI_ArgType_BUFFER` / `XLA_FFI_RetType_BUFFER`.
pub const ARG_BUFFER: i32 = 1;

/// `XLA_FFI_AttrType` values.
pub mod attr_type {
    pub const ARRAY: i32 = 1;
    pub const DICTIONARY: i32 = 2;
    pub const SCALAR: i32 = 3;
    pub const STRING: i32 = 4;
}

/// `XLA_FFI_ExecutionContext` is opaque to handlers; hlox's is
/// [`crate::xla_ffi::InvokeContext`].
pub type ExecutionContext = c_void;

#[repr(C)]
pub struct ByteSpan {
    pub ptr: *const c_char,
    pub len: usize,
}

impl ByteSpan {
    /// A span over `bytes` (borrowed: it must outlive the span's use).
    pub fn of(bytes: &[u8]) -> ByteSpan {
        ByteSpan {
            ptr: bytes.as_ptr() as *const c_char,
            len: bytes.len(),
        }
    }
}

#[repr(C)]
pub struct Scalar {
    pub dtype: i32,
    pub value: *mut c_void,
}

#[repr(C)]
pub struct Array {
    pub dtype: i32,
    pub size: usize,
    pub data: *mut c_void,
}

#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TypeId {
    pub type_id: i64,
}

#[repr(C)]
pub struct TypeInfo {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub deleter: Option<unsafe extern "C" fn(*mut c_void)>,
}

/// `XLA_FFI_Future` is opaque to handlers; hlox's own representation.
///
/// It has two owners: the runtime, which waits for it once the handler
/// returned it, and the handler's side, which completes it (possibly before
/// the handler returns, possibly on another thread after). Whichever of the
/// two lets go last frees it.
pub struct Future {
    pub state: std::sync::Mutex<Option<Result<(), super::api::FutureError>>>,
    pub ready: std::sync::Condvar,
    pub owners: std::sync::atomic::AtomicUsize,
}

#[repr(C)]
pub struct FutureCreateArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub future: *mut Future,
}

#[repr(C)]
pub struct FutureSetAvailableArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub future: *mut Future,
}

#[repr(C)]
pub struct FutureSetErrorArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub future: *mut Future,
    pub error: *mut Error,
}

/// `XLA_FFI_ExecutionStage` values.
pub mod stage {
    pub const INSTANTIATE: i32 = 0;
    pub const PREPARE: i32 = 1;
    pub const INITIALIZE: i32 = 2;
    pub const EXECUTE: i32 = 3;
}

/// `XLA_FFI_Args` and `XLA_FFI_Rets` (same layout).
#[repr(C)]
pub struct Args {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub size: i64,
    pub types: *mut i32,
    pub args: *mut *mut c_void,
}
pub const ARGS_STRUCT_SIZE: usize = struct_size!(Args, args, *mut *mut c_void);

#[repr(C)]
pub struct Attrs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub size: i64,
    pub types: *mut i32,
    pub names: *mut *mut ByteSpan,
    pub attrs: *mut *mut c_void,
}
pub const ATTRS_STRUCT_SIZE: usize = struct_size!(Attrs, attrs, *mut *mut c_void);

/// `XLA_FFI_CallFrame`.
#[repr(C)]
pub struct CallFrame {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub api: *const Api,
    pub ctx: *mut ExecutionContext,
    pub stage: i32,
    pub args: Args,
    pub rets: Args,
    pub attrs: Attrs,
    pub future: *mut Future,
}
pub const CALL_FRAME_STRUCT_SIZE: usize = struct_size!(CallFrame, attrs, Attrs);

/// `XLA_FFI_Handler`: every typed-FFI target has this type.
pub type Handler = unsafe extern "C" fn(*mut CallFrame) -> *mut Error;

#[repr(C)]
#[derive(Copy, Clone)]
pub struct HandlerBundle {
    pub instantiate: Option<Handler>,
    pub prepare: Option<Handler>,
    pub initialize: Option<Handler>,
    pub execute: Option<Handler>,
    pub record: Option<Handler>,
}

/// `XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE`.
pub const TRAIT_COMMAND_BUFFER_COMPATIBLE: u32 = 1;

#[repr(C)]
pub struct HandlerRegisterArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub name: ByteSpan,
    pub platform: ByteSpan,
    pub bundle: HandlerBundle,
    pub traits: u32,
}

#[repr(C)]
pub struct TypeRegisterArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub name: ByteSpan,
    pub type_id: *mut TypeId,
    pub type_info: *const TypeInfo,
}

#[repr(C)]
pub struct FindExtensionArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub ctx: *mut ExecutionContext,
    pub extension_type: i64,
    pub extension: *const Extension,
}

#[repr(C)]
pub struct ContextGetArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub ctx: *mut ExecutionContext,
    pub type_id: *mut TypeId,
    pub data: *mut c_void,
}

/// `XLA_FFI_State_Set_Args` and `XLA_FFI_State_Get_Args` (same layout).
#[repr(C)]
pub struct StateArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub ctx: *mut ExecutionContext,
    pub stage: i32,
    pub type_id: *mut TypeId,
    pub state: *mut c_void,
}

#[repr(C)]
pub struct StreamGetArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub ctx: *mut ExecutionContext,
    pub stream: *mut c_void,
}

#[repr(C)]
pub struct MemoryAllocateArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub ctx: *mut ExecutionContext,
    pub size: usize,
    pub alignment: usize,
    pub data: *mut c_void,
}

#[repr(C)]
pub struct MemoryFreeArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub ctx: *mut ExecutionContext,
    pub size: usize,
    pub data: *mut c_void,
}

#[repr(C)]
pub struct ScheduleArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub ctx: *mut ExecutionContext,
    pub task: Option<unsafe extern "C" fn(*mut c_void)>,
    pub data: *mut c_void,
}

#[repr(C)]
pub struct NumThreadsArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub ctx: *mut ExecutionContext,
    pub num_threads: *mut i64,
}

#[repr(C)]
pub struct RunIdGetArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub ctx: *mut ExecutionContext,
    pub run_id: i64,
}

#[repr(C)]
pub struct DeviceOrdinalGetArgs {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub ctx: *mut ExecutionContext,
    pub device_ordinal: i32,
}

/// `XLA_FFI_Metadata`: what a handler says about itself when called with
/// the metadata extension.
#[repr(C)]
pub struct Metadata {
    pub struct_size: usize,
    pub api_version: ApiVersion,
    pub traits: u32,
    pub state_type_id: TypeId,
}
pub const METADATA_STRUCT_SIZE: usize = struct_size!(Metadata, traits, u32);

#[repr(C)]
pub struct MetadataExtension {
    pub extension_base: InternalExtension,
    pub metadata: *mut Metadata,
}
pub const METADATA_EXTENSION_STRUCT_SIZE: usize =
    struct_size!(MetadataExtension, metadata, *mut Metadata);

type F<A> = unsafe extern "C" fn(*mut A) -> *mut Error;

/// `XLA_FFI_Api`: the function table every handler calls back through.
#[repr(C)]
pub struct Api {
    pub struct_size: usize,
    pub extension_start: *mut InternalExtension,
    pub api_version: ApiVersion,
    pub internal_api: *const c_void,
    pub error_create: unsafe extern "C" fn(*mut ErrorCreateArgs) -> *mut Error,
    pub error_get_details: unsafe extern "C" fn(*mut ErrorGetDetailsArgs),
    pub error_destroy: unsafe extern "C" fn(*mut ErrorDestroyArgs),
    pub handler_register: F<HandlerRegisterArgs>,
    pub stream_get: F<StreamGetArgs>,
    pub type_register: F<TypeRegisterArgs>,
    pub context_get: F<ContextGetArgs>,
    pub state_set: F<StateArgs>,
    pub state_get: F<StateArgs>,
    pub memory_allocate: F<MemoryAllocateArgs>,
    pub memory_free: F<MemoryFreeArgs>,
    pub thread_pool_schedule: F<ScheduleArgs>,
    pub thread_pool_num_threads: F<NumThreadsArgs>,
    pub future_create: F<FutureCreateArgs>,
    pub future_set_available: F<FutureSetAvailableArgs>,
    pub future_set_error: F<FutureSetErrorArgs>,
    pub run_id_get: F<RunIdGetArgs>,
    pub device_ordinal_get: F<DeviceOrdinalGetArgs>,
    pub find_extension: F<FindExtensionArgs>,
}
pub const API_STRUCT_SIZE: usize = struct_size!(Api, find_extension, F<FindExtensionArgs>);

// SAFETY: the table is immutable and its pointers are to static data.
unsafe impl Sync for Api {}
