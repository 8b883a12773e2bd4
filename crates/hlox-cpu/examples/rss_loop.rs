//! Memory over many compilations: compiles and runs one small module (with a
//! custom call, a while loop, a reduce and a fusion) N times in one process
//! and prints the resident set size (from /proc/self/statm) at intervals.
//! Every compiled executable is dropped before the next is made, so RSS
//! must level off; steady growth means a leak (LLVM contexts, JIT engines,
//! boxed kernels, registry bindings).
//!
//! `cargo run --release -p hlox-cpu --example rss_loop -- [N] [EVERY]`
//! (defaults 10000 and 1000). Exits non-zero when a result is wrong, or
//! when RSS grew by more than 64 MiB between the first interval and the end.

use hlox_cpu::{compile, CompileOptions};
use hlox_ffi::Registry;
use hlox_hlo::text::parse_module;
use hlox_hlo::Literal;
use std::sync::Arc;

/// The module: an exponential and multiply fused, three trips of a while
/// loop around an in-place custom call, and a reduce.
const MODULE: &str = include_str!("rss_loop.hlo");

/// Resident set size in KiB.
fn rss_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    pages * 4
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let every: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let m = parse_module(MODULE).expect("module parses");
    // hlox-targets' static targets (inplace_add_one among them).
    let _ = hlox_targets::inplace_add_one as *const ();
    let reg = Registry::with_static_targets().expect("static targets");
    let opts = CompileOptions {
        registry: Some(Arc::new(reg)),
        ..Default::default()
    };
    let x = Literal::r1(&[0.5f32, -1.0, 2.0, 0.0]);
    let want: f32 = [0.5f32, -1.0, 2.0, 0.0]
        .iter()
        .map(|&v| v.exp() * v + 3.0)
        .sum();
    let t0 = std::time::Instant::now();
    let mut first = None;
    println!("cycle\trss_kib\tseconds");
    for i in 1..=n {
        let exe = compile(&m, &opts).expect("compile");
        let got = exe.execute(&[&x]).expect("execute");
        let got = got.get_first::<f32>().expect("f32 result");
        if (got - want).abs() > 1e-4 * want.abs() {
            eprintln!("cycle {i}: got {got}, want {want}");
            std::process::exit(1);
        }
        drop(exe);
        if i % every == 0 || i == 1 {
            let r = rss_kib();
            println!("{i}\t{r}\t{:.1}", t0.elapsed().as_secs_f64());
            if i == every.min(n) {
                first = Some(r);
            }
        }
    }
    let last = rss_kib();
    let first = first.unwrap_or(last);
    let growth = last as i64 - first as i64;
    println!(
        "rss after cycle {}: {first} KiB; after cycle {n}: {last} KiB; growth {growth} KiB ({:.2} KiB/cycle)",
        every.min(n),
        growth as f64 / (n.saturating_sub(every.min(n)).max(1)) as f64
    );
    if growth > 64 * 1024 {
        eprintln!("RSS grew by {growth} KiB: a leak");
        std::process::exit(2);
    }
}
