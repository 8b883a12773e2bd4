//! One typed-FFI custom call, prepared once (its handler, its buffers'
//! types and dimensions, its encoded attributes) and then called with the
//! buffers of each run.
//!
//! Buffers follow XLA: every array leaf of every operand is one argument,
//! in order (a tuple operand contributes its leaves in pre-order); every
//! array leaf of the result is one result. Dimensions are the logical ones;
//! the data is in the buffer's layout, which `CustomCall::buffer_shapes`
//! fixes (row-major unless `operand_layout_constraints` say otherwise).

use super::abi::{self, dtype, Buffer, CallFrame, Handler};
use super::api::{self, take_error, CallContext, ExecutionState, InvokeContext};
use super::attrs::{parse_attrs, EncodedAttrs};
use crate::invoke::BufferCounts;
use crate::registry::{LoadedLibrary, Target};
use crate::target::TargetFn;
use hlox_hlo::CustomCallApiVersion;
use hlox_hlo::{ElementType, Shape};
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// The stages of one typed-FFI handler (`XLA_FFI_Handler_Bundle`).
///
/// hlox runs the stages when XLA does. `instantiate` runs once when a call
/// is prepared (its attributes, and its buffers' types and dimensions with
/// null data); the state it sets is handed to every later stage. On CUDA,
/// `prepare` (no stream) and `initialize` (the run's stream) run at most
/// once per run of the executable, before the call's first `execute` in
/// that run, with that call's buffers; what they set lives for that run
/// ([`RunStages`]). The Host runs `instantiate` and `execute` only, as
/// XLA:CPU does.
#[derive(Copy, Clone, Debug)]
pub struct FfiHandlers {
    pub instantiate: Option<Handler>,
    pub prepare: Option<Handler>,
    pub initialize: Option<Handler>,
    pub execute: Handler,
}

impl FfiHandlers {
    /// A handler with an execute stage only (a symbol made with
    /// `XLA_FFI_DEFINE_HANDLER_SYMBOL`, or a Rust handler).
    pub const fn execute_only(execute: Handler) -> FfiHandlers {
        FfiHandlers {
            instantiate: None,
            prepare: None,
            initialize: None,
            execute,
        }
    }

    /// Names of the stages other than execute.
    pub fn other_stages(&self) -> Vec<&'static str> {
        [
            (self.instantiate, "instantiate"),
            (self.prepare, "prepare"),
            (self.initialize, "initialize"),
        ]
        .into_iter()
        .filter(|(h, _)| h.is_some())
        .map(|(_, n)| n)
        .collect()
    }
}

/// The FFI data type of an hlox element type.
pub fn ffi_dtype(t: ElementType) -> i32 {
    use ElementType::*;
    match t {
        Pred => dtype::PRED,
        S8 => dtype::S8,
        S16 => dtype::S16,
        S32 => dtype::S32,
        S64 => dtype::S64,
        U8 => dtype::U8,
        U16 => dtype::U16,
        U32 => dtype::U32,
        U64 => dtype::U64,
        F16 => dtype::F16,
        Bf16 => dtype::BF16,
        F32 => dtype::F32,
        F64 => dtype::F64,
        C64 => dtype::C64,
        C128 => dtype::C128,
    }
}

#[derive(Debug, Clone)]
struct BufferDesc {
    dtype: i32,
    dims: Vec<i64>,
}

/// The prepare and initialize stages of one typed-FFI call within one run
/// of a CUDA executable: whether each has run, and the state each set.
/// XLA keeps these per execution; dropping this destroys both states.
#[derive(Default, Debug)]
pub struct RunStages {
    prepared: bool,
    initialized: bool,
    pub(crate) prepare: ExecutionState,
    pub(crate) initialize: ExecutionState,
}

/// A prepared typed-FFI call.
///
/// Everything in its call frame but the buffers' data pointers is built
/// here, once: the encoded attributes, and the `XLA_FFI_Buffer`s (type,
/// rank, dimensions) of every argument and result ([`FrameTemplate`]). A
/// call copies the buffer templates into arrays on its stack (no heap
/// allocation for up to [`INLINE_BUFFERS`] arguments and results), writes
/// the data pointers and calls the handler.
#[derive(Debug)]
pub struct FfiCall {
    handlers: FfiHandlers,
    args: Vec<BufferDesc>,
    rets: Vec<BufferDesc>,
    template: FrameTemplate,
    attrs: EncodedAttrs,
    /// What the instantiate stage set; dropped (its type's deleter run)
    /// before the library that defined the deleter can be unloaded.
    state: ExecutionState,
    _library: Option<Arc<LoadedLibrary>>,
}

/// The buffer descriptions of `shape`'s leaves, in pre-order. Layouts are
/// not described (XLA's buffers carry dimensions only): the data is in the
/// leaf's layout.
fn leaves(shape: &Shape, out: &mut Vec<BufferDesc>) {
    for (_, leaf) in shape.leaves() {
        match leaf {
            Shape::Array(a) => {
                out.push(BufferDesc {
                    dtype: ffi_dtype(a.ty),
                    dims: a.dims.clone(),
                });
            }
            Shape::Token => out.push(BufferDesc {
                dtype: dtype::TOKEN,
                dims: Vec::new(),
            }),
            Shape::Tuple(_) => {}
        }
    }
}

impl FfiCall {
    /// Prepares a call of `target` (a typed-FFI handler) for a custom call
    /// with these operand and result shapes and this `backend_config`, and
    /// runs the handler's instantiate stage if it has one (as XLA does when
    /// it creates the call's thunk).
    pub fn new(
        target: &Target,
        backend_config: &[u8],
        operand_shapes: &[&Shape],
        result_shape: &Shape,
    ) -> Result<FfiCall, FfiCallError> {
        let func = target
            .func
            .for_call(target.platform, CustomCallApiVersion::TypedFfi);
        let Some(TargetFn::Ffi(handlers)) = func else {
            return Err(FfiCallError::NotAHandler);
        };
        let attrs = parse_attrs(backend_config)?;
        let mut args = Vec::new();
        for s in operand_shapes {
            leaves(s, &mut args);
        }
        let mut rets = Vec::new();
        leaves(result_shape, &mut rets);
        // The template points into `args`' and `rets`' dimension vectors,
        // whose heap storage does not move with them.
        let template = FrameTemplate::new(&args, &rets);
        let call = FfiCall {
            handlers,
            args,
            rets,
            template,
            attrs: EncodedAttrs::new(&attrs),
            state: ExecutionState::default(),
            _library: target.library().cloned(),
        };
        if let Some(instantiate) = handlers.instantiate {
            call.instantiate(instantiate, target.platform)
                .map_err(|e| FfiCallError::stage("instantiate", e))?;
        }
        Ok(call)
    }

    /// Runs the instantiate stage: the attributes, and the buffers' types
    /// and dimensions with null data (as XLA's call frame prototype).
    fn instantiate(&self, handler: Handler, platform: crate::Platform) -> Result<(), FfiCallError> {
        let mut invoke = InvokeContext::host(0);
        invoke.platform = platform;
        let nulls = vec![std::ptr::null_mut(); self.args.len().max(self.rets.len())];
        // SAFETY: the lists live for the closure; no data pointer is valid,
        // as the instantiate stage expects.
        unsafe {
            self.template.with_lists(
                &nulls[..self.args.len()],
                &nulls[..self.rets.len()],
                |lists| {
                    self.run_stage(handler, abi::stage::INSTANTIATE, &invoke, lists, None, None)
                },
            )
        }
    }

    /// Whether the handler has a prepare or an initialize stage (which a
    /// CUDA run must give a [`RunStages`]).
    pub fn has_run_stages(&self) -> bool {
        self.handlers.prepare.is_some() || self.handlers.initialize.is_some()
    }

    /// Calls `handler` for `stage` with these arguments and results, this
    /// call's attributes and state, in the context `invoke`. The call frame
    /// is built in place here, its lists from `lists`' pointers (passing
    /// `XLA_FFI_Args` structs by value cost a store-forwarding stall per
    /// field on every call: issue 26's custom-call cost).
    ///
    /// # Safety
    /// `lists` point to buffer descriptions valid for the call.
    unsafe fn run_stage(
        &self,
        handler: Handler,
        stage: i32,
        invoke: &InvokeContext,
        lists: Lists,
        run: Option<&RunStages>,
        via: Option<&mut Invoker<'_>>,
    ) -> Result<(), FfiCallError> {
        let cx = CallContext {
            invoke,
            stage,
            state: &self.state,
            run,
        };
        let mut frame = CallFrame {
            struct_size: abi::CALL_FRAME_STRUCT_SIZE,
            extension_start: std::ptr::null_mut(),
            api: api::api(),
            ctx: &cx as *const CallContext as *mut c_void,
            stage,
            args: self.template.list(lists.args, lists.arg_ptrs),
            rets: self.template.list(lists.rets, lists.ret_ptrs),
            attrs: self.attrs.frame_attrs(),
            future: std::ptr::null_mut(),
        };
        let err = match via {
            // SAFETY: the frame and what it points to outlive the call.
            None => unsafe { handler(&mut frame) },
            Some(f) => f(handler, &mut frame),
        };
        // SAFETY: `err` is what the handler returned for this frame.
        unsafe { finish(err, &frame) }
    }

    /// The buffer descriptions of the arguments and results, data null.
    pub(crate) fn buffer_templates(&self) -> (&[Buffer], &[Buffer]) {
        (&self.template.args, &self.template.rets)
    }
    /// The lists' type array (`XLA_FFI_ArgType_BUFFER` for every entry).
    pub(crate) fn list_types(&self) -> *mut i32 {
        self.template.types.as_ptr() as *mut i32
    }
    pub(crate) fn frame_attrs(&self) -> abi::Attrs {
        self.attrs.frame_attrs()
    }
    /// Where this call's instantiate-stage state lives (its address is
    /// fixed for the call's life).
    pub(crate) fn state_address(&self) -> *const ExecutionState {
        &self.state
    }
    pub(crate) fn execute_handler(&self) -> Handler {
        self.handlers.execute
    }

    /// Number of argument buffers (operand leaves).
    pub fn arg_count(&self) -> usize {
        self.args.len()
    }
    /// Number of result buffers (result leaves).
    pub fn ret_count(&self) -> usize {
        self.rets.len()
    }

    /// Calls the handler's execute stage on `buffers`: operand leaves then
    /// result leaves, as the CUDA convention orders them (a token leaf's
    /// entry is passed on as the token's data). With `run` (a CUDA run),
    /// the prepare and initialize stages run first if this run has not run
    /// them yet; prepare gets no stream.
    ///
    /// # Safety
    /// As [`FfiCall::call`].
    pub unsafe fn call_buffers(
        &self,
        buffers: &[*mut c_void],
        ctx: &InvokeContext,
        run: Option<&mut RunStages>,
    ) -> Result<(), FfiCallError> {
        if buffers.len() != self.args.len() + self.rets.len() {
            return Err(FfiCallError::BufferCount {
                given: buffers.len(),
                args: self.args.len(),
                rets: self.rets.len(),
            });
        }
        let (args, rets) = buffers.split_at(self.args.len());
        unsafe { self.call_in_via(args, rets, ctx, run, None) }
    }

    /// Calls the handler's execute stage on these buffers (on the Host: no
    /// prepare or initialize stage runs).
    ///
    /// # Safety
    /// `args[i]` and `rets[i]` point to buffers of the prepared types and
    /// dimensions (row-major), valid for the call; results are writable.
    pub unsafe fn call(
        &self,
        args: &[*mut c_void],
        rets: &[*mut c_void],
        ctx: &InvokeContext,
    ) -> Result<(), FfiCallError> {
        unsafe { self.call_in_via(args, rets, ctx, None, None) }
    }

    /// # Safety
    /// As [`FfiCall::call`].
    unsafe fn call_in_via(
        &self,
        args: &[*mut c_void],
        rets: &[*mut c_void],
        ctx: &InvokeContext,
        run: Option<&mut RunStages>,
        invoke: Option<&mut Invoker<'_>>,
    ) -> Result<(), FfiCallError> {
        BufferCounts::check((args.len(), rets.len()), (self.args.len(), self.rets.len()))?;
        // SAFETY: the lists (and the buffers) outlive every stage's call.
        unsafe {
            self.template
                .with_lists(args, rets, |lists| self.run_stages(lists, ctx, run, invoke))
        }
    }

    /// The prepare and initialize stages (a CUDA run's first call), then
    /// the execute stage, on these buffer lists.
    ///
    /// # Safety
    /// `lists` describe the call's buffers and are valid for it.
    unsafe fn run_stages(
        &self,
        lists: Lists,
        ctx: &InvokeContext,
        run: Option<&mut RunStages>,
        invoke: Option<&mut Invoker<'_>>,
    ) -> Result<(), FfiCallError> {
        let run: Option<&RunStages> = match run {
            None => None,
            Some(run) => {
                if let (Some(h), false) = (self.handlers.prepare, run.prepared) {
                    run.prepared = true;
                    // XLA's prepare stage has no stream (and no user data).
                    let mut no_stream = ctx.same_device();
                    no_stream.stream = std::ptr::null_mut();
                    // SAFETY: the lists (and the buffers) outlive the call.
                    unsafe {
                        self.run_stage(h, abi::stage::PREPARE, &no_stream, lists, Some(&*run), None)
                    }
                    .map_err(|e| FfiCallError::stage("prepare", e))?;
                }
                if let (Some(h), false) = (self.handlers.initialize, run.initialized) {
                    run.initialized = true;
                    // SAFETY: as above.
                    unsafe {
                        self.run_stage(h, abi::stage::INITIALIZE, ctx, lists, Some(&*run), None)
                    }
                    .map_err(|e| FfiCallError::stage("initialize", e))?;
                }
                Some(&*run)
            }
        };
        // SAFETY: the lists (and the buffers) outlive the call.
        unsafe {
            self.run_stage(
                self.handlers.execute,
                abi::stage::EXECUTE,
                ctx,
                lists,
                run,
                invoke,
            )
        }
    }

    /// [`FfiCall::call`], with the handler's execute stage called through
    /// `invoke` (given the handler and its call frame, it returns what the
    /// handler returned): the custom-call sandbox calls it from its shim.
    ///
    /// # Safety
    /// As [`FfiCall::call`]; `invoke` calls the handler on that frame (or
    /// returns an error it made with the API's `XLA_FFI_Error_Create`).
    pub unsafe fn call_via(
        &self,
        args: &[*mut c_void],
        rets: &[*mut c_void],
        ctx: &InvokeContext,
        invoke: &mut Invoker<'_>,
    ) -> Result<(), FfiCallError> {
        unsafe { self.call_in_via(args, rets, ctx, None, Some(invoke)) }
    }
}

/// Calls a handler on a call frame (see [`FfiCall::call_via`]).
pub type Invoker<'a> = dyn FnMut(Handler, *mut CallFrame) -> *mut abi::Error + 'a;

/// Arguments and results a call keeps on its stack; a call with more
/// builds its lists on the heap.
pub const INLINE_BUFFERS: usize = 8;

/// The static part of one call's buffer lists, built when the call is
/// prepared: one `XLA_FFI_Buffer` per argument and result with its type,
/// rank and dimensions (pointing into the call's [`BufferDesc`]s) and a
/// null data pointer, and the lists' type arrays (every entry a buffer).
struct FrameTemplate {
    args: Box<[Buffer]>,
    rets: Box<[Buffer]>,
    /// `XLA_FFI_ArgType_BUFFER` for every entry of either list (handlers
    /// only read it).
    types: Box<[i32]>,
}

impl std::fmt::Debug for FrameTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameTemplate")
            .field("args", &self.args.len())
            .field("rets", &self.rets.len())
            .finish()
    }
}

// SAFETY: the template's pointers point into the dimension vectors of the
// `FfiCall` that owns it (never written after it is prepared) and into its
// own `types`; a call only reads the template.
unsafe impl Send for FrameTemplate {}
unsafe impl Sync for FrameTemplate {}

fn buffer(d: &BufferDesc, data: *mut c_void) -> Buffer {
    Buffer {
        struct_size: abi::BUFFER_STRUCT_SIZE,
        extension_start: std::ptr::null_mut(),
        dtype: d.dtype,
        data,
        rank: d.dims.len() as i64,
        dims: d.dims.as_ptr() as *mut i64,
    }
}

/// A copy of template buffer `t` with data pointer `data`.
fn patched(t: &Buffer, data: *mut c_void) -> Buffer {
    Buffer {
        struct_size: t.struct_size,
        extension_start: t.extension_start,
        dtype: t.dtype,
        data,
        rank: t.rank,
        dims: t.dims,
    }
}

impl FrameTemplate {
    fn new(args: &[BufferDesc], rets: &[BufferDesc]) -> FrameTemplate {
        let null = std::ptr::null_mut();
        FrameTemplate {
            args: args.iter().map(|d| buffer(d, null)).collect(),
            rets: rets.iter().map(|d| buffer(d, null)).collect(),
            types: vec![abi::ARG_BUFFER; args.len().max(rets.len())].into_boxed_slice(),
        }
    }

    /// A call frame's `args` or `rets` over `n` entries at `ptrs`.
    #[inline]
    fn list(&self, n: usize, ptrs: *mut *mut c_void) -> abi::Args {
        abi::Args {
            struct_size: abi::ARGS_STRUCT_SIZE,
            extension_start: std::ptr::null_mut(),
            size: n as i64,
            // Read only by handlers (the C type is not const).
            types: self.types.as_ptr() as *mut i32,
            args: ptrs,
        }
    }

    /// Calls `f` with the argument and result lists of buffers at `args`
    /// and `rets` (one pointer per template buffer), valid during `f`:
    /// on this function's stack for up to [`INLINE_BUFFERS`] of each, on
    /// the heap otherwise.
    ///
    /// # Safety
    /// `args.len()` and `rets.len()` are the template's counts.
    unsafe fn with_lists<R>(
        &self,
        args: &[*mut c_void],
        rets: &[*mut c_void],
        f: impl FnOnce(Lists) -> R,
    ) -> R {
        debug_assert!(args.len() == self.args.len() && rets.len() == self.rets.len());
        if args.len() <= INLINE_BUFFERS && rets.len() <= INLINE_BUFFERS {
            let mut ab = [const { MaybeUninit::<Buffer>::uninit() }; INLINE_BUFFERS];
            let mut rb = [const { MaybeUninit::<Buffer>::uninit() }; INLINE_BUFFERS];
            let mut ap = [std::ptr::null_mut::<c_void>(); INLINE_BUFFERS];
            let mut rp = [std::ptr::null_mut::<c_void>(); INLINE_BUFFERS];
            for (i, (t, &d)) in self.args.iter().zip(args).enumerate() {
                ap[i] = ab[i].write(patched(t, d)) as *mut Buffer as *mut c_void;
            }
            for (i, (t, &d)) in self.rets.iter().zip(rets).enumerate() {
                rp[i] = rb[i].write(patched(t, d)) as *mut Buffer as *mut c_void;
            }
            f(Lists {
                args: args.len(),
                arg_ptrs: ap.as_mut_ptr(),
                rets: rets.len(),
                ret_ptrs: rp.as_mut_ptr(),
            })
        } else {
            let fill = |tmpl: &[Buffer], data: &[*mut c_void]| -> Box<[Buffer]> {
                tmpl.iter().zip(data).map(|(t, &d)| patched(t, d)).collect()
            };
            let (mut ab, mut rb) = (fill(&self.args, args), fill(&self.rets, rets));
            let ptrs = |b: &mut [Buffer]| -> Vec<*mut c_void> {
                b.iter_mut()
                    .map(|b| b as *mut Buffer as *mut c_void)
                    .collect()
            };
            let (mut ap, mut rp) = (ptrs(&mut ab), ptrs(&mut rb));
            f(Lists {
                args: ap.len(),
                arg_ptrs: ap.as_mut_ptr(),
                rets: rp.len(),
                ret_ptrs: rp.as_mut_ptr(),
            })
        }
    }
}

/// One call's buffer lists: the counts and the arrays of `XLA_FFI_Buffer`
/// pointers, which every stage of the call shares (each stage's frame
/// makes its `XLA_FFI_Args` from them).
#[derive(Clone, Copy)]
struct Lists {
    args: usize,
    arg_ptrs: *mut *mut c_void,
    rets: usize,
    ret_ptrs: *mut *mut c_void,
}

/// A handler's outcome: its error, or the future it returned, waited for.
///
/// # Safety
/// `err` and `frame.future` come from the handler that was just called.
unsafe fn finish(err: *mut abi::Error, frame: &CallFrame) -> Result<(), FfiCallError> {
    unsafe { finish_parts(err, frame.future) }
}

/// [`finish`] given the error and the frame's future.
///
/// # Safety
/// As [`finish`].
pub(crate) unsafe fn finish_parts(
    err: *mut abi::Error,
    future: *mut abi::Future,
) -> Result<(), FfiCallError> {
    if !err.is_null() {
        let (code, message) = unsafe { take_error(err) };
        return Err(FfiCallError::Handler { code, message });
    }
    if !future.is_null() {
        unsafe { api::wait_future(future) }?;
    }
    Ok(())
}

fn empty_args() -> abi::Args {
    abi::Args {
        struct_size: abi::ARGS_STRUCT_SIZE,
        extension_start: std::ptr::null_mut(),
        size: 0,
        types: std::ptr::null_mut(),
        args: std::ptr::null_mut(),
    }
}

/// `CODE: message`, as absl prints a status (just the message for UNKNOWN).
pub fn status_text(code: i32, message: &str) -> String {
    if code == abi::code::UNKNOWN {
        message.to_string()
    } else {
        format!("{}: {message}", abi::code::name(code))
    }
}

/// Why a typed-FFI call could not be prepared or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FfiCallError {
    #[error("the target is not a typed-FFI handler")]
    NotAHandler,
    /// The `backend_config` dictionary does not parse.
    #[error(transparent)]
    Attributes(#[from] super::AttrError),
    /// The handler's instantiate stage (when the call is prepared), or
    /// its prepare or initialize stage (before a CUDA run's first execute),
    /// failed.
    #[error("its {stage} stage failed: {source}")]
    Stage {
        stage: &'static str,
        source: Box<FfiCallError>,
    },
    #[error(
        "internal: {given} buffers for a call prepared with {args} arguments and {rets} results"
    )]
    BufferCount {
        given: usize,
        args: usize,
        rets: usize,
    },
    /// The argument and result lists do not match the prepared call.
    #[error(transparent)]
    BufferLists(#[from] BufferCounts),
    /// The handler returned an error (`code` is its `XLA_FFI_Error_Code`).
    #[error("{}", status_text(*.code, .message))]
    Handler { code: i32, message: String },
    /// The handler's future completed with an error.
    #[error(transparent)]
    Future(#[from] super::api::FutureError),
}

impl FfiCallError {
    fn stage(stage: &'static str, e: FfiCallError) -> Self {
        FfiCallError::Stage {
            stage,
            source: Box::new(e),
        }
    }
}

/// Why a handler's metadata query (XLA asks it at registration) failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    #[error("the handler failed its metadata query: {}", status_text(*.code, .message))]
    Failed { code: i32, message: String },
    #[error("the handler did not answer its metadata query (is it an XLA FFI handler, built with xla/ffi/api/ffi.h?)")]
    NoAnswer,
    #[error(
        "the handler was built for XLA FFI API {major}.{minor}; hlox implements {}.{} (rebuild it against headers of that version or older)",
        abi::API_MAJOR,
        abi::API_MINOR
    )]
    Version { major: i32, minor: i32 },
    /// Calling it for the query faulted or threw (caught by the sandbox's
    /// shim): a plain function, not a handler.
    #[error("calling it for XLA's metadata query crashed ({message}): is it an XLA FFI handler, built with xla/ffi/api/ffi.h?")]
    Crashed { message: String },
}

/// What a handler says about itself (XLA asks every handler at registration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandlerMetadata {
    pub api_major: i32,
    pub api_minor: i32,
    /// `XLA_FFI_Handler_Traits` bits.
    pub traits: u32,
}

/// Calls `handler` with the metadata extension and checks its API version
/// against hlox's.
pub fn handler_metadata(handler: Handler) -> Result<HandlerMetadata, MetadataError> {
    /// The query's structures, kept together in one guarded mapping.
    #[repr(C)]
    struct Query {
        frame: CallFrame,
        ext: abi::MetadataExtension,
        md: abi::Metadata,
    }
    // hlox asks a symbol found by name before it knows it is a handler, as
    // XLA does; a plain C function called this way would read and write
    // through its argument registers. So the query lives against a guard
    // page and the call goes through the sandbox's shim: a crash is an
    // error naming the symbol's problem, not the end of the process.
    let init = |q: *mut Query| {
        // SAFETY: `q` points to writable, suitably aligned memory for a Query.
        unsafe {
            let md = std::ptr::addr_of_mut!((*q).md);
            md.write(abi::Metadata {
                struct_size: abi::METADATA_STRUCT_SIZE,
                api_version: abi::ApiVersion {
                    struct_size: abi::API_VERSION_STRUCT_SIZE,
                    extension_start: std::ptr::null_mut(),
                    major_version: -1,
                    minor_version: -1,
                },
                traits: 0,
                state_type_id: abi::TypeId { type_id: 0 },
            });
            let ext = std::ptr::addr_of_mut!((*q).ext);
            ext.write(abi::MetadataExtension {
                extension_base: abi::InternalExtension {
                    struct_size: abi::METADATA_EXTENSION_STRUCT_SIZE,
                    ty: abi::EXTENSION_METADATA,
                    next: std::ptr::null_mut(),
                },
                metadata: md,
            });
            std::ptr::addr_of_mut!((*q).frame).write(CallFrame {
                struct_size: abi::CALL_FRAME_STRUCT_SIZE,
                extension_start: std::ptr::addr_of_mut!((*ext).extension_base),
                api: api::api(),
                ctx: std::ptr::null_mut(),
                stage: abi::stage::EXECUTE,
                args: empty_args(),
                rets: empty_args(),
                attrs: abi::Attrs {
                    struct_size: abi::ATTRS_STRUCT_SIZE,
                    extension_start: std::ptr::null_mut(),
                    size: 0,
                    types: std::ptr::null_mut(),
                    names: std::ptr::null_mut(),
                    attrs: std::ptr::null_mut(),
                },
                future: std::ptr::null_mut(),
            });
        }
    };
    // SAFETY: `init` builds the frame, pointing only into the Query.
    let (err, md) = unsafe {
        crate::sandbox::call_isolated(handler, init, |q: *const Query, err| {
            (err, std::ptr::read(std::ptr::addr_of!((*q).md)))
        })
    }
    .map_err(|e| MetadataError::Crashed {
        message: e.to_string(),
    })?;
    if !err.is_null() {
        let (code, message) = unsafe { take_error(err) };
        return Err(MetadataError::Failed { code, message });
    }
    let (major, minor) = (md.api_version.major_version, md.api_version.minor_version);
    if major == -1 {
        return Err(MetadataError::NoAnswer);
    }
    if major != abi::API_MAJOR || minor > abi::API_MINOR {
        return Err(MetadataError::Version { major, minor });
    }
    Ok(HandlerMetadata {
        api_major: major,
        api_minor: minor,
        traits: md.traits,
    })
}
