// The custom-call sandbox's call shim (crates/hlox-ffi/src/sandbox/).
//
// Why C++ and not Rust: the shim is the target's direct caller, so that
//  - a C++ exception escaping the target unwinds only the target's own
//    frames, to the `catch` here (an exception that reaches a Rust frame is
//    undefined behaviour; one that finds no handler calls std::terminate);
//  - a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) inside the target
//    is turned into a `siglongjmp` back to the `sigsetjmp` here, skipping
//    only the target's frames (and any C API callbacks it was in), never a
//    Rust frame with destructors to run. Rust code cannot call sigsetjmp
//    soundly (it returns twice).
//
// The handlers are installed once per process, on first use, with
// SA_ONSTACK (a stack overflow in the target still gets a stack to run the
// handler on) and chain to the handlers that were there before (Rust's
// stack-overflow handler, a debugger's, the default action) for every
// fault that is not inside a sandboxed call on the faulting thread.

#include <csetjmp>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <pthread.h>
#include <ucontext.h>

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kNumSignals = sizeof(kSignals) / sizeof(kSignals[0]);
struct sigaction g_previous[kNumSignals];

// The sandboxed call in progress on this thread, if any.
thread_local sigjmp_buf *t_jump = nullptr;
struct Fault {
  int signo;
  int code;
  void *addr;
  void *pc;
  int access;  // 0 unknown, 1 read, 2 write
};
thread_local Fault t_fault;

// This thread's alternate signal stack, made on its first sandboxed call
// when the thread has none (Rust's threads have one; others may not).
constexpr size_t kAltStackSize = 64 * 1024;
struct AltStack {
  void *mem = nullptr;
  ~AltStack() {
    if (mem != nullptr) {
      stack_t none;
      std::memset(&none, 0, sizeof none);
      none.ss_flags = SS_DISABLE;
      stack_t cur;
      if (sigaltstack(nullptr, &cur) == 0 && cur.ss_sp == mem) {
        sigaltstack(&none, nullptr);
      }
      std::free(mem);
    }
  }
};
thread_local AltStack t_altstack;

void *fault_pc(void *uctx) {
  if (uctx == nullptr) return nullptr;
  auto *uc = static_cast<ucontext_t *>(uctx);
#if defined(__x86_64__)
  return reinterpret_cast<void *>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void *>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return nullptr;
#endif
}

// Whether a SIGSEGV was a read or a write (x86-64: bit 1 of the page
// fault's error code).
int fault_access(int signo, void *uctx) {
#if defined(__x86_64__)
  if (uctx != nullptr && signo == SIGSEGV) {
    auto *uc = static_cast<ucontext_t *>(uctx);
    return (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 2 : 1;
  }
#else
  (void)signo;
  (void)uctx;
#endif
  return 0;
}

void handler(int signo, siginfo_t *info, void *uctx) {
  sigjmp_buf *jump = t_jump;
  if (jump != nullptr) {
    t_jump = nullptr;
    t_fault.signo = signo;
    t_fault.code = info != nullptr ? info->si_code : 0;
    t_fault.addr = info != nullptr ? info->si_addr : nullptr;
    t_fault.pc = fault_pc(uctx);
    t_fault.access = fault_access(signo, uctx);
    siglongjmp(*jump, 1);
  }
  // Not ours: hand the signal to whoever had it before.
  for (int i = 0; i < kNumSignals; ++i) {
    if (kSignals[i] != signo) continue;
    const struct sigaction &prev = g_previous[i];
    if (prev.sa_flags & SA_SIGINFO) {
      if (prev.sa_sigaction != nullptr) {
        prev.sa_sigaction(signo, info, uctx);
        return;
      }
    } else if (prev.sa_handler == SIG_IGN) {
      return;
    } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != nullptr) {
      prev.sa_handler(signo);
      return;
    }
    // The default action: reinstall it; the faulting instruction runs again
    // (or abort() raises again) and the process ends as it would have.
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(signo, &dfl, nullptr);
    if (signo != SIGSEGV && signo != SIGBUS && signo != SIGFPE && signo != SIGILL) {
      raise(signo);
    }
    return;
  }
}

pthread_once_t g_once = PTHREAD_ONCE_INIT;
int g_install_error = 0;

void install() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < kNumSignals; ++i) {
    if (sigaction(kSignals[i], &sa, &g_previous[i]) != 0) g_install_error = 1;
  }
}

}  // namespace

extern "C" {

// What a call is: the target's calling convention and its arguments.
struct HloxSbCall {
  int32_t kind;  // 0 original, 1 status-returning, 2 unified, 3 typed FFI
  void *fn;
  void *out;
  void **ins;
  const char *opaque;
  size_t opaque_len;
  void *status;
  void *frame;
  void *ffi_error;  // out: the typed-FFI handler's returned error
};

// How it ended, when it did not return normally.
struct HloxSbOutcome {
  int32_t signo;
  int32_t code;
  void *addr;
  void *pc;
  int32_t access;
  char exception[512];
};

// 0: returned; 1: a signal (`signo`, `code`, `addr`, `pc`); 2: a C++
// exception (`exception` holds what() or a type-less description); -1: the
// signal handlers could not be installed.
int32_t hlox_sandbox_call(HloxSbCall *call, HloxSbOutcome *out) {
  pthread_once(&g_once, install);
  if (g_install_error) return -1;
  std::memset(out, 0, sizeof *out);
  // Make sure this thread has an alternate stack to handle a stack overflow on.
  stack_t cur;
  if (sigaltstack(nullptr, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
    if (t_altstack.mem == nullptr) t_altstack.mem = std::malloc(kAltStackSize);
    if (t_altstack.mem != nullptr) {
      stack_t ss;
      std::memset(&ss, 0, sizeof ss);
      ss.ss_sp = t_altstack.mem;
      ss.ss_size = kAltStackSize;
      sigaltstack(&ss, nullptr);
    }
  }
  sigjmp_buf jump;
  if (sigsetjmp(jump, 1) != 0) {
    // A fault inside the target: the handler cleared t_jump.
    out->signo = t_fault.signo;
    out->code = t_fault.code;
    out->addr = t_fault.addr;
    out->pc = t_fault.pc;
    out->access = t_fault.access;
    return 1;
  }
  t_jump = &jump;
  try {
    switch (call->kind) {
      case 0:
        reinterpret_cast<void (*)(void *, void **)>(call->fn)(call->out, call->ins);
        break;
      case 1:
        reinterpret_cast<void (*)(void *, void **, void *)>(call->fn)(call->out, call->ins,
                                                                      call->status);
        break;
      case 2:
        reinterpret_cast<void (*)(void *, void **, const char *, size_t, void *)>(call->fn)(
            call->out, call->ins, call->opaque, call->opaque_len, call->status);
        break;
      case 3:
        call->ffi_error = reinterpret_cast<void *(*)(void *)>(call->fn)(call->frame);
        break;
      default:
        break;
    }
  } catch (const std::exception &e) {
    t_jump = nullptr;
    const char *what = e.what();
    std::strncpy(out->exception, what != nullptr ? what : "", sizeof out->exception - 1);
    return 2;
  } catch (...) {
    t_jump = nullptr;
    std::strncpy(out->exception, "an exception not derived from std::exception",
                 sizeof out->exception - 1);
    return 2;
  }
  t_jump = nullptr;
  return 0;
}

}  // extern "C"
