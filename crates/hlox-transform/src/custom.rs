//! Rules for custom-call targets: how a call to a target differentiates
//! and batches, given per target.
//!
//! The rule ABI (docs/transforms.md, "Custom calls"):
//!
//! - `jvp.TARGET` takes `(operands..., operand tangents...)` and returns
//!   `(result, result tangent)`, each of the call's result shape;
//! - `vjp.TARGET` takes `(operands..., result cotangents...)` (one per
//!   result leaf) and returns the tuple of the operand cotangents;
//! - `vmap.TARGET` takes the operands, each with the batch dimension in
//!   front (unbatched ones broadcast), and returns the call's result with
//!   the batch dimension in front of every leaf;
//! - without a `vmap.TARGET` rule, batching is one of JAX's `vmap_method`s
//!   ([`VmapMethod`]).
//!
//! A rule is an HLO computation: from a module of rules
//! ([`Rules::from_module`], what `hlox ... --rules FILE.hlo` reads), or
//! built by a Rust closure given the call's shapes and opaque bytes
//! ([`Rules::rule`]). A rule may call the target
//! itself or other targets. A rule whose signature does not fit the call
//! is an error naming both.

use crate::emit::{Emitter, Out};
use crate::TransformError;
use hlox_hlo::builder::BuildError;
use hlox_hlo::ir::{CompId, InstId, Instruction, Module, Op};
use hlox_hlo::shape_inference::short;
use hlox_hlo::{ProgramShape, Shape};
use std::collections::HashMap;
use std::sync::Arc;

/// What a rule-building closure is told about the call.
pub struct CallInfo<'a> {
    pub target: &'a str,
    /// The operands' shapes (for a vmap rule: batched, the batch dimension
    /// in front).
    pub operands: &'a [Shape],
    /// The call's result shape.
    pub result: &'a Shape,
    /// The call's opaque bytes (`backend_config`).
    pub opaque: &'a [u8],
}

/// A closure that builds a rule computation (a module whose entry is the
/// rule) for one call.
pub type RuleFn = dyn Fn(&CallInfo) -> Result<Module, BuildError> + Send + Sync;

#[derive(Clone)]
enum Rule {
    /// Computation `CompId` of the shared module.
    Hlo(Arc<Module>, CompId),
    Build(Arc<RuleFn>),
}

/// JAX's `vmap_method`s for a target without a batching rule of its own.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VmapMethod {
    /// One call per batch element (unrolled), results stacked.
    Sequential,
    /// One call, batched operands with the batch dimension in front and
    /// unbatched ones with a leading dimension of 1.
    ExpandDims,
    /// One call, every operand broadcast to carry the batch dimension.
    BroadcastAll,
}

impl VmapMethod {
    pub fn from_name(s: &str) -> Option<VmapMethod> {
        match s {
            "sequential" => Some(VmapMethod::Sequential),
            "expand_dims" => Some(VmapMethod::ExpandDims),
            "broadcast_all" => Some(VmapMethod::BroadcastAll),
            _ => None,
        }
    }
}

/// The rules of custom-call targets, keyed by kind and target name.
#[derive(Clone, Default)]
pub struct Rules {
    rules: HashMap<(RuleKind, String), Rule>,
    vmap: HashMap<String, VmapMethod>,
}

impl Rules {
    pub fn new() -> Rules {
        Rules::default()
    }

    /// The rules in `m`: each computation named `jvp.TARGET`, `vjp.TARGET`
    /// or `vmap.TARGET` (the module's entry too).
    pub fn from_module(m: Module) -> Rules {
        let m = Arc::new(m);
        let mut r = Rules::new();
        for (id, c) in m.computations.iter() {
            if let Some((kind, target)) = RuleKind::of_name(&c.name) {
                r.rules
                    .insert((kind, target.to_string()), Rule::Hlo(m.clone(), id));
            }
        }
        r
    }

    /// Adds every rule of `other` (replacing rules for the same targets).
    pub fn merge(&mut self, other: Rules) {
        self.rules.extend(other.rules);
        self.vmap.extend(other.vmap);
    }

    /// Registers the `kind` rule of `target`: `build` makes the rule
    /// computation for each call (for a vmap rule it is told the batched
    /// operand shapes; a vmap rule takes precedence over a [`VmapMethod`]).
    pub fn rule(
        &mut self,
        kind: RuleKind,
        target: &str,
        build: impl Fn(&CallInfo) -> Result<Module, BuildError> + Send + Sync + 'static,
    ) -> &mut Rules {
        self.rules
            .insert((kind, target.to_string()), Rule::Build(Arc::new(build)));
        self
    }

    /// How calls of `target` without a vmap rule are batched.
    pub fn vmap_method(&mut self, target: &str, method: VmapMethod) -> &mut Rules {
        self.vmap.insert(target.to_string(), method);
        self
    }

    pub(crate) fn vmap_method_of(&self, target: &str) -> Option<VmapMethod> {
        self.vmap.get(target).copied()
    }

    /// Whether `target` has a `kind` rule.
    pub fn has(&self, kind: RuleKind, target: &str) -> bool {
        self.rules.contains_key(&(kind, target.to_string()))
    }

    /// Whether any rule names `target`.
    pub fn has_target(&self, target: &str) -> bool {
        self.vmap.contains_key(target) || self.rules.keys().any(|(_, t)| t == target)
    }
}

/// Which rule of a target: its computation is named `KIND.TARGET`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RuleKind {
    Jvp,
    Vjp,
    Vmap,
}

impl RuleKind {
    pub const ALL: [RuleKind; 3] = [RuleKind::Jvp, RuleKind::Vjp, RuleKind::Vmap];

    /// `jvp`, `vjp` or `vmap`: the prefix of a rule computation's name.
    pub fn name(self) -> &'static str {
        match self {
            RuleKind::Jvp => "jvp",
            RuleKind::Vjp => "vjp",
            RuleKind::Vmap => "vmap",
        }
    }

    /// The kind and target of a computation named `KIND.TARGET`.
    pub fn of_name(name: &str) -> Option<(RuleKind, &str)> {
        RuleKind::ALL.into_iter().find_map(|k| {
            let t = name.strip_prefix(k.name())?.strip_prefix('.')?;
            (!t.is_empty()).then_some((k, t))
        })
    }
}

/// Emits a call of the `kind` rule of the custom call `inst` on `args`,
/// after checking the rule's signature against `expected`.
pub(crate) fn call_rule(
    e: &mut Emitter,
    inst: &Instruction,
    kind: RuleKind,
    args: &[InstId],
    expected: &ProgramShape,
) -> Result<InstId, TransformError> {
    let Op::CustomCall(cc) = &inst.op else {
        return Err(e.internal("a rule for an instruction that is not a custom call".into()));
    };
    let missing = || TransformError::MissingRule {
        transform: e.transform,
        instruction: inst.name.clone(),
        target: cc.target.clone(),
        rule: kind.name(),
    };
    let rules = e.out.rules.clone();
    let rule = rules
        .rules
        .get(&(kind, cc.target.clone()))
        .ok_or_else(missing)?;
    let comp = match rule {
        Rule::Hlo(m, id) => {
            let key = Arc::as_ptr(m) as usize;
            let mut memo = e.out.imported.remove(&key).unwrap_or_default();
            let c = e.out.import(m, *id, &mut memo);
            e.out.imported.insert(key, memo);
            c
        }
        Rule::Build(f) => {
            let operands: Vec<Shape> = args[..inst.operands.len()]
                .iter()
                .map(|&a| e.shape(a).clone())
                .collect();
            let info = CallInfo {
                target: &cc.target,
                operands: &operands,
                result: &inst.shape,
                opaque: &cc.opaque,
            };
            let m = f(&info).map_err(|err| TransformError::Rule {
                transform: e.transform,
                instruction: inst.name.clone(),
                target: cc.target.clone(),
                message: format!("building the {} rule failed: {err}", kind.name()),
            })?;
            let entry = m.entry;
            e.out.import(&m, entry, &mut HashMap::new())
        }
    };
    let got = e.out.comps[comp].program_shape();
    let fits = got.parameters.len() == expected.parameters.len()
        && got
            .parameters
            .iter()
            .zip(&expected.parameters)
            .all(|(a, b)| a.compatible(b))
        && got.result.compatible(&expected.result);
    if !fits {
        return Err(TransformError::Rule {
            transform: e.transform,
            instruction: inst.name.clone(),
            target: cc.target.clone(),
            message: format!(
                "the {} rule `{}` has signature {}, but the call needs {}",
                kind.name(),
                e.out.comps[comp].name,
                signature(&got),
                signature(expected)
            ),
        });
    }
    e.add(Op::Call, args, &[comp])
}

fn signature(p: &ProgramShape) -> String {
    let ps: Vec<String> = p.parameters.iter().map(short).collect();
    format!("({}) -> {}", ps.join(", "), short(&p.result))
}

impl Out {
    /// Copies computation `id` of `m` (with what it calls) into this
    /// module; `memo` maps `m`'s computations already copied.
    pub(crate) fn import(
        &mut self,
        m: &Module,
        id: CompId,
        memo: &mut HashMap<CompId, CompId>,
    ) -> CompId {
        if let Some(&c) = memo.get(&id) {
            return c;
        }
        let mut comp = m.comp(id).clone();
        for inst in comp.instructions.values_mut() {
            let called: Vec<CompId> = inst.called.clone();
            inst.called = called
                .into_iter()
                .map(|c| self.import(m, c, memo))
                .collect();
            inst.name = self.unique_inst_name(&inst.name);
        }
        comp.name = self.unique_comp_name(&comp.name);
        let new = self.comps.push(comp);
        memo.insert(id, new);
        new
    }
}
