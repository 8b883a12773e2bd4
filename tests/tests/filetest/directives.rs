//! The directive language of `.hlo` filetests: a file is one or more
//! *cases* separated by a line `// -----`; each case is an HLO module whose
//! comment lines starting `// ` name what to do with it.
//!
//! ```text
//! // verify                       the module must verify
//! // transform: grad wrt=0,1       first transform the module (hlox-transform):
//! //                                grad/vjp/jvp wrt=..., vmap in_axes=0,none size=N
//! // passes=algsimp,dce           run these passes (verify after each)
//! // run interpret                run on an engine: interpret, host,
//! // run host hlo_passes=false      cuda-emulate (options key=value: hlo_passes=,
//! //                                  opt_level=, half_rounding=)
//! // arg: f32[3] {1, 2, 3}        one argument per line, in order
//! // arg: x.npy                   ... or a .npy file beside the .hlo
//! // args: random(17)             every parameter pseudo-random, seeds 17, 18, ...
//! // expect: f32[3] {2, 4, 6}     the result (or a .npy file)
//! // tolerance: 1e-6              |got - want| <= tol + tol * |want| for floats
//! // emit llvm-ir                 the text to match with check lines:
//! //                                llvm-ir, ptx, hlo (after passes=),
//! //                                buffer-assignment (the Host's listing)
//! // threads: 4                   the Host compiles for (and runs on) a
//! //                                pool of this many threads
//! // check: define                FileCheck-style lines on the emitted text
//! // check-next: ret
//! // check-not: call
//! // error: <message>             the first failure's full rendered message
//! //                                (consecutive error lines join with newlines)
//! ```
//!
//! Every other comment is documentation and is ignored.

use std::path::{Path, PathBuf};

/// Where a directive was written: the file and the 1-based line.
#[derive(Clone, Debug)]
pub struct Loc {
    pub file: PathBuf,
    pub line: usize,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Relative to the workspace root, as `cargo test` is run from there.
        let root = hlox_tests::workspace_root();
        let file = self.file.strip_prefix(&root).unwrap_or(&self.file);
        write!(f, "{}:{}", file.display(), self.line)
    }
}

/// An engine a `run` directive names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// `hlox_eval`, the oracle.
    Interpret,
    /// `hlox_cpu::compile` and execute.
    Host,
    /// `hlox_cuda::compile` run by the host emulation of the device.
    CudaEmulate,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Interpret => "interpret",
            Engine::Host => "host",
            Engine::CudaEmulate => "cuda-emulate",
        }
    }
}

/// One `run` directive.
#[derive(Clone, Debug)]
pub struct Run {
    pub engine: Engine,
    /// `hlo_passes=false`: skip the compiler's HLO pipeline.
    pub hlo_passes: bool,
    /// `opt_level=N` for the compiled engines.
    pub opt_level: u8,
    /// `half_rounding=every-op` (or `excess-precision`, the default): where
    /// bf16 results round, for every engine (docs/numerics.md).
    pub half_rounding: hlox_eval::HalfRounding,
    pub loc: Loc,
}

/// Where a value comes from.
#[derive(Clone, Debug)]
pub enum Value {
    /// `SHAPE LITERAL` in HLO literal syntax.
    Text(String),
    /// A `.npy` file, relative to the `.hlo` file.
    Npy(PathBuf),
}

/// A `check`-family line.
#[derive(Clone, Debug)]
pub enum CheckKind {
    Check,
    Next,
    Not,
}

#[derive(Clone, Debug)]
pub struct Check {
    pub kind: CheckKind,
    pub pattern: String,
    pub loc: Loc,
}

/// What to emit for check lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    LlvmIr,
    Ptx,
    Hlo,
    /// The Host backend's buffer assignment (`buffer-assignment.txt`).
    BufferAssignment,
}

/// One case of a file: its module text and directives.
#[derive(Clone, Debug)]
pub struct Case {
    /// The file's text with every line outside this case blanked, so that
    /// parse errors carry the file's own line numbers.
    pub source: String,
    /// 1-based line where the case starts.
    pub first_line: usize,
    /// `transform: grad wrt=0`: the transformation applied first.
    pub transform: Option<(String, Loc)>,
    pub passes: Option<(Vec<String>, Loc)>,
    pub runs: Vec<Run>,
    pub args: Vec<(Value, Loc)>,
    /// `args: random(SEED)`: parameter i gets seed SEED + i.
    pub random_args: Option<(u64, Loc)>,
    pub expect: Option<(Value, Loc)>,
    pub tolerance: f64,
    /// Where `tolerance:` was written, when it was.
    pub tolerance_loc: Option<Loc>,
    pub emit: Option<(Emit, Loc)>,
    /// `threads: N`: Host compiles and runs inside a pool of N threads.
    pub threads: Option<usize>,
    pub checks: Vec<Check>,
    /// The expected message and the lines (first, last) it was written on.
    pub error: Option<(String, Loc, usize)>,
}

/// A problem in the directives themselves.
#[derive(Debug)]
pub struct DirectiveError {
    pub loc: Loc,
    pub message: String,
}

/// Splits `text` into cases and reads each case's directives.
pub fn parse_file(file: &Path, text: &str) -> Result<Vec<Case>, DirectiveError> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut bounds = Vec::new();
    let mut start = 0;
    for (i, l) in lines.iter().enumerate() {
        if l.trim_end() == "// -----" {
            bounds.push((start, i));
            start = i + 1;
        }
    }
    bounds.push((start, lines.len()));
    bounds
        .into_iter()
        .map(|(s, e)| parse_case(file, &lines, s, e))
        .collect()
}

fn parse_case(
    file: &Path,
    lines: &[&str],
    start: usize,
    end: usize,
) -> Result<Case, DirectiveError> {
    let mut source = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i >= start && i < end {
            source.push_str(l);
        }
        if i + 1 < lines.len() {
            source.push('\n');
        }
    }
    let mut case = Case {
        source,
        first_line: start + 1,
        transform: None,
        passes: None,
        runs: Vec::new(),
        args: Vec::new(),
        random_args: None,
        expect: None,
        tolerance: 0.0,
        tolerance_loc: None,
        emit: None,
        threads: None,
        checks: Vec::new(),
        error: None,
    };
    let mut prev_error_line = None;
    for (i, l) in lines.iter().enumerate().take(end).skip(start) {
        let loc = Loc {
            file: file.to_path_buf(),
            line: i + 1,
        };
        let Some(d) = l.strip_prefix("// ") else {
            continue;
        };
        let bad = |message: String| DirectiveError {
            loc: loc.clone(),
            message,
        };
        let (key, rest) = split_key(d);
        match key {
            // Every case is verified; the directive names the stage.
            "verify" => {}
            "passes" => {
                let names = rest
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                case.passes = Some((names, loc));
            }
            "transform" => case.transform = Some((rest.trim().to_string(), loc)),
            "run" => case.runs.push(parse_run(rest, loc.clone()).map_err(bad)?),
            "arg" => case.args.push((parse_value(rest), loc)),
            "args" => {
                let seed = rest
                    .strip_prefix("random(")
                    .and_then(|s| s.strip_suffix(')'))
                    .and_then(|s| s.trim().parse().ok())
                    .ok_or_else(|| bad(format!("`args: {rest}`: expected `args: random(SEED)`")))?;
                case.random_args = Some((seed, loc));
            }
            "expect" => case.expect = Some((parse_value(rest), loc)),
            "tolerance" => {
                case.tolerance = rest
                    .trim()
                    .parse()
                    .map_err(|_| bad(format!("`tolerance: {rest}` is not a number")))?;
                case.tolerance_loc = Some(loc);
            }
            "emit" => {
                let e = match rest.trim() {
                    "llvm-ir" => Emit::LlvmIr,
                    "ptx" => Emit::Ptx,
                    "hlo" => Emit::Hlo,
                    "buffer-assignment" => Emit::BufferAssignment,
                    other => {
                        return Err(bad(format!(
                            "`emit {other}`: expected llvm-ir, ptx, hlo or buffer-assignment"
                        )))
                    }
                };
                case.emit = Some((e, loc));
            }
            "threads" => {
                let n = rest
                    .trim()
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| bad(format!("`threads: {rest}`: expected a count")))?;
                case.threads = Some(n);
            }
            "check" | "check-next" | "check-not" => {
                let kind = match key {
                    "check" => CheckKind::Check,
                    "check-next" => CheckKind::Next,
                    _ => CheckKind::Not,
                };
                case.checks.push(Check {
                    kind,
                    pattern: rest.to_string(),
                    loc,
                });
            }
            "error" => {
                match (&mut case.error, prev_error_line) {
                    (Some((msg, _, last)), Some(p)) if p + 1 == i => {
                        msg.push('\n');
                        msg.push_str(rest);
                        *last = i + 1;
                    }
                    (Some(_), _) => {
                        return Err(bad("a second `error:` block in one case".into()));
                    }
                    (None, _) => case.error = Some((rest.to_string(), loc, i + 1)),
                }
                prev_error_line = Some(i);
            }
            other if d[other.len()..].starts_with(':') && near_miss(other).is_some() => {
                // Prose is fine; a misspelled directive is not (it would
                // silently check nothing): `expected:`, `check-nxt:`, `CHECK:`.
                let want = near_miss(other).unwrap_or_default();
                return Err(bad(format!(
                    "`{other}:` is not a directive; did you mean `{want}:`?"
                )));
            }
            _ => {}
        }
    }
    if case.runs.is_empty() {
        // Inputs and a tolerance only mean something to a `run`: without
        // one they would be read and silently ignored.
        let unused = case
            .args
            .first()
            .map(|(_, l)| (l, "arg:"))
            .or(case.random_args.as_ref().map(|(_, l)| (l, "args:")))
            .or(case.tolerance_loc.as_ref().map(|l| (l, "tolerance:")));
        if let Some((loc, what)) = unused {
            return Err(DirectiveError {
                loc: loc.clone(),
                message: format!(
                    "`{what}` without a `run` directive: add `// run interpret` (or host, \
                     cuda-emulate) for it to be used, or remove it"
                ),
            });
        }
    }
    Ok(case)
}

/// The directive a `word:` comment probably meant, when it is not one:
/// a directive in other letter case (`CHECK:`), or a word that starts
/// with a checking directive's name (`expected:`, `check-nxt:`).
fn near_miss(word: &str) -> Option<&'static str> {
    const DIRECTIVES: &[&str] = &[
        "verify",
        "transform",
        "passes",
        "run",
        "arg",
        "args",
        "expect",
        "tolerance",
        "emit",
        "threads",
        "check",
        "check-next",
        "check-not",
        "error",
    ];
    let lower = word.to_ascii_lowercase();
    if DIRECTIVES.contains(&word) {
        return None;
    }
    if let Some(d) = DIRECTIVES.iter().find(|d| **d == lower) {
        return Some(d);
    }
    ["expect", "check", "tolerance"]
        .into_iter()
        .find(|d| lower.starts_with(d))
}

/// `key: rest`, `key=rest` or `key rest` (the first word is the key).
fn split_key(d: &str) -> (&str, &str) {
    let end = d.find([':', '=', ' ']).unwrap_or(d.len());
    let key = &d[..end];
    let mut rest = &d[end..];
    if let Some(r) = rest.strip_prefix(':').or_else(|| rest.strip_prefix('=')) {
        rest = r;
    }
    // One separating space; the rest (an error's caret line) is kept.
    (key, rest.strip_prefix(' ').unwrap_or(rest))
}

fn parse_run(rest: &str, loc: Loc) -> Result<Run, String> {
    let mut words = rest.split_whitespace();
    let engine = match words.next() {
        Some("interpret") => Engine::Interpret,
        Some("host") => Engine::Host,
        Some("cuda-emulate") => Engine::CudaEmulate,
        other => {
            return Err(format!(
                "`run {}`: expected interpret, host or cuda-emulate",
                other.unwrap_or("")
            ))
        }
    };
    let mut run = Run {
        engine,
        hlo_passes: true,
        opt_level: 3,
        half_rounding: hlox_eval::HalfRounding::default(),
        loc,
    };
    for w in words {
        let option = w.split_once('=').map_or(w, |(k, _)| k);
        if engine == Engine::Interpret && matches!(option, "hlo_passes" | "opt_level") {
            return Err(format!(
                "`{w}`: the interpreter compiles nothing; {option}= is an option of \
                 `run host` and `run cuda-emulate`"
            ));
        }
        match w.split_once('=') {
            Some(("hlo_passes", v)) => {
                run.hlo_passes = v.parse().map_err(|_| format!("`{w}`: true or false"))?
            }
            Some(("opt_level", v)) => {
                run.opt_level = v.parse().map_err(|_| format!("`{w}`: 0 to 3"))?
            }
            Some(("half_rounding", v)) => {
                run.half_rounding = match v {
                    "excess-precision" => hlox_eval::HalfRounding::ExcessPrecision,
                    "every-op" => hlox_eval::HalfRounding::EveryOp,
                    _ => return Err(format!("`{w}`: excess-precision or every-op")),
                }
            }
            _ => {
                return Err(format!(
                    "unknown run option `{w}` (hlo_passes=, opt_level=, half_rounding=)"
                ))
            }
        }
    }
    Ok(run)
}

fn parse_value(rest: &str) -> Value {
    let r = rest.trim();
    if r.ends_with(".npy") && !r.contains(' ') {
        Value::Npy(PathBuf::from(r))
    } else {
        Value::Text(r.to_string())
    }
}

/// Splits `SHAPE LITERAL` at the first space outside brackets.
pub fn split_shape(text: &str) -> (&str, &str) {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            ' ' if depth == 0 => return (&text[..i], text[i + 1..].trim()),
            _ => {}
        }
    }
    (text, "")
}

/// `text` split at the commas outside brackets, each part trimmed (empty
/// text has no parts).
pub fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() || !parts.is_empty() {
        parts.push(text[start..].trim());
    }
    parts
}
