"""Per-query area filters and costs on navmeshes whose polygons carry area
types (a level's: ``graph.area_ids``, one id per polygon, and
``graph.area_names``, name -> id), as Detour's ``dtQueryFilter``:

* ``include_areas=[...]`` / ``exclude_areas=[...]`` (names or ids): the
  query walks only polygons of the included areas (all when not given)
  that are not excluded; the others are walls for that query, with every
  algorithm, so ``polyanya`` stays exact over what is left. A start or
  goal on a polygon the filter leaves out is ``invalid_start`` /
  ``invalid_goal``, as a blocked polygon's.
* ``area_costs={"water": 3.0}`` (cost > 0, 1 for areas not given): a
  step of the polygon-graph search between polygons ``u`` and ``v`` (its
  centroid-to-centroid length) costs that length times the mean of the
  two areas' costs (half the step lies in each). Honoured by ``funnel``
  (its corridor search; the string is then pulled taut inside the
  corridor) and by ``polygon_astar`` / ``polygon_dijkstra``; like
  Detour's, such a path is not the cheapest possible one, only a good
  one. ``polyanya`` (the default) measures length alone: an area cost
  other than 1 with it is a ``QueryError`` naming the algorithms that
  honour costs. A result's ``cost`` stays its length for ``funnel`` and
  is the weighted polygon-graph cost for the polygon-graph searches.

A filter (its mask over the polygons, the exact search's links and turn
corners with the left-out polygons as walls, the weighted polygon graph)
is made on first use and kept with the graph version (up to ``KEEP``
filters), so a repeated filter costs a dictionary lookup; a query without
these options does no work here.
"""
from __future__ import annotations

import math

import numpy as np

import navcore_csr
from navcore import limits, validate
from navcore.errors import QueryError
from navcore.graph import NavGraph
from navcore.types import PathResult, PathStatus
from navcore.views import DerivedView

#: the find_path options read on a graph with area types (any value: checked here)
OPTIONS = {"include_areas": None, "exclude_areas": None, "area_costs": None}
#: the algorithms that honour ``area_costs``
COST_ALGORITHMS = ("funnel", "polygon_astar", "polygon_dijkstra")
#: filters kept per graph version
KEEP = 16
_VIEW_KEY = "navcore_navmesh.area_filters"
_IDS = 64                      # Recast's area ids are 0..63


def has_areas(graph) -> bool:
    return getattr(graph, "area_ids", None) is not None


def _area_ids(graph, value, what: str) -> np.ndarray:
    """bool (64,): the areas ``value`` (a name, an id, or a list of them)
    names."""
    names = getattr(graph, "area_names", None) or {}
    items = [value] if isinstance(value, (str, int, np.integer)) else value
    if isinstance(items, (bytes, dict)) or not hasattr(items, "__iter__"):
        raise QueryError(f"{what} must be a list of area names or ids, got "
                         f"{validate.describe(value)}")
    out = np.zeros(_IDS, dtype=bool)
    for item in items:
        out[_one_id(names, item, what)] = True
    return out


def _one_id(names: dict, item, what: str) -> int:
    if validate.is_int(item):
        if not 0 <= int(item) < _IDS:
            raise QueryError(f"{what}: area id {int(item)} is not in 0..{_IDS - 1}")
        return int(item)
    if isinstance(item, str) and item in names:
        return int(names[item])
    raise QueryError(f"{what}: unknown area {item!r}; this graph's areas: "
                     f"{', '.join(map(repr, names)) or 'none'} (or ids 0..{_IDS - 1})")


#: the dearest area cost: times a step's length (coordinates up to
#: ``limits.MAX_COORDINATE``) it stays within ``limits.MAX_COST``, so a
#: path's sum never overflows into "unreachable"
MAX_AREA_COST = limits.MAX_COST / limits.MAX_COORDINATE


def _costs(graph, value) -> np.ndarray | None:
    """float64 (64,) cost per area id, None when every cost is 1."""
    if not isinstance(value, dict):
        raise QueryError(f"area_costs must be a mapping of area (name or id) to cost, got "
                         f"{validate.describe(value)}")
    names = getattr(graph, "area_names", None) or {}
    out = np.ones(_IDS)
    for area, cost in value.items():
        i = _one_id(names, area, "area_costs")
        if isinstance(cost, (bool, np.bool_)) or not isinstance(
                cost, (int, float, np.integer, np.floating)) or not math.isfinite(cost) \
                or not 0 < cost <= MAX_AREA_COST:
            raise QueryError(f"area_costs[{area!r}] must be a number > 0 and at most "
                             f"{MAX_AREA_COST:g}, got {validate.describe(cost)}")
        out[i] = float(cost)
    return None if (out == 1.0).all() else out


class AreaFilter:
    """One filter on one version of a graph: ``mask`` (bool per polygon:
    walkable and let through), ``costs`` (per area id, or None), the
    weighted polygon graph (``polygon_graph``) and the exact search's
    arguments (``space``), each made on first use."""

    def __init__(self, graph, allowed: np.ndarray, costs):
        self.graph = graph
        self.costs = costs
        self.mask = np.ascontiguousarray(graph.walkable & allowed[graph.area_ids])
        self._polygons = self._space = None

    def refused(self, request):
        """The ``invalid_start``/``invalid_goal`` result when an end's
        polygon is left out, else None."""
        if not self.mask[request.start_node]:
            return PathResult.failed(PathStatus.INVALID_START, request.algorithm)
        if not self.mask[request.goal_node]:
            return PathResult.failed(PathStatus.INVALID_GOAL, request.algorithm)
        return None

    def check_exact(self, request) -> None:
        """``QueryError`` when an exact search is asked to weigh areas."""
        if self.costs is not None:
            raise QueryError(
                f"area_costs are not honoured by {request.algorithm!r} (polyanya, the exact "
                f"search, measures length alone); ask for algorithm "
                f"{' or '.join(map(repr, COST_ALGORITHMS))} (paths weighted by area, not "
                f"exact), or leave every cost at 1")

    def polygon_graph(self) -> NavGraph:
        """The polygon graph with the filter's mask as its walkable flags
        and, with costs, each step weighted by the mean of its two
        polygons' area costs (the csr plugin's searches run on it)."""
        if self._polygons is None:
            g = self.graph
            csr = g.csr
            cost = csr.cost
            if self.costs is not None:
                per_poly = self.costs[g.area_ids]
                src = np.repeat(np.arange(g.num_nodes), np.diff(csr.offsets))
                cost = cost * (0.5 * (per_poly[src] + per_poly[csr.targets]))
            storage = navcore_csr.CSR(csr.offsets, csr.targets, {"cost": cost}, g.num_nodes,
                                      csr.sorted, csr.deduplicated)
            self._polygons = NavGraph(storage, positions=g.positions, walkable=self.mask,
                                      heuristic=g.heuristic)
        return self._polygons

    def space(self):
        """The exact search's space with the left-out polygons as walls."""
        if self._space is None:
            from .polyanya import filtered_space
            self._space = filtered_space(self.graph, self.mask)
        return self._space


class _Filters(DerivedView):
    """The filters made on one graph version, by key."""

    def __init__(self, graph):
        super().__init__(graph)
        self.made = {}


def resolve(graph, options) -> AreaFilter | None:
    """The filter ``options`` ask for (``QueryError`` for unknown areas
    or bad costs), None when they ask for none."""
    get = options.get
    include, exclude, costs = get("include_areas"), get("exclude_areas"), get("area_costs")
    if include is None and exclude is None and costs is None:
        return None
    if not has_areas(graph):
        raise QueryError("area filters need a graph whose polygons carry area types (a "
                         "level graph)")
    allowed = np.ones(_IDS, dtype=bool) if include is None else \
        _area_ids(graph, include, "include_areas")
    if exclude is not None:
        allowed &= ~_area_ids(graph, exclude, "exclude_areas")
    weights = None if costs is None else _costs(graph, costs)
    key = (allowed.tobytes(), None if weights is None else weights.tobytes())
    view = graph.view(_VIEW_KEY, _Filters)
    found = view.made.get(key)
    if found is None:
        if len(view.made) >= KEEP:
            view.made.clear()
        found = view.made[key] = AreaFilter(graph, allowed, weights)
    return found
