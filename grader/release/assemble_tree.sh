#!/usr/bin/env bash
# assemble_tree.sh <repo> <dest> <lab,lab,...>: copies what a student release ships from the source
# repository into <dest>: everything but the compiled reference, which make_dist.sh adds.
#
# Only files git tracks (build folders and ignored files never leak), taken as they are in the working
# tree, and of those an allow-list: the top-level build files, the .ci scripts the Makefile calls, the
# chosen labs' handouts and starters, labs/common, data/, and grader/ less the instructor-only parts
# (planted variants, which are edits of the reference's text; class grading; this release folder).
# Everything else, reference/ and expert/ first, stays out.
set -euo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 <repo> <dest> <lab,lab,...>" >&2
    exit 2
fi
repo=$(cd "$1" && pwd)
dest=$2
IFS=, read -r -a labs <<< "$3"
mkdir -p "$dest"

chosen() {  # chosen <lab>: whether the release covers that lab
    local lab
    for lab in "${labs[@]}"; do [ "$lab" = "$1" ] && return 0; done
    return 1
}

# grader/shared/<name> goes along where a chosen lab's lab.json names it: "grader_shared": ["<name>", ...].
shared=$(for lab in "${labs[@]}"; do
    python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1])).get("grader_shared", [])))' "$repo/labs/$lab/lab.json"
done | sort -u)
# The .ci scripts the Makefile runs (make deps: .ci/install-deps).
ci_scripts=$(grep -o '\.ci/[A-Za-z0-9_.-]*' "$repo/Makefile" | sort -u || true)

ships() {  # ships <path>: whether a tracked file belongs in the release
    local path=$1 lab
    case "$path" in
        README.md | Makefile | CMakeLists.txt | CMakePresets.json | .gitignore) return 0 ;;
        .ci/GPU-RUNNER.md) return 0 ;;  # README links it: how a course's GPU machine runs make test
        docs/grading.md | docs/setup.md) return 0 ;;  # README links them; docs/instructors.md stays out
        .ci/*) grep -qxF "$path" <<< "$ci_scripts" ;;
        labs/CMakeLists.txt) return 1 ;;  # written below, for the chosen labs only
        labs/common/*) return 0 ;;
        labs/*/* | starter/*/* | grader/labs/*/*)
            lab=${path#*/}
            [ "${path%%/*}" = grader ] && lab=${lab#*/}
            lab=${lab%%/*}
            chosen "$lab" || return 1
            [[ "$path" =~ ^grader/labs/[^/]+/(wrong|right|cheats|slow)/ ]] && return 1
            # The H200's counters of the reference and of the right/ and slow/ variants, named: instructor material.
            [[ "$path" =~ ^grader/labs/[^/]+/gpu_counters\.json$ ]] && return 1
            [[ "$path" =~ /expert_export\.cpp$ ]] && return 1  # the expert library's table: expert/ stays out
            return 0 ;;
        grader/shared/*/expert_export.cpp) return 1 ;;
        grader/shared/*)
            lab=${path#grader/shared/}
            grep -qxF "${lab%%/*}" <<< "$shared" ;;
        grader/class/* | grader/release/*) return 1 ;;
        grader/* | data/*) return 0 ;;
        *) return 1 ;;
    esac
}

while IFS= read -r -d '' path; do
    [ -f "$repo/$path" ] || continue  # tracked but deleted in the working tree
    if ships "$path"; then
        mkdir -p "$dest/$(dirname "$path")"
        cp -p "$repo/$path" "$dest/$path"
    fi
done < <(git -C "$repo" ls-files -z)

# README.md's paragraphs about instructor-only material (planted bugs, class grading, the release itself,
# adding a lab) sit between <!-- instructor-only --> and <!-- /instructor-only --> lines: a student
# release leaves them out.
awk '/^<!-- instructor-only -->$/ { skip = 1; next } /^<!-- \/instructor-only -->$/ { skip = 0; next } !skip' \
    "$repo/README.md" > "$dest/README.md"

# labs/CMakeLists.txt lists every lab; the release's lists the chosen ones (its comments kept).
while IFS= read -r line; do
    if [[ "$line" =~ ^gpulab_add_lab\(([^\)]+)\) ]] && ! chosen "${BASH_REMATCH[1]}"; then
        continue
    fi
    printf '%s\n' "$line"
done < "$repo/labs/CMakeLists.txt" > "$dest/labs/CMakeLists.txt"
