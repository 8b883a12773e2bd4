//! `.npy` reading and writing of array literals (NumPy's format, header
//! parsed and written by the `npyz` crate).
//!
//! - Every hlox element type: `|b1` (pred), `|i1 <i2 <i4 <i8`, `|u1 <u2 <u4
//!   <u8`, `<f2 <f4 <f8`, either byte order on read.
//! - **bf16**: NumPy has no bfloat16. JAX (through `ml_dtypes`) saves it as a
//!   2-byte void type, `<V2`; we read `<V2`, `|V2` and `>V2` (taken as
//!   little-endian bf16 bits, as `ml_dtypes` stores them) as bf16, and write
//!   bf16 as `<V2`. `np.load` gives such a file back as `dtype('V2')`; view
//!   it as bf16 with `a.view(ml_dtypes.bfloat16)`.
//! - C-order and Fortran-order input; the literal read always has the
//!   default (row-major) layout. Output is always C-order, little-endian.
//! - Scalars are shape `()`.

use crate::literal::{ArrayLiteral, Literal};
use crate::types::{ArrayShape, ElementType, Layout};
use npyz::{DType, Endianness, TypeChar, TypeStr, WriterBuilder};
use std::path::Path;

/// Why a `.npy` file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum NpyError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("not a valid .npy file: {0}")]
    Header(String),
    #[error(
        "unsupported .npy dtype `{found}`: hlox reads bool (|b1), signed/unsigned integers of 1, 2, 4 \
         and 8 bytes, float16/32/64 (<f2, <f4, <f8) and bfloat16 saved as <V2; convert the array \
         (e.g. `a.astype(np.float32)`) before saving"
    )]
    UnsupportedDtype { found: String },
    #[error(".npy data of dtype `{dtype}` and shape {shape:?} needs {expected} bytes but the file has {found}")]
    DataSize {
        dtype: String,
        shape: Vec<u64>,
        expected: u128,
        found: usize,
    },
    #[error(".npy shape {shape:?} is too large")]
    TooLarge { shape: Vec<u64> },
    #[error("only arrays can be written as .npy, not a {0} (write each leaf of a tuple to its own file)")]
    NotAnArray(&'static str),
    #[error("{0}")]
    Literal(#[from] crate::literal::LiteralError),
}

fn element_type_of(ts: &TypeStr) -> Option<ElementType> {
    use ElementType::*;
    Some(match (ts.type_char(), ts.num_bytes()?) {
        (TypeChar::Bool, 1) => Pred,
        (TypeChar::Int, 1) => S8,
        (TypeChar::Int, 2) => S16,
        (TypeChar::Int, 4) => S32,
        (TypeChar::Int, 8) => S64,
        (TypeChar::Uint, 1) => U8,
        (TypeChar::Uint, 2) => U16,
        (TypeChar::Uint, 4) => U32,
        (TypeChar::Uint, 8) => U64,
        (TypeChar::Float, 2) => F16,
        (TypeChar::Float, 4) => F32,
        (TypeChar::Float, 8) => F64,
        (TypeChar::RawData, 2) => Bf16,
        _ => return None,
    })
}

/// The NumPy type string we write for an element type.
pub fn npy_descr(ty: ElementType) -> &'static str {
    use ElementType::*;
    match ty {
        Pred => "|b1",
        S8 => "|i1",
        S16 => "<i2",
        S32 => "<i4",
        S64 => "<i8",
        U8 => "|u1",
        U16 => "<u2",
        U32 => "<u4",
        U64 => "<u8",
        F16 => "<f2",
        Bf16 => "<V2",
        F32 => "<f4",
        F64 => "<f8",
    }
}

/// Reads a `.npy` file's bytes as an array literal (default layout).
pub fn read_npy(bytes: &[u8]) -> Result<Literal, NpyError> {
    let mut data = bytes;
    let header =
        npyz::NpyHeader::from_reader(&mut data).map_err(|e| NpyError::Header(e.to_string()))?;
    let file = npyz::NpyFile::with_header(header, data);
    let ts = match file.dtype() {
        DType::Plain(ts) => ts,
        other => {
            return Err(NpyError::UnsupportedDtype {
                found: other.descr(),
            })
        }
    };
    let ty = element_type_of(&ts).ok_or_else(|| NpyError::UnsupportedDtype {
        found: ts.to_string(),
    })?;
    let shape_u: Vec<u64> = file.shape().to_vec();
    let fortran = matches!(file.order(), npyz::Order::Fortran);
    let dims = shape_u
        .iter()
        .map(|&d| i64::try_from(d).ok())
        .collect::<Option<Vec<i64>>>()
        .ok_or_else(|| NpyError::TooLarge {
            shape: shape_u.clone(),
        })?;
    let expected: u128 = shape_u.iter().fold(ty.byte_size() as u128, |acc, &d| {
        acc.saturating_mul(d as u128)
    });
    if expected != data.len() as u128 {
        return Err(NpyError::DataSize {
            dtype: ts.to_string(),
            shape: shape_u,
            expected,
            found: data.len(),
        });
    }
    let size = ty.byte_size();
    // bf16 (`V2`) bits are stored little-endian whatever the marker says.
    let big = matches!(ts.endianness(), Endianness::Big) && ty != ElementType::Bf16;
    let mut out = Vec::with_capacity(data.len());
    for chunk in data.chunks_exact(size) {
        let mut e = chunk.to_vec();
        if big == cfg!(target_endian = "little") {
            e.reverse();
        }
        if ty == ElementType::Pred {
            e[0] = (e[0] != 0) as u8;
        }
        out.extend_from_slice(&e);
    }
    let rank = dims.len();
    let layout = if fortran {
        Layout {
            minor_to_major: (0..rank as i64).collect(),
        }
    } else {
        Layout::default_for_rank(rank)
    };
    let lit = ArrayLiteral::from_bytes(ArrayShape { ty, dims, layout }, out)?;
    Ok(Literal::Array(if fortran {
        lit.relayout(Layout::default_for_rank(rank))
    } else {
        lit
    }))
}

/// Reads a `.npy` file.
pub fn read_npy_file(path: impl AsRef<Path>) -> Result<Literal, NpyError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| NpyError::Read {
        path: path.display().to_string(),
        source,
    })?;
    read_npy(&bytes).map_err(|e| match e {
        NpyError::Header(m) => NpyError::Header(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// Writes an array literal as `.npy` bytes (C order, little-endian; bf16 as `<V2`).
pub fn write_npy(lit: &Literal) -> Result<Vec<u8>, NpyError> {
    let a = match lit {
        Literal::Array(a) => a,
        Literal::Tuple(_) => return Err(NpyError::NotAnArray("tuple")),
        Literal::Token => return Err(NpyError::NotAnArray("token")),
    };
    let ty = a.ty();
    let ts: TypeStr = npy_descr(ty)
        .parse()
        .map_err(|e| NpyError::Header(format!("{e}")))?;
    let shape: Vec<u64> = a.dims().iter().map(|&d| d.max(0) as u64).collect();
    let mut out = npyz::WriteOptions::new_header_only()
        .dtype(DType::Plain(ts))
        .shape(&shape)
        .writer(Vec::new())
        .write_header_only()
        .map_err(|e| NpyError::Header(e.to_string()))?;
    let data = a.logical_bytes();
    let size = ty.byte_size();
    out.reserve(data.len());
    for chunk in data.chunks_exact(size) {
        if cfg!(target_endian = "little") {
            out.extend_from_slice(chunk);
        } else {
            out.extend(chunk.iter().rev());
        }
    }
    Ok(out)
}

/// Writes an array literal to a `.npy` file.
pub fn write_npy_file(path: impl AsRef<Path>, lit: &Literal) -> Result<(), NpyError> {
    let path = path.as_ref();
    let bytes = write_npy(lit)?;
    std::fs::write(path, bytes).map_err(|source| NpyError::Write {
        path: path.display().to_string(),
        source,
    })
}
