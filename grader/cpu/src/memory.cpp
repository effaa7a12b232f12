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
#include <sys/mman.h>
#include <unistd.h>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include "internal.h"
#include "gpulab_cpu/launch_observer.h"

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

struct Allocation {
  char* map_base;
  size_t map_len;
  char* start;
  size_t size;
  char* canary_begin() const { return map_base + page(); }
  static size_t page() {
    static const size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return p;
  }
};

std::mutex g_mutex;
std::map<uintptr_t, Allocation> g_allocs;  // keyed by buffer start

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
  for (auto& [start, al] : g_allocs) {
    count_buffer_released(al.map_base, al.map_len);
    munmap(al.map_base, al.map_len);
  }
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
  // A GPU refuses more than its memory; so does this "device" (its memory is the machine's RAM). Also the
  // answer for a size computed from a negative number (size_t(-4)), whose page count would overflow.
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  if (size > total || size > SIZE_MAX - 3 * page)
    return fail(cudaErrorMemoryAllocation,
                format("cudaMalloc: %zu bytes requested, more than the device's %zu bytes%s", size, total,
                       size > SIZE_MAX / 2 ? " (a size computed from a negative number?)" : ""));
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
  if (width > SIZE_MAX / 2 || (height && (width + 255) / 256 * 256 > SIZE_MAX / height))
    return fail(cudaErrorMemoryAllocation,
                format("cudaMallocPitch: %zu x %zu bytes is more than any device has", width, height));
  *pitch = (width + 255) / 256 * 256;  // row starts 256-byte aligned relative to the buffer, as on a GPU
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
  count_buffer_released(al.map_base, al.map_len);
  munmap(al.map_base, al.map_len);
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
  size_t pages = static_cast<size_t>(sysconf(_SC_PHYS_PAGES)), avail = static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES));
  *total = pages * Allocation::page();
  *free_bytes = avail * Allocation::page();
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
