/* Example custom-call targets in plain C. They use only XLA's names (the two
 * status functions), which the loading process provides. */
#include <stdint.h>
#include <string.h>

#include "hlox/custom_call.h"

/* XLA's seed example: A[i] = B[i % 128] + C[i], B f32[128], C f32[2048]. */
void do_custom_call(void* out, const void** in) {
  float* out_buf = (float*)out;
  const float* in0 = (const float*)in[0];
  const float* in1 = (const float*)in[1];
  for (int i = 0; i < 2048; ++i) out_buf[i] = in0[i % 128] + in1[i];
}

void do_custom_call_status(void* out, const void** in, XlaCustomCallStatus* status) {
  do_custom_call(out, in);
  XlaCustomCallStatusSetSuccess(status);
}

void do_custom_call_unified(void* out, const void** in, const char* opaque, size_t opaque_len,
                            XlaCustomCallStatus* status) {
  (void)opaque;
  (void)opaque_len;
  do_custom_call(out, in);
  (void)status;
}

/* Reads a postcard varint (LEB128) u64. Returns bytes read, 0 on error. */
static size_t read_varint(const unsigned char* p, size_t len, uint64_t* v) {
  uint64_t r = 0;
  for (size_t i = 0; i < len && i < 10; ++i) {
    r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) {
      *v = r;
      return i + 1;
    }
  }
  return 0;
}

static float read_f32_le(const unsigned char* p) {
  uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* MLX's axpby: z = alpha * x + beta * y over f32[n]. The opaque is the
 * postcard encoding of { alpha: f32, beta: f32, n: u64 }. */
void axpby(void* out, const void** in, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status) {
  const unsigned char* p = (const unsigned char*)opaque;
  uint64_t n = 0;
  if (opaque_len < 9 || read_varint(p + 8, opaque_len - 8, &n) != opaque_len - 8) {
    const char* msg = "axpby: opaque is not {alpha: f32, beta: f32, n: u64} in postcard";
    XlaCustomCallStatusSetFailure(status, msg, strlen(msg));
    return;
  }
  float alpha = read_f32_le(p), beta = read_f32_le(p + 4);
  const float* x = (const float*)in[0];
  const float* y = (const float*)in[1];
  float* z = (float*)out;
  for (uint64_t i = 0; i < n; ++i) z[i] = alpha * x[i] + beta * y[i];
}

/* Operand (f32[4] a, (f32[4] b, f32[4] c)); result (f32[4] out, f32[4] scratch).
 * scratch = b * c; out = a + scratch. Result element 1 is scratch memory. */
void tuple_fma(void* out, const void** in, XlaCustomCallStatus* status) {
  (void)status;
  const void** p0 = (const void**)in[0];
  const float* a = (const float*)p0[0];
  const void** inner = (const void**)p0[1];
  const float* b = (const float*)inner[0];
  const float* c = (const float*)inner[1];
  void** outs = (void**)out;
  float* o = (float*)outs[0];
  float* scratch = (float*)outs[1];
  for (int i = 0; i < 4; ++i) scratch[i] = b[i] * c[i];
  for (int i = 0; i < 4; ++i) o[i] = a[i] + scratch[i];
}

void always_fails(void* out, const void** in, XlaCustomCallStatus* status) {
  (void)out;
  (void)in;
  const char* msg = "always_fails: the target reports an error";
  XlaCustomCallStatusSetFailure(status, msg, strlen(msg));
}

/* Fails with the opaque as its message (XLA keeps it up to the first NUL). */
void fail_with_opaque(void* out, const void** in, const char* opaque, size_t opaque_len,
                      XlaCustomCallStatus* status) {
  (void)out;
  (void)in;
  XlaCustomCallStatusSetFailure(status, opaque, opaque_len);
}

/* Result (s64[] len, u8[32] bytes): the opaque's length and its first 32 bytes. */
void opaque_echo(void* out, const void** in, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status) {
  (void)in;
  (void)status;
  void** outs = (void**)out;
  *(int64_t*)outs[0] = (int64_t)opaque_len;
  memcpy(outs[1], opaque, opaque_len < 32 ? opaque_len : 32);
}

/* f32[4] result aliased with operand 0: adds one in place; fails when the
 * two pointers differ. */
void inplace_add_one(void* out, const void** in, XlaCustomCallStatus* status) {
  if (out != in[0]) {
    const char* msg = "inplace_add_one: result is not aliased with operand 0";
    XlaCustomCallStatusSetFailure(status, msg, strlen(msg));
    return;
  }
  float* o = (float*)out;
  for (int i = 0; i < 4; ++i) o[i] += 1.0f;
}
