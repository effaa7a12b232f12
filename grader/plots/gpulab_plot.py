#!/usr/bin/env python3
"""Every picture of gpulab, drawn with matplotlib from the data files the graders write.

    gpulab_plot.py heat2d-scaling CSV [--out PNG] [--title TEXT]
    gpulab_plot.py heat-maps JSON
    gpulab_plot.py matmul-study CSV [--out PNG] [--title TEXT]
    gpulab_plot.py class-overview CSV [--out PNG] [--title TEXT] [--top N]
    gpulab_plot.py roofline JSON [--out PNG] [--title TEXT]
    gpulab_plot.py gpu-profile JSON [--out PNG] [--title TEXT]
    gpulab_plot.py --serve

heat2d-scaling  lab 02's scaling study: columns M, and <kernel>_ms_per_step for each kernel
                (naive_ms_per_step, tiled_ms_per_step, ...); a log-log plot of ms per step against M.
heat-maps       lab 02's snapshots: one JSON holding every frame of a report, one PNG per frame:
                {"nx", "ny", "range": [lo, hi], "frames": [{"t", "png", "values", "expected"}, ...]},
                optionally "title", "x_label", "y_label", "value_label" and "extent": [x0, x1, y0, y1].
                "values" is ny rows of nx numbers, bottom row first; null is NaN or infinite (magenta).
matmul-study    lab 07's comparison: columns n, implementation, ms, tflops, status; time and TFLOP/s
                against N, one line per implementation. Rows whose status is not "measured"
                ("skipped: why", "wrong: why") are listed under the plot instead.
class-overview  a graded class (grader/class/reports.h writes overview.csv): columns record, lab,
                name, status, points, max_points, students. Rows "score" (one per student and lab:
                name is the student) give each lab's score distribution, as % of the lab's maximum,
                marked by status; rows "failing" (name is a test, students how many lost points on
                it) give a bar chart of the --top (default 15) most common failing tests.

roofline        a lab's roofline report (gpulab/roofline.h writes roofline.json): {"device", "problem",
                "roofs": {"copy_gbs", "fp32_gflops", "fp64_gflops", "int32_gops"}, "points": [{"label",
                "role" (student, reference, expert, library), "arithmetic" (fp32, fp64, int32), "intensity",
                "gops", or "absent": why}]}; log-log G op/s against operations per byte, under the memory
                roof (the copy) and the compute roofs. Points not measured are listed under the plot.
gpu-profile     a lab's GPU profile (Report.GpuProfile writes gpu_profile.json): {"device", "lab", "rows": [{"role"
                (yours, reference, expert), "suite", "instance", "call", "available", "why", and where available
                "ms", "threads_per_block", "achieved_occupancy" and "theoretical_occupancy" (0..1),
                "load_sector_use", "store_sector_use" (0..1), "load_sectors_per_request", "store_sectors_per_request",
                "shared_load_conflicts_per_request", "shared_store_conflicts_per_request",
                "dram_bytes_per_output_byte", "compulsory_dram_bytes_per_output_byte", "local_bytes_per_thread"
                (numbers or null), "causes": [names]}], "expert_why": why no expert kernel was profiled, or
                ""}; one panel per cause (occupancy, load and store sector
                use, bank conflicts, DRAM bytes against the compulsory, local memory), each timed launch's kernels
                side by side by role; the causes measured in red on their panel and in a caption, with the
                launches not profiled and why (the expert's in one line where the build has none).

For a CSV, the roofline's or the profile's JSON the picture goes to --out, else next to the CSV with the ending .png. Each PNG written is
printed on stdout as "wrote PATH". Exit status: 0 drawn; 1 the data cannot be used (one line on
stderr says why); 2 the command line is wrong; 3 matplotlib cannot be imported (the grader then
reports the plot as skipped).

--serve         draws picture after picture in one process, so Python starts and matplotlib is imported
                once (gpulab-grade's plot queue, grader/src/harness/plot.h: PlotServer). Once matplotlib
                is imported it writes {"ready": true} on stdout; then, for each line of stdin holding a
                command line as a JSON list (["roofline", "a.json", "--out", "a.png"]), it draws and
                answers one line {"exit": status, "output": what the command printed}, the status as
                above. It ends at the end of stdin; without matplotlib it exits 3 before "ready".
"""

import argparse
import contextlib
import csv
import io
import json
import math
import os
import sys

EXIT_BAD_DATA = 1
EXIT_NO_MATPLOTLIB = 3


class DataError(Exception):
    """The data file cannot be drawn: the message says which file and why."""


# ---- lab 07's implementations, in the order they are drawn, and the names a person reads ---------------

MATMUL_NAMES = {
    "cpu_serial": "CPU serial",
    "cpu_serial_bt": "CPU serial, B\u1d40",
    "cpu_openmp": "CPU OpenMP",
    "naive": "naive",
    "naive_bt": "naive on B\u1d40",
    "tiled": "tiled",
    "transpose": "transpose",
    "tiled_bt": "tiled on B\u1d40",
    "tiled_bt_with_transpose": "tiled on B\u1d40 + transpose",
    "cublas": "cuBLAS SGEMM (FP32)",
}
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "<", ">", "*", "h", "p"]


# ---- reading ------------------------------------------------------------------------------------------


def read_csv(path, required):
    """The rows of a CSV as dicts; every column in `required` must be in its header."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            header = [name.strip() for name in (reader.fieldnames or [])]
            rows = [{(k or "").strip(): (v or "").strip() for k, v in row.items()} for row in reader]
    except OSError as e:
        raise DataError(f"cannot read {path}: {e.strerror}")
    except (csv.Error, UnicodeDecodeError) as e:
        raise DataError(f"{path} is not a readable CSV file: {e}")
    if not header:
        raise DataError(f"{path} is empty (no header line)")
    for name in required:
        if name not in header:
            raise DataError(f"{path} has no column '{name}' (its columns: {', '.join(header)})")
    if not rows:
        raise DataError(f"{path} has a header but no rows")
    return header, rows


def number(text, path, line, column, positive=False):
    try:
        value = float(text)
    except ValueError:
        raise DataError(f"{path}, line {line}: '{text}' in column {column} is not a number")
    if not math.isfinite(value) or (positive and value <= 0):
        raise DataError(f"{path}, line {line}: {text} in column {column} cannot be drawn on a log axis")
    return value


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise DataError(f"cannot read {path}: {e.strerror}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise DataError(f"{path} is not valid JSON: {e}")


def field(obj, key, path, kind):
    if not isinstance(obj, dict) or key not in obj:
        raise DataError(f"{path}: the {kind} has no field '{key}'")
    return obj[key]


# ---- drawing helpers ----------------------------------------------------------------------------------


def size_axis(ax, sizes, label):
    """A log x axis ticked at exactly the sizes measured (powers of two read better than decades)."""
    from matplotlib import ticker

    ax.set_xscale("log", base=2)
    # Labels only where they do not crowd each other (1000 beside 1024 would print on top of it): a size
    # within a quarter octave of a labelled one keeps its point but gets no label.
    labelled = []
    for s in sorted(sizes, key=lambda v: (not math.log2(v).is_integer(), v)):
        if all(abs(math.log2(s) - math.log2(t)) >= 0.25 for t in labelled):
            labelled.append(s)
    labelled.sort()
    ax.set_xticks(labelled)
    ax.set_xticklabels([str(int(s)) if float(s).is_integer() else f"{s:g}" for s in labelled])
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    if sizes:
        ax.set_xlim(min(sizes) / 1.25, max(sizes) * 1.25)  # markers clear of the frame
    ax.set_xlabel(label)
    if len(sizes) > 8:
        for tick in ax.get_xticklabels():
            tick.set_rotation(45)


def log_y_axis(ax, values):
    """A log y axis labelled with plain numbers (0.05, not 5e-2); over fewer than three decades the
    2s and 5s between the powers of ten are labelled too."""
    from matplotlib import ticker

    ax.set_yscale("log")
    plain = ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    values = [v for v in values if v > 0]
    if values and math.log10(max(values) / min(values)) < 3:
        ax.yaxis.set_minor_locator(ticker.LogLocator(base=10, subs=(2, 5)))
        ax.yaxis.set_minor_formatter(plain)
    else:
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())


def grid_lines(ax):
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", axis="y", alpha=0.12)


def save(fig, out):
    folder = os.path.dirname(os.path.abspath(out))
    os.makedirs(folder, exist_ok=True)
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


# ---- heat2d-scaling ----------------------------------------------------------------------------------


def draw_heat2d_scaling(plt, path, out, title):
    header, rows = read_csv(path, ["M"])
    kernels = [name[: -len("_ms_per_step")] for name in header if name.endswith("_ms_per_step")]
    if not kernels:
        raise DataError(f"{path} has no column '<kernel>_ms_per_step' (its columns: {', '.join(header)})")
    sizes = [number(row["M"], path, i + 2, "M", positive=True) for i, row in enumerate(rows)]

    fig, ax = plt.subplots(figsize=(7.5, 5), layout="constrained")
    drawn = []
    for index, kernel in enumerate(kernels):
        column = kernel + "_ms_per_step"
        points = [(m, number(row[column], path, i + 2, column, positive=True))
                  for i, (m, row) in enumerate(zip(sizes, rows)) if row[column] != ""]
        if points:
            ax.plot(*zip(*points), marker=MARKERS[index % len(MARKERS)], label=kernel)
            drawn += [ms for _, ms in points]
    log_y_axis(ax, drawn)
    size_axis(ax, sorted(set(sizes)), "M (grid of M \u00d7 M cells)")
    ax.set_ylabel("time per step (ms)")
    grid_lines(ax)
    ax.legend(title="kernel")
    heading = "Heat on a square: time per step (step kernel + boundary kernel)"
    ax.set_title(f"{heading}\n{title}" if title else heading)
    save(fig, out)
    plt.close(fig)


# ---- heat-maps -------------------------------------------------------------------------------------------


def draw_heat_maps(plt, path):
    """The JSON: {"nx", "ny", "range": [lo, hi], "frames": [{"t", "png", "values", "expected"?}], and
    optionally "extent": [x0, x1, y0, y1] (default: cell i of 1..nx centred on x = i, likewise y),
    "x_label", "y_label", "value_label", "title"}. "values" is ny rows of nx numbers, the first row the
    bottom one; null stands for NaN or infinity, drawn magenta. "expected": true marks a frame of the
    oracle's answer. Every frame uses the colour range [lo, hi], so frames compare at a glance."""
    import numpy as np

    data = read_json(path)
    nx = field(data, "nx", path, "file")
    ny = field(data, "ny", path, "file")
    colour_range = field(data, "range", path, "file")
    frames = field(data, "frames", path, "file")
    if not (isinstance(nx, int) and isinstance(ny, int) and nx > 0 and ny > 0):
        raise DataError(f"{path}: nx and ny must be positive whole numbers (got {nx!r}, {ny!r})")
    if not (isinstance(colour_range, list) and len(colour_range) == 2
            and all(isinstance(v, (int, float)) for v in colour_range)):
        raise DataError(f"{path}: 'range' must be [lo, hi] (got {colour_range!r})")
    lo, hi = colour_range
    if not hi > lo:
        hi = lo + 1  # a flat field still gets a colour bar
    if not isinstance(frames, list) or not frames:
        raise DataError(f"{path}: 'frames' must be a list of at least one frame")
    extent = data.get("extent", [0.5, nx + 0.5, 0.5, ny + 0.5])  # cell i centred on x = i
    x_label = data.get("x_label", "x (cell index)")
    y_label = data.get("y_label", "y (cell index)")
    value_label = data.get("value_label", "value")
    heading = data.get("title", "")

    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("magenta")
    for index, frame in enumerate(frames, start=1):
        where = f"frame {index}"
        t = field(frame, "t", path, where)
        out = field(frame, "png", path, where)
        values = field(frame, "values", path, where)
        if not isinstance(t, (int, float)) or not isinstance(out, str) or not out:
            raise DataError(f"{path}, {where}: 't' must be a number and 'png' a file name")
        if not (isinstance(values, list) and len(values) == ny
                and all(isinstance(row, list) and len(row) == nx for row in values)):
            raise DataError(f"{path}, {where}: 'values' must be {ny} rows of {nx} numbers")
        try:
            grid = np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float)
        except (TypeError, ValueError):
            raise DataError(f"{path}, {where}: 'values' holds something that is not a number")
        bad = ~np.isfinite(grid)
        expected = bool(frame.get("expected", False))

        fig, ax = plt.subplots(figsize=(6.4, 5.4), layout="constrained")
        image = ax.imshow(np.ma.masked_array(grid, mask=bad), origin="lower", extent=extent, cmap=cmap,
                          vmin=lo, vmax=hi, interpolation="nearest", aspect="equal")
        bar = fig.colorbar(image, ax=ax)
        bar.set_label(value_label)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        # Two title lines in every frame, so that flipping through them the pictures stay in place.
        when = f"t = {t:.2f}"
        if expected:
            when += ", expected (the oracle's answer)"
        if bad.any():
            when += f": {int(bad.sum())} of {nx * ny} cells NaN or infinite (magenta)"
        ax.set_title("\n".join(line for line in (heading, when) if line))
        save(fig, out)
        plt.close(fig)


# ---- matmul-study ------------------------------------------------------------------------------------------


def draw_matmul_study(plt, path, out, title):
    _, rows = read_csv(path, ["n", "implementation", "ms", "tflops", "status"])
    measured = {}   # implementation -> [(n, ms, tflops)]
    not_drawn = {}  # (implementation, status) -> [n]
    seen = []
    for i, row in enumerate(rows):
        line = i + 2
        name = row["implementation"]
        if not name:
            raise DataError(f"{path}, line {line}: the column implementation is empty")
        if name not in seen:
            seen.append(name)
        n = number(row["n"], path, line, "n", positive=True)
        status = row["status"]
        if status == "measured":
            ms = number(row["ms"], path, line, "ms", positive=True)
            # A step that is not a multiplication (the transpose) may leave tflops empty.
            tflops = number(row["tflops"], path, line, "tflops") if row["tflops"] else None
            measured.setdefault(name, []).append((n, ms, tflops))
        else:
            not_drawn.setdefault((name, status or "no status"), []).append(n)
    order = [name for name in MATMUL_NAMES if name in seen] + [name for name in seen if name not in MATMUL_NAMES]

    # One line per implementation and kind of reason ("skipped", "wrong"): its sizes, and the reason given
    # at the first of them (the predicted times differ from size to size).
    grouped = {}
    for (name, status), ns in not_drawn.items():
        kind = status.split(":")[0]
        entry = grouped.setdefault((name, kind), {"ns": [], "first": (min(ns), status)})
        entry["ns"] += ns
        entry["first"] = min(entry["first"], (min(ns), status))
    notes = []
    for (name, kind), entry in grouped.items():
        listed = ", ".join(f"{n:g}" for n in sorted(entry["ns"]))
        first_n, first_status = entry["first"]
        notes.append(f"{MATMUL_NAMES.get(name, name)} at N = {listed}: {first_status}"
                     + (f" (at N = {first_n:g})" if len(entry["ns"]) > 1 else ""))
    if len(notes) > 8:
        notes = notes[:7] + [f"... and {len(notes) - 7} more (see {os.path.basename(path)})"]

    # The points that were not measured are listed in a strip under the two panels.
    note_height = 0.22 * (len(notes) + 1) if notes else 0
    fig = plt.figure(figsize=(13, 5.6 + note_height), layout="constrained")
    grid = fig.add_gridspec(2 if notes else 1, 2, height_ratios=[5.6, note_height] if notes else [1])
    time_ax, rate_ax = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
    if notes:
        note_ax = fig.add_subplot(grid[1, :])
        note_ax.axis("off")
        note_ax.text(0, 1, "Not drawn:\n" + "\n".join(notes), ha="left", va="top", fontsize=9,
                     transform=note_ax.transAxes)

    # Each implementation keeps its colour and marker whichever others are in the file.
    colours = plt.get_cmap("tab10").colors + plt.get_cmap("Dark2").colors
    known = list(MATMUL_NAMES)
    unknown = [name for name in order if name not in MATMUL_NAMES]
    drawn = 0
    for name in order:
        if name not in measured:
            continue
        index = known.index(name) if name in MATMUL_NAMES else len(known) + unknown.index(name)
        points = sorted(measured[name])
        ns = [p[0] for p in points]
        style = dict(color=colours[index % len(colours)], marker=MARKERS[index % len(MARKERS)],
                     linestyle="--" if name.startswith("cpu") else "-", label=MATMUL_NAMES.get(name, name))
        time_ax.plot(ns, [p[1] for p in points], **style)
        rated = [(n, rate) for n, _, rate in points if rate is not None]
        rate_ax.plot([p[0] for p in rated], [p[1] for p in rated], **style)
        drawn += 1
    sizes = sorted({n for points in measured.values() for n, _, _ in points} |
                   {n for ns in not_drawn.values() for n in ns})
    for ax in (time_ax, rate_ax):
        size_axis(ax, sizes, "N (N \u00d7 N matrices: M = N = K)")
        grid_lines(ax)
    log_y_axis(time_ax, [ms for points in measured.values() for _, ms, _ in points])
    time_ax.set_ylabel("time per multiplication (ms)")
    time_ax.set_title("Time (log-log)")
    rate_ax.set_ylabel("TFLOP/s  (2N\u00b3 / time)")
    rate_ax.set_ylim(bottom=0)
    rate_ax.set_title("Throughput")
    if drawn:
        rate_ax.legend(title="implementation", loc="center left", bbox_to_anchor=(1.02, 0.5))
    else:
        for ax in (time_ax, rate_ax):
            ax.text(0.5, 0.5, "nothing was measured", transform=ax.transAxes, ha="center", va="center")
    heading = "Matrix multiplication C = AB, single precision"
    fig.suptitle(f"{heading}: {title}" if title else heading)
    save(fig, out)
    plt.close(fig)


# ---- class-overview ---------------------------------------------------------------------------------------

# How each status is drawn in the score distribution; another status gets the last style.
STATUS_STYLES = {
    "graded": dict(color="#1f77b4", marker="o"),
    "did not build": dict(color="#d62728", marker="x"),
    "empty": dict(color="#7f7f7f", marker="s"),
    "refused": dict(color="#9467bd", marker="D"),
    "tampered": dict(color="#000000", marker="X"),
    "crashed": dict(color="#ff7f0e", marker="v"),
    "grader error": dict(color="#bcbd22", marker="^"),
    None: dict(color="#8c564b", marker="P"),
}


def read_class_overview(path):
    """The class CSV's scores per lab [(percent, status)], each lab's maximum, and its failing tests
    [(students, lab, test)], most common first (a tie keeps the file's order: the test's place in its lab's table)."""
    _, rows = read_csv(path, ["record", "lab", "name", "status", "points", "max_points", "students"])
    scores, maxima, failing = {}, {}, []
    for i, row in enumerate(rows):
        line = i + 2
        lab = row["lab"]
        if row["record"] == "score":
            if not lab:
                raise DataError(f"{path}, line {line}: a score row without a lab")
            points = number(row["points"], path, line, "points")
            max_points = number(row["max_points"], path, line, "max_points")
            percent = 100.0 * points / max_points if max_points > 0 else 0.0
            scores.setdefault(lab, []).append((percent, row["status"] or "no status"))
            maxima[lab] = max(maxima.get(lab, 0.0), max_points)
        elif row["record"] == "failing":
            failing.append((int(number(row["students"], path, line, "students")), lab, row["name"]))
    if not scores:
        raise DataError(f"{path} has no 'score' rows: nothing was graded")
    students = len({row["name"] for row in rows if row["record"] == "score"})
    return scores, maxima, sorted(failing, key=lambda f: -f[0]), students


def draw_score_distribution(ax, labs, scores, maxima):
    """A box over each lab's graded scores, and every score as a point, spread sideways so that equal scores stay
    countable (seeded: the same class draws the same picture)."""
    import random

    jitter = random.Random(0)
    used = set()
    for x, lab in enumerate(labs):
        graded_scores = [p for p, status in scores[lab] if status == "graded"]
        if graded_scores:
            ax.boxplot([graded_scores], positions=[x], widths=0.55, showfliers=False,
                       medianprops=dict(color="#1b1b1b"), boxprops=dict(color="#555555"),
                       whiskerprops=dict(color="#555555"), capprops=dict(color="#555555"))
        for percent, status in scores[lab]:
            style = STATUS_STYLES.get(status, STATUS_STYLES[None])
            label = status if status not in used else None
            used.add(status)
            ax.scatter([x + jitter.uniform(-0.2, 0.2)], [percent], s=26, alpha=0.75, zorder=3, label=label, **style)
    # Under each lab: how many students, and how many of them were not graded and why (their points lie
    # on top of each other at 0, so the count says what the points cannot).
    tick_labels = []
    for lab in labs:
        others = {}
        for _, status in scores[lab]:
            if status != "graded":
                others[status] = others.get(status, 0) + 1
        lines = [lab, f"max {maxima[lab]:g}, {len(scores[lab])} students"]
        lines += [f"{n} {status}" for status, n in sorted(others.items(), key=lambda item: -item[1])]
        tick_labels.append("\n".join(lines))
    ax.set_xticks(range(len(labs)))
    ax.set_xticklabels(tick_labels, fontsize=8, va="top")
    if len(labs) > 3:
        for tick in ax.get_xticklabels():
            tick.set_rotation(30)
            tick.set_ha("right")
    ax.set_xlim(-0.6, len(labs) - 0.4)
    ax.set_ylabel("score (% of the lab's maximum)")
    ax.set_title("Scores per lab (box: graded submissions)")
    ax.grid(True, axis="y", alpha=0.35)
    # The legend in a band above 100 %, where no score can be, never over the points.
    rows_of_legend = (len(used) + 3) // 4
    ax.set_ylim(-5, 108 + 9 * rows_of_legend)
    ax.set_yticks(range(0, 101, 20))
    ax.legend(fontsize=8, loc="upper center", ncol=min(4, len(used)), framealpha=0.95, handletextpad=0.2,
              columnspacing=0.9)


def draw_failing_tests(ax, shown, failing, graded, path):
    """The most common failing tests, the most common at the top."""
    if shown:
        names = [f"{lab}  {test}" for _, lab, test in shown]
        counts = [n for n, _, _ in shown]
        y = list(range(len(shown)))[::-1]
        ax.barh(y, counts, color="#c62828", alpha=0.8)
        ax.set_yticks(y)
        ax.set_yticklabels(names, fontsize=9)
        for yi, (n, lab, _) in zip(y, shown):
            ax.text(n, yi, f" {n} of {graded[lab]}", va="center", fontsize=8)
        ax.set_xlim(0, max(counts) * 1.2)
        ax.xaxis.get_major_locator().set_params(integer=True)
    else:
        ax.set_yticks([])
        ax.text(0.5, 0.5, "no graded submission lost points on a test", transform=ax.transAxes,
                ha="center", va="center")
    ax.set_xlabel("students who lost points on the test (of those graded)")
    more = f", {len(failing) - len(shown)} more in {os.path.basename(path)}" if len(failing) > len(shown) else ""
    ax.set_title(f"Most common failing tests (top {len(shown)}{more})")
    ax.grid(True, axis="x", alpha=0.35)


def draw_class_overview(plt, path, out, title, top):
    scores, maxima, failing, students = read_class_overview(path)
    labs = sorted(scores)
    graded = {lab: sum(1 for _, status in scores[lab] if status == "graded") for lab in labs}
    shown = failing[:top]
    bar_height = max(3.0, 0.32 * len(shown) + 1.4)
    fig = plt.figure(figsize=(14, max(5.6, bar_height)), layout="constrained")
    grid = fig.add_gridspec(1, 2, width_ratios=[max(2.4, 1.6 * len(labs)), 5.5])
    draw_score_distribution(fig.add_subplot(grid[0, 0]), labs, scores, maxima)
    draw_failing_tests(fig.add_subplot(grid[0, 1]), shown, failing, graded, path)
    heading = f"Class overview: {students} students, {len(labs)} labs"
    fig.suptitle(f"{heading}: {title}" if title else heading)
    save(fig, out)
    plt.close(fig)


# ---- roofline -----------------------------------------------------------------------------------------

ROOFLINE_ROLES = {  # how each kind of point is drawn, and its name in the legend
    "student": ("o", "tab:red", "yours"),
    "reference": ("s", "tab:blue", "the reference"),
    "expert": ("*", "tab:green", "expert"),
    "library": ("D", "tab:purple", "library"),
}
ROOF_NAMES = {"fp32_gflops": ("FP32 peak", "-"), "fp64_gflops": ("FP64 peak", "--"), "int32_gops": ("INT32 peak", ":")}


def draw_roofline(plt, path, out, title):
    doc = read_json(path)
    roofs = field(doc, "roofs", path, "roofline")
    copy = field(roofs, "copy_gbs", path, "roofs")
    if not isinstance(copy, (int, float)) or copy <= 0:
        raise DataError(f"{path}: the copy bandwidth must be a positive number, not {copy!r}")
    points = field(doc, "points", path, "roofline")
    measured = [p for p in points if "absent" not in p and p.get("gops", 0) > 0 and p.get("intensity", 0) > 0]
    absent = [p for p in points if "absent" in p]
    peaks = {key: roofs.get(key, 0) for key in ROOF_NAMES if roofs.get(key, 0) > 0}
    used = {p.get("arithmetic") for p in points}
    # The roofs the points are under, and FP32 and FP64 always: what the GPU offers either way.
    shown = {k: v for k, v in peaks.items() if k != "int32_gops" or "int32" in used}
    intensities = [p["intensity"] for p in measured] + [p.get("intensity", 0) for p in absent if p.get("intensity", 0) > 0]
    ridge = max(list(shown.values()) + [copy]) / copy
    lo = min(intensities + [ridge]) / 4
    hi = max(intensities + [ridge]) * 4

    fig, ax = plt.subplots(figsize=(8.5, 5.6 + 0.22 * len(absent)))
    ax.set_xscale("log")
    ax.set_yscale("log")
    top = max(shown.values()) if shown else copy * hi
    by_peak = {}  # roofs of the same height share one line and one label ("FP64, INT32 peak")
    for key, peak in shown.items():
        by_peak.setdefault(round(peak), []).append(key)
    for peak, keys in sorted(by_peak.items(), reverse=True):
        names = ", ".join(ROOF_NAMES[k][0].split()[0] for k in keys)
        ax.plot([peak / copy, hi], [peak, peak], ROOF_NAMES[keys[0]][1], color="0.25", linewidth=1.4)
        ax.annotate(f"{names} peak {peak / 1e3:.1f} T/s", (hi, peak), textcoords="offset points", xytext=(-4, 4),
                    ha="right", fontsize=8, color="0.25")
    ax.plot([lo, max(shown.values(), default=copy * hi) / copy], [copy * lo, max(shown.values(), default=copy * hi)],
            "-", color="0.25", linewidth=1.4)
    ax.annotate(f"device copy {copy:.0f} GB/s", (lo * 1.3, copy * lo * 1.3), fontsize=8, color="0.25", rotation=0)
    # Kernels of one lab share an intensity and often a speed (yours and the reference's): each role sits a
    # hair apart in x so no marker hides another, and labels are spread in y so none prints over another.
    nudge = {"student": 0.94, "reference": 1.0, "expert": 1.06, "library": 1.12}
    seen, label_y = set(), {}
    for p in sorted(measured, key=lambda q: q["gops"]):
        marker, colour, legend = ROOFLINE_ROLES.get(p.get("role"), ("x", "0.4", p.get("role", "?")))
        x = p["intensity"] * nudge.get(p.get("role"), 1.0)
        ax.scatter([x], [p["gops"]], marker=marker, color=colour, s=110 if marker == "*" else 55,
                   zorder=3, label=None if legend in seen else legend)
        seen.add(legend)
        share = f" ({100 * p['of_roof']:.0f}%)" if p.get("of_roof") else ""
        column = round(math.log10(p["intensity"]), 1)
        y = max(p["gops"], label_y.get(column, 0) * 1.13)  # about one line of text apart on these axes
        label_y[column] = y
        ax.annotate(p.get("label", "?") + share, (p["intensity"] * 1.15, y), fontsize=8, va="center")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min([p["gops"] for p in measured] + [copy * lo]) / 3, top * 2.5)
    from matplotlib import ticker
    plain = ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.yaxis.set_major_formatter(plain)
    ax.set_xlabel("arithmetic intensity (operations per compulsory byte)")
    ax.set_ylabel("G operations / s")
    grid_lines(ax)
    if seen:
        order = [legend for _, _, legend in ROOFLINE_ROLES.values()]
        handles, labels = ax.get_legend_handles_labels()
        pairs = sorted(zip(handles, labels), key=lambda hl: order.index(hl[1]) if hl[1] in order else len(order))
        ax.legend([h for h, _ in pairs], [l for _, l in pairs], loc="upper left", fontsize=8)
    heading = "Roofline: " + str(doc.get("problem", ""))
    device = doc.get("device", "")
    ax.set_title(heading + (f"\n{device}" if device else "") + (f" ({title})" if title else ""), fontsize=10)
    for i, p in enumerate(absent):
        fig.text(0.01, 0.01 + 0.03 * i, f"not on the chart: {p.get('label', '?')}: {str(p['absent'])[:150]}",
                 fontsize=7, color="0.3")
    fig.tight_layout(rect=(0, 0.03 * len(absent), 1, 1))
    save(fig, out)
    plt.close(fig)


# ---- gpu-profile ------------------------------------------------------------------------------------------

PROFILE_ROLES = {"yours": "student", "reference": "reference", "expert": "expert"}  # -> ROOFLINE_ROLES' keys
# The figures of one row that are fractions (drawn as %), and those that are counts or ratios (never negative).
PROFILE_FRACTIONS = ("achieved_occupancy", "theoretical_occupancy", "load_sector_use", "store_sector_use",
                     "branch_uniform")
PROFILE_RATIOS = ("ms", "threads_per_block", "shared_bytes_per_block", "registers", "load_sectors_per_request",
                  "store_sectors_per_request", "shared_load_conflicts_per_request",
                  "shared_store_conflicts_per_request", "global_bytes_read_per_output_byte",
                  "shared_bytes_read_per_output_byte", "dram_bytes_per_output_byte",
                  "compulsory_dram_bytes_per_output_byte", "local_bytes_per_thread")
# The panel each measured cause (gpulab/access_diagnosis.h) is read from: its title says so in red.
PROFILE_CAUSE_PANELS = {
    "blocks-end-before-they-start": "occupancy", "small-blocks": "occupancy",
    "register-limits-occupancy": "occupancy", "shared-memory-limits-occupancy": "occupancy",
    "uncoalesced-loads": "loads", "uncoalesced-stores": "stores", "bank-conflicts": "conflicts",
    "register-spills": "local",
}


def profile_rows(doc, path):
    """The rows of a gpu_profile.json, checked: each has a role and "available"; an available row's figures are
    numbers or null, fractions within 0..1 and nothing negative. Raises DataError naming the row and field."""
    rows = field(doc, "rows", path, "profile")
    if not isinstance(rows, list) or not rows:
        raise DataError(f"{path}: 'rows' must be a list of at least one profiled launch")
    if not isinstance(doc.get("expert_why", ""), str):
        raise DataError(f"{path}: 'expert_why' must be a sentence (why no expert kernel was profiled), "
                        f"not {doc.get('expert_why')!r}")
    for i, row in enumerate(rows, start=1):
        where = f"row {i}"
        role = field(row, "role", path, where)
        if not isinstance(role, str) or not role:
            raise DataError(f"{path}, {where}: 'role' must be a name (yours, reference, expert), not {role!r}")
        available = field(row, "available", path, where)
        if not isinstance(available, bool):
            raise DataError(f"{path}, {where}: 'available' must be true or false, not {available!r}")
        if not available:
            continue
        for key in PROFILE_FRACTIONS + PROFILE_RATIOS:
            value = row.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise DataError(f"{path}, {where} ({role}): '{key}' must be a number or null, not {value!r}")
            if value < 0:
                raise DataError(f"{path}, {where} ({role}): '{key}' is negative ({value:g})")
            if key in PROFILE_FRACTIONS and value > 1.0001:
                raise DataError(f"{path}, {where} ({role}): '{key}' is a fraction of 1, not {value:g}")
        causes = row.get("causes", [])
        if not isinstance(causes, list) or not all(isinstance(c, str) for c in causes):
            raise DataError(f"{path}, {where} ({role}): 'causes' must be a list of names")
    return rows


def launch_label(row):
    """A launch as the x axis names it: its test suite and size, short enough for eight launches side by side
    ("TiledBt" over "N4096"; the caption names each launch's call in full). Without them: its call, the size on a
    line of its own."""
    suite, instance = str(row.get("suite") or ""), str(row.get("instance") or "")
    if suite and instance:
        return f"{suite}\n{instance}"
    call = str(row.get("call") or f"{suite or '?'} {instance}".strip())
    head, at, size = call.partition(" at ")
    return f"{head}\n{size}" if at else call


def profile_style(role):
    """(colour, legend name) of a profile row's role."""
    _, colour, legend = ROOFLINE_ROLES.get(PROFILE_ROLES.get(role, ""), ("x", "0.5", role))
    return colour, legend


def pct(v):
    return f"{100 * v:.0f}%"


def occupancy_label(r):
    theor = r.get("theoretical_occupancy")
    threads = r.get("threads_per_block")
    text = pct(r["achieved_occupancy"]) + (f"\nof {pct(theor)}" if theor is not None else "")
    return text + (f"\n{threads:.0f} thr" if threads else "")


def sectors_label(kind):
    def label(r):
        per_request = r.get(f"{kind}_sectors_per_request")
        return pct(r[f"{kind}_sector_use"]) + (f"\n{per_request:.1f} sectors\nper request" if per_request is not None else "")
    return label


def bank_conflicts(r):
    values = [v for v in (r.get("shared_load_conflicts_per_request"), r.get("shared_store_conflicts_per_request"))
              if v is not None]
    return max(values) if values else None


def conflicts_label(r):
    ld, st = r.get("shared_load_conflicts_per_request") or 0, r.get("shared_store_conflicts_per_request") or 0
    if not r.get("shared_bytes_per_block") and ld == 0 and st == 0:
        return "no\nshared"
    if ld > 0 and st > 0:
        return f"ld {ld:.1f}\nst {st:.1f}"
    return f"{max(ld, st):.1f}" + (" (ld)" if ld > 0 else " (st)" if st > 0 else "")


def dram_label(r):
    least = r.get("compulsory_dram_bytes_per_output_byte")
    return f"{r['dram_bytes_per_output_byte']:.2f}" + (f"\nmin {least:.2f}" if least else "")


# The panels of the profile picture: (key, title, value of a row, its label, y axis label, a fraction?). The keys are
# PROFILE_CAUSE_PANELS' values: a cause is drawn on the panel it comes from.
PROFILE_PANELS = [
    ("occupancy", "Occupancy: achieved (bar)\nof theoretical (outline)", lambda r: r.get("achieved_occupancy"),
     occupancy_label, "% of the SM's warps", True),
    ("loads", "Global loads: bytes used\nper 32-byte sector fetched", lambda r: r.get("load_sector_use"),
     sectors_label("load"), "% of each sector used", True),
    ("stores", "Global stores: bytes used\nper 32-byte sector written", lambda r: r.get("store_sector_use"),
     sectors_label("store"), "% of each sector used", True),
    ("conflicts", "Shared memory: bank conflicts\n(extra turns) per request", bank_conflicts, conflicts_label,
     "extra turns per request", False),
    ("dram", "DRAM bytes moved per byte written\n(line: compulsory, each buffer once)",
     lambda r: r.get("dram_bytes_per_output_byte"), dram_label, "bytes per output byte", False),
    ("local", "Local memory per thread\n(register spills)", lambda r: r.get("local_bytes_per_thread"),
     lambda r: f"{r['local_bytes_per_thread']:.0f} B", "bytes per thread", False),
]


def profile_launch_key(row):
    return row.get("suite", ""), row.get("instance", "")


def profile_causes(doc, path, rows, launches):
    """The causes per panel (drawn in red there) and the caption's lines: each launch's times and causes, what was
    not profiled and why."""
    panel_causes, caption = {}, []
    for launch in launches:
        here = [r for r in rows if profile_launch_key(r) == launch]
        name = next((r["call"] for r in here if r.get("call")), f"{launch[0]} {launch[1]}").strip()
        times = ", ".join(f"{profile_style(r['role'])[1]} {r['ms']:.3g} ms" for r in here
                          if r["available"] and r.get("ms") is not None)
        said = []
        for r in here:
            if not r["available"]:
                continue
            causes = r.get("causes") or []
            said.append(f"{profile_style(r['role'])[1]}: " + (", ".join(causes) if causes else "no single cause stands out"))
            for cause in causes:
                panel = PROFILE_CAUSE_PANELS.get(cause)
                if panel and cause not in panel_causes.setdefault(panel, []):
                    panel_causes[panel].append(cause)
        if said:
            caption.append(f"{name}" + (f" ({times})" if times else "") + ": " + "; ".join(said))
    for r in rows:
        if not r["available"]:
            name = (r.get("call") or f"{r.get('suite', '?')} {r.get('instance', '')}").strip()
            caption.append(f"not profiled: {name} ({profile_style(r['role'])[1]}): {str(r.get('why') or 'no reason given')[:160]}")
    # Where the build has no expert kernel: one line saying why (a student release has none), not a missing bar each.
    if doc.get("expert_why"):
        caption.append(f"expert: not profiled: {doc['expert_why'][:160]}")
    if len(caption) > 12:
        caption = caption[:11] + [f"... and {len(caption) - 11} more (see {os.path.basename(path)})"]
    return panel_causes, caption


def draw_profile_panel(ax, panel, rows, launches, role_order, blamed_here):
    """One panel: a bar per role and launch, labelled, outlined where a cause was measured on it."""
    key, heading, value_of, label_of, y_label, fraction = panel
    drawn = [row for row in rows if row["available"]]
    n_roles = max(1, len(role_order))
    bar = 0.8 / n_roles
    xs = list(range(len(launches)))
    top = 0.0
    for j, role in enumerate(role_order):
        colour, _ = profile_style(role)
        for x, launch in zip(xs, launches):
            row = next((r for r in drawn if r["role"] == role and profile_launch_key(r) == launch), None)
            if row is None and not any(r["role"] == role and profile_launch_key(r) == launch for r in rows):
                continue  # this role has no kernel for this launch
            centre = x + (j - (n_roles - 1) / 2) * bar
            value = value_of(row) if row is not None else None
            if value is None:
                ax.text(centre, 0, "not\nprofiled" if row is None else "n/a", ha="center", va="bottom",
                        fontsize=7, color="0.4")
                continue
            scale = 100 if fraction else 1
            blamed = any(PROFILE_CAUSE_PANELS.get(c) == key for c in row.get("causes") or [])
            ax.bar([centre], [value * scale], width=bar * 0.9, color=colour, alpha=0.85,
                   edgecolor="black" if blamed else colour, linewidth=1.8 if blamed else 0.5,
                   hatch="//" if blamed else None, zorder=2)
            shown = value * scale
            if key == "occupancy" and row.get("theoretical_occupancy") is not None:
                theor = 100 * row["theoretical_occupancy"]
                ax.bar([centre], [theor], width=bar * 0.9, fill=False, edgecolor=colour, linestyle="--",
                       linewidth=1.3, zorder=3)
                shown = max(shown, theor)
            if key == "dram" and row.get("compulsory_dram_bytes_per_output_byte"):
                least = row["compulsory_dram_bytes_per_output_byte"]
                ax.plot([centre - bar * 0.5, centre + bar * 0.5], [least, least], color="black", linewidth=2,
                        zorder=4)
                shown = max(shown, least)
            ax.annotate(label_of(row), (centre, shown), textcoords="offset points", xytext=(0, 3), ha="center",
                        va="bottom", fontsize=7, linespacing=1.05, fontweight="bold" if blamed else "normal",
                        color="#8b1a1a" if blamed else "0.15")
            top = max(top, shown)
    ax.set_xticks(xs)
    ax.set_xticklabels([launch_label(max((r for r in rows if profile_launch_key(r) == launch),
                                         key=lambda r: bool(r.get("call")))) for launch in launches], fontsize=8)
    ax.set_xlim(-0.6, len(launches) - 0.4)
    if fraction:
        ax.set_ylim(0, 135)
        ax.set_yticks(range(0, 101, 25))
    else:
        ax.set_ylim(0, (top if top > 0 else 1) * 1.4)
    ax.set_ylabel(y_label, fontsize=8)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(True, axis="y", alpha=0.3, zorder=0)
    if blamed_here:
        ax.set_title(heading + "\ncause: " + ", ".join(blamed_here), fontsize=9, color="#8b1a1a", fontweight="bold")
    else:
        ax.set_title(heading + "\n", fontsize=9)
    if not drawn:
        ax.text(0.5, 0.5, "nothing was profiled", transform=ax.transAxes, ha="center", va="center", color="0.4")


def draw_gpu_profile(plt, path, out, title):
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D

    doc = read_json(path)
    rows = profile_rows(doc, path)
    # The launches in the file's order, one per suite and instance (as the grader finds each role's launch); in
    # each, the roles in the legend's order (yours first).
    launches = []
    for row in rows:
        if profile_launch_key(row) not in launches:
            launches.append(profile_launch_key(row))
    role_order = [r for r in PROFILE_ROLES if any(row["role"] == r for row in rows)]
    role_order += sorted({row["role"] for row in rows} - set(role_order))
    panel_causes, caption = profile_causes(doc, path, rows, launches)

    n_roles = max(1, len(role_order))
    # Wide enough that each bar's three-line label (about 0.7 inch) stays clear of its neighbour's.
    width = max(13.0, min(26.0, 3 * (0.9 + 0.75 * n_roles * len(launches))))
    caption_height = 0.3 + 0.2 * len(caption)
    fig = plt.figure(figsize=(width, 8.4 + caption_height), layout="constrained")
    # A strip for the legend above the panels (matplotlib 3.6 has no legend "outside" a constrained layout).
    grid = fig.add_gridspec(4, 3, height_ratios=[0.3, 4.2, 4.2, caption_height])
    for index, panel in enumerate(PROFILE_PANELS):
        draw_profile_panel(fig.add_subplot(grid[1 + index // 3, index % 3]), panel, rows, launches, role_order,
                           panel_causes.get(panel[0]))

    note_ax = fig.add_subplot(grid[3, :])
    note_ax.axis("off")
    note_ax.text(0, 1, "\n".join(caption) if caption else "", transform=note_ax.transAxes, va="top", ha="left",
                 fontsize=8.5, color="0.15")

    handles = [Patch(color=profile_style(role)[0], alpha=0.85, label=profile_style(role)[1]) for role in role_order]
    handles.append(Patch(facecolor="white", edgecolor="black", hatch="//", linewidth=1.8,
                         label="a measured cause of the slowdown"))
    handles.append(Line2D([], [], color="black", linewidth=2, label="compulsory DRAM bytes"))
    legend_ax = fig.add_subplot(grid[0, :])
    legend_ax.axis("off")
    legend_ax.legend(handles=handles, loc="center", ncol=len(handles), fontsize=8.5, frameon=False)
    lab = doc.get("lab", "") if isinstance(doc, dict) else ""
    device = doc.get("device", "") if isinstance(doc, dict) else ""
    heading = "Why each timed kernel is fast or slow" + (f": {lab}" if lab else "")
    beside = "the reference's and the expert's" if "expert" in role_order else "the reference's"
    sub = "the GPU's counters, read on timed samples drawn at random" + (f" on {device}" if device else "") + \
          f", your kernel beside {beside}, cause by cause"
    fig.suptitle(f"{heading}\n{sub}" + (f" ({title})" if title else ""), fontsize=11)
    save(fig, out)
    plt.close(fig)


# ---- command line -----------------------------------------------------------------------------------------


def pyplot():
    """matplotlib's pyplot drawing into files, or None (said on stderr) where matplotlib cannot be imported."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"gpulab_plot: matplotlib cannot be imported ({e}): sudo apt-get install python3-matplotlib",
              file=sys.stderr)
        return None
    return plt


def main(argv):
    parser = argparse.ArgumentParser(prog="gpulab_plot.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    kinds = parser.add_subparsers(dest="kind", required=True, metavar="KIND")
    for kind, what in (("heat2d-scaling", "lab 02's scaling CSV"), ("matmul-study", "lab 07's comparison CSV"),
                       ("roofline", "a lab's roofline JSON"), ("gpu-profile", "a lab's GPU profile JSON")):
        sub = kinds.add_parser(kind, help=f"{what} -> a PNG")
        sub.add_argument("data", help="the data file")
        sub.add_argument("--out", help="the PNG to write (default: the data file's path ending in .png)")
        sub.add_argument("--title", default="", help="added to the title (e.g. the GPU's name)")
    sub = kinds.add_parser("heat-maps", help="lab 02's snapshot frames (JSON) -> one PNG per frame")
    sub.add_argument("data", help="the JSON file")
    sub = kinds.add_parser("class-overview", help="a graded class's overview.csv -> a PNG")
    sub.add_argument("data", help="the CSV file (grader/class/reports.h: write_overview)")
    sub.add_argument("--out", help="the PNG to write (default: the CSV's path ending in .png)")
    sub.add_argument("--title", default="", help="added to the title (e.g. the course and the GPU)")
    sub.add_argument("--top", type=int, default=15, help="how many failing tests to show (default 15)")
    args = parser.parse_args(argv)

    plt = pyplot()
    if plt is None:
        return EXIT_NO_MATPLOTLIB

    try:
        if args.kind == "heat-maps":
            draw_heat_maps(plt, args.data)
        elif args.kind == "class-overview":
            out = args.out or os.path.splitext(args.data)[0] + ".png"
            draw_class_overview(plt, args.data, out, args.title, max(1, args.top))
        else:
            out = args.out or os.path.splitext(args.data)[0] + ".png"
            draw = {"heat2d-scaling": draw_heat2d_scaling, "matmul-study": draw_matmul_study,
                    "roofline": draw_roofline, "gpu-profile": draw_gpu_profile}[args.kind]
            draw(plt, args.data, out, args.title)
    except DataError as e:
        print(f"gpulab_plot: error: {e}", file=sys.stderr)
        return EXIT_BAD_DATA
    except OSError as e:
        print(f"gpulab_plot: error: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return EXIT_BAD_DATA
    except Exception as e:  # a bug here, or data no check above foresaw: the trace, then one line
        import traceback
        traceback.print_exc()
        print(f"gpulab_plot: error: drawing {args.data} failed: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_BAD_DATA
    return 0


def serve():
    """--serve: one command line a line on stdin, one answer a line on stdout (the module's text says how)."""
    plt = pyplot()
    if plt is None:
        return EXIT_NO_MATPLOTLIB
    # Answers go to a copy of stdout; whatever else would print there (a library's warning written by C
    # code, say) goes to stderr, so no stray line is read as an answer.
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)

    def answer(status, output):
        answers.write(json.dumps({"exit": status, "output": output}) + "\n")
        answers.flush()

    answers.write(json.dumps({"ready": True}) + "\n")
    answers.flush()
    for line in iter(sys.stdin.readline, ""):
        try:
            argv = json.loads(line)
        except ValueError as e:
            answer(2, f"gpulab_plot: a request that is not JSON: {e}")
            continue
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            answer(2, "gpulab_plot: a request must be a list of strings (a command line)")
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            try:
                status = main(argv)
            except SystemExit as e:  # argparse: a wrong command line, or --help
                status = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
            finally:
                plt.close("all")  # nothing of one picture is left for the next
        answer(status, printed.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(serve() if sys.argv[1:] == ["--serve"] else main(sys.argv[1:]))
