#!/usr/bin/env bash
# check_catches_planted.sh <repo> <work dir>: check_no_reference.py passes a clean release tree of lab 01
# and fails it with each kind of leak planted: a copy of the reference under another name, a planted-bug
# spec (the reference's text in JSON), the reference's text reformatted inside another file, and (where
# nvcc is at hand) the reference's PTX. The tree is assembled without compiled libraries (quick).
set -euo pipefail
repo=$1
work=$2
here=$(cd "$(dirname "$0")/.." && pwd)
release=$work/gpulab-test
rm -rf "$work"
mkdir -p "$work"
"$here/assemble_tree.sh" "$repo" "$release" 01-heat-rod
reference=$repo/reference/01-heat-rod/heat_rod.cu
specs=("$repo"/grader/labs/01-heat-rod/wrong/*.json)

# The reference's PTX entry lines are compiled by the first check and reused by the others (--ptx-cache, in
# $work, which starts empty): each check still reads the whole tree.
check() { python3 "$here/check_no_reference.py" "$release" "$repo" --ptx-cache "$work/ptx-cache" > "$work/check.log" 2>&1; }

expect_pass() {
    if ! check; then cat "$work/check.log"; echo "FAIL: the check fails the clean release ($1)"; exit 1; fi
    tail -n 1 "$work/check.log"
}

# expect_caught <what> <planted file> <text the report must show>
expect_caught() {
    local status=0
    check || status=$?
    cat "$work/check.log"
    if [ "$status" -ne 1 ] || ! grep -q "^LEAK ${2#"$release"/}: .*$3" "$work/check.log"; then
        echo "FAIL: the check missed $1 (exit status $status)"
        exit 1
    fi
    echo "ok: caught $1"
    rm -f "$2"
}

expect_pass "as assembled"
mkdir -p "$release/notes"

cp "$reference" "$release/notes/solution.txt"
expect_caught "a copy of the reference under another name" "$release/notes/solution.txt" "identical to reference/01-heat-rod/heat_rod.cu"

cp "${specs[0]}" "$release/notes/bug.json"
expect_caught "a planted-bug spec" "$release/notes/bug.json" "identical to grader/labs/01-heat-rod/wrong/"

# Every planted bug of lab 01, re-serialised into one file: no byte-identical copy, the text must do.
python3 -c 'import json, sys; print(json.dumps([json.load(open(p)) for p in sys.argv[1:]], indent=1))' "${specs[@]}" > "$release/notes/bugs.txt"
expect_caught "planted-bug specs rewritten" "$release/notes/bugs.txt" "reference text"

# The reference pasted over the starter, re-indented with tabs and behind a new first line.
starter=$release/starter/01-heat-rod/heat_rod.cu
cp "$starter" "$work/starter.cu"
{ echo "// my solution"; sed 's/^ */\t/' "$reference"; } > "$starter"
expect_caught "the reference's text pasted over the starter" "$starter" "reference text"
cp "$work/starter.cu" "$starter"

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc" ]; then
    "$nvcc" -ptx -std=c++17 -arch=compute_90 -I"$repo/labs/01-heat-rod" -I"$repo/labs/common" -I"$repo/grader/include" \
        -I"$repo/grader/labs/01-heat-rod" "$reference" -o "$release/notes/kernels.ptx"
    expect_caught "the reference's PTX" "$release/notes/kernels.ptx" "PTX"
else
    echo "(no nvcc: the PTX case is not tried)"
fi

expect_pass "with every plant removed"
