"""Routing under turn rules: the searches of a road graph whose turns are
not all free (OSM turn restrictions, a ``turns=`` table).

The search runs on the edge-based graph: a state is a directed road edge
(being on it means having driven it to its head), and a move from edge
``e`` onto an edge ``f`` leaving ``e``'s head costs ``f``'s cost plus the
turn's (0 unless a rule lists it; a forbidden turn is no move). The moves
are read from the road CSR and the rules (``EdgeTurns``, a CSR of rules
per ``from`` edge) while searching, never stored, so closures and jams
(``updates``) apply as they do on junctions. A route from junction ``s``
starts on any edge out of ``s`` and ends on the first edge into ``t``
settled; U-turns are turns like the others (free unless a rule says
otherwise). Routes keep junction ids: ``nodes`` are the junctions the
edges pass, so a route may pass a junction twice (around a block, to turn
where a left turn is forbidden).

Forbidden sequences of edges (OSM restrictions with via ways) are routed
on copies of their via edges (``via.ViaCopies``): the searches then run on
the road edges and the copies (``_roads``) and map copies back to their
road edges in what they return.

Graphs without rules keep the node-based searches (``search``); these
cover ``dijkstra``, ``astar``, ``bidijkstra`` (and ``auto``), distance
matrices and pairs between junctions.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navcore import validate
from navcore.errors import QueryError
from navcore.types import PathResult, PathStatus
from navcore.views import DerivedView
from navcore_csr import DirectedHierarchy

from . import _turns as K

ALGORITHMS = ("dijkstra", "astar", "bidijkstra")
_NO_GOAL = np.full(1, -1, dtype=np.int64)
_NO_GOAL_COST = np.full(1, np.inf)
_NO_UNIT = np.zeros((1, 3))


@dataclass(frozen=True)
class EdgeTurns:
    """Turn rules between the edges of a road graph (CSR positions):
    the rules from edge ``e`` are ``to[off[e]:off[e + 1]]`` with their
    extra ``cost`` (``inf``: forbidden). ``moves``: how many (edge, edge)
    moves the graph has, forbidden ones included (a search's heap bound)."""

    off: np.ndarray
    to: np.ndarray
    cost: np.ndarray
    moves: int
    #: the searches' graph with copies of via edges (``via.ViaCopies``)
    #: when some sequences of edges are forbidden (OSM restrictions with
    #: via ways), else None; the rules above are then only those between
    #: two edges, the copies have theirs in it
    via: "object | None" = None

    @property
    def num_rules(self) -> int:
        return int(self.to.size)

    @property
    def forbidden(self) -> int:
        return int(np.count_nonzero(np.isinf(self.cost)))


def edge_turns(graph, turns):
    """``(EdgeTurns or None, report)`` of segment rules ``turns``
    (``segments.Turns``) on ``graph``: each rule between the last segment
    of one edge and the first of the next (``build_road_graph`` keeps every
    rule's junction a node); rules on roads the graph dropped (another
    component) are counted and left out. Repeated rules keep the highest
    cost. Forbidden sequences (``turns.seq``, via ways) become copies of
    their via edges (``via.ViaCopies``). None when no rule is left (the
    node-based searches then answer)."""
    e = graph.seg_edge[turns.frm]
    f = graph.seg_edge[turns.to]
    kept = (e >= 0) & (f >= 0)
    report = dict(turns.report)
    report["skipped"] = dict(report.get("skipped", {}))
    dropped = int(np.count_nonzero(~kept))
    if dropped:
        report["skipped"]["turns on roads dropped with their component"] = dropped
    e, f, c = e[kept], f[kept], turns.cost[kept]
    order = np.lexsort((-c, f, e))              # per pair, the highest cost first
    e, f, c = e[order], f[order], c[order]
    first = np.ones(e.size, dtype=bool)
    first[1:] = (e[1:] != e[:-1]) | (f[1:] != f[:-1])
    e, f, c = e[first], f[first], c[first]
    report["forbidden_turns"] = int(np.count_nonzero(np.isinf(c)))
    report["turn_costs"] = int(np.count_nonzero(np.isfinite(c) & (c > 0)))
    useful = c > 0
    e, f, c = e[useful], f[useful], c[useful]
    from .via import edge_patterns
    patterns, lost = edge_patterns(graph, turns)
    if lost:
        key = "turns on roads dropped with their component"
        report["skipped"][key] = report["skipped"].get(key, 0) + lost
    rules = None
    if e.size:
        m = graph.csr.num_edges
        off = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(np.bincount(e, minlength=m), out=off[1:])
        out_deg = np.diff(graph.csr.offsets)
        moves = int(out_deg[graph.csr.targets].sum())
        rules = EdgeTurns(off, f.astype(np.int64), c.astype(np.float64), moves)
    if patterns:
        rules = with_via(graph, rules, patterns)
        report["forbidden_sequences"] = len(patterns)
        report["via_copies"] = rules.via.copies
    return rules, report


def with_via(graph, rules, patterns) -> EdgeTurns:
    """``rules`` (``EdgeTurns`` between two edges, or None) with the
    copies of via edges that forbid the runs of edges ``patterns``
    (``EdgeTurns.via``); made again when the rules between two edges
    change (a profile's turn costs merged in)."""
    from dataclasses import replace
    from .via import ViaCopies
    if rules is None:
        m = graph.csr.num_edges
        rules = EdgeTurns(np.zeros(m + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                          np.zeros(0), int(np.diff(graph.csr.offsets)[graph.csr.targets].sum()))
    return replace(rules, via=ViaCopies(graph, rules, patterns))


def _roads(graph):
    """``(offsets, targets, cost, edge_src, r_off, r_eid, rules)``: the
    graph the searches under turn rules run on: the road CSR and its
    reverse with ``graph.turns``, or with forbidden sequences the CSR of
    the road edges and their copies with its own rules (``via``)."""
    tr = graph.turns
    via = tr.via
    if via is None:
        csr = graph.csr
        rev = csr.reverse()
        return csr.offsets, csr.targets, csr.cost, graph.edge_src, rev.offsets, \
            rev.edge_ids, tr
    return via.offsets, via.targets, via.edge_cost(graph.csr), via.edge_src, via.r_off, \
        via.r_eid, via


def _road_edges(graph, edges):
    """Road edges of search positions ``edges`` (copies to their originals)."""
    via = graph.turns.via
    return edges if via is None else via.orig[edges]


def route(graph, s: int, t: int, algorithm: str) -> PathResult:
    """The cheapest route from junction ``s`` to junction ``t`` (checked,
    walkable ids) under ``graph.turns`` by ``algorithm``."""
    if algorithm not in ALGORITHMS:
        raise QueryError(f"unknown road search {algorithm!r} under turn rules; choose one "
                         f"of {', '.join(ALGORITHMS)}")
    if s == t:
        return _found(graph, s, np.zeros(0, np.int64), 0.0, 0, algorithm)
    offsets, targets, ecost, edge_src, r_off, r_eid, tr = _roads(graph)
    sc = scratch_for(graph)
    gen = sc.next_gen()
    if algorithm == "bidijkstra":
        cost, meet, settled = K.bidirectional(
            offsets, targets, ecost, edge_src, r_off, r_eid, graph.walkable, tr.off, tr.to,
            tr.cost, s, t, sc.dist, sc.par, sc.stamp, gen, sc.hk, sc.hn)
    else:
        from .search import heuristic_scale
        if algorithm == "astar" and graph.unit is None:
            raise QueryError(f"astar needs node coordinates; road graph "
                             f"{graph.graph_id!r} has none (a DIMACS .gr without .co)")
        scale = heuristic_scale(graph) if algorithm == "astar" else 0.0
        unit = graph.unit if algorithm == "astar" else _NO_UNIT
        seeds = np.arange(offsets[s], offsets[s + 1], dtype=np.int64)
        cost, meet, _, settled = K.between_ends(
            offsets, targets, ecost, edge_src, graph.walkable, tr.off, tr.to, tr.cost, unit,
            scale, seeds, ecost[seeds], t, _NO_GOAL, _NO_GOAL_COST, sc.dist[0], sc.par[0],
            sc.stamp[0], gen, sc.hk[0], sc.hn[0])
    if meet < 0 or not cost < np.inf:
        return PathResult.failed(PathStatus.UNREACHABLE, algorithm, settled)
    edges = _road_edges(graph, K.trace(sc.par, meet, algorithm == "bidijkstra"))
    return _found(graph, s, edges, cost, settled, algorithm)


class TurnScratch:
    """One thread's labels for the searches over the edges (both
    directions; generation-stamped, so a search starts without clearing
    them) and lazy heaps with room for a push per move and per seed."""

    __slots__ = ("dist", "par", "stamp", "hk", "hn", "gen", "size")

    def __init__(self, graph):
        via = graph.turns.via         # with via copies: a label per edge and copy
        m = max(graph.csr.num_edges if via is None else via.orig.size, 1)
        room = (graph.turns if via is None else via).moves + m + 1
        self.size = (m, room)
        self.dist = np.empty((2, m))
        self.par = np.empty((2, m), dtype=np.int64)
        self.stamp = np.zeros((2, m), dtype=np.int32)
        self.hk = np.empty((2, room))
        self.hn = np.empty((2, room), dtype=np.int64)
        self.gen = 0

    def next_gen(self) -> int:
        self.gen += 1
        if 2 * self.gen + 1 >= np.iinfo(np.int32).max:       # wrap-around: wipe once
            self.stamp[:] = 0
            self.gen = 1
        return self.gen


_SCRATCH_KEY = "navcore_roads.turns"


def scratch_for(graph) -> TurnScratch:
    return graph.scratch(_SCRATCH_KEY, TurnScratch)


def _found(graph, s, edges, cost, settled, algorithm) -> PathResult:
    from .search import path_result
    return path_result(graph, s, edges, float(cost), settled, algorithm)


def matrix(graph, sources, targets) -> np.ndarray:
    """Costs from every junction of ``sources`` to every one of
    ``targets`` (validated int32 arrays) under the turn rules: a search
    per source over the threads; inf from and to blocked junctions."""
    offsets, targets_, cost, edge_src, r_off, r_eid, tr = _roads(graph)
    out = np.empty((sources.size, targets.size))
    if out.size:
        no_e = np.full((sources.size, 1), -1, dtype=np.int64)
        no_g = np.full((targets.size, 1), -1, dtype=np.int64)
        K.ends_matrix(offsets, targets_, cost, edge_src, graph.walkable, tr.off, tr.to,
                      tr.cost, r_off, r_eid, sources.astype(np.int64), no_e,
                      np.full(no_e.shape, np.inf),
                      targets.astype(np.int64), no_g, np.full(no_g.shape, np.inf), tr.moves,
                      out)
    walk = graph.walkable
    out[~walk[sources]] = np.inf
    out[:, ~walk[targets]] = np.inf
    return out


def pairs(graph, sources, targets) -> np.ndarray:
    """Cost from ``sources[i]`` to ``targets[i]`` under the turn rules."""
    offsets, targets_, cost, edge_src, r_off, r_eid, tr = _roads(graph)
    out = np.empty(sources.size)
    if out.size:
        K.pairs(offsets, targets_, cost, edge_src, r_off, r_eid, graph.walkable, tr.off,
                tr.to, tr.cost, sources.astype(np.int64), targets.astype(np.int64), tr.moves,
                out)
    out[~(graph.walkable[sources] & graph.walkable[targets])] = np.inf
    return out


def route_ends(graph, ends, algorithm: str) -> PathResult:
    """The cheapest route between the ends of ``ends`` (a
    ``phantoms.Route``: junctions or phantom nodes on edges) under the
    turn rules, for ``ends.finish``: one Dijkstra over the edges (every
    algorithm: exact, the A* and bidirectional speed-ups are not used
    between points yet) from the start's edges to the goal's. Its
    ``nodes`` run from the exit junction to the entry junction and its
    ``cost`` counts the roads up to and from the points."""
    offsets, targets, ecost, edge_src, _, _, tr = _roads(graph)
    via = graph.turns.via
    s_end, t_end = ends.s_end, ends.t_end
    if s_end.edges[0, 0] < 0:                    # a junction: its edges out
        s = int(s_end.exits[0, 0])
        seed_e = np.arange(offsets[s], offsets[s + 1], dtype=np.int64)
        seed_c = ecost[seed_e] + s_end.exit_cost[0, 0]
        first = s
    else:                                        # a point: the rest of its edges
        seed_e = s_end.edges[0].astype(np.int64)
        seed_c = s_end.exit_cost[0].astype(np.float64)
        first = -1
        if via is not None:
            seed_e = via.seeds(seed_e)
    if t_end.edges[0, 0] < 0:
        t = int(t_end.entries[0, 0]) if t_end.entry_cost[0, 0] < np.inf else -1
        goal_e = np.full(2, -1, dtype=np.int64)
        goal_c = np.full(2, np.inf)
    else:
        t = -1
        goal_e = np.where(t_end.entry_cost[0] < np.inf, t_end.edges[0], -1).astype(np.int64)
        goal_c = t_end.entry_cost[0].astype(np.float64)
        if via is not None:
            goal_e, goal_c = via.goals(goal_e, goal_c)
    if first >= 0 and first == t:
        return _found(graph, first, np.zeros(0, np.int64), s_end.exit_cost[0, 0], 0,
                      algorithm)
    sc = scratch_for(graph)
    cost, last, _, settled = K.between_ends(
        offsets, targets, ecost, edge_src, graph.walkable, tr.off, tr.to, tr.cost, _NO_UNIT,
        0.0, seed_e, seed_c, t, goal_e, goal_c, sc.dist[0], sc.par[0], sc.stamp[0],
        sc.next_gen(), sc.hk[0], sc.hn[0])
    if first >= 0 and t < 0:
        # from a junction onto a goal edge that leaves it: no turn before
        here = goal_e >= 0
        here[here] = edge_src[goal_e[here]] == first
        direct = float((goal_c[here] + s_end.exit_cost[0, 0]).min()) if here.any() else np.inf
        if direct <= cost:
            return _found(graph, first, np.zeros(0, np.int64), direct, settled, algorithm)
    if last < 0:
        return PathResult.failed(PathStatus.UNREACHABLE, algorithm, settled)
    edges = K.trace(sc.par, last, False)
    if first < 0:                                # leave the point's own edge out
        first = int(targets[edges[0]])
        edges = edges[1:]
    return _found(graph, first, _road_edges(graph, edges), cost, settled, algorithm)


def _end_arrays(graph, ends, exits, exit_cost, goals=False):
    """``(junction or -1, phantom edges, their costs)`` per end of
    ``ends`` (``phantoms.Ends``) seen from ``exits``/``exit_cost`` (a
    start's) or ``entries``/``entry_cost`` (a goal's, ``goals``); an end
    off the roads has neither (-1 edges). Edges are the searches'
    positions (``_roads``): with via copies, a goal edge's copies too."""
    node = np.where(ends.edges[:, 0] < 0, exits[:, 0], -1).astype(np.int64)
    node[~(exit_cost[:, 0] < np.inf) & (node >= 0)] = -1
    edges = np.where((ends.edges >= 0) & (exit_cost < np.inf), ends.edges, -1)
    edges[node >= 0] = -1
    edges = np.ascontiguousarray(edges, dtype=np.int64)
    exit_cost = np.ascontiguousarray(exit_cost, dtype=np.float64)
    via = graph.turns.via
    if via is None:
        return node, edges, exit_cost
    if goals:
        return (node, *via.goals(edges, exit_cost))
    return node, via.seeds(edges), exit_cost


def matrix_ends(graph, s_end, t_end) -> np.ndarray:
    """``distance_matrix`` between ends (``phantoms.Ends``: junctions or
    points on roads) under the turn rules: a search per source end over
    the threads, then the cost along one edge where two ends share it."""
    from .phantoms import _along
    offsets, targets, cost, edge_src, r_off, r_eid, tr = _roads(graph)
    src_node, seed_e, seed_c = _end_arrays(graph, s_end, s_end.exits, s_end.exit_cost)
    tgt_node, goal_e, goal_c = _end_arrays(graph, t_end, t_end.entries, t_end.entry_cost,
                                           True)
    out = np.empty((src_node.size, tgt_node.size))
    if out.size:
        K.ends_matrix(offsets, targets, cost, edge_src, graph.walkable, tr.off, tr.to,
                      tr.cost, r_off, r_eid, src_node, seed_e, seed_c, tgt_node, goal_e,
                      goal_c, tr.moves, out)
        # an end with neither junction nor edge (off the roads, blocked): no route
        out[(src_node < 0) & (seed_e < 0).all(axis=1)] = np.inf
        out[:, (tgt_node < 0) & (goal_e < 0).all(axis=1)] = np.inf
        np.minimum(out, _along(s_end, t_end).min(axis=(2, 3)), out=out)
    return out


def pairs_ends(graph, s_end, t_end) -> np.ndarray:
    """``distance_pairs`` between ends (``phantoms.Ends``) under the turn
    rules: a search per pair over the threads, then the cost along one
    edge where both ends of a pair share it."""
    from .phantoms import _along_pairs
    offsets, targets, cost, edge_src, _, _, tr = _roads(graph)
    src_node, seed_e, seed_c = _end_arrays(graph, s_end, s_end.exits, s_end.exit_cost)
    tgt_node, goal_e, goal_c = _end_arrays(graph, t_end, t_end.entries, t_end.entry_cost,
                                           True)
    out = np.empty(src_node.size)
    if out.size:
        K.ends_pairs(offsets, targets, cost, edge_src, graph.walkable, tr.off, tr.to,
                     tr.cost, src_node, seed_e, seed_c, tgt_node, goal_e, goal_c, tr.moves,
                     out)
        out[((src_node < 0) & (seed_e < 0).all(axis=1))
            | ((tgt_node < 0) & (goal_e < 0).all(axis=1))] = np.inf
        np.minimum(out, _along_pairs(s_end, t_end), out=out)
    return out


def warm_up(graph) -> None:
    """Load the kernels of the searches under turn rules on ``graph``:
    routes of every algorithm, a matrix and pairs between the ends of its
    first road, and from and to a point on it."""
    if graph.turns is None or graph.csr.num_edges == 0:
        return
    s, t = int(graph.edge_src[0]), int(graph.csr.targets[0])
    for algorithm in ALGORITHMS:
        if algorithm != "astar" or graph.unit is not None:
            route(graph, s, t, algorithm)
    one, other = np.array([s], np.int32), np.array([t], np.int32)
    matrix(graph, one, other)
    pairs(graph, one, other)
    from .phantoms import ends
    s_end, t_end = ends(graph, one, None, "sources"), ends(graph, other, None, "targets")
    matrix_ends(graph, s_end, t_end)
    pairs_ends(graph, s_end, t_end)


# ------------------------------------------------- the edge-based hierarchy

#: where ``contract`` keeps the hierarchy of a graph with turn rules
VIEW_KEY = "navcore_roads.turns.ch"


class EdgeQueries:
    """Junction queries on a hierarchy of the edge-based graph numbered as
    ``expanded_csr`` numbers it (``TurnHierarchy``, ``turn_cch.TurnCCH``):
    a junction-to-junction query is one query from the junction's start
    node ``m + s`` to its end node ``m + n + t``. Needs ``m``, ``n``,
    ``arc_edge`` (the road edge each input arc drives onto, -1 into end
    nodes), ``name`` (the routes' algorithm) and ``query()``. Junction
    ids are checked (``NodeError``): one out of range would name another
    node of the edge-based graph."""

    def route(self, s: int, t: int) -> PathResult:
        """The route from junction ``s`` to junction ``t``."""
        graph = self.graph
        if not (type(s) is int and type(t) is int and 0 <= s < self.n and 0 <= t < self.n):
            s = validate.node_id(s, self.n, "start")
            t = validate.node_id(t, self.n, "goal")
        if s == t:
            return _found(graph, s, np.zeros(0, np.int64), 0.0, 0, self.name)
        q = self.query()
        cost, arcs = q.path(self.m + s, self.m + self.n + t)
        if not cost < np.inf:
            return PathResult.failed(PathStatus.UNREACHABLE, self.name, q.settled)
        edges = self.arc_edge[arcs]
        return _found(graph, s, edges[edges >= 0], cost, q.settled, self.name)

    def matrix(self, sources, targets) -> np.ndarray:
        sources, targets = self._ids(sources, targets)
        out = self.query().matrix(self.m + sources.astype(np.int64),
                                  self.m + self.n + targets.astype(np.int64))
        out[sources[:, None] == targets[None, :]] = 0.0
        walk = self.graph.walkable
        out[~walk[sources]] = np.inf
        out[:, ~walk[targets]] = np.inf
        return out

    def pairs(self, sources, targets) -> np.ndarray:
        sources, targets = self._ids(sources, targets, same=True)
        out = self.query().distances(self.m + sources.astype(np.int64),
                                     self.m + self.n + targets.astype(np.int64))
        out[sources == targets] = 0.0
        out[~(self.graph.walkable[sources] & self.graph.walkable[targets])] = np.inf
        return out

    def _ids(self, sources, targets, same=False):
        """``sources`` and ``targets`` as checked junction ids (and, with
        ``same``, as many of each)."""
        s = validate.node_ids(sources, self.n, "sources")
        t = validate.node_ids(targets, self.n, "targets")
        if same and s.shape != t.shape:
            raise QueryError(f"sources and targets must have the same length, got "
                             f"{s.size} and {t.size}")
        return s, t


class TurnHierarchy(EdgeQueries, DerivedView):
    """A contraction hierarchy (``navcore_csr.DirectedHierarchy``) of the
    edge-based graph (``expanded_csr``) for the costs, rules and blocked
    junctions as they are: any update leaves it stale (``auto`` then
    answers by ``bidijkstra``, ``ch`` is a ``QueryError``) until
    ``navcore_roads.contract`` builds it again. Its nodes: the road edges
    (``0..m-1``), then a start node per junction (``m + v``: its edges out
    at their cost), then an end node per junction (``m + n + v``: reached
    from its edges in at 0), so a junction-to-junction query is one
    node-to-node query of the hierarchy."""

    name = "ch"

    def __init__(self, graph, progress=None):
        super().__init__(graph)
        offsets, targets, cost, self.arc_edge = expanded_csr(graph)
        self.m, self.n = edge_nodes(graph), graph.num_nodes
        self.hierarchy = DirectedHierarchy.build(offsets, targets, cost, progress=progress,
                                                 threads=graph)

    def query(self):
        return self.thread_local(lambda: self.hierarchy.query(self.graph))


def allowed_moves(graph):
    """``(e, f, extra)``: the moves (``moves``) the rules allow, closed
    roads and blocked junctions included, with the turn's extra cost. With
    via copies, between the searches' edges (``_roads``)."""
    offsets, heads, _, _, _, _, tr = _roads(graph)
    m = heads.size
    e, f = _moves(offsets, heads)
    # the rules' extra costs (sorted by from edge, then to edge)
    rule_from = np.repeat(np.arange(m, dtype=np.int64), np.diff(tr.off))
    rule_key = rule_from * m + tr.to
    key = e * m + f
    at = np.minimum(np.searchsorted(rule_key, key), max(rule_key.size - 1, 0))
    listed = (rule_key.size > 0) & (rule_key[at] == key) if rule_key.size else \
        np.zeros(key.size, dtype=bool)
    extra = np.where(listed, tr.cost[at] if rule_key.size else 0.0, 0.0)
    allowed = np.isfinite(extra)
    return e[allowed], f[allowed], extra[allowed]


def expanded_topology(graph):
    """``(offsets, targets, arc_edge, arc_extra)``: the edge-based graph
    of ``graph`` as a CSR, nodes as ``TurnHierarchy`` numbers them, with
    every move the rules allow whatever the costs now (closed roads and
    blocked junctions included: ``turn_cch`` customizes it for them): a
    move from edge ``e`` onto each edge ``f`` out of its head, a
    junction's start node to each of its edges out, each edge to its
    head's end node. With via copies its edge nodes are the searches'
    edges (``_roads``: the road edges and their copies, ``edge_nodes``).
    ``arc_edge``: the road edge each arc drives onto (-1 into end nodes);
    ``arc_extra``: the turn's extra cost (0 off moves)."""
    _, heads, _, tails, _, _, _ = _roads(graph)
    m, n = heads.size, graph.num_nodes
    heads = heads.astype(np.int64)
    tails = tails.astype(np.int64)
    e, f, extra = allowed_moves(graph)
    edges = np.arange(m, dtype=np.int64)
    src = np.concatenate((e, m + tails, edges))
    dst = np.concatenate((f, edges, m + n + heads))
    arc_edge = np.concatenate((_road_edges(graph, f), _road_edges(graph, edges),
                               np.full(m, -1, dtype=np.int64)))
    arc_extra = np.concatenate((extra, np.zeros(2 * m)))
    order = np.argsort(src, kind="stable")
    offsets = np.zeros(m + 2 * n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=m + 2 * n), out=offsets[1:])
    return (offsets, np.ascontiguousarray(dst[order], dtype=np.int32), arc_edge[order],
            arc_extra[order])


def arc_costs(arc_edge, arc_extra, road_cost) -> np.ndarray:
    """Each arc's cost for road costs ``road_cost``: the road it drives
    onto plus the turn's; 0 into an end node."""
    return np.where(arc_edge >= 0, road_cost[np.maximum(arc_edge, 0)] + arc_extra, 0.0)


def expanded_csr(graph):
    """``(offsets, targets, cost, arc_edge)``: ``expanded_topology`` for
    the costs now: a move costs the road it drives onto plus the turn's, a
    start node's arc its road's, an end node's 0; closed edges and edges
    at blocked junctions have no arcs."""
    csr = graph.csr
    m, n = edge_nodes(graph), graph.num_nodes
    offsets, targets, arc_edge, arc_extra = expanded_topology(graph)
    cost = np.asarray(csr.cost, dtype=np.float64)
    heads = csr.targets.astype(np.int64)
    usable = np.isfinite(cost) & graph.walkable[heads] & graph.walkable[graph.edge_src]
    if graph.turns.via is not None:               # per edge node: its road edge's
        usable = usable[graph.turns.via.orig]
    node_ok = np.concatenate((usable, np.ones(2 * n, dtype=bool)))
    src = np.repeat(np.arange(m + 2 * n, dtype=np.int64), np.diff(offsets))
    keep = node_ok[src] & node_ok[targets]
    out = np.zeros(m + 2 * n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src[keep], minlength=m + 2 * n), out=out[1:])
    return (out, targets[keep], arc_costs(arc_edge, arc_extra, cost)[keep],
            arc_edge[keep])


def edge_nodes(graph) -> int:
    """How many edge nodes the edge-based graph has: the road edges, and
    with via copies those too."""
    via = graph.turns.via
    return graph.csr.num_edges if via is None else int(via.orig.size)


def moves(graph):
    """``(e, f)`` int64: every move of the edge-based graph, ``f`` an edge
    out of ``e``'s head, grouped by ``e`` and in CSR order within."""
    return _moves(graph.csr.offsets, graph.csr.targets)


def _moves(offsets, heads):
    """``moves`` of the CSR ``offsets`` with edge heads ``heads`` (the
    road CSR's, or with via copies the searches', ``_roads``)."""
    m = heads.size
    heads = heads.astype(np.int64)
    count = np.diff(offsets)[heads]
    before = np.zeros(m, dtype=np.int64)
    np.cumsum(count[:-1], out=before[1:])
    e = np.repeat(np.arange(m, dtype=np.int64), count)
    f = np.repeat(offsets[heads] - before, count) + np.arange(e.size, dtype=np.int64)
    return e, f


def contract(graph, progress=None) -> TurnHierarchy:
    """Build the hierarchy of ``graph``'s edge-based graph (it has turn
    rules), keep it on the graph and return it."""
    view = TurnHierarchy(graph, progress)
    graph.set_view(VIEW_KEY, view)
    return view


def current(graph):
    """The graph's edge-based hierarchy while it is current, else None."""
    return graph.view(VIEW_KEY)
