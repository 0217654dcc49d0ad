"""Isochrones: ``World.isochrone`` against a bounded scipy Dijkstra and
against networkx's ``ego_graph`` (what osmnx's isochrone examples call:
``nx.ego_graph(G, node, radius=limit, distance="travel_time")``), same
graph, same sources and limits, in one run.

    flock /tmp/navcore-cpu.lock .venv/bin/python bench/isochrones.py [--quick]

Graphs (directed, travel time in seconds): the shared extracts monaco and
helsinki (``../shared/data/roads/NAME.graph.npz``), ``bench/roadgen.py``'s
generated 250k-node network and ``bench/citygen.py``'s 250k-node city
(hop weights, cost 1 an edge). Per graph a small and a large limit: the
costs reaching 1% and 30% of the nodes from a random source (medians over
the sources). navcore runs on a ``type="csr"`` graph, plain (a bounded
Dijkstra) and after ``navcore_csr.contract`` (PHAST once an isochrone
would settle more than a tenth of the nodes). Every answer's node set and
costs are checked against scipy's before timing. Times: the median of
the sources' calls (each call one source, its nodes and costs; outlines
are not drawn).

``measure`` is what ``bench/roads.py --parts isochrone`` runs too (with
the roads graph type's cases added).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from statistics import median

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
SHARED = Path(os.environ.get("NAVCORE_SHARED", HERE.parents[1] / "shared"))


def graphs(quick):
    """``name -> (n, src, dst, cost)``."""
    out = {}
    for name in ("monaco", "helsinki"):
        path = SHARED / "data" / "roads" / f"{name}.graph.npz"
        if path.exists():
            z = np.load(path)
            out[name] = (len(z["lon"]), z["src"], z["dst"], z["time_s"])
    from roadgen import make_roads
    from citygen import make_city
    n = 20_000 if quick else 250_000
    g = make_roads(nodes=n)
    out[f"roadgen {n // 1000}k"] = (len(g["lon"]), g["src"], g["dst"], g["time_s"])
    c = make_city(nodes=n)
    out[f"city {n // 1000}k (hops)"] = (n, c["src"], c["dst"], c["w"])
    return out


def least_edges(n, src, dst, cost):
    """scipy CSR of the cheapest of parallel edges (scipy would sum them)."""
    from scipy.sparse import csr_matrix
    src, dst, cost = np.asarray(src), np.asarray(dst), np.asarray(cost, dtype=np.float64)
    order = np.lexsort((cost, dst, src))
    s, d, c = src[order], dst[order], cost[order]
    first = np.r_[True, (s[1:] != s[:-1]) | (d[1:] != d[:-1])] if s.size else s.astype(bool)
    return csr_matrix((c[first], (s[first], d[first])), shape=(n, n))


def csr_variants(n, src, dst, cost):
    """The navcore cases: a ``type="csr"`` graph, plain (a bounded
    Dijkstra) and another after ``navcore_csr.contract`` (PHAST for large
    isochrones). Each is ``(label, prepare)``; ``prepare()`` returns
    ``iso(source, limit) -> (nodes, costs)``."""
    import navcore
    import navcore_csr

    def make(ch):
        def prepare():
            w = navcore.World()
            g = w.add_graph("g", type="csr", src=src, dst=dst, cost=cost, num_nodes=n,
                            directed=True)
            if ch:
                navcore_csr.contract(g)
            return lambda s, lim: _nodes_costs(w.isochrone("g", int(s), lim))
        return prepare
    return [("navcore", make(False)), ("navcore + CH", make(True))]


def iso_matches(nodes, costs, truth, limit, rel=1e-9):
    """Whether an isochrone's nodes and costs are scipy's (``truth``: the
    costs from its source to every node). A node whose cost ties the
    limit within ``rel`` may be either side of it (costs summed in another
    order, along shortcuts, may differ in the last bits)."""
    nodes = np.asarray(nodes)
    o = np.argsort(nodes)
    nodes, costs = nodes[o], np.asarray(costs)[o]
    must = np.flatnonzero(truth <= limit * (1 - rel))
    may = truth <= limit * (1 + rel)
    return (np.unique(nodes).size == nodes.size and np.isin(must, nodes).all()
            and bool(may[nodes].all())
            and np.allclose(costs, truth[nodes], rtol=rel, atol=0))


def _nodes_costs(iso):
    return iso.nodes, iso.costs


def measure(name_of_graph, n, src, dst, cost, sources, shares=(0.01, 0.30), variants=None):
    """Per limit share, the median seconds of every case over ``sources``
    (navcore's ``variants``, default ``csr_variants``; scipy's bounded
    ``dijkstra``; networkx's ``ego_graph``) and the answers that differ
    from scipy's full Dijkstra (navcore's node sets and costs, ego_graph's
    node count). Each case is called once before it is timed (kernels
    loaded). Returns a list of dicts, one per share."""
    import networkx as nx
    from scipy.sparse.csgraph import dijkstra
    a = least_edges(n, src, dst, cost)
    coo = a.tocoo()
    nxg = nx.DiGraph()
    nxg.add_nodes_from(range(n))
    nxg.add_weighted_edges_from(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()),
                                weight="t")
    sources = np.asarray(sources)
    full = dijkstra(a, indices=sources)
    variants = csr_variants(n, src, dst, cost) if variants is None else variants
    limits = [float(median(np.quantile(r[np.isfinite(r)], share) for r in full))
              for share in shares]
    reached = {lim: [int((r <= lim).sum()) for r in full] for lim in limits}

    def scipy_iso(s, lim):
        d = dijkstra(a, indices=int(s), limit=lim)
        return np.flatnonzero(np.isfinite(d)), None

    def ego(s, lim):
        return nx.ego_graph(nxg, int(s), radius=lim, distance="t"), None
    cases = {label: prepare() for label, prepare in variants}
    navs = list(cases)
    cases["scipy"] = scipy_iso
    cases["networkx ego_graph"] = ego
    for label in navs:                                 # kernels loaded (PHAST too)
        for lim in limits:
            cases[label](sources[0], lim)
    out = []
    for share, lim in zip(shares, limits):
        times = {k: [] for k in cases}
        wrong = {k: 0 for k in navs + ["networkx ego_graph"]}
        names = list(cases)
        for k, s in enumerate(sources):
            truth = np.flatnonzero(full[k] <= lim)
            for name in names[k % len(names):] + names[:k % len(names)]:
                t0 = time.perf_counter()
                nodes, costs = cases[name](s, lim)
                times[name].append(time.perf_counter() - t0)
                if name == "networkx ego_graph":
                    wrong[name] += nodes.number_of_nodes() != truth.size
                elif name in wrong:
                    wrong[name] += not iso_matches(nodes, costs, full[k], lim)
        out.append({"graph": name_of_graph, "nodes": n, "share": share, "limit": lim,
                    "reached": int(median(reached[lim])), "sources": int(sources.size),
                    "s": {k: median(v) for k, v in times.items()}, "wrong": wrong})
    return out


def table(rows):
    """The Markdown table of ``measure``'s rows (ratios against navcore's
    better case)."""
    lines = ["| graph | nodes | limit (reaches) | navcore | navcore + CH | scipy bounded "
             "Dijkstra | networkx ego_graph | scipy / navcore | ego_graph / navcore |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        t = r["s"]
        best = min(t["navcore"], t["navcore + CH"])
        lines.append(f"| {r['graph']} | {r['nodes']:,} | {r['limit']:.4g} ({r['reached']:,} "
                     f"nodes, {r['share']:.0%}) | {t['navcore'] * 1e3:.3f} ms | "
                     f"{t['navcore + CH'] * 1e3:.3f} ms | {t['scipy'] * 1e3:.3f} ms | "
                     f"{t['networkx ego_graph'] * 1e3:.3f} ms | {t['scipy'] / best:.1f}x | "
                     f"{t['networkx ego_graph'] / best:.0f}x |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="20k-node generated graphs, 5 sources")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(11)
    sources_per_graph = 5 if args.quick else 11
    rows = []
    for name, (n, src, dst, cost) in graphs(args.quick).items():
        sources = rng.choice(n, sources_per_graph, replace=False)
        got = measure(name, n, src, dst, cost, sources)
        for r in got:
            wrong = {k: v for k, v in r["wrong"].items() if v}
            assert not wrong, (name, r["share"], wrong)
        rows += got
        print(f"  .. {name}: done", file=sys.stderr)
    print(table(rows))


if __name__ == "__main__":
    main()
