#!/usr/bin/env python3
"""What the drawn timed samples saw, read back from gradings' summary.json files.

The GPU's counters of a technique come from timed samples drawn at random in the process that times them
(Technique.SameWorkOnGpu); CPU execution mode counts the same launches. This script reads any number of gradings
(folders holding summary.json files, searched recursively, or the files themselves) and prints three Markdown
tables:

- `counters`: for every kernel the project vouches for (the reference, right/ and slow/ variants), each timed
  launch's drawn samples: the GPU's global and shared reads per output beside CPU execution mode's count;
- `cheats`: for every cheats/ variant, the technique and speed points it kept, and the first line of the message of
  the test that caught it;
- `speed`: each speed test of the reference over several gradings (one folder per grading), its time in each
  and their coefficient of variation, with the points.

  grader/bench/drawn_samples.py counters bg/selftest-grades /tmp/grades/ref2-*
  grader/bench/drawn_samples.py cheats bg/selftest-grades
  grader/bench/drawn_samples.py speed /tmp/grades/ref1-all /tmp/grades/ref2-* /tmp/grades/ref3-*
"""
import argparse
import json
import re
import statistics
import sys
from pathlib import Path


def summaries(paths):
    """(path, summary) of every summary.json under the paths, each once."""
    seen = set()
    for p in map(Path, paths):
        for f in ([p] if p.is_file() else sorted(p.rglob("summary.json"))):
            if f.resolve() not in seen:
                seen.add(f.resolve())
                yield f, json.loads(f.read_text())


def tests_of(lab):
    return {t["id"]: t for t in lab["tests"]}


# One launch of Technique.SameWorkOnGpu's measured text: "TiledStep 8192x8192: 6 drawn samples, GPU 1.31 / CPU 1.31
# input reads per cell, shared GPU 5.00 / CPU 5.00 reads per cell" (launches separated by "; "; a figure may be a range,
# "1.20-1.23"; labs 05 and 06 compare shared reads "per value staged").
FIGURE = r"[0-9.]+(?:-[0-9.]+)?"
LAUNCH = re.compile(rf"(?P<launch>[A-Za-z]+ [0-9A-Za-z_]+): (?P<drawn>\d+) drawn samples?, GPU (?P<g>{FIGURE}) / CPU "
                    rf"(?P<c>{FIGURE}) (?P<what>[^,]+?)(?:, shared GPU (?P<gs>{FIGURE}) / CPU (?P<cs>{FIGURE})"
                    r"(?: reads per (?P<sper>.+))?)?$")


def counters(paths):
    print("| lab | solution | timed launch | drawn | global reads per output, GPU / CPU | shared, GPU / CPU | verdict |")
    print("|---|---|---|---|---|---|---|")
    for _, s in summaries(paths):
        solution = s.get("solution", "")
        if not (solution == "reference" or solution.startswith(("right/", "slow/"))):
            continue
        for lab in s["labs"]:
            t = tests_of(lab).get("Technique.SameWorkOnGpu")
            if not t or t["verdict"] in ("not run", "not counted"):
                continue
            found = [m for m in (LAUNCH.match(part.strip()) for part in t["measured"].split("; ")) if m]
            for m in found:
                shared = f"{m['gs']} / {m['cs']}" + (f" per {m['sper']}" if m["sper"] else "") if m["gs"] else "-"
                print(f"| {lab['lab']} | {solution} | {m['launch']} | {m['drawn']} | {m['g']} / {m['c']} {m['what']} "
                      f"| {shared} | {t['verdict']} |")
            if not found:
                print(f"| {lab['lab']} | {solution} | | | {t['measured']} | | {t['verdict']} |")


def first_line(test):
    for d in test.get("details", []):
        lines = [x for x in d.splitlines() if x.strip() and not x.endswith(" failed:")]
        if lines:
            return lines[0]
    return test.get("measured", "")


def cheats(paths):
    print("| lab | cheat | technique points | speed points | caught by | message |")
    print("|---|---|---|---|---|---|")
    for _, s in summaries(paths):
        solution = s.get("solution", "")
        if not solution.startswith("cheats/"):
            continue
        for lab in s["labs"]:
            tests = lab["tests"]

            def points(prefix):
                ts = [t for t in tests if t["id"].startswith(prefix) and t["verdict"] != "not run"]
                return f"{sum(t['points'] for t in ts):g}/{sum(t['max_points'] for t in ts):g}" if ts else "-"

            caught = [t for t in tests if t["failed"] > 0 or t["verdict"] == "not counted"]
            first = next((t for t in caught if t["failed"] > 0), caught[0] if caught else None)
            by = ", ".join(t["id"] for t in caught) or "nothing"
            message = first_line(first).replace("|", "\\|")[:220] if first else ""
            print(f"| {lab['lab']} | {solution[len('cheats/'):]} | {points('Technique.')} | {points('Speed.')} | {by} | "
                  f"{message} |")


def speed(paths):
    runs = {}  # (lab, test) -> [(ms, points, max)]
    for _, s in summaries(paths):
        if s.get("solution") != "reference":
            continue
        for lab in s["labs"]:
            for t in lab["tests"]:
                if not t["id"].startswith("Speed.") or t["verdict"] == "not run":
                    continue
                ms = t["properties"].get("student_ms")
                if ms is None:
                    m = re.match(r"([0-9.]+) ms", t["measured"])
                    ms = m.group(1) if m else None
                runs.setdefault((lab["lab"], t["id"]), []).append((float(ms) if ms else None, t["points"], t["max_points"]))
    print("| lab | speed test | gradings | ms in each | CV | points in each |")
    print("|---|---|---|---|---|---|")
    for (lab, test), rs in sorted(runs.items()):
        times = [r[0] for r in rs if r[0] is not None]
        cv = f"{100 * statistics.stdev(times) / statistics.mean(times):.2f}%" if len(times) > 1 else "-"
        print(f"| {lab} | {test} | {len(rs)} | {', '.join(f'{x:g}' for x in times)} | {cv} | "
              f"{', '.join(f'{r[1]:g}/{r[2]:g}' for r in rs)} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", choices=["counters", "cheats", "speed"])
    parser.add_argument("paths", nargs="+", help="gradings' folders (searched for summary.json) or summary.json files")
    args = parser.parse_args()
    {"counters": counters, "cheats": cheats, "speed": speed}[args.table](args.paths)


if __name__ == "__main__":
    sys.exit(main())
