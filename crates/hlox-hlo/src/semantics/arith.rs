//! Index arithmetic that a rule is written against once and then run two
//! ways: on plain `i64` values ([`Plain`], the evaluator and the Host
//! runtime) and as generated instructions (the CUDA emitter implements
//! [`IndexArith`] over LLVM values). A window's base position
//! ([`super::window::window_position`]) and a sort merge pass's run bounds
//! ([`super::sort::MergeRuns`]) are written this way, so the engines cannot
//! drift apart.

use std::convert::Infallible;

/// Signed 64-bit index arithmetic on values of type `Int` with conditions of
/// type `Bool`. Operations on positions that the rule later marks invalid
/// may give any value but must not fail or panic (they wrap).
pub trait IndexArith {
    type Int: Copy;
    type Bool: Copy;
    type Error;
    /// The constant `v`.
    fn int(&self, v: i64) -> Self::Int;
    fn add(&self, a: Self::Int, b: Self::Int) -> Result<Self::Int, Self::Error>;
    fn sub(&self, a: Self::Int, b: Self::Int) -> Result<Self::Int, Self::Error>;
    fn mul(&self, a: Self::Int, b: Self::Int) -> Result<Self::Int, Self::Error>;
    /// `a / b` for `a >= 0` and `b > 0` (other `a`: any value).
    fn div(&self, a: Self::Int, b: Self::Int) -> Result<Self::Int, Self::Error>;
    /// `a % b` for `a >= 0` and `b > 0` (other `a`: any value).
    fn rem(&self, a: Self::Int, b: Self::Int) -> Result<Self::Int, Self::Error>;
    /// Signed `a >= b`.
    fn ge(&self, a: Self::Int, b: Self::Int) -> Result<Self::Bool, Self::Error>;
    /// Signed `a < b`.
    fn lt(&self, a: Self::Int, b: Self::Int) -> Result<Self::Bool, Self::Error>;
    fn eq(&self, a: Self::Int, b: Self::Int) -> Result<Self::Bool, Self::Error>;
    fn and(&self, a: Self::Bool, b: Self::Bool) -> Result<Self::Bool, Self::Error>;
    /// `if c { a } else { b }`.
    fn select(&self, c: Self::Bool, a: Self::Int, b: Self::Int) -> Result<Self::Int, Self::Error>;
}

/// [`IndexArith`] on `i64` values, wrapping on overflow.
#[derive(Copy, Clone, Debug, Default)]
pub struct Plain;

impl IndexArith for Plain {
    type Int = i64;
    type Bool = bool;
    type Error = Infallible;
    fn int(&self, v: i64) -> i64 {
        v
    }
    fn add(&self, a: i64, b: i64) -> Result<i64, Infallible> {
        Ok(a.wrapping_add(b))
    }
    fn sub(&self, a: i64, b: i64) -> Result<i64, Infallible> {
        Ok(a.wrapping_sub(b))
    }
    fn mul(&self, a: i64, b: i64) -> Result<i64, Infallible> {
        Ok(a.wrapping_mul(b))
    }
    fn div(&self, a: i64, b: i64) -> Result<i64, Infallible> {
        Ok(if b == 0 { 0 } else { a.wrapping_div(b) })
    }
    fn rem(&self, a: i64, b: i64) -> Result<i64, Infallible> {
        Ok(if b == 0 { 0 } else { a.wrapping_rem(b) })
    }
    fn ge(&self, a: i64, b: i64) -> Result<bool, Infallible> {
        Ok(a >= b)
    }
    fn lt(&self, a: i64, b: i64) -> Result<bool, Infallible> {
        Ok(a < b)
    }
    fn eq(&self, a: i64, b: i64) -> Result<bool, Infallible> {
        Ok(a == b)
    }
    fn and(&self, a: bool, b: bool) -> Result<bool, Infallible> {
        Ok(a && b)
    }
    fn select(&self, c: bool, a: i64, b: i64) -> Result<i64, Infallible> {
        Ok(if c { a } else { b })
    }
}

/// The value of a rule run on [`Plain`], which cannot fail.
pub fn plain<T>(r: Result<T, Infallible>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => match e {},
    }
}
