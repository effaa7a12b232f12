#!/usr/bin/env python3
"""Every grid CPU execution mode shrinks keeps what the GPU's grid exercises.

lab.json's "cpu_mode" object replaces some sizes with smaller ones, because CPU execution mode is slow. A bug that
depends on the size must then give the same verdict in both modes: a naive kernel that takes x from blockIdx.y is
right on a grid whose block counts are equal in x and y, and wrong on one where they differ. So each replaced grid
must have, for every block edge a student is likely to choose along each axis, the same *signature* as the GPU's
grid it replaces: along each axis whether the last block is partial, and between each pair of axes whether the
block counts are equal. A list of grids (shapes, sizes) keeps the signature of every GPU grid that CPU execution
mode leaves out in at least one grid it keeps or adds. Where no small grid can keep a signature, CPU execution mode
must not shrink it: the GPU then uses the same grid.

  grader/tools/cpu_mode_grids.py [repository]      exit 1 and name each grid that loses what its GPU grid had
"""
import itertools
import json
import sys
from pathlib import Path

# Block edges a student is likely to choose along one axis of a 2D or 3D grid (the 3D tiled kernels' output tiles
# of 6, 14 and 30 among them); a block shape is a choice of one per axis with 32 to 1024 threads (at most 64 along
# z). Along an axis a kernel loops over instead (matmul's K), tiles of up to 64 are what kernels use.
EDGES = (1, 2, 4, 6, 8, 14, 16, 30, 32, 64, 128, 256)
LOOP_TILES = (4, 8, 16, 30, 32, 64)


def block_shapes(axes):
    for edges in itertools.product(EDGES, repeat=axes):
        threads = 1
        for e in edges:
            threads *= e
        if 32 <= threads <= 1024 and (axes < 3 or edges[2] <= 64):
            yield edges


def read(config, path):
    for key in path:
        config = config[key]
    return config


# Where each lab's grids are, how to read one as its extents along the axes a block grid covers, and whether the
# value is one grid or a list. `extents(value)`: the cells the launch's grid covers along each axis, then the
# extents of the axes a kernel loops over in tiles.
GRIDS = {
    ("solve", "gaussian"): ("one", lambda v: (v["nx"], v["ny"])),
    ("stability", "long_run"): ("one", lambda v: (v["nx"], v["ny"]) if "nx" in v else tuple(n - 2 for n in v["size"])),
    ("random", "large"): ("list", lambda v: (v[0], v[1])),
    ("correctness", "shapes_mnk"): ("list", lambda v: ((v[1], v[0]), (v[2],))),  # C's columns and rows; K, looped
    ("transpose", "shapes"): ("list", lambda v: (v[1], v[0])),
}


# Grids CPU execution mode may shrink although the signature changes, and why that changes no verdict.
EXEMPT = {
    ("02-heat-2d", ("solve", "gaussian")):
        "the handout's 128 x 128 solve (64 x 64 in CPU execution mode: at 128 x 128 its 4096 steps alone take a minute "
        "there) checks the host loop; the step kernels it runs are checked at the same twelve grids in both modes "
        "(step.sizes), which is where a size-dependent kernel bug fails",
}


def signature(extents):
    """Per block shape: which axes end in a partial block, and which pairs of axes have equal block counts; per loop
    tile, which looped axes end in a partial tile."""
    if isinstance(extents[0], tuple):
        block_axes, loop_axes = extents
        return signature(block_axes) + tuple(tuple(n % b != 0 for n in loop_axes) for b in LOOP_TILES)
    sig = []
    for edges in block_shapes(len(extents)):
        counts = [(n + b - 1) // b for n, b in zip(extents, edges)]
        partial = tuple(n % b != 0 for n, b in zip(extents, edges))
        equal = tuple(counts[i] == counts[j] for i, j in itertools.combinations(range(len(counts)), 2))
        sig.append((partial, equal))
    return tuple(sig)


def differences(gpu, cpu):
    """Block shapes under which the CPU grid's signature differs from the GPU grid's (at most three named)."""
    looped = isinstance(gpu[0], tuple)
    shapes = list(block_shapes(len(gpu[0]) if looped else len(gpu)))
    shapes += [("loop tile", b) for b in LOOP_TILES] if looped else []
    a, b = signature(gpu), signature(cpu)
    return [shapes[i] for i in range(len(shapes)) if a[i] != b[i]]


def describe(shape):
    return f"{shape[0]} {shape[1]}" if shape[0] == "loop tile" else "x".join(map(str, shape))


def check(root):
    problems = []
    for config_path in sorted(root.glob("labs/*/lab.json")):
        config = json.loads(config_path.read_text())
        patch = config.get("cpu_mode")
        if not patch:
            continue
        lab = config_path.parent.name
        for path, (kind, extents) in GRIDS.items():
            if (lab, path) in EXEMPT:
                continue
            try:
                cpu, gpu = read(patch, path), read(config, path)
            except (KeyError, TypeError):
                continue
            if kind == "one":
                merged = dict(gpu, **cpu)
                g, c = extents(gpu), extents(merged)
                if g != c and differences(g, c):
                    shapes = differences(g, c)
                    problems.append(f"{lab}: cpu_mode.{'.'.join(path)} {c} loses what the GPU's {g} exercises with blocks "
                                    f"{', '.join(describe(s) for s in shapes[:3])}"
                                    f"{' and more' if len(shapes) > 3 else ''}: use one grid in both modes, or one "
                                    "with the same partial blocks and equal block counts")
            else:
                kept = [extents(v) for v in cpu]
                for shape in gpu:
                    g = extents(shape)
                    if g in kept:
                        continue
                    if not any(not differences(g, c) for c in kept):
                        problems.append(f"{lab}: cpu_mode.{'.'.join(path)} leaves out {list(shape)}, and no grid it keeps "
                                        "has its partial blocks and equal block counts")
    return problems


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
    problems = check(root)
    for p in problems:
        print(p)
    if not problems:
        print("every grid CPU execution mode shrinks keeps what the GPU's grid exercises")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
