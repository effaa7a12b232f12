// Static __shared__ declarations inside functions live in a per-worker arena (layout and the query for
// counters: include/gpulab_cpu/shared_memory.h). gpulab-cu2cpp turns each declaration into a reference to
// shared_slot(site) (include/gpulab_cpu/device.h); the first time a worker reaches a declaration, its slot is
// mapped here with the variable flush against PROT_NONE guard pages, so that writing (or reading) one
// element past the end faults instead of landing in the emulator's own thread_local state (which it did
// when these arrays were thread_local themselves: the epoch variable that follows an array, and more).
// scheduler.cpp's fault description asks describe_fault() whether the address is a slot's guard, and
// run_block() asks check_padding() after every block whether the bytes around the variables were written.
#include "shared_arena.h"

#include <sys/mman.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include "worker.h"

namespace gpulab::cpu {
namespace {
const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
constexpr unsigned char kFill = 0xFF;  // the poison of the variable and of the padding around it
constexpr unsigned long long kNeverEntered = ~0ull;

std::atomic<unsigned> g_next_site_id{1};
std::atomic<SharedLayoutObserver> g_layout_observer{nullptr};

std::mutex g_arenas_mutex;
std::vector<SharedArena*>& arenas() {
  static std::vector<SharedArena*> v;
  return v;
}

// The T of shared_type_name<T>'s __PRETTY_FUNCTION__ ("const char* ...() [with T = float [10][34]]").
std::string type_from_pretty(const char* pretty) {
  std::string p = pretty;
  const size_t at = p.find("[with T = ");
  if (at == std::string::npos) return p;
  std::string t = p.substr(at + 10);
  if (!t.empty() && t.back() == ']') t.pop_back();
  const size_t semi = t.find(';');  // "...; other = ..." in some compilers
  return semi == std::string::npos ? t : t.substr(0, semi);
}

// The extents of an array type from its demangled name ("float [10][34]" -> {10, 34}).
std::vector<size_t> extents_of(const std::string& type) {
  std::vector<size_t> e;
  size_t end = type.size();
  while (end > 0 && type[end - 1] == ']') {
    size_t open = type.rfind('[', end - 1);
    if (open == std::string::npos) break;
    const std::string digits = type.substr(open + 1, end - open - 2);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) break;
    e.insert(e.begin(), std::strtoull(digits.c_str(), nullptr, 10));
    end = open;
    while (end > 0 && type[end - 1] == ' ') --end;
  }
  return e;
}

long long floor_div(long long a, long long b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
}  // namespace

void* enter_shared_slot(SharedSite& site) { return this_worker().shared.enter(site); }

SharedArena::SharedArena(Worker& owner) : owner_(owner) {
  std::lock_guard<std::mutex> lock(g_arenas_mutex);
  arenas().push_back(this);
}

SharedArena::~SharedArena() {
  {
    std::lock_guard<std::mutex> lock(g_arenas_mutex);
    auto& v = arenas();
    v.erase(std::remove(v.begin(), v.end(), this), v.end());
  }
  if (gpulab_cpu_tls.shared_slots == refs_.data()) {
    gpulab_cpu_tls.shared_slots = nullptr;
    gpulab_cpu_tls.shared_slot_count = 0;
  }
  for (Slot* s : slots_) {
    if (!s) continue;
    munmap(s->map, s->map_len);
    delete s;
  }
}

SharedArena::Slot* SharedArena::lay_out(const SharedSite& site) {
  size_t align = site.align;
  if (align == 0 || (align & (align - 1)) != 0) align = 1;
  if (align > kPage) align = kPage;  // beyond a page: only page alignment is kept
  const size_t size = site.size;
  const size_t tail = (align - size % align) % align;  // padding after the variable that its alignment needs
  const size_t data_pages = std::max<size_t>(1, (size + tail + kPage - 1) / kPage);
  // Guard pages after the data: as many as the data has, plus one, so that an overrun by up to the
  // variable's own size (a whole row or plane too far) still lands in this slot's guard and is named right.
  const size_t after_pages = data_pages + 1;
  const size_t len = (1 + data_pages + after_pages) * kPage;
  void* m = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  char* base = static_cast<char*>(m);
  if (mprotect(base + kPage, data_pages * kPage, PROT_READ | PROT_WRITE) != 0) {
    munmap(m, len);
    return nullptr;
  }
  auto* s = new Slot;
  s->map = base;
  s->map_len = len;
  s->data = base + kPage;
  s->data_len = data_pages * kPage;
  s->start = s->data + s->data_len - tail - size;
  s->size = size;
  s->element_size = site.element_size ? site.element_size : 1;
  s->name = site.name;
  s->file = site.file;
  s->line = site.line;
  s->type = type_from_pretty(site.type_name);
  s->extents = extents_of(s->type);
  if (SharedLayoutObserver observer = g_layout_observer.load())
    observer(SharedMemoryRegion{s->data, s->data_len, false, s->name.c_str()});
  return s;
}

void* SharedArena::enter(SharedSite& site) {
  unsigned id = site.id.load(std::memory_order_acquire);
  if (id == 0) {  // first reached by any worker: take the next id (a lost race wastes one)
    unsigned expected = 0;
    const unsigned fresh = g_next_site_id.fetch_add(1);
    id = site.id.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel) ? fresh : expected;
  }
  ThreadContext& tc = gpulab_cpu_tls;
  if (id >= refs_.size()) {
    const size_t n = std::max<size_t>(id + 1, refs_.size() * 2);
    refs_.resize(n, SharedSlotRef{nullptr, kNeverEntered});
    std::lock_guard<std::mutex> lock(mutex_);
    slots_.resize(n, nullptr);
  }
  tc.shared_slots = refs_.data();
  tc.shared_slot_count = static_cast<unsigned>(refs_.size());
  Slot* s = slots_[id];
  if (!s) {
    s = lay_out(site);
    if (!s) {
      const std::string msg = format("cannot map %zu bytes for __shared__ %s (declared at %s:%d)", site.size,
                                     site.name, site.file, site.line);
      if (owner_.in_block) abort_cuda_thread(cudaErrorMemoryAllocation, msg);
      throw std::bad_alloc();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    slots_[id] = s;
  }
  SharedSlotRef& ref = refs_[id];
  ref.ptr = s->start;
  if (ref.epoch != tc.block_epoch) {
    // The first thread of this block to get here: poison the variable (and refill the padding around it).
    ref.epoch = tc.block_epoch;
    {
      CountPause open_counted_pages;
      std::memset(s->data, kFill, s->data_len);
    }
    if (entered_epoch_ != tc.block_epoch) {
      entered_epoch_ = tc.block_epoch;
      entered_.clear();
    }
    entered_.push_back(id);
    // The block's static shared memory, for the launch observer (each variable once per block).
    Worker& w = owner_;
    if (w.job) {
      if (w.shared_epoch != tc.block_epoch) {
        w.shared_epoch = tc.block_epoch;
        w.shared_bytes = 0;
      }
      w.shared_bytes += s->size;
      size_t seen = w.job->static_shared.load();
      while (w.shared_bytes > seen && !w.job->static_shared.compare_exchange_weak(seen, w.shared_bytes)) {
      }
    }
  }
  return s->start;
}

std::string SharedArena::where(const Slot& s) const {
  return format("%s, %zu bytes, declared at %s:%d", s.type.c_str(), s.size, s.file.c_str(), s.line);
}

// "element [10][0] (byte offset 1360), 1 element after its last one": the element that holds the byte at
// `offset` from the start.
std::string SharedArena::element(const Slot& s, long long offset) const {
  const long long es = static_cast<long long>(s.element_size);
  const long long count = static_cast<long long>(s.size / s.element_size);
  long long flat = floor_div(offset, es);
  std::string index;
  size_t product = 1;
  for (size_t e : s.extents) product *= e;
  if (!s.extents.empty() && static_cast<long long>(product) == count) {
    std::vector<long long> idx(s.extents.size());
    long long rest = flat;
    for (size_t k = s.extents.size(); k-- > 1;) {
      const long long e = static_cast<long long>(s.extents[k]);
      idx[k] = rest - floor_div(rest, e) * e;
      rest = floor_div(rest, e);
    }
    idx[0] = rest;
    for (long long i : idx) index += format("[%lld]", i);
  } else {
    index = format("%lld", flat);
  }
  const long long away = flat >= count ? flat - count + 1 : -flat;
  return format("element %s (byte offset %lld), %lld element%s %s", index.c_str(), flat * es, away, away == 1 ? "" : "s",
                flat >= count ? "after its last one" : "before its first one");
}

std::string SharedArena::describe_fault(const void* addr, const std::string& who, const char* access) const {
  const char* a = static_cast<const char*>(addr);
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Slot* s : slots_) {
    if (!s || a < s->map || a >= s->map + s->map_len) continue;
    if (a >= s->data && a < s->data + s->data_len) return {};  // not a guard page: some other kind of fault
    const bool past = a >= s->data + s->data_len;
    return format("%s %s %s __shared__ array `%s` (%s): %s", who.c_str(), access,
                  past ? "past the end of" : "before the start of", s->name.c_str(), where(*s).c_str(),
                  element(*s, static_cast<long long>(a - s->start)).c_str());
  }
  return {};
}

bool SharedArena::check_padding(const LaunchJob& job, std::string& msg) {
  if (entered_epoch_ != gpulab_cpu_tls.block_epoch) return true;
  CountPause open_counted_pages;
  for (unsigned id : entered_) {
    const Slot& s = *slots_[id];
    const char* hit = nullptr;
    for (const char* p = s.start; p-- > s.data;)  // nearest to the start first
      if (static_cast<unsigned char>(*p) != kFill) {
        hit = p;
        break;
      }
    for (const char* p = s.start + s.size; !hit && p < s.data + s.data_len; ++p)
      if (static_cast<unsigned char>(*p) != kFill) hit = p;
    if (!hit) continue;
    const bool before = hit < s.start;
    msg = format("a thread of block (%u,%u,%u) of kernel %s (launched at %s:%d) wrote %s __shared__ array `%s` (%s): "
                 "%s (found when the block ended: CPU execution mode cannot tell which thread)",
                 gpulab_cpu_tls.block_idx.x, gpulab_cpu_tls.block_idx.y, gpulab_cpu_tls.block_idx.z, job.site.kernel,
                 job.site.file, job.site.line, before ? "before the start of" : "past the end of", s.name.c_str(),
                 where(s).c_str(), element(s, static_cast<long long>(hit - s.start)).c_str());
    return false;
  }
  return true;
}

void SharedArena::regions(std::vector<SharedMemoryRegion>& out) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Slot* s : slots_)
      if (s) out.push_back(SharedMemoryRegion{s->data, s->data_len, false, s->name.c_str()});
  }
  if (owner_.dyn_map && owner_.dyn_end > owner_.dyn_map)
    out.push_back(SharedMemoryRegion{owner_.dyn_map, static_cast<size_t>(owner_.dyn_end - owner_.dyn_map), true,
                                     "extern __shared__"});
}

std::vector<SharedMemoryRegion> shared_memory_regions() {
  std::vector<SharedMemoryRegion> out;
  this_worker().shared.regions(out);
  return out;
}

std::vector<SharedMemoryRegion> shared_memory_regions_of_all_workers() {
  std::vector<SharedMemoryRegion> out;
  std::lock_guard<std::mutex> lock(g_arenas_mutex);
  for (const SharedArena* a : arenas()) a->regions(out);
  return out;
}

void set_shared_layout_observer(SharedLayoutObserver observer) { g_layout_observer = observer; }
}  // namespace gpulab::cpu
