// The per-worker arena of static __shared__ declarations (layout: include/gpulab_cpu/shared_memory.h).
#pragma once
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>
#include "gpulab_cpu/shared_memory.h"
#include "internal.h"

namespace gpulab::cpu {
struct Worker;
struct LaunchJob;

class SharedArena {
 public:
  explicit SharedArena(Worker& owner);
  ~SharedArena();
  SharedArena(const SharedArena&) = delete;
  SharedArena& operator=(const SharedArena&) = delete;

  // The slow path of shared_slot(): lays out the site's slot on first use, poisons it once per block.
  void* enter(SharedSite& site);
  // If `addr` lies in the guard pages of one of this worker's slots: the message for the fault (`who` did
  // `access` there); otherwise empty.
  std::string describe_fault(const void* addr, const std::string& who, const char* access) const;
  // After a block finished: whether the padding around every slot it used is intact; `msg` says otherwise.
  bool check_padding(const LaunchJob& job, std::string& msg);
  void regions(std::vector<SharedMemoryRegion>& out) const;

 private:
  struct Slot {
    char* map = nullptr;   // [guard page][data pages][guard pages]
    size_t map_len = 0;
    char* data = nullptr;  // read-write pages
    size_t data_len = 0;
    char* start = nullptr;  // the variable, ending at data + data_len unless its alignment needs padding
    size_t size = 0, element_size = 1;
    std::string name, file, type;
    int line = 0;
    std::vector<size_t> extents;  // of an array type (outermost first), from its type name
  };
  Slot* lay_out(const SharedSite& site);
  std::string where(const Slot& s) const;
  std::string element(const Slot& s, long long offset) const;

  Worker& owner_;
  std::vector<Slot*> slots_;            // by site id (null: not reached on this worker)
  std::vector<SharedSlotRef> refs_;     // gpulab_cpu_tls.shared_slots points here
  std::vector<unsigned> entered_;       // ids reached by the current block
  unsigned long long entered_epoch_ = 0;
  mutable std::mutex mutex_;            // slots_ against shared_memory_regions_of_all_workers()
};
}  // namespace gpulab::cpu
