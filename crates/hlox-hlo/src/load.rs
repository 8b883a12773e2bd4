//! Loading and saving modules from files: HLO text (`.hlo`, `.txt`) or
//! binary HloModuleProto (`.pb`), chosen by extension. Every loaded module
//! is verified.

use crate::ir::Module;
use std::path::{Path, PathBuf};

/// The on-disk formats of a module.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ModuleFormat {
    /// HLO text.
    Text,
    /// Binary serialized `HloModuleProto`.
    Proto,
}

impl ModuleFormat {
    /// `.pb` and `.proto`/`.binpb` are protos; everything else is text.
    pub fn from_path(path: &Path) -> ModuleFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("pb") | Some("binpb") => ModuleFormat::Proto,
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
}

/// Parses HLO text and verifies it.
pub fn parse_and_verify(src: &str, path: &Path) -> Result<Module, LoadError> {
    let m = crate::text::parse_module(src).map_err(|error| LoadError::Parse {
        path: path.to_owned(),
        error: error.with_file(path.display().to_string()),
    })?;
    verify(m, path)
}

/// Decodes a serialized HloModuleProto and verifies it.
pub fn decode_and_verify(bytes: &[u8], path: &Path) -> Result<Module, LoadError> {
    let m = crate::proto::decode_module(bytes).map_err(|error| LoadError::Proto {
        path: path.to_owned(),
        error,
    })?;
    verify(m, path)
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
    match ModuleFormat::from_path(path) {
        ModuleFormat::Proto => decode_and_verify(&bytes, path),
        ModuleFormat::Text => {
            let src = String::from_utf8_lossy(&bytes);
            parse_and_verify(&src, path)
        }
    }
}

/// Writes a module as HLO text or as a serialized HloModuleProto, by extension.
pub fn save_module(m: &Module, path: impl AsRef<Path>) -> Result<(), LoadError> {
    let path = path.as_ref();
    let bytes = match ModuleFormat::from_path(path) {
        ModuleFormat::Proto => crate::proto::encode_module(m),
        ModuleFormat::Text => crate::text::print::print_module(m).into_bytes(),
    };
    std::fs::write(path, bytes).map_err(|source| LoadError::Write {
        path: path.to_owned(),
        source,
    })
}
