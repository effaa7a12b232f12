#!/usr/bin/env python3
"""gpulab-grade --untimed-from: a grading that takes its untimed tests' outcomes from an earlier one.

make test on a GPU runs each timed check's untimed tests beside the other checks and only its timed tests
alone, with --untimed-from. This check, in CPU execution mode (no GPU needed), grades lab 01's reference
without timing, then again with --untimed-from, and requires:
  - the second grading ran only what the first left out, and shows every untimed test with the first's verdict,
    points and seed;
  - outcomes of another solution, a file older than the solution's build or cut short, a missing folder, or
    --no-timing beside it, are refused as usage errors (exit 4) with a reason, never taken.

usage: untimed_from_test.py GPULAB_GRADE BUILD_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

LAB = "01-heat-rod"
USAGE_ERROR = 4


def test_id_of(name):
    """The lab.json id of a GoogleTest name (grader/include/gpulab/test_id.h): Sizes/Step.Matches/M33 -> Step.Matches."""
    suite, _, test = name.partition(".")
    return suite.rsplit("/", 1)[-1] + "." + test.split("/", 1)[0]


def grade(gpulab_grade, build, out, *flags):
    command = [gpulab_grade, "--build-dir", build, "--lab", LAB, "--no-build", "--mode", "cpu", "--out", out, *flags]
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return run.returncode, run.stdout


def verdicts(out):
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    lab = summary["labs"][0]
    return summary, {t["id"]: (t["verdict"], t["points"]) for t in lab["tests"]}


def main():
    gpulab_grade, build, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    failures = []

    first = os.path.join(work, "untimed")
    code, text = grade(gpulab_grade, build, first, "--solution", "reference", "--no-timing", "--seed", "4242")
    if code not in (0, 2):
        print(text)
        sys.exit(f"the untimed grading of {LAB}'s reference failed (exit {code})")
    outcomes = os.path.join(first, LAB, "outcomes.json")
    if not os.path.exists(outcomes):
        sys.exit(f"a grading wrote no {outcomes}")

    second = os.path.join(work, "timed")
    code, text = grade(gpulab_grade, build, second, "--solution", "reference", "--untimed-from", first)
    if code not in (0, 2):
        failures.append(f"--untimed-from: exit {code}\n{text}")
    else:
        if "untimed tests as graded in" not in text:
            failures.append("--untimed-from did not say where its untimed outcomes came from:\n" + text)
        before_summary, before = verdicts(first)
        after_summary, after = verdicts(second)
        if after_summary.get("seed") != "4242":
            failures.append(f"the second grading's seed is {after_summary.get('seed')!r}, not the first's 4242")
        with open(os.path.join(build, "gpulab-labs", LAB + ".json")) as f:
            config_path = json.load(f)["config"]
        with open(config_path) as f:
            timed = {t["id"] for t in json.load(f)["tests"] if t.get("timing")}
        for test_id, verdict in before.items():
            if test_id in timed:
                continue
            if after.get(test_id) != verdict:
                failures.append(f"{test_id}: {after.get(test_id)} after --untimed-from, {verdict} before")
        # The untimed tests did not run again: every test the second grading started is a timed one.
        with open(os.path.join(second, LAB, "progress.jsonl")) as f:
            started = [json.loads(line)["test"] for line in f if json.loads(line).get("event") == "start"]
        ran_again = [name for name in started if test_id_of(name) not in timed]
        if ran_again:
            failures.append("untimed tests ran again: " + ", ".join(ran_again[:5]))

    refusals = [
        ("another solution's outcomes", ["--solution", "starter", "--untimed-from", first], "solution"),
        ("a folder with no outcomes", ["--solution", "reference", "--untimed-from", os.path.join(work, "nowhere")],
         "no earlier outcomes"),
        ("--no-timing beside it", ["--solution", "reference", "--no-timing", "--untimed-from", first], "--untimed-from"),
    ]
    for what, flags, reason in refusals:
        code, text = grade(gpulab_grade, build, os.path.join(work, "refused"), *flags)
        if code != USAGE_ERROR or reason not in text:
            failures.append(f"{what}: exit {code} (want {USAGE_ERROR}, a reason naming {reason!r}):\n{text[-800:]}")
    # Outcomes graded before the solution's last build are another build's.
    os.utime(outcomes, (0, 0))
    code, text = grade(gpulab_grade, build, os.path.join(work, "refused"), "--solution", "reference", "--untimed-from", first)
    if code != USAGE_ERROR or "older than" not in text:
        failures.append(f"outcomes older than the build: exit {code} (want {USAGE_ERROR}, 'older than'):\n{text[-800:]}")

    with open(outcomes, "w") as f:
        f.write('{"lab": "01-heat-rod", "tests": [')
    code, text = grade(gpulab_grade, build, os.path.join(work, "refused"), "--solution", "reference", "--untimed-from", first)
    if code != USAGE_ERROR or "cannot read the earlier outcomes" not in text:
        failures.append(f"a corrupt outcomes file: exit {code} (want {USAGE_ERROR}, 'cannot read'):\n{text[-800:]}")

    if failures:
        print("\n\n".join(failures))
        sys.exit(1)
    print(f"--untimed-from took {LAB}'s untimed outcomes and seed from an earlier grading, ran only the timed tests, "
          "and refused another solution's, a stale file, a corrupt one, a missing folder and --no-timing")


if __name__ == "__main__":
    main()
