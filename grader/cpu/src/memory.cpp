// Device memory of CPU execution mode. Every cudaMalloc buffer gets its own mapping laid out as
//     [guard page][canary bytes][buffer ... end][guard page]
// so the first byte past the end is PROT_NONE: an out-of-bounds write (or read) faults at once instead of
// corrupting the host heap, and fault.cpp/executor.cpp turn the fault into cudaErrorIllegalAddress.
// Placing the buffer flush against the end gives it the natural alignment of its element type (the
// largest power of two dividing its size); small writes before the start land in canary bytes that are
// checked after every launch, larger ones in the leading guard page.
// A fresh buffer is not zero, as on a GPU, where it holds whatever was there before: it is filled with
// kFreshWord (a NaN as float or double, nonzero bytes), so a kernel that reads memory nobody wrote fails here
// as it would on the GPU instead of finding convenient zeros.
// A lazy buffer (malloc_lazy, gpulab_cpu/lazy_memory.h) has the same layout, but its data pages are a
// private mapping of a memfd, PROT_NONE and unbacked until touched: the first access faults, lazy_fault()
// writes the page's values into the memfd (pwrite from a buffer on the signal stack, so that no other thread
// can see the page half filled) and opens the page; the mapping is private, so kernels' writes stay this
// process's (copy on write), as with cudaMalloc buffers after a fork.
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include "gpu_answers.h"
#include "internal.h"
#include "gpulab_cpu/launch_observer.h"
#include "gpulab_cpu/lazy_memory.h"

namespace gpulab::cpu {
namespace {
constexpr unsigned char kCanary = 0xA5;
// Little-endian bytes AD DB FA FF: a quiet NaN as a float, and twice over a NaN as a double; an int of
// -337491; no zero byte. Differs from the grader's poison (all bits set) and its unwritten-cell sentinel.
constexpr std::uint32_t kFreshWord = 0xFFFADBADu;

// Fills [p, p+n) with kFreshWord, aligned to p (a buffer's elements start at p).
void fill_fresh(char* p, size_t n) {
  const size_t head = n < sizeof kFreshWord ? n : sizeof kFreshWord;
  std::memcpy(p, &kFreshWord, head);
  for (size_t done = head; done < n;) {  // doubling copies: a few memcpy calls for any size
    const size_t chunk = done < n - done ? done : n - done;
    std::memcpy(p + done, p, chunk);
    done += chunk;
  }
}

// Fills n bytes at dst with kFreshWord in the phase it has at byte `offset` of a buffer.
void fill_fresh_at(char* dst, size_t offset, size_t n) {
  unsigned char word[4];
  std::memcpy(word, &kFreshWord, 4);
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<char>(word[(offset + i) & 3]);
}

// A lazy buffer's fill state. Found by the fault handler without a lock (g_lazy below).
struct LazyRegion {
  uintptr_t lo = 0, hi = 0;  // its data pages
  char* start = nullptr;     // the buffer
  size_t size = 0;
  int fd = -1;               // the memfd behind the data pages
  LazyFiller fill;
  std::unique_ptr<std::atomic<uint64_t>[]> claimed, touched;  // a bit per data page
  std::atomic<size_t> touched_pages{0};
};

struct Allocation {
  char* map_base;
  size_t map_len;
  char* start;
  size_t size;
  LazyRegion* lazy = nullptr;
  char* canary_begin() const { return map_base + page(); }
  static size_t page() {
    static const size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return p;
  }
};

std::mutex g_mutex;
std::map<uintptr_t, Allocation> g_allocs;  // keyed by buffer start

constexpr int kMaxLazy = 256;
std::atomic<LazyRegion*> g_lazy[kMaxLazy];
std::atomic<int> g_lazy_live{0};

LazyRegion* lazy_region_at(uintptr_t a) {
  if (g_lazy_live.load(std::memory_order_acquire) == 0) return nullptr;
  for (auto& slot : g_lazy) {
    LazyRegion* r = slot.load(std::memory_order_acquire);
    if (r && a >= r->lo && a < r->hi) return r;
  }
  return nullptr;
}

bool page_touched(const LazyRegion& r, size_t i) {
  return r.touched[i / 64].load(std::memory_order_acquire) & (uint64_t(1) << (i % 64));
}

// Writes data page i's values (canary bytes before the buffer's start, then the filler's or the fresh word)
// into the memfd, a stack buffer's worth at a time.
void fill_lazy_page(LazyRegion& r, size_t i) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  char buf[4096];
  const uintptr_t p = r.lo + i * page;
  const auto start = reinterpret_cast<uintptr_t>(r.start);
  for (size_t done = 0; done < page; done += sizeof buf) {
    const uintptr_t lo = p + done, hi = lo + sizeof buf;
    if (lo < start) std::memset(buf, kCanary, (hi < start ? hi : start) - lo);
    const uintptr_t b = lo > start ? lo : start, e = hi < start + r.size ? hi : start + r.size;
    if (e > b) {
      char* dst = buf + (b - lo);
      if (r.fill) r.fill(dst, b - start, e - b);
      else fill_fresh_at(dst, b - start, e - b);
    }
    const off_t at = static_cast<off_t>(i * page + done);
    for (size_t written = 0; written < sizeof buf;) {
      const ssize_t n = pwrite(r.fd, buf + written, sizeof buf - written, at + static_cast<off_t>(written));
      if (n <= 0) break;  // ENOMEM: the page reads as zeros; nothing better to do inside a signal handler
      written += static_cast<size_t>(n);
    }
  }
}

void unregister_lazy(LazyRegion* r) {
  for (auto& slot : g_lazy) {
    LazyRegion* expected = r;
    if (slot.compare_exchange_strong(expected, nullptr)) {
      g_lazy_live.fetch_sub(1);
      break;
    }
  }
}

void release(const Allocation& al) {
  count_buffer_released(al.map_base, al.map_len);
  if (al.lazy) unregister_lazy(al.lazy);
  munmap(al.map_base, al.map_len);
  if (al.lazy) {
    close(al.lazy->fd);
    delete al.lazy;
  }
}

// The allocation whose [start, start+size) contains p, or null. Caller holds g_mutex.
const Allocation* find_containing(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto it = g_allocs.upper_bound(a);
  if (it == g_allocs.begin()) return nullptr;
  --it;
  const Allocation& al = it->second;
  if (a >= it->first && a < it->first + (al.size ? al.size : 1)) return &al;
  return nullptr;
}

bool is_device_pointer(const void* p) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return find_containing(p) != nullptr;
}

// Whether [p, p+n) lies inside one device buffer; fills `why` if it does not.
bool device_range_ok(const void* p, size_t n, const char* role, std::string& why) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const Allocation* al = find_containing(p);
  if (!al) {
    why = format("%s pointer %p is not a device pointer from cudaMalloc", role, p);
    return false;
  }
  size_t offset = static_cast<const char*>(p) - al->start;
  if (n > al->size - offset) {
    why = format("%s range of %zu bytes at offset %zu runs past the end of a %zu-byte device buffer", role, n,
                 offset, al->size);
    return false;
  }
  return true;
}

cudaError_t check_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, const char* api) {
  std::string why;
  bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind == cudaMemcpyDefault) {  // unified addressing: check whichever side is a device buffer
    dst_dev = is_device_pointer(dst);
    src_dev = is_device_pointer(src);
  } else if (kind != cudaMemcpyHostToHost && !dst_dev && !src_dev) {
    return fail(cudaErrorInvalidMemcpyDirection, format("%s: invalid cudaMemcpyKind %d", api, int(kind)));
  }
  if (count == 0) return cudaSuccess;
  if (dst_dev && !device_range_ok(dst, count, "destination", why))
    return fail(cudaErrorInvalidValue, format("%s: %s", api, why.c_str()));
  if (src_dev && !device_range_ok(src, count, "source", why))
    return fail(cudaErrorInvalidValue, format("%s: %s", api, why.c_str()));
  return cudaSuccess;
}
}  // namespace

FaultSite classify_fault_address(const void* addr) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto a = reinterpret_cast<uintptr_t>(addr);
  FaultSite site;
  for (const auto& [start, al] : g_allocs) {
    auto base = reinterpret_cast<uintptr_t>(al.map_base);
    if (a < base || a >= base + al.map_len) continue;
    site.found = true;
    site.buffer_size = al.size;
    if (a >= start + al.size) {
      site.past_end = true;
      site.distance = a - (start + al.size);
    } else {
      site.distance = start - a;
    }
    break;
  }
  return site;
}

bool device_allocation_of(const void* p, char** start, size_t* size) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const Allocation* al = find_containing(p);
  if (!al) return false;
  *start = al->start;
  *size = al->size;
  return true;
}

std::string check_underflow_canaries() {
  CountPause open_counted_pages;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const auto& [start, al] : g_allocs) {
    if (al.lazy && !page_touched(*al.lazy, 0)) continue;  // never touched: nothing can have written there
    for (const char* p = al.canary_begin(); p < al.start; ++p) {
      if (static_cast<unsigned char>(*p) != kCanary)
        return format("a kernel wrote %zu bytes before the start of a device buffer of %zu bytes",
                      static_cast<size_t>(al.start - p), al.size);
    }
  }
  return {};
}

void free_all_allocations() {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& [start, al] : g_allocs) release(al);
  g_allocs.clear();
}

cudaError_t memcpy_symbol(void* symbol, size_t symbol_size, void* other, size_t count, size_t offset,
                          cudaMemcpyKind kind, bool to_symbol) {
  if (cudaError_t s = sticky_error()) return s;
  const char* api = to_symbol ? "cudaMemcpyToSymbol" : "cudaMemcpyFromSymbol";
  if (offset > symbol_size || count > symbol_size - offset)
    return fail(cudaErrorInvalidValue, format("%s: %zu bytes at offset %zu do not fit in a %zu-byte symbol", api,
                                              count, offset, symbol_size));
  char* sym = static_cast<char*>(symbol) + offset;
  CountPause open_counted_pages;
  if (to_symbol) count_host_copy(other, count);
  if (to_symbol) std::memmove(sym, other, count);
  else std::memmove(other, sym, count);
  (void)kind;
  return cudaSuccess;
}

// Fills page i of r unless another worker claimed it first (then waits until that one has filled it); true where
// this call filled it.
bool fill_page_once(LazyRegion& r, size_t i) {
  const uint64_t bit = uint64_t(1) << (i % 64);
  if (r.claimed[i / 64].fetch_or(bit, std::memory_order_acq_rel) & bit) {
    while (!page_touched(r, i)) sched_yield();  // another worker is filling it
    return false;
  }
  fill_lazy_page(r, i);
  r.touched_pages.fetch_add(1, std::memory_order_relaxed);
  r.touched[i / 64].fetch_or(bit, std::memory_order_release);
  return true;
}

// A page opened alone splits its region's mapping in three. A launch that fills a large buffer's pages in a scattered
// order (a grid-stride loop over a small grid walks every row of a 256 MiB buffer at once) reaches the kernel's limit
// of mappings (vm.max_map_count, 65530 by default), and mprotect then fails: the access would fault again, forever.
// There the region is filled whole and opened as one mapping, and a count that kept pages of it closed stops.
void open_lazy_page(LazyRegion& r, uintptr_t page, uintptr_t page_size) {
  if (mprotect(reinterpret_cast<void*>(page), page_size, PROT_READ | PROT_WRITE) == 0) return;
  stop_count_at_mapping_limit();
  const size_t pages = (r.hi - r.lo) / page_size;
  for (size_t i = 0; i < pages; ++i)
    if (!page_touched(r, i)) fill_page_once(r, i);
  mprotect(reinterpret_cast<void*>(r.lo), r.hi - r.lo, PROT_READ | PROT_WRITE);
}

bool lazy_fault(const void* addr) {
  const auto a = reinterpret_cast<uintptr_t>(addr);
  LazyRegion* r = lazy_region_at(a);
  if (!r) return false;
  const uintptr_t page_size = Allocation::page();
  const size_t i = (a - r->lo) / page_size;
  const uintptr_t page = r->lo + i * page_size;
  if (!page_touched(*r, i)) {
    // Filled before it is opened: a worker waiting on it then faults once more, and opens it (below).
    if (fill_page_once(*r, i) && !count_protects(page)) open_lazy_page(*r, page, page_size);
    return true;
  }
  // Filled already. A count keeps it closed: an access to count. Otherwise it was opened while this access
  // was on its way to the handler (another worker filled it): retry.
  if (count_protects(page)) return false;
  open_lazy_page(*r, page, page_size);
  return true;
}

void open_device_pages(uintptr_t lo, uintptr_t hi) {
  LazyRegion* r = lazy_region_at(lo);
  const uintptr_t page_size = Allocation::page();
  if (!r) {
    mprotect(reinterpret_cast<void*>(lo), hi - lo, PROT_READ | PROT_WRITE);
    return;
  }
  // Runs of filled pages.
  size_t i = (lo - r->lo) / page_size;
  const size_t end = (hi - r->lo) / page_size;
  while (i < end) {
    const uint64_t word = r->touched[i / 64].load(std::memory_order_acquire);
    if (word == 0 && i % 64 == 0) {
      i += 64;
      continue;
    }
    if (!(word & (uint64_t(1) << (i % 64)))) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < end && page_touched(*r, j)) ++j;
    mprotect(reinterpret_cast<void*>(r->lo + i * page_size), (j - i) * page_size, PROT_READ | PROT_WRITE);
    i = j;
  }
}

cudaError_t malloc_lazy(void** devPtr, size_t size, LazyFiller fill) {
  if (cudaError_t s = sticky_error()) return s;
  if (!devPtr) return fail(cudaErrorInvalidValue, "malloc_lazy: devPtr is null");
  if (size == 0) {
    *devPtr = nullptr;
    return cudaSuccess;
  }
  const size_t page = Allocation::page();
  if (size > SIZE_MAX / 4)
    return fail(cudaErrorMemoryAllocation, format("malloc_lazy: %zu bytes (a size computed from a negative number?)", size));
  prepare_thread_for_kernels();  // the fault handler that fills pages
  const size_t data_pages = (size + page - 1) / page;
  const size_t len = (data_pages + 2) * page;
  auto region = std::make_unique<LazyRegion>();
  region->fd = memfd_create("gpulab-lazy-device-buffer", MFD_CLOEXEC);
  if (region->fd < 0 || ftruncate(region->fd, static_cast<off_t>(data_pages * page)) != 0) {
    if (region->fd >= 0) close(region->fd);
    return fail(cudaErrorMemoryAllocation, format("malloc_lazy: cannot create a memfd of %zu bytes", size));
  }
  void* m = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  char* base = static_cast<char*>(m);
  if (m == MAP_FAILED ||
      mmap(base + page, data_pages * page, PROT_NONE, MAP_PRIVATE | MAP_FIXED, region->fd, 0) == MAP_FAILED) {
    if (m != MAP_FAILED) munmap(m, len);
    close(region->fd);
    return fail(cudaErrorMemoryAllocation, format("malloc_lazy: cannot map %zu bytes", size));
  }
  Allocation al{base, len, base + len - page - size, size};
  region->lo = reinterpret_cast<uintptr_t>(base + page);
  region->hi = region->lo + data_pages * page;
  region->start = al.start;
  region->size = size;
  region->fill = std::move(fill);
  const size_t words = (data_pages + 63) / 64;
  region->claimed.reset(new std::atomic<uint64_t>[words]);
  region->touched.reset(new std::atomic<uint64_t>[words]);
  for (size_t w = 0; w < words; ++w) {
    region->claimed[w].store(0, std::memory_order_relaxed);
    region->touched[w].store(0, std::memory_order_relaxed);
  }
  al.lazy = region.get();
  bool registered = false;
  for (auto& slot : g_lazy) {
    LazyRegion* expected = nullptr;
    if (slot.compare_exchange_strong(expected, al.lazy)) {
      registered = true;
      break;
    }
  }
  if (!registered) {
    munmap(m, len);
    close(region->fd);
    return fail(cudaErrorMemoryAllocation,
                format("malloc_lazy: more than %d lazy buffers at once (free some with cudaFree)", kMaxLazy));
  }
  g_lazy_live.fetch_add(1);
  region.release();
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_allocs.emplace(reinterpret_cast<uintptr_t>(al.start), al);
  }
  *devPtr = al.start;
  return cudaSuccess;
}

bool lazy_usage(const void* p, LazyUsage* usage) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const Allocation* al = find_containing(p);
  if (!al || !al->lazy) return false;
  if (usage) {
    usage->size = al->size;
    usage->touched_pages = al->lazy->touched_pages.load();
    usage->touched_bytes = usage->touched_pages * Allocation::page();
  }
  return true;
}
size_t host_memory_bytes() {
  return static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * Allocation::page();
}

size_t device_bytes_in_use() {
  // Each buffer rounded up to 512 bytes, as the CUDA allocator places small ones, and the sum to the 2 MiB pages it
  // maps device memory in: close to what a GPU's free memory loses (its allocator's pools differ in detail).
  constexpr size_t kAlign = 512, kPage2M = size_t(2) << 20;
  size_t bytes = 0;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const auto& [start, al] : g_allocs) bytes += (al.size + kAlign - 1) / kAlign * kAlign;
  return (bytes + kPage2M - 1) / kPage2M * kPage2M;
}
}  // namespace gpulab::cpu

using namespace gpulab::cpu;

extern "C" cudaError_t cudaMalloc(void** devPtr, size_t size) {
  if (cudaError_t s = sticky_error()) return s;
  if (!devPtr) return fail(cudaErrorInvalidValue, "cudaMalloc: devPtr is null");
  if (size == 0) {
    *devPtr = nullptr;
    return cudaSuccess;
  }
  const size_t page = Allocation::page();
  // The GPU refuses more than its free memory; this runtime also refuses more than this machine's memory, which
  // holds its buffers (a difference README.md lists). Also the answer for a size computed from a negative number
  // (size_t(-4)), whose page count would overflow.
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  if (size > free_bytes || size > SIZE_MAX - 3 * page)
    return fail(cudaErrorMemoryAllocation,
                format("cudaMalloc: %zu bytes requested, more than the device's %zu free bytes%s", size, free_bytes,
                       size > SIZE_MAX / 2 ? " (a size computed from a negative number?)" : ""));
  if (size > host_memory_bytes())
    return fail(cudaErrorMemoryAllocation,
                format("cudaMalloc: %zu bytes requested, more than this machine's %zu bytes of memory, which holds "
                       "CPU execution mode's device buffers",
                       size, host_memory_bytes()));
  const size_t data_pages = (size + page - 1) / page;
  const size_t len = (data_pages + 2) * page;
  void* m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return fail(cudaErrorMemoryAllocation, format("cudaMalloc: cannot map %zu bytes", size));
  char* base = static_cast<char*>(m);
  mprotect(base, page, PROT_NONE);
  mprotect(base + len - page, page, PROT_NONE);
  Allocation al{base, len, base + len - page - size, size};
  std::memset(al.canary_begin(), kCanary, static_cast<size_t>(al.start - al.canary_begin()));
  fill_fresh(al.start, size);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_allocs.emplace(reinterpret_cast<uintptr_t>(al.start), al);
  }
  *devPtr = al.start;
  return cudaSuccess;
}

extern "C" cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int) { return cudaMalloc(devPtr, size); }

extern "C" cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return fail(cudaErrorInvalidValue, "cudaMallocPitch: pitch is null");
  if (width > SIZE_MAX / 2 || (height && gpu_answers().pitch_for(width) > SIZE_MAX / height))
    return fail(cudaErrorMemoryAllocation,
                format("cudaMallocPitch: %zu x %zu bytes is more than any device has", width, height));
  *pitch = gpu_answers().pitch_for(width);  // the GPU's row alignment (512 bytes on an H100)
  return cudaMalloc(devPtr, *pitch * height);
}

extern "C" cudaError_t cudaFree(void* devPtr) {
  if (cudaError_t s = sticky_error()) return s;
  if (!devPtr) return cudaSuccess;
  Allocation al;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_allocs.find(reinterpret_cast<uintptr_t>(devPtr));
    if (it == g_allocs.end())
      return fail(cudaErrorInvalidValue, format("cudaFree: %p is not the start of a live device buffer", devPtr));
    al = it->second;
    g_allocs.erase(it);
  }
  release(al);
  return cudaSuccess;
}

extern "C" cudaError_t cudaMallocHost(void** ptr, size_t size) {
  if (cudaError_t s = sticky_error()) return s;
  *ptr = std::aligned_alloc(256, (size + 255) / 256 * 256 + 256);
  return *ptr ? cudaSuccess : fail(cudaErrorMemoryAllocation, "cudaMallocHost failed");
}
extern "C" cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int) { return cudaMallocHost(ptr, size); }
extern "C" cudaError_t cudaFreeHost(void* ptr) {
  std::free(ptr);
  return sticky_error();
}

extern "C" cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  if (cudaError_t s = sticky_error()) return s;
  if (!free_bytes || !total) return fail(cudaErrorInvalidValue, "cudaMemGetInfo: free or total is null");
  // The GPU's: its memory, less what its context takes and what the live buffers hold.
  const GpuAnswers& gpu = gpu_answers();
  const size_t used = gpu.context_bytes + device_bytes_in_use();
  *total = gpu.mem_total;
  *free_bytes = used < gpu.mem_total ? gpu.mem_total - used : 0;
  return cudaSuccess;
}

extern "C" cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  if (dry_run()) return cudaSuccess;  // launch_observer.h: the grader only asks for launch geometry
  if (cudaError_t s = sticky_error()) return s;
  if (cudaError_t e = check_copy(dst, src, count, kind, "cudaMemcpy")) return e;
  CountPause open_counted_pages;
  count_host_copy(src, count);
  if (count) std::memmove(dst, src, count);
  return cudaSuccess;
}

extern "C" cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, count, kind);
}

extern "C" cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                    size_t height, cudaMemcpyKind kind) {
  if (dry_run()) return cudaSuccess;
  if (cudaError_t s = sticky_error()) return s;
  if (width > dpitch || width > spitch)
    return fail(cudaErrorInvalidPitchValue, "cudaMemcpy2D: width exceeds a pitch");
  if (height == 0 || width == 0) return cudaSuccess;
  size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
  if (cudaError_t e = check_copy(dst, src, 0, kind, "cudaMemcpy2D")) return e;
  std::string why;
  bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (dst_dev && !device_range_ok(dst, dspan, "destination", why)) return fail(cudaErrorInvalidValue, "cudaMemcpy2D: " + why);
  if (src_dev && !device_range_ok(src, sspan, "source", why)) return fail(cudaErrorInvalidValue, "cudaMemcpy2D: " + why);
  CountPause open_counted_pages;
  for (size_t r = 0; r < height; ++r) count_host_copy(static_cast<const char*>(src) + r * spitch, width);
  for (size_t r = 0; r < height; ++r)
    std::memmove(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width);
  return cudaSuccess;
}

extern "C" cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  if (dry_run()) return cudaSuccess;
  if (cudaError_t s = sticky_error()) return s;
  if (count == 0) return cudaSuccess;
  std::string why;
  if (!device_range_ok(devPtr, count, "cudaMemset", why)) return fail(cudaErrorInvalidValue, why);
  CountPause open_counted_pages;
  std::memset(devPtr, value, count);
  return cudaSuccess;
}

extern "C" cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t) {
  return cudaMemset(devPtr, value, count);
}
