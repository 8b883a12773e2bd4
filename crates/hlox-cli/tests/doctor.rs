//! `hlox doctor`: what serves each custom call, how it was checked, and
//! every problem, before anything runs.

mod common;

use common::{corpus, stderr, stdout, Hlox};
use std::process::Output;

fn plugin(p: &'static str) -> &'static str {
    assert!(
        !p.is_empty(),
        "C plugins not built: {}",
        hlox_targets::C_BUILD_ERROR
    );
    p
}

/// `hlox doctor` of the corpus case `case`, with `plugin` loaded if given:
/// its exit code, stdout and stderr.
fn doctor(case: &str, plugin: Option<&str>) -> (Option<i32>, String, String) {
    let o: Output = Hlox::new("doctor")
        .arg(corpus(case, "module.hlo"))
        .args(plugin.map(|p| ["--plugin", p]).into_iter().flatten())
        .output();
    (o.status.code(), stdout(&o), stderr(&o))
}

#[test]
fn doctor_names_the_library_symbol_api_version_and_check_of_each_call() {
    let registered = plugin(hlox_targets::C_PLUGIN_WITH_REGISTRATION);
    let (code, out, err) = doctor("cc_do_custom_call_v1", Some(registered));
    assert_eq!(code, Some(0), "{out}{err}");
    for want in [
        "main.1/ffi_call.1: custom-call \"do_custom_call\" (API_VERSION_ORIGINAL, Host)",
        &format!("  served by: {registered}"),
        "  symbol:    do_custom_call at 0x",
        "  found by:  plugin ",
        "  api_version: the call asks for API_VERSION_ORIGINAL, the target is API_VERSION_ORIGINAL",
        "  checked:   registered signature (API_VERSION_ORIGINAL)",
        "  problems:  none",
    ] {
        assert!(out.contains(want), "missing `{want}` in:\n{out}");
    }

    // A library without a registration function: found by symbol, unchecked.
    let symbols = plugin(hlox_targets::C_PLUGIN_SYMBOLS_ONLY);
    let (code, out, err) = doctor("cc_do_custom_call_v2", Some(symbols));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("  found by:  symbol lookup in "), "{out}");
    assert!(
        out.contains("  checked:   unchecked plain symbol (trusted to implement API_VERSION_STATUS_RETURNING, as XLA does)"),
        "{out}"
    );
}

#[test]
fn doctor_lists_every_problem_and_runs_nothing() {
    // No plugin: the target is missing.
    let (code, out, err) = doctor("cc_do_custom_call_v1", None);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("  served by: nothing"), "{out}");
    assert!(
        out.contains("  problem:   instruction ffi_call.1: custom-call target \"do_custom_call\" is not registered for platform Host"),
        "{out}"
    );
    assert!(
        err.contains("1 problem(s) with its custom calls (listed above); nothing was run"),
        "{err}"
    );

    // The plugin registers do_custom_call as API_VERSION_ORIGINAL; the
    // module asks for API_VERSION_STATUS_RETURNING.
    let registered = plugin(hlox_targets::C_PLUGIN_WITH_REGISTRATION);
    let (code, out, err) = doctor("cc_do_custom_call_v2", Some(registered));
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("  checked:   registered signature"), "{out}");
    assert!(
        out.contains(
            "  problem:   instruction ffi_call.1: target \"do_custom_call\" is registered as"
        ),
        "{out}"
    );
}

/// A module calling `target` with api_version=API_VERSION_TYPED_FFI and
/// alpha/beta attributes, on two f32[4] operands.
fn typed_ffi_module(name: &str, target: &str) -> std::path::PathBuf {
    common::tmp_file(
        name,
        format!(
            "HloModule ffi\n\nENTRY main {{\n  x = f32[4]{{0}} parameter(0)\n  y = f32[4]{{0}} parameter(1)\n  ROOT z = f32[4]{{0}} custom-call(x, y), custom_call_target=\"{target}\", api_version=API_VERSION_TYPED_FFI, backend_config={{alpha = 2.0 : f32, beta = 3.0 : f32}}\n}}\n"
        ),
    )
}

#[test]
fn doctor_checks_a_typed_ffi_symbol_by_its_metadata() {
    assert!(
        !hlox_targets::CPP_FFI_PLUGIN.is_empty(),
        "targets/cpp not built: {}",
        hlox_targets::CPP_FFI_ERROR
    );
    let lib = hlox_targets::CPP_FFI_PLUGIN;
    // AxpbyFfi is a handler exported by XLA_FFI_DEFINE_HANDLER_SYMBOL, found
    // by name: it answers XLA's metadata query, so the binding is checked.
    let o = Hlox::new("doctor")
        .arg(typed_ffi_module("axpby_ffi.hlo", "AxpbyFfi"))
        .args(["--plugin", lib])
        .output();
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    for want in [
        "main/z: custom-call \"AxpbyFfi\" (API_VERSION_TYPED_FFI, Host)",
        &format!("  served by: {lib}"),
        "  symbol:    AxpbyFfi at 0x",
        "  found by:  symbol lookup in ",
        "  checked:   typed-FFI metadata (the symbol answered XLA's metadata query as a handler)",
        "  problems:  none",
    ] {
        assert!(out.contains(want), "missing `{want}` in:\n{out}");
    }
    // A plain C function called as a typed-FFI handler: asking it for its
    // metadata crashed hlox (it wrote through the call frame); now the
    // query runs against guard pages and the crash is a problem, found
    // before anything runs.
    let symbols = plugin(hlox_targets::C_PLUGIN_SYMBOLS_ONLY);
    let o = Hlox::new("doctor")
        .arg(typed_ffi_module("not_a_handler.hlo", "do_custom_call"))
        .args(["--plugin", symbols])
        .output();
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("  problem:   "), "{out}");
    assert!(
        out.contains("calling it for XLA's metadata query crashed (SIGSEGV"),
        "{out}"
    );
    assert!(err.contains("nothing was run"), "{err}");
}
