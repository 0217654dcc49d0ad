"""What the grid's search kernels read of a grid, as a derived view.

A search kernel takes the grid as one tuple (``SearchInputs.astar``,
``.dijkstra``, ``.jps``) and its scratch as one or two more (rows of 2-D
blocks where the dtypes agree), not a dozen arguments gathered on every
query. The tuples are a derived view (``navcore.views``) of one version of
the grid: every update batch bumps the version, so the first query after
it gathers them again (the cost statistics and landmarks may have
changed); a landmark table built or found stale drops the view, which
does not follow the version then.

Plain tuples, not ``NamedTuple``\\ s: numba types a named tuple argument
through its Python fallback, 1.9 us a call for 17 fields against 1.2 us
for a plain tuple (measured, numba 0.68), paid by every query.
"""
from __future__ import annotations

import weakref

from navcore.views import DerivedView

from .landmarks import NO_TABLE
from .landmarks import kernel_args as landmark_args

#: where a grid keeps its search inputs (``graph.view(VIEW_KEY)``)
VIEW_KEY = "navcore_grid.search_inputs"
_NO_LANDMARKS = (NO_TABLE, 0, 1.0)


class SearchInputs(DerivedView):
    """The kernel inputs of one version of a grid. ``astar`` and
    ``dijkstra`` are ``_kernels.grid_astar``'s ``grid`` (``Wp, W, pcost,
    uniform, ndirs, off, dxs, dys, need, lens, corner_cut, ha, hb, hscale,
    lm, nk, lscale``; Dijkstra's with no heuristic); ``jps`` is
    ``_jps.jump_search``'s (``Wp, W, free, rowbits, colbits, diag, lm,
    nk, lscale``) where jump point search applies (``cost_stats``), else
    None.

    It holds its grid weakly: the grid owns it (``graph.view``), and a
    strong reference back would be a cycle that keeps the grid's arrays
    alive until Python's cycle collector runs, where a dropped grid
    should go at once (a Dask worker frees a removed graph by reference
    count). A copy of the view whose grid is gone (a pickled grid's: the
    weak reference does not travel) is never current, so the grid that
    holds it gathers its inputs again."""

    graph = property(lambda self: self._graph(),
                     lambda self, graph: setattr(self, "_graph", weakref.ref(graph)))

    @property
    def current(self) -> bool:
        graph = self._graph()
        return graph is not None and self.version == graph.version

    def __init__(self, graph):
        super().__init__(graph)
        uniform, cmin, jps = graph.cost_stats()
        ha, hb = heuristic_coefficients(graph)
        lm = landmark_args(graph)
        Wp, W = graph.padded_width, graph.width
        moves = (Wp, W, graph.padded_cost, uniform, graph.connectivity, *graph.directions,
                 graph.corner_cutting, ha, hb)
        self.astar = (*moves, cmin, *lm)
        self.dijkstra = (*moves, 0.0, *_NO_LANDMARKS)
        self.jps = (Wp, W, graph.padded_free, *graph.bit_lines, graph.diagonal_cost,
                    *lm) if jps else None


def search_inputs(graph) -> SearchInputs:
    """The grid's current search inputs, gathered on first need after a
    change."""
    return graph.view(VIEW_KEY, SearchInputs)


def landmarks_changed(graph) -> None:
    """A landmark table was built or went stale: searches gather their
    inputs again."""
    graph.drop_view(VIEW_KEY)


def heuristic_coefficients(graph):
    """``(a, b)`` with h = a * max(dx, dy) + b * min(dx, dy): a lower bound
    on the unit-cost distance under the graph's move model."""
    d = graph.diagonal_cost
    if graph.connectivity == 4 or d >= 2.0:
        return 1.0, 1.0            # manhattan
    if d >= 1.0:
        return 1.0, d - 1.0        # octile
    return d, 0.0                  # cheap diagonals: d * chebyshev
