"""Isochrones over any graph's CSR view: one bounded multi-source
Dijkstra (``_isochrone.bounded_dijkstra``) on this thread's search
scratch, then the edges leaving the reached nodes as pieces (numpy).
The csr plugin answers ``navcore_isochrone`` with it for every graph
(``trylast``); the road plugin seeds it with the junctions around points
on roads.

With a current contraction hierarchy (``contract(graph)``, or the road
plugin's ``navcore_roads.contract``) a search that would settle more than
``SWEEP_SHARE`` (a tenth) of the nodes stops there and PHAST answers instead
(``_isochrone.phast``: an upward search, then one linear sweep down the
ranks, which costs the same however much is reached). Its costs are
summed along shortcuts, so they may differ from the search's in the last
bits (the same path's costs added in another order).

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
from .contraction import contracted_view
from .search import _SCRATCH_KEY, _new_scratch


#: the share of the nodes from which a search with a current hierarchy
#: gives way to the PHAST sweep: about where a whole sweep costs as much
#: as the search so far, so neither way pays more than twice the better
#: one's time. A 200 x 200 lattice (40k nodes, one core): the sweep took
#: 0.40-0.62 ms whatever it reached, the search 0.21 ms for 5 % of the
#: nodes, 0.45 ms for 10 %, 0.99 ms for 20 %, 7.5 ms for all; on the
#: Helsinki extract (1.9k nodes) the two cost the same near 60 %, but
#: there both take microseconds
SWEEP_SHARE = 0.1


def reached(graph, seeds, seed_cost, limit, hierarchy=None):
    """``(nodes, costs)``: the nodes reached within ``limit`` (ascending
    ids) from ``seeds`` (int array of checked node ids) with
    ``seed_cost`` already spent at each, and their least costs. With
    ``hierarchy`` (a current ``DirectedHierarchy`` of the graph) a search
    past ``SWEEP_SHARE`` of the nodes hands over to PHAST."""
    csr = graph.csr
    seeds = np.ascontiguousarray(seeds, dtype=np.int32)
    seed_cost = np.ascontiguousarray(seed_cost, dtype=np.float64)
    n = graph.num_nodes
    cap = n + 1 if hierarchy is None else int(SWEEP_SHARE * n)
    sc = graph.scratch(_SCRATCH_KEY, _new_scratch)
    gen = sc.next_gen()
    order = np.empty(max(n, 1), dtype=np.int32)
    count = K.bounded_dijkstra(csr.offsets, csr.targets, csr.cost, graph.walkable, seeds,
                               seed_cost, float(limit), sc.stamp, sc.g, sc.hnode, sc.hkey,
                               sc.hpos, 2 * gen, order, cap)
    if count >= 0:
        nodes = np.sort(order[:count])
        return nodes, sc.g[nodes].copy()
    return swept(graph, hierarchy, seeds, seed_cost, limit)


def swept(graph, hierarchy, seeds, seed_cost, limit):
    """``reached`` by PHAST on ``hierarchy`` (current for ``graph``)."""
    h = hierarchy
    walk = graph.walkable
    use = walk[seeds]
    rank = h._rank
    d = np.empty(h.num_nodes)
    K.phast(h._fwd_first, h._fwd_head, h._fwd_w, h._bwd_first, h._bwd_head, h._bwd_w,
            rank[seeds[use]].astype(np.int64), seed_cost[use], float(limit), d)
    cost = d[rank]
    nodes = np.flatnonzero((cost <= limit) & (cost < np.inf) & walk)
    return nodes, cost[nodes]


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
    (checked node ids; ``source_costs`` spent at each already), on the
    graph's contraction hierarchy while one is current (``contract``)."""
    view = contracted_view(graph)
    return isochrone_on(graph, sources, source_costs, limits,
                        None if view is None else view.hierarchy)


def isochrone_on(graph, sources, source_costs, limits, hierarchy) -> Isochrone:
    """``isochrone`` with ``hierarchy`` (a ``DirectedHierarchy`` current
    for ``graph``, or ``None``) for the searches that reach far."""
    nodes, costs = reached(graph, sources, source_costs, limits[-1], hierarchy)
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
    view = contracted_view(graph)
    if view is not None:
        swept(graph, view.hierarchy, np.zeros(0, np.int32), np.zeros(0), 0.0)
