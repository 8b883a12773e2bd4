//! End-to-end tests of the `hlox` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hlox(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hlox"))
        .args(args)
        .output()
        .expect("hlox runs")
}

fn corpus(case: &str, file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(case)
        .join(file)
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Asserts that the f32 `.npy` file `got` holds `want`'s values within
/// `|g - w| <= tol + tol * |w|`; `what` names the comparison in a failure.
fn assert_npy_close(got: &Path, want: &Path, tol: f32, what: &str) {
    let read = |p: &Path| {
        hlox_hlo::npy::read_npy_file(p)
            .unwrap_or_else(|e| panic!("{what}: {}: {e}", p.display()))
            .to_vec::<f32>()
            .unwrap_or_else(|e| panic!("{what}: {}: {e}", p.display()))
    };
    let (got, want) = (read(got), read(want));
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= tol + tol * w.abs(), "{what}: {g} vs {w}");
    }
}

/// `tmp(name)` holding `text`.
fn tmp_file(name: &str, text: &str) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    p
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn fmt_prints_jax_text_back_exactly() {
    let path = corpus("softmax", "module.hlo");
    let o = hlox(&["fmt", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim_end(),
        std::fs::read_to_string(&path).unwrap().trim_end()
    );
}

#[test]
fn fmt_accepts_a_proto() {
    let o = hlox(&["fmt", corpus("mlp_forward", "module.pb").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("HloModule jit_"), "{}", stdout(&o));
    assert!(stdout(&o).contains("ENTRY"), "{}", stdout(&o));
}

#[test]
fn convert_text_to_proto_and_back() {
    let src = corpus("while_loops", "module.hlo");
    let pb = tmp("while_loops.pb");
    let back = tmp("while_loops.hlo");
    let o = hlox(&["convert", src.to_str().unwrap(), "-o", pb.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = hlox(&[
        "convert",
        pb.to_str().unwrap(),
        "-o",
        back.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&back).unwrap().trim_end(),
        std::fs::read_to_string(&src).unwrap().trim_end()
    );
}

#[test]
fn parse_error_has_file_line_col_and_caret_and_exit_code_1() {
    let bad = tmp_file(
        "bad.hlo",
        "HloModule m\n\nENTRY e {\n  ROOT x = f32[] negate(y)\n}\n",
    );
    let o = hlox(&["fmt", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("bad.hlo:4:25: unknown instruction 'y'"),
        "{err}"
    );
    assert!(err.contains("  ROOT x = f32[] negate(y)\n"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn verify_error_names_the_instruction() {
    let bad = tmp_file("badshape.hlo", "HloModule m\n\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[3] parameter(1)\n  ROOT s = f32[2] add(a, b)\n}\n");
    let o = hlox(&["fmt", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("does not verify"), "{err}");
    assert!(err.contains("e/s: add"), "{err}");
}

#[test]
fn missing_file_and_corrupt_proto_are_errors_not_panics() {
    let o = hlox(&["fmt", "/nonexistent/x.hlo"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot read /nonexistent/x.hlo"),
        "{}",
        stderr(&o)
    );
    let junk = tmp("junk.pb");
    std::fs::write(&junk, b"\xff\xff\xff\x01garbage").unwrap();
    let o = hlox(&["fmt", junk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("not a valid HloModuleProto"),
        "{}",
        stderr(&o)
    );
}

fn write_npy(name: &str, lit: &hlox_hlo::Literal) -> PathBuf {
    let p = tmp(name);
    hlox_hlo::npy::write_npy_file(&p, lit).unwrap();
    p
}

const SEED: &str = r#"HloModule seed

ENTRY main {
  b = f32[128]{0} parameter(0)
  c = f32[2048]{0} parameter(1)
  ROOT cc = f32[2048]{0} custom-call(b, c), custom_call_target="TARGET"
}
"#;

fn seed_files(target: &str) -> (PathBuf, PathBuf, PathBuf, Vec<f32>) {
    let hlo = tmp(&format!("seed_{target}.hlo"));
    std::fs::write(&hlo, SEED.replace("TARGET", target)).unwrap();
    let b: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let c: Vec<f32> = (0..2048).map(|i| i as f32 * 0.25).collect();
    let want = (0..2048).map(|i| b[i % 128] + c[i]).collect();
    let bp = write_npy(&format!("seed_b_{target}.npy"), &hlox_hlo::Literal::r1(&b));
    let cp = write_npy(&format!("seed_c_{target}.npy"), &hlox_hlo::Literal::r1(&c));
    (hlo, bp, cp, want)
}

#[test]
fn run_interpret_seed_custom_call_from_c_plugin() {
    let (hlo, b, c, want) = seed_files("do_custom_call");
    let dir = tmp("run_seed_out");
    let o = hlox(&[
        "run",
        hlo.to_str().unwrap(),
        "--input",
        b.to_str().unwrap(),
        "--input",
        c.to_str().unwrap(),
        "--plugin",
        hlox_targets::C_PLUGIN_SYMBOLS_ONLY,
        "--out-dir",
        dir.to_str().unwrap(),
        "--interpret",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("out0: f32[2048]{0} min=0 max="),
        "{}",
        stdout(&o)
    );
    let got = hlox_hlo::npy::read_npy_file(dir.join("out0.npy")).unwrap();
    assert_eq!(got.to_vec::<f32>().unwrap(), want);
}

#[test]
fn run_interpret_jax_module_matches_jax_outputs() {
    let dir = tmp("run_softmax_out");
    let o = hlox(&[
        "run",
        corpus("softmax", "module.pb").to_str().unwrap(),
        "-i",
        corpus("softmax", "in0.npy").to_str().unwrap(),
        "-o",
        dir.to_str().unwrap(),
        "--interpret",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_npy_close(
        &dir.join("out0.npy"),
        &corpus("softmax", "out0.npy"),
        1e-5,
        "softmax",
    );
}

#[test]
fn run_jax_linear_algebra_without_plugins() {
    // jnp.linalg on the CPU calls jaxlib's lapack_*_ffi targets; the CLI has
    // them built in, so JAX's module runs as printed, compiled and
    // interpreted, and matches JAX (solve is output 5, inv output 6).
    for (mode, extra) in [("compiled", None), ("interpreted", Some("--interpret"))] {
        let dir = tmp(&format!("run_linalg_{mode}"));
        let (m, a, b, w) = (
            corpus("linalg_lu_solve", "module.hlo"),
            corpus("linalg_lu_solve", "in0.npy"),
            corpus("linalg_lu_solve", "in1.npy"),
            corpus("linalg_lu_solve", "in2.npy"),
        );
        let mut args = vec![
            "run",
            m.to_str().unwrap(),
            "-i",
            a.to_str().unwrap(),
            "-i",
            b.to_str().unwrap(),
            "-i",
            w.to_str().unwrap(),
            "-o",
            dir.to_str().unwrap(),
        ];
        args.extend(extra);
        let o = hlox(&args);
        assert!(o.status.success(), "{mode}: {}", stderr(&o));
        for k in [5, 6] {
            assert_npy_close(
                &dir.join(format!("out{k}.npy")),
                &corpus("linalg_lu_solve", &format!("out{k}.npy")),
                2e-4,
                &format!("{mode} out{k}"),
            );
        }
    }
}

#[test]
fn run_errors_are_clear_and_exit_1() {
    let (hlo, b, c, _) = seed_files("do_custom_cal");
    let args = |extra: &[&str]| {
        let mut v = vec![
            "run",
            hlo.to_str().unwrap(),
            "-i",
            b.to_str().unwrap(),
            "-i",
            c.to_str().unwrap(),
        ];
        v.extend_from_slice(extra);
        v.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run = |a: Vec<String>| hlox(&a.iter().map(String::as_str).collect::<Vec<_>>());
    // Missing target: named, with the closest registered name.
    let o = run(args(&[
        "--plugin",
        hlox_targets::C_PLUGIN_WITH_REGISTRATION,
        "--interpret",
    ]));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("do_custom_cal") && stderr(&o).contains("\"do_custom_call\""),
        "{}",
        stderr(&o)
    );
    // Compiled: the same error, at compile time.
    let o = run(args(&[
        "--plugin",
        hlox_targets::C_PLUGIN_WITH_REGISTRATION,
    ]));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("compiling") && stderr(&o).contains("\"do_custom_call\""),
        "{}",
        stderr(&o)
    );
    // Wrong number of inputs.
    let o = hlox(&[
        "run",
        hlo.to_str().unwrap(),
        "-i",
        b.to_str().unwrap(),
        "--interpret",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("takes 2 input(s) but 1"),
        "{}",
        stderr(&o)
    );
    // Missing plugin file.
    let o = run(args(&["--plugin", "/nonexistent/libx.so", "--interpret"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("/nonexistent/libx.so"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn run_target_failure_message_reaches_stderr() {
    let hlo = tmp_file("fails.hlo", "HloModule f\n\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  ROOT boom = f32[4]{0} custom-call(x), custom_call_target=\"always_fails\", api_version=API_VERSION_STATUS_RETURNING\n}\n");
    let x = write_npy("fails_x.npy", &hlox_hlo::Literal::r1(&[1f32; 4]));
    let o = hlox(&[
        "run",
        hlo.to_str().unwrap(),
        "-i",
        x.to_str().unwrap(),
        "--plugin",
        hlox_targets::C_PLUGIN_WITH_REGISTRATION,
        "--interpret",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("boom") && e.contains("always_fails") && e.contains("error"),
        "{e}"
    );
}

#[test]
fn run_compiled_by_default_with_dumps_and_timings() {
    let (hlo, b, c, want) = seed_files("do_custom_call_status");
    let hlo_text = std::fs::read_to_string(&hlo).unwrap().replace(
        "custom_call_target=\"do_custom_call_status\"",
        "custom_call_target=\"do_custom_call_status\", api_version=API_VERSION_STATUS_RETURNING",
    );
    std::fs::write(&hlo, hlo_text).unwrap();
    let out = tmp("compiled_out");
    let dump = tmp("compiled_dump");
    let o = hlox(&[
        "run",
        hlo.to_str().unwrap(),
        "-i",
        b.to_str().unwrap(),
        "-i",
        c.to_str().unwrap(),
        "--plugin",
        hlox_targets::C_PLUGIN_WITH_REGISTRATION,
        "-o",
        out.to_str().unwrap(),
        "--dump-dir",
        dump.to_str().unwrap(),
        "--timings",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("LLVM optimization"), "{}", stderr(&o));
    let got = hlox_hlo::npy::read_npy_file(out.join("out0.npy")).unwrap();
    assert_eq!(got.to_vec::<f32>().unwrap(), want);
    for f in [
        "module.hlo",
        "module.optimized.hlo",
        "buffer-assignment.txt",
        "module.ll",
        "module.opt.ll",
        "module.s",
    ] {
        assert!(dump.join(f).exists(), "missing dump {f}");
    }
}

#[test]
fn bench_prints_one_json_line_last_and_writes_outputs() {
    let dir = tmp("bench_out");
    let o = hlox(&[
        "bench",
        corpus("layernorm", "module.pb").to_str().unwrap(),
        "-i",
        corpus("layernorm", "in0.npy").to_str().unwrap(),
        "-i",
        corpus("layernorm", "in1.npy").to_str().unwrap(),
        "-i",
        corpus("layernorm", "in2.npy").to_str().unwrap(),
        "--iters",
        "5",
        "--warmup",
        "1",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let last = out.trim_end().lines().last().unwrap();
    let v: serde_json::Value = serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {last}"));
    assert_eq!(v["iters"], 5);
    for k in ["compile_ms", "median_ms", "min_ms"] {
        assert!(v[k].as_f64().unwrap() > 0.0, "{k} in {last}");
    }
    assert!(v["min_ms"].as_f64() <= v["median_ms"].as_f64());
    assert_npy_close(
        &dir.join("out0.npy"),
        &corpus("layernorm", "out0.npy"),
        1e-4,
        "layernorm",
    );
}

#[test]
fn targets_lists_plugin_targets_with_api_versions() {
    let o = hlox(&[
        "targets",
        "--plugin",
        hlox_targets::C_PLUGIN_WITH_REGISTRATION,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.lines().any(|l| l.starts_with("do_custom_call ")
            && l.contains(" API_VERSION_ORIGINAL ")
            && l.contains("registered by libhlox_c_targets_reg.so")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("axpby ")
            && l.contains("Host")
            && l.contains(" API_VERSION_STATUS_RETURNING_UNIFIED ")),
        "{out}"
    );
    // Typed-FFI handlers registered by XLA_FFI_REGISTER_HANDLER: their
    // stages and where they came from.
    let o = hlox(&["targets", "--plugin", hlox_targets::CPP_FFI_PLUGIN]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.lines().any(|l| l.starts_with("cpp_counter ")
            && l.contains(" API_VERSION_TYPED_FFI ")
            && l.contains("stages instantiate+execute")
            && l.contains("XLA_FFI_REGISTER_HANDLER in libhlox_cpp_ffi_targets.so")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("cpp_axpby ") && !l.contains("stages")),
        "{out}"
    );
    let o = hlox(&["targets"]);
    assert!(
        stdout(&o).contains("no targets registered"),
        "{}",
        stdout(&o)
    );
    // jaxlib's built-in targets: one summary line, or listed with --all.
    assert!(
        stdout(&o).contains("# built in: 20 of jaxlib's LAPACK targets"),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains("lapack_sgetrf_ffi"), "{}", stdout(&o));
    let o = hlox(&["targets", "--all"]);
    let out = stdout(&o);
    assert!(
        out.lines().any(|l| l.starts_with("lapack_sgetrf_ffi ")
            && l.contains(" API_VERSION_TYPED_FFI ")
            && l.contains("macro at ")),
        "{out}"
    );
}

#[test]
fn random_inputs_are_seeded_and_runs_agree_compiled_and_interpreted() {
    let file = corpus("layernorm", "module.hlo");
    let run = |extra: &[&str]| {
        let mut a = vec!["run", file.to_str().unwrap()];
        a.extend_from_slice(extra);
        let o = hlox(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let compiled = run(&["--random", "42"]);
    assert_eq!(compiled, run(&["--random", "42"]), "same seed, same output");
    assert_ne!(
        compiled,
        run(&["--random", "43"]),
        "another seed, other data"
    );
    assert!(
        compiled.starts_with("out0: f32[8,32]{1,0} min="),
        "{compiled}"
    );
    let interpreted = run(&["--random", "42", "--interpret"]);
    // Same shapes and (to the printed precision of the mean) the same values.
    let mean = |s: &str| {
        s.split("mean=")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse::<f64>()
            .unwrap()
    };
    assert!(
        (mean(&compiled) - mean(&interpreted)).abs() < 1e-5,
        "{compiled} vs {interpreted}"
    );
}

#[test]
fn compile_emits_every_stage() {
    let file = corpus("elementwise_chain", "module.hlo");
    let emit = |stage: &str| {
        let o = hlox(&["compile", file.to_str().unwrap(), "--emit", stage]);
        assert!(o.status.success(), "{stage}: {}", stderr(&o));
        stdout(&o)
    };
    assert_eq!(
        emit("hlo").trim_end(),
        std::fs::read_to_string(&file).unwrap().trim_end()
    );
    assert!(emit("hlo-opt").contains("kind=kLoop"));
    assert!(emit("llvm-ir").contains("define "));
    assert!(emit("llvm-ir-opt").contains("define "));
    let asm = emit("asm");
    assert!(asm.contains(".text") || asm.contains("ret"), "{asm}");
    let out = tmp("chain.s");
    let o = hlox(&[
        "compile",
        file.to_str().unwrap(),
        "--emit",
        "asm",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(std::fs::read_to_string(out).unwrap(), asm);
}

#[test]
fn dot_draws_computations_fusions_and_custom_calls() {
    let o = hlox(&["dot", corpus("cc_in_graph", "module.hlo").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let g = stdout(&o);
    assert!(g.starts_with("digraph \"jit_f\" {"), "{g}");
    assert!(
        g.contains("custom-call \\\"add_sub\\\"") && g.contains("fillcolor=\"#ffd8a8\""),
        "{g}"
    );
    assert!(g.contains("label=\"ENTRY main.2\""), "{g}");
    assert_eq!(g.matches('{').count(), g.matches('}').count());
    let o = hlox(&[
        "dot",
        "--optimized",
        corpus("softmax", "module.hlo").to_str().unwrap(),
    ]);
    let g = stdout(&o);
    assert!(
        g.contains("label=\"fusion: ") && g.contains("nfusion kLoop"),
        "{g}"
    );
}

#[test]
fn a_value_too_large_for_memory_is_an_error_not_an_abort() {
    let hlo = tmp_file("huge.hlo", "HloModule huge\n\nENTRY main {\n  x = f32[] parameter(0)\n  ROOT b = f32[100000,100000,100]{2,1,0} broadcast(x), dimensions={}\n}\n");
    for extra in [None, Some("--interpret")] {
        let mut args = vec!["run", hlo.to_str().unwrap(), "--random"];
        args.extend(extra);
        let o = hlox(&args);
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot allocate 4000000000000 bytes"),
            "{extra:?}: {}",
            stderr(&o)
        );
    }
}

fn hlox_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hlox"));
    c.args(args).env_remove("HLOX_LOG");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("hlox runs")
}

#[test]
fn compile_emits_a_relocatable_elf_object_with_the_entry_function() {
    let file = corpus("elementwise_chain", "module.hlo");
    let entry = hlox_hlo::load::load_module(&file)
        .unwrap()
        .entry_computation()
        .name
        .clone();
    let obj = tmp("chain.o");
    let o = hlox(&[
        "compile",
        file.to_str().unwrap(),
        "--emit",
        "obj",
        "-o",
        obj.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&obj).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF", "not an ELF file");
    // e_type (bytes 16..18, little-endian on x86-64/aarch64) is ET_REL = 1.
    assert_eq!(u16::from_le_bytes([bytes[16], bytes[17]]), 1, "not ET_REL");
    // Piped stdout gets the same bytes.
    let o = hlox(&["compile", file.to_str().unwrap(), "--emit", "obj"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(&o.stdout[..4], b"\x7fELF");
    // nm lists the entry computation's function as a defined text symbol.
    match Command::new("nm").arg(&obj).output() {
        Ok(nm) if nm.status.success() => {
            let syms = String::from_utf8_lossy(&nm.stdout).into_owned();
            assert!(
                syms.lines()
                    .any(|l| l.contains(" T ") && l.ends_with(&format!(".{entry}"))),
                "entry `{entry}` not in nm output:\n{syms}"
            );
        }
        _ => eprintln!("note: nm not available, symbol check skipped"),
    }
    if let Ok(re) = Command::new("readelf").arg("-h").arg(&obj).output() {
        if re.status.success() {
            let h = String::from_utf8_lossy(&re.stdout).into_owned();
            assert!(h.contains("REL (Relocatable file)"), "{h}");
        }
    }
}

#[test]
fn cuda_compile_emits_ptx_without_a_gpu_and_running_needs_a_driver() {
    let file = corpus("softmax", "module.hlo");
    let f = file.to_str().unwrap();
    let input = corpus("softmax", "in0.npy");
    let i = input.to_str().unwrap();
    let o = hlox(&["compile", f, "--platform", "cuda", "--emit", "ptx"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ptx = String::from_utf8_lossy(&o.stdout);
    assert!(
        ptx.contains(".target sm_80") && ptx.contains(".entry"),
        "{ptx}"
    );
    let o = hlox(&["compile", f, "--platform", "cuda", "--emit", "llvm-ir"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("nvptx64-nvidia-cuda"));
    // --dump-dir keeps every stage: the program, LLVM IR and PTX of every
    // kernel (CUDA), the module and assembly (Host).
    let tmp = std::env::temp_dir().join(format!("hlox-cli-dump-{}", std::process::id()));
    for (platform, emit, files) in [
        (
            "cuda",
            "ptx",
            &[
                "program.txt",
                "kernels.ll",
                "kernels.opt.ll",
                "kernels.ptx",
                "module.optimized.hlo",
            ][..],
        ),
        (
            "host",
            "asm",
            &[
                "module.ll",
                "module.opt.ll",
                "module.s",
                "module.optimized.hlo",
            ][..],
        ),
    ] {
        let dir = tmp.join(platform);
        let d = dir.to_str().unwrap();
        let o = hlox(&[
            "compile",
            f,
            "--platform",
            platform,
            "--emit",
            emit,
            "--dump-dir",
            d,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        for file in files {
            let text = std::fs::read_to_string(dir.join(file))
                .unwrap_or_else(|e| panic!("{platform}: {file}: {e}"));
            assert!(!text.is_empty(), "{platform}: {file} is empty");
        }
        if platform == "cuda" {
            let ptx = std::fs::read_to_string(dir.join("kernels.ptx")).unwrap();
            assert_eq!(
                ptx,
                String::from_utf8_lossy(&o.stdout),
                "the dumped PTX is the output"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let o = hlox(&["compile", f, "--emit", "hlo", "--dump-dir", "/tmp/x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--emit hlo-opt"), "{}", stderr(&o));
    let o = hlox(&["compile", f, "--platform", "cuda", "--emit", "asm"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("use --emit ptx"), "{}", stderr(&o));
    if !hlox_cuda::runtime::driver_present() {
        for args in [
            vec!["run", f, "--random", "--platform", "cuda"],
            vec!["bench", f, "-i", i, "--platform", "cuda"],
        ] {
            let o = hlox(&args);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("no CUDA driver found (libcuda.so)")
                    && stderr(&o).contains("--emit ptx` needs no GPU"),
                "{args:?}: {}",
                stderr(&o)
            );
        }
    } else {
        eprintln!("SKIP: a CUDA driver is present; the no-driver errors are not checked");
    }
    let o = hlox(&["compile", f, "--emit", "ptx"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("pass --platform cuda"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn usage_errors_exit_1_and_help_teaches_with_examples() {
    let o = hlox(&["compile", "x.hlo", "--emit", "exe"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("possible values"), "{}", stderr(&o));
    let o = hlox(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(1));
    let o = hlox(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("HLOX_LOG"), "{}", stdout(&o));
    for sub in [
        "run", "bench", "fmt", "convert", "compile", "dot", "targets",
    ] {
        let o = hlox(&[sub, "--help"]);
        assert_eq!(o.status.code(), Some(0), "{sub}");
        assert!(
            stdout(&o).contains(&format!("Example: hlox {sub} ")),
            "{sub} --help has no example:\n{}",
            stdout(&o)
        );
    }
}

#[test]
fn hlox_log_debug_traces_passes_phases_and_bindings_on_stderr_only() {
    let (hlo, b, c, _) = seed_files("do_custom_call");
    let args = [
        "run",
        hlo.to_str().unwrap(),
        "-i",
        b.to_str().unwrap(),
        "-i",
        c.to_str().unwrap(),
        "--plugin",
        hlox_targets::C_PLUGIN_WITH_REGISTRATION,
    ];
    let quiet = hlox_env(&args, &[]);
    assert!(quiet.status.success(), "{}", stderr(&quiet));
    assert_eq!(stderr(&quiet), "", "nothing extra without HLOX_LOG");
    let o = hlox_env(&args, &[("HLOX_LOG", "debug")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&quiet), "logs never go to stdout");
    let e = stderr(&o);
    for want in [
        "pass=\"inline\"",
        "pass=\"fusion\"",
        "changed=",
        "buffer assignment",
        "LLVM IR generation",
        "LLVM optimization",
        "JIT",
        "bound custom-call target",
        "target_name=do_custom_call",
        "api_version=\"API_VERSION_ORIGINAL\"",
        "address=0x",
    ] {
        assert!(e.contains(want), "no `{want}` in:\n{e}");
    }
    // A per-crate filter: the passes only.
    let o = hlox_env(&args, &[("HLOX_LOG", "hlox_passes=debug")]);
    let e = stderr(&o);
    assert!(e.contains("pass=\"dce\""), "{e}");
    assert!(!e.contains("LLVM optimization"), "{e}");
    // A bad filter is a user error that says what a good one looks like.
    let o = hlox_env(&args, &[("HLOX_LOG", "hlox_passes=loud")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("HLOX_LOG=debug"), "{}", stderr(&o));
}

#[test]
fn piped_output_has_no_progress_escape_codes() {
    let c = |f: &str| corpus("layernorm", f);
    let (m, i0, i1, i2) = (c("module.pb"), c("in0.npy"), c("in1.npy"), c("in2.npy"));
    let (m, i0, i1, i2) = (
        m.to_str().unwrap(),
        i0.to_str().unwrap(),
        i1.to_str().unwrap(),
        i2.to_str().unwrap(),
    );
    for args in [
        vec!["bench", m, "-i", i0, "-i", i1, "-i", i2, "--iters", "30"],
        vec!["run", m, "-i", i0, "-i", i1, "-i", i2],
        vec!["run", m, "--random", "--interpret"],
        vec!["compile", m, "--emit", "asm"],
    ] {
        let o = hlox_env(&args, &[]);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(
            !o.stdout.contains(&0x1b) && !o.stderr.contains(&0x1b),
            "{args:?}: escape codes in piped output"
        );
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

/// On a terminal (a pseudo-terminal from util-linux `script`, when present)
/// bench draws its progress bar on stderr.
#[test]
fn bench_on_a_terminal_draws_progress() {
    let have_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_script {
        eprintln!("note: `script` not available, terminal progress check skipped");
        return;
    }
    let c = |f: &str| corpus("layernorm", f).to_str().unwrap().to_string();
    let cmd = format!(
        "{} bench {} -i {} -i {} -i {} --iters 300 --warmup 1",
        env!("CARGO_BIN_EXE_hlox"),
        c("module.pb"),
        c("in0.npy"),
        c("in1.npy"),
        c("in2.npy")
    );
    // The command on a pseudo-terminal of type `term`; its output.
    let on_terminal = |term: &str| {
        let o = Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .env_remove("HLOX_LOG")
            .env("TERM", term)
            .output()
            .unwrap();
        assert!(o.status.success(), "TERM={term}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(out.contains("\"median_ms\""), "{out:?}");
        out
    };
    // A terminal that can draw (CI runs with TERM unset, or `dumb`, where
    // indicatif rightly stays quiet even on a tty).
    let out = on_terminal("xterm-256color");
    assert!(out.contains("compiling "), "no spinner: {out:?}");
    assert!(
        out.contains("] ") && out.contains("/301"),
        "no bar: {out:?}"
    );
    assert!(out.contains("\x1b["), "no terminal control: {out:?}");
    // A terminal that cannot draw: no bar, no control codes.
    let out = on_terminal("dumb");
    assert!(!out.contains("/301"), "a bar on a dumb terminal: {out:?}");
    assert!(
        !out.contains("\x1b["),
        "control codes on a dumb terminal: {out:?}"
    );
}

#[test]
fn run_summary_counts_nan_and_inf_and_prints_values_in_their_type() {
    let hlo = tmp_file("nan.hlo", "HloModule nan\n\nENTRY main {\n  x = f32[5]{0} parameter(0)\n  z = f32[] constant(0)\n  zb = f32[5]{0} broadcast(z), dimensions={}\n  d = f32[5]{0} divide(x, zb)\n  big = s64[] constant(9007199254740993)\n  ROOT t = (f32[5]{0}, f32[5]{0}, s64[]) tuple(d, x, big)\n}\n");
    let x = write_npy(
        "nan_x.npy",
        &hlox_hlo::Literal::r1(&[1f32, -1.0, 0.0, 2.0, 0.1]),
    );
    for extra in [None, Some("--interpret")] {
        let mut args = vec!["run", hlo.to_str().unwrap(), "-i", x.to_str().unwrap()];
        args.extend(extra);
        let o = hlox(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0], "out0: f32[5]{0} min=- max=- mean=NaN nan=1 inf=4 [inf, -inf, NaN, inf, inf]",
            "{out}"
        );
        assert_eq!(
            lines[1], "out1: f32[5]{0} min=-1 max=2 mean=0.42 [1, -1, 0, 2, 0.1]",
            "{out}"
        );
        assert_eq!(
            lines[2],
            "out2: s64[] min=9007199254740993 max=9007199254740993 mean=9.007199e15 [9007199254740993]",
            "{out}"
        );
    }
}

/// `--target NAME=SYMBOL` binds a target name to a plugin symbol of another
/// name, as JAX's `register_ffi_target("axpby", pycapsule(lib.AxpbyFfi))`.
#[test]
fn target_binds_a_name_to_a_plugin_symbol_of_another_name() {
    // The seed example under another name: target "seed_add", C symbol
    // do_custom_call (API_VERSION_ORIGINAL), compiled and interpreted.
    let (hlo, b, c, want) = seed_files("seed_add");
    for (mode, extra) in [
        ("compiled", vec![]),
        ("interpreted", vec!["--interpret"]),
        ("api given", vec!["--interpret"]),
    ] {
        let dir = tmp(&format!("target_seed_{}", mode.replace(' ', "_")));
        let binding = if mode == "api given" {
            "seed_add=do_custom_call:1"
        } else {
            "seed_add=do_custom_call"
        };
        let mut args = vec![
            "run",
            hlo.to_str().unwrap(),
            "-i",
            b.to_str().unwrap(),
            "-i",
            c.to_str().unwrap(),
            "--plugin",
            hlox_targets::C_PLUGIN_SYMBOLS_ONLY,
            "--target",
            binding,
            "-o",
            dir.to_str().unwrap(),
        ];
        args.extend(extra);
        let o = hlox(&args);
        assert!(o.status.success(), "{mode}: {}", stderr(&o));
        let got = hlox_hlo::npy::read_npy_file(dir.join("out0.npy")).unwrap();
        assert_eq!(got.to_vec::<f32>().unwrap(), want, "{mode}");
    }
    // JAX's typed-FFI module (target "axpby") with the C++ handler symbol
    // AxpbyFfi, its api_version from the call and the handler's metadata;
    // compared with the outputs recorded for it.
    assert!(
        !hlox_targets::CPP_FFI_PLUGIN.is_empty(),
        "{}",
        hlox_targets::CPP_FFI_ERROR
    );
    for extra in [None, Some("--interpret")] {
        let dir = tmp(&format!("target_axpby_{}", extra.is_some()));
        let mut args: Vec<String> = vec![
            "run".into(),
            corpus("cc_axpby_ffi", "module.hlo")
                .to_str()
                .unwrap()
                .to_string(),
            "-i".into(),
            corpus("cc_axpby_ffi", "in0.npy").to_str().unwrap().into(),
            "-i".into(),
            corpus("cc_axpby_ffi", "in1.npy").to_str().unwrap().into(),
            "--plugin".into(),
            hlox_targets::CPP_FFI_PLUGIN.into(),
            "--target".into(),
            "axpby=AxpbyFfi".into(),
            "-o".into(),
            dir.to_str().unwrap().into(),
        ];
        args.extend(extra.map(String::from));
        let o = hlox(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        assert_npy_close(
            &dir.join("out0.npy"),
            &corpus("cc_axpby_ffi", "out0.npy"),
            1e-6,
            "axpby via --target",
        );
    }
    // bench and compile take it too; targets lists the binding.
    let o = hlox(&[
        "bench",
        hlo.to_str().unwrap(),
        "-i",
        b.to_str().unwrap(),
        "-i",
        c.to_str().unwrap(),
        "--plugin",
        hlox_targets::C_PLUGIN_SYMBOLS_ONLY,
        "--target",
        "seed_add=do_custom_call",
        "--iters",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = hlox(&[
        "compile",
        hlo.to_str().unwrap(),
        "--emit",
        "llvm-ir",
        "--plugin",
        hlox_targets::C_PLUGIN_SYMBOLS_ONLY,
        "--target",
        "seed_add=do_custom_call",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = hlox(&[
        "targets",
        "--plugin",
        hlox_targets::C_PLUGIN_SYMBOLS_ONLY,
        "--target",
        "seed_add=do_custom_call:API_VERSION_ORIGINAL",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o)
        .lines()
        .find(|l| l.starts_with("seed_add "))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("{}", stdout(&o)));
    assert!(
        line.contains("API_VERSION_ORIGINAL")
            && line.contains("--target to do_custom_call in libhlox_c_targets_sym.so"),
        "{line}"
    );
}

#[test]
fn target_errors_say_what_to_write() {
    let (hlo, b, c, _) = seed_files("seed_add_errors");
    let run = |extra: &[&str]| {
        let mut v = vec![
            "run",
            hlo.to_str().unwrap(),
            "-i",
            b.to_str().unwrap(),
            "-i",
            c.to_str().unwrap(),
            "--interpret",
            "--plugin",
            hlox_targets::C_PLUGIN_SYMBOLS_ONLY,
        ];
        v.extend_from_slice(extra);
        hlox(&v)
    };
    // Malformed: the expected form.
    let o = run(&["--target", "seed_add"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no '='; the form is NAME=SYMBOL or NAME=SYMBOL:API"),
        "{}",
        stderr(&o)
    );
    let o = run(&["--target", "seed_add=do_custom_call:9"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unknown api_version \"9\""),
        "{}",
        stderr(&o)
    );
    // A symbol no plugin exports: the closest ones.
    let o = run(&["--target", "seed_add=DoCustomCall"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no loaded library exports it")
            && stderr(&o).contains("closest exported: \"do_custom_call\""),
        "{}",
        stderr(&o)
    );
    // A name that is taken (jaxlib's LAPACK targets are built in).
    let o = run(&["--target", "lapack_sgetrf_ffi=do_custom_call"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("\"lapack_sgetrf_ffi\" is already registered"),
        "{}",
        stderr(&o)
    );
    // No --target at all: the missing target names the plugin's closest
    // exports and the binding that would work.
    let (hlo, b, c, _) = seed_files("DoCustomCall");
    let o = hlox(&[
        "run",
        hlo.to_str().unwrap(),
        "-i",
        b.to_str().unwrap(),
        "-i",
        c.to_str().unwrap(),
        "--plugin",
        hlox_targets::C_PLUGIN_SYMBOLS_ONLY,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "plugin libhlox_c_targets_sym.so exports \"do_custom_call\", \"do_custom_call_status\", \
             \"do_custom_call_unified\": bind one to this name with --target DoCustomCall=do_custom_call"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn stablehlo_input_says_how_to_export_hlo() {
    let mlir = tmp_file(
        "jax_stablehlo.mlir",
        "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {\n    %0 = stablehlo.sine %arg0 : tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n",
    );
    let bytecode = tmp("jax_stablehlo.pb");
    std::fs::write(&bytecode, b"ML\xefR\rMLIR19.1.0\x00").unwrap();
    for (p, form) in [(&mlir, "MLIR text"), (&bytecode, "MLIR bytecode")] {
        let o = hlox(&["run", p.to_str().unwrap(), "--random"]);
        assert_eq!(o.status.code(), Some(1));
        let e = stderr(&o);
        assert!(
            e.contains(&format!("this is StableHLO ({form}), not HLO"))
                && e.contains("jax.jit(f).lower(*args).as_text(dialect='hlo')"),
            "{e}"
        );
    }
}

#[test]
fn bench_random_times_seeded_inputs_that_run_random_also_gives() {
    let m = corpus("layernorm", "module.pb");
    let (b, r) = (tmp("bench_random_out"), tmp("run_random_out"));
    let o = hlox(&[
        "bench",
        m.to_str().unwrap(),
        "--random",
        "7",
        "--iters",
        "3",
        "-o",
        b.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let last = stdout(&o).lines().last().unwrap_or_default().to_string();
    let json: serde_json::Value =
        serde_json::from_str(&last).unwrap_or_else(|e| panic!("{e}: {last}"));
    assert_eq!(json["iters"], 3, "{last}");
    let o = hlox(&[
        "run",
        m.to_str().unwrap(),
        "--random",
        "7",
        "-o",
        r.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |p: PathBuf| hlox_hlo::npy::read_npy_file(p).unwrap();
    assert_eq!(read(b.join("out0.npy")), read(r.join("out0.npy")));
    let o = hlox(&[
        "bench",
        m.to_str().unwrap(),
        "--random",
        "-i",
        corpus("layernorm", "in0.npy").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("do not also pass --input"),
        "{}",
        stderr(&o)
    );
}
