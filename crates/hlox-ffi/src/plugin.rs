//! The plugin registration entry point (`hlox_register_custom_call_targets`).

use crate::platform::Platform;
use crate::target::STATIC_TARGETS;
use hlox_hlo::CustomCallApiVersion;
use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_void, CString};

/// Name of the function a plugin may export to register its targets.
pub const REGISTER_SYMBOL: &str = "hlox_register_custom_call_targets";

/// `HloxCustomCallRegistrar` of `hlox/custom_call.h`: handed to a plugin's
/// `hlox_register_custom_call_targets`, which calls `register_target` once per
/// target and `set_traits` to declare a registered target's
/// [`Traits`](crate::Traits) (bits, e.g. `HLOX_TRAIT_GRAPH_COMPATIBLE`).
/// Both return 0 on success and a non-zero value when rejected (the loader
/// reports why).
///
/// Lifetime: a plugin gets a pointer to one `static` registrar, valid for the
/// life of the process; its functions act only during the call of the
/// plugin's registration function, on that thread. Called later (a plugin
/// that kept the pointer) they do nothing and return [`REGISTRAR_EXPIRED`].
#[repr(C)]
pub struct HloxCustomCallRegistrar {
    pub ctx: *mut c_void,
    pub register_target: unsafe extern "C" fn(
        ctx: *mut c_void,
        name: *const c_char,
        platform: *const c_char,
        api_version: c_int,
        fn_ptr: *mut c_void,
    ) -> c_int,
    pub set_traits: unsafe extern "C" fn(
        ctx: *mut c_void,
        name: *const c_char,
        platform: *const c_char,
        traits: c_uint,
    ) -> c_int,
    /// Registers transformation rules (`jvp.TARGET`, `vjp.TARGET`,
    /// `vmap.TARGET` computations of an HLO text module; docs/transforms.md)
    /// for targets of this plugin. Appended last, so plugins built against
    /// the header without it keep working.
    pub register_rules: unsafe extern "C" fn(ctx: *mut c_void, hlo_text: *const c_char) -> c_int,
}

/// What the registrar's functions return when called after the registration
/// that handed it out has returned (or on another thread): the call is
/// ignored. `HLOX_REGISTRAR_EXPIRED` in `hlox/custom_call.h`.
pub const REGISTRAR_EXPIRED: c_int = -2;

thread_local! {
    /// The registrar of the registration running on this thread, if any.
    static ACTIVE: Cell<*const HloxCustomCallRegistrar> = const { Cell::new(std::ptr::null()) };
}

/// The registrar every plugin is handed: a `static`, so a plugin that keeps
/// the pointer never reads freed memory, and its functions forward to the
/// registration running on the calling thread, or answer
/// [`REGISTRAR_EXPIRED`] when none is (a kept registrar is inert).
struct SessionRegistrar(HloxCustomCallRegistrar);
// SAFETY: its ctx is null and never dereferenced; its functions are plain
// function pointers that are safe to call from any thread.
unsafe impl Sync for SessionRegistrar {}

static SESSION: SessionRegistrar = SessionRegistrar(HloxCustomCallRegistrar {
    ctx: std::ptr::null_mut(),
    register_target: session_register_target,
    set_traits: session_set_traits,
    register_rules: session_register_rules,
});

/// Calls a plugin's registration function with the static registrar,
/// forwarding its calls to `inner` (whose ctx lives only as long as this
/// call) while it runs on this thread.
///
/// # Safety
/// `register` follows the `hlox_register_custom_call_targets` contract, and
/// `inner`'s functions accept `inner.ctx` for the duration of the call.
pub(crate) unsafe fn call_with_registrar(
    register: RegisterTargetsFn,
    inner: &HloxCustomCallRegistrar,
) -> c_int {
    struct Restore(*const HloxCustomCallRegistrar);
    impl Drop for Restore {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(self.0));
        }
    }
    let _restore = Restore(ACTIVE.with(|a| a.replace(inner)));
    // SAFETY: the caller's contract.
    unsafe { register(&SESSION.0) }
}

unsafe extern "C" fn session_register_target(
    _ctx: *mut c_void,
    name: *const c_char,
    platform: *const c_char,
    api_version: c_int,
    fn_ptr: *mut c_void,
) -> c_int {
    let inner = ACTIVE.with(|a| a.get());
    // SAFETY: ACTIVE points to the registrar of the registration running on
    // this thread (call_with_registrar resets it before that one ends).
    match unsafe { inner.as_ref() } {
        Some(r) => unsafe { (r.register_target)(r.ctx, name, platform, api_version, fn_ptr) },
        None => REGISTRAR_EXPIRED,
    }
}

unsafe extern "C" fn session_set_traits(
    _ctx: *mut c_void,
    name: *const c_char,
    platform: *const c_char,
    traits: c_uint,
) -> c_int {
    let inner = ACTIVE.with(|a| a.get());
    // SAFETY: as in session_register_target.
    match unsafe { inner.as_ref() } {
        Some(r) => unsafe { (r.set_traits)(r.ctx, name, platform, traits) },
        None => REGISTRAR_EXPIRED,
    }
}

unsafe extern "C" fn session_register_rules(_ctx: *mut c_void, hlo_text: *const c_char) -> c_int {
    let inner = ACTIVE.with(|a| a.get());
    // SAFETY: as in session_register_target.
    match unsafe { inner.as_ref() } {
        Some(r) => unsafe { (r.register_rules)(r.ctx, hlo_text) },
        None => REGISTRAR_EXPIRED,
    }
}

/// `int hlox_register_custom_call_targets(const HloxCustomCallRegistrar*)`:
/// returns 0 on success.
pub type RegisterTargetsFn = unsafe extern "C" fn(*const HloxCustomCallRegistrar) -> c_int;

/// Registers every `register_custom_call_target!` of the current binary
/// through `registrar` (the body of [`export_plugin!`](crate::export_plugin)).
/// Returns 0 when every registration was accepted, else the number rejected.
///
/// # Safety
/// `registrar` is null (returns -1) or points to a valid registrar.
pub unsafe fn register_static_targets_with(registrar: *const HloxCustomCallRegistrar) -> c_int {
    let Some(reg) = (unsafe { registrar.as_ref() }) else {
        return -1;
    };
    let mut rejected = 0;
    for t in STATIC_TARGETS.iter() {
        let Ok(name) = CString::new(t.name) else {
            rejected += 1;
            continue;
        };
        let platform = match t.platform {
            Platform::Host => c"Host",
            Platform::Cuda => c"CUDA",
        };
        let api = match t.target.signature.api_version {
            CustomCallApiVersion::Original => 1,
            CustomCallApiVersion::StatusReturning => 2,
            CustomCallApiVersion::StatusReturningUnified => 3,
            CustomCallApiVersion::TypedFfi => 4,
        };
        let rc = unsafe {
            (reg.register_target)(
                reg.ctx,
                name.as_ptr(),
                platform.as_ptr(),
                api,
                t.target.func.addr() as *mut c_void,
            )
        };
        let rc = if rc == 0 && t.traits != crate::Traits::NONE {
            unsafe { (reg.set_traits)(reg.ctx, name.as_ptr(), platform.as_ptr(), t.traits.bits()) }
        } else {
            rc
        };
        if rc != 0 {
            rejected += 1;
        }
    }
    rejected
}

/// Makes a Rust `cdylib` an hlox plugin: defines
/// `hlox_register_custom_call_targets`, which registers every
/// `register_custom_call_target!` of the library. Use it once per cdylib.
#[macro_export]
macro_rules! export_plugin {
    () => {
        /// hlox plugin entry point: registers this library's custom-call targets.
        ///
        /// # Safety
        /// Called by hlox's loader with a valid registrar.
        #[no_mangle]
        pub unsafe extern "C" fn hlox_register_custom_call_targets(
            registrar: *const $crate::HloxCustomCallRegistrar,
        ) -> ::core::ffi::c_int {
            unsafe { $crate::__private::register_static_targets_with(registrar) }
        }
    };
}
