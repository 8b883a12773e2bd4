//! (A module of the `failures` test binary.)
//!
//! Regressions found by the fuzz targets of tests/fuzz (see
//! docs/reliability.md): each replays the finding's input.

use hlox_hlo::text::parse_module;
use hlox_hlo::Literal;

fn compile(text: &str) -> hlox_cpu::Executable {
    let m = parse_module(text).unwrap();
    hlox_cpu::compile(&m, &Default::default()).unwrap()
}

/// differential: tanh of a large input must be exactly +-1 where the
/// evaluator's (libm's) is: hlox's once gave 1 - 1 ulp at 320 with FMA
/// contraction, which a later floor turned into 0. Later (the property
/// test of tests/host.rs) it saturated at XLA's clamp, 7.905, where libm
/// still gives 1 - 5 ulp, and a convert to s32 gave 1 instead of 0. Now:
/// within an ulp of libm beyond the clamp, exactly +-1 exactly where libm
/// is, so floor and convert agree with the evaluator everywhere.
#[test]
fn tanh_of_large_inputs_is_exactly_one() {
    let exe = compile(
        "HloModule t\n\nENTRY e {\n  x = f32[12]{0} parameter(0)\n  t = f32[12]{0} tanh(x)\n  f = f32[12]{0} floor(t)\n  i = s32[12]{0} convert(t)\n  ROOT r = (f32[12]{0}, f32[12]{0}, s32[12]{0}) tuple(t, f, i)\n}\n",
    );
    let one = f32::from_bits(0x4110_2cb4); // the first f32 with tanhf(x) == 1
    let xs = [
        320f32,
        -320.,
        7.905_311,
        7.95,
        8.0,
        9.0,
        -8.5,
        1e30,
        one,
        f32::from_bits(one.to_bits() - 1),
        -one,
        7.5,
    ];
    let out = exe.execute(&[&Literal::r1(&xs)]).unwrap().into_leaves();
    let (t, f, i) = (
        out[0].to_vec::<f32>().unwrap(),
        out[1].to_vec::<f32>().unwrap(),
        out[2].to_vec::<i32>().unwrap(),
    );
    for (k, &x) in xs.iter().enumerate() {
        let want = x.tanh();
        let ulps = (t[k].to_bits() as i64 - want.to_bits() as i64).abs();
        assert!(ulps <= 1, "tanh({x}) = {}, libm {want}", t[k]);
        assert_eq!(t[k].abs() == 1.0, want.abs() == 1.0, "tanh({x}) saturation");
        assert_eq!(f[k], want.floor(), "floor(tanh({x}))");
        assert_eq!(i[k], want as i32, "s32(tanh({x}))");
    }
}

/// tests/host.rs's property test, the program it found: tanh(2 * f16(-p))
/// between XLA's clamp and libm's saturation, converted to s32.
#[test]
fn tanh_between_the_clamp_and_saturation_converts_like_the_evaluator() {
    let text = "HloModule prog\n\nENTRY prog {\n  p = f32[2]{0} parameter(0)\n  n = f32[2]{0} negate(p)\n  h = f16[2]{0} convert(n)\n  c = f32[2]{0} convert(h)\n  a = f32[2]{0} add(c, c)\n  t = f32[2]{0} tanh(a)\n  i = s32[2]{0} convert(t)\n  ROOT r = (f32[2]{0}, s32[2]{0}) tuple(t, i)\n}\n";
    let m = parse_module(text).unwrap();
    for v in [-3.96875f32, -4.25, -3.953_125, 4.4] {
        let arg = [Literal::r1(&[v, -v])];
        let want = hlox_eval::evaluate(&m, &arg, &hlox_eval::NoCustomCalls)
            .unwrap()
            .into_leaves();
        let got = compile(text).execute(&[&arg[0]]).unwrap().into_leaves();
        assert_eq!(got[1], want[1], "s32(tanh(2 * {v}))");
    }
}

/// differential, the program it found (argument -319.25): floor(tanh(320))
/// through negations and an f16 round trip.
#[test]
fn differential_tanh_floor_program() {
    let text = r#"HloModule prog

ENTRY prog {
  p = f32[] parameter(0)
  compare.1 = pred[] compare(p, p), direction=LT
  select.2 = f32[] select(compare.1, p, p)
  floor.3 = f32[] floor(select.2)
  negate.4 = f32[] negate(floor.3)
  tanh.5 = f32[] tanh(negate.4)
  negate.6 = f32[] negate(tanh.5)
  copy.7 = f32[] copy(negate.6)
  negate.8 = f32[] negate(copy.7)
  floor.9 = f32[] floor(negate.8)
  convert.10 = f16[] convert(floor.9)
  convert.11 = f32[] convert(convert.10)
  ROOT tuple.16 = (f32[], f32[], f32[]) tuple(tanh.5, floor.9, convert.11)
}
"#;
    let m = parse_module(text).unwrap();
    let arg = [Literal::r0(-319.25f32)];
    let want = hlox_eval::evaluate(&m, &arg, &hlox_eval::NoCustomCalls).unwrap();
    for hlo_passes in [false, true] {
        for opt_level in [1, 3] {
            let o = hlox_cpu::CompileOptions {
                hlo_passes,
                opt_level,
                parallel_threshold: 8,
                ..Default::default()
            };
            let got = hlox_cpu::compile(&m, &o)
                .unwrap()
                .execute(&[&arg[0]])
                .unwrap();
            assert_eq!(got, want, "passes {hlo_passes}, O{opt_level}");
        }
    }
}
