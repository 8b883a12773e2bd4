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
    let bad = tmp("bad.hlo");
    std::fs::write(
        &bad,
        "HloModule m\n\nENTRY e {\n  ROOT x = f32[] negate(y)\n}\n",
    )
    .unwrap();
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
    let bad = tmp("badshape.hlo");
    std::fs::write(
        &bad,
        "HloModule m\n\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[3] parameter(1)\n  ROOT s = f32[2] add(a, b)\n}\n",
    )
    .unwrap();
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
