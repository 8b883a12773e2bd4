// Typed-FFI custom-call targets of the multi-device corpus (sm_custom_call,
// sm_custom_call_fails): JAX runs them (jax.ffi.register_ffi_target) for the
// expected outputs, hlox loads the same library with --plugin (the targets
// are found by symbol name). Built by scripts/gen_multidevice_corpus.py and
// crates/hlox-cli/tests/multidevice.rs:
//   c++ -shared -fPIC -std=c++17 -O2 -I .xla-ffi/include md_targets.cc -o libmd_targets.so
#include <cstdint>
#include <string>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// y = scale * x + shift (each device on its own shard).
static ffi::Error MdScaleImpl(ffi::Buffer<ffi::F32> x,
                              ffi::ResultBuffer<ffi::F32> y, float scale,
                              float shift) {
  if (x.element_count() != y->element_count()) {
    return ffi::Error::InvalidArgument("MdScale: x and y differ in size");
  }
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = scale * x.typed_data()[i] + shift;
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(MdScale, MdScaleImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<float>("scale")
                                  .Attr<float>("shift"));

// y = x, failing when an element is above `limit`: with inputs where only
// one device's shard holds such a value, only that device fails.
static ffi::Error MdFailAboveImpl(ffi::Buffer<ffi::F32> x,
                                  ffi::ResultBuffer<ffi::F32> y, float limit) {
  if (x.element_count() != y->element_count()) {
    return ffi::Error::InvalidArgument("MdFailAbove: x and y differ in size");
  }
  for (size_t i = 0; i < x.element_count(); ++i) {
    float v = x.typed_data()[i];
    if (v > limit) {
      return ffi::Error::InvalidArgument(
          "MdFailAbove: element " + std::to_string(i) + " is " +
          std::to_string(v) + ", above the limit " + std::to_string(limit));
    }
    y->typed_data()[i] = v;
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(MdFailAbove, MdFailAboveImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<float>("limit"));
