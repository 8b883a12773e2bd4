// GPU custom-call targets of hlox (CUDA C, compiled at run time by NVRTC
// through cudarc: see crates/hlox-cuda/src/targets.rs). No headers: NVRTC
// compiles this file alone.
//
// Each kernel is launched by a host function with XLA's GPU convention
//   void f(CUstream stream, void** buffers, const char* opaque, size_t opaque_len
//          [, XlaCustomCallStatus* status])
// where buffers[] holds the device pointers of every operand leaf and then
// every result leaf, in pre-order.

// The seed kernel of XLA's custom-call guide: A[i] = B[i % 128] + C[i].
extern "C" __global__ void hlox_seed(const float* b, const float* c, float* a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i % 128] + c[i];
}

// z = alpha * x + beta * y, with alpha and beta device scalars.
extern "C" __global__ void hlox_axpby(const float* x, const float* y, const float* alpha,
                                      const float* beta, float* z, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = alpha[0] * x[i] + beta[0] * y[i];
}

// A tuple result: (x * y + z, x * y - z).
extern "C" __global__ void hlox_tuple_fma(const float* x, const float* y, const float* z,
                                          float* sum, float* diff, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float p = x[i] * y[i];
    sum[i] = p + z[i];
    diff[i] = p - z[i];
  }
}
