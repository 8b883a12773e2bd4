//! Builds the C example targets (targets/c) into shared libraries with the
//! system C compiler (`$CC`, else `cc`), `-shared -fPIC`, linked against
//! nothing: the status functions come from the process that loads them.
//! Paths reach the crate as env vars (HLOX_C_TARGETS_*); when the compiler
//! fails they are empty and HLOX_C_TARGETS_ERROR says why (tests then fail
//! with that message; building the Rust targets does not).

use std::path::{Path, PathBuf};
use std::process::Command;

fn compile(cc: &str, root: &Path, out: &Path, sources: &[&str]) -> Result<(), String> {
    let mut cmd = Command::new(cc);
    cmd.args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-std=c11"]);
    cmd.arg("-I").arg(root.join("targets/include"));
    for s in sources {
        cmd.arg(root.join("targets/c").join(s));
    }
    cmd.arg("-o").arg(out);
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run C compiler `{cc}`: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "`{cmd:?}` failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(())
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
        "targets/include/hlox/custom_call.h",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(f).display());
    }
    println!("cargo:rerun-if-env-changed=CC");
    let builds: [(&str, &str, &[&str]); 3] = [
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
    ];
    let mut errors = Vec::new();
    for (var, file, sources) in builds {
        let path = out.join(file);
        match compile(&cc, &root, &path, sources) {
            Ok(()) => println!("cargo:rustc-env={var}={}", path.display()),
            Err(e) => {
                println!("cargo:warning=hlox-targets: {e}");
                println!("cargo:rustc-env={var}=");
                errors.push(e);
            }
        }
    }
    println!(
        "cargo:rustc-env=HLOX_C_TARGETS_ERROR={}",
        errors.join(" | ").replace('\n', " ")
    );
}
