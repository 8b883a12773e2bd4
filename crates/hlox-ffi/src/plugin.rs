//! The plugin registration entry point (`hlox_register_custom_call_targets`).

use crate::platform::Platform;
use crate::target::STATIC_TARGETS;
use hlox_hlo::CustomCallApiVersion;
use std::ffi::{c_char, c_int, c_uint, c_void, CString};

/// Name of the function a plugin may export to register its targets.
pub const REGISTER_SYMBOL: &str = "hlox_register_custom_call_targets";

/// `HloxCustomCallRegistrar` of `hlox/custom_call.h`: handed to a plugin's
/// `hlox_register_custom_call_targets`, which calls `register_target` once per
/// target and `set_traits` to declare a registered target's
/// [`Traits`](crate::Traits) (bits, e.g. `HLOX_TRAIT_GRAPH_COMPATIBLE`).
/// Both return 0 on success and a non-zero value when rejected (the loader
/// reports why).
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
