//! Writing typed-FFI handlers in Rust: a checked view of the call frame.
//!
//! ```ignore
//! fn axpby(f: &mut Frame) -> Result<(), FfiError> {
//!     let (alpha, beta): (f32, f32) = (f.attr("alpha")?, f.attr("beta")?);
//!     let (x, y) = (f.arg(0)?.slice::<f32>()?, f.arg(1)?.slice::<f32>()?);
//!     let z = f.ret(0)?.slice_mut::<f32>()?;
//!     for i in 0..z.len() { z[i] = alpha * x[i] + beta * y[i]; }
//!     Ok(())
//! }
//! register_custom_call_target!(axpby, "Host");   // api_version=API_VERSION_TYPED_FFI
//! ```
//!
//! Such a function becomes an `XLA_FFI_Handler` (a C trampoline) that
//! answers XLA's metadata query, checks the stage, catches panics and turns
//! an `Err` into an `XLA_FFI_Error` made through the caller's API table.

use super::abi::{self, attr_type, dtype, Buffer, CallFrame, Error};
use super::error::{FfiError, FrameError};
use hlox_hlo::ElementType;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Element types a buffer or attribute can be viewed as.
pub trait FfiElement: Copy + 'static {
    const DTYPE: i32;
    const NAME: &'static str;
}
macro_rules! element {
    ($t:ty, $d:expr, $n:expr) => {
        impl FfiElement for $t {
            const DTYPE: i32 = $d;
            const NAME: &'static str = $n;
        }
    };
}
element!(i8, dtype::S8, "s8");
element!(i16, dtype::S16, "s16");
element!(i32, dtype::S32, "s32");
element!(i64, dtype::S64, "s64");
element!(u8, dtype::U8, "u8");
element!(u16, dtype::U16, "u16");
element!(u32, dtype::U32, "u32");
element!(u64, dtype::U64, "u64");
element!(half::f16, dtype::F16, "f16");
element!(half::bf16, dtype::BF16, "bf16");
element!(f32, dtype::F32, "f32");
element!(f64, dtype::F64, "f64");
element!(bool, dtype::PRED, "pred");
// XLA's C64/C128 buffers: interleaved (real, imaginary) parts, as
// `std::complex<float>` / `std::complex<double>` in a C++ handler.
element!(num_complex::Complex32, dtype::C64, "c64");
element!(num_complex::Complex64, dtype::C128, "c128");

fn dtype_name(d: i32) -> String {
    ElementType::ALL
        .iter()
        .find(|t| super::call::ffi_dtype(**t) == d)
        .map(|t| t.name().to_string())
        .unwrap_or_else(|| format!("FFI data type {d}"))
}

/// One argument or result buffer.
pub struct BufferView<'a> {
    raw: &'a Buffer,
    /// Which buffer this is, named in errors only: the index, shifted
    /// left once, with the low bit set for a result. One word, not a
    /// `&str` and an index: LLVM wrote that pair as two 8-byte constant
    /// stores and read it back as one 16-byte load, a store-forwarding stall
    /// that cost a Rust handler about 10 ns per buffer (issue 26).
    tag: usize,
}

impl<'a> BufferView<'a> {
    #[inline]
    pub fn dtype(&self) -> i32 {
        self.raw.dtype
    }
    #[inline]
    pub fn dims(&self) -> &'a [i64] {
        if self.raw.rank <= 0 || self.raw.dims.is_null() {
            return &[];
        }
        unsafe { std::slice::from_raw_parts(self.raw.dims, self.raw.rank as usize) }
    }
    #[inline]
    pub fn element_count(&self) -> usize {
        self.dims().iter().map(|&d| d.max(0) as usize).product()
    }
    #[inline]
    pub fn data(&self) -> *mut c_void {
        self.raw.data
    }
    /// The buffer as errors name it ("argument 0").
    fn what(&self) -> String {
        format!("{} {}", list_kind(self.tag & 1 == 1), self.tag >> 1)
    }
    /// The checks of a typed view, inlined into the handler; the errors
    /// are built out of line (the per-call path stays a compare and a
    /// branch: issue 26's custom-call cost).
    #[inline]
    fn check<T: FfiElement>(&self) -> Result<(), FrameError> {
        if self.raw.dtype != T::DTYPE || (self.raw.data.is_null() && self.element_count() > 0) {
            return Err(self.view_error(T::DTYPE, T::NAME));
        }
        Ok(())
    }
    #[cold]
    #[inline(never)]
    fn view_error(&self, dtype: i32, name: &'static str) -> FrameError {
        if self.raw.dtype != dtype {
            return FrameError::ElementType {
                buffer: self.what(),
                found: dtype_name(self.raw.dtype),
                expected: name,
            };
        }
        FrameError::NoData {
            buffer: self.what(),
        }
    }
    /// The elements, row-major.
    #[inline]
    pub fn slice<T: FfiElement>(&self) -> Result<&'a [T], FrameError> {
        self.check::<T>()?;
        Ok(unsafe { raw_slice(self.raw.data as *const T, self.element_count()) })
    }
    /// The elements, writable (results; an argument aliased to a result).
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub fn slice_mut<T: FfiElement>(&self) -> Result<&'a mut [T], FrameError> {
        self.check::<T>()?;
        if self.element_count() == 0 {
            return Ok(&mut []);
        }
        Ok(
            unsafe {
                std::slice::from_raw_parts_mut(self.raw.data as *mut T, self.element_count())
            },
        )
    }
}

/// How errors name a buffer list: results or arguments.
fn list_kind(result: bool) -> &'static str {
    if result {
        "result"
    } else {
        "argument"
    }
}

/// A typed-FFI call frame, as a Rust handler sees it.
pub struct Frame<'a> {
    raw: &'a CallFrame,
}

#[inline]
fn entries(a: &abi::Args, n: i64) -> &[*mut c_void] {
    if n <= 0 || a.args.is_null() {
        return &[];
    }
    unsafe { std::slice::from_raw_parts(a.args, n as usize) }
}

fn find_attr(attrs: &abi::Attrs, name: &str) -> Option<(i32, *mut c_void)> {
    if attrs.size <= 0 || attrs.names.is_null() {
        return None;
    }
    let n = attrs.size as usize;
    let names = unsafe { std::slice::from_raw_parts(attrs.names, n) };
    let types = unsafe { std::slice::from_raw_parts(attrs.types, n) };
    let ptrs = unsafe { std::slice::from_raw_parts(attrs.attrs, n) };
    names
        .iter()
        .position(|&s| {
            let s = unsafe { &*s };
            let bytes = unsafe { std::slice::from_raw_parts(s.ptr as *const u8, s.len) };
            bytes == name.as_bytes()
        })
        .map(|i| (types[i], ptrs[i]))
}

impl<'a> Frame<'a> {
    #[inline]
    pub fn arg_count(&self) -> usize {
        entries(&self.raw.args, self.raw.args.size).len()
    }
    #[inline]
    pub fn ret_count(&self) -> usize {
        entries(&self.raw.rets, self.raw.rets.size).len()
    }
    #[inline]
    /// Entry `index` of `list` (the results' when `result`).
    fn buffer(
        &self,
        list: &'a abi::Args,
        index: usize,
        result: bool,
    ) -> Result<BufferView<'a>, FrameError> {
        let e = entries(list, list.size);
        let raw = e
            .get(index)
            .and_then(|&p| unsafe { (p as *const Buffer).as_ref() });
        match raw {
            Some(raw) => Ok(BufferView {
                raw,
                tag: index << 1 | usize::from(result),
            }),
            None => Err(missing_buffer(e, list_kind(result), index)),
        }
    }
    /// The call's `CUstream` (`XLA_FFI_Stream_Get`): a handler registered
    /// for CUDA queues its work here. Null in the CUDA backend's host
    /// emulation (its buffers are host memory there); an error on the Host.
    pub fn stream(&self) -> Result<*mut c_void, FrameError> {
        let api = self.api()?;
        let mut a = abi::StreamGetArgs {
            struct_size: std::mem::size_of::<abi::StreamGetArgs>(),
            extension_start: std::ptr::null_mut(),
            ctx: self.raw.ctx,
            stream: std::ptr::null_mut(),
        };
        let e = unsafe { (api.stream_get)(&mut a) };
        take_error(api, e, "XLA_FFI_Stream_Get")?;
        Ok(a.stream)
    }

    fn api(&self) -> Result<&'a abi::Api, FrameError> {
        unsafe { self.raw.api.as_ref() }.ok_or(FrameError::NoApi)
    }

    /// The caller's type id for state type `S` (registered through the
    /// caller's API table on first use, with a deleter that drops it).
    fn state_type_id<S: Send + Sync + 'static>(&self) -> Result<i64, FrameError> {
        use std::any::TypeId;
        use std::sync::Mutex;
        static IDS: Mutex<Vec<(usize, TypeId, i64)>> = Mutex::new(Vec::new());
        let api = self.api()?;
        let key = (api as *const abi::Api as usize, TypeId::of::<S>());
        let mut ids = IDS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(_, _, id)) = ids.iter().find(|(a, t, _)| (*a, *t) == key) {
            return Ok(id);
        }
        unsafe extern "C" fn drop_boxed<S>(p: *mut c_void) {
            // SAFETY: states of this type are `Box<S>`s handed over by
            // `set_state`.
            drop(unsafe { Box::from_raw(p as *mut S) });
        }
        let name = format!("hlox.rust_state.{}", std::any::type_name::<S>());
        let info = abi::TypeInfo {
            struct_size: std::mem::size_of::<abi::TypeInfo>(),
            extension_start: std::ptr::null_mut(),
            deleter: Some(drop_boxed::<S>),
        };
        let mut id = abi::TypeId { type_id: 0 };
        let mut a = abi::TypeRegisterArgs {
            struct_size: std::mem::size_of::<abi::TypeRegisterArgs>(),
            extension_start: std::ptr::null_mut(),
            name: abi::ByteSpan::of(name.as_bytes()),
            type_id: &mut id,
            type_info: &info,
        };
        let e = unsafe { (api.type_register)(&mut a) };
        take_error(api, e, "XLA_FFI_Type_Register")?;
        ids.push((key.0, key.1, id.type_id));
        Ok(id.type_id)
    }

    /// Calls `XLA_FFI_State_Set` (`set`) or `XLA_FFI_State_Get` for the
    /// instantiate stage's state of type `S`; returns the state pointer.
    fn state_call<S: Send + Sync + 'static>(
        &self,
        set: bool,
        state: *mut c_void,
    ) -> Result<*mut c_void, FrameError> {
        let api = self.api()?;
        let mut id = abi::TypeId {
            type_id: self.state_type_id::<S>()?,
        };
        let mut a = abi::StateArgs {
            struct_size: std::mem::size_of::<abi::StateArgs>(),
            extension_start: std::ptr::null_mut(),
            ctx: self.raw.ctx,
            stage: abi::stage::INSTANTIATE,
            type_id: &mut id,
            state,
        };
        let (f, what) = if set {
            (api.state_set, "XLA_FFI_State_Set")
        } else {
            (api.state_get, "XLA_FFI_State_Get")
        };
        take_error(api, unsafe { f(&mut a) }, what)?;
        Ok(a.state)
    }

    /// Hands `state` to the caller as this call's instantiate-stage state.
    fn set_state<S: Send + Sync + 'static>(&self, state: S) -> Result<(), FrameError> {
        let p = Box::into_raw(Box::new(state));
        self.state_call::<S>(true, p as *mut c_void)
            .map(|_| ())
            .inspect_err(|_| {
                // SAFETY: refused, so still ours.
                drop(unsafe { Box::from_raw(p) });
            })
    }

    /// This call's instantiate-stage state, of type `S`.
    fn state<S: Send + Sync + 'static>(&self) -> Result<&'a S, FrameError> {
        let p = self.state_call::<S>(false, std::ptr::null_mut())?;
        // SAFETY: the caller checked the type id; the state was a `Box<S>`
        // and lives as long as the prepared call, beyond this frame.
        unsafe { (p as *const S).as_ref() }.ok_or(FrameError::NullState)
    }

    /// Argument buffer `i` (operand leaves in order).
    #[inline]
    pub fn arg(&self, i: usize) -> Result<BufferView<'a>, FrameError> {
        self.buffer(&self.raw.args, i, false)
    }
    /// Result buffer `i`.
    #[inline]
    pub fn ret(&self, i: usize) -> Result<BufferView<'a>, FrameError> {
        self.buffer(&self.raw.rets, i, true)
    }
    /// The names of the call's attributes, sorted.
    pub fn attr_names(&self) -> Vec<String> {
        let a = &self.raw.attrs;
        if a.size <= 0 || a.names.is_null() {
            return Vec::new();
        }
        unsafe { std::slice::from_raw_parts(a.names, a.size as usize) }
            .iter()
            .map(|&s| {
                let s = unsafe { &*s };
                String::from_utf8_lossy(unsafe {
                    std::slice::from_raw_parts(s.ptr as *const u8, s.len)
                })
                .into_owned()
            })
            .collect()
    }
    /// Attribute `name`, which must be of kind `kind` (`what` in errors).
    fn attr_of(
        &self,
        name: &str,
        kind: i32,
        what: &'static str,
    ) -> Result<*mut c_void, FrameError> {
        let (t, p) = find_attr(&self.raw.attrs, name).ok_or_else(|| FrameError::NoAttribute {
            name: name.to_string(),
        })?;
        if t != kind {
            return Err(FrameError::AttributeKind {
                name: name.to_string(),
                expected: what,
            });
        }
        Ok(p)
    }
    /// Scalar attribute `name` of type `T` (exactly: an `f32` attribute is
    /// not read as `f64`).
    pub fn attr<T: FfiElement>(&self, name: &str) -> Result<T, FrameError> {
        let p = self.attr_of(name, attr_type::SCALAR, "a scalar")?;
        let s = unsafe { &*(p as *const abi::Scalar) };
        check_attr_dtype::<T>(name, s.dtype, false)?;
        Ok(unsafe { std::ptr::read_unaligned(s.value as *const T) })
    }
    /// String attribute `name` (its bytes).
    pub fn attr_bytes(&self, name: &str) -> Result<&'a [u8], FrameError> {
        let p = self.attr_of(name, attr_type::STRING, "a string")?;
        let s = unsafe { &*(p as *const abi::ByteSpan) };
        Ok(unsafe { raw_slice(s.ptr as *const u8, s.len) })
    }
    /// Array attribute `name` with elements `T`.
    pub fn attr_array<T: FfiElement>(&self, name: &str) -> Result<&'a [T], FrameError> {
        let p = self.attr_of(name, attr_type::ARRAY, "an array")?;
        let a = unsafe { &*(p as *const abi::Array) };
        check_attr_dtype::<T>(name, a.dtype, true)?;
        Ok(unsafe { raw_slice(a.data as *const T, a.size) })
    }
}

/// That attribute `name` (an array's `elements`) has type `T`.
fn check_attr_dtype<T: FfiElement>(
    name: &str,
    dtype: i32,
    elements: bool,
) -> Result<(), FrameError> {
    if dtype == T::DTYPE {
        return Ok(());
    }
    Err(FrameError::AttributeType {
        name: name.to_string(),
        elements,
        found: dtype_name(dtype),
        expected: T::NAME,
    })
}

/// Why entry `index` of a buffer list `e` cannot be viewed.
#[cold]
#[inline(never)]
fn missing_buffer(e: &[*mut c_void], kind: &'static str, index: usize) -> FrameError {
    if index < e.len() {
        FrameError::NullBuffer { kind, index }
    } else {
        FrameError::MissingBuffer {
            kind,
            index,
            count: e.len(),
        }
    }
}

/// `n` elements at `p`; empty (and `p` unread, it may be null) for `n == 0`.
///
/// # Safety
/// For `n > 0`, `p` points to `n` initialized `T`s that live for `'a`.
#[inline]
unsafe fn raw_slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if n == 0 {
        return &[];
    }
    unsafe { std::slice::from_raw_parts(p, n) }
}

/// `Ok` for a null error; else the error's message (through the caller's
/// table: the error is the caller's), the error destroyed.
fn take_error(api: &abi::Api, e: *mut Error, what: &'static str) -> Result<(), FrameError> {
    if e.is_null() {
        return Ok(());
    }
    let mut d = abi::ErrorGetDetailsArgs {
        struct_size: std::mem::size_of::<abi::ErrorGetDetailsArgs>(),
        extension_start: std::ptr::null_mut(),
        error: e,
        message: std::ptr::null(),
        errc: 0,
    };
    unsafe { (api.error_get_details)(&mut d) };
    let msg = if d.message.is_null() {
        format!("{what} failed")
    } else {
        unsafe { std::ffi::CStr::from_ptr(d.message) }
            .to_string_lossy()
            .into_owned()
    };
    let mut x = abi::ErrorDestroyArgs {
        struct_size: std::mem::size_of::<abi::ErrorDestroyArgs>(),
        extension_start: std::ptr::null_mut(),
        error: e,
    };
    unsafe { (api.error_destroy)(&mut x) };
    Err(FrameError::Api {
        call: what,
        message: msg,
    })
}

fn error_through(frame: &CallFrame, code: i32, msg: &str) -> *mut Error {
    let msg = std::ffi::CString::new(msg.replace('\0', " ")).unwrap_or_default();
    match unsafe { frame.api.as_ref() } {
        Some(api) => {
            let mut a = abi::ErrorCreateArgs {
                struct_size: abi::struct_size!(abi::ErrorCreateArgs, errc, i32),
                extension_start: std::ptr::null_mut(),
                message: msg.as_ptr(),
                errc: code,
            };
            unsafe { (api.error_create)(&mut a) }
        }
        None => super::api::new_error(code, msg.to_string_lossy()),
    }
}

/// Runs a Rust handler for a C call frame: the body of every Rust
/// typed-FFI trampoline.
///
/// # Safety
/// `frame` is a call frame from an XLA FFI caller (hlox or XLA).
pub unsafe fn run_rust_handler(
    frame: *mut CallFrame,
    f: impl FnOnce(&mut Frame) -> Result<(), FfiError>,
) -> *mut Error {
    unsafe { run_rust_stage(frame, abi::stage::EXECUTE, f) }
}

/// [`run_rust_handler`] for the handler of stage `stage`: it answers the
/// metadata query, refuses other stages, catches panics and turns an `Err`
/// into an error made through the caller's API table.
///
/// # Safety
/// As [`run_rust_handler`].
pub(crate) unsafe fn run_rust_stage(
    frame: *mut CallFrame,
    stage: i32,
    f: impl FnOnce(&mut Frame) -> Result<(), FfiError>,
) -> *mut Error {
    let Some(raw) = (unsafe { frame.as_mut() }) else {
        return super::api::new_error(abi::code::INVALID_ARGUMENT, "null call frame");
    };
    let ext = raw.extension_start;
    if let Some(e) = unsafe { ext.as_ref() } {
        if e.ty == abi::EXTENSION_METADATA {
            let m = unsafe { &mut *(ext as *mut abi::MetadataExtension) };
            if let Some(md) = unsafe { m.metadata.as_mut() } {
                md.api_version = abi::ApiVersion {
                    struct_size: abi::API_VERSION_STRUCT_SIZE,
                    extension_start: std::ptr::null_mut(),
                    major_version: abi::API_MAJOR,
                    minor_version: abi::API_MINOR,
                };
                md.traits = 0;
                md.state_type_id = abi::TypeId { type_id: 0 };
            }
            return std::ptr::null_mut();
        }
    }
    if raw.stage != stage {
        return error_through(
            raw,
            abi::code::INVALID_ARGUMENT,
            &format!(
                "Wrong execution stage: expected `{stage}` but got `{}`",
                raw.stage
            ),
        );
    }
    let mut view = Frame { raw };
    match catch_unwind(AssertUnwindSafe(|| f(&mut view))) {
        Ok(Ok(())) => std::ptr::null_mut(),
        Ok(Err(e)) => error_through(raw, abi::code::UNKNOWN, &e.to_string()),
        Err(p) => error_through(
            raw,
            abi::code::INTERNAL,
            &format!(
                "custom-call target panicked: {}",
                crate::target::panic_message(p)
            ),
        ),
    }
}

/// A Rust typed-FFI handler with state, as an `XLA_FFI_Handler_Bundle`
/// with an instantiate and an execute stage: `instantiate` runs once per
/// prepared call (when a module is compiled; the buffers' types and
/// dimensions are there, their data is not) and makes the state every
/// `execute` of that call gets. The state is handed to the caller through
/// `XLA_FFI_State_Set` (its type registered with a deleter that drops it),
/// so the handler keeps working under XLA too.
///
/// ```ignore
/// #[derive(Clone, Copy)]
/// struct Counter;
/// impl StatefulHandler for Counter {
///     type State = (i64, AtomicI64);
///     fn instantiate(f: &Frame) -> Result<Self::State, FfiError> {
///         Ok((f.attr("start")?, AtomicI64::new(0)))
///     }
///     fn execute(f: &mut Frame, s: &Self::State) -> Result<(), FfiError> { ... }
/// }
/// register_custom_call_target!(Counter, "counter", "Host");
/// ```
pub trait StatefulHandler: Copy + 'static {
    /// Shared by the execute calls of one prepared call, which may run on
    /// several threads at once.
    type State: Send + Sync + 'static;
    fn instantiate(frame: &Frame) -> Result<Self::State, FfiError>;
    fn execute(frame: &mut Frame, state: &Self::State) -> Result<(), FfiError>;
}

/// The two stages' trampolines.
pub(crate) unsafe extern "C" fn tramp_instantiate<H: StatefulHandler>(
    frame: *mut CallFrame,
) -> *mut Error {
    unsafe {
        run_rust_stage(frame, abi::stage::INSTANTIATE, |f| {
            let s = H::instantiate(f)?;
            Ok(f.set_state(s)?)
        })
    }
}

pub(crate) unsafe extern "C" fn tramp_execute<H: StatefulHandler>(
    frame: *mut CallFrame,
) -> *mut Error {
    unsafe {
        run_rust_stage(frame, abi::stage::EXECUTE, |f| {
            let s = f.state::<H::State>()?;
            H::execute(f, s)
        })
    }
}
