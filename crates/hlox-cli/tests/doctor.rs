//! `hlox doctor`: what serves each custom call, how it was checked, and
//! every problem, before anything runs.

mod common;

use common::{corpus, stderr, stdout, Hlox};
use std::path::Path;
use std::process::Output;

fn plugin(p: &'static str) -> &'static str {
    assert!(
        !p.is_empty(),
        "C plugins not built: {}",
        hlox_targets::C_BUILD_ERROR
    );
    p
}

/// What `hlox doctor` printed and how it exited.
struct Doctor {
    code: Option<i32>,
    out: String,
    err: String,
}

impl Doctor {
    /// `hlox doctor MODULE`, with `plugin` loaded if given.
    fn run(module: &Path, plugin: Option<&str>) -> Doctor {
        let o: Output = Hlox::new("doctor")
            .arg(module)
            .args(plugin.map(|p| ["--plugin", p]).into_iter().flatten())
            .output();
        Doctor {
            code: o.status.code(),
            out: stdout(&o),
            err: stderr(&o),
        }
    }

    /// Asserts that it exited with `code`, that its stdout holds every one
    /// of `out` and its stderr every one of `err`.
    fn expect(&self, code: i32, out: &[&str], err: &[&str]) {
        let Doctor { out: o, err: e, .. } = self;
        assert_eq!(self.code, Some(code), "{o}{e}");
        for want in out {
            assert!(o.contains(want), "missing `{want}` in:\n{o}");
        }
        for want in err {
            assert!(e.contains(want), "missing `{want}` in stderr:\n{e}");
        }
    }
}

/// `hlox doctor` of the corpus case `case`, with `plugin` loaded if given.
fn doctor(case: &str, plugin: Option<&str>) -> Doctor {
    Doctor::run(&corpus(case, "module.hlo"), plugin)
}

#[test]
fn doctor_names_the_library_symbol_api_version_and_check_of_each_call() {
    let registered = plugin(hlox_targets::C_PLUGIN_WITH_REGISTRATION);
    doctor("cc_do_custom_call_v1", Some(registered)).expect(
        0,
        &[
            "main.1/ffi_call.1: custom-call \"do_custom_call\" (API_VERSION_ORIGINAL, Host)",
            &format!("  served by: {registered}"),
            "  symbol:    do_custom_call at 0x",
            "  found by:  plugin ",
            "  api_version: the call asks for API_VERSION_ORIGINAL, the target is API_VERSION_ORIGINAL",
            "  checked:   registered signature (API_VERSION_ORIGINAL)",
            "  problems:  none",
        ],
        &[],
    );

    // A library without a registration function: found by symbol, unchecked.
    let symbols = plugin(hlox_targets::C_PLUGIN_SYMBOLS_ONLY);
    doctor("cc_do_custom_call_v2", Some(symbols)).expect(
        0,
        &[
            "  found by:  symbol lookup in ",
            "  checked:   unchecked plain symbol (trusted to implement API_VERSION_STATUS_RETURNING, as XLA does)",
        ],
        &[],
    );
}

#[test]
fn doctor_lists_every_problem_and_runs_nothing() {
    // No plugin: the target is missing.
    doctor("cc_do_custom_call_v1", None).expect(
        1,
        &[
            "  served by: nothing",
            "  problem:   instruction ffi_call.1: custom-call target \"do_custom_call\" is not registered for platform Host",
        ],
        &["1 problem(s) with its custom calls (listed above); nothing was run"],
    );

    // The plugin registers do_custom_call as API_VERSION_ORIGINAL; the
    // module asks for API_VERSION_STATUS_RETURNING.
    let registered = plugin(hlox_targets::C_PLUGIN_WITH_REGISTRATION);
    doctor("cc_do_custom_call_v2", Some(registered)).expect(
        1,
        &[
            "  checked:   registered signature",
            "  problem:   instruction ffi_call.1: target \"do_custom_call\" is registered as",
        ],
        &[],
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
    Doctor::run(&typed_ffi_module("axpby_ffi.hlo", "AxpbyFfi"), Some(lib)).expect(
        0,
        &[
            "main/z: custom-call \"AxpbyFfi\" (API_VERSION_TYPED_FFI, Host)",
            &format!("  served by: {lib}"),
            "  symbol:    AxpbyFfi at 0x",
            "  found by:  symbol lookup in ",
            "  checked:   typed-FFI metadata (the symbol answered XLA's metadata query as a handler)",
            "  problems:  none",
        ],
        &[],
    );
    // A plain C function called as a typed-FFI handler: asking it for its
    // metadata crashed hlox (it wrote through the call frame); now the
    // query runs against guard pages and the crash is a problem, found
    // before anything runs.
    let symbols = plugin(hlox_targets::C_PLUGIN_SYMBOLS_ONLY);
    Doctor::run(
        &typed_ffi_module("not_a_handler.hlo", "do_custom_call"),
        Some(symbols),
    )
    .expect(
        1,
        &[
            "  problem:   ",
            "calling it for XLA's metadata query crashed (SIGSEGV",
        ],
        &["nothing was run"],
    );
}
