#!/usr/bin/env python3
"""Grades a class on a single-node Slurm cluster started for the test (slurm_cluster.py) as a job array, kills one
array task part way, and shows that running the same command again grades only what that task lost; the
gradebook must equal a single-machine run's of the same class and seed, and every results.json and feedback must
equal it verdict for verdict.

The class: lab 01 in CPU execution mode, 16 students handed in as class_corpus_test.py hands them in (a folder, a
nested zip, a tar.gz with the wrong folder name, stray files, nothing at all): the reference, the starter,
planted bugs, a compile error, and copies of the reference and the starter under other
names; 15 submission-labs to grade, in 4 array tasks. The graders are built at most once: both runs share one
workspace folder (--workspaces), and the array tasks, one at a time on the node (--cpus-per-task = the node's CPUs),
take over the workspace the single-machine run prepared, or found prepared (make test gives this test and
class_corpus_test.py one <workspaces> folder, and runs them one after the other).

Usage: class_slurm_test.py <gpulab-grade-class> <source tree> <build folder> <scratch folder> [<workspaces>]
Exit 77 (skipped, with the reason printed) where this is not root, slurm-wlm and munge cannot be installed, the
daemons do not start, or the sandbox cannot run.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the sources for the modules imported below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import class_corpus_test as corpus  # noqa: E402
from same_reports import compare_reports  # noqa: E402
from slurm_cluster import SlurmCluster, Unavailable  # noqa: E402

SEED = "12345"
TASKS = 4
KILLED = 1  # the array task scancel'd once it has finished one of its submission-labs


def build_class(tree, build, folder):
    """{student: (shape, code)}: 16 students, 15 of them with something to grade."""
    reference = open(os.path.join(tree, "reference", corpus.LAB, corpus.SOURCE)).read()
    starter = open(os.path.join(tree, "starter", corpus.LAB, corpus.SOURCE)).read()
    wrong = lambda name: open(corpus.variant(build, "wrong", name)).read()
    students = {
        "alice": ("folder-exact", reference), "bob": ("zip-nested", starter),
        "carol": ("targz-wrong-folder", wrong("off-by-one-boundary")), "dave": ("folder-exact", wrong("does-not-compile")),
        "frank": ("empty", None), "grace": ("stray-files", reference),
        "heidi": ("folder-exact", wrong("upside-down-dt")), "judy": ("folder-exact", wrong("grid-rounded-down")),
        "ivan": ("folder-exact", wrong("solve-truncates-step-count")),
    }
    # Copies under other names: three of the reference, four of the untouched starter (cheap to grade).
    for name, code in (("hank", reference), ("iris", reference), ("jack", reference), ("kate", starter),
                       ("liam", starter), ("mia", starter), ("noah", starter)):
        students[name] = ("folder-exact", code)
    corpus.hand_in(students, folder)
    return students


def run(command, log, env=None):
    started = time.time()
    with open(log, "w") as f:
        done = subprocess.run(command, stdout=f, stderr=subprocess.STDOUT, env=env)
    return done.returncode, open(log).read(), time.time() - started


def shard_items(batch, task):
    with open(os.path.join(batch, f"shard-{task}.json")) as f:
        return {(i["student"], i["lab"]) for i in json.load(f)["items"]}


def has_result(batch, item):
    return os.path.exists(os.path.join(batch, "results", f"{item[0]}.{item[1]}.json"))


def kill_one_task(program_run, batch_dir, env, deadline):
    """Waits for task KILLED to finish one submission-lab, then scancels it; returns (job id, what it had done)."""
    batch_json = os.path.join(batch_dir, "batch.json")
    job = ""
    while time.time() < deadline and program_run.poll() is None:
        if not job and os.path.exists(batch_json):
            job = json.load(open(batch_json)).get("job_id", "")
        if job:
            mine = shard_items(batch_dir, KILLED)
            done = {i for i in mine if has_result(batch_dir, i)}
            if done and len(done) < len(mine):
                subprocess.run(["scancel", f"{job}_{KILLED}"], env=env, check=True)
                return job, done
            if len(done) == len(mine):
                raise SystemExit(f"FAIL: task {KILLED} finished all of its shard before it could be killed")
        time.sleep(0.1)
    raise SystemExit(f"FAIL: task {KILLED} never finished a first submission-lab (the command exited {program_run.poll()})")


def main():
    program, tree, build, scratch = sys.argv[1:5]
    started = time.time()
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    submissions = os.path.join(scratch, "submissions")
    local, cluster_out = os.path.join(scratch, "single-machine"), os.path.join(scratch, "cluster")
    students = build_class(tree, build, submissions)
    # One workspace folder for both runs, which the sandbox's user (nobody, as root) must be able to reach.
    own_workspaces = None
    workspaces = corpus.shared_workspaces(sys.argv[5] if len(sys.argv) > 5 else None) or os.path.join(scratch, "workspaces")
    if not corpus.reachable_by_others(workspaces):
        own_workspaces = workspaces = tempfile.mkdtemp(prefix="gpulab-slurm-test-ws-", dir="/var/tmp")
        os.chmod(workspaces, 0o711)
    common = ["--submissions", submissions, "--tree", tree, "--labs", corpus.LAB, "--mode", "cpu", "--seed", SEED,
              "--lab-time-limit", "600", "--workspaces", workspaces]
    try:
        with SlurmCluster() as cluster:
            print(f"cluster up in {time.time() - started:.1f} s: {cluster.cpus} CPU(s), configuration in {cluster.dir}",
                  flush=True)
            return with_cluster(program, cluster, common, local, cluster_out, students, scratch, started)
    except Unavailable as e:
        print(f"SKIP: no Slurm cluster here: {e}")
        return 77
    finally:
        if own_workspaces:
            shutil.rmtree(own_workspaces, ignore_errors=True)


def with_cluster(program, cluster, common, local, cluster_out, students, scratch, started):
    problems = []
    # The verdicts to match: one machine, one worker (it also prepares the workspace the array tasks take over).
    status, output, seconds = run([program, "--out", local, "--workers", "1"] + common, os.path.join(scratch, "single-machine.log"))
    if status == 3:
        print(output[-3000:] + "\nSKIP: the sandbox cannot run here")
        return 77
    if status != 0:
        print(output[-4000:] + f"\nFAIL: the single-machine run exited {status}")
        return 1
    print(f"single-machine run: {seconds:.0f} s ({len(students) - 1} submission-labs graded, in a workspace "
          f"{'found prepared' if 'preparing its copy' not in output else 'it prepared'})", flush=True)

    slurm = [program, "--slurm", "--out", cluster_out, "--partition", cluster.partition, "--array-tasks", str(TASKS),
             "--cpus-per-task", str(cluster.cpus), "--time", "20", "--poll", "1"] + common
    # First run: one array task killed part way. The command waits for the others, names the dead task and why,
    # and exits 5: work was lost.
    first_log = os.path.join(scratch, "cluster-first.log")
    t0 = time.time()
    with open(first_log, "w") as log:
        first = subprocess.Popen(slurm, stdout=log, stderr=subprocess.STDOUT, env=cluster.env)
        batch1 = os.path.join(cluster_out, "slurm", "batch-001")
        try:
            job, done_before_kill = kill_one_task(first, batch1, cluster.env, time.time() + 600)
        finally:
            first.wait(timeout=900)
    output = open(first_log).read()
    lines = output.splitlines()
    named = next((n for n, line in enumerate(lines) if "] array task " in line), None)
    print(f"first cluster run: {time.time() - t0:.0f} s, exit {first.returncode}; the dead task as it named it, and its end:\n" +
          ("\n".join(lines[named:named + 5]) + "\n...\n" if named is not None else "") + "\n".join(lines[-7:]))
    lost = {i for i in shard_items(batch1, KILLED) if not has_result(batch1, i)}
    print(f"killed task {KILLED} (job {job}_{KILLED}) after {sorted(done_before_kill)}; it lost {sorted(lost)}")
    if first.returncode != 5:
        problems.append(f"the run with a killed task exited {first.returncode}, not 5 (work lost)")
    if f"array task {KILLED} (job {job}_{KILLED}) CANCELLED" not in output:
        problems.append(f"the run did not name array task {KILLED} as CANCELLED")
    if not lost:
        problems.append("the killed task lost nothing: the kill came too late to show a recovery")
    stamps_before = corpus.finished_at(cluster_out)

    # Run again: only what the killed task lost is submitted (a new array), everything else is kept as it was.
    t0 = time.time()
    status, output, _ = run(slurm, os.path.join(scratch, "cluster-again.log"), env=cluster.env)
    print(f"second cluster run: {time.time() - t0:.0f} s, exit {status}; its end:\n" + "\n".join(output.splitlines()[-8:]))
    if status != 0:
        problems.append(f"the second cluster run exited {status}")
    batch2 = os.path.join(cluster_out, "slurm", "batch-002")
    if not os.path.isdir(batch2):
        problems.append("the second run submitted no new array")
    else:
        resubmitted = set().union(*(shard_items(batch2, int(p.split("-")[-1][:-5]))
                                    for p in glob.glob(os.path.join(batch2, "shard-*.json"))))
        print(f"the second run's array graded {sorted(resubmitted)}")
        if resubmitted != lost:
            problems.append(f"the second array graded {sorted(resubmitted)}, not exactly what was lost {sorted(lost)}")
    stamps = corpus.finished_at(cluster_out)
    for key, stamp in stamps_before.items():
        if stamps.get(key) != stamp:
            problems.append(f"{key} was graded again by the second run")
    if len(stamps) != len(students):
        problems.append(f"{len(stamps)} results stored for {len(students)} students")

    # Importing is idempotent: a result file read again (a copy beside the original) changes nothing.
    some = sorted(glob.glob(os.path.join(cluster_out, "slurm", "batch-001", "results", "*.json")))[0]
    shutil.copy(some, os.path.join(os.path.dirname(some), "copy-of-" + os.path.basename(some)))
    status, output, _ = run(slurm, os.path.join(scratch, "cluster-third.log"), env=cluster.env)
    if status != 0 or corpus.finished_at(cluster_out) != stamps or os.path.exists(os.path.join(cluster_out, "slurm", "batch-003")):
        problems.append(f"a third run with nothing left to grade changed something (exit {status}):\n{output[-2000:]}")

    identical = compare_reports(local, cluster_out, students, problems)
    print(f"reports: the gradebook equal; {identical} of {len(students)} students' results.json and feedback byte-identical, "
          "the others equal but for measured figures")
    print("sacct -c (the job completion log; this cluster has no slurmdbd):")
    print(subprocess.run(["sacct", "-c", "-P", "-o", "JobID,JobName,State,ExitCode,NodeList,Elapsed"], env=cluster.env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout)
    print(f"test wall time so far: {time.time() - started:.0f} s")
    return corpus.report(cluster_out, problems)


if __name__ == "__main__":
    sys.exit(main())
