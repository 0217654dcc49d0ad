"""find_path on level graphs with off-mesh links: microseconds a query
with 0, 1, 5 and 20 links, and the ratio to the same level without links.

    .venv/bin/python bench/level_links.py            # both levels
    .venv/bin/python bench/level_links.py --quick    # the small level only, fewer rounds

Levels:

* ``small``: a U of floor (x 0..20, z 0..12, the arms joined at x 16..20
  only) beside a platform 3 higher (x 22..32), cell size 0.5, the size of
  ``tests/levels/test_level_links.py``'s levels;
* ``nav_test``: RecastDemo's ``nav_test.obj`` (``../shared/data/levels``)
  with RecastDemo's defaults.

Links (seeded): ``k`` bidirectional links with the default cost (their 3D
length), their starts drawn in one small patch of the level and their
ends in another (links close together, all near the paths), so every
query weighs all of them. Queries: 200 pairs of random points
(``World.random_point``, seeded), the same for every link count; a round
times every query once per graph, the graphs interleaved; the median of
the rounds' mean per query is printed. Then ``distance_matrix`` of 20 x
20 of those points: microseconds per entry. No assertions: run old and
new code alternately (``PYTHONPATH``) to compare versions.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "plugins"), str(ROOT / "tests")]

import navcore  # noqa: E402
from levelkit import join, quad  # noqa: E402

LEVELS = ROOT.parent / "shared" / "data" / "levels"
COUNTS = (0, 1, 5, 20)


def small_level():
    v, t = join(quad(0, 20, 0, 4, 0.0), quad(16, 20, 4, 8, 0.0), quad(0, 20, 8, 12, 0.0),
                quad(22, 32, 0, 12, 3.0))
    return dict(vertices=v, triangles=t, cell_size=0.5)


def nav_test():
    return dict(level=str(LEVELS / "nav_test.obj"))


def near(world, gid, rng, centre, spread, tries=200):
    """A point of the walkable surface within ``spread`` (across) of ``centre``."""
    for _ in range(tries):
        m = world.random_point(gid, rng)
        if abs(m.point[0] - centre[0]) <= spread and abs(m.point[2] - centre[2]) <= spread:
            return tuple(float(x) for x in m.point)
    raise RuntimeError(f"no walkable point near {centre}")


def make_links(world, gid, k, seed):
    rng = np.random.default_rng(seed)
    a = world.random_point(gid, rng).point
    b = world.random_point(gid, rng).point
    spread = 0.1 * float(np.ptp(world.graphs[gid].vertices, axis=0).max())
    return [{"start": near(world, gid, rng, a, spread), "end": near(world, gid, rng, b, spread),
             "radius": 0.5} for _ in range(k)]


def bench(name, settings, rounds, queries):
    world = navcore.World()
    world.add_graph(f"{name}0", type="level", **settings)
    for k in COUNTS[1:]:
        world.add_graph(f"{name}{k}", type="level",
                        links=make_links(world, f"{name}0", k, seed=k), **settings)
    rng = np.random.default_rng(7)
    pairs = [(tuple(world.random_point(f"{name}0", rng).point),
              tuple(world.random_point(f"{name}0", rng).point)) for _ in range(queries)]
    pairs = [(tuple(map(float, a)), tuple(map(float, b))) for a, b in pairs]
    times = {k: [] for k in COUNTS}
    for k in COUNTS:                            # warm: kernels and each graph's caches
        for a, b in pairs:
            world.find_path(f"{name}{k}", a, b)
    for _ in range(rounds):
        for k in COUNTS:
            gid = f"{name}{k}"
            t0 = time.perf_counter()
            for a, b in pairs:
                world.find_path(gid, a, b)
            times[k].append((time.perf_counter() - t0) / len(pairs))
    ends = [a for a, _ in pairs[:20]]
    matrix = {k: [] for k in COUNTS}
    for _ in range(rounds):
        for k in COUNTS:
            t0 = time.perf_counter()
            world.distance_matrix(f"{name}{k}", ends, ends)
            matrix[k].append((time.perf_counter() - t0) / len(ends) ** 2)
    base = statistics.median(times[0])
    mbase = statistics.median(matrix[0])
    for k in COUNTS:
        us = statistics.median(times[k]) * 1e6
        mus = statistics.median(matrix[k]) * 1e6
        print(f"{name:9s} links {k:3d}: {us:8.1f} us/query  x{us / (base * 1e6):5.2f} "
              f"of no links;  matrix {mus:7.2f} us/entry  x{mus / (mbase * 1e6):6.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rounds = 3 if args.quick else 7
    bench("small", small_level(), rounds, 200)
    if not args.quick:
        bench("nav_test", nav_test(), rounds, 200)


if __name__ == "__main__":
    main()
