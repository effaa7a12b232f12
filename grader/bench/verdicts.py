#!/usr/bin/env python3
"""The verdict and points of every test of every solution of chosen labs, and the comparison of two such records.

A grader refactor must change no verdict. `record` grades every solution a lab's build has (the reference, the
starter, and each wrong/, right/ and cheats/ variant) in each chosen mode on one seed, and writes, per lab,
solution and mode, the lab's points and every test's verdict and points. `compare` reads two records (before and
after the change, graded on the same seed) and lists every difference; it exits 1 when there is one.

The timed tests run as make test runs them: the reference's all, a variant's only those its spec names as
must-fail (the speed tests that must catch it), each such grading alone; every other grading with --no-timing,
several at a time (--jobs). CPU execution mode times nothing. A test that did not run, and why, is a verdict too
("not run"), so a grading that silently stopped running a test shows up as a difference.

  grader/bench/verdicts.py record --build-dir build --labs 01-heat-rod,02-heat-2d --modes cpu --seed 4242 \\
      --out before.json
  grader/bench/verdicts.py compare before.json after.json
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def manifest(build_dir, lab):
    return json.loads((Path(build_dir) / "gpulab-labs" / f"{lab}.json").read_text())


def timed_ids(lab):
    config = json.loads((ROOT / "labs" / lab / "lab.json").read_text())
    return [t["id"] for t in config["tests"] if t.get("timing")]


def spec_of(entry):
    """The variant's spec (wrong/, right/, cheats/ JSON), {} for the reference and the starter."""
    path = entry.get("expect", "")
    return json.loads(Path(path).read_text()) if path else {}


def timing_flags(solution, spec, lab, mode):
    """make test's timing for this grading: the reference all, a variant the speed tests it must fail, else none."""
    if mode != "gpu":
        return [], False
    if solution == "reference":
        return [], True
    named = [i for i in timed_ids(lab) if i in spec.get("must_fail", [])]
    if named:
        return [f for i in named for f in ("--time-only", i)], True
    return ["--no-timing"], False


def grade(build_dir, lab, solution, mode, seed, out_root, flags, build):
    out = Path(out_root) / mode / lab / solution.replace("/", "-")
    command = [str(Path(build_dir) / "gpulab-grade"), "--build-dir", str(build_dir), "--lab", lab,
               "--solution", solution, "--mode", mode, "--seed", seed, "--out", str(out)] + flags
    if not build:
        command.append("--no-build")
    started = time.monotonic()
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        summary = json.loads((out / "summary.json").read_text())
    except (OSError, json.JSONDecodeError):
        summary = {}
    labs = [l for l in summary.get("labs", []) if l.get("lab") == lab]
    if not labs:
        return {"error": f"no summary (exit {run.returncode}): " + run.stdout[-1500:]}
    graded = labs[0]
    return {"points": graded["points"], "max_points": graded["max_points"], "admission": admission_of(graded),
            "exit": run.returncode, "seconds": round(time.monotonic() - started, 1),
            "device": summary.get("device", {}).get("name", ""),
            "tests": {t["id"]: {"verdict": t["verdict"], "points": t["points"]} for t in graded["tests"]}}


def admission_of(entry):
    """The admission verdict of a summary.json entry ("admitted", "refused", "not_compiled", ...), also of an entry
    (or an earlier recording of this script) from before the verdict travelled whole."""
    if isinstance(entry.get("admission"), dict):
        return entry["admission"].get("verdict", "admitted")
    if isinstance(entry.get("admission"), str):
        return entry["admission"]
    if entry.get("compiled") is False:
        return "not_compiled"
    return entry.get("voided") or "admitted"


def record(args):
    labs = [l for l in args.labs.split(",") if l]
    modes = [m for m in args.modes.split(",") if m]
    plan = []  # (lab, solution, mode, flags, timed, build)
    for lab in labs:
        solutions = manifest(args.build_dir, lab)["solutions"]
        for solution, entry in sorted(solutions.items()):
            if args.only and solution not in args.only.split(","):
                continue
            spec = spec_of(entry)
            for mode in modes:
                if mode not in entry:
                    continue
                flags, timed = timing_flags(solution, spec, lab, mode)
                # A variant that does not compile is graded with its build: building it is what is judged.
                plan.append((lab, solution, mode, flags, timed, spec.get("compiles", True) is False))
    print(f"{len(plan)} gradings, seed {args.seed}", flush=True)
    results = {}

    def run(item):
        lab, solution, mode, flags, _, build = item
        key = f"{lab}/{solution}/{mode}"
        results[key] = grade(args.build_dir, lab, solution, mode, args.seed, args.work, flags, build)
        r = results[key]
        print(f"  {key:60} {r.get('points', '?'):>5}/{r.get('max_points', '?'):<5} {r.get('seconds', '')} s"
              + (f"  {r['error'][:200]}" if "error" in r else ""), flush=True)

    # Builds first, one at a time (they share the build folder); then what is untimed, side by side; the timed alone.
    for item in [p for p in plan if p[5]]:
        run(item)
    untimed = [p for p in plan if not p[5] and not p[4]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(run, untimed))
    for item in [p for p in plan if not p[5] and p[4]]:
        run(item)
    commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    Path(args.out).write_text(json.dumps({"seed": args.seed, "commit": commit, "labs": labs, "modes": modes,
                                          "results": dict(sorted(results.items()))}, indent=1) + "\n")
    errors = [k for k, r in results.items() if "error" in r]
    print(f"written: {args.out} ({len(results)} gradings at {commit}" +
          (f"; {len(errors)} without a summary: {', '.join(errors)}" if errors else "") + ")")
    return 1 if errors else 0


def compare(args):
    a, b = (json.loads(Path(p).read_text()) for p in (args.before, args.after))
    print(f"before: {args.before} ({a['commit']}, seed {a['seed']}); after: {args.after} ({b['commit']}, seed {b['seed']})")
    problems = []
    if a["seed"] != b["seed"]:
        problems.append(f"different seeds: {a['seed']} and {b['seed']}")
    keys = sorted(set(a["results"]) | set(b["results"]))
    if args.labs:
        keys = [k for k in keys if k.split("/")[0] in args.labs.split(",")]
    same = 0
    for key in keys:
        x, y = a["results"].get(key), b["results"].get(key)
        if x is None or y is None:
            problems.append(f"{key}: graded only {'after' if x is None else 'before'}")
            continue
        if "error" in x or "error" in y:
            problems.append(f"{key}: no grade {'before' if 'error' in x else 'after'}")
            continue
        differences = []
        if x["points"] != y["points"]:
            differences.append(f"lab points {x['points']:g} -> {y['points']:g}")
        if admission_of(x) != admission_of(y):
            differences.append(f"admission {admission_of(x)!r} -> {admission_of(y)!r}")
        for test in sorted(set(x["tests"]) | set(y["tests"])):
            t, u = x["tests"].get(test), y["tests"].get(test)
            if t != u:
                differences.append(f"{test}: {t} -> {u}")
        if differences:
            problems.append(f"{key}: " + "; ".join(differences))
        else:
            same += 1
    tests = sum(len(r.get("tests", {})) for r in b["results"].values())
    print(f"{same} of {len(keys)} gradings give the same points and the same verdict and points for each test "
          f"({tests} test verdicts after)")
    for p in problems:
        print("  DIFFERS " + p)
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    rec = verbs.add_parser("record", help="grade every solution of the labs and write their verdicts")
    rec.add_argument("--build-dir", default=str(ROOT / "build"))
    rec.add_argument("--labs", required=True, help="comma-separated")
    rec.add_argument("--modes", default="cpu", help="comma-separated: cpu, gpu")
    rec.add_argument("--seed", required=True)
    rec.add_argument("--only", default="", help="comma-separated solutions (default: all)")
    rec.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    rec.add_argument("--work", default="", help="where the gradings' folders go (default <build>/bench/verdicts)")
    rec.add_argument("--out", required=True)
    cmp_ = verbs.add_parser("compare", help="list every difference between two records; exit 1 if any")
    cmp_.add_argument("before")
    cmp_.add_argument("after")
    cmp_.add_argument("--labs", default="", help="comma-separated: compare only these labs' gradings")
    args = parser.parse_args()
    if args.verb == "record":
        args.work = args.work or str(Path(args.build_dir) / "bench" / "verdicts")
        return record(args)
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
