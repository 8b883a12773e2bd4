/* hlox plugin entry point for the targets of targets.c: registers each with
 * its api_version, so hlox checks custom calls against it. */
#include "hlox/custom_call.h"

void do_custom_call(void* out, const void** in);
void do_custom_call_status(void* out, const void** in, XlaCustomCallStatus* status);
void do_custom_call_unified(void* out, const void** in, const char* opaque, size_t opaque_len,
                            XlaCustomCallStatus* status);
void axpby(void* out, const void** in, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status);
void tuple_fma(void* out, const void** in, XlaCustomCallStatus* status);
void always_fails(void* out, const void** in, XlaCustomCallStatus* status);
void fail_with_opaque(void* out, const void** in, const char* opaque, size_t opaque_len,
                      XlaCustomCallStatus* status);
void opaque_echo(void* out, const void** in, const char* opaque, size_t opaque_len, XlaCustomCallStatus* status);
void inplace_add_one(void* out, const void** in, XlaCustomCallStatus* status);

int hlox_register_custom_call_targets(const HloxCustomCallRegistrar* r) {
  int rc = 0;
  rc |= r->register_target(r->ctx, "do_custom_call", "Host", HLOX_API_VERSION_ORIGINAL, (void*)do_custom_call);
  rc |= r->register_target(r->ctx, "do_custom_call_status", "Host", HLOX_API_VERSION_STATUS_RETURNING,
                           (void*)do_custom_call_status);
  rc |= r->register_target(r->ctx, "do_custom_call_unified", "Host", HLOX_API_VERSION_STATUS_RETURNING_UNIFIED,
                           (void*)do_custom_call_unified);
  rc |= r->register_target(r->ctx, "axpby", "Host", HLOX_API_VERSION_STATUS_RETURNING_UNIFIED, (void*)axpby);
  rc |= r->register_target(r->ctx, "tuple_fma", "Host", HLOX_API_VERSION_STATUS_RETURNING, (void*)tuple_fma);
  rc |= r->register_target(r->ctx, "always_fails", "Host", HLOX_API_VERSION_STATUS_RETURNING, (void*)always_fails);
  rc |= r->register_target(r->ctx, "fail_with_opaque", "Host", HLOX_API_VERSION_STATUS_RETURNING_UNIFIED,
                           (void*)fail_with_opaque);
  rc |= r->register_target(r->ctx, "opaque_echo", "Host", HLOX_API_VERSION_STATUS_RETURNING_UNIFIED,
                           (void*)opaque_echo);
  rc |= r->register_target(r->ctx, "inplace_add_one", "Host", HLOX_API_VERSION_STATUS_RETURNING,
                           (void*)inplace_add_one);
  return rc;
}
