//! Differential fuzzing: random well-typed programs from the builder (the
//! generator of tests/programs.rs, driven by the fuzzer's bytes), compiled
//! by the Host backend and run by the reference evaluator; the results must
//! agree within a tolerance (float sums may be reassociated; everything
//! else is expected to match closely).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use hlox_hlo::Literal;
use hlox_tests::programs::{build_program, Step};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

/// One program: parameter dims, steps, argument values and compile options.
#[derive(Debug)]
struct Case {
    dims: Vec<i64>,
    steps: Vec<Step>,
    values: Vec<i16>,
    hlo_passes: bool,
    opt_level: u8,
    parallel_threshold: usize,
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

fuzz_target!(|case: Case| {
    let m = build_program(&case.dims, &case.steps);
    let vals: Vec<f32> = case.values.iter().map(|&v| v as f32 / 64.0).collect();
    let arg = Literal::Array(
        hlox_hlo::ArrayLiteral::from_vec(&case.dims, &vals).expect("argument literal"),
    );
    let want = hlox_eval::evaluate(&m, std::slice::from_ref(&arg), &hlox_eval::NoCustomCalls)
        .unwrap_or_else(|e| panic!("evaluator: {e}\n{}", hlox_hlo::text::print_module(&m)));
    let opts = hlox_cpu::CompileOptions {
        registry: Some(Arc::new(hlox_ffi::Registry::new())),
        hlo_passes: case.hlo_passes,
        opt_level: case.opt_level,
        parallel_threshold: case.parallel_threshold,
        ..Default::default()
    };
    let text = || hlox_hlo::text::print_module(&m);
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
});
