// The launch geometry a launch function uses at the GPU's timed sizes, checked in both modes without
// running a thread.
//
// CPU execution mode runs smaller problems than a GPU, so a launch whose block grows with the problem (grid
// and block swapped in <<<...>>>, say) is valid there and refused by every GPU. Each kernel's correctness
// test gets an instance per timed size ("TimedSizes/<Suite>.<Test>/<size>") that calls the student's launch
// function in a dry run (launches recorded, not run; in CPU execution mode copies and memsets do nothing) and
// holds every launch to the CUDA limits all current GPUs share, with the same message in both modes.
#pragma once

#include "gpulab/fresh_inputs.h"
#include "gpulab/launch_recorder.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpulab {

// How the speed test fills one buffer of a timed launch before each sample (fresh_inputs.h). A launch counted or
// profiled in place of the timed ones is given values drawn the same way (not the same values: fresh ones from
// the run's seed), so that no kernel can tell it from a timed sample by its input (a flat field of one value
// takes the tile, anything else reads around it: issue 43).
struct BufferDraw {
    enum class Type { undescribed, f32, f64, u8 };
    Type type = Type::undescribed;
    FreshDraw draw;       // lo and step of the values (f32, f64: draw.at); bytes take every value (draw.byte_at).
                          // Its seed is not used: each count draws its own (write_values' seed).
    bool output = false;  // the launch writes it and does not read it (a timed sample's output holds the last
                          // sample's answer: an output is filled with values of its type all the same)

    static BufferDraw floats(const FreshDraw& d) { return {Type::f32, d, false}; }
    static BufferDraw doubles(const FreshDraw& d) { return {Type::f64, d, false}; }
    static BufferDraw bytes() { return {Type::u8, FreshDraw{}, false}; }
    // The output of a launch whose input is drawn as `like`: values of the same type and range, never read.
    static BufferDraw output_like(BufferDraw like) {
        like.output = true;
        return like;
    }

    std::size_t element_bytes() const;  // 4, 8, 1; 0 undescribed
    // "floats 0.5 ... 2.5 (FreshDraw lo 0.5, step 2^-19)", "output (not read): bytes 0 ... 255"
    std::string describe() const;
    // Writes the values of bytes [offset, offset + len) of the buffer, drawn from `seed` (element i: the draw's
    // value i in the buffer's type), into dst. The same (seed, offset) always gives the same bytes, so pages filled
    // one at a time, in any order (LazyDeviceBuffer), agree with each other. Computes and writes only: safe inside
    // CPU execution mode's page-fault handler.
    void write_values(std::uint64_t seed, void* dst, std::size_t offset, std::size_t len) const;
};

struct GeometryCheck {
    std::string suite, test;  // the correctness test this is an instance of: "TiledStencil", "MatchesOracle"
    std::string instance;     // "512x512x512_float"
    std::string call;         // "launch_stencil_tiled at 512x512x512 (float)"
    std::vector<std::size_t> buffer_bytes;  // the device buffers the launch takes, at the timed size
    std::function<void(const std::vector<void*>& buffers)> launch;
    // One per buffer, as the speed test draws it (count_timed_launch fills a counted launch's buffers so; a launch
    // that describes none cannot be counted). Set where the lab registers its timed launches.
    std::vector<BufferDraw> draws;
};

// `checks`, each buffer described by `draws` (one per buffer, in order), for a registration whose checks are made
// elsewhere: add_geometry_checks([] { return drawn_as(timed_geometry_checks(), {in, out}); }).
std::vector<GeometryCheck> drawn_as(std::vector<GeometryCheck> checks, const std::vector<BufferDraw>& draws);

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
