//! (A module of the `failures` test binary.)
//!
//! CI's bounded fuzzing pass. The fuzz targets of tests/fuzz need nightly
//! Rust and libFuzzer (`make fuzz`); CI has only stable, so this runs the
//! same properties (`tests/fuzz/checks.rs`) over inputs made by a small
//! seeded mutator: the committed corpus's modules with bytes flipped,
//! inserted, deleted, duplicated and spliced, and HLO tokens from the
//! libFuzzer dictionary dropped in. Each target runs for a bounded time
//! (`HLOX_FUZZ_SECS`, default 10 seconds) from a fixed seed
//! (`HLOX_FUZZ_SEED=N` or `=time` for another). A failing input is written under
//! `target/fuzz-smoke/` and the test fails naming that file and the command
//! that replays it under libFuzzer.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[path = "../fuzz/checks.rs"]
mod checks;

/// xorshift64*: a deterministic stream from one seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn budget() -> Duration {
    let secs = std::env::var("HLOX_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(10.0);
    Duration::from_secs_f64(secs.max(0.0))
}

/// The mutator's seed: fixed by default, so that CI's pass is
/// reproducible (a longer budget walks further along the same sequence);
/// `HLOX_FUZZ_SEED=N` picks another, `HLOX_FUZZ_SEED=time` a new one each
/// run (printed with `--nocapture`).
fn seed() -> u64 {
    match std::env::var("HLOX_FUZZ_SEED").ok().as_deref() {
        Some("time") => {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1);
            t | 1
        }
        Some(s) => s.parse::<u64>().map(|s| s | 1).unwrap_or(0x686c_6f78),
        None => 0x686c_6f78,
    }
}

/// The libFuzzer dictionary's tokens (`"token"` lines).
fn dictionary() -> Vec<Vec<u8>> {
    let path = hlox_tests::workspace_root().join("tests/fuzz/hlo.dict");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let s = l.strip_prefix('"')?.strip_suffix('"')?;
            Some(s.replace("\\\"", "\"").replace("\\\\", "\\").into_bytes())
        })
        .collect()
}

/// One to four mutations of `input`, drawing on `seeds` and `dict`.
fn mutate(rng: &mut Rng, input: &[u8], seeds: &[Vec<u8>], dict: &[Vec<u8>]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = v.len();
        match rng.below(8) {
            0 if len > 0 => {
                let i = rng.below(len);
                v[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(len + 1);
                v.insert(i, rng.next() as u8);
            }
            2 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(64));
                v.drain(i..i + n);
            }
            3 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(64));
                let piece = v[i..i + n].to_vec();
                let at = rng.below(len + 1);
                v.splice(at..at, piece);
            }
            4 if !dict.is_empty() => {
                let tok = &dict[rng.below(dict.len())];
                let at = rng.below(len + 1);
                v.splice(at..at, tok.iter().copied());
            }
            5 if !seeds.is_empty() => {
                // Splice: our head, another seed's tail.
                let other = &seeds[rng.below(seeds.len())];
                let (a, b) = (rng.below(len + 1), rng.below(other.len() + 1));
                v.truncate(a);
                v.extend_from_slice(&other[b..]);
            }
            6 if len > 0 => {
                v.truncate(rng.below(len));
            }
            7 if len > 0 => {
                // An interesting byte: digits and separators move numbers
                // and structure around in text and in varints.
                let i = rng.below(len);
                v[i] = b"0123456789,{}[]()=-\x00\x7f\x80\xff"[rng.below(23)];
            }
            _ => {}
        }
    }
    v
}

struct Outcome {
    runs: usize,
    failure: Option<(String, PathBuf)>,
}

/// Runs `check` on the seeds, then on mutants until the budget is spent.
fn fuzz(
    name: &str,
    seeds: &[Vec<u8>],
    dict: &[Vec<u8>],
    check: fn(&[u8]),
    budget: Duration,
) -> Outcome {
    let s = seed();
    let mut rng = Rng(s);
    let deadline = Instant::now() + budget;
    let mut runs = 0;
    let mut inputs = seeds.iter().cloned().map(|x| (x, true));
    loop {
        let (input, _) = match inputs.next() {
            Some(x) => x,
            None if Instant::now() < deadline && !seeds.is_empty() => {
                let base = &seeds[rng.below(seeds.len())];
                (mutate(&mut rng, base, seeds, dict), false)
            }
            None => break,
        };
        runs += 1;
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| check(&input))) {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let dir = hlox_tests::workspace_root().join("target/fuzz-smoke");
            let _ = std::fs::create_dir_all(&dir);
            let path = dir.join(format!("{name}-seed{s}-run{runs}"));
            let _ = std::fs::write(&path, &input);
            return Outcome {
                runs,
                failure: Some((msg, path)),
            };
        }
    }
    eprintln!("fuzz-smoke {name}: {runs} inputs, seed {s}, no failure");
    Outcome {
        runs,
        failure: None,
    }
}

/// The `.hlo` files of a directory of the repository, sorted.
fn hlo_files(dir: &str) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(hlox_tests::workspace_root().join(dir)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlo"))
        .collect();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// One file of every corpus case (`module.hlo` or `module.pb`).
fn corpus_files(path: fn(&hlox_tests::CorpusCase) -> PathBuf) -> Vec<Vec<u8>> {
    hlox_tests::corpus_cases()
        .iter()
        .filter_map(|c| std::fs::read(path(c)).ok())
        .collect()
}

fn assert_clean(name: &str, o: Outcome) {
    if let Some((msg, path)) = o.failure {
        panic!(
            "fuzz-smoke {name}: property failed after {} inputs: {msg}\n\
             input saved to {}\n\
             replay it: cargo +nightly fuzz run --fuzz-dir tests/fuzz {name} {}\n\
             then add it to tests/tests/fuzz_regressions.rs",
            o.runs,
            path.display(),
            path.display()
        );
    }
    assert!(
        o.runs > 0,
        "fuzz-smoke {name}: no input ran (no seeds found)"
    );
}

#[test]
fn fuzz_smoke_parse_text() {
    let mut seeds = corpus_files(hlox_tests::CorpusCase::hlo_path);
    seeds.extend(hlo_files("tests/filetests/text"));
    assert!(seeds.len() >= 40, "only {} text seeds", seeds.len());
    let o = fuzz(
        "parse_text",
        &seeds,
        &dictionary(),
        checks::parse_text,
        budget(),
    );
    assert_clean("parse_text", o);
}

#[test]
fn fuzz_smoke_parse_stablehlo() {
    let seeds = corpus_files(|c| c.dir.join("module.mlir"));
    assert!(seeds.len() >= 40, "only {} StableHLO seeds", seeds.len());
    let dict: Vec<Vec<u8>> = [
        "stablehlo.",
        "func.func",
        "module",
        "%",
        "#",
        "loc(",
        "dense<",
        "tensor<",
        "xf32>",
        "xi1>",
        "array<i64: ",
        "({",
        "})",
        "^bb0(",
        "stablehlo.return",
        ":",
        "->",
        "\"",
        "0x",
        "[",
        "]",
    ]
    .iter()
    .map(|t| t.as_bytes().to_vec())
    .collect();
    let o = fuzz(
        "parse_stablehlo",
        &seeds,
        &dict,
        checks::parse_stablehlo,
        budget(),
    );
    assert_clean("parse_stablehlo", o);
}

#[test]
fn fuzz_smoke_decode_proto() {
    let seeds = corpus_files(hlox_tests::CorpusCase::pb_path);
    assert!(seeds.len() >= 40, "only {} proto seeds", seeds.len());
    let o = fuzz("decode_proto", &seeds, &[], checks::decode_proto, budget());
    assert_clean("decode_proto", o);
}

#[test]
fn fuzz_smoke_differential() {
    // Seeds: random choice strings; mutants of them reach new programs.
    let mut rng = Rng(0x5eed);
    let seeds: Vec<Vec<u8>> = (0..16)
        .map(|_| (0..64 + rng.below(448)).map(|_| rng.next() as u8).collect())
        .collect();
    let o = fuzz("differential", &seeds, &[], checks::differential, budget());
    assert_clean("differential", o);
}

/// The mutator and the harness can find a failure: a property that
/// rejects one byte value fails, and the input that failed is saved.
#[test]
fn fuzz_smoke_finds_a_planted_bug() {
    fn planted(data: &[u8]) {
        assert!(!data.contains(&0x7f), "planted: found 0x7f");
    }
    let seeds = vec![b"HloModule m".to_vec()];
    let o = fuzz("planted", &seeds, &[], planted, Duration::from_secs(30));
    let (msg, path) = o.failure.expect("the mutator reaches byte 0x7f");
    assert!(msg.contains("planted"), "{msg}");
    assert!(std::fs::read(&path).unwrap().contains(&0x7f));
    let _ = std::fs::remove_file(path);
}
