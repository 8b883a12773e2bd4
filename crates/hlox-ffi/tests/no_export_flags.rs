//! A program built without the linker flags of `.cargo/config.toml` does
//! not export XLA's status functions. Such a program is built here with
//! `rustc` against this crate's rlib: loading a C plugin that calls them is
//! refused with the fix, where calling the plugin directly kills the
//! process ("symbol lookup error"), which is what the refusal prevents.

use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = r#"
use std::ffi::{c_char, c_int, c_void};
extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
}
fn main() {
    let plugin = std::env::args().nth(1).unwrap();
    if std::env::args().nth(2).as_deref() == Some("call") {
        // What happened before: the plugin loads, and its first failure
        // calls XlaCustomCallStatusSetFailure, which nothing defines.
        let path = std::ffi::CString::new(plugin).unwrap();
        unsafe {
            let lib = dlopen(path.as_ptr(), 1 /* RTLD_LAZY */);
            assert!(!lib.is_null());
            let f = dlsym(lib, c"always_fails".as_ptr());
            assert!(!f.is_null());
            let f: extern "C" fn(*mut c_void, *const *const c_void, *mut c_void) = std::mem::transmute(f);
            let mut status = [0u64; 8];
            f(std::ptr::null_mut(), std::ptr::null(), status.as_mut_ptr() as *mut c_void);
        }
        println!("survived");
        return;
    }
    match hlox_ffi::Registry::new().load_library(&plugin) {
        Ok(_) => println!("loaded"),
        Err(e) => println!("refused: {e}"),
    }
}
"#;

/// This test binary's directory: `target/<profile>/deps`, where Cargo put
/// the rlibs it was linked with.
fn deps_dir() -> PathBuf {
    std::env::current_exe()
        .unwrap()
        .parent()
        .expect("the test binary lives in target/<profile>/deps")
        .to_path_buf()
}

/// Builds [`PROGRAM`] with `rustc` and no linker flags. The deps
/// directory can hold several `libhlox_ffi-*.rlib` (other profiles, older
/// builds): the newest that links wins.
fn build_program(dir: &Path) -> PathBuf {
    let deps = deps_dir();
    let mut rlibs: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&deps)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libhlox_ffi-") && n.ends_with(".rlib"))
        })
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
        .collect();
    rlibs.sort();
    assert!(
        !rlibs.is_empty(),
        "no libhlox_ffi-*.rlib in {}",
        deps.display()
    );
    let src = dir.join("main.rs");
    std::fs::write(&src, PROGRAM).unwrap();
    let exe = dir.join("no_export_flags");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let mut errors = Vec::new();
    for (_, rlib) in rlibs.iter().rev() {
        let o = Command::new(&rustc)
            .args(["--edition", "2021", "-C", "opt-level=0", "-o"])
            .arg(&exe)
            .arg(&src)
            .arg("--extern")
            .arg(format!("hlox_ffi={}", rlib.display()))
            .arg("-L")
            .arg(format!("dependency={}", deps.display()))
            // No RUSTFLAGS: nothing exports the status functions.
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .output()
            .unwrap_or_else(|e| panic!("cannot run {rustc}: {e}"));
        if o.status.success() {
            return exe;
        }
        errors.push(format!(
            "{}: {}",
            rlib.display(),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    panic!(
        "no libhlox_ffi rlib in {} links:\n{}",
        deps.display(),
        errors.join("\n")
    );
}

#[test]
fn a_program_without_the_export_flags_gets_the_fix_instead_of_a_crash() {
    let plugin = hlox_targets::C_PLUGIN_SYMBOLS_ONLY;
    assert!(!plugin.is_empty(), "{}", hlox_targets::C_BUILD_ERROR);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no_export_flags");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = build_program(&dir);
    let nm = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&exe)
        .output();
    if let Ok(nm) = nm {
        assert!(
            !String::from_utf8_lossy(&nm.stdout).contains("XlaCustomCallStatusSetFailure"),
            "the program exports the status function after all"
        );
    }
    // Without the check: the plugin's first failure kills the process.
    let o = Command::new(&exe).arg(plugin).arg("call").output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("symbol lookup error") && err.contains("XlaCustomCallStatus"),
        "{err}"
    );
    // With it: load_library refuses, and says how to link the program.
    let o = Command::new(&exe).arg(plugin).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        out.starts_with("refused: custom-call library ")
            && out
                .contains("-C link-arg=-Wl,--export-dynamic-symbol=XlaCustomCallStatusSetFailure"),
        "{out}"
    );
}
