"""Grid path search: validating wrappers around the implicit-grid kernels.

>>> from navcore_grid import GridGraph, grid_astar, grid_jps, parse_rows
>>> g = GridGraph(parse_rows(["....", ".##.", "...."]))
>>> a, j = grid_astar(g, 0, 11), grid_jps(g, 0, 11)
>>> round(a.cost, 4), a.cost == j.cost, j.nodes.tolist()
(5.0, True, [0, 1, 2, 3, 7, 11])
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore._kernels import wraps
from navcore.errors import QueryError
from navcore.types import PathResult, PathStatus

from . import _jps
from . import _kernels as K
from . import _updates as U
from .graph import GridGraph
from .inputs import search_inputs
from .parallel import find_paths_parallel

INT32_MAX = np.iinfo(np.int32).max
_SCRATCH_KEY = "navcore_grid.search"


class GridScratch:
    """One thread's search memory for one grid, in padded cell layout.

    ``stamp`` holds ``BLOCKED`` for blocked and border cells permanently;
    updates of the grid rewrite those entries in every registered scratch
    set (``sync_blocked``), so a query never has to look at the mask.
    The open lists (A*'s radix-heap entry pool, JPS's indexed heap) are
    allocated on first use; the pool grows when a query runs out of it.
    JPS keeps its own arrays, packed as rows of two arrays (``jps()``): it
    needs no blocked sentinel, and two array arguments instead of six
    make every call cheaper. A* takes ``state`` (``stamp``, ``g``,
    ``parent``) and ``pool()`` as two tuples.
    """

    __slots__ = ("stamp", "g", "parent", "state", "gen", "_pool", "_jps", "buffer",
                 "__weakref__")

    def __init__(self, graph: GridGraph):
        n = graph.padded_free.size
        self.stamp = np.where(graph.padded_free, 0, K.BLOCKED).astype(np.int32)
        self.g = _touched(np.empty(n, dtype=np.float64))
        self.parent = _touched(np.empty(n, dtype=np.int32))
        #: ``grid_astar``'s ``state`` (the arrays are written in place, never replaced)
        self.state = (self.stamp, self.g, self.parent)
        self.gen = 0
        self._pool = None
        self._jps = None
        #: where batches trace their paths (``grid_find_paths``); grows
        self.buffer = np.empty(4096, dtype=np.int32)

    def _wipe(self, graph) -> None:
        """Forget every stamp (the generations wrap around)."""
        self.gen = 0
        self.stamp[:] = np.where(graph.padded_free, 0, K.BLOCKED)
        if self._jps is not None:
            self._jps[0][0] = 0

    def next_gen(self, graph) -> int:
        if wraps(self.gen):
            self._wipe(graph)
        self.gen += 1
        return self.gen

    def reserve_gens(self, graph, k: int) -> int:
        """``k`` fresh generations for a batch, ``first .. first + k - 1``
        (as ``k`` calls of ``next_gen`` would give, wiping at wrap-around)."""
        if wraps(self.gen, k):
            self._wipe(graph)
        first = self.gen + 1
        self.gen += k
        return first

    def pool(self, grow=False):
        """``(enode, ekey, enext, head, fbits, ibits, regs)`` for ``grid_astar``.
        One entry per cell covers almost every query (live entries are the
        open nodes plus a few stale ones); ``grow`` doubles it."""
        if self._pool is None or grow:
            n = self.stamp.size if self._pool is None else 2 * self._pool[0].size
            fbits = np.zeros(1, dtype=np.float64)
            regs = np.zeros(K.REGISTERS, dtype=np.int64)
            regs[K.R_EXPANDED] = -1
            self._pool = (_touched(np.empty(n, dtype=np.int32)),
                          _touched(np.empty(n, dtype=np.int64)),
                          _touched(np.empty(n, dtype=np.int32)), np.empty(65, dtype=np.int32),
                          fbits, fbits.view(np.int64), regs)
        return self._pool

    def jps(self):
        """``(i32, f64, regs)`` for ``_jps``: rows stamp, parent, heap node,
        heap position; g, heap key (made on first use, 24 bytes a cell);
        the search's registers."""
        if self._jps is None:
            n = self.stamp.size
            regs = np.zeros(_jps.REGISTERS, dtype=np.int64)
            regs[_jps.R_EXPANDED] = -1
            self._jps = (_touched(np.zeros((4, n), dtype=np.int32)),
                         _touched(np.empty((2, n), np.float64)), regs)
        return self._jps

    @property
    def nbytes(self) -> int:
        arrays = [self.stamp, self.g, self.parent]
        arrays += list(self._pool or ()) + list(self._jps or ())
        return sum(a.nbytes for a in arrays)


def _touched(a: np.ndarray) -> np.ndarray:
    """``a`` with every page written once. A fresh large array is only
    mapped, not backed: the search's first touches page-fault, and a
    vertical jump steps one page per cell, so the first query on a
    1000x1000 grid took 20 ms instead of 0.1. Scratch is made in the
    warm-up (``add_graph``), so the loading screen pays this, not a frame."""
    a.fill(0)
    return a


def _make_scratch(graph):
    return register_scratch(graph, GridScratch(graph))


def register_scratch(graph, s):
    """``s``, kept in step with the grid's blocked cells by its updates."""
    with graph.scratch_lock:
        graph.scratch_sets.append(s)
    return s


def scratch_for(graph) -> GridScratch:
    return graph.scratch(_SCRATCH_KEY, _make_scratch)


def sync_blocked(graph, padded_cells) -> None:
    """Write the blocked sentinel (or 0) of ``padded_cells`` into every
    scratch set of ``graph``; called by updates, with no query running.
    A set's ``stamp`` may be 2-D (``parallel.ParallelScratch``: one row
    per thread slot): every row is written."""
    vals = np.where(graph.padded_free[padded_cells], 0, K.BLOCKED).astype(np.int32)
    with graph.scratch_lock:
        for s in graph.scratch_sets:
            s.stamp[..., padded_cells] = vals


def dirty_mark(graph: GridGraph) -> np.ndarray:
    """This thread's all-zero uint8 mask over the cells, for updates to
    mark the cells they make dirty (and clear them again)."""
    return graph.scratch("navcore_grid.dirty_mark",
                         lambda g: np.zeros(g.num_nodes, dtype=np.uint8))


def jps_applies(graph: GridGraph) -> bool:
    """JPS is exact here: uniform costs, 8-connected, no corner cutting and
    1 <= diagonal_cost <= 2 (its pruning rules assume that move model),
    and fewer than 2^29 cells (two bits of its parent links hold turns)."""
    graph = validate.graph(graph, GridGraph)
    return graph.cost_stats()[2]


def with_pool(sc, run):
    """``run(pool)`` for an A* kernel until its entry pool was large enough:
    a result whose first item (the cost) is -1 means it ran out, and the
    pool doubles for another try."""
    grow = False
    while True:
        out = run(sc.pool(grow))
        if out[0] != -1.0:
            return out
        grow = True


def grid_astar(graph: GridGraph, start: int, goal: int, *, heuristic=True,
               algorithm="astar") -> PathResult:
    """A* (Dijkstra with ``heuristic=False``) between node ids on a grid.

    Exact for any per-cell costs: the octile heuristic is scaled by the
    cheapest cell cost, and current landmarks (``landmarks.py``) raise it
    where they know better. ``NodeError`` for ids that are not cells; a
    blocked end is answered ``invalid_start``/``invalid_goal``.
    """
    heuristic = validate.boolean(heuristic, "heuristic", QueryError)
    if type(algorithm) is not str:
        raise QueryError(f"algorithm must be a name (a str), got {algorithm!r}")
    s, t, bad = _ends(graph, start, goal)
    # (a failed PathResult is falsy: it has no nodes)
    return bad if bad is not None else astar_query(graph, s, t, heuristic, algorithm)


def _ends(graph, start, goal):
    """``(s, t, answer)``: the ids checked (the kernels index the padded
    grid with them unchecked), and the answer when an end is blocked."""
    if not isinstance(graph, GridGraph):
        raise QueryError(f"expected a grid graph, got {graph!r}")
    s = validate.node_id(start, graph.num_nodes, "start")
    t = validate.node_id(goal, graph.num_nodes, "goal")
    if not graph.walkable[s]:
        return s, t, PathResult.failed(PathStatus.INVALID_START)
    if not graph.walkable[t]:
        return s, t, PathResult.failed(PathStatus.INVALID_GOAL)
    return s, t, None


def astar_query(graph: GridGraph, start: int, goal: int, heuristic=True,
                algorithm="astar") -> PathResult:
    """``grid_astar`` for callers whose ends are walkable cells already
    (``World`` resolved them)."""
    sc = scratch_for(graph)
    inputs = search_inputs(graph)
    grid = inputs.astar if heuristic else inputs.dijkstra
    cost, expanded, nodes, points = with_pool(sc, lambda pool: K.astar_path(
        grid, sc.state, pool, start, goal, sc.next_gen(graph)))
    if not cost < np.inf:
        return PathResult(PathStatus.UNREACHABLE, expanded=expanded, algorithm=algorithm)
    return PathResult.found_path(nodes, points, cost, expanded, algorithm)


def grid_jps(graph: GridGraph, start: int, goal: int) -> PathResult:
    """Jump point search between node ids; same cost as A*, far fewer
    expansions on open maps. ``QueryError`` where JPS does not apply,
    ``NodeError`` for ids that are not cells."""
    s, t, bad = _ends(graph, start, goal)
    return bad if bad is not None else jps_or_refuse(graph, s, t)


def jps_or_refuse(graph: GridGraph, start: int, goal: int) -> PathResult:
    """``grid_jps`` for callers whose ends are walkable cells already."""
    if not jps_applies(graph):
        raise QueryError(f"jps needs a uniform-cost, 8-connected grid without corner "
                         f"cutting and 1 <= diagonal_cost <= 2; graph "
                         f"{graph.graph_id!r} has connectivity={graph.connectivity}, "
                         f"corner_cutting={graph.corner_cutting}, diagonal_cost="
                         f"{graph.diagonal_cost:g}, uniform costs={graph.uniform}; "
                         f"use algorithm='astar'")
    return jps_query(graph, start, goal)


def jps_query(graph: GridGraph, start: int, goal: int) -> PathResult:
    """``grid_jps`` for callers that checked ``jps_applies`` already."""
    sc = scratch_for(graph)
    cost, expanded, nodes, points = _jps.jps_path(
        search_inputs(graph).jps, sc.jps(), start, goal, sc.next_gen(graph))
    if not cost < np.inf:
        return PathResult(PathStatus.UNREACHABLE, expanded=expanded, algorithm="jps")
    return PathResult.found_path(nodes, points, cost, expanded, "jps")


def closed_nodes(graph: GridGraph, request):
    """``navcore_closed_nodes``: ``(result, closed cells)`` of the search
    ``navcore_find_path`` runs for ``request`` (``auto``: JPS where it
    applies, else A*; ``jps``, ``astar``, ``dijkstra``), the cells read
    from this thread's scratch right after it: those stamped with the
    query's closed mark (``2 * gen + 1``; JPS closes jump points). None
    for other algorithms."""
    algo = request.algorithm
    s, t = request.start_node, request.goal_node
    sc = scratch_for(graph)
    if algo == "jps" or (algo == "auto" and jps_applies(graph)):
        result = jps_or_refuse(graph, s, t)
        stamp = sc.jps()[0][0]
    elif algo in ("auto", "astar", "dijkstra"):
        result = astar_query(graph, s, t, algo != "dijkstra",
                             "dijkstra" if algo == "dijkstra" else "astar")
        stamp = sc.stamp
    else:
        return None
    padded = np.flatnonzero(stamp == 2 * sc.gen + 1)
    Wp = graph.width + 2
    return result, ((padded // Wp - 1) * graph.width + padded % Wp - 1).astype(np.int32)


def grid_find_paths(graph: GridGraph, batch) -> None:
    """Answer the open entries of a ``navcore.PathBatch`` as
    ``navcore_find_path`` would (``auto``: JPS where it applies, else A*;
    ``jps``, ``astar``, ``dijkstra``), in one kernel call: no Python per
    pair. With ``batch.threads`` > 1, one parallel call on that many
    threads (``parallel.py``). ``jps`` where it does not apply, and
    algorithms that are not the grid's, are left open (one request at a
    time, they raise or pass on)."""
    kind = _batch_kind(graph, batch.algorithm)
    if kind is None:
        return
    idx = batch.todo()
    if idx.size == 0:
        return
    threads = getattr(batch, "threads", 1)
    if threads > 1 and idx.size > 1 and find_paths_parallel(graph, batch, kind, idx, threads):
        return                      # all answered (what ran out of room: again)
    _find_paths_here(graph, batch, kind, idx)


def _batch_kind(graph, algo):
    if algo == "auto":
        return "jps" if jps_applies(graph) else "astar"
    if algo == "jps":
        return "jps" if jps_applies(graph) else None
    if algo == "astar" or algo == "dijkstra":
        return algo
    return None


def _find_paths_here(graph, batch, kind, idx) -> None:
    """Entries ``idx`` of ``batch`` searched on this thread, one kernel call."""
    k = idx.size
    starts, goals = batch.starts, batch.goals
    if k < len(batch):
        starts, goals = starts[idx], goals[idx]
    sc = scratch_for(graph)
    cost = np.empty(k, dtype=np.float64)
    expanded = np.empty(k, dtype=np.int64)
    offsets = np.empty(k + 1, dtype=np.int64)
    inputs = search_inputs(graph)
    if kind == "jps":
        buf, used = _jps.jps_batch(inputs.jps, sc.jps(), starts, goals,
                                   sc.reserve_gens(graph, k), cost, expanded, offsets,
                                   sc.buffer)
    else:
        grid = inputs.astar if kind == "astar" else inputs.dijkstra
        buf, used, done, grow = sc.buffer, 0, 0, False
        while done < k:              # the entry pool ran out: grow it, go on
            buf, used, done = K.astar_batch(grid, sc.state, sc.pool(grow), starts, goals,
                                            sc.reserve_gens(graph, k - done), cost, expanded,
                                            offsets, buf, done, used)
            grow = True
    sc.buffer = buf
    nodes = buf[:used].copy()
    batch.answer(idx, cost, expanded, nodes, offsets, K.centres(nodes, graph.width), kind)


def grid_path_costs(graph: GridGraph, nodes, starts) -> np.ndarray:
    """Cost of each path (cell ids ``nodes[starts[i]:starts[i+1]]``) under
    the grid's move rule now; inf where it is broken. No CSR view needed."""
    out = np.empty(max(len(starts) - 1, 0), dtype=np.float64)
    K.path_costs(graph.padded_free, graph.padded_cost, graph.width, graph.diagonal_cost,
                  graph.connectivity, graph.corner_cutting,
                  np.ascontiguousarray(nodes, dtype=np.int32),
                  np.ascontiguousarray(starts, dtype=np.int64), out)
    return out


def warm_up(graph: GridGraph) -> None:
    """Run each search kernel once between two neighbouring walkable cells
    of ``graph`` (a query, nothing changes); building the CSR view loads
    its refresh (``GridGraph._build_csr``)."""
    W = graph.width
    pair = None
    for s in graph.first_walkable(4096):
        for t in (s + 1, s + W):
            if t < graph.num_nodes and graph.walkable[t] and (t != s + 1 or t % W):
                pair = (int(s), int(t))
                break
        if pair:
            break
    if pair is None:
        return
    grid_astar(graph, *pair)
    grid_astar(graph, *pair, heuristic=False)
    from .sliced import warm_up as warm_sliced     # sliced imports this module
    warm_sliced(graph, *pair)
    if jps_applies(graph):
        grid_jps(graph, *pair)
        graph._sync_bits(np.empty(0, dtype=np.int64))      # what updates call
    # the update kernels and their scratch, on nothing (an update's first
    # tick must not load them)
    none = np.empty(0, dtype=np.int64)
    K.set_walkable(none, True, graph.walkable, graph.padded_free, W, none)
    K.neighbourhood(none, W, graph.height, dirty_mark(graph), np.empty(0, np.int32))
    no_bits, buf = np.empty((0, 1), dtype=np.uint64), np.empty(0, np.int32)
    U.apply_walkable(none, 0, 0, 0, 0, True, graph.walkable, graph.padded_free, W,
                     graph.height, no_bits, no_bits, buf, dirty_mark(graph), buf, buf)
    grid_path_costs(graph, np.array(pair, np.int32), np.array([0, 2], np.int64))
    from navcore.types import PathBatch                    # the scheduler's batches
    for algorithm in ("astar", "jps") if jps_applies(graph) else ("astar",):
        grid_find_paths(graph, PathBatch(graph.graph_id, algorithm,
                                         np.array(pair[:1], np.int32),
                                         np.array(pair[1:], np.int32)))
    graph.points_of(np.array(pair, np.int32))             # generic views' results
    graph.points_of(np.array(pair, np.int64))
