//! The custom-call cases, written once and run by every engine: the
//! reference evaluator (tests/tests/custom_calls.rs) and the Host backend
//! (crates/hlox-cpu/tests/host.rs). Each case panics with a message when the
//! engine gets it wrong.

use hlox_ffi::{encode_opaque, Platform, Registry};
use hlox_hlo::text::parse_module;
use hlox_hlo::verifier::verify_module;
use hlox_hlo::{Literal, Module};
use hlox_targets::AxpbyOpaque;
use std::sync::Arc;

/// A module made ready to run: bound (and, for a compiler, compiled).
pub trait Prepared {
    fn run(&self, args: &[Literal]) -> Result<Literal, String>;
}

/// How the suite runs a module: prepare once (bind every custom-call target
/// of `registry`, compile), then run any number of times.
pub trait Engine {
    fn prepare(
        &self,
        module: &Module,
        registry: &Arc<Registry>,
    ) -> Result<Box<dyn Prepared>, String>;
}

fn run_once(
    e: &dyn Engine,
    m: &Module,
    r: &Arc<Registry>,
    args: &[Literal],
) -> Result<Literal, String> {
    e.prepare(m, r)?.run(args)
}

pub fn module(text: &str) -> Module {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    verify_module(&m).unwrap_or_else(|e| panic!("{e}"));
    m
}

/// The targets of the `hlox-targets` crate, registered by the macro.
pub fn static_targets() -> Arc<Registry> {
    let _ = hlox_targets::do_custom_call as fn(_, _);
    Arc::new(Registry::with_static_targets().expect("static targets register"))
}

/// A registry holding one plugin library.
pub fn plugin(path: &str) -> Arc<Registry> {
    let r = Registry::new();
    r.load_library(path).unwrap_or_else(|e| panic!("{e}"));
    Arc::new(r)
}

/// B, C and the expected result `2 * (B[i % 128] + C[i])` of [`seed_module`].
pub fn seed_inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let b: Vec<f32> = (0..128).map(|i| i as f32 * 0.5).collect();
    let c: Vec<f32> = (0..2048).map(|i| (i as f32).sin()).collect();
    let want: Vec<f32> = (0..2048).map(|i| (b[i % 128] + c[i]) * 2.0).collect();
    (b, c, want)
}

pub const ORIGINAL: &str = "";
pub const STATUS: &str = ", api_version=API_VERSION_STATUS_RETURNING";
pub const UNIFIED: &str = ", api_version=API_VERSION_STATUS_RETURNING_UNIFIED";

/// The seed program, with the custom call's result fed into more HLO.
pub fn seed_module(target: &str, api: &str) -> Module {
    module(&format!(
        r#"HloModule seed

ENTRY main {{
  b = f32[128]{{0}} parameter(0)
  c = f32[2048]{{0}} parameter(1)
  cc = f32[2048]{{0}} custom-call(b, c), custom_call_target="{target}"{api}
  two = f32[] constant(2)
  twos = f32[2048]{{0}} broadcast(two), dimensions={{}}
  ROOT out = f32[2048]{{0}} multiply(cc, twos)
}}
"#
    ))
}

pub fn seed_args() -> [Literal; 2] {
    let (b, c, _) = seed_inputs();
    [Literal::r1(&b), Literal::r1(&c)]
}

fn run_seed(
    e: &dyn Engine,
    r: &Arc<Registry>,
    target: &str,
    api: &str,
) -> Result<Vec<f32>, String> {
    let out = run_once(e, &seed_module(target, api), r, &seed_args())?;
    Ok(out.to_vec::<f32>().expect("f32 result"))
}

fn assert_seed(got: Vec<f32>) {
    assert_eq!(got, seed_inputs().2);
}

/// The seed target in every Host api_version, from Rust, from a C plugin
/// with a registration function, and from a C plugin found by symbol.
pub fn every_host_api_version(e: &dyn Engine) {
    for r in [
        static_targets(),
        plugin(hlox_targets::C_PLUGIN_WITH_REGISTRATION),
        plugin(hlox_targets::C_PLUGIN_SYMBOLS_ONLY),
    ] {
        assert_seed(run_seed(e, &r, "do_custom_call", ORIGINAL).unwrap());
        assert_seed(run_seed(e, &r, "do_custom_call_status", STATUS).unwrap());
        assert_seed(run_seed(e, &r, "do_custom_call_unified", UNIFIED).unwrap());
    }
}

/// A tuple operand (nested) and a tuple result whose second element is scratch.
pub fn tuple_operand_and_tuple_result_with_scratch(e: &dyn Engine) {
    let m = module(
        r#"HloModule tuples

ENTRY main {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  c = f32[4]{0} parameter(2)
  inner = (f32[4]{0}, f32[4]{0}) tuple(b, c)
  arg = (f32[4]{0}, (f32[4]{0}, f32[4]{0})) tuple(a, inner)
  cc = (f32[4]{0}, f32[4]{0}) custom-call(arg), custom_call_target="tuple_fma", api_version=API_VERSION_STATUS_RETURNING
  ROOT out = f32[4]{0} get-tuple-element(cc), index=0
}
"#,
    );
    let args = [
        Literal::r1(&[1f32, 2., 3., 4.]),
        Literal::r1(&[10f32, 20., 30., 40.]),
        Literal::r1(&[0.5f32, 0.25, 2., -1.]),
    ];
    for r in [
        static_targets(),
        plugin(hlox_targets::C_PLUGIN_WITH_REGISTRATION),
    ] {
        let out = run_once(e, &m, &r, &args).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![6., 7., 63., -36.]);
    }
}

/// Opaque bytes with NUL, 0xff, newline and quote reach the target exactly.
pub fn opaque_bytes_including_nul_reach_the_target_exactly(e: &dyn Engine) {
    let m = module(
        r#"HloModule opaque

ENTRY main {
  ROOT cc = (s64[], u8[32]{0}) custom-call(), custom_call_target="opaque_echo", backend_config="ab\000c\377\n\"z", api_version=API_VERSION_STATUS_RETURNING_UNIFIED
}
"#,
    );
    let out = run_once(e, &m, &static_targets(), &[]).unwrap();
    let leaves = out.leaves();
    let want: &[u8] = b"ab\0c\xff\n\"z";
    assert_eq!(leaves[0].get_first::<i64>().unwrap(), want.len() as i64);
    assert_eq!(&leaves[1].to_vec::<u8>().unwrap()[..want.len()], want);
}

/// MLX's axpby with alpha/beta in a serde opaque, in Rust and in C, built
/// with the builder and passed through HLO text.
pub fn axpby_with_serde_opaque_in_rust_and_c(e: &dyn Engine) {
    let opaque = encode_opaque(&AxpbyOpaque {
        alpha: 2.0,
        beta: -0.5,
        n: 3,
    })
    .unwrap();
    let b = hlox_hlo::builder::XlaBuilder::new("axpby");
    let s = hlox_hlo::Shape::array(hlox_hlo::ElementType::F32, vec![3]);
    let x = b.parameter(0, &s, "x").unwrap();
    let y = b.parameter(1, &s, "y").unwrap();
    let z = b
        .custom_call(
            "axpby",
            &[x, y],
            &s,
            &opaque,
            false,
            &[],
            hlox_hlo::CustomCallSchedule::None,
            hlox_hlo::CustomCallApiVersion::StatusReturningUnified,
        )
        .unwrap();
    let m = module(&hlox_hlo::text::print_module(&b.build_module(z).unwrap()));
    let args = [Literal::r1(&[1f32, 2., 3.]), Literal::r1(&[4f32, 8., -2.])];
    for r in [
        static_targets(),
        plugin(hlox_targets::C_PLUGIN_SYMBOLS_ONLY),
    ] {
        assert_eq!(
            run_once(e, &m, &r, &args).unwrap().to_vec::<f32>().unwrap(),
            vec![0., 0., 7.]
        );
    }
}

/// A status failure reaches the caller with instruction, target and message
/// (cut at the first NUL, as XLA does), and the prepared module runs again.
pub fn failure_message_reaches_the_caller_and_the_module_runs_again(e: &dyn Engine) {
    let r = static_targets();
    let x = [Literal::r1(&[1f32; 4])];
    let m = module(
        r#"HloModule fails

ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT boom = f32[4]{0} custom-call(x), custom_call_target="always_fails", api_version=API_VERSION_STATUS_RETURNING
}
"#,
    );
    let p = e.prepare(&m, &r).unwrap();
    for _ in 0..3 {
        let err = p.run(&x).unwrap_err();
        assert!(
            err.contains("boom") && err.contains("always_fails"),
            "{err}"
        );
        assert!(err.contains("the target reports an error"), "{err}");
    }
    let m = module(
        r#"HloModule fails

ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT f = f32[4]{0} custom-call(x), custom_call_target="fail_with_opaque", backend_config="before\000after", api_version=API_VERSION_STATUS_RETURNING_UNIFIED
}
"#,
    );
    let err = run_once(e, &m, &r, &x).unwrap_err();
    assert!(err.contains("before") && !err.contains("after"), "{err}");
    assert_seed(run_seed(e, &r, "do_custom_call", ORIGINAL).unwrap());
}

/// A failure inside a while body stops the whole run.
pub fn failure_inside_a_while_loop_stops_the_run(e: &dyn Engine) -> String {
    let m = module(
        r#"HloModule loop

cond {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[4]{0} custom-call(v), custom_call_target="always_fails", api_version=API_VERSION_STATUS_RETURNING
  ROOT t = (s32[], f32[4]{0}) tuple(j, w)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(zero, x)
  ROOT w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
}
"#,
    );
    let err = run_once(e, &m, &static_targets(), &[Literal::r1(&[1f32; 4])]).unwrap_err();
    assert!(
        err.contains("always_fails") && err.contains("the target reports an error"),
        "{err}"
    );
    err
}

/// Rust targets that panic (status-returning, ORIGINAL, extern "C-unwind")
/// become errors, and the process goes on.
pub fn panicking_rust_targets_become_errors(e: &dyn Engine) {
    let r = static_targets();
    for (target, api) in [
        ("panics", "API_VERSION_STATUS_RETURNING"),
        ("panics_original", "API_VERSION_ORIGINAL"),
        ("panics_unwind", "API_VERSION_STATUS_RETURNING_UNIFIED"),
    ] {
        let m = module(&format!(
            "HloModule p\n\nENTRY main {{\n  x = f32[4]{{0}} parameter(0)\n  ROOT p = f32[4]{{0}} custom-call(x), custom_call_target=\"{target}\", api_version={api}\n}}\n"
        ));
        let err = run_once(e, &m, &r, &[Literal::r1(&[1f32; 4])]).unwrap_err();
        assert!(
            err.contains(target) && err.contains("panic"),
            "{target}: {err}"
        );
    }
    assert_seed(run_seed(e, &r, "do_custom_call", ORIGINAL).unwrap());
}

/// A missing target fails preparation (before anything runs), naming the
/// target, the platform and the closest registered name.
pub fn missing_target_fails_before_running_with_a_suggestion(e: &dyn Engine) -> String {
    let err = e
        .prepare(&seed_module("do_custom_cal", ORIGINAL), &static_targets())
        .err()
        .expect("must fail");
    assert!(
        err.contains("do_custom_cal") && err.contains("Host"),
        "{err}"
    );
    assert!(
        err.contains("did you mean") || err.contains("closest"),
        "{err}"
    );
    assert!(err.contains("\"do_custom_call\""), "{err}");
    err
}

/// A custom call whose api_version disagrees with the registered signature.
pub fn api_version_mismatch_names_both_versions(e: &dyn Engine) {
    let err = e
        .prepare(
            &seed_module("do_custom_call_status", ORIGINAL),
            &static_targets(),
        )
        .err()
        .expect("must fail");
    assert!(
        err.contains("API_VERSION_STATUS_RETURNING") && err.contains("API_VERSION_ORIGINAL"),
        "{err}"
    );
}

/// Registering a different function under a taken name is an error; the
/// same function again is a no-op, and the original still runs.
pub fn duplicate_registration_is_an_error(e: &dyn Engine) {
    let r = static_targets();
    let err = r
        .register_fn("do_custom_call", Platform::Host, hlox_targets::tuple_fma)
        .unwrap_err();
    assert!(err.to_string().contains("do_custom_call"), "{err}");
    r.register_fn(
        "do_custom_call",
        Platform::Host,
        hlox_targets::do_custom_call,
    )
    .unwrap();
    assert_seed(run_seed(e, &r, "do_custom_call", ORIGINAL).unwrap());
}

/// `output_to_operand_aliasing`: the target sees one buffer for both, and
/// the caller's argument is not written.
pub fn output_to_operand_aliasing_gives_the_target_one_buffer(e: &dyn Engine) {
    let m = module(
        r#"HloModule alias

ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT y = f32[4]{0} custom-call(x), custom_call_target="inplace_add_one", output_to_operand_aliasing={{}: (0, {})}, api_version=API_VERSION_STATUS_RETURNING
}
"#,
    );
    let x = Literal::r1(&[1f32, 2., 3., 4.]);
    let out = run_once(e, &m, &static_targets(), std::slice::from_ref(&x)).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![2., 3., 4., 5.]);
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![1., 2., 3., 4.]);
}

/// Defines one `#[test]` per suite case for an engine value.
pub const TYPED_FFI: &str = ", api_version=API_VERSION_TYPED_FFI";

/// targets/cpp as a plugin (its handlers register through XLA_FFI_GetApi
/// when it loads; the rest are found by symbol).
/// The path of targets/cpp's plugin: `HLOX_CPP_FFI_PLUGIN` where set (a
/// test binary run on another machine, scripts/gpu_session.sh), else where
/// this build put it.
pub fn cpp_ffi_plugin_path() -> String {
    std::env::var("HLOX_CPP_FFI_PLUGIN").unwrap_or_else(|_| {
        assert!(
            hlox_targets::CPP_FFI_ERROR.is_empty(),
            "targets/cpp was not built: {}",
            hlox_targets::CPP_FFI_ERROR
        );
        hlox_targets::CPP_FFI_PLUGIN.to_string()
    })
}

pub fn cpp_ffi_plugin() -> Arc<Registry> {
    plugin(&cpp_ffi_plugin_path())
}

fn one_call(target: &str, operands: &str, params: &str, result: &str, config: &str) -> Module {
    module(&format!(
        r#"HloModule ffi

ENTRY main {{
{params}
  ROOT cc = {result} custom-call({operands}), custom_call_target="{target}", api_version=API_VERSION_TYPED_FFI, backend_config={config}
}}
"#
    ))
}

/// Typed-FFI handlers written against XLA's own `xla/ffi/api/ffi.h` run
/// unchanged: by registered name and by symbol, with typed and untyped
/// buffers, a tuple result, every attribute kind JAX emits, scratch memory
/// from the runtime, and failures that name instruction, target and status.
pub fn typed_ffi_cpp_handlers_from_xla_headers_run_unchanged(e: &dyn Engine) {
    let r = cpp_ffi_plugin();
    let x: Vec<f32> = (0..256).map(|i| i as f32 * 0.25 - 3.0).collect();
    let y: Vec<f32> = (0..256).map(|i| (i as f32).cos()).collect();
    let want: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(a, b)| (2.0 * a + -0.5 * b) + a)
        .collect();
    for target in ["cpp_axpby", "AxpbyFfi"] {
        let m = module(&format!(
            r#"HloModule axpby

ENTRY main {{
  x = f32[256]{{0}} parameter(0)
  y = f32[256]{{0}} parameter(1)
  cc = f32[256]{{0}} custom-call(x, y), custom_call_target="{target}", api_version=API_VERSION_TYPED_FFI, backend_config={{alpha = 2.000000e+00 : f32, beta = -5.000000e-01 : f32}}
  ROOT out = f32[256]{{0}} add(cc, x)
}}
"#
        ));
        let p = e.prepare(&m, &r).unwrap();
        for _ in 0..2 {
            let got = p.run(&[Literal::r1(&x), Literal::r1(&y)]).unwrap();
            assert_eq!(got.to_vec::<f32>().unwrap(), want, "{target}");
        }
    }

    // A tuple result of f64[3,4] buffers (AnyBuffer, dimensions checked).
    let a: Vec<f64> = (0..12).map(|i| i as f64 * 1.5).collect();
    let b: Vec<f64> = (0..12).map(|i| 100.0 - i as f64).collect();
    let m = module(
        r#"HloModule add_sub

ENTRY main {
  a = f64[3,4]{1,0} parameter(0)
  b = f64[3,4]{1,0} parameter(1)
  cc = (f64[3,4]{1,0}, f64[3,4]{1,0}) custom-call(a, b), custom_call_target="cpp_add_sub", api_version=API_VERSION_TYPED_FFI, backend_config={}
  s = f64[3,4]{1,0} get-tuple-element(cc), index=0
  d = f64[3,4]{1,0} get-tuple-element(cc), index=1
  ROOT t = (f64[3,4]{1,0}, f64[3,4]{1,0}) tuple(d, s)
}
"#,
    );
    let la = Literal::from_vec(&[3, 4], &a).unwrap();
    let lb = Literal::from_vec(&[3, 4], &b).unwrap();
    let got = run_once(e, &m, &r, &[la, lb]).unwrap().into_leaves();
    let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
    let s: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(got[0].to_vec::<f64>().unwrap(), d);
    assert_eq!(got[1].to_vec::<f64>().unwrap(), s);

    // Every attribute kind, as JAX's ffi_call prints them (but `n` out of
    // order: hlox sorts, as XLA's call frames are sorted).
    let m = one_call(
        "AttrsFfi",
        "",
        "",
        "f64[16]{0}",
        r#"{n = -4 : i32, arr = dense<[1, 2, 3]> : tensor<3xi64>, big = 3000000000 : i64, d = 2.500000e+00 : f64, dic = {k = 7 : i64, z = "v"}, farr = dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf32>, flag = true, s = "hi \22q\22\0A", u = 200 : ui8}"#,
    );
    let got = run_once(e, &m, &r, &[]).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(
        got,
        [-4.0, 3e9, 1.0, 2.5, 7.0, 104.0, 3.0, 6.0, 2.0, 1.5, 2.0, 7.0, 1.0, 200.0, 3.0, 42.0]
    );

    // Scratch memory from the runtime's allocator (64-byte aligned).
    let m = one_call(
        "ScratchFfi",
        "x",
        "  x = f32[256]{0} parameter(0)",
        "f32[256]{0}",
        "{}",
    );
    let got = run_once(e, &m, &r, &[Literal::r1(&x)]).unwrap();
    let rev: Vec<f32> = x.iter().rev().copied().collect();
    assert_eq!(got.to_vec::<f32>().unwrap(), rev);

    // A handler's error: instruction, target, status code and message.
    let m = one_call(
        "FailFfi",
        "x",
        "  x = f32[256]{0} parameter(0)",
        "f32[256]{0}",
        r#"{why = "no thanks"}"#,
    );
    let err = run_once(e, &m, &r, &[Literal::r1(&x)]).unwrap_err();
    assert!(err.contains("cc") && err.contains("FailFfi"), "{err}");
    assert!(
        err.contains("INVALID_ARGUMENT: refused: no thanks"),
        "{err}"
    );

    // An attribute of the wrong type is the handler's decoding error.
    let m = one_call(
        "AxpbyFfi",
        "x, x",
        "  x = f32[256]{0} parameter(0)",
        "f32[256]{0}",
        "{alpha = 2.0 : f64, beta = 1.0 : f32}",
    );
    let err = run_once(e, &m, &r, &[Literal::r1(&x)]).unwrap_err();
    assert!(
        err.contains("Failed to decode all FFI handler operands"),
        "{err}"
    );
    assert!(err.contains("Wrong scalar data type"), "{err}");
}

/// What one of targets/cpp's `extern "C" int64_t NAME()` counters says
/// (how many handler states of some kind exist).
pub fn cpp_plugin_counter(symbol: &str) -> i64 {
    // SAFETY: the plugin is loaded already (this only finds it again); the
    // symbol is `extern "C" int64_t NAME()`.
    unsafe {
        let lib = libloading::Library::new(cpp_ffi_plugin_path()).unwrap();
        let f: libloading::Symbol<unsafe extern "C" fn() -> i64> =
            lib.get(symbol.as_bytes()).unwrap();
        f()
    }
}

/// How many handler states of targets/cpp's `cpp_counter` exist.
fn counter_states_live() -> i64 {
    cpp_plugin_counter("HloxCounterStatesLive")
}

/// Typed-FFI handlers with state and asynchronous results, built with
/// XLA's `ffi.h`: the instantiate stage runs once per prepared call and its
/// state reaches every execute call of that call, one state per instruction,
/// destroyed with the prepared module; prepare and initialize stages (GPU
/// stages) are not run on the Host; tokens are arguments and results; a handler's future is
/// waited for, whether it completes before the handler returns or later on
/// another thread.
pub fn typed_ffi_state_stages_and_futures(e: &dyn Engine) {
    let r = cpp_ffi_plugin();
    let live = counter_states_live();
    let m = module(
        r#"HloModule counters

ENTRY main {
  c5 = s64[2]{0} custom-call(), custom_call_target="cpp_counter", api_version=API_VERSION_TYPED_FFI, backend_config={start = 5 : i64}
  c7 = s64[2]{0} custom-call(), custom_call_target="cpp_counter", api_version=API_VERSION_TYPED_FFI, backend_config={start = 7 : i64}
  ROOT t = (s64[2]{0}, s64[2]{0}) tuple(c5, c7)
}
"#,
    );
    let p = e.prepare(&m, &r).unwrap();
    for n in 1..=3i64 {
        let got = p.run(&[]).unwrap().into_leaves();
        assert_eq!(got[0].to_vec::<i64>().unwrap(), [5, n], "run {n}");
        assert_eq!(got[1].to_vec::<i64>().unwrap(), [7, n], "run {n}");
    }
    assert_eq!(counter_states_live(), live + 2, "one state per instruction");
    // A second preparation of the same module has its own states.
    let q = e.prepare(&m, &r).unwrap();
    let got = q.run(&[]).unwrap().into_leaves();
    assert_eq!(got[0].to_vec::<i64>().unwrap(), [5, 1]);
    drop((p, q));
    assert_eq!(
        counter_states_live(),
        live,
        "states are destroyed with their module"
    );

    // The instantiate stage's error names the stage, and comes when the
    // module is prepared (compiled), before any run.
    let bad = one_call("cpp_counter", "", "", "s64[2]{0}", "{start = -1 : i64}");
    let err = e.prepare(&bad, &r).err().expect("instantiate fails");
    assert!(err.contains("cc") && err.contains("cpp_counter"), "{err}");
    assert!(err.contains("instantiate stage failed"), "{err}");
    assert!(err.contains("start must be >= 0"), "{err}");
    // Execute asking for state no instantiate stage made.
    let m = one_call(
        "StatelessCounterFfi",
        "",
        "",
        "s64[2]{0}",
        "{start = 1 : i64}",
    );
    let err = run_once(e, &m, &r, &[]).unwrap_err();
    assert!(err.contains("no state was set"), "{err}");

    // A bundle with a prepare stage that fails if it runs.
    let x: Vec<f32> = (0..64).map(|i| i as f32 - 10.0).collect();
    let m = one_call(
        "cpp_axpby_with_prepare",
        "x, x",
        "  x = f32[64]{0} parameter(0)",
        "f32[64]{0}",
        "{alpha = 2.000000e+00 : f32, beta = 1.000000e+00 : f32}",
    );
    let got = run_once(e, &m, &r, &[Literal::r1(&x)]).unwrap();
    let want: Vec<f32> = x.iter().map(|v| 3.0 * v).collect();
    assert_eq!(got.to_vec::<f32>().unwrap(), want);

    // A handler that needs its prepare and initialize stages' states: its
    // instantiate stage runs (it sees the buffers' shapes without data),
    // and the execute stage is told why there is no prepared state here.
    let m = one_call(
        "cpp_staged",
        "x",
        "  x = f32[64]{0} parameter(0)",
        "(f32[64]{0}, s64[5]{0})",
        "{scale = 2.0 : f32, fail = 0 : i64}",
    );
    let err = run_once(e, &m, &r, &[Literal::r1(&x)]).unwrap_err();
    assert!(
        err.contains("cpp_staged") && err.contains("prepare and initialize stages only on CUDA"),
        "{err}"
    );

    // Token operands and results are arguments and results of dtype TOKEN.
    let m = module(
        r#"HloModule tokens

ENTRY main {
  x = f32[64]{0} parameter(0)
  t = token[] after-all()
  cc = (f32[64]{0}, token[]) custom-call(x, t), custom_call_target="TokenIncrementFfi", api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT y = f32[64]{0} get-tuple-element(cc), index=0
}
"#,
    );
    let got = run_once(e, &m, &r, &[Literal::r1(&x)]).unwrap();
    let want: Vec<f32> = x.iter().map(|v| v + 1.0).collect();
    assert_eq!(got.to_vec::<f32>().unwrap(), want);

    // Futures: completed on another thread 20 ms later, and before return.
    let want: Vec<f32> = x.iter().map(|v| 2.0 * v).collect();
    for delay in [20, -1] {
        let m = one_call(
            "AsyncDoubleFfi",
            "x",
            "  x = f32[64]{0} parameter(0)",
            "f32[64]{0}",
            &format!("{{delay_ms = {delay} : i64}}"),
        );
        let p = e.prepare(&m, &r).unwrap();
        for _ in 0..3 {
            let got = p.run(&[Literal::r1(&x)]).unwrap();
            assert_eq!(got.to_vec::<f32>().unwrap(), want, "delay {delay}");
        }
    }
}

/// Rust typed-FFI handlers registered with the macro, next to XLA's
/// other conventions: a plain function, and a handler with state.
pub fn typed_ffi_rust_handler_registered_by_macro(e: &dyn Engine) {
    let r = static_targets();
    let x: Vec<f32> = (0..256).map(|i| i as f32).collect();
    let m = one_call(
        "axpby_ffi",
        "x, x",
        "  x = f32[256]{0} parameter(0)",
        "f32[256]{0}",
        "{alpha = 3.000000e+00 : f32, beta = 1.000000e+00 : f32}",
    );
    let got = run_once(e, &m, &r, &[Literal::r1(&x)]).unwrap();
    let want: Vec<f32> = x.iter().map(|v| 3.0 * v + v).collect();
    assert_eq!(got.to_vec::<f32>().unwrap(), want);
    // Its errors and a missing attribute.
    let m = one_call(
        "axpby_ffi",
        "x, x",
        "  x = f32[256]{0} parameter(0)",
        "f32[256]{0}",
        "{alpha = 3.000000e+00 : f32}",
    );
    let err = run_once(e, &m, &r, &[Literal::r1(&x)]).unwrap_err();
    assert!(err.contains("the call has no attribute `beta`"), "{err}");
    // The same function through XLA's C convention is an api_version mismatch.
    let m = seed_module("axpby_ffi", STATUS);
    let err = e.prepare(&m, &r).err().expect("mismatch");
    assert!(err.contains("API_VERSION_TYPED_FFI"), "{err}");

    // A Rust handler with state (StatefulHandler): one state per
    // instruction, made by its instantiate stage, kept across runs,
    // dropped with the prepared module.
    let live = hlox_targets::rust_counters_live();
    let m = module(
        r#"HloModule rust_counters

ENTRY main {
  a = s64[2]{0} custom-call(), custom_call_target="rust_counter", api_version=API_VERSION_TYPED_FFI, backend_config={start = 4 : i64}
  b = s64[2]{0} custom-call(), custom_call_target="rust_counter", api_version=API_VERSION_TYPED_FFI, backend_config={start = 9 : i64}
  ROOT t = (s64[2]{0}, s64[2]{0}) tuple(a, b)
}
"#,
    );
    let p = e.prepare(&m, &r).unwrap();
    for n in 1..=3i64 {
        let got = p.run(&[]).unwrap().into_leaves();
        assert_eq!(got[0].to_vec::<i64>().unwrap(), [4, n], "run {n}");
        assert_eq!(got[1].to_vec::<i64>().unwrap(), [9, n], "run {n}");
    }
    assert_eq!(hlox_targets::rust_counters_live(), live + 2);
    drop(p);
    assert_eq!(
        hlox_targets::rust_counters_live(),
        live,
        "dropped with the module"
    );
    let bad = one_call("rust_counter", "", "", "s64[2]{0}", "{start = -2 : i64}");
    let err = e.prepare(&bad, &r).err().expect("instantiate fails");
    assert!(
        err.contains("instantiate stage failed") && err.contains("start must be >= 0"),
        "{err}"
    );
}

#[macro_export]
macro_rules! custom_call_suite_tests {
    ($engine:expr) => {
        #[test]
        fn typed_ffi_cpp_handlers_from_xla_headers_run_unchanged() {
            $crate::custom_call_suite::typed_ffi_cpp_handlers_from_xla_headers_run_unchanged(
                &$engine,
            );
        }
        #[test]
        fn typed_ffi_state_stages_and_futures() {
            $crate::custom_call_suite::typed_ffi_state_stages_and_futures(&$engine);
        }
        #[test]
        fn typed_ffi_rust_handler_registered_by_macro() {
            $crate::custom_call_suite::typed_ffi_rust_handler_registered_by_macro(&$engine);
        }
        #[test]
        fn every_host_api_version() {
            $crate::custom_call_suite::every_host_api_version(&$engine);
        }
        #[test]
        fn tuple_operand_and_tuple_result_with_scratch() {
            $crate::custom_call_suite::tuple_operand_and_tuple_result_with_scratch(&$engine);
        }
        #[test]
        fn opaque_bytes_including_nul_reach_the_target_exactly() {
            $crate::custom_call_suite::opaque_bytes_including_nul_reach_the_target_exactly(
                &$engine,
            );
        }
        #[test]
        fn axpby_with_serde_opaque_in_rust_and_c() {
            $crate::custom_call_suite::axpby_with_serde_opaque_in_rust_and_c(&$engine);
        }
        #[test]
        fn failure_message_reaches_the_caller_and_the_module_runs_again() {
            $crate::custom_call_suite::failure_message_reaches_the_caller_and_the_module_runs_again(
                &$engine,
            );
        }
        #[test]
        fn failure_inside_a_while_loop_stops_the_run() {
            $crate::custom_call_suite::failure_inside_a_while_loop_stops_the_run(&$engine);
        }
        #[test]
        fn panicking_rust_targets_become_errors() {
            $crate::custom_call_suite::panicking_rust_targets_become_errors(&$engine);
        }
        #[test]
        fn missing_target_fails_before_running_with_a_suggestion() {
            $crate::custom_call_suite::missing_target_fails_before_running_with_a_suggestion(
                &$engine,
            );
        }
        #[test]
        fn api_version_mismatch_names_both_versions() {
            $crate::custom_call_suite::api_version_mismatch_names_both_versions(&$engine);
        }
        #[test]
        fn duplicate_registration_is_an_error() {
            $crate::custom_call_suite::duplicate_registration_is_an_error(&$engine);
        }
        #[test]
        fn output_to_operand_aliasing_gives_the_target_one_buffer() {
            $crate::custom_call_suite::output_to_operand_aliasing_gives_the_target_one_buffer(
                &$engine,
            );
        }
    };
}
