/* A plugin whose registrations are wrong: unknown platform, bad api_version,
 * null function. hlox must refuse to load it and name each problem. */
#include "hlox/custom_call.h"

void do_custom_call(void* out, const void** in);

int hlox_register_custom_call_targets(const HloxCustomCallRegistrar* r) {
  r->register_target(r->ctx, "on_tpu", "TPU", HLOX_API_VERSION_ORIGINAL, (void*)do_custom_call);
  r->register_target(r->ctx, "bad_version", "Host", 7, (void*)do_custom_call);
  r->register_target(r->ctx, "null_fn", "Host", HLOX_API_VERSION_ORIGINAL, (void*)0);
  return 0;
}
