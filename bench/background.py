"""Background search threads against searching inside the tick: tick
times, and how long the requests take to be answered.

    PYTHONPATH=.:plugins .venv/bin/python bench/background.py           # ~2 minutes
    PYTHONPATH=.:plugins .venv/bin/python bench/background.py --quick   # smoke run

Four scenarios of ``long_searches.py`` (random256, maze512,
navmesh_brc202d, roads_dijkstra; ``--scenarios`` for others; all requests queued before the
first tick, then ``tick`` called in a loop, a 60 fps game's frame time
simulated by sleeping what is left of 16.7 ms after each tick, as a game
that renders would) in three modes:

* ``inside``: ``World(frame_budget_ms=2)``, searches inside the tick, long
  ones a slice per frame;
* ``background 1`` and ``background 2``: ``World(workers=N,
  background=True)``, searches on N threads of their own across frames.

Per mode: tick p50/p95/max (ms; goal for the background modes: p95 under
0.3 ms, as a tick only hands out and publishes), the frames until every
request is answered, the wall time until then against ``work`` (the
searches back to back with ``find_path``: below 1 the searches used time
the game would otherwise sleep), and that every result equals
``find_path``'s. Rounds alternate modes.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import log, machine, print_table, write_json  # noqa: E402
import long_searches  # noqa: E402

FRAME_S = 1 / 60
BUDGET_MS = 2.0
MODES = {"inside": {"frame_budget_ms": BUDGET_MS},
         "background 1": {"workers": 1, "background": True},
         "background 2": {"workers": 2, "background": True}}
now = time.perf_counter


def run(name, mode) -> dict:
    import navcore
    make, algorithm = long_searches.SCENARIOS[name][:2]
    w = navcore.World(**MODES[mode])
    pairs = make(w, algorithm)
    want = []
    t0 = now()
    for a, b in pairs:
        want.append(w.find_path("g", a, b, algorithm=algorithm))
    work = now() - t0
    hs = [w.request_path("g", a, b, algorithm=algorithm) for a, b in pairs]
    ticks = []
    start = now()
    while not all(h.done for h in hs):
        t = now()
        w.tick(FRAME_S)
        took = now() - t
        ticks.append(took * 1e3)
        if took < FRAME_S:          # the rest of the game's frame
            time.sleep(FRAME_S - took)
    answered = now() - start
    w.close()
    return {"work_s": work, "answered_s": answered, "frames": len(ticks),
            **long_searches.tick_figures(ticks, hs, want)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--scenarios", nargs="*")
    args = ap.parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 2)
    names = args.scenarios or (["random256"] if args.quick else
                               ["random256", "maze512", "navmesh_brc202d", "roads_dijkstra"])
    out = {(n, m): [] for n in names for m in MODES}
    for r in range(rounds):
        for n in names:
            for m in (list(MODES)[r % 3:] + list(MODES)[:r % 3]):
                log(f"round {r + 1}: {n}, {m}")
                out[n, m].append(run(n, m))

    def span(key, runs, fmt="{:.2f}", scale=1.0):
        v = [x[key] * scale for x in runs]
        return fmt.format(min(v)) + ("" if len(v) == 1 else "-" + fmt.format(max(v)))

    rows = []
    for (n, m), runs in out.items():
        answered = [x["answered_s"] / x["work_s"] for x in runs]
        rows.append([n, m, span("work_s", runs, "{:.0f}", 1e3) + " ms",
                     span("frames", runs, "{:.0f}"),
                     f"{min(answered):.2f}-{max(answered):.2f}x", span("p50_ms", runs),
                     span("p95_ms", runs), span("max_ms", runs),
                     all(x["same"] for x in runs)])
    print_table(f"Background searches against searching in the tick ({rounds} rounds, "
                f"60 fps frames)",
                ["scenario", "mode", "work", "frames", "answered / work", "tick p50 ms",
                 "p95 ms", "max ms", "same as find_path"], rows)
    path = write_json("background-quick" if args.quick else "background",
                      {"machine": machine(), "budget_ms": BUDGET_MS,
                       "runs": {f"{n} / {m}": v for (n, m), v in out.items()}})
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
