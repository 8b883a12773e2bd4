//! Reproducers: what a failed sandboxed call is replayed from.
//!
//! `DIR/<instruction>/` gets `module.hlo` (one custom call of the same
//! target, attributes, opaque, api_version, layouts and aliasing, whose
//! operands are entry parameters: one per array leaf, tuples rebuilt with
//! `tuple`, tokens made with `after-all`), `p<N>.npy` (parameter N's value
//! as the call saw it), and `README.md` (the error and the command line
//! that replays it under the sandbox).

use super::{SandboxError, SandboxedCall, Served};
use hlox_hlo::builder::{XlaBuilder, XlaOp};
use hlox_hlo::{ArrayLiteral, Literal, Shape};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A reproducer written to disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reproducer {
    pub dir: PathBuf,
    /// The `hlox run` command line that replays the call (when a plugin
    /// serves the target; otherwise what to do instead).
    pub command: String,
}

/// Why a reproducer could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReproError {
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot build the one-call module: {0}")]
    Build(#[from] hlox_hlo::builder::BuildError),
    #[error("cannot make parameter {param}'s value: {message}")]
    Value { param: usize, message: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ReproError + '_ {
    move |source| ReproError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A file or directory name made of the instruction's name.
fn file_name(s: &str) -> String {
    let n = hlox_hlo::load::file_name_part(s);
    if n.is_empty() || n.starts_with('.') {
        format!("call{n}")
    } else {
        n
    }
}

/// Quotes a path for a POSIX shell when it needs it.
fn shell(p: &Path) -> String {
    let s = p.display().to_string();
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,".contains(c))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Builds operand `shape` from parameters, writing each array leaf's value.
struct Params<'a> {
    b: &'a XlaBuilder,
    dir: &'a Path,
    leaves: std::slice::Iter<'a, *mut u8>,
    files: Vec<PathBuf>,
}

impl Params<'_> {
    /// # Safety
    /// Each leaf pointer holds its leaf's bytes.
    unsafe fn operand(&mut self, shape: &Shape) -> Result<XlaOp, ReproError> {
        match shape {
            Shape::Tuple(elems) => {
                let mut ops = Vec::new();
                for s in elems {
                    ops.push(unsafe { self.operand(s) }?);
                }
                Ok(self.b.tuple(&ops)?)
            }
            Shape::Token => {
                self.leaves.next();
                Ok(self.b.create_token()?)
            }
            Shape::Array(a) => {
                let n = self.files.len();
                let p = self.leaves.next().copied().unwrap_or(std::ptr::null_mut());
                let size = a.byte_size();
                let bytes = if size == 0 || p.is_null() {
                    vec![0; size]
                } else {
                    // SAFETY: the caller's buffer holds the leaf's bytes.
                    unsafe { std::slice::from_raw_parts(p, size) }.to_vec()
                };
                let lit =
                    ArrayLiteral::from_bytes(a.clone(), bytes).map_err(|e| ReproError::Value {
                        param: n,
                        message: e.to_string(),
                    })?;
                let path = self.dir.join(format!("p{n}.npy"));
                hlox_hlo::npy::write_npy_file(&path, &Literal::Array(lit)).map_err(|e| {
                    ReproError::Value {
                        param: n,
                        message: e.to_string(),
                    }
                })?;
                self.files.push(path);
                Ok(self.b.parameter(n as u64, shape, &format!("p{n}"))?)
            }
        }
    }
}

/// Writes the reproducer of `call`'s failure `error` on operand leaves
/// `operands` into `dir/<instruction>/`.
///
/// # Safety
/// Each operand pointer holds its leaf's bytes.
pub(crate) unsafe fn write(
    call: &SandboxedCall,
    dir: &Path,
    operands: &[*mut u8],
    error: &SandboxError,
) -> Result<Reproducer, ReproError> {
    let dir = dir.join(file_name(&call.instruction));
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let b = XlaBuilder::new(format!("repro_{}", file_name(&call.instruction)));
    let mut params = Params {
        b: &b,
        dir: &dir,
        leaves: operands.iter(),
        files: Vec::new(),
    };
    let mut ops = Vec::new();
    for s in &call.operand_shapes {
        ops.push(unsafe { params.operand(s) }?);
    }
    let files = params.files;
    let c = &call.call;
    let root = b.custom_call_op(c.clone(), &ops, &call.result_shape)?;
    let mut module = b.build_module(root)?;
    // Keep the instruction's own name (errors then read as in the module
    // that failed), unless a parameter already has it.
    let entry = &mut module.computations[module.entry];
    let taken = entry
        .instructions
        .values()
        .any(|i| i.name == call.instruction);
    if !taken {
        let root = entry.root;
        entry.instructions[root].name = call.instruction.clone();
    }
    let hlo = dir.join("module.hlo");
    std::fs::write(&hlo, hlox_hlo::text::print_module(&module)).map_err(io(&hlo))?;
    let mut command = format!("hlox run {}", shell(&hlo));
    for f in &files {
        let _ = write!(command, " --input {}", shell(f));
    }
    let mut note = String::new();
    match &call.served {
        Served::Plugin(p) => {
            let _ = write!(command, " --plugin {}", shell(p));
        }
        Served::Bound { library, symbol } => {
            let _ = write!(
                command,
                " --plugin {} --target {}={symbol}",
                shell(library),
                c.target
            );
        }
        Served::InProcess(origin) => {
            note = format!(
                "The target is registered by the program that failed ({origin}), not by a \
                 plugin: run module.hlo with these inputs from that program (or load the \
                 library that defines it with --plugin).\n\n"
            );
        }
    }
    command += " --sandbox";
    if call.options.check_results {
        command += " --check-results";
    }
    let readme = dir.join("README.md");
    let text = format!(
        "# Reproducer: custom call `{inst}` (target \"{target}\")\n\n\
         Written by hlox's custom-call sandbox when the call failed:\n\n\
         > {error}\n\n\
         `module.hlo` calls the target once, with the same attributes, opaque \
         (`backend_config`), api_version and buffer layouts; `p<N>.npy` is \
         parameter N's value as the call saw it.\n\n{note}\
         Replay:\n\n```sh\n{command}\n```\n",
        inst = call.instruction,
        target = c.target,
    );
    std::fs::write(&readme, text).map_err(io(&readme))?;
    Ok(Reproducer { dir, command })
}
