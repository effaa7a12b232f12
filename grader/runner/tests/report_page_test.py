#!/usr/bin/env python3
"""gpulab-grade's report page (issue 45, item 3), opened in a real headless browser.

Grades lab 03 three times in CPU execution mode, on a few tests each: the starter (failing), a slow/ variant whose
Report.AccessAnalysis puts its bank conflicts down to a line, and the reference (full marks). Opens each
<out>/report.html in Chromium (Debian's package: the test set-up installs it) and requires:
  - the page Chromium rendered holds the grade table (each graded test's row, failed or passed as the grading says)
    and the lab's picture, inline (a data: URI whose bytes are a PNG, so the page needs no other file and no network);
  - the slow variant's page quotes the line its spec names (gaussian_blur.cu:67), with the line's text and figure;
  - the page links the lab's log, and gpulab-grade's last lines name the page;
  - a screenshot of each page, kept beside the gradings as report-page-<which>.png (the artifacts a person looks at).
Exits 77 (skipped, with the reason) where Chromium is not installed.

usage: report_page_test.py GPULAB_GRADE BUILD_DIR WORK_DIR
"""
import base64
import os
import re
import shutil
import subprocess
import sys

LAB = "03-gaussian-blur"
PICTURED = "BlurImage.BeforeAndAfter"  # draws the blurred photo
# (which, solution, tests, whether every test passes, the quoted line the page must show)
GRADINGS = [
    ("starter", "starter", [PICTURED, "Borders.ClampToEdge"], False, None),
    ("slow", "slow/tile-read-down-its-columns-bank-conflicts", [PICTURED, "Report.AccessAnalysis"], True,
     "gaussian_blur.cu:67"),
    ("reference", "reference", [PICTURED, "Borders.ClampToEdge"], True, None),
]
SKIP = 77


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def headless(chrome, *args):
    # Root in a container has no user namespace sandbox to give; the page runs no script either way.
    command = [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args]
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)


def check_page(chrome, gpulab_grade, build, work, which, solution, tests, passes, quoted):
    """One grading and its page: the problems found (the screenshot is kept as report-page-<which>.png)."""
    out = os.path.join(work, which)
    reports = [] if any(t.startswith("Report.") for t in tests) else ["--no-reports"]
    run = subprocess.run([gpulab_grade, "--build-dir", build, "--lab", LAB, "--no-build", "--mode", "cpu", "--solution",
                          solution, "--no-timing", *reports, "--filter", ":".join(f"*{t}*" for t in tests),
                          "--out", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(f"--- {which} ({solution}): gpulab-grade exit {run.returncode}\n" + run.stdout[-1200:])
    page = os.path.join(out, "report.html")
    if not os.path.isfile(page):
        return [f"{which}: gpulab-grade (exit {run.returncode}) wrote no {page}"]
    problems = []
    last_lines = run.stdout.strip().splitlines()[-3:]
    if not any(page in line for line in last_lines):
        problems.append(f"{which}: gpulab-grade's last lines do not name the page: {last_lines}")

    dom = headless(chrome, "--dump-dom", "file://" + page)
    if dom.returncode != 0 or "<table" not in dom.stdout:
        return [f"{which}: Chromium rendered no table (exit {dom.returncode}): {dom.stderr[-800:]}"]
    rows = re.findall(r"<tr class=\"(\w+)\"><td>([^<]*)</td>", dom.stdout)
    for test in tests:
        kinds = [kind for kind, cell in rows if cell == test]
        if passes and "passed" not in kinds:
            problems.append(f"{which}: no passed row for {test} in the rendered table (rows: {rows[:20]})")
        if not passes and test != PICTURED and "lost_points" not in kinds:
            problems.append(f"{which}: no failed row for {test} in the rendered table (rows: {rows[:20]})")
    pictures = re.findall(r"<img src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\" alt=\"([^\"]*)\"", dom.stdout)
    if passes and not pictures:  # a failing kernel's run may draw none
        problems.append(f"{which}: no picture inline in the rendered page")
    for data, alt in pictures:
        if not base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n":
            problems.append(f"{which}: the picture {alt} is not a PNG's bytes")
    if quoted:
        lines = re.findall(r"<code class=\"line\">([^<]*)</code><span class=\"figure\">([^<]*)</span>", dom.stdout)
        if not any(line.startswith(quoted + "  ") and len(line) > len(quoted) + 2 and figure for line, figure in lines):
            problems.append(f"{which}: the page quotes no line {quoted} with its text and figure (quoted: {lines})")
    logs = [log for log in (f"{LAB}/tests.log", f"{LAB}/cpu/tests.log") if f'href="{log}"' in dom.stdout]
    if not logs or not all(os.path.isfile(os.path.join(out, log)) for log in logs):
        problems.append(f"{which}: the page does not link the lab's tests.log, or the log is not there")

    shot = os.path.join(work, f"report-page-{which}.png")
    screenshot = headless(chrome, "--window-size=1280,2400", f"--screenshot={shot}", "file://" + page)
    if screenshot.returncode != 0 or not os.path.isfile(shot) or os.path.getsize(shot) < 20000:
        problems.append(f"{which}: no screenshot of the page ({shot}): {screenshot.stderr[-500:]}")
    if not problems:
        print(f"{which}: the page renders its table ({len(rows)} rows), {len(pictures)} inline picture(s)"
              f"{', the quoted line ' + quoted if quoted else ''} and its log link; screenshot: {shot}")
    return problems


def main():
    gpulab_grade, build, work = sys.argv[1:4]
    chrome = browser()
    if not chrome:
        print("SKIPPED: no Chromium here (Debian's package chromium; make test installs it as root or with sudo)")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    problems = []
    for grading in GRADINGS:
        problems += check_page(chrome, gpulab_grade, build, work, *grading)
    for p in problems:
        print("FAILED:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
