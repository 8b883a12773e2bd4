/* A plugin whose registrations are wrong: unknown platform, bad api_version,
 * null function, traits for a target it did not register, unknown trait
 * bits. hlox must refuse to load it and name each problem. */
#include "hlox/custom_call.h"

void do_custom_call(void* out, const void** in);

int hlox_register_custom_call_targets(const HloxCustomCallRegistrar* r) {
  r->register_target(r->ctx, "on_tpu", "TPU", HLOX_API_VERSION_ORIGINAL, (void*)do_custom_call);
  r->register_target(r->ctx, "bad_version", "Host", 7, (void*)do_custom_call);
  r->register_target(r->ctx, "null_fn", "Host", HLOX_API_VERSION_ORIGINAL, (void*)0);
  r->set_traits(r->ctx, "never_registered", "CUDA", HLOX_TRAIT_GRAPH_COMPATIBLE);
  r->register_target(r->ctx, "good", "Host", HLOX_API_VERSION_ORIGINAL, (void*)do_custom_call);
  r->set_traits(r->ctx, "good", "Host", 0x80u);
  return 0;
}
