"""Frame times of a level scene's crowds (``LevelCrowd``): the crypt
(scenes/crypt.yaml, 69 agents on two meshes of RecastDemo's dungeon)
played headless through the public API.

    .venv/bin/python bench/level_crowd_frames.py [--frames N] [--scene PATH]
    .venv/bin/python bench/level_crowd_frames.py --profile     # cProfile of the crowd steps
    .venv/bin/python bench/level_crowd_frames.py --json OUT    # the figures as JSON

Prints, over the frames after the first 10 (their path requests and
first corridors come once): each ``World.tick``'s total (what the scene's
summary calls ``frame_ms``; its path requests run to the frame's budget,
then the crowds move) and the crowds' move alone (``FrameStats.
time_move_ms``: every crowd's ``step``), as median / p95 / p99 / max, and
the frames over the scene's budget (``frame_budget_ms``): in all, and
those the move tipped over (their requests alone within it). No
assertions: run old and new code alternately (``PYTHONPATH``) to compare
versions.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "plugins"), str(ROOT / "tests")]

import navcore  # noqa: E402

SKIP = 10


def play(path, frames, profile=False):
    """``(tick totals, moves, requests, budget)`` per frame after ``SKIP``."""
    sim = navcore.Simulation.from_file(path)
    total, move, req = [], [], []
    prof = None
    if profile:
        import cProfile
        prof = cProfile.Profile()
    try:
        for f in range(frames):
            if prof is not None and f == SKIP:
                prof.enable()
            stats = sim.step()
            if f >= SKIP:
                total.append(stats.time_total_ms)
                move.append(stats.time_move_ms)
                req.append(stats.time_requests_ms)
        if prof is not None:
            prof.disable()
            import pstats
            pstats.Stats(prof).sort_stats("tottime").print_stats(35)
        budget = sim.scene.settings.frame_budget_ms
        agents = len(sim.agents.ids)
    finally:
        sim.close()
    return np.array(total), np.array(move), np.array(req), budget, agents


def figures(values) -> dict:
    p50, p95, p99 = np.percentile(values, [50, 95, 99])
    return {"median": float(p50), "p95": float(p95), "p99": float(p99),
            "max": float(values.max())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scene", default=str(ROOT / "scenes" / "crypt.yaml"))
    ap.add_argument("--frames", type=int, default=2000)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    total, move, req, budget, agents = play(args.scene, args.frames, args.profile)
    wall = time.perf_counter() - t0
    out = {"code": str(Path(navcore.__file__).parents[1]), "agents": agents,
           "frames": int(total.size), "budget_ms": budget, "wall_s": wall,
           "tick_ms": figures(total), "move_ms": figures(move), "requests_ms": figures(req),
           "over_budget": int((total > budget).sum()),
           "over_budget_by_move": int(((total > budget) & (total - move <= budget)).sum())}
    print(f"{out['code']}: {agents} agents, {out['frames']} frames, wall {wall:.1f} s")
    for name in ("tick_ms", "move_ms", "requests_ms"):
        f = out[name]
        print(f"  {name:12s} median {f['median']:.3f}  p95 {f['p95']:.3f}  "
              f"p99 {f['p99']:.3f}  max {f['max']:.3f}")
    print(f"  over the {budget:g} ms budget: {out['over_budget']} frames "
          f"({out['over_budget_by_move']} tipped over by the move)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
