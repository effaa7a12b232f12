// Kernel launches of CPU execution mode. gpulab-cu2cpp rewrites
//     kernel<<<grid, block, shmem, stream>>>(args...)
// into
//     ::gpulab::cpu::make_launcher("kernel", __FILE__, __LINE__, kernel, grid, block, shmem, stream)(args...)
// The launcher converts the arguments to the kernel's parameter types exactly once (as a call would), and
// hands the runtime a type-erased thunk that every CUDA thread (fiber) calls with its own copies.
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>
#include "types.h"

namespace gpulab::cpu {
struct LaunchSite {
  const char* kernel;
  const char* file;
  int line;
};
using KernelThunk = void (*)(const void* payload);

// Runs every block of the grid before it returns (launches are synchronous in CPU mode); records errors
// as the CUDA runtime would (cudaGetLastError, sticky errors).
void launch(const LaunchSite& site, const void* kernel, dim3 grid, dim3 block, size_t dynamic_shared,
            cudaStream_t stream, KernelThunk thunk, const void* payload);

template <class T>
inline dim3 to_dim3(const T& v) {
  if constexpr (std::is_arithmetic_v<T>) return dim3(static_cast<unsigned int>(v));
  else return dim3(v);
}

template <class... P>
class Launcher {
 public:
  Launcher(LaunchSite site, void (*fn)(P...), dim3 grid, dim3 block, size_t shmem, cudaStream_t stream)
      : site_(site), fn_(fn), grid_(grid), block_(block), shmem_(shmem), stream_(stream) {}

  template <class... A>
  void operator()(A&&... args) const {
    static_assert(sizeof...(A) == sizeof...(P), "kernel launched with the wrong number of arguments");
    struct Payload {
      void (*fn)(P...);
      std::tuple<std::decay_t<P>...> args;
    };
    const Payload payload{fn_, std::tuple<std::decay_t<P>...>(std::forward<A>(args)...)};
    // std::apply passes each stored argument to a by-value parameter: every CUDA thread gets its own copy.
    KernelThunk thunk = [](const void* p) {
      const Payload* pl = static_cast<const Payload*>(p);
      std::apply(pl->fn, pl->args);
    };
    launch(site_, reinterpret_cast<const void*>(fn_), grid_, block_, shmem_, stream_, thunk, &payload);
  }

 private:
  LaunchSite site_;
  void (*fn_)(P...);
  dim3 grid_, block_;
  size_t shmem_;
  cudaStream_t stream_;
};

// A kernel template (k<<<g, b>>>(args) where k is `template <...> __global__ void k(...)`): the rewriter
// passes a generic lambda that calls k, so the arguments deduce its template parameters as a call does.
// Each CUDA thread gets its own copies of the arguments (as their decayed types) and calls through it.
template <class F>
class DeducedLauncher {
 public:
  DeducedLauncher(LaunchSite site, F call, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream)
      : site_(site), call_(call), grid_(grid), block_(block), shmem_(shmem), stream_(stream) {}

  template <class... A>
  void operator()(A&&... args) const {
    struct Payload {
      F call;
      std::tuple<std::decay_t<A>...> args;
    };
    const Payload payload{call_, std::tuple<std::decay_t<A>...>(std::forward<A>(args)...)};
    KernelThunk thunk = [](const void* p) {
      const Payload* pl = static_cast<const Payload*>(p);
      std::apply(pl->call, pl->args);
    };
    // The thunk stands for the kernel (one per kernel template and argument types).
    launch(site_, reinterpret_cast<const void*>(thunk), grid_, block_, shmem_, stream_, thunk, &payload);
  }

 private:
  LaunchSite site_;
  F call_;
  dim3 grid_, block_;
  size_t shmem_;
  cudaStream_t stream_;
};

template <class F, class G, class B, std::enable_if_t<!std::is_pointer_v<F> && !std::is_function_v<F>, int> = 0>
inline DeducedLauncher<F> make_launcher(const char* kernel, const char* file, int line, F call, const G& grid,
                                        const B& block, size_t shmem = 0, cudaStream_t stream = nullptr) {
  return DeducedLauncher<F>(LaunchSite{kernel, file, line}, call, to_dim3(grid), to_dim3(block), shmem, stream);
}

template <class... P, class G, class B>
inline Launcher<P...> make_launcher(const char* kernel, const char* file, int line, void (*fn)(P...), const G& grid,
                                    const B& block, size_t shmem = 0, cudaStream_t stream = nullptr) {
  return Launcher<P...>(LaunchSite{kernel, file, line}, fn, to_dim3(grid), to_dim3(block), shmem, stream);
}
}  // namespace gpulab::cpu
