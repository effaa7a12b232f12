// Technique.SameWorkOnGpu, one test for every lab that lists it (issue 43; it was written four times, once per lab).
//
// It decides whether the kernel the lab teaches did, on the GPU, the work CPU execution mode counted, from the two
// halves gpulab-grade hands over (handed_over.h): CPU execution mode's count of each timed launch (the counted
// technique test's "timed_count", counted_work.h) and the counters of the timed samples the speed tests drew at random
// and profiled (their "drawn_counters", gpu_profile.h). So lab.json lists it "after" the speed tests that time those
// launches (it runs once they are decided) and "requires" what they require. Every drawn sample of every counted launch
// must agree (gpu_profile.h, check_drawn_sample); a sample the launch kept from being profiled fails it too. It is
// "not run" where the counters could not be read for the machine's reasons (no GPU, counters refused) or where the
// speed tests were not run (--no-timing); where a speed test ran and drew nothing (it failed before its samples), it
// fails: the timed launches were never seen on the GPU.
#pragma once

namespace gpulab {

// Called by the grader's main() after register_geometry_checks(): registers the test where lab.json lists it.
void register_same_work_on_gpu();

}  // namespace gpulab
