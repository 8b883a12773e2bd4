//! The opcode table walked as a whole: names both ways, arity and called
//! roles against what shape inference accepts, and the properties the rest
//! of hlox relies on. Each opcode's example `Op` comes from the table
//! (`Op::with_default_attributes`), so a new opcode needs no edit here.

use hlox_hlo::entity::{EntityRef, PrimaryMap};
use hlox_hlo::ir::*;
use hlox_hlo::opcode::{Arity, CalledRole, KeyKind, Opcode};
use hlox_hlo::shape_inference::{check_shape, infer_shape};
use hlox_hlo::types::{ElementType, ProgramShape, Shape};
use hlox_hlo::Module;
use std::collections::HashSet;

fn f32s(d: &[i64]) -> Shape {
    Shape::array(ElementType::F32, d.to_vec())
}

fn scalar_sig(n: usize) -> ProgramShape {
    ProgramShape {
        parameters: vec![f32s(&[]); n],
        parameter_names: vec![],
        result: f32s(&[]),
    }
}

#[test]
fn names_round_trip_and_are_unique() {
    let mut seen = HashSet::new();
    for &code in Opcode::ALL {
        let name = code.name();
        assert!(seen.insert(name), "{name} appears twice in the table");
        assert_eq!(Opcode::from_name(name), Some(code), "{name}");
        assert_eq!(code.to_string(), name);
        assert_eq!(Op::with_default_attributes(code).opcode(), code, "{name}");
        assert_eq!(Op::with_default_attributes(code).name(), name);
    }
    assert_eq!(Opcode::from_name("frobnicate"), None);
    assert_eq!(Opcode::from_name(""), None);
    assert_eq!(
        Opcode::ALL.len(),
        seen.len(),
        "Opcode::ALL lists each opcode once"
    );
}

#[test]
fn element_wise_families_are_table_entries() {
    // (opcode, the family member it maps back to, its name) for each member.
    let unary = UnaryOp::ALL
        .iter()
        .map(|u| (u.opcode(), u.opcode().as_unary() == Some(*u), u.name(), 1));
    let binary = BinaryOp::ALL
        .iter()
        .map(|b| (b.opcode(), b.opcode().as_binary() == Some(*b), b.name(), 2));
    for (code, maps_back, name, arity) in unary.chain(binary) {
        assert!(maps_back, "{code}");
        assert_eq!(name, code.name());
        assert_eq!(code.arity(), Arity::Fixed(arity), "{code}");
        assert!(code.is_elementwise() && code.called_roles().is_empty());
    }
    let families = UnaryOp::ALL.len() + BinaryOp::ALL.len();
    let in_table = Opcode::ALL
        .iter()
        .filter(|c| c.as_unary().is_some() || c.as_binary().is_some())
        .count();
    assert_eq!(families, in_table);
}

/// The called computations an opcode's roles want: one per single role,
/// one for a list role.
fn sigs_for(code: Opcode, extra: usize) -> Vec<ProgramShape> {
    let n = code.called_roles().len() + extra;
    (0..n).map(|_| scalar_sig(2)).collect()
}

#[test]
fn arity_agrees_with_shape_inference() {
    let declared = f32s(&[2]);
    for &code in Opcode::ALL {
        let op = Op::with_default_attributes(code);
        let called = sigs_for(code, 0);
        let arity = code.arity();
        // Too many operands for a fixed arity.
        if let Arity::Fixed(n) = arity {
            let shapes = vec![f32s(&[2]); n + 1];
            let refs: Vec<&Shape> = shapes.iter().collect();
            let e = check_shape(&op, &refs, &called, &declared)
                .expect_err(&format!("{code} accepted {} operands", n + 1));
            assert!(
                e.message.contains("operand"),
                "{code} with {} operands: {e}",
                n + 1
            );
        }
        // Too few operands for any arity with a minimum.
        if arity.min() > 0 {
            let shapes = vec![f32s(&[2]); arity.min() - 1];
            let refs: Vec<&Shape> = shapes.iter().collect();
            assert!(
                check_shape(&op, &refs, &called, &declared).is_err(),
                "{code} accepted {} operands",
                arity.min() - 1
            );
        }
    }
}

#[test]
fn called_roles_agree_with_shape_inference() {
    let declared = f32s(&[2]);
    for &code in Opcode::ALL {
        let op = Op::with_default_attributes(code);
        let roles = code.called_roles();
        let shapes = vec![f32s(&[2]); code.arity().min()];
        let refs: Vec<&Shape> = shapes.iter().collect();
        if roles.is_empty() {
            let e = check_shape(&op, &refs, &[scalar_sig(1)], &declared)
                .expect_err(&format!("{code} accepted a called computation"));
            assert!(e.message.contains("no called computations"), "{code}: {e}");
        } else if roles.iter().all(|r| !r.is_list()) {
            let e = check_shape(&op, &refs, &sigs_for(code, 1), &declared)
                .expect_err(&format!("{code} accepted one computation too many"));
            assert!(e.message.contains("called computation"), "{code}: {e}");
        }
        // At most one list role, and it comes last (it takes the rest).
        let lists = roles.iter().filter(|r| r.is_list()).count();
        assert!(lists <= 1, "{code}");
        if lists == 1 {
            assert!(roles.last().is_some_and(|r| r.is_list()), "{code}");
        }
    }
}

#[test]
fn role_keys_are_distinct_and_classified() {
    let mut keys = HashSet::new();
    for r in CalledRole::ALL {
        assert!(keys.insert(r.key()), "{}", r.key());
        let kind = if r.is_list() {
            KeyKind::List
        } else {
            KeyKind::Single
        };
        assert_eq!(CalledRole::key_kind(r.key()), Some(kind));
        for k in r.alternative_keys() {
            assert!(r.is_list(), "only a list role has alternatives");
            assert_eq!(CalledRole::key_kind(k), Some(KeyKind::Single));
        }
    }
    assert_eq!(CalledRole::key_kind("dimensions"), None);
}

#[test]
fn declared_shape_property_matches_inference() {
    for &code in Opcode::ALL {
        let op = Op::with_default_attributes(code);
        if code.needs_declared_shape() {
            let shapes = vec![f32s(&[2]); code.arity().min()];
            let refs: Vec<&Shape> = shapes.iter().collect();
            let e = infer_shape(&op, &refs, &sigs_for(code, 0))
                .expect_err(&format!("{code} inferred a shape"));
            assert!(e.message.contains("must be declared"), "{code}: {e}");
        }
    }
}

#[test]
fn properties_match_the_ops() {
    for &code in Opcode::ALL {
        // The element-wise opcodes are the unary and binary families and
        // these five, written out here independently of the table.
        let elementwise = code.as_unary().is_some()
            || code.as_binary().is_some()
            || matches!(
                code,
                Opcode::Compare
                    | Opcode::Select
                    | Opcode::Clamp
                    | Opcode::Convert
                    | Opcode::ReducePrecision
            );
        assert_eq!(code.is_elementwise(), elementwise, "{code}");
        let collective = matches!(
            code,
            Opcode::AllReduce
                | Opcode::AllGather
                | Opcode::ReduceScatter
                | Opcode::AllToAll
                | Opcode::CollectivePermute
                | Opcode::CollectiveBroadcast
                | Opcode::ReplicaId
                | Opcode::PartitionId
        );
        assert_eq!(code.is_collective(), collective, "{code}");
        if code.has_async_pair() {
            assert!(code.is_collective(), "{code}");
        }
    }
    let side_effecting = Op::CustomCall(Box::new(CustomCall {
        has_side_effect: true,
        ..Default::default()
    }));
    assert!(side_effecting.has_side_effect());
    assert!(!Op::with_default_attributes(Opcode::CustomCall).has_side_effect());
    assert!(!Op::with_default_attributes(Opcode::Add).has_side_effect());
}

/// Every `.hlo` file under `tests/filetests` (any depth) that parses.
fn filetest_modules() -> Vec<(std::path::PathBuf, Module)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests");
    let mut dirs = vec![root];
    let mut out = Vec::new();
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "hlo") {
                let text = std::fs::read_to_string(&p).unwrap();
                if let Ok(m) = hlox_hlo::text::parse_module(&text) {
                    out.push((p, m));
                }
            }
        }
    }
    out
}

/// The text filetests cover the whole table: each opcode is parsed from
/// and printed to HLO text by at least one of them, and prints back to
/// the same module. A new opcode needs a filetest line.
#[test]
fn every_opcode_round_trips_through_a_text_filetest() {
    let modules = filetest_modules();
    assert!(!modules.is_empty(), "no filetests found");
    let mut seen = HashSet::new();
    for (path, m) in &modules {
        for c in m.computations.values() {
            for inst in c.instructions.values() {
                seen.insert(inst.op.opcode());
            }
        }
        let printed = hlox_hlo::text::print_module(m);
        let back = hlox_hlo::text::parse_module(&printed)
            .unwrap_or_else(|e| panic!("{}: printed text does not parse: {e}", path.display()));
        assert_eq!(&back, m, "{}: print/parse round trip", path.display());
    }
    let missing: Vec<&str> = Opcode::ALL
        .iter()
        .filter(|c| !seen.contains(c))
        .map(|c| c.name())
        .collect();
    assert!(
        missing.is_empty(),
        "opcodes no text filetest uses: {missing:?}"
    );
}

/// A computation of parameters `params` (name, shape) and then `inst`
/// (its root), whose operands are the parameters.
fn computation(name: &str, params: Vec<(String, Shape)>, mut inst: Instruction) -> Computation {
    let mut c = Computation {
        name: name.into(),
        instructions: PrimaryMap::new(),
        params: vec![],
        root: InstId::new(0),
        execution_thread: None,
    };
    for (number, (name, shape)) in params.into_iter().enumerate() {
        let op = Op::Parameter {
            number: number as u64,
        };
        let p = c
            .instructions
            .push(Instruction::new(name, op, shape, vec![]));
        c.params.push(p);
    }
    inst.operands = c.params.clone();
    c.root = c.instructions.push(inst);
    c
}

/// A module whose entry computation applies `op` to parameters (as many
/// as its arity's minimum, `f32[2]` each), calling one `(f32[], f32[]) ->
/// f32[]` computation per called-computation role.
fn module_of(op: Op) -> Module {
    let code = op.opcode();
    let mut computations = PrimaryMap::new();
    let scalar_params = || vec![("x".into(), f32s(&[])), ("y".into(), f32s(&[]))];
    let add = || Instruction::new("add", Op::Binary(BinaryOp::Add), f32s(&[]), vec![]);
    let called: Vec<CompId> = (0..code.called_roles().len())
        .map(|i| computations.push(computation(&format!("callee{i}"), scalar_params(), add())))
        .collect();
    let params = (0..code.arity().min())
        .map(|i| (format!("p{i}"), f32s(&[2])))
        .collect();
    let mut inst = Instruction::new("x", op, f32s(&[2]), vec![]);
    inst.called = called;
    let entry = computations.push(computation("entry", params, inst));
    Module {
        name: "m".into(),
        computations,
        entry,
        input_output_alias: vec![],
        is_scheduled: false,
        frontend_attributes: vec![],
    }
}

/// The example op of every opcode (`Op::with_default_attributes`) survives
/// proto encode and decode, whatever its attributes.
#[test]
fn every_opcode_round_trips_through_the_proto() {
    for &code in Opcode::ALL {
        if code == Opcode::Parameter {
            continue; // every module_of has parameters
        }
        let m = module_of(Op::with_default_attributes(code));
        let back = hlox_hlo::proto::decode_module(&hlox_hlo::proto::encode_module(&m))
            .unwrap_or_else(|e| panic!("{code}: {e}"));
        assert_eq!(back, m, "{code}");
    }
}
