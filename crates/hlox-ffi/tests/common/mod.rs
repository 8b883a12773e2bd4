//! What the registry tests share: building a C plugin from source.

mod cc;

use std::path::{Path, PathBuf};

/// Compiles the C source `src` into `lib<name>.so` (in a directory of this
/// test's own, `-I targets/include`, `-shared -fPIC`) and returns its path.
#[allow(dead_code)]
pub fn build_c_plugin(test: &str, name: &str, src: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(test);
    std::fs::create_dir_all(&dir).unwrap();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../targets/include");
    let include = include.to_string_lossy();
    cc::c_library(
        &dir,
        name,
        src,
        &["-O1", "-Wall", "-std=c11", "-I", &include],
    )
}

/// Compiles the C source `src` into `lib<name>.so` against XLA's own FFI C
/// header (`.xla-ffi/include`, `xla/ffi/api/c_api.h`) and returns its path.
#[allow(dead_code)]
pub fn build_c_against_xla_ffi(test: &str, name: &str, src: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(test);
    std::fs::create_dir_all(&dir).unwrap();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.xla-ffi/include");
    let include = include.to_string_lossy();
    cc::c_library(
        &dir,
        name,
        src,
        &["-O1", "-Wall", "-Werror", "-std=c11", "-I", &include],
    )
}
