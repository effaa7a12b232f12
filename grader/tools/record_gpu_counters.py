#!/usr/bin/env python3
"""Record a GPU's counters of the kernels the project vouches for, so that CPU execution mode is held to them where
no GPU is (issue 35).

On a GPU, Report.GpuProfile records the figures of each timed launch's drawn timed samples beside CPU execution mode's
(Report.AccessAnalysis's, handed over: the summary.json property gpu_counter_figures). This tool takes them from GPU
gradings of the reference and of right/ and slow/ variants (gpulab-grade --out folders) and writes
grader/labs/<lab>/gpu_counters.json. make test then holds CPU execution mode's figures of those solutions to them
(requirements.cpp): a change to CPU mode's access model that breaks agreement fails on a machine without a GPU too.

    grader/tools/record_gpu_counters.py --commit 3c161c8 OUT_DIR [OUT_DIR ...]

Only solutions graded in the given folders are replaced; the others recorded in a lab's file stay. Solutions recorded
on another GPU or at another commit than the file's header names, beside solutions recorded before, keep their own
device, commit and date under "recorded_apart".
"""
import argparse
import datetime
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HELD = ("reference", "right/", "slow/")  # what requirements.cpp holds to agreement


def summaries(folders):
    for folder in folders:
        for path in sorted(pathlib.Path(folder).rglob("summary.json")):
            yield path, json.loads(path.read_text())


def gpu_figures(summary):
    """(lab, figures) for each lab whose Report.GpuProfile recorded the GPU's counters beside CPU mode's."""
    for lab in summary.get("labs", []):
        for test in lab.get("tests", []):
            if test.get("id") != "Report.GpuProfile":
                continue
            text = test.get("properties", {}).get("gpu_counter_figures")
            if text:
                yield lab["lab"], json.loads(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commit", required=True, help="the commit the GPU gradings were built from")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    parser.add_argument("folders", nargs="+", help="gpulab-grade --out folders of GPU gradings")
    args = parser.parse_args()

    recorded = {}  # lab -> (device, {solution: figures})
    for path, summary in summaries(args.folders):
        solution = summary.get("solution", "")
        if summary.get("mode") != "gpu" or not solution.startswith(HELD):
            continue
        device = summary.get("device", {}).get("name", "a GPU")
        for lab, figures in gpu_figures(summary):
            seen_device, solutions = recorded.setdefault(lab, (device, {}))
            if seen_device != device:
                sys.exit(f"{path}: {lab} was graded on {device} and on {seen_device}: record one GPU at a time")
            # Four places: the agreement's slack is 10 points of sector use and 0.5 conflicts per request.
            solutions[solution] = {launch: {k: round(v, 4) if isinstance(v, float) else v for k, v in f.items()}
                                   for launch, f in figures.items()}
    if not recorded:
        sys.exit("no GPU grading with Report.GpuProfile's gpu_counter_figures in " + ", ".join(args.folders))

    for lab, (device, solutions) in sorted(recorded.items()):
        target = ROOT / "grader" / "labs" / lab / "gpu_counters.json"
        old = json.loads(target.read_text()) if target.exists() else {}
        merged = dict(old.get("solutions", {}))
        merged.update(solutions)
        # Where each solution was recorded: the header's device, commit and date, or its own in "recorded_apart"
        # (solutions added later, on another GPU or commit, beside the ones recorded with the header).
        apart = {name: where for name, where in old.get("recorded_apart", {}).items() if name not in solutions}
        kept = set(old.get("solutions", {})) - set(solutions)  # recorded before and not now
        if kept and (old.get("device") != device or old.get("commit") != args.commit):
            header = {"device": old["device"], "commit": old.get("commit", "?"), "date": old.get("date", "?")}
            for name in solutions:
                apart[name] = {"device": device, "commit": args.commit, "date": args.date}
            print(f"{target}: {len(solutions)} solution(s) recorded on {device} at {args.commit}, beside the file's "
                  f"{old['device']} at {old.get('commit', '?')}")
        else:
            header = {"device": device, "commit": args.commit, "date": args.date}
        doc = {
            "about": "Nsight Compute's counters of the timed launches of the solutions the project vouches for, "
                     "recorded by grader/tools/record_gpu_counters.py; without a GPU, CPU execution mode's access "
                     "figures of these solutions must agree with them (grader/runner/requirements.cpp)",
            **header,
            **({"recorded_apart": dict(sorted(apart.items()))} if apart else {}),
            "solutions": dict(sorted(merged.items())),
        }
        target.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
        print(f"{target.relative_to(ROOT)}: {len(solutions)} solution(s) recorded on {device}")


if __name__ == "__main__":
    main()
