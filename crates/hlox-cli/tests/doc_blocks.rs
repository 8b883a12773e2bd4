//! Every fenced code block of README.md and docs/*.md (whatever .md files
//! are there when the test runs) is compiled, run or checked:
//!
//! - `rust`: compiled and run as doctests of the hlox-examples crate (its
//!   build.rs includes every doc file); here we only refuse `ignore`, which
//!   would skip even compiling;
//! - `hlo`: parsed and verified; `hlo,error` must fail to parse or verify;
//! - `sh`: every line whose commands are all in [`RUN`] is run with bash
//!   (`set -euo pipefail`), `hlox` being the binary under test; lines with a
//!   command of [`NOT_RUN`] (cargo, make, python, ...) are listed as not run;
//! - `console`: each `$ command` is run the same way and its stdout+stderr
//!   must equal the lines that follow it, where `...` inside a line matches
//!   any text and a line of just `...` matches any number of lines;
//! - `c`: `cc -fsyntax-only -I targets/include`;
//! - `toml`: every line must be a line of a committed Cargo config file
//!   (`.cargo/config.toml` or a `Cargo.toml` of the workspace);
//! - `python`: parsed by `python3` (syntax only);
//! - `text`: not checked (diagrams, sample output), listed;
//! - a `gpu` tag on any block: skipped with a note (no GPU in CI).
//!
//! A block without a language, or with one not above, fails the test.
//! Commands run in one scratch directory per doc file (blocks share it, in
//! order), where `tests`, `targets`, `examples`, `docs` and `scripts` link to
//! the repository's, so docs use committed inputs by relative path.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Commands that `sh` and `console` blocks may run.
const RUN: &[&str] = &[
    "hlox", "cc", "nm", "readelf", "objdump", "ls", "cat", "head", "tail", "mkdir", "cd", "echo",
    "test", "grep", "diff", "cp", "wc", "rm", "true", "sort", "sed",
];
/// Commands that are shown to the reader but not run here.
const NOT_RUN: &[&str] = &[
    "cargo",
    "strip",
    "make",
    "dot",
    "python",
    "python3",
    "/opt/jaxvenv/bin/python",
    "pip",
    "git",
    "sudo",
    "apt-get",
    "gdb",
    "lldb",
    "nvidia-smi",
    "bash",
];

struct Block {
    file: String,
    line: usize,
    lang: String,
    tags: Vec<String>,
    body: String,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn doc_files() -> Vec<String> {
    let mut v = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    v.extend(docs);
    v
}

fn blocks(file: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let mut out = Vec::new();
    // (line, language, tags, indentation of the fence)
    let mut open: Option<(usize, String, Vec<String>, usize)> = None;
    let mut body = String::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        match &open {
            None => {
                if let Some(info) = t.strip_prefix("```") {
                    let mut parts = info
                        .split([',', ' '])
                        .filter(|s| !s.is_empty())
                        .map(str::to_string);
                    let lang = parts.next().unwrap_or_default();
                    open = Some((i + 1, lang, parts.collect(), line.len() - t.len()));
                    body.clear();
                }
            }
            Some((start, lang, tags, indent)) => {
                if t.starts_with("```") {
                    out.push(Block {
                        file: file.to_string(),
                        line: *start,
                        lang: lang.clone(),
                        tags: tags.clone(),
                        body: std::mem::take(&mut body),
                    });
                    open = None;
                } else {
                    // A block inside a list item: drop the fence's indentation.
                    let strip = line.len() - line.trim_start().len();
                    body.push_str(&line[strip.min(*indent)..]);
                    body.push('\n');
                }
            }
        }
    }
    assert!(open.is_none(), "{file}: unclosed code block");
    out
}

/// Lines with `\` continuations joined.
fn logical_lines(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for l in body.lines() {
        if let Some(head) = l.strip_suffix('\\') {
            cur.push_str(head);
            cur.push(' ');
        } else {
            cur.push_str(l);
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The commands of a shell line (first word of each `|`, `&&`, `;` stage,
/// after `VAR=value` assignments). Comments are dropped.
fn commands_of(line: &str) -> Vec<String> {
    let code = match line.find(" #") {
        Some(i) => &line[..i],
        None if line.trim_start().starts_with('#') => "",
        None => line,
    };
    code.split(['|', ';'])
        .flat_map(|s| s.split("&&"))
        .filter_map(|stage| {
            stage
                .split_whitespace()
                .find(|w| !w.contains('=') || w.starts_with('-'))
                .map(str::to_string)
        })
        .collect()
}

enum Verdict {
    Run,
    NotRun,
    Empty,
    /// `NAME=value` alone: kept for the later blocks of the same file.
    Setup,
}

fn classify(b: &Block, line: &str) -> Verdict {
    let t = line.trim();
    if let Some((name, value)) = t.split_once('=') {
        if !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !value.contains(char::is_whitespace)
        {
            return Verdict::Setup;
        }
    }
    let cmds = commands_of(line);
    if cmds.is_empty() {
        return Verdict::Empty;
    }
    if cmds.iter().any(|c| NOT_RUN.contains(&c.as_str())) {
        return Verdict::NotRun;
    }
    for c in &cmds {
        assert!(
            RUN.contains(&c.as_str()),
            "{}:{}: command `{c}` in `{line}` is in neither RUN nor NOT_RUN of \
             crates/hlox-cli/tests/doc_blocks.rs: add it to one of them",
            b.file,
            b.line
        );
    }
    Verdict::Run
}

/// A scratch directory for one doc file, with the repository's input folders linked in.
fn scratch(file: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("doc_blocks")
        .join(file.replace('/', "_"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for d in ["tests", "targets", "examples", "docs", "scripts"] {
        std::os::unix::fs::symlink(root().join(d).canonicalize().unwrap(), dir.join(d)).unwrap();
    }
    dir
}

fn bash(dir: &Path, script: &str) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_hlox")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("HLOX_LOG")
        .output()
        .expect("bash runs")
}

fn line_matches(want: &str, got: &str) -> bool {
    let parts: Vec<&str> = want.split("...").collect();
    if parts.len() == 1 {
        return want == got;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !got.starts_with(first) || !got.ends_with(last) || got.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &got[first.len()..got.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// `want` lines against `got` lines; a `...` line matches any number of lines.
fn output_matches(want: &[&str], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((&"...", rest)) => (0..=got.len()).any(|k| output_matches(rest, &got[k..])),
        Some((w, rest)) => {
            !got.is_empty() && line_matches(w, got[0]) && output_matches(rest, &got[1..])
        }
    }
}

#[derive(Default)]
struct Tally {
    /// `NAME=value` lines of the current file so far.
    setup: String,
    checked: usize,
    commands: usize,
    not_run: Vec<String>,
    failures: Vec<String>,
}

fn check_sh(b: &Block, dir: &Path, t: &mut Tally) {
    let mut script = String::from("set -euo pipefail\n");
    script.push_str(&t.setup);
    let mut ran = 0;
    for line in logical_lines(&b.body) {
        match classify(b, &line) {
            Verdict::Setup => {
                t.setup.push_str(line.trim());
                t.setup.push('\n');
                script.push_str(line.trim());
                script.push('\n');
            }
            Verdict::Run => {
                script.push_str(&line);
                script.push('\n');
                ran += 1;
            }
            Verdict::NotRun => t
                .not_run
                .push(format!("{}:{}: {}", b.file, b.line, line.trim())),
            Verdict::Empty => {}
        }
    }
    if ran == 0 {
        return;
    }
    let o = bash(dir, &script);
    t.commands += ran;
    if !o.status.success() {
        t.failures.push(format!(
            "{}:{}: sh block failed ({}):\n{script}\nstdout:\n{}\nstderr:\n{}",
            b.file,
            b.line,
            o.status,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
}

fn check_console(b: &Block, dir: &Path, t: &mut Tally) {
    // (command, expected output lines)
    let mut steps: Vec<(String, Vec<String>)> = Vec::new();
    let mut pending = String::new();
    for l in b.body.lines() {
        if !pending.is_empty() {
            match l.strip_suffix('\\') {
                Some(h) => pending.push_str(&format!("{h} ")),
                None => {
                    pending.push_str(l);
                    steps.push((std::mem::take(&mut pending), Vec::new()));
                }
            }
        } else if let Some(cmd) = l.strip_prefix("$ ") {
            match cmd.strip_suffix('\\') {
                Some(h) => pending = format!("{h} "),
                None => steps.push((cmd.to_string(), Vec::new())),
            }
        } else if let Some(last) = steps.last_mut() {
            last.1.push(l.trim_end().to_string());
        } else {
            t.failures.push(format!(
                "{}:{}: console block must start with a `$ ` command",
                b.file, b.line
            ));
            return;
        }
    }
    for (cmd, want) in steps {
        match classify(b, &cmd) {
            Verdict::NotRun => {
                t.not_run.push(format!("{}:{}: {cmd}", b.file, b.line));
                continue;
            }
            Verdict::Empty => continue,
            Verdict::Setup => {
                t.setup.push_str(cmd.trim());
                t.setup.push('\n');
                continue;
            }
            Verdict::Run => {}
        }
        let o = bash(dir, &format!("{}{{ {cmd}\n}} 2>&1", t.setup));
        t.commands += 1;
        let got = String::from_utf8_lossy(&o.stdout).into_owned();
        let got_lines: Vec<&str> = got.lines().map(str::trim_end).collect();
        let mut want: Vec<&str> = want.iter().map(String::as_str).collect();
        while want.last() == Some(&"") {
            want.pop();
        }
        if !output_matches(&want, &got_lines) {
            t.failures.push(format!(
                "{}:{}: `{cmd}` printed:\n{got}\nbut the doc says:\n{}",
                b.file,
                b.line,
                want.join("\n")
            ));
        }
    }
}

fn check_hlo(b: &Block, t: &mut Tally) {
    let r = hlox_hlo::text::parse_module(&b.body)
        .map_err(|e| e.to_string())
        .and_then(|m| hlox_hlo::verifier::verify_module(&m).map_err(|e| e.to_string()));
    let expect_error = b.tags.iter().any(|t| t == "error");
    match (r, expect_error) {
        (Ok(()), false) | (Err(_), true) => {}
        (Err(e), false) => t.failures.push(format!(
            "{}:{}: hlo block does not parse and verify (tag it `hlo,error` if that is the point): {e}",
            b.file, b.line
        )),
        (Ok(()), true) => t.failures.push(format!(
            "{}:{}: hlo,error block parses and verifies",
            b.file, b.line
        )),
    }
}

fn check_c(b: &Block, t: &mut Tally) {
    let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cc.args(["-fsyntax-only", "-Wall", "-x", "c", "-I"])
        .arg(root().join("targets/include"))
        .arg("-");
    if !feed(b, t, cc, "C block does not compile") {
        panic!("no C compiler: cc (or $CC) could not be started");
    }
}

/// Run `cmd` with the block's text on its standard input; a failure on
/// `t` (`what`, then its standard error) when it exits non-zero. False
/// when `cmd` cannot be started.
fn feed(b: &Block, t: &mut Tally, mut cmd: Command, what: &str) -> bool {
    use std::io::Write;
    let Ok(mut child) = cmd
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    else {
        return false;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b.body.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    if !o.status.success() {
        t.failures.push(format!(
            "{}:{}: {what}:\n{}",
            b.file,
            b.line,
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    true
}

fn check_toml(b: &Block, t: &mut Tally) {
    let mut committed = String::new();
    for f in [".cargo/config.toml", "Cargo.toml"] {
        committed.push_str(&std::fs::read_to_string(root().join(f)).unwrap_or_default());
    }
    for d in ["crates", "targets", "examples", "tests"] {
        let dir = root().join(d);
        committed.push_str(&std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default());
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path().join("Cargo.toml");
            committed.push_str(&std::fs::read_to_string(p).unwrap_or_default());
        }
    }
    let lines: Vec<&str> = committed.lines().map(str::trim).collect();
    for l in b.body.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !lines.contains(&l) {
            t.failures.push(format!(
                "{}:{}: toml line `{l}` is in no committed Cargo.toml or .cargo/config.toml",
                b.file, b.line
            ));
        }
    }
}

fn check_python(b: &Block, t: &mut Tally) {
    let mut py = Command::new("python3");
    py.args(["-c", "import ast, sys; ast.parse(sys.stdin.read())"]);
    if !feed(b, t, py, "python block does not parse") {
        t.not_run
            .push(format!("{}:{}: python block (no python3)", b.file, b.line));
    }
}

#[test]
fn every_doc_code_block_is_compiled_run_or_checked() {
    let mut t = Tally::default();
    let mut langs: std::collections::BTreeMap<String, usize> = Default::default();
    for file in doc_files() {
        let dir = scratch(&file);
        t.setup.clear();
        for b in blocks(&file) {
            *langs.entry(b.lang.clone()).or_default() += 1;
            if b.tags.iter().any(|t| t == "gpu") {
                t.not_run.push(format!(
                    "{}:{}: {} block tagged gpu (needs a GPU)",
                    b.file, b.line, b.lang
                ));
                continue;
            }
            t.checked += 1;
            match b.lang.as_str() {
                "rust" => {
                    if b.tags.iter().any(|t| t == "ignore") {
                        t.failures.push(format!(
                            "{}:{}: rust,ignore is not compiled; use no_run (compiled) or `text`",
                            b.file, b.line
                        ));
                    }
                }
                "hlo" => check_hlo(&b, &mut t),
                "sh" => check_sh(&b, &dir, &mut t),
                "console" => check_console(&b, &dir, &mut t),
                "c" => check_c(&b, &mut t),
                "toml" => check_toml(&b, &mut t),
                "python" => check_python(&b, &mut t),
                "text" => {
                    t.checked -= 1;
                    t.not_run
                        .push(format!("{}:{}: text block (not code)", b.file, b.line));
                }
                "" => t.failures.push(format!(
                    "{}:{}: code block without a language: tag it (rust, hlo, sh, console, c, \
                     toml, python, or text for what is not code)",
                    b.file, b.line
                )),
                other => t.failures.push(format!(
                    "{}:{}: code block language `{other}` is not checked by \
                     crates/hlox-cli/tests/doc_blocks.rs: use a known one or teach the test",
                    b.file, b.line
                )),
            }
        }
    }
    eprintln!("doc blocks by language: {langs:?}");
    eprintln!(
        "checked {} blocks, ran {} commands; not run:",
        t.checked, t.commands
    );
    for n in &t.not_run {
        eprintln!("  {n}");
    }
    assert!(
        t.failures.is_empty(),
        "{} doc block problem(s):\n\n{}",
        t.failures.len(),
        t.failures.join("\n\n")
    );
    assert!(t.commands > 10, "too few doc commands ran: {}", t.commands);
}

#[test]
fn output_matching_rules() {
    assert!(line_matches("a...c", "abbbc"));
    assert!(!line_matches("a...c", "abbbd"));
    assert!(line_matches("x=...ms", "x=1.5ms"));
    assert!(line_matches("...", ""));
    assert!(output_matches(&["a", "...", "z"], &["a", "b", "c", "z"]));
    assert!(output_matches(&["a", "...", "z"], &["a", "z"]));
    assert!(!output_matches(&["a", "z"], &["a", "b", "z"]));
    assert_eq!(
        commands_of("HLOX_LOG=debug hlox run x | head -3 # note"),
        ["hlox", "head"]
    );
    assert_eq!(commands_of("cc -shared x.c && nm x.so"), ["cc", "nm"]);
}
