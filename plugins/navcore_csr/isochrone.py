"""Isochrones over any graph's CSR view: one bounded multi-source
Dijkstra (``_isochrone.bounded_dijkstra``) on this thread's search
scratch, then the edges leaving the reached nodes as pieces (numpy).
The csr plugin answers ``navcore_isochrone`` with it for every graph
(``trylast``); the road plugin seeds it with the junctions around points
on roads.

>>> import navcore, numpy as np
>>> g = navcore.NavGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 4.0])
>>> iso = isochrone(g, np.array([0]), np.zeros(1), np.array([1.0, 4.0]))
>>> iso.nodes.tolist(), iso.costs.tolist(), iso.band.tolist()
([0, 1, 2], [0.0, 1.0, 3.0], [0, 0, 1])
>>> edges, lo, hi = iso.segments()
>>> edges.tolist(), hi.tolist()          # edge 2 (2 -> 3): a quarter of it
([0, 1, 2], [1.0, 1.0, 0.25])
"""
from __future__ import annotations

import numpy as np

from navcore.isochrones import Isochrone

from . import _isochrone as K
from .search import _SCRATCH_KEY, _new_scratch


def reached(graph, seeds, seed_cost, limit):
    """``(nodes, costs)``: the nodes reached within ``limit`` (ascending
    ids) from ``seeds`` (int array of checked node ids) with
    ``seed_cost`` already spent at each, and their least costs."""
    csr = graph.csr
    sc = graph.scratch(_SCRATCH_KEY, _new_scratch)
    gen = sc.next_gen()
    order = np.empty(max(graph.num_nodes, 1), dtype=np.int32)
    count = K.bounded_dijkstra(csr.offsets, csr.targets, csr.cost, graph.walkable,
                               np.ascontiguousarray(seeds, dtype=np.int32),
                               np.ascontiguousarray(seed_cost, dtype=np.float64),
                               float(limit), sc.stamp, sc.g, sc.hnode, sc.hkey, sc.hpos,
                               2 * gen, order)
    nodes = np.sort(order[:count])
    return nodes, sc.g[nodes].copy()


def pieces(graph, nodes, costs):
    """The edges leaving ``nodes`` (reached at ``costs``) toward walkable
    heads at a finite cost, as ``Isochrone`` pieces ``(edges, start,
    reach, edge_cost)``: each begins at its tail."""
    csr = graph.csr
    lo = csr.offsets[nodes].astype(np.int64)
    deg = csr.offsets[nodes + 1].astype(np.int64) - lo
    first = np.zeros(nodes.size + 1, dtype=np.int64)
    np.cumsum(deg, out=first[1:])
    edges = np.repeat(lo - first[:-1], deg) + np.arange(first[-1], dtype=np.int64)
    reach = np.repeat(costs, deg)
    cost = csr.cost[edges]
    keep = np.isfinite(cost) & graph.walkable[csr.targets[edges]]
    return edges[keep], np.zeros(int(keep.sum())), reach[keep], cost[keep]


def isochrone(graph, sources, source_costs, limits) -> Isochrone:
    """The isochrone of ``limits`` (float64, ascending) from ``sources``
    (checked node ids; ``source_costs`` spent at each already)."""
    nodes, costs = reached(graph, sources, source_costs, limits[-1])
    band = np.searchsorted(limits, costs, side="left").astype(np.int32)
    edges, start, reach, cost = pieces(graph, nodes, costs)
    return Isochrone(nodes.astype(np.int32), costs, band, limits, edges, start, reach, cost,
                     graph)


def warm_up(graph) -> None:
    """Load the kernel on one walkable node of ``graph`` (limit 0)."""
    if not getattr(graph, "csr_built", True):
        return
    for s in graph.first_walkable(1):
        reached(graph, np.array([s]), np.zeros(1), 0.0)
