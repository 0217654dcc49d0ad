"""One road route through ``World.find_path`` (``ch``, with its nodes and
drawn points) against RoutingKit's ch-router on the same graph and pairs.

    flock /tmp/navcore-cpu.lock .venv/bin/python bench/road_find_path.py city20k city250k

Graphs: ``cityNk`` (``citygen.make_city``: hop weights, one-way streets,
the lattice as degrees near Munich as ``bench/roads.py`` places it),
``genNk`` (``roadgen.make_roads``: seconds, a motorway hierarchy; ch-router
on milliseconds), ``genNkd`` (the same network on distance: decimetres,
at least 1, for both) or ``monaco`` / ``helsinki`` (the shared
OpenStreetMap extracts' ``graph.npz``, decimetres as their DIMACS files). The roads graph keeps every node (``keep="all"``,
``compress=False``), so node ids are the generator's for both libraries.

Timed per round, in a rotating order, each over the same random pairs:
``World.find_path(..., algorithm="ch")``; the hierarchy's own
``HierarchyQuery.path`` (cost and edges, no nodes or points); ch-router's
distance query and its path query (``get_node_path``). CPU time of the
calling thread (``time.thread_time``), so other jobs on the machine count
less; per call the mean over the pairs of a round, reported as the
median over rounds.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
clock = time.thread_time
SHARED = Path(os.environ.get("NAVCORE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DATA = SHARED / "data" / "roads"
#: OpenStreetMap extracts in ``DATA`` (``NAME.graph.npz``), on distance weights
EXTRACTS = ("monaco", "helsinki")


def road_world(name):
    """``(world, graph, its hierarchy, src, dst, integer weights)`` of a
    named graph."""
    if name in EXTRACTS:
        # DIMACS weights (decimetres, at least 1) for both libraries, so
        # their answers are exact and comparable
        net = np.load(DATA / f"{name}.graph.npz")
        lon, lat, src, dst = net["lon"], net["lat"], net["src"], net["dst"]
        int_w = np.maximum(1, np.rint(net["length_m"] * 10)).astype(np.uint32)
        w = int_w.astype(np.float64)
        return _world(lon, lat, src, dst, w, int_w)
    distance = name.endswith("kd")
    name = name[:-1] if distance else name
    k = int(name[4:-1] if name.startswith("city") else name[3:-1]) * 1000
    if name.startswith("city"):
        from citygen import make_city
        net = make_city(nodes=k)
        lon, lat = 11.4 + net["x"] * 0.00133, 48.0 + net["y"] * 0.0009
        src, dst, w = net["src"], net["dst"], net["w"]
        int_w = np.rint(w).astype(np.uint32)
    else:
        from roadgen import make_roads
        net = make_roads(seed=20261125, nodes=k)
        lon, lat = net["lon"], net["lat"]
        if distance:                           # metres as decimetres, like the extracts
            int_w = np.maximum(1, np.rint(net["length_m"] * 10)).astype(np.uint32)
            src, dst, w = net["src"], net["dst"], int_w.astype(np.float64)
        else:
            src, dst, w = net["src"], net["dst"], net["time_s"]
            int_w = np.rint(w * 1000).astype(np.uint32)
    return _world(lon, lat, src, dst, w, int_w)


def _world(lon, lat, src, dst, w, int_w):
    import navcore
    import navcore_roads
    world = navcore.World()
    g = world.add_graph("r", type="roads", src=src, dst=dst, cost=w,
                        positions=np.column_stack((lon, lat)), keep="all", compress=False)
    view = navcore_roads.contract(g, progress=False)
    return world, g, view, src, dst, int_w


def run(name, pairs=2000, rounds=5, seed=7):
    import ch_router
    world, g, view, src, dst, int_w = road_world(name)
    n = g.num_nodes
    ch = ch_router.ContractionHierarchy.build(n, src.astype(np.uint32), dst.astype(np.uint32),
                                              int_w)
    rq = ch_router.CHQuery(ch)
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n, pairs).tolist()
    t = rng.integers(0, n, pairs).tolist()
    q = view.query()
    find = world.find_path

    def nav_find():
        for a, b in zip(s, t):
            find("r", a, b, algorithm="ch")

    def nav_path():
        for a, b in zip(s, t):
            q.path(a, b)

    def rk_distance():
        for a, b in zip(s, t):
            rq.reset().add_source(a).add_target(b).run()
            rq.get_distance()

    def rk_path():
        for a, b in zip(s, t):
            rq.reset().add_source(a).add_target(b).run()
            rq.get_node_path()

    cases = {"find_path": nav_find, "HierarchyQuery.path": nav_path,
             "ch-router distance": rk_distance, "ch-router path": rk_path}
    # the answers agree (hops, decimetres and milliseconds are exact in both)
    exact = not name.startswith("gen") or name.endswith("kd")
    scale = 1 if exact else 1000
    for a, b in zip(s[:200], t[:200]):
        r = find("r", a, b, algorithm="ch")
        rq.reset().add_source(a).add_target(b).run()
        d = rq.get_distance()
        want = np.inf if d == ch_router.INF_WEIGHT else d / scale
        if exact and r.cost != want:
            raise AssertionError(f"{name}: {a} -> {b}: navcore {r.cost}, ch-router {want}")
    times = {k: [] for k in cases}
    names = list(cases)
    for r in range(rounds + 1):                 # round 0 warms
        for k in names[r % 4:] + names[:r % 4]:
            t0 = clock()
            cases[k]()
            if r:
                times[k].append((clock() - t0) / pairs * 1e6)
    out = {k: statistics.median(v) for k, v in times.items()}
    print(f"{name}: {n} nodes, {pairs} pairs, {rounds} rounds (us per call, median of "
          f"rounds; all rounds in brackets)")
    for k, v in out.items():
        print(f"  {k:22} {v:7.2f}  ({', '.join(f'{x:.1f}' for x in times[k])})")
    base = out["ch-router distance"]
    print(f"  find_path / ch-router distance {out['find_path'] / base:.2f}x, "
          f"HierarchyQuery.path / ch-router distance {out['HierarchyQuery.path'] / base:.2f}x",
          flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="*", default=["city20k"])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    for name in args.graphs:
        run(name, args.pairs, args.rounds)


if __name__ == "__main__":
    main()
