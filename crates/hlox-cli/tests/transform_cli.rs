//! `hlox grad/vjp/jvp/vmap` end to end: transform a module JAX lowered,
//! compile and run the result with `hlox run` on the Host, and compare
//! with JAX's gradients recorded in tests/transform_corpus.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn case(name: &str) -> (PathBuf, Value) {
    let d = repo("tests/transform_corpus").join(name);
    let v = serde_json::from_str(&read_text(&d.join("case.json"))).unwrap();
    (d.join("forward.hlo"), v)
}

/// Writes each JSON array as an f32/s32 .npy file; returns the paths.
fn npys(out: &Path, prefix: &str, arrays: &Value) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for (k, a) in arrays.as_array().unwrap().iter().enumerate() {
        let dims: Vec<i64> = serde_json::from_value(a["shape"].clone()).unwrap();
        let data = a["data"].as_array().unwrap();
        let lit = match a["dtype"].as_str().unwrap() {
            "complex64" => {
                // Interleaved (real, imaginary) pairs.
                let v: Vec<hlox_hlo::Complex32> = data
                    .chunks(2)
                    .map(|p| {
                        let part = |x: &Value| x.as_f64().unwrap() as f32;
                        hlox_hlo::Complex32::new(part(&p[0]), part(&p[1]))
                    })
                    .collect();
                hlox_hlo::Literal::from_vec(&dims, &v).unwrap()
            }
            "float32" => {
                let v: Vec<f32> = data.iter().map(|x| x.as_f64().unwrap() as f32).collect();
                hlox_hlo::Literal::from_vec(&dims, &v).unwrap()
            }
            _ => {
                let v: Vec<i32> = data.iter().map(|x| x.as_i64().unwrap() as i32).collect();
                hlox_hlo::Literal::from_vec(&dims, &v).unwrap()
            }
        };
        let p = out.join(format!("{prefix}{k}.npy"));
        write_npy_at(&p, &lit);
        paths.push(p);
    }
    paths
}

/// Asserts that `out_dir`'s outputs match the JSON arrays `want`.
fn check_outputs(out_dir: &Path, want: &Value, what: &str) {
    check_outputs_within(out_dir, want, what, 0.0)
}

/// `check_outputs`, each element also allowed `of_max` times its result's
/// largest magnitude (the f32 rounding of cancelling terms in second
/// order; as `hlox-transform`'s `jax_corpus` compares Hessian-vector
/// products).
fn check_outputs_within(out_dir: &Path, want: &Value, what: &str, of_max: f32) {
    for (k, w) in want.as_array().unwrap().iter().enumerate() {
        let p = out_dir.join(format!("out{k}.npy"));
        let lit =
            hlox_hlo::npy::read_npy_file(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        // Complex outputs as interleaved (real, imaginary) pairs, as the
        // corpus stores them.
        let got = match lit.to_vec::<hlox_hlo::Complex32>() {
            Ok(c) => c.iter().flat_map(|z| [z.re, z.im]).collect(),
            Err(_) => read_f32(&p),
        };
        let w: Vec<f32> = serde_json::from_value(w["data"].clone()).unwrap();
        let big = of_max * w.iter().fold(0f32, |m, x| m.max(x.abs()));
        assert_close(
            &got,
            &w,
            1e-5 + big,
            2e-4,
            &format!("{what} output {k} vs JAX"),
        );
    }
}

/// `hlox TRANSFORM forward.hlo ARGS -o OUT`, then `hlox run OUT` on `inputs`
/// writing to `dir`.
fn transform_then_run(transform: &str, fwd: &Path, args: &[&str], out: &Path, inputs: &[PathBuf]) {
    Hlox::new(transform)
        .arg(fwd)
        .args(args)
        .arg("-o")
        .arg(out)
        .ok();
    Hlox::new("run")
        .arg(out)
        .inputs(inputs)
        .arg("-o")
        .arg(out.parent().unwrap())
        .ok();
}

#[test]
fn grad_then_run_matches_jax() {
    let (fwd, c) = case("mlp");
    let d = tmp_dir("grad");
    let inputs = npys(&d, "in", &c["inputs"]);
    transform_then_run(
        "grad",
        &fwd,
        &["--wrt", "0,1,2,3,4"],
        &d.join("grad.hlo"),
        &inputs,
    );
    check_outputs(&d, &c["grad"], "hlox grad mlp");
}

#[test]
fn vjp_jvp_and_vmap_then_run_match_jax() {
    let (fwd, c) = case("two_results");
    let d = tmp_dir("vjp");
    let mut inputs = npys(&d, "in", &c["inputs"]);
    inputs.extend(npys(&d, "ct", &c["vjp"]["cotangents"]));
    transform_then_run("vjp", &fwd, &["--wrt", "0,1"], &d.join("vjp.pb"), &inputs);
    check_outputs(&d, &c["vjp"]["out"], "hlox vjp two_results");

    let d = tmp_dir("jvp");
    let mut inputs = npys(&d, "in", &c["inputs"]);
    inputs.extend(npys(&d, "t", &c["jvp"]["tangents"]));
    transform_then_run("jvp", &fwd, &["--wrt", "0,1"], &d.join("jvp.hlo"), &inputs);
    let mut want = c["outputs"].as_array().unwrap().clone();
    want.extend(c["jvp"]["out"].as_array().unwrap().iter().cloned());
    check_outputs(&d, &Value::Array(want), "hlox jvp two_results");

    let d = tmp_dir("vmap");
    let inputs = npys(&d, "in", &c["vmap"]["inputs"]);
    let args = ["--in-axes", "0,none", "--size", "3"];
    transform_then_run("vmap", &fwd, &args, &d.join("vmap.hlo"), &inputs);
    check_outputs(&d, &c["vmap"]["out"], "hlox vmap two_results");
}

#[test]
fn transform_errors_are_user_errors_with_the_reason() {
    let (fwd, _) = case("two_results");
    Hlox::new("grad")
        .arg(&fwd)
        .fails(1, &["grad needs a scalar floating-point result"]);
    let vmap = |axes: &str| {
        Hlox::new("vmap")
            .arg(&fwd)
            .args(["--in-axes", axes, "--size", "2"])
    };
    vmap("0,x").fails(1, &["--in-axes entry 1 is \"x\""]);
    vmap("0,none")
        .args(["--vmap-method", "t=loop"])
        .fails(1, &["unknown method \"loop\""]);
}

/// A C target (targets/c/targets.c's `do_custom_call`, z[i] = b[i % 128] +
/// c[i]) with its jvp and vjp rules from an HLO file: `hlox grad --rules`,
/// then `hlox run --plugin` against the gradient computed here.
#[test]
fn grad_of_a_c_custom_call_with_rules() {
    let root = repo("tests/transform_rules");
    let d = tmp_dir("c_rules");
    let out = d.join("grad.hlo");
    Hlox::new("grad")
        .arg(root.join("loss.hlo"))
        .args(["--wrt", "0,1", "--rules"])
        .arg(root.join("do_custom_call.rules.hlo"))
        .arg("-o")
        .arg(&out)
        .ok();
    let b: Vec<f32> = (0..128).map(|i| (i as f32 * 0.37).sin()).collect();
    let c: Vec<f32> = (0..2048).map(|i| (i as f32 * 0.11).cos()).collect();
    let (pb, pc) = (d.join("b.npy"), d.join("c.npy"));
    write_npy_at(&pb, &hlox_hlo::Literal::r1(&b));
    write_npy_at(&pc, &hlox_hlo::Literal::r1(&c));
    Hlox::new("run")
        .arg(&out)
        .inputs(&[&pb, &pc])
        .args(["--plugin", hlox_targets::C_PLUGIN_WITH_REGISTRATION, "-o"])
        .arg(&d)
        .ok();
    let z: Vec<f32> = (0..2048).map(|i| b[i % 128] + c[i]).collect();
    let mut gb = vec![0f32; 128];
    for (i, zi) in z.iter().enumerate() {
        gb[i % 128] += 2.0 * zi;
    }
    let gc: Vec<f32> = z.iter().map(|zi| 2.0 * zi).collect();
    for (k, want) in [gb, gc].iter().enumerate() {
        let got = read_f32(&d.join(format!("out{k}.npy")));
        assert_close(&got, want, 1e-4, 1e-5, &format!("gradient {k}"));
    }
    // Without the rules: an error naming the target and the missing rule.
    Hlox::new("vjp")
        .arg(root.join("loss.hlo"))
        .fails(1, &["calls target `do_custom_call`, which has no vjp rule"]);
}

/// A C plugin that registers its target `cube` and the target's jvp, vjp
/// and vmap rules together (targets/c/cube_rules.c, `register_rules`):
/// `hlox grad/jvp/vmap --plugin` find the rules with no --rules file.
#[test]
fn rules_registered_by_a_c_plugin() {
    let plugin = hlox_targets::C_PLUGIN_CUBE_RULES;
    assert!(!plugin.is_empty(), "{}", hlox_targets::C_BUILD_ERROR);
    let d = tmp_dir("cube_rules");
    // sum(cube(x) * x) over f32[4]: its gradient is 4 x^3.
    let m = repo("tests/transform_rules/cube_loss.hlo");
    let xs = [0.5f32, -1.25, 2.0, 0.75];
    let px = d.join("x.npy");
    write_npy_at(&px, &hlox_hlo::Literal::r1(&xs));
    // `hlox TRANSFORM m [extra] --plugin` into `d/TRANSFORM.hlo`.
    let transform = |how: &str, extra: &[&str]| {
        let out = d.join(format!("{how}.hlo"));
        Hlox::new(how)
            .arg(&m)
            .args(extra)
            .args(["--plugin", plugin, "-o"])
            .arg(&out)
            .ok();
        out
    };
    // `hlox run` of `module` on `inputs` (the plugin loaded) into `out`.
    let run = |module: &Path, inputs: &[&PathBuf], out: &Path| {
        Hlox::new("run")
            .arg(module)
            .inputs(inputs)
            .args(["--plugin", plugin, "-o"])
            .arg(out)
            .ok();
    };

    // grad: the plugin's vjp rule; the forward pass runs the C target.
    let g = transform("grad", &[]);
    run(&g, &[&px], &d);
    let want: Vec<f32> = xs.iter().map(|x| 4.0 * x * x * x).collect();
    assert_close(
        &read_f32(&d.join("out0.npy")),
        &want,
        1e-5,
        1e-5,
        "grad via plugin rules",
    );

    // jvp along e_2: the gradient's third component.
    let j = transform("jvp", &[]);
    let pt = d.join("t.npy");
    write_npy_at(&pt, &hlox_hlo::Literal::r1(&[0f32, 0.0, 1.0, 0.0]));
    let jd = tmp_dir("cube_rules_jvp");
    run(&j, &[&px, &pt], &jd);
    assert_close(
        &read_f32(&jd.join("out1.npy")),
        &want[2..3],
        1e-5,
        1e-5,
        "jvp via plugin rules",
    );

    // vmap over two rows: the plugin's vmap rule (which computes x^3
    // itself, so the batched module calls no target).
    let v = transform("vmap", &["--in-axes", "0", "--size", "2"]);
    assert!(
        !read_text(&v).contains("custom_call_target"),
        "{}",
        read_text(&v)
    );
    let rows = [0.5f32, -1.25, 2.0, 0.75, 1.0, 2.0, -3.0, 0.25];
    let pxs = d.join("xs.npy");
    write_npy_at(&pxs, &hlox_hlo::Literal::from_vec(&[2, 4], &rows).unwrap());
    let vd = tmp_dir("cube_rules_vmap");
    // Without the plugin: the batched module calls no target.
    Hlox::new("run")
        .arg(&v)
        .inputs(&[&pxs])
        .arg("-o")
        .arg(&vd)
        .ok();
    let want: Vec<f32> = rows
        .chunks(4)
        .map(|r| r.iter().map(|x| x * x * x * x).sum())
        .collect();
    assert_close(
        &read_f32(&vd.join("out0.npy")),
        &want,
        1e-5,
        1e-5,
        "vmap via plugin rule",
    );
}

/// `hlox jvp`, `vjp`, `grad` and `vmap` (and `grad` then `vjp` of it
/// where the case records a Hessian-vector product) of a corpus case, each
/// run with `hlox run` on the Host (with `--devices N` for an SPMD
/// program) and compared with JAX.
fn corpus_case_on_the_host(name: &str) {
    let (fwd, c) = case(name);
    let list = |v: &Value| -> String {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().map_or("none".to_string(), |n| n.to_string()))
            .collect::<Vec<_>>()
            .join(",")
    };
    let wrt = list(&c["wrt"]);
    let devices = c.get("devices").map(|n| n.to_string());
    let then_run =
        |transform: &str, module: &Path, args: &[&str], out: &Path, inputs: &[PathBuf]| {
            Hlox::new(transform)
                .arg(module)
                .args(args)
                .arg("-o")
                .arg(out)
                .ok();
            let mut run = Hlox::new("run")
                .arg(out)
                .inputs(inputs)
                .arg("-o")
                .arg(out.parent().unwrap());
            if let Some(n) = &devices {
                run = run.args(["--devices", n]);
            }
            run.ok();
        };

    if c.get("jvp").is_none() {
        // JAX has no derivative of the program (pmax): the forward
        // module's outputs are checked here, and `hlox jvp` must refuse it,
        // naming the all-reduce.
        let d = tmp_dir(&format!("{name}_forward"));
        let inputs = npys(&d, "in", &c["inputs"]);
        let mut run = Hlox::new("run").arg(&fwd).inputs(&inputs).arg("-o").arg(&d);
        if let Some(n) = &devices {
            run = run.args(["--devices", n]);
        }
        run.ok();
        check_outputs(&d, &c["outputs"], &format!("hlox run {name}"));
        Hlox::new("jvp")
            .arg(&fwd)
            .args(["--wrt", &wrt, "-o"])
            .arg(d.join("jvp.hlo"))
            .fails(1, &["(all-reduce)", "JAX defines none for `pmax`/`pmin`"]);
    } else {
        let d = tmp_dir(&format!("{name}_jvp"));
        let mut inputs = npys(&d, "in", &c["inputs"]);
        inputs.extend(npys(&d, "t", &c["jvp"]["tangents"]));
        then_run("jvp", &fwd, &["--wrt", &wrt], &d.join("jvp.hlo"), &inputs);
        let mut want = c["outputs"].as_array().unwrap().clone();
        want.extend(c["jvp"]["out"].as_array().unwrap().iter().cloned());
        check_outputs(&d, &Value::Array(want), &format!("hlox jvp {name}"));
    }

    if let Some(v) = c.get("vjp") {
        let d = tmp_dir(&format!("{name}_vjp"));
        let mut inputs = npys(&d, "in", &c["inputs"]);
        inputs.extend(npys(&d, "ct", &v["cotangents"]));
        then_run("vjp", &fwd, &["--wrt", &wrt], &d.join("vjp.hlo"), &inputs);
        check_outputs(&d, &v["out"], &format!("hlox vjp {name}"));
    }

    if let Some(g) = c.get("grad") {
        let d = tmp_dir(&format!("{name}_grad"));
        let inputs = npys(&d, "in", &c["inputs"]);
        then_run("grad", &fwd, &["--wrt", &wrt], &d.join("grad.hlo"), &inputs);
        check_outputs(&d, g, &format!("hlox grad {name}"));
    }

    if let Some(vm) = c.get("vmap") {
        let d = tmp_dir(&format!("{name}_vmap"));
        let inputs = npys(&d, "in", &vm["inputs"]);
        let size = vm["size"].to_string();
        let args = ["--in-axes", &list(&vm["in_axes"]), "--size", &size];
        then_run("vmap", &fwd, &args, &d.join("vmap.hlo"), &inputs);
        check_outputs(&d, &vm["out"], &format!("hlox vmap {name}"));
    }

    if let Some(h) = c.get("hvp") {
        let d = tmp_dir(&format!("{name}_hvp"));
        let g = d.join("grad.hlo");
        Hlox::new("grad")
            .arg(&fwd)
            .args(["--wrt", &wrt, "-o"])
            .arg(&g)
            .ok();
        let mut inputs = npys(&d, "in", &c["inputs"]);
        inputs.extend(npys(&d, "v", &h["vectors"]));
        then_run("vjp", &g, &["--wrt", &wrt], &d.join("hvp.hlo"), &inputs);
        check_outputs_within(&d, &h["out"], &format!("hlox vjp of grad {name}"), 2e-6);
    }
}

/// Grouped, depthwise and batch-grouped convolutions (both gradients,
/// vmap with batched kernels), an argmax's value result, `map`, complex
/// numbers (with `pow`, sort, scatters, the FFTs and convolutions), product
/// and dilated sum reduce-windows (`cumprod`, also second order),
/// variadic reduces that mix their operands (trees of element-wise steps,
/// also second order), variadic reduce-windows (folds over the window,
/// real and complex), scatters that multiply (complex too), and second order through
/// `fori_loop` and `scan`,
/// compiled for the Host.
#[test]
fn transformed_corpus_cases_run_on_the_host() {
    for name in [
        "conv_grouped",
        "conv_batched_kernel",
        "conv_batch_groups",
        "argmax_value",
        "map_elementwise",
        "complex_math",
        "complex_outputs",
        "complex_ops",
        "complex_conv",
        "complex_conv_outputs",
        "reduce_windows",
        "variadic_reduce_mixing",
        "scatter_mul",
        "variadic_reduce_window",
        "complex_scatter_mul",
        "fori_loop",
        "scan_rnn",
    ] {
        corpus_case_on_the_host(name);
    }
}

/// Programs calling jaxlib's LAPACK targets (a Cholesky factor, a Gaussian
/// process's likelihood through `cho_solve`, triangular solves of every
/// kind, `jnp.linalg.solve` and `det` through a pivoted LU, the same on
/// stacks of matrices, `eigh`, a batched `eigvalsh`, thin SVDs of a tall
/// and a wide matrix and `svdvals`; second order through the Cholesky and
/// eigh rules), differentiated and batched by the rules hlox ships for
/// them (no --rules, no --plugin), compiled for the Host.
#[test]
fn lapack_targets_differentiate_and_batch_with_their_own_rules() {
    for name in [
        "cholesky_factor",
        "cho_solve",
        "triangular_solves",
        "lu_solve_det",
        "batched_factorizations",
        "eigh_spectrum",
        "eigvalsh_batched",
        "svd_thin",
    ] {
        corpus_case_on_the_host(name);
    }
}

/// The gradient of a `shard_map` over 4 devices with `psum`,
/// `all_gather`, `ppermute`, `psum_scatter` and `all_to_all` (collectives
/// transposed as JAX does, the `shard_map` boundaries into each other),
/// and its vmap, run with `--devices 4` against `jax.grad`, `jax.vjp`,
/// `jax.jvp` and `jax.vmap`.
#[test]
fn transformed_spmd_program_runs_on_4_devices() {
    corpus_case_on_the_host("shard_map_collectives");
}

/// The collectives XLA's passes make (a variadic all-reduce, the tuple
/// form of all-to-all, collective-broadcast) transposed as JAX's `psum`,
/// `all_to_all` and `pbroadcast` are, and `pmax`/`pmin` batched (JAX has
/// no derivative for them; `hlox jvp` refuses), run with `--devices 4`
/// against JAX.
#[test]
fn transformed_xla_collectives_run_on_4_devices() {
    corpus_case_on_the_host("shard_map_more_collectives");
    corpus_case_on_the_host("shard_map_pmax_pmin");
}
