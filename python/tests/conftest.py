"""Shared fixtures: C targets compiled for the tests (cc -shared -fPIC,
linked against nothing: XLA's status functions come from the process, as in
XLA)."""

import ctypes
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

C_TARGETS = r"""
#include <stddef.h>
#include <string.h>
typedef struct XlaCustomCallStatus_ XlaCustomCallStatus;
void XlaCustomCallStatusSetFailure(XlaCustomCallStatus* s, const char* msg, size_t len);

/* XLA's seed example: out[i] = in0[i] + 2 * in1[i] (f32[128]) */
void do_custom_call(void* out, const void** in) {
  const float* a = (const float*)in[0];
  const float* b = (const float*)in[1];
  float* o = (float*)out;
  for (int i = 0; i < 128; ++i) o[i] = a[i] + 2.0f * b[i];
}

/* api_version 1: out = 2 * in0 (f32[4]) */
void double_v1(void* out, const void** in) {
  const float* x = (const float*)in[0];
  float* o = (float*)out;
  for (int i = 0; i < 4; ++i) o[i] = 2.0f * x[i];
}

/* api_version 2: out = x + 1, fails when x[0] < 0 */
void inc_v2(void* out, const void** in, XlaCustomCallStatus* status) {
  const float* x = (const float*)in[0];
  float* o = (float*)out;
  if (x[0] < 0) {
    const char* m = "inc_v2: negative input";
    XlaCustomCallStatusSetFailure(status, m, strlen(m));
    return;
  }
  for (int i = 0; i < 4; ++i) o[i] = x[i] + 1.0f;
}

/* api_version 3: out = x * opaque[0] (the first opaque byte as a number) */
void scale_v3(void* out, const void** in, const char* opaque, size_t len,
              XlaCustomCallStatus* status) {
  const float* x = (const float*)in[0];
  float* o = (float*)out;
  if (len < 1) {
    const char* m = "scale_v3: empty opaque";
    XlaCustomCallStatusSetFailure(status, m, strlen(m));
    return;
  }
  for (int i = 0; i < 4; ++i) o[i] = x[i] * (float)(opaque[0] - '0');
}
"""


def _cc(src: str, out: pathlib.Path, cxx: bool = False, flags=()):
    compiler = shutil.which("g++" if cxx else "cc")
    if compiler is None:
        pytest.skip(f"no {'C++' if cxx else 'C'} compiler on PATH")
    suffix = ".cc" if cxx else ".c"
    srcf = out.with_suffix(suffix)
    srcf.write_text(src)
    cmd = [compiler, "-shared", "-fPIC", "-O1", *flags, str(srcf), "-o", str(out)]
    subprocess.run(cmd, check=True)
    return out


@pytest.fixture(scope="session")
def c_targets(tmp_path_factory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("c")
    return _cc(C_TARGETS, d / "libpytargets.so")


@pytest.fixture(scope="session")
def c_lib(c_targets):
    return ctypes.CDLL(str(c_targets))


@pytest.fixture(scope="session")
def cpp_ffi_targets(tmp_path_factory) -> pathlib.Path:
    inc = REPO / ".xla-ffi" / "include"
    if not (inc / "xla" / "ffi" / "api" / "ffi.h").exists():
        pytest.skip("XLA's FFI headers are missing (make xla-ffi-headers puts them in .xla-ffi)")
    d = tmp_path_factory.mktemp("cpp")
    src = (REPO / "targets" / "cpp" / "xla_ffi_targets.cc").read_text()
    return _cc(src, d / "libxlaffi.so", cxx=True, flags=["-std=c++17", f"-I{inc}"])
