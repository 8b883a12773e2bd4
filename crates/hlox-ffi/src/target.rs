//! Target functions: XLA's C function types, the panic-catching trampolines
//! that give Rust functions those types, and the registration macro.
//!
//! A Rust target is wrapped in an `extern "C"` trampoline with exactly XLA's
//! parameter list. The trampoline calls the user's function inside
//! `catch_unwind`: a panic becomes the call's failure (status-returning
//! versions) or is parked in a thread-local slot that the invoker reads after
//! an `API_VERSION_ORIGINAL` call ([`take_panic`]). Nothing ever unwinds into
//! C.
//!
//! How the signature is found:
//! - plain Rust-ABI `fn`s (safe): from the function item's `Fn` impl, with no
//!   annotation (`register_custom_call_target!(f, "Host")`);
//! - `extern "C-unwind"`, `extern "C"` and `unsafe` functions: Rust gives
//!   such items no `Fn` impl, so the macro is told the pointer type, one of the
//!   aliases of [`sig`]: `register_custom_call_target!(f as sig::HostOriginalUnwind, "Host")`.
//!   A panic in an `extern "C"` function aborts the process (Rust's rule for
//!   that ABI, before the trampoline can see it): use `extern "C-unwind"` or a
//!   plain `fn`.

use crate::platform::{Platform, Signature};
use crate::status::XlaCustomCallStatus;
use hlox_hlo::CustomCallApiVersion;
use std::any::TypeId;
use std::cell::RefCell;
use std::ffi::{c_char, c_void};
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// CUDA's `CUstream` (an opaque pointer).
pub type CUstream = *mut c_void;

/// `void f(void* out, const void** in)`
pub type HostOriginalFn = unsafe extern "C" fn(*mut c_void, *const *const c_void);
/// `void f(void* out, const void** in, XlaCustomCallStatus* status)`
pub type HostStatusFn =
    unsafe extern "C" fn(*mut c_void, *const *const c_void, *mut XlaCustomCallStatus);
/// `void f(void* out, const void** in, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status)`
pub type HostUnifiedFn = unsafe extern "C" fn(
    *mut c_void,
    *const *const c_void,
    *const c_char,
    usize,
    *mut XlaCustomCallStatus,
);
/// `void f(CUstream stream, void** buffers, const char* opaque, size_t opaque_len)`
pub type CudaOriginalFn = unsafe extern "C" fn(CUstream, *mut *mut c_void, *const c_char, usize);
/// `void f(CUstream stream, void** buffers, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status)`
pub type CudaStatusFn = unsafe extern "C" fn(
    CUstream,
    *mut *mut c_void,
    *const c_char,
    usize,
    *mut XlaCustomCallStatus,
);

/// A callable target: a C function pointer of one of XLA's types, or an
/// untyped address found by symbol name (its type is taken from the custom
/// call's `api_version` when it is called, as XLA does).
#[derive(Copy, Clone, Debug)]
pub enum TargetFn {
    HostOriginal(HostOriginalFn),
    HostStatusReturning(HostStatusFn),
    HostStatusReturningUnified(HostUnifiedFn),
    CudaOriginal(CudaOriginalFn),
    CudaStatusReturning(CudaStatusFn),
    /// An XLA FFI handler (`API_VERSION_TYPED_FFI`, either platform): its
    /// execute stage and any others it registered.
    Ffi(crate::xla_ffi::FfiHandlers),
    Untyped(usize),
}

impl TargetFn {
    /// The function's address.
    pub fn addr(self) -> usize {
        match self {
            TargetFn::HostOriginal(f) => f as usize,
            TargetFn::HostStatusReturning(f) => f as usize,
            TargetFn::HostStatusReturningUnified(f) => f as usize,
            TargetFn::CudaOriginal(f) => f as usize,
            TargetFn::CudaStatusReturning(f) => f as usize,
            TargetFn::Ffi(f) => f.execute as usize,
            TargetFn::Untyped(a) => a,
        }
    }
    /// Types a raw C function pointer by its declared signature.
    ///
    /// # Safety
    /// `ptr` must be a function with the C parameter list of `sig`.
    pub unsafe fn from_raw(ptr: *const c_void, sig: Signature) -> Option<TargetFn> {
        if ptr.is_null() {
            return None;
        }
        use CustomCallApiVersion as V;
        unsafe {
            Some(match (sig.platform, sig.api_version) {
                (Platform::Host, V::Original) => TargetFn::HostOriginal(std::mem::transmute::<
                    *const c_void,
                    HostOriginalFn,
                >(ptr)),
                (Platform::Host, V::StatusReturning) => TargetFn::HostStatusReturning(
                    std::mem::transmute::<*const c_void, HostStatusFn>(ptr),
                ),
                (Platform::Host, V::StatusReturningUnified) => {
                    TargetFn::HostStatusReturningUnified(std::mem::transmute::<
                        *const c_void,
                        HostUnifiedFn,
                    >(ptr))
                }
                (Platform::Cuda, V::Original) => TargetFn::CudaOriginal(std::mem::transmute::<
                    *const c_void,
                    CudaOriginalFn,
                >(ptr)),
                (Platform::Cuda, V::StatusReturning | V::StatusReturningUnified) => {
                    TargetFn::CudaStatusReturning(
                        std::mem::transmute::<*const c_void, CudaStatusFn>(ptr),
                    )
                }
                (_, V::TypedFfi) => TargetFn::Ffi(crate::xla_ffi::FfiHandlers::execute_only(
                    std::mem::transmute::<*const c_void, crate::xla_ffi::abi::Handler>(ptr),
                )),
            })
        }
    }
    /// The typed function to call for a custom call of `api_version` on `platform`.
    pub fn for_call(
        self,
        platform: Platform,
        api_version: CustomCallApiVersion,
    ) -> Option<TargetFn> {
        match self {
            TargetFn::Untyped(a) => unsafe {
                TargetFn::from_raw(
                    a as *const c_void,
                    Signature {
                        platform,
                        api_version,
                    },
                )
            },
            other => Some(other),
        }
    }
}

// ----------------------------------------------------------------------------
// Panic slot for API_VERSION_ORIGINAL targets (they have no status).

thread_local! {
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn record_panic(msg: String) {
    PANIC.with(|p| *p.borrow_mut() = Some(msg));
}

/// Takes the message of a panic caught by an `API_VERSION_ORIGINAL`
/// trampoline on this thread since the last call. The invoker clears it
/// before each call and reads it after.
pub fn take_panic() -> Option<String> {
    PANIC.with(|p| p.borrow_mut().take())
}

pub(crate) fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    let msg = if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    };
    // A payload whose destructor panics would abort; the common ones don't.
    drop(p);
    msg
}

// ----------------------------------------------------------------------------
// Trampolines.

/// All the arguments any convention passes; each trampoline fills its own.
#[doc(hidden)]
pub struct Args {
    pub out: *mut c_void,
    pub ins: *const *const c_void,
    pub stream: CUstream,
    pub buffers: *mut *mut c_void,
    pub opaque: *const c_char,
    pub opaque_len: usize,
    pub status: *mut XlaCustomCallStatus,
}

impl Args {
    const NULL: Args = Args {
        out: std::ptr::null_mut(),
        ins: std::ptr::null(),
        stream: std::ptr::null_mut(),
        buffers: std::ptr::null_mut(),
        opaque: std::ptr::null(),
        opaque_len: 0,
        status: std::ptr::null_mut(),
    };
}

/// Something a trampoline can call with [`Args`].
#[doc(hidden)]
pub trait Invoke: 'static {
    /// # Safety
    /// `a` holds the arguments of the convention this was registered with.
    unsafe fn invoke(a: &Args);
}

/// Calls the target, catching a panic: it becomes the failure of the
/// call's status, or, for a convention without one (`a.status` null), the
/// recorded panic [`take_panic`] returns.
fn guard<I: Invoke>(a: Args) {
    let Err(p) = catch_unwind(AssertUnwindSafe(|| unsafe { I::invoke(&a) })) else {
        return;
    };
    let msg = panic_message(p);
    if let Some(s) = unsafe { a.status.as_mut() } {
        s.set_failure(format!("custom-call target panicked: {msg}").as_bytes());
    } else {
        record_panic(msg);
    }
}

/// One trampoline per C convention: its parameters, named as the fields of
/// [`Args`] they fill, go to [`guard`].
macro_rules! trampolines {
    ($($name:ident($($p:ident: $t:ty),*);)*) => {$(
        unsafe extern "C" fn $name<I: Invoke>($($p: $t),*) {
            guard::<I>(Args {
                $($p,)*
                ..Args::NULL
            });
        }
    )*};
}

trampolines! {
    tramp_host_original(out: *mut c_void, ins: *const *const c_void);
    tramp_host_status(out: *mut c_void, ins: *const *const c_void, status: *mut XlaCustomCallStatus);
    tramp_host_unified(
        out: *mut c_void,
        ins: *const *const c_void,
        opaque: *const c_char,
        opaque_len: usize,
        status: *mut XlaCustomCallStatus
    );
    tramp_cuda_original(
        stream: CUstream,
        buffers: *mut *mut c_void,
        opaque: *const c_char,
        opaque_len: usize
    );
    tramp_cuda_status(
        stream: CUstream,
        buffers: *mut *mut c_void,
        opaque: *const c_char,
        opaque_len: usize,
        status: *mut XlaCustomCallStatus
    );
}

const fn trampoline_for<I: Invoke>(sig: Signature) -> TargetFn {
    use CustomCallApiVersion as V;
    match (sig.platform, sig.api_version) {
        (Platform::Host, V::Original) => TargetFn::HostOriginal(tramp_host_original::<I>),
        (Platform::Host, V::StatusReturning) => {
            TargetFn::HostStatusReturning(tramp_host_status::<I>)
        }
        (Platform::Host, V::StatusReturningUnified) => {
            TargetFn::HostStatusReturningUnified(tramp_host_unified::<I>)
        }
        (Platform::Cuda, V::Original) => TargetFn::CudaOriginal(tramp_cuda_original::<I>),
        (Platform::Cuda, V::StatusReturning | V::StatusReturningUnified) => {
            TargetFn::CudaStatusReturning(tramp_cuda_status::<I>)
        }
        (_, V::TypedFfi) => panic!("typed-FFI targets have their own trampoline"),
    }
}

// ----------------------------------------------------------------------------
// Rust targets: what the registry stores for them.

/// What makes two registrations "the same function".
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Identity {
    /// A Rust function item (its unique type).
    Type(TypeId),
    /// A function address (C functions, Rust functions registered through a pointer type).
    Addr(usize),
}

/// A Rust function wrapped for the registry: its signature, its trampoline.
#[derive(Copy, Clone, Debug)]
pub struct RustTarget {
    pub signature: Signature,
    pub func: TargetFn,
    pub identity: fn() -> Identity,
    /// False for `extern "C"` functions: a panic aborts before the trampoline sees it.
    pub catches_panics: bool,
}

/// Conjures the value of a zero-sized function item type.
///
/// # Safety
/// `F` is a function item (or capture-free closure) type.
unsafe fn conjure<F: Copy>() -> F {
    const {
        assert!(
            std::mem::size_of::<F>() == 0,
            "register a function by name, not a function pointer value"
        )
    };
    unsafe { std::mem::zeroed() }
}

fn type_identity<F: 'static>() -> Identity {
    Identity::Type(TypeId::of::<F>())
}

/// Rust-ABI functions (and capture-free closures) with one of XLA's
/// parameter lists. `M` is a marker that selects the parameter list.
pub trait RustTargetFn<M>: Copy + 'static {
    const TARGET: RustTarget;
}

#[doc(hidden)]
pub struct ZstCall<F, M>(PhantomData<fn() -> (F, M)>);

macro_rules! zst_signature {
    ($marker:ident, $sig:expr, ($($p:ty),*), |$f:ident, $a:ident| $call:expr) => {
        #[doc(hidden)]
        pub struct $marker;
        impl<F: Fn($($p),*) + Copy + 'static> Invoke for ZstCall<F, $marker> {
            unsafe fn invoke($a: &Args) {
                let $f: F = unsafe { conjure::<F>() };
                $call
            }
        }
        impl<F: Fn($($p),*) + Copy + 'static> RustTargetFn<$marker> for F {
            const TARGET: RustTarget = RustTarget {
                signature: $sig,
                func: trampoline_for::<ZstCall<F, $marker>>($sig),
                identity: type_identity::<F>,
                catches_panics: true,
            };
        }
    };
}

zst_signature!(
    HostOriginalMarker,
    Signature::HOST_ORIGINAL,
    (*mut c_void, *const *const c_void),
    |f, a| f(a.out, a.ins)
);
zst_signature!(
    HostStatusMarker,
    Signature::HOST_STATUS_RETURNING,
    (*mut c_void, *const *const c_void, *mut XlaCustomCallStatus),
    |f, a| f(a.out, a.ins, a.status)
);
zst_signature!(
    HostUnifiedMarker,
    Signature::HOST_STATUS_RETURNING_UNIFIED,
    (
        *mut c_void,
        *const *const c_void,
        *const c_char,
        usize,
        *mut XlaCustomCallStatus
    ),
    |f, a| f(a.out, a.ins, a.opaque, a.opaque_len, a.status)
);
zst_signature!(
    CudaOriginalMarker,
    Signature::CUDA_ORIGINAL,
    (CUstream, *mut *mut c_void, *const c_char, usize),
    |f, a| f(a.stream, a.buffers, a.opaque, a.opaque_len)
);
zst_signature!(
    CudaStatusMarker,
    Signature::CUDA_STATUS_RETURNING,
    (
        CUstream,
        *mut *mut c_void,
        *const c_char,
        usize,
        *mut XlaCustomCallStatus
    ),
    |f, a| f(a.stream, a.buffers, a.opaque, a.opaque_len, a.status)
);

/// Rust typed-FFI handlers with state ([`crate::xla_ffi::StatefulHandler`]):
/// an instantiate and an execute stage.
#[doc(hidden)]
pub struct StatefulMarker;

impl<H: crate::xla_ffi::StatefulHandler> RustTargetFn<StatefulMarker> for H {
    const TARGET: RustTarget = RustTarget {
        signature: Signature {
            platform: Platform::Host,
            api_version: CustomCallApiVersion::TypedFfi,
        },
        func: TargetFn::Ffi(crate::xla_ffi::FfiHandlers {
            instantiate: Some(crate::xla_ffi::frame::tramp_instantiate::<H>),
            prepare: None,
            initialize: None,
            execute: crate::xla_ffi::frame::tramp_execute::<H>,
        }),
        identity: type_identity::<H>,
        catches_panics: true,
    };
}

/// Rust typed-FFI handlers: `fn(&mut Frame) -> Result<(), E>` for any
/// `E: Into<FfiError>` (normally [`FfiError`](crate::xla_ffi::FfiError)
/// itself; a `String` still works). The signature's platform is a
/// placeholder: a typed-FFI function serves either platform and takes the
/// one it is registered for.
#[doc(hidden)]
pub struct FfiMarker;

unsafe extern "C" fn tramp_ffi<F, E>(
    frame: *mut crate::xla_ffi::abi::CallFrame,
) -> *mut crate::xla_ffi::abi::Error
where
    F: Fn(&mut crate::xla_ffi::Frame) -> Result<(), E> + Copy + 'static,
    E: Into<crate::xla_ffi::FfiError>,
{
    let f: F = unsafe { conjure::<F>() };
    unsafe { crate::xla_ffi::run_rust_handler(frame, |fr| f(fr).map_err(Into::into)) }
}

impl<F, E> RustTargetFn<FfiMarker> for F
where
    F: Fn(&mut crate::xla_ffi::Frame) -> Result<(), E> + Copy + 'static,
    E: Into<crate::xla_ffi::FfiError>,
{
    const TARGET: RustTarget = RustTarget {
        signature: Signature {
            platform: Platform::Host,
            api_version: CustomCallApiVersion::TypedFfi,
        },
        func: TargetFn::Ffi(crate::xla_ffi::FfiHandlers::execute_only(tramp_ffi::<F, E>)),
        identity: type_identity::<F>,
        catches_panics: true,
    };
}

/// The registry entry of a Rust-ABI function item.
pub const fn rust_target<M, F: RustTargetFn<M>>(_f: &F) -> RustTarget {
    F::TARGET
}

/// Function pointer types a target may be registered through (with the
/// macro's `f as Type` form): the aliases in [`sig`].
pub trait TargetPtr: Copy + 'static {
    const SIGNATURE: Signature;
    const CATCHES_PANICS: bool;
    fn addr(self) -> usize;
    /// # Safety
    /// `a` holds the arguments of `SIGNATURE`'s convention.
    unsafe fn invoke(self, a: &Args);
}

macro_rules! ptr_signature {
    ($sig:expr, ($($p:ty),*), |$f:ident, $a:ident| $call:expr) => {
        ptr_signature!(@one unsafe fn($($p),*), $sig, true, |$f, $a| $call);
        ptr_signature!(@one unsafe extern "C-unwind" fn($($p),*), $sig, true, |$f, $a| $call);
        ptr_signature!(@one unsafe extern "C" fn($($p),*), $sig, false, |$f, $a| $call);
    };
    (@one $t:ty, $sig:expr, $catches:expr, |$f:ident, $a:ident| $call:expr) => {
        impl TargetPtr for $t {
            const SIGNATURE: Signature = $sig;
            const CATCHES_PANICS: bool = $catches;
            fn addr(self) -> usize {
                self as usize
            }
            unsafe fn invoke(self, $a: &Args) {
                let $f = self;
                unsafe { $call }
            }
        }
    };
}

ptr_signature!(
    Signature::HOST_ORIGINAL,
    (*mut c_void, *const *const c_void),
    |f, a| f(a.out, a.ins)
);
ptr_signature!(
    Signature::HOST_STATUS_RETURNING,
    (*mut c_void, *const *const c_void, *mut XlaCustomCallStatus),
    |f, a| f(a.out, a.ins, a.status)
);
ptr_signature!(
    Signature::HOST_STATUS_RETURNING_UNIFIED,
    (
        *mut c_void,
        *const *const c_void,
        *const c_char,
        usize,
        *mut XlaCustomCallStatus
    ),
    |f, a| f(a.out, a.ins, a.opaque, a.opaque_len, a.status)
);
ptr_signature!(
    Signature::CUDA_ORIGINAL,
    (CUstream, *mut *mut c_void, *const c_char, usize),
    |f, a| f(a.stream, a.buffers, a.opaque, a.opaque_len)
);
ptr_signature!(
    Signature::CUDA_STATUS_RETURNING,
    (
        CUstream,
        *mut *mut c_void,
        *const c_char,
        usize,
        *mut XlaCustomCallStatus
    ),
    |f, a| f(a.stream, a.buffers, a.opaque, a.opaque_len, a.status)
);

/// A type holding one function pointer as a constant (the macro declares one
/// per `f as Type` registration).
#[doc(hidden)]
pub trait PtrHolder: 'static {
    type Ptr: TargetPtr;
    const PTR: Self::Ptr;
}

#[doc(hidden)]
pub struct PtrCall<H>(PhantomData<fn() -> H>);

impl<H: PtrHolder> Invoke for PtrCall<H> {
    unsafe fn invoke(a: &Args) {
        unsafe { H::PTR.invoke(a) }
    }
}

fn ptr_identity<H: PtrHolder>() -> Identity {
    Identity::Addr(H::PTR.addr())
}

/// The registry entry of a function registered through a pointer type.
pub const fn ptr_target<H: PtrHolder>() -> RustTarget {
    let sig = <H::Ptr as TargetPtr>::SIGNATURE;
    RustTarget {
        signature: sig,
        func: trampoline_for::<PtrCall<H>>(sig),
        identity: ptr_identity::<H>,
        catches_panics: <H::Ptr as TargetPtr>::CATCHES_PANICS,
    }
}

/// Pointer types for `register_custom_call_target!(f as sig::..., ...)`.
///
/// `*Unwind` are `unsafe extern "C-unwind" fn`s (panics are caught), `*C`
/// are `unsafe extern "C" fn`s (a panic aborts), `*Rust` are `unsafe fn`s
/// (panics are caught). Safe functions coerce to them.
pub mod sig {
    use super::CUstream;
    use crate::status::XlaCustomCallStatus;
    use std::ffi::{c_char, c_void};

    macro_rules! aliases {
        ($rust:ident, $unwind:ident, $c:ident, ($($p:ty),*)) => {
            pub type $rust = unsafe fn($($p),*);
            pub type $unwind = unsafe extern "C-unwind" fn($($p),*);
            pub type $c = unsafe extern "C" fn($($p),*);
        };
    }
    aliases!(
        HostOriginalRust,
        HostOriginalUnwind,
        HostOriginalC,
        (*mut c_void, *const *const c_void)
    );
    aliases!(
        HostStatusRust,
        HostStatusUnwind,
        HostStatusC,
        (*mut c_void, *const *const c_void, *mut XlaCustomCallStatus)
    );
    aliases!(
        HostUnifiedRust,
        HostUnifiedUnwind,
        HostUnifiedC,
        (
            *mut c_void,
            *const *const c_void,
            *const c_char,
            usize,
            *mut XlaCustomCallStatus
        )
    );
    aliases!(
        CudaOriginalRust,
        CudaOriginalUnwind,
        CudaOriginalC,
        (CUstream, *mut *mut c_void, *const c_char, usize)
    );
    aliases!(
        CudaStatusRust,
        CudaStatusUnwind,
        CudaStatusC,
        (
            CUstream,
            *mut *mut c_void,
            *const c_char,
            usize,
            *mut XlaCustomCallStatus
        )
    );
}

// ----------------------------------------------------------------------------
// Static registration.

/// One `register_custom_call_target!` registration.
#[derive(Debug)]
pub struct StaticTarget {
    pub name: &'static str,
    pub platform: Platform,
    pub target: RustTarget,
    pub traits: crate::Traits,
    pub file: &'static str,
    pub line: u32,
}

impl StaticTarget {
    /// Checks the platform name and that the function's parameter list
    /// belongs to that platform, at compile time when used in a static.
    pub const fn new(
        name: &'static str,
        platform: &'static str,
        target: RustTarget,
        file: &'static str,
        line: u32,
    ) -> Self {
        let platform = match Platform::parse(platform) {
            Some(p) => p,
            None => {
                panic!("register_custom_call_target!: unknown platform: use \"Host\" or \"CUDA\"")
            }
        };
        let mut target = target;
        if matches!(target.signature.api_version, CustomCallApiVersion::TypedFfi) {
            target.signature.platform = platform;
        }
        match (platform, target.signature.platform) {
            (Platform::Host, Platform::Cuda) => {
                panic!("register_custom_call_target!: the function has a CUDA parameter list but is registered for Host")
            }
            (Platform::Cuda, Platform::Host) => {
                panic!("register_custom_call_target!: the function has a Host parameter list but is registered for CUDA")
            }
            _ => {}
        }
        StaticTarget {
            name,
            platform,
            target,
            traits: crate::Traits::NONE,
            file,
            line,
        }
    }

    /// The same registration, declaring `traits`.
    pub const fn with_traits(mut self, traits: crate::Traits) -> Self {
        self.traits = traits;
        self
    }
}

/// Every `register_custom_call_target!` in the linked program.
#[linkme::distributed_slice]
pub static STATIC_TARGETS: [StaticTarget];

/// Registers a function as a custom-call target of the process-wide
/// [`Registry::global`](crate::Registry::global), at link time.
///
/// ```ignore
/// fn do_custom_call(out: *mut c_void, ins: *const *const c_void) { ... }
/// register_custom_call_target!(do_custom_call, "Host");            // name "do_custom_call"
/// register_custom_call_target!(do_custom_call, "my_name", "Host"); // explicit name
/// // extern "C-unwind" / extern "C" / unsafe fns: name the pointer type.
/// register_custom_call_target!(my_c_fn as hlox_ffi::sig::HostStatusUnwind, "Host");
/// // Traits (see hlox_ffi::Traits) after the platform:
/// register_custom_call_target!(my_kernel, "my_kernel", "CUDA", hlox_ffi::Traits::GRAPH_COMPATIBLE);
/// ```
#[macro_export]
macro_rules! register_custom_call_target {
    // The entry in `STATIC_TARGETS` (internal: both forms below end here).
    (@static $target:expr, $name:expr, $platform:expr, $traits:expr) => {
        #[$crate::__private::linkme::distributed_slice($crate::__private::STATIC_TARGETS)]
        #[linkme(crate = $crate::__private::linkme)]
        static __HLOX_CUSTOM_CALL_TARGET: $crate::__private::StaticTarget =
            $crate::__private::StaticTarget::new(
                $name,
                $platform,
                $target,
                ::core::file!(),
                ::core::line!(),
            )
            .with_traits($traits);
    };
    ($f:path as $ty:ty, $name:expr, $platform:expr, $traits:expr $(,)?) => {
        const _: () = {
            struct __HloxHolder;
            impl $crate::__private::PtrHolder for __HloxHolder {
                type Ptr = $ty;
                const PTR: $ty = $f as $ty;
            }
    $crate::register_custom_call_target!(@static
                $crate::__private::ptr_target::<__HloxHolder>(), $name, $platform, $traits);
        };
    };
    ($f:path, $name:expr, $platform:expr, $traits:expr $(,)?) => {
        const _: () = {
    $crate::register_custom_call_target!(@static
                $crate::__private::rust_target(&$f), $name, $platform, $traits);
        };
    };
    ($f:ident as $ty:ty, $platform:expr $(,)?) => {
        $crate::register_custom_call_target!($f as $ty, ::core::stringify!($f), $platform);
    };
    ($f:path as $ty:ty, $name:expr, $platform:expr $(,)?) => {
        $crate::register_custom_call_target!($f as $ty, $name, $platform, $crate::Traits::NONE);
    };
    ($f:ident, $platform:expr $(,)?) => {
        $crate::register_custom_call_target!($f, ::core::stringify!($f), $platform);
    };
    ($f:path, $name:expr, $platform:expr $(,)?) => {
        $crate::register_custom_call_target!($f, $name, $platform, $crate::Traits::NONE);
    };
}
