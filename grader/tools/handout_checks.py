#!/usr/bin/env python3
"""handout_checks.py [--update] [--lab LAB] [REPOSITORY]: the handouts say what the grader checks.

Each lab's handout, labs/<lab>/README.md, is held to its labs/<lab>/lab.json, the file the grader reads
its sizes, samples, tolerances and bars from:

1. A generated section, between the markers <!-- grader-checks --> and <!-- /grader-checks -->, lists
   every test of lab.json with its points, how its cases count, what it needs, and the numbers it runs
   at; and, for the lab's read-count test, which tile shapes clear the bar on the sizes it counts at
   (computed here from lab.json). --update writes it (before "### What a timed launch must do" where the
   handout has no markers yet); the check fails, naming lab, test and number, when it is stale.
   A test this script has no template for (a new one) gets its lab.json "what" and the lab.json section
   named like its suite or test; numbers of lab.json that no template uses are listed as well, so nothing
   the grader holds a kernel to stays out of the handout.
2. The prose: every number the handout's own text states about a test (a size, a tolerance, a bar, a
   sample count) is matched by a pattern below to the lab.json entry it must equal, and a derived figure
   (reads per cell of a tile shape) to the figure computed from lab.json. The check fails where the
   prose states another number, or where a pattern no longer finds its sentence.
3. The project README explains the verdicts (failed, not counted, not run) once.

Exit status: 0 all good, 1 a problem found (each printed), 2 usage. Python 3, standard library only.
"""
import argparse
import itertools
import json
import math
import pathlib
import re
import sys

BEGIN = "<!-- grader-checks: written by grader/tools/handout_checks.py --update from lab.json; do not edit -->"
END = "<!-- /grader-checks -->"
BEGIN_RE = re.compile(r"<!-- grader-checks[^>]*-->")

# Top-level lab.json keys that are not numbers a kernel is held to (or are instructor-only).
NOT_NUMBERS = {"lab", "title", "sources", "expert", "grader_shared", "companions", "grader_links", "tests",
               "test_timeout_s", "cpu_mode"}
# Nested sections that hold the grader's wording about a lab's kernel, not numbers it is held to.
WORDING = {"technique.stencil"}


# ---- Formatting lab.json values --------------------------------------------------------------------------

def fmt_num(x):
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int):
        if x >= 65536 and x & (x - 1) == 0:
            return f"{x} (2^{x.bit_length() - 1})"
        return str(x)
    if x == int(x) and abs(x) < 1e6:
        return str(int(x))
    text = ("%.6e" % x).replace(".000000", "") if 0 < abs(x) < 1e-3 else "%g" % x
    text = re.sub(r"(\.\d*?)0+e", r"\1e", text).replace(".e", "e")
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m.group(1) == "-" else "") + m.group(2), text)


def fmt_size(v):
    """[33] -> 33³ (a cube), [512, 512, 512, "float"] -> 512³ float, [7, 9] -> 7×9."""
    numbers = [x for x in v if isinstance(x, (int, float)) and not isinstance(x, bool)]
    words = [str(x) for x in v if isinstance(x, str)]
    if len(numbers) == 1 and not words:
        text = f"{fmt_num(numbers[0])}³"
    elif len(numbers) == 3 and len(set(numbers)) == 1:
        text = f"{fmt_num(numbers[0])}³"
    else:
        text = "×".join(fmt_num(x) for x in numbers)
    return " ".join([text] + words)


def fmt_value(v, nested=False):
    if isinstance(v, dict) and nested:
        return "(" + ", ".join(f"{key.replace('_', ' ')} {fmt_value(value, True)}" for key, value in v.items()) + ")"
    if isinstance(v, dict):
        parts = []
        for key, value in v.items():
            if key == "name":
                continue
            if key in ("size", "shape") and isinstance(value, list):
                parts.append(fmt_size(value))
            else:
                parts.append(f"{key.replace('_', ' ')} = {fmt_value(value, True)}")
        text = ", ".join(parts)
        return f"{v['name']}: {text}" if "name" in v else text
    if isinstance(v, list):
        if v and all(isinstance(x, list) for x in v):
            return ", ".join(fmt_size(x) for x in v)
        if v and all(isinstance(x, dict) for x in v):
            return "; ".join(fmt_value(x) for x in v)
        return ", ".join(fmt_value(x, nested) for x in v)
    if isinstance(v, str):
        return v
    return fmt_num(v)


def get_path(config, path):
    value = config
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise KeyError(path)
    return value


def leaves(value, prefix=""):
    """Dotted paths of a lab.json value's leaves (a list of numbers or sizes counts as one leaf)."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from leaves(sub, f"{prefix}.{key}" if prefix else key)
    else:
        yield prefix


PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.]+)(?::(\w+))?\}")


def render_template(config, template, used):
    """Fills {path} (and {path:pct}, {path:x}) from lab.json; records each path used."""
    def fill(m):
        path, how = m.group(1), m.group(2)
        value = get_path(config, path)
        used.add(path)
        if how == "pct":
            return fmt_num(round(value * 100, 6)) + "%"
        if how == "x":
            return fmt_num(value) + "×"
        if how == "each":
            return ", ".join(f"{key} {fmt_value(sub, True)}" for key, sub in value.items())
        if how == "size":
            return fmt_size(value)
        if how == "range":
            return f"between {fmt_size(value['min'])} and {fmt_size(value['max'])}"
        if how == "tuples":
            return ", ".join("(" + ", ".join(fmt_num(x) for x in t) + ")" for t in value)
        return fmt_value(value)
    return PLACEHOLDER.sub(fill, template)


# ---- Read-count models: reads per output of a kernel whose blocks load their tile and halo once -----------

def cdiv(a, b):
    return -(-a // b)


def reads_2d_no_corners(size, tile):
    """Lab 02: nx x ny interior cells, bx x by tiles, a halo without its corners."""
    (nx, ny), (bx, by) = size[:2], tile
    return 1 + 2 * cdiv(nx, bx) / nx + 2 * cdiv(ny, by) / ny


def reads_2d_full_halo(size, tile):
    """Lab 03: w x h pixels, tw x th tiles with the whole halo (corners included); per byte."""
    (w, h), (tw, th) = size[:2], tile
    return (1 + 2 * cdiv(w, tw) / w) * (1 + 2 * cdiv(h, th) / h)


def reads_3d(size, tile):
    """Labs 04-06: an nx x ny x nz grid, output tiles (or P planes along z) of ox x oy x oz cells."""
    result = 1.0
    for n, o in zip(size, tile):
        result *= 1 + 2 * cdiv(n - 2, o) / (n - 2)
    return result


def reads_matmul(size, tile):
    """Lab 07: M x N x K, tm x tn tiles of C: each element of A read once per block column, of B per block row."""
    (m, n, _), (tm, tn) = size, tile
    return cdiv(n, tn) / n + cdiv(m, tm) / m


def drawn_sizes(spec):
    return itertools.product(*[range(lo, hi + 1) for lo, hi in zip(spec["min"], spec["max"])])


# ---- The labs: a template of numbers per test, the read-count model, and the prose's numbers -------------

SPEED_FIELD = ("at least {speed.min_fraction_of_reference}× the reference's throughput, same run; median of "
               "{speed.samples} samples after {speed.warmup} warm-ups, up to {speed.max_remeasures} measurements "
               "near the bar; each sample on fresh inputs, {speed.fresh_checks} output values rechecked; no "
               "sample faster than the compulsory bytes at {speed.floor_margin}× the copy bandwidth")


class Lab:
    def __init__(self, numbers, reads=None, prose=(), shared_only=()):
        self.numbers = numbers  # test id -> template of its numbers
        self.shared_only = set(shared_only)  # lab.json paths only the other labs of its grader_shared use
        self.reads = reads      # (test id, bar path, sizes(config), drawn spec path, model, [(label, tile)])
        self.prose = list(prose)


def spaced(pattern):
    """A pattern whose spaces match any run of white space (a sentence may wrap anywhere)."""
    return re.compile(re.sub(r"(\\s\+|\s)+", r"\\s+", pattern), re.S)


class P:
    """A number the prose states: `pattern`'s groups, read as numbers, must equal lab.json's `paths`.

    A group holding a list ("3, 4, 31 and 32", "7×9, 31×33") is compared as a list; `scale` multiplies the
    lab.json value first (0.8 -> 80 for a percentage). `test` names what the number is about."""

    def __init__(self, test, pattern, *paths, scale=1, kind="numbers"):
        self.test, self.pattern, self.paths, self.scale, self.kind = test, spaced(pattern), paths, scale, kind


class D:
    """A derived figure the prose states: group 1 read as a number must equal compute(config) to the digits
    shown (or within 5% where the prose says "about")."""

    def __init__(self, test, pattern, compute, what):
        self.test, self.pattern, self.compute, self.what = test, spaced(pattern), compute, what


NUM = r"\d+(?:\.\d+)?(?:e[−-]\d+)?(?:\^\d+)?"


def parse_numbers(text):
    """Every number in `text`, in order: 1e−5, 2^26, 0.25; a cube 33³ gives one number (33)."""
    text = re.sub(r"\([^)]*\)", "", text)  # "(2^20 + 7)": a remark, not a value
    out = []
    for m in re.finditer(NUM, text):
        token = m.group(0).replace("−", "-")
        if "^" in token:
            base, exp = token.split("^")
            out.append(float(base) ** int(exp))
        else:
            out.append(float(token))
    return out


def parse_sizes(text):
    """"7×9, 31×33 and 33³" -> [[7, 9], [31, 33], [33]]."""
    text = re.sub(r"\([^)]*\)", "", text)
    sizes = []
    for m in re.finditer(r"\d+(?:\s*[×x]\s*\d+)*(?:³)?", text):
        parts = [int(p) for p in re.findall(r"\d+", m.group(0))]
        sizes.append(parts)
    return sizes


def flatten_numbers(value):
    if isinstance(value, list):
        out = []
        for v in value:
            out.extend(flatten_numbers(v))
        return out
    if isinstance(value, dict):
        return [x for v in value.values() for x in flatten_numbers(v)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value)]
    return []


def canonical_size(v):
    numbers = [int(x) for x in v if isinstance(x, (int, float))]
    return [numbers[0]] if len(numbers) == 3 and len(set(numbers)) == 1 else numbers


def same_numbers(a, b):
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-15) for x, y in zip(a, b))


def worst_drawn(config, spec_path, model, tile):
    return max(model(list(s), tile) for s in drawn_sizes(get_path(config, spec_path)))


# The figures the prose derives from the read-count bars: functions of lab.json, so a change of the sizes
# shows in the handout's figures too.
def at(sizes_path, index, model, tile):
    return lambda c: model(canonical_full(get_path(c, sizes_path)[index]), tile)


def canonical_full(v):
    return [v[0]] * 3 if len(v) == 1 else list(v)


def worst(spec_path, model, tile):
    return lambda c: worst_drawn(c, spec_path, model, tile)


def worst_counted(sizes_path, drawn_path, model, tile):
    """The most reads of a tile over the sizes the test counts at and the size it may draw."""
    return lambda c: max(max(model(list(size), tile) for size in get_path(c, sizes_path)),
                         worst_drawn(c, drawn_path, model, tile))


def whole(model, tile, size):
    return lambda c: model(size, tile)


def points(*ids, timing=True):
    """The points of the named tests, and of every timed test (the GPU-only ones)."""
    return lambda c: sum(t["points"] for t in c["tests"] if t["id"] in ids or (timing and t.get("timing")))


def proportional(c):
    return sum(1 for t in c["tests"] if t.get("credit") == "proportional")


# The shared-memory bar every counted technique test holds a tiled kernel to (gpulab/shared_reads.h).
SHARED_READS = ("; and at least {technique.shared_reads.min_reads_per_write} reads of shared memory per value written "
                "there, on the small grids and the timed launches (shared memory counted in one block of each class "
                "of a grid that holds at least {technique.shared_reads.least_class_share:pct} of its blocks, at most "
                "{technique.shared_reads.faults_per_block} accesses of a block counted, 0 meaning all of them, and "
                "{technique.shared_reads.small_blocks} of a small grid's blocks run)")

STENCIL3D_COMMON = {
    "Stability.MaximumPrinciple": "{stability.long_run}; values within the start's range (slack "
                                  "{stability.max_principle_slack:each}); end within a relative L2 error of "
                                  "{stability.long_run_rel_l2:each} of the oracle's run; kernels: {stability.kernels}",
    "Stability.SineModeDecayRate": "{stability.sine}",
    "Stability.GrowsAboveBound": "{stability.blow_up}",
    "Report.Progression": "{progression.cases}; median of {progression.samples} after {progression.warmup} warm-ups",
    "Report.PrecisionDrift": "{drift.size:size}; after {drift.sweeps} sweeps; float's error at most {drift.float_max}, "
                             "double's {drift.double_max}",
}
STENCIL3D_SPEED = "{speed.cases}; " + SPEED_FIELD + "; launch recorded at {technique.size:size}"
STENCIL3D_MATCH = ("{correctness.sizes}, each in {correctness.precisions}: every interior cell within "
                   "{correctness.float_rel_tol} (float) or {correctness.double_rel_tol} (double) of the sum of "
                   "the seven terms' magnitudes")
STENCIL3D_READS = ("reads of `in` counted at {technique.reads.sizes} and one grid drawn per run "
                   "{technique.reads.random:range}: at most {technique.reads.max_per_cell} per interior cell" +
                   SHARED_READS)
STENCIL3D_PLANES = ("launch recorded at {technique.size:size}: shared memory (values of T per thread) at least "
                    "{technique.%s}%s; at least {technique.min_planes_per_thread} z-planes per thread")


def timed_launch_prose(test, read_back):
    """The rules of "What a timed launch must do" that labs 01 to 04 state alike: samples, the values read back
    and rechecked, the hardware floor."""
    return [
        P(test, r"Before each of the (\d+) samples", "speed.samples"),
        P(test, r"reads\s+back (\d+) " + read_back, "speed.fresh_checks"),
        P(test, r"at most (" + NUM + r") times the speed of the device-to-device copy", "speed.floor_margin"),
        P(test, r"above (\d+)% of copy", "speed.floor_margin", scale=100),
    ]


def stencil3d_prose(match_test, speed_test, reads_test):
    """The numbers labs 05 and 06 state alike (lab 04 states them at more length)."""
    return [
        P(reads_test, r"on a (\d+ × \d+ × \d+) grid and on one more grid", "technique.reads.sizes", kind="sizes"),
        P(reads_test, r"drawn for each run \(from the seed\) between (\d+ × \d+ × \d+) and", "technique.reads.random.min",
          kind="sizes"),
        P(reads_test, r"drawn for each run \(from the seed\) between \d+ × \d+ × \d+ and (\d+ × \d+ × \d+)",
          "technique.reads.random.max", kind="sizes"),
        P(reads_test, r"divides by the interior cells: at most \*\*(" + NUM + r")\*\*", "technique.reads.max_per_cell"),
        P("Technique", r"records your launch on a (\d+ × \d+ × \d+) grid", "technique.size", kind="sizes"),
        P("Technique", r"at least \*\*(\d+) z-planes\*\*", "technique.min_planes_per_thread"),
        P("Technique", r"the (\d+) interior planes divided by", "technique.size", kind="interior_z"),
        P("Stability.MaximumPrinciple", r"(\d+) heat steps at r = 1/6 from a random (\d+ × \d+ × \d+) start",
          "stability.long_run.steps", "stability.long_run.size"),
        P("Stability.SineModeDecayRate", r"The mode \((\d+, \d+, \d+)\) on (\d+ × \d+ × \d+) cells", "stability.sine.modes",
          "stability.sine.size"),
        P("Stability.SineModeDecayRate", r"over (\d+) steps at r = (" + NUM + r")", "stability.sine.steps", "stability.sine.r"),
        P("Stability.GrowsAboveBound", r"At r = (" + NUM + r") the highest mode of a (\d+ × \d+ × \d+) grid",
          "stability.blow_up.r", "stability.blow_up.size"),
        P("Stability.GrowsAboveBound", r"1\.0221 per step in size, over (\d+) steps", "stability.blow_up.steps"),
        P(speed_test, r"Your kernel at (512)³ \(float\), 512³ \(double\) and (449)³ \(float\) must reach at least "
          r"\*\*(" + NUM + r")×\*\*", "speed.cases", "speed.cases", "speed.min_fraction_of_reference", kind="speed3d"),
        P(speed_test, r"CUDA events, (\d+) warm-ups, (\d+) interleaved samples, the median, up to (\d+)",
          "speed.warmup", "speed.samples", "speed.max_remeasures"),
        P(speed_test, r"Before each of the (\d+) samples", "speed.samples"),
        P(speed_test, r"recomputes (\d+) interior cells", "speed.fresh_checks"),
        P(speed_test, r"cannot go\s+faster than (" + NUM + r") times the device-to-device copy", "speed.floor_margin"),
        P(speed_test, r"above (\d+)% of copy", "speed.floor_margin", scale=100),
        P(speed_test, r"the (\d+ × \d+ × \d+) grid of `Technique\.", "technique.size", kind="sizes"),
        P(match_test, r"the tolerance \((" + NUM + r") in float, (" + NUM + r") in double",
          "correctness.float_rel_tol", "correctness.double_rel_tol"),
        P(match_test, r"the (\d+) correctness cases", "correctness", kind="case_count3d"),
        P("all tests", r"with a (\d+) s time limit", "test_timeout_s"),
    ]


def shared_reads_prose(test, budget=False):
    """The shared-memory bar the handout states for its counted technique test (and the budget of accesses a
    block's shared memory is counted over, where the lab sets one)."""
    out = [P(test, r"the reads of shared memory per value written there must be at least \*\*(" + NUM + r")\*\*",
             "technique.shared_reads.min_reads_per_write")]
    if budget:
        out.append(P(test, r"over (?:its|their) first (\d+) accesses", "technique.shared_reads.faults_per_block"))
    return out


COARSE_WHAT = ("their 2D tile (a block of threads less a one-cell halo a side) on each of the P planes they "
               "walk, and the plane below and above,")


def best_drawn(spec_path, model, tile):
    return lambda c: min(model(list(s), tile) for s in drawn_sizes(get_path(c, spec_path)))


def coarse_reads_prose(test, reference_reads, one_plane_reads):
    """The read counts labs 05 and 06 state for 32 × 32 blocks of 32 planes, and for one plane a block."""
    drawn = "technique.reads.random"
    return [
        D(test, reference_reads + r" (\d\.\d+) times per cell on", at("technique.reads.sizes", 0, reads_3d, (30, 30, 32)),
          "32 × 32, 32 planes on the first counted grid"),
        D(test, r"between about (\d\.\d+) and \d\.\d+ on a drawn grid", best_drawn(drawn, reads_3d, (30, 30, 32)),
          "32 × 32, 32 planes at best on a drawn grid"),
        D(test, r"between about \d\.\d+ and (\d\.\d+) on a drawn grid", worst(drawn, reads_3d, (30, 30, 32)),
          "32 × 32, 32 planes at worst on a drawn grid"),
        D(test, r"\(P = 1\) " + one_plane_reads + r" (\d\.\d+) or more", best_drawn(drawn, reads_3d, (30, 30, 1)),
          "one plane a block, at best"),
    ]


def coarse_tiles(lab):
    return [("32 × 32 block (30 × 30 tile), 32 planes", (30, 30, 32)),
            ("32 × 32 block, 16 planes", (30, 30, 16)),
            ("32 × 32 block, 4 planes", (30, 30, 4)),
            ("16 × 16 block (14 × 14 tile), 16 planes", (14, 14, 16)),
            ("64 × 8 block (62 × 6 tile), 32 planes", (62, 6, 32)),
            ("32 × 32 block, 1 plane", (30, 30, 1))]


LABS = {
    "01-heat-rod": Lab(
        numbers={
            "Step.MatchesOracle": "M = {step.sizes}; r = {step.ratios}; each interior cell within {step.rel_tol} "
                                  "relative, at least {step.abs_tol}; one more case per timed size (M = {speed.M}) "
                                  "checks the launch without running it",
            "StepScope.TouchesOnlyTheInterior": "M = {step.sizes}",
            "Boundary.InsulatedEnds": "M = {boundary.sizes}",
            "Solve.MatchesOracle": "the handout's Gaussian ({solve.gaussian}); a random start ({solve.random}); "
                                   "the same start to a tmax the stable step does not divide ({solve.uneven}); "
                                   "relative L2 error at most {solve.rel_l2_tol}",
            "Stability.ChosenDtIsStable": "(k, dx, tmax) = {stability.choose_dt_cases:tuples}; r at least {stability.min_r}",
            "Stability.MaximumPrinciple": "{stability.long_run}; slack {stability.max_principle_slack}; the spread "
                                          "shrinks like the oracle's, within {stability.evolution_rel_tol:pct}",
            "Stability.ConservesHeat": "the same run; total heat within {stability.heat_rel_drift} relative",
            "Stability.CosineDecayRate": "{stability.cosine}",
            "Stability.BlowsUpAboveBound": "{stability.blow_up}",
            "Speed.StepThroughput": "M = {speed.M}; " + SPEED_FIELD + "; kernel and block recorded at M = "
                                    "{speed.probe_M}",
        },
        prose=[
            P("all tests", r"has a (\d+) s time limit", "test_timeout_s"),
            P("Step.MatchesOracle", r"for M in \{([^}]*)\} and r", "step.sizes"),
            P("Step.MatchesOracle", r"and r in \{([^}]*)\}", "step.ratios"),
            P("Step.MatchesOracle", r"must match to (" + NUM + r") relative, with a floor of (" + NUM + r")",
              "step.rel_tol", "step.abs_tol"),
            P("Boundary.InsulatedEnds", r"`launch_boundary` for M in \{([^}]*)\}", "boundary.sizes"),
            P("Solve.MatchesOracle", r"the handout's Gaussian \(M = (\d+), k = (" + NUM + r"), L = (" + NUM +
              r"), tmax = (" + NUM + r")\)", "solve.gaussian.M", "solve.gaussian.k", "solve.gaussian.length",
              "solve.gaussian.tmax"),
            P("Solve.MatchesOracle", r"a random start \(M = (\d+), k = (" + NUM + r"), dx = (" + NUM +
              r"), tmax = (" + NUM + r")\)", "solve.random.M", "solve.random.k", "solve.random.dx",
              "solve.random.tmax"),
            P("Solve.MatchesOracle", r"the same random start with tmax = (" + NUM + r")", "solve.uneven.tmax"),
            P("Solve.MatchesOracle", r"The relative L2 error must be at most (" + NUM + r")", "solve.rel_l2_tol"),
            P("Stability.ChosenDtIsStable", r"r ≤ 1/2, r ≥ (" + NUM + r") \(not needlessly small\)", "stability.min_r"),
            P("Stability.MaximumPrinciple", r"M = (\d+), (\d+) steps at r = (" + NUM + r")", "stability.long_run.M",
              "stability.long_run.steps", "stability.long_run.r"),
            P("Stability.MaximumPrinciple", r"of the start, with (" + NUM + r") slack", "stability.max_principle_slack"),
            P("Stability.ConservesHeat", r"changes by at most (" + NUM + r") relative", "stability.heat_rel_drift"),
            P("Stability.MaximumPrinciple", r"of the same start, within (\d+)%", "stability.evolution_rel_tol",
              scale=100),
            P("Stability.MaximumPrinciple", r"After (\d+) steps the spread", "stability.long_run.steps"),
            P("Stability.CosineDecayRate", r"Mode m = (\d+) on (\d+) interior cells, r = (" + NUM + r"), k = (" + NUM +
              r"), (\d+) steps", "stability.cosine.mode", "stability.cosine.interior", "stability.cosine.r",
              "stability.cosine.k", "stability.cosine.steps"),
            P("Stability.CosineDecayRate", r"exp\(−k \(π m / L\)² t\) to (" + NUM + r")%", "stability.cosine.rel_tol",
              scale=100),
            P("Stability.BlowsUpAboveBound", r"on N = (\d+) interior cells, (\d+) steps of your own kernels at r = (" +
              NUM + r")", "stability.blow_up.interior", "stability.blow_up.steps", "stability.blow_up.r"),
            P("Stability.BlowsUpAboveBound", r"\^(\d+), within \d+% in its logarithm", "stability.blow_up.steps"),
            P("Stability.BlowsUpAboveBound", r"\^\d+, within (\d+)% in its logarithm",
              "stability.blow_up.log_growth_rel_tol", scale=100),
            P("Speed.StepThroughput", r"Your step kernel at M = (" + NUM + r") must reach at least (\d+)%",
              "speed.M", "speed.min_fraction_of_reference", kind="m_and_pct"),
            P("Speed.StepThroughput", r"(\d+) warm-up launches, then the median of (\d+) samples", "speed.warmup",
              "speed.samples"),
            P("Speed.StepThroughput", r"measured again \(up to (\d+)\s+times\)", "speed.max_remeasures"),
            P("Speed.StepThroughput", r"calls `launch_step` once at\s+M = (\d+)", "speed.probe_M"),
            D("all tests", r"The speed test needs a real GPU \((\d+) points\)", points(), "the timed tests' points"),
        ] + timed_launch_prose("Speed.StepThroughput", "interior cells")),
    "02-heat-2d": Lab(
        numbers={
            "NaiveStep.MatchesOracle": "{step.sizes}, each at r = {step.ratios}; each interior cell within "
                                       "{step.rel_tol} relative, at least {step.abs_tol}; one more case at the timed "
                                       "size ({speed.N}²) checks the launch without running it",
            "TiledStep.MatchesOracle": "the same cases",
            "StepScope.TouchesOnlyTheInterior": "{scope.sizes}",
            "Boundary.InsulatedWalls": "{boundary.sizes}",
            "Solve.MatchesOracle": "the handout's Gaussian ({solve.gaussian}); a random start ({solve.random}); the "
                                   "same start to a tmax the stable step does not divide ({solve.uneven}); relative "
                                   "L2 error at most {solve.rel_l2_tol}",
            "Stability.ChosenDtIsStable": "(k, h, tmax) = {stability.choose_dt_cases:tuples}; r at least {stability.min_r}",
            "Stability.RefusesUnstableDt": "r = {stability.refused_ratios}",
            "Stability.MaximumPrinciple": "{stability.long_run}; slack {stability.max_principle_slack}; the spread "
                                          "shrinks like the oracle's, within {stability.evolution_rel_tol:pct}",
            "Stability.ConservesHeat": "the same run; total heat within {stability.heat_rel_drift} relative",
            "Stability.CosineDecayRate": "{stability.cosine}",
            "Stability.BlowsUpAboveBound": "{stability.blow_up}",
            "Technique.SharedMemoryTile": "launch recorded at {technique.nx}×{technique.ny}: at least "
                                          "{technique.min_shared_floats_per_thread} float of shared memory per thread "
                                          "(tiled), none (naive); the tiled launch at {speed.N}×{speed.N} (recorded, "
                                          "not run) the same kernel, block and shared memory",
            "Technique.ComputesFromSharedTile": "bytes of `in` read per byte written, counted at "
                                                "{technique.reads.sizes} and one grid drawn per run "
                                                "{technique.reads.random:range} (every block), and on the timed "
                                                "{speed.N}×{speed.N} launch ({technique.reads.timed_blocks} of its "
                                                "blocks): at most {technique.reads.max_reads_per_cell} per interior "
                                                "cell; one kernel, block and shared memory at all these sizes and "
                                                "{technique.nx}×{technique.ny}" + SHARED_READS,
            "Speed.NaiveThroughput": "{speed.N}×{speed.N}; " + SPEED_FIELD,
            "Speed.TiledThroughput": "{speed.N}×{speed.N}; the same rules",
            "Report.Snapshots": "a frame every {snapshots.every} time units, {snapshots.kernel} kernel",
            "Report.ScalingStudy": "M = {scaling.sizes}; median of {scaling.samples} after {scaling.warmup} warm-ups",
        },
        reads=("Technique.ComputesFromSharedTile", "technique.reads.max_reads_per_cell",
               lambda c: c["technique"]["reads"]["sizes"], "technique.reads.random", reads_2d_no_corners,
               "their bx × by tile and its halo (corners left out)", "per interior cell",
               [("32 × 8", (32, 8)), ("16 × 16", (16, 16)), ("8 × 8", (8, 8)), ("32 × 4", (32, 4)),
                ("32 × 2", (32, 2)), ("32 × 1", (32, 1))]),
        prose=shared_reads_prose("Technique.ComputesFromSharedTile", budget=False) + [
            P("all tests", r"runs with a (\d+) s time limit", "test_timeout_s"),
            P("NaiveStep.MatchesOracle", r"One `launch_step_naive` for (\d+) grids", "step.sizes", kind="count"),
            P("NaiveStep.MatchesOracle", r"grids, (1×1, 1×2, .*?) and (1031×5)", "step.sizes", kind="sizes_set"),
            P("NaiveStep.MatchesOracle", r"each at r = (" + NUM + r", " + NUM + r" and " + NUM + r")", "step.ratios"),
            P("NaiveStep.MatchesOracle", r"must match to (" + NUM + r") relative, with a floor of (" + NUM + r")",
              "step.rel_tol", "step.abs_tol"),
            P("TiledStep.MatchesOracle", r"The same (\d+) cases", "step", kind="case_count2d"),
            P("StepScope.TouchesOnlyTheInterior", r"For both kernels on (\d+) of those grids", "scope.sizes", kind="count"),
            P("Boundary.InsulatedWalls", r"`launch_boundary` on (\d+) grids", "boundary.sizes", kind="count"),
            P("Solve.MatchesOracle", r"a random (\d+ × \d+) start \(k = (" + NUM + r"), h = (" + NUM + r"), tmax = (" +
              NUM + r")\)", "solve.random", kind="solve2d"),
            P("Solve.MatchesOracle", r"the same start with tmax = (" + NUM + r")", "solve.uneven.tmax"),
            P("Solve.MatchesOracle", r"except the corners, must be at most (" + NUM + r")", "solve.rel_l2_tol"),
            P("Stability.ChosenDtIsStable", r"`choose_dt` for (\w+) \(k, h, tmax\)", "stability.choose_dt_cases",
              kind="count_word"),
            P("Stability.ChosenDtIsStable", r"r ≥ (" + NUM + r") \(not needlessly small\)", "stability.min_r"),
            P("Stability.RefusesUnstableDt", r"`integrate` with r = (" + NUM + r", " + NUM + r", " + NUM + r", " + NUM +
              r" and " + NUM + r")", "stability.refused_ratios"),
            P("Stability.MaximumPrinciple", r"(\d+ × \d+) cells, (\d+) steps at r = 1/4", "stability.long_run",
              kind="long_run2d"),
            P("Stability.MaximumPrinciple", r"of the start, with (" + NUM + r") slack", "stability.max_principle_slack"),
            P("Stability.ConservesHeat", r"changes by at most (" + NUM + r") relative", "stability.heat_rel_drift"),
            P("Stability.ConservesHeat", r"of the same start, within (\d+)%", "stability.evolution_rel_tol", scale=100),
            P("Stability.CosineDecayRate", r"Mode m = (\d+), n = (\d+) on (\d+ × \d+) cells \(h = 1/(\d+)\), r = (" + NUM +
              r"), k = (" + NUM + r"), (\d+) steps", "stability.cosine", kind="cosine2d"),
            P("Stability.CosineDecayRate", r"t\) to (" + NUM + r")%", "stability.cosine.rel_tol", scale=100),
            P("Stability.BlowsUpAboveBound", r"on (\d+ × \d+) cells, (\d+) steps of your own kernels at r = (" + NUM + r")",
              "stability.blow_up", kind="blow_up2d"),
            P("Stability.BlowsUpAboveBound", r"to within (\d+)% in its logarithm", "stability.blow_up.log_growth_rel_tol",
              scale=100),
            P("Technique.SharedMemoryTile", r"`launch_step_tiled` runs on a (\d+ × \d+) grid", "technique", kind="nx_ny"),
            P("Technique.ComputesFromSharedTile", r"It counts on (\d+ × \d+) and (\d+ × \d+) grids",
              "technique.reads.sizes", kind="sizes"),
            P("Technique.ComputesFromSharedTile", r"of which (\d+) blocks run and are counted",
              "technique.reads.timed_blocks"),
            P("Technique.ComputesFromSharedTile", r"drawn for each run \(from the seed\) between (\d+ × \d+) and (\d+ × \d+)",
              "technique.reads.random", kind="random_range"),
            P("Technique.ComputesFromSharedTile", r"The bar is at most \*\*(" + NUM + r")\*\*",
              "technique.reads.max_reads_per_cell"),
            P("Speed.NaiveThroughput", r"At (\d+) × (\d+) your naive kernel must reach at least (\d+)%", "speed.N",
              "speed.N", "speed.min_fraction_of_reference", kind="n_n_pct"),
            P("Speed.NaiveThroughput", r"(\d+) warm-up launches, then the median\s+of (\d+) samples", "speed.warmup",
              "speed.samples"),
            P("Speed.NaiveThroughput", r"measured again \(up to (\d+) times\)", "speed.max_remeasures"),
            *timed_launch_prose("Speed.NaiveThroughput", "interior cells"),
            P("Report.Snapshots", r"stopped every (" + NUM + r") time units", "snapshots.every"),
            P("Report.ScalingStudy", r"M × M grids, M = (\d+), (\d+), …, (\d+)", "scaling.sizes", kind="ends"),
            D("all tests", r"The (\w+) long-run `Stability` tests are the exception", proportional,
              "the tests with proportional credit"),
            P("all tests", r"the handout's solve and the snapshots\s+use (\d+ × \d+) cells", "cpu_mode.solve.gaussian",
              kind="nx_ny"),
            P("Stability.MaximumPrinciple", r"the maximum-principle and heat runs use (\d+ × \d+) cells\s+for (\d+) steps",
              "cpu_mode.stability.long_run", kind="long_run2d"),
            D("Technique.ComputesFromSharedTile", r"\((1\.\d+) with 32 × 8 blocks\)",
              whole(reads_2d_no_corners, (32, 8), (1 << 20, 1 << 20)), "32 × 8 on whole tiles"),
            D("Technique.ComputesFromSharedTile", r"\((1\.\d+) with 32 × 8 on 33 × 17\)",
              whole(reads_2d_no_corners, (32, 8), (33, 17)), "32 × 8 on 33 × 17"),
            D("Technique.ComputesFromSharedTile", r"\(at most about (1\.\d+) on these grids, halo corners included\)",
              worst_counted("technique.reads.sizes", "technique.reads.random", reads_2d_full_halo, (8, 8)),
              "8 × 8 at worst on the counted grids, halo corners included"),
            D("Technique.ComputesFromSharedTile", r"such as 32 × 1 \((\d\.\d+) on whole tiles\)",
              whole(reads_2d_no_corners, (32, 1), (1 << 20, 1 << 20)), "32 × 1 on whole tiles"),
        ]),
    "03-gaussian-blur": Lab(
        numbers={
            "Naive.MatchesOracle": "{random.sizes} and {random.large} (CPU execution mode: "
                                   "{cpu_mode.random.large}), each with {random.channels} channels; exact match",
            "Tiled.MatchesOracle": "the same images",
            "Borders.ClampToEdge": "{borders.sizes}, each with {borders.channels} channels",
            "Photos.MatchOracle": "{photos.files}; {photos.with_alpha} also with an alpha channel",
            "Scope.WritesOnlyTheOutput": "{scope.sizes}, each with {scope.channels} channels",
            "BlurImage.BeforeAndAfter": "{blur_image.photo}",
            "Technique.TiledUsesSharedTile": "launch recorded at {technique.width}×{technique.height} with "
                                             "{technique.channels} channels: shared memory at least (tile width + 2) × "
                                             "(tile height + 2) × channels bytes, the tile being the image divided by "
                                             "the grid; the timed launch (recorded, not run) the same kernel, block "
                                             "and shared memory as the one with {speed.channels} channels",
            "Technique.ComputesFromSharedTile": "bytes of the input read per byte written, counted at "
                                                "{technique.reads.sizes} with {technique.reads.channels} channels, and "
                                                "one image drawn per run {technique.reads.random:range} (width × "
                                                "height × channels), every block, and on the timed "
                                                "{speed.width}×{speed.height} launch ({technique.reads.timed_blocks} "
                                                "of its blocks): at most {technique.reads.max_reads_per_byte} per "
                                                "output byte; one kernel, block and shared memory per channel count at "
                                                "all these sizes and {technique.width}×{technique.height}" + SHARED_READS,
            "Speed.NaiveThroughput": "{speed.width}×{speed.height}, {speed.channels} channels; " + SPEED_FIELD +
                                     "; launch recorded at {technique.width}×{technique.height}",
            "Speed.TiledThroughput": "the same image; the same rules",
        },
        reads=("Technique.ComputesFromSharedTile", "technique.reads.max_reads_per_byte",
               lambda c: c["technique"]["reads"]["sizes"], "technique.reads.random", reads_2d_full_halo,
               "their tw × th tile and its whole halo", "per output byte",
               [("32 × 8", (32, 8)), ("16 × 16", (16, 16)), ("8 × 8", (8, 8)), ("4 × 4", (4, 4)), ("2 × 2", (2, 2))]),
        prose=shared_reads_prose("Technique.ComputesFromSharedTile", budget=False) + [
            P("all tests", r"with a (\d+) s time limit", "test_timeout_s"),
            P("Naive.MatchesOracle", r"one large size \((\d+×\d+) on a GPU; (\d+×\d+) in CPU execution mode,",
              "random.large", "cpu_mode.random.large", kind="sizes"),
            P("Naive.MatchesOracle", r"on random images of sizes (.*?) and one large size", "random.sizes",
              kind="sizes_set"),
            P("Naive.MatchesOracle", r"each with (\d+, \d+ and \d+) channels", "random.channels"),
            P("Borders.ClampToEdge", r"for sizes (.*?) and \d+, \d+, \d+ channels", "borders.sizes", kind="sizes_set"),
            P("Borders.ClampToEdge", r"64×48 and (\d+, \d+, \d+) channels", "borders.channels"),
            P("Photos.MatchOracle", r"Both kernels on the (\w+) photos", "photos.files", kind="count_word"),
            P("Photos.MatchOracle", r"and on (\w+\.png) with an alpha channel", "photos.with_alpha", kind="string"),
            P("Scope.WritesOnlyTheOutput", r"\((1×1, 17×17, 33×31, 257×129); (\d+, \d+, \d+) channels", "scope.sizes",
              "scope.channels", kind="sizes_then_list"),
            P("BlurImage.BeforeAndAfter", r"Your `blur_image` on `(\w+\.png)`", "blur_image.photo", kind="string"),
            P("Technique.TiledUsesSharedTile", r"tiled launch on a (\d+×\d+) image with (\d+, \d+ and \d+) channels",
              "technique", kind="w_h_channels"),
            P("Technique.ComputesFromSharedTile", r"It counts on (\d+×\d+) and (\d+×\d+) images with (\d+) and (\d+) "
              r"channels", "technique.reads", kind="reads_images"),
            P("Technique.ComputesFromSharedTile", r"of which (\d+) blocks run and are counted",
              "technique.reads.timed_blocks"),
            P("Technique.ComputesFromSharedTile", r"drawn for each run \(from the seed\) between (\d+×\d+) and (\d+×\d+)",
              "technique.reads.random", kind="random_range"),
            P("Technique.ComputesFromSharedTile", r"The bar is at most \*\*(" + NUM + r")\*\*",
              "technique.reads.max_reads_per_byte"),
            P("Speed.NaiveThroughput", r"Your naive kernel on an (\d+)×(\d+) RGB image", "speed.width", "speed.height"),
            P("Speed.NaiveThroughput", r"must reach at least \*\*(" + NUM + r")×\*\*", "speed.min_fraction_of_reference"),
            P("Speed.NaiveThroughput", r"(\d+) warm-up launches, then (\d+) samples", "speed.warmup", "speed.samples"),
            P("Speed.NaiveThroughput", r"measured again \(up to (\d+) times\)", "speed.max_remeasures"),
            P("Speed.NaiveThroughput", r"within noise of the (" + NUM + r") bar", "speed.min_fraction_of_reference"),
            D("all tests", r"the speed tests and the shared-memory check \((\d+) points\)",
              points("Technique.TiledUsesSharedTile"), "the GPU-only tests' points"),
            *timed_launch_prose("Speed.NaiveThroughput", "output bytes"),
            P("Speed.NaiveThroughput", r"once on\s+a (\d+×\d+) image with (\d+) channels", "technique.width",
              "technique.height", "speed.channels", kind="flat"),
            D("Technique.ComputesFromSharedTile", r"on whole tiles, (1\.\d+) with 16×16 blocks",
              whole(reads_2d_full_halo, (16, 16), (1 << 20, 1 << 20)), "16 × 16 on whole tiles"),
            D("Technique.ComputesFromSharedTile", r"\((1\.\d+) on 67×45,",
              whole(reads_2d_full_halo, (16, 16), (67, 45)), "16 × 16 on 67 × 45"),
            D("Technique.ComputesFromSharedTile", r"(1\.\d+) on 131×37\)",
              whole(reads_2d_full_halo, (16, 16), (131, 37)), "16 × 16 on 131 × 37"),
            D("Technique.ComputesFromSharedTile", r"8×8 reads (1\.\d+) on whole tiles",
              whole(reads_2d_full_halo, (8, 8), (1 << 20, 1 << 20)), "8 × 8 on whole tiles"),
            D("Technique.ComputesFromSharedTile", r"at most about (1\.\d+) on these images",
              worst_counted("technique.reads.sizes", "technique.reads.random", reads_2d_full_halo, (8, 8)),
              "8 × 8 at worst on the counted images"),
            D("Technique.ComputesFromSharedTile", r"a 2×2 tile \((\d\.\d+)\)",
              whole(reads_2d_full_halo, (2, 2), (1 << 20, 1 << 20)), "2 × 2 on whole tiles"),
        ]),
    "04-stencil3d-tiling": Lab(
        numbers={
            "NaiveStencil.MatchesOracle": STENCIL3D_MATCH + "; one more case per timed size checks the launch "
                                          "without running it",
            "TiledStencil.MatchesOracle": "the same cases",
            "Technique.SharedMemoryTile": "launch recorded at {technique.size:size}: shared memory (values of T per "
                                          "thread) at least {technique.tiled_min_shared_per_thread} (tiled), none "
                                          "(naive)",
            "Technique.ComputesFromSharedTile": STENCIL3D_READS,
            "Stability.ChosenDtIsStable": "(k, h, tmax) = {stability.choose_dt_cases:tuples}; r at least {stability.min_r}",
            "Stability.RefusesUnstableDt": "r = {stability.refused_ratios}",
            "Solve.MatchesOracle": "{solve.cases}; relative L2 error at most {solve.rel_l2_tol:each}",
            "Speed.NaiveThroughput": STENCIL3D_SPEED,
            "Speed.TiledThroughput": "the same sizes and rules",
            **STENCIL3D_COMMON,
        },
        shared_only=["technique.coarsened_min_shared_per_thread", "technique.min_planes_per_thread"],
        reads=("Technique.ComputesFromSharedTile", "technique.reads.max_per_cell",
               lambda c: c["technique"]["reads"]["sizes"], "technique.reads.random", reads_3d,
               "their input tile, IN_TILE³ cells for an output tile of IN_TILE − 2 a side,", "per interior cell",
               [("IN_TILE 10 (8³ output cells)", (8, 8, 8)), ("IN_TILE 8 (6³)", (6, 6, 6)),
                ("IN_TILE 6 (4³)", (4, 4, 4)), ("IN_TILE 4 (2³)", (2, 2, 2))]),
        prose=shared_reads_prose("Technique.ComputesFromSharedTile", budget=False) + [
            P("all tests", r"with a (\d+) s time limit", "test_timeout_s"),
            P("NaiveStencil.MatchesOracle", r"\*\*The sizes:\*\* (.*?), each in float and in double", "correctness.sizes",
              kind="sizes_set"),
            P("NaiveStencil.MatchesOracle", r"each in float and in double: (\d+) cases", "correctness",
              kind="case_count3d"),
            P("NaiveStencil.MatchesOracle", r"A cell matches when \|yours − oracle\| ≤ \*\*(" + NUM +
              r")\*\* \(float\) or\s+\*\*(" + NUM + r")\*\* \(double\)", "correctness.float_rel_tol",
              "correctness.double_rel_tol"),
            P("NaiveStencil.MatchesOracle", r"for each of the (\d+) cases", "correctness", kind="case_count3d"),
            P("TiledStencil.MatchesOracle", r"The same (\d+) cases", "correctness", kind="case_count3d"),
            P("Technique.SharedMemoryTile", r"`launch_stencil_tiled` on a (\d+ × \d+ × \d+) grid", "technique.size",
              kind="sizes"),
            P("Technique.SharedMemoryTile", r"must be at least \*\*(" + NUM + r") per thread\*\*",
              "technique.tiled_min_shared_per_thread"),
            P("Technique.ComputesFromSharedTile", r"reads `in` on a (\d+ × \d+ × \d+) grid", "technique.reads.sizes",
              kind="sizes"),
            P("Technique.ComputesFromSharedTile", r"drawn for each run \(from the seed\) between (\d+ × \d+ × \d+) and "
              r"(\d+ × \d+ × \d+)", "technique.reads.random", kind="random_range"),
            P("Technique.ComputesFromSharedTile", r"divides by the interior cells: at most \*\*(" + NUM + r")\*\*",
              "technique.reads.max_per_cell"),
            P("Stability.ChosenDtIsStable", r"`choose_dt` for (\w+) \(k, h, tmax\)", "stability.choose_dt_cases",
              kind="count_word"),
            P("Stability.ChosenDtIsStable", r"r ≥ (" + NUM + r") \(not needlessly small\)", "stability.min_r"),
            P("Stability.RefusesUnstableDt", r"`integrate` with r = (" + NUM + r", " + NUM + r", " + NUM + r", " + NUM +
              r" and " + NUM + r")", "stability.refused_ratios"),
            P("Solve.MatchesOracle", r"\((\d+ × \d+ × \d+), k = (" + NUM + r"), h = (" + NUM + r"), tmax = (" + NUM +
              r"): 75 steps\)", "solve.cases.0", kind="solve3d"),
            P("Solve.MatchesOracle", r"an uneven case \((\d+ × \d+ × \d+), k = (" + NUM + r"), h = (" + NUM +
              r"), tmax = (" + NUM + r")", "solve.cases.1", kind="solve3d"),
            P("Solve.MatchesOracle", r"relative L2 error of (" + NUM + r") \(float\) or (" + NUM + r") \(double\) of the "
              r"oracle's run\. \|", "solve.rel_l2_tol.float", "solve.rel_l2_tol.double"),
            P("Stability.MaximumPrinciple", r"(\d+) steps at r = 1/6 from a random (\d+ × \d+ × \d+) start",
              "stability.long_run.steps", "stability.long_run.size"),
            P("Stability.MaximumPrinciple", r"\(slack (" + NUM + r") float, (" + NUM + r") double\)",
              "stability.max_principle_slack.float", "stability.max_principle_slack.double"),
            P("Stability.MaximumPrinciple", r"within a relative L2 error of (" + NUM + r") / (" + NUM + r") of the",
              "stability.long_run_rel_l2.float", "stability.long_run_rel_l2.double"),
            P("Stability.SineModeDecayRate", r"The mode \(mx, my, mz\) = \((\d+, \d+, \d+)\) on (\d+ × \d+ × \d+) cells, "
              r"(\d+) steps at r = (" + NUM + r")", "stability.sine.modes", "stability.sine.size", "stability.sine.steps",
              "stability.sine.r"),
            P("Stability.SineModeDecayRate", r"to (" + NUM + r") \(float\) or (" + NUM + r") \(double\) relative",
              "stability.sine.rel_tol.float", "stability.sine.rel_tol.double"),
            P("Stability.GrowsAboveBound", r"on (\d+ × \d+ × \d+) cells, amplitude 1e−3, (\d+) steps at r = (" + NUM + r")",
              "stability.blow_up.size", "stability.blow_up.steps", "stability.blow_up.r"),
            P("Stability.GrowsAboveBound", r"must match to (\d+)%", "stability.blow_up.log_growth_rel_tol", scale=100),
            P("Speed.NaiveThroughput", r"Your naive kernel at (512)³ \(float\), 512³ \(double\) and (449)³ \(float\) "
              r"must reach at least \*\*(" + NUM + r")×\*\*", "speed.cases", "speed.cases",
              "speed.min_fraction_of_reference", kind="speed3d"),
            P("Speed.NaiveThroughput", r"(\d+) warm-up launches, (\d+) samples", "speed.warmup", "speed.samples"),
            P("Speed.NaiveThroughput", r"measured again, up to (\d+) times", "speed.max_remeasures"),
            *timed_launch_prose("Speed.NaiveThroughput", "interior cells"),
            P("Speed.NaiveThroughput", r"the (\d+ × \d+ × \d+) grid of `Technique\.SharedMemoryTile`", "technique.size",
              kind="sizes"),
            P("Report.Progression", r"interleaved \((\d+) warm-ups, median of (\d+)\)", "progression.warmup",
              "progression.samples"),
            D("all tests", r"The speed tests and the\s+progression report need a real GPU \((\d+) points\)", points(),
              "the timed tests' points"),
            D("all tests", r"The (\w+) `Stability` tests that iterate a kernel are the exception", proportional,
              "the tests with proportional credit"),
            P("Report.PrecisionDrift", r"\(r = 1/6, (\d+ × \d+ × \d+)\)", "drift.size", kind="sizes"),
            P("Report.PrecisionDrift", r"after (\d+), (\d+) and (\d+) sweeps", "drift.sweeps"),
            D("Technique.ComputesFromSharedTile", r"The textbook kernel \(IN_TILE 8\) reads (\d\.\d+) times per cell on",
              at("technique.reads.sizes", 0, reads_3d, (6, 6, 6)), "IN_TILE 8 on the first counted grid"),
            D("Technique.ComputesFromSharedTile", r"at most about (\d\.\d+) on a drawn grid that cuts",
              worst("technique.reads.random", reads_3d, (6, 6, 6)), "IN_TILE 8 at worst on a drawn grid"),
            D("Technique.ComputesFromSharedTile", r"IN_TILE 10 reads at most about (\d\.\d+)",
              lambda c: max(worst_drawn(c, "technique.reads.random", reads_3d, (8, 8, 8)),
                            reads_3d(canonical_full(c["technique"]["reads"]["sizes"][0]), (8, 8, 8))),
              "IN_TILE 10 at worst"),
            D("Technique.ComputesFromSharedTile", r"IN_TILE 6 reads (\d\.\d+) on whole tiles",
              whole(reads_3d, (4, 4, 4), (1 << 20, 1 << 20, 1 << 20)), "IN_TILE 6 on whole tiles"),
            D("Technique.ComputesFromSharedTile", r"exactly (\d\.\d+) on 38 × 26 × 20",
              at("technique.reads.sizes", 0, reads_3d, (4, 4, 4)), "IN_TILE 6 on the first counted grid"),
            D("Technique.ComputesFromSharedTile", r"up to about (\d\.\d+) on a drawn grid",
              worst("technique.reads.random", reads_3d, (4, 4, 4)), "IN_TILE 6 at worst on a drawn grid"),
        ]),
    "05-stencil3d-coarsening": Lab(
        numbers={
            "CoarsenedStencil.MatchesOracle": STENCIL3D_MATCH + "; one more case per timed size checks the launch "
                                              "without running it",
            "Technique.CoarsenedInZ": STENCIL3D_PLANES % ("coarsened_min_shared_per_thread", ""),
            "Technique.ComputesFromSharedPlanes": STENCIL3D_READS,
            "Speed.CoarsenedThroughput": STENCIL3D_SPEED,
            **STENCIL3D_COMMON,
        },
        shared_only=["technique.tiled_min_shared_per_thread"],
        reads=("Technique.ComputesFromSharedPlanes", "technique.reads.max_per_cell",
               lambda c: c["technique"]["reads"]["sizes"], "technique.reads.random", reads_3d,
               COARSE_WHAT, "per interior cell", coarse_tiles("05")),
        prose=shared_reads_prose("Technique.ComputesFromSharedPlanes", budget=True) + stencil3d_prose("CoarsenedStencil.MatchesOracle", "Speed.CoarsenedThroughput",
                              "Technique.ComputesFromSharedPlanes") + [
            P("Technique.CoarsenedInZ", r"must be at least \*\*(" + NUM + r") per thread\*\*",
              "technique.coarsened_min_shared_per_thread"),
            D("all tests", r"The speed test and the progression report need a real GPU \((\d+) points\)", points(),
              "the timed tests' points"),
        ] + coarse_reads_prose("Technique.ComputesFromSharedPlanes", "32 planes a block reads", "it reads")),
    "06-stencil3d-register-tiling": Lab(
        numbers={
            "RegisterTiledStencil.MatchesOracle": STENCIL3D_MATCH + "; one more case per timed size checks the "
                                                  "launch without running it",
            "Technique.RegisterTiling": STENCIL3D_PLANES % ("tiled_min_shared_per_thread",
                                                            " and less than {technique.coarsened_min_shared_per_thread}"
                                                            "; no local memory (a GPU build)"),
            "Technique.ComputesFromSharedPlane": STENCIL3D_READS,
            "Speed.RegisterTiledThroughput": STENCIL3D_SPEED,
            **STENCIL3D_COMMON,
        },
        reads=("Technique.ComputesFromSharedPlane", "technique.reads.max_per_cell",
               lambda c: c["technique"]["reads"]["sizes"], "technique.reads.random", reads_3d,
               COARSE_WHAT, "per interior cell", coarse_tiles("06")),
        prose=shared_reads_prose("Technique.ComputesFromSharedPlane", budget=True) + stencil3d_prose("RegisterTiledStencil.MatchesOracle", "Speed.RegisterTiledThroughput",
                              "Technique.ComputesFromSharedPlane") + [
            P("Technique.RegisterTiling", r"must be \*\*at least (" + NUM + r") and less than (" + NUM + r") per thread\*\*",
              "technique.tiled_min_shared_per_thread", "technique.coarsened_min_shared_per_thread"),
            D("all tests", r"need a real GPU \((\d+) points, \d+\s+with that check\)", points(), "the timed tests' points"),
            D("all tests", r"need a real GPU \(\d+ points, (\d+)\s+with that check\)", points("Technique.RegisterTiling"),
              "the GPU-graded tests' points"),
        ] + coarse_reads_prose("Technique.ComputesFromSharedPlane", r"the reference \(P = 32\) reads", "reads")),
    "07-matmul": Lab(
        numbers={
            "Naive.MatchesOracle": "M×N×K = {correctness.shapes_mnk} (CPU execution mode: "
                                   "{cpu_mode.correctness.shapes_mnk}); inputs of magnitude up to "
                                   "{correctness.input_range}; each element within {correctness.tolerance_factor} · u "
                                   "· √K · Σ|A·B|; one more case per timed size checks the launch without running it",
            "Tiled.MatchesOracle": "the same shapes",
            "Transpose.Exact": "rows×cols = {transpose.shapes} (CPU execution mode: {cpu_mode.transpose.shapes})",
            "NaiveBt.MatchesOracle": "the same shapes",
            "TiledBt.MatchesOracle": "the same shapes",
            "Technique.TiledUsesSharedMemory": "at least {technique.min_tiled_shared_bytes} bytes of shared memory per "
                                               "tiled launch, none per naive launch; the tiled launches at N = "
                                               "{speed.sizes} (recorded, not run) the same kernel, block and shared "
                                               "memory",
            "Technique.ComputesFromSharedTiles": "reads of A and B counted at {technique.shapes_mnk} and one shape "
                                                 "drawn per run {technique.reads_random_mnk:range} (every block): at "
                                                 "most {technique.max_reads_per_multiply_add} per multiply-add; the "
                                                 "timed launches at N = {speed.sizes} ({technique.timed_blocks} of "
                                                 "their blocks, bytes read over a window of K): at most "
                                                 "{technique.timed_max_loads_per_multiply_add} loads of A and B per "
                                                 "multiply-add on whole tiles; one kernel, block and shared memory at "
                                                 "all these sizes" + SHARED_READS.replace("the small grids", "the drawn shape"),
            "Speed.NaiveThroughput": "N = {speed.sizes}; at least {speed.min_fraction_of_reference}× the reference's "
                                     "speed, same run; median of {speed.samples} samples after {speed.warmup} "
                                     "warm-ups, up to {speed.max_remeasures} measurements near the bar; output first "
                                     "checked at {speed.spot_checks} elements; each sample on fresh inputs, "
                                     "{speed.fresh_checks} elements rechecked",
            "Speed.TiledThroughput": "the same sizes and rules",
            "Speed.TiledBtThroughput": "the same sizes and rules",
            "Speed.TiledOverNaive": "N = {speed.tiled_over_naive.size}: at least {speed.tiled_over_naive.min_speedup}× "
                                    "the reference's naive kernel; graded only where the reference's tiled kernel "
                                    "reaches {speed.tiled_over_naive.reference_margin}× that bar",
            "Report.CublasBar": "N = {cublas.size}",
            "Report.ComparisonStudy": "N = {study.sizes}; GPU rows median of up to {study.samples} rounds, as many as "
                                      "fit in {study.round_budget_s} s a size; each row checked at "
                                      "{study.spot_checks} elements; a CPU row stops past {study.cpu_budget_s} s a run, "
                                      "a GPU row past {study.gpu_budget_s} s",
        },
        reads=("Technique.ComputesFromSharedTiles", "technique.max_reads_per_multiply_add",
               lambda c: c["technique"]["shapes_mnk"], "technique.reads_random_mnk", reads_matmul,
               "the rows of A and the columns of B their tile of C needs (each element of A once per block "
               "column, each of B once per block row)", "per multiply-add",
               [("64 × 64 (register-blocked)", (64, 64)), ("32 × 32", (32, 32)), ("16 × 16", (16, 16)),
                ("8 × 8", (8, 8)), ("4 × 4", (4, 4))]),
        prose=shared_reads_prose("Technique.ComputesFromSharedTiles", budget=True) + [
            P("all tests", r"with a (\d+) s time limit", "test_timeout_s"),
            P("Naive.MatchesOracle", r"\*\*The shapes \(M × N × K\)\*\*: (.*?): 13 cases", "correctness.shapes_mnk",
              kind="shapes_set"),
            P("Naive.MatchesOracle", r"single row 1 × 100 × 64: (\d+) cases", "correctness.shapes_mnk", kind="count"),
            P("Naive.MatchesOracle", r"`launch_matmul_naive` on the (\d+) shapes", "correctness.shapes_mnk",
              kind="count"),
            P("Naive.MatchesOracle", r"In CPU execution mode the 1024³ case is replaced by\s+(\d+ × \d+ × \d+ and \d+ × \d+ × \d+)",
              "cpu_mode.correctness.shapes_mnk", kind="replacement"),
            P("Naive.MatchesOracle", r"≤ (\d+) · u · √K", "correctness.tolerance_factor"),
            P("Naive.MatchesOracle", r"The factor (\d+) leaves room", "correctness.tolerance_factor"),
            P("Transpose.Exact", r"`launch_transpose` on (.*?) \(rows × cols", "transpose.shapes", kind="sizes_set"),
            P("Technique.TiledUsesSharedMemory", r"each tiled launch needs at least \*\*(\d+) bytes\*\*",
              "technique.min_tiled_shared_bytes"),
            P("Technique.ComputesFromSharedTiles", r"\*\*Small shapes\*\*: at (\d+ × \d+ × \d+), (\d+ × \d+ × \d+) and "
              r"one more shape", "technique.shapes_mnk", kind="sizes"),
            P("Technique.ComputesFromSharedTiles", r"both tiled kernels\), its own grid, block and arguments, with (\d+) "
              r"of its blocks run", "technique.timed_blocks"),
            P("Technique.ComputesFromSharedTiles", r"of its blocks run .*?: at most \*\*(" + NUM + r")\*\* loads of A "
              r"and B per multiply-add", "technique.timed_max_loads_per_multiply_add"),
            P("Technique.ComputesFromSharedTiles", r"\*\*The bar, at most (" + NUM + r") loads per multiply-add",
              "technique.timed_max_loads_per_multiply_add"),
            P("Technique.ComputesFromSharedTiles", r"in CPU execution mode: (\d+) of its blocks \(corners",
              "technique.timed_blocks"),
            P("Technique.ComputesFromSharedTiles", r"M·N·K: at most \*\*(" + NUM + r")\*\*",
              "technique.max_reads_per_multiply_add"),
            P("Speed.NaiveThroughput", r"at N = (\d+) and N = (\d+) \(square\) must reach at least \*\*(" + NUM +
              r")×\*\*", "speed.sizes", "speed.min_fraction_of_reference", kind="flat"),
            P("Speed.TiledOverNaive", r"naive\*\* kernel at N = (\d+) must be at least \*\*(" + NUM + r")×\*\*",
              "speed.tiled_over_naive.size", "speed.tiled_over_naive.min_speedup"),
            P("Speed.TiledOverNaive", r"with a (\d+)% margin on that GPU\*\* \((" + NUM + r") × (" + NUM + r")",
              "speed.tiled_over_naive", kind="margin"),
            P("Speed.NaiveThroughput", r"\((\d+) random\s+elements and the four corners of C", "speed.spot_checks"),
            P("Speed.NaiveThroughput", r"(\d+) warm-up launches, then (\d+) samples", "speed.warmup", "speed.samples"),
            P("Speed.NaiveThroughput", r"Before each of the (\d+) samples", "speed.samples"),
            P("Speed.NaiveThroughput", r"reads\s+back (\d+) elements of C", "speed.fresh_checks"),
            P("Speed.NaiveThroughput", r"once at\s+(\d+ × \d+ × \d+) \(M × N × K, the first shape of the read count\)",
              "technique.shapes_mnk", kind="first_size"),
            P("Report.CublasBar", r"cuBLAS SGEMM and your tiled kernel at N = (\d+)", "cublas.size"),
            P("Report.ComparisonStudy", r"For square\s+N = (.*?) \(8192", "study.sizes"),
            P("Report.ComparisonStudy", r"skips a\s+CPU row predicted over (" + NUM + r") s a run, or a GPU row over (" +
              NUM + r") s", "study.cpu_budget_s", "study.gpu_budget_s"),
            P("Report.ComparisonStudy", r"up to (\d+) rounds, as many as fit in (" + NUM + r") s a size",
              "study.samples", "study.round_budget_s"),
            D("all tests", r"the two reports need a real GPU \((\d+) points\)", points("Technique.TiledUsesSharedMemory"),
              "the GPU-only tests' points"),
            D("all tests", r"`Technique\.ComputesFromSharedTiles` \((\d+) points\)",
              lambda c: sum(t["points"] for t in c["tests"] if not t.get("timing") and
                            t["id"] != "Technique.TiledUsesSharedMemory"), "the points graded without a GPU"),
            P("Report.ComparisonStudy", r"\((\d+) random elements and the corners against the oracle",
              "study.spot_checks"),
            D("Technique.ComputesFromSharedTiles", r"16 × 16 tiles read about \d\.\d+ \((0\.\d+) on 37 × 29 × 45\)",
              whole(reads_matmul, (16, 16), (37, 29, 45)), "16 × 16 on 37 × 29 × 45"),
            D("Technique.ComputesFromSharedTiles", r"32 × 32 tiles about \d\.\d+ \((0\.\d+) there\)",
              whole(reads_matmul, (32, 32), (37, 29, 45)), "32 × 32 on 37 × 29 × 45"),
            D("Technique.ComputesFromSharedTiles", r"8 × 8 tiles 0\.25 \(at most (0\.\d+) on these shapes\)",
              worst_counted("technique.shapes_mnk", "technique.reads_random_mnk", reads_matmul, (8, 8)),
              "8 × 8 at worst on the counted shapes"),
            D("Technique.ComputesFromSharedTiles", r"and (0\.\d+) on 37 × 29 × 45, and fail",
              whole(reads_matmul, (4, 4), (37, 29, 45)), "4 × 4 on 37 × 29 × 45"),
        ]),
}


# ---- Reading the prose: values of the kinds above ----------------------------------------------------------

WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
         "ten": 10}


def expected_and_stated(config, check, m):
    """(stated, expected) lists of numbers for one match of a P check."""
    groups = [g for g in m.groups()]
    values = [get_path(config, p) for p in check.paths]
    kind = check.kind
    if kind == "numbers" and len(groups) != len(values):
        kind = "flat"
    if kind == "numbers":
        stated, expected = [], []
        for g, v in zip(groups, values):
            if isinstance(v, list) and v and isinstance(v[0], list):
                stated.extend(x for s in parse_sizes(g) for x in s)
                expected.extend(x for s in v for x in canonical_size(s))
            else:
                stated.extend(parse_numbers(g))
                expected.extend(x * check.scale for x in flatten_numbers(v))
        return stated, expected
    if kind == "flat":
        return ([x for g in groups for x in parse_numbers(g)],
                [x * check.scale for v in values for x in flatten_numbers(v)])
    if kind == "sizes":
        stated = [x for g in groups for s in parse_sizes(g) for x in s]
        expected = []
        for v in values:
            items = v if isinstance(v[0], list) else [v]
            expected.extend(x for s in items for x in canonical_size(s))
        return stated, expected
    if kind in ("sizes_set", "shapes_set"):
        stated = sorted(tuple(canonical_size(s)) for g in groups for s in parse_sizes(g))
        expected = sorted(tuple(canonical_size(s)) for s in values[0])
        return [x for s in stated for x in (len(s),) + s], [x for s in expected for x in (len(s),) + s]
    if kind == "count":
        return parse_numbers(groups[0]), [len(values[0])]
    if kind == "count_word":
        return [WORDS.get(groups[0].lower(), -1)], [len(values[0])]
    if kind == "string":
        return [groups[0]], [values[0]]
    return stated_of_a_record(config, kind, groups, values)


def stated_of_a_record(config, kind, groups, values):
    """(stated, expected) for the kinds that read fields of one lab.json record (a case list, a solve, a size)."""
    if kind == "case_count3d":
        return parse_numbers(groups[0]), [len(values[0]["sizes"]) * len(values[0]["precisions"])]
    if kind == "case_count2d":
        return parse_numbers(groups[0]), [len(values[0]["sizes"]) * len(values[0]["ratios"])]
    if kind == "interior_z":
        return parse_numbers(groups[0]), [values[0][2] - 2]
    if kind == "speed3d":
        cases = values[0]
        return ([float(groups[0]), float(groups[1]), float(groups[2])],
                [float(cases[0][0]), float(cases[2][0]), values[2]])
    if kind == "m_and_pct":
        return [parse_numbers(groups[0])[0], float(groups[1])], [values[0], values[1] * 100]
    if kind == "n_n_pct":
        return [float(groups[0]), float(groups[1]), float(groups[2])], [values[0], values[1], values[2] * 100]
    if kind == "solve2d":
        v = values[0]
        return ([x for s in parse_sizes(groups[0]) for x in s] + [float(g) for g in groups[1:]],
                [v["nx"], v["ny"], v["k"], v["h"], v["tmax"]])
    if kind == "solve3d":
        v = values[0]
        return ([x for s in parse_sizes(groups[0]) for x in s] + [float(g) for g in groups[1:]],
                canonical_size(v["size"]) + [v["k"], v["h"], v["tmax"]])
    if kind == "long_run2d":
        v = values[0]
        stated = [x for s in parse_sizes(groups[0]) for x in s] + [float(g) for g in groups[1:]]
        return stated, [v["nx"], v["ny"]] + ([v["steps"]] if len(groups) > 1 else [])
    if kind == "cosine2d":
        v = values[0]
        stated = [float(groups[0]), float(groups[1])] + [x for s in parse_sizes(groups[2]) for x in s] + \
            [1 / float(groups[3])] + [float(g) for g in groups[4:]]
        return stated, [v["m"], v["n"], v["nx"], v["ny"], v["h"], v["r"], v["k"], v["steps"]]
    if kind == "blow_up2d":
        v = values[0]
        return ([x for s in parse_sizes(groups[0]) for x in s] + [float(groups[1]), float(groups[2])],
                [v["nx"], v["ny"], v["steps"], v["r"]])
    if kind == "nx_ny":
        v = values[0]
        return [x for s in parse_sizes(groups[0]) for x in s], [v["nx"], v["ny"]]
    if kind == "random_range":
        v = values[0]
        stated = [x for g in groups for s in parse_sizes(g) for x in s]
        n = len(stated) // 2
        return stated, list(v["min"][:n]) + list(v["max"][:n])
    if kind == "w_h_channels":
        v = values[0]
        return ([x for s in parse_sizes(groups[0]) for x in s] + parse_numbers(groups[1]),
                [v["width"], v["height"]] + list(v["channels"]))
    if kind == "reads_images":
        v = values[0]
        return ([x for g in groups[:2] for s in parse_sizes(g) for x in s] + [float(groups[2]), float(groups[3])],
                [x for s in v["sizes"] for x in s] + list(v["channels"]))
    if kind == "sizes_then_list":
        return ([x for s in sorted(parse_sizes(groups[0])) for x in s] + parse_numbers(groups[1]),
                [x for s in sorted(values[0]) for x in s] + list(values[1]))
    if kind == "ends":
        return [float(g) for g in groups], [values[0][0], values[0][1], values[0][-1]]
    if kind == "replacement":
        gpu, cpu = get_path(config, "correctness.shapes_mnk"), values[0]
        replaced = [s for s in cpu if s not in gpu]
        return [x for s in parse_sizes(groups[0]) for x in s], [x for s in replaced for x in s]
    if kind == "first_size":
        return [x for s in parse_sizes(groups[0]) for x in s], list(values[0][0])
    if kind == "margin":
        v = values[0]
        return ([float(groups[0]), float(groups[1]), float(groups[2])],
                [round((v["reference_margin"] - 1) * 100, 6), v["min_speedup"], v["reference_margin"]])
    raise ValueError(f"unknown kind {kind}")


def shown_digits(text):
    return len(text.split(".")[1]) if "." in text else 0


# ---- The generated section ------------------------------------------------------------------------------

def generated_section(lab, config, described):
    """The markdown between the markers, and the lab.json paths it used."""
    spec = LABS.get(lab, Lab({}))
    used = set()
    lines = [BEGIN, "", "### The numbers, from lab.json", "",
             f"Written from `labs/{lab}/lab.json`, the file the grader reads its sizes and bars from, so it "
             "always says what the grader does. Each test has a "
             f"{fmt_num(config['test_timeout_s'])} s time limit. Verdicts (*failed*, *not counted*, *not run*) are "
             "explained in the project README, under \"Reading the grade table\".", "",
             "| Test | Points | Runs at, and the bar |", "|---|---|---|"]
    claimed = set(spec.numbers)
    for test in config["tests"]:
        tid = test["id"]
        points = fmt_num(test["points"])
        if test.get("credit") == "proportional":
            points += ", each case its share"
        parts = []
        if tid not in described:
            parts.append(test["what"])
        if tid in spec.numbers:
            parts.append(render_template(config, spec.numbers[tid], used))
        else:
            # A test this script has no template for: the lab.json section named like it, if no template uses it.
            suite, _, name = tid.partition(".")
            for key in (name.lower(), suite.lower()):
                if key in config and key not in NOT_NUMBERS and isinstance(config[key], dict) and \
                        not any(p == key or p.startswith(key + ".") for p in claimed_paths(config, spec)):
                    parts.append(fmt_value(config[key]))
                    used.add(key)
                    break
        if test.get("run_in") == "cpu":
            parts.append("counted in CPU execution mode, on a GPU machine too")
        if test.get("requires"):
            parts.append("counts only once " + ", ".join(f"`{r}`" for r in test["requires"]) + " passed")
        if test.get("after"):
            parts.append("decided after " + ", ".join(f"`{r}`" for r in test["after"]) + " ran, from the timed samples "
                         "it drew")
        if test.get("confirmed_by"):
            parts.append("not counted where " + ", ".join(f"`{r}`" for r in test["confirmed_by"]) + " finds timed "
                         "samples, drawn at random, doing other work than the counted launch")
        cell = "; ".join(p for p in parts if p) or "as in the table above"
        lines.append(f"| `{tid}` | {points} | {cell} |")
    del claimed
    # Numbers no template used: listed, so that nothing the grader reads stays out of the handout.
    used |= spec.shared_only
    used_cpu = {p for p in used if p.startswith("cpu_mode.")}
    rest = []
    for key, value in config.items():
        if key in NOT_NUMBERS:
            continue
        for path in leaves(value, key):
            if any(path == w or path.startswith(w + ".") for w in WORDING):
                continue
            if not any(path == u or path.startswith(u + ".") for u in used):
                rest.append(f"{path} = {fmt_value(get_path(config, path))}")
    if rest:
        lines += ["", "Other numbers in lab.json: " + "; ".join(rest) + "."]
    cpu = {}
    for path in leaves(config.get("cpu_mode", {}), "cpu_mode"):
        if path and not any(path == u or path.startswith(u + ".") for u in used_cpu):
            parent, _, key = path[len("cpu_mode."):].rpartition(".")
            value = get_path(config, path)
            shown = fmt_size(value) if key in ("size", "shape") else fmt_value(value)
            cpu.setdefault(parent, []).append(f"{key.replace('_', ' ')} = {shown}")
    if cpu:
        lines += ["", "In CPU execution mode these run smaller: " +
                  "; ".join(f"{parent}: {', '.join(items)}" for parent, items in cpu.items()) + "."]
    if spec.reads:
        lines += reads_table(config, spec.reads, used)
    lines += ["", END]
    return "\n".join(lines), used


def claimed_paths(config, spec):
    found = set()
    for template in spec.numbers.values():
        found.update(m.group(1) for m in PLACEHOLDER.finditer(template))
    return found


def reads_table(config, reads, used):
    test, bar_path, sizes_of, drawn_path, model, what, unit, tiles = reads
    bar = get_path(config, bar_path)
    used.update({bar_path, drawn_path})
    sizes = [canonical_full(s) if len(s) == 1 else list(s) for s in sizes_of(config)]
    drawn = get_path(config, drawn_path)
    dims = len(drawn["min"])
    head = " | ".join(fmt_size(s) for s in sizes)
    lines = ["", f"**Which tiles clear `{test}`** (at most {fmt_num(bar)} reads {unit}): the reads {unit} of a "
             f"kernel whose blocks each load {what} once, on the sizes the test counts at, and the most on a size "
             f"drawn between {fmt_size(drawn['min'][:dims])} and {fmt_size(drawn['max'][:dims])}. A kernel that "
             "loads a value twice, or reads a neighbour from global memory, reads more.", "",
             f"| Tile | {head} | drawn, at worst | Clears the bar |", "|---|" + "---|" * (len(sizes) + 2)]
    for label, tile in tiles:
        values = [model(s, tile) for s in sizes]
        w = worst_drawn(config, drawn_path, model, tile)
        everywhere = max(values + [w])
        if everywhere <= bar:
            verdict = "yes"
        elif min(values + [model(list(s), tile) for s in drawn_sizes(drawn)]) > bar:
            verdict = "no"
        else:
            verdict = "depends on the drawn size"
        lines.append(f"| {label} | " + " | ".join(f"{v:.2f}" for v in values) + f" | {w:.2f} | {verdict} |")
    return lines


# ---- Checking -------------------------------------------------------------------------------------------

def split_handout(text):
    """(before, section, after); section is None where the handout has no markers."""
    m = BEGIN_RE.search(text)
    if not m:
        return text, None, ""
    end = text.find(END, m.end())
    if end < 0:
        return text, None, ""
    end += len(END)
    return text[:m.start()], text[m.start():end], text[end:]


def insert_point(text):
    for anchor in ("\n### What a timed launch must do", ):
        i = text.find(anchor)
        if i >= 0:
            return i + 1
    m = re.search(r"^## .*What the grader checks.*$", text, re.M)
    if m:
        nxt = re.search(r"^## ", text[m.end():], re.M)
        if nxt:
            return m.end() + nxt.start()
    return len(text)


def described_tests(config, prose):
    return {t["id"] for t in config["tests"] if f"`{t['id']}`" in prose}


def row_map(section):
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\| `([^`]+)` \| (.*)$", line)
        if m:
            rows[m.group(1)] = line
    return rows


def stale_messages(lab, old, new):
    """What changed between the handout's section and the one lab.json gives, test by test."""
    out = []
    old_rows, new_rows = row_map(old), row_map(new)
    for tid, line in new_rows.items():
        if tid not in old_rows:
            out.append(f"{lab}: {tid}: the handout's generated section lacks this test of lab.json")
            continue
        if old_rows[tid] == line:
            continue
        was, now = cells_of(old_rows[tid]), cells_of(line)
        diffs = []
        if was[1] != now[1]:
            diffs.append(f"points {now[1]} (handout: {was[1]})")
        was_items, now_items = was[2].split("; "), now[2].split("; ")
        diffs += [f"'{y}' (handout: '{x}')" for x, y in zip(was_items, now_items) if x != y]
        if len(was_items) != len(now_items):
            diffs.append(f"'{now[2]}' (handout: '{was[2]}')")
        out.append(f"{lab}: {tid}: lab.json now gives " + "; ".join(diffs))
    for tid in old_rows:
        if tid not in new_rows:
            out.append(f"{lab}: {tid}: the handout's generated section lists a test lab.json no longer has")
    if not out:
        old_lines, new_lines = old.splitlines(), new.splitlines()
        for i, (x, y) in enumerate(itertools.zip_longest(old_lines, new_lines, fillvalue="")):
            if x != y:
                out.append(f"{lab}: the generated section's line {i + 1} is stale: now '{y}' (handout: '{x}')")
                break
    return out


def cells_of(row):
    """"| `id` | 5 | text |" -> ["`id`", "5", "text"]."""
    return [c.strip() for c in row.strip().strip("|").split(" | ", 2)]


def check_points(lab, config, prose, readme_path):
    """The hand-written tables' Points column and the section heading's total are lab.json's."""
    problems = []
    points_of = {t["id"]: t["points"] for t in config["tests"]}
    for m in re.finditer(r"^\| `([A-Za-z]+\.[A-Za-z]+)` \| (\d+(?:\.\d+)?) \|", prose, re.M):
        tid, stated = m.group(1), float(m.group(2))
        line = prose.count("\n", 0, m.start()) + 1
        if tid not in points_of:
            problems.append(f"{readme_path}:{line}: {lab}: {tid}: the handout's table lists a test lab.json does not have")
        elif stated != points_of[tid]:
            problems.append(f"{readme_path}:{line}: {lab}: {tid}: the handout's table gives {m.group(2)} points, "
                            f"lab.json {fmt_num(points_of[tid])}")
    total = sum(points_of.values())
    for m in re.finditer(r"^## .*What the grader checks \((\d+) points\)", prose, re.M):
        if float(m.group(1)) != total:
            line = prose.count("\n", 0, m.start()) + 1
            problems.append(f"{readme_path}:{line}: {lab}: all tests: the heading says {m.group(1)} points, lab.json's "
                            f"tests add up to {fmt_num(total)}")
    return problems


def check_prose(lab, config, prose, spec, readme_path, show=False):
    problems = check_points(lab, config, prose, readme_path)
    for check in spec.prose:
        matches = list(check.pattern.finditer(prose))
        if not matches:
            problems.append(f"{readme_path}: {lab}: {check.test}: the sentence /{check.pattern.pattern[:70]}/ is no "
                            "longer in the handout (update the check in grader/tools/handout_checks.py with the "
                            "handout's new words)")
            continue
        for m in matches:
            line = prose.count("\n", 0, m.start()) + 1
            if show:
                print(f"{readme_path}:{line}: {check.test}: " + " ".join(m.group(0).split()))
            if isinstance(check, D):
                stated_text = m.group(1)
                stated = float(WORDS[stated_text.lower()]) if stated_text.isalpha() else float(stated_text)
                expected = check.compute(config)
                digits = shown_digits(stated_text)
                about = "about" in prose[max(0, m.start() - 40):m.start() + len(m.group(0))]
                close = abs(stated - expected) <= (0.05 * expected if about else 0.5 * 10 ** -digits + 1e-12)
                if not close:
                    problems.append(f"{readme_path}:{line}: {lab}: {check.test}: the handout says {stated_text} for "
                                    f"{check.what}; lab.json's sizes give {expected:.{max(digits, 2)}f}")
                continue
            try:
                stated, expected = expected_and_stated(config, check, m)
            except KeyError as missing:
                problems.append(f"{readme_path}:{line}: {lab}: {check.test}: lab.json has no {missing} any more")
                continue
            if isinstance(expected[0] if expected else None, str) or isinstance(stated[0] if stated else None, str):
                ok = stated == expected
            else:
                ok = same_numbers([float(x) for x in stated], [float(x) for x in expected])
            if not ok:
                problems.append(f"{readme_path}:{line}: {lab}: {check.test}: the handout says "
                                f"'{' '.join(m.group(0).split())[:120]}', but lab.json ({', '.join(check.paths)}) gives "
                                f"{', '.join(fmt_value(get_path(config, p)) for p in check.paths)}")
    return problems


def check_readme(root):
    """The project README explains the verdicts once, in the words gpulab-grade prints."""
    text = (root / "README.md").read_text()
    problems = []
    bullets = [m.start() for m in re.finditer(r"^- \*\*Verdicts\.\*\*", text, re.M)]
    if len(bullets) != 1:
        problems.append(f"README.md: {len(bullets)} 'Verdicts.' explanations, one expected (under Reading the grade table)")
        return problems
    start = bullets[0]
    end = text.find("\n- ", start + 3)
    bullet = " ".join(text[start:end].split())
    for verdict in ("failed", "timed out", "crashed", "not written yet", "not counted", "not run"):
        if f"*{verdict}*" not in bullet:
            problems.append(f"README.md: the Verdicts explanation does not name *{verdict}*")
    return problems


def labs_of(root):
    text = (root / "labs" / "CMakeLists.txt").read_text()
    return re.findall(r"^\s*gpulab_add_lab\(\s*([^)\s]+)\s*\)", text, re.MULTILINE)


def main():
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("repository", nargs="?", default=str(pathlib.Path(__file__).resolve().parents[2]))
    parser.add_argument("--update", action="store_true", help="rewrite the generated sections")
    parser.add_argument("--lab", action="append", help="only this lab (repeatable)")
    parser.add_argument("--show", action="store_true", help="print each sentence of the prose that is checked")
    args = parser.parse_args()
    root = pathlib.Path(args.repository).resolve()
    problems, notes = [], []
    for lab in labs_of(root):
        if args.lab and lab not in args.lab:
            continue
        readme = root / "labs" / lab / "README.md"
        config = json.loads((root / "labs" / lab / "lab.json").read_text())
        text = readme.read_text()
        before, section, after = split_handout(text)
        prose = before + after if section is not None else text
        spec = LABS.get(lab, Lab({}))
        try:
            new_section, _ = generated_section(lab, config, described_tests(config, prose))
        except KeyError as missing:
            problems.append(f"{lab}: a template of grader/tools/handout_checks.py refers to {missing}, which lab.json "
                            "does not have")
            continue
        for tid in spec.numbers:
            if tid not in {t["id"] for t in config["tests"]}:
                notes.append(f"{lab}: handout_checks.py has numbers for {tid}, which lab.json does not list")
        rel = readme.relative_to(root)
        if args.update:
            if section is None:
                i = insert_point(text)
                text = text[:i] + new_section + "\n\n" + text[i:]
            else:
                text = before + new_section + after
            if text != readme.read_text():
                readme.write_text(text)
                print(f"{rel}: generated section written")
        elif section is None:
            problems.append(f"{rel}: {lab}: no generated section (markers {END[:-4]}...); run "
                            "grader/tools/handout_checks.py --update")
        elif section != new_section:
            problems += [f"{rel}: {m}; run grader/tools/handout_checks.py --update"
                         for m in stale_messages(lab, section, new_section)]
        problems += check_prose(lab, config, prose, spec, rel, args.show)
    if not args.lab:
        problems += check_readme(root)
    for note in notes:
        print(f"note: {note}")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s): the handouts must state what lab.json holds the kernels to")
        return 1
    print("every handout states the numbers of its lab.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
