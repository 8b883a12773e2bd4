// Typed-FFI custom-call targets written exactly as for XLA: against XLA's
// own header (xla/ffi/api/ffi.h, shipped in jaxlib: jax.ffi.include_dir()),
// with nothing hlox-specific. hlox's tests build this file into a shared
// library and load it as a plugin (crates/hlox-ffi/tests/ffi.rs and the
// custom-call suite in tests/custom_call_suite.rs).
//
// - AxpbyFfi, AttrsFfi, ... are exported handler symbols
//   (XLA_FFI_DEFINE_HANDLER_SYMBOL): a module names them directly, or a
//   program registers them under another name.
// - "cpp_axpby" and "cpp_add_sub" are registered when the library loads,
//   through XLA_FFI_GetApi() (XLA_FFI_REGISTER_HANDLER), which the process
//   that loads the plugin provides (hlox exports it).

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "xla/ffi/api/c_api.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// z = alpha * x + beta * y
static ffi::Error AxpbyImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y,
                            ffi::ResultBuffer<ffi::F32> z, float alpha,
                            float beta) {
  if (x.element_count() != y.element_count() ||
      x.element_count() != z->element_count()) {
    return ffi::Error::InvalidArgument("axpby: x, y and z must have one size");
  }
  for (size_t i = 0; i < x.element_count(); ++i) {
    z->typed_data()[i] = alpha * x.typed_data()[i] + beta * y.typed_data()[i];
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(AxpbyFfi, AxpbyImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<float>("alpha")
                                  .Attr<float>("beta"));

// (x + y, x - y) for any float type and shape, with the dimensions checked.
static ffi::Error AddSubImpl(ffi::AnyBuffer x, ffi::AnyBuffer y,
                             ffi::Result<ffi::AnyBuffer> sum,
                             ffi::Result<ffi::AnyBuffer> diff) {
  if (x.element_type() != ffi::F32 && x.element_type() != ffi::F64) {
    return ffi::Error::InvalidArgument("add_sub: f32 or f64 only");
  }
  auto xd = x.dimensions(), yd = y.dimensions(), sd = sum->dimensions();
  if (xd.size() != yd.size() || xd.size() != sd.size()) {
    return ffi::Error::InvalidArgument("add_sub: ranks differ");
  }
  for (size_t i = 0; i < xd.size(); ++i) {
    if (xd[i] != yd[i] || xd[i] != sd[i]) {
      return ffi::Error::InvalidArgument("add_sub: dimensions differ");
    }
  }
  size_t n = x.element_count();
  if (x.element_type() == ffi::F32) {
    const float *a = x.typed_data<float>(), *b = y.typed_data<float>();
    float *s = sum->typed_data<float>(), *d = diff->typed_data<float>();
    for (size_t i = 0; i < n; ++i) { s[i] = a[i] + b[i]; d[i] = a[i] - b[i]; }
  } else {
    const double *a = x.typed_data<double>(), *b = y.typed_data<double>();
    double *s = sum->typed_data<double>(), *d = diff->typed_data<double>();
    for (size_t i = 0; i < n; ++i) { s[i] = a[i] + b[i]; d[i] = a[i] - b[i]; }
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(AddSubFfi, AddSubImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>());

// Every attribute kind JAX's ffi_call produces, written into out[0..16]:
// n (i32), big (i64), flag (bool), d (f64), s (string: length and first
// byte), arr (i64 array: size and sum), farr (f32 array: size and sum),
// dic (dictionary: size, k as i64), u (u8), h (f16 read as its bits).
static ffi::Error AttrsImpl(ffi::ResultBuffer<ffi::F64> out, int32_t n,
                            int64_t big, bool flag, double d,
                            std::string_view s, ffi::Span<const int64_t> arr,
                            ffi::Span<const float> farr, ffi::Dictionary dic,
                            uint8_t u) {
  double* o = out->typed_data();
  if (out->element_count() < 16) {
    return ffi::Error::InvalidArgument("attrs: the result needs 16 elements");
  }
  o[0] = n;
  o[1] = static_cast<double>(big);
  o[2] = flag ? 1 : 0;
  o[3] = d;
  o[4] = static_cast<double>(s.size());
  o[5] = s.empty() ? -1 : static_cast<unsigned char>(s[0]);
  o[6] = static_cast<double>(arr.size());
  double sum = 0;
  for (int64_t v : arr) sum += v;
  o[7] = sum;
  o[8] = static_cast<double>(farr.size());
  sum = 0;
  for (float v : farr) sum += v;
  o[9] = sum;
  o[10] = static_cast<double>(dic.size());
  auto k = dic.get<int64_t>("k");
  if (!k.has_value()) return ffi::Error::InvalidArgument("attrs: dic.k missing");
  o[11] = static_cast<double>(*k);
  auto z = dic.get<std::string_view>("z");
  o[12] = z.has_value() ? static_cast<double>(z->size()) : -1;
  o[13] = u;
  o[14] = static_cast<double>(s.find('"'));
  o[15] = 42;
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(AttrsFfi, AttrsImpl,
                              ffi::Ffi::Bind()
                                  .Ret<ffi::Buffer<ffi::F64>>()
                                  .Attr<int32_t>("n")
                                  .Attr<int64_t>("big")
                                  .Attr<bool>("flag")
                                  .Attr<double>("d")
                                  .Attr<std::string_view>("s")
                                  .Attr<ffi::Span<const int64_t>>("arr")
                                  .Attr<ffi::Span<const float>>("farr")
                                  .Attr<ffi::Dictionary>("dic")
                                  .Attr<uint8_t>("u"));

// Fails with the message in its `why` attribute.
static ffi::Error FailImpl(ffi::Buffer<ffi::F32>, ffi::ResultBuffer<ffi::F32>,
                           std::string_view why) {
  return ffi::Error::InvalidArgument(std::string("refused: ") +
                                     std::string(why));
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(FailFfi, FailImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<std::string_view>("why"));

// Reverses x through scratch memory from the runtime's allocator.
static ffi::Error ScratchImpl(ffi::ScratchAllocator scratch,
                              ffi::Buffer<ffi::F32> x,
                              ffi::ResultBuffer<ffi::F32> y) {
  size_t n = x.element_count();
  auto mem = scratch.Allocate(n * sizeof(float), 64);
  if (!mem.has_value()) {
    return ffi::Error::Internal("scratch: allocation failed");
  }
  if (reinterpret_cast<uintptr_t>(*mem) % 64 != 0) {
    return ffi::Error::Internal("scratch: misaligned");
  }
  float* tmp = static_cast<float*>(*mem);
  for (size_t i = 0; i < n; ++i) tmp[i] = x.typed_data()[n - 1 - i];
  std::memcpy(y->typed_data(), tmp, n * sizeof(float));
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ScratchFfi, ScratchImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ScratchAllocator>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

// A stateful handler: the instantiate stage makes a counter from the
// `start` attribute, once per prepared call; every execute call writes
// [start, number of calls so far] and counts one more. The runtime owns the
// state and destroys it with the deleter registered with its type.
struct CounterState {
  static ffi::TypeId id;
  explicit CounterState(int64_t s) : start(s) { live.fetch_add(1); }
  ~CounterState() { live.fetch_sub(1); }
  int64_t start;
  int64_t calls = 0;
  static std::atomic<int64_t> live;
};
ffi::TypeId CounterState::id = {};
std::atomic<int64_t> CounterState::live{0};

XLA_FFI_REGISTER_TYPE(XLA_FFI_GetApi(), "hlox_tests.counter_state",
                      &CounterState::id, ffi::MakeTypeInfo<CounterState>());

// How many CounterStates exist (the tests check that hlox destroys them).
extern "C" int64_t HloxCounterStatesLive() { return CounterState::live.load(); }

static ffi::ErrorOr<std::unique_ptr<CounterState>> CounterInstantiate(
    int64_t start) {
  if (start < 0) {
    return ffi::Unexpected(
        ffi::Error::InvalidArgument("counter: start must be >= 0"));
  }
  return std::make_unique<CounterState>(start);
}

XLA_FFI_DEFINE_HANDLER(kCounterInstantiate, CounterInstantiate,
                       ffi::Ffi::BindInstantiate().Attr<int64_t>("start"));

static ffi::Error CounterExecute(CounterState* state,
                                 ffi::ResultBuffer<ffi::S64> out, int64_t) {
  if (out->element_count() != 2) {
    return ffi::Error::InvalidArgument("counter: the result is s64[2]");
  }
  state->calls += 1;
  out->typed_data()[0] = state->start;
  out->typed_data()[1] = state->calls;
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER(kCounterExecute, CounterExecute,
                       ffi::Ffi::Bind()
                           .Ctx<ffi::State<CounterState>>()
                           .Ret<ffi::Buffer<ffi::S64>>()
                           .Attr<int64_t>("start"));

// An execute-only handler that asks for state it never made.
XLA_FFI_DEFINE_HANDLER_SYMBOL(StatelessCounterFfi, CounterExecute,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::State<CounterState>>()
                                  .Ret<ffi::Buffer<ffi::S64>>()
                                  .Attr<int64_t>("start"));

// A prepare stage (a GPU stage: XLA:CPU does not run it, nor does hlox's
// Host backend) that fails if it runs; registered for the Host only.
static ffi::Error RefusePrepare() {
  return ffi::Error::Internal("the prepare stage ran on the Host");
}
XLA_FFI_DEFINE_HANDLER(kRefusePrepare, RefusePrepare,
                       ffi::Ffi::Bind<ffi::ExecutionStage::kPrepare>());

// y = 2 * x, asynchronously: the result is a future the handler completes
// on another thread after `delay_ms`, or before it returns when delay_ms < 0.
static ffi::Future AsyncDoubleImpl(ffi::Buffer<ffi::F32> x,
                                   ffi::ResultBuffer<ffi::F32> y,
                                   int64_t delay_ms) {
  ffi::Promise promise;
  ffi::Future future(promise);
  const float* in = x.typed_data();
  float* out = y->typed_data();
  size_t n = x.element_count();
  auto work = [promise, in, out, n]() mutable {
    for (size_t i = 0; i < n; ++i) out[i] = 2.0f * in[i];
    promise.SetAvailable();
  };
  if (delay_ms < 0) {
    work();
  } else {
    std::thread([work, delay_ms]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      work();
    }).detach();
  }
  return future;
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(AsyncDoubleFfi, AsyncDoubleImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<int64_t>("delay_ms"));

// Tokens are arguments and results too (dtype TOKEN, rank 0), as XLA passes
// them: y = x + 1, threaded between two tokens.
static ffi::Error TokenIncrementImpl(ffi::Buffer<ffi::F32> x, ffi::Token,
                                     ffi::ResultBuffer<ffi::F32> y,
                                     ffi::Result<ffi::Token>) {
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i] + 1.0f;
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(TokenIncrementFfi, TokenIncrementImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Token>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Token>());

// Writes 1 to its s32[] result when the platform stream is null (hlox's
// CUDA host emulation), 0 otherwise; it only makes sense where buffers are
// host memory, so the tests run it in emulation.
static ffi::Error StreamProbeImpl(void* stream, ffi::ResultBuffer<ffi::S32> out) {
  out->typed_data()[0] = stream == nullptr ? 1 : 0;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER(kStreamProbe, StreamProbeImpl,
                       ffi::Ffi::Bind()
                           .Ctx<ffi::PlatformStream<void*>>()
                           .Ret<ffi::Buffer<ffi::S32>>());

// All four stages, as XLA:GPU runs them (a Triton-style kernel call keeps
// what its initialize stage found in an `Initialized<T>` state):
//   instantiate (once per compiled call) makes StagedCall from the
//     attributes;
//   prepare (at most once per run, no stream) and initialize (at most once
//     per run, the run's stream) each make a state that lives for that run;
//   execute computes y = scale * x and writes what it saw to `info`:
//     [prepares, initializes (both counted per compiled call), executes in
//      this run, 1 if prepare saw no stream, prepare's buffer check].
// `fail` = 1 or 2 makes the prepare or the initialize stage fail. Results
// are written from the host: hlox's tests run this in its CUDA emulation.
struct StagedCall {
  static ffi::TypeId id;
  StagedCall(float s, int64_t f) : scale(s), fail(f) { live.fetch_add(1); }
  ~StagedCall() { live.fetch_sub(1); }
  float scale;
  int64_t fail;
  int64_t prepares = 0;
  int64_t initializes = 0;
  static std::atomic<int64_t> live;
};
ffi::TypeId StagedCall::id = {};
std::atomic<int64_t> StagedCall::live{0};

struct StagedPrepared {
  static ffi::TypeId id;
  StagedPrepared(bool ns, bool bufs) : no_stream(ns), had_buffers(bufs) {
    live.fetch_add(1);
  }
  ~StagedPrepared() { live.fetch_sub(1); }
  bool no_stream;
  bool had_buffers;
  static std::atomic<int64_t> live;
};
ffi::TypeId StagedPrepared::id = {};
std::atomic<int64_t> StagedPrepared::live{0};

struct StagedInitialized {
  static ffi::TypeId id;
  StagedInitialized() { live.fetch_add(1); }
  ~StagedInitialized() { live.fetch_sub(1); }
  int64_t executes = 0;
  static std::atomic<int64_t> live;
};
ffi::TypeId StagedInitialized::id = {};
std::atomic<int64_t> StagedInitialized::live{0};

XLA_FFI_REGISTER_TYPE(XLA_FFI_GetApi(), "hlox_tests.staged_call",
                      &StagedCall::id, ffi::MakeTypeInfo<StagedCall>());
XLA_FFI_REGISTER_TYPE(XLA_FFI_GetApi(), "hlox_tests.staged_prepared",
                      &StagedPrepared::id, ffi::MakeTypeInfo<StagedPrepared>());
XLA_FFI_REGISTER_TYPE(XLA_FFI_GetApi(), "hlox_tests.staged_initialized",
                      &StagedInitialized::id,
                      ffi::MakeTypeInfo<StagedInitialized>());

// How many states of the three kinds exist (per-run ones must be gone
// after each run; the instantiate one when the executable is dropped).
extern "C" int64_t HloxStagedStatesLive() {
  return StagedCall::live.load() + StagedPrepared::live.load() +
         StagedInitialized::live.load();
}

static ffi::ErrorOr<std::unique_ptr<StagedCall>> StagedInstantiate(
    ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y,
    ffi::ResultBuffer<ffi::S64>, float scale, int64_t fail) {
  // The instantiate stage sees the buffers' types and dimensions, no data.
  if (x.element_count() != y->element_count() || x.typed_data() != nullptr) {
    return ffi::Unexpected(ffi::Error::Internal(
        "staged: instantiate expects shapes without data"));
  }
  return std::make_unique<StagedCall>(scale, fail);
}

XLA_FFI_DEFINE_HANDLER(kStagedInstantiate, StagedInstantiate,
                       ffi::Ffi::BindInstantiate()
                           .Arg<ffi::Buffer<ffi::F32>>()
                           .Ret<ffi::Buffer<ffi::F32>>()
                           .Ret<ffi::Buffer<ffi::S64>>()
                           .Attr<float>("scale")
                           .Attr<int64_t>("fail"));

static ffi::ErrorOr<std::unique_ptr<StagedPrepared>> StagedPrepare(
    void* stream, StagedCall* call, ffi::Buffer<ffi::F32> x,
    ffi::ResultBuffer<ffi::F32> y, ffi::ResultBuffer<ffi::S64> info) {
  call->prepares += 1;
  if (call->fail == 1) {
    return ffi::Unexpected(ffi::Error::Internal("staged: prepare refused"));
  }
  bool bufs = x.typed_data() != nullptr && y->typed_data() != nullptr &&
              info->typed_data() != nullptr;
  return std::make_unique<StagedPrepared>(stream == nullptr, bufs);
}

XLA_FFI_DEFINE_HANDLER(kStagedPrepare, StagedPrepare,
                       ffi::Ffi::BindPrepare()
                           .Ctx<ffi::PlatformStream<void*>>()
                           .Ctx<ffi::State<StagedCall>>()
                           .Arg<ffi::Buffer<ffi::F32>>()
                           .Ret<ffi::Buffer<ffi::F32>>()
                           .Ret<ffi::Buffer<ffi::S64>>());

static ffi::ErrorOr<std::unique_ptr<StagedInitialized>> StagedInitialize(
    StagedCall* call, StagedPrepared* prepared) {
  call->initializes += 1;
  if (call->fail == 2) {
    return ffi::Unexpected(ffi::Error::Internal("staged: initialize refused"));
  }
  if (prepared == nullptr) {
    return ffi::Unexpected(ffi::Error::Internal("staged: no prepared state"));
  }
  return std::make_unique<StagedInitialized>();
}

XLA_FFI_DEFINE_HANDLER(kStagedInitialize, StagedInitialize,
                       ffi::Ffi::BindInitialize()
                           .Ctx<ffi::State<StagedCall>>()
                           .Ctx<ffi::Prepared<StagedPrepared>>());

static ffi::Error StagedExecute(StagedCall* call, StagedPrepared* prepared,
                                StagedInitialized* initialized,
                                ffi::Buffer<ffi::F32> x,
                                ffi::ResultBuffer<ffi::F32> y,
                                ffi::ResultBuffer<ffi::S64> info) {
  initialized->executes += 1;
  for (size_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = call->scale * x.typed_data()[i];
  }
  if (info->element_count() != 5) {
    return ffi::Error::InvalidArgument("staged: info is s64[5]");
  }
  int64_t* o = info->typed_data();
  o[0] = call->prepares;
  o[1] = call->initializes;
  o[2] = initialized->executes;
  o[3] = prepared->no_stream ? 1 : 0;
  o[4] = prepared->had_buffers ? 1 : 0;
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER(kStagedExecute, StagedExecute,
                       ffi::Ffi::Bind()
                           .Ctx<ffi::State<StagedCall>>()
                           .Ctx<ffi::Prepared<StagedPrepared>>()
                           .Ctx<ffi::Initialized<StagedInitialized>>()
                           .Arg<ffi::Buffer<ffi::F32>>()
                           .Ret<ffi::Buffer<ffi::F32>>()
                           .Ret<ffi::Buffer<ffi::S64>>());

// Registered by name when the library is loaded, as XLA plugins do.
XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), "cpp_axpby", "Host", AxpbyFfi);
XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), "cpp_add_sub", "Host", AddSubFfi);

// Bundles: instantiate + execute, and prepare + execute (Host only).
static const XLA_FFI_Handler_Bundle kCounterBundle = {
    kCounterInstantiate, nullptr, nullptr, kCounterExecute};
XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), "cpp_counter", "Host",
                         kCounterBundle);
static const XLA_FFI_Handler_Bundle kPrepareBundle = {nullptr, kRefusePrepare,
                                                       nullptr, AxpbyFfi};
XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), "cpp_axpby_with_prepare", "Host",
                         kPrepareBundle);

// For CUDA, as XLA:GPU plugins register them. These write their results
// from the host, so hlox's tests run them in its CUDA host emulation only
// (buffers are host memory there).
XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), "cpp_counter", "CUDA",
                         kCounterBundle);
XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), "cpp_stream_probe", "CUDA",
                         kStreamProbe);
static const XLA_FFI_Handler_Bundle kStagedBundle = {
    kStagedInstantiate, kStagedPrepare, kStagedInitialize, kStagedExecute};
XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), "cpp_staged", "CUDA",
                         kStagedBundle);
// The same bundle for the Host, where only instantiate and execute run: its
// execute stage then finds no prepared state.
XLA_FFI_REGISTER_HANDLER(XLA_FFI_GetApi(), "cpp_staged", "Host",
                         kStagedBundle);
