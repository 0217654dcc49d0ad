"""Graph simplification (corridors contracted to single edges) on spanning-tree mazes, in one run, as ratios.

    .venv/bin/python bench/simplify.py            # full run (several minutes)
    .venv/bin/python bench/simplify.py --quick    # up to 128x128 rooms

The seed's experiment done properly. Per maze size (rooms per side, 32 to
1024; a room is a node, the spanning tree's edges cost 1, node positions
are the room coordinates, A* uses the Manhattan heuristic):

* reduction: nodes and (directed) edges of the simplified graph against
  the original, chains, dead-end chains folded away;
* build: median time of ``SimplifiedGraph(graph)`` (also the price of a
  rebuild after an update);
* queries between uniformly random room pairs (not only corner to
  corner), each pair timed ``rounds`` times, median per pair:
  navcore A* on the original graph, navcore on the simplified view, and
  networkx ``astar_path`` (the seed's tool) on the same graph. Costs are
  checked equal. ``ratio`` is the median of per-pair ratios (simplified /
  other; below 1 the simplified view is faster);
* the same maze drawn as a 4-connected grid (``2n+1`` cells a side):
  the grid backend's own A* against the simplified view of that grid;
* recursion: 1 to 5 levels (each contracts the small graph of the one
  below), the nodes left to search and the query time on the same pairs,
  and the automatic choice of ``simplify(graph)``;
* updates: on the grid form, corridor cells closed and opened again one
  tick each; the view is patched in place (``SimplifiedGraph.patch``
  timed alone) against a rebuild.

Results: ``bench/results/simplify.json``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (fmt_ratio, fmt_s, log, machine, median, print_table,  # noqa: E402
                     ratio, timed, versions, write_json)

SEED = 20261123
FULL = dict(sizes=[32, 64, 128, 256, 512, 1024], pairs=200, rounds=3, toggles=40)
QUICK = dict(sizes=[32, 64, 128], pairs=60, rounds=3, toggles=10)
#: networkx takes seconds per query on the large mazes: fewer pairs there
NX_PAIRS = {256: 60, 512: 20, 1024: 8}


def maze_graph(world, gid, rooms, seed):
    from navcore_grid import maze_edges
    src, dst = maze_edges(rooms, rooms, seed=seed)
    ids = np.arange(rooms * rooms)
    xy = np.stack([ids % rooms, ids // rooms], axis=1).astype(float)
    return world.add_graph(gid, type="csr", src=src, dst=dst, cost=np.ones(src.size),
                           positions=xy, directed=False, heuristic="manhattan"), src, dst


def per_pair(fn, pairs, rounds):
    """Median seconds per pair and the answers (of the first round)."""
    times, answers = [], []
    for s, t in pairs:
        ts = []
        for r in range(rounds):
            dt, out = timed(fn, s, t)
            ts.append(dt)
            if r == 0:
                answers.append(out)
        times.append(median(ts))
    return np.array(times), answers


def bench_size(rooms, cfg, rng):
    import networkx as nx
    import navcore
    from navcore_csr import SimplifiedGraph, simplify

    world = navcore.World()
    g, src, dst = maze_graph(world, "maze", rooms, SEED + rooms)
    n = rooms * rooms
    builds = [timed(SimplifiedGraph, g, 1)[0] for _ in range(3)]
    builds_auto = [timed(SimplifiedGraph, g)[0] for _ in range(3)]
    view = simplify(g, levels=1)
    st = view.stats()
    lv1 = st["levels"][0]
    pairs = rng.integers(0, n, size=(cfg["pairs"], 2)).tolist()
    rounds = cfg["rounds"]

    def orig(s, t):
        return world.find_path("maze", s, t, algorithm="astar")

    def simp(s, t):
        return world.find_path("maze", s, t, algorithm="simplified")

    # warm up both kernels before timing
    orig(*pairs[0]), simp(*pairs[0])
    t_orig, a_orig = per_pair(orig, pairs, rounds)
    t_simp, a_simp = per_pair(simp, pairs, rounds)     # one level
    auto = simplify(g)                                 # automatic levels
    simp(*pairs[0])
    t_auto, a_auto = per_pair(simp, pairs, rounds)
    for x, y, z in zip(a_orig, a_simp, a_auto):
        assert abs(x.cost - y.cost) < 1e-9 * max(1.0, x.cost), (x.cost, y.cost)
        assert abs(x.cost - z.cost) < 1e-9 * max(1.0, x.cost), (x.cost, z.cost)

    G = nx.Graph()
    G.add_edges_from(zip(src.tolist(), dst.tolist()), weight=1.0)

    def manhattan(u, v):
        return abs(u % rooms - v % rooms) + abs(u // rooms - v // rooms)

    def nx_astar(s, t):
        return nx.astar_path(G, s, t, heuristic=manhattan, weight="weight")

    nk = NX_PAIRS.get(rooms, len(pairs))
    t_nx, a_nx = per_pair(nx_astar, pairs[:nk], 1 if rooms >= 512 else rounds)
    for p, r in zip(a_nx, a_simp[:nk]):
        assert len(p) == r.nodes.size, "networkx and navcore disagree"

    # the grid form of the same maze
    from navcore_grid import maze_cells
    walk = maze_cells(rooms, rooms, seed=SEED + rooms)
    gg = world.add_graph("grid", type="grid", array=walk, connectivity=4)
    gview = simplify(gg)
    cell_pairs = [((2 * (s % rooms) + 1, 2 * (s // rooms) + 1),
                   (2 * (t % rooms) + 1, 2 * (t // rooms) + 1)) for s, t in pairs]

    def grid_astar(s, t):
        return world.find_path("grid", s, t, algorithm="astar")

    def grid_simp(s, t):
        return world.find_path("grid", s, t, algorithm="simplified")

    grid_astar(*cell_pairs[0]), grid_simp(*cell_pairs[0])
    t_ga, a_ga = per_pair(grid_astar, cell_pairs, rounds)
    t_gs, a_gs = per_pair(grid_simp, cell_pairs, rounds)
    for x, y in zip(a_ga, a_gs):
        assert abs(x.cost - y.cost) < 1e-9 * max(1.0, x.cost)

    # updates: a corridor cell closed and opened again, patched in place
    # (SimplifiedGraph.patch, timed alone) against a rebuild of the view
    patch_s = []
    real_patch = SimplifiedGraph.patch

    def timed_patch(self, dirty):
        t0 = time.perf_counter()
        ok = real_patch(self, dirty)
        patch_s.append(time.perf_counter() - t0)
        return ok

    SimplifiedGraph.patch = timed_patch
    try:
        free = np.flatnonzero(gg.walkable)
        for c in rng.choice(free, size=cfg["toggles"]):
            cell = (int(c % gg.width), int(c // gg.width))
            for walkable in (False, True):
                world.update("grid", cells=[cell], walkable=walkable)
                world.tick()
    finally:
        SimplifiedGraph.patch = real_patch
    assert simplify(gg) is gview and gview.current, "a close/reopen must patch"
    rebuild_s = median([timed(SimplifiedGraph, gg)[0] for _ in range(3)])

    # levels one by one: size, and the query time on the same pairs
    per_level = []
    for count in range(1, 6):
        v = simplify(g, levels=count)
        if v.num_nodes == 0:
            break
        simp(*pairs[0])
        tk, ak = per_pair(simp, pairs, rounds)
        for x, y in zip(a_orig, ak):
            assert abs(x.cost - y.cost) < 1e-9 * max(1.0, x.cost)
        per_level.append({"levels": count, "nodes": v.num_nodes, "edges": v.num_edges,
                          "query_s": float(np.median(tk)),
                          "ratio_vs_astar": float(np.median(tk / t_orig)),
                          "ratio_vs_one_level": float(np.median(tk / t_simp))})

    row = {
        "rooms": rooms, "nodes": n, "edges": st["edges"],
        "kept_nodes": lv1["nodes"], "edges_after": lv1["edges"],
        "chains": lv1["chains"], "dead_ends": lv1["dead_ends"],
        "node_fraction": lv1["nodes"] / n, "edge_fraction": lv1["edges"] / st["edges"],
        "build_s": median(builds), "build_auto_s": median(builds_auto),
        "auto_levels": len(auto.levels), "auto_nodes": auto.num_nodes,
        "auto_s": float(np.median(t_auto)),
        "ratio_auto_vs_astar": float(np.median(t_auto / t_orig)),
        "astar_s": float(np.median(t_orig)), "simplified_s": float(np.median(t_simp)),
        "ratio_vs_astar": float(np.median(t_simp / t_orig)),
        "networkx_s": float(np.median(t_nx)), "nx_pairs": nk,
        "ratio_vs_networkx": float(np.median(t_simp[:nk] / t_nx)),
        "grid_cells": int(walk.size), "grid_kept": gview.num_nodes,
        "grid_astar_s": float(np.median(t_ga)), "grid_simplified_s": float(np.median(t_gs)),
        "ratio_vs_grid_astar": float(np.median(t_gs / t_ga)),
        "grid_levels": len(gview.levels), "patch_s": median(patch_s),
        "patches": gview.patches, "rebuild_s": rebuild_s,
        "per_level": per_level,
        "expanded_astar": int(np.median([r.expanded for r in a_orig])),
        "expanded_simplified": int(np.median([r.expanded for r in a_simp])),
    }
    log(f"{rooms}x{rooms}: kept {row['kept_nodes']}/{n}, simplified/A* "
        f"{row['ratio_vs_astar']:.3f}, auto ({row['auto_levels']} levels) "
        f"{row['ratio_auto_vs_astar']:.3f}, /networkx {row['ratio_vs_networkx']:.4f}")
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    rng = np.random.default_rng(SEED)
    rows = [bench_size(n, cfg, rng) for n in cfg["sizes"]]

    print_table("Reduction and build time (spanning-tree mazes, unit costs)",
                ["rooms", "nodes", "kept nodes", "edges", "edges after", "dead-end chains",
                 "build (1 level)", "build (automatic)"],
                [[f"{r['rooms']}x{r['rooms']}", r["nodes"],
                  f"{r['kept_nodes']} ({r['node_fraction']:.1%})", r["edges"],
                  f"{r['edges_after']} ({r['edge_fraction']:.1%})", r["dead_ends"],
                  fmt_s(r["build_s"]), fmt_s(r["build_auto_s"])] for r in rows])
    print_table(f"Query time, median per random pair ({cfg['pairs']} pairs, "
                f"{cfg['rounds']} rounds; networkx on fewer pairs at 256+)",
                ["rooms", "navcore A*", "simplified, 1 level", "ratio",
                 "expanded A* / 1 level", "automatic levels", "ratio",
                 "networkx A*", "1 level vs networkx"],
                [[f"{r['rooms']}x{r['rooms']}", fmt_s(r["astar_s"]), fmt_s(r["simplified_s"]),
                  fmt_ratio(r["ratio_vs_astar"]),
                  f"{r['expanded_astar']} / {r['expanded_simplified']}",
                  f"{fmt_s(r['auto_s'])} ({r['auto_levels']})",
                  fmt_ratio(r["ratio_auto_vs_astar"]),
                  f"{fmt_s(r['networkx_s'])} ({r['nx_pairs']} pairs)",
                  fmt_ratio(r["ratio_vs_networkx"])] for r in rows])
    print_table("The same mazes as 4-connected grids (2n+1 cells a side)",
                ["rooms", "cells", "nodes searched", "grid A*", "simplified (automatic)", "ratio"],
                [[f"{r['rooms']}x{r['rooms']}", r["grid_cells"], r["grid_kept"],
                  fmt_s(r["grid_astar_s"]), fmt_s(r["grid_simplified_s"]),
                  fmt_ratio(r["ratio_vs_grid_astar"])] for r in rows])
    print_table("Updates on the grid form: a corridor cell closed and opened again",
                ["rooms", "levels", "patched in place", "patch (median)", "rebuild",
                 "patch / rebuild"],
                [[f"{r['rooms']}x{r['rooms']}", r["grid_levels"], r["patches"],
                  fmt_s(r["patch_s"]), fmt_s(r["rebuild_s"]),
                  fmt_ratio(r["patch_s"] / r["rebuild_s"])] for r in rows])
    print_table("Recursive simplification: k levels, same pairs (ratio to one level)",
                ["rooms", "levels", "nodes searched", "edges", "query", "vs 1 level",
                 "vs A*"],
                [[f"{r['rooms']}x{r['rooms']}", p["levels"], p["nodes"], p["edges"],
                  fmt_s(p["query_s"]), fmt_ratio(p["ratio_vs_one_level"]),
                  fmt_ratio(p["ratio_vs_astar"])] for r in rows for p in r["per_level"]])
    path = write_json("simplify-quick" if args.quick else "simplify",
                      {"machine": machine(),
                       "versions": versions("numpy", "numba", "networkx"),
                       "config": cfg, "rows": rows})
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
