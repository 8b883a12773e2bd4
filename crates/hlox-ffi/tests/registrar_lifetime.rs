//! Issue 27: a plugin that keeps the registrar pointer and calls it after
//! its registration function returned read freed stack memory (a crash).
//! The registrar is now a `static` whose functions are inert outside the
//! registration: they return `HLOX_REGISTRAR_EXPIRED` and register nothing.

use hlox_ffi::{Platform, Registry, REGISTRAR_EXPIRED};
use std::path::PathBuf;

mod common;
use common::build_c_plugin;

const PLUGIN: &str = r#"
#include "hlox/custom_call.h"
static const HloxCustomCallRegistrar* kept;
static void* kept_ctx;
void noop(void* out, const void** in) { (void)out; (void)in; }
int hlox_register_custom_call_targets(const HloxCustomCallRegistrar* r) {
  kept = r;
  kept_ctx = r->ctx;
  return r->register_target(r->ctx, "kept_first", "Host", HLOX_API_VERSION_ORIGINAL, (void*)noop);
}
int late_register(void) {
  return kept->register_target(kept_ctx, "kept_late", "Host", HLOX_API_VERSION_ORIGINAL, (void*)noop);
}
int late_set_traits(void) { return kept->set_traits(kept_ctx, "kept_first", "Host", 0u); }
"#;

fn build_plugin() -> PathBuf {
    build_c_plugin("registrar_lifetime", "keeps_registrar", PLUGIN)
}

#[test]
fn a_registrar_kept_past_registration_is_inert() {
    let path = build_plugin();
    let reg = Registry::new();
    reg.load_library(&path).unwrap();
    assert!(reg.lookup("kept_first", Platform::Host).is_some());

    // The plugin's own handle on its functions (the loader keeps its copy).
    // SAFETY: the library was just built from PLUGIN; the symbols have these types.
    let lib = unsafe { libloading::Library::new(&path) }.unwrap();
    let late_register =
        unsafe { lib.get::<unsafe extern "C" fn() -> i32>(b"late_register") }.unwrap();
    let late_set_traits =
        unsafe { lib.get::<unsafe extern "C" fn() -> i32>(b"late_set_traits") }.unwrap();

    // After the registration, on this thread and on another.
    assert_eq!(unsafe { late_register() }, REGISTRAR_EXPIRED);
    assert_eq!(unsafe { late_set_traits() }, REGISTRAR_EXPIRED);
    let (r, t) = std::thread::scope(|s| {
        s.spawn(|| unsafe { (late_register(), late_set_traits()) })
            .join()
            .unwrap()
    });
    assert_eq!((r, t), (REGISTRAR_EXPIRED, REGISTRAR_EXPIRED));
    assert!(reg.lookup("kept_late", Platform::Host).is_none());

    // Another registry loads the same plugin again: that registration works,
    // and afterwards the kept registrar is inert again.
    let reg2 = Registry::new();
    reg2.load_library(&path).unwrap();
    assert!(reg2.lookup("kept_first", Platform::Host).is_some());
    assert_eq!(unsafe { late_register() }, REGISTRAR_EXPIRED);
    assert!(reg2.lookup("kept_late", Platform::Host).is_none());
    assert!(reg.lookup("kept_late", Platform::Host).is_none());
}
