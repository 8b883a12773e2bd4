//! Failure handling: bad inputs at every stage, each with the error text it
//! must produce (a substring) and never a panic. One data-driven `check`
//! helper per area: HLO text, protos, the verifier, execution (Host backend
//! and evaluator), custom calls, resources. After every failure at execute
//! time the same executable (or module) runs again and gives the right
//! result.

// Targets follow XLA's C convention (raw pointers in, by design).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use hlox_ffi::{Platform, Registry, XlaCustomCallStatus};
use hlox_hlo::proto::{decode_module, module_to_proto};
use hlox_hlo::text::parse_module;
use hlox_hlo::verifier::verify_module;
use hlox_hlo::{Literal, Module};
use hlox_proto::xla;
use hlox_proto::Message;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

// In this binary too, so that LLVM is linked once for all four.
#[path = "deep_inputs.rs"]
mod deep_inputs;
#[path = "fuzz_regressions.rs"]
mod fuzz_regressions;
#[path = "fuzz_smoke.rs"]
mod fuzz_smoke;
#[path = "load.rs"]
mod load;
#[path = "sandbox.rs"]
mod sandbox;

/// Runs every case, catching panics, and fails once with all problems.
fn run_cases<T>(area: &str, cases: &[(T, &str)], f: impl Fn(&T) -> Result<String, String>) {
    let mut problems = Vec::new();
    for (i, (input, want)) in cases.iter().enumerate() {
        match catch_unwind(AssertUnwindSafe(|| f(input))) {
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                problems.push(format!("{area} case {i}: PANIC: {msg}"));
            }
            Ok(Ok(got)) => problems.push(format!(
                "{area} case {i}: expected an error containing {want:?}, got success: {got}"
            )),
            Ok(Err(e)) if !e.contains(want) => problems.push(format!(
                "{area} case {i}: error does not contain {want:?}:\n{e}"
            )),
            Ok(Err(e)) => {
                // `SHOW_ERRORS=1 cargo test --test failures -- --nocapture`
                // prints every error, to review their wording.
                if std::env::var_os("SHOW_ERRORS").is_some() {
                    eprintln!("{area} case {i}: {e}\n");
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} {area} cases wrong:\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n\n")
    );
}

/// A module whose entry has `p = f32[4]{0} parameter(0)` and then `body`.
fn entry(body: &str) -> String {
    format!("HloModule m\n\nENTRY e {{\n  p = f32[4]{{0}} parameter(0)\n{body}\n}}\n")
}

/// The scalar `add` computation, then an entry with `p` and `body`.
fn with_add(body: &str) -> String {
    format!(
        "HloModule m\n\nadd {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}}\n\nENTRY e {{\n  p = f32[4,4]{{1,0}} parameter(0)\n{body}\n}}\n"
    )
}

// ---------------------------------------------------------------------------
// HLO text: every production

fn check_text(src: &str) -> Result<String, String> {
    parse_module(src)
        .map(|m| format!("parsed module {}", m.name))
        .map_err(|e| e.to_string())
}

#[test]
fn malformed_hlo_text() {
    let cases: Vec<(String, &str)> = vec![
        // Module header.
        ("".into(), "expected 'HloModule'"),
        (
            "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n".into(),
            "expected 'HloModule'",
        ),
        ("HloModule".into(), "expected the module name, found end of input"),
        (
            "HloModule m, bogus_attribute=1\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n".into(),
            "unknown module attribute 'bogus_attribute'",
        ),
        (
            "HloModule m, entry_computation_layout={(f32[4]{0})->f32[8]{0}}\n\nENTRY e {\n  ROOT p = f32[4]{0} parameter(0)\n}\n".into(),
            "does not match the entry computation",
        ),
        // Computations.
        ("HloModule m\n".into(), "the module has no computations"),
        (
            "HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n".into(),
            "computation 'e' is missing its closing '}'",
        ),
        (
            "HloModule m\n\nf {\n  ROOT p = f32[] parameter(0)\n}\n\nf {\n  ROOT p = f32[] parameter(0)\n}\n\nENTRY e {\n  ROOT q = f32[] parameter(0)\n}\n".into(),
            "computation 'f' is defined twice",
        ),
        (
            "HloModule m\n\nENTRY e {\n}\n".into(),
            "computation 'e' has no instructions",
        ),
        (
            "HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n\nENTRY f {\n  ROOT p = f32[] parameter(0)\n}\n".into(),
            "more than one ENTRY computation",
        ),
        // Instructions.
        (entry("  ROOT n f32[4]{0} negate(p)"), "expected '=' after instruction name 'n', found 'f32'"),
        (entry("  ROOT n = f32[4]{0} frobnicate(p)"), "unsupported opcode 'frobnicate'"),
        (entry("  ROOT n = f32[4]{0} negate(q)"), "unknown instruction 'q' (operand of 'n' in computation 'e')"),
        (entry("  p = f32[4]{0} parameter(1)\n  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(p, p)"), "instruction name 'p' is used twice in computation 'e'"),
        (entry("  ROOT n = f32[4]{0} negate(p"), "expected ',' between operands, found '}'"),
        (entry("  ROOT n = f32[4]{0} negate(p) garbage"), "expected '=' after instruction name 'garbage'"),
        (entry("  ROOT a = f32[4]{0} add(p, b)\n  b = f32[4]{0} add(p, a)"), "instruction 'a' is part of a dependency cycle"),
        (entry("  ROOT n = f32[4]{0} parameter(-1)"), "the parameter number must be non-negative"),
        // Shapes and layouts.
        (entry("  ROOT n = g32[4]{0} negate(p)"), "unknown element type 'g32'"),
        (entry("  ROOT n = f32[4{0} negate(p)"), "expected ',' between dimension sizes, found '{'"),
        (entry("  ROOT n = f32[-4]{0} negate(p)"), "negative dimension size -4"),
        (entry("  ROOT n = f32[<=4]{0} negate(p)"), "dynamic (bounded or unknown) dimensions are not supported by hlox"),
        (entry("  ROOT n = f32[4,2]{0,0} negate(p)"), "layout [0, 0] is not a permutation of the 2 dimensions"),
        (entry("  ROOT n = f32[4]{7} negate(p)"), "layout [7] is not a permutation of the 1 dimensions"),
        // Tiling suffixes are accepted and ignored, but must be closed.
        (entry("  ROOT n = f32[4]{0:T(8,128} negate(p)"), "expected '}' at the end of the layout, found end of input"),
        // Literals.
        (entry("  ROOT c = f32[2,2]{1,0} constant({ {1, 2}, {3} })"), "has 1 elements but the shape says 2"),
        (entry("  ROOT c = u8[2]{0} constant({1, 256})"), "out of range for u8"),
        (entry("  ROOT c = f32[2]{0} constant({1, x})"), "'x' is not a valid f32 value"),
        (entry("  ROOT c = pred[2]{0} constant({true, 2})"), "'2' is not a valid pred value"),
        (entry("  ROOT c = f32[100]{0} constant({...})"), "the constant's value was elided as '{...}'"),
        (entry("  ROOT c = s32[] constant(99999999999)"), "out of range for s32"),
        // Attributes.
        (entry("  ROOT n = f32[4]{0} negate(p), dimensions={0}"), "not valid for opcode 'negate'"),
        (entry("  ROOT b = f32[2,4]{1,0} broadcast(p)"), "needs the attribute 'dimensions='"),
        (entry("  ROOT b = f32[2,4]{1,0} broadcast(p), dimensions={a}"), "expected a list element (an integer), found 'a'"),
        (entry("  ROOT b = f32[2,4]{1,0} broadcast(p), dimensions={1}, dimensions={1}"), "attribute 'dimensions' is given twice"),
        (with_add("  z = f32[] constant(0)\n  ROOT r = f32[2,2]{1,0} reduce-window(p, z), window={size=2x2 stride=2}, to_apply=add"), "window field 'stride' has 1 dimensions but size= has 2"),
        (with_add("  z = f32[] constant(0)\n  ROOT r = f32[2,2]{1,0} reduce-window(p, z), window={size=2x2 bogus=1x1}, to_apply=add"), "unknown window field 'bogus'"),
        (with_add("  z = f32[] constant(0)\n  ROOT r = f32[2,2]{1,0} reduce-window(p, z), window={size=2x2 pad=1x1}, to_apply=add"), "window padding '1' must be lo_hi"),
        (entry("  k = f32[1,1,1,1]{3,2,1,0} constant({ { { {1} } } })\n  x = f32[1,4,1,1]{3,2,1,0} reshape(p)\n  ROOT c = f32[1,4,1,1]{3,2,1,0} convolution(x, k), window={size=1x1}, dim_labels=b01f_01io->bxx"), "bad dim_labels 'b01f_01io->bxx': the output part needs one 'b'"),
        (entry("  ROOT s = f32[2]{0} slice(p), slice={[0:2}"), "unbalanced '}' (opened by '[')"),
        (entry("  z = f32[] constant(0)\n  ROOT q = f32[6]{0} pad(p, z), padding=1_1_x"), "expected an integer for the interior padding"),
        (entry("  ROOT n = f32[4]{0} negate(p), metadata={op_name=\"a\" source_line=x}"), "expected source_line (an integer), found 'x'"),
        (entry("  ROOT n = f32[4]{0} negate(p), metadata={op_name=\"a\""), "computation 'e' is missing its closing '}'"),
        (entry("  ROOT n = f32[4]{0} negate(p), frontend_attributes={a}"), "expected '=' after frontend attribute 'a', found '}'"),
        (entry("  ROOT n = f32[4]{0} negate(p), frontend_attributes={a=b}"), "expected a frontend attribute value (a quoted string), found 'b'"),
        (entry("  ROOT c = f32[4]{0} custom-call(p), custom_call_target=foo"), "expected custom_call_target (a quoted string), found 'foo'"),
        (entry("  ROOT c = f32[4]{0} custom-call(p), custom_call_target=\"foo"), "unterminated string"),
        (entry("  ROOT c = f32[4]{0} custom-call(p), custom_call_target=\"a\\qb\""), "unknown escape sequence '\\q'"),
        (entry("  ROOT c = f32[4]{0} custom-call(p)"), "'custom-call' needs the attribute 'custom_call_target='"),
        (entry("  ROOT c = f32[4]{0} custom-call(p), custom_call_target=\"t\", backend_config=\"\\x\""), "\\x escape without hex digits"),
        (entry("  ROOT c = f32[4]{0} custom-call(p), custom_call_target=\"t\", api_version=API_VERSION_SOMEDAY"), "unknown custom-call api_version 'API_VERSION_SOMEDAY'"),
        (entry("  ROOT c = f32[4]{0} custom-call(p), custom_call_target=\"t\", output_to_operand_aliasing={{}: (0}"), "unbalanced '}' (opened by '(')"),
        (entry("  ROOT c = pred[4]{0} compare(p, p), direction=LESS"), "unknown comparison direction 'LESS'"),
        (entry("  ROOT c = f32[4]{0} map(p), to_apply=nowhere"), "unknown computation 'nowhere'"),
        // Collectives.
        (entry("  ROOT c = f32[4]{0} collective-permute(p), source_target_pairs={{0,0,1}}"), "a source-target pair has two devices, got 3"),
        (entry("  ROOT c = f32[4]{0} all-gather(p), replica_groups=[1]<=[1], dimensions={0}"), "expected ',' between the number of groups and their size, found ']'"),
        (entry("  ROOT c = f32[4]{0} all-gather(p), replica_groups={{0}}"), "'all-gather' needs the attribute 'dimensions='"),
        (entry("  ROOT c = f32[4]{0} all-to-all(p), dimensions={0,1}"), "'all-to-all' takes at most one split dimension in dimensions=, got 2"),
        (entry("  ROOT c = f32[4]{0} all-reduce(p), replica_groups={}"), "'all-reduce' needs to_apply="),
        (entry("  s = (f32[4]{0}, u32[]) all-reduce-start(p), replica_groups={}\n  ROOT d = f32[4]{0} all-reduce-done(s)"), "hlox reads collectives before XLA's scheduling splits them into -start/-done pairs"),
    ];
    run_cases("text", &cases, |s| check_text(s));
}

#[test]
fn a_collective_for_two_devices_on_one_says_how_many_it_needs() {
    for (src, device, needs) in [
        (
            with_add(
                "  ROOT r = f32[4,4]{1,0} all-reduce(p), replica_groups={{0,1}}, to_apply=add",
            ),
            1,
            2,
        ),
        (
            entry("  ROOT c = f32[4]{0} collective-permute(p), source_target_pairs={{3,0}}"),
            3,
            4,
        ),
    ] {
        let m = parse_module(&src).unwrap();
        verify_module(&m).unwrap();
        let shape = m.entry_computation().program_shape().parameters[0].clone();
        let arg = Literal::zeros(&shape).unwrap();
        let e = hlox_eval::evaluate(&m, &[arg], &hlox_eval::NoCustomCalls)
            .unwrap_err()
            .to_string();
        let want = format!(
            "names device {device}, but this run has one device (one replica, one partition; \
             its id is 0): the module needs at least {needs} devices"
        );
        assert!(e.contains(&want), "{e}");
    }
}

// ---------------------------------------------------------------------------
// Verifier: modules that parse but are ill-typed

fn check_verify(src: &str) -> Result<String, String> {
    let m = parse_module(src).map_err(|e| format!("(parse) {e}"))?;
    verify_module(&m)
        .map(|_| "verified".to_string())
        .map_err(|e| e.to_string())
}

#[test]
fn ill_typed_modules_fail_verification() {
    let cases: Vec<(String, &str)> = vec![
        (entry("  ROOT n = f32[8]{0} negate(p)"), "e/n: negate: declared shape f32[8] does not match the inferred shape f32[4]"),
        (entry("  q = f32[8]{0} parameter(1)\n  ROOT a = f32[4]{0} add(p, q)"), "e/a: add: operand shapes f32[4] and f32[8] differ"),
        (entry("  q = s32[4]{0} parameter(1)\n  ROOT a = f32[4]{0} add(p, q)"), "e/a: add: operand shapes f32[4] and s32[4] differ"),
        (entry("  ROOT b = f32[2,4]{1,0} broadcast(p), dimensions={5}"), "e/b: broadcast: dimensions {5} has dimension 5 out of range [0, 2)"),
        (entry("  ROOT r = f32[3]{0} reshape(p)"), "e/r: reshape: cannot reshape f32[4] to f32[3]"),
        (entry("  ROOT s = f32[2]{0} slice(p), slice={[3:5]}"), "e/s: slice: slice [3:5] of dimension 0 is out of bounds for operand f32[4]"),
        (entry("  ROOT t = f32[4]{0} transpose(p), dimensions={1}"), "e/t: transpose: permutation {1} has dimension 1 out of range [0, 1)"),
        (entry("  t = (f32[4]{0}) tuple(p)\n  ROOT g = f32[4]{0} get-tuple-element(t), index=3"), "e/g: get-tuple-element: index 3 is out of range for tuple (f32[4]) with 1 elements"),
        (entry("  q = f32[3]{0} parameter(1)\n  ROOT d = f32[] dot(p, q), lhs_contracting_dims={0}, rhs_contracting_dims={0}"), "e/d: dot: contracting dimension sizes differ: lhs f32[4] dimension 0 vs rhs f32[3] dimension 0"),
        (entry("  q = f32[3]{0} parameter(1)\n  ROOT c = f32[7]{0} concatenate(p, q), dimensions={1}"), "e/c: concatenate: concatenate dimension 1 is out of range [0, 1)"),
        (with_add("  z = f32[] constant(0)\n  ROOT r = f32[4]{0} reduce(p, z), dimensions={2}, to_apply=add"), "e/r: reduce: dimensions {2} has dimension 2 out of range [0, 2)"),
        (
            "HloModule m\n\nbad {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(a)\n}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=bad\n}\n".into(),
            "e/r: reduce: to_apply has signature (f32[]) -> f32[] but must be (f32[], f32[]) -> f32[]",
        ),
        (entry("  ROOT s = f32[2]{0} slice(p), slice={[0:2:0]}"), "e/s: slice: stride 0 of dimension 0 must be positive"),
        // Collectives: any device id but a negative one (how many devices
        // a module needs is checked where it runs, see
        // a_collective_for_two_devices_on_one_says_how_many_it_needs).
        (with_add("  ROOT r = f32[4,4]{1,0} all-reduce(p), replica_groups={{0,-1}}, to_apply=add"), "e/r: all-reduce: replica_groups names device -1, but a negative id is not a device"),
        (with_add("  ROOT r = f32[4,4]{1,0} all-reduce(p), replica_groups={{0},{0}}, to_apply=add"), "e/r: all-reduce: replica_groups {{0},{0}} names a device in more than one group"),
        (with_add("  ROOT r = f32[4,4]{1,0} all-reduce(p), replica_groups={{0,0}}, to_apply=add"), "e/r: all-reduce: replica_groups {{0,0}} names a device twice"),
        (with_add("  ROOT r = f32[4,4]{1,0} all-reduce(p), replica_groups=[1,2]<=[3], to_apply=add"), "e/r: all-reduce: replica_groups [1,2]<=[3] is inconsistent"),
        (entry("  ROOT c = f32[4]{0} collective-permute(p), source_target_pairs={{-3,0}}"), "e/c: collective-permute: source_target_pairs names device -3, but a negative id is not a device"),
        (entry("  ROOT c = f32[8]{0} all-gather(p), replica_groups={}, dimensions={0}"), "e/c: all-gather: declared shape f32[8] does not match the inferred shape f32[4]"),
        (entry("  ROOT c = f32[4]{0} all-gather(p), replica_groups={}, dimensions={1}"), "e/c: all-gather: dimensions {1} has dimension 1 out of range [0, 1)"),
        (entry("  ROOT c = s32[]{} replica-id()"), "e/c: replica-id: declared shape s32[] does not match the inferred shape u32[]"),
        (
            "HloModule m\n\nmax {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT m = s32[] maximum(a, b)\n}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT r = f32[4]{0} all-reduce(p), replica_groups={}, to_apply=max\n}\n".into(),
            "e/r: all-reduce: to_apply has signature (s32[], s32[]) -> s32[] but must be (f32[], f32[]) -> f32[]",
        ),
        (entry("  ROOT c = f32[4]{0} convert(p)"), "verified-never"),
    ];
    // The last case is a well-typed module: it must verify (the helper
    // reports success), so it is checked separately below.
    let (good, bad) = cases.split_last().unwrap();
    run_cases("verify", bad, |s| check_verify(s));
    assert_eq!(check_verify(&good.0), Ok("verified".into()));
}

// ---------------------------------------------------------------------------
// Protos: truncated, corrupted and inconsistent HloModuleProto bytes

fn corpus_pb(name: &str) -> Vec<u8> {
    std::fs::read(
        hlox_tests::workspace_root()
            .join("tests/corpus")
            .join(name)
            .join("module.pb"),
    )
    .expect("corpus module.pb")
}

fn check_proto(bytes: &[u8]) -> Result<String, String> {
    let m = decode_module(bytes).map_err(|e| e.to_string())?;
    verify_module(&m)
        .map(|_| format!("decoded and verified {}", m.name))
        .map_err(|e| format!("(verify) {e}"))
}

/// The softmax module's proto with `edit` applied.
fn edited(edit: impl Fn(&mut xla::HloModuleProto)) -> Vec<u8> {
    let m = decode_module(&corpus_pb("softmax")).unwrap();
    let mut p = module_to_proto(&m);
    edit(&mut p);
    p.encode_to_vec()
}

fn entry_proto(p: &mut xla::HloModuleProto) -> &mut xla::HloComputationProto {
    let id = p.entry_computation_id;
    p.computations.iter_mut().find(|c| c.id == id).unwrap()
}

#[test]
fn truncated_and_corrupted_protos() {
    let pb = corpus_pb("softmax");
    let mut flipped = pb.clone();
    flipped[1] ^= 0x80; // the first length prefix
    let text = std::fs::read(hlox_tests::workspace_root().join("tests/corpus/softmax/module.hlo"))
        .unwrap();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![], "no computations"),
        (pb[..pb.len() / 2].to_vec(), "buffer underflow (the bytes are truncated, corrupt"),
        (pb[..pb.len() - 1].to_vec(), "cannot decode a serialized HloModuleProto"),
        (pb[..7].to_vec(), "the module has no computations"),
        (flipped, "cannot decode a serialized HloModuleProto: failed to decode Protobuf message"),
        (vec![0xff; 64], "cannot decode a serialized HloModuleProto: failed to decode Protobuf message: invalid"),
        (text, "HLO text must be read with the text parser"),
        (
            edited(|p| {
                let c = entry_proto(p);
                let id = c.instructions[1].id;
                c.instructions[1].operand_ids = vec![id + 1000];
            }),
            "field `operand_ids`: no instruction of this computation has id",
        ),
        (
            edited(|p| entry_proto(p).instructions[0].opcode = "frobnicate".into()),
            "field `opcode`: opcode `frobnicate` is not supported by hlox",
        ),
        (
            edited(|p| {
                let s = entry_proto(p).instructions[0].shape.as_mut().unwrap();
                s.element_type = 999;
            }),
            "field `shape`: element type unknown PrimitiveType value 999 is not supported",
        ),
        (
            edited(|p| {
                p.entry_computation_id = 12345;
                p.entry_computation_name = "nowhere".into();
            }),
            "the entry computation (id 12345, name `nowhere`) is not among the module's computations",
        ),
        (
            edited(|p| {
                let c = entry_proto(p);
                let first = c.instructions[0].id;
                let last = c.instructions.last().unwrap().id;
                c.instructions[0].operand_ids = vec![last];
                let _ = first;
            }),
            "operands (or control predecessors) form a cycle",
        ),
        (
            edited(|p| {
                let c = entry_proto(p);
                c.instructions[0].shape.as_mut().unwrap().dimensions = vec![-3];
            }),
            "field `shape`: dimension size -3 is negative",
        ),
        (
            edited(|p| {
                let c = entry_proto(p);
                let d = c.instructions[0].id;
                c.instructions[1].id = d;
            }),
            "is used by more than one instruction",
        ),
        // Found by the decode_proto fuzz target: names that are not HLO
        // identifiers decoded and verified, and printed as text that does
        // not parse.
        (
            edited(|p| entry_proto(p).instructions[2].name = "broadcast>13".into()),
            "the instruction name \"broadcast>13\" is not an HLO identifier",
        ),
        (
            edited(|p| entry_proto(p).instructions[2].name = String::new()),
            "the instruction name \"\" is not an HLO identifier",
        ),
        (
            edited(|p| p.computations[0].name = "a b".into()),
            "the computation name \"a b\" is not an HLO identifier",
        ),
        (
            edited(|p| p.name = "jit f".into()),
            "the module name \"jit f\" is not an HLO identifier",
        ),
        (
            edited(|p| {
                let c = entry_proto(p);
                c.instructions[2].name = c.instructions[1].name.clone();
            }),
            "the instruction name is used by more than one instruction of the computation",
        ),
        (
            edited(|p| {
                let n = p.computations[0].name.clone();
                p.computations[1].name = n;
            }),
            "the computation name is used by more than one computation",
        ),
    ];
    run_cases("proto", &cases, |b| check_proto(b));
}

// ---------------------------------------------------------------------------
// Execution: wrong arguments, for the Host backend and the evaluator

/// A module with two parameters `x: f32[4]`, `y: s32[]` and result
/// `x * 2 + convert(y)`.
const TWO_PARAMS: &str = r#"HloModule two

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = s32[] parameter(1)
  two = f32[] constant(2)
  twos = f32[4]{0} broadcast(two), dimensions={}
  fy = f32[] convert(y)
  ys = f32[4]{0} broadcast(fy), dimensions={}
  m = f32[4]{0} multiply(x, twos)
  ROOT r = f32[4]{0} add(m, ys)
}
"#;

fn good_args() -> Vec<Literal> {
    vec![Literal::r1(&[1f32, 2., 3., 4.]), Literal::r0(10i32)]
}

const GOOD_RESULT: [f32; 4] = [12., 14., 16., 18.];

/// Wrong arguments and the error each engine gives (`host`: the Host
/// backend's wording, else the evaluator's).
fn bad_arg_cases(host: bool) -> Vec<(Vec<Literal>, &'static str)> {
    let x = Literal::r1(&[1f32, 2., 3., 4.]);
    let y = Literal::r0(10i32);
    let pick = |h: &'static str, e: &'static str| if host { h } else { e };
    vec![
        (vec![], "takes 2 arguments but was given 0"),
        (vec![x.clone()], "takes 2 arguments but was given 1"),
        (
            vec![x.clone(), y.clone(), y.clone()],
            "takes 2 arguments but was given 3",
        ),
        (
            vec![Literal::r1(&[1f32, 2., 3.]), y.clone()],
            pick(
                "argument 0 (parameter `x`): expected f32[4], got f32[3]",
                "argument 0 of computation `main` (parameter `x`) has shape f32[3]{0}, but the parameter is f32[4]{0}",
            ),
        ),
        (
            vec![Literal::r1(&[1i32, 2, 3, 4]), y.clone()],
            pick(
                "argument 0 (parameter `x`): expected f32[4], got s32[4]",
                "argument 0 of computation `main` (parameter `x`) has shape s32[4]{0}, but the parameter is f32[4]{0}",
            ),
        ),
        (
            vec![x.clone(), Literal::r0(10f32)],
            pick(
                "argument 1 (parameter `y`): expected s32[], got f32[]",
                "argument 1 of computation `main` (parameter `y`) has shape f32[], but the parameter is s32[]",
            ),
        ),
        (
            vec![x.clone(), Literal::r1(&[10i32])],
            pick(
                "argument 1 (parameter `y`): expected s32[], got s32[1]",
                "argument 1 of computation `main` (parameter `y`) has shape s32[1]{0}, but the parameter is s32[]",
            ),
        ),
        (
            vec![Literal::Tuple(vec![x.clone()]), y.clone()],
            pick(
                "argument 0 (parameter `x`): expected f32[4], got (f32[4])",
                "argument 0 of computation `main` (parameter `x`) has shape (f32[4]{0}), but the parameter is f32[4]{0}",
            ),
        ),
        (
            vec![x.clone(), Literal::Token],
            pick(
                "argument 1 (parameter `y`): expected s32[], got token[]",
                "argument 1 of computation `main` (parameter `y`) has shape token[], but the parameter is s32[]",
            ),
        ),
    ]
}

fn check_rerun(run: &dyn Fn(&[Literal]) -> Result<Literal, String>) {
    let out = run(&good_args()).expect("the same executable runs again");
    assert_eq!(out.to_vec::<f32>().unwrap(), GOOD_RESULT);
}

#[test]
fn host_executable_rejects_wrong_arguments_and_runs_again() {
    let m = parse_module(TWO_PARAMS).unwrap();
    let exe = hlox_cpu::compile(&m, &Default::default()).unwrap();
    let run = |args: &[Literal]| {
        exe.execute(&args.iter().collect::<Vec<_>>())
            .map(|l| format!("{l:?}"))
            .map_err(|e| e.to_string())
    };
    let runl = |args: &[Literal]| {
        exe.execute(&args.iter().collect::<Vec<_>>())
            .map_err(|e| e.to_string())
    };
    let cases = bad_arg_cases(true);
    run_cases("host execute", &cases, |args| {
        let r = run(args);
        check_rerun(&runl);
        r
    });
    // Raw buffers: wrong count, wrong sizes, wrong output buffers.
    let x: Vec<u8> = [1f32, 2., 3., 4.]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let y = 10i32.to_ne_bytes().to_vec();
    // (argument buffers, output buffer length) and the error.
    type RawCase = ((Vec<Vec<u8>>, usize), &'static str);
    let raw: Vec<RawCase> = vec![
        ((vec![x.clone()], 16), "2 arguments but was given 1"),
        (
            (vec![x[..12].to_vec(), y.clone()], 16),
            "has 12 bytes, expected 16",
        ),
        (
            (vec![x.clone(), vec![0u8; 8]], 16),
            "has 8 bytes, expected 4",
        ),
        (
            (vec![x.clone(), y.clone()], 15),
            "output leaf 0 has 15 bytes, expected 16",
        ),
    ];
    run_cases("host execute_into", &raw, |(args, out_len)| {
        let a: Vec<&[u8]> = args.iter().map(|v| v.as_slice()).collect();
        let mut out = vec![0u8; *out_len];
        let r = exe
            .execute_into(&a, &mut [out.as_mut_slice()])
            .map(|_| "ran".to_string())
            .map_err(|e| e.to_string());
        check_rerun(&runl);
        r
    });
}

#[test]
fn evaluator_rejects_wrong_arguments_and_runs_again() {
    let m = parse_module(TWO_PARAMS).unwrap();
    let runl = |args: &[Literal]| {
        hlox_eval::evaluate(&m, args, &hlox_eval::NoCustomCalls).map_err(|e| e.to_string())
    };
    run_cases("evaluate", &bad_arg_cases(false), |args| {
        let r = runl(args).map(|l| format!("{l:?}"));
        check_rerun(&runl);
        r
    });
}

// ---------------------------------------------------------------------------
// Custom calls: binding, plugins, failing and panicking targets

/// Status-returning: `out = x + 1`, or a failure when `x[0] < 0`.
fn fails_on_negative(
    out: *mut c_void,
    ins: *const *const c_void,
    status: *mut XlaCustomCallStatus,
) {
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const f32, 4);
        if x[0] < 0.0 {
            let msg = format!("fails_on_negative: x[0] is {}", x[0]);
            hlox_ffi::XlaCustomCallStatusSetFailure(status, msg.as_ptr() as *const _, msg.len());
            return;
        }
        let o = std::slice::from_raw_parts_mut(out as *mut f32, 4);
        for i in 0..4 {
            o[i] = x[i] + 1.0;
        }
    }
}

/// Status-returning: `out = x + 1`, or a panic when `x[0] < 0`.
fn panics_on_negative(out: *mut c_void, ins: *const *const c_void, _s: *mut XlaCustomCallStatus) {
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const f32, 4);
        if x[0] < 0.0 {
            panic!("panics_on_negative: x[0] is {}", x[0]);
        }
        let o = std::slice::from_raw_parts_mut(out as *mut f32, 4);
        for i in 0..4 {
            o[i] = x[i] + 1.0;
        }
    }
}

fn test_registry() -> Arc<Registry> {
    let r = Registry::with_static_targets().unwrap();
    r.register_fn("fails_on_negative", Platform::Host, fails_on_negative)
        .unwrap();
    r.register_fn("panics_on_negative", Platform::Host, panics_on_negative)
        .unwrap();
    Arc::new(r)
}

fn call_module(target: &str, api: &str) -> String {
    format!(
        "HloModule cc\n\nENTRY main {{\n  x = f32[4]{{0}} parameter(0)\n  ROOT c = f32[4]{{0}} custom-call(x), custom_call_target=\"{target}\", api_version={api}\n}}\n"
    )
}

/// The call inside a while body, three iterations: `x + 3` when it succeeds.
fn loop_module(target: &str) -> String {
    format!(
        r#"HloModule loop

cond {{
  s = (s32[], f32[4]{{0}}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}}

body {{
  s = (s32[], f32[4]{{0}}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4]{{0}} get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[4]{{0}} custom-call(v), custom_call_target="{target}", api_version=API_VERSION_STATUS_RETURNING
  ROOT t = (s32[], f32[4]{{0}}) tuple(j, w)
}}

ENTRY main {{
  x = f32[4]{{0}} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]{{0}}) tuple(zero, x)
  w = (s32[], f32[4]{{0}}) while(init), condition=cond, body=body
  ROOT r = f32[4]{{0}} get-tuple-element(w), index=1
}}
"#
    )
}

/// An engine prepared for one module: compile (Host) or bind (evaluator).
type Runner = Box<dyn Fn(&[Literal]) -> Result<Literal, String>>;

fn prepare_host(m: &Module, r: &Arc<Registry>) -> Result<Runner, String> {
    let o = hlox_cpu::CompileOptions {
        registry: Some(r.clone()),
        ..Default::default()
    };
    let exe = hlox_cpu::compile(m, &o).map_err(|e| e.to_string())?;
    Ok(Box::new(move |args: &[Literal]| {
        exe.execute(&args.iter().collect::<Vec<_>>())
            .map_err(|e| e.to_string())
    }))
}

fn prepare_eval(m: &Module, r: &Arc<Registry>) -> Result<Runner, String> {
    let bound = r.bind(m, Platform::Host).map_err(|e| e.to_string())?;
    let calls = hlox_ffi::HostCustomCalls::new(bound);
    let m = m.clone();
    Ok(Box::new(move |args: &[Literal]| {
        hlox_eval::evaluate(&m, args, &calls as &dyn hlox_eval::CustomCallHandler)
            .map_err(|e| e.to_string())
    }))
}

type Prepare = fn(&Module, &Arc<Registry>) -> Result<Runner, String>;

/// Problems found before anything runs: (module text, registry, error).
fn check_bind(prepare: Prepare) {
    let r = test_registry();
    let plugin = Registry::new();
    plugin
        .load_library(hlox_targets::C_PLUGIN_SYMBOLS_ONLY)
        .unwrap_or_else(|e| panic!("{e} {}", hlox_targets::C_BUILD_ERROR));
    let plugin = Arc::new(plugin);
    let cases: Vec<((String, Arc<Registry>), &str)> = vec![
        (
            (call_module("fails_on_negatve", "API_VERSION_STATUS_RETURNING"), r.clone()),
            "instruction c: custom-call target \"fails_on_negatve\" is not registered for platform Host (did you mean \"fails_on_negative\"",
        ),
        (
            (call_module("no_such_target_anywhere", "API_VERSION_STATUS_RETURNING"), r.clone()),
            "custom-call target \"no_such_target_anywhere\" is not registered for platform Host",
        ),
        (
            (call_module("fails_on_negative", "API_VERSION_ORIGINAL"), r.clone()),
            "target \"fails_on_negative\" is registered as API_VERSION_STATUS_RETURNING but the custom call asks for API_VERSION_ORIGINAL",
        ),
        (
            (call_module("fails_on_negative", "API_VERSION_TYPED_FFI"), r.clone()),
            "target \"fails_on_negative\" is registered as API_VERSION_STATUS_RETURNING but the custom call asks for API_VERSION_TYPED_FFI",
        ),
        (
            // A typed-FFI attribute dictionary that does not parse.
            (
                call_module("axpby_ffi", "API_VERSION_TYPED_FFI, backend_config={alpha = 2.0 : f33}"),
                r.clone(),
            ),
            "instruction c: custom call to \"axpby_ffi\": backend_config column 16: unknown element type `f33`",
        ),
        (
            // The plugin exports do_custom_call & co., not this symbol.
            (call_module("not_exported_by_the_plugin", "API_VERSION_STATUS_RETURNING"), plugin.clone()),
            "\"not_exported_by_the_plugin\" is not registered for platform Host and no loaded library exports a symbol of that name",
        ),
        (
            (loop_module("fails_on_negativ"), r.clone()),
            "instruction w: custom-call target \"fails_on_negativ\" is not registered",
        ),
    ];
    run_cases("bind", &cases, |(text, reg)| {
        let m = parse_module(text).map_err(|e| format!("(parse) {e}"))?;
        prepare(&m, reg).map(|_| "prepared".to_string())
    });
}

#[test]
fn host_custom_call_bind_errors() {
    check_bind(prepare_host);
}

#[test]
fn evaluator_custom_call_bind_errors() {
    check_bind(prepare_eval);
}

#[test]
fn loading_bad_plugins_is_an_error() {
    let r = Registry::new();
    let cases: Vec<(String, &str)> = vec![
        (
            "/nonexistent/libnothing.so".into(),
            "cannot load custom-call library /nonexistent/libnothing.so: no such file",
        ),
        (
            hlox_tests::workspace_root()
                .join("tests/corpus/README.md")
                .display()
                .to_string(),
            "README.md: dlopen failed: ",
        ),
        (
            hlox_targets::C_PLUGIN_BAD_REGISTRATION.into(),
            "hlox_register_custom_call_targets rejected 5 registration(s)",
        ),
    ];
    run_cases("plugin", &cases, |path| {
        r.load_library(path)
            .map(|l| format!("loaded {}", l.path().display()))
            .map_err(|e| e.to_string())
    });
}

/// Targets that fail or panic at run time: the message reaches the caller,
/// and the same prepared module then runs correctly.
fn check_runtime_failures(prepare: Prepare) {
    let r = test_registry();
    let bad = [Literal::r1(&[-1f32, 2., 3., 4.])];
    let good = [Literal::r1(&[1f32, 2., 3., 4.])];
    let cases: Vec<((String, [f32; 4]), &str)> = vec![
        (
            (
                call_module("fails_on_negative", "API_VERSION_STATUS_RETURNING"),
                [2., 3., 4., 5.],
            ),
            "fails_on_negative: x[0] is -1",
        ),
        (
            (
                call_module("panics_on_negative", "API_VERSION_STATUS_RETURNING"),
                [2., 3., 4., 5.],
            ),
            "custom-call target panicked: panics_on_negative: x[0] is -1",
        ),
        (
            (loop_module("fails_on_negative"), [4., 5., 6., 7.]),
            "fails_on_negative: x[0] is -1",
        ),
        (
            (loop_module("panics_on_negative"), [4., 5., 6., 7.]),
            "custom-call target panicked: panics_on_negative: x[0] is -1",
        ),
    ];
    run_cases("runtime failure", &cases, |(text, want)| {
        let m = parse_module(text).map_err(|e| format!("(parse) {e}"))?;
        let run = prepare(&m, &r)?;
        let err = run(&bad).map(|l| format!("{l:?}"));
        for _ in 0..2 {
            let out = run(&good).expect("runs again after the failure");
            assert_eq!(out.to_vec::<f32>().unwrap(), want);
            assert!(run(&bad).is_err());
        }
        err
    });
}

#[test]
fn host_target_failures_reach_the_caller() {
    check_runtime_failures(prepare_host);
}

#[test]
fn evaluator_target_failures_reach_the_caller() {
    check_runtime_failures(prepare_eval);
}

// ---------------------------------------------------------------------------
// Resources: shapes too large to allocate are errors, not aborts

/// A broadcast to `f32[dims]` (about 4 PB for the default): the result and
/// temporaries cannot be allocated.
fn huge(dims: &str) -> String {
    format!(
        "HloModule huge\n\nENTRY main {{\n  x = f32[] parameter(0)\n  b = f32[{dims}] broadcast(x), dimensions={{}}\n  ROOT r = f32[{dims}] negate(b)\n}}\n"
    )
}

#[test]
fn huge_shapes_are_errors_not_aborts() {
    let cases: Vec<((String, bool), &str)> = vec![
        (
            (huge("1000000,1000000,1000"), true),
            "result buffers of huge: cannot allocate 4000000000000000 bytes",
        ),
        (
            (huge("1000000,1000000,1000"), false),
            "instruction `b` (broadcast): cannot allocate 4000000000000000 bytes",
        ),
        // The byte size overflows: the verifier (run by compile) says so;
        // the evaluator (which trusts its caller) must fail cleanly too.
        (
            (huge("4611686018427387904,4"), true),
            "shape f32[4611686018427387904,4] has too many elements",
        ),
        (
            (huge("4611686018427387904,4"), false),
            "instruction `b` (broadcast): cannot allocate",
        ),
    ];
    run_cases("huge", &cases, |(text, host)| {
        let m = parse_module(text).map_err(|e| format!("(parse) {e}"))?;
        let arg = [Literal::r0(1f32)];
        if *host {
            let r = prepare_host(&m, &Arc::new(Registry::new()))?;
            r(&arg).map(|_| "ran".into())
        } else {
            hlox_eval::evaluate(&m, &arg, &hlox_eval::NoCustomCalls)
                .map(|_| "ran".into())
                .map_err(|e| e.to_string())
        }
    });
}
