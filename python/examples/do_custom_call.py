"""The XLA custom-call guide's first example, do_custom_call, built with
hlox.Builder and run from Python (the C target is compiled here with cc).
Exits non-zero when wrong."""

import ctypes
import pathlib
import subprocess
import tempfile

import numpy as np

import hlox

SRC = r"""
void do_custom_call(void* out, const void** in) {
  float* out_buf = (float*)out;
  const float* in0 = (const float*)in[0];
  const float* in1 = (const float*)in[1];
  for (int i = 0; i < 2048; ++i) out_buf[i] = in0[i % 128] + in1[i];
}
"""

d = pathlib.Path(tempfile.mkdtemp())
(d / "t.c").write_text(SRC)
subprocess.run(["cc", "-O2", "-shared", "-fPIC", str(d / "t.c"), "-o", str(d / "libt.so")], check=True)
lib = ctypes.CDLL(str(d / "libt.so"))
hlox.register_ffi_target("do_custom_call", lib.do_custom_call, platform="cpu", api_version=1)

# The guide's builder code: custom call of a broadcast f32[128] and an f32[2048].
b = hlox.Builder("do_it")
x = b.parameter(0, hlox.Shape.array("f32", (128,)), "x")
y = b.parameter(1, hlox.Shape.array("f32", (2048,)), "y")
r = b.custom_call("do_custom_call", [x, y], hlox.Shape.array("f32", (2048,)))
module = b.build(r)
print(module.to_text())

exe = hlox.compile(module)
xv = np.arange(128, dtype=np.float32)
yv = np.full(2048, 0.5, np.float32)
out = exe(xv, yv)
np.testing.assert_array_equal(out, np.tile(xv, 16) + yv)
print("do_custom_call: ok", out[:4])
