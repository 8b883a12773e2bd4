//! The module verifier: checks every structural and shape invariant of a
//! [`Module`] and collects every problem (it does not stop at the first), in
//! the style of Cranelift's verifier.
//!
//! Shape and attribute rules live in [`crate::shape_inference`]; the verifier
//! runs [`check_shape`] on each instruction and adds the structural checks
//! (ids, order, names, parameters, call graph, aliasing).

use crate::entity::EntityRef;
use crate::ir::{CompId, Computation, InstId, Module, Op};
use crate::shape_inference::{check_shape, short, validate_shape};
use crate::types::{ProgramShape, Shape};
use std::collections::HashMap;
use std::fmt;

/// One problem found by the verifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The computation's name (the module's name for module-level problems).
    pub computation: String,
    /// The instruction's name, when the problem is about one instruction.
    pub instruction: Option<String>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.instruction {
            Some(i) => write!(f, "{}/{}: {}", self.computation, i, self.message),
            None => write!(f, "{}: {}", self.computation, self.message),
        }
    }
}

/// Every problem the verifier found, in discovery order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    pub diagnostics: Vec<Diagnostic>,
}

impl VerifyError {
    /// True when some diagnostic's message contains `needle` and, if given,
    /// it is about instruction `inst`.
    pub fn has(&self, inst: Option<&str>, needle: &str) -> bool {
        self.diagnostics.iter().any(|d| {
            d.message.contains(needle) && (inst.is_none() || d.instruction.as_deref() == inst)
        })
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyError {}

/// A module the verifier accepted, and nothing else: the only way to get one
/// is [`VerifiedModule::new`] or [`VerifiedModule::verify`], which run
/// [`verify_module`], and there is no mutable access (a changed module must
/// be verified again: [`VerifiedModule::into_inner`], change it, `new`).
///
/// What holding one guarantees, so that code taking it need not check again:
/// - every `InstId` and `CompId` it mentions exists, the instruction arena
///   is a topological order and callees come before callers (no cycles);
/// - every instruction has the operand count, called-computation count and
///   attributes its opcode requires, and its shape is the one
///   [`crate::shape_inference`] gives for its operands (so an engine may
///   index `operands[k]`/`called[k]` for the arity of the opcode);
/// - names are unique, parameters are numbered `0..n` once each and the
///   entry computation exists.
///
/// The compilers take this type after their shared front half
/// (`hlox_passes::frontend`); `Deref` gives the [`Module`] to read.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifiedModule(Module);

impl VerifiedModule {
    /// Verifies `module` and wraps it; every problem otherwise.
    pub fn new(module: Module) -> Result<VerifiedModule, VerifyError> {
        verify_module(&module)?;
        Ok(VerifiedModule(module))
    }

    /// Verifies `module` and wraps a copy of it.
    pub fn verify(module: &Module) -> Result<VerifiedModule, VerifyError> {
        verify_module(module)?;
        Ok(VerifiedModule(module.clone()))
    }

    /// The module, to change it (which gives up the guarantee).
    pub fn into_inner(self) -> Module {
        self.0
    }

    /// The module.
    pub fn module(&self) -> &Module {
        &self.0
    }
}

impl std::ops::Deref for VerifiedModule {
    type Target = Module;
    fn deref(&self) -> &Module {
        &self.0
    }
}

impl AsRef<Module> for VerifiedModule {
    fn as_ref(&self) -> &Module {
        &self.0
    }
}

struct Sink {
    diags: Vec<Diagnostic>,
}

impl Sink {
    fn comp(&mut self, comp: &str, msg: impl Into<String>) {
        self.diags.push(Diagnostic {
            computation: comp.to_string(),
            instruction: None,
            message: msg.into(),
        });
    }
    fn inst(&mut self, comp: &str, inst: &str, msg: impl Into<String>) {
        self.diags.push(Diagnostic {
            computation: comp.to_string(),
            instruction: Some(inst.to_string()),
            message: msg.into(),
        });
    }
}

/// Verifies a whole module; returns every problem found.
pub fn verify_module(m: &Module) -> Result<(), VerifyError> {
    let mut s = Sink { diags: Vec::new() };
    let mname = format!("module {}", m.name);

    // Shapes nested past the limit first, alone: every later check walks
    // shapes recursively, which the limit keeps bounded.
    for c in m.computations.values() {
        for inst in c.instructions.values() {
            let d = inst.shape.tuple_depth();
            if d > crate::types::MAX_TUPLE_DEPTH {
                s.inst(
                    &c.name,
                    &inst.name,
                    format!(
                        "its shape nests tuples {d} levels deep, more than hlox's limit of {} \
                         (see docs/reliability.md); flatten the tuple",
                        crate::types::MAX_TUPLE_DEPTH
                    ),
                );
            }
        }
    }
    if !s.diags.is_empty() {
        return Err(VerifyError {
            diagnostics: s.diags,
        });
    }

    if !m.computations.is_valid(m.entry) {
        s.comp(
            &mname,
            format!(
                "entry computation {} does not exist (the module has {} computations)",
                m.entry,
                m.computations.len()
            ),
        );
    }

    // Computation names unique.
    let mut comp_names: HashMap<&str, CompId> = HashMap::new();
    for (id, c) in m.computations.iter() {
        if c.name.is_empty() {
            s.comp(&mname, format!("computation {id} has an empty name"));
        }
        if let Some(prev) = comp_names.insert(&c.name, id) {
            s.comp(
                &c.name,
                format!("computation name is used twice ({prev} and {id})"),
            );
        }
    }

    // Call graph: callees before callers (post-order), which also makes it acyclic.
    let mut order_ok = true;
    for (id, c) in m.computations.iter() {
        for inst in c.instructions.values() {
            for &callee in &inst.called {
                if !m.computations.is_valid(callee) {
                    s.inst(
                        &c.name,
                        &inst.name,
                        format!("calls computation {callee} which does not exist"),
                    );
                } else if callee.index() >= id.index() {
                    order_ok = false;
                    s.inst(
                        &c.name,
                        &inst.name,
                        format!(
                            "calls computation {} which does not come before its caller (computations must be ordered callees before callers)",
                            m.computations[callee].name
                        ),
                    );
                }
            }
        }
    }
    if !order_ok {
        if let Some(cycle) = crate::graph::call_cycle(m) {
            // `[a, b]` means a calls b and b calls a: print `a -> b -> a`.
            let names: Vec<&str> = cycle
                .iter()
                .chain(cycle.first())
                .map(|&c| m.computations[c].name.as_str())
                .collect();
            s.comp(
                &mname,
                format!("the call graph has a cycle: {}", names.join(" -> ")),
            );
        }
    }

    // Signatures of computations whose roots and params are usable.
    let sigs: Vec<Option<ProgramShape>> =
        m.computations.values().map(program_shape_checked).collect();

    // Instruction names unique in the module.
    let mut inst_names: HashMap<&str, &str> = HashMap::new();
    for c in m.computations.values() {
        for inst in c.instructions.values() {
            if inst.name.is_empty() {
                s.comp(&c.name, "an instruction has an empty name");
                continue;
            }
            if let Some(prev) = inst_names.insert(&inst.name, &c.name) {
                s.inst(
                    &c.name,
                    &inst.name,
                    format!("instruction name is already used in computation {prev}"),
                );
            }
        }
    }

    for c in m.computations.values() {
        verify_computation_into(c, &sigs, &mut s);
    }

    if m.computations.is_valid(m.entry) {
        verify_aliases(m, &mut s);
    }

    if s.diags.is_empty() {
        Ok(())
    } else {
        Err(VerifyError {
            diagnostics: s.diags,
        })
    }
}

/// Verifies one computation of a module (its instructions against the
/// module's other computations); module-level checks are not repeated.
pub fn verify_computation(m: &Module, comp: CompId) -> Result<(), VerifyError> {
    let mut s = Sink { diags: Vec::new() };
    let sigs: Vec<Option<ProgramShape>> =
        m.computations.values().map(program_shape_checked).collect();
    match m.computations.get(comp) {
        Some(c) => verify_computation_into(c, &sigs, &mut s),
        None => s.comp(
            &format!("module {}", m.name),
            format!("computation {comp} does not exist"),
        ),
    }
    if s.diags.is_empty() {
        Ok(())
    } else {
        Err(VerifyError {
            diagnostics: s.diags,
        })
    }
}

fn program_shape_checked(c: &Computation) -> Option<ProgramShape> {
    if !c.instructions.is_valid(c.root) || c.params.iter().any(|&p| !c.instructions.is_valid(p)) {
        return None;
    }
    Some(c.program_shape())
}

fn verify_computation_into(c: &Computation, sigs: &[Option<ProgramShape>], s: &mut Sink) {
    let cn = c.name.as_str();
    if c.instructions.is_empty() {
        s.comp(cn, "computation has no instructions");
    }
    if !c.instructions.is_valid(c.root) {
        s.comp(
            cn,
            format!(
                "root {} does not exist (the computation has {} instructions)",
                c.root,
                c.instructions.len()
            ),
        );
    }

    // Parameters.
    let mut param_numbers: HashMap<u64, InstId> = HashMap::new();
    let mut nparams = 0usize;
    for (id, inst) in c.instructions.iter() {
        if let Op::Parameter { number } = inst.op {
            nparams += 1;
            if let Some(prev) = param_numbers.insert(number, id) {
                s.inst(
                    cn,
                    &inst.name,
                    format!(
                        "parameter number {number} is also used by {}",
                        c.instructions[prev].name
                    ),
                );
            }
        }
    }
    for (id, inst) in c.instructions.iter() {
        if let Op::Parameter { number } = inst.op {
            if number as usize >= nparams {
                s.inst(
                    cn,
                    &inst.name,
                    format!("parameter number {number} is out of range: the computation has {nparams} parameters, numbered 0..{nparams}"),
                );
            } else if c.params.get(number as usize) != Some(&id) {
                s.inst(
                    cn,
                    &inst.name,
                    format!("parameter({number}) is not params[{number}] of the computation"),
                );
            }
        }
    }
    if c.params.len() != nparams {
        s.comp(
            cn,
            format!("params lists {} parameters but the computation has {nparams} parameter instructions", c.params.len()),
        );
    }
    for (i, &p) in c.params.iter().enumerate() {
        match c.instructions.get(p) {
            None => s.comp(
                cn,
                format!("params[{i}] refers to nonexistent instruction {p}"),
            ),
            Some(inst) => {
                if !matches!(inst.op, Op::Parameter { number } if number as usize == i) {
                    s.comp(
                        cn,
                        format!("params[{i}] is {} which is not parameter({i})", inst.name),
                    );
                }
            }
        }
    }

    // Instructions.
    for (id, inst) in c.instructions.iter() {
        let iname = inst.name.as_str();
        if let Err(msg) = validate_shape(&inst.shape) {
            s.inst(cn, iname, msg.to_string());
        }
        let mut operands_ok = true;
        for (k, &o) in inst.operands.iter().enumerate() {
            if !c.instructions.is_valid(o) {
                operands_ok = false;
                s.inst(
                    cn,
                    iname,
                    format!("operand {k} refers to nonexistent instruction {o}"),
                );
            } else if o.index() >= id.index() {
                operands_ok = false;
                s.inst(
                    cn,
                    iname,
                    format!(
                        "operand {k} ({}) does not come before its user (instructions must be in topological order)",
                        c.instructions[o].name
                    ),
                );
            }
        }
        let mut called_sigs = Vec::with_capacity(inst.called.len());
        let mut called_ok = true;
        for &callee in &inst.called {
            match sigs.get(callee.index()).and_then(|x| x.as_ref()) {
                Some(sig) => called_sigs.push(sig.clone()),
                None => called_ok = false,
            }
        }
        if let Op::Constant { literal } = &inst.op {
            if let Err(msg) = validate_shape(&literal.shape()) {
                s.inst(cn, iname, format!("constant literal: {msg}"));
            }
        }
        if operands_ok && called_ok {
            let shapes: Vec<&Shape> = inst
                .operands
                .iter()
                .map(|&o| &c.instructions[o].shape)
                .collect();
            if let Err(e) = check_shape(&inst.op, &shapes, &called_sigs, &inst.shape) {
                s.inst(cn, iname, e.to_string());
            }
        }
    }
}

fn verify_aliases(m: &Module, s: &mut Sink) {
    let entry = m.entry_computation();
    let cn = entry.name.as_str();
    let Some(sig) = program_shape_checked(entry) else {
        return;
    };
    let mut seen_out: Vec<&[i64]> = Vec::new();
    for (k, a) in m.input_output_alias.iter().enumerate() {
        let what = format!("input_output_alias entry {k}");
        let out = sig.result.subshape(&a.output_index);
        if out.is_none() {
            s.comp(
                cn,
                format!(
                    "{what}: output index {:?} does not exist in result {}",
                    a.output_index,
                    short(&sig.result)
                ),
            );
        }
        if seen_out.contains(&a.output_index.as_slice()) {
            s.comp(
                cn,
                format!("{what}: output index {:?} is aliased twice", a.output_index),
            );
        }
        seen_out.push(&a.output_index);
        if a.parameter_number < 0 || a.parameter_number as usize >= sig.parameters.len() {
            s.comp(
                cn,
                format!(
                    "{what}: parameter {} is out of range (the entry has {} parameters)",
                    a.parameter_number,
                    sig.parameters.len()
                ),
            );
            continue;
        }
        let p = &sig.parameters[a.parameter_number as usize];
        let Some(ps) = p.subshape(&a.parameter_index) else {
            s.comp(
                cn,
                format!(
                    "{what}: parameter index {:?} does not exist in parameter {} shape {}",
                    a.parameter_index,
                    a.parameter_number,
                    short(p)
                ),
            );
            continue;
        };
        if let Some(o) = out {
            if !o.compatible(ps) {
                s.comp(
                    cn,
                    format!(
                        "{what}: output {} and parameter {} {} have different shapes",
                        short(o),
                        a.parameter_number,
                        short(ps)
                    ),
                );
            }
        }
    }
}
