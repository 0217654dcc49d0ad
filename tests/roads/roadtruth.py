"""Truth for the road tests: the shared extracts' graphs and answers
(../shared/data/roads, README there) and scipy's Dijkstra on any graph."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from navcore_roads.segments import Segments

ROADS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "roads"
NAMES = ("monaco", "helsinki")


def need(name):
    path = ROADS / f"{name}.graph.npz"
    if not path.exists():
        pytest.skip(f"{path} is not here")
    return path


def npz_segments(name) -> Segments:
    """The truth graph (no compression, every OSM node) as ``Segments``."""
    d = np.load(need(name))
    return Segments(node_id=d["osm_id"], lon=d["lon"], lat=d["lat"], src=d["src"],
                    dst=d["dst"], length=d["length_m"], speed=d["speed_kmh"],
                    way=d["way_id"], highway=d["highway"],
                    highway_names=tuple(d["highway_names"]), source=str(need(name)))


def pairs(name, kind="pairs"):
    """Columns of ``NAME.pairs.csv`` (or ``pairs_any``) as arrays."""
    rows = np.genfromtxt(ROADS / f"{name}.{kind}.csv", delimiter=",", names=True)
    return {k: rows[k] for k in rows.dtype.names}


def matrix(name):
    return dict(np.load(ROADS / f"{name}.matrix.npz"))


def csgraph_of(graph):
    """scipy CSR of a NavGraph's costs, the cheapest of parallel edges,
    closed (inf) edges left out."""
    csr = graph.csr
    src = np.repeat(np.arange(graph.num_nodes), np.diff(csr.offsets))
    ok = np.isfinite(csr.cost) & graph.walkable[src] & graph.walkable[csr.targets]
    src, dst, cost = src[ok], csr.targets[ok], csr.cost[ok]
    order = np.lexsort((cost, dst, src))
    key = src[order].astype(np.int64) * graph.num_nodes + dst[order]
    first = np.r_[True, key[1:] != key[:-1]] if key.size else np.zeros(0, bool)
    o = order[first]
    # explicit zeros would vanish from a scipy matrix: nudge them to a tiny cost
    return csr_matrix((np.maximum(cost[o], 1e-300), (src[o], dst[o])),
                      shape=(graph.num_nodes,) * 2)


def scipy_distances(graph, sources):
    d = dijkstra(csgraph_of(graph), indices=np.asarray(sources))
    d[:, ~graph.walkable] = np.inf
    d[~graph.walkable[np.asarray(sources)]] = np.inf
    return d


def close(a, b, rel=1e-9):
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    if not np.array_equal(np.isinf(a), np.isinf(b)):    # unreachable on one side only
        return False
    fin = np.isfinite(b)
    return bool(np.all(np.abs(a[fin] - b[fin]) <= rel * np.maximum(np.abs(b[fin]), 1.0)))
