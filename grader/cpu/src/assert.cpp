// Device-side assert(). glibc's assert() calls __assert_fail, which would abort the whole process; on a GPU a
// failed device assert only fails the launch with the sticky cudaErrorAssert. This library is loaded before
// libc, so its __assert_fail takes precedence: inside a kernel it fails the launch, elsewhere it behaves
// exactly like glibc's (message, then abort). Kept in its own file so no header redeclares the symbol.
#include <cstdio>
#include <cstdlib>
#include "worker.h"

extern "C" [[noreturn]] void __assert_fail(const char* assertion, const char* file, unsigned int line,
                                           const char* function) noexcept {
  using namespace gpulab::cpu;
  Worker* w = this_worker_if_any();
  if (w && w->in_block && w->job && gpulab_cpu_tls.slot) {
    abort_cuda_thread(cudaErrorAssert, format("device-side assertion `%s' failed at %s:%u in %s", assertion, file, line,
                                              describe_current_thread(*w->job).c_str()));
  }
  std::fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function ? function : "?", assertion);
  std::abort();
}
