# Turns CMake's build output into one short line per file compiled or target linked, so a first
# `make grade` (minutes of nvcc) is not silent:
#     [gpulab] building  37%  grade-04-stencil3d-tiling-gpu: speed.cpp
#     [gpulab] linking   52%  grade-04-stencil3d-tiling-gpu
# Up-to-date targets print nothing. Understands the Makefile generator ("[ 37%] Building CXX object ...")
# and Ninja ("[12/345] Building CUDA object ..."). `logfile` names the full log, for the first line.

# "37%" from "[ 37%]" or "[12/345]" (the line's first one or two fields).
function percent(   p, part) {
    p = $1
    if (p ~ /^\[ *$/) p = $1 $2
    gsub(/[\[\] ]/, "", p)
    if (p ~ /\//) { split(p, part, "/"); p = int(100 * part[1] / part[2]) "%" }
    return p
}

function announce() {
    if (announced) return
    print "  [gpulab] building the graders and the reference solutions (a first build takes a few minutes; the full log is " logfile ")"
    announced = 1
}

/^\[ *[0-9]+%\] Building / || /^\[[0-9]+\/[0-9]+\] Building / {
    announce()
    target = $0
    sub(/.*CMakeFiles\//, "", target)
    sub(/\.dir\/.*/, "", target)
    file = $NF
    sub(/.*\//, "", file)
    sub(/\.o$/, "", file)
    printf "  [gpulab] building %4s  %s: %s\n", percent(), target, file
    fflush()
}

/^\[ *[0-9]+%\] Linking / || /^\[[0-9]+\/[0-9]+\] Linking / {
    announce()
    target = $NF
    sub(/.*\//, "", target)
    printf "  [gpulab] linking  %4s  %s\n", percent(), target
    fflush()
}
