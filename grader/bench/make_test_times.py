#!/usr/bin/env python3
"""Where `make test`'s minutes go: the build, the checks that run side by side, the timed checks that run alone,
and how busy the host's cores and the GPU were meanwhile.

Runs a command (by default `make test`) with every output line stamped with the second it was printed, samples
the cores' use (/proc/stat) and, where nvidia-smi answers, the GPU's (utilization.gpu) every --every seconds, and
then reads CTest's result lines ("Test #N: name ..... Passed 12.34 sec") back: each check's end and duration.
Prints the phases, the longest checks, the check seconds per kind, and a timeline of how many checks ran at
once beside the cores' and the GPU's use. With --from-log it reads a log this script (or `ts '%s'`) wrote
before instead of running anything.

This is a benchmark, not a test: nothing here passes or fails on a time.

  grader/bench/make_test_times.py --log build/make-test-times.log              # make test, then the summary
  grader/bench/make_test_times.py --log out.log -- ctest --test-dir build -j 16  # any command whose output CTest writes
  grader/bench/make_test_times.py --from-log build/make-test-times.log --json times.json
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

RESULT = re.compile(r"Test +#(\d+): (\S+) \.*\s*(?:\*\*\*)?(\w+)\b.*?([\d.]+) sec")
CTEST_START = re.compile(r"^(ctest\b|Test project )")


def cpu_busy_fraction(before, after):
    """The share of the cores' time spent working between two /proc/stat 'cpu' lines."""
    idle = lambda f: f[3] + f[4]  # idle + iowait
    total = sum(after) - sum(before)
    return 0.0 if total <= 0 else 1.0 - (idle(after) - idle(before)) / total


def read_cpu_line():
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:]]


def sample(samples, stop, every):
    """(seconds since the epoch, cores busy 0..1, GPU busy 0..1 or None) every `every` seconds until `stop`."""
    smi = shutil.which("nvidia-smi")
    before = read_cpu_line()
    while not stop.wait(every):
        after = read_cpu_line()
        gpu = None
        if smi:
            try:
                text = subprocess.run([smi, "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"],
                                      capture_output=True, text=True, timeout=10).stdout
                values = [float(v) for v in text.split()]
                gpu = sum(values) / len(values) / 100.0 if values else None
            except (subprocess.SubprocessError, ValueError):
                gpu = None
        samples.append((time.time(), cpu_busy_fraction(before, after), gpu))
        before = after


def run(command, log_path, every):
    """Runs `command`, writing '<epoch> <line>' to log_path; returns its exit status and the samples."""
    samples, stop = [], threading.Event()
    sampler = threading.Thread(target=sample, args=(samples, stop, every), daemon=True)
    sampler.start()
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        for line in process.stdout:
            log.write(f"{int(time.time())} {line}")
            log.flush()
        status = process.wait()
    stop.set()
    sampler.join()
    with open(str(log_path) + ".samples.json", "w") as f:
        json.dump(samples, f)
    return status, samples


def read_log(log_path):
    """The stamped lines: (second, text) each."""
    lines = []
    for raw in Path(log_path).read_text(errors="replace").splitlines():
        stamp, _, text = raw.partition(" ")
        if stamp.isdigit():
            lines.append((int(stamp), text))
    return lines


def kind_of(name):
    """The kind of check, for the sums: a lab check's kind is the folder its variant sits in; another check's, the
    first part of its name (class/..., framework/..., cpu_mode.CpuMode...)."""
    for kind in ("cpu-mode-agrees-with-gpu", "wrong", "right", "cheats"):
        if f"/{kind}/" in name:
            return kind
    for suffix in ("reference-scores-full-marks", "starter-builds-and-fails-its-todos"):
        if name.endswith(suffix):
            return suffix.split("-")[0]
    return "other lab checks" if name[:2].isdigit() else re.split(r"[/.]", name)[0]


def ran_alone(check, checks):
    """Whether no other check overlapped this one (the stamps have whole seconds: a second either side is allowed).
    CTest runs a RUN_SERIAL check so, and the log shows it whatever the machine's build folder says."""
    return not any(o is not check and o["start"] < check["end"] - 1 and o["end"] > check["start"] + 1 for o in checks)


def summarize(lines, samples, top):
    start = lines[0][0] if lines else 0
    ctest_at = next((t for t, text in lines if CTEST_START.match(text)), None)
    checks = []
    for t, text in lines:
        m = RESULT.search(text)
        if m:
            checks.append({"name": m.group(2), "verdict": m.group(3), "seconds": float(m.group(4)), "end": t})
    for c in checks:
        c["start"] = c["end"] - c["seconds"]
    end = lines[-1][0] if lines else start
    summary = {"total_s": end - start, "build_s": (ctest_at - start) if ctest_at else None,
               "checks": len(checks), "check_seconds": round(sum(c["seconds"] for c in checks), 1)}
    if ctest_at is not None:
        summary["checks_s"] = end - ctest_at
    alone = [c for c in checks if ran_alone(c, checks)]
    beside = [c for c in checks if not ran_alone(c, checks)]
    if beside and ctest_at is not None:
        summary["side_by_side_end_s"] = max(c["end"] for c in beside) - ctest_at
    summary["alone_count"] = len(alone)
    summary["alone_s"] = round(sum(c["seconds"] for c in alone), 1)
    per_kind = {}
    for c in checks:
        k = per_kind.setdefault(kind_of(c["name"]), [0, 0.0])
        k[0] += 1
        k[1] += c["seconds"]
    summary["per_kind"] = {k: {"checks": n, "seconds": round(s, 1)} for k, (n, s) in per_kind.items()}
    summary["longest"] = [{"name": c["name"], "seconds": c["seconds"], "ended_s": c["end"] - (ctest_at or start)}
                          for c in sorted(checks, key=lambda c: -c["seconds"])[:top]]
    timeline = []
    if ctest_at is not None:
        for t in range(ctest_at, end + 1, 10):
            running = sum(1 for c in checks if c["start"] <= t < c["end"])
            near = [s for s in samples if t <= s[0] < t + 10]
            cpu = sum(s[1] for s in near) / len(near) if near else None
            gpus = [s[2] for s in near if s[2] is not None]
            timeline.append({"at_s": t - ctest_at, "running": running, "alone": any(
                c["start"] <= t < c["end"] for c in alone), "cpu": cpu, "gpu": sum(gpus) / len(gpus) if gpus else None})
    summary["timeline"] = timeline
    return summary


def print_summary(s):
    pct = lambda v: "   -" if v is None else f"{100 * v:3.0f}%"
    print(f"total {s['total_s']} s: build (until ctest) {s['build_s']} s, checks {s.get('checks_s')} s "
          f"({s['checks']} checks, {s['check_seconds']} check-seconds)")
    if "side_by_side_end_s" in s:
        print(f"  the checks side by side ended at second {s['side_by_side_end_s']} of the checks; "
              f"{s.get('alone_count', 0)} checks ran alone, {s.get('alone_s', 0)} s in all")
    print("\nlongest checks (seconds, ended at second of the checks):")
    for c in s["longest"]:
        print(f"  {c['seconds']:7.1f}  {c['ended_s']:4d}  {c['name']}")
    print("\ncheck-seconds per kind:")
    for kind, v in sorted(s["per_kind"].items(), key=lambda kv: -kv[1]["seconds"]):
        print(f"  {kind:32} {v['checks']:4d} checks {v['seconds']:8.1f} s")
    print("\nsecond  checks running  cores busy  GPU busy")
    for row in s["timeline"]:
        print(f"  {row['at_s']:4d}  {row['running']:3d}{' (alone)' if row['alone'] else '        '}   "
              f"{pct(row['cpu'])}        {pct(row['gpu'])}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log", default="build/make-test-times.log", help="where the stamped output goes")
    parser.add_argument("--from-log", help="summarize this stamped log instead of running anything")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between samples of the cores and the GPU")
    parser.add_argument("--top", type=int, default=12, help="how many of the longest checks to list")
    parser.add_argument("--json", help="write the summary here too")
    parser.add_argument("command", nargs="*", help="the command to time (after --); default: make test")
    args = parser.parse_args()

    samples, status = [], 0
    log = Path(args.from_log or args.log)
    if args.from_log:
        side = Path(str(log) + ".samples.json")
        if side.exists():
            samples = json.loads(side.read_text())
    else:
        log.parent.mkdir(parents=True, exist_ok=True)
        status, samples = run(args.command or ["make", "test"], log, args.every)
    if not log.is_file():
        sys.exit(f"make_test_times.py: no log at {log}")
    lines = read_log(log)
    if not lines:
        sys.exit(f"make_test_times.py: {log} holds no stamped lines ('<seconds> <text>')")
    summary = summarize(lines, samples, args.top)
    summary["exit"] = status
    print_summary(summary)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")
    if status:
        print(f"\nthe command exited {status}: its output is in {log}")
    return status


if __name__ == "__main__":
    sys.exit(main())
