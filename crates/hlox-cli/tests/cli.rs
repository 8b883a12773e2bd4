//! End-to-end tests of the `hlox` binary.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

use hlox_targets::{C_PLUGIN_SYMBOLS_ONLY as SYMBOLS, C_PLUGIN_WITH_REGISTRATION as REGISTERED};

/// The layernorm corpus case's module (`.pb`) and its three inputs.
fn layernorm() -> (PathBuf, [PathBuf; 3]) {
    let c = |f: &str| corpus("layernorm", f);
    (c("module.pb"), [c("in0.npy"), c("in1.npy"), c("in2.npy")])
}

/// Asserts that `dir/out0.npy` holds the corpus case's recorded `out0.npy`
/// within `tol` (relative and absolute).
fn assert_out0_like_corpus(dir: &Path, case: &str, tol: f32) {
    assert_npy_close(&dir.join("out0.npy"), &corpus(case, "out0.npy"), tol, case);
}

/// The JSON object on the last line of `out` (what `hlox bench` prints).
fn last_json(out: &str) -> serde_json::Value {
    let last = out.trim_end().lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {last}"))
}

#[test]
fn fmt_prints_jax_text_back_exactly() {
    let path = corpus("softmax", "module.hlo");
    let out = Hlox::new("fmt").arg(&path).ok();
    assert_eq!(out.trim_end(), read_text(&path).trim_end());
}

#[test]
fn fmt_accepts_a_proto() {
    let pb = corpus("mlp_forward", "module.pb");
    let out = Hlox::new("fmt").arg(&pb).ok();
    assert!(out.starts_with("HloModule jit_"), "{out}");
    assert!(out.contains("ENTRY"), "{out}");
}

#[test]
fn convert_text_to_proto_and_back() {
    let src = corpus("while_loops", "module.hlo");
    let pb = tmp("while_loops.pb");
    let back = tmp("while_loops.hlo");
    Hlox::new("convert").arg(&src).arg("-o").arg(&pb).ok();
    Hlox::new("convert").arg(&pb).arg("-o").arg(&back).ok();
    assert_eq!(read_text(&back).trim_end(), read_text(&src).trim_end());
}

#[test]
fn parse_error_has_file_line_col_and_caret_and_exit_code_1() {
    let bad = tmp_file(
        "bad.hlo",
        "HloModule m\n\nENTRY e {\n  ROOT x = f32[] negate(y)\n}\n",
    );
    Hlox::new("fmt").arg(&bad).fails(
        1,
        &[
            "bad.hlo:4:25: unknown instruction 'y'",
            "  ROOT x = f32[] negate(y)\n",
            "^",
        ],
    );
}

#[test]
fn verify_error_names_the_instruction() {
    let bad = tmp_file("badshape.hlo", "HloModule m\n\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[3] parameter(1)\n  ROOT s = f32[2] add(a, b)\n}\n");
    Hlox::new("fmt")
        .arg(&bad)
        .fails(1, &["does not verify", "e/s: add"]);
}

#[test]
fn missing_file_and_corrupt_proto_are_errors_not_panics() {
    Hlox::new("fmt")
        .arg("/nonexistent/x.hlo")
        .fails(1, &["cannot read /nonexistent/x.hlo"]);
    let junk = tmp_file("junk.pb", b"\xff\xff\xff\x01garbage");
    Hlox::new("fmt")
        .arg(&junk)
        .fails(1, &["not a valid HloModuleProto"]);
}

/// The seed example (z[i] = b[i % 128] + c[i]) calling `target`: the
/// module, its inputs b and c, and the output it should give.
fn seed_files(target: &str) -> (PathBuf, PathBuf, PathBuf, Vec<f32>) {
    let hlo = tmp_file(
        &format!("seed_{target}.hlo"),
        hlox_targets::seed_module(target),
    );
    let b: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let c: Vec<f32> = (0..2048).map(|i| i as f32 * 0.25).collect();
    let want = (0..2048).map(|i| b[i % 128] + c[i]).collect();
    let bp = write_npy(&format!("seed_b_{target}.npy"), &hlox_hlo::Literal::r1(&b));
    let cp = write_npy(&format!("seed_c_{target}.npy"), &hlox_hlo::Literal::r1(&c));
    (hlo, bp, cp, want)
}

/// `hlox run` of a seed module with its two inputs.
fn run_seed(hlo: &PathBuf, b: &PathBuf, c: &PathBuf) -> Hlox {
    Hlox::new("run").arg(hlo).inputs(&[b, c])
}

#[test]
fn run_interpret_seed_custom_call_from_c_plugin() {
    let (hlo, b, c, want) = seed_files("do_custom_call");
    let dir = tmp("run_seed_out");
    let out = Hlox::new("run")
        .arg(&hlo)
        .args(
            [&b, &c]
                .iter()
                .flat_map(|p| ["--input".as_ref(), p.as_os_str()]),
        )
        .args(["--plugin", SYMBOLS, "--out-dir"])
        .arg(&dir)
        .arg("--interpret")
        .ok();
    assert!(out.starts_with("out0: f32[2048]{0} min=0 max="), "{out}");
    assert_eq!(read_f32(&dir.join("out0.npy")), want);
}

#[test]
fn run_interpret_jax_module_matches_jax_outputs() {
    let dir = tmp("run_softmax_out");
    Hlox::new("run")
        .arg(corpus("softmax", "module.pb"))
        .inputs(&[corpus("softmax", "in0.npy")])
        .arg("-o")
        .arg(&dir)
        .arg("--interpret")
        .ok();
    assert_out0_like_corpus(&dir, "softmax", 1e-5);
}

#[test]
fn run_jax_linear_algebra_without_plugins() {
    // jnp.linalg on the CPU calls jaxlib's lapack_*_ffi targets; the CLI has
    // them built in, so JAX's module runs as printed, compiled and
    // interpreted, and matches JAX (solve is output 5, inv output 6).
    let case = |f: &str| corpus("linalg_lu_solve", f);
    for (mode, extra) in [("compiled", None), ("interpreted", Some("--interpret"))] {
        let dir = tmp(&format!("run_linalg_{mode}"));
        Hlox::new("run")
            .arg(case("module.hlo"))
            .inputs(&[case("in0.npy"), case("in1.npy"), case("in2.npy")])
            .arg("-o")
            .arg(&dir)
            .args(extra)
            .ok();
        for k in [5, 6] {
            assert_npy_close(
                &dir.join(format!("out{k}.npy")),
                &case(&format!("out{k}.npy")),
                2e-4,
                &format!("{mode} out{k}"),
            );
        }
    }
}

#[test]
fn run_errors_are_clear_and_exit_1() {
    let (hlo, b, c, _) = seed_files("do_custom_cal");
    let run = || run_seed(&hlo, &b, &c);
    // Missing target: named, with the closest registered name.
    run()
        .args(["--plugin", REGISTERED, "--interpret"])
        .fails(1, &["do_custom_cal", "\"do_custom_call\""]);
    // Compiled: the same error, at compile time.
    run()
        .args(["--plugin", REGISTERED])
        .fails(1, &["compiling", "\"do_custom_call\""]);
    // Wrong number of inputs.
    Hlox::new("run")
        .arg(&hlo)
        .inputs(&[&b])
        .arg("--interpret")
        .fails(1, &["takes 2 input(s) but 1"]);
    // Missing plugin file.
    run()
        .args(["--plugin", "/nonexistent/libx.so", "--interpret"])
        .fails(1, &["/nonexistent/libx.so"]);
}

#[test]
fn run_target_failure_message_reaches_stderr() {
    let hlo = tmp_file("fails.hlo", "HloModule f\n\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  ROOT boom = f32[4]{0} custom-call(x), custom_call_target=\"always_fails\", api_version=API_VERSION_STATUS_RETURNING\n}\n");
    let x = write_npy("fails_x.npy", &hlox_hlo::Literal::r1(&[1f32; 4]));
    Hlox::new("run")
        .arg(&hlo)
        .inputs(&[&x])
        .args(["--plugin", REGISTERED, "--interpret"])
        .fails(1, &["boom", "always_fails", "error"]);
}

#[test]
fn run_compiled_by_default_with_dumps_and_timings() {
    let (hlo, b, c, want) = seed_files("do_custom_call_status");
    let hlo_text = read_text(&hlo).replace(
        "custom_call_target=\"do_custom_call_status\"",
        "custom_call_target=\"do_custom_call_status\", api_version=API_VERSION_STATUS_RETURNING",
    );
    std::fs::write(&hlo, hlo_text).unwrap();
    let out = tmp("compiled_out");
    let dump = tmp("compiled_dump");
    let o = run_seed(&hlo, &b, &c)
        .args(["--plugin", REGISTERED, "-o"])
        .arg(&out)
        .arg("--dump-dir")
        .arg(&dump)
        .arg("--timings")
        .output();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("LLVM optimization"), "{}", stderr(&o));
    assert_eq!(read_f32(&out.join("out0.npy")), want);
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
    let (m, inputs) = layernorm();
    let out = Hlox::new("bench")
        .arg(&m)
        .inputs(&inputs)
        .args(["--iters", "5", "--warmup", "1", "-o"])
        .arg(&dir)
        .ok();
    let v = last_json(&out);
    assert_eq!(v["iters"], 5);
    for k in ["compile_ms", "median_ms", "min_ms"] {
        assert!(v[k].as_f64().unwrap() > 0.0, "{k} in {v}");
    }
    assert!(v["min_ms"].as_f64() <= v["median_ms"].as_f64());
    // The Host compile's split, each part within the whole.
    let parts: f64 = ["ir_ms", "llvm_opt_ms", "jit_ms"]
        .iter()
        .map(|k| v[*k].as_f64().unwrap_or_else(|| panic!("{k} in {v}")))
        .sum();
    assert!(
        parts > 0.0 && parts <= v["compile_ms"].as_f64().unwrap(),
        "{v}"
    );
    assert_out0_like_corpus(&dir, "layernorm", 1e-4);
}

#[test]
fn targets_lists_plugin_targets_with_api_versions() {
    let out = Hlox::new("targets").args(["--plugin", REGISTERED]).ok();
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
    let out = Hlox::new("targets")
        .args(["--plugin", hlox_targets::CPP_FFI_PLUGIN])
        .ok();
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
    let out = stdout(&Hlox::new("targets").output());
    assert!(out.contains("no targets registered"), "{out}");
    // jaxlib's built-in targets: one summary line, or listed with --all.
    assert!(
        out.contains("# built in: 56 of jaxlib's LAPACK targets"),
        "{out}"
    );
    assert!(!out.contains("lapack_sgetrf_ffi"), "{out}");
    let out = stdout(&Hlox::new("targets").arg("--all").output());
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
    let run = |extra: &[&str]| Hlox::new("run").arg(&file).args(extra).ok();
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
    let emit = |stage: &str| Hlox::new("compile").arg(&file).args(["--emit", stage]);
    assert_eq!(emit("hlo").ok().trim_end(), read_text(&file).trim_end());
    assert!(emit("hlo-opt").ok().contains("kind=kLoop"));
    assert!(emit("llvm-ir").ok().contains("define "));
    assert!(emit("llvm-ir-opt").ok().contains("define "));
    let asm = emit("asm").ok();
    assert!(asm.contains(".text") || asm.contains("ret"), "{asm}");
    let out = tmp("chain.s");
    emit("asm").arg("-o").arg(&out).ok();
    assert_eq!(read_text(&out), asm);
}

#[test]
fn dot_draws_computations_fusions_and_custom_calls() {
    let g = Hlox::new("dot")
        .arg(corpus("cc_in_graph", "module.hlo"))
        .ok();
    assert!(g.starts_with("digraph \"jit_f\" {"), "{g}");
    assert!(
        g.contains("custom-call \\\"add_sub\\\"") && g.contains("fillcolor=\"#ffd8a8\""),
        "{g}"
    );
    assert!(g.contains("label=\"ENTRY main.2\""), "{g}");
    assert_eq!(g.matches('{').count(), g.matches('}').count());
    let g = stdout(
        &Hlox::new("dot")
            .arg("--optimized")
            .arg(corpus("softmax", "module.hlo"))
            .output(),
    );
    assert!(
        g.contains("label=\"fusion: ") && g.contains("nfusion kLoop"),
        "{g}"
    );
}

#[test]
fn a_value_too_large_for_memory_is_an_error_not_an_abort() {
    let hlo = tmp_file("huge.hlo", "HloModule huge\n\nENTRY main {\n  x = f32[] parameter(0)\n  ROOT b = f32[100000,100000,100]{2,1,0} broadcast(x), dimensions={}\n}\n");
    for extra in [None, Some("--interpret")] {
        Hlox::new("run")
            .arg(&hlo)
            .arg("--random")
            .args(extra)
            .fails(1, &["cannot allocate 4000000000000 bytes"]);
    }
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
    let emit_obj = || Hlox::new("compile").arg(&file).args(["--emit", "obj"]);
    emit_obj().arg("-o").arg(&obj).ok();
    let bytes = std::fs::read(&obj).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF", "not an ELF file");
    // e_type (bytes 16..18, little-endian on x86-64/aarch64) is ET_REL = 1.
    assert_eq!(u16::from_le_bytes([bytes[16], bytes[17]]), 1, "not ET_REL");
    // Piped stdout gets the same bytes.
    let o = emit_obj().output();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(&o.stdout[..4], b"\x7fELF");
    // nm lists the entry computation's function as a defined text symbol.
    match Command::new("nm").arg(&obj).output() {
        Ok(nm) if nm.status.success() => {
            let syms = stdout(&nm);
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
            let h = stdout(&re);
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
    let compile = |args: &[&str]| Hlox::new("compile").arg(f).args(args);
    let ptx = compile(&["--platform", "cuda", "--emit", "ptx"]).ok();
    assert!(
        ptx.contains(".target sm_80") && ptx.contains(".entry"),
        "{ptx}"
    );
    let ir = compile(&["--platform", "cuda", "--emit", "llvm-ir"]).ok();
    assert!(ir.contains("nvptx64-nvidia-cuda"));
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
        let out = compile(&["--platform", platform, "--emit", emit, "--dump-dir"])
            .arg(&dir)
            .ok();
        for file in files {
            let text = std::fs::read_to_string(dir.join(file))
                .unwrap_or_else(|e| panic!("{platform}: {file}: {e}"));
            assert!(!text.is_empty(), "{platform}: {file} is empty");
        }
        if platform == "cuda" {
            let ptx = read_text(&dir.join("kernels.ptx"));
            assert_eq!(ptx, out, "the dumped PTX is the output");
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    compile(&["--emit", "hlo", "--dump-dir", "/tmp/x"]).fails(1, &["--emit hlo-opt"]);
    compile(&["--platform", "cuda", "--emit", "asm"]).fails(1, &["use --emit ptx"]);
    if !hlox_cuda::runtime::driver_present() {
        for cmd in [
            Hlox::new("run")
                .arg(f)
                .args(["--random", "--platform", "cuda"]),
            Hlox::new("bench")
                .arg(f)
                .args(["-i", i, "--platform", "cuda"]),
        ] {
            cmd.fails(
                1,
                &[
                    "no CUDA driver found (libcuda.so)",
                    "--emit ptx` needs no GPU",
                ],
            );
        }
    } else {
        eprintln!("SKIP: a CUDA driver is present; the no-driver errors are not checked");
    }
    compile(&["--emit", "ptx"]).fails(1, &["pass --platform cuda"]);
}

#[test]
fn usage_errors_exit_1_and_help_teaches_with_examples() {
    Hlox::new("compile")
        .args(["x.hlo", "--emit", "exe"])
        .fails(1, &["possible values"]);
    let o = Hlox::new("frobnicate").output();
    assert_eq!(o.status.code(), Some(1));
    let o = Hlox::new("--help").output();
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("HLOX_LOG"), "{}", stdout(&o));
    for sub in [
        "run", "bench", "fmt", "convert", "compile", "dot", "targets",
    ] {
        let o = Hlox::new(sub).arg("--help").output();
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
    let run = || run_seed(&hlo, &b, &c).args(["--plugin", REGISTERED]);
    let quiet = run().output();
    assert!(quiet.status.success(), "{}", stderr(&quiet));
    assert_eq!(stderr(&quiet), "", "nothing extra without HLOX_LOG");
    let o = run().env("HLOX_LOG", "debug").output();
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
    let e = stderr(&run().env("HLOX_LOG", "hlox_passes=debug").output());
    assert!(e.contains("pass=\"dce\""), "{e}");
    assert!(!e.contains("LLVM optimization"), "{e}");
    // A bad filter is a user error that says what a good one looks like.
    run()
        .env("HLOX_LOG", "hlox_passes=loud")
        .fails(1, &["HLOX_LOG=debug"]);
}

/// `bench --profile`: a table of the entry's instructions on stderr, the
/// slowest first, whose shares add up to 100%; the JSON line stays last on
/// stdout. CUDA is refused with what to use instead.
#[test]
fn bench_profile_prints_each_instruction_time() {
    let (m, inputs) = layernorm();
    let o = Hlox::new("bench")
        .arg(&m)
        .inputs(&inputs)
        .args(["--iters", "5", "--profile"])
        .output();
    assert!(o.status.success(), "{}", stderr(&o));
    let v = last_json(&stdout(&o));
    assert!(v["median_ms"].as_f64().unwrap() > 0.0, "{v}");
    let err = stderr(&o);
    let mut lines = err.lines();
    let head = lines.next().unwrap_or_default();
    assert!(head.starts_with("profile: "), "{err}");
    assert!(
        lines.next().unwrap_or_default().contains("instruction"),
        "{err}"
    );
    let rows: Vec<(f64, f64)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].parse().expect("ms"), f[2].parse().expect("cum%"))
        })
        .collect();
    assert!(!rows.is_empty(), "{err}");
    assert!(
        rows.windows(2).all(|w| w[0].0 >= w[1].0),
        "slowest first: {err}"
    );
    let last = rows.last().map_or(0.0, |r| r.1);
    assert!((last - 100.0).abs() < 0.2, "{err}");
    Hlox::new("bench")
        .arg(&m)
        .args(["--random", "--profile", "--platform", "cuda"])
        .fails(1, &["--profile", "Host", "nsys"]);
}

#[test]
fn piped_output_has_no_progress_escape_codes() {
    let (m, inputs) = layernorm();
    for cmd in [
        Hlox::new("bench")
            .arg(&m)
            .inputs(&inputs)
            .args(["--iters", "30"]),
        Hlox::new("run").arg(&m).inputs(&inputs),
        Hlox::new("run").arg(&m).args(["--random", "--interpret"]),
        Hlox::new("compile").arg(&m).args(["--emit", "asm"]),
    ] {
        let o = cmd.output();
        assert!(o.status.success(), "{cmd:?}: {}", stderr(&o));
        assert!(
            !o.stdout.contains(&0x1b) && !o.stderr.contains(&0x1b),
            "{cmd:?}: escape codes in piped output"
        );
        assert_eq!(stderr(&o), "", "{cmd:?}");
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
        let out = Hlox::new("run").arg(&hlo).inputs(&[&x]).args(extra).ok();
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
    let bound = |cmd: &str, binding: &str| {
        Hlox::new(cmd)
            .arg(&hlo)
            .args(["--plugin", SYMBOLS, "--target", binding])
    };
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
        let o = bound("run", binding)
            .inputs(&[&b, &c])
            .arg("-o")
            .arg(&dir)
            .args(extra)
            .output();
        assert!(o.status.success(), "{mode}: {}", stderr(&o));
        assert_eq!(read_f32(&dir.join("out0.npy")), want, "{mode}");
    }
    // JAX's typed-FFI module (target "axpby") with the C++ handler symbol
    // AxpbyFfi, its api_version from the call and the handler's metadata;
    // compared with the outputs recorded for it.
    assert!(
        !hlox_targets::CPP_FFI_PLUGIN.is_empty(),
        "{}",
        hlox_targets::CPP_FFI_ERROR
    );
    let axpby = |f: &str| corpus("cc_axpby_ffi", f);
    for extra in [None, Some("--interpret")] {
        let dir = tmp(&format!("target_axpby_{}", extra.is_some()));
        let o = Hlox::new("run")
            .arg(axpby("module.hlo"))
            .inputs(&[axpby("in0.npy"), axpby("in1.npy")])
            .args(["--plugin", hlox_targets::CPP_FFI_PLUGIN])
            .args(["--target", "axpby=AxpbyFfi", "-o"])
            .arg(&dir)
            .args(extra)
            .output();
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        assert_out0_like_corpus(&dir, "cc_axpby_ffi", 1e-6);
    }
    // bench and compile take it too; targets lists the binding.
    bound("bench", "seed_add=do_custom_call")
        .inputs(&[&b, &c])
        .args(["--iters", "2"])
        .ok();
    bound("compile", "seed_add=do_custom_call")
        .args(["--emit", "llvm-ir"])
        .ok();
    let out = Hlox::new("targets")
        .args(["--plugin", SYMBOLS, "--target"])
        .arg("seed_add=do_custom_call:API_VERSION_ORIGINAL")
        .ok();
    let line = out
        .lines()
        .find(|l| l.starts_with("seed_add "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("API_VERSION_ORIGINAL")
            && line.contains("--target to do_custom_call in libhlox_c_targets_sym.so"),
        "{line}"
    );
}

#[test]
fn target_errors_say_what_to_write() {
    let (hlo, b, c, _) = seed_files("seed_add_errors");
    let run = |binding: &str| {
        run_seed(&hlo, &b, &c)
            .args(["--interpret", "--plugin", SYMBOLS, "--target"])
            .arg(binding)
    };
    // Malformed: the expected form.
    run("seed_add").fails(1, &["no '='; the form is NAME=SYMBOL or NAME=SYMBOL:API"]);
    run("seed_add=do_custom_call:9").fails(1, &["unknown api_version \"9\""]);
    // A symbol no plugin exports: the closest ones.
    run("seed_add=DoCustomCall").fails(
        1,
        &[
            "no loaded library exports it",
            "closest exported: \"do_custom_call\"",
        ],
    );
    // A name that is taken (jaxlib's LAPACK targets are built in).
    run("lapack_sgetrf_ffi=do_custom_call")
        .fails(1, &["\"lapack_sgetrf_ffi\" is already registered"]);
    // No --target at all: the missing target names the plugin's closest
    // exports and the binding that would work.
    let (hlo, b, c, _) = seed_files("DoCustomCall");
    run_seed(&hlo, &b, &c).args(["--plugin", SYMBOLS]).fails(
        1,
        &["plugin libhlox_c_targets_sym.so exports \"do_custom_call\", \"do_custom_call_status\", \
           \"do_custom_call_unified\": bind one to this name with --target DoCustomCall=do_custom_call"],
    );
}

/// StableHLO text (JAX's default `as_text()`) runs through every
/// subcommand that takes a module, by extension or by its first token; MLIR
/// bytecode and a `jax.export` artifact are refused with what to do.
#[test]
fn stablehlo_input_runs_and_bytecode_says_what_to_do() {
    let text = "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {\n    %0 = stablehlo.sine %arg0 : tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n";
    for name in ["jax_stablehlo.mlir", "jax_stablehlo_by_token.txt"] {
        let mlir = tmp_file(name, text);
        let out = Hlox::new("run").arg(&mlir).arg("--random").ok();
        assert!(out.contains("out0: f32[4]{0}"), "{out}");
        let out = Hlox::new("fmt").arg(&mlir).ok();
        assert!(out.starts_with("HloModule jit_f"), "{out}");
        assert!(out.contains("sine("), "{out}");
        Hlox::new("compile").arg(&mlir).ok();
        Hlox::new("doctor").arg(&mlir).ok();
        Hlox::new("vjp").arg(&mlir).ok();
    }
    // The text of a jax.export artifact runs to its recorded output.
    let dir = repo("tests/stablehlo");
    let out_dir = tmp_dir("stablehlo_out");
    Hlox::new("run")
        .arg(dir.join("sin_add.mlir"))
        .arg("-i")
        .arg(dir.join("in0.npy"))
        .arg("-i")
        .arg(dir.join("in1.npy"))
        .arg("--out-dir")
        .arg(&out_dir)
        .ok();
    let read = |p: PathBuf| {
        hlox_hlo::npy::read_npy_file(p)
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
    };
    let (got, want) = (read(out_dir.join("out0.npy")), read(dir.join("out0.npy")));
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
            "{got:?} vs {want:?}"
        );
    }
    // A StableHLO error names the file, line and column.
    let bad = tmp_file("jax_stablehlo_bad.mlir", text.replace("sine", "sinus"));
    Hlox::new("run").arg(&bad).arg("--random").fails(
        1,
        &[&format!(
            "{}:3:10: unsupported operation 'stablehlo.sinus'",
            bad.display()
        )],
    );
    let bytecode = tmp_file("jax_stablehlo.pb", b"ML\xefR\rMLIR19.1.0\x00");
    Hlox::new("run").arg(&bytecode).arg("--random").fails(
        1,
        &[
            "cannot read this StableHLO bytecode: MLIR bytecode byte 16 (header): the string section is missing",
            "mlir_module()",
        ],
    );
    // The jax.export artifact itself (VHLO bytecode) runs to the same
    // output, and every command reads it.
    let exported_out = tmp_dir("jax_exported_out");
    Hlox::new("run")
        .arg(dir.join("sin_add.jax_exported"))
        .arg("-i")
        .arg(dir.join("in0.npy"))
        .arg("-i")
        .arg(dir.join("in1.npy"))
        .arg("--out-dir")
        .arg(&exported_out)
        .ok();
    let out = Hlox::new("fmt").arg(dir.join("sin_add.jax_exported")).ok();
    assert!(
        out.starts_with("HloModule jit_f") && out.contains("sine("),
        "{out}"
    );
    Hlox::new("compile")
        .arg(dir.join("sin_add.jax_exported"))
        .ok();
    let (got, want) = (
        read(exported_out.join("out0.npy")),
        read(dir.join("out0.npy")),
    );
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn bench_random_times_seeded_inputs_that_run_random_also_gives() {
    let (m, inputs) = layernorm();
    let (b, r) = (tmp("bench_random_out"), tmp("run_random_out"));
    let random7 = |cmd: &str| Hlox::new(cmd).arg(&m).args(["--random", "7"]);
    let out = random7("bench").args(["--iters", "3", "-o"]).arg(&b).ok();
    let json = last_json(&out);
    assert_eq!(json["iters"], 3, "{json}");
    random7("run").arg("-o").arg(&r).ok();
    let read = |p: PathBuf| hlox_hlo::npy::read_npy_file(p).unwrap();
    assert_eq!(read(b.join("out0.npy")), read(r.join("out0.npy")));
    Hlox::new("bench")
        .arg(&m)
        .arg("--random")
        .inputs(&inputs[..1])
        .fails(1, &["do not also pass --input"]);
}

/// The `.hloxc` entries in a cache directory, and everything in it.
fn cache_files(dir: &Path) -> (usize, usize) {
    let all: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    let entries = all
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "hloxc"))
        .count();
    (entries, all.len())
}

#[test]
fn compilation_cache_across_processes() {
    let cache = tmp("compilation_cache");
    let _ = std::fs::remove_dir_all(&cache);
    let (m, inputs) = layernorm();
    let run = |out: &str| {
        let dir = tmp(out);
        let o = Hlox::new("run")
            .arg(&m)
            .inputs(&inputs)
            .arg("--cache-dir")
            .arg(&cache)
            .arg("--timings")
            .arg("-o")
            .arg(&dir)
            .env("HLOX_LOG", "warn")
            .output();
        assert!(o.status.success(), "{}", stderr(&o));
        (dir, stderr(&o))
    };
    // A miss compiles and writes one entry; a fresh process hits it.
    let (first, err) = run("cache_out_miss");
    assert!(!err.contains("load cached"), "{err}");
    assert_eq!(cache_files(&cache), (1, 1));
    let (second, err) = run("cache_out_hit");
    assert!(err.contains("load cached (Disk)"), "{err}");
    assert_out0_like_corpus(&first, "layernorm", 1e-4);
    assert_eq!(
        std::fs::read(first.join("out0.npy")).unwrap(),
        std::fs::read(second.join("out0.npy")).unwrap(),
        "the same outputs from cached code"
    );
    // HLOX_CACHE_DIR instead of the flag; bench says where its code came from.
    let v = last_json(
        &Hlox::new("bench")
            .arg(&m)
            .inputs(&inputs)
            .args(["--iters", "1", "--warmup", "0"])
            .env("HLOX_CACHE_DIR", cache.to_str().unwrap())
            .ok(),
    );
    assert_eq!(v["cache"], "hit", "{v}");
    // A truncated entry: a warning, a correct compile, a whole entry again.
    let entry = std::fs::read_dir(&cache)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "hloxc"))
        .unwrap();
    let whole = std::fs::read(&entry).unwrap();
    std::fs::write(&entry, &whole[..whole.len() / 2]).unwrap();
    let (third, err) = run("cache_out_truncated");
    assert!(
        err.contains("WARN")
            && err.contains("checksum mismatch")
            && err.contains("compiling again"),
        "{err}"
    );
    assert_out0_like_corpus(&third, "layernorm", 1e-4);
    assert_eq!(std::fs::read(&entry).unwrap(), whole);
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn compilation_cache_filled_by_processes_at_once() {
    let cache = tmp("compilation_cache_concurrent");
    let _ = std::fs::remove_dir_all(&cache);
    let (m, inputs) = layernorm();
    let children: Vec<_> = (0..4)
        .map(|k| {
            let dir = tmp(&format!("cache_concurrent_out{k}"));
            let child = Command::new(env!("CARGO_BIN_EXE_hlox"))
                .arg("run")
                .arg(&m)
                .args(inputs.iter().flat_map(|i| ["-i".as_ref(), i.as_os_str()]))
                .arg("--cache-dir")
                .arg(&cache)
                .arg("-o")
                .arg(&dir)
                .stderr(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap();
            (dir, child)
        })
        .collect();
    for (dir, child) in children {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_out0_like_corpus(&dir, "layernorm", 1e-4);
    }
    assert_eq!(
        cache_files(&cache),
        (1, 1),
        "one whole entry, no temporary file"
    );
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn compilation_cache_with_custom_calls_across_processes() {
    let cache = tmp("compilation_cache_targets");
    let _ = std::fs::remove_dir_all(&cache);
    // A legacy target from a plugin, and jaxlib's typed-FFI LAPACK targets.
    let (hlo, b, c, want) = seed_files("do_custom_call");
    let case = |f: &str| corpus("linalg_cholesky_triangular", f);
    for round in ["miss", "hit"] {
        let out = tmp(&format!("cache_targets_seed_{round}"));
        let o = run_seed(&hlo, &b, &c)
            .args(["--plugin", REGISTERED, "--timings", "--cache-dir"])
            .arg(&cache)
            .arg("-o")
            .arg(&out)
            .output();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stderr(&o).contains("load cached (Disk)"), round == "hit");
        assert_eq!(read_f32(&out.join("out0.npy")), want, "{round}");

        let out = tmp(&format!("cache_targets_lapack_{round}"));
        let mut inputs = Vec::new();
        for k in 0.. {
            let p = case(&format!("in{k}.npy"));
            if !p.exists() {
                break;
            }
            inputs.push(p);
        }
        let o = Hlox::new("run")
            .arg(case("module.pb"))
            .inputs(&inputs)
            .args(["--timings", "--cache-dir"])
            .arg(&cache)
            .arg("-o")
            .arg(&out)
            .output();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stderr(&o).contains("load cached (Disk)"), round == "hit");
    }
    // The cached code gives the compiled code's outputs, bit for bit.
    let (miss, hit) = (
        tmp("cache_targets_lapack_miss"),
        tmp("cache_targets_lapack_hit"),
    );
    for k in 0..20 {
        let f = format!("out{k}.npy");
        let want = std::fs::read(miss.join(&f)).unwrap();
        assert_eq!(std::fs::read(hit.join(&f)).unwrap(), want, "{f}");
    }
    assert_out0_like_corpus(&hit, "linalg_cholesky_triangular", 1e-3);
    assert_eq!(cache_files(&cache).0, 2);
    let _ = std::fs::remove_dir_all(&cache);
}

/// `--out-dir` holds this run's results only: `outN.npy` files an earlier
/// run with more results left there are removed; other files stay.
#[test]
fn run_out_dir_drops_results_of_an_earlier_run() {
    let dir = tmp_dir("stale_outputs");
    let pytree = corpus("pytree_outputs", "module.hlo");
    let run = |module: &Path| {
        let o = hlox(&[
            "run",
            module.to_str().unwrap(),
            "--random",
            "7",
            "--interpret",
            "--out-dir",
            dir.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    };
    run(&pytree);
    assert!(dir.join("out1.npy").exists());
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    std::fs::write(dir.join("out_x.npy"), "mine").unwrap();
    let (layernorm, _) = layernorm();
    run(&layernorm);
    assert!(dir.join("out0.npy").exists());
    assert!(
        !dir.join("out1.npy").exists(),
        "out1.npy of the earlier run is still there"
    );
    assert!(dir.join("notes.txt").exists() && dir.join("out_x.npy").exists());
}
