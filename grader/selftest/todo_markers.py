#!/usr/bin/env python3
"""todo_markers.py <repository>: every lab's starter carries its TODO markers and no reference carries any.

The labs are those labs/CMakeLists.txt adds. A starter's markers read TODO(lab-N), N being the lab's
number without leading zeros (labs/01-heat-rod: TODO(lab-1)); the handouts refer to them by that name.
So in each lab: every source file lab.json names exists in starter/<lab>/ and in reference/<lab>/; the
starter holds at least one TODO(lab-N) and no marker of another lab (a copy from a neighbouring lab);
no file in reference/<lab>/ holds "TODO" at all.

A student release (make dist) has the reference compiled only and no reference sources; there the
starter is the student's work, whose markers may go as it is written: exit status 77 (CTest: skipped).
"""
import json
import pathlib
import re
import sys

SKIPPED = 77


def labs_of(root):
    text = (root / "labs" / "CMakeLists.txt").read_text()
    return re.findall(r"^\s*gpulab_add_lab\(\s*([^)\s]+)\s*\)", text, re.MULTILINE)


def check_lab(root, lab):
    """The problems of one lab, or None where it has no reference sources (a release)."""
    sources = json.loads((root / "labs" / lab / "lab.json").read_text())["sources"]
    starter, reference = root / "starter" / lab, root / "reference" / lab
    if not any((reference / name).is_file() for name in sources):
        return None
    number = int(re.match(r"(\d+)-", lab).group(1))
    marker = f"TODO(lab-{number})"
    problems = []
    starter_text = ""
    for name in sources:
        for folder in (starter, reference):
            if not (folder / name).is_file():
                problems.append(f"{folder.relative_to(root)}/{name} is missing (lab.json lists it in \"sources\")")
        if (starter / name).is_file():
            starter_text += (starter / name).read_text(errors="replace")
    if starter_text and marker not in starter_text:
        problems.append(f"starter/{lab} has no {marker} marker: the handout's steps point at them")
    for other in sorted(set(re.findall(r"TODO\(lab-(\d+)\)", starter_text)) - {str(number)}):
        problems.append(f"starter/{lab} holds TODO(lab-{other}), another lab's marker (this lab's is {marker})")
    for path in sorted(p for p in reference.rglob("*") if p.is_file()):
        for line_number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if "TODO" in line:
                problems.append(f"{path.relative_to(root)}:{line_number} holds a TODO: {line.strip()}")
    return problems


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[0])
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    labs = labs_of(root)
    checked, failed = 0, False
    for lab in labs:
        problems = check_lab(root, lab)
        if problems is None:
            print(f"{lab}: no reference sources here (a student release): not checked")
            continue
        checked += 1
        if problems:
            failed = True
            print(f"{lab}: FAILED")
            for problem in problems:
                print(f"  {problem}")
        else:
            print(f"{lab}: the starter has its TODO markers, the reference none")
    if not labs:
        print("labs/CMakeLists.txt adds no lab")
        return 1
    if checked == 0:
        return SKIPPED
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
