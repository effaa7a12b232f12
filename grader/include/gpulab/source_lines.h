// Where in the student's source an instruction of a kernel is: CPU execution mode counts each access at the address
// of the instruction that made it (gpulab_cpu's InstructionCount), and the solution library's line table maps that
// address to a line of the .cu file (gpulab-cu2cpp keeps the file's lines, under its own name). The line table is
// read by binutils' addr2line, once for all the addresses of one library.
#pragma once

#include "gpulab/launch_recorder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gpulab {

struct SourceLine {
    std::string file;  // as the line table names it: the .cu file's path at build time; "" where not known
    int line = 0;
    std::string text;  // that line of the file, trimmed; "" where the file cannot be read
    // "gaussian_blur.cu:57  v += w * tile[tx][ty + 1];" (the file's name without its folder)
    std::string quoted() const;
};

// Line `line` of `file` as a SourceLine with its text (a line of gpulab-cu2cpp's output is mapped back to the .cu's);
// empty where `file` is "" or `line` is not positive. The GPU's line tables (CUPTI) name lines this way.
SourceLine source_line_at(const std::string& file, int line);

// The line of a recorded launch's <<<...>>> (launch_recorder.h): CPU execution mode's file and line, or the GPU
// build's host line table at the address its configuration was pushed from; empty where neither is known.
SourceLine launch_line_of(const RecordedLaunch& launch);

// Each address's line, in the order given (an empty SourceLine where it is not known: no line table, no
// addr2line, an address outside any library). `why`, where given, says why the first unknown one is unknown.
std::vector<SourceLine> source_lines_of(const std::vector<std::uintptr_t>& addresses, std::string* why = nullptr);

}  // namespace gpulab
