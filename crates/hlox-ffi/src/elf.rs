//! What a plugin file's dynamic section says, read before the library is
//! loaded: the functions it exports (to suggest a symbol for a missing
//! target), the symbols it expects the loading program to provide (XLA's
//! status functions and `XLA_FFI_GetApi`, which a program built without the
//! linker flags of `.cargo/config.toml` does not export), and the libraries
//! it needs (which may provide them instead).

use object::read::elf::ElfFile64;
use object::{Endianness, Object, ObjectSymbol, SymbolKind};
use std::ffi::c_void;
use std::path::{Path, PathBuf};

/// The functions of XLA's C API that a plugin calls in the program that
/// loads it. The program must export them dynamically (hlox's
/// `.cargo/config.toml` passes `--export-dynamic-symbol` for each).
pub const PROCESS_SYMBOLS: [&str; 3] = [
    "XlaCustomCallStatusSetSuccess",
    "XlaCustomCallStatusSetFailure",
    "XLA_FFI_GetApi",
];

/// The dynamic-linking facts of one ELF shared library.
#[derive(Clone, Debug, Default)]
pub(crate) struct DynamicInfo {
    /// Functions it defines and exports (dynamic symbol table), sorted.
    pub exports: Vec<String>,
    /// [`PROCESS_SYMBOLS`] it references without defining.
    pub imports: Vec<&'static str>,
    /// `DT_NEEDED`.
    pub needed: Vec<String>,
    /// `DT_RUNPATH`, else `DT_RPATH`, with `$ORIGIN` replaced by the file's directory.
    pub search_path: Vec<PathBuf>,
}

/// Reads `path`'s dynamic section. `None` when it is not a 64-bit ELF file
/// (then nothing is checked before loading, and `dlopen` says what is wrong).
pub(crate) fn read(path: &Path) -> Option<DynamicInfo> {
    let data = std::fs::read(path).ok()?;
    let file = ElfFile64::<Endianness>::parse(&*data).ok()?;
    let mut info = DynamicInfo::default();
    for sym in file.dynamic_symbols() {
        let Ok(name) = sym.name() else { continue };
        if sym.is_undefined() {
            if let Some(p) = PROCESS_SYMBOLS.iter().find(|p| **p == name) {
                info.imports.push(p);
            }
        } else if sym.is_definition() && sym.is_global() && sym.kind() == SymbolKind::Text {
            info.exports.push(name.to_string());
        }
    }
    // In PROCESS_SYMBOLS' order, not the file's.
    info.imports
        .sort_by_key(|s| PROCESS_SYMBOLS.iter().position(|p| p == s));
    info.exports.sort();
    info.exports.dedup();
    let origin = path
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let (mut runpath, mut rpath) = (None, None);
    if let Ok(table) = file.elf_dynamic_table() {
        for d in table.iter() {
            let Ok(s) = table.string(d) else { continue };
            let s = String::from_utf8_lossy(s).into_owned();
            match d.tag {
                object::elf::DT_NEEDED => info.needed.push(s),
                object::elf::DT_RUNPATH => runpath = Some(s),
                object::elf::DT_RPATH => rpath = Some(s),
                _ => {}
            }
        }
    }
    if let Some(dirs) = runpath.or(rpath) {
        let origin = origin.to_string_lossy();
        info.search_path = dirs
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| PathBuf::from(d.replace("${ORIGIN}", &origin).replace("$ORIGIN", &origin)))
            .collect();
    }
    Some(info)
}

/// Whether the program exports `name` where a library it loads will find
/// it: in the global scope (`dlsym` on the program's own handle).
pub(crate) fn process_exports(name: &str) -> bool {
    let this = libloading::os::unix::Library::this();
    // SAFETY: only the address is read.
    unsafe { this.get::<*mut c_void>(name.as_bytes()) }.is_ok_and(|s| !s.is_null())
}

/// Of `info.imports`, those that neither the program (`process_has`) nor
/// one of the library's own dependencies provides: what a call would fail
/// to resolve ("symbol lookup error", which kills the process).
///
/// Dependencies are consulted only when the program lacks a symbol (the
/// rare case): each is opened as the dynamic loader would find it (the
/// library's run path, then the usual search) and asked for the symbol; the
/// handles are returned so that they stay loaded until the library itself
/// is. A dependency that cannot be opened is taken to provide nothing
/// (loading the library would fail on it anyway, with its own message).
pub(crate) fn unresolved_imports(
    info: &DynamicInfo,
    process_has: &dyn Fn(&str) -> bool,
) -> (Vec<&'static str>, Vec<libloading::Library>) {
    let missing: Vec<&'static str> = info
        .imports
        .iter()
        .copied()
        .filter(|s| !process_has(s))
        .collect();
    if missing.is_empty() {
        return (missing, Vec::new());
    }
    let mut deps = Vec::new();
    for needed in &info.needed {
        let candidates = info
            .search_path
            .iter()
            .map(|d| d.join(needed))
            .filter(|p| p.exists())
            .chain(std::iter::once(PathBuf::from(needed)));
        for c in candidates {
            // SAFETY: the library would load this dependency itself in a
            // moment; loading it first runs the same initialisers.
            if let Ok(lib) = unsafe { libloading::Library::new(&c) } {
                deps.push(lib);
                break;
            }
        }
    }
    let missing = missing
        .into_iter()
        .filter(|s| {
            !deps.iter().any(|d| {
                // SAFETY: only the address is read.
                unsafe { d.get::<*mut c_void>(s.as_bytes()) }.is_ok_and(|p| !p.is_null())
            })
        })
        .collect();
    (missing, deps)
}

/// Up to `n` of `exports` closest to the target name `name`: compared in
/// lower case without `_` and `-` (so `leaky_relu` finds `LeakyRelu` and
/// `LeakyReluFfi`), by edit distance, or containing one another.
pub(crate) fn closest_symbols(name: &str, exports: &[String], n: usize) -> Vec<String> {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let want = norm(name);
    if want.is_empty() {
        return Vec::new();
    }
    let limit = (want.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &String)> = exports
        .iter()
        .filter_map(|e| {
            let got = norm(e);
            let d = crate::registry::levenshtein(&want, &got);
            let contains =
                want.len() >= 3 && got.len() >= 3 && (got.contains(&want) || want.contains(&got));
            (d <= limit || contains).then_some((d, e))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(n).map(|(_, e)| e.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_symbols_ignore_case_and_separators() {
        let exports: Vec<String> = [
            "LeakyRelu",
            "LeakyReluFfi",
            "Softmax",
            "do_custom_call",
            "r",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            closest_symbols("leaky_relu", &exports, 3),
            ["LeakyRelu", "LeakyReluFfi"]
        );
        assert_eq!(closest_symbols("softmx", &exports, 3), ["Softmax"]);
        assert_eq!(
            closest_symbols("custom_call", &exports, 3),
            ["do_custom_call"]
        );
        assert!(closest_symbols("matmul", &exports, 3).is_empty());
        assert!(closest_symbols("", &exports, 3).is_empty());
    }
}
