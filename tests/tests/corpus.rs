//! The JAX corpus (tests/corpus): every module JAX printed and serialized
//! parses, verifies, and round-trips through text and proto.

use hlox_hlo::text::{parse_module, print_module};
use hlox_hlo::verifier::verify_module;
use hlox_tests::corpus_cases;

/// Runs `check` on every case and reports all failures at once.
fn for_each_case(what: &str, check: impl Fn(&hlox_tests::CorpusCase) -> Result<(), String>) {
    let cases = corpus_cases();
    assert!(cases.len() >= 15, "corpus has only {} cases", cases.len());
    let failures: Vec<String> =
        cases.iter().filter_map(|c| check(c).err().map(|e| format!("{}: {e}", c.name))).collect();
    assert!(failures.is_empty(), "{what}: {} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn corpus_text_parses_verifies_and_prints_back_exactly() {
    for_each_case("text", |case| {
        let text = case.hlo_text();
        let m = parse_module(&text).map_err(|e| format!("parse: {e}"))?;
        verify_module(&m).map_err(|e| format!("verify: {e}"))?;
        let printed = print_module(&m);
        if printed.trim_end() != text.trim_end() {
            let (a, b): (Vec<_>, Vec<_>) = (text.lines().collect(), printed.lines().collect());
            let i = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            return Err(format!(
                "print(parse(t)) != t at line {}:\n  jax:  {}\n  hlox: {}",
                i + 1,
                a.get(i).unwrap_or(&"<eof>"),
                b.get(i).unwrap_or(&"<eof>")
            ));
        }
        let reparsed = parse_module(&printed).map_err(|e| format!("reparse: {e}"))?;
        if reparsed != m {
            return Err("parse(print(m)) != m".into());
        }
        Ok(())
    });
}
