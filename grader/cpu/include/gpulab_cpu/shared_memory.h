// Where CPU execution mode keeps a block's shared memory (for graders and the runtime's own counters, not
// student code).
//
// Each OS worker thread runs one block at a time and owns:
//  * a static shared arena: every static `__shared__` declaration inside a function (per declaration site
//    and template instantiation) gets its own slot the first time a worker reaches it, laid out as
//        [1 guard page][head padding | the array | alignment padding][guard pages: the data pages + 1]
//    with the array flush against the guard pages that follow it (padding only where the declared alignment
//    needs it). An access past the end faults, and the fault is reported as an out-of-bounds access of that
//    array (cudaErrorIllegalAddress, naming the kernel, block, thread and the declaration). The padding is
//    filled with 0xFF and checked when the block ends: a write just before the start is reported there
//    (without the thread, which CPU mode cannot tell any more); one farther before the start faults in the
//    leading guard page. File-scope `__shared__` variables are not in the arena (per-worker thread_local).
//  * a dynamic shared buffer (`extern __shared__`, the launch's third argument), whose end touches a guard page.
//
// shared_memory_regions() lists the read-write page ranges of both, so that a counter can make them
// PROT_NONE for the duration of a launch and count shared loads and stores from the faults (as
// count_device_reads does for device buffers), then restore PROT_READ | PROT_WRITE. Guard pages are not
// listed and must stay PROT_NONE. The runtime touches these pages itself, always inside a CountPause (the
// read counter's "open the counted pages" scope, src/internal.h): when the first thread of a block reaches a
// static declaration (it poisons the slot), when a block ends (the padding check), and when a block starts
// (the dynamic buffer's poisoning). A slot is created when a worker first reaches its declaration, possibly in
// the middle of a counted launch: set_shared_layout_observer() hears of each new one before it is used.
#pragma once
#include <cstddef>
#include <vector>

namespace gpulab::cpu {

struct SharedMemoryRegion {
  void* begin;       // page-aligned
  size_t bytes;      // a multiple of the page size
  bool dynamic;      // the dynamic shared buffer (false: one static __shared__ declaration's slot)
  const char* name;  // the declared name (static slots; "extern __shared__" for the dynamic buffer)
};

// The calling thread's worker (created if it has none yet; a launch's blocks run on the launching thread too,
// and only there while counting). Not synchronised with running launches: call between launches or from
// the worker itself.
std::vector<SharedMemoryRegion> shared_memory_regions();
// Every worker that exists now.
std::vector<SharedMemoryRegion> shared_memory_regions_of_all_workers();

// Called on the worker thread right after a new static slot was mapped, before anything is written to it
// (nullptr: none). One observer at a time; it may mprotect the region.
using SharedLayoutObserver = void (*)(const SharedMemoryRegion& region);
void set_shared_layout_observer(SharedLayoutObserver observer);

}  // namespace gpulab::cpu
