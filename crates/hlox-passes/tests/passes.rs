//! Tests of hlox's HLO passes:
//! - golden filetests (tests/filetests/passes/NAME.hlo, first line
//!   `// passes: a,b`, expected print in NAME.hlo.expected; BLESS=1 rewrites);
//! - differential: every JAX corpus case evaluates to the same outputs
//!   before and after default_pipeline;
//! - random programs (hlox_tests::programs) before and after: equal;
//! - dump_dir files and verify_each naming a broken pass.

use hlox_hlo::text::{parse_module, print_module};
use hlox_hlo::verifier::verify_module;
use hlox_hlo::{CustomCall, ElementType, EntityRef, Instruction, Literal, Module, Op};
use hlox_passes::{default_pipeline, pass_by_name, Pass, PassError, PassManager, PipelineOptions};
use std::path::{Path, PathBuf};

fn opts() -> PipelineOptions {
    PipelineOptions {
        dump_dir: None,
        verify_each: true,
        fusion: true,
        max_iterations: 16,
    }
}

fn run_pipeline(m: &mut Module) -> Result<(), PassError> {
    default_pipeline().run(m, &opts()).map(|_| ())
}

// ---------------------------------------------------------------- filetests

fn filetest_dir() -> PathBuf {
    hlox_tests::workspace_root().join("tests/filetests/passes")
}

fn bless() -> bool {
    std::env::var("BLESS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Runs the passes named on the first line; returns the printed result.
fn run_filetest(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let first = text.lines().next().unwrap_or("");
    let list = first
        .strip_prefix("// passes:")
        .ok_or("first line must be `// passes: a,b`")?;
    let mut pm = PassManager::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        pm.add_boxed(pass_by_name(name).ok_or(format!("unknown pass `{name}`"))?);
    }
    let mut m = parse_module(&text).map_err(|e| format!("parse: {e}"))?;
    pm.run(&mut m, &opts()).map_err(|e| e.to_string())?;
    Ok(print_module(&m))
}

#[test]
fn golden_filetests() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(filetest_dir())
        .expect("tests/filetests/passes exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
        .collect();
    files.sort();
    assert!(files.len() >= 24, "only {} pass filetests", files.len());
    let mut failures = Vec::new();
    for p in &files {
        let exp = PathBuf::from(format!("{}.expected", p.display()));
        let actual = match run_filetest(p) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{}: {e}", p.display()));
                continue;
            }
        };
        if bless() {
            std::fs::write(&exp, &actual).expect("write expected");
            continue;
        }
        match std::fs::read_to_string(&exp) {
            Ok(e) if e == actual => {}
            Ok(e) => failures.push(format!(
                "{}: differs from {}\n--- expected\n{e}\n--- actual\n{actual}",
                p.display(),
                exp.display()
            )),
            Err(_) => failures.push(format!("{}: missing .expected (BLESS=1)", p.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every filetest's input and output evaluate to the same values on
/// deterministic inputs (the goldens are not only well printed but right).
#[test]
fn filetests_preserve_values() {
    let mut checked = 0;
    for e in std::fs::read_dir(filetest_dir()).expect("dir") {
        let p = e.expect("entry").path();
        if p.extension().is_none_or(|x| x != "hlo") {
            continue;
        }
        let before = parse_module(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let after = parse_module(&run_filetest(&p).unwrap()).unwrap();
        let args = inputs_for(&before, 7);
        let want = hlox_eval::evaluate(&before, &args, &PureHandler);
        let got = hlox_eval::evaluate(&after, &args, &PureHandler);
        match (want, got) {
            (Ok(w), Ok(g)) => {
                assert_literals_equal(&g, &w, 0.0)
                    .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                checked += 1;
            }
            (Err(_), Err(_)) => {}
            (w, g) => panic!("{}: before {w:?}, after {g:?}", p.display()),
        }
    }
    assert!(checked >= 20, "only {checked} filetests evaluated");
}

// ----------------------------------------------------------- input helpers

/// Deterministic pseudo-random inputs for a module's entry parameters.
fn inputs_for(m: &Module, seed: u64) -> Vec<Literal> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    m.entry_computation()
        .program_shape()
        .parameters
        .iter()
        .map(|s| {
            let mut lit = Literal::zeros(s).expect("parameter literal");
            fill(&mut lit, &mut next);
            lit
        })
        .collect()
}

fn fill(l: &mut Literal, next: &mut impl FnMut() -> u64) {
    match l {
        Literal::Array(a) => {
            let ty = a.ty();
            let sz = ty.byte_size();
            for ch in a.bytes_mut().chunks_mut(sz) {
                let r = next();
                let v: Vec<u8> = match ty {
                    ElementType::F32 => (((r % 2001) as f32 - 1000.0) / 250.0)
                        .to_le_bytes()
                        .to_vec(),
                    ElementType::F64 => (((r % 2001) as f64 - 1000.0) / 250.0)
                        .to_le_bytes()
                        .to_vec(),
                    ElementType::F16 => half_bits(((r % 2001) as f32 - 1000.0) / 250.0, false),
                    ElementType::Bf16 => half_bits(((r % 2001) as f32 - 1000.0) / 250.0, true),
                    ElementType::Pred => vec![(r & 1) as u8],
                    _ => ((r % 41) as i64 - 20).to_le_bytes()[..sz].to_vec(),
                };
                ch.copy_from_slice(&v[..sz]);
            }
        }
        Literal::Tuple(t) => t.iter_mut().for_each(|e| fill(e, next)),
        Literal::Token => {}
    }
}

fn half_bits(v: f32, bf: bool) -> Vec<u8> {
    if bf {
        half::bf16::from_f32(v).to_bits().to_le_bytes().to_vec()
    } else {
        half::f16::from_f32(v).to_bits().to_le_bytes().to_vec()
    }
}

/// Exact comparison (bit for bit for integers; for floats NaN matches NaN
/// and `|g - w| <= rtol * |w|`).
fn assert_literals_equal(got: &Literal, want: &Literal, rtol: f64) -> Result<(), String> {
    let (g, w) = (got.clone().into_leaves(), want.clone().into_leaves());
    if g.len() != w.len() {
        return Err(format!("{} outputs, expected {}", g.len(), w.len()));
    }
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        if matches!(b, Literal::Token) {
            continue;
        }
        hlox_tests::compare_literals(a, b, rtol, 0.0).map_err(|e| format!("output {i}: {e}"))?;
    }
    Ok(())
}

/// A pure custom-call handler for tests: the first result leaf is
/// `2*operand0 + 1` (f32) when the shapes agree, other leaves are zeros.
struct PureHandler;

impl hlox_eval::CustomCallHandler for PureHandler {
    fn call(
        &self,
        inst: &Instruction,
        _c: &CustomCall,
        ops: &[&Literal],
    ) -> Result<Literal, hlox_eval::CustomCallError> {
        let mut out = Literal::zeros(&inst.shape)
            .map_err(|e| hlox_eval::CustomCallError::Handler(e.into()))?;
        let first = match &mut out {
            Literal::Tuple(t) => t.first_mut(),
            other => Some(other),
        };
        if let (Some(Literal::Array(dst)), Some(Literal::Array(src))) =
            (first, ops.first().copied())
        {
            if dst.ty() == ElementType::F32
                && src.ty() == ElementType::F32
                && dst.dims() == src.dims()
            {
                let v: Vec<f32> = src
                    .to_vec::<f32>()
                    .map_err(|e| hlox_eval::CustomCallError::Handler(e.into()))?;
                let lit = hlox_hlo::ArrayLiteral::from_vec(
                    src.dims(),
                    &v.iter().map(|x| 2.0 * x + 1.0).collect::<Vec<_>>(),
                )
                .map_err(|e| hlox_eval::CustomCallError::Handler(e.into()))?;
                *dst = lit.relayout(dst.shape().layout.clone());
            }
        }
        Ok(out)
    }
}

// ------------------------------------------------------------ differential

/// Tolerance of the corpus differential: 0 (exact). Folding runs the same
/// evaluator on the same values and the simplifications are exact, so
/// outputs agree bit for bit. One documented exception: where
/// `lapack-dead-outputs` switched a LAPACK call to values only, the target
/// computes the values by another algorithm (dqds for the SVD, faer's QR
/// values path for eigh), so such a case is held to its own tolerance
/// against JAX's recorded outputs instead ([`switched_lapack_calls`]).
const CORPUS_RTOL: f64 = 0.0;

/// Whether `opt` has a LAPACK call (`lapack_*`) whose target and
/// backend_config together appear nowhere in `m`: one the pipeline
/// switched to values only.
fn switched_lapack_calls(m: &Module, opt: &Module) -> bool {
    let calls = |m: &Module| -> Vec<(String, Vec<u8>)> {
        m.computations
            .values()
            .flat_map(|c| c.instructions.values())
            .filter_map(|i| match &i.op {
                Op::CustomCall(cc) if cc.target.starts_with("lapack_") => {
                    Some((cc.target.clone(), cc.opaque.clone()))
                }
                _ => None,
            })
            .collect()
    };
    let before = calls(m);
    calls(opt).iter().any(|c| !before.contains(c))
}

#[test]
fn corpus_default_pipeline_preserves_outputs() {
    let cases = hlox_tests::corpus_cases();
    assert!(cases.len() >= 70, "corpus has {} cases", cases.len());
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut fusions = 0;
    for case in &cases {
        let r = (|| -> Result<bool, String> {
            let m = parse_module(&case.hlo_text()).map_err(|e| format!("parse: {e}"))?;
            let mut opt = m.clone();
            run_pipeline(&mut opt).map_err(|e| format!("pipeline: {e}"))?;
            verify_module(&opt).map_err(|e| format!("verify: {e}"))?;
            // Fused computations are never fused again: a second fusion run changes nothing.
            let mut again = opt.clone();
            if pass_by_name("fusion")
                .unwrap()
                .run(&mut again)
                .map_err(|e| e.to_string())?
            {
                return Err("a second fusion run changed the module".into());
            }
            if opt.entry_computation_layout() != m.entry_computation_layout() {
                return Err("the entry signature changed".into());
            }
            fusions += opt
                .computations
                .values()
                .flat_map(|c| c.instructions.values())
                .filter(|i| matches!(i.op, Op::Fusion { .. }))
                .count();
            let args = case.inputs()?;
            let reg = hlox_tests::registry_for(case);
            let want = hlox_eval::evaluate_with_registry(&m, &args, &reg);
            let got = hlox_eval::evaluate_with_registry(&opt, &args, &reg);
            let want = want.map_err(|e| format!("evaluate original: {e}"))?;
            let got = got.map_err(|e| format!("evaluate optimized: {e}"))?;
            if let Err(e) = assert_literals_equal(&got, &want, CORPUS_RTOL) {
                if !switched_lapack_calls(&m, &opt) {
                    return Err(e);
                }
                case.check_outputs(got)
                    .map_err(|j| format!("{e}; against JAX's outputs: {j}"))?;
            }
            Ok(true)
        })();
        match r {
            Ok(true) => compared += 1,
            Ok(false) => {}
            Err(e) => failures.push(format!("{}: {e}", case.name)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(compared == cases.len(), "compared {compared}");
    assert!(fusions >= 50, "only {fusions} fusions made over the corpus");
    eprintln!("corpus: {compared} cases compared exactly, {fusions} fusions made");
}

// ---------------------------------------------------------- random programs

mod random {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

        #[test]
        fn random_programs_keep_their_values(m in hlox_tests::programs::program(), seed in 0u64..1000) {
            let mut opt = m.clone();
            let text = print_module(&m);
            run_pipeline(&mut opt).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert!(verify_module(&opt).is_ok());
            let args = inputs_for(&m, seed);
            let want = hlox_eval::evaluate(&m, &args, &PureHandler)
                .map_err(|e| TestCaseError::fail(format!("original: {e}")))?;
            let got = hlox_eval::evaluate(&opt, &args, &PureHandler)
                .map_err(|e| TestCaseError::fail(format!("optimized: {e}\n{}", print_module(&opt))))?;
            assert_literals_equal(&got, &want, 0.0)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{text}\n---\n{}", print_module(&opt))))?;
        }
    }
}

// --------------------------------------------------------- pass manager

const SMALL: &str = r#"HloModule small, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY main {
  p = f32[4]{0} parameter(0)
  one = f32[] constant(1)
  b = f32[4]{0} broadcast(one), dimensions={}
  m = f32[4]{0} multiply(p, b)
  e = f32[4]{0} exponential(m)
  dead = f32[4]{0} negate(p)
  ROOT a = f32[4]{0} add(e, p)
}
"#;

#[test]
fn dump_dir_writes_input_and_each_changing_pass() {
    let dir = std::env::temp_dir().join(format!("hlox-passes-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut m = parse_module(SMALL).unwrap();
    let o = PipelineOptions {
        dump_dir: Some(dir.clone()),
        ..opts()
    };
    let report = default_pipeline().run(&mut m, &o).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names[0], "000.small.input.hlo");
    // One file per changing pass run, numbered in order, named after it.
    let want: Vec<String> = report
        .changed
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{:03}.small.{p}.hlo", i + 1))
        .collect();
    assert_eq!(&names[1..], &want[..]);
    assert!(
        report.changed.contains(&"algsimp".to_string()),
        "{:?}",
        report.changed
    );
    assert!(
        report.changed.contains(&"fusion".to_string()),
        "{:?}",
        report.changed
    );
    // The input dump is the input; the last dump is the final module.
    assert_eq!(
        std::fs::read_to_string(dir.join(&names[0])).unwrap(),
        print_module(&parse_module(SMALL).unwrap())
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(names.last().unwrap())).unwrap(),
        print_module(&m)
    );
    // Each dump parses and verifies.
    for n in &names {
        let t = std::fs::read_to_string(dir.join(n)).unwrap();
        verify_module(&parse_module(&t).unwrap()).unwrap();
    }
    assert!(report.timings.len() >= 6);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A deliberately broken pass: makes the root's operand refer to itself.
struct Corrupt;

impl Pass for Corrupt {
    fn name(&self) -> &'static str {
        "corrupt-for-test"
    }
    fn run(&self, m: &mut Module) -> Result<bool, PassError> {
        let e = m.entry;
        let c = &mut m.computations[e];
        let root = c.root;
        c.instructions[root].operands[0] = root;
        Ok(true)
    }
}

#[test]
fn verify_each_names_the_pass_that_broke_the_module() {
    let mut pm = PassManager::new();
    pm.add_boxed(pass_by_name("algsimp").unwrap());
    pm.add(Corrupt);
    pm.add_boxed(pass_by_name("dce").unwrap());
    let mut m = parse_module(SMALL).unwrap();
    let err = pm.run(&mut m, &opts()).unwrap_err();
    match &err {
        PassError::Verify {
            pass,
            module,
            error,
        } => {
            assert_eq!(pass, "corrupt-for-test");
            assert_eq!(module, "small");
            assert!(
                error.has(Some("a"), "does not come before its user"),
                "{error}"
            );
        }
        other => panic!("expected a verify error, got {other}"),
    }
    assert!(err.to_string().contains("after pass `corrupt-for-test`"));
    // Without verify_each the broken module goes through unnoticed.
    let mut m = parse_module(SMALL).unwrap();
    let mut pm = PassManager::new();
    pm.add(Corrupt);
    pm.run(
        &mut m,
        &PipelineOptions {
            verify_each: false,
            ..opts()
        },
    )
    .unwrap();
    assert!(verify_module(&m).is_err());
}

#[test]
fn invalid_input_is_reported_before_any_pass() {
    let mut m = parse_module(SMALL).unwrap();
    Corrupt.run(&mut m).unwrap();
    let err = default_pipeline().run(&mut m, &opts()).unwrap_err();
    assert!(matches!(err, PassError::InvalidInput { .. }), "{err}");
}

#[test]
fn fusion_option_off_skips_fusion() {
    let mut m = parse_module(SMALL).unwrap();
    let report = default_pipeline()
        .run(
            &mut m,
            &PipelineOptions {
                fusion: false,
                ..opts()
            },
        )
        .unwrap();
    assert!(!report.timings.iter().any(|(n, _)| n == "fusion"));
    assert_eq!(m.computations.len(), 1);
    let mut m2 = parse_module(SMALL).unwrap();
    run_pipeline(&mut m2).unwrap();
    assert_eq!(m2.computations.len(), 2, "{}", print_module(&m2));
}

#[test]
fn fixed_point_is_bounded_by_max_iterations() {
    /// A pass that always claims a change.
    struct Always;
    impl Pass for Always {
        fn name(&self) -> &'static str {
            "always"
        }
        fn run(&self, _m: &mut Module) -> Result<bool, PassError> {
            Ok(true)
        }
    }
    let mut pm = PassManager::new();
    pm.add_fixed_point(vec![Box::new(Always)]);
    let mut m = parse_module(SMALL).unwrap();
    let r = pm
        .run(
            &mut m,
            &PipelineOptions {
                max_iterations: 5,
                ..opts()
            },
        )
        .unwrap();
    assert_eq!(r.timings.len(), 5);
}

#[test]
fn malformed_modules_give_errors_not_panics() {
    for name in [
        "dce",
        "cse",
        "algsimp",
        "constant-folding",
        "inline",
        "fusion",
    ] {
        let pass = pass_by_name(name).unwrap();
        let mut m = parse_module(SMALL).unwrap();
        Corrupt.run(&mut m).unwrap();
        let err = pass.run(&mut m).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(&format!("pass `{name}`")), "{msg}");
        assert!(msg.contains("instruction `a`"), "{msg}");
        // A root that does not exist.
        let mut m = parse_module(SMALL).unwrap();
        let e = m.entry;
        m.computations[e].root = hlox_hlo::InstId::new(99);
        assert!(pass.run(&mut m).is_err(), "{name}");
    }
}

/// The excess-precision pass and the evaluator apply one rule: on every
/// corpus case, the evaluator under XLA's default on the input equals the
/// evaluator rounding after every op on the pass's output; and the rule
/// changes the result of the bf16 case that pins it (so this can fail).
#[test]
fn excess_precision_pass_and_evaluator_round_in_the_same_places() {
    use hlox_eval::{evaluate_with_rounding, HalfRounding};
    use hlox_passes::ExcessPrecision;
    let mut changed_results = Vec::new();
    let mut failures = Vec::new();
    for case in hlox_tests::corpus_cases() {
        if !case.hlo_text().contains("bf16") {
            continue;
        }
        let r = (|| -> Result<(), String> {
            let m = parse_module(&case.hlo_text()).map_err(|e| format!("parse: {e}"))?;
            let mut rewritten = m.clone();
            let mut inlined = PassManager::new();
            inlined.add_boxed(pass_by_name("inline").unwrap());
            inlined.add(ExcessPrecision);
            inlined
                .run(&mut rewritten, &PipelineOptions::default())
                .map_err(|e| format!("passes: {e}"))?;
            // A second run finds nothing left to rewrite.
            if ExcessPrecision
                .run(&mut rewritten)
                .map_err(|e| e.to_string())?
            {
                return Err("a second excess-precision run changed the module".into());
            }
            let args = case.inputs()?;
            let eval = |m: &Module, r| {
                evaluate_with_rounding(m, &args, &PureHandler, &Default::default(), r)
                    .map_err(|e| format!("evaluate: {e}"))
            };
            let want = eval(&m, HalfRounding::ExcessPrecision)?;
            let got = eval(&rewritten, HalfRounding::EveryOp)?;
            assert_literals_equal(&got, &want, 0.0)?;
            if eval(&m, HalfRounding::EveryOp)? != want {
                changed_results.push(case.name.clone());
            }
            Ok(())
        })();
        if let Err(e) = r {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        changed_results.iter().any(|n| n == "bf16_excess_precision"),
        "the rule changed no result of bf16_excess_precision (changed: {changed_results:?})"
    );
}

/// A layout-blind collective keeps its operands' layout: JAX's `psum` of a
/// transposed gradient (`{0,1}`, as XLA's layout assignment leaves it)
/// becomes a `hlox.collective` call constrained to that layout, so the
/// boundary-layouts pass puts no copies around it; an all-gather (which
/// concatenates row-major along a dimension) still gets its operand and
/// result relaid out.
#[test]
fn spmd_all_reduce_keeps_a_transposed_layout_and_all_gather_does_not() {
    let text = r#"
HloModule m, entry_computation_layout={(f32[4,8]{1,0})->(f32[8,4]{0,1}, f32[16,4]{0,1})}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[4,8]{1,0} parameter(0)
  t = f32[8,4]{0,1} transpose(p), dimensions={1,0}
  r = f32[8,4]{0,1} all-reduce(t), replica_groups={{0,1}}, to_apply=add
  g = f32[16,4]{0,1} all-gather(t), replica_groups={{0,1}}, dimensions={0}
  ROOT o = (f32[8,4]{0,1}, f32[16,4]{0,1}) tuple(r, g)
}
"#;
    let mut m = parse_module(text).unwrap();
    hlox_passes::spmd::expand_spmd(&mut m, 2).unwrap();
    pass_by_name("boundary-layouts")
        .unwrap()
        .run(&mut m)
        .unwrap();
    verify_module(&m).unwrap();
    let printed = print_module(&m);
    let entry = m.entry_computation();
    let copies_of = |name: &str| -> Vec<String> {
        entry
            .instructions
            .iter()
            .filter(|(_, i)| matches!(i.op, Op::Copy) && i.name.starts_with(name))
            .map(|(_, i)| i.name.clone())
            .collect()
    };
    assert!(
        copies_of("r.").is_empty(),
        "all-reduce relaid out:\n{printed}"
    );
    assert_eq!(copies_of("g.").len(), 2, "all-gather copies:\n{printed}");
    assert!(
        printed.contains("operand_layout_constraints={f32[8,4]{0,1}}"),
        "{printed}"
    );
}
