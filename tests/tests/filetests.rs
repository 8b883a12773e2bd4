//! Filetests, in the spirit of Cranelift's: tests as data.
//!
//! - `tests/filetests/{eval,verify,host,cuda,transform}/**.hlo`: directive filetests
//!   (see `filetest/directives.rs` and docs/testing.md): each file's
//!   comment lines say what to run (`verify`, `passes=`, `run interpret`,
//!   `run host`, `run cuda-emulate`, `emit llvm-ir|ptx|hlo` with `check:`
//!   lines) and what to expect (`expect:`, `error:`).
//! - `tests/filetests/text/NAME.hlo`: parsed and printed; the print must equal
//!   `NAME.hlo.expected` and be a fixed point (printing the reparsed print
//!   gives the same text). Files named `jax_*.hlo` are real JAX output and
//!   must also print back byte for byte (trailing blank lines aside).
//! - `tests/filetests/text-errors/NAME.hlo`: must fail to parse; the error's
//!   `Display` (with the file name `NAME.hlo`) must equal `NAME.hlo.expected`.
//!
//! `BLESS=1 cargo test -p hlox-tests --test filetests` rewrites the
//! `.expected` files and the `expect:`/`error:` directives from the current
//! output.
//!
//! This is the one test binary of `hlox-tests` that links LLVM: the
//! failure tests (`failures.rs`, with the load and fuzz modules) live in it.

// Targets follow XLA's C convention (raw pointers in, by design).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod failures;
mod filetest;

use hlox_hlo::text::{parse_module, print_module};
use std::path::{Path, PathBuf};

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("filetests")
        .join(sub)
}

fn inputs(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir(sub))
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir(sub).display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no .hlo files under {}", dir(sub).display());
    v
}

fn bless() -> bool {
    std::env::var("BLESS").is_ok_and(|v| !v.is_empty() && v != "0")
}

fn expected_path(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".expected");
    PathBuf::from(s)
}

/// Compare `actual` with the `.expected` file (or write it when blessing).
fn check_expected(p: &Path, actual: &str, failures: &mut Vec<String>) {
    let exp = expected_path(p);
    if bless() {
        std::fs::write(&exp, actual).expect("write expected");
        return;
    }
    match std::fs::read_to_string(&exp) {
        Ok(e) if e == actual => {}
        Ok(e) => failures.push(format!(
            "{}: output differs from {}\n--- expected\n{e}\n--- actual\n{actual}",
            p.display(),
            exp.display()
        )),
        Err(_) => failures.push(format!(
            "{}: missing {} (run with BLESS=1)",
            p.display(),
            exp.display()
        )),
    }
}

fn trim_trailing_blank(s: &str) -> &str {
    s.trim_end_matches('\n')
}

#[test]
fn text_filetests() {
    let mut failures = Vec::new();
    for p in inputs("text") {
        let src = std::fs::read_to_string(&p).expect("read");
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let m = match parse_module(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!(
                    "{}: parse failed:\n{}",
                    p.display(),
                    e.with_file(&name)
                ));
                continue;
            }
        };
        let printed = print_module(&m);
        // Fixed point: print(parse(print(parse(x)))) == print(parse(x)), and
        // the reparsed IR equals the first.
        match parse_module(&printed) {
            Ok(m2) => {
                let printed2 = print_module(&m2);
                if printed2 != printed {
                    failures.push(format!(
                        "{}: printing is not a fixed point\n--- first\n{printed}\n--- second\n{printed2}",
                        p.display()
                    ));
                }
                if m2 != m {
                    failures.push(format!("{}: parse(print(m)) != m", p.display()));
                }
            }
            Err(e) => failures.push(format!(
                "{}: reparse of the print failed:\n{e}\n{printed}",
                p.display()
            )),
        }
        if name.starts_with("jax_") && trim_trailing_blank(&printed) != trim_trailing_blank(&src) {
            failures.push(format!(
                "{}: real JAX text does not print back byte for byte\n--- input\n{src}\n--- printed\n{printed}",
                p.display()
            ));
        }
        check_expected(&p, &printed, &mut failures);
    }
    assert!(
        failures.is_empty(),
        "{} filetest failure(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn text_error_filetests() {
    let mut failures = Vec::new();
    for p in inputs("text-errors") {
        let src = std::fs::read_to_string(&p).expect("read");
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        match parse_module(&src) {
            Ok(m) => failures.push(format!(
                "{}: parsed but should fail:\n{}",
                p.display(),
                print_module(&m)
            )),
            Err(e) => {
                let text = format!("{}\n", e.with_file(&name));
                check_expected(&p, &text, &mut failures);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} error filetest failure(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Every prefix of real modules must parse or fail cleanly, never panic.
#[test]
fn truncated_inputs_never_panic() {
    let mut checked = 0;
    for p in inputs("text") {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("jax") || name.starts_with("custom_call")) {
            continue;
        }
        let src = std::fs::read_to_string(&p).expect("read");
        // Every prefix for small files; a stride for big ones keeps it quick.
        let step = (src.len() / 3000).max(1);
        let mut cut = 0;
        while cut < src.len() {
            if src.is_char_boundary(cut) {
                let r = std::panic::catch_unwind(|| parse_module(&src[..cut]));
                assert!(
                    r.is_ok(),
                    "{name}: parser panicked on the prefix of {cut} bytes"
                );
                if let Ok(Err(e)) = &r {
                    // Errors render with a caret and never point past the input.
                    assert!(
                        e.to_string().contains('^'),
                        "{name}: error without caret at {cut}"
                    );
                }
                checked += 1;
            }
            cut += step;
        }
    }
    assert!(checked > 1000, "only {checked} prefixes checked");
}

// ---------------------------------------------------------------- directives

fn directive_suite(sub: &str) {
    filetest::run_dir(&dir(sub));
}

/// The evaluator on every opcode, with hand-computed expectations.
#[test]
fn eval_filetests() {
    directive_suite("eval");
}

/// The Host backend against the interpreter: data movement, reductions,
/// control flow, fusions.
#[test]
fn host_filetests() {
    directive_suite("host");
}

/// hlox-transform's jvp, vjp, grad and vmap: the transformed modules as
/// documentation (check lines) and run on data, and its errors.
#[test]
fn transform_filetests() {
    directive_suite("transform");
}

/// The verifier's diagnostics, each with its full message.
#[test]
fn verify_filetests() {
    directive_suite("verify");
}

/// The runner itself: each kind of failure is reported, naming the file and
/// line of the directive that failed.
#[test]
fn runner_reports_the_failing_directive() {
    let dir = std::env::temp_dir().join(format!("hlox-filetest-runner-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join("bad.hlo");
    let module = |root: &str| {
        format!(
            "HloModule m\nENTRY e {{\n  a = s32[2] parameter(0)\n  ROOT b = {root} add(a, a)\n}}\n"
        )
    };
    let text = [
        // Lines 1-8: a wrong expectation.
        format!("// run interpret\n// arg: s32[2] {{1, 2}}\n// expect: s32[2] {{2, 5}}\n{}", module("s32[2]")),
        // Lines 10-19: a check-not that matches.
        format!("// passes=dce\n// emit hlo\n// check: ENTRY\n// check-not: parameter\n// check: ROOT\n{}", module("s32[2]")),
        // Lines 21-27: the wrong error message.
        format!("// verify\n// error: nothing\n{}", module("s32[3]")),
    ]
    .join("// -----\n");
    std::fs::write(&p, text).expect("write");
    let (cases, failures) = filetest::run_file(&p);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(cases, 3);
    assert_eq!(failures.len(), 3, "{failures:#?}");
    assert!(
        failures[0].contains("bad.hlo:1: `run interpret` result differs from `expect`")
            && failures[0].contains("element 1 differs"),
        "{}",
        failures[0]
    );
    assert!(
        failures[1].contains("bad.hlo:13: check-not `parameter` matched"),
        "{}",
        failures[1]
    );
    assert!(
        failures[2].contains("bad.hlo:22: wrong error")
            && failures[2].contains("declared shape s32[3] does not match"),
        "{}",
        failures[2]
    );

    // A misspelled directive fails instead of checking nothing, and a run
    // compared with nothing fails too.
    for (text, want) in [
        (
            format!(
                "// run interpret\n// arg: s32[2] {{1, 2}}\n// expected: s32[2] {{2, 4}}\n{}",
                module("s32[2]")
            ),
            "bad.hlo:3: `expected:` is not a directive; did you mean `expect:`?",
        ),
        (
            format!(
                "// run interpret\n// arg: s32[2] {{1, 2}}\n{}",
                module("s32[2]")
            ),
            "bad.hlo:1: nothing is compared",
        ),
        // Inputs without a `run` would be ignored; so would compiler
        // options on the interpreter.
        (
            format!("// verify\n// arg: s32[2] {{1, 2}}\n{}", module("s32[2]")),
            "bad.hlo:2: `arg:` without a `run` directive",
        ),
        (
            format!("// args: random(3)\n{}", module("s32[2]")),
            "bad.hlo:1: `args:` without a `run` directive",
        ),
        (
            format!("// passes=dce\n// tolerance: 1e-6\n{}", module("s32[2]")),
            "bad.hlo:2: `tolerance:` without a `run` directive",
        ),
        (
            format!(
                "// run interpret opt_level=0\n// arg: s32[2] {{1, 2}}\n{}",
                module("s32[2]")
            ),
            "bad.hlo:1: `opt_level=0`: the interpreter compiles nothing",
        ),
        (
            format!(
                "// run interpret hlo_passes=false\n// arg: s32[2] {{1, 2}}\n{}",
                module("s32[2]")
            ),
            "bad.hlo:1: `hlo_passes=false`: the interpreter compiles nothing",
        ),
    ] {
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(&p, text).expect("write");
        let (_, failures) = filetest::run_file(&p);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            failures.len() == 1 && failures[0].contains(want),
            "{failures:#?}"
        );
    }
}

/// Every engine on one program, and the emitted PTX and LLVM IR.
#[test]
fn cuda_filetests() {
    directive_suite("cuda");
}
