"""Road searches without a hierarchy (public wrappers over ``_search.py``):
``dijkstra``, ``astar`` and ``bidijkstra`` routes, and batch distances
for arrays of pairs on both cores (matrices without a hierarchy are the
csr plugin's: a Dijkstra per row, rows on both cores).

A route's ``PathResult`` has the junctions in ``nodes`` and the whole
drawn road in ``points`` ((lon, lat) of every source node along it, so
more rows than ``nodes``). The A* heuristic is the chord between a node
and the goal on the unit sphere times the cheapest cost per metre of any
edge (measured once per graph version): a chord is never longer than the
great circle an edge's length follows, so it stays admissible and
consistent whatever the weights, the profile's speeds or the updates.
"""
from __future__ import annotations

import numpy as np

from navcore.errors import QueryError
from navcore.parallel import kernel_threads
from navcore.search import UNLIMITED
from navcore.types import PathBatch, PathResult, PathStatus
from navcore.views import DerivedView

from . import _network as N, _search as K
from .segments import EARTH_RADIUS_M

ALGORITHMS = ("dijkstra", "astar", "bidijkstra")
INT32_MAX = np.iinfo(np.int32).max
_SCRATCH_KEY = "navcore_roads.search"
_SCALE_KEY = "navcore_roads.heuristic_scale"
#: keeps the measured heuristic scale under the true one after rounding
_ROUNDING_MARGIN = 1.0 - 1e-9


class RoadScratch:
    """One thread's labels for both search directions and lazy heaps as
    long as the edge list (each relaxation pushes once)."""

    __slots__ = ("dist", "par", "stamp", "hk", "hn", "gen", "regs")

    def __init__(self, graph):
        n = max(graph.num_nodes, 1)
        m = graph.csr.num_edges + 2         # a push per relaxation, and two roots
        self.dist = np.empty((2, n), dtype=np.float64)
        self.par = np.empty((2, n), dtype=np.int64)
        self.stamp = np.zeros((2, n), dtype=np.int32)
        self.hk = np.empty((2, m), dtype=np.float64)
        self.hn = np.empty((2, m), dtype=np.int32)
        self.gen = 0
        # a kernel that finishes leaves them ready for the next search
        self.regs = np.full(K.REGISTERS, -1, dtype=np.int64)
        self.regs[K.R_TRACK] = 0

    def fits(self, graph) -> bool:
        """Whether this scratch is the size ``graph`` needs now."""
        return self.dist.shape[1] == max(graph.num_nodes, 1) and \
            self.hk.shape[1] == graph.csr.num_edges + 2

    def next_gen(self) -> int:
        self.gen += 1
        if 2 * self.gen + 1 >= INT32_MAX:       # wrap-around: wipe once
            self.stamp[:] = 0
            self.gen = 1
        return self.gen


class _Scale(DerivedView):
    def __init__(self, graph):
        super().__init__(graph)
        self.value = measured_scale(graph)


def measured_scale(graph) -> float:
    """Cheapest cost per chord metre over the edges (0 without
    coordinates, or when some edge costs nothing)."""
    if graph.unit is None or graph.csr.num_edges == 0:
        return 0.0
    csr = graph.csr
    src = graph.edge_src
    chord = np.linalg.norm(graph.unit[src] - graph.unit[csr.targets], axis=1) * EARTH_RADIUS_M
    usable = chord > 0
    if not usable.any():
        return 0.0
    with np.errstate(over="ignore"):          # a 1e300 cost over a 1 m chord: inf, fine
        ratio = csr.cost[usable] / chord[usable]
    return float(max(ratio.min(), 0.0) * _ROUNDING_MARGIN)


def heuristic_scale(graph) -> float:
    view = graph.view(_SCALE_KEY)
    if view is None:
        view = _Scale(graph)
        graph.set_view(_SCALE_KEY, view)
    return view.value


def scratch_for(graph) -> RoadScratch:
    return graph.scratch(_SCRATCH_KEY, RoadScratch)


def route(graph, s: int, t: int, algorithm: str) -> PathResult:
    """The cheapest route from node ``s`` to node ``t`` (valid, walkable
    ids: ``World.find_path`` checked them) by ``algorithm``."""
    inputs = search_inputs(graph, algorithm)
    sc = scratch_for(graph)
    return advance(graph, inputs, sc, s, t, sc.next_gen(), UNLIMITED, algorithm)


def closed_both(graph) -> np.ndarray:
    """The junctions this thread's last search on ``graph`` closed, from
    the start's side then the goal's (int32; a junction both sides closed
    appears twice, as ``expanded`` counts it). Read it right after the
    search, on its thread: the next one overwrites it."""
    sc = scratch_for(graph)
    mark = 2 * sc.gen + 1
    return np.concatenate([np.flatnonzero(sc.stamp[0] == mark),
                           np.flatnonzero(sc.stamp[1] == mark)]).astype(np.int32)


def search_inputs(graph, algorithm: str) -> tuple:
    """What ``advance`` reads of ``graph`` for ``algorithm`` (as the graph
    is now): ``(csr, reverse csr or None, unit, scale)``; ``QueryError``
    for an unknown search or A* without coordinates."""
    csr = graph.csr
    unit = graph.unit if graph.unit is not None else K.NO_UNIT
    if algorithm == "bidijkstra":
        return csr, csr.reverse(), unit, 0.0
    if algorithm == "astar":
        if graph.unit is None:
            raise QueryError(f"astar needs node coordinates; road graph "
                             f"{graph.graph_id!r} has none (a DIMACS .gr without .co)")
        return csr, None, unit, heuristic_scale(graph)
    if algorithm == "dijkstra":
        return csr, None, unit, 0.0
    raise QueryError(f"unknown road search {algorithm!r}; choose one of "
                     f"{', '.join(ALGORITHMS)}")


def advance(graph, inputs, sc, s, t, gen, budget, algorithm):
    """Run (or carry on) the search of ``algorithm`` from ``s`` to ``t`` in
    scratch ``sc`` (its registers say which) for at most ``budget`` settled
    nodes: its ``PathResult``, or ``None`` while it is not finished."""
    csr, rev, unit, scale = inputs
    if rev is not None:
        cost, meet, expanded = K.bidijkstra(
            csr.offsets, csr.targets, csr.cost, rev.offsets, rev.targets, rev.edge_ids,
            rev.cost, graph.walkable, unit, s, t, sc.dist, sc.par, sc.stamp, sc.hk, sc.hn,
            gen, sc.regs, budget)
        if cost == K.PAUSED:
            return None
        if meet < 0:
            return PathResult.failed(PathStatus.UNREACHABLE, algorithm, expanded)
        edges = K.route_edges(sc.par, graph.edge_src, csr.targets, meet)
    else:
        cost, expanded = K.astar(csr.offsets, csr.targets, csr.cost, graph.walkable, unit,
                                 scale, s, t, sc.dist[0], sc.par[0], sc.stamp[0], sc.hk[0],
                                 sc.hn[0], gen, sc.regs, budget)
        if cost == K.PAUSED:
            return None
        if not cost < np.inf:
            return PathResult.failed(PathStatus.UNREACHABLE, algorithm, expanded)
        edges = K.trace_edges(sc.par[0], graph.edge_src, t, True)
    return path_result(graph, s, edges, cost, expanded, algorithm)


def route_seeded(graph, exits, exit_cost, entries, entry_cost) -> PathResult:
    """The cheapest ``exit_cost[a] + route(exits[a], entries[b]) +
    entry_cost[b]`` over the two exits and two entries of phantom nodes
    (-1 / inf for none) by one bidirectional search seeded with those
    costs; ``cost`` is that sum, ``nodes`` run from the exit taken to the
    entry taken."""
    sc = scratch_for(graph)
    return advance_seeded(graph, graph.csr.reverse(), sc, (exits, exit_cost, entries,
                                                          entry_cost), sc.next_gen(),
                          UNLIMITED)


def advance_seeded(graph, rev, sc, seeds, gen, budget):
    """``route_seeded`` for ``seeds`` (its four arguments) run or carried
    on in scratch ``sc`` for at most ``budget`` settled nodes (``rev``: the
    reverse CSR): its ``PathResult``, or ``None`` while not finished."""
    csr = graph.csr
    exits, exit_cost, entries, entry_cost = seeds
    x1, x2 = int(exits[0]), int(exits[1])
    y1, y2 = int(entries[0]), int(entries[1])
    cost, meet, expanded = K.bidijkstra_seeded(
        csr.offsets, csr.targets, csr.cost, rev.offsets, rev.targets, rev.edge_ids,
        rev.cost, graph.walkable, K.NO_UNIT, x1, float(exit_cost[0]), x2,
        float(exit_cost[1]), y1, float(entry_cost[0]), y2, float(entry_cost[1]), sc.dist,
        sc.par, sc.stamp, sc.hk, sc.hn, gen, sc.regs, budget)
    if cost == K.PAUSED:
        return None
    if meet < 0:
        return PathResult.failed(PathStatus.UNREACHABLE, "bidijkstra", expanded)
    edges = K.route_edges(sc.par, graph.edge_src, csr.targets, meet)
    first = int(graph.edge_src[edges[0]]) if edges.size else int(meet)
    return path_result(graph, first, edges, cost, expanded, "bidijkstra")


def path_result(graph, s, edges, cost, expanded, algorithm) -> PathResult:
    """A found route from its edges (int64 CSR positions, in order: what
    the search kernels return)."""
    k = edges.shape[0]
    nodes = np.empty(k + 1, dtype=np.int32)
    xy = graph.chain_xy
    if xy is not None and k:                   # a route drawn: one kernel
        if graph.one_segment_edges:            # a point per node: sized here
            points = np.empty((k + 1, 2), dtype=np.float64)
            N.one_segment_route(s, edges, graph.csr.targets, xy, graph.positions, nodes,
                                points)
        else:
            points = N.route_arrays(s, edges, graph.csr.targets, graph.chain_start, xy,
                                    graph.positions, nodes)
        return PathResult.found_path(nodes, points, cost, expanded, algorithm)
    nodes[0] = s
    nodes[1:] = graph.csr.targets[edges]
    if graph.positions is None:
        points = np.full((nodes.size, 2), np.nan)
    else:
        points = graph.positions[[s]]
    return PathResult.found_path(nodes, points, cost, expanded, algorithm)


def hierarchy_route(view, s: int, t: int, name: str) -> PathResult:
    """The route from node ``s`` to node ``t`` (checked, walkable ids) on
    hierarchy ``view`` (a ``ch.RoadHierarchy`` or ``cch.RoadCCH``), its
    ``algorithm`` ``name``."""
    q = view.query()
    cost, edges = q.path(s, t)
    # expanded: the CH's settled nodes (both searches), the customizable
    # hierarchy's elimination-tree nodes gone through
    settled = q.settled
    if not cost < _INF:
        return PathResult.failed(PathStatus.UNREACHABLE, name, settled)
    return path_result(view.graph, s, edges, cost, settled, name)


_INF = float("inf")


def hierarchy_routes(view, name, batch) -> None:
    """Answer the open entries of ``batch`` (a ``navcore.PathBatch``) whose
    ends are junctions by hierarchy ``view`` (a ``ch.RoadHierarchy`` or
    ``cch.RoadCCH``), as :func:`hierarchy_route` answers each, in one
    pass of the hierarchy's many-pairs kernels; entries with a point end
    (routed from the point on its road) are left open."""
    todo = batch.todo()
    given = batch.nodes_given[todo]
    if not given.all():
        todo = todo[given]
    if todo.size == 0:
        return
    graph = view.graph
    starts, goals = batch.starts[todo], batch.goals[todo]
    expanded = np.empty(todo.size, dtype=np.int64)
    costs, offsets, edges = view.query().paths(starts, goals, expanded)
    if graph.positions is None:
        found = costs < _INF
        lengths = np.where(found, np.diff(offsets) + 1, 0)
        node_offsets = np.zeros(todo.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=node_offsets[1:])
        nodes = np.empty(node_offsets[-1], dtype=np.int32)
        heads = node_offsets[:-1][found]
        nodes[heads] = starts[found]
        rest = np.ones(nodes.size, dtype=bool)
        rest[heads] = False
        nodes[rest] = graph.csr.targets[edges[np.repeat(found, np.diff(offsets))]]
        batch.answer(todo, costs, expanded, nodes, node_offsets,
                     np.full((nodes.size, 2), np.nan), name)
        return
    nodes, node_offsets, points, point_offsets = N.many_routes(
        starts, costs, offsets, edges, graph.csr.targets, graph.chain_start, graph.chain_xy,
        graph.positions)
    batch.answer(todo, costs, expanded, nodes, node_offsets, points, name,
                 None if graph.one_segment_edges else point_offsets)


#: pairs from which ``distance_pairs`` runs on several threads (each
#: thread allocates its own search arrays; measured on 2 cores, see
#: BENCHMARKS.md "Serial or parallel")
PAIRS_PARALLEL_FROM = 64


def distance_pairs(graph, sources, targets) -> np.ndarray:
    """Cost from ``sources[i]`` to ``targets[i]`` for every ``i``
    (validated int32 node arrays of one length), bidirectional Dijkstra
    per pair over both cores."""
    out = np.empty(sources.size, dtype=np.float64)
    if sources.size == 0:
        return out
    csr = graph.csr
    rev = csr.reverse()
    with kernel_threads(graph, sources.size, PAIRS_PARALLEL_FROM) as threads:
        K.pairs(csr.offsets, csr.targets, csr.cost, rev.offsets, rev.targets, rev.edge_ids,
                rev.cost, graph.walkable, sources, targets, out, threads)
    return out


def warm_up(graph) -> None:
    """Compile or load every kernel a road query runs, on this graph."""
    if graph.num_nodes == 0:
        return
    csr = graph.csr
    far = int(csr.targets[0]) if csr.num_edges else 0     # a route with an edge: drawn
    for algorithm in ALGORITHMS:
        if algorithm != "astar" or graph.unit is not None:
            route(graph, int(graph.edge_src[0]) if csr.num_edges else 0, far, algorithm)
    # the search between points (phantom nodes): seeded at both ends
    start = int(graph.edge_src[0]) if csr.num_edges else 0
    route_seeded(graph, np.array([start, -1]), np.array([0.0, np.inf]), np.array([far, -1]),
                 np.array([0.0, np.inf]))
    graph.path_edges(np.zeros(1, dtype=np.int32))
    one = np.zeros(1, dtype=np.int32)
    distance_pairs(graph, one, one)
    if graph.unit is not None:
        from .locate import snap
        snap(graph, graph.positions[:1])
    # the hierarchies contract() built since add_graph (World.warm_up then
    # loads their query kernels too)
    from . import cch, ch
    ch.warm_up(graph)
    cch.warm_up(graph)


def warm_hierarchy(graph, view, route, name) -> None:
    """Load the query kernels of a current hierarchy ``view`` of ``graph``
    (a CH or a CCH, algorithm ``name``; ``None``: nothing to load):
    ``route(view, s, t)``, pairs, paths, the scheduler's batches and
    matrices between the ends of its first edge."""
    if view is None or graph.csr.num_edges == 0:
        return
    s, t = int(graph.edge_src[0]), int(graph.csr.targets[0])
    route(view, s, t)
    q = view.query()
    one, other = np.array([s]), np.array([t])
    # the scheduler's batches (hierarchy_routes)
    hierarchy_routes(view, name, PathBatch(graph.graph_id, name, one.astype(np.int32),
                                           other.astype(np.int32)))
    q.distances(one, other)
    q.paths(one, other, parallel=False)
    q.paths(one, other, parallel=True)      # a batch on the workers' threads
    q.matrix(one, other)
    q.matrix(np.array([s, t]), other)     # more sources than targets: the other side
