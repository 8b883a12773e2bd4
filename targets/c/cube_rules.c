/* A custom-call target with its transformation rules, registered together
 * (docs/transforms.md, "Rules from a C plugin"): `cube` computes x^3
 * element-wise on f32[4]; its jvp, vjp and vmap rules are HLO text handed to
 * the registrar's register_rules. The rules call the target itself where
 * they need its value, and say the derivative: d(x^3) = 3 x^2 dx. */
#include "hlox/custom_call.h"

void cube(void* out, const void** in, XlaCustomCallStatus* status) {
  (void)status;
  const float* x = (const float*)in[0];
  float* o = (float*)out;
  for (int i = 0; i < 4; ++i) o[i] = x[i] * x[i] * x[i];
}

static const char kRules[] =
    "HloModule cube_rules\n"
    "jvp.cube {\n"
    "  x = f32[4] parameter(0)\n"
    "  t = f32[4] parameter(1)\n"
    "  y = f32[4] custom-call(x), custom_call_target=\"cube\", api_version=API_VERSION_STATUS_RETURNING\n"
    "  three = f32[] constant(3)\n"
    "  b3 = f32[4] broadcast(three), dimensions={}\n"
    "  x2 = f32[4] multiply(x, x)\n"
    "  d = f32[4] multiply(b3, x2)\n"
    "  ty = f32[4] multiply(t, d)\n"
    "  ROOT r = (f32[4], f32[4]) tuple(y, ty)\n"
    "}\n"
    "vjp.cube {\n"
    "  x = f32[4] parameter(0)\n"
    "  ct = f32[4] parameter(1)\n"
    "  three = f32[] constant(3)\n"
    "  b3 = f32[4] broadcast(three), dimensions={}\n"
    "  x2 = f32[4] multiply(x, x)\n"
    "  d = f32[4] multiply(b3, x2)\n"
    "  g = f32[4] multiply(ct, d)\n"
    "  ROOT r = (f32[4]) tuple(g)\n"
    "}\n"
    "ENTRY vmap.cube {\n"
    "  xs = f32[2,4] parameter(0)\n"
    "  a = f32[2,4] multiply(xs, xs)\n"
    "  ROOT y = f32[2,4] multiply(a, xs)\n"
    "}\n";

int hlox_register_custom_call_targets(const HloxCustomCallRegistrar* r) {
  int rc = r->register_target(r->ctx, "cube", "Host", HLOX_API_VERSION_STATUS_RETURNING, (void*)cube);
  rc |= r->register_rules(r->ctx, kRules);
  return rc;
}
