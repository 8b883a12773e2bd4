//! Every runtime kernel against the reference evaluator on real data:
//! single-instruction modules, operands from literals (in the parameters'
//! declared layouts), outputs read back in the result's layouts.

use anyhow::{anyhow, Result};
use half::{bf16, f16};
use hlox_cpu_runtime::{is_runtime_kernel, make_kernel, ScalarFn};
use hlox_hlo::text::parse_module;
use hlox_hlo::{ArrayLiteral, Literal, Module, NativeType, Shape};

/// Runs the entry root's kernel of `text` on `args`; returns the result literal.
fn run_kernel(m: &Module, args: &[Literal], callees: &[ScalarFn]) -> Result<Literal> {
    let comp = m.entry_computation();
    let inst = comp.root_inst();
    assert!(is_runtime_kernel(&inst.op));
    let k = make_kernel(m, comp, comp.root, callees)?.ok_or_else(|| anyhow!("no kernel"))?;
    // Operand buffers in the parameters' layouts (8-byte aligned storage).
    let mut bufs: Vec<Vec<u64>> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let p = comp.inst(comp.params[i]);
        let layout = p.shape.as_array().unwrap().layout.clone();
        let lit = a.as_array()?.relayout(layout);
        let bytes = lit.bytes();
        let mut v = vec![0u64; bytes.len().div_ceil(8).max(1)];
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr() as *mut u8, bytes.len())
        };
        bufs.push(v);
    }
    let ins: Vec<*const u8> = bufs.iter().map(|b| b.as_ptr() as *const u8).collect();
    let leaves: Vec<Shape> = inst
        .shape
        .leaves()
        .into_iter()
        .map(|(_, s)| s.clone())
        .collect();
    let mut outs: Vec<Vec<u64>> = leaves
        .iter()
        .map(|s| {
            vec![0xAAAA_AAAA_AAAA_AAAAu64; s.as_array().unwrap().byte_size().div_ceil(8).max(1)]
        })
        .collect();
    let optrs: Vec<*mut u8> = outs.iter_mut().map(|b| b.as_mut_ptr() as *mut u8).collect();
    unsafe { k.run(&ins, &optrs).map_err(|e| anyhow!(e))? };
    let mut res = Vec::new();
    for (s, b) in leaves.iter().zip(&outs) {
        let a = s.as_array().unwrap().clone();
        let n = a.byte_size();
        let bytes = unsafe { std::slice::from_raw_parts(b.as_ptr() as *const u8, n) }.to_vec();
        res.push(Literal::Array(ArrayLiteral::from_bytes(a, bytes)?));
    }
    Ok(if inst.shape.is_tuple() {
        Literal::Tuple(res)
    } else {
        res.pop().unwrap()
    })
}

fn eval(m: &Module, args: &[Literal]) -> Result<Literal> {
    Ok(hlox_eval::evaluate(m, args, &hlox_eval::NoCustomCalls)?)
}

/// Kernel result == evaluator result, bit for bit (logical order).
fn check_exact(text: &str, args: &[Literal], callees: &[ScalarFn]) -> Literal {
    let m = parse_module(text).expect("parse");
    let got = run_kernel(&m, args, callees).expect("kernel");
    let want = eval(&m, args).expect("eval");
    let (g, w) = (got.leaves(), want.leaves());
    assert_eq!(g.len(), w.len());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let (a, b) = (a.as_array().unwrap(), b.as_array().unwrap());
        assert_eq!(a.dims(), b.dims(), "leaf {i} dims");
        assert_eq!(
            a.logical_bytes(),
            b.logical_bytes(),
            "leaf {i} differs:\n{a:?}\nvs\n{b:?}"
        );
    }
    got
}

fn as_f64(a: &ArrayLiteral) -> Vec<f64> {
    fn widen<T: NativeType + Into<f64>>(a: &ArrayLiteral) -> Vec<f64> {
        a.to_vec::<T>()
            .unwrap()
            .into_iter()
            .map(Into::into)
            .collect()
    }
    use hlox_hlo::ElementType::*;
    match a.ty() {
        F16 => widen::<f16>(a),
        Bf16 => widen::<bf16>(a),
        F32 => widen::<f32>(a),
        F64 => widen::<f64>(a),
        t => panic!("not a float type {t}"),
    }
}

/// Kernel result ~= evaluator result (relative tolerance).
fn check_close(text: &str, args: &[Literal], tol: f64) {
    let m = parse_module(text).expect("parse");
    let got = run_kernel(&m, args, &[]).expect("kernel");
    let want = eval(&m, args).expect("eval");
    let (a, b) = (got.as_array().unwrap(), want.as_array().unwrap());
    assert_eq!(a.dims(), b.dims());
    let (x, y) = (as_f64(a), as_f64(b));
    let scale = y.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (p, q)) in x.iter().zip(&y).enumerate() {
        assert!((p - q).abs() <= tol * scale, "element {i}: {p} vs {q}");
    }
    assert!(!x.is_empty() || y.is_empty());
}

/// Deterministic pseudo-random values.
fn vals(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect()
}
fn lit<T: NativeType>(dims: &[i64], v: &[T]) -> Literal {
    Literal::from_vec(dims, v).unwrap()
}
fn flit(dims: &[i64], seed: u64) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    lit(dims, &vals(n, seed))
}
fn ilit(dims: &[i64], seed: u64, range: i32) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    let v: Vec<i32> = vals(n, seed)
        .iter()
        .map(|x| ((x + 2.0) * 1000.0) as i32 % range - range / 2)
        .collect();
    lit(dims, &v)
}

// ------------------------------------------------------------ scalar functions

unsafe fn arg<T: Copy>(args: *const *const u8, i: usize) -> T {
    std::ptr::read_unaligned(*args.add(i) as *const T)
}
unsafe fn out<T: Copy>(outs: *const *mut u8, i: usize, v: T) {
    std::ptr::write_unaligned(*outs.add(i) as *mut T, v)
}
unsafe extern "C" fn add_f32(a: *const *const u8, o: *const *mut u8) {
    out(o, 0, arg::<f32>(a, 0) + arg::<f32>(a, 1))
}
unsafe extern "C" fn max_f32(a: *const *const u8, o: *const *mut u8) {
    let (x, y) = (arg::<f32>(a, 0), arg::<f32>(a, 1));
    out(
        o,
        0,
        if x.is_nan() {
            x
        } else if y.is_nan() || x < y {
            y
        } else {
            x
        },
    )
}
unsafe extern "C" fn add_s32(a: *const *const u8, o: *const *mut u8) {
    out(o, 0, arg::<i32>(a, 0).wrapping_add(arg::<i32>(a, 1)))
}
unsafe extern "C" fn lt_f32(a: *const *const u8, o: *const *mut u8) {
    out(o, 0, (arg::<f32>(a, 0) < arg::<f32>(a, 1)) as u8)
}
unsafe extern "C" fn ge_f32(a: *const *const u8, o: *const *mut u8) {
    out(o, 0, (arg::<f32>(a, 0) >= arg::<f32>(a, 1)) as u8)
}
/// (s32 key, f32 value) comparator: key descending via negate, general path.
unsafe extern "C" fn gt_neg_s32(a: *const *const u8, o: *const *mut u8) {
    out(
        o,
        0,
        (arg::<i32>(a, 0).wrapping_neg() < arg::<i32>(a, 1).wrapping_neg()) as u8,
    )
}
unsafe extern "C" fn second_s32(a: *const *const u8, o: *const *mut u8) {
    out(o, 0, arg::<i32>(a, 1))
}
unsafe extern "C" fn gt_s32(a: *const *const u8, o: *const *mut u8) {
    out(o, 0, (arg::<i32>(a, 0) > arg::<i32>(a, 1)) as u8)
}
unsafe extern "C" fn total_gt_f64(a: *const *const u8, o: *const *mut u8) {
    let (x, y) = (arg::<f64>(a, 0), arg::<f64>(a, 1));
    out(o, 0, (y.total_cmp(&x) == std::cmp::Ordering::Less) as u8)
}
/// subtract(p1, p0): a combiner with no fast path.
unsafe extern "C" fn rsub_f32(a: *const *const u8, o: *const *mut u8) {
    out(o, 0, arg::<f32>(a, 1) - arg::<f32>(a, 0))
}
/// Variadic reduce-window reducer (max value, its index): (a, ai, b, bi).
unsafe extern "C" fn argmax_f32_s32(a: *const *const u8, o: *const *mut u8) {
    let (av, ai, bv, bi) = (
        arg::<f32>(a, 0),
        arg::<i32>(a, 1),
        arg::<f32>(a, 2),
        arg::<i32>(a, 3),
    );
    let take_b = bv > av || (bv == av && bi < ai);
    out(o, 0, if take_b { bv } else { av });
    out(o, 1, if take_b { bi } else { ai });
}

const ADD_F32: &str = "add_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\n";
const MAX_F32: &str = "max_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] maximum(a, b)\n}\n";
const ADD_S32: &str = "add_s32 {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = s32[] add(a, b)\n}\n";
const LT_F32: &str = "lt_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=LT\n}\n";
const GE_F32: &str = "ge_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=GE\n}\n";

fn module(name: &str, comps: &[&str], entry: &str) -> String {
    format!(
        "HloModule {name}\n\n{}\nENTRY main {{\n{entry}\n}}\n",
        comps.join("\n")
    )
}

// ------------------------------------------------------------ dot

#[test]
fn dot_batched_and_layouts() {
    let t = module("m", &[], "  a = f32[2,3,4]{2,1,0} parameter(0)\n  b = f32[2,4,5]{2,1,0} parameter(1)\n  ROOT d = f32[2,3,5]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}");
    check_close(&t, &[flit(&[2, 3, 4], 1), flit(&[2, 4, 5], 2)], 1e-5);
    // Non-default layouts everywhere, two contracting dims, batch in the middle.
    let t = module("m", &[], "  a = f32[3,2,4,5]{0,1,2,3} parameter(0)\n  b = f32[5,2,4,6]{1,3,0,2} parameter(1)\n  ROOT d = f32[2,3,6]{0,2,1} dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={2,3}, rhs_batch_dims={1}, rhs_contracting_dims={2,0}");
    check_close(&t, &[flit(&[3, 2, 4, 5], 3), flit(&[5, 2, 4, 6], 4)], 1e-5);
    // Outer product (no contracting dims), f64.
    let t = module("m", &[], "  a = f64[7]{0} parameter(0)\n  b = f64[3]{0} parameter(1)\n  ROOT d = f64[7,3]{0,1} dot(a, b), lhs_contracting_dims={}, rhs_contracting_dims={}");
    let a: Vec<f64> = vals(7, 5).iter().map(|&x| x as f64).collect();
    let b: Vec<f64> = vals(3, 6).iter().map(|&x| x as f64).collect();
    check_close(&t, &[lit(&[7], &a), lit(&[3], &b)], 1e-12);
}

#[test]
fn dot_half_types_and_ints() {
    for ty in ["f16", "bf16"] {
        let t = module("m", &[], &format!("  a = {ty}[8,16]{{1,0}} parameter(0)\n  b = {ty}[16,8]{{0,1}} parameter(1)\n  ROOT d = {ty}[8,8]{{1,0}} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"));
        let (a, b) = (vals(128, 7), vals(128, 8));
        let args = if ty == "f16" {
            let c = |v: &[f32]| v.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>();
            [lit(&[8, 16], &c(&a)), lit(&[16, 8], &c(&b))]
        } else {
            let c = |v: &[f32]| v.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>();
            [lit(&[8, 16], &c(&a)), lit(&[16, 8], &c(&b))]
        };
        check_close(&t, &args, 2e-2);
    }
    // s8 x s8 -> s32 and s32 wrapping, exact.
    let t = module("m", &[], "  a = s8[4,6]{1,0} parameter(0)\n  b = s8[6,3]{1,0} parameter(1)\n  ROOT d = s32[4,3]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    let a: Vec<i8> = (0..24).map(|i| (i * 37 % 255 - 127) as i8).collect();
    let b: Vec<i8> = (0..18).map(|i| (i * 91 % 251 - 125) as i8).collect();
    check_exact(&t, &[lit(&[4, 6], &a), lit(&[6, 3], &b)], &[]);
    let t = module("m", &[], "  a = s32[2,3,5]{0,1,2} parameter(0)\n  b = s32[2,5,4]{2,1,0} parameter(1)\n  ROOT d = s32[2,3,4]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}");
    let a: Vec<i32> = (0..30i32)
        .map(|i| i.wrapping_mul(0x0123_4567) - 7)
        .collect();
    let b: Vec<i32> = (0..40i32)
        .map(|i| i.wrapping_mul(0x0765_4321).wrapping_add(3))
        .collect();
    check_exact(&t, &[lit(&[2, 3, 5], &a), lit(&[2, 5, 4], &b)], &[]);
    // u8 operands with u32 result.
    let t = module("m", &[], "  a = u8[3,4]{1,0} parameter(0)\n  b = u8[4,2]{1,0} parameter(1)\n  ROOT d = u32[3,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    let a: Vec<u8> = (0..12).map(|i| (i * 53 % 256) as u8).collect();
    let b: Vec<u8> = (0..8).map(|i| (i * 97 % 256) as u8).collect();
    check_exact(&t, &[lit(&[3, 4], &a), lit(&[4, 2], &b)], &[]);
}

#[test]
fn dot_zero_sized() {
    // k = 0: the result is all zeros (outputs start as garbage).
    let t = module("m", &[], "  a = f32[3,0]{1,0} parameter(0)\n  b = f32[0,2]{1,0} parameter(1)\n  ROOT d = f32[3,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    let r = check_exact(
        &t,
        &[lit::<f32>(&[3, 0], &[]), lit::<f32>(&[0, 2], &[])],
        &[],
    );
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![0.0; 6]);
    let t = module("m", &[], "  a = s32[0,4]{1,0} parameter(0)\n  b = s32[4,2]{1,0} parameter(1)\n  ROOT d = s32[0,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    check_exact(&t, &[lit::<i32>(&[0, 4], &[]), ilit(&[4, 2], 1, 100)], &[]);
}

#[test]
fn dot_throughput_1024() {
    let n = 1024i64;
    let t = module("m", &[], "  a = f32[1024,1024]{1,0} parameter(0)\n  b = f32[1024,1024]{1,0} parameter(1)\n  ROOT d = f32[1024,1024]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    let m = parse_module(&t).unwrap();
    let args = [flit(&[n, n], 11), flit(&[n, n], 12)];
    let _ = run_kernel(&m, &args, &[]).unwrap();
    let t0 = std::time::Instant::now();
    let r = run_kernel(&m, &args, &[]).unwrap();
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "dot f32 1024x1024x1024: {:.3} s, {:.1} GFLOP/s (incl. buffer copies), {} threads",
        dt,
        2.0 * (n * n * n) as f64 / dt / 1e9,
        rayon::current_num_threads()
    );
    // Spot-check one element against a plain sum.
    let (a, b) = (
        args[0].to_vec::<f32>().unwrap(),
        args[1].to_vec::<f32>().unwrap(),
    );
    let want: f64 = (0..1024)
        .map(|k| a[5 * 1024 + k] as f64 * b[k * 1024 + 7] as f64)
        .sum();
    let got = r.to_vec::<f32>().unwrap()[5 * 1024 + 7] as f64;
    assert!(
        (got - want).abs() < 1e-3 * want.abs().max(1.0),
        "{got} vs {want}"
    );
}

// ------------------------------------------------------------ convolution

#[test]
fn conv_groups_dilation_padding() {
    // feature groups, stride, padding, rhs dilation (from the conv2d corpus case).
    let t = module("m", &[], "  x = f32[2,4,9,8]{3,2,1,0} parameter(0)\n  k = f32[6,2,3,3]{3,2,1,0} parameter(1)\n  ROOT c = f32[2,6,5,5]{3,2,1,0} convolution(x, k), window={size=3x3 stride=2x1 pad=1_2x0_1 rhs_dilate=1x2}, dim_labels=bf01_oi01->bf01, feature_group_count=2");
    check_close(
        &t,
        &[flit(&[2, 4, 9, 8], 21), flit(&[6, 2, 3, 3], 22)],
        1e-5,
    );
    // NHWC with lhs dilation and window reversal, non-default output layout.
    let t = module("m", &[], "  x = f32[2,5,4,3]{3,2,1,0} parameter(0)\n  k = f32[3,2,3,4]{3,2,1,0} parameter(1)\n  ROOT c = f32[2,9,6,4]{0,3,2,1} convolution(x, k), window={size=3x2 pad=1_1x1_2 lhs_dilate=2x1 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f");
    check_close(
        &t,
        &[flit(&[2, 5, 4, 3], 23), flit(&[3, 2, 3, 4], 24)],
        1e-5,
    );
    // batch groups (weight-gradient style).
    let t = module("m", &[], "  x = f32[3,4,6,6]{3,2,1,0} parameter(0)\n  k = f32[3,4,5,5]{3,2,1,0} parameter(1)\n  ROOT c = f32[4,2,2,2]{3,2,1,0} convolution(x, k), window={size=5x5}, dim_labels=fb01_io01->fb01, batch_group_count=2");
    check_close(
        &t,
        &[flit(&[3, 4, 6, 6], 25), flit(&[3, 4, 5, 5], 26)],
        1e-5,
    );
}

#[test]
fn conv_ints_and_half() {
    let t = module("m", &[], "  x = s32[1,3,7]{2,1,0} parameter(0)\n  k = s32[4,3,3]{2,1,0} parameter(1)\n  ROOT c = s32[1,4,3]{2,1,0} convolution(x, k), window={size=3 stride=2 pad=1_2 rhs_dilate=2}, dim_labels=bf0_oi0->bf0");
    check_exact(
        &t,
        &[ilit(&[1, 3, 7], 31, 200), ilit(&[4, 3, 3], 32, 200)],
        &[],
    );
    let t = module("m", &[], "  x = bf16[1,2,6,6]{3,2,1,0} parameter(0)\n  k = bf16[2,2,3,3]{3,2,1,0} parameter(1)\n  ROOT c = bf16[1,2,4,4]{3,2,1,0} convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01");
    let c = |v: Vec<f32>| v.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>();
    check_close(
        &t,
        &[
            lit(&[1, 2, 6, 6], &c(vals(72, 33))),
            lit(&[2, 2, 3, 3], &c(vals(36, 34))),
        ],
        2e-2,
    );
}

// ------------------------------------------------------------ sort / topk

#[test]
fn sort_fast_and_general() {
    // One f32 operand, LT, ties and a NaN, sorted along dim 0 of a column-major array.
    let t = module("m", &[LT_F32], "  x = f32[6,3]{0,1} parameter(0)\n  ROOT s = f32[6,3]{0,1} sort(x), dimensions={0}, is_stable=true, to_apply=lt_f32");
    let x: Vec<f32> = vec![
        3.0,
        1.0,
        2.0,
        1.0,
        f32::NAN,
        -0.0,
        0.0,
        5.0,
        -1.0,
        2.0,
        2.0,
        7.0,
        1.0,
        1.0,
        1.0,
        0.5,
        9.0,
        -3.0,
    ];
    check_exact(&t, &[lit(&[6, 3], &x)], &[lt_f32]);
    // Multi-operand: s32 keys with many ties (fast path on operand 0), f32 payload keeps order.
    let cmp = "cmp {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] parameter(2)\n  d = f32[] parameter(3)\n  ROOT r = pred[] compare(a, b), direction=GT\n}\n";
    let t = module("m", &[cmp], "  k = s32[2,50]{1,0} parameter(0)\n  v = f32[2,50]{1,0} parameter(1)\n  ROOT s = (s32[2,50]{1,0}, f32[2,50]{0,1}) sort(k, v), dimensions={1}, is_stable=true, to_apply=cmp");
    check_exact(&t, &[ilit(&[2, 50], 41, 7), flit(&[2, 50], 42)], &[gt_s32]);
    // General path: a comparator the kernel cannot recognize (compares negations).
    let cmp = "cmp {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] parameter(2)\n  d = f32[] parameter(3)\n  na = s32[] negate(a)\n  nb = s32[] negate(b)\n  ROOT r = pred[] compare(na, nb), direction=LT\n}\n";
    let t = module("m", &[cmp], "  k = s32[3,40]{1,0} parameter(0)\n  v = f32[3,40]{1,0} parameter(1)\n  ROOT s = (s32[3,40]{1,0}, f32[3,40]{1,0}) sort(k, v), dimensions={1}, is_stable=true, to_apply=cmp");
    let r = check_exact(
        &t,
        &[ilit(&[3, 40], 43, 5), flit(&[3, 40], 44)],
        &[gt_neg_s32],
    );
    let keys = r.leaves()[0].to_vec::<i32>().unwrap();
    assert!(keys[..40].windows(2).all(|w| w[0] >= w[1]));
    // TOTALORDER on f64 with NaN and signed zeros, descending via swapped parameters.
    let cmp = "cmp {\n  a = f64[] parameter(0)\n  b = f64[] parameter(1)\n  ROOT r = pred[] compare(b, a), direction=LT, type=TOTALORDER\n}\n";
    let t = module(
        "m",
        &[cmp],
        "  x = f64[7]{0} parameter(0)\n  ROOT s = f64[7]{0} sort(x), dimensions={0}, to_apply=cmp",
    );
    check_exact(
        &t,
        &[lit(
            &[7],
            &[1.0f64, -0.0, f64::NAN, 0.0, -f64::INFINITY, 2.5, -f64::NAN],
        )],
        &[total_gt_f64],
    );
}

#[test]
fn topk_ties_and_types() {
    let t = module("m", &[], "  x = f32[2,8]{1,0} parameter(0)\n  ROOT t = (f32[2,3]{1,0}, s32[2,3]{1,0}) topk(x), k=3, largest=true");
    let x = [
        1.0f32,
        5.0,
        5.0,
        -1.0,
        f32::NAN,
        5.0,
        0.0,
        2.0,
        3.0,
        3.0,
        3.0,
        3.0,
        -0.0,
        0.0,
        9.0,
        1.0,
    ];
    let r = check_exact(&t, &[lit(&[2, 8], &x)], &[]);
    assert_eq!(
        r.leaves()[1].to_vec::<i32>().unwrap(),
        vec![4, 1, 2, 6, 0, 1]
    );
    let t = module("m", &[], "  x = s32[3,10]{0,1} parameter(0)\n  ROOT t = (s32[3,4]{1,0}, s32[3,4]{0,1}) topk(x), k=4, largest=false");
    check_exact(&t, &[ilit(&[3, 10], 51, 9)], &[]);
}

// ------------------------------------------------------------ gather / scatter

#[test]
fn gather_clamps_and_batches() {
    let t = module("m", &[], "  op = f32[10,4]{1,0} parameter(0)\n  idx = s32[5]{0} parameter(1)\n  ROOT g = f32[5,4]{1,0} gather(op, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}");
    check_exact(
        &t,
        &[flit(&[10, 4], 61), lit(&[5], &[0i32, 9, -3, 12, 4])],
        &[],
    );
    // 2-d windows with clamping, index vectors along dim 0, column-major operand.
    let t = module("m", &[], "  op = s32[6,7]{0,1} parameter(0)\n  idx = s64[2,3]{1,0} parameter(1)\n  ROOT g = s32[3,2,3]{2,1,0} gather(op, idx), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={2,3}");
    check_exact(
        &t,
        &[
            ilit(&[6, 7], 62, 1000),
            lit(&[2, 3], &[0i64, 5, -1, 6, 2, 100]),
        ],
        &[],
    );
    // Batching dims.
    let t = module("m", &[], "  op = f32[3,5,2]{2,1,0} parameter(0)\n  idx = s32[3,4,1]{2,1,0} parameter(1)\n  ROOT g = f32[3,4,2]{2,1,0} gather(op, idx), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,2}");
    let idx: Vec<i32> = (0..12).map(|i| (i * 7) % 6 - 1).collect();
    check_exact(&t, &[flit(&[3, 5, 2], 63), lit(&[3, 4, 1], &idx)], &[]);
}

#[test]
fn scatter_fast_general_and_oob() {
    // add with duplicates and out-of-bounds windows (skipped).
    let t = module("m", &[ADD_F32], "  op = f32[6,3]{1,0} parameter(0)\n  idx = s32[5,1]{1,0} parameter(1)\n  up = f32[5,3]{1,0} parameter(2)\n  ROOT s = f32[6,3]{0,1} scatter(op, idx, up), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32");
    let idx = lit(&[5, 1], &[1i32, 1, 6, -1, 5]);
    check_exact(
        &t,
        &[flit(&[6, 3], 71), idx.clone(), flit(&[5, 3], 72)],
        &[add_f32],
    );
    // Overwrite, s32, 2-wide windows partially out of range.
    let ow = "ow {\n  a = s32[] parameter(0)\n  ROOT b = s32[] parameter(1)\n}\n";
    let t = module("m", &[ow], "  op = s32[8]{0} parameter(0)\n  idx = s32[4,1]{1,0} parameter(1)\n  up = s32[4,2]{1,0} parameter(2)\n  ROOT s = s32[8]{0} scatter(op, idx, up), update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=ow");
    check_exact(
        &t,
        &[
            ilit(&[8], 73, 100),
            lit(&[4, 1], &[0i32, 7, 3, 6]),
            ilit(&[4, 2], 74, 100),
        ],
        &[second_s32],
    );
    // General path (subtract(p1, p0) has no fast path).
    let rs = "rs {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] subtract(b, a)\n}\n";
    let t = module("m", &[rs], "  op = f32[6,3]{1,0} parameter(0)\n  idx = s32[5,1]{1,0} parameter(1)\n  up = f32[5,3]{1,0} parameter(2)\n  ROOT s = f32[6,3]{1,0} scatter(op, idx, up), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=rs");
    check_exact(
        &t,
        &[flit(&[6, 3], 75), idx, flit(&[5, 3], 76)],
        &[rsub_f32],
    );
    // Batching dims, s32 add.
    let t = module("m", &[ADD_S32], "  op = s32[2,5]{1,0} parameter(0)\n  idx = s32[2,3,1]{2,1,0} parameter(1)\n  up = s32[2,3]{1,0} parameter(2)\n  ROOT s = s32[2,5]{1,0} scatter(op, idx, up), update_window_dims={}, inserted_window_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=2, to_apply=add_s32");
    check_exact(
        &t,
        &[
            ilit(&[2, 5], 77, 50),
            lit(&[2, 3, 1], &[0i32, 0, 4, 2, 9, 2]),
            ilit(&[2, 3], 78, 50),
        ],
        &[add_s32],
    );
}

// ------------------------------------------------------------ reduce-window / select-and-scatter

#[test]
fn reduce_window_padding_dilation_variadic() {
    let t = module("m", &[MAX_F32], "  x = f32[2,7,6]{2,1,0} parameter(0)\n  i = f32[] parameter(1)\n  ROOT r = f32[2,4,3]{1,2,0} reduce-window(x, i), window={size=1x3x2 stride=1x2x2 pad=0_0x1_1x0_0}, to_apply=max_f32");
    check_exact(
        &t,
        &[flit(&[2, 7, 6], 81), Literal::r0(f32::NEG_INFINITY)],
        &[max_f32],
    );
    // Base and window dilation with add, s32.
    let t = module("m", &[ADD_S32], "  x = s32[5,4]{0,1} parameter(0)\n  i = s32[] parameter(1)\n  ROOT r = s32[10,2]{1,0} reduce-window(x, i), window={size=2x2 stride=1x1 pad=1_1x0_0 lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=add_s32");
    check_exact(
        &t,
        &[ilit(&[5, 4], 82, 1000), Literal::r0(3i32)],
        &[add_s32],
    );
    // Variadic (value, index) argmax via the compiled reducer.
    let am = "am {\n  a = f32[] parameter(0)\n  ai = s32[] parameter(1)\n  b = f32[] parameter(2)\n  bi = s32[] parameter(3)\n  gt = pred[] compare(b, a), direction=GT\n  eq = pred[] compare(b, a), direction=EQ\n  lt = pred[] compare(bi, ai), direction=LT\n  el = pred[] and(eq, lt)\n  t = pred[] or(gt, el)\n  v = f32[] select(t, b, a)\n  w = s32[] select(t, bi, ai)\n  ROOT r = (f32[], s32[]) tuple(v, w)\n}\n";
    let t = module("m", &[am], "  x = f32[9]{0} parameter(0)\n  ix = s32[9]{0} parameter(1)\n  i = f32[] parameter(2)\n  j = s32[] parameter(3)\n  ROOT r = (f32[4]{0}, s32[4]{0}) reduce-window(x, ix, i, j), window={size=3 stride=2 pad=1_0}, to_apply=am");
    let x = [1.0f32, 3.0, 3.0, -1.0, 0.5, 8.0, 8.0, 2.0, 2.0];
    let ix: Vec<i32> = (0..9).collect();
    check_exact(
        &t,
        &[
            lit(&[9], &x),
            lit(&[9], &ix),
            Literal::r0(f32::NEG_INFINITY),
            Literal::r0(-1i32),
        ],
        &[argmax_f32_s32],
    );
}

#[test]
fn select_and_scatter_maxpool_grad() {
    let t = module("m", &[GE_F32, ADD_F32], "  x = f32[2,6,6,2]{3,2,1,0} parameter(0)\n  s = f32[2,3,3,2]{3,2,1,0} parameter(1)\n  i = f32[] parameter(2)\n  ROOT r = f32[2,6,6,2]{3,2,1,0} select-and-scatter(x, s, i), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, select=ge_f32, scatter=add_f32");
    // Many ties (values rounded) so the select order matters.
    let x: Vec<f32> = vals(144, 91).iter().map(|v| v.round()).collect();
    check_exact(
        &t,
        &[
            lit(&[2, 6, 6, 2], &x),
            flit(&[2, 3, 3, 2], 92),
            Literal::r0(0.0f32),
        ],
        &[ge_f32, add_f32],
    );
    // General scatter combiner.
    let rs = "rs {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] subtract(b, a)\n}\n";
    let t = module("m", &[GE_F32, rs], "  x = f32[5,4]{0,1} parameter(0)\n  s = f32[4,3]{1,0} parameter(1)\n  i = f32[] parameter(2)\n  ROOT r = f32[5,4]{1,0} select-and-scatter(x, s, i), window={size=2x2 stride=1x1}, select=ge_f32, scatter=rs");
    check_exact(
        &t,
        &[flit(&[5, 4], 93), flit(&[4, 3], 94), Literal::r0(1.5f32)],
        &[ge_f32, rsub_f32],
    );
}

// ------------------------------------------------------------ rng

#[test]
fn rng_philox_and_threefry() {
    for (alg, st) in [
        ("rng_philox", vec![42u64, 7, 9]),
        ("rng_philox", vec![5u64, u64::MAX]),
        ("rng_three_fry", vec![1234u64, 99]),
    ] {
        for shape in [
            "u32[3,5]{1,0}",
            "u32[3,5]{0,1}",
            "u64[7]{0}",
            "s32[5]{0}",
            "u8[2,3]{1,0}",
            "f32[4,2]{1,0}",
        ] {
            let n = st.len();
            let t = module("m", &[], &format!("  s = u64[{n}]{{0}} parameter(0)\n  ROOT r = (u64[{n}]{{0}}, {shape}) rng-bit-generator(s), algorithm={alg}"));
            check_exact(&t, &[lit(&[n as i64], &st)], &[]);
        }
    }
}

/// The error `make_kernel` gives for the root of module text `t`.
fn kernel_error(t: &str) -> String {
    let m = parse_module(t).unwrap();
    let c = m.entry_computation();
    make_kernel(&m, c, c.root, &[])
        .err()
        .expect("must fail")
        .to_string()
}

#[test]
fn errors_name_the_instruction() {
    let t = module("m", &[], "  a = f32[2,3]{1,0} parameter(0)\n  b = f32[3,4]{1,0} parameter(1)\n  ROOT bad_dot = f32[2,5]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    let e = kernel_error(&t);
    assert!(e.contains("bad_dot"), "{e}");
    // A sort without its compiled comparator.
    let t = module("m", &[LT_F32], "  x = f32[4]{0} parameter(0)\n  ROOT srt = f32[4]{0} sort(x), dimensions={0}, to_apply=lt_f32");
    let e = kernel_error(&t);
    assert!(e.contains("srt"), "{e}");
    // Non-kernel opcodes are left to the codegen; wrong buffer counts are errors.
    let t = module(
        "m",
        &[],
        "  a = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(a)",
    );
    let m = parse_module(&t).unwrap();
    let c = m.entry_computation();
    assert!(make_kernel(&m, c, c.root, &[]).unwrap().is_none());
    let t = module("m", &[], "  a = f32[2,2]{1,0} parameter(0)\n  ROOT d = f32[2,2]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    let m = parse_module(&t).unwrap();
    let c = m.entry_computation();
    let k = make_kernel(&m, c, c.root, &[]).unwrap().unwrap();
    let buf = [0f32; 4];
    let e = unsafe { k.run(&[buf.as_ptr() as *const u8], &[]) }.unwrap_err();
    assert!(e.to_string().contains('d'), "{e}");
}
