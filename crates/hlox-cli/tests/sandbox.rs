//! `hlox run --sandbox` (and `--check-results`, `--repro-dir`) through the
//! binary, on the buggy targets of targets/cpp/sandbox_targets.cc: the
//! error names the target, buffer and offset, the reproducer's command
//! line replays the same error, and without the flag a segfaulting target
//! still takes the process down (behaviour unchanged).

mod common;

use common::*;
use hlox_hlo::Literal;

fn plugin() -> &'static str {
    assert!(
        !hlox_targets::SANDBOX_PLUGIN.is_empty(),
        "the sandbox targets were not built: {}",
        hlox_targets::SANDBOX_ERROR
    );
    hlox_targets::SANDBOX_PLUGIN
}

fn call(name: &str, target: &str) -> std::path::PathBuf {
    tmp_file(
        name,
        format!(
            "HloModule m\n\nENTRY main {{\n  a = f32[4]{{0}} parameter(0)\n  x = f32[4]{{0}} add(a, a)\n  ROOT c = f32[4]{{0}} custom-call(x), custom_call_target=\"{target}\", api_version=API_VERSION_STATUS_RETURNING, backend_config=\"n=4\"\n}}\n"
        ),
    )
}

#[test]
fn sandbox_reports_the_fault_and_the_reproducer_replays_it() {
    let module = call("oob.hlo", "sb_oob_write");
    let x = write_npy("oob_x.npy", &Literal::r1(&[1.0f32, 2.0, 3.0, 4.0]));
    let repro = tmp("oob_repro");
    let _ = std::fs::remove_dir_all(&repro);
    let want = [
        "custom call c (target \"sb_oob_write\") failed: sandbox: SIGSEGV",
        "(sb_oob_write+0x",
        "writing 0 bytes past the end of the result (f32[4]{0}) (byte offset 16, element 4; it has 16 bytes)",
    ];
    let err = run_with_plugin(&module, &x, &["--repro-dir"])
        .arg(&repro)
        .fails(1, &want);
    assert!(err.contains("reproducer written to"), "{err}");
    // The README's command line, run as written, fails the same way.
    let readme = read_text(&repro.join("c/README.md"));
    let line = readme
        .lines()
        .find(|l| l.starts_with("hlox run "))
        .unwrap_or_else(|| panic!("no command in:\n{readme}"));
    assert!(line.contains("--sandbox"), "{line}");
    let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    let o = hlox(&words);
    assert_fails(&o, 1, &want);
    // The operand it saved is the call's operand (a + a), not the module's input.
    let p0 = hlox_hlo::npy::read_npy_file(repro.join("c/p0.npy")).unwrap();
    assert_eq!(p0, Literal::r1(&[2.0f32, 4.0, 6.0, 8.0]));
}

#[test]
fn sandbox_catches_a_cpp_exception_and_result_checks_are_opt_in() {
    let x = write_npy("inc_x.npy", &Literal::r1(&[1.0f32, 2.0, 3.0, 4.0]));
    run_with_plugin(call("throw.hlo", "sb_throw"), &x, &["--sandbox"])
        .fails(
            1,
            &["(target \"sb_throw\") failed: sandbox: the target threw a C++ exception: sb_throw: the input must be decreasing"],
        );
    let nan = call("nan.hlo", "sb_nan");
    run_with_plugin(&nan, &x, &["--check-results"]).fails(
        1,
        &["(target \"sb_nan\") failed: sandbox: the result (f32[4]{0}) holds NaN at element 2"],
    );
    let out = run_with_plugin(&nan, &x, &["--sandbox"]).ok();
    assert!(out.contains("NaN") || out.contains("nan"), "{out}");
    run_with_plugin(&nan, &x, &["--sandbox", "--interpret"]).fails(
        1,
        &["--sandbox (and --check-results, --repro-dir) run custom calls compiled for the Host"],
    );
}

#[test]
fn without_the_sandbox_a_segfaulting_target_still_kills_the_process() {
    use std::os::unix::process::ExitStatusExt;
    let module = call("segv.hlo", "sb_segfault");
    let x = write_npy("segv_x.npy", &Literal::r1(&[1.0f32, 2.0, 3.0, 4.0]));
    let o = run_with_plugin(&module, &x, &[]).output();
    assert_eq!(o.status.signal(), Some(libc_sigsegv()), "{o:?}");
    run_with_plugin(&module, &x, &["--sandbox"])
        .fails(
            1,
            &["(target \"sb_segfault\") failed: sandbox: SIGSEGV (invalid memory access) in the target at instruction 0x"],
        );
}

/// `hlox run MODULE -i X --plugin <the sandbox targets> FLAGS`.
fn run_with_plugin(
    module: impl AsRef<std::ffi::OsStr>,
    x: &std::path::Path,
    flags: &[&str],
) -> Hlox {
    Hlox::new("run")
        .arg(module)
        .inputs(&[x])
        .args(["--plugin", plugin()])
        .args(flags)
}

fn libc_sigsegv() -> i32 {
    11
}
