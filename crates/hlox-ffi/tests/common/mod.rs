//! What the registry tests share: building a C plugin from source.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles the C source `src` into `lib<name>.so` (in a directory of this
/// test's own, `-I targets/include`, `-shared -fPIC`) and returns its path.
pub fn build_c_plugin(test: &str, name: &str, src: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(test);
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let out = dir.join(format!("lib{name}.so"));
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../targets/include");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let o = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O1", "-Wall", "-std=c11", "-I"])
        .arg(&include)
        .arg(&c)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    assert!(
        o.status.success(),
        "{cc} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}
