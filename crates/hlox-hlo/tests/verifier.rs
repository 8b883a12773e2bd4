//! The verifier on IR that HLO text cannot express: a missing entry or
//! root, operands after their users or out of range, repeated names, bad
//! parameter numbering, several problems at once. The diagnostics of
//! shapes, attributes, called computations, custom calls and aliasing are
//! filetests (tests/filetests/verify/, see docs/testing.md).

use hlox_hlo::ir::*;
use hlox_hlo::verifier::{verify_module, VerifyError};
use hlox_hlo::{ArrayShape, ElementType as T, EntityRef, PrimaryMap, Shape};

fn f32s(d: &[i64]) -> Shape {
    Shape::array(T::F32, d.to_vec())
}

fn inst(name: &str, op: Op, shape: Shape, operands: &[usize]) -> Instruction {
    Instruction::new(
        name,
        op,
        shape,
        operands.iter().map(|&i| InstId::new(i)).collect(),
    )
}

fn comp(name: &str, insts: Vec<Instruction>, params: &[usize], root: usize) -> Computation {
    let mut instructions = PrimaryMap::new();
    for i in insts {
        instructions.push(i);
    }
    Computation {
        name: name.into(),
        instructions,
        params: params.iter().map(|&i| InstId::new(i)).collect(),
        root: InstId::new(root),
        execution_thread: None,
    }
}

/// A module of one computation, `main`.
fn main_module(insts: Vec<Instruction>, params: &[usize], root: usize) -> Module {
    module(vec![comp("main", insts, params, root)], 0)
}

fn module(comps: Vec<Computation>, entry: usize) -> Module {
    let mut computations = PrimaryMap::new();
    for c in comps {
        computations.push(c);
    }
    Module {
        name: "m".into(),
        computations,
        entry: CompId::new(entry),
        input_output_alias: vec![],
        is_scheduled: false,
        frontend_attributes: Vec::new(),
    }
}

fn param(name: &str, n: u64, s: Shape) -> Instruction {
    inst(name, Op::Parameter { number: n }, s, &[])
}

fn add_comp(name: &str, prefix: &str) -> Computation {
    comp(
        name,
        vec![
            param(&format!("{prefix}x"), 0, f32s(&[])),
            param(&format!("{prefix}y"), 1, f32s(&[])),
            inst(
                &format!("{prefix}add"),
                Op::Binary(BinaryOp::Add),
                f32s(&[]),
                &[0, 1],
            ),
        ],
        &[0, 1],
        2,
    )
}

fn errors(m: &Module) -> VerifyError {
    match verify_module(m) {
        Ok(()) => panic!("module unexpectedly verifies"),
        Err(e) => e,
    }
}

fn expect(m: &Module, inst: Option<&str>, needle: &str) {
    let e = errors(m);
    assert!(
        e.has(inst, needle),
        "no diagnostic {needle:?} for {inst:?} in:\n{e}"
    );
}

/// p0: f32[4], p1: f32[4], add, root add.
fn good() -> Module {
    main_module(
        vec![
            param("p0", 0, f32s(&[4])),
            param("p1", 1, f32s(&[4])),
            inst("add.1", Op::Binary(BinaryOp::Add), f32s(&[4]), &[0, 1]),
        ],
        &[0, 1],
        2,
    )
}

#[test]
fn entry_must_exist() {
    let mut m = good();
    m.entry = CompId::new(5);
    expect(&m, None, "entry computation comp5 does not exist");
}

#[test]
fn callees_before_callers_and_acyclic() {
    // main calls add_comp, but add_comp comes after it.
    let main = comp(
        "main",
        vec![
            param("p0", 0, f32s(&[])),
            inst("call.1", Op::Call, f32s(&[]), &[0, 0]),
        ],
        &[0],
        1,
    );
    let mut main = main;
    main.instructions[InstId::new(1)].called = vec![CompId::new(1)];
    let m = module(vec![main.clone(), add_comp("add_comp", "a.")], 0);
    expect(&m, Some("call.1"), "does not come before its caller");

    // A computation calling itself: a cycle.
    let mut selfcall = main.clone();
    selfcall.instructions[InstId::new(1)].called = vec![CompId::new(0)];
    let m = module(vec![selfcall], 0);
    let e = errors(&m);
    assert!(
        e.has(None, "the call graph has a cycle: main -> main"),
        "{e}"
    );

    // Nonexistent callee.
    let mut bad = main;
    bad.instructions[InstId::new(1)].called = vec![CompId::new(9)];
    expect(
        &module(vec![bad], 0),
        Some("call.1"),
        "calls computation comp9 which does not exist",
    );
}

#[test]
fn operands_must_precede_users() {
    let m = main_module(
        vec![
            param("p0", 0, f32s(&[4])),
            inst("neg.1", Op::Unary(UnaryOp::Negate), f32s(&[4]), &[2]),
            inst("neg.2", Op::Unary(UnaryOp::Negate), f32s(&[4]), &[0]),
            inst("neg.3", Op::Unary(UnaryOp::Negate), f32s(&[4]), &[7]),
        ],
        &[0],
        3,
    );
    let e = errors(&m);
    assert!(
        e.has(
            Some("neg.1"),
            "operand 0 (neg.2) does not come before its user"
        ),
        "{e}"
    );
    assert!(
        e.has(
            Some("neg.3"),
            "operand 0 refers to nonexistent instruction inst7"
        ),
        "{e}"
    );
}

#[test]
fn names_unique_in_module() {
    let mut m = good();
    m.computations[CompId::new(0)].instructions[InstId::new(1)].name = "p0".into();
    expect(&m, Some("p0"), "instruction name is already used");
    // Across computations too.
    let sub = add_comp("sub", "");
    let mut main = good().computations[CompId::new(0)].clone();
    main.instructions[InstId::new(0)].name = "x".into();
    let m = module(vec![sub, main], 1);
    expect(
        &m,
        Some("x"),
        "instruction name is already used in computation sub",
    );
}

#[test]
fn parameter_numbering() {
    let m = main_module(
        vec![
            param("p0", 0, f32s(&[4])),
            param("p1", 0, f32s(&[4])),
            param("p5", 5, f32s(&[4])),
        ],
        &[0, 1, 2],
        0,
    );
    let e = errors(&m);
    assert!(
        e.has(Some("p1"), "parameter number 0 is also used by p0"),
        "{e}"
    );
    assert!(
        e.has(Some("p5"), "parameter number 5 is out of range"),
        "{e}"
    );
    assert!(
        e.has(None, "params[1] is p1 which is not parameter(1)"),
        "{e}"
    );

    let mut m = good();
    m.computations[CompId::new(0)].params = vec![InstId::new(0)];
    expect(
        &m,
        None,
        "params lists 1 parameters but the computation has 2 parameter instructions",
    );
}

#[test]
fn root_must_exist() {
    let mut m = good();
    m.computations[CompId::new(0)].root = InstId::new(10);
    expect(&m, None, "root inst10 does not exist");
}

#[test]
fn shapes_must_be_valid() {
    let mut m = good();
    let mut bad = ArrayShape::new(T::F32, vec![4]);
    bad.layout.minor_to_major = vec![3];
    m.computations[CompId::new(0)].instructions[InstId::new(0)].shape = Shape::Array(bad);
    expect(&m, Some("p0"), "not a permutation");
    let mut m = good();
    m.computations[CompId::new(0)].instructions[InstId::new(0)].shape = f32s(&[-4]);
    expect(&m, Some("p0"), "negative dimension size -4");
}

/// A reduce with two called computations (the text syntax cannot say it).
/// The signature checks of reducers, loop bodies and fusions are filetests:
/// tests/filetests/verify/called_computations.hlo.
#[test]
fn called_computation_count() {
    let add = add_comp("add_comp", "a.");
    let mut main = comp(
        "main",
        vec![
            param("p0", 0, f32s(&[4])),
            inst(
                "zero",
                Op::Constant {
                    literal: hlox_hlo::Literal::r0(0f32),
                },
                f32s(&[]),
                &[],
            ),
            inst(
                "reduce.1",
                Op::Reduce {
                    dimensions: vec![0],
                },
                f32s(&[]),
                &[0, 1],
            ),
        ],
        &[0],
        2,
    );
    main.instructions[InstId::new(2)].called = vec![CompId::new(0); 2];
    expect(
        &module(vec![add, main], 1),
        Some("reduce.1"),
        "expects 1 called computation, got 2",
    );
}

/// Empty operand layout constraints (the text syntax cannot write them).
/// Aliasing and constraint shapes are filetests:
/// tests/filetests/verify/custom_calls_and_aliasing.hlo.
#[test]
fn custom_call_with_no_layout_constraints() {
    let c = CustomCall {
        target: "t".into(),
        operand_layout_constraints: Some(vec![]),
        ..Default::default()
    };
    let m = main_module(
        vec![
            param("p0", 0, f32s(&[4])),
            inst(
                "custom-call.1",
                Op::CustomCall(Box::new(c)),
                Shape::tuple(vec![f32s(&[4]), f32s(&[2])]),
                &[0],
            ),
        ],
        &[0],
        1,
    );
    expect(
        &m,
        Some("custom-call.1"),
        "operand_layout_constraints has 0 shapes but the call has 1 operands",
    );
}

#[test]
fn several_problems_all_reported() {
    let m = main_module(
        vec![
            param("p0", 0, f32s(&[4])),
            param("p0", 1, f32s(&[4])),
            inst(
                "exp.1",
                Op::Unary(UnaryOp::Exp),
                Shape::array(T::S32, vec![4]),
                &[0],
            ),
            inst("add.2", Op::Binary(BinaryOp::Add), f32s(&[4]), &[0]),
            inst("neg.3", Op::Unary(UnaryOp::Negate), f32s(&[4]), &[5]),
        ],
        &[0, 1],
        4,
    );
    let e = errors(&m);
    assert!(e.diagnostics.len() >= 4, "{e}");
    assert!(e.has(Some("p0"), "already used"), "{e}");
    assert!(e.has(Some("exp.1"), "declared shape s32[4]"), "{e}");
    assert!(e.has(Some("add.2"), "expects 2 operands"), "{e}");
    assert!(e.has(Some("neg.3"), "nonexistent instruction"), "{e}");
    // Display: one per line, computation/instruction: message.
    let text = e.to_string();
    assert_eq!(text.lines().count(), e.diagnostics.len());
    assert!(
        text.lines()
            .any(|l| l == "main/add.2: add: expects 2 operands, got 1"),
        "{text}"
    );
}
