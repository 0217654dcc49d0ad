"""Incremental connected components (the hierarchy plugin) against full
recalculation and scipy, in one run, as ratios.

    .venv/bin/python bench/hierarchy.py            # full run (about 1-2 minutes)
    .venv/bin/python bench/hierarchy.py --quick    # 256x256 smoke run

Maps (1000x1000 cells, 8-connected, no corner cutting, so areas are the
4-connected components that ``scipy.ndimage.label`` finds with its default
structure):

* ``random-25``: 25% random obstacles (seeded);
* ``brc202d-tiled``: the Dragon Age map brc202d tiled 2x2 and cropped.

Per map, for ``updates`` random 16x16 squares: block the square, then
unblock it (two updates per square). Timed per update:

* ``incremental``: the observer phase of ``World.tick``
  (``FrameStats.time_observers_ms``), which is the hierarchy's update from
  the dirty cells the grid backend reported;
* ``tick``: the whole ``World.update`` + ``World.tick`` (grid mask, CSR view
  refresh, hierarchy);
* ``full``: ``Hierarchy.recalculate()`` on the same state;
* ``ndimage.label``: scipy's labelling of the same walkable array.

And ``reachable`` throughput: ``World.reachable_many`` on 1 M random pairs,
and single ``World.reachable`` calls.

``ratio`` is navcore time / other time: below 1 navcore is faster.
Results: ``bench/results/hierarchy.json``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (fmt_ratio, fmt_s, log, machine, median, print_table,  # noqa: E402
                     ratio, versions, write_json)

SEED = 20261123
DATA = Path(os.environ.get("NAVCORE_MOVINGAI", "/work/shared/data/movingai"))
FULL = dict(side=1000, updates=40, full_rounds=5, pairs=1_000_000, singles=20_000)
QUICK = dict(side=256, updates=10, full_rounds=2, pairs=100_000, singles=2_000)
BLOCK = 16
GOALS = {"full": 1 / 100, "ndimage": 1 / 20, "reach_per_s": 1e6}


def make_map(name, side, rng):
    if name == "random-25":
        return rng.random((side, side)) >= 0.25
    from navcore_grid import read_map
    walk = read_map(DATA / "brc202d.map")
    reps = (-(-side // walk.shape[0]), -(-side // walk.shape[1]))
    return np.tile(walk, reps)[:side, :side].copy()


def bench_map(name, cfg, rng):
    import navcore
    from scipy import ndimage
    from navcore_hierarchy import hierarchy_of

    walk = make_map(name, cfg["side"], rng)
    world = navcore.World()
    t0 = time.perf_counter()
    g = world.add_graph("m", type="grid", array=walk)
    t_build = time.perf_counter() - t0
    h = hierarchy_of(g)
    log(f"{name}: {walk.shape[1]}x{walk.shape[0]}, {int(walk.sum())} free cells, "
        f"{h.num_hierarchical_nodes} hierarchical nodes, {h.num_areas} areas, "
        f"add_graph {t_build:.2f} s")
    # correctness once: same partition as scipy
    lab = ndimage.label(walk)[0]
    ours = world.areas("m").reshape(walk.shape)
    pairs = np.unique(np.stack([ours[walk], lab[walk]]), axis=1).shape[1]
    assert pairs == len(np.unique(ours[walk])) == len(np.unique(lab[walk])), name

    H, W = walk.shape
    inc, tick, full, label = [], [], [], []
    for i in range(cfg["updates"]):
        x, y = int(rng.integers(W - BLOCK)), int(rng.integers(H - BLOCK))
        for blocked in (True, False):
            world.update("m", rect=(x, y, BLOCK, BLOCK), walkable=not blocked)
            t0 = time.perf_counter()
            stats = world.tick()
            tick.append(time.perf_counter() - t0)
            # the observer phase of the tick is the hierarchy's update
            inc.append(stats.time_observers_ms / 1e3)
        if i < cfg["full_rounds"]:
            t0 = time.perf_counter()
            h.recalculate()
            full.append(time.perf_counter() - t0)
            cur = g.walkable_grid
            t0 = time.perf_counter()
            ndimage.label(cur)
            label.append(time.perf_counter() - t0)
    lab = ndimage.label(g.walkable_grid)[0]
    ours = world.areas("m").reshape(walk.shape)
    free = g.walkable_grid
    pairs = np.unique(np.stack([ours[free], lab[free]]), axis=1).shape[1]
    assert pairs == len(np.unique(ours[free])) == len(np.unique(lab[free])), name

    # reachable throughput
    n = walk.size
    a = rng.integers(n, size=cfg["pairs"]).astype(np.int32)
    b = rng.integers(n, size=cfg["pairs"]).astype(np.int32)
    world.reachable_many("m", a[:10], b[:10])
    t0 = time.perf_counter()
    world.reachable_many("m", a, b)
    t_many = time.perf_counter() - t0
    k = cfg["singles"]
    al, bl = a[:k].tolist(), b[:k].tolist()
    t0 = time.perf_counter()
    for s, t in zip(al, bl):
        world.reachable("m", s, t)
    t_single = time.perf_counter() - t0
    return {
        "map": name, "cells": int(n), "free": int(walk.sum()),
        "hierarchical_nodes": h.num_hierarchical_nodes, "areas": h.num_areas,
        "add_graph_s": t_build,
        "incremental_s": median(inc), "tick_s": median(tick),
        "full_s": median(full), "ndimage_s": median(label),
        "settled_locally": f"{h.local_updates}/{h.updates}",
        "reachable_many_per_s": cfg["pairs"] / t_many,
        "reachable_single_per_s": k / t_single,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="256x256 smoke run")
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    rng = np.random.default_rng(SEED)
    results = [bench_map(name, cfg, rng) for name in ("random-25", "brc202d-tiled")]

    def verdict(value, limit, le=True):
        if value is None:
            return "-"
        return "met" if (value <= limit if le else value >= limit) else "MISSED"

    rows = []
    for r in results:
        rf = ratio(r["incremental_s"], r["full_s"])
        rn = ratio(r["incremental_s"], r["ndimage_s"])
        rows.append([r["map"], fmt_s(r["incremental_s"]), fmt_s(r["tick_s"]),
                     fmt_s(r["full_s"]), fmt_s(r["ndimage_s"]),
                     f"{fmt_ratio(rf)} ({verdict(rf, GOALS['full'])})",
                     f"{fmt_ratio(rn)} ({verdict(rn, GOALS['ndimage'])})",
                     r["settled_locally"]])
    print_table(f"Block/unblock a {BLOCK}x{BLOCK} square, median per update "
                f"({cfg['side']}x{cfg['side']}, goals: <= 1/100 of full, <= 1/20 of "
                f"ndimage.label)",
                ["map", "incremental", "whole tick", "full recalculation", "ndimage.label",
                 "vs full", "vs ndimage", "settled without a global flood"], rows)
    rows = [[r["map"], f"{r['reachable_many_per_s'] / 1e6:.1f} M/s "
             f"({verdict(r['reachable_many_per_s'], GOALS['reach_per_s'], le=False)})",
             f"{r['reachable_single_per_s'] / 1e3:.0f} k/s",
             r["hierarchical_nodes"], r["areas"], f"{r['add_graph_s']:.2f} s"]
            for r in results]
    print_table("reachable queries (goal: > 1 M/s through reachable_many)",
                ["map", "reachable_many", "reachable (one call each)",
                 "hierarchical nodes", "areas", "add_graph (CSR view + build)"], rows)
    path = write_json("hierarchy-quick" if args.quick else "hierarchy",
                      {"machine": machine(), "versions": versions("numpy", "numba", "scipy"),
                       "config": cfg, "results": results})
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
