//! The IR mutation API (`hlox_hlo::edit`): shapes come from shape
//! inference, uses are tracked, and the finished computation is laid out in
//! cursor order and topologically sorted.

use hlox_hlo::edit::{use_lists, Cursor, EditError, Editor, NewInst, Signatures};
use hlox_hlo::text::{parse_module, print_module};
use hlox_hlo::verifier::verify_module;
use hlox_hlo::{BinaryOp, EntityRef, InstId, Layout, Module, Op, Shape, UnaryOp};

const SRC: &str = "HloModule m

ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  a = f32[4] add(p, q)
  n = f32[4] negate(a)
  ROOT m = f32[4] multiply(n, a)
}
";

fn module() -> Module {
    parse_module(SRC).unwrap()
}

fn id(ed: &Editor, name: &str) -> InstId {
    ed.original_ids()
        .find(|&i| ed.inst(i).name == name)
        .unwrap_or_else(|| panic!("no instruction {name}"))
}

/// Runs `edit` on the entry computation and returns the module (verified)
/// or the first error.
fn edited(edit: impl FnOnce(&mut Editor) -> Result<(), EditError>) -> Result<Module, EditError> {
    let mut m = module();
    let sigs = Signatures::of_module(&m);
    let e = m.entry;
    let mut ed = Editor::new(m.computations[e].clone(), &sigs);
    edit(&mut ed)?;
    m.computations[e] = ed.finish()?;
    verify_module(&m).unwrap_or_else(|err| panic!("{err}\n{}", print_module(&m)));
    Ok(m)
}

/// `err` is shape inference refusing instruction `name`.
fn assert_shape_error(err: &EditError, name: &str) {
    assert!(
        matches!(err, EditError::Shape { instruction, .. } if instruction == name),
        "{err}"
    );
}

/// The printed instructions after `p`, `q` and `a`, which stay first.
fn after_a(m: &Module) -> Vec<String> {
    let b = body(m);
    assert_eq!(
        b[..3],
        [
            "p = f32[4]{0} parameter(0)",
            "q = f32[4]{0} parameter(1)",
            "a = f32[4]{0} add(p, q)"
        ]
    );
    b[3..].to_vec()
}

fn body(m: &Module) -> Vec<String> {
    print_module(m)
        .lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn insert_infers_the_result_shape() {
    let m = edited(|ed| {
        let (p, n) = (id(ed, "p"), id(ed, "n"));
        let s = ed.insert(
            Cursor::Before(n),
            NewInst::new("s", Op::Unary(UnaryOp::Sqrt), vec![p]),
        )?;
        assert_eq!(
            ed.inst(s).shape,
            Shape::array(hlox_hlo::ElementType::F32, vec![4])
        );
        assert_eq!(ed.users(p).last(), Some(&s));
        ed.set_operand(n, 0, s)
    })
    .unwrap();
    assert_eq!(
        after_a(&m),
        [
            "s = f32[4]{0} sqrt(p)",
            "n = f32[4]{0} negate(s)",
            "ROOT m = f32[4]{0} multiply(n, a)",
        ]
    );
}

#[test]
fn an_opcode_whose_shape_cannot_be_inferred_needs_a_checked_declaration() {
    let err = edited(|ed| {
        let p = id(ed, "p");
        ed.insert(Cursor::End, NewInst::new("r", Op::Reshape, vec![p]))?;
        Ok(())
    })
    .unwrap_err();
    assert_shape_error(&err, "r");
    // A declared shape that does not fit the operand is refused.
    let f32s = |d: &[i64]| Shape::array(hlox_hlo::ElementType::F32, d.to_vec());
    let err = edited(|ed| {
        let p = id(ed, "p");
        ed.insert_declared(
            Cursor::End,
            NewInst::new("r", Op::Reshape, vec![p]),
            f32s(&[3]),
        )?;
        Ok(())
    })
    .unwrap_err();
    assert!(err.to_string().contains("instruction `r`"), "{err}");
    // A good one is taken.
    edited(|ed| {
        let p = id(ed, "p");
        ed.insert_declared(
            Cursor::End,
            NewInst::new("r", Op::Reshape, vec![p]),
            f32s(&[2, 2]),
        )?;
        Ok(())
    })
    .unwrap();
    // Wrong operand types are refused by inference too.
    let err = edited(|ed| {
        let p = id(ed, "p");
        let c = ed.insert(
            Cursor::Before(p),
            NewInst::new(
                "c",
                Op::Constant {
                    literal: hlox_hlo::Literal::zeros(&Shape::scalar(hlox_hlo::ElementType::S32))
                        .unwrap(),
                },
                vec![],
            ),
        )?;
        ed.insert(
            Cursor::End,
            NewInst::new("bad", Op::Binary(BinaryOp::Add), vec![p, c]),
        )?;
        Ok(())
    })
    .unwrap_err();
    assert_shape_error(&err, "bad");
}

#[test]
fn replace_all_uses_moves_users_and_the_root() {
    let m = edited(|ed| {
        let (a, n, mm) = (id(ed, "a"), id(ed, "n"), id(ed, "m"));
        let s = ed.insert(
            Cursor::After(mm),
            NewInst::new("s", Op::Binary(BinaryOp::Subtract), vec![mm, a]),
        )?;
        ed.replace_all_uses(mm, s)?;
        assert_eq!(ed.root(), s);
        assert_eq!(
            ed.users(mm),
            &[s],
            "the replacement keeps reading the old value"
        );
        ed.replace_all_uses(n, a)?;
        assert!(ed.users(n).is_empty());
        ed.remove(n)
    })
    .unwrap();
    assert_eq!(
        after_a(&m),
        [
            "m = f32[4]{0} multiply(a, a)",
            "ROOT s = f32[4]{0} subtract(m, a)",
        ]
    );
}

#[test]
fn replacements_must_have_a_compatible_shape() {
    let err = edited(|ed| {
        let (p, n) = (id(ed, "p"), id(ed, "n"));
        let r = ed.insert_declared(
            Cursor::After(p),
            NewInst::new("r", Op::Reshape, vec![p]),
            Shape::array(hlox_hlo::ElementType::F32, vec![2, 2]),
        )?;
        ed.replace_all_uses(n, r)
    })
    .unwrap_err();
    assert!(
        matches!(&err, EditError::IncompatibleReplacement { old, new, .. } if old == "n" && new == "r"),
        "{err}"
    );
}

#[test]
fn cursors_keep_insertion_order() {
    let m = edited(|ed| {
        let (a, n) = (id(ed, "a"), id(ed, "n"));
        for (k, at) in [
            Cursor::Before(n),
            Cursor::Before(n),
            Cursor::After(a),
            Cursor::After(a),
            Cursor::End,
        ]
        .into_iter()
        .enumerate()
        {
            ed.insert(
                at,
                NewInst::new(format!("x{k}"), Op::Unary(UnaryOp::Abs), vec![a]),
            )?;
        }
        Ok(())
    })
    .unwrap();
    let names: Vec<String> = body(&m)
        .iter()
        .map(|l| {
            l.trim_start_matches("ROOT ")
                .split(' ')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        names,
        ["p", "q", "a", "x2", "x3", "x0", "x1", "n", "m", "x4"]
    );
}

#[test]
fn finish_sorts_operands_before_their_users() {
    // An instruction inserted at the end and used by an earlier one moves up.
    let m = edited(|ed| {
        let (p, n) = (id(ed, "p"), id(ed, "n"));
        let late = ed.insert(
            Cursor::End,
            NewInst::new("late", Op::Unary(UnaryOp::Abs), vec![p]),
        )?;
        ed.set_operand(n, 0, late)
    })
    .unwrap();
    let b = body(&m);
    let pos = |s: &str| b.iter().position(|l| l.contains(s)).unwrap();
    assert!(pos("late = ") < pos("n = "), "{b:?}");
}

#[test]
fn a_cycle_is_an_error() {
    let err = edited(|ed| {
        let (a, n) = (id(ed, "a"), id(ed, "n"));
        ed.set_operand(a, 0, n)
    })
    .unwrap_err();
    assert!(matches!(err, EditError::Cycle { .. }), "{err}");
}

#[test]
fn removed_instructions_must_be_unused() {
    let err = edited(|ed| ed.remove(id(ed, "a"))).unwrap_err();
    assert!(
        matches!(&err, EditError::RemovedInUse { instruction, .. } if instruction == "a"),
        "{err}"
    );
    let err = edited(|ed| ed.remove(id(ed, "m"))).unwrap_err();
    assert!(matches!(err, EditError::RemovedRoot { .. }), "{err}");
    let err = edited(|ed| ed.remove(id(ed, "p"))).unwrap_err();
    assert!(matches!(err, EditError::RemovedParameter { .. }), "{err}");
    // Removing a user and its operand, in either order, is fine.
    let m = edited(|ed| {
        let (n, mm, a) = (id(ed, "n"), id(ed, "m"), id(ed, "a"));
        ed.rewrite(mm, Op::Binary(BinaryOp::Add), vec![a, a], vec![])?;
        ed.remove(n)
    })
    .unwrap();
    assert_eq!(body(&m).len(), 4);
}

#[test]
fn rewrite_keeps_name_and_shape_and_checks_them() {
    let m = edited(|ed| {
        let (p, n) = (id(ed, "p"), id(ed, "n"));
        ed.rewrite(n, Op::Unary(UnaryOp::Abs), vec![p], vec![])
    })
    .unwrap();
    assert!(body(&m).contains(&"n = f32[4]{0} abs(p)".to_string()));
    // A rewrite the declared shape does not fit is refused.
    let err = edited(|ed| {
        let (p, n) = (id(ed, "p"), id(ed, "n"));
        ed.rewrite(n, Op::Tuple, vec![p, p], vec![])
    })
    .unwrap_err();
    assert_shape_error(&err, "n");
}

#[test]
fn set_layout_changes_only_layouts() {
    let src =
        "HloModule m\n\nENTRY e {\n  p = f32[2,3] parameter(0)\n  ROOT c = f32[2,3] copy(p)\n}\n";
    let mut m = parse_module(src).unwrap();
    let sigs = Signatures::of_module(&m);
    let e = m.entry;
    let mut ed = Editor::new(m.computations[e].clone(), &sigs);
    let c = ed.root();
    let mut col = Shape::array(hlox_hlo::ElementType::F32, vec![2, 3]);
    col.as_array_mut().unwrap().layout = Layout {
        minor_to_major: vec![0, 1],
    };
    ed.set_layout(c, &col).unwrap();
    let err = ed
        .set_layout(c, &Shape::array(hlox_hlo::ElementType::F32, vec![3, 2]))
        .unwrap_err();
    assert!(matches!(err, EditError::NotALayoutChange { .. }), "{err}");
    let err = ed
        .set_layout(c, &Shape::array(hlox_hlo::ElementType::S32, vec![2, 3]))
        .unwrap_err();
    assert!(matches!(err, EditError::NotALayoutChange { .. }), "{err}");
    m.computations[e] = ed.finish().unwrap();
    verify_module(&m).unwrap();
    assert!(print_module(&m).contains("ROOT c = f32[2,3]{0,1} copy(p)"));
}

#[test]
fn an_untouched_computation_comes_back_as_it_was() {
    let m = module();
    let sigs = Signatures::of_module(&m);
    let c = m.entry_computation().clone();
    let ed = Editor::new(c.clone(), &sigs);
    assert!(!ed.changed());
    assert_eq!(ed.finish().unwrap(), c);
}

#[test]
fn use_lists_name_each_user_once_in_order() {
    let m = module();
    let c = m.entry_computation();
    let users = use_lists(c);
    let name = |i: &InstId| c.inst(*i).name.as_str();
    let a = c
        .instructions
        .iter()
        .find(|(_, i)| i.name == "a")
        .unwrap()
        .0;
    assert_eq!(users[a].iter().map(name).collect::<Vec<_>>(), ["n", "m"]);
    let root = c.root;
    assert!(users[root].is_empty());
}

#[test]
fn bad_ids_are_errors() {
    let err = edited(|ed| ed.remove(InstId::new(99))).unwrap_err();
    assert!(matches!(err, EditError::NoSuchInstruction { .. }), "{err}");
    let err = edited(|ed| {
        let n = id(ed, "n");
        ed.set_operand(n, 3, n)
    })
    .unwrap_err();
    assert!(matches!(err, EditError::NoSuchOperand { .. }), "{err}");
}
