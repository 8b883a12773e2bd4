// Custom-call targets with the bugs hlox's custom-call sandbox exists to
// catch (crates/hlox-ffi/src/sandbox/), and one correct target. Each is a
// plain exported symbol with XLA's API_VERSION_STATUS_RETURNING
// convention, found by name (`hlox run --plugin libhlox_sandbox_targets.so`):
// `void f(void* out, const void** in, XlaCustomCallStatus*)`, on an
// f32[4] operand and an f32[4] result unless said otherwise.
//
// Built by targets/rust/build.rs; the tests in tests/tests/sandbox.rs and
// crates/hlox-cli/tests/sandbox.rs call them.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#define TARGET extern "C" __attribute__((visibility("default"), noinline))

// out = 2 * in: correct.
TARGET void sb_double(void *out, const void **in, void *) {
  const float *x = static_cast<const float *>(in[0]);
  float *y = static_cast<float *>(out);
  for (int i = 0; i < 4; ++i) y[i] = 2.0f * x[i];
}

// Off by one: writes y[4], one element past the result.
TARGET void sb_oob_write(void *out, const void **in, void *) {
  const float *x = static_cast<const float *>(in[0]);
  volatile float *y = static_cast<float *>(out);
  for (int i = 0; i <= 4; ++i) y[i] = x[i < 4 ? i : 3];
}

// Off by one: reads x[4], one element past the operand.
TARGET void sb_oob_read(void *out, const void **in, void *) {
  const volatile float *x = static_cast<const float *>(in[0]);
  float *y = static_cast<float *>(out);
  float s = 0;
  for (int i = 0; i <= 4; ++i) s += x[i];
  for (int i = 0; i < 4; ++i) y[i] = s;
}

// Writes y[-1], just before the result (the canary finds it).
TARGET void sb_underflow_write(void *out, const void **in, void *) {
  const float *x = static_cast<const float *>(in[0]);
  volatile float *y = static_cast<float *>(out);
  for (int i = -1; i < 4; ++i) y[i] = x[i < 0 ? 0 : i];
}

// Writes through a null-ish pointer.
TARGET void sb_segfault(void *, const void **, void *) {
  *reinterpret_cast<volatile float *>(static_cast<uintptr_t>(8)) = 1.0f;
}

// out = in for a decreasing input; otherwise throws a C++ exception out of
// an extern "C" function.
TARGET void sb_throw(void *out, const void **in, void *) {
  const float *x = static_cast<const float *>(in[0]);
  if (x[0] <= x[1]) throw std::runtime_error("sb_throw: the input must be decreasing");
  float *y = static_cast<float *>(out);
  for (int i = 0; i < 4; ++i) y[i] = x[i];
}

// s32[4] -> s32[4]: 100 / x, an integer division by zero when x holds a 0.
TARGET void sb_divzero(void *out, const void **in, void *) {
  const volatile int32_t *x = static_cast<const int32_t *>(in[0]);
  int32_t *y = static_cast<int32_t *>(out);
  for (int i = 0; i < 4; ++i) y[i] = 100 / x[i];
}

// Calls abort() (as a failed assert does).
TARGET void sb_abort(void *, const void **, void *) { std::abort(); }

// Forgets to write its result.
TARGET void sb_untouched(void *, const void **, void *) {}

// Writes NaN (0/0) into element 2.
TARGET void sb_nan(void *out, const void **in, void *) {
  const float *x = static_cast<const float *>(in[0]);
  float *y = static_cast<float *>(out);
  for (int i = 0; i < 4; ++i) y[i] = x[i];
  volatile float zero = 0.0f;
  y[2] = zero / zero;
}

// (f32[4], f32[4]) result: writes element 0 one past its end.
TARGET void sb_tuple_oob(void *out, const void **in, void *) {
  const float *x = static_cast<const float *>(in[0]);
  volatile float **y = static_cast<volatile float **>(out);
  for (int i = 0; i < 4; ++i) y[1][i] = x[i];
  for (int i = 0; i <= 4; ++i) y[0][i] = x[i < 4 ? i : 0];
}
