//! Opaque bytes for Rust targets: a serde value encoded with `postcard`.
//!
//! postcard's wire format is compact (varint integers, no field names),
//! encodes struct fields in declaration order, and is specified and frozen
//! for its 1.x versions, so an opaque written today decodes tomorrow and a C
//! target can read it by hand (little-endian floats, LEB128 integers).

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Errors encoding or decoding an opaque.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OpaqueError {
    #[error("cannot encode custom-call opaque: {0}")]
    Encode(String),
    #[error("cannot decode custom-call opaque of {len} bytes as {ty}: {message}")]
    Decode {
        len: usize,
        ty: &'static str,
        message: String,
    },
}

/// Encodes `value` as the opaque of a custom call.
pub fn encode_opaque<T: Serialize>(value: &T) -> Result<Vec<u8>, OpaqueError> {
    postcard::to_allocvec(value).map_err(|e| OpaqueError::Encode(e.to_string()))
}

/// Decodes an opaque written by [`encode_opaque`]; trailing bytes are an error.
pub fn decode_opaque<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, OpaqueError> {
    let err = |message: String| OpaqueError::Decode {
        len: bytes.len(),
        ty: std::any::type_name::<T>(),
        message,
    };
    let (v, rest) = postcard::take_from_bytes::<T>(bytes).map_err(|e| err(e.to_string()))?;
    if !rest.is_empty() {
        return Err(err(format!("{} trailing bytes", rest.len())));
    }
    Ok(v)
}

/// The opaque a target received, as a byte slice.
///
/// # Safety
/// `ptr` is null (with `len` 0) or readable for `len` bytes for `'a`.
pub unsafe fn opaque_bytes<'a>(ptr: *const std::ffi::c_char, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(ptr as *const u8, len) }
    }
}
