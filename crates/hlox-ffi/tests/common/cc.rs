//! Building a shared library from C source with the system C compiler
//! (`$CC`, else `cc`): shared by the registry's unit tests and the
//! integration tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles C `source` into the shared library `dir/lib{name}.so` with
/// `-shared -fPIC` and `extra` arguments; panics with the compiler's
/// output when it fails. Tests running at once may build the same library:
/// each compiles its own copy of the source to its own file and renames it
/// into place, so no test loads a library another is still writing.
pub fn c_library(dir: &Path, name: &str, source: &str, extra: &[&str]) -> PathBuf {
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let tag = format!(
        "{}.{}",
        std::process::id(),
        SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let src = dir.join(format!("{name}.{tag}.c"));
    std::fs::write(&src, source).unwrap();
    let tmp = dir.join(format!("lib{name}.so.{tag}"));
    let out = dir.join(format!("lib{name}.so"));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let o = Command::new(&cc)
        .args(["-shared", "-fPIC", "-o"])
        .arg(&tmp)
        .arg(&src)
        .args(extra)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    let _ = std::fs::remove_file(&src);
    assert!(
        o.status.success(),
        "{cc} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::rename(&tmp, &out).unwrap();
    out
}
