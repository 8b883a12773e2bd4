//! `hlox grad/vjp/jvp/vmap` end to end: transform a module JAX lowered,
//! compile and run the result with `hlox run` on the Host, and compare
//! with JAX's gradients recorded in tests/transform_corpus.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hlox(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hlox"))
        .args(args)
        .output()
        .expect("hlox runs")
}

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("transform_cli")
        .join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn case(name: &str) -> (PathBuf, Value) {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/transform_corpus")
        .join(name);
    let v = serde_json::from_str(&std::fs::read_to_string(d.join("case.json")).unwrap()).unwrap();
    (d.join("forward.hlo"), v)
}

/// Writes each JSON array as an f32/s32 .npy file; returns the paths.
fn npys(out: &Path, prefix: &str, arrays: &Value) -> Vec<String> {
    let mut paths = Vec::new();
    for (k, a) in arrays.as_array().unwrap().iter().enumerate() {
        let dims: Vec<i64> = a["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_i64().unwrap())
            .collect();
        let data = a["data"].as_array().unwrap();
        let lit = match a["dtype"].as_str().unwrap() {
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
        hlox_hlo::npy::write_npy_file(&p, &lit).unwrap();
        paths.push(p.to_str().unwrap().to_string());
    }
    paths
}

fn check_outputs(out_dir: &Path, want: &Value, what: &str) {
    for (k, w) in want.as_array().unwrap().iter().enumerate() {
        let got = hlox_hlo::npy::read_npy_file(out_dir.join(format!("out{k}.npy")))
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        let w: Vec<f32> = w["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        assert_eq!(got.len(), w.len(), "{what} output {k}");
        for (g, w) in got.iter().zip(&w) {
            assert!(
                (g - w).abs() <= 1e-5 + 2e-4 * w.abs(),
                "{what} output {k}: {g} vs JAX {w}"
            );
        }
    }
}

fn run_module(module: &Path, inputs: &[String], out_dir: &Path) {
    let mut args = vec!["run", module.to_str().unwrap()];
    for i in inputs {
        args.extend(["-i", i.as_str()]);
    }
    args.extend(["-o", out_dir.to_str().unwrap()]);
    let o = hlox(&args);
    assert!(
        o.status.success(),
        "hlox run: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn grad_then_run_matches_jax() {
    let (fwd, c) = case("mlp");
    let d = dir("grad");
    let out = d.join("grad.hlo");
    let o = hlox(&[
        "grad",
        fwd.to_str().unwrap(),
        "--wrt",
        "0,1,2,3,4",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let inputs = npys(&d, "in", &c["inputs"]);
    run_module(&out, &inputs, &d);
    check_outputs(&d, &c["grad"], "hlox grad mlp");
}

#[test]
fn vjp_jvp_and_vmap_then_run_match_jax() {
    let (fwd, c) = case("two_results");
    let d = dir("vjp");
    let out = d.join("vjp.pb");
    let o = hlox(&[
        "vjp",
        fwd.to_str().unwrap(),
        "--wrt",
        "0,1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut inputs = npys(&d, "in", &c["inputs"]);
    inputs.extend(npys(&d, "ct", &c["vjp"]["cotangents"]));
    run_module(&out, &inputs, &d);
    check_outputs(&d, &c["vjp"]["out"], "hlox vjp two_results");

    let d = dir("jvp");
    let out = d.join("jvp.hlo");
    let o = hlox(&[
        "jvp",
        fwd.to_str().unwrap(),
        "--wrt",
        "0,1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut inputs = npys(&d, "in", &c["inputs"]);
    inputs.extend(npys(&d, "t", &c["jvp"]["tangents"]));
    run_module(&out, &inputs, &d);
    let mut want = c["outputs"].as_array().unwrap().clone();
    want.extend(c["jvp"]["out"].as_array().unwrap().iter().cloned());
    check_outputs(&d, &Value::Array(want), "hlox jvp two_results");

    let d = dir("vmap");
    let out = d.join("vmap.hlo");
    let o = hlox(&[
        "vmap",
        fwd.to_str().unwrap(),
        "--in-axes",
        "0,none",
        "--size",
        "3",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let inputs = npys(&d, "in", &c["vmap"]["inputs"]);
    run_module(&out, &inputs, &d);
    check_outputs(&d, &c["vmap"]["out"], "hlox vmap two_results");
}

#[test]
fn transform_errors_are_user_errors_with_the_reason() {
    let (fwd, _) = case("two_results");
    let o = hlox(&["grad", fwd.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("grad needs a scalar floating-point result"),
        "{err}"
    );
    let o = hlox(&[
        "vmap",
        fwd.to_str().unwrap(),
        "--in-axes",
        "0,x",
        "--size",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--in-axes entry 1 is \"x\""), "{err}");
    let o = hlox(&[
        "vmap",
        fwd.to_str().unwrap(),
        "--in-axes",
        "0,none",
        "--size",
        "2",
        "--vmap-method",
        "t=loop",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unknown method \"loop\""), "{err}");
}

/// A C target (targets/c/targets.c's `do_custom_call`, z[i] = b[i % 128] +
/// c[i]) with its jvp and vjp rules from an HLO file: `hlox grad --rules`,
/// then `hlox run --plugin` against the gradient computed here.
#[test]
fn grad_of_a_c_custom_call_with_rules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/transform_rules");
    let d = dir("c_rules");
    let out = d.join("grad.hlo");
    let o = hlox(&[
        "grad",
        root.join("loss.hlo").to_str().unwrap(),
        "--wrt",
        "0,1",
        "--rules",
        root.join("do_custom_call.rules.hlo").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let b: Vec<f32> = (0..128).map(|i| (i as f32 * 0.37).sin()).collect();
    let c: Vec<f32> = (0..2048).map(|i| (i as f32 * 0.11).cos()).collect();
    let (pb, pc) = (d.join("b.npy"), d.join("c.npy"));
    hlox_hlo::npy::write_npy_file(&pb, &hlox_hlo::Literal::r1(&b)).unwrap();
    hlox_hlo::npy::write_npy_file(&pc, &hlox_hlo::Literal::r1(&c)).unwrap();
    let o = hlox(&[
        "run",
        out.to_str().unwrap(),
        "-i",
        pb.to_str().unwrap(),
        "-i",
        pc.to_str().unwrap(),
        "--plugin",
        hlox_targets::C_PLUGIN_WITH_REGISTRATION,
        "-o",
        d.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let z: Vec<f32> = (0..2048).map(|i| b[i % 128] + c[i]).collect();
    let mut gb = vec![0f32; 128];
    for (i, zi) in z.iter().enumerate() {
        gb[i % 128] += 2.0 * zi;
    }
    let gc: Vec<f32> = z.iter().map(|zi| 2.0 * zi).collect();
    for (k, want) in [gb, gc].iter().enumerate() {
        let got = hlox_hlo::npy::read_npy_file(d.join(format!("out{k}.npy")))
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= 1e-4 + 1e-5 * w.abs(),
                "gradient {k}: {g} vs {w}"
            );
        }
    }
    // Without the rules: an error naming the target and the missing rule.
    let o = hlox(&["vjp", root.join("loss.hlo").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("calls target `do_custom_call`, which has no vjp rule"),
        "{err}"
    );
}
