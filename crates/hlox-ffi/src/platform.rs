//! Platforms and signature kinds.

use hlox_hlo::CustomCallApiVersion;
use std::fmt;

/// Where a target runs: XLA's platform names "Host" and "CUDA".
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Platform {
    Host,
    Cuda,
}

const fn eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Platform {
    /// "Host"/"host"/"cpu"/"CPU" and "CUDA"/"cuda"/"gpu"/"GPU". Usable in
    /// constants (the registration macro checks its platform at compile time).
    pub const fn parse(s: &str) -> Option<Platform> {
        if eq(s, "Host") || eq(s, "host") || eq(s, "cpu") || eq(s, "CPU") {
            Some(Platform::Host)
        } else if eq(s, "CUDA") || eq(s, "cuda") || eq(s, "gpu") || eq(s, "GPU") {
            Some(Platform::Cuda)
        } else {
            None
        }
    }
    /// XLA's spelling: "Host" or "CUDA".
    pub const fn name(self) -> &'static str {
        match self {
            Platform::Host => "Host",
            Platform::Cuda => "CUDA",
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The calling convention a function implements: its platform and the
/// `api_version` its parameter list belongs to.
///
/// On CUDA, `API_VERSION_STATUS_RETURNING` and
/// `API_VERSION_STATUS_RETURNING_UNIFIED` share one parameter list; a CUDA
/// status-returning function is recorded as `StatusReturning` and accepts
/// both (see [`Signature::accepts`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Signature {
    pub platform: Platform,
    pub api_version: CustomCallApiVersion,
}

impl Signature {
    pub const fn new(platform: Platform, api_version: CustomCallApiVersion) -> Signature {
        Signature {
            platform,
            api_version,
        }
    }
    pub const HOST_ORIGINAL: Signature =
        Signature::new(Platform::Host, CustomCallApiVersion::Original);
    pub const HOST_STATUS_RETURNING: Signature =
        Signature::new(Platform::Host, CustomCallApiVersion::StatusReturning);
    pub const HOST_STATUS_RETURNING_UNIFIED: Signature =
        Signature::new(Platform::Host, CustomCallApiVersion::StatusReturningUnified);
    pub const CUDA_ORIGINAL: Signature =
        Signature::new(Platform::Cuda, CustomCallApiVersion::Original);
    pub const CUDA_STATUS_RETURNING: Signature =
        Signature::new(Platform::Cuda, CustomCallApiVersion::StatusReturning);

    /// Whether a custom call with `api_version` may call a function of this signature.
    pub fn accepts(self, api_version: CustomCallApiVersion) -> bool {
        use CustomCallApiVersion::*;
        match (self.platform, self.api_version, api_version) {
            (_, a, b) if a == b => true,
            (Platform::Cuda, StatusReturning, StatusReturningUnified) => true,
            _ => false,
        }
    }
}

/// Parses a proto `api_version` number as given to the C registrar (1 to 4).
pub fn api_version_from_c(v: i32) -> Result<CustomCallApiVersion, ApiVersionError> {
    match v {
        1 => Ok(CustomCallApiVersion::Original),
        2 => Ok(CustomCallApiVersion::StatusReturning),
        3 => Ok(CustomCallApiVersion::StatusReturningUnified),
        0 => Err(ApiVersionError::Unspecified),
        4 => Ok(CustomCallApiVersion::TypedFfi),
        v => Err(ApiVersionError::Unknown(v)),
    }
}

/// An `api_version` number the C registrar does not accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ApiVersionError {
    #[error(
        "api_version 0 (API_VERSION_UNSPECIFIED) is not accepted: pass HLOX_API_VERSION_ORIGINAL (1), \
         HLOX_API_VERSION_STATUS_RETURNING (2) or HLOX_API_VERSION_STATUS_RETURNING_UNIFIED (3)"
    )]
    Unspecified,
    #[error("unknown api_version {0}: expected 1 (ORIGINAL), 2 (STATUS_RETURNING), 3 (STATUS_RETURNING_UNIFIED) or 4 (TYPED_FFI)")]
    Unknown(i32),
}
