#!/usr/bin/env python3
"""summary_says.py starter|reference <summary.json>: whether a CPU-mode grade of a release came out right.

starter:   every lab built and ran without a crash or a hang, and its TODOs fail (it scores less than
           everything that ran), as `gpulab-grade --require starter` asks in the instructor's tree;
reference: every lab built and ran, and scores every point that CPU execution mode grades.
Prints one line per lab and exits 1 at the first lab that is not so.
"""
import json
import sys


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("starter", "reference"):
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    expected, summary = sys.argv[1], json.load(open(sys.argv[2]))
    if summary.get("solution") != expected or summary.get("gpu") is not False or not summary.get("labs"):
        print(f"summary_says: not a CPU-mode grade of the {expected}: solution {summary.get('solution')}, gpu {summary.get('gpu')}")
        return 1
    failed = False
    for lab in summary["labs"]:
        gradable = lab["max_points"] - lab["points_not_run"]
        bad = [f"{t['id']} {t['verdict']}" for t in lab["tests"] if t["verdict"] in ("crashed", "timed out")]
        problem = ""
        if not lab["compiled"] or lab["voided"] or lab["problems"]:
            problem = f"did not build or was voided: {lab['build_errors'] or lab['void_reason'] or lab['problems']}"
        elif bad:
            problem = "crashed or hung: " + ", ".join(bad)
        elif expected == "starter" and lab["points"] >= gradable:
            problem = "the untouched starter scores everything that ran: do its TODOs fail?"
        elif expected == "reference" and lab["points"] != gradable:
            problem = "the reference does not score every point CPU execution mode grades"
        print(f"  {lab['lab']:32} {lab['points']:g}/{gradable:g} graded in CPU mode ({lab['points_not_run']:g} not run)"
              + (f": {problem}" if problem else ""))
        failed = failed or bool(problem)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
