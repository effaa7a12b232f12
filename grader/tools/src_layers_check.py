#!/usr/bin/env python3
"""grader/src keeps its folders in layers: a source may use its own folder's code and the code of the folders
below it, never of a folder above it or beside it. Each folder's README.md says its role and what it may use.

A header of grader/include/gpulab belongs to the folder whose source implements it (the source of the same
name, or the one the table below names); a header no source implements (inline code, declarations of data) is
everyone's. Prints each use across the layers and exits 1 where there is one."""
import re
import sys
from pathlib import Path

# Bottom to top. Folders on one line sit side by side and may not use each other.
LAYERS = [["harness"], ["access", "sanitizer"], ["profile"], ["timing"], ["reports"], ["main"]]
# Headers whose code lives in a source of another name.
IMPLEMENTED_BY = {"grader_test": "figures"}


def main(root):
    src = Path(root) / "grader" / "src"
    rank = {folder: i for i, line in enumerate(LAYERS) for folder in line}
    stems = {}
    for path in src.glob("*/*"):
        if path.suffix in (".cpp", ".cu"):
            stems.setdefault(path.stem, path.parent.name)
    problems = []
    unknown = sorted(p.name for p in src.iterdir() if p.is_dir() and p.name not in rank)
    if unknown:
        problems.append(f"grader/src/{', '.join(unknown)}: not in this script's LAYERS")
    loose = sorted(p.name for p in src.iterdir() if p.is_file() and p.name != "README.md")
    if loose:
        problems.append(f"grader/src/: {', '.join(loose)} outside a folder")
    for path in sorted(src.glob("*/*")):
        if path.suffix not in (".cpp", ".cu", ".h"):
            continue
        folder = path.parent.name
        for header in re.findall(r'^#include "gpulab/([a-z_0-9]+)\.h"', path.read_text(), re.M):
            owner = stems.get(IMPLEMENTED_BY.get(header, header))
            if owner is None or owner == folder or folder not in rank or owner not in rank:
                continue
            if rank[owner] >= rank[folder]:
                where = "above" if rank[owner] > rank[folder] else "beside"
                problems.append(f"grader/src/{folder}/{path.name} uses gpulab/{header}.h of {owner}/, a folder {where} it")
    for p in problems:
        print(p)
    if not problems:
        print("grader/src: every folder uses only itself and the folders below it")
    return 1 if problems else 0


def catches_a_use_upwards():
    """The check can fail: a tree whose harness uses the profile's code must be refused, and its mirror passed."""
    import contextlib
    import io
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        src = Path(root) / "grader" / "src"
        for folder in ("harness", "profile"):
            (src / folder).mkdir(parents=True)
        (src / "harness" / "clock.cpp").write_text('#include "gpulab/drawn.h"\n')
        (src / "profile" / "drawn.cpp").write_text('#include "gpulab/clock.h"\n')
        with contextlib.redirect_stdout(io.StringIO()) as said:
            refused = main(root)
        if refused != 1 or "harness/clock.cpp uses gpulab/drawn.h of profile/, a folder above it" not in said.getvalue():
            print("the check passed a harness that uses the profile:", said.getvalue())
            return 1
        (src / "harness" / "clock.cpp").write_text("\n")
        with contextlib.redirect_stdout(io.StringIO()):
            if main(root) != 0:
                print("the check refused a profile that uses the harness")
                return 1
    return 0


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]
    sys.exit(catches_a_use_upwards() or main(root))
