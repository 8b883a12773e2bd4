//! The mutation API of a computation: what passes rewrite HLO with.
//!
//! An [`Editor`] owns one [`Computation`] while a pass changes it. It keeps
//! the use list of every instruction, so [`Editor::replace_all_uses`] is
//! local, and it gives every instruction it creates or changes a result
//! shape that shape inference accepts:
//!
//! - [`Editor::insert`] infers the result shape ([`infer_shape`]);
//! - [`Editor::insert_declared`] and [`Editor::insert_clone`] take a declared
//!   shape (broadcast, reshape, a clone of an instruction from another
//!   computation) and check it ([`check_shape`]);
//! - [`Editor::rewrite`] gives an instruction a new opcode and operands but
//!   keeps its name and declared shape, which must still check;
//! - [`Editor::set_layout`] is the one way to change a shape by hand, and it
//!   only changes layouts (same element types and dimensions).
//!
//! So a pass cannot produce a wrongly-shaped instruction: the mistake is an
//! [`EditError`] naming the instruction, at the place it is made.
//!
//! New instructions go at a [`Cursor`] (before or after an instruction, or
//! at the end), as with Cranelift's cursors. [`Editor::finish`] lays the
//! instructions out in that order, drops the removed ones and renumbers
//! the arena; where an edit made that order non-topological it moves
//! operands up before their first user (a stable topological sort), so the
//! invariant that arena order is topological holds after every edit, and a
//! cycle or a removed instruction still in use is an error.

use crate::entity::{EntityRef, EntitySet, PrimaryMap, SecondaryMap};
use crate::ir::{CompId, Computation, InstId, Instruction, Module, Op, OpMetadata};
use crate::shape_inference::{check_shape, infer_shape, short, validate_shape, ShapeError};
use crate::types::{ProgramShape, Shape};

/// What an edit refused. Each variant names the instruction involved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EditError {
    /// An id that is not an instruction of the computation being edited.
    #[error("instruction id {id} does not exist in computation `{computation}`")]
    NoSuchInstruction { computation: String, id: InstId },
    /// Shape inference rejected a new or rewritten instruction.
    #[error("instruction `{instruction}`: {source}")]
    Shape {
        instruction: String,
        #[source]
        source: ShapeError,
    },
    /// A declared shape (or a layout) is malformed.
    #[error("instruction `{instruction}`: {source}")]
    InvalidShape {
        instruction: String,
        #[source]
        source: crate::shape_inference::InvalidShape,
    },
    /// [`Editor::set_layout`] was asked to change more than the layout.
    #[error("instruction `{instruction}`: cannot change its shape {from} to {to}: only layouts may change this way")]
    NotALayoutChange {
        instruction: String,
        from: String,
        to: String,
    },
    /// A replacement whose shape differs from the value it replaces.
    #[error("cannot replace the uses of `{old}` ({old_shape}) by `{new}` ({new_shape}): the shapes differ")]
    IncompatibleReplacement {
        old: String,
        new: String,
        old_shape: String,
        new_shape: String,
    },
    /// An operand index past the instruction's operands.
    #[error("instruction `{instruction}` has no operand {index}")]
    NoSuchOperand { instruction: String, index: usize },
    /// A called computation whose signature the editor was not given.
    #[error("instruction `{instruction}` calls computation {callee}, which the editor does not know (declare it with Editor::declare_callee)")]
    UnknownCallee { instruction: String, callee: CompId },
    /// A parameter was removed (a computation's signature is not the
    /// business of a local rewrite).
    #[error("parameter `{instruction}` cannot be removed")]
    RemovedParameter { instruction: String },
    /// A removed instruction is still used at [`Editor::finish`].
    #[error("instruction `{instruction}` was removed but `{user}` still uses it (replace its uses first)")]
    RemovedInUse { instruction: String, user: String },
    /// The root was removed and not replaced.
    #[error("the root `{instruction}` was removed (set a new root or replace its uses first)")]
    RemovedRoot { instruction: String },
    /// The edits made an instruction depend on itself.
    #[error("instruction `{instruction}` depends on itself after the edits")]
    Cycle { instruction: String },
}

/// Where [`Editor::insert`] puts a new instruction. Several insertions at
/// the same cursor keep their order: `After(x)` three times gives
/// `x, a, b, c`; `Before(x)` three times gives `a, b, c, x`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cursor {
    Before(InstId),
    After(InstId),
    /// After every instruction there is.
    End,
}

/// An instruction to insert, without its result shape (which comes from
/// shape inference or a checked declaration).
#[derive(Clone, Debug, PartialEq)]
pub struct NewInst {
    pub name: String,
    pub op: Op,
    pub operands: Vec<InstId>,
    /// Called computations, in [`Op::called_roles`] order.
    pub called: Vec<CompId>,
    pub metadata: OpMetadata,
}

impl NewInst {
    pub fn new(name: impl Into<String>, op: Op, operands: Vec<InstId>) -> NewInst {
        NewInst {
            name: name.into(),
            op,
            operands,
            called: Vec::new(),
            metadata: OpMetadata::default(),
        }
    }
    /// With these called computations.
    pub fn with_called(mut self, called: Vec<CompId>) -> NewInst {
        self.called = called;
        self
    }
    /// With this metadata (say, the replaced instruction's).
    pub fn with_metadata(mut self, metadata: OpMetadata) -> NewInst {
        self.metadata = metadata;
        self
    }
}

/// The signatures of a module's computations, which shape inference needs
/// for instructions that call them. Taken once per pass run: a local
/// rewrite does not change another computation's signature.
#[derive(Clone, Debug, Default)]
pub struct Signatures {
    map: SecondaryMap<CompId, Option<ProgramShape>>,
}

impl Signatures {
    /// The signature of every computation of `m`.
    pub fn of_module(m: &Module) -> Signatures {
        let mut map = SecondaryMap::with_capacity(m.computations.len());
        for (id, c) in m.computations.iter() {
            if c.instructions.is_valid(c.root)
                && c.params.iter().all(|&p| c.instructions.is_valid(p))
            {
                map[id] = Some(c.program_shape());
            }
        }
        Signatures { map }
    }
    /// Adds or replaces the signature of `id`.
    pub fn insert(&mut self, id: CompId, sig: ProgramShape) {
        self.map[id] = Some(sig);
    }
    pub fn get(&self, id: CompId) -> Option<&ProgramShape> {
        self.map.get(id).as_ref()
    }
}

/// The use lists of a computation: for each instruction, the instructions
/// that read it (each once, in arena order).
pub fn use_lists(c: &Computation) -> SecondaryMap<InstId, Vec<InstId>> {
    let mut users: SecondaryMap<InstId, Vec<InstId>> =
        SecondaryMap::with_capacity(c.instructions.len());
    for (id, inst) in c.instructions.iter() {
        for &o in &inst.operands {
            if !users[o].contains(&id) {
                users[o].push(id);
            }
        }
    }
    users
}

/// Edits one computation; see the module documentation.
pub struct Editor<'s> {
    comp: Computation,
    /// Instructions of the computation as it came in (ids below this).
    original: usize,
    users: SecondaryMap<InstId, Vec<InstId>>,
    removed: EntitySet<InstId>,
    before: SecondaryMap<InstId, Vec<InstId>>,
    after: SecondaryMap<InstId, Vec<InstId>>,
    at_end: Vec<InstId>,
    sigs: &'s Signatures,
    /// Signatures of computations made during this edit (a fusion's).
    extra_sigs: Vec<(CompId, ProgramShape)>,
    changed: bool,
}

impl<'s> Editor<'s> {
    /// An editor of `comp`, whose called computations have the signatures
    /// in `sigs`.
    pub fn new(comp: Computation, sigs: &'s Signatures) -> Editor<'s> {
        let users = use_lists(&comp);
        Editor {
            original: comp.instructions.len(),
            comp,
            users,
            removed: EntitySet::new(),
            before: SecondaryMap::new(),
            after: SecondaryMap::new(),
            at_end: Vec::new(),
            sigs,
            extra_sigs: Vec::new(),
            changed: false,
        }
    }

    /// The computation's name.
    pub fn name(&self) -> &str {
        &self.comp.name
    }
    /// The instructions the computation had when the editor was made, in
    /// order: the walk of a local-rewrite driver.
    pub fn original_ids(&self) -> impl DoubleEndedIterator<Item = InstId> + use<> {
        (0..self.original).map(InstId::new)
    }
    /// The instruction `id` as it is now. Panics on an id this editor did
    /// not hand out (use [`Editor::get`] for untrusted ids).
    pub fn inst(&self, id: InstId) -> &Instruction {
        &self.comp.instructions[id]
    }
    pub fn get(&self, id: InstId) -> Option<&Instruction> {
        self.comp.instructions.get(id)
    }
    /// The instructions that use `id` now.
    pub fn users(&self, id: InstId) -> &[InstId] {
        &self.users[id]
    }
    pub fn root(&self) -> InstId {
        self.comp.root
    }
    pub fn params(&self) -> &[InstId] {
        &self.comp.params
    }
    pub fn is_removed(&self, id: InstId) -> bool {
        self.removed.contains(id)
    }
    /// Whether any edit was made.
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// Makes `id` callable with signature `sig` in this edit (a computation
    /// the pass is creating, under the id it will have).
    pub fn declare_callee(&mut self, id: CompId, sig: ProgramShape) {
        self.extra_sigs.push((id, sig));
    }

    fn check_id(&self, id: InstId) -> Result<(), EditError> {
        if self.comp.instructions.is_valid(id) {
            Ok(())
        } else {
            Err(EditError::NoSuchInstruction {
                computation: self.comp.name.clone(),
                id,
            })
        }
    }

    fn callee_sigs(&self, name: &str, called: &[CompId]) -> Result<Vec<ProgramShape>, EditError> {
        called
            .iter()
            .map(|&c| {
                self.extra_sigs
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == c)
                    .map(|(_, s)| s)
                    .or_else(|| self.sigs.get(c))
                    .cloned()
                    .ok_or_else(|| EditError::UnknownCallee {
                        instruction: name.to_string(),
                        callee: c,
                    })
            })
            .collect()
    }

    /// The shape inference of `op` on `operands`: the inferred shape, or,
    /// with `declared`, that shape once checked.
    fn shape_for(
        &self,
        name: &str,
        op: &Op,
        operands: &[InstId],
        called: &[CompId],
        declared: Option<&Shape>,
    ) -> Result<Shape, EditError> {
        for &o in operands {
            self.check_id(o)?;
        }
        let sigs = self.callee_sigs(name, called)?;
        let shapes: Vec<&Shape> = operands
            .iter()
            .map(|&o| &self.comp.instructions[o].shape)
            .collect();
        let shape_err = |source| EditError::Shape {
            instruction: name.to_string(),
            source,
        };
        match declared {
            None => infer_shape(op, &shapes, &sigs).map_err(shape_err),
            Some(d) => {
                validate_shape(d).map_err(|source| EditError::InvalidShape {
                    instruction: name.to_string(),
                    source,
                })?;
                check_shape(op, &shapes, &sigs, d).map_err(shape_err)?;
                Ok(d.clone())
            }
        }
    }

    fn place(&mut self, at: Cursor, id: InstId) -> Result<(), EditError> {
        match at {
            Cursor::Before(x) => {
                self.check_id(x)?;
                self.before[x].push(id);
            }
            Cursor::After(x) => {
                self.check_id(x)?;
                self.after[x].push(id);
            }
            Cursor::End => self.at_end.push(id),
        }
        Ok(())
    }

    fn add(&mut self, at: Cursor, inst: Instruction) -> Result<InstId, EditError> {
        if let Cursor::Before(x) | Cursor::After(x) = at {
            self.check_id(x)?;
        }
        let operands = inst.operands.clone();
        let id = self.comp.instructions.push(inst);
        for o in operands {
            if !self.users[o].contains(&id) {
                self.users[o].push(id);
            }
        }
        self.place(at, id)?;
        self.changed = true;
        Ok(id)
    }

    /// Inserts `new` at `at` with the result shape shape inference gives it
    /// (default layouts, or the operand's for a copy). Opcodes whose shape
    /// cannot be inferred (broadcast, reshape, ...) need
    /// [`Editor::insert_declared`].
    pub fn insert(&mut self, at: Cursor, new: NewInst) -> Result<InstId, EditError> {
        let shape = self.shape_for(&new.name, &new.op, &new.operands, &new.called, None)?;
        self.add(at, into_instruction(new, shape))
    }

    /// Inserts `new` at `at` with the declared result shape `shape`, which
    /// shape inference must accept (layouts are the caller's choice).
    pub fn insert_declared(
        &mut self,
        at: Cursor,
        new: NewInst,
        shape: Shape,
    ) -> Result<InstId, EditError> {
        let shape = self.shape_for(&new.name, &new.op, &new.operands, &new.called, Some(&shape))?;
        self.add(at, into_instruction(new, shape))
    }

    /// Inserts a whole instruction (a clone from another computation, with
    /// its operands already ids of this one), keeping its shape, sharding,
    /// attributes and metadata; its shape is checked as a declared one.
    pub fn insert_clone(&mut self, at: Cursor, inst: Instruction) -> Result<InstId, EditError> {
        self.shape_for(
            &inst.name,
            &inst.op,
            &inst.operands,
            &inst.called,
            Some(&inst.shape),
        )?;
        self.add(at, inst)
    }

    /// Gives `id` a new opcode, operands and called computations, keeping
    /// its name, declared shape (which must check for the new opcode),
    /// metadata, sharding, frontend attributes and backend config.
    pub fn rewrite(
        &mut self,
        id: InstId,
        op: Op,
        operands: Vec<InstId>,
        called: Vec<CompId>,
    ) -> Result<(), EditError> {
        self.check_id(id)?;
        let inst = &self.comp.instructions[id];
        let shape = inst.shape.clone();
        self.shape_for(&inst.name, &op, &operands, &called, Some(&shape))?;
        let old_operands = std::mem::replace(&mut self.comp.instructions[id].operands, operands);
        for o in old_operands {
            self.users[o].retain(|&u| u != id);
        }
        let inst = &mut self.comp.instructions[id];
        inst.op = op;
        inst.called = called;
        for k in 0..inst.operands.len() {
            let o = inst.operands[k];
            if !self.users[o].contains(&id) {
                self.users[o].push(id);
            }
        }
        self.changed = true;
        Ok(())
    }

    /// Sets operand `index` of `id` to `value`, which must have a shape
    /// compatible with the one it replaces (the layout may differ).
    pub fn set_operand(
        &mut self,
        id: InstId,
        index: usize,
        value: InstId,
    ) -> Result<(), EditError> {
        self.check_id(id)?;
        self.check_id(value)?;
        let Some(&old) = self.comp.instructions[id].operands.get(index) else {
            return Err(EditError::NoSuchOperand {
                instruction: self.comp.instructions[id].name.clone(),
                index,
            });
        };
        self.check_compatible(old, value)?;
        self.comp.instructions[id].operands[index] = value;
        if !self.comp.instructions[id].operands.contains(&old) {
            self.users[old].retain(|&u| u != id);
        }
        if !self.users[value].contains(&id) {
            self.users[value].push(id);
        }
        self.changed = true;
        Ok(())
    }

    /// Changes the layouts of `id`'s result shape to those of `shape`: the
    /// element types and dimensions must stay (a layout assignment, as the
    /// boundary-layouts pass makes; anything else is a new instruction).
    pub fn set_layout(&mut self, id: InstId, shape: &Shape) -> Result<(), EditError> {
        self.check_id(id)?;
        let inst = &self.comp.instructions[id];
        if !inst.shape.compatible(shape) {
            return Err(EditError::NotALayoutChange {
                instruction: inst.name.clone(),
                from: short(&inst.shape),
                to: short(shape),
            });
        }
        validate_shape(shape).map_err(|source| EditError::InvalidShape {
            instruction: inst.name.clone(),
            source,
        })?;
        if inst.shape != *shape {
            self.comp.instructions[id].shape = shape.clone();
            self.changed = true;
        }
        Ok(())
    }

    /// Sets or clears the `backend_config` of `id` (say, of an instruction
    /// folded to a constant).
    pub fn set_backend_config(
        &mut self,
        id: InstId,
        config: Option<String>,
    ) -> Result<(), EditError> {
        self.check_id(id)?;
        if self.comp.instructions[id].backend_config != config {
            self.comp.instructions[id].backend_config = config;
            self.changed = true;
        }
        Ok(())
    }

    /// Renames `id` (names must stay unique in the module: take them from
    /// a name uniquer).
    pub fn set_name(&mut self, id: InstId, name: String) -> Result<(), EditError> {
        self.check_id(id)?;
        if self.comp.instructions[id].name != name {
            self.comp.instructions[id].name = name;
            self.changed = true;
        }
        Ok(())
    }

    /// Makes `id` the root; its shape must be compatible with the old
    /// root's (the computation's signature stays, up to layout).
    pub fn set_root(&mut self, id: InstId) -> Result<(), EditError> {
        self.check_id(id)?;
        self.check_compatible(self.comp.root, id)?;
        if self.comp.root != id {
            self.comp.root = id;
            self.changed = true;
        }
        Ok(())
    }

    fn check_compatible(&self, old: InstId, new: InstId) -> Result<(), EditError> {
        self.check_id(old)?;
        self.check_id(new)?;
        let (a, b) = (&self.comp.instructions[old], &self.comp.instructions[new]);
        if a.shape.compatible(&b.shape) {
            Ok(())
        } else {
            Err(EditError::IncompatibleReplacement {
                old: a.name.clone(),
                new: b.name.clone(),
                old_shape: short(&a.shape),
                new_shape: short(&b.shape),
            })
        }
    }

    /// Makes every user of `old` (and the root, if `old` is the root) use
    /// `new` instead; `new` itself keeps reading `old`. The shapes must be
    /// compatible (equal up to layout, as XLA's `ReplaceAllUsesWith`
    /// requires); a pass that must keep the layout compares shapes itself.
    pub fn replace_all_uses(&mut self, old: InstId, new: InstId) -> Result<(), EditError> {
        self.replace_uses_if(old, new, |u| u != new)
    }

    /// As [`Editor::replace_all_uses`], but only in the users for which
    /// `keep_going(user)` is true (a relayout chain built on `old` keeps
    /// reading it). The root always moves.
    pub fn replace_uses_if(
        &mut self,
        old: InstId,
        new: InstId,
        mut replace_in: impl FnMut(InstId) -> bool,
    ) -> Result<(), EditError> {
        self.check_id(old)?;
        self.check_id(new)?;
        self.check_compatible(old, new)?;
        if old == new {
            return Ok(());
        }
        let users = std::mem::take(&mut self.users[old]);
        let mut kept = Vec::new();
        for u in users {
            if u == new || !replace_in(u) {
                kept.push(u);
                continue;
            }
            for o in self.comp.instructions[u].operands.iter_mut() {
                if *o == old {
                    *o = new;
                }
            }
            if !self.users[new].contains(&u) {
                self.users[new].push(u);
            }
            self.changed = true;
        }
        self.users[old] = kept;
        if self.comp.root == old {
            self.comp.root = new;
            self.changed = true;
        }
        Ok(())
    }

    /// Removes `id`. Its uses must be gone by [`Editor::finish`] (replaced,
    /// or their users removed too, in any order).
    pub fn remove(&mut self, id: InstId) -> Result<(), EditError> {
        self.check_id(id)?;
        if self.comp.params.contains(&id) {
            return Err(EditError::RemovedParameter {
                instruction: self.comp.instructions[id].name.clone(),
            });
        }
        if self.removed.insert(id) {
            for k in 0..self.comp.instructions[id].operands.len() {
                let o = self.comp.instructions[id].operands[k];
                self.users[o].retain(|&u| u != id);
            }
            self.changed = true;
        }
        Ok(())
    }

    /// The instructions in layout order: each original instruction with
    /// what was inserted before and after it, then what was inserted at the
    /// end. Removed instructions are included (as anchors).
    fn layout(&self) -> Vec<InstId> {
        enum Step {
            Visit(InstId),
            Emit(InstId),
        }
        let mut out = Vec::with_capacity(self.comp.instructions.len());
        let mut stack: Vec<Step> = Vec::new();
        let roots = (0..self.original)
            .map(InstId::new)
            .chain(self.at_end.iter().copied());
        let roots: Vec<InstId> = roots.collect();
        for &r in roots.iter().rev() {
            stack.push(Step::Visit(r));
        }
        while let Some(step) = stack.pop() {
            match step {
                Step::Emit(x) => out.push(x),
                Step::Visit(x) => {
                    // Reverse order on the stack: before..., x, after...
                    for &a in self.after[x].iter().rev() {
                        stack.push(Step::Visit(a));
                    }
                    stack.push(Step::Emit(x));
                    for &b in self.before[x].iter().rev() {
                        stack.push(Step::Visit(b));
                    }
                }
            }
        }
        out
    }

    /// The computation with every edit applied: instructions in cursor
    /// order, operands moved before their first user where an edit made
    /// the order non-topological, removed instructions gone, ids renumbered.
    pub fn finish(self) -> Result<Computation, EditError> {
        if !self.changed {
            return Ok(self.comp);
        }
        let name_of = |id: InstId| self.comp.instructions[id].name.clone();
        if self.removed.contains(self.comp.root) {
            return Err(EditError::RemovedRoot {
                instruction: name_of(self.comp.root),
            });
        }
        // Stable topological order: each instruction after its operands,
        // otherwise in layout order.
        #[derive(Clone, Copy, PartialEq, Default)]
        enum Mark {
            #[default]
            New,
            Open,
            Done,
        }
        let mut mark: SecondaryMap<InstId, Mark> = SecondaryMap::new();
        let mut order: Vec<InstId> = Vec::with_capacity(self.comp.instructions.len());
        for x in self.layout() {
            if self.removed.contains(x) || mark[x] == Mark::Done {
                continue;
            }
            // Depth-first over operands; (node, next operand index).
            let mut stack: Vec<(InstId, usize)> = vec![(x, 0)];
            mark[x] = Mark::Open;
            while let Some(top) = stack.last_mut() {
                let (node, k) = *top;
                let ops = &self.comp.instructions[node].operands;
                if k < ops.len() {
                    top.1 += 1;
                    let o = ops[k];
                    self.check_id(o)?;
                    if self.removed.contains(o) {
                        return Err(EditError::RemovedInUse {
                            instruction: name_of(o),
                            user: name_of(node),
                        });
                    }
                    match mark[o] {
                        Mark::Done => {}
                        Mark::Open => {
                            return Err(EditError::Cycle {
                                instruction: name_of(o),
                            })
                        }
                        Mark::New => {
                            mark[o] = Mark::Open;
                            stack.push((o, 0));
                        }
                    }
                } else {
                    mark[node] = Mark::Done;
                    order.push(node);
                    stack.pop();
                }
            }
        }
        let mut map: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::new();
        let mut old = self.comp.instructions;
        let mut instructions = PrimaryMap::new();
        for id in order {
            let mut inst = std::mem::replace(&mut old[id], placeholder());
            for o in inst.operands.iter_mut() {
                // Every operand is placed before its user (above).
                *o = map[*o].unwrap_or(*o);
            }
            map[id] = Some(instructions.push(inst));
        }
        let remap = |id: InstId| map[id].unwrap_or(id);
        Ok(Computation {
            name: self.comp.name,
            params: self.comp.params.iter().map(|&p| remap(p)).collect(),
            root: remap(self.comp.root),
            instructions,
            execution_thread: self.comp.execution_thread,
        })
    }

    /// Gives the computation back as it is, without laying it out (after a
    /// failed edit: it may not be topologically ordered).
    pub fn abandon(self) -> Computation {
        self.comp
    }
}

fn into_instruction(new: NewInst, shape: Shape) -> Instruction {
    let mut inst = Instruction::new(new.name, new.op, shape, new.operands);
    inst.called = new.called;
    inst.metadata = new.metadata;
    inst
}

fn placeholder() -> Instruction {
    Instruction::new(String::new(), Op::AfterAll, Shape::Token, Vec::new())
}
