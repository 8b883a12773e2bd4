//! hlox's `XLA_FFI_Api`: the function table handlers call back through, the
//! execution context it hands them, and handler registrations made through
//! `XLA_FFI_Handler_Register` (what `XLA_FFI_REGISTER_HANDLER` expands to).
//!
//! `XLA_FFI_GetApi` is exported with C linkage, so a plugin that registers
//! its handlers statically (`XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), ...)`
//! at namespace scope) resolves it from the process that loads it, as it
//! would from jaxlib.

use super::abi::{self, code, Api, ApiVersion, Error, Future, Handler};
use crate::platform::Platform;
use std::alloc::Layout;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;

/// Allocates an error for a handler or for hlox to return through the API.
pub fn new_error(code: i32, message: impl Into<String>) -> *mut Error {
    let message = message.into().replace('\0', " ");
    Box::into_raw(Box::new(Error {
        message: CString::new(message).unwrap_or_default(),
        code,
    }))
}

/// Takes ownership of an error a handler returned: its code and message.
///
/// # Safety
/// `e` came from this API's `XLA_FFI_Error_Create` (or [`new_error`]) and is
/// not used afterwards.
pub unsafe fn take_error(e: *mut Error) -> (i32, String) {
    let e = unsafe { Box::from_raw(e) };
    (e.code, e.message.to_string_lossy().into_owned())
}

unsafe extern "C" fn error_create(args: *mut abi::ErrorCreateArgs) -> *mut Error {
    let Some(a) = (unsafe { args.as_ref() }) else {
        return new_error(
            code::INVALID_ARGUMENT,
            "XLA_FFI_Error_Create: null arguments",
        );
    };
    let msg = if a.message.is_null() {
        String::new()
    } else {
        unsafe { CStr::from_ptr(a.message) }
            .to_string_lossy()
            .into_owned()
    };
    new_error(a.errc, msg)
}

/// `XLA_FFI_Error_GetDetails` (API 0.4), which is also API 0.3's
/// `XLA_FFI_Error_GetMessage`: the same arguments without `errc`, told apart
/// by `struct_size`.
unsafe extern "C" fn error_get_details(args: *mut abi::ErrorGetDetailsArgs) {
    if args.is_null() {
        return;
    }
    let size = unsafe { (*args).struct_size };
    let e = unsafe { (*args).error };
    if let Some(e) = unsafe { e.as_ref() } {
        unsafe { (*args).message = e.message.as_ptr() };
        if size >= abi::struct_size!(abi::ErrorGetDetailsArgs, errc, i32) {
            unsafe { (*args).errc = e.code };
        }
    }
}

unsafe extern "C" fn error_destroy(args: *mut abi::ErrorDestroyArgs) {
    if let Some(a) = unsafe { args.as_ref() } {
        if !a.error.is_null() {
            drop(unsafe { Box::from_raw(a.error) });
        }
    }
}

fn span(s: &abi::ByteSpan) -> String {
    if s.ptr.is_null() {
        return String::new();
    }
    let bytes = unsafe { std::slice::from_raw_parts(s.ptr as *const u8, s.len) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// A handler registered through `XLA_FFI_Handler_Register`.
#[derive(Clone, Debug)]
pub struct FfiRegistration {
    pub name: String,
    /// The platform as the handler named it.
    pub platform_name: String,
    pub platform: Option<Platform>,
    pub execute: Option<Handler>,
    /// Stages other than execute the bundle has (hlox runs only execute).
    pub other_stages: Vec<&'static str>,
    pub traits: u32,
}

thread_local! {
    /// Set while [`capture_registrations`] runs: registrations go here.
    static CAPTURE: RefCell<Option<Vec<FfiRegistration>>> = const { RefCell::new(None) };
}

/// Registrations made outside [`capture_registrations`] (code linked into the
/// process, or a library loaded by other means).
static PROCESS: Mutex<Vec<FfiRegistration>> = Mutex::new(Vec::new());

/// Runs `f` (a `dlopen`) and returns the handler registrations it made.
pub(crate) fn capture_registrations<R>(f: impl FnOnce() -> R) -> (R, Vec<FfiRegistration>) {
    let outer = CAPTURE.with(|c| c.replace(Some(Vec::new())));
    let r = f();
    let got = CAPTURE.with(|c| c.replace(outer)).unwrap_or_default();
    (r, got)
}

/// Registrations made through `XLA_FFI_GetApi()` by code already in the
/// process (not by a plugin [`Registry::load_library`](crate::Registry::load_library) loaded).
pub fn process_registrations() -> Vec<FfiRegistration> {
    PROCESS.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

unsafe extern "C" fn handler_register(args: *mut abi::HandlerRegisterArgs) -> *mut Error {
    let Some(a) = (unsafe { args.as_ref() }) else {
        return new_error(
            code::INVALID_ARGUMENT,
            "XLA_FFI_Handler_Register: null arguments",
        );
    };
    let name = span(&a.name);
    let platform_name = span(&a.platform);
    // API 0.3's bundle has no `record` stage, so `traits` sits where 0.4's
    // `record` begins: tell them apart by struct_size.
    let v3_size = std::mem::offset_of!(abi::HandlerRegisterArgs, bundle)
        + 4 * std::mem::size_of::<Option<Handler>>()
        + std::mem::size_of::<u32>();
    let traits = if a.struct_size == v3_size {
        unsafe {
            std::ptr::read_unaligned((args as *const u8).add(
                std::mem::offset_of!(abi::HandlerRegisterArgs, bundle)
                    + 4 * std::mem::size_of::<Option<Handler>>(),
            ) as *const u32)
        }
    } else {
        a.traits
    };
    let platform =
        Platform::parse(&platform_name).or_else(|| Platform::parse(&platform_name.to_lowercase()));
    let b = &a.bundle;
    let mut other_stages = Vec::new();
    for (h, n) in [
        (b.instantiate, "instantiate"),
        (b.prepare, "prepare"),
        (b.initialize, "initialize"),
    ] {
        if h.is_some() {
            other_stages.push(n);
        }
    }
    if b.execute.is_none() {
        return new_error(
            code::INVALID_ARGUMENT,
            format!("XLA_FFI_Handler_Register: handler \"{name}\" has no execute stage"),
        );
    }
    let reg = FfiRegistration {
        name,
        platform_name,
        platform,
        execute: b.execute,
        other_stages,
        traits,
    };
    let captured = CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some(v) => {
            v.push(reg.clone());
            true
        }
        None => false,
    });
    if !captured {
        PROCESS.lock().unwrap_or_else(|e| e.into_inner()).push(reg);
    }
    std::ptr::null_mut()
}

// ---------------------------------------------------------------------------
// Type ids (user types for state and context).

static NEXT_TYPE_ID: AtomicI64 = AtomicI64::new(1);
static TYPE_IDS: Mutex<Vec<(String, i64)>> = Mutex::new(Vec::new());

unsafe extern "C" fn type_register(args: *mut abi::TypeRegisterArgs) -> *mut Error {
    let Some(a) = (unsafe { args.as_ref() }) else {
        return new_error(
            code::INVALID_ARGUMENT,
            "XLA_FFI_Type_Register: null arguments",
        );
    };
    let Some(id) = (unsafe { a.type_id.as_mut() }) else {
        return new_error(
            code::INVALID_ARGUMENT,
            "XLA_FFI_Type_Register: null type_id",
        );
    };
    let name = span(&a.name);
    let mut ids = TYPE_IDS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, existing)) = ids.iter().find(|(n, _)| *n == name) {
        if id.type_id != 0 && id.type_id != *existing {
            return new_error(
                code::INVALID_ARGUMENT,
                format!("type \"{name}\" is already registered with id {existing}"),
            );
        }
        id.type_id = *existing;
        return std::ptr::null_mut();
    }
    if id.type_id == 0 {
        id.type_id = NEXT_TYPE_ID.fetch_add(1, Ordering::Relaxed);
    }
    ids.push((name, id.type_id));
    std::ptr::null_mut()
}

// ---------------------------------------------------------------------------
// The execution context.

/// What `XLA_FFI_ExecutionContext*` points at during one hlox call.
pub struct InvokeContext {
    pub run_id: i64,
    pub device_ordinal: i32,
    /// The platform stream (`CUstream`), null on the Host.
    pub stream: *mut c_void,
    /// Scratch allocations not yet freed (address -> layout); freed when the
    /// context is dropped.
    allocations: RefCell<HashMap<usize, Layout>>,
}

impl InvokeContext {
    /// A Host context with the process's next run id.
    pub fn host_next() -> InvokeContext {
        static RUN_ID: AtomicI64 = AtomicI64::new(0);
        InvokeContext::host(RUN_ID.fetch_add(1, Ordering::Relaxed))
    }
    pub fn host(run_id: i64) -> InvokeContext {
        InvokeContext {
            run_id,
            device_ordinal: 0,
            stream: std::ptr::null_mut(),
            allocations: RefCell::new(HashMap::new()),
        }
    }
}

impl Drop for InvokeContext {
    fn drop(&mut self) {
        for (p, l) in self.allocations.get_mut().drain() {
            unsafe { std::alloc::dealloc(p as *mut u8, l) };
        }
    }
}

unsafe fn ctx<'a>(p: *mut c_void, what: &str) -> Result<&'a InvokeContext, *mut Error> {
    unsafe { (p as *const InvokeContext).as_ref() }
        .ok_or_else(|| new_error(code::INVALID_ARGUMENT, format!("{what}: null context")))
}

macro_rules! with_ctx {
    ($args:ident, $what:expr, |$a:ident, $c:ident| $body:expr) => {{
        let Some($a) = (unsafe { $args.as_mut() }) else {
            return new_error(code::INVALID_ARGUMENT, concat!($what, ": null arguments"));
        };
        let $c = match unsafe { ctx($a.ctx, $what) } {
            Ok(c) => c,
            Err(e) => return e,
        };
        $body
    }};
}

unsafe extern "C" fn stream_get(args: *mut abi::StreamGetArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_Stream_Get", |a, c| {
        if c.stream.is_null() {
            return new_error(
                code::UNIMPLEMENTED,
                "XLA_FFI_Stream_Get: there is no stream on the Host platform (bind a PlatformStream only in CUDA handlers)",
            );
        }
        a.stream = c.stream;
        std::ptr::null_mut()
    })
}

unsafe extern "C" fn context_get(args: *mut abi::ContextGetArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_ExecutionContext_Get", |_a, _c| {
        new_error(
            code::NOT_FOUND,
            "XLA_FFI_ExecutionContext_Get: hlox passes no user data to handlers",
        )
    })
}

unsafe extern "C" fn state_set(args: *mut abi::StateArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_State_Set", |_a, _c| {
        new_error(
            code::UNIMPLEMENTED,
            "XLA_FFI_State_Set: hlox runs only the execute stage and keeps no handler state",
        )
    })
}

unsafe extern "C" fn state_get(args: *mut abi::StateArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_State_Get", |_a, _c| {
        new_error(
            code::NOT_FOUND,
            "XLA_FFI_State_Get: hlox runs only the execute stage and keeps no handler state",
        )
    })
}

unsafe extern "C" fn memory_allocate(args: *mut abi::MemoryAllocateArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_DeviceMemory_Allocate", |a, c| {
        if !c.stream.is_null() {
            return new_error(
                code::UNIMPLEMENTED,
                "XLA_FFI_DeviceMemory_Allocate: device scratch memory is not available yet",
            );
        }
        let align = a.alignment.max(16);
        let Ok(layout) = Layout::from_size_align(a.size.max(1), align) else {
            return new_error(
                code::INVALID_ARGUMENT,
                format!(
                    "XLA_FFI_DeviceMemory_Allocate: bad size {} or alignment {}",
                    a.size, a.alignment
                ),
            );
        };
        let p = unsafe { std::alloc::alloc(layout) };
        if p.is_null() {
            return new_error(
                code::RESOURCE_EXHAUSTED,
                format!(
                    "XLA_FFI_DeviceMemory_Allocate: cannot allocate {} bytes",
                    a.size
                ),
            );
        }
        c.allocations.borrow_mut().insert(p as usize, layout);
        a.data = p as *mut c_void;
        std::ptr::null_mut()
    })
}

unsafe extern "C" fn memory_free(args: *mut abi::MemoryFreeArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_DeviceMemory_Free", |a, c| {
        match c.allocations.borrow_mut().remove(&(a.data as usize)) {
            Some(l) => {
                unsafe { std::alloc::dealloc(a.data as *mut u8, l) };
                std::ptr::null_mut()
            }
            None => new_error(
                code::INVALID_ARGUMENT,
                "XLA_FFI_DeviceMemory_Free: the pointer was not allocated in this call",
            ),
        }
    })
}

/// The Host "thread pool" runs each task at once on the calling thread: a
/// handler that schedules work and waits for it (directly or through a
/// future) sees it done, in order.
unsafe extern "C" fn thread_pool_schedule(args: *mut abi::ScheduleArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_ThreadPool_Schedule", |a, _c| {
        match a.task {
            Some(t) => {
                unsafe { t(a.data) };
                std::ptr::null_mut()
            }
            None => new_error(
                code::INVALID_ARGUMENT,
                "XLA_FFI_ThreadPool_Schedule: null task",
            ),
        }
    })
}

unsafe extern "C" fn thread_pool_num_threads(args: *mut abi::NumThreadsArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_ThreadPool_NumThreads", |a, _c| {
        if let Some(n) = unsafe { a.num_threads.as_mut() } {
            *n = 1;
        }
        std::ptr::null_mut()
    })
}

unsafe extern "C" fn future_create(args: *mut abi::FutureCreateArgs) -> *mut Error {
    let Some(a) = (unsafe { args.as_mut() }) else {
        return new_error(
            code::INVALID_ARGUMENT,
            "XLA_FFI_Future_Create: null arguments",
        );
    };
    a.future = Box::into_raw(Box::new(Future {
        state: Mutex::new(None),
        ready: std::sync::Condvar::new(),
    }));
    std::ptr::null_mut()
}

fn complete(f: *mut Future, r: Result<(), String>) -> *mut Error {
    let Some(f) = (unsafe { f.as_ref() }) else {
        return new_error(code::INVALID_ARGUMENT, "XLA_FFI_Future: null future");
    };
    let mut s = f.state.lock().unwrap_or_else(|e| e.into_inner());
    if s.is_some() {
        return new_error(
            code::FAILED_PRECONDITION,
            "XLA_FFI_Future: already completed",
        );
    }
    *s = Some(r);
    f.ready.notify_all();
    std::ptr::null_mut()
}

unsafe extern "C" fn future_set_available(args: *mut abi::FutureSetAvailableArgs) -> *mut Error {
    let Some(a) = (unsafe { args.as_ref() }) else {
        return new_error(
            code::INVALID_ARGUMENT,
            "XLA_FFI_Future_SetAvailable: null arguments",
        );
    };
    complete(a.future, Ok(()))
}

unsafe extern "C" fn future_set_error(args: *mut abi::FutureSetErrorArgs) -> *mut Error {
    let Some(a) = (unsafe { args.as_ref() }) else {
        return new_error(
            code::INVALID_ARGUMENT,
            "XLA_FFI_Future_SetError: null arguments",
        );
    };
    let msg = if a.error.is_null() {
        "(no error given)".to_string()
    } else {
        unsafe { take_error(a.error) }.1
    };
    complete(a.future, Err(msg))
}

/// Waits for a future a handler returned. The future itself is not freed:
/// the handler's side may still hold it (a small leak per asynchronous call).
///
/// # Safety
/// `f` came from `XLA_FFI_Future_Create`.
pub unsafe fn wait_future(f: *mut Future) -> Result<(), String> {
    let fut = unsafe { &*f };
    let mut s = fut.state.lock().unwrap_or_else(|e| e.into_inner());
    while s.is_none() {
        s = fut.ready.wait(s).unwrap_or_else(|e| e.into_inner());
    }
    s.take().unwrap_or(Ok(()))
}

unsafe extern "C" fn run_id_get(args: *mut abi::RunIdGetArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_RunId_Get", |a, c| {
        a.run_id = c.run_id;
        std::ptr::null_mut()
    })
}

unsafe extern "C" fn device_ordinal_get(args: *mut abi::DeviceOrdinalGetArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_DeviceOrdinal_Get", |a, c| {
        a.device_ordinal = c.device_ordinal;
        std::ptr::null_mut()
    })
}

unsafe extern "C" fn find_extension(args: *mut abi::FindExtensionArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_InvokeContext_FindExtension", |a, _c| {
        // hlox offers no context extensions: "not found" is a null extension.
        a.extension = std::ptr::null();
        std::ptr::null_mut()
    })
}

static API: Api = Api {
    struct_size: abi::API_STRUCT_SIZE,
    extension_start: std::ptr::null_mut(),
    api_version: ApiVersion {
        struct_size: abi::API_VERSION_STRUCT_SIZE,
        extension_start: std::ptr::null_mut(),
        major_version: abi::API_MAJOR,
        minor_version: abi::API_MINOR,
    },
    internal_api: std::ptr::null(),
    error_create,
    error_get_details,
    error_destroy,
    handler_register,
    stream_get,
    type_register,
    context_get,
    state_set,
    state_get,
    memory_allocate,
    memory_free,
    thread_pool_schedule,
    thread_pool_num_threads,
    future_create,
    future_set_available,
    future_set_error,
    run_id_get,
    device_ordinal_get,
    find_extension,
};

/// hlox's API table.
pub fn api() -> &'static Api {
    &API
}

/// `const XLA_FFI_Api* XLA_FFI_GetApi()`, exported for plugins.
#[no_mangle]
pub extern "C" fn XLA_FFI_GetApi() -> *const Api {
    &API
}

/// Keeps `XLA_FFI_GetApi` in every executable that uses the registry, so
/// the linker's `--export-dynamic-symbol` finds it.
pub(crate) fn keep_api_symbol() {
    std::hint::black_box(XLA_FFI_GetApi as extern "C" fn() -> *const Api);
}
