#!/usr/bin/env python3
"""How long grading takes, per lab and per test: the figures behind docs/grading.md's "How long grading takes".

Builds the chosen solution of every lab first (not timed: a student's first `make grade` builds once),
then grades each lab with `gpulab-grade --no-build` and reads the time of every test from the run's
progress.jsonl files (each test's own milliseconds, as its grader measured them). Prints a markdown table
per lab and one for the whole run; with --update-readme it rewrites the table between docs/grading.md's
`<!-- grading-times -->` markers, so that page keeps saying what this script last measured.

This is a benchmark, not a test: nothing here passes or fails on a time. Run it on the GPU the course
grades on (the times in CPU execution mode say nothing about a GPU's).

  grader/bench/grading_times.py --build-dir build                  # every lab, the reference
  grader/bench/grading_times.py --labs 04-stencil3d-tiling --top 20  # one lab, its 20 slowest tests
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BEGIN, END = "<!-- grading-times -->", "<!-- /grading-times -->"


def every_lab():
    return sorted(p.name for p in (ROOT / "labs").iterdir() if (p / "lab.json").is_file())


def test_times(lab_out):
    """Each test's milliseconds, summed over the processes and waves that ran it (progress*.jsonl)."""
    per_test = {}
    for progress in sorted(Path(lab_out).rglob("progress*.jsonl")):
        for line in progress.read_text().splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line a killed process left half written
            if event.get("event") == "end" and "test" in event:
                # A parameterised instance (Sizes/Step.MatchesOracle/n17) counts for its test.
                parts = event["test"].split("/")
                group = parts[1] if len(parts) == 3 else event["test"]
                per_test[group] = per_test.get(group, 0.0) + float(event.get("ms", 0.0))
    return per_test


def phase_times(lab_out):
    """The grader's own spans inside each test ("[phase] <test> <span> <ms> ms" lines, GPULAB_PHASES=1)."""
    spans = {}
    for log in sorted(Path(lab_out).rglob("tests*.log")):
        for line in log.read_text(errors="replace").splitlines():
            parts = line.split()
            if len(parts) >= 5 and parts[0] == "[phase]" and parts[-1] == "ms":
                key = parts[1].split("/")[1] if parts[1].count("/") == 2 else parts[1]
                key = key.split("/")[0] + " " + " ".join(parts[2:-2])
                try:
                    spans[key] = spans.get(key, 0.0) + float(parts[-2]) / 1000.0
                except ValueError:
                    pass
    return dict(sorted(spans.items(), key=lambda kv: -kv[1]))


def grade(build_dir, lab, solution, mode, seed, out, extra):
    command = [str(Path(build_dir) / "gpulab-grade"), "--build-dir", str(build_dir), "--lab", lab,
               "--solution", solution, "--mode", mode, "--no-build", "--out", str(out)] + extra
    if seed:
        command += ["--seed", seed]
    start = time.monotonic()
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=dict(os.environ, GPULAB_PHASES="1"))
    wall = time.monotonic() - start
    summary = {}
    try:
        summary = json.loads((Path(out) / "summary.json").read_text())
    except (OSError, json.JSONDecodeError):
        pass
    return wall, run.returncode, run.stdout, summary


def device_name(summary):
    for key in ("gpu", "device"):
        value = summary.get(key)
        if isinstance(value, dict) and value.get("name"):
            return value["name"]
        if isinstance(value, str) and value:
            return value
    return ""


def lab_points(summary, lab):
    for entry in summary.get("labs", []):
        if entry.get("lab") == lab:
            return f"{entry.get('points', 0):g}/{entry.get('max_points', 0):g}"
    return "?"


def points_lost(summary, lab):
    """The tests of `lab` that scored less than their points: what a reference grading short of full marks lost."""
    for entry in summary.get("labs", []):
        if entry.get("lab") == lab:
            return [{"id": t.get("id"), "points": f"{t.get('points', 0):g}/{t.get('max_points', 0):g}",
                     "verdict": t.get("verdict", ""), "measured": t.get("measured", "")}
                    for t in entry.get("tests", []) if t.get("points", 0) < t.get("max_points", 0)]
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--labs", default="", help="comma-separated (default: every lab)")
    parser.add_argument("--solution", default="reference")
    parser.add_argument("--mode", default="auto", choices=["auto", "gpu", "cpu"])
    parser.add_argument("--seed", default="", help="one seed for every lab (default: each run draws one)")
    parser.add_argument("--top", type=int, default=6, help="the slowest tests listed per lab")
    parser.add_argument("--out", default="", help="where the runs go (default <build>/bench/grading-times)")
    parser.add_argument("--no-reports", action="store_true", help="leave out the 0-point reports")
    parser.add_argument("--update-readme", action="store_true", help="rewrite the table in docs/grading.md with these figures")
    parser.add_argument("--json", default="", help="also write the figures here")
    parser.add_argument("--repeat", type=int, default=2,
                        help="grade each lab this many times; the table shows the last (the first fills the "
                             "per-machine report cache, as a class's first submission does)")
    args = parser.parse_args()

    labs = [l for l in args.labs.split(",") if l] or every_lab()
    out_root = Path(args.out or Path(args.build_dir) / "bench" / "grading-times")
    extra = ["--no-reports"] if args.no_reports else []

    build = [str(Path(args.build_dir) / "gpulab-grade"), "--build-dir", args.build_dir, "--solution", args.solution,
             "--mode", args.mode, "--filter", "NoSuchTest.AtAll", "--out", str(out_root / "build-only")]
    for lab in labs:
        build += ["--lab", lab]
    print(f"building {args.solution} for {len(labs)} lab(s) (not timed) ...", flush=True)
    subprocess.run(build, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

    results, device = [], ""
    for lab in labs:
        first_wall, lost = None, []
        for run in range(1, max(1, args.repeat) + 1):
            wall, status, output, summary = grade(args.build_dir, lab, args.solution, args.mode, args.seed,
                                                  out_root / lab, extra)
            first_wall = wall if first_wall is None else first_wall
            lost += [dict(t, run=run) for t in points_lost(summary, lab)]
        device = device or device_name(summary)
        per_test = test_times(out_root / lab / lab)
        results.append({"lab": lab, "wall_s": wall, "first_wall_s": first_wall, "exit": status,
                        "points": lab_points(summary, lab), "lost": lost,
                        "tests_s": sum(per_test.values()) / 1000.0, "phases": phase_times(out_root / lab / lab),
                        "tests": {k: v / 1000.0 for k, v in sorted(per_test.items(), key=lambda kv: -kv[1])}})
        print(f"  {lab:32} {wall:6.1f} s (first run {first_wall:.1f} s)  {results[-1]['points']:>8}  (exit {status})",
              flush=True)
        # A reference short of full marks in any run is a grader problem (a flaky test, a threshold the machine
        # misses): name what it lost and in which run, so it can be chased rather than noticed in a total.
        # Tests that did not run (speed in CPU execution mode, a missing compute-sanitizer) are told apart.
        for t in results[-1]["lost"]:
            what = "not run" if t["verdict"] in ("not run", "skipped") else f"lost ({t['verdict']})"
            print(f"      run {t['run']} {what}: {t['id']} {t['points']}: {t['measured']}; "
                  f"logs of the last run in {out_root / lab}", flush=True)
        if status not in (0, 2):
            print(output[-3000:], file=sys.stderr)

    for r in results:
        if r["phases"]:
            print(f"\n{r['lab']}: where the slowest tests' seconds go")
            for span, secs in list(r["phases"].items())[:args.top]:
                print(f"  {secs:7.2f} s  {span}")
    table = render(results, device or "unknown device", args.solution, args.mode, args.top)
    print()
    print(table)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": device, "solution": args.solution, "labs": results}, indent=1))
    if args.update_readme:
        readme = ROOT / "docs" / "grading.md"
        text = readme.read_text()
        if BEGIN not in text or END not in text:
            sys.exit(f"docs/grading.md has no {BEGIN} ... {END} markers to put the table between")
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        readme.write_text(head + BEGIN + "\n" + table + "\n" + END + tail)
        print(f"docs/grading.md updated")
    return 0


def render(results, device, solution, mode, top):
    lines = [f"Measured by `grader/bench/grading_times.py` on {device} ({solution}, mode {mode}, "
             f"{time.strftime('%Y-%m-%d')}); build excluded.", "",
             "| lab | graded in | first on a machine | points | slowest tests (seconds) |", "|---|---|---|---|---|"]
    for r in results:
        slowest = ", ".join(f"{name} {secs:.1f}" for name, secs in list(r["tests"].items())[:top])
        lines.append(f"| {r['lab']} | {r['wall_s']:.1f} s | {r['first_wall_s']:.1f} s | {r['points']} | {slowest} |")
    total = sum(r["wall_s"] for r in results)
    first = sum(r["first_wall_s"] for r in results)
    lines.append(f"| **all {len(results)} labs** | **{total:.1f} s** | {first:.1f} s | | |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
