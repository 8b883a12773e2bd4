//! Issue 27 through the `hlox` binary: inputs that used to hang it, abort
//! it or run forever end with a clear error and a distinct exit code.

mod common;

use common::*;
use std::time::{Duration, Instant};

#[test]
fn a_90_byte_npy_with_unclosed_brackets_fails_fast() {
    // Hung forever in npyz's backtracking header parser.
    let mut header = b"{'descr': ".to_vec();
    header.extend_from_slice(&[b'['; 70]);
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    npy.extend_from_slice(&(header.len() as u16).to_le_bytes());
    npy.extend_from_slice(&header);
    assert_eq!(npy.len(), 90);
    let input = tmp_file("brackets.npy", &npy);
    let module = tmp_file(
        "param.hlo",
        b"HloModule m\nENTRY e { ROOT p = f32[2] parameter(0) }\n",
    );
    let start = Instant::now();
    let o = Hlox::new("run")
        .arg(&module)
        .inputs(&[&input])
        .arg("--interpret")
        .output();
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_fails(&o, 1, &["70 unclosed bracket(s) in the 'descr' value"]);
}

#[test]
fn random_inputs_too_large_to_allocate_are_an_error_naming_the_parameter() {
    // Aborted with "memory allocation of 1000000000000 bytes failed".
    let module = tmp_file(
        "terabyte.hlo",
        b"HloModule m\nENTRY e { ROOT big = f32[250000000000] parameter(0) }\n",
    );
    for mode in [None, Some("--interpret")] {
        Hlox::new("run")
            .arg(&module)
            .arg("--random")
            .args(mode)
            .fails(
                1,
                &[
                    "--random: cannot make parameter `big` (f32[250000000000]{0})",
                    "cannot allocate 1000000000000 bytes",
                ],
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
    let module = tmp_file("forever.hlo", FOREVER);
    for mode in [None, Some("--interpret")] {
        let start = Instant::now();
        let o = Hlox::new("run")
            .arg(&module)
            .args(["--random", "--timeout", "1"])
            .args(mode)
            .output();
        assert!(start.elapsed() < Duration::from_secs(60), "{mode:?}");
        assert_fails(
            &o,
            3,
            &[
                "stopped: its timeout of 1.000 s passed",
                "fix: raise --timeout",
            ],
        );
    }
    let x = write_npy("x.npy", &hlox_hlo::Literal::r1(&[0.5f32; 4]));
    Hlox::new("bench")
        .arg(&module)
        .inputs(&[&x])
        .args(["--timeout", "0.5"])
        .fails(3, &["stopped: its timeout of 0.500 s passed"]);
    Hlox::new("run")
        .arg(&module)
        .args(["--random", "--timeout=-1"])
        .fails(1, &["--timeout -1: give a positive number of seconds"]);
}
