//! HloModuleProto / ShapeProto / LiteralProto conversion, on modules JAX
//! serialized (tests/data/*.pb, made by scripts/gen_proto_testdata.py) and on
//! hand-built modules covering what JAX does not emit.

use half::{bf16, f16};
use hlox_hlo::proto::*;
use hlox_hlo::*;
use hlox_proto::xla;

mod common;

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn load(name: &str) -> Module {
    decode_module(&data(&format!("{name}.pb"))).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Arena invariants: operands before users, callees before callers, params
/// and root in range.
fn check_invariants(m: &Module) {
    for (cid, c) in m.computations.iter() {
        for (iid, inst) in c.instructions.iter() {
            for &o in &inst.operands {
                assert!(
                    o < iid,
                    "{}: operand {:?} of {} is not before it",
                    c.name,
                    o,
                    inst.name
                );
            }
            for &callee in &inst.called {
                assert!(
                    callee < cid,
                    "{} calls a computation that is not before it",
                    inst.name
                );
            }
        }
        for (i, &p) in c.params.iter().enumerate() {
            assert_eq!(c.inst(p).op, Op::Parameter { number: i as u64 });
        }
        assert!(c.instructions.is_valid(c.root));
    }
    assert!(m.computations.is_valid(m.entry));
}

fn find<'a>(c: &'a Computation, name: &str) -> &'a Instruction {
    c.instructions
        .values()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no instruction {name} in {}", c.name))
}

fn roundtrip(m: &Module) -> Module {
    decode_module(&encode_module(m)).unwrap_or_else(|e| panic!("re-decoding {}: {e}", m.name))
}

const MODULES: [&str; 5] = ["softmax", "mlp", "while_loop", "scatter", "mixed"];

#[test]
fn jax_modules_roundtrip_through_our_encoding() {
    for name in MODULES {
        let m = load(name);
        check_invariants(&m);
        let again = roundtrip(&m);
        assert_eq!(again, m, "{name}: decode(encode(decode(pb))) != decode(pb)");
        // And encoding is deterministic.
        assert_eq!(encode_module(&m), encode_module(&again), "{name}");
    }
}

/// Each JAX module decodes to the module XLA's own text of it parses to
/// (tests/data/*.hlo.txt, `as_hlo_text()` of the same computation):
/// computation order and names, parameter numbers (while_loop's `n` is
/// parameter 0 although `x` comes first in the proto), shapes and layouts,
/// literals, called computations and every attribute, with the defaults
/// XLA's text leaves out read as "none given" (a dot's DEFAULT precisions,
/// a compare's FLOAT type; the sort comparator's TOTALORDER stays). Op
/// metadata is not in that text: `metadata_decodes` checks it.
#[test]
fn jax_modules_decode_to_xlas_own_text() {
    for name in MODULES {
        let mut m = load(name);
        for c in m.computations.values_mut() {
            for i in c.instructions.values_mut() {
                i.metadata = OpMetadata::default();
            }
        }
        let path = format!("{}/tests/data/{name}.hlo.txt", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let want = hlox_hlo::text::parse_module(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(m, want, "{name}: the decoded proto differs from XLA's text");
    }
}

#[test]
fn metadata_decodes() {
    let m = load("softmax");
    let red = find(m.entry_computation(), "reduce_max.7");
    assert_eq!(red.metadata.op_name, "jit(softmax)/reduce_max");
}

#[test]
fn encoding_fills_ids_and_program_shapes_like_xla() {
    let m = load("while_loop");
    let p = module_to_proto(&m);
    assert_eq!(p.name, "jit_while_loop");
    let entry = p
        .computations
        .iter()
        .find(|c| c.id == p.entry_computation_id)
        .unwrap();
    assert_eq!(entry.name, p.entry_computation_name);
    assert_eq!(entry.name, "main.3");
    // Callees before callers, ids unique, every reference resolves.
    let mut seen_comps = std::collections::HashSet::new();
    let mut seen_insts = std::collections::HashSet::new();
    for c in &p.computations {
        let mut local = std::collections::HashSet::new();
        for i in &c.instructions {
            assert!(seen_insts.insert(i.id), "duplicate id {}", i.id);
            assert_eq!(
                i.id >> 32,
                c.id,
                "XLA's id scheme: computation id in the upper bits"
            );
            for o in &i.operand_ids {
                assert!(
                    local.contains(o),
                    "{}: operand {o} not defined before",
                    i.name
                );
            }
            for cc in &i.called_computation_ids {
                assert!(
                    seen_comps.contains(cc),
                    "{} calls {cc} which is not before it",
                    i.name
                );
            }
            local.insert(i.id);
            assert!(i.shape.is_some());
        }
        assert!(local.contains(&c.root_id));
        let root = c.instructions.iter().find(|i| i.id == c.root_id).unwrap();
        assert_eq!(c.program_shape.as_ref().unwrap().result, root.shape);
        assert_eq!(c.execution_thread, "main");
        seen_comps.insert(c.id);
    }
    let hps = p.host_program_shape.as_ref().unwrap();
    assert_eq!(hps, entry.program_shape.as_ref().unwrap());
    assert_eq!(hps.parameter_names, ["n.1", "x.1"]);
    assert_eq!(
        shape_from_proto(&hps.parameters[0]).unwrap(),
        Shape::scalar(ElementType::S32)
    );
    // Compare carries XLA's explicit (default) comparison type; dots carry
    // one precision per operand.
    let cmp = p
        .computations
        .iter()
        .flat_map(|c| &c.instructions)
        .find(|i| i.opcode == "compare")
        .unwrap();
    assert_eq!(
        (
            cmp.comparison_direction.as_str(),
            cmp.comparison_type.as_str()
        ),
        ("LT", "SIGNED")
    );
    let mlp = module_to_proto(&load("mlp"));
    let dot = mlp.computations[0]
        .instructions
        .iter()
        .find(|i| i.opcode == "dot")
        .unwrap();
    assert_eq!(
        dot.precision_config.as_ref().unwrap().operand_precision,
        vec![0, 0]
    );
}

#[test]
fn proto_order_need_not_be_topological() {
    // Reverse the order of computations and of instructions: decoding
    // restores a topological arena order, and the module is the same.
    let m = load("mixed");
    let mut p = module_to_proto(&m);
    p.computations.reverse();
    for c in &mut p.computations {
        c.instructions.reverse();
    }
    let back = module_from_proto(&p).unwrap();
    check_invariants(&back);
    assert_eq!(back.computations.len(), m.computations.len());
    for c in m.computations.values() {
        let b = back.comp(back.find_computation(&c.name).unwrap());
        assert_eq!(b.instructions.len(), c.instructions.len());
        let (rb, rc) = (b.root_inst(), c.root_inst());
        assert_eq!((&rb.name, &rb.op, &rb.shape), (&rc.name, &rc.op, &rc.shape));
        let names = |comp: &Computation, i: &Instruction| -> Vec<String> {
            i.operands
                .iter()
                .map(|&o| comp.inst(o).name.clone())
                .collect()
        };
        assert_eq!(names(b, rb), names(c, rc));
        assert_eq!(b.program_shape(), c.program_shape());
    }
    assert_eq!(back.entry_computation().name, "main.8");
}

// ---------------------------------------------------------------------------
// The kitchen-sink module: every attribute JAX's test modules do not exercise.
// ---------------------------------------------------------------------------

/// The kitchen-sink module (tests/data/kitchen_sink.hlo): every attribute
/// JAX's test modules do not exercise.
fn kitchen_sink() -> Module {
    let path = format!("{}/tests/data/kitchen_sink.hlo", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    hlox_hlo::text::parse_module(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn every_op_roundtrips() {
    let m = kitchen_sink();
    check_invariants(&m);
    let back = roundtrip(&m);
    for (a, b) in m.computations.values().zip(back.computations.values()) {
        for (x, y) in a.instructions.values().zip(b.instructions.values()) {
            assert_eq!(x, y, "instruction {} changed", x.name);
        }
        assert_eq!(a, b);
    }
    assert_eq!(back, m);
    // The opcodes it covers with their attributes: all but top-k and the
    // collectives (tests/opcode.rs round-trips every opcode of the table).
    let names: std::collections::HashSet<&str> = m
        .computations
        .values()
        .flat_map(|c| c.instructions.values())
        .map(|i| i.op.name())
        .collect();
    assert_eq!(names.len(), 26 + 16 + 40, "opcodes covered: {names:?}");
}

#[test]
fn hand_built_encoding_details() {
    let m = kitchen_sink();
    let p = module_to_proto(&m);
    let entry = p.computations.last().unwrap();
    let get = |n: &str| entry.instructions.iter().find(|i| i.name == n).unwrap();
    let cc = get("cc");
    assert_eq!(cc.opcode, "custom-call");
    assert_eq!(cc.custom_call_target, "my_target");
    assert_eq!(cc.backend_config, vec![0, 1, 2, 255, 0, b'x']);
    assert!(cc.custom_call_has_side_effect && cc.constrain_layout);
    assert_eq!(
        cc.custom_call_api_version,
        xla::CustomCallApiVersion::ApiVersionStatusReturningUnified as i32
    );
    assert_eq!(
        cc.custom_call_schedule,
        xla::CustomCallSchedule::ScheduleEarliest as i32
    );
    assert_eq!(
        cc.operand_shapes_with_layout[1]
            .layout
            .as_ref()
            .unwrap()
            .minor_to_major,
        vec![0, 1]
    );
    assert_eq!(
        get("u_exponential-minus-one").opcode,
        "exponential-minus-one"
    );
    assert_eq!(get("ob").opcode, "opt-barrier");
    assert_eq!(get("fusion").fusion_kind, "kLoop");
    assert_eq!(get("iota").dimensions, vec![1]);
    // XLA's order for a while: [body, condition].
    let comp_id = |n: &str| p.computations.iter().find(|c| c.name == n).unwrap().id;
    assert_eq!(
        get("while").called_computation_ids,
        vec![comp_id("wbody"), comp_id("wcond")]
    );
    assert_eq!(get("cmp").comparison_type, "TOTALORDER");
    assert_eq!(get("cmpu").comparison_type, "UNSIGNED");
    assert_eq!(
        get("red").called_computation_ids,
        vec![p.computations[0].id]
    );
    assert_eq!(p.computations[0].execution_thread, "side");
    assert!(
        p.computations
            .iter()
            .find(|c| c.name == "fused")
            .unwrap()
            .is_fusion_computation
    );
    let root = get("root");
    assert_eq!(root.backend_config, b"{\"k\":1}".to_vec());
    assert_eq!(root.sharding.as_ref().unwrap().tuple_shardings.len(), 2);
    assert_eq!(root.metadata.as_ref().unwrap().source_line, 12);
    // A scheduled module carries a schedule for its non-fusion computations.
    let sched = p.schedule.as_ref().unwrap();
    assert_eq!(sched.sequences.len(), p.computations.len() - 1);
    assert_eq!(
        sched.sequences[&entry.id].instruction_ids,
        entry.instructions.iter().map(|i| i.id).collect::<Vec<_>>()
    );
    let alias = &p.input_output_alias.as_ref().unwrap().entries[0];
    assert_eq!(alias.kind, xla::Kind::MustAlias as i32);
}

/// Writes our re-encoding of every JAX module (and the hand-built module)
/// for scripts/check_proto_with_xla.py, which loads them with XLA itself.
#[test]
fn write_reencoded_modules_for_the_xla_check() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("proto-for-xla");
    std::fs::create_dir_all(&dir).unwrap();
    for name in MODULES {
        let bytes = encode_module(&load(name));
        std::fs::write(dir.join(format!("{name}.pb")), &bytes).unwrap();
    }
    std::fs::write(dir.join("kitchen_sink.pb"), encode_module(&kitchen_sink())).unwrap();
}

// ---------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------

#[test]
fn shapes_roundtrip() {
    use ElementType::*;
    let nondefault = Shape::Array(ArrayShape {
        ty: Bf16,
        dims: vec![2, 3, 4],
        layout: Layout {
            minor_to_major: vec![0, 2, 1],
        },
    });
    let shapes = vec![
        Shape::scalar(F32),
        Shape::scalar(Pred),
        Shape::array(S8, vec![0]),
        Shape::array(U64, vec![5, 1, 7]),
        nondefault.clone(),
        Shape::Token,
        Shape::tuple(vec![]),
        Shape::tuple(vec![
            Shape::Token,
            Shape::tuple(vec![nondefault, Shape::tuple(vec![Shape::scalar(F16)])]),
            Shape::array(S64, vec![2]),
        ]),
    ];
    for s in shapes {
        assert_eq!(shape_from_proto(&shape_to_proto(&s)).unwrap(), s);
        let bytes = encode_shape(&s);
        assert_eq!(decode_shape(&bytes).unwrap(), s, "{s:?}");
    }
    let p = shape_to_proto(&Shape::array(F32, vec![2, 3]));
    assert_eq!(p.element_type, xla::PrimitiveType::F32 as i32);
    assert_eq!(p.layout.as_ref().unwrap().minor_to_major, vec![1, 0]);
    let t = shape_to_proto(&Shape::tuple(vec![Shape::Token]));
    assert_eq!(t.element_type, xla::PrimitiveType::Tuple as i32);
    assert_eq!(
        t.tuple_shapes[0].element_type,
        xla::PrimitiveType::Token as i32
    );
}

#[test]
fn shape_without_layout_gets_the_default() {
    let p = xla::ShapeProto {
        element_type: xla::PrimitiveType::S32 as i32,
        dimensions: vec![4, 5, 6],
        ..Default::default()
    };
    let s = shape_from_proto(&p).unwrap();
    assert_eq!(s.as_array().unwrap().layout.minor_to_major, vec![2, 1, 0]);
    assert_eq!(s, Shape::array(ElementType::S32, vec![4, 5, 6]));
}

#[test]
fn bad_shapes_are_errors() {
    let arr = |ty: xla::PrimitiveType, dims: Vec<i64>| xla::ShapeProto {
        element_type: ty as i32,
        dimensions: dims,
        ..Default::default()
    };
    let err = |p: &xla::ShapeProto| shape_from_proto(p).unwrap_err().to_string();
    assert!(err(&arr(xla::PrimitiveType::S4, vec![2])).contains("S4 is not supported"));
    assert!(err(&arr(xla::PrimitiveType::Invalid, vec![])).contains("PRIMITIVE_TYPE_INVALID"));
    assert!(err(&arr(xla::PrimitiveType::F32, vec![-1])).contains("negative"));
    let mut dynamic = arr(xla::PrimitiveType::F32, vec![3]);
    dynamic.is_dynamic_dimension = vec![true];
    assert!(err(&dynamic).contains("dynamic dimensions"));
    let mut bad_layout = arr(xla::PrimitiveType::F32, vec![3, 4]);
    bad_layout.layout = Some(Box::new(xla::LayoutProto {
        minor_to_major: vec![0, 0],
        ..Default::default()
    }));
    assert!(err(&bad_layout).contains("not a permutation"));
    let mut tiled = arr(xla::PrimitiveType::F32, vec![8]);
    tiled.layout = Some(Box::new(xla::LayoutProto {
        minor_to_major: vec![0],
        tiles: vec![xla::TileProto {
            dimensions: vec![4],
        }],
        ..Default::default()
    }));
    assert!(err(&tiled).contains("tiled layouts"));
    // Nested errors say where.
    let t = xla::ShapeProto {
        element_type: xla::PrimitiveType::Tuple as i32,
        tuple_shapes: vec![
            arr(xla::PrimitiveType::F32, vec![]),
            arr(xla::PrimitiveType::U4, vec![]),
        ],
        ..Default::default()
    };
    assert!(err(&t).contains("tuple_shapes[1]"), "{}", err(&t));
    assert!(matches!(
        decode_shape(&[0xff, 0xff]),
        Err(ProtoError::Decode { .. })
    ));
}

// ---------------------------------------------------------------------------
// Literals
// ---------------------------------------------------------------------------

#[test]
fn literals_roundtrip_for_every_element_type() {
    let lits = common::every_type_literals();
    for l in &lits {
        assert_eq!(&literal_from_proto(&literal_to_proto(l)).unwrap(), l);
        assert_eq!(&decode_literal(&encode_literal(l)).unwrap(), l);
    }
    // Tuples (nested) and tokens.
    let t = Literal::tuple(vec![
        Literal::Token,
        Literal::tuple(lits.clone()),
        Literal::tuple(vec![]),
    ]);
    assert_eq!(literal_from_proto(&literal_to_proto(&t)).unwrap(), t);
}

#[test]
fn literal_proto_fields_follow_xla() {
    // 16-bit values are little-endian bytes; PRED is a bool list.
    let p = literal_to_proto(&Literal::r1(&[f16::from_f32(1.0), f16::from_f32(-2.0)]));
    assert_eq!(p.f16s, vec![0x00, 0x3c, 0x00, 0xc0]);
    let p = literal_to_proto(&Literal::r1(&[bf16::from_f32(1.0)]));
    assert_eq!(p.bf16s, vec![0x80, 0x3f]);
    let p = literal_to_proto(&Literal::r1(&[0x0102u16]));
    assert_eq!(p.u16s, vec![0x02, 0x01]);
    assert_eq!(
        literal_to_proto(&Literal::r1(&[true, false])).preds,
        vec![true, false]
    );
    assert_eq!(literal_to_proto(&Literal::r1(&[-1i8])).s8s, vec![0xff]);
    // Data is in layout order: a column-major 2x3 literal.
    let rm = ArrayLiteral::from_vec(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
    let cm = rm.relayout(Layout {
        minor_to_major: vec![0, 1],
    });
    let p = literal_to_proto(&Literal::Array(cm.clone()));
    assert_eq!(p.s32s, vec![1, 4, 2, 5, 3, 6]);
    let back = literal_from_proto(&p).unwrap();
    assert_eq!(back, Literal::Array(cm));
    assert_eq!(back.to_vec::<i32>().unwrap(), vec![1, 2, 3, 4, 5, 6]);
}

#[test]
fn bad_literals_are_errors() {
    let mut p = literal_to_proto(&Literal::r1(&[1f32, 2.0, 3.0]));
    p.f32s.pop();
    let e = literal_from_proto(&p).unwrap_err().to_string();
    assert!(e.contains("needs 3 values in `f32s` but has 2"), "{e}");
    let mut p = literal_to_proto(&Literal::r1(&[f16::ONE]));
    p.f16s.push(0);
    let e = literal_from_proto(&p).unwrap_err().to_string();
    assert!(e.contains("needs 2 bytes"), "{e}");
    let mut p = literal_to_proto(&Literal::tuple(vec![Literal::r0(1u8)]));
    p.tuple_literals.clear();
    assert!(literal_from_proto(&p)
        .unwrap_err()
        .to_string()
        .contains("tuple literal has 0 elements"));
    let no_shape = xla::LiteralProto::default();
    assert!(literal_from_proto(&no_shape)
        .unwrap_err()
        .to_string()
        .contains("no shape"));
    // A huge shape is rejected rather than allocated.
    let huge = xla::LiteralProto {
        shape: Some(xla::ShapeProto {
            element_type: xla::PrimitiveType::F64 as i32,
            dimensions: vec![1 << 40, 1 << 40],
            ..Default::default()
        }),
        ..Default::default()
    };
    assert!(literal_from_proto(&huge).is_err());
}

// ---------------------------------------------------------------------------
// Errors and robustness
// ---------------------------------------------------------------------------

fn err_of(p: &xla::HloModuleProto) -> String {
    module_from_proto(p).unwrap_err().to_string()
}

fn entry_mut(p: &mut xla::HloModuleProto) -> &mut xla::HloComputationProto {
    p.computations.last_mut().unwrap()
}

#[test]
fn invalid_modules_name_the_instruction_and_field() {
    let base = module_to_proto(&load("softmax"));

    let mut p = base.clone();
    entry_mut(&mut p).instructions[3].opcode = "frobnicate".into();
    let e = err_of(&p);
    assert!(
        e.contains("computation `main.3`")
            && e.contains("field `opcode`")
            && e.contains("frobnicate"),
        "{e}"
    );

    let mut p = base.clone();
    entry_mut(&mut p).instructions[2].operand_ids[0] = 999;
    let e = err_of(&p);
    assert!(
        e.contains("instruction `reduce_max.7`") && e.contains("operand_ids") && e.contains("999"),
        "{e}"
    );

    let mut p = base.clone();
    entry_mut(&mut p).instructions[0].shape = None;
    let e = err_of(&p);
    assert!(
        e.contains("instruction `x.1`") && e.contains("has no shape"),
        "{e}"
    );

    let mut p = base.clone();
    entry_mut(&mut p).instructions[0]
        .shape
        .as_mut()
        .unwrap()
        .element_type = xla::PrimitiveType::S4 as i32;
    let e = err_of(&p);
    assert!(e.contains("instruction `x.1`") && e.contains("S4"), "{e}");

    let mut p = base.clone();
    entry_mut(&mut p).root_id = 12345;
    assert!(err_of(&p).contains("root_id"));

    let mut p = base.clone();
    entry_mut(&mut p).instructions[2].called_computation_ids = vec![77];
    let e = err_of(&p);
    assert!(
        e.contains("reduce_max.7") && e.contains("called_computation_ids") && e.contains("77"),
        "{e}"
    );

    let mut p = base.clone();
    p.entry_computation_id = 42;
    p.entry_computation_name = "nope".into();
    assert!(err_of(&p).contains("entry computation"));

    // Operand cycle.
    let mut p = base.clone();
    let c = entry_mut(&mut p);
    let last = c.instructions.last().unwrap().id;
    c.instructions[2].operand_ids[1] = last;
    assert!(err_of(&p).contains("cycle"));

    // Computation cycle: a region calls the entry.
    let mut p = base.clone();
    let entry_id = p.entry_computation_id;
    p.computations[0].instructions[2].called_computation_ids = vec![entry_id];
    assert!(err_of(&p).contains("cycle"));

    // Missing attributes.
    let mut p = base.clone();
    let c = entry_mut(&mut p);
    let red = c
        .instructions
        .iter_mut()
        .find(|i| i.opcode == "reduce")
        .unwrap();
    red.opcode = "concatenate".into();
    red.dimensions = vec![];
    assert!(err_of(&p).contains("field `dimensions`"));

    let mut p = base.clone();
    let c = entry_mut(&mut p);
    c.instructions[0].parameter_number = 3;
    assert!(err_of(&p).contains("parameter(0) is missing"));

    // Garbage bytes.
    assert!(matches!(
        decode_module(b"HloModule m\nENTRY e {}"),
        Err(ProtoError::Decode { .. })
    ));
}

#[test]
fn truncated_or_corrupted_protos_never_panic() {
    for name in ["softmax", "mixed"] {
        let bytes = data(&format!("{name}.pb"));
        let mut errors = 0;
        for len in 0..bytes.len() {
            if decode_module(&bytes[..len]).is_err() {
                errors += 1;
            }
        }
        // Almost every truncation is detected.
        assert!(
            errors > bytes.len() * 9 / 10,
            "{name}: only {errors} of {} truncations rejected",
            bytes.len()
        );
        let mut state = 0x9e3779b97f4a7c15u64;
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= flip;
                let _ = decode_module(&b);
            }
            // And random multi-byte damage.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut b = bytes.clone();
            for k in 0..4 {
                let pos = ((state >> (k * 16)) as usize) % b.len();
                b[pos] = (state >> (k * 8)) as u8;
            }
            let _ = decode_module(&b);
        }
    }
}
