//! Typed-FFI targets backed by a run-time object (a closure, a Python
//! function) instead of a function item.
//!
//! A typed-FFI target is a C function pointer, and a call frame does not
//! say which target it was made for, so an object cannot be reached from
//! the frame alone. hlox keeps a fixed table of [`SLOTS`] trampolines, one
//! per slot, each reading its slot's handler. Registering a name takes a
//! free slot (or, for a name registered here before, the same slot, whose
//! handler is replaced: the registry entry, which points at the slot's
//! trampoline, stays valid). This is how the Python package registers
//! Python functions as targets (TVM's PackedFunc registry, seen from XLA's
//! side).

use crate::registry::{Registry, RegistryError};
use crate::target::{Identity, RustTarget, TargetFn};
use crate::xla_ffi::abi::{self, attr_type, CallFrame};
use crate::xla_ffi::{AttrValue, FfiError, FfiHandlers, Frame};
use crate::Platform;
use hlox_hlo::CustomCallApiVersion;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// How many run-time typed-FFI targets one process can hold.
pub const SLOTS: usize = 256;

/// A run-time typed-FFI handler: called for every execution of a custom
/// call bound to it, with the frame (buffers) and the call's attributes,
/// decoded.
pub trait DynamicHandler: Send + Sync + 'static {
    fn call(&self, frame: &mut Frame<'_>, attrs: &[(String, AttrValue)]) -> Result<(), FfiError>;
}

impl<F> DynamicHandler for F
where
    F: Fn(&mut Frame<'_>, &[(String, AttrValue)]) -> Result<(), FfiError> + Send + Sync + 'static,
{
    fn call(&self, frame: &mut Frame<'_>, attrs: &[(String, AttrValue)]) -> Result<(), FfiError> {
        self(frame, attrs)
    }
}

/// Why a run-time target could not be registered.
#[derive(Debug, thiserror::Error)]
pub enum DynamicError {
    #[error(
        "cannot register typed-FFI target \"{name}\": all {SLOTS} run-time target slots are taken \
         (re-register an existing name to replace its function instead)"
    )]
    NoFreeSlot { name: String },
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

type Slot = RwLock<Option<Arc<dyn DynamicHandler>>>;

fn slots() -> &'static [Slot] {
    static S: OnceLock<Vec<Slot>> = OnceLock::new();
    S.get_or_init(|| (0..SLOTS).map(|_| RwLock::new(None)).collect())
}

/// Which slot each (registry address, name, platform) holds, and the next
/// free slot.
#[derive(Default)]
struct Assignments {
    slots: HashMap<(usize, String, Platform), usize>,
    next: usize,
}

fn assigned() -> &'static Mutex<Assignments> {
    static A: OnceLock<Mutex<Assignments>> = OnceLock::new();
    A.get_or_init(|| Mutex::new(Assignments::default()))
}

/// Registers `handler` as the typed-FFI target `name` for `platform` in
/// `registry`. Registering a name again (through this function, in the same
/// registry) replaces its handler; modules compiled before call the new one.
pub fn register_dynamic(
    registry: &Registry,
    name: &str,
    platform: Platform,
    handler: Arc<dyn DynamicHandler>,
) -> Result<(), DynamicError> {
    let key = (
        registry as *const Registry as usize,
        name.to_string(),
        platform,
    );
    let mut a = assigned().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&slot) = a.slots.get(&key) {
        *slots()[slot].write().unwrap_or_else(|e| e.into_inner()) = Some(handler);
        return Ok(());
    }
    let slot = a.next;
    if slot >= SLOTS {
        return Err(DynamicError::NoFreeSlot { name: name.into() });
    }
    *slots()[slot].write().unwrap_or_else(|e| e.into_inner()) = Some(handler);
    let target = RustTarget {
        signature: crate::Signature {
            platform,
            api_version: CustomCallApiVersion::TypedFfi,
        },
        func: TargetFn::Ffi(FfiHandlers::execute_only(TRAMPOLINES[slot])),
        identity: IDENTITIES[slot],
        catches_panics: true,
    };
    if let Err(e) = registry.register_rust(name, platform, target) {
        *slots()[slot].write().unwrap_or_else(|e| e.into_inner()) = None;
        return Err(e.into());
    }
    a.slots.insert(key, slot);
    a.next += 1;
    Ok(())
}

unsafe extern "C" fn trampoline<const I: usize>(frame: *mut CallFrame) -> *mut abi::Error {
    unsafe {
        crate::xla_ffi::run_rust_handler(frame, |fr| {
            let handler = slots()[I]
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
                .ok_or_else(|| FfiError::msg("this run-time target has no handler"))?;
            // SAFETY: run_rust_handler only calls this for a non-null frame.
            let attrs = decode_attrs(&(*frame).attrs);
            handler.call(fr, &attrs)
        })
    }
}

fn identity<const I: usize>() -> Identity {
    Identity::Addr(trampoline::<I> as *const () as usize)
}

macro_rules! tables {
    ($($i:literal)*) => {
        static TRAMPOLINES: [abi::Handler; SLOTS] = [$(trampoline::<$i>),*];
        static IDENTITIES: [fn() -> Identity; SLOTS] = [$(identity::<$i>),*];
    };
}

// 256 slots.
tables!(
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
            64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
            96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127
            128 129 130 131 132 133 134 135 136 137 138 139 140 141 142 143 144 145 146 147 148 149 150 151 152 153 154 155 156 157 158 159
            160 161 162 163 164 165 166 167 168 169 170 171 172 173 174 175 176 177 178 179 180 181 182 183 184 185 186 187 188 189 190 191
            192 193 194 195 196 197 198 199 200 201 202 203 204 205 206 207 208 209 210 211 212 213 214 215 216 217 218 219 220 221 222 223
            224 225 226 227 228 229 230 231 232 233 234 235 236 237 238 239 240 241 242 243 244 245 246 247 248 249 250 251 252 253 254 255
);

/// Bytes of one element of FFI data type `dtype` (0 for unknown types).
fn dtype_size(dtype: i32) -> usize {
    use abi::dtype as d;
    match dtype {
        d::PRED | d::S8 | d::U8 => 1,
        d::S16 | d::U16 | d::F16 | d::BF16 => 2,
        d::S32 | d::U32 | d::F32 => 4,
        d::S64 | d::U64 | d::F64 => 8,
        _ => 0,
    }
}

/// # Safety
/// `n` readable bytes at `p` when `n > 0`.
unsafe fn bytes_at(p: *const c_void, n: usize) -> Vec<u8> {
    if n == 0 || p.is_null() {
        return Vec::new();
    }
    unsafe { std::slice::from_raw_parts(p as *const u8, n) }.to_vec()
}

/// A call frame's attributes (XLA's encoding) as values.
///
/// # Safety
/// `attrs` is a call frame's attribute table.
unsafe fn decode_attrs(attrs: &abi::Attrs) -> Vec<(String, AttrValue)> {
    if attrs.size <= 0 || attrs.names.is_null() || attrs.types.is_null() || attrs.attrs.is_null() {
        return Vec::new();
    }
    let n = attrs.size as usize;
    let (names, types, ptrs) = unsafe {
        (
            std::slice::from_raw_parts(attrs.names, n),
            std::slice::from_raw_parts(attrs.types, n),
            std::slice::from_raw_parts(attrs.attrs, n),
        )
    };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let Some(name) = (unsafe { names[i].as_ref() }) else {
            continue;
        };
        let name =
            String::from_utf8_lossy(&unsafe { bytes_at(name.ptr as *const c_void, name.len) })
                .into_owned();
        let p = ptrs[i];
        if p.is_null() {
            continue;
        }
        let v = match types[i] {
            attr_type::SCALAR => {
                let s = unsafe { &*(p as *const abi::Scalar) };
                AttrValue::Scalar {
                    dtype: s.dtype,
                    bytes: unsafe { bytes_at(s.value, dtype_size(s.dtype)) },
                }
            }
            attr_type::STRING => {
                let s = unsafe { &*(p as *const abi::ByteSpan) };
                AttrValue::Str(unsafe { bytes_at(s.ptr as *const c_void, s.len) })
            }
            attr_type::ARRAY => {
                let a = unsafe { &*(p as *const abi::Array) };
                AttrValue::Array {
                    dtype: a.dtype,
                    count: a.size,
                    bytes: unsafe { bytes_at(a.data, a.size * dtype_size(a.dtype)) },
                }
            }
            attr_type::DICTIONARY => {
                AttrValue::Dict(unsafe { decode_attrs(&*(p as *const abi::Attrs)) })
            }
            _ => continue,
        };
        out.push((name, v));
    }
    out
}
