//! The Host backend's compilation cache: on disk (opt-in,
//! `CompileOptions::cache_dir` or `HLOX_CACHE_DIR`) with a per-process
//! layer in front of it.
//!
//! **What an entry is.** The machine code of one compiled module as a
//! relocatable object file, plus what the executable builds besides code
//! ([`Meta`]: the entry symbol, the arena size, the custom-call sites and
//! runtime kernels by computation and instruction index, and what each slot
//! of the address table stands for). Code compiled for the cache is
//! *relocatable*: it holds no address of the compiling process. Runtime
//! helpers and custom-call targets are called through one table of
//! addresses ([`hlox_codegen::AddressTable`], the external symbol
//! `hlox.addresses`) that the loader fills with the loading process's
//! addresses, each slot resolved by name (a helper's name, a target's name
//! and `api_version` looked up in the bound targets). A typed-FFI call
//! reads its handler from the table too: on load the call is prepared
//! again, instantiate stage included, from the module and the bound
//! targets; its frame's words (the prepared call's dimensions, attributes
//! and state, the API table) are written by the run's frame arena
//! (`xla_ffi::direct::FrameArena`), laid out again in the order of the
//! handler slots ([`frame_layout`]).
//!
//! **Loading: ORC's LLJIT**, one per process, through LLVM's C API: each
//! object goes into a JITDylib of its own (`LLVMOrcLLJITAddObjectFile`),
//! with the table defined there as an absolute symbol and the process's
//! own symbols (libm, `memcpy`) found by a process search generator;
//! dropping the executable clears its JITDylib. Every Host compile links
//! its objects this way, cached or not. Chosen over linking a
//! shared object (`cc -shared` on a miss, `dlopen` on a hit) because it
//! needs no linker or compiler on the machine, no file outside the cache
//! directory, and links in-process in well under a millisecond. A miss
//! loads the object it just wrote the same way, so every cached compile,
//! hit or miss, runs the one loading path.
//!
//! **The key** ([`key`]): a 128-bit hash of the module's text after the
//! HLO passes (what code generation reads), the options that change code
//! (opt level, parallel threshold, thread count, bf16 rounding), the hlox
//! version and build (the size and modification time of the binary holding
//! this code, so a rebuilt hlox does not load an older build's entries),
//! the CPU's name and features, and each bound target's identity (name,
//! `api_version`, whether it catches panics, where it came from), never an
//! address. An entry found under a key that its stored key does not match,
//! a truncated or corrupted entry (checksum), or one that does not load is
//! ignored with a warning and compiled again (and overwritten).
//!
//! **Concurrency.** An entry is written to a temporary file in the cache
//! directory and renamed onto its name: readers see a whole entry or none,
//! and two processes filling the same entry both write whole files, the
//! last rename winning.
//!
//! Not cached (compiled as without a cache): sandboxed custom calls
//! (`CompileOptions::sandbox`), compiles with a dump directory (the dumps
//! need LLVM's stages), and object-file output.

use crate::runtime::CallSite;
use hlox_ffi::{BoundTargets, Platform};
use hlox_hlo::{CompId, CustomCallApiVersion, EntityRef, InstId, Module, Op};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The environment variable naming the cache directory when
/// `CompileOptions::cache_dir` is not set.
pub const ENV: &str = "HLOX_CACHE_DIR";

/// Bumped whenever the entry format or the meaning of its parts changes.
const FORMAT: &[u8; 8] = b"HLOXC001";

/// Why an entry could not be used or stored (logged as a warning; the
/// compile goes on without the cache).
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cache entry {path}: {message}")]
    Corrupt { path: PathBuf, message: String },
    #[error("cache entry {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cache entry {path}: does not load: {message}")]
    Load { path: PathBuf, message: String },
}

/// A 128-bit cache key (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key(pub [u64; 2]);

impl Key {
    fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.0[0], self.0[1])
    }
}

/// Two SipHash runs with different prefixes: 128 bits, the same in every
/// process of one hlox build.
fn hash128(parts: &[&[u8]]) -> [u64; 2] {
    let mut a = std::hash::DefaultHasher::new();
    let mut b = std::hash::DefaultHasher::new();
    b.write(b"hlox-cache-second-half");
    for p in parts {
        a.write_usize(p.len());
        a.write(p);
        b.write_usize(p.len());
        b.write(p);
    }
    [a.finish(), b.finish()]
}

/// The hlox build: version, and the size and modification time of the
/// binary (executable or shared library) that holds this function.
fn build_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let mut id = format!(
            "hlox {} {}",
            env!("CARGO_PKG_VERSION"),
            FORMAT.escape_ascii()
        );
        // SAFETY: dladdr only reads the address; `info` is plain data.
        let path = unsafe {
            let mut info: libc::Dl_info = std::mem::zeroed();
            let here = build_id as *const () as *const libc::c_void;
            if libc::dladdr(here, &mut info) != 0 && !info.dli_fname.is_null() {
                Some(PathBuf::from(
                    std::ffi::CStr::from_ptr(info.dli_fname)
                        .to_string_lossy()
                        .into_owned(),
                ))
            } else {
                None
            }
        };
        let path = path
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::current_exe().ok());
        if let Some(m) = path.and_then(|p| std::fs::metadata(p).ok()) {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            id.push_str(&format!(" binary {} bytes, modified {t}", m.len()));
        }
        id
    })
}

/// The host CPU's name and features, as LLVM detects them (once per process).
pub(crate) fn host_cpu() -> &'static (String, String) {
    static CPU: OnceLock<(String, String)> = OnceLock::new();
    CPU.get_or_init(|| {
        use inkwell::targets::TargetMachine;
        (
            TargetMachine::get_host_cpu_name().to_string(),
            TargetMachine::get_host_cpu_features().to_string(),
        )
    })
}

/// What makes a bound target the same one in another process: never its
/// address.
fn target_identity(name: &str, t: &hlox_ffi::Target) -> String {
    format!(
        "{name} signature={:?} catches_panics={} traits={} origin={}",
        t.signature, t.catches_panics, t.traits, t.origin
    )
}

/// The cache key of `module` (after the HLO passes) compiled with these
/// options and bound targets by this hlox build on this CPU.
pub(crate) fn key(
    module: &Module,
    bound: &BoundTargets,
    options: &crate::CompileOptions,
    threads: usize,
) -> Key {
    let t = std::time::Instant::now();
    let (cpu, features) = host_cpu();
    let t_cpu = t.elapsed();
    let build = build_id();
    let t_build = t.elapsed();
    let text = hlox_hlo::text::print_module(module);
    let t_text = t.elapsed();
    let mut targets: Vec<String> = bound.iter().map(|(n, t)| target_identity(n, t)).collect();
    targets.sort();
    let opts = format!(
        "opt_level={} parallel_threshold={} threads={threads} hlo_passes={} half_rounding={:?}",
        options.opt_level,
        options.parallel_threshold.max(1),
        options.hlo_passes,
        options.half_rounding
    );
    let k = Key(hash128(&[
        build.as_bytes(),
        cpu.as_bytes(),
        features.as_bytes(),
        opts.as_bytes(),
        targets.join("\n").as_bytes(),
        text.as_bytes(),
    ]));
    tracing::debug!(
        cpu_us = t_cpu.as_micros() as u64,
        build_us = (t_build - t_cpu).as_micros() as u64,
        print_us = (t_text - t_build).as_micros() as u64,
        hash_us = (t.elapsed() - t_text).as_micros() as u64,
        "cache key"
    );
    k
}

/// What one slot of the address table stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A runtime helper (`runtime::helpers`).
    Helper(String),
    /// A legacy custom-call target, by name and `api_version`.
    Target(String, CustomCallApiVersion),
    /// The handler of the direct typed-FFI call at this call site (the
    /// call's frame is laid out again in the loading process, in the order
    /// of these slots: `frame_layout`).
    FfiHandler(u32),
}

/// What the executable needs besides the object's code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Meta {
    pub entry: String,
    pub arena_bytes: u64,
    /// `CompileReport`'s counters: llvm_functions, row_hoisted,
    /// per_element_reductions, row_shared, column_reductions,
    /// column_reductions_split_rows.
    pub counters: [u64; 6],
    /// Every slot's names (one address may stand for several: all must
    /// resolve to one address when loaded).
    pub slots: Vec<Vec<Slot>>,
    /// Custom-call sites, in site order: (computation, instruction).
    pub sites: Vec<(u32, u32)>,
    /// Runtime kernels, in kernel order: (computation, instruction, the
    /// symbols of their compiled scalar callees).
    pub kernels: Vec<(u32, u32, Vec<String>)>,
}

/// A whole entry: its key, metadata and object file.
#[derive(Debug)]
pub(crate) struct Entry {
    pub key: Key,
    pub meta: Meta,
    pub object: Vec<u8>,
}

// ---------------------------------------------------------------------------
// The entry's bytes: FORMAT, key, meta, object, checksum (little endian).

struct W(Vec<u8>);
impl W {
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
}

struct Rd<'b> {
    b: &'b [u8],
}
impl<'b> Rd<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], String> {
        if n > self.b.len() {
            return Err(format!(
                "truncated: {n} bytes wanted, {} left",
                self.b.len()
            ));
        }
        let (h, t) = self.b.split_at(n);
        self.b = t;
        Ok(h)
    }
    fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn len(&mut self) -> Result<usize, String> {
        let n = self.u64()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.b.len())
            .ok_or_else(|| format!("a length of {n} past the end"))
    }
    fn bytes(&mut self) -> Result<&'b [u8], String> {
        let n = self.len()?;
        self.take(n)
    }
    fn str(&mut self) -> Result<String, String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| "a name is not UTF-8".to_string())
    }
    fn u32(&mut self) -> Result<u32, String> {
        let v = self.u64()?;
        u32::try_from(v).map_err(|_| format!("index {v} out of range"))
    }
}

fn api_code(v: CustomCallApiVersion) -> u64 {
    match v {
        CustomCallApiVersion::Original => 1,
        CustomCallApiVersion::StatusReturning => 2,
        CustomCallApiVersion::StatusReturningUnified => 3,
        CustomCallApiVersion::TypedFfi => 4,
    }
}

fn api_from(c: u64) -> Result<CustomCallApiVersion, String> {
    Ok(match c {
        1 => CustomCallApiVersion::Original,
        2 => CustomCallApiVersion::StatusReturning,
        3 => CustomCallApiVersion::StatusReturningUnified,
        4 => CustomCallApiVersion::TypedFfi,
        _ => return Err(format!("unknown api_version code {c}")),
    })
}

impl Entry {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut w = W(Vec::with_capacity(self.object.len() + 1024));
        w.0.extend_from_slice(FORMAT);
        w.u64(self.key.0[0]);
        w.u64(self.key.0[1]);
        let m = &self.meta;
        w.str(&m.entry);
        w.u64(m.arena_bytes);
        for c in m.counters {
            w.u64(c);
        }
        w.u64(m.slots.len() as u64);
        for names in &m.slots {
            w.u64(names.len() as u64);
            for s in names {
                match s {
                    Slot::Helper(n) => {
                        w.u64(0);
                        w.str(n);
                    }
                    Slot::Target(n, v) => {
                        w.u64(api_code(*v));
                        w.str(n);
                    }
                    Slot::FfiHandler(site) => {
                        w.u64(5);
                        w.u64(*site as u64);
                    }
                }
            }
        }
        w.u64(m.sites.len() as u64);
        for &(c, i) in &m.sites {
            w.u64(c as u64);
            w.u64(i as u64);
        }
        w.u64(m.kernels.len() as u64);
        for (c, i, callees) in &m.kernels {
            w.u64(*c as u64);
            w.u64(*i as u64);
            w.u64(callees.len() as u64);
            for n in callees {
                w.str(n);
            }
        }
        w.bytes(&self.object);
        let sum = hash128(&[&w.0]);
        w.u64(sum[0]);
        w.u64(sum[1]);
        w.0
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Entry, String> {
        if bytes.len() < FORMAT.len() + 16 {
            return Err(format!("truncated: {} bytes", bytes.len()));
        }
        if &bytes[..FORMAT.len()] != FORMAT {
            return Err("not an hlox cache entry of this format".into());
        }
        let (body, sum) = bytes.split_at(bytes.len() - 16);
        let want = hash128(&[body]);
        let mut r = Rd { b: sum };
        if [r.u64()?, r.u64()?] != want {
            return Err("checksum mismatch (truncated or corrupted)".into());
        }
        let mut r = Rd {
            b: &body[FORMAT.len()..],
        };
        let key = Key([r.u64()?, r.u64()?]);
        let entry = r.str()?;
        let arena_bytes = r.u64()?;
        let mut counters = [0u64; 6];
        for c in &mut counters {
            *c = r.u64()?;
        }
        let mut slots = Vec::new();
        for _ in 0..r.len()? {
            let mut names = Vec::new();
            for _ in 0..r.len()? {
                names.push(match r.u64()? {
                    0 => Slot::Helper(r.str()?),
                    5 => Slot::FfiHandler(r.u32()?),
                    c => {
                        let v = api_from(c)?;
                        Slot::Target(r.str()?, v)
                    }
                });
            }
            slots.push(names);
        }
        let mut sites = Vec::new();
        for _ in 0..r.len()? {
            sites.push((r.u32()?, r.u32()?));
        }
        let mut kernels = Vec::new();
        for _ in 0..r.len()? {
            let (c, i) = (r.u32()?, r.u32()?);
            let mut callees = Vec::new();
            for _ in 0..r.len()? {
                callees.push(r.str()?);
            }
            kernels.push((c, i, callees));
        }
        let object = r.bytes()?.to_vec();
        if !r.b.is_empty() {
            return Err(format!("{} bytes after the object", r.b.len()));
        }
        Ok(Entry {
            key,
            meta: Meta {
                entry,
                arena_bytes,
                counters,
                slots,
                sites,
                kernels,
            },
            object,
        })
    }
}

// ---------------------------------------------------------------------------
// The cache: a directory, with a per-process layer in front.

/// Entries this process loaded or wrote, by cache directory and key (the
/// per-process layer: a hit here reads no file).
type Memory = Mutex<HashMap<(PathBuf, Key), Arc<Entry>>>;

fn memory() -> &'static Memory {
    static MEM: OnceLock<Memory> = OnceLock::new();
    MEM.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Forgets every entry this process holds in memory (later compiles read
/// the cache directory again): for tests and for long-running processes
/// that want the memory back.
pub fn forget_process_entries() {
    if let Ok(mut m) = memory().lock() {
        m.clear();
    }
}

/// The cache of one compile: its directory.
pub(crate) struct Cache {
    dir: PathBuf,
}

/// Where a hit came from (for the log and the report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    Memory,
    Disk,
}

impl Cache {
    /// The cache a compile with these options uses, if any (see the module
    /// docs for what is not cached).
    pub(crate) fn for_options(options: &crate::CompileOptions) -> Option<Cache> {
        // Not cached: sandboxed calls and profiles (their call sites and
        // instruction names are made by the emitter, which a hit skips) and
        // compiles asked to dump their stages.
        if options.sandbox.is_some() || options.dump_dir.is_some() || options.profile {
            return None;
        }
        let dir = options.cache_dir.clone().or_else(|| {
            std::env::var_os(ENV)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })?;
        Some(Cache { dir })
    }

    pub(crate) fn path_of(&self, key: &Key) -> PathBuf {
        self.dir.join(format!("{}.hloxc", key.hex()))
    }

    /// The entry of `key`: from this process's memory, else from the
    /// directory. A missing file is a plain miss; a file that is not a
    /// whole entry of this key is a warning and a miss.
    pub(crate) fn lookup(&self, key: &Key) -> Option<(Arc<Entry>, Hit)> {
        let at = (self.dir.clone(), *key);
        if let Some(e) = memory().lock().ok().and_then(|m| m.get(&at).cloned()) {
            return Some((e, Hit::Memory));
        }
        let path = self.path_of(key);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(source) => {
                tracing::warn!("{}; compiling again", CacheError::Io { path, source });
                return None;
            }
        };
        match Entry::decode(&bytes) {
            Ok(e) if e.key == *key => {
                let e = Arc::new(e);
                if let Ok(mut m) = memory().lock() {
                    m.insert(at, e.clone());
                }
                Some((e, Hit::Disk))
            }
            Ok(_) => {
                let err = CacheError::Corrupt {
                    path,
                    message: "its stored key is another module's".into(),
                };
                tracing::warn!("{err}; compiling again");
                None
            }
            Err(message) => {
                let err = CacheError::Corrupt { path, message };
                tracing::warn!("{err}; compiling again");
                None
            }
        }
    }

    /// Forgets `key` in this process (an entry that did not load).
    pub(crate) fn forget(&self, key: &Key) {
        if let Ok(mut m) = memory().lock() {
            m.remove(&(self.dir.clone(), *key));
        }
    }

    /// Writes `entry` (temporary file, then rename) and keeps it in memory.
    /// A failure is a warning: the compile does not depend on the cache.
    pub(crate) fn store(&self, entry: Arc<Entry>) {
        if let Ok(mut m) = memory().lock() {
            m.insert((self.dir.clone(), entry.key), entry.clone());
        }
        let path = self.path_of(&entry.key);
        if let Err(source) = write_atomically(&self.dir, &path, &entry.encode()) {
            tracing::warn!(
                "{}; the compiled module is not cached",
                CacheError::Io { path, source }
            );
        }
    }
}

fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".tmp.{}.{}.{}",
        std::process::id(),
        SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    let r = (|| {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.flush()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}

// ---------------------------------------------------------------------------
// Load time: the slots' addresses, the call sites, ORC.

/// The frame arena's layout of the direct typed-FFI calls of `sites`,
/// placed in the order the emitter placed them: the order of their handler
/// slots (one per direct call, pushed as each call was emitted), so every
/// frame lies at the offset the object's code uses.
pub(crate) fn frame_layout(
    meta: &Meta,
    sites: &[CallSite],
) -> Result<hlox_ffi::xla_ffi::direct::FrameLayout, String> {
    let mut layout = hlox_ffi::xla_ffi::direct::FrameLayout::default();
    for names in &meta.slots {
        for s in names {
            if let Slot::FfiHandler(site) = s {
                let d = sites
                    .get(*site as usize)
                    .and_then(|s| s.ffi.as_ref())
                    .and_then(|f| f.direct())
                    .ok_or_else(|| format!("call site {site} is no direct typed-FFI call"))?;
                layout.place(&d);
            }
        }
    }
    Ok(layout)
}

/// This process's address of every slot of `meta`, each slot's names
/// resolved against the runtime helpers, the bound targets and the
/// prepared typed-FFI calls of `sites` (their recipes for direct calls).
pub(crate) fn resolve_slots(
    meta: &Meta,
    bound: &BoundTargets,
    sites: &[CallSite],
) -> Result<Vec<u64>, String> {
    let helpers = crate::runtime::helpers();
    let mut recipes: HashMap<u32, hlox_ffi::xla_ffi::direct::DirectCall> = HashMap::new();
    let mut recipe = |site: u32| -> Result<hlox_ffi::xla_ffi::direct::DirectCall, String> {
        if let Some(d) = recipes.get(&site) {
            return Ok(d.clone());
        }
        let d = sites
            .get(site as usize)
            .and_then(|s| s.ffi.as_ref())
            .and_then(|f| f.direct())
            .ok_or_else(|| format!("call site {site} is no direct typed-FFI call"))?;
        recipes.insert(site, d.clone());
        Ok(d)
    };
    let mut table = Vec::with_capacity(meta.slots.len());
    for (k, names) in meta.slots.iter().enumerate() {
        let mut addr: Option<usize> = None;
        for s in names {
            let a = match s {
                Slot::Helper(n) => helpers
                    .iter()
                    .find(|(h, _)| h == n)
                    .map(|&(_, a)| a)
                    .ok_or_else(|| format!("slot {k}: no runtime helper {n}"))?,
                Slot::Target(n, v) => bound
                    .get(n)
                    .and_then(|t| t.func.for_call(Platform::Host, *v))
                    .map(|f| f.addr())
                    .ok_or_else(|| format!("slot {k}: custom-call target \"{n}\" is not bound"))?,
                Slot::FfiHandler(site) => recipe(*site)?.handler,
            };
            if addr.is_some_and(|b| b != a) {
                return Err(format!(
                    "slot {k}: its names {names:?} are different functions in this process"
                ));
            }
            addr = Some(a);
        }
        table.push(addr.ok_or_else(|| format!("slot {k} has no name"))? as u64);
    }
    Ok(table)
}

/// Names every slot of a table this process just filled (compile time):
/// the emitter's typed-FFI slots by their call site, every other slot by
/// the helpers and legacy targets at its address.
pub(crate) fn name_slots(
    slots: &[u64],
    targets: &[(usize, String, CustomCallApiVersion)],
    ffi: &[(usize, usize, crate::emit::FfiSlot)],
) -> Result<Vec<Vec<Slot>>, String> {
    let helpers = crate::runtime::helpers();
    slots
        .iter()
        .enumerate()
        .map(|(k, &a)| {
            if let Some(&(_, site, what)) = ffi.iter().find(|(s, _, _)| *s == k) {
                let site = site as u32;
                return Ok(vec![match what {
                    crate::emit::FfiSlot::Handler => Slot::FfiHandler(site),
                }]);
            }
            let mut names: Vec<Slot> = helpers
                .iter()
                .filter(|&&(_, h)| h as u64 == a)
                .map(|(n, _)| Slot::Helper(n.to_string()))
                .collect();
            for (t, n, v) in targets {
                let s = Slot::Target(n.clone(), *v);
                if *t as u64 == a && !names.contains(&s) {
                    names.push(s);
                }
            }
            if names.is_empty() {
                return Err(format!("address slot {k} ({a:#x}) is no helper or target"));
            }
            Ok(names)
        })
        .collect()
}

/// The call sites of `meta` prepared again from the module and the bound
/// targets (typed-FFI calls through the runtime's prepared call, their
/// instantiate stage run again).
pub(crate) fn prepare_sites(
    module: &Module,
    bound: &BoundTargets,
    meta: &Meta,
) -> Result<Vec<CallSite>, String> {
    meta.sites
        .iter()
        .map(|&(c, i)| {
            let (cid, id) = instruction(module, c, i)?;
            let comp = module.comp(cid);
            let inst = comp.inst(id);
            let Op::CustomCall(call) = &inst.op else {
                return Err(format!("call site {} is not a custom call", inst.name));
            };
            let target = bound
                .get(&call.target)
                .ok_or_else(|| format!("custom-call target \"{}\" is not bound", call.target))?;
            // A typed-FFI call exactly where the emitter made one.
            let typed = matches!(
                target.func.for_call(Platform::Host, call.api_version),
                Some(hlox_ffi::TargetFn::Ffi(_))
            );
            let ffi = if typed {
                let shapes: Vec<&hlox_hlo::Shape> =
                    inst.operands.iter().map(|&o| &comp.inst(o).shape).collect();
                let prepared =
                    hlox_ffi::xla_ffi::FfiCall::new(target, &call.opaque, &shapes, &inst.shape)
                        .map_err(|m| format!("custom call {}: {m}", inst.name))?;
                Some(Arc::new(prepared))
            } else {
                None
            };
            Ok(CallSite {
                inst: inst.name.clone(),
                target: call.target.clone(),
                at: (cid, id),
                ffi,
                sandbox: None,
            })
        })
        .collect()
}

/// The computation and instruction at these indices, checked.
pub(crate) fn instruction(module: &Module, c: u32, i: u32) -> Result<(CompId, InstId), String> {
    let (c, i) = (c as usize, i as usize);
    if c >= module.computations.len() {
        return Err(format!("no computation {c}"));
    }
    let cid = CompId::new(c);
    if i >= module.comp(cid).instructions.len() {
        return Err(format!("computation {c} has no instruction {i}"));
    }
    Ok((cid, InstId::new(i)))
}

/// The process's ORC JIT: one LLJIT (creating one costs about half a
/// millisecond), in whose session every loaded object gets a JITDylib of
/// its own (so that two executables' symbols never clash).
struct Orc {
    jit: llvm_sys::orc2::lljit::LLVMOrcLLJITRef,
}

// SAFETY: ORC's execution session is thread-safe; the LLJIT is never
// disposed of (it lives as long as the process).
unsafe impl Send for Orc {}
unsafe impl Sync for Orc {}

/// The message of an LLVM error (consumed).
unsafe fn take_error(e: llvm_sys::error::LLVMErrorRef) -> String {
    let m = llvm_sys::error::LLVMGetErrorMessage(e);
    let s = std::ffi::CStr::from_ptr(m).to_string_lossy().into_owned();
    llvm_sys::error::LLVMDisposeErrorMessage(m);
    s
}

fn orc() -> Result<&'static Orc, String> {
    static ORC: OnceLock<Result<Orc, String>> = OnceLock::new();
    ORC.get_or_init(|| {
        use llvm_sys::orc2::lljit::*;
        let t = std::time::Instant::now();
        // The LLJIT finds its target machine through the registered native
        // target (on whichever thread makes it first).
        inkwell::targets::Target::initialize_native(
            &inkwell::targets::InitializationConfig::default(),
        )
        .map_err(|e| format!("LLVM's native target: {e}"))?;
        let mut jit: LLVMOrcLLJITRef = std::ptr::null_mut();
        // SAFETY: the builder is consumed by the call; an error is consumed.
        let e = unsafe { LLVMOrcCreateLLJIT(&mut jit, LLVMOrcCreateLLJITBuilder()) };
        if !e.is_null() {
            return Err(format!("ORC LLJIT: {}", unsafe { take_error(e) }));
        }
        tracing::debug!(us = t.elapsed().as_micros() as u64, "ORC LLJIT created");
        Ok(Orc { jit })
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// An object file loaded into its own JITDylib of the process's LLJIT,
/// kept alive with the executable (dropping it frees the code).
pub(crate) struct ObjectJit {
    orc: &'static Orc,
    jd: llvm_sys::orc2::LLVMOrcJITDylibRef,
}

// SAFETY: after loading, the code is immutable and called through plain
// function pointers; ORC's session is thread-safe.
unsafe impl Send for ObjectJit {}
unsafe impl Sync for ObjectJit {}

impl Drop for ObjectJit {
    fn drop(&mut self) {
        // SAFETY: the JITDylib belongs to the process's session; clearing
        // it removes the object and frees its memory (the empty JITDylib,
        // a few hundred bytes, stays in the session).
        unsafe {
            let e = llvm_sys::orc2::LLVMOrcJITDylibClear(self.jd);
            if !e.is_null() {
                llvm_sys::error::LLVMConsumeError(e);
            }
        }
    }
}

impl ObjectJit {
    /// Links `objects` into a new JITDylib of the process's LLJIT, with
    /// `table` (when the code is relocatable) as the address table's
    /// symbol, the objects' symbols for each other and the process's
    /// symbols for the rest.
    pub(crate) fn load(objects: &[&[u8]], table: Option<*const u64>) -> Result<ObjectJit, String> {
        use llvm_sys::orc2::lljit::*;
        use llvm_sys::orc2::*;
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let orc = orc()?;
        let jit = orc.jit;
        let name = std::ffi::CString::new(format!(
            "hlox.object.{}",
            SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ))
        .map_err(|e| e.to_string())?;
        // SAFETY: LLVM's C API used as documented; every reference made is
        // handed to LLVM or disposed of, and errors are consumed.
        unsafe {
            let es = LLVMOrcLLJITGetExecutionSession(jit);
            let jd = LLVMOrcExecutionSessionCreateBareJITDylib(es, name.as_ptr());
            if jd.is_null() {
                return Err("ORC: no JITDylib".into());
            }
            let this = ObjectJit { orc, jd };
            let mut generator: LLVMOrcDefinitionGeneratorRef = std::ptr::null_mut();
            let e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut generator,
                LLVMOrcLLJITGetGlobalPrefix(jit),
                None,
                std::ptr::null_mut(),
            );
            if !e.is_null() {
                return Err(format!("process symbols: {}", take_error(e)));
            }
            LLVMOrcJITDylibAddGenerator(jd, generator);
            if let Some(table) = table {
                let sym = std::ffi::CString::new(hlox_codegen::AddressTable::SYMBOL)
                    .map_err(|e| e.to_string())?;
                let mut pair = LLVMOrcCSymbolMapPair {
                    // Retained for LLVMOrcAbsoluteSymbols, which takes it.
                    Name: LLVMOrcLLJITMangleAndIntern(jit, sym.as_ptr()),
                    Sym: LLVMJITEvaluatedSymbol {
                        Address: table as u64,
                        Flags: LLVMJITSymbolFlags {
                            GenericFlags:
                                LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported as u8,
                            TargetFlags: 0,
                        },
                    },
                };
                let mu = LLVMOrcAbsoluteSymbols(&mut pair, 1);
                let e = LLVMOrcJITDylibDefine(jd, mu);
                if !e.is_null() {
                    return Err(format!("address table: {}", take_error(e)));
                }
            }
            for object in objects {
                let buf = llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
                    object.as_ptr() as *const libc::c_char,
                    object.len(),
                    c"hlox-object".as_ptr(),
                );
                let e = LLVMOrcLLJITAddObjectFile(jit, jd, buf);
                if !e.is_null() {
                    return Err(format!("object file: {}", take_error(e)));
                }
            }
            Ok(this)
        }
    }

    /// The address of a symbol the object defines (the first lookup
    /// links the object).
    pub(crate) fn lookup(&self, name: &str) -> Result<usize, String> {
        use llvm_sys::orc2::*;
        /// Where the session's callback leaves the answer.
        type Answer = (Mutex<Option<Result<u64, String>>>, std::sync::Condvar);
        extern "C" fn done(
            err: llvm_sys::error::LLVMErrorRef,
            result: LLVMOrcCSymbolMapPairs,
            n: usize,
            ctx: *mut libc::c_void,
        ) {
            // SAFETY: `ctx` is a reference to the `Answer` the caller waits
            // on, made by `Arc::into_raw` for this call, taken back here
            // once; `result` holds `n` pairs.
            let answer = unsafe { Arc::from_raw(ctx as *const Answer) };
            let r = if !err.is_null() {
                Err(unsafe { take_error(err) })
            } else if n == 0 || result.is_null() {
                Err("not found".to_string())
            } else {
                Ok(unsafe { (*result).Sym.Address })
            };
            if let Ok(mut a) = answer.0.lock() {
                *a = Some(r);
            }
            answer.1.notify_all();
        }
        let c = std::ffi::CString::new(name).map_err(|e| e.to_string())?;
        let answer: Arc<Answer> = Arc::new((Mutex::new(None), std::sync::Condvar::new()));
        // SAFETY: the JITDylib and session are alive; the lookup set's
        // name is retained by the session for the lookup (the reference
        // made here is not released: an interned name, kept for the
        // process, as the symbol it names usually is).
        unsafe {
            let jit = self.orc.jit;
            let es = llvm_sys::orc2::lljit::LLVMOrcLLJITGetExecutionSession(jit);
            let mut order = [LLVMOrcCJITDylibSearchOrderElement {
                JD: self.jd,
                JDLookupFlags:
                    LLVMOrcJITDylibLookupFlags::LLVMOrcJITDylibLookupFlagsMatchAllSymbols,
            }];
            let mut set = [LLVMOrcCLookupSetElement {
                Name: llvm_sys::orc2::lljit::LLVMOrcLLJITMangleAndIntern(jit, c.as_ptr()),
                LookupFlags: LLVMOrcSymbolLookupFlags::LLVMOrcSymbolLookupFlagsRequiredSymbol,
            }];
            LLVMOrcExecutionSessionLookup(
                es,
                LLVMOrcLookupKind::LLVMOrcLookupKindStatic,
                order.as_mut_ptr(),
                1,
                set.as_mut_ptr(),
                1,
                done,
                Arc::into_raw(answer.clone()) as *mut libc::c_void,
            );
        }
        let mut got = answer
            .0
            .lock()
            .map_err(|_| format!("symbol {name}: lookup state poisoned"))?;
        while got.is_none() {
            got = answer
                .1
                .wait(got)
                .map_err(|_| format!("symbol {name}: lookup state poisoned"))?;
        }
        match got.take() {
            Some(Ok(0)) => Err(format!("symbol {name} is at address 0")),
            Some(Ok(a)) => Ok(a as usize),
            Some(Err(e)) => Err(format!("symbol {name}: {e}")),
            None => Err(format!("symbol {name}: no answer")),
        }
    }
}
