"""Bad input raises exceptions; nothing crashes the interpreter."""

import numpy as np
import pytest

import hlox


@pytest.mark.parametrize(
    "text",
    ["", "HloModule", "HloModule m\nENTRY e {", "\x00\xff", "HloModule m\nENTRY e {\n ROOT x = f32[99999999999999999999] parameter(0)\n}\n"],
)
def test_bad_text(text):
    with pytest.raises(hlox.Error):
        hlox.Module.from_text(text)


@pytest.mark.parametrize("data", [b"", b"\x00", bytes(range(256)), b"\x0a\x05hello"])
def test_bad_proto(data):
    try:
        hlox.Module.from_proto(data)
    except hlox.Error:
        pass


def test_wrong_python_types():
    b = hlox.Builder("t")
    x = b.parameter(0, hlox.Shape.array("f32", (2,)), "x")
    with pytest.raises(TypeError):
        b.add(x, 1.0)
    with pytest.raises(TypeError):
        hlox.compile("not a module")
    with pytest.raises(TypeError):
        hlox.Shape.tuple([1, 2])
    with pytest.raises((ValueError, TypeError)):
        b.constant(object())
    with pytest.raises(hlox.Error):
        b.reshape(x, [3])
    with pytest.raises(hlox.Error):
        b.get_tuple_element(x, 5)
    with pytest.raises(hlox.Error):
        b.slice(x, [0], [9])


def test_huge_result_is_an_error_not_a_crash():
    b = hlox.Builder("huge")
    x = b.parameter(0, hlox.Shape.array("f32", ()), "x")
    big = b.broadcast_in_dim(x, [1 << 22, 1 << 22], [])  # 64 TiB
    try:
        exe = hlox.compile(b.build(big))
    except hlox.Error:
        return
    with pytest.raises((hlox.Error, MemoryError, ValueError)):
        exe(np.float32(1))


def test_custom_call_target_not_callable():
    with pytest.raises(TypeError):
        hlox.custom_call_target("py_not_callable")(42)
