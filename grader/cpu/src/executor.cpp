// Launch execution: validates the configuration like the CUDA runtime does, then spreads the grid's blocks
// over a pool of OS worker threads (one block at a time per worker, so that static __shared__ variables can
// be per-worker thread_local storage) and turns what went wrong into CUDA errors.
#include <sys/mman.h>
#include <unistd.h>
#include <pthread.h>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <thread>
#include "gpulab_cpu/launch_observer.h"
#include "gpu_answers.h"
#include "worker.h"

namespace gpulab::cpu {
namespace {
const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

unsigned long long env_ull(const char* name, unsigned long long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  unsigned long long x = std::strtoull(v, &end, 0);
  return end && *end == '\0' ? x : fallback;
}

__thread Worker* t_worker = nullptr;
thread_local std::unique_ptr<Worker> t_worker_owner;

// Helper OS threads; the launching thread works too, so a pool of N-1 helpers gives N workers.
class Pool {
 public:
  explicit Pool(int helpers) {
    for (int i = 0; i < helpers; ++i) std::thread([this] { loop(); }).detach();
    helpers_ = helpers;
  }
  void run(LaunchJob& job, void (*work)(LaunchJob&)) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      work_ = work;
      pending_ = helpers_;
      ++generation_;
    }
    wake_.notify_all();
    work(job);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop() {
    unsigned long long seen = 0;
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      LaunchJob* job = job_;
      void (*work)(LaunchJob&) = work_;
      lock.unlock();
      work(*job);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  LaunchJob* job_ = nullptr;
  void (*work_)(LaunchJob&) = nullptr;
  unsigned long long generation_ = 0;
  int pending_ = 0;
  int helpers_ = 0;
};

Pool* g_pool = nullptr;
std::mutex g_pool_mutex;

Pool& pool() {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (!g_pool) {
    g_pool = new Pool(worker_count() - 1);  // never destroyed: helpers may still be parked at exit
    // A forked child (per-test processes) has none of the parent's helper threads: start over there.
    static bool once = (pthread_atfork(nullptr, nullptr, [] { g_pool = nullptr; }), true);
    (void)once;
  }
  return *g_pool;
}

void work_on(LaunchJob& job) {
  prepare_thread_for_kernels();
  Worker& w = this_worker();
  while (!job.abort.load(std::memory_order_relaxed)) {
    unsigned long long b = job.next.fetch_add(1, std::memory_order_relaxed);
    if (b >= job.nblocks) break;
    const unsigned long long linear = job.sample ? job.sample[b] : b;  // a count's sample of the grid
    if (!count_block_begins(linear)) break;
    if (!run_block(w, job, linear)) break;
  }
  w.job = nullptr;
}

std::vector<SharedRegion (*)()>& shared_getters() {
  static std::vector<SharedRegion (*)()> v;
  return v;
}

bool config_ok(const LaunchSite& site, dim3 grid, dim3 block, size_t shmem, const void* kernel) {
  auto where = [&] { return format("launch of kernel %s at %s:%d", site.kernel, site.file, site.line); };
  // The limits of the GPU this runtime answers as (gpu_answers.h): a launch fails here where it fails there.
  const cudaDeviceProp& gpu = gpu_answers().prop;
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  const unsigned max_x = unsigned(gpu.maxThreadsDim[0]), max_y = unsigned(gpu.maxThreadsDim[1]),
                 max_z = unsigned(gpu.maxThreadsDim[2]), max_threads = unsigned(gpu.maxThreadsPerBlock);
  if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > max_x || block.y > max_y || block.z > max_z ||
      threads > max_threads) {
    fail(cudaErrorInvalidConfiguration,
         threads > max_threads
             ? format("%s: invalid configuration: block %u x %u x %u = %llu threads per block > %u", where().c_str(),
                      block.x, block.y, block.z, threads, max_threads)
             : format("%s: invalid configuration: block %u x %u x %u (each dimension at least 1; x <= %u, y <= %u, "
                      "z <= %u)", where().c_str(), block.x, block.y, block.z, max_x, max_y, max_z));
    return false;
  }
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > unsigned(gpu.maxGridSize[0]) ||
      grid.y > unsigned(gpu.maxGridSize[1]) || grid.z > unsigned(gpu.maxGridSize[2])) {
    fail(cudaErrorInvalidConfiguration,
         format("%s: grid (%u,%u,%u) is not a valid grid shape", where().c_str(), grid.x, grid.y, grid.z));
    return false;
  }
  size_t limit = max_dynamic_shared_for(kernel);
  if (shmem > limit) {
    fail(cudaErrorInvalidValue,
         format("%s: %zu bytes of dynamic shared memory requested, the limit is %zu (raise it with "
                "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))",
                where().c_str(), shmem, limit));
    return false;
  }
  return true;
}
}  // namespace

Worker::Worker() : stacks(static_cast<size_t>(env_ull("GPULAB_CPU_STACK_KB", 64)) << 10) {
  dyn_map_len = max_dynamic_shared() + kPage + kPage;
  dyn_map_len = (dyn_map_len + kPage - 1) / kPage * kPage;
  void* m = mmap(nullptr, dyn_map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  dyn_map = static_cast<unsigned char*>(m);
  dyn_end = dyn_map + dyn_map_len - kPage;
  mprotect(dyn_end, kPage, PROT_NONE);
}

Worker::~Worker() {
  slots.clear();
  if (dyn_map) munmap(dyn_map, dyn_map_len);
}

Worker& this_worker() {
  if (!t_worker) {
    t_worker_owner = std::make_unique<Worker>();
    t_worker = t_worker_owner.get();
  }
  return *t_worker;
}
Worker* this_worker_if_any() { return t_worker; }

int worker_count() {
  static const int n = [] {
    // The cores this process may run on, not the machine's: a grading kept to its share of a multi-GPU host's
    // cores, or a Slurm task, would otherwise run more threads than it has cores.
    unsigned cores = std::thread::hardware_concurrency();
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0) cores = CPU_COUNT(&allowed);
    auto v = env_ull("GPULAB_CPU_THREADS", cores ? cores : 1);
    return static_cast<int>(v < 1 ? 1 : (v > 256 ? 256 : v));
  }();
  return n;
}

namespace {
std::atomic<unsigned long long> g_seed{env_ull("GPULAB_CPU_SEED", 1)};
std::atomic<bool> g_single_worker{false};
std::atomic<unsigned long long> g_launches{0};
}
void set_single_worker(bool on) { g_single_worker = on; }
unsigned long long launch_count() { return g_launches.load(); }
unsigned long long scheduling_seed() { return g_seed.load(std::memory_order_relaxed); }
void set_scheduling_seed(unsigned long long seed) { g_seed = seed; }

SharedRegistrar::SharedRegistrar(SharedRegion (*getter)()) { shared_getters().push_back(getter); }

void poison_file_scope_shared() {
  for (auto getter : shared_getters()) {
    SharedRegion r = getter();
    std::memset(r.ptr, 0xFF, r.size);
  }
}

namespace {
// The SM clock of the GPU this runtime answers as, in kHz (cudaDevAttrClockRate), taken at each launch on the
// launching thread: a CUDA thread's fiber never runs the first, driver-reading gpu_answers().
std::atomic<long long> g_clock_khz{1000000};
}

// clock64() and clock() count the answered GPU's cycles (an H100's 1980 MHz), as on the GPU, where clock() is the
// same 64-bit counter. What a kernel measures with them is still this CPU's time (README: "What can still differ").
long long clock64() {
  const long long ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  return static_cast<long long>(static_cast<__int128>(ns) * g_clock_khz.load(std::memory_order_relaxed) / 1000000);
}

std::atomic<LaunchObserver> g_launch_observer{nullptr};

void launch(const LaunchSite& site, const void* kernel, dim3 grid, dim3 block, size_t shmem, cudaStream_t,
            KernelThunk thunk, const void* payload) {
  if (cudaError_t s = sticky_error()) {
    fail(s, "");
    return;
  }
  if (gpulab_cpu_tls.slot) {
    fail(cudaErrorNotSupported, format("kernel %s launched from device code at %s:%d: dynamic parallelism is not "
                                       "supported in CPU execution mode",
                                       site.kernel, site.file, site.line));
    return;
  }
  if (dry_run()) {
    if (LaunchObserver observer = g_launch_observer.load()) observer(LaunchRecord{kernel, grid, block, shmem, 0, site.kernel, site.file, site.line});
    return;
  }
  if (!config_ok(site, grid, block, shmem, kernel)) return;
  g_clock_khz = gpu_answers().attribute_or(cudaDevAttrClockRate, 1000000);
  // One launch at a time, like CUDA's legacy default stream; also keeps the pool single-job.
  static std::mutex launch_mutex;
  std::lock_guard<std::mutex> serial(launch_mutex);
  LaunchJob job;
  job.site = site;
  job.kernel = kernel;
  job.grid = grid;
  job.block = block;
  job.shmem = shmem;
  job.thunk = thunk;
  job.payload = payload;
  job.nthreads = block.x * block.y * block.z;
  job.nblocks = 1ull * grid.x * grid.y * grid.z;
  job.seed = scheduling_seed();
  std::vector<unsigned long long> sample;  // read_count.cpp: while a count with a BlockSample runs
  if (count_launch_begins(site, grid, block, sample)) job.nblocks = 0;
  if (!sample.empty()) {
    job.sample = sample.data();
    job.nblocks = sample.size();
  }
  ++g_launches;
  if (worker_count() <= 1 || job.nblocks == 1 || g_single_worker) work_on(job);
  else pool().run(job, work_on);
  count_launch_ends();
  std::string canary = check_underflow_canaries();
  if (!canary.empty())
    job.record(cudaErrorIllegalAddress, format("%s (kernel %s launched at %s:%d)", canary.c_str(), site.kernel,
                                               site.file, site.line));
  if (job.err != cudaSuccess) fail(job.err, job.msg + format(" [GPULAB_CPU_SEED=%llu]", job.seed));
  kernel_ran(kernel, job.static_shared.load());
  if (LaunchObserver observer = g_launch_observer.load())
    observer(LaunchRecord{kernel, grid, block, shmem, job.static_shared.load(), site.kernel, site.file, site.line});
}

void set_launch_observer(LaunchObserver observer) { g_launch_observer = observer; }

namespace {
std::atomic<bool> g_dry_run{false};
}
void set_dry_run(bool on) { g_dry_run = on; }
bool dry_run() { return g_dry_run.load(); }
}  // namespace gpulab::cpu
