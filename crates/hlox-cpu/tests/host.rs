//! The Host backend's integration tests (one binary: LLVM links statically).
//! Compiled results are compared with the reference evaluator and with
//! JAX's recorded outputs.

use hlox_cpu::{compile, CompileOptions, ExecError};
use hlox_hlo::npy::read_npy_file;
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

fn registry_for(case: &hlox_tests::CorpusCase) -> hlox_ffi::Registry {
    use hlox_ffi::{Platform, Registry};
    let r = Registry::new();
    let host = Platform::Host;
    match case.name.as_str() {
        "cc_do_custom_call_v1" => {
            r.register_fn("do_custom_call", host, hlox_targets::do_custom_call)
        }
        "cc_do_custom_call_v2" => {
            r.register_fn("do_custom_call", host, hlox_targets::do_custom_call_status)
        }
        "cc_do_custom_call_v3" => {
            r.register_fn("do_custom_call", host, hlox_targets::do_custom_call_unified)
        }
        "cc_axpby_legacy" => r.register_fn("axpby", host, axpby_operands),
        _ => Ok(()),
    }
    .expect("registration");
    r
}

fn axpby_operands(
    out: *mut std::ffi::c_void,
    ins: *const *const std::ffi::c_void,
    _s: *mut hlox_ffi::XlaCustomCallStatus,
) {
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const f32, 256);
        let y = std::slice::from_raw_parts(*ins.add(1) as *const f32, 256);
        let alpha = *(*ins.add(2) as *const f32);
        let beta = *(*ins.add(3) as *const f32);
        let z = std::slice::from_raw_parts_mut(out as *mut f32, 256);
        for i in 0..256 {
            z[i] = alpha * x[i] + beta * y[i];
        }
    }
}

const TYPED_FFI_CASES: &[&str] = &["cc_axpby_ffi", "cc_do_custom_call_v4", "cc_in_graph"];

#[test]
fn corpus_compiles_to_jax_outputs() {
    let cases = hlox_tests::corpus_cases();
    assert!(cases.len() >= 15);
    let mut failures = Vec::new();
    for case in &cases {
        let r = (|| -> Result<(), String> {
            let m = parse_module(&case.hlo_text()).map_err(|e| format!("parse: {e}"))?;
            let args = case
                .numbered("in")
                .iter()
                .map(read_npy_file)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("inputs: {e}"))?;
            let o = CompileOptions {
                registry: Some(Arc::new(registry_for(case))),
                ..opts()
            };
            let exe = compile(&m, &o);
            if TYPED_FFI_CASES.contains(&case.name.as_str()) {
                return match exe {
                    Err(hlox_cpu::CompileError::Bind(e))
                        if e.to_string().contains("API_VERSION_TYPED_FFI") =>
                    {
                        Ok(())
                    }
                    Err(e) => Err(format!("expected a typed-FFI bind error, got {e}")),
                    Ok(_) => Err("expected a typed-FFI bind error, compiled".into()),
                };
            }
            let exe = exe.map_err(|e| format!("compile: {e}"))?;
            let got = exe
                .execute(&args.iter().collect::<Vec<_>>())
                .map_err(|e| format!("execute: {e}"))?;
            let want: Vec<_> = case
                .numbered("out")
                .iter()
                .map(read_npy_file)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("outputs: {e}"))?;
            let got = got.into_leaves();
            if got.len() != want.len() {
                return Err(format!("{} outputs, expected {}", got.len(), want.len()));
            }
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                let ty = w.shape().element_type().map(|t| t.name()).unwrap_or("?");
                let tol = |k: &str| case.meta[k][ty].as_f64().unwrap_or(0.0);
                hlox_tests::compare_literals(g, w, tol("rtol"), tol("atol"))
                    .map_err(|e| format!("out{i} ({ty}): {e}"))?;
            }
            Ok(())
        })();
        if let Err(e) = r {
            failures.push(format!("{}: {e}", case.name));
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

#[test]
fn simple_add() {
    let m = parse_module(
        "HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n  ROOT c = f32[4] add(a, b)\n}\n",
    )
    .unwrap();
    let a = Literal::r1(&[1f32, 2., 3., 4.]);
    let b = Literal::r1(&[10f32, 20., 30., 40.]);
    check_module(&m, &[a, b], 0.0).unwrap();
    let _ = ExecError::Runtime(String::new());
}

// ---------------------------------------------------------------------------
// Differential tests: every element-wise opcode over every element type.

use hlox_hlo::{ArrayLiteral, ArrayShape, BinaryOp, ComparisonDirection, ElementType, UnaryOp};

const TYPES: [ElementType; 13] = [
    ElementType::Pred,
    ElementType::S8,
    ElementType::S16,
    ElementType::S32,
    ElementType::S64,
    ElementType::U8,
    ElementType::U16,
    ElementType::U32,
    ElementType::U64,
    ElementType::F16,
    ElementType::Bf16,
    ElementType::F32,
    ElementType::F64,
];

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
    let floats: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        3.7,
        -3.7,
        10.0,
        100.25,
        -1e3,
        65504.0,
        1e10,
        -3e38,
        1e-40,
        -1e-40,
        1e-310,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        0.1,
        2.0,
        3.0,
        1e-5,
        0.75,
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
        let text = format!(
            "HloModule all\nENTRY e {{\n  a = {t} parameter(0)\n  b = {t} parameter(1)\n{}\n  ROOT x = ({}) tuple({})\n}}\n",
            lines.join("\n"),
            roots.iter().map(|r| r.1.clone()).collect::<Vec<_>>().join(", "),
            roots.iter().map(|r| r.0.clone()).collect::<Vec<_>>().join(", ")
        );
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
            let rt = format!("{}[{n}]", to.name());
            lines.push(format!("  c{i} = {rt} convert(a)"));
            roots.push((format!("c{i}"), rt.clone()));
            if to.bit_width() == from.bit_width()
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
        let text = format!(
            "HloModule conv\nENTRY e {{\n  a = {t} parameter(0)\n{}\n  ROOT x = ({}) tuple({})\n}}\n",
            lines.join("\n"),
            roots.iter().map(|r| r.1.clone()).collect::<Vec<_>>().join(", "),
            roots.iter().map(|r| r.0.clone()).collect::<Vec<_>>().join(", ")
        );
        let m = parse_module(&text).unwrap();
        if let Err(e) = check_module(&m, &[a], 0.0) {
            failures.push(format!("from {}: {e}", from.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
