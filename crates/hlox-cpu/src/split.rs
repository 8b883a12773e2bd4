//! Code generation split over threads: the module's functions are
//! partitioned into parts of about equal size, each part is optimized and
//! compiled to an object file on its own thread (in its own LLVM context:
//! a context is single-threaded), and the objects are linked together by
//! ORC (`cache::ObjectJit`).
//!
//! Architecture invariant: splitting does not change a loop's code. Each
//! function is emitted self-contained (a serial loop's bounds are
//! constants in it, not arguments: `Emitter::emit_outlined`), the only
//! references between functions are calls by name and the runtime's
//! function pointers, and every part runs the same pipeline. Loops are
//! `noinline`, so they compile alike split or not; a computation's
//! function (`comp.*`, glue that sequences loops and calls) may be inlined
//! into its caller only when both are in one part.

use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::targets::{CodeModel, FileType, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
use std::time::{Duration, Instant};

/// The fewest LLVM IR instructions (before optimization) a part has: a
/// smaller module compiles as one part. Over the corpus, 200 and 600 gave
/// cold compiles 6% and 4% faster than no split (geometric means, 2
/// cores; modules over 100 ms: 15-25%): docs/performance.md, "Fifth
/// session".
pub(crate) const PART_INSTRUCTIONS: usize = 200;

/// The most parts: each part starts as a copy of the whole module, so
/// copying grows with the number of parts.
pub(crate) const MAX_PARTS: usize = 8;

/// The machine the parts are compiled for.
pub(crate) struct Machine {
    /// The target triple, as text (a `TargetTriple` cannot cross threads).
    pub triple: String,
    pub cpu: String,
    pub features: String,
    pub level: OptimizationLevel,
}

impl Machine {
    /// A target machine making position-independent code in the default
    /// code model: what ORC links.
    pub(crate) fn target_machine(&self) -> Result<TargetMachine, String> {
        let triple = TargetTriple::create(&self.triple);
        let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
        target
            .create_target_machine(
                &triple,
                &self.cpu,
                &self.features,
                self.level,
                RelocMode::PIC,
                CodeModel::Default,
            )
            .ok_or_else(|| "cannot create a target machine for the host".to_string())
    }
}

/// How many IR instructions a function has (0 for a declaration).
fn size(f: inkwell::values::FunctionValue<'_>) -> usize {
    f.get_basic_block_iter()
        .map(|b| b.get_instructions().count())
        .sum()
}

/// The defined functions of `llmod` in `parts` groups of about equal size
/// (largest first, each to the smallest group: longest processing time
/// first); fewer groups when the module is too small for `parts`, never an
/// empty group.
pub(crate) fn partition(llmod: &Module<'_>, parts: usize) -> Vec<Vec<String>> {
    let mut fns: Vec<(usize, String)> = llmod
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| (size(f), f.get_name().to_string_lossy().into_owned()))
        .collect();
    let total: usize = fns.iter().map(|(s, _)| s).sum();
    let parts = parts
        .min(MAX_PARTS)
        .min(total / PART_INSTRUCTIONS)
        .min(fns.len())
        .max(1);
    fns.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut groups: Vec<(usize, Vec<String>)> = vec![(0, Vec::new()); parts];
    for (s, name) in fns {
        if let Some(g) = groups.iter_mut().min_by_key(|g| g.0) {
            g.0 += s;
            g.1.push(name);
        }
    }
    groups.into_iter().map(|g| g.1).collect()
}

/// Splits `llmod` into the parts `groups` (from [`partition`]): returns
/// parts 1.. as bitcode, each a copy of the module in which only its
/// group's functions keep their bodies, and leaves part 0 in `llmod`
/// itself (compiled on the calling thread, in its context). Every defined
/// function becomes externally visible (the parts call each other by
/// name); constants and other private globals are copied into each part
/// that uses them.
pub(crate) fn split(llmod: &Module<'_>, groups: &[Vec<String>]) -> Result<Vec<Vec<u8>>, String> {
    let others = |k: usize| -> Vec<&String> {
        groups
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .flat_map(|(_, g)| g)
            .collect()
    };
    let mut bitcodes = Vec::with_capacity(groups.len().saturating_sub(1));
    for k in 1..groups.len() {
        let m = llmod.clone();
        declare_only(&m, &others(k))?;
        bitcodes.push(m.write_bitcode_to_memory().as_slice().to_vec());
    }
    declare_only(llmod, &others(0))?;
    Ok(bitcodes)
}

/// Makes the functions of `others` declarations in `m` and every defined
/// function externally visible.
fn declare_only(m: &Module<'_>, others: &[&String]) -> Result<(), String> {
    for f in m.get_functions() {
        if f.count_basic_blocks() > 0 {
            f.set_linkage(Linkage::External);
        }
    }
    for name in others {
        let Some(f) = m.get_function(name) else {
            return Err(format!("split code generation: no function {name}"));
        };
        let decl = m.add_function("", f.get_type(), Some(Linkage::External));
        // SAFETY: both are functions of `m` of the same type; after the
        // replacement `f` has no uses, and deleting it drops its body.
        unsafe {
            use inkwell::values::AsValueRef;
            llvm_sys::core::LLVMReplaceAllUsesWith(f.as_value_ref(), decl.as_value_ref());
            f.delete();
        }
        decl.as_global_value().set_name(name);
    }
    Ok(())
}

/// What compiling one part took.
#[derive(Default, Clone, Copy)]
pub(crate) struct PartTimes {
    pub optimization: Duration,
    pub codegen: Duration,
}

/// Optimizes `bitcode` with the pass pipeline `passes` and compiles it to
/// an object file, in a context of its own (so on any thread).
pub(crate) fn compile_part(
    bitcode: &[u8],
    machine: &Machine,
    passes: &str,
) -> Result<(Vec<u8>, PartTimes), String> {
    let ctx = Context::create();
    let buf = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(bitcode, "part");
    let m = Module::parse_bitcode_from_buffer(&buf, &ctx).map_err(|e| e.to_string())?;
    let tm = machine.target_machine()?;
    compile_module(&m, &tm, passes)
}

/// Optimizes `m` with `passes` and compiles it to an object file.
fn compile_module(
    m: &Module<'_>,
    tm: &TargetMachine,
    passes: &str,
) -> Result<(Vec<u8>, PartTimes), String> {
    let t = Instant::now();
    m.run_passes(passes, tm, inkwell::passes::PassBuilderOptions::create())
        .map_err(|e| e.to_string())?;
    let optimization = t.elapsed();
    let t = Instant::now();
    let object = tm
        .write_to_memory_buffer(m, FileType::Object)
        .map_err(|e| e.to_string())?;
    let codegen = t.elapsed();
    Ok((
        object.as_slice().to_vec(),
        PartTimes {
            optimization,
            codegen,
        },
    ))
}

/// Compiles `first` (with `tm`) on this thread and each of the other
/// parts on a thread of its own, and returns the objects in part order,
/// with the longest optimization and the longest code generation of any
/// part.
pub(crate) fn compile_parts(
    first: &Module<'_>,
    tm: &TargetMachine,
    others: &[Vec<u8>],
    machine: &Machine,
    passes: &str,
) -> Result<(Vec<Vec<u8>>, PartTimes), String> {
    let results: Vec<Result<(Vec<u8>, PartTimes), String>> = std::thread::scope(|s| {
        let handles: Vec<_> = others
            .iter()
            .map(|bc| {
                std::thread::Builder::new()
                    .name("hlox-codegen".into())
                    // LLVM's passes recurse over the IR: give them the
                    // stack a main thread has.
                    .stack_size(8 << 20)
                    .spawn_scoped(s, move || compile_part(bc, machine, passes))
            })
            .collect();
        let mut out = Vec::with_capacity(others.len() + 1);
        out.push(compile_module(first, tm, passes));
        for h in handles {
            out.push(match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err("a code generation thread panicked".into())),
                Err(e) => Err(format!("cannot start a code generation thread: {e}")),
            });
        }
        out
    });
    let mut objects = Vec::with_capacity(results.len());
    let mut times = PartTimes::default();
    for r in results {
        let (o, t) = r?;
        times.optimization = times.optimization.max(t.optimization);
        times.codegen = times.codegen.max(t.codegen);
        objects.push(o);
    }
    Ok((objects, times))
}
