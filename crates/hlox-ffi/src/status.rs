//! `XlaCustomCallStatus` and XLA's two C functions that set it.
//!
//! The struct is opaque to targets (the header only declares it). Its layout
//! is nevertheless `#[repr(C)]` and its message is allocated with the C
//! library's `malloc`, so that a copy of these functions compiled into a
//! plugin (a Rust `cdylib` links this crate too) and the copy in the process
//! that owns the status agree on the memory, whichever one a plugin's symbol
//! reference binds to.

use std::ffi::{c_char, c_void};

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

/// The result of one custom call: success (the default) or failure with a
/// message. Created by the caller, passed to status-returning targets.
#[repr(C)]
#[derive(Debug)]
pub struct XlaCustomCallStatus {
    failed: u32,
    /// `malloc`ed, NUL-terminated copy of the message, or null.
    message: *mut c_char,
    message_len: usize,
}

impl Default for XlaCustomCallStatus {
    fn default() -> Self {
        Self::new()
    }
}

impl XlaCustomCallStatus {
    /// A status in the success state.
    pub fn new() -> Self {
        XlaCustomCallStatus {
            failed: 0,
            message: std::ptr::null_mut(),
            message_len: 0,
        }
    }
    /// `None` on success, the failure message (lossily UTF-8) on failure.
    pub fn failure(&self) -> Option<String> {
        if self.failed == 0 {
            return None;
        }
        if self.message.is_null() {
            return Some(String::new());
        }
        // SAFETY: `message` was allocated by `set_failure` with `message_len` bytes.
        let bytes =
            unsafe { std::slice::from_raw_parts(self.message as *const u8, self.message_len) };
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
    pub fn is_success(&self) -> bool {
        self.failed == 0
    }
    /// `XlaCustomCallStatusSetSuccess`.
    pub fn set_success(&mut self) {
        self.clear_message();
        self.failed = 0;
    }
    /// `XlaCustomCallStatusSetFailure` on a Rust byte string: keeps the bytes
    /// up to the first NUL, as XLA does.
    pub fn set_failure(&mut self, message: &[u8]) {
        let cut = message
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(message.len());
        let message = &message[..cut];
        self.clear_message();
        self.failed = 1;
        // SAFETY: malloc of len+1 bytes; on null we keep the failure without text.
        unsafe {
            let p = malloc(message.len() + 1) as *mut u8;
            if !p.is_null() {
                std::ptr::copy_nonoverlapping(message.as_ptr(), p, message.len());
                *p.add(message.len()) = 0;
                self.message = p as *mut c_char;
                self.message_len = message.len();
            }
        }
    }
    fn clear_message(&mut self) {
        if !self.message.is_null() {
            // SAFETY: allocated by malloc in `set_failure`.
            unsafe { free(self.message as *mut c_void) };
        }
        self.message = std::ptr::null_mut();
        self.message_len = 0;
    }
}

impl Drop for XlaCustomCallStatus {
    fn drop(&mut self) {
        self.clear_message();
    }
}

/// XLA's `XlaCustomCallStatusSetSuccess`: the status becomes success.
///
/// # Safety
/// `status` is null (ignored) or the status pointer a custom call received.
#[no_mangle]
pub unsafe extern "C" fn XlaCustomCallStatusSetSuccess(status: *mut XlaCustomCallStatus) {
    if let Some(s) = unsafe { status.as_mut() } {
        s.set_success();
    }
}

/// XLA's `XlaCustomCallStatusSetFailure`: the status becomes failure with a
/// copy of the first `message_len` bytes of `message`, or of the bytes up to
/// its first NUL, whichever comes first. The caller keeps ownership of
/// `message`.
///
/// # Safety
/// `status` is null (ignored) or the status pointer a custom call received;
/// `message` is null (empty message) or readable for `message_len` bytes or
/// up to a NUL.
#[no_mangle]
pub unsafe extern "C" fn XlaCustomCallStatusSetFailure(
    status: *mut XlaCustomCallStatus,
    message: *const c_char,
    message_len: usize,
) {
    let Some(s) = (unsafe { status.as_mut() }) else {
        return;
    };
    if message.is_null() {
        s.set_failure(b"");
        return;
    }
    // Read byte by byte up to the NUL so we never read past a short C string.
    let mut len = 0;
    while len < message_len && unsafe { *message.add(len) } != 0 {
        len += 1;
    }
    let bytes = unsafe { std::slice::from_raw_parts(message as *const u8, len) };
    s.set_failure(bytes);
}

/// Keeps the two status functions in every executable that uses the registry:
/// a real reference from a code path the registry runs, so that neither the
/// archive member holding them nor their sections are dropped by the linker
/// (with `--export-dynamic-symbol` they then land in the dynamic symbol table,
/// where a plain C plugin finds them).
#[inline(never)]
pub(crate) fn keep_status_symbols() -> usize {
    let a =
        XlaCustomCallStatusSetSuccess as unsafe extern "C" fn(*mut XlaCustomCallStatus) as usize;
    let b = XlaCustomCallStatusSetFailure
        as unsafe extern "C" fn(*mut XlaCustomCallStatus, *const c_char, usize)
        as usize;
    std::hint::black_box(a) ^ std::hint::black_box(b)
}
