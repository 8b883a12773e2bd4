//! End-to-end checks of the transformations on real data, evaluated by
//! hlox-eval: gradients against central finite differences, forward mode
//! against reverse mode (the dot-product test <vjp(c), v> = <c, jvp(v)>),
//! vmap against a loop over the batch, second order (a Hessian-vector
//! product as the vjp of a grad) and per-example gradients (vmap of grad).

use hlox_eval::{evaluate, NoCustomCalls};
use hlox_hlo::text::parse_module;
use hlox_hlo::{Literal, Module, Shape};
use hlox_transform::{grad, jvp, vjp, vmap, TransformError};

/// A small deterministic generator (no dependency needed).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

fn dims(s: &Shape) -> Vec<i64> {
    s.as_array().expect("array").dims.clone()
}

fn count(d: &[i64]) -> usize {
    d.iter().product::<i64>() as usize
}

fn rand_like(rng: &mut Rng, s: &Shape) -> Literal {
    let d = dims(s);
    let v: Vec<f64> = (0..count(&d)).map(|_| rng.next()).collect();
    Literal::from_vec(&d, &v).unwrap()
}

fn vals(l: &Literal) -> Vec<f64> {
    l.to_vec::<f64>().unwrap()
}

fn run(m: &Module, args: &[Literal]) -> Vec<Literal> {
    let r = evaluate(m, args, &NoCustomCalls).unwrap_or_else(|e| panic!("{e}\n{m:?}"));
    r.into_leaves()
}

fn parse(src: &str) -> Module {
    parse_module(src).unwrap_or_else(|e| panic!("{e}"))
}

fn close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * (1.0 + x.abs().max(y.abs())),
            "{what}: element {i}: {x} vs {y}\n{a:?}\n{b:?}"
        );
    }
}

fn params(m: &Module) -> Vec<Shape> {
    m.entry_computation_layout().parameters
}

/// The point `x + d * t`, argument by argument: a step along direction `t`.
fn along(x: &[Literal], t: &[Literal], d: f64) -> Vec<Literal> {
    x.iter()
        .zip(t)
        .map(|(x, t)| {
            let v: Vec<f64> = vals(x)
                .iter()
                .zip(vals(t))
                .map(|(a, b)| a + d * b)
                .collect();
            Literal::from_vec(&dims(&x.shape()), &v).unwrap()
        })
        .collect()
}

/// The central difference `(p - q) / 2h` of results `p` (at `+h`) and `q`
/// (at `-h`), element by element.
fn central_difference(p: &Literal, q: &Literal, h: f64) -> Vec<f64> {
    vals(p)
        .iter()
        .zip(vals(q))
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect()
}

/// grad of a scalar program against central differences, for every
/// parameter.
fn check_grad(src: &str, seed: u64) {
    let m = parse(src);
    let ps = params(&m);
    let mut rng = Rng(seed);
    let args: Vec<Literal> = ps.iter().map(|s| rand_like(&mut rng, s)).collect();
    let wrt: Vec<usize> = (0..ps.len()).collect();
    let g = grad(&m, &wrt).unwrap_or_else(|e| panic!("{e}"));
    let got = run(&g, &args);
    let h = 1e-6;
    for (k, s) in ps.iter().enumerate() {
        let n = count(&dims(s));
        let base = vals(&args[k]);
        let mut fd = Vec::with_capacity(n);
        for i in 0..n {
            let at = |d: f64| {
                let mut a = args.clone();
                let mut v = base.clone();
                v[i] += d;
                a[k] = Literal::from_vec(&dims(s), &v).unwrap();
                vals(&run(&m, &a)[0])[0]
            };
            fd.push((at(h) - at(-h)) / (2.0 * h));
        }
        close(
            &vals(&got[k]),
            &fd,
            1e-5,
            &format!("grad wrt {k} of\n{src}"),
        );
    }
}

/// Forward mode against reverse mode: <vjp(c), v> = <c, jvp(v)>, and the
/// jvp's primal outputs equal the program's.
fn check_modes(src: &str, seed: u64) {
    let m = parse(src);
    let ps = params(&m);
    let mut rng = Rng(seed);
    let args: Vec<Literal> = ps.iter().map(|s| rand_like(&mut rng, s)).collect();
    let tangents: Vec<Literal> = ps.iter().map(|s| rand_like(&mut rng, s)).collect();
    let wrt: Vec<usize> = (0..ps.len()).collect();
    let f = run(&m, &args);
    let j = jvp(&m, &wrt).unwrap_or_else(|e| panic!("{e}"));
    let mut ja = args.clone();
    ja.extend(tangents.iter().cloned());
    let jo = run(&j, &ja);
    let nl = f.len();
    for i in 0..nl {
        close(&vals(&jo[i]), &vals(&f[i]), 1e-12, "jvp primal");
    }
    let cts: Vec<Literal> = f.iter().map(|l| rand_like(&mut rng, &l.shape())).collect();
    let v = vjp(&m, &wrt).unwrap_or_else(|e| panic!("{e}"));
    let mut va = args.clone();
    va.extend(cts.iter().cloned());
    let vo = run(&v, &va);
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let lhs: f64 = (0..ps.len())
        .map(|k| dot(&vals(&vo[k]), &vals(&tangents[k])))
        .sum();
    let rhs: f64 = (0..nl)
        .map(|i| dot(&vals(&cts[i]), &vals(&jo[nl + i])))
        .sum();
    close(
        &[lhs],
        &[rhs],
        1e-10,
        &format!("<vjp(c), v> = <c, jvp(v)> for\n{src}"),
    );
    // And jvp against a finite difference along the tangents.
    let h = 1e-6;
    let p = run(&m, &along(&args, &tangents, h));
    let q = run(&m, &along(&args, &tangents, -h));
    for i in 0..nl {
        let fd = central_difference(&p[i], &q[i], h);
        close(
            &vals(&jo[nl + i]),
            &fd,
            1e-5,
            &format!("jvp vs fd for\n{src}"),
        );
    }
}

/// vmap over axis `axes` against evaluating each example alone.
fn check_vmap(src: &str, axes: &[Option<usize>], size: i64, seed: u64) {
    let m = parse(src);
    let ps = params(&m);
    let mut rng = Rng(seed);
    let args: Vec<Literal> = ps
        .iter()
        .zip(axes)
        .map(|(s, a)| {
            let mut d = dims(s);
            if let Some(k) = a {
                d.insert(*k, size);
            }
            let v: Vec<f64> = (0..count(&d)).map(|_| rng.next()).collect();
            Literal::from_vec(&d, &v).unwrap()
        })
        .collect();
    let b = vmap(&m, axes, size).unwrap_or_else(|e| panic!("{e}"));
    let got = run(&b, &args);
    for n in 0..size {
        let one: Vec<Literal> = args
            .iter()
            .zip(axes)
            .zip(&ps)
            .map(|((l, a), s)| match a {
                None => l.clone(),
                Some(k) => take(l, *k, n, &dims(s)),
            })
            .collect();
        let want = run(&m, &one);
        for (i, w) in want.iter().enumerate() {
            let g = take(&got[i], 0, n, &dims(&w.shape()));
            close(
                &vals(&g),
                &vals(w),
                1e-12,
                &format!("vmap example {n} of\n{src}"),
            );
        }
    }
}

/// Example `n` of `l` along axis `k` (`dims`: the example's dims).
fn take(l: &Literal, k: usize, n: i64, dims: &[i64]) -> Literal {
    let a = l.as_array().unwrap();
    let full = a.dims().to_vec();
    let v = vals(l);
    let outer: i64 = full[..k].iter().product();
    let inner: i64 = full[k + 1..].iter().product();
    let mut out = Vec::new();
    for o in 0..outer {
        let base = (o * full[k] + n) * inner;
        out.extend_from_slice(&v[base as usize..(base + inner) as usize]);
    }
    Literal::from_vec(dims, &out).unwrap()
}

const ELEMENTWISE: &str = include_str!("programs/elementwise.hlo");

const STRUCTURAL: &str = include_str!("programs/structural.hlo");

const BATCHED_DOT: &str = include_str!("programs/batched_dot.hlo");

const CALLS_AND_TUPLES: &str = include_str!("programs/calls_and_tuples.hlo");

const POOLING: &str = include_str!("programs/pooling.hlo");
/// Grouped, depthwise and batch-grouped convolutions.
const CONVOLUTIONS: &str = include_str!("programs/convolutions.hlo");
/// The value result of an argmax.
const ARGMAX_VALUE: &str = include_str!("programs/argmax_value.hlo");
/// A fori_loop: second order through the loops reverse mode emits.
const FORI_LOOP: &str = include_str!("programs/fori_loop.hlo");
/// `map` of a scalar computation.
const MAP: &str = include_str!("programs/map.hlo");
/// Reduce-windows: a product one strided, padded, base- and
/// window-dilated with an init value that is not 1, a `cumprod`, a base-
/// and window-dilated sum and a base-dilated max.
const REDUCE_WINDOWS: &str = include_str!("programs/reduce_windows.hlo");

const PROGRAMS: &[&str] = &[
    ELEMENTWISE,
    STRUCTURAL,
    BATCHED_DOT,
    CALLS_AND_TUPLES,
    POOLING,
    CONVOLUTIONS,
    ARGMAX_VALUE,
    FORI_LOOP,
    MAP,
    REDUCE_WINDOWS,
];

#[test]
fn grad_matches_finite_differences() {
    for (i, p) in PROGRAMS.iter().enumerate() {
        check_grad(p, 7 + i as u64);
    }
}

#[test]
fn forward_and_reverse_mode_agree() {
    for (i, p) in PROGRAMS.iter().enumerate() {
        check_modes(p, 11 + i as u64);
    }
}

#[test]
fn vmap_matches_a_loop_over_the_batch() {
    check_vmap(ELEMENTWISE, &[Some(0), Some(1)], 3, 1);
    check_vmap(ELEMENTWISE, &[Some(1), None], 2, 2);
    check_vmap(STRUCTURAL, &[Some(0), None, Some(0)], 3, 3);
    check_vmap(STRUCTURAL, &[None, Some(2), None], 2, 4);
    check_vmap(STRUCTURAL, &[Some(2), Some(1), Some(1)], 2, 5);
    check_vmap(BATCHED_DOT, &[Some(3), Some(0)], 2, 6);
    check_vmap(BATCHED_DOT, &[None, Some(1)], 3, 7);
    check_vmap(CALLS_AND_TUPLES, &[Some(0), None], 3, 8);
    // Batched kernels: alone, with the input, in every group kind.
    check_vmap(CONVOLUTIONS, &[None, Some(0), Some(2), None, Some(1)], 2, 9);
    check_vmap(
        CONVOLUTIONS,
        &[Some(3), Some(3), None, Some(0), Some(0)],
        3,
        10,
    );
    check_vmap(
        CONVOLUTIONS,
        &[Some(0), None, Some(0), Some(2), None],
        2,
        11,
    );
    check_vmap(ARGMAX_VALUE, &[Some(1), Some(0)], 2, 12);
    check_vmap(MAP, &[Some(2), None], 3, 13);
    check_vmap(REDUCE_WINDOWS, &[Some(1)], 2, 14);
}

/// The vjp of a grad is a Hessian-vector product: compare it with a
/// finite difference of the gradient along the vector.
#[test]
fn hessian_vector_product_is_the_vjp_of_grad() {
    for (i, src) in PROGRAMS.iter().enumerate() {
        let m = parse(src);
        let ps = params(&m);
        let wrt: Vec<usize> = (0..ps.len()).collect();
        let g = grad(&m, &wrt).unwrap();
        let hvp = vjp(&g, &wrt).unwrap_or_else(|e| panic!("{e}"));
        let mut rng = Rng(100 + i as u64);
        let args: Vec<Literal> = ps.iter().map(|s| rand_like(&mut rng, s)).collect();
        let v: Vec<Literal> = ps.iter().map(|s| rand_like(&mut rng, s)).collect();
        let mut a = args.clone();
        a.extend(v.iter().cloned());
        let got = run(&hvp, &a);
        let h = 1e-5;
        let p = run(&g, &along(&args, &v, h));
        let q = run(&g, &along(&args, &v, -h));
        for k in 0..ps.len() {
            let fd = central_difference(&p[k], &q[k], h);
            close(&vals(&got[k]), &fd, 1e-4, &format!("hvp wrt {k} of\n{src}"));
        }
    }
}

/// vmap of grad gives per-example gradients: each equals the grad of that
/// example alone.
#[test]
fn per_example_gradients_are_vmap_of_grad() {
    let m = parse(STRUCTURAL);
    let g = grad(&m, &[0, 1]).unwrap();
    // Batch the data (x), share the weights.
    check_vmap_of(&g, &[Some(0), None, None], 3);
    let m = parse(CALLS_AND_TUPLES);
    let g = grad(&m, &[0]).unwrap();
    check_vmap_of(&g, &[Some(0), Some(0)], 4);
    // Through max-pool's select-and-scatter.
    let m = parse(POOLING);
    let g = grad(&m, &[0]).unwrap();
    check_vmap_of(&g, &[Some(1)], 3);
    // Per-example kernel gradients of grouped convolutions.
    let m = parse(CONVOLUTIONS);
    let g = grad(&m, &[1, 2, 4]).unwrap();
    check_vmap_of(&g, &[Some(0), None, None, Some(0), None], 2);
}

fn check_vmap_of(m: &Module, axes: &[Option<usize>], size: i64) {
    let text = hlox_hlo::text::print_module(m);
    check_vmap(&text, axes, size, 42);
}

#[test]
fn transformed_modules_transform_again() {
    // grad of (the sum of a jvp's tangent): a mixed second derivative.
    let m = parse(ELEMENTWISE);
    let j = jvp(&m, &[0]).unwrap();
    // vmap of a jvp: a batch of directional derivatives.
    let text = hlox_hlo::text::print_module(&j);
    check_vmap(&text, &[None, None, Some(0)], 3, 9);
}

/// An online log-sum-exp's step over (max, scaled sum) pairs, the reducer
/// of the mixing-reduce and reduce-window tests below.
const LSE_STEP: &str = r#"lse {
  a0 = f64[] parameter(0)  a1 = f64[] parameter(1)
  b0 = f64[] parameter(2)  b1 = f64[] parameter(3)
  mx = f64[] maximum(a0, b0)
  da = f64[] subtract(a0, mx)  ea = f64[] exponential(da)  ta = f64[] multiply(a1, ea)
  db = f64[] subtract(b0, mx)  eb = f64[] exponential(db)  tb = f64[] multiply(b1, eb)
  p = f64[] add(ta, tb)
  ROOT r = (f64[], f64[]) tuple(mx, p)
}
"#;

#[test]
fn errors_name_the_instruction_and_the_problem() {
    let m = parse(
        r#"
HloModule quotients
mul { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT c = f64[] divide(a, b) }
ENTRY main {
  x = f64[4] parameter(0)
  one = f64[] constant(1)
  r = f64[] reduce(x, one), dimensions={0}, to_apply=mul
  ROOT s = f64[4] broadcast(r), dimensions={}
}
"#,
    );
    let e = jvp(&m, &[0]).unwrap_err();
    assert!(
        matches!(&e, TransformError::Unsupported { instruction, opcode: "reduce", .. } if instruction == "r"),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("`r` (reduce) is not supported: only sum, product, max and min reductions"),
        "{e}"
    );
    let e = grad(&m, &[0]).unwrap_err();
    assert!(e.to_string().contains("scalar"), "{e}");
    // A reducer that selects one side whatever the values (its result may
    // be the init value, which no element equals): not a max or min.
    let first = parse(
        r#"
HloModule first
pick { a = f64[] parameter(0)  b = f64[] parameter(1)  t = pred[] constant(true)  ROOT c = f64[] select(t, a, b) }
ENTRY main {
  x = f64[4] parameter(0)
  zero = f64[] constant(0)
  ROOT r = f64[] reduce(x, zero), dimensions={0}, to_apply=pick
}
"#,
    );
    for e in [
        jvp(&first, &[0]).unwrap_err(),
        vjp(&first, &[0]).unwrap_err(),
    ] {
        assert!(
            matches!(&e, TransformError::Unsupported { instruction, opcode: "reduce", .. } if instruction == "r"),
            "{e}"
        );
    }
    let e = vjp(&m, &[3]).unwrap_err();
    assert!(
        e.to_string().contains("wrt parameter 3 does not exist"),
        "{e}"
    );
    let e = vmap(&m, &[Some(2)], 4).unwrap_err();
    assert!(
        e.to_string().contains("in_axes[0] = 2 is past the rank 1"),
        "{e}"
    );
    let cc = parse(
        r#"
HloModule cc
ENTRY main {
  x = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(x), custom_call_target="my_op"
}
"#,
    );
    let e = vjp(&cc, &[0]).unwrap_err();
    assert!(
        e.to_string()
            .contains("target `my_op`, which has no vjp rule"),
        "{e}"
    );
    let e = vmap(&cc, &[Some(0)], 2).unwrap_err();
    assert!(e.to_string().contains("no vmap rule"), "{e}");

    // A variadic reduce with an iota whose computation does not pick one
    // (value, index) pair (here it adds the values, from 0): no argmax, so
    // jvp and vjp make it a tree of element-wise steps (JAX's
    // `_reduce_jvp`), checked against each other and finite differences.
    let not_argmax = ARGMAX_VALUE
        .replace("v = f64[] select(p, av, bv)", "v = f64[] add(av, bv)")
        .replace("ninf = f64[] constant(-inf)", "ninf = f64[] constant(0)");
    check_modes(&not_argmax, 5);

    // A variadic reduce whose second result reads the first operands (an
    // online log-sum-exp: (max, scaled sum) pairs, associative as a
    // reducer must be): it does not split into per-operand reduces and is
    // no argmax; it is a tree too, differentiated in both modes (over
    // dimensions 0 and 2: moved last, flattened, 6 -> 3 -> 2 -> 1) and
    // batched as it is.
    let mixed_src = &[
        "HloModule mixed\n",
        &LSE_STEP.replace("lse {", "mix {"),
        r#"ENTRY main {
  x = f64[3,4,2] parameter(0)
  y = f64[3,4,2] parameter(1)
  ninf = f64[] constant(-inf)
  zero = f64[] constant(0)
  m = (f64[4], f64[4]) reduce(x, y, ninf, zero), dimensions={0,2}, to_apply=mix
  mv = f64[4] get-tuple-element(m), index=0
  sv = f64[4] get-tuple-element(m), index=1
  ROOT v = f64[4] multiply(mv, sv)
}
"#,
    ]
    .concat();
    check_modes(mixed_src, 6);
    check_vmap(mixed_src, &[Some(1), None], 2, 6);
    // Its computation with an op that does not apply element-wise: both
    // modes name the reduce and that instruction.
    let mixed = parse(&mixed_src.replace(
        "p = f64[] add(ta, tb)",
        "p = f64[] custom-call(ta, tb), custom_call_target=\"my_add\"",
    ));
    for e in [
        jvp(&mixed, &[0]).unwrap_err(),
        vjp(&mixed, &[0, 1]).unwrap_err(),
    ] {
        assert!(
            matches!(&e, TransformError::Unsupported { instruction, opcode: "reduce", .. } if instruction == "m"),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("its computation `mix` has `p` (custom-call): only element-wise ops"),
            "{e}"
        );
    }
    // The same reduce with independent components (a sum and a product)
    // is split, so both modes and vmap transform it.
    let split = r#"
HloModule split
mix {
  a0 = f64[] parameter(0)  a1 = f64[] parameter(1)
  b0 = f64[] parameter(2)  b1 = f64[] parameter(3)
  s = f64[] add(a0, b0)
  p = f64[] multiply(a1, b1)
  ROOT r = (f64[], f64[]) tuple(s, p)
}
ENTRY main {
  x = f64[3,4] parameter(0)
  y = f64[3,4] parameter(1)
  zero = f64[] constant(0)
  one = f64[] constant(1)
  m = (f64[3], f64[3]) reduce(x, y, zero, one), dimensions={1}, to_apply=mix
  ROOT v = f64[3] get-tuple-element(m), index=1
}
"#;
    check_modes(split, 7);
    check_vmap(split, &[Some(1), None], 2, 7);

    // Variadic reduce-windows that mix their operands are folded over
    // their windows for jvp and vjp. Init values that are not the
    // computation's identity (a weighted sum from 0.5, a count from 2)
    // with padding and base dilation: positions on padding or holes are
    // skipped, as the evaluator (and XLA) skip them, so the jvp's primal
    // equals the program's. And an argmax window of (value, s32 index)
    // with window dilation, whose index is an integer result. And an
    // online log-sum-exp from (-inf, 0) over padding and holes (its step
    // is NaN at (init, init)).
    let windows = &[
        "HloModule windows\n",
        LSE_STEP,
        r#"wsum {
  a0 = f64[] parameter(0)  a1 = f64[] parameter(1)
  b0 = f64[] parameter(2)  b1 = f64[] parameter(3)
  c = f64[] add(a1, b1)
  s = f64[] multiply(a0, a1)  t = f64[] multiply(b0, b1)
  u = f64[] add(s, t)
  ROOT r = (f64[], f64[]) tuple(u, c)
}
pick {
  av = f64[] parameter(0)  ai = s32[] parameter(1)
  bv = f64[] parameter(2)  bi = s32[] parameter(3)
  gt = pred[] compare(bv, av), direction=GT
  eq = pred[] compare(bv, av), direction=EQ
  lt = pred[] compare(bi, ai), direction=LT
  tie = pred[] and(eq, lt)
  take = pred[] or(gt, tie)
  v = f64[] select(take, bv, av)
  i = s32[] select(take, bi, ai)
  ROOT r = (f64[], s32[]) tuple(v, i)
}
ENTRY main {
  x = f64[3,4] parameter(0)
  y = f64[3,4] parameter(1)
  half = f64[] constant(0.5)
  two = f64[] constant(2)
  zero = f64[] constant(0)
  w = (f64[3,3], f64[3,3]) reduce-window(x, y, half, two), window={size=2x3 stride=1x2 pad=1_0x0_1 lhs_dilate=1x2}, to_apply=wsum
  w0 = f64[3,3] get-tuple-element(w), index=0
  w1 = f64[3,3] get-tuple-element(w), index=1
  iota = s32[3,4] iota(), iota_dimension=1
  ninf = f64[] constant(-inf)
  big = s32[] constant(100)
  p = (f64[3,4], s32[3,4]) reduce-window(y, iota, ninf, big), window={size=2x2 pad=0_1x1_1 rhs_dilate=1x2}, to_apply=pick
  pv = f64[3,4] get-tuple-element(p), index=0
  pi = s32[3,4] get-tuple-element(p), index=1
  pf = f64[3,4] convert(pi)
  q = f64[3,4] multiply(pv, pf)
  l = (f64[3,3], f64[3,3]) reduce-window(x, y, ninf, zero), window={size=2x3 stride=1x2 pad=1_0x0_1 lhs_dilate=1x2}, to_apply=lse
  l0 = f64[3,3] get-tuple-element(l), index=0
  l1 = f64[3,3] get-tuple-element(l), index=1
  ll = f64[3,3] multiply(l0, l1)
  ROOT r = (f64[3,3], f64[3,3], f64[3,4], f64[3,3]) tuple(w0, w1, q, ll)
}
"#,
    ]
    .concat();
    check_modes(windows, 8);
    check_vmap(windows, &[Some(1), Some(0)], 2, 8);
    // A window of more positions than a fold takes: an error naming the
    // reduce-window and the limit.
    let wide = parse(
        r#"
HloModule wide
wsum {
  a0 = f64[] parameter(0)  a1 = f64[] parameter(1)
  b0 = f64[] parameter(2)  b1 = f64[] parameter(3)
  c = f64[] add(a1, b1)
  s = f64[] multiply(a0, a1)  t = f64[] multiply(b0, b1)
  u = f64[] add(s, t)
  ROOT r = (f64[], f64[]) tuple(u, c)
}
ENTRY main {
  x = f64[3,5000] parameter(0)
  y = f64[3,5000] parameter(1)
  zero = f64[] constant(0)
  w = (f64[3,1], f64[3,1]) reduce-window(x, y, zero, zero), window={size=1x5000}, to_apply=wsum
  ROOT w0 = f64[3,1] get-tuple-element(w), index=0
}
"#,
    );
    for e in [jvp(&wide, &[0]).unwrap_err(), vjp(&wide, &[0]).unwrap_err()] {
        assert!(
            matches!(&e, TransformError::Unsupported { instruction, opcode: "reduce-window", .. } if instruction == "w"),
            "{e}"
        );
        assert!(
            e.to_string().contains("its window has 5000 positions"),
            "{e}"
        );
    }
    // A reduce-window of one operand whose computation is no sum,
    // product, max or min (a * b + a + b, from 0) is folded too (from its
    // init value, as the evaluator reduces).
    let odd = r#"
HloModule odd
f {
  a = f64[] parameter(0)  b = f64[] parameter(1)
  m = f64[] multiply(a, b)  s = f64[] add(a, b)
  ROOT r = f64[] add(m, s)
}
ENTRY main {
  x = f64[5] parameter(0)
  zero = f64[] constant(0)
  ROOT w = f64[4] reduce-window(x, zero), window={size=3 stride=1 pad=1_0}, to_apply=f
}
"#;
    check_modes(odd, 9);
    check_grad(
        &odd.replace("ROOT w = f64[4]", "w = f64[4]")
            .replace("ENTRY main {", "add { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT s = f64[] add(a, b) }\nENTRY main {")
            .replace("to_apply=f\n}", "to_apply=f\n  ROOT s = f64[] reduce(w, zero), dimensions={0}, to_apply=add\n}"),
        9,
    );

    // A scatter that multiplies, with indices that may repeat: its
    // updates are not differentiated (JAX's rule neither), its operand is.
    let scatter_mul = r#"
HloModule scatter_mul
mul {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT c = f64[] multiply(a, b)
}
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT c = f64[] add(a, b)
}
ENTRY main {
  x = f64[4,2] parameter(0)
  u = f64[3,2] parameter(1)
  i = s32[3,1] constant({{1}, {1}, {3}})
  s = f64[4,2] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul
  q = f64[4,2] multiply(s, s)
  zero = f64[] constant(0)
  ROOT r = f64[] reduce(q, zero), dimensions={0,1}, to_apply=add
}
"#;
    let m = parse(scatter_mul);
    for e in [jvp(&m, &[1]).unwrap_err(), vjp(&m, &[0, 1]).unwrap_err()] {
        assert!(
            matches!(&e, TransformError::Unsupported { instruction, opcode: "scatter", .. } if instruction == "s"),
            "{e}"
        );
        assert!(
            e.to_string().contains("only when its indices are unique"),
            "{e}"
        );
    }
    // With constant updates (repeated indices): the operand's gradient
    // against finite differences; with unique indices, both, in both
    // modes.
    let constant_updates = scatter_mul.replace(
        "u = f64[3,2] parameter(1)",
        "u = f64[3,2] constant({{2, -1}, {0.5, 3}, {-2, 1.5}})",
    );
    check_grad(&constant_updates, 3);
    let unique = scatter_mul
        .replace(
            "index_vector_dim=1,",
            "index_vector_dim=1, unique_indices=true,",
        )
        .replace("{{1}, {1}, {3}}", "{{1}, {0}, {3}}");
    check_modes(&unique, 4);
    check_grad(&unique, 5);

    // A map whose computation calls a target: the map is named, and what
    // in its computation is not mapped.
    let cc_map = MAP.replace(
        "e = f64[] exponential(b)",
        "e = f64[] custom-call(b), custom_call_target=\"my_exp\"",
    );
    let m = parse(&cc_map);
    for e in [
        jvp(&m, &[0]).unwrap_err(),
        vjp(&m, &[0]).unwrap_err(),
        vmap(&m, &[Some(0), None], 2).unwrap_err(),
    ] {
        assert!(
            matches!(&e, TransformError::Unsupported { instruction, opcode: "map", .. } if instruction == "mp"),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("`e` (custom-call): only element-wise ops"),
            "{e}"
        );
    }
}

/// Every module of the JAX corpus (tests/corpus) transforms into a module
/// the verifier accepts, or fails with an error that is not a rule's bug:
/// never a panic, never a rule building a malformed instruction.
#[test]
fn every_corpus_module_transforms_or_says_why() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut seen = 0;
    let mut ok = 0;
    for d in std::fs::read_dir(&root).unwrap() {
        let p = d.unwrap().path().join("module.hlo");
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let Ok(m) = parse_module(&text) else {
            continue;
        };
        seen += 1;
        let entry = m.entry_computation();
        let float: Vec<usize> = (0..entry.params.len())
            .filter(|&i| {
                entry
                    .inst(entry.params[i])
                    .shape
                    .element_type()
                    .is_some_and(|t| t.is_float())
            })
            .collect();
        let axes: Vec<Option<usize>> = entry
            .params
            .iter()
            .map(|&q| entry.inst(q).shape.is_array().then_some(0))
            .collect();
        let results = std::panic::catch_unwind(|| {
            [
                jvp(&m, &float).map(|_| ()),
                vjp(&m, &float).map(|_| ()),
                vmap(&m, &axes, 2).map(|_| ()),
            ]
        })
        .unwrap_or_else(|_| panic!("{}: a transformation panicked", p.display()));
        for r in results {
            match r {
                Ok(()) => ok += 1,
                Err(e @ (TransformError::Output { .. } | TransformError::Emit { .. })) => {
                    panic!("{}: {e}", p.display())
                }
                Err(_) => {}
            }
        }
    }
    assert!(seen > 20, "only {seen} corpus modules");
    assert!(
        ok > seen,
        "only {ok} of {} transformations succeeded",
        3 * seen
    );
}

#[test]
fn grad_of_grad() {
    // grad returns a one-element tuple of a scalar; grad accepts that, so
    // d2/dx2 (x sin x) = 2 cos x - x sin x.
    let m = parse(
        "HloModule f
         ENTRY main { x = f64[] parameter(0)  s = f64[] sine(x)  ROOT y = f64[] multiply(s, x) }",
    );
    let g = grad(&m, &[0]).unwrap();
    let gg = grad(&g, &[0]).unwrap();
    let x = 0.7f64;
    let out = vals(&run(&gg, &[Literal::r0(x)])[0]);
    close(&out, &[2.0 * x.cos() - x * x.sin()], 1e-12, "grad of grad");
    // Two results (or a tuple of two) still need vjp.
    let two = grad(&m, &[0]).and_then(|g| jvp(&g, &[0])).unwrap();
    let e = grad(&two, &[0]).unwrap_err();
    assert!(
        e.to_string().contains("scalar floating-point result"),
        "{e}"
    );
}

/// The gradient with respect to complex inputs follows JAX: for a real f
/// of z = x + iy, grad is df/dx - i df/dy (the transpose of the jvp, not
/// conjugated). Checked against central differences along the real and
/// the imaginary axis of each element, and the jvp against a difference
/// along a complex direction.
#[test]
fn complex_gradients_follow_jaxs_convention() {
    use hlox_hlo::Complex64 as C;
    let m = parse(include_str!("programs/complex.hlo"));
    let z = [C::new(0.3, -0.2), C::new(-0.5, 0.7), C::new(0.1, 0.4)];
    let x = [0.8, -0.6, 1.1];
    let args = |z: &[C]| vec![Literal::from_vec(&[3], z).unwrap(), Literal::r1(&x)];
    let f = |z: &[C]| vals(&run(&m, &args(z))[0])[0];
    let g = grad(&m, &[0]).unwrap();
    let got = run(&g, &args(&z))[0].to_vec::<C>().unwrap();
    let h = 1e-6;
    for k in 0..3 {
        let along = |d: C| {
            let (mut p, mut q) = (z, z);
            p[k] += d;
            q[k] -= d;
            (f(&p) - f(&q)) / (2.0 * h)
        };
        let (dx, dy) = (along(C::new(h, 0.0)), along(C::new(0.0, h)));
        close(
            &[got[k].re, got[k].im],
            &[dx, -dy],
            1e-6,
            &format!("grad wrt z[{k}]"),
        );
    }
    // jvp along a complex direction v: the directional derivative.
    let v = [C::new(0.2, 0.9), C::new(-0.4, 0.1), C::new(0.7, -0.3)];
    let j = jvp(&m, &[0]).unwrap();
    let mut a = args(&z);
    a.push(Literal::from_vec(&[3], &v).unwrap());
    let t = vals(&run(&j, &a)[1])[0];
    let shifted = |s: f64| -> Vec<C> { z.iter().zip(&v).map(|(z, v)| z + v * s).collect() };
    let fd = (f(&shifted(h)) - f(&shifted(-h))) / (2.0 * h);
    close(&[t], &[fd], 1e-6, "jvp along v");
    // An op complex values do not have a rule for: named with its opcode.
    let m = parse(
        "HloModule c
         ENTRY main { z = c64[2] parameter(0)  ROOT y = c64[2] cbrt(z) }",
    );
    for e in [jvp(&m, &[0]).unwrap_err(), vjp(&m, &[0]).unwrap_err()] {
        assert!(
            matches!(&e, TransformError::Unsupported { instruction, opcode: "cbrt", .. } if instruction == "y"),
            "{e}"
        );
        // JAX has no complex cbrt either: the message says so.
        assert!(
            e.to_string()
                .contains("JAX does not accept a complex operand for it either"),
            "{e}"
        );
    }
    // vmap batches it: batching does not depend on the element type.
    let b = vmap(&m, &[Some(0)], 2).unwrap();
    let text = hlox_hlo::text::print_module(&b);
    assert!(text.contains("c64[2,2]{1,0} cbrt("), "{text}");
    // A complex cummax (a reduce-window choosing by the parts, as JAX
    // lowers it): JAX refuses its jvp, and so does hlox, saying so.
    let m = parse(
        "HloModule c
         cmax {
           a = c64[] parameter(0)  b = c64[] parameter(1)
           ra = f32[] real(a)  rb = f32[] real(b)
           p = pred[] compare(ra, rb), direction=GT
           ROOT r = c64[] select(p, a, b)
         }
         ENTRY main {
           z = c64[4] parameter(0)
           init = c64[] constant((-inf, 0))
           ROOT y = c64[4] reduce-window(z, init), window={size=4 pad=3_0}, to_apply=cmax
         }",
    );
    let e = jvp(&m, &[0]).unwrap_err();
    assert!(
        matches!(&e, TransformError::Unsupported { instruction, opcode: "reduce-window", .. } if instruction == "y"),
        "{e}"
    );
    assert!(e.to_string().contains("JAX refuses its jvp too"), "{e}");
    // A complex select-and-scatter (a complex max-pool's gradient) and a
    // bitcast of complex values: no derivative, saying why; vmap batches
    // both.
    let m = parse(
        "HloModule c
         ge_real {
           a = c64[] parameter(0)  b = c64[] parameter(1)
           ra = f32[] real(a)  rb = f32[] real(b)
           ROOT p = pred[] compare(ra, rb), direction=GE
         }
         add { a = c64[] parameter(0)  b = c64[] parameter(1)  ROOT c = c64[] add(a, b) }
         ENTRY main {
           x = c64[4] parameter(0)  src = c64[2] parameter(1)
           zero = c64[] constant((0, 0))
           s = c64[4] select-and-scatter(x, src, zero), window={size=2 stride=2}, select=ge_real, scatter=add
           b = s64[4] bitcast-convert(s)
           ROOT r = (c64[4], s64[4]) tuple(s, b)
         }",
    );
    let e = vjp(&m, &[1]).unwrap_err();
    assert!(e.to_string().contains("`s` (select-and-scatter)"), "{e}");
    assert!(e.to_string().contains("JAX has no complex max-pool"), "{e}");
    let m2 = parse(&hlox_hlo::text::print_module(&m).replace(
        "select-and-scatter(x, src, zero), window={size=2 stride=2}, select=ge_real, scatter=add",
        "add(x, x)",
    ));
    let e = jvp(&m2, &[0]).unwrap_err();
    assert!(
        e.to_string().contains("(bitcast-convert) is not supported"),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("JAX does not bitcast complex values"),
        "{e}"
    );
    vmap(&m, &[Some(0), Some(0)], 3).unwrap();
}
