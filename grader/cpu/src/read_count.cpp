// Counting accesses to ranges of device buffers (see include/gpulab_cpu/read_count.h).
//
// While a count runs, the pages that hold the counted ranges are PROT_NONE. An access to them faults; the
// SIGSEGV handler (fault.cpp calls count_fault() after lazy_fault()) decodes the faulting instruction
// (access_decode.cpp: the address, size and direction of each memory operand), adds the bytes of each operand
// that fall inside each range to that range's counts (and to the running block's), makes the page accessible,
// and sets the trap flag so that the instruction runs once more and then raises SIGTRAP; the SIGTRAP handler
// puts the protection back and clears the flag. An instruction whose access spans two protected pages faults
// on the second one with the same instruction pointer: that page is opened too and the access is not counted
// twice. Runtime copies (cudaMemcpy*, cudaMemset, the canary check) open the pages for their duration instead
// (CountPause), so they do not single-step through a whole buffer; what they copy out of a range is counted
// apart (host_bytes_read).
//
// A count with a BlockSample also decides which blocks each launch runs (count_launch_begins, called by the
// executor), and records every launch and the blocks that ran with what each did.
#include "gpulab_cpu/read_count.h"

#include <sys/mman.h>
#include <unistd.h>
#include <algorithm>
#include <csignal>
#include <cstring>
#include <mutex>
#include <new>
#include <ucontext.h>
#include <unordered_map>
#include "access_decode.h"
#include "worker.h"

namespace gpulab::cpu {
namespace {
#if defined(__x86_64__) && defined(__linux__)
constexpr bool kSupported = true;
#else
constexpr bool kSupported = false;
#endif

const uintptr_t kPageSize = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));

struct Span {
  uintptr_t lo, hi;
};

// The one count in progress. Written by the counting thread; read by the signal handlers, which run on the
// same thread (the grid runs there) or, for a stray access, on another. The vectors do not change while the
// count is active, except the launch records, which only the counting thread touches between blocks.
struct CountState {
  volatile sig_atomic_t active = 0;
  volatile sig_atomic_t paused = 0;  // a runtime copy has the pages open
  std::vector<Span> prot;            // protected pages: sorted, disjoint, each inside one buffer
  std::vector<Span> ranges;          // counted ranges, in the caller's order
  // Per range: how far its cudaMalloc buffer's start is past a 256-byte boundary. A GPU's cudaMalloc returns
  // 256-byte aligned memory; this mode places a buffer flush against its trailing guard page (memory.cpp), so its
  // start has only the alignment of its size (16 bytes for 8194 x 8194 floats). Sectors are counted at the
  // addresses the GPU would use (address - shift), or every warp request of a row misaligned unlike the GPU's
  // would touch other sectors (lab 02's cooperative tile load: 71% sector use here, 85% on an H200).
  std::vector<uintptr_t> sector_shift;
  std::vector<RangeCount> totals;    // per range
  RangeCount* block = nullptr;       // the running block's counts, one per range (null: not recorded)
  unsigned long long undecoded = 0;
  // Pages opened for the instruction being single-stepped, and that instruction's address.
  uintptr_t step_pages[4] = {};
  int nstep = 0;
  uintptr_t step_ip = 0;
  bool freed = false;  // a buffer was freed during the count
  unsigned long long faults = 0;  // counted accesses (global and shared), each one a fault and a single step
  unsigned long long max_faults = kMaxCountedAccesses;
  const char* stopped = nullptr;  // why the count stopped early (ceiling, memory, mappings), or null
  bool in_work = false;           // the counted work is running (counting or stopped)
  bool sampling = false;
  BlockSample sample;
  std::vector<LaunchBlocks> launches;
  LaunchBlocks* launch = nullptr;  // the running launch's record
  unsigned long long blocks_run = 0;
  unsigned long long block_global = 0;  // global accesses counted in the running block (BlockSample::block_accesses)
  unsigned long long blocks_cut = 0;
  // Shared memory (CountOptions::shared): its pages are in `prot` too, and listed here to tell them apart.
  bool count_shared = false;
  std::vector<Span> shared;           // sorted
  unsigned long long shared_budget = 0, shared_left = 0;  // faults per block, and what is left of them
  unsigned long long shared_per_class = 0;                // CountOptions::shared_blocks_per_class
  double shared_least_share = 0;                          // CountOptions::shared_least_class_share
  unsigned long long class_blocks[27] = {};               // the running launch's shared-counted blocks per class
  bool shared_open = false;           // the block spent its budget: its shared pages stay open until it ends
  // The block spent its budget in the middle of a phase: counting goes on to the phase's end (count_phase_ends), so
  // that its warps' requests are whole, at most kSharedPhaseFaults budgets more (a block with no barrier).
  bool shared_spent = false;
  unsigned long long shared_over = 0;
  // The block's shared count ended inside a phase (no barrier came within kSharedPhaseFaults budgets): its requests in
  // flight kept only the lanes that ran, so its requests' lanes are not judged. Ended at a barrier, they are whole.
  bool shared_cut_in_phase = false;
  SharedCount shared_totals;
  std::unordered_map<uintptr_t, InstructionCount> by_ip;  // AccessCount::instructions, as they are folded
};
// After a block spent its shared budget, the most shared accesses it counts before its phase ends, in budgets: a block
// with no barrier after that point has its shared pages opened there.
constexpr unsigned long long kSharedPhaseFaults = 4;
CountState g;
std::mutex g_count_mutex;  // one count at a time

// The threads warp `warp` of the running launch's blocks has: 32, or fewer in the last warp of a block whose
// thread count is no multiple of 32 (those missing lanes are not idle: they do not exist).
uint32_t live_lanes(uint32_t warp) {
  if (!g.launch) return 32;
  const dim3 b = g.launch->block;
  const unsigned long long threads = 1ull * b.x * b.y * b.z, first = 32ull * warp;
  return threads <= first ? 0 : uint32_t(std::min<unsigned long long>(32, threads - first));
}

// ---- warp requests: the accesses of one instruction by one warp's lanes, the n-th time each lane runs it ----
struct RequestKey {
  uintptr_t ip;
  uint32_t warp, nth;
  bool operator==(const RequestKey& o) const { return ip == o.ip && warp == o.warp && nth == o.nth; }
};
struct RequestKeyHash {
  size_t operator()(const RequestKey& k) const {
    uint64_t h = k.ip * 0x9E3779B97F4A7C15ull ^ (uint64_t(k.warp) << 32 | k.nth);
    return size_t(h ^ (h >> 29));
  }
};
struct LaneBytes {
  uint64_t lo, hi;  // a lane's access, at the address a GPU's buffer would give it (sector_shift)
};
struct Request {
  std::vector<LaneBytes> lanes[2];  // per direction (0 load, 1 store): each lane's access
  std::vector<uint32_t> ranges;     // the counted ranges it touched
  uintptr_t ip = 0;                 // the instruction (the key's ip is mixed with its range and direction)
};
// The running block's requests, folded into the ranges' totals when the block ends. Grown inside the SIGSEGV
// handler: the faulting instruction is a CUDA thread's device access, never inside the allocator.
struct BlockRequests {
  std::unordered_map<uint64_t, uint32_t> times;  // (lane's thread, ip) -> executions so far
  std::unordered_map<RequestKey, Request, RequestKeyHash> requests;
} g_requests;

void note_request(uintptr_t ip, size_t range, const uintptr_t lo, const uintptr_t hi, int dir) {
  const uint3 t = gpulab_cpu_tls.thread_idx, b = gpulab_cpu_tls.block_dim;
  const uint32_t linear = t.x + b.x * (t.y + b.y * t.z);
  // One key per (thread, instruction, range, direction): a lane's n-th execution of an instruction is its n-th
  // access through it to that range.
  const uint64_t lane_key = (uint64_t(ip) << 16) ^ (uint64_t(linear) << 3) ^ (uint64_t(range) << 1) ^ uint64_t(dir);
  const uint32_t nth = g_requests.times[lane_key]++;
  Request& r = g_requests.requests[RequestKey{ip ^ (uintptr_t(range) << 1) ^ uintptr_t(dir), linear / 32, nth}];
  r.ip = ip;
  const uintptr_t shift = g.sector_shift[range];
  r.lanes[dir].push_back(LaneBytes{lo - shift, hi - shift});
  if (std::find(r.ranges.begin(), r.ranges.end(), uint32_t(range)) == r.ranges.end()) r.ranges.push_back(uint32_t(range));
}

// The element size nvcc would have loaded or stored, from one instruction's accesses by all lanes of a warp. g++
// merges neighbouring narrow accesses (a pixel's three channel bytes copied as a 2-byte and a 1-byte access), where
// nvcc issues one LDG.U8 per byte: each its own request, over its own sectors. An access aligned to its width in
// every lane is one element (a float, a double, a float4: one request, as LDG.32/64/128); otherwise it was merged,
// and its elements are the widest power of two to which every lane's access is aligned. Decided for the whole warp
// request, never from one lane's address (which differs between the lanes of one instruction). Lab 03's tile load
// read 22% load sector use here and 14% on an H200 before. Shared-memory requests are decided per warp request too
// (fold_shared_requests), by the words each bank serves rather than sectors.
uint64_t element_bytes(const std::vector<LaneBytes>& lanes) {
  uint64_t width = 0;
  for (const LaneBytes& l : lanes) width = std::max(width, l.hi - l.lo);
  auto every_lane_aligned = [&](uint64_t p) {
    for (const LaneBytes& l : lanes)
      if (l.lo % p != 0 || (l.hi - l.lo) % p != 0) return false;
    return true;
  };
  if ((width & (width - 1)) == 0 && every_lane_aligned(width)) return width;
  uint64_t piece = 1;
  for (uint64_t p = 2; p < width; p *= 2)
    if (width % p == 0 && every_lane_aligned(p)) piece = p;
  return piece;
}

// Adds the finished block's requests to each range's totals (and the block's own counts).
void fold_requests() {
  std::vector<uint64_t> sectors;
  for (auto& [key, r] : g_requests.requests) {
    const uint32_t live = live_lanes(key.warp);
    for (int dir = 0; dir < 2; ++dir) {
      const std::vector<LaneBytes>& lanes = r.lanes[dir];
      if (lanes.empty()) continue;
      const uint64_t piece = element_bytes(lanes);
      uint64_t pieces = 0;
      for (const LaneBytes& l : lanes) pieces = std::max(pieces, (l.hi - l.lo + piece - 1) / piece);
      // One request per element of the merged access: the j-th element of every lane.
      for (uint64_t j = 0; j < pieces; ++j) {
        sectors.clear();
        uint32_t active = 0;
        for (const LaneBytes& l : lanes) {
          const uint64_t lo = l.lo + j * piece, hi = std::min(l.hi, lo + piece);
          if (lo >= hi) continue;
          ++active;
          for (uint64_t s = lo >> 5; s <= (hi - 1) >> 5; ++s) sectors.push_back(s);
        }
        std::sort(sectors.begin(), sectors.end());
        const auto distinct = static_cast<unsigned long long>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
        InstructionCount& at = g.by_ip[r.ip];
        (dir ? at.store_requests : at.load_requests) += 1;
        (dir ? at.store_sectors : at.load_sectors) += distinct;
        (dir ? at.store_lanes : at.load_lanes) += active;
        at.idle_requests += active < live;
        for (uint32_t range : r.ranges) {
          for (RangeCount* c : {&g.totals[range], g.block ? &g.block[range] : nullptr}) {
            if (!c) continue;
            (dir ? c->store_requests : c->load_requests) += 1;
            (dir ? c->store_sectors : c->load_sectors) += distinct;
            (dir ? c->store_lanes : c->load_lanes) += active;
            c->idle_requests += active < live;
          }
        }
      }
    }
  }
  g_requests.times.clear();
  g_requests.requests.clear();
}

bool in_shared(uintptr_t a);
void set_shared_open(bool open);

// ---- shared memory: the 4-byte words each warp request touches, and the banks (word % 32) they fall in ----
//
// The requests are nvcc's instructions, but the instructions that fault here are g++'s, and g++ -O3 emits other
// ones: it merges neighbouring byte or halfword accesses into one wider access (a pixel's 3 channel bytes
// copied by memmove as a 2-byte and a 1-byte access, the 2-byte one straddling two words where the pixel
// starts at byte 4k+2), and may vectorise (two neighbouring doubles in one movupd). nvcc issues one LDS.U8/STS.U8
// per channel byte, each a request whose lanes touch one word each, and one LDS.64 per double. The emulator does
// not know the element type of the source, only each access's width and address, so the rule is decided per
// warp request, from all its lanes' accesses (the instruction's width, and the alignment every lane has): never
// from one lane's address, which differs between lanes of one instruction (a movupd of tile[..][tx-1..tx] is
// 16-aligned in every other lane).
//  * An access of 8 bytes aligned to 8 in every lane, or 16 aligned to 16 in every lane, is a vector access
//    (double, float2, float4: nvcc's LDS.64/LDS.128): one request, served as the hardware serves it, in phases of
//    16 lanes (8-byte) or 8 lanes (16-byte), each phase in as many wavefronts as the most distinct words one bank
//    must deliver to its lanes. 32 lanes reading consecutive float4 take 4 wavefronts, the fewest for 512 bytes:
//    no conflicts.
//  * A 16-byte access aligned to 8 in every lane (and to 16 in not every lane) is two merged 8-byte elements:
//    two LDS.64 requests, bytes 0-7 and 8-15 of each lane, each served as above.
//  * Any other access is what nvcc would do as one access per byte, at its j-th byte for j = 0..width-1: the
//    j-th sub-request takes from each lane the word holding its j-th byte. Sub-requests whose words are the
//    same as an earlier one's count once: an aligned 4-byte (or narrower, inside one word) access is one
//    request, as before; a 2-byte store straddling two words is two requests of one word per lane, as nvcc's
//    two STS.U8 would be (or one STS.U16, were it aligned, inside one word). An unaligned 8-byte access
//    (two floats merged) is two requests, as nvcc's two LDS.32.
// A sub-request's (or a phase's) fewest wavefronts is one per 32 distinct words; those above it are conflicts.
struct SharedPiece {
  uint32_t part;  // the byte j of a non-vector access, or the lane's phase of a vector access
  uint64_t word;
  bool operator<(const SharedPiece& o) const { return part != o.part ? part < o.part : word < o.word; }
  bool operator==(const SharedPiece& o) const { return part == o.part && word == o.word; }
};
struct LaneAccess {
  uint32_t lane;  // in its warp, 0..31
  uintptr_t lo, hi;
};
struct SharedRequests {
  std::unordered_map<uint64_t, uint32_t> times;
  std::unordered_map<RequestKey, std::vector<LaneAccess>, RequestKeyHash> accesses[2];  // per direction
} g_shared_requests;
SharedCount* g_block_shared = nullptr;  // the running block's shared counts (null: not recorded)

void note_shared_request(uintptr_t ip, uintptr_t lo, uintptr_t hi, int dir) {
  const uint3 t = gpulab_cpu_tls.thread_idx, b = gpulab_cpu_tls.block_dim;
  const uint32_t linear = t.x + b.x * (t.y + b.y * t.z);
  const uint32_t nth = g_shared_requests.times[(uint64_t(ip) << 12) ^ (uint64_t(linear) << 1) ^ uint64_t(dir)]++;
  g_shared_requests.accesses[dir][RequestKey{ip, linear / 32, nth}].push_back(LaneAccess{linear % 32, lo, hi});
}

// The most distinct words one bank must deliver, of n sorted distinct words.
unsigned most_per_bank(const SharedPiece* p, size_t n) {
  unsigned per_bank[32] = {};
  unsigned most = 0;
  for (size_t i = 0; i < n; ++i) most = std::max(most, ++per_bank[p[i].word % 32]);
  return most;
}

// Wavefronts and their fewest of one request, its pieces grouped by part (each part a phase or a sub-request).
struct Served {
  unsigned long long wavefronts = 0, fewest = 0;
};
void sort_pieces(std::vector<SharedPiece>& pieces) {
  std::sort(pieces.begin(), pieces.end());
  pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
}

// One LDS.64/LDS.128 (STS) of `width` bytes at offset `skip` of each lane's access: phases of 128 / width lanes. A
// load's fewest wavefronts are the bytes its lanes ask for, 128 a wavefront; a store's, one per phase's 32 words.
// Fitted to what an H200 counted (its L1 counter, 2026-12-07) for the kernels whose lanes leave gaps: labs 05 and 06
// with a branch on threadIdx.x % 2 (16 lanes reading or writing every other double of a row) had 0.83 and 0.85
// conflicts per shared load, and 0.07 and 0.01 per store; each phase's own fewest gave 0.00 for the loads, the bytes
// rule 1.00 for the stores. Bytes asked, not distinct bytes: lanes that share a float4 still take their phases (lab
// 07's B^T tile, 14.00 conflicts per load on the H200, 15.50 counting distinct words). Not re-measured on a GPU since.
Served serve_vector(const std::vector<LaneAccess>& lanes, uintptr_t skip, uintptr_t width, bool load) {
  std::vector<SharedPiece> pieces;
  for (const LaneAccess& a : lanes) {
    const uint32_t phase = a.lane / uint32_t(128 / width);
    for (uint64_t w = (a.lo + skip) >> 2; w <= (a.lo + skip + width - 1) >> 2; ++w) pieces.push_back(SharedPiece{phase, w});
  }
  sort_pieces(pieces);
  Served s;
  if (load) s.fewest = (lanes.size() * width + 127) / 128;
  for (size_t i = 0; i < pieces.size();) {
    size_t e = i;
    while (e < pieces.size() && pieces[e].part == pieces[i].part) ++e;
    s.wavefronts += most_per_bank(&pieces[i], e - i);
    if (!load) s.fewest += (e - i + 31) / 32;
    i = e;
  }
  return s;
}

void fold_shared_requests() {
  // A block whose count ended inside a phase has requests that lost their later lanes: their lanes are not judged.
  // One that spent its budget and counted on to the phase's end has whole requests (a divergent coarsened stencil's
  // idle lanes are seen only so: its interior block spends the budget). A block left out by its class has none.
  const bool whole_block = !g.shared_cut_in_phase;
  uint32_t active = 0, live = 32;  // of the request being folded
  InstructionCount* at = nullptr;  // its instruction's
  auto add = [&](int dir, const Served& s) {
    (dir ? at->shared_store_requests : at->shared_load_requests) += 1;
    (dir ? at->shared_store_conflicts : at->shared_load_conflicts) += s.wavefronts - s.fewest;
    if (whole_block) at->idle_requests += active < live;
    for (SharedCount* c : {&g.shared_totals, g_block_shared}) {
      if (!c) continue;
      (dir ? c->store_requests : c->load_requests) += 1;
      (dir ? c->store_wavefronts : c->load_wavefronts) += s.wavefronts;
      (dir ? c->store_conflicts : c->load_conflicts) += s.wavefronts - s.fewest;
      if (!whole_block) continue;
      c->lane_requests += 1;
      c->lanes += active;
      c->idle_requests += active < live;
    }
  };
  for (int dir = 0; dir < 2; ++dir) {
    for (auto& [key, lanes] : g_shared_requests.accesses[dir]) {
      active = uint32_t(lanes.size());  // each lane once: its n-th run of the instruction is its own request
      live = live_lanes(key.warp);
      at = &g.by_ip[key.ip];
      // The instruction's width (one per instruction), and the alignment every lane's access has.
      uintptr_t width = 0;
      bool same_width = true, aligned_to_width = true, aligned_to_8 = true;
      for (const LaneAccess& a : lanes) {
        const uintptr_t w = a.hi - a.lo;
        same_width = same_width && (width == 0 || w == width);
        width = std::max(width, w);
        aligned_to_width = aligned_to_width && a.lo % w == 0;
        aligned_to_8 = aligned_to_8 && a.lo % 8 == 0;
      }
      if (same_width && (width == 8 || width == 16) && aligned_to_width) {
        add(dir, serve_vector(lanes, 0, width, dir == 0));
        continue;
      }
      if (same_width && width == 16 && aligned_to_8) {
        add(dir, serve_vector(lanes, 0, 8, dir == 0));
        add(dir, serve_vector(lanes, 8, 8, dir == 0));
        continue;
      }
      std::vector<SharedPiece> pieces;
      for (const LaneAccess& a : lanes)
        for (uintptr_t j = 0; j < a.hi - a.lo; ++j) pieces.push_back(SharedPiece{uint32_t(j), uint64_t((a.lo + j) >> 2)});
      sort_pieces(pieces);
      std::vector<std::pair<size_t, size_t>> counted;  // sub-requests counted: [begin, end) in pieces
      for (size_t i = 0; i < pieces.size();) {
        size_t e = i;
        while (e < pieces.size() && pieces[e].part == pieces[i].part) ++e;
        bool same = false;  // the same words as a sub-request already counted
        for (const auto& [cb, ce] : counted)
          same = same || (ce - cb == e - i && std::equal(pieces.begin() + i, pieces.begin() + e, pieces.begin() + cb,
                                                         [](const SharedPiece& x, const SharedPiece& y) {
                                                           return x.word == y.word;
                                                         }));
        if (!same) {
          counted.emplace_back(i, e);
          add(dir, Served{most_per_bank(&pieces[i], e - i), (e - i + 31) / 32});
        }
        i = e;
      }
    }
    g_shared_requests.accesses[dir].clear();
  }
  g_shared_requests.times.clear();
}

// A shared-memory access of a CUDA thread (the page is one of g.shared).
void account_shared(const MemAccess* acc, int n, uintptr_t ip) {
  bool load = false, store = false;
  unsigned long long read = 0, written = 0;
  for (int i = 0; i < n; ++i) {
    if (!in_shared(acc[i].addr)) continue;
    const uintptr_t lo = acc[i].addr, hi = acc[i].addr + acc[i].size;
    if (acc[i].read) {
      load = true;
      read += hi - lo;
      note_shared_request(ip, lo, hi, 0);
    }
    if (acc[i].write) {
      store = true;
      written += hi - lo;
      note_shared_request(ip, lo, hi, 1);
    }
  }
  const bool capped = g.shared_left > 0 && --g.shared_left == 0;
  for (SharedCount* c : {&g.shared_totals, g_block_shared}) {
    if (!c) continue;
    c->bytes_read += read;
    c->bytes_written += written;
    c->loads += load;
    c->stores += store;
    c->blocks_capped += capped;
  }
  // The budget spent: the block's shared pages open at the end of this phase (count_phase_ends). Opened at once, the
  // requests in flight would keep only the lanes that ran so far, in the random order a phase runs its threads: 3 of
  // a warp's 32 lanes reading a tile's column have 2 bank conflicts where the warp has 31.
  if (capped) g.shared_spent = true;
  if (g.shared_spent && !capped && ++g.shared_over >= kSharedPhaseFaults * g.shared_budget) {
    set_shared_open(true);
    g.shared_cut_in_phase = true;
  }
}

// A static __shared__ slot mapped during the count (shared_arena.cpp, before anything is written to it).
void on_shared_layout(const SharedMemoryRegion& region) {
  if (!g.active || !g.count_shared) return;
  const auto lo = reinterpret_cast<uintptr_t>(region.begin);
  const Span span{lo, lo + region.bytes};
  g.shared.insert(std::upper_bound(g.shared.begin(), g.shared.end(), span,
                                   [](const Span& a, const Span& b) { return a.lo < b.lo; }),
                  span);
  g.prot.insert(std::upper_bound(g.prot.begin(), g.prot.end(), span,
                                 [](const Span& a, const Span& b) { return a.lo < b.lo; }),
                span);
  if (!g.paused && !g.shared_open) mprotect(region.begin, region.bytes, PROT_NONE);
}
struct sigaction g_old_trap;

bool in_prot(uintptr_t a) {
  // Binary search for the last span starting at or below a.
  const Span* s = g.prot.data();
  size_t lo = 0, hi = g.prot.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (s[mid].lo <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && a < s[lo - 1].hi;
}

bool in_shared(uintptr_t a) {
  for (const Span& s : g.shared)
    if (a >= s.lo && a < s.hi) return true;
  return false;
}

void protect_all() {
  for (const Span& s : g.prot)
    if (!(g.shared_open && in_shared(s.lo))) mprotect(reinterpret_cast<void*>(s.lo), s.hi - s.lo, PROT_NONE);
}

void set_shared_open(bool open) {
  g.shared_open = open;
  for (const Span& s : g.shared)
    mprotect(reinterpret_cast<void*>(s.lo), s.hi - s.lo, open ? PROT_READ | PROT_WRITE : PROT_NONE);
}
void open_all() {
  for (const Span& s : g.prot) open_device_pages(s.lo, s.hi);
}

void reprotect_step_pages() {
  for (int i = 0; i < g.nstep; ++i)
    if (g.active && !g.paused && !(g.shared_open && in_shared(g.step_pages[i])))
      mprotect(reinterpret_cast<void*>(g.step_pages[i]), kPageSize, PROT_NONE);
  g.nstep = 0;
}

// Adds what the instruction at the context's RIP does to the counted ranges (a CUDA thread's access that
// faulted at `fault`).
void account(void* uctx, uintptr_t fault, bool fault_write, uintptr_t ip) {
  MemAccess acc[4];
  int n = decode_accesses(uctx, fault, fault_write, acc, 4);
  bool sane = false;
  for (int i = 0; i < n; ++i) sane |= fault >= acc[i].addr && fault - acc[i].addr < acc[i].size;
  if (!sane) {  // not decoded (or decoded wrong): one byte at the faulting address, in the fault's direction
    ++g.undecoded;
    n = 1;
    acc[0] = MemAccess{fault, 1, !fault_write, fault_write};
  }
  if (in_shared(fault)) {
    account_shared(acc, n, ip);
    return;
  }
  const size_t nr = g.ranges.size();
  for (size_t r = 0; r < nr; ++r) {
    const Span& range = g.ranges[r];
    unsigned long long rd = 0, wr = 0;
    bool load = false, store = false;
    for (int i = 0; i < n; ++i) {
      const uintptr_t lo = std::max(acc[i].addr, range.lo), hi = std::min(acc[i].addr + acc[i].size, range.hi);
      if (hi <= lo) continue;
      if (acc[i].read) {
        load = true;
        rd += hi - lo;
        note_request(ip, r, lo, hi, 0);
      }
      if (acc[i].write) {
        store = true;
        wr += hi - lo;
        note_request(ip, r, lo, hi, 1);
      }
    }
    if (!load && !store) continue;
    ++g.block_global;
    for (RangeCount* c : {&g.totals[r], g.block ? &g.block[r] : nullptr}) {
      if (!c) continue;
      c->loads += load;
      c->stores += store;
      c->bytes_read += rd;
      c->bytes_written += wr;
    }
  }
}

#if defined(__x86_64__) && defined(__linux__)
constexpr greg_t kTrapFlag = 0x100;

void on_trap(int sig, siginfo_t* info, void* uctx) {
  auto* uc = static_cast<ucontext_t*>(uctx);
  if (g.nstep > 0) {
    reprotect_step_pages();
    uc->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
    return;
  }
  // Not ours (a debugger's breakpoint, or int3): what was there before.
  if (g_old_trap.sa_flags & SA_SIGINFO) {
    if (g_old_trap.sa_sigaction) g_old_trap.sa_sigaction(sig, info, uctx);
    return;
  }
  if (g_old_trap.sa_handler == SIG_IGN) return;
  if (g_old_trap.sa_handler != SIG_DFL && g_old_trap.sa_handler) {
    g_old_trap.sa_handler(sig);
    return;
  }
  signal(SIGTRAP, SIG_DFL);
  raise(SIGTRAP);
}

void install_trap_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTRAP, &sa, &g_old_trap);
  });
}
#endif

// Ends the count where it is (the figures so far stand; AccessCount::why gives `why`): every page it kept closed is
// opened, and the instruction that faulted runs again uncounted.
void stop_count(const char* why) {
  if (!g.stopped) g.stopped = why;
  g.active = 0;
  g.nstep = 0;
  if (!g.paused) open_all();
}

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

bool count_fault(siginfo_t* info, void* uctx) {
#if defined(__x86_64__) && defined(__linux__)
  if (!g.active) return false;
  const auto a = reinterpret_cast<uintptr_t>(info->si_addr);
  if (!in_prot(a)) return false;
  auto* uc = static_cast<ucontext_t*>(uctx);
  const auto ip = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  const uintptr_t page = a & ~(kPageSize - 1);
  if (g.nstep > 0 && ip == g.step_ip && g.nstep < 4) {
    // The same instruction again: its access spans another protected page. Open it too; counted already.
    g.step_pages[g.nstep++] = page;
  } else {
    reprotect_step_pages();  // a step that never trapped (its kernel faulted elsewhere and was abandoned)
    Worker* w = this_worker_if_any();
    if (w && w->in_block) {
      // The records grow inside this handler: a launch past the ceiling, or out of memory, stops the count here.
      const char* stop = nullptr;
      if (g.faults >= g.max_faults) {
        stop = "reached its ceiling";
      } else {
        try {
          account(uctx, a, uc->uc_mcontext.gregs[REG_ERR] & 2, ip);
          ++g.faults;
        } catch (const std::bad_alloc&) {
          stop = "ran out of memory";
        }
      }
      if (stop) {
        stop_count(stop);
        return true;  // the instruction runs again on the opened page, uncounted
      }
    }
    g.step_pages[0] = page;
    g.nstep = 1;
    g.step_ip = ip;
  }
  mprotect(reinterpret_cast<void*>(page), kPageSize, PROT_READ | PROT_WRITE);
  uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
  return true;
#else
  (void)info;
  (void)uctx;
  return false;
#endif
}

void stop_count_at_mapping_limit() {
  if (g.active) stop_count("ran into the operating system's limit of memory mappings (vm.max_map_count)");
}

bool counting_reads() { return g.active; }

bool count_protects(uintptr_t page) { return g.active && !g.paused && in_prot(page); }

CountPause::CountPause() {
  if (!g.active || g.paused) return;
  g.paused = 1;
  open_all();
  paused_ = true;
}

CountPause::~CountPause() {
  if (!paused_) return;
  g.paused = 0;
  if (g.active) protect_all();
}

void count_host_copy(const void* src, size_t n) {
  if (!g.active || n == 0) return;
  const auto s = reinterpret_cast<uintptr_t>(src);
  for (size_t r = 0; r < g.ranges.size(); ++r) {
    const uintptr_t lo = std::max(s, g.ranges[r].lo), hi = std::min(s + n, g.ranges[r].hi);
    if (hi > lo) g.totals[r].host_bytes_read += hi - lo;
  }
}

void count_buffer_released(const void* map_base, size_t map_len) {
  if (!g.active) return;
  const auto b = reinterpret_cast<uintptr_t>(map_base);
  bool hit = false;
  for (const Span& s : g.prot) hit |= b < s.hi && s.lo < b + map_len;
  if (!hit) return;
  // Its pages are gone: the count stops, and the other buffers' pages are opened now.
  g.active = 0;
  g.freed = true;
  g.nstep = 0;
  if (!g.paused)
    for (const Span& s : g.prot)
      if (!(b < s.hi && s.lo < b + map_len)) open_device_pages(s.lo, s.hi);
}

bool count_launch_begins(const LaunchSite& site, dim3 grid, dim3 block, std::vector<unsigned long long>& sample) {
  sample.clear();
  // A sampled count's work (whose output nobody reads) runs no block of a launch it will not count: once the count
  // stopped early, past kMaxSampledLaunches launches, or where the launch repeats the kernel and shape of one
  // counted already, past kRepeatsCounted launches that ran a launch's sample of blocks between them: the launches
  // counted stand for the rest. A call of 447 launches, one per plane, ran every later launch whole on the CPU, and
  // Report.AccessAnalysis timed out; counted to the ceiling, 6 s a count. A call of different kernels, or of two
  // passes of one (a separable blur), is counted whole as before.
  const auto repeats = [&] {
    for (const LaunchBlocks& l : g.launches)
      if (l.kernel == (site.kernel ? site.kernel : "") && l.grid.x == grid.x && l.grid.y == grid.y &&
          l.grid.z == grid.z && l.block.x == block.x && l.block.y == block.y && l.block.z == block.z)
        return true;
    return false;
  };
  if (g.in_work && g.sampling &&
      (g.stopped || g.launches.size() >= kMaxSampledLaunches ||
       (g.launches.size() >= kRepeatsCounted && g.blocks_run >= g.sample.count && repeats())))
    return true;
  if (!g.active) return false;
  LaunchBlocks rec;
  rec.kernel = site.kernel ? site.kernel : "";
  rec.grid = grid;
  rec.block = block;
  rec.grid_blocks = 1ull * grid.x * grid.y * grid.z;
  rec.range_count = g.ranges.size();
  unsigned long long to_run = rec.grid_blocks;
  if (g.sampling && rec.grid_blocks > g.sample.count) {
    sample = sample_blocks(grid, g.sample);
    rec.sampled = true;
    to_run = sample.size();
  }
  if (to_run <= kMaxRecordedBlocks || rec.sampled) {
    rec.blocks.reserve(to_run);
    rec.block_counts.reserve(to_run * rec.range_count);
    if (g.count_shared) rec.block_shared.reserve(to_run);
  }
  g.launches.push_back(std::move(rec));
  g.launch = &g.launches.back();
  std::fill(std::begin(g.class_blocks), std::end(g.class_blocks), 0ull);
  return false;
}

bool count_block_begins(unsigned long long linear) {
  // A sampled count that stopped early runs no further block of the launch (nobody reads its output): a block of a
  // grid-stride loop over a small grid walks thousands of cells, and the sample's other blocks ran for minutes.
  if (g.in_work && g.sampling && g.stopped) return false;
  if (!g.active || !g.launch) return true;
  fold_requests();  // the previous block's (its counts are still g.block)
  if (g.count_shared) {
    fold_shared_requests();
    g.shared_left = g.shared_budget;
    if (g.shared_open && !g.paused) set_shared_open(false);
    g.shared_open = false;
    g.shared_spent = false;
    g.shared_over = 0;
    g.shared_cut_in_phase = false;
  }
  ++g.blocks_run;
  g.block_global = 0;
  g_block_shared = nullptr;
  LaunchBlocks& l = *g.launch;
  if (!l.sampled && l.grid_blocks > kMaxRecordedBlocks) {
    g.block = nullptr;
    return true;
  }
  const dim3 gr = l.grid;
  l.blocks.push_back(uint3{static_cast<unsigned>(linear % gr.x), static_cast<unsigned>((linear / gr.x) % gr.y),
                           static_cast<unsigned>(linear / (1ull * gr.x * gr.y))});
  l.block_counts.resize(l.block_counts.size() + l.range_count);
  g.block = l.range_count ? &l.block_counts[l.block_counts.size() - l.range_count] : nullptr;
  if (g.count_shared) {
    l.block_shared.emplace_back();
    // The block's class (per dimension: first, inner, last), for shared_blocks_per_class.
    const uint3 at = l.blocks.back();
    auto cls = [](unsigned i, unsigned n) { return i == 0 ? 0 : i + 1 == n ? 2 : 1; };
    const int k = cls(at.x, gr.x) + 3 * cls(at.y, gr.y) + 9 * cls(at.z, gr.z);
    auto in_class = [](int c, unsigned n) { return c == 1 ? (n > 2 ? n - 2 : 0) : 1u; };
    const double share = double(in_class(k % 3, gr.x)) * in_class(k / 3 % 3, gr.y) * in_class(k / 9, gr.z) /
                         double(l.grid_blocks);
    if (l.sampled && g.shared_per_class &&
        (g.class_blocks[k] >= g.shared_per_class || share < g.shared_least_share)) {
      if (!g.paused) set_shared_open(true);  // this block's shared accesses are not counted
      g.shared_open = true;
      return true;
    }
    ++g.class_blocks[k];
    l.block_shared.back().counted = true;
    g_block_shared = &l.block_shared.back();
  }
  return true;
}

bool count_phase_ends() {
  if (!g.active) return false;
  if (g.shared_spent && !g.shared_open && !g.paused) set_shared_open(true);
  if (!g.sampling || !g.sample.block_accesses || g.block_global < g.sample.block_accesses) return false;
  ++g.blocks_cut;
  return true;
}

void count_launch_ends() {
  if (g.active) fold_requests();
  if (g.active && g.count_shared) fold_shared_requests();
  g.block = nullptr;
  g_block_shared = nullptr;
  g.launch = nullptr;
}

std::vector<unsigned long long> sample_blocks(dim3 grid, const BlockSample& s) {
  const unsigned long long g3[3] = {grid.x, grid.y, grid.z};
  const unsigned long long n = g3[0] * g3[1] * g3[2];
  std::vector<unsigned long long> out;
  if (n <= s.count) {
    out.resize(n);
    for (unsigned long long i = 0; i < n; ++i) out[i] = i;
    return out;
  }
  uint64_t state = s.seed ^ (g3[0] * 0x9E3779B97F4A7C15ull) ^ (g3[1] << 21) ^ (g3[2] << 42);
  auto below = [&](unsigned long long m) { return m <= 1 ? 0ull : splitmix64(state) % m; };
  auto linear = [&](const unsigned long long c[3]) { return c[0] + g3[0] * (c[1] + g3[1] * c[2]); };
  std::vector<unsigned long long> chosen;  // in the order drawn
  auto add = [&](unsigned long long l) {
    if (chosen.size() < s.count && std::find(chosen.begin(), chosen.end(), l) == chosen.end()) chosen.push_back(l);
  };
  // Corners (every dimension pinned to its first or last block), then edges (all but one pinned), then faces
  // (all but two), then the interior (none pinned). A dimension of one block is always 0; a free dimension
  // ranges over its inner blocks 1 .. g-2 (no block when g is 2: that boundary set is only corners).
  int multi[3], d = 0;
  for (int k = 0; k < 3; ++k)
    if (g3[k] > 1) multi[d++] = k;
  for (int free_dims = 0; free_dims <= d && chosen.size() < s.count; ++free_dims) {
    for (int mask = 0; mask < (1 << d); ++mask) {  // which of the multi-block dimensions are free
      if (__builtin_popcount(mask) != free_dims) continue;
      bool possible = true;
      for (int k = 0; k < d; ++k)
        if ((mask >> k & 1) && g3[multi[k]] < 3) possible = false;
      if (!possible) continue;
      const int pinned = d - free_dims;
      for (int side = 0; side < (1 << pinned); ++side) {
        if (free_dims == d) {
          // The interior: random blocks until the sample is full (or the interior is used up).
          unsigned long long inner = 1;
          for (int k = 0; k < d; ++k) inner *= g3[multi[k]] - 2;
          const unsigned long long want = std::min<unsigned long long>(s.count - chosen.size(), inner);
          // In runs of interior_run neighbours along the first multi-block dimension (BlockSample).
          const unsigned long long inner_x = g3[multi[0]] - 2;
          const unsigned long long run = std::max<unsigned long long>(1, std::min(s.interior_run, inner_x));
          for (unsigned long long tries = 0, got = 0; got < want && tries < 64 * s.count + 64; ++tries) {
            unsigned long long c[3] = {0, 0, 0};
            for (int k = 0; k < d; ++k) c[multi[k]] = 1 + below(g3[multi[k]] - 2);
            if (run > 1) c[multi[0]] = 1 + below(inner_x - run + 1);  // the run's first block
            for (unsigned long long i = 0; i < run && got < want; ++i, ++c[multi[0]]) {
              // Neighbours along x, each at its own place in the other dimensions: what varies from row to row
              // (a 2D grid whose row pitch is no multiple of 32 bytes) keeps the spread of blocks drawn one by one.
              if (i > 0)
                for (int k = 1; k < d; ++k) c[multi[k]] = 1 + below(g3[multi[k]] - 2);
              const size_t before = chosen.size();
              add(linear(c));
              got += chosen.size() > before;
            }
          }
          continue;
        }
        unsigned long long c[3] = {0, 0, 0};
        for (int k = 0, p = 0; k < d; ++k) {
          const unsigned long long gk = g3[multi[k]];
          if (mask >> k & 1) c[multi[k]] = 1 + below(gk - 2);
          else c[multi[k]] = (side >> p++ & 1) ? gk - 1 : 0;
        }
        add(linear(c));
      }
    }
  }
  // A grid with few inner blocks (a long thin one): any other blocks, at random.
  for (unsigned long long tries = 0; chosen.size() < s.count && tries < 64 * s.count + 64; ++tries) add(below(n));
  for (unsigned long long l = 0; chosen.size() < s.count && l < n; ++l) add(l);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

bool read_counting_supported(std::string* why) {
  if (!kSupported) {
    if (why)
      *why = "counting device accesses needs x86-64 Linux (it single-steps each access with the trap flag); this "
             "machine is not one";
    return false;
  }
  return access_decoder_available(why);
}

namespace {

// The counted ranges' spans, each buffer's offset from a 256-byte boundary (sectors are counted as the GPU aligns its
// buffers), and the pages to protect, merged: a buffer's every page, or one in page_every. False (with `why`) where a
// range is not inside a live device buffer.
bool plan_protection(const std::vector<CountedRange>& ranges, std::vector<Span>& spans, std::vector<uintptr_t>& shifts,
                     std::vector<Span>& merged, std::string& why) {
  std::vector<Span> prot;
  for (size_t r = 0; r < ranges.size(); ++r) {
    char* start = nullptr;
    size_t size = 0;
    if (!device_allocation_of(ranges[r].begin, &start, &size)) {
      why = format("count_device_accesses: range %zu: %p is not inside a live cudaMalloc buffer", r, ranges[r].begin);
      return false;
    }
    const size_t offset = static_cast<const char*>(ranges[r].begin) - start;
    size_t bytes = ranges[r].bytes;
    if (bytes == 0 || bytes > size - offset) bytes = size - offset;
    const auto lo = reinterpret_cast<uintptr_t>(ranges[r].begin);
    spans.push_back(Span{lo, lo + bytes});
    shifts.push_back(reinterpret_cast<uintptr_t>(start) % 256);
    const uintptr_t first = lo & ~(kPageSize - 1), end = (lo + bytes + kPageSize - 1) & ~(kPageSize - 1);
    if (ranges[r].page_every <= 1) {
      prot.push_back(Span{first, end});
      continue;
    }
    // One page in page_every, by the page's index in its buffer.
    const auto base = reinterpret_cast<uintptr_t>(start) & ~(kPageSize - 1);
    for (uintptr_t page = first; page < end; page += kPageSize) {
      uint64_t h = ranges[r].page_seed ^ ((page - base) / kPageSize);
      if (splitmix64(h) % ranges[r].page_every == 0) prot.push_back(Span{page, page + kPageSize});
    }
  }
  std::sort(prot.begin(), prot.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
  for (const Span& s : prot) {
    if (!merged.empty() && s.lo <= merged.back().hi) merged.back().hi = std::max(merged.back().hi, s.hi);
    else merged.push_back(s);
  }
  return true;
}

// The counter's state for one count: the pages, the ranges, the sample, the ceiling and the shared-memory budget,
// all afresh.
void start_count_state(std::vector<Span> merged, std::vector<Span> spans, std::vector<uintptr_t> shifts,
                       const BlockSample* sample, const CountOptions* options) {
  g.paused = 0;
  g.prot = std::move(merged);
  g.ranges = std::move(spans);
  g.sector_shift = std::move(shifts);
  g.totals.assign(g.ranges.size(), RangeCount{});
  g.block = nullptr;
  g_block_shared = nullptr;
  g.undecoded = 0;
  g.nstep = 0;
  g.freed = false;
  g.faults = 0;
  g.stopped = nullptr;
  g.max_faults = options && options->max_accesses ? options->max_accesses : kMaxCountedAccesses;
  g.sampling = sample != nullptr;
  if (sample) g.sample = *sample;
  g.launches.clear();
  g.launch = nullptr;
  g.blocks_run = 0;
  g.block_global = 0;
  g.blocks_cut = 0;
  // Shared memory: the pages of this worker's static slots and dynamic buffer (every launch runs on this thread
  // while counting); slots mapped later come through on_shared_layout.
  g.count_shared = options && options->shared;
  g.shared.clear();
  g.shared_totals = SharedCount{};
  g.shared_totals.counted = g.count_shared;
  g.shared_budget = g.shared_left = options ? options->shared_faults_per_block : 0;
  g.shared_per_class = options ? options->shared_blocks_per_class : 0;
  g.shared_least_share = options ? options->shared_least_class_share : 0;
  g.shared_open = false;
  g.shared_spent = false;
  g.shared_over = 0;
  g.shared_cut_in_phase = false;
  g_shared_requests = SharedRequests{};
  g_requests = BlockRequests{};
  g.by_ip.clear();
  if (g.count_shared) {
    for (const SharedMemoryRegion& r : shared_memory_regions()) {
      const auto lo = reinterpret_cast<uintptr_t>(r.begin);
      g.shared.push_back(Span{lo, lo + r.bytes});
      g.prot.push_back(g.shared.back());
    }
    const auto by_start = [](const Span& a, const Span& b) { return a.lo < b.lo; };
    std::sort(g.shared.begin(), g.shared.end(), by_start);
    std::sort(g.prot.begin(), g.prot.end(), by_start);
    set_shared_layout_observer(on_shared_layout);
  }
}

// Runs `work` with the pages protected and one worker, and opens them again however it ends.
void run_counted(const std::function<void()>& work) {
  set_single_worker(true);
  protect_all();
  g.active = 1;
  g.in_work = true;
  struct Restore {
    ~Restore() {
      const bool was_active = g.active;
      g.active = 0;
      g.in_work = false;
      g.nstep = 0;
      g.block = nullptr;
      g_block_shared = nullptr;
      g.launch = nullptr;
      if (was_active) open_all();
      if (g.count_shared) set_shared_layout_observer(nullptr);
      g.count_shared = false;
      g.shared_open = false;
      g.shared.clear();
      set_single_worker(false);
    }
  } restore;
  work();
}

// What the count found, with the reasons it is incomplete, if any.
void collect_count(AccessCount& result, unsigned long long launches_before) {
  result.supported = true;
  result.ranges = g.totals;
  result.launches = launch_count() - launches_before;
  result.blocks_run = g.blocks_run;
  result.accesses = g.faults;
  result.blocks_cut = g.blocks_cut;
  result.launch_blocks = std::move(g.launches);
  g.launches.clear();
  result.undecoded = g.undecoded;
  result.shared = g.shared_totals;
  for (const auto& [ip, counted] : g.by_ip) {
    result.instructions.push_back(counted);
    result.instructions.back().ip = ip;
  }
  g.by_ip.clear();
  std::sort(result.instructions.begin(), result.instructions.end(),
            [](const InstructionCount& a, const InstructionCount& b) { return a.ip < b.ip; });
  if (g.freed) result.why = "a counted buffer was freed while its accesses were being counted; the count stops there";
  if (g.stopped) {
    result.stopped_early = true;
    result.why += format("%sthe count %s after %llu accesses, in block %llu of those it runs, and stopped there (the "
                         "figures are of what it counted so far): a launch whose threads each loop over many outputs, "
                         "such as a grid-stride loop over a small grid, is counted only that far",
                         result.why.empty() ? "" : "; ", g.stopped, g.faults, g.blocks_run);
  }
  if (g.undecoded)
    result.why += format("%s%llu accesses could not be decoded and were counted as one byte each",
                         result.why.empty() ? "" : "; ", g.undecoded);
}

}  // namespace

AccessCount count_device_accesses(const std::vector<CountedRange>& ranges, const std::function<void()>& work,
                                  const BlockSample* sample, const CountOptions* options) {
  AccessCount result;
  if (!read_counting_supported(&result.why)) return result;
  std::lock_guard<std::mutex> one_at_a_time(g_count_mutex);
  std::vector<Span> spans, merged;
  std::vector<uintptr_t> shifts;
  if (!plan_protection(ranges, spans, shifts, merged, result.why)) return result;
  if (sample && sample->count == 0) {
    result.why = "count_device_accesses: a block sample of 0 blocks";
    return result;
  }
  if (!access_decoder_reset(&result.why)) return result;
#if defined(__x86_64__) && defined(__linux__)
  install_trap_handler();
#endif
  prepare_thread_for_kernels();  // the SIGSEGV handler
  start_count_state(std::move(merged), std::move(spans), std::move(shifts), sample, options);
  const unsigned long long launches_before = launch_count();
  run_counted(work);
  collect_count(result, launches_before);
  return result;
}

ReadCount count_device_reads(const void* begin, size_t bytes, const std::function<void()>& work) {
  ReadCount result;
  AccessCount c = count_device_accesses({CountedRange{begin, bytes}}, work);
  if (!c.supported && c.why.find("count_device_accesses: range 0: ") == 0)
    c.why = "count_device_reads: " + c.why.substr(std::strlen("count_device_accesses: range 0: "));
  result.supported = c.supported;
  result.why = c.why;
  result.launches = c.launches;
  if (!c.ranges.empty()) {
    result.reads = c.ranges[0].loads;
    result.writes = c.ranges[0].stores;
    result.bytes_read = c.ranges[0].bytes_read;
    result.bytes_written = c.ranges[0].bytes_written;
    result.host_bytes_read = c.ranges[0].host_bytes_read;
  }
  return result;
}
}  // namespace gpulab::cpu
