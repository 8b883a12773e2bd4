//! The filetest runner: reads the directives of a `.hlo` file
//! ([`directives`]), runs each case through the stages they name (parse,
//! verify, passes, emit, run on engines) and compares with what the file
//! expects. The interpreter is the oracle: without an `expect:` line, every
//! other engine is compared with its result.
//!
//! A failure names the file and line of the directive that failed.
//! With `BLESS=1`, `expect:` and `error:` lines are rewritten from what the
//! stages produced (the interpreter's result where it ran).

pub mod directives;

use directives::{Case, Check, CheckKind, Emit, Engine, Loc, Run, Value};
use hlox_hlo::text::{
    literal_to_string, parse_literal, parse_module, parse_shape, shape_to_string,
};
use hlox_hlo::{Literal, Module};
use std::path::{Path, PathBuf};

/// Whether `BLESS` asks to rewrite expectations.
pub fn bless() -> bool {
    std::env::var("BLESS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Every `.hlo` file under `dir`, recursively, sorted.
pub fn hlo_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).unwrap_or_else(|e| panic!("reading {}: {e}", d.display()));
        for e in entries {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "hlo") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Runs every file under `dir` and panics with every failure.
pub fn run_dir(dir: &Path) {
    let files = hlo_files(dir);
    assert!(!files.is_empty(), "no .hlo files under {}", dir.display());
    let mut failures = Vec::new();
    let mut cases = 0;
    for f in &files {
        let (n, mut fs) = run_file(f);
        cases += n;
        failures.append(&mut fs);
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} filetest case(s) under {} failed:\n\n{}",
        failures.len(),
        dir.display(),
        failures.join("\n\n")
    );
    eprintln!("{cases} filetest cases under {} passed", dir.display());
}

/// A replacement of lines `first..=last` (1-based) of a file.
struct Edit {
    first: usize,
    last: usize,
    lines: Vec<String>,
}

/// Runs one file; returns its number of cases and its failures.
pub fn run_file(path: &Path) -> (usize, Vec<String>) {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return (0, vec![format!("{}: cannot read: {e}", path.display())]),
    };
    let cases = match directives::parse_file(path, &text) {
        Ok(c) => c,
        Err(e) => return (0, vec![format!("{}: {}", e.loc, e.message)]),
    };
    let mut failures = Vec::new();
    let mut edits = Vec::new();
    for case in &cases {
        let mut cx = Cx {
            path,
            case,
            failures: &mut failures,
            edits: &mut edits,
        };
        cx.run();
    }
    if bless() && !edits.is_empty() {
        let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.first));
        for e in edits {
            lines.splice(e.first - 1..e.last, e.lines);
        }
        if let Err(e) = std::fs::write(path, lines.join("\n")) {
            failures.push(format!("{}: cannot bless: {e}", path.display()));
        }
    }
    (cases.len(), failures)
}

/// One case being run.
struct Cx<'a> {
    path: &'a Path,
    case: &'a Case,
    failures: &'a mut Vec<String>,
    edits: &'a mut Vec<Edit>,
}

/// A stage failed: its message and the directive it belongs to.
struct StageError {
    loc: Loc,
    message: String,
}

impl Cx<'_> {
    fn loc(&self, line: usize) -> Loc {
        Loc {
            file: self.path.to_path_buf(),
            line,
        }
    }

    fn fail(&mut self, loc: &Loc, message: impl std::fmt::Display) {
        self.failures.push(format!("{loc}: {message}"));
    }

    fn run(&mut self) {
        match self.stages() {
            Ok(()) => {
                if let Some((msg, loc, _)) = &self.case.error {
                    let loc = loc.clone();
                    self.fail(
                        &loc,
                        format!("expected the error\n{msg}\nbut every stage succeeded"),
                    );
                }
            }
            Err(e) => self.check_error(e),
        }
    }

    /// Compares a stage's error with the case's `error:` directive.
    fn check_error(&mut self, e: StageError) {
        match &self.case.error {
            Some((want, _, _)) if *want == e.message => {}
            Some((want, loc, last)) => {
                let (loc, last) = (loc.clone(), *last);
                if bless() {
                    self.edits.push(Edit {
                        first: loc.line,
                        last,
                        lines: e
                            .message
                            .split('\n')
                            .map(|l| format!("// error: {l}"))
                            .collect(),
                    });
                } else {
                    let want = want.clone();
                    self.fail(
                        &loc,
                        format!(
                            "wrong error (from {})\n--- expected\n{want}\n--- actual\n{}",
                            e.loc, e.message
                        ),
                    );
                }
            }
            None => self.fail(&e.loc, e.message),
        }
    }

    fn stages(&mut self) -> Result<(), StageError> {
        let case = self.case;
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let first = self.loc(case.first_line);
        let mut m = parse_module(&case.source).map_err(|e| StageError {
            loc: first.clone(),
            message: e.with_file(&name).to_string(),
        })?;
        // Every module is verified before anything looks at it (the
        // architecture's invariant); `// verify` names the stage for cases
        // that do nothing else.
        hlox_hlo::verifier::verify_module(&m).map_err(|e| StageError {
            loc: first.clone(),
            message: e.to_string(),
        })?;
        if let Some((spec, loc)) = &case.transform {
            m = transform(&m, spec).map_err(|message| StageError {
                loc: loc.clone(),
                message,
            })?;
        }
        if let Some((names, loc)) = &case.passes {
            run_passes(&mut m, names).map_err(|message| StageError {
                loc: loc.clone(),
                message,
            })?;
        }
        if let Some((emit, loc)) = &case.emit {
            let text = on_threads(case.threads, || emit_text(&m, *emit)).map_err(|message| {
                StageError {
                    loc: loc.clone(),
                    message,
                }
            })?;
            self.check_lines(&text, loc);
        } else if let Some(c) = case.checks.first() {
            let loc = c.loc.clone();
            self.fail(&loc, "check lines without an `emit` directive");
        }
        if !case.runs.is_empty() {
            self.runs(&m)?;
        } else if let Some((_, loc)) = &case.expect {
            let loc = loc.clone();
            self.fail(&loc, "`expect:` without a `run` directive");
        }
        Ok(())
    }

    fn args(&self, m: &Module) -> Result<Vec<Literal>, StageError> {
        let case = self.case;
        if let Some((seed, loc)) = &case.random_args {
            if !case.args.is_empty() {
                return Err(StageError {
                    loc: loc.clone(),
                    message: "`args: random(..)` and `arg:` lines in one case".into(),
                });
            }
            return Ok(hlox_tests::random_args(m, *seed));
        }
        case.args
            .iter()
            .map(|(v, loc)| {
                read_value(self.path, v).map_err(|message| StageError {
                    loc: loc.clone(),
                    message,
                })
            })
            .collect()
    }

    fn runs(&mut self, m: &Module) -> Result<(), StageError> {
        let case = self.case;
        let args = self.args(m)?;
        let expect = match &case.expect {
            Some((v, loc)) => Some((
                read_value(self.path, v).map_err(|message| StageError {
                    loc: loc.clone(),
                    message,
                })?,
                loc.clone(),
            )),
            None => None,
        };
        // The oracle's result, then each other engine's.
        let mut oracle: Option<Literal> = None;
        for run in &case.runs {
            let got =
                on_threads(case.threads, || run_engine(run, m, &args)).map_err(|message| {
                    StageError {
                        loc: run.loc.clone(),
                        message: message.to_string(),
                    }
                })?;
            match &expect {
                Some((want, loc)) => {
                    if let Err(e) = compare(&got, want, case.tolerance) {
                        self.expect_mismatch(run, loc, &got, want, &e);
                    }
                }
                None => match &oracle {
                    Some(want) => {
                        if let Err(e) = compare(&got, want, case.tolerance) {
                            self.fail(
                                &run.loc,
                                format!(
                                    "`run {}` differs from the interpreter: {e}",
                                    run.engine.name()
                                ),
                            );
                        }
                    }
                    None if run.engine == Engine::Interpret => oracle = Some(got),
                    None => self.fail(
                        &run.loc,
                        "nothing to compare with: add `// expect:` or `// run interpret` before it",
                    ),
                },
            }
        }
        if expect.is_none() && case.runs.len() < 2 {
            if let Some(run) = case.runs.first() {
                let loc = run.loc.clone();
                self.fail(
                    &loc,
                    "nothing is compared: add `// expect:` or another `// run` for the result to be checked",
                );
            }
        }
        Ok(())
    }

    fn expect_mismatch(&mut self, run: &Run, loc: &Loc, got: &Literal, want: &Literal, e: &str) {
        if bless()
            && (run.engine == Engine::Interpret
                || !self.case.runs.iter().any(|r| r.engine == Engine::Interpret))
        {
            if let Some((Value::Text(_), _)) = &self.case.expect {
                self.edits.push(Edit {
                    first: loc.line,
                    last: loc.line,
                    lines: vec![format!("// expect: {}", value_text(got))],
                });
                return;
            }
        }
        self.fail(
            &run.loc,
            format!(
                "`run {}` result differs from `expect` ({loc}): {e}\n--- expected\n{}\n--- actual\n{}",
                run.engine.name(),
                value_text(want),
                value_text(got)
            ),
        );
    }

    /// FileCheck's `CHECK`, `CHECK-NEXT` and `CHECK-NOT` on lines, matching
    /// substrings.
    fn check_lines(&mut self, text: &str, emit_loc: &Loc) {
        let lines: Vec<&str> = text.lines().collect();
        let mut pos = 0;
        let mut last: Option<usize> = None;
        let mut nots: Vec<&Check> = Vec::new();
        let show = |lines: &[&str]| {
            let n = lines.len().min(400);
            let mut s = lines[..n].join("\n");
            if n < lines.len() {
                s.push_str(&format!("\n... ({} more lines)", lines.len() - n));
            }
            s
        };
        let mut problems: Vec<(Loc, String)> = Vec::new();
        let check_nots =
            |nots: &mut Vec<&Check>, from: usize, to: usize, problems: &mut Vec<(Loc, String)>| {
                for n in nots.drain(..) {
                    if let Some(i) = (from..to).find(|&i| lines[i].contains(&n.pattern)) {
                        problems.push((
                            n.loc.clone(),
                            format!(
                                "check-not `{}` matched line {}: {}",
                                n.pattern,
                                i + 1,
                                lines[i]
                            ),
                        ));
                    }
                }
            };
        for c in &self.case.checks {
            match c.kind {
                CheckKind::Not => nots.push(c),
                CheckKind::Check => {
                    match (pos..lines.len()).find(|&i| lines[i].contains(&c.pattern)) {
                        Some(i) => {
                            check_nots(&mut nots, pos, i, &mut problems);
                            last = Some(i);
                            pos = i + 1;
                        }
                        None => {
                            problems.push((
                                c.loc.clone(),
                                format!("check `{}` not found after line {pos}", c.pattern),
                            ));
                            break;
                        }
                    }
                }
                CheckKind::Next => {
                    let next = last.map(|l| l + 1);
                    match next {
                        Some(i) if i < lines.len() && lines[i].contains(&c.pattern) => {
                            check_nots(&mut nots, pos, i, &mut problems);
                            last = Some(i);
                            pos = i + 1;
                        }
                        _ => {
                            problems.push((
                                c.loc.clone(),
                                format!(
                                    "check-next `{}` is not on the line after the previous match",
                                    c.pattern
                                ),
                            ));
                            break;
                        }
                    }
                }
            }
        }
        if problems.is_empty() {
            check_nots(&mut nots, pos, lines.len(), &mut problems);
        }
        if self.case.checks.is_empty() {
            problems.push((emit_loc.clone(), "`emit` without check lines".into()));
        }
        for (loc, p) in problems {
            self.fail(&loc, format!("{p}\n--- emitted text\n{}", show(&lines)));
        }
    }
}

/// `SHAPE LITERAL` of a value, as `expect:` lines write it.
fn value_text(l: &Literal) -> String {
    format!("{} {}", shape_to_string(&l.shape()), literal_to_string(l))
}

fn read_value(hlo_path: &Path, v: &Value) -> Result<Literal, String> {
    match v {
        Value::Text(t) => {
            let (shape, lit) = directives::split_shape(t);
            let shape = parse_shape(shape).map_err(|e| format!("shape `{shape}`: {e}"))?;
            literal_of(lit, &shape)
        }
        Value::Npy(p) => {
            let full = hlo_path.parent().unwrap_or(Path::new(".")).join(p);
            let bytes = std::fs::read(&full).map_err(|e| format!("{}: {e}", full.display()))?;
            hlox_hlo::npy::read_npy(&bytes).map_err(|e| format!("{}: {e}", full.display()))
        }
    }
}

/// The literal `text` of `shape`. Tuples are read element by element, so
/// that a `token` element (which HLO's literal syntax has no constant for)
/// can be written as `token`.
fn literal_of(text: &str, shape: &hlox_hlo::Shape) -> Result<Literal, String> {
    match shape {
        hlox_hlo::Shape::Token if text.trim() == "token" => Ok(Literal::Token),
        hlox_hlo::Shape::Tuple(elems) => {
            let inner = text
                .trim()
                .strip_prefix('(')
                .and_then(|t| t.strip_suffix(')'))
                .ok_or_else(|| format!("tuple literal `{text}` is not in parentheses"))?;
            let parts = directives::split_top_level(inner);
            if parts.len() != elems.len() {
                return Err(format!(
                    "tuple literal `{text}` has {} elements, its shape {}",
                    parts.len(),
                    elems.len()
                ));
            }
            Ok(Literal::Tuple(
                parts
                    .iter()
                    .zip(elems)
                    .map(|(p, s)| literal_of(p, s))
                    .collect::<Result<_, _>>()?,
            ))
        }
        _ => parse_literal(text, shape).map_err(|e| format!("literal `{text}`: {e}")),
    }
}

/// `transform: grad wrt=0,1`, `vjp ...`, `jvp ...` or
/// `vmap in_axes=0,none size=3`.
fn transform(m: &Module, spec: &str) -> Result<Module, String> {
    let mut words = spec.split_whitespace();
    let kind = words.next().unwrap_or_default();
    let (mut wrt, mut axes, mut size) = (vec![0usize], Vec::new(), None);
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| format!("`transform: {spec}`: expected key=value, got `{w}`"))?;
        let list = || v.split(',').map(str::trim);
        match k {
            "wrt" => {
                wrt = list()
                    .map(|x| {
                        x.parse()
                            .map_err(|_| format!("wrt entry `{x}` is not a number"))
                    })
                    .collect::<Result<_, _>>()?
            }
            "in_axes" => {
                axes = list()
                    .map(|x| match x {
                        "none" => Ok(None),
                        x => x
                            .parse()
                            .map(Some)
                            .map_err(|_| format!("in_axes entry `{x}`")),
                    })
                    .collect::<Result<_, _>>()?
            }
            "size" => {
                size = Some(
                    v.parse()
                        .map_err(|_| format!("size `{v}` is not a number"))?,
                )
            }
            _ => {
                return Err(format!(
                    "`transform: {spec}`: unknown option `{k}` (wrt=, in_axes=, size=)"
                ))
            }
        }
    }
    let r = match kind {
        "grad" => hlox_transform::grad(m, &wrt),
        "vjp" => hlox_transform::vjp(m, &wrt),
        "jvp" => hlox_transform::jvp(m, &wrt),
        "vmap" => {
            let size = size.ok_or_else(|| format!("`transform: {spec}`: vmap needs size=N"))?;
            hlox_transform::vmap(m, &axes, size)
        }
        _ => {
            return Err(format!(
                "`transform: {spec}`: expected grad, vjp, jvp or vmap"
            ))
        }
    };
    r.map(|v| v.into_inner()).map_err(|e| e.to_string())
}

fn run_passes(m: &mut Module, names: &[String]) -> Result<(), String> {
    for n in names {
        let pass = hlox_passes::pass_by_name(n).ok_or_else(|| format!("no pass named `{n}`"))?;
        pass.run(m).map_err(|e| format!("pass {n}: {e}"))?;
        hlox_hlo::verifier::verify_module(m).map_err(|e| format!("after pass {n}: {e}"))?;
    }
    Ok(())
}

/// `f` inside a rayon pool of `threads` threads (`threads:`), where the
/// Host backend takes its compile-time thread count from; else as is.
fn on_threads<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> Result<T, String> + Send,
) -> Result<T, String> {
    match threads {
        None => f(),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| format!("a pool of {n} threads: {e}"))?
            .install(f),
    }
}

fn emit_text(m: &Module, emit: Emit) -> Result<String, String> {
    match emit {
        Emit::Hlo => Ok(hlox_hlo::text::print_module(m)),
        Emit::Ptx => hlox_cuda::compile_to_ptx(m, &Default::default()).map_err(|e| e.to_string()),
        Emit::LlvmIr | Emit::BufferAssignment => {
            static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "hlox-filetest-{}-{}",
                std::process::id(),
                N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ));
            let o = hlox_cpu::CompileOptions {
                dump_dir: Some(dir.clone()),
                ..Default::default()
            };
            let r = hlox_cpu::compile(m, &o)
                .map_err(|e| e.to_string())
                .and_then(|_| {
                    let file = match emit {
                        Emit::LlvmIr => "module.ll",
                        _ => "buffer-assignment.txt",
                    };
                    std::fs::read_to_string(dir.join(file)).map_err(|e| e.to_string())
                });
            let _ = std::fs::remove_dir_all(&dir);
            r
        }
    }
}

fn run_engine(run: &Run, m: &Module, args: &[Literal]) -> Result<Literal, String> {
    match run.engine {
        Engine::Interpret => hlox_eval::evaluate_with_registry_rounding(
            m,
            args,
            hlox_ffi::Registry::global(),
            &Default::default(),
            run.half_rounding,
        )
        .map_err(|e| e.to_string()),
        Engine::Host => {
            let o = hlox_cpu::CompileOptions {
                opt_level: run.opt_level,
                hlo_passes: run.hlo_passes,
                half_rounding: run.half_rounding,
                ..Default::default()
            };
            let exe = hlox_cpu::compile(m, &o).map_err(|e| e.to_string())?;
            exe.execute(&args.iter().collect::<Vec<_>>())
                .map_err(|e| e.to_string())
        }
        Engine::CudaEmulate => {
            let o = hlox_cuda::CompileOptions {
                opt_level: run.opt_level,
                hlo_passes: run.hlo_passes,
                half_rounding: run.half_rounding,
                ..Default::default()
            };
            let c = hlox_cuda::compile(m, &o).map_err(|e| e.to_string())?;
            let exe = hlox_cuda::emulate::EmulatedExecutable::new(c).map_err(|e| e.to_string())?;
            exe.execute(args).map_err(|e| e.to_string())
        }
    }
}

/// Leaf by leaf: same shapes (layouts included); bits equal when `tol` is
/// 0, else the corpus rule for floats (integers stay exact).
fn compare(got: &Literal, want: &Literal, tol: f64) -> Result<(), String> {
    if got.shape() != want.shape() {
        return Err(format!(
            "shape {} != expected {}",
            shape_to_string(&got.shape()),
            shape_to_string(&want.shape())
        ));
    }
    for (i, (g, w)) in got.leaves().into_iter().zip(want.leaves()).enumerate() {
        let (Ok(ga), Ok(wa)) = (g.as_array(), w.as_array()) else {
            continue; // tokens
        };
        if tol == 0.0 {
            let (gb, wb) = (ga.logical_bytes(), wa.logical_bytes());
            if let Some(p) = gb.iter().zip(&wb).position(|(a, b)| a != b) {
                return Err(format!(
                    "leaf {i}: element {} differs (bit-exact comparison)",
                    p / ga.ty().byte_size().max(1)
                ));
            }
        } else {
            hlox_tests::compare_literals(g, w, tol, tol).map_err(|e| format!("leaf {i}: {e}"))?;
        }
    }
    Ok(())
}
