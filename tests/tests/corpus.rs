//! The JAX corpus (tests/corpus): every module JAX printed and serialized
//! parses, verifies, and round-trips through text and proto.

use hlox_hlo::text::{parse_module, print_module};
use hlox_hlo::verifier::verify_module;
use hlox_tests::corpus_cases;

/// Runs `check` on every case and reports all failures at once.
fn for_each_case(what: &str, check: impl Fn(&hlox_tests::CorpusCase) -> Result<(), String>) {
    let cases = corpus_cases();
    assert!(cases.len() >= 15, "corpus has only {} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| check(c).err().map(|e| format!("{}: {e}", c.name)))
        .collect();
    assert!(
        failures.is_empty(),
        "{what}: {} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
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
            let i = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
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

/// The module with metadata cleared: HLO text from JAX omits what the proto carries.
fn without_metadata(mut m: hlox_hlo::Module) -> hlox_hlo::Module {
    for comp in m.computations.values_mut() {
        for inst in comp.instructions.values_mut() {
            inst.metadata = Default::default();
        }
    }
    m
}

#[test]
fn corpus_proto_decodes_to_the_text_module_and_round_trips() {
    use hlox_hlo::proto::{decode_module, encode_module};
    for_each_case("proto", |case| {
        let bytes = std::fs::read(case.pb_path()).map_err(|e| e.to_string())?;
        let from_pb = decode_module(&bytes).map_err(|e| format!("decode: {e}"))?;
        verify_module(&from_pb).map_err(|e| format!("verify: {e}"))?;
        let from_text = parse_module(&case.hlo_text()).map_err(|e| format!("parse: {e}"))?;
        if without_metadata(from_pb.clone()) != without_metadata(from_text) {
            return Err("decode(module.pb) differs from parse(module.hlo)".into());
        }
        let again =
            decode_module(&encode_module(&from_pb)).map_err(|e| format!("re-decode: {e}"))?;
        if again != from_pb {
            return Err("decode(encode(m)) != m".into());
        }
        // Our text of the decoded proto is JAX's text (which omits metadata).
        if print_module(&without_metadata(from_pb)).trim_end() != case.hlo_text().trim_end() {
            return Err("print(decode(pb)) != module.hlo".into());
        }
        Ok(())
    });
}

#[test]
fn corpus_evaluates_to_jax_outputs() {
    for_each_case("evaluate", |case| {
        let m = parse_module(&case.hlo_text()).map_err(|e| format!("parse: {e}"))?;
        let args = case.inputs()?;
        let result = hlox_eval::evaluate_with_registry(&m, &args, &hlox_tests::registry_for(case));
        let got = result.map_err(|e| format!("evaluate: {e}"))?;
        case.check_outputs(got)?;
        Ok(())
    });
}

/// That `m` (read from MLIR) has the entry signature of `hlo` (the case's
/// module.hlo), layouts aside: XLA gives some entry results a layout of its
/// own choosing (a transpose's), which MLIR does not carry.
fn same_signature(m: &hlox_hlo::Module, hlo: &hlox_hlo::Module) -> Result<(), String> {
    let (a, b) = (m.entry_computation_layout(), hlo.entry_computation_layout());
    let plain = |v: &[hlox_hlo::Shape]| -> Vec<hlox_hlo::Shape> {
        v.iter().map(|s| s.with_default_layout()).collect()
    };
    if plain(&a.parameters) != plain(&b.parameters)
        || a.result.with_default_layout() != b.result.with_default_layout()
    {
        return Err(format!(
            "entry signature {:?} -> {:?} differs from module.hlo's {:?} -> {:?}",
            a.parameters, a.result, b.parameters, b.result
        ));
    }
    Ok(())
}

/// Every case's StableHLO text (`module.mlir`, JAX's default `as_text()`,
/// written by scripts/gen_stablehlo_corpus.py from the same lowering as
/// `module.hlo`) loads through `hlox_hlo::load` (converted to HLO and
/// verified), has the HLO module's entry signature, and evaluates to JAX's
/// recorded outputs, within the same tolerances as the HLO text path.
#[test]
fn corpus_stablehlo_loads_and_evaluates_to_jax_outputs() {
    for_each_case("stablehlo", |case| {
        let path = case.dir.join("module.mlir");
        let m = hlox_hlo::load::load_module(&path).map_err(|e| format!("load: {e}"))?;
        let hlo = parse_module(&case.hlo_text()).map_err(|e| format!("parse: {e}"))?;
        same_signature(&m, &hlo)?;
        // The converted module prints and parses back as HLO text.
        let printed = print_module(&m);
        let reparsed = parse_module(&printed).map_err(|e| format!("reparse: {e}"))?;
        verify_module(&reparsed).map_err(|e| format!("verify reparsed: {e}"))?;
        let args = case.inputs()?;
        let got = hlox_eval::evaluate_with_registry(&m, &args, &hlox_tests::registry_for(case))
            .map_err(|e| format!("evaluate: {e}"))?;
        case.check_outputs(got)?;
        Ok(())
    });
}

/// Every case's serialized `jax.export` artifact (`exported.bin`: the
/// module as VHLO-versioned MLIR bytecode, written by
/// `scripts/gen_stablehlo_corpus.py --artifacts` from the same function and
/// inputs) loads through `hlox_hlo::load`, has the HLO module's entry
/// signature and evaluates to JAX's recorded outputs. The one case JAX
/// cannot export (multidevice: several devices) has none; any other missing
/// artifact fails.
#[test]
fn corpus_jax_export_artifacts_evaluate_to_jax_outputs() {
    let count = std::cell::Cell::new(0);
    for_each_case("jax.export artifact", |case| {
        let path = case.dir.join("exported.bin");
        if !path.exists() {
            return match case.name.as_str() {
                "multidevice" => Ok(()),
                _ => {
                    Err("no exported.bin (run scripts/gen_stablehlo_corpus.py --artifacts)".into())
                }
            };
        }
        count.set(count.get() + 1);
        let m = hlox_hlo::load::load_module(&path).map_err(|e| format!("load: {e}"))?;
        let hlo = parse_module(&case.hlo_text()).map_err(|e| format!("parse: {e}"))?;
        same_signature(&m, &hlo)?;
        let args = case.inputs()?;
        let got = hlox_eval::evaluate_with_registry(&m, &args, &hlox_tests::registry_for(case))
            .map_err(|e| format!("evaluate: {e}"))?;
        case.check_outputs(got)?;
        Ok(())
    });
    assert!(count.get() >= 100, "only {} artifacts", count.get());
}

/// A `jax.export` artifact (tests/stablehlo, scripts/gen_jax_export_artifact.py)
/// and its text (`exported.mlir_module()`) load to the same module and
/// evaluate to the artifact's recorded output.
#[test]
fn jax_export_module_text_evaluates_to_its_output() {
    let dir = hlox_tests::workspace_root().join("tests/stablehlo");
    let m = hlox_hlo::load::load_module(dir.join("sin_add.mlir")).unwrap_or_else(|e| panic!("{e}"));
    let read = |n: &str| hlox_hlo::npy::read_npy_file(dir.join(n)).unwrap();
    let args = [read("in0.npy"), read("in1.npy")];
    let got = hlox_eval::evaluate_with_registry(&m, &args, &hlox_ffi::Registry::new()).unwrap();
    let (got, want) = (
        got.to_vec::<f32>().unwrap(),
        read("out0.npy").to_vec::<f32>().unwrap(),
    );
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
            "{got:?} vs {want:?}"
        );
    }
    let a = hlox_hlo::load::load_module(dir.join("sin_add.jax_exported"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(print_module(&a), print_module(&m));
}

/// StableHLO with complex values and every FFT kind, as JAX prints it
/// (scripts/gen_stablehlo_complex_case.py): `complex<f32>` reads as c64,
/// `stablehlo.fft`/`real`/`imag`/`complex` lower to HLO's ops, and the
/// evaluator matches JAX's outputs.
#[test]
fn stablehlo_complex_and_fft_evaluate_to_jax_outputs() {
    let dir = hlox_tests::workspace_root().join("tests/stablehlo/complex_fft");
    let m = hlox_hlo::load::load_module(dir.join("module.mlir")).unwrap_or_else(|e| panic!("{e}"));
    let text = hlox_hlo::text::print_module(&m);
    for op in [
        "fft_type=FFT",
        "fft_type=RFFT",
        "fft_type=IRFFT",
        "fft_type=IFFT",
        " real(",
        " imag(",
        " complex(",
    ] {
        assert!(text.contains(op), "{op} in\n{text}");
    }
    let read = |n: String| hlox_hlo::npy::read_npy_file(dir.join(n)).unwrap();
    let args: Vec<_> = (0..3).map(|i| read(format!("in{i}.npy"))).collect();
    let got = hlox_eval::evaluate_with_registry(&m, &args, &hlox_ffi::Registry::new())
        .unwrap_or_else(|e| panic!("{e}"))
        .into_leaves();
    assert_eq!(got.len(), 8);
    for (i, g) in got.iter().enumerate() {
        let want = read(format!("out{i}.npy"));
        hlox_tests::compare_literals(g, &want, 1e-5, 1e-5)
            .unwrap_or_else(|e| panic!("output {i}: {e}"));
    }
}
