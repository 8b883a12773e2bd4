//! IEEE denormals for the duration of a LAPACK call.
//!
//! hlox's compiled Host code runs with denormals flushed to zero (x86-64
//! MXCSR FTZ and DAZ, aarch64 FPCR.FZ; see hlox-cpu's runtime), and a
//! custom call runs on that thread with those modes. faer's complex
//! routines are not written for that: under FTZ/DAZ its complex LU of an
//! ordinary 3x3 c64 matrix (the test below) comes out with wrong pivots
//! and zero multipliers, where the evaluator (which does not flush) and
//! LAPACK agree. LAPACK's own kernels give the same results either way
//! (jaxlib's run under XLA's flushing), so ours must too: every handler in
//! [`crate::lapack`] runs inside an [`hlox_ffi::fpenv::FpEnv::ieee_denormals`]
//! guard, which costs two register writes per call. This module keeps the
//! test that shows why.

#[cfg(test)]
mod tests {
    use hlox_ffi::fpenv::FpEnv;

    /// A complex LU that faer gets wrong with denormals flushed (found by
    /// the compiled Host path, which flushes them: a 3x3 c64 operand of
    /// JAX's `linalg_lu_solve_c128`, rounded to c64) is right inside the
    /// guard, and the caller's flushing mode is back afterwards.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn complex_lu_is_right_with_denormals_flushed_by_the_caller() {
        use crate::blocked;
        use num_complex::Complex32;
        let a0 = [
            Complex32::new(0.645_067_4, -0.203_449_89),
            Complex32::new(-0.915_158_1, -0.919_175_86),
            Complex32::new(1.253_660_4, 0.094_243_86),
            Complex32::new(0.592_717_9, -0.056_628_134),
            Complex32::new(0.419_827_88, 1.237_577_7),
            Complex32::new(-0.638_601_9, -1.088_357_3),
            Complex32::new(-1.797_846_6, -0.213_682_86),
            Complex32::new(0.404_825_78, -0.559_486_8),
            Complex32::new(0.818_893_9, 0.433_297_04),
        ];
        let lu = |a: &mut [Complex32]| {
            let mut ipiv = [0; 3];
            blocked::getrf(3, 3, a, &mut ipiv);
            ipiv
        };
        let mut want = a0;
        // LAPACK's pivots (cgetrf).
        assert_eq!(lu(&mut want), [2, 2, 3]);
        let flush = FpEnv::flush_denormals();
        let mut flushed = a0;
        let flushed_ipiv = lu(&mut flushed);
        let mut guarded = a0;
        let guarded_ipiv = {
            let _ieee = FpEnv::ieee_denormals();
            lu(&mut guarded)
        };
        let restored = FpEnv::flushing();
        drop(flush);
        assert!(
            flushed != want || flushed_ipiv != [2, 2, 3],
            "faer under FTZ/DAZ: the hazard this guard is for is gone; see the module docs"
        );
        assert_eq!(guarded_ipiv, [2, 2, 3]);
        assert_eq!(guarded, want);
        assert!(restored, "the caller's mode is restored");
    }
}
