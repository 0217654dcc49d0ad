"""The two contraction orders of ``navcore_csr.contract`` side by side:
the one-node-at-a-time contraction (``_contract.ch_build``, for graphs
whose edges cost the same both ways, turned into a ``DirectedHierarchy``)
against the round-based directed one (``DirectedHierarchy.build``), on the
same graphs, with the same witness limit (500). This measured rule picks
the one-node order for symmetric graphs.

    .venv/bin/python bench/contraction.py            # default sizes (~1-2 min)
    .venv/bin/python bench/contraction.py --quick    # small sizes, smoke run

Graphs (all undirected, so both builds take them; seeded, no data files):

* ``grid-ties``   4-neighbour grid, every edge cost 1 (a maximum of equal-
  cost ties), 15% of the cells cut out;
* ``grid-octile`` 8-neighbour grid, costs 1 and sqrt(2), 15% cut out;
* ``roads``       ``roadgen.make_roads`` streets, both directions at their
  length (one-way streets made two-way, so the one-node builder takes it);
* ``random``      random sparse graph, costs uniform in [1, 10).

Per graph: build seconds (median over interleaved rounds), shortcuts,
and the median query time over the same random pairs (a path with its
nodes, with the one query class on both hierarchies). ``ratio`` is round-based /
one-node: below 1 the round-based build is faster. The costs of both are
checked equal on every pair. Results: ``bench/results/contraction.json``.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (fmt_ratio, fmt_s, interleaved, log, machine, median,  # noqa: E402
                     print_table, ratio, timed, versions, write_json)

SEED = 20261128
FULL = dict(grid_side=100, roads_nodes=20_000, rand_nodes=8_000, rand_edges=10_000,
            rounds=3, pairs=300)
QUICK = dict(grid_side=60, roads_nodes=4_000, rand_nodes=4_000, rand_edges=5_000,
             rounds=1, pairs=50)


def grid(side, diagonal, rng):
    idx = np.arange(side * side, dtype=np.int64).reshape(side, side)
    pairs = [(idx[:, :-1], idx[:, 1:], 1.0), (idx[:-1, :], idx[1:, :], 1.0)]
    if diagonal:
        pairs += [(idx[:-1, :-1], idx[1:, 1:], math.sqrt(2.0)),
                  (idx[:-1, 1:], idx[1:, :-1], math.sqrt(2.0))]
    us = np.concatenate([a.ravel() for a, _, _ in pairs])
    vs = np.concatenate([b.ravel() for _, b, _ in pairs])
    cost = np.concatenate([np.full(a.size, c) for a, _, c in pairs])
    cut = rng.random(side * side) < 0.15
    keep = ~(cut[us] | cut[vs])
    return side * side, us[keep], vs[keep], cost[keep]


def roads(nodes):
    from roadgen import make_roads
    net = make_roads(nodes=nodes)
    a, b = net["src"].astype(np.int64), net["dst"].astype(np.int64)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    n = int(net["lon"].shape[0])
    key, first = np.unique(lo * n + hi, return_index=True)
    return n, key // n, key % n, net["length_m"][first]


def random_graph(n, m, rng):
    a = rng.integers(0, n, int(m * 1.05) + 16, dtype=np.int64)
    b = rng.integers(0, n, a.size, dtype=np.int64)
    keep = a != b
    key = np.unique(np.minimum(a[keep], b[keep]) * n + np.maximum(a[keep], b[keep]))
    key = rng.permutation(key)[:m]
    return n, key // n, key % n, rng.uniform(1.0, 10.0, key.size)


def bench_graph(name, n, us, vs, cost, cfg, rng):
    import navcore
    import navcore_csr
    from navcore_csr import DirectedHierarchy
    from navcore_csr.contraction import _build
    world = navcore.World(workers=0)
    g = world.add_graph(name, type="csr", src=us, dst=vs, cost=cost, num_nodes=n,
                        directed=False)
    csr = g.csr
    offsets, targets, w = csr.offsets, csr.targets, np.array(csr.cost)
    log(f"{name}: {n} nodes, {targets.size} directed edges")

    def one_node():            # the whole build contract() runs for a symmetric graph
        return _build(offsets, targets, w, 500, g)

    def rounds():
        return DirectedHierarchy.build(offsets, targets, w, witness_limit=500)

    times = interleaved({"one-node": one_node, "round-based": rounds}, cfg["rounds"])
    # the hierarchies the queries use (and their sizes)
    ch = navcore_csr.contract(g)
    dh = rounds()
    q_old = ch.query()
    q_new = dh.query()
    assert ch.hierarchy.stats().get("rounds") is None      # the one-node order
    pairs = rng.integers(0, n, (cfg["pairs"], 2))
    for s, t in pairs[:5]:                       # compile and warm both
        q_old._search(int(s), int(t)) if s != t else None
        q_new.path(int(s), int(t))
    t_old, t_new, mismatch = [], [], 0
    for s, t in pairs:
        s, t = int(s), int(t)
        if s == t:
            continue
        dt1, r = timed(q_old._search, s, t)
        dt2, (c, edges) = timed(lambda: q_new.path(s, t))
        if r.found:
            _ = np.concatenate(([s], targets[edges]))
        t_old.append(dt1)
        t_new.append(dt2)
        if (r.cost if r.found else math.inf) != c and not math.isclose(
                r.cost if r.found else math.inf, c, rel_tol=1e-9):
            mismatch += 1
    return {"graph": name, "nodes": n, "edges": int(targets.size),
            "build_one_node_s": median(times["one-node"]),
            "build_round_based_s": median(times["round-based"]),
            "build_ratio": ratio(median(times["round-based"]), median(times["one-node"])),
            "shortcuts_one_node": int(ch.hierarchy.stats()["shortcuts"]),
            "shortcuts_round_based": int(dh.stats()["shortcuts"]),
            "query_one_node_s": median(t_old), "query_round_based_s": median(t_new),
            "query_ratio": ratio(median(t_new), median(t_old)),
            "cost_mismatches": mismatch}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    rng = np.random.default_rng(SEED)
    graphs = [("grid-ties", *grid(cfg["grid_side"], False, rng)),
              ("grid-octile", *grid(cfg["grid_side"], True, rng)),
              ("roads", *roads(cfg["roads_nodes"])),
              ("random", *random_graph(cfg["rand_nodes"], cfg["rand_edges"], rng))]
    res = []
    for g in graphs:
        res.append(bench_graph(*g, cfg, rng))
        log(f"{g[0]}: {res[-1]}")
    print_table("contraction: round-based (directed) vs one-node (undirected)",
                ["graph", "nodes", "build 1-node", "build rounds", "ratio", "shortcuts 1/r",
                 "query 1-node", "query rounds", "ratio", "mismatch"],
                [[r["graph"], r["nodes"], fmt_s(r["build_one_node_s"]),
                  fmt_s(r["build_round_based_s"]), fmt_ratio(r["build_ratio"]),
                  f"{r['shortcuts_one_node']}/{r['shortcuts_round_based']}",
                  fmt_s(r["query_one_node_s"]), fmt_s(r["query_round_based_s"]),
                  fmt_ratio(r["query_ratio"]), r["cost_mismatches"]] for r in res])
    write_json("contraction_quick" if args.quick else "contraction", {"config": cfg, "machine": machine(),
                               "versions": versions("numpy", "numba"), "results": res})


if __name__ == "__main__":
    main()
