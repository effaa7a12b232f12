// The access counter (gpulab_cpu/read_count.h) counts bytes, several ranges at once, reads and writes apart,
// runs a sample of a timed-size launch's blocks, and lazy device memory (gpulab_cpu/lazy_memory.h) costs only
// the pages that are touched.
#include <gpulab_cpu/lazy_memory.h>
#include <gpulab_cpu/read_count.h>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include "access_count_cases.h"
#include "test_util.h"

namespace {
using gpulab::cpu::AccessCount;
using gpulab::cpu::BlockSample;
using gpulab::cpu::count_device_accesses;
using gpulab::cpu::LaunchBlocks;
using gpulab::cpu::LazyUsage;
using gpulab::cpu::RangeCount;
using ::testing::HasSubstr;

class AccessCounter : public CountingCpuMode {};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST_F(AccessCounter, ThreeChannelPixelCountsThreeBytes) {
  const int n = 1000;
  std::vector<unsigned char> rgb(3 * n);
  for (int i = 0; i < 3 * n; ++i) rgb[i] = static_cast<unsigned char>(i * 7 + 3);
  DeviceBuffer<unsigned char> in(rgb.size()), out(rgb.size());
  CUDA_OK(in.upload(rgb));
  AccessCount c = count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
    ASSERT_EQ(ac_copy_rgb(in.get(), out.get(), n), cudaSuccess);
  });
  ASSERT_TRUE(c.supported) << c.why;
  ASSERT_EQ(c.ranges.size(), 2u);
  EXPECT_EQ(c.ranges[0].bytes_read, 3ull * n);
  EXPECT_EQ(c.ranges[0].stores, 0u);
  EXPECT_EQ(c.ranges[1].bytes_written, 3ull * n);
  EXPECT_EQ(c.ranges[1].loads, 0u);
  EXPECT_EQ(c.undecoded, 0u);
  // The host compiler merged the three channel loads (g++ -O2: a 2-byte and a 1-byte load per pixel), which is
  // why instructions are no measure.
  EXPECT_LT(c.ranges[0].loads, 3ull * n);
  EXPECT_GE(c.ranges[0].loads, 1ull * n);
  std::printf("[access counter] 3-byte pixels: %.2f load instructions and %.2f bytes per pixel\n",
              double(c.ranges[0].loads) / n, double(c.ranges[0].bytes_read) / n);
  EXPECT_EQ(out.download(), rgb);
}

// Requests and sectors as a GPU's memory system sees them: 32 lanes reading neighbouring floats are one request
// of four 32-byte sectors; with a stride of 8 floats (32 bytes) every lane is a sector of its own.
TEST_F(AccessCounter, WarpRequestsAndSectors) {
  const int n = 1024;
  for (int stride : {1, 2, 8, 32}) {
    DeviceBuffer<float> in(size_t(n) * stride), out(n);
    CUDA_OK(in.upload(std::vector<float>(size_t(n) * stride, 1.0f)));
    AccessCount c = count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
      ASSERT_EQ(ac_gather_strided(in.get(), out.get(), n, stride), cudaSuccess);
    });
    ASSERT_TRUE(c.supported) << c.why;
    const unsigned long long warps = n / 32;
    EXPECT_EQ(c.ranges[0].load_requests, warps) << "stride " << stride;
    EXPECT_EQ(c.ranges[0].load_sectors, warps * std::min(32, 4 * stride)) << "stride " << stride;
    EXPECT_EQ(c.ranges[0].load_lanes, warps * 32) << "stride " << stride;
    EXPECT_EQ(c.ranges[1].store_lanes, warps * 32);
    EXPECT_EQ(c.ranges[1].store_requests, warps);
    EXPECT_EQ(c.ranges[1].store_sectors, warps * 4);
    EXPECT_EQ(c.ranges[0].store_requests, 0u);
  }
}


// g++ copies the 3-byte pixel as a 2-byte and a 1-byte access (above); nvcc as three byte loads and three byte
// stores, each a warp request of its own. The requests and sectors are nvcc's: 3 per warp, each over the 3 sectors
// of the warp's 96 bytes (the last warp, 8 pixels, 1 sector each).
TEST_F(AccessCounter, MergedByteAccessesAreRequestsPerByteAsNvccIssuesThem) {
  const int n = 1000;
  DeviceBuffer<unsigned char> in(3 * n), out(3 * n);
  CUDA_OK(in.upload(std::vector<unsigned char>(3 * n, 7)));
  AccessCount c = count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
    ASSERT_EQ(ac_copy_rgb(in.get(), out.get(), n), cudaSuccess);
  });
  ASSERT_TRUE(c.supported) << c.why;
  const unsigned long long warps = (n + 31) / 32;
  EXPECT_EQ(c.ranges[0].load_requests, 3 * warps);
  EXPECT_EQ(c.ranges[0].load_sectors, 3 * (3 * (warps - 1) + 1));
  EXPECT_EQ(c.ranges[1].store_requests, 3 * warps);
  EXPECT_EQ(c.ranges[1].store_sectors, 3 * (3 * (warps - 1) + 1));
  EXPECT_EQ(c.ranges[0].load_lanes, 3ull * n);
}

// Sectors are counted where a GPU's buffer would lie: cudaMalloc returns 256-byte aligned memory, while this mode
// places a buffer against its trailing guard page, aligned only as its size allows. 1028 floats (16 mod 32 bytes)
// start 16 bytes into a sector here; 32 lanes reading the first 32 floats are still 4 sectors, as on a GPU (5 before
// the shift: lab 02's cooperative tile load read 71% sector use here against 85% on an H200).
TEST_F(AccessCounter, SectorsAsOnAGpuWhateverTheBufferStartsAlignment) {
  const int n = 1028;
  DeviceBuffer<float> in(n), out(n);
  ASSERT_EQ(reinterpret_cast<uintptr_t>(in.get()) % 32, 16u) << "the test needs a buffer that starts mid-sector here";
  CUDA_OK(in.upload(std::vector<float>(n, 1.0f)));
  AccessCount c = count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
    ASSERT_EQ(ac_gather_strided(in.get(), out.get(), 1024, 1), cudaSuccess);
  });
  ASSERT_TRUE(c.supported) << c.why;
  EXPECT_EQ(c.ranges[0].load_requests, 32u);
  EXPECT_EQ(c.ranges[0].load_sectors, 32u * 4);
}

// Requests with idle lanes: a branch on threadIdx.x parity lets only odd lanes load, so each warp's load request is
// issued by half its threads; the stores of every thread are full. With 48 threads the second warp has 16 threads:
// its 16-lane store is full (not idle), its 8-lane load is idle.
TEST_F(AccessCounter, RequestsWithIdleLanes) {
  DeviceBuffer<float> in(64), out(64);
  std::vector<float> h(64);
  for (int i = 0; i < 64; ++i) h[i] = float(i + 1);
  CUDA_OK(in.upload(h));
  gpulab::cpu::CountOptions shared;
  shared.shared = true;
  for (int threads : {64, 48}) {
    AccessCount c = count_device_accesses(
        {{in.get(), 0}, {out.get(), 0}},
        [&] { ASSERT_EQ(ac_odd_lanes_load(in.get(), out.get(), threads), cudaSuccess); }, nullptr, &shared);
    ASSERT_TRUE(c.supported) << c.why;
    const unsigned long long odd = threads / 2;
    EXPECT_EQ(c.ranges[0].load_requests, 2u) << threads;
    EXPECT_EQ(c.ranges[0].load_lanes, odd) << threads;
    EXPECT_EQ(c.ranges[0].idle_requests, 2u) << threads;   // both warps' loads: half their threads
    EXPECT_EQ(c.ranges[1].store_requests, 2u) << threads;
    EXPECT_EQ(c.ranges[1].store_lanes, unsigned(threads)) << threads;
    EXPECT_EQ(c.ranges[1].idle_requests, 0u) << threads;   // a short last warp's full store is not idle
    // Shared: a store and a load of every thread, per warp; none idle.
    EXPECT_EQ(c.shared.lane_requests, 4u) << threads;
    EXPECT_EQ(c.shared.lanes, 2u * threads) << threads;
    EXPECT_EQ(c.shared.idle_requests, 0u) << threads;
    std::vector<float> back(threads);
    CUDA_OK(cudaMemcpy(back.data(), out.get(), threads * sizeof(float), cudaMemcpyDeviceToHost));
    for (int t = 0; t < threads; ++t) ASSERT_EQ(back[t], t % 2 ? h[t] : 0.0f) << t;
  }
}

// Bank conflicts: a warp (one row of the 32x32 block) reading a column of an unpadded 32x32 float tile asks one
// bank for 32 words (32 wavefronts, 31 of them conflicts); a padded tile, or reading by row, needs one.
TEST_F(AccessCounter, SharedMemoryBankConflicts) {
  const int n = 64;  // 2 x 2 blocks of 32 x 32 threads: 32 warps each
  DeviceBuffer<float> in(n * n), out(n * n);
  std::vector<float> h(n * n);
  for (int i = 0; i < n * n; ++i) h[i] = float(i);
  CUDA_OK(in.upload(h));
  gpulab::cpu::CountOptions shared;
  shared.shared = true;
  struct Case {
    const char* name;
    std::function<cudaError_t()> run;
    unsigned long long load_wavefronts_per_request;
  };
  const std::vector<Case> cases = {
      {"unpadded, by column", [&] { return ac_tile_read(in.get(), out.get(), n, false, true); }, 32},
      {"padded, by column", [&] { return ac_tile_read(in.get(), out.get(), n, true, true); }, 1},
      {"unpadded, by row", [&] { return ac_tile_read(in.get(), out.get(), n, false, false); }, 1},
      {"dynamic, by column", [&] { return ac_tile_read_dynamic(in.get(), out.get(), n); }, 32},
  };
  for (const Case& k : cases) {
    AccessCount c = count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] { ASSERT_EQ(k.run(), cudaSuccess); },
                                          nullptr, &shared);
    ASSERT_TRUE(c.supported) << c.why;
    const unsigned long long requests = 4 * 32;  // 4 blocks of 32 warps, one load and one store each
    EXPECT_TRUE(c.shared.counted);
    EXPECT_EQ(c.shared.load_requests, requests) << k.name;
    EXPECT_EQ(c.shared.store_requests, requests) << k.name;
    EXPECT_EQ(c.shared.bytes_read, 4ull * n * n) << k.name;
    EXPECT_EQ(c.shared.load_wavefronts, requests * k.load_wavefronts_per_request) << k.name;
    EXPECT_EQ(c.shared.load_conflicts, requests * (k.load_wavefronts_per_request - 1)) << k.name;
    EXPECT_EQ(c.shared.store_conflicts, 0u) << k.name;
    // Global memory is counted as before beside it.
    EXPECT_EQ(c.ranges[0].bytes_read, 4ull * n * n) << k.name;
    EXPECT_EQ(c.ranges[1].bytes_written, 4ull * n * n) << k.name;
    // And the kernel computed what it computes uncounted: a transpose inside each tile, or a copy.
    const bool by_row = std::string(k.name).find("by row") != std::string::npos;
    const std::vector<float> got = out.download();
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const int bx = x / 32 * 32, by = y / 32 * 32;
        const float want = by_row ? h[y * n + x] : h[(by + x % 32) * n + bx + y % 32];
        ASSERT_EQ(got[y * n + x], want) << k.name << " at (" << x << ", " << y << ")";
      }
  }
  // Shared memory is open again after the count: the same kernel runs uncounted.
  ASSERT_EQ(ac_tile_read(in.get(), out.get(), n, false, true), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// One block of 32 x 32 threads storing a [32][32] float tile (1024 stores, then a barrier) and reading it down its
// columns (1024 loads, 31 conflicts a warp request), its shared accesses counted with `budget` faults per block.
AccessCount count_column_read_of_a_tile(unsigned long long budget) {
  const int n = 32;
  DeviceBuffer<float> in(n * n), out(n * n);
  EXPECT_EQ(in.upload(std::vector<float>(n * n, 1.0f)), cudaSuccess);
  gpulab::cpu::CountOptions shared;
  shared.shared = true;
  shared.shared_faults_per_block = budget;
  return count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
    ASSERT_EQ(ac_tile_read(in.get(), out.get(), n, false, true), cudaSuccess);
  }, nullptr, &shared);
}

// A block that spends its shared budget in the middle of a phase counts on to the phase's end: the phase's threads
// run one after another in a random order, so requests cut there would keep a few of their warp's lanes (3 lanes
// reading a tile's column: 2 conflicts, where the warp has 31). Here the budget runs out just after the tile's 1024
// stores, among the column reads: every one of the 32 load requests is whole, each with its 31 conflicts.
TEST_F(AccessCounter, ASharedBudgetSpentInAPhaseEndsWithThePhase) {
  const AccessCount c = count_column_read_of_a_tile(1100);
  ASSERT_TRUE(c.supported) << c.why;
  EXPECT_EQ(c.shared.blocks_capped, 1ull);
  EXPECT_EQ(c.shared.store_requests, 32ull);
  EXPECT_EQ(c.shared.load_requests, 32ull);
  EXPECT_EQ(c.shared.load_conflicts, 32ull * 31);
  // Whole requests have their lanes judged: every one of the 64 with its 32 lanes, none idle.
  EXPECT_EQ(c.shared.lane_requests, 64ull);
  EXPECT_EQ(c.shared.lanes, 64ull * 32);
  EXPECT_EQ(c.shared.idle_requests, 0ull);
}

// A block whose count ended at a barrier has whole requests, though its later phases ran uncounted: their lanes are
// judged (a coarsened stencil's interior block spends its budget in one plane of the 32 it walks, and its divergent
// warps are seen only so). Here the budget of 500 runs out among the tile's 1024 stores, the count goes on to the
// barrier and stops there: 32 store requests of 32 lanes, no load counted.
TEST_F(AccessCounter, ABlockCountedToABarrierHasItsLanesJudged) {
  const AccessCount c = count_column_read_of_a_tile(500);
  ASSERT_TRUE(c.supported) << c.why;
  EXPECT_EQ(c.shared.store_requests, 32ull);
  EXPECT_EQ(c.shared.load_requests, 0ull);
  EXPECT_EQ(c.shared.lane_requests, 32ull);
  EXPECT_EQ(c.shared.lanes, 32ull * 32);
  EXPECT_EQ(c.shared.idle_requests, 0ull);
}

// Where no barrier comes within kSharedPhaseFaults budgets of the budget's end, the block's count ends inside the
// phase: its requests in flight kept only the lanes that had run, so no request's lanes are judged (an idle-lane
// figure from them would call a coalesced kernel divergent). Here the budget of 200 runs out among the tile's 1024
// stores and the count stops 800 accesses later, still among them.
TEST_F(AccessCounter, ABlockCutInsideAPhaseHasNoLanesJudged) {
  const AccessCount c = count_column_read_of_a_tile(200);
  ASSERT_TRUE(c.supported) << c.why;
  EXPECT_EQ(c.shared.blocks_capped, 1ull);
  EXPECT_EQ(c.shared.load_requests, 0ull);
  EXPECT_GT(c.shared.store_requests, 0ull);
  EXPECT_EQ(c.shared.lane_requests, 0ull);
  EXPECT_EQ(c.shared.idle_requests, 0ull);
}

// Bank conflicts as nvcc's instructions would have them, whatever g++ made of the accesses (read_count.cpp):
// a sub-word access counts per byte as nvcc's one LDS.U8 per byte would (g++ merging neighbouring bytes into
// one wider load changes nothing), an aligned 8- or 16-byte access as one LDS.64/LDS.128 served in half- or
// quarter-warp phases. Per warp request: wavefronts and conflicts (wavefronts above one per 32 distinct words).
TEST_F(AccessCounter, SharedBankConflictsFollowNvccsAccessesNotTheHostCompilers) {
  gpulab::cpu::CountOptions shared;
  shared.shared = true;
  DeviceBuffer<float> dummy(1);
  auto count = [&](const std::function<void()>& work) {
    AccessCount c = count_device_accesses({{dummy.get(), 0}}, work, nullptr, &shared);
    EXPECT_TRUE(c.supported) << c.why;
    EXPECT_TRUE(c.shared.counted);
    return c.shared;
  };
  // 32 lanes and 4-byte slots: byte 1 of each lane's slot is one request of 32 consecutive words (0 conflicts);
  // the three channel bytes in one statement likewise, however g++ groups them (each request 0 conflicts); byte
  // 3 of a slot with byte 0 of the next, which g++ loads as one 2-byte value across two words (movzwl), is two
  // requests of 32 consecutive words each as nvcc's two LDS.U8 (counted as one request of 33 words, words 0
  // and 32 in bank 0, it would be a conflict).
  std::vector<unsigned char> bytes(33 * 4);
  for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = static_cast<unsigned char>(b * 5 + 1);
  DeviceBuffer<unsigned char> in(bytes.size());
  DeviceBuffer<int> out(32);
  CUDA_OK(in.upload(bytes));
  for (int read = 0; read < 3; ++read) {
    const gpulab::cpu::SharedCount c = count([&] { ASSERT_EQ(ac_shared_slot_bytes(in.get(), out.get(), read), cudaSuccess); });
    EXPECT_EQ(c.load_conflicts, 0u) << "read " << read;
    EXPECT_EQ(c.load_wavefronts, c.load_requests) << "read " << read;
    EXPECT_EQ(c.store_conflicts, 0u) << "read " << read;
    if (read == 0) EXPECT_EQ(c.load_requests, 1u);
    if (read == 1) EXPECT_GE(c.load_requests, 1u);  // one to three, as g++ grouped the three bytes
    if (read == 2) EXPECT_EQ(c.load_requests, 2u);
    const std::vector<int> got = out.download();
    for (int i = 0; i < 32; ++i) {
      const unsigned char* p = bytes.data() + 4 * i;
      const int want = read == 0 ? p[1] : read == 1 ? p[0] + p[1] + p[2] : p[3] | (p[4] << 8);
      ASSERT_EQ(got[i], want) << "read " << read << ", lane " << i;
    }
  }
  // A [32][32] float tile read down a column: 32 words in one bank, 32 wavefronts (31 conflicts) per request;
  // padded to [32][33], one.
  {
    const int n = 32;
    DeviceBuffer<float> tin(n * n), tout(n * n);
    CUDA_OK(tin.upload(random_floats(n * n, 5)));
    for (bool padded : {false, true}) {
      const gpulab::cpu::SharedCount c =
          count([&] { ASSERT_EQ(ac_tile_read(tin.get(), tout.get(), n, padded, true), cudaSuccess); });
      EXPECT_EQ(c.load_requests, 32u) << "padded " << padded;
      EXPECT_EQ(c.load_wavefronts, padded ? 32u : 32u * 32u) << "padded " << padded;
      EXPECT_EQ(c.load_conflicts, padded ? 0u : 32u * 31u) << "padded " << padded;
    }
  }
  // Consecutive float4 per lane: one LDS.128, four quarter-warp phases of 32 distinct words, 4 wavefronts, none
  // of them a conflict; every other float4, each phase's 8 lanes put two words in each of 16 banks: 8 wavefronts,
  // 4 conflicts. float2: two half-warp phases, 2 wavefronts (stride 1) or 4 (stride 2: 2 conflicts).
  {
    const auto h = random_floats(4 * 64, 9);
    DeviceBuffer<float4> in4(64), out4(32);
    DeviceBuffer<float2> in2(64), out2(32);
    CUDA_OK(cudaMemcpy(in4.get(), h.data(), 64 * sizeof(float4), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(in2.get(), h.data(), 64 * sizeof(float2), cudaMemcpyHostToDevice));
    // `phases` wavefronts at stride 1, twice as many at stride 2; stores (consecutive) take `phases` each.
    auto expect = [](const gpulab::cpu::SharedCount& c, const char* type, unsigned long long phases, int stride) {
      EXPECT_EQ(c.load_requests, 1u) << type << ", stride " << stride;
      EXPECT_EQ(c.load_wavefronts, phases * stride) << type << ", stride " << stride;
      EXPECT_EQ(c.load_conflicts, phases * (stride - 1)) << type << ", stride " << stride;
      EXPECT_EQ(c.store_conflicts, 0u) << type << ", stride " << stride;
      EXPECT_EQ(c.store_wavefronts, phases * c.store_requests) << type << ", stride " << stride;
    };
    for (int stride : {1, 2}) {
      expect(count([&] { ASSERT_EQ(ac_shared_float4(in4.get(), out4.get(), stride), cudaSuccess); }), "float4", 4,
             stride);
      std::vector<float> back(4 * 32);
      CUDA_OK(cudaMemcpy(back.data(), out4.get(), 32 * sizeof(float4), cudaMemcpyDeviceToHost));
      for (int i = 0; i < 4 * 32; ++i) ASSERT_EQ(back[i], h[(i / 4) * stride * 4 + i % 4]) << "float4 at " << i;
      expect(count([&] { ASSERT_EQ(ac_shared_float2(in2.get(), out2.get(), stride), cudaSuccess); }), "float2", 2,
             stride);
    }
    // The even lanes alone, each its own float2: 16 lanes, 32 distinct words, one wavefront's worth, served in two
    // half-warp phases, 2 wavefronts. The load has 1 conflict (its fewest are the bytes it asks for: an H200 counted
    // 0.83 per load of lab 05's divergent double kernel), the store none (its fewest are its phases': 0.07 there).
    const gpulab::cpu::SharedCount even =
        count([&] { ASSERT_EQ(ac_shared_float2_even_lanes(in2.get(), out2.get()), cudaSuccess); });
    EXPECT_EQ(even.load_requests, 1u);
    EXPECT_EQ(even.load_wavefronts, 2u);
    EXPECT_EQ(even.load_conflicts, 1u);
    EXPECT_EQ(even.store_requests, 3u);
    EXPECT_EQ(even.store_wavefronts, 6u);
    EXPECT_EQ(even.store_conflicts, 0u);
  }
}

// Lab 04's one-thread-per-output-cell tile, [10][10][10] of doubles and 8x8x8 threads. A warp is 4 rows of 8
// lanes; nvcc's LDS.64 serves it in two half-warp phases of 2 rows, 20 words apart: 32 words of which 4 banks
// hold 2, so 2 wavefronts per phase, 4 per request against the fewest 2: 2 conflicts per load request (an H200
// measured 2.03). Floats: one phase of 4 rows, 10 words apart, 6 banks hold 2: 1 conflict per request. However g++
// groups the six neighbours into instructions, the figure per request is nvcc's.
TEST_F(AccessCounter, SharedTile3dOfDoublesTwoConflictsPerLoad) {
  gpulab::cpu::CountOptions shared;
  shared.shared = true;
  const auto h = random_floats(1000, 3);
  for (bool is_double : {true, false}) {
    DeviceBuffer<double> ind(1000), outd(512);
    DeviceBuffer<float> inf(1000), outf(512);
    std::vector<double> hd(h.begin(), h.end());
    CUDA_OK(ind.upload(hd));
    CUDA_OK(inf.upload(h));
    AccessCount c = count_device_accesses(
        {{is_double ? static_cast<const void*>(ind.get()) : static_cast<const void*>(inf.get()), 0}},
        [&] {
          ASSERT_EQ(is_double ? ac_tile3d_double(ind.get(), outd.get()) : ac_tile3d_float(inf.get(), outf.get()),
                    cudaSuccess);
        },
        nullptr, &shared);
    ASSERT_TRUE(c.supported) << c.why;
    const gpulab::cpu::SharedCount& s = c.shared;
    const char* type = is_double ? "double" : "float";
    // 16 warps, 7 loads each, or fewer where g++ merged neighbours (each merged pair is still two requests).
    EXPECT_GE(s.load_requests, 16u * 5) << type;
    EXPECT_LE(s.load_requests, 16u * 7) << type;
    EXPECT_EQ(s.load_conflicts, (is_double ? 2 : 1) * s.load_requests) << type;
    EXPECT_EQ(s.load_wavefronts, (is_double ? 4 : 2) * s.load_requests) << type;
    EXPECT_EQ(s.store_conflicts, 0u) << type;  // the fill: 32 consecutive elements per warp
    // The block's own record holds the same counts (a class of the grid weighs its blocks' records).
    ASSERT_EQ(c.launch_blocks.size(), 1u);
    ASSERT_EQ(c.launch_blocks[0].block_shared.size(), 1u) << type;
    EXPECT_EQ(c.launch_blocks[0].block_shared[0].load_conflicts, s.load_conflicts) << type;
    EXPECT_EQ(c.launch_blocks[0].block_shared[0].load_requests, s.load_requests) << type;
    EXPECT_EQ(c.launch_blocks[0].block_shared[0].bytes_read, s.bytes_read) << type;
    // And the kernel computed what it computes.
    const std::vector<double> gotd = is_double ? outd.download() : std::vector<double>();
    const std::vector<float> gotf = is_double ? std::vector<float>() : outf.download();
    for (int t = 0; t < 512; ++t) {
      const int x = t % 8 + 1, y = t / 8 % 8 + 1, z = t / 64 + 1;
      auto at = [&](int zz, int yy, int xx) { return double(h[(zz * 10 + yy) * 10 + xx]); };
      const double want = at(z, y, x) + 2 * at(z, y, x - 1) + 3 * at(z, y, x + 1) + 4 * at(z, y - 1, x) +
                          5 * at(z, y + 1, x) + 6 * at(z - 1, y, x) + 7 * at(z + 1, y, x);
      const double got = is_double ? gotd[t] : double(gotf[t]);
      ASSERT_NEAR(got, want, 1e-4 * (1 + std::abs(want))) << type << " thread " << t;
    }
  }
}

// Two neighbouring doubles that g++ loads with one movupd: nvcc's two LDS.64, whatever each lane's alignment.
// Lane i at tile[i] (16-aligned in every other lane; split by each lane's address, the aligned lanes made a vector
// request and the others per-byte requests: 5 requests, 4 conflicts): two requests of 32 consecutive doubles, 2
// wavefronts each, no conflict. At tile[2i + 1] (8-aligned in every lane): two requests whose half-warps put 2
// words in each of 16 banks, 4 wavefronts each, 2 of them conflicts.
TEST_F(AccessCounter, MergedDoublesAreTwo64BitRequestsWhateverEachLanesAlignment) {
  gpulab::cpu::CountOptions shared;
  shared.shared = true;
  const auto h = random_floats(72, 4);
  std::vector<double> hd(h.begin(), h.end());
  DeviceBuffer<double> in(72), out(64);
  CUDA_OK(in.upload(hd));
  for (int step : {1, 2}) {
    AccessCount c = count_device_accesses(
        {{in.get(), 0}}, [&] { ASSERT_EQ(ac_shared_double_pairs(in.get(), out.get(), step), cudaSuccess); }, nullptr,
        &shared);
    ASSERT_TRUE(c.supported) << c.why;
    EXPECT_EQ(c.shared.load_requests, 2u) << "step " << step;
    EXPECT_EQ(c.shared.load_wavefronts, step == 1 ? 4u : 8u) << "step " << step;
    EXPECT_EQ(c.shared.load_conflicts, step == 1 ? 0u : 4u) << "step " << step;
    EXPECT_EQ(c.shared.bytes_read, 32u * 16) << "step " << step;
    const std::vector<double> got = out.download();
    for (int i = 0; i < 32; ++i) {
      const int first = step == 1 ? i : 2 * i + 1;
      ASSERT_EQ(got[2 * i], hd[first]) << "step " << step << ", lane " << i;
      ASSERT_EQ(got[2 * i + 1], hd[first + 1]) << "step " << step << ", lane " << i;
    }
  }
}

TEST_F(AccessCounter, Float4LoadCountsSixteenBytes) {
  const int n = 300;
  auto h = random_floats(4 * n, 21);
  DeviceBuffer<float4> in(n), out(n);
  CUDA_OK(cudaMemcpy(in.get(), h.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  AccessCount c = count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
    ASSERT_EQ(ac_copy_float4(in.get(), out.get(), n), cudaSuccess);
  });
  ASSERT_TRUE(c.supported) << c.why;
  EXPECT_EQ(c.ranges[0].bytes_read, 16ull * n);
  EXPECT_EQ(c.ranges[0].loads, 1ull * n);  // one 16-byte load each
  EXPECT_EQ(c.ranges[1].bytes_written, 16ull * n);
  EXPECT_EQ(c.ranges[1].stores, 1ull * n);
  std::vector<float> back(4 * n);
  CUDA_OK(cudaMemcpy(back.data(), out.get(), n * sizeof(float4), cudaMemcpyDeviceToHost));
  EXPECT_EQ(back, h);
}

// A 16-byte load that straddles a range's edge counts only its bytes inside the range: at either end of a
// range inside a page, across a page boundary where only the second page is counted (the fault is in the
// middle of the access), and across two counted pages (one access, counted once).
TEST_F(AccessCounter, VectorLoadStraddlingTheEdgeCountsOnlyTheBytesInside) {
  const size_t bytes = 4 * 4096;
  std::vector<unsigned char> h(bytes);
  for (size_t i = 0; i < bytes; ++i) h[i] = static_cast<unsigned char>(i);
  DeviceBuffer<unsigned char> buf(bytes);
  CUDA_OK(buf.upload(h));
  const auto start = reinterpret_cast<uintptr_t>(buf.get());
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t boundary = ((start + page) & ~(page - 1)) - start;  // offset of the first page boundary inside
  ASSERT_LT(boundary + page + 32, bytes);
  DeviceBuffer<long long> offsets(1);
  DeviceBuffer<float4> out(1);
  auto count_one = [&](long long offset, size_t range_begin, size_t range_bytes) {
    EXPECT_EQ(offsets.upload({offset}), cudaSuccess);
    AccessCount c = count_device_accesses({{buf.get() + range_begin, range_bytes}}, [&] {
      ASSERT_EQ(ac_load16_at(buf.get(), offsets.get(), out.get(), 1), cudaSuccess);
    });
    if (c.ranges.empty()) return RangeCount{};
    EXPECT_TRUE(c.supported) << c.why;
    EXPECT_EQ(c.undecoded, 0u);
    return c.ranges.at(0);
  };
  // Range [100, 300): loads at 92 (8 bytes inside), 292 (8 inside), 200 (16), 60 (none).
  for (auto [offset, inside] : {std::pair{92ll, 8ull}, std::pair{292ll, 8ull}, std::pair{200ll, 16ull}, std::pair{60ll, 0ull}}) {
    RangeCount r = count_one(offset, 100, 200);
    EXPECT_EQ(r.bytes_read, inside) << "load at " << offset;
    EXPECT_EQ(r.loads, inside ? 1u : 0u) << "load at " << offset;
  }
  // Range from a page boundary on: a load 4 bytes before it faults on the boundary, 12 of its bytes inside.
  RangeCount r = count_one(static_cast<long long>(boundary) - 4, boundary, 0);
  EXPECT_EQ(r.bytes_read, 12u);
  EXPECT_EQ(r.loads, 1u);
  // A range over both pages: the access faults twice (one page each) and counts once, 16 bytes.
  r = count_one(static_cast<long long>(boundary) - 4, 0, 0);
  EXPECT_EQ(r.bytes_read, 16u);
  EXPECT_EQ(r.loads, 1u);
}

TEST_F(AccessCounter, ReadsAndWritesOfTwoRangesAreCountedApart) {
  const int n = 2000;
  auto ha = random_floats(n, 22);
  DeviceBuffer<float> a(n), b(n);
  CUDA_OK(a.upload(ha));
  std::vector<float> host(n);
  AccessCount c = count_device_accesses({{a.get(), 0}, {b.get(), 0}, {a.get(), n / 2 * sizeof(float)}}, [&] {
    ASSERT_EQ(ac_scale(a.get(), b.get(), n), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(host.data(), b.get(), n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  });
  ASSERT_TRUE(c.supported) << c.why;
  const RangeCount &ra = c.ranges[0], &rb = c.ranges[1], &half = c.ranges[2];
  EXPECT_EQ(ra.loads, 1ull * n);
  EXPECT_EQ(ra.bytes_read, 4ull * n);
  EXPECT_EQ(ra.stores, 0u);
  EXPECT_EQ(ra.bytes_written, 0u);
  EXPECT_EQ(ra.host_bytes_read, 0u);
  EXPECT_EQ(rb.loads, 0u);
  EXPECT_EQ(rb.stores, 1ull * n);
  EXPECT_EQ(rb.bytes_written, 4ull * n);
  EXPECT_EQ(rb.host_bytes_read, 4ull * n);  // the copy out, not a kernel's read
  EXPECT_EQ(half.loads, 1ull * n / 2);       // the first half of a's buffer: overlapping ranges count apart
  EXPECT_EQ(half.bytes_read, 2ull * n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(host[i], 2.0f * ha[i]) << i;

  // A read-modify-write instruction (add [mem], 1) is a load and a store.
  DeviceBuffer<int> p(n);
  CUDA_OK(cudaMemset(p.get(), 0, n * sizeof(int)));
  AccessCount rmw = count_device_accesses({{p.get(), 0}}, [&] { ASSERT_EQ(ac_increment(p.get(), n), cudaSuccess); });
  EXPECT_EQ(rmw.ranges[0].loads, 1ull * n);
  EXPECT_EQ(rmw.ranges[0].stores, 1ull * n);
  EXPECT_EQ(rmw.ranges[0].bytes_read, 4ull * n);
  EXPECT_EQ(rmw.ranges[0].bytes_written, 4ull * n);
  std::vector<int> after(n);
  CUDA_OK(cudaMemcpy(after.data(), p.get(), n * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(after, std::vector<int>(n, 1));
}

// Capstone 4 labels the memory operand of many stores as a read (movlpd, movhpd, movups, movq, movnti, every VEX
// store, and lock cmpxchg among the read-modify-writes): the count takes the direction of the operand that faulted
// from the page fault (access_decode.cpp). Lab 06's streaming cheat at 512^3 in double, whose column walk g++
// stores two planes at a time with movlpd/movhpd, had its output "read" 63 360 bytes and written none. Here a
// launch function runs three launches over the same two buffers, that column walk, a kernel storing with each of
// those instructions, and the walk again: each launch's reads and writes of each buffer must come out exact.
TEST_F(AccessCounter, StoresCapstoneCallsReadsAreCountedAsWrites) {
  const int nx = 37, ny = 19, nz = 8;
  const size_t cells = size_t(nx) * ny * nz;  // a multiple of 8
  const size_t walked = size_t(nx - 2) * ny * nz, threads = cells / 8;
  std::vector<double> h(cells);
  for (size_t i = 0; i < cells; ++i) h[i] = 0.5 + 0.001 * double(i % 997);
  DeviceBuffer<double> in(cells), out(cells);
  CUDA_OK(in.upload(h));
  out.poison();
  AccessCount c = count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
    ASSERT_EQ(ac_walk_then_vector_stores_then_walk(in.get(), out.get(), nx, ny, nz), cudaSuccess);
  });
  ASSERT_TRUE(c.supported) << c.why;
  EXPECT_EQ(c.undecoded, 0u);
  ASSERT_EQ(c.launch_blocks.size(), 3u);
  struct Want {
    const char* kernel;
    unsigned long long in_read, out_written, out_stores;
  };
  const Want want[3] = {{"ac_column_walk_kernel", 24 * walked, 8 * walked, walked},
                        {"ac_vector_stores_kernel", 16 * threads, 64 * threads, 0},
                        {"ac_column_walk_kernel", 24 * walked, 8 * walked, walked}};
  for (size_t k = 0; k < 3; ++k) {
    const LaunchBlocks& l = c.launch_blocks[k];
    EXPECT_EQ(l.kernel, want[k].kernel);
    ASSERT_EQ(l.blocks.size(), l.grid_blocks) << "launch " << k;
    RangeCount rin, rout;
    for (size_t i = 0; i < l.blocks.size(); ++i) {
      for (auto [sum, r] : {std::pair{&rin, 0}, std::pair{&rout, 1}}) {
        sum->loads += l.at(i, r).loads;
        sum->stores += l.at(i, r).stores;
        sum->bytes_read += l.at(i, r).bytes_read;
        sum->bytes_written += l.at(i, r).bytes_written;
      }
    }
    EXPECT_EQ(rin.bytes_read, want[k].in_read) << "launch " << k << " (" << l.kernel << ")";
    EXPECT_EQ(rin.bytes_written, 0u) << "launch " << k;
    EXPECT_EQ(rin.stores, 0u) << "launch " << k;
    EXPECT_EQ(rout.bytes_written, want[k].out_written) << "launch " << k << " (" << l.kernel << ")";
    EXPECT_EQ(rout.bytes_read, 0u) << "launch " << k << " (" << l.kernel << ")";
    EXPECT_EQ(rout.loads, 0u) << "launch " << k;
    // The walk stores each cell with an instruction of its own (movlpd, movhpd, movsd); the other kernel's stores
    // are merged as the compiler likes.
    if (want[k].out_stores) EXPECT_EQ(rout.stores, want[k].out_stores) << "launch " << k;
    else EXPECT_GE(rout.stores, 4 * threads) << "launch " << k;
  }
  EXPECT_EQ(c.ranges[0].bytes_read, 2 * 24 * walked + 16 * threads);
  EXPECT_EQ(c.ranges[1].bytes_written, 2 * 8 * walked + 64 * threads);
  EXPECT_EQ(c.ranges[1].bytes_read, 0u);
  // The outputs: the walk's cells, and the vector stores' [a, 2b, a, b, a, b, a, a] at x = 0 and nx - 1.
  const std::vector<double> got = out.download();
  for (size_t i = 0; i < cells; ++i) {
    const size_t x = i % nx;
    double w;
    if (x > 0 && x + 1 < size_t(nx)) {
      w = 0.25 * h[i - 1] + 0.5 * h[i] + 0.25 * h[i + 1];
    } else {
      const double a = h[2 * (i / 8)], b = h[2 * (i / 8) + 1];
      const double pattern[8] = {a, 2 * b, a, b, a, b, a, a};
      w = pattern[i % 8];
    }
    ASSERT_DOUBLE_EQ(got[i], w) << "cell " << i;
  }

  // atomicAdd on a float: a load, then lock cmpxchg (read and written) until it succeeds (once: the blocks of a
  // count run one at a time).
  const int n = 1000, m = 64;
  DeviceBuffer<float> p(m);
  CUDA_OK(cudaMemset(p.get(), 0, m * sizeof(float)));
  AccessCount atomics = count_device_accesses({{p.get(), 0}}, [&] { ASSERT_EQ(ac_atomic_add_float(p.get(), n, m), cudaSuccess); });
  ASSERT_TRUE(atomics.supported) << atomics.why;
  EXPECT_EQ(atomics.ranges[0].bytes_read, 8ull * n);
  EXPECT_EQ(atomics.ranges[0].bytes_written, 4ull * n);
  EXPECT_EQ(atomics.ranges[0].loads, 2ull * n);
  EXPECT_EQ(atomics.ranges[0].stores, 1ull * n);
  const std::vector<float> sums = p.download();
  for (int j = 0; j < m; ++j) EXPECT_EQ(sums[j], float(n / m + (j < n % m))) << j;
}

// A launch past the ceiling of counted accesses (a grid-stride loop over a small grid): the count stops there with
// every page opened, says why, keeps what it counted so far, and the kernel still computes its whole output; the
// next count in the same process counts as before.
TEST_F(AccessCounter, ACountPastItsCeilingStopsOpensItsPagesAndSaysWhy) {
  const int n = 1 << 14;
  DeviceBuffer<float> in(n), out(n);
  CUDA_OK(in.upload(std::vector<float>(n, 2.0f)));
  gpulab::cpu::CountOptions low;
  low.max_accesses = 1000;
  AccessCount c = count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
    ASSERT_EQ(ac_gather_strided(in.get(), out.get(), n, 1), cudaSuccess);
  }, nullptr, &low);
  ASSERT_TRUE(c.supported) << c.why;
  EXPECT_TRUE(c.stopped_early);
  EXPECT_THAT(c.why, HasSubstr("reached its ceiling after 1000 accesses"));
  EXPECT_LE(c.ranges[0].loads + c.ranges[1].stores, 1000ull);
  EXPECT_GT(c.ranges[0].loads, 0ull);
  EXPECT_EQ(out.download(), std::vector<float>(n, 2.0f));  // every thread ran, counted or not
  AccessCount again = count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
    ASSERT_EQ(ac_gather_strided(in.get(), out.get(), n, 1), cudaSuccess);
  });
  ASSERT_TRUE(again.supported) << again.why;
  EXPECT_FALSE(again.stopped_early);
  EXPECT_EQ(again.ranges[0].bytes_read, 4ull * n);
  EXPECT_EQ(again.ranges[1].bytes_written, 4ull * n);
}

// Sampling inside a block (BlockSample::block_accesses): a grid-stride loop over a small grid, whose blocks each walk
// many steps, ends each sampled block at the first barrier after it counted that many global accesses, every warp
// request whole (each a full warp: 4 sectors for 32 floats); a block with no barrier runs to its end.
TEST_F(AccessCounter, ASampledBlockEndsAtABarrierAfterItsShareOfAccesses) {
  const int n = 1 << 14, blocks = 8;  // 16 steps of 128 floats a block: 2048 loads and 2048 stores each
  DeviceBuffer<float> in(n), out(n);
  CUDA_OK(in.upload(std::vector<float>(n, 1.0f)));
  auto count = [&](unsigned long long block_accesses, bool staged) {
    const BlockSample sample{2, 20261207, 1, block_accesses};
    return count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
      ASSERT_EQ(ac_grid_stride_copy(in.get(), out.get(), n, blocks, staged), cudaSuccess);
    }, &sample);
  };
  const AccessCount cut = count(500, true);
  ASSERT_TRUE(cut.supported) << cut.why;
  EXPECT_EQ(cut.blocks_run, 2ull);
  EXPECT_EQ(cut.blocks_cut, 2ull);
  // 128 loads, barrier, 128 stores, barrier: past 500 at the fourth barrier, 256 loads and 256 stores a block.
  EXPECT_EQ(cut.ranges[0].loads, 2ull * 256);
  EXPECT_EQ(cut.ranges[1].stores, 2ull * 256);
  EXPECT_EQ(cut.ranges[0].load_requests, 2ull * 256 / 32);
  EXPECT_EQ(cut.ranges[0].load_lanes, 2ull * 256);
  EXPECT_EQ(cut.ranges[0].load_sectors, 4 * cut.ranges[0].load_requests);
  EXPECT_EQ(cut.ranges[0].idle_requests + cut.ranges[1].idle_requests, 0ull);
  EXPECT_EQ(cut.accesses, 2ull * 512);

  const AccessCount whole = count(0, true);
  ASSERT_TRUE(whole.supported) << whole.why;
  EXPECT_EQ(whole.blocks_cut, 0ull);
  EXPECT_EQ(whole.ranges[0].loads, 2ull * 2048);

  const AccessCount no_barrier = count(500, false);
  ASSERT_TRUE(no_barrier.supported) << no_barrier.why;
  EXPECT_EQ(no_barrier.blocks_cut, 0ull);
  EXPECT_EQ(no_barrier.ranges[0].loads, 2ull * 2048);
}

// A sampled count of a call that launches one kernel again and again (a launch per plane) counts the first two
// launches and runs no block of the rest: they are the same kernel and shape, and running them cost minutes. A call
// of two passes of one kernel is counted whole, and so is one whose count is not sampled.
TEST_F(AccessCounter, ASampledCountOfRepeatedLaunchesCountsTheFirstTwo) {
  const int w = 160, h = 40;  // 5 x 5 blocks of 32 x 8
  DeviceBuffer<float> in(size_t(w) * h), out(size_t(w) * h);
  CUDA_OK(in.upload(std::vector<float>(size_t(w) * h, 1.0f)));
  const BlockSample sample{4, 20261207};
  auto launches = [&](int n) {
    return count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
      for (int i = 0; i < n; ++i) ASSERT_EQ(rc_naive(in.get(), out.get(), w, h), cudaSuccess);
    }, &sample);
  };
  const AccessCount many = launches(40), two = launches(2);
  ASSERT_TRUE(many.supported) << many.why;
  EXPECT_EQ(many.launches, 40ull);
  ASSERT_EQ(many.launch_blocks.size(), 2u);
  EXPECT_EQ(many.blocks_run, 8ull);
  EXPECT_EQ(many.ranges[1].bytes_written, two.ranges[1].bytes_written);
  ASSERT_EQ(two.launch_blocks.size(), 2u);
  const AccessCount whole = count_device_accesses({{in.get(), 0}, {out.get(), 0}}, [&] {
    for (int i = 0; i < 3; ++i) ASSERT_EQ(rc_naive(in.get(), out.get(), w, h), cudaSuccess);
  });
  ASSERT_TRUE(whole.supported) << whole.why;
  EXPECT_EQ(whole.launch_blocks.size(), 3u);
  EXPECT_EQ(whole.blocks_run, 75ull);
}

TEST_F(AccessCounter, NotADeviceBuffer) {
  DeviceBuffer<float> a(10);
  std::vector<float> host(10);
  AccessCount c = count_device_accesses({{a.get(), 0}, {host.data(), 0}}, [] {});
  EXPECT_FALSE(c.supported);
  EXPECT_THAT(c.why, HasSubstr("range 1"));
  EXPECT_THAT(c.why, HasSubstr("not inside a live cudaMalloc buffer"));
}

// ---- block samples ----
using Place = std::tuple<bool, bool, bool, bool>;  // at the left, right, bottom, top edge
const Place kInterior{false, false, false, false};
Place block_class(uint3 b, dim3 g) { return {b.x == 0, b.x == g.x - 1, b.y == 0, b.y == g.y - 1}; }

class BlockSampling : public CpuMode {};  // needs no counting (no Capstone)

// Interior blocks in runs along x (BlockSample::interior_run): every position modulo the run length equally often,
// each block at its own place in y and z; the corners, edges and faces as before. Lab 04's tiled 512^3 kernel has 4
// sector patterns along x (a tile of 6 floats starts 24 bytes further each block).
TEST_F(BlockSampling, InteriorRunsHoldEveryPositionAlongXEquallyOften) {
  using gpulab::cpu::sample_blocks;
  const dim3 g(85, 85, 85);
  for (unsigned long long seed : {1ull, 2ull, 3ull}) {
    const auto s = sample_blocks(g, BlockSample{26 + 24, seed, 8});
    ASSERT_EQ(s.size(), 50u);
    std::map<unsigned, int> residues;
    std::set<std::pair<unsigned, unsigned>> yz;
    int inner = 0;
    for (auto l : s) {
      const unsigned x = l % g.x, y = (l / g.x) % g.y, z = unsigned(l / (1ull * g.x * g.y));
      if (x == 0 || x == g.x - 1 || y == 0 || y == g.y - 1 || z == 0 || z == g.z - 1) continue;
      ++inner;
      ++residues[x % 8];
      yz.insert({y, z});
    }
    EXPECT_EQ(inner, 24);
    ASSERT_EQ(residues.size(), 8u) << "seed " << seed;
    for (const auto& [r, n] : residues) EXPECT_EQ(n, 3) << "x % 8 = " << r << ", seed " << seed;
    EXPECT_GT(yz.size(), 12u) << "the blocks of a run share their y and z";
    // The same seed without runs: today's sample, unchanged.
    EXPECT_EQ(sample_blocks(g, BlockSample{50, seed}), sample_blocks(g, BlockSample{50, seed, 1}));
  }
}

TEST_F(BlockSampling, HasCornersEdgesAndInterior) {
  using gpulab::cpu::sample_blocks;
  auto coords = [](unsigned long long l, dim3 g) {
    return std::tuple<unsigned, unsigned, unsigned>(l % g.x, (l / g.x) % g.y, l / (1ull * g.x * g.y));
  };
  // 2D: 4 corners, a block on each of the 4 edges, 24 interior blocks.
  const dim3 g2(256, 1024);
  auto s = sample_blocks(g2, BlockSample{32, 7});
  ASSERT_EQ(s.size(), 32u);
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  EXPECT_EQ(std::set<unsigned long long>(s.begin(), s.end()).size(), 32u);
  std::map<Place, int> classes;
  for (auto l : s) {
    auto [x, y, z] = coords(l, g2);
    EXPECT_EQ(z, 0u);
    classes[block_class(uint3{x, y, z}, g2)]++;
  }
  for (auto corner : {std::tuple{true, false, true, false}, std::tuple{false, true, true, false},
                      std::tuple{true, false, false, true}, std::tuple{false, true, false, true}})
    EXPECT_EQ(classes[corner], 1);
  for (auto edge : {std::tuple{true, false, false, false}, std::tuple{false, true, false, false},
                    std::tuple{false, false, true, false}, std::tuple{false, false, false, true}})
    EXPECT_GE(classes[edge], 1);
  EXPECT_EQ(classes[kInterior], 32 - 8);
  // Deterministic per seed; another seed, other interior blocks.
  EXPECT_EQ(sample_blocks(g2, BlockSample{32, 7}), s);
  EXPECT_NE(sample_blocks(g2, BlockSample{32, 8}), s);
  // 3D: 8 corners, 12 edges, 6 faces, then the interior.
  const dim3 g3(16, 16, 64);
  auto s3 = sample_blocks(g3, BlockSample{32, 1});
  ASSERT_EQ(s3.size(), 32u);
  int corners = 0, edges = 0, faces = 0, inner = 0;
  for (auto l : s3) {
    auto [x, y, z] = coords(l, g3);
    const int pinned = (x == 0 || x == g3.x - 1) + (y == 0 || y == g3.y - 1) + (z == 0 || z == g3.z - 1);
    (pinned == 3 ? corners : pinned == 2 ? edges : pinned == 1 ? faces : inner)++;
  }
  EXPECT_EQ(corners, 8);
  EXPECT_EQ(edges, 12);
  EXPECT_EQ(faces, 6);
  EXPECT_EQ(inner, 6);
  // A sample smaller than the corners keeps corners only; a grid no larger than the sample runs whole.
  auto few = sample_blocks(g3, BlockSample{5, 1});
  EXPECT_EQ(few.size(), 5u);
  EXPECT_EQ(sample_blocks(dim3(4, 8), BlockSample{32, 1}).size(), 32u);
  EXPECT_EQ(sample_blocks(dim3(3, 3), BlockSample{32, 1}).size(), 9u);
  // 1D, and a thin grid whose interior is too small for the sample.
  auto s1 = sample_blocks(dim3(1 << 20), BlockSample{32, 3});
  EXPECT_EQ(s1.size(), 32u);
  EXPECT_EQ(s1.front(), 0u);
  EXPECT_EQ(s1.back(), (1u << 20) - 1);
  EXPECT_EQ(sample_blocks(dim3(2, 40), BlockSample{32, 3}).size(), 32u);
}

// The input values the lazy buffers below fill in: a function of the element's index.
float value_at(size_t i) { return 0.5f + 0.001f * static_cast<float>(i % 1009); }
void fill_values(void* dst, size_t offset, size_t len) {
  float* f = static_cast<float*>(dst);
  for (size_t k = 0; k < len / sizeof(float); ++k) f[k] = value_at(offset / sizeof(float) + k);
}

// The 5-point stencil of read_count_cases.cu (32x8 blocks) at 8192 x 8192 (lab 02's timed size), 32 sampled
// blocks, on lazy buffers of 256 MiB each: only the sampled blocks run, corners included; what each did matches
// the block in the same place of a full run on a 160 x 40 grid; the cells they wrote are right; the buffers
// cost the pages those blocks touched.
TEST_F(AccessCounter, SampledLaunchAtTheTimedSize) {
  const int w = 8192, h = 8192;
  const size_t bytes = size_t(w) * h * sizeof(float);
  void *in = nullptr, *out = nullptr;
  CUDA_OK(gpulab::cpu::malloc_lazy(&in, bytes, fill_values));
  CUDA_OK(gpulab::cpu::malloc_lazy(&out, bytes));
  const BlockSample sample{32, 20261128};
  const auto t0 = std::chrono::steady_clock::now();
  AccessCount c = count_device_accesses({{in, 0}, {out, 0}}, [&] {
    ASSERT_EQ(rc_naive(static_cast<const float*>(in), static_cast<float*>(out), w, h), cudaSuccess);
  }, &sample);
  const double counted = seconds_since(t0);
  ASSERT_TRUE(c.supported) << c.why;
  ASSERT_EQ(c.launch_blocks.size(), 1u);
  const LaunchBlocks& l = c.launch_blocks[0];
  const dim3 g = l.grid;
  EXPECT_EQ(l.kernel, "rc_naive_kernel");
  EXPECT_EQ(g.x, 256u);
  EXPECT_EQ(g.y, 1024u);
  EXPECT_EQ(l.grid_blocks, 256ull * 1024);
  EXPECT_TRUE(l.sampled);
  ASSERT_EQ(l.blocks.size(), 32u);
  EXPECT_EQ(c.blocks_run, 32u);
  auto want = gpulab::cpu::sample_blocks(g, sample);
  for (size_t i = 0; i < 32; ++i) EXPECT_EQ(l.blocks[i].x + 1ull * g.x * l.blocks[i].y, want[i]);
  std::set<std::pair<unsigned, unsigned>> ran;
  for (uint3 b : l.blocks) ran.insert({b.x, b.y});
  for (auto corner : {std::pair{0u, 0u}, std::pair{255u, 0u}, std::pair{0u, 1023u}, std::pair{255u, 1023u}})
    EXPECT_TRUE(ran.count(corner)) << corner.first << "," << corner.second;

  // A full run on a small grid: what the block in each place (corner, edge, interior) does.
  const int sw = 160, sh = 40;
  auto hin = std::vector<float>(size_t(sw) * sh);
  for (size_t i = 0; i < hin.size(); ++i) hin[i] = value_at(i);
  DeviceBuffer<float> sin(hin.size()), sout(hin.size());
  CUDA_OK(sin.upload(hin));
  AccessCount full = count_device_accesses({{sin.get(), 0}, {sout.get(), 0}}, [&] {
    ASSERT_EQ(rc_naive(sin.get(), sout.get(), sw, sh), cudaSuccess);
  });
  ASSERT_EQ(full.launch_blocks.size(), 1u);
  const LaunchBlocks& f = full.launch_blocks[0];
  EXPECT_FALSE(f.sampled);
  ASSERT_EQ(f.blocks.size(), 25u);
  std::map<Place, std::pair<RangeCount, RangeCount>> by_place;
  for (size_t i = 0; i < f.blocks.size(); ++i) by_place[block_class(f.blocks[i], f.grid)] = {f.at(i, 0), f.at(i, 1)};
  RangeCount sum_in, sum_out;
  for (size_t i = 0; i < l.blocks.size(); ++i) {
    auto it = by_place.find(block_class(l.blocks[i], g));
    ASSERT_NE(it, by_place.end());
    const RangeCount &a = l.at(i, 0), &b = it->second.first;
    EXPECT_EQ(a.loads, b.loads) << "block " << l.blocks[i].x << "," << l.blocks[i].y;
    EXPECT_EQ(a.bytes_read, b.bytes_read);
    EXPECT_EQ(l.at(i, 1).stores, it->second.second.stores);
    EXPECT_EQ(l.at(i, 1).bytes_written, it->second.second.bytes_written);
    sum_in.loads += a.loads;
    sum_in.bytes_read += a.bytes_read;
    sum_out.bytes_written += l.at(i, 1).bytes_written;
  }
  EXPECT_EQ(c.ranges[0].loads, sum_in.loads);
  EXPECT_EQ(c.ranges[0].bytes_read, sum_in.bytes_read);
  EXPECT_EQ(c.ranges[1].bytes_written, sum_out.bytes_written);
  EXPECT_EQ(by_place[kInterior].first.bytes_read, 5ull * 4 * 32 * 8);

  // An interior sampled block's cells are right; the buffers cost only what the sample touched.
  const uint3 b = *std::find_if(l.blocks.begin(), l.blocks.end(), [&](uint3 q) {
    return block_class(q, g) == kInterior;
  });
  const int x0 = b.x * 32, y0 = b.y * 8;
  for (int y = y0; y < y0 + 8; ++y) {
    std::vector<float> row(32);
    CUDA_OK(cudaMemcpy(row.data(), static_cast<float*>(out) + size_t(y) * w + x0, 32 * sizeof(float),
                       cudaMemcpyDeviceToHost));
    for (int x = x0; x < x0 + 32; ++x) {
      const size_t i = size_t(y) * w + x;
      const float want_v = 0.5f * value_at(i) + 0.1f * value_at(i - 1) + 0.2f * value_at(i + 1) +
                           0.05f * value_at(i - w) + 0.15f * value_at(i + w);
      ASSERT_FLOAT_EQ(row[x - x0], want_v) << x << "," << y;
    }
  }
  LazyUsage uin, uout;
  ASSERT_TRUE(gpulab::cpu::lazy_usage(in, &uin));
  ASSERT_TRUE(gpulab::cpu::lazy_usage(out, &uout));
  EXPECT_EQ(uin.size, bytes);
  EXPECT_LT(uin.touched_bytes, 4u << 20);
  EXPECT_LT(uout.touched_bytes, 4u << 20);
  std::printf("[access counter] %dx%d 5-point stencil, %zu of %llu blocks counted in %.3f s (%llu loads, %llu "
              "stores); lazy buffers touched: %zu KiB in, %zu KiB out of %zu MiB each\n",
              w, h, l.blocks.size(), l.grid_blocks, counted, c.ranges[0].loads, c.ranges[1].stores,
              uin.touched_bytes >> 10, uout.touched_bytes >> 10, bytes >> 20);
  RecordProperty("sampled_count_seconds", std::to_string(counted));
  CUDA_OK(cudaFree(in));
  CUDA_OK(cudaFree(out));
}

// ---- lazy device memory ----
size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

class LazyMemory : public CpuMode {};

TEST_F(LazyMemory, TwoGibibytesTouchedInAFewPagesCostAFewPages) {
  const size_t n = (size_t(2) << 30) / sizeof(float);
  std::vector<long long> where = {0, 1, 1 << 20, 123456789, (long long)n / 2, (long long)n - 1};
  DeviceBuffer<long long> offsets(where.size());
  DeviceBuffer<float> out(where.size());
  CUDA_OK(offsets.upload(where));
  CUDA_OK(ac_touch(out.get(), out.get(), offsets.get(), 1));  // a first launch: the worker's stacks exist now
  const size_t rss0 = resident_bytes();
  const auto t0 = std::chrono::steady_clock::now();
  void* p = nullptr;
  CUDA_OK(gpulab::cpu::malloc_lazy(&p, n * sizeof(float), fill_values));
  CUDA_OK(ac_touch(static_cast<const float*>(p), out.get(), offsets.get(), static_cast<int>(where.size())));
  auto got = out.download();
  const double took = seconds_since(t0);
  const size_t rss1 = resident_bytes();
  for (size_t i = 0; i < where.size(); ++i) EXPECT_EQ(got[i], value_at(where[i])) << where[i];
  LazyUsage u;
  ASSERT_TRUE(gpulab::cpu::lazy_usage(p, &u));
  EXPECT_EQ(u.touched_pages, 5u);  // elements 0 and 1 share a page
  // A fill-state bitmap (2 bits per page: 128 KiB here) and the touched pages.
  EXPECT_LT(rss1 - std::min(rss0, rss1), size_t(1) << 20);
  EXPECT_LT(took, 1.0);
  std::printf("[lazy memory] 2 GiB lazy buffer, 6 elements read by a kernel: %zu pages filled, RSS +%zu KiB, "
              "%.4f s\n", u.touched_pages, (rss1 - std::min(rss0, rss1)) >> 10, took);
  CUDA_OK(cudaFree(p));
  EXPECT_FALSE(gpulab::cpu::lazy_usage(p, &u));
}

TEST_F(LazyMemory, BehavesLikeADeviceBuffer) {
  // No filler: the fresh-memory word of cudaMalloc buffers, wherever the first touch is.
  const int n = 3000;  // not a multiple of the page: the buffer starts inside its first page
  void* p = nullptr;
  CUDA_OK(gpulab::cpu::malloc_lazy(&p, n * sizeof(float)));
  std::vector<uint32_t> words(n);
  CUDA_OK(cudaMemcpy(words.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ASSERT_EQ(words[i], 0xFFFADBADu) << i;
  // Host code may touch it directly, as the grader's code may touch any device buffer in CPU mode.
  float* f = static_cast<float*>(p);
  f[7] = 3.0f;
  EXPECT_EQ(f[7], 3.0f);
  // Copies in, kernels, and the guard page after the end.
  auto h = random_floats(n, 23);
  CUDA_OK(cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  DeviceBuffer<float> out(n);
  CUDA_OK(rc_writes_input(f, n));
  std::vector<float> back(n);
  CUDA_OK(cudaMemcpy(back.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ASSERT_EQ(back[i], h[i] + 1.0f) << i;
  CUDA_OK(cudaFree(p));

  // A kernel that reads one element past the end of a lazy buffer: an illegal address, as with cudaMalloc.
  const int m = 1024;
  CUDA_OK(gpulab::cpu::malloc_lazy(&p, m * sizeof(float), fill_values));
  rc_reads_past_end(static_cast<const float*>(p), out.get(), m);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_THAT(gpulab::cpu::last_error_detail(), HasSubstr("read past the end of a device buffer"));
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);  // frees the lazy buffer too
  EXPECT_FALSE(gpulab::cpu::lazy_usage(p, nullptr));
}

// Every worker thread fills the pages its blocks touch first; blocks on different workers share pages (8 blocks
// of 128 floats to a page), so two may fault on one page at once: one fills it, the other waits.
TEST_F(LazyMemory, WorkersFillPagesConcurrently) {
  const int n = 1 << 18;  // 256 pages
  for (int round = 0; round < 3; ++round) {
    void* p = nullptr;
    CUDA_OK(gpulab::cpu::malloc_lazy(&p, n * sizeof(float), fill_values));
    CUDA_OK(rc_writes_input(static_cast<float*>(p), n));
    std::vector<float> got(n);
    CUDA_OK(cudaMemcpy(got.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], value_at(i) + 1.0f) << i;
    LazyUsage u;
    ASSERT_TRUE(gpulab::cpu::lazy_usage(p, &u));
    EXPECT_EQ(u.touched_pages, n * sizeof(float) / static_cast<size_t>(sysconf(_SC_PAGESIZE)));
    CUDA_OK(cudaFree(p));
  }
}

// A counted range in lazy memory: each page is filled at its first access and stays closed, and the access
// is counted as in any buffer; so are the runtime copies that fill pages during the count.
TEST_F(AccessCounter, LazyPagesAreCountedAsTheyFill) {
  const int w = 1100, h = 6;  // about 6 pages a row
  void *in = nullptr, *out = nullptr;
  CUDA_OK(gpulab::cpu::malloc_lazy(&in, size_t(w) * h * sizeof(float), fill_values));
  CUDA_OK(gpulab::cpu::malloc_lazy(&out, size_t(w) * h * sizeof(float)));
  std::vector<float> first_row(w);
  AccessCount c = count_device_accesses({{in, 0}, {out, 0}}, [&] {
    ASSERT_EQ(rc_naive(static_cast<const float*>(in), static_cast<float*>(out), w, h), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(first_row.data(), in, w * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  });
  ASSERT_TRUE(c.supported) << c.why;
  const unsigned long long interior = 1ull * (w - 2) * (h - 2);
  EXPECT_EQ(c.ranges[0].loads, 5 * interior);
  EXPECT_EQ(c.ranges[0].bytes_read, 20 * interior);
  EXPECT_EQ(c.ranges[0].host_bytes_read, w * sizeof(float));
  EXPECT_EQ(c.ranges[1].stores, interior);
  for (int x = 0; x < w; ++x) ASSERT_EQ(first_row[x], value_at(x));
  std::vector<float> got(size_t(w) * h);
  CUDA_OK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const size_t i = size_t(3) * w + 17;
  EXPECT_FLOAT_EQ(got[i], 0.5f * value_at(i) + 0.1f * value_at(i - 1) + 0.2f * value_at(i + 1) +
                              0.05f * value_at(i - w) + 0.15f * value_at(i + w));
  CUDA_OK(cudaFree(in));
  CUDA_OK(cudaFree(out));
}
}  // namespace
