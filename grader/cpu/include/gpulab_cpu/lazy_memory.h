// Device memory that costs nothing until it is touched (CPU execution mode only; for graders, not student code).
//
// A grader that counts the launch it times (read_count.h, BlockSample) runs a few blocks of a grid whose
// buffers are gigabytes. malloc_lazy() gives a device buffer like cudaMalloc's (same layout: it ends flush
// against a PROT_NONE guard page; cudaMemcpy, cudaMemset, cudaFree, kernels and read counts take it) whose
// pages stay PROT_NONE, unbacked, until something first touches them: a CUDA thread, the grader's own host
// code, or a runtime copy. That first access faults; the fault handler fills the page (calls `fill` for the
// part of the buffer it holds, or writes the fresh-memory word 0xFFFADBAD that cudaMalloc buffers start with)
// and opens it, and the access goes on. Inside a count, a page of a counted range is filled, stays protected,
// and the access is then counted as usual.
//
// The filler runs inside the SIGSEGV handler, on the faulting thread (a worker thread, for a kernel's access),
// on a 64 KiB alternate signal stack: it must only compute values and write them to [dst, dst + len) (dst is
// a buffer of at most one page, not the device address; no exceptions, no locks that the interrupted code
// could hold, no I/O, no access to untouched lazy pages; allocation is tolerated in practice, since the code it
// interrupts is a kernel or a copy, never the allocator). Several worker threads may call it at once for
// different pages.
#pragma once
#include <cstddef>
#include <functional>
#include "types.h"

namespace gpulab::cpu {

// Writes the values of buffer bytes [offset, offset + len) to dst (= buffer start + offset).
using LazyFiller = std::function<void(void* dst, size_t offset, size_t len)>;

// Like cudaMalloc, but lazily filled. A size above the machine's memory is fine (only touched pages take
// any). Freed with cudaFree. At most 256 lazy buffers live at once (cudaErrorMemoryAllocation beyond).
cudaError_t malloc_lazy(void** devPtr, size_t size, LazyFiller fill = nullptr);

struct LazyUsage {
  size_t size = 0;           // the buffer's bytes
  size_t touched_bytes = 0;  // bytes of the pages filled so far (whole pages; what the buffer costs)
  size_t touched_pages = 0;
};
// Of the lazy buffer that contains p; false when p is in none.
bool lazy_usage(const void* p, LazyUsage* usage);

}  // namespace gpulab::cpu
