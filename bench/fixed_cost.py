"""What ``World.find_path`` adds to each backend's search kernel.

    PYTHONPATH=.:plugins .venv/bin/python bench/fixed_cost.py            # ~1 minute
    PYTHONPATH=.:plugins .venv/bin/python bench/fixed_cost.py --quick    # smoke run
    ... bench/fixed_cost.py --backends navmesh --json out.json

Per backend, a small graph and fixed queries (same every run):

* grid: a 64 x 64 room with two walls (JPS, ``auto``), cell ids;
* csr: a 2,000-node random geometric graph (A*, ``auto``), node ids;
* navmesh: the ``arena`` map (tiled, merged) with its exact any-angle
  queries, ``(x, y)`` points (Polyanya, ``auto``); navmesh_den312d: the
  same on ``den312d``; navmesh_arrays: ``arena`` with each point a float64
  array of two;
* roads: a generated 10,000-node road network, contracted (``ch``),
  junction ids.

For every query, ``World.find_path`` is timed alone, and the backend's
numba kernel is timed inside the same call (its module attribute wrapped
by a timer for that run only: ``KERNELS``). Both runs alternate,
repetition after repetition, queries in a shuffled order each time, so
drift hits both alike. Per query the median of the repetitions is kept;
reported are the medians over queries of the whole call, of the kernel,
their ratio and the difference: the fixed cost in microseconds (locate,
dispatch, request, validation, result). The kernel figure includes the
numba dispatch of the kernel call itself (about 0.3 us), which any
caller of the kernel pays.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import navcore

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data" / "navmesh"
now = time.perf_counter

#: per backend, the (module, attribute) of the numba kernels a query runs
#: (an attribute a tree does not have is skipped, so one script times an
#: older tree too); roads: the hierarchy's search and unpacking
#: (``route_edges``) or, where a route is searched and drawn in one call,
#: ``route_drawn``; ``--draw-kernels`` adds the separate drawing kernels
#: of code that draws a route in a second call
KERNELS = {
    "grid": [("navcore_grid.search", "_jps"), ("navcore_grid._kernels", "astar_path")],
    "csr": [("navcore_csr._search", "astar")],
    "navmesh": [("navcore_navmesh._polyanya", "search")],
    "roads": [("navcore_csr._ch", "route_edges"), ("navcore_csr._ch", "route_drawn")],
}
DRAW_KERNELS = [("navcore_roads._network", "one_segment_route"),
                ("navcore_roads._network", "route_arrays")]


class _Timed:
    """A callable standing in for a kernel: calls it and adds the time."""

    def __init__(self, fn):
        self.fn = fn
        self.total = 0.0

    def __call__(self, *args, **kwargs):
        t = now()
        out = self.fn(*args, **kwargs)
        self.total += now() - t
        return out


class _TimedModule:
    """A module stand-in whose attributes are the module's, kernels timed
    (for ``from . import _jps``-style references: ``_jps.jps_path``)."""

    def __init__(self, module, timer):
        self.__dict__.update(vars(module))
        self._timer = timer

    def __getattribute__(self, name):
        value = object.__getattribute__(self, "__dict__").get(name)
        if callable(value) and hasattr(value, "py_func"):          # a numba kernel
            timer = object.__getattribute__(self, "_timer")
            timer.fn = value
            return timer
        return object.__getattribute__(self, name)


class Probe:
    """While active, the backend's kernels add their time to ``self.total``.
    Every module holding a reference to a kernel (``from . import _k as K``
    then ``K.search``) sees the wrapper: the kernel attribute is replaced
    on its defining module."""

    def __init__(self, backend):
        self.targets = []
        for mod_name, attr in KERNELS[backend]:
            mod = importlib.import_module(mod_name)
            if hasattr(mod, attr):
                self.targets.append((mod, attr, getattr(mod, attr)))
        self.total = 0.0

    def __enter__(self):
        self._timers = []
        for mod, attr, orig in self.targets:
            if isinstance(orig, type(sys)):               # a module: time its kernels
                timer = _Timed(None)
                setattr(mod, attr, _TimedModule(orig, timer))
            else:
                timer = _Timed(orig)
                setattr(mod, attr, timer)
            self._timers.append(timer)
        return self

    def __exit__(self, *exc):
        for mod, attr, orig in self.targets:
            setattr(mod, attr, orig)

    def take(self) -> float:
        t = sum(x.total for x in self._timers)
        for x in self._timers:
            x.total = 0.0
        return t


# -- graphs and queries ----------------------------------------------------------

def grid_case(k):
    walk = np.ones((64, 64), dtype=bool)
    walk[20, 5:60] = False
    walk[5:50, 40] = False
    w = navcore.World()
    w.add_graph("g", type="grid", array=walk)
    rng = np.random.default_rng(1)
    cells = np.flatnonzero(walk.ravel())
    q = rng.choice(cells, (k, 2))
    return w, "g", [(int(a), int(b)) for a, b in q], {}


def csr_case(k):
    rng = np.random.default_rng(2)
    n = 2000
    pos = rng.uniform(0, 100, (n, 2))
    from scipy.spatial import cKDTree
    pairs = cKDTree(pos).query_pairs(4.0, output_type="ndarray")
    cost = np.sqrt(((pos[pairs[:, 0]] - pos[pairs[:, 1]]) ** 2).sum(axis=1))
    w = navcore.World()
    w.add_graph("g", type="csr", src=pairs[:, 0], dst=pairs[:, 1], cost=cost, num_nodes=n,
                positions=pos, directed=False)
    q = rng.integers(0, n, (k, 2))
    return w, "g", [(int(a), int(b)) for a, b in q], {}


def navmesh_case(k, name="arena", arrays=False):
    w = navcore.World()
    w.add_graph("m", type="navmesh", map=str(DATA / f"{name}.map"))
    rows = np.genfromtxt(DATA / f"{name}.anyangle.csv", delimiter=",", names=True)[:k]
    qs = [((float(r["sx"]), float(r["sy"])), (float(r["gx"]), float(r["gy"]))) for r in rows]
    if arrays:
        qs = [(np.array(a), np.array(b)) for a, b in qs]
    return w, "m", qs, {}


def roads_case(k):
    sys.path.insert(0, str(HERE))
    from roadgen import make_roads
    net = make_roads(seed=20261125, nodes=10_000)
    w = navcore.World()
    g = w.add_graph("r", type="roads", src=net["src"], dst=net["dst"],
                    length=net["length_m"], cost=net["time_s"],
                    positions=np.column_stack((net["lon"], net["lat"])), oneway=True)
    from navcore_roads import contract
    contract(g)
    rng = np.random.default_rng(3)
    q = rng.integers(0, g.num_nodes, (k, 2))
    return w, "r", [(int(a), int(b)) for a, b in q], {"algorithm": "ch"}


CASES = {"grid": grid_case, "csr": csr_case, "navmesh": navmesh_case,
         "navmesh_den312d": lambda k: navmesh_case(k, "den312d"),
         "navmesh_arrays": lambda k: navmesh_case(k, arrays=True), "roads": roads_case}


def measure(backend, queries=100, reps=31):
    world, gid, qs, opts = CASES[backend](queries)
    find = world.find_path
    for a, b in qs:                              # warm: compile, views, scratch
        find(gid, a, b, **opts)
    probe = Probe(backend.split("_")[0])
    whole = [[] for _ in qs]
    kernel = [[] for _ in qs]
    rng = np.random.default_rng(0)
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for r in range(reps):
            order = rng.permutation(len(qs)).tolist()
            for i in order:
                a, b = qs[i]
                t = now()
                find(gid, a, b, **opts)
                whole[i].append(now() - t)
            with probe:
                for i in order:
                    a, b = qs[i]
                    find(gid, a, b, **opts)
                    kernel[i].append(probe.take())
            gc.collect()
    finally:
        if gc_was:
            gc.enable()
    w = np.array([statistics.median(x) for x in whole]) * 1e6
    kt = np.array([statistics.median(x) for x in kernel]) * 1e6
    if not (kt > 0).all():
        raise RuntimeError(f"{backend}: the kernel probe saw no kernel call on "
                           f"{int((kt <= 0).sum())} queries; is KERNELS up to date?")
    return {"backend": backend, "queries": len(qs), "reps": reps,
            "find_path_us": float(np.median(w)), "kernel_us": float(np.median(kt)),
            "ratio": float(np.median(w / kt)), "overhead_us": float(np.median(w - kt)),
            "overhead_p90_us": float(np.percentile(w - kt, 90))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--backends", default=",".join(CASES))
    ap.add_argument("--json", help="write the rows here too")
    ap.add_argument("--draw-kernels", action="store_true",
                    help="roads: count a second drawing kernel call as kernel too")
    args = ap.parse_args(argv)
    if args.draw_kernels:
        KERNELS["roads"] = KERNELS["roads"] + DRAW_KERNELS
    queries, reps = (20, 5) if args.quick else (100, 31)
    rows = []
    print(f"{'backend':16} {'find_path us':>12} {'kernel us':>10} {'ratio':>6} "
          f"{'overhead us':>11} {'p90':>6}")
    for name in args.backends.split(","):
        r = measure(name, queries, reps)
        rows.append(r)
        print(f"{name:16} {r['find_path_us']:12.2f} {r['kernel_us']:10.2f} {r['ratio']:6.2f} "
              f"{r['overhead_us']:11.2f} {r['overhead_p90_us']:6.2f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
