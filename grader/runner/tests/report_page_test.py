#!/usr/bin/env python3
"""gpulab-grade's report page (issue 45, item 3), opened in a real headless browser.

Grades two of lab 03's tests on its reference in CPU execution mode (one of them draws the blurred photo), then
opens <out>/report.html in Chromium (Debian's package: the test set-up installs it) and requires:
  - the page Chromium rendered holds the grade table (each graded test's row) and the lab's picture, inline
    (a data: URI whose bytes are a PNG, so the page needs no other file and no network);
  - the page links the lab's log, and gpulab-grade's last lines name the page;
  - a screenshot of the page, kept beside it as report-page.png (the artifact a person looks at).
Quoted source lines (item 1) are not on the page yet: nothing here claims them.
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
TESTS = ["BlurImage.BeforeAndAfter", "Borders.ClampToEdge"]
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


def main():
    gpulab_grade, build, work = sys.argv[1:4]
    chrome = browser()
    if not chrome:
        print("SKIPPED: no Chromium here (Debian's package chromium; make test installs it as root or with sudo)")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    run = subprocess.run([gpulab_grade, "--build-dir", build, "--lab", LAB, "--no-build", "--mode", "cpu", "--solution",
                          "reference", "--no-timing", "--no-reports", "--filter", ":".join(f"*{t}*" for t in TESTS),
                          "--out", work], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(run.stdout[-1500:])
    page = os.path.join(work, "report.html")
    problems = []
    if not os.path.isfile(page):
        print(f"FAILED: gpulab-grade (exit {run.returncode}) wrote no {page}")
        return 1
    last_lines = run.stdout.strip().splitlines()[-3:]
    if not any(page in line for line in last_lines):
        problems.append(f"gpulab-grade's last lines do not name the page: {last_lines}")

    dom = headless(chrome, "--dump-dom", "file://" + page)
    if dom.returncode != 0 or "<table" not in dom.stdout:
        print(f"FAILED: Chromium rendered no table (exit {dom.returncode}): {dom.stderr[-800:]}")
        return 1
    rows = re.findall(r"<tr class=\"(\w+)\"><td>([^<]*)</td>", dom.stdout)
    for test in TESTS:
        if not any(cells == test and kind == "passed" for kind, cells in rows):
            problems.append(f"no passed row for {test} in the rendered table (rows: {rows[:20]})")
    pictures = re.findall(r"<img src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\" alt=\"([^\"]*)\"", dom.stdout)
    if not pictures:
        problems.append("no picture inline in the rendered page")
    for data, alt in pictures:
        if not base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n":
            problems.append(f"the picture {alt} is not a PNG's bytes")
    if f'href="{LAB}/tests.log"' not in dom.stdout or not os.path.isfile(os.path.join(work, LAB, "tests.log")):
        problems.append("the page does not link the lab's tests.log, or the log is not there")

    shot = os.path.join(work, "report-page.png")
    screenshot = headless(chrome, "--window-size=1280,2400", f"--screenshot={shot}", "file://" + page)
    if screenshot.returncode != 0 or not os.path.isfile(shot) or os.path.getsize(shot) < 20000:
        problems.append(f"no screenshot of the page ({shot}): {screenshot.stderr[-500:]}")

    for p in problems:
        print("FAILED:", p)
    if not problems:
        print(f"the page renders its table ({len(rows)} rows), {len(pictures)} inline picture(s) and its log link; "
              f"screenshot: {shot}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
