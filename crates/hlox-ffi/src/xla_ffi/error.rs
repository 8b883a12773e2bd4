//! The errors of Rust typed-FFI handlers.
//!
//! [`FrameError`] is what the [`Frame`](super::Frame) accessors report: which
//! argument, result or attribute, and what was expected against what the
//! call frame holds. [`FfiError`] is what a handler returns; it is built
//! from a [`FrameError`] (so `?` works on every accessor), from a plain
//! message (`FfiError::msg`, `String`, `&str`: handler authors need not
//! define an enum), or from any error of the handler's own
//! ([`FfiError::other`]). Its `Display` is the message XLA sees: the
//! trampoline hands it to `XLA_FFI_Error_Create`.

use thiserror::Error;

/// A [`Frame`](super::Frame) accessor that could not give what was asked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrameError {
    /// Argument or result `index` asked for, but the call has `count`.
    #[error("the handler asks for {kind} {index} but the call has {count}")]
    MissingBuffer {
        /// `argument` or `result`.
        kind: &'static str,
        index: usize,
        count: usize,
    },
    /// The call frame's entry for the buffer is a null pointer.
    #[error("{kind} {index} is null")]
    NullBuffer { kind: &'static str, index: usize },
    /// The buffer was viewed as another element type than it holds.
    #[error("{buffer} has element type {found}, not {expected}")]
    ElementType {
        /// `argument 0`, `result 1`, ...
        buffer: String,
        found: String,
        expected: &'static str,
    },
    /// A non-empty buffer without a data pointer (the instantiate stage sees
    /// only types and dimensions).
    #[error("{buffer} has no data")]
    NoData { buffer: String },
    /// The call frame carries no `XLA_FFI_Api` table.
    #[error("the call frame has no API table")]
    NoApi,
    /// A call through the caller's API table (`XLA_FFI_Stream_Get`, ...)
    /// failed; `message` is the caller's error message.
    #[error("{message}")]
    Api { call: &'static str, message: String },
    /// `XLA_FFI_State_Get` gave a null state.
    #[error("the state is null")]
    NullState,
    /// The call's `backend_config` has no attribute of that name.
    #[error("the call has no attribute `{name}`")]
    NoAttribute { name: String },
    /// The attribute is of another kind (scalar, string, array).
    #[error("attribute `{name}` is not {expected}")]
    AttributeKind {
        name: String,
        expected: &'static str,
    },
    /// A scalar attribute of another type, or an array attribute
    /// (`elements`) with elements of another type.
    #[error(
        "attribute `{name}` has {}type {found}, not {expected}",
        if *.elements { "elements of " } else { "" }
    )]
    AttributeType {
        name: String,
        elements: bool,
        found: String,
        expected: &'static str,
    },
}

/// The error a Rust typed-FFI handler returns. Its message becomes the
/// `XLA_FFI_Error` the caller sees (code `UNKNOWN`).
#[derive(Debug, Error)]
pub enum FfiError {
    /// A [`Frame`](super::Frame) accessor failed.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// A message written by the handler.
    #[error("{0}")]
    Message(String),
    /// An error of the handler's own type.
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync + 'static>),
}

impl FfiError {
    /// An error with this message.
    pub fn msg(message: impl Into<String>) -> Self {
        FfiError::Message(message.into())
    }
    /// Wraps an error of the handler's own type (its `Display` is the
    /// message; its `source` chain is kept).
    pub fn other(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        FfiError::Other(Box::new(e))
    }
}

impl From<String> for FfiError {
    fn from(m: String) -> Self {
        FfiError::Message(m)
    }
}

impl From<&str> for FfiError {
    fn from(m: &str) -> Self {
        FfiError::msg(m)
    }
}

/// For handler helpers that still return `Result<_, String>`: `?` on an
/// accessor keeps working there, with the same message.
impl From<FrameError> for String {
    fn from(e: FrameError) -> Self {
        e.to_string()
    }
}
