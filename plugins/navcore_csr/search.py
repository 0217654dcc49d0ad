"""Generic searches over any NavGraph's CSR view (public, validating).

Each function checks its input and raises ``navcore.NodeError`` or
``QueryError``; the numba kernels in ``_search.py`` do the work on this
thread's scratch set, so a query allocates only its result.

>>> import navcore
>>> from navcore_csr import dijkstra, reachable_counts
>>> g = navcore.NavGraph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 5.0])
>>> r = dijkstra(g, 0, 2)
>>> r.nodes.tolist(), r.cost
([0, 1, 2], 2.0)
>>> reachable_counts(g).tolist()
[3, 2, 1]
"""
from __future__ import annotations

import numba
import numpy as np

from navcore import limits, validate
from navcore._kernels import wraps
from navcore.errors import CapacityError, NodeError, QueryError
from navcore.graph import NavGraph
from navcore.parallel import kernel_threads
from navcore.types import PathResult, PathStatus
from navcore.views import DerivedView

from . import _search as K

HKIND = {"zero": K.H_ZERO, "euclidean": K.H_EUCLIDEAN,
          "manhattan": K.H_MANHATTAN, "octile": K.H_OCTILE}
#: the find_path options this search reads, with their allowed values
QUERY_OPTIONS = {"heuristic": tuple(sorted(HKIND))}


def query_options(graph):
    """``QUERY_OPTIONS`` for graphs of the csr type (``NavGraph`` itself),
    else ``None``. A backend whose graphs the csr plugin searches with A*
    (a navmesh's ``astar`` over polygons, the example hexgrid) declares
    ``heuristic`` for its own graph class; one with its own A* (grids,
    roads) never has it read, so it is refused there."""
    return QUERY_OPTIONS if type(graph) is NavGraph else None
NO_POSITIONS = K.NO_POSITIONS
INT32_MAX = np.iinfo(np.int32).max
#: an expansion budget no search reaches (its sum with a count stays in int64)
WHOLE = 1 << 62
_SCRATCH_KEY = "navcore_csr.search"
#: matrix rows x nodes from which the rows are spread over the numba
#: threads (each thread makes labels of its own, and waking the pool
#: costs): on 2 cores a 63k-node grid took 19 ms a row pair on one thread
#: and 24 on two, 4 rows 33 and 18 ms (BENCHMARKS.md "Serial or parallel")
_PARALLEL_MIN_WORK = 250_000
_SCALES_KEY = "navcore_csr.heuristic_scales"
_ROUNDING_MARGIN = 1.0 - 1e-12   # keeps the scaled heuristic below true costs


class SearchScratch:
    """One thread's search memory for one graph (labels stamped by generation).

    ``stamp`` and ``mark`` are only ever compared with the current
    generation, so starting a query costs one increment; they are wiped
    only when the generation would overflow int32.
    """

    __slots__ = ("g", "parent", "stamp", "mark", "hnode", "hkey", "hpos", "gen", "regs")

    def __init__(self, n: int):
        if not validate.is_int(n) or not 0 <= n <= limits.MAX_NODES:
            raise CapacityError(f"a search scratch holds 0..{limits.MAX_NODES} nodes, got "
                                f"{validate.describe(n)}")
        n = max(int(n), 1)
        (self.g, self.parent, self.stamp, self.mark, self.hnode, self.hkey,
         self.hpos) = K.scratch_arrays(n)
        self.gen = 0
        #: ``astar``'s registers: "begin a search" until one pauses in them
        self.regs = np.zeros(K.REGISTERS, dtype=np.int64)
        self.regs[K.R_EXPANDED] = -1

    def next_gen(self) -> int:
        if wraps(self.gen):                 # wrap-around: wipe once
            self.stamp[:] = 0
            self.mark[:] = 0
            self.gen = 0
        self.gen += 1
        return self.gen


def scratch_for(graph) -> SearchScratch:
    """This thread's scratch set for ``graph``."""
    graph = validate.graph(graph)
    return graph.scratch(_SCRATCH_KEY, _new_scratch)


def _new_scratch(graph) -> SearchScratch:
    return SearchScratch(graph.num_nodes)


def heuristic_scale(graph, heuristic: str) -> float:
    """Least edge cost per unit of ``heuristic`` distance on ``graph``.

    Multiplying the distance by it gives a consistent heuristic, so A* on
    any graph with positions is exact whatever its costs. A derived view,
    measured (one pass over the edges) on the first A* query after each
    update: A* cannot be exact without it.
    """
    if not isinstance(graph, NavGraph):
        raise QueryError(f"heuristic_scale needs a NavGraph, got {graph!r}")
    if type(heuristic) is not str or heuristic not in HKIND:
        validate.choice(heuristic, sorted(HKIND), "heuristic", QueryError)
    if heuristic == "zero":
        return 0.0                     # no distance to scale: A* is Dijkstra
    if not graph.has_positions():
        raise QueryError(f"heuristic {heuristic!r} needs node positions; graph "
                         f"{graph.graph_id!r} has none")
    view = graph.view(_SCALES_KEY)
    if view is None:      # no lock: a duplicate is harmless, waiting on a build is not
        view = HeuristicScales(graph)
        graph.set_view(_SCALES_KEY, view)
    scales = view.scales
    scale = scales.get(heuristic)
    if scale is None:
        csr = graph.csr
        scale = K.min_cost_per_distance(csr.offsets, csr.targets, csr.cost,
                                        graph.positions, HKIND[heuristic])
        scale = scales[heuristic] = 0.0 if not np.isfinite(scale) \
            else scale * _ROUNDING_MARGIN
    return scale


class HeuristicScales(DerivedView):
    """``heuristic_scale`` per heuristic kind for one version of a graph."""

    def __init__(self, graph):
        super().__init__(graph)
        self.scales = {}


def check_node(graph, node, role: str = "node") -> int:
    """``node`` as an int in range, or ``NodeError`` naming ``role``."""
    return validate.node_id(node, graph.num_nodes, role)


def _endpoints(graph, start, goal):
    s = check_node(graph, start, "start")
    t = check_node(graph, goal, "goal")
    if not graph.walkable[s]:
        return s, t, PathResult.failed(PathStatus.INVALID_START)
    if not graph.walkable[t]:
        return s, t, PathResult.failed(PathStatus.INVALID_GOAL)
    return s, t, None


def ends_or_answer(graph, start, goal, algorithm):
    """``(s, t, result)`` for a query between node ids: ``result`` is the
    answer when no search is needed (an end not walkable, or ``s == t``),
    else None. Shared by the views that search for the graph."""
    s, t, bad = _endpoints(graph, start, goal)
    if bad is None and s == t:
        bad = PathResult(PathStatus.FOUND, np.array([s], np.int32), graph.points_of([s]),
                         0.0, 0, algorithm)
    return s, t, bad


def astar(graph, start, goal, *, heuristic: str | None = None,
          algorithm: str = "astar") -> PathResult:
    """Optimal A* from ``start`` to ``goal`` (node ids) over ``graph.csr``.

    ``heuristic`` defaults to the graph's; it is scaled by
    :func:`heuristic_scale` so the result is exact for any costs.
    """
    graph = validate.graph(graph)
    s, t, bad = _endpoints(graph, start, goal)
    if bad is not None:
        return bad
    return astar_between(graph, s, t, heuristic, algorithm)


def astar_between(graph, s, t, heuristic=None, algorithm="astar"):
    """``astar`` between node ids ``s`` and ``t`` that are already checked
    (in range and walkable: ``World.find_path`` checked them); only the
    heuristic is checked here."""
    heuristic = graph.heuristic if heuristic is None else heuristic
    check_heuristic(graph, heuristic)
    return run_astar(graph, s, t, heuristic, algorithm)


def check_heuristic(graph, heuristic) -> None:
    """``QueryError`` unless ``heuristic`` is a kind A* can use on ``graph``."""
    if type(heuristic) is not str or heuristic not in HKIND:    # [1]: not hashable
        raise QueryError(f"unknown heuristic {heuristic!r}; choose one of {sorted(HKIND)}")
    if heuristic != "zero" and graph.positions is None:
        raise QueryError(f"heuristic {heuristic!r} needs node positions")


def run_astar(graph, s, t, heuristic, algorithm):
    """A* between checked node ids with a checked heuristic (on every
    query's path: no call that checks again what the caller checked)."""
    csr = graph.csr
    pos, hkind, scale = heuristic_inputs(graph, heuristic)
    sc = graph.scratch(_SCRATCH_KEY, _new_scratch)
    gen = sc.next_gen()
    cost, expanded = K.astar(csr.offsets, csr.targets, csr.cost, graph.walkable, pos,
                              hkind, scale, s, t, sc.g, sc.parent, sc.stamp,
                              sc.hnode, sc.hkey, sc.hpos, gen, sc.regs, WHOLE)
    return result_of(graph, sc, t, cost, expanded, algorithm)


def closed_nodes(graph) -> np.ndarray:
    """The node ids this thread's last ``astar`` or ``dijkstra`` on
    ``graph`` closed (int32, in id order): those its scratch stamps with
    that search's closed mark. Read it right after the search, on the
    thread that ran it: the next search on ``graph`` overwrites it."""
    sc = scratch_for(graph)
    return np.flatnonzero(sc.stamp == 2 * sc.gen + 1).astype(np.int32)


def search_closed(graph, request):
    """``navcore_closed_nodes`` for the generic searches: ``(result,
    closed)`` of the A* (``auto``, ``astar``) or Dijkstra that
    ``navcore_find_path`` runs for ``request``; None for other algorithms."""
    algo = request.algorithm
    if algo not in ("auto", "astar", "dijkstra"):
        return None
    s, t = request.start_node, request.goal_node
    if algo == "dijkstra":
        result = run_astar(graph, s, t, "zero", "dijkstra")
    else:
        h = request.options.get("heuristic", graph.heuristic)
        result = astar_between(graph, s, t, h, "astar" if h != "zero" else "dijkstra")
    return result, closed_nodes(graph)


def heuristic_inputs(graph, heuristic):
    """``(positions, kind, scale)`` the A* kernel takes for a checked
    ``heuristic`` on ``graph``."""
    if heuristic == "zero":
        return NO_POSITIONS, K.H_ZERO, 0.0
    view = graph.view(_SCALES_KEY)
    scale = None if view is None else view.scales.get(heuristic)
    if scale is None:
        scale = heuristic_scale(graph, heuristic)
    return graph.positions, (HKIND[heuristic] if scale != 0.0 else K.H_ZERO), scale


def result_of(graph, sc, t, cost, expanded, algorithm) -> PathResult:
    """The result of an A* that ended with ``cost`` in scratch ``sc``."""
    if not cost < _INF:
        return PathResult.failed(PathStatus.UNREACHABLE, algorithm, expanded)
    nodes = K.trace(sc.parent, t)
    return PathResult.found_path(nodes, points_along(graph, nodes), cost, expanded,
                                 algorithm)


_INF = float("inf")


def points_along(graph, nodes) -> np.ndarray:
    """``graph.points_of(nodes)`` for the int32 node ids a search traced
    (in range by construction, so not checked again)."""
    pos = graph.positions
    if pos is None or type(graph) is not NavGraph:    # a subclass may draw its own
        return graph.points_of(nodes)
    pts = pos.take(nodes, axis=0)
    return pts if pts.shape[1] == 2 else np.ascontiguousarray(pts[:, :2])


def dijkstra(graph, start, goal) -> PathResult:
    """Single-pair Dijkstra with early exit at ``goal``."""
    graph = validate.graph(graph)
    s, t, bad = _endpoints(graph, start, goal)
    if bad is not None:
        return bad
    return run_astar(graph, s, t, "zero", "dijkstra")


def bfs(graph, start, goal) -> PathResult:
    """Path with the fewest edges; ``cost`` is that path's summed cost."""
    graph = validate.graph(graph)
    s, t, bad = _endpoints(graph, start, goal)
    if bad is not None:
        return bad
    hops, expanded, sc = _bfs(graph, s, t)
    if hops < 0:
        return PathResult(PathStatus.UNREACHABLE, expanded=expanded, algorithm="bfs")
    nodes = K.trace(sc.parent, t)
    cost = float(path_costs(graph, nodes, np.array([0, nodes.size], np.int64))[0])
    return PathResult(PathStatus.FOUND, nodes, graph.points_of(nodes), cost, expanded, "bfs")


def dijkstra_all(graph, source):
    """Distances (float64, inf if unreachable) and parents (int32, -1 for
    the source and unreached nodes) from ``source`` to every node."""
    graph = validate.graph(graph)
    s = check_node(graph, source, "source")
    n = graph.num_nodes
    dist = np.full(n, np.inf)
    parent = np.full(n, -1, dtype=np.int32)
    if not graph.walkable[s]:
        return dist, parent
    csr = graph.csr
    sc = scratch_for(graph)
    gen = sc.next_gen()
    K.sssp(csr.offsets, csr.targets, csr.cost, graph.walkable, s,
            np.empty(0, np.int32), np.empty(0), sc.g, sc.parent, sc.stamp, sc.mark,
            sc.hnode, sc.hkey, sc.hpos, gen)
    settled = sc.stamp == 2 * gen + 1
    dist[settled] = sc.g[settled]
    parent[settled] = sc.parent[settled]
    return dist, parent


def matrix_search_side(graph, num_sources: int, num_targets: int) -> str:
    """``"targets"`` when ``distance_matrix`` searches from the targets
    (a directed graph with fewer targets than sources), else ``"sources"``."""
    return "targets" if graph.directed and num_targets < num_sources else "sources"


def distance_matrix(graph, sources, targets) -> np.ndarray:
    """``(len(sources), len(targets))`` shortest costs, inf if unreachable.

    One early-exit Dijkstra per source, or per target over the reversed
    graph when there are fewer targets (fewer searches), the rows spread
    over the numba threads (a few rows run on the calling thread).
    """
    graph = validate.graph(graph)
    m, n = limits.count(sources), limits.count(targets)
    # before the ids are converted (a view of a huge array costs nothing yet)
    limits.check_memory(f"a {m} x {n} distance matrix",
                        16 * m * n)      # the answer, and its transpose
    src = _node_array(graph, sources, "sources")
    dst = _node_array(graph, targets, "targets")
    out = np.full((src.size, dst.size), np.inf)
    if src.size == 0 or dst.size == 0:
        return out
    csr = graph.csr
    backward = matrix_search_side(graph, src.size, dst.size) == "targets"
    if backward:
        rev = csr.reverse()
        offsets, heads, cost = rev.offsets, rev.targets, rev.cost
        rows, cols, res = dst, src, out.T.copy()
    else:
        offsets, heads, cost = csr.offsets, csr.targets, csr.cost
        rows, cols, res = src, dst, out
    walk = graph.walkable
    with kernel_threads(graph, rows.size * graph.num_nodes, _PARALLEL_MIN_WORK) as threads:
        K.matrix_rows(offsets, heads, cost, walk, rows, cols, res, min(threads, rows.size))
    res[:, ~walk[cols]] = np.inf
    return res.T.copy() if backward else res


def distance_pairs(graph, sources, targets) -> np.ndarray:
    """``out[i]``: shortest cost from ``sources[i]`` to ``targets[i]``.

    Pairs are grouped by source, so each distinct source runs one
    early-exit Dijkstra that stops once all of its targets are settled.
    """
    graph = validate.graph(graph)
    limits.check_pairs("distance_pairs", max(limits.count(sources), limits.count(targets)))
    src = _node_array(graph, sources, "sources")
    dst = _node_array(graph, targets, "targets")
    if src.shape != dst.shape:
        raise QueryError(f"distance_pairs needs as many sources as targets, got "
                         f"{src.size} and {dst.size}")
    out = np.full(src.size, np.inf)
    order = np.argsort(src, kind="stable")
    bounds = np.flatnonzero(np.diff(src[order])) + 1
    csr, walk = graph.csr, graph.walkable
    sc = scratch_for(graph)
    for group in np.split(order, bounds) if src.size else ():
        r = src[group[0]]
        if not walk[r]:
            continue
        goals = dst[group]
        res = np.empty(goals.size)
        gen = sc.next_gen()
        K.sssp(csr.offsets, csr.targets, csr.cost, walk, r, goals, res, sc.g, sc.parent,
               sc.stamp, sc.mark, sc.hnode, sc.hkey, sc.hpos, gen)
        out[group] = np.where(walk[goals], res, np.inf)
    return out


def reachable(graph, a, b) -> bool:
    """Whether ``b`` can be reached from ``a`` along usable edges (BFS)."""
    graph = validate.graph(graph)
    s = check_node(graph, a, "a")
    t = check_node(graph, b, "b")
    if not (graph.walkable[s] and graph.walkable[t]):
        return False
    return _bfs(graph, s, t)[0] >= 0


def _bfs(graph, s, t):
    """``(hops, expanded, scratch)`` of a breadth-first search between
    checked node ids (``bfs``, ``reachable``); the path is left in
    ``scratch.parent``."""
    csr = graph.csr
    sc = graph.scratch(_SCRATCH_KEY, _new_scratch)
    hops, expanded = K.bfs(csr.offsets, csr.targets, csr.cost, graph.walkable, s, t,
                           sc.parent, sc.stamp, sc.hnode, sc.next_gen())
    return hops, expanded, sc


def reachable_counts(graph, *, threads: int | None = None) -> np.ndarray:
    """For every node, how many nodes it can reach (itself included; 0 for
    blocked nodes). Parallel over nodes on ``threads`` numba threads
    (default: as many as the graph's world lets its kernels use, see
    ``navcore.parallel.max_threads``); no per-node allocation.

    Each parallel chunk owns one stamp array and one stack for all of its
    searches, so chunks are few: one per thread, and a single chunk for
    graphs too small to repay zeroing a second pair of arrays.
    """
    graph = validate.graph(graph)
    csr = graph.csr
    n = graph.num_nodes
    out = np.zeros(n, dtype=np.int64)
    if n == 0:
        return out
    available = numba.config.NUMBA_NUM_THREADS
    if threads is not None and not (validate.is_int(threads) and 1 <= threads <= available):
        raise QueryError(f"threads must be between 1 and {available}, got {threads!r}")
    with kernel_threads(graph if threads is None else int(threads), n,
                        _PARALLEL_MIN_NODES) as nchunks:
        K.reach_counts(csr.offsets, csr.targets, csr.cost, graph.walkable, nchunks, out)
    return out


#: below this many nodes one chunk beats splitting (measured: 20k nodes ran
#: 2.1 ms on one chunk, 5.9 ms on two)
_PARALLEL_MIN_NODES = 50_000


def _node_array(graph, nodes, what) -> np.ndarray:
    return validate.node_ids(nodes, graph.num_nodes, what)


def path_costs(graph, nodes, starts) -> np.ndarray:
    """Cost of each path on ``graph`` now, from its CSR view (path ``i``
    is ``nodes[starts[i]:starts[i+1]]``; inf where a node is blocked or a
    move has no usable edge). ``NodeError`` for ids that are not nodes or
    ``starts`` that are not offsets into ``nodes``."""
    graph = validate.graph(graph)
    nodes = validate.node_ids(nodes, graph.num_nodes, "nodes")
    try:
        starts = np.asarray(starts)
    except (TypeError, ValueError):
        starts = np.empty(0, dtype=object)
    if starts.ndim != 1 or starts.size == 0 or not validate.int_dtype(starts.dtype) \
            or starts[0] != 0 or starts[-1] != nodes.size or (np.diff(starts) < 0).any():
        raise NodeError(f"starts must be offsets into nodes: 1-d integers from 0 to "
                        f"{nodes.size}, never decreasing")
    csr = graph.csr
    out = np.empty(max(len(starts) - 1, 0), dtype=np.float64)
    K.path_costs(csr.offsets, csr.targets, csr.cost, graph.walkable,
                  np.ascontiguousarray(nodes, dtype=np.int32),
                  np.ascontiguousarray(starts, dtype=np.int64), out)
    return out


def warm_up(graph) -> None:
    """Run the generic kernels once on a node of ``graph`` and its first
    neighbour (queries only). A graph whose backend answers queries with
    its own kernels (a grid) is left alone unless its CSR view exists."""
    if not getattr(graph, "csr_built", True):
        return
    csr = graph.csr
    for s in graph.first_walkable(64):
        nb = csr.targets[csr.offsets[s]:csr.offsets[s + 1]]
        if nb.size:
            t = int(nb[0])
            dijkstra(graph, int(s), t)
            from .sliced import warm_up as warm_sliced     # sliced imports this module
            warm_sliced(graph, int(s), t, "zero")
            if graph.positions is not None and graph.heuristic != "zero":
                astar(graph, int(s), t)
                warm_sliced(graph, int(s), t, graph.heuristic)
            path_costs(graph, np.array([s, t], np.int32), np.array([0, 2], np.int64))
            distance_matrix(graph, [int(s)], [t])        # matrices and pairs
            return
