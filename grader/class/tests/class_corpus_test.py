#!/usr/bin/env python3
"""Grades a small class of submissions with gpulab-grade-class in CPU execution mode and checks the gradebook.

The corpus is built at test time from this repository (lab 01's reference, starter, planted bugs and cheats, as
CMake wrote them into the build folder), in the shapes students hand things in: a folder, a zip of a folder
(nested one level too deep), a tar.gz with the wrong folder name, stray files, nothing at all. Then the batch
is killed with SIGKILL part way, resumed, and must lose nothing and grade nothing twice.

Usage: class_corpus_test.py <gpulab-grade-class> <source tree> <build folder> <scratch folder> [<workspaces>]
<workspaces>: the --workspaces folder, shared with class_slurm_test.py (make test runs the two one after the other):
the workers' prepared copies of the tree are reused, as the runs of one course reuse them (a minute of building
lab 01's graders on two cores, once instead of twice). Exit 77 (skipped) where the sandbox cannot run.
"""
import csv
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

LAB = "01-heat-rod"
SOURCE = "heat_rod.cu"
# Every test's time limit (gpulab-grade-class --test-time-limit): what the endless loop costs, twice.
TEST_TIME_LIMIT_S = 10


def variant(build, kind, name):
    return os.path.join(build, "labs", LAB, kind, name, SOURCE)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def edit(text, find, replace):
    if text.count(find) != 1:
        raise SystemExit(f"corpus: the reference no longer contains exactly one {find!r}")
    return text.replace(find, replace)


def build_corpus(tree, build, folder):
    """Each student: (how it is handed in, its heat_rod.cu or None, the status and points it must get).

    Points are checked where they are certain: full marks of what CPU mode grades for the reference, 0 for
    what is not graded. The rest only by status and "less than full"."""
    reference = open(os.path.join(tree, "reference", LAB, SOURCE)).read()
    starter = open(os.path.join(tree, "starter", LAB, SOURCE)).read()
    read = lambda kind, name: open(variant(build, kind, name)).read()
    corpus = {
        "alice": ("folder-exact", reference, "graded", "full"),
        "bob": ("zip-nested", starter, "graded", "less"),
        "carol": ("targz-wrong-folder", read("wrong", "off-by-one-boundary"), "graded", "less"),
        "dave": ("folder-exact", read("wrong", "does-not-compile"), "did not build", "zero"),
        # Never ends: two tests wait out their time limit, the rest of the lab is not run (--max-hangs 2). The limit
        # is --test-time-limit's 10 s, not lab.json's 60 s: the reference's slowest test takes about 1.5 s here.
        "erin": ("folder-exact", read("wrong", "endless-loop"), "graded", "less"),
        "frank": ("empty", None, "empty", "zero"),
        "grace": ("stray-files", reference, "graded", "full"),
        "heidi": ("folder-exact", read("cheats", "calls-exit-on-error"), "refused", "zero"),
        "ivan": ("folder-exact", read("cheats", "step-with-thrust"), "refused", "zero"),
        # The reference plus a forger that makes only allowed calls (fprintf on a repointed stdout), so it runs:
        # the signed result channel rejects its lines and the lab is voided as tampered.
        "oscar": ("folder-exact", read("cheats", "forged-lines-through-stdout-descriptor"), "tampered", "zero"),
        # Writes a few cells past the end of its output: the guard zones catch it, the rest is graded.
        "judy": ("folder-exact", edit(reference, "    if (i < M - 1) {", "    if (i < M + 40) {"), "graded", "less"),
        # Writes a gigabyte past its output: an illegal address that ends the CUDA context of the tests that
        # launch it, and nothing else.
        "mallory": ("folder-exact", edit(reference, "        out[i] = centre", "        out[i + (1 << 28)] = centre"),
                    "graded", "less"),
    }
    hand_in(corpus, folder)
    return corpus


def hand_in(corpus, folder):
    """Writes each student's submission into folder in the shape corpus gives: {student: (shape, code, ...)}."""
    os.makedirs(folder)
    for student, (shape, code, *_) in corpus.items():
        base = os.path.join(folder, student)
        if shape == "folder-exact":
            write(os.path.join(base, "starter", LAB, SOURCE), code)
        elif shape == "empty":
            os.makedirs(base)
        elif shape == "stray-files":
            write(os.path.join(base, "starter", LAB, SOURCE), code)
            write(os.path.join(base, "notes.txt"), "my notes\n")
            write(os.path.join(base, "labs", LAB, "lab.json"), '{"tests": []}\n')  # must never be taken
            write(os.path.join(base, "build", "CMakeCache.txt"), "junk\n")
        elif shape == "zip-nested":
            with zipfile.ZipFile(base + ".zip", "w") as z:
                z.writestr(f"{student}-lab/{LAB}/{SOURCE}", code)
        elif shape == "targz-wrong-folder":
            staging = base + ".staging"
            write(os.path.join(staging, "lab1", SOURCE), code)
            with tarfile.open(base + ".tar.gz", "w:gz") as t:
                t.add(os.path.join(staging, "lab1"), arcname="lab1")
            shutil.rmtree(staging)


def reachable_by_others(path):
    """Every folder from / down to path lets others through (the sandbox runs student code as nobody)."""
    at = "/"
    for part in os.path.abspath(path).split("/")[1:]:
        at = os.path.join(at, part)
        if os.path.isdir(at) and not os.stat(at).st_mode & 0o001:
            return False
    return True


def shared_workspaces(path):
    """The --workspaces folder the CPU-mode class checks share: path, where the sandbox's user (as root: nobody)
    can reach it; else a folder of their own under /var/tmp (mode 0711, an unguessable name) that path + ".location"
    names, so that the other check and the next make test find it again (a checkout in a folder only root may
    enter, such as what mktemp -d makes). None without a path."""
    if not path:
        return None
    if os.geteuid() != 0 or reachable_by_others(path):
        return path
    note = path + ".location"
    if os.path.exists(note):
        kept = open(note).read().strip()
        if os.path.isdir(kept) and not os.path.islink(kept) and reachable_by_others(kept):
            return kept
    made = tempfile.mkdtemp(prefix="gpulab-class-test-ws-", dir="/var/tmp")
    os.chmod(made, 0o711)
    with open(note, "w") as f:
        f.write(made + "\n")
    return made


def gradebook(out):
    with open(os.path.join(out, "gradebook.csv")) as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def stored(out, columns):
    """{(student, lab): (columns...)} from the results database; empty before the batch has made it."""
    path = os.path.join(out, "db", "results.sqlite")
    if not os.path.exists(path):
        return {}
    db = sqlite3.connect(path)
    try:
        return {(row[0], row[1]): row[2:] for row in db.execute(f"SELECT student, lab, {columns} FROM results")}
    except sqlite3.Error:
        return {}
    finally:
        db.close()


def finished_at(out):
    return {key: row[0] for key, row in stored(out, "finished_at").items()}


def lost_context_decides_the_test(out):
    """mallory's write a gigabyte past the output breaks the CUDA context in the first case of each test that launches
    it; the test's other cases are decided with that one, not each run in a process of its own (Step.MatchesOracle
    has 29 cases)."""
    broke = open(os.path.join(out, "students", "mallory", "results.json")).read()
    if not re.search(r"\d+ more did not run: Sizes/Step\.MatchesOracle/\S+, a case of the same test, left the CUDA "
                     r"context unusable", broke):
        return ["mallory: Step.MatchesOracle's cases after the one that lost the CUDA context were not decided with it"]
    return []


def report(out, problems):
    """Prints the gradebook and every problem found; the test's exit status."""
    print("gradebook:\n" + open(os.path.join(out, "gradebook.csv")).read())
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


def main():
    program, tree, build, scratch = sys.argv[1:5]
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    submissions, out = os.path.join(scratch, "submissions"), os.path.join(scratch, "out")
    corpus = build_corpus(tree, build, submissions)
    command = [program, "--submissions", submissions, "--out", out, "--tree", tree, "--labs", LAB, "--mode", "cpu",
               "--workers", "1", "--seed", "12345", "--lab-time-limit", "900", "--test-time-limit", str(TEST_TIME_LIMIT_S)]
    # Without a shared folder: the batch's own, <out>/work or under /var/tmp.
    workspaces = shared_workspaces(sys.argv[5] if len(sys.argv) > 5 else None)
    if workspaces:
        command += ["--workspaces", workspaces]

    # A first run, killed with SIGKILL once two results are stored.
    log = open(os.path.join(scratch, "first-run.log"), "w")
    first = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 1500
    while first.poll() is None and len(finished_at(out)) < 2 and time.time() < deadline:
        time.sleep(0.5)
    if first.poll() is None:
        first.send_signal(signal.SIGKILL)
        first.wait()
    elif first.returncode == 3:
        print(open(os.path.join(scratch, "first-run.log")).read())
        print("SKIP: the sandbox cannot run here")
        return 77
    before = finished_at(out)
    print(f"killed the batch with {len(before)} result(s) stored: {sorted(before)}")

    # Resumed: everything graded, and what was stored before the kill kept as it was (not graded again).
    second = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(second.stdout[-4000:])
    if second.returncode != 0:
        print(f"FAIL: the resumed batch exited {second.returncode}")
        return 1
    after = finished_at(out)
    problems = []
    for key, stamp in before.items():
        if after.get(key) != stamp:
            problems.append(f"{key} was graded again after the resume (finished_at {stamp} -> {after.get(key)})")
    book = gradebook(out)
    for student, (_, _, want_status, want_points) in corpus.items():
        row = book.get(student)
        if row is None:
            problems.append(f"{student}: no row in the gradebook")
            continue
        got_status, points = row["status"], float(row[LAB] or 0)
        full = float(row["max_total"]) - float(row.get("points_not_run") or 0)
        if (want_status == "graded") != (got_status == "graded") or (want_status != "graded" and want_status not in got_status):
            problems.append(f"{student}: status {got_status!r}, expected {want_status!r}")
        if want_points == "full" and abs(points - full) > 1e-9:
            problems.append(f"{student}: {points} points, expected the full {full} CPU mode grades")
        if want_points == "zero" and points != 0:
            problems.append(f"{student}: {points} points, expected 0")
        if want_points == "less" and not points < full:
            problems.append(f"{student}: {points} points, expected less than {full}")
    # A third run finds nothing to do.
    third = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if finished_at(out) != after:
        problems.append("a third run with nothing changed graded something again")
    # Grading the same submissions again gives the same grades.
    again = subprocess.run(command + ["--regrade-student", "carol"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    regraded = gradebook(out)
    if finished_at(out).get(("carol", LAB)) == after.get(("carol", LAB)):
        problems.append("--regrade-student carol did not grade carol again")
    if regraded["carol"][LAB] != book["carol"][LAB]:
        problems.append(f"carol graded twice: {book['carol'][LAB]} then {regraded['carol'][LAB]} points")
    for student in corpus:
        if not os.path.exists(os.path.join(out, "students", student, "feedback.html")):
            problems.append(f"{student}: no feedback.html")
        if not os.path.exists(os.path.join(out, "students", student, "results.json")):
            problems.append(f"{student}: no results.json")
        # The raw results of a graded lab (GoogleTest's JUnit XML too, except from a process that crashed).
        raw = os.path.join(out, "students", student, "raw", LAB)
        if corpus[student][2] == "graded" and not all(os.path.exists(os.path.join(raw, f)) for f in ("summary.json", "tests.log")):
            problems.append(f"{student}: no raw summary.json and tests.log in {raw}")
    # The endless loop was stopped by --test-time-limit's limit, twice, and the rest of its lab not run (--max-hangs).
    hung = open(os.path.join(out, "students", "erin", "results.json")).read()
    if hung.count(f"within its time limit ({TEST_TIME_LIMIT_S} s)") != 2:
        problems.append(f"erin: not two tests stopped at --test-time-limit's {TEST_TIME_LIMIT_S} s in results.json")
    problems += lost_context_decides_the_test(out)
    # The compiler's message names the file as the student knows it, not the worker's copy of the tree (whose path
    # says nothing to a student and differs with the worker that built the submission).
    compiled = open(os.path.join(out, "students", "dave", "results.json")).read()
    if f"starter/{LAB}/{SOURCE}" not in compiled or "/tree/starter/" in compiled:
        problems.append(f"dave: the compiler's message does not name starter/{LAB}/{SOURCE} as the student's own path")
    if not any(f.endswith(".xml") for f in os.listdir(os.path.join(out, "students", "alice", "raw", LAB))):
        problems.append("alice: no JUnit XML among the raw results")
    notes = json.load(open(os.path.join(out, "work", "intake", "grace.notes.json")))
    if not any("notes.txt" in n for n in notes.get(LAB, [])):
        problems.append(f"grace: the stray notes.txt is not listed as ignored: {notes}")
    return report(out, problems)


if __name__ == "__main__":
    sys.exit(main())
