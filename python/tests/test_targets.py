import ctypes

import numpy as np
import pytest

import hlox


def one_call(name, api_version, opaque=b"", n=4, has_side_effect=False):
    b = hlox.Builder(f"call_{name}")
    s = hlox.Shape.array("f32", (n,))
    x = b.parameter(0, s, "x")
    r = b.custom_call(name, [x], s, opaque=opaque, api_version=api_version, has_side_effect=has_side_effect)
    return hlox.compile(b.build(r))


X = np.array([1, 2, 3, 4], np.float32)


def test_api_version_1_ctypes(c_lib):
    hlox.register_ffi_target("py_double_v1", c_lib.double_v1, api_version=1)
    np.testing.assert_array_equal(one_call("py_double_v1", 1)(X), 2 * X)


def test_api_version_2_status_failure_from_plugin_code(c_lib):
    # inc_v2 calls XlaCustomCallStatusSetFailure, resolved from the
    # extension (loaded RTLD_GLOBAL by hlox/__init__.py).
    hlox.register_ffi_target("py_inc_v2", c_lib.inc_v2, api_version=2)
    exe = one_call("py_inc_v2", 2)
    np.testing.assert_array_equal(exe(X), X + 1)
    with pytest.raises(hlox.CustomCallError) as e:
        exe(-X)
    assert e.value.target == "py_inc_v2"
    assert e.value.message == "inc_v2: negative input"
    assert isinstance(e.value, hlox.ExecError)
    np.testing.assert_array_equal(exe(X), X + 1)  # runs again


def test_api_version_3_pycapsule(c_lib):
    jax = pytest.importorskip("jax")
    cap = jax.ffi.pycapsule(c_lib.scale_v3)
    hlox.register_ffi_target("py_scale_v3", cap, api_version=3)
    np.testing.assert_array_equal(one_call("py_scale_v3", 3, opaque=b"3")(X), 3 * X)
    with pytest.raises(hlox.CustomCallError, match="empty opaque"):
        one_call("py_scale_v3", 3, opaque=b"")(X)


def test_api_version_0_takes_the_calls_convention(c_lib):
    # JAX's api_version=0: a legacy function; the custom call says how to call it.
    hlox.register_ffi_target("py_legacy_any", c_lib.double_v1, api_version=0)
    np.testing.assert_array_equal(one_call("py_legacy_any", 1)(X), 2 * X)
    t = {(t.name, t.platform): t for t in hlox.targets()}[("py_legacy_any", "cpu")]
    assert t.api_version is None


def test_api_version_4_typed_ffi_cpp(cpp_ffi_targets):
    jax = pytest.importorskip("jax")
    lib = ctypes.CDLL(str(cpp_ffi_targets))
    hlox.register_ffi_target("py_axpby", jax.ffi.pycapsule(lib.AxpbyFfi), platform="cpu")
    b = hlox.Builder("axpby")
    s = hlox.Shape.array("f32", (4,))
    x = b.parameter(0, s, "x")
    y = b.parameter(1, s, "y")
    r = b.custom_call("py_axpby", [x, y], s, opaque=b"{alpha = 2.0 : f32, beta = 3.0 : f32}", api_version=4)
    exe = hlox.compile(b.build(r))
    y_v = np.ones(4, np.float32)
    np.testing.assert_array_equal(exe(X, y_v), 2 * X + 3 * y_v)
    t = {(t.name, t.platform): t for t in hlox.targets()}[("py_axpby", "cpu")]
    assert t.api_version == 4 and "register_ffi_target" in t.origin
    # The dict form jax accepts.
    hlox.register_ffi_target("py_axpby2", {"execute": jax.ffi.pycapsule(lib.AxpbyFfi)})


def test_plugin_registering_handlers(cpp_ffi_targets):
    # The plugin registers cpp_axpby through XLA_FFI_GetApi at load time:
    # resolved from the extension (RTLD_GLOBAL).
    hlox.load_plugin(cpp_ffi_targets)
    names = {t.name for t in hlox.targets()}
    assert "cpp_axpby" in names


def test_plugin_by_symbol(c_targets):
    hlox.load_plugin(c_targets)
    exe = hlox.compile(
        hlox.Module.from_text(
            """HloModule sym
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] custom-call(x), custom_call_target="double_v1"
}
"""
        )
    )
    np.testing.assert_array_equal(exe(X), 2 * X)


def test_registration_errors(c_lib):
    with pytest.raises(hlox.Error, match="already registered"):
        hlox.register_ffi_target("py_double_v1_dup", c_lib.double_v1, api_version=1)
        hlox.register_ffi_target("py_double_v1_dup", c_lib.inc_v2, api_version=1)
    with pytest.raises(ValueError, match="api_version 9"):
        hlox.register_ffi_target("x", c_lib.double_v1, api_version=9)
    with pytest.raises(ValueError, match="null"):
        hlox.register_ffi_target("x", 0, api_version=1)
    with pytest.raises(TypeError, match="PyCapsule"):
        hlox.register_ffi_target("x", "not a function")
    with pytest.raises(hlox.Error, match="no such file"):
        hlox.load_plugin("/nonexistent/libnothing.so")


SANDBOX_TARGETS = r"""
#include <stdexcept>
extern "C" void sb_py_oob(void* out, const void** in, void*) {
  const float* x = static_cast<const float*>(in[0]);
  volatile float* y = static_cast<float*>(out);
  for (int i = 0; i <= 4; ++i) y[i] = x[i < 4 ? i : 0];  // y[4]: one past the end
}
extern "C" void sb_py_throw(void* out, const void** in, void*) {
  const float* x = static_cast<const float*>(in[0]);
  if (x[0] < 0) throw std::runtime_error("sb_py_throw: negative input");
  float* y = static_cast<float*>(out);
  for (int i = 0; i < 4; ++i) y[i] = x[i];
}
"""


def test_sandbox_turns_a_fault_and_an_exception_into_errors(tmp_path):
    from conftest import _cc

    lib = ctypes.CDLL(str(_cc(SANDBOX_TARGETS, tmp_path / "libsb.so", cxx=True, flags=["-std=c++17"])))
    hlox.register_ffi_target("sb_py_oob", lib.sb_py_oob, api_version=2)
    hlox.register_ffi_target("sb_py_throw", lib.sb_py_throw, api_version=2)

    def sandboxed(name, **kw):
        b = hlox.Builder(f"sb_{name}")
        s = hlox.Shape.array("f32", (4,))
        r = b.custom_call(name, [b.parameter(0, s, "x")], s, api_version=2)
        return hlox.compile(b.build(r), sandbox=True, **kw)

    exe = sandboxed("sb_py_oob", repro_dir=tmp_path / "repro")
    for _ in range(2):  # the process and the executable survive
        with pytest.raises(hlox.CustomCallError) as e:
            exe(X)
        assert e.value.target == "sb_py_oob"
        assert "writing 0 bytes past the end of the result (f32[4]{0}) (byte offset 16" in e.value.message
    assert (tmp_path / "repro").is_dir()
    exe = sandboxed("sb_py_throw")
    with pytest.raises(hlox.CustomCallError, match="C\\+\\+ exception: sb_py_throw: negative input"):
        exe(-X)
    np.testing.assert_array_equal(exe(X), X)
    with pytest.raises(ValueError, match="CPU"):
        b = hlox.Builder("sb_cuda")
        s = hlox.Shape.array("f32", (4,))
        hlox.compile(b.build(b.parameter(0, s, "x")), platform="cuda", sandbox=True)
