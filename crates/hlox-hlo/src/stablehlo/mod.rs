//! StableHLO input: the MLIR text JAX writes (`jax.jit(f).lower(*args).as_text()`),
//! read and converted to HLO, the naga way: a front end (`syntax`: MLIR text
//! to a small syntax tree) and a lowering to the IR (`lower`, `chlo`).
//!
//! What is read and how it maps is in docs/stablehlo.md. Errors are
//! [`ParseError`]s with line and column; [`crate::load`] adds the file.

mod bytecode;
mod chlo;
pub mod export;
mod lower;
mod sdy;
mod syntax;
mod vhlo;

pub use bytecode::BytecodeError;

use crate::ir::Module;
use crate::text::ParseError;

/// Parses StableHLO MLIR text (pretty or generic op forms) into an HLO
/// module. The module is not yet verified ([`crate::load`] verifies it);
/// each instruction's declared type was checked against shape inference.
pub fn parse_module(src: &str) -> Result<Module, ParseError> {
    let m = syntax::Parser::new(src).module()?;
    lower::lower(&m, src)
}

/// Decodes MLIR bytecode holding a VHLO-versioned StableHLO module (a
/// portable artifact, what `jax.export` serializes) and writes it as
/// StableHLO MLIR text, the form [`parse_module`] reads: VHLO ops and
/// attributes become their StableHLO spelling (docs/stablehlo.md).
/// Plain (unversioned) bytecode is refused with what to do instead.
pub fn bytecode_to_text(bytes: &[u8]) -> Result<String, BytecodeError> {
    let bc = bytecode::read(bytes)?;
    if !bc.dialects.iter().any(|d| d == "vhlo") {
        return Err(BytecodeError {
            offset: 0,
            section: "dialect section",
            message: format!(
                "this bytecode (version {}, producer '{}', dialects {}) is not a VHLO portable artifact; \
                 hlox reads StableHLO bytecode in its versioned form: write it with \
                 `jax.export` (`Exported.serialize()`) or \
                 `stablehlo.serialize_portable_artifact`, or as MLIR text",
                bc.version,
                bc.producer,
                bc.dialects.join(", ")
            ),
        });
    }
    vhlo::to_stablehlo_text(&bc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::print_module;

    /// The same function in the pretty forms JAX prints and in MLIR's
    /// generic form: both lower to the same HLO.
    const PRETTY: &str = r#"module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {jax.arg_info = "x"}, %arg1: tensor<2x4xf32>) -> (tensor<f32> {jax.result_info = "result"}, tensor<2xf32>, tensor<4x2xf32>, tensor<2xf32>, tensor<4xi32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc3)
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.compare  GT, %arg0, %0,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %2 = stablehlo.add %arg0, %0 : tensor<4xf32>
    %3 = stablehlo.select %1, %2, %0 : tensor<4xi1>, tensor<4xf32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %5 = stablehlo.dot_general %arg1, %3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2xf32>
    %6 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %7 = stablehlo.slice %3 [1:3] : (tensor<4xf32>) -> tensor<2xf32>
    %8 = stablehlo.iota dim = 0 : tensor<4xi32>
    return %4, %5, %6, %7, %8 : tensor<f32>, tensor<2xf32>, tensor<4x2xf32>, tensor<2xf32>, tensor<4xi32>
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc3 = loc("f.py":3:4 to :20)
"#;

    const GENERIC: &str = r#"module @jit_f {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<2x4xf32>) -> (tensor<f32>, tensor<2xf32>, tensor<4x2xf32>, tensor<2xf32>, tensor<4xi32>) {
    %cst = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %0 = "stablehlo.broadcast_in_dim"(%cst) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %1 = "stablehlo.compare"(%arg0, %0) <{comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %2 = "stablehlo.add"(%arg0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %3 = "stablehlo.select"(%1, %2, %0) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %4 = "stablehlo.reduce"(%3, %cst) <{dimensions = array<i64: 0>}> ({
    ^bb0(%acc0: tensor<f32>, %x0: tensor<f32>):
      %r0 = "stablehlo.add"(%acc0, %x0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%r0) : (tensor<f32>) -> ()
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %5 = "stablehlo.dot_general"(%arg1, %3) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2xf32>
    %6 = "stablehlo.transpose"(%arg1) <{permutation = array<i64: 1, 0>}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %7 = "stablehlo.slice"(%3) <{start_indices = array<i64: 1>, limit_indices = array<i64: 3>, strides = array<i64: 1>}> : (tensor<4xf32>) -> tensor<2xf32>
    %8 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi32>
    "func.return"(%4, %5, %6, %7, %8) : (tensor<f32>, tensor<2xf32>, tensor<4x2xf32>, tensor<2xf32>, tensor<4xi32>) -> ()
  }
}
"#;

    #[test]
    fn pretty_and_generic_forms_lower_to_the_same_hlo() {
        let a = parse_module(PRETTY).unwrap_or_else(|e| panic!("{e}"));
        let b = parse_module(GENERIC).unwrap_or_else(|e| panic!("{e}"));
        crate::verifier::verify_module(&a).unwrap();
        assert_eq!(print_module(&a), print_module(&b));
        let text = print_module(&a);
        for op in [
            "compare(",
            "select(",
            "reduce(",
            "dot(",
            "transpose(",
            "slice(",
            "iota()",
            "broadcast(",
        ] {
            assert!(text.contains(op), "{op} missing in\n{text}");
        }
        assert_eq!(a.entry_computation().params.len(), 2);
        assert!(a.entry_computation().root_inst().shape.is_tuple());
    }

    /// `parse_module(src)`'s error: (line, column, message).
    fn error(src: &str) -> (usize, usize, String) {
        match parse_module(src) {
            Ok(_) => panic!("parsed:\n{src}"),
            Err(e) => (e.line, e.column, e.message),
        }
    }

    fn main_with(body: &str, args: &str, results: &str) -> String {
        format!(
            "module @m {{\n  func.func public @main({args}) -> ({results}) {{\n{body}\n  }}\n}}\n"
        )
    }

    #[test]
    fn errors_say_where_and_what() {
        let args = "%arg0: tensor<4xf32>";
        let cases: Vec<(String, (usize, usize), &str)> = vec![
            (
                main_with("    %0 = stablehlo.frob %arg0 : tensor<4xf32>\n    return %0 : tensor<4xf32>", args, "tensor<4xf32>"),
                (3, 10),
                "unsupported operation 'stablehlo.frob'",
            ),
            (
                main_with("    %0 = stablehlo.add %arg0, %nope : tensor<4xf32>\n    return %0 : tensor<4xf32>", args, "tensor<4xf32>"),
                (3, 31),
                "use of undefined value '%nope'",
            ),
            (
                main_with("    %0 = stablehlo.add %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>\n    return %0 : tensor<5xf32>", args, "tensor<5xf32>"),
                (3, 10),
                "declared shape f32[5]",
            ),
            (
                main_with("    return %arg0 : tensor<4xcomplex<i32>>", "%arg0: tensor<4xcomplex<i32>>", "tensor<4xcomplex<i32>>"),
                (2, 33),
                "complex element types are complex<f32> or complex<f64>",
            ),
            (
                main_with("    return %arg0 : tensor<?xf32>", "%arg0: tensor<?xf32>", "tensor<?xf32>"),
                (2, 40),
                "dynamic dimensions",
            ),
            (
                main_with("    %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<4xf32>\n    return %0 : tensor<4xf32>", args, "tensor<4xf32>"),
                (3, 29),
                "the literal has 3 elements",
            ),
            (
                main_with("    %0 = stablehlo.constant dense<(1.0, 2.0)> : tensor<f32>\n    return %0 : tensor<f32>", args, "tensor<f32>"),
                (3, 29),
                "a complex value is not a valid f32 element",
            ),
            (
                "module @m {\n  func.func @f() {\n".to_string(),
                (2, 18),
                "unclosed region",
            ),
            (
                main_with("    %0 = func.call @g(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n    return %0 : tensor<4xf32>", args, "tensor<4xf32>"),
                (3, 20),
                "undefined function '@g'",
            ),
            (
                main_with("    %0 = chlo.sinh %arg0 : tensor<4xi32> -> tensor<4xi32>\n    return %0 : tensor<4xi32>", "%arg0: tensor<4xi32>", "tensor<4xi32>"),
                (3, 10),
                "'chlo.sinh' on s32 is not supported (hlox expands it for f16, bf16, f32, f64, c64 and c128",
            ),
            (
                main_with("    %0 = chlo.erf_inv %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>\n    return %0 : tensor<4xcomplex<f32>>", "%arg0: tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>"),
                (3, 10),
                "'chlo.erf_inv' on c64 is not supported yet (hlox expands it for f16, bf16, f32 and f64)",
            ),
        ];
        for (src, (line, col), want) in cases {
            let (l, c, m) = error(&src);
            assert!(m.contains(want), "{m:?} lacks {want:?} for\n{src}");
            assert_eq!((l, c), (line, col), "{m}\n{src}");
        }
    }

    /// A comparator may use a constant of its function (copied into the
    /// comparator's computation, as XLA's import does), not another value.
    #[test]
    fn regions_copy_captured_constants_and_refuse_other_captures() {
        let sort = |captured: &str| {
            format!(
                r#"module @m {{
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> (tensor<4xf32>) {{
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.sort"(%arg0) <{{dimension = 0 : i64, is_stable = true}}> ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %1 = stablehlo.add %a, {captured} : tensor<f32>
      %2 = stablehlo.compare LT, %1, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    }}) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }}
}}
"#
            )
        };
        let m = parse_module(&sort("%cst")).unwrap_or_else(|e| panic!("{e}"));
        crate::verifier::verify_module(&m).unwrap();
        let text = print_module(&m);
        let region = text.split("\n\n").find(|c| c.contains("compare(")).unwrap();
        assert!(region.contains("constant(0)"), "{text}");
        let (line, col, msg) = error(&sort("%arg1"));
        assert_eq!((line, col), (4, 77), "{msg}");
        assert!(
            msg.contains("the comparator of 'stablehlo.sort' uses '%arg1' from outside; hlox supports this only for constants and for while, case and if"),
            "{msg}"
        );
    }

    /// A function returning values of other types than its signature
    /// declares is an error at its return (MLIR's verifier refuses it too);
    /// it ran before and printed the returned shape.
    #[test]
    fn a_return_that_disagrees_with_the_function_type_is_an_error() {
        let bad = "module {\n  func.func @main(%a: tensor<5x8xf32>) -> tensor<5x7xf32> {\n    %0 = stablehlo.add %a, %a : tensor<5x8xf32>\n    return %0 : tensor<5x8xf32>\n  }\n}\n";
        let (line, col, msg) = error(bad);
        assert_eq!((line, col), (4, 5), "{msg}");
        assert!(
            msg.contains("'@main' returns f32[5,8]") && msg.contains("declares f32[5,7]"),
            "{msg}"
        );
        let two = "module {\n  func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n    return %a : tensor<2xf32>\n  }\n}\n";
        let (_, _, msg) = error(two);
        assert!(
            msg.contains("returns 1 value(s) but its type declares 2"),
            "{msg}"
        );
        let good = "module {\n  func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n    return %a, %a : tensor<2xf32>, tensor<2xf32>\n  }\n}\n";
        assert!(parse_module(good).is_ok());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!(
            "module {{ func.func @main() -> tensor<f32> {{ %0 = stablehlo.constant dense<{}1.0> : tensor<f32>\n return %0 : tensor<f32> }} }}",
            "[".repeat(100_000)
        );
        assert!(error(&deep).2.contains("nesting deeper than"));
        let mut regions =
            String::from("module { func.func @main(%p: tensor<i32>) -> tensor<i32> {\n");
        for _ in 0..5000 {
            regions.push_str("%r = \"stablehlo.case\"(%p) ({\n");
        }
        assert!(error(&regions).2.contains("nesting deeper than"));
    }

    #[test]
    fn every_prefix_of_a_module_is_an_error_or_a_module() {
        let src = PRETTY;
        for end in (0..src.len()).filter(|&i| src.is_char_boundary(i)) {
            let _ = parse_module(&src[..end]);
        }
        let src = GENERIC;
        for end in (0..src.len()).filter(|&i| src.is_char_boundary(i)) {
            let _ = parse_module(&src[..end]);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// Any edit of a valid module parses or fails with an error: no panic, no hang.
        #[test]
        fn mutated_modules_never_panic(at in 0usize..2000, len in 0usize..8, with in "[\\[\\](){}<>%:=,x0-9a-z#@\"-]{0,6}") {
            for src in [PRETTY, GENERIC] {
                let at = (at % src.len()).min(src.len());
                let end = (at + len).min(src.len());
                if src.is_char_boundary(at) && src.is_char_boundary(end) {
                    let mutated = format!("{}{}{}", &src[..at], with, &src[end..]);
                    let _ = parse_module(&mutated);
                }
            }
        }
    }

    #[test]
    fn jax_export_artifact_header_is_read() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/stablehlo");
        let bytes = std::fs::read(dir.join("sin_add.jax_exported")).unwrap();
        let info = export::read_exported(&bytes).unwrap();
        assert_eq!(info.function_name, "f");
        assert_eq!(info.platforms, vec!["cpu".to_string()]);
        assert_eq!(info.nr_devices, 1);
        assert_eq!(info.calling_convention_version, 10);
        assert_eq!(info.in_shardings, vec![false, false]);
        assert_eq!(info.out_shardings, vec![false]);
        assert!(info.module_is_bytecode && info.module_is_vhlo, "{info:?}");
        assert!(
            info.module_producer.starts_with("StableHLO_v1."),
            "{info:?}"
        );
        // It loads: its VHLO bytecode decodes to the HLO its text gives.
        let m = crate::load::load_module(dir.join("sin_add.jax_exported"))
            .unwrap_or_else(|e| panic!("{e}"));
        let t =
            crate::load::load_module(dir.join("sin_add.mlir")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(print_module(&m), print_module(&t));
        let text = print_module(&m);
        for op in ["sine(", "multiply(", "add(", "constant(2)"] {
            assert!(text.contains(op), "{op} in\n{text}");
        }
        // An op hlox does not lower (`add_v1` renamed in the string table):
        // the error names the line of the decoded text and shows it.
        let at = bytes.windows(6).position(|w| w == b"add_v1").unwrap();
        let mut renamed = bytes.clone();
        renamed[at + 2] = b'x';
        let p = std::env::temp_dir().join(format!("hlox-renamed-{}.bin", std::process::id()));
        std::fs::write(&p, &renamed).unwrap();
        let e = crate::load::load_module(&p).unwrap_err().to_string();
        let _ = std::fs::remove_file(&p);
        assert!(
            e.starts_with(&format!(
                "{} (decoded from bytecode):7:11: unsupported operation 'stablehlo.adx'",
                p.display()
            )),
            "{e}"
        );
        assert!(e.contains("%v6 = \"stablehlo.adx\"(%v5, %v1)"), "{e}");
        // The bytecode alone (a portable artifact) loads the same, under any name.
        let (_, module) = export::exported_module(&bytes).unwrap();
        let p = std::env::temp_dir().join(format!("hlox-portable-{}.pb", std::process::id()));
        std::fs::write(&p, module).unwrap();
        let b = crate::load::load_module(&p).unwrap_or_else(|e| panic!("{e}"));
        let _ = std::fs::remove_file(&p);
        assert_eq!(print_module(&b), text);
        // Truncated or corrupt artifacts are errors, not panics.
        for n in 0..bytes.len() {
            let _ = export::read_exported(&bytes[..n]);
        }
        let mut bad = bytes.clone();
        for i in 0..bad.len() {
            bad[i] ^= 0x5a;
            let _ = export::read_exported(&bad);
            bad[i] ^= 0x5a;
        }
    }

    /// Every corpus artifact (`tests/corpus/*/exported.bin`, a
    /// `jax.export` artifact) reads into the same HLO as its module's text
    /// (`exported.mlir`, `deserialize(data).mlir_module()`).
    #[test]
    fn corpus_artifacts_read_as_their_text() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let mut n = 0;
        for d in std::fs::read_dir(&root).unwrap() {
            let d = d.unwrap().path();
            if !d.join("exported.bin").exists() {
                continue;
            }
            let m =
                crate::load::load_module(d.join("exported.bin")).unwrap_or_else(|e| panic!("{e}"));
            let t =
                crate::load::load_module(d.join("exported.mlir")).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(print_module(&m), print_module(&t), "{}", d.display());
            n += 1;
        }
        assert!(n >= 100, "only {n} artifacts");
    }

    /// Truncations and byte changes of real artifacts are errors with a
    /// byte offset, or modules: never a panic or a hang.
    #[test]
    fn damaged_artifacts_never_panic() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
        for f in [
            "stablehlo/sin_add.jax_exported",
            "corpus/while_loops/exported.bin",
            "corpus/conv2d/exported.bin",
        ] {
            let bytes = std::fs::read(root.join(f)).unwrap();
            let (_, module) = export::exported_module(&bytes).unwrap();
            let try_all = |m: &[u8]| {
                if let Ok(text) = bytecode_to_text(m) {
                    let _ = parse_module(&text);
                }
            };
            for n in 0..module.len() {
                match bytecode_to_text(&module[..n]) {
                    Err(e) => assert!(e.offset <= n, "{f}[..{n}]: {e}"),
                    Ok(_) => panic!("{f}: a truncation to {n} bytes read as a module"),
                }
            }
            let mut bad = module.to_vec();
            for i in 0..bad.len() {
                for x in [0x01u8, 0xff] {
                    bad[i] ^= x;
                    try_all(&bad);
                    bad[i] ^= x;
                }
            }
            // Random multi-byte damage (a fixed linear congruential sequence).
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            for _ in 0..1000 {
                let mut bad = module.to_vec();
                for _ in 0..4 {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let i = (seed >> 33) as usize % bad.len();
                    bad[i] = (seed >> 17) as u8;
                }
                try_all(&bad);
            }
            // The whole artifact, truncated: the flatbuffer or the module fails.
            for n in (0..bytes.len()).step_by(7) {
                if let Ok((_, m)) = export::exported_module(&bytes[..n]) {
                    let _ = bytecode_to_text(m);
                }
            }
        }
    }

    /// A truncated `jax.export` artifact (the file cut at every eighth of
    /// its length) is named a damaged binary file with what reading it as
    /// an artifact found, never parsed as HLO text.
    #[test]
    fn truncated_jax_export_artifact_says_so() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/stablehlo");
        let bytes = std::fs::read(dir.join("sin_add.jax_exported")).unwrap();
        let tmp = std::env::temp_dir().join(format!("hlox_trunc_{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        for eighth in 1..8 {
            let path = tmp.join(format!("cut{eighth}.jax_exported"));
            std::fs::write(&path, &bytes[..bytes.len() * eighth / 8]).unwrap();
            let msg = crate::load::load_module(&path).unwrap_err().to_string();
            assert!(
                msg.contains("cut") && !msg.contains("expected 'HloModule'"),
                "{eighth}/8: {msg}"
            );
            assert!(
                msg.contains("damaged or truncated") || msg.contains("jax.export artifact"),
                "{eighth}/8: {msg}"
            );
        }
        std::fs::remove_dir_all(&tmp).ok();
    }

    /// Plain (not VHLO) bytecode and bytecode of a newer version are refused
    /// with what to do.
    #[test]
    fn unsupported_bytecode_says_what_to_do() {
        let e = bytecode_to_text(b"ML\xefR\x0fX\x00").unwrap_err();
        assert_eq!((e.offset, e.section), (4, "header"), "{e}");
        assert!(
            e.message
                .contains("bytecode version 7 is newer than the newest hlox reads (6)"),
            "{e}"
        );
        // Plain bytecode of a corpus case (`module_to_bytecode`, see tests/corpus/README.md).
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/corpus/pow_edge_f32");
        let e = crate::load::load_module(root.join("plain.mlirbc")).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains(
                "MLIR bytecode byte 0 (dialect section): this bytecode (version 6, producer 'MLIR"
            ) && msg.contains("dialects builtin, func, stablehlo) is not a VHLO portable artifact"),
            "{msg}"
        );
        assert!(
            msg.contains("jax.export") && msg.contains("mlir_module()"),
            "{msg}"
        );
        let e = bytecode_to_text(b"XXXX").unwrap_err();
        assert!(e.message.contains("no ML\\xefR magic"), "{e}");
    }
}
