"""A profile's turn costs, as OSRM's car profile charges them, written into
a road graph's turn rules (``turns.EdgeTurns``) at load time
(``add_graph(..., turn_costs=True)``), so every search under turn rules
(``dijkstra``, ``astar``, ``bidijkstra``, ``ch`` over the edges, matrices,
pairs, routes between points) applies them with no code of its own.

Every move of the edge-based graph, from edge ``e`` into junction ``v``
onto an edge ``f`` out of ``v``, gets:

* an **angle** ``a``: the compass bearing of ``f``'s first segment minus
  that of ``e``'s last segment (the road's own geometry, not the chord
  between junctions), in ``(-180, 180]``, positive to the right; a
  **U-turn** (``f``'s first segment is ``e``'s last one driven back) is a
  turn by 180 degrees across the traffic (to the left in right-hand
  traffic);
* ``Profile.turn_seconds(a)`` where ``v`` joins three or more roads
  (neighbouring nodes of the road geometry, a two-way road counting once)
  and for every U-turn, as OSRM charges it: going on along a road through
  a node of two roads costs nothing;
* ``u_turn_penalty`` more for a U-turn, which ``u_turns="dead_ends"``
  forbids (cost ``inf``) unless it is the only way on: every edge out of
  ``v`` is ``e`` driven back. "Dead end" is the graph's shape at load;
  closures do not make one.

The seconds apply to a graph weighted by ``time`` only (a ``distance``
graph's turns stay free, as OSRM's ``weight_name="distance"``); forbidden
U-turns apply under either weight. The moves are merged into the source's
rules (OSM restrictions, a ``turns=`` table) after those were read
(repeated source rules keep their highest cost): the profile's cost is
added to the rule's, and a forbidden turn stays forbidden. Only moves that
cost something or are forbidden are stored: 16 bytes each (see
``graph.report["turn_costs"]``).
"""
from __future__ import annotations

import numpy as np

from .turns import EdgeTurns, moves


def bearings(lon_a, lat_a, lon_b, lat_b) -> np.ndarray:
    """Compass bearing in degrees (0 north, 90 east) from ``a`` to ``b``
    ((lon, lat) degrees), on the plane tangent at their middle: exact
    enough for the angle between two road segments meeting at a node."""
    dx = (lon_b - lon_a) * np.cos(np.radians(0.5 * (lat_a + lat_b)))
    return np.degrees(np.arctan2(dx, lat_b - lat_a))


def profile_moves(graph, profile):
    """``(e, f, cost, moves)``: the profile's cost of every move that has
    one (``inf``: a forbidden U-turn), and how many moves there are."""
    seg = graph.segments
    e, f = moves(graph)
    first = graph.chain[graph.chain_start[:-1]]          # each edge's first segment
    last = graph.chain[graph.chain_start[1:] - 1]        # and its last
    into, out = last[e], first[f]
    back = seg.src[into]                                 # where e came from
    ahead = seg.dst[out]                                 # where f goes
    u_turn = ahead == back
    # the roads at each junction: its distinct neighbours along the segments
    heads = graph.csr.targets.astype(np.int64)
    tails = graph.edge_src.astype(np.int64)
    node = np.concatenate((tails, heads))
    nb = np.concatenate((seg.dst[first], seg.src[last])).astype(np.int64)
    pair = np.unique(node * seg.num_nodes + nb)
    roads = np.bincount(pair // seg.num_nodes, minlength=graph.num_nodes)
    at_junction = roads[heads[e]] > 2
    cost = np.zeros(e.size)
    if graph.weight == "time":
        lon, lat = seg.lon, seg.lat
        turn = (bearings(lon[seg.src[out]], lat[seg.src[out]], lon[ahead], lat[ahead])
                - bearings(lon[back], lat[back], lon[seg.dst[into]], lat[seg.dst[into]]))
        angle = (turn + 180.0) % 360.0 - 180.0            # [-180, 180)
        angle[angle == -180.0] = 180.0
        angle[u_turn] = -180.0 if profile.driving_side == "right" else 180.0
        charged = at_junction | u_turn
        cost[charged] = profile.turn_seconds(angle[charged])
        cost[u_turn] += profile.u_turn_penalty
    if profile.u_turns == "dead_ends":
        ways_on = np.bincount(e[~u_turn], minlength=graph.csr.num_edges)
        cost[u_turn & (ways_on[e] > 0)] = np.inf
    keep = cost > 0
    return e[keep], f[keep], cost[keep], int(e.size)


def apply(graph, profile) -> None:
    """Merge ``profile``'s turn costs into ``graph.turns`` (see the module
    docstring) and say what they added in ``graph.report["turn_costs"]``."""
    e, f, c, total = profile_moves(graph, profile)
    forbidden = int(np.count_nonzero(np.isinf(c)))
    rules = graph.turns
    m = graph.csr.num_edges
    if rules is not None:                  # the source's rules, as (e, f, cost)
        e = np.concatenate((np.repeat(np.arange(m, dtype=np.int64), np.diff(rules.off)), e))
        f = np.concatenate((rules.to, f))
        c = np.concatenate((rules.cost, c))
    order = np.lexsort((f, e))
    e, f, c = e[order], f[order], c[order]
    start = np.flatnonzero(np.r_[True, (e[1:] != e[:-1]) | (f[1:] != f[:-1])]) \
        if e.size else np.zeros(0, dtype=np.int64)
    e, f, c = e[start], f[start], np.add.reduceat(c, start) if c.size else c
    report = {"profile": profile.name, "weight": graph.weight,
              "costed_turns": int(np.count_nonzero(np.isfinite(c))),
              "forbidden_u_turns": forbidden, "rules": int(e.size),
              "bytes": int(16 * e.size)}
    graph.report["turn_costs"] = report
    if e.size == 0:
        graph.turns = None
        return
    off = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(e, minlength=m), out=off[1:])
    graph.turns = EdgeTurns(off, f.astype(np.int64), c.astype(np.float64), total)
