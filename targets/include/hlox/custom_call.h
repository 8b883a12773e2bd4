/* hlox custom-call targets: XLA's C conventions, plus hlox's plugin entry point.
 *
 * A target written against XLA's names only (the XlaCustomCallStatus functions
 * below) needs nothing else from this header: compile it with
 * `cc -shared -fPIC` and link it against nothing; the process that loads it
 * (hlox, or any program linking hlox-ffi with the status symbols exported)
 * provides the two status functions.
 *
 * Host (api_version):
 *   ORIGINAL                  void f(void* out, const void** in);
 *   STATUS_RETURNING          void f(void* out, const void** in, XlaCustomCallStatus* status);
 *   STATUS_RETURNING_UNIFIED  void f(void* out, const void** in, const char* opaque,
 *                                    size_t opaque_len, XlaCustomCallStatus* status);
 * CUDA:
 *   ORIGINAL                  void f(CUstream stream, void** buffers, const char* opaque, size_t opaque_len);
 *   STATUS_RETURNING(_UNIFIED) the same plus a trailing XlaCustomCallStatus* status.
 *
 * Tuples are arrays of pointers (nested for nested tuples). CUDA buffers hold
 * one pointer per leaf array, operands then results, each shape in pre-order.
 * See docs/custom-calls.md.
 */
#ifndef HLOX_CUSTOM_CALL_H_
#define HLOX_CUSTOM_CALL_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- XLA's status API (xla/service/custom_call_status.h) ---- */

/* The result of a custom call: success (the default) or failure with a message. */
typedef struct XlaCustomCallStatus_ XlaCustomCallStatus;

/* Sets the status to success. */
void XlaCustomCallStatusSetSuccess(XlaCustomCallStatus* status);

/* Sets the status to failure with a copy of the first `message_len` bytes of
 * `message`, or of the bytes up to its first NUL, whichever comes first. */
void XlaCustomCallStatusSetFailure(XlaCustomCallStatus* status, const char* message, size_t message_len);

/* ---- hlox plugin registration ---- */

/* api_version values (XLA's CustomCallApiVersion numbers). */
#define HLOX_API_VERSION_ORIGINAL 1
#define HLOX_API_VERSION_STATUS_RETURNING 2
#define HLOX_API_VERSION_STATUS_RETURNING_UNIFIED 3

/* Target traits, for set_traits (a bit set). GRAPH_COMPATIBLE: the target
 * only enqueues work on the stream it is given (no host synchronisation, no
 * host-side effect needed on every run, the same work for the same buffers),
 * so a CUDA graph captured from one call may replay it (XLA's
 * kCmdBufferCompatible). Meaningful for "CUDA" targets. */
#define HLOX_TRAIT_GRAPH_COMPATIBLE 1u

/* Passed to hlox_register_custom_call_targets. `register_target` registers
 * one target: `name` and `platform` ("Host" or "CUDA"; also "cpu", "gpu", ...)
 * are NUL-terminated; `fn` is the function, with the parameter list of
 * `api_version` on that platform. `set_traits` declares the traits of a
 * target registered earlier in the same call; `register_rules` (below) gives
 * targets their jvp/vjp/vmap rules. Each returns 0 on success,
 * non-zero when rejected (hlox reports why when loading fails).
 *
 * Lifetime: the registrar (and `ctx`) may be used only during the call of
 * hlox_register_custom_call_targets, on the thread that made it. The pointer
 * itself stays valid for the life of the process, so a plugin that keeps it
 * causes no harm: calls made later, or from another thread, register
 * nothing and return HLOX_REGISTRAR_EXPIRED. */
#define HLOX_REGISTRAR_EXPIRED (-2)
typedef struct HloxCustomCallRegistrar {
  void* ctx;
  int (*register_target)(void* ctx, const char* name, const char* platform, int api_version, void* fn);
  int (*set_traits)(void* ctx, const char* name, const char* platform, unsigned traits);
  /* Registers transformation rules for this plugin's targets: `hlo_text` is
   * an HLO text module whose computations named jvp.TARGET, vjp.TARGET and
   * vmap.TARGET are the rules `hlox grad/vjp/jvp/vmap` use for calls of
   * TARGET (their signatures: docs/transforms.md). Returns 0, or non-zero
   * when the module does not parse, verify, or hold any rule (hlox reports
   * why, with line and column, when loading fails). Added after the first
   * two functions: a plugin that uses it needs an hlox that has it. */
  int (*register_rules)(void* ctx, const char* hlo_text);
} HloxCustomCallRegistrar;

/* Export this from a plugin to register its targets when hlox loads it
 * (`--plugin lib.so`, Registry::load_library). Return 0 on success. A plugin
 * without it is searched by symbol name instead (targets untyped, trusted to
 * match the custom call's api_version, as XLA does). */
int hlox_register_custom_call_targets(const HloxCustomCallRegistrar* registrar);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HLOX_CUSTOM_CALL_H_ */
