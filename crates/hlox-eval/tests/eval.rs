//! Tests of the reference evaluator that need Rust: custom-call handlers
//! written in Rust, IR that HLO text cannot express (malformed
//! instructions, dangling operands), timing, and the JAX corpus's
//! outputs. Every opcode on real data, with hand-computed expectations
//! (and values computed with JAX on CPU), is a filetest:
//! tests/filetests/eval/ (see docs/testing.md).

#![allow(clippy::excessive_precision)]

use half::{bf16, f16};
use hlox_eval::{evaluate, CustomCallError, EvalError, NoCustomCalls};
use hlox_hlo::*;

// ------------------------------------------------------------------ helpers

/// Builds one computation by appending instructions.
struct CB {
    name: String,
    insts: PrimaryMap<InstId, Instruction>,
    params: Vec<InstId>,
}

impl CB {
    fn new(name: &str) -> CB {
        CB {
            name: name.to_string(),
            insts: PrimaryMap::new(),
            params: Vec::new(),
        }
    }
    fn param(&mut self, shape: Shape) -> InstId {
        let n = self.params.len() as u64;
        let id = self.push(Op::Parameter { number: n }, shape, &[]);
        self.params.push(id);
        id
    }
    fn push(&mut self, op: Op, shape: Shape, operands: &[InstId]) -> InstId {
        self.call(op, shape, operands, &[])
    }
    fn call(&mut self, op: Op, shape: Shape, operands: &[InstId], called: &[CompId]) -> InstId {
        let name = format!("{}.{}", self.name, self.insts.len());
        let mut inst = Instruction::new(name, op, shape, operands.to_vec());
        inst.called = called.to_vec();
        self.insts.push(inst)
    }
    fn finish(self, root: InstId) -> Computation {
        Computation {
            name: self.name,
            instructions: self.insts,
            params: self.params,
            root,
            execution_thread: None,
        }
    }
}

struct MB {
    comps: PrimaryMap<CompId, Computation>,
}

impl MB {
    fn new() -> MB {
        MB {
            comps: PrimaryMap::new(),
        }
    }
    fn add(&mut self, c: Computation) -> CompId {
        self.comps.push(c)
    }
    fn module(self, entry: CompId) -> Module {
        Module {
            name: "test".into(),
            computations: self.comps,
            entry,
            input_output_alias: vec![],
            is_scheduled: false,
            frontend_attributes: Vec::new(),
        }
    }
}

fn sh(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims.to_vec())
}

use ElementType::*;

/// A module whose entry applies `op` (calling `called`) to parameters with the inputs' shapes.
fn run_op_with(
    mut mb: MB,
    op: Op,
    inputs: Vec<Literal>,
    out: Shape,
    called: &[CompId],
) -> Result<Literal, EvalError> {
    let mut c = CB::new("main");
    let ps: Vec<InstId> = inputs.iter().map(|l| c.param(l.shape())).collect();
    let r = c.call(op, out, &ps, called);
    let e = mb.add(c.finish(r));
    let m = mb.module(e);
    evaluate(&m, &inputs, &NoCustomCalls)
}

fn run_op(op: Op, inputs: Vec<Literal>, out: Shape) -> Literal {
    run_op_with(MB::new(), op, inputs, out, &[]).unwrap()
}

fn v<T: NativeType>(l: &Literal) -> Vec<T> {
    l.to_vec::<T>().unwrap()
}

fn r1<T: NativeType>(x: &[T]) -> Literal {
    Literal::r1(x)
}

fn lit<T: NativeType>(dims: &[i64], x: &[T]) -> Literal {
    Literal::from_vec(dims, x).unwrap()
}

fn bin(op: BinaryOp, a: Literal, b: Literal) -> Literal {
    let out = a.shape();
    run_op(Op::Binary(op), vec![a, b], out)
}

// ------------------------------------------------------------------ custom calls, layouts, errors

/// Doubles the f32 elements of its operand (target "double" only).
fn doubler(
    inst: &Instruction,
    call: &CustomCall,
    operands: &[&Literal],
) -> Result<Literal, CustomCallError> {
    if call.target != "double" {
        return Err(CustomCallError::NoHandler {
            target: call.target.clone(),
        });
    }
    let a = operands[0]
        .as_array()
        .map_err(|e| CustomCallError::Handler(e.into()))?;
    // The handler sees bytes in the operand's declared layout.
    let raw: Vec<f32> = a
        .bytes()
        .chunks_exact(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()) * 2.0)
        .collect();
    let bytes: Vec<u8> = raw.iter().flat_map(|x| x.to_ne_bytes()).collect();
    let shape = inst.shape.as_array().unwrap().clone();
    Ok(Literal::Array(
        ArrayLiteral::from_bytes(shape, bytes).map_err(|e| CustomCallError::Handler(e.into()))?,
    ))
}

fn custom_call_module(target: &str) -> Module {
    let mut col = ArrayShape::new(F32, vec![2, 2]);
    col.layout = Layout {
        minor_to_major: vec![0, 1],
    };
    let mut c = CB::new("main");
    let p = c.param(sh(F32, &[2, 2]));
    let cp = c.push(Op::Copy, Shape::Array(col.clone()), &[p]);
    let cc = CustomCall {
        target: target.to_string(),
        ..Default::default()
    };
    let r = c.push(Op::CustomCall(Box::new(cc)), Shape::Array(col), &[cp]);
    let mut mb = MB::new();
    let e = mb.add(c.finish(r));
    mb.module(e)
}

#[test]
fn custom_calls_go_through_the_handler_with_declared_layouts() {
    let m = custom_call_module("double");
    let x = lit::<f32>(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let out = evaluate(&m, &[x], &doubler).unwrap();
    assert_eq!(v::<f32>(&out), vec![2.0, 4.0, 6.0, 8.0]);
    // Result in the root's declared column-major layout.
    let a = out.as_array().unwrap();
    assert_eq!(a.shape().layout.minor_to_major, vec![0, 1]);
    let phys: Vec<f32> = a
        .bytes()
        .chunks_exact(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(phys, vec![2.0, 6.0, 4.0, 8.0]);
}

#[test]
fn custom_call_errors_name_instruction_and_target() {
    let x = lit::<f32>(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let err = evaluate(
        &custom_call_module("double"),
        std::slice::from_ref(&x),
        &NoCustomCalls,
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, EvalError::CustomCall { .. }));
    assert!(
        msg.contains("main.2") && msg.contains("double") && msg.contains("no custom-call handler"),
        "{msg}"
    );
    let err = evaluate(&custom_call_module("triple"), &[x], &doubler).unwrap_err();
    assert!(
        matches!(&err, EvalError::CustomCall { source, .. }
            if matches!(&**source, CustomCallError::NoHandler { target } if target == "triple")),
        "{err}"
    );
    assert!(
        err.to_string().contains("cannot run target triple"),
        "{err}"
    );
}

/// The error of evaluating one `op` on `operands` declared as `shape`.
fn op_error(op: Op, operands: Vec<Literal>, shape: Shape) -> String {
    run_op_with(MB::new(), op, operands, shape, &[])
        .unwrap_err()
        .to_string()
}

#[test]
fn malformed_instructions_are_errors_not_panics() {
    // Declared shape disagrees with the computed one.
    let e = op_error(
        Op::Binary(BinaryOp::Add),
        vec![r1::<f32>(&[1.0]), r1::<f32>(&[2.0])],
        sh(F32, &[2]),
    );
    assert!(
        e.to_string().contains("main.2") && e.to_string().contains("declares"),
        "{e}"
    );
    // Mismatched operand shapes.
    let e = op_error(
        Op::Binary(BinaryOp::Add),
        vec![r1::<f32>(&[1.0]), r1::<f32>(&[2.0, 3.0])],
        sh(F32, &[1]),
    );
    assert!(e.to_string().contains("different dimensions"), "{e}");
    // Float-only op on integers.
    let e = op_error(
        Op::Unary(UnaryOp::Exp),
        vec![r1::<i32>(&[1])],
        sh(S32, &[1]),
    );
    assert!(
        e.to_string()
            .contains("exponential is not defined for element type s32"),
        "{e}"
    );
    // Bad slice.
    let e = op_error(
        Op::Slice {
            dims: vec![SliceDim {
                start: 0,
                limit: 9,
                stride: 1,
            }],
        },
        vec![r1::<i32>(&[1])],
        sh(S32, &[9]),
    );
    assert!(e.to_string().contains("slice"), "{e}");
    // Bad transpose permutation, bad reduce dims, missing called computation.
    let e = op_error(
        Op::Transpose {
            dimensions: vec![0, 0],
        },
        vec![lit::<i32>(&[1, 1], &[1])],
        sh(S32, &[1, 1]),
    );
    assert!(e.to_string().contains("permutation"), "{e}");
    let e = op_error(
        Op::Reduce {
            dimensions: vec![3],
        },
        vec![r1::<i32>(&[1]), Literal::r0(0i32)],
        sh(S32, &[]),
    );
    assert!(
        e.to_string().contains("called computation") || e.to_string().contains("reduce dimensions"),
        "{e}"
    );
    let e = op_error(
        Op::Gather {
            dnums: GatherDimensionNumbers {
                index_vector_dim: 5,
                ..Default::default()
            },
            slice_sizes: vec![1],
            indices_are_sorted: false,
        },
        vec![r1::<i32>(&[1]), r1::<i32>(&[0])],
        sh(S32, &[1]),
    );
    assert!(e.to_string().contains("index_vector_dim"), "{e}");
    // Operand referring to a later instruction.
    let mut c = CB::new("main");
    let bogus = InstId::new(5);
    let r = c.push(Op::Unary(UnaryOp::Negate), sh(F32, &[]), &[bogus]);
    let mut mb = MB::new();
    let en = mb.add(c.finish(r));
    let m = mb.module(en);
    let e = evaluate(&m, &[], &NoCustomCalls).unwrap_err();
    assert!(e.to_string().contains("topological"), "{e}");
}

#[test]
fn large_elementwise_ops_are_fast_enough() {
    let n = 1 << 22;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let t = std::time::Instant::now();
    let r = bin(BinaryOp::Add, lit(&[n as i64], &x), lit(&[n as i64], &x));
    let out = v::<f32>(&r);
    assert_eq!(out[12345], 24690.0);
    assert!(t.elapsed().as_secs() < 30, "took {:?}", t.elapsed());
}

// ------------------------------------------------------------------ JAX corpus

fn corpus_literal(ty: ElementType, dims: &[i64], text: &str) -> Literal {
    let toks: Vec<&str> = text.split_whitespace().collect();
    let f = |t: &&str| t.parse::<f64>().unwrap();
    let i = |t: &&str| t.parse::<i128>().unwrap();
    match ty {
        Pred => lit(dims, &toks.iter().map(|t| *t == "1").collect::<Vec<_>>()),
        S8 => lit(dims, &toks.iter().map(|t| i(t) as i8).collect::<Vec<_>>()),
        S16 => lit(dims, &toks.iter().map(|t| i(t) as i16).collect::<Vec<_>>()),
        S32 => lit(dims, &toks.iter().map(|t| i(t) as i32).collect::<Vec<_>>()),
        S64 => lit(dims, &toks.iter().map(|t| i(t) as i64).collect::<Vec<_>>()),
        U8 => lit(dims, &toks.iter().map(|t| i(t) as u8).collect::<Vec<_>>()),
        U16 => lit(dims, &toks.iter().map(|t| i(t) as u16).collect::<Vec<_>>()),
        U32 => lit(dims, &toks.iter().map(|t| i(t) as u32).collect::<Vec<_>>()),
        U64 => lit(dims, &toks.iter().map(|t| i(t) as u64).collect::<Vec<_>>()),
        F16 => lit(
            dims,
            &toks.iter().map(|t| f16::from_f64(f(t))).collect::<Vec<_>>(),
        ),
        Bf16 => lit(
            dims,
            &toks
                .iter()
                .map(|t| bf16::from_f64(f(t)))
                .collect::<Vec<_>>(),
        ),
        F32 => lit(dims, &toks.iter().map(|t| f(t) as f32).collect::<Vec<_>>()),
        F64 => lit(dims, &toks.iter().map(f).collect::<Vec<_>>()),
        // Interleaved parts: re im re im ...
        C64 => lit(
            dims,
            &toks
                .chunks(2)
                .map(|p| hlox_hlo::Complex32::new(f(&p[0]) as f32, f(&p[1]) as f32))
                .collect::<Vec<_>>(),
        ),
        C128 => lit(
            dims,
            &toks
                .chunks(2)
                .map(|p| hlox_hlo::Complex64::new(f(&p[0]), f(&p[1])))
                .collect::<Vec<_>>(),
        ),
    }
}

/// Every element of an array literal as f64 (exact for all integers used here).
fn as_f64s(l: &Literal) -> Vec<f64> {
    let a = l.as_array().unwrap();
    match a.ty() {
        Pred => v::<bool>(l).into_iter().map(|x| x as u8 as f64).collect(),
        S8 => v::<i8>(l).into_iter().map(|x| x as f64).collect(),
        S16 => v::<i16>(l).into_iter().map(|x| x as f64).collect(),
        S32 => v::<i32>(l).into_iter().map(|x| x as f64).collect(),
        S64 => v::<i64>(l).into_iter().map(|x| x as f64).collect(),
        U8 => v::<u8>(l).into_iter().map(|x| x as f64).collect(),
        U16 => v::<u16>(l).into_iter().map(|x| x as f64).collect(),
        U32 => v::<u32>(l).into_iter().map(|x| x as f64).collect(),
        U64 => v::<u64>(l).into_iter().map(|x| x as f64).collect(),
        F16 => v::<f16>(l).into_iter().map(|x| x.to_f64()).collect(),
        Bf16 => v::<bf16>(l).into_iter().map(|x| x.to_f64()).collect(),
        F32 => v::<f32>(l).into_iter().map(|x| x as f64).collect(),
        F64 => v::<f64>(l),
        // Each complex number as its two parts.
        C64 => v::<hlox_hlo::Complex32>(l)
            .into_iter()
            .flat_map(|z| [z.re as f64, z.im as f64])
            .collect(),
        C128 => v::<hlox_hlo::Complex64>(l)
            .into_iter()
            .flat_map(|z| [z.re, z.im])
            .collect(),
    }
}

fn parse_section_header(h: &str) -> (ElementType, Vec<i64>) {
    // "f32 [2,3]"
    let (ty, dims) = h.split_once(' ').unwrap();
    let dims = dims.trim().trim_start_matches('[').trim_end_matches(']');
    let dims: Vec<i64> = if dims.is_empty() {
        vec![]
    } else {
        dims.split(',').map(|d| d.trim().parse().unwrap()).collect()
    };
    (ElementType::from_name(ty).unwrap(), dims)
}

#[test]
fn jax_corpus_matches_jax_on_cpu() {
    let src = include_str!("data/jax_cases.txt");
    let mut checked = 0;
    for case in src.split("=== ").skip(1) {
        let (header, rest) = case.split_once('\n').unwrap();
        let (name, tol) = header.split_once(" tol=").unwrap();
        let tol: f64 = tol.trim().parse().unwrap();
        let mut sections = rest.split("--- ");
        let hlo = sections.next().unwrap();
        let module =
            hlox_hlo::text::parse::parse_module(hlo).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut args = Vec::new();
        let mut outs = Vec::new();
        for s in sections {
            let (h, body) = s.split_once('\n').unwrap();
            let (kind, h) = h.split_once(' ').unwrap();
            let (ty, dims) = parse_section_header(h);
            let l = corpus_literal(ty, &dims, body);
            if kind == "arg" {
                args.push(l);
            } else {
                outs.push(l);
            }
        }
        let got =
            evaluate(&module, &args, &NoCustomCalls).unwrap_or_else(|e| panic!("{name}: {e}"));
        let leaves = got.leaves();
        assert_eq!(leaves.len(), outs.len(), "{name}: number of results");
        for (k, (g, want)) in leaves.iter().zip(&outs).enumerate() {
            assert_eq!(
                g.shape().element_type(),
                want.shape().element_type(),
                "{name} result {k}"
            );
            assert_eq!(
                g.as_array().unwrap().dims(),
                want.as_array().unwrap().dims(),
                "{name} result {k}"
            );
            let (gv, wv) = (as_f64s(g), as_f64s(want));
            for (j, (a, b)) in gv.iter().zip(&wv).enumerate() {
                let ok =
                    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol * (1.0 + b.abs());
                assert!(
                    ok,
                    "{name} result {k} element {j}: evaluator {a}, JAX {b}\n{gv:?}\n{wv:?}"
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 36, "only {checked} cases");
}
