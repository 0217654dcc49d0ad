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


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="20k-node generated graphs, 5 sources")
    args = ap.parse_args(argv)
    import navcore
    import navcore_csr
    import networkx as nx
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    rng = np.random.default_rng(11)
    sources_per_graph = 5 if args.quick else 11
    rows = []
    for name, (n, src, dst, cost) in graphs(args.quick).items():
        # scipy sums parallel edges: the least of them kept instead
        best = {}
        for s, t, c in zip(src.tolist(), dst.tolist(), cost.tolist()):
            if c < best.get((s, t), np.inf):
                best[(s, t)] = c
        keys = np.array(list(best.keys()), dtype=np.int64)
        a = csr_matrix((np.array(list(best.values())), (keys[:, 0], keys[:, 1])),
                       shape=(n, n))
        nxg = nx.DiGraph()
        nxg.add_nodes_from(range(n))
        nxg.add_weighted_edges_from(zip(keys[:, 0].tolist(), keys[:, 1].tolist(),
                                        list(best.values())), weight="t")
        sources = rng.choice(n, sources_per_graph, replace=False)
        full = dijkstra(a, indices=sources)
        for share in (0.01, 0.30):
            limit = float(median(np.quantile(r[np.isfinite(r)], share) for r in full))
            times = {"navcore": [], "navcore + CH": [], "scipy": [], "networkx ego_graph": []}
            w = navcore.World()
            g = w.add_graph("g", type="csr", src=src, dst=dst, cost=cost, num_nodes=n,
                            directed=True)
            w.isochrone("g", int(sources[0]), limit)           # kernels loaded
            reached = []
            for k, s in enumerate(sources):
                truth = np.flatnonzero(full[k] <= limit)
                reached.append(len(truth))
                t0 = time.perf_counter()
                iso = w.isochrone("g", int(s), limit)
                times["navcore"].append(time.perf_counter() - t0)
                assert np.array_equal(np.sort(iso.nodes), truth), (name, s)
                assert np.allclose(iso.costs[np.argsort(iso.nodes)], full[k][truth])
                t0 = time.perf_counter()
                d = dijkstra(a, indices=int(s), limit=limit)
                np.flatnonzero(np.isfinite(d))
                times["scipy"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                ego = nx.ego_graph(nxg, int(s), radius=limit, distance="t")
                times["networkx ego_graph"].append(time.perf_counter() - t0)
                assert ego.number_of_nodes() == len(truth)
            navcore_csr.contract(g)
            w.isochrone("g", int(sources[0]), limit)
            for k, s in enumerate(sources):
                truth = np.flatnonzero(full[k] <= limit)
                t0 = time.perf_counter()
                iso = w.isochrone("g", int(s), limit)
                times["navcore + CH"].append(time.perf_counter() - t0)
                assert np.array_equal(np.sort(iso.nodes), truth), (name, s, "ch")
            w.close()
            rows.append((name, n, share, limit, int(median(reached)),
                         {k: median(v) for k, v in times.items()}))
            print(f"  .. {name} {share:.0%}: done", file=sys.stderr)
    print("| graph | nodes | limit (reaches) | navcore | navcore + CH | scipy bounded "
          "Dijkstra | networkx ego_graph | scipy / navcore | ego_graph / navcore |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, n, share, limit, reached, t in rows:
        best = min(t["navcore"], t["navcore + CH"])
        print(f"| {name} | {n:,} | {limit:.4g} ({reached:,} nodes, {share:.0%}) | "
              f"{t['navcore'] * 1e3:.3f} ms | {t['navcore + CH'] * 1e3:.3f} ms | "
              f"{t['scipy'] * 1e3:.3f} ms | {t['networkx ego_graph'] * 1e3:.3f} ms | "
              f"{t['scipy'] / best:.1f}x | {t['networkx ego_graph'] / best:.0f}x |")


if __name__ == "__main__":
    main()
