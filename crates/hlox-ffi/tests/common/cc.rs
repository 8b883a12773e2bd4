//! Building a shared library from C source with the system C compiler
//! (`$CC`, else `cc`): shared by the registry's unit tests and the
//! integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles C `source` into the shared library `dir/lib{name}.so` with
/// `-shared -fPIC` and `extra` arguments; panics with the compiler's
/// output when it fails.
pub fn c_library(dir: &Path, name: &str, source: &str, extra: &[&str]) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).unwrap();
    let out = dir.join(format!("lib{name}.so"));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let o = Command::new(&cc)
        .args(["-shared", "-fPIC", "-o"])
        .arg(&out)
        .arg(&src)
        .args(extra)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    assert!(
        o.status.success(),
        "{cc} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}
