//! Custom calls end to end through the reference evaluator: HLO text is
//! parsed and verified, every target is bound by name for the Host, and the
//! evaluator calls it with XLA's conventions on real buffers.

use hlox_eval::{evaluate_with_registry, EvalError};
use hlox_ffi::{encode_opaque, Platform, Registry};
use hlox_hlo::text::parse_module;
use hlox_hlo::verifier::verify_module;
use hlox_hlo::{Literal, Module};
use hlox_targets::AxpbyOpaque;

fn module(text: &str) -> Module {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    verify_module(&m).unwrap_or_else(|e| panic!("{e}"));
    m
}

fn static_targets() -> Registry {
    // Make sure the Rust target library is linked in.
    let _ = hlox_targets::do_custom_call as fn(_, _);
    Registry::with_static_targets().expect("static targets register")
}

fn seed_inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let b: Vec<f32> = (0..128).map(|i| i as f32 * 0.5).collect();
    let c: Vec<f32> = (0..2048).map(|i| (i as f32).sin()).collect();
    let want: Vec<f32> = (0..2048).map(|i| b[i % 128] + c[i]).collect();
    (b, c, want)
}

/// The seed program, with the custom call's result fed into more HLO.
fn seed_module(target: &str, api: &str) -> Module {
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

fn run_seed(registry: &Registry, target: &str, api: &str) -> Result<Vec<f32>, EvalError> {
    let (b, c, _) = seed_inputs();
    let m = seed_module(target, api);
    let out = evaluate_with_registry(&m, &[Literal::r1(&b), Literal::r1(&c)], registry)?;
    Ok(out.to_vec::<f32>().unwrap())
}

fn assert_seed(got: Vec<f32>) {
    let (_, _, want) = seed_inputs();
    let want2: Vec<f32> = want.iter().map(|x| x * 2.0).collect();
    assert_eq!(got, want2);
}

const ORIGINAL: &str = "";
const STATUS: &str = ", api_version=API_VERSION_STATUS_RETURNING";
const UNIFIED: &str = ", api_version=API_VERSION_STATUS_RETURNING_UNIFIED";

#[test]
fn seed_target_in_every_host_api_version_from_rust() {
    let r = static_targets();
    assert_seed(run_seed(&r, "do_custom_call", ORIGINAL).unwrap());
    assert_seed(run_seed(&r, "do_custom_call_status", STATUS).unwrap());
    assert_seed(run_seed(&r, "do_custom_call_unified", UNIFIED).unwrap());
}

#[test]
fn seed_target_from_c_plugin_by_registration_function() {
    let r = Registry::new();
    r.load_library(hlox_targets::C_PLUGIN_WITH_REGISTRATION)
        .unwrap();
    assert_seed(run_seed(&r, "do_custom_call", ORIGINAL).unwrap());
    assert_seed(run_seed(&r, "do_custom_call_status", STATUS).unwrap());
    assert_seed(run_seed(&r, "do_custom_call_unified", UNIFIED).unwrap());
}

#[test]
fn seed_target_from_c_plugin_by_plain_symbol() {
    let r = Registry::new();
    r.load_library(hlox_targets::C_PLUGIN_SYMBOLS_ONLY).unwrap();
    assert_seed(run_seed(&r, "do_custom_call", ORIGINAL).unwrap());
    assert_seed(run_seed(&r, "do_custom_call_status", STATUS).unwrap());
    assert_seed(run_seed(&r, "do_custom_call_unified", UNIFIED).unwrap());
}

#[test]
fn tuple_operand_and_tuple_result_with_scratch() {
    let text = r#"HloModule tuples

ENTRY main {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  c = f32[4]{0} parameter(2)
  inner = (f32[4]{0}, f32[4]{0}) tuple(b, c)
  arg = (f32[4]{0}, (f32[4]{0}, f32[4]{0})) tuple(a, inner)
  cc = (f32[4]{0}, f32[4]{0}) custom-call(arg), custom_call_target="tuple_fma", api_version=API_VERSION_STATUS_RETURNING
  ROOT out = f32[4]{0} get-tuple-element(cc), index=0
}
"#;
    let args = [
        Literal::r1(&[1f32, 2., 3., 4.]),
        Literal::r1(&[10f32, 20., 30., 40.]),
        Literal::r1(&[0.5f32, 0.25, 2., -1.]),
    ];
    for r in [static_targets(), {
        let r = Registry::new();
        r.load_library(hlox_targets::C_PLUGIN_WITH_REGISTRATION)
            .unwrap();
        r
    }] {
        let out = evaluate_with_registry(&module(text), &args, &r).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![6., 7., 63., -36.]);
    }
}

#[test]
fn opaque_bytes_including_nul_reach_the_target_exactly() {
    let text = r#"HloModule opaque

ENTRY main {
  ROOT cc = (s64[], u8[32]{0}) custom-call(), custom_call_target="opaque_echo", backend_config="ab\000c\377\n\"z", api_version=API_VERSION_STATUS_RETURNING_UNIFIED
}
"#;
    let out = evaluate_with_registry(&module(text), &[], &static_targets()).unwrap();
    let leaves = out.leaves();
    let want: &[u8] = b"ab\0c\xff\n\"z";
    assert_eq!(leaves[0].get_first::<i64>().unwrap(), want.len() as i64);
    assert_eq!(&leaves[1].to_vec::<u8>().unwrap()[..want.len()], want);
}

#[test]
fn axpby_with_serde_opaque_in_rust_and_c() {
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
    let m = b.build_module(z).unwrap();
    // Through text too: the opaque survives printing and parsing.
    let m = module(&hlox_hlo::text::print_module(&m));
    let args = [Literal::r1(&[1f32, 2., 3.]), Literal::r1(&[4f32, 8., -2.])];
    let c = Registry::new();
    c.load_library(hlox_targets::C_PLUGIN_SYMBOLS_ONLY).unwrap();
    for r in [static_targets(), c] {
        let out = evaluate_with_registry(&m, &args, &r).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![0., 0., 7.]);
    }
}

fn failing_module(target: &str, backend_config: &str) -> Module {
    module(&format!(
        r#"HloModule fails

ENTRY main {{
  x = f32[4]{{0}} parameter(0)
  ROOT f = f32[4]{{0}} custom-call(x), custom_call_target="{target}", backend_config="{backend_config}", api_version=API_VERSION_STATUS_RETURNING_UNIFIED
}}
"#
    ))
}

#[test]
fn failure_message_reaches_the_caller_with_instruction_and_target() {
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
    let e = evaluate_with_registry(&m, &x, &r).unwrap_err().to_string();
    assert!(e.contains("boom"), "{e}");
    assert!(e.contains("always_fails"), "{e}");
    assert!(e.contains("the target reports an error"), "{e}");
    // The message is cut at the first NUL, as XLA does.
    let e = evaluate_with_registry(
        &failing_module("fail_with_opaque", "before\\000after"),
        &x,
        &r,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("before"), "{e}");
    assert!(!e.contains("after"), "{e}");
    // The same registry and module run again afterwards.
    assert_seed(run_seed(&r, "do_custom_call", ORIGINAL).unwrap());
}

#[test]
fn failure_inside_a_while_loop_stops_the_run() {
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
    let e = evaluate_with_registry(&m, &[Literal::r1(&[1f32; 4])], &static_targets()).unwrap_err();
    let s = e.to_string();
    assert!(matches!(e, EvalError::CustomCall { .. }), "{s}");
    assert!(s.contains("always_fails"), "{s}");
}

#[test]
fn panicking_rust_targets_become_errors_and_the_process_survives() {
    let r = static_targets();
    let x = [Literal::r1(&[1f32; 4])];
    for (target, api) in [
        ("panics", "API_VERSION_STATUS_RETURNING"),
        ("panics_original", "API_VERSION_ORIGINAL"),
        ("panics_unwind", "API_VERSION_STATUS_RETURNING_UNIFIED"),
    ] {
        let m = module(&format!(
            "HloModule p\n\nENTRY main {{\n  x = f32[4]{{0}} parameter(0)\n  ROOT p = f32[4]{{0}} custom-call(x), custom_call_target=\"{target}\", api_version={api}\n}}\n"
        ));
        let e = evaluate_with_registry(&m, &x, &r).unwrap_err().to_string();
        assert!(e.contains(target) && e.contains("panic"), "{target}: {e}");
    }
    assert_seed(run_seed(&r, "do_custom_call", ORIGINAL).unwrap());
}

#[test]
fn missing_target_is_a_bind_error_with_suggestion_before_anything_runs() {
    let e = run_seed(&static_targets(), "do_custom_cal", ORIGINAL).unwrap_err();
    let s = e.to_string();
    assert!(matches!(e, EvalError::Bind(_)), "{s}");
    assert!(s.contains("do_custom_cal"), "{s}");
    assert!(s.contains("Host"), "{s}");
    assert!(s.contains("did you mean") || s.contains("closest"), "{s}");
    assert!(s.contains("\"do_custom_call\""), "{s}");
}

#[test]
fn api_version_mismatch_is_rejected_with_both_versions_named() {
    let e = run_seed(&static_targets(), "do_custom_call_status", ORIGINAL)
        .unwrap_err()
        .to_string();
    assert!(e.contains("API_VERSION_STATUS_RETURNING"), "{e}");
    assert!(e.contains("API_VERSION_ORIGINAL"), "{e}");
}

#[test]
fn duplicate_registration_of_a_different_function_is_an_error() {
    let r = static_targets();
    let e = r
        .register_fn("do_custom_call", Platform::Host, hlox_targets::tuple_fma)
        .unwrap_err();
    assert!(e.to_string().contains("do_custom_call"), "{e}");
    // Registering the same function again is a no-op, and the old one still runs.
    r.register_fn(
        "do_custom_call",
        Platform::Host,
        hlox_targets::do_custom_call,
    )
    .unwrap();
    assert_seed(run_seed(&r, "do_custom_call", ORIGINAL).unwrap());
}

#[test]
fn output_to_operand_aliasing_gives_the_target_one_buffer() {
    let m = module(
        r#"HloModule alias

ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT y = f32[4]{0} custom-call(x), custom_call_target="inplace_add_one", output_to_operand_aliasing={{}: (0, {})}, api_version=API_VERSION_STATUS_RETURNING
}
"#,
    );
    let x = Literal::r1(&[1f32, 2., 3., 4.]);
    let out = evaluate_with_registry(&m, std::slice::from_ref(&x), &static_targets()).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![2., 3., 4., 5.]);
    // The caller's argument is untouched (parameters are never written).
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![1., 2., 3., 4.]);
}
