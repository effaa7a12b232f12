#!/usr/bin/env python3
"""Grades a class of several labs on the GPU(s) with gpulab-grade-class, kills it part way, resumes it, and
prints the gradebook with the time each submission-lab took (build and grading apart).

The class: lab 01 as class_corpus_test.py hands it in (the reference, the starter, planted bugs, a compile
error, an endless loop, an empty submission, stray files, a nested zip, a tar.gz with the wrong folder name,
out-of-bounds writes, a context-killing write, refused and tampering cheats), plus labs 03 and 07 for some
students (a reference, a starter, planted bugs, a correct variant in another style, each kind once per lab) and
five more students, so several labs share the GPUs in one batch. Each visible GPU grades one submission-lab at a time (with
--no-timing, several: nothing is timed).

Usage: class_gpu_test.py <gpulab-grade-class> <source tree> <build folder> <scratch folder> [--students a,b,...]
                         [--only-lab <lab>] [--no-kill] [gpulab-grade-class options]
--students: only these students of the class. With gpulab-grade-class's --no-timing (the class graded beside other
work on the GPU), the students whose verdict rests on a speed test are left out, and the reference's results must
say their speed tests were not run; without it, they must have run.
--only-lab: the students hand in this lab alone (their other labs' files are removed, so the intake stores those as
empty); the workspaces are still prepared for every lab of the class, so a run after the whole class finds them ready.
--no-kill: one run to the end, for a check that proves something else than the resume (the timed verdicts).
Exit 77 (skipped) without a GPU or where the sandbox cannot run.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import class_corpus_test as corpus  # noqa: E402

# Each extra lab: its source file, and per student the solution (reference, starter, or kind/variant as CMake
# planted it in the build folder) and what the gradebook must say of it.
EXTRA = {
    # One of each kind: every planted bug has its own check (03-gaussian-blur/wrong/...); here a second reference or
    # starter only lengthened one of make test's longest checks.
    "03-gaussian-blur": ("gaussian_blur.cu", {
        "alice": ("reference", "full"), "dave": ("starter", "less"), "erin": ("wrong/halo-off-by-one", "less"),
        "judy": ("wrong/missing-syncthreads", "less"), "rupert": ("right/early-return-before-barrier", "full"),
    }),
    "07-matmul": ("matmul.cu", {
        "alice": ("reference", "full"), "grace": ("wrong/tiled-missing-syncthreads", "less"),
        "peggy": ("right/tile-16", "full"), "quentin": ("wrong/tiled-loads-ignore-edge", "less"),
    }),
}
# Lab 01 for the five students who are not in the CPU corpus.
MORE_LAB01 = {"peggy": "reference", "quentin": "wrong/off-by-one-boundary", "rupert": "starter",
              "sybil": "reference", "trent": "cheats/memoized-launch"}
# Caught by a speed test only: nothing to grade them on without timing.
CAUGHT_BY_SPEED = {"trent"}


def solution_text(tree, build, lab, source, which):
    if which in ("reference", "starter"):
        path = os.path.join(tree, which, lab, source)
    else:
        path = os.path.join(build, "labs", lab, which, source)
    with open(path) as f:
        return f.read()


def build_class(tree, build, folder):
    expected = {(s, corpus.LAB): (want, points) for s, (_, _, want, points) in corpus.build_corpus(tree, build, folder).items()}
    for student, which in MORE_LAB01.items():
        corpus.write(os.path.join(folder, student, "starter", corpus.LAB, corpus.SOURCE),
                     solution_text(tree, build, corpus.LAB, corpus.SOURCE, which))
        # The memoizing launch runs (it calls nothing refused); the speed test catches it.
        expected[(student, corpus.LAB)] = ("graded", "full" if which == "reference" else "less")
    for lab, (source, students) in EXTRA.items():
        for student, (which, points) in students.items():
            corpus.write(os.path.join(folder, student, "starter", lab, source), solution_text(tree, build, lab, source, which))
            expected[(student, lab)] = ("graded", points)
    return expected


def leave_out(folder, expected, gone):
    """The class without the students in `gone`: their submissions (a folder, or an archive named after them) removed."""
    for entry in os.listdir(folder):
        if entry.split(".")[0] in gone:
            path = os.path.join(folder, entry)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    return {key: value for key, value in expected.items() if key[0] not in gone}


def only_lab(folder, expected, lab):
    """The class with every student's other labs taken out of their folders (an archive cannot be trimmed)."""
    for student in {s for s, _ in expected}:
        if not os.path.isdir(os.path.join(folder, student)):
            raise SystemExit(f"--only-lab: {student}'s submission is an archive; give --students that hand in folders")
        for other in {l for s, l in expected if s == student and l != lab}:
            shutil.rmtree(os.path.join(folder, student, "starter", other), ignore_errors=True)
    return {key: value for key, value in expected.items() if key[1] == lab}


def timing_left_out(result_json):
    """Whether a stored result says its speed tests were not run because of --no-timing."""
    return "--no-timing" in result_json


def results(out):
    return corpus.stored(out, "status, points, max_points, build_seconds, run_seconds, gpu_name, worker, finished_at")


def own_options(passed_on):
    """This check's own options taken out of what is passed on to gpulab-grade-class: (students to keep or None,
    the one lab or None, whether to kill the first run, whether the class is graded untimed)."""
    students = None
    if "--students" in passed_on:
        at = passed_on.index("--students")
        students = set(passed_on[at + 1].split(","))
        del passed_on[at:at + 2]
    lab_alone = None
    if "--only-lab" in passed_on:
        at = passed_on.index("--only-lab")
        lab_alone = passed_on[at + 1]
        del passed_on[at:at + 2]
    no_kill = "--no-kill" in passed_on
    if no_kill:
        passed_on.remove("--no-kill")
    if "--workspaces" in passed_on:  # where the sandbox's user can reach it (class_corpus_test.shared_workspaces)
        at = passed_on.index("--workspaces") + 1
        passed_on[at] = corpus.shared_workspaces(passed_on[at])
    return students, lab_alone, not no_kill, "--no-timing" in passed_on


def problems_after(expected, before, after, out, untimed):
    """What the resumed class's results, gradebook and stored results got wrong."""
    problems = []
    for key, row in before.items():
        if after.get(key, ())[-1:] != row[-1:]:
            problems.append(f"{key} was graded again after the resume")
    book = corpus.gradebook(out)
    result_json = {key: row[0] or "" for key, row in corpus.stored(out, "result_json").items()}
    # The timing choice reached every grading: the reference's speed tests ran, or were left out, as asked.
    for (student, lab), text in result_json.items():
        if expected.get((student, lab), (None, None))[1] == "full" and timing_left_out(text) != untimed:
            problems.append(f"{student} {lab}: its speed tests were {'run' if untimed else 'left out'}, though the class "
                            f"was graded {'with --no-timing' if untimed else 'with timing'}")
    not_run = {key: float(json.loads(text or "{}").get("points_not_run") or 0) for key, text in result_json.items()}
    for (student, lab), (want, points) in sorted(expected.items()):
        row = after.get((student, lab))
        if row is None:
            problems.append(f"{student} {lab}: no result")
            continue
        status, got, most = row[0], row[1], row[2]
        # Full marks are those of the tests that ran: a GPU-only test this machine could not run (Sanitizer.NoErrors
        # where compute-sanitizer is missing) is "not run", its points neither earned nor lost.
        full = most - not_run.get((student, lab), 0)
        if (want == "graded") != (status == "graded") or (want != "graded" and want not in status):
            problems.append(f"{student} {lab}: status {status!r}, expected {want!r}")
        elif points == "full" and abs(got - full) > 1e-9:
            problems.append(f"{student} {lab}: {got}/{most}, expected full marks ({full} of the tests that ran)")
        elif points in ("less", "zero") and got >= most:
            problems.append(f"{student} {lab}: {got}/{most}, expected less than full marks")
        if student not in book:
            problems.append(f"{student}: no row in the gradebook")
    if ("mallory", corpus.LAB) in expected:
        problems += corpus.lost_context_decides_the_test(out)
    return problems


def print_times(after, labs, total, kill, killed_at):
    print("\nper submission-lab (seconds): build, grading on the GPU")
    print(f"  {'student':9} {'lab':24} {'status':18} {'points':>9} {'build':>6} {'grade':>6}  gpu / worker")
    for (student, lab), row in sorted(after.items()):
        status, got, most, build_s, run_s, gpu, worker = row[:7]
        print(f"  {student:9} {lab:24} {status:18} {got:5.0f}/{most:<3.0f} {build_s:6.1f} {run_s:6.1f}  {gpu} / {worker}")
    for lab in labs:
        rows = [r for (s, l), r in after.items() if l == lab and r[0] == "graded"]
        if rows:
            print(f"  mean over graded {lab}: build {sum(r[3] for r in rows) / len(rows):.1f} s, "
                  f"grading {sum(r[4] for r in rows) / len(rows):.1f} s ({len(rows)} graded)")
    used = sorted({r[6].split(":")[-1] for r in after.values() if ":gpu" in r[6]})
    print(f"whole class: {total:.0f} s wall ({len(after)} submission-labs, "
          f"{'killed once' if kill else 'run again'} at {killed_at:.0f} s); "
          f"GPU: {sorted({r[5] for r in after.values()} - {''})}; graded on {used}")


def main():
    program, tree, build, scratch = sys.argv[1:5]
    passed_on = sys.argv[5:]  # e.g. --gpus 2 --workers 4
    students, lab_alone, kill, untimed = own_options(passed_on)
    if shutil.which("nvidia-smi") is None or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0:
        print("SKIP: no GPU here (this check grades a class on the GPU)")
        return 77
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    submissions, out = os.path.join(scratch, "submissions"), os.path.join(scratch, "out")
    expected = build_class(tree, build, submissions)
    # The whole class's labs, whoever is left out: the workspaces are prepared for these, and a run for the same
    # labs finds them prepared.
    labs = sorted({lab for _, lab in expected})
    everyone = {student for student, _ in expected}
    gone = (everyone - students if students is not None else set()) | (CAUGHT_BY_SPEED if untimed else set())
    expected = leave_out(submissions, expected, gone)
    if lab_alone is not None:
        expected = only_lab(submissions, expected, lab_alone)
    command = [program, "--submissions", submissions, "--out", out, "--tree", tree, "--labs", ",".join(labs),
               "--mode", "gpu", "--seed", "12345"] + passed_on
    print(f"{len(os.listdir(submissions))} submissions, {len(expected)} submission-labs over {labs}")

    started = time.time()
    log = open(os.path.join(scratch, "first-run.log"), "w")
    first = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    # Rows the intake stores at once (a lab a student did not hand in is "empty") do not count: the kill must
    # come while submission-labs are being built and graded.
    graded = lambda: [k for k, r in results(out).items() if r[6] != "intake"]
    if kill:
        while first.poll() is None and len(graded()) < len(expected) // 3:
            time.sleep(0.5)
    else:
        first.wait()
    if first.poll() is None:
        first.send_signal(signal.SIGKILL)
        first.wait()
    elif first.returncode == 3:
        print(open(os.path.join(scratch, "first-run.log")).read()[-3000:])
        print("SKIP: the sandbox cannot run here")
        return 77
    before = results(out)
    killed_at = time.time() - started
    if kill:
        print(f"killed the batch with SIGKILL after {killed_at:.0f} s, {len(before)} result(s) stored, "
              f"{len(graded())} of them built and graded")
    else:  # the run again, which must find everything graded
        print(f"the batch ended (exit {first.returncode}) after {killed_at:.0f} s, {len(before)} result(s) stored")

    second = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    total = time.time() - started
    with open(os.path.join(scratch, "resumed-run.log"), "w") as f:
        f.write(second.stdout)
    print(second.stdout[-2500:])
    after = results(out)
    problems = [] if second.returncode == 0 else [f"the resumed batch exited {second.returncode}"]
    if not kill and first.returncode != 0:
        problems.append(f"the batch exited {first.returncode} (first-run.log)")
    problems += problems_after(expected, before, after, out, untimed)
    print_times(after, labs, total, kill, killed_at)
    return corpus.report(out, problems)


if __name__ == "__main__":
    sys.exit(main())
