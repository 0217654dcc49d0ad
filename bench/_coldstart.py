"""First-frame time from a cold process, for ``bench/hierarchy.py`` and
``bench/scheduler.py``.

A game starts a process, loads a level (``add_graph``, which loads the
kernels from numba's cache) and plays. What it feels is the first frames:
when the kernels an update needs were loaded lazily, the first tick that
applied an update loaded them (7.7 ms on a 2 ms budget). ``first_frames``
starts a fresh interpreter (numba's on-disk cache warm, nothing loaded in
memory), builds a 1000x1000 grid with 30% walls, then plays frames that each toggle a 16x16
block and serve a few path requests across a screen's width (every one
fits the 2 ms budget, so the first frame shows what loading costs and not
one long search), and reports the ``add_graph`` time,
the first frame's tick time and the median and worst of the frames after
it. ``scipy.ndimage.label`` of the same grid, timed in the same process,
is the yardstick the other figures of these benchmarks use.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

_SCRIPT = textwrap.dedent("""
    import json, sys, time
    t_start = time.perf_counter()
    import numpy as np
    import navcore
    t_import = time.perf_counter() - t_start
    side, frames, requests, workers = (int(a) for a in sys.argv[1:5])
    rng = np.random.default_rng(18)
    walk = rng.random((side, side)) >= 0.30
    t0 = time.perf_counter()
    world = navcore.World(workers=workers, frame_budget_ms=2.0)
    world.add_graph("m", type="grid", array=walk)
    t_add = time.perf_counter() - t0
    ticks = []
    for f in range(frames):
        x, y = (int(v) for v in rng.integers(0, side - 16, 2))
        world.update("m", rect=(x, y, 16, 16), walkable=bool(f % 2))
        for _ in range(requests):
            # units crossing a screen (within 48 cells), so every search
            # fits the budget and the first frame shows only what loading costs
            ax, ay = (int(v) for v in rng.integers(0, side - 48, 2))
            bx, by = ax + int(rng.integers(0, 48)), ay + int(rng.integers(0, 48))
            world.request_path("m", (ax, ay), (bx, by), repath=True)
        t0 = time.perf_counter()
        world.tick(1 / 60)
        ticks.append(time.perf_counter() - t0)
    from scipy import ndimage
    labels = []
    for _ in range(5):
        t0 = time.perf_counter()
        ndimage.label(walk)
        labels.append(time.perf_counter() - t0)
    world.scheduler.close()
    rest = sorted(ticks[1:])
    print(json.dumps({
        "import_s": t_import, "add_graph_s": t_add, "first_tick_ms": ticks[0] * 1e3,
        "later_median_ms": rest[len(rest) // 2] * 1e3, "later_worst_ms": rest[-1] * 1e3,
        "ndimage_label_ms": sorted(labels)[2] * 1e3}))
""")


def first_frames(side: int = 1000, frames: int = 30, requests: int = 3,
                 workers: int = 0, python: str = sys.executable) -> dict:
    """Figures of one cold process (see the module docs); ``first_vs_label``
    is the first tick over ``scipy.ndimage.label`` of the same grid."""
    out = subprocess.run([python, "-c", _SCRIPT, str(side), str(frames), str(requests),
                          str(workers)], capture_output=True, text=True, timeout=900)
    if out.returncode:
        raise RuntimeError(f"cold-start run failed:\n{out.stderr[-3000:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["first_vs_label"] = res["first_tick_ms"] / res["ndimage_label_ms"]
    res["worst_vs_label"] = res["later_worst_ms"] / res["ndimage_label_ms"]
    return res


def report(print_table, workers=(0, 2), **kw) -> list:
    """One cold process per worker count; prints the table, returns the runs."""
    runs = [dict(first_frames(workers=k, **kw), workers=k) for k in workers]
    print_table("First frames of a cold process (1000x1000, 30% walls: a 16x16 toggle and "
                "3 short requests a frame; numba's disk cache warm)",
                ["workers", "add_graph", "first tick", "later median", "later worst",
                 "ndimage.label", "first / label"],
                [[r["workers"], f"{r['add_graph_s']:.2f} s", f"{r['first_tick_ms']:.2f} ms",
                  f"{r['later_median_ms']:.2f} ms", f"{r['later_worst_ms']:.2f} ms",
                  f"{r['ndimage_label_ms']:.2f} ms", f"{r['first_vs_label']:.3f}x"]
                 for r in runs])
    return runs


if __name__ == "__main__":
    print(json.dumps(first_frames(), indent=1))
