//! Loading and saving modules from files: HLO text (`.hlo`, `.txt`),
//! binary HloModuleProto (`.pb`), StableHLO MLIR text (`.mlir`, or any
//! text file whose first token is MLIR's), StableHLO portable artifacts
//! (VHLO MLIR bytecode, `ML\xefR`) and serialized `jax.export` artifacts,
//! chosen by extension and content. Every loaded module is verified.

use crate::ir::Module;
use std::path::{Path, PathBuf};

/// The on-disk formats of a module.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ModuleFormat {
    /// HLO text.
    Text,
    /// Binary serialized `HloModuleProto`.
    Proto,
    /// StableHLO MLIR text (read only).
    StableHlo,
}

impl ModuleFormat {
    /// `.pb` and `.binpb` are protos, `.mlir` StableHLO; everything else is
    /// text (HLO, or StableHLO by its first token).
    pub fn from_path(path: &Path) -> ModuleFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("pb") | Some("binpb") => ModuleFormat::Proto,
            Some("mlir") => ModuleFormat::StableHlo,
            _ => ModuleFormat::Text,
        }
    }
}

/// Why a module could not be loaded or saved.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Displays as `FILE:LINE:COL: message`, the line, and a caret.
    #[error("{error}")]
    Parse {
        path: PathBuf,
        error: crate::text::ParseError,
    },
    #[error("{path}: not a valid HloModuleProto: {error}")]
    Proto {
        path: PathBuf,
        error: crate::proto::ProtoError,
    },
    #[error("{path}: the module does not verify:\n{error}")]
    Verify {
        path: PathBuf,
        error: crate::verifier::VerifyError,
    },
    /// The file is MLIR bytecode that hlox cannot read: plain (not
    /// VHLO-versioned) bytecode, or a malformed or unsupported one; the error
    /// names the byte offset and section.
    #[error("{path}: cannot read this StableHLO bytecode: {error}; {BYTECODE_HINT}")]
    StableHlo {
        path: PathBuf,
        error: crate::stablehlo::BytecodeError,
    },
    /// A binary file none of the readers recognizes (named without `.pb`):
    /// not MLIR bytecode, and not a readable `jax.export` artifact either.
    #[error(
        "{path}: a binary file hlox does not recognize: not HLO or MLIR text, not StableHLO \
         bytecode, and not a readable jax.export artifact ({export_error}). If it is an \
         HloModuleProto, name it `.pb`; if it is a jax.export artifact \
         (`Exported.serialize()`), it is damaged or truncated: write it again"
    )]
    Unrecognized { path: PathBuf, export_error: String },
    /// The file is a serialized `jax.export` artifact whose module cannot be
    /// read (what the artifact records, then why).
    #[error(
        "{path}: this is a serialized jax.export artifact ({info}); its module cannot be read: \
             {error}; {BYTECODE_HINT}"
    )]
    JaxExport {
        path: PathBuf,
        info: Box<crate::stablehlo::export::ExportedInfo>,
        error: crate::stablehlo::BytecodeError,
    },
}

/// What to do with MLIR bytecode hlox cannot read: write the text form.
pub const BYTECODE_HINT: &str = "write the module as MLIR text and load that `.mlir` file: \
     `jax.export.deserialize(data).mlir_module()` for an artifact, \
     `jax.jit(f).lower(*args).as_text()` for a function";

/// What to do with StableHLO given to the HLO text parser: load it as a
/// file (which converts it), or have JAX write HLO.
pub const STABLEHLO_HINT: &str =
    "load it from a file instead (`hlox_hlo::load::load_module`, any `hlox` command, \
     `hlox.load`), which converts StableHLO to HLO, \
     or write HLO text with `jax.jit(f).lower(*args).as_text(dialect='hlo')`, \
     or an HloModuleProto (.pb) with \
     `jax.jit(f).lower(*args).compiler_ir('hlo').as_serialized_hlo_module_proto()`";

/// The two forms of an MLIR file.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum MlirForm {
    /// Textual MLIR: `module @jit_f attributes {...} {`, `func.func`, `stablehlo.add`, ...
    Text,
    /// MLIR bytecode (starts with the magic `ML\xefR`), as `jax.export` serializes.
    Bytecode,
}

impl std::fmt::Display for MlirForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MlirForm::Text => "MLIR text",
            MlirForm::Bytecode => "MLIR bytecode",
        })
    }
}

/// Whether `bytes` are MLIR rather than HLO: bytecode by its magic number,
/// text by its first token after blank lines and `//` comments (`module`,
/// `func.func`, a `stablehlo.`/`mhlo.` operation, a `#loc` alias, or a
/// generic `"builtin.module"`). HLO text starts with `HloModule` and a
/// serialized HloModuleProto with a protobuf tag byte, so neither is taken
/// for MLIR.
pub fn detect_mlir(bytes: &[u8]) -> Option<MlirForm> {
    mlir_start(bytes).map(|(form, _)| form)
}

/// [`detect_mlir`], with the byte offset of the first MLIR token.
pub(crate) fn mlir_start(bytes: &[u8]) -> Option<(MlirForm, usize)> {
    if bytes.starts_with(b"ML\xefR") {
        return Some((MlirForm::Bytecode, 0));
    }
    let head = &bytes[..bytes.len().min(4096)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_start();
        let at = offset + (line.len() - body.len());
        offset += line.len();
        let first = body.trim_end();
        if first.is_empty() || first.starts_with("//") {
            continue;
        }
        let word_is = |w: &str| {
            first.strip_prefix(w).is_some_and(|rest| {
                rest.is_empty() || rest.starts_with([' ', '\t', '@', '{', '(', '<'])
            })
        };
        let mlir = word_is("module")
            || word_is("func.func")
            || word_is("\"builtin.module\"")
            || first.starts_with("stablehlo.")
            || first.starts_with("mhlo.")
            || first.starts_with("#loc");
        return mlir.then_some((MlirForm::Text, at));
    }
    None
}

/// Parses HLO text, or StableHLO MLIR text by its first token, and verifies it.
pub fn parse_and_verify(src: &str, path: &Path) -> Result<Module, LoadError> {
    if let Some(m) = load_if_mlir(src.as_bytes(), path) {
        return m;
    }
    let m = crate::text::parse_module(src).map_err(|error| LoadError::Parse {
        path: path.to_owned(),
        error: error.with_file(path.display().to_string()),
    })?;
    verify(m, path)
}

/// Parses StableHLO MLIR text, converts it to HLO and verifies it.
pub fn parse_stablehlo_and_verify(src: &str, path: &Path) -> Result<Module, LoadError> {
    let m = crate::stablehlo::parse_module(src).map_err(|error| LoadError::Parse {
        path: path.to_owned(),
        error: error.with_file(path.display().to_string()),
    })?;
    verify(m, path)
}

/// Decodes a serialized HloModuleProto and verifies it.
pub fn decode_and_verify(bytes: &[u8], path: &Path) -> Result<Module, LoadError> {
    if let Some(m) = load_if_mlir(bytes, path) {
        return m;
    }
    let m = crate::proto::decode_module(bytes).map_err(|error| LoadError::Proto {
        path: path.to_owned(),
        error,
    })?;
    verify(m, path)
}

/// Content that is MLIR whatever the caller expected: StableHLO text and
/// portable artifacts are converted; `None` for anything else.
fn load_if_mlir(bytes: &[u8], path: &Path) -> Option<Result<Module, LoadError>> {
    Some(match detect_mlir(bytes)? {
        MlirForm::Text => parse_stablehlo_and_verify(&String::from_utf8_lossy(bytes), path),
        MlirForm::Bytecode => parse_bytecode_and_verify(bytes, path),
    })
}

/// Reads StableHLO bytecode (a VHLO portable artifact), converts it to HLO
/// through its StableHLO text and verifies it. An error in that text (an
/// op hlox does not lower, say) names its line in the decoded text and
/// shows it, under the file's name with `(decoded from bytecode)`.
pub fn parse_bytecode_and_verify(bytes: &[u8], path: &Path) -> Result<Module, LoadError> {
    let text = crate::stablehlo::bytecode_to_text(bytes).map_err(|error| LoadError::StableHlo {
        path: path.to_owned(),
        error,
    })?;
    parse_decoded_text(&text, path)
}

fn parse_decoded_text(text: &str, path: &Path) -> Result<Module, LoadError> {
    let m = crate::stablehlo::parse_module(text).map_err(|error| LoadError::Parse {
        path: path.to_owned(),
        error: error.with_file(format!("{} (decoded from bytecode)", path.display())),
    })?;
    verify(m, path)
}

/// Reads a serialized `jax.export` artifact: its module (VHLO bytecode)
/// converted to HLO and verified. What the artifact records besides
/// (platforms, shardings) is [`crate::stablehlo::export::read_exported`]'s.
pub fn parse_exported_and_verify(bytes: &[u8], path: &Path) -> Result<Module, LoadError> {
    let (info, module) =
        crate::stablehlo::export::exported_module(bytes).map_err(|e| LoadError::StableHlo {
            path: path.to_owned(),
            error: crate::stablehlo::BytecodeError {
                offset: 0,
                section: "the jax.export flatbuffer around it",
                message: e.to_string(),
            },
        })?;
    let text =
        crate::stablehlo::bytecode_to_text(module).map_err(|error| LoadError::JaxExport {
            path: path.to_owned(),
            info: Box::new(info),
            error,
        })?;
    parse_decoded_text(&text, path)
}

/// A name (a module's, an instruction's) made safe as part of a file name:
/// each character but ASCII letters, digits, `-`, `_` and `.` becomes `_`.
pub fn file_name_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn verify(m: Module, path: &Path) -> Result<Module, LoadError> {
    crate::verifier::verify_module(&m).map_err(|error| LoadError::Verify {
        path: path.to_owned(),
        error,
    })?;
    Ok(m)
}

/// Reads a module file (format by extension), parses or decodes it, and verifies it.
pub fn load_module(path: impl AsRef<Path>) -> Result<Module, LoadError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Read {
        path: path.to_owned(),
        source,
    })?;
    if detect_mlir(&bytes).is_none() && crate::stablehlo::export::is_exported(&bytes) {
        return parse_exported_and_verify(&bytes, path);
    }
    let format = ModuleFormat::from_path(path);
    match (format, detect_mlir(&bytes)) {
        (_, Some(MlirForm::Bytecode)) => parse_bytecode_and_verify(&bytes, path),
        (ModuleFormat::Proto, _) => decode_and_verify(&bytes, path),
        (ModuleFormat::StableHlo, _) | (_, Some(MlirForm::Text)) => {
            parse_stablehlo_and_verify(&String::from_utf8_lossy(&bytes), path)
        }
        (ModuleFormat::Text, None) if is_binary(&bytes) => Err(LoadError::Unrecognized {
            path: path.to_owned(),
            export_error: crate::stablehlo::export::read_exported(&bytes)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_else(|| "it records no readable module".into()),
        }),
        (ModuleFormat::Text, None) => parse_and_verify(&String::from_utf8_lossy(&bytes), path),
    }
}

/// Whether `bytes` are binary rather than text: a NUL byte in the first 4
/// KiB (text never has one; flatbuffers and protos nearly always do). A
/// text file with a stray non-UTF-8 byte still goes to the parser, whose
/// error names the line.
fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(4096)].contains(&0)
}

/// Writes a module as HLO text or as a serialized HloModuleProto, by extension.
pub fn save_module(m: &Module, path: impl AsRef<Path>) -> Result<(), LoadError> {
    let path = path.as_ref();
    let bytes = match ModuleFormat::from_path(path) {
        ModuleFormat::Proto => crate::proto::encode_module(m),
        ModuleFormat::Text => crate::text::print::print_module(m).into_bytes(),
        ModuleFormat::StableHlo => {
            return Err(LoadError::Write {
                path: path.to_owned(),
                source: std::io::Error::new(
                    std::io::ErrorKind::Unsupported,
                    "hlox writes HLO text (.hlo) or an HloModuleProto (.pb), not StableHLO",
                ),
            })
        }
    };
    std::fs::write(path, bytes).map_err(|source| LoadError::Write {
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head of what JAX 0.10.2 writes for `jax.jit(lambda x: jnp.sin(x) * 2)`:
    /// `lower(x).as_text()` and the MLIR bytecode of `compiler_ir('stablehlo')`.
    const MLIR_TEXT: &str = "module @jit__lambda attributes {mhlo.num_partitions = 1 : i32} {\n  \
        func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {\n    \
        %0 = stablehlo.sine %arg0 : tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n";
    const MLIR_BYTECODE: &[u8] = b"ML\xefR\rMLIR19.1.0\x00";

    #[test]
    fn stablehlo_is_told_apart_from_hlo() {
        assert_eq!(detect_mlir(MLIR_TEXT.as_bytes()), Some(MlirForm::Text));
        assert_eq!(detect_mlir(MLIR_BYTECODE), Some(MlirForm::Bytecode));
        // Leading comments and blank lines are skipped; each MLIR opening counts.
        for text in [
            "// comment\n\n  func.func @f() {\n",
            "#loc = loc(unknown)\nmodule {\n",
            "\"builtin.module\"() ({\n",
            "stablehlo.add %a, %b : tensor<f32>\n",
            "module\n",
        ] {
            assert_eq!(detect_mlir(text.as_bytes()), Some(MlirForm::Text), "{text}");
        }
        // HLO text, a serialized HloModuleProto and words that merely start
        // like MLIR's are not MLIR.
        for bytes in [
            &b"HloModule m\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n"[..],
            b"// module m\nHloModule m\n",
            b"modules_are_not_mlir\n",
            b"\n\x0ajit_f\x12\x00",
            b"",
            b"\xff\xfe",
        ] {
            assert_eq!(
                detect_mlir(bytes),
                None,
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn stablehlo_text_loads_and_bytecode_says_what_to_do() {
        let dir = std::env::temp_dir().join(format!("hlox-load-mlir-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // MLIR text loads by extension, and by its first token under any name.
        for name in ["f.mlir", "f.txt", "f.hlo"] {
            let p = dir.join(name);
            std::fs::write(&p, MLIR_TEXT).unwrap();
            let m = load_module(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
            let entry = m.entry_computation();
            assert_eq!(entry.params.len(), 1);
            assert_eq!(
                crate::text::shape_to_string(&entry.root_inst().shape),
                "f32[4]{0}"
            );
        }
        // A StableHLO error names the file, line and column.
        let bad = dir.join("bad.mlir");
        std::fs::write(
            &bad,
            MLIR_TEXT.replace("stablehlo.sine", "stablehlo.frobnicate"),
        )
        .unwrap();
        let e = load_module(&bad).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!(
                "{}:3:10: unsupported operation 'stablehlo.frobnicate'",
                bad.display()
            )),
            "{msg}"
        );
        // Bytecode, whether named .pb or anything else: this one is only a
        // header, so reading it fails at its first missing section.
        for name in ["f.pb", "f.mlirbc", "f.mlir"] {
            let p = dir.join(name);
            std::fs::write(&p, MLIR_BYTECODE).unwrap();
            let e = load_module(&p).unwrap_err();
            assert!(matches!(e, LoadError::StableHlo { .. }), "{name}: {e:?}");
            let msg = e.to_string();
            assert!(
                msg.contains("cannot read this StableHLO bytecode: MLIR bytecode byte 16 (header): the string section is missing"),
                "{msg}"
            );
            assert!(msg.contains("mlir_module()"), "{msg}");
        }
        let _ = std::fs::remove_dir_all(&dir);
        // The HLO text parser alone refuses MLIR at its first token.
        let src = format!("// exported by JAX\n{MLIR_TEXT}");
        let e = crate::text::parse_module(&src).unwrap_err();
        assert_eq!((e.line, e.column), (2, 1), "{e}");
        assert!(
            e.message
                .starts_with("this is StableHLO (MLIR text), not HLO"),
            "{e}"
        );
    }
}
