import numpy as np
import pytest

import hlox

F4 = hlox.Shape.array("f32", (4,))


def scalar_add():
    b = hlox.Builder("add_f32")
    x = b.parameter(0, hlox.Shape.array("f32", ()), "a")
    y = b.parameter(1, hlox.Shape.array("f32", ()), "b")
    return b.build(x + y)


def test_operators_and_methods():
    b = hlox.Builder("ops")
    x = b.parameter(0, F4, "x")
    y = b.parameter(1, F4, "y")
    r = b.tuple([x + y, x - y, x * y, x / y, -x, 2.0 * x + 1.0, b.max(x, y), b.exp(b.log(y)), b.tanh(x)])
    exe = hlox.compile(b.build(r))
    xv = np.array([1, -2, 3, 4], np.float32)
    yv = np.array([2, 2, 5, 1], np.float32)
    out = exe(xv, yv)
    expect = [xv + yv, xv - yv, xv * yv, xv / yv, -xv, 2 * xv + 1, np.maximum(xv, yv), yv, np.tanh(xv)]
    for o, e in zip(out, expect):
        np.testing.assert_allclose(o, e, rtol=1e-6)


def test_matmul_reduce_broadcast_reshape_transpose_slice_concat():
    b = hlox.Builder("mix")
    a = b.parameter(0, hlox.Shape.array("f32", (2, 3)), "a")
    c = b.parameter(1, hlox.Shape.array("f32", (3, 2)), "c")
    mm = a @ c  # (2, 2)
    s = b.reduce(a, b.constant(np.float32(0)), scalar_add(), [1])  # (2,)
    bc = b.broadcast_in_dim(s, [2, 2], [0])
    rs = b.reshape(a, [3, 2])
    tr = b.transpose(a, [1, 0])
    sl = b.slice(a, [0, 1], [2, 3])
    cat = b.concatenate([rs, tr], 0)
    dg = b.dot_general(a, c, [1], [0])
    exe = hlox.compile(b.build(b.tuple([mm, bc, sl, cat, dg])))
    av = np.arange(6, dtype=np.float32).reshape(2, 3)
    cv = np.arange(6, dtype=np.float32).reshape(3, 2) - 2
    mm_o, bc_o, sl_o, cat_o, dg_o = exe(av, cv)
    np.testing.assert_allclose(mm_o, av @ cv)
    np.testing.assert_allclose(bc_o, np.broadcast_to(av.sum(1)[:, None], (2, 2)))
    np.testing.assert_array_equal(sl_o, av[:, 1:3])
    np.testing.assert_array_equal(cat_o, np.concatenate([av.reshape(3, 2), av.T], 0))
    np.testing.assert_allclose(dg_o, av @ cv)


def test_compare_select_convert_iota_constant():
    b = hlox.Builder("sel")
    x = b.parameter(0, hlox.Shape.array("s32", (5,)), "x")
    i = b.iota(hlox.Shape.array("s32", (5,)), 0)
    gt = b.compare(x, i, "GT")
    r = b.select(gt, x, i)
    f = b.convert(r, "f64")
    k = b.constant(np.array([[1, 2], [3, 4]], np.int16))
    exe = hlox.compile(b.build(b.tuple([f, k, gt])))
    xv = np.array([3, 0, 5, 1, 9], np.int32)
    f_o, k_o, gt_o = exe(xv)
    np.testing.assert_array_equal(f_o, np.where(xv > np.arange(5), xv, np.arange(5)).astype(np.float64))
    assert f_o.dtype == np.float64
    np.testing.assert_array_equal(k_o, [[1, 2], [3, 4]])
    assert gt_o.dtype == np.bool_


def test_while_loop_and_conditional():
    s = hlox.Shape.tuple([hlox.Shape.array("s32", ()), hlox.Shape.array("f32", ())])
    cb = hlox.Builder("cond")
    p = cb.parameter(0, s, "p")
    cond = cb.build(cb.compare(cb.get_tuple_element(p, 0), cb.constant(np.int32(10)), "LT"))
    bb = hlox.Builder("body")
    p = bb.parameter(0, s, "p")
    i = bb.get_tuple_element(p, 0)
    v = bb.get_tuple_element(p, 1)
    body = bb.build(bb.tuple([i + 1, v * 2.0]))
    b = hlox.Builder("loop")
    x = b.parameter(0, hlox.Shape.array("f32", ()), "x")
    w = b.while_loop(cond, body, b.tuple([b.constant(np.int32(0)), x]))
    out = b.get_tuple_element(w, 1)

    tb = hlox.Builder("t")
    tb_x = tb.parameter(0, hlox.Shape.array("f32", ()), "x")
    tcomp = tb.build(tb_x + 1.0)
    fb = hlox.Builder("f")
    fb_x = fb.parameter(0, hlox.Shape.array("f32", ()), "x")
    fcomp = fb.build(-fb_x)
    pred = b.compare(x, b.constant(np.float32(0)), "GT")
    c = b.conditional(pred, out, tcomp, out, fcomp)
    exe = hlox.compile(b.build(c))
    assert float(exe(np.float32(1.5))) == 1.5 * 1024 + 1
    assert float(exe(np.float32(-1.0))) == 1024.0


def test_builder_errors():
    b = hlox.Builder("bad")
    x = b.parameter(0, F4, "x")
    y = b.parameter(1, hlox.Shape.array("f32", (3,)), "y")
    with pytest.raises(hlox.Error, match="add"):
        b.add(x, y)
    other = hlox.Builder("other").parameter(0, F4, "z")
    with pytest.raises(ValueError, match="different Builders"):
        x + other
    with pytest.raises(ValueError, match="direction"):
        b.compare(x, x, "SIDEWAYS")
    b2 = hlox.Builder("gap")
    z = b2.parameter(1, F4, "z")
    with pytest.raises(hlox.Error, match="parameter numbers"):
        b2.build(z)


def test_do_custom_call_seed(c_lib):
    """The XLA custom-call guide's do_custom_call (here on f32[128] twice),
    built with the Builder and run from Python."""
    hlox.register_ffi_target("do_custom_call", c_lib.do_custom_call, platform="cpu", api_version=1)
    b = hlox.Builder("do_it")
    s = hlox.Shape.array("f32", (128,))
    x = b.parameter(0, s, "x")
    y = b.parameter(1, s, "y")
    r = b.custom_call("do_custom_call", [x, y], s)
    exe = hlox.compile(b.build(r))
    xv = np.arange(128, dtype=np.float32)
    yv = np.ones(128, np.float32)
    np.testing.assert_array_equal(exe(xv, yv), xv + 2 * yv)
