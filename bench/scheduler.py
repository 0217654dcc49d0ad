"""The frame scheduler: tick overhead, path-request throughput with 1 and 2
workers, and tick times against the budget under a steady load.

    .venv/bin/python bench/scheduler.py            # about 1 minute
    .venv/bin/python bench/scheduler.py --quick    # a smoke run

* ``empty tick``: ``World.tick`` with nothing queued (goal < 50 us).
* ``throughput``: 2000 requests between pairs of brc202d's scenario file
  (Dragon Age, 8-connected, no corner cutting; ``auto`` = JPS), all served
  by one tick with a budget that does not bind; requests per second with
  ``workers=0`` (inline), 1 and 2 (goal: 2 workers >= 1.6x of 1 worker).
* ``steady``: 300 frames; each frame queues 3 requests (a third with
  ``repath=True``) and toggles a 4x4 block; 2 ms budget. p50/p99 of the
  tick time against the budget, and how many requests were still waiting.

Results: ``bench/results/scheduler.json``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import log, machine, median, print_table, versions, write_json  # noqa: E402

DATA = Path(os.environ.get("NAVCORE_MOVINGAI", "/work/shared/data/movingai"))
FULL = dict(empty_ticks=20_000, requests=2000, rounds=5, frames=300, per_frame=3)
QUICK = dict(empty_ticks=2_000, requests=300, rounds=2, frames=40, per_frame=3)
SEED = 20261123


def load():
    from navcore_grid import read_map, read_scen
    walk = read_map(DATA / "brc202d.map")
    sc = read_scen(DATA / "brc202d.map.scen")
    return walk, sc


def bench_empty(cfg):
    import navcore
    w = navcore.World()
    w.add_graph("d", type="grid", rows=["....", "...."])
    w.tick()
    per = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(cfg["empty_ticks"]):
            w.tick(0.016)
        per.append((time.perf_counter() - t0) / cfg["empty_ticks"])
    return median(per)


def bench_throughput(cfg, walk, sc):
    import navcore
    rng = np.random.default_rng(SEED)
    idx = rng.integers(len(sc), size=cfg["requests"])
    pairs = [(tuple(sc.start[i].tolist()), tuple(sc.goal[i].tolist())) for i in idx]
    worlds = {}
    for workers in (0, 1, 2):
        w = navcore.World(workers=workers)
        w.add_graph("m", type="grid", array=walk)
        for s, t in pairs[:20]:                 # warm every worker's scratch and the JIT
            w.request_path("m", s, t)
        w.tick(budget_ms=1e6)
        worlds[workers] = w
    times = {k: [] for k in worlds}
    costs = {}
    for r in range(cfg["rounds"]):
        for workers in (list(worlds) if r % 2 == 0 else list(worlds)[::-1]):
            w = worlds[workers]
            hs = [w.request_path("m", s, t) for s, t in pairs]
            t0 = time.perf_counter()
            stats = w.tick(budget_ms=1e6)
            times[workers].append(time.perf_counter() - t0)
            assert stats.requests_served == len(pairs)
            costs[workers] = [h.result().cost for h in hs]
    assert costs[0] == costs[1] == costs[2], "results differ between worker counts"
    for w in worlds.values():
        w.scheduler.close()
    return {k: len(pairs) / median(v) for k, v in times.items()}


def bench_steady(cfg, walk, sc, workers):
    import navcore
    rng = np.random.default_rng(SEED + workers)
    w = navcore.World(workers=workers, frame_budget_ms=2.0)
    g = w.add_graph("m", type="grid", array=walk)
    w.warm_up()                                  # what a game does after loading
    free = np.argwhere(walk)
    for _ in range(20):                          # warm up
        (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
        w.request_path("m", (int(sx), int(sy)), (int(gx), int(gy)))
    w.tick(budget_ms=1e6)
    ticks, waiting = [], []
    served = 0
    H, W = walk.shape
    for frame in range(cfg["frames"]):
        for k in range(cfg["per_frame"]):
            (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
            w.request_path("m", (int(sx), int(sy)), (int(gx), int(gy)), repath=(k % 3 == 0))
        x, y = int(rng.integers(W - 4)), int(rng.integers(H - 4))
        w.update("m", rect=(x, y, 4, 4), walkable=bool(frame % 2))
        stats = w.tick(1 / 60)
        ticks.append(stats.time_total_ms)
        waiting.append(stats.requests_waiting)
        served += stats.requests_served
    w.scheduler.close()
    t = np.array(ticks)
    return {"workers": workers, "p50_ms": float(np.percentile(t, 50)),
            "p99_ms": float(np.percentile(t, 99)), "max_ms": float(t.max()),
            "served_per_frame": served / cfg["frames"], "waiting_at_end": waiting[-1],
            "max_waiting": int(max(waiting)), "cells": int(g.num_nodes)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    walk, sc = load()
    log("empty ticks")
    empty = bench_empty(cfg)
    log("throughput")
    thr = bench_throughput(cfg, walk, sc)
    log("steady load")
    steady = [bench_steady(cfg, walk, sc, k) for k in (0, 2)]
    speedup = thr[2] / thr[1]
    print_table("Frame overhead and throughput (brc202d, JPS)",
                ["measure", "value", "goal"],
                [["empty tick", f"{empty * 1e6:.1f} us",
                  "< 50 us: " + ("met" if empty < 50e-6 else "MISSED")],
                 ["requests/s, workers=0 (inline)", f"{thr[0]:,.0f}", ""],
                 ["requests/s, workers=1", f"{thr[1]:,.0f}", ""],
                 ["requests/s, workers=2", f"{thr[2]:,.0f}",
                  f"2 workers >= 1.6x of 1: {speedup:.2f}x "
                  + ("met" if speedup >= 1.6 else "MISSED")]])
    print_table(f"Steady load: {cfg['per_frame']} requests and one 4x4 block toggle per "
                f"frame, 2 ms budget, {cfg['frames']} frames",
                ["workers", "tick p50", "tick p99", "tick max", "served per frame",
                 "waiting at end (max)"],
                [[s["workers"], f"{s['p50_ms']:.2f} ms", f"{s['p99_ms']:.2f} ms",
                  f"{s['max_ms']:.2f} ms", f"{s['served_per_frame']:.1f}",
                  f"{s['waiting_at_end']} ({s['max_waiting']})"] for s in steady])
    path = write_json("scheduler-quick" if args.quick else "scheduler",
                      {"machine": machine(), "versions": versions("numpy", "numba"),
                       "config": cfg, "empty_tick_s": empty, "throughput": thr,
                       "speedup_2_over_1": speedup, "steady": steady})
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
