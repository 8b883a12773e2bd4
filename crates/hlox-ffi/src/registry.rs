//! The registry of custom-call targets, plugin loading and binding.

use crate::platform::{api_version_from_c, Platform, Signature};
use crate::plugin::{HloxCustomCallRegistrar, RegisterTargetsFn, REGISTER_SYMBOL};
use crate::target::{Identity, RustTarget, RustTargetFn, TargetFn, STATIC_TARGETS};
use hlox_hlo::{CustomCallApiVersion, Module, Op};
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A shared library loaded into a registry. Kept alive (through `Arc`) by
/// the registry and by every target or binding that came from it.
pub struct LoadedLibrary {
    path: PathBuf,
    lib: libloading::Library,
    /// True when it registered its targets through `hlox_register_custom_call_targets`.
    registration: bool,
    /// The functions its dynamic symbol table exports, sorted (empty when
    /// the file is not an ELF shared library hlox can read).
    exports: Vec<String>,
}

impl LoadedLibrary {
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// Whether it exported `hlox_register_custom_call_targets`.
    pub fn has_registration_function(&self) -> bool {
        self.registration
    }
    /// The functions it exports (its dynamic symbol table), sorted: the
    /// symbols [`Registry::bind_symbol`] can bind, and what a missing
    /// target's error suggests.
    pub fn exported_functions(&self) -> &[String] {
        &self.exports
    }
}

impl fmt::Debug for LoadedLibrary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedLibrary")
            .field("path", &self.path)
            .field("registration", &self.registration)
            .finish()
    }
}

/// The front end a process serves (the CLI and Rust programs, or Python):
/// a binding error's advice names that front's way of registering a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Front {
    /// `hlox` on the command line and Rust programs (the default).
    Native,
    /// The `hlox` Python package.
    Python,
}

static FRONT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Sets the front end whose advice binding errors give (the Python module
/// sets [`Front::Python`] when it is imported).
pub fn set_front(front: Front) {
    FRONT.store(front as u8, std::sync::atomic::Ordering::Relaxed);
}

/// The front end binding errors advise for (see [`set_front`]).
pub fn front() -> Front {
    match FRONT.load(std::sync::atomic::Ordering::Relaxed) {
        1 => Front::Python,
        _ => Front::Native,
    }
}

/// Where a registered target came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// `register_custom_call_target!` at `file:line`.
    Macro { file: &'static str, line: u32 },
    /// [`Registry::register_fn`] / [`Registry::register_rust`].
    Rust,
    /// [`Registry::register_c`].
    C,
    /// A plugin's `hlox_register_custom_call_targets`.
    Plugin(PathBuf),
    /// Found by symbol name in a plugin without a registration function.
    Symbol(PathBuf),
    /// `XLA_FFI_Handler_Register` (`XLA_FFI_REGISTER_HANDLER`) while the
    /// plugin was loaded, or by code already in the process (`None`).
    XlaFfi(Option<PathBuf>),
    /// [`Registry::bind_symbol`] (`hlox --target NAME=SYMBOL`): the name
    /// bound to an exported symbol of a loaded library, as JAX's
    /// `register_ffi_target(name, pycapsule(lib.symbol))` does.
    Bound { symbol: String, library: PathBuf },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Macro { file, line } => {
                write!(f, "register_custom_call_target! at {file}:{line}")
            }
            Origin::Rust => f.write_str("a Rust registration"),
            Origin::C => f.write_str("a C function registration"),
            Origin::Plugin(p) => write!(f, "plugin {} ({REGISTER_SYMBOL})", p.display()),
            Origin::Symbol(p) => write!(f, "symbol lookup in {}", p.display()),
            Origin::XlaFfi(Some(p)) => {
                write!(f, "XLA_FFI_Handler_Register in plugin {}", p.display())
            }
            Origin::XlaFfi(None) => f.write_str("XLA_FFI_Handler_Register by code in the process"),
            Origin::Bound { symbol, library } => {
                write!(f, "a binding to symbol {symbol} of {}", library.display())
            }
        }
    }
}

/// What a target promises beyond its calling convention, as XLA FFI's
/// handler traits. A set of flags; C plugins pass its [`bits`](Traits::bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Traits(u32);

impl Traits {
    /// No promises (the default).
    pub const NONE: Traits = Traits(0);
    /// The target only enqueues work on the stream it is given: no host
    /// synchronisation, no host-side effect needed on every run, the same
    /// work for the same buffers every time. A CUDA graph captured from one
    /// call can then stand in for later calls (XLA's
    /// `kCmdBufferCompatible`). Meaningful on CUDA; ignored on the Host.
    pub const GRAPH_COMPATIBLE: Traits = Traits(1);
    const ALL: u32 = 1;

    pub const fn bits(self) -> u32 {
        self.0
    }
    /// `None` when `bits` has a flag hlox does not know.
    pub const fn from_bits(bits: u32) -> Option<Traits> {
        if bits & !Traits::ALL != 0 {
            None
        } else {
            Some(Traits(bits))
        }
    }
    pub const fn contains(self, other: Traits) -> bool {
        self.0 & other.0 == other.0
    }
    pub const fn union(self, other: Traits) -> Traits {
        Traits(self.0 | other.0)
    }
}

impl std::ops::BitOr for Traits {
    type Output = Traits;
    fn bitor(self, rhs: Traits) -> Traits {
        self.union(rhs)
    }
}

impl fmt::Display for Traits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.contains(Traits::GRAPH_COMPATIBLE) {
            f.write_str("graph_compatible")
        } else {
            f.write_str("none")
        }
    }
}

/// One registered target.
#[derive(Clone, Debug)]
pub struct Target {
    pub name: String,
    pub platform: Platform,
    /// The convention the function implements; `None` for targets found by
    /// symbol name (trusted to match the custom call's `api_version`, like XLA).
    pub signature: Option<Signature>,
    pub func: TargetFn,
    pub identity: Identity,
    pub origin: Origin,
    /// False for `extern "C"` Rust functions (a panic aborts).
    pub catches_panics: bool,
    /// What the target promises ([`Registry::set_traits`]).
    pub traits: Traits,
    library: Option<Arc<LoadedLibrary>>,
}

impl Target {
    pub fn library(&self) -> Option<&Arc<LoadedLibrary>> {
        self.library.as_ref()
    }
}

/// Errors registering a target.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegistryError {
    #[error(
        "custom-call target \"{name}\" is already registered for {platform} by {existing} with a different \
         function (new registration from {new}); give one of them another name"
    )]
    Duplicate {
        name: String,
        platform: Platform,
        existing: String,
        new: String,
    },
    #[error("custom-call target \"{name}\": the function has a {signature} parameter list but is registered for {platform}")]
    PlatformMismatch {
        name: String,
        platform: Platform,
        signature: Platform,
    },
    #[error("custom-call target \"{name}\": {message}")]
    Invalid { name: String, message: String },
    #[error(
        "no custom-call target \"{name}\" is registered for {platform}; register it before setting its traits"
    )]
    NotRegistered { name: String, platform: Platform },
}

/// Errors loading a plugin library.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error("cannot load custom-call library {}: {message}", path.display())]
    Open { path: PathBuf, message: String },
    #[error("custom-call library {}: {symbol} rejected {} registration(s):\n  - {}", path.display(), problems.len(), problems.join("\n  - "))]
    Registration {
        path: PathBuf,
        symbol: &'static str,
        problems: Vec<String>,
    },
    #[error("custom-call library {}: {symbol} returned {code} (the plugin reports a failure)", path.display())]
    Failed {
        path: PathBuf,
        symbol: &'static str,
        code: i32,
    },
    /// The library calls functions of XLA's C API that it expects the
    /// loading program to export, and this program does not: its first call
    /// would end the process with "symbol lookup error". Refused before it
    /// is loaded.
    #[error(
        "custom-call library {}: it calls {} from the program that loads it, and this program does not export {}, \
         so the first call would kill the process (\"symbol lookup error\"); not loaded. Fix: link the program with \
         {} (hlox's .cargo/config.toml has the lines to copy; see docs/custom-calls.md), or -rdynamic; when \
         hlox is inside a shared library (a Python extension), load that library with RTLD_GLOBAL",
        path.display(),
        symbols.join(" and "),
        if symbols.len() == 1 { "it" } else { "them" },
        symbols.iter().map(|s| format!("-C link-arg=-Wl,--export-dynamic-symbol={s}")).collect::<Vec<_>>().join(" ")
    )]
    ProcessSymbols {
        path: PathBuf,
        symbols: Vec<&'static str>,
    },
}

/// `NAME=SYMBOL` or `NAME=SYMBOL:API`: a target name bound to a symbol a
/// loaded library exports ([`Registry::bind_symbol`]); what
/// `hlox --target` takes. `API` is an `api_version`, 1 to 4 or its name
/// (`API_VERSION_TYPED_FFI`, `typed_ffi`); without it the binding follows
/// the rule of targets found by symbol name (the custom call's
/// `api_version` is trusted; a typed-FFI symbol is asked for its metadata).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolBinding {
    pub name: String,
    pub symbol: String,
    pub api_version: Option<CustomCallApiVersion>,
}

/// A [`SymbolBinding`] that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "target binding \"{spec}\": {problem}; the form is NAME=SYMBOL or NAME=SYMBOL:API, with API an \
     api_version 1-4 (or API_VERSION_ORIGINAL, ..._STATUS_RETURNING, ..._STATUS_RETURNING_UNIFIED, \
     ..._TYPED_FFI), e.g. leaky_relu=LeakyReluFfi:4"
)]
pub struct SymbolBindingError {
    pub spec: String,
    pub problem: String,
}

impl std::str::FromStr for SymbolBinding {
    type Err = SymbolBindingError;
    fn from_str(spec: &str) -> Result<SymbolBinding, SymbolBindingError> {
        let err = |problem: &str| SymbolBindingError {
            spec: spec.to_string(),
            problem: problem.to_string(),
        };
        let (name, rest) = spec.split_once('=').ok_or_else(|| err("no '='"))?;
        let (symbol, api) = match rest.split_once(':') {
            Some((sym, api)) => (sym, Some(api)),
            None => (rest, None),
        };
        let ident = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.$@-".contains(c))
        };
        if name.is_empty() {
            return Err(err("the target name (before '=') is empty"));
        }
        if name.contains(char::is_whitespace) || name.contains('\0') {
            return Err(err("the target name contains a space or NUL"));
        }
        if symbol.is_empty() {
            return Err(err("the symbol (after '=') is empty"));
        }
        if !ident(symbol) {
            return Err(err(
                "the symbol is not a C identifier (letters, digits, '_', '.', '$', '@', '-')",
            ));
        }
        let api_version = match api {
            None => None,
            Some(a) => Some(
                parse_api_version(a).ok_or_else(|| err(&format!("unknown api_version \"{a}\"")))?,
            ),
        };
        Ok(SymbolBinding {
            name: name.to_string(),
            symbol: symbol.to_string(),
            api_version,
        })
    }
}

impl fmt::Display for SymbolBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.symbol)?;
        if let Some(api) = self.api_version {
            write!(f, ":{}", api.proto_value())?;
        }
        Ok(())
    }
}

/// `1`..`4`, `API_VERSION_TYPED_FFI` or `typed_ffi` (any case).
fn parse_api_version(s: &str) -> Option<CustomCallApiVersion> {
    if let Ok(v) = s.parse::<i32>() {
        return match v {
            0 => None,
            v => CustomCallApiVersion::from_proto_value(v),
        };
    }
    let upper = s.to_ascii_uppercase();
    CustomCallApiVersion::from_name(&upper)
        .or_else(|| CustomCallApiVersion::from_name(&format!("API_VERSION_{upper}")))
}

/// Why [`Registry::bind_symbol`] did not bind.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SymbolBindError {
    #[error(
        "cannot bind custom-call target \"{name}\" to symbol \"{symbol}\": no library is loaded; load the one \
         that exports it first (--plugin LIB.so)"
    )]
    NoLibrary { name: String, symbol: String },
    #[error(
        "cannot bind custom-call target \"{name}\" to symbol \"{symbol}\": no loaded library exports it (searched {}){}",
        libraries.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        if closest.is_empty() { String::new() } else {
            format!("; closest exported: {}", closest.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", "))
        }
    )]
    NotFound {
        name: String,
        symbol: String,
        libraries: Vec<PathBuf>,
        closest: Vec<String>,
    },
    /// The name is taken by another function, or the function is refused
    /// (a typed-FFI symbol that fails its metadata query, say).
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

#[derive(Default)]
struct Inner {
    targets: BTreeMap<(String, Platform), Target>,
    libraries: Vec<Arc<LoadedLibrary>>,
    /// Transformation rules registered by plugins.
    rules: Vec<RuleModule>,
    /// Conflicting static registrations (reported when such a target is bound).
    static_conflicts: BTreeMap<(String, Platform), String>,
}

/// A set of custom-call targets keyed by (name, platform).
///
/// An owned value (for tests and embedders) or the process-wide
/// [`Registry::global`] that `register_custom_call_target!` fills.
#[derive(Default)]
pub struct Registry {
    inner: RwLock<Inner>,
    /// Whether handlers registered through `XLA_FFI_GetApi()` by code
    /// already in the process are visible (the global registry and
    /// [`Registry::with_static_targets`]).
    process_ffi: bool,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = self.read();
        f.debug_struct("Registry")
            .field("targets", &inner.targets.keys().collect::<Vec<_>>())
            .field("libraries", &inner.libraries)
            .finish()
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        crate::status::keep_status_symbols();
        crate::xla_ffi::api::keep_api_symbol();
        Registry::default()
    }

    /// The process-wide registry: every `register_custom_call_target!` linked
    /// into the program. Conflicting registrations of one name are kept out
    /// and reported when a module uses that name.
    pub fn global() -> &'static Registry {
        static GLOBAL: OnceLock<Registry> = OnceLock::new();
        GLOBAL.get_or_init(|| {
            let mut r = Registry::new();
            r.process_ffi = true;
            r.add_static_targets();
            r
        })
    }

    /// A new registry holding every `register_custom_call_target!` of the
    /// program; fails on conflicting registrations.
    pub fn with_static_targets() -> Result<Registry, RegistryError> {
        let mut r = Registry::new();
        r.process_ffi = true;
        for t in STATIC_TARGETS.iter() {
            r.insert(Registry::rust_entry(
                t.name,
                t.platform,
                t.target,
                t.traits,
                Origin::Macro {
                    file: t.file,
                    line: t.line,
                },
            )?)?;
        }
        Ok(r)
    }

    fn add_static_targets(&self) {
        for t in STATIC_TARGETS.iter() {
            let origin = Origin::Macro {
                file: t.file,
                line: t.line,
            };
            let res = Registry::rust_entry(t.name, t.platform, t.target, t.traits, origin)
                .and_then(|e| self.insert(e));
            if let Err(e) = res {
                let mut inner = self.write();
                inner.targets.remove(&(t.name.to_string(), t.platform));
                inner
                    .static_conflicts
                    .insert((t.name.to_string(), t.platform), e.to_string());
            }
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }
    fn write(&self) -> RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    fn rust_entry(
        name: &str,
        platform: Platform,
        mut t: RustTarget,
        traits: Traits,
        origin: Origin,
    ) -> Result<Target, RegistryError> {
        if t.signature.api_version == CustomCallApiVersion::TypedFfi {
            // A typed-FFI function serves the platform it is registered for.
            t.signature.platform = platform;
        }
        if t.signature.platform != platform {
            return Err(RegistryError::PlatformMismatch {
                name: name.to_string(),
                platform,
                signature: t.signature.platform,
            });
        }
        Ok(Target {
            name: name.to_string(),
            platform,
            signature: Some(t.signature),
            func: t.func,
            identity: (t.identity)(),
            origin,
            catches_panics: t.catches_panics,
            traits,
            library: None,
        })
    }

    fn check_insert(
        targets: &BTreeMap<(String, Platform), Target>,
        t: &Target,
    ) -> Result<bool, RegistryError> {
        if t.name.is_empty() {
            return Err(RegistryError::Invalid {
                name: String::new(),
                message: "the target name is empty".into(),
            });
        }
        if let Some(old) = targets.get(&(t.name.clone(), t.platform)) {
            if old.identity == t.identity && old.signature == t.signature {
                return Ok(false);
            }
            return Err(RegistryError::Duplicate {
                name: t.name.clone(),
                platform: t.platform,
                existing: old.origin.to_string(),
                new: t.origin.to_string(),
            });
        }
        Ok(true)
    }

    /// A plugin's registrations checked against `targets` and against each
    /// other (re-registrations of the same function dropped); problems are
    /// appended to `problems`. The caller commits the batch only when there
    /// are none: all or nothing.
    fn check_batch(
        targets: &BTreeMap<(String, Platform), Target>,
        pending: Vec<Target>,
        problems: &mut Vec<String>,
    ) -> BTreeMap<(String, Platform), Target> {
        let mut batch: BTreeMap<(String, Platform), Target> = BTreeMap::new();
        for t in pending {
            match Registry::check_insert(targets, &t)
                .and_then(|new| Registry::check_insert(&batch, &t).map(|new2| new && new2))
            {
                Ok(true) => {
                    batch.insert((t.name.clone(), t.platform), t);
                }
                Ok(false) => {}
                Err(e) => problems.push(e.to_string()),
            }
        }
        batch
    }

    fn insert(&self, t: Target) -> Result<(), RegistryError> {
        let mut inner = self.write();
        if Registry::check_insert(&inner.targets, &t)? {
            inner.targets.insert((t.name.clone(), t.platform), t);
        }
        Ok(())
    }

    /// Registers a Rust-ABI function (the macro's work, for an owned
    /// registry). Registering the same function again is a no-op; another
    /// function under a taken (name, platform) is an error.
    pub fn register_fn<M, F: RustTargetFn<M>>(
        &self,
        name: &str,
        platform: Platform,
        _f: F,
    ) -> Result<(), RegistryError> {
        self.register_rust(name, platform, F::TARGET)
    }

    /// Registers a wrapped Rust function ([`crate::rust_target`], [`crate::ptr_target`]).
    pub fn register_rust(
        &self,
        name: &str,
        platform: Platform,
        target: RustTarget,
    ) -> Result<(), RegistryError> {
        self.insert(Registry::rust_entry(
            name,
            platform,
            target,
            Traits::NONE,
            Origin::Rust,
        )?)
    }

    /// Sets the [`Traits`] of the target registered as (`name`, `platform`),
    /// replacing what it had; modules bound afterwards see them.
    pub fn set_traits(
        &self,
        name: &str,
        platform: Platform,
        traits: Traits,
    ) -> Result<(), RegistryError> {
        let mut inner = self.write();
        match inner.targets.get_mut(&(name.to_string(), platform)) {
            Some(t) => {
                t.traits = traits;
                Ok(())
            }
            None => Err(RegistryError::NotRegistered {
                name: name.to_string(),
                platform,
            }),
        }
    }

    /// Registers a C function with its declared `api_version`.
    ///
    /// # Safety
    /// `func` is a function with the C parameter list of (`platform`, `api_version`),
    /// valid as long as the registry.
    pub unsafe fn register_c(
        &self,
        name: &str,
        platform: Platform,
        api_version: CustomCallApiVersion,
        func: *const c_void,
    ) -> Result<(), RegistryError> {
        let t = unsafe { c_entry(name, platform, api_version, func, Origin::C, None)? };
        self.insert(t)
    }

    /// Registers a C function without a declared convention: each custom
    /// call calls it with the convention of its own `api_version`, as XLA's
    /// legacy registry does (JAX's `register_ffi_target(..., api_version=0)`).
    ///
    /// # Safety
    /// `func` has the C parameter list of every custom call that names it,
    /// and is valid as long as the registry.
    pub unsafe fn register_c_untyped(
        &self,
        name: &str,
        platform: Platform,
        func: *const c_void,
    ) -> Result<(), RegistryError> {
        if func.is_null() {
            return Err(RegistryError::Invalid {
                name: name.into(),
                message: "the function pointer is null".into(),
            });
        }
        self.insert(Target {
            name: name.to_string(),
            platform,
            signature: None,
            func: TargetFn::Untyped(func as usize),
            identity: Identity::Addr(func as usize),
            origin: Origin::C,
            catches_panics: false,
            traits: Traits::NONE,
            library: None,
        })
    }

    /// Loads a shared library. If it exports `hlox_register_custom_call_targets`,
    /// that function registers its targets (all or nothing: on any rejected
    /// registration nothing from the library is kept). Otherwise its targets are
    /// found later by symbol name ([`Registry::lookup`]) or bound to names
    /// ([`Registry::bind_symbol`]).
    ///
    /// A library that calls XLA's status functions or `XLA_FFI_GetApi` in
    /// the loading program is refused before it is loaded when this program
    /// does not export them ([`PluginError::ProcessSymbols`], with the
    /// linker flags that fix it) instead of killing the process at its
    /// first call.
    pub fn load_library(&self, path: impl AsRef<Path>) -> Result<Arc<LoadedLibrary>, PluginError> {
        self.load_library_with(path.as_ref(), &crate::elf::process_exports)
    }

    /// [`Registry::load_library`] with `process_has` saying which symbols
    /// the program exports (tests stand in for a program without them).
    pub(crate) fn load_library_with(
        &self,
        path: &Path,
        process_has: &dyn Fn(&str) -> bool,
    ) -> Result<Arc<LoadedLibrary>, PluginError> {
        let path = dlopen_path(path);
        if !path.exists() {
            return Err(PluginError::Open {
                path,
                message: "no such file".into(),
            });
        }
        let info = crate::elf::read(&path).unwrap_or_default();
        let (unresolved, _deps) = crate::elf::unresolved_imports(&info, process_has);
        if !unresolved.is_empty() {
            return Err(PluginError::ProcessSymbols {
                path,
                symbols: unresolved,
            });
        }
        // SAFETY: loading a library runs its initialisers; that is what a plugin is for.
        // Handlers its initialisers register through XLA_FFI_GetApi() are captured.
        let (lib, captured) = crate::xla_ffi::api::capture_registrations(|| unsafe {
            libloading::Library::new(&path)
        });
        let ffi_regs = replay_ffi_registrations(&path, captured.handlers);
        if lib.is_ok() && (!ffi_regs.is_empty() || captured.types) {
            // Handlers and types registered through XLA_FFI_GetApi() live in
            // process-wide tables (and a handler's detached work may still
            // run its code): such a library stays loaded for good, as
            // XLA's plugins do. A second handle, never closed, keeps it.
            // SAFETY: the library is already loaded; this runs nothing.
            if let Ok(pin) = unsafe { libloading::Library::new(&path) } {
                std::mem::forget(pin);
            }
        }
        let lib = lib.map_err(|e| PluginError::Open {
            path: path.clone(),
            // libloading's Display is only "dlopen failed": the reason
            // (dlerror's text) is its source.
            message: match std::error::Error::source(&e) {
                Some(why) => format!("{e}: {why}"),
                None => e.to_string(),
            },
        })?;
        let register: Option<RegisterTargetsFn> = unsafe {
            lib.get::<RegisterTargetsFn>(REGISTER_SYMBOL)
                .ok()
                .map(|s| *s)
        };
        let loaded = Arc::new(LoadedLibrary {
            path: path.clone(),
            lib,
            registration: register.is_some(),
            exports: info.exports,
        });
        if !ffi_regs.is_empty() {
            self.add_ffi_registrations(&path, &ffi_regs, Some(loaded.clone()))?;
        }
        let Some(register) = register else {
            self.write().libraries.push(loaded.clone());
            return Ok(loaded);
        };

        // SAFETY: the plugin's entry point, with the documented signature.
        unsafe { self.run_registration(&path, register, Some(loaded.clone())) }?;
        self.write().libraries.push(loaded.clone());
        Ok(loaded)
    }

    /// Runs a plugin registration function that is already in the process
    /// (a plugin linked statically, or one loaded by other means) as
    /// [`Registry::load_library`] would: every registration or none.
    /// `name` stands for the plugin in origins and errors.
    ///
    /// # Safety
    /// `register` follows the `hlox_register_custom_call_targets` contract
    /// of `hlox/custom_call.h`, and every function it registers stays valid
    /// as long as the registry.
    pub unsafe fn register_plugin(
        &self,
        name: impl AsRef<Path>,
        register: RegisterTargetsFn,
    ) -> Result<(), PluginError> {
        unsafe { self.run_registration(name.as_ref(), register, None) }
    }

    unsafe fn run_registration(
        &self,
        path: &Path,
        register: RegisterTargetsFn,
        library: Option<Arc<LoadedLibrary>>,
    ) -> Result<(), PluginError> {
        let path = path.to_path_buf();
        let mut ctx = RegistrationCtx {
            path: path.clone(),
            library,
            pending: Vec::new(),
            rules: Vec::new(),
            problems: Vec::new(),
        };
        let registrar = HloxCustomCallRegistrar {
            ctx: &mut ctx as *mut RegistrationCtx as *mut c_void,
            register_target: register_target_callback,
            set_traits: set_traits_callback,
            register_rules: register_rules_callback,
        };
        // SAFETY: the caller's contract; the plugin sees a static registrar
        // that forwards here only while `register` runs (see plugin.rs).
        let code = unsafe { crate::plugin::call_with_registrar(register, &registrar) };
        let RegistrationCtx {
            pending,
            rules,
            mut problems,
            ..
        } = ctx;
        let mut inner = self.write();
        let batch = Registry::check_batch(&inner.targets, pending, &mut problems);
        if !problems.is_empty() {
            return Err(PluginError::Registration {
                path,
                symbol: REGISTER_SYMBOL,
                problems,
            });
        }
        if code != 0 {
            return Err(PluginError::Failed {
                path,
                symbol: REGISTER_SYMBOL,
                code,
            });
        }
        inner.targets.extend(batch);
        inner.rules.extend(rules);
        Ok(())
    }

    /// The transformation rules plugins registered (`register_rules` of the
    /// registrar), in registration order: each an HLO module whose
    /// computations named `jvp.TARGET`, `vjp.TARGET` or `vmap.TARGET` are
    /// rules (hlox-transform's `Rules::from_module` reads them).
    pub fn rule_modules(&self) -> Vec<RuleModule> {
        self.read().rules.clone()
    }

    /// Adds handlers a plugin registered through `XLA_FFI_Handler_Register`:
    /// all of them or, on any problem, none.
    fn add_ffi_registrations(
        &self,
        path: &Path,
        regs: &[crate::xla_ffi::FfiRegistration],
        library: Option<Arc<LoadedLibrary>>,
    ) -> Result<(), PluginError> {
        let mut problems = Vec::new();
        let mut pending = Vec::new();
        for r in regs {
            match ffi_entry(r, Origin::XlaFfi(Some(path.to_path_buf())), library.clone()) {
                Ok(t) => pending.push(t),
                Err(e) => problems.push(e.to_string()),
            }
        }
        let mut inner = self.write();
        let batch = Registry::check_batch(&inner.targets, pending, &mut problems);
        if !problems.is_empty() {
            return Err(PluginError::Registration {
                path: path.to_path_buf(),
                symbol: "XLA_FFI_Handler_Register",
                problems,
            });
        }
        inner.targets.extend(batch);
        Ok(())
    }

    /// The libraries loaded so far.
    pub fn libraries(&self) -> Vec<Arc<LoadedLibrary>> {
        self.read().libraries.clone()
    }

    /// Binds the target name `name` on `platform` to the function `symbol`
    /// that a loaded library exports (the first library, in load order,
    /// where `dlsym` finds it), as JAX's
    /// `register_ffi_target(name, pycapsule(lib.symbol))` does. With
    /// `api_version` the function is registered with that convention (a
    /// typed-FFI one is asked for its metadata now); without it the binding
    /// follows the rule of targets found by symbol name: each custom call's
    /// `api_version` is trusted, and a typed-FFI call asks the handler for
    /// its metadata when the module is bound. Binding a name again to the
    /// same function is a no-op; to another one, an error.
    ///
    /// # Safety
    /// The symbol is a function with the C parameter list of the
    /// `api_version` it is registered or called with (as for
    /// [`Registry::register_c`]); the library stays loaded as long as the
    /// target (the target holds it).
    pub unsafe fn bind_symbol(
        &self,
        name: &str,
        platform: Platform,
        symbol: &str,
        api_version: Option<CustomCallApiVersion>,
    ) -> Result<Target, SymbolBindError> {
        let libraries = self.libraries();
        if libraries.is_empty() {
            return Err(SymbolBindError::NoLibrary {
                name: name.to_string(),
                symbol: symbol.to_string(),
            });
        }
        let found = libraries.iter().find_map(|lib| {
            if symbol.is_empty() || symbol.contains('\0') {
                return None;
            }
            // SAFETY: only the address is read here.
            let sym = unsafe { lib.lib.get::<*mut c_void>(symbol.as_bytes()) }.ok()?;
            let addr = *sym;
            (!addr.is_null()).then(|| (lib.clone(), addr))
        });
        let Some((lib, addr)) = found else {
            let exports: Vec<String> = libraries
                .iter()
                .flat_map(|l| l.exports.iter().cloned())
                .collect();
            return Err(SymbolBindError::NotFound {
                name: name.to_string(),
                symbol: symbol.to_string(),
                libraries: libraries.iter().map(|l| l.path.clone()).collect(),
                closest: crate::elf::closest_symbols(symbol, &exports, 3),
            });
        };
        let origin = Origin::Bound {
            symbol: symbol.to_string(),
            library: lib.path.clone(),
        };
        let t = match api_version {
            // SAFETY: the caller's contract.
            Some(api) => unsafe { c_entry(name, platform, api, addr, origin, Some(lib))? },
            None => Target {
                name: name.to_string(),
                platform,
                signature: None,
                func: TargetFn::Untyped(addr as usize),
                identity: Identity::Addr(addr as usize),
                origin,
                catches_panics: false,
                traits: Traits::NONE,
                library: Some(lib),
            },
        };
        self.insert(t.clone())?;
        Ok(t)
    }

    /// The target registered as (`name`, `platform`); failing that, a symbol
    /// `name` exported by a library loaded without a registration function
    /// (untyped: trusted to match the custom call's `api_version`).
    pub fn lookup(&self, name: &str, platform: Platform) -> Option<Target> {
        let inner = self.read();
        if let Some(t) = inner.targets.get(&(name.to_string(), platform)) {
            return Some(t.clone());
        }
        if name.is_empty() || name.contains('\0') {
            return None;
        }
        if self.process_ffi {
            let regs = crate::xla_ffi::process_registrations();
            if let Some(r) = regs
                .iter()
                .rev()
                .find(|r| r.name == name && r.platform == Some(platform))
            {
                if let Ok(t) = ffi_entry(r, Origin::XlaFfi(None), None) {
                    return Some(t);
                }
            }
        }
        for lib in inner.libraries.iter().filter(|l| !l.registration) {
            // SAFETY: only the address is read; it is called with the custom call's convention.
            let sym = unsafe { lib.lib.get::<*mut c_void>(name) };
            if let Ok(sym) = sym {
                let addr = *sym as usize;
                if addr != 0 {
                    return Some(Target {
                        name: name.to_string(),
                        platform,
                        signature: None,
                        func: TargetFn::Untyped(addr),
                        identity: Identity::Addr(addr),
                        origin: Origin::Symbol(lib.path.clone()),
                        catches_panics: false,
                        traits: Traits::NONE,
                        library: Some(lib.clone()),
                    });
                }
            }
        }
        None
    }

    /// Names registered for `platform`, sorted.
    pub fn names(&self, platform: Platform) -> Vec<String> {
        self.read()
            .targets
            .keys()
            .filter(|(_, p)| *p == platform)
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// Resolves every `custom_call_target` of `module` for `platform`,
    /// checking each call's `api_version` against the function's signature.
    /// Reports every problem, not just the first.
    pub fn bind(&self, module: &Module, platform: Platform) -> Result<BoundTargets, BindError> {
        let mut problems = Vec::new();
        let mut targets: BTreeMap<String, Target> = BTreeMap::new();
        for comp in module.computations.values() {
            for inst in comp.instructions.values() {
                let Op::CustomCall(call) = &inst.op else {
                    continue;
                };
                let instruction = inst.name.clone();
                let target = call.target.clone();
                if call.api_version == CustomCallApiVersion::TypedFfi {
                    if let Err(e) = crate::xla_ffi::parse_attrs(&call.opaque) {
                        problems.push(BindProblem::Attributes {
                            instruction,
                            target,
                            message: e.to_string(),
                        });
                        continue;
                    }
                }
                if let Some(msg) = self
                    .read()
                    .static_conflicts
                    .get(&(target.clone(), platform))
                {
                    problems.push(BindProblem::Conflict {
                        instruction,
                        target,
                        message: msg.clone(),
                    });
                    continue;
                }
                let found = match targets.get(&target) {
                    Some(t) => Some(t.clone()),
                    None => self.lookup(&target, platform),
                };
                let Some(t) = found else {
                    problems.push(self.missing(instruction, target, platform));
                    continue;
                };
                if let Some(sig) = t.signature {
                    if !sig.accepts(call.api_version) {
                        problems.push(BindProblem::ApiMismatch {
                            instruction,
                            target,
                            registered: sig.api_version,
                            requested: call.api_version,
                        });
                        continue;
                    }
                }
                let mut t = t;
                if call.api_version == CustomCallApiVersion::TypedFfi
                    && !targets.contains_key(&target)
                {
                    if let Err(e) = resolve_ffi(&mut t, platform) {
                        problems.push(BindProblem::Handler {
                            instruction,
                            target,
                            message: e.to_string(),
                        });
                        continue;
                    }
                }
                if !targets.contains_key(&target) {
                    tracing::debug!(
                        target: "hlox_ffi",
                        target_name = %target,
                        platform = %platform,
                        api_version = call.api_version.name(),
                        address = format_args!("{:#x}", t.func.addr()),
                        origin = ?t.origin,
                        instruction = %instruction,
                        "bound custom-call target"
                    );
                }
                targets.insert(target, t);
            }
        }
        if problems.is_empty() {
            Ok(BoundTargets { platform, targets })
        } else {
            Err(BindError {
                module: module.name.clone(),
                platform,
                problems,
            })
        }
    }

    fn missing(&self, instruction: String, target: String, platform: Platform) -> BindProblem {
        let inner = self.read();
        let names: Vec<&str> = inner
            .targets
            .keys()
            .filter(|(_, p)| *p == platform)
            .map(|(n, _)| n.as_str())
            .collect();
        let suggestions = closest_names(&target, &names);
        let other = match platform {
            Platform::Host => Platform::Cuda,
            Platform::Cuda => Platform::Host,
        };
        let other_platform = inner
            .targets
            .contains_key(&(target.clone(), other))
            .then_some(other);
        let searched = inner
            .libraries
            .iter()
            .filter(|l| !l.registration)
            .map(|l| l.path.clone())
            .collect();
        // A function registered under its own name is suggested above
        // already; the registration function is no target.
        let symbols = inner
            .libraries
            .iter()
            .map(|l| {
                let unregistered: Vec<String> = l
                    .exports
                    .iter()
                    .filter(|e| !names.contains(&e.as_str()) && e.as_str() != REGISTER_SYMBOL)
                    .cloned()
                    .collect();
                (
                    l.path.clone(),
                    crate::elf::closest_symbols(&target, &unregistered, 3),
                )
            })
            .filter(|(_, names)| !names.is_empty())
            .collect();
        BindProblem::Missing {
            instruction,
            target,
            platform,
            suggestions,
            other_platform,
            searched,
            symbols,
        }
    }
}

/// Handlers a library's initialisers registered the first time it was
/// loaded in this process. Loading it again (into another registry) runs no
/// initialisers, so its first registrations are replayed.
fn replay_ffi_registrations(
    path: &Path,
    got: Vec<crate::xla_ffi::FfiRegistration>,
) -> Vec<crate::xla_ffi::FfiRegistration> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static SEEN: Mutex<Option<HashMap<PathBuf, Vec<crate::xla_ffi::FfiRegistration>>>> =
        Mutex::new(None);
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let map = seen.get_or_insert_with(HashMap::new);
    if got.is_empty() {
        return map.get(&key).cloned().unwrap_or_default();
    }
    map.insert(key, got.clone());
    got
}

/// The registry entry of a handler registered through `XLA_FFI_Handler_Register`.
fn ffi_entry(
    r: &crate::xla_ffi::FfiRegistration,
    origin: Origin,
    library: Option<Arc<LoadedLibrary>>,
) -> Result<Target, FfiHandlerError> {
    let name = &r.name;
    let platform = r.platform.ok_or_else(|| FfiHandlerError::UnknownPlatform {
        name: name.clone(),
        platform: r.platform_name.clone(),
    })?;
    let h = r.handlers.execute;
    let md = crate::xla_ffi::handler_metadata(h).map_err(|source| FfiHandlerError::Metadata {
        name: name.clone(),
        source,
    })?;
    let mut traits = Traits::NONE;
    if (md.traits | r.traits) & crate::xla_ffi::abi::TRAIT_COMMAND_BUFFER_COMPATIBLE != 0 {
        traits = Traits::GRAPH_COMPATIBLE;
    }
    Ok(Target {
        name: name.clone(),
        platform,
        signature: Some(Signature {
            platform,
            api_version: CustomCallApiVersion::TypedFfi,
        }),
        func: TargetFn::Ffi(r.handlers),
        identity: Identity::Addr(h as usize),
        origin,
        catches_panics: false,
        traits,
        library,
    })
}

/// Why a handler registered through `XLA_FFI_Handler_Register` is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum FfiHandlerError {
    #[error("handler \"{name}\" is registered for platform \"{platform}\"; hlox knows \"Host\" (\"cpu\") and \"CUDA\" (\"gpu\")")]
    UnknownPlatform { name: String, platform: String },
    #[error("handler \"{name}\": {source}")]
    Metadata {
        name: String,
        source: crate::xla_ffi::MetadataError,
    },
}

/// Why a symbol bound as a typed-FFI handler is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ResolveError {
    #[error("the symbol is null")]
    NullSymbol,
    #[error("internal: not a handler")]
    NotAHandler,
    #[error(transparent)]
    Metadata(#[from] crate::xla_ffi::MetadataError),
}

/// A typed-FFI target found by symbol name: typed as a handler, asked for
/// its metadata (API version, traits) as XLA asks at registration.
fn resolve_ffi(t: &mut Target, platform: Platform) -> Result<(), ResolveError> {
    if let TargetFn::Untyped(_) = t.func {
        t.func = t
            .func
            .for_call(platform, CustomCallApiVersion::TypedFfi)
            .ok_or(ResolveError::NullSymbol)?;
        let TargetFn::Ffi(h) = t.func else {
            return Err(ResolveError::NotAHandler);
        };
        let md = crate::xla_ffi::handler_metadata(h.execute)?;
        if md.traits & crate::xla_ffi::abi::TRAIT_COMMAND_BUFFER_COMPATIBLE != 0 {
            t.traits = t.traits | Traits::GRAPH_COMPATIBLE;
        }
        t.signature = Some(Signature {
            platform,
            api_version: CustomCallApiVersion::TypedFfi,
        });
    }
    Ok(())
}

/// Up to three registered names closest to `name` (Levenshtein distance,
/// at most a third of the name's length, at least 2).
pub fn closest_names(name: &str, names: &[&str]) -> Vec<String> {
    let limit = (name.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = names
        .iter()
        .map(|n| {
            let d = if n.eq_ignore_ascii_case(name) {
                0
            } else {
                levenshtein(name, n)
            };
            (d, *n)
        })
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(3)
        .map(|(_, n)| n.to_string())
        .collect()
}

pub(crate) fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

unsafe fn c_entry(
    name: &str,
    platform: Platform,
    api_version: CustomCallApiVersion,
    func: *const c_void,
    origin: Origin,
    library: Option<Arc<LoadedLibrary>>,
) -> Result<Target, RegistryError> {
    let sig = Signature {
        platform,
        api_version,
    };
    let recorded = match (platform, api_version) {
        // On CUDA both status-returning versions share one parameter list.
        (Platform::Cuda, CustomCallApiVersion::StatusReturningUnified) => {
            Signature::CUDA_STATUS_RETURNING
        }
        _ => sig,
    };
    if func.is_null() {
        return Err(RegistryError::Invalid {
            name: name.into(),
            message: "the function pointer is null".into(),
        });
    }
    let Some(f) = (unsafe { TargetFn::from_raw(func, sig) }) else {
        return Err(RegistryError::Invalid {
            name: name.into(),
            message: format!("{} has no C calling convention in hlox", api_version.name()),
        });
    };
    let mut traits = Traits::NONE;
    if let TargetFn::Ffi(h) = f {
        let md =
            crate::xla_ffi::handler_metadata(h.execute).map_err(|e| RegistryError::Invalid {
                name: name.into(),
                message: e.to_string(),
            })?;
        if md.traits & crate::xla_ffi::abi::TRAIT_COMMAND_BUFFER_COMPATIBLE != 0 {
            traits = Traits::GRAPH_COMPATIBLE;
        }
    }
    Ok(Target {
        name: name.to_string(),
        platform,
        signature: Some(recorded),
        func: f,
        identity: Identity::Addr(func as usize),
        origin,
        catches_panics: false,
        traits,
        library,
    })
}

struct RegistrationCtx {
    path: PathBuf,
    library: Option<Arc<LoadedLibrary>>,
    pending: Vec<Target>,
    rules: Vec<RuleModule>,
    problems: Vec<String>,
}

/// Transformation rules a plugin registered: an HLO module, already parsed
/// and verified, and the plugin that gave it.
#[derive(Clone, Debug)]
pub struct RuleModule {
    pub origin: PathBuf,
    pub module: Arc<hlox_hlo::Module>,
}

/// What a plugin passed to the registrar's callbacks that they refuse.
#[derive(Debug, thiserror::Error)]
enum RegistrarError {
    #[error("{what} is null")]
    Null { what: &'static str },
    #[error("{what} is not UTF-8")]
    NotUtf8 { what: &'static str },
    #[error("unknown platform \"{platform}\" (use \"Host\" or \"CUDA\")")]
    UnknownPlatform { platform: String },
    #[error(transparent)]
    ApiVersion(#[from] crate::platform::ApiVersionError),
    /// The target is refused (an invalid one says just why).
    #[error("{}", match .0 { RegistryError::Invalid { message, .. } => message.clone(), other => other.to_string() })]
    Target(RegistryError),
    #[error(
        "set_traits for \"{name}\": unknown platform \"{platform}\" (use \"Host\" or \"CUDA\")"
    )]
    TraitsPlatform { name: String, platform: String },
    /// Target `name` is refused for `source`.
    #[error("target \"{name}\": {source}")]
    InTarget {
        name: String,
        source: Box<RegistrarError>,
    },
    #[error("rules: {0}")]
    RulesText(Box<RegistrarError>),
    #[error("rules module: {0}")]
    RulesParse(hlox_hlo::text::ParseError),
    #[error("rules module `{module}`: {error}")]
    RulesVerify {
        module: String,
        error: hlox_hlo::verifier::VerifyError,
    },
    #[error(
        "rules module `{module}` has no computation named jvp.TARGET, vjp.TARGET or vmap.TARGET"
    )]
    NoRules { module: String },
    #[error("set_traits for \"{name}\": unknown trait bits {bits:#x} (known: HLOX_TRAIT_GRAPH_COMPATIBLE = 1)")]
    TraitBits { name: String, bits: c_uint },
    #[error("set_traits for \"{name}\" on {platform}: the plugin has not registered that target (call register_target first)")]
    TraitsUnregistered { name: String, platform: Platform },
}

fn c_str(p: *const c_char, what: &'static str) -> Result<String, RegistrarError> {
    if p.is_null() {
        return Err(RegistrarError::Null { what });
    }
    // SAFETY: the plugin passes NUL-terminated strings (header contract).
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str()
        .map(str::to_string)
        .map_err(|_| RegistrarError::NotUtf8 { what })
}

/// The frame of every registrar callback: the context back from the
/// plugin's `void*`, the body run with panics caught (a panic or a null
/// context is -1, never an unwind into C), and a refusal recorded as one of
/// the registration's problems (1).
unsafe fn registrar_callback(
    ctx: *mut c_void,
    body: impl FnOnce(&mut RegistrationCtx) -> Result<(), RegistrarError>,
) -> c_int {
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: ctx is the RegistrationCtx that run_registration passed.
        let Some(ctx) = (unsafe { (ctx as *mut RegistrationCtx).as_mut() }) else {
            return -1;
        };
        match body(ctx) {
            Ok(()) => 0,
            Err(e) => {
                ctx.problems.push(e.to_string());
                1
            }
        }
    }));
    res.unwrap_or(-1)
}

unsafe extern "C" fn register_target_callback(
    ctx: *mut c_void,
    name: *const c_char,
    platform: *const c_char,
    api_version: c_int,
    fn_ptr: *mut c_void,
) -> c_int {
    registrar_callback(ctx, |ctx| {
        let name = c_str(name, "target name")?;
        let target = (|| {
            let pname = c_str(platform, "platform")?;
            let platform = Platform::parse(&pname)
                .ok_or(RegistrarError::UnknownPlatform { platform: pname })?;
            let api = api_version_from_c(api_version)?;
            let origin = Origin::Plugin(ctx.path.clone());
            unsafe { c_entry(&name, platform, api, fn_ptr, origin, ctx.library.clone()) }
                .map_err(RegistrarError::Target)
        })()
        .map_err(|source| RegistrarError::InTarget {
            name: name.clone(),
            source: Box::new(source),
        })?;
        ctx.pending.push(target);
        Ok(())
    })
}

/// `register_rules` of the registrar: parses and verifies an HLO module of
/// transformation rules. A module that does not parse or verify, or that
/// holds no computation named `jvp.`, `vjp.` or `vmap.` + a target, is a
/// rejected registration (the loader reports why, with line and column).
unsafe extern "C" fn register_rules_callback(ctx: *mut c_void, hlo_text: *const c_char) -> c_int {
    registrar_callback(ctx, |ctx| {
        let text =
            c_str(hlo_text, "rules text").map_err(|e| RegistrarError::RulesText(Box::new(e)))?;
        let module = hlox_hlo::text::parse_module(&text).map_err(RegistrarError::RulesParse)?;
        if let Err(error) = hlox_hlo::verifier::verify_module(&module) {
            return Err(RegistrarError::RulesVerify {
                module: module.name,
                error,
            });
        }
        let is_rule = |n: &str| {
            ["jvp.", "vjp.", "vmap."]
                .iter()
                .any(|p| n.strip_prefix(p).is_some_and(|t| !t.is_empty()))
        };
        if !module.computations.values().any(|c| is_rule(&c.name)) {
            return Err(RegistrarError::NoRules {
                module: module.name,
            });
        }
        ctx.rules.push(RuleModule {
            origin: ctx.path.clone(),
            module: Arc::new(module),
        });
        Ok(())
    })
}

/// `set_traits` of the registrar: sets the traits of a target this plugin
/// registered earlier in the same registration.
unsafe extern "C" fn set_traits_callback(
    ctx: *mut c_void,
    name: *const c_char,
    platform: *const c_char,
    traits: c_uint,
) -> c_int {
    registrar_callback(ctx, |ctx| {
        let name = c_str(name, "target name")?;
        let pname = c_str(platform, "platform")?;
        let Some(platform) = Platform::parse(&pname) else {
            return Err(RegistrarError::TraitsPlatform {
                name,
                platform: pname,
            });
        };
        let Some(t) = Traits::from_bits(traits) else {
            return Err(RegistrarError::TraitBits { name, bits: traits });
        };
        let Some(target) = ctx
            .pending
            .iter_mut()
            .find(|p| p.name == name && p.platform == platform)
        else {
            return Err(RegistrarError::TraitsUnregistered { name, platform });
        };
        target.traits = t;
        Ok(())
    })
}

/// The targets a module uses, resolved for one platform. Holds the plugin
/// libraries they came from.
#[derive(Clone, Debug)]
pub struct BoundTargets {
    platform: Platform,
    targets: BTreeMap<String, Target>,
}

impl BoundTargets {
    pub fn platform(&self) -> Platform {
        self.platform
    }
    pub fn get(&self, name: &str) -> Option<&Target> {
        self.targets.get(name)
    }
    pub fn len(&self) -> usize {
        self.targets.len()
    }
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Target)> {
        self.targets.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// One problem found by [`Registry::bind`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindProblem {
    Missing {
        instruction: String,
        target: String,
        platform: Platform,
        suggestions: Vec<String>,
        /// Set when the name is registered for the other platform.
        other_platform: Option<Platform>,
        /// Libraries searched by symbol name.
        searched: Vec<PathBuf>,
        /// Per loaded library, its exported functions closest to the name
        /// (bind one with [`Registry::bind_symbol`], `--target NAME=SYMBOL`).
        symbols: Vec<(PathBuf, Vec<String>)>,
    },
    ApiMismatch {
        instruction: String,
        target: String,
        registered: CustomCallApiVersion,
        requested: CustomCallApiVersion,
    },
    Conflict {
        instruction: String,
        target: String,
        message: String,
    },
    /// A typed-FFI call's `backend_config` is not an attribute dictionary.
    Attributes {
        instruction: String,
        target: String,
        message: String,
    },
    /// A typed-FFI handler failed its metadata query or was built for a
    /// newer FFI API.
    Handler {
        instruction: String,
        target: String,
        message: String,
    },
}

impl fmt::Display for BindProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindProblem::Missing { instruction, target, platform, suggestions, other_platform, searched, symbols } => {
                write!(f, "instruction {instruction}: custom-call target \"{target}\" is not registered for platform {platform}")?;
                if let Some(o) = other_platform {
                    write!(f, " (it is registered for {o})")?;
                }
                if !searched.is_empty() {
                    let libs: Vec<String> = searched.iter().map(|p| p.display().to_string()).collect();
                    write!(f, " and no loaded library exports a symbol of that name (searched {})", libs.join(", "))?;
                }
                if !suggestions.is_empty() {
                    let s: Vec<String> = suggestions.iter().map(|s| format!("\"{s}\"")).collect();
                    write!(f, " (did you mean {}?)", s.join(" or "))?;
                }
                for (lib, names) in symbols {
                    let file = lib.file_name().map_or_else(|| lib.display().to_string(), |f| f.to_string_lossy().into_owned());
                    let s: Vec<String> = names.iter().map(|s| format!("\"{s}\"")).collect();
                    write!(f, "; plugin {file} exports {}", s.join(", "))?;
                }
                let python = front() == Front::Python;
                if let Some((lib, names)) = symbols.first() {
                    let one = if symbols.len() == 1 && names.len() == 1 { "it" } else { "one" };
                    return if python {
                        write!(
                            f,
                            ": bind {one} to this name with hlox.register_ffi_target(\"{target}\", \
                             ctypes.CDLL(\"{}\").{}, api_version=...) (4 for a typed-FFI handler, \
                             0 for a function of XLA's older conventions: the call's api_version decides)",
                            lib.display(),
                            names[0]
                        )
                    } else {
                        write!(f, ": bind {one} to this name with --target {target}={}", names[0])
                    };
                }
                if python {
                    write!(
                        f,
                        "; register it with hlox.register_ffi_target(\"{target}\", ...) or \
                         @hlox.custom_call_target(\"{target}\"), or load the library that defines it with \
                         hlox.load_plugin(PATH) or hlox.compile(..., plugins=[PATH])"
                    )
                } else {
                    write!(
                        f,
                        "; register it with register_custom_call_target!(..., \"{platform}\") or load the library \
                         that defines it with --plugin PATH"
                    )
                }
            }
            BindProblem::ApiMismatch { instruction, target, registered, requested } => write!(
                f,
                "instruction {instruction}: target \"{target}\" is registered as {} but the custom call asks for {}",
                registered.name(),
                requested.name()
            ),
            BindProblem::Attributes { instruction, target, message } => write!(
                f,
                "instruction {instruction}: custom call to \"{target}\": {message}"
            ),
            BindProblem::Handler { instruction, target, message } => write!(
                f,
                "instruction {instruction}: typed-FFI handler \"{target}\" cannot be used: {message}"
            ),
            BindProblem::Conflict { instruction, target, message } => {
                write!(f, "instruction {instruction}: custom-call target \"{target}\" cannot be used: {message}")
            }
        }
    }
}

/// Every problem binding a module's custom calls.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct BindError {
    pub module: String,
    pub platform: Platform,
    pub problems: Vec<BindProblem>,
}

impl fmt::Display for BindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "module {}: {} custom-call problem(s) for platform {}:",
            self.module,
            self.problems.len(),
            self.platform
        )?;
        for p in &self.problems {
            write!(f, "\n  - {p}")?;
        }
        Ok(())
    }
}

/// The path to hand `dlopen` for a plugin file `path`: a bare file name
/// (`libtargets.so`) made `./libtargets.so`. `dlopen` searches the library
/// path for a name without a slash, so a plugin in the working directory
/// was "not found" although it was there.
fn dlopen_path(path: &Path) -> std::path::PathBuf {
    if path.is_relative() && path.components().count() == 1 {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_cc::c_library;

    #[test]
    fn a_bare_plugin_file_name_is_opened_in_the_working_directory() {
        assert_eq!(dlopen_path(Path::new("libt.so")), Path::new("./libt.so"));
        assert_eq!(dlopen_path(Path::new("d/libt.so")), Path::new("d/libt.so"));
        assert_eq!(
            dlopen_path(Path::new("/x/libt.so")),
            Path::new("/x/libt.so")
        );
        assert_eq!(dlopen_path(Path::new("./libt.so")), Path::new("./libt.so"));
    }

    /// A fresh directory for this test's files.
    fn scratch(test: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hlox-ffi-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A plugin of plain C symbols (no registration function) that calls
    /// XLA's two status functions in the loading program, built once per
    /// test into `dir`: `libsyms.so`.
    fn sym_plugin(test: &str) -> PathBuf {
        c_library(
            &scratch(test),
            "syms",
            "#include <stddef.h>\n\
             typedef struct XlaCustomCallStatus_ XlaCustomCallStatus;\n\
             void XlaCustomCallStatusSetSuccess(XlaCustomCallStatus*);\n\
             void XlaCustomCallStatusSetFailure(XlaCustomCallStatus*, const char*, size_t);\n\
             void do_custom_call(void* out, const void** in) { *(float*)out = *(const float*)in[0]; }\n\
             void inplace_add_one(void* out, const void** in, XlaCustomCallStatus* s) { (void)out; (void)in; XlaCustomCallStatusSetSuccess(s); }\n\
             void always_fails(void* out, const void** in, XlaCustomCallStatus* s) { (void)out; (void)in; XlaCustomCallStatusSetFailure(s, \"no\", 2); }\n",
            &[],
        )
    }

    #[test]
    fn a_plugin_needing_status_functions_the_program_lacks_is_refused_before_loading() {
        // targets/c calls XlaCustomCallStatusSetSuccess/Failure in the
        // loading program. A program that does not export them (built
        // without .cargo/config.toml's flags) stands in here.
        let plugin = sym_plugin("refused");
        let r = Registry::new();
        let e = r.load_library_with(&plugin, &|_| false).unwrap_err();
        let PluginError::ProcessSymbols { symbols, .. } = &e else {
            panic!("{e}");
        };
        assert_eq!(
            symbols,
            &[
                "XlaCustomCallStatusSetSuccess",
                "XlaCustomCallStatusSetFailure"
            ]
        );
        let msg = e.to_string();
        for part in [
            "calls XlaCustomCallStatusSetSuccess and XlaCustomCallStatusSetFailure from the program",
            "symbol lookup error",
            "-C link-arg=-Wl,--export-dynamic-symbol=XlaCustomCallStatusSetFailure",
            ".cargo/config.toml",
            "RTLD_GLOBAL",
        ] {
            assert!(msg.contains(part), "{part}: {msg}");
        }
        assert!(r.libraries().is_empty());
        // Only the missing one is named.
        let e = r
            .load_library_with(&plugin, &|s| s == "XlaCustomCallStatusSetSuccess")
            .unwrap_err();
        assert!(
            matches!(&e, PluginError::ProcessSymbols { symbols, .. } if symbols == &["XlaCustomCallStatusSetFailure"]),
            "{e}"
        );
        // This test binary is linked with the flags: the real check passes.
        assert!(crate::elf::process_exports("XlaCustomCallStatusSetFailure"));
        assert!(crate::elf::process_exports("XLA_FFI_GetApi"));
        assert!(!crate::elf::process_exports("hlox_no_program_exports_this"));
        r.load_library(&plugin).unwrap();
        assert_eq!(r.libraries().len(), 1);
    }

    #[test]
    fn status_functions_from_the_plugins_own_dependency_are_enough() {
        // libuser calls the status function; libprovider, a dependency found
        // through $ORIGIN, defines it. The program exporting nothing is then fine.
        let dir = scratch("deps");
        c_library(
            &dir,
            "provider",
            "typedef struct S S;\nvoid XlaCustomCallStatusSetFailure(S* s, const char* m, unsigned long n) { (void)s; (void)m; (void)n; }\n",
            &[],
        );
        // libNAME: a target SYMBOL that only calls the status function,
        // linked against libDEP (found through $ORIGIN).
        let failing_user = |name: &str, symbol: &str, dep: &str| {
            let src = format!(
                "typedef struct S S;\nvoid XlaCustomCallStatusSetFailure(S*, const char*, unsigned long);\n\
                 void {symbol}(void* out, const void** in, S* status) {{ (void)out; (void)in; XlaCustomCallStatusSetFailure(status, \"no\", 2); }}\n"
            );
            c_library(
                &dir,
                name,
                &src,
                &["-L.", &format!("-l{dep}"), "-Wl,-rpath,$ORIGIN"],
            )
        };
        let user = failing_user("user", "fails", "provider");
        let info = crate::elf::read(&user).unwrap();
        assert_eq!(info.imports, ["XlaCustomCallStatusSetFailure"]);
        assert!(
            info.needed.iter().any(|n| n == "libprovider.so"),
            "{info:?}"
        );
        assert_eq!(info.exports, ["fails"]);
        let r = Registry::new();
        r.load_library_with(&user, &|_| false).unwrap();
        // A dependency that does not define it does not count.
        c_library(
            &dir,
            "other",
            "int other_function(void) { return 1; }\n",
            &[],
        );
        let user2 = failing_user("user2", "fails2", "other");
        let e = r.load_library_with(&user2, &|_| false).unwrap_err();
        assert!(matches!(e, PluginError::ProcessSymbols { .. }), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn symbol_binding_specs_parse_or_say_the_form() {
        let b: SymbolBinding = "leaky_relu=LeakyReluFfi".parse().unwrap();
        assert_eq!(
            b,
            SymbolBinding {
                name: "leaky_relu".into(),
                symbol: "LeakyReluFfi".into(),
                api_version: None
            }
        );
        assert_eq!(b.to_string(), "leaky_relu=LeakyReluFfi");
        for (spec, api) in [
            ("a=b:1", CustomCallApiVersion::Original),
            ("a=b:2", CustomCallApiVersion::StatusReturning),
            ("a=b:3", CustomCallApiVersion::StatusReturningUnified),
            ("a=b:4", CustomCallApiVersion::TypedFfi),
            ("a=b:API_VERSION_TYPED_FFI", CustomCallApiVersion::TypedFfi),
            ("a=b:typed_ffi", CustomCallApiVersion::TypedFfi),
            (
                "a=b:status_returning",
                CustomCallApiVersion::StatusReturning,
            ),
        ] {
            let b: SymbolBinding = spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(b.api_version, Some(api), "{spec}");
        }
        assert_eq!(
            "a=b:4".parse::<SymbolBinding>().unwrap().to_string(),
            "a=b:4"
        );
        for (spec, problem) in [
            ("leaky_relu", "no '='"),
            ("=Sym", "the target name (before '=') is empty"),
            ("name=", "the symbol (after '=') is empty"),
            ("name=:4", "the symbol (after '=') is empty"),
            ("name=a b", "the symbol is not a C identifier"),
            ("name=Sym:0", "unknown api_version \"0\""),
            ("name=Sym:5", "unknown api_version \"5\""),
            ("name=Sym:typed", "unknown api_version \"typed\""),
        ] {
            let e = spec.parse::<SymbolBinding>().unwrap_err();
            let msg = e.to_string();
            assert!(msg.contains(problem), "{spec}: {msg}");
            assert!(
                msg.contains("the form is NAME=SYMBOL or NAME=SYMBOL:API"),
                "{msg}"
            );
        }
    }

    #[test]
    fn bind_symbol_names_a_plugin_function_and_says_what_went_wrong() {
        let r = Registry::new();
        let e =
            unsafe { r.bind_symbol("seed", Platform::Host, "do_custom_call", None) }.unwrap_err();
        assert!(matches!(e, SymbolBindError::NoLibrary { .. }), "{e}");
        assert!(e.to_string().contains("--plugin"), "{e}");
        let plugin = sym_plugin("bind_symbol");
        r.load_library(&plugin).unwrap();
        let t = unsafe { r.bind_symbol("seed", Platform::Host, "do_custom_call", None) }.unwrap();
        assert_eq!(
            t.origin,
            Origin::Bound {
                symbol: "do_custom_call".into(),
                library: plugin.clone()
            }
        );
        assert_eq!(t.signature, None);
        assert!(t.library().is_some());
        let found = r.lookup("seed", Platform::Host).unwrap();
        assert_eq!(found.func.addr(), t.func.addr());
        assert!(found
            .origin
            .to_string()
            .contains("symbol do_custom_call of"));
        // Again to the same function: fine. To another: the name is taken.
        unsafe { r.bind_symbol("seed", Platform::Host, "do_custom_call", None) }.unwrap();
        let e = unsafe { r.bind_symbol("seed", Platform::Host, "always_fails", None) }.unwrap_err();
        assert!(
            matches!(
                e,
                SymbolBindError::Registry(RegistryError::Duplicate { .. })
            ),
            "{e}"
        );
        // With an api_version the function is registered with that signature.
        let t = unsafe {
            r.bind_symbol(
                "seed_status",
                Platform::Host,
                "inplace_add_one",
                Some(CustomCallApiVersion::StatusReturning),
            )
        }
        .unwrap();
        assert_eq!(t.signature, Some(Signature::HOST_STATUS_RETURNING));
        // A symbol no library exports: the closest that are exported.
        let e = unsafe { r.bind_symbol("x", Platform::Host, "DoCustomCall", None) }.unwrap_err();
        let SymbolBindError::NotFound { closest, .. } = &e else {
            panic!("{e}");
        };
        assert_eq!(closest[0], "do_custom_call", "{e}");
        assert!(
            e.to_string()
                .contains("closest exported: \"do_custom_call\""),
            "{e}"
        );
    }

    #[test]
    fn a_missing_target_suggests_the_plugins_exported_symbols() {
        let r = Registry::new();
        r.load_library(sym_plugin("suggest")).unwrap();
        let m = hlox_hlo::text::parse_module(
            "HloModule m\n\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT cc = f32[4] custom-call(x), custom_call_target=\"InplaceAddOne\"\n}\n",
        )
        .unwrap();
        let e = r.bind(&m, Platform::Host).unwrap_err();
        let BindProblem::Missing { symbols, .. } = &e.problems[0] else {
            panic!("{e}");
        };
        assert_eq!(symbols[0].1, ["inplace_add_one"]);
        let msg = e.to_string();
        assert!(
            msg.contains("; plugin libsyms.so exports \"inplace_add_one\": bind it to this name with --target InplaceAddOne=inplace_add_one"),
            "{msg}"
        );
    }
}
