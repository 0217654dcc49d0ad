"""Isochrones on roads from points: a (lon, lat) source is a phantom node
on its road (``phantoms``): the search starts at the junctions it leaves
by (the heads of the edges through it) with the cost of the road up to
them, which the hook answers again from those junctions (the csr
plugin's bounded Dijkstra); the piece of road from the point on, both
ways a car may drive it, is added. Sources given as junction ids stay
junctions. Searches from junctions run on the road contraction
hierarchy while one is current (``navcore_roads.contract``): a search
that reaches far hands over to its PHAST sweep (``navcore_csr.isochrone``).
Outlines follow the roads' segments (``edge_pieces``). Under turn rules
one bounded search over the road edges answers (``turn_isochrone``).
"""
from __future__ import annotations

import numpy as np

from navcore_csr.isochrone import Isochrone, isochrone_on, swept

from . import _isochrone as K
from . import ch, phantoms, turns


def isochrone(world, graph, sources, source_costs, source_points, limits):
    """``navcore_isochrone`` on a road graph: from junctions on its
    current contraction hierarchy (``None`` without one: the csr plugin's
    search answers), from points by their junctions (the hook again).
    A graph with turn rules (``turns``) searches over its edges
    (:func:`turn_isochrone`)."""
    if graph.turns is not None:
        return turn_isochrone(graph, sources, source_costs, source_points, limits)
    if source_points is None:
        view = ch.current(graph)
        return None if view is None else \
            isochrone_on(graph, sources, source_costs, limits, view.hierarchy)
    is_point = ~np.isnan(source_points[:, 0])
    ends = phantoms.of_points(graph, source_points[is_point], "isochrone: source")
    spent = source_costs[is_point]
    seeds = np.concatenate((sources[~is_point].astype(np.int64), ends.exits.ravel()))
    seed_cost = np.concatenate((source_costs[~is_point],
                                (ends.exit_cost + spent[:, None]).ravel()))
    use = (seeds >= 0) & (seed_cost < np.inf)
    core = world.plugins.hook.navcore_isochrone(
        world=world, graph=graph, sources=seeds[use].astype(np.int32),
        source_costs=seed_cost[use], source_points=None, limits=limits)
    edges, start, reach, cost = _point_pieces(graph, ends, spent)
    return Isochrone(core.nodes, core.costs, core.band, core.limits,
                     np.concatenate((edges, core.edges)), np.concatenate((start, core.start)),
                     np.concatenate((reach, core.reach)),
                     np.concatenate((cost, core.edge_cost)), graph)


def _point_pieces(graph, ends, spent):
    """The road each point of ``ends`` (``phantoms.Ends``) stands on, from
    the point toward the edge's head (on each edge through it: the snapped
    segment's and its twin's), reached at ``spent``: ``Isochrone`` pieces
    ``(edges, start, reach, edge_cost)``; closed ones left out."""
    on = ends.edges >= 0
    edges = ends.edges[on]
    cost = graph.csr.cost[edges]
    keep = np.isfinite(cost)
    start = ends.before[on][keep]
    reach = np.broadcast_to(spent[:, None], on.shape)[on][keep]
    return edges[keep], start, reach, cost[keep]


def turn_isochrone(graph, sources, source_costs, source_points, limits) -> Isochrone:
    """The isochrone under turn rules: one bounded Dijkstra over the road
    edges (``_isochrone.turn_reach``; a junction source may leave by any
    of its roads, a point source drives on from the point either way its
    road runs, ``phantoms``). A junction's cost is that of the cheapest
    edge arriving at it (or of a source on it); an edge is reached from
    its tail at the cost of the cheapest allowed turn onto it, so a piece
    past a forbidden or costly turn starts later or not at all. Every
    search runs on the edges, with or without a hierarchy (no sweep).

    With via-way rules the search runs on the road edges and the copies
    of via edges (``turns._roads``, ``via.ViaCopies``): a point's edges
    start on their originals (``via.seeds``), a junction's cost is the
    cheapest of every state arriving at it, copies included, and a road
    edge's piece is the earliest entry of it or any of its copies."""
    csr = graph.csr
    offsets, heads, ecost, _, _, _, tr = turns._roads(graph)
    via = graph.turns.via
    limit = float(limits[-1])
    sources = sources.astype(np.int64)
    if source_points is None:
        is_point = np.zeros(sources.size, dtype=bool)
    else:
        is_point = ~np.isnan(source_points[:, 0])
    node_seeds, node_cost = sources[~is_point], source_costs[~is_point]
    edge_seeds, edge_cost = np.zeros(0, np.int64), np.zeros(0)
    pieces = (np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0))
    if is_point.any():
        ends = phantoms.of_points(graph, source_points[is_point], "isochrone: source")
        spent = source_costs[is_point]
        # a point snapped onto a junction starts there (no edge), as a junction
        at = (ends.edges[:, 0] < 0) & (ends.exits[:, 0] >= 0)
        node_seeds = np.concatenate((node_seeds, ends.exits[at, 0].astype(np.int64)))
        node_cost = np.concatenate((node_cost, ends.exit_cost[at, 0] + spent[at]))
        on = ends.edges >= 0
        edge_seeds = ends.edges[on].astype(np.int64)
        if via is not None:
            edge_seeds = via.seeds(edge_seeds)
        edge_cost = (ends.exit_cost + spent[:, None])[on]
        pieces = _point_pieces(graph, ends, spent)
    node_seeds = np.ascontiguousarray(node_seeds)
    node_cost = np.ascontiguousarray(node_cost, dtype=np.float64)
    edge_seeds = np.ascontiguousarray(edge_seeds)
    edge_cost = np.ascontiguousarray(edge_cost, dtype=np.float64)
    sc = turns.scratch_for(graph)
    gen = sc.next_gen()
    # a push per move, per edge a junction source enters, per edge seed
    room = tr.moves + int(np.diff(offsets)[node_seeds].sum()) + edge_seeds.size + 1
    hk, hn = (sc.hk[0], sc.hn[0]) if room <= sc.hk.shape[1] else \
        (np.empty(room), np.empty(room, dtype=np.int64))
    touched = np.empty(max(heads.size, 1), dtype=np.int64)
    count = K.turn_reach(offsets, heads, ecost, graph.walkable, tr.off, tr.to, tr.cost,
                         node_seeds, node_cost, edge_seeds, edge_cost, limit, sc.dist,
                         sc.stamp, gen, hk, hn, touched)
    touched = touched[:count]
    # junctions: the edges arriving within the limit (settled), and the sources
    head = sc.stamp[0, touched] >= 2 * gen
    came = touched[head]
    arrive = sc.dist[0, came]
    source = graph.walkable[node_seeds] & (node_cost <= limit)
    nodes = np.concatenate((heads[came].astype(np.int64), node_seeds[source]))
    costs = np.concatenate((arrive, node_cost[source]))
    nodes, costs = _cheapest(nodes, costs)
    nodes = nodes.astype(np.int32)
    band = np.searchsorted(limits, costs, side="left").astype(np.int32)
    # pieces: the edges entered from their tails within the limit (a road
    # edge once: the earliest of it and its copies)
    entered = touched[sc.stamp[1, touched] == 2 * gen]
    entry = sc.dist[1, entered]
    entered = turns._road_edges(graph, entered)
    if via is not None:
        entered, entry = _cheapest(entered, entry)
    edges = np.concatenate((pieces[0], entered))
    start = np.concatenate((pieces[1], np.zeros(entered.size)))
    reach = np.concatenate((pieces[2], entry))
    cost = np.concatenate((pieces[3], csr.cost[entered]))
    return Isochrone(nodes, costs, band, limits, edges, start, reach, cost, graph)


def _cheapest(keys, costs):
    """``(keys, costs)``: each key once, sorted, with its least cost."""
    first = np.lexsort((costs, keys))
    keys, costs = keys[first], costs[first]
    one = np.ones(keys.size, dtype=bool)
    one[1:] = keys[1:] != keys[:-1]
    return keys[one], costs[one]


def edge_pieces(graph, edges, start, stop) -> np.ndarray:
    """``RoadGraph.edge_pieces``: the pieces along the roads' segments."""
    seg = graph.segments
    return K.clip_chains(np.ascontiguousarray(edges, dtype=np.int64),
                         np.ascontiguousarray(start, dtype=np.float64),
                         np.ascontiguousarray(stop, dtype=np.float64), graph.chain_start,
                         graph.chain, graph.seg_cost, seg.src, seg.dst, seg.lon, seg.lat)


def warm_up(graph) -> None:
    """Load the outline kernel (no piece), the sweep of a current
    hierarchy (no source), and under turn rules the search over the edges
    (from the first road's tail, limit 0)."""
    edge_pieces(graph, np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    if graph.turns is not None and graph.csr.num_edges:
        turn_isochrone(graph, graph.edge_src[:1].astype(np.int32), np.zeros(1), None,
                       np.zeros(1))
    view = ch.current(graph)
    if view is not None:
        swept(graph, view.hierarchy, np.zeros(0, np.int32), np.zeros(0), 0.0)
