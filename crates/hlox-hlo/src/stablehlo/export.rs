//! `jax.export` artifacts: what `Exported.serialize()` writes, a
//! flatbuffer (JAX's `export/serialization.fbs`, table `Exported`, no file
//! identifier) whose `mlir_module_serialized` field is the StableHLO module
//! as MLIR bytecode, usually VHLO-versioned (a portable artifact).
//!
//! hlox reads the flatbuffer (by hand: a root offset, a vtable, fields by
//! slot) and reports what it records; it does not read MLIR bytecode yet, so
//! loading such a file is refused with that information and what to do
//! instead (docs/stablehlo.md says what a bytecode reader needs).

/// What a serialized `Exported` records, as far as hlox reads it.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ExportedInfo {
    /// The flatbuffer's `serialization_version` (JAX stores 3 for every newer schema).
    pub serialization_version: u16,
    pub function_name: String,
    /// `lowering_platforms`: `cpu`, `cuda`, `rocm`, `tpu`.
    pub platforms: Vec<String>,
    pub nr_devices: i64,
    pub calling_convention_version: u16,
    /// Per input and output: whether a sharding is recorded (an index into
    /// the artifact's named shardings) or none (replicated/unspecified).
    pub in_shardings: Vec<bool>,
    pub out_shardings: Vec<bool>,
    /// The size of the serialized module and whether it is MLIR bytecode
    /// (`ML\xefR`) and VHLO-versioned (it names the `vhlo` dialect).
    pub module_bytes: usize,
    pub module_is_bytecode: bool,
    pub module_is_vhlo: bool,
    /// The bytecode's producer string (`StableHLO_v1.15.0` for a portable
    /// VHLO artifact, `MLIR19.1.0` for plain bytecode).
    pub module_producer: String,
}

impl std::fmt::Display for ExportedInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = |v: &[bool]| v.iter().filter(|&&b| b).count();
        write!(
            f,
            "function '{}', platforms [{}], {} device(s), calling convention version {}, \
             {}/{} inputs and {}/{} outputs with a recorded sharding, a {}-byte module{}",
            self.function_name,
            self.platforms.join(", "),
            self.nr_devices,
            self.calling_convention_version,
            count(&self.in_shardings),
            self.in_shardings.len(),
            count(&self.out_shardings),
            self.out_shardings.len(),
            self.module_bytes,
            match (self.module_is_bytecode, self.module_is_vhlo) {
                (true, true) => " in VHLO-versioned MLIR bytecode",
                (true, false) => " in MLIR bytecode",
                _ => "",
            }
        )?;
        if !self.module_producer.is_empty() {
            write!(f, " (producer {})", self.module_producer)?;
        }
        Ok(())
    }
}

/// A flatbuffer that is not a well-formed `Exported`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a jax.export artifact: {0}")]
pub struct ExportError(pub String);

struct Fb<'a> {
    b: &'a [u8],
}

impl<'a> Fb<'a> {
    fn u16(&self, at: usize) -> Result<u16, ExportError> {
        self.b
            .get(at..at + 2)
            .map(|s| u16::from_le_bytes([s[0], s[1]]))
            .ok_or_else(|| ExportError(format!("offset {at} is past the end")))
    }
    fn u32(&self, at: usize) -> Result<u32, ExportError> {
        self.b
            .get(at..at + 4)
            .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
            .ok_or_else(|| ExportError(format!("offset {at} is past the end")))
    }
    /// The byte position of field `slot` of the table at `t`, if present.
    fn field(&self, t: usize, slot: usize) -> Result<Option<usize>, ExportError> {
        let soff = self.u32(t)? as i32 as i64;
        let vt = usize::try_from(t as i64 - soff)
            .map_err(|_| ExportError("bad vtable offset".into()))?;
        let vsize = self.u16(vt)? as usize;
        let voff = 4 + 2 * slot;
        if voff + 2 > vsize {
            return Ok(None);
        }
        match self.u16(vt + voff)? {
            0 => Ok(None),
            o => Ok(Some(t + o as usize)),
        }
    }
    /// Follows the offset stored at `at`.
    fn deref(&self, at: usize) -> Result<usize, ExportError> {
        let target = at
            .checked_add(self.u32(at)? as usize)
            .filter(|&p| p < self.b.len());
        target.ok_or_else(|| ExportError(format!("offset at {at} points past the end")))
    }
    /// A vector's (start of elements, length).
    fn vector(
        &self,
        t: usize,
        slot: usize,
        elem: usize,
    ) -> Result<Option<(usize, usize)>, ExportError> {
        let Some(p) = self.field(t, slot)? else {
            return Ok(None);
        };
        let v = self.deref(p)?;
        let n = self.u32(v)? as usize;
        let end = n.checked_mul(elem).and_then(|x| x.checked_add(v + 4));
        if end.is_none_or(|e| e > self.b.len()) {
            return Err(ExportError(format!(
                "vector of {n} elements at {v} is past the end"
            )));
        }
        Ok(Some((v + 4, n)))
    }
    fn string_at(&self, s: usize) -> Result<String, ExportError> {
        let n = self.u32(s)? as usize;
        let bytes = self
            .b
            .get(s + 4..s + 4 + n)
            .ok_or_else(|| ExportError("string past the end".into()))?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// Reads the `Exported` table of a serialized `jax.export` artifact.
pub fn read_exported(bytes: &[u8]) -> Result<ExportedInfo, ExportError> {
    exported_module(bytes).map(|(info, _)| info)
}

/// Reads the `Exported` table and returns it with the serialized module
/// (MLIR bytecode) it holds.
pub fn exported_module(bytes: &[u8]) -> Result<(ExportedInfo, &[u8]), ExportError> {
    let fb = Fb { b: bytes };
    let t = fb.deref(0)?;
    // Field slots of table Exported (serialization.fbs, JAX 0.10).
    const VERSION: usize = 0;
    const FUNCTION_NAME: usize = 1;
    const NR_DEVICES_SHORT: usize = 6;
    const PLATFORMS: usize = 9;
    const MODULE: usize = 13;
    const CALLING_CONVENTION: usize = 14;
    const NR_DEVICES: usize = 18;
    const IN_SHARDINGS_IDXS: usize = 24;
    const OUT_SHARDINGS_IDXS: usize = 25;
    let mut info = ExportedInfo::default();
    if let Some(p) = fb.field(t, VERSION)? {
        info.serialization_version = fb.u16(p)?;
    }
    if let Some(p) = fb.field(t, FUNCTION_NAME)? {
        info.function_name = fb.string_at(fb.deref(p)?)?;
    }
    if let Some((start, n)) = fb.vector(t, PLATFORMS, 4)? {
        for i in 0..n {
            info.platforms.push(fb.string_at(fb.deref(start + 4 * i)?)?);
        }
    }
    info.nr_devices = match fb.field(t, NR_DEVICES)? {
        Some(p) => fb.u32(p)? as i32 as i64,
        None => match fb.field(t, NR_DEVICES_SHORT)? {
            Some(p) => fb.u16(p)? as i16 as i64,
            None => 1,
        },
    };
    if let Some(p) = fb.field(t, CALLING_CONVENTION)? {
        info.calling_convention_version = fb.u16(p)?;
    }
    for (slot, out) in [
        (IN_SHARDINGS_IDXS, &mut info.in_shardings),
        (OUT_SHARDINGS_IDXS, &mut info.out_shardings),
    ] {
        if let Some((start, n)) = fb.vector(t, slot, 4)? {
            for i in 0..n {
                out.push(fb.u32(start + 4 * i)? != 0);
            }
        }
    }
    let Some((start, n)) = fb.vector(t, MODULE, 1)? else {
        return Err(ExportError("it has no mlir_module_serialized".into()));
    };
    let module = &bytes[start..start + n];
    info.module_bytes = n;
    info.module_is_bytecode = module.starts_with(b"ML\xefR");
    // After the magic: the bytecode version (a varint; one byte in practice)
    // and the producer, NUL-terminated.
    if let Some(rest) = module.get(5..) {
        let end = rest.iter().position(|&c| c == 0).unwrap_or(0).min(64);
        info.module_producer = String::from_utf8_lossy(&rest[..end]).into_owned();
    }
    info.module_is_vhlo =
        info.module_producer.starts_with("StableHLO_v") || module.windows(5).any(|w| w == b"vhlo.");
    if info.platforms.is_empty() || !info.module_is_bytecode {
        return Err(ExportError(
            "it records no platform or no MLIR bytecode module".into(),
        ));
    }
    Ok((info, module))
}

/// Whether `bytes` look like a serialized `jax.export` artifact (a
/// flatbuffer whose module field is MLIR bytecode).
pub fn is_exported(bytes: &[u8]) -> bool {
    bytes.len() >= 16 && !bytes.starts_with(b"ML\xefR") && read_exported(bytes).is_ok()
}
