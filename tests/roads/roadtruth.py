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


# -- points snapped onto roads (phantom nodes) --------------------------------

def project(graph, pts):
    """Brute force: per point the nearest open segment of the graph in the
    plane tangent at the point, and the fraction along it."""
    seg = graph.segments
    on = np.flatnonzero((graph.seg_edge >= 0) & np.isfinite(graph.seg_cost))
    out = []
    for qlon, qlat in pts:
        kx = np.cos(np.radians(qlat))
        ax = (seg.lon[seg.src[on]] - qlon) * kx
        ay = seg.lat[seg.src[on]] - qlat
        dx = (seg.lon[seg.dst[on]] - qlon) * kx - ax
        dy = seg.lat[seg.dst[on]] - qlat - ay
        dd = dx * dx + dy * dy
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.clip(np.where(dd > 0, -(ax * dx + ay * dy) / dd, 0.0), 0.0, 1.0)
        d2 = (ax + t * dx) ** 2 + (ay + t * dy) ** 2
        k = int(np.argmin(d2))
        out.append((int(on[k]), float(t[k])))
    return out


def split_graph(graph, snaps):
    """The segment graph (every source node, open segments of the graph's
    edges) with each snapped segment, and the reverse segment of its road,
    split at the snapped points: scipy CSR and the phantom node ids."""
    seg = graph.segments
    n = seg.num_nodes
    on = (graph.seg_edge >= 0) & np.isfinite(graph.seg_cost)
    src, dst, cost = list(seg.src[on]), list(seg.dst[on]), list(graph.seg_cost[on])
    ids = np.flatnonzero(on)
    cuts = {}                          # directed segment -> [(fraction from src, phantom)]
    phantom = []
    for k, (s, t) in enumerate(snaps):
        p = n + k
        phantom.append(p)
        a, b = seg.src[s], seg.dst[s]
        cuts.setdefault(s, []).append((t, p))
        back = np.flatnonzero(on & (seg.src == b) & (seg.dst == a))
        if back.size:
            cuts.setdefault(int(back[0]), []).append((1.0 - t, p))
    keep = np.ones(len(src), bool)
    for s, points in cuts.items():
        keep[np.flatnonzero(ids == s)[0]] = False
        points.sort()
        prev, prev_t = seg.src[s], 0.0
        c = graph.seg_cost[s]
        for t, p in points + [(1.0, seg.dst[s])]:
            src.append(prev)
            dst.append(p)
            cost.append((t - prev_t) * c)
            prev, prev_t = p, t
    keep = np.r_[keep, np.ones(len(src) - keep.size, bool)]
    src, dst, cost = (np.asarray(x)[keep] for x in (src, dst, cost))
    m = n + len(snaps)
    # explicit zeros vanish from scipy matrices: a tiny cost instead; the
    # cheapest of parallel segments
    order = np.lexsort((cost, dst, src))
    key = src[order].astype(np.int64) * m + dst[order]
    first = np.r_[True, key[1:] != key[:-1]]
    o = order[first]
    walk = np.ones(m, bool)
    walk[graph.node_source[~graph.walkable]] = False
    ok = walk[src[o]] & walk[dst[o]]
    o = o[ok]
    return csr_matrix((np.maximum(cost[o], 1e-300), (src[o], dst[o])), shape=(m, m)), phantom


def phantom_reference(graph, starts, goals):
    """(len(starts), len(goals)) costs between (lon, lat) points on the
    segment graph split at their snapped points (scipy)."""
    snaps = project(graph, list(starts) + list(goals))
    mat, ph = split_graph(graph, snaps)
    d = dijkstra(mat, indices=ph[:len(starts)])
    out = d[:, ph[len(starts):]]
    out[out < 1e-200] = 0.0
    return out


def extract_world(name, **params):
    """``(name, world, graph)``: the shared extract ``name`` as a road graph
    of its segments (lon/lat positions, chains compressed, no snap limit),
    more ``add_graph`` keywords in ``params``."""
    import navcore
    w = navcore.World()
    seg = npz_segments(name)
    g = w.add_graph(name, type="roads", src=seg.src, dst=seg.dst, length=seg.length,
                    speed=seg.speed, positions=np.column_stack((seg.lon, seg.lat)),
                    compress=True, max_snap=None, **params)
    return name, w, g
