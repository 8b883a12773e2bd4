//! Custom-call targets with rules: from an HLO rules module (what
//! `--rules FILE.hlo` reads), from Rust closures built with the builder,
//! and batched by JAX's vmap methods. The target here is `my_sin`
//! (element-wise sine), run by the evaluator through a handler.

use hlox_eval::{evaluate, CustomCallError};
use hlox_hlo::builder::XlaBuilder;
use hlox_hlo::text::parse_module;
use hlox_hlo::{CustomCall, Instruction, Literal, Module};
use hlox_transform::{
    grad_with, jvp_with, vjp_with, vmap_with, RuleKind, Rules, TransformError, VmapMethod,
};

/// The `my_sin` target for the evaluator: element-wise sine.
fn my_sin(
    _: &Instruction,
    call: &CustomCall,
    ops: &[&Literal],
) -> Result<Literal, CustomCallError> {
    assert_eq!(call.target, "my_sin");
    let fail = |e: hlox_hlo::LiteralError| CustomCallError::Handler(Box::new(e));
    let x = ops[0].as_array().map_err(fail)?;
    let v: Vec<f64> = x.to_vec::<f64>().map_err(fail)?;
    let s: Vec<f64> = v.iter().map(|a| a.sin()).collect();
    Literal::from_vec(x.dims(), &s).map_err(fail)
}

fn run(m: &Module, args: &[Literal]) -> Vec<f64> {
    evaluate(m, args, &my_sin)
        .unwrap_or_else(|e| panic!("{e}\n{}", hlox_hlo::text::print_module(m)))
        .into_leaves()
        .iter()
        .flat_map(|l| l.to_vec::<f64>().unwrap())
        .collect()
}

const PROGRAM: &str = include_str!("programs/uses_my_sin.hlo");

const RULES: &str = include_str!("programs/my_sin_rules.hlo");

fn x() -> Literal {
    Literal::r1(&[0.3f64, -1.2, 2.0])
}

/// d/dx sum(sin(x) x) = cos(x) x + sin(x)
fn want_grad() -> Vec<f64> {
    [0.3f64, -1.2, 2.0]
        .iter()
        .map(|a| a.cos() * a + a.sin())
        .collect()
}

/// A batch of two `x`s (f64[2,3]) and the program's result for each.
fn batch_of_two() -> (Literal, Vec<f64>) {
    let xs = Literal::from_vec(&[2, 3], &[0.3f64, -1.2, 2.0, 1.0, 0.5, -0.1]).unwrap();
    let want = [[0.3f64, -1.2, 2.0], [1.0, 0.5, -0.1]]
        .iter()
        .map(|r| r.iter().map(|a| a.sin() * a).sum())
        .collect();
    (xs, want)
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
    }
}

#[test]
fn rules_from_an_hlo_module() {
    let m = parse_module(PROGRAM).unwrap();
    let rules = Rules::from_module(parse_module(RULES).unwrap());
    let g = grad_with(&m, &[0], &rules).unwrap();
    close(&run(&g, &[x()]), &want_grad());
    // jvp along e_1: the second component of the gradient.
    let j = jvp_with(&m, &[0], &rules).unwrap();
    let out = run(&j, &[x(), Literal::r1(&[0.0f64, 1.0, 0.0])]);
    close(&out[1..], &want_grad()[1..2]);
    // Second order through the rule: the rule's own body is differentiated.
    let v = vjp_with(&m, &[0], &rules).unwrap();
    let out = run(&v, &[x(), Literal::r0(2.0f64)]);
    let w: Vec<f64> = want_grad().iter().map(|g| 2.0 * g).collect();
    close(&out, &w);
}

#[test]
fn rules_built_in_rust() {
    let m = parse_module(PROGRAM).unwrap();
    let mut rules = Rules::new();
    rules.rule(RuleKind::Vjp, "my_sin", |call| {
        let b = XlaBuilder::new("vjp.my_sin");
        let x = b.parameter(0, &call.operands[0], "x")?;
        let ct = b.parameter(1, call.result, "ct")?;
        let c = b.cos(x)?;
        let g = b.mul(ct, c)?;
        let t = b.tuple(&[g])?;
        b.build_module(t)
    });
    let g = grad_with(&m, &[0], &rules).unwrap();
    close(&run(&g, &[x()]), &want_grad());
}

#[test]
fn vmap_methods() {
    let m = parse_module(PROGRAM).unwrap();
    let (xs, want) = batch_of_two();
    for method in [
        VmapMethod::Sequential,
        VmapMethod::ExpandDims,
        VmapMethod::BroadcastAll,
    ] {
        let mut rules = Rules::new();
        rules.vmap_method("my_sin", method);
        let b = vmap_with(&m, &[Some(0)], 2, &rules).unwrap();
        close(&run(&b, std::slice::from_ref(&xs)), &want);
    }
}

#[test]
fn a_rule_that_does_not_fit_names_both() {
    let m = parse_module(PROGRAM).unwrap();
    let mut rules = Rules::new();
    rules.rule(RuleKind::Vjp, "my_sin", |_| {
        let b = XlaBuilder::new("vjp.my_sin");
        let x = b.parameter(
            0,
            &hlox_hlo::Shape::array(hlox_hlo::ElementType::F32, vec![3]),
            "x",
        )?;
        let t = b.tuple(&[x])?;
        b.build_module(t)
    });
    let e = grad_with(&m, &[0], &rules).unwrap_err();
    assert!(matches!(e, TransformError::Rule { .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains("custom call `s` (target `my_sin`)"), "{text}");
    assert!(text.contains("(f32[3]) -> (f32[3])"), "{text}");
    assert!(
        text.contains("but the call needs (f64[3], f64[3]) -> (f64[3])"),
        "{text}"
    );
    let e = jvp_with(&m, &[0], &rules).unwrap_err();
    assert!(e.to_string().contains("has no jvp rule"), "{e}");
}

/// `vmap.my_sin` of a rules module: the operand arrives batched in front;
/// this rule calls the target once on the whole batch.
const VMAP_RULE: &str = include_str!("programs/my_sin_vmap_rule.hlo");

#[test]
fn vmap_rule_from_an_hlo_module() {
    let m = parse_module(PROGRAM).unwrap();
    let (xs, want) = batch_of_two();
    // Without a rule or a method: an error naming the target and the rule.
    let e = vmap_with(&m, &[Some(0)], 2, &Rules::new()).unwrap_err();
    assert!(e.to_string().contains("has no vmap rule"), "{e}");
    let rules = Rules::from_module(parse_module(VMAP_RULE).unwrap());
    let b = vmap_with(&m, &[Some(0)], 2, &rules).unwrap();
    close(&run(&b, std::slice::from_ref(&xs)), &want);
    // The rule's computation is in the batched module, called once.
    let text = hlox_hlo::text::print_module(&b);
    assert_eq!(
        text.matches("custom_call_target=\"my_sin\"").count(),
        1,
        "{text}"
    );
    // A batch size the rule was not written for: an error naming both.
    let e = vmap_with(&m, &[Some(0)], 3, &rules).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("the vmap rule"), "{text}");
    assert!(
        text.contains("but the call needs (f64[3,3]) -> f64[3,3]"),
        "{text}"
    );
}

#[test]
fn vmap_rule_built_in_rust_wins_over_a_method() {
    let m = parse_module(PROGRAM).unwrap();
    let (xs, want) = batch_of_two();
    let mut rules = Rules::new();
    rules.vmap_method("my_sin", VmapMethod::Sequential);
    rules.rule(RuleKind::Vmap, "my_sin", |call| {
        // Batched operands; this rule computes sine itself (no target call).
        let b = XlaBuilder::new("vmap.my_sin");
        let x = b.parameter(0, &call.operands[0], "xs")?;
        let y = b.sin(x)?;
        b.build_module(y)
    });
    let b = vmap_with(&m, &[Some(0)], 2, &rules).unwrap();
    close(&run(&b, std::slice::from_ref(&xs)), &want);
    let text = hlox_hlo::text::print_module(&b);
    assert!(
        !text.contains("my_sin\""),
        "the rule, not the method: {text}"
    );
}
