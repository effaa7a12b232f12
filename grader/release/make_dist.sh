#!/usr/bin/env bash
# make dist: the student release, with the reference only as compiled libraries.
#
#   grader/release/make_dist.sh [--labs 01-heat-rod,02-heat-2d] [--out DIR] [--cuda-architectures LIST]
#                               [--build-dir DIR]
#
#   --labs                the labs the release covers (default: every lab in labs/)
#   --out                 where the tarball goes (default: build/dist)
#   --cuda-architectures  CMake's list for the reference's GPU code (default: 75-real;80-real;86-real;89-real;90:
#                         machine code for Turing to Hopper, and Hopper's PTX, which newer GPUs compile on load)
#   --build-dir           the build folder for the reference libraries (default: build/dist-build)
#
# Builds the reference of each lab for the GPU and for CPU execution mode (Release, no debug information),
# strips the libraries, assembles gpulab-<git describe>/ from the files git tracks (assemble_tree.sh),
# refuses to pack it unless check_no_reference.py passes, and writes <out>/gpulab-<version>.tar.gz.
# grader/release/README.md says what is in the release and what is not.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
labs=""
out=build/dist
architectures="75-real;80-real;86-real;89-real;90"
build_dir=build/dist-build

usage() {
    sed -n '4,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
        --labs) labs=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        --cuda-architectures) architectures=${2:?}; shift 2 ;;
        --build-dir) build_dir=${2:?}; shift 2 ;;
        -h | --help) usage ;;
        *) echo "make_dist.sh: unknown argument $1" >&2; usage ;;
    esac
done
# Relative folders are the caller's (the Makefile runs this from the repository root).
mkdir -p "$out" "$build_dir"
out=$(cd "$out" && pwd)
build_dir=$(cd "$build_dir" && pwd)

all_labs=$(cd "$repo/labs" && for d in */; do if [ -f "$d/lab.json" ]; then echo "${d%/}"; fi; done)
if [ -z "$labs" ]; then
    labs=$(echo $all_labs | tr ' ' ,)
fi
IFS=, read -r -a chosen <<< "$labs"
for lab in "${chosen[@]}"; do
    grep -qxF "$lab" <<< "$all_labs" || { echo "make_dist.sh: no lab $lab in labs/ (there are: $(echo $all_labs))" >&2; exit 2; }
done

nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
    echo "make_dist.sh: the release's GPU reference needs nvcc (the CUDA Toolkit)" >&2
    exit 1
fi

started=$(date +%s)
version=$(git -C "$repo" describe --tags --always --dirty)
name=gpulab-$version
echo "== make dist: $name, labs ${chosen[*]}, CUDA architectures $architectures"
# Only tracked files ship: a new file not yet added would be missing from the release, silently.
untracked=$(git -C "$repo" ls-files --others --exclude-standard | grep -v '^reference/' || true)
if [ -n "$untracked" ]; then
    echo "note: these files are not tracked by git, so the release leaves them out (git add them if they belong):"
    sed 's/^/  /' <<< "$untracked"
fi

# Release flags only, whatever the environment says: no -g, no -lineinfo. Every fatbin's PTX is
# compressed (CUDA 13's default, made explicit) so no kernel text can be read from the libraries. No
# RPATH: the libraries find the CUDA runtime and CPU execution mode's runtime already loaded by the
# grader that opens them, and must not carry the instructor's paths; nor must __FILE__ (CPU execution
# mode's fault reports name the source line), which the prefix map makes relative to the repository.
unset CFLAGS CXXFLAGS CUDAFLAGS LDFLAGS
cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_COMPILER="$nvcc" \
    -DGPULAB_CUDA_ARCHITECTURES="$architectures" \
    -DGPULAB_ONLY_LABS="$(tr , ';' <<< "$labs")" \
    -DGPULAB_PLANTED_VARIANTS=OFF \
    -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS="-ffile-prefix-map=$repo/=" \
    -DCMAKE_CUDA_FLAGS_RELEASE="-O3 -DNDEBUG" \
    -DCMAKE_CUDA_FLAGS="-Xfatbin=-compress-all" \
    -DCMAKE_SKIP_RPATH=ON > "$build_dir/dist-configure.log" 2>&1 ||
    { cat "$build_dir/dist-configure.log"; echo "make_dist.sh: configuring the reference build failed" >&2; exit 1; }
if ! grep -q '^GPULAB_CPU_EXECUTION:BOOL=ON' "$build_dir/CMakeCache.txt"; then
    echo "make_dist.sh: the release's CPU reference needs CPU execution mode (Boost.Context: sudo make deps)" >&2
    exit 1
fi

targets=()
for lab in "${chosen[@]}"; do
    targets+=("solution-$lab-reference-gpu" "solution-$lab-reference-cpu")
done
build_started=$(date +%s)
cmake --build "$build_dir" --target "${targets[@]}" -j "$(nproc)" > "$build_dir/dist-build.log" 2>&1 ||
    { tail -n 60 "$build_dir/dist-build.log"; echo "make_dist.sh: building the reference failed (log: $build_dir/dist-build.log)" >&2; exit 1; }
build_seconds=$(( $(date +%s) - build_started ))

stage=$build_dir/stage
rm -rf "$stage"
tree=$stage/$name
"$here/assemble_tree.sh" "$repo" "$tree" "$labs"

# The compiled reference: stripped (the dynamic symbols, gpulab_lab_api among them, stay).
for lab in "${chosen[@]}"; do
    for mode in gpu cpu; do
        library=$build_dir/solutions/$lab/reference/$mode/libsolution.so
        [ -f "$library" ] || { echo "make_dist.sh: the build made no $library" >&2; exit 1; }
        mkdir -p "$tree/reference/$lab/$mode"
        strip --strip-unneeded -o "$tree/reference/$lab/$mode/libsolution.so" "$library"
        # (Readable PTX in a library is check_no_reference.py's to find, below.)
        text=$(strings "$tree/reference/$lab/$mode/libsolution.so")
        if grep -qF -e "$repo/" -e "$build_dir/" <<< "$text"; then
            echo "make_dist.sh: $lab's $mode reference names the instructor's folders:" >&2
            grep -F -e "$repo/" -e "$build_dir/" <<< "$text" >&2
            exit 1
        fi
    done
done

# reference/README.md says what the libraries are for: the GPU code as the architecture list makes it.
sass=() ptx=()
IFS=';' read -r -a entries <<< "$architectures"
for entry in "${entries[@]}"; do
    case "$entry" in
        *-real) sass+=("sm_${entry%-real}") ;;
        *-virtual) ptx+=("compute_${entry%-virtual}") ;;
        *) sass+=("sm_$entry"); ptx+=("compute_$entry") ;;
    esac
done
gpu_code="machine code for $(IFS=,; echo "${sass[*]:-none}" | sed 's/,/, /g')"
[ ${#ptx[@]} -eq 0 ] || gpu_code+=", and PTX for $(IFS=,; echo "${ptx[*]}" | sed 's/,/, /g'), which the driver compiles on first use on newer GPUs"
sed "s|@GPU_CODE@|$gpu_code|" "$here/reference_README.md" > "$tree/reference/README.md"

python3 "$here/check_no_reference.py" "$tree" "$repo" --ptx-cache "$build_dir/ptx-cache" ||
    { echo "make_dist.sh: the release would hold reference source; nothing packed" >&2; exit 1; }

# Reproducible: fixed order, owner and times (the commit's), no gzip timestamp.
tarball=$out/$name.tar.gz
commit_time=$(git -C "$repo" log -1 --format=%ct)
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$commit_time" -cf - "$name" |
    gzip -n -9 > "$tarball"
echo "== $tarball"
echo "   $(du -h "$tarball" | cut -f1) ($(stat -c %s "$tarball") bytes), $(tar -tzf "$tarball" | grep -vc '/$') files"
# What a student's machine must have to load the reference: the newest symbol versions it asks for.
symbols=$(objdump -T "$tree"/reference/*/*/libsolution.so)
newest() { grep -o "$1[0-9.]*" <<< "$symbols" | sort -uV | tail -n 1; }
cudart=$(readelf -d "$tree"/reference/*/gpu/libsolution.so | grep -o 'libcudart\.so[0-9.]*' | sort -u | tr '\n' ' ')
echo "   the reference needs $(newest GLIBC_), $(newest GLIBCXX_), ${cudart% } (x86-64)"
echo "   reference built in ${build_seconds} s; make dist took $(( $(date +%s) - started )) s"
