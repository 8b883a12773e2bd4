//! Tests of the reference evaluator: every opcode on real data, with
//! hand-computed expectations (and a few values computed with JAX on CPU).

#![allow(clippy::excessive_precision)]

use half::{bf16, f16};
use hlox_eval::{evaluate, CustomCallHandler, EvalError, NoCustomCalls};
use hlox_hlo::*;

// ------------------------------------------------------------------ helpers

/// Builds one computation by appending instructions.
struct CB {
    name: String,
    insts: PrimaryMap<InstId, Instruction>,
    params: Vec<InstId>,
}

impl CB {
    fn new(name: &str) -> CB {
        CB {
            name: name.to_string(),
            insts: PrimaryMap::new(),
            params: Vec::new(),
        }
    }
    fn param(&mut self, shape: Shape) -> InstId {
        let n = self.params.len() as u64;
        let id = self.push(Op::Parameter { number: n }, shape, &[]);
        self.params.push(id);
        id
    }
    fn push(&mut self, op: Op, shape: Shape, operands: &[InstId]) -> InstId {
        self.call(op, shape, operands, &[])
    }
    fn call(&mut self, op: Op, shape: Shape, operands: &[InstId], called: &[CompId]) -> InstId {
        let name = format!("{}.{}", self.name, self.insts.len());
        let mut inst = Instruction::new(name, op, shape, operands.to_vec());
        inst.called = called.to_vec();
        self.insts.push(inst)
    }
    fn constant(&mut self, lit: Literal) -> InstId {
        let shape = lit.shape();
        self.push(Op::Constant { literal: lit }, shape, &[])
    }
    fn finish(self, root: InstId) -> Computation {
        Computation {
            name: self.name,
            instructions: self.insts,
            params: self.params,
            root,
            execution_thread: None,
        }
    }
}

struct MB {
    comps: PrimaryMap<CompId, Computation>,
}

impl MB {
    fn new() -> MB {
        MB {
            comps: PrimaryMap::new(),
        }
    }
    fn add(&mut self, c: Computation) -> CompId {
        self.comps.push(c)
    }
    fn module(self, entry: CompId) -> Module {
        Module {
            name: "test".into(),
            computations: self.comps,
            entry,
            input_output_alias: vec![],
            is_scheduled: false,
        }
    }
    /// `(a, b) -> a OP b` on scalars of `ty`.
    fn binary(&mut self, name: &str, ty: ElementType, op: BinaryOp) -> CompId {
        let mut c = CB::new(name);
        let a = c.param(Shape::scalar(ty));
        let b = c.param(Shape::scalar(ty));
        let r = c.push(Op::Binary(op), Shape::scalar(ty), &[a, b]);
        self.add(c.finish(r))
    }
    /// `(a, b) -> compare(a, b, dir)`.
    fn comparator(
        &mut self,
        name: &str,
        ty: ElementType,
        dir: ComparisonDirection,
        ct: Option<ComparisonType>,
    ) -> CompId {
        let mut c = CB::new(name);
        let a = c.param(Shape::scalar(ty));
        let b = c.param(Shape::scalar(ty));
        let r = c.push(
            Op::Compare {
                direction: dir,
                cmp_type: ct,
            },
            Shape::scalar(ElementType::Pred),
            &[a, b],
        );
        self.add(c.finish(r))
    }
}

fn sh(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims.to_vec())
}

use ElementType::*;

/// A module whose entry applies `op` (calling `called`) to parameters with the inputs' shapes.
fn run_op_with(
    mut mb: MB,
    op: Op,
    inputs: Vec<Literal>,
    out: Shape,
    called: &[CompId],
) -> Result<Literal, EvalError> {
    let mut c = CB::new("main");
    let ps: Vec<InstId> = inputs.iter().map(|l| c.param(l.shape())).collect();
    let r = c.call(op, out, &ps, called);
    let e = mb.add(c.finish(r));
    let m = mb.module(e);
    evaluate(&m, &inputs, &NoCustomCalls)
}

fn run_op(op: Op, inputs: Vec<Literal>, out: Shape) -> Literal {
    run_op_with(MB::new(), op, inputs, out, &[]).unwrap()
}

fn v<T: NativeType>(l: &Literal) -> Vec<T> {
    l.to_vec::<T>().unwrap()
}

fn r1<T: NativeType>(x: &[T]) -> Literal {
    Literal::r1(x)
}

fn lit<T: NativeType>(dims: &[i64], x: &[T]) -> Literal {
    Literal::from_vec(dims, x).unwrap()
}

fn assert_close(a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()),
            "element {i}: {x} vs {y} ({a:?} vs {b:?})"
        );
    }
}

fn un(op: UnaryOp, x: Literal) -> Literal {
    let out = x.shape();
    run_op(Op::Unary(op), vec![x], out)
}

fn bin(op: BinaryOp, a: Literal, b: Literal) -> Literal {
    let out = a.shape();
    run_op(Op::Binary(op), vec![a, b], out)
}

fn cmp(dir: ComparisonDirection, ct: Option<ComparisonType>, a: Literal, b: Literal) -> Vec<bool> {
    let mut out = a.shape();
    out.as_array_mut().unwrap().ty = Pred;
    v(&run_op(
        Op::Compare {
            direction: dir,
            cmp_type: ct,
        },
        vec![a, b],
        out,
    ))
}

fn convert(x: Literal, ty: ElementType) -> Literal {
    let mut out = x.shape();
    out.as_array_mut().unwrap().ty = ty;
    run_op(Op::Convert, vec![x], out)
}

// ------------------------------------------------------------------ element-wise

#[test]
fn integer_division_and_remainder_follow_xla() {
    let a = r1::<i32>(&[7, -7, 5, i32::MIN, i32::MIN, 3, -9]);
    let b = r1::<i32>(&[2, 2, 0, -1, 0, -1, 4]);
    assert_eq!(
        v::<i32>(&bin(BinaryOp::Divide, a.clone(), b.clone())),
        vec![3, -3, -1, i32::MIN, -1, -3, -2]
    );
    assert_eq!(
        v::<i32>(&bin(BinaryOp::Remainder, a, b)),
        vec![1, -1, 5, 0, i32::MIN, 0, -1]
    );
    // s8: INT_MIN / -1 = INT_MIN, x / 0 = -1.
    let a = r1::<i8>(&[-128, 100, -7]);
    let b = r1::<i8>(&[-1, 0, 0]);
    assert_eq!(
        v::<i8>(&bin(BinaryOp::Divide, a.clone(), b.clone())),
        vec![-128, -1, -1]
    );
    assert_eq!(v::<i8>(&bin(BinaryOp::Remainder, a, b)), vec![0, 100, -7]);
    // Unsigned: x / 0 = all ones, x % 0 = x.
    let a = r1::<u32>(&[9, 9, 0xffff_ffff]);
    let b = r1::<u32>(&[0, 4, 2]);
    assert_eq!(
        v::<u32>(&bin(BinaryOp::Divide, a.clone(), b.clone())),
        vec![u32::MAX, 2, 0x7fff_ffff]
    );
    assert_eq!(v::<u32>(&bin(BinaryOp::Remainder, a, b)), vec![9, 1, 1]);
    // Wrapping add/mul in the type.
    assert_eq!(
        v::<u8>(&bin(BinaryOp::Add, r1::<u8>(&[250]), r1::<u8>(&[10]))),
        vec![4]
    );
    assert_eq!(
        v::<i16>(&bin(
            BinaryOp::Multiply,
            r1::<i16>(&[300]),
            r1::<i16>(&[300])
        )),
        vec![(90000i32 as i16)]
    );
    // Float remainder is fmod.
    assert_eq!(
        v::<f32>(&bin(
            BinaryOp::Remainder,
            r1::<f32>(&[-7.5, 7.5]),
            r1::<f32>(&[2.0, -2.0])
        )),
        vec![-1.5, 1.5]
    );
}

#[test]
fn shifts_by_out_of_range_amounts() {
    let shl = bin(
        BinaryOp::ShiftLeft,
        r1::<i32>(&[1, 1, 1, -1, 3]),
        r1::<i32>(&[3, 32, -1, 31, 33]),
    );
    assert_eq!(v::<i32>(&shl), vec![8, 0, 0, i32::MIN, 0]);
    let srl = bin(
        BinaryOp::ShiftRightLogical,
        r1::<i32>(&[-8, -8, 16, -1]),
        r1::<i32>(&[1, 32, 2, -3]),
    );
    assert_eq!(v::<i32>(&srl), vec![0x7fff_fffc, 0, 4, 0]);
    let sra = bin(
        BinaryOp::ShiftRightArithmetic,
        r1::<i32>(&[-8, -8, 8, 8, -1]),
        r1::<i32>(&[1, 40, 40, 1, -1]),
    );
    assert_eq!(v::<i32>(&sra), vec![-4, -1, 0, 4, -1]);
    // Unsigned: arithmetic shift fills with the top bit; logical with zeros.
    let sra = bin(
        BinaryOp::ShiftRightArithmetic,
        r1::<u8>(&[0x80, 0x80, 0x40, 0x80]),
        r1::<u8>(&[1, 8, 9, 7]),
    );
    assert_eq!(v::<u8>(&sra), vec![0xc0, 0xff, 0x00, 0xff]);
    let srl = bin(
        BinaryOp::ShiftRightLogical,
        r1::<u8>(&[0x80, 0x80]),
        r1::<u8>(&[7, 8]),
    );
    assert_eq!(v::<u8>(&srl), vec![1, 0]);
    let shl = bin(
        BinaryOp::ShiftLeft,
        r1::<u64>(&[1, 1]),
        r1::<u64>(&[63, 64]),
    );
    assert_eq!(v::<u64>(&shl), vec![1 << 63, 0]);
    let shl = bin(BinaryOp::ShiftLeft, r1::<i8>(&[0x41]), r1::<i8>(&[1]));
    assert_eq!(v::<i8>(&shl), vec![-126]);
}

#[test]
fn compares_signed_unsigned_nan_and_totalorder() {
    use ComparisonDirection::*;
    assert_eq!(
        cmp(Gt, None, r1::<u32>(&[0xffff_ffff]), r1::<u32>(&[1])),
        vec![true]
    );
    assert_eq!(
        cmp(Gt, None, r1::<i32>(&[-1]), r1::<i32>(&[1])),
        vec![false]
    );
    let nan = f32::NAN;
    let a = r1::<f32>(&[nan, 1.0, nan]);
    let b = r1::<f32>(&[nan, 1.0, 2.0]);
    assert_eq!(
        cmp(Eq, None, a.clone(), b.clone()),
        vec![false, true, false]
    );
    assert_eq!(cmp(Ne, None, a.clone(), b.clone()), vec![true, false, true]);
    assert_eq!(
        cmp(Lt, None, a.clone(), b.clone()),
        vec![false, false, false]
    );
    assert_eq!(cmp(Ge, None, a, b), vec![false, true, false]);
    // -0 == +0 as floats, but not in the total order.
    assert_eq!(
        cmp(Eq, None, r1::<f32>(&[-0.0]), r1::<f32>(&[0.0])),
        vec![true]
    );
    let t = Some(ComparisonType::TotalOrder);
    assert_eq!(
        cmp(Eq, t, r1::<f32>(&[-0.0]), r1::<f32>(&[0.0])),
        vec![false]
    );
    let a = r1::<f32>(&[-0.0, nan, -nan, 1.0, f32::INFINITY]);
    let b = r1::<f32>(&[0.0, f32::INFINITY, f32::NEG_INFINITY, nan, nan]);
    assert_eq!(cmp(Lt, t, a, b), vec![true, false, true, true, true]);
    // bf16 total order.
    let a = r1::<bf16>(&[bf16::from_f32(-0.0), bf16::NAN]);
    let b = r1::<bf16>(&[bf16::from_f32(0.0), bf16::INFINITY]);
    assert_eq!(cmp(Lt, t, a, b), vec![true, false]);
    // Explicit UNSIGNED compare on pred.
    assert_eq!(
        cmp(Lt, None, r1(&[false, true]), r1(&[true, true])),
        vec![true, false]
    );
}

#[test]
fn converts_saturate_and_round_like_xla() {
    let x = r1::<f32>(&[f32::NAN, 1e10, -1e10, -1.5, 2.7, f32::INFINITY, -0.9]);
    assert_eq!(
        v::<i32>(&convert(x.clone(), S32)),
        vec![0, i32::MAX, i32::MIN, -1, 2, i32::MAX, 0]
    );
    assert_eq!(
        v::<u8>(&convert(x.clone(), U8)),
        vec![0, 255, 0, 0, 2, 255, 0]
    );
    assert_eq!(
        v::<i64>(&convert(x, S64)),
        vec![0, 10_000_000_000, -10_000_000_000, -1, 2, i64::MAX, 0]
    );
    assert_eq!(
        v::<i8>(&convert(r1::<i32>(&[300, -129, 127]), S8)),
        vec![44, 127, 127]
    );
    assert_eq!(v::<u32>(&convert(r1::<i32>(&[-1]), U32)), vec![u32::MAX]);
    assert_eq!(
        v::<bool>(&convert(r1::<f32>(&[0.0, -0.0, f32::NAN, 2.0]), Pred)),
        vec![false, false, true, true]
    );
    assert_eq!(
        v::<bool>(&convert(r1::<i32>(&[0, 256]), Pred)),
        vec![false, true]
    );
    assert_eq!(v::<f32>(&convert(r1(&[true, false]), F32)), vec![1.0, 0.0]);
    // Round to nearest even.
    let b = v::<bf16>(&convert(
        r1::<f32>(&[1.00390625, 1.01171875, 3.0e38, f32::NAN]),
        Bf16,
    ));
    assert_eq!(b[0].to_f32(), 1.0);
    assert_eq!(b[1].to_f32(), 1.015625);
    assert!(b[2].to_f32().is_finite());
    assert!(b[3].is_nan());
    let h = v::<f16>(&convert(
        r1::<f32>(&[65520.0, 65519.0, 1.00048828125, 1e-8]),
        F16,
    ));
    assert_eq!(h[0], f16::INFINITY);
    assert_eq!(h[1].to_f32(), 65504.0);
    assert_eq!(h[2].to_f32(), 1.0);
    assert_eq!(h[3].to_f32(), 0.0);
    assert_eq!(
        v::<f32>(&convert(r1::<i64>(&[16_777_217, -3]), F32)),
        vec![16_777_216.0, -3.0]
    );
    assert_eq!(
        v::<i32>(&convert(
            r1::<f16>(&[f16::from_f32(-2.5), f16::INFINITY]),
            S32
        )),
        vec![-2, i32::MAX]
    );
    assert_eq!(
        v::<f64>(&convert(r1::<bf16>(&[bf16::from_f32(1.5)]), F64)),
        vec![1.5]
    );
}

#[test]
fn rounding_sign_and_abs() {
    let x = r1::<f32>(&[0.5, 1.5, 2.5, -0.5, -2.5, 2.4]);
    assert_eq!(
        v::<f32>(&un(UnaryOp::RoundNearestAfz, x.clone())),
        vec![1.0, 2.0, 3.0, -1.0, -3.0, 2.0]
    );
    let e = v::<f32>(&un(UnaryOp::RoundNearestEven, x));
    assert_eq!(e, vec![0.0, 2.0, 2.0, -0.0, -2.0, 2.0]);
    assert!(e[3].is_sign_negative());
    let s = v::<f32>(&un(
        UnaryOp::Sign,
        r1::<f32>(&[-0.0, 0.0, f32::NAN, -3.0, 5.0]),
    ));
    assert!(s[0] == 0.0 && s[0].is_sign_negative());
    assert!(s[1] == 0.0 && s[1].is_sign_positive());
    assert!(s[2].is_nan());
    assert_eq!(&s[3..], &[-1.0, 1.0]);
    assert_eq!(
        v::<i32>(&un(UnaryOp::Sign, r1::<i32>(&[-5, 0, 7]))),
        vec![-1, 0, 1]
    );
    assert_eq!(
        v::<i32>(&un(UnaryOp::Abs, r1::<i32>(&[-5, i32::MIN]))),
        vec![5, i32::MIN]
    );
    assert_eq!(
        v::<i8>(&un(UnaryOp::Negate, r1::<i8>(&[-128, 5]))),
        vec![-128, -5]
    );
    assert_eq!(
        v::<f32>(&un(UnaryOp::Floor, r1::<f32>(&[-1.5, 1.5]))),
        vec![-2.0, 1.0]
    );
    assert_eq!(
        v::<f32>(&un(UnaryOp::Ceil, r1::<f32>(&[-1.5, 1.5]))),
        vec![-1.0, 2.0]
    );
    assert_eq!(
        v::<bool>(&un(UnaryOp::Not, r1(&[true, false]))),
        vec![false, true]
    );
    assert_eq!(v::<u8>(&un(UnaryOp::Not, r1::<u8>(&[0x0f]))), vec![0xf0]);
}

#[test]
fn max_min_propagate_nan() {
    let nan = f32::NAN;
    let mx = v::<f32>(&bin(
        BinaryOp::Maximum,
        r1::<f32>(&[nan, 1.0, 2.0, -0.0]),
        r1::<f32>(&[1.0, nan, 3.0, 0.0]),
    ));
    assert!(mx[0].is_nan() && mx[1].is_nan());
    assert_eq!(mx[2], 3.0);
    let mn = v::<f32>(&bin(
        BinaryOp::Minimum,
        r1::<f32>(&[nan, 1.0, 2.0]),
        r1::<f32>(&[1.0, nan, 3.0]),
    ));
    assert!(mn[0].is_nan() && mn[1].is_nan());
    assert_eq!(mn[2], 2.0);
    assert_eq!(
        v::<u32>(&bin(
            BinaryOp::Maximum,
            r1::<u32>(&[0xffff_ffff]),
            r1::<u32>(&[1])
        )),
        vec![0xffff_ffff]
    );
    assert_eq!(
        v::<i32>(&bin(BinaryOp::Minimum, r1::<i32>(&[-1]), r1::<i32>(&[1]))),
        vec![-1]
    );
}

#[test]
fn integer_and_float_power() {
    let p = bin(
        BinaryOp::Power,
        r1::<i32>(&[2, 2, 1, -1, 0, 3, -2]),
        r1::<i32>(&[10, -1, -5, -1, 0, 40, 3]),
    );
    assert_eq!(
        v::<i32>(&p),
        vec![1024, 0, 1, 0, 1, 3i32.wrapping_pow(40), -8]
    );
    assert_eq!(
        v::<u8>(&bin(BinaryOp::Power, r1::<u8>(&[3, 2]), r1::<u8>(&[5, 8]))),
        vec![243, 0]
    );
    let f = v::<f32>(&bin(
        BinaryOp::Power,
        r1::<f32>(&[1.0, f32::NAN, 2.0, -8.0]),
        r1::<f32>(&[f32::NAN, 0.0, 0.5, 1.0 / 3.0]),
    ));
    assert_eq!(f[0], 1.0);
    assert_eq!(f[1], 1.0);
    assert!((f[2] - std::f32::consts::SQRT_2).abs() < 1e-6);
    assert!(f[3].is_nan());
}

#[test]
fn popcount_and_count_leading_zeros() {
    let x = r1::<i32>(&[0, -1, 1, 0xf0]);
    assert_eq!(
        v::<i32>(&un(UnaryOp::PopulationCount, x.clone())),
        vec![0, 32, 1, 4]
    );
    assert_eq!(
        v::<i32>(&un(UnaryOp::CountLeadingZeros, x)),
        vec![32, 0, 31, 24]
    );
    assert_eq!(
        v::<u8>(&un(UnaryOp::CountLeadingZeros, r1::<u8>(&[1, 0, 0x80]))),
        vec![7, 8, 0]
    );
    assert_eq!(
        v::<i8>(&un(UnaryOp::PopulationCount, r1::<i8>(&[-1, -128]))),
        vec![8, 1]
    );
    assert_eq!(
        v::<u64>(&un(UnaryOp::CountLeadingZeros, r1::<u64>(&[1]))),
        vec![63]
    );
}

#[test]
fn transcendental_functions_match_jax() {
    // Values computed with JAX on CPU.
    assert_close(
        &v::<f32>(&un(UnaryOp::Erf, r1::<f32>(&[0.5, -1.25]))),
        &[0.520_499_9, -0.922_900_1],
        1e-6,
    );
    assert_close(
        &v::<f32>(&un(UnaryOp::Logistic, r1::<f32>(&[0.5, -3.0]))),
        &[0.622_459_35, 0.047_425_874],
        1e-6,
    );
    assert_eq!(
        v::<f32>(&un(UnaryOp::Cbrt, r1::<f32>(&[-27.0, 8.0]))),
        vec![-3.0, 2.0]
    );
    let pi = std::f32::consts::PI;
    let a = v::<f32>(&bin(
        BinaryOp::Atan2,
        r1::<f32>(&[1.0, -1.0, 0.0, -0.0]),
        r1::<f32>(&[-1.0, -1.0, -0.0, 1.0]),
    ));
    assert_close(&a[..3], &[0.75 * pi, -0.75 * pi, pi], 1e-6);
    assert!(a[3] == 0.0 && a[3].is_sign_negative());
    let x = r1::<f64>(&[1.0, 4.0]);
    assert_close(
        &v::<f64>(&un(UnaryOp::Rsqrt, x.clone()))
            .iter()
            .map(|&x| x as f32)
            .collect::<Vec<_>>(),
        &[1.0, 0.5],
        1e-12,
    );
    assert_close(
        &v::<f32>(&un(UnaryOp::Expm1, r1::<f32>(&[1e-10]))),
        &[1e-10],
        1e-6,
    );
    assert_close(
        &v::<f32>(&un(UnaryOp::Log1p, r1::<f32>(&[1e-10]))),
        &[1e-10],
        1e-6,
    );
    assert_close(
        &v::<f32>(&un(UnaryOp::Tanh, r1::<f32>(&[0.5]))),
        &[0.5f32.tanh()],
        1e-7,
    );
    assert_close(
        &v::<f32>(&un(UnaryOp::Tan, r1::<f32>(&[0.5]))),
        &[0.5f32.tan()],
        1e-7,
    );
    assert_close(
        &v::<f32>(&un(UnaryOp::Sin, r1::<f32>(&[0.5]))),
        &[0.5f32.sin()],
        1e-7,
    );
    assert_close(
        &v::<f32>(&un(UnaryOp::Cos, r1::<f32>(&[0.5]))),
        &[0.5f32.cos()],
        1e-7,
    );
    assert_close(
        &v::<f32>(&un(UnaryOp::Exp, r1::<f32>(&[1.0]))),
        &[std::f32::consts::E],
        1e-7,
    );
    assert_close(
        &v::<f32>(&un(UnaryOp::Log, r1::<f32>(&[std::f32::consts::E]))),
        &[1.0],
        1e-7,
    );
    assert_eq!(v::<f32>(&un(UnaryOp::Sqrt, r1::<f32>(&[9.0]))), vec![3.0]);
    assert_eq!(
        v::<bool>(&run_op(
            Op::Unary(UnaryOp::IsFinite),
            vec![r1::<f32>(&[
                1.0,
                f32::INFINITY,
                f32::NAN,
                f32::NEG_INFINITY
            ])],
            sh(Pred, &[4])
        )),
        vec![true, false, false, false]
    );
}

#[test]
fn bf16_and_f16_round_after_every_op() {
    // JAX: x*x + x for bf16 [1.5, -2.7] = [3.75, 4.625].
    let mut c = CB::new("main");
    let x = c.param(sh(Bf16, &[2]));
    let xx = c.push(Op::Binary(BinaryOp::Multiply), sh(Bf16, &[2]), &[x, x]);
    let r = c.push(Op::Binary(BinaryOp::Add), sh(Bf16, &[2]), &[xx, x]);
    let mut mb = MB::new();
    let e = mb.add(c.finish(r));
    let m = mb.module(e);
    let out = evaluate(
        &m,
        &[r1(&[bf16::from_f32(1.5), bf16::from_f32(-2.7)])],
        &NoCustomCalls,
    )
    .unwrap();
    assert_eq!(
        v::<bf16>(&out)
            .iter()
            .map(|x| x.to_f32())
            .collect::<Vec<_>>(),
        vec![3.75, 4.625]
    );
    // f16: 2048 + 1 rounds back to 2048 (11-bit significand).
    let s = bin(
        BinaryOp::Add,
        r1(&[f16::from_f32(2048.0)]),
        r1(&[f16::from_f32(1.0)]),
    );
    assert_eq!(v::<f16>(&s)[0].to_f32(), 2048.0);
}

#[test]
fn clamp_and_select() {
    let c = run_op(
        Op::Clamp,
        vec![
            Literal::r0(0.0f32),
            r1::<f32>(&[-1.0, 5.0, f32::NAN, 2.0]),
            Literal::r0(3.0f32),
        ],
        sh(F32, &[4]),
    );
    let c = v::<f32>(&c);
    assert_eq!(c[0], 0.0);
    assert_eq!(c[1], 3.0);
    assert!(c[2].is_nan());
    assert_eq!(c[3], 2.0);
    let c = run_op(
        Op::Clamp,
        vec![
            r1::<i32>(&[0, 1, 2]),
            r1::<i32>(&[-5, 5, 1]),
            r1::<i32>(&[3, 3, 3]),
        ],
        sh(S32, &[3]),
    );
    assert_eq!(v::<i32>(&c), vec![0, 3, 2]);
    let s = run_op(
        Op::Select,
        vec![
            r1(&[true, false, true]),
            r1::<i32>(&[1, 2, 3]),
            r1::<i32>(&[4, 5, 6]),
        ],
        sh(S32, &[3]),
    );
    assert_eq!(v::<i32>(&s), vec![1, 5, 3]);
    let s = run_op(
        Op::Select,
        vec![Literal::r0(false), r1::<i32>(&[1, 2]), r1::<i32>(&[4, 5])],
        sh(S32, &[2]),
    );
    assert_eq!(v::<i32>(&s), vec![4, 5]);
}

#[test]
fn reduce_precision_rounds_to_nearest_even_and_flushes() {
    let two11 = 2f32.powi(-11);
    let x = r1::<f32>(&[1.0 + two11, 1.0 + 3.0 * two11, 1e5, 1e-8, f32::NAN, -1e5]);
    let r = v::<f32>(&run_op(
        Op::ReducePrecision {
            exponent_bits: 5,
            mantissa_bits: 10,
        },
        vec![x],
        sh(F32, &[6]),
    ));
    assert_eq!(r[0], 1.0);
    assert_eq!(r[1], 1.0 + 4.0 * two11);
    assert_eq!(r[2], f32::INFINITY);
    assert_eq!(r[3], 0.0);
    assert!(r[4].is_nan());
    assert_eq!(r[5], f32::NEG_INFINITY);
    // Emulating bf16 on f64.
    let r = v::<f64>(&run_op(
        Op::ReducePrecision {
            exponent_bits: 8,
            mantissa_bits: 7,
        },
        vec![r1::<f64>(&[1.00390625, 1.01171875])],
        sh(F64, &[2]),
    ));
    assert_eq!(r, vec![1.0, 1.015625]);
}

// ------------------------------------------------------------------ data movement

#[test]
fn iota_broadcast_reshape_transpose_reverse() {
    let i = run_op(Op::Iota { dimension: 1 }, vec![], sh(S32, &[2, 3]));
    assert_eq!(v::<i32>(&i), vec![0, 1, 2, 0, 1, 2]);
    let i = run_op(Op::Iota { dimension: 0 }, vec![], sh(F32, &[3, 2]));
    assert_eq!(v::<f32>(&i), vec![0.0, 0.0, 1.0, 1.0, 2.0, 2.0]);
    let b = run_op(
        Op::Broadcast {
            dimensions: vec![1],
        },
        vec![r1::<i32>(&[1, 2, 3])],
        sh(S32, &[2, 3]),
    );
    assert_eq!(v::<i32>(&b), vec![1, 2, 3, 1, 2, 3]);
    let b = run_op(
        Op::Broadcast {
            dimensions: vec![0],
        },
        vec![r1::<i32>(&[1, 2])],
        sh(S32, &[2, 3]),
    );
    assert_eq!(v::<i32>(&b), vec![1, 1, 1, 2, 2, 2]);
    let b = run_op(
        Op::Broadcast { dimensions: vec![] },
        vec![Literal::r0(7u8)],
        sh(U8, &[2]),
    );
    assert_eq!(v::<u8>(&b), vec![7, 7]);
    let x = lit::<i32>(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let r = run_op(Op::Reshape, vec![x.clone()], sh(S32, &[3, 2]));
    assert_eq!(r.shape(), sh(S32, &[3, 2]));
    assert_eq!(v::<i32>(&r), vec![1, 2, 3, 4, 5, 6]);
    let t = run_op(
        Op::Transpose {
            dimensions: vec![1, 0],
        },
        vec![x.clone()],
        sh(S32, &[3, 2]),
    );
    assert_eq!(v::<i32>(&t), vec![1, 4, 2, 5, 3, 6]);
    let x3 = lit::<i32>(&[2, 3, 2], &(0..12).collect::<Vec<_>>());
    let t = run_op(
        Op::Transpose {
            dimensions: vec![2, 0, 1],
        },
        vec![x3],
        sh(S32, &[2, 2, 3]),
    );
    assert_eq!(v::<i32>(&t), vec![0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11]);
    let r = run_op(
        Op::Reverse {
            dimensions: vec![1],
        },
        vec![x.clone()],
        sh(S32, &[2, 3]),
    );
    assert_eq!(v::<i32>(&r), vec![3, 2, 1, 6, 5, 4]);
    let r = run_op(
        Op::Reverse {
            dimensions: vec![0, 1],
        },
        vec![x],
        sh(S32, &[2, 3]),
    );
    assert_eq!(v::<i32>(&r), vec![6, 5, 4, 3, 2, 1]);
}

#[test]
fn slice_with_strides_and_concatenate() {
    let x = lit::<i32>(&[3, 5], &(0..15).collect::<Vec<_>>());
    let s = run_op(
        Op::Slice {
            dims: vec![
                SliceDim {
                    start: 0,
                    limit: 3,
                    stride: 2,
                },
                SliceDim {
                    start: 1,
                    limit: 5,
                    stride: 3,
                },
            ],
        },
        vec![x],
        sh(S32, &[2, 2]),
    );
    assert_eq!(v::<i32>(&s), vec![1, 4, 11, 14]);
    let c = run_op(
        Op::Concatenate { dimension: 1 },
        vec![
            lit::<i32>(&[2, 1], &[1, 2]),
            lit::<i32>(&[2, 2], &[3, 4, 5, 6]),
        ],
        sh(S32, &[2, 3]),
    );
    assert_eq!(v::<i32>(&c), vec![1, 3, 4, 2, 5, 6]);
    let c = run_op(
        Op::Concatenate { dimension: 0 },
        vec![r1::<u8>(&[1]), r1::<u8>(&[2, 3])],
        sh(U8, &[3]),
    );
    assert_eq!(v::<u8>(&c), vec![1, 2, 3]);
}

#[test]
fn dynamic_slice_clamps_start_indices() {
    let x = r1::<i32>(&(0..10).collect::<Vec<_>>());
    let ds = |start: Literal| {
        v::<i32>(&run_op(
            Op::DynamicSlice { sizes: vec![4] },
            vec![x.clone(), start],
            sh(S32, &[4]),
        ))
    };
    assert_eq!(ds(Literal::r0(2i32)), vec![2, 3, 4, 5]);
    assert_eq!(ds(Literal::r0(8i32)), vec![6, 7, 8, 9]);
    assert_eq!(ds(Literal::r0(-3i32)), vec![0, 1, 2, 3]);
    assert_eq!(ds(Literal::r0(200u8)), vec![6, 7, 8, 9]);
    assert_eq!(ds(Literal::r0(i64::MIN)), vec![0, 1, 2, 3]);
    let m = lit::<i32>(&[3, 3], &(0..9).collect::<Vec<_>>());
    let r = run_op(
        Op::DynamicSlice { sizes: vec![2, 2] },
        vec![m, Literal::r0(5i32), Literal::r0(-1i32)],
        sh(S32, &[2, 2]),
    );
    assert_eq!(v::<i32>(&r), vec![3, 4, 6, 7]);
}

#[test]
fn dynamic_update_slice_clamps_start_indices() {
    let x = r1::<i32>(&[0; 5]);
    let u = r1::<i32>(&[1, 2]);
    let d = |s: i32| {
        v::<i32>(&run_op(
            Op::DynamicUpdateSlice,
            vec![x.clone(), u.clone(), Literal::r0(s)],
            sh(S32, &[5]),
        ))
    };
    assert_eq!(d(1), vec![0, 1, 2, 0, 0]);
    assert_eq!(d(4), vec![0, 0, 0, 1, 2]);
    assert_eq!(d(-7), vec![1, 2, 0, 0, 0]);
    let m = lit::<f32>(&[3, 3], &[0.0; 9]);
    let u = lit::<f32>(&[2, 1], &[7.0, 8.0]);
    let r = run_op(
        Op::DynamicUpdateSlice,
        vec![m, u, Literal::r0(9i32), Literal::r0(1i32)],
        sh(F32, &[3, 3]),
    );
    assert_eq!(
        v::<f32>(&r),
        vec![0.0, 0.0, 0.0, 0.0, 7.0, 0.0, 0.0, 8.0, 0.0]
    );
}

#[test]
fn pad_with_negative_and_interior_padding() {
    let p = |x: Literal, dims: Vec<PadDim>, out: &[i64]| {
        v::<i32>(&run_op(
            Op::Pad { dims },
            vec![x, Literal::r0(0i32)],
            sh(S32, out),
        ))
    };
    assert_eq!(
        p(
            r1::<i32>(&[1, 2, 3]),
            vec![PadDim {
                lo: -1,
                hi: 2,
                interior: 1
            }],
            &[6]
        ),
        vec![0, 2, 0, 3, 0, 0]
    );
    assert_eq!(
        p(
            r1::<i32>(&[1, 2, 3]),
            vec![PadDim {
                lo: 2,
                hi: -2,
                interior: 0
            }],
            &[3]
        ),
        vec![0, 0, 1]
    );
    assert_eq!(
        p(
            r1::<i32>(&[1, 2, 3]),
            vec![PadDim {
                lo: 0,
                hi: 0,
                interior: 2
            }],
            &[7]
        ),
        vec![1, 0, 0, 2, 0, 0, 3]
    );
    let m = lit::<i32>(&[2, 2], &[1, 2, 3, 4]);
    let r = p(
        m,
        vec![
            PadDim {
                lo: 1,
                hi: 0,
                interior: 1,
            },
            PadDim {
                lo: 0,
                hi: -1,
                interior: 0,
            },
        ],
        &[4, 1],
    );
    assert_eq!(r, vec![0, 1, 0, 3]);
    let r = run_op(
        Op::Pad {
            dims: vec![PadDim {
                lo: 1,
                hi: 1,
                interior: 0,
            }],
        },
        vec![r1::<f32>(&[5.0]), Literal::r0(-1.0f32)],
        sh(F32, &[3]),
    );
    assert_eq!(v::<f32>(&r), vec![-1.0, 5.0, -1.0]);
}

#[test]
fn bitcast_uses_layouts_and_bitcast_convert_changes_widths() {
    // f32[2,3]{1,0} bitcast to f32[3,2]{0,1}: same physical bytes, i.e. a transpose.
    let mut c = CB::new("main");
    let p = c.param(sh(F32, &[2, 3]));
    let mut out = ArrayShape::new(F32, vec![3, 2]);
    out.layout = Layout {
        minor_to_major: vec![0, 1],
    };
    let r = c.push(Op::Bitcast, Shape::Array(out), &[p]);
    let mut mb = MB::new();
    let e = mb.add(c.finish(r));
    let m = mb.module(e);
    let res = evaluate(
        &m,
        &[lit::<f32>(&[2, 3], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0])],
        &NoCustomCalls,
    )
    .unwrap();
    // The result comes back in the declared layout {0,1}; logical values are the transpose.
    assert_eq!(
        res.as_array().unwrap().shape().layout.minor_to_major,
        vec![0, 1]
    );
    assert_eq!(v::<f32>(&res), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    assert_eq!(
        res.as_array().unwrap().bytes(),
        lit::<f32>(&[6], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
            .as_array()
            .unwrap()
            .bytes()
    );

    let b = run_op(
        Op::BitcastConvert,
        vec![r1::<f32>(&[1.0, -2.0])],
        sh(U32, &[2]),
    );
    assert_eq!(v::<u32>(&b), vec![0x3f80_0000, 0xc000_0000]);
    let b = run_op(Op::BitcastConvert, vec![Literal::r0(1.0f32)], sh(U8, &[4]));
    assert_eq!(v::<u8>(&b), 1.0f32.to_ne_bytes().to_vec());
    let parts: Vec<u16> = {
        let b = 0x1234_5678u32.to_ne_bytes();
        vec![
            u16::from_ne_bytes([b[0], b[1]]),
            u16::from_ne_bytes([b[2], b[3]]),
        ]
    };
    let b = run_op(
        Op::BitcastConvert,
        vec![lit::<u16>(&[1, 2], &parts)],
        sh(U32, &[1]),
    );
    assert_eq!(v::<u32>(&b), vec![0x1234_5678]);
}

// ------------------------------------------------------------------ dot / convolution

fn dot(a: Literal, b: Literal, dn: DotDimensionNumbers, out: Shape) -> Literal {
    run_op(
        Op::Dot {
            dnums: dn,
            precision: vec![],
        },
        vec![a, b],
        out,
    )
}

#[test]
fn dot_matmul_batch_and_multiple_contracting_dims() {
    let a = lit::<f32>(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b = lit::<f32>(&[3, 2], &[7.0, 8.0, 9.0, 10.0, 11.0, 12.0]);
    let dn = DotDimensionNumbers {
        lhs_contracting_dims: vec![1],
        rhs_contracting_dims: vec![0],
        ..Default::default()
    };
    assert_eq!(
        v::<f32>(&dot(a.clone(), b.clone(), dn, sh(F32, &[2, 2]))),
        vec![58.0, 64.0, 139.0, 154.0]
    );
    // Contract both dimensions: sum_ij a[i,j] * b[j,i].
    let dn = DotDimensionNumbers {
        lhs_contracting_dims: vec![0, 1],
        rhs_contracting_dims: vec![1, 0],
        ..Default::default()
    };
    let s = 1.0 * 7.0 + 2.0 * 9.0 + 3.0 * 11.0 + 4.0 * 8.0 + 5.0 * 10.0 + 6.0 * 12.0;
    assert_eq!(v::<f32>(&dot(a, b, dn, sh(F32, &[]))), vec![s]);
    // Batch dims: lhs [2(b),2,3], rhs [3,2(b),1], batch lhs 0 / rhs 1, contract lhs 2 / rhs 0.
    let l = lit::<i32>(&[2, 2, 3], &(1..=12).collect::<Vec<_>>());
    let r = lit::<i32>(&[3, 2, 1], &[1, 2, 3, 4, 5, 6]);
    let dn = DotDimensionNumbers {
        lhs_batch_dims: vec![0],
        rhs_batch_dims: vec![1],
        lhs_contracting_dims: vec![2],
        rhs_contracting_dims: vec![0],
    };
    // batch 0: rhs column [1,3,5]; batch 1: rhs column [2,4,6].
    let exp = vec![
        1 + 2 * 3 + 3 * 5,
        4 + 5 * 3 + 6 * 5,
        7 * 2 + 8 * 4 + 9 * 6,
        10 * 2 + 11 * 4 + 12 * 6,
    ];
    assert_eq!(v::<i32>(&dot(l, r, dn, sh(S32, &[2, 2, 1]))), exp);
    // Vector outer product (no contraction).
    let o = dot(
        r1::<i32>(&[1, 2]),
        r1::<i32>(&[3, 4, 5]),
        DotDimensionNumbers::default(),
        sh(S32, &[2, 3]),
    );
    assert_eq!(v::<i32>(&o), vec![3, 4, 5, 6, 8, 10]);
}

#[test]
fn dot_accumulates_bf16_in_f32_and_integers_in_the_result_type() {
    let ones = vec![bf16::ONE; 300];
    let dn = DotDimensionNumbers {
        lhs_contracting_dims: vec![0],
        rhs_contracting_dims: vec![0],
        ..Default::default()
    };
    let d = dot(r1(&ones), r1(&ones), dn.clone(), sh(Bf16, &[]));
    // Accumulating in bf16 would stall at 256.
    assert_eq!(v::<bf16>(&d)[0].to_f32(), 300.0);
    // s8 x s8 -> s32 (preferred type) does not wrap at 8 bits.
    let d = dot(
        r1::<i8>(&[100, 100]),
        r1::<i8>(&[100, 100]),
        dn.clone(),
        sh(S32, &[]),
    );
    assert_eq!(v::<i32>(&d), vec![20000]);
    // s8 result wraps.
    let d = dot(
        r1::<i8>(&[100, 100]),
        r1::<i8>(&[100, 100]),
        dn.clone(),
        sh(S8, &[]),
    );
    assert_eq!(v::<i8>(&d), vec![20000i32 as i8]);
    // bf16 x bf16 -> f32.
    let d = dot(
        r1(&[bf16::from_f32(1.5), bf16::from_f32(2.0)]),
        r1(&[bf16::from_f32(2.0), bf16::from_f32(0.25)]),
        dn,
        sh(F32, &[]),
    );
    assert_eq!(v::<f32>(&d), vec![3.5]);
}

fn conv_dnums_nchw(nsp: usize) -> ConvDimensionNumbers {
    let sp: Vec<i64> = (2..2 + nsp as i64).collect();
    ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 1,
        input_spatial_dimensions: sp.clone(),
        kernel_output_feature_dimension: 0,
        kernel_input_feature_dimension: 1,
        kernel_spatial_dimensions: sp.clone(),
        output_batch_dimension: 0,
        output_feature_dimension: 1,
        output_spatial_dimensions: sp,
    }
}

#[test]
fn convolution_simple_1d() {
    // [1,2,3,4] * [1,1] -> [3,5,7]; with padding 1 each side and stride 2 -> [1,5,4]... computed below.
    let x = lit::<f32>(&[1, 1, 4], &[1.0, 2.0, 3.0, 4.0]);
    let k = lit::<f32>(&[1, 1, 2], &[1.0, 10.0]);
    let conv = |w: WindowDim, out: &[i64]| {
        v::<f32>(&run_op(
            Op::Convolution {
                window: Window { dims: vec![w] },
                dnums: conv_dnums_nchw(1),
                feature_group_count: 1,
                batch_group_count: 1,
                precision: vec![],
            },
            vec![x.clone(), k.clone()],
            sh(F32, out),
        ))
    };
    assert_eq!(conv(WindowDim::new(2), &[1, 1, 3]), vec![21.0, 32.0, 43.0]);
    let w = WindowDim {
        pad_lo: 1,
        pad_hi: 1,
        stride: 2,
        ..WindowDim::new(2)
    };
    // padded [0,1,2,3,4,0]: windows at 0,2,4: 0+10, 2+30, 4+0.
    assert_eq!(conv(w, &[1, 1, 3]), vec![10.0, 32.0, 4.0]);
    let w = WindowDim {
        reversal: true,
        ..WindowDim::new(2)
    };
    assert_eq!(conv(w, &[1, 1, 3]), vec![12.0, 23.0, 34.0]);
    // lhs (base) dilation 2: [1,_,2,_,3,_,4] -> windows of 2 -> 7 positions -> 6 outputs.
    let w = WindowDim {
        base_dilation: 2,
        ..WindowDim::new(2)
    };
    assert_eq!(conv(w, &[1, 1, 6]), vec![1.0, 20.0, 2.0, 30.0, 3.0, 40.0]);
    // rhs (window) dilation 2: x[i] + 10 x[i+2].
    let w = WindowDim {
        window_dilation: 2,
        ..WindowDim::new(2)
    };
    assert_eq!(conv(w, &[1, 1, 2]), vec![31.0, 42.0]);
}

#[test]
fn convolution_with_feature_groups_and_dilations_matches_jax() {
    let lhs: Vec<f32> = (0..100).map(|i| i as f32 / 10.0).collect();
    let rhs: Vec<f32> = (0..48).map(|i| (i as f32 - 20.0) / 7.0).collect();
    let window = Window {
        dims: vec![
            WindowDim {
                size: 2,
                stride: 2,
                pad_lo: 1,
                pad_hi: 0,
                window_dilation: 2,
                base_dilation: 1,
                reversal: false,
            },
            WindowDim {
                size: 2,
                stride: 1,
                pad_lo: 0,
                pad_hi: 1,
                window_dilation: 1,
                base_dilation: 2,
                reversal: false,
            },
        ],
    };
    let out = run_op(
        Op::Convolution {
            window,
            dnums: conv_dnums_nchw(2),
            feature_group_count: 2,
            batch_group_count: 1,
            precision: vec![],
        },
        vec![lit(&[1, 4, 5, 5], &lhs), lit(&[6, 2, 2, 2], &rhs)],
        sh(F32, &[1, 6, 2, 9]),
    );
    // jax.lax.conv_general_dilated(..., window_strides=(2,1), padding=((1,0),(0,1)),
    //   lhs_dilation=(1,2), rhs_dilation=(2,1), feature_group_count=2)
    #[rustfmt::skip]
    let expected: [f32; 108] = [
        -7.285714, -7.2142854, -7.742857, -7.642857, -8.2, -8.071428, -8.657143, -8.5, -9.114285,
        -20.142857, -19.771427, -21.114285, -20.685715, -22.085714, -21.6, -23.057144, -22.514284, -24.028572,
        -3.2857144, -2.9857142, -3.5142858, -3.1857142, -3.7428572, -3.3857143, -3.9714286, -3.5857143, -4.2000003,
        -9.857143, -9.028571, -10.371428, -9.485714, -10.885715, -9.942858, -11.400001, -10.400001, -11.914286,
        0.71428573, 1.2428571, 0.71428573, 1.2714286, 0.7142858, 1.3, 0.71428573, 1.3285714, 0.7142858,
        0.42857146, 1.7142856, 0.3714285, 1.7142856, 0.31428564, 1.7142859, 0.2571429, 1.7142859, 0.2000001,
        16.142857, 18.328571, 16.37143, 18.585714, 16.6, 18.842857, 16.828573, 19.1, 17.057142,
        30.714287, 35.314285, 31.114286, 35.771427, 31.514286, 36.228573, 31.914288, 36.685715, 32.314285,
        31.571428, 33.985714, 32.02857, 34.471428, 32.485714, 34.95714, 32.942856, 35.442856, 33.4,
        63.857143, 68.91428, 64.71429, 69.82857, 65.57143, 70.74286, 66.42857, 71.65714, 67.28571,
        47.0, 49.64286, 47.685715, 50.357143, 48.371426, 51.07143, 49.05714, 51.785713, 49.742855,
        97.0, 102.51428, 98.31429, 103.88571, 99.62856, 105.25715, 100.94286, 106.62857, 102.25714,
    ];
    assert_close(&v::<f32>(&out), &expected, 1e-5);
}

#[test]
fn convolution_with_batch_groups_matches_jax() {
    let lhs: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let rhs: Vec<f32> = (0..16).map(|i| i as f32 - 3.0).collect();
    let out = run_op(
        Op::Convolution {
            window: Window {
                dims: vec![WindowDim::new(2)],
            },
            dnums: conv_dnums_nchw(1),
            feature_group_count: 1,
            batch_group_count: 2,
            precision: vec![],
        },
        vec![lit(&[4, 2, 3], &lhs), lit(&[4, 2, 2], &rhs)],
        sh(F32, &[2, 4, 2]),
    );
    let expected = [
        -5.0, -11.0, 27.0, 37.0, 371.0, 397.0, 595.0, 637.0, -41.0, -47.0, 87.0, 97.0, 527.0,
        553.0, 847.0, 889.0,
    ];
    assert_eq!(v::<f32>(&out), expected.to_vec());
}

#[test]
fn convolution_nhwc_integer() {
    // NWC input [1,3,2], WIO kernel [2,2,1]: out[w] = sum_k sum_c x[w+k,c] * k[k,c].
    let dn = ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 2,
        input_spatial_dimensions: vec![1],
        kernel_output_feature_dimension: 2,
        kernel_input_feature_dimension: 1,
        kernel_spatial_dimensions: vec![0],
        output_batch_dimension: 0,
        output_feature_dimension: 2,
        output_spatial_dimensions: vec![1],
    };
    let x = lit::<i32>(&[1, 3, 2], &[1, 2, 3, 4, 5, 6]);
    let k = lit::<i32>(&[2, 2, 1], &[1, 10, 100, 1000]);
    let out = run_op(
        Op::Convolution {
            window: Window {
                dims: vec![WindowDim::new(2)],
            },
            dnums: dn,
            feature_group_count: 1,
            batch_group_count: 1,
            precision: vec![],
        },
        vec![x, k],
        sh(S32, &[1, 2, 1]),
    );
    assert_eq!(
        v::<i32>(&out),
        vec![1 + 20 + 300 + 4000, 3 + 40 + 500 + 6000]
    );
}

// ------------------------------------------------------------------ reductions

#[test]
fn reduce_sum_over_dimensions() {
    let mut mb = MB::new();
    let add = mb.binary("add", F32, BinaryOp::Add);
    let x = lit::<f32>(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let r = run_op_with(
        mb,
        Op::Reduce {
            dimensions: vec![1],
        },
        vec![x.clone(), Literal::r0(0.0f32)],
        sh(F32, &[2]),
        &[add],
    )
    .unwrap();
    assert_eq!(v::<f32>(&r), vec![6.0, 15.0]);
    let mut mb = MB::new();
    let add = mb.binary("add", F32, BinaryOp::Add);
    let r = run_op_with(
        mb,
        Op::Reduce {
            dimensions: vec![0, 1],
        },
        vec![x.clone(), Literal::r0(10.0f32)],
        sh(F32, &[]),
        &[add],
    )
    .unwrap();
    assert_eq!(v::<f32>(&r), vec![31.0]);
    let mut mb = MB::new();
    let mx = mb.binary("max", F32, BinaryOp::Maximum);
    let r = run_op_with(
        mb,
        Op::Reduce {
            dimensions: vec![0],
        },
        vec![x, Literal::r0(f32::NEG_INFINITY)],
        sh(F32, &[3]),
        &[mx],
    )
    .unwrap();
    assert_eq!(v::<f32>(&r), vec![4.0, 5.0, 6.0]);
    // bf16 sum rounds per step (256 + 1 = 256 in bf16).
    let mut mb = MB::new();
    let add = mb.binary("add", Bf16, BinaryOp::Add);
    let ones = vec![bf16::ONE; 300];
    let r = run_op_with(
        mb,
        Op::Reduce {
            dimensions: vec![0],
        },
        vec![r1(&ones), Literal::r0(bf16::ZERO)],
        sh(Bf16, &[]),
        &[add],
    )
    .unwrap();
    assert_eq!(v::<bf16>(&r)[0].to_f32(), 256.0);
}

#[test]
fn reduce_with_a_general_computation_applies_in_order() {
    // f(acc, x) = acc * 2 + x, init 0, over [1, 2, 3] -> ((1)*2+2)*2+3 = 11.
    let mut mb = MB::new();
    let mut c = CB::new("f");
    let a = c.param(Shape::scalar(S32));
    let x = c.param(Shape::scalar(S32));
    let two = c.constant(Literal::r0(2i32));
    let m = c.push(
        Op::Binary(BinaryOp::Multiply),
        Shape::scalar(S32),
        &[a, two],
    );
    let r = c.push(Op::Binary(BinaryOp::Add), Shape::scalar(S32), &[m, x]);
    let f = mb.add(c.finish(r));
    let out = run_op_with(
        mb,
        Op::Reduce {
            dimensions: vec![1],
        },
        vec![lit::<i32>(&[2, 3], &[1, 2, 3, 0, 0, 1]), Literal::r0(0i32)],
        sh(S32, &[2]),
        &[f],
    )
    .unwrap();
    assert_eq!(v::<i32>(&out), vec![11, 1]);
}

/// Variadic argmax reducer: (max_v, max_i, v, i) keeping the smaller index on ties.
fn argmax_comp(mb: &mut MB) -> CompId {
    let mut c = CB::new("argmax");
    let av = c.param(Shape::scalar(F32));
    let ai = c.param(Shape::scalar(S32));
    let bv = c.param(Shape::scalar(F32));
    let bi = c.param(Shape::scalar(S32));
    let p = Shape::scalar(Pred);
    let gt = c.push(
        Op::Compare {
            direction: ComparisonDirection::Gt,
            cmp_type: None,
        },
        p.clone(),
        &[av, bv],
    );
    let eq = c.push(
        Op::Compare {
            direction: ComparisonDirection::Eq,
            cmp_type: None,
        },
        p.clone(),
        &[av, bv],
    );
    let lt_i = c.push(
        Op::Compare {
            direction: ComparisonDirection::Lt,
            cmp_type: None,
        },
        p.clone(),
        &[ai, bi],
    );
    let tie = c.push(Op::Binary(BinaryOp::And), p.clone(), &[eq, lt_i]);
    let keep = c.push(Op::Binary(BinaryOp::Or), p, &[gt, tie]);
    let v = c.push(Op::Select, Shape::scalar(F32), &[keep, av, bv]);
    let i = c.push(Op::Select, Shape::scalar(S32), &[keep, ai, bi]);
    let t = c.push(
        Op::Tuple,
        Shape::tuple(vec![Shape::scalar(F32), Shape::scalar(S32)]),
        &[v, i],
    );
    mb.add(c.finish(t))
}

#[test]
fn variadic_reduce_argmax() {
    let mut mb = MB::new();
    let f = argmax_comp(&mut mb);
    let vals = lit::<f32>(&[2, 4], &[1.0, 9.0, 3.0, 9.0, -1.0, -5.0, -0.5, -2.0]);
    let idx = lit::<i32>(&[2, 4], &[0, 1, 2, 3, 0, 1, 2, 3]);
    let out = run_op_with(
        mb,
        Op::Reduce {
            dimensions: vec![1],
        },
        vec![
            vals,
            idx,
            Literal::r0(f32::NEG_INFINITY),
            Literal::r0(-1i32),
        ],
        Shape::tuple(vec![sh(F32, &[2]), sh(S32, &[2])]),
        &[f],
    )
    .unwrap();
    let t = out.tuple_elements().unwrap();
    assert_eq!(v::<f32>(&t[0]), vec![9.0, -0.5]);
    assert_eq!(v::<i32>(&t[1]), vec![1, 2]);
}

#[test]
fn reduce_window_padding_strides_and_dilations() {
    let x = r1::<f32>(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    let rw = |w: WindowDim, out: i64| {
        let mut mb = MB::new();
        let add = mb.binary("add", F32, BinaryOp::Add);
        v::<f32>(
            &run_op_with(
                mb,
                Op::ReduceWindow {
                    window: Window { dims: vec![w] },
                },
                vec![x.clone(), Literal::r0(0.0f32)],
                sh(F32, &[out]),
                &[add],
            )
            .unwrap(),
        )
    };
    assert_eq!(
        rw(
            WindowDim {
                pad_lo: 1,
                pad_hi: 1,
                ..WindowDim::new(2)
            },
            6
        ),
        vec![1.0, 3.0, 5.0, 7.0, 9.0, 5.0]
    );
    assert_eq!(
        rw(
            WindowDim {
                pad_lo: 1,
                pad_hi: 1,
                stride: 2,
                ..WindowDim::new(3)
            },
            3
        ),
        vec![3.0, 9.0, 9.0]
    );
    assert_eq!(
        rw(
            WindowDim {
                base_dilation: 2,
                ..WindowDim::new(2)
            },
            8
        ),
        vec![1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 5.0]
    );
    assert_eq!(
        rw(
            WindowDim {
                window_dilation: 2,
                ..WindowDim::new(2)
            },
            3
        ),
        vec![4.0, 6.0, 8.0]
    );
    // 2-D max pool 2x2 stride 2.
    let mut mb = MB::new();
    let mx = mb.binary("max", S32, BinaryOp::Maximum);
    let w = WindowDim {
        stride: 2,
        ..WindowDim::new(2)
    };
    let out = run_op_with(
        mb,
        Op::ReduceWindow {
            window: Window { dims: vec![w, w] },
        },
        vec![
            lit::<i32>(
                &[4, 4],
                &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
            ),
            Literal::r0(i32::MIN),
        ],
        sh(S32, &[2, 2]),
        &[mx],
    )
    .unwrap();
    assert_eq!(v::<i32>(&out), vec![6, 8, 14, 16]);
    // Variadic reduce-window (argmax in windows of 2).
    let mut mb = MB::new();
    let f = argmax_comp(&mut mb);
    let out = run_op_with(
        mb,
        Op::ReduceWindow {
            window: Window {
                dims: vec![WindowDim::new(2)],
            },
        },
        vec![
            r1::<f32>(&[1.0, 3.0, 2.0]),
            r1::<i32>(&[0, 1, 2]),
            Literal::r0(f32::NEG_INFINITY),
            Literal::r0(-1i32),
        ],
        Shape::tuple(vec![sh(F32, &[2]), sh(S32, &[2])]),
        &[f],
    )
    .unwrap();
    let t = out.tuple_elements().unwrap();
    assert_eq!(v::<f32>(&t[0]), vec![3.0, 3.0]);
    assert_eq!(v::<i32>(&t[1]), vec![1, 1]);
}

#[test]
fn select_and_scatter_routes_source_to_selected_elements() {
    let sas = |operand: Vec<f32>, source: Vec<f32>, w: WindowDim| {
        let mut mb = MB::new();
        let ge = mb.comparator("ge", F32, ComparisonDirection::Ge, None);
        let add = mb.binary("add", F32, BinaryOp::Add);
        let n = operand.len() as i64;
        v::<f32>(
            &run_op_with(
                mb,
                Op::SelectAndScatter {
                    window: Window { dims: vec![w] },
                },
                vec![r1(&operand), r1(&source), Literal::r0(0.0f32)],
                sh(F32, &[n]),
                &[ge, add],
            )
            .unwrap(),
        )
    };
    let w = WindowDim {
        stride: 2,
        ..WindowDim::new(2)
    };
    assert_eq!(
        sas(
            vec![1.0, 9.0, 3.0, 7.0, 5.0, 6.0],
            vec![10.0, 20.0, 30.0],
            w
        ),
        vec![0.0, 10.0, 0.0, 20.0, 0.0, 30.0]
    );
    // Overlapping windows accumulate.
    assert_eq!(
        sas(
            vec![3.0, 1.0, 4.0, 1.0, 5.0],
            vec![1.0, 2.0, 3.0],
            WindowDim::new(3)
        ),
        vec![0.0, 0.0, 3.0, 0.0, 3.0]
    );
    // Ties keep the first element (select = GE keeps the current one).
    assert_eq!(
        sas(vec![2.0, 2.0], vec![5.0], WindowDim::new(2)),
        vec![5.0, 0.0]
    );
    // Padding: windows may cover padding, which is never selected.
    let w = WindowDim {
        pad_lo: 1,
        pad_hi: 0,
        stride: 2,
        ..WindowDim::new(2)
    };
    assert_eq!(
        sas(vec![-1.0, -2.0, -3.0], vec![1.0, 2.0], w),
        vec![1.0, 2.0, 0.0]
    );
}

// ------------------------------------------------------------------ gather / scatter

#[test]
fn gather_rows_with_clamped_indices() {
    let operand = lit::<i32>(&[3, 3], &(0..9).collect::<Vec<_>>());
    let dn = GatherDimensionNumbers {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let out = run_op(
        Op::Gather {
            dnums: dn,
            slice_sizes: vec![1, 3],
            indices_are_sorted: false,
        },
        vec![operand.clone(), r1::<i32>(&[2, 0, 5, -4])],
        sh(S32, &[4, 3]),
    );
    assert_eq!(v::<i32>(&out), vec![6, 7, 8, 0, 1, 2, 6, 7, 8, 0, 1, 2]);
    // 2x2 windows at (0,1) and (2,2) (clamped to (1,1)).
    let dn = GatherDimensionNumbers {
        offset_dims: vec![1, 2],
        start_index_map: vec![0, 1],
        index_vector_dim: 1,
        ..Default::default()
    };
    let out = run_op(
        Op::Gather {
            dnums: dn,
            slice_sizes: vec![2, 2],
            indices_are_sorted: false,
        },
        vec![operand.clone(), lit::<i64>(&[2, 2], &[0, 1, 2, 2])],
        sh(S32, &[2, 2, 2]),
    );
    assert_eq!(v::<i32>(&out), vec![1, 2, 4, 5, 4, 5, 7, 8]);
    // index_vector_dim = 0 with offset dims first.
    let dn = GatherDimensionNumbers {
        offset_dims: vec![0],
        collapsed_slice_dims: vec![1],
        start_index_map: vec![1],
        index_vector_dim: 0,
        ..Default::default()
    };
    let out = run_op(
        Op::Gather {
            dnums: dn,
            slice_sizes: vec![3, 1],
            indices_are_sorted: false,
        },
        vec![operand, lit::<i32>(&[1, 2], &[2, 0])],
        sh(S32, &[3, 2]),
    );
    assert_eq!(v::<i32>(&out), vec![2, 0, 5, 3, 8, 6]);
}

#[test]
fn gather_with_batching_dims() {
    let operand = lit::<i32>(&[2, 3], &[0, 1, 2, 3, 4, 5]);
    let dn = GatherDimensionNumbers {
        offset_dims: vec![],
        collapsed_slice_dims: vec![1],
        start_index_map: vec![1],
        index_vector_dim: 1,
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
    };
    let out = run_op(
        Op::Gather {
            dnums: dn,
            slice_sizes: vec![1, 1],
            indices_are_sorted: false,
        },
        vec![operand, lit::<i32>(&[2, 1], &[2, 0])],
        sh(S32, &[2]),
    );
    assert_eq!(v::<i32>(&out), vec![2, 3]);
}

#[test]
fn scatter_add_with_duplicates_and_out_of_bounds() {
    let mut mb = MB::new();
    let add = mb.binary("add", F32, BinaryOp::Add);
    let dn = ScatterDimensionNumbers {
        update_window_dims: vec![],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let out = run_op_with(
        mb,
        Op::Scatter {
            dnums: dn,
            indices_are_sorted: false,
            unique_indices: false,
        },
        vec![
            r1::<f32>(&[0.0; 5]),
            lit::<i32>(&[5, 1], &[1, 3, 1, 7, -1]),
            r1::<f32>(&[10.0, 20.0, 30.0, 40.0, 50.0]),
        ],
        sh(F32, &[5]),
        &[add],
    )
    .unwrap();
    assert_eq!(v::<f32>(&out), vec![0.0, 40.0, 0.0, 20.0, 0.0]);
}

#[test]
fn scatter_windows_skip_when_they_do_not_fit() {
    // Overwrite combiner (returns the update).
    let mut mb = MB::new();
    let mut c = CB::new("set");
    c.param(Shape::scalar(S32));
    let u = c.param(Shape::scalar(S32));
    let set = mb.add(c.finish(u));
    let dn = ScatterDimensionNumbers {
        update_window_dims: vec![1, 2],
        inserted_window_dims: vec![],
        scatter_dims_to_operand_dims: vec![0, 1],
        index_vector_dim: 1,
        ..Default::default()
    };
    let updates = lit::<i32>(&[3, 2, 2], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    let out = run_op_with(
        mb,
        Op::Scatter {
            dnums: dn,
            indices_are_sorted: false,
            unique_indices: false,
        },
        vec![
            lit::<i32>(&[3, 3], &[0; 9]),
            lit::<i32>(&[3, 2], &[0, 1, 2, 2, -1, 0]),
            updates,
        ],
        sh(S32, &[3, 3]),
        &[set],
    )
    .unwrap();
    // Only the window at (0,1) fits; (2,2) and (-1,0) are skipped entirely.
    assert_eq!(v::<i32>(&out), vec![0, 1, 2, 0, 3, 4, 0, 0, 0]);
}

#[test]
fn scatter_with_general_combiner_and_multiple_operands() {
    // f((a0, a1), (u0, u1)) = (a0 * 10 + u0, a1 + u1), applied in index order.
    let mut mb = MB::new();
    let mut c = CB::new("f");
    let a0 = c.param(Shape::scalar(S32));
    let a1 = c.param(Shape::scalar(F32));
    let u0 = c.param(Shape::scalar(S32));
    let u1 = c.param(Shape::scalar(F32));
    let ten = c.constant(Literal::r0(10i32));
    let m = c.push(
        Op::Binary(BinaryOp::Multiply),
        Shape::scalar(S32),
        &[a0, ten],
    );
    let r0 = c.push(Op::Binary(BinaryOp::Add), Shape::scalar(S32), &[m, u0]);
    let r1_ = c.push(Op::Binary(BinaryOp::Add), Shape::scalar(F32), &[a1, u1]);
    let t = c.push(
        Op::Tuple,
        Shape::tuple(vec![Shape::scalar(S32), Shape::scalar(F32)]),
        &[r0, r1_],
    );
    let f = mb.add(c.finish(t));
    let dn = ScatterDimensionNumbers {
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let out = run_op_with(
        mb,
        Op::Scatter {
            dnums: dn,
            indices_are_sorted: false,
            unique_indices: false,
        },
        vec![
            r1::<i32>(&[0, 5]),
            r1::<f32>(&[0.5, 0.0]),
            lit::<i32>(&[3, 1], &[0, 0, 1]),
            r1::<i32>(&[1, 2, 3]),
            r1::<f32>(&[1.0, 2.0, 4.0]),
        ],
        Shape::tuple(vec![sh(S32, &[2]), sh(F32, &[2])]),
        &[f],
    )
    .unwrap();
    let t = out.tuple_elements().unwrap();
    assert_eq!(v::<i32>(&t[0]), vec![12, 53]);
    assert_eq!(v::<f32>(&t[1]), vec![3.5, 4.0]);
}

#[test]
fn scatter_with_batching_dims() {
    let mut mb = MB::new();
    let add = mb.binary("add", S32, BinaryOp::Add);
    let dn = ScatterDimensionNumbers {
        update_window_dims: vec![],
        inserted_window_dims: vec![1],
        scatter_dims_to_operand_dims: vec![1],
        index_vector_dim: 1,
        input_batching_dims: vec![0],
        scatter_indices_batching_dims: vec![0],
    };
    let out = run_op_with(
        mb,
        Op::Scatter {
            dnums: dn,
            indices_are_sorted: false,
            unique_indices: false,
        },
        vec![
            lit::<i32>(&[2, 3], &[0; 6]),
            lit::<i32>(&[2, 1], &[2, 0]),
            r1::<i32>(&[7, 9]),
        ],
        sh(S32, &[2, 3]),
        &[add],
    )
    .unwrap();
    assert_eq!(v::<i32>(&out), vec![0, 0, 7, 9, 0, 0]);
}

// ------------------------------------------------------------------ sort

#[test]
fn sort_is_stable_and_multi_operand() {
    let mut mb = MB::new();
    let mut c = CB::new("lt");
    let a = c.param(Shape::scalar(S32));
    let b = c.param(Shape::scalar(S32));
    c.param(Shape::scalar(F32));
    c.param(Shape::scalar(F32));
    let r = c.push(
        Op::Compare {
            direction: ComparisonDirection::Lt,
            cmp_type: None,
        },
        Shape::scalar(Pred),
        &[a, b],
    );
    let lt = mb.add(c.finish(r));
    let out = run_op_with(
        mb,
        Op::Sort {
            dimension: 0,
            is_stable: true,
        },
        vec![
            r1::<i32>(&[3, 1, 2, 1, 3]),
            r1::<f32>(&[0.0, 1.0, 2.0, 3.0, 4.0]),
        ],
        Shape::tuple(vec![sh(S32, &[5]), sh(F32, &[5])]),
        &[lt],
    )
    .unwrap();
    let t = out.tuple_elements().unwrap();
    assert_eq!(v::<i32>(&t[0]), vec![1, 1, 2, 3, 3]);
    assert_eq!(v::<f32>(&t[1]), vec![1.0, 3.0, 2.0, 0.0, 4.0]);
}

#[test]
fn sort_with_general_comparator_along_a_dimension() {
    // Descending by |x| via a non-trivial comparator: abs(a) > abs(b).
    let mut mb = MB::new();
    let mut c = CB::new("absgt");
    let a = c.param(Shape::scalar(S32));
    let b = c.param(Shape::scalar(S32));
    let aa = c.push(Op::Unary(UnaryOp::Abs), Shape::scalar(S32), &[a]);
    let bb = c.push(Op::Unary(UnaryOp::Abs), Shape::scalar(S32), &[b]);
    let r = c.push(
        Op::Compare {
            direction: ComparisonDirection::Gt,
            cmp_type: None,
        },
        Shape::scalar(Pred),
        &[aa, bb],
    );
    let f = mb.add(c.finish(r));
    let out = run_op_with(
        mb,
        Op::Sort {
            dimension: 0,
            is_stable: true,
        },
        vec![lit::<i32>(&[3, 2], &[1, -5, -3, 2, 2, -4])],
        sh(S32, &[3, 2]),
        &[f],
    )
    .unwrap();
    // column 0: [1,-3,2] -> [-3,2,1]; column 1: [-5,2,-4] -> [-5,-4,2]
    assert_eq!(v::<i32>(&out), vec![-3, -5, 2, -4, 1, 2]);
}

#[test]
fn sort_floats_in_total_order() {
    let mut mb = MB::new();
    let lt = mb.comparator(
        "lt",
        F32,
        ComparisonDirection::Lt,
        Some(ComparisonType::TotalOrder),
    );
    let out = run_op_with(
        mb,
        Op::Sort {
            dimension: 0,
            is_stable: false,
        },
        vec![r1::<f32>(&[
            f32::NAN,
            1.0,
            -f32::NAN,
            0.0,
            -0.0,
            f32::NEG_INFINITY,
        ])],
        sh(F32, &[6]),
        &[lt],
    )
    .unwrap();
    let r = v::<f32>(&out);
    assert!(r[0].is_nan() && r[0].is_sign_negative());
    assert_eq!(r[1], f32::NEG_INFINITY);
    assert!(r[2] == 0.0 && r[2].is_sign_negative());
    assert!(r[3] == 0.0 && r[3].is_sign_positive());
    assert_eq!(r[4], 1.0);
    assert!(r[5].is_nan() && r[5].is_sign_positive());
}

// ------------------------------------------------------------------ control flow

#[test]
fn while_loop_sums_one_to_ten() {
    let st = Shape::tuple(vec![Shape::scalar(S32), Shape::scalar(S32)]);
    let mut mb = MB::new();
    let mut c = CB::new("cond");
    let p = c.param(st.clone());
    let i = c.push(Op::GetTupleElement { index: 0 }, Shape::scalar(S32), &[p]);
    let ten = c.constant(Literal::r0(10i32));
    let r = c.push(
        Op::Compare {
            direction: ComparisonDirection::Le,
            cmp_type: None,
        },
        Shape::scalar(Pred),
        &[i, ten],
    );
    let cond = mb.add(c.finish(r));
    let mut b = CB::new("body");
    let p = b.param(st.clone());
    let i = b.push(Op::GetTupleElement { index: 0 }, Shape::scalar(S32), &[p]);
    let s = b.push(Op::GetTupleElement { index: 1 }, Shape::scalar(S32), &[p]);
    let one = b.constant(Literal::r0(1i32));
    let i2 = b.push(Op::Binary(BinaryOp::Add), Shape::scalar(S32), &[i, one]);
    let s2 = b.push(Op::Binary(BinaryOp::Add), Shape::scalar(S32), &[s, i]);
    let t = b.push(Op::Tuple, st.clone(), &[i2, s2]);
    let body = mb.add(b.finish(t));
    let mut m = CB::new("main");
    let one = m.constant(Literal::r0(1i32));
    let zero = m.constant(Literal::r0(0i32));
    let init = m.push(Op::Tuple, st.clone(), &[one, zero]);
    let w = m.call(Op::While, st, &[init], &[cond, body]);
    let r = m.push(Op::GetTupleElement { index: 1 }, Shape::scalar(S32), &[w]);
    let e = mb.add(m.finish(r));
    let module = mb.module(e);
    assert_eq!(
        v::<i32>(&evaluate(&module, &[], &NoCustomCalls).unwrap()),
        vec![55]
    );
}

fn branch(mb: &mut MB, name: &str, op: BinaryOp) -> CompId {
    let mut c = CB::new(name);
    let p = c.param(Shape::scalar(F32));
    let r = c.push(Op::Binary(op), Shape::scalar(F32), &[p, p]);
    mb.add(c.finish(r))
}

#[test]
fn conditional_with_pred_and_index() {
    let run = |sel: Literal, n: usize| {
        let mut mb = MB::new();
        let ops = [BinaryOp::Add, BinaryOp::Multiply, BinaryOp::Subtract];
        let bs: Vec<CompId> = (0..n)
            .map(|i| branch(&mut mb, &format!("b{i}"), ops[i]))
            .collect();
        let mut inputs = vec![sel];
        for _ in 0..n {
            inputs.push(Literal::r0(3.0f32));
        }
        v::<f32>(&run_op_with(mb, Op::Conditional, inputs, Shape::scalar(F32), &bs).unwrap())[0]
    };
    assert_eq!(run(Literal::r0(true), 2), 6.0);
    assert_eq!(run(Literal::r0(false), 2), 9.0);
    assert_eq!(run(Literal::r0(0i32), 3), 6.0);
    assert_eq!(run(Literal::r0(1i32), 3), 9.0);
    assert_eq!(run(Literal::r0(2i32), 3), 0.0);
    // Out of range -> last branch.
    assert_eq!(run(Literal::r0(7i32), 3), 0.0);
    assert_eq!(run(Literal::r0(-1i32), 3), 0.0);
}

#[test]
fn call_fusion_map_tuple_copy_barrier_after_all() {
    let mut mb = MB::new();
    // fused(a, b) = a * b + a
    let mut f = CB::new("fused");
    let a = f.param(sh(F32, &[3]));
    let b = f.param(sh(F32, &[3]));
    let m = f.push(Op::Binary(BinaryOp::Multiply), sh(F32, &[3]), &[a, b]);
    let r = f.push(Op::Binary(BinaryOp::Add), sh(F32, &[3]), &[m, a]);
    let fused = mb.add(f.finish(r));
    let mut g = CB::new("mapped");
    let x = g.param(Shape::scalar(F32));
    let y = g.param(Shape::scalar(F32));
    let s = g.push(Op::Binary(BinaryOp::Subtract), Shape::scalar(F32), &[x, y]);
    let mapped = mb.add(g.finish(s));
    let mut c = CB::new("main");
    let a = c.param(sh(F32, &[3]));
    let b = c.param(sh(F32, &[3]));
    let fu = c.call(
        Op::Fusion {
            kind: FusionKind::Loop,
        },
        sh(F32, &[3]),
        &[a, b],
        &[fused],
    );
    let ca = c.call(Op::Call, sh(F32, &[3]), &[b, a], &[fused]);
    let mp = c.call(
        Op::Map {
            dimensions: vec![0],
        },
        sh(F32, &[3]),
        &[fu, ca],
        &[mapped],
    );
    let cp = c.push(Op::Copy, sh(F32, &[3]), &[mp]);
    let tup = c.push(
        Op::Tuple,
        Shape::tuple(vec![sh(F32, &[3]), sh(F32, &[3])]),
        &[cp, a],
    );
    let ob = c.push(
        Op::OptimizationBarrier,
        Shape::tuple(vec![sh(F32, &[3]), sh(F32, &[3])]),
        &[tup],
    );
    let tok = c.push(Op::AfterAll, Shape::Token, &[]);
    let g0 = c.push(Op::GetTupleElement { index: 0 }, sh(F32, &[3]), &[ob]);
    let root = c.push(
        Op::Tuple,
        Shape::tuple(vec![sh(F32, &[3]), Shape::Token]),
        &[g0, tok],
    );
    let e = mb.add(c.finish(root));
    let m = mb.module(e);
    let out = evaluate(
        &m,
        &[r1::<f32>(&[1.0, 2.0, 3.0]), r1::<f32>(&[4.0, 5.0, 6.0])],
        &NoCustomCalls,
    )
    .unwrap();
    let t = out.tuple_elements().unwrap();
    // fusion: a*b+a = [5,12,21]; call(b,a): b*a+b = [8,15,24]; map: [-3,-3,-3]
    assert_eq!(v::<f32>(&t[0]), vec![-3.0, -3.0, -3.0]);
    assert_eq!(t[1], Literal::Token);
}

// ------------------------------------------------------------------ rng

fn rng(alg: RngAlgorithm, state: &[u64], out: Shape) -> (Vec<u64>, Literal) {
    let st = sh(U64, &[state.len() as i64]);
    let r = run_op(
        Op::RngBitGenerator { algorithm: alg },
        vec![r1(state)],
        Shape::tuple(vec![st, out]),
    );
    let t = r.tuple_elements().unwrap();
    (v::<u64>(&t[0]), t[1].clone())
}

#[test]
fn rng_bit_generator_philox_matches_xla_cpu() {
    // Expected values: jax.lax.rng_bit_generator on CPU with key [0x1234, 0x5678].
    let key = [0x1234u64, 0x5678];
    let (s, x) = rng(RngAlgorithm::Philox, &key, sh(U32, &[5]));
    assert_eq!(s, vec![0x1234, 0x567a]);
    assert_eq!(
        v::<u32>(&x),
        vec![0xcdb96ecd, 0x68fe7ae5, 0xd645d6c4, 0x840c054e, 0xfe8adf16]
    );
    let (s, x) = rng(RngAlgorithm::Default, &key, sh(U32, &[3]));
    assert_eq!(s, vec![0x1234, 0x5679]);
    assert_eq!(v::<u32>(&x), vec![0xcdb96ecd, 0x68fe7ae5, 0xd645d6c4]);
    let (s, x) = rng(RngAlgorithm::Philox, &key, sh(U64, &[3]));
    assert_eq!(s, vec![0x1234, 0x567a]);
    assert_eq!(
        v::<u64>(&x),
        vec![0x68fe7ae5cdb96ecd, 0x840c054ed645d6c4, 0xa7251efe8adf16]
    );
    let (s, x) = rng(RngAlgorithm::Philox, &key, sh(U32, &[3, 3]));
    assert_eq!(s, vec![0x1234, 0x567b]);
    assert_eq!(
        v::<u32>(&x),
        vec![
            0xcdb96ecd, 0x68fe7ae5, 0xd645d6c4, 0x840c054e, 0xfe8adf16, 0xa7251e, 0xb21151ad,
            0xed6cf43f, 0xcc1b0f83
        ]
    );
    let (s, x) = rng(RngAlgorithm::Philox, &key, sh(U16, &[4]));
    assert_eq!(s, vec![0x1234, 0x5679]);
    assert_eq!(v::<u16>(&x), vec![0x6ecd, 0x7ae5, 0xd6c4, 0x054e]);
    // Counter wrap-around into the high word.
    let (s, x) = rng(
        RngAlgorithm::Philox,
        &[0xffff_ffff_ffff_fffe, 0xffff_ffff_ffff_ffff],
        sh(U32, &[9]),
    );
    assert_eq!(s, vec![0xffff_ffff_ffff_fffe, 0x2]);
    assert_eq!(
        v::<u32>(&x),
        vec![
            0x7d5ce3c8, 0x1a477084, 0x62da867e, 0x245edcbf, 0x2bda2dd6, 0x981d11c8, 0xab0a330e,
            0x106efcb4, 0xc84b0145
        ]
    );
    // Other element types are the same bits.
    let (_, x) = rng(RngAlgorithm::Philox, &key, sh(S32, &[1]));
    assert_eq!(v::<i32>(&x), vec![0xcdb96ecdu32 as i32]);
}

#[test]
fn rng_bit_generator_threefry_matches_xla_cpu() {
    let key = [0x1234u64, 0x5678];
    let (s, x) = rng(RngAlgorithm::ThreeFry, &key, sh(U32, &[5]));
    assert_eq!(s, vec![0x1234, 0x567b]);
    assert_eq!(
        v::<u32>(&x),
        vec![0x977c0faf, 0x4ec2e103, 0x2f10bea2, 0xab25b614, 0x482c5484]
    );
    let (s, x) = rng(RngAlgorithm::ThreeFry, &key, sh(U64, &[3]));
    assert_eq!(s, vec![0x1234, 0x567b]);
    assert_eq!(
        v::<u64>(&x),
        vec![0x4ec2e103977c0faf, 0xab25b6142f10bea2, 0x54271038482c5484]
    );
    let (s, x) = rng(RngAlgorithm::ThreeFry, &key, sh(U32, &[2, 3]));
    assert_eq!(s, vec![0x1234, 0x567b]);
    assert_eq!(
        v::<u32>(&x),
        vec![0x977c0faf, 0x2f10bea2, 0x482c5484, 0x4ec2e103, 0xab25b614, 0x54271038]
    );
    let (s, x) = rng(RngAlgorithm::ThreeFry, &key, sh(U32, &[3, 3]));
    assert_eq!(s, vec![0x1234, 0x567e]);
    assert_eq!(
        v::<u32>(&x),
        vec![
            0x977c0faf, 0x2f10bea2, 0x482c5484, 0x4ec2e103, 0xab25b614, 0x54271038, 0xa483382c,
            0xcc7458c8, 0x52323f29
        ]
    );
    let (s, x) = rng(RngAlgorithm::ThreeFry, &key, sh(U32, &[]));
    assert_eq!(s, vec![0x1234, 0x5679]);
    assert_eq!(v::<u32>(&x), vec![0x977c0faf]);
    let (s, x) = rng(RngAlgorithm::ThreeFry, &key, sh(U16, &[4]));
    assert_eq!(s, vec![0x1234, 0x567a]);
    assert_eq!(v::<u16>(&x), vec![0x0faf, 0xe103, 0xbea2, 0xb614]);
}

// ------------------------------------------------------------------ custom calls, layouts, errors

struct Doubler;

impl CustomCallHandler for Doubler {
    fn call(
        &self,
        inst: &Instruction,
        call: &CustomCall,
        operands: &[&Literal],
    ) -> Result<Literal, String> {
        if call.target != "double" {
            return Err(format!("unknown target {}", call.target));
        }
        let a = operands[0].as_array().map_err(|e| e.to_string())?;
        // The handler sees bytes in the operand's declared layout.
        let raw: Vec<f32> = a
            .bytes()
            .chunks_exact(4)
            .map(|c| f32::from_ne_bytes(c.try_into().unwrap()) * 2.0)
            .collect();
        let bytes: Vec<u8> = raw.iter().flat_map(|x| x.to_ne_bytes()).collect();
        let shape = inst.shape.as_array().unwrap().clone();
        Ok(Literal::Array(
            ArrayLiteral::from_bytes(shape, bytes).map_err(|e| e.to_string())?,
        ))
    }
}

fn custom_call_module(target: &str) -> Module {
    let mut col = ArrayShape::new(F32, vec![2, 2]);
    col.layout = Layout {
        minor_to_major: vec![0, 1],
    };
    let mut c = CB::new("main");
    let p = c.param(sh(F32, &[2, 2]));
    let cp = c.push(Op::Copy, Shape::Array(col.clone()), &[p]);
    let cc = CustomCall {
        target: target.to_string(),
        ..Default::default()
    };
    let r = c.push(Op::CustomCall(Box::new(cc)), Shape::Array(col), &[cp]);
    let mut mb = MB::new();
    let e = mb.add(c.finish(r));
    mb.module(e)
}

#[test]
fn custom_calls_go_through_the_handler_with_declared_layouts() {
    let m = custom_call_module("double");
    let x = lit::<f32>(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let out = evaluate(&m, &[x], &Doubler).unwrap();
    assert_eq!(v::<f32>(&out), vec![2.0, 4.0, 6.0, 8.0]);
    // Result in the root's declared column-major layout.
    let a = out.as_array().unwrap();
    assert_eq!(a.shape().layout.minor_to_major, vec![0, 1]);
    let phys: Vec<f32> = a
        .bytes()
        .chunks_exact(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(phys, vec![2.0, 6.0, 4.0, 8.0]);
}

#[test]
fn custom_call_errors_name_instruction_and_target() {
    let x = lit::<f32>(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let err = evaluate(
        &custom_call_module("double"),
        std::slice::from_ref(&x),
        &NoCustomCalls,
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, EvalError::CustomCall { .. }));
    assert!(
        msg.contains("main.2") && msg.contains("double") && msg.contains("no custom-call handler"),
        "{msg}"
    );
    let err = evaluate(&custom_call_module("triple"), &[x], &Doubler).unwrap_err();
    assert!(err.to_string().contains("unknown target triple"), "{err}");
}

#[test]
fn arguments_with_other_layouts_are_accepted() {
    let mut c = CB::new("main");
    let p = c.param(sh(S32, &[2, 3]));
    let one = c.constant(Literal::r0(1i32));
    let b = c.push(
        Op::Broadcast { dimensions: vec![] },
        sh(S32, &[2, 3]),
        &[one],
    );
    let r = c.push(Op::Binary(BinaryOp::Add), sh(S32, &[2, 3]), &[p, b]);
    let mut mb = MB::new();
    let e = mb.add(c.finish(r));
    let m = mb.module(e);
    let x = lit::<i32>(&[2, 3], &[1, 2, 3, 4, 5, 6])
        .as_array()
        .unwrap()
        .relayout(Layout {
            minor_to_major: vec![0, 1],
        });
    let out = evaluate(&m, &[Literal::Array(x)], &NoCustomCalls).unwrap();
    assert_eq!(
        out.as_array().unwrap().shape().layout,
        Layout::default_for_rank(2)
    );
    assert_eq!(v::<i32>(&out), vec![2, 3, 4, 5, 6, 7]);
}

#[test]
fn wrong_arguments_are_errors_naming_the_parameter() {
    let mut c = CB::new("main");
    let p = c.param(sh(F32, &[3]));
    let r = c.push(Op::Unary(UnaryOp::Negate), sh(F32, &[3]), &[p]);
    let mut mb = MB::new();
    let e = mb.add(c.finish(r));
    let m = mb.module(e);
    let err = evaluate(&m, &[], &NoCustomCalls).unwrap_err();
    assert!(
        matches!(
            err,
            EvalError::ArgumentCount {
                expected: 1,
                actual: 0,
                ..
            }
        ),
        "{err}"
    );
    let err = evaluate(&m, &[r1::<f32>(&[1.0, 2.0])], &NoCustomCalls)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("main.0") && err.contains("f32[3]") && err.contains("f32[2]"),
        "{err}"
    );
    let err = evaluate(&m, &[r1::<i32>(&[1, 2, 3])], &NoCustomCalls)
        .unwrap_err()
        .to_string();
    assert!(err.contains("s32[3]"), "{err}");
}

#[test]
fn malformed_instructions_are_errors_not_panics() {
    // Declared shape disagrees with the computed one.
    let e = run_op_with(
        MB::new(),
        Op::Binary(BinaryOp::Add),
        vec![r1::<f32>(&[1.0]), r1::<f32>(&[2.0])],
        sh(F32, &[2]),
        &[],
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("main.2") && e.to_string().contains("declares"),
        "{e}"
    );
    // Mismatched operand shapes.
    let e = run_op_with(
        MB::new(),
        Op::Binary(BinaryOp::Add),
        vec![r1::<f32>(&[1.0]), r1::<f32>(&[2.0, 3.0])],
        sh(F32, &[1]),
        &[],
    )
    .unwrap_err();
    assert!(e.to_string().contains("different dimensions"), "{e}");
    // Float-only op on integers.
    let e = run_op_with(
        MB::new(),
        Op::Unary(UnaryOp::Exp),
        vec![r1::<i32>(&[1])],
        sh(S32, &[1]),
        &[],
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("exponential is not defined for element type s32"),
        "{e}"
    );
    // Bad slice.
    let e = run_op_with(
        MB::new(),
        Op::Slice {
            dims: vec![SliceDim {
                start: 0,
                limit: 9,
                stride: 1,
            }],
        },
        vec![r1::<i32>(&[1])],
        sh(S32, &[9]),
        &[],
    )
    .unwrap_err();
    assert!(e.to_string().contains("slice"), "{e}");
    // Bad transpose permutation, bad reduce dims, missing called computation.
    let e = run_op_with(
        MB::new(),
        Op::Transpose {
            dimensions: vec![0, 0],
        },
        vec![lit::<i32>(&[1, 1], &[1])],
        sh(S32, &[1, 1]),
        &[],
    )
    .unwrap_err();
    assert!(e.to_string().contains("permutation"), "{e}");
    let e = run_op_with(
        MB::new(),
        Op::Reduce {
            dimensions: vec![3],
        },
        vec![r1::<i32>(&[1]), Literal::r0(0i32)],
        sh(S32, &[]),
        &[],
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("called computation") || e.to_string().contains("reduce dimensions"),
        "{e}"
    );
    let e = run_op_with(
        MB::new(),
        Op::Gather {
            dnums: GatherDimensionNumbers {
                index_vector_dim: 5,
                ..Default::default()
            },
            slice_sizes: vec![1],
            indices_are_sorted: false,
        },
        vec![r1::<i32>(&[1]), r1::<i32>(&[0])],
        sh(S32, &[1]),
        &[],
    )
    .unwrap_err();
    assert!(e.to_string().contains("index_vector_dim"), "{e}");
    // Operand referring to a later instruction.
    let mut c = CB::new("main");
    let bogus = InstId::new(5);
    let r = c.push(Op::Unary(UnaryOp::Negate), sh(F32, &[]), &[bogus]);
    let mut mb = MB::new();
    let en = mb.add(c.finish(r));
    let m = mb.module(en);
    let e = evaluate(&m, &[], &NoCustomCalls).unwrap_err();
    assert!(e.to_string().contains("topological"), "{e}");
}

#[test]
fn errors_inside_called_computations_name_the_inner_instruction() {
    let mut mb = MB::new();
    let mut f = CB::new("inner");
    let p = f.param(Shape::scalar(S32));
    let r = f.push(Op::Unary(UnaryOp::Sqrt), Shape::scalar(S32), &[p]);
    let inner = mb.add(f.finish(r));
    let e = run_op_with(
        mb,
        Op::Call,
        vec![Literal::r0(4i32)],
        Shape::scalar(S32),
        &[inner],
    )
    .unwrap_err();
    let s = e.to_string();
    assert!(
        s.contains("`inner`") && s.contains("inner.1") && s.contains("sqrt"),
        "{s}"
    );
}

#[test]
fn large_elementwise_ops_are_fast_enough() {
    let n = 1 << 22;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let t = std::time::Instant::now();
    let r = bin(BinaryOp::Add, lit(&[n as i64], &x), lit(&[n as i64], &x));
    let out = v::<f32>(&r);
    assert_eq!(out[12345], 24690.0);
    assert!(t.elapsed().as_secs() < 30, "took {:?}", t.elapsed());
}

// ------------------------------------------------------------------ JAX corpus

fn corpus_literal(ty: ElementType, dims: &[i64], text: &str) -> Literal {
    let toks: Vec<&str> = text.split_whitespace().collect();
    let f = |t: &&str| t.parse::<f64>().unwrap();
    let i = |t: &&str| t.parse::<i128>().unwrap();
    match ty {
        Pred => lit(dims, &toks.iter().map(|t| *t == "1").collect::<Vec<_>>()),
        S8 => lit(dims, &toks.iter().map(|t| i(t) as i8).collect::<Vec<_>>()),
        S16 => lit(dims, &toks.iter().map(|t| i(t) as i16).collect::<Vec<_>>()),
        S32 => lit(dims, &toks.iter().map(|t| i(t) as i32).collect::<Vec<_>>()),
        S64 => lit(dims, &toks.iter().map(|t| i(t) as i64).collect::<Vec<_>>()),
        U8 => lit(dims, &toks.iter().map(|t| i(t) as u8).collect::<Vec<_>>()),
        U16 => lit(dims, &toks.iter().map(|t| i(t) as u16).collect::<Vec<_>>()),
        U32 => lit(dims, &toks.iter().map(|t| i(t) as u32).collect::<Vec<_>>()),
        U64 => lit(dims, &toks.iter().map(|t| i(t) as u64).collect::<Vec<_>>()),
        F16 => lit(
            dims,
            &toks.iter().map(|t| f16::from_f64(f(t))).collect::<Vec<_>>(),
        ),
        Bf16 => lit(
            dims,
            &toks
                .iter()
                .map(|t| bf16::from_f64(f(t)))
                .collect::<Vec<_>>(),
        ),
        F32 => lit(dims, &toks.iter().map(|t| f(t) as f32).collect::<Vec<_>>()),
        F64 => lit(dims, &toks.iter().map(f).collect::<Vec<_>>()),
    }
}

/// Every element of an array literal as f64 (exact for all integers used here).
fn as_f64s(l: &Literal) -> Vec<f64> {
    let a = l.as_array().unwrap();
    match a.ty() {
        Pred => v::<bool>(l).into_iter().map(|x| x as u8 as f64).collect(),
        S8 => v::<i8>(l).into_iter().map(|x| x as f64).collect(),
        S16 => v::<i16>(l).into_iter().map(|x| x as f64).collect(),
        S32 => v::<i32>(l).into_iter().map(|x| x as f64).collect(),
        S64 => v::<i64>(l).into_iter().map(|x| x as f64).collect(),
        U8 => v::<u8>(l).into_iter().map(|x| x as f64).collect(),
        U16 => v::<u16>(l).into_iter().map(|x| x as f64).collect(),
        U32 => v::<u32>(l).into_iter().map(|x| x as f64).collect(),
        U64 => v::<u64>(l).into_iter().map(|x| x as f64).collect(),
        F16 => v::<f16>(l).into_iter().map(|x| x.to_f64()).collect(),
        Bf16 => v::<bf16>(l).into_iter().map(|x| x.to_f64()).collect(),
        F32 => v::<f32>(l).into_iter().map(|x| x as f64).collect(),
        F64 => v::<f64>(l),
    }
}

fn parse_section_header(h: &str) -> (ElementType, Vec<i64>) {
    // "f32 [2,3]"
    let (ty, dims) = h.split_once(' ').unwrap();
    let dims = dims.trim().trim_start_matches('[').trim_end_matches(']');
    let dims: Vec<i64> = if dims.is_empty() {
        vec![]
    } else {
        dims.split(',').map(|d| d.trim().parse().unwrap()).collect()
    };
    (ElementType::from_name(ty).unwrap(), dims)
}

#[test]
fn jax_corpus_matches_jax_on_cpu() {
    let src = include_str!("data/jax_cases.txt");
    let mut checked = 0;
    for case in src.split("=== ").skip(1) {
        let (header, rest) = case.split_once('\n').unwrap();
        let (name, tol) = header.split_once(" tol=").unwrap();
        let tol: f64 = tol.trim().parse().unwrap();
        let mut sections = rest.split("--- ");
        let hlo = sections.next().unwrap();
        let module =
            hlox_hlo::text::parse::parse_module(hlo).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut args = Vec::new();
        let mut outs = Vec::new();
        for s in sections {
            let (h, body) = s.split_once('\n').unwrap();
            let (kind, h) = h.split_once(' ').unwrap();
            let (ty, dims) = parse_section_header(h);
            let l = corpus_literal(ty, &dims, body);
            if kind == "arg" {
                args.push(l);
            } else {
                outs.push(l);
            }
        }
        let got =
            evaluate(&module, &args, &NoCustomCalls).unwrap_or_else(|e| panic!("{name}: {e}"));
        let leaves = got.leaves();
        assert_eq!(leaves.len(), outs.len(), "{name}: number of results");
        for (k, (g, want)) in leaves.iter().zip(&outs).enumerate() {
            assert_eq!(
                g.shape().element_type(),
                want.shape().element_type(),
                "{name} result {k}"
            );
            assert_eq!(
                g.as_array().unwrap().dims(),
                want.as_array().unwrap().dims(),
                "{name} result {k}"
            );
            let (gv, wv) = (as_f64s(g), as_f64s(want));
            for (j, (a, b)) in gv.iter().zip(&wv).enumerate() {
                let ok =
                    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol * (1.0 + b.abs());
                assert!(
                    ok,
                    "{name} result {k} element {j}: evaluator {a}, JAX {b}\n{gv:?}\n{wv:?}"
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 36, "only {checked} cases");
}
