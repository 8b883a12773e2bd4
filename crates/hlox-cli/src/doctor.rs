//! `hlox doctor MODULE [--plugin LIB]...`: for every custom call of a
//! module, which library and symbol serve it, its api_version, how the
//! binding was checked, and every problem found, before anything runs.

use crate::Platform;
use anyhow::Result;
use hlox_ffi::{Origin, Target};
use hlox_hlo::{CustomCallApiVersion, Op};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The shared object and symbol that hold `addr` (`dladdr`), if the
/// dynamic linker knows them.
fn symbol_of(addr: usize) -> (Option<PathBuf>, Option<String>) {
    if addr == 0 {
        return (None, None);
    }
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address; `info` is a valid out-pointer.
    if unsafe { libc::dladdr(addr as *const libc::c_void, &mut info) } == 0 {
        return (None, None);
    }
    let cstr = |p: *const libc::c_char| {
        // SAFETY: dladdr's strings are NUL-terminated and live as long as the object.
        (!p.is_null()).then(|| {
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_string_lossy()
                .into_owned()
        })
    };
    let exact = info.dli_saddr as usize == addr;
    (
        cstr(info.dli_fname).map(PathBuf::from),
        cstr(info.dli_sname).filter(|_| exact),
    )
}

/// How the binding of a target to a call was checked.
fn how_checked(t: &Target, requested: CustomCallApiVersion) -> String {
    match (&t.origin, t.signature) {
        (Origin::Symbol(_), _) if requested == CustomCallApiVersion::TypedFfi => {
            "typed-FFI metadata (the symbol answered XLA's metadata query as a handler)".into()
        }
        (Origin::Symbol(_), _) => format!(
            "unchecked plain symbol (trusted to implement {}, as XLA does)",
            requested.name()
        ),
        (_, Some(sig)) => format!("registered signature ({})", sig.api_version.name()),
        (_, None) => "unchecked (no recorded signature)".into(),
    }
}

pub fn doctor(
    file: &Path,
    plugins: &crate::commands::Plugins<'_>,
    platform: Platform,
) -> Result<()> {
    let m = hlox_hlo::load::load_module(file)?;
    let registry = plugins.registry(platform)?;
    let platform = match platform {
        Platform::Host => hlox_ffi::Platform::Host,
        Platform::Cuda => hlox_ffi::Platform::Cuda,
    };
    // Binding reports every problem of the module (missing targets with the
    // closest names, api_version mismatches, bad typed-FFI attributes, ...).
    let problems: Vec<String> = match registry.bind(&m, platform) {
        Ok(_) => Vec::new(),
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect(),
    };
    let mut out = std::io::stdout().lock();
    let mut calls = 0;
    for comp in m.computations.values() {
        for inst in comp.instructions.values() {
            let Op::CustomCall(call) = &inst.op else {
                continue;
            };
            calls += 1;
            writeln!(
                out,
                "{}/{}: custom-call \"{}\" ({}, {platform})",
                comp.name,
                inst.name,
                call.target,
                call.api_version.name()
            )?;
            let mine: Vec<&String> = problems
                .iter()
                .filter(|p| p.starts_with(&format!("instruction {}:", inst.name)))
                .collect();
            match registry.lookup(&call.target, platform) {
                Some(t) => {
                    let addr = t.func.addr();
                    let (object, symbol) = symbol_of(addr);
                    let library = t
                        .library()
                        .map(|l| l.path().to_path_buf())
                        .or(object)
                        .map_or_else(|| "(unknown)".to_string(), |p| p.display().to_string());
                    writeln!(out, "  served by: {library}")?;
                    writeln!(
                        out,
                        "  symbol:    {} at {addr:#x}",
                        symbol.as_deref().unwrap_or("(no exported symbol)")
                    )?;
                    writeln!(out, "  found by:  {}", t.origin)?;
                    let registered = t.signature.map_or_else(
                        || "none recorded".to_string(),
                        |s| s.api_version.name().to_string(),
                    );
                    writeln!(
                        out,
                        "  api_version: the call asks for {}, the target is {registered}",
                        call.api_version.name()
                    )?;
                    writeln!(out, "  checked:   {}", how_checked(&t, call.api_version))?;
                }
                None => writeln!(out, "  served by: nothing")?,
            }
            if mine.is_empty() {
                writeln!(out, "  problems:  none")?;
            } else {
                for p in &mine {
                    writeln!(out, "  problem:   {p}")?;
                }
            }
        }
    }
    if calls == 0 {
        writeln!(out, "{}: no custom calls", file.display())?;
    }
    if !problems.is_empty() {
        anyhow::bail!(
            "{}: {} problem(s) with its custom calls (listed above); nothing was run",
            file.display(),
            problems.len()
        );
    }
    Ok(())
}
