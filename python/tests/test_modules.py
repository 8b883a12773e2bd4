from pathlib import Path

import numpy as np
import pytest

import hlox

ADD = """HloModule add

ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT s = f32[4] add(x, y)
}
"""


def test_text_roundtrip_and_name():
    m = hlox.Module.from_text(ADD)
    assert m.name == "add"
    again = hlox.Module.from_text(m.to_text())
    assert again.to_text() == m.to_text()
    assert repr(m) == "<hlox.Module add: (f32[4], f32[4]) -> f32[4]>"
    assert [str(s) for s in m.parameter_shapes] == ["f32[4]", "f32[4]"]


def test_proto_roundtrip(tmp_path):
    m = hlox.Module.from_text(ADD)
    p = m.to_proto()
    assert isinstance(p, bytes) and len(p) > 0
    assert hlox.Module.from_proto(p).to_text() == m.to_text()
    (tmp_path / "m.pb").write_bytes(p)
    (tmp_path / "m.hlo").write_text(ADD)
    assert hlox.load(tmp_path / "m.pb").name == "add"
    assert hlox.load(str(tmp_path / "m.hlo")).name == "add"


def test_parse_error_has_position():
    bad = ADD.replace("add(x, y)", "add(x, y")
    with pytest.raises(hlox.ParseError) as e:
        hlox.Module.from_text(bad)
    assert e.value.line == 7
    assert e.value.column == 1
    assert isinstance(e.value, hlox.Error)


def test_load_parse_error_names_file(tmp_path):
    f = tmp_path / "bad.hlo"
    f.write_text("HloModule m\nENTRY e {\n  x = f32[ parameter(0)\n}\n")
    with pytest.raises(hlox.ParseError) as e:
        hlox.load(f)
    assert "bad.hlo:3" in str(e.value)
    assert e.value.line == 3


def test_bad_proto_is_parse_error():
    with pytest.raises(hlox.ParseError) as e:
        hlox.Module.from_proto(b"\xff\xff\xff garbage")
    assert e.value.line is None


def test_verify_error():
    bad = ADD.replace("ROOT s = f32[4] add(x, y)", "ROOT s = f32[5] add(x, y)")
    with pytest.raises(hlox.VerifyError) as e:
        hlox.Module.from_text(bad)
    assert "s" in str(e.value)


def test_stablehlo_hint():
    with pytest.raises(hlox.ParseError, match="StableHLO"):
        hlox.Module.from_text("module @jit_f {\n  func.func public @main() {\n stablehlo.constant\n}}")


STABLEHLO = Path(__file__).resolve().parents[2] / "tests" / "stablehlo"


def test_load_stablehlo_text_and_run():
    # `exported.mlir_module()` of a jax.export artifact: StableHLO MLIR text.
    m = hlox.load(STABLEHLO / "sin_add.mlir")
    assert m.name == "jit_f"
    assert [str(s) for s in m.parameter_shapes] == ["f32[8]", "f32[8]"]
    x, y = np.load(STABLEHLO / "in0.npy"), np.load(STABLEHLO / "in1.npy")
    out = hlox.compile(m)(x, y)
    np.testing.assert_allclose(np.asarray(out), np.load(STABLEHLO / "out0.npy"), rtol=1e-5, atol=1e-5)


def test_load_stablehlo_error_has_position(tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text((STABLEHLO / "sin_add.mlir").read_text().replace("stablehlo.sine", "stablehlo.sinus"))
    with pytest.raises(hlox.ParseError, match="unsupported operation 'stablehlo.sinus'") as e:
        hlox.load(f)
    assert e.value.line is not None and "bad.mlir:" in str(e.value)


def test_load_jax_export_artifact_runs(tmp_path):
    m = hlox.load(STABLEHLO / "sin_add.jax_exported")
    assert m.name == "jit_f"
    assert [str(s) for s in m.parameter_shapes] == ["f32[8]", "f32[8]"]
    x, y = np.load(STABLEHLO / "in0.npy"), np.load(STABLEHLO / "in1.npy")
    out = hlox.compile(m)(x, y)
    np.testing.assert_allclose(np.asarray(out), np.load(STABLEHLO / "out0.npy"), rtol=1e-5, atol=1e-5)
    # An artifact hlox cannot read is an error that says where and what to do.
    data = bytearray((STABLEHLO / "sin_add.jax_exported").read_bytes())
    data[data.index(b"ML\xefR") + 4] = 0x0F  # bytecode version 7
    bad = tmp_path / "bad.jax_exported"
    bad.write_bytes(bytes(data))
    with pytest.raises(hlox.Error, match=r"byte 4 \(header\): bytecode version 7 .*mlir_module\(\)"):
        hlox.load(bad)
    # A truncated one: a binary file hlox names as damaged, not HLO text.
    cut = tmp_path / "cut.jax_exported"
    cut.write_bytes(bytes(data[: len(data) // 2]))
    with pytest.raises(hlox.ParseError, match="damaged or truncated"):
        hlox.load(cut)


def test_missing_file():
    with pytest.raises(hlox.Error, match="cannot read"):
        hlox.load("/nonexistent/x.hlo")


def test_shape_api():
    s = hlox.Shape.array("f32", (2, 3))
    assert s.dtype == "f32" and s.dims == (2, 3) and not s.is_tuple
    assert s.numpy_dtype == np.float32
    assert hlox.Shape.array(np.int32, ()).dtype == "s32"
    t = hlox.Shape.tuple([s, hlox.Shape.array("pred", ())])
    assert t.is_tuple and len(t.elements) == 2
    assert repr(t) == "Shape((f32[2,3], pred[]))"
    with pytest.raises(ValueError):
        hlox.Shape.array("f31", (1,))
    with pytest.raises(ValueError):
        hlox.Shape.array("f32", (-1,))
