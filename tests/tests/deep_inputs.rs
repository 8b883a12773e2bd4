//! (A module of the `failures` test binary.)
//!
//! Issue 27: inputs that are deep, long or never-ending. Each case runs on a
//! thread with a library thread's default 2 MiB stack (where hlox used to
//! overflow it: a fused chain of about 1,430 elementwise ops, 64 nested
//! calls in the evaluator, 17,500 nested tuple levels in the parser), at
//! sizes past those failure points, and ends in a correct result or an
//! error naming the limit. Cancellation and timeouts stop a `while(true)`
//! module on both engines.

use hlox_eval::{evaluate, evaluate_with, EvalError, NoCustomCalls};
use hlox_hlo::cancel::Stop;
use hlox_hlo::text::parse_module;
use hlox_hlo::text::print::print_module;
use hlox_hlo::types::MAX_TUPLE_DEPTH;
use hlox_hlo::verifier::verify_module;
use hlox_hlo::{CancelToken, ExecuteOptions, Literal, Module, Shape};
use std::fmt::Write;
use std::time::{Duration, Instant};

/// Runs `f` on a thread with a 2 MiB stack (Rust's default for spawned
/// threads, and what a library caller's thread often has).
fn on_small_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn_scoped(s, f)
            .unwrap()
            .join()
            .unwrap()
    })
}

fn compile(m: &Module) -> hlox_cpu::Executable {
    hlox_cpu::compile(m, &Default::default()).unwrap_or_else(|e| panic!("{}: {e}", m.name))
}

fn f32s(l: &Literal) -> Vec<f32> {
    l.to_vec::<f32>().unwrap()
}

#[test]
fn a_fused_chain_of_10000_elementwise_ops_compiles_on_a_small_stack() {
    let mut t = String::from(
        "HloModule chain\nENTRY e {\n  p = f32[16] parameter(0)\n  q = f32[16] parameter(1)\n  a0 = f32[16] add(p, q)\n",
    );
    for i in 1..10_000 {
        let op = ["add", "multiply", "subtract"][i % 3];
        let other = if i % 2 == 1 { "p" } else { "q" };
        writeln!(t, "  a{i} = f32[16] {op}(a{}, {other})", i - 1).unwrap();
    }
    t.push_str("  ROOT r = f32[16] add(a9999, p)\n}\n");
    let m = parse_module(&t).unwrap();
    let p =
        Literal::from_vec(&[16], &(0..16).map(|i| i as f32 / 16.0).collect::<Vec<_>>()).unwrap();
    let q = Literal::from_vec(&[16], &[0.5f32; 16]).unwrap();
    let want = evaluate(&m, &[p.clone(), q.clone()], &NoCustomCalls).unwrap();
    let got = on_small_stack(|| compile(&m).execute(&[&p, &q]).unwrap());
    assert_eq!(f32s(&got), f32s(&want));
}

/// `c0` adds its parameter to itself; `c{i}` calls `c{i-1}`; the entry
/// calls `c{n-1}`: `n` nested calls, result `2 x`.
fn call_chain(n: usize) -> String {
    let mut t = String::from(
        "HloModule calls\n\nc0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] add(p, p)\n}\n",
    );
    for i in 1..n {
        writeln!(
            t,
            "\nc{i} {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c{}\n}}",
            i - 1
        )
        .unwrap();
    }
    writeln!(
        t,
        "\nENTRY e {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c{}\n}}",
        n - 1
    )
    .unwrap();
    t
}

#[test]
fn a_chain_of_100000_calls_parses_and_prints_in_linear_time() {
    // Was quadratic: 10,000 took 33 s, 100,000 did not finish in 120 s.
    let t = call_chain(100_000);
    let start = Instant::now();
    let text = on_small_stack(|| {
        let m = parse_module(&t).unwrap();
        verify_module(&m).unwrap();
        print_module(&m)
    });
    let took = start.elapsed();
    assert!(text.contains("ROOT r.100000 = f32[] call(p.100000), to_apply=c99999"));
    // Generous for an unoptimized build on a busy machine; about 3 s here.
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

#[test]
fn calls_nested_1000_deep_run_on_a_small_stack() {
    // The evaluator refused 64 ("a call cycle?").
    let m = parse_module(&call_chain(1000)).unwrap();
    verify_module(&m).unwrap();
    let x = Literal::from_vec(&[], &[1.25f32]).unwrap();
    let got = on_small_stack(|| evaluate(&m, std::slice::from_ref(&x), &NoCustomCalls).unwrap());
    assert_eq!(f32s(&got), [2.5]);
    let got = on_small_stack(|| compile(&m).execute(&[&x]).unwrap());
    assert_eq!(f32s(&got), [2.5]);
}

#[test]
fn a_call_cycle_in_an_unverified_module_is_an_error_not_a_stack_overflow() {
    // Built by hand (the parser and the verifier refuse cycles): c0 calls c1
    // calls c0.
    let mut m = parse_module(&call_chain(3)).unwrap();
    let c0 = m.computations.keys().next().unwrap();
    let c1 = m.computations.keys().nth(1).unwrap();
    let root = m.computations[c0].root;
    m.computations[c0].instructions[root] =
        m.computations[c1].instructions[m.computations[c1].root].clone();
    m.computations[c0].instructions[root].called = vec![c1];
    let e = on_small_stack(|| {
        evaluate(
            &m,
            &[Literal::from_vec(&[], &[1f32]).unwrap()],
            &NoCustomCalls,
        )
        .unwrap_err()
    });
    assert!(matches!(e, EvalError::TooDeep(..)), "{e}");
    assert!(e.to_string().contains("the module has a call cycle"), "{e}");
}

fn nested_tuple(depth: usize, leaf: &str) -> String {
    format!("{}{leaf}{}", "(".repeat(depth), ")".repeat(depth))
}

#[test]
fn tuples_nest_up_to_the_limit_and_deeper_is_an_error_naming_it() {
    // 100,000 levels overflowed the parser's stack (at about 17,500).
    let t = format!(
        "HloModule deep\nENTRY e {{\n  ROOT p = {} parameter(0)\n}}\n",
        nested_tuple(100_000, "f32[2]")
    );
    let e = on_small_stack(|| parse_module(&t).unwrap_err().to_string());
    // The 200,000-character line is shown as a window around the column.
    assert!(e.len() < 600, "{} characters", e.len());
    assert!(
        e.contains(&format!(
            "tuple shapes nest more than {MAX_TUPLE_DEPTH} levels deep (hlox's limit"
        )),
        "{}",
        &e[..e.len().min(300)]
    );

    // At the limit, everything works: parse, verify, print, proto, both engines.
    let t = format!(
        "HloModule deep\nENTRY e {{\n  ROOT p = {} parameter(0)\n}}\n",
        nested_tuple(MAX_TUPLE_DEPTH, "f32[2]")
    );
    on_small_stack(|| {
        let m = parse_module(&t).unwrap();
        verify_module(&m).unwrap();
        let printed = print_module(&m);
        assert_eq!(print_module(&parse_module(&printed).unwrap()), printed);
        let back = hlox_hlo::proto::decode_module(&hlox_hlo::proto::encode_module(&m)).unwrap();
        assert_eq!(print_module(&back), printed);
        let mut arg = Literal::from_vec(&[2], &[1.5f32, -2.0]).unwrap();
        for _ in 0..MAX_TUPLE_DEPTH {
            arg = Literal::tuple(vec![arg]);
        }
        let got = evaluate(&m, std::slice::from_ref(&arg), &NoCustomCalls).unwrap();
        assert_eq!(got, arg);
        assert_eq!(compile(&m).execute(&[&arg]).unwrap(), arg);
    });

    // A module built in Rust past the limit: the verifier says so first.
    let mut m = parse_module(&t).unwrap();
    let c = m.entry;
    let root = m.computations[c].root;
    let s = m.computations[c].instructions[root].shape.clone();
    m.computations[c].instructions[root].shape = Shape::tuple(vec![s]);
    let e = verify_module(&m).unwrap_err().to_string();
    assert!(
        e.contains(&format!(
            "its shape nests tuples {} levels deep, more than hlox's limit of {MAX_TUPLE_DEPTH}",
            MAX_TUPLE_DEPTH + 1
        )),
        "{e}"
    );
}

#[test]
fn a_shape_of_100000_dimensions_parses_and_runs() {
    // XLA parses it; the Host backend overflowed its stack emitting one
    // loop per dimension.
    // Its literal has 100,000 nested braces (the literal parser and printer
    // overflowed their stacks on them).
    let dims = vec!["1"; 100_000].join(",");
    let lit = format!("{}7{}", "{".repeat(100_000), "}".repeat(100_000));
    let t = format!(
        "HloModule dims\nENTRY e {{\n  p = f32[{dims}] parameter(0)\n  c = f32[{dims}] constant({lit})\n  \
         s = f32[{dims}] add(p, c)\n  ROOT n = f32[{dims}] negate(s)\n}}\n"
    );
    on_small_stack(|| {
        let m = parse_module(&t).unwrap();
        verify_module(&m).unwrap();
        let printed = print_module(&m);
        assert_eq!(print_module(&parse_module(&printed).unwrap()), printed);
        let x = Literal::from_vec(&vec![1i64; 100_000], &[3.5f32]).unwrap();
        assert_eq!(
            f32s(&evaluate(&m, std::slice::from_ref(&x), &NoCustomCalls).unwrap()),
            [-10.5]
        );
        assert_eq!(f32s(&compile(&m).execute(&[&x]).unwrap()), [-10.5]);
    });
}

/// A `while(true)` loop: it never ends unless stopped.
const FOREVER: &str = r#"HloModule forever

cond {
  s = (s32[], f32[4]) parameter(0)
  ROOT t = pred[] constant(true)
}

body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  n = s32[] add(i, one)
  x = f32[4] get-tuple-element(s), index=1
  y = f32[4] sine(x)
  ROOT r = (s32[], f32[4]) tuple(n, y)
}

ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(w), index=1
}
"#;

#[test]
fn a_while_true_module_is_cancelled_from_another_thread() {
    let m = parse_module(FOREVER).unwrap();
    let exe = compile(&m);
    let x = Literal::from_vec(&[4], &[0.5f32; 4]).unwrap();
    for engine in ["host", "interpret"] {
        let token = CancelToken::new();
        let options = ExecuteOptions::with_cancel(token.clone());
        let start = Instant::now();
        let err = std::thread::scope(|s| {
            let run = s.spawn(|| match engine {
                "host" => exe.execute_with(&[&x], &options).unwrap_err().to_string(),
                _ => evaluate_with(&m, std::slice::from_ref(&x), &NoCustomCalls, &options)
                    .unwrap_err()
                    .to_string(),
            });
            std::thread::sleep(Duration::from_millis(200));
            assert!(!run.is_finished(), "{engine}: the loop ended by itself");
            token.cancel();
            run.join().unwrap()
        });
        assert!(start.elapsed() < Duration::from_secs(20), "{engine}");
        assert!(
            err.contains("`forever` cancelled (its CancelToken was cancelled)"),
            "{engine}: {err}"
        );
        // A cancelled token stops later runs at once.
        let err = match engine {
            "host" => exe.execute_with(&[&x], &options).unwrap_err().to_string(),
            _ => evaluate_with(&m, std::slice::from_ref(&x), &NoCustomCalls, &options)
                .unwrap_err()
                .to_string(),
        };
        assert!(err.contains("cancelled"), "{engine}: {err}");
    }
    // The executable is still good: a loop that ends runs to its result.
    let ends = FOREVER.replace(
        "ROOT t = pred[] constant(true)",
        "ROOT t = pred[] constant(false)",
    );
    let m2 = parse_module(&ends).unwrap();
    assert_eq!(f32s(&compile(&m2).execute(&[&x]).unwrap()), [0.5; 4]);
}

#[test]
fn a_timeout_stops_a_while_true_module() {
    let m = parse_module(FOREVER).unwrap();
    let exe = compile(&m);
    let x = Literal::from_vec(&[4], &[0.5f32; 4]).unwrap();
    let options = ExecuteOptions::with_timeout(Duration::from_millis(300));
    let start = Instant::now();
    let e = exe.execute_with(&[&x], &options).unwrap_err();
    assert!(
        matches!(
            e,
            hlox_cpu::ExecError::Stopped {
                stop: Stop::Deadline(_),
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("stopped: its timeout of 0.300 s passed"),
        "{e}"
    );
    let e = evaluate_with(&m, std::slice::from_ref(&x), &NoCustomCalls, &options).unwrap_err();
    assert!(
        matches!(
            e,
            EvalError::Stopped {
                stop: Stop::Deadline(_),
                ..
            }
        ),
        "{e}"
    );
    assert!(start.elapsed() < Duration::from_secs(20));
    // A timeout that does not pass changes nothing.
    let ends = FOREVER.replace(
        "ROOT t = pred[] constant(true)",
        "ROOT t = pred[] constant(false)",
    );
    let m2 = parse_module(&ends).unwrap();
    let long = ExecuteOptions::with_timeout(Duration::from_secs(600));
    assert_eq!(
        f32s(&compile(&m2).execute_with(&[&x], &long).unwrap()),
        [0.5; 4]
    );
}
