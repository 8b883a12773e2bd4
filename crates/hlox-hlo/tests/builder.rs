use hlox_hlo::builder::{BuildError, XlaBuilder, XlaComputation, XlaOp};
use hlox_hlo::ir::*;
use hlox_hlo::shape_inference::short;
use hlox_hlo::verifier::verify_module;
use hlox_hlo::{ElementType as T, Literal, Shape};

fn sh(t: T, d: &[i64]) -> Shape {
    Shape::array(t, d.to_vec())
}
fn f32s(d: &[i64]) -> Shape {
    sh(T::F32, d)
}

type Un = fn(&XlaBuilder, XlaOp) -> Result<XlaOp, BuildError>;
type Bin = fn(&XlaBuilder, XlaOp, XlaOp) -> Result<XlaOp, BuildError>;

fn shape_of(b: &XlaBuilder, op: XlaOp) -> String {
    short(&b.get_shape(op).unwrap())
}

/// (T, T) -> T for a binary op.
fn binary_comp(
    name: &str,
    ty: T,
    f: impl Fn(&XlaBuilder, XlaOp, XlaOp) -> Result<XlaOp, BuildError>,
) -> XlaComputation {
    let b = XlaBuilder::new(name);
    let x = b.parameter(0, &sh(ty, &[]), "x").unwrap();
    let y = b.parameter(1, &sh(ty, &[]), "y").unwrap();
    let r = f(&b, x, y).unwrap();
    b.build(r).unwrap()
}

fn add_comp(ty: T) -> XlaComputation {
    binary_comp("add_comp", ty, |b, x, y| b.add(x, y))
}

fn lt_comp(ty: T) -> XlaComputation {
    binary_comp("lt_comp", ty, |b, x, y| b.lt(x, y))
}

fn err_text<X: std::fmt::Debug>(r: Result<X, BuildError>) -> String {
    match r {
        Ok(x) => panic!("expected an error, got {x:?}"),
        Err(e) => e.to_string(),
    }
}

fn assert_err(r: Result<XlaOp, BuildError>, needles: &[&str]) {
    let t = err_text(r);
    for n in needles {
        assert!(t.contains(n), "error {t:?} does not contain {n:?}");
    }
}

#[test]
fn elementwise_ops_shapes() {
    let b = XlaBuilder::new("ew");
    let x = b.parameter(0, &f32s(&[2, 3]), "x").unwrap();
    let y = b.parameter(1, &f32s(&[2, 3]), "y").unwrap();
    let i = b.parameter(2, &sh(T::S32, &[2, 3]), "i").unwrap();
    let p = b.parameter(3, &sh(T::Pred, &[2, 3]), "p").unwrap();
    let float_unary: [Un; 20] = [
        XlaBuilder::neg,
        XlaBuilder::abs,
        XlaBuilder::sign,
        XlaBuilder::exp,
        XlaBuilder::expm1,
        XlaBuilder::log,
        XlaBuilder::log1p,
        XlaBuilder::sqrt,
        XlaBuilder::rsqrt,
        XlaBuilder::cbrt,
        XlaBuilder::tanh,
        XlaBuilder::logistic,
        XlaBuilder::sin,
        XlaBuilder::cos,
        XlaBuilder::tan,
        XlaBuilder::floor,
        XlaBuilder::ceil,
        XlaBuilder::round_nearest_afz,
        XlaBuilder::round_nearest_even,
        XlaBuilder::erf,
    ];
    let mut outs = Vec::new();
    for f in float_unary {
        let r = f(&b, x).unwrap();
        assert_eq!(shape_of(&b, r), "f32[2,3]");
        outs.push(r);
    }
    let fin = b.is_finite(x).unwrap();
    assert_eq!(shape_of(&b, fin), "pred[2,3]");
    for f in [
        XlaBuilder::popcnt,
        XlaBuilder::clz,
        XlaBuilder::not,
        XlaBuilder::neg,
    ] {
        assert_eq!(shape_of(&b, f(&b, i).unwrap()), "s32[2,3]");
    }
    assert_eq!(shape_of(&b, b.not(p).unwrap()), "pred[2,3]");
    let float_bin: [Bin; 9] = [
        XlaBuilder::add,
        XlaBuilder::sub,
        XlaBuilder::mul,
        XlaBuilder::div,
        XlaBuilder::rem,
        XlaBuilder::pow,
        XlaBuilder::max,
        XlaBuilder::min,
        XlaBuilder::atan2,
    ];
    for f in float_bin {
        assert_eq!(shape_of(&b, f(&b, x, y).unwrap()), "f32[2,3]");
    }
    let int_bin: [Bin; 6] = [
        XlaBuilder::and,
        XlaBuilder::or,
        XlaBuilder::xor,
        XlaBuilder::shift_left,
        XlaBuilder::shift_right_logical,
        XlaBuilder::shift_right_arithmetic,
    ];
    for f in int_bin {
        assert_eq!(shape_of(&b, f(&b, i, i).unwrap()), "s32[2,3]");
    }
    assert_eq!(shape_of(&b, b.and(p, p).unwrap()), "pred[2,3]");
    let cmps: [Bin; 6] = [
        XlaBuilder::eq,
        XlaBuilder::ne,
        XlaBuilder::lt,
        XlaBuilder::le,
        XlaBuilder::gt,
        XlaBuilder::ge,
    ];
    for f in cmps {
        assert_eq!(shape_of(&b, f(&b, x, y).unwrap()), "pred[2,3]");
    }
    let tot = b
        .compare_with_type(ComparisonDirection::Lt, ComparisonType::TotalOrder, x, y)
        .unwrap();
    assert_eq!(shape_of(&b, tot), "pred[2,3]");
    let lt = b.lt(x, y).unwrap();
    assert_eq!(shape_of(&b, b.select(lt, x, y).unwrap()), "f32[2,3]");
    let lo = b.constant_r0(0f32).unwrap();
    let hi = b.constant_r0(1f32).unwrap();
    assert_eq!(shape_of(&b, b.clamp(lo, x, hi).unwrap()), "f32[2,3]");
    assert_eq!(shape_of(&b, b.clamp(x, x, x).unwrap()), "f32[2,3]");
    assert_eq!(shape_of(&b, b.convert(x, T::S8).unwrap()), "s8[2,3]");
    assert_eq!(
        shape_of(&b, b.bitcast_convert(x, T::U32).unwrap()),
        "u32[2,3]"
    );
    assert_eq!(
        shape_of(&b, b.bitcast_convert(x, T::U8).unwrap()),
        "u8[2,3,4]"
    );
    let u8s = b.bitcast_convert(x, T::U8).unwrap();
    assert_eq!(
        shape_of(&b, b.bitcast_convert(u8s, T::F32).unwrap()),
        "f32[2,3]"
    );
    assert_eq!(
        shape_of(&b, b.reduce_precision(x, 5, 10).unwrap()),
        "f32[2,3]"
    );
    let m = b.build_module(outs[0]).unwrap();
    verify_module(&m).unwrap();
}

#[test]
fn elementwise_errors_name_op_and_shapes() {
    let b = XlaBuilder::new("bad");
    let x = b.parameter(0, &f32s(&[2, 3]), "x").unwrap();
    let v = b.parameter(1, &f32s(&[3]), "v").unwrap();
    let i = b.parameter(2, &sh(T::S32, &[2, 3]), "i").unwrap();
    let p = b.parameter(3, &sh(T::Pred, &[2, 3]), "p").unwrap();
    assert_eq!(
        err_text(b.add(x, v)),
        "add: operand shapes f32[2,3] and f32[3] differ"
    );
    assert_err(b.mul(x, i), &["multiply", "f32[2,3]", "s32[2,3]"]);
    assert_err(b.exp(i), &["exponential", "s32[2,3]", "floating-point"]);
    assert_err(b.sqrt(i), &["sqrt", "s32[2,3]"]);
    assert_err(b.is_finite(i), &["is-finite", "s32[2,3]"]);
    assert_err(b.popcnt(x), &["popcnt", "f32[2,3]", "integral"]);
    assert_err(b.clz(x), &["count-leading-zeros", "f32[2,3]"]);
    assert_err(b.and(x, x), &["and", "f32[2,3]"]);
    assert_err(b.shift_left(x, x), &["shift-left", "f32[2,3]"]);
    assert_err(b.atan2(i, i), &["atan2", "s32[2,3]"]);
    assert_err(b.neg(p), &["negate", "pred[2,3]"]);
    assert_err(b.add(p, p), &["add", "pred[2,3]"]);
    assert_err(b.lt(x, v), &["compare", "f32[2,3]", "f32[3]"]);
    assert_err(
        b.compare_with_type(ComparisonDirection::Lt, ComparisonType::Signed, x, x),
        &["compare", "SIGNED", "f32"],
    );
    assert_err(b.select(x, x, x), &["select", "f32[2,3]", "pred"]);
    let pv = b.parameter(4, &sh(T::Pred, &[3]), "pv").unwrap();
    assert_err(b.select(pv, x, x), &["select", "pred[3]", "f32[2,3]"]);
    assert_err(b.clamp(v, x, v), &["clamp", "f32[3]", "f32[2,3]"]);
    assert_err(
        b.reduce_precision(i, 5, 10),
        &["reduce-precision", "s32[2,3]"],
    );
    assert_err(
        b.reduce_precision(x, 0, 10),
        &["reduce-precision", "exponent_bits"],
    );
    let r = b.reshape(x, &[6]).unwrap();
    assert_err(
        b.bitcast_convert(r, T::F64),
        &["bitcast-convert", "f32[6]", "f64"],
    );
}

#[test]
fn shape_ops() {
    let b = XlaBuilder::new("shape_ops");
    let x = b.parameter(0, &f32s(&[2, 3]), "x").unwrap();
    let s = b.parameter(1, &f32s(&[]), "s").unwrap();
    let one = b.parameter(2, &f32s(&[1, 3]), "one").unwrap();
    let i0 = b.constant_r0(1i32).unwrap();
    assert_eq!(
        shape_of(&b, b.broadcast(x, &[4, 5]).unwrap()),
        "f32[4,5,2,3]"
    );
    assert_eq!(
        shape_of(&b, b.broadcast_in_dim(x, &[2, 4, 3], &[0, 2]).unwrap()),
        "f32[2,4,3]"
    );
    assert_eq!(
        shape_of(&b, b.broadcast_in_dim(one, &[5, 3], &[0, 1]).unwrap()),
        "f32[5,3]"
    );
    assert_eq!(
        shape_of(&b, b.broadcast_in_dim(s, &[7], &[]).unwrap()),
        "f32[7]"
    );
    assert_eq!(shape_of(&b, b.reshape(x, &[3, 2]).unwrap()), "f32[3,2]");
    assert_eq!(
        shape_of(&b, b.bitcast(x, &sh(T::S32, &[6])).unwrap()),
        "s32[6]"
    );
    assert_eq!(shape_of(&b, b.transpose(x, &[1, 0]).unwrap()), "f32[3,2]");
    assert_eq!(shape_of(&b, b.rev(x, &[0, 1]).unwrap()), "f32[2,3]");
    assert_eq!(
        shape_of(&b, b.slice(x, &[0, 1], &[2, 3], &[1, 2]).unwrap()),
        "f32[2,1]"
    );
    assert_eq!(
        shape_of(&b, b.slice_in_dim(x, 1, 3, 1, 1).unwrap()),
        "f32[2,2]"
    );
    assert_eq!(
        shape_of(&b, b.dynamic_slice(x, &[i0, i0], &[1, 2]).unwrap()),
        "f32[1,2]"
    );
    let upd = b.slice(x, &[0, 0], &[1, 2], &[1, 1]).unwrap();
    assert_eq!(
        shape_of(&b, b.dynamic_update_slice(x, upd, &[i0, i0]).unwrap()),
        "f32[2,3]"
    );
    assert_eq!(
        shape_of(&b, b.concat_in_dim(&[x, x, one], 0).unwrap()),
        "f32[5,3]"
    );
    let pad = [
        PadDim {
            lo: 1,
            hi: 2,
            interior: 1,
        },
        PadDim {
            lo: -1,
            hi: 0,
            interior: 0,
        },
    ];
    assert_eq!(shape_of(&b, b.pad(x, s, &pad).unwrap()), "f32[6,2]");
    assert_eq!(
        shape_of(&b, b.iota(&sh(T::S32, &[4, 5]), 1).unwrap()),
        "s32[4,5]"
    );
    let c = b.constant_r1(&[1u8, 2, 3]).unwrap();
    assert_eq!(shape_of(&b, c), "u8[3]");
    let lit = Literal::r2(&[&[1.0f64, 2.0], &[3.0, 4.0]]).unwrap();
    assert_eq!(shape_of(&b, b.constant_literal(&lit).unwrap()), "f64[2,2]");
    assert_eq!(shape_of(&b, b.copy(x).unwrap()), "f32[2,3]");
    let t = b.tuple(&[x, s]).unwrap();
    assert_eq!(shape_of(&b, t), "(f32[2,3], f32[])");
    assert_eq!(shape_of(&b, b.get_tuple_element(t, 1).unwrap()), "f32[]");
    assert_eq!(
        shape_of(&b, b.optimization_barrier(t).unwrap()),
        "(f32[2,3], f32[])"
    );
    let tok = b.create_token().unwrap();
    assert_eq!(shape_of(&b, b.after_all(&[tok, tok]).unwrap()), "token[]");
    let root = b.tuple(&[t, tok]).unwrap();
    verify_module(&b.build_module(root).unwrap()).unwrap();
}

#[test]
fn shape_op_errors() {
    let b = XlaBuilder::new("bad_shapes");
    let x = b.parameter(0, &f32s(&[2, 3]), "x").unwrap();
    let s = b.parameter(1, &f32s(&[]), "s").unwrap();
    let f = b.parameter(2, &f32s(&[]), "f").unwrap();
    assert_err(
        b.broadcast_in_dim(x, &[4, 3], &[0, 1]),
        &["broadcast", "f32[2,3]", "f32[4,3]"],
    );
    assert_err(
        b.broadcast_in_dim(x, &[2, 3], &[1, 1]),
        &["broadcast", "duplicate"],
    );
    assert_err(b.reshape(x, &[4]), &["reshape", "f32[2,3]", "f32[4]"]);
    assert_err(
        b.bitcast(x, &f32s(&[5])),
        &["bitcast", "f32[2,3]", "f32[5]"],
    );
    assert_err(b.transpose(x, &[0, 0]), &["transpose", "duplicate"]);
    assert_err(b.transpose(x, &[0]), &["transpose", "f32[2,3]"]);
    assert_err(b.rev(x, &[2]), &["reverse", "out of range"]);
    assert_err(
        b.slice(x, &[0, 0], &[3, 3], &[1, 1]),
        &["slice", "f32[2,3]", "out of bounds"],
    );
    assert_err(b.slice(x, &[0, 0], &[2, 3], &[1, 0]), &["slice", "stride"]);
    assert_err(
        b.dynamic_slice(x, &[f, f], &[1, 1]),
        &["dynamic-slice", "integral scalar", "f32[]"],
    );
    let i = b.constant_r0(0i32).unwrap();
    assert_err(
        b.dynamic_slice(x, &[i, i], &[3, 1]),
        &["dynamic-slice", "slice size 3", "f32[2,3]"],
    );
    assert_err(
        b.dynamic_slice(x, &[i], &[1, 1]),
        &["dynamic-slice", "expects 3 operands"],
    );
    let big = b.parameter(3, &f32s(&[4, 4]), "big").unwrap();
    assert_err(
        b.dynamic_update_slice(x, big, &[i, i]),
        &["dynamic-update-slice", "f32[4,4]", "f32[2,3]"],
    );
    let y = b.parameter(4, &f32s(&[3, 3]), "y").unwrap();
    assert_err(
        b.concat_in_dim(&[x, y], 1),
        &["concatenate", "f32[2,3]", "f32[3,3]"],
    );
    assert_err(b.concat_in_dim(&[], 0), &["concatenate", "at least 1"]);
    let pad = [
        PadDim {
            lo: -5,
            hi: 0,
            interior: 0,
        },
        PadDim::default(),
    ];
    assert_err(b.pad(x, s, &pad), &["pad", "negative", "f32[2,3]"]);
    assert_err(
        b.pad(x, x, &[PadDim::default(); 2]),
        &["pad", "padding value f32[2,3]"],
    );
    assert_err(b.iota(&f32s(&[]), 0), &["iota", "scalars"]);
    assert_err(b.iota(&f32s(&[3]), 1), &["iota", "out of range"]);
    assert_err(
        b.get_tuple_element(x, 0),
        &["get-tuple-element", "f32[2,3]", "tuple"],
    );
    let t = b.tuple(&[x]).unwrap();
    assert_err(
        b.get_tuple_element(t, 1),
        &["get-tuple-element", "index 1", "(f32[2,3])"],
    );
    assert_err(b.after_all(&[x]), &["after-all", "token", "f32[2,3]"]);
    assert_err(
        b.parameter(0, &f32s(&[1]), "again"),
        &["parameter", "already used"],
    );
    let mut bad_layout = hlox_hlo::ArrayShape::new(T::F32, vec![2, 2]);
    bad_layout.layout.minor_to_major = vec![1, 1];
    assert_err(
        b.parameter(9, &Shape::Array(bad_layout), "bl"),
        &["parameter", "layout"],
    );
    assert_err(
        b.parameter(9, &f32s(&[-2]), "neg"),
        &["parameter", "negative"],
    );
}

#[test]
fn dot_and_conv() {
    let b = XlaBuilder::new("lin");
    let m = b.parameter(0, &f32s(&[2, 3]), "m").unwrap();
    let n = b.parameter(1, &f32s(&[3, 4]), "n").unwrap();
    let v = b.parameter(2, &f32s(&[3]), "v").unwrap();
    assert_eq!(shape_of(&b, b.dot(m, n).unwrap()), "f32[2,4]");
    assert_eq!(shape_of(&b, b.dot(m, v).unwrap()), "f32[2]");
    assert_eq!(shape_of(&b, b.dot(v, v).unwrap()), "f32[]");
    let bl = b.parameter(3, &f32s(&[5, 2, 3]), "bl").unwrap();
    let br = b.parameter(4, &f32s(&[5, 4, 3]), "br").unwrap();
    let dn = DotDimensionNumbers {
        lhs_batch_dims: vec![0],
        rhs_batch_dims: vec![0],
        lhs_contracting_dims: vec![2],
        rhs_contracting_dims: vec![2],
    };
    let d = b
        .dot_general(bl, br, &dn, &[Precision::Highest, Precision::Highest])
        .unwrap();
    assert_eq!(shape_of(&b, d), "f32[5,2,4]");
    let h = b.parameter(5, &sh(T::Bf16, &[2, 3]), "h").unwrap();
    let h2 = b.parameter(6, &sh(T::Bf16, &[3, 4]), "h2").unwrap();
    let dn2 = DotDimensionNumbers {
        lhs_contracting_dims: vec![1],
        rhs_contracting_dims: vec![0],
        ..Default::default()
    };
    let mixed = b.dot_general_with_type(h, h2, &dn2, &[], T::F32).unwrap();
    assert_eq!(shape_of(&b, mixed), "f32[2,4]");
    assert_err(b.dot(m, m), &["dot", "contracting", "f32[2,3]"]);
    assert_err(b.dot(m, h2), &["dot", "element types differ", "bf16[3,4]"]);
    let bad = DotDimensionNumbers {
        rhs_batch_dims: vec![],
        ..dn.clone()
    };
    assert_err(b.dot_general(bl, br, &bad, &[]), &["dot", "same length"]);
    let bad = DotDimensionNumbers {
        lhs_contracting_dims: vec![7],
        ..dn.clone()
    };
    assert_err(b.dot_general(bl, br, &bad, &[]), &["dot", "out of range"]);
    assert_err(
        b.dot_general(bl, br, &dn, &[Precision::Default]),
        &["dot", "precision"],
    );

    // NHWC input, HWIO kernel.
    let img = b.parameter(7, &f32s(&[2, 9, 9, 4]), "img").unwrap();
    let ker = b.parameter(8, &f32s(&[3, 3, 4, 8]), "ker").unwrap();
    let cdn = ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 3,
        input_spatial_dimensions: vec![1, 2],
        kernel_input_feature_dimension: 2,
        kernel_output_feature_dimension: 3,
        kernel_spatial_dimensions: vec![0, 1],
        output_batch_dimension: 0,
        output_feature_dimension: 3,
        output_spatial_dimensions: vec![1, 2],
    };
    let c = b
        .conv_general_dilated(
            img,
            ker,
            &[2, 2],
            &[(1, 1), (1, 1)],
            &[],
            &[],
            &cdn,
            1,
            1,
            &[],
        )
        .unwrap();
    assert_eq!(shape_of(&b, c), "f32[2,5,5,8]");
    let c = b
        .conv_general_dilated(img, ker, &[1, 1], &[], &[1, 1], &[2, 2], &cdn, 1, 1, &[])
        .unwrap();
    assert_eq!(shape_of(&b, c), "f32[2,5,5,8]");
    let gker = b.parameter(9, &f32s(&[3, 3, 2, 8]), "gker").unwrap();
    let c = b
        .conv_general_dilated(img, gker, &[], &[], &[], &[], &cdn, 2, 1, &[])
        .unwrap();
    assert_eq!(shape_of(&b, c), "f32[2,7,7,8]");
    assert_err(
        b.conv_general_dilated(img, gker, &[], &[], &[], &[], &cdn, 1, 1, &[]),
        &["convolution", "feature", "f32[2,9,9,4]", "f32[3,3,2,8]"],
    );
    assert_err(
        b.conv_general_dilated(img, ker, &[0, 1], &[], &[], &[], &cdn, 1, 1, &[]),
        &["convolution", "stride"],
    );
    let bad = ConvDimensionNumbers {
        output_feature_dimension: 0,
        ..cdn.clone()
    };
    assert_err(
        b.conv_general_dilated(img, ker, &[], &[], &[], &[], &bad, 1, 1, &[]),
        &["convolution", "duplicate"],
    );
    let root = b.tuple(&[d, mixed, c]).unwrap();
    verify_module(&b.build_module(root).unwrap()).unwrap();
}

#[test]
fn reductions_and_called_computations() {
    let add = add_comp(T::F32);
    let b = XlaBuilder::new("red");
    let x = b.parameter(0, &f32s(&[2, 3, 4]), "x").unwrap();
    let ix = b.parameter(1, &sh(T::S32, &[2, 3, 4]), "ix").unwrap();
    let zero = b.constant_r0(0f32).unwrap();
    let izero = b.constant_r0(0i32).unwrap();
    let r = b.reduce(&[x], &[zero], &add, &[1]).unwrap();
    assert_eq!(shape_of(&b, r), "f32[2,4]");
    let all = b.reduce(&[x], &[zero], &add, &[0, 1, 2]).unwrap();
    assert_eq!(shape_of(&b, all), "f32[]");
    // Variadic reduce: (f32, s32) argmax-like reducer.
    let vb = XlaBuilder::new("pair_max");
    let a0 = vb.parameter(0, &f32s(&[]), "a0").unwrap();
    let a1 = vb.parameter(1, &sh(T::S32, &[]), "a1").unwrap();
    let b0 = vb.parameter(2, &f32s(&[]), "b0").unwrap();
    let b1 = vb.parameter(3, &sh(T::S32, &[]), "b1").unwrap();
    let gt = vb.gt(a0, b0).unwrap();
    let m0 = vb.select(gt, a0, b0).unwrap();
    let m1 = vb.select(gt, a1, b1).unwrap();
    let pair = vb.build(vb.tuple(&[m0, m1]).unwrap()).unwrap();
    let vr = b.reduce(&[x, ix], &[zero, izero], &pair, &[2]).unwrap();
    assert_eq!(shape_of(&b, vr), "(f32[2,3], s32[2,3])");
    assert_err(
        b.reduce(&[x], &[zero], &pair, &[2]),
        &["reduce", "to_apply", "signature", "(f32[], f32[]) -> f32[]"],
    );
    assert_err(
        b.reduce(&[x], &[izero], &add, &[2]),
        &["reduce", "init value s32[]", "f32[2,3,4]"],
    );
    assert_err(
        b.reduce(&[x], &[zero], &add, &[3]),
        &["reduce", "out of range"],
    );
    assert_err(
        b.reduce(&[x], &[zero], &add, &[1, 1]),
        &["reduce", "duplicate"],
    );

    let w = Window {
        dims: vec![
            WindowDim::new(1),
            WindowDim {
                stride: 2,
                ..WindowDim::new(2)
            },
            WindowDim::new(4),
        ],
    };
    let rw = b.reduce_window(&[x], &[zero], &add, &w).unwrap();
    assert_eq!(shape_of(&b, rw), "f32[2,1,1]");
    let bad_w = Window {
        dims: vec![WindowDim::new(0), WindowDim::new(1), WindowDim::new(1)],
    };
    assert_err(
        b.reduce_window(&[x], &[zero], &add, &bad_w),
        &["reduce-window", "window size"],
    );
    assert_err(
        b.reduce_window(
            &[x],
            &[zero],
            &add,
            &Window {
                dims: vec![WindowDim::new(1)],
            },
        ),
        &["reduce-window", "f32[2,3,4]", "rank 3"],
    );

    let ge = binary_comp("ge_comp", T::F32, |b, x, y| b.ge(x, y));
    let sw = Window {
        dims: vec![
            WindowDim::new(1),
            WindowDim::new(3),
            WindowDim {
                stride: 2,
                ..WindowDim::new(2)
            },
        ],
    };
    let src = b.parameter(2, &f32s(&[2, 1, 2]), "src").unwrap();
    let ss = b.select_and_scatter(x, &ge, &sw, src, zero, &add).unwrap();
    assert_eq!(shape_of(&b, ss), "f32[2,3,4]");
    assert_err(
        b.select_and_scatter(x, &ge, &sw, x, zero, &add),
        &["select-and-scatter", "source f32[2,3,4]", "f32[2,1,2]"],
    );
    assert_err(
        b.select_and_scatter(x, &add, &sw, src, zero, &add),
        &["select-and-scatter", "select", "pred[]"],
    );

    // sort: single and multi-operand.
    let lt = lt_comp(T::F32);
    let s1 = b.sort(&[x], &lt, 2, true).unwrap();
    assert_eq!(shape_of(&b, s1), "f32[2,3,4]");
    let cb = XlaBuilder::new("cmp2");
    let p: Vec<XlaOp> = [T::F32, T::F32, T::S32, T::S32]
        .iter()
        .enumerate()
        .map(|(k, &t)| {
            cb.parameter(k as u64, &sh(t, &[]), &format!("p{k}"))
                .unwrap()
        })
        .collect();
    let cmp2 = cb.build(cb.lt(p[0], p[1]).unwrap()).unwrap();
    let s2 = b.sort(&[x, ix], &cmp2, 0, false).unwrap();
    assert_eq!(shape_of(&b, s2), "(f32[2,3,4], s32[2,3,4])");
    assert_err(
        b.sort(&[x, ix], &lt, 0, false),
        &[
            "sort",
            "comparator",
            "(f32[], f32[], s32[], s32[]) -> pred[]",
        ],
    );
    assert_err(b.sort(&[x], &lt, 3, false), &["sort", "out of range"]);

    // map
    let mp = b.map(&[x, x], &add, &[0, 1, 2]).unwrap();
    assert_eq!(shape_of(&b, mp), "f32[2,3,4]");
    assert_err(
        b.map(&[x, ix], &add, &[0, 1, 2]),
        &["map", "to_apply", "(f32[], s32[])"],
    );

    // call
    let c = b.call(&add, &[zero, zero]).unwrap();
    assert_eq!(shape_of(&b, c), "f32[]");
    assert_err(b.call(&add, &[zero]), &["call", "to_apply", "(f32[])"]);

    let root = b.tuple(&[r, all, vr, rw, ss, s1, s2, mp, c]).unwrap();
    let m = b.build_module(root).unwrap();
    verify_module(&m).unwrap();
    // Each called computation was embedded once, callees before callers, entry last.
    assert_eq!(m.entry.index_of(), m.computations.len() - 1);
    let names: Vec<&str> = m.computations.values().map(|c| c.name.as_str()).collect();
    assert!(
        names.contains(&"add_comp") && names.contains(&"pair_max") && names.contains(&"cmp2"),
        "{names:?}"
    );
    assert_eq!(
        names.iter().filter(|n| n.starts_with("add_comp")).count(),
        1,
        "{names:?}"
    );
}

trait IndexOf {
    fn index_of(self) -> usize;
}
impl IndexOf for CompId {
    fn index_of(self) -> usize {
        hlox_hlo::EntityRef::index(self)
    }
}

#[test]
fn control_flow() {
    // while: count a s32 up to 10 while doubling an f32.
    let state = Shape::tuple(vec![sh(T::S32, &[]), f32s(&[4])]);
    let cb = XlaBuilder::new("cond");
    let s = cb.parameter(0, &state, "s").unwrap();
    let i = cb.get_tuple_element(s, 0).unwrap();
    let ten = cb.constant_r0(10i32).unwrap();
    let cond = cb.build(cb.lt(i, ten).unwrap()).unwrap();
    let bb = XlaBuilder::new("body");
    let s = bb.parameter(0, &state, "s").unwrap();
    let i = bb.get_tuple_element(s, 0).unwrap();
    let v = bb.get_tuple_element(s, 1).unwrap();
    let one = bb.constant_r0(1i32).unwrap();
    let body = bb
        .build(
            bb.tuple(&[bb.add(i, one).unwrap(), bb.add(v, v).unwrap()])
                .unwrap(),
        )
        .unwrap();

    let b = XlaBuilder::new("main");
    let v = b.parameter(0, &f32s(&[4]), "v").unwrap();
    let z = b.constant_r0(0i32).unwrap();
    let init = b.tuple(&[z, v]).unwrap();
    let w = b.while_loop(&cond, &body, init).unwrap();
    assert_eq!(shape_of(&b, w), "(s32[], f32[4])");
    assert_err(
        b.while_loop(&cond, &body, v),
        &["while", "condition", "f32[4]"],
    );
    assert_err(
        b.while_loop(&body, &body, init),
        &["while", "condition must return pred[]"],
    );

    // conditional, pred form and indexed form
    let tb = XlaBuilder::new("t");
    let p = tb.parameter(0, &f32s(&[4]), "p").unwrap();
    let tc = tb.build(tb.neg(p).unwrap()).unwrap();
    let fb = XlaBuilder::new("f");
    let p = fb.parameter(0, &f32s(&[4]), "p").unwrap();
    let fc = fb.build(fb.exp(p).unwrap()).unwrap();
    let gb = XlaBuilder::new("g");
    let p = gb.parameter(0, &sh(T::S32, &[]), "p").unwrap();
    let gc = gb
        .build(gb.constant_r1(&[1f32, 2., 3., 4.]).unwrap())
        .unwrap();
    let _ = p;
    let pr = b.parameter(1, &sh(T::Pred, &[]), "pr").unwrap();
    let c1 = b.conditional(pr, v, &tc, v, &fc).unwrap();
    assert_eq!(shape_of(&b, c1), "f32[4]");
    let idx = b.parameter(2, &sh(T::S32, &[]), "idx").unwrap();
    let c2 = b
        .conditional_indexed(idx, &[&tc, &fc, &gc], &[v, v, z])
        .unwrap();
    assert_eq!(shape_of(&b, c2), "f32[4]");
    assert_err(
        b.conditional_indexed(idx, &[&tc, &gc], &[v, v]),
        &["conditional", "branch 1", "(s32[])", "(f32[4])"],
    );
    assert_err(
        b.conditional(v, v, &tc, v, &fc),
        &["conditional", "selector", "f32[4]"],
    );
    assert_err(
        b.conditional_indexed(pr, &[&tc], &[v]),
        &["conditional", "pred selector expects 2"],
    );

    let root = b.tuple(&[w, c1, c2]).unwrap();
    let m = b.build_module(root).unwrap();
    verify_module(&m).unwrap();
    // Instruction names are unique across the module, computations names too.
    let mut names = std::collections::HashSet::new();
    for c in m.computations.values() {
        for inst in c.instructions.values() {
            assert!(names.insert(inst.name.clone()), "duplicate {}", inst.name);
        }
    }
    // Parameters keep their names; other instructions are opcode.N.
    let entry = m.entry_computation();
    assert_eq!(entry.inst(entry.params[0]).name, "v");
    assert_eq!(entry.inst(entry.params[1]).name, "pr");
    let while_name = &entry.inst(w.inst_id()).name;
    assert!(
        while_name.starts_with("while.") && while_name[6..].parse::<u64>().is_ok(),
        "{while_name}"
    );
}

#[test]
fn gather_and_scatter() {
    let b = XlaBuilder::new("gs");
    let x = b.parameter(0, &f32s(&[5, 7]), "x").unwrap();
    let idx = b.parameter(1, &sh(T::S32, &[3, 1]), "idx").unwrap();
    // Gather rows: x[idx[i], :]
    let dn = GatherDimensionNumbers {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let g = b.gather(x, idx, &dn, &[1, 7], false).unwrap();
    assert_eq!(shape_of(&b, g), "f32[3,7]");
    // Implicit index vector dim.
    let idx1 = b.parameter(2, &sh(T::S32, &[3]), "idx1").unwrap();
    let g1 = b
        .gather(
            x,
            idx1,
            &GatherDimensionNumbers {
                index_vector_dim: 1,
                ..dn.clone()
            },
            &[1, 4],
            false,
        )
        .unwrap();
    assert_eq!(shape_of(&b, g1), "f32[3,4]");
    assert_err(
        b.gather(x, idx, &dn, &[2, 7], false),
        &["gather", "collapsed", "0 or 1"],
    );
    assert_err(
        b.gather(x, idx, &dn, &[1, 8], false),
        &["gather", "slice size 8", "f32[5,7]"],
    );
    assert_err(
        b.gather(
            x,
            idx,
            &GatherDimensionNumbers {
                start_index_map: vec![0, 1],
                ..dn.clone()
            },
            &[1, 7],
            false,
        ),
        &["gather", "start_index_map"],
    );
    // Batching dims: operand [4,5,7] batch 0, indices [4,3,1] batch 0.
    let bx = b.parameter(3, &f32s(&[4, 5, 7]), "bx").unwrap();
    let bi = b.parameter(4, &sh(T::S32, &[4, 3, 1]), "bi").unwrap();
    let bdn = GatherDimensionNumbers {
        offset_dims: vec![2],
        collapsed_slice_dims: vec![1],
        start_index_map: vec![1],
        index_vector_dim: 2,
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
    };
    let bg = b.gather(bx, bi, &bdn, &[1, 1, 7], false).unwrap();
    assert_eq!(shape_of(&b, bg), "f32[4,3,7]");

    let add = add_comp(T::F32);
    let sdn = ScatterDimensionNumbers {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let upd = b.parameter(5, &f32s(&[3, 7]), "upd").unwrap();
    let s = b
        .scatter(&[x], idx, &[upd], &add, &sdn, false, false)
        .unwrap();
    assert_eq!(shape_of(&b, s), "f32[5,7]");
    let bad_upd = b.parameter(6, &f32s(&[4, 7]), "bad_upd").unwrap();
    assert_err(
        b.scatter(&[x], idx, &[bad_upd], &add, &sdn, false, false),
        &["scatter", "f32[4,7]"],
    );
    let add_i = add_comp(T::S32);
    assert_err(
        b.scatter(&[x], idx, &[upd], &add_i, &sdn, false, false),
        &["scatter", "to_apply"],
    );
    let root = b.tuple(&[g, g1, bg, s]).unwrap();
    verify_module(&b.build_module(root).unwrap()).unwrap();
}

#[test]
fn seed_custom_calls_build_and_verify() {
    let b = XlaBuilder::new("cc");
    let p0 = b.parameter(0, &f32s(&[128]), "p0").unwrap();
    let p1 = b.parameter(1, &f32s(&[2048]), "p1").unwrap();
    let cc = b
        .custom_call(
            "do_custom_call",
            &[p0, p1],
            &f32s(&[2048]),
            b"opaque\0bytes",
            false,
            &[],
            CustomCallSchedule::None,
            CustomCallApiVersion::StatusReturningUnified,
        )
        .unwrap();
    assert_eq!(shape_of(&b, cc), "f32[2048]");
    let m = b.build_module(cc).unwrap();
    verify_module(&m).unwrap();
    let inst = m.entry_computation().root_inst();
    let c = inst.op.as_custom_call().unwrap();
    assert_eq!(c.target, "do_custom_call");
    assert_eq!(c.opaque, b"opaque\0bytes");
    assert_eq!(inst.operands.len(), 2);

    let b = XlaBuilder::new("cc_tuple");
    let arg = Shape::tuple(vec![
        f32s(&[32]),
        Shape::tuple(vec![f32s(&[64]), f32s(&[128])]),
        f32s(&[256]),
    ]);
    let p = b.parameter(0, &arg, "p").unwrap();
    let out = Shape::tuple(vec![f32s(&[512]), f32s(&[1024])]);
    let call = CustomCall {
        target: "do_custom_call".into(),
        has_side_effect: true,
        ..Default::default()
    };
    let cc = b.custom_call_op(call, &[p], &out).unwrap();
    assert_eq!(shape_of(&b, cc), "(f32[512], f32[1024])");
    let m = b.build_module(cc).unwrap();
    verify_module(&m).unwrap();

    // Aliasing and layout constraints.
    let b = XlaBuilder::new("cc_alias");
    let p = b.parameter(0, &arg, "p").unwrap();
    let q = b.parameter(1, &f32s(&[512]), "q").unwrap();
    // A call `t(p, q) -> out` whose output `output_index` aliases operand
    // `operand`'s `operand_index`.
    let aliased = |output_index: i64, operand: i64, operand_index: Vec<i64>| {
        let call = CustomCall {
            target: "t".into(),
            output_operand_aliasing: vec![OutputOperandAlias {
                output_index: vec![output_index],
                operand,
                operand_index,
            }],
            ..Default::default()
        };
        b.custom_call_op(call, &[p, q], &out)
    };
    let cc = aliased(0, 1, vec![]).unwrap();
    assert_eq!(shape_of(&b, cc), "(f32[512], f32[1024])");
    assert_err(
        aliased(1, 1, vec![]),
        &["custom-call", "f32[1024]", "f32[512]"],
    );
    assert_err(
        aliased(0, 0, vec![1, 5]),
        &["custom-call", "operand index {1,5}"],
    );
    assert_err(
        aliased(0, 2, vec![]),
        &["custom-call", "operand 2 is out of range"],
    );
    let mut col = hlox_hlo::ArrayShape::new(T::F32, vec![512]);
    col.layout.minor_to_major = vec![0];
    // A call `t(operands) -> f32[512]` that constrains its operands' layouts.
    let with_layouts = |operands: &[XlaOp], layouts: Vec<Shape>| {
        let call = CustomCall {
            target: "t".into(),
            operand_layout_constraints: Some(layouts),
            ..Default::default()
        };
        b.custom_call_op(call, operands, &f32s(&[512]))
    };
    let with_layout = with_layouts(&[q], vec![Shape::Array(col)]).unwrap();
    assert_err(
        with_layouts(&[q, q], vec![f32s(&[512])]),
        &[
            "custom-call",
            "operand_layout_constraints has 1 shapes",
            "2 operands",
        ],
    );
    let root = b.tuple(&[cc, with_layout]).unwrap();
    verify_module(&b.build_module(root).unwrap()).unwrap();
}

#[test]
fn rng_and_misc() {
    let b = XlaBuilder::new("rng");
    let st = b.parameter(0, &sh(T::U64, &[2]), "st").unwrap();
    let r = b
        .rng_bit_generator(RngAlgorithm::ThreeFry, st, &sh(T::U32, &[3, 4]))
        .unwrap();
    assert_eq!(shape_of(&b, r), "(u64[2], u32[3,4])");
    let f = b.parameter(1, &f32s(&[2]), "f").unwrap();
    assert_err(
        b.rng_bit_generator(RngAlgorithm::Default, f, &sh(T::U32, &[3])),
        &["rng-bit-generator", "f32[2]"],
    );
    assert_err(
        b.rng_bit_generator(RngAlgorithm::Default, st, &f32s(&[3])),
        &["rng-bit-generator", "integral"],
    );
    verify_module(&b.build_module(r).unwrap()).unwrap();
}

#[test]
fn foreign_ops_and_bad_builds_are_errors() {
    let a = XlaBuilder::new("a");
    let b = XlaBuilder::new("b");
    let xa = a.parameter(0, &f32s(&[2]), "x").unwrap();
    let xb = b.parameter(0, &f32s(&[2]), "x").unwrap();
    assert_err(b.add(xb, xa), &["add", "operand 1", "another builder"]);
    assert!(err_text(b.build(xa)).contains("another builder"));
    // Gap in parameter numbers.
    let c = XlaBuilder::new("gap");
    let p = c.parameter(1, &f32s(&[2]), "p").unwrap();
    assert!(err_text(c.build(p)).contains("parameter numbers {1}"));
}

#[test]
fn metadata_and_nested_embedding() {
    let inner = add_comp(T::F32);
    // A computation that itself calls `inner`, then used by an outer builder together with `inner`.
    let mid_b = XlaBuilder::new("mid");
    let x = mid_b.parameter(0, &f32s(&[3]), "x").unwrap();
    let z = mid_b.constant_r0(0f32).unwrap();
    let mid = mid_b
        .build(mid_b.reduce(&[x], &[z], &inner, &[0]).unwrap())
        .unwrap();
    let b = XlaBuilder::new("outer");
    b.set_op_metadata(OpMetadata {
        op_type: "Add".into(),
        op_name: "jit(f)/add".into(),
        ..Default::default()
    });
    b.set_frontend_attributes(vec![("k".into(), "v".into())]);
    let x = b.parameter(0, &f32s(&[3]), "x").unwrap();
    let c = b.call(&mid, &[x]).unwrap();
    b.clear_op_metadata();
    let d = b.call(&inner, &[c, c]).unwrap();
    let m = b.build_module(d).unwrap();
    verify_module(&m).unwrap();
    let e = m.entry_computation();
    assert_eq!(e.inst(c.inst_id()).metadata.op_name, "jit(f)/add");
    assert_eq!(
        e.inst(c.inst_id()).frontend_attributes,
        vec![("k".to_string(), "v".to_string())]
    );
    assert!(e.inst(d.inst_id()).metadata.is_empty());
    // mid's add_comp and the directly used add_comp: names unique.
    let names: Vec<&str> = m.computations.values().map(|c| c.name.as_str()).collect();
    let set: std::collections::HashSet<_> = names.iter().collect();
    assert_eq!(set.len(), names.len(), "{names:?}");
    assert_eq!(*names.last().unwrap(), "outer");
}
