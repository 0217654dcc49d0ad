"""The customizable hierarchy of a road graph with turn rules: a CCH
(``cch``) of its edge-based graph, numbered as ``turns.expanded_csr``
numbers it (a node per road edge, with via-way rules per copy of a via
edge too (``via``), then a start node and an end node per junction), so a
junction-to-junction query is one node-to-node query.

* Topology: every move the rules allow (``turns.expanded_topology``),
  closed roads and blocked junctions included, since updates never change the rules or
  the roads' ends; a forbidden turn is no arc at all. A copy of a via edge
  is an edge node of its own whose arcs drive onto its road edge
  (``arc_edge``), so its cost follows that road's.
* Order: nested dissection (``cch.node_order``) of the whole edge-based
  graph (``edge_order``), road edges at their midpoints, start and end
  nodes at their junctions.
* Metric (``TurnCCH.costs``): a move onto edge ``f`` costs ``f``'s cost now
  (``ch.effective_costs``: closures, jams, blocked junctions) plus the
  turn's; into an end node 0. Every update customizes it again
  (``RoadCCH.follow``), as on a graph without rules.

Routes, matrices, pairs and ``routes`` between junctions answer from it;
from and to points on roads the search over the edges answers (exact, as
for ``ch`` under turn rules: ``turns.route_ends``).
"""
from __future__ import annotations

import hashlib
import time

import numpy as np

from navcore.errors import GraphError

from . import cch, turns
from .cch import CCHTopology, RoadCCH


def edge_order(graph, offsets, targets) -> np.ndarray:
    """The elimination order (``order[rank] = node``) of the edge-based
    graph ``offsets``/``targets`` (``turns.expanded_topology``): nested
    dissection of the very graph the hierarchy contracts, each road edge
    at its ends' midpoint, each start and end node at its junction.
    Ordering the road edges alone and ranking the start and end nodes
    first gave separators their arcs cross (on a road-like graph of 50k
    junctions an elimination tree 29x as deep and 2.3x the arcs; ranking
    them above their roads, 47x and 7.5x), as did ranking the edges by
    their heads' junction order (1.6x as deep, 1.5x the arcs)."""
    positions = None
    if graph.positions is not None:
        pos = np.asarray(graph.positions, dtype=np.float64)
        road = np.arange(graph.csr.num_edges) if graph.turns.via is None else \
            graph.turns.via.orig                 # edge nodes: their road edges' midpoints
        mid = 0.5 * (pos[graph.edge_src[road]] + pos[graph.csr.targets[road]])
        positions = np.concatenate((mid, pos, pos))
    return cch.node_order(offsets, targets, positions)


def fingerprint(offsets, targets, n) -> str:
    """What a saved order depends on: the edge-based graph's arcs."""
    h = hashlib.sha1(b"turns")
    for a in (np.array([n]), offsets, targets):
        h.update(np.ascontiguousarray(a).view(np.uint8))
    return h.hexdigest()


class TurnCCH(turns.EdgeQueries, RoadCCH):
    """A ``RoadCCH`` of the edge-based graph (``turns.expanded_topology``):
    customized, followed, saved and loaded as the node-based one, its
    queries between junctions (``turns.EdgeQueries``: ``route``,
    ``matrix``, ``pairs``; ``paths`` for ``routes``)."""

    name = "cch"

    def __init__(self, graph, topology, fingerprint, arc_edge, arc_extra, order_seconds=0.0,
                 topology_seconds=0.0):
        RoadCCH.__init__(self, graph, topology, fingerprint, order_seconds, topology_seconds)
        self.m, self.n = turns.edge_nodes(graph), graph.num_nodes
        self.arc_edge = arc_edge
        self.arc_extra = arc_extra

    def costs(self) -> np.ndarray:
        """Each arc's cost now: the road it drives onto (closed: inf) plus
        the turn's; 0 into an end node."""
        from .ch import effective_costs
        return turns.arc_costs(self.arc_edge, self.arc_extra, effective_costs(self.graph))

    def _check_topology(self):
        graph = self.graph
        if graph.num_nodes != self.n or turns.edge_nodes(graph) != self.m:
            raise GraphError(f"road graph {graph.graph_id!r} changed its topology; build the "
                             f"customizable hierarchy again with contract(graph, "
                             f"customizable=True)")

    def paths(self, sources, targets):
        """``(costs, offsets, edges)``: the route of every pair of
        junctions (ids, checked) as road edges (CSR positions), path
        ``i`` being ``edges[offsets[i]:offsets[i + 1]]``; a junction to
        itself costs 0 and has no edge."""
        s, t = (a.astype(np.int64) for a in self._ids(sources, targets, same=True))
        costs, offsets, arcs = self.query().paths(self.m + s, self.m + self.n + t)
        edges = self.arc_edge[arcs]
        same = s == t
        keep = (edges >= 0) & ~np.repeat(same, np.diff(offsets))
        kept = np.zeros(keep.size + 1, dtype=np.int64)
        np.cumsum(keep, out=kept[1:])
        costs[same] = 0.0
        return costs, kept[offsets], edges[keep]

    def stats(self) -> dict:
        return {**super().stats(), "road_edges": self.graph.csr.num_edges,
                "edge_nodes": self.m, "junctions": self.n}

    def __repr__(self) -> str:
        state = "current" if self.current else "stale"
        return (f"<TurnCCH of {self.graph.graph_id!r}: {self.graph.csr.num_edges} road edges, "
                f"{self.topology.num_arcs} arcs, {state}>")


def build(graph, order=None, path=None, want=None) -> TurnCCH:
    """The customizable hierarchy of ``graph``'s edge-based graph (it has
    turn rules), customized for its costs now and stored on it (under
    ``cch.VIEW_KEY``: updates customize it again). ``order``: a saved
    order (``RoadCCH.save``) to use, from ``path``, with fingerprint
    ``want``, checked against the graph's edge-based graph."""
    t0 = time.perf_counter()
    offsets, targets, arc_edge, arc_extra = turns.expanded_topology(graph)
    mark = fingerprint(offsets, targets, graph.num_nodes)
    if order is not None and want != mark:
        raise GraphError(f"{path}: an order for another road network or other turn rules "
                         f"than road graph {graph.graph_id!r} has; compute one with "
                         f"contract(graph, customizable=True)")
    if order is None:
        order = edge_order(graph, offsets, targets)
    t1 = time.perf_counter()
    try:
        topo = CCHTopology.build(offsets, targets, order)
    except GraphError as e:
        raise GraphError(f"{path}: not a saved road hierarchy: {e}") from None
    t2 = time.perf_counter()
    view = TurnCCH(graph, topo, mark, arc_edge, arc_extra, t1 - t0, t2 - t1)
    view.customize()
    graph.set_view(cch.VIEW_KEY, view)
    warm(graph, view)                 # a build is a job or a loading step
    return view


def warm(graph, view) -> None:
    """Load ``view``'s query kernels: a route, a matrix both ways round,
    pairs and many routes (serial and parallel) between the ends of the
    graph's first road."""
    if graph.csr.num_edges == 0 or view.metric is None:
        return
    s, t = int(graph.edge_src[0]), int(graph.csr.targets[0])
    view.route(s, t)
    view._warm_partial()
    one, other = np.array([s], np.int32), np.array([t], np.int32)
    view.matrix(one, other)
    view.matrix(np.array([s, t], np.int32), other)
    view.pairs(one, other)
    view.paths(one, other)
    q = view.query()
    q.paths(view.m + one.astype(np.int64), view.m + view.n + other.astype(np.int64),
            parallel=True)
