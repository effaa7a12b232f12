"""Two gradings of one class must give the same reports: the gradebook equal, and each student's results.json and
feedback equal verdict for verdict. Shared by the checks that grade a class two ways (on a Slurm cluster and on one
machine; on two GPUs and on one)."""
import json
import os
import re

import class_corpus_test as corpus


def without_figures(text):
    """The text with every measured figure (a decimal or exponent number) masked: what must match verdict for verdict.
    Points, case counts (24/29 failed) and every word stay."""
    return re.sub(r"\d+\.\d+(e[-+]?\d+)?|\d+e[-+]?\d+", "#", text)


def verdicts(results_json):
    """What a grading decided, from a Gradescope results.json: the total, and each test's points and verdict
    ("passed", "6/12 failed", ...), without the messages that carry measured figures."""
    with open(results_json) as f:
        results = json.load(f)
    return results.get("score"), [(t.get("name"), t.get("score"), t.get("max_score"), t.get("status"))
                                  for t in results.get("tests", [])]


def compare_reports(first, second, students, problems, names=("single machine", "cluster"), messages=True):
    """The second run's gradebook must equal the first's, and each student's results.json its verdicts (every
    test's points and verdict). With messages, each results.json and feedback must also equal the first's word for
    word, figures masked: a figure measured on a racy kernel's wrong answer, such as wrong/in-place-update's, differs
    in its digits from run to run. Without (on a GPU, where every speed figure and a wrong kernel's count of wrong
    cells read from uninitialised memory differ from run to run), verdicts only. Appends what differs to problems;
    returns how many students' reports are byte-identical."""
    book_first, book_second = corpus.gradebook(first), corpus.gradebook(second)
    for s in sorted(set(book_first) | set(book_second)):
        if book_first.get(s) != book_second.get(s):
            problems.append(f"gradebook row of {s}: {names[0]} {book_first.get(s)}, {names[1]} {book_second.get(s)}")
    identical = 0
    for s in students:
        same = True
        for name in ("results.json", "feedback.md", "feedback.html"):
            a, b = os.path.join(first, "students", s, name), os.path.join(second, "students", s, name)
            if not os.path.exists(b):
                problems.append(f"{s}: the {names[1]} run wrote no {name}")
                same = False
                continue
            mine, theirs = open(a).read(), open(b).read()
            same = same and mine == theirs
            decided = (verdicts(a), verdicts(b)) if name == "results.json" else None
            if decided and decided[0] != decided[1]:
                differ = [f"{x} -> {y}" for x, y in zip(decided[0][1], decided[1][1]) if x != y]
                problems.append(f"{s}: the {names[1]} run's verdicts differ from the {names[0]} run's: "
                                f"{'; '.join(differ[:4]) or 'other tests or total'}")
            elif messages and without_figures(mine) != without_figures(theirs):
                problems.append(f"{s}: {name} of the {names[1]} run differs from the {names[0]} run's beyond measured figures")
        identical += same
    return identical
