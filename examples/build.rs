//! Makes every Markdown file of the docs a doctest module of this crate
//! (README.md and each docs/*.md present at build time), so that each
//! ```rust block in them is compiled and run by `cargo test`. The other
//! blocks are checked by crates/hlox-cli/tests/doc_blocks.rs.

use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let root = Path::new(&manifest).parent().unwrap().to_path_buf();
    let docs = root.join("docs");
    // A directory: Cargo reruns this when any file under it changes or is added.
    println!("cargo:rerun-if-changed={}", docs.display());
    let mut files = vec!["README.md".to_string()];
    let mut names: Vec<String> = std::fs::read_dir(&docs)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    files.extend(names.into_iter().map(|n| format!("docs/{n}")));
    let mut out = String::new();
    for f in &files {
        let stem = Path::new(f).file_stem().unwrap().to_string_lossy();
        let module: String = stem
            .to_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let module = if f.starts_with("docs/") {
            format!("docs_{module}")
        } else {
            module
        };
        out.push_str(&format!(
            "#[doc = include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/../{f}\"))]\npub mod {module} {{}}\n"
        ));
    }
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("doc_modules.rs");
    std::fs::write(dest, out).unwrap();
}
