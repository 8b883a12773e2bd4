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

/// differential: tanh of a large input must be exactly +-1 (XLA:CPU picks
/// its clamp so that its rational fit gives exactly 1 there); hlox's gave
/// 1 - 1 ulp with FMA contraction, which a later floor turned into 0.
#[test]
fn tanh_of_large_inputs_is_exactly_one() {
    let exe = compile(
        "HloModule t\n\nENTRY e {\n  x = f32[8]{0} parameter(0)\n  t = f32[8]{0} tanh(x)\n  f = f32[8]{0} floor(t)\n  ROOT r = (f32[8]{0}, f32[8]{0}) tuple(t, f)\n}\n",
    );
    let xs = [320f32, -320., 7.905_311, 7.95, 8.0, 9.0, -8.5, 1e30];
    let out = exe.execute(&[&Literal::r1(&xs)]).unwrap().into_leaves();
    let (t, f) = (
        out[0].to_vec::<f32>().unwrap(),
        out[1].to_vec::<f32>().unwrap(),
    );
    for (i, &x) in xs.iter().enumerate() {
        assert_eq!(t[i], x.signum(), "tanh({x})");
        assert_eq!(f[i], x.signum(), "floor(tanh({x}))");
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
