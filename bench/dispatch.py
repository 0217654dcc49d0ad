"""Fixed cost of World's hook dispatch: an adjacent-cell grid query through
``World.find_path`` (the search itself expands two nodes, so nearly all of
the time is validation, dispatch and the result), ``World.reachable`` and a
frame with one small update (``update`` + ``tick``: the frame loop's hooks).

``python bench/dispatch.py [--rounds R] [--json]`` prints the median time per
call of each case. Comparing two versions of the code: run this script
alternately against each (``PYTHONPATH=<tree>:<tree>/plugins``), several
times, and compare the medians; every figure uses public calls only, so it
runs on any version of the code.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, median  # noqa: E402


def setup(size=256, seed=1, pairs=500):
    import navcore
    rng = np.random.default_rng(seed)
    walk = rng.random((size, size)) > 0.2
    rows = ["".join("." if w else "#" for w in row) for row in walk]
    world = navcore.World()
    world.add_graph("g", type="grid", rows=rows)
    ok = np.flatnonzero((walk[:, :-1] & walk[:, 1:]).ravel())
    picks = rng.choice(ok, pairs, replace=False)
    w1 = size - 1
    ends = [((int(p % w1), int(p // w1)), (int(p % w1) + 1, int(p // w1))) for p in picks]
    return world, ends


def cases(world, ends, calls):
    m = len(ends)
    free = [e[0] for e in ends]

    def find_path():
        fp = world.find_path
        for j in range(calls):
            s, t = ends[j % m]
            fp("g", s, t)

    def reachable():
        r = world.reachable
        for j in range(calls):
            s, t = ends[j % m]
            r("g", s, t)

    def update_tick():
        for j in range(calls // 20):
            world.update("g", cells=[free[j % m]], walkable=True)
            world.tick()

    return {"find_path adjacent": (find_path, calls),
            "reachable adjacent": (reachable, calls),
            "update + tick": (update_tick, calls // 20)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--json", action="store_true", help="one JSON line of seconds per call")
    args = ap.parse_args(argv)
    world, ends = setup()
    todo = cases(world, ends, args.calls)
    for fn, _ in todo.values():       # warm-up
        fn()
    raw = interleaved({k: fn for k, (fn, _) in todo.items()}, args.rounds)
    per_call = {k: median(v) / todo[k][1] for k, v in raw.items()}
    if args.json:
        print(json.dumps(per_call))
    else:
        for k, v in per_call.items():
            print(f"{k:24s} {v * 1e6:8.2f} us")


if __name__ == "__main__":
    main()
