//! The properties the fuzz targets check, written once and shared by
//! cargo-fuzz (`tests/fuzz/fuzz_targets/*.rs`, libFuzzer, `make fuzz`) and
//! the bounded pass that CI runs on stable Rust (`tests/tests/fuzz_smoke.rs`,
//! a module of the `failures` test binary). Each function panics when the
//! property fails; any input may be rejected with an error.

// Each fuzz target uses one of the four properties.
#![allow(dead_code)]

use arbitrary::{Arbitrary, Unstructured};
use hlox_hlo::proto::{decode_module, encode_module};
use hlox_hlo::text::{parse_module, print_module};
use hlox_hlo::verifier::verify_module;
use hlox_hlo::Literal;
use hlox_tests::programs::{build_program, Step};
use std::sync::Arc;

/// HLO text: parse, verify, print. A module that parses and verifies prints
/// to text that parses back to the same module and prints identically.
pub fn parse_text(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = parse_module(src) else {
        return;
    };
    if verify_module(&m).is_err() {
        return;
    }
    let printed = print_module(&m);
    let again = parse_module(&printed)
        .unwrap_or_else(|e| panic!("printed module does not parse: {e}\n{printed}"));
    verify_module(&again)
        .unwrap_or_else(|e| panic!("printed module does not verify: {e}\n{printed}"));
    let reprinted = print_module(&again);
    assert_eq!(printed, reprinted, "print is not a fixed point");
    assert!(again == m, "parse(print(m)) != m for\n{printed}");
}

/// StableHLO MLIR text: parse and convert to HLO, verify. Any input may
/// fail with an error (never a panic or a hang); a module that converts and
/// verifies prints as HLO text that parses back to the same module.
pub fn parse_stablehlo(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = hlox_hlo::stablehlo::parse_module(src) else {
        return;
    };
    if verify_module(&m).is_err() {
        return;
    }
    let printed = print_module(&m);
    let again = parse_module(&printed)
        .unwrap_or_else(|e| panic!("converted module does not parse as HLO: {e}\n{printed}"));
    verify_module(&again).unwrap_or_else(|e| {
        panic!("converted module does not verify after printing: {e}\n{printed}")
    });
    assert!(again == m, "parse(print(m)) != m for\n{printed}");
}

/// HloModuleProto bytes: a module that decodes and verifies encodes,
/// decodes back to the same module, and prints to HLO text that parses.
pub fn decode_proto(data: &[u8]) {
    let Ok(m) = decode_module(data) else {
        return;
    };
    if verify_module(&m).is_err() {
        return;
    }
    let bytes = encode_module(&m);
    let again = decode_module(&bytes).unwrap_or_else(|e| panic!("re-decode: {e}"));
    assert!(again == m, "decode(encode(m)) != m");
    let printed = print_module(&m);
    parse_module(&printed)
        .unwrap_or_else(|e| panic!("printed proto module does not parse: {e}\n{printed}"));
}

/// One differential program: parameter dims, steps, argument values and
/// compile options, all chosen by the fuzzer's bytes.
#[derive(Debug)]
pub struct Case {
    pub dims: Vec<i64>,
    pub steps: Vec<Step>,
    pub values: Vec<i16>,
    pub hlo_passes: bool,
    pub opt_level: u8,
    pub parallel_threshold: usize,
}

fn step(u: &mut Unstructured) -> arbitrary::Result<Step> {
    Ok(match u.int_in_range(0u8..=11)? {
        0 => Step::Unary(u.int_in_range(0..=7)?),
        1 => Step::Binary(u.int_in_range(0..=3)?, u.int_in_range(0..=7)?),
        2 => Step::BroadcastLead(u.int_in_range(1..=3)?),
        3 => Step::ReshapeFlat,
        4 => Step::Transpose,
        5 => Step::Reduce(u.int_in_range(0..=3)?),
        6 => Step::Dot(u.int_in_range(1..=3)?),
        7 => Step::Tuple(u.int_in_range(0..=7)?),
        8 => Step::Compare(u.int_in_range(0..=7)?),
        9 => Step::Slice,
        10 => Step::ConvertRoundTrip(u.int_in_range(0..=2)?),
        _ => {
            if u.arbitrary()? {
                Step::Sort
            } else {
                let n = u.int_in_range(1..=5)?;
                Step::Constant((0..n).map(|_| u.arbitrary()).collect::<Result<_, _>>()?)
            }
        }
    })
}

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let rank = u.int_in_range(0..=2)?;
        let dims = (0..rank)
            .map(|_| u.int_in_range(1i64..=3))
            .collect::<Result<Vec<_>, _>>()?;
        let n = u.int_in_range(1..=16)?;
        let steps = (0..n).map(|_| step(u)).collect::<Result<Vec<_>, _>>()?;
        let count: i64 = dims.iter().product();
        let values = (0..count)
            .map(|_| u.arbitrary())
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Case {
            dims,
            steps,
            values,
            hlo_passes: u.arbitrary()?,
            opt_level: if u.arbitrary()? { 3 } else { 1 },
            parallel_threshold: if u.arbitrary()? { 1 << 16 } else { 8 },
        })
    }
}

/// `got` ~ `want`: NaN matches NaN, infinities exactly, integers exactly;
/// finite floats within `1e-3 * |want| + 1e-4 * (1 + max |want| of the leaf)`.
fn close(got: &Literal, want: &Literal) -> Result<(), String> {
    let (g, w) = (got.to_vec::<f32>(), want.to_vec::<f32>());
    let (Ok(g), Ok(w)) = (g, w) else {
        return hlox_tests::compare_literals(got, want, 0.0, 0.0);
    };
    if g.len() != w.len() {
        return Err(format!("{} elements vs {}", g.len(), w.len()));
    }
    let scale = w
        .iter()
        .filter(|x| x.is_finite())
        .fold(0f32, |m, x| m.max(x.abs())) as f64;
    for (i, (&x, &y)) in g.iter().zip(&w).enumerate() {
        let (x, y) = (x as f64, y as f64);
        let ok = if y.is_nan() {
            x.is_nan()
        } else if y.is_infinite() || x.is_infinite() {
            x == y
        } else {
            (x - y).abs() <= 1e-3 * y.abs() + 1e-4 * (1.0 + scale)
        };
        if !ok {
            return Err(format!("element {i}: compiled {x:e}, evaluator {y:e}"));
        }
    }
    Ok(())
}

/// Differential: the program the bytes choose, compiled by the Host
/// backend and run by the reference evaluator; the results must agree
/// (float sums may be reassociated; everything else matches closely).
/// Bytes that do not make a whole case are ignored.
pub fn differential(data: &[u8]) {
    let Ok(case) = Case::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    differential_case(&case);
}

pub fn differential_case(case: &Case) {
    let m = build_program(&case.dims, &case.steps);
    let vals: Vec<f32> = case.values.iter().map(|&v| v as f32 / 64.0).collect();
    let arg = Literal::Array(
        hlox_hlo::ArrayLiteral::from_vec(&case.dims, &vals).expect("argument literal"),
    );
    let want = hlox_eval::evaluate(&m, std::slice::from_ref(&arg), &hlox_eval::NoCustomCalls)
        .unwrap_or_else(|e| panic!("evaluator: {e}\n{}", print_module(&m)));
    let opts = hlox_cpu::CompileOptions {
        registry: Some(Arc::new(hlox_ffi::Registry::new())),
        hlo_passes: case.hlo_passes,
        opt_level: case.opt_level,
        parallel_threshold: case.parallel_threshold,
        ..Default::default()
    };
    let text = || print_module(&m);
    let exe = hlox_cpu::compile(&m, &opts).unwrap_or_else(|e| panic!("compile: {e}\n{}", text()));
    let got = exe
        .execute(&[&arg])
        .unwrap_or_else(|e| panic!("execute: {e}\n{}", text()));
    let (gl, wl) = (got.into_leaves(), want.into_leaves());
    assert_eq!(gl.len(), wl.len(), "leaf count\n{}", text());
    for (i, (g, w)) in gl.iter().zip(&wl).enumerate() {
        if let Err(e) = close(g, w) {
            panic!(
                "leaf {i} differs ({e}); options {:?} {} {}; argument {vals:?}\n{}",
                case.hlo_passes,
                case.opt_level,
                case.parallel_threshold,
                text()
            );
        }
    }
}
