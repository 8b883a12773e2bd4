//! Shared machinery: unique names, liveness, moving computations, constant
//! inspection.

use hlox_hlo::{
    ArrayLiteral, CompId, Computation, ElementType, EntityRef, EntitySet, InstId, Instruction,
    Literal, Module, Op, PrimaryMap, SecondaryMap, Shape,
};
use std::collections::{HashMap, HashSet};

/// Hands out names unused in a namespace, XLA style: `base`, `base.1`, ...
/// (a trailing `.N` of the requested name is replaced by a fresh number).
pub(crate) struct NameUniquer {
    used: HashSet<String>,
    next: HashMap<String, u64>,
}

impl NameUniquer {
    pub fn new(used: impl IntoIterator<Item = String>) -> NameUniquer {
        NameUniquer {
            used: used.into_iter().collect(),
            next: HashMap::new(),
        }
    }
    /// Every instruction name of `m`.
    pub fn instructions(m: &Module) -> NameUniquer {
        NameUniquer::new(
            m.computations
                .values()
                .flat_map(|c| c.instructions.values().map(|i| i.name.clone())),
        )
    }
    /// Every computation name of `m`.
    pub fn computations(m: &Module) -> NameUniquer {
        NameUniquer::new(m.computations.values().map(|c| c.name.clone()))
    }
    /// A fresh name derived from `want`, now marked used.
    pub fn fresh(&mut self, want: &str) -> String {
        if !self.used.contains(want) {
            self.used.insert(want.to_string());
            return want.to_string();
        }
        let base = match want.rfind('.') {
            Some(p) if p > 0 && want[p + 1..].chars().all(|c| c.is_ascii_digit()) => &want[..p],
            _ => want,
        };
        let n = self.next.entry(base.to_string()).or_insert(1);
        loop {
            let cand = format!("{base}.{n}");
            *n += 1;
            if !self.used.contains(&cand) {
                self.used.insert(cand.clone());
                return cand;
            }
        }
    }
}

/// True when an instruction must never be removed or merged: a custom call
/// with `has_side_effect`.
pub(crate) fn has_side_effect(inst: &Instruction) -> bool {
    matches!(&inst.op, Op::CustomCall(c) if c.has_side_effect)
}

/// Liveness: reachable from the root, plus parameters and side-effecting
/// instructions (and their operands).
pub(crate) fn live_set(c: &Computation) -> EntitySet<InstId> {
    let n = c.instructions.len();
    let mut live = EntitySet::new();
    let mut stack: Vec<InstId> = Vec::new();
    if c.instructions.is_valid(c.root) {
        stack.push(c.root);
    }
    for (id, inst) in c.instructions.iter() {
        if has_side_effect(inst) || matches!(inst.op, Op::Parameter { .. }) {
            stack.push(id);
        }
    }
    while let Some(id) = stack.pop() {
        if !live.insert(id) {
            continue;
        }
        for &o in &c.instructions[id].operands {
            if o.index() < n && !live.contains(o) {
                stack.push(o);
            }
        }
    }
    live
}

/// Rebuilds the module's computation list keeping those in `keep`, in
/// the same order, remapping every `called` id and the entry.
pub(crate) fn retain_computations(m: &mut Module, keep: &EntitySet<CompId>) {
    let mut old = std::mem::take(&mut m.computations);
    let mut remap: SecondaryMap<CompId, Option<CompId>> = SecondaryMap::new();
    for (next, id) in keep.iter().enumerate() {
        remap[id] = Some(CompId::new(next));
    }
    let ids: Vec<CompId> = old.keys().collect();
    for id in ids {
        if !keep.contains(id) || !old.is_valid(id) {
            continue;
        }
        let mut c = std::mem::replace(&mut old[id], empty_computation());
        for inst in c.instructions.values_mut() {
            for callee in inst.called.iter_mut() {
                if let Some(n) = remap[*callee] {
                    *callee = n;
                }
            }
        }
        m.computations.push(c);
    }
    if let Some(e) = remap[m.entry] {
        m.entry = e;
    }
}

/// Adds `extra` computations to `m`, each placed right before the
/// computation that calls it (`extra[k].0`), which keeps callees before
/// callers. Until then, instructions refer to `extra[k]` by the placeholder
/// id `CompId::new(n + k)`, `n` being the number of computations `m` has;
/// every `called` id and the entry are remapped to the new order.
pub(crate) fn insert_before_callers(m: &mut Module, extra: Vec<(CompId, Computation)>) {
    let n = m.computations.len();
    let mut order: Vec<usize> = Vec::with_capacity(n + extra.len());
    for c in 0..n {
        for (k, (caller, _)) in extra.iter().enumerate() {
            if caller.index() == c {
                order.push(n + k);
            }
        }
        order.push(c);
    }
    let mut remap: SecondaryMap<CompId, Option<CompId>> = SecondaryMap::new();
    for (pos, &x) in order.iter().enumerate() {
        remap[CompId::new(x)] = Some(CompId::new(pos));
    }
    let mut old = std::mem::take(&mut m.computations);
    let mut extra: Vec<Option<Computation>> = extra.into_iter().map(|(_, c)| Some(c)).collect();
    for &x in &order {
        let mut comp = if x < n {
            std::mem::replace(&mut old[CompId::new(x)], empty_computation())
        } else {
            extra[x - n].take().unwrap_or_else(empty_computation)
        };
        for inst in comp.instructions.values_mut() {
            for callee in inst.called.iter_mut() {
                *callee = remap[*callee].unwrap_or(*callee);
            }
        }
        m.computations.push(comp);
    }
    m.entry = remap[m.entry].unwrap_or(m.entry);
}

/// A placeholder computation (no instructions) used while moving computations.
pub(crate) fn empty_computation() -> Computation {
    Computation {
        name: String::new(),
        instructions: PrimaryMap::new(),
        params: Vec::new(),
        root: InstId::new(0),
        execution_thread: None,
    }
}

/// The little-endian bytes of the value `v` (0 or 1) in type `ty`.
pub(crate) fn small_int_bytes(ty: ElementType, v: u8) -> Vec<u8> {
    use ElementType as T;
    let mut b = vec![0u8; ty.byte_size()];
    if v == 0 {
        return b;
    }
    match ty {
        T::Pred | T::S8 | T::U8 | T::S16 | T::U16 | T::S32 | T::U32 | T::S64 | T::U64 => {
            b[0] = v;
        }
        // Only 0 and 1 are asked for: 1.0 is 0x3c00 in f16 and 0x3f80 in bf16.
        T::F16 => b.copy_from_slice(&0x3c00u16.to_le_bytes()),
        T::Bf16 => b.copy_from_slice(&0x3f80u16.to_le_bytes()),
        T::F32 => b.copy_from_slice(&(v as f32).to_bits().to_le_bytes()),
        T::F64 => b.copy_from_slice(&(v as f64).to_bits().to_le_bytes()),
        // (v, 0): the real part first.
        T::C64 => b[..4].copy_from_slice(&(v as f32).to_bits().to_le_bytes()),
        T::C128 => b[..8].copy_from_slice(&(v as f64).to_bits().to_le_bytes()),
    }
    b
}

/// Negative zero of a float type.
pub(crate) fn neg_zero_bytes(ty: ElementType) -> Vec<u8> {
    let mut b = vec![0u8; ty.byte_size()];
    if let Some(last) = b.last_mut() {
        *last = 0x80;
    }
    b
}

/// A constant literal of `shape` (an array) filled with `scalar` bytes.
pub(crate) fn splat_literal(shape: &Shape, scalar: &[u8]) -> Option<Literal> {
    let a = shape.as_array()?.clone();
    let n = a.element_count();
    let mut bytes = Vec::with_capacity(n * scalar.len());
    for _ in 0..n {
        bytes.extend_from_slice(scalar);
    }
    ArrayLiteral::from_bytes(a, bytes).ok().map(Literal::Array)
}

/// Checks the structure every pass relies on (ids in range, operands before
/// users, callees before callers, root and parameters valid), so that a
/// malformed module gives an error, not a panic, even without the verifier.
pub(crate) fn check_structure(m: &Module, pass: &'static str) -> Result<(), crate::PassError> {
    let bad = |comp: &str, inst: &str, message: String| crate::PassError::Instruction {
        pass,
        computation: comp.to_string(),
        instruction: inst.to_string(),
        message: format!("{message} (the module is malformed: run the verifier on it)"),
    };
    if !m.computations.is_valid(m.entry) {
        return Err(bad(
            &m.name,
            "",
            "the entry computation does not exist".into(),
        ));
    }
    for (cid, c) in m.computations.iter() {
        if !c.instructions.is_valid(c.root) {
            return Err(bad(&c.name, "", "the root does not exist".into()));
        }
        for (k, &p) in c.params.iter().enumerate() {
            let ok = c
                .instructions
                .get(p)
                .is_some_and(|i| matches!(i.op, Op::Parameter { number } if number as usize == k));
            if !ok {
                return Err(bad(
                    &c.name,
                    "",
                    format!("params[{k}] is not parameter({k})"),
                ));
            }
        }
        for (id, inst) in c.instructions.iter() {
            if inst.operands.iter().any(|o| o.index() >= id.index()) {
                return Err(bad(
                    &c.name,
                    &inst.name,
                    "an operand does not come before its user".into(),
                ));
            }
            if inst.called.iter().any(|k| k.index() >= cid.index()) {
                return Err(bad(
                    &c.name,
                    &inst.name,
                    "a called computation does not come before its caller".into(),
                ));
            }
        }
    }
    Ok(())
}
