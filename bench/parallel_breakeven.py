"""Serial or parallel: where a parallel kernel starts to pay on this machine.

For each kernel ``navcore.parallel.kernel_threads`` routes, the median time
of one call on 1 and on 2 numba threads over a range of work sizes, on a
seeded road-like graph of 21,000 junctions (``roadgen.make_roads``) and
its contraction hierarchies, and a 300x300 grid's CSR view. The
thresholds in the plugins (``*_PARALLEL_FROM``, ``_cch.PAR_MIN_ARCS``,
...) are the work from which 2 threads beat 1 here. ``--busy N`` runs N
busy-loop processes beside it (a machine whose cores other programs use).

    flock /tmp/navcore-cpu.lock python bench/parallel_breakeven.py [--busy 2]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))


def _spin():
    while True:
        pass


def med(fn, rounds=15):
    fn()
    ts = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--busy", type=int, default=0)
    ap.add_argument("--nodes", type=int, default=21_000)
    ap.add_argument("--builds", type=str, default="",
                    help="comma-separated node counts: time only the CH build and the CCH "
                         "customization on 1 and 2 threads at each")
    args = ap.parse_args()
    if args.builds:
        return builds([int(v) for v in args.builds.split(",")])
    import navcore
    from navcore_roads import contract
    from roadgen import make_roads
    procs = [mp.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for p in procs:
        p.start()
    net = make_roads(seed=20261125, nodes=args.nodes)
    params = dict(src=net["src"], dst=net["dst"], length=net["length_m"], cost=net["time_s"],
                  positions=np.column_stack((net["lon"], net["lat"])), oneway=True)
    out = {}
    worlds = {t: navcore.World(workers=t) for t in (0, 2)}
    for t, w in worlds.items():
        g = w.add_graph("r", type="roads", keep="all", **params)
        t0 = time.perf_counter()
        contract(g)
        out.setdefault("ch build ms", {})[t] = (time.perf_counter() - t0) * 1e3
        w.add_graph("c", type="roads", keep="all", **params)
        contract(w.graph("c"), customizable=True)
        w.add_graph("g", type="grid", array=np.random.default_rng(1).random((300, 300)) > 0.3)
    n = worlds[0].graph("r").num_nodes
    from navcore_roads import ch as rch, cch as rcch
    for t, w in worlds.items():
        label = 1 if t == 0 else 2
        rng = np.random.default_rng(3)      # the same pairs and rows in both worlds
        view = rcch.current(w.graph("c"))
        out.setdefault("cch customize ms", {})[label] = med(view.customize, 31)
        out.setdefault("cch arcs", view.topology.num_arcs)
        for k in (2, 5, 10, 20, 32, 50, 100):
            s, d = rng.integers(0, n, k), rng.integers(0, n, k)
            out.setdefault(f"ch matrix {k}x{k} ms", {})[label] = med(
                lambda: w.distance_matrix("r", s, d))
            out.setdefault(f"cch matrix {k}x{k} ms", {})[label] = med(
                lambda: w.distance_matrix("c", s, d))
        for k in (2, 4, 8, 16, 32, 64, 256):
            s, d = rng.integers(0, n, k), rng.integers(0, n, k)
            q = rch.current(w.graph("r")).query()
            out.setdefault(f"ch pairs {k} ms", {})[label] = med(lambda: q.distances(s, d))
            cq = view.query()
            out.setdefault(f"cch pairs {k} ms", {})[label] = med(lambda: cq.distances(s, d))
        for k in (1, 2, 4, 8, 16, 32, 64):
            s, d = rng.integers(0, n, k), rng.integers(0, n, k)
            from navcore_roads import search as rs
            g = w.graph("r")
            out.setdefault(f"roads dijkstra pairs {k} ms", {})[label] = med(
                lambda: rs.distance_pairs(g, s.astype(np.int32), d.astype(np.int32)), 5)
        gg = w.graph("g")
        free = np.flatnonzero(gg.walkable)
        from navcore_csr import search as cs
        for k in (1, 2, 4, 8, 16):
            s, d = rng.choice(free, k), rng.choice(free, 8)
            out.setdefault(f"csr matrix {k} rows ms", {})[label] = med(
                lambda: cs.distance_matrix(gg, s, d), 7)
        from navcore_roads import locate as rl
        pos = w.graph("r").positions
        for k in (16, 64, 256, 1024, 4096):
            pts = pos[rng.integers(0, n, k)] + 1e-4
            out.setdefault(f"road snap {k} points ms", {})[label] = med(
                lambda: rl.snap(w.graph("r"), pts))
    for p in procs:
        p.terminate()
    print(json.dumps({"busy": args.busy, "nodes": n, **out}, indent=1))


def builds(sizes):
    import navcore
    from navcore_roads import contract
    from roadgen import make_roads
    out = {}
    for nodes in sizes:
        net = make_roads(seed=20261125, nodes=nodes)
        params = dict(src=net["src"], dst=net["dst"], length=net["length_m"],
                      cost=net["time_s"], positions=np.column_stack((net["lon"], net["lat"])),
                      oneway=True)
        row = out[nodes] = {}
        for workers in (0, 2):
            w = navcore.World(workers=workers)
            g = w.add_graph("r", type="roads", keep="all", **params)
            t0 = time.perf_counter()
            contract(g)
            row[f"ch build ms, {max(workers, 1)} threads"] = (time.perf_counter() - t0) * 1e3
            c = w.add_graph("c", type="roads", keep="all", **params)
            view = contract(c, customizable=True)
            row["cch arcs"] = view.topology.num_arcs
            row[f"cch customize ms, {max(workers, 1)} threads"] = med(view.customize, 15)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
