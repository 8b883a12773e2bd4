//! `.npy` I/O: files written by NumPy (tests/data/npy, made by
//! scripts/gen_proto_testdata.py) and round trips of every element type.

use half::{bf16, f16};
use hlox_hlo::npy::*;
use hlox_hlo::*;

mod common;

fn npy(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/npy/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn read(name: &str) -> Literal {
    read_npy(&npy(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn reads_numpy_files() {
    let l = read("f32_2x3.npy");
    assert_eq!(l.shape(), Shape::array(ElementType::F32, vec![2, 3]));
    assert_eq!(
        l.to_vec::<f32>().unwrap(),
        vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    );
    // Fortran order reads as the same logical array, default layout.
    let f = read("f32_2x3_fortran.npy");
    assert_eq!(f, l);
    let f3 = read("f64_2x2x2_fortran.npy");
    assert_eq!(f3.shape(), Shape::array(ElementType::F64, vec![2, 2, 2]));
    assert_eq!(
        f3.to_vec::<f64>().unwrap(),
        (0..8).map(|x| x as f64).collect::<Vec<_>>()
    );
    let b = read("bool_4.npy");
    assert_eq!(b.to_vec::<bool>().unwrap(), vec![true, false, false, true]);
    let h = read("f16_3.npy");
    assert_eq!(
        h.to_vec::<f16>().unwrap(),
        vec![f16::from_f32(1.0), f16::from_f32(-2.5), f16::MAX]
    );
    let bf = read("bf16_3.npy");
    assert_eq!(
        bf.to_vec::<bf16>().unwrap(),
        [1.0, -2.5, 3.0].map(bf16::from_f32).to_vec()
    );
    let s = read("i64_scalar.npy");
    assert_eq!(s.shape(), Shape::scalar(ElementType::S64));
    assert_eq!(s.get_first::<i64>().unwrap(), -7);
    let be = read("u16_2x2_be.npy");
    assert_eq!(be.to_vec::<u16>().unwrap(), vec![1, 2, 3, 258]);
    // Complex: each part byte-swapped on its own, Fortran order made row-major.
    let c = read("c64_2.npy");
    assert_eq!(c.shape(), Shape::array(ElementType::C64, vec![2]));
    assert_eq!(
        c.to_vec::<Complex32>().unwrap(),
        vec![Complex32::new(1.0, 2.0), Complex32::new(3.0, -4.0)]
    );
    let z = read("c128_2x2_be_fortran.npy");
    assert_eq!(z.shape(), Shape::array(ElementType::C128, vec![2, 2]));
    assert_eq!(
        z.to_vec::<Complex64>().unwrap(),
        vec![
            Complex64::new(1.0, 2.0),
            Complex64::new(3.5, -4.0),
            Complex64::new(-0.25, 0.0),
            Complex64::new(1e300, -1e-300),
        ]
    );
    // Written back little-endian, C order, and read again to the same value.
    let back = read_npy(&write_npy(&z).unwrap()).unwrap();
    assert_eq!(back, z);
    assert!(write_npy(&c).unwrap().windows(5).any(|w| w == b"'<c8'"));
}

#[test]
fn unsupported_and_broken_files_are_errors() {
    let e = read_npy(&npy("c256_2.npy")).unwrap_err().to_string();
    assert!(e.contains("unsupported .npy dtype `<c32`"), "{e}");
    let bytes = npy("f32_2x3.npy");
    let e = read_npy(&bytes[..bytes.len() - 1]).unwrap_err().to_string();
    assert!(
        e.contains("needs 24 bytes but the file has 23") && e.contains("<f4"),
        "{e}"
    );
    assert!(matches!(read_npy(b"not numpy"), Err(NpyError::Header(_))));
    // No truncation or byte flip panics.
    for name in ["f32_2x3_fortran.npy", "bf16_3.npy", "i64_scalar.npy"] {
        let b = npy(name);
        for len in 0..b.len() {
            assert!(
                read_npy(&b[..len]).is_err(),
                "{name} truncated to {len} was accepted"
            );
        }
        for i in 0..b.len() {
            for flip in [1u8, 0x80, 0xff] {
                let mut c = b.clone();
                c[i] ^= flip;
                let _ = read_npy(&c);
            }
        }
    }
    let e = read_npy_file("/nonexistent/x.npy").unwrap_err().to_string();
    assert!(e.contains("/nonexistent/x.npy"), "{e}");
    assert!(matches!(
        write_npy(&Literal::tuple(vec![])),
        Err(NpyError::NotAnArray("tuple"))
    ));
    assert!(matches!(
        write_npy(&Literal::Token),
        Err(NpyError::NotAnArray("token"))
    ));
}

#[test]
fn every_element_type_roundtrips() {
    // Every type, then shapes of other ranks.
    let mut lits = common::every_type_literals();
    lits.extend([
        Literal::from_vec(&[2, 2], &[-128i8, 0, 1, 127]).unwrap(),
        Literal::from_vec(&[1, 3, 1], &[1.5f32, f32::MIN_POSITIVE, -0.0]).unwrap(),
        Literal::r0(2.5f32),
        Literal::r0(true),
        Literal::from_vec::<f32>(&[0, 3], &[]).unwrap(),
    ]);
    // Also left in target/tmp/npy-for-numpy for a manual `np.load` check.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("npy-for-numpy");
    std::fs::create_dir_all(&dir).unwrap();
    for (i, l) in lits.iter().enumerate() {
        let bytes = write_npy(l).unwrap();
        assert_eq!(&read_npy(&bytes).unwrap(), l);
        std::fs::write(dir.join(format!("{i:02}.npy")), &bytes).unwrap();
    }
    // bf16 is written as `<V2`, the way ml_dtypes saves it, and reads back.
    let bytes = write_npy(&Literal::r1(&[bf16::from_f32(1.0)])).unwrap();
    let header = String::from_utf8_lossy(&bytes[..bytes.len() - 2]).to_string();
    assert!(header.contains("'descr': '<V2'"), "{header}");
    assert_eq!(&bytes[bytes.len() - 2..], &[0x80, 0x3f]);
    // Header layout: magic, version, 64-byte aligned.
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    assert_eq!((bytes.len() - 2) % 64, 0);
}

#[test]
fn writes_what_numpy_writes() {
    // Same dtype, shape and data bytes as NumPy's own files (npyz spells the
    // shape tuple `(2, 3, )` where NumPy writes `(2, 3)`: both are valid).
    for name in [
        "f32_2x3.npy",
        "bool_4.npy",
        "f16_3.npy",
        "bf16_3.npy",
        "i64_scalar.npy",
        "u16_2x2_be.npy",
    ] {
        let theirs = npy(name);
        let lit = read(name);
        let ours = write_npy(&lit).unwrap();
        let n = lit.as_array().unwrap().bytes().len();
        let header = |b: &[u8]| {
            String::from_utf8_lossy(&b[10..b.len() - n])
                .replace(" ", "")
                .replace(",)", ")")
        };
        let want = header(&theirs).replace("'>u2'", "'<u2'");
        assert_eq!(header(&ours), want, "{name}");
        if name != "u16_2x2_be.npy" {
            assert_eq!(
                &ours[ours.len() - n..],
                &theirs[theirs.len() - n..],
                "{name}"
            );
        }
        assert_eq!(read_npy(&ours).unwrap(), lit);
    }
}

#[test]
fn non_default_layout_literals_write_in_logical_order() {
    let rm = ArrayLiteral::from_vec(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
    let cm = Literal::Array(rm.relayout(Layout {
        minor_to_major: vec![0, 1],
    }));
    let back = read_npy(&write_npy(&cm).unwrap()).unwrap();
    assert_eq!(back, Literal::Array(rm));
}

#[test]
fn files_roundtrip() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("hlox_npy_roundtrip.npy");
    let l = Literal::from_vec(&[2, 2], &[1u32, 2, 3, 4]).unwrap();
    write_npy_file(&path, &l).unwrap();
    assert_eq!(read_npy_file(&path).unwrap(), l);
}

/// Issue 27: a 90-byte header with 63 unclosed `[` sent npyz's header
/// parser into exponential backtracking (it never returned). The hand
/// reader fails at once, naming the problem.
#[test]
fn unclosed_brackets_in_the_header_fail_fast() {
    fn file(header: &[u8]) -> Vec<u8> {
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(header.len() as u16).to_le_bytes());
        b.extend_from_slice(header);
        b
    }
    // `prefix` then `n` `[`: a file of `len` bytes whose read fails with `want`.
    let brackets = |prefix: &[u8], n: usize, len: usize, want: &str| {
        let mut h = prefix.to_vec();
        h.extend(std::iter::repeat_n(b'[', n));
        let bytes = file(&h);
        assert_eq!(bytes.len(), len);
        let e = read_npy(&bytes).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    };
    let t = std::time::Instant::now();
    brackets(
        b"{'descr': '<f4', 'fortran_order': False, 'shape': (",
        63,
        124,
        "expected a dimension size or `)` in the shape, found `[`",
    );
    // The 90-byte form: the brackets in 'descr'.
    brackets(
        b"{'descr': ",
        70,
        90,
        "70 unclosed bracket(s) in the 'descr' value",
    );
    // 60,000 brackets (the most a version 1.0 header holds): still linear.
    let mut h = b"{'descr': ".to_vec();
    h.extend_from_slice(&[b'['; 60000]);
    assert!(read_npy(&file(&h)).is_err());
    assert!(t.elapsed().as_secs_f64() < 2.0, "took {:?}", t.elapsed());
    // Limits and header errors name what failed.
    let e = read_npy(&file(
        b"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("unknown key 'x'"), "{e}");
    let e = read_npy(&file(
        b"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("unsupported .npy dtype `[('a', '<f4')]`"), "{e}");
    let mut h = b"{'descr': '<f4', 'fortran_order': False, 'shape': (".to_vec();
    for _ in 0..5000 {
        h.extend_from_slice(b"1,");
    }
    h.extend_from_slice(b")}");
    let e = read_npy(&file(&h)).unwrap_err().to_string();
    assert!(e.contains("more than 4096 dimensions"), "{e}");
    // Trailing padding and a newline, as numpy writes, are fine.
    let mut h = b"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }".to_vec();
    h.extend_from_slice(&[b' '; 5]);
    h.push(b'\n');
    let mut bytes = file(&h);
    bytes.extend_from_slice(&[0u8; 8]);
    assert!(read_npy(&bytes).is_ok());
}
