//! Issue 27 through the `hlox` binary: inputs that used to hang it, abort
//! it or run forever end with a clear error and a distinct exit code.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn hlox(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hlox"))
        .args(args)
        .output()
        .expect("hlox runs")
}

fn tmp(name: &str, contents: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad_input");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_90_byte_npy_with_unclosed_brackets_fails_fast() {
    // Hung forever in npyz's backtracking header parser.
    let mut header = b"{'descr': ".to_vec();
    header.extend_from_slice(&[b'['; 70]);
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    npy.extend_from_slice(&(header.len() as u16).to_le_bytes());
    npy.extend_from_slice(&header);
    assert_eq!(npy.len(), 90);
    let input = tmp("brackets.npy", &npy);
    let module = tmp(
        "param.hlo",
        b"HloModule m\nENTRY e { ROOT p = f32[2] parameter(0) }\n",
    );
    let start = Instant::now();
    let o = hlox(&[
        "run",
        module.to_str().unwrap(),
        "-i",
        input.to_str().unwrap(),
        "--interpret",
    ]);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("70 unclosed bracket(s) in the 'descr' value"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn random_inputs_too_large_to_allocate_are_an_error_naming_the_parameter() {
    // Aborted with "memory allocation of 1000000000000 bytes failed".
    let module = tmp(
        "terabyte.hlo",
        b"HloModule m\nENTRY e { ROOT big = f32[250000000000] parameter(0) }\n",
    );
    for mode in [None, Some("--interpret")] {
        let mut args = vec!["run", module.to_str().unwrap(), "--random"];
        args.extend(mode);
        let o = hlox(&args);
        assert_eq!(o.status.code(), Some(1), "{mode:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("--random: cannot make parameter `big` (f32[250000000000]{0})")
                && e.contains("cannot allocate 1000000000000 bytes"),
            "{mode:?}: {e}"
        );
    }
}

const FOREVER: &[u8] = br#"HloModule forever

cond {
  s = (s32[], f32[4]) parameter(0)
  ROOT t = pred[] constant(true)
}

body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  n = s32[] add(i, one)
  x = f32[4] get-tuple-element(s), index=1
  ROOT r = (s32[], f32[4]) tuple(n, x)
}

ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(w), index=1
}
"#;

#[test]
fn timeout_stops_a_run_that_never_ends_with_exit_code_3() {
    let module = tmp("forever.hlo", FOREVER);
    let m = module.to_str().unwrap();
    for mode in [None, Some("--interpret")] {
        let mut args = vec!["run", m, "--random", "--timeout", "1"];
        args.extend(mode);
        let start = Instant::now();
        let o = hlox(&args);
        assert!(start.elapsed() < Duration::from_secs(60), "{mode:?}");
        assert_eq!(o.status.code(), Some(3), "{mode:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("stopped: its timeout of 1.000 s passed")
                && e.contains("fix: raise --timeout"),
            "{mode:?}: {e}"
        );
    }
    let x = hlox_hlo::Literal::from_vec(&[4], &[0.5f32; 4]).unwrap();
    let x = tmp("x.npy", &hlox_hlo::npy::write_npy(&x).unwrap());
    let args = ["bench", m, "-i", x.to_str().unwrap(), "--timeout", "0.5"];
    let o = hlox(&args);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("stopped: its timeout of 0.500 s passed"),
        "{}",
        stderr(&o)
    );
    let o = hlox(&["run", m, "--random", "--timeout=-1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--timeout -1: give a positive number of seconds"),
        "{}",
        stderr(&o)
    );
}
