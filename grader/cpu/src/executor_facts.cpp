// The truth about CPU execution mode's executor, for graders (gpulab_cpu/executor_facts.h).
#include "gpulab_cpu/executor_facts.h"

#include <unistd.h>

#include "gpu_answers.h"
#include "internal.h"

namespace gpulab::cpu {

ExecutorFacts executor_facts() {
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  const GpuAnswers& gpu = gpu_answers();
  return ExecutorFacts{"CPU execution (gpulab)", worker_count(), host_memory_bytes(),
                       l2 > 0 ? static_cast<int>(l2) : (1 << 20), gpu.prop.name, gpu.origin.c_str()};
}

}  // namespace gpulab::cpu
