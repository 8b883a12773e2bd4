//! Support shared by the `hlox` binary's end-to-end tests: building a
//! command line, running the binary, the corpus and scratch paths, `.npy`
//! files, and the checks every test makes on an exit.
//!
//! Each test file is its own crate and uses a different part of this.
#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A command line for the `hlox` binary, built up and then run.
#[derive(Debug)]
pub struct Hlox {
    args: Vec<OsString>,
    env: Vec<(String, String)>,
}

impl Hlox {
    /// `hlox SUBCOMMAND`.
    pub fn new(subcommand: &str) -> Self {
        Hlox {
            args: vec![subcommand.into()],
            env: Vec::new(),
        }
    }

    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Self {
        self.args.push(a.as_ref().to_owned());
        self
    }

    pub fn args<I: IntoIterator>(mut self, args: I) -> Self
    where
        I::Item: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// `-i PATH` for each input, in order.
    pub fn inputs<P: AsRef<Path>>(mut self, inputs: &[P]) -> Self {
        for i in inputs {
            self = self.arg("-i").arg(i.as_ref());
        }
        self
    }

    /// Sets an environment variable for the run.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Runs it with HLOX_LOG unset unless `env` set it, so that its stderr
    /// holds only what the command itself says.
    pub fn output(&self) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_hlox"));
        c.args(&self.args).env_remove("HLOX_LOG");
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c.output().expect("hlox runs")
    }

    /// Runs it, asserts that it succeeded and returns its stdout.
    pub fn ok(&self) -> String {
        let o = self.output();
        assert!(o.status.success(), "{:?}: {}", self.args, stderr(&o));
        stdout(&o)
    }

    /// Runs it, asserts that it exited with `code` and that its stderr
    /// holds every one of `needles`; returns the stderr.
    pub fn fails(&self, code: i32, needles: &[&str]) -> String {
        let o = self.output();
        check_exit(&o, code, needles, &format!("{:?}", self.args));
        stderr(&o)
    }
}

/// Runs `hlox ARGS` with the environment as given.
pub fn hlox<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hlox"))
        .args(args)
        .output()
        .expect("hlox runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts that `o` exited with `code` and that its stderr holds every one of
/// `needles`.
pub fn assert_fails(o: &Output, code: i32, needles: &[&str]) {
    check_exit(o, code, needles, "hlox");
}

fn check_exit(o: &Output, code: i32, needles: &[&str], what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{what}: {err}");
    for n in needles {
        assert!(err.contains(n), "{what}: no `{n}` in:\n{err}");
    }
}

/// The text of the file at `p`.
pub fn read_text(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A path below the repository's root.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// `tests/corpus/CASE/FILE`.
pub fn corpus(case: &str, file: &str) -> PathBuf {
    repo("tests/corpus").join(case).join(file)
}

/// A scratch path `NAME` in this test file's own folder of the target's
/// temporary directory.
pub fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(env!("CARGO_CRATE_NAME"));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir.join(name)
}

/// `tmp(name)`, created as a directory.
pub fn tmp_dir(name: &str) -> PathBuf {
    let d = tmp(name);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    d
}

/// `tmp(name)` holding `contents`.
pub fn tmp_file(name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, contents).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    p
}

/// `lit` written as `.npy` to `path`.
pub fn write_npy_at(path: &Path, lit: &hlox_hlo::Literal) {
    hlox_hlo::npy::write_npy_file(path, lit).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// `lit` written as `.npy` to `tmp(name)`.
pub fn write_npy(name: &str, lit: &hlox_hlo::Literal) -> PathBuf {
    let p = tmp(name);
    write_npy_at(&p, lit);
    p
}

/// The values of the f32 `.npy` file at `p`.
pub fn read_f32(p: &Path) -> Vec<f32> {
    hlox_hlo::npy::read_npy_file(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .to_vec::<f32>()
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Asserts `|g - w| <= atol + rtol * |w|` for each pair; `what` names the
/// comparison in a failure.
pub fn assert_close(got: &[f32], want: &[f32], atol: f32, rtol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= atol + rtol * w.abs(), "{what}: {g} vs {w}");
    }
}

/// Asserts that the f32 `.npy` file `got` holds `want`'s values within
/// `|g - w| <= tol + tol * |w|`.
pub fn assert_npy_close(got: &Path, want: &Path, tol: f32, what: &str) {
    assert_close(&read_f32(got), &read_f32(want), tol, tol, what);
}
