//! The thread's denormal modes, set for a scope and restored after.
//!
//! XLA:CPU runs compiled code with denormals flushed to zero (x86-64 MXCSR
//! FTZ and DAZ, aarch64 FPCR.FZ), and so does hlox's Host runtime
//! ([`FpEnv::flush_denormals`] around a run). Code that must see IEEE
//! denormals inside such a run (libm's `pow` on a denormal input, the
//! linear-algebra targets, whose faer kernels pivot wrongly under
//! flushing) clears them for its own scope with [`FpEnv::ieee_denormals`].
//! This is the one place that reads and writes those control registers.

/// A guard: the denormal modes it set hold until it is dropped, then the
/// previous ones are back.
#[must_use = "the mode is restored when the guard is dropped"]
pub struct FpEnv {
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    saved: u64,
}

/// MXCSR's FTZ (bit 15) and DAZ (bit 6); FPCR's FZ (bit 24).
#[cfg(target_arch = "x86_64")]
const FLUSH: u64 = (1 << 15) | (1 << 6);
#[cfg(target_arch = "aarch64")]
const FLUSH: u64 = 1 << 24;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const FLUSH: u64 = 0;

impl FpEnv {
    /// Denormals flushed to zero (inputs and results) until the drop.
    pub fn flush_denormals() -> FpEnv {
        FpEnv::set(true)
    }

    /// IEEE denormals (no flushing) until the drop.
    pub fn ieee_denormals() -> FpEnv {
        FpEnv::set(false)
    }

    /// Whether the current thread flushes denormals.
    pub fn flushing() -> bool {
        FLUSH != 0 && read_mode() & FLUSH == FLUSH
    }

    fn set(flush: bool) -> FpEnv {
        let saved = read_mode();
        write_mode(if flush { saved | FLUSH } else { saved & !FLUSH });
        FpEnv { saved }
    }
}

impl Drop for FpEnv {
    fn drop(&mut self) {
        write_mode(self.saved);
    }
}

#[cfg(target_arch = "x86_64")]
fn read_mode() -> u64 {
    let mut csr: u32 = 0;
    // SAFETY: stores the MXCSR register into a local.
    unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr as *mut u32, options(nostack)) };
    u64::from(csr)
}

#[cfg(target_arch = "x86_64")]
fn write_mode(mode: u64) {
    let csr = mode as u32;
    // SAFETY: loads a value read from MXCSR with only FTZ/DAZ changed.
    unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &csr as *const u32, options(nostack)) };
}

#[cfg(target_arch = "aarch64")]
fn read_mode() -> u64 {
    let fpcr: u64;
    // SAFETY: reads the floating-point control register.
    unsafe { std::arch::asm!("mrs {}, fpcr", out(reg) fpcr) };
    fpcr
}

#[cfg(target_arch = "aarch64")]
fn write_mode(mode: u64) {
    // SAFETY: writes a value read from FPCR with only FZ changed.
    unsafe { std::arch::asm!("msr fpcr, {}", in(reg) mode) };
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn read_mode() -> u64 {
    0
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn write_mode(_: u64) {}

#[cfg(test)]
mod tests {
    use super::FpEnv;

    #[test]
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn guards_nest_and_restore() {
        let tiny = f32::from_bits(1); // the smallest denormal
        let before = FpEnv::flushing();
        {
            let _f = FpEnv::flush_denormals();
            assert!(FpEnv::flushing());
            // DAZ/FZ: a denormal input reads as zero.
            assert_eq!(std::hint::black_box(tiny) * 1.0, 0.0);
            {
                let _i = FpEnv::ieee_denormals();
                assert!(!FpEnv::flushing());
                assert_eq!(std::hint::black_box(tiny) * 1.0, tiny);
            }
            assert!(FpEnv::flushing());
        }
        assert_eq!(FpEnv::flushing(), before);
    }
}
