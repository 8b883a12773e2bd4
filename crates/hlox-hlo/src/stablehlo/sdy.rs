//! Shardy (`sdy`) in StableHLO text, lowered to the HLO that XLA's Shardy
//! round-trip export writes (what `lowered.as_text(dialect="hlo")` shows
//! for the same JAX program), so `hlox_passes::spmd` runs both alike:
//!
//! - the module's `sdy.mesh`es become its `xla.sdy.meshes` frontend
//!   attribute (`{mesh = #sdy.mesh<["x"=4]>}`);
//! - `sdy.manual_computation` (a `shard_map`) becomes a custom call to
//!   `xla.sdy.GlobalToLocalShape` (with `xla.sdy.in_shardings` and
//!   `xla.sdy.manual_axes`), a `call` of its body lowered to a computation
//!   `xla.sdy.manual_computation_body`, and a custom call to
//!   `xla.sdy.LocalToGlobalShape` (with `xla.sdy.manual_axes` and
//!   `xla.sdy.out_shardings`), with the `get-tuple-element`s between them;
//! - `sdy.sharding_constraint` becomes a custom call to
//!   `xla.sdy.ShardingConstraint` (the identity), with `xla.sdy.sharding`;
//! - an argument's `sdy.sharding` becomes its parameter's `xla.sdy.sharding`
//!   frontend attribute. Results' `sdy.sharding`s are dropped: XLA wraps
//!   them in `xla.sdy.FuncResultSharding` custom calls, which hlox runs as
//!   the identity, and every device computes what is outside `shard_map`s
//!   replicated (docs/multi-device.md), so nothing reads them.
//!
//! Every mesh, sharding and axis list is checked with the readers the SPMD
//! expansion uses ([`crate::sharding`]), so what hlox cannot read is an
//! error at its line and column here, not later.

use super::lower::{Computing as Comp, Lowerer};
use super::syntax::{Attr, MFunc, MMesh, MOp};
use crate::ir::{CustomCall, CustomCallApiVersion, CustomCallSchedule, InstId, Op};
use crate::sharding::{self, Mesh, GLOBAL_TO_LOCAL, LOCAL_TO_GLOBAL, MESHES_ATTR};
use crate::text::ParseError;
use crate::types::Shape;

type LResult<T> = Result<T, ParseError>;

/// The identity custom call XLA writes for `sdy.sharding_constraint`.
const SHARDING_CONSTRAINT: &str = "xla.sdy.ShardingConstraint";

/// A frontend attribute: key and value.
type FrontendAttr = (String, String);

/// The module's `xla.sdy.meshes` attribute, and the meshes it names; none
/// without `sdy.mesh`es.
pub(crate) fn meshes(lw: &Lowerer, meshes: &[MMesh]) -> LResult<(Option<FrontendAttr>, Vec<Mesh>)> {
    if meshes.is_empty() {
        return Ok((None, Vec::new()));
    }
    let mut parsed = Vec::new();
    let mut entries = Vec::new();
    for (i, m) in meshes.iter().enumerate() {
        if meshes[..i].iter().any(|p| p.name == m.name) {
            return lw.err(m.pos, format!("mesh '@{}' is defined twice", m.name));
        }
        let entry = format!("{} = {}", m.name, m.text);
        match sharding::parse_meshes(&format!("{{{entry}}}")) {
            Ok(v) => parsed.extend(v),
            Err(e) => return lw.err(m.pos, format!("sdy.mesh @{}: {e}", m.name)),
        }
        entries.push(entry);
    }
    let attr = (
        MESHES_ATTR.to_string(),
        format!("{{{}}}", entries.join(", ")),
    );
    Ok((Some(attr), parsed))
}

/// The text of a Shardy attribute of `op`: kept as text by the pretty
/// forms, or an opaque `#sdy...` attribute of the generic form (its
/// source text).
fn text_of(lw: &Lowerer, op: &MOp, key: &str) -> LResult<(String, usize)> {
    let Some(a) = op.attr(key) else {
        return lw.err(op.pos, format!("'{}' needs '{key}'", op.name));
    };
    match &a.value {
        Attr::Str(s) => Ok((String::from_utf8_lossy(s).into_owned(), a.pos)),
        Attr::Opaque => Ok((lw.source(a.span).trim().to_string(), a.pos)),
        _ => lw.err(
            a.pos,
            format!("'{key}' of '{}' must be a Shardy attribute", op.name),
        ),
    }
}

/// Checks one `#sdy.sharding_per_value<[...]>` of `count` values.
fn check_shardings(
    lw: &Lowerer,
    op: &MOp,
    key: &str,
    count: usize,
    meshes: &[Mesh],
) -> LResult<String> {
    let (text, pos) = text_of(lw, op, key)?;
    match sharding::parse_shardings(&text, meshes) {
        Ok(v) if v.len() == count => Ok(text),
        Ok(v) => lw.err(
            pos,
            format!("'{}' has {} {key} for {count} values", op.name, v.len()),
        ),
        Err(e) => lw.err(pos, format!("{key} of '{}': {e}", op.name)),
    }
}

fn shardy_call(target: &str) -> Op {
    Op::CustomCall(Box::new(CustomCall {
        target: target.to_string(),
        operand_layout_constraints: None,
        has_side_effect: true,
        output_operand_aliasing: Vec::new(),
        schedule: CustomCallSchedule::None,
        api_version: CustomCallApiVersion::Original,
        opaque: Vec::new(),
    }))
}

/// One value for one shape, a tuple for several (as XLA's export writes
/// the boundary custom calls and the body's root).
fn one_or_tuple(mut shapes: Vec<Shape>) -> Shape {
    if shapes.len() == 1 {
        shapes.remove(0)
    } else {
        Shape::Tuple(shapes)
    }
}

/// `sdy.manual_computation`: see the module docs.
pub(crate) fn manual_computation(lw: &mut Lowerer, c: &mut Comp, op: &MOp) -> LResult<Vec<InstId>> {
    let pos = op.pos;
    let x = lw.operands(c, op)?;
    let globals = lw.result_shapes(op)?;
    let meshes = lw.meshes().to_vec();
    if meshes.is_empty() {
        return lw.err(
            pos,
            "'sdy.manual_computation' in a module without an 'sdy.mesh'",
        );
    }
    let in_text = check_shardings(lw, op, "in_shardings", x.len(), &meshes)?;
    let out_text = check_shardings(lw, op, "out_shardings", globals.len(), &meshes)?;
    let (axes, axes_pos) = text_of(lw, op, "manual_axes")?;
    let manual = match sharding::parse_manual_axes(&axes) {
        Ok(v) => v,
        Err(e) => {
            return lw.err(
                axes_pos,
                format!("manual_axes of 'sdy.manual_computation': {e}"),
            )
        }
    };
    if let Some(a) = manual
        .iter()
        .find(|a| !meshes.iter().any(|m| m.axes.iter().any(|(n, _)| n == *a)))
    {
        return lw.err(
            axes_pos,
            format!(
                "manual_axes of 'sdy.manual_computation': '{a}' is not an axis of any sdy.mesh"
            ),
        );
    }
    let Some(region) = op.regions.first() else {
        return lw.err(pos, "'sdy.manual_computation' needs its body region");
    };
    if region.args.len() != x.len() {
        return lw.err(
            region.pos,
            format!(
                "the body of 'sdy.manual_computation' takes {} arguments for {} operands",
                region.args.len(),
                x.len()
            ),
        );
    }
    match region.ops.last() {
        Some(last) if last.name == "sdy.return" => {}
        Some(last) => {
            return lw.err(
                last.pos,
                format!(
                    "the body of 'sdy.manual_computation' must end with 'sdy.return', not '{}'",
                    last.name
                ),
            )
        }
        None => return lw.err(region.pos, "the body of 'sdy.manual_computation' is empty"),
    }
    let locals: Vec<Shape> = region
        .args
        .iter()
        .map(|(_, t)| lw.shape(t))
        .collect::<LResult<_>>()?;

    let g2l_shape = one_or_tuple(locals.clone());
    let g2l = lw.add(c, pos, shardy_call(GLOBAL_TO_LOCAL), g2l_shape, x, vec![])?;
    c.insts[g2l].frontend_attributes = vec![
        ("xla.sdy.in_shardings".into(), in_text),
        ("xla.sdy.manual_axes".into(), axes.clone()),
    ];
    let local_in = if locals.len() == 1 {
        vec![g2l]
    } else {
        lw.untuple(c, pos, g2l)?
    };

    let body = lw.isolated_region(c, region, "xla.sdy.manual_computation_body", "body")?;
    let root = lw.comp_root_shape(body);
    let call = lw.add(c, pos, Op::Call, root, local_in, vec![body])?;
    c.insts[call].frontend_attributes = vec![("inlineable".into(), "false".into())];
    let local_out = if globals.len() == 1 {
        vec![call]
    } else {
        lw.untuple(c, pos, call)?
    };
    if local_out.len() != globals.len() {
        return lw.err(
            pos,
            format!(
                "the body of 'sdy.manual_computation' returns {} values for {} results",
                local_out.len(),
                globals.len()
            ),
        );
    }

    let l2g_shape = one_or_tuple(globals.clone());
    let l2g = lw.add(
        c,
        pos,
        shardy_call(LOCAL_TO_GLOBAL),
        l2g_shape,
        local_out,
        vec![],
    )?;
    c.insts[l2g].frontend_attributes = vec![
        ("xla.sdy.manual_axes".into(), axes),
        ("xla.sdy.out_shardings".into(), out_text),
    ];
    if globals.len() == 1 {
        Ok(vec![l2g])
    } else {
        lw.untuple(c, pos, l2g)
    }
}

/// `sdy.sharding_constraint %x <@mesh, [...]>`: the identity, annotated.
pub(crate) fn sharding_constraint(
    lw: &mut Lowerer,
    c: &mut Comp,
    op: &MOp,
) -> LResult<Vec<InstId>> {
    let x = lw.operands(c, op)?;
    let s = lw.one_result(op)?;
    if x.len() != 1 {
        return lw.err(op.pos, "'sdy.sharding_constraint' takes one operand");
    }
    let (text, pos) = text_of(lw, op, "sharding")?;
    let body = text.strip_prefix("#sdy.sharding").unwrap_or(&text);
    let per_value = format!("#sdy.sharding_per_value<[{body}]>");
    if let Err(e) = sharding::parse_shardings(&per_value, lw.meshes()) {
        return lw.err(
            pos,
            format!("the sharding of 'sdy.sharding_constraint': {e}"),
        );
    }
    let id = lw.add(c, op.pos, shardy_call(SHARDING_CONSTRAINT), s, x, vec![])?;
    c.insts[id].frontend_attributes = vec![("xla.sdy.sharding".into(), per_value)];
    Ok(vec![id])
}

/// The `xla.sdy.sharding` frontend attribute of each of `f`'s parameters
/// (from its arguments' `sdy.sharding`), checked; `None` where it has none.
pub(crate) fn arg_shardings(lw: &Lowerer, f: &MFunc) -> LResult<Vec<Option<String>>> {
    let mut out = Vec::with_capacity(f.arg_attrs.len());
    for attrs in &f.arg_attrs {
        let Some(a) = attrs.iter().find(|a| a.key == "sdy.sharding") else {
            out.push(None);
            continue;
        };
        let text = match &a.value {
            Attr::Opaque => lw.source(a.span).trim().to_string(),
            _ => {
                return lw.err(
                    a.pos,
                    "sdy.sharding must be a '#sdy.sharding<...>' attribute",
                )
            }
        };
        let body = text.strip_prefix("#sdy.sharding").unwrap_or(&text);
        let per_value = format!("#sdy.sharding_per_value<[{body}]>");
        if let Err(e) = sharding::parse_shardings(&per_value, lw.meshes()) {
            return lw.err(a.pos, format!("sdy.sharding: {e}"));
        }
        out.push(Some(text));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::ir::{Module, Op};
    use crate::sharding;
    use crate::text::print_module;

    fn corpus(case: &str, file: &str) -> String {
        let p = format!(
            "{}/../../tests/corpus/multidevice/{case}/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    /// The custom calls of `m`'s entry, in order: (target, frontend
    /// attributes, operand count).
    fn boundary(m: &Module) -> Vec<(String, Vec<super::FrontendAttr>, usize)> {
        let e = m.entry_computation();
        e.instructions
            .values()
            .filter_map(|i| {
                let cc = i.op.as_custom_call()?;
                Some((
                    cc.target.clone(),
                    i.frontend_attributes.clone(),
                    i.operands.len(),
                ))
            })
            .collect()
    }

    /// What the SPMD expansion reads of a shard_map is the same from the
    /// StableHLO text as from XLA's HLO of the same program: the mesh
    /// attribute, the two boundary custom calls with their shardings and
    /// manual axes, and a call of the body between them.
    #[test]
    fn manual_computation_lowers_to_xlas_shard_map_structure() {
        for case in ["sm_collectives", "mesh_2x2", "pmap_psum", "dp_step"] {
            let mlir = super::super::parse_module(&corpus(case, "module.mlir"))
                .unwrap_or_else(|e| panic!("{case}: {e}"));
            crate::verifier::verify_module(&mlir).unwrap_or_else(|e| panic!("{case}: {e:?}"));
            let hlo = crate::text::parse_module(&corpus(case, "module.hlo")).unwrap();
            assert_eq!(mlir.frontend_attributes, hlo.frontend_attributes, "{case}");
            let meshes = sharding::parse_meshes(&mlir.frontend_attributes[0].1).unwrap();
            assert_eq!(meshes.len(), 1, "{case}");
            let (a, b) = (boundary(&mlir), boundary(&hlo));
            let a: Vec<_> = a
                .into_iter()
                .filter(|(t, ..)| t != "xla.sdy.FuncResultSharding")
                .collect();
            let b: Vec<_> = b
                .into_iter()
                .filter(|(t, ..)| t != "xla.sdy.FuncResultSharding")
                .collect();
            assert_eq!(a.len(), 2, "{case}: {}", print_module(&mlir));
            assert_eq!(a[0].0, sharding::GLOBAL_TO_LOCAL);
            assert_eq!(a[1].0, sharding::LOCAL_TO_GLOBAL);
            // The attributes are the same up to spacing, and read the same.
            for ((ta, fa, na), (tb, fb, nb)) in a.iter().zip(&b) {
                assert_eq!((ta, na), (tb, nb), "{case}");
                assert_eq!(fa.len(), fb.len(), "{case}");
                for ((ka, va), (kb, vb)) in fa.iter().zip(fb) {
                    assert_eq!(ka, kb, "{case}");
                    if ka == "xla.sdy.manual_axes" {
                        assert_eq!(
                            sharding::parse_manual_axes(va).unwrap(),
                            sharding::parse_manual_axes(vb).unwrap()
                        );
                    } else {
                        assert_eq!(
                            sharding::parse_shardings(va, &meshes).unwrap(),
                            sharding::parse_shardings(vb, &meshes).unwrap(),
                            "{case} {ka}"
                        );
                    }
                }
            }
            let calls: Vec<_> = mlir
                .entry_computation()
                .instructions
                .values()
                .filter(|i| matches!(i.op, Op::Call))
                .collect();
            assert_eq!(calls.len(), 1, "{case}");
            let body = &mlir.computations[calls[0].called[0]];
            assert!(
                body.name.starts_with("xla.sdy.manual_computation_body"),
                "{}",
                body.name
            );
            assert!(print_module(&mlir).contains("all-reduce("), "{case}");
        }
    }

    /// An argument's sdy.sharding is its parameter's xla.sdy.sharding, as
    /// XLA writes it; a module without shard_map has no boundary calls.
    #[test]
    fn argument_shardings_and_a_jit_without_shard_map() {
        let m = super::super::parse_module(&corpus("jit_sharded", "module.mlir")).unwrap();
        let e = m.entry_computation();
        let p0 = &e.instructions[e.params[0]];
        assert_eq!(
            p0.frontend_attributes,
            vec![(
                "xla.sdy.sharding".to_string(),
                r#"#sdy.sharding<@mesh, [{"x"}, {}]>"#.to_string()
            )]
        );
        assert!(boundary(&m).is_empty());
    }

    /// MLIR's generic form of the same ops lowers as the pretty form does.
    #[test]
    fn generic_form_of_manual_computation() {
        let generic = r#"module @m {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
    %0:2 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>, manual_axes = #sdy<manual_axes{"x"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}]>, <@mesh, [{}]>]>}> ({
    ^bb0(%arg1: tensor<2xf32>):
      %1 = "stablehlo.negate"(%arg1) : (tensor<2xf32>) -> tensor<2xf32>
      "sdy.return"(%1, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> ()
    }) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>)
    %2 = "sdy.sharding_constraint"(%0#0) <{sharding = #sdy.sharding<@mesh, [{"x"}]>}> : (tensor<4xf32>) -> tensor<4xf32>
    return %2, %0#1 : tensor<4xf32>, tensor<2xf32>
  }
}"#;
        let pretty = r#"module @m {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>, <@mesh, [{}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %1 = stablehlo.negate %arg1 : tensor<2xf32>
      sdy.return %1, %arg1 : tensor<2xf32>, tensor<2xf32>
    } : (tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>)
    %2 = sdy.sharding_constraint %0#0 <@mesh, [{"x"}]> : tensor<4xf32>
    return %2, %0#1 : tensor<4xf32>, tensor<2xf32>
  }
}"#;
        let a = super::super::parse_module(generic).unwrap_or_else(|e| panic!("{e}"));
        let b = super::super::parse_module(pretty).unwrap_or_else(|e| panic!("{e}"));
        crate::verifier::verify_module(&a).unwrap();
        assert_eq!(print_module(&a), print_module(&b));
        let targets: Vec<String> = boundary(&a).into_iter().map(|(t, ..)| t).collect();
        assert_eq!(
            targets,
            [
                sharding::GLOBAL_TO_LOCAL,
                sharding::LOCAL_TO_GLOBAL,
                "xla.sdy.ShardingConstraint"
            ]
        );
    }

    /// Every prefix of a Shardy module, and random edits of the Shardy
    /// parts of one, are read or refused, never a panic.
    #[test]
    fn prefixes_and_edits_of_a_shardy_module_are_an_error_or_a_module() {
        let text = corpus("sm_custom_call", "module.mlir");
        for (i, _) in text.char_indices().step_by(3) {
            let _ = super::super::parse_module(&text[..i]);
        }
        let text = corpus("mesh_2x2", "module.mlir");
        let bytes = text.as_bytes();
        let pieces: &[&[u8]] = &[
            b"<", b">", b"[", b"]", b"{", b"}", b"\"", b",", b"=", b"@", b"%", b"x", b"9", b"",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        // Edits inside the first 3 lines and the sdy.manual_computation line.
        let line4 = text.match_indices('\n').nth(3).map_or(0, |(i, _)| i);
        let hot = line4 + text[line4..].find('\n').unwrap_or(0);
        for _ in 0..600 {
            let at = next(hot.max(1));
            let len = next(4);
            let piece = pieces[next(pieces.len())];
            let mut edited = bytes[..at].to_vec();
            edited.extend_from_slice(piece);
            edited.extend_from_slice(&bytes[(at + len).min(bytes.len())..]);
            if let Ok(s) = std::str::from_utf8(&edited) {
                let _ = super::super::parse_module(s);
            }
        }
    }

    #[test]
    fn sharding_constraint_and_errors_with_line_and_column() {
        let ok = r#"module @m {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}]> : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}"#;
        let m = super::super::parse_module(ok).unwrap_or_else(|e| panic!("{e}"));
        let b = boundary(&m);
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].0, "xla.sdy.ShardingConstraint");
        assert_eq!(
            b[0].1,
            vec![(
                "xla.sdy.sharding".to_string(),
                r#"#sdy.sharding_per_value<[<@mesh, [{"x"}]>]>"#.to_string()
            )]
        );
        let bad = [
            (ok.replace("@mesh, [{\"x\"}]", "@other, [{\"x\"}]"), "4:"),
            (ok.replace("<[\"x\"=2]>", "<[\"x\"=two]>"), "2:3"),
            (ok.replace("<@mesh, [{\"x\"}]>", ""), "4:"),
        ];
        for (text, at) in bad {
            let e = super::super::parse_module(&text).unwrap_err().to_string();
            assert!(e.contains(at), "{e}");
        }
        let mc = r#"module @m {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      sdy.return %arg1 : tensor<2xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}"#;
        let m = super::super::parse_module(mc).unwrap_or_else(|e| panic!("{e}"));
        crate::verifier::verify_module(&m).unwrap();
        let b = boundary(&m);
        assert_eq!(b.len(), 2);
        for (text, at, what) in [
            (
                mc.replace("manual_axes={\"x\"}", "manual_axes={\"y\"}"),
                "4:",
                "manual_axes",
            ),
            (
                mc.replace("manual_axes={\"x\"}", "manual_axes=[\"x\"]"),
                "4:",
                "manual axes",
            ),
            (
                mc.replace("in_shardings=[<@mesh, [{\"x\"}]>]", "in_shardings=[]"),
                "4:",
                "in_shardings",
            ),
            (
                mc.replace("sdy.return", "stablehlo.return"),
                "5:",
                "sdy.return",
            ),
            (
                mc.replace("  sdy.mesh @mesh = <[\"x\"=2]>\n", ""),
                "3:",
                "sdy.mesh",
            ),
            (
                mc.replace("out_shardings", "out_sharding"),
                "4:",
                "out_shardings",
            ),
            (
                mc.replace("  func.func", "  sdy.mesh @mesh = <[\"y\"=2]>\n  func.func"),
                "3:3",
                "defined twice",
            ),
        ] {
            let e = super::super::parse_module(&text).unwrap_err().to_string();
            eprintln!("{e}");
            assert!(e.contains(at) && e.contains(what), "{e}");
        }
    }
}
