"""Isochrones on roads from points: a (lon, lat) source is a phantom node
on its road (``phantoms``): the search starts at the junctions it leaves
by (the heads of the edges through it) with the cost of the road up to
them, which the hook answers again from those junctions (the csr
plugin's bounded Dijkstra); the piece of road from the point on, both
ways a car may drive it, is added. Sources given as junction ids stay
junctions. Searches from junctions run on the road contraction
hierarchy while one is current (``navcore_roads.contract``): a search
that reaches far hands over to its PHAST sweep (``navcore_csr.isochrone``).
Outlines follow the roads' segments (``edge_pieces``).
"""
from __future__ import annotations

import numpy as np

from navcore.errors import QueryError
from navcore.isochrones import Isochrone

from navcore_csr.isochrone import isochrone_on, swept

from . import _isochrone as K
from . import ch, phantoms


def isochrone(world, graph, sources, source_costs, source_points, limits):
    """``navcore_isochrone`` on a road graph: from junctions on its
    current contraction hierarchy (``None`` without one: the csr plugin's
    search answers), from points by their junctions (the hook again).
    A graph with turn rules (``turns``) refuses: the searches here and the
    csr plugin's run on the junctions and would turn where a rule forbids."""
    if graph.turns is not None:
        raise QueryError(f"isochrones do not apply turn rules yet, and road graph "
                         f"{graph.graph_id!r} has {graph.turns.num_rules}; "
                         f"restrictions=False (OSM) reads the graph without them")
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
    # the road each point stands on, from the point toward the edge's head
    # (on each edge through it: the snapped segment's and its twin's)
    on = ends.edges >= 0
    edges = ends.edges[on]
    cost = graph.csr.cost[edges]
    keep = np.isfinite(cost)
    start = ends.before[on][keep]
    reach = np.broadcast_to(spent[:, None], on.shape)[on][keep]
    return Isochrone(core.nodes, core.costs, core.band, core.limits,
                     np.concatenate((edges[keep], core.edges)),
                     np.concatenate((start, core.start)),
                     np.concatenate((reach, core.reach)),
                     np.concatenate((cost[keep], core.edge_cost)), graph)


def edge_pieces(graph, edges, start, stop) -> np.ndarray:
    """``RoadGraph.edge_pieces``: the pieces along the roads' segments."""
    seg = graph.segments
    return K.clip_chains(np.ascontiguousarray(edges, dtype=np.int64),
                         np.ascontiguousarray(start, dtype=np.float64),
                         np.ascontiguousarray(stop, dtype=np.float64), graph.chain_start,
                         graph.chain, graph.seg_cost, seg.src, seg.dst, seg.lon, seg.lat)


def warm_up(graph) -> None:
    """Load the outline kernel (no piece) and the sweep of a current
    hierarchy (no source)."""
    edge_pieces(graph, np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    view = ch.current(graph)
    if view is not None:
        swept(graph, view.hierarchy, np.zeros(0, np.int32), np.zeros(0), 0.0)
