//! HLO text: XLA's syntax, read ([`parse`]) and written ([`print`]).
//!
//! - [`parse_module`], [`parse_shape`], [`parse_literal`] read text into the IR.
//! - [`print_module`], [`print_computation`], [`print_instruction`],
//!   [`literal_to_string`] write the canonical form (what JAX/XLA print).
//!
//! See `docs/hlo-text.md` for the accepted syntax and the deviations from XLA.

pub(crate) mod attr;
pub mod lexer;
pub mod parse;
pub mod print;

pub use lexer::{c_escape, c_unescape, ParseError};
pub use parse::{parse_literal, parse_module, parse_shape};
pub use print::{
    literal_to_string, print_computation, print_instruction, print_module, program_shape_to_string,
    replica_groups_text, shape_to_string,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{CustomCall, Op};
    use crate::literal::{ArrayLiteral, Literal, NativeType};
    use crate::types::{ArrayShape, ElementType, Layout, Shape};
    use half::{bf16, f16};

    fn roundtrip_literal(l: &Literal) {
        let text = literal_to_string(l);
        let back = parse_literal(&text, &l.shape()).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(&back, l, "literal text {text}");
        assert_eq!(literal_to_string(&back), text);
    }

    /// The floats of bit patterns `bits`, printed as a literal and parsed
    /// back, have the same bits.
    fn assert_bits_round_trip<B: Copy + PartialEq + std::fmt::Debug, T: NativeType>(
        bits: &[B],
        from_bits: fn(B) -> T,
        to_bits: fn(T) -> B,
    ) {
        let lit = Literal::r1(&bits.iter().map(|&b| from_bits(b)).collect::<Vec<_>>());
        let back = parse_literal(&literal_to_string(&lit), &lit.shape()).unwrap();
        let got: Vec<B> = back
            .to_vec::<T>()
            .unwrap()
            .into_iter()
            .map(to_bits)
            .collect();
        assert_eq!(got, bits, "{}", lit.shape());
    }

    #[test]
    fn literals_of_every_element_type_round_trip() {
        roundtrip_literal(&Literal::r1(&[true, false, true]));
        roundtrip_literal(&Literal::r0(true));
        roundtrip_literal(&Literal::r1(&[i8::MIN, -1, 0, i8::MAX]));
        roundtrip_literal(&Literal::r1(&[i16::MIN, 7, i16::MAX]));
        roundtrip_literal(&Literal::r1(&[i32::MIN, 7, i32::MAX]));
        roundtrip_literal(&Literal::r1(&[i64::MIN, 7, i64::MAX]));
        roundtrip_literal(&Literal::r1(&[0u8, 200, u8::MAX]));
        roundtrip_literal(&Literal::r1(&[0u16, 7, u16::MAX]));
        roundtrip_literal(&Literal::r1(&[0u32, 7, u32::MAX]));
        roundtrip_literal(&Literal::r1(&[0u64, 7, u64::MAX]));
        // Every f16 and bf16 bit pattern round-trips exactly.
        let all16: Vec<u16> = (0..=u16::MAX).collect();
        assert_bits_round_trip(&all16, f16::from_bits, f16::to_bits);
        assert_bits_round_trip(&all16, bf16::from_bits, bf16::to_bits);
        // f32 and f64: special values and a spread of bit patterns.
        let mut f32s: Vec<u32> = vec![
            0,
            0x8000_0000,
            1,
            0x7f7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0001,
            0x7f80_0001,
        ];
        let mut x: u32 = 12345;
        for _ in 0..20000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f32s.push(x);
        }
        assert_bits_round_trip(&f32s, f32::from_bits, f32::to_bits);
        let mut f64s: Vec<u64> = vec![
            0,
            1 << 63,
            1,
            0x7ff0_0000_0000_0000,
            0x7ff8_0000_0000_0000,
            0xfff0_0000_0000_0001,
        ];
        let mut y: u64 = 99;
        for _ in 0..20000 {
            y = y
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            f64s.push(y);
        }
        assert_bits_round_trip(&f64s, f64::from_bits, f64::to_bits);
        // Nested, non-default layout, tuples.
        let m = Literal::r2(&[&[1i32, 2, 3][..], &[4, 5, 6][..]]).unwrap();
        assert_eq!(literal_to_string(&m), "{ { 1, 2, 3 }, { 4, 5, 6 } }");
        roundtrip_literal(&m);
        let t = Literal::Array(m.as_array().unwrap().relayout(Layout {
            minor_to_major: vec![0, 1],
        }));
        assert_eq!(literal_to_string(&t), "{ { 1, 2, 3 }, { 4, 5, 6 } }");
        roundtrip_literal(&t);
        roundtrip_literal(&Literal::tuple(vec![
            Literal::r0(1.5f32),
            Literal::tuple(vec![Literal::r1(&[1u8, 2])]),
        ]));
        let z = Literal::Array(
            ArrayLiteral::zeros(ArrayShape::new(ElementType::F32, vec![2, 0, 3])).unwrap(),
        );
        roundtrip_literal(&z);
    }

    #[test]
    fn literal_parse_errors() {
        let s = Shape::array(ElementType::S8, vec![2]);
        assert!(parse_literal("{1, 128}", &s).is_err());
        assert!(parse_literal("{1}", &s).is_err());
        assert!(parse_literal("{1, 2, 3}", &s).is_err());
        assert!(parse_literal("{1.5, 2}", &s).is_err());
        assert!(parse_literal("{1, 2} x", &s).is_err());
        let f = Shape::scalar(ElementType::F32);
        assert!(parse_literal("nan(0x800000)", &f).is_err());
        assert!(parse_literal("abc", &f).is_err());
        assert_eq!(
            parse_literal("-nan(0x1)", &f)
                .unwrap()
                .get_first::<f32>()
                .unwrap()
                .to_bits(),
            0xff80_0001
        );
    }

    #[test]
    fn shapes_parse_and_print() {
        let s = parse_shape("(f32[2,3]{0,1}, s32[], token[], ())").unwrap();
        assert_eq!(shape_to_string(&s), "(f32[2,3]{0,1}, s32[], token[], ())");
        assert_eq!(
            shape_to_string(&parse_shape("f32[2,3]").unwrap()),
            "f32[2,3]{1,0}"
        );
        assert_eq!(
            shape_to_string(&parse_shape("bf16[8,128]{1,0:T(8,128)(2,1)S(1)}").unwrap()),
            "bf16[8,128]{1,0}"
        );
        let e = parse_shape("f8e4m3fn[2]").unwrap_err();
        assert!(
            e.message.contains("unsupported element type 'f8e4m3fn'"),
            "{e}"
        );
        assert!(parse_shape("f32[2]{1}").is_err());
        assert!(parse_shape("f32[-1]").is_err());
    }

    /// A custom call whose opaque holds every byte value survives print → parse.
    #[test]
    fn opaque_with_every_byte_round_trips_through_module_text() {
        let src = "HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT c = f32[2] custom-call(p), custom_call_target=\"t\"\n}\n";
        let mut m = parse_module(src).unwrap();
        let all: Vec<u8> = (0..=255u8).collect();
        let entry = m.entry;
        let root = m.computations[entry].root;
        let set = |m: &mut crate::ir::Module, bytes: Vec<u8>| {
            let inst = &mut m.computations[entry].instructions[root];
            match &mut inst.op {
                Op::CustomCall(cc) => cc.opaque = bytes,
                _ => unreachable!(),
            }
        };
        for bytes in [
            all.clone(),
            all.iter().rev().copied().collect(),
            b"{\"a\": \"}\"}".to_vec(),
            b"{a".to_vec(),
            b" {}".to_vec(),
        ] {
            set(&mut m, bytes.clone());
            let text = print_module(&m);
            let back = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let cc: &CustomCall = back
                .entry_computation()
                .root_inst()
                .op
                .as_custom_call()
                .unwrap();
            assert_eq!(cc.opaque, bytes, "{text}");
            assert_eq!(print_module(&back), text);
        }
    }

    #[test]
    fn parse_errors_carry_location() {
        let e =
            parse_module("HloModule m\n\nENTRY e {\n  ROOT x = f32[] negate(y)\n}\n").unwrap_err();
        assert_eq!((e.line, e.column), (4, 25));
        assert_eq!(e.source_line, "  ROOT x = f32[] negate(y)");
        assert!(
            e.to_string().starts_with("4:25: unknown instruction 'y'"),
            "{e}"
        );
        assert!(e
            .clone()
            .with_file("a.hlo")
            .to_string()
            .starts_with("a.hlo:4:25: "));
    }
}
