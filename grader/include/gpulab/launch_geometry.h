// The launch geometry a launch function uses at the GPU's timed sizes, checked in both modes without
// running a thread.
//
// CPU execution mode runs smaller problems than a GPU, so a launch whose block grows with the problem (grid
// and block swapped in <<<...>>>, say) is valid there and refused by every GPU. Each kernel's correctness
// test gets an instance per timed size ("TimedSizes/<Suite>.<Test>/<size>") that calls the student's launch
// function in a dry run (launches recorded, not run; in CPU execution mode copies and memsets do nothing) and
// holds every launch to the CUDA limits all current GPUs share, with the same message in both modes.
#pragma once

#include "gpulab/launch_recorder.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gpulab {

struct GeometryCheck {
    std::string suite, test;  // the correctness test this is an instance of: "TiledStencil", "MatchesOracle"
    std::string instance;     // "512x512x512_float"
    std::string call;         // "launch_stencil_tiled at 512x512x512 (float)"
    std::vector<std::size_t> buffer_bytes;  // the device buffers the launch takes, at the timed size
    std::function<void(const std::vector<void*>& buffers)> launch;
};

// Registers the checks `make` returns once GoogleTest has read its flags (lab.json is readable then, which
// it is not while static objects are built). Call from a static initializer:
//     const bool registered = gpulab::add_geometry_checks([] { return std::vector<GeometryCheck>{...}; });
bool add_geometry_checks(std::function<std::vector<GeometryCheck>()> make);

// Called by the grader's main() after InitGoogleTest: registers every check added so far.
void register_geometry_checks();

// The timed launches registered so far (after register_geometry_checks), of one suite ("TiledStep") or all
// (""): what the technique tests count and the GPU profile measures, the launch the speed tests time.
std::vector<GeometryCheck> timed_launches(const std::string& suite = "");

// Runs `launch` with launches recorded and not run (GPU: the launch entry points return success without
// launching; CPU execution mode: threads are not started). Returns what it launched.
std::vector<RecordedLaunch> dry_run(const std::function<void()>& launch);

// Used by dry_run on a GPU: while on, the interposed launch entry points record and do not launch.
void set_gpu_dry_run(bool on);

}  // namespace gpulab
