import numpy as np
import pytest

import hlox

S4 = hlox.Shape.array("f32", (4,))
X = np.array([1, 2, 3, 4], np.float32)


def typed_call(name, operands_shapes, result_shape, backend_config=b""):
    b = hlox.Builder(f"py_{name}")
    ps = [b.parameter(i, s, f"p{i}") for i, s in enumerate(operands_shapes)]
    r = b.custom_call(name, ps, result_shape, opaque=backend_config, api_version=4)
    return hlox.compile(b.build(r))


def test_python_function_with_attributes():
    seen = {}

    @hlox.custom_call_target("py_scale_add")
    def scale_add(x, y, *, out, factor, name, shift, dims):
        seen.update(factor=factor, name=name, shift=shift, dims=dims, ro=x.flags.writeable)
        out[...] = x * factor + y + shift

    exe = typed_call(
        "py_scale_add",
        [S4, S4],
        S4,
        b'{factor = 3.0 : f32, name = "hello", shift = 1 : i64, dims = array<i64: 1, 2, 3>}',
    )
    y = np.ones(4, np.float32)
    np.testing.assert_array_equal(exe(X, y), X * 3 + y + 1)
    assert seen["factor"] == 3.0 and seen["name"] == "hello" and seen["shift"] == 1
    assert list(seen["dims"]) == [1, 2, 3]
    assert seen["ro"] is False  # operands are read-only views
    t = {(t.name, t.platform): t for t in hlox.targets()}[("py_scale_add", "cpu")]
    assert t.api_version == 4 and "scale_add" in t.origin


def test_several_results_are_positional():
    @hlox.custom_call_target("py_add_sub")
    def add_sub(x, y, s, d):
        s[...] = x + y
        d[...] = x - y

    exe = typed_call("py_add_sub", [S4, S4], hlox.Shape.tuple([S4, S4]))
    y = np.full(4, 0.5, np.float32)
    s, d = exe(X, y)
    np.testing.assert_array_equal(s, X + y)
    np.testing.assert_array_equal(d, X - y)


def test_exception_fails_the_call_and_the_executable_runs_again():
    @hlox.custom_call_target("py_picky")
    def picky(x, *, out):
        if x[0] < 0:
            raise ValueError(f"picky: x[0] = {x[0]} is negative")
        out[...] = x

    exe = typed_call("py_picky", [S4], S4)
    with pytest.raises(hlox.CustomCallError) as e:
        exe(-X)
    assert e.value.target == "py_picky"
    assert "ValueError: picky: x[0] = -1.0 is negative" in e.value.message
    np.testing.assert_array_equal(exe(X), X)


def test_reregistering_replaces_the_function():
    @hlox.custom_call_target("py_replace")
    def first(x, *, out):
        out[...] = 1

    exe = typed_call("py_replace", [S4], S4)
    np.testing.assert_array_equal(exe(X), np.ones(4))

    @hlox.custom_call_target("py_replace")
    def second(x, *, out):
        out[...] = 2

    np.testing.assert_array_equal(exe(X), np.full(4, 2))


def test_called_from_threads():
    import threading

    @hlox.custom_call_target("py_threads")
    def twice(x, *, out):
        out[...] = 2 * x

    exe = typed_call("py_threads", [S4], S4)
    bad = []

    def work(k):
        for _ in range(20):
            v = np.full(4, k, np.float32)
            if not np.array_equal(exe(v), 2 * v):
                bad.append(k)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert bad == []


def test_cuda_python_target_refused():
    with pytest.raises(ValueError, match="Host"):
        hlox.custom_call_target("py_gpu", platform="cuda")(lambda x, *, out: None)


def test_views_kept_after_the_call_are_read_only():
    kept = []

    @hlox.custom_call_target("py_keeper")
    def keeper(x, *, out):
        out[...] = x
        kept.append(out)

    exe = typed_call("py_keeper", [S4], S4)
    np.testing.assert_array_equal(exe(X), X)
    with pytest.raises(ValueError, match="read-only"):
        kept[0][0] = 1.0
