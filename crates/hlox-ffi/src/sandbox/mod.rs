//! The custom-call sandbox: a debugging aid for target authors
//! (`CompileOptions::sandbox`, `hlox run --sandbox`).
//!
//! A sandboxed call copies every operand and result leaf into its own
//! mapping placed against `PROT_NONE` guard pages ([`guard`]), calls the
//! target from a C++ shim (`csrc/sandbox.cc`) that turns a fault inside it
//! (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) into a `siglongjmp` back to
//! itself and catches any C++ exception, checks the canary bytes around
//! every buffer and, when asked, the results (NaN or infinity, a result
//! left untouched), and only then copies the results back. Any failure is
//! a [`SandboxFailure`] naming the buffer and offset where it can, and with
//! [`SandboxOptions::repro_dir`] a reproducer is written ([`repro`]).
//!
//! Why in-process and what that costs: the fault is caught on the thread
//! that made the call, and only the target's own frames (C or C++, below
//! the shim) are skipped by the jump: no Rust frame is. hlox's own state is
//! intact, so the run ends with an error and the executable runs again. The
//! target's state is not: a lock it held, memory it allocated, a global it
//! was half-way through updating stay as the fault left them (and a fault
//! inside malloc leaves the allocator's lock taken). That is the target's
//! problem to debug, which is what the sandbox is for; docs/reliability.md
//! says so. Running each call in a child process would isolate that state
//! too, but not yet: see docs/reliability.md.

// The errors carry the buffer's shape and the fault's details; they are
// made once per failed call on a debugging path, so their size is no cost.
#![allow(clippy::result_large_err)]

mod guard;
pub mod repro;

pub use repro::{ReproError, Reproducer};

use crate::invoke::BufferCounts;
use crate::status::XlaCustomCallStatus;
use crate::target::TargetFn;
use crate::xla_ffi::{abi, FfiCall, FfiCallError, InvokeContext};
use crate::{Origin, Target};
use guard::Guarded;
use hlox_hlo::{CustomCall, CustomCallApiVersion, ElementType, Shape, ShapeIndex};
use std::ffi::{c_void, CStr};
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// What the sandbox does besides guarding buffers and catching faults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SandboxOptions {
    /// After each call, fail when a float result holds NaN or an infinity,
    /// or when a result still holds the fill pattern it was given (the
    /// target did not write it).
    pub check_results: bool,
    /// On any failure of a sandboxed call, write a reproducer into
    /// `DIR/<instruction>/` (see [`repro`]).
    pub repro_dir: Option<PathBuf>,
}

/// The byte every result buffer is filled with before the call (an f32 of
/// these bytes is -4.3e8; an untouched result keeps them all).
pub const RESULT_FILL: u8 = 0xCD;

/// Which buffer of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferName {
    /// Operand `k`, or the result.
    pub operand: Option<usize>,
    /// The leaf's index in the operand's (or result's) shape.
    pub index: ShapeIndex,
    pub shape: Shape,
}

impl fmt::Display for BufferName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.operand {
            Some(k) => write!(f, "operand {k}")?,
            None => f.write_str("the result")?,
        }
        if !self.index.is_empty() {
            let ix: Vec<String> = self.index.iter().map(|i| i.to_string()).collect();
            write!(f, " element {{{}}}", ix.join(","))?;
        }
        write!(f, " ({})", self.shape)
    }
}

/// Where an access outside a buffer landed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    pub buffer: BufferName,
    /// Bytes from the buffer's start (negative: before it).
    pub offset: i64,
    /// The buffer's size in bytes.
    pub size: usize,
    /// Its element size in bytes.
    pub element: usize,
}

impl fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let el = self.element.max(1) as i64;
        if self.offset < 0 {
            write!(
                f,
                "{} bytes before the start of {} (byte offset {})",
                -self.offset, self.buffer, self.offset
            )
        } else {
            write!(
                f,
                "{} bytes past the end of {} (byte offset {}, element {}; it has {} bytes)",
                self.offset - self.size as i64,
                self.buffer,
                self.offset,
                self.offset / el,
                self.size
            )
        }
    }
}

/// A memory access's direction, where the fault says (x86-64 does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Unknown,
}

/// Why a sandboxed call failed.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A signal inside the target.
    #[error("{}", signal_message(*signal, *code, *address, *pc, pc_symbol.as_deref(), *access, place.as_ref()))]
    Signal {
        signal: i32,
        code: i32,
        /// The faulting address (SIGSEGV, SIGBUS).
        address: usize,
        /// The faulting instruction.
        pc: usize,
        /// `symbol+offset in library` of `pc`, where `dladdr` knows it.
        pc_symbol: Option<String>,
        access: Access,
        /// The buffer the address lies next to, when it is in a guard page.
        place: Option<OutOfBounds>,
    },
    /// A C++ exception escaped the target.
    #[error("the target threw a C++ exception: {what}")]
    Exception { what: String },
    /// The canary bytes around a buffer changed: a write just outside it
    /// that did not reach a guard page.
    #[error("the target wrote outside its buffers: byte offsets {first}..={last} of {} (found after the call: the canary bytes around it changed)", place.buffer)]
    Canary {
        place: OutOfBounds,
        first: i64,
        last: i64,
    },
    /// The target reported failure (its status, word for word).
    #[error("{0}")]
    Reported(String),
    /// An `API_VERSION_ORIGINAL` Rust target panicked.
    #[error("panicked: {0}")]
    Panicked(String),
    /// A typed-FFI handler's error, or a call frame that could not be made.
    #[error(transparent)]
    Ffi(#[from] FfiCallError),
    /// [`SandboxOptions::check_results`]: a result still holds the fill pattern.
    #[error("the target left {buffer} untouched: after the call it still holds the fill pattern (every byte 0x{RESULT_FILL:02X})")]
    Untouched { buffer: BufferName },
    /// [`SandboxOptions::check_results`]: NaN or an infinity in a float result.
    #[error("{buffer} holds {value} at element {element} (in memory order; --check-results)")]
    NonFinite {
        buffer: BufferName,
        element: usize,
        value: f64,
    },
    /// A guarded buffer could not be mapped.
    #[error("cannot map a guarded buffer of {bytes} bytes for {buffer}: {source}")]
    Map {
        buffer: BufferName,
        bytes: usize,
        source: std::io::Error,
    },
    /// A typed-FFI call reached the sandbox without its prepared call
    /// (the compiler prepares one for every typed-FFI call).
    #[error("internal: a typed-FFI call without its prepared call frame")]
    NoFfiCall,
    /// The signal handlers could not be installed (`sigaction` failed).
    #[error("cannot install the sandbox's signal handlers (sigaction failed)")]
    Handlers,
    /// The generated code passed a different number of buffers than the call has.
    #[error(transparent)]
    BufferCount(#[from] BufferCounts),
}

fn signal_name(signal: i32, code: i32) -> String {
    match signal {
        libc::SIGSEGV => "SIGSEGV (invalid memory access)".into(),
        libc::SIGBUS => "SIGBUS (bus error: a misaligned or unmapped access)".into(),
        libc::SIGFPE => match code {
            // si_code values of <signal.h> (the libc crate lacks them).
            1 => "SIGFPE (integer divide by zero)".into(),
            2 => "SIGFPE (integer overflow)".into(),
            _ => "SIGFPE (arithmetic exception)".into(),
        },
        libc::SIGILL => "SIGILL (illegal instruction: a trap such as __builtin_trap)".into(),
        libc::SIGABRT => "SIGABRT (abort(): a failed assert, or std::terminate)".into(),
        s => format!("signal {s}"),
    }
}

fn signal_message(
    signal: i32,
    code: i32,
    address: usize,
    pc: usize,
    pc_symbol: Option<&str>,
    access: Access,
    place: Option<&OutOfBounds>,
) -> String {
    let mut m = format!("{} in the target", signal_name(signal, code));
    if pc != 0 && signal != libc::SIGABRT {
        m += &format!(" at instruction 0x{pc:x}");
        if let Some(s) = pc_symbol {
            m += &format!(" ({s})");
        }
    }
    if signal == libc::SIGSEGV || signal == libc::SIGBUS {
        let what = match access {
            Access::Read => "reading",
            Access::Write => "writing",
            Access::Unknown => "accessing",
        };
        match place {
            Some(p) => m += &format!(": {what} {p} (address 0x{address:x}, in a guard page)"),
            None => {
                m += &format!(
                ": {what} address 0x{address:x}, which is not next to any of the call's buffers"
            )
            }
        }
    }
    m
}

/// A failed sandboxed call: the error, and the reproducer written for it.
#[derive(Debug)]
pub struct SandboxFailure {
    pub error: SandboxError,
    /// `None` without [`SandboxOptions::repro_dir`].
    pub reproducer: Option<Result<Reproducer, ReproError>>,
}

impl fmt::Display for SandboxFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.error)?;
        match &self.reproducer {
            Some(Ok(r)) => write!(
                f,
                "; reproducer written to {}, replay with: {}",
                r.dir.display(),
                r.command
            ),
            Some(Err(e)) => write!(f, "; no reproducer: {e}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for SandboxFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// One leaf buffer of a call.
#[derive(Clone, Debug)]
struct Leaf {
    name: BufferName,
    size: usize,
    element: usize,
    ty: Option<ElementType>,
}

impl Leaf {
    fn of(operand: Option<usize>, shape: &Shape) -> Vec<Leaf> {
        shape
            .leaves()
            .into_iter()
            .map(|(index, s)| {
                let a = s.as_array();
                Leaf {
                    name: BufferName {
                        operand,
                        index,
                        shape: s.clone(),
                    },
                    size: a.map(|a| a.byte_size()).unwrap_or(0),
                    element: a.map(|a| a.ty.byte_size()).unwrap_or(1),
                    ty: a.map(|a| a.ty),
                }
            })
            .collect()
    }
}

/// How to replay a call from the command line: the plugin that serves it.
#[derive(Clone, Debug)]
pub(crate) enum Served {
    /// `--plugin PATH` registers or exports it under its own name.
    Plugin(PathBuf),
    /// `--plugin LIBRARY --target NAME=SYMBOL`.
    Bound { library: PathBuf, symbol: String },
    /// Registered by the program itself (no command line replays it).
    InProcess(String),
}

/// One custom call, prepared to run sandboxed (one per call site).
pub struct SandboxedCall {
    instruction: String,
    call: CustomCall,
    func: TargetFn,
    opaque: Vec<u8>,
    operand_shapes: Vec<Shape>,
    result_shape: Shape,
    operands: Vec<Leaf>,
    results: Vec<Leaf>,
    /// For each result leaf, the operand leaf it aliases (one buffer).
    alias: Vec<Option<usize>>,
    ffi: Option<Arc<FfiCall>>,
    served: Served,
    options: SandboxOptions,
}

impl fmt::Debug for SandboxedCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SandboxedCall")
            .field("instruction", &self.instruction)
            .field("target", &self.call.target)
            .finish()
    }
}

/// Calls the shim. `out` is written.
unsafe fn shim(call: &mut ShimCall, out: &mut ShimOutcome) -> i32 {
    unsafe { hlox_sandbox_call(call, out) }
}

#[repr(C)]
struct ShimCall {
    kind: i32,
    func: *mut c_void,
    out: *mut c_void,
    ins: *mut *mut c_void,
    opaque: *const u8,
    opaque_len: usize,
    status: *mut c_void,
    frame: *mut c_void,
    ffi_error: *mut c_void,
}

impl ShimCall {
    /// A call of typed-FFI handler `handler` (the shim's kind 3) on `frame`;
    /// the handler's error comes back in `ffi_error`.
    fn typed_ffi(handler: *mut c_void, frame: *mut c_void) -> ShimCall {
        ShimCall {
            kind: 3,
            func: handler,
            out: std::ptr::null_mut(),
            ins: std::ptr::null_mut(),
            opaque: std::ptr::null(),
            opaque_len: 0,
            status: std::ptr::null_mut(),
            frame,
            ffi_error: std::ptr::null_mut(),
        }
    }
}

#[repr(C)]
struct ShimOutcome {
    signo: i32,
    code: i32,
    addr: *mut c_void,
    pc: *mut c_void,
    access: i32,
    exception: [u8; 512],
}

impl ShimOutcome {
    fn new() -> ShimOutcome {
        ShimOutcome {
            signo: 0,
            code: 0,
            addr: std::ptr::null_mut(),
            pc: std::ptr::null_mut(),
            access: 0,
            exception: [0; 512],
        }
    }

    /// The shim's return code `code` read with this outcome: 0 is a call
    /// that returned; 1 a signal (in the buffer `locate` finds for the
    /// faulting address, if any), 2 a C++ exception, anything else the
    /// shim's failure to install its handlers.
    fn result(
        &self,
        code: i32,
        locate: impl FnOnce(usize) -> Option<OutOfBounds>,
    ) -> Result<(), SandboxError> {
        match code {
            0 => Ok(()),
            1 => {
                let address = self.addr as usize;
                let pc = self.pc as usize;
                Err(SandboxError::Signal {
                    signal: self.signo,
                    code: self.code,
                    address,
                    pc,
                    pc_symbol: symbolize(pc),
                    access: match self.access {
                        1 => Access::Read,
                        2 => Access::Write,
                        _ => Access::Unknown,
                    },
                    place: locate(address),
                })
            }
            2 => {
                let n = self
                    .exception
                    .iter()
                    .position(|&b| b == 0)
                    .unwrap_or(self.exception.len());
                Err(SandboxError::Exception {
                    what: String::from_utf8_lossy(&self.exception[..n]).into_owned(),
                })
            }
            _ => Err(SandboxError::Handlers),
        }
    }
}

extern "C" {
    fn hlox_sandbox_call(call: *mut ShimCall, out: *mut ShimOutcome) -> i32;
}

/// `symbol+0xOFF in library` for a code address, where `dladdr` knows it.
fn symbolize(pc: usize) -> Option<String> {
    // SAFETY: dladdr only reads the address; `info` is written on success.
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if pc == 0 || libc::dladdr(pc as *const c_void, &mut info) == 0 {
            return None;
        }
        let lib = if info.dli_fname.is_null() {
            "?".to_string()
        } else {
            CStr::from_ptr(info.dli_fname)
                .to_string_lossy()
                .into_owned()
        };
        if info.dli_sname.is_null() {
            Some(format!("+0x{:x} in {lib}", pc - info.dli_fbase as usize))
        } else {
            let s = CStr::from_ptr(info.dli_sname).to_string_lossy();
            Some(format!("{s}+0x{:x} in {lib}", pc - info.dli_saddr as usize))
        }
    }
}

/// Builds the nested pointer tables of XLA's legacy conventions (a tuple is
/// a table of its elements' pointers); `tables` keeps them alive.
fn nested(
    shape: &Shape,
    leaves: &mut impl Iterator<Item = *mut c_void>,
    tables: &mut Vec<Box<[*mut c_void]>>,
) -> *mut c_void {
    match shape {
        Shape::Tuple(elems) => {
            let t: Box<[*mut c_void]> = elems.iter().map(|s| nested(s, leaves, tables)).collect();
            let p = t.as_ptr() as *mut c_void;
            tables.push(t);
            p
        }
        _ => leaves.next().unwrap_or(std::ptr::null_mut()),
    }
}

impl SandboxedCall {
    /// Prepares `call` (instruction `instruction`, calling `func`, the
    /// Host function bound for its api_version, of `target`) on buffers of
    /// `operand_shapes` (with the layouts the target sees) and
    /// `result_shape`; `ffi` is its prepared typed-FFI call, if it is one.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        target: &Target,
        func: TargetFn,
        instruction: &str,
        call: &CustomCall,
        operand_shapes: &[Shape],
        result_shape: &Shape,
        ffi: Option<Arc<FfiCall>>,
        options: SandboxOptions,
    ) -> SandboxedCall {
        let mut operands = Vec::new();
        let mut first_leaf = Vec::new();
        for (k, s) in operand_shapes.iter().enumerate() {
            first_leaf.push(operands.len());
            operands.extend(Leaf::of(Some(k), s));
        }
        let results = Leaf::of(None, result_shape);
        let mut alias = vec![None; results.len()];
        for al in &call.output_operand_aliasing {
            let r = results.iter().position(|l| l.name.index == al.output_index);
            let o = usize::try_from(al.operand).ok().and_then(|k| {
                let start = *first_leaf.get(k)?;
                let n = operand_shapes.get(k)?.leaves().len();
                operands[start..start + n]
                    .iter()
                    .position(|l| l.name.index == al.operand_index)
                    .map(|i| start + i)
            });
            if let (Some(r), Some(o)) = (r, o) {
                alias[r] = Some(o);
            }
        }
        let library = target.library().map(|l| l.path().to_path_buf());
        let served = match (&target.origin, library) {
            (Origin::Bound { symbol, library }, _) => Served::Bound {
                library: library.clone(),
                symbol: symbol.clone(),
            },
            (Origin::Plugin(p) | Origin::Symbol(p) | Origin::XlaFfi(Some(p)), _) => {
                Served::Plugin(p.clone())
            }
            (_, Some(p)) => Served::Plugin(p),
            (o, None) => Served::InProcess(o.to_string()),
        };
        let mut opaque = call.opaque.clone();
        opaque.push(0);
        SandboxedCall {
            instruction: instruction.to_string(),
            call: call.clone(),
            func,
            opaque,
            operand_shapes: operand_shapes.to_vec(),
            result_shape: result_shape.clone(),
            operands,
            results,
            alias,
            ffi,
            served,
            options,
        }
    }

    /// Number of operand leaf buffers [`SandboxedCall::run`] takes.
    pub fn operand_leaves(&self) -> usize {
        self.operands.len()
    }
    /// Number of result leaf buffers [`SandboxedCall::run`] takes.
    pub fn result_leaves(&self) -> usize {
        self.results.len()
    }
    pub fn instruction(&self) -> &str {
        &self.instruction
    }
    pub fn target(&self) -> &str {
        &self.call.target
    }

    /// Runs the call sandboxed on its leaf buffers (operands, in operand
    /// order, then results): the results are written only when it succeeds.
    ///
    /// # Safety
    /// Each pointer points to a buffer of its leaf's size (results
    /// writable), valid for the call; an aliased result's buffer holds
    /// its operand's value, as the generated code arranges.
    pub unsafe fn run(
        &self,
        operands: &[*mut u8],
        results: &[*mut u8],
    ) -> Result<(), SandboxFailure> {
        match unsafe { self.run_guarded(operands, results) } {
            Ok(()) => Ok(()),
            Err(error) => {
                let reproducer = self.options.repro_dir.as_ref().and_then(|dir| {
                    // Only when the buffers are the ones this call has.
                    (operands.len() == self.operands.len())
                        .then(|| unsafe { repro::write(self, dir, operands, &error) })
                });
                Err(SandboxFailure { error, reproducer })
            }
        }
    }

    unsafe fn run_guarded(
        &self,
        operands: &[*mut u8],
        results: &[*mut u8],
    ) -> Result<(), SandboxError> {
        BufferCounts::check(
            (operands.len(), results.len()),
            (self.operands.len(), self.results.len()),
        )?;
        let map = |l: &Leaf| {
            Guarded::new(l.size, l.element).map_err(|source| SandboxError::Map {
                buffer: l.name.clone(),
                bytes: l.size,
                source,
            })
        };
        let mut ops = Vec::with_capacity(self.operands.len());
        for (l, &p) in self.operands.iter().zip(operands) {
            let mut g = map(l)?;
            if l.size > 0 {
                // SAFETY: the caller's buffer holds `size` bytes.
                g.bytes_mut()
                    .copy_from_slice(unsafe { std::slice::from_raw_parts(p, l.size) });
            }
            ops.push(g);
        }
        let mut res: Vec<Option<Guarded>> = Vec::with_capacity(self.results.len());
        for (l, a) in self.results.iter().zip(&self.alias) {
            res.push(match a {
                Some(_) => None,
                None => {
                    let mut g = map(l)?;
                    g.bytes_mut().fill(RESULT_FILL);
                    Some(g)
                }
            });
        }
        let res_ptr = |r: usize| -> *mut u8 {
            match (&res[r], self.alias[r]) {
                (Some(g), _) => g.ptr(),
                (None, Some(o)) => ops[o].ptr(),
                (None, None) => std::ptr::null_mut(),
            }
        };
        let mut outcome = ShimOutcome::new();
        let code;
        let mut status = XlaCustomCallStatus::new();
        let mut ffi_result = Ok(());
        if let (TargetFn::Ffi(_), Some(ffi)) = (self.func, &self.ffi) {
            let args: Vec<*mut c_void> = ops.iter().map(|g| g.ptr() as *mut c_void).collect();
            let rets: Vec<*mut c_void> = (0..self.results.len())
                .map(|r| res_ptr(r) as *mut c_void)
                .collect();
            let ictx = InvokeContext::host_next();
            let mut shim_code = 0;
            let mut invoke = |h: abi::Handler, frame: *mut abi::CallFrame| -> *mut abi::Error {
                let mut c = ShimCall::typed_ffi(h as *mut c_void, frame as *mut c_void);
                // SAFETY: the handler is called on its own frame.
                shim_code = unsafe { shim(&mut c, &mut outcome) };
                if shim_code == 0 {
                    c.ffi_error as *mut abi::Error
                } else {
                    std::ptr::null_mut()
                }
            };
            // SAFETY: the guarded buffers have the prepared types and sizes.
            ffi_result = unsafe { ffi.call_via(&args, &rets, &ictx, &mut invoke) };
            code = shim_code;
        } else {
            let kind = match (self.func, self.call.api_version) {
                (TargetFn::Ffi(_), _) | (_, CustomCallApiVersion::TypedFfi) => {
                    return Err(SandboxError::NoFfiCall)
                }
                (_, CustomCallApiVersion::Original) => 0,
                (_, CustomCallApiVersion::StatusReturning) => 1,
                (_, CustomCallApiVersion::StatusReturningUnified) => 2,
            };
            let mut tables = Vec::new();
            let mut it = ops.iter().map(|g| g.ptr() as *mut c_void);
            let ins: Box<[*mut c_void]> = self
                .operand_shapes
                .iter()
                .map(|s| nested(s, &mut it, &mut tables))
                .collect();
            let mut rit = (0..self.results.len()).map(|r| res_ptr(r) as *mut c_void);
            let out = nested(&self.result_shape, &mut rit, &mut tables);
            let mut c = ShimCall {
                kind,
                func: self.func.addr() as *mut c_void,
                out,
                ins: ins.as_ptr() as *mut *mut c_void,
                opaque: self.opaque.as_ptr(),
                opaque_len: self.call.opaque.len(),
                status: &mut status as *mut XlaCustomCallStatus as *mut c_void,
                frame: std::ptr::null_mut(),
                ffi_error: std::ptr::null_mut(),
            };
            // SAFETY: the function has the C convention of its api_version
            // (as the generated code trusts), and every table and buffer
            // outlives the call.
            code = unsafe { shim(&mut c, &mut outcome) };
        }
        let panic = crate::take_panic();
        let all = || {
            ops.iter().zip(&self.operands).chain(
                res.iter()
                    .zip(&self.results)
                    .filter_map(|(g, l)| Some((g.as_ref()?, l))),
            )
        };
        outcome.result(code, |addr| {
            all().find_map(|(g, l)| {
                g.locate(addr).map(|o| OutOfBounds {
                    buffer: l.name.clone(),
                    offset: o.0,
                    size: l.size,
                    element: l.element,
                })
            })
        })?;
        for (g, l) in all() {
            if let Some((first, last)) = g.damaged_canary() {
                return Err(SandboxError::Canary {
                    place: OutOfBounds {
                        buffer: l.name.clone(),
                        offset: first.0,
                        size: l.size,
                        element: l.element,
                    },
                    first: first.0,
                    last: last.0,
                });
            }
        }
        if let Some(p) = panic {
            return Err(SandboxError::Panicked(p));
        }
        if let Some(m) = status.failure() {
            return Err(SandboxError::Reported(m));
        }
        ffi_result?;
        if self.options.check_results {
            for (g, l) in res.iter().zip(&self.results) {
                let Some(g) = g else { continue };
                if l.size > 0 && g.bytes().iter().all(|&b| b == RESULT_FILL) {
                    return Err(SandboxError::Untouched {
                        buffer: l.name.clone(),
                    });
                }
            }
            for (r, l) in self.results.iter().enumerate() {
                let p = res_ptr(r);
                // SAFETY: the guarded result holds `size` bytes.
                let bytes = unsafe { std::slice::from_raw_parts(p, l.size) };
                if let Some((element, value)) = l.ty.and_then(|t| first_non_finite(t, bytes)) {
                    return Err(SandboxError::NonFinite {
                        buffer: l.name.clone(),
                        element,
                        value,
                    });
                }
            }
        }
        for (r, l) in self.results.iter().enumerate() {
            if l.size > 0 {
                // SAFETY: both hold `size` bytes; the caller's is writable.
                unsafe { std::ptr::copy_nonoverlapping(res_ptr(r), results[r], l.size) };
            }
        }
        Ok(())
    }
}

/// Calls typed-FFI `handler` once, through the shim, on a call frame that
/// `init` builds inside a mapping against a guard page (`T` holds the frame
/// and what it points to); `read` takes what it needs from the mapping and
/// the handler's returned error after the call. A fault in the handler, a
/// write past `T` or a C++ exception is an error. Used where hlox must call
/// a symbol before it knows it is a handler (XLA's metadata query of a
/// symbol found by name): a plain C function called that way reads and
/// writes through whatever it finds in its argument registers.
///
/// # Safety
/// `init` must initialize the `T` it is given (a frame first, pointing only
/// into the same `T` or to static data); `handler` is called on it.
pub(crate) unsafe fn call_isolated<T, R>(
    handler: abi::Handler,
    init: impl FnOnce(*mut T),
    read: impl FnOnce(*const T, *mut abi::Error) -> R,
) -> Result<R, SandboxError> {
    let size = std::mem::size_of::<T>();
    let g = Guarded::new(size, std::mem::align_of::<T>()).map_err(|source| SandboxError::Map {
        buffer: BufferName {
            operand: None,
            index: Vec::new(),
            shape: Shape::Token,
        },
        bytes: size,
        source,
    })?;
    let p = g.ptr() as *mut T;
    init(p);
    let mut c = ShimCall::typed_ffi(handler as *mut c_void, p as *mut c_void);
    let mut outcome = ShimOutcome::new();
    // SAFETY: the frame is initialized, per the caller.
    let code = unsafe { shim(&mut c, &mut outcome) };
    outcome.result(code, |_| None)?;
    Ok(read(p, c.ffi_error as *mut abi::Error))
}

/// The first NaN or infinity in a float buffer: (element, value).
fn first_non_finite(ty: ElementType, bytes: &[u8]) -> Option<(usize, f64)> {
    let n = ty.byte_size();
    let value = |c: &[u8]| -> Option<f64> {
        Some(match ty {
            ElementType::F16 => half::f16::from_le_bytes(c.try_into().ok()?).to_f64(),
            ElementType::Bf16 => half::bf16::from_le_bytes(c.try_into().ok()?).to_f64(),
            ElementType::F32 => f32::from_le_bytes(c.try_into().ok()?) as f64,
            ElementType::F64 => f64::from_le_bytes(c.try_into().ok()?),
            _ => return None,
        })
    };
    if !matches!(
        ty,
        ElementType::F16 | ElementType::Bf16 | ElementType::F32 | ElementType::F64
    ) {
        return None;
    }
    bytes
        .chunks_exact(n)
        .enumerate()
        .find_map(|(i, c)| value(c).filter(|v| !v.is_finite()).map(|v| (i, v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_are_found_in_every_float_type() {
        let f32s: Vec<u8> = [1.0f32, f32::NAN]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let (i, v) = first_non_finite(ElementType::F32, &f32s).unwrap();
        assert_eq!(i, 1);
        assert!(v.is_nan());
        let f64s: Vec<u8> = [f64::NEG_INFINITY]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(
            first_non_finite(ElementType::F64, &f64s),
            Some((0, f64::NEG_INFINITY))
        );
        assert_eq!(first_non_finite(ElementType::S32, &[0xff; 4]), None);
        assert_eq!(
            first_non_finite(ElementType::F32, &1.5f32.to_le_bytes()),
            None
        );
    }
}
