//! The custom-call sandbox (`CompileOptions::sandbox`, hlox_ffi::sandbox)
//! on targets with real bugs (targets/cpp/sandbox_targets.cc): each bug is
//! caught, reported as that call's error naming the target (and the
//! buffer and offset where there is one), the process survives, and the
//! same executable runs again, correctly where the input allows it. A
//! reproducer replays the failure. Correct targets (C, Rust, typed FFI)
//! give the same results sandboxed as not.

use hlox_ffi::sandbox::SandboxOptions;
use hlox_ffi::Registry;
use hlox_hlo::text::parse_module;
use hlox_hlo::Literal;
use std::sync::Arc;

fn registry() -> Arc<Registry> {
    let r = Registry::with_static_targets().unwrap();
    assert!(
        !hlox_targets::SANDBOX_PLUGIN.is_empty(),
        "the sandbox targets were not built: {}",
        hlox_targets::SANDBOX_ERROR
    );
    r.load_library(hlox_targets::SANDBOX_PLUGIN)
        .unwrap_or_else(|e| panic!("{e}"));
    Arc::new(r)
}

/// `ROOT c = RESULT custom-call(x)` of `target` on one `OPERAND` parameter.
fn module(target: &str, operand: &str, result: &str) -> String {
    format!(
        "HloModule sb\n\nENTRY main {{\n  x = {operand} parameter(0)\n  ROOT c = {result} custom-call(x), custom_call_target=\"{target}\", api_version=API_VERSION_STATUS_RETURNING\n}}\n"
    )
}

fn compile(text: &str, sandbox: Option<SandboxOptions>) -> hlox_cpu::Executable {
    let m = parse_module(text).unwrap();
    let o = hlox_cpu::CompileOptions {
        registry: Some(registry()),
        sandbox,
        ..Default::default()
    };
    hlox_cpu::compile(&m, &o).unwrap_or_else(|e| panic!("{e}"))
}

fn f32s(v: &[f32]) -> Literal {
    Literal::r1(v)
}

fn run(exe: &hlox_cpu::Executable, x: &Literal) -> Result<Literal, String> {
    exe.execute(&[x]).map_err(|e| e.to_string())
}

fn expect_error(r: Result<Literal, String>, wants: &[&str]) -> String {
    let e = match r {
        Ok(l) => panic!("expected an error containing {wants:?}, got {l:?}"),
        Err(e) => e,
    };
    for w in wants {
        assert!(e.contains(w), "error lacks {w:?}:\n{e}");
    }
    e
}

#[test]
fn each_bug_is_caught_named_and_the_same_executable_runs_again() {
    let x = f32s(&[1.0, 2.0, 3.0, 4.0]);
    let f = "f32[4]{0}";
    let cases: &[(&str, &[&str])] = &[
        (
            "sb_oob_write",
            &[
                "custom call c (target \"sb_oob_write\") failed: sandbox: SIGSEGV (invalid memory access) in the target at instruction 0x",
                "(sb_oob_write+0x",
                "libhlox_sandbox_targets.so): writing 0 bytes past the end of the result (f32[4]{0}) (byte offset 16, element 4; it has 16 bytes)",
                "in a guard page",
            ],
        ),
        (
            "sb_oob_read",
            &[
                "(target \"sb_oob_read\") failed: sandbox: SIGSEGV",
                "(sb_oob_read+0x",
                "reading 0 bytes past the end of operand 0 (f32[4]{0}) (byte offset 16, element 4",
            ],
        ),
        (
            "sb_underflow_write",
            &[
                "(target \"sb_underflow_write\") failed: sandbox: the target wrote outside its buffers: byte offsets -4..=-1 of the result (f32[4]{0})",
            ],
        ),
        (
            "sb_segfault",
            &[
                "(target \"sb_segfault\") failed: sandbox: SIGSEGV",
                "(sb_segfault+0x",
                "writing address 0x8, which is not next to any of the call's buffers",
            ],
        ),
        (
            "sb_throw",
            &[
                "(target \"sb_throw\") failed: sandbox: the target threw a C++ exception: sb_throw: the input must be decreasing",
            ],
        ),
        (
            "sb_abort",
            &["(target \"sb_abort\") failed: sandbox: SIGABRT (abort(): a failed assert, or std::terminate)"],
        ),
    ];
    let good = compile(&module("sb_double", f, f), Some(SandboxOptions::default()));
    for (target, wants) in cases {
        let exe = compile(&module(target, f, f), Some(SandboxOptions::default()));
        // Twice: the process and the executable survive the first.
        for _ in 0..2 {
            expect_error(run(&exe, &x), wants);
            // Another executable, sandboxed, still computes right after it.
            assert_eq!(run(&good, &x).unwrap(), f32s(&[2.0, 4.0, 6.0, 8.0]));
        }
    }
}

#[test]
fn a_fault_that_depends_on_the_input_leaves_the_executable_usable() {
    let s = "s32[4]{0}";
    let exe = compile(&module("sb_divzero", s, s), Some(SandboxOptions::default()));
    let zero = Literal::r1(&[5i32, 0, 2, 1]);
    let good = Literal::r1(&[5i32, 10, 2, 1]);
    for _ in 0..3 {
        expect_error(
            exe.execute(&[&zero]).map_err(|e| e.to_string()),
            &[
                "(target \"sb_divzero\") failed: sandbox: SIGFPE (integer divide by zero) in the target at instruction 0x",
                "(sb_divzero+0x",
            ],
        );
        assert_eq!(
            exe.execute(&[&good]).unwrap(),
            Literal::r1(&[20i32, 10, 50, 100])
        );
    }
    // A C++ exception likewise: increasing input throws, decreasing does not.
    let f = "f32[4]{0}";
    let exe = compile(&module("sb_throw", f, f), Some(SandboxOptions::default()));
    for _ in 0..3 {
        expect_error(run(&exe, &f32s(&[1.0, 2.0, 3.0, 4.0])), &["C++ exception"]);
        let d = f32s(&[4.0, 3.0, 2.0, 1.0]);
        assert_eq!(run(&exe, &d).unwrap(), d);
    }
}

#[test]
fn an_out_of_bounds_write_into_a_tuple_element_names_the_element() {
    let text = "HloModule sb\n\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  ROOT c = (f32[4]{0}, f32[4]{0}) custom-call(x), custom_call_target=\"sb_tuple_oob\", api_version=API_VERSION_STATUS_RETURNING\n}\n";
    let exe = compile(text, Some(SandboxOptions::default()));
    expect_error(
        run(&exe, &f32s(&[1.0, 2.0, 3.0, 4.0])),
        &["writing 0 bytes past the end of the result element {0} (f32[4]{0}) (byte offset 16"],
    );
}

#[test]
fn result_checks_catch_nan_and_untouched_results_only_when_asked() {
    let f = "f32[4]{0}";
    let x = f32s(&[1.0, 2.0, 3.0, 4.0]);
    let checks = SandboxOptions {
        check_results: true,
        ..Default::default()
    };
    let nan = compile(&module("sb_nan", f, f), Some(checks.clone()));
    expect_error(
        run(&nan, &x),
        &["(target \"sb_nan\") failed: sandbox: the result (f32[4]{0}) holds NaN at element 2"],
    );
    let untouched = compile(&module("sb_untouched", f, f), Some(checks));
    expect_error(
        run(&untouched, &x),
        &["(target \"sb_untouched\") failed: sandbox: the target left the result (f32[4]{0}) untouched"],
    );
    // Without the checks, NaN is a result like any other.
    let nan = compile(&module("sb_nan", f, f), Some(SandboxOptions::default()));
    let r = run(&nan, &x).unwrap();
    let Literal::Array(a) = &r else { panic!() };
    let v: Vec<f32> = a
        .bytes()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!((v[0], v[1], v[3]), (1.0, 2.0, 4.0));
    assert!(v[2].is_nan());
}

#[test]
fn correct_targets_give_the_same_results_sandboxed() {
    let x = f32s(&[1.0, -2.0, 3.0, 4.5]);
    let y = f32s(&[0.5, 1.0, -1.0, 2.0]);
    let f = "f32[4]{0}";
    let plain = compile(&module("sb_double", f, f), None);
    let boxed = compile(&module("sb_double", f, f), Some(SandboxOptions::default()));
    assert_eq!(run(&plain, &x).unwrap(), run(&boxed, &x).unwrap());
    // A typed-FFI handler (Rust, attributes from backend_config).
    let ffi = "HloModule ffi\n\nENTRY main {\n  x = f32[4]{0} parameter(0)\n  y = f32[4]{0} parameter(1)\n  ROOT c = f32[4]{0} custom-call(x, y), custom_call_target=\"axpby_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={alpha = 2.0 : f32, beta = 3.0 : f32}\n}\n";
    let plain = compile(ffi, None);
    let boxed = compile(ffi, Some(SandboxOptions::default()));
    let want = f32s(&[3.5, -1.0, 3.0, 15.0]);
    assert_eq!(plain.execute(&[&x, &y]).unwrap(), want);
    assert_eq!(boxed.execute(&[&x, &y]).unwrap(), want);
    // A target that reports failure through its status: the same message
    // sandboxed as not.
    let reg = Registry::with_static_targets().unwrap();
    reg.register_fn(
        "fails_on_negative",
        hlox_ffi::Platform::Host,
        super::fails_on_negative,
    )
    .unwrap();
    let reg = Arc::new(reg);
    let m = parse_module(&module("fails_on_negative", f, f)).unwrap();
    let errors: Vec<String> = [None, Some(SandboxOptions::default())]
        .into_iter()
        .map(|sandbox| {
            let o = hlox_cpu::CompileOptions {
                registry: Some(reg.clone()),
                sandbox,
                ..Default::default()
            };
            let exe = hlox_cpu::compile(&m, &o).unwrap();
            run(&exe, &f32s(&[-1.0, 2.0, 3.0, 4.0])).unwrap_err()
        })
        .collect();
    assert_eq!(
        errors[1],
        errors[0].replace(") failed: ", ") failed: sandbox: "),
        "sandboxed: {}\nplain: {}",
        errors[1],
        errors[0]
    );
}

#[test]
fn a_reproducer_replays_the_failure() {
    let dir = std::env::temp_dir().join(format!("hlox-sandbox-repro-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = SandboxOptions {
        check_results: false,
        repro_dir: Some(dir.clone()),
    };
    // The call inside a larger module: its operand is computed.
    let text = "HloModule big\n\nENTRY main {\n  a = f32[4]{0} parameter(0)\n  x = f32[4]{0} multiply(a, a)\n  ROOT bad = f32[4]{0} custom-call(x), custom_call_target=\"sb_oob_write\", api_version=API_VERSION_STATUS_RETURNING, backend_config=\"opaque \\\"bytes\\\"\"\n}\n";
    let exe = compile(text, Some(options.clone()));
    let e = expect_error(
        run(&exe, &f32s(&[1.0, 2.0, 3.0, 4.0])),
        &["; reproducer written to ", "replay with: hlox run "],
    );
    let repro = dir.join("bad");
    for f in ["module.hlo", "p0.npy", "README.md"] {
        assert!(
            repro.join(f).is_file(),
            "{f} missing in {}",
            repro.display()
        );
    }
    let hlo = std::fs::read_to_string(repro.join("module.hlo")).unwrap();
    assert!(hlo.contains("custom_call_target=\"sb_oob_write\""), "{hlo}");
    assert!(hlo.contains("opaque \\\"bytes\\\""), "{hlo}");
    let p0 = hlox_hlo::npy::read_npy_file(repro.join("p0.npy")).unwrap();
    assert_eq!(p0, f32s(&[1.0, 4.0, 9.0, 16.0]));
    let readme = std::fs::read_to_string(repro.join("README.md")).unwrap();
    assert!(
        readme.contains("--plugin ") && readme.contains("--sandbox"),
        "{readme}"
    );
    // Replay: the one-call module on the saved operand fails the same way.
    let replay = compile(&hlo, Some(SandboxOptions::default()));
    let again = run(&replay, &p0).unwrap_err();
    // The same error: target, instruction (the plugin stays loaded at one
    // address), buffer and offset; only the guard page's address differs.
    let what = |e: &str| {
        let s = &e[e.find("sandbox: ").unwrap()..];
        s.split(" (address 0x").next().unwrap().to_string()
    };
    assert_eq!(what(&again), what(&e));
    std::fs::remove_dir_all(&dir).unwrap();
}
