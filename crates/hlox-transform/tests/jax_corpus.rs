//! Differential test against JAX: for each program recorded by
//! scripts/gen_transform_corpus.py (tests/transform_corpus/NAME), hlox
//! transforms the forward HLO that JAX lowered, evaluates the result with
//! hlox-eval, and compares with `jax.jvp`, `jax.vjp`, `jax.grad` and
//! `jax.vmap` on the same inputs.

use hlox_eval::evaluate_with_registry;
use hlox_ffi::Registry;
use hlox_hlo::text::parse_module;
use hlox_hlo::verifier::VerifiedModule;
use hlox_hlo::{Literal, Module};
use hlox_transform::{grad_with, jvp_with, vjp_with, vmap_with, TransformError};
use serde_json::Value;
use std::path::PathBuf;

// The transformations with the rules of jaxlib's LAPACK targets (the
// programs that call them: cholesky_factor, cho_solve, triangular_solves,
// lu_solve_det, batched_factorizations, eigh_spectrum, eigvalsh_batched,
// svd_thin),
// as `hlox grad` and `hlox.grad` use them.
fn grad(m: &Module, wrt: &[usize]) -> Result<VerifiedModule, TransformError> {
    grad_with(m, wrt, &hlox_jaxlib::rules::rules())
}
fn vjp(m: &Module, wrt: &[usize]) -> Result<VerifiedModule, TransformError> {
    vjp_with(m, wrt, &hlox_jaxlib::rules::rules())
}
fn jvp(m: &Module, wrt: &[usize]) -> Result<VerifiedModule, TransformError> {
    jvp_with(m, wrt, &hlox_jaxlib::rules::rules())
}
fn vmap(m: &Module, axes: &[Option<usize>], size: i64) -> Result<VerifiedModule, TransformError> {
    vmap_with(m, axes, size, &hlox_jaxlib::rules::rules())
}

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/transform_corpus")
}

fn lit(v: &Value) -> Literal {
    let dims: Vec<i64> = v["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let data = v["data"].as_array().unwrap();
    match v["dtype"].as_str().unwrap() {
        "float32" => {
            let x: Vec<f32> = data.iter().map(|d| d.as_f64().unwrap() as f32).collect();
            Literal::from_vec(&dims, &x).unwrap()
        }
        "int32" => {
            let x: Vec<i32> = data.iter().map(|d| d.as_i64().unwrap() as i32).collect();
            Literal::from_vec(&dims, &x).unwrap()
        }
        "complex64" => {
            // Interleaved (real, imaginary) pairs.
            let x: Vec<hlox_hlo::Complex32> = data
                .chunks(2)
                .map(|p| {
                    hlox_hlo::Complex32::new(
                        p[0].as_f64().unwrap() as f32,
                        p[1].as_f64().unwrap() as f32,
                    )
                })
                .collect();
            Literal::from_vec(&dims, &x).unwrap()
        }
        "uint32" => {
            let x: Vec<u32> = data.iter().map(|d| d.as_u64().unwrap() as u32).collect();
            Literal::from_vec(&dims, &x).unwrap()
        }
        t => panic!("dtype {t} not handled"),
    }
}

fn lits(v: &Value) -> Vec<Literal> {
    v.as_array().unwrap().iter().map(lit).collect()
}

fn run(m: &Module, args: &[Literal]) -> Vec<Literal> {
    // The global registry holds jaxlib's targets (linked through hlox-jaxlib).
    evaluate_with_registry(m, args, Registry::global())
        .unwrap_or_else(|e| panic!("{e}\n{}", hlox_hlo::text::print_module(m)))
        .into_leaves()
}

/// A literal's values as f32s; complex ones as (real, imaginary) pairs.
fn reals(l: &Literal) -> Vec<f32> {
    match l.to_vec::<hlox_hlo::Complex32>() {
        Ok(c) => c.iter().flat_map(|z| [z.re, z.im]).collect(),
        Err(_) => l.to_vec::<f32>().unwrap(),
    }
}

fn compare(name: &str, what: &str, got: &[Literal], want: &[Literal]) {
    compare_within(name, what, got, want, 0.0)
}

/// `compare`, each element also allowed `of_max` times the largest
/// magnitude of its result: the f32 rounding of terms that cancel, which
/// second order through convolutions accumulates (`complex_conv`'s
/// Hessian-vector product: JAX's own f32 result is 6e-4 from a float64
/// one, for values up to 1,060).
fn compare_within(name: &str, what: &str, got: &[Literal], want: &[Literal], of_max: f32) {
    assert_eq!(got.len(), want.len(), "{name} {what}: number of results");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.shape().compatible(&w.shape()),
            "{name} {what} {k}: shape {:?} vs {:?}",
            g.shape(),
            w.shape()
        );
        let (g, w) = (reals(g), reals(w));
        let big = of_max * w.iter().fold(0f32, |m, x| m.max(x.abs()));
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            assert!(
                (a - b).abs() <= 1e-5 + 2e-4 * b.abs() + big,
                "{name} {what} result {k} element {i}: hlox {a} vs JAX {b}\nhlox {g:?}\nJAX  {w:?}"
            );
        }
    }
}

fn check_reverse(name: &str, m: &Module, case: &Value, inputs: &[Literal], wrt: &[usize]) {
    let v = vjp(m, wrt).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut a = inputs.to_vec();
    a.extend(lits(&case["vjp"]["cotangents"]));
    compare(name, "vjp", &run(&v, &a), &lits(&case["vjp"]["out"]));
    if let Some(g) = case.get("grad") {
        let gm = grad(m, wrt).unwrap_or_else(|e| panic!("{name}: {e}"));
        compare(name, "grad", &run(&gm, inputs), &lits(g));
    }
    if let Some(h) = case.get("hvp") {
        // Second order: the vjp of the grad module (for loops, reverse
        // mode of the loops reverse mode emitted) against the vjp of
        // jax.grad.
        let gm = grad(m, wrt).unwrap_or_else(|e| panic!("{name}: {e}"));
        let hv = vjp(&gm, wrt).unwrap_or_else(|e| panic!("{name} hvp: {e}"));
        let mut a = inputs.to_vec();
        a.extend(lits(&h["vectors"]));
        compare_within(name, "hvp", &run(&hv, &a), &lits(&h["out"]), 2e-6);
    }
}

fn check(name: &str) {
    let text = std::fs::read_to_string(corpus().join(name).join("forward.hlo")).unwrap();
    check_text(name, &text)
}

/// `check` of `name`'s recorded inputs and outputs with `text` as its
/// forward HLO.
fn check_text(name: &str, text: &str) {
    let dir = corpus().join(name);
    let m = parse_module(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let case: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let inputs = lits(&case["inputs"]);
    let wrt: Vec<usize> = case["wrt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_u64().unwrap() as usize)
        .collect();
    let outputs = lits(&case["outputs"]);
    if let Some(n) = case.get("devices") {
        // An SPMD program (shard_map and collectives over N devices): the
        // evaluator runs one device, so here the transformations must
        // succeed; crates/hlox-cli/tests/transform_cli.rs runs them with
        // `hlox run --devices N` against JAX.
        assert!(n.as_u64().unwrap() > 1);
        if case.get("jvp").is_none() {
            // JAX has no derivative of this program (pmax, pmin): neither
            // mode differentiates it, and both say so, naming the
            // all-reduce.
            for e in [jvp(&m, &wrt).unwrap_err(), vjp(&m, &wrt).unwrap_err()] {
                assert!(
                    matches!(
                        e,
                        TransformError::Unsupported {
                            opcode: "all-reduce",
                            ..
                        }
                    ) && e
                        .to_string()
                        .contains("JAX defines none for `pmax`/`pmin` either"),
                    "{name}: {e}"
                );
            }
        } else {
            jvp(&m, &wrt).unwrap_or_else(|e| panic!("{name}: {e}"));
            vjp(&m, &wrt).unwrap_or_else(|e| panic!("{name}: {e}"));
            let g = grad(&m, &wrt).unwrap_or_else(|e| panic!("{name}: {e}"));
            if case.get("hvp").is_some() {
                vjp(&g, &wrt).unwrap_or_else(|e| panic!("{name} hvp: {e}"));
            }
        }
        let axes: Vec<Option<usize>> = case["vmap"]["in_axes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_u64().map(|x| x as usize))
            .collect();
        vmap(&m, &axes, 3).unwrap_or_else(|e| panic!("{name}: {e}"));
        return;
    }
    compare(name, "forward", &run(&m, &inputs), &outputs);

    let j = jvp(&m, &wrt).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut a = inputs.clone();
    a.extend(lits(&case["jvp"]["tangents"]));
    let got = run(&j, &a);
    let n = outputs.len();
    compare(name, "jvp primal", &got[..n], &outputs);
    compare(name, "jvp tangent", &got[n..], &lits(&case["jvp"]["out"]));

    if case.get("vjp").is_some() {
        check_reverse(name, &m, &case, &inputs, &wrt);
    } else {
        // JAX has no reverse mode for this program (a loop with a dynamic
        // trip count), nor does hlox: it must say so, naming the loop.
        let e = vjp(&m, &wrt).expect_err("reverse mode of a dynamic loop");
        assert!(
            matches!(
                e,
                TransformError::Unsupported {
                    opcode: "while",
                    ..
                }
            ),
            "{name}: {e}"
        );
    }

    let vm = &case["vmap"];
    let axes: Vec<Option<usize>> = vm["in_axes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_u64().map(|x| x as usize))
        .collect();
    let size = vm["size"].as_i64().unwrap();
    let b = vmap(&m, &axes, size).unwrap_or_else(|e| panic!("{name}: {e}"));
    compare(
        name,
        "vmap",
        &run(&b, &lits(&vm["inputs"])),
        &lits(&vm["out"]),
    );
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*

        /// Every recorded program has a test here.
        #[test]
        fn every_recorded_program_is_tested() {
            let known = [$(stringify!($name)),*];
            for d in std::fs::read_dir(corpus()).unwrap() {
                let n = d.unwrap().file_name().into_string().unwrap();
                assert!(known.contains(&n.as_str()), "tests/transform_corpus/{n} has no test in jax_corpus.rs");
            }
        }
    };
}

cases! {
    mlp,
    softmax_cross_entropy,
    layernorm,
    attention,
    elementwise_zoo,
    reduce_max_ties,
    maximum_ties,
    slicing_and_padding,
    batched_matmul,
    dynamic_slices,
    clip_where_convert,
    broadcast_reshape_transpose,
    two_results,
    max_pool,
    sum_pool,
    cumsum,
    embedding_gather,
    scatter_add,
    conditional,
    fori_loop,
    scan_rnn,
    conv_strided_dilated,
    conv_nchw,
    sort_and_top,
    argmax_pick,
    batched_control,
    while_data_dependent,
    product_reduce,
    top_k,
    scatter_set,
    rng_bits,
    conv_grouped,
    conv_batched_kernel,
    conv_batch_groups,
    argmax_value,
    map_elementwise,
    complex_math,
    complex_outputs,
    complex_ops,
    complex_atan2,
    complex_conv,
    complex_conv_outputs,
    reduce_windows,
    variadic_reduce,
    variadic_reduce_mixing,
    scatter_mul,
    variadic_reduce_window,
    complex_scatter_mul,
    shard_map_collectives,
    shard_map_more_collectives,
    shard_map_pmax_pmin,
    cholesky_factor,
    cho_solve,
    triangular_solves,
    lu_solve_det,
    batched_factorizations,
    eigh_spectrum,
    eigvalsh_batched,
    svd_thin,
}

/// A values-only eigendecomposition (`mode = 'N'`, what hlox's own
/// optimizer makes of `eigvalsh`, and what a module dumped after it
/// holds): the rules compute the eigenvectors they need with a second
/// call, and everything still matches JAX.
#[test]
fn eigvalsh_values_only_call() {
    let text = std::fs::read_to_string(corpus().join("eigvalsh_batched/forward.hlo")).unwrap();
    let values_only = text.replace("mode = 86 : ui8", "mode = 78 : ui8");
    assert_ne!(values_only, text);
    check_text("eigvalsh_batched", &values_only);
}

/// The full `U` and `Vᵀ` of a non-square matrix (`full_matrices=True`,
/// mode `A`) have no derivative rule, in hlox as in JAX: the error names
/// the call, the target and the way out.
#[test]
fn full_svd_of_a_rectangular_matrix_is_refused() {
    let text = std::fs::read_to_string(corpus().join("svd_thin/forward.hlo")).unwrap();
    let full = text.replacen("mode = 83 : ui8", "mode = 65 : ui8", 1);
    let m = parse_module(&full).unwrap();
    for e in [vjp(&m, &[0]).unwrap_err(), jvp(&m, &[0]).unwrap_err()] {
        let msg = e.to_string();
        assert!(
            msg.contains("lapack_sgesdd_ffi")
                && msg.contains("svd.22")
                && msg.contains("full_matrices=False"),
            "{msg}"
        );
    }
}
