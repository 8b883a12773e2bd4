import threading

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

TUPLE = """HloModule tup

ENTRY main {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  s = f32[2,3] add(x, y)
  d = f32[2,3] subtract(x, y)
  c = s32[] constant(7)
  ROOT t = (f32[2,3], f32[2,3], s32[]) tuple(s, d, c)
}
"""


@pytest.fixture(scope="module")
def add():
    return hlox.compile(hlox.Module.from_text(ADD))


def test_run_numpy(add):
    x = np.arange(4, dtype=np.float32)
    y = np.full(4, 10, np.float32)
    out = add(x, y)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, x + y)
    # The result is a fresh array that numpy owns (hlox wrote into it).
    assert out.flags.owndata and out.flags.writeable
    assert "add" in repr(add) and add.platform == "cpu"


def test_tuple_result():
    exe = hlox.compile(hlox.Module.from_text(TUPLE))
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    y = np.ones((2, 3), np.float32)
    s, d, c = exe(x, y)
    np.testing.assert_allclose(s, x + y)
    np.testing.assert_allclose(d, x - y)
    assert c.shape == () and int(c) == 7 and c.dtype == np.int32


def test_non_contiguous_and_lists(add):
    base = np.arange(8, dtype=np.float32)
    x = base[::2]  # strided: copied once
    assert not x.flags.c_contiguous
    np.testing.assert_array_equal(add(x, [1, 1, 1, 1]), x + 1)


def test_misaligned_input(add):
    raw = np.zeros(4 * 4 + 1, np.uint8)
    x = raw[1:].view(np.float32)
    assert not x.flags.aligned
    x[:] = [1, 2, 3, 4]
    np.testing.assert_array_equal(add(x, x), [2, 4, 6, 8])


def test_dlpack_inputs(add):
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.arange(4, dtype=jnp.float32)
    out = add(x, x)
    np.testing.assert_array_equal(out, [0, 2, 4, 6])


def test_argument_errors_name_the_parameter(add):
    x = np.zeros(4, np.float32)
    with pytest.raises(hlox.ExecError, match=r"argument 1 \(parameter `y`\).*f32\[4\].*float64"):
        add(x, np.zeros(4, np.float64))
    with pytest.raises(hlox.ExecError, match=r"argument 0 \(parameter `x`\).*shape \(5,\)"):
        add(np.zeros(5, np.float32), x)
    with pytest.raises(hlox.ExecError, match="takes 2 arguments but was given 1"):
        add(x)
    with pytest.raises(hlox.ExecError, match="argument 0"):
        add(object(), x)
    # None is no array (numpy would read it as a NaN).
    with pytest.raises(hlox.ExecError, match=r"argument 1 \(parameter `y`\): got None; pass f32\[4\]"):
        add(x, None)
    # Still fine afterwards.
    np.testing.assert_array_equal(add(x, x), x)


def test_threads_share_one_executable(add):
    n_threads, iters = 8, 50
    errors = []

    def work(k):
        try:
            x = np.full(4, k, np.float32)
            for i in range(iters):
                y = np.full(4, i, np.float32)
                out = add(x, y)
                if not np.array_equal(out, x + y):
                    errors.append((k, i, out))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []


def test_gil_released_while_running():
    # A long-running module on one thread while another thread runs Python.
    m = hlox.Module.from_text(
        """HloModule big
add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4096,4096] parameter(0)
  e = f32[4096,4096] exponential(x)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(e, z), dimensions={0,1}, to_apply=add_f
}
"""
    )
    exe = hlox.compile(m)
    x = np.zeros((4096, 4096), np.float32)
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(1)
            done.wait(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    for _ in range(3):
        r = exe(x)
    done.set()
    t.join()
    assert float(r) == pytest.approx(4096 * 4096)
    assert len(ticks) > 3


def test_hlo_text_is_optimized_module():
    exe = hlox.compile(hlox.Module.from_text(TUPLE))
    text = exe.hlo_text()
    assert text.startswith("HloModule tup")
    assert hlox.Module.from_text(text).name == "tup"


def _calling(target):
    """A module whose one instruction calls custom-call target `target`."""
    return hlox.Module.from_text(
        f"""HloModule cc
ENTRY main {{
  x = f32[4] parameter(0)
  ROOT r = f32[4] custom-call(x), custom_call_target="{target}"
}}
"""
    )


def test_missing_target_is_compile_error_with_suggestions(c_targets):
    hlox.load_plugin(c_targets)  # exports do_custom_call (found by symbol)
    m = _calling("lapack_sgeqrf_fi")
    with pytest.raises(hlox.CompileError) as e:
        hlox.compile(m)
    assert "lapack_sgeqrf_fi" in str(e.value)
    (target, names), = e.value.missing
    assert target == "lapack_sgeqrf_fi"
    assert "lapack_sgeqrf_ffi" in names


def test_cuda_compiles_without_gpu_and_says_so_when_run():
    exe = hlox.compile(hlox.Module.from_text(ADD), platform="cuda")
    assert exe.platform == "cuda"
    assert "HloModule add" in exe.hlo_text()
    x = np.ones(4, np.float32)
    try:
        out = exe(x, x)
    except hlox.ExecError as e:
        assert "CUDA" in str(e)
    else:  # a machine with a GPU
        np.testing.assert_array_equal(out, 2 * x)


def test_bad_platform():
    with pytest.raises(ValueError, match="cpu"):
        hlox.compile(hlox.Module.from_text(ADD), platform="tpu")


def test_non_default_layouts_in_and_out():
    # Column-major parameter and result: numpy arrays in row-major order go
    # in and come out with the right values.
    m = hlox.Module.from_text(
        """HloModule cm, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{0,1}}
ENTRY main {
  x = f32[2,3]{0,1} parameter(0)
  ROOT t = f32[3,2]{0,1} transpose(x), dimensions={1,0}
}
"""
    )
    exe = hlox.compile(m)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(exe(x), x.T)


def test_tuple_parameter_zero_size_and_bf16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    m = hlox.Module.from_text(
        """HloModule tp
ENTRY main {
  p = (f32[3], bf16[2]) parameter(0)
  e = f32[0] parameter(1)
  a = f32[3] get-tuple-element(p), index=0
  b = bf16[2] get-tuple-element(p), index=1
  b2 = bf16[2] add(b, b)
  ROOT t = (f32[3], bf16[2], f32[0]) tuple(a, b2, e)
}
"""
    )
    exe = hlox.compile(m)
    a = np.array([1, 2, 3], np.float32)
    b = np.array([1.5, -2], ml_dtypes.bfloat16)
    ra, rb, re = exe((a, b), np.zeros(0, np.float32))
    np.testing.assert_array_equal(ra, a)
    assert rb.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(rb.astype(np.float32), [3, -4])
    assert re.shape == (0,)
    with pytest.raises(hlox.ExecError, match="tuple"):
        exe(a, np.zeros(0, np.float32))


def test_bf16_jax_arrays_in():
    # numpy's DLPack import has no bfloat16: read through __array__.
    jnp = pytest.importorskip("jax.numpy")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    exe = hlox.compile(
        hlox.Module.from_text(
            """HloModule bf
ENTRY main {
  x = bf16[3] parameter(0)
  ROOT y = bf16[3] add(x, x)
}
"""
        )
    )
    out = exe(jnp.asarray([1.5, -2, 4], dtype=jnp.bfloat16))
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32), [3, -4, 8])


def test_missing_target_advice_is_pythons(c_targets):
    m = _calling("no_such_target_here")
    with pytest.raises(hlox.CompileError) as e:
        hlox.compile(m)
    text = str(e.value)
    assert "hlox.register_ffi_target(\"no_such_target_here\"" in text, text
    assert "hlox.load_plugin(PATH)" in text, text
    assert "register_custom_call_target!" not in text and "--plugin" not in text, text


def test_inputs_are_read_in_place():
    # A Python target sees the operand's buffer: the caller's own array.
    seen = []

    @hlox.custom_call_target("py_where_is_x")
    def where(x, *, out):
        seen.append(x.ctypes.data)
        out[...] = x

    b = hlox.Builder("inplace")
    s = hlox.Shape.array("f32", (1024,))
    x = b.parameter(0, s, "x")
    exe = hlox.compile(b.build(b.custom_call("py_where_is_x", [x], s, api_version=4)))
    a = np.arange(1024, dtype=np.float32)
    np.testing.assert_array_equal(exe(a), a)
    assert seen == [a.ctypes.data]
    # A strided view is copied first: the target sees another buffer.
    v = np.arange(2048, dtype=np.float32)[::2]
    np.testing.assert_array_equal(exe(v), v)
    assert seen[1] != v.ctypes.data


def test_torch_tensors_if_installed(add):
    torch = pytest.importorskip("torch")
    t = torch.arange(4, dtype=torch.float32)
    np.testing.assert_array_equal(add(t, t), [0, 2, 4, 6])


def test_compilation_cache_dir(tmp_path):
    # The first compile writes one entry; the second (a hit) and a fresh
    # process's compile load it and give the same outputs.
    m = hlox.Module.from_text(ADD)
    x = np.arange(4, dtype=np.float32)
    y = np.full(4, 0.5, dtype=np.float32)
    first = hlox.compile(m, cache_dir=tmp_path)
    entries = sorted(p.name for p in tmp_path.iterdir())
    assert len(entries) == 1 and entries[0].endswith(".hloxc"), entries
    again = hlox.compile(m, cache_dir=str(tmp_path))
    np.testing.assert_array_equal(first(x, y), x + y)
    np.testing.assert_array_equal(again(x, y), x + y)
    import subprocess
    import sys

    code = (
        "import hlox, numpy as np, sys; "
        f"e = hlox.compile(hlox.Module.from_text({ADD!r}), cache_dir=sys.argv[1]); "
        "print(e(np.arange(4, dtype=np.float32), np.full(4, 0.5, dtype=np.float32)).tolist())"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[0.5, 1.5, 2.5, 3.5]", out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == entries
