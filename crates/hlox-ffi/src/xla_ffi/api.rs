//! hlox's `XLA_FFI_Api`: the function table handlers call back through, the
//! execution context it hands them, and handler registrations made through
//! `XLA_FFI_Handler_Register` (what `XLA_FFI_REGISTER_HANDLER` expands to).
//!
//! `XLA_FFI_GetApi` is exported with C linkage, so a plugin that registers
//! its handlers statically (`XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), ...)`
//! at namespace scope) resolves it from the process that loads it, as it
//! would from jaxlib.

use super::abi::{self, code, Api, ApiVersion, Error, Future, Handler};
use super::call::FfiHandlers;
use crate::platform::Platform;
use std::alloc::Layout;
use std::cell::{Cell, RefCell};
use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The addresses of the errors and futures this API made and has not freed.
/// A handler hands them back as plain pointers; one that is not here did
/// not come from this API (a function of another calling convention bound
/// as a typed-FFI handler returns whatever its return register held), and
/// is reported instead of being read or freed.
struct Live {
    errors: std::collections::HashSet<usize>,
    futures: std::collections::HashSet<usize>,
}

fn live() -> std::sync::MutexGuard<'static, Live> {
    static LIVE: OnceLock<Mutex<Live>> = OnceLock::new();
    LIVE.get_or_init(|| {
        Mutex::new(Live {
            errors: Default::default(),
            futures: Default::default(),
        })
    })
    .lock()
    .unwrap_or_else(|e| e.into_inner())
}

/// Why a pointer `p` a handler returned as `what` is refused: no
/// `XLA_FFI_<made_by>` of this API made it.
fn not_made_here(what: &str, made_by: &str, p: usize) -> String {
    format!(
        "the handler returned {what} {p:#x}, which no XLA_FFI_{made_by} of this API made: \
         is it really an XLA typed-FFI handler (`XLA_FFI_Error* handler(XLA_FFI_CallFrame*)`)? \
         A function of another convention (`void f(void* out, const void** in)`, or the CUDA \
         form) returns garbage here: such a function serves custom calls of api_version 1-3, \
         not a typed-FFI call"
    )
}

/// Allocates an error for a handler or for hlox to return through the API.
pub fn new_error(code: i32, message: impl Into<String>) -> *mut Error {
    let message = message.into().replace('\0', " ");
    let e = Box::into_raw(Box::new(Error {
        message: CString::new(message).unwrap_or_default(),
        code,
    }));
    live().errors.insert(e as usize);
    e
}

/// Takes ownership of an error a handler returned: its code and message.
/// A pointer this API did not make (or already freed) is not touched: the
/// result is an INTERNAL error saying so.
///
/// # Safety
/// `e` is not used afterwards.
pub unsafe fn take_error(e: *mut Error) -> (i32, String) {
    if !live().errors.remove(&(e as usize)) {
        return (
            code::INTERNAL,
            not_made_here("the error pointer", "Error_Create", e as usize),
        );
    }
    let e = unsafe { Box::from_raw(e) };
    (e.code, e.message.to_string_lossy().into_owned())
}

/// The arguments behind an API function's `args` pointer, or a return of
/// the INVALID_ARGUMENT error `<function>: null arguments`.
macro_rules! args_or_return {
    ($args:ident, $what:expr) => {
        match unsafe { $args.as_mut() } {
            Some(a) => a,
            None => return new_error(code::INVALID_ARGUMENT, concat!($what, ": null arguments")),
        }
    };
}

unsafe extern "C" fn error_create(args: *mut abi::ErrorCreateArgs) -> *mut Error {
    let a = args_or_return!(args, "XLA_FFI_Error_Create");
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
        if !a.error.is_null() && live().errors.remove(&(a.error as usize)) {
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
    pub handlers: FfiHandlers,
    pub traits: u32,
}

thread_local! {
    /// Set while [`capture_registrations`] runs: registrations go here.
    static CAPTURE: RefCell<Option<Vec<FfiRegistration>>> = const { RefCell::new(None) };
}

/// Registrations made outside [`capture_registrations`] (code linked into the
/// process, or a library loaded by other means).
static PROCESS: Mutex<Vec<FfiRegistration>> = Mutex::new(Vec::new());

thread_local! {
    /// Set when a type is registered while [`capture_registrations`] runs.
    static CAPTURED_TYPES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// What a library's initialisers registered through `XLA_FFI_GetApi()`.
pub(crate) struct Captured {
    pub handlers: Vec<FfiRegistration>,
    /// Whether it registered a type (whose deleter hlox keeps).
    pub types: bool,
}

/// Runs `f` (a `dlopen`) and returns what it registered.
pub(crate) fn capture_registrations<R>(f: impl FnOnce() -> R) -> (R, Captured) {
    let outer = CAPTURE.with(|c| c.replace(Some(Vec::new())));
    let outer_types = CAPTURED_TYPES.with(|c| c.replace(false));
    let r = f();
    let handlers = CAPTURE.with(|c| c.replace(outer)).unwrap_or_default();
    let types = CAPTURED_TYPES.with(|c| c.replace(outer_types));
    (r, Captured { handlers, types })
}

/// Registrations made through `XLA_FFI_GetApi()` by code already in the
/// process (not by a plugin [`Registry::load_library`](crate::Registry::load_library) loaded).
pub fn process_registrations() -> Vec<FfiRegistration> {
    PROCESS.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

unsafe extern "C" fn handler_register(args: *mut abi::HandlerRegisterArgs) -> *mut Error {
    let a = args_or_return!(args, "XLA_FFI_Handler_Register");
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
    let Some(execute) = b.execute else {
        return new_error(
            code::INVALID_ARGUMENT,
            format!("XLA_FFI_Handler_Register: handler \"{name}\" has no execute stage"),
        );
    };
    let reg = FfiRegistration {
        name,
        platform_name,
        platform,
        handlers: FfiHandlers {
            instantiate: b.instantiate,
            prepare: b.prepare,
            initialize: b.initialize,
            execute,
        },
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

/// A type registered through `XLA_FFI_Type_Register`.
struct TypeEntry {
    name: String,
    id: i64,
    /// From the registration's `XLA_FFI_TypeInfo`: how state of this type is
    /// destroyed when its prepared call is dropped.
    deleter: Deleter,
}

type Deleter = Option<unsafe extern "C" fn(*mut c_void)>;

static TYPES: Mutex<Vec<TypeEntry>> = Mutex::new(Vec::new());

fn type_entry<R>(id: i64, f: impl FnOnce(Option<&TypeEntry>) -> R) -> R {
    let types = TYPES.lock().unwrap_or_else(|e| e.into_inner());
    f(types.iter().find(|t| t.id == id))
}

fn type_name(id: i64) -> String {
    type_entry(id, |t| match t {
        Some(t) => format!("\"{}\" (type id {id})", t.name),
        None => format!("type id {id}"),
    })
}

unsafe extern "C" fn type_register(args: *mut abi::TypeRegisterArgs) -> *mut Error {
    let a = args_or_return!(args, "XLA_FFI_Type_Register");
    let Some(id) = (unsafe { a.type_id.as_mut() }) else {
        return new_error(
            code::INVALID_ARGUMENT,
            "XLA_FFI_Type_Register: null type_id",
        );
    };
    let name = span(&a.name);
    // Read whatever the struct_size says: ffi.h's STRUCT_SIZE for these
    // arguments ends at `type_id` although every caller passes `type_info`
    // (XLA reads it the same way).
    let deleter = unsafe { a.type_info.as_ref() }.and_then(|i| i.deleter);
    let mut types = TYPES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(existing) = types.iter().find(|t| t.name == name) {
        if id.type_id != 0 && id.type_id != existing.id {
            return new_error(
                code::INVALID_ARGUMENT,
                format!(
                    "type \"{name}\" is already registered with id {}",
                    existing.id
                ),
            );
        }
        id.type_id = existing.id;
        return std::ptr::null_mut();
    }
    if id.type_id == 0 {
        id.type_id = NEXT_TYPE_ID.fetch_add(1, Ordering::Relaxed);
    } else if let Some(other) = types.iter().find(|t| t.id == id.type_id) {
        return new_error(
            code::INVALID_ARGUMENT,
            format!(
                "type \"{name}\" asks for id {}, which \"{}\" already has",
                id.type_id, other.name
            ),
        );
    }
    types.push(TypeEntry {
        name,
        id: id.type_id,
        deleter,
    });
    CAPTURED_TYPES.with(|c| c.set(true));
    std::ptr::null_mut()
}

// ---------------------------------------------------------------------------
// Handler state.

/// State one stage of a handler set (`XLA_FFI_State_Set`), destroyed with
/// the type's deleter when its owner is dropped. The instantiate stage's is
/// owned by the prepared call ([`FfiCall`](super::FfiCall)) and handed to
/// every later stage of it (`XLA_FFI_State_Get`); the prepare and
/// initialize stages' are owned by one run ([`RunStages`](super::RunStages)).
#[derive(Default)]
pub struct ExecutionState {
    slot: OnceLock<StateEntry>,
}

struct StateEntry {
    type_id: i64,
    ptr: usize,
    deleter: Deleter,
}

impl Drop for StateEntry {
    fn drop(&mut self) {
        if let Some(d) = self.deleter {
            // SAFETY: the deleter was registered for this type and the state
            // was handed over to hlox by `XLA_FFI_State_Set`.
            unsafe { d(self.ptr as *mut c_void) };
        }
    }
}

impl std::fmt::Debug for ExecutionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.slot.get() {
            Some(e) => write!(f, "ExecutionState({})", type_name(e.type_id)),
            None => f.write_str("ExecutionState(unset)"),
        }
    }
}

// ---------------------------------------------------------------------------
// The execution context.

/// Device memory for `XLA_FFI_DeviceMemory_Allocate` in a GPU call:
/// allocated and freed in the order of the call's stream, so memory freed
/// after the handler returned stays valid for the work it queued.
pub trait DeviceScratch: Send + Sync {
    /// `bytes` bytes of device memory (at least 256-byte aligned), or the
    /// device's error (the handler sees it in its `XLA_FFI_Error`).
    fn alloc(&self, bytes: usize) -> Result<*mut c_void, Box<dyn std::error::Error + Send + Sync>>;
    /// Frees `p` once the work queued on the stream so far is done.
    fn free(&self, p: *mut c_void);
}

/// What `XLA_FFI_ExecutionContext*` points at during one hlox call.
pub struct InvokeContext {
    pub run_id: i64,
    pub device_ordinal: i32,
    /// The platform the call runs for.
    pub platform: Platform,
    /// The platform stream (`CUstream`): null on the Host, and in the CUDA
    /// backend's host emulation.
    pub stream: *mut c_void,
    /// Where scratch memory comes from in a GPU call (`None`: host memory,
    /// as on the Host and in emulation, where buffers are host memory).
    device: Option<std::sync::Arc<dyn DeviceScratch>>,
    /// Scratch allocations not yet freed (address and layout; device ones
    /// have no layout); freed when the context is dropped. A list, not a
    /// map: a call makes a few at most, and an empty `Vec` costs nothing to
    /// make or drop on the per-call path (a `HashMap` seeds its hasher).
    allocations: RefCell<Vec<(usize, Option<Layout>)>>,
    /// How many entries `allocations` has, where compiled code can read it
    /// ([`InvokeContext::scratch_live_offset`]): after a direct call
    /// (`super::direct`) it frees scratch memory only when there is some.
    scratch_live: Cell<usize>,
}

impl InvokeContext {
    /// The process's next run id (each run of an executable takes one).
    pub fn next_run_id() -> i64 {
        static RUN_ID: AtomicI64 = AtomicI64::new(0);
        RUN_ID.fetch_add(1, Ordering::Relaxed)
    }
    /// A Host context with the process's next run id.
    pub fn host_next() -> InvokeContext {
        InvokeContext::host(InvokeContext::next_run_id())
    }
    pub fn host(run_id: i64) -> InvokeContext {
        InvokeContext {
            run_id,
            device_ordinal: 0,
            platform: Platform::Host,
            stream: std::ptr::null_mut(),
            device: None,
            allocations: RefCell::new(Vec::new()),
            scratch_live: Cell::new(0),
        }
    }
    /// A CUDA context with the process's next run id: the call's stream
    /// (null in emulation) and where its scratch memory comes from.
    pub fn cuda_next(
        device_ordinal: i32,
        stream: *mut c_void,
        device: Option<std::sync::Arc<dyn DeviceScratch>>,
    ) -> InvokeContext {
        InvokeContext {
            run_id: InvokeContext::next_run_id(),
            device_ordinal,
            platform: Platform::Cuda,
            stream,
            device,
            allocations: RefCell::new(Vec::new()),
            scratch_live: Cell::new(0),
        }
    }
}

impl InvokeContext {
    /// A context for another stage of the same call: the same run, device,
    /// stream and scratch source, none of this one's allocations.
    pub fn same_device(&self) -> InvokeContext {
        InvokeContext {
            run_id: self.run_id,
            device_ordinal: self.device_ordinal,
            platform: self.platform,
            stream: self.stream,
            device: self.device.clone(),
            allocations: RefCell::new(Vec::new()),
            scratch_live: Cell::new(0),
        }
    }

    /// The byte offset of the number of live scratch allocations (a
    /// `usize`) in an `InvokeContext`, for compiled code.
    pub const fn scratch_live_offset() -> usize {
        std::mem::offset_of!(InvokeContext, scratch_live)
    }

    /// Frees every scratch allocation made so far (the end of a call).
    pub fn release_scratch(&self) {
        let left = std::mem::take(&mut *self.allocations.borrow_mut());
        self.scratch_live.set(0);
        for (p, l) in left {
            self.release(p, l);
        }
    }

    fn add_scratch(&self, p: usize, layout: Option<Layout>) {
        let mut live = self.allocations.borrow_mut();
        live.push((p, layout));
        self.scratch_live.set(live.len());
    }

    /// Frees scratch allocation `p` (`layout`: host memory; `None`: device).
    fn release(&self, p: usize, layout: Option<Layout>) {
        match (layout, &self.device) {
            // SAFETY: allocated by `memory_allocate` with this layout.
            (Some(l), _) => unsafe { std::alloc::dealloc(p as *mut u8, l) },
            (None, Some(d)) => d.free(p as *mut c_void),
            (None, None) => {}
        }
    }
}

impl Drop for InvokeContext {
    fn drop(&mut self) {
        if self.scratch_live.get() > 0 {
            self.release_scratch();
        }
    }
}

/// What a call frame's `ctx` points at: the invocation, the stage being
/// run, the prepared call's (instantiate) state and, in a CUDA run, the
/// states its prepare and initialize stages set in that run.
pub(crate) struct CallContext<'a> {
    pub invoke: &'a InvokeContext,
    pub stage: i32,
    pub state: &'a ExecutionState,
    /// `None` outside a CUDA run (the Host runs neither stage).
    pub run: Option<&'a super::RunStages>,
}

impl std::ops::Deref for CallContext<'_> {
    type Target = InvokeContext;
    fn deref(&self) -> &InvokeContext {
        self.invoke
    }
}

unsafe fn ctx<'a>(p: *mut c_void, what: &str) -> Result<&'a CallContext<'a>, *mut Error> {
    unsafe { (p as *const CallContext).as_ref() }
        .ok_or_else(|| new_error(code::INVALID_ARGUMENT, format!("{what}: null context")))
}

macro_rules! with_ctx {
    ($args:ident, $what:expr, |$a:ident, $c:ident| $body:expr) => {{
        let $a = args_or_return!($args, $what);
        let $c = match unsafe { ctx($a.ctx, $what) } {
            Ok(c) => c,
            Err(e) => return e,
        };
        $body
    }};
}

unsafe extern "C" fn stream_get(args: *mut abi::StreamGetArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_Stream_Get", |a, c| {
        if c.platform == Platform::Host {
            return new_error(
                code::UNIMPLEMENTED,
                "XLA_FFI_Stream_Get: there is no stream on the Host platform (bind a PlatformStream only in CUDA handlers)",
            );
        }
        // Null in the CUDA backend's host emulation.
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

fn stage_name(stage: i32) -> &'static str {
    match stage {
        abi::stage::INSTANTIATE => "instantiate",
        abi::stage::PREPARE => "prepare",
        abi::stage::INITIALIZE => "initialize",
        abi::stage::EXECUTE => "execute",
        _ => "unknown",
    }
}

/// The state slot of `stage` in this call, or why there is none.
fn state_slot<'a>(
    c: &CallContext<'a>,
    stage: i32,
    what: &str,
) -> Result<&'a ExecutionState, *mut Error> {
    let run_stage = |pick: fn(&'a super::RunStages) -> &'a ExecutionState| {
        match c.run {
        Some(run) => Ok(pick(run)),
        None => Err(new_error(
            code::UNIMPLEMENTED,
            format!(
                "{what}: no state for the {} stage: hlox runs the prepare and initialize stages only on CUDA (XLA:CPU does not run them either)",
                stage_name(stage)
            ),
        )),
    }
    };
    match stage {
        abi::stage::INSTANTIATE => Ok(c.state),
        abi::stage::PREPARE => run_stage(|r| &r.prepare),
        abi::stage::INITIALIZE => run_stage(|r| &r.initialize),
        _ => Err(new_error(
            code::INVALID_ARGUMENT,
            format!(
                "{what}: the {} stage has no state (states belong to the instantiate, prepare and initialize stages)",
                stage_name(stage)
            ),
        )),
    }
}

unsafe extern "C" fn state_set(args: *mut abi::StateArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_State_Set", |a, c| {
        if c.stage != a.stage {
            return new_error(
                code::FAILED_PRECONDITION,
                format!(
                    "XLA_FFI_State_Set: the {} stage may set only its own state, not the {} stage's",
                    stage_name(c.stage),
                    stage_name(a.stage)
                ),
            );
        }
        let slot = match state_slot(c, a.stage, "XLA_FFI_State_Set") {
            Ok(s) => s,
            Err(e) => return e,
        };
        let Some(tid) = (unsafe { a.type_id.as_ref() }) else {
            return new_error(code::INVALID_ARGUMENT, "XLA_FFI_State_Set: null type_id");
        };
        let Some(deleter) = type_entry(tid.type_id, |t| t.map(|t| t.deleter)) else {
            return new_error(
                code::INVALID_ARGUMENT,
                format!(
                    "XLA_FFI_State_Set: type id {} is not registered (register the state type with XLA_FFI_REGISTER_TYPE before the handler)",
                    tid.type_id
                ),
            );
        };
        let entry = StateEntry {
            type_id: tid.type_id,
            ptr: a.state as usize,
            deleter,
        };
        if let Err(rejected) = slot.slot.set(entry) {
            // Not ours to destroy: XLA leaves a rejected state to its owner.
            std::mem::forget(rejected);
            return new_error(
                code::FAILED_PRECONDITION,
                "XLA_FFI_State_Set: the state is already set",
            );
        }
        std::ptr::null_mut()
    })
}

unsafe extern "C" fn state_get(args: *mut abi::StateArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_State_Get", |a, c| {
        let slot = match state_slot(c, a.stage, "XLA_FFI_State_Get") {
            Ok(s) => s,
            Err(e) => return e,
        };
        let Some(tid) = (unsafe { a.type_id.as_ref() }) else {
            return new_error(code::INVALID_ARGUMENT, "XLA_FFI_State_Get: null type_id");
        };
        match slot.slot.get() {
            None => new_error(
                code::NOT_FOUND,
                format!(
                    "XLA_FFI_State_Get: no state was set for the {} stage (the handler has no such stage, or it returned no state)",
                    stage_name(a.stage)
                ),
            ),
            Some(e) if e.type_id != tid.type_id => new_error(
                code::INVALID_ARGUMENT,
                format!(
                    "XLA_FFI_State_Get: the state is of {}, not of the requested {}",
                    type_name(e.type_id),
                    type_name(tid.type_id)
                ),
            ),
            Some(e) => {
                a.state = e.ptr as *mut c_void;
                std::ptr::null_mut()
            }
        }
    })
}

unsafe extern "C" fn memory_allocate(args: *mut abi::MemoryAllocateArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_DeviceMemory_Allocate", |a, c| {
        if let Some(d) = &c.device {
            if a.alignment > 256 {
                return new_error(
                    code::INVALID_ARGUMENT,
                    format!(
                        "XLA_FFI_DeviceMemory_Allocate: alignment {} (device allocations are 256-byte aligned)",
                        a.alignment
                    ),
                );
            }
            return match d.alloc(a.size.max(1)) {
                Ok(p) => {
                    c.add_scratch(p as usize, None);
                    a.data = p;
                    std::ptr::null_mut()
                }
                Err(m) => new_error(
                    code::RESOURCE_EXHAUSTED,
                    format!(
                        "XLA_FFI_DeviceMemory_Allocate: cannot allocate {} bytes of device memory: {m}",
                        a.size
                    ),
                ),
            };
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
        c.add_scratch(p as usize, Some(layout));
        a.data = p as *mut c_void;
        std::ptr::null_mut()
    })
}

unsafe extern "C" fn memory_free(args: *mut abi::MemoryFreeArgs) -> *mut Error {
    with_ctx!(args, "XLA_FFI_DeviceMemory_Free", |a, c| {
        let found = {
            let mut live = c.allocations.borrow_mut();
            let at = live.iter().position(|&(p, _)| p == a.data as usize);
            let found = at.map(|i| live.swap_remove(i).1);
            c.scratch_live.set(live.len());
            found
        };
        match found {
            Some(l) => {
                c.release(a.data as usize, l);
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
        let Some(t) = a.task else {
            return new_error(
                code::INVALID_ARGUMENT,
                "XLA_FFI_ThreadPool_Schedule: null task",
            );
        };
        unsafe { t(a.data) };
        std::ptr::null_mut()
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
    let a = args_or_return!(args, "XLA_FFI_Future_Create");
    a.future = Box::into_raw(Box::new(Future {
        state: Mutex::new(None),
        ready: std::sync::Condvar::new(),
        owners: std::sync::atomic::AtomicUsize::new(2),
    }));
    live().futures.insert(a.future as usize);
    std::ptr::null_mut()
}

/// Lets go of one owner's hold on `f`; the last one frees it.
///
/// # Safety
/// `f` came from `XLA_FFI_Future_Create` and the caller holds one of its
/// two holds.
unsafe fn release_future(f: *mut Future) {
    if unsafe { &*f }.owners.fetch_sub(1, Ordering::AcqRel) == 1 {
        live().futures.remove(&(f as usize));
        drop(unsafe { Box::from_raw(f) });
    }
}

/// The error a handler completed its future with (`XLA_FFI_Future_SetError`):
/// the error's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FutureError {
    pub message: String,
}

fn complete(f: *mut Future, r: Result<(), FutureError>) -> *mut Error {
    if f.is_null() {
        return new_error(code::INVALID_ARGUMENT, "XLA_FFI_Future: null future");
    }
    if !live().futures.contains(&(f as usize)) {
        return new_error(
            code::INVALID_ARGUMENT,
            "XLA_FFI_Future: not a future from XLA_FFI_Future_Create (or one already freed)",
        );
    }
    // SAFETY: a live future of this API.
    let fut = unsafe { &*f };
    {
        let mut s = fut.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.is_some() {
            return new_error(
                code::FAILED_PRECONDITION,
                "XLA_FFI_Future: already completed",
            );
        }
        *s = Some(r);
        fut.ready.notify_all();
    }
    // SAFETY: completing is the handler side's last use of the future.
    unsafe { release_future(f) };
    std::ptr::null_mut()
}

unsafe extern "C" fn future_set_available(args: *mut abi::FutureSetAvailableArgs) -> *mut Error {
    let a = args_or_return!(args, "XLA_FFI_Future_SetAvailable");
    complete(a.future, Ok(()))
}

unsafe extern "C" fn future_set_error(args: *mut abi::FutureSetErrorArgs) -> *mut Error {
    let a = args_or_return!(args, "XLA_FFI_Future_SetError");
    let msg = if a.error.is_null() {
        "(no error given)".to_string()
    } else {
        unsafe { take_error(a.error) }.1
    };
    complete(a.future, Err(FutureError { message: msg }))
}

/// Waits for a future a handler returned, then lets go of the runtime's
/// hold on it (it is freed once the handler's side completed it).
///
/// # Safety
/// `f` came from `XLA_FFI_Future_Create`, was returned by a handler, and is
/// waited for once.
pub unsafe fn wait_future(f: *mut Future) -> Result<(), FutureError> {
    if !live().futures.contains(&(f as usize)) {
        return Err(FutureError {
            message: not_made_here("a future", "Future_Create", f as usize),
        });
    }
    let r = {
        let fut = unsafe { &*f };
        let mut s = fut.state.lock().unwrap_or_else(|e| e.into_inner());
        while s.is_none() {
            s = fut.ready.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.clone().unwrap_or(Ok(()))
    };
    unsafe { release_future(f) };
    r
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
