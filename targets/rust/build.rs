//! Builds the C example targets (targets/c) into shared libraries with the
//! system C compiler (`$CC`, else `cc`), `-shared -fPIC`, linked against
//! nothing: the status functions come from the process that loads them.
//! Paths reach the crate as env vars (HLOX_C_TARGETS_*); when the compiler
//! fails they are empty and HLOX_C_TARGETS_ERROR says why (tests then fail
//! with that message; building the Rust targets does not).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a plugin library was not built (the tests that need it report it).
#[derive(Debug)]
enum BuildError {
    /// XLA's FFI headers are not installed.
    NoHeaders,
    /// The compiler `tool` (`C`, `C++`) named `program` did not start.
    Spawn {
        tool: &'static str,
        program: String,
        source: std::io::Error,
        hint: &'static str,
    },
    /// The compiler ran and failed.
    Failed { command: String, stderr: String },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NoHeaders => f.write_str(
                "XLA's FFI headers (xla/ffi/api/ffi.h) not found: run `bash scripts/setup_xla_ffi_headers.sh` \
                 (make test does) or set HLOX_XLA_FFI_INCLUDE to jax.ffi.include_dir()",
            ),
            BuildError::Spawn {
                tool,
                program,
                source,
                hint,
            } => write!(f, "cannot run {tool} compiler `{program}`: {source}{hint}"),
            BuildError::Failed { command, stderr } => write!(f, "`{command}` failed:\n{stderr}"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Runs the compiler command `cmd` (`tool` in errors, with `hint` after a
/// failure to start it).
fn run(mut cmd: Command, tool: &'static str, hint: &'static str) -> Result<(), BuildError> {
    let o = cmd.output().map_err(|source| BuildError::Spawn {
        tool,
        program: cmd.get_program().to_string_lossy().into_owned(),
        source,
        hint,
    })?;
    if !o.status.success() {
        return Err(BuildError::Failed {
            command: format!("{cmd:?}"),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        });
    }
    Ok(())
}

fn compile(cc: &str, root: &Path, out: &Path, sources: &[&str]) -> Result<(), BuildError> {
    let mut cmd = Command::new(cc);
    cmd.args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-std=c11"]);
    cmd.arg("-I").arg(root.join("targets/include"));
    for s in sources {
        cmd.arg(root.join("targets/c").join(s));
    }
    cmd.arg("-o").arg(out);
    run(cmd, "C", "")
}

/// Finds XLA's FFI headers: HLOX_XLA_FFI_INCLUDE, else .xla-ffi/include
/// (what scripts/setup_xla_ffi_headers.sh makes).
fn xla_ffi_include(root: &Path) -> Option<PathBuf> {
    let ok = |p: &Path| p.join("xla/ffi/api/ffi.h").is_file();
    if let Ok(p) = std::env::var("HLOX_XLA_FFI_INCLUDE") {
        let p = PathBuf::from(p);
        if ok(&p) {
            return Some(p);
        }
    }
    let p = root.join(".xla-ffi/include");
    ok(&p).then_some(p)
}

/// Builds targets/cpp (typed-FFI handlers written against XLA's own
/// headers) into a shared library that leaves XLA_FFI_GetApi to the process.
fn compile_cpp(root: &Path, out: &Path) -> Result<(), BuildError> {
    let include = xla_ffi_include(root).ok_or(BuildError::NoHeaders)?;
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    let mut cmd = Command::new(&cxx);
    cmd.args(["-shared", "-fPIC", "-O2", "-std=c++17", "-Wall", "-Wextra"]);
    cmd.arg("-isystem").arg(&include);
    cmd.arg(root.join("targets/cpp/xla_ffi_targets.cc"));
    cmd.arg("-o").arg(out);
    run(cmd, "C++", " (install g++)")
}

/// Builds targets/cpp/sandbox_targets.cc (plain C-ABI targets written in
/// C++, no XLA headers) into a shared library.
fn compile_sandbox_targets(root: &Path, out: &Path) -> Result<(), BuildError> {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    let mut cmd = Command::new(&cxx);
    cmd.args(["-shared", "-fPIC", "-O1", "-std=c++17", "-Wall", "-Wextra"]);
    cmd.arg(root.join("targets/cpp/sandbox_targets.cc"));
    cmd.arg("-o").arg(out);
    run(cmd, "C++", " (install g++)")
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    for f in [
        "targets/c/targets.c",
        "targets/c/register.c",
        "targets/c/bad_register.c",
        "targets/c/cube_rules.c",
        "targets/include/hlox/custom_call.h",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(f).display());
    }
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo:rerun-if-env-changed=CXX");
    println!("cargo:rerun-if-env-changed=HLOX_XLA_FFI_INCLUDE");
    println!(
        "cargo:rerun-if-changed={}",
        root.join("targets/cpp/xla_ffi_targets.cc").display()
    );
    // The directory: reruns when setup_xla_ffi_headers.sh creates it.
    println!("cargo:rerun-if-changed={}", root.join(".xla-ffi").display());
    let cpp = out.join("libhlox_cpp_ffi_targets.so");
    match compile_cpp(&root, &cpp) {
        Ok(()) => {
            println!("cargo:rustc-env=HLOX_CPP_FFI_TARGETS={}", cpp.display());
            println!("cargo:rustc-env=HLOX_CPP_FFI_ERROR=");
        }
        Err(e) => {
            let e = e.to_string();
            println!(
                "cargo:warning=hlox-targets: {}",
                e.lines().next().unwrap_or("")
            );
            println!("cargo:rustc-env=HLOX_CPP_FFI_TARGETS=");
            println!(
                "cargo:rustc-env=HLOX_CPP_FFI_ERROR={}",
                e.replace('\n', " ")
            );
        }
    }
    println!(
        "cargo:rerun-if-changed={}",
        root.join("targets/cpp/sandbox_targets.cc").display()
    );
    let sandbox = out.join("libhlox_sandbox_targets.so");
    match compile_sandbox_targets(&root, &sandbox) {
        Ok(()) => {
            println!("cargo:rustc-env=HLOX_SANDBOX_TARGETS={}", sandbox.display());
            println!("cargo:rustc-env=HLOX_SANDBOX_TARGETS_ERROR=");
        }
        Err(e) => {
            let e = e.to_string();
            println!(
                "cargo:warning=hlox-targets: {}",
                e.lines().next().unwrap_or("")
            );
            println!("cargo:rustc-env=HLOX_SANDBOX_TARGETS=");
            println!(
                "cargo:rustc-env=HLOX_SANDBOX_TARGETS_ERROR={}",
                e.replace('\n', " ")
            );
        }
    }
    let builds: [(&str, &str, &[&str]); 4] = [
        (
            "HLOX_C_TARGETS_REG",
            "libhlox_c_targets_reg.so",
            &["targets.c", "register.c"],
        ),
        (
            "HLOX_C_TARGETS_SYM",
            "libhlox_c_targets_sym.so",
            &["targets.c"],
        ),
        (
            "HLOX_C_TARGETS_BAD",
            "libhlox_c_targets_bad.so",
            &["targets.c", "bad_register.c"],
        ),
        (
            "HLOX_C_CUBE_RULES",
            "libhlox_c_cube_rules.so",
            &["cube_rules.c"],
        ),
    ];
    let mut errors = Vec::new();
    for (var, file, sources) in builds {
        let path = out.join(file);
        match compile(&cc, &root, &path, sources) {
            Ok(()) => println!("cargo:rustc-env={var}={}", path.display()),
            Err(e) => {
                println!("cargo:warning=hlox-targets: {e}");
                println!("cargo:rustc-env={var}=");
                errors.push(e.to_string());
            }
        }
    }
    println!(
        "cargo:rustc-env=HLOX_C_TARGETS_ERROR={}",
        errors.join(" | ").replace('\n', " ")
    );
}
