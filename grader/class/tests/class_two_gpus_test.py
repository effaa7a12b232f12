#!/usr/bin/env python3
"""Grades one class on two GPUs and again on one, with the same seed, and requires the same reports: the gradebook
equal, each student's results.json equal verdict for verdict (every test's points and verdict; its messages carry
figures measured on the GPU, such as 2477 GB/s, and a wrong kernel's count of wrong pixels where it reads
uninitialised shared memory, which differ from run to run). It also requires that the two-GPU run
really graded on both GPUs at once (each GPU graded submission-labs, and gradings on the two overlapped in time),
and that the one-GPU run kept to one; that side by side each GPU's gradings kept to their own share of the host's
cores, and alone to none. It prints both runs' grading time (from the first submission-lab's build to
the last result; preparing the workspaces left out) and their ratio, which is a measurement, not a requirement.

The class: labs 01 and 03, twelve students, each lab holding the reference, the starter, planted bugs whose
verdict does not depend on timing (no races: a racy kernel may fail a different number of cases in each run),
correct variants in other styles, a memoizing cheat the speed test catches and a compile error. The two-GPU run
goes first and prepares the workspaces that the one-GPU run then finds ready (--workspaces), so any cost of
preparing lands on the two-GPU side of the ratio.

Usage: class_two_gpus_test.py <gpulab-grade-class> <source tree> <build folder> <scratch folder> [options for both runs]
Exit 77 (skipped, with the reason) where fewer than two GPUs are visible or the sandbox cannot run.
"""
import datetime
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import class_corpus_test as corpus  # noqa: E402
from class_gpu_test import solution_text  # noqa: E402
from same_reports import compare_reports  # noqa: E402

SEED = "12345"
# lab: (its source file, {student: the solution handed in, as in class_gpu_test.py})
CLASS = {
    "01-heat-rod": ("heat_rod.cu", {
        "alice": "reference", "bob": "starter", "carol": "wrong/off-by-one-boundary", "dave": "wrong/does-not-compile",
        "erin": "wrong/upside-down-dt", "frank": "right/grid-stride-loop", "grace": "reference",
        "heidi": "wrong/grid-rounded-down", "ivan": "cheats/memoized-launch", "judy": "wrong/step-updates-first-block-only",
        "kate": "reference", "liam": "starter",
    }),
    "03-gaussian-blur": ("gaussian_blur.cu", {
        "alice": "reference", "bob": "starter", "carol": "wrong/halo-off-by-one", "dave": "reference",
        "erin": "wrong/border-pixels-skipped", "frank": "right/static-tile-32x8", "grace": "wrong/truncating-rounding",
        "heidi": "right/early-return-before-barrier", "ivan": "cheats/memoized-naive-blur", "judy": "wrong/zero-padding-border",
        "kate": "wrong/naive-saturates-at-255", "liam": "reference",
    }),
}


def visible_gpus():
    """The GPUs this process may use: nvidia-smi's list, narrowed by CUDA_VISIBLE_DEVICES where it is set."""
    if shutil.which("nvidia-smi") is None:
        return 0
    listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    count = sum(line.startswith("GPU ") for line in listed.stdout.splitlines()) if listed.returncode == 0 else 0
    given = os.environ.get("CUDA_VISIBLE_DEVICES")
    return min(count, len([e for e in given.split(",") if e])) if given is not None else count


def hand_in(tree, build, folder):
    for lab, (source, students) in CLASS.items():
        for student, which in students.items():
            corpus.write(os.path.join(folder, student, "starter", lab, source),
                         solution_text(tree, build, lab, source, which))
    return sorted({s for _, students in CLASS.values() for s in students})


def when(stamp):
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def gradings(out):
    """[(gpu, start, end, build start)] of every submission-lab that reached a GPU, from the results database."""
    rows = corpus.stored(out, "worker, build_seconds, run_seconds, finished_at")
    found = []
    for worker, build_s, run_s, finished in rows.values():
        if ":gpu" in worker:
            end = when(finished)
            found.append((worker.split(":gpu")[-1], end - run_s, end, end - run_s - build_s))
    return found


def grading_span(found):
    """Seconds from the first submission-lab's build to the last result: the batch's grading, its workspaces'
    preparation left out."""
    return max(g[2] for g in found) - min(g[3] for g in found) if found else 0.0


def overlap_seconds(found, a, b):
    """How long GPU a and GPU b graded at the same time."""
    total = 0.0
    for ga, sa, ea, _ in found:
        for gb, sb, eb, _ in found:
            if ga == a and gb == b:
                total += max(0.0, min(ea, eb) - max(sa, sb))
    return total


def grade(command, log):
    started = time.time()
    with open(log, "w") as f:
        status = subprocess.run(command, stdout=f, stderr=subprocess.STDOUT).returncode
    return status, time.time() - started


def main():
    program, tree, build, scratch = sys.argv[1:5]
    passed_on = sys.argv[5:]  # e.g. --workers 4
    gpus = visible_gpus()
    if gpus < 2:
        print(f"SKIP: {gpus} GPU(s) visible here; this check grades a class on two GPUs and on one")
        return 77
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    submissions = os.path.join(scratch, "submissions")
    students = hand_in(tree, build, submissions)
    workspaces = corpus.shared_workspaces(os.path.join(scratch, "workspaces"))
    common = [program, "--submissions", submissions, "--tree", tree, "--labs", ",".join(CLASS), "--mode", "gpu",
              "--seed", SEED, "--workspaces", workspaces] + passed_on
    items = sum(len(s) for _, s in CLASS.values())
    print(f"{len(students)} students, {items} submission-labs over {sorted(CLASS)}; {gpus} GPUs visible", flush=True)

    runs = {}
    for name, count in (("two GPUs", 2), ("one GPU", 1)):
        out = os.path.join(scratch, name.replace(" ", "-"))
        status, wall = grade(common + ["--out", out, "--gpus", str(count)], out + ".log")
        if status == 3:
            print(open(out + ".log").read()[-3000:] + "\nSKIP: the sandbox cannot run here")
            return 77
        found = gradings(out)
        runs[name] = (out, status, wall, found)
        used = sorted({g[0] for g in found})
        print(f"{name}: exit {status}, {wall:.0f} s wall, grading {grading_span(found):.1f} s "
              f"(first build to last result), GPU busy {sum(g[2] - g[1] for g in found):.1f} s, on GPU(s) {used}", flush=True)

    problems = []
    for name, (out, status, _, _) in runs.items():
        if status != 0:
            problems.append(f"the {name} run exited {status}; the end of its log:\n" + open(out + ".log").read()[-2000:])
    two, one = runs["two GPUs"][3], runs["one GPU"][3]
    used_two, used_one = sorted({g[0] for g in two}), sorted({g[0] for g in one})
    if len(used_two) != 2:
        problems.append(f"the two-GPU run graded on GPU(s) {used_two}, not on two")
    else:
        both = overlap_seconds(two, *used_two)
        print(f"the two GPUs graded at the same time for {both:.1f} s; per GPU: " +
              ", ".join(f"GPU {g} {sum(1 for x in two if x[0] == g)} submission-labs" for g in used_two))
        if both <= 0:
            problems.append("the two GPUs never graded at the same time")
    if len(used_one) != 1:
        problems.append(f"the one-GPU run graded on GPU(s) {used_one}")
    # Side by side, each GPU's gradings keep to their own cores (cpu_shares.h); alone, a grading has them all.
    split = {name: [line.strip() for line in open(out + ".log") if "keep to their own cores" in line]
             for name, (out, _, _, _) in runs.items()}
    if split["two GPUs"]:
        print(split["two GPUs"][0])
    else:
        problems.append("the two-GPU run did not say how it split the host's cores between the GPUs")
    if split["one GPU"]:
        problems.append("the one-GPU run kept its gradings to part of the host's cores: " + split["one GPU"][0])
    identical = compare_reports(runs["one GPU"][0], runs["two GPUs"][0], students, problems, ("one-GPU", "two-GPU"),
                                messages=False)
    span_one, span_two = grading_span(one), grading_span(two)
    if span_one > 0 and span_two > 0:
        print(f"grading time: one GPU {span_one:.1f} s, two GPUs {span_two:.1f} s: {span_two / span_one:.2f} of it")
    print(f"reports: {identical} of {len(students)} students' results.json and feedback byte-identical"
          f"{'' if problems else ', the others with the same verdicts (the figures measured on a GPU differ)'}")
    return corpus.report(runs["two GPUs"][0], problems)


if __name__ == "__main__":
    sys.exit(main())
