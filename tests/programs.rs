//! Random well-typed HLO programs, built with the builder: the shared
//! generator behind the verifier, round-trip and (later) differential
//! property tests.

use hlox_hlo::builder::{XlaBuilder, XlaComputation, XlaOp};
use hlox_hlo::{
    CustomCallApiVersion, CustomCallSchedule, ElementType as T, Module, OutputOperandAlias, Shape,
};
use proptest::prelude::*;

/// One step of a random program; each consumes the latest value.
#[derive(Clone, Debug)]
pub enum Step {
    Unary(u8),
    Binary(u8, usize),
    BroadcastLead(i64),
    ReshapeFlat,
    Transpose,
    Reduce(usize),
    Dot(i64),
    Tuple(usize),
    Compare(usize),
    Slice,
    ConvertRoundTrip(u8),
    Sort,
    CustomCall {
        opaque: Vec<u8>,
        api: u8,
        side_effect: bool,
        tuple_result: bool,
        alias: bool,
    },
    Constant(Vec<i8>),
}

pub fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0u8..8).prop_map(Step::Unary),
        (0u8..4, 0usize..8).prop_map(|(o, i)| Step::Binary(o, i)),
        (1i64..4).prop_map(Step::BroadcastLead),
        Just(Step::ReshapeFlat),
        Just(Step::Transpose),
        (0usize..4).prop_map(Step::Reduce),
        (1i64..4).prop_map(Step::Dot),
        (0usize..8).prop_map(Step::Tuple),
        (0usize..8).prop_map(Step::Compare),
        Just(Step::Slice),
        (0u8..3).prop_map(Step::ConvertRoundTrip),
        Just(Step::Sort),
        (
            proptest::collection::vec(any::<u8>(), 0..24),
            0u8..3,
            any::<bool>(),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(
                |(opaque, api, side_effect, tuple_result, alias)| Step::CustomCall {
                    opaque,
                    api,
                    side_effect,
                    tuple_result,
                    alias
                }
            ),
        proptest::collection::vec(any::<i8>(), 1..6).prop_map(Step::Constant),
    ]
}

fn f32s(d: &[i64]) -> Shape {
    Shape::array(T::F32, d.to_vec())
}

fn scalar_computation(
    name: &str,
    f: impl Fn(&XlaBuilder, XlaOp, XlaOp) -> XlaOp,
    result: T,
) -> XlaComputation {
    let b = XlaBuilder::new(name);
    let x = b.parameter(0, &f32s(&[]), "x").unwrap();
    let y = b.parameter(1, &f32s(&[]), "y").unwrap();
    let r = f(&b, x, y);
    assert_eq!(b.get_shape(r).unwrap().element_type(), Some(result));
    b.build(r).unwrap()
}

/// Builds the program described by `dims` (the parameter's shape) and
/// `steps`. Every step yields an f32 array; the root is a tuple of all values
/// (and of every tuple and custom call made on the way).
pub fn build_program(dims: &[i64], steps: &[Step]) -> Module {
    let add = scalar_computation("add", |b, x, y| b.add(x, y).unwrap(), T::F32);
    let less = scalar_computation("less", |b, x, y| b.lt(x, y).unwrap(), T::Pred);
    let b = XlaBuilder::new("prog");
    let p = b.parameter(0, &f32s(dims), "p").unwrap();
    let mut vals: Vec<XlaOp> = vec![p];
    let mut extra: Vec<XlaOp> = vec![];
    let dims_of = |op: XlaOp| b.get_shape(op).unwrap().as_array().unwrap().dims.clone();
    for s in steps {
        let cur = *vals.last().unwrap();
        let d = dims_of(cur);
        let next = match s {
            Step::Unary(k) => match k {
                0 => b.neg(cur),
                1 => b.exp(cur),
                2 => b.tanh(cur),
                3 => b.abs(cur),
                4 => b.copy(cur),
                5 => b.floor(cur),
                6 => b.sin(cur),
                _ => b.logistic(cur),
            }
            .unwrap(),
            Step::Binary(k, i) => {
                let other = vals
                    .iter()
                    .rev()
                    .nth(i % vals.len())
                    .copied()
                    .filter(|&o| dims_of(o) == d);
                let other = match other {
                    Some(o) => o,
                    None => {
                        let c = b.constant_r0(1.5f32).unwrap();
                        b.broadcast_in_dim(c, &d, &[]).unwrap()
                    }
                };
                match k {
                    0 => b.add(cur, other),
                    1 => b.mul(cur, other),
                    2 => b.max(cur, other),
                    _ => b.sub(other, cur),
                }
                .unwrap()
            }
            Step::BroadcastLead(n) => {
                if d.len() >= 4 {
                    continue;
                }
                b.broadcast(cur, &[*n]).unwrap()
            }
            Step::ReshapeFlat => {
                let n: i64 = d.iter().product();
                b.reshape(cur, &[n]).unwrap()
            }
            Step::Transpose => {
                let perm: Vec<i64> = (0..d.len() as i64).rev().collect();
                b.transpose(cur, &perm).unwrap()
            }
            Step::Reduce(k) => {
                if d.is_empty() {
                    continue;
                }
                let z = b.constant_r0(0f32).unwrap();
                b.reduce(&[cur], &[z], &add, &[(k % d.len()) as i64])
                    .unwrap()
            }
            Step::Dot(n) => {
                if d.len() != 1 && d.len() != 2 {
                    continue;
                }
                let k = *d.last().unwrap();
                let rhs = b.iota(&Shape::array(T::F32, vec![k, *n]), 0).unwrap();
                b.dot(cur, rhs).unwrap()
            }
            Step::Tuple(i) => {
                let other = vals[i % vals.len()];
                let t = b.tuple(&[cur, other]).unwrap();
                let g = b.get_tuple_element(t, 0).unwrap();
                extra.push(t);
                g
            }
            Step::Compare(i) => {
                let other = vals[i % vals.len()];
                if dims_of(other) != d {
                    continue;
                }
                let c = b.lt(cur, other).unwrap();
                b.select(c, cur, other).unwrap()
            }
            Step::Slice => {
                if d.is_empty() || d.contains(&0) {
                    continue;
                }
                let start: Vec<i64> = d.iter().map(|&x| x / 2).collect();
                let strides: Vec<i64> = d.iter().map(|_| 1).collect();
                b.slice(cur, &start, &d, &strides).unwrap()
            }
            Step::ConvertRoundTrip(k) => {
                let ty = [T::F16, T::Bf16, T::S32][*k as usize];
                let c = b.convert(cur, ty).unwrap();
                b.convert(c, T::F32).unwrap()
            }
            Step::Sort => {
                if d.is_empty() {
                    continue;
                }
                b.sort(&[cur], &less, d.len() as i64 - 1, true).unwrap()
            }
            Step::CustomCall {
                opaque,
                api,
                side_effect,
                tuple_result,
                alias,
            } => {
                let api = [
                    CustomCallApiVersion::Original,
                    CustomCallApiVersion::StatusReturning,
                    CustomCallApiVersion::StatusReturningUnified,
                ][*api as usize];
                let shape = if *tuple_result {
                    Shape::tuple(vec![f32s(&d), f32s(&[4])])
                } else {
                    f32s(&d)
                };
                let aliasing = if *alias {
                    let out = if *tuple_result { vec![0] } else { vec![] };
                    vec![OutputOperandAlias {
                        output_index: out,
                        operand: 0,
                        operand_index: vec![],
                    }]
                } else {
                    vec![]
                };
                let cc = b
                    .custom_call(
                        "target",
                        &[cur],
                        &shape,
                        opaque,
                        *side_effect,
                        &aliasing,
                        CustomCallSchedule::None,
                        api,
                    )
                    .unwrap();
                if *tuple_result {
                    extra.push(cc);
                    b.get_tuple_element(cc, 0).unwrap()
                } else {
                    cc
                }
            }
            Step::Constant(v) => {
                let vals32: Vec<f32> = v.iter().map(|&x| x as f32 / 4.0).collect();
                let c = b.constant_r1(&vals32).unwrap();
                extra.push(c);
                continue;
            }
        };
        assert_eq!(b.get_shape(next).unwrap().element_type(), Some(T::F32));
        vals.push(next);
    }
    let mut all = vals.clone();
    all.extend(extra);
    let root = b.tuple(&all).unwrap();
    b.build_module(root).unwrap()
}

/// A random module: a parameter of rank 0..3 and up to 20 steps.
pub fn program() -> impl Strategy<Value = Module> {
    (
        proptest::collection::vec(1i64..4, 0..3),
        proptest::collection::vec(step(), 1..20),
    )
        .prop_map(|(dims, steps)| build_program(&dims, &steps))
}
