#!/usr/bin/env bash
# release_from_tarball.sh <repo> <work dir> <CUDA architectures> [<lab,lab,...> [<CMake arguments>]]: what a student
# gets. The CMake arguments (-DGPULAB_STB_DIR=..., say) go to the release's own configure.
# Builds the release (make_dist.sh, for the given architectures only, to keep CI small), unpacks its
# tarball in a fresh folder, checks that it holds no reference source, and runs the release's own
# `make grade` there in CPU execution mode: the starter must build and run without a crash and fail its
# TODOs, and the prebuilt reference must score every point CPU execution mode grades (gpulab-grade --require).
set -euo pipefail
repo=$1
work=$2
architectures=$3
labs=${4:-}
cmake_args=${5:-}
here=$(cd "$(dirname "$0")/.." && pwd)
# The release's make is a fresh one, not a sub-make of whatever ran this test.
unset MAKEFLAGS MFLAGS MAKELEVEL

rm -rf "$work"
mkdir -p "$work/unpacked"
started=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - started )) s] $*"; }  # where a slow run's minutes went
stamp "make dist"
"$here/make_dist.sh" --out "$work/dist" --build-dir "$work/dist-build" --cuda-architectures "$architectures" ${labs:+--labs "$labs"}
tarball=$(ls "$work"/dist/gpulab-*.tar.gz)
tar -xzf "$tarball" -C "$work/unpacked"
release=$(ls -d "$work"/unpacked/gpulab-*)
cd "$release"

stamp "what the release holds"
packed_labs=$(sed -n 's/^gpulab_add_lab(\(.*\))$/\1/p' labs/CMakeLists.txt)
for lab in $packed_labs; do
    for mode in gpu cpu; do
        [ -f "reference/$lab/$mode/libsolution.so" ] || { echo "FAIL: no reference/$lab/$mode/libsolution.so"; exit 1; }
    done
done
leftover=$(find . -path ./build -prune -o \( -path './grader/class' -o -path './grader/release' -o -path './grader/labs/*/wrong' \
    -o -path './grader/labs/*/right' -o -path './grader/labs/*/cheats' -o -path './reference/*/*.cu' \) -print)
if [ -n "$leftover" ]; then
    echo "FAIL: instructor-only material in the release:"
    echo "$leftover"
    exit 1
fi
# (The reference's PTX entry lines as make dist's check compiled them: --ptx-cache.)
python3 "$here/check_no_reference.py" "$release" "$repo" --ptx-cache "$work/dist-build/ptx-cache"

# What a student types first: the release's make grade in CPU execution mode, which builds the graders and
# must exit 2 (graded without a GPU).
status=0
stamp "make grade MODE=cpu (in the unpacked release)"
make grade MODE=cpu ${cmake_args:+CMAKE_ARGS="$cmake_args"} > "$work/grade-starter.log" 2>&1 || status=$?
sed -n '/^== Summary/,$p' "$work/grade-starter.log"
# make exits 2 for its own failures too (a configure or a build that failed): the grader must have summed up.
if [ "$status" -ne 2 ] || [ ! -x build/gpulab-grade ] || ! grep -q '^== Summary' "$work/grade-starter.log"; then
    tail -n 80 "$work/grade-starter.log"
    if [ "$status" -eq 2 ]; then
        echo "FAIL: make grade MODE=cpu failed before grading (no grade summary): see the output above"
    else
        echo "FAIL: make grade MODE=cpu exited $status, not 2 (graded without a GPU)"
    fi
    exit 1
fi

# require <solution> <requirement> [<lab>]: graded again, held to the requirement make test holds the instructor's
# tree to (gpulab-grade --require: starter = builds, never crashes, fails its TODOs; full = every point CPU mode
# grades). The reference is graded only here: make grade's path is the starter's above.
require() {
    local name=$1${3:+-$3}
    build/gpulab-grade --build-dir build --solution "$1" ${3:+--lab "$3"} --mode cpu --no-build --no-timing --no-reports \
        --require "$2" --out "$work/require-$name" > "$work/require-$name.log" 2>&1 ||
        { tail -n 60 "$work/require-$name.log"; echo "FAIL: the $1${3:+ of $3} in the release does not meet --require $2"; return 1; }
    echo "ok: the $1${3:+ of $3} meets --require $2"
}
stamp "the starter and each lab's reference held to their requirements"
# Side by side, the reference lab by lab: a many-core machine grades them at once rather than one after another.
pids=()
require starter starter & pids+=($!)
for lab in $packed_labs; do
    require reference full "$lab" & pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" -eq 0 ] || exit 1
stamp "done"
echo "ok: the release builds from its tarball, holds no reference source, and grades the starter and the reference"
