//! The Host backend's integration tests (one binary: LLVM links statically).
//! Compiled results are compared with the reference evaluator and with
//! JAX's recorded outputs.

use hlox_cpu::{compile, ArgumentError, CompileOptions, ExecError};
use hlox_hlo::text::parse_module;
use hlox_hlo::{Literal, Module};
use std::sync::Arc;

fn opts() -> CompileOptions {
    CompileOptions::default()
}

fn run_both(m: &Module, args: &[Literal]) -> (Result<Literal, String>, Result<Literal, String>) {
    let compiled = compile(m, &opts())
        .map_err(|e| format!("compile: {e}"))
        .and_then(|exe| {
            exe.execute(&args.iter().collect::<Vec<_>>())
                .map_err(|e| format!("execute: {e}"))
        });
    let eval = hlox_eval::evaluate(m, args, &hlox_eval::NoCustomCalls).map_err(|e| e.to_string());
    (compiled, eval)
}

/// Compiled vs evaluated: exact for ints/pred, bit-exact floats unless `tol`.
fn check_module(m: &Module, args: &[Literal], tol: f64) -> Result<(), String> {
    let (c, e) = run_both(m, args);
    let e = e.map_err(|e| format!("evaluator: {e}"))?;
    let c = c?;
    let (cl, el) = (c.into_leaves(), e.into_leaves());
    if cl.len() != el.len() {
        return Err(format!("{} leaves vs {}", cl.len(), el.len()));
    }
    for (i, (g, w)) in cl.iter().zip(&el).enumerate() {
        if tol == 0.0 {
            if g != w {
                let ga = g.as_array().map_err(|e| e.to_string())?;
                let wa = w.as_array().map_err(|e| e.to_string())?;
                let (gb, wb) = (ga.logical_bytes(), wa.logical_bytes());
                let sz = ga.ty().byte_size();
                let p = gb.iter().zip(&wb).position(|(a, b)| a != b).unwrap_or(0) / sz.max(1);
                return Err(format!(
                    "leaf {i}: element {p} differs: got {:?}, want {:?} ({} vs {})",
                    &gb[p * sz..(p * sz + sz).min(gb.len())],
                    &wb[p * sz..(p * sz + sz).min(wb.len())],
                    hlox_hlo::text::shape_to_string(&g.shape()),
                    hlox_hlo::text::shape_to_string(&w.shape()),
                ));
            }
        } else {
            hlox_tests::compare_literals(g, w, tol, tol).map_err(|e| format!("leaf {i}: {e}"))?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// JAX corpus

use hlox_tests::registry_for;

#[test]
fn corpus_compiles_to_jax_outputs() {
    let cases = hlox_tests::corpus_cases();
    assert!(cases.len() >= 15);
    let mut failures = Vec::new();
    // With the HLO pass pipeline (fused loops) and without it (one loop nest
    // per instruction): both code paths must give JAX's outputs.
    for (case, hlo_passes) in cases.iter().flat_map(|c| [(c, true), (c, false)]) {
        let r = (|| -> Result<(), String> {
            let m = parse_module(&case.hlo_text()).map_err(|e| format!("parse: {e}"))?;
            let args = case.inputs()?;
            let o = CompileOptions {
                registry: Some(Arc::new(registry_for(case))),
                hlo_passes,
                ..opts()
            };
            let exe = compile(&m, &o);
            let exe = exe.map_err(|e| format!("compile: {e}"))?;
            let got = exe
                .execute(&args.iter().collect::<Vec<_>>())
                .map_err(|e| format!("execute: {e}"))?;
            case.check_outputs(got)?;
            Ok(())
        })();
        if let Err(e) = r {
            failures.push(format!("{} (hlo_passes={hlo_passes}): {e}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Differential tests: every element-wise opcode over every element type.

use hlox_hlo::{ArrayLiteral, ArrayShape, BinaryOp, ComparisonDirection, ElementType, UnaryOp};

/// Every element type, c64 and c128 included (complex ops run inline or
/// through the runtime's complex entries, which compute the evaluator's
/// formulas).
const TYPES: [ElementType; 15] = ElementType::ALL;

/// Module `name` whose entry has the parameter lines `params`, the
/// instruction `lines`, and returns the tuple of `roots` (name, shape).
fn tuple_module(name: &str, params: &str, lines: &[String], roots: &[(String, String)]) -> String {
    let shapes: Vec<&str> = roots.iter().map(|r| r.1.as_str()).collect();
    let names: Vec<&str> = roots.iter().map(|r| r.0.as_str()).collect();
    format!(
        "HloModule {name}\nENTRY e {{\n{params}\n{}\n  ROOT x = ({}) tuple({})\n}}\n",
        lines.join("\n"),
        shapes.join(", "),
        names.join(", ")
    )
}

/// Interesting values of `ty` as raw little-endian elements.
fn special_values(ty: ElementType) -> Vec<Vec<u8>> {
    use ElementType::*;
    let ints: Vec<i128> = vec![
        0,
        1,
        -1,
        2,
        3,
        -3,
        7,
        -8,
        5,
        31,
        32,
        33,
        63,
        64,
        100,
        -100,
        127,
        -128,
        255,
        32767,
        -32768,
        65535,
        2147483647,
        -2147483648,
        4294967295,
        i64::MAX as i128,
        i64::MIN as i128,
        u64::MAX as i128,
    ];
    #[rustfmt::skip]
    let floats: Vec<f64> = vec![
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 10.0, 100.25, -1e3,
        65504.0, 1e10, -3e38, 1e-40, -1e-40, 1e-310, f64::INFINITY, f64::NEG_INFINITY,
        f64::NAN, 0.1, 2.0, 3.0, 1e-5, 0.75,
    ];
    match ty {
        Pred => vec![vec![0], vec![1]],
        S8 | U8 => ints.iter().map(|&v| vec![v as u8]).collect(),
        S16 | U16 => ints
            .iter()
            .map(|&v| (v as u16).to_le_bytes().to_vec())
            .collect(),
        S32 | U32 => ints
            .iter()
            .map(|&v| (v as u32).to_le_bytes().to_vec())
            .collect(),
        S64 | U64 => ints
            .iter()
            .map(|&v| (v as u64).to_le_bytes().to_vec())
            .collect(),
        F16 => floats
            .iter()
            .map(|&v| half::f16::from_f64(v).to_le_bytes().to_vec())
            .chain([vec![1, 0]]) // an f16 denormal
            .collect(),
        Bf16 => floats
            .iter()
            .map(|&v| half::bf16::from_f64(v).to_le_bytes().to_vec())
            .collect(),
        F32 => floats
            .iter()
            .map(|&v| (v as f32).to_le_bytes().to_vec())
            .collect(),
        F64 => floats.iter().map(|&v| v.to_le_bytes().to_vec()).collect(),
        // Each special value as a real part, with the values reversed as
        // imaginary parts.
        C64 => floats
            .iter()
            .zip(floats.iter().rev())
            .map(|(&re, &im)| [(re as f32).to_le_bytes(), (im as f32).to_le_bytes()].concat())
            .collect(),
        C128 => floats
            .iter()
            .zip(floats.iter().rev())
            .map(|(&re, &im)| [re.to_le_bytes(), im.to_le_bytes()].concat())
            .collect(),
    }
}

/// All pairs of special values: (a, b) literals of equal length.
fn pair_literals(ty: ElementType) -> (Literal, Literal, usize) {
    let v = special_values(ty);
    let n = v.len();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for x in &v {
        for y in &v {
            a.extend_from_slice(x);
            b.extend_from_slice(y);
        }
    }
    let s = ArrayShape::new(ty, vec![(n * n) as i64]);
    (
        Literal::Array(ArrayLiteral::from_bytes(s.clone(), a).unwrap()),
        Literal::Array(ArrayLiteral::from_bytes(s, b).unwrap()),
        n * n,
    )
}

fn single_op_ok(text: &str, args: &[Literal]) -> bool {
    let Ok(m) = parse_module(text) else {
        return false;
    };
    if hlox_hlo::verifier::verify_module(&m).is_err() {
        return false;
    }
    hlox_eval::evaluate(&m, args, &hlox_eval::NoCustomCalls).is_ok()
}

/// Builds one module per type with every op the evaluator accepts, runs it
/// compiled and evaluated, compares.
fn elementwise_suite(ops: &[(&str, String, bool)], tol: f64) {
    let mut failures = Vec::new();
    for ty in TYPES {
        let (a, b, n) = pair_literals(ty);
        let args = [a, b];
        let t = format!("{}[{n}]", ty.name());
        let mut lines = Vec::new();
        let mut roots = Vec::new();
        for (i, (opname, attrs, pred_result)) in ops.iter().enumerate() {
            let rt = if *pred_result {
                format!("pred[{n}]")
            } else {
                t.clone()
            };
            let nargs = if opname.starts_with("u:") { 1 } else { 2 };
            let op = opname.trim_start_matches("u:");
            let operands = if nargs == 1 {
                "a".to_string()
            } else {
                "a, b".to_string()
            };
            let line = format!("  r{i} = {rt} {op}({operands}){attrs}");
            let single = format!(
                "HloModule s\nENTRY e {{\n  a = {t} parameter(0)\n  b = {t} parameter(1)\n{line}\n  ROOT x = ({rt}) tuple(r{i})\n}}\n"
            );
            if single_op_ok(&single, &args) {
                lines.push(line);
                roots.push((format!("r{i}"), rt));
            }
        }
        if roots.is_empty() {
            continue;
        }
        let params = format!("  a = {t} parameter(0)\n  b = {t} parameter(1)");
        let text = tuple_module("all", &params, &lines, &roots);
        let m = parse_module(&text).unwrap();
        let t2 = if matches!(ty, ElementType::F16 | ElementType::Bf16) {
            tol * 1e3
        } else {
            tol
        };
        if let Err(e) = check_module(&m, &args, t2) {
            // Name the failing op.
            let leaf: usize = e
                .strip_prefix("leaf ")
                .and_then(|s| s.split(':').next())
                .and_then(|s| s.parse().ok())
                .unwrap_or(usize::MAX);
            let what = roots
                .get(leaf)
                .and_then(|r| lines.iter().find(|l| l.contains(&format!("{} =", r.0))))
                .cloned()
                .unwrap_or_default();
            failures.push(format!("{}: {e} [{what}]", ty.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn exact_unary_binary_compare_ops_match_the_evaluator_on_every_type() {
    use UnaryOp::*;
    let mut ops: Vec<(&str, String, bool)> = Vec::new();
    let un: Vec<String> = [
        Negate,
        Abs,
        Sign,
        Not,
        Sqrt,
        Rsqrt,
        Floor,
        Ceil,
        RoundNearestAfz,
        RoundNearestEven,
        PopulationCount,
        CountLeadingZeros,
    ]
    .iter()
    .map(|u| format!("u:{}", u.name()))
    .collect();
    let un: Vec<&'static str> = un
        .into_iter()
        .map(|s| &*Box::leak(s.into_boxed_str()))
        .collect();
    for u in &un {
        ops.push((u, String::new(), false));
    }
    ops.push(("u:is-finite", String::new(), true));
    use BinaryOp::*;
    for bop in [
        Add,
        Subtract,
        Multiply,
        Divide,
        Remainder,
        Maximum,
        Minimum,
        And,
        Or,
        Xor,
        ShiftLeft,
        ShiftRightLogical,
        ShiftRightArithmetic,
    ] {
        ops.push((bop.name(), String::new(), false));
    }
    for d in ComparisonDirection::ALL {
        ops.push(("compare", format!(", direction={}", d.name()), true));
        ops.push((
            "compare",
            format!(", direction={}, type=TOTALORDER", d.name()),
            true,
        ));
    }
    elementwise_suite(&ops, 0.0);
}

#[test]
fn transcendental_ops_match_the_evaluator_within_tolerance() {
    use UnaryOp::*;
    let mut ops: Vec<(&str, String, bool)> = Vec::new();
    for u in [
        Exp, Expm1, Log, Log1p, Cbrt, Tanh, Logistic, Sin, Cos, Tan, Erf,
    ] {
        let s: &'static str = Box::leak(format!("u:{}", u.name()).into_boxed_str());
        ops.push((s, String::new(), false));
    }
    ops.push((BinaryOp::Power.name(), String::new(), false));
    ops.push((BinaryOp::Atan2.name(), String::new(), false));
    elementwise_suite(&ops, 1e-6);
}

#[test]
fn convert_and_bitcast_convert_between_every_pair_of_types() {
    let mut failures = Vec::new();
    for from in TYPES {
        let (a, _, n) = pair_literals(from);
        let t = format!("{}[{n}]", from.name());
        let mut lines = Vec::new();
        let mut roots = Vec::new();
        for (i, to) in TYPES.iter().enumerate() {
            // A complex value has no real conversion (the verifier refuses it).
            if from.is_complex() && !to.is_complex() {
                continue;
            }
            let rt = format!("{}[{n}]", to.name());
            lines.push(format!("  c{i} = {rt} convert(a)"));
            roots.push((format!("c{i}"), rt.clone()));
            if to.bit_width() == from.bit_width()
                && !to.is_complex()
                && !from.is_complex()
                && *to != ElementType::Pred
                && from != ElementType::Pred
            {
                lines.push(format!("  b{i} = {rt} bitcast-convert(a)"));
                roots.push((format!("b{i}"), rt));
            }
        }
        if from.is_float() {
            for (e, mbits) in [(5, 10), (8, 7), (4, 3), (11, 52), (8, 23), (2, 0)] {
                lines.push(format!("  p{e}_{mbits} = {t} reduce-precision(a), exponent_bits={e}, mantissa_bits={mbits}"));
                roots.push((format!("p{e}_{mbits}"), t.clone()));
            }
        }
        let text = tuple_module("conv", &format!("  a = {t} parameter(0)"), &lines, &roots);
        let m = parse_module(&text).unwrap();
        if let Err(e) = check_module(&m, &[a], 0.0) {
            failures.push(format!("from {}: {e}", from.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------
// Text programs vs the evaluator. The data-movement, reduction, control-flow
// and fusion programs are filetests: tests/filetests/host/.

use hlox_tests::random_args;

fn check_text(text: &str) -> Result<(), String> {
    check_text_tol(text, 0.0)
}

fn check_text_tol(text: &str, tol: f64) -> Result<(), String> {
    let m = parse_module(text).map_err(|e| format!("parse: {e}"))?;
    hlox_hlo::verifier::verify_module(&m).map_err(|e| format!("verify: {e}"))?;
    check_module(&m, &random_args(&m, 17), tol)
}

fn check_all(cases: &[(&str, &str)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(n, t)| check_text(t).err().map(|e| format!("{n}: {e}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------
// Random programs

mod random_programs {
    use super::*;
    use proptest::prelude::*;

    fn program_targets() -> hlox_ffi::Registry {
        let _ = hlox_targets::do_custom_call as fn(_, _);
        hlox_ffi::Registry::with_static_targets().expect("static targets")
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]
        #[test]
        fn random_programs_compile_to_the_evaluators_results(m in hlox_tests::programs::program()) {
            let r = Arc::new(program_targets());
            let args = random_args(&m, 3);
            let want = hlox_eval::evaluate_with_registry(&m, &args, &r);
            let exe = compile(&m, &CompileOptions { registry: Some(r.clone()), ..opts() });
            match (want, exe) {
                (Ok(want), Ok(exe)) => {
                    let got = exe.execute(&args.iter().collect::<Vec<_>>()).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    for (i, (g, w)) in got.leaves().iter().zip(want.leaves()).enumerate() {
                        // Dots sum in a different order: small tolerance.
                        hlox_tests::compare_literals(g, w, 1e-5, 1e-5).map_err(|e| TestCaseError::fail(format!("leaf {i}: {e}\n{}", hlox_hlo::text::print_module(&m))))?;
                    }
                }
                (Err(e), Ok(exe)) => {
                    // The evaluator failed at run time (a failing target): so must we.
                    let r = exe.execute(&args.iter().collect::<Vec<_>>());
                    prop_assert!(r.is_err(), "evaluator failed ({e}) but compiled code succeeded");
                }
                (Ok(_), Err(e)) => prop_assert!(false, "compile failed: {e}\n{}", hlox_hlo::text::print_module(&m)),
                (Err(_), Err(_)) => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Custom calls, compiled (the cases of tests/tests/custom_calls.rs).

mod custom_calls {
    //! The shared custom-call cases (hlox_tests::custom_call_suite), compiled,
    //! plus what only a compiler has: compile-time errors and one executable
    //! run from many threads.
    use super::*;
    use hlox_cpu::{CompileError, Executable};
    use hlox_ffi::Registry;
    use hlox_tests::custom_call_suite::{self as suite, Engine, Prepared};

    pub(super) use suite::{seed_inputs, seed_module, static_targets, ORIGINAL};

    pub(super) fn build(m: &Module, r: &Arc<Registry>) -> Result<Executable, CompileError> {
        compile(
            m,
            &CompileOptions {
                registry: Some(r.clone()),
                ..opts()
            },
        )
    }

    /// The Host backend as a suite engine: prepare = compile, run = execute.
    struct Host;

    struct Compiled(Executable);

    impl Prepared for Compiled {
        fn run(&self, args: &[Literal]) -> Result<Literal, String> {
            self.0
                .execute(&args.iter().collect::<Vec<_>>())
                .map_err(|e| e.to_string())
        }
    }

    impl Engine for Host {
        fn prepare(
            &self,
            module: &Module,
            registry: &Arc<Registry>,
        ) -> Result<Box<dyn Prepared>, String> {
            Ok(Box::new(Compiled(
                build(module, registry).map_err(|e| e.to_string())?,
            )))
        }
    }

    hlox_tests::custom_call_suite_tests!(Host);

    #[test]
    fn error_kinds() {
        let e = build(&seed_module("do_custom_cal", ORIGINAL), &static_targets())
            .err()
            .unwrap();
        assert!(matches!(e, CompileError::Bind(_)), "{e}");
        let err = suite::failure_inside_a_while_loop_stops_the_run(&Host);
        assert!(err.contains(" w "), "names the while's custom call: {err}");
        // A failing target is a typed ExecError::CustomCall naming the
        // instruction and the target, with the target's own message.
        let fails = parse_module(
            "HloModule f\n\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  ROOT boom = f32[4]{0} custom-call(x), custom_call_target=\"always_fails\", api_version=API_VERSION_STATUS_RETURNING\n}\n",
        )
        .unwrap();
        let exe = build(&fails, &static_targets()).unwrap();
        let e = exe.execute(&[&Literal::r1(&[1f32; 4])]).unwrap_err();
        assert!(
            matches!(e, ExecError::CustomCall { ref instruction, ref target, ref message }
                if instruction == "boom" && target == "always_fails"
                    && message == "always_fails: the target reports an error"),
            "{e:?}"
        );
    }

    #[test]
    fn eight_threads_run_one_executable_with_a_custom_call() {
        let exe =
            Arc::new(build(&seed_module("do_custom_call", ORIGINAL), &static_targets()).unwrap());
        let (b, c, want) = seed_inputs();
        let (b, c) = (Arc::new(Literal::r1(&b)), Arc::new(Literal::r1(&c)));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (exe, b, c) = (exe.clone(), b.clone(), c.clone());
                std::thread::spawn(move || {
                    (0..100)
                        .map(|_| exe.execute(&[&b, &c]).unwrap().to_vec::<f32>().unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for got in h.join().unwrap() {
                assert_eq!(got, want);
            }
        }
    }

    /// Typed-FFI calls keep their call frames in a per-run arena from the
    /// executable's pool (hlox_ffi::xla_ffi::direct): runs of one
    /// executable on several threads at once each take their own. The chain
    /// has every path of a direct call: the fast one (AxpbyFfi), scratch
    /// memory (ScratchFfi), a future completed before the handler returns
    /// and one completed later on another thread (AsyncDoubleFfi), and a
    /// handler's error in a second executable run alongside.
    #[test]
    fn eight_threads_run_one_executable_with_typed_ffi_calls() {
        let r = suite::cpp_ffi_plugin();
        let m = suite::module(
            r#"HloModule ffi_threads

ENTRY main {
  x = f32[64]{0} parameter(0)
  y = f32[64]{0} parameter(1)
  a = f32[64]{0} custom-call(x, y), custom_call_target="AxpbyFfi", api_version=API_VERSION_TYPED_FFI, backend_config={alpha = 2.000000e+00 : f32, beta = -5.000000e-01 : f32}
  s = f32[64]{0} custom-call(a), custom_call_target="ScratchFfi", api_version=API_VERSION_TYPED_FFI, backend_config={}
  d = f32[64]{0} custom-call(s), custom_call_target="AsyncDoubleFfi", api_version=API_VERSION_TYPED_FFI, backend_config={delay_ms = -1 : i64}
  l = f32[64]{0} custom-call(d), custom_call_target="AsyncDoubleFfi", api_version=API_VERSION_TYPED_FFI, backend_config={delay_ms = 0 : i64}
  b = f32[64]{0} custom-call(l, x), custom_call_target="AxpbyFfi", api_version=API_VERSION_TYPED_FFI, backend_config={alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32}
  ROOT t = f32[64]{0} custom-call(b), custom_call_target="ScratchFfi", api_version=API_VERSION_TYPED_FFI, backend_config={}
}
"#,
        );
        let exe = Arc::new(build(&m, &r).unwrap());
        let fails = suite::module(
            r#"HloModule ffi_fails

ENTRY main {
  x = f32[64]{0} parameter(0)
  a = f32[64]{0} custom-call(x), custom_call_target="ScratchFfi", api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT f = f32[64]{0} custom-call(a), custom_call_target="FailFfi", api_version=API_VERSION_TYPED_FFI, backend_config={why = "thread"}
}
"#,
        );
        let fails = Arc::new(build(&fails, &r).unwrap());
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let (exe, fails) = (exe.clone(), fails.clone());
                std::thread::spawn(move || {
                    for k in 0..40 {
                        // Inputs of their own per thread and run.
                        let x: Vec<f32> = (0..64).map(|i| (i + 100 * t + k) as f32).collect();
                        let y: Vec<f32> = (0..64).map(|i| (i * t) as f32 * 0.5).collect();
                        let got = exe
                            .execute(&[&Literal::r1(&x), &Literal::r1(&y)])
                            .unwrap()
                            .to_vec::<f32>()
                            .unwrap();
                        // rev(4 * rev(2x - y/2) + x) = 4 (2x - y/2) + rev(x)
                        let want: Vec<f32> = (0..64)
                            .map(|i| 4.0 * (2.0 * x[i] - 0.5 * y[i]) + x[63 - i])
                            .collect();
                        assert_eq!(got, want, "thread {t}, run {k}");
                        if k % 8 == 0 {
                            let e = fails.execute(&[&Literal::r1(&x)]).unwrap_err();
                            assert!(e.to_string().contains("refused: thread"), "{e}");
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}

// ---------------------------------------------------------------------------
// API: execute_into, argument checks, dumps, the facade.

#[test]
fn execute_into_writes_the_callers_buffers_without_copies() {
    // The root is computed straight into the output buffer: a custom call
    // recording its `out` pointer proves the target wrote the caller's memory.
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SEEN: AtomicUsize = AtomicUsize::new(0);
    fn record(out: *mut std::ffi::c_void, ins: *const *const std::ffi::c_void) {
        SEEN.store(out as usize, Ordering::SeqCst);
        unsafe {
            let x = std::slice::from_raw_parts(*ins as *const f32, 4);
            let o = std::slice::from_raw_parts_mut(out as *mut f32, 4);
            for i in 0..4 {
                o[i] = x[i] * 10.0;
            }
        }
    }
    let r = hlox_ffi::Registry::new();
    r.register_fn("record_out", hlox_ffi::Platform::Host, record)
        .unwrap();
    let m = parse_module(
        "HloModule m\nENTRY e {\n  x = f32[4]{0} parameter(0)\n  n = f32[4]{0} negate(x)\n  c = f32[4]{0} custom-call(n), custom_call_target=\"record_out\"\n  s = f32[4]{0} sqrt(x)\n  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(c, s)\n}\n",
    )
    .unwrap();
    let exe = compile(
        &m,
        &CompileOptions {
            registry: Some(Arc::new(r)),
            ..opts()
        },
    )
    .unwrap();
    let x: Vec<u8> = [1f32, 4., 9., 16.]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut o0 = vec![0u8; 16];
    let mut o1 = vec![0u8; 16];
    let p0 = o0.as_ptr() as usize;
    exe.execute_into(&[&x], &mut [&mut o0, &mut o1]).unwrap();
    assert_eq!(
        SEEN.load(Ordering::SeqCst),
        p0,
        "the target wrote the caller's buffer"
    );
    let f = |b: &[u8]| {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect::<Vec<_>>()
    };
    assert_eq!(f(&o0), vec![-10., -40., -90., -160.]);
    assert_eq!(f(&o1), vec![1., 2., 3., 4.]);
    // Wrong sizes are errors, not crashes.
    let e = exe
        .execute_into(&[&x[..8]], &mut [&mut o0, &mut o1])
        .unwrap_err();
    assert!(e.to_string().contains("parameter `x`"), "{e}");
    let e = exe.execute_into(&[&x], &mut [&mut o0]).unwrap_err();
    assert!(matches!(e, ExecError::Output(_)), "{e}");
}

#[test]
fn arguments_are_checked_with_errors_naming_the_parameter() {
    let m = parse_module("HloModule m\nENTRY e {\n  a = f32[4]{0} parameter(0)\n  bee = s32[2]{0} parameter(1)\n  ROOT c = f32[4]{0} negate(a)\n}\n").unwrap();
    let exe = compile(&m, &opts()).unwrap();
    let a = Literal::r1(&[1f32; 4]);
    let e = exe.execute(&[&a]).unwrap_err();
    assert!(
        matches!(
            e,
            ExecError::Arguments(ArgumentError::Count {
                expected: 2,
                actual: 1
            })
        ),
        "{e}"
    );
    let e = exe
        .execute(&[&a, &Literal::r1(&[1f32, 2.])])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bee") && e.contains("s32[2]") && e.contains("f32[2]"),
        "{e}"
    );
    let e = exe
        .execute(&[&a, &Literal::r1(&[1i32, 2, 3])])
        .unwrap_err()
        .to_string();
    assert!(e.contains("argument 1") && e.contains("s32[3]"), "{e}");
}

#[test]
fn dump_dir_holds_hlo_buffer_assignment_ir_and_assembly() {
    let dir = std::env::temp_dir().join(format!("hlox-cpu-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let m = parse_module("HloModule dumped\nENTRY e {\n  a = f32[64]{0} parameter(0)\n  b = f32[64]{0} exponential(a)\n  ROOT c = f32[64]{0} add(b, a)\n}\n").unwrap();
    let exe = compile(
        &m,
        &CompileOptions {
            dump_dir: Some(dir.clone()),
            ..opts()
        },
    )
    .unwrap();
    let read =
        |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    assert!(read("module.hlo").contains("HloModule dumped"));
    // The pass pipeline's stages: the input, each changing pass, the result
    // (exponential and add fused into one loop).
    assert!(read("000.dumped.input.hlo").contains("exponential(a)"));
    let optimized = read("module.optimized.hlo");
    assert!(optimized.contains("fusion(a), kind=kLoop"), "{optimized}");
    assert!(std::fs::read_dir(&dir).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .ends_with(".fusion.hlo")));
    let ba = read("buffer-assignment.txt");
    assert!(ba.contains("= fusion: output leaf 0"), "{ba}");
    let ll = read("module.ll");
    assert!(
        ll.contains("define i32 @") && ll.contains("comp.") && ll.contains("fadd"),
        "{ll}"
    );
    let opt = read("module.opt.ll");
    assert!(opt.contains("define") && opt.contains("loop."), "{opt}");
    let asm = read("module.s");
    assert!(asm.contains("ret"), "{asm}");
    // The element loop is vectorized (packed single-precision adds).
    #[cfg(target_arch = "x86_64")]
    assert!(asm.contains("addps"), "{asm}");
    let r = exe.report();
    assert!(r.total >= r.optimization && r.llvm_functions >= 2, "{r:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn facade_client_compiles_and_runs_with_a_custom_registry() {
    let m = parse_module("HloModule m\nENTRY e {\n  a = f32[3]{0} parameter(0)\n  b = f32[3]{0} parameter(1)\n  ROOT c = f32[3]{0} multiply(a, b)\n}\n").unwrap();
    let client = hlox::Client::cpu().unwrap();
    assert_eq!(client.platform(), hlox::Platform::Host);
    let exe = client
        .compile(&m, &hlox::CompileOptions::default())
        .unwrap();
    let out = exe
        .execute(&[&Literal::r1(&[1f32, 2., 3.]), &Literal::r1(&[4f32, 5., 6.])])
        .unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![4., 10., 18.]);
    // A module with an unknown target fails to compile through the facade too.
    let e = client
        .compile(
            &custom_calls::seed_module("nope_target", ""),
            &hlox::CompileOptions {
                registry: Some(custom_calls::static_targets()),
                ..Default::default()
            },
        )
        .err()
        .unwrap();
    assert!(
        matches!(e, hlox::Error::Compile(hlox::CompileError::Bind(_))),
        "{e}"
    );
    // Several GPUs (NCCL): without the nccl feature or a driver, an error
    // saying which, never a panic (crates/hlox-cuda/tests/cuda.rs runs them).
    match hlox::Client::cuda_devices(4) {
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains("`nccl` feature") || msg.contains("libcuda.so"),
                "{msg}"
            );
            assert_eq!(e.platform(), Some(hlox::Platform::Cuda));
        }
        Ok(c) => assert_eq!(c.device_count(), 4),
    }
    assert!(hlox::Client::cuda_devices(0).is_err());
}

#[test]
fn arguments_in_other_layouts_are_relaid_out() {
    let m = parse_module("HloModule m\nENTRY e {\n  a = s32[2,3]{0,1} parameter(0)\n  ROOT r = s32[3,2]{1,0} transpose(a), dimensions={1,0}\n}\n").unwrap();
    let exe = compile(&m, &opts()).unwrap();
    // A row-major literal: the executable relays it out to {0,1}.
    let a = Literal::from_vec(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
    let out = exe.execute(&[&a]).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![1, 4, 2, 5, 3, 6]);
}

// ---------------------------------------------------------------------------
// Fast paths: vectorized reductions and f32 transcendental approximations.

mod fast_paths {
    use super::*;

    fn run1(text: &str, args: &[Literal]) -> (Literal, Literal) {
        let m = parse_module(text).unwrap();
        hlox_hlo::verifier::verify_module(&m).unwrap();
        let (c, e) = run_both(&m, args);
        (c.unwrap(), e.unwrap())
    }

    /// Distance in units in the last place (signed zeros equal).
    fn ulps(a: f32, b: f32) -> u64 {
        let o = |x: f32| -> i64 {
            let b = x.to_bits();
            if b >> 31 == 1 {
                -((b & 0x7fff_ffff) as i64)
            } else {
                b as i64
            }
        };
        (o(a) - o(b)).unsigned_abs()
    }

    #[test]
    fn f32_exp_log_tanh_logistic_within_claimed_ulps_of_the_evaluator() {
        let mut xs: Vec<f32> = Vec::new();
        let n = 200_000;
        for i in 0..n {
            xs.push(-110.0 + 205.0 * i as f32 / n as f32);
        }
        for i in 0..n {
            xs.push(-12.0 + 24.0 * i as f32 / n as f32);
        }
        // Positive floats by their bits (every binade), and their negatives.
        let mut bits = 0u32;
        while bits < 0x7f80_0000 {
            xs.push(f32::from_bits(bits));
            xs.push(-f32::from_bits(bits));
            bits += 9973;
        }
        xs.extend([
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            88.72283,
            88.72284,
            -87.33654,
            -103.9,
            f32::MAX,
            f32::MIN,
            1.0,
            0.55,
            -0.55,
            1e-4,
        ]);
        let len = xs.len();
        let text = format!(
            "HloModule m\nENTRY e {{\n p = f32[{len}] parameter(0)\n a = f32[{len}] exponential(p)\n b = f32[{len}] log(p)\n c = f32[{len}] tanh(p)\n d = f32[{len}] logistic(p)\n ROOT t = (f32[{len}], f32[{len}], f32[{len}], f32[{len}]) tuple(a, b, c, d)\n}}\n"
        );
        let arg = Literal::from_vec(&[len as i64], &xs).unwrap();
        let (c, e) = run1(&text, &[arg]);
        let bounds = [("exp", 1u64), ("log", 1), ("tanh", 6), ("logistic", 4)];
        let (cl, el) = (c.into_leaves(), e.into_leaves());
        for (k, (name, bound)) in bounds.iter().enumerate() {
            let g: Vec<f32> = cl[k].to_vec().unwrap();
            let w: Vec<f32> = el[k].to_vec().unwrap();
            let mut worst = (0u64, 0.0f32);
            for i in 0..len {
                let (a, b) = (g[i], w[i]);
                if a.is_nan() || b.is_nan() {
                    assert!(
                        a.is_nan() && b.is_nan(),
                        "{name}({}) = {a}, want {b}",
                        xs[i]
                    );
                    continue;
                }
                if a.is_infinite() || b.is_infinite() || a == 0.0 || b == 0.0 {
                    // Exact special values; a result within 2 ulp of the
                    // smallest normal may flush to zero on one side only.
                    let tiny = |v: f32| v.abs() <= f32::MIN_POSITIVE * 1.000_001;
                    assert!(
                        a == b || (a == 0.0 && tiny(b)) || (b == 0.0 && tiny(a)),
                        "{name}({:e}) = {a:e}, want {b:e}",
                        xs[i]
                    );
                    continue;
                }
                if *name == "tanh" {
                    assert!(
                        (a - b).abs() < 4e-7,
                        "tanh({:e}) = {a:e}, want {b:e}",
                        xs[i]
                    );
                }
                let u = ulps(a, b);
                if u > worst.0 {
                    worst = (u, xs[i]);
                }
            }
            eprintln!("{name}: max {} ulp at {:e}", worst.0, worst.1);
            assert!(
                worst.0 <= *bound,
                "{name}: {} ulp at x = {:e} (bound {bound})",
                worst.0,
                worst.1
            );
        }
    }

    /// Beyond the rational fit (|x| from 7.905 on), compiled tanh steps
    /// below 1 exactly where the correctly rounded tanh (and libm's tanhf,
    /// the evaluator's) does: each step's bound and its neighbours, a
    /// sweep of the range, both signs, bit for bit.
    #[test]
    fn f32_tanh_beyond_the_fit_is_the_evaluators_bit_for_bit() {
        let lim = 7.905_311_f32;
        let mut xs: Vec<f32> = Vec::new();
        for step in hlox_codegen::math::TANH_F32_STEPS.into_iter().chain([lim]) {
            for d in -4i32..=4 {
                let x = f32::from_bits(step.to_bits().wrapping_add_signed(d));
                if x >= lim {
                    xs.push(x);
                }
            }
        }
        let mut bits = lim.to_bits();
        while f32::from_bits(bits) < 9.5 {
            xs.push(f32::from_bits(bits));
            bits += 61;
        }
        let negated: Vec<f32> = xs.iter().map(|x| -x).collect();
        xs.extend(negated);
        xs.extend([1e30, -1e30, f32::MAX, f32::INFINITY, f32::NEG_INFINITY]);
        let len = xs.len();
        let text = format!(
            "HloModule m\nENTRY e {{\n p = f32[{len}] parameter(0)\n ROOT t = f32[{len}] tanh(p)\n}}\n"
        );
        let (c, e) = run1(&text, &[Literal::from_vec(&[len as i64], &xs).unwrap()]);
        let (g, w): (Vec<f32>, Vec<f32>) = (c.to_vec().unwrap(), e.to_vec().unwrap());
        for i in 0..len {
            assert_eq!(
                g[i].to_bits(),
                w[i].to_bits(),
                "tanh({:e}) = {:e}, the evaluator's {:e}",
                xs[i],
                g[i],
                w[i]
            );
        }
    }

    #[test]
    fn large_float_sum_is_exact_on_exact_data_and_accurate_on_random_data() {
        // Multiples of 1/4 below 2^22: every partial sum is exact, whatever the order.
        let n: u64 = 1 << 21;
        let xs: Vec<f32> = (0..n).map(|i| ((i * 7919) % 4) as f32 * 0.25).collect();
        let text = format!("HloModule m\nadd {{\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}}\nENTRY e {{\n p = f32[{n}] parameter(0)\n z = f32[] constant(0)\n ROOT r = f32[] reduce(p, z), dimensions={{0}}, to_apply=add\n}}\n");
        let (c, e) = run1(&text, &[Literal::from_vec(&[n as i64], &xs).unwrap()]);
        assert_eq!(c, e);
        let want: f64 = xs.iter().map(|&x| x as f64).sum();
        assert_eq!(c.to_vec::<f32>().unwrap()[0] as f64, want);
        // Random data: closer to the f64 sum than 1e-5 relative.
        let ys: Vec<f32> = (0..n)
            .map(|i| (((i * 2654435761) % 1000) as f32) / 997.0 + 0.1)
            .collect();
        let (c, _) = run1(&text, &[Literal::from_vec(&[n as i64], &ys).unwrap()]);
        let want: f64 = ys.iter().map(|&x| x as f64).sum();
        let got = c.to_vec::<f32>().unwrap()[0] as f64;
        assert!(((got - want) / want).abs() < 1e-6, "{got} vs {want}");
    }

    #[test]
    fn max_and_min_reductions_propagate_nan() {
        for (op, init) in [("maximum", "-inf"), ("minimum", "inf")] {
            let n = 10_000;
            let mut xs: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let text = format!("HloModule m\nf {{\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] {op}(a, b)\n}}\nENTRY e {{\n p = f32[{n}] parameter(0)\n z = f32[] constant({init})\n ROOT r = f32[] reduce(p, z), dimensions={{0}}, to_apply=f\n}}\n");
            let (c, e) = run1(&text, &[Literal::from_vec(&[n as i64], &xs).unwrap()]);
            assert_eq!(c, e, "{op}");
            xs[6543] = f32::NAN;
            let (c, e) = run1(&text, &[Literal::from_vec(&[n as i64], &xs).unwrap()]);
            assert!(c.to_vec::<f32>().unwrap()[0].is_nan(), "{op}");
            assert!(e.to_vec::<f32>().unwrap()[0].is_nan(), "{op}");
        }
    }

    #[test]
    fn integer_row_and_empty_reductions_match_the_evaluator() {
        #[rustfmt::skip]
        let cases = [
            ("s32 add", "s32", "add", "0", "[4099]", "{0}", "[]"),
            ("s64 multiply", "s64", "multiply", "1", "[37,300]", "{1}", "[37]"),
            ("u8 maximum", "u8", "maximum", "0", "[64,513]", "{0,1}", "[]"),
            ("s16 minimum", "s16", "minimum", "32767", "[5000]", "{0}", "[]"),
            ("u32 and", "u32", "and", "4294967295", "[300,70]", "{0}", "[70]"),
            ("s32 or", "s32", "or", "0", "[300,70]", "{1}", "[300]"),
            ("pred or", "pred", "or", "false", "[1000]", "{0}", "[]"),
            ("f32 row sum", "f32", "add", "0", "[256,1024]", "{1}", "[256]"),
            ("f32 row max", "f32", "maximum", "-inf", "[256,1024]", "{1}", "[256]"),
            ("f32 column sum", "f32", "add", "0", "[1024,64]", "{0}", "[64]"),
            ("f64 sum 2d", "f64", "add", "0", "[300,700]", "{0,1}", "[]"),
            ("f32 empty", "f32", "add", "1.5", "[7,0]", "{1}", "[7]"),
            // Large reductions to one element run split across threads
            // (init used once for add/multiply, identity in the other parts).
            ("s32 add split", "s32", "add", "5", "[200000]", "{0}", "[]"),
            ("s64 multiply split", "s64", "multiply", "3", "[100000]", "{0}", "[]"),
            ("u8 minimum split", "u8", "minimum", "7", "[70000]", "{0}", "[]"),
            ("f32 maximum split", "f32", "maximum", "-inf", "[300,1000]", "{0,1}", "[]"),
            ("f32 add split 3d", "f32", "add", "0.25", "[1,40,50,60]", "{1,2,3}", "[1]"),
            ("s32 empty", "s32", "maximum", "-5", "[0,3]", "{0}", "[3]"),
        ];
        for (name, ty, op, init, dims, red, out) in cases {
            let text = format!("HloModule m\nf {{\n a = {ty}[] parameter(0)\n b = {ty}[] parameter(1)\n ROOT s = {ty}[] {op}(a, b)\n}}\nENTRY e {{\n p = {ty}{dims} parameter(0)\n z = {ty}[] constant({init})\n ROOT r = {ty}{out} reduce(p, z), dimensions={red}, to_apply=f\n}}\n");
            // Reassociated float sums: absolute error up to n * eps * max|x|.
            let tol = if ty.starts_with('f') { 1e-3 } else { 0.0 };
            check_text_tol(&text, tol).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

/// Row fusion: softmax, log-softmax and layernorm (JAX's HLO) become one
/// loop fusion each whose reductions are computed once per row (hoisted
/// before the row's innermost loop), with the evaluator's results; a column
/// layout (minor dimension 0) fuses the same way.
#[test]
fn row_fusions_compute_reductions_once_per_row() {
    const REGIONS: &str = "max_r {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n\nadd_r {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n";
    let softmax = |layout: &str, rdim: &str, bdim: &str| {
        format!(
            "HloModule sm\n\n{REGIONS}ENTRY e {{\n  x = f32[32,300]{{{layout}}} parameter(0)\n  ninf = f32[] constant(-inf)\n  mx = f32[{rows}]{{0}} reduce(x, ninf), dimensions={{{rdim}}}, to_apply=max_r\n  mb = f32[32,300]{{{layout}}} broadcast(mx), dimensions={{{bdim}}}\n  d = f32[32,300]{{{layout}}} subtract(x, mb)\n  ex = f32[32,300]{{{layout}}} exponential(d)\n  zero = f32[] constant(0)\n  sm = f32[{rows}]{{0}} reduce(ex, zero), dimensions={{{rdim}}}, to_apply=add_r\n  sb = f32[32,300]{{{layout}}} broadcast(sm), dimensions={{{bdim}}}\n  ROOT out = f32[32,300]{{{layout}}} divide(ex, sb)\n}}\n",
            rows = if rdim == "1" { 32 } else { 300 },
        )
    };
    let log_softmax = format!(
        "HloModule lsm\n\n{REGIONS}ENTRY e {{\n  x = f32[8,1000]{{1,0}} parameter(0)\n  ninf = f32[] constant(-inf)\n  mx = f32[8]{{0}} reduce(x, ninf), dimensions={{1}}, to_apply=max_r\n  mb = f32[8,1000]{{1,0}} broadcast(mx), dimensions={{0}}\n  d = f32[8,1000]{{1,0}} subtract(x, mb)\n  ex = f32[8,1000]{{1,0}} exponential(d)\n  zero = f32[] constant(0)\n  sm = f32[8]{{0}} reduce(ex, zero), dimensions={{1}}, to_apply=add_r\n  s1 = f32[8,1]{{1,0}} reshape(sm)\n  lg = f32[8,1]{{1,0}} log(s1)\n  l8 = f32[8]{{0}} reshape(lg)\n  lb = f32[8,1000]{{1,0}} broadcast(l8), dimensions={{0}}\n  ROOT out = f32[8,1000]{{1,0}} subtract(d, lb)\n}}\n"
    );
    // JAX's layernorm over the last axis (jnp.mean, rsqrt), reshapes included.
    let layernorm = format!(
        "HloModule ln\n\n{REGIONS}ENTRY e {{\n  x = f32[32,300]{{1,0}} parameter(0)\n  g = f32[300]{{0}} parameter(1)\n  b = f32[300]{{0}} parameter(2)\n  zero = f32[] constant(0)\n  s = f32[32]{{0}} reduce(x, zero), dimensions={{1}}, to_apply=add_r\n  s1 = f32[32,1]{{1,0}} reshape(s)\n  n = f32[] constant(300)\n  nb = f32[32,1]{{1,0}} broadcast(n), dimensions={{}}\n  mean = f32[32,1]{{1,0}} divide(s1, nb)\n  m1 = f32[32]{{0}} reshape(mean)\n  mb = f32[32,300]{{1,0}} broadcast(m1), dimensions={{0}}\n  c = f32[32,300]{{1,0}} subtract(x, mb)\n  sq = f32[32,300]{{1,0}} multiply(c, c)\n  v = f32[32]{{0}} reduce(sq, zero), dimensions={{1}}, to_apply=add_r\n  v1 = f32[32,1]{{1,0}} reshape(v)\n  var = f32[32,1]{{1,0}} divide(v1, nb)\n  eps = f32[] constant(1e-05)\n  eb = f32[32,1]{{1,0}} broadcast(eps), dimensions={{}}\n  ve = f32[32,1]{{1,0}} add(var, eb)\n  r = f32[32,1]{{1,0}} rsqrt(ve)\n  r1 = f32[32]{{0}} reshape(r)\n  rb = f32[32,300]{{1,0}} broadcast(r1), dimensions={{0}}\n  y = f32[32,300]{{1,0}} multiply(c, rb)\n  gb = f32[32,300]{{1,0}} broadcast(g), dimensions={{1}}\n  yg = f32[32,300]{{1,0}} multiply(y, gb)\n  bb = f32[32,300]{{1,0}} broadcast(b), dimensions={{1}}\n  ROOT out = f32[32,300]{{1,0}} add(yg, bb)\n}}\n"
    );
    let cases = [
        ("softmax", softmax("1,0", "1", "0"), 2),
        ("softmax_column_layout", softmax("0,1", "0", "1"), 2),
        ("log_softmax", log_softmax, 2),
        ("layernorm", layernorm, 2),
    ];
    for (name, text, hoisted) in cases {
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let exe = compile(&m, &opts()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = exe.report();
        assert_eq!(
            r.per_element_reductions, 0,
            "{name}: reductions left per element"
        );
        assert!(
            r.row_hoisted >= hoisted,
            "{name}: {} values hoisted",
            r.row_hoisted
        );
        let mut opt = m.clone();
        hlox_passes::default_pipeline()
            .run(&mut opt, &Default::default())
            .unwrap();
        let opt = &opt;
        let fusions = opt
            .entry_computation()
            .instructions
            .values()
            .filter(|i| matches!(i.op, hlox_hlo::Op::Fusion { .. }))
            .count();
        assert_eq!(fusions, 1, "{name}: {}", hlox_hlo::text::print_module(opt));
        check_text_tol(&text, 1e-5).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// Column reductions (the minor dimension kept) run with the reduced
/// indices outermost and the outputs innermost; each output still combines
/// its inputs in the evaluator's order, so results are bit-exact. Large ones
/// with a small result are split across threads by rows (checked below).
#[test]
fn column_reductions_match_the_evaluator() {
    let regions = "add_f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nmax_f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] maximum(a, b)\n}\n\nmul_f64 {\n  a = f64[] parameter(0)\n  b = f64[] parameter(1)\n  ROOT s = f64[] multiply(a, b)\n}\n\nadd_s32 {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n\n";
    let m = |body: &str| format!("HloModule col\n\n{regions}ENTRY e {{\n{body}}}\n");
    let cases = [
        ("sum_axis0", m("  x = f32[300,257]{1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[257]{0} reduce(x, z), dimensions={0}, to_apply=add_f\n")),
        ("sum_axes01_of_rank3", m("  x = f32[6,7,33]{2,1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[33]{0} reduce(x, z), dimensions={0,1}, to_apply=add_f\n")),
        ("max_middle_axis", m("  x = f32[4,50,16]{2,1,0} parameter(0)\n  z = f32[] constant(-inf)\n  ROOT r = f32[4,16]{1,0} reduce(x, z), dimensions={1}, to_apply=max_f\n")),
        ("column_layout_row_sum", m("  x = f32[40,64]{0,1} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[40]{0} reduce(x, z), dimensions={1}, to_apply=add_f\n")),
        ("f64_product", m("  x = f64[20,9]{1,0} parameter(0)\n  o = f64[] constant(1)\n  ROOT r = f64[9]{0} reduce(x, o), dimensions={0}, to_apply=mul_f64\n")),
        ("s32_sum", m("  x = s32[100,31]{1,0} parameter(0)\n  z = s32[] constant(7)\n  ROOT r = s32[31]{0} reduce(x, z), dimensions={0}, to_apply=add_s32\n")),
        ("empty_reduced_dim", m("  x = f32[0,12]{1,0} parameter(0)\n  z = f32[] constant(5)\n  ROOT r = f32[12]{0} reduce(x, z), dimensions={0}, to_apply=add_f\n")),
    ];
    for (name, text) in &cases {
        let m = parse_module(text).unwrap();
        let exe = compile(&m, &opts()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = usize::from(*name != "empty_reduced_dim");
        assert_eq!(exe.report().column_reductions, want, "{name}");
        assert_eq!(exe.report().column_reductions_split_rows, 0, "{name}");
    }
    let refs: Vec<(&str, &str)> = cases.iter().map(|(n, t)| (*n, t.as_str())).collect();
    check_all(&refs);
    // Large ones with a small result are split across threads by rows:
    // partials of row bands, combined in order. Exact for integers, max and
    // min (and the init value counted once); float sums are reassociated.
    let split = [
        ("large_sum", m("  x = f32[512,2048]{1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[2048]{0} reduce(x, z), dimensions={0}, to_apply=add_f\n")),
        ("large_s32_sum_init_7", m("  x = s32[1001,300]{1,0} parameter(0)\n  z = s32[] constant(7)\n  ROOT r = s32[300]{0} reduce(x, z), dimensions={0}, to_apply=add_s32\n")),
        ("large_max_middle_axis", m("  x = f32[3,2000,64]{2,1,0} parameter(0)\n  z = f32[] constant(-inf)\n  ROOT r = f32[3,64]{1,0} reduce(x, z), dimensions={1}, to_apply=max_f\n")),
    ];
    let threads = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    for (name, text) in &split {
        let m = parse_module(text).unwrap();
        let exe = compile(&m, &opts()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(exe.report().column_reductions, 1, "{name}");
        assert_eq!(
            exe.report().column_reductions_split_rows,
            usize::from(threads >= 2),
            "{name}"
        );
    }
    check_all(
        &split[1..]
            .iter()
            .map(|(n, t)| (*n, t.as_str()))
            .collect::<Vec<_>>(),
    );
    check_text_tol(&split[0].1, 1e-4).unwrap();
    // With a fused producer (exp is within 1 ulp of libm, hence a tolerance).
    let fused = m("  x = f32[128,96]{1,0} parameter(0)\n  y = f32[128,96]{1,0} exponential(x)\n  z = f32[] constant(0)\n  ROOT r = f32[96]{0} reduce(y, z), dimensions={0}, to_apply=add_f\n");
    check_text_tol(&fused, 1e-6).unwrap();
}

#[test]
fn facade_cuda_client_without_a_driver_is_an_error_naming_libcuda() {
    if hlox::cuda::runtime::driver_present() {
        eprintln!("SKIP: a CUDA driver is present; this test checks the no-driver error");
        return;
    }
    let e = hlox::Client::cuda(0).expect_err("no driver: an error");
    let msg = e.to_string();
    assert!(msg.contains("no CUDA driver found (libcuda.so)"), "{msg}");
}

/// `m` compiled for the Host with or without the pass pipeline, run on `args`.
fn compile_and_run(m: &Module, args: &[Literal], hlo_passes: bool) -> Literal {
    let o = CompileOptions {
        hlo_passes,
        ..opts()
    };
    compile(m, &o)
        .unwrap_or_else(|e| panic!("hlo_passes={hlo_passes}: compile: {e}"))
        .execute(&args.iter().collect::<Vec<_>>())
        .unwrap_or_else(|e| panic!("hlo_passes={hlo_passes}: execute: {e}"))
}

/// Collectives built with the builder, compiled with and without the
/// pipeline (both run `single-device-collectives`) and evaluated: on one
/// device each has a single participant.
#[test]
fn collectives_on_one_device_build_compile_and_run() {
    use hlox_hlo::builder::XlaBuilder;
    use hlox_hlo::{ElementType, Shape};
    let add = {
        let b = XlaBuilder::new("add");
        let x = b
            .parameter(0, &Shape::scalar(ElementType::F32), "x")
            .unwrap();
        let y = b
            .parameter(1, &Shape::scalar(ElementType::F32), "y")
            .unwrap();
        let s = b.add(x, y).unwrap();
        b.build(s).unwrap()
    };
    let b = XlaBuilder::new("collectives");
    let x = b
        .parameter(0, &Shape::array(ElementType::F32, vec![4, 2]), "x")
        .unwrap();
    let y = b
        .parameter(1, &Shape::array(ElementType::F32, vec![3]), "y")
        .unwrap();
    let one = vec![vec![0i64]];
    let ar = b.all_reduce(&[x], &add, &one).unwrap();
    let ar2 = b.all_reduce(&[x, y], &add, &[]).unwrap();
    let ag = b.all_gather(x, 1, &one).unwrap();
    let rs = b.reduce_scatter(x, &add, 0, &one).unwrap();
    let a2a = b.all_to_all(x, 0, &[]).unwrap();
    let cp = b.collective_permute(x, &[(0, 0)]).unwrap();
    let nobody = b.collective_permute(x, &[]).unwrap();
    let r = b.replica_id().unwrap();
    let p = b.partition_id().unwrap();
    let root = b.tuple(&[ar, ar2, ag, rs, a2a, cp, nobody, r, p]).unwrap();
    let m = b.build_module(root).unwrap();
    // Two devices are refused when compiled for one.
    let two = b.all_reduce(&[x], &add, &[vec![0, 1]]).unwrap();
    let two = b.build_module(two).unwrap();
    let two = hlox_cpu::compile(&two, &CompileOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(two.contains("the module needs at least 2 devices"), "{two}");

    let xs: Vec<f32> = (0..8).map(|i| i as f32 * 1.5 - 2.0).collect();
    let args = [
        Literal::from_vec(&[4, 2], &xs).unwrap(),
        Literal::r1(&[7f32, -1., 0.5]),
    ];
    let want_x = args[0].clone();
    for hlo_passes in [true, false] {
        let leaves = compile_and_run(&m, &args, hlo_passes).into_leaves();
        let evaluated = hlox_eval::evaluate(&m, &args, &hlox_eval::NoCustomCalls)
            .unwrap()
            .into_leaves();
        assert_eq!(leaves, evaluated, "hlo_passes={hlo_passes}");
        // ar, ar2.0, ar2.1, ag, rs, a2a, cp: the operands themselves.
        for i in [0, 1, 3, 4, 5, 6] {
            assert_eq!(leaves[i], want_x, "leaf {i}, hlo_passes={hlo_passes}");
        }
        assert_eq!(leaves[2], args[1]);
        assert_eq!(leaves[7].to_vec::<f32>().unwrap(), vec![0f32; 8]);
        assert_eq!(leaves[8].to_vec::<u32>().unwrap(), vec![0]);
        assert_eq!(leaves[9].to_vec::<u32>().unwrap(), vec![0]);
    }
}

/// `while` and `conditional` boundaries in other layouts than their
/// computations' (tests/filetests/passes/boundary_layouts_loops.hlo):
/// compiled with and without the pipeline, both branches, equal to the
/// evaluator.
#[test]
fn loop_and_branch_boundaries_in_other_layouts_match_the_evaluator() {
    let path =
        hlox_tests::workspace_root().join("tests/filetests/passes/boundary_layouts_loops.hlo");
    let m = parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    let xs: Vec<f32> = (0..6).map(|i| i as f32 - 1.5).collect();
    for pred in [true, false] {
        let args = [Literal::from_vec(&[2, 3], &xs).unwrap(), Literal::r0(pred)];
        let want = hlox_eval::evaluate(&m, &args, &hlox_eval::NoCustomCalls).unwrap();
        for hlo_passes in [true, false] {
            let got = compile_and_run(&m, &args, hlo_passes);
            assert_eq!(got, want, "pred={pred} hlo_passes={hlo_passes}");
        }
    }
}

/// `CompileOptions::profile`: every instruction of the entry computation
/// that generates code gets a slot, in order, counted once per run; what
/// costs nothing (parameters, constants, tuples, alias reshapes) gets none;
/// a while loop is one slot with its body inside; the results are the
/// unprofiled ones.
#[test]
fn profile_times_each_entry_instruction_once_per_run() {
    let text = r#"HloModule prof
body {
  p = (s32[], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  n = s32[] add(i, one)
  x = f32[64,64] get-tuple-element(p), index=1
  y = f32[64,64] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (s32[], f32[64,64]) tuple(n, y)
}
cond {
  p = (s32[], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  a = f32[64,64] parameter(0)
  s = f32[64,64] multiply(a, a)
  r = f32[4096] reshape(s)
  zero = s32[] constant(0)
  init = (s32[], f32[64,64]) tuple(zero, s)
  w = (s32[], f32[64,64]) while(init), condition=cond, body=body
  ROOT out = f32[64,64] get-tuple-element(w), index=1
}
"#;
    let m = parse_module(text).expect("parse");
    let a = Literal::from_vec(
        &[64, 64],
        &(0..4096)
            .map(|i| ((i % 7) as f32 - 3.0) / 8.0)
            .collect::<Vec<f32>>(),
    )
    .expect("literal");
    let plain = compile(&m, &opts()).expect("compile");
    let profiled = compile(
        &m,
        &CompileOptions {
            profile: true,
            hlo_passes: false,
            ..opts()
        },
    )
    .expect("compile with profile");
    assert!(plain.profile().is_none());
    let want = plain.execute(&[&a]).expect("run");
    for _ in 0..3 {
        assert_eq!(profiled.execute(&[&a]).expect("profiled run"), want);
    }
    let p = profiled.profile().expect("profile");
    let names: Vec<&str> = p.iter().map(|e| e.instruction.as_str()).collect();
    assert_eq!(names, ["s", "w"], "{p:?}");
    assert_eq!(p[1].opcode, "while");
    assert!(p.iter().all(|e| e.count == 3 && e.total_ns > 0), "{p:?}");
    profiled.reset_profile();
    assert!(profiled
        .profile()
        .expect("profile")
        .iter()
        .all(|e| e.count == 0 && e.total_ns == 0));
}

/// A module with enough code is optimized and compiled in several LLVM
/// modules on as many threads (`split.rs`), linked together, and computes
/// what the evaluator computes; a small one stays in one part.
#[test]
fn large_modules_compile_in_parts_with_the_evaluators_results() {
    let mut body = String::new();
    let mut roots = Vec::new();
    // Eight loops of different shapes and math, so that no two fuse.
    let ops = [
        "tanh",
        "exponential",
        "sine",
        "cosine",
        "logistic",
        "abs",
        "negate",
        "floor",
    ];
    for (k, op) in ops.iter().enumerate() {
        let (r, c) = (8 + k, 12 + 2 * k);
        body += &format!(
            "  x{k} = f32[{r},{c}]{{1,0}} parameter({k})\n  e{k} = f32[{r},{c}]{{1,0}} {op}(x{k})\n  \
             m{k} = f32[{r},{c}]{{1,0}} multiply(e{k}, x{k})\n  \
             s{k} = f32[{c}]{{0}} reduce(m{k}, z), dimensions={{0}}, to_apply=add\n  \
             t{k} = f32[{c},{r}]{{1,0}} transpose(m{k}), dimensions={{1,0}}\n"
        );
        roots.push(format!("s{k}"));
        roots.push(format!("t{k}"));
    }
    let shapes: Vec<String> = (0..ops.len())
        .flat_map(|k| {
            let (r, c) = (8 + k, 12 + 2 * k);
            [format!("f32[{c}]{{0}}"), format!("f32[{c},{r}]{{1,0}}")]
        })
        .collect();
    let text = format!(
        "HloModule parts\n\nadd {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}}\n\n\
         ENTRY e {{\n  z = f32[] constant(0)\n{body}  ROOT r = ({}) tuple({})\n}}\n",
        shapes.join(", "),
        roots.join(", ")
    );
    let m = parse_module(&text).unwrap();
    let exe = compile(&m, &opts()).unwrap();
    let threads = rayon::current_num_threads();
    if threads > 1 {
        assert!(
            exe.report().codegen_parts >= 2,
            "{} parts with {threads} threads",
            exe.report().codegen_parts
        );
    }
    check_module(&m, &random_args(&m, 5), 1e-5).unwrap();
    let small = parse_module(
        "HloModule small\n\nENTRY e {\n  x = f32[4]{0} parameter(0)\n  ROOT y = f32[4]{0} add(x, x)\n}\n",
    )
    .unwrap();
    assert_eq!(compile(&small, &opts()).unwrap().report().codegen_parts, 1);
}
