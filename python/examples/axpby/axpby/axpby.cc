// MLX's custom-extension example, axpby (z = alpha * x + beta * y), as an
// XLA typed-FFI handler: written against XLA's own header (shipped in
// jaxlib, jax.ffi.include_dir()), nothing hlox-specific.
#include <cstddef>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

static ffi::Error AxpbyImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y,
                            ffi::ResultBuffer<ffi::F32> z, float alpha,
                            float beta) {
  if (x.element_count() != y.element_count() ||
      x.element_count() != z->element_count()) {
    return ffi::Error::InvalidArgument("axpby: x, y and z must have one size");
  }
  const float* xs = x.typed_data();
  const float* ys = y.typed_data();
  float* zs = z->typed_data();
  for (size_t i = 0; i < x.element_count(); ++i) {
    zs[i] = alpha * xs[i] + beta * ys[i];
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(Axpby, AxpbyImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<float>("alpha")
                                  .Attr<float>("beta"));
