//! Property tests over random builder programs and random byte mutations.

use hlox_hlo::proto::{decode_module, encode_module};
use hlox_hlo::text::{parse_module, print_module};
use hlox_hlo::verifier::verify_module;
use hlox_tests::programs::program;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    /// Random well-typed programs verify, and round-trip exactly through
    /// HLO text and through HloModuleProto.
    #[test]
    fn random_programs_verify_and_round_trip(m in program()) {
        prop_assert!(verify_module(&m).is_ok(), "{}", verify_module(&m).unwrap_err());
        let text = print_module(&m);
        let parsed = parse_module(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&parsed, &m, "parse(print(m)) != m for\n{}", text);
        prop_assert_eq!(print_module(&parsed), text.clone());
        let decoded = decode_module(&encode_module(&m)).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&decoded, &m, "decode(encode(m)) != m for\n{}", text);
    }
}

/// Inputs to mutate: a few JAX modules in both forms.
fn seeds() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    [
        "softmax",
        "while_loops",
        "scatter_ops",
        "cc_in_graph",
        "conv2d",
        "sort",
        "cond",
    ]
    .iter()
    .map(|name| {
        let dir = hlox_tests::workspace_root().join("tests/corpus").join(name);
        (
            name.to_string(),
            std::fs::read(dir.join("module.hlo")).unwrap(),
            std::fs::read(dir.join("module.pb")).unwrap(),
        )
    })
    .collect()
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (
            any::<usize>(),
            proptest::collection::vec(
                prop_oneof![
                    any::<u8>(),
                    Just(b'{'),
                    Just(b'}'),
                    Just(b'('),
                    Just(b','),
                    Just(b'%'),
                    Just(b'"'),
                    Just(b'\n')
                ],
                1..8,
            )
        )
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

fn apply(data: &[u8], muts: &[Mutation]) -> Vec<u8> {
    let mut d = data.to_vec();
    for m in muts {
        let len = d.len().max(1);
        match m {
            Mutation::Flip(i, b) => {
                if !d.is_empty() {
                    d[i % len] ^= b | 1;
                }
            }
            Mutation::Delete(i, n) => {
                let s = i % len;
                let e = (s + n).min(d.len());
                if s < e {
                    d.drain(s..e);
                }
            }
            Mutation::Insert(i, v) => {
                let at = i % (d.len() + 1);
                d.splice(at..at, v.iter().copied());
            }
            Mutation::Truncate(i) => d.truncate(i % len),
            Mutation::Duplicate(i, n) => {
                let s = i % len;
                let e = (s + n).min(d.len());
                if s < e {
                    let chunk = d[s..e].to_vec();
                    d.splice(e..e, chunk);
                }
            }
        }
    }
    d
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    /// Mutated HLO text and mutated protos are parsed/decoded and verified
    /// without panicking (an error is fine; a panic is a bug).
    #[test]
    fn mutated_inputs_never_panic(which in 0usize..7, muts in proptest::collection::vec(mutation(), 1..4)) {
        let (_, text, pb) = &seeds()[which];
        let t = apply(text, &muts);
        if let Ok(m) = parse_module(&String::from_utf8_lossy(&t)) {
            let _ = verify_module(&m);
            let _ = print_module(&m);
        }
        let p = apply(pb, &muts);
        if let Ok(m) = decode_module(&p) {
            if verify_module(&m).is_ok() {
                let _ = print_module(&m);
                let _ = encode_module(&m);
            }
        }
    }
}
