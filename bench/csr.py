"""navcore's CSR plugin against its peers, in one run, as ratios.

    .venv/bin/python bench/csr.py            # full sizes (a few minutes)
    .venv/bin/python bench/csr.py --quick    # small sizes, smoke run
    .venv/bin/python bench/csr.py --only build,reach

Sections (see BENCHMARKS.md for the goals and the last measured figures):

1. ``build``  CSR build of a random graph (1 M nodes, 8 M edges, int64 ids,
   float64 costs): ``navcore_csr.build_csr`` vs scipy ``coo -> csr``; bytes
   per edge and peak extra memory (tracemalloc; numba's allocator is traced).
2. ``query``  single-pair shortest paths on a 1000x1000 4-neighbour grid with
   random costs and on a random sparse graph of 1 M nodes: navcore Dijkstra
   and A* through ``World.find_path`` vs scipy csgraph, igraph, rustworkx
   and networkx. Each peer's graph is built once (build times reported
   apart); per-query medians over interleaved rounds, median of per-query
   ratios.
3. ``reach``  number of nodes reachable from every node of a 100 k-node
   random digraph (mean out-degree 0.8): ``reachable_counts`` vs a Python
   DFS with one set per node.
4. ``jit``    ``import navcore`` + a small graph + the first ``find_path`` in
   fresh processes, with an empty numba cache (cold) and with the cache the
   cold run left (warm).

``ratio`` is always navcore time / peer time: below 1 navcore is faster.
Results: ``bench/results/csr.json``.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (fmt_bytes, fmt_ratio, fmt_s, interleaved, log, machine, median,  # noqa: E402
                     now, print_table, ratio, timed, versions, write_json)

SEED = 20261123

FULL = dict(build_nodes=1_000_000, build_edges=8_000_000,
            grid_side=1000, rand_nodes=1_000_000, rand_edges=3_000_000,
            pairs=20, rounds=5, query_rounds=3, nx_pairs=5, rx_path_pairs=3,
            reach_nodes=100_000, reach_degree=0.8, jit_rounds=3)
QUICK = dict(build_nodes=100_000, build_edges=800_000,
             grid_side=300, rand_nodes=100_000, rand_edges=300_000,
             pairs=5, rounds=2, query_rounds=2, nx_pairs=2, rx_path_pairs=1,
             reach_nodes=20_000, reach_degree=0.8, jit_rounds=1)

#: rustworkx ``dijkstra_shortest_paths(target=...)`` keeps a path for every
#: settled node (gigabytes on a large graph), so it runs in a child process
#: with these bounds.
RX_PATHS_MEMORY_LIMIT = 6 << 30
RX_PATHS_TIMEOUT = 240.0

GOALS = {
    "build_ratio": ("navcore build_csr (sort+dedup) <= 1.0x scipy coo->csr", 1.0),
    "bytes_per_edge": ("CSR bytes per edge <= 12 (float64 costs)", 12.0),
    "warm_start": ("warm start (import + small graph + first find_path) < 2 s", 2.0),
}


def goal_cell(key, value):
    if value is None:
        return "-"
    _, limit = GOALS[key]
    return "met" if value <= limit else f"MISSED ({value / limit:.2f}x the limit)"


# ---------------------------------------------------------------------------
# 1. CSR build
# ---------------------------------------------------------------------------
def traced_peak(fn):
    """Peak bytes allocated above the baseline during ``fn()`` (tracemalloc
    sees numpy and numba allocations; not C++ temporaries inside scipy)."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out = fn()
        cur, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del out
    return peak - base, cur - base


def bench_build(cfg):
    import scipy.sparse as sp
    from navcore_csr import build_csr

    n, m = cfg["build_nodes"], cfg["build_edges"]
    log(f"build: random graph {n} nodes, {m} edges")
    rng = np.random.default_rng(SEED)
    src = rng.integers(0, n, m, dtype=np.int64)
    dst = rng.integers(0, n, m, dtype=np.int64)
    cost = rng.uniform(1.0, 10.0, m)
    for opts in ({}, {"sort": False, "dedup": False}):   # JIT / cache load
        build_csr(src[:64], dst[:64], {"cost": cost[:64]}, n, **opts)

    cases = {
        "navcore": lambda: build_csr(src, dst, {"cost": cost}, n),
        "navcore_nosort": lambda: build_csr(src, dst, {"cost": cost}, n,
                                            sort=False, dedup=False),
        "scipy": lambda: sp.coo_matrix((cost, (src, dst)), shape=(n, n)).tocsr(),
    }
    times = interleaved(cases, cfg["rounds"])
    med = {k: median(v) for k, v in times.items()}

    csr = cases["navcore"]()
    mat = cases["scipy"]()
    dups = m - csr.num_edges
    same_structure = (np.array_equal(csr.offsets, mat.indptr)
                      and np.array_equal(csr.targets, mat.indices))
    # scipy sums duplicate (src, dst) pairs, navcore keeps the first one
    cost_diff = int(np.count_nonzero(csr.cost != mat.data)) if same_structure else None
    agree = same_structure and cost_diff <= dups
    scipy_bytes = int(mat.data.nbytes + mat.indices.nbytes + mat.indptr.nbytes)
    res = {
        "nodes": n, "edges_in": m, "edges_stored": csr.num_edges, "duplicates": dups,
        "times_s": times, "median_s": med,
        "ratio_vs_scipy": ratio(med["navcore"], med["scipy"]),
        "ratio_nosort_vs_scipy": ratio(med["navcore_nosort"], med["scipy"]),
        "nbytes": csr.nbytes, "bytes_per_edge": csr.nbytes / csr.num_edges,
        "bytes_per_edge_edge_arrays": (csr.targets.nbytes + csr.cost.nbytes) / csr.num_edges,
        "offsets_dtype": str(csr.offsets.dtype), "targets_dtype": str(csr.targets.dtype),
        "scipy_nbytes": scipy_bytes, "scipy_bytes_per_edge": scipy_bytes / mat.nnz,
        "scipy_index_dtype": str(mat.indices.dtype),
        "agree_with_scipy": bool(agree), "cost_positions_differing": cost_diff,
    }
    del csr, mat
    gc.collect()
    log("build: memory (tracemalloc)")
    peaks = {}
    for name, fn in cases.items():
        peak, kept = traced_peak(fn)
        peaks[name] = {"peak_extra_bytes": peak, "kept_bytes": kept,
                       "peak_extra_bytes_per_edge": peak / m}
    res["memory"] = peaks
    if not agree:
        print(f"!! build: navcore and scipy CSR differ (structure equal: {same_structure}, "
              f"cost positions differing: {cost_diff}, duplicates: {dups})")
    return res


def rows_build(res):
    med = res["median_s"]
    mem = res["memory"]
    r = res["ratio_vs_scipy"]
    label = f"{res['nodes'] // 1000}k nodes / {res['edges_in'] / 1e6:g} M edges"
    return [
        [f"CSR build, sort+dedup ({label})", fmt_s(med["navcore"]),
         "scipy coo->csr", fmt_s(med["scipy"]), fmt_ratio(r), goal_cell("build_ratio", r)],
        ["CSR build, sort=False dedup=False", fmt_s(med["navcore_nosort"]),
         "scipy coo->csr", fmt_s(med["scipy"]), fmt_ratio(res["ratio_nosort_vs_scipy"]), "-"],
        ["bytes per edge (csr.nbytes / num_edges)", f"{res['bytes_per_edge']:.2f}",
         f"scipy CSR ({res['scipy_index_dtype']} indices)",
         f"{res['scipy_bytes_per_edge']:.2f}",
         fmt_ratio(res["bytes_per_edge"] / res["scipy_bytes_per_edge"]),
         goal_cell("bytes_per_edge", res["bytes_per_edge"])],
        ["  of which per-edge arrays (targets + cost)",
         f"{res['bytes_per_edge_edge_arrays']:.2f}", "", "", "", "-"],
        ["peak extra memory during build, sort+dedup", fmt_bytes(mem["navcore"]["peak_extra_bytes"]),
         "scipy coo->csr", fmt_bytes(mem["scipy"]["peak_extra_bytes"]),
         fmt_ratio(ratio(mem["navcore"]["peak_extra_bytes"], mem["scipy"]["peak_extra_bytes"])), "-"],
        ["peak extra memory during build, no sort/dedup",
         fmt_bytes(mem["navcore_nosort"]["peak_extra_bytes"]), "scipy coo->csr",
         fmt_bytes(mem["scipy"]["peak_extra_bytes"]),
         fmt_ratio(ratio(mem["navcore_nosort"]["peak_extra_bytes"],
                         mem["scipy"]["peak_extra_bytes"])), "-"],
    ]


# ---------------------------------------------------------------------------
# 2. single-pair shortest paths
# ---------------------------------------------------------------------------
def make_grid(side, rng):
    """4-neighbour grid, undirected edges, costs uniform in [1, 2)."""
    idx = np.arange(side * side, dtype=np.int64).reshape(side, side)
    us = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    vs = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    cost = rng.uniform(1.0, 2.0, us.size)
    cells = np.arange(side * side)
    pos = np.column_stack([cells % side, cells // side]).astype(np.float64)
    return side * side, us, vs, cost, pos


def make_random(n, m, rng):
    """Random undirected graph: ``m`` distinct edges, no self-loops, costs
    uniform in [1, 10)."""
    a = rng.integers(0, n, int(m * 1.05) + 16, dtype=np.int64)
    b = rng.integers(0, n, a.size, dtype=np.int64)
    keep = a != b
    lo, hi = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
    key = np.unique(lo * n + hi)
    key = rng.permutation(key)[:m]
    us, vs = key // n, key % n
    cost = rng.uniform(1.0, 10.0, us.size)
    return n, us, vs, cost, None


def scipy_path_cost(mat, path):
    p = np.asarray(path, dtype=np.int64)
    if p.size < 2:
        return 0.0
    return float(np.asarray(mat[p[:-1], p[1:]]).ravel().sum())


RX_CHILD = textwrap.dedent("""
    import json, resource, sys, time
    import numpy as np
    limit = int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import rustworkx as rx
    d = sys.argv[1]
    src, dst, cost = (np.load(f"{d}/{k}.npy") for k in ("src", "dst", "cost"))
    pairs = np.load(f"{d}/pairs.npy").tolist()
    n = int(np.load(f"{d}/n.npy"))
    g = rx.PyDiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(list(zip(src.tolist(), dst.tolist(), cost.tolist())))
    del src, dst, cost
    for s, t in pairs:
        t0 = time.perf_counter()
        paths = rx.digraph_dijkstra_shortest_paths(g, s, target=t, weight_fn=float)
        dt = time.perf_counter() - t0
        path = list(paths[t]) if t in paths else None
        del paths
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(json.dumps({"s": s, "t": t, "seconds": dt, "path": path, "maxrss": rss}),
              flush=True)
""")


def rx_paths_bounded(n, src, dst, cost, pairs, mat):
    """rustworkx ``dijkstra_shortest_paths`` with a target, in a child
    process limited to RX_PATHS_MEMORY_LIMIT of address space."""
    if not pairs:
        return None
    with tempfile.TemporaryDirectory(prefix="navcore-bench-rx-") as d:
        np.save(f"{d}/src.npy", src)
        np.save(f"{d}/dst.npy", dst)
        np.save(f"{d}/cost.npy", cost)
        np.save(f"{d}/pairs.npy", np.asarray(pairs, dtype=np.int64))
        np.save(f"{d}/n.npy", np.asarray(n))
        try:
            proc = subprocess.run([sys.executable, "-c", RX_CHILD, d, str(RX_PATHS_MEMORY_LIMIT)],
                                  capture_output=True, text=True, timeout=RX_PATHS_TIMEOUT)
            out, rc, err = proc.stdout, proc.returncode, proc.stderr
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            rc, err = "timeout", ""
    done = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    for rec in done:
        rec["cost"] = scipy_path_cost(mat, rec.pop("path")) if rec.get("path") else None
    status = "ok" if rc == 0 and len(done) == len(pairs) else (
        f"stopped after {len(done)} of {len(pairs)} pairs (exit {rc}; limit "
        f"{RX_PATHS_MEMORY_LIMIT >> 30} GB address space, {RX_PATHS_TIMEOUT:.0f} s)")
    if status != "ok":
        log(f"rustworkx paths: {status}: {err.strip()[-300:]}")
    return {"status": status, "pairs": done,
            "max_rss_bytes": max((r["maxrss"] for r in done), default=None)}


def pick_pairs(n, count, rng, mat):
    """``count`` random (s, t) pairs, s != t, in the largest component."""
    from scipy.sparse.csgraph import connected_components
    _, labels = connected_components(mat, directed=False)
    big = np.bincount(labels).argmax()
    nodes = np.flatnonzero(labels == big)
    pairs = []
    while len(pairs) < count:
        s, t = rng.choice(nodes, 2, replace=False)
        pairs.append((int(s), int(t)))
    return pairs, int(nodes.size)


def bench_query_graph(kind, cfg, rng):
    import igraph as ig
    import networkx as nx
    import rustworkx as rx
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra as sp_dijkstra

    import navcore

    if kind == "grid":
        n, us, vs, c, pos = make_grid(cfg["grid_side"], rng)
        title = f"{cfg['grid_side']}x{cfg['grid_side']} 4-neighbour grid, costs U[1,2)"
    else:
        n, us, vs, c, pos = make_random(cfg["rand_nodes"], cfg["rand_edges"], rng)
        title = (f"random graph {n // 1000}k nodes, {us.size / 1e6:g} M undirected edges, "
                 f"costs U[1,10)")
    log(f"query: {title}")
    # peers get both directions of every edge, as navcore stores them
    src = np.concatenate([us, vs])
    dst = np.concatenate([vs, us])
    cc = np.concatenate([c, c])

    # -- builds (navcore and scipy repeated, the slow peers once) ----------
    holder = {}

    def nav_build():
        w = navcore.World()
        w.add_graph("g", type="csr", src=us, dst=vs, cost=c, num_nodes=n,
                    positions=pos, directed=False)
        holder["world"] = w
        return w

    def sp_build():
        holder["mat"] = sp.coo_matrix((cc, (src, dst)), shape=(n, n)).tocsr()
        return holder["mat"]

    nav_build()   # JIT / cache load, first-touch of the inputs
    build_times = interleaved({"navcore": nav_build, "scipy": sp_build}, cfg["rounds"])
    world, mat = holder["world"], holder["mat"]

    def ig_build():
        g = ig.Graph(n=n, edges=np.column_stack([src, dst]), directed=True)
        g.es["weight"] = cc.tolist()
        return g

    def rx_build():
        g = rx.PyDiGraph()
        g.add_nodes_from(range(n))
        g.add_edges_from(list(zip(src.tolist(), dst.tolist(), cc.tolist())))
        return g

    def nx_build():
        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_weighted_edges_from(zip(us.tolist(), vs.tolist(), c.tolist()))
        return g

    t_ig, gi = timed(ig_build)
    t_rx, gr = timed(rx_build)
    t_nx, gx = timed(nx_build) if cfg["nx_pairs"] else (None, None)
    builds = {k: median(v) for k, v in build_times.items()}
    builds.update({"igraph": t_ig, "rustworkx": t_rx, "networkx": t_nx})

    pairs, comp = pick_pairs(n, cfg["pairs"], rng, mat)

    # -- one callable per library: (s, t) -> path cost ----------------------
    def q_nav_dijkstra(s, t):
        r = world.find_path("g", s, t, algorithm="dijkstra")
        return r.cost, r.expanded

    def q_nav_astar(s, t):
        r = world.find_path("g", s, t, algorithm="astar")
        return r.cost, r.expanded

    def q_scipy(s, t):
        dist, pred = sp_dijkstra(mat, directed=True, indices=s, return_predecessors=True)
        path = [t]
        while path[-1] != s:   # what a user does to get the path
            path.append(int(pred[path[-1]]))
        return float(dist[t]), None

    def q_igraph(s, t):
        return gi.get_shortest_path(s, t, weights="weight", output="vpath"), None

    def q_rustworkx(s, t):
        lengths = rx.dijkstra_shortest_path_lengths(gr, s, float, goal=t)
        return float(lengths[t]), None

    def q_networkx(s, t):
        cost, _path = nx.bidirectional_dijkstra(gx, s, t, weight="weight")
        return cost, None

    libs = {"navcore dijkstra": q_nav_dijkstra}
    if pos is not None:
        libs["navcore astar"] = q_nav_astar
    libs.update({"scipy dijkstra": q_scipy, "igraph get_shortest_path": q_igraph,
                 "rustworkx path_lengths(goal)": q_rustworkx})
    if gx is not None:
        libs["networkx bidirectional_dijkstra"] = q_networkx
    limited = {"networkx bidirectional_dijkstra": (cfg["nx_pairs"], 1)}  # pairs, rounds

    # warm-up: JIT/cache load, heuristic scale, scratch allocation
    w_s, w_t = 0, int(mat.indices[mat.indptr[0]]) if mat.indptr[1] > mat.indptr[0] else 0
    for f in libs.values():
        f(w_s, w_t)

    names = list(libs)
    times = {k: [[] for _ in pairs] for k in names}
    costs = {k: [None] * len(pairs) for k in names}
    expanded = {k: [None] * len(pairs) for k in names}
    qr = cfg["query_rounds"]
    for r in range(qr):
        log(f"query {kind}: round {r + 1}/{qr}")
        for i, (s, t) in enumerate(pairs):
            k = (r * len(pairs) + i) % len(names)
            for name in names[k:] + names[:k]:
                lim = limited.get(name)
                if lim and (i >= lim[0] or r >= lim[1]):
                    continue
                dt, (cost, exp) = timed(libs[name], s, t)
                times[name][i].append(dt)
                if costs[name][i] is None:
                    if name.startswith("igraph"):
                        cost = scipy_path_cost(mat, cost)
                    costs[name][i] = cost
                    expanded[name][i] = exp

    rx_paths = rx_paths_bounded(n, src, dst, cc, pairs[:cfg["rx_path_pairs"]], mat)
    del gi, gr, gx
    gc.collect()

    # -- summarise -----------------------------------------------------------
    ref = costs["navcore dijkstra"]
    per_pair = {k: [median(ts) for ts in times[k]] for k in names}
    mismatches = []
    for k in names:
        for i, cst in enumerate(costs[k]):
            if cst is not None and not np.isclose(cst, ref[i], rtol=1e-9, atol=1e-9):
                mismatches.append((k, pairs[i], cst, ref[i]))
    if rx_paths:
        for rec in rx_paths["pairs"]:
            i = pairs.index((rec["s"], rec["t"]))
            if rec["cost"] is not None and not np.isclose(rec["cost"], ref[i], rtol=1e-9):
                mismatches.append(("rustworkx paths", pairs[i], rec["cost"], ref[i]))
    for mm in mismatches:
        print(f"!! query {kind}: {mm[0]} pair {mm[1]} cost {mm[2]} != navcore {mm[3]}")

    def ratios(nav, peer):
        out = [ratio(a, b) for a, b in zip(per_pair[nav], per_pair[peer])]
        return [x for x in out if x is not None]

    summary = {}
    for k in names:
        vals = [x for x in per_pair[k] if x is not None]
        summary[k] = {"median_query_s": median(vals), "queries": len(vals)}
    navs = [k for k in names if k.startswith("navcore")]
    for nav in navs:
        for peer in names:
            if peer.startswith("navcore"):
                continue
            rs = ratios(nav, peer)
            summary[peer].setdefault("median_ratio", {})[nav] = median(rs)
    if rx_paths and rx_paths["pairs"]:
        ts = [rec["seconds"] for rec in rx_paths["pairs"]]
        idx = [pairs.index((rec["s"], rec["t"])) for rec in rx_paths["pairs"]]
        rx_paths["median_query_s"] = median(ts)
        rx_paths["median_ratio"] = {
            nav: median([ratio(per_pair[nav][i], t) for i, t in zip(idx, ts)]) for nav in navs}
    exp = [e for e in expanded["navcore dijkstra"] if e is not None]
    return {
        "graph": title, "kind": kind, "nodes": n, "arcs": int(src.size),
        "largest_component": comp, "pairs": pairs, "query_rounds": qr,
        "build_s": builds, "build_times_s": build_times,
        "navcore_build_ratio_vs_scipy": ratio(builds["navcore"], builds["scipy"]),
        "per_pair_s": per_pair, "costs": costs, "summary": summary,
        "navcore_dijkstra_mean_expanded": float(np.mean(exp)) if exp else None,
        "navcore_astar_mean_expanded": (float(np.mean(expanded["navcore astar"]))
                                        if "navcore astar" in expanded else None),
        "rustworkx_paths_target": rx_paths, "mismatches": mismatches,
    }


def rows_query(res):
    rows = []
    s = res["summary"]
    navs = [k for k in s if k.startswith("navcore")]
    for peer, rec in s.items():
        if peer.startswith("navcore"):
            continue
        for nav in navs:
            note = f" ({rec['queries']} pairs, 1 round)" if peer.startswith("networkx") else ""
            rows.append([f"{nav}, median per query", fmt_s(s[nav]["median_query_s"]),
                         peer + note, fmt_s(rec["median_query_s"]),
                         fmt_ratio(rec["median_ratio"][nav]), "-"])
    rp = res["rustworkx_paths_target"]
    if rp:
        if rp.get("median_query_s") is not None:
            for nav in navs:
                rows.append([f"{nav}, median per query", fmt_s(s[nav]["median_query_s"]),
                             f"rustworkx dijkstra_shortest_paths(target) "
                             f"({len(rp['pairs'])} pairs, 1 round, peak RSS "
                             f"{fmt_bytes(rp['max_rss_bytes'])})",
                             fmt_s(rp["median_query_s"]), fmt_ratio(rp["median_ratio"][nav]),
                             "-"])
        if rp["status"] != "ok":
            rows.append(["", "", f"rustworkx dijkstra_shortest_paths(target): {rp['status']}",
                         "", "", "-"])
    b = res["build_s"]
    for peer in ("scipy", "igraph", "rustworkx", "networkx"):
        if b.get(peer) is None:
            continue
        rows.append(["graph build (World.add_graph)", fmt_s(b["navcore"]),
                     f"{peer} build" + (" (1 run)" if peer not in ("scipy",) else ""),
                     fmt_s(b[peer]), fmt_ratio(ratio(b["navcore"], b[peer])), "-"])
    return rows


def bench_query(cfg):
    rng = np.random.default_rng(SEED + 1)
    return {kind: bench_query_graph(kind, cfg, rng) for kind in ("grid", "random")}


# ---------------------------------------------------------------------------
# 3. reachability counts
# ---------------------------------------------------------------------------
def python_reach_counts(adj):
    """The naive version: a DFS with a fresh Python set per node."""
    out = [0] * len(adj)
    for s in range(len(adj)):
        seen = {s}
        stack = [s]
        while stack:
            u = stack.pop()
            for v in adj[u]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        out[s] = len(seen)
    return out


def bench_reach(cfg):
    import numba

    import navcore
    from navcore_csr import reachable_counts

    n = cfg["reach_nodes"]
    m = int(round(cfg["reach_degree"] * n))
    log(f"reach: random digraph {n} nodes, {m} edges")
    rng = np.random.default_rng(SEED + 2)
    src = rng.integers(0, n, m, dtype=np.int64)
    dst = rng.integers(0, n, m, dtype=np.int64)
    t_nav_build, g = timed(navcore.NavGraph.from_edges, src, dst, num_nodes=n)

    def adj_build():
        adj = [[] for _ in range(n)]
        for u, v in zip(src.tolist(), dst.tolist()):
            adj[u].append(v)
        return adj
    t_adj, adj = timed(adj_build)

    threads = numba.get_num_threads()

    def nav_one_thread():
        numba.set_num_threads(1)
        try:
            return reachable_counts(g)
        finally:
            numba.set_num_threads(threads)

    reachable_counts(g)   # JIT / cache load
    cases = {f"navcore ({threads} threads)": lambda: reachable_counts(g),
             "navcore (1 thread)": nav_one_thread,
             "python sets": lambda: python_reach_counts(adj)}
    times = interleaved(cases, cfg["rounds"])
    med = {k: median(v) for k, v in times.items()}
    nav = reachable_counts(g)
    py = np.asarray(python_reach_counts(adj), dtype=np.int64)
    equal = bool(np.array_equal(nav, py))
    if not equal:
        bad = np.flatnonzero(nav != py)
        print(f"!! reach: {bad.size} counts differ, first at node {bad[0]}: "
              f"navcore {nav[bad[0]]} python {py[bad[0]]}")
    return {"nodes": n, "edges": m, "threads": threads, "times_s": times, "median_s": med,
            "navcore_graph_build_s": t_nav_build, "python_adjacency_build_s": t_adj,
            "mean_reach": float(py.mean()), "max_reach": int(py.max()),
            "results_equal": equal, "sampled": False,
            "ratio": {k: ratio(med[k], med["python sets"]) for k in med if k.startswith("navcore")}}


def rows_reach(res):
    py = res["median_s"]["python sets"]
    rows = []
    for k, r in res["ratio"].items():
        rows.append([f"reachable_counts, {k}, all {res['nodes'] // 1000}k nodes "
                     f"(mean reach {res['mean_reach']:.1f}, results "
                     f"{'equal' if res['results_equal'] else 'DIFFER'})",
                     fmt_s(res["median_s"][k]), "Python DFS, one set per node",
                     fmt_s(py), fmt_ratio(r), "-"])
    return rows


# ---------------------------------------------------------------------------
# 4. JIT cold / warm start
# ---------------------------------------------------------------------------
JIT_CHILD = textwrap.dedent("""
    import json, time
    t0 = time.perf_counter()
    import navcore
    t1 = time.perf_counter()
    world = navcore.World()
    world.add_graph("town", type="csr", src=[0, 1, 0, 2], dst=[1, 3, 2, 3],
                    cost=[1.0, 1.0, 1.5, 1.0], positions=[[0, 0], [1, 0], [0, 1], [1, 1]],
                    directed=False)
    t2 = time.perf_counter()
    r = world.find_path("town", 0, 3)
    t3 = time.perf_counter()
    assert r.cost == 2.0, r.cost
    print(json.dumps({"import": t1 - t0, "world_and_graph": t2 - t1, "first_find_path": t3 - t2,
                      "in_process": t3 - t0}))
""")


def run_jit_child(cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    env.pop("NUMBA_DISABLE_JIT", None)
    t = now()
    proc = subprocess.run([sys.executable, "-c", JIT_CHILD], env=env, cwd=cache_dir,
                          capture_output=True, text=True, timeout=600)
    wall = now() - t
    if proc.returncode != 0:
        raise RuntimeError(f"jit child failed: {proc.stderr[-2000:]}")
    rec = json.loads(proc.stdout.strip().splitlines()[-1])
    rec["wall"] = wall
    return rec


def bench_jit(cfg):
    cold, warm = [], []
    for r in range(cfg["jit_rounds"]):
        log(f"jit: round {r + 1}/{cfg['jit_rounds']}")
        with tempfile.TemporaryDirectory(prefix="navcore-bench-numba-") as d:
            cold.append(run_jit_child(d))
            warm.append(run_jit_child(d))

    def med(recs):
        return {k: median([x[k] for x in recs]) for k in recs[0]}
    return {"cold": cold, "warm": warm, "cold_median": med(cold), "warm_median": med(warm)}


def rows_jit(res):
    c, w = res["cold_median"], res["warm_median"]
    return [
        ["cold start, empty numba cache (process wall)", fmt_s(c["wall"]), "", "", "", "-"],
        ["  import navcore / World+add_graph / first find_path",
         f"{fmt_s(c['import'])} / {fmt_s(c['world_and_graph'])} / "
         f"{fmt_s(c['first_find_path'])}", "", "", "", "-"],
        ["warm start, cache from the cold run (process wall)", fmt_s(w["wall"]), "", "", "",
         goal_cell("warm_start", w["wall"])],
        ["  import navcore / World+add_graph / first find_path",
         f"{fmt_s(w['import'])} / {fmt_s(w['world_and_graph'])} / "
         f"{fmt_s(w['first_find_path'])}", "", "", "", "-"],
    ]


# ---------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    ap.add_argument("--only", default="build,query,reach,jit",
                    help="comma-separated sections (default: all)")
    ap.add_argument("--rounds", type=int, help="timing rounds (default 5, quick 2)")
    ap.add_argument("--no-networkx", action="store_true", help="leave networkx out")
    args = ap.parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL)
    if args.rounds:
        cfg["rounds"] = args.rounds
    if args.no_networkx:
        cfg["nx_pairs"] = 0
    sections = [s.strip() for s in args.only.split(",") if s.strip()]

    import navcore  # noqa: F401  (fails early if the venv is wrong)

    t_start = now()
    results = {"machine": machine(), "config": cfg, "quick": args.quick,
               "versions": versions("navcore", "numba", "llvmlite", "numpy", "scipy",
                                    "igraph", "rustworkx", "networkx"),
               "ratio": "navcore time / peer time (below 1: navcore faster)",
               "goals": {k: v[0] for k, v in GOALS.items()}}
    headers = ["measured", "navcore", "peer", "peer figure", "ratio", "goal"]
    tables = []
    if "build" in sections:
        results["build"] = bench_build(cfg)
        tables.append(("CSR build", rows_build(results["build"])))
    if "query" in sections:
        results["query"] = bench_query(cfg)
        for kind, res in results["query"].items():
            tables.append((f"Single-pair shortest path: {res['graph']}, "
                           f"{len(res['pairs'])} pairs x {res['query_rounds']} rounds",
                           rows_query(res)))
    if "reach" in sections:
        results["reach"] = bench_reach(cfg)
        tables.append(("Reachability counts", rows_reach(results["reach"])))
    if "jit" in sections:
        results["jit"] = bench_jit(cfg)
        tables.append(("JIT start-up (fresh processes)", rows_jit(results["jit"])))
    results["total_s"] = now() - t_start

    v = results["versions"]
    print(f"\nnavcore CSR benchmark ({'quick' if args.quick else 'full'}); "
          f"{results['machine']['cpus']} cpus; python {v['python']}, numba {v['numba']}, "
          f"numpy {v['numpy']}, scipy {v['scipy']}, igraph {v['igraph']}, "
          f"rustworkx {v['rustworkx']}, networkx {v['networkx']}")
    print("ratio = navcore time / peer time (below 1: navcore faster); medians")
    for title, rows in tables:
        print_table(title, headers, rows)
    path = write_json("csr-quick" if args.quick else "csr", results)
    print(f"\nwrote {path} ({results['total_s']:.0f} s)")


if __name__ == "__main__":
    main()
