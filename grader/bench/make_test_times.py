#!/usr/bin/env python3
"""Where `make test`'s minutes go: the build, the checks that run side by side, the timed checks that run alone,
and how busy the host's cores and the GPU were meanwhile.

Runs a command (by default `make test`) with every output line stamped with the second it was printed, samples
the cores' use (/proc/stat) and, where nvidia-smi answers, the GPU's (utilization.gpu) every --every seconds, and
then reads CTest's result lines ("Test #N: name ..... Passed 12.34 sec") back: each check's end and duration.
Each sample also adds up the CPU time of every check's processes (the check's process tree under ctest, from
/proc: what its live processes used, and what the ones they already waited for used), so the checks that keep
the cores busy are named, not only the ones that last long. Prints the phases, the longest checks, the checks
that used the most CPU, the check seconds per kind, and a timeline of how many checks ran at once beside the
cores' and the GPU's use. With --from-log it reads a log this script (or `ts '%s'`) wrote before instead of
running anything.

This is a benchmark, not a test: nothing here passes or fails on a time.

  grader/bench/make_test_times.py --log build/make-test-times.log              # make test, then the summary
  grader/bench/make_test_times.py --log out.log -- ctest --test-dir build -j 16  # any command whose output CTest writes
  grader/bench/make_test_times.py --from-log build/make-test-times.log --json times.json
"""
import argparse
import json
import os
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


def read_processes():
    """pid -> (ppid, command name, CPU seconds of the process and of the children it has waited for)."""
    tick = os.sysconf("SC_CLK_TCK")
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                text = f.read()
        except OSError:
            continue  # ended meanwhile
        name = text[text.find("(") + 1:text.rfind(")")]
        fields = text[text.rfind(")") + 2:].split()
        # after the name: state ppid ... utime(12) stime(13) cutime(14) cstime(15), counted from state as 0
        table[int(entry)] = (int(fields[1]), name, sum(int(v) for v in fields[11:15]) / tick)
    return table


def read_command(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return tuple(part.decode(errors="replace") for part in f.read().split(b"\0")[:-1])
    except OSError:
        return None


class CheckCpu:
    """The CPU seconds each check has used so far: the process ctest started for it and everything below it. A
    process that has ended counts in the one that waited for it (its parent's cutime), so adding up the live tree
    misses only what ended since the last sample without being waited for."""

    def __init__(self, build_dir):
        self.build_dir = build_dir
        self.names = None  # the checks' commands -> names, read from ctest once it runs (the build is done then)
        self.root_names = {}  # pid of a check's process -> check name
        self.seconds = {}

    def commands(self):
        try:
            text = subprocess.run(["ctest", "--test-dir", self.build_dir, "--show-only=json-v1"], capture_output=True,
                                  text=True, timeout=60).stdout
            return {tuple(t.get("command", [])): t["name"] for t in json.loads(text).get("tests", [])}
        except (subprocess.SubprocessError, ValueError, OSError):
            return {}

    def update(self):
        table = read_processes()
        ctests = {pid for pid, (_, name, _) in table.items() if name == "ctest"}
        if not ctests:
            return
        if self.names is None:
            self.names = self.commands()
        children = {}
        for pid, (ppid, _, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        for root in (pid for c in ctests for pid in children.get(c, [])):
            if root not in self.root_names:
                command = read_command(root) or ()
                # A script run through its #! line shows its interpreter first: "/bin/bash script args".
                self.root_names[root] = next((self.names[command[skip:]] for skip in range(3)
                                              if command[skip:] in self.names), None)
            name = self.root_names[root]
            if not name:
                continue
            used, stack = 0.0, [root]
            while stack:
                pid = stack.pop()
                used += table[pid][2] if pid in table else 0.0
                stack.extend(children.get(pid, []))
            self.seconds[name] = max(self.seconds.get(name, 0.0), used)


def sample(samples, stop, every, check_cpu=None):
    """(seconds since the epoch, cores busy 0..1, GPU busy 0..1 or None) every `every` seconds until `stop`; each
    check's CPU seconds into `check_cpu` meanwhile."""
    smi = shutil.which("nvidia-smi")
    before = read_cpu_line()
    while not stop.wait(every):
        if check_cpu is not None:
            try:
                check_cpu.update()
            except Exception as e:  # a benchmark's side figure: never the reason the run stops
                print(f"make_test_times.py: CPU per check not sampled: {e}", file=sys.stderr)
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


def run(command, log_path, every, build_dir):
    """Runs `command`, writing '<epoch> <line>' to log_path; returns its exit status and the samples (each check's
    CPU seconds in the last one's place, under the key "check_cpu_s" of the samples file)."""
    samples, stop, check_cpu = [], threading.Event(), CheckCpu(build_dir)
    sampler = threading.Thread(target=sample, args=(samples, stop, every, check_cpu), daemon=True)
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
        json.dump({"samples": samples, "check_cpu_s": check_cpu.seconds}, f)
    return status, samples, check_cpu.seconds


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


def summarize(lines, samples, top, check_cpu=None):
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
    beside_names = {c["name"] for c in beside}
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
    if check_cpu:
        for c in checks:
            c["cpu_s"] = check_cpu.get(c["name"])
        measured = [c for c in checks if c["cpu_s"] is not None]
        summary["cpu"] = {
            "checks_measured": len(measured),
            "cpu_seconds": round(sum(c["cpu_s"] for c in measured), 1),
            "beside_cpu_seconds": round(sum(c["cpu_s"] for c in measured if c["name"] in beside_names), 1),
            "most": [{"name": c["name"], "cpu_s": round(c["cpu_s"], 1), "seconds": c["seconds"]}
                     for c in sorted(measured, key=lambda c: -c["cpu_s"])[:top]]}
        for kind, v in summary["per_kind"].items():
            v["cpu_s"] = round(sum(c["cpu_s"] for c in measured if kind_of(c["name"]) == kind), 1)
    timeline = []
    if ctest_at is not None:
        for t in range(ctest_at, end + 1, 10):
            running = sum(1 for c in checks if c["start"] < t + 10 and c["end"] > t)
            near = [s for s in samples if t <= s[0] < t + 10]
            cpu = sum(s[1] for s in near) / len(near) if near else None
            gpus = [s[2] for s in near if s[2] is not None]
            timeline.append({"at_s": t - ctest_at, "running": running, "alone": running > 0 and all(
                c in alone for c in checks if c["start"] < t + 10 and c["end"] > t), "cpu": cpu,
                "gpu": sum(gpus) / len(gpus) if gpus else None})
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
    if "cpu" in s:
        cpu = s["cpu"]
        print(f"\nmost CPU (CPU seconds, seconds; {cpu['checks_measured']} checks measured, {cpu['cpu_seconds']} CPU "
              f"seconds in all, {cpu['beside_cpu_seconds']} of them in checks that ran side by side):")
        for c in cpu["most"]:
            print(f"  {c['cpu_s']:7.1f}  {c['seconds']:6.1f}  {c['name']}")
    print("\ncheck-seconds per kind:" + ("                    CPU seconds" if "cpu" in s else ""))
    for kind, v in sorted(s["per_kind"].items(), key=lambda kv: -kv[1]["seconds"]):
        print(f"  {kind:32} {v['checks']:4d} checks {v['seconds']:8.1f} s" +
              (f" {v['cpu_s']:10.1f}" if "cpu_s" in v else ""))
    print("\nsecond  checks running  cores busy  GPU busy  (checks running: those running at any time in the 10 s)")
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
    parser.add_argument("--build-dir", default="build", help="the build folder whose checks ctest runs (to name "
                        "each check's processes)")
    parser.add_argument("command", nargs="*", help="the command to time (after --); default: make test")
    args = parser.parse_args()

    samples, status, check_cpu = [], 0, {}
    log = Path(args.from_log or args.log)
    if args.from_log:
        side = Path(str(log) + ".samples.json")
        if side.exists():
            saved = json.loads(side.read_text())
            # written before the CPU per check was kept: a bare list of samples
            samples, check_cpu = (saved, {}) if isinstance(saved, list) else (saved["samples"], saved["check_cpu_s"])
    else:
        log.parent.mkdir(parents=True, exist_ok=True)
        status, samples, check_cpu = run(args.command or ["make", "test"], log, args.every, args.build_dir)
    if not log.is_file():
        sys.exit(f"make_test_times.py: no log at {log}")
    lines = read_log(log)
    if not lines:
        sys.exit(f"make_test_times.py: {log} holds no stamped lines ('<seconds> <text>')")
    summary = summarize(lines, samples, args.top, check_cpu)
    summary["exit"] = status
    print_summary(summary)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")
    if status:
        print(f"\nthe command exited {status}: its output is in {log}")
    return status


if __name__ == "__main__":
    sys.exit(main())
