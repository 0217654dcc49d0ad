"""Landmarks: a stronger heuristic for grids, bought with a little memory.

For a few landmark cells ``L`` the distance ``d(L, v)`` to every cell is
stored. By the triangle inequality ``|d(L, v) - d(L, t)| <= d(v, t)``, so
the largest such difference is a lower bound on the distance still to
go: a differential heuristic (Goldberg & Harrelson's ALT; the A*
Pathfinding Project's "Euclidean embedding"). It is consistent too, so
A* and JPS stay exact and never reopen a node; both take the larger of it
and the octile distance. On maps where octile distance misleads (random
obstacles, mazes, rooms) the search expands several times fewer nodes.

>>> import navcore
>>> from navcore_grid import landmarks
>>> w = navcore.World()
>>> g = w.add_graph("m", type="grid", generate="maze", width=20, height=20, seed=3)
>>> lm = landmarks(g, 4)
>>> lm.count, lm.current
(4, True)
>>> a = w.find_path("m", (1, 1), (39, 39))
>>> b = w.find_path("m", (1, 1), (39, 39), algorithm="dijkstra")
>>> a.cost == b.cost, a.expanded < b.expanded
(True, True)

Landmarks are spread by farthest-point selection: each next one is the
cell farthest from those chosen (a cell no landmark reaches, in another
area, counts as farthest). The table is float32, ``count`` values per
cell; to keep the heuristic consistent despite float32 rounding it is
scaled by ``1 - delta`` with ``delta`` just large enough (a few units of
the last place of the largest distance, relative to the cheapest move).

Updates: the distances stay a valid lower bound as long as no move is
cheaper than when they were measured (walls come and go, doors close and
open again, costs rise and fall back): only blocking or raising costs can
make ``d`` grow, and a ``d`` measured on a cheaper graph bounds the dearer
one from below. A cell walkable now that was blocked at build time, or a
cost below its build value, marks the landmarks stale: queries then use
the octile distance alone until ``landmarks(graph)`` measures again.
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.errors import GraphError
from navcore.views import DerivedView

from . import _kernels as K

#: where a grid keeps its landmarks (``graph.view(VIEW_KEY)``)
VIEW_KEY = "navcore_grid.landmarks"
#: landmarks a grid may have (the heuristic loads one value per landmark
#: for every node it scores; 4-16 is the useful range)
MAX_COUNT = 32
NO_TABLE = np.full((1, 1), np.inf, dtype=np.float32)


class Landmarks(DerivedView):
    """The landmark table of one grid (``landmarks(graph, count)`` builds
    it), a derived view (``navcore.views``) that follows updates which only
    close cells or raise costs."""

    def __init__(self, graph, count: int):
        from .graph import GridGraph         # (graph.py imports this module)
        from .search import scratch_for
        graph = validate.graph(graph, GridGraph, error=GraphError)
        if not validate.is_int(count) or not 1 <= count <= MAX_COUNT:
            raise GraphError(f"landmarks must be a whole number in 1..{MAX_COUNT}, "
                             f"got {count!r}")
        super().__init__(graph)
        self.count = int(count)
        n = graph.padded_free.size
        self.table = np.full((n, self.count), np.inf, dtype=np.float32)
        self.cells = np.empty(self.count, dtype=np.int64)       # padded ids
        # one version's map, even while ticks update it (built as a job)
        self.built_free, self.built_cost = graph.read_consistent(
            lambda: (graph.padded_free.copy(), graph.padded_cost.copy()))
        free = np.flatnonzero(self.built_free)
        if free.size == 0:
            self.scale = 1.0
            return
        sc = scratch_for(graph)
        _, cmin, _ = graph.cost_stats()
        # far from an arbitrary walkable cell is a good first landmark
        nearest = np.full(n, np.inf)
        d = self._distances(graph, sc, int(free[0]))
        pick = _farthest(d, free)
        for q in range(self.count):
            self.cells[q] = pick
            d = self._distances(graph, sc, pick)
            self.table[:, q] = d
            np.minimum(nearest, d, out=nearest)
            pick = _farthest(nearest, free)
        # float32 keeps about 7 digits: shrink the bound by a few units of
        # the last place of the largest distance, relative to the cheapest
        # move, so rounding cannot make it exceed a move's cost
        finite = self.table[np.isfinite(self.table)]
        largest = float(finite.max()) if finite.size else 0.0
        cheapest = cmin * min(1.0, graph.diagonal_cost) if graph.connectivity == 8 else cmin
        delta = 4.0 * largest * 2.0 ** -24 / cheapest if cheapest > 0 else 1.0
        self.scale = max(0.0, 1.0 - delta)

    @staticmethod
    def _distances(graph, sc, source):
        """Distance from padded ``source`` to every padded cell (inf where
        unreachable): the grid's own A* kernel with no heuristic and no goal."""
        from .inputs import search_inputs
        from .search import with_pool
        grid = search_inputs(graph).dijkstra
        gen = [0]

        def run(pool):
            gen[0] = sc.next_gen(graph)
            return K.grid_astar(grid, sc.state, pool, source, -1, gen[0], K.WHOLE)

        with_pool(sc, run)
        return np.where(sc.stamp == 2 * gen[0] + 1, sc.g, np.inf)

    @property
    def nbytes(self) -> int:
        return int(self.table.nbytes + self.built_free.nbytes + self.built_cost.nbytes)

    def _check(self, graph, dirty) -> None:
        """After an update: still exact (and current) unless a ``dirty``
        cell is walkable now but was not at build time, or costs less than
        it did; then stale until ``landmarks(graph)`` measures again."""
        if self.version != graph.version - 1:       # stale already
            return
        d = np.asarray(dirty, dtype=np.int64)
        pad = (d // graph.width + 1) * graph.padded_width + d % graph.width + 1
        opened = graph.padded_free[pad] & ~self.built_free[pad]
        cheaper = graph.padded_cost[pad] < self.built_cost[pad]
        if not (opened.any() or cheaper.any()):
            self.mark_current()
        from .inputs import landmarks_changed
        landmarks_changed(graph)     # searches fetch the table (or its absence) again

    def args(self):
        """``(table, count, scale)`` for the search kernels."""
        return self.table, self.count, self.scale

    def __repr__(self) -> str:
        state = "current" if self.current else "stale"
        return f"<Landmarks {self.count} {state}>"


def _farthest(dist, free):
    """The walkable padded cell farthest from what ``dist`` measures; an
    unreached one (inf) first."""
    d = dist[free]
    unreached = ~np.isfinite(d)
    if unreached.any():
        return int(free[np.flatnonzero(unreached)[0]])
    return int(free[np.argmax(d)])


def landmarks(graph, count: int | None = None) -> Landmarks:
    """The landmarks of grid ``graph``, measured now if it has none, they
    are stale, or ``count`` differs (``None``: keep the count, 8 for a
    first build). Queries use them from then on (``algorithm="auto"``,
    ``"astar"``, ``"jps"``) while they are current."""
    graph = validate.graph(graph, error=GraphError)
    from .graph import GridGraph
    if not isinstance(graph, GridGraph):
        raise GraphError(f"landmarks are for grids; graph {graph.graph_id!r} is of type "
                         f"{graph.kind!r}")
    with graph.lock:
        lm = graph.stored_view(VIEW_KEY)
        want = count if count is not None else (lm.count if lm is not None else 8)
        if lm is None or not lm.current or lm.count != want:
            lm = Landmarks(graph, want)
            # nothing to warm up: the searches take the table as they take
            # NO_TABLE (float32, 2-D, C order), with the kernels add_graph
            # loaded (tests/kernel/test_warm_up.py, grid_views, checks it)
            graph.set_view(VIEW_KEY, lm)
            from .inputs import landmarks_changed
            landmarks_changed(graph)       # searches pick the table up
        return lm


def landmarks_of(graph):
    """The grid's landmarks (current or stale), or None; never measures."""
    graph = validate.graph(graph)
    return graph.stored_view(VIEW_KEY)


def kernel_args(graph):
    """``(table, count, scale)`` of the graph's current landmarks, or the
    empty table (count 0) without them."""
    lm = graph.view(VIEW_KEY)
    if lm is None:
        return NO_TABLE, 0, 1.0
    return lm.table, lm.count, lm.scale


def on_update(graph, dirty) -> None:
    lm = graph.stored_view(VIEW_KEY)
    if lm is not None:
        lm._check(graph, dirty)
